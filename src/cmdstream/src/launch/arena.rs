//! The entry arena at the start of the USC heap: a 0x340-byte helper directory, then one
//! 0xc0-byte block per shader body whose entry (+0x80) transfers active lanes to the body
//! with `JMP_EXEC_ANY` and stops when none are active.
//!
//! Layout facts: GravityLinux/mesa src/gallium/drivers/asahi/agx_apple9.c (arena
//! initialisation, entry blocks, compute constant helper) and src/asahi/lib/agx_apple9_layout.h;
//! the arena ran on T8132 with every generated launcher. The directory's terminal tags and
//! pads are reproduced because the driver found the layout required, not because their
//! meaning is known (README.apple9-launchers.md "Unresolved hardware semantics").

use super::{
    LaunchError, ENTRY_ARENA_BYTES, ENTRY_BLOCK_BYTES, ENTRY_IN_BLOCK, HELPER_DIRECTORY_BYTES,
};
use agx16_isa::Instr;

/// Offset of the compute constant helper inside an entry block.
pub const CONSTANT_IN_BLOCK: usize = 0x40;
/// Helper tables inside the directory and their record count.
pub const HELPER_TABLES: [usize; 2] = [0x100, 0x200];
pub const HELPER_SLOTS: usize = 10;
/// Pads after the constant helper's STOP (fills its 0x40 bytes).
const CONSTANT_PADS: usize = 30;
/// Farthest body the entry reaches: the 4 GiB USC heap.
const BODY_REACH: i64 = u32::MAX as i64;

fn isa(name: &str, fields: &[(&str, u64)]) -> Result<Vec<u8>, LaunchError> {
    Ok(Instr::build(name, fields)?.encode_checked()?)
}

/// `JMP_EXEC_ANY` by a signed byte displacement from its own address (48-bit field).
pub fn jump_any(displacement: i64) -> Result<Vec<u8>, LaunchError> {
    if displacement % 2 != 0 || !(-(1i64 << 47)..(1i64 << 47)).contains(&displacement) {
        return Err(LaunchError::Encode(format!(
            "jump displacement {displacement} is odd or beyond 48 bits"
        )));
    }
    let field = (displacement as u64) & ((1 << 48) - 1);
    isa("jump", &[("mode", 0x54), ("offset", field)])
}

fn fill_pads(out: &mut [u8]) -> Result<(), LaunchError> {
    let pad = isa("pad", &[])?;
    for chunk in out.chunks_mut(pad.len()) {
        chunk.copy_from_slice(&pad[..chunk.len()]);
    }
    Ok(())
}

/// The 0x340-byte helper directory: a size word, pads from +0x40, and two helper tables
/// (at +0x100 and +0x200) of ten forward jumps to a pair of terminal tags.
pub fn helper_directory() -> Result<Vec<u8>, LaunchError> {
    let mut d = vec![0u8; HELPER_DIRECTORY_BYTES as usize];
    d[..4].copy_from_slice(&(HELPER_DIRECTORY_BYTES as u32).to_le_bytes());
    fill_pads(&mut d[0x40..])?;
    let mut terminal = isa("helper_tag", &[])?;
    terminal.extend(isa("return", &[("b2", 0x54), ("b3", 1)])?);
    for base in HELPER_TABLES {
        for i in 0..HELPER_SLOTS {
            let at = base + i * 0x10;
            let jump = jump_any(((HELPER_SLOTS - i) * 0x10) as i64)?;
            d[at..at + jump.len()].copy_from_slice(&jump);
        }
        for t in 0..2 {
            let at = base + (HELPER_SLOTS + t) * 0x10;
            d[at..at + terminal.len()].copy_from_slice(&terminal);
        }
    }
    Ok(d)
}

/// One 0xc0-byte entry block for a body at `body_va`, placed at USC offset `block_offset`
/// (USC base `usc_base`). Compute blocks carry the terminating constant helper at +0x40.
pub fn entry_block(
    usc_base: u64,
    block_offset: u64,
    body_va: u64,
    compute: bool,
) -> Result<Vec<u8>, LaunchError> {
    if block_offset < HELPER_DIRECTORY_BYTES
        || block_offset + ENTRY_BLOCK_BYTES > ENTRY_ARENA_BYTES
        || !block_offset.is_multiple_of(0x40)
    {
        return Err(LaunchError::ArenaFull(block_offset));
    }
    let entry_va = usc_base + block_offset + ENTRY_IN_BLOCK;
    let displacement = body_va as i64 - entry_va as i64;
    if (entry_va | body_va) & 1 != 0 || displacement.abs() > BODY_REACH {
        return Err(LaunchError::BodyOutOfReach {
            entry: entry_va,
            body: body_va,
        });
    }
    let mut b = vec![0u8; ENTRY_BLOCK_BYTES as usize];
    b[..4].copy_from_slice(&(ENTRY_BLOCK_BYTES as u32).to_le_bytes());
    if compute {
        let stop = isa("stop", &[])?;
        let at = CONSTANT_IN_BLOCK;
        b[at..at + stop.len()].copy_from_slice(&stop);
        let pads = at + stop.len();
        fill_pads(&mut b[pads..pads + 2 * CONSTANT_PADS])?;
    }
    let mut entry = jump_any(displacement)?;
    entry.extend(isa("stop", &[])?);
    let at = ENTRY_IN_BLOCK as usize;
    b[at..at + entry.len()].copy_from_slice(&entry);
    Ok(b)
}

/// An arena image: the directory followed by one block per body, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaImage {
    pub bytes: Vec<u8>,
    /// USC entry offset of each body (what the stage target selects).
    pub entries: Vec<u64>,
}

/// Builds the arena for `bodies` (body VA, is-compute), block `i` at `entry_offset(i)`.
pub fn build_arena(usc_base: u64, bodies: &[(u64, bool)]) -> Result<ArenaImage, LaunchError> {
    let mut bytes = helper_directory()?;
    let mut entries = Vec::with_capacity(bodies.len());
    for (i, &(body, compute)) in bodies.iter().enumerate() {
        let block = HELPER_DIRECTORY_BYTES + i as u64 * ENTRY_BLOCK_BYTES;
        bytes.extend(entry_block(usc_base, block, body, compute)?);
        entries.push(block + ENTRY_IN_BLOCK);
    }
    Ok(ArenaImage { bytes, entries })
}

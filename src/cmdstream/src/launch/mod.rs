//! Launcher (setup) program parameters, the entry arena that leads into shader bodies, and
//! the resource ("root") records launchers load. The launcher's instructions themselves
//! are built and decoded by `agx16-isa`; this module holds the layouts and the field
//! encodings a launcher carries.
//!
//! Source: `GravityLinux/mesa:src/gallium/drivers/asahi/README.apple9-launchers.md` (T8132
//! hardware experiments). Several control bits are documented there as unexplained.

mod arena;
mod program;
mod resolve;
mod summary;

pub use arena::*;
pub use program::*;
pub use resolve::*;
pub use summary::*;

use crate::evidence::{Basis, Evidence};
use crate::record::Hex;
use thiserror::Error;

/// The T8132 launcher write-up.
pub const LAUNCHERS: Evidence = Evidence {
    source: "GravityLinux/mesa:src/gallium/drivers/asahi/README.apple9-launchers.md",
    basis: Basis::MeasuredM4,
};

/// Size of the helper directory at the start of the entry arena.
pub const HELPER_DIRECTORY_BYTES: u64 = 0x340;
/// Size of each shader body's entry block: 0x40 header, 0x40 constant reservation, entry.
pub const ENTRY_BLOCK_BYTES: u64 = 0xc0;
/// Offset of the entry (a `JMP_EXEC_ANY` to the body, then STOP) inside its block.
pub const ENTRY_IN_BLOCK: u64 = 0x80;
/// The entry arena occupies the first 8 MiB of the USC heap.
pub const ENTRY_ARENA_BYTES: u64 = 8 << 20;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LaunchError {
    #[error("entry offset {0:#x} is odd")]
    OddEntry(u64),
    #[error("entry offset {0:#x} overflows the 24-bit stage target")]
    EntryTooFar(u64),
    #[error("{0} bytes of threadgroup memory: only 0, 128, 256, 512 and 1024 are established")]
    ThreadgroupMemory(u32),
    #[error("{0} samples: fragment allocation is established for 1, 2 and 4")]
    Samples(u32),
    #[error("{0} visible compute resources: at most 18")]
    TooManyResources(usize),
    #[error("a compute launch needs at least one visible resource")]
    NoResources,
    #[error("{0} publication words: at most 1022")]
    Publications(u32),
    #[error("{bytes} tile bytes at {samples} samples: at most 128 (1x) or 64 (2x/4x)")]
    TileBytes { bytes: u32, samples: u32 },
    #[error("body at {body:#x} is not within 4 GiB of entry {entry:#x} (or an address is odd)")]
    BodyOutOfReach { entry: u64, body: u64 },
    #[error("entry block {0} lies outside the 8 MiB entry arena")]
    ArenaFull(u64),
    #[error("instruction encoding: {0}")]
    Encode(String),
    #[error("launch program at byte {at}: {what}")]
    Program { at: usize, what: String },
}

impl From<agx16_isa::EncodeError> for LaunchError {
    fn from(e: agx16_isa::EncodeError) -> Self {
        LaunchError::Encode(e.to_string())
    }
}

/// USC offset of the entry for entry-block `index`: blocks follow the helper directory
/// (also `GravityLinux/mesa:src/asahi/lib/agx_apple9_layout.h`: header 0x340, blocks 0xc0,
/// code at +0x80).
pub fn entry_offset(index: u64) -> u64 {
    HELPER_DIRECTORY_BYTES + index * ENTRY_BLOCK_BYTES + ENTRY_IN_BLOCK
}

/// The 24-bit stage-target field: `2 * entry_offset + 0x2a`; entries are even.
pub fn stage_target(entry_offset: u64) -> Result<u32, LaunchError> {
    if entry_offset & 1 != 0 {
        return Err(LaunchError::OddEntry(entry_offset));
    }
    let v = entry_offset
        .checked_mul(2)
        .and_then(|v| v.checked_add(0x2a))
        .filter(|v| *v < 1 << 24)
        .ok_or(LaunchError::EntryTooFar(entry_offset))?;
    Ok(v as u32)
}

/// Inverse of [`stage_target`].
pub fn entry_from_target(target: u32) -> Option<u64> {
    (target as u64)
        .checked_sub(0x2a)
        .filter(|v| v % 2 == 0)
        .map(|v| v / 2)
}

/// Publication word: `ceil(P / 2) << 7` for a publication high-water mark of P words.
pub fn publication_word(publications: u32) -> u16 {
    (publications.div_ceil(2) << 7) as u16
}

/// Compute allocation word: `(threadgroup_bytes << 2) | 0x80`, for the sizes with
/// execution evidence (zero uses the zero-size form, returned as `None`).
pub fn compute_allocation(threadgroup_bytes: u32) -> Result<Option<u32>, LaunchError> {
    match threadgroup_bytes {
        0 => Ok(None),
        128 | 256 | 512 | 1024 => Ok(Some((threadgroup_bytes << 2) | 0x80)),
        n => Err(LaunchError::ThreadgroupMemory(n)),
    }
}

/// Fragment allocation mode: 0x4b for 1x/2x, 0x43 for 4x.
pub fn fragment_allocation_mode(samples: u32) -> Result<u8, LaunchError> {
    match samples {
        1 | 2 => Ok(0x4b),
        4 => Ok(0x43),
        n => Err(LaunchError::Samples(n)),
    }
}

/// Position C of the compute main-call field for R = visible + 1 root pointers:
/// `26 + 14 * ceil(R / 2)`.
pub fn compute_call_position(visible_resources: usize) -> Result<usize, LaunchError> {
    if visible_resources > 18 {
        return Err(LaunchError::TooManyResources(visible_resources));
    }
    Ok(26 + 14 * (visible_resources + 1).div_ceil(2))
}

/// Uniform selectors (low, high half) through which a compute main reads argument qword i.
pub fn compute_argument_uniforms(i: u32) -> (u32, u32) {
    (4 * i, 4 * i + 2)
}

/// First buffer argument of graphics stages (texture and sampler roots come first).
pub const GRAPHICS_BUFFER_ARGUMENT_BASE: u32 = 2;

record! {
    /// Graphics stage roots (first 0x38 bytes of the 0x100-byte root allocation): texture,
    /// sampler and buffer tables, then three reserved pointer slots (zero in normal draws).
    pub struct GraphicsRoots : 0x38 {
        texture_table: Hex = [0, 64] plain, LAUNCHERS;
        sampler_table: Hex = [64, 64] plain, LAUNCHERS;
        buffer_table: Hex = [128, 64] plain, LAUNCHERS;
        reserved_3: Hex = [192, 64] plain, LAUNCHERS;
        reserved_4: Hex = [256, 64] plain, LAUNCHERS;
        reserved_5: Hex = [320, 64] plain, LAUNCHERS;
    }
}

record! {
    /// Compute resource record (0x100 bytes): the hidden group-count pointer, up to 18
    /// visible buffer pointers in compacted binding order (writable last), and the inline
    /// group counts at +0xc0.
    pub struct ComputeResources : 0x100 {
        group_count_pointer: Hex = [0, 64] plain, LAUNCHERS;
        buffer_1: Hex = [64, 64] plain, LAUNCHERS;
        buffer_2: Hex = [128, 64] plain, LAUNCHERS;
        buffer_3: Hex = [192, 64] plain, LAUNCHERS;
        buffer_4: Hex = [256, 64] plain, LAUNCHERS;
        buffer_5: Hex = [320, 64] plain, LAUNCHERS;
        buffer_6: Hex = [384, 64] plain, LAUNCHERS;
        buffer_7: Hex = [448, 64] plain, LAUNCHERS;
        buffer_8: Hex = [512, 64] plain, LAUNCHERS;
        buffer_9: Hex = [576, 64] plain, LAUNCHERS;
        buffer_10: Hex = [640, 64] plain, LAUNCHERS;
        buffer_11: Hex = [704, 64] plain, LAUNCHERS;
        buffer_12: Hex = [768, 64] plain, LAUNCHERS;
        buffer_13: Hex = [832, 64] plain, LAUNCHERS;
        buffer_14: Hex = [896, 64] plain, LAUNCHERS;
        buffer_15: Hex = [960, 64] plain, LAUNCHERS;
        buffer_16: Hex = [1024, 64] plain, LAUNCHERS;
        buffer_17: Hex = [1088, 64] plain, LAUNCHERS;
        buffer_18: Hex = [1152, 64] plain, LAUNCHERS;
        group_count_x: u32 = [0x600, 32] plain, LAUNCHERS;
        group_count_y: u32 = [0x620, 32] plain, LAUNCHERS;
        group_count_z: u32 = [0x640, 32] plain, LAUNCHERS;
    }
}

impl ComputeResources {
    /// Visible buffer pointer `i` (1-based argument numbering, as the main sees it).
    pub fn buffer(&self, i: usize) -> Option<u64> {
        self.buffers().get(i.checked_sub(1)?).copied()
    }

    /// All 18 visible buffer slots in order.
    pub fn buffers(&self) -> [u64; 18] {
        [
            self.buffer_1.0,
            self.buffer_2.0,
            self.buffer_3.0,
            self.buffer_4.0,
            self.buffer_5.0,
            self.buffer_6.0,
            self.buffer_7.0,
            self.buffer_8.0,
            self.buffer_9.0,
            self.buffer_10.0,
            self.buffer_11.0,
            self.buffer_12.0,
            self.buffer_13.0,
            self.buffer_14.0,
            self.buffer_15.0,
            self.buffer_16.0,
            self.buffer_17.0,
            self.buffer_18.0,
        ]
    }

    /// Sets the visible buffers (at most 18), zeroing the rest.
    pub fn set_buffers(&mut self, bufs: &[u64]) -> Result<(), LaunchError> {
        if bufs.len() > 18 {
            return Err(LaunchError::TooManyResources(bufs.len()));
        }
        let mut all = [0u64; 18];
        all[..bufs.len()].copy_from_slice(bufs);
        self.buffer_1 = Hex(all[0]);
        self.buffer_2 = Hex(all[1]);
        self.buffer_3 = Hex(all[2]);
        self.buffer_4 = Hex(all[3]);
        self.buffer_5 = Hex(all[4]);
        self.buffer_6 = Hex(all[5]);
        self.buffer_7 = Hex(all[6]);
        self.buffer_8 = Hex(all[7]);
        self.buffer_9 = Hex(all[8]);
        self.buffer_10 = Hex(all[9]);
        self.buffer_11 = Hex(all[10]);
        self.buffer_12 = Hex(all[11]);
        self.buffer_13 = Hex(all[12]);
        self.buffer_14 = Hex(all[13]);
        self.buffer_15 = Hex(all[14]);
        self.buffer_16 = Hex(all[15]);
        self.buffer_17 = Hex(all[16]);
        self.buffer_18 = Hex(all[17]);
        Ok(())
    }
}

//! Following a stage's launcher (setup) program to its body, strictly through agx16-isa.
//!
//! A G16 stage is entered through a short program in the USC heap: root-literal moves,
//! pointer loads, a stage allocation, a stage target (`2*entry + 0x2a`), a publication /
//! scratch frame, argument transfers and STOP. The target selects an entry in the entry
//! arena, which jumps (`JMP_EXEC_ANY`, the 10-byte `jump` form) to the independently placed
//! body and stops (GravityLinux/mesa README.apple9-launchers.md and agx_apple9.c
//! `apple9_build_body_entry`, run on T8132; forms and meanings in agx16-isa
//! `table/launch.rs`, `meaning/launch.rs`). Anything else in a launcher is refused.

use super::unestablished;
use crate::error::{hex, SimError};
use crate::mem::GpuMemory;
use agx16_cmdstream::vdm::USC_BASE;
use agx16_isa::meaning::{stage_allocation, stage_entry, StageAllocation};
use agx16_isa::{Evidence, Op, Operand, Role};

/// What a launcher sets up.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub launcher: u64,
    pub allocation: Option<StageAllocation>,
    /// VA of the entry the stage target selects.
    pub entry: u64,
    /// VA of the stage body the entry jumps to.
    pub body: u64,
    pub pointer_loads: usize,
    pub argument_words: usize,
}

/// Longest launcher the model reads (GravityLinux launchers are well under this).
const MAX_LAUNCHER: usize = 512;

/// Reads up to `len` mapped bytes at `va` (stops at the first unmapped 16-byte granule).
fn read_mapped(mem: &dyn GpuMemory, va: u64, len: usize) -> Result<Vec<u8>, SimError> {
    let mut out = Vec::new();
    let mut chunk = [0u8; 16];
    while out.len() < len {
        if mem.read(va + out.len() as u64, &mut chunk).is_err() {
            break;
        }
        out.extend_from_slice(&chunk);
    }
    if out.is_empty() {
        let mut b = [0u8; 2];
        mem.read(va, &mut b)?;
    }
    Ok(out)
}

fn refuse(stage: &str, va: u64, bytes: &[u8], what: String) -> SimError {
    let mut e = unestablished(va, stage, what);
    if let SimError::Unestablished { bytes: b, .. } = &mut e {
        *b = hex(bytes);
    }
    e
}

/// Decodes the launcher at `va` and follows its stage target to the body.
pub fn follow(mem: &dyn GpuMemory, va: u64, stage: &str) -> Result<Launch, SimError> {
    let bytes = read_mapped(mem, va, MAX_LAUNCHER)?;
    let mut l = Launch {
        launcher: va,
        allocation: None,
        entry: 0,
        body: 0,
        pointer_loads: 0,
        argument_words: 0,
    };
    let mut stopped = false;
    for item in agx16_isa::split(&bytes) {
        let (off, i) =
            item.map_err(|e| refuse(stage, va, &[], format!("launcher does not decode: {e}")))?;
        let at = va + off as u64;
        let raw = &bytes[off..off + i.form.len as usize];
        if i.form.evidence != Evidence::Hardware {
            return Err(refuse(
                stage,
                at,
                raw,
                format!("launcher uses {} ({:?})", i.form.name, i.form.evidence),
            ));
        }
        match i.form.op {
            Op::PointerLoad => l.pointer_loads += 1,
            Op::ArgumentStore => l.argument_words += 1,
            Op::MovImm | Op::LaunchFrame => {}
            Op::StageAllocation => {
                let (a, _) = stage_allocation(&i).map_err(|e| refuse(stage, at, raw, e))?;
                l.allocation = Some(a);
            }
            Op::StageTarget => {
                let entry = stage_entry(&i).map_err(|e| refuse(stage, at, raw, e))?;
                l.entry = USC_BASE + entry;
            }
            Op::Stop => {
                stopped = true;
                break;
            }
            _ => {
                return Err(refuse(
                    stage,
                    at,
                    raw,
                    format!("{} is not a launcher operation", i.form.name),
                ));
            }
        }
    }
    if !stopped {
        return Err(refuse(
            stage,
            va,
            &[],
            "launcher has no STOP within 512 bytes".into(),
        ));
    }
    if l.entry == 0 {
        return Err(refuse(
            stage,
            va,
            &[],
            "launcher has no stage target".into(),
        ));
    }
    // The entry: one jump to the body (offset relative to the jump), then STOP.
    let entry = read_mapped(mem, l.entry, 16)?;
    let j = agx16_isa::decode_at(&entry, 0).map_err(|e| {
        refuse(
            "stage entry",
            l.entry,
            &[],
            format!("entry does not decode: {e}"),
        )
    })?;
    let raw = &entry[..(j.form.len as usize).min(entry.len())];
    let offset = match (j.form.op, j.operand(Role::SrcA).map(|o| o.value)) {
        (Op::Jump, Some(Operand::ImmInt(o))) => o,
        _ => {
            return Err(refuse(
                "stage entry",
                l.entry,
                raw,
                format!("entry starts with {}, not a jump", j.form.name),
            ))
        }
    };
    l.body = l.entry.wrapping_add_signed(offset);
    Ok(l)
}

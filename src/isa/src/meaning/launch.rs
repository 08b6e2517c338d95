//! Meanings of the launcher (setup-program) forms and builders for them, so the model and
//! the command-stream builder share one mapping. Only the parameter combinations GravityLinux
//! ran on T8132 are accepted (GravityLinux/mesa README.apple9-launchers.md and
//! agx_apple9_launch.c); anything else is an error, never a guess.

use crate::evidence::Evidence;
use crate::form::Role;
use crate::instr::{EncodeError, Instr, Part};
use crate::op::Op;
use crate::scoreboard::SlotSet;
use crate::table::form_by_name;

/// Bias of the stage-target field: target = 2 * entry offset + 0x2a.
pub const TARGET_BIAS: u64 = 0x2a;
/// Slot the launcher's pointer loads publish on and the first transfer waits for.
pub const POINTER_LOAD_SLOT: u8 = 2;
/// Threadgroup-memory sizes with execution evidence (bytes).
pub const THREADGROUP_SIZES: [u32; 4] = [128, 256, 512, 1024];

/// What a `stage_alloc` instruction allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageAllocation {
    /// Vertex stages and compute without threadgroup memory.
    Empty,
    /// Compute threadgroup memory in bytes (128, 256, 512 or 1024).
    Threadgroup { bytes: u32 },
    /// Fragment tile layout: samples (1, 2, 4) and tile bytes per sample in 8-byte units.
    Tile { samples: u8, units: u8 },
}

fn op_check(i: &Instr, op: Op) -> Result<(), String> {
    if i.form.op == op {
        Ok(())
    } else {
        Err(format!("{} is not a {op:?} instruction", i.form.name))
    }
}

fn val(i: &Instr, name: &str) -> u64 {
    i.field(name).unwrap_or(0)
}

/// The allocation a `stage_alloc` encodes. Fragment: mode 0x4b with byte 3 = 0x41 (1x) or
/// 0x40 (2x) + 2*units; 4x: byte 2 bit 7, byte 3 = 2*units, mode 0x43. Compute: byte 3 0x41,
/// mode (bytes<<2)|0x80. Vertex / no threadgroup memory: byte 3 0x41, mode 0.
pub fn stage_allocation(i: &Instr) -> Result<(StageAllocation, Evidence), String> {
    op_check(i, Op::StageAllocation)?;
    if val(i, "reserved") != 0 || val(i, "b3_7") != 0 {
        return Err("stage_alloc: reserved bits set".into());
    }
    let key = (val(i, "b2_7"), val(i, "b3_6"), val(i, "b3_0"));
    let units = val(i, "tile_units") as u8;
    let mode = val(i, "mode");
    let a = match (key, mode) {
        ((0, 1, 1), 0) if units == 0 => StageAllocation::Empty,
        ((0, 1, 1), 0x4b) => StageAllocation::Tile { samples: 1, units },
        ((0, 1, 0), 0x4b) => StageAllocation::Tile { samples: 2, units },
        ((1, 0, 0), 0x43) => StageAllocation::Tile { samples: 4, units },
        ((0, 1, 1), m) if units == 0 && m & 0x7f == 0 => {
            let bytes = ((m & !0x80) >> 2) as u32;
            if !THREADGROUP_SIZES.contains(&bytes) {
                return Err(format!("stage_alloc: threadgroup size {bytes} is unmeasured"));
            }
            StageAllocation::Threadgroup { bytes }
        }
        _ => {
            return Err(format!(
                "stage_alloc: combination b2_7={} b3_6={} b3_0={} units={units} mode={mode:#x} is unmeasured",
                key.0, key.1, key.2
            ))
        }
    };
    Ok((a, Evidence::Hardware))
}

/// A `stage_alloc` instruction for `a` (the inverse of [`stage_allocation`]).
pub fn stage_allocation_instr(a: StageAllocation) -> Result<Instr, EncodeError> {
    let (b2_7, b3_6, b3_0, units, mode) = match a {
        StageAllocation::Empty => (0, 1, 1, 0, 0),
        StageAllocation::Threadgroup { bytes } if THREADGROUP_SIZES.contains(&bytes) => {
            (0, 1, 1, 0, ((bytes as u64) << 2) | 0x80)
        }
        StageAllocation::Tile { samples, units } if units <= 16 => match samples {
            1 => (0, 1, 1, units, 0x4b),
            2 => (0, 1, 0, units, 0x4b),
            4 => (1, 0, 0, units, 0x43),
            s => return Err(EncodeError::Other(format!("{s} samples: only 1, 2, 4"))),
        },
        other => return Err(EncodeError::Other(format!("{other:?} is unmeasured"))),
    };
    let mut i = Instr::new(form("stage_alloc")?);
    i.set("b2_7", b2_7)?
        .set("b3_6", b3_6)?
        .set("b3_0", b3_0)?
        .set("tile_units", units as u64)?
        .set("mode", mode)?;
    Ok(i)
}

/// USC byte offset of the entry a `stage_target` selects.
pub fn stage_entry(i: &Instr) -> Result<u64, String> {
    op_check(i, Op::StageTarget)?;
    let t = val(i, "target");
    match t.checked_sub(TARGET_BIAS) {
        Some(v) if v % 2 == 0 => Ok(v / 2),
        _ => Err(format!("stage target {t:#x} is not 2*entry+0x2a")),
    }
}

/// A `stage_target` selecting the entry at USC offset `entry` (even, 24-bit target).
pub fn stage_target_instr(entry: u64) -> Result<Instr, EncodeError> {
    if !entry.is_multiple_of(2) {
        return Err(EncodeError::Other(format!("entry {entry:#x} is odd")));
    }
    let t = entry
        .checked_mul(2)
        .and_then(|v| v.checked_add(TARGET_BIAS))
        .filter(|v| *v < 1 << 24)
        .ok_or_else(|| EncodeError::Other(format!("entry {entry:#x} beyond the 24-bit target")))?;
    let mut i = Instr::new(form("stage_target")?);
    i.set("target", t)?;
    Ok(i)
}

/// Parameters of a `launch_frame`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchFrame {
    /// Publication capacity in 32-bit words (2 per pair: the encoded `ceil(P/2)` doubled).
    pub publication_words: u32,
    /// Frame extent A in bytes (spill slots and returned atomics).
    pub extent_a: u16,
    /// Frame extent B in bytes (role not established; 0 passed every measured case).
    pub extent_b: u16,
}

/// The frame a `launch_frame` sets up.
pub fn launch_frame(i: &Instr) -> Result<LaunchFrame, String> {
    op_check(i, Op::LaunchFrame)?;
    if val(i, "pub_lo") != 0 || val(i, "b9") != 0 {
        return Err("launch_frame: bits the sources keep zero are set".into());
    }
    Ok(LaunchFrame {
        publication_words: 2 * val(i, "publication_pairs") as u32,
        extent_a: val(i, "extent_a") as u16,
        extent_b: val(i, "extent_b") as u16,
    })
}

/// A `launch_frame` for a publication high-water mark of `publications` words (at most 1022).
pub fn launch_frame_instr(
    publications: u32,
    extent_a: u16,
    extent_b: u16,
) -> Result<Instr, EncodeError> {
    if publications > 1022 {
        return Err(EncodeError::Other(format!(
            "{publications} publications: at most 1022"
        )));
    }
    let mut i = Instr::new(form("launch_frame")?);
    i.set("publication_pairs", publications.div_ceil(2) as u64)?
        .set("extent_a", extent_a as u64)?
        .set("extent_b", extent_b as u64)?;
    Ok(i)
}

/// Number of 64-bit pointers a `ptr_load` reads (format 0x19 = one, 0x17 = two).
pub fn pointer_load_count(i: &Instr) -> Result<u8, String> {
    op_check(i, Op::PointerLoad)?;
    match val(i, "ld_format") {
        0x19 => Ok(1),
        0x17 => Ok(2),
        f => Err(format!("ptr_load format {f:#x} is unmeasured")),
    }
}

/// A `ptr_load` of `count` (1 or 2) pointers from [r<base>:r<base+1>] + 8*offset into
/// r<dst>.., publishing on slot 2.
pub fn pointer_load_instr(
    dst: u32,
    base: u32,
    offset: u8,
    count: u8,
) -> Result<Instr, EncodeError> {
    let format = match count {
        1 => 0x19,
        2 => 0x17,
        n => return Err(EncodeError::Other(format!("{n} pointers: only 1 or 2"))),
    };
    if dst + 2 * count as u32 > 64 {
        return Err(EncodeError::Other(format!(
            "r{dst}+{count} pointers leave r0..r63"
        )));
    }
    let mut i = Instr::new(form("ptr_load")?);
    i.set_gpr(Role::Dst, dst, Part::Full)?
        .set_gpr(Role::SrcA, base, Part::Full)?
        .set("ld_format", format)?
        .set("offset", offset as u64)?
        .set_produce(POINTER_LOAD_SLOT)?;
    Ok(i)
}

/// An `arg_store` of r<src> into argument word `word`; `wait` = wait for the pointer loads.
pub fn arg_store_instr(word: u32, src: u32, wait: bool) -> Result<Instr, EncodeError> {
    let mut i = Instr::new(form("arg_store")?);
    i.set("dst", word as u64)?
        .set_gpr(Role::SrcA, src, Part::Full)?;
    if wait {
        i.set_wait(SlotSet(1 << (POINTER_LOAD_SLOT - 1)))?;
    }
    Ok(i)
}

fn form(name: &str) -> Result<&'static crate::form::Form, EncodeError> {
    form_by_name(name).ok_or_else(|| EncodeError::Other(format!("no form {name}")))
}

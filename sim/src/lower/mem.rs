//! Device loads and stores (byte0 0x67 / 0xe7, 14 bytes).
//!
//! Formats are one table keyed by the format bytes of hardware-run programs;
//! anything else is refused.

use super::{check, dst, src};
use crate::core::ops::{Address, Kind, MemFormat, Op, Part, Src};
use agx16_isa::{Instr, Role};

/// (ld_format, elem_size) -> element format of a device load.
/// Each row: the experiment whose hardware run exercised it.
const LOAD_FORMATS: &[(u64, u64, MemFormat, &str)] = &[
    // 32-bit scalar: EXP-0003 add/mul, EXP-M4-35 xor kernels, EXP-M4-54 float kernels (measured)
    (
        0x11,
        0x46,
        MemFormat::U32,
        "niklassheth/agx-re EXP-M4-35/54",
    ),
    // 16-bit scalar into a register's low half: EXP-M4-54 half/bfloat kernels (measured)
    (0x01, 0x44, MemFormat::U16, "niklassheth/agx-re EXP-M4-54"),
];

/// (st_format, st_desc_hi, elem_size) -> element format of a device store.
const STORE_FORMATS: &[(u64, u64, u64, MemFormat, &str)] = &[
    (
        0x11,
        0x24,
        0x11,
        MemFormat::U32,
        "niklassheth/agx-re EXP-M4-35/54",
    ),
    // byte8 bit 6 set: ADevWithAnIdea/agx-re EXP-0010 eret4 (A18 Pro) stores an immediate-moved
    // 7 with it and the run log shows the plain 32-bit store (fitted; its role is open)
    (
        0x51,
        0x24,
        0x11,
        MemFormat::U32,
        "ADevWithAnIdea/agx-re EXP-0010 eret4 (A18 Pro), fitted",
    ),
    (
        0x01,
        0x04,
        0x11,
        MemFormat::U16,
        "niklassheth/agx-re EXP-M4-54 half kernels",
    ),
];

/// Address modes seen in hardware-run programs: 0x54/0x44 ordinary, 0x56 the
/// direct pending-load store (niklassheth/agx-re:APPLE9_SCOREBOARD_SLOTS.md,
/// EXP-M4-36, measured).
const DIRECT_STORE_MODE: u64 = 0x56;

fn address(i: &Instr, fmt: MemFormat) -> Result<Address, String> {
    let base = match src(i, Role::SrcA)? {
        Src::Imm(b) => b as u16,
        _ => return Err("base slot is not an immediate".into()),
    };
    let idx_off = i.field("idx_off").unwrap_or(0);
    if idx_off != 0 {
        return Err(format!("immediate index offset {idx_off} is not modelled"));
    }
    Ok(Address {
        base_slot: base,
        index: src(i, Role::SrcB)?,
        shift: fmt.bytes().trailing_zeros() as u8,
    })
}

pub fn load(i: &Instr) -> Result<Kind, String> {
    let f = |n: &str| i.field(n).unwrap_or(0);
    check::fields(
        i,
        &["ld_format", "elem_size"],
        &[
            ("space", &[0, 0x10]),
            ("addr_mode", &[0x54, 0x44]),
            ("access_desc", &[0x20]),
            ("ldform_hi11", &[0x10]),
            ("index_flag", &[0, 1]),
            ("dst_hi", &[0, 1]),
        ],
    )?;
    let (lf, es) = (f("ld_format"), f("elem_size"));
    let fmt = LOAD_FORMATS
        .iter()
        .find(|r| r.0 == lf && r.1 == es)
        .map(|r| r.2)
        .ok_or_else(|| {
            format!("load format (ld_format {lf:#x}, elem_size {es:#x}) is unmeasured")
        })?;
    let mut d = dst(i)?;
    d.part = half_part(fmt, f("dst_hi"))?;
    Ok(Kind::Load {
        fmt,
        dst: d,
        count: 1,
        addr: address(i, fmt)?,
    })
}

pub fn store(i: &Instr, op: &mut Op) -> Result<Kind, String> {
    let f = |n: &str| i.field(n).unwrap_or(0);
    check::fields(
        i,
        &["st_format", "st_desc_hi", "elem_size", "addr_mode"],
        &[
            ("space", &[0, 0x10]),
            ("access_desc", &[0x20, 0x21]),
            ("index_flag", &[0, 1]),
            ("data_hi", &[0, 1]),
        ],
    )?;
    let mode = f("addr_mode");
    if mode != 0x54 && mode != DIRECT_STORE_MODE {
        return Err(format!("store address mode {mode:#x} is unmeasured"));
    }
    op.hazard.direct_store = mode == DIRECT_STORE_MODE;
    let (sf, sh, es) = (f("st_format"), f("st_desc_hi"), f("elem_size"));
    let fmt = STORE_FORMATS
        .iter()
        .find(|r| r.0 == sf && r.1 == sh && r.2 == es)
        .map(|r| r.3)
        .ok_or_else(|| format!("store format ({sf:#x}, {sh:#x}, {es:#x}) is unmeasured"))?;
    let mut data = src(i, Role::SrcD)?;
    if let Src::Gpr(r, _) = data {
        data = Src::Gpr(r, half_part(fmt, f("data_hi"))?);
    }
    Ok(Kind::Store {
        fmt,
        src: data,
        count: 1,
        addr: address(i, fmt)?,
    })
}

/// The register part a load/store moves: byte 3 names a half register
/// (reg<<1 | high) for 16-bit formats. EXP-M4-54 half kernels (measured) load
/// the source into r1.lo, write the SFU result to r1.hi (byte3 0x03) and store
/// it from there while r1.lo stays live; any other reading breaks their outputs.
/// Bit 0 set on a 32-bit access is unmeasured.
fn half_part(fmt: MemFormat, b0: u64) -> Result<Part, String> {
    match (fmt, b0) {
        (MemFormat::U16, 0) => Ok(Part::Lo),
        (MemFormat::U16, _) => Ok(Part::Hi),
        (_, 0) => Ok(Part::Full),
        _ => Err("byte 3 bit 0 on a 32-bit access is unmeasured".into()),
    }
}

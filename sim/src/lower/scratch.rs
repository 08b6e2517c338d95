//! Per-invocation scratch store/load (`spill_store` 10 bytes, `spill_load` 8 bytes).
//!
//! Layouts: agx16-isa table/scratch.rs (GravityLinux/mesa apple9 packers, whose spilling
//! shaders ran on T8132). The unnamed bits are zero in every packed instruction of those
//! runs, so only zero is accepted there (`check::fields`). Semantics: `core::scratch`.

use super::{check, dst, src};
use crate::core::ops::{Kind, Op, Part, Src};
use agx16_isa::{Instr, Role};

fn word(i: &Instr) -> Result<u16, String> {
    match i.field("word") {
        Some(w) if w < 8192 => Ok(w as u16),
        other => Err(format!("scratch word {other:?} outside the 13-bit field")),
    }
}

fn needs_slot(op: &Op) -> Result<(), String> {
    match op.hazard.produce {
        Some(_) => Ok(()),
        None => Err("scratch access without a completion slot".into()),
    }
}

pub fn store(i: &Instr, op: &Op) -> Result<Kind, String> {
    check::fields(i, &[], &[])?;
    needs_slot(op)?;
    let s = src(i, Role::SrcA)?;
    if !matches!(s, Src::Gpr(_, Part::Full)) {
        return Err(format!("scratch store of {s:?}: only full registers ran"));
    }
    Ok(Kind::ScratchStore {
        word: word(i)?,
        src: s,
    })
}

pub fn load(i: &Instr, op: &Op) -> Result<Kind, String> {
    check::fields(i, &[], &[])?;
    needs_slot(op)?;
    let d = dst(i)?;
    if d.part != Part::Full {
        return Err("scratch load into a half register: only full registers ran".into());
    }
    Ok(Kind::ScratchLoad {
        word: word(i)?,
        dst: d,
    })
}

//! From `agx16_isa` instructions to the model's executable ops.
//!
//! Decoding (bits -> fields) is `agx16_isa`'s alone; this module gives field
//! values their measured meaning. A form, field or value without an
//! established meaning lowers to [`Kind::Refuse`]: executing it stops the
//! SIMD-group with an error naming pc, bytes and the unknown.

mod check;
mod ctrl;
mod float;
pub mod gfx_io;
mod int;
mod launch;
mod mem;
mod scratch;
mod sfu;
pub mod texture;

use crate::core::ops::{Dst, Hazard, Kind, Op, Part, Src};
use crate::error::{hex, SimError};
use agx16_isa::{Evidence, Instr, Operand, Role, SlotLayout};

pub use launch::entry_jump;

/// Decodes and lowers the instruction at `off`. Returns the op and its disassembly.
pub fn lower_at(code: &[u8], off: usize) -> Result<Op, SimError> {
    let instr = agx16_isa::decode_at(code, off).map_err(|e| SimError::Decode {
        pc: off as u32,
        what: e.to_string(),
    })?;
    let len = instr.form.len;
    let bytes = &code[off..off + len as usize];
    let mut op = Op {
        pc: off as u32,
        len,
        kind: Kind::Nop,
        hazard: Hazard::default(),
        releases: Default::default(),
    };
    op.kind = match lower(&instr, &mut op) {
        Ok(k) => {
            // A release frees what the instruction actually read: the half a
            // 16-bit source names, not the whole register (EXP-M4-54 half
            // kernels release r1.hi and later store r1.lo, measured).
            for rel in op.releases.iter_mut().filter(|r| r.1 == Part::Full) {
                if let Some(Src::Gpr(_, p)) = k
                    .sources()
                    .find(|s| matches!(s, Src::Gpr(r, _) if *r == rel.0))
                {
                    rel.1 = p;
                }
            }
            k
        }
        Err(what) => Kind::Refuse(SimError::Unestablished {
            pc: off as u32,
            bytes: hex(bytes),
            form: instr.form.name.to_string(),
            what,
        }),
    };
    Ok(op)
}

fn lower(i: &Instr, op: &mut Op) -> Result<Kind, String> {
    use agx16_isa::Op as F;
    if i.unmapped != 0 {
        return Err(format!(
            "bits {:#x} are outside every known field",
            i.unmapped
        ));
    }
    if i.form.evidence == Evidence::Hypothesis {
        return Err("the form itself is a hypothesis".into());
    }
    hazards(i, op)?;
    match i.form.op {
        F::Stop => {
            check::fields(i, &[], &[("reserved", &[0])])?;
            Ok(Kind::Stop)
        }
        F::GetSr => int::get_sr(i),
        F::RegMove if i.form.name == "clear_lo16" => int::clear_lo16(i),
        F::RegMove if i.form.name == "zero_c2" => Ok(Kind::Mov {
            dst: dst(i)?,
            src: Src::Imm(0),
        }),
        F::ZeroExtend16 => int::zext16(i),
        F::MovImm => int::mov_imm(i),
        F::UniformMove => int::uniform_mov(i),
        F::MinMax => int::minmax(i),
        F::IntToFloat | F::FloatToInt => int::convert(i),
        F::FAdd | F::FMul | F::FFma | F::HAdd | F::HMul | F::FUnary => float::lower(i),
        F::Sfu => sfu::lower(i),
        F::IAdd | F::ISub | F::IMad | F::ILogic => int::lower(i),
        F::ShiftRight | F::ShiftLeft => int::shift(i),
        F::Select if i.form.name == "isel_imm" => ctrl::select_imm(i),
        F::PackUnorm => int::pack_unorm(i),
        F::DeviceLoad => mem::load(i),
        F::DeviceStore => mem::store(i, op),
        F::ScratchStore => scratch::store(i, op),
        F::ScratchLoad => scratch::load(i, op),
        F::IfPush
        | F::Else
        | F::Pop
        | F::Jump
        | F::JumpExecNone
        | F::PredCompare
        | F::Barrier
        | F::BreakUnwind
        | F::LoopMaskUpdate => ctrl::lower(i, op.pc),
        F::PointerLoad
        | F::ArgumentStore
        | F::StageAllocation
        | F::StageTarget
        | F::LaunchFrame => launch::lower(i, op),
        other => Err(format!("{other:?} forms are not modelled")),
    }
}

/// Scoreboard wait/produce fields and source releases, common to all forms.
fn hazards(i: &Instr, op: &mut Op) -> Result<(), String> {
    if let Some(w) = i.wait() {
        op.hazard.has_wait_field = true;
        op.hazard.wait = w.slots.0;
        op.hazard.wait_is_base = matches!(w.layout, SlotLayout::Index45 | SlotLayout::Index61);
        // Selector 7 is not a slot; on falu2i it reads zero like any wrong
        // slot (EXP-M4-44 selector7 mutation, measured). Elsewhere unmeasured.
        if w.reserved7 && i.form.name != "fadd_imm" && i.form.name != "fmul_imm" {
            return Err("scoreboard selector 7 is unmeasured on this form".into());
        }
    }
    if let Some((slot, ev)) = i.produce() {
        if ev == Evidence::Hypothesis {
            return Err("producer slot field is a hypothesis".into());
        }
        op.hazard.produce = Some(slot);
    }
    for role in [Role::SrcA, Role::SrcB, Role::SrcC, Role::SrcD] {
        if let Some((true, ev)) = i.releases(role) {
            if ev == Evidence::Hypothesis {
                return Err(format!("release of {} is a hypothesis", role.as_str()));
            }
            match i.operand(role).map(|o| o.value) {
                Some(Operand::Gpr { reg, part }) => op.releases.push((reg, part_of(part))),
                _ => return Err(format!("release of non-register operand {}", role.as_str())),
            }
        }
    }
    Ok(())
}

fn part_of(p: agx16_isa::Part) -> Part {
    match p {
        agx16_isa::Part::Full => Part::Full,
        agx16_isa::Part::Lo => Part::Lo,
        agx16_isa::Part::Hi => Part::Hi,
    }
}

/// The operand of `role` as a model source. Register and immediate operands
/// must be at least corpus-grade (read off hardware-run data flow).
fn src(i: &Instr, role: Role) -> Result<Src, String> {
    let o = i
        .operand(role)
        .ok_or_else(|| format!("no {} operand", role.as_str()))?;
    if o.evidence == Evidence::Hypothesis {
        return Err(format!(
            "operand {} decodes only by hypothesis",
            role.as_str()
        ));
    }
    check_reach(i, role, &o.value)?;
    Ok(match o.value {
        Operand::Gpr { reg, part } => Src::Gpr(reg, part_of(part)),
        Operand::Uniform { index, part } => Src::Uniform(index, part_of(part)),
        Operand::ImmInt(v) => Src::Imm(v as u32),
        Operand::ImmFloat(x) => Src::Imm(x.to_bits()),
        Operand::ImmF8Raw(v) => {
            return Err(format!(
                "8-bit float immediate {v:#x} has no established value"
            ))
        }
        Operand::Pred(_) => return Err("predicate operand used as a value".into()),
    })
}

fn dst(i: &Instr) -> Result<Dst, String> {
    match src(i, Role::Dst)? {
        Src::Gpr(reg, part) => Ok(Dst { reg, part }),
        _ => Err("destination is not a register".into()),
    }
}

/// Registers beyond a form's measured reach are refused: the measured
/// outcomes (aliasing, silent zeros) differ per form and are not all known.
fn check_reach(i: &Instr, role: Role, v: &Operand) -> Result<(), String> {
    if let Operand::Gpr { reg, .. } = v {
        if *reg as usize >= crate::core::GPRS {
            return Err(format!("r{reg} does not exist (96 GPRs)"));
        }
        if let Some(r) = i.form.reach(role) {
            if *reg > r.max_gpr {
                return Err(format!(
                    "r{reg} is beyond the measured reach r0..r{} of operand {}",
                    r.max_gpr,
                    role.as_str()
                ));
            }
        }
    }
    Ok(())
}

/// A listing of how the model sees a program: offset, bytes, form, fields.
pub fn dump(code: &[u8]) -> String {
    let mut out = String::new();
    let mut off = 0;
    while off < code.len() {
        match agx16_isa::decode_at(code, off) {
            Ok(i) => {
                let len = i.form.len as usize;
                let fields: Vec<String> = i
                    .form
                    .fields
                    .iter()
                    .zip(i.values())
                    .map(|(f, v)| format!("{}={v:#x}", f.name))
                    .collect();
                let model = match lower_at(code, off) {
                    Ok(op) => match op.kind {
                        Kind::Refuse(e) => format!("REFUSED: {e}"),
                        k => format!("{k:?}"),
                    },
                    Err(e) => e.to_string(),
                };
                out.push_str(&format!(
                    "{off:04x} {:<28} {:<12} {}  [{}]\n       -> {model}\n",
                    hex(&code[off..off + len]),
                    i.form.name,
                    i,
                    fields.join(" ")
                ));
                off += len;
            }
            Err(e) => {
                out.push_str(&format!("{off:04x} {e}\n"));
                break;
            }
        }
    }
    out
}

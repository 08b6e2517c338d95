//! Structured `if`/`else` on G16: a predicate compare into bank 0, then the exec-mask push,
//! else and pop (niklassheth/agx-re EXP-M4-52 MASK_STACK_MODEL.json, measured on M4 to 32
//! levels: ordinary ifs use bank 0; push `0f 05 54 01`, else `0f 04 04 19`, pop
//! `0f 06 04 01 00 00`). Compare conditions come from agx16-isa's own reading of the
//! condition field (`meaning::compare_condition`, EXP-M4-45 on M4), never from bits here.

use crate::error::CompileError;
use crate::ir::{Cmp, Op};
use crate::mir::{MInstr, MOperand};
use agx16_isa::meaning::{compare_condition, Compare};
use agx16_isa::{form_by_name, Instr, Part, Role};

fn no_form(i: &MInstr, why: &str) -> CompileError {
    CompileError::NoForm {
        instr: i.to_string(),
        why: why.into(),
    }
}

fn from_hex(hex: &str) -> Result<Instr, CompileError> {
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .filter_map(|k| u8::from_str_radix(&hex[k..k + 2], 16).ok())
        .collect();
    agx16_isa::decode_at(&bytes, 0).map_err(|e| CompileError::Encode {
        instr: hex.into(),
        why: e.to_string(),
    })
}

/// `0f 05 54 01`: push, bank 0, not inverted.
pub fn if_push() -> Result<Instr, CompileError> {
    from_hex("0f055401")
}

pub fn else_() -> Result<Instr, CompileError> {
    from_hex("0f040419")
}

pub fn pop() -> Result<Instr, CompileError> {
    from_hex("0f0604010000")
}

/// Loops (ADevWithAnIdea/agx-re EXP-0010 `prodloop`, run on hardware, A18 Pro; the same
/// protocol in niklassheth/agx-re EXP-M4-46 on M4): `0f 05 54 1a` pushes a loop scope with
/// the constant-true bank; `8f 04 54 22` (latch update) removes the lanes whose bank-0
/// predicate is true (bit 5; clear: false); a jump taken while any lane is active returns to
/// the body; `0f 06 04 02 00 00` pops the loop scope.
pub fn loop_push() -> Result<Instr, CompileError> {
    from_hex("0f05541a")
}

pub fn loop_pop() -> Result<Instr, CompileError> {
    from_hex("0f0604020000")
}

/// Lanes whose bank-0 predicate equals `leave_when` leave the loop; `depth` scopes are open
/// inside the loop.
pub fn loop_update(leave_when: bool, depth: u8) -> Result<Instr, CompileError> {
    let mut x = from_hex("8f045422")?;
    let err = |e: agx16_isa::EncodeError| CompileError::Encode {
        instr: "loop_update".into(),
        why: e.to_string(),
    };
    x.set("invert", u64::from(leave_when)).map_err(err)?;
    x.set("bank", depth as u64).map_err(err)?;
    Ok(x)
}

/// A jump by `offset` bytes from its own address, taken while any lane is active.
pub fn jump(offset: i64) -> Result<Instr, CompileError> {
    let f =
        form_by_name("jump").ok_or_else(|| CompileError::Internal("jump form missing".into()))?;
    let mut x = Instr::new(f);
    let err = |e: agx16_isa::EncodeError| CompileError::Encode {
        instr: format!("jump {offset}"),
        why: e.to_string(),
    };
    x.set("mode", 0x54).map_err(err)?;
    x.set("offset", (offset as u64) & ((1 << 48) - 1))
        .map_err(err)?;
    match x.operand(Role::SrcA).map(|o| o.value) {
        Some(agx16_isa::Operand::ImmInt(v)) if v == offset => Ok(x),
        other => Err(CompileError::Encode {
            instr: format!("jump {offset}"),
            why: format!("offset reads back as {other:?}"),
        }),
    }
}

/// The predicate compare (bank 0) for a compare whose only reader is the following `if`.
pub fn predicate_compare(i: &MInstr) -> Result<Instr, CompileError> {
    let (form, want, invert) = match i.op {
        Op::FCmp(Cmp::Lt) => ("pcmp", Compare::FloatLt, false),
        // Ordered `>=`: the extended form's relation 2 (EXP-M4-45 on M4, as agx16-isa reads it).
        Op::FCmp(Cmp::Ge) => ("pcmp_ext", Compare::FloatGe, false),
        Op::FCmp(Cmp::Eq) => ("pcmp_ext", Compare::FloatEq, false),
        // !(a == b) is true for unordered operands, as the IR's `ne` is.
        Op::FCmp(Cmp::Ne) => ("pcmp_ext", Compare::FloatEq, true),
        Op::ICmp {
            cond: Cmp::Lt,
            signed,
        } => (
            "pcmp",
            if signed {
                Compare::SintLt
            } else {
                Compare::UintLt
            },
            false,
        ),
        Op::ICmp {
            cond: Cmp::Ge,
            signed,
        } => (
            "pcmp",
            if signed {
                Compare::SintLt
            } else {
                Compare::UintLt
            },
            true,
        ),
        Op::ICmp { cond: Cmp::Eq, .. } => ("pcmp_ext", Compare::BitEq, false),
        Op::ICmp { cond: Cmp::Ne, .. } => ("pcmp_ext", Compare::BitEq, true),
        _ => {
            return Err(no_form(
                i,
                "no measured predicate compare for this condition",
            ))
        }
    };
    let f =
        form_by_name(form).ok_or_else(|| no_form(i, "predicate compare missing from the table"))?;
    let mut x = Instr::new(f);
    let e = |r: Result<&mut Instr, agx16_isa::EncodeError>| {
        r.map(|_| ()).map_err(|e| CompileError::Encode {
            instr: i.to_string(),
            why: e.to_string(),
        })
    };
    // ctrl 1/1 and operand tail 0xc0: the register-register compares of EXP-M4-45 (M4).
    e(x.set("ctrl_lo", 1))?;
    e(x.set("ctrl_hi", 1))?;
    e(x.set("operand_tail", 0xc0))?;
    let field = if form == "pcmp" { "cond" } else { "relation" };
    let v = (0..=0xffu64)
        .find(|v| {
            x.set(field, *v).is_ok()
                && matches!(compare_condition(&x), Ok((c, false, _)) if c == want)
        })
        .ok_or_else(|| no_form(i, "agx16-isa knows no condition value for this compare"))?;
    e(x.set(field, v))?;
    for (k, role) in [Role::SrcA, Role::SrcB].into_iter().enumerate() {
        match i.srcs[k].op {
            MOperand::Reg(r) if r.halves == 2 && !i.srcs[k].neg && !i.srcs[k].abs => {
                e(x.set_gpr(role, r.gpr(), Part::Full))?
            }
            _ => return Err(no_form(i, "predicate compares take plain 32-bit registers")),
        }
    }
    e(x.set("bank", 0))?;
    e(x.set("invert", u64::from(invert)))?;
    Ok(x)
}

/// `8f 05 54 <2 + ifs> 00 <level>`: every active lane leaves loop `level` (1 = outermost open
/// loop) and the `ifs` scopes open inside the innermost loop (niklassheth/agx-re EXP-M4-46 on
/// M4: break under one if `03 00 01`, under two ifs `04 00 01`, inner of two loops `03 00 02`).
pub fn break_unwind(level: u8, ifs: u8) -> Result<Instr, CompileError> {
    let mut x = from_hex("8f0554030001")?;
    let err = |e: agx16_isa::EncodeError| CompileError::Encode {
        instr: "break_unwind".into(),
        why: e.to_string(),
    };
    x.set("b3", 2 + ifs as u64).map_err(err)?;
    x.set("b4", (level as u64) << 8).map_err(err)?;
    Ok(x)
}

/// A bank-0 compare that is true on every lane: `r0 == r0` bitwise (pcmp_ext BitEq, EXP-M4-45).
/// Whatever r0 holds (even a released register, which reads zero) equals itself.
pub fn all_lanes_true() -> Result<Instr, CompileError> {
    use crate::ir::Type;
    use crate::mir::{MSrc, Reg};
    let r0 = MSrc {
        op: MOperand::Reg(Reg { half: 0, halves: 2 }),
        ty: Type::I32,
        neg: false,
        abs: false,
        release: false,
    };
    let i = MInstr {
        op: Op::ICmp {
            cond: Cmp::Eq,
            signed: false,
        },
        ty: Type::Bool,
        dst: None,
        srcs: [r0, r0].into_iter().collect(),
        sat: false,
        produce_slot: 0,
        wait: 0,
        tuple: 0,
        publish: false,
        feeds_branch_only: true,
    };
    predicate_compare(&i)
}

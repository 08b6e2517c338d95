//! Control flow: stop, the exec-mask stack, jumps, barriers.
//!
//! Structured `if`: push `0f 05 54 (1 | bank<<2 | invert<<5)`, else
//! `0f 04 04 19`, pop `0f 06 04 01 00 00`, empty-arm skip `0f 01 54 <off>`
//! (niklassheth/agx-re EXP-M4-52 MASK_STACK_MODEL.json, measured on M4 to 32
//! levels; bank 6/7 = constant true/false, EXP-M4-53).
//! Loops (niklassheth/agx-re EXP-M4-46, measured): loop push `0f 05 54 1a`,
//! latch `8f 04 54 <sel>` (sel bits 4:2 = scopes open inside the loop, bit 5
//! semantic), kind-2 pop `0f 06 04 02 00 00`; `0f 00 54 <off>` is JMP_EXEC_ANY
//! (taken while any lane is active) and `0f 01 54 <off>` JMP_EXEC_NONE; offsets
//! are relative to the branch's own start.

use super::{check, src};
use crate::core::exec_mask::Scope;
use crate::core::ops::{Cmp, JumpCond, Kind, Part, PredSel, Src};
use agx16_isa::meaning::Compare;
use agx16_isa::{Instr, Op as F, Role};

pub fn lower(i: &Instr, pc: u32) -> Result<Kind, String> {
    let f = |n: &str| i.field(n).unwrap_or(0);
    match i.form.op {
        F::IfPush if i.form.name == "loop_push" => {
            check::fields(i, &["bank", "invert"], &[("mode", &[0x54])])?;
            if (f("bank"), f("invert")) != (6, 0) {
                return Err("loop push with a predicate is unmeasured".into());
            }
            Ok(Kind::LoopPush)
        }
        F::IfPush => {
            check::fields(i, &["bank", "invert"], &[("mode", &[0x54])])?;
            let invert = f("invert") == 1;
            let pred = match (f("bank"), invert) {
                (b @ 0..=5, _) => PredSel::Bank {
                    bank: b as u8,
                    invert,
                },
                (6, false) => PredSel::True,
                (7, false) => PredSel::False,
                (b, inv) => {
                    return Err(format!(
                        "push of constant bank {b} with invert={inv} is unmeasured"
                    ))
                }
            };
            Ok(Kind::IfPush { pred })
        }
        F::BreakUnwind => {
            // `8f 05 54 <2 + ifs> 00 <loop level>` (EXP-M4-46: break under one if
            // `03 00 01`, under two ifs `04 00 01`, inner of two loops `03 00 02`).
            check::fields(i, &["b3", "b4"], &[("b2", &[0x54])])?;
            let (tag, b4) = (f("b3"), f("b4"));
            if tag < 2 || b4 & 0xff != 0 {
                return Err(format!(
                    "break-unwind bytes {tag:#x}/{b4:#x} are unmeasured"
                ));
            }
            Ok(Kind::BreakUnwind {
                level: (b4 >> 8) as u8,
                ifs: (tag - 2) as u8,
            })
        }
        F::LoopMaskUpdate => {
            // The latch reads the predicate the preceding compare wrote (bank 0
            // in every measured loop). Bit 5 set: lanes whose predicate is true
            // leave (EXP-0010 prodloop, run on hardware: `pcmp_ext` i == n then
            // `8f 04 54 22`); clear: lanes whose predicate is false leave
            // (EXP-M4-46 compound latches, `..02`). Inferred from data flow.
            check::fields(i, &["bank", "invert"], &[("b3_lo", &[2])])?;
            let depth = f("bank") as u8;
            let pred = PredSel::Bank {
                bank: 0,
                invert: f("invert") == 0,
            };
            Ok(Kind::LoopUpdate { pred, depth })
        }
        F::Else => {
            check::fields(i, &[], &[])?;
            Ok(Kind::Else)
        }
        F::Pop => {
            // `0f 06 04 01 00 00` closes an if, `0f 06 04 02 00 00` a loop.
            check::fields(i, &["scope_kind"], &[("mode", &[0x04])])?;
            let scope = match f("scope_kind") {
                1 => Scope::If,
                2 => Scope::Loop,
                k => return Err(format!("pop of scope kind {k} is unmeasured")),
            };
            Ok(Kind::Pop { scope })
        }
        F::Jump | F::JumpExecNone => {
            check::fields(i, &[], &[("mode", &[0x54])])?;
            let off = match i.operand(agx16_isa::Role::SrcA).map(|o| o.value) {
                Some(agx16_isa::Operand::ImmInt(v)) => v,
                _ => return Err("jump without an offset".into()),
            };
            let target = pc as i64 + off;
            if target < 0 {
                return Err(format!("jump target {target} is before the program"));
            }
            let cond = if i.form.op == F::Jump {
                JumpCond::AnyActive
            } else {
                JumpCond::NoneActive
            };
            Ok(Kind::Jump {
                target: target as usize,
                cond,
            })
        }
        F::PredCompare => pred_compare(i),
        F::Barrier => {
            // `07 04 54 61 09 00`: threadgroup_barrier (scope 0x61;
            // ADevWithAnIdea/agx-re EXP-0025, measured; flags 0x09 in every
            // corpus instance of that scope). Other scopes are refused.
            check::fields(
                i,
                &[],
                &[("b1", &[0x04]), ("scope", &[0x61]), ("flags", &[0x09])],
            )?;
            Ok(Kind::Barrier)
        }
        other => Err(format!("{other:?} forms are not modelled")),
    }
}

/// Predicate compare (niklassheth/agx-re EXP-M4-45, measured on M4): byte0 bit4
/// inverts the result, byte2 base 0x22 with bits 3/4 releasing A/B, condition
/// codes from agx16-isa `meaning::compare_condition`. Register-register only:
/// the compact immediate payload is not generalised by the experiment.
fn pred_compare(i: &Instr) -> Result<Kind, String> {
    let used = ["invert", "bank", "cond", "relation"];
    let with_imm = i.form.name == "pcmp_imm";
    let allowed: &[check::Allowed] = if with_imm {
        // agx16-isa `pcmp_imm`: the bytes of the two EXP-0010 (A18 Pro) compares, fitted
        &[("ctrl_lo", &[1]), ("ctrl_hi", &[1]), ("imm_b31", &[1])]
    } else {
        &[
            ("ctrl_lo", &[1]),
            ("ctrl_hi", &[1]),
            // 0 on the extended compare of EXP-0010 prodloop 0x48 `0a 07 23 05 06 00 07 00 00
            // 00` (A18 Pro; the loop's i == n exit, fitted: the run's outputs need it)
            (
                "operand_tail",
                if i.form.name == "pcmp_ext" {
                    &[0xc0, 0]
                } else {
                    &[0xc0]
                },
            ),
        ]
    };
    check::fields(i, &used, allowed)?;
    let (c, imm, _) = agx16_isa::meaning::compare_condition(i)?;
    // On `pcmp_imm` the cond byte's 0x10 is the immediate's bit 0 (agx16-isa, fitted), so
    // compare_condition sees the relation alone.
    if imm {
        return Err("compare against a compact immediate is not generalised (EXP-M4-45)".into());
    }
    let ext = i.form.name == "pcmp_ext";
    let cmp = match (c, ext) {
        (Compare::FloatGt, false) => Cmp::GtF,
        (Compare::FloatLt, false) => Cmp::LtF,
        (Compare::UintGt, _) => Cmp::GtU,
        (Compare::UintLt, _) => Cmp::LtU,
        (Compare::SintGt, _) => Cmp::GtS,
        (Compare::SintLt, _) => Cmp::LtS,
        (Compare::FloatEq, _) => Cmp::EqF,
        (Compare::BitEq, _) => Cmp::Eq,
        // EXP-M4-45 (M4, measured): extended relations 2/3 are ordered `>=` and
        // `<=`-or-unordered (agx16-isa meaning::compare_condition).
        (Compare::FloatGe, true) => Cmp::GeF,
        (Compare::FloatLeOrUnordered, true) => Cmp::LeFOrUnordered,
        (other, _) => {
            return Err(format!(
                "{other:?} on {} is not a measured combination",
                i.form.name
            ))
        }
    };
    let (a, b) = (src(i, Role::SrcA)?, src(i, Role::SrcB)?);
    for s in [a, b] {
        let ok = matches!(s, Src::Gpr(_, Part::Full)) || (with_imm && matches!(s, Src::Imm(_)));
        if !ok {
            return Err("16-bit predicate compares are unmeasured".into());
        }
    }
    let bank = i.field("bank").unwrap_or(0) as u8;
    if bank > 5 {
        return Err(format!("predicate bank {bank} does not exist"));
    }
    Ok(Kind::PredCompare {
        bank,
        cmp,
        a,
        b,
        invert: i.field("invert").unwrap_or(0) == 1,
    })
}

/// `isel_imm` (agx16-isa, fitted to EXP-0010 dsel5 on A18 Pro): r[dst] = cmp(a, #b) ? #t : #f
/// with the condition of `meaning::compare_condition`; only the one fitted encoding decodes.
pub fn select_imm(i: &Instr) -> Result<Kind, String> {
    check::fields(i, &["cond"], &[])?;
    let (c, _, _) = agx16_isa::meaning::compare_condition(i)?;
    let cmp = match c {
        Compare::SintGt => Cmp::GtS,
        other => return Err(format!("{other:?} on isel_imm is not a fitted combination")),
    };
    Ok(Kind::Select {
        cmp,
        dst: super::dst(i)?,
        a: src(i, Role::SrcA)?,
        b: src(i, Role::SrcB)?,
        t: src(i, Role::SrcC)?,
        f: src(i, Role::SrcD)?,
    })
}

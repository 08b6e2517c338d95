//! Control flow: stop, the exec-mask stack, jumps, barriers.
//!
//! Structured `if`: push `0f 05 54 (1 | bank<<2 | invert<<5)`, else
//! `0f 04 04 19`, pop `0f 06 04 01 00 00`, empty-arm skip `0f 01 54 <off>`
//! (niklassheth/agx-re EXP-M4-52 MASK_STACK_MODEL.json, measured on M4 to 32
//! levels; bank 6/7 = constant true/false, EXP-M4-53). Jump offsets are relative
//! to the jump's own address (agx16-isa table note: EXP-0010 prodloop, run on
//! hardware).

use super::check;
use crate::core::ops::{JumpCond, Kind, PredSel};
use agx16_isa::{Instr, Op as F};

pub fn lower(i: &Instr, pc: u32) -> Result<Kind, String> {
    let f = |n: &str| i.field(n).unwrap_or(0);
    match i.form.op {
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
        F::Else => {
            check::fields(i, &[], &[])?;
            Ok(Kind::Else)
        }
        F::Pop => {
            // Only the one-level pop `0f 06 04 01 00 00` is measured.
            check::fields(i, &[], &[("mode", &[0x04]), ("scope_kind", &[1])])?;
            Ok(Kind::Pop { levels: 1 })
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
                JumpCond::Always
            } else {
                JumpCond::NoneActive
            };
            Ok(Kind::Jump {
                target: target as usize,
                cond,
            })
        }
        other => Err(format!("{other:?} forms are not modelled")),
    }
}

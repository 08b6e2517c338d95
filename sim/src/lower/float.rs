//! Float ALU forms: fadd/fmul (register, immediate, uniform), ffma, hadd/hmul.
//!
//! Semantics: d = a op [-]b, rounded to nearest even, fp32 denormals flushed
//! (niklassheth/agx-re:docs/isa/encoding-tables.md falu2/falu3/half_alu,
//! measured on T8132 by EXP-M4-38; flushing EXP-0047/0201).

use super::{check, dst, src};
use crate::core::ops::{FBinOp, FMod, FType, Kind, Part, Src};
use agx16_isa::{Instr, Op as F, Role};

pub fn lower(i: &Instr) -> Result<Kind, String> {
    let name = i.form.name;
    match i.form.op {
        F::FAdd | F::FMul => {
            let op = if i.form.op == F::FAdd {
                FBinOp::Add
            } else {
                FBinOp::Mul
            };
            // The immediate/uniform overloads' `flags`/`mods` bits are not
            // decoded; accept the values of hardware-run programs only:
            // flags=1/mods=0 (EXP-M4-44 falu2i, measured: out = in + 1.5).
            let allowed: &[check::Allowed] = &[
                ("flags", &[1]),
                ("mods", &[0]),
                ("ctrl", &[0]),
                ("a_aux", &[0]),
                ("b_aux", &[0]),
            ];
            check::fields(i, &["b_neg", "publish"], allowed)?;
            let bneg = i.field("b_neg").unwrap_or(0) != 0;
            let (a, b) = (src(i, Role::SrcA)?, src(i, Role::SrcB)?);
            Ok(Kind::FBin {
                op,
                ty: FType::F32,
                dst: dst(i)?,
                a,
                am: FMod::default(),
                b,
                bm: FMod {
                    abs: false,
                    neg: bneg,
                },
            })
        }
        F::FFma => {
            check::fields(
                i,
                &["neg_ab"],
                &[("flags", &[0]), ("ctrl", &[0]), ("b6", &[0])],
            )?;
            Ok(Kind::FFma {
                ty: FType::F32,
                dst: dst(i)?,
                a: src(i, Role::SrcA)?,
                b: src(i, Role::SrcB)?,
                c: src(i, Role::SrcC)?,
                neg_product: i.field("neg_ab").unwrap_or(0) != 0,
                cm: FMod::default(),
            })
        }
        F::HAdd | F::HMul => {
            let op = if i.form.op == F::HAdd {
                FBinOp::Add
            } else {
                FBinOp::Mul
            };
            check::fields(
                i,
                &["a_neg", "publish"],
                &[("ctrl", &[0]), ("b_file", &[0])],
            )?;
            let half = |s: Src| match s {
                Src::Gpr(r, Part::Full) => Src::Gpr(r, Part::Lo),
                s => s,
            };
            let d = dst(i)?;
            let d = if d.part == Part::Full {
                crate::core::ops::Dst {
                    reg: d.reg,
                    part: Part::Lo,
                }
            } else {
                d
            };
            Ok(Kind::FBin {
                op,
                ty: FType::F16,
                dst: d,
                a: half(src(i, Role::SrcA)?),
                am: FMod {
                    abs: false,
                    neg: i.field("a_neg").unwrap_or(0) != 0,
                },
                b: half(src(i, Role::SrcB)?),
                bm: FMod::default(),
            })
        }
        _ => Err(format!("{name}: not a float ALU form")),
    }
}

//! Float ALU forms: fadd/fmul (register, immediate, uniform, 8-byte), ffma,
//! hadd/hmul, funary.
//!
//! Semantics: d = a op [-]b, rounded to nearest even, fp32 denormals flushed
//! (niklassheth/agx-re:docs/isa/encoding-tables.md falu2/falu3/half_alu,
//! measured on T8132 by EXP-M4-38; flushing EXP-0047/0201).

use super::{check, dst, src};
use crate::core::ops::{Dst, FBinOp, FMod, FType, Kind, Part, Src};
use agx16_isa::{Instr, Op as F, Role};

/// The immediate/uniform overloads' `flags`/`mods` bits are not decoded;
/// accept the values of hardware-run programs only: flags=1/mods=0 (EXP-M4-44
/// falu2i, measured: out = in + 1.5).
const F2_ALLOWED: &[check::Allowed] = &[
    ("flags", &[1]),
    ("mods", &[0]),
    ("ctrl", &[0]),
    ("a_aux", &[0]),
    ("b_aux", &[0]),
];

pub fn lower(i: &Instr) -> Result<Kind, String> {
    let name = i.form.name;
    let flag = |n: &str| i.field(n).unwrap_or(0) != 0;
    match i.form.op {
        F::FMul if name == "hmul_imm12" => hmul_imm12(i),
        F::FAdd | F::FMul => {
            let op = if i.form.op == F::FAdd {
                FBinOp::Add
            } else {
                FBinOp::Mul
            };
            check::fields(i, &["b_neg", "publish", "b_bf16"], F2_ALLOWED)?;
            let (a, b) = (src(i, Role::SrcA)?, src(i, Role::SrcB)?);
            // `b_bf16`: the 16-bit source B is bfloat16 (EXP-M4-54 mixed
            // *_bfloat_reuse `09011c0401000081` computes float(bf16 x) + bias and
            // matches the M4 only with this reading: as f16, 0.5 would read 1.75).
            let bf16 = flag("b_bf16");
            if bf16 && !matches!(b, Src::Gpr(_, Part::Lo | Part::Hi)) {
                return Err("bf16 select on a 32-bit source B is unmeasured".into());
            }
            let bm = FMod {
                neg: flag("b_neg"),
                bf16,
                ..FMod::default()
            };
            Ok(Kind::FBin {
                op,
                ty: FType::F32,
                dst: dst(i)?,
                a,
                am: FMod::default(),
                b,
                bm,
            })
        }
        F::FFma => {
            check::fields(
                i,
                &["neg_ab", "publish"], // publish (bit 21) marks the result as published; value unchanged
                &[("flags", &[0]), ("ctrl", &[0]), ("b6", &[0])],
            )?;
            Ok(Kind::FFma {
                ty: FType::F32,
                dst: dst(i)?,
                a: src(i, Role::SrcA)?,
                b: src(i, Role::SrcB)?,
                c: src(i, Role::SrcC)?,
                neg_product: flag("neg_ab"),
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
                Dst {
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
                    neg: flag("a_neg"),
                    ..FMod::default()
                },
                b: half(src(i, Role::SrcB)?),
                bm: FMod::default(),
            })
        }
        F::FUnary => {
            // mod 0x00 mov, 0x02 abs, 0x0a neg (niklassheth/agx-re:docs/isa/
            // encoding-tables.md funary, HW-validated); b3/srcmod as in the
            // hardware-run EXP-M4-54 rcp_float_neg (`0b010e11020a00000000`).
            check::fields(i, &["mod"], &[("b3", &[0x11]), ("srcmod", &[2])])?;
            let m = match i.field("mod").unwrap_or(0) {
                0x00 => FMod::default(),
                0x02 => FMod {
                    abs: true,
                    ..FMod::default()
                },
                // -a, not -|a|: the enum of encoding-tables.md (`0x0a`=fneg), and
                // EXP-M4-54 rcp_float_neg computes 1/(-x) as rcp then this
                // modifier, which is right for negative x only as a plain negate.
                0x0a => FMod {
                    neg: true,
                    ..FMod::default()
                },
                v => return Err(format!("funary modifier {v:#x} is unmeasured")),
            };
            Ok(Kind::FUnary {
                dst: dst(i)?,
                a: src(i, Role::SrcA)?,
                m,
            })
        }
        _ => Err(format!("{name}: not a float ALU form")),
    }
}

/// `hmul_imm12` (agx16-isa table: EXP-M4-54 rcp_half_neg `11 b1 1d 03 82 .. 04`:
/// r1.l = f16(r1 * -1.0) with r1 the fp32 reciprocal, hardware output
/// reproduced). The extension byte 11 is accepted only at that run's value.
fn hmul_imm12(i: &Instr) -> Result<Kind, String> {
    let allowed: &[check::Allowed] = &[
        ("flags", &[1]),
        ("mods", &[0]),
        ("ctrl", &[0]),
        ("ext", &[0x0400_0000_0000]),
    ];
    check::fields(i, &[], allowed)?;
    let a = src(i, Role::SrcA)?;
    if !matches!(a, Src::Gpr(_, Part::Full)) {
        return Err("hmul_imm12 with a 16-bit source is unmeasured".into());
    }
    // Only scalings by a power of two are exact before the one fp16 rounding;
    // for other immediates the intermediate rounding is unmeasured.
    let b = src(i, Role::SrcB)?;
    match b {
        Src::Imm(bits) if (bits >> 23) & 0xff != 0 && bits & 0x7f_ffff == 0 => {}
        _ => return Err("hmul_imm12 with a non-power-of-two immediate is unmeasured".into()),
    }
    let d = dst(i)?;
    Ok(Kind::FBin {
        op: FBinOp::Mul,
        ty: FType::F16,
        dst: Dst {
            reg: d.reg,
            part: Part::Lo,
        },
        a,
        am: FMod::default(),
        b,
        bm: FMod::default(),
    })
}

//! Integer ALU, special registers and immediate moves.

use super::{check, dst, src};
use crate::core::ops::{IntBinOp, Kind, SpecialReg};
use agx16_isa::{Instr, Op as F, Role};

/// Special registers the model knows. 0xa0 is thread_position_in_grid.x:
/// every executable oracle indexes its buffers with it and the model then
/// reproduces the M4 outputs (niklassheth/agx-re EXP-M4-35/54/55 and
/// ADevWithAnIdea/agx-re EXP-0003/0010 runs; get_sr table ADevWithAnIdea/agx-re
/// EXP-0031, measured on A18).
fn special(sel: u64) -> Option<SpecialReg> {
    match sel {
        0xa0 => Some(SpecialReg::ThreadPositionInGrid(0)),
        _ => None,
    }
}

pub fn get_sr(i: &Instr) -> Result<Kind, String> {
    // dp_width 0 (bits 16..19) and both size bits are what the hardware-run programs use.
    check::fields(i, &["sr_sel", "form"], &[("dp_width", &[0])])?;
    let sel = i.field("sr_sel").unwrap_or(0);
    let sr = special(sel).ok_or_else(|| format!("special register {sel:#x} is not modelled"))?;
    // The size bit is a hypothesis in the table; both values appear in
    // hardware-run oracles (0ca01006 / 1ca01006) with the same results, so the
    // model writes the 32-bit value for size 1 and the low half for size 0.
    let d = match i.operand(Role::Dst).map(|o| o.value) {
        Some(agx16_isa::Operand::Gpr { reg, part }) => crate::core::ops::Dst {
            reg,
            part: super::part_of(part),
        },
        _ => return Err("get_sr destination".into()),
    };
    Ok(Kind::GetSr { dst: d, sr })
}

pub fn mov_imm(i: &Instr) -> Result<Kind, String> {
    check::fields(i, &[], &[("b1_7", &[0, 1])])?;
    Ok(Kind::Mov {
        dst: dst(i)?,
        src: src(i, Role::SrcA)?,
    })
}

const IADD_ALLOWED: &[check::Allowed] = &[
    ("b2_fmt", &[0x15]),
    ("opmode", &[3, 2]),
    ("b7", &[4]),
    ("opc_tail", &[0x11]),
    ("opc_tail2", &[4]),
];

pub fn lower(i: &Instr) -> Result<Kind, String> {
    match i.form.op {
        F::IAdd | F::ISub => {
            let op = if i.form.op == F::IAdd {
                IntBinOp::Add
            } else {
                IntBinOp::Sub
            };
            // Format/mode bytes as in the hardware-run EXP-M4-35 programs (i+37 etc.).
            check::fields(i, &[], IADD_ALLOWED)?;
            Ok(Kind::IBin {
                op,
                dst: dst(i)?,
                a: src(i, Role::SrcA)?,
                b: src(i, Role::SrcB)?,
            })
        }
        F::ILogic => {
            check::fields(
                i,
                &[
                    "lut_a_sel",
                    "lut_a_free",
                    "lut_a_z",
                    "lut_b",
                    "op_base",
                    "outmod",
                ],
                // bit 21 (publish in falu2's layout) set in hardware-run k_* programs
                &[("b2_21", &[0, 1])],
            )?;
            let lut = logic_lut(i)?;
            Ok(Kind::IBin {
                op: IntBinOp::Logic(lut),
                dst: dst(i)?,
                a: src(i, Role::SrcA)?,
                b: src(i, Role::SrcB)?,
            })
        }
        F::IMad => {
            check::fields(i, &[], &[])?;
            Ok(Kind::IMad {
                dst: dst(i)?,
                a: src(i, Role::SrcA)?,
                b: src(i, Role::SrcB)?,
                c: src(i, Role::SrcC)?,
            })
        }
        other => Err(format!("{other:?} is not modelled")),
    }
}

/// The truth table of an `ilogic`. Only the measured encodings are accepted:
/// XOR is lut_a_sel=2, lut_b=8 (niklassheth/agx-re EXP-M4-35, measured on M4).
fn logic_lut(i: &Instr) -> Result<u8, String> {
    let f = |n| i.field(n).unwrap_or(0);
    match (f("op_base"), f("lut_a_sel"), f("lut_a_free"), f("lut_a_z"), f("lut_b"), f("outmod")) {
        (0, 2, 0, 0, 8, 0) => Ok(0b0110),
        t => Err(format!("logic operation {t:?} (op_base, lut_a_sel, lut_a_free, lut_a_z, lut_b, outmod) is not measured")),
    }
}

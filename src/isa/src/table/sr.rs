//! Special-register reads and immediate moves: byte-0 low 3 bits 100.
//!
//! get_sr: `<dst<<4 | 0x4 | size<<3> <sr> <b2> <x6>`, 4 bytes (ADevWithAnIdea/agx-re EXP-0031,
//! measured; byte3 high nibble inert and destinations kept to r0..r15, niklassheth/agx-re
//! EXP-M4-38 and GravityLinux/mesa agx_apple9_machine.c GET_SR). mov_imm: 2-byte `<dst>c <imm7>`
//! (GravityLinux/mesa agx_apple9_machine.c MOV_IMM_COMPACT, measured, r0..r15).

use super::src::{ET, LEN, MC};
use crate::form::{Field, Form, Kind::*, Role::*};

const GET_SR: &[Field] = &[
    // Bit 3 as the destination size follows TellowKrinkle/applegpu's M3 VariableDstDesc: a guess on M4.
    f!("form", [(3, 1)], Size(Dst), Hypothesis, "TellowKrinkle/applegpu:applegpu.py"),
    f!("dst", [(4, 4)], Gpr(Dst), Hardware, ET),
    f!("sr_sel", [(8, 8)], SpecialReg, Hardware, ET),
    f!("dp_width", [(16, 8)], Modifier, CorpusOnly, ET),
    raw!("dst_hi", 28, 4),
];

const MOV_IMM: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), Hardware, MC),
    f!("imm", [(8, 7)], ImmU(SrcA), Hardware, MC),
    raw!("b1_7", 15, 1),
];

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    form!("get_sr", GetSr, 4, Hardware, ET, [(0, 3, 4), (24, 4, 6)], GET_SR, [rch!(Dst, 15, Hardware)]),
    form!("mov_imm", MovImm, 2, Hardware, MC, [(0, 4, 0xc)], MOV_IMM, [rch!(Dst, 15, Hardware)]),
];
const _: &str = LEN;

//! Special-register reads and immediate moves: byte-0 low 3 bits 100.
//!
//! get_sr: `<dst<<4 | 0x4 | size<<3> <sr> <b2> <x6>`, 4 bytes (ADevWithAnIdea/agx-re EXP-0031,
//! measured; byte3 high nibble inert and destinations kept to r0..r15, niklassheth/agx-re
//! EXP-M4-38 and GravityLinux/mesa agx_apple9_machine.c GET_SR). mov_imm: 2-byte `<dst>c <imm7>`
//! (GravityLinux/mesa agx_apple9_machine.c MOV_IMM_COMPACT, measured, r0..r15).

use super::src::{CAN, CORPUS, ET, LEN, MC};
use crate::form::{Field, Form, Kind::*, ProduceLayout::*, Role::*};

const GET_SR: &[Field] = &[
    // Bit 3 (TellowKrinkle/applegpu's M3 VariableDstDesc size bit) is inert for
    // thread_position_in_grid.x (EXP-0140, G17P: both values read the SR).
    f!("form", [(3, 1)], Modifier, CorpusOnly, ET),
    f!("dst", [(4, 4)], Gpr(Dst), Hardware, ET),
    f!("sr_sel", [(8, 8)], SpecialReg, Hardware, ET),
    f!("dp_width", [(16, 4)], Modifier, CorpusOnly, ET),
    raw!("dp_5", 21, 1),
    f!("dst_bank", [(22, 1)], Modifier, Hypothesis, ET),
    raw!("dst_hi", 28, 4),
];

const MOV_IMM: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), Hardware, MC),
    f!("imm", [(8, 7)], ImmU(SrcA), Hardware, MC),
];

const ATOMIC_RESULT: &[Field] = &[
    f!("dst", [(4, 4), (22, 2)], Gpr(Dst), Hardware, ET),
    f!(
        "publication",
        [(45, 3)],
        Produce(AtomicResultCode),
        Hardware,
        ET
    ),
];

// value bits 0..6 | 7..10 | 11..12 | 13..20 | 21..24 | 25..31 live in bytes 1, 4, 5, 6, 7, 3.
const MOV_IMM32: &[Field] = &[
    f!("dst", [(4, 4), (22, 2)], Gpr(Dst), Hardware, MC),
    f!(
        "imm",
        [(8, 7), (33, 4), (42, 2), (48, 8), (56, 4), (25, 7)],
        ImmU(SrcA),
        Hardware,
        MC
    ),
    raw!("b2_5", 21, 1),
    raw!("b3_0", 24, 1),
    raw!("b4_0", 32, 1),
    raw!("b4_hi", 37, 3),
    raw!("b5_lo", 40, 2),
    raw!("b5_hi", 44, 4),
    raw!("b7_hi", 60, 4),
];

macro_rules! rb {
    ($($name:literal $lo:literal $w:literal),*) => { &[$(raw!($name, $lo, $w)),*] };
}

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    // byte2 bit 4 set and bit 7 clear: EXP-0140 (G17P) accepts exactly (v & 0xd3) == 0x10 in
    // compute and fragment programs use 0x11/0x14; 0x50 moves the destination bank (EXP-0207).
    // Without this gate `2c 0e 0f 06` (mov_imm + pop) would be taken for a get_sr.
    form!("get_sr", GetSr, 4, Hardware, ET, [(0, 3, 4), (20, 1, 1), (23, 1, 0), (24, 4, 6)], GET_SR, [rch!(Dst, 15, Hardware)]),
    form!("mov_imm", MovImm, 2, Hardware, MC, [(0, 4, 0xc), (15, 1, 0)], MOV_IMM, [rch!(Dst, 15, Hardware)]),
    // `?c 80 (09|dst_hi<<6) a7 00 (code<<5) 00 00`: destination and publication slot of a returning
    // device atomic (niklassheth/agx-re encoding-tables.md `atomic_result`, EXP-M4-49, measured).
    form!("atomic_result", Opaque, 8, Hardware, ET, [(0, 4, 0xc), (8, 8, 0x80), (16, 6, 0x09), (24, 16, 0x00a7), (40, 5, 0), (48, 16, 0)], ATOMIC_RESULT, [rch!(Dst, 63, Hardware)]),
    form!("atomic_publish_x", Opaque, 8, CorpusOnly, ET, [(0, 4, 0xc), (8, 8, 0x80), (24, 8, 0xa7)], rb!("dst" 4 4, "b2" 16 8, "b4" 32 8, "b5" 40 8, "b6" 48 16), []),
    // 8-byte raw-literal move, "mode 2" (EXP-M4-37 on T8132: 32 one-bit own-source diffs
    // recover every payload bit, 33 controls execute exactly; GravityLinux/mesa
    // agx_apple9_machine.c MOV_IMM32 and its packer vectors). `0c 80 02 3e 00 00 00 0c` in
    // EXP-0001 k09_write_buf1 is r0 = 0x3f800000 (1.0).
    form!("mov_imm32", MovImm, 8, Hardware, MC, [(0, 4, 0xc), (15, 1, 1), (16, 5, 2)], MOV_IMM32, [rch!(Dst, 63, Hardware)]),
    // "mode 3" (byte2 low five bits 3) is the ten-byte tuple-publication form
    // (encoding-tables.md `mov_imm32` note; `3c 80 23 3e 00 00 00 0c 40 60` in vertex programs)
    form!("mov_tuple", MovImm, 10, CorpusOnly, ET, [(0, 4, 0xc), (15, 1, 1), (16, 5, 3)], rb!("dst" 4 4, "b1" 8 7, "b2" 21 3, "b3" 24 8, "tail" 32 48), []),
    form!("mov_imm32_x", MovImm, 8, CorpusOnly, MC, [(0, 4, 0xc), (15, 1, 1)], rb!("dst" 4 4, "b1" 8 7, "b2" 16 8, "b3" 24 8, "tail" 32 32), []),
    // wide special-register read (byte1 bit 7 set, byte3 0), 8 bytes (EXP-M4-13 n4_tex)
    form!("sr_read_wide", GetSr, 8, CorpusOnly, LEN, [(0, 4, 4), (15, 1, 1), (24, 8, 0)], rb!("dst" 4 4, "b1" 8 7, "b2" 16 8, "tail" 32 32), []),
    form!("centroid_read", Opaque, 8, CorpusOnly, LEN, [(0, 8, 0x04), (15, 1, 1)], rb!("b1" 8 7, "b2" 16 8, "b3" 24 8, "tail" 32 32), []),
    // 12-byte low-nibble-4 forms: only the two canaries op04_compiler_prefix (EXP-0157, G17P)
    form!("op04_12a", Opaque, 12, CorpusOnly, CAN, [(0, 8, 0x04), (8, 8, 0x02), (16, 16, 0x8000)], rb!("tail" 32 64), []),
    form!("op04_12b", Opaque, 12, CorpusOnly, CAN, [(0, 8, 0x04), (8, 8, 0x42), (16, 8, 0xa2)], rb!("b3" 24 8, "tail" 32 64), []),
    // other reads with byte1 bit 7 clear: 4 bytes (`04 02 80 0a` before a 10-byte select in
    // controlflow__select_float; `04 01 00 00` before pops), corpus tiling
    // `04 00` + store head: 2-byte mesh output-store source (canary mesh_source_canonical, EXP-0157)
    form!("mesh_out_src", Opaque, 2, CorpusOnly, CAN, [(0, 8, 0x04), (8, 8, 0x00)], &[], []),
    form!("n4_word", Opaque, 4, CorpusOnly, CORPUS, [(0, 4, 4), (15, 1, 0)], rb!("b0_hi" 4 4, "b1" 8 7, "b2" 16 8, "b3" 24 8), []),
];

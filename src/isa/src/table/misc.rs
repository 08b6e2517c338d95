//! Everything else the corpus needs: selects, min/max, compares, graphics and SIMD-group ops.
//!
//! Lengths follow ADevWithAnIdea/agx-re:tools/agx-isa/isadb.py instr_length (corpus-fitted;
//! the experiments it cites are named per entry) unless a hardware row says otherwise.

use super::src::{CAN, CORPUS, ET, LEN, MC, PK};
use crate::form::{Field, Form, Kind::*, Role::*, SlotLayout::*};

macro_rules! raw_bytes {
    ($($name:literal $lo:literal $w:literal),*) => { &[$(raw!($name, $lo, $w)),*] };
}

// Integer/float min/max (6 bytes, byte2 & 7 == 6): shared compact skeleton, register map
// measured on T8132 (EXP-M4-38); sel 0 fmax 1 fmin 4 umax 5 umin 6 imax 7 imin (encoding-tables.md).
const MINMAX: &[Field] = &[
    f!("dst", [(4, 4), (22, 2), (44, 1)], Gpr(Dst), Hardware, ET),
    f!("a_size", [(8, 1)], Size(SrcA), Hardware, ET),
    f!("a", [(9, 6), (40, 1)], Gpr(SrcA), Hardware, ET),
    f!("a_keep", [(15, 1)], Modifier, CorpusOnly, PK),
    f!("rel_a", [(19, 1)], Release(SrcA), CorpusOnly, PK),
    f!("rel_b", [(20, 1)], Release(SrcB), CorpusOnly, PK),
    f!("publish", [(21, 1)], Publish, CorpusOnly, PK),
    f!("b_size", [(24, 1)], Size(SrcB), Hardware, ET),
    f!("b", [(25, 6), (42, 1)], Gpr(SrcB), Hardware, ET),
    f!("b_keep", [(31, 1)], Modifier, CorpusOnly, PK),
    f!("sel", [(32, 3)], OpSelect, Hardware, ET),
    raw!("selhi", 35, 5),
    raw!("b_file", 41, 1),
    raw!("src_mod", 43, 1),
    f!("wait", [(45, 3)], Wait(Index45), Hardware, MC),
];

// Select with immediate compare bound and values (10 bytes, byte2 0x0f), fitted to
// ../shared/oracles/sim EXP-0010__dsel5 (ADevWithAnIdea/agx-re EXP-0010, A18 Pro):
// `02 01 0f 84 22 e4 16 c2 a0 c8` is r0 = (r0 > 5) ? 100 : 200 after a load that publishes on
// slot 6 (wait 61..63 = 6, the wide-select slot field). The bound sweep of that experiment
// (RESULTS.md: byte3 0x80 -> a > 1, 0x84 -> a > 5, 0x8e -> all 200) reads byte3 bits 1..6 as the
// bound's bits 1..6 with its low bit elsewhere: the condition byte's 0x10 (bit 52), as in
// `pcmp_imm` (where that bit is the difference between eret4's 3 and prodloop's 0).
// The true value is bits 40..46 (100; bit 47 set) and the false value bits 72..79 (200): one
// instance fixes neither layout, so every other bit is a match bit of this exact encoding;
// condition 6 = signed greater-than (pcmp's code).
const ISEL_IMM: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), Fitted, DSEL5),
    f!("a_size", [(8, 1)], Size(SrcA), Fitted, DSEL5),
    f!("a", [(9, 6)], Gpr(SrcA), Fitted, DSEL5),
    f!("b", [(52, 1), (25, 6)], ImmU(SrcB), Fitted, DSEL5),
    f!("t", [(40, 7)], ImmU(SrcC), Fitted, DSEL5),
    f!("cond", [(48, 4), (53, 3)], Modifier, Fitted, DSEL5),
    f!("wait", [(61, 3)], Wait(Index61), Hardware, MC),
    f!("f", [(72, 8)], ImmU(SrcD), Fitted, DSEL5),
];
const DSEL5: &str = "fitted to ../shared/oracles/sim EXP-0010__dsel5 (ADevWithAnIdea/agx-re:experiments/EXP-0010-control-flow/RESULTS.md, A18 Pro)";

// Wide select (10 bytes): dst r0..r15, four sources as (reg<<1)|is32 descriptors in bytes
// 1/3/5/9 with bit-6 extensions at 56/58/38/70, slot index at 61..63
// (GravityLinux/mesa agx_apple9_machine.c select_gpr_wide, measured; canaries EXP-0234).
const ISEL10: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), Hardware, MC),
    f!("a_size", [(8, 1)], Size(SrcA), Hardware, MC),
    f!("a", [(9, 6), (56, 1)], Gpr(SrcA), Hardware, MC),
    raw!("a_aux", 15, 1),
    f!("op", [(20, 4)], OpSelect, CorpusOnly, ET),
    f!("b_size", [(24, 1)], Size(SrcB), Hardware, MC),
    f!("b", [(25, 6), (58, 1)], Gpr(SrcB), Hardware, MC),
    raw!("b_aux", 31, 1),
    f!("cmp", [(32, 1), (34, 4)], Modifier, CorpusOnly, ET),
    f!("c", [(41, 6), (38, 1)], Gpr(SrcC), Hardware, MC),
    raw!("b4_7", 39, 1),
    f!("c_size", [(40, 1)], Size(SrcC), Hardware, MC),
    raw!("c_aux", 47, 1),
    f!("cond", [(48, 8)], Modifier, CorpusOnly, ET),
    raw!("b7_1", 57, 1),
    raw!("b7_3", 59, 2),
    f!("wait", [(61, 3)], Wait(Index61), Hardware, MC),
    raw!("b8", 64, 6),
    f!("d", [(73, 6), (70, 1)], Gpr(SrcD), Hardware, MC),
    raw!("b8_7", 71, 1),
    f!("d_size", [(72, 1)], Size(SrcD), Hardware, MC),
    raw!("d_aux", 79, 1),
];

// Raw layouts with byte2 pinned by the match.
const N2_6: &[Field] = raw_bytes!("dst" 4 4, "b1" 8 8, "b3" 24 8, "b4" 32 8, "b5" 40 8);
const N2_10: &[Field] = raw_bytes!("dst" 4 4, "b1" 8 8, "b3" 24 8, "b4" 32 8, "tail" 40 40);
const N2_14: &[Field] =
    raw_bytes!("dst" 4 4, "b1" 8 8, "b3" 24 8, "b4" 32 8, "tail" 40 64, "tail2" 104 8);
const N2_B2FREE_8: &[Field] =
    raw_bytes!("dst" 4 4, "b1" 8 8, "b3" 24 8, "b4" 32 1, "b4_2" 34 6, "tail" 40 24);
const N2_B2FREE_10: &[Field] =
    raw_bytes!("dst" 4 4, "b1" 8 8, "b3" 24 8, "b4" 32 1, "b4_2" 34 6, "tail" 40 40);

const ZEXT16: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), Hardware, ET),
    raw!("b1", 8, 8),
    raw!("b2_345", 19, 3),
    raw!("extend", 27, 5),
];

// `<n>3 00 00 00`: the byte3-bit-0-clear sibling of zext16 clears the low half in place,
// r[n] = r[n] & 0xffff0000. EXP-M4-54 mixed floor_bfloat_store (hash-matched on M4) computes
// floor(x) as a bf16 result in r0.hi and widens it to fp32 with `03 00 00 00` before a 32-bit
// store; the M4 output is reproduced bit for bit under this reading (inferred, hardware output
// reproduced). That run cannot tell it from a no-op (the SFU released r0.lo, which then reads
// zero), so the reading also rests on zext16 (byte3 bit 0 set keeps the low half, EXP-0161) and
// on the widening the kernel needs for every bf16 input; the corpus uses `43 00 00 00` among
// the loop initialisers of EXP-M4-13 controlflow__switch_in_loop. Only all-zero operand bytes.
const M54B: &str = "niklassheth/agx-re:experiments/EXP-M4-54-sfu-source-controls (floor_bfloat_store: inferred, hardware output reproduced)";
const CLEAR_LO16: &[Field] = &[f!("dst", [(4, 4)], Gpr(Dst), CorpusOnly, M54B)];

const B1_3: &[Field] = raw_bytes!("b1" 8 8, "b2" 16 8, "b3" 24 8);
const B0HI_B1_3: &[Field] = raw_bytes!("b0_hi" 4 4, "b1" 8 8, "b2" 16 8, "b3" 24 8);

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    // ---- byte0 low nibble 2: compare / select / min-max (byte0 high nibble = destination) ----
    form!("icmpsel", Select, 14, CorpusOnly, ET, [(0, 4, 2), (16, 8, 0x1d)], N2_14, []),
    form!("cmpsel10", Select, 10, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x2d), (24, 8, 0x80)], raw_bytes!("dst" 4 4, "b1" 8 8, "b4" 32 8, "tail" 40 40), []),
    form!("icmpsel_2d", Select, 14, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x2d)], N2_14, []),
    form!("sel_21", Select, 10, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x21)], N2_10, []),
    form!("sel_25", Select, 8, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x25), (33, 1, 0)], N2_B2FREE_8, []),
    form!("sel_25w", Select, 10, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x25), (33, 1, 1)], N2_B2FREE_10, []),
    form!("madd_27", Opaque, 8, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x27), (24, 8, 0x80), (33, 1, 0)], raw_bytes!("dst" 4 4, "b1" 8 8, "b4" 32 1, "b4_2" 34 6, "tail" 40 24), []),
    form!("madd_27w", Opaque, 10, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x27), (24, 8, 0x80), (33, 1, 1)], raw_bytes!("dst" 4 4, "b1" 8 8, "b4" 32 1, "b4_2" 34 6, "tail" 40 40), []),
    form!("madd_2f", Opaque, 8, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x2f), (24, 8, 0x80), (33, 1, 0)], raw_bytes!("dst" 4 4, "b1" 8 8, "b4" 32 1, "b4_2" 34 6, "tail" 40 24), []),
    form!("madd_2fw", Opaque, 10, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x2f), (24, 8, 0x80), (33, 1, 1)], raw_bytes!("dst" 4 4, "b1" 8 8, "b4" 32 1, "b4_2" 34 6, "tail" 40 40), []),
    form!("rt_box_test", RayTrace, 10, CorpusOnly, ET, [(0, 4, 2), (16, 8, 0x27), (24, 8, 0x81), (32, 8, 0x22)], raw_bytes!("dst" 4 4, "b1" 8 8, "tail" 40 40), []),
    form!("wsel_27", Select, 8, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x27), (33, 1, 0)], raw_bytes!("dst" 4 4, "b1" 8 8, "b3" 24 8, "b4" 32 1, "b4_2" 34 6, "tail" 40 24), []),
    // byte4 bit 1 set: 10 bytes (`42 81 27 09 82 04 03 02 00 80` in EXP-M4-55 k_sqrt_precise)
    form!("wsel_27w", Select, 10, CorpusOnly, CORPUS, [(0, 4, 2), (16, 8, 0x27), (33, 1, 1)], raw_bytes!("dst" 4 4, "b1" 8 8, "b3" 24 8, "b4" 32 1, "b4_2" 34 6, "tail" 40 40), []),
    form!("minmax", MinMax, 6, Hardware, ET, [(0, 4, 2), (16, 3, 6)], MINMAX, [rch!(Dst, 95, Hardware), rch!(SrcA, 95, Hardware), rch!(SrcB, 95, Hardware)]),
    form!("carry_gen", PredCompare, 6, Hardware, ET, [(0, 4, 2), (16, 8, 0x35)], N2_6, []),
    form!("fcmp_pred", PredCompare, 6, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x3d)], N2_6, []),
    form!("poly_23", Opaque, 6, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x23)], N2_6, []),
    form!("rsel_2b", Opaque, 6, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x2b)], N2_6, []),
    form!("psel_03", Opaque, 6, CorpusOnly, LEN, [(0, 4, 2), (16, 8, 0x03)], N2_6, []),
    // Select family: byte2 low nibble 7 / f; byte4 bit 1 adds a trailing parcel (8 -> 10 bytes),
    // the same rule the 0x25/0x27/0x2f rows use (isadb.py EXP-M4-01) and what the canaries
    // (isel10, b4 = 0x06) and native epilogues (`02 0b 0f 80 20 80 06 02`, b4 = 0x20) show.
    form!("isel10", Select, 10, Hardware, MC, [(0, 4, 2), (16, 4, 0x7), (33, 1, 1)], ISEL10, [rch!(Dst, 15, Hardware), rch!(SrcA, 95, Hardware), rch!(SrcB, 95, Hardware), rch!(SrcC, 95, Hardware), rch!(SrcD, 95, Hardware)]),
    form!("sel8_7", Select, 8, CorpusOnly, CORPUS, [(0, 4, 2), (16, 4, 0x7), (33, 1, 0)], raw_bytes!("dst" 4 4, "b1" 8 8, "b2" 20 4, "b3" 24 8, "b4" 32 1, "b4_2" 34 6, "tail" 40 24), []),
    form!("isel_imm", Select, 10, Fitted, DSEL5, [(0, 4, 2), (15, 1, 0), (16, 8, 0x0f), (24, 1, 0), (31, 1, 1), (32, 8, 0x22), (47, 1, 1), (56, 5, 0b00010), (64, 8, 0xa0)], ISEL_IMM, [rch!(Dst, 15, Fitted), rch!(SrcA, 63, Fitted)]),
    form!("sel10_f", Select, 10, CorpusOnly, LEN, [(0, 4, 2), (16, 4, 0xf), (33, 1, 1)], raw_bytes!("dst" 4 4, "b1" 8 8, "b2" 20 4, "b3" 24 8, "b4" 32 1, "b4_2" 34 6, "tail" 40 40), []),
    form!("sel8_f", Select, 8, CorpusOnly, CORPUS, [(0, 4, 2), (16, 4, 0xf), (33, 1, 0)], raw_bytes!("dst" 4 4, "b1" 8 8, "b2" 20 4, "b3" 24 8, "b4" 32 1, "b4_2" 34 6, "tail" 40 24), []),
    form!("n2_zero6", Opaque, 6, CorpusOnly, LEN, [(0, 4, 2), (16, 16, 0)], raw_bytes!("dst" 4 4, "b1" 8 8, "b4" 32 16), []),
    form!("n2_low6", Opaque, 6, CorpusOnly, LEN, [(0, 4, 2), (22, 2, 0)], raw_bytes!("dst" 4 4, "b1" 8 8, "b2" 16 6, "b3" 24 8, "b4" 32 8, "b5" 40 8), []),
    // ---- 4-byte conditional select (0x05 / 0x16) ----
    form!("psel", Select, 4, CorpusOnly, LEN, [(0, 8, 0x05)], B1_3, []),
    // `?6 02`: 2-byte word (isadb.py `06 02`; `16 02 | 2f 03 54 ..` in EXP-M4-55 k_cospi)
    form!("word_x602", Opaque, 2, CorpusOnly, LEN, [(0, 4, 6), (8, 8, 0x02)], raw_bytes!("b0_hi" 4 4), []),
    form!("psel16", Select, 4, CorpusOnly, LEN, [(0, 8, 0x16)], B1_3, []),
    // ---- byte0 low nibble 3: compact in-place 16-bit zero-extend / move (EXP-0161, measured) ----
    form!("sample_id", Opaque, 10, CorpusOnly, LEN, [(0, 8, 0x03), (16, 8, 0x26)], raw_bytes!("b1" 8 8, "b3" 24 8, "tail" 32 48), []),
    // `<n>3 xx yy z1` with byte2 & 0xc7 == 0: r[n] = r[n] & 0xffff in place (encoding-tables.md
    // `mov_zext16`, EXP-0161 dense sweeps on G17P; byte1 inert)
    form!("zext16", ZeroExtend16, 4, Hardware, ET, [(0, 4, 3), (16, 3, 0), (22, 2, 0), (24, 3, 1)], ZEXT16, [rch!(Dst, 10, Hardware)]),
    form!("clear_lo16", RegMove, 4, CorpusOnly, M54B, [(0, 4, 3), (8, 24, 0)], CLEAR_LO16, [rch!(Dst, 15, CorpusOnly)]),
    form!("n3_4", RegMove, 4, CorpusOnly, ET, [(0, 4, 3)], B0HI_B1_3, []),
    // ---- misc 4-byte markers ----
    form!("call_site", Opaque, 4, CorpusOnly, LEN, [(0, 8, 0x43)], B1_3, []),
    form!("frame_word", Opaque, 4, CorpusOnly, CAN, [(0, 8, 0x60)], B1_3, []),
];

//! Byte-0 low nibble 0xb: 10-byte logic / source-modifier / convert ALU and 4-byte compact moves.
//!
//! Sub-family by byte2 (ADevWithAnIdea/agx-re:tools/agx-isa/isadb.py instr_length, corpus
//! tiling): 0x01 uniform move (4); low nibble 7/e/f or 0x17 10-byte ALU; low nibble b compact
//! move (4); high nibble 2 compact move (4). `ilogic` layout and its split one-hot slot mask
//! (bits 45..47 = slots 1..3, 61..63 = slots 4..6) are measured on M4 by EXP-M4-35
//! (niklassheth/agx-re:APPLE9_SCOREBOARD_SLOTS.md); DEF-0171-4's "sources-read-enable" reading
//! of byte7 bit 7 is superseded by that newer M4 result.

use super::src::{CORPUS, ET, FIT_M435, GL_UNI, LEN, M435, PK, SB};

const EXP10_PRODLOOP: &str =
    "fitted to ../shared/oracles/sim EXP-0010__prodloop (ADevWithAnIdea/agx-re EXP-0010, A18 Pro)";
const M54: &str = "niklassheth/agx-re:experiments/EXP-M4-54-sfu-source-controls";
use crate::form::{Field, Form, Kind::*, Role::*, SlotLayout::*};

const ILOGIC: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), Hardware, ET),
    f!("a_size", [(8, 1)], Size(SrcA), Hardware, ET),
    f!("a", [(9, 6)], Gpr(SrcA), Hardware, ET),
    f!("a_keep", [(15, 1)], Modifier, CorpusOnly, PK),
    f!("op_base", [(16, 1)], OpSelect, Hardware, ET),
    f!("rel_a", [(19, 1)], Release(SrcA), Hardware, PK),
    f!("rel_b", [(20, 1)], Release(SrcB), Hardware, PK),
    raw!("b2_21", 21, 1),
    f!("b_size", [(24, 1)], Size(SrcB), Hardware, ET),
    f!("b", [(25, 6)], Gpr(SrcB), Hardware, ET),
    f!("b_keep", [(31, 1)], Modifier, CorpusOnly, PK),
    f!("lut_a_sel", [(32, 2)], OpSelect, Hardware, ET),
    f!("lut_a_free", [(34, 3)], OpSelect, CorpusOnly, ET),
    f!("lut_a_z", [(37, 3)], OpSelect, CorpusOnly, ET),
    f!("lut_b", [(40, 5)], OpSelect, Hardware, ET),
    f!(
        "wait",
        [(45, 3), (61, 3)],
        Wait(MaskSplit45_61),
        Hardware,
        SB
    ),
    raw!("z6", 48, 8),
    f!("outmod", [(56, 5)], Modifier, CorpusOnly, ET),
    raw!("z8", 64, 8),
    raw!("z9", 72, 8),
];

// `ilogic` with source B from the uniform file (bit 41 set, GL_UNI) and op_base 1. The function
// is the measured LUT of the same selector bits with bit 41 cleared (op_base 1, lut_a 0, bit 43
// clear = `and`); the uniform index takes byte3 plus bits 20 and 42, so bit 20 is not B's
// release here. Apple's compiler uses it for the `& 1023u` index masks of EXP-M4-35 (the uniform
// words come from the constant program, which no source captured; the oracle harness supplies
// them, sim/src/preload.rs). No measured GPR encoding has op_base 1 with bit 41 set, so this
// entry shadows none. Fitted: the model executes it, the compiler does not emit it.
const ILOGIC_UB: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), Hardware, ET),
    f!("a_size", [(8, 1)], Size(SrcA), Hardware, ET),
    f!("a", [(9, 6), (40, 1)], Gpr(SrcA), Hardware, GL_UNI),
    f!("a_keep", [(15, 1)], Modifier, CorpusOnly, PK),
    f!("rel_a", [(19, 1)], Release(SrcA), Hardware, PK),
    raw!("b2_21", 21, 1),
    f!("b_size", [(24, 1)], Size(SrcB), Fitted, GL_UNI),
    f!(
        "b",
        [(25, 6), (20, 1), (42, 1)],
        Uniform(SrcB),
        Fitted,
        GL_UNI
    ),
    raw!("b_keep", 31, 1),
    f!("lut_a_sel", [(32, 2)], OpSelect, Hardware, ET),
    f!("lut_a_free", [(34, 1), (36, 1)], OpSelect, CorpusOnly, ET),
    // Bit 35 selects A's high half (fitted: load_xor_chain5 0x22 `4b 00 0f 08 08 02 ..` masks
    // r0.hi = i+37, which an `iadd` with dst_hi wrote; 0x2c without it masks r0.lo = i+74).
    f!("a_hi", [(35, 1)], Half(SrcA), Fitted, FIT_M435),
    f!("lut_a_z", [(37, 2)], OpSelect, CorpusOnly, ET),
    f!("lut_b", [(43, 1)], OpSelect, Fitted, FIT_M435),
    raw!("dst_b6", 44, 1),
    f!(
        "wait",
        [(45, 3), (61, 3)],
        Wait(MaskSplit45_61),
        Hardware,
        SB
    ),
    raw!("z6", 48, 8),
    f!("outmod", [(56, 5)], Modifier, CorpusOnly, ET),
    raw!("z8", 64, 8),
    raw!("z9", 72, 8),
];

// Other 10-byte members: bytes localised, meaning not established (EXP-M4-35 decode records name
// them funary_imm / b_alu10_lo7 / b_alu10_lo6).
// NS/GravityLinux packer golden vectors for the same layout: keeping a source live clears its
// release bit (19 A, 20 B) and sets its byte's bit 7 (test-apple9.cpp
// ExtendedLogicCarriesSourceLiveness); the EXP-M4-35 load_xor_load_retain oracle (hash-matched
// on M4) is exactly that encoding (`2b 83 06 81 ..`).

const ALU10: &[Field] = &[
    raw!("dst", 4, 4),
    f!("src", [(8, 8)], Modifier, CorpusOnly, M435),
    raw!("b2_hi", 20, 4),
    f!("srcB", [(24, 8)], Modifier, CorpusOnly, M435),
    f!("lut_a", [(32, 8)], Modifier, CorpusOnly, M435),
    f!("mod", [(40, 8)], Modifier, CorpusOnly, M435),
    raw!("tail", 48, 32),
];
const ALU10_16: &[Field] = &[
    raw!("dst", 4, 4),
    f!("src", [(8, 8)], Modifier, CorpusOnly, M435),
    raw!("b2_0", 16, 1),
    f!("srcB", [(24, 8)], Modifier, CorpusOnly, M435),
    f!("lut_a", [(32, 8)], Modifier, CorpusOnly, M435),
    f!("mod", [(40, 8)], Modifier, CorpusOnly, M435),
    raw!("tail", 48, 32),
];
const ALU10_X18: &[Field] = &[
    raw!("dst", 4, 4),
    f!("src", [(8, 8)], Modifier, CorpusOnly, M435),
    raw!("b2_lo", 16, 2),
    raw!("b2_hi", 19, 5),
    f!("srcB", [(24, 8)], Modifier, CorpusOnly, M435),
    f!("lut_a", [(32, 8)], Modifier, CorpusOnly, M435),
    f!("mod", [(40, 8)], Modifier, CorpusOnly, M435),
    raw!("tail", 48, 32),
];
const MOVE4_X18: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("b2_lo", 16, 2),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
];
const ALU10_FREE_B2: &[Field] = &[
    raw!("dst", 4, 4),
    f!("src", [(8, 8)], Modifier, CorpusOnly, M435),
    raw!("b2", 16, 8),
    f!("srcB", [(24, 8)], Modifier, CorpusOnly, M435),
    f!("lut_a", [(32, 8)], Modifier, CorpusOnly, M435),
    f!("mod", [(40, 8)], Modifier, CorpusOnly, M435),
    raw!("tail", 48, 32),
];

// `0e` source-modifier move: byte5 = 0x00 mov / 0x02 abs / 0x0a neg (encoding-tables.md
// `funary`, G17P measured). The source is the byte1 descriptor `(reg<<1)|is32`, as in ilogic:
// EXP-M4-54 rcp_float_neg `0b 01 0e 11 02 0a ..` negates the rcp result in r0 (hash-matched
// output, data flow; sim/ISA-REQUESTS.md item 5), so byte3 is not the source.
const FUNARY: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), CorpusOnly, ET),
    f!("a_size", [(8, 1)], Size(SrcA), CorpusOnly, M54),
    f!("a", [(9, 7)], Gpr(SrcA), CorpusOnly, M54),
    raw!("b3", 24, 8),
    raw!("srcmod", 32, 8),
    f!("mod", [(40, 8)], Modifier, Hardware, ET),
    raw!("ext", 48, 32),
];

const MOVE4: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("b2_hi", 20, 4),
    raw!("b3", 24, 8),
];
const MOVE4_LO: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("b2_lo", 16, 4),
    raw!("b3", 24, 8),
];

// `Xb YY 01 08`: uniform register -> GPR (ADevWithAnIdea/agx-re EXP-0020, measured).
const UMOV: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), Hardware, ET),
    f!("u_size", [(8, 1)], Size(SrcA), Hardware, ET),
    f!("u", [(9, 7)], Uniform(SrcA), Hardware, ET),
    f!("b3", [(24, 8)], Modifier, CorpusOnly, ET),
];

// `Xb <a> 1b <b>` (EXP-M4-35 records call it `reg_move_cb`): a compact 4-byte xor, r[dst] =
// a ^ b, with the ilogic register descriptors `(reg<<1)|is32` in bytes 1 and 3. Fitted to the
// hash-matched EXP-M4-35 alu_xor_alu (0x1c `0b 01 1b 05`: r0 = r0 ^ r2 is the only reading that
// gives its M4 output). Bits 19/20 are set there; by the 10-byte ilogic layout they release A
// and B (both are dead after it): bit 19 is a match bit here, so A is not released by the
// model (it is the destination in the only instance). The `1b 0b 1a 03` compact of
// EXP-M4-13 bitops__and_u32v4 (byte2 bit 16 clear) suggests bit 16 selects and/xor; unmeasured.
const IXOR_C4: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), Fitted, FIT_M435),
    f!("a_size", [(8, 1)], Size(SrcA), Fitted, FIT_M435),
    f!("a", [(9, 6)], Gpr(SrcA), Fitted, FIT_M435),
    f!("a_keep", [(15, 1)], Modifier, Fitted, FIT_M435),
    f!("rel_b", [(20, 1)], Release(SrcB), Fitted, FIT_M435),
    raw!("b2_hi", 21, 3),
    f!("b_size", [(24, 1)], Size(SrcB), Fitted, FIT_M435),
    f!("b", [(25, 6)], Gpr(SrcB), Fitted, FIT_M435),
    f!("b_keep", [(31, 1)], Modifier, Fitted, FIT_M435),
];

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    form!("uniform_mov", UniformMove, 4, Hardware, ET, [(0, 4, 0xb), (16, 8, 0x01)], UMOV, [rch!(Dst, 15, Hardware)]),
    form!("funary", FUnary, 10, CorpusOnly, ET, [(0, 4, 0xb), (16, 8, 0x0e)], FUNARY, []),
    // byte2 bits 17..18 set: the extended logic family (release variants 0x06/0x07/0x16/0x26 ..
    // included; EXP-M4-35's b_alu10_lo6/lo7 and funary_imm records are members).
    form!("ilogic_ub", ILogic, 10, Fitted, FIT_M435, [(0, 4, 0xb), (16, 1, 1), (17, 2, 3), (22, 2, 0), (39, 1, 0), (41, 1, 1)], ILOGIC_UB, [rch!(Dst, 15, Hardware), rch!(SrcA, 63, Hardware)]),
    form!("ilogic", ILogic, 10, Hardware, ET, [(0, 4, 0xb), (17, 2, 3), (22, 2, 0)], ILOGIC, [rch!(Dst, 15, Hardware), rch!(SrcA, 63, Hardware), rch!(SrcB, 63, Hardware)]),
    form!("ixor_c4", ILogic, 4, Fitted, FIT_M435, [(0, 4, 0xb), (16, 4, 0xb)], IXOR_C4, [rch!(Dst, 15, Fitted), rch!(SrcA, 63, Fitted), rch!(SrcB, 63, Fitted)]),
    // `Xb 00 20 00` = r[X] = 0: fitted to ADevWithAnIdea/agx-re EXP-0010 prodloop 0x36 (A18 Pro
    // run log, `for (i = 0; ..)`: the loop counter r3 must start at 0 for the measured
    // 1, 4, 13 .. 3280; byte1 0x00 read as the r0.l descriptor would start it at gid).
    form!("zero_c2", RegMove, 4, Fitted, EXP10_PRODLOOP, [(0, 4, 0xb), (8, 8, 0), (16, 8, 0x20), (24, 8, 0)], &[f!("dst", [(4, 4)], Gpr(Dst), Fitted, EXP10_PRODLOOP)], []),
    form!("move_c2", RegMove, 4, CorpusOnly, LEN, [(0, 4, 0xb), (20, 4, 0x2)], MOVE4_LO, []),
    form!("move_c0", RegMove, 4, CorpusOnly, LEN, [(0, 4, 0xb), (16, 4, 0x0)], MOVE4, []),
    form!("move_c1", RegMove, 4, CorpusOnly, LEN, [(0, 4, 0xb), (16, 4, 0x1)], MOVE4, []),
    form!("move_c9", RegMove, 4, CorpusOnly, LEN, [(0, 4, 0xb), (16, 4, 0x9)], MOVE4, []),
    form!("move_cc", RegMove, 4, CorpusOnly, LEN, [(0, 4, 0xb), (16, 4, 0xc)], MOVE4, []),
    // Remaining members follow byte2 bit 18 (the compact/long bit of the float ALU, TellowKrinkle's
    // M3 "L" bit): clear = 4 bytes (`1b 0b 1a 03` and-compact in bitops__and_u32v4, `0b 97 33 01`
    // in int_arith__long_div), set = 10 bytes; byte2 low nibble 0xc stays 4 (`2b 05 3c 06`
    // shift-amount op, isadb.py EXP-M4-01). Corpus tiling.
    form!("b_alu10_x", Opaque, 10, CorpusOnly, CORPUS, [(0, 4, 0xb), (18, 1, 1)], ALU10_X18, []),
    form!("move_x", RegMove, 4, CorpusOnly, CORPUS, [(0, 4, 0xb), (18, 1, 0)], MOVE4_X18, []),
    // byte0 low nibble 3 (bit 3 clear): the same sub-families with a 16-bit destination. The
    // 10-byte members are required by corpus tiling (`23 04 0f bf 10 02 00 00 00 00` in
    // EXP-0012 tg_shift1); the 4-byte zero-extend member is measured (EXP-0161, G17P).
    form!("logic16", Opaque, 10, CorpusOnly, CORPUS, [(0, 4, 0x3), (17, 7, 0xf)], ALU10_16, []),
    form!("alu10_16_f", Opaque, 10, CorpusOnly, CORPUS, [(0, 4, 0x3), (16, 4, 0xf)], ALU10, []),
    form!("alu10_16_e", Opaque, 10, CorpusOnly, CORPUS, [(0, 4, 0x3), (16, 4, 0xe)], ALU10, []),
    form!("alu10_16_7", Opaque, 10, CorpusOnly, CORPUS, [(0, 4, 0x3), (16, 4, 0x7)], ALU10, []),
];
const _: &[Field] = ALU10_FREE_B2;

//! 32-bit float ALU, byte-0 low nibble 9 (bit 3 set: 32-bit destination).
//!
//! Layout facts: niklassheth/agx-re:docs/isa/encoding-tables.md `falu2`/`falu2i`/`falu2_uni`/
//! `falu3` (register map measured on T8132 by EXP-M4-38; minifloat EXP-0006; lifetime bits
//! EXP-0160/0165); lengths: 4 when (byte2 & 7) < 2, else 6 + 2·(byte4 & 3) (same file,
//! "Length rule", EXP-0228 / EXP-M4-10); reach: GravityLinux/mesa agx_apple9_machine.c.

use super::src::{CORPUS, ET, MC, PK, SB};
use crate::form::{Field, Form, Kind::*, Role::*, SlotLayout::*};

/// Shared compact two-source skeleton (6-byte register form and its 8/10/12-byte extensions).
macro_rules! f2_fields {
    ($($tail:expr),*) => {
        &[
            f!("dst", [(4, 4), (22, 2), (44, 1)], Gpr(Dst), Hardware, ET),
            f!("a_size", [(8, 1)], Size(SrcA), Hardware, ET),
            f!("a", [(9, 6), (40, 1)], Gpr(SrcA), Hardware, ET),
            f!("a_keep", [(15, 1)], Modifier, CorpusOnly, PK),
            f!("rel_a", [(19, 1)], Release(SrcA), Hardware, ET),
            f!("rel_b", [(20, 1)], Release(SrcB), Hardware, ET),
            f!("publish", [(21, 1)], Publish, Hardware, ET),
            f!("b_size", [(24, 1)], Size(SrcB), Hardware, ET),
            f!("b", [(25, 6), (42, 1)], Gpr(SrcB), Hardware, ET),
            f!("b_keep", [(31, 1)], Modifier, CorpusOnly, PK),
            raw!("ctrl", 34, 5),
            f!("b_neg", [(43, 1)], Modifier, Hardware, ET),
            $($tail),*
        ]
    };
}

const F2: &[Field] = f2_fields!(f!("wait", [(45, 3)], Wait(Index45), Hardware, SB));

// Extended 8/10/12-byte forms. Byte7 bit 1 (instruction bit 57) is the output clamp
// (`09 05 1c 01 01 00 00 82` = saturate(a+b), EXP-M4-10 splice, measured). The slot field
// moves: EXP-M4-54 mixed bf16 `09 01 1c 04 01 00 00 81` consumes a slot-6 load with bits
// 45..47 clear and bit 63 set, which is the split one-hot layout of the extended logic form
// (45..47 slots 1..3, 61..63 slots 4..6); one hardware-run program, so corpus-only. Bit 56
// separates that bf16-source kernel from the f16 ones (sim/ISA-REQUESTS.md item 6): hypothesis.
const M54X: &str = "niklassheth/agx-re:experiments/EXP-M4-54-sfu-source-controls (mixed bf16)";
macro_rules! f2x_fields {
    ($($tail:expr),*) => {
        f2_fields!(
            f!("wait", [(45, 3), (61, 3)], Wait(MaskSplit45_61), CorpusOnly, M54X),
            raw!("b6", 48, 8),
            f!("b_bf16", [(56, 1)], Modifier, Hypothesis, M54X),
            f!("saturate", [(57, 1)], Modifier, Hardware, ET),
            raw!("b7_mid", 58, 3)
            $(, $tail)*
        )
    };
}
const F2_8: &[Field] = f2x_fields!();
const F2_10: &[Field] = f2x_fields!(raw!("ext", 64, 16));
const F2_12: &[Field] = f2x_fields!(raw!("ext", 64, 32));

// srcB is the 8-bit float immediate (bit 39 set, exponent nibble >= 8).
const F2I: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), Hardware, ET),
    f!("imm", [(8, 7), (19, 1)], ImmF8(SrcB), Hardware, ET),
    f!("flags", [(20, 4)], Modifier, CorpusOnly, ET),
    f!("a_size", [(24, 1)], Size(SrcA), Hardware, ET),
    f!("a", [(25, 6)], Gpr(SrcA), Hardware, ET),
    raw!("a_top", 31, 1),
    raw!("ctrl", 34, 5),
    f!("mods", [(40, 5)], Modifier, CorpusOnly, ET),
    f!(
        "wait",
        [(45, 3)],
        Wait(Index45),
        Hardware,
        "niklassheth/agx-re:experiments/EXP-M4-44-falu2i-slot-selector"
    ),
];

// srcB is a uniform register (bit 39 set, bit 15 clear): byte1 = (ureg<<1)|is32.
const F2U: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), Hardware, ET),
    f!("b_size", [(8, 1)], Size(SrcB), Hardware, ET),
    f!("b", [(9, 6)], Uniform(SrcB), Hardware, ET),
    f!("flags", [(19, 5)], Modifier, CorpusOnly, ET),
    f!("a_size", [(24, 1)], Size(SrcA), Hardware, ET),
    f!("a", [(25, 7)], Gpr(SrcA), CorpusOnly, ET),
    raw!("ctrl", 34, 5),
    f!("mods", [(40, 5)], Modifier, CorpusOnly, ET),
    f!("wait", [(45, 3)], Wait(Index45), CorpusOnly, SB),
];

// Three-source FMA: sources are (reg<<1)|is32 descriptors in bytes 1/3/5 with bit-6 register
// extensions at bits 56/58/38 and the destination's at bit 60 (GravityLinux/mesa
// agx_apple9_machine.c float3_extended, r0..r95 measured); slot index at bits 61..63.
macro_rules! f3_fields {
    ($($tail:expr),*) => {
        &[
            f!("dst", [(4, 4), (22, 2), (60, 1)], Gpr(Dst), Hardware, MC),
            f!("a_size", [(8, 1)], Size(SrcA), Hardware, ET),
            f!("a", [(9, 6), (56, 1)], Gpr(SrcA), Hardware, MC),
            f!("a_keep", [(15, 1)], Modifier, CorpusOnly, PK),
            f!("rel_a", [(19, 1)], Release(SrcA), Hardware, ET),
            f!("rel_b", [(20, 1)], Release(SrcB), Hardware, ET),
            f!("publish", [(21, 1)], Publish, Hardware, ET),
            f!("b_size", [(24, 1)], Size(SrcB), Hardware, ET),
            f!("b", [(25, 6), (58, 1)], Gpr(SrcB), Hardware, MC),
            f!("b_keep", [(31, 1)], Modifier, CorpusOnly, PK),
            raw!("ctrl", 34, 4),
            f!("rel_c", [(39, 1)], Release(SrcC), CorpusOnly, PK),
            raw!("c_b0", 40, 1),
            f!("c", [(41, 6), (38, 1)], Gpr(SrcC), Hardware, MC),
            f!("c_keep", [(47, 1)], Modifier, CorpusOnly, PK),
            raw!("b6", 48, 8),
            raw!("b7_1", 57, 1),
            f!("neg_ab", [(59, 1)], Modifier, CorpusOnly, ET),
            f!("wait", [(61, 3)], Wait(Index61), Hardware, SB),
            $($tail),*
        ]
    };
}
const F3: &[Field] = f3_fields!();
const F3_10: &[Field] = f3_fields!(raw!("ext", 64, 16));
const F3_12: &[Field] = f3_fields!(raw!("ext", 64, 32));

// 4-byte compact form (bit 18 clear): reduction accumulate for op-selects 0/1 (ADevWithAnIdea/agx-re
// EXP-0025/0228, G17P). Bit 18 as the compact/long selector matches TellowKrinkle/applegpu's
// M3 "L" bit and every corpus occurrence of op-selects 2/3 (4-byte spacing), so op-selects 2/3
// are compact too (corpus-only).
// The destination is explicit, not an accumulator: EXP-M4-55 k_sqrt (hash-matched on M4)
// ends with `09 05 19 01` = r0 = r2 * r0 (sqrt = x * factor(x)), a = byte1 (reg<<1|is32),
// b = byte3. Bits 15/31 are the keep bits and bits 19/20/21 release A / release B / publish,
// at the positions of the long forms: k_sqrt (`19`: both sources released, r2 and the old r0
// are dead) reproduces the M4 output bit for bit under this reading, and k_sqrt_precise's
// `39 89 21 85` (keep both, publish) is r3 = r4 * r2 = x * factor(x) by data flow, which the
// 7-bit register reading (r68 * r66, never written) cannot be. Inferred from EXP-M4-55,
// hardware output reproduced; bits 22..23 stay raw. encoding-tables.md `falu_acc` agrees on
// bit 21: splicing byte2 0x18 <-> 0x38 leaves the result unchanged (RT-1a-FIX, measured).
const M455: &str = "niklassheth/agx-re:experiments/EXP-M4-55-sqrt-sine-assist";
const M455_LIFE: &str = "niklassheth/agx-re:experiments/EXP-M4-55-sqrt-sine-assist (k_sqrt: inferred, hardware output reproduced)";
const FC4: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), CorpusOnly, M455),
    f!("a_size", [(8, 1)], Size(SrcA), CorpusOnly, M455),
    f!("a", [(9, 6)], Gpr(SrcA), CorpusOnly, M455),
    f!("a_keep", [(15, 1)], Modifier, CorpusOnly, PK),
    f!("rel_a", [(19, 1)], Release(SrcA), CorpusOnly, M455_LIFE),
    f!("rel_b", [(20, 1)], Release(SrcB), CorpusOnly, M455_LIFE),
    f!("publish", [(21, 1)], Publish, CorpusOnly, M455_LIFE),
    raw!("b2_hi", 22, 2),
    f!("b_size", [(24, 1)], Size(SrcB), CorpusOnly, M455),
    f!("b", [(25, 6)], Gpr(SrcB), CorpusOnly, M455),
    f!("b_keep", [(31, 1)], Modifier, CorpusOnly, PK),
];

// Op-selects other than add/mul/fma: bits are real, meaning is not established.
const FOPQ6: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("opsel", 16, 3),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 34, 6),
    raw!("b5", 40, 8),
];
const FOPQ8: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("opsel", 16, 3),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 34, 6),
    raw!("b5", 40, 8),
    raw!("ext", 48, 16),
];
const FOPQ10: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("opsel", 16, 3),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 34, 6),
    raw!("b5", 40, 8),
    raw!("ext", 48, 32),
];
const FOPQ12: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("opsel", 16, 3),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 34, 6),
    raw!("b5", 40, 8),
    raw!("ext", 48, 48),
];

const FOPQ8I: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 32, 8),
    raw!("b5", 40, 8),
    raw!("ext", 48, 16),
];

// byte0 low nibble 1 (bit 3 clear: 16-bit destination, e.g. `31 01 3c 81 00 c2` in k_cvt_half):
// same compact rule (bit 18); the extension length for op-selects 4/5 with byte4&3 = 2 is 12,
// not 10 (`11 b1 1d 03 82 ..` in EXP-M4-54 rcp_half_neg, `21 06 3d 05 0a ..` in half_div),
// while the fma op-select keeps 10 (`11 82 26 84 06 85 ..` in bf16_fma). Corpus-only.
// 16-bit-destination multiply by an 8-bit float immediate, 12 bytes (`11 b1 1d 03 82 00 00 00 00
// 00 00 04`, EXP-M4-54 rcp_half_neg): the falu2i layout (minifloat at bits 8..14 + sign bit 19,
// bit 39 immediate, op-select 5 = multiply, source descriptor (reg<<1)|is32 in byte 3;
// encoding-tables.md `falu2i`, measured) with the byte4&3 = 2 extension and byte0 low nibble 1
// (16-bit destination). That kernel computes -(1/x) as r1.l = f16(r1 * -1.0) from the fp32
// reciprocal in r1, which reproduces the M4 output bit for bit (inferred, hardware output
// reproduced). Extension byte 11 (0x04 in all four 12-byte members of the corpus) is raw.
const M54H: &str = "niklassheth/agx-re:experiments/EXP-M4-54-sfu-source-controls (rcp_half_neg: inferred, hardware output reproduced)";
const H1I12: &[Field] = &[
    f!("dst", [(4, 4)], Gpr(Dst), CorpusOnly, M54H),
    f!("imm", [(8, 7), (19, 1)], ImmF8(SrcB), Hardware, ET),
    f!("flags", [(20, 4)], Modifier, CorpusOnly, ET),
    f!("a_size", [(24, 1)], Size(SrcA), CorpusOnly, M54H),
    f!("a", [(25, 6)], Gpr(SrcA), CorpusOnly, M54H),
    raw!("a_top", 31, 1),
    raw!("ctrl", 34, 5),
    f!("mods", [(40, 5)], Modifier, CorpusOnly, ET),
    f!("wait", [(45, 3)], Wait(Index45), CorpusOnly, SB),
    raw!("ext", 48, 48),
];

const H1Q4: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("opsel", 16, 2),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
];
const H1Q6: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 34, 6),
    raw!("b5", 40, 8),
];
const H1Q6O: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("opsel", 16, 1),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 34, 6),
    raw!("b5", 40, 8),
];
const H1Q8O: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("opsel", 16, 1),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 34, 6),
    raw!("b5", 40, 8),
    raw!("ext", 48, 16),
];
const H1Q12O: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("opsel", 16, 1),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 34, 6),
    raw!("b5", 40, 8),
    raw!("ext", 48, 48),
];
const H1Q8: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 34, 6),
    raw!("b5", 40, 8),
    raw!("ext", 48, 16),
];
const H1Q10: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 34, 6),
    raw!("b5", 40, 8),
    raw!("ext", 48, 32),
];
const H1Q12: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 34, 6),
    raw!("b5", 40, 8),
    raw!("ext", 48, 48),
];
const H1Q8I: &[Field] = &[
    raw!("dst", 4, 4),
    raw!("b1", 8, 8),
    raw!("b2_hi", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 32, 8),
    raw!("b5", 40, 8),
    raw!("ext", 48, 16),
];

const R2: [crate::form::Reach; 3] = [
    rch!(Dst, 95, Hardware),
    rch!(SrcA, 95, Hardware),
    rch!(SrcB, 95, Hardware),
];

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    form!("fadd_acc", FAdd, 4, CorpusOnly, ET, [(0, 4, 9), (16, 3, 0)], FC4, []),
    form!("fmul_acc", FMul, 4, CorpusOnly, M455, [(0, 4, 9), (16, 3, 1)], FC4, []),
    form!("falu_c4_2", Opaque, 4, CorpusOnly, CORPUS, [(0, 4, 9), (16, 3, 2)], FC4, []),
    form!("falu_c4_3", Opaque, 4, CorpusOnly, CORPUS, [(0, 4, 9), (16, 3, 3)], FC4, []),
    // op-select 7 (fragment interpolation multiply, EXP-0037 `fmul_interp`): 8 bytes in every
    // fragment program of the corpus (`X9 .. 2f/3f .. 00 <slot> 00 00`).
    form!("fmul_interp", Opaque, 8, CorpusOnly, CORPUS, [(0, 4, 9), (16, 3, 7)], FOPQ8I, []),
    // immediate and uniform overloads of the 6-byte form
    form!("fadd_imm", FAdd, 6, Hardware, ET, [(0, 4, 9), (16, 3, 4), (32, 2, 0), (39, 1, 1), (15, 1, 1)], F2I, [rch!(Dst, 15, Hardware), rch!(SrcA, 63, Hardware)]),
    form!("fmul_imm", FMul, 6, Hardware, ET, [(0, 4, 9), (16, 3, 5), (32, 2, 0), (39, 1, 1), (15, 1, 1)], F2I, [rch!(Dst, 15, Hardware), rch!(SrcA, 63, Hardware)]),
    form!("fadd_uni", FAdd, 6, CorpusOnly, ET, [(0, 4, 9), (16, 3, 4), (32, 2, 0), (39, 1, 1), (15, 1, 0)], F2U, [rch!(Dst, 15, CorpusOnly)]),
    form!("fmul_uni", FMul, 6, CorpusOnly, ET, [(0, 4, 9), (16, 3, 5), (32, 2, 0), (39, 1, 1), (15, 1, 0)], F2U, [rch!(Dst, 15, CorpusOnly)]),
    form!("fadd", FAdd, 6, Hardware, ET, [(0, 4, 9), (16, 3, 4), (32, 2, 0), (39, 1, 0), (41, 1, 0)], F2, [R2[0], R2[1], R2[2]]),
    form!("fmul", FMul, 6, Hardware, ET, [(0, 4, 9), (16, 3, 5), (32, 2, 0), (39, 1, 0), (41, 1, 0)], F2, [R2[0], R2[1], R2[2]]),
    form!("fadd_x8", FAdd, 8, CorpusOnly, ET, [(0, 4, 9), (16, 3, 4), (32, 2, 1), (39, 1, 0), (41, 1, 0)], F2_8, []),
    form!("fmul_x8", FMul, 8, CorpusOnly, ET, [(0, 4, 9), (16, 3, 5), (32, 2, 1), (39, 1, 0), (41, 1, 0)], F2_8, []),
    form!("fadd_x10", FAdd, 10, CorpusOnly, ET, [(0, 4, 9), (16, 3, 4), (32, 2, 2), (39, 1, 0), (41, 1, 0)], F2_10, []),
    form!("fmul_x10", FMul, 10, CorpusOnly, ET, [(0, 4, 9), (16, 3, 5), (32, 2, 2), (39, 1, 0), (41, 1, 0)], F2_10, []),
    form!("fadd_x12", FAdd, 12, CorpusOnly, ET, [(0, 4, 9), (16, 3, 4), (32, 2, 3), (39, 1, 0), (41, 1, 0)], F2_12, []),
    form!("fmul_x12", FMul, 12, CorpusOnly, ET, [(0, 4, 9), (16, 3, 5), (32, 2, 3), (39, 1, 0), (41, 1, 0)], F2_12, []),
    form!("ffma", FFma, 8, Hardware, ET, [(0, 4, 9), (16, 3, 6), (32, 2, 1)], F3, [rch!(Dst, 95, Hardware), rch!(SrcA, 95, Hardware), rch!(SrcB, 95, Hardware), rch!(SrcC, 95, Hardware)]),
    form!("ffma_x10", FFma, 10, CorpusOnly, ET, [(0, 4, 9), (16, 3, 6), (32, 2, 2)], F3_10, []),
    form!("ffma_x12", FFma, 12, CorpusOnly, ET, [(0, 4, 9), (16, 3, 6), (32, 2, 3)], F3_12, []),
    // 16-bit-destination variants (byte0 low nibble 1)
    form!("f16_c4", Opaque, 4, CorpusOnly, CORPUS, [(0, 4, 1), (18, 1, 0)], H1Q4, []),
    form!("f16_interp", Opaque, 8, CorpusOnly, CORPUS, [(0, 4, 1), (16, 3, 7)], H1Q8I, []),
    form!("f16_addmul6", Opaque, 6, CorpusOnly, CORPUS, [(0, 4, 1), (17, 2, 2), (32, 2, 0)], H1Q6O, []),
    form!("f16_addmul8", Opaque, 8, CorpusOnly, CORPUS, [(0, 4, 1), (17, 2, 2), (32, 2, 1)], H1Q8O, []),
    form!("hmul_imm12", FMul, 12, CorpusOnly, M54H, [(0, 4, 1), (16, 3, 5), (32, 2, 2), (39, 1, 1), (15, 1, 1)], H1I12, []),
    form!("f16_addmul12", Opaque, 12, CorpusOnly, CORPUS, [(0, 4, 1), (17, 2, 2), (32, 2, 2)], H1Q12O, []),
    form!("f16_fma6", Opaque, 6, CorpusOnly, CORPUS, [(0, 4, 1), (16, 3, 6), (32, 2, 0)], H1Q6, []),
    form!("f16_fma8", Opaque, 8, CorpusOnly, CORPUS, [(0, 4, 1), (16, 3, 6), (32, 2, 1)], H1Q8, []),
    form!("f16_fma10", Opaque, 10, CorpusOnly, CORPUS, [(0, 4, 1), (16, 3, 6), (32, 2, 2)], H1Q10, []),
    form!("f16_fma12", Opaque, 12, CorpusOnly, CORPUS, [(0, 4, 1), (16, 3, 6), (32, 2, 3)], H1Q12, []),
    // everything else in the group: length rule only
    form!("falu_q6", Opaque, 6, CorpusOnly, ET, [(0, 4, 9), (32, 2, 0)], FOPQ6, []),
    form!("falu_q8", Opaque, 8, CorpusOnly, ET, [(0, 4, 9), (32, 2, 1)], FOPQ8, []),
    form!("falu_q10", Opaque, 10, CorpusOnly, ET, [(0, 4, 9), (32, 2, 2)], FOPQ10, []),
    form!("falu_q12", Opaque, 12, CorpusOnly, ET, [(0, 4, 9), (32, 2, 3)], FOPQ12, []),
];

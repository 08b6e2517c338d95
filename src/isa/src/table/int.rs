//! Integer ALU: add/sub (0x9f/0x1f, 10 bytes), multiply-add (12 bytes), and the 0xa7/0x27
//! convert / shift / bitfield / count family.
//!
//! niklassheth/agx-re:docs/isa/encoding-tables.md `iadd2`, `imad`, `ishift`, `ibfe`, `cvt_f2i`,
//! `cvt_i2f`, `ibitcount` (add/sub polarity byte0 bit 7 and the byte1 bit 0 length selector
//! measured, EXP-0007/RT-1a-FIX; bits 12..17 six-slot wait mask EXP-M4-42; dst = byte3 >> 1
//! measured by dst sweeps). Source operand packing of iadd/imad differs between the project's
//! own hardware rounds (EXP-0154/0160/0216 disagree), so source fields are hypotheses here.

use super::src::{ET, LEN, M435};
use crate::form::{Field, Form, Kind::*, Role::*, SlotLayout::*};

// Register-source add (byte9 bit 0 set): GravityLinux/mesa pack_iadd (`9f 01 54 <dst<<1> 02 ..
// a8 17 05`): A at bits 42..48, B at 51..57, dst at 25..31; keeping A live sets bit 49 and
// clears bit 65, keeping B sets bit 58 and clears bit 66. r0..r95 (agx_apple9_machine.c
// INT_ADD_EXTENDED, hardware evidence).
const IADD_REG: &[Field] = &[
    raw!("srcB_reg_hi", 9, 3),
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, ET),
    f!("b2_fmt", [(18, 6)], Modifier, CorpusOnly, ET),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, ET),
    f!("opmode", [(32, 8)], Modifier, CorpusOnly, ET),
    raw!("a_lo", 40, 2),
    f!("a", [(42, 7)], Gpr(SrcA), Hardware, MC_IR),
    f!("a_keep", [(49, 1)], Modifier, CorpusOnly, MC_IR),
    raw!("b_lo", 50, 1),
    f!("b", [(51, 7)], Gpr(SrcB), Hardware, MC_IR),
    f!("b_keep", [(58, 1)], Modifier, CorpusOnly, MC_IR),
    f!("b7_hi", [(59, 5)], Modifier, CorpusOnly, ET),
    raw!("b8_0", 64, 1),
    f!("rel_a", [(65, 1)], Release(SrcA), CorpusOnly, MC_IR),
    f!("rel_b", [(66, 1)], Release(SrcB), CorpusOnly, MC_IR),
    f!("b8_hi", [(67, 5)], Modifier, CorpusOnly, ET),
    // bit 74 (B is a GPR, pack_integer_source's file bit) is a match bit: clear = `iadd_ru`
    raw!("b9_1", 73, 1),
    f!("b9_hi", [(75, 5)], Modifier, CorpusOnly, ET),
];

// Register + uniform add (byte9 bit 0 set, bit 2 clear): B from the uniform file
// (GravityLinux/mesa agx_apple9_ir.c pack_integer_source, read by the sim-oracles round,
// sim/ISA-REQUESTS.md item 13: file bits 72 + 2s, 1 = GPR; a uniform's index is the 7 value
// bits plus bit value+7; bits 65 + s are discard bits). Fitted to the hash-matched EXP-M4-35
// load_xor_chain5/chain6: `9f 01 54 0a 02 24 30 a8 15 01` is r5 = r9 + u6, and r6 is not written
// before it; `9f 01 54 06 03 24 4a a8 15 01` (r3 = r9 + u9) must add C3 to i, not i to itself.
// The GPR-GPR encodings (GravityLinux pack_iadd, EXP-M4-35 retain 0x48 `.. a8 17 05`) set bit 74.
const IADD_RU: &[Field] = &[
    raw!("srcB_reg_hi", 9, 3),
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, ET),
    f!("b2_fmt", [(18, 6)], Modifier, CorpusOnly, ET),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, ET),
    f!("opmode", [(32, 8)], Modifier, CorpusOnly, ET),
    raw!("a_lo", 40, 2),
    f!("a", [(42, 7)], Gpr(SrcA), Hardware, MC_IR),
    f!("a_keep", [(49, 1)], Modifier, CorpusOnly, MC_IR),
    raw!("b_lo", 50, 1),
    f!("b", [(51, 8)], Uniform(SrcB), Fitted, UNI_ADD),
    f!("b7_hi", [(59, 5)], Modifier, CorpusOnly, ET),
    raw!("b8_0", 64, 1),
    f!("rel_a", [(65, 1)], Release(SrcA), CorpusOnly, MC_IR),
    f!("rel_b", [(66, 1)], Modifier, Fitted, UNI_ADD),
    f!("b8_hi", [(67, 5)], Modifier, CorpusOnly, ET),
    raw!("b9_1", 73, 1),
    f!("b9_hi", [(75, 5)], Modifier, CorpusOnly, ET),
];
const UNI_ADD: &str = "GravityLinux/mesa:src/asahi/compiler/agx_apple9_ir.c pack_integer_source; fitted to ../shared/oracles/sim EXP-M4-35__load_xor_chain5/chain6";

// Immediate-source add (byte9 bit 0 clear): the EXP-M4-35 load_xor_load_distinct oracle
// (hash-matched on M4) computes r2 = r1 + 37 from `9f 11 54 04 03 4a 08 04 11 04`: the
// register sits in the B slot (bits 51..57) and K = bits 41..48; bit 58 keeps the register
// live (r1 is read again later in that program), bit 66 would release it.
//
// Result size (fitted to the hash-matched EXP-M4-35 programs): with bits 59..63 clear the add
// writes a 16-bit result into the half that byte3 bit 0 selects (`dst_hi`, the 16-bit
// `(reg<<1)|hi` register index of the 16-bit loads): load_xor_chain5 0x0e
// `9f 01 54 01 03 4a 48 04 ..` puts i+37 in r0.hi and 0x18 `9f 01 54 00 03 94 48 04 ..` i+74 in
// r0.lo, and 0x22 reads r0.hi back (i+37 survives the second add). With bits 59 and 63 set
// (`.. 88` / `.. 8c`, opmode 2) the result is 32 bits: load_xor_load_retain 0x52 r1 = r3 + 64 is
// a full store index. Bit 59 is read as the size here (59 and 63 always appear together).
// Both are modifiers, not operand fields: the compiler keeps its template's (32-bit) values.
const IADD_IMM: &[Field] = &[
    raw!("srcB_reg_hi", 9, 3),
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, ET),
    f!("b2_fmt", [(18, 6)], Modifier, CorpusOnly, ET),
    f!("dst_hi", [(24, 1)], Modifier, Fitted, M435),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, ET),
    f!("opmode", [(32, 8)], Modifier, CorpusOnly, ET),
    raw!("imm_b0", 40, 1),
    f!("b_imm", [(41, 8)], ImmU(SrcB), Hardware, M435),
    raw!("srcB_ext_lo", 49, 2),
    f!("a", [(51, 7)], Gpr(SrcA), Hardware, M435),
    f!("a_keep", [(58, 1)], Modifier, CorpusOnly, M435),
    f!("dst_size", [(59, 1)], Modifier, Fitted, M435),
    f!("b7_hi", [(60, 4)], Modifier, CorpusOnly, ET),
    raw!("b8_0", 64, 2),
    f!("rel_a", [(66, 1)], Release(SrcA), CorpusOnly, MC_IR),
    f!("b8_hi", [(67, 5)], Modifier, CorpusOnly, ET),
    f!("b9_hi", [(73, 7)], Modifier, CorpusOnly, ET),
];

// Multiply-add: GravityLinux/mesa pack_imad (`9f 00 54 <dst<<1> 02 .. d0 2f 2a 00`): A at bits
// 42..48, B at 51..57, C at 60..66; keep bits 49/58/67 with release bits 73/74/75. This reading
// also explains niklassheth's EXP-0160/0216 sweeps (byte5 = reg<<2, byte6 = reg<<3, byte7 low
// bits = B's r32/r64 bits: "drop the product" = an unseeded high register, 3 = r96+ faults).
// The M4 EXP-M4-35 alu_xor_alu imads read r1 (thread id) as A and keep it live (bit 73 clear),
// as the program needs. Byte8 high nibble: 0xd low 32 bits, 0xe high 32 bits.
const IMAD: &[Field] = &[
    raw!("b1hi", 9, 3),
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, ET),
    f!("b2_fmt", [(18, 6)], Modifier, CorpusOnly, ET),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, ET),
    f!("opmode", [(32, 8)], Modifier, CorpusOnly, ET),
    raw!("a_lo", 40, 2),
    f!("a", [(42, 7)], Gpr(SrcA), Hardware, MC_IR),
    f!("a_keep", [(49, 1)], Modifier, CorpusOnly, MC_IR),
    raw!("b_lo", 50, 1),
    f!("b", [(51, 7)], Gpr(SrcB), Hardware, MC_IR),
    f!("b_keep", [(58, 1)], Modifier, CorpusOnly, MC_IR),
    raw!("c_lo", 59, 1),
    f!("c", [(60, 7)], Gpr(SrcC), Hardware, MC_IR),
    f!("c_keep", [(67, 1)], Modifier, CorpusOnly, MC_IR),
    f!("mulsel", [(68, 4)], OpSelect, CorpusOnly, ET),
    raw!("b9_0", 72, 1),
    f!("rel_a", [(73, 1)], Release(SrcA), CorpusOnly, MC_IR),
    f!("rel_b", [(74, 1)], Release(SrcB), CorpusOnly, MC_IR),
    f!("rel_c", [(75, 1)], Release(SrcC), CorpusOnly, MC_IR),
    f!("b9_hi", [(76, 4)], Modifier, CorpusOnly, ET),
    f!("b10", [(80, 8)], Modifier, CorpusOnly, ET),
    f!("b11", [(88, 8)], Modifier, CorpusOnly, ET),
];

// Multiply-add with B and C from the uniform file (GravityLinux/mesa agx_apple9_ir.c
// pack_integer_source, read by the sim-oracles round, sim/ISA-REQUESTS.md item 13): byte10 bits
// 81 + 2s say source s is a GPR (1) or a uniform (0); a uniform's index is the 7 value bits plus
// bit value+7 (the GPR form's keep bit) as index bit 7; bits 73 + s are "discard" bits, not
// releases, for a uniform. EXP-M4-35 alu_xor_alu `9f 10 54 00 03 04 12 30 d0 2d 02 00` is
// r0 = r1 * u2 + u3 (and `.. 20 50 ..` r2 = r1 * u4 + u5), whose M4 output (hash-matched) is
// i*0x01010101 + 0x10203040 xor i*0x11111111 + 0x76543210: fitted, the uniform words are the
// constant program's, supplied by the oracle harness (sim/src/preload.rs).
const IMAD_U: &[Field] = &[
    raw!("b1hi", 9, 3),
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, ET),
    f!("b2_fmt", [(18, 6)], Modifier, CorpusOnly, ET),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, ET),
    f!("opmode", [(32, 8)], Modifier, CorpusOnly, ET),
    raw!("a_lo", 40, 2),
    f!("a", [(42, 7)], Gpr(SrcA), Hardware, MC_IR),
    f!("a_keep", [(49, 1)], Modifier, CorpusOnly, MC_IR),
    raw!("b_lo", 50, 1),
    f!("b", [(51, 7)], Uniform(SrcB), Fitted, UNI_SRC),
    raw!("b_keep", 58, 1),
    raw!("c_lo", 59, 1),
    f!("c", [(60, 7)], Uniform(SrcC), Fitted, UNI_SRC),
    raw!("c_keep", 67, 1),
    f!("mulsel", [(68, 4)], OpSelect, CorpusOnly, ET),
    raw!("b9_0", 72, 1),
    f!("rel_a", [(73, 1)], Release(SrcA), CorpusOnly, MC_IR),
    f!("rel_b", [(74, 1)], Modifier, Fitted, UNI_SRC),
    f!("rel_c", [(75, 1)], Modifier, Fitted, UNI_SRC),
    f!("b9_hi", [(76, 4)], Modifier, CorpusOnly, ET),
    // byte10 without the three file bits (match bits 81/83/85)
    f!(
        "b10_free",
        [(80, 1), (82, 1), (84, 1), (86, 2)],
        Raw,
        Hypothesis,
        ""
    ),
    f!("b11", [(88, 8)], Modifier, CorpusOnly, ET),
];
const UNI_SRC: &str = "GravityLinux/mesa:src/asahi/compiler/agx_apple9_ir.c pack_integer_source; fitted to ../shared/oracles/sim EXP-M4-35__alu_xor_alu";

// Common unary/convert skeleton of the 0x27/0xa7 family: dst = byte3>>1 (r0..r95),
// src = byte5>>2 (r0..r63), bits 12..17 wait mask (cvt_f2i/cvt_i2f/ibitcount rows, measured).
macro_rules! un_fields {
    ([$($head:expr),*] $($tail:expr),*) => {
        &[
            $($head,)*
            f!("wait", [(12, 6)], Wait(Mask12), Hardware, ET),
            f!("mode", [(18, 6)], Modifier, CorpusOnly, ET),
            raw!("dst_b0", 24, 1),
            f!("dst", [(25, 7)], Gpr(Dst), Hardware, ET),
            f!("src_class", [(32, 8)], Modifier, CorpusOnly, ET),
            raw!("src_b01", 40, 2),
            f!("src", [(42, 6)], Gpr(SrcA), Hardware, ET),
            f!("op_lo", [(48, 5)], OpSelect, CorpusOnly, ET),
            f!("rel", [(53, 1)], Release(SrcA), CorpusOnly, MC_IR),
            f!("op_hi", [(54, 2)], OpSelect, CorpusOnly, ET),
            f!("b7_lo", [(56, 6)], Modifier, CorpusOnly, ET),
            f!("signed", [(62, 1)], Modifier, Hardware, ET),
            raw!("b7_7", 63, 1),
            $($tail),*
        ]
    };
}
const UN8: &[Field] = un_fields!([]);
const UN8_B8: &[Field] = un_fields!([f!("form", [(8, 1)], OpSelect, Hardware, ET)]);
const UN8_B8_11: &[Field] = un_fields!([f!("form", [(8, 4)], OpSelect, CorpusOnly, ET)]);
const UN10_B9_11: &[Field] = un_fields!([f!("form", [(9, 3)], OpSelect, CorpusOnly, ET)] f!("b8", [(64, 8)], Modifier, CorpusOnly, ET), raw!("b9", 72, 8));
const UN12: &[Field] = un_fields!([] f!("b8", [(64, 8)], Modifier, CorpusOnly, ET), raw!("b9", 72, 8), raw!("b10", 80, 16));
const UN12_B8: &[Field] = un_fields!([f!("form", [(8, 1)], OpSelect, CorpusOnly, ET)] f!("b8", [(64, 8)], Modifier, CorpusOnly, ET), raw!("b9", 72, 8), raw!("b10", 80, 16));
const UN12_B9_11: &[Field] = un_fields!([f!("form", [(9, 3)], OpSelect, CorpusOnly, ET)] f!("b8", [(64, 8)], Modifier, CorpusOnly, ET), raw!("b9", 72, 8), raw!("b10", 80, 16));

/// GravityLinux/mesa's packer (comments cite the T8132 experiments that validated each form).
const MC_IR: &str = "GravityLinux/mesa:src/asahi/compiler/agx_apple9_ir.c";

// int->float `a7 07 54 <dst<<1> 03 <src<<2> <8c keep | ac last use> <60 signed | 20 unsigned>`:
// byte6 bit 5 releases the source, byte7 bit 6 selects a signed source (EXP-0013/0144, packer).
const I2F: &[Field] = un_fields!([]);
// float->int `27 07 54 <dst<<1> 03 <src<<2> b4 <48 signed | 08 unsigned> 03 00`: byte7 bit 6
// signed result, byte8 bit 1 round toward zero (EXP-0013/0144, EXP-M4-42/43).
const F2I: &[Field] =
    un_fields!([] f!("b8", [(64, 8)], Modifier, CorpusOnly, ET), raw!("b9", 72, 8));
// Shifts (GravityLinux/mesa agx_apple9_ir.c pack_shift and its packer vectors in
// test-apple9.cpp RegisterShiftsHaveIndependentSourceReleaseFlags; that backend runs on T8132
// and its encoding table marks all four shift encodings hardware-validated). Common layout:
// dst bits 25..31, value source bits 42..48 (7 bits), immediate amount bits 50..54, register
// amount bits 51..57; the datapaths have dedicated source-release bits (arithmetic 62/63,
// logical 72/73; set = last use).
const PS: &str = "GravityLinux/mesa:src/asahi/compiler/agx_apple9_ir.c pack_shift";
const ISHR: &[Field] = &[
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, ET),
    f!("mode", [(18, 6)], Modifier, CorpusOnly, ET),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, MC_IR),
    f!("src_class", [(32, 8)], Modifier, CorpusOnly, ET),
    raw!("src_b01", 40, 2),
    f!("src", [(42, 7)], Gpr(SrcA), Hardware, MC_IR),
    raw!("amount_lo", 49, 1),
    f!("amount", [(50, 5)], ImmU(SrcB), Hardware, MC_IR),
    raw!("amount_hi", 55, 1),
    f!("rel_a", [(62, 1)], Release(SrcA), Hardware, PS),
    f!("b8", [(64, 8)], Modifier, CorpusOnly, MC_IR),
    raw!("b9", 72, 8),
];
// Arithmetic shift right by a register amount (10 bytes, byte7 base 0xd8).
const ISHR_REG: &[Field] = &[
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, PS),
    f!("mode", [(18, 6)], Modifier, CorpusOnly, PS),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, PS),
    f!("src_class", [(32, 8)], Modifier, CorpusOnly, PS),
    raw!("src_b01", 40, 2),
    f!("src", [(42, 7)], Gpr(SrcA), Hardware, PS),
    raw!("b6_1", 49, 2),
    f!("b", [(51, 7)], Gpr(SrcB), Hardware, PS),
    f!("rel_a", [(62, 1)], Release(SrcA), Hardware, PS),
    f!("rel_b", [(63, 1)], Release(SrcB), Hardware, PS),
    f!("b8", [(64, 8)], Modifier, CorpusOnly, PS),
    raw!("b9", 72, 8),
];
// Logical shifts (12 bytes): byte0 0xa7 = right, 0x27 = left; byte10 0x01 = immediate amount,
// 0x05 = register amount.
const LSH_IMM: &[Field] = &[
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, PS),
    f!("mode", [(18, 6)], Modifier, CorpusOnly, PS),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, PS),
    f!("src_class", [(32, 8)], Modifier, CorpusOnly, PS),
    raw!("src_b01", 40, 2),
    f!("src", [(42, 7)], Gpr(SrcA), Hardware, PS),
    raw!("amount_lo", 49, 1),
    f!("amount", [(50, 5)], ImmU(SrcB), Hardware, PS),
    raw!("b6_7", 55, 9),
    f!("b8", [(64, 8)], Modifier, CorpusOnly, PS),
    f!("rel_a", [(72, 1)], Release(SrcA), Hardware, PS),
    raw!("b9_1", 73, 1),
    f!("b9_hi", [(74, 6)], Modifier, CorpusOnly, PS),
    raw!("b11", 88, 8),
];
const LSH_REG: &[Field] = &[
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, PS),
    f!("mode", [(18, 6)], Modifier, CorpusOnly, PS),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, PS),
    f!("src_class", [(32, 8)], Modifier, CorpusOnly, PS),
    raw!("src_b01", 40, 2),
    f!("src", [(42, 7)], Gpr(SrcA), Hardware, PS),
    raw!("b6_1", 49, 2),
    f!("b", [(51, 7)], Gpr(SrcB), Hardware, PS),
    raw!("b7_hi", 58, 6),
    f!("b8", [(64, 8)], Modifier, CorpusOnly, PS),
    f!("rel_a", [(72, 1)], Release(SrcA), Hardware, PS),
    f!("rel_b", [(73, 1)], Release(SrcB), Hardware, PS),
    f!("b9_hi", [(74, 6)], Modifier, CorpusOnly, PS),
    raw!("b11", 88, 8),
];

const RI: [crate::form::Reach; 4] = [
    rch!(Dst, 94, Hardware),
    rch!(SrcA, 95, Hardware),
    rch!(SrcB, 95, Hardware),
    rch!(SrcC, 95, Hardware),
];

const RU: [crate::form::Reach; 2] = [rch!(Dst, 63, Hardware), rch!(SrcA, 63, Hardware)];

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    form!("iadd_ru", IAdd, 10, Fitted, UNI_ADD, [(0, 8, 0x9f), (8, 1, 1), (72, 1, 1), (74, 1, 0)], IADD_RU, [RI[0], RI[1]]),
    // the subtract twin of iadd_ru, by the shared layout (no hardware-run instance)
    form!("isub_ru", ISub, 10, CorpusOnly, UNI_ADD, [(0, 8, 0x1f), (8, 1, 1), (72, 1, 1), (74, 1, 0)], IADD_RU, []),
    form!("iadd_reg", IAdd, 10, Hardware, MC_IR, [(0, 8, 0x9f), (8, 1, 1), (72, 1, 1), (74, 1, 1)], IADD_REG, [RI[0], RI[1], RI[2]]),
    form!("isub_reg", ISub, 10, Hardware, MC_IR, [(0, 8, 0x1f), (8, 1, 1), (72, 1, 1), (74, 1, 1)], IADD_REG, [RI[0], RI[1], RI[2]]),
    form!("iadd", IAdd, 10, Hardware, M435, [(0, 8, 0x9f), (8, 1, 1), (72, 1, 0)], IADD_IMM, [RI[0], RI[1]]),
    form!("isub", ISub, 10, CorpusOnly, M435, [(0, 8, 0x1f), (8, 1, 1), (72, 1, 0)], IADD_IMM, []),
    form!("imad_u", IMad, 12, Fitted, UNI_SRC, [(0, 8, 0x9f), (8, 1, 0), (81, 1, 1), (83, 1, 0), (85, 1, 0)], IMAD_U, [RI[0], RI[1]]),
    form!("imad", IMad, 12, Hardware, MC_IR, [(0, 8, 0x9f), (8, 1, 0)], IMAD, [RI[0], RI[1], RI[2], RI[3]]),
    form!("imad_neg", IMad, 12, CorpusOnly, ET, [(0, 8, 0x1f), (8, 1, 0)], IMAD, []),
    // 0xa7: byte1 low nibble 7 -> 8-byte int->float; 4/5 -> 8-byte bit count; odd -> 10; even -> 12.
    form!("i2f", IntToFloat, 8, Hardware, ET, [(0, 8, 0xa7), (8, 4, 7)], I2F, [RU[0], RU[1]]),
    form!("bitrev_msb", BitCount, 8, Hardware, ET, [(0, 8, 0xa7), (9, 3, 2)], UN8_B8, []),
    // `a7 01 54 <dst<<1> 02 <src<<2> <amount<<2> 78 62 00`: arithmetic shift right by an immediate
    // (GravityLinux/mesa pack_ishr_imm: T8132 EXP-0139 validates every amount 0..31, r0..r15)
    // byte7 = 0x78 (0x38 with the source kept): bits 56..61 = 0b111000, bit 63 clear.
    form!("ishr_imm", ShiftRight, 10, Hardware, MC_IR, [(0, 8, 0xa7), (8, 4, 1), (56, 6, 0x38), (63, 1, 0)], ISHR, [rch!(Dst, 15, Hardware), rch!(SrcA, 15, Hardware)]),
    // `a7 01 54 a0 02 7c 01 1a e2 00` = r80 = r95 >> r64 (arithmetic, both sources kept):
    // byte7 bits 58..61 = 0b0110 (base 0xd8), byte8 0xe2.
    form!("ishr_reg", ShiftRight, 10, Hardware, PS, [(0, 8, 0xa7), (8, 4, 1), (58, 4, 0b0110)], ISHR_REG, [RI[0], RI[1], RI[2]]),
    // `a7 00 54 a0 02 7c 01 02 f0 10 05 00` = r80 = r95 >> r64 (logical, both sources kept).
    form!("ushr_reg", ShiftRight, 12, Hardware, PS, [(0, 8, 0xa7), (8, 4, 0), (80, 8, 0x05)], LSH_REG, [RI[0], RI[1], RI[2]]),
    form!("ushr_imm", ShiftRight, 12, Hardware, PS, [(0, 8, 0xa7), (8, 4, 0), (80, 8, 0x01)], LSH_IMM, [RI[0], RI[1]]),
    form!("a7_10", Opaque, 10, CorpusOnly, ET, [(0, 8, 0xa7), (8, 1, 1)], UN10_B9_11, []),
    form!("ibfe", BitfieldExtract, 12, CorpusOnly, ET, [(0, 8, 0xa7), (8, 1, 0)], UN12_B9_11, []),
    // 0x27: byte1 low nibble 7 -> 10-byte float->int; 0/1/2 -> 12-byte bitfield/rotate; else 8.
    form!("f2i", FloatToInt, 10, Hardware, ET, [(0, 8, 0x27), (8, 4, 7)], F2I, [RU[0], RU[1]]),
    form!("ishl_reg", ShiftLeft, 12, Hardware, PS, [(0, 8, 0x27), (8, 4, 0), (80, 8, 0x05)], LSH_REG, [RI[0], RI[1], RI[2]]),
    form!("ishl_imm", ShiftLeft, 12, Hardware, PS, [(0, 8, 0x27), (8, 4, 0), (80, 8, 0x01)], LSH_IMM, [RI[0], RI[1]]),
    form!("u27_12a", Opaque, 12, CorpusOnly, LEN, [(0, 8, 0x27), (9, 3, 0)], UN12_B8, []),
    form!("u27_12b", Opaque, 12, CorpusOnly, LEN, [(0, 8, 0x27), (8, 4, 2)], UN12, []),
    form!("popcount", BitCount, 8, Hardware, ET, [(0, 8, 0x27), (8, 4, 5)], UN8, []),
    form!("u27_8", Opaque, 8, CorpusOnly, LEN, [(0, 8, 0x27)], UN8_B8_11, []),
];

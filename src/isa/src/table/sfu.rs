//! Special-function unit, byte0 0x2f / 0xaf, 10 bytes.
//!
//! niklassheth/agx-re:docs/isa/encoding-tables.md `fspecial` (EXP-0161/0165/0237, G17P,
//! measured): byte3 = dst (reg = v>>1, r0..r95; >= r96 hangs), byte5 = src (reg = v>>2,
//! r0..r63), bits 12..17 = six-slot wait mask (EXP-M4-42). Source release: byte6 bit 4 on the
//! reciprocal datapath (byte6 bit 7 clear) and bit 5 on the standard datapath (bit 7 set):
//! EXP-M4-54 "forced_release" mutations on M4 set exactly those bits
//! (../shared/oracles/sim EXP-M4-54__mutation__*forced_release).

use super::src::{ET, GL_IR, LEN};
use crate::form::{Field, Form, Kind::*, Role::*, SlotLayout::*};

const M54: &str = "niklassheth/agx-re:experiments/EXP-M4-54-sfu-source-controls";

// Shared head: function select, wait mask, destination, source class and source register.
// Half-register bits (bit 24: 16-bit result goes to the high half; bit 41: 16-bit source is the
// high half) are measured by the EXP-M4-54 half kernels on M4 (hardware outputs only match this
// reading; sim/ISA-REQUESTS.md item 4).
macro_rules! sfu_fields {
    ($($tail:expr),*) => {
        &[
            f!("fn_hi", [(7, 1)], OpSelect, Hardware, ET),
            f!("fnclass", [(8, 2), (11, 1)], OpSelect, Hardware, ET),
            f!("wait", [(12, 6)], Wait(Mask12), Hardware, ET),
            raw!("src_cache", 18, 6),
            f!("dst_hi", [(24, 1)], Modifier, Hardware, M54),
            f!("dst", [(25, 7)], Gpr(Dst), Hardware, ET),
            f!("src_class", [(32, 8)], Modifier, Hardware, ET),
            raw!("src_b0", 40, 1),
            f!("src_hi", [(41, 1)], Modifier, Hardware, M54),
            f!("src", [(42, 6)], Gpr(SrcA), Hardware, ET),
            $($tail,)*
            raw!("sched_flag", 72, 8),
        ]
    };
}

// Reciprocal datapath (byte6 bit 7 clear). EXP-M4-54 (M4, measured): release byte6 bit 4,
// source type byte7 bits 3:2 (0 bf16, 1 f16, 2 f32), absolute source byte8 bit 6; result type
// byte8 bit 4 (f32 `10 48 20` vs f16 `10 46 30` in the native kernels: corpus diff).
const SFU_RCP: &[Field] = sfu_fields!(
    f!("fnsel_lo", [(48, 4)], OpSelect, Hardware, M54),
    f!("rel", [(52, 1)], Release(SrcA), Hardware, M54),
    f!("fnsel_hi", [(53, 2)], OpSelect, Hardware, M54),
    f!("precsel_lo", [(56, 2)], Modifier, CorpusOnly, M54),
    f!("src_type", [(58, 2)], Modifier, Hardware, M54),
    f!("precsel_hi", [(60, 4)], Modifier, CorpusOnly, M54),
    raw!("b8_lo", 64, 4),
    f!("res_f16", [(68, 1)], Modifier, CorpusOnly, M54),
    f!("rcp_flag", [(69, 1)], Modifier, CorpusOnly, ET),
    f!("src_abs", [(70, 1)], Modifier, Hardware, M54),
    raw!("b8_7", 71, 1)
);

// Standard datapath (byte6 bit 7 set). EXP-M4-54 (M4, measured): source type byte6 bits 4:3,
// release byte6 bit 5, absolute source byte7 bit 7, negate source byte8 bit 0 (niklassheth's
// G17P sweep read byte8 bit 0 as "NaN, do not emit"; the newer M4 native negate kernels win).
// Result type byte7 bit 5 (f32 `b0 40` vs f16 `ac 60`: corpus diff). Round mode = byte8 >> 1:
// 1 floor, 2 ceil, 3 trunc (encoding-tables.md 0x2/0x4/0x6; floor measured by EXP-M4-54).
const SFU_STD: &[Field] = sfu_fields!(
    f!("fnsel_lo", [(48, 3)], OpSelect, Hardware, M54),
    f!("src_type", [(51, 2)], Modifier, Hardware, M54),
    f!("rel", [(53, 1)], Release(SrcA), Hardware, M54),
    f!("fnsel_hi", [(54, 1)], OpSelect, Hardware, M54),
    f!("precsel", [(56, 5)], Modifier, CorpusOnly, M54),
    f!("res_f16", [(61, 1)], Modifier, CorpusOnly, M54),
    raw!("b7_6", 62, 1),
    f!("src_abs", [(63, 1)], Modifier, Hardware, M54),
    f!("src_neg", [(64, 1)], Modifier, Hardware, M54),
    f!("roundmode", [(65, 7)], Modifier, Hardware, ET)
);

// Varying interpolation (encoding-tables.md `iter`, HW-validated on A18 by EXP-0029). The T8132
// compiler packer (GravityLinux/mesa agx_apple9_ir.c ITER / ITER_COORD, run by its GLES suites)
// emits `2f 05 54 <dst<<1> 03 <cf<<1> <pos> 02 <loc> 00`: byte5 is the coefficient index (0 =
// 1/W, then user components, depth, point coordinate; flat/linear/perspective comes from the
// CF binding table), byte8 0x10 = pixel centre, 0x08/0x20 = the packed position in GPR byte6
// (kept / last use). Byte1 bit 3 ("lead" in encoding-tables.md) must stay clear: the packer
// notes it breaks implicit texture LOD in partially covered quads.
const ITER: &[Field] = &[
    raw!("b1_01", 8, 2),
    f!("lead", [(11, 1)], Modifier, CorpusOnly, ET),
    f!("wait", [(12, 6)], Wait(Mask12), CorpusOnly, ET),
    raw!("b2_hi", 18, 6),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, GL_IR),
    f!("coeff_sel", [(32, 8)], Modifier, CorpusOnly, ET),
    raw!("slot_b0", 40, 1),
    f!("slot", [(41, 7)], ImmU(SrcA), Hardware, GL_IR),
    f!("mode", [(48, 8)], Modifier, CorpusOnly, ET),
    raw!("b7", 56, 8),
    f!("loc", [(64, 8)], Modifier, Hardware, GL_IR),
    raw!("b9", 72, 8),
];

// `af` with a class-4 function: same byte roles as ITER by shape only.
const CLASS4: &[Field] = &[
    raw!("b1_01", 8, 2),
    f!("lead", [(11, 1)], Modifier, CorpusOnly, ET),
    f!("wait", [(12, 6)], Wait(Mask12), CorpusOnly, ET),
    raw!("b2_hi", 18, 6),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), CorpusOnly, ET),
    f!("coeff_sel", [(32, 8)], Modifier, CorpusOnly, ET),
    raw!("slot_b0", 40, 1),
    f!("slot", [(41, 7)], ImmU(SrcA), CorpusOnly, ET),
    f!("mode", [(48, 8)], Modifier, CorpusOnly, ET),
    raw!("b7", 56, 8),
    f!("loc", [(64, 8)], Modifier, CorpusOnly, ET),
    raw!("b9", 72, 8),
];

// Centroid/sample position `af 04 54 <dst<<1> 03 <cov<<2> 0a 01`: dst = packed interpolation
// position from the coverage mask in GPR `cov`, consumed by ITER with loc 0x08/0x20
// (GravityLinux/mesa agx_apple9_ir.c CENTROID_POSITION, authored M4 centroid shaders).
const CENTROID: &[Field] = &[
    raw!("fn_hi", 7, 1),
    raw!("b1", 8, 8),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, GL_IR),
    raw!("b4", 32, 8),
    raw!("b5_lo", 40, 2),
    f!("coverage", [(42, 6)], Gpr(SrcA), Hardware, GL_IR),
    raw!("b7", 56, 8),
];

const REACH: [crate::form::Reach; 2] = [rch!(Dst, 95, Hardware), rch!(SrcA, 63, Hardware)];

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    // 8-byte interpolate-at setup (fragment; ADevWithAnIdea/agx-re EXP-0029)
    form!("iter_setup", Iterate, 8, CorpusOnly, LEN, [(0, 7, 0x2f), (16, 8, 0x54), (48, 8, 0x0a)], CENTROID, []),
    // function classes with bit 2 set are not SFU functions (encoding-tables.md `fspecial`, G17P:
    // they store nothing or fault); 0x2f with such a class is the fragment varying iteration
    // (ADevWithAnIdea/agx-re EXP-0029 `iter`, `2f 05 54 ..`, 10 bytes)
    form!("iter", Iterate, 10, CorpusOnly, LEN, [(0, 8, 0x2f), (10, 1, 1)], ITER, []),
    form!("sfu_class4", Opaque, 10, CorpusOnly, ET, [(0, 8, 0xaf), (10, 1, 1)], CLASS4, []),
    form!("sfu_rcp", Sfu, 10, Hardware, ET, [(0, 7, 0x2f), (10, 1, 0), (55, 1, 0)], SFU_RCP, [REACH[0], REACH[1]]),
    form!("sfu", Sfu, 10, Hardware, ET, [(0, 7, 0x2f), (10, 1, 0), (55, 1, 1)], SFU_STD, [REACH[0], REACH[1]]),
];

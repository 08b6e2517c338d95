//! Special-function unit, byte0 0x2f / 0xaf, 10 bytes.
//!
//! niklassheth/agx-re:docs/isa/encoding-tables.md `fspecial` (EXP-0161/0165/0237, G17P,
//! measured): byte3 = dst (reg = v>>1, r0..r95; >= r96 hangs), byte5 = src (reg = v>>2,
//! r0..r63), bits 12..17 = six-slot wait mask (EXP-M4-42). Source release: byte6 bit 4 on the
//! reciprocal datapath (byte6 bit 7 clear) and bit 5 on the standard datapath (bit 7 set):
//! EXP-M4-54 "forced_release" mutations on M4 set exactly those bits
//! (../shared/oracles/sim EXP-M4-54__mutation__*forced_release).

use super::src::{ET, LEN};
use crate::form::{Field, Form, Kind::*, Role::*, SlotLayout::*};

const M54: &str = "niklassheth/agx-re:experiments/EXP-M4-54-sfu-source-controls";

macro_rules! sfu_fields {
    ($($mid:expr),*) => {
        &[
            f!("fn_hi", [(7, 1)], OpSelect, Hardware, ET),
            f!("fnclass", [(8, 4)], OpSelect, Hardware, ET),
            f!("wait", [(12, 6)], Wait(Mask12), Hardware, ET),
            raw!("src_cache", 18, 6),
            raw!("dst_b0", 24, 1),
            f!("dst", [(25, 7)], Gpr(Dst), Hardware, ET),
            f!("src_class", [(32, 8)], Modifier, Hardware, ET),
            raw!("src_b01", 40, 2),
            f!("src", [(42, 6)], Gpr(SrcA), Hardware, ET),
            $($mid,)*
            f!("precsel", [(56, 8)], Modifier, Hardware, M54),
            f!("roundmode", [(64, 8)], Modifier, Hardware, ET),
            raw!("sched_flag", 72, 8),
        ]
    };
}

const SFU_RCP: &[Field] = sfu_fields!(
    f!("fnsel_lo", [(48, 4)], OpSelect, Hardware, M54),
    f!("rel", [(52, 1)], Release(SrcA), Hardware, M54),
    f!("fnsel_hi", [(53, 2)], OpSelect, Hardware, M54)
);
const SFU_STD: &[Field] = sfu_fields!(
    f!("fnsel_lo", [(48, 5)], OpSelect, Hardware, M54),
    f!("rel", [(53, 1)], Release(SrcA), Hardware, M54),
    f!("fnsel_hi", [(54, 1)], OpSelect, Hardware, M54)
);

const REACH: [crate::form::Reach; 2] = [rch!(Dst, 95, Hardware), rch!(SrcA, 63, Hardware)];

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    // 8-byte interpolate-at setup (fragment; ADevWithAnIdea/agx-re EXP-0029)
    form!("iter_setup", Iterate, 8, CorpusOnly, LEN, [(0, 7, 0x2f), (16, 8, 0x54), (48, 8, 0x0a)], &[raw!("fn_hi", 7, 1), raw!("b1", 8, 8), raw!("b3", 24, 8), raw!("b4", 32, 16), raw!("b7", 56, 8)], []),
    form!("sfu_rcp", Sfu, 10, Hardware, ET, [(0, 7, 0x2f), (55, 1, 0)], SFU_RCP, [REACH[0], REACH[1]]),
    form!("sfu", Sfu, 10, Hardware, ET, [(0, 7, 0x2f), (55, 1, 1)], SFU_STD, [REACH[0], REACH[1]]),
];

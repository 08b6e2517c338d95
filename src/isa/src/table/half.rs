//! fp16 ALU, byte-0 low 3 bits 000; bit 3 selects the destination half (0 low, 1 high).
//!
//! niklassheth/agx-re:docs/isa/encoding-tables.md `half_alu` / `half_pack` (EXP-M4-38 register
//! map on T8132; EXP-0203 high-half write and source release, G17P); length table by
//! op-select o = byte2 & 7 and m = byte4 & 3 (same file, EXP-0180, G17P):
//! o in {0,1}: 4; o=4: 6/8/10/6; o=5: 6/8/10/8; o=6: 6/8/10/12; other o: 10/10/10/8.

use super::src::{ET, LEN};
use crate::form::{Field, Form, Kind::*, Role::*, SlotLayout::*};

macro_rules! h2_fields {
    ($($tail:expr),*) => {
        &[
            f!("dst_half", [(3, 1)], Half(Dst), Hardware, ET),
            f!("dst", [(4, 4), (22, 2), (44, 1)], Gpr(Dst), Hardware, ET),
            f!("a_half", [(8, 1)], Half(SrcA), Hardware, ET),
            f!("a", [(9, 6), (40, 1)], Gpr(SrcA), Hardware, ET),
            f!("a_keep", [(15, 1)], Modifier, CorpusOnly, super::src::PK),
            f!("rel_a", [(19, 1)], Release(SrcA), Hardware, ET),
            f!("rel_b", [(20, 1)], Release(SrcB), Hardware, ET),
            f!("publish", [(21, 1)], Publish, Hypothesis, ET),
            f!("b_half", [(24, 1)], Half(SrcB), Hardware, ET),
            f!("b", [(25, 6), (42, 1)], Gpr(SrcB), Hardware, ET),
            f!("b_keep", [(31, 1)], Modifier, CorpusOnly, super::src::PK),
            raw!("ctrl", 34, 6),
            raw!("b_file", 41, 1),
            f!("a_neg", [(43, 1)], Modifier, CorpusOnly, ET),
            // not swept for half ALU (encoding-tables.md) but slot 6 here is what the hash-matched
            // EXP-M4-54 half kernels consume (`10 03 1c 02 00 c0` after a slot-6 load)
            f!("wait", [(45, 3)], Wait(Index45), Hardware, "niklassheth/agx-re:experiments/EXP-M4-54-sfu-source-controls"),
            $($tail),*
        ]
    };
}
const H6: &[Field] = h2_fields!();
const H8: &[Field] = h2_fields!(raw!("ext", 48, 16));
const H10: &[Field] = h2_fields!(raw!("ext", 48, 32));
const H12: &[Field] = h2_fields!(raw!("ext", 48, 48));

// 4-byte compact form: writes one half lane (EXP-0203, G17P: `18 05 18 03` half2 add lane).
const HC4: &[Field] = &[
    f!("dst_half", [(3, 1)], Half(Dst), Hardware, ET),
    f!("dst", [(4, 4)], Gpr(Dst), Hardware, ET),
    f!("a_half", [(8, 1)], Half(SrcA), Hypothesis, ET),
    f!("a", [(9, 7)], Gpr(SrcA), Hypothesis, ET),
    raw!("opsel", 16, 1),
    raw!("b2", 19, 5),
    f!("b_half", [(24, 1)], Half(SrcB), Hypothesis, ET),
    f!("b", [(25, 7)], Gpr(SrcB), Hypothesis, ET),
];

const HQ8: &[Field] = &[
    raw!("dst", 3, 5),
    raw!("b1", 8, 8),
    raw!("opsel", 16, 3),
    raw!("b2", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 34, 6),
    raw!("ext", 40, 24),
];
const HQ10: &[Field] = &[
    raw!("dst", 3, 5),
    raw!("b1", 8, 8),
    raw!("opsel", 16, 3),
    raw!("b2", 19, 5),
    raw!("b3", 24, 8),
    raw!("b4", 32, 8),
    raw!("ext", 40, 40),
];

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    form!("hadd", HAdd, 6, Hardware, ET, [(0, 3, 0), (16, 3, 4), (32, 2, 0)], H6, [rch!(Dst, 95, Hardware), rch!(SrcA, 95, Hardware), rch!(SrcB, 95, Hardware)]),
    form!("hadd_x8", HAdd, 8, CorpusOnly, ET, [(0, 3, 0), (16, 3, 4), (32, 2, 1)], H8, []),
    form!("hadd_x10", HAdd, 10, CorpusOnly, ET, [(0, 3, 0), (16, 3, 4), (32, 2, 2)], H10, []),
    form!("hadd_x6", HAdd, 6, CorpusOnly, ET, [(0, 3, 0), (16, 3, 4), (32, 2, 3)], H6, []),
    form!("hmul", HMul, 6, Hardware, ET, [(0, 3, 0), (16, 3, 5), (32, 2, 0)], H6, [rch!(Dst, 95, Hardware), rch!(SrcA, 95, Hardware), rch!(SrcB, 95, Hardware)]),
    // 2-byte words `00 00/04/80/84`, `80 00/04/08/0c` between compact ALU ops (isadb.py
    // EXP-M4-12/13 pads; `80 08 | 29 07 39 05` in EXP-M4-55 k_tan). Tried after the
    // hardware-validated hadd/hmul so those are never shadowed (corpus tiling).
    form!("word_00", Opaque, 2, CorpusOnly, LEN, [(0, 8, 0x00), (8, 2, 0), (11, 1, 0), (12, 3, 0)], &[raw!("b1_2", 10, 1), raw!("b1_7", 15, 1)], []),
    form!("word_80", Opaque, 2, CorpusOnly, LEN, [(0, 8, 0x80), (8, 2, 0), (12, 4, 0)], &[raw!("b1_23", 10, 2)], []),
    form!("h_lane4", Opaque, 4, CorpusOnly, ET, [(0, 3, 0), (17, 2, 0)], HC4, []),
    form!("hmul_x8", HMul, 8, CorpusOnly, ET, [(0, 3, 0), (16, 3, 5), (32, 2, 1)], H8, []),
    form!("hmul_x10", HMul, 10, CorpusOnly, ET, [(0, 3, 0), (16, 3, 5), (32, 2, 2)], H10, []),
    form!("hmul_x8b", HMul, 8, CorpusOnly, ET, [(0, 3, 0), (16, 3, 5), (32, 2, 3)], H8, []),
    form!("hfma_x6", HFma, 6, CorpusOnly, ET, [(0, 3, 0), (16, 3, 6), (32, 2, 0)], H6, []),
    form!("hfma_x8", HFma, 8, CorpusOnly, ET, [(0, 3, 0), (16, 3, 6), (32, 2, 1)], H8, []),
    form!("hfma_x10", HFma, 10, CorpusOnly, ET, [(0, 3, 0), (16, 3, 6), (32, 2, 2)], H10, []),
    form!("hfma", HFma, 12, CorpusOnly, ET, [(0, 3, 0), (16, 3, 6), (32, 2, 3)], H12, []),
    form!("h_q8", Opaque, 8, CorpusOnly, ET, [(0, 3, 0), (32, 2, 3)], HQ8, []),
    form!("h_q10", Opaque, 10, CorpusOnly, ET, [(0, 3, 0)], HQ10, []),
];

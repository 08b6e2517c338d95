//! Per-invocation scratch (spill) store and load, word-indexed within the launcher frame's
//! extent A (GravityLinux/mesa agx_apple9_ir.c SPILL_STORE / SPILL_LOAD packers; README.apple9-
//! launchers.md bisected A = 4*(highest word + 1) bytes on T8132 with spilling shaders).
//! Neither occurs in the Apple-compiled corpus. Both take a scoreboard wait as a one-hot mask
//! split over bits 45..47 (slots 1-3) and 61..63 (slots 4-6): GravityLinux/mesa
//! agx_apple9_machine.c gives both the MASK_45_47_61_63 dependency layout at hardware evidence
//! ("SAVE/FILL each produce a completion tag and accept an incoming wait", EXP-M4-60), and the
//! packer vectors below hold 0 there.

use super::src::{GL_IR, MC};
use crate::form::{Field, Form, Kind::*, ProduceLayout::*, Role::*, SlotLayout::*};

// `(0b | w<<4) (1 | src<<1) (0f | w4..5<<6) 00 22 (src6 | w6<<4) (w7..<<2) (slot-1)<<2 00 00`
const SPILL_STORE: &[Field] = &[
    f!(
        "word",
        [(4, 4), (22, 2), (44, 1), (50, 6)],
        ImmU(SrcB),
        Hardware,
        GL_IR
    ),
    f!("src", [(9, 6), (40, 1)], Gpr(SrcA), Hardware, GL_IR),
    raw!("b1_7", 15, 1),
    raw!("b5_1", 41, 3),
    f!(
        "wait",
        [(45, 3), (61, 3)],
        Wait(MaskSplit45_61),
        Hardware,
        MC
    ),
    raw!("b6_lo", 48, 2),
    raw!("b7_lo", 56, 2),
    f!("slot", [(58, 3)], Produce(SlotIndex), Hardware, GL_IR),
    raw!("b8_9", 64, 16),
];

// `(0c | dst<<4) (80 | w<<1) (01 | dst4..5<<6) (1 | (slot-1)<<5) (w6..<<1) 00 00 (dst6<<4)`;
// the packer keeps the scratch word (reloads may follow).
const SPILL_LOAD: &[Field] = &[
    f!("dst", [(4, 4), (22, 2), (60, 1)], Gpr(Dst), Hardware, GL_IR),
    raw!("b1_0", 8, 1),
    f!("word", [(9, 6), (33, 7)], ImmU(SrcA), Hardware, GL_IR),
    raw!("b3_mid", 25, 4),
    f!("slot", [(29, 3)], Produce(SlotIndex), Hardware, GL_IR),
    raw!("b4_0", 32, 1),
    raw!("b5_lo", 40, 5),
    f!(
        "wait",
        [(45, 3), (61, 3)],
        Wait(MaskSplit45_61),
        Hardware,
        MC
    ),
    raw!("b6", 48, 8),
    raw!("b7_lo", 56, 4),
];

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    form!("spill_store", ScratchStore, 10, Hardware, GL_IR,
        [(0, 4, 0xb), (8, 1, 1), (16, 6, 0x0f), (24, 8, 0), (32, 8, 0x22)],
        SPILL_STORE, [rch!(SrcA, 95, Hardware)]),
    form!("spill_load", ScratchLoad, 8, Hardware, GL_IR,
        [(0, 4, 0xc), (15, 1, 1), (16, 6, 0x01), (24, 1, 1)],
        SPILL_LOAD, [rch!(Dst, 95, Hardware)]),
];

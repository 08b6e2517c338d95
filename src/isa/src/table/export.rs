//! Export (publication) forms: scalar float and integer-logic ALU ops whose destination is a
//! publication register (the export file `vary_store` reads), not a GPR.
//!
//! Facts (GravityLinux/mesa:src/asahi/compiler/agx_apple9_ir.c `pack_float2` / `pack_logic`
//! with the FLOAT2_EXPORT / LOGIC_EXPORT encodings; agx_apple9_machine.c marks both
//! hardware-validated, length 8 / 10, dependency layout split mask 45..47 + 61..63, destination
//! a publication index, sources r0..r95; the driver's GLES varying suites ran them on T8132):
//! - the ordinary compact float / extended logic layout with bit 38 set (byte 4 | 0x40) and
//!   bit 21 set selects the export; the destination uses the scattered map of the compact ALU
//!   (bits 4..7, 22..23, 44) and names a publication index, the sources the GPR map (a 9..14 +
//!   40, b 25..30 + 42);
//! - bits 58..60 hold the completion slot minus one (README.apple9-ir.md "Varying publication
//!   completion": a `vary_store` must wait on that slot through its 12..17 mask; EXP-M4-61 on
//!   T8132: no wait or the wrong slot loses outputs).
//!
//! Corpus check (Apple-compiled vertex bodies, ../shared/oracles/isa/corpus): EXP-0008
//! render_interp and EXP-M4-01 r_cent_v export through `?b .. 2f .. 42 ..` logic ops whose
//! bits 58..60 + 1 equal the slot the `vary_store` of the same publication waits on, for every
//! waited store (sim/tests/gfx_vertex_body.rs).

use super::src::{GL_IR, MC, PK};
use crate::form::ProduceLayout::SlotIndex;
use crate::form::{Field, Form, Kind::*, Role::*, SlotLayout::*};

// Float add/multiply export: `X9 (a<<1|1) 1c|op (b<<1|1) 41 00 00 (slot-1)<<2` + destination.
const FLOAT2_EXPORT: &[Field] = &[
    f!(
        "dst",
        [(4, 4), (22, 2), (44, 1)],
        ImmU(Dst),
        Hardware,
        GL_IR
    ),
    f!("a_size", [(8, 1)], Size(SrcA), Hardware, GL_IR),
    f!("a", [(9, 6), (40, 1)], Gpr(SrcA), Hardware, GL_IR),
    f!("a_keep", [(15, 1)], Modifier, CorpusOnly, PK),
    f!("rel_a", [(19, 1)], Release(SrcA), Hardware, GL_IR),
    f!("rel_b", [(20, 1)], Release(SrcB), Hardware, GL_IR),
    f!("publish", [(21, 1)], Publish, Hardware, GL_IR),
    f!("b_size", [(24, 1)], Size(SrcB), Hardware, GL_IR),
    f!("b", [(25, 6), (42, 1)], Gpr(SrcB), Hardware, GL_IR),
    f!("b_keep", [(31, 1)], Modifier, CorpusOnly, PK),
    raw!("ctrl", 34, 4),
    f!("b_neg", [(43, 1)], Modifier, Hardware, GL_IR),
    f!(
        "wait",
        [(45, 3), (61, 3)],
        Wait(MaskSplit45_61),
        Hardware,
        MC
    ),
    raw!("b6", 48, 8),
    raw!("b7_lo", 56, 2),
    f!("slot", [(58, 3)], Produce(SlotIndex), Hardware, GL_IR),
];

// Logic export: `Xb (a<<1|1) 1f|1e (b<<1|1) 40|lut_a 00|lut_b .. (slot-1)<<2 00 00`.
// The packer emits and (op_base 1, lut 0/0), or (1, 2, 0x8) and xor (0, 2, 0x8): the measured
// ilogic LUT (agx16_isa::meaning::ILOGIC_LUT) with lut_b bits 1 and 3 (bits 41, 43); bits 40
// and 42 of the ilogic lut_b are the sources' seventh register bit here.
const LOGIC_EXPORT: &[Field] = &[
    f!(
        "dst",
        [(4, 4), (22, 2), (44, 1)],
        ImmU(Dst),
        Hardware,
        GL_IR
    ),
    f!("a_size", [(8, 1)], Size(SrcA), Hardware, GL_IR),
    f!("a", [(9, 6), (40, 1)], Gpr(SrcA), Hardware, GL_IR),
    f!("a_keep", [(15, 1)], Modifier, CorpusOnly, PK),
    f!("op_base", [(16, 1)], OpSelect, Hardware, GL_IR),
    f!("rel_a", [(19, 1)], Release(SrcA), Hardware, GL_IR),
    f!("rel_b", [(20, 1)], Release(SrcB), Hardware, GL_IR),
    f!("b_size", [(24, 1)], Size(SrcB), Hardware, GL_IR),
    f!("b", [(25, 6), (42, 1)], Gpr(SrcB), Hardware, GL_IR),
    f!("b_keep", [(31, 1)], Modifier, CorpusOnly, PK),
    f!("lut_a_sel", [(32, 2)], OpSelect, Hardware, GL_IR),
    f!("lut_a_free", [(34, 3)], OpSelect, CorpusOnly, GL_IR),
    raw!("lut_a_5", 37, 1),
    raw!("lut_a_7", 39, 1),
    f!("lut_b1", [(41, 1)], OpSelect, Hardware, GL_IR),
    f!("lut_b3", [(43, 1)], OpSelect, Hardware, GL_IR),
    f!(
        "wait",
        [(45, 3), (61, 3)],
        Wait(MaskSplit45_61),
        Hardware,
        MC
    ),
    raw!("z6", 48, 8),
    raw!("b7_lo", 56, 2),
    f!("slot", [(58, 3)], Produce(SlotIndex), Hardware, GL_IR),
    raw!("z8", 64, 8),
    raw!("z9", 72, 8),
];

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    form!("fadd_export", Opaque, 8, Hardware, GL_IR, [(0, 4, 9), (16, 3, 4), (32, 2, 1), (38, 1, 1), (39, 1, 0), (41, 1, 0)], FLOAT2_EXPORT, [rch!(SrcA, 95, Hardware), rch!(SrcB, 95, Hardware)]),
    form!("fmul_export", Opaque, 8, Hardware, GL_IR, [(0, 4, 9), (16, 3, 5), (32, 2, 1), (38, 1, 1), (39, 1, 0), (41, 1, 0)], FLOAT2_EXPORT, [rch!(SrcA, 95, Hardware), rch!(SrcB, 95, Hardware)]),
    form!("logic_export", Opaque, 10, Hardware, GL_IR, [(0, 4, 0xb), (17, 2, 3), (21, 1, 1), (38, 1, 1)], LOGIC_EXPORT, [rch!(SrcA, 95, Hardware), rch!(SrcB, 95, Hardware)]),
];

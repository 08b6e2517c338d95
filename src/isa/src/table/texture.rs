//! Texture sample / fetch (`tex_sample`, 14 bytes).
//!
//! Layout from the T8132 compiler's TEXTURE_SAMPLE packer (GravityLinux/mesa
//! src/asahi/compiler/agx_apple9_ir.c; the encoding is marked hardware-validated in
//! agx_apple9_machine.c and runs in that backend's GLES 3.0 suites on M4). Shape of a 2D
//! sample of all four components:
//! `(5 | d<<3) (80 | c&7 | t>>1<<3) 0c (b8 | c>>3) (b0 | s>>1) (tag<<2 | tag<<5) <v6> <v7>
//! (t&1)<<7 s&1 10 00 01 00`:
//! - `dst` (bits 3..7): base of the result tuple r[d]..; the results are dense, R G B A
//!   among the selected components, and must fit through r31 (README.apple9-ir.md "texture
//!   result tuples have a five-bit base ... must fit through r31");
//! - `coord` (bits 8..10, 24..26): base publication of the coordinate tuple the export forms
//!   wrote (even, at most 30; 4-aligned for the four-word LOD tuples);
//! - `texture` (bit 71, bits 11..13) and `sampler` (bit 72, bits 32..34): direct indices into
//!   the stage's texture and sampler tables (0..15; "isolated with dependent and crossed
//!   own-source M4 samples", packer comment);
//! - `mask_sel` (bits 27..28, 37, 86): which of R, G, B, A are returned, a permuted 4-bit
//!   selector (T8132 probes of all 15 non-empty masks; `meaning::texture_result_mask`);
//! - `slot` (bits 42..44) and `slot_hi` (45..47): the completion tag, zero-based; the packer
//!   writes the same value in both ("the lower field alone also selected the expected
//!   completion; the upper field's separate role is not established", README.apple9-ir.md,
//!   EXP-M4-66 retags of slots 1..6);
//! - `variant`/`extra_coord` (bytes 6/7): the operation (`meaning::texture_op`);
//! - `retire_helpers` (bit 64): retires helper invocations after this sample;
//! - `mode` (byte 10 without bit 86): 0x10, zero for fetches and shadow compares.

use super::src::GL_IR;
use crate::form::{Field, Kind::*, ProduceLayout, Role::*};

pub(super) const TEX_SAMPLE: &[Field] = &[
    f!("dst", [(3, 5)], Gpr(Dst), Hardware, GL_IR),
    f!("coord", [(8, 3), (24, 3)], ImmU(SrcA), Hardware, GL_IR),
    f!("texture", [(71, 1), (11, 3)], ImmU(SrcB), Hardware, GL_IR),
    raw!("b1_7", 15, 1),
    f!(
        "mask_sel",
        [(27, 2), (37, 1), (86, 1)],
        Modifier,
        Hardware,
        GL_IR
    ),
    raw!("b3_hi", 29, 3),
    f!("sampler", [(72, 1), (32, 3)], ImmU(SrcC), Hardware, GL_IR),
    raw!("b4_35", 35, 2),
    raw!("b4_38", 38, 2),
    raw!("b5_lo", 40, 2),
    f!(
        "slot",
        [(42, 3)],
        Produce(ProduceLayout::SlotIndex),
        Hardware,
        GL_IR
    ),
    f!("slot_hi", [(45, 3)], Modifier, Hardware, GL_IR),
    f!("variant", [(48, 8)], OpSelect, Hardware, GL_IR),
    f!("extra_coord", [(56, 8)], OpSelect, Hardware, GL_IR),
    f!("retire_helpers", [(64, 1)], Modifier, Hardware, GL_IR),
    raw!("b8_mid", 65, 6),
    raw!("b9_hi", 73, 7),
    f!("mode", [(80, 6), (87, 1)], Modifier, Hardware, GL_IR),
    raw!("b11", 88, 8),
    f!("tex_type", [(96, 8)], Modifier, Hardware, GL_IR),
    raw!("b13", 104, 8),
];

//! Field layouts of the graphics forms whose byte roles the T8132 compiler packers spell out
//! (GravityLinux/mesa agx_apple9_ir.c; its GLES suites ran them on M4). Shared by `gfx.rs`,
//! `ctrl.rs` and `mem.rs`. Where encoding-tables.md read a byte differently, the packer's
//! hardware-run reading wins and the comment says so.

use super::src::{ET, GL_IR};
use crate::form::{Field, Kind::*, ProduceLayout::*, Role::*, SlotLayout::*};

// Flat varying `1f 03 54 <dst | cf0<<7> <cf>>1> <slot-1>`: dst..dst+2 receive the coefficient
// tuple of coefficient `cf` asynchronously (word 2 = the provoking vertex's raw value) and
// publish on the slot in byte 5 (encoding-tables.md read byte 3 as one selector).
pub(super) const ITER_FLAT: &[Field] = &[
    raw!("b1_3", 11, 1),
    f!("dst", [(24, 7)], Gpr(Dst), Hardware, GL_IR),
    f!("cf", [(31, 1), (32, 8)], ImmU(SrcA), Hardware, GL_IR),
    f!("slot", [(40, 8)], Produce(SlotIndex), Hardware, GL_IR),
];

// Vertex output `57 06 54 <src<<1> <o&7 <<5> (40 | o>>3) 00 00`: output slot o (0..3 position,
// then user scalars in order) = publication (export) register `src` (0..127, written by the
// export forms, not a GPR). Bits 12..17 are the one-hot wait mask (packer dependency layout
// MASK_12_17; corpus byte1 0x16/0x26/.. and byte2 0x55/0x56 use it).
pub(super) const VARY_STORE: &[Field] = &[
    raw!("b1_0", 8, 1),
    raw!("b1_hi", 10, 2),
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, GL_IR),
    f!("mode", [(18, 6)], Modifier, CorpusOnly, ET),
    raw!("src_b0", 24, 1),
    f!("src", [(25, 7)], ImmU(SrcA), Hardware, GL_IR),
    raw!("b4_lo", 32, 5),
    f!("slot", [(37, 3), (40, 4)], ImmU(SrcB), Hardware, GL_IR),
    raw!("b5_tag", 44, 4),
    f!("hint6", [(48, 8)], Modifier, CorpusOnly, ET),
    raw!("b7", 56, 8),
];

// Coverage write (sample mask) `57 14 54 <p<<1> 00 01` (GravityLinux/mesa agx_apple9_ir.c
// COVERAGE, the only shape its packer emits; agx_compile_apple9.c publishes the control word
// with a LOGIC_EXPORT completing on slot 1 and this op waits on slot 1; its GLES 3.0 suites,
// discard included, ran on T8132; ADevWithAnIdea/agx-re EXP-0091 measured `57 14 54 ..`
// followed by the tile fence in every discarding M4 shader). `src` names the publication
// (export register) holding the control word (brief of the lead, 2026-12-03: established as
// inferred from a driver passing conformance). Bytes 4/5 are 0/1 in every emission; EXP-0091's
// byte-4 splice changes behaviour, so any other value has no established meaning.
pub(super) const COVERAGE: &[Field] = &[
    raw!("b1_0", 8, 1),
    raw!("b1_hi", 10, 2),
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, GL_IR),
    raw!("b2", 18, 6),
    raw!("src_b0", 24, 1),
    f!("src", [(25, 7)], ImmU(SrcA), Hardware, GL_IR),
    f!("b4", [(32, 8)], Modifier, Hardware, GL_IR),
    f!("b5", [(40, 8)], Modifier, Hardware, GL_IR),
];

// Depth store `d7 14 54 <p<<1> 00 03` (GravityLinux/mesa agx_apple9_ir.c DEPTH_STORE): `src`
// is the even publication p of the pair (control word, depth) `store_zs_agx` sends
// (agx_compile_apple9.c; its GLES 3.0 suites ran gl_FragDepth on T8132); bytes 4/5 are 0/3 in
// every emission.
pub(super) const DEPTH_STORE: &[Field] = &[
    raw!("src_b0", 24, 1),
    f!("src", [(25, 7)], ImmU(SrcA), Hardware, GL_IR),
    f!("b4", [(32, 8)], Modifier, Hardware, GL_IR),
    f!("b5", [(40, 8)], Modifier, Hardware, GL_IR),
];

// Tile access `87 02 54 <imm:16> 00` / tile fence `07 02 54 <imm:16> 00`: the packer accepts
// access 0xf00, 0x600, 0x800|m, 1 and fence 0x300, m, 0x200|m, 1 (m: bits 2..7).
pub(super) const TILE_SYNC: &[Field] = &[
    raw!("b1", 8, 8),
    f!("access", [(24, 16)], Modifier, Hardware, GL_IR),
    raw!("b5", 40, 8),
];

/// The fence's fields: byte 1's low nibble is pinned by its match; its high nibble (with
/// byte 2 bits 0..1) is the Mask12 wait the block image store's compound fence `07 12 54 00 03
/// 00` sets to join export slot 1 (packer BLOCK_IMAGE_STORE: "synchronously join export slot
/// 1"); ordinary fences leave it zero.
pub(super) const TILE_SYNC_FENCE: &[Field] = &[
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, GL_IR),
    f!("access", [(24, 16)], Modifier, Hardware, GL_IR),
    raw!("b5", 40, 8),
];

// Derivative (quad-local difference) `37 (05 | axis<<1) 54 <dst<<1> 03 <(src&63)<<2>
// (90 | keep<<1 | src>>6) (40 | sat<<2) 00 00`: GravityLinux/mesa agx_apple9_ir.c
// `pack_vir_instruction_body` DERIVATIVE (newest commit: r0..r95 operands, source bit 6 in
// byte 6 bit 0, saturate byte 7 bit 2); agx_apple9_machine.c marks the encoding HARDWARE and
// that driver passes dEQP-GLES3 (derivate.* included) on M4. Byte 1 bit 1 selects the axis (0
// x, 1 y); byte 6 bit 1 keeps the source live after the instruction (the packer sets it from
// its liveness; clear = last use). ADevWithAnIdea/agx-re EXP-0111 FS-07 (measured on M4): one
// instruction per scalar; its ground-truth kernel `deriv_axis_check` read back [1, 0, 0, 1] for
// dfdx/dfdy of pos.x/pos.y with byte 6 0x92 (source kept for the dfdy that follows) and 0x90,
// so encoding-tables.md's reading of byte 6 as the axis is the keep bit. The machine table
// gives the form a MASK_12_17 wait, but slot 6 (bit 17) would make byte 2 0x56, the quad-reduce
// length rule (`quad_reduce_37`), so bits 12..23 stay raw here and agx16 never waits on a
// derivative (pending sources are handed off first).
pub(super) const DERIV: &[Field] = &[
    raw!("b1_0", 8, 1),
    f!("axis", [(9, 1)], OpSelect, Hardware, GL_IR),
    raw!("b1_hi", 10, 6),
    raw!("b2", 16, 8),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, GL_IR),
    f!("b4", [(32, 8)], Modifier, Hardware, GL_IR),
    raw!("src_lo", 40, 2),
    f!("src", [(42, 6), (48, 1)], Gpr(SrcA), Hardware, GL_IR),
    f!("src_keep", [(49, 1)], Modifier, Hardware, GL_IR),
    raw!("b6_hi", 50, 6),
    raw!("b7_lo", 56, 2),
    f!("saturate", [(58, 1)], Modifier, Hardware, GL_IR),
    raw!("b7_hi", 59, 5),
    raw!("tail", 64, 16),
];

// Tilebuffer load `67 (0e|06|16) 54 <dst<<1> <pos> <w<<1> <mask> <tag> <tag hi> 00 00 <kind>`:
// dst = raw 32-bit word w (0..15) of the pixel's tilebuffer storage; byte 1 0x0e static mask
// (byte 6 = 1), 0x06 mask from GPR (byte 6 = reg<<1 | release, byte 11 0x20), 0x16 explicit
// sample mask (byte 6, 1..15) at the position in GPR byte 4 (byte 11 0x10); byte 7 low bits
// 0x4e, the producer slot-1 in byte 7 bit 7 + byte 8 (encoding-tables.md's byte 6 bit 0
// "read enable" is the static mask's sample bit).
pub(super) const TILE_LOAD: &[Field] = &[
    f!("b2", [(16, 8)], Modifier, CorpusOnly, ET),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, GL_IR),
    f!("pos", [(32, 8)], Modifier, Hardware, GL_IR),
    raw!("rt_b0", 40, 1),
    f!("rt", [(41, 7)], ImmU(SrcA), Hardware, GL_IR),
    f!("mask", [(48, 8)], Modifier, Hardware, GL_IR),
    f!("fmt", [(56, 7)], Modifier, CorpusOnly, ET),
    f!(
        "slot",
        [(63, 1), (64, 8)],
        Produce(SlotIndex),
        Hardware,
        GL_IR
    ),
    raw!("b9_10", 72, 16),
    f!("kind", [(88, 8)], Modifier, Hardware, GL_IR),
];

/// TILE_LOAD_MASK `67 06 54 <dst<<1> 00 <w<<1> <m<<1> <4e | (slot-1)<<7> <(slot-1)>>1 |
/// rel<<5> 00 00 20`: the samples in the low half of r<m> (byte 6 bit 0 picks the high half,
/// never emitted); byte 8 bit 5 releases r<m> (GravityLinux/mesa agx_apple9_ir.c TILE_LOAD,
/// dynamic branch: "Bit 69 independently releases the mask after this read", native Metal
/// lifetime probes EXP-M4-75; machine table BYTE_DIFF).
pub(super) const TILE_LOAD_MASK: &[Field] = &[
    f!("b2", [(16, 8)], Modifier, CorpusOnly, ET),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, GL_IR),
    f!("pos", [(32, 8)], Modifier, Hardware, GL_IR),
    raw!("rt_b0", 40, 1),
    f!("rt", [(41, 7)], ImmU(SrcA), Hardware, GL_IR),
    raw!("mask_half", 48, 1),
    f!("mask", [(49, 7)], Gpr(SrcB), CorpusOnly, GL_IR),
    f!("fmt", [(56, 7)], Modifier, CorpusOnly, ET),
    f!(
        "slot",
        [(63, 1), (64, 2)],
        Produce(SlotIndex),
        Hardware,
        GL_IR
    ),
    raw!("b8_mid", 66, 3),
    f!("mask_release", [(69, 1)], Release(SrcB), CorpusOnly, GL_IR),
    raw!("b8_hi", 70, 2),
    raw!("b9_10", 72, 16),
];

/// The mask and position variants pin byte 11 by their match.
pub(super) const TILE_LOAD_NOKIND: &[Field] = &[
    f!("b2", [(16, 8)], Modifier, CorpusOnly, ET),
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, GL_IR),
    f!("pos", [(32, 8)], Modifier, Hardware, GL_IR),
    raw!("rt_b0", 40, 1),
    f!("rt", [(41, 7)], ImmU(SrcA), Hardware, GL_IR),
    f!("mask", [(48, 8)], Modifier, Hardware, GL_IR),
    f!("fmt", [(56, 7)], Modifier, CorpusOnly, ET),
    f!(
        "slot",
        [(63, 1), (64, 8)],
        Produce(SlotIndex),
        Hardware,
        GL_IR
    ),
    raw!("b9_10", 72, 16),
];

// Block image store `57 (wait<<4) 54 <c<<1> 00 <img<<4> 00 80 <mode lo> <fmt<<4 | mode hi> 01 00`
// (packer AGX_APPLE9_VIR_BLOCK_IMAGE_STORE, machine table `block_image_store`, 12 bytes,
// HARDWARE evidence; GravityLinux's end-of-tile export helper ran it for every stored
// attachment in its GLES suites on T8132, README.apple9-es3.md "Native tile export"): export
// the implicit tile to image-table entry `img` (0..15) through its PBE descriptor. Publication
// registers c, c+1, c+2 (c = 0..12, a multiple of 4) hold pixel x, pixel y and
// `tile byte offset << 16` (README.apple9-ir.md "Native multisample block stores"); `mode` is
// 0x5a8 for 2D and 0x228 for the multisample form; `format` is the tile representation
// (agx_apple9.h `agx_apple9_block_export_format`: 7 packed 8-bit normalised / RGB10A2 /
// R11G11B10, 5 8-bit integer, 1 16-bit, 3 32-bit). The Mask12 wait (byte 1 high nibble) is
// the packer's fixed slot-1 wait on the publication exports.
pub(super) const BLOCK_STORE: &[Field] = &[
    f!("wait", [(12, 6)], Wait(Mask12), Hardware, GL_IR),
    raw!("coord_b0", 24, 1),
    f!("coord", [(25, 7)], ImmU(SrcA), Hardware, GL_IR),
    raw!("b4", 32, 8),
    raw!("b5_lo", 40, 4),
    f!("image", [(44, 4)], ImmU(SrcB), Hardware, GL_IR),
    raw!("b6", 48, 8),
    f!("ctrl7", [(56, 8)], Modifier, Hardware, GL_IR),
    f!("mode", [(64, 12)], OpSelect, Hardware, GL_IR),
    f!("format", [(76, 4)], Modifier, Hardware, GL_IR),
    f!("ctrl10", [(80, 8)], Modifier, Hardware, GL_IR),
    raw!("b11", 88, 8),
];

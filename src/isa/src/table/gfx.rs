//! Graphics, SIMD-group, matrix and ray-tracing families whose lengths the corpus needs.
//! Meanings are only partly established, so most fields are raw.
//!
//! Lengths: ADevWithAnIdea/agx-re:tools/agx-isa/isadb.py instr_length and
//! niklassheth/agx-re:docs/isa/encoding-tables.md "Length rule" (experiments per entry).

use super::frag::{BLOCK_STORE, COVERAGE, DEPTH_STORE, DERIV, ITER_FLAT, TILE_SYNC, VARY_STORE};
use super::src::{CAN, ET, GL_IR, LEN};
use super::texture::TEX_SAMPLE;
use crate::form::{Field, Form, Kind::*, Role::*};

macro_rules! rb {
    ($($name:literal $lo:literal $w:literal),*) => { &[$(raw!($name, $lo, $w)),*] };
}

const T4: &[Field] = rb!("b1" 8 8, "b2" 16 8, "b3" 24 8);
const T6: &[Field] = rb!("b1" 8 8, "b2" 16 8, "b3" 24 8, "b4" 32 16);
const T10: &[Field] = rb!("b1" 8 8, "b2" 16 8, "b3" 24 8, "tail" 32 48);
const T12: &[Field] = rb!("b1" 8 8, "b2" 16 8, "b3" 24 8, "tail" 32 64);
const T14: &[Field] = rb!("b1" 8 8, "b2" 16 8, "b3" 24 8, "tail" 32 64, "tail2" 96 16);
const T16: &[Field] = rb!("b1" 8 8, "b2" 16 8, "b3" 24 8, "tail" 32 64, "tail2" 96 32);
// Variants with byte2 pinned (field omitted) or byte1 pinned.
const T8_B2: &[Field] = rb!("b1" 8 8, "b3" 24 8, "tail" 32 32);
const T12_B12: &[Field] = rb!("b3" 24 8, "tail" 32 64);
const T8_B2HI: &[Field] = rb!("b1" 8 8, "b2_1" 17 1, "b3" 24 8, "tail" 32 32);

const PU: &str = "GravityLinux/mesa:src/asahi/compiler/agx_apple9_ir.c PACK_UNORM (T8132 probes)";
macro_rules! pack_unorm {
    ($half:expr) => {
        &[
            $half,
            f!("dst", [(25, 7)], Gpr(Dst), Hardware, PU),
            f!("b4", [(32, 8)], Modifier, CorpusOnly, PU),
            raw!("b5_01", 40, 2),
            f!("a", [(42, 7)], Gpr(SrcA), Hardware, PU),
            raw!("b6_1", 49, 2),
            f!("b", [(51, 7)], Gpr(SrcB), Hardware, PU),
            f!("b7_hi", [(58, 6)], Modifier, CorpusOnly, PU),
            f!("b8", [(64, 8)], Modifier, CorpusOnly, PU),
        ]
    };
}
const PACK_UNORM16: &[Field] = pack_unorm!(raw!("dst_b0", 24, 1));
const PACK_UNORM8: &[Field] = pack_unorm!(f!("dst_half", [(24, 1)], Half(Dst), Hardware, PU));

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    // SIMD-group / quad reduce and scan (ADevWithAnIdea/agx-re EXP-0018, measured): 8 bytes, byte2 0x54/0x56.
    // flat varying (provoking-vertex) load `1f 03/0b 54 ..`, 6 bytes (encoding-tables.md
    // iter_flat, EXP-0029); must precede the 0x1f integer subtract
    form!("iter_flat", Iterate, 6, CorpusOnly, ET, [(0, 8, 0x1f), (8, 3, 3), (12, 4, 0), (16, 8, 0x54)], ITER_FLAT, [rch!(Dst, 61, Hardware)]),
    form!("simd_reduce_bf", SimdReduce, 8, CorpusOnly, ET, [(0, 8, 0xbf), (16, 1, 0), (18, 6, 0x15)], T8_B2HI, []),
    form!("simd_reduce_3f", SimdReduce, 8, CorpusOnly, ET, [(0, 8, 0x3f), (16, 1, 0), (18, 6, 0x15)], T8_B2HI, []),
    form!("quad_reduce_b7", SimdReduce, 8, CorpusOnly, ET, [(0, 8, 0xb7), (16, 1, 0), (18, 6, 0x15)], T8_B2HI, []),
    form!("quad_reduce_37", SimdReduce, 8, CorpusOnly, ET, [(0, 8, 0x37), (16, 8, 0x56)], T8_B2, []),
    form!("tex_grad_setup", Opaque, 8, CorpusOnly, LEN, [(0, 8, 0x37), (16, 8, 0x80)], T8_B2, []),
    // quad-local derivative (GravityLinux/mesa T8132 packer, hardware; field notes in frag.rs)
    form!("derivative", Derivative, 10, Hardware, GL_IR, [(0, 8, 0x37)], DERIV, [rch!(Dst, 95, Hardware), rch!(SrcA, 95, Hardware)]),
    // shuffle / broadcast (EXP-0018 semantics, EXP-0229 framing; canaries)
    form!("simd_shuffle12", SimdShuffle, 12, CorpusOnly, CAN, [(0, 7, 0x47), (8, 8, 0x06)], rb!("b0_7" 7 1, "b2" 16 8, "b3" 24 8, "tail" 32 64), []),
    form!("simd_shuffle", SimdShuffle, 10, CorpusOnly, CAN, [(0, 7, 0x47)], rb!("b0_7" 7 1, "b1" 8 8, "b2" 16 8, "b3" 24 8, "tail" 32 48), []),
    // 0x17: unpack (byte1 low nibble 4) 8; texture projection setup 12; ballot/vote 10.
    form!("unpack_convert", Opaque, 8, CorpusOnly, ET, [(0, 8, 0x17), (8, 4, 4)], rb!("b1_hi" 12 4, "b2" 16 8, "b3" 24 8, "tail" 32 32), []),
    form!("tex_proj_setup", Opaque, 12, CorpusOnly, LEN, [(0, 8, 0x17), (8, 1, 1), (10, 6, 0), (16, 1, 0), (18, 6, 0x15)], rb!("b1_2" 9 1, "b2_1" 17 1, "b3" 24 8, "tail" 32 64), []),
    form!("rtq_dualsrc", RayTrace, 12, CorpusOnly, LEN, [(0, 8, 0x17), (8, 8, 0x02), (16, 8, 0x00)], T12_B12, []),
    form!("simd_ballot", SimdBallot, 10, CorpusOnly, ET, [(0, 8, 0x17)], T10, []),
    // 0x97 unorm packs (GravityLinux/mesa agx_apple9_ir.c PACK_UNORM_2X16 / PACK_UNORM_4X8; that
    // backend's T8132 probes cover both halves, 7-bit register numbers, clamping to [0, 1] and
    // nearest-even rounding of the exactly scaled value): `97 04 56 <dst> 02 <a> <b> 50 44 82` writes the
    // word unorm16(a) | unorm16(b) << 16; `97 04 54 <dst|half> 02 <a> <b> 50 44 c2` writes the half
    // (bit 24) unorm8(a) | unorm8(b) << 8 (two of them make packUnorm4x8).
    form!("pack_unorm16x2", PackUnorm, 10, Hardware, PU, [(0, 8, 0x97), (8, 8, 0x04), (16, 8, 0x56), (72, 8, 0x82)], PACK_UNORM16, [rch!(Dst, 95, Hardware), rch!(SrcA, 95, Hardware), rch!(SrcB, 95, Hardware)]),
    form!("pack_unorm8x2", PackUnorm, 10, Hardware, PU, [(0, 8, 0x97), (8, 8, 0x04), (16, 8, 0x54), (72, 8, 0xc2)], PACK_UNORM8, [rch!(Dst, 95, Hardware), rch!(SrcA, 95, Hardware), rch!(SrcB, 95, Hardware)]),
    // 0x97: pack convert (compute, byte2 0x56) / fragment colour pack, 10 bytes (EXP-0029/0033)
    form!("pack_convert", Opaque, 10, CorpusOnly, ET, [(0, 8, 0x97)], T10, []),
    // 0x57 vertex varying store 8 bytes (EXP-0037)
    // 0x57 with byte 1 low nibble 0: the 12-byte block image store (packer BLOCK_IMAGE_STORE
    // `57 10 54 ..`; coverage writes have low nibble 4); must precede the sample submit
    form!("block_image_store", TileStore, 12, Hardware, GL_IR, [(0, 8, 0x57), (8, 4, 0), (18, 6, 0x15)], BLOCK_STORE, []),
    // 0x57 with byte1 bit 1 clear: 6-byte fragment sample submit (encoding-tables.md
    // frag_sample_submit), the coverage write (fields and evidence in frag.rs COVERAGE)
    form!("frag_sample_submit", Opaque, 6, Hardware, GL_IR, [(0, 8, 0x57), (9, 1, 0)], COVERAGE, []),
    form!("vary_store", VaryingStore, 8, Hardware, GL_IR, [(0, 8, 0x57), (9, 1, 1)], VARY_STORE, []),
    // 0xd7: [[depth]] store 6 / texture write 16 (EXP-0016/0029). The depth store
    // `d7 14 54 <p<<1> 00 03` is the only shape GravityLinux/mesa's DEPTH_STORE packer emits
    // (agx_apple9_ir.c; agx_apple9_machine.c: hardware, sources a publication pair p, p+1 with
    // p even); byte 1 0x14 waits on slot 1 (Mask12 layout), where the pair's exports complete.
    form!("depth_store", TileStore, 6, Hardware, GL_IR, [(0, 8, 0xd7), (8, 8, 0x14), (16, 8, 0x54)], DEPTH_STORE, []),
    form!("tex_write", Texture, 16, CorpusOnly, ET, [(0, 8, 0xd7)], T16, []),
    // 0x87: tile access setup 6 (byte2 0x54) / fence 4 (EXP-0029, EXP-M4-01)
    form!("tile_setup", TileRead, 6, CorpusOnly, LEN, [(0, 8, 0x87), (16, 8, 0x54)], TILE_SYNC, []),
    form!("fence87", Fence, 4, CorpusOnly, LEN, [(0, 8, 0x87)], T4, []),
    // ray-tracing memory ops (0xdf / 0x5f), 14 bytes (EXP-0023, EXP-O2C)
    form!("rt_as_load", RayTrace, 14, CorpusOnly, ET, [(0, 8, 0xdf)], T14, []),
    // byte2 0x04 also occurs (`5f 02 04 0a ..` in the dec2_n8 ray-tracing programs): 14 bytes
    form!("rt_ray_mem", RayTrace, 14, CorpusOnly, ET, [(0, 8, 0x5f)], T14, []),
    // coordinate / interpolation fused mul-add leader `?e/?6 xx 23 a0 42 ..`, 10 bytes
    // (encoding-tables.md coord_madf for 0x2e/0x3e; `26 8f 23 a0 42 ..` in texture_sample__texcube)
    form!("coord_madf", Opaque, 10, CorpusOnly, ET, [(0, 3, 6), (16, 8, 0x23)], rb!("b0_3" 3 5, "b1" 8 8, "b3" 24 8, "tail" 32 48), []),
    // 0xcf matrix multiply-accumulate 12 (EXP-0022); 0x6f frame prologue 6 (EXP-0038)
    form!("matrix_mac", MatrixMac, 12, CorpusOnly, CAN, [(0, 8, 0xcf)], T12, []),
    form!("frame_prologue", Opaque, 6, CorpusOnly, LEN, [(0, 8, 0x6f)], T6, []),
    // ray-query traversal op (low nibble f, byte1 0x80, byte2 0x86), 8 bytes (EXP-M4-13)
    form!("rtq_traverse", RayTrace, 8, CorpusOnly, LEN, [(0, 4, 0xf), (8, 8, 0x80), (16, 8, 0x86)], rb!("b0_hi" 4 4, "b3" 24 8, "tail" 32 32), []),
    // texture sample/fetch (14 bytes, low 3 bits 5, byte 2 0x0c): the T8132 packer
    // TEXTURE_SAMPLE (fields in table/texture.rs); Apple's bundles have the same length and
    // signature (EXP-0016, corpus tiling: byte 1 high nibble 0 in texture_sample__tex_half)
    form!("tex_sample", Texture, 14, Hardware, GL_IR, [(0, 3, 5), (14, 1, 0), (16, 8, 0x0c)], TEX_SAMPLE, [rch!(Dst, 31, Hardware)]),
    // 2-byte words between SFU range-reduction steps and before compact ALU ops
    // (isadb.py EXP-M4-12 S1; `06 02 | 2f 03 54 ..` in EXP-M4-55 k_sin/k_cos), corpus tiling
    // ray intersect (low nibble 4, byte1 0xea), 8 bytes (EXP-0023)
    form!("rt_intersect", RayTrace, 8, CorpusOnly, ET, [(0, 4, 4), (8, 8, 0xea)], rb!("b0_hi" 4 4, "b2" 16 8, "b3" 24 8, "tail" 32 32), []),
];

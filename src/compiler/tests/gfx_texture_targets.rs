//! Compiled 2D-array and 3D texture ops on agx16-sim's render model: IR fragment programs
//! sample an RGBA8 2D array (explicit LOD, implicit LOD as bias 0, texelFetch) and a 3D
//! texture (explicit LOD, texelFetch) through the array / 3D `tex_sample` forms and the
//! four-word coordinate tuple (isel/texture.rs). The images are compared with a CPU sampler
//! written here from the OpenGL ES 3.0 rules (nearest texel of the addressed layer / slice).
#![allow(dead_code, clippy::cloned_ref_to_slice_refs)]

#[path = "../../../sim/tests/gfx_common/mod.rs"]
mod gfx_common;

use agx16_cmdstream::descriptors::{
    BorderColour, Channels, MipFilter, NumericType, Sampler, ShadeModel, Swizzle, Wrap,
};
use agx16_cmdstream::layout::{ImageDesc, ImageLayout, Kind, Tiling};
use agx16_cmdstream::texture_layout::{texture_for, TextureFormat};
use agx16_cmdstream::Record;
use agx16_compiler::abi;
use agx16_compiler::ir::*;
use agx16_compiler::pipeline::Options;
use gfx_common::*;

mod gfx_harness;
use gfx_harness::*;

const TEX_TABLE: u64 = VB + 0xa000;
const SAMP_TABLE: u64 = VB + 0xa100;
const TEXELS: u64 = VB + 0xb000;
const SIZE: u32 = 8;
const PLANES: u32 = 4;

fn texel_at(plane: u32, x: u32, y: u32) -> [u8; 4] {
    [
        (x * 29 + y * 7 + plane * 60) as u8,
        (y * 31 + x * 3 + 17) as u8,
        (plane * 70 + x + y * 5 + 11) as u8,
        (250 - plane * 9) as u8,
    ]
}

/// One big triangle over the screen from the vertex id (k = 0, 1, 2):
/// x = 4k(2 - k) - 1, y = 2k(k - 1) - 1; u = (x + 1) / 2, v = (1 - y) / 2.
fn vertex_program() -> Function {
    let mut b = Builder::new(Stage::Vertex);
    let id = b.sysval(SysVal::VertexId);
    let k = b.alu(Op::I2F { signed: true }, Type::F32, [Src::val(id)]);
    let two_minus_k = b.fmul(k, Src::imm_f32(-1.0));
    let two_minus_k = b.fadd(two_minus_k, Src::imm_f32(2.0));
    let x = b.fmul(k, two_minus_k);
    let x = b.fmul(x, Src::imm_f32(4.0));
    let x = b.fadd(x, Src::imm_f32(-1.0));
    let k_minus_1 = b.fadd(k, Src::imm_f32(-1.0));
    let y = b.fmul(k, k_minus_1);
    let y = b.fmul(y, Src::imm_f32(2.0));
    let y = b.fadd(y, Src::imm_f32(-1.0));
    let u = b.fadd(x, Src::imm_f32(1.0));
    let u = b.fmul(u, Src::imm_f32(0.5));
    let v = b.fmul(y, Src::imm_f32(-0.5));
    let v = b.fadd(v, Src::imm_f32(0.5));
    for (slot, val) in [x, y].into_iter().enumerate() {
        b.store_output(slot as u8, val);
    }
    b.store_output(2, Src::imm_f32(0.5));
    b.store_output(3, Src::imm_f32(1.0));
    b.store_output(4, u);
    b.store_output(5, v);
    b.store_output(6, Src::imm_f32(0.0));
    b.store_output(7, Src::imm_f32(1.0));
    b.finish()
}

enum Access {
    /// textureLod(uv, third, 0).
    Lod,
    /// texture(uv, third): implicit LOD, the bias form with bias 0.
    Implicit,
    /// texelFetch(ivec(uv · SIZE), third, 0).
    Fetch,
}

/// `fragColor = <access>(t0, (u, v, third))` for `dim`; `third` is the layer (arrays) or z.
fn fragment_program(dim: TexDim, access: Access, third: f32) -> Function {
    let mut b = Builder::new(Stage::Fragment);
    let u = b.load_varying(1, Interp::Linear);
    let v = b.load_varying(2, Interp::Linear);
    let (kind, srcs) = match access {
        Access::Fetch => {
            let x = b.fmul(u, Src::imm_f32(SIZE as f32));
            let y = b.fmul(v, Src::imm_f32(SIZE as f32));
            let x = b.alu(Op::F2I { signed: true }, Type::I32, [Src::val(x)]);
            let y = b.alu(Op::F2I { signed: true }, Type::I32, [Src::val(y)]);
            let t = b.alu(Op::Copy, Type::I32, [Src::imm(third as u32)]);
            let w = if dim == TexDim::D2Array {
                Src::val(t)
            } else {
                Src::imm(0)
            };
            (
                TexKind::Fetch,
                vec![Src::val(x), Src::val(y), Src::val(t), w],
            )
        }
        _ => {
            let (third, layer) = if dim == TexDim::D2Array {
                (Src::imm(third as u32), third as u32)
            } else {
                (Src::imm_f32(third), 0)
            };
            let t = b.alu(Op::Copy, Type::I32, [third]);
            let w = b.alu(Op::Copy, Type::I32, [Src::imm(layer)]);
            let kind = match access {
                Access::Lod => TexKind::Lod,
                _ => TexKind::Bias,
            };
            (
                kind,
                vec![Src::val(u), Src::val(v), Src::val(t), Src::val(w)],
            )
        }
    };
    let t = b.texture(0, 0, kind, dim, srcs);
    let c: Vec<Src> = (0..4).map(|k| Src::comp(t, k)).collect();
    let word = abi::pack_unorm_4x8(&mut b, [c[0], c[1], c[2], c[3]]);
    b.store_tile(0, word);
    b.finish()
}

fn sampler() -> Sampler {
    let mut s = Sampler {
        mip_filter: MipFilter::None,
        wrap_s: Wrap::ClampToEdge,
        wrap_t: Wrap::ClampToEdge,
        wrap_r: Wrap::ClampToEdge,
        border: BorderColour::TransparentBlack,
        compare_sense: true,
        compare_test: agx16_cmdstream::Hex(7),
        ..Default::default()
    };
    s.set_lod_range(0.0, 14.0);
    s
}

fn memory(kind: Kind) -> Vec<(u64, Vec<u8>)> {
    let l = ImageLayout::new(ImageDesc {
        layers: PLANES,
        kind,
        ..ImageDesc::simple_2d(SIZE, SIZE, 4, Tiling::Twiddled)
    })
    .unwrap();
    let f = TextureFormat {
        channels: Channels::R8G8B8A8,
        numeric_type: NumericType::Unorm,
        swizzle: [Swizzle::R, Swizzle::G, Swizzle::B, Swizzle::A],
        srgb: false,
    };
    let mut w = vec![
        (
            TEX_TABLE,
            texture_for(&l, TEXELS, f).unwrap().pack().unwrap(),
        ),
        (SAMP_TABLE, sampler().pack().unwrap()),
    ];
    for p in 0..PLANES {
        for y in 0..SIZE {
            for x in 0..SIZE {
                let off = l.element_offset(0, p, x, y, 0);
                w.push((TEXELS + off, texel_at(p, x, y).to_vec()));
            }
        }
    }
    w
}

/// Nearest texel of plane `plane` at each pixel centre.
fn reference(plane: u32) -> Vec<[u8; 4]> {
    let mut out = Vec::new();
    for py in 0..H {
        for px in 0..W {
            let u = (px as f64 + 0.5) / W as f64 * SIZE as f64;
            let v = (py as f64 + 0.5) / H as f64 * SIZE as f64;
            let c = |k: f64| (k.floor() as i64).clamp(0, SIZE as i64 - 1) as u32;
            out.push(texel_at(plane, c(u), c(v)));
        }
    }
    out
}

fn render(kind: Kind, fs: &Function) -> Vec<[u8; 4]> {
    let (vc, vinfo) = abi::compile_ir_graphics(&vertex_program(), 0, Options::default()).unwrap();
    let (fc, finfo) = abi::compile_ir_graphics(fs, 0, Options::default()).unwrap();
    let v = StageCode {
        code: vc.code,
        info: vinfo,
        roots: vec![],
    };
    let f = StageCode {
        code: fc.code,
        info: finfo,
        roots: vec![TEX_TABLE, SAMP_TABLE, 0, 0, 0, 0],
    };
    let d = DrawSpec::tris(vec![rgba([0.0; 4], [0.0; 4]); 3], ShadeModel::Linear);
    draw_with_memory(&d, &v, &f, &memory(kind)).unwrap().0
}

#[test]
fn compiled_array_samples_read_the_addressed_layer() {
    for layer in [0u32, 2, 3] {
        let want = reference(layer);
        for access in [Access::Lod, Access::Implicit, Access::Fetch] {
            let fs = fragment_program(TexDim::D2Array, access, layer as f32);
            assert_eq!(render(Kind::D2Array, &fs), want, "layer {layer}");
        }
    }
}

#[test]
fn compiled_3d_samples_read_the_addressed_slice() {
    // Nearest in z: slice floor(r · depth).
    for (r, slice) in [(0.1f32, 0u32), (0.6, 2), (0.99, 3)] {
        let fs = fragment_program(TexDim::D3, Access::Lod, r);
        assert_eq!(render(Kind::D3, &fs), reference(slice), "r {r}");
        let fs = fragment_program(TexDim::D3, Access::Fetch, slice as f32);
        assert_eq!(render(Kind::D3, &fs), reference(slice), "slice {slice}");
    }
}

//! Compiled texture sampling on agx16-sim's render model: an IR fragment program samples a
//! 2D RGBA8 texture (`Op::Texture`, selected as coordinate `logic_export`s and the packer's
//! `tex_sample`, isel/texture.rs), packs the result and stores it; the vertex program covers
//! the screen with one triangle whose varyings (u, v) span [0, 1]. The image is compared with
//! a CPU sampler written here from the OpenGL ES 3.0 rules (nearest, bilinear, texelFetch).
//! The texture and sampler tables are the fragment launcher's roots 0 and 1 (sim/GFX.md
//! "Render-stage uniform ABI", "Textures").
#![allow(dead_code, clippy::cloned_ref_to_slice_refs)]

#[path = "../../../sim/tests/gfx_common/mod.rs"]
mod gfx_common;

use agx16_cmdstream::descriptors::{
    BorderColour, Channels, MipFilter, NumericType, Sampler, ShadeModel, Swizzle, Wrap,
};
use agx16_cmdstream::layout::{ImageDesc, ImageLayout, Tiling};
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
const SIZE: u32 = 16;

const LEVELS: u32 = 5;

fn texel_at(level: u32, x: u32, y: u32) -> [u8; 4] {
    [
        (x * 37 + y * 11 + level * 70) as u8,
        (y * 53 + x * 7 + 30) as u8,
        (x * 5 + y * 3 + 90 + level * 40) as u8,
        (200 + x + y) as u8,
    ]
}

fn texel(x: u32, y: u32) -> [u8; 4] {
    texel_at(0, x, y)
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

/// `fragColor = textureLod(t0, uv, l)` (`Lod`) or `texture(t0, uv, l)` (`Bias`), the LOD
/// word formed as the NIR import forms it (Q6 in bits 16..27).
fn lod_fragment_program(kind: TexKind, l: f32) -> Function {
    let mut b = Builder::new(Stage::Fragment);
    let u = b.load_varying(1, Interp::Linear);
    let v = b.load_varying(2, Interp::Linear);
    let q6 = ((l * 64.0).floor() as i32 as u32 & 0xfff) << 16;
    let w = b.alu(Op::Copy, Type::I32, [Src::imm(q6)]);
    let t = b.texture(
        0,
        0,
        kind,
        TexDim::D2,
        [Src::val(u), Src::val(v), Src::val(w)],
    );
    let c: Vec<Src> = (0..4).map(|k| Src::comp(t, k)).collect();
    let word = abi::pack_unorm_4x8(&mut b, [c[0], c[1], c[2], c[3]]);
    b.store_tile(0, word);
    b.finish()
}

/// `fragColor = texture(t0, vec2(u, v))` (or `texelFetch(t0, ivec2(uv * 16), 0)`).
fn fragment_program(fetch: bool) -> Function {
    let mut b = Builder::new(Stage::Fragment);
    let u = b.load_varying(1, Interp::Linear);
    let v = b.load_varying(2, Interp::Linear);
    let t = if fetch {
        let x = b.fmul(u, Src::imm_f32(SIZE as f32));
        let y = b.fmul(v, Src::imm_f32(SIZE as f32));
        let x = b.alu(Op::F2I { signed: true }, Type::I32, [Src::val(x)]);
        let y = b.alu(Op::F2I { signed: true }, Type::I32, [Src::val(y)]);
        b.texture(
            0,
            0,
            TexKind::Fetch,
            TexDim::D2,
            [Src::val(x), Src::val(y), Src::imm(0)],
        )
    } else {
        b.texture(
            0,
            0,
            TexKind::Sample,
            TexDim::D2,
            [Src::val(u), Src::val(v)],
        )
    };
    let c: Vec<Src> = (0..4).map(|k| Src::comp(t, k)).collect();
    let word = abi::pack_unorm_4x8(&mut b, [c[0], c[1], c[2], c[3]]);
    b.store_tile(0, word);
    b.finish()
}

fn sampler(linear: bool) -> Sampler {
    let mut s = Sampler {
        mag_linear: linear,
        min_linear: linear,
        mip_filter: MipFilter::Nearest,
        wrap_s: Wrap::ClampToEdge,
        wrap_t: Wrap::ClampToEdge,
        border: BorderColour::TransparentBlack,
        compare_sense: true,
        compare_test: agx16_cmdstream::Hex(7),
        ..Default::default()
    };
    s.set_lod_range(0.0, 14.0);
    s
}

/// Texture, sampler and texels as the driver writes them.
fn memory(linear: bool) -> Vec<(u64, Vec<u8>)> {
    let l = ImageLayout::new(ImageDesc {
        levels: LEVELS,
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
        (SAMP_TABLE, sampler(linear).pack().unwrap()),
    ];
    for level in 0..LEVELS {
        for y in 0..SIZE >> level {
            for x in 0..SIZE >> level {
                let off = l.element_offset(level, 0, x, y, 0);
                w.push((TEXELS + off, texel_at(level, x, y).to_vec()));
            }
        }
    }
    w
}

/// Nearest texel of `level` at each pixel centre (GL's selection with clamp to edge).
fn reference_level(level: u32) -> Vec<[u8; 4]> {
    let s = SIZE >> level;
    let mut out = Vec::new();
    for py in 0..H {
        for px in 0..W {
            let u = (px as f64 + 0.5) / W as f64 * s as f64;
            let v = (py as f64 + 0.5) / H as f64 * s as f64;
            let c = |k: f64| (k.floor() as i64).clamp(0, s as i64 - 1) as u32;
            out.push(texel_at(level, c(u), c(v)));
        }
    }
    out
}

/// The reference colour at pixel (x, y): GL nearest or bilinear (clamp to edge) at the
/// pixel centre's (u, v) = ((x + ½) / W, (y + ½) / H).
fn reference(linear: bool) -> Vec<[u8; 4]> {
    let t = |i: i64, j: i64| {
        let c = |k: i64| k.clamp(0, SIZE as i64 - 1) as u32;
        texel(c(i), c(j)).map(|v| v as f32 / 255.0)
    };
    let mut out = Vec::new();
    for py in 0..H {
        for px in 0..W {
            let u = (px as f64 + 0.5) / W as f64 * SIZE as f64;
            let v = (py as f64 + 0.5) / H as f64 * SIZE as f64;
            let c = if linear {
                let (u, v) = (u - 0.5, v - 0.5);
                let (i, j) = (u.floor() as i64, v.floor() as i64);
                let (a, b) = ((u - u.floor()) as f32, (v - v.floor()) as f32);
                let (t00, t10, t01, t11) = (t(i, j), t(i + 1, j), t(i, j + 1), t(i + 1, j + 1));
                std::array::from_fn(|k| {
                    (1.0 - a) * (1.0 - b) * t00[k]
                        + a * (1.0 - b) * t10[k]
                        + (1.0 - a) * b * t01[k]
                        + a * b * t11[k]
                })
            } else {
                t(u.floor() as i64, v.floor() as i64)
            };
            out.push(c.map(unorm8));
        }
    }
    out
}

fn render(linear: bool, fetch: bool) -> Vec<[u8; 4]> {
    render_fs(linear, &fragment_program(fetch))
}

fn render_fs(linear: bool, fs: &Function) -> Vec<[u8; 4]> {
    let (got, publications) = render_fs_publications(linear, fs);
    assert_eq!(publications, 4, "one coordinate tuple");
    got
}

/// The image and the fragment program's publication extent.
fn render_fs_publications(linear: bool, fs: &Function) -> (Vec<[u8; 4]>, u32) {
    let (vc, vinfo) = abi::compile_ir_graphics(&vertex_program(), 0, Options::default()).unwrap();
    let (fc, finfo) = abi::compile_ir_graphics(fs, 0, Options::default()).unwrap();
    let publications = finfo.publications;
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
    // Three vertices size the draw (the vertex program computes them).
    let d = DrawSpec::tris(vec![rgba([0.0; 4], [0.0; 4]); 3], ShadeModel::Linear);
    (
        draw_with_memory(&d, &v, &f, &memory(linear)).unwrap().0,
        publications,
    )
}

fn assert_matches(got: &[[u8; 4]], want: &[[u8; 4]], tol: i32) {
    let bad: Vec<usize> = (0..got.len())
        .filter(|&k| (0..4).any(|c| (got[k][c] as i32 - want[k][c] as i32).abs() > tol))
        .collect();
    assert!(
        bad.is_empty(),
        "{} pixels differ, first {:?}: got {:?} want {:?}",
        bad.len(),
        bad.first(),
        bad.first().map(|&k| got[k]),
        bad.first().map(|&k| want[k])
    );
    let distinct: std::collections::HashSet<_> = got.iter().collect();
    assert!(
        distinct.len() > 16,
        "a textured image ({} colours)",
        distinct.len()
    );
}

#[test]
fn compiled_nearest_sample_matches_the_reference() {
    assert_matches(&render(false, false), &reference(false), 0);
}

#[test]
fn compiled_bilinear_sample_matches_the_reference() {
    assert_matches(&render(true, false), &reference(true), 1);
}

#[test]
fn compiled_texel_fetch_matches_the_reference() {
    // texelFetch(ivec2(uv * 16)) picks the texel nearest sampling picks.
    assert_matches(&render(true, true), &reference(false), 0);
}

/// The big triangle whose every vertex samples in the vertex program: colour outputs 4..7 =
/// (fetch.r, fetch.g, lod.b, lod.a) of texelFetch(t0, (3, 5), 1) and textureLod(t0, uv, 2) at
/// a constant uv, so the interpolated colour is the same at every pixel.
fn sampling_vertex_program(uv: [f32; 2]) -> Function {
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
    let fetch = b.texture(
        0,
        0,
        TexKind::Fetch,
        TexDim::D2,
        [Src::imm(3), Src::imm(5), Src::imm(1 << 22)],
    );
    let q6 = (2 * 64) << 16;
    let lod = b.texture(
        0,
        0,
        TexKind::Lod,
        TexDim::D2,
        [Src::imm_f32(uv[0]), Src::imm_f32(uv[1]), Src::imm(q6)],
    );
    b.store_output(0, x);
    b.store_output(1, y);
    b.store_output(2, Src::imm_f32(0.5));
    b.store_output(3, Src::imm_f32(1.0));
    b.store_output(4, Src::comp(fetch, 0));
    b.store_output(5, Src::comp(fetch, 1));
    b.store_output(6, Src::comp(lod, 2));
    b.store_output(7, Src::comp(lod, 3));
    b.finish()
}

/// `fragColor = v_colour` (varyings 1..4).
fn colour_fragment_program() -> Function {
    let mut b = Builder::new(Stage::Fragment);
    let c: Vec<Src> = (1..5)
        .map(|k| Src::val(b.load_varying(k, Interp::Linear)))
        .collect();
    let word = abi::pack_unorm_4x8(&mut b, [c[0], c[1], c[2], c[3]]);
    b.store_tile(0, word);
    b.finish()
}

/// Vertex texture fetch: the vertex launcher's roots 0 and 1 carry the tables, as the
/// fragment launcher's do (sim/GFX.md "Render-stage uniform ABI"); the vertex outputs'
/// publications start past the two coordinate tuples (isel/gfx.rs `GfxSelect::new`).
#[test]
fn compiled_vertex_fetch_and_explicit_lod_sample_in_the_vertex_program() {
    let uv = [0.7f32, 0.2];
    let (vc, vinfo) =
        abi::compile_ir_graphics(&sampling_vertex_program(uv), 0, Options::default()).unwrap();
    assert_eq!(
        vinfo.publications,
        2 * 4 + 8,
        "two tuples, then eight outputs"
    );
    let (fc, finfo) =
        abi::compile_ir_graphics(&colour_fragment_program(), 0, Options::default()).unwrap();
    let v = StageCode {
        code: vc.code,
        info: vinfo,
        roots: vec![TEX_TABLE, SAMP_TABLE, 0, 0, 0, 0],
    };
    let f = StageCode {
        code: fc.code,
        info: finfo,
        roots: vec![],
    };
    let d = DrawSpec::tris(vec![rgba([0.0; 4], [0.0; 4]); 3], ShadeModel::Linear);
    let got = draw_with_memory(&d, &v, &f, &memory(false)).unwrap().0;
    // Level 1 texel (3, 5); level 2 (4x4) nearest at uv.
    let a = texel_at(1, 3, 5);
    let s = SIZE >> 2;
    let b = texel_at(2, (uv[0] * s as f32) as u32, (uv[1] * s as f32) as u32);
    let want = [a[0], a[1], b[2], b[3]];
    assert!(
        got.iter()
            .all(|p| (0..4).all(|c| (p[c] as i32 - want[c] as i32).abs() <= 1)),
        "got {:?}, want {want:?} everywhere",
        got.iter().find(|p| **p != want)
    );
    // Without the tables in the vertex roots the model refuses the sample by name.
    let v = StageCode { roots: vec![], ..v };
    let e = draw_with_memory(&d, &v, &f, &memory(false)).unwrap_err();
    assert!(e.to_string().contains("table root"), "{e}");
}

#[test]
fn implicit_lod_texture_ops_outside_fragment_programs_are_refused() {
    let mut b = Builder::new(Stage::Vertex);
    let t = b.texture(
        0,
        0,
        TexKind::Sample,
        TexDim::D2,
        [Src::imm_f32(0.5), Src::imm_f32(0.5)],
    );
    b.store_output(0, Src::comp(t, 0));
    let e = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap_err();
    assert!(e.to_string().contains("implicit-LOD"), "{e}");
}

#[test]
fn compiled_explicit_lod_and_bias_select_the_level() {
    // 16x16 over 64 pixels magnifies (implicit λ = -2): an explicit LOD of 2 reads level 2,
    // a bias of 3.2 gives λ = 1.2, which nearest mip filtering rounds to level 1.
    let lod = render_fs(false, &lod_fragment_program(TexKind::Lod, 2.0));
    assert_eq!(lod, reference_level(2), "explicit LOD 2: level 2");
    let bias = render_fs(false, &lod_fragment_program(TexKind::Bias, 3.2));
    assert_eq!(bias, reference_level(1), "bias 3.2: level 1");
    assert_ne!(bias, reference(false), "the bias changes the image");
}

/// `fragColor = 1 - min(texture(t0, uv), 0.5)` written as `1 + max(-|t|, -0.5)`: abs and
/// negate on the components of the texture result (a tuple) feed `fmax`, whose form takes no
/// source modifiers; they become a sign-bit `or` on the component (found by dEQP: "abs source
/// modifier has no validated encoding" on fmax).
#[test]
fn modifiers_on_texture_components_feed_min_max() {
    let mut b = Builder::new(Stage::Fragment);
    let u = b.load_varying(1, Interp::Linear);
    let v = b.load_varying(2, Interp::Linear);
    let t = b.texture(
        0,
        0,
        TexKind::Sample,
        TexDim::D2,
        [Src::val(u), Src::val(v)],
    );
    let c: Vec<Src> = (0..4)
        .map(|k| {
            let neg_abs = Src {
                neg: true,
                abs: true,
                ..Src::comp(t, k)
            };
            let m = b.alu(Op::FMax, Type::F32, [neg_abs, Src::imm_f32(-0.5)]);
            Src::val(b.fadd(m, Src::imm_f32(1.0)))
        })
        .collect();
    let word = abi::pack_unorm_4x8(&mut b, [c[0], c[1], c[2], c[3]]);
    b.store_tile(0, word);
    let got = render_fs(false, &b.finish());
    let mut want = Vec::new();
    for py in 0..H {
        for px in 0..W {
            let x = ((px as f64 + 0.5) / W as f64 * SIZE as f64).floor() as u32;
            let y = ((py as f64 + 0.5) / H as f64 * SIZE as f64).floor() as u32;
            want.push(texel(x, y).map(|t| unorm8(1.0 - (t as f32 / 255.0).min(0.5))));
        }
    }
    assert_matches(&got, &want, 1);
}

/// Twelve nearest lookups of one texture, texel column x + k for k = 0..11 (clamped), weighted
/// (k + 1) / 78: more texture ops than the eight coordinate tuples, so the scoreboard pass
/// reuses tuples of completed lookups (the model refuses a tuple rewritten while its lookup
/// is in flight, and the distinct weights catch a lookup that read another's coordinates).
#[test]
fn twelve_lookups_of_one_texture_reuse_completed_coordinate_tuples() {
    const N: u32 = 12;
    let mut b = Builder::new(Stage::Fragment);
    let u = b.load_varying(1, Interp::Linear);
    let v = b.load_varying(2, Interp::Linear);
    let mut acc: Vec<Option<Value>> = vec![None; 4];
    for k in 0..N {
        let uk = b.fadd(u, Src::imm_f32(k as f32 / SIZE as f32));
        let t = b.texture(
            0,
            0,
            TexKind::Sample,
            TexDim::D2,
            [Src::val(uk), Src::val(v)],
        );
        let w = (k + 1) as f32 / 78.0;
        for (c, a) in acc.iter_mut().enumerate() {
            let term = b.fmul(Src::comp(t, c as u8), Src::imm_f32(w));
            *a = Some(match *a {
                None => term,
                Some(x) => b.fadd(x, Src::val(term)),
            });
        }
    }
    let c: Vec<Src> = acc.iter().map(|a| Src::val(a.unwrap())).collect();
    let word = abi::pack_unorm_4x8(&mut b, [c[0], c[1], c[2], c[3]]);
    b.store_tile(0, word);
    let (got, publications) = render_fs_publications(false, &b.finish());
    assert!(
        publications % 4 == 0 && (4..=24).contains(&publications),
        "at most six lookups in flight (six slots), so at most six tuples: {publications}"
    );
    let mut want = Vec::new();
    for py in 0..H {
        for px in 0..W {
            let x = ((px as f64 + 0.5) / W as f64 * SIZE as f64).floor() as u32;
            let y = ((py as f64 + 0.5) / H as f64 * SIZE as f64).floor() as u32;
            let mut sum = [0f32; 4];
            for k in 0..N {
                let t = texel((x + k).min(SIZE - 1), y.min(SIZE - 1));
                for c in 0..4 {
                    sum[c] += t[c] as f32 / 255.0 * (k + 1) as f32 / 78.0;
                }
            }
            want.push(sum.map(unorm8));
        }
    }
    assert_matches(&got, &want, 1);
}

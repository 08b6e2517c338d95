//! Texture sampling on the render model (sim/GFX.md "Textures"): a real G16 fragment body
//! publishes its interpolated (u, v) with two `fmul_export`s (the packer's coordinate
//! tuple), samples a twiddled RGBA8 texture through `tex_sample` (T8132 TEXTURE_SAMPLE
//! packer shape) from the texture and sampler tables its launcher's roots 0 and 1 name,
//! takes the result over with `fadd`s waiting on the sample's completion slot, packs it
//! with `pack_unorm8x2` and stores it to the tilebuffer. A full-screen quad draws it; the
//! image is compared with a CPU reference sampler written here from the OpenGL ES 3.0
//! rules (nearest, bilinear, mip selection, wrap modes), sharing no code with the model.
//! Controls: a consumer waiting on another slot reads zeros (the image is black), bad
//! descriptors are refused by name, an unmapped texture table faults at its address.

mod gfx_common;

use agx16_cmdstream::descriptors::{
    BorderColour, Channels, MipFilter, NumericType, Sampler, Swizzle, Wrap,
};
use agx16_cmdstream::launch::{entry_offset, jump_any};
use agx16_cmdstream::layout::{ImageDesc, ImageLayout, Tiling};
use agx16_cmdstream::render::ZlsControl;
use agx16_cmdstream::texture_layout::{texture_for, TextureFormat};
use agx16_cmdstream::Record;
use agx16_isa::meaning::{
    arg_store_instr, launch_frame_instr, pointer_load_instr, stage_allocation_instr,
    stage_target_instr, StageAllocation,
};
use agx16_isa::{encode_program, Instr, Part, Role};
use agx16_sim::gfx::VertexInvocation;
use agx16_sim::gfx::{self, Fragment, FragmentResult, IsaStages, Stages, TileBuffer};
use agx16_sim::{GpuMemory, SimError};
use gfx_common::*;

const FRAG_LAUNCHER: u64 = USC + 0x9000; // the harness's PPP fragment launch
const FRAG_BODY: u64 = USC + 0x50000;
const DATA: u64 = 0x8_0000_0000;
const ROOTS: u64 = DATA;
const TEX_TABLE: u64 = DATA + 0x1000;
const SAMP_TABLE: u64 = DATA + 0x2000;
const TEXELS: u64 = 0x9_0000_0000;
const TEXELS_LEN: u64 = 0x40000;

/// Slot the sample completes on in the tests (its tag is slot - 1).
const TEX_SLOT: u64 = 2;

fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

// ---- the fragment body ----

fn iter(dst: u64, cf: u64) -> Instr {
    b(
        "iter",
        &[
            ("b1_01", 1),
            ("b2_hi", 0x15),
            ("dst", dst),
            ("coeff_sel", 3),
            ("slot", cf),
            ("b7", 2),
            ("loc", 0x10),
        ],
    )
}

fn mov(dst: u32, v: u32) -> Instr {
    let mut i = b("mov_imm32", &[("imm", v as u64)]);
    i.set_gpr(Role::Dst, dst, Part::Full).unwrap();
    i
}

/// Publication `p` := r`a` * r`bb` on slot 1 (packer TEXTURE_COORDS: x·1, y·1).
fn export_mul(p: u64, a: u64, bb: u64) -> Instr {
    b(
        "fmul_export",
        &[
            ("dst", p),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("b_size", 1),
            ("b", bb),
            ("b_keep", 1),
            ("publish", 1),
            ("slot", 0),
        ],
    )
}

/// Publication `p` := r`a` (bit copy, packer LOD_PARAMS: `logic_export` of a | a).
fn export_copy(p: u64, a: u64) -> Instr {
    b(
        "logic_export",
        &[
            ("dst", p),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("op_base", 1),
            ("b_size", 1),
            ("b", a),
            ("b_keep", 1),
            ("lut_a_sel", 2),
            ("lut_b3", 1),
            ("slot", 0),
        ],
    )
}

/// The packer's TEXTURE_SAMPLE shape: r4..r7 = RGBA of texture 0 / sampler 0 at
/// publication 0, completing on `TEX_SLOT`; `v6`/`v7` the operation pair.
fn tex(v6: u64, v7: u64, texture: u64, sampler: u64) -> Instr {
    let mode = if v6 & 0x80 != 0 { 0 } else { 0x10 };
    b(
        "tex_sample",
        &[
            ("dst", 4),
            ("coord", 0),
            ("texture", texture),
            ("sampler", sampler),
            ("b1_7", 1),
            ("mask_sel", 7),
            ("b3_hi", 5),
            ("b4_35", 2),
            ("b4_38", 2),
            ("slot", TEX_SLOT - 1),
            ("slot_hi", TEX_SLOT - 1),
            ("variant", v6),
            ("extra_coord", v7),
            ("mode", mode),
            ("tex_type", 1),
        ],
    )
}

fn fadd(dst: u64, a: u64, bb: u64, wait: u64) -> Instr {
    b(
        "fadd",
        &[
            ("wait", wait),
            ("dst", dst),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("b_size", 1),
            ("b", bb),
            ("b_keep", 1),
        ],
    )
}

fn pack8(half: u64, a: u64, bb: u64) -> Instr {
    b(
        "pack_unorm8x2",
        &[
            ("dst_half", half),
            ("dst", 8),
            ("b4", 2),
            ("a", a),
            ("b", bb),
            ("b7_hi", 0x14),
            ("b8", 0x44),
        ],
    )
}

/// How the body forms its coordinates.
#[derive(Clone, Copy)]
enum Coords {
    /// (u, v) from coefficients 1 and 2, as `texture(s, uv)`.
    Sample,
    /// (u, v) and an explicit LOD word, as `textureLod(s, uv, lod)`.
    Lod(f32),
    /// (u, v) and a bias word, as `texture(s, uv, bias)`.
    Bias(f32),
    /// Constant integer (x, y) and level, as `texelFetch(s, ivec2(x, y), level)`.
    Fetch(u32, u32, u32),
}

/// A second sample through the same coordinate tuple, of (v, u).
#[derive(Clone, Copy, PartialEq)]
enum Reuse {
    No,
    /// After the first sample's results were taken over (its completion waited on).
    AfterCompletion,
    /// While the first sample is still in flight.
    InFlight,
}

/// Publications 0 and 1 := (v, u) from r1 and r0 (r2 = 1.0), then the same sample again.
fn resample_transposed(p: &mut Vec<Instr>) {
    p.extend([export_mul(0, 1, 2), export_mul(1, 0, 2), tex(0, 0, 0, 0)]);
}

fn fragment_body(c: Coords, wait: u64, reuse: Reuse) -> Vec<u8> {
    let mut p = vec![];
    match c {
        Coords::Sample => {
            p.extend([iter(0, 1), iter(1, 2), mov(2, 1.0f32.to_bits())]);
            p.extend([export_mul(0, 0, 2), export_mul(1, 1, 2), tex(0, 0, 0, 0)]);
        }
        Coords::Lod(l) | Coords::Bias(l) => {
            let q6 = ((l * 64.0).floor() as i32 as u32 & 0xfff) << 16;
            p.extend([iter(0, 1), iter(1, 2), mov(2, q6)]);
            p.extend([export_copy(0, 0), export_copy(1, 1), export_copy(3, 2)]);
            // 00/01 explicit LOD, 04/00 bias (the packer's bias flag).
            p.push(match c {
                Coords::Lod(_) => tex(0, 1, 0, 0),
                _ => tex(4, 0, 0, 0),
            });
        }
        Coords::Fetch(x, y, level) => {
            p.extend([mov(0, x), mov(1, y), mov(2, level << 22)]);
            p.extend([export_copy(0, 0), export_copy(1, 1), export_copy(3, 2)]);
            p.push(tex(0x80, 0x24, 0, 0));
        }
    }
    if reuse == Reuse::InFlight {
        resample_transposed(&mut p);
    }
    p.push(mov(3, 0));
    for k in 0..4 {
        p.push(fadd(9 + k, 4 + k, 3, wait));
    }
    if reuse == Reuse::AfterCompletion {
        resample_transposed(&mut p);
        for k in 0..4 {
            p.push(fadd(9 + k, 4 + k, 3, wait));
        }
    }
    p.extend([pack8(0, 9, 10), pack8(1, 11, 12)]);
    p.extend([
        b("tile_setup", &[("b1", 2), ("access", 0x600)]),
        b("tile_setup", &[("b1", 2), ("access", 0x80c)]),
        b(
            "tile_store",
            &[("mode", 0x54), ("src", 8), ("mask", 1), ("fmt", 0x4e)],
        ),
        b("tile_fence", &[("access", 0x20c)]),
        b("stop", &[]),
    ]);
    encode_program(&p)
}

// ---- launcher: six graphics roots (texture table, sampler table, four zero) ----

fn launcher_program(entry: u64) -> Vec<u8> {
    let roots = 6u32;
    let mut p = vec![mov(2, ROOTS as u32), mov(3, (ROOTS >> 32) as u32)];
    for q in (0..roots).step_by(2).rev() {
        p.push(pointer_load_instr(18 + 2 * q, 2, q as u8, 2).unwrap());
    }
    p.push(
        stage_allocation_instr(StageAllocation::Tile {
            samples: 1,
            units: 1,
        })
        .unwrap(),
    );
    p.push(stage_target_instr(entry).unwrap());
    p.push(launch_frame_instr(4, 0, 0).unwrap());
    for w in 0..2 * roots {
        p.push(arg_store_instr(w, 18 + w, w == 0).unwrap());
    }
    p.push(b("stop", &[]));
    encode_program(&p)
}

// ---- stages: host vertices, the hardware fragment path, host tile programs ----

struct TexStages {
    isa: IsaStages,
}

impl Stages for TexStages {
    fn vertex(
        &mut self,
        mem: &dyn GpuMemory,
        inv: &VertexInvocation,
    ) -> Result<Vec<f32>, SimError> {
        let mut b = [0u8; 32];
        mem.read(
            VB + 0x1000 * inv.draw as u64 + 32 * inv.vertex_id as u64,
            &mut b,
        )?;
        Ok(b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect())
    }
    fn background(
        &mut self,
        _: &dyn GpuMemory,
        _: u64,
        tile: &mut TileBuffer,
    ) -> Result<(), SimError> {
        for px in tile.bytes.chunks_mut(4) {
            px.copy_from_slice(&CLEAR);
        }
        Ok(())
    }
    fn fragment(
        &mut self,
        mem: &dyn GpuMemory,
        f: &Fragment,
        tile: &mut TileBuffer,
    ) -> Result<FragmentResult, SimError> {
        self.isa.fragment(mem, f, tile)
    }
    fn fragments(
        &mut self,
        mem: &dyn GpuMemory,
        quad: &[Fragment],
        tile: &mut TileBuffer,
    ) -> Result<Vec<FragmentResult>, SimError> {
        self.isa.fragments(mem, quad, tile)
    }
    fn end_of_tile(
        &mut self,
        mem: &dyn GpuMemory,
        _: u64,
        tile: &TileBuffer,
    ) -> Result<(), SimError> {
        for y in 0..tile.height {
            for x in 0..tile.width {
                let (px, py) = (tile.origin.0 + x, tile.origin.1 + y);
                if px < W && py < H {
                    mem.write(
                        IMG + 4 * (py * W + px) as u64,
                        tile.sample(x, y, 0).unwrap(),
                    )?;
                }
            }
        }
        Ok(())
    }
}

// ---- the texture ----

/// A test texture: `size` x `size`, `levels` levels, texel colours from `texel`.
struct Tex {
    size: u32,
    levels: u32,
    srgb: bool,
}

/// Distinct colours per texel and level (no two neighbours equal).
fn texel(level: u32, x: u32, y: u32) -> [u8; 4] {
    [
        (x * 37 + y * 11 + level * 70) as u8,
        (y * 53 + x * 7 + 30) as u8,
        (level * 90 + x * 5 + y * 3) as u8,
        (200 + x + y) as u8,
    ]
}

fn upload(pt: &agx16_sim::PageTable, t: &Tex) -> ImageLayout {
    let l = ImageLayout::new(ImageDesc {
        levels: t.levels,
        ..ImageDesc::simple_2d(t.size, t.size, 4, Tiling::Twiddled)
    })
    .unwrap();
    assert!(l.total_bytes() <= TEXELS_LEN);
    for level in 0..t.levels {
        let s = (t.size >> level).max(1);
        for y in 0..s {
            for x in 0..s {
                let off = l.element_offset(level, 0, x, y, 0);
                pt.host_write(TEXELS + off, &texel(level, x, y)).unwrap();
            }
        }
    }
    l
}

fn rgba8(srgb: bool) -> TextureFormat {
    TextureFormat {
        channels: Channels::R8G8B8A8,
        numeric_type: NumericType::Unorm,
        swizzle: [Swizzle::R, Swizzle::G, Swizzle::B, Swizzle::A],
        srgb,
    }
}

fn sampler(linear: bool, mip: MipFilter, wrap: Wrap) -> Sampler {
    let mut s = Sampler {
        mag_linear: linear,
        min_linear: linear,
        mip_filter: mip,
        wrap_s: wrap,
        wrap_t: wrap,
        wrap_r: wrap,
        border: BorderColour::OpaqueWhite,
        compare_sense: true,
        compare_test: agx16_cmdstream::Hex(7),
        ..Default::default()
    };
    s.set_lod_range(0.0, 14.0);
    s
}

// ---- a render ----

struct Setup {
    tex: Tex,
    smp: Sampler,
    coords: Coords,
    /// Texture coordinate range across the screen (u from 0 to `scale`, v likewise).
    scale: f32,
    wait: u64,
    /// Overwrites the descriptor before the render.
    patch: Option<fn(&mut Vec<u8>)>,
    map_tables: bool,
    reuse: Reuse,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            tex: Tex {
                size: 16,
                levels: 1,
                srgb: false,
            },
            smp: sampler(false, MipFilter::None, Wrap::ClampToEdge),
            coords: Coords::Sample,
            scale: 1.0,
            wait: TEX_SLOT,
            patch: None,
            map_tables: true,
            reuse: Reuse::No,
        }
    }
}

fn quad(scale: f32) -> DrawSpec {
    // u = (x_clip + 1) / 2 * scale, v = (1 - y_clip) / 2 * scale (window y grows downwards).
    let v = |x: f32, y: f32| {
        rgba(
            [x, y, 0.5, 1.0],
            [(x + 1.0) / 2.0 * scale, (1.0 - y) / 2.0 * scale, 0.0, 1.0],
        )
    };
    let (a, bb, c, d) = (v(-1.0, -1.0), v(1.0, -1.0), v(1.0, 1.0), v(-1.0, 1.0));
    DrawSpec::tris(
        vec![a, bb, c, a, c, d],
        agx16_cmdstream::descriptors::ShadeModel::Linear,
    )
}

fn render(s: &Setup) -> Result<Vec<[u8; 4]>, SimError> {
    let scene = build(&[quad(s.scale)], ZlsControl::default());
    let pt = &scene.pt;
    pt.map(DATA, 0x4000, true, false).unwrap();
    pt.map(TEXELS, TEXELS_LEN, true, false).unwrap();
    let l = upload(pt, &s.tex);
    let mut desc = texture_for(&l, TEXELS, rgba8(s.tex.srgb))
        .unwrap()
        .pack()
        .unwrap();
    if let Some(p) = s.patch {
        p(&mut desc);
    }
    let (tt, st) = if s.map_tables {
        (TEX_TABLE, SAMP_TABLE)
    } else {
        (0xa_0000_0000, 0xa_0000_1000)
    };
    let mut roots: Vec<u8> = [tt, st, 0, 0, 0, 0]
        .iter()
        .flat_map(|q: &u64| q.to_le_bytes())
        .collect();
    roots.resize(48, 0);
    pt.host_write(ROOTS, &roots).unwrap();
    pt.host_write(TEX_TABLE, &desc).unwrap();
    pt.host_write(SAMP_TABLE, &s.smp.pack().unwrap()).unwrap();
    let fe = entry_offset(1);
    pt.host_write(FRAG_LAUNCHER, &launcher_program(fe)).unwrap();
    let jump = agx16_isa::decode(&jump_any((FRAG_BODY - (USC + fe)) as i64).unwrap()).unwrap();
    pt.host_write(USC + fe, &encode_program(&[jump, b("stop", &[])]))
        .unwrap();
    pt.host_write(FRAG_BODY, &fragment_body(s.coords, s.wait, s.reuse))
        .unwrap();
    let mut st = TexStages {
        isa: IsaStages::default(),
    };
    gfx::run_render_with(pt, &scene.command(), &mut st)?;
    Ok(image(pt))
}

// ---- the CPU reference (OpenGL ES 3.0 §3.8.10-11) ----

fn ref_texel(t: &Tex, level: u32, i: i64, j: i64, wrap: Wrap) -> [f32; 4] {
    let s = (t.size >> level).max(1) as i64;
    let fix = |k: i64| -> Option<i64> {
        match wrap {
            Wrap::Repeat => Some(((k % s) + s) % s),
            Wrap::MirroredRepeat => {
                let m = ((k % (2 * s)) + 2 * s) % (2 * s);
                Some(if m < s { m } else { 2 * s - 1 - m })
            }
            Wrap::ClampToBorder => (0..s).contains(&k).then_some(k),
            _ => Some(k.max(0).min(s - 1)),
        }
    };
    match (fix(i), fix(j)) {
        (Some(i), Some(j)) => {
            let c = texel(level, i as u32, j as u32);
            let mut f = c.map(|v| v as f32 / 255.0);
            if t.srgb {
                for v in &mut f[..3] {
                    *v = if *v <= 0.04045 {
                        *v / 12.92
                    } else {
                        ((*v + 0.055) / 1.055).powf(2.4)
                    };
                }
            }
            f
        }
        _ => [1.0; 4], // opaque white border
    }
}

fn ref_level(t: &Tex, level: u32, u: f64, v: f64, linear: bool, wrap: Wrap) -> [f32; 4] {
    let s = (t.size >> level).max(1) as f64;
    let (x, y) = (u * s, v * s);
    if !linear {
        return ref_texel(t, level, x.floor() as i64, y.floor() as i64, wrap);
    }
    let (x, y) = (x - 0.5, y - 0.5);
    let (i, j) = (x.floor() as i64, y.floor() as i64);
    let (a, bb) = ((x - x.floor()) as f32, (y - y.floor()) as f32);
    let t00 = ref_texel(t, level, i, j, wrap);
    let t10 = ref_texel(t, level, i + 1, j, wrap);
    let t01 = ref_texel(t, level, i, j + 1, wrap);
    let t11 = ref_texel(t, level, i + 1, j + 1, wrap);
    std::array::from_fn(|c| {
        (1.0 - a) * (1.0 - bb) * t00[c]
            + a * (1.0 - bb) * t10[c]
            + (1.0 - a) * bb * t01[c]
            + a * bb * t11[c]
    })
}

/// The expected image: pixel (x, y) samples at its centre's (u, v); λ from the screen-space
/// scale of the coordinates (GL's ρ = texels per pixel).
fn reference(s: &Setup) -> Vec<[u8; 4]> {
    let t = &s.tex;
    let mut out = vec![[0u8; 4]; (W * H) as usize];
    for y in 0..H {
        for x in 0..W {
            let u = (x as f64 + 0.5) / W as f64 * s.scale as f64;
            let v = (y as f64 + 0.5) / H as f64 * s.scale as f64;
            let (u, v) = if s.reuse == Reuse::AfterCompletion {
                (v, u)
            } else {
                (u, v)
            };
            let c = match s.coords {
                Coords::Fetch(i, j, level) => {
                    ref_texel(t, level, i as i64, j as i64, Wrap::ClampToEdge)
                }
                _ => {
                    let implicit = (s.scale as f64 * t.size as f64 / W as f64).log2();
                    let lambda = match s.coords {
                        Coords::Lod(l) => l as f64,
                        Coords::Bias(b) => implicit + b as f64,
                        _ => implicit,
                    };
                    let (min, max) = s.smp.lod_range();
                    let lambda = lambda.clamp(min as f64, max as f64);
                    let top = t.levels as f64 - 1.0;
                    let minify = lambda > 0.0;
                    let linear = if minify {
                        s.smp.min_linear
                    } else {
                        s.smp.mag_linear
                    };
                    let w = s.smp.wrap_s;
                    match (s.smp.mip_filter, minify) {
                        (MipFilter::Nearest, true) => {
                            let d = (lambda + 0.5).floor().min(top) as u32;
                            ref_level(t, d, u, v, linear, w)
                        }
                        (MipFilter::Linear, true) => {
                            let d0 = lambda.floor().min(top);
                            let d1 = (d0 + 1.0).min(top);
                            let f = if d0 >= top { 0.0 } else { (lambda - d0) as f32 };
                            let a = ref_level(t, d0 as u32, u, v, linear, w);
                            let bb = ref_level(t, d1 as u32, u, v, linear, w);
                            std::array::from_fn(|c| (1.0 - f) * a[c] + f * bb[c])
                        }
                        _ => ref_level(t, 0, u, v, linear, w),
                    }
                }
            };
            out[(y * W + x) as usize] = c.map(unorm8);
        }
    }
    out
}

/// Pixels differing from the reference by more than `tol` 8-bit steps in any channel.
fn mismatches(got: &[[u8; 4]], want: &[[u8; 4]], tol: i32) -> usize {
    got.iter()
        .zip(want)
        .filter(|(g, w)| (0..4).any(|c| (g[c] as i32 - w[c] as i32).abs() > tol))
        .count()
}

fn check(s: &Setup, tol: i32) {
    let got = render(s).unwrap();
    let want = reference(s);
    let bad = mismatches(&got, &want, tol);
    assert_eq!(
        bad,
        0,
        "{bad} of {} pixels differ; first: {:?}",
        got.len(),
        got.iter().zip(&want).enumerate().find(|(_, (g, w))| g != w)
    );
    // The pattern is not flat: a constant image would hide addressing errors.
    let distinct: std::collections::HashSet<_> = got.iter().collect();
    assert!(
        distinct.len() > 8,
        "the image has {} colours",
        distinct.len()
    );
}

// ---- tests ----

#[test]
fn nearest_magnified_texture_matches_the_reference() {
    check(&Setup::default(), 0);
}

#[test]
fn bilinear_magnified_texture_matches_the_reference() {
    check(
        &Setup {
            smp: sampler(true, MipFilter::None, Wrap::ClampToEdge),
            ..Setup::default()
        },
        1,
    );
}

#[test]
fn wrap_modes_match_the_reference() {
    for wrap in [
        Wrap::Repeat,
        Wrap::MirroredRepeat,
        Wrap::ClampToEdge,
        Wrap::ClampToBorder,
    ] {
        for linear in [false, true] {
            let s = Setup {
                smp: sampler(linear, MipFilter::None, wrap),
                // u, v run from 0 to 2.5: past the edge on both axes, still magnified (λ < 0).
                scale: 2.5,
                tex: Tex {
                    size: 16,
                    levels: 1,
                    srgb: false,
                },
                ..Setup::default()
            };
            let got = render(&s).unwrap();
            let bad = mismatches(&got, &reference(&s), linear as i32);
            assert_eq!(bad, 0, "{wrap:?} linear={linear}: {bad} pixels differ");
        }
    }
}

#[test]
fn mipmapped_minification_selects_the_reference_level() {
    // 128x128 with 8 levels drawn with u, v from 0 to 4 over 64 pixels: 8 texels per pixel,
    // λ = 3.
    for (mip, linear) in [
        (MipFilter::Nearest, false),
        (MipFilter::Linear, true),
        (MipFilter::Nearest, true),
    ] {
        let s = Setup {
            tex: Tex {
                size: 128,
                levels: 8,
                srgb: false,
            },
            smp: sampler(linear, mip, Wrap::Repeat),
            scale: 4.0,
            ..Setup::default()
        };
        let got = render(&s).unwrap();
        let bad = mismatches(&got, &reference(&s), 1);
        assert_eq!(bad, 0, "{mip:?} linear={linear}: {bad} pixels differ");
        // Level 0 would be a different image: the selection matters.
        let mut base = Setup {
            smp: sampler(linear, MipFilter::None, Wrap::Repeat),
            ..s
        };
        base.tex.levels = 8;
        assert_ne!(
            render(&base).unwrap(),
            got,
            "{mip:?}: mip selection changes the image"
        );
    }
}

#[test]
fn explicit_lod_selects_that_level() {
    for lod in [1.0f32, 2.0, 2.5] {
        let s = Setup {
            tex: Tex {
                size: 64,
                levels: 7,
                srgb: false,
            },
            smp: sampler(false, MipFilter::Linear, Wrap::Repeat),
            coords: Coords::Lod(lod),
            ..Setup::default()
        };
        let got = render(&s).unwrap();
        let bad = mismatches(&got, &reference(&s), 1);
        assert_eq!(bad, 0, "lod {lod}: {bad} pixels differ");
    }
}

#[test]
fn a_bias_shifts_the_implicit_level() {
    // 128x128, 8 levels, u and v from 0 to 2 over 64 pixels: implicit λ = 2; biases move it.
    for bias in [-1.0f32, 1.5, 3.0] {
        let s = Setup {
            tex: Tex {
                size: 128,
                levels: 8,
                srgb: false,
            },
            smp: sampler(false, MipFilter::Nearest, Wrap::Repeat),
            coords: Coords::Bias(bias),
            scale: 2.0,
            ..Setup::default()
        };
        let got = render(&s).unwrap();
        let bad = mismatches(&got, &reference(&s), 0);
        assert_eq!(bad, 0, "bias {bias}: {bad} pixels differ");
    }
}

#[test]
fn srgb_texels_are_decoded_before_filtering() {
    check(
        &Setup {
            tex: Tex {
                size: 16,
                levels: 1,
                srgb: true,
            },
            smp: sampler(true, MipFilter::None, Wrap::Repeat),
            ..Setup::default()
        },
        1,
    );
}

#[test]
fn texel_fetch_reads_the_addressed_texel_of_the_level() {
    for (x, y, level) in [(5, 7, 0), (3, 1, 1), (0, 0, 3)] {
        let s = Setup {
            tex: Tex {
                size: 32,
                levels: 4,
                srgb: false,
            },
            coords: Coords::Fetch(x, y, level),
            ..Setup::default()
        };
        let got = render(&s).unwrap();
        let want = unorm8_texel(level, x, y);
        assert!(
            got.iter().all(|c| *c == want),
            "fetch ({x}, {y}) level {level}: {:?} vs {want:?}",
            got[0]
        );
    }
}

fn unorm8_texel(level: u32, x: u32, y: u32) -> [u8; 4] {
    texel(level, x, y)
}

#[test]
fn a_consumer_waiting_on_another_slot_reads_zero() {
    let s = Setup {
        wait: 3,
        ..Setup::default()
    };
    let got = render(&s).unwrap();
    assert!(got.iter().all(|c| *c == [0; 4]), "{:?}", got[0]);
    assert_ne!(got, reference(&s));
}

#[test]
fn bad_descriptors_are_refused_by_name() {
    let refused = |patch: fn(&mut Vec<u8>), what: &str| {
        let e = render(&Setup {
            patch: Some(patch),
            ..Setup::default()
        })
        .unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(what), "{what}: {msg}");
        assert!(msg.contains("tex_sample"), "names the instruction: {msg}");
    };
    // R32 float instead of RGBA8 unorm (byte0 0x62, byte1 0x88 as the agx-re capture): the
    // identity swizzle selects G, B, A, which R32 does not have.
    refused(
        |d| (d[0], d[1]) = (0x62, 0x88),
        "which has no such component",
    );
    // RGBA8 with numeric type float (byte1 = 4 << 5 | size class 0x0a): never captured.
    refused(|d| d[1] = 0x8a, "no M4 capture");
    // A 3D descriptor read by a 2D op.
    refused(
        |d| d[0] = (d[0] & 0xf0) | 5,
        "only matching pairs are modelled",
    );
    // An undocumented bit in word 7.
    refused(|d| d[31] |= 0x40, "texture descriptor");
    // The G13 twiddled layout code (bits 4..5 = 1).
    refused(|d| d[0] = (d[0] & !0x30) | 0x10, "layout");
}

#[test]
fn an_unmapped_texture_table_faults_at_its_address() {
    let e = render(&Setup {
        map_tables: false,
        ..Setup::default()
    })
    .unwrap_err();
    match e {
        SimError::Fault(f) => assert!(f.to_string().contains("a00000000"), "{f}"),
        other => panic!("{other}"),
    }
}

#[test]
fn anisotropic_and_shadow_samplers_are_refused() {
    let mut smp = sampler(true, MipFilter::None, Wrap::Repeat);
    smp.max_anisotropy_log2 = 2;
    let e = render(&Setup {
        smp,
        ..Setup::default()
    })
    .unwrap_err();
    assert!(e.to_string().contains("anisotropic"), "{e}");
}

#[test]
fn a_coordinate_tuple_is_reused_once_its_sample_completed() {
    // The second sample reads (v, u) from the tuple the first one read: the image is the
    // transposed reference, so the second sample read the rewritten coordinates.
    let s = Setup {
        reuse: Reuse::AfterCompletion,
        ..Setup::default()
    };
    check(&s, 0);
    assert_ne!(
        render(&s).unwrap(),
        reference(&Setup::default()),
        "the transposed image differs from the plain one"
    );
}

#[test]
fn rewriting_a_coordinate_tuple_before_its_sample_completes_is_refused() {
    let e = render(&Setup {
        reuse: Reuse::InFlight,
        ..Setup::default()
    })
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("publication 0 rewritten while the sample that reads it has not completed"),
        "{msg}"
    );
}

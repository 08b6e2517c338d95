//! 2D-array, cube and 3D sampling through `execute`, against CPU references written from OpenGL ES
//! 3.0 §3.8.10-11 (nearest / trilinear formulas spelled out here, not the model's `filter`).

use super::*;
use crate::mem::PageTable;
use agx16_cmdstream::descriptors::{Channels, NumericType};
use agx16_cmdstream::layout::{ImageDesc, Kind, Tiling};
use agx16_cmdstream::texture_layout::{texture_for, TextureFormat};
use agx16_isa::meaning::TextureOp;

const TABLES: u64 = 0x8_0000_0000;
const TEXELS: u64 = 0x9_0000_0000;

fn colour(level: u32, plane: u32, x: u32, y: u32) -> [u8; 4] {
    [
        (x * 29 + y * 7 + plane * 50) as u8,
        (y * 31 + x * 3 + level * 90) as u8,
        (plane * 70 + x + y * 5 + 11) as u8,
        (255 - level * 20 - plane) as u8,
    ]
}

struct Fixture {
    pt: PageTable,
    layout: ImageLayout,
    roots: Vec<u32>,
}

/// A twiddled RGBA8 image of `kind` with every plane of every level filled with `colour`,
/// its descriptor at texture index 0 and `smp` at sampler index 0.
fn fixture(kind: Kind, w: u32, h: u32, planes: u32, levels: u32, smp: Sampler) -> Fixture {
    let layout = ImageLayout::new(ImageDesc {
        width: w,
        height: h,
        layers: planes,
        levels,
        kind,
        ..ImageDesc::simple_2d(w, h, 4, Tiling::Twiddled)
    })
    .unwrap();
    let pt = PageTable::new();
    pt.map(TABLES, 0x4000, true, false).unwrap();
    pt.map(
        TEXELS,
        layout.total_bytes().next_multiple_of(0x4000),
        true,
        false,
    )
    .unwrap();
    for level in 0..levels {
        let p = layout.levels[level as usize].plane;
        let depth = if kind == Kind::D3 {
            (planes >> level).max(1)
        } else {
            layout.planes
        };
        for z in 0..depth {
            for y in 0..p.height {
                for x in 0..p.width {
                    let va = TEXELS + layout.element_offset(level, z, x, y, 0);
                    pt.host_write(va, &colour(level, z, x, y)).unwrap();
                }
            }
        }
    }
    let f = TextureFormat {
        channels: Channels::R8G8B8A8,
        numeric_type: NumericType::Unorm,
        swizzle: [Swizzle::R, Swizzle::G, Swizzle::B, Swizzle::A],
        srgb: false,
    };
    let desc = texture_for(&layout, TEXELS, f).unwrap();
    pt.host_write(TABLES, &desc.pack().unwrap()).unwrap();
    pt.host_write(TABLES + 0x1000, &smp.pack().unwrap())
        .unwrap();
    let t = TABLES;
    let s = TABLES + 0x1000;
    let roots = vec![t as u32, (t >> 32) as u32, s as u32, (s >> 32) as u32];
    Fixture { pt, layout, roots }
}

fn smp(linear: bool, wrap: Wrap) -> Sampler {
    let mut s = Sampler {
        mag_linear: linear,
        min_linear: linear,
        mip_filter: MipFilter::Nearest,
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

fn op(dims: u8, array: bool, access: TextureAccess) -> TexInstr {
    TexInstr {
        dst: 0,
        coord: 0,
        texture: 0,
        sampler: 0,
        mask: 0xf,
        slot: 1,
        op: TextureOp {
            dims,
            array,
            cube: false,
            access,
            shadow: false,
        },
        retire_helpers: false,
    }
}

fn q6(lod: f32) -> u32 {
    (((lod * 64.0).floor() as i32 as u32) & 0xfff) << 16
}

fn run(f: &Fixture, t: &TexInstr, lanes: &[[u32; 4]]) -> Result<Vec<[f32; 4]>, TexError> {
    let inputs: Vec<Option<LaneInput>> = lanes
        .iter()
        .map(|&w| Some(LaneInput { words: w }))
        .collect();
    let rows = execute(&f.pt, &f.roots, t, &inputs, None)?;
    Ok((0..lanes.len())
        .map(|l| std::array::from_fn(|c| f32::from_bits(rows[c][l])))
        .collect())
}

fn unorm(c: [u8; 4]) -> [f32; 4] {
    c.map(|v| v as f32 / 255.0)
}

fn close(a: [f32; 4], b: [f32; 4]) -> bool {
    (0..4).all(|c| (a[c] - b[c]).abs() < 1e-4)
}

#[test]
fn array_lod_samples_the_addressed_layer_nearest() {
    let f = fixture(Kind::D2Array, 8, 4, 5, 1, smp(false, Wrap::ClampToEdge));
    let t = op(2, true, TextureAccess::Lod);
    let mut lanes = Vec::new();
    let mut want = Vec::new();
    for layer in 0..5u32 {
        for (s, tt) in [(0.1f32, 0.3f32), (0.9, 0.9), (0.55, 0.05)] {
            lanes.push([s.to_bits(), tt.to_bits(), layer, q6(0.0) | layer]);
            // Nearest: texel floor(s·w), floor(t·h) of that layer.
            let (x, y) = ((s * 8.0).floor() as u32, (tt * 4.0).floor() as u32);
            want.push(unorm(colour(0, layer, x, y)));
        }
    }
    let got = run(&f, &t, &lanes).unwrap();
    for (g, w) in got.iter().zip(&want) {
        assert!(close(*g, *w), "{g:?} vs {w:?}");
    }
}

#[test]
fn array_fetch_reads_layer_and_level() {
    let f = fixture(Kind::D2Array, 8, 8, 3, 3, smp(false, Wrap::Repeat));
    let t = op(2, true, TextureAccess::Fetch);
    let cases = [
        (0u32, 0u32, 1u32, 2u32),
        (7, 7, 0, 0),
        (3, 1, 1, 2),
        (1, 0, 2, 1),
    ];
    let lanes: Vec<[u32; 4]> = cases
        .iter()
        .map(|&(x, y, level, layer)| [x >> level, y >> level, layer, level << 22 | layer])
        .collect();
    let got = run(&f, &t, &lanes).unwrap();
    for (k, &(x, y, level, layer)) in cases.iter().enumerate() {
        let want = unorm(colour(level, layer, x >> level, y >> level));
        assert!(close(got[k], want), "case {k}: {:?} vs {want:?}", got[k]);
    }
}

/// GL trilinear at LOD 0 with clamp to edge, spelled out (§3.8.11, eq. 3.25-3.27).
fn trilinear_reference(w: u32, h: u32, d: u32, s: [f32; 3]) -> [f32; 4] {
    let size = [w as f32, h as f32, d as f32];
    let u: Vec<f32> = (0..3).map(|c| s[c] * size[c] - 0.5).collect();
    let i0: Vec<i64> = u.iter().map(|v| v.floor() as i64).collect();
    let a: Vec<f32> = u.iter().map(|v| v - v.floor()).collect();
    let clamp = |i: i64, n: u32| i.clamp(0, n as i64 - 1) as u32;
    let mut out = [0f32; 4];
    for dz in 0..2 {
        for dy in 0..2 {
            for dx in 0..2 {
                let wgt = (if dx == 1 { a[0] } else { 1.0 - a[0] })
                    * (if dy == 1 { a[1] } else { 1.0 - a[1] })
                    * (if dz == 1 { a[2] } else { 1.0 - a[2] });
                let c = unorm(colour(
                    0,
                    clamp(i0[2] + dz, d),
                    clamp(i0[0] + dx, w),
                    clamp(i0[1] + dy, h),
                ));
                for k in 0..4 {
                    out[k] += wgt * c[k];
                }
            }
        }
    }
    out
}

#[test]
fn three_d_lod_filters_trilinearly_across_slices() {
    let f = fixture(Kind::D3, 4, 4, 4, 1, smp(true, Wrap::ClampToEdge));
    let t = op(3, false, TextureAccess::Lod);
    let pts = [
        [0.3f32, 0.6, 0.2],
        [0.5, 0.5, 0.5],
        [0.95, 0.1, 0.7],
        [0.0, 1.0, 1.0],
    ];
    let lanes: Vec<[u32; 4]> = pts
        .iter()
        .map(|p| [p[0].to_bits(), p[1].to_bits(), p[2].to_bits(), q6(0.0)])
        .collect();
    let got = run(&f, &t, &lanes).unwrap();
    for (k, p) in pts.iter().enumerate() {
        let want = trilinear_reference(4, 4, 4, *p);
        assert!(close(got[k], want), "{p:?}: {:?} vs {want:?}", got[k]);
    }
}

#[test]
fn three_d_fetch_reads_the_slice_of_the_level() {
    let f = fixture(Kind::D3, 8, 8, 8, 2, smp(false, Wrap::ClampToEdge));
    let t = op(3, false, TextureAccess::Fetch);
    let cases = [(1u32, 2u32, 7u32, 0u32), (3, 3, 3, 1), (0, 1, 2, 1)];
    let lanes: Vec<[u32; 4]> = cases
        .iter()
        .map(|&(x, y, z, level)| [x, y, z, level << 22])
        .collect();
    let got = run(&f, &t, &lanes).unwrap();
    for (k, &(x, y, z, level)) in cases.iter().enumerate() {
        assert!(close(got[k], unorm(colour(level, z, x, y))), "case {k}");
    }
    // Slice 4 of level 1 (depth 4), x = -1 and level 2 (of 2) are outside: robust access
    // reads zero (value_rules, inferred: counted; refused in strict mode).
    let outside = [[0, 0, 4, 1 << 22], [u32::MAX, 0, 0, 0], [0, 0, 0, 2 << 22]];
    let (got, used) = value_rules::with_strict(false, || {
        value_rules::scoped(|| run(&f, &t, &outside).unwrap())
    });
    assert!(got.iter().all(|c| *c == [0.0; 4]), "{got:?}");
    assert_eq!(used.get(Rule::FetchOutsideLevel), 2);
    assert_eq!(used.get(Rule::FetchLevelRange), 1);
    let e = value_rules::with_strict(true, || run(&f, &t, &outside[..1]).unwrap_err());
    assert!(matches!(e, TexError::Refused(w) if w.contains("fetch_outside_level")));
    assert!(f.layout.planes == 8);
}

#[test]
fn out_of_range_layers_clamp_or_read_zero_and_mismatched_descriptors_are_refused() {
    let f = fixture(Kind::D2Array, 4, 4, 2, 1, smp(false, Wrap::ClampToEdge));
    // A sample of layer 2 of 2 reads layer 1 (GL clamps the layer); a fetch reads zero.
    let (got, used) = value_rules::with_strict(false, || {
        value_rules::scoped(|| {
            let s = run(&f, &op(2, true, TextureAccess::Lod), &[[0, 0, 2, 2]]).unwrap();
            let t = run(&f, &op(2, true, TextureAccess::Fetch), &[[1, 1, 0, 2]]).unwrap();
            (s[0], t[0])
        })
    });
    assert!(close(got.0, unorm(colour(0, 1, 0, 0))), "{:?}", got.0);
    assert_eq!(got.1, [0.0; 4]);
    assert_eq!(used.get(Rule::SampleLayerRange), 1);
    assert_eq!(used.get(Rule::FetchLayerRange), 1);
    let got = run(&f, &op(2, true, TextureAccess::Fetch), &[[1, 1, 0, 1]]).unwrap();
    assert!(close(got[0], unorm(colour(0, 1, 1, 1))));
    let e = run(&f, &op(3, false, TextureAccess::Lod), &[[0, 0, 0, 0]]).unwrap_err();
    assert!(matches!(e, TexError::Refused(w) if w.contains("D2Array")));
    let e = run(&f, &op(2, false, TextureAccess::Lod), &[[0, 0, 0, 0]]).unwrap_err();
    assert!(matches!(e, TexError::Refused(w) if w.contains("D2Array")));
}

/// What a vertex batch may sample (`run_lanes` with no quad): explicit LODs select their level
/// (GL ES 3.0 §3.8.10, nearest mip filter: level floor(λ + 0.5)), fetches read texels, and an
/// implicit-LOD sample is refused for want of derivatives.
#[test]
fn without_a_quad_explicit_lods_sample_and_implicit_ones_are_refused() {
    let f = fixture(Kind::D2, 8, 8, 1, 3, smp(false, Wrap::ClampToEdge));
    let (s, t) = (0.3f32, 0.8f32);
    for level in 0..3u32 {
        let got = run(
            &f,
            &op(2, false, TextureAccess::Lod),
            &[[s.to_bits(), t.to_bits(), 0, q6(level as f32)]],
        )
        .unwrap();
        let n = (8 >> level) as f32;
        let want = unorm(colour(level, 0, (s * n) as u32, (t * n) as u32));
        assert!(
            close(got[0], want),
            "level {level}: {:?} vs {want:?}",
            got[0]
        );
    }
    let got = run(
        &f,
        &op(2, false, TextureAccess::Fetch),
        &[[1, 1, 0, 1 << 22]],
    )
    .unwrap();
    assert!(close(got[0], unorm(colour(1, 0, 1, 1))));
    let e = run(
        &f,
        &op(2, false, TextureAccess::Sample),
        &[[s.to_bits(), t.to_bits(), 0, 0]],
    )
    .unwrap_err();
    assert!(matches!(e, TexError::Refused(w) if w.contains("2x2 quad")));
}

fn cube_op(access: TextureAccess) -> TexInstr {
    let mut t = op(2, false, access);
    t.op.cube = true;
    t
}

/// The publications of a cube sample of (s, t) on `face` at `lod` (the packer's tuple: s, t,
/// face, LOD word | face).
fn cube_lane(s: f32, t: f32, face: u32, lod: f32) -> [u32; 4] {
    [s.to_bits(), t.to_bits(), face, q6(lod) | face]
}

#[test]
fn cube_nearest_reads_the_addressed_face() {
    let f = fixture(Kind::Cube, 8, 8, 1, 1, smp(false, Wrap::Repeat));
    let t = cube_op(TextureAccess::Lod);
    let mut lanes = Vec::new();
    let mut want = Vec::new();
    for face in 0..6 {
        for (s, tt) in [(0.1f32, 0.3f32), (0.99, 0.01), (0.5, 0.75)] {
            lanes.push(cube_lane(s, tt, face, 0.0));
            let (x, y) = ((s * 8.0).floor() as u32, (tt * 8.0).floor() as u32);
            want.push(unorm(colour(0, face, x, y)));
        }
    }
    let got = run(&f, &t, &lanes).unwrap();
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(close(*g, *w), "lane {k}: {g:?} vs {w:?}");
    }
}

/// Bilinear taps past an edge come from the adjacent face, a corner tap is the average of the
/// three texels meeting there. Adjacency written out by hand from GL ES 3.0 table 3.21 for an
/// n×n level: +X (face 0) row -1 is +Y (face 2) texel (n-1, n-1-i); +X column -1 is +Z (face
/// 4) texel (n-1, j).
#[test]
fn cube_linear_is_seamless_at_edges_and_corners() {
    let n = 8u32;
    let f = fixture(Kind::Cube, n, n, 1, 1, smp(true, Wrap::Repeat));
    let t = cube_op(TextureAccess::Lod);
    let c = |face, x, y| unorm(colour(0, face, x, y));
    let up = |i: u32| c(2, n - 1, n - 1 - i);
    let left = |j: u32| c(4, n - 1, j);
    let mix = |taps: &[(f32, [f32; 4])]| -> [f32; 4] {
        std::array::from_fn(|k| taps.iter().map(|(w, v)| w * v[k]).sum())
    };
    // Edge: s at texel 3's centre + 0.25 texel, t a quarter texel from the top edge.
    let (s, tt) = (3.75 / n as f32, 0.25 / n as f32);
    // u - 0.5 = 3.25, v - 0.5 = -0.25: i0 = 3, j0 = -1, a = 0.25, b = 0.75.
    let edge = mix(&[
        (0.75 * 0.25, up(3)),
        (0.25 * 0.25, up(4)),
        (0.75 * 0.75, c(0, 3, 0)),
        (0.25 * 0.75, c(0, 4, 0)),
    ]);
    // Corner: s = t = 0, all four weights 1/4; tap (-1, -1) averages +X (0, 0), the left
    // neighbour of (0, 0)... +Z (n-1, 0), and the upper one, +Y (n-1, n-1).
    let corner3 = mix(&[
        (1.0 / 3.0, c(0, 0, 0)),
        (1.0 / 3.0, left(0)),
        (1.0 / 3.0, up(0)),
    ]);
    let corner = mix(&[
        (0.25, corner3),
        (0.25, up(0)),
        (0.25, left(0)),
        (0.25, c(0, 0, 0)),
    ]);
    let got = run(
        &f,
        &t,
        &[cube_lane(s, tt, 0, 0.0), cube_lane(0.0, 0.0, 0, 0.0)],
    )
    .unwrap();
    assert!(close(got[0], edge), "edge: {:?} vs {edge:?}", got[0]);
    assert!(close(got[1], corner), "corner: {:?} vs {corner:?}", got[1]);
}

/// A quad straddling the +X / -Z edge: pixel (1,0)'s direction, projected onto +X, is 4
/// texels of level 0 from pixel (0,0) (λ = 2, so nearest-mip level 2); its own -Z coordinates
/// would put it 12.5 texels away (level 4).
#[test]
fn cube_implicit_lod_is_continuous_across_an_edge() {
    let f = fixture(Kind::Cube, 16, 16, 1, 5, smp(false, Wrap::Repeat));
    let t = cube_op(TextureAccess::Bias);
    // Directions (x, y, z): +X has s = (-z/x + 1)/2, t = (-y/x + 1)/2.
    let on = |d: [f64; 3]| {
        let (f, s, t) = super::cube::tests_select(d);
        cube_lane(s as f32, t as f32, f, 0.0)
    };
    let d0 = [1.0, -0.2, -0.8]; // +X, s = 0.9, t = 0.6
    let d1 = [1.0, -0.2, -1.3]; // -Z; on +X's plane s = 1.15
    let d2 = [1.0, -0.7, -0.8]; // +X, t = 0.85
    let d3 = [1.0, -0.7, -1.3];
    let lanes: Vec<Option<LaneInput>> = [d0, d1, d2, d3]
        .iter()
        .map(|&d| Some(LaneInput { words: on(d) }))
        .collect();
    let quad: Vec<LaneInput> = lanes.iter().map(|l| l.unwrap()).collect();
    let rows = execute(&f.pt, &f.roots, &t, &lanes, Some(&quad)).unwrap();
    let got: [f32; 4] = std::array::from_fn(|c| f32::from_bits(rows[c][0]));
    // Level 2 is 4x4: s = 0.9, t = 0.6 -> texel (3, 2) of +X.
    let want = unorm(colour(2, 0, 3, 2));
    assert!(close(got, want), "{got:?} vs {want:?} (level 2)");
}

/// The corner quad of a 4x4-pixel draw that fills -Y of a 16x16 cube (λ = 2 everywhere): its
/// pixel (1,1) is the draw's corner pixel, the other three are helpers beyond -Y's edges, on
/// -X and +Z, and pixel (0,0) among them. Projected onto pixel (0,0)'s face (-X) the quad
/// looks 6.8 texels wide (λ 2.77: level 3); on -Y, the face its drawn pixel selects, it is 4
/// (GL's λ for every pixel of the draw, dEQP-GLES3 mipmap.cube.generate.*).
#[test]
fn cube_implicit_lod_of_a_corner_quad_takes_the_least_stretched_face() {
    let f = fixture(Kind::Cube, 16, 16, 1, 5, smp(false, Wrap::Repeat));
    let t = cube_op(TextureAccess::Bias);
    let on = |d: [f64; 3]| {
        let (f, s, t) = super::cube::tests_select(d);
        cube_lane(s as f32, t as f32, f, 0.0)
    };
    // -Y at face coordinates (a, b) is the direction (a, -1, -b); pixels are 0.5 apart.
    let px = |x: f64, y: f64| [-1.0 + 0.5 * (x + 0.5), -1.0, 1.0 - 0.5 * (y + 0.5)];
    let quad = [px(-1.0, 4.0), px(0.0, 4.0), px(-1.0, 3.0), px(0.0, 3.0)];
    let faces: Vec<u32> = quad
        .iter()
        .map(|&d| super::cube::tests_select(d).0)
        .collect();
    assert_eq!(faces, [1, 5, 1, 3], "-X, +Z, -X helpers around a -Y pixel");
    let lanes: Vec<Option<LaneInput>> = quad
        .iter()
        .map(|&d| Some(LaneInput { words: on(d) }))
        .collect();
    let publications: Vec<LaneInput> = lanes.iter().map(|l| l.unwrap()).collect();
    let rows = execute(&f.pt, &f.roots, &t, &lanes, Some(&publications)).unwrap();
    let got: [f32; 4] = std::array::from_fn(|c| f32::from_bits(rows[c][3]));
    // Level 2 is 4x4: the drawn pixel (s, t) = (0.125, 0.875) is texel (0, 3) of -Y.
    let want = unorm(colour(2, 3, 0, 3));
    assert!(close(got, want), "{got:?} vs {want:?} (level 2)");
}

/// Non-finite coordinates and a NaN implicit LOD sample something defined: NaN is coordinate
/// 0, ±inf is ±2^24 texels (the clamp modes take the edge, repeat takes texel 0), a NaN LOD
/// is level 0 (value_rules NonFiniteCoordinate / NanLod, inferred: counted).
#[test]
fn non_finite_coordinates_and_lod_sample_defined_texels() {
    let clamp = fixture(Kind::D2, 8, 8, 1, 2, smp(false, Wrap::ClampToEdge));
    let repeat = fixture(Kind::D2, 8, 8, 1, 2, smp(false, Wrap::Repeat));
    let (nan, inf) = (f32::NAN.to_bits(), f32::INFINITY.to_bits());
    let ninf = f32::NEG_INFINITY.to_bits();
    let lod0 = op(2, false, TextureAccess::Lod);
    let (got, used) = value_rules::with_strict(false, || {
        value_rules::scoped(|| {
            let c = run(
                &clamp,
                &lod0,
                &[[nan, inf, 0, 0], [ninf, 0.5f32.to_bits(), 0, 0]],
            );
            let r = run(&repeat, &lod0, &[[inf, ninf, 0, 0]]);
            (c.unwrap(), r.unwrap())
        })
    });
    assert!(close(got.0[0], unorm(colour(0, 0, 0, 7))), "{:?}", got.0[0]);
    assert!(close(got.0[1], unorm(colour(0, 0, 0, 4))), "{:?}", got.0[1]);
    assert!(close(got.1[0], unorm(colour(0, 0, 0, 0))), "{:?}", got.1[0]);
    assert_eq!(used.get(Rule::NonFiniteCoordinate), 5);
    // A quad of NaN coordinates: the implicit LOD is NaN -> level 0, texel (0, 0).
    let quad: Vec<Option<LaneInput>> = (0..4)
        .map(|_| {
            Some(LaneInput {
                words: [nan, nan, 0, 0],
            })
        })
        .collect();
    let publications: Vec<LaneInput> = quad.iter().map(|l| l.unwrap()).collect();
    let (rows, used) = value_rules::with_strict(false, || {
        value_rules::scoped(|| {
            execute(
                &clamp.pt,
                &clamp.roots,
                &op(2, false, TextureAccess::Sample),
                &quad,
                Some(&publications),
            )
            .unwrap()
        })
    });
    let lane0: [f32; 4] = std::array::from_fn(|c| f32::from_bits(rows[c][0]));
    assert!(close(lane0, unorm(colour(0, 0, 0, 0))), "{lane0:?}");
    assert_eq!(used.get(Rule::NanLod), 4);
    let e = value_rules::with_strict(true, || run(&clamp, &lod0, &[[nan, 0, 0, 0]]).unwrap_err());
    assert!(matches!(e, TexError::Refused(w) if w.contains("nonfinite_coordinate")));
}

/// A cube sample with a NaN coordinate reads a defined texel of its face (value_rules
/// NonFiniteCoordinate) instead of refusing.
#[test]
fn cube_non_finite_coordinates_sample_the_face() {
    let f = fixture(Kind::Cube, 8, 8, 1, 1, smp(false, Wrap::Repeat));
    let mut t = op(2, false, TextureAccess::Lod);
    t.op.cube = true;
    let lane = [f32::NAN.to_bits(), f32::INFINITY.to_bits(), 3, q6(0.0) | 3];
    let (got, used) = value_rules::with_strict(false, || {
        value_rules::scoped(|| run(&f, &t, &[lane]).unwrap())
    });
    assert!(close(got[0], unorm(colour(0, 3, 0, 7))), "{:?}", got[0]);
    assert_eq!(used.get(Rule::NonFiniteCoordinate), 2);
}

#[test]
fn wraps_equal_the_euclidean_remainder() {
    // the power-of-two mask in `wrap_index` against the division it replaces
    for size in [1i64, 2, 3, 4, 7, 8, 64, 100, 1 << 20] {
        for i in (-300..300).chain([-(1 << 24), (1 << 24) - 1, 1 << 24]) {
            assert_eq!(wrap_index(i, size, Wrap::Repeat), Some(i.rem_euclid(size)));
            let m = i.rem_euclid(2 * size);
            let want = if m < size { m } else { 2 * size - 1 - m };
            assert_eq!(wrap_index(i, size, Wrap::MirroredRepeat), Some(want));
        }
    }
}

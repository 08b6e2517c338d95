//! Multisampling: 2x and 4x with the default positions Mesa programs
//! (`agx_default_sample_positions`: 0x44cc, 0xeaa26e26), compared with a per-sample CPU
//! reference: coverage and depth at each sample position, colour shaded once at the pixel
//! centre, the host end-of-tile program resolving by the rounded mean.
#![allow(clippy::cloned_ref_to_slice_refs)] // `&[d.clone()]` reads better in scene lists

mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::ppp::ZsFunc;
use agx16_cmdstream::render::ZlsControl;
use agx16_cmdstream::Hex;
use gfx_common::*;

fn at(xw: f32, yw: f32, z: f32) -> [f32; 4] {
    [(xw - 32.0) / 32.0, (32.0 - yw) / 32.0, z, 1.0]
}

/// Positions in 1/16 pixel decoded from the register value (x low nibble, y high nibble).
fn positions(msctl: u64, n: u32) -> Vec<(f64, f64)> {
    (0..n)
        .map(|s| {
            let b = (msctl >> (8 * s)) & 0xff;
            ((b & 0xf) as f64 / 16.0, (b >> 4) as f64 / 16.0)
        })
        .collect()
}

/// Per-sample reference for triangle lists with linear colour, depth ALWAYS or LESS.
fn reference_msaa(draws: &[DrawSpec], pos: &[(f64, f64)]) -> Vec<[u8; 4]> {
    let n = pos.len();
    let mut col = vec![CLEAR; (W * H) as usize * n];
    let mut dep = vec![1.0f32; (W * H) as usize * n];
    for d in draws {
        for t in d.verts.chunks(3) {
            let win: Vec<(f64, f64, f64, [f32; 4])> = t
                .iter()
                .map(|v| {
                    let s = |c: f64| (c * 256.0).round() / 256.0;
                    (
                        s(32.0 + 32.0 * v[0] as f64),
                        s(32.0 - 32.0 * v[1] as f64),
                        v[2] as f64,
                        [v[4], v[5], v[6], v[7]],
                    )
                })
                .collect();
            let area = (win[1].0 - win[0].0) * (win[2].1 - win[0].1)
                - (win[2].0 - win[0].0) * (win[1].1 - win[0].1);
            if area == 0.0 {
                continue;
            }
            let sg = area.signum();
            // Barycentrics (extrapolated outside the triangle) and the top-left inside test.
            let bary = |cx: f64, cy: f64| {
                let mut b = [0.0; 3];
                let mut inside = true;
                for k in 0..3 {
                    let (a, c) = (&win[(k + 1) % 3], &win[(k + 2) % 3]);
                    let e = sg * ((c.0 - a.0) * (cy - a.1) - (c.1 - a.1) * (cx - a.0));
                    let (dx, dy) = (sg * (c.0 - a.0), sg * (c.1 - a.1));
                    inside &= e > 0.0 || (e == 0.0 && ((dy == 0.0 && dx > 0.0) || dy < 0.0));
                    b[k] = e / (sg * area);
                }
                (b, inside)
            };
            for py in 0..H {
                for px in 0..W {
                    let (bc, _) = bary(px as f64 + 0.5, py as f64 + 0.5);
                    let colour: [u8; 4] = std::array::from_fn(|ch| {
                        unorm8((0..3).map(|k| bc[k] * win[k].3[ch] as f64).sum::<f64>() as f32)
                    });
                    for (s, (ox, oy)) in pos.iter().enumerate() {
                        let (b, inside) = bary(px as f64 + ox, py as f64 + oy);
                        if !inside {
                            continue;
                        }
                        let i = (py * W + px) as usize * n + s;
                        let z = (0..3).map(|k| b[k] * win[k].2).sum::<f64>() as f32;
                        if d.depth == ZsFunc::Less && z >= dep[i] {
                            continue;
                        }
                        if d.depth_write {
                            dep[i] = z;
                        }
                        col[i] = colour;
                    }
                }
            }
        }
    }
    col.chunks(n)
        .map(|px| {
            std::array::from_fn(|ch| {
                ((px.iter().map(|c| c[ch] as u32).sum::<u32>() + n as u32 / 2) / n as u32) as u8
            })
        })
        .collect()
}

fn run_msaa(draws: &[DrawSpec], samples: u8, msctl: u64) -> Vec<[u8; 4]> {
    let mut scene = build(draws, ZlsControl::default());
    scene.cmd.samples = samples;
    scene.cmd.ppp_multisamplectl = Hex(msctl);
    let stats = run_scene(&scene, draws);
    assert!(stats.samples_passed > 0);
    image(&scene.pt)
}

fn assert_close(got: &[[u8; 4]], want: &[[u8; 4]]) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        for ch in 0..4 {
            let e = (g[ch] as i32 - w[ch] as i32).abs();
            assert!(
                e <= 1,
                "pixel {},{} channel {ch}: model {g:?} reference {w:?}",
                i as u32 % W,
                i as u32 / W
            );
        }
    }
}

fn scene() -> Vec<DrawSpec> {
    let near = DrawSpec {
        depth: ZsFunc::Less,
        depth_write: true,
        ..DrawSpec::tris(
            vec![
                rgba(at(3.1, 4.7, 0.3), [1.0, 0.0, 0.0, 1.0]),
                rgba(at(50.3, 9.9, 0.3), [0.0, 1.0, 0.0, 1.0]),
                rgba(at(12.2, 58.4, 0.3), [0.0, 0.0, 1.0, 1.0]),
            ],
            ShadeModel::Linear,
        )
    };
    let far = DrawSpec {
        depth: ZsFunc::Less,
        depth_write: true,
        ..DrawSpec::tris(
            vec![
                rgba(at(61.7, 60.2, 0.1), [1.0, 1.0, 0.0, 1.0]),
                rgba(at(8.4, 40.3, 0.6), [0.0, 1.0, 1.0, 1.0]),
                rgba(at(40.1, 2.6, 0.6), [1.0, 0.0, 1.0, 1.0]),
            ],
            ShadeModel::Linear,
        )
    };
    vec![near, far]
}

#[test]
fn four_samples_with_the_default_pattern() {
    let draws = scene();
    let got = run_msaa(&draws, 4, 0xeaa2_6e26);
    let want = reference_msaa(&draws, &positions(0xeaa2_6e26, 4));
    assert_close(&got, &want);
    // Edges resolve to blends: some pixels are neither background nor a single sample's colour.
    let single = run_msaa(&draws, 1, 0x88);
    assert_ne!(got, single);
}

#[test]
fn two_samples_with_the_default_pattern() {
    let draws = scene();
    let got = run_msaa(&draws, 2, 0x44cc);
    assert_close(&got, &reference_msaa(&draws, &positions(0x44cc, 2)));
}

#[test]
fn one_sample_at_the_centre_matches_the_single_sample_reference() {
    let draws = scene();
    let got = run_msaa(&draws, 1, 0x88);
    assert_close(&got, &reference_msaa(&draws, &positions(0x88, 1)));
    compare(&got, &reference(&draws));
}

//! Render-model features beyond single triangles: points, lines, fans, flat shading with
//! either provoking convention, u8/u32 indices, stencil with discard, scissor, depth load,
//! empty-tile skipping, latched state, stream calls; each against the CPU reference.
#![allow(clippy::cloned_ref_to_slice_refs)] // `&[d.clone()]` reads better in scene lists

mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::layout::PlaneLayout;
use agx16_cmdstream::ppp::{StencilOp, ZsFunc};
use agx16_cmdstream::render::{ZlsControl, ZlsFormat};
use agx16_cmdstream::vdm::*;
use agx16_cmdstream::Hex;
use gfx_common::*;

/// Clip-space position of window pixel coordinates (w = 1, z as given).
fn at(xw: f32, yw: f32, z: f32) -> [f32; 4] {
    [(xw - 32.0) / 32.0, (32.0 - yw) / 32.0, z, 1.0]
}

fn check(draws: &[DrawSpec], zls: ZlsControl) -> (Scene, RefFrame) {
    let (scene, _) = run(draws, zls);
    let want = reference(draws);
    compare(&image(&scene.pt), &want);
    (scene, want)
}

#[test]
fn points_with_a_point_size_output() {
    let c = |k: f32| [k, 1.0 - k, 0.5, 1.0];
    let verts = vec![
        rgba(at(5.3, 6.2, 0.5), c(0.1)),
        rgba(at(20.6, 40.1, 0.5), c(0.5)),
        rgba(at(33.1, 31.7, 0.5), c(0.9)),
    ];
    let d = DrawSpec {
        prim: Primitive::Points,
        point_size: Some(4.5),
        ..DrawSpec::tris(verts, ShadeModel::Linear)
    };
    let (_, want) = check(&[d], ZlsControl::default());
    // 4.5-pixel squares cover 4 or 5 centres per axis.
    assert!(
        (3 * 16..=3 * 25).contains(&(want.passed[0] as usize)),
        "{}",
        want.passed[0]
    );
}

#[test]
fn lines_and_line_strips() {
    let verts = [
        rgba(at(3.3, 10.2, 0.5), [1.0, 0.0, 0.0, 1.0]),
        rgba(at(50.7, 20.9, 0.5), [0.0, 0.0, 1.0, 1.0]),
        rgba(at(60.2, 55.1, 0.5), [0.0, 1.0, 0.0, 1.0]),
    ];
    let lines = DrawSpec {
        prim: Primitive::Lines,
        ..DrawSpec::tris(verts[..2].to_vec(), ShadeModel::Linear)
    };
    let (_, want) = check(&[lines], ZlsControl::default());
    // Centres 3.5 ..= 50.5 lie in [3.3, 50.7): one pixel per column.
    assert_eq!(
        want.passed[0], 48,
        "one pixel per column of an x-major width-1 line"
    );
    // A 3-pixel-wide strip (raw 47 = 3 * 16 - 1); the reference models x-major segments only.
    let strip = DrawSpec {
        prim: Primitive::LineStrip,
        line_width_raw: 47,
        ..DrawSpec::tris(verts[..2].to_vec(), ShadeModel::Linear)
    };
    let (_, want) = check(&[strip], ZlsControl::default());
    assert!(want.passed[0] >= 3 * 46);
}

#[test]
fn fans_with_u8_indices_and_flat_first_vertex() {
    let verts: Vec<Vtx> = (0..6)
        .map(|i| {
            let a = i as f32 * 0.9;
            let p = if i == 0 {
                at(32.3, 30.6, 0.5)
            } else {
                at(32.3 + 25.0 * a.cos(), 30.6 + 25.0 * a.sin(), 0.5)
            };
            rgba(p, [i as f32 / 6.0, 0.2, 1.0 - i as f32 / 6.0, 1.0])
        })
        .collect();
    let fan = DrawSpec {
        prim: Primitive::TriangleFan,
        indexed: Some((IndexSize::U8, vec![0, 1, 2, 3, 4, 5], None)),
        provoking: ProvokingVertex::First,
        ..DrawSpec::tris(verts, ShadeModel::FlatVertex0)
    };
    let (_, want) = check(&[fan], ZlsControl::default());
    // Four distinct flat colours (provoking vertices 1..4) reach the image.
    let mut colours: Vec<[u8; 4]> = want.color.iter().copied().filter(|c| *c != CLEAR).collect();
    colours.sort();
    colours.dedup();
    assert_eq!(colours.len(), 4);
}

#[test]
fn strips_with_u32_indices_and_flat_last_vertex() {
    let verts: Vec<Vtx> = (0..6)
        .map(|i| {
            rgba(
                at(
                    4.3 + 11.0 * i as f32,
                    if i % 2 == 0 { 12.2 } else { 48.9 },
                    0.5,
                ),
                [i as f32 / 5.0, 0.5, 0.5, 1.0],
            )
        })
        .collect();
    let strip = DrawSpec {
        prim: Primitive::TriangleStrip,
        indexed: Some((IndexSize::U32, vec![0, 1, 2, 3, 4, 5], None)),
        ..DrawSpec::tris(verts, ShadeModel::FlatVertex2)
    };
    check(&[strip], ZlsControl::default());
}

#[test]
fn stencil_mask_written_by_a_discarding_draw() {
    let quad = |c: [f32; 4], z: f32| {
        vec![
            rgba(at(2.1, 2.3, z), c),
            rgba(at(61.7, 2.3, z), c),
            rgba(at(2.1, 60.9, z), c),
            rgba(at(61.7, 2.3, z), c),
            rgba(at(61.7, 60.9, z), c),
            rgba(at(2.1, 60.9, z), c),
        ]
    };
    let marker = DrawSpec {
        stencil: Some(StencilSpec {
            func: ZsFunc::Always,
            reference: 1,
            pass_op: StencilOp::Replace,
        }),
        discard_left_of: Some(24),
        ..DrawSpec::tris(quad([1.0, 0.0, 0.0, 1.0], 0.5), ShadeModel::Linear)
    };
    let masked = DrawSpec {
        stencil: Some(StencilSpec {
            func: ZsFunc::Equal,
            reference: 1,
            pass_op: StencilOp::IncrSat,
        }),
        ..DrawSpec::tris(
            vec![
                rgba(at(0.4, 40.2, 0.2), [0.0, 1.0, 0.0, 1.0]),
                rgba(at(63.5, 40.2, 0.2), [0.0, 1.0, 0.0, 1.0]),
                rgba(at(30.1, 63.8, 0.2), [0.0, 1.0, 0.0, 1.0]),
            ],
            ShadeModel::Linear,
        )
    };
    let zls = ZlsControl {
        s_store: true,
        s_store_twiddled: true,
        ..Default::default()
    };
    let draws = [marker, masked];
    let (scene, want) = check(&draws, zls);
    assert!(want.passed[1] > 0 && want.passed[1] < want.passed[0]);
    // The stored stencil (twiddled, one byte per pixel) matches the reference.
    let layout = PlaneLayout::twiddled(W, H, 1);
    for y in 0..H {
        for x in 0..W {
            let mut b = [0u8; 1];
            scene
                .pt
                .host_read(STENCIL + layout.offset(x, y), &mut b)
                .unwrap();
            assert_eq!(
                b[0],
                want.stencil[(y * W + x) as usize],
                "stencil at {x},{y}"
            );
        }
    }
}

#[test]
fn scissor_rectangle_limits_coverage() {
    let d = DrawSpec {
        scissor: Some([10, 12, 40, 50]),
        ..DrawSpec::tris(
            vec![
                rgba(at(1.2, 1.7, 0.5), [1.0; 4]),
                rgba(at(62.3, 5.1, 0.5), [0.5; 4]),
                rgba(at(20.7, 62.2, 0.5), [0.2; 4]),
            ],
            ShadeModel::Linear,
        )
    };
    let (scene, want) = check(&[d], ZlsControl::default());
    assert_eq!(occlusion(&scene.pt, 0), want.passed[0]);
}

/// Runs draw `d` over a loaded, twiddled unorm16 depth plane holding `depth(x, y)`; returns
/// the image and the CPU reference of `d` drawn alone.
fn over_unorm16_depth(depth: impl Fn(u32, u32) -> u16, d: &DrawSpec) -> (Vec<[u8; 4]>, RefFrame) {
    let layout = PlaneLayout::twiddled(W, H, 2);
    let pt = new_memory();
    for y in 0..H {
        for x in 0..W {
            pt.host_write(DEPTH + layout.offset(x, y), &depth(x, y).to_le_bytes())
                .unwrap();
        }
    }
    let zls = ZlsControl {
        z_load: true,
        z_load_twiddled: true,
        z_format: ZlsFormat::Unorm16,
        ..Default::default()
    };
    let blocks = vdm_blocks(std::slice::from_ref(d), &pt);
    let scene = build_blocks(pt, &blocks, zls);
    run_scene(&scene, std::slice::from_ref(d));
    (image(&scene.pt), reference(std::slice::from_ref(d)))
}

#[test]
fn depth_loaded_from_memory_masks_a_draw() {
    // Unorm16 depth: left half 0 (nothing passes LESS), right half 0xffff.
    let d = DrawSpec {
        depth: ZsFunc::Less,
        ..DrawSpec::tris(
            vec![
                rgba(at(1.2, 1.7, 0.5), [1.0; 4]),
                rgba(at(62.3, 5.1, 0.5), [0.5; 4]),
                rgba(at(20.7, 62.2, 0.5), [0.2; 4]),
            ],
            ShadeModel::Linear,
        )
    };
    let (img, full) = over_unorm16_depth(|x, _| if x < 32 { 0 } else { 0xffff }, &d);
    for y in 0..H {
        for x in 0..W {
            let i = (y * W + x) as usize;
            let want = if x < 32 { CLEAR } else { full.color[i] };
            assert_eq!(img[i], want, "pixel {x},{y}");
        }
    }
}

/// A 16-bit depth plane compares at its own precision (GL ES 3.0 §2.13.1): a draw at z = 0.5
/// over a plane holding 0.5 as a previous render stored it (32768 = round(0.5 · 65535)) is
/// equal to it: LESS passes nothing, LEQUAL everything.
#[test]
fn unorm16_depth_compares_at_the_planes_precision() {
    for (func, passes) in [(ZsFunc::Less, false), (ZsFunc::Lequal, true)] {
        let d = DrawSpec {
            depth: func,
            ..DrawSpec::tris(
                vec![
                    rgba(at(0.0, 0.0, 0.5), [1.0; 4]),
                    rgba(at(128.0, 0.0, 0.5), [1.0; 4]),
                    rgba(at(0.0, 128.0, 0.5), [1.0; 4]),
                ],
                ShadeModel::Linear,
            )
        };
        let (img, full) = over_unorm16_depth(|_, _| 32768, &d);
        for (i, px) in img.iter().enumerate() {
            let want = if passes { full.color[i] } else { CLEAR };
            assert_eq!(*px, want, "{func:?} pixel {i}");
        }
    }
}

#[test]
fn empty_tiles_are_skipped_without_process_empty_tiles() {
    let d = DrawSpec::tris(
        vec![
            rgba(at(2.2, 3.1, 0.5), [1.0; 4]),
            rgba(at(20.1, 4.3, 0.5), [1.0; 4]),
            rgba(at(5.4, 25.9, 0.5), [1.0; 4]),
        ],
        ShadeModel::Linear,
    );
    let mut scene = build(&[d.clone()], ZlsControl::default());
    scene.cmd.flags = Hex(0);
    let marker = [0xabu8; 4];
    scene
        .pt
        .host_write(IMG, &marker.repeat((W * H) as usize))
        .unwrap();
    let stats = run_scene(&scene, &[d.clone()]);
    assert_eq!(stats.utiles, 1);
    let img = image(&scene.pt);
    let want = reference(&[d]);
    for y in 0..H {
        for x in 0..W {
            let i = (y * W + x) as usize;
            let expect = if x < 32 && y < 32 {
                want.color[i]
            } else {
                marker
            };
            assert_eq!(img[i], expect, "pixel {x},{y}");
        }
    }
}

#[test]
fn draws_without_ppp_updates_keep_the_latched_state() {
    let a = DrawSpec::tris(
        vec![
            rgba(at(2.2, 3.1, 0.5), [1.0, 0.0, 0.0, 1.0]),
            rgba(at(30.1, 4.3, 0.5), [1.0, 0.0, 0.0, 1.0]),
            rgba(at(5.4, 25.9, 0.5), [1.0, 0.0, 0.0, 1.0]),
        ],
        ShadeModel::Linear,
    );
    let b = DrawSpec::tris(
        vec![
            rgba(at(40.2, 33.1, 0.5), [0.0, 0.0, 1.0, 1.0]),
            rgba(at(60.1, 34.3, 0.5), [0.0, 0.0, 1.0, 1.0]),
            rgba(at(45.4, 60.9, 0.5), [0.0, 0.0, 1.0, 1.0]),
        ],
        ShadeModel::Linear,
    );
    let draws = [a, b];
    let pt = new_memory();
    let mut blocks = vdm_blocks(&draws, &pt);
    // Keep the second draw's index list only: state and PPP updates stay latched.
    let second = blocks
        .iter()
        .rposition(|b| matches!(b, VdmBlock::State(_)))
        .unwrap();
    blocks.drain(second..blocks.len() - 1);
    let scene = build_blocks(pt, &blocks, ZlsControl::default());
    let stats = run_scene(&scene, &draws);
    assert_eq!(stats.draws, 2);
    compare(&image(&scene.pt), &reference(&draws));
}

#[test]
fn stream_calls_return_to_the_caller() {
    let d = DrawSpec::tris(
        vec![
            rgba(at(2.2, 3.1, 0.5), [1.0; 4]),
            rgba(at(60.1, 14.3, 0.5), [0.3; 4]),
            rgba(at(25.4, 55.9, 0.5), [0.6; 4]),
        ],
        ShadeModel::Linear,
    );
    let pt = new_memory();
    let mut sub: Vec<u8> = Vec::new();
    for b in vdm_blocks(&[d.clone()], &pt) {
        sub.extend(b.pack().unwrap());
    }
    sub.extend(
        VdmBlock::Barrier(VdmBarrier {
            returns: true,
            ..Default::default()
        })
        .pack()
        .unwrap(),
    );
    pt.host_write(RC + 0x30000, &sub).unwrap();
    let call = VdmBlock::Link(VdmLink {
        with_return: true,
        target: 0x30000,
        ..Default::default()
    });
    let scene = build_blocks(pt, &[call], ZlsControl::default());
    let stats = run_scene(&scene, &[d.clone()]);
    assert_eq!(stats.draws, 1);
    compare(&image(&scene.pt), &reference(&[d]));
}

#[test]
fn two_sided_stencil_uses_the_back_words_for_back_faces() {
    use agx16_cmdstream::ppp::PppPage;
    // A front (CCW on screen) and a back (CW) triangle; both write stencil with Replace,
    // the front words with reference 1, the back words with reference 2.
    let c = [1.0; 4];
    let front = [
        rgba(at(2.3, 2.2, 0.5), c),
        rgba(at(2.3, 30.1, 0.5), c),
        rgba(at(30.2, 2.2, 0.5), c),
    ];
    let back = [
        rgba(at(34.3, 34.2, 0.5), c),
        rgba(at(62.2, 34.2, 0.5), c),
        rgba(at(34.3, 62.1, 0.5), c),
    ];
    let verts: Vec<Vtx> = front.iter().chain(&back).copied().collect();
    let d = DrawSpec {
        stencil: Some(StencilSpec {
            func: ZsFunc::Always,
            reference: 1,
            pass_op: StencilOp::Replace,
        }),
        ..DrawSpec::tris(verts, ShadeModel::Linear)
    };
    let zls = ZlsControl {
        s_store: true,
        s_store_twiddled: true,
        ..Default::default()
    };
    let scene = build(&[d.clone()], zls);
    // Patch the page: two-sided stencil, back reference 2, same ops.
    let page_va = RC + 0x58000;
    let mut bytes = vec![0u8; 256];
    scene.pt.host_read(page_va, &mut bytes).unwrap();
    let mut page = PppPage::unpack(&bytes).unwrap();
    let f = &mut page.fragment_faces;
    f.two_sided_stencil = true;
    f.back_stencil_reference = 2;
    f.back_write_mask = Hex(0xff);
    f.back_read_mask = Hex(0xff);
    f.back_stencil_compare = ZsFunc::Always;
    f.back_depth_pass = StencilOp::Replace;
    scene.pt.host_write(page_va, &page.pack().unwrap()).unwrap();
    run_scene(&scene, &[d.clone()]);
    // The reference's coverage per triangle decides where 1 and 2 must be.
    let layout = PlaneLayout::twiddled(W, H, 1);
    let cover =
        |tri: &[Vtx; 3]| reference(&[DrawSpec::tris(tri.to_vec(), ShadeModel::Linear)]).color;
    let (cf, cb) = (cover(&front), cover(&back));
    let mut seen = [0u32; 3];
    for y in 0..H {
        for x in 0..W {
            let i = (y * W + x) as usize;
            let want = if cf[i] != CLEAR {
                1
            } else if cb[i] != CLEAR {
                2
            } else {
                0
            };
            let mut b = [0u8; 1];
            scene
                .pt
                .host_read(STENCIL + layout.offset(x, y), &mut b)
                .unwrap();
            assert_eq!(b[0], want, "stencil at {x},{y}");
            seen[want as usize] += 1;
        }
    }
    assert!(seen[1] > 0 && seen[2] > 0);
}

#[test]
fn point_sprite_coordinates_run_across_the_square() {
    use agx16_cmdstream::descriptors::{
        pack_cf_table, CfBinding, CfBindingHeader, CoefficientSource,
    };
    use agx16_cmdstream::ppp::{ObjectType, PppPage};
    let verts = vec![
        rgba(at(10.3, 12.6, 0.5), [0.0, 0.0, 0.25, 1.0]),
        rgba(at(40.7, 37.2, 0.5), [0.0, 0.0, 0.75, 1.0]),
    ];
    let size = 9.0;
    let d = DrawSpec {
        prim: Primitive::Points,
        point_size: Some(size),
        ..DrawSpec::tris(verts.clone(), ShadeModel::Linear)
    };
    for (object, t_up) in [
        (ObjectType::PointSpriteUv01, false),
        (ObjectType::PointSpriteUv10, true),
    ] {
        let scene = build(std::slice::from_ref(&d), ZlsControl::default());
        // 1/W, the sprite coordinate (s, t) in cf 1-2, colour b and a (slots 3-4) in cf 3-4:
        // the host program outputs (s, t, b, a).
        let header = CfBindingHeader {
            slots: 5,
            coefficient_registers: 5,
            ..Default::default()
        };
        let w = CfBinding {
            components: 1,
            shade_model: ShadeModel::Linear,
            ..Default::default()
        };
        let pc = CfBinding {
            components: 2,
            shade_model: ShadeModel::Linear,
            source: CoefficientSource::PointCoord,
            base_coefficient: 1,
            ..Default::default()
        };
        let ba = CfBinding {
            components: 2,
            shade_model: ShadeModel::Linear,
            base_slot: 3,
            base_coefficient: 3,
            ..Default::default()
        };
        scene
            .pt
            .host_write(USC + 0x1000, &pack_cf_table(&header, &[w, pc, ba]).unwrap())
            .unwrap();
        let mut bytes = vec![0u8; 256];
        scene.pt.host_read(RC + 0x58000, &mut bytes).unwrap();
        let mut page = PppPage::unpack(&bytes).unwrap();
        page.fragment_shader.cf_binding_count = 3;
        page.fragment_control_2.front_object_type = object;
        page.fragment_control_2.back_object_type = object;
        scene
            .pt
            .host_write(RC + 0x58000, &page.pack().unwrap())
            .unwrap();
        run_scene(&scene, std::slice::from_ref(&d));
        let img = image(&scene.pt);
        // Reference: the snapped centre, a square of `size`, s/t at pixel centres.
        let mut covered = 0;
        for v in &verts {
            let snap = |c: f64| (c * 256.0).round() / 256.0;
            let (cx, cy) = (
                snap(32.0 + 32.0 * v[0] as f64),
                snap(32.0 - 32.0 * v[1] as f64),
            );
            let (left, top) = (cx - size as f64 / 2.0, cy - size as f64 / 2.0);
            for py in 0..H {
                for px in 0..W {
                    let (x, y) = (px as f64 + 0.5, py as f64 + 0.5);
                    if x < left || x >= left + size as f64 || y < top || y >= top + size as f64 {
                        continue;
                    }
                    covered += 1;
                    let s = (x - left) / size as f64;
                    let t = if t_up {
                        1.0 - (y - top) / size as f64
                    } else {
                        (y - top) / size as f64
                    };
                    let want = [unorm8(s as f32), unorm8(t as f32), unorm8(v[6]), 255];
                    let got = img[(py * W + px) as usize];
                    for ch in 0..4 {
                        assert!(
                            (got[ch] as i32 - want[ch] as i32).abs() <= 1,
                            "{object:?} pixel {px},{py}: {got:?} vs {want:?}"
                        );
                    }
                }
            }
        }
        assert_eq!(covered, 2 * 9 * 9);
        assert_eq!(img.iter().filter(|c| **c != CLEAR).count(), covered);
    }
}

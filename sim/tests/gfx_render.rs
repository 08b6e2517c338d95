//! Render-model tests: streams built with agx16-cmdstream's builders, run through
//! `agx16_sim::gfx` with host stages, compared with the CPU reference in `gfx_common`.
#![allow(clippy::cloned_ref_to_slice_refs)] // `&[d.clone()]` reads better in scene lists

mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::ppp::ZsFunc;
use agx16_cmdstream::render::{ZlsControl, ZlsFormat};
use agx16_cmdstream::vdm::{IndexSize, Primitive};
use agx16_sim::gfx;
use agx16_sim::SimError;
use gfx_common::*;

#[test]
fn solid_colour_triangle() {
    let red = [1.0, 0.0, 0.0, 1.0];
    let d = DrawSpec::tris(
        vec![
            rgba([-0.8, -0.7, 0.5, 1.0], [0.0; 4]),
            rgba([0.9, -0.6, 0.5, 1.0], [0.0; 4]),
            rgba([0.1, 0.85, 0.5, 1.0], red),
        ],
        ShadeModel::FlatVertex2,
    );
    let (scene, stats) = run(&[d.clone()], ZlsControl::default());
    let want = reference(&[d]);
    compare(&image(&scene.pt), &want);
    assert!(want.passed[0] > 500, "the triangle covers a real area");
    assert_eq!(stats.samples_passed, want.passed[0]);
    assert_eq!(stats.vertices_shaded, 3);
}

#[test]
fn interpolated_colour_triangle_perspective() {
    // Different W per vertex: perspective-correct and screen-linear results differ.
    let d = DrawSpec::tris(
        vec![
            rgba([-0.9, -0.9, 0.2, 1.0], [1.0, 0.0, 0.0, 1.0]),
            rgba([2.7, -2.4, 1.2, 3.0], [0.0, 1.0, 0.0, 1.0]),
            rgba([0.0, 1.6, 0.6, 2.0], [0.0, 0.0, 1.0, 0.5]),
        ],
        ShadeModel::Perspective,
    );
    let (scene, _) = run(&[d.clone()], ZlsControl::default());
    compare(&image(&scene.pt), &reference(&[d.clone()]));
    // The same triangle iterated screen-linearly must differ somewhere (the test can fail).
    let mut lin = d.clone();
    lin.shade = ShadeModel::Linear;
    let l = reference(&[lin]);
    assert_ne!(l.color, reference(&[d]).color);
}

#[test]
fn depth_test_between_two_triangles() {
    let near = DrawSpec {
        depth: ZsFunc::Less,
        depth_write: true,
        ..DrawSpec::tris(
            vec![
                rgba([-0.9, -0.9, 0.3, 1.0], [0.0, 1.0, 0.0, 1.0]),
                rgba([0.6, -0.9, 0.3, 1.0], [0.0, 1.0, 0.0, 1.0]),
                rgba([-0.9, 0.6, 0.3, 1.0], [0.0, 1.0, 0.0, 1.0]),
            ],
            ShadeModel::Linear,
        )
    };
    // Drawn second, sloped through the first in depth: partly in front, partly behind.
    let far = DrawSpec {
        depth: ZsFunc::Less,
        depth_write: true,
        ..DrawSpec::tris(
            vec![
                rgba([0.9, 0.9, 0.0, 1.0], [1.0, 0.0, 1.0, 1.0]),
                rgba([-0.95, 0.5, 0.6, 1.0], [1.0, 0.0, 1.0, 1.0]),
                rgba([0.5, -0.95, 0.6, 1.0], [1.0, 0.0, 1.0, 1.0]),
            ],
            ShadeModel::Linear,
        )
    };
    let zls = ZlsControl {
        z_store: true,
        z_store_twiddled: true,
        z_format: ZlsFormat::F32,
        ..Default::default()
    };
    let draws = [near, far];
    let (scene, stats) = run(&draws, zls);
    let want = reference(&draws);
    compare(&image(&scene.pt), &want);
    // Both draws win somewhere.
    assert!(want.passed[0] > 0 && want.passed[1] > 0);
    // Occlusion slots count each draw's passing samples.
    for (i, n) in want.passed.iter().enumerate() {
        assert_eq!(occlusion(&scene.pt, i), *n, "occlusion slot {i}");
    }
    assert_eq!(stats.samples_passed, want.passed.iter().sum::<u64>());
    // Stored depth (twiddled Z32F; 64x64 fits one 16 KiB tile in Morton order).
    let layout = agx16_cmdstream::layout::PlaneLayout::twiddled(W, H, 4);
    let mut worst = 0f32;
    for y in 0..H {
        for x in 0..W {
            let mut b = [0u8; 4];
            scene
                .pt
                .host_read(DEPTH + layout.offset(x, y), &mut b)
                .unwrap();
            worst = worst.max((f32::from_le_bytes(b) - want.depth[(y * W + x) as usize]).abs());
        }
    }
    assert!(worst < 3e-6, "depth error {worst}");
}

#[test]
fn indexed_strip_with_primitive_restart() {
    let verts: Vec<Vtx> = (0..8)
        .map(|i| {
            let x = -0.9 + 0.5 * (i / 2) as f32;
            let y = if i % 2 == 0 { -0.6 } else { 0.1 };
            rgba(
                [x, y + 0.05 * i as f32, 0.5, 1.0],
                [i as f32 / 8.0, 1.0 - i as f32 / 8.0, 0.5, 1.0],
            )
        })
        .collect();
    let idx = vec![0, 1, 2, 3, 0xffff, 4, 5, 6, 7];
    let d = DrawSpec {
        prim: Primitive::TriangleStrip,
        indexed: Some((IndexSize::U16, idx, Some(0xffff))),
        ..DrawSpec::tris(verts, ShadeModel::Linear)
    };
    let (scene, stats) = run(&[d.clone()], ZlsControl::default());
    compare(&image(&scene.pt), &reference(&[d]));
    // Two runs of 4 vertices: 2 + 2 triangles; 8 distinct vertices shaded.
    assert_eq!(stats.primitives, 4);
    assert_eq!(stats.vertices_shaded, 8);
}

#[test]
fn back_faces_are_culled_and_instances_are_drawn() {
    let ccw = vec![
        rgba([-0.9, -0.9, 0.5, 1.0], [1.0; 4]),
        rgba([-0.2, -0.9, 0.5, 1.0], [1.0; 4]),
        rgba([-0.9, -0.2, 0.5, 1.0], [1.0; 4]),
    ];
    let mut cw = ccw.clone();
    cw.swap(1, 2);
    cw.iter_mut().for_each(|v| v[1] += 1.0);
    let mut all = ccw.clone();
    all.extend(cw);
    let d = DrawSpec {
        cull_back: true,
        instances: 2,
        ..DrawSpec::tris(all, ShadeModel::Linear)
    };
    let (scene, stats) = run(&[d.clone()], ZlsControl::default());
    let want = reference(&[d]);
    compare(&image(&scene.pt), &want);
    assert_eq!(stats.primitives, 4);
    assert_eq!(stats.primitives_culled, 2);
    assert!(want.passed[0] > 0);
}

#[test]
fn triangles_crossing_the_clip_volume_are_clipped() {
    // Positive W everywhere: clipping in x/y equals rasterising the whole triangle and
    // keeping the framebuffer, which is what the reference does.
    let d = DrawSpec::tris(
        vec![
            rgba([-3.0, -0.5, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0]),
            rgba([2.5, -1.8, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0]),
            rgba([0.3, 2.2, 0.5, 1.0], [0.0, 0.0, 1.0, 1.0]),
        ],
        ShadeModel::Perspective,
    );
    let (scene, stats) = run(&[d.clone()], ZlsControl::default());
    compare(&image(&scene.pt), &reference(&[d]));
    // Inside the guard band (agx16_sim::gfx::clip::GUARD_BAND): rasterised whole, the
    // framebuffer keeps the visible part.
    assert_eq!(stats.primitives_clipped, 0);

    // A vertex far past the guard band: the triangle is clipped, and the picture is the same.
    let far = DrawSpec::tris(
        vec![
            rgba([-3000.0, -0.5, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0]),
            rgba([2.5, -1.8, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0]),
            rgba([0.3, 2.2, 0.5, 1.0], [0.0, 0.0, 1.0, 1.0]),
        ],
        ShadeModel::Perspective,
    );
    let (scene, stats) = run(&[far.clone()], ZlsControl::default());
    compare(&image(&scene.pt), &reference(&[far]));
    assert_eq!(stats.primitives_clipped, 1);
}

#[test]
fn isa_stages_refuse_with_the_launcher_address() {
    let d = DrawSpec::tris(
        vec![rgba([0.0, 0.0, 0.5, 1.0], [1.0; 4]); 3],
        ShadeModel::Linear,
    );
    let scene = build(&[d], ZlsControl::default());
    match gfx::run_render(&scene.pt, &scene.command()) {
        Err(SimError::Unestablished { what, .. }) => {
            // the launcher runs as a setup invocation: the error names the stage, the
            // launcher VA and (in `form`) the instruction it stopped at
            assert!(what.starts_with("vertex launcher"), "{what}");
            assert!(what.contains(&format!("{:#x}", USC + 0x8000)), "{what}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn shared_edges_through_pixel_centres_are_drawn_once() {
    // Vertices on pixel centres: every edge passes through centres, so the tie-break decides.
    let ndc = |x: f32, y: f32| [(x - 32.0) / 32.0, (32.0 - y) / 32.0, 0.5, 1.0];
    let c = [0.3, 0.6, 0.9, 1.0];
    let (a, b, cc, d) = (
        ndc(4.5, 4.5),
        ndc(40.5, 4.5),
        ndc(40.5, 28.5),
        ndc(4.5, 28.5),
    );
    let quad = DrawSpec::tris(
        vec![
            rgba(a, c),
            rgba(b, c),
            rgba(cc, c),
            rgba(a, c),
            rgba(cc, c),
            rgba(d, c),
        ],
        ShadeModel::Linear,
    );
    let (scene, stats) = run(&[quad.clone()], ZlsControl::default());
    let want = reference(&[quad]);
    compare(&image(&scene.pt), &want);
    // Each of the 36 x 24 pixels is counted once: no double hits on the diagonal, no gaps.
    assert_eq!(stats.samples_passed, 36 * 24);
    assert_eq!(want.passed[0], 36 * 24);
}

#[test]
fn smaller_utiles_render_the_same_image() {
    let d = DrawSpec::tris(
        vec![
            rgba([-0.9, -0.9, 0.2, 1.0], [1.0, 0.0, 0.0, 1.0]),
            rgba([2.7, -2.4, 1.2, 3.0], [0.0, 1.0, 0.0, 1.0]),
            rgba([0.0, 1.6, 0.6, 2.0], [0.0, 0.0, 1.0, 0.5]),
        ],
        ShadeModel::Perspective,
    );
    for (w, h, utiles) in [(32u8, 16u8, 8u64), (16, 16, 16)] {
        let mut scene = build(&[d.clone()], ZlsControl::default());
        scene.cmd.utile_width_px = w;
        scene.cmd.utile_height_px = h;
        let stats = run_scene(&scene, &[d.clone()]);
        assert_eq!(stats.utiles, utiles, "{w}x{h}");
        compare(&image(&scene.pt), &reference(&[d.clone()]));
    }
}

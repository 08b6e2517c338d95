//! The model keeps vertex batches' results per thread and reuses them in a later render with
//! the same inputs (agx16 draws a batch with a large tilebuffer as one render per utile
//! rectangle, every render with every draw). A reused result must be the one a fresh run gives: rendering the same scene
//! again gives the same frame and counts, and a vertex buffer rewritten between two renders
//! is read again (the second render equals a fresh render of the new buffer on a thread that
//! never saw the old one, and differs from the first).
#![allow(dead_code)]

mod gfx_common;

use agx16_sim::gfx::{self, IsaStages, RenderStats};
use agx16_sim::value_rules;
use agx16_sim::PageTable;
use gfx_common::render_scene::{self, VBUF};
use gfx_common::*;

const TRIANGLES: usize = 40;

fn render(scene: &Scene) -> (RenderStats, Vec<u8>, value_rules::Counts) {
    let mut st = HardwareBodyStages {
        isa: IsaStages::default(),
    };
    let _ = value_rules::take();
    let stats = gfx::run_render_with(&scene.pt, &scene.command(), &mut st).unwrap();
    let rules = value_rules::take();
    (stats, frame(&scene.pt), rules)
}

fn frame(pt: &PageTable) -> Vec<u8> {
    let mut b = vec![0u8; (W * H * 4) as usize];
    pt.host_read(IMG, &mut b).unwrap();
    b
}

/// The scene's vertices moved right by `dx` (clip units), as vertex buffer bytes.
fn shifted(dx: f32) -> Vec<u8> {
    render_scene::scene_vertices(TRIANGLES)
        .iter()
        .flat_map(|v| {
            let mut v = *v;
            v[0] += dx;
            v
        })
        .flat_map(|f| f.to_le_bytes())
        .collect()
}

#[test]
fn a_repeated_render_reuses_equal_results_and_rereads_a_rewritten_vertex_buffer() {
    let scene = render_scene::build_scene(TRIANGLES);
    let (stats, first, rules) = render(&scene);
    assert!(stats.fragments_shaded > 1000, "{stats:?}");
    // Same inputs: same frame, counts and value-rule uses.
    let (again_stats, again, again_rules) = render(&scene);
    assert_eq!(again_stats, stats);
    assert!(again == first, "a repeated render changed the frame");
    assert_eq!(again_rules, rules);

    // The vertex buffer rewritten: the next render shades the new positions.
    scene.pt.host_write(VBUF, &shifted(0.25)).unwrap();
    let (moved_stats, moved, _) = render(&scene);
    assert!(moved != first, "the rewritten vertex buffer was not read");
    // A thread that never rendered the old buffer gives the same result.
    let (fresh_stats, fresh) = std::thread::spawn(|| {
        let scene = render_scene::build_scene(TRIANGLES);
        scene.pt.host_write(VBUF, &shifted(0.25)).unwrap();
        let (s, f, _) = render(&scene);
        (s, f)
    })
    .join()
    .unwrap();
    assert_eq!(moved_stats, fresh_stats);
    assert!(
        moved == fresh,
        "reused vertex results differ from a fresh run"
    );
}

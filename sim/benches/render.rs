//! Render throughput of the model on the hardware path: a few hundred triangles whose
//! vertex stage is a real G16 body (vertex id, eight device loads, exports, varying stores)
//! and whose fragment stage is a real G16 body (coefficient iteration, a uniform-buffer load,
//! ALU, the tile epilogue), both entered through launchers (setup invocations), on a 64x64
//! frame of four 32x32 utiles. The stream, launchers and bodies are the `gfx_uniforms` test's
//! (its stage programs, `gfx_common::uniform_bodies`); only the triangle count differs.
//!
//! Time is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so the figure is per core even
//! when the machine is shared. Throughput is in shaded fragments.
#![allow(dead_code)]

#[path = "../tests/gfx_common/mod.rs"]
mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::launch::entry_offset;
use agx16_cmdstream::render::ZlsControl;
use agx16_isa::meaning::StageAllocation;
use agx16_sim::gfx::{self, IsaStages};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gfx_common::uniform_bodies::*;
use gfx_common::*;
use std::time::Duration;

const VERT_LAUNCHER: u64 = USC + 0x8000;
const VERT_BODY: u64 = USC + 0x40000;
const FRAG_LAUNCHER: u64 = USC + 0x9000;
const FRAG_BODY: u64 = USC + 0x50000;
const DATA: u64 = 0x8_0000_0000;
const VERT_ROOTS: u64 = DATA;
const FRAG_ROOTS: u64 = DATA + 0x100;
const PAGE: u64 = 0x4000;
const VBUF: u64 = DATA + PAGE;
const UBO: u64 = DATA + 8 * PAGE;
const VB_SLOT: u64 = 6;
const UBO_SLOT: u64 = 7;
const INLINE_WORD: u64 = 16;
const SCALE: f32 = 0.75;
const BIAS: f32 = 0.125;
/// Triangles of the scene.
const TRIANGLES: usize = 300;

/// Deterministic pseudo-random triangles over the frame (a small LCG: no dependency, same
/// scene every run), each about 60-250 pixels.
fn scene_vertices() -> Vec<[f32; 8]> {
    let mut s = 0x1234_5678u32;
    let mut rnd = || {
        s = s.wrapping_mul(1664525).wrapping_add(1013904223);
        (s >> 8) as f32 / (1u32 << 24) as f32
    };
    let mut v = Vec::new();
    for _ in 0..TRIANGLES {
        let (cx, cy) = (rnd() * 1.8 - 0.9, rnd() * 1.8 - 0.9);
        for k in 0..3 {
            let a = k as f32 * 2.094 + rnd();
            let r = 0.15 + 0.2 * rnd();
            v.push([
                cx + r * a.cos(),
                cy + r * a.sin(),
                rnd(),
                1.0,
                rnd(),
                0.0,
                rnd(),
                1.0,
            ]);
        }
    }
    v
}

fn build_scene() -> Scene {
    let verts = scene_vertices();
    let draw = DrawSpec::tris(
        vec![rgba([0.0; 4], [0.0; 4]); verts.len()],
        ShadeModel::Linear,
    );
    let scene = build(&[draw], ZlsControl::default());
    scene.pt.map(DATA, 16 * PAGE, true, false).unwrap();
    let vb: Vec<u8> = verts
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    assert!(vb.len() as u64 <= UBO - VBUF);
    scene.pt.host_write(VBUF, &vb).unwrap();
    let ubo: Vec<u8> = [2.0f32, SCALE]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    scene.pt.host_write(UBO, &ubo).unwrap();
    scene
        .pt
        .host_write(VERT_ROOTS, &root_record(&[0, 0, 0, 0, 0, 0, VBUF]))
        .unwrap();
    let inline = (BIAS.to_bits() as u64) | (0.5f32.to_bits() as u64) << 32;
    scene
        .pt
        .host_write(
            FRAG_ROOTS,
            &root_record(&[0, 0, 0, 0, 0, 0, 0, UBO, inline]),
        )
        .unwrap();
    let (ve, fe) = (entry_offset(0), entry_offset(1));
    let vl = launcher_program(VERT_ROOTS, 7, StageAllocation::Empty, ve, 8);
    let fl = launcher_program(
        FRAG_ROOTS,
        9,
        StageAllocation::Tile {
            samples: 1,
            units: 1,
        },
        fe,
        0,
    );
    install_stage(
        &scene,
        VERT_LAUNCHER,
        &vl,
        ve,
        VERT_BODY,
        &vertex_body(VB_SLOT),
    );
    install_stage(
        &scene,
        FRAG_LAUNCHER,
        &fl,
        fe,
        FRAG_BODY,
        &fragment_body(UBO_SLOT, INLINE_WORD),
    );
    scene
}

fn render(scene: &Scene) -> gfx::RenderStats {
    let mut st = HardwareBodyStages {
        isa: IsaStages::default(),
    };
    gfx::run_render_with(&scene.pt, &scene.command(), &mut st).unwrap()
}

fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec; the clock id is a constant.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn bench(c: &mut Criterion) {
    let scene = build_scene();
    let stats = render(&scene);
    // The scene must exercise the fragment path (guards against a bench that renders nothing).
    assert!(stats.fragments_shaded > 10_000, "{stats:?}");
    let mut g = c.benchmark_group("render");
    g.sample_size(10);
    g.throughput(Throughput::Elements(stats.fragments_shaded));
    g.bench_function("triangles_300_hw_bodies", |bch| {
        bch.iter_custom(|n| {
            let t0 = thread_cpu_time();
            for _ in 0..n {
                render(&scene);
            }
            thread_cpu_time() - t0
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Render throughput of the model on the hardware path: a few hundred triangles whose
//! vertex stage is a real G16 body (vertex id, eight device loads, exports, varying stores)
//! and whose fragment stage is a real G16 body (coefficient iteration, a uniform-buffer load,
//! ALU, the tile epilogue), both entered through launchers (setup invocations), on a 64x64
//! frame of four 32x32 utiles. The stream, launchers and bodies are the `gfx_uniforms` test's
//! (its stage programs, `gfx_common::uniform_bodies`), built by `gfx_common::render_scene`
//! (shared with the `gfx_parallel` tests); only the triangle count differs.
//!
//! Time is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so the figure is per core even
//! when the machine is shared. Throughput is in shaded fragments.
#![allow(dead_code)]

#[path = "../tests/gfx_common/mod.rs"]
mod gfx_common;

use agx16_sim::gfx::{self, IsaStages};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gfx_common::render_scene::build_scene;
use gfx_common::*;
use std::time::Duration;

/// Triangles of the scene.
const TRIANGLES: usize = 300;

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
    let scene = build_scene(TRIANGLES);
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

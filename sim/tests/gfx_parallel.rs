//! Tiles of one render on several host threads give the serial result bit for bit: the
//! render bench's scene (hardware vertex and fragment bodies entered through launchers, a
//! 64x64 frame of four tiles, overlapping triangles) rendered serially with
//! `run_render_with` and with `run_render_parallel` on 2 and 3 threads; the images and every
//! count must be identical. A fragment body that stores to device memory keeps the serial
//! order (checked through the stages' answer).
#![allow(dead_code)]

mod gfx_common;

use agx16_sim::gfx::{
    self, Fragment, FragmentResult, IsaStages, RenderCommand, Stages, TileBuffer, VertexInvocation,
};
use agx16_sim::{GpuMemory, PageTable, SimError};
use gfx_common::render_scene::{self, FRAG_LAUNCHER};
use gfx_common::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Triangles of the scene (the render bench draws 300 of the same kind).
const TRIANGLES: usize = 120;

fn build_scene() -> Scene {
    render_scene::build_scene(TRIANGLES)
}

/// The scene's page table behind a lock, so worker threads can share it (accesses are
/// serialised; the model's own memory in the shim is the kernel VM, shared without a lock).
struct Shared(Mutex<PageTable>);

impl GpuMemory for Shared {
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), agx16_sim::mem::Fault> {
        self.0.lock().unwrap().read(va, out)
    }
    fn write(&self, va: u64, data: &[u8]) -> Result<(), agx16_sim::mem::Fault> {
        self.0.lock().unwrap().write(va, data)
    }
}

fn stages() -> Box<dyn Stages> {
    Box::new(HardwareBodyStages {
        isa: IsaStages::default(),
    })
}

/// The frame's bytes after a render.
fn frame(pt: &PageTable) -> Vec<u8> {
    let mut b = vec![0u8; (W * H * 4) as usize];
    pt.host_read(IMG, &mut b).unwrap();
    b
}

#[test]
fn parallel_tiles_match_the_serial_render_bit_for_bit() {
    let serial = build_scene();
    let cmd: RenderCommand = serial.command();
    let want_stats = gfx::run_render_with(&serial.pt, &cmd, &mut *stages()).unwrap();
    let want = frame(&serial.pt);
    assert!(want_stats.fragments_shaded > 3000, "{want_stats:?}");
    assert!(want.chunks(4).filter(|c| *c != CLEAR).count() > 2000);
    for threads in [2, 3] {
        let scene = build_scene();
        let mem = Shared(Mutex::new(scene.pt));
        // Stage sets made: one for the draws, then one per worker share of the tiles.
        let made = AtomicUsize::new(0);
        let make = || {
            made.fetch_add(1, Ordering::Relaxed);
            stages()
        };
        let stats = gfx::run_render_parallel(&mem, &cmd, &make, &|| false, threads).unwrap();
        assert!(
            made.into_inner() > 1,
            "{threads} threads: the tiles ran serially"
        );
        assert_eq!(stats, want_stats, "{threads} threads");
        let got = frame(&mem.0.lock().unwrap());
        assert!(
            got == want,
            "{threads} threads: the image differs from the serial one"
        );
    }
}

/// Stages that say their fragment program stores to memory.
struct Storing(Box<dyn Stages>);

impl Stages for Storing {
    fn vertex(
        &mut self,
        mem: &dyn GpuMemory,
        inv: &VertexInvocation,
    ) -> Result<Vec<f32>, SimError> {
        self.0.vertex(mem, inv)
    }
    fn vertices(
        &mut self,
        mem: &dyn GpuMemory,
        invs: &[VertexInvocation],
    ) -> Result<Vec<Vec<f32>>, SimError> {
        self.0.vertices(mem, invs)
    }
    fn background(
        &mut self,
        mem: &dyn GpuMemory,
        usc: u64,
        tile: &mut TileBuffer,
    ) -> Result<(), SimError> {
        self.0.background(mem, usc, tile)
    }
    fn fragment(
        &mut self,
        mem: &dyn GpuMemory,
        f: &Fragment,
        tile: &mut TileBuffer,
    ) -> Result<FragmentResult, SimError> {
        self.0.fragment(mem, f, tile)
    }
    fn fragments(
        &mut self,
        mem: &dyn GpuMemory,
        quad: &[Fragment],
        tile: &mut TileBuffer,
    ) -> Result<Vec<FragmentResult>, SimError> {
        self.0.fragments(mem, quad, tile)
    }
    fn end_of_tile(
        &mut self,
        mem: &dyn GpuMemory,
        usc: u64,
        tile: &TileBuffer,
    ) -> Result<(), SimError> {
        self.0.end_of_tile(mem, usc, tile)
    }
    fn fragment_may_store(&mut self, _: &dyn GpuMemory, _: u64) -> bool {
        true
    }
}

#[test]
fn a_storing_fragment_program_keeps_the_serial_order() {
    let serial = build_scene();
    let cmd: RenderCommand = serial.command();
    let want_stats = gfx::run_render_with(&serial.pt, &cmd, &mut *stages()).unwrap();
    let scene = build_scene();
    let mem = Shared(Mutex::new(scene.pt));
    let made = AtomicUsize::new(0);
    let make = || {
        made.fetch_add(1, Ordering::Relaxed);
        Box::new(Storing(stages())) as Box<dyn Stages>
    };
    let stats = gfx::run_render_parallel(&mem, &cmd, &make, &|| false, 4).unwrap();
    assert_eq!(made.into_inner(), 1, "one stage set: the serial order");
    assert_eq!(stats, want_stats);
    assert!(frame(&mem.0.lock().unwrap()) == frame(&serial.pt));
}

#[test]
fn isa_stages_report_fragment_bodies_that_store() {
    let scene = build_scene();
    let mut st = IsaStages::default();
    // The scene's fragment body loads a uniform buffer and stores only to the tilebuffer.
    assert!(!st.fragment_may_store(&scene.pt, FRAG_LAUNCHER));
    // Nothing loads at an unmapped launcher: reported as storing (the serial order then
    // reports the failure).
    assert!(st.fragment_may_store(&scene.pt, USC + 0xf00000));
}

//! Shared harness of the compiled-graphics tests: compiled vertex and fragment bodies
//! installed behind launchers (root record with pointer loads and argument transfers, as
//! sim/GFX.md "Render-stage uniform ABI" describes) and drawn with agx16-sim's render model
//! on the hardware path (`IsaStages`); background and end of tile are the render-model
//! harness's host stages (sim/tests/gfx_common).
#![allow(dead_code)]

use crate::gfx_common::*;
use agx16_cmdstream::launch::{entry_offset, jump_any};
use agx16_cmdstream::render::ZlsControl;
use agx16_compiler::abi::StageInfo;
use agx16_isa::meaning::{
    arg_store_instr, launch_frame_instr, pointer_load_instr, stage_allocation_instr,
    stage_target_instr, StageAllocation,
};
use agx16_isa::{encode_program, Instr, Part, Role};
use agx16_sim::gfx::{self, Fragment, FragmentResult, IsaStages, Stages, TileBuffer};
use agx16_sim::gfx::{RenderStats, VertexInvocation};
use agx16_sim::{GpuMemory, SimError};

/// A compiled stage and the root record its launcher transfers (qwords; empty = none).
pub struct StageCode {
    pub code: Vec<u8>,
    pub info: StageInfo,
    pub roots: Vec<u64>,
}

pub const VERT_ROOTS: u64 = VB + 0x8000;
pub const FRAG_ROOTS: u64 = VB + 0x8800;

const VERT_LAUNCHER: u64 = USC + 0x8000; // where the harness's VDM state points
const VERT_BODY: u64 = USC + 0x40000;
const FRAG_LAUNCHER: u64 = USC + 0x9000; // the harness's PPP fragment launch
const FRAG_BODY: u64 = USC + 0x50000;

fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Launcher (root-record pointer loads, stage allocation and target, frame, argument
/// transfers, stop), entry jump to the body, the body.
#[allow(clippy::too_many_arguments)]
fn install(
    scene: &Scene,
    launcher: u64,
    entry: u64,
    alloc: StageAllocation,
    body_va: u64,
    stage: &StageCode,
    roots_va: u64,
) {
    let lit = |dst: u32, v: u32| {
        let mut i = b("mov_imm32", &[("imm", v as u64)]);
        i.set_gpr(Role::Dst, dst, Part::Full).unwrap();
        i
    };
    let roots = stage.roots.len() as u32;
    let mut l = Vec::new();
    if roots > 0 {
        let record: Vec<u8> = stage.roots.iter().flat_map(|q| q.to_le_bytes()).collect();
        scene.pt.host_write(roots_va, &record).unwrap();
        l.push(lit(2, roots_va as u32));
        l.push(lit(3, (roots_va >> 32) as u32));
        for q in (0..roots).step_by(2).rev() {
            let count = if q + 2 <= roots { 2 } else { 1 };
            l.push(pointer_load_instr(18 + 2 * q, 2, q as u8, count).unwrap());
        }
    }
    l.push(stage_allocation_instr(alloc).unwrap());
    l.push(stage_target_instr(entry).unwrap());
    l.push(launch_frame_instr(stage.info.publications.max(1), 0, 0).unwrap());
    for w in 0..2 * roots {
        l.push(arg_store_instr(w, 18 + w, w == 0).unwrap());
    }
    l.push(b("stop", &[]));
    scene.pt.host_write(launcher, &encode_program(&l)).unwrap();
    // the entry is JMP_EXEC_ANY (mode 0x54), as the arena writes it
    let jump = agx16_isa::decode(&jump_any((body_va - (USC + entry)) as i64).unwrap()).unwrap();
    scene
        .pt
        .host_write(USC + entry, &encode_program(&[jump, b("stop", &[])]))
        .unwrap();
    let mut body = stage.code.clone();
    body.resize(body.len() + 64, 0);
    scene.pt.host_write(body_va, &body).unwrap();
}

/// Vertex and fragment stages on the hardware path; background (clear colour) and end of
/// tile (raw word 0 → image) are the harness's host stages.
struct CompiledStages {
    isa: IsaStages,
    host: HostStages,
    /// The tile word the end of tile copies into the image.
    word: usize,
}

impl Stages for CompiledStages {
    fn vertex(
        &mut self,
        mem: &dyn GpuMemory,
        inv: &VertexInvocation,
    ) -> Result<Vec<f32>, SimError> {
        self.isa.vertex(mem, inv)
    }
    fn vertices(
        &mut self,
        mem: &dyn GpuMemory,
        invs: &[VertexInvocation],
    ) -> Result<Vec<Vec<f32>>, SimError> {
        self.isa.vertices(mem, invs)
    }
    fn background(
        &mut self,
        mem: &dyn GpuMemory,
        usc: u64,
        tile: &mut TileBuffer,
    ) -> Result<(), SimError> {
        self.host.background(mem, usc, tile)
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
        usc: u64,
        tile: &TileBuffer,
    ) -> Result<(), SimError> {
        if self.word == 0 {
            return self.host.end_of_tile(mem, usc, tile);
        }
        for y in 0..tile.height {
            for x in 0..tile.width {
                let (px, py) = (tile.origin.0 + x, tile.origin.1 + y);
                if px < W && py < H {
                    let w = &tile.sample(x, y, 0).unwrap()[4 * self.word..4 * self.word + 4];
                    mem.write(IMG + 4 * (py * W + px) as u64, w)?;
                }
            }
        }
        Ok(())
    }
}

/// Draw `d` (its vertices size the draw and fill the vertex buffer at `VB`; the CF table
/// follows `d.shade`) with the compiled stages; returns the image and statistics.
pub fn draw(
    d: &DrawSpec,
    vs: &StageCode,
    fs: &StageCode,
) -> Result<(Vec<[u8; 4]>, RenderStats), SimError> {
    draw_with_memory(d, vs, fs, &[])
}

/// `draw` after writing `writes` (VA, bytes) into the scene's memory.
pub fn draw_with_memory(
    d: &DrawSpec,
    vs: &StageCode,
    fs: &StageCode,
    writes: &[(u64, Vec<u8>)],
) -> Result<(Vec<[u8; 4]>, RenderStats), SimError> {
    draw_words(d, vs, fs, writes, 4, 0)
}

/// `draw_with_memory` on a tilebuffer of `sample_bytes` per pixel, the image taken from
/// tile word `word`.
pub fn draw_words(
    d: &DrawSpec,
    vs: &StageCode,
    fs: &StageCode,
    writes: &[(u64, Vec<u8>)],
    sample_bytes: u8,
    word: usize,
) -> Result<(Vec<[u8; 4]>, RenderStats), SimError> {
    let mut scene = build(&[d.clone()], ZlsControl::default());
    scene.cmd.sample_size_b = sample_bytes;
    for (va, bytes) in writes {
        scene.pt.host_write(*va, bytes).unwrap();
    }
    install(
        &scene,
        VERT_LAUNCHER,
        entry_offset(0),
        StageAllocation::Empty,
        VERT_BODY,
        vs,
        VERT_ROOTS,
    );
    install(
        &scene,
        FRAG_LAUNCHER,
        entry_offset(1),
        StageAllocation::Tile {
            samples: 1,
            units: 1,
        },
        FRAG_BODY,
        fs,
        FRAG_ROOTS,
    );
    let mut st = CompiledStages {
        isa: IsaStages::default(),
        host: HostStages {
            draws: vec![d.clone()],
        },
        word,
    };
    let stats = gfx::run_render_with(&scene.pt, &scene.command(), &mut st)?;
    Ok((image(&scene.pt), stats))
}

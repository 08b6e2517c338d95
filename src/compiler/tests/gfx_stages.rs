//! Graphics stages in the IR: vertex outputs (`store_output`), fragment inputs
//! (`load_varying` with flat/linear/perspective) and tilebuffer colour (`store_tile`), run by
//! the reference interpreter as the shader stages of agx16-sim's render model
//! (`gfx::run_render_with`), and the image compared with the CPU reference rasteriser of the
//! render-model tests (sim/tests/gfx_common, which shares no code with the model).
//!
//! What this checks is the IR's stage semantics against the model's stage protocol; the same
//! kind of programs compiled to G16 and run as stage bodies are in `gfx_compiled.rs`.
#![allow(dead_code, clippy::cloned_ref_to_slice_refs)]

#[path = "../../../sim/tests/gfx_common/mod.rs"]
mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::render::ZlsControl;
use agx16_cmdstream::vdm::ProvokingVertex;
use agx16_compiler::interp::{self, Env, Exit};
use agx16_compiler::ir::*;
use agx16_sim::gfx::{self, Fragment, FragmentResult, Stages, TileBuffer, VertexInvocation};
use agx16_sim::{GpuMemory, SimError};
use gfx_common::*;

/// Vertex program: fetch the eight floats of vertex `vertex_id` (position, colour) from
/// binding 0 and write them to output slots 0..7.
fn vertex_program() -> Function {
    let mut b = Builder::new(Stage::Vertex);
    let id = b.sysval(SysVal::VertexId);
    let base = b.alu(Op::Shl, Type::I32, [Src::val(id), Src::imm(3)]);
    for k in 0..8u8 {
        let idx = b.iadd(base, Src::imm(k as u32));
        let v = b.load_global(0, idx, Type::F32, 1);
        b.store_output(k, v);
    }
    b.finish()
}

/// Fragment program: colour = coefficient registers 1..4 (`interp`), packed as RGBA8 unorm
/// (round(clamp(c, 0, 1) * 255)) into tilebuffer word 0; discards when red < `discard_below`.
fn fragment_program(interp: Interp, discard_below: Option<f32>) -> Function {
    let mut b = Builder::new(Stage::Fragment);
    let mut word = None;
    let mut red = None;
    for k in 0..4u8 {
        let c = b.load_varying(1 + k, interp);
        if k == 0 {
            red = Some(c);
        }
        let s = b.saturate(Type::F32, c);
        let m = b.fmul(s, Src::imm_f32(255.0));
        let r = b.fadd(m, Src::imm_f32(0.5));
        let byte = b.alu(Op::F2I { signed: false }, Type::I32, [Src::val(r)]);
        let shifted = b.alu(Op::Shl, Type::I32, [Src::val(byte), Src::imm(8 * k as u32)]);
        word = Some(match word {
            None => shifted,
            Some(w) => b.alu(Op::Or, Type::I32, [Src::val(w), Src::val(shifted)]),
        });
    }
    if let (Some(limit), Some(red)) = (discard_below, red) {
        let low = b.fcmp(Cmp::Lt, red, Src::imm_f32(limit));
        b.if_(low);
        b.discard();
        b.end_if();
    }
    b.store_tile(0, word.unwrap());
    b.finish()
}

/// The IR programs as the render model's shader stages (background and end of tile are the
/// harness's: clear colour, resolve to the image).
struct IrStages {
    vs: Function,
    fs: Function,
    host: HostStages,
    vertices: usize,
}

fn launch_err(e: String) -> SimError {
    SimError::Launch(format!("IR stage: {e}"))
}

impl Stages for IrStages {
    fn vertex(
        &mut self,
        mem: &dyn GpuMemory,
        inv: &VertexInvocation,
    ) -> Result<Vec<f32>, SimError> {
        let mut bytes = vec![0u8; 32 * self.vertices];
        mem.read(VB + 0x1000 * inv.draw as u64, &mut bytes)?;
        let words = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut env = Env {
            vertex_id: inv.vertex_id,
            instance_id: inv.instance_id,
            ..Env::default()
        };
        env.buffers.insert(0, words);
        interp::run(&self.vs, &mut env).map_err(launch_err)?;
        (0..inv.outputs)
            .map(|k| {
                env.outputs
                    .get(&(k as u8))
                    .map(|w| f32::from_bits(*w))
                    .ok_or_else(|| launch_err(format!("output {k} not written")))
            })
            .collect()
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
        _: &dyn GpuMemory,
        f: &Fragment,
        tile: &mut TileBuffer,
    ) -> Result<FragmentResult, SimError> {
        // The iterator follows the coefficient binding; the program's interpolation must agree.
        for i in self.fs.blocks.iter().flat_map(|b| &b.instrs) {
            if let Op::LoadVarying { cf, interp } = i.op {
                let plane = f
                    .coefficients
                    .get(cf as usize)
                    .ok_or_else(|| launch_err(format!("coefficient {cf} not bound")))?;
                if plane.perspective != (interp == Interp::Perspective) {
                    return Err(launch_err(format!("cf{cf}: binding and program disagree")));
                }
            }
        }
        let mut env = Env {
            varyings: (0..f.coefficients.len())
                .map(|cf| f.iterate(cf).unwrap_or(0.0).to_bits())
                .collect(),
            ..Env::default()
        };
        let exit = interp::run(&self.fs, &mut env).map_err(launch_err)?;
        if exit == Exit::Discarded {
            return Ok(FragmentResult {
                discard: true,
                ..Default::default()
            });
        }
        let word = *env
            .tile
            .get(&0)
            .ok_or_else(|| launch_err("no colour written".into()))?;
        let (x, y) = (f.x - tile.origin.0, f.y - tile.origin.1);
        for s in 0..tile.samples {
            if f.sample_mask & (1 << s) != 0 {
                tile.sample_mut(x, y, s)
                    .ok_or_else(|| launch_err("pixel outside the utile".into()))?
                    .copy_from_slice(&word.to_le_bytes());
            }
        }
        Ok(FragmentResult::default())
    }
    fn end_of_tile(
        &mut self,
        mem: &dyn GpuMemory,
        usc: u64,
        tile: &TileBuffer,
    ) -> Result<(), SimError> {
        self.host.end_of_tile(mem, usc, tile)
    }
}

fn render(d: &DrawSpec, interp: Interp) -> Vec<[u8; 4]> {
    let scene = build(&[d.clone()], ZlsControl::default());
    let mut st = IrStages {
        vs: vertex_program(),
        fs: fragment_program(interp, None),
        host: HostStages {
            draws: vec![d.clone()],
        },
        vertices: d.verts.len(),
    };
    gfx::run_render_with(&scene.pt, &scene.command(), &mut st).unwrap();
    image(&scene.pt)
}

fn triangle(shade: ShadeModel) -> DrawSpec {
    // Different W per vertex: perspective-correct and screen-linear results differ.
    DrawSpec::tris(
        vec![
            rgba([-0.9, -0.9, 0.2, 1.0], [1.0, 0.0, 0.0, 1.0]),
            rgba([2.7, -2.4, 1.2, 3.0], [0.0, 1.0, 0.0, 1.0]),
            rgba([0.0, 1.6, 0.6, 2.0], [0.0, 0.0, 1.0, 0.5]),
        ],
        shade,
    )
}

#[test]
fn perspective_varyings_match_the_reference_rasteriser() {
    let d = triangle(ShadeModel::Perspective);
    compare(&render(&d, Interp::Perspective), &reference(&[d]));
}

#[test]
fn linear_varyings_match_the_reference_rasteriser() {
    let d = triangle(ShadeModel::Linear);
    let got = render(&d, Interp::Linear);
    compare(&got, &reference(&[d]));
    // And differ from the perspective image (the test can fail).
    assert_ne!(
        got,
        render(&triangle(ShadeModel::Perspective), Interp::Perspective)
    );
}

#[test]
fn flat_varyings_match_the_reference_rasteriser() {
    // The flat binding names the provoking vertex of the draw's convention.
    for (shade, provoking) in [
        (ShadeModel::FlatVertex0, ProvokingVertex::First),
        (ShadeModel::FlatVertex2, ProvokingVertex::Last),
    ] {
        let d = DrawSpec {
            provoking,
            ..triangle(shade)
        };
        compare(&render(&d, Interp::Flat), &reference(&[d]));
    }
}

/// A discarding fragment program: discarded pixels keep the clear colour; compared with the
/// reference image in which those pixels are the clear colour.
#[test]
fn discard_leaves_the_clear_colour() {
    let d = triangle(ShadeModel::Linear);
    let scene = build(&[d.clone()], ZlsControl::default());
    let mut st = IrStages {
        vs: vertex_program(),
        fs: fragment_program(Interp::Linear, Some(0.5)),
        host: HostStages {
            draws: vec![d.clone()],
        },
        vertices: d.verts.len(),
    };
    gfx::run_render_with(&scene.pt, &scene.command(), &mut st).unwrap();
    let got = image(&scene.pt);
    let mut want = reference(&[d]);
    let mut discarded = 0;
    for c in want.color.iter_mut() {
        // Red below 0.5 (as unorm8, away from the rounding boundary) was discarded.
        if *c != CLEAR && c[0] < 127 {
            *c = CLEAR;
            discarded += 1;
        }
    }
    assert!(discarded > 100, "the discard covers a real area");
    // Pixels right at the boundary may fall either way within one 8-bit step.
    let differ = got
        .iter()
        .zip(&want.color)
        .filter(|(g, w)| g != w && !(w[0] >= 126 && w[0] <= 128))
        .count();
    assert_eq!(differ, 0);
}

//! Compiled graphics programs on agx16-sim's render model: IR vertex and fragment programs
//! (GLSL-shaped) compiled to G16 by the whole backend and run as real stage bodies through
//! `gfx::run_render_with` with `IsaStages` (the hardware path: launcher → entry jump → body on
//! the shader core). The images are compared with the CPU reference rasteriser of the
//! render-model tests (sim/tests/gfx_common, no code shared with the model or the compiler):
//! exact coverage, colour within one 8-bit step.
#![allow(dead_code, clippy::cloned_ref_to_slice_refs)]

#[path = "../../../sim/tests/gfx_common/mod.rs"]
mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::launch::{entry_offset, jump_any};
use agx16_cmdstream::render::ZlsControl;
use agx16_cmdstream::vdm::ProvokingVertex;
use agx16_compiler::abi::{self, StageInfo};
use agx16_compiler::ir::*;
use agx16_compiler::pipeline::Options;
use agx16_isa::meaning::{
    launch_frame_instr, stage_allocation_instr, stage_target_instr, StageAllocation,
};
use agx16_isa::{encode_program, Instr};
use agx16_sim::gfx::{self, Fragment, FragmentResult, IsaStages, Stages, TileBuffer};
use agx16_sim::gfx::{RenderStats, VertexInvocation};
use agx16_sim::{GpuMemory, SimError};
use gfx_common::*;

const VERT_LAUNCHER: u64 = USC + 0x8000; // where the harness's VDM state points
const VERT_BODY: u64 = USC + 0x40000;
const FRAG_LAUNCHER: u64 = USC + 0x9000; // the harness's PPP fragment launch
const FRAG_BODY: u64 = USC + 0x50000;

fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Launcher (stage allocation, stage target, stop), entry jump to the body, the body.
fn install(
    scene: &Scene,
    launcher: u64,
    entry: u64,
    alloc: StageAllocation,
    body_va: u64,
    body: &[u8],
) {
    let l = [
        stage_allocation_instr(alloc).unwrap(),
        stage_target_instr(entry).unwrap(),
        // every launcher that ran on T8132 carries the publication/scratch frame (128
        // publications: the whole namespace; the model does not check the count yet)
        launch_frame_instr(128, 0, 0).unwrap(),
        b("stop", &[]),
    ];
    scene.pt.host_write(launcher, &encode_program(&l)).unwrap();
    // the entry is JMP_EXEC_ANY (mode 0x54), as the arena writes it
    let jump = agx16_isa::decode(&jump_any((body_va - (USC + entry)) as i64).unwrap()).unwrap();
    scene
        .pt
        .host_write(USC + entry, &encode_program(&[jump, b("stop", &[])]))
        .unwrap();
    scene.pt.host_write(body_va, body).unwrap();
}

/// Vertex and fragment stages on the hardware path; background (clear colour) and end of
/// tile (raw word 0 → image) are the harness's host stages.
struct CompiledStages {
    isa: IsaStages,
    host: HostStages,
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
        self.host.end_of_tile(mem, usc, tile)
    }
}

/// Image, statistics, vertex and fragment stage information.
type Rendered = (Vec<[u8; 4]>, RenderStats, StageInfo, StageInfo);

/// Compile both programs, draw `d` (its vertices size the draw and fill the vertex buffer;
/// the CF table follows `d.shade`) with them, and return the image and statistics.
fn render_with(d: &DrawSpec, vs: &Function, fs: &Function) -> Result<Rendered, SimError> {
    let (vc, vinfo) = abi::compile_ir_graphics(vs, 0, Options::default()).unwrap();
    let (fc, finfo) = abi::compile_ir_graphics(fs, 0, Options::default()).unwrap();
    let scene = build(&[d.clone()], ZlsControl::default());
    install(
        &scene,
        VERT_LAUNCHER,
        entry_offset(0),
        StageAllocation::Empty,
        VERT_BODY,
        &vc.code,
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
        &fc.code,
    );
    let mut st = CompiledStages {
        isa: IsaStages::default(),
        host: HostStages {
            draws: vec![d.clone()],
        },
    };
    let stats = gfx::run_render_with(&scene.pt, &scene.command(), &mut st)?;
    Ok((image(&scene.pt), stats, vinfo, finfo))
}

// ---- programs ----

/// GLSL-shaped vertex program computing everything from gl_VertexID (no uniforms: the model
/// does not transfer render-stage arguments yet):
///   float k = float(gl_VertexID); float w = 1.0 + k;
///   gl_Position = vec4((k * 0.9 - 0.9) * w, (k * k * 0.45 - 0.9) * w, 0.5 * w, w);
///   colour = vec4(k * 0.45, 1.0 - k * 0.4, 0.8 - k * 0.3, 1.0);
fn id_vertex_program() -> Function {
    let mut b = Builder::new(Stage::Vertex);
    let id = b.sysval(SysVal::VertexId);
    let k = b.alu(Op::I2F { signed: true }, Type::F32, [Src::val(id)]);
    let w = b.fadd(k, Src::imm_f32(1.0));
    let x = b.fmul(k, Src::imm_f32(0.9));
    let x = b.fadd(x, Src::imm_f32(-0.9));
    let x = b.fmul(x, w);
    let kk = b.fmul(k, k);
    let y = b.fmul(kk, Src::imm_f32(0.45));
    let y = b.fadd(y, Src::imm_f32(-0.9));
    let y = b.fmul(y, w);
    let z = b.fmul(w, Src::imm_f32(0.5));
    let r = b.fmul(k, Src::imm_f32(0.45));
    let g = b.fmul(
        k,
        Src {
            neg: true,
            ..Src::imm_f32(0.4)
        },
    );
    let g = b.fadd(g, Src::imm_f32(1.0));
    let bl = b.fmul(k, Src::imm_f32(-0.3));
    let bl = b.fadd(bl, Src::imm_f32(0.8));
    for (slot, v) in [x, y, z, w, r, g, bl].into_iter().enumerate() {
        b.store_output(slot as u8, v);
    }
    b.store_output(7, Src::imm_f32(1.0));
    b.finish()
}

/// The same vertices on the host (the reference's input).
fn id_vertices() -> Vec<Vtx> {
    (0..3)
        .map(|i| {
            let k = i as f32;
            let w = 1.0 + k;
            rgba(
                [(k * 0.9 - 0.9) * w, (k * k * 0.45 - 0.9) * w, 0.5 * w, w],
                [k * 0.45, 1.0 - k * 0.4, 0.8 - k * 0.3, 1.0],
            )
        })
        .collect()
}

/// `fragColor = colour` (CF slots 1..4, `interp`), packed as RGBA8 into tile word 0.
fn passthrough_fragment(interp: Interp) -> Function {
    let mut b = Builder::new(Stage::Fragment);
    let c: Vec<Src> = (0..4)
        .map(|k| Src::val(b.load_varying(1 + k, interp)))
        .collect();
    let word = abi::pack_unorm_4x8(&mut b, [c[0], c[1], c[2], c[3]]);
    b.store_tile(0, word);
    b.finish()
}

/// Arithmetic on varyings:
///   fragColor = vec4(c.r * 1.5 - 0.25, 1.0 - c.g, (c.r + c.b) * 0.5, c.g * c.g);
fn arithmetic_fragment(interp: Interp) -> Function {
    let mut b = Builder::new(Stage::Fragment);
    let r = b.load_varying(1, interp);
    let g = b.load_varying(2, interp);
    let bl = b.load_varying(3, interp);
    let o0 = b.fmul(r, Src::imm_f32(1.5));
    let o0 = b.fadd(o0, Src::imm_f32(-0.25));
    let o1 = b.fadd(
        Src {
            neg: true,
            ..Src::val(g)
        },
        Src::imm_f32(1.0),
    );
    let o2 = b.fadd(r, bl);
    let o2 = b.fmul(o2, Src::imm_f32(0.5));
    let o3 = b.fmul(g, g);
    let word = abi::pack_unorm_4x8(
        &mut b,
        [Src::val(o0), Src::val(o1), Src::val(o2), Src::val(o3)],
    );
    b.store_tile(0, word);
    b.finish()
}

fn id_triangle(shade: ShadeModel) -> DrawSpec {
    DrawSpec::tris(id_vertices(), shade)
}

fn interp_of(shade: ShadeModel) -> Interp {
    match shade {
        ShadeModel::Perspective => Interp::Perspective,
        ShadeModel::Linear => Interp::Linear,
        _ => Interp::Flat,
    }
}

#[test]
fn compiled_vertex_and_fragment_bodies_draw_the_reference_triangle() {
    for shade in [ShadeModel::Perspective, ShadeModel::Linear] {
        let d = id_triangle(shade);
        let (img, stats, vinfo, finfo) = render_with(
            &d,
            &id_vertex_program(),
            &passthrough_fragment(interp_of(shade)),
        )
        .unwrap();
        let r = reference(&[d]);
        compare(&img, &r);
        assert!(r.passed[0] > 300, "the triangle covers a real area");
        assert_eq!(stats.fragments_shaded, r.passed[0]);
        assert_eq!(stats.vertices_shaded, 3);
        assert_eq!(vinfo.outputs, 8);
        assert_eq!(finfo.tile_words, 1);
        let i = Some(interp_of(shade));
        assert_eq!(finfo.coefficients, vec![None, i, i, i, i]);
    }
    // W differs per vertex: perspective and linear images differ (the test can fail).
    let p = render_with(
        &id_triangle(ShadeModel::Perspective),
        &id_vertex_program(),
        &passthrough_fragment(Interp::Perspective),
    )
    .unwrap()
    .0;
    let l = render_with(
        &id_triangle(ShadeModel::Linear),
        &id_vertex_program(),
        &passthrough_fragment(Interp::Linear),
    )
    .unwrap()
    .0;
    assert_ne!(p, l);
}

#[test]
fn compiled_flat_varyings_take_the_provoking_vertex() {
    for (shade, provoking) in [
        (ShadeModel::FlatVertex0, ProvokingVertex::First),
        (ShadeModel::FlatVertex2, ProvokingVertex::Last),
    ] {
        let d = DrawSpec {
            provoking,
            ..id_triangle(shade)
        };
        let img = render_with(
            &d,
            &id_vertex_program(),
            &passthrough_fragment(Interp::Flat),
        )
        .unwrap()
        .0;
        compare(&img, &reference(&[d]));
    }
}

#[test]
fn compiled_arithmetic_on_varyings_matches_the_reference() {
    for shade in [ShadeModel::Perspective, ShadeModel::Linear] {
        let d = id_triangle(shade);
        let (img, ..) = render_with(
            &d,
            &id_vertex_program(),
            &arithmetic_fragment(interp_of(shade)),
        )
        .unwrap();
        // The affine channels are the reference of the affinely transformed vertex colours
        // (interpolation weights sum to one); alpha = g² is checked against the reference's
        // interpolated g (within two steps: the reference is itself quantised).
        let mut t = d.clone();
        for v in &mut t.verts {
            let (r, g, bl) = (v[4], v[5], v[6]);
            v[4] = r * 1.5 - 0.25;
            v[5] = 1.0 - g;
            v[6] = (r + bl) * 0.5;
            v[7] = 1.0;
        }
        let want = reference(&[t]);
        let plain = reference(&[d]);
        let mut worst = 0;
        for ((got, w), p) in img.iter().zip(&want.color).zip(&plain.color) {
            assert_eq!(*got == CLEAR, *w == CLEAR, "coverage");
            if *w == CLEAR {
                continue;
            }
            for k in 0..3 {
                worst = worst.max((got[k] as i32 - w[k] as i32).abs());
            }
            let g = p[1] as f32 / 255.0;
            let a = unorm8(g * g) as i32;
            assert!((got[3] as i32 - a).abs() <= 2, "alpha {} vs {a}", got[3]);
        }
        assert!(worst <= 1, "colour error {worst} steps");
        // The red channel saturates somewhere (the clamp is exercised).
        assert!(img.iter().any(|c| *c != CLEAR && c[0] == 0));
    }
}

#[test]
fn graphics_programs_the_abi_cannot_express_are_clear_errors() {
    // gl_InstanceID: no established special-register selector on G16.
    let mut b = Builder::new(Stage::Vertex);
    let id = b.sysval(SysVal::InstanceId);
    for k in 0..4 {
        b.store_output(k, id);
    }
    let e = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap_err();
    assert!(e.to_string().contains("instance id"), "{e}");
    // An output slot left unstored (the model, like the hardware, has no default for it).
    let mut b = Builder::new(Stage::Vertex);
    for k in [0, 1, 2, 3, 5] {
        b.store_output(k, Src::imm_f32(1.0));
    }
    let e = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap_err();
    assert!(e.to_string().contains("every slot up to the last"), "{e}");
    // Stage IO in the wrong stage.
    let mut b = Builder::new(Stage::Fragment);
    b.store_output(0, Src::imm_f32(1.0));
    let e = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap_err();
    assert!(e.to_string().contains("store_output in a Fragment"), "{e}");
}

#[test]
fn a_body_storing_tile_word_one_is_refused_by_the_model() {
    // The compiler emits tile_store rt = 1; the model refuses it by name (whether `rt` counts
    // words or render targets is not established), so a second render target cannot be
    // drawn yet and nothing pretends otherwise.
    let mut b = Builder::new(Stage::Fragment);
    let c = b.load_varying(1, Interp::Linear);
    b.store_tile(1, c);
    let d = id_triangle(ShadeModel::Linear);
    match render_with(&d, &id_vertex_program(), &b.finish()) {
        Err(SimError::Unestablished { form, what, .. }) => {
            assert!(form.starts_with("tile_store"), "{form}");
            assert!(what.contains("tile word 1"), "{what}");
        }
        other => panic!("{:?}", other.map(|r| r.1)),
    }
}

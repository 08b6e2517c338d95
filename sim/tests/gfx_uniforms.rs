//! Render-stage uniforms (sim/GFX.md "Render-stage uniform ABI"): the vertex and fragment
//! launchers run as setup invocations whose pointer loads read a root record and whose
//! argument transfers fill the bodies' uniform registers. The vertex body fetches its
//! positions and colours from a vertex buffer whose address arrives in argument qword 6
//! (device loads, base slot 6, through the job's VM); the fragment body scales the
//! interpolated red by a word it loads from a uniform buffer (argument qword 7) and adds an
//! inline uniform word (argument word 16, read with `uniform_mov`). The image is compared
//! with the CPU reference rasteriser of `gfx_common` fed with the same arithmetic done on the
//! host. Controls: a wrong uniform slot changes the image (the comparison fails), a slot past
//! the transfers is refused, an unmapped vertex buffer faults at its VA.
#![allow(clippy::cloned_ref_to_slice_refs)]

mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::launch::entry_offset;
use agx16_cmdstream::render::ZlsControl;
use agx16_isa::meaning::{arg_store_instr, StageAllocation};
use agx16_isa::{encode_program, Part, Role};
use agx16_sim::gfx::launcher;
use agx16_sim::gfx::{self, IsaStages};
use agx16_sim::SimError;
use gfx_common::uniform_bodies::*;
use gfx_common::*;

const VERT_LAUNCHER: u64 = USC + 0x8000; // where the harness's VDM state points
const VERT_BODY: u64 = USC + 0x40000;
const FRAG_LAUNCHER: u64 = USC + 0x9000; // the harness's PPP fragment launch
const FRAG_BODY: u64 = USC + 0x50000;

/// Driver memory of the test: root records, the vertex buffer, the uniform buffer.
const DATA: u64 = 0x8_0000_0000;
const VERT_ROOTS: u64 = DATA;
const FRAG_ROOTS: u64 = DATA + 0x100;
const PAGE: u64 = 0x4000;
const VBUF: u64 = DATA + PAGE;
const UBO: u64 = DATA + 2 * PAGE;

/// Argument qwords of the ABI: six roots (texture, sampler, buffer table, three reserved),
/// then the stage's buffers, then inline words.
const VB_SLOT: u64 = 6;
const UBO_SLOT: u64 = 7;
const INLINE_WORD: u64 = 16;
/// Per-instance x offsets (a second vertex-buffer binding, qword 8 of the vertex roots).
const INSTANCE_BUF: u64 = VBUF + 0x100;
const INSTANCE_SLOT: u64 = 8;
const INSTANCE_DX: [f32; 2] = [-0.05, 0.3];

/// What the fragment body applies: red * SCALE + BIAS (SCALE from the UBO, word 1).
const SCALE: f32 = 0.75;
const BIAS: f32 = 0.125;

// ---- the scene ----

/// The triangle's vertices as the driver would upload them.
fn vertices() -> [[f32; 8]; 3] {
    [
        [-0.8, -0.7, 0.5, 1.0, 0.9, 0.0, 0.1, 1.0],
        [0.85, -0.5, 0.25, 1.0, 0.2, 0.0, 0.6, 1.0],
        [-0.1, 0.9, 0.75, 1.0, 0.5, 0.0, 0.3, 1.0],
    ]
}

/// What the test varies.
struct Setup {
    vbody: Vec<u8>,
    fbody: Vec<u8>,
    /// Map the vertex buffer.
    vb_mapped: bool,
    /// Argument qwords the vertex / fragment launchers load.
    vroots: u32,
    froots: u32,
    instances: u32,
    /// Publication high-water mark in the vertex launcher's frame.
    vpublications: u32,
    /// Samples of the fragment launcher's tile layout.
    fsamples: u8,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            vbody: vertex_body(VB_SLOT),
            fbody: fragment_body(UBO_SLOT, INLINE_WORD),
            vb_mapped: true,
            vroots: 7,
            froots: 9,
            instances: 1,
            vpublications: 8,
            fsamples: 1,
        }
    }
}

fn render(s: &Setup) -> Result<(Scene, gfx::RenderStats), SimError> {
    let (scene, r) = render_scene(s);
    r.map(|st| (scene, st))
}

/// The error of a render that must fail.
fn render_err(s: &Setup) -> SimError {
    match render_scene(s).1 {
        Ok(_) => panic!("the render succeeded"),
        Err(e) => e,
    }
}

fn render_scene(s: &Setup) -> (Scene, Result<gfx::RenderStats, SimError>) {
    // The host vertices only size the draw (3 vertices, 8 outputs); the body fetches them.
    let draw = DrawSpec {
        instances: s.instances,
        ..DrawSpec::tris(vec![rgba([0.0; 4], [0.0; 4]); 3], ShadeModel::Linear)
    };
    let scene = build(&[draw], ZlsControl::default());
    scene.pt.map(DATA, PAGE, true, false).unwrap();
    scene.pt.map(UBO, PAGE, true, false).unwrap();
    if s.vb_mapped {
        scene.pt.map(VBUF, PAGE, true, false).unwrap();
        let vb: Vec<u8> = vertices()
            .iter()
            .flatten()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        scene.pt.host_write(VBUF, &vb).unwrap();
        let dx: Vec<u8> = INSTANCE_DX.iter().flat_map(|f| f.to_le_bytes()).collect();
        scene.pt.host_write(INSTANCE_BUF, &dx).unwrap();
    }
    // UBO word 0 is a decoy: a body reading the wrong word gets the wrong scale.
    let ubo: Vec<u8> = [2.0f32, SCALE]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    scene.pt.host_write(UBO, &ubo).unwrap();
    // Roots: texture, sampler, buffer tables (unused: 0), three reserved (0), then buffers;
    // the fragment record ends with the inline words 16/17 = (BIAS, decoy 0.5).
    scene
        .pt
        .host_write(
            VERT_ROOTS,
            &root_record(&[0, 0, 0, 0, 0, 0, VBUF, UBO, INSTANCE_BUF]),
        )
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
    let vl = launcher_program(
        VERT_ROOTS,
        s.vroots,
        StageAllocation::Empty,
        ve,
        s.vpublications,
    );
    let fl = launcher_program(
        FRAG_ROOTS,
        s.froots,
        StageAllocation::Tile {
            samples: s.fsamples,
            units: 1,
        },
        fe,
        0,
    );
    install_stage(&scene, VERT_LAUNCHER, &vl, ve, VERT_BODY, &s.vbody);
    install_stage(&scene, FRAG_LAUNCHER, &fl, fe, FRAG_BODY, &s.fbody);
    let mut st = HardwareBodyStages {
        isa: IsaStages::default(),
    };
    let r = gfx::run_render_with(&scene.pt, &scene.command(), &mut st);
    (scene, r)
}

/// The reference: the same vertices, red := red * SCALE + BIAS (what the fragment body does).
fn want(scale: f32, bias: f32) -> DrawSpec {
    want_shifted(scale, bias, 0.0)
}

/// `want` with every x moved by `dx`.
fn want_shifted(scale: f32, bias: f32, dx: f32) -> DrawSpec {
    let v = vertices().map(|v| {
        rgba(
            [v[0] + dx, v[1], v[2], v[3]],
            [v[4] * scale + bias, 0.0, 0.0, 1.0],
        )
    });
    DrawSpec::tris(v.to_vec(), ShadeModel::Linear)
}

#[test]
fn the_launchers_fill_the_uniform_registers() {
    let (scene, _) = render(&Setup::default()).unwrap();
    let v =
        launcher::run_stage_setup(&scene.pt, VERT_LAUNCHER, launcher::RenderStage::Vertex).unwrap();
    let mut want = vec![0u32; 12];
    want.extend([VBUF as u32, (VBUF >> 32) as u32]);
    assert_eq!(v.arguments, want);
    assert_eq!(v.body, VERT_BODY);
    let f = launcher::run_stage_setup(&scene.pt, FRAG_LAUNCHER, launcher::RenderStage::Fragment)
        .unwrap();
    assert_eq!(f.arguments.len(), 18);
    assert_eq!(f.arguments[14..16], [UBO as u32, (UBO >> 32) as u32]);
    assert_eq!(f.arguments[16], BIAS.to_bits());
    // A vertex launcher with a tile allocation (or a fragment one without) is refused.
    let e = launcher::run_stage_setup(&scene.pt, FRAG_LAUNCHER, launcher::RenderStage::Vertex)
        .unwrap_err();
    assert!(e.to_string().contains("is not a vertex allocation"), "{e}");
}

#[test]
fn vertex_fetch_and_uniforms_match_the_reference() {
    let (scene, stats) = render(&Setup::default()).unwrap();
    let r = reference(&[want(SCALE, BIAS)]);
    compare(&image(&scene.pt), &r);
    assert!(r.passed[0] > 300, "the triangle covers a real area");
    assert_eq!(stats.fragments_shaded, r.passed[0]);
    assert_eq!(stats.vertices_shaded, 3);
}

/// Whether the image matches the reference (`compare` panics on a mismatch).
fn matches(scene: &Scene, d: DrawSpec) -> bool {
    let img = image(&scene.pt);
    let r = reference(&[d]);
    std::panic::catch_unwind(|| compare(&img, &r)).is_ok()
}

#[test]
fn a_wrong_uniform_slot_changes_the_image() {
    // Sanity: the correct body matches, the mutated ones do not.
    let (scene, _) = render(&Setup::default()).unwrap();
    assert!(matches(&scene, want(SCALE, BIAS)));
    // The inline word next to the bias (0.5) instead of the bias.
    let s = Setup {
        fbody: fragment_body(UBO_SLOT, INLINE_WORD + 1),
        ..Setup::default()
    };
    let (scene, _) = render(&s).unwrap();
    assert!(!matches(&scene, want(SCALE, BIAS)));
    assert!(matches(&scene, want(SCALE, 0.5)));
    // The vertex floats read through the slot of another buffer (the vertex root record
    // holds the uniform buffer in qword 7): other positions, so the image differs.
    let s = Setup {
        vbody: vertex_body(UBO_SLOT),
        vroots: 8,
        ..Setup::default()
    };
    match render(&s) {
        Ok((scene, _)) => assert!(!matches(&scene, want(SCALE, BIAS))),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn a_uniform_slot_past_the_transfers_is_refused() {
    // The fragment launcher transfers 16 words (8 roots); the body reads word 16.
    let s = Setup {
        froots: 8,
        ..Setup::default()
    };
    match render_err(&s) {
        SimError::Unestablished { what, .. } => {
            assert!(what.contains("reads uniform word 16"), "{what}");
            assert!(what.contains("transferred 16 argument words"), "{what}");
        }
        other => panic!("{other:?}"),
    }
    // The vertex body's base slot 6 past a launcher that loads the six roots only.
    let s = Setup {
        vroots: 6,
        ..Setup::default()
    };
    match render_err(&s) {
        SimError::Unestablished { what, .. } => {
            assert!(what.contains("reads uniform word 13"), "{what}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unmapped_vertex_buffer_faults_at_its_address() {
    let s = Setup {
        vb_mapped: false,
        ..Setup::default()
    };
    match render_err(&s) {
        SimError::Fault(f) => {
            assert_eq!(f.addr, VBUF, "{f}");
            assert!(f.to_string().contains(&format!("{VBUF:#x}")), "{f}");
        }
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn instanced_attributes_follow_the_instance_id() {
    // Two instances; x += dx[instance id] with the offsets in a second binding. The
    // reference draws the two shifted triangles in instance order (the later one on top).
    let s = Setup {
        vbody: vertex_body_with(VB_SLOT, Some(INSTANCE_SLOT)),
        vroots: 9,
        instances: 2,
        ..Setup::default()
    };
    let (scene, stats) = render(&s).unwrap();
    let d: Vec<DrawSpec> = INSTANCE_DX
        .iter()
        .map(|&dx| want_shifted(SCALE, BIAS, dx))
        .collect();
    let r = reference(&d);
    compare(&image(&scene.pt), &r);
    assert_eq!(stats.vertices_shaded, 6);
    // Control: the same body drawn once matches only the first instance.
    let s = Setup { instances: 1, ..s };
    let (scene, _) = render(&s).unwrap();
    assert!(matches(&scene, want_shifted(SCALE, BIAS, INSTANCE_DX[0])));
    assert!(!matches(&scene, want_shifted(SCALE, BIAS, INSTANCE_DX[1])));
}

#[test]
fn exports_past_the_frames_publication_count_are_refused() {
    // The body exports publications 0..7; a frame for 6 reserves words 0..5.
    let s = Setup {
        vpublications: 6,
        ..Setup::default()
    };
    match render_err(&s) {
        SimError::Unestablished { form, what, .. } => {
            assert!(form.starts_with("fadd_export"), "{form}");
            assert!(what.contains("publication 6, past the 6"), "{what}");
        }
        other => panic!("{other:?}"),
    }
    // 7 rounds up to 4 pairs (8 words): accepted.
    let s = Setup {
        vpublications: 7,
        ..Setup::default()
    };
    let (scene, _) = render(&s).unwrap();
    assert!(matches(&scene, want(SCALE, BIAS)));
}

#[test]
fn an_unmapped_root_record_faults_in_the_launcher() {
    // The vertex launcher's pointer loads read the root record through the job's VM.
    let scene = {
        let (scene, _) = render(&Setup::default()).unwrap();
        scene
    };
    let e =
        launcher::run_stage_setup(&scene.pt, VERT_LAUNCHER, launcher::RenderStage::Vertex).unwrap();
    assert_eq!(e.arguments[12], VBUF as u32);
    // The same launcher pointed at a root record in an unmapped page.
    let far = DATA + 0x10_0000;
    let l = launcher_program(far, 7, StageAllocation::Empty, entry_offset(0), 8);
    scene.pt.host_write(VERT_LAUNCHER, &l).unwrap();
    match launcher::run_stage_setup(&scene.pt, VERT_LAUNCHER, launcher::RenderStage::Vertex) {
        Err(SimError::Fault(f)) => assert!((far..far + 56).contains(&f.addr), "{f}"),
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn a_fragment_tile_layout_for_another_sample_count_is_refused() {
    // The render is single-sampled; a 2x tile layout in the fragment launcher is refused.
    let s = Setup {
        fsamples: 2,
        ..Setup::default()
    };
    match render_err(&s) {
        SimError::Unestablished { form, what, .. } => {
            assert_eq!(form, "fragment launcher");
            assert!(what.contains("for a 1-sample render"), "{what}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_compiled_setup_body_fills_render_uniform_words() {
    // README.apple9-launchers.md "Compiler-generated uniform setup" (VS/FS use validated on
    // T8132): the fragment launcher (agx16-cmdstream's six-root builder) tail-jumps to a setup
    // body that writes argument word 12 = BIAS; the fragment body adds uniform word 12.
    use agx16_cmdstream::launch::{build_launcher_with_setup, LaunchCommon, LaunchStage};
    const SETUP_BODY: u64 = USC + 0x60000;
    let (scene, _) = render(&Setup::default()).unwrap();
    let fe = entry_offset(1);
    let l = build_launcher_with_setup(
        LaunchStage::Fragment {
            samples: 1,
            tile_bytes: 4,
        },
        &LaunchCommon {
            resource_table: FRAG_ROOTS,
            entry_offset: fe,
            publications: 0,
            extent_a: 0,
            extent_b: 0,
        },
        FRAG_LAUNCHER,
        SETUP_BODY,
    )
    .unwrap();
    let mut lit = b("mov_imm32", &[("imm", BIAS.to_bits() as u64)]);
    lit.set_gpr(Role::Dst, 30, Part::Full).unwrap();
    let setup = encode_program(&[lit, arg_store_instr(12, 30, false).unwrap(), b("stop", &[])]);
    let fbody = encode_program(&[
        iter(0, 1),
        b(
            "uniform_mov",
            &[("dst", 2), ("u_size", 1), ("u", 12), ("b3", 0x08)],
        ),
        falu("fadd", 0, 0, 2, 0),
        b("tile_setup", &[("b1", 2), ("access", 0x600)]),
        b("tile_setup", &[("b1", 2), ("access", 0x80c)]),
        b(
            "tile_store",
            &[("mode", 0x54), ("src", 0), ("mask", 1), ("fmt", 0x4e)],
        ),
        b("tile_fence", &[("access", 0x20c)]),
        b("stop", &[]),
    ]);
    scene.pt.host_write(SETUP_BODY, &setup).unwrap();
    install_stage(&scene, FRAG_LAUNCHER, &l.bytes, fe, FRAG_BODY, &fbody);
    let f = launcher::run_stage_setup(&scene.pt, FRAG_LAUNCHER, launcher::RenderStage::Fragment)
        .unwrap();
    assert_eq!(f.arguments.len(), 13);
    assert_eq!(f.arguments[12], BIAS.to_bits());
    assert_eq!(f.body, FRAG_BODY);
    // The vertex stage as before; the image is red + BIAS (the first render drew
    // red * SCALE + BIAS, which the second assertion also rules out).
    let mut st = HardwareBodyStages {
        isa: IsaStages::default(),
    };
    gfx::run_render_with(&scene.pt, &scene.command(), &mut st).unwrap();
    assert!(matches(&scene, want(1.0, BIAS)));
    assert!(!matches(&scene, want(1.0, 0.0)));
}

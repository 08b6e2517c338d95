//! The hardware stage path: launchers built with agx16-isa's launcher builders are followed
//! through the entry arena to the body; an Apple-compiled vertex body (EXP-0008, shared
//! oracles) then runs on the shader core until its first unestablished instruction.

#![allow(clippy::cloned_ref_to_slice_refs)] // `&[d.clone()]` reads better in scene lists

mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::launch::{entry_offset, jump_any};
use agx16_cmdstream::render::ZlsControl;
use agx16_isa::meaning::{
    launch_frame_instr, stage_allocation_instr, stage_target_instr, StageAllocation,
};
use agx16_isa::{encode_program, Instr};
use agx16_sim::gfx::{self, launcher};
use agx16_sim::oracle::{decode_hex, oracles_dir};
use agx16_sim::SimError;
use gfx_common::*;

const LAUNCHER: u64 = USC + 0x8000; // where the harness's VDM state points
const BODY: u64 = USC + 0x40000;

fn install_launcher(scene: &Scene, extra: Option<Instr>) {
    let entry = entry_offset(0);
    let mut prog = vec![stage_allocation_instr(StageAllocation::Empty).unwrap()];
    prog.extend(extra);
    prog.push(stage_target_instr(entry).unwrap());
    // every launcher that ran on T8132 carries the publication/scratch frame
    prog.push(launch_frame_instr(0, 0, 0).unwrap());
    prog.push(Instr::build("stop", &[]).unwrap());
    scene
        .pt
        .host_write(LAUNCHER, &encode_program(&prog))
        .unwrap();
    let jump = agx16_isa::decode(&jump_any((BODY - (USC + entry)) as i64).unwrap()).unwrap();
    let stop = Instr::build("stop", &[]).unwrap();
    scene
        .pt
        .host_write(USC + entry, &encode_program(&[jump, stop]))
        .unwrap();
}

fn tri() -> DrawSpec {
    DrawSpec::tris(
        vec![rgba([0.0, 0.0, 0.5, 1.0], [1.0; 4]); 3],
        ShadeModel::Linear,
    )
}

#[test]
fn launcher_is_followed_to_the_body() {
    let scene = build(&[tri()], ZlsControl::default());
    install_launcher(&scene, None);
    let l = launcher::follow(&scene.pt, LAUNCHER, "vertex launcher").unwrap();
    assert_eq!(l.entry, USC + entry_offset(0));
    assert_eq!(l.body, BODY);
    assert_eq!(l.allocation, Some(StageAllocation::Empty));
}

#[test]
fn an_apple_vertex_body_reads_its_vertex_id_then_stops_at_an_unmeasured_field() {
    let path =
        oracles_dir().join("isa/corpus/EXP-0008-fragment-extraction/render_interp.vertex.main.hex");
    let Ok(text) = std::fs::read_to_string(&path) else {
        panic!("shared oracle missing: {}", path.display());
    };
    let body = decode_hex(text.trim()).unwrap();
    let scene = build(&[tri()], ZlsControl::default());
    install_launcher(&scene, None);
    scene.pt.host_write(BODY, &body).unwrap();
    match gfx::run_render(&scene.pt, &scene.command()) {
        Err(SimError::Unestablished { pc, form, what, .. }) => {
            // `get_sr 0xdd` (the vertex id) at +0 runs; the `iadd` at +4 carries a byte-7
            // value no hardware-run compute program measured, so the core refuses it.
            assert_eq!((pc, form.as_str()), (4, "iadd"), "{what}");
            assert!(what.contains("b7_hi"), "{what}");
            assert!(what.contains(&format!("body at {BODY:#x}")), "{what}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_vertex_output_store_of_an_unwritten_publication_is_refused() {
    // r0 = vertex id; output 0 := publication 0, which no export wrote.
    let p = encode_program(&[
        Instr::build("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", 0xdd)]).unwrap(),
        agx16_isa::decode_at(&decode_hex("5706540000404900").unwrap(), 0).unwrap(),
        Instr::build("stop", &[]).unwrap(),
    ]);
    let scene = build(&[tri()], ZlsControl::default());
    install_launcher(&scene, None);
    scene.pt.host_write(BODY, &p).unwrap();
    let e = gfx::run_render(&scene.pt, &scene.command()).unwrap_err();
    match e {
        SimError::Unestablished { pc, form, what, .. } => {
            assert_eq!(pc, 4, "{what}");
            assert!(form.starts_with("vary_store"), "{form}");
            assert!(what.contains("which no export wrote"), "{what}");
        }
        other => panic!("{other:?}"),
    }
    // Without the store the body ends without outputs: refused, not zeros.
    let p = encode_program(&[
        Instr::build("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", 0xdd)]).unwrap(),
        Instr::build("stop", &[]).unwrap(),
    ]);
    scene.pt.host_write(BODY, &p).unwrap();
    let e = gfx::run_render(&scene.pt, &scene.command()).unwrap_err();
    assert!(
        e.to_string().contains("without storing its vertex outputs"),
        "{e}"
    );
}

#[test]
fn non_launcher_operations_in_a_launcher_are_refused() {
    let scene = build(&[tri()], ZlsControl::default());
    let fadd = Instr::build("fadd", &[]).unwrap();
    install_launcher(&scene, Some(fadd));
    let e = launcher::follow(&scene.pt, LAUNCHER, "vertex launcher").unwrap_err();
    assert!(
        e.to_string().contains("fadd is not a launcher operation"),
        "{e}"
    );
    // An entry that is not a jump.
    let scene = build(&[tri()], ZlsControl::default());
    install_launcher(&scene, None);
    scene
        .pt
        .host_write(
            USC + entry_offset(0),
            &encode_program(&[Instr::build("stop", &[]).unwrap()]),
        )
        .unwrap();
    let e = launcher::follow(&scene.pt, LAUNCHER, "vertex launcher").unwrap_err();
    assert!(e.to_string().contains("not a jump"), "{e}");
}

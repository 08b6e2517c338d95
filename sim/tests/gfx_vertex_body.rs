//! A triangle whose vertex AND fragment stages are real G16 bodies (agx16-isa builders, in
//! the T8132 compiler packers' shapes) on the model's shader core: the vertex body derives
//! position and colour from its vertex id with float ALU ops, writes them to publication
//! registers with the export forms (`fadd_export`, `fmul_export`, `logic_export`) and stores
//! them as vertex outputs with `vary_store`s that wait on each export's completion slot. The
//! image is compared with the CPU reference rasteriser in `gfx_common` fed with the same
//! vertices computed on the host. Controls: a store that does not wait on its export's slot
//! (or waits on the wrong one) is refused, as EXP-M4-61 lost outputs on T8132.
#![allow(clippy::cloned_ref_to_slice_refs)]

mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::launch::{entry_offset, jump_any};
use agx16_cmdstream::render::ZlsControl;
use agx16_isa::meaning::{
    launch_frame_instr, stage_allocation_instr, stage_target_instr, StageAllocation,
};
use agx16_isa::{decode_at, encode_program, Instr, Part, Role};
use agx16_sim::gfx::{self, IsaStages};
use agx16_sim::oracle::{decode_hex, oracles_dir};
use agx16_sim::SimError;
use gfx_common::*;

const VERT_LAUNCHER: u64 = USC + 0x8000; // where the harness's VDM state points
const VERT_BODY: u64 = USC + 0x40000;
const FRAG_LAUNCHER: u64 = USC + 0x9000; // the harness's PPP fragment launch
const FRAG_BODY: u64 = USC + 0x50000;

fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn hex(i: &Instr) -> String {
    i.encode().iter().map(|x| format!("{x:02x}")).collect()
}

// ---- vertex body building blocks ----

/// r`dst` = the f32 bit pattern `v` (mov_imm32, hardware form).
fn movf(dst: u32, v: f32) -> Instr {
    let mut i = b("mov_imm32", &[("imm", v.to_bits() as u64), ("b2_5", 1)]);
    i.set_gpr(Role::Dst, dst, Part::Full).unwrap();
    i
}

/// r`dst` = f32(r`src`) (i2f in the measured shape the compiler emits, source released).
fn i2f(dst: u32, src: u32) -> Instr {
    let mut i = decode_at(&decode_hex("a70754220324ac20").unwrap(), 0).unwrap();
    i.set_gpr(Role::Dst, dst, Part::Full).unwrap();
    i.set_gpr(Role::SrcA, src, Part::Full).unwrap();
    i
}

/// GPR float op, both sources kept.
fn falu(name: &str, dst: u64, a: u64, bb: u64) -> Instr {
    b(
        name,
        &[
            ("dst", dst),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("b_size", 1),
            ("b", bb),
            ("b_keep", 1),
        ],
    )
}

/// Float export (packer FLOAT2_EXPORT): publication `p` := r`a` op r`b`, complete on `slot`.
fn fexport(name: &str, p: u64, a: u64, bb: u64, slot: u64) -> Instr {
    b(
        name,
        &[
            ("dst", p),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("b_size", 1),
            ("b", bb),
            ("b_keep", 1),
            ("publish", 1),
            ("slot", slot - 1),
        ],
    )
}

/// Logic export (packer LOGIC_EXPORT): `or` (op_base 1, lut_a 2, lut_b 8) or `and` (1, 0, 0).
fn lexport(or: bool, p: u64, a: u64, bb: u64, slot: u64) -> Instr {
    b(
        "logic_export",
        &[
            ("dst", p),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("op_base", 1),
            ("b_size", 1),
            ("b", bb),
            ("b_keep", 1),
            ("lut_a_sel", if or { 2 } else { 0 }),
            ("lut_b3", or as u64),
            ("slot", slot - 1),
        ],
    )
}

/// VARY_STORE `57 06 54 <p<<1> <k&7<<5> (40 | k>>3) 00 00` waiting on slot `wait` (0: none).
fn vary_store(k: u64, p: u64, wait: u64) -> Instr {
    b(
        "vary_store",
        &[
            ("b1_hi", 1),
            ("wait", if wait == 0 { 0 } else { 1 << (wait - 1) }),
            ("mode", 0x15),
            ("src", p),
            ("slot", k),
            ("b5_tag", 4),
        ],
    )
}

/// Constants of the vertex program.
const X0: f32 = -0.9;
const DX: f32 = 0.9;
const Y0: f32 = -0.9;
const DY: f32 = 0.45;
const Z: f32 = 0.5;
const DR: f32 = 0.45;
const B0: f32 = 0.8;
const DB: f32 = -0.3;

/// The vertex program on the host (the reference): vertex id k ->
/// position (k*DX + X0, k*k*DY + Y0, Z, 1), colour (k*DR, 0, k*DB + B0, 1).
fn host_vertex(k: u32) -> Vtx {
    let f = k as f32;
    rgba(
        [f * DX + X0, f * f * DY + Y0, Z, 1.0],
        [f * DR, 0.0, f * DB + B0, 1.0],
    )
}

/// The vertex body; `store_wait(k, slot)` gives the wait each output store names.
fn vertex_body(store_wait: impl Fn(u64, u64) -> u64) -> Vec<u8> {
    // (output k, publication, completion slot)
    let outs: [(u64, u64, u64); 8] = [
        (0, 0, 1),
        (1, 1, 2),
        (2, 2, 3),
        (3, 3, 4),
        (4, 4, 5),
        (5, 5, 6),
        (6, 6, 1),
        (7, 7, 2),
    ];
    let mut p = vec![
        b("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", 0xdd)]),
        i2f(1, 0),
        movf(2, DX),
        movf(3, X0),
        movf(4, Z),
        movf(5, 1.0),
        movf(6, DY),
        movf(11, Y0),
        movf(12, 0.0),
        movf(13, DR),
        movf(16, DB),
        movf(17, B0),
        falu("fmul", 7, 1, 2),   // k*DX
        falu("fmul", 8, 1, 1),   // k*k
        falu("fmul", 10, 8, 6),  // k*k*DY
        falu("fmul", 15, 1, 16), // k*DB
    ];
    p.extend([
        fexport("fadd_export", 0, 7, 3, 1),   // x
        fexport("fadd_export", 1, 10, 11, 2), // y
        lexport(true, 2, 4, 12, 3),           // z = Z | 0
        fexport("fmul_export", 3, 5, 5, 4),   // w = 1 * 1
        fexport("fmul_export", 4, 1, 13, 5),  // red = k*DR
        lexport(false, 5, 1, 12, 6),          // green = k & 0 = 0
        fexport("fadd_export", 6, 15, 17, 1), // blue = k*DB + B0
        lexport(true, 7, 5, 12, 2),           // alpha = 1 | 0
    ]);
    for (k, pb, slot) in outs {
        p.push(vary_store(k, pb, store_wait(k, slot)));
    }
    p.push(b("stop", &[]));
    encode_program(&p)
}

// ---- fragment body (the real body of gfx_bodies: red = iter(cf 1) + iter(cf 3)) ----

fn iter(dst: u64, cf: u64) -> Instr {
    b(
        "iter",
        &[
            ("b1_01", 1),
            ("b2_hi", 0x15),
            ("dst", dst),
            ("coeff_sel", 3),
            ("slot", cf),
            ("b7", 2),
            ("loc", 0x10),
        ],
    )
}

fn red_plus_blue() -> Vec<u8> {
    let p = vec![
        iter(0, 1),
        iter(1, 3),
        falu("fadd", 0, 0, 1),
        b("tile_setup", &[("b1", 2), ("access", 0x600)]),
        b("tile_setup", &[("b1", 2), ("access", 0x80c)]),
        b(
            "tile_store",
            &[("mode", 0x54), ("src", 0), ("mask", 1), ("fmt", 0x4e)],
        ),
        b("tile_fence", &[("access", 0x20c)]),
        b("stop", &[]),
    ];
    encode_program(&p)
}

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
        // every launcher that ran on T8132 carries the publication/scratch frame
        launch_frame_instr(8, 0, 0).unwrap(),
        b("stop", &[]),
    ];
    scene.pt.host_write(launcher, &encode_program(&l)).unwrap();
    let jump = agx16_isa::decode(&jump_any((body_va - (USC + entry)) as i64).unwrap()).unwrap();
    scene
        .pt
        .host_write(USC + entry, &encode_program(&[jump, b("stop", &[])]))
        .unwrap();
    scene.pt.host_write(body_va, body).unwrap();
}

fn render(vbody: &[u8]) -> Result<(Scene, gfx::RenderStats), SimError> {
    // The host vertices only size the draw (3 vertices, 8 outputs); the body computes them.
    let draw = DrawSpec::tris(vec![rgba([0.0; 4], [0.0; 4]); 3], ShadeModel::Linear);
    let scene = build(&[draw], ZlsControl::default());
    install(
        &scene,
        VERT_LAUNCHER,
        entry_offset(0),
        StageAllocation::Empty,
        VERT_BODY,
        vbody,
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
        &red_plus_blue(),
    );
    let mut st = HardwareBodyStages {
        isa: IsaStages::default(),
    };
    let stats = gfx::run_render_with(&scene.pt, &scene.command(), &mut st)?;
    Ok((scene, stats))
}

/// The reference: the host vertices with red := red + blue (what the fragment body sums).
fn want() -> DrawSpec {
    let v = |k: u32| {
        let mut v = host_vertex(k);
        v[4] += v[6];
        v[6] = 0.0;
        v
    };
    DrawSpec::tris(vec![v(0), v(1), v(2)], ShadeModel::Linear)
}

#[test]
fn export_encodings_are_the_packer_shapes() {
    // FLOAT2_EXPORT: `09 (a<<1|1) 1c|op (b<<1|1) 41 00 00 (slot-1)<<2`, publication in the
    // compact destination map; keeping a source sets its byte's bit 7 and clears its release
    // bit (19 / 20); bit 21 set. LOGIC_EXPORT or: `0b .. 1f .. 42 08 00 (slot-1)<<2 00 00`.
    assert_eq!(hex(&fexport("fadd_export", 0, 7, 3, 1)), "098f248741000000");
    assert_eq!(
        hex(&fexport("fmul_export", 0x13, 1, 13, 5)),
        "3983659b41000010"
    );
    assert_eq!(hex(&lexport(true, 2, 4, 12, 3)), "2b892799420800080000");
    assert_eq!(hex(&vary_store(4, 4, 5)), "5706550880400000");
}

#[test]
fn a_vertex_body_feeds_a_fragment_body() {
    let (scene, stats) = render(&vertex_body(|_, slot| slot)).unwrap();
    let r = reference(&[want()]);
    compare(&image(&scene.pt), &r);
    assert!(r.passed[0] > 300, "the triangle covers a real area");
    assert_eq!(stats.fragments_shaded, r.passed[0]);
    assert_eq!(stats.vertices_shaded, 3);
}

#[test]
fn a_store_that_does_not_wait_on_its_export_is_refused() {
    // Output 4 (red) without the wait on slot 5, then with the wrong slot (4 retires w's
    // export, not red's): EXP-M4-61 lost outputs both ways on T8132.
    for wrong in [0, 4] {
        let e = match render(&vertex_body(|k, slot| if k == 4 { wrong } else { slot })) {
            Ok(_) => panic!("a store without the export's wait rendered"),
            Err(e) => e,
        };
        match e {
            SimError::Unestablished { form, what, .. } => {
                assert!(form.starts_with("vary_store"), "{form}");
                assert!(what.contains("does not wait on slot 5"), "{what}");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn apple_vertex_bodies_wait_on_the_slot_their_exports_name() {
    // Corpus check of the completion-slot field (bits 58..60 + 1): in the Apple-compiled
    // vertex bodies, every waited vary_store of a publication written by an export names
    // that export's slot.
    let dir = oracles_dir().join("isa/corpus");
    let mut checked = 0;
    for rel in [
        "EXP-0008-fragment-extraction/render_interp.vertex.main.hex",
        "EXP-M4-01-isa-census/r_cent_v.hex",
    ] {
        let text = std::fs::read_to_string(dir.join(rel))
            .unwrap_or_else(|_| panic!("shared oracle missing: {rel}"));
        let code = decode_hex(text.trim()).unwrap();
        let mut slot_of = std::collections::HashMap::new();
        for (_, i) in agx16_isa::split(&code).map(|r| r.unwrap()) {
            if i.form.name.ends_with("_export") {
                let Some(agx16_isa::Operand::ImmInt(p)) = i.operand(Role::Dst).map(|o| o.value)
                else {
                    panic!("{i}")
                };
                slot_of.insert(p as u64, i.produce().unwrap().0);
            }
            if i.form.name == "vary_store" {
                let w = i.wait().map(|w| w.slots.0).unwrap_or(0);
                let src = i.field("src").unwrap();
                if let (Some(&s), true) = (slot_of.get(&src), w != 0) {
                    assert_eq!(w, 1 << (s - 1), "{rel}: {i}");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 8, "waited stores of exported publications");
}

#[test]
fn unmodelled_export_uses_are_refused_by_name() {
    let refusal = |p: Vec<Instr>| match render(&encode_program(&p)) {
        Ok(_) => panic!("rendered"),
        Err(SimError::Unestablished { pc, form, what, .. }) => (pc, form, what),
        Err(e) => panic!("{e:?}"),
    };
    // Apple's render_interp export `4b 03 2f 00 42 ..`: logic selector (1, 2, 0) with a
    // 16-bit second source, which no packer emits and no run measured.
    let apple = decode_at(&decode_hex("4b032f00420000100000").unwrap(), 0).unwrap();
    let (pc, form, what) = refusal(vec![movf(1, 1.0), apple, b("stop", &[])]);
    assert_eq!(
        (pc, form.split(' ').next()),
        (8, Some("logic_export")),
        "{what}"
    );
    assert!(what.contains("b_size"), "{what}");
    // Rewriting a publication after a store read it: consumption is asynchronous and no
    // reuse rule is established (GravityLinux/mesa export lifetime notes, T8132).
    let p = vec![
        movf(5, 1.0),
        fexport("fmul_export", 0, 5, 5, 1),
        vary_store(0, 0, 1),
        fexport("fmul_export", 0, 5, 5, 2),
        b("stop", &[]),
    ];
    let (pc, form, what) = refusal(p);
    assert_eq!(
        (pc, form.split(' ').next()),
        (24, Some("fmul_export")),
        "{what}"
    );
    assert!(what.contains("rewritten after a store read it"), "{what}");
}

//! Render throughput of the model on the hardware path: a few hundred triangles whose
//! vertex stage is a real G16 body (vertex id, eight device loads, exports, varying stores)
//! and whose fragment stage is a real G16 body (coefficient iteration, a uniform-buffer load,
//! ALU, the tile epilogue), both entered through launchers (setup invocations), on a 64x64
//! frame of four 32x32 utiles. The stream, launchers and bodies are the `gfx_uniforms` test's
//! (its builder helpers are repeated below); only the triangle count differs.
//!
//! Time is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so the figure is per core even
//! when the machine is shared. Throughput is in shaded fragments.
#![allow(dead_code)]

#[path = "../tests/gfx_common/mod.rs"]
mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::launch::{entry_offset, jump_any};
use agx16_cmdstream::render::ZlsControl;
use agx16_isa::meaning::{
    arg_store_instr, launch_frame_instr, pointer_load_instr, stage_allocation_instr,
    stage_target_instr, StageAllocation,
};
use agx16_isa::{encode_program, Instr, Part, Role};
use agx16_sim::gfx::{self, IsaStages};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
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

fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

// ---- launchers ----

/// A stage launcher in the generated sequence (GravityLinux/mesa README.apple9-launchers.md
/// "Generated launch control"): root literals into r2:r3, pointer loads of `roots` qwords
/// (highest pair first) into pending r18.., allocation, target, frame, one transfer per word
/// (the first waits for the loads), STOP.
fn launcher_program(
    roots_va: u64,
    roots: u32,
    alloc: StageAllocation,
    entry: u64,
    publications: u32,
) -> Vec<u8> {
    let lit = |dst: u32, v: u32| {
        let mut i = b("mov_imm32", &[("imm", v as u64)]);
        i.set_gpr(Role::Dst, dst, Part::Full).unwrap();
        i
    };
    let mut p = vec![lit(2, roots_va as u32), lit(3, (roots_va >> 32) as u32)];
    for q in (0..roots).step_by(2).rev() {
        let count = if q + 2 <= roots { 2 } else { 1 };
        p.push(pointer_load_instr(18 + 2 * q, 2, q as u8, count).unwrap());
    }
    p.push(stage_allocation_instr(alloc).unwrap());
    p.push(stage_target_instr(entry).unwrap());
    p.push(launch_frame_instr(publications, 0, 0).unwrap());
    for w in 0..2 * roots {
        p.push(arg_store_instr(w, 18 + w, w == 0).unwrap());
    }
    p.push(b("stop", &[]));
    encode_program(&p)
}

fn install_stage(scene: &Scene, launcher: u64, prog: &[u8], entry: u64, body_va: u64, body: &[u8]) {
    scene.pt.host_write(launcher, prog).unwrap();
    let jump = agx16_isa::decode(&jump_any((body_va - (USC + entry)) as i64).unwrap()).unwrap();
    scene
        .pt
        .host_write(USC + entry, &encode_program(&[jump, b("stop", &[])]))
        .unwrap();
    scene.pt.host_write(body_va, body).unwrap();
}

fn root_record(qwords: &[u64]) -> Vec<u8> {
    qwords.iter().flat_map(|q| q.to_le_bytes()).collect()
}

// ---- body building blocks ----

/// `r[dst] = buffer(slot)[r[index]]`, 32-bit, published on `token` (the EXP-M4-35/54 form).
fn load(dst: u64, slot: u64, index: u64, token: u8) -> Instr {
    let mut i = b(
        "device_load",
        &[
            ("addr_mode", 0x54),
            ("dst", dst),
            ("base_slot", slot),
            ("index", index),
            ("access_desc", 0x20),
            ("ld_format", 0x11),
            ("ldform_hi11", 0x10),
            ("elem_size", 0x46),
        ],
    );
    i.set_produce(token).unwrap();
    i
}

/// `r[dst] = r[a] + imm` (the EXP-M4-35 immediate add).
fn add_imm(dst: u64, a: u64, k: u64) -> Instr {
    b(
        "iadd",
        &[
            ("b2_fmt", 0x15),
            ("dst", dst),
            ("opmode", 3),
            ("b_imm", k),
            ("a", a),
            ("b8_0", 1),
            ("b8_hi", 2),
            ("b9_hi", 2),
        ],
    )
}

/// `r[dst] = r[a] + r[b]` (GravityLinux pack_iadd register form).
fn add_reg(dst: u64, a: u64, bb: u64) -> Instr {
    b(
        "iadd_reg",
        &[
            ("b2_fmt", 0x15),
            ("dst", dst),
            ("opmode", 2),
            ("a", a),
            ("b", bb),
            ("b7_hi", 0x15),
            ("b8_0", 1),
            ("b8_hi", 2),
            ("b9_hi", 2),
        ],
    )
}

/// Float op on GPRs, both kept, waiting on scoreboard slot `wait` (0: none).
fn falu(name: &str, dst: u64, a: u64, bb: u64, wait: u64) -> Instr {
    b(
        name,
        &[
            ("wait", wait),
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

/// Publication `p` := r`a` + r`b`, complete on `slot` (packer FLOAT2_EXPORT).
fn export_add(p: u64, a: u64, bb: u64, slot: u64) -> Instr {
    b(
        "fadd_export",
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

/// Vertex output `k` := publication `p`, waiting on slot `wait`.
fn vary_store(k: u64, p: u64, wait: u64) -> Instr {
    b(
        "vary_store",
        &[
            ("b1_hi", 1),
            ("wait", 1 << (wait - 1)),
            ("mode", 0x15),
            ("src", p),
            ("slot", k),
            ("b5_tag", 4),
        ],
    )
}

/// The vertex body: vertex v's eight floats (x y z w r g b a) are words 8v..8v+7 of the
/// buffer in argument qword `vb_slot`; they become vertex outputs 0..7.
fn vertex_body(vb_slot: u64) -> Vec<u8> {
    vertex_body_with(vb_slot, None)
}

/// `vertex_body`, plus with `Some(slot)`: x += buffer(slot)[instance id] (`get_sr` 0xd8), a
/// per-instance attribute (GL divisor 1).
fn vertex_body_with(vb_slot: u64, instance_slot: Option<u64>) -> Vec<u8> {
    let mut p = vec![
        b("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", 0xdd)]),
        add_reg(1, 0, 0), // 2v
        add_reg(1, 1, 1), // 4v
        add_reg(1, 1, 1), // 8v
        b("mov_imm32", &[("dst", 30), ("imm", 0)]),
    ];
    for k in 0..8 {
        p.push(add_imm(2 + k, 1, k)); // index of float k
    }
    // Two rounds of four loads, each on its own slot, taken by an fadd (+0.0) naming it.
    for round in 0..2 {
        for j in 0..4 {
            let k = 4 * round + j;
            p.push(load(10 + k, vb_slot, 2 + k, j as u8 + 1));
        }
        for j in 0..4 {
            let k = 4 * round + j;
            p.push(falu("fadd", 20 + k, 10 + k, 30, j + 1));
        }
    }
    if let Some(slot) = instance_slot {
        p.push(b("get_sr", &[("form", 1), ("dst", 9), ("sr_sel", 0xd8)]));
        p.push(load(41, slot, 9, 1));
        p.push(falu("fadd", 20, 20, 41, 1));
    }
    for k in 0..8 {
        let slot = k % 6 + 1;
        p.push(export_add(k, 20 + k, 30, slot));
    }
    for k in 0..8 {
        p.push(vary_store(k, k, k % 6 + 1));
    }
    p.push(b("stop", &[]));
    encode_program(&p)
}

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

/// The fragment body: word 0 := iter(red) * ubo[1] + uniform word `inline`.
fn fragment_body(ubo_slot: u64, inline: u64) -> Vec<u8> {
    encode_program(&[
        iter(0, 1),
        b("mov_imm32", &[("dst", 4), ("imm", 1)]),
        load(1, ubo_slot, 4, 1),
        b(
            "uniform_mov",
            &[("dst", 2), ("u_size", 1), ("u", inline), ("b3", 0x08)],
        ),
        falu("fmul", 3, 0, 1, 1),
        falu("fadd", 0, 3, 2, 0),
        b("tile_setup", &[("b1", 2), ("access", 0x600)]),
        b("tile_setup", &[("b1", 2), ("access", 0x80c)]),
        b(
            "tile_store",
            &[("mode", 0x54), ("src", 0), ("mask", 1), ("fmt", 0x4e)],
        ),
        b("tile_fence", &[("access", 0x20c)]),
        b("stop", &[]),
    ])
}

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

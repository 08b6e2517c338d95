//! Hardware-path stage programs of the render-stage uniform scene (sim/GFX.md "Render-stage
//! uniform ABI"): launchers in the generated sequence, a vertex body that fetches positions
//! and colours through a vertex-buffer root, and a fragment body that scales the interpolated
//! red by a uniform-buffer word and adds an inline uniform word. Used by the `gfx_uniforms`
//! tests and by the render benchmark (sim/benches/render.rs), which draw the same stages.

use super::*;
use agx16_cmdstream::launch::jump_any;
use agx16_isa::meaning::{
    arg_store_instr, launch_frame_instr, pointer_load_instr, stage_allocation_instr,
    stage_target_instr, StageAllocation,
};
use agx16_isa::{encode_program, Instr, Part, Role};

pub fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

// ---- launchers ----

/// A stage launcher in the generated sequence (GravityLinux/mesa README.apple9-launchers.md
/// "Generated launch control"): root literals into r2:r3, pointer loads of `roots` qwords
/// (highest pair first) into pending r18.., allocation, target, frame, one transfer per word
/// (the first waits for the loads), STOP.
pub fn launcher_program(
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

pub fn install_stage(
    scene: &Scene,
    launcher: u64,
    prog: &[u8],
    entry: u64,
    body_va: u64,
    body: &[u8],
) {
    scene.pt.host_write(launcher, prog).unwrap();
    let jump = agx16_isa::decode(&jump_any((body_va - (USC + entry)) as i64).unwrap()).unwrap();
    scene
        .pt
        .host_write(USC + entry, &encode_program(&[jump, b("stop", &[])]))
        .unwrap();
    scene.pt.host_write(body_va, body).unwrap();
}

pub fn root_record(qwords: &[u64]) -> Vec<u8> {
    qwords.iter().flat_map(|q| q.to_le_bytes()).collect()
}

// ---- body building blocks ----

/// `r[dst] = buffer(slot)[r[index]]`, 32-bit, published on `token` (the EXP-M4-35/54 form).
pub fn load(dst: u64, slot: u64, index: u64, token: u8) -> Instr {
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

/// `r[dst] = r[a] + imm` (the 32-bit immediate add of EXP-M4-35 load_xor_load_retain).
pub fn add_imm(dst: u64, a: u64, k: u64) -> Instr {
    b(
        "iadd",
        &[
            ("b2_fmt", 0x15),
            ("dst", dst),
            ("opmode", 2),
            ("dst_size", 1),
            ("b7_hi", 8),
            ("b_imm", k),
            ("a", a),
            ("b8_0", 1),
            ("b8_hi", 2),
            ("b9_hi", 2),
        ],
    )
}

/// `r[dst] = r[a] + r[b]` (GravityLinux pack_iadd register form).
pub fn add_reg(dst: u64, a: u64, bb: u64) -> Instr {
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
        ],
    )
}

/// Float op on GPRs, both kept, waiting on scoreboard slot `wait` (0: none).
pub fn falu(name: &str, dst: u64, a: u64, bb: u64, wait: u64) -> Instr {
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
pub fn export_add(p: u64, a: u64, bb: u64, slot: u64) -> Instr {
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
pub fn vary_store(k: u64, p: u64, wait: u64) -> Instr {
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
pub fn vertex_body(vb_slot: u64) -> Vec<u8> {
    vertex_body_with(vb_slot, None)
}

/// `vertex_body`, plus with `Some(slot)`: x += buffer(slot)[instance id] (`get_sr` 0xd8), a
/// per-instance attribute (GL divisor 1).
pub fn vertex_body_with(vb_slot: u64, instance_slot: Option<u64>) -> Vec<u8> {
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

pub fn iter(dst: u64, cf: u64) -> Instr {
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
pub fn fragment_body(ubo_slot: u64, inline: u64) -> Vec<u8> {
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

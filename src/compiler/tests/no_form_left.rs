//! Programs that once reached the encoder with no G16 form: register reach at any pressure
//! (values in r64 and above, where SFU sources and `mov_imm32` destinations cannot go), collects
//! of uniform registers read by phis, vector undefs. Each is compiled to G16, run on agx16-sim
//! and compared bit for bit with the CPU reference interpreter.

use agx16_compiler::interp::{self, Env};
use agx16_compiler::ir::*;
use agx16_compiler::mir::{MItem, MOperand};
use agx16_compiler::pipeline::{compile_g16, Compiled, Options};
use agx16_compiler::testgen::{edge_word, Rng};

const THREADS: u32 = 64;

/// Without the list scheduler the allocation follows program order, so the tests decide which
/// values are live at once.
const IN_ORDER: Options = Options {
    gprs: 96,
    schedule: false,
};

/// Compile `f`, run it on the model with `bufs` (buffer k at base slot k, the last one the
/// output) and uniform words `extra` after the buffer table, and on the reference; the output
/// buffers must be equal. Returns the compile for further checks.
fn check(f: &Function, bufs: &[Vec<u32>], extra: &[u32]) -> Compiled {
    let c = compile_g16(f, IN_ORDER).unwrap_or_else(|e| panic!("compile: {e}\n{f}"));
    let got = agx16_sim::harness::run_with_buffers(&c.code, bufs, extra, THREADS, 0)
        .unwrap_or_else(|e| panic!("model: {e}\n{}", c.mir));
    let mut uniforms = Vec::new();
    for slot in 0..bufs.len() {
        let va = agx16_sim::harness::buffer_va(slot as u64);
        uniforms.extend([va as u32, (va >> 32) as u32]);
    }
    uniforms.extend_from_slice(extra);
    let mut env = Env {
        uniforms,
        ..Env::default()
    };
    for (k, b) in bufs.iter().enumerate() {
        env.buffers.insert(k as u8, b.clone());
    }
    for t in 0..THREADS {
        env.global_id = [t, 0, 0];
        interp::run(f, &mut env).unwrap();
    }
    let out = bufs.len() - 1;
    assert_eq!(got[out], env.buffers[&(out as u8)], "{}", c.mir);
    c
}

fn inputs(seed: u64, words: usize) -> Vec<u32> {
    let mut r = Rng::new(seed);
    (0..words).map(|_| edge_word(&mut r)).collect()
}

/// Highest GPR + 1 any instruction of `c` names.
fn top_gpr(c: &Compiled) -> u16 {
    let mut top = 0;
    for it in &c.mir.items {
        if let MItem::Instr(i) = it {
            for r in i
                .dst
                .iter()
                .chain(i.srcs.iter().filter_map(|s| match &s.op {
                    MOperand::Reg(r) => Some(r),
                    _ => None,
                }))
            {
                top = top.max(r.end().div_ceil(2));
            }
        }
    }
    top
}

/// The thread's global id and eight loads of `ty` from buffer 0 at it, THREADS apart.
fn eight_loads(b: &mut Builder, ty: Type) -> (Value, Vec<Value>) {
    let x = b.sysval(SysVal::GlobalId(0));
    let loads = (0..8)
        .map(|k| {
            let i = b.iadd(x, Src::imm(THREADS * k));
            b.load_global(0, i, ty, 1)
        })
        .collect();
    (x, loads)
}

/// 24 live vec4s (96 scalars less the few the kernel needs) and `floor` of each:
/// most sources are in r64 and above, where the SFU cannot read them (agx16-isa `sfu` SrcA
/// reach r0–r63); the allocator moves each into a low temporary.
#[test]
fn special_function_sources_beyond_r63() {
    let live = 88u32;
    let mut b = Builder::new(Stage::Compute);
    let (x, loads) = eight_loads(&mut b, Type::F32);
    let vals: Vec<Value> = (0..live)
        .map(|k| {
            let step = f32::from(k as u8) * 0.25 + 0.5;
            b.fmul(loads[k as usize % 8], Src::imm_f32(step))
        })
        .collect();
    let mut acc = b.sfu(Sfu::Floor, vals[0]);
    for v in &vals[1..] {
        let y = b.sfu(Sfu::Floor, *v);
        acc = b.fadd(acc, y);
    }
    b.store_global(1, x, acc);
    let f = b.finish();
    // floor is exact, so model and reference agree bit for bit on every input.
    let c = check(
        &f,
        &[inputs(5, 8 * THREADS as usize), vec![0; THREADS as usize]],
        &[],
    );
    assert!(
        top_gpr(&c) > 64,
        "the kernel no longer reaches r64: {}",
        c.mir
    );
}

/// 88 live integers and `float()` of each (then `int()` of a product): most sources are in r64
/// and above, where `i2f` and `f2i` cannot read them (agx16-isa reach r0-r63). The allocator
/// looks the reach up by the instruction's type; by the source's type a conversion named no
/// form, so those sources reached the encoder unsplit ("r72 is outside the reach r0..r63 of
/// i2f operand SrcA", a 100-element local array).
#[test]
fn conversion_sources_beyond_r63() {
    let live = 88u32;
    let mut b = Builder::new(Stage::Compute);
    let (x, loads) = eight_loads(&mut b, Type::I32);
    let vals: Vec<Value> = (0..live)
        .map(|k| b.iadd(loads[k as usize % 8], Src::imm(k * 3)))
        .collect();
    let mut acc = b.alu(Op::I2F { signed: true }, Type::F32, [Src::val(vals[0])]);
    let mut iacc = b.iadd(vals[0], Src::imm(0));
    for v in &vals[1..] {
        let y = b.alu(Op::I2F { signed: true }, Type::F32, [Src::val(*v)]);
        acc = b.fadd(acc, y);
        let h = b.fmul(y, Src::imm_f32(0.5));
        let z = b.alu(Op::F2I { signed: true }, Type::I32, [Src::val(h)]);
        iacc = b.iadd(iacc, z);
    }
    b.store_global(1, x, acc);
    let x2 = b.iadd(x, Src::imm(THREADS));
    b.store_global(1, x2, iacc);
    let f = b.finish();
    // Small integers: every conversion and sum exact, no float->int out of range.
    let small: Vec<u32> = inputs(6, 8 * THREADS as usize)
        .iter()
        .map(|w| w & 0xffff)
        .collect();
    let c = check(&f, &[small, vec![0; 2 * THREADS as usize]], &[]);
    assert!(
        top_gpr(&c) > 64,
        "the kernel no longer reaches r64: {}",
        c.mir
    );
}

/// A loop carrying 80 values that start as distinct wide immediates, four of them as components
/// of a uniform vec4: the phis above r63 cannot take a `mov_imm32` (reach r0–r63), those above
/// r15 no `uniform_mov` (reach r0–r15); each gets its value through a low register.
#[test]
fn loop_phis_beyond_r63_with_immediate_sources() {
    let carried = 80u32;
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let n = b.load_global(0, x, Type::I32, 1);
    let v = b.load_global(1, x, Type::I32, 1);
    let u = b.collect(
        Type::I32,
        &[
            Src::uniform(6),
            Src::uniform(7),
            Src::uniform(8),
            Src::uniform(9),
        ],
    );
    let pre = b.current_block();
    b.loop_();
    let i = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
    let accs: Vec<Value> = (0..carried)
        .map(|k| {
            let init = if k % 20 == 19 {
                Src::comp(u, (k / 20) as u8)
            } else {
                Src::imm(0x1234_5600 + k * 0x0101_0101)
            };
            b.phi(Shape::scalar(Type::I32), &[(pre, init)])
        })
        .collect();
    let c = b.icmp(Cmp::Ge, false, i, n);
    b.if_(c);
    b.break_();
    b.end_if();
    let next: Vec<Value> = accs
        .iter()
        .enumerate()
        .map(|(k, a)| {
            if k % 2 == 0 {
                b.iadd(*a, v)
            } else {
                b.alu(Op::Xor, Type::I32, [Src::val(*a), Src::val(v)])
            }
        })
        .collect();
    let i2 = b.iadd(i, Src::imm(1));
    let latch = b.current_block();
    b.add_phi_src(i, latch, Src::val(i2));
    for (a, nx) in accs.iter().zip(&next) {
        b.add_phi_src(*a, latch, Src::val(*nx));
    }
    b.end_loop();
    let mut sum = accs[0];
    for a in &accs[1..] {
        sum = b.alu(Op::Xor, Type::I32, [Src::val(sum), Src::val(*a)]);
        sum = b.iadd(sum, Src::imm(3));
    }
    b.store_global(2, x, sum);
    let f = b.finish();
    let counts: Vec<u32> = (0..THREADS).map(|t| t % 4).collect();
    let c = check(
        &f,
        &[
            counts,
            inputs(3, THREADS as usize),
            vec![0; THREADS as usize],
        ],
        &[0x7fc0_0000, 0x8000_0001, 17, 0xffff_ffff],
    );
    assert!(
        top_gpr(&c) > 64,
        "the loop no longer reaches r64: {}",
        c.mir
    );
}

/// A vec4 uniform read by loop phis (`vec4 c = u; for (..) c = c * k;`, scalarised): the phis
/// read the components of a `collect` of uniform registers, which has no form of its own; they
/// read the uniform registers themselves (a `uniform_mov` in the phi copy).
#[test]
fn loop_phis_of_a_uniform_vector() {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let n = b.load_global(0, x, Type::I32, 1);
    let u = b.collect(
        Type::I32,
        &[
            Src::uniform(4),
            Src::uniform(5),
            Src::uniform(6),
            Src::uniform(7),
        ],
    );
    let pre = b.current_block();
    b.loop_();
    let i = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
    let cs: Vec<Value> = (0..4)
        .map(|k| b.phi(Shape::scalar(Type::I32), &[(pre, Src::comp(u, k))]))
        .collect();
    let c = b.icmp(Cmp::Ge, false, i, n);
    b.if_(c);
    b.break_();
    b.end_if();
    let next: Vec<Value> = cs
        .iter()
        .map(|a| {
            b.alu(
                Op::IMad,
                Type::I32,
                [Src::val(*a), Src::imm(3), Src::imm(1)],
            )
        })
        .collect();
    let i2 = b.iadd(i, Src::imm(1));
    let latch = b.current_block();
    b.add_phi_src(i, latch, Src::val(i2));
    for (a, nx) in cs.iter().zip(&next) {
        b.add_phi_src(*a, latch, Src::val(*nx));
    }
    b.end_loop();
    for (k, a) in cs.iter().enumerate() {
        let idx = b.iadd(x, Src::imm(THREADS * k as u32));
        b.store_global(1, idx, *a);
    }
    let f = b.finish();
    let counts: Vec<u32> = (0..THREADS).map(|t| t % 5).collect();
    check(
        &f,
        &[counts, vec![0; 4 * THREADS as usize]],
        &[0x7fc0_0000, 0x8000_0001, 17, 0xffff_ffff],
    );
}

/// A vector `undef` (NIR keeps one feeding a vecN) read by component: lowered like a scalar
/// undef, to zeros (the reference interpreter's undef), with no `undef` left for selection.
#[test]
fn vector_undef_components() {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let a = b.load_global(0, x, Type::I32, 1);
    let u = b.op(Op::Undef, Shape::vec(Type::I32, 4), []);
    let s = b.alu(Op::IAdd, Type::I32, [Src::val(a), Src::comp(u, 2)]);
    let t = b.alu(Op::Xor, Type::I32, [Src::val(s), Src::comp(u, 3)]);
    b.store_global(1, x, t);
    let f = b.finish();
    check(
        &f,
        &[inputs(7, THREADS as usize), vec![0; THREADS as usize]],
        &[],
    );
}

//! Integer shifts selected onto G16 (`ishl_imm`/`ishl_reg`, `ushr_imm`/`ushr_reg`,
//! `ishr_imm`/`ishr_reg`), run on agx16-sim against the reference interpreter, with register
//! amounts of 32 and more (the IR's low-five-bit meaning, masked before the saturating
//! hardware shift).

use agx16_compiler::interp::{run, Env};
use agx16_compiler::ir::*;
use agx16_compiler::pipeline::{compile_g16, Options};

const THREADS: u32 = 32;

fn run_on_model(code: &[u8], buffers: &[Vec<u32>]) -> Vec<Vec<u32>> {
    agx16_sim::harness::run_with_buffers(code, buffers, &[], THREADS, 0).unwrap()
}

/// out[k][x] = the k-th shift of a[x] by n[x] (registers) and by immediates.
fn shifts_kernel() -> (Function, usize) {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let a = b.load_global(0, x, Type::I32, 1);
    let n = b.load_global(1, x, Type::I32, 1);
    let mut outs = Vec::new();
    for op in [Op::Shl, Op::Shr { signed: false }, Op::Shr { signed: true }] {
        outs.push(b.alu(op, Type::I32, [Src::val(a), Src::val(n)]));
        for k in [0, 7, 31] {
            outs.push(b.alu(op, Type::I32, [Src::val(a), Src::imm(k)]));
        }
    }
    let count = outs.len();
    for (k, v) in outs.into_iter().enumerate() {
        b.store_global(2 + k as u8, x, v);
    }
    (b.finish(), count)
}

#[test]
fn shifts_by_registers_and_immediates_match_the_reference() {
    let (f, count) = shifts_kernel();
    let c = compile_g16(&f, Options::default()).unwrap();
    let names: Vec<&str> = agx16_isa::decode_program(&c.code)
        .unwrap()
        .iter()
        .map(|(_, i)| i.form.name)
        .collect();
    for form in [
        "ishl_reg", "ishl_imm", "ushr_reg", "ushr_imm", "ishr_reg", "ishr_imm",
    ] {
        assert!(names.contains(&form), "{form} not selected:\n{}", c.mir);
    }
    let a: Vec<u32> = (0..THREADS)
        .map(|i| 0x8765_4321u32.rotate_left(i).wrapping_add(i))
        .collect();
    // Amounts 0..31, then 32, 33, 63, 64 and wrapping values (low five bits count).
    let n: Vec<u32> = (0..THREADS)
        .map(|i| match i {
            0..=23 => i + i / 8,
            24 => 32,
            25 => 33,
            26 => 63,
            27 => 64,
            28 => 0x1_0003,
            29 => 0xffff_ffff,
            30 => 0x8000_0001,
            _ => 31,
        })
        .collect();
    let mut buffers = vec![a.clone(), n.clone()];
    buffers.extend((0..count).map(|_| vec![0u32; THREADS as usize]));
    let got = run_on_model(&c.code, &buffers);
    for lane in 0..THREADS as usize {
        let mut env = Env {
            global_id: [lane as u32, 0, 0],
            ..Env::default()
        };
        for (k, buf) in buffers.iter().enumerate() {
            env.buffers.insert(k as u8, buf.clone());
        }
        run(&f, &mut env).unwrap();
        for k in 0..count {
            assert_eq!(
                got[2 + k][lane],
                env.buffers[&(2 + k as u8)][lane],
                "output {k}, lane {lane}: a = {:#x}, n = {:#x}\n{}",
                a[lane],
                n[lane],
                c.mir
            );
        }
    }
}

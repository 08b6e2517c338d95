//! Lane-instructions per second of the model on one core: an ALU-heavy kernel
//! (a long dependent chain of fp32 FMA/add per thread) and a memory-heavy one
//! (Apple-compiled EXP-0003 `c = a + b`: two loads, an add and a store per thread).
//!
//! Time is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so the figure is
//! per core even when the machine is shared.

use agx16_isa::{encode_program, Instr};
use agx16_sim::{run_compute, Code, ComputeLaunch, PageTable, Program};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::sync::Arc;
use std::time::Duration;

fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec; the clock id is a constant.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn cpu_iter(bch: &mut criterion::Bencher, mut f: impl FnMut()) {
    bch.iter_custom(|n| {
        let t0 = thread_cpu_time();
        for _ in 0..n {
            f();
        }
        thread_cpu_time() - t0
    })
}

const GRID: u32 = 16 * 1024;

fn alu_program(chain: usize) -> Vec<u8> {
    let b = |name: &str, f: &[(&str, u64)]| Instr::build(name, f).unwrap();
    let mut v = vec![b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa0)])];
    for k in 0..chain {
        let (d, a) = if k % 2 == 0 { (2, 1) } else { (1, 2) };
        v.push(b(
            "ffma",
            &[
                ("dst", d),
                ("a_size", 1),
                ("a", a),
                ("b_size", 1),
                ("b", a),
                ("c", a),
            ],
        ));
        v.push(b(
            "fadd",
            &[("dst", d), ("a_size", 1), ("a", d), ("b_size", 1), ("b", a)],
        ));
    }
    v.push(b("stop", &[]));
    encode_program(&v)
}

fn launch(code: Code, uniforms: Vec<u32>) -> ComputeLaunch {
    ComputeLaunch {
        code,
        uniforms,
        grid: [GRID, 1, 1],
        threadgroup: [1024, 1, 1],
        tg_memory: 0,
        budget: ComputeLaunch::DEFAULT_BUDGET,
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("lane_instructions");

    let alu = Arc::new(Program::new(&alu_program(256)));
    let pt = PageTable::new();
    let l = launch(Code::Program(alu), vec![]);
    let lanes = run_compute(&pt, &l).unwrap().lane_instructions;
    g.throughput(Throughput::Elements(lanes));
    g.bench_function("alu_fma_chain", |bch| {
        cpu_iter(bch, || {
            run_compute(&pt, &l).unwrap();
        })
    });

    // EXP-0003 add (ADevWithAnIdea/agx-re, Apple-compiled): out[i] = a[i] + b[i].
    let hex = "1ca010066710540000012000510100404600670044040101200051010040460009051c0100c0e7005400020121001100009011000e000000";
    let code: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let pt = PageTable::new();
    let mut uniforms = vec![];
    for k in 0..3u64 {
        let va = 0x10_0000_0000 + k * 0x10_0000;
        pt.map(va, 4 * GRID as u64, true, true).unwrap();
        uniforms.extend([va as u32, (va >> 32) as u32]);
    }
    let l = launch(Code::Program(Arc::new(Program::new(&code))), uniforms);
    let lanes = run_compute(&pt, &l).unwrap().lane_instructions;
    g.throughput(Throughput::Elements(lanes));
    g.bench_function("mem_add_kernel", |bch| {
        cpu_iter(bch, || {
            run_compute(&pt, &l).unwrap();
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Compile time of high-pressure kernels: `testgen::pressure_program(n)` keeps `n` vec4s live
//! at once (4n f32 values against G16's 96 GPRs), so from about 24 on most of the program
//! spills. Prints, per size, the wall time of the whole backend (SSA IR → scheduled,
//! allocated MIR; the fastest of three) and of its two parts (one run each), and the spill
//! statistics.
//! `cargo bench -p agx16-compiler --bench pressure [-- 16 32 64 96 128]`.

use agx16_compiler::isel::{G16Regs, G16Target};
use agx16_compiler::pipeline::{compile_to_mir, Options};
use agx16_compiler::ra::{self, RaOptions};
use agx16_compiler::testgen::pressure_program;
use std::time::Instant;

fn main() {
    let sizes: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![16, 32, 64, 96, 128]
    } else {
        sizes
    };
    for n in sizes {
        let f = pressure_program(n);
        // The fastest of three compiles.
        let mut total = f64::INFINITY;
        let mut p = None;
        for _ in 0..3 {
            let t = Instant::now();
            let c = compile_to_mir(&f, &G16Target, &G16Regs, Options::default())
                .unwrap_or_else(|e| panic!("{n} live vec4s: {e}"));
            total = total.min(t.elapsed().as_secs_f64());
            p = Some(c);
        }
        let p = p.unwrap();
        // The stages on their own: optimisation + scheduling, then allocation.
        let t = Instant::now();
        let mut g = f.clone();
        agx16_compiler::opt::optimize(&mut g, &G16Target);
        agx16_compiler::sched::list::run(&mut g);
        let front = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let _ = ra::allocate(&g, &G16Regs, RaOptions { gprs: 96 }).unwrap();
        let alloc = t.elapsed().as_secs_f64();
        println!(
            "{n:4} live vec4s: {:6} IR instrs, compile {total:8.3} s (opt+sched {front:.3} s, allocate {alloc:.3} s); {} instrs, {} gprs, {} spills, {} fills, {} scratch words",
            f.instr_count(),
            p.stats.instrs,
            p.stats.gprs,
            p.stats.spills,
            p.stats.fills,
            p.scratch_words
        );
    }
}

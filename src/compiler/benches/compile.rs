//! Backend compile time per shader (SSA IR → scheduled, allocated MIR) over a corpus of random
//! programs, and static statistics totals printed once.

use agx16_compiler::isel::G16Regs;
use agx16_compiler::isel::G16Target;
use agx16_compiler::pipeline::{compile_to_mir, Options};
use agx16_compiler::testgen::random_program;
use criterion::{criterion_group, criterion_main, Criterion};
use std::time::Instant;

fn corpus() -> Vec<agx16_compiler::ir::Function> {
    (0..100)
        .map(|s| random_program(1000 + s, 20 + (s as usize % 5) * 20))
        .collect()
}

fn percentiles(c: &mut Criterion) {
    let shaders = corpus();
    // Median and p95 over per-shader compile times (best of 5 runs each, to drop noise).
    let mut times: Vec<f64> = shaders
        .iter()
        .map(|f| {
            (0..5)
                .map(|_| {
                    let t = Instant::now();
                    let p = compile_to_mir(f, &G16Target, &G16Regs, Options::default()).unwrap();
                    std::hint::black_box(p);
                    t.elapsed().as_secs_f64() * 1e3
                })
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let (mut instrs, mut gprs, mut spills, mut waits, mut copies) = (0, 0, 0, 0, 0);
    for f in &shaders {
        let p = compile_to_mir(f, &G16Target, &G16Regs, Options::default()).unwrap();
        instrs += p.stats.instrs;
        gprs += p.stats.gprs;
        spills += p.stats.spills;
        waits += p.stats.scoreboard_waits;
        copies += p.stats.copies;
    }
    println!(
        "corpus {} shaders: compile median {:.3} ms, p95 {:.3} ms; totals: instrs {instrs}, gprs {gprs}, spills {spills}, scoreboard waits {waits}, copies {copies}",
        shaders.len(),
        times[times.len() / 2],
        times[times.len() * 95 / 100]
    );
    // Spill figures of the same corpus at forced register budgets (96 = the whole file).
    for gprs in [96, 32, 16, 12] {
        let (mut spills, mut fills, mut words, mut spilling, mut refused) = (0, 0, 0, 0, 0);
        for f in &shaders {
            match compile_to_mir(
                f,
                &G16Target,
                &G16Regs,
                Options {
                    gprs,
                    ..Options::default()
                },
            ) {
                Ok(p) => {
                    spills += p.stats.spills;
                    fills += p.stats.fills;
                    words += p.scratch_words;
                    spilling += (p.stats.spills != 0) as u32;
                }
                Err(_) => refused += 1,
            }
        }
        println!(
            "corpus at {gprs} GPRs: {spilling} shaders spill; spills {spills}, fills {fills}, scratch words {words}; {refused} over budget"
        );
    }
    c.bench_function("compile_corpus_100", |b| {
        b.iter(|| {
            for f in &shaders {
                std::hint::black_box(
                    compile_to_mir(f, &G16Target, &G16Regs, Options::default()).unwrap(),
                );
            }
        })
    });
}

criterion_group!(benches, percentiles);
criterion_main!(benches);

//! Property test: random well-typed GLSL ES 3.00 programs (tests/fuzz/gen.rs) compiled through
//! Mesa's GLSL front end and agx16 to G16 code, run on the M4 model, and compared per thread with
//! a CPU evaluation of the same program with the GLSL ES 3.00 tolerances. Deterministic: fixed
//! seeds and a bounded number of programs. A failure prints the program.
#![cfg(feature = "glsl")]

#[path = "fuzz/gen.rs"]
mod gen;

use agx16_compiler::glsl::{compile_glsl, ShaderStage};
use agx16_compiler::pipeline::Options;
use agx16_compiler::testgen::Rng;

const THREADS: u32 = 32;
/// Programs per run (seeds 0..CASES); `AGX16_FUZZ_CASES=N` runs more (`AGX16_FUZZ_FIRST` moves
/// the first seed).
const CASES: u64 = 100;

/// Runs `code` with `scratch` bytes of per-thread scratch (4 per spilled word); returns the last
/// (output) buffer.
fn run_on_model(code: &[u8], buffers: &[Vec<u32>], scratch: u32) -> Result<Vec<u32>, String> {
    let mut out = agx16_sim::harness::run_with_buffers(code, buffers, &[], THREADS, scratch)?;
    Ok(out.pop().unwrap_or_default())
}

/// Inputs: moderate floats (small integers, halves, signed zeros, an f32 denormal, random
/// values within ±100), integers with the edge cases (0, ±1, INT_MIN/MAX, 2^31).
fn inputs(seed: u64) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut r = Rng::new(seed ^ 0x9e37_79b9_7f4a_7c15);
    let n = 5 * THREADS as usize;
    let f = (0..n)
        .map(|_| {
            let v: f32 = match r.below(8) {
                0 => [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.0, 1e-40][r.below(8) as usize],
                1 => r.below(17) as f32 - 8.0,
                2 => (r.below(33) as f32 - 16.0) * 0.5,
                _ => (r.below(1 << 24) as f32 / (1 << 24) as f32 - 0.5) * 200.0,
            };
            v.to_bits()
        })
        .collect();
    let int = |r: &mut Rng| -> u32 {
        match r.below(6) {
            0 => [0u32, 1, u32::MAX, 0x7fff_ffff, 0x8000_0000, 2, 3][r.below(7) as usize],
            1 => r.below(16) as u32,
            2 => (r.below(64) as i32 - 32) as u32,
            _ => r.next_u64() as u32,
        }
    };
    let i = (0..n).map(|_| int(&mut r)).collect();
    let u = (0..n).map(|_| int(&mut r)).collect();
    (f, i, u)
}

/// The register budget program `seed` is compiled with: every fourth at 16 GPRs
/// (`AGX16_FUZZ_SMALL_GPRS` sets another), so the spiller and its scratch accesses run too.
fn budget(seed: u64) -> u32 {
    let small = std::env::var("AGX16_FUZZ_SMALL_GPRS").map_or(16, |s| s.parse().unwrap());
    if seed % 4 == 3 {
        small
    } else {
        96
    }
}

/// Compile and run program `seed`: Ok((threads checked, threads undecided, spilled)) or the
/// failure; Ok((0, 0, false)) when a reduced budget cannot hold the program (a
/// register-allocation error).
fn run_case(seed: u64) -> Result<(u32, u32, bool), String> {
    let p = gen::generate(seed);
    let src = gen::source(&p);
    let opts = Options {
        gprs: budget(seed),
        ..Options::default()
    };
    let compiled = match compile_glsl(&src, ShaderStage::Compute, opts) {
        Ok(c) => c.compiled,
        Err(agx16_compiler::glsl::GlslError::Compile(agx16_compiler::CompileError::RegAlloc {
            ..
        })) if opts.gprs < 96 => return Ok((0, 0, false)),
        Err(e) => return Err(format!("compile at {} GPRs: {e}", opts.gprs)),
    };
    let (f, i, u) = inputs(seed);
    let m = gen::out_words(&p);
    let bufs = vec![
        f.clone(),
        i.clone(),
        u.clone(),
        vec![0xdead_beef; m * THREADS as usize],
    ];
    let got = run_on_model(&compiled.code, &bufs, 4 * compiled.mir.scratch_words)
        .map_err(|e| format!("model: {e}"))?;
    let (mut checked, mut undecided) = (0, 0);
    for t in 0..THREADS as usize {
        let at = |k: usize| 5 * t + k;
        let fa: [f32; 5] = std::array::from_fn(|k| f32::from_bits(f[at(k)]));
        let ia: [i32; 5] = std::array::from_fn(|k| i[at(k)] as i32);
        let ua: [u32; 5] = std::array::from_fn(|k| u[at(k)]);
        let Ok(want) = gen::Env::new(fa, ia, ua).run(&p) else {
            undecided += 1;
            continue;
        };
        checked += 1;
        for (k, w) in want.iter().enumerate() {
            let g = got[m * t + k];
            if !gen::accepts(*w, g) {
                return Err(format!(
                    "thread {t} output word {k}: got {g:#010x} ({}) want {w:?}\n\
                     inputs f {:?} i {:?} u {:?}",
                    f32::from_bits(g),
                    fa,
                    ia,
                    ua
                ));
            }
        }
    }
    Ok((checked, undecided, compiled.mir.scratch_words > 0))
}

#[test]
fn random_glsl_programs_match_the_cpu_evaluation_on_the_model() {
    let (mut checked, mut undecided, mut spilled) = (0, 0, 0);
    let mut failures = vec![];
    let env = |k: &str, d: u64| std::env::var(k).map_or(d, |v| v.parse().unwrap());
    let (first, cases) = (env("AGX16_FUZZ_FIRST", 0), env("AGX16_FUZZ_CASES", CASES));
    for seed in first..first + cases {
        match run_case(seed) {
            Ok((c, u, s)) => {
                checked += c;
                undecided += u;
                spilled += s as u32;
            }
            Err(e) => failures.push(format!(
                "seed {seed}: {e}\n{}",
                gen::source(&gen::generate(seed))
            )),
        }
    }
    for f in &failures {
        eprintln!("FAIL {}", f.lines().next().unwrap_or(""));
    }
    if let Ok(dir) = std::env::var("AGX16_FUZZ_DUMP") {
        for seed in first..first + cases {
            let src = gen::source(&gen::generate(seed));
            std::fs::write(format!("{dir}/seed{seed}.comp"), src).unwrap();
        }
    }
    println!(
        "GLSL fuzz: {cases} programs ({spilled} spilling), {checked} threads checked, \
         {undecided} undecided, {} failed",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {cases} programs failed; first:\n{}",
        failures.len(),
        failures[0]
    );
    // The tolerances must leave most threads decided, or the test checks little.
    assert!(
        checked * 2 > checked + undecided,
        "only {checked} of {} threads decided",
        checked + undecided
    );
}

/// Debugging aid: `AGX16_FUZZ_SEED=N` (program N on its inputs) or `AGX16_FUZZ_SRC=file.comp`
/// (a kernel with the fuzz programs' buffer layout, on the inputs of `AGX16_FUZZ_INPUTS`) is
/// compiled and run on the model and in the MIR interpreter; prints the MIR and, per thread,
/// the output words where the two differ.
#[test]
fn fuzz_debug() {
    let (src, seed, words) = if let Ok(s) = std::env::var("AGX16_FUZZ_SEED") {
        let seed: u64 = s.parse().unwrap();
        let p = gen::generate(seed);
        (gen::source(&p), seed, gen::out_words(&p))
    } else if let Ok(path) = std::env::var("AGX16_FUZZ_SRC") {
        let seed = std::env::var("AGX16_FUZZ_INPUTS").map_or(0, |s| s.parse().unwrap());
        (std::fs::read_to_string(path).unwrap(), seed, 16)
    } else {
        return;
    };
    println!("{src}");
    let opts = Options {
        gprs: std::env::var("AGX16_FUZZ_GPRS").map_or(96, |s| s.parse().unwrap()),
        ..Options::default()
    };
    let c = compile_glsl(&src, ShaderStage::Compute, opts)
        .unwrap()
        .compiled;
    println!("{}", c.mir);
    let (f, i, u) = inputs(seed);
    let bufs = vec![f, i, u, vec![0xdead_beef; words * THREADS as usize]];
    let got = run_on_model(&c.code, &bufs, 4 * c.mir.scratch_words).unwrap();
    for t in 0..THREADS {
        let mut env = agx16_compiler::interp::Env::default();
        for (k, b) in bufs.iter().enumerate() {
            env.buffers.insert(k as u8, b.clone());
        }
        env.global_id = [t, 0, 0];
        let r = agx16_compiler::mir::interp::run(&c.mir, &mut env);
        for k in 0..words {
            let w = t as usize * words + k;
            let m = r.as_ref().map(|_| env.buffers[&3][w]);
            if m != Ok(got[w]) {
                println!(
                    "thread {t} word {k}: model {:#010x}, MIR interpreter {m:x?}",
                    got[w]
                );
            }
        }
    }
}

//! Spill code on the M4 model: kernels compiled with a forced small register budget spill to
//! per-thread scratch (`spill_store` / `spill_load`, one 32-bit word each) and must give the
//! CPU reference interpreter's results bit for bit, and the same results as the unrestricted
//! compile. The model gets 4 * `scratch_words` bytes of scratch (frame extent A; the M4 needs
//! exactly that, GravityLinux/mesa README.apple9-launchers.md), also through a real launcher.

use agx16_cmdstream::cdm::{CdmBlock, CdmLaunchDirect};
use agx16_cmdstream::launch::{build_arena, build_launcher, LaunchCommon, LaunchStage};
use agx16_cmdstream::record::Record;
use agx16_compiler::interp::{self, Env};
use agx16_compiler::ir::*;
use agx16_compiler::isel::G16Target;
use agx16_compiler::pipeline::{compile_g16, Compiled, Options};
use agx16_compiler::ra::peak_pressure_gprs;
use agx16_compiler::testgen::{
    edge_word, pressure_program, random_control_kernel, random_g16_kernel, Rng,
};
use agx16_compiler::CompileError;
use agx16_sim::mem::PAGE_SIZE;
use agx16_sim::{
    run_cdm_launch, run_compute_with_scratch, Code, ComputeLaunch, PageTable, SimError,
};
use proptest::prelude::*;

const THREADS: u32 = 64;
const BASE: u64 = 0x10_0000_0000;
const STRIDE: u64 = 0x10_0000;

fn map_buffers(pt: &PageTable, buffers: &[Vec<u32>]) -> Vec<u32> {
    let mut uniforms = Vec::new();
    for (slot, b) in buffers.iter().enumerate() {
        let va = BASE + slot as u64 * STRIDE;
        let bytes: Vec<u8> = b.iter().flat_map(|w| w.to_le_bytes()).collect();
        pt.map(va, STRIDE, true, true).unwrap();
        pt.host_write(va, &bytes).unwrap();
        uniforms.extend([va as u32, (va >> 32) as u32]);
    }
    uniforms
}

fn read_buffers(pt: &PageTable, buffers: &[Vec<u32>]) -> Vec<Vec<u32>> {
    buffers
        .iter()
        .enumerate()
        .map(|(slot, b)| {
            let mut bytes = vec![0u8; b.len() * 4];
            pt.host_read(BASE + slot as u64 * STRIDE, &mut bytes)
                .unwrap();
            bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
        .collect()
}

/// Runs `c` over THREADS threads with `scratch` bytes of scratch per invocation.
fn run_model(c: &Compiled, buffers: &[Vec<u32>], scratch: u32) -> Result<Vec<Vec<u32>>, SimError> {
    let pt = PageTable::new();
    let uniforms = map_buffers(&pt, buffers);
    let launch = ComputeLaunch {
        code: Code::Bytes(c.code.clone()),
        uniforms,
        grid: [THREADS, 1, 1],
        threadgroup: [THREADS, 1, 1],
        tg_memory: 0,
        budget: 1 << 24,
    };
    run_compute_with_scratch(&pt, &launch, scratch)?;
    Ok(read_buffers(&pt, buffers))
}

const USC: u64 = 1 << 40;
const LAUNCHER: u64 = USC + 0x10000;
const BODY: u64 = USC + 0x20000;
const RECORD: u64 = USC + 0x40000;

/// Runs `c` the way the M4 starts a compute kernel: a CDM launch record, an agx16-cmdstream
/// launcher whose publication/scratch frame carries extent A = `extent_a` bytes, the entry
/// arena's jump, then the body (the buffers in resource-record qwords 0.., as
/// agx16-sim's launcher tests lay them out).
fn run_launched(
    c: &Compiled,
    buffers: &[Vec<u32>],
    extent_a: u16,
) -> Result<Vec<Vec<u32>>, SimError> {
    let pt = PageTable::new();
    map_buffers(&pt, buffers);
    let map = |va: u64, bytes: &[u8]| {
        let len = (bytes.len() as u64).max(1).div_ceil(PAGE_SIZE) * PAGE_SIZE;
        pt.map(va, len, true, false).unwrap();
        pt.host_write(va, bytes).unwrap();
    };
    map(BODY, &c.code);
    let arena = build_arena(USC, &[(BODY, true)]).unwrap();
    map(USC, &arena.bytes);
    let mut record = vec![0u8; 0x100];
    for k in 0..buffers.len() {
        let va = BASE + k as u64 * STRIDE;
        record[8 * k..8 * k + 8].copy_from_slice(&va.to_le_bytes());
    }
    map(RECORD, &record);
    let stage = LaunchStage::Compute {
        resources: buffers.len().saturating_sub(1).max(1),
        threadgroup_bytes: 0,
    };
    let common = LaunchCommon {
        resource_table: RECORD,
        entry_offset: arena.entries[0],
        publications: 0,
        extent_a,
        extent_b: 0,
    };
    map(LAUNCHER, &build_launcher(stage, &common).unwrap().bytes);
    let packed = CdmLaunchDirect::t8132(LAUNCHER, [THREADS, 1, 1], [THREADS, 1, 1])
        .unwrap()
        .pack()
        .unwrap();
    let launch = CdmBlock::decode(&packed).unwrap().launch().unwrap();
    run_cdm_launch(&pt, &launch, USC, 1 << 24)?;
    Ok(read_buffers(&pt, buffers))
}

fn reference(f: &Function, buffers: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let mut env = Env::default();
    for (k, b) in buffers.iter().enumerate() {
        env.buffers.insert(k as u8, b.clone());
    }
    for t in 0..THREADS {
        env.global_id = [t, 0, 0];
        interp::run(f, &mut env).unwrap_or_else(|e| panic!("reference: {e}\n{f}"));
    }
    (0..buffers.len())
        .map(|k| env.buffers[&(k as u8)].clone())
        .collect()
}

fn compile(f: &Function, gprs: u32) -> Result<Compiled, CompileError> {
    compile_g16(
        f,
        Options {
            gprs,
            ..Options::default()
        },
    )
}

/// Compiles `f` at `gprs` and at 96, runs both on the model, compares with the reference.
/// Returns the spill count of the small-budget compile.
fn check(f: &Function, buffers: &[Vec<u32>], gprs: u32, what: &str) -> u32 {
    let small = compile(f, gprs).unwrap_or_else(|e| panic!("{what} at {gprs} GPRs: {e}\n{f}"));
    let full = compile(f, 96).unwrap_or_else(|e| panic!("{what} at 96 GPRs: {e}\n{f}"));
    let want = reference(f, buffers);
    let got = run_model(&small, buffers, 4 * small.mir.scratch_words).unwrap_or_else(|e| {
        panic!(
            "{what} at {gprs} GPRs on the model: {e}\n{f}\n{}",
            small.mir
        )
    });
    let unrestricted = run_model(&full, buffers, 4 * full.mir.scratch_words)
        .unwrap_or_else(|e| panic!("{what} at 96 GPRs on the model: {e}"));
    assert_eq!(
        got, want,
        "{what} at {gprs} GPRs vs reference\n{f}\n{}",
        small.mir
    );
    assert_eq!(got, unrestricted, "{what}: {gprs} GPRs vs 96");
    assert!(
        small.stats.gprs <= gprs,
        "{what}: {} GPRs used",
        small.stats.gprs
    );
    small.stats.spills
}

fn inputs(seed: u64, n: usize) -> Vec<Vec<u32>> {
    let mut r = Rng::new(seed);
    let mut bufs: Vec<Vec<u32>> = (0..n)
        .map(|_| (0..2 * THREADS).map(|_| edge_word(&mut r)).collect())
        .collect();
    bufs.push(vec![0; 2 * THREADS as usize]);
    bufs
}

/// `2n` values live at once across an `if` (a block boundary the list scheduler does not
/// reorder across): out[x] = sum of (in[x] * k + k), out[x + T] = sum of (i[x] + k), k = 1..n.
fn wide_kernel(n: u32) -> Function {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let f = b.load_global(0, x, Type::F32, 1);
    let i = b.load_global(1, x, Type::I32, 1);
    let mut fs = Vec::new();
    let mut is = Vec::new();
    for k in 1..=n {
        let m = b.fmul(f, Src::imm_f32(k as f32));
        fs.push(b.fadd(m, Src::imm_f32(k as f32)));
        is.push(b.iadd(i, Src::imm(k)));
    }
    let c = b.fcmp(Cmp::Lt, f, Src::imm_f32(0.0));
    b.if_(c);
    b.store_global(2, x, f);
    b.end_if();
    let mut facc = fs[0];
    for v in &fs[1..] {
        facc = b.fadd(facc, *v);
    }
    let mut iacc = is[0];
    for v in &is[1..] {
        iacc = b.iadd(iacc, *v);
    }
    b.store_global(2, x, facc);
    let x2 = b.iadd(x, Src::imm(THREADS));
    b.store_global(2, x2, iacc);
    b.finish()
}

#[test]
fn wide_kernels_spill_at_small_budgets_and_match() {
    for n in [6, 12, 20] {
        let f = wide_kernel(n);
        let bufs = inputs(n as u64, 2);
        let peak = peak_pressure_gprs(&f, &G16Target, true).unwrap();
        assert!(peak >= 2 * n, "wide({n}): peak pressure {peak}");
        for gprs in [8, 12, 16] {
            let spills = check(&f, &bufs, gprs, &format!("wide({n})"));
            if peak > gprs {
                assert!(spills > 0, "wide({n}) at {gprs} GPRs did not spill");
            }
        }
    }
}

#[test]
fn random_kernels_spill_at_small_budgets_and_match() {
    let (mut spilled, mut compiled, mut refused) = (0, 0, 0);
    for seed in 0..40 {
        let f = random_g16_kernel(seed, 20 + (seed as usize % 3) * 8, 2, 2, THREADS);
        let bufs = inputs(seed, 2);
        for gprs in [8, 12, 16] {
            match compile(&f, gprs) {
                Err(CompileError::RegAlloc { .. }) => refused += 1,
                Err(e) => panic!("seed {seed} at {gprs}: {e}"),
                Ok(_) => {
                    compiled += 1;
                    spilled += (check(&f, &bufs, gprs, &format!("seed {seed}")) > 0) as u32;
                }
            }
        }
    }
    eprintln!("{compiled} compiled ({spilled} with spills), {refused} budget errors");
    assert!(
        spilled >= 25 && compiled >= 100,
        "{compiled} compiled, {spilled} spilled"
    );
}

#[test]
fn control_flow_kernels_spill_and_match() {
    let mut spilled = 0;
    for seed in 0..24 {
        let f = random_control_kernel(seed, THREADS);
        let mut r = Rng::new(seed ^ 0x55);
        let counts: Vec<u32> = (0..2 * THREADS).map(|_| r.below(6) as u32).collect();
        let ints: Vec<u32> = (0..2 * THREADS).map(|_| edge_word(&mut r)).collect();
        let floats: Vec<u32> = (0..2 * THREADS).map(|_| edge_word(&mut r)).collect();
        let bufs = vec![counts, ints, floats, vec![7; 2 * THREADS as usize]];
        for gprs in [8, 12] {
            match compile(&f, gprs) {
                Err(CompileError::RegAlloc { .. }) => continue,
                Err(e) => panic!("seed {seed} at {gprs}: {e}"),
                Ok(_) => spilled += (check(&f, &bufs, gprs, &format!("control {seed}")) > 0) as u32,
            }
        }
    }
    assert!(spilled > 0, "no control-flow compile spilled");
}

/// Kernels keeping 24 to 64 vec4s live at once (the shape of `agx16-robusttest pressure N`)
/// at the whole file: all but the smallest spill many values at once (the spiller chooses a
/// round's values together) and give the reference's results bit for bit.
#[test]
fn many_live_vec4s_spill_at_the_whole_file_and_match() {
    let mut r = Rng::new(24);
    let bufs = vec![
        (0..4 * THREADS)
            .map(|_| edge_word(&mut r))
            .collect::<Vec<u32>>(),
        vec![0; 4 * THREADS as usize],
    ];
    for n in [24, 40, 64] {
        let f = pressure_program(n);
        let c = compile(&f, 96).unwrap_or_else(|e| panic!("{n} vec4s: {e}"));
        let got = run_model(&c, &bufs, 4 * c.mir.scratch_words)
            .unwrap_or_else(|e| panic!("{n} vec4s on the model: {e}"));
        assert_eq!(got, reference(&f, &bufs), "{n} live vec4s vs reference");
        if n >= 40 {
            assert!(
                c.stats.spills as usize >= 4 * n as usize - 96,
                "{n} vec4s: {} spills",
                c.stats.spills
            );
        }
        assert!(c.stats.gprs <= 96);
    }
}

/// A loop carrying `n` values through its header (more phis than registers): each iteration
/// rotates them by one (every header phi reads the next one: a cycle through all of them) and,
/// for lanes whose input is odd, adds the counter to one of them under an `if` (phis where
/// the `if` rejoins). out[x] = sum of value k * (k + 1), out[x + T] = the value at index 0.
fn carried_kernel(n: u32) -> Function {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let v = b.load_global(0, x, Type::I32, 1);
    let trip = b.load_global(1, x, Type::I32, 1);
    let trip = b.alu(Op::And, Type::I32, [Src::val(trip), Src::imm(7)]);
    let odd = b.alu(Op::And, Type::I32, [Src::val(v), Src::imm(1)]);
    let init: Vec<Value> = (0..n).map(|k| b.iadd(v, Src::imm(k * 3 + 1))).collect();
    let pre = b.current_block();
    b.loop_();
    let i = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
    let vals: Vec<Value> = init
        .iter()
        .map(|iv| b.phi(Shape::scalar(Type::I32), &[(pre, Src::val(*iv))]))
        .collect();
    let done = b.icmp(Cmp::Ge, true, i, trip);
    b.if_(done);
    b.break_();
    b.end_if();
    let i2 = b.iadd(i, Src::imm(1));
    // Rotation: next[k] = vals[k + 1], next[n - 1] = vals[0]; then next[n / 2] += i if odd.
    let mut next: Vec<Value> = (0..n as usize)
        .map(|k| vals[(k + 1) % n as usize])
        .collect();
    let h = n as usize / 2;
    let is_odd = b.icmp(Cmp::Ne, false, odd, Src::imm(0));
    b.if_(is_odd);
    let added = b.iadd(next[h], Src::val(i));
    let (t, e, _) = b.end_if();
    let joined = b.phi(
        Shape::scalar(Type::I32),
        &[(t, Src::val(added)), (e, Src::val(next[h]))],
    );
    next[h] = joined;
    let latch = b.current_block();
    b.add_phi_src(i, latch, Src::val(i2));
    for (p, nx) in vals.iter().zip(&next) {
        b.add_phi_src(*p, latch, Src::val(*nx));
    }
    b.end_loop();
    let mut acc = b.alu(Op::IMul, Type::I32, [Src::val(vals[0]), Src::imm(1)]);
    for (k, p) in vals.iter().enumerate().skip(1) {
        let m = b.alu(Op::IMul, Type::I32, [Src::val(*p), Src::imm(k as u32 + 1)]);
        acc = b.iadd(acc, m);
    }
    b.store_global(2, x, acc);
    let x2 = b.iadd(x, Src::imm(THREADS));
    b.store_global(2, x2, vals[0]);
    b.finish()
}

/// Loop headers with more phis than registers compile (spilled phis live in scratch as memory
/// phis, stored as a parallel copy between slots, cycles broken through a register) and match
/// the reference and the unrestricted compile.
#[test]
fn loop_headers_with_more_phis_than_registers_spill_and_match() {
    for (n, gprs) in [(24, 12), (40, 16), (120, 96)] {
        let f = carried_kernel(n);
        let bufs = inputs(n as u64, 2);
        let spills = check(&f, &bufs, gprs, &format!("carried({n})"));
        assert!(spills > 0, "carried({n}) at {gprs} GPRs did not spill");
    }
}

#[test]
fn spilling_kernels_run_through_a_real_launcher_with_extent_a() {
    for (n, gprs) in [(12, 8), (20, 12)] {
        let f = wide_kernel(n);
        let bufs = inputs(n as u64, 2);
        let c = compile(&f, gprs).unwrap();
        let a = 4 * c.mir.scratch_words;
        assert!(a > 0);
        let got = run_launched(&c, &bufs, a as u16).unwrap_or_else(|e| panic!("{e}\n{}", c.mir));
        assert_eq!(got, reference(&f, &bufs), "wide({n}) at {gprs} GPRs");
        // A = 4 * (highest word + 1) passes on T8132 and one byte less fails.
        let short = run_launched(&c, &bufs, a as u16 - 1).unwrap_err();
        assert!(
            short.to_string().contains("outside frame extent A"),
            "{short}"
        );
    }
}

#[test]
fn undersized_scratch_is_refused_by_the_model() {
    let f = wide_kernel(12);
    let c = compile(&f, 8).unwrap();
    assert!(c.mir.scratch_words > 0);
    let err = run_model(&c, &inputs(1, 2), 4 * c.mir.scratch_words - 1).unwrap_err();
    assert!(err.to_string().contains("outside frame extent A"), "{err}");
}

#[test]
fn kernels_whose_pressure_fits_96_registers_do_not_spill() {
    let mut kernels: Vec<Function> = (0..60)
        .map(|s| random_g16_kernel(s, 12 + (s as usize % 6) * 16, 2, 2, THREADS))
        .collect();
    kernels.extend((0..20).map(|s| random_control_kernel(s, THREADS)));
    kernels.extend([10, 30, 45, 47].map(wide_kernel));
    let (mut near_full, mut highest, mut fitting) = (0, 0, 0);
    for (k, f) in kernels.iter().enumerate() {
        let peak = peak_pressure_gprs(f, &G16Target, true).unwrap();
        if peak <= 96 {
            fitting += 1;
            highest = highest.max(peak);
        }
        let c = compile(f, 96).unwrap_or_else(|e| panic!("kernel {k}: {e}"));
        if peak <= 96 {
            assert_eq!(
                c.stats.spills, 0,
                "kernel {k}: pressure {peak} GPRs fits but spilled"
            );
            assert_eq!(c.mir.scratch_words, 0);
        }
        near_full += (peak > 64) as u32;
    }
    eprintln!("{fitting} kernels fit 96 GPRs, the highest peak {highest}");
    assert!(near_full > 0, "no kernel came near the file size");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]
    /// Random kernels at random small budgets: the model agrees with the reference whenever
    /// the compile succeeds, and a failure is only a register-budget error.
    #[test]
    fn random_budgets_give_correct_code_or_a_budget_error(
        seed in 0u64..10_000, ops in 8usize..48, gprs in 6u32..=20
    ) {
        let f = random_g16_kernel(seed, ops, 2, 2, THREADS);
        match compile(&f, gprs) {
            Err(CompileError::RegAlloc { .. }) => {}
            Err(e) => prop_assert!(false, "seed {seed}: {e}"),
            Ok(_) => { check(&f, &inputs(seed, 2), gprs, &format!("seed {seed}")); }
        }
    }
}

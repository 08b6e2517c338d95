//! Real Apple-compiled M4 kernels (shared oracles) submitted through
//! DRM_IOCTL_ASAHI_SUBMIT and run on the model end to end: VM_BIND'ed buffers,
//! a hand-built CDM stream (packed by agx16-cmdstream) whose launch record
//! points at a real G16 launcher (setup) program built by agx16-cmdstream,
//! an entry arena at the USC base whose JMP_EXEC_ANY reaches the kernel body,
//! and a resource record the launcher loads the buffer pointers from. The
//! kernel core walks the CDM stream on its job thread; the model runs
//! launcher -> entry -> body through the kernel's VM. The output must equal
//! what the real M4 wrote.

#[path = "../../core/tests/common/mod.rs"]
mod common;
#[path = "../src/sim_backend.rs"]
mod sim_backend;

use agx16_cmdstream::launch::{build_arena, build_launcher, jump_any, LaunchCommon, LaunchStage};
use agx16_kernel::backend::GpuError;
use agx16_sim::harness::{check, slot_order, Outcome};
use agx16_sim::oracle::{oracle_files, oracles_dir, Oracle};
use common::*;
use sim_backend::SimBackend;
use std::sync::Arc;
use std::time::{Duration, Instant};

const BUF_STRIDE: u64 = 0x1000;
/// USC BO layout: entry arena at the USC base (it must be: entries are USC
/// offsets), then launchers, bodies and resource records.
const LAUNCHERS: u64 = 0x8000;
const BODIES: u64 = 0x40000;
const RECORDS: u64 = 0x60000;
const SLOT: u64 = 0x400;

/// The compute stage for a kernel reading `k` buffer base slots. Apple-compiled
/// kernels read base slot n from argument qword n, so the record holds the
/// buffers from qword 0 (GravityLinux's own mains keep a group-count pointer
/// there; these bodies do not read one).
fn stage(k: usize) -> LaunchStage {
    LaunchStage::Compute {
        resources: k.saturating_sub(1).max(1),
        threadgroup_bytes: 0,
    }
}

/// Writes kernel `i`'s body, resource record and launcher into the USC BO
/// (the arena must already hold entry `entry`); returns the launcher VA.
fn install(env: &Env, rig: &Rig, i: u64, entry: u64, body: &[u8], buffers: &[u64]) -> u64 {
    assert!(body.len() as u64 <= SLOT && buffers.len() <= 19);
    env.write_bo(&rig.file, rig.usc, BODIES + i * SLOT, body);
    let mut record = vec![0u8; 0x100];
    for (q, b) in buffers.iter().enumerate() {
        record[8 * q..8 * q + 8].copy_from_slice(&b.to_le_bytes());
    }
    env.write_bo(&rig.file, rig.usc, RECORDS + i * 0x100, &record);
    let launcher = build_launcher(
        stage(buffers.len()),
        &LaunchCommon {
            resource_table: USC_VA + RECORDS + i * 0x100,
            entry_offset: entry,
            publications: 0,
            extent_a: 0,
            extent_b: 0,
        },
    )
    .expect("launcher");
    env.write_bo(&rig.file, rig.usc, LAUNCHERS + i * SLOT, &launcher.bytes);
    USC_VA + LAUNCHERS + i * SLOT
}

/// An arena with one entry per body slot `0..n`.
fn arena(env: &Env, rig: &Rig, n: u64) -> Vec<u64> {
    let bodies: Vec<(u64, bool)> = (0..n).map(|i| (USC_VA + BODIES + i * SLOT, true)).collect();
    let a = build_arena(USC_VA, &bodies).expect("arena");
    assert!((a.bytes.len() as u64) <= LAUNCHERS);
    env.write_bo(&rig.file, rig.usc, 0, &a.bytes);
    a.entries
}

/// Submits one launch of `launcher` and waits; returns the fence status.
fn submit_one(
    env: &Env,
    rig: &Rig,
    i: u64,
    launcher: u64,
    grid: [u32; 3],
    tg: [u32; 3],
) -> Option<Result<(), agx16_kernel::Errno>> {
    let mut stream = launch(launcher, grid, tg);
    stream.extend(barrier());
    stream.extend(terminate());
    env.write_bo(&rig.file, rig.cmds, i * 0x100, &stream);
    let base = CMD_VA + i * 0x100;
    let out = env.syncobj(&rig.file);
    let buf = compute_cmdbuf(base, base + stream.len() as u64);
    assert_eq!(
        env.submit(&rig.file, rig.queue, &buf, &[], &[binary(out)]),
        Ok(0)
    );
    env.wait(&rig.file, out, 0, Duration::from_secs(60))
        .unwrap();
    rig.file.syncobj(out).unwrap().fence().unwrap().status()
}

#[test]
fn m4_oracles_run_through_submit_with_real_launchers() {
    let env = Env::with(Arc::new(SimBackend), 30_000);
    let rig = env.rig();
    let dir = oracles_dir().join("sim");
    let files = oracle_files(&dir).unwrap_or_else(|e| panic!("oracles at {}: {e}", dir.display()));
    let entries = arena(&env, &rig, files.len() as u64);
    let (mut ran, mut skipped) = (0, 0);
    for (i, path) in files.iter().enumerate() {
        let o = Oracle::load(path).unwrap();
        // Only kernels the model runs correctly on its own harness; this
        // test is about the submission and launch path around them.
        // (kernels that need fitted constant-program preloads run only in agx16-sim's harness)
        if !matches!(check(&o), Outcome::Pass(_))
            || agx16_sim::harness::needs_preload(&o)
            || o.buffers
                .iter()
                .any(|b| b.words_u32.len() * 4 > BUF_STRIDE as usize)
        {
            skipped += 1;
            continue;
        }
        // Buffers in the data BO, in the oracle's slot order.
        env.write_bo(&rig.file, rig.data, 0, &vec![0u8; DATA_SIZE as usize]);
        let order = slot_order(&o);
        let mut buffers = Vec::new();
        for (slot, binding) in order.iter().enumerate() {
            let buf = o.buffers.iter().find(|b| b.binding == *binding).unwrap();
            let bytes: Vec<u8> = buf.words_u32.iter().flat_map(|w| w.to_le_bytes()).collect();
            env.write_bo(&rig.file, rig.data, slot as u64 * BUF_STRIDE, &bytes);
            buffers.push(DATA_VA + slot as u64 * BUF_STRIDE);
        }
        let i = i as u64;
        let launcher = install(
            &env,
            &rig,
            i,
            entries[i as usize],
            &o.code().unwrap(),
            &buffers,
        );
        let grid = o.threads.grid;
        let tg = o
            .threads
            .threadgroup
            .unwrap_or([grid[0].clamp(1, 1024), 1, 1]);
        let status = submit_one(&env, &rig, i, launcher, grid, tg);
        assert_eq!(status, Some(Ok(())), "{}: job failed", o.name);
        for exp in &o.expected {
            let slot = order.iter().position(|&b| b == exp.binding).unwrap() as u64;
            let got = words(&env.read_bo(
                &rig.file,
                rig.data,
                slot * BUF_STRIDE,
                exp.words_u32.len() * 4,
            ));
            assert_eq!(
                got, exp.words_u32,
                "{}: binding {} differs from the M4",
                o.name, exp.binding
            );
        }
        ran += 1;
    }
    println!(
        "oracles through SUBMIT with real launchers: {ran} matched the M4, {skipped} skipped (model refuses them)"
    );
    assert!(ran >= 97, "only {ran} oracles ran");
}

fn runnable_m4_kernel() -> Oracle {
    oracle_files(&oracles_dir().join("sim"))
        .unwrap()
        .iter()
        .map(|p| Oracle::load(p).unwrap())
        .find(|o| {
            o.name.starts_with("EXP-M4")
                && !agx16_sim::harness::needs_preload(o)
                && matches!(check(o), Outcome::Pass(_))
        })
        .expect("an M4 kernel the model runs")
}

#[test]
fn model_fault_fails_the_job_with_its_address() {
    init_log();
    let env = Env::with(Arc::new(SimBackend), 30_000);
    let rig = env.rig();
    // A real kernel the model runs, its resource record aimed at an unmapped VA.
    let o = runnable_m4_kernel();
    let entries = arena(&env, &rig, 1);
    let bad = vec![0x7_0000_0000u64; slot_order(&o).len()];
    let launcher = install(&env, &rig, 0, entries[0], &o.code().unwrap(), &bad);
    let status = submit_one(&env, &rig, 0, launcher, o.threads.grid, [1, 1, 1]);
    assert_eq!(status, Some(Err(agx16_kernel::Errno::EIO)));
    assert_eq!(
        env.dev
            .stats()
            .faults
            .load(std::sync::atomic::Ordering::Relaxed),
        1
    );
}

#[test]
fn endless_shader_loop_fails_at_the_watchdog_deadline() {
    init_log();
    // 3 s job timeout (room for the follow-up kernel in a debug build); the
    // instruction budget alone (2^32) would take many minutes.
    let env = Env::with(Arc::new(SimBackend), 3_000);
    let rig = env.rig();
    let entries = arena(&env, &rig, 1);
    // Body: JMP_EXEC_ANY to itself (taken while any lane is active).
    let body = jump_any(0).unwrap();
    let launcher = install(&env, &rig, 0, entries[0], &body, &[DATA_VA]);
    let t = Instant::now();
    let status = submit_one(&env, &rig, 0, launcher, [64, 1, 1], [32, 1, 1]);
    let took = t.elapsed();
    assert_eq!(status, Some(Err(agx16_kernel::Errno::ETIMEDOUT)));
    assert!(took < Duration::from_secs(30), "took {took:?}");
    assert_eq!(
        env.dev
            .stats()
            .timeouts
            .load(std::sync::atomic::Ordering::Relaxed),
        1
    );
    // The queue stays usable: a real kernel runs next.
    let o = runnable_m4_kernel();
    env.write_bo(&rig.file, rig.data, 0, &vec![0u8; DATA_SIZE as usize]);
    let order = slot_order(&o);
    let mut buffers = Vec::new();
    for (slot, binding) in order.iter().enumerate() {
        let buf = o.buffers.iter().find(|b| b.binding == *binding).unwrap();
        let bytes: Vec<u8> = buf.words_u32.iter().flat_map(|w| w.to_le_bytes()).collect();
        env.write_bo(&rig.file, rig.data, slot as u64 * BUF_STRIDE, &bytes);
        buffers.push(DATA_VA + slot as u64 * BUF_STRIDE);
    }
    let entries = arena(&env, &rig, 2);
    let launcher = install(&env, &rig, 1, entries[1], &o.code().unwrap(), &buffers);
    let tg = o.threads.threadgroup.unwrap_or([1, 1, 1]);
    assert_eq!(
        submit_one(&env, &rig, 1, launcher, o.threads.grid, tg),
        Some(Ok(()))
    );
}

#[test]
fn model_errors_map_to_job_errors() {
    use agx16_kernel::vm::{Fault, FaultKind};
    use agx16_sim::mem::{Access, Fault as SimFault, FaultKind as SimKind};
    use agx16_sim::SimError;
    use sim_backend::to_gpu_error;
    let f = SimFault::new(0x1234_0000, 4, Access::Write, SimKind::Permission).at_pc(0x40);
    assert_eq!(
        to_gpu_error(SimError::Fault(f)),
        GpuError::Fault {
            fault: Fault {
                va: 0x1234_0000,
                write: true,
                kind: FaultKind::Permission
            },
            pc: Some(0x40)
        }
    );
    // The instruction budget is the model's bound on an endless shader.
    assert_eq!(
        to_gpu_error(SimError::Budget { budget: 10, pc: 8 }),
        GpuError::Timeout { pc: Some(8) }
    );
    assert!(matches!(
        to_gpu_error(SimError::RanOff { pc: 2 }),
        GpuError::Model(_)
    ));
    // A launch record pointing at bytes that are no launcher: the model
    // refuses (naming the launcher) and the job fails with EIO.
    let env = Env::with(Arc::new(SimBackend), 30_000);
    let rig = env.rig();
    let out = env.syncobj(&rig.file);
    let cmd = env.one_launch(&rig, 0, &[0u8; 64], 1);
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    env.wait(&rig.file, out, 0, Duration::from_secs(10))
        .unwrap();
    let status = rig.file.syncobj(out).unwrap().fence().unwrap().status();
    assert_eq!(status, Some(Err(agx16_kernel::Errno::EIO)));
}

//! Real Apple-compiled M4 kernels (shared oracles) submitted through
//! DRM_IOCTL_ASAHI_SUBMIT and run on the model: VM_BIND'ed buffers, a
//! hand-built CDM stream (packed by agx16-cmdstream), the kernel core's CDM
//! walk and job thread, the model executing through the kernel's VM. The
//! output must equal what the real M4 wrote.
//!
//! Not covered: the G16 launcher (setup) program. The model cannot run
//! launchers yet, so a fixture table tells the backend which kernel body
//! and uniforms (buffer addresses) each launch stands for.

#[path = "../../core/tests/common/mod.rs"]
mod common;
#[path = "../src/sim_backend.rs"]
mod sim_backend;

use agx16_kernel::backend::{ComputeContext, ComputeLaunch, GpuError};
use agx16_kernel::VmView;
use agx16_sim::harness::{check, slot_order, Outcome};
use agx16_sim::oracle::{oracle_files, oracles_dir, Oracle};
use common::*;
use parking_lot::Mutex;
use sim_backend::{LaunchResolver, SimBackend};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// pipeline VA -> (code length, uniforms)
#[derive(Default)]
struct Fixtures(Mutex<HashMap<u64, (usize, Vec<u32>)>>);

struct Resolver(Arc<Fixtures>);

impl LaunchResolver for Resolver {
    fn resolve(
        &self,
        _: &VmView,
        _: &ComputeContext,
        l: &ComputeLaunch,
    ) -> Result<agx16_sim::ComputeLaunch, GpuError> {
        let (len, uniforms) = self
            .0
             .0
            .lock()
            .get(&l.pipeline())
            .cloned()
            .ok_or_else(|| {
                GpuError::Model(format!("no fixture for launch program {:#x}", l.pipeline()))
            })?;
        let agx16_cmdstream::cdm::Grid::Direct { global, local } = l.launch.grid else {
            return Err(GpuError::Model("fixture launches are direct".into()));
        };
        Ok(agx16_sim::ComputeLaunch {
            code: agx16_sim::Code::Va {
                va: l.pipeline(),
                len,
            },
            uniforms,
            grid: global,
            threadgroup: local,
            tg_memory: 0,
            budget: 1 << 24,
        })
    }
}

const BUF_STRIDE: u64 = 0x1000;

#[test]
fn m4_oracles_run_through_submit_on_the_model() {
    let fixtures = Arc::new(Fixtures::default());
    let backend = Arc::new(SimBackend::with_resolver(Box::new(Resolver(
        fixtures.clone(),
    ))));
    let env = Env::with(backend, 30_000);
    let rig = env.rig();
    let dir = oracles_dir().join("sim");
    let files = oracle_files(&dir).unwrap_or_else(|e| panic!("oracles at {}: {e}", dir.display()));
    let (mut ran, mut skipped) = (0, 0);
    for (i, path) in files.iter().enumerate() {
        let o = Oracle::load(path).unwrap();
        // Only kernels the model runs correctly on its own harness; this
        // test is about the submission path around them.
        if !matches!(check(&o), Outcome::Pass(_))
            || o.buffers
                .iter()
                .any(|b| b.words_u32.len() * 4 > BUF_STRIDE as usize)
        {
            skipped += 1;
            continue;
        }
        let code = o.code().unwrap();
        let pipeline = USC_VA + i as u64 * 0x400;
        assert!(code.len() <= 0x400);
        env.write_bo(&rig.file, rig.usc, pipeline - USC_VA, &code);
        // Buffers in the data BO, in the oracle's slot order.
        env.write_bo(&rig.file, rig.data, 0, &vec![0u8; DATA_SIZE as usize]);
        let order = slot_order(&o);
        let mut uniforms = vec![0u32; 2 * order.len()];
        for (slot, binding) in order.iter().enumerate() {
            let buf = o.buffers.iter().find(|b| b.binding == *binding).unwrap();
            let bytes: Vec<u8> = buf.words_u32.iter().flat_map(|w| w.to_le_bytes()).collect();
            env.write_bo(&rig.file, rig.data, slot as u64 * BUF_STRIDE, &bytes);
            let va = DATA_VA + slot as u64 * BUF_STRIDE;
            uniforms[2 * slot] = va as u32;
            uniforms[2 * slot + 1] = (va >> 32) as u32;
        }
        fixtures.0.lock().insert(pipeline, (code.len(), uniforms));
        let grid = o.threads.grid;
        let tg = o
            .threads
            .threadgroup
            .unwrap_or([grid[0].clamp(1, 1024), 1, 1]);
        let mut stream = launch(pipeline, grid, tg);
        stream.extend(barrier());
        stream.extend(terminate());
        env.write_bo(&rig.file, rig.cmds, i as u64 * 0x100, &stream);
        let base = CMD_VA + i as u64 * 0x100;
        let out = env.syncobj(&rig.file);
        let buf = compute_cmdbuf(base, base + stream.len() as u64);
        assert_eq!(
            env.submit(&rig.file, rig.queue, &buf, &[], &[binary(out)]),
            Ok(0)
        );
        env.wait(&rig.file, out, 0, Duration::from_secs(60))
            .unwrap();
        let status = rig.file.syncobj(out).unwrap().fence().unwrap().status();
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
        "oracles through SUBMIT: {ran} matched the M4, {skipped} skipped (model refuses them)"
    );
    assert!(ran >= 40, "only {ran} oracles ran");
}

#[test]
fn model_fault_fails_the_job_with_its_address() {
    init_log();
    let fixtures = Arc::new(Fixtures::default());
    let backend = Arc::new(SimBackend::with_resolver(Box::new(Resolver(
        fixtures.clone(),
    ))));
    let env = Env::with(backend, 30_000);
    let rig = env.rig();
    // A real kernel the model runs, with its buffer pointers aimed at an
    // unmapped VA.
    let files = oracle_files(&oracles_dir().join("sim")).unwrap();
    let o = files
        .iter()
        .map(|p| Oracle::load(p).unwrap())
        .find(|o| o.name.starts_with("EXP-M4") && matches!(check(o), Outcome::Pass(_)))
        .expect("an M4 kernel the model runs");
    let code = o.code().unwrap();
    env.write_bo(&rig.file, rig.usc, 0, &code);
    let bad = 0x7_0000_0000u64;
    let uniforms: Vec<u32> = (0..2 * o.buffers.len())
        .map(|i| {
            if i % 2 == 0 {
                bad as u32
            } else {
                (bad >> 32) as u32
            }
        })
        .collect();
    fixtures.0.lock().insert(USC_VA, (code.len(), uniforms));
    let cmd = env.one_launch(&rig, 0, &code, o.threads.grid[0]);
    let out = env.syncobj(&rig.file);
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    env.wait(&rig.file, out, 0, Duration::from_secs(60))
        .unwrap();
    let status = rig.file.syncobj(out).unwrap().fence().unwrap().status();
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
    // Without a launch resolver the backend says plainly what is missing.
    let env = Env::with(Arc::new(SimBackend::default()), 30_000);
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

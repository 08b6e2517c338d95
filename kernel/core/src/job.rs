//! Submitted work and the per-queue GPU thread that executes it.

use crate::backend::{ComputeContext, GpuBackend, GpuError, JobControl};
use crate::cdm;
use crate::dump::Capture;
use crate::errno::Errno;
use crate::fence::Fence;
use crate::gem::Bo;
use crate::syncobj::PointFences;
use crate::uapi::asahi::{CmdCompute, CmdRender};
use crate::vm::VmView;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub enum Command {
    Render(Box<CmdRender>),
    Compute(CmdCompute),
}

/// Where to write one timestamp (a GEM_BIND_OBJECT'ed buffer).
#[derive(Clone)]
pub struct TimestampTarget {
    pub bo: Arc<Bo>,
    pub offset: u64,
}

pub struct PreparedCommand {
    pub command: Command,
    /// start/end (compute) or vtx start/end, frag start/end (render).
    pub timestamps: [Option<TimestampTarget>; 4],
}

pub struct Job {
    pub id: u64,
    pub queue_id: u32,
    pub usc_exec_base: u64,
    pub commands: Vec<PreparedCommand>,
    pub deps: Vec<PointFences>,
    pub done: Arc<Fence>,
    pub vm: Arc<VmView>,
    pub capture: Option<Capture>,
}

/// Counters for tests and the report.
#[derive(Default)]
pub struct Stats {
    pub jobs_submitted: AtomicU64,
    pub jobs_completed: AtomicU64,
    pub jobs_failed: AtomicU64,
    pub jobs_cancelled: AtomicU64,
    pub faults: AtomicU64,
    pub timeouts: AtomicU64,
    pub launches: AtomicU64,
}

pub static LIVE_WORKERS: AtomicU64 = AtomicU64::new(0);

/// Nanoseconds of the GPU clock (1 GHz timestamps, CLOCK_MONOTONIC based).
pub fn gpu_time_ns() -> u64 {
    use std::sync::OnceLock;
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    // Start well above zero so a written timestamp is never mistaken for an
    // untouched buffer.
    1_000_000_000 + EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

pub struct Engine {
    pub backend: Arc<dyn GpuBackend>,
    pub stats: Arc<Stats>,
    pub timeout: Duration,
    /// What `timeout` is measured on (DeviceConfig::job_clock).
    pub clock: crate::backend::JobClock,
}

/// A queue's submission channel; dropping it retires the worker, which
/// cancels whatever has not started.
pub struct Worker {
    tx: Sender<Job>,
    dead: Arc<AtomicBool>,
}

impl Worker {
    pub fn spawn(engine: Arc<Engine>, name: String) -> std::io::Result<Worker> {
        let (tx, rx) = channel();
        let dead = Arc::new(AtomicBool::new(false));
        let dead2 = dead.clone();
        LIVE_WORKERS.fetch_add(1, Ordering::Relaxed);
        let spawned = std::thread::Builder::new().name(name).spawn(move || {
            run_queue(&engine, rx, &dead2);
            LIVE_WORKERS.fetch_sub(1, Ordering::Relaxed);
        });
        if let Err(e) = spawned {
            LIVE_WORKERS.fetch_sub(1, Ordering::Relaxed);
            return Err(e);
        }
        Ok(Worker { tx, dead })
    }

    pub fn push(&self, job: Job) {
        if let Err(err) = self.tx.send(job) {
            // Worker gone: fail the job rather than leave its fence pending.
            err.0.done.signal(Err(Errno::ECANCELED));
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.dead.store(true, Ordering::Release);
    }
}

fn run_queue(engine: &Engine, rx: Receiver<Job>, dead: &AtomicBool) {
    while let Ok(job) = rx.recv() {
        if !wait_deps(&job, dead) {
            engine.stats.jobs_cancelled.fetch_add(1, Ordering::Relaxed);
            job.done.signal(Err(Errno::ECANCELED));
            continue;
        }
        // A panic in a backend must fail this job, not kill the queue.
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| execute(engine, &job)))
                .unwrap_or_else(|_| {
                    log::error!(
                        "agx16: queue {} job {}: backend panicked -> job failed",
                        job.queue_id,
                        job.id
                    );
                    Err(Errno::EIO)
                });
        match &result {
            Ok(()) => engine.stats.jobs_completed.fetch_add(1, Ordering::Relaxed),
            Err(_) => engine.stats.jobs_failed.fetch_add(1, Ordering::Relaxed),
        };
        job.done.signal(result);
    }
}

/// Dependencies are waited on the GPU thread, so SUBMIT never blocks.
/// Returns false if the queue was destroyed first.
fn wait_deps(job: &Job, dead: &AtomicBool) -> bool {
    for dep in &job.deps {
        loop {
            if dep.status().is_some() {
                break;
            }
            if dead.load(Ordering::Acquire) {
                return false;
            }
            let deadline = Instant::now() + Duration::from_millis(50);
            if let Some(first) = dep.0.iter().find(|f| !f.is_signaled()) {
                first.wait(Some(deadline));
            }
        }
    }
    true
}

fn write_timestamp(target: &Option<TimestampTarget>) {
    if let Some(t) = target {
        let _ = t.bo.write(t.offset, &gpu_time_ns().to_le_bytes());
    }
}

fn execute(engine: &Engine, job: &Job) -> Result<(), Errno> {
    let result = execute_commands(engine, job);
    if let Some(report) = engine.backend.job_report() {
        log::warn!("agx16: queue {} job {}: {report}", job.queue_id, job.id);
    }
    result
}

fn execute_commands(engine: &Engine, job: &Job) -> Result<(), Errno> {
    if let Some(capture) = &job.capture {
        capture.write(job);
    }
    for (index, prepared) in job.commands.iter().enumerate() {
        // The budget is per command: the model runs a submission thousands of times slower
        // than the M4, and one of dozens of renders (a dEQP case flushes one job of 50) is
        // the unit an endless shader loop stalls.
        let ctl = JobControl::new(engine.clock, engine.timeout);
        let ts = &prepared.timestamps;
        let result = match &prepared.command {
            Command::Compute(c) => {
                write_timestamp(&ts[0]);
                let r = run_compute(engine, job, c, &ctl);
                write_timestamp(&ts[1]);
                r
            }
            Command::Render(r) => {
                write_timestamp(&ts[0]);
                let out = engine.backend.run_render(&job.vm, r, &ctl);
                write_timestamp(&ts[1]);
                write_timestamp(&ts[2]);
                write_timestamp(&ts[3]);
                out
            }
        };
        if let Err(error) = result {
            let errno = match &error {
                GpuError::Fault { .. } => {
                    engine.stats.faults.fetch_add(1, Ordering::Relaxed);
                    Errno::EIO
                }
                GpuError::Timeout { .. } => {
                    engine.stats.timeouts.fetch_add(1, Ordering::Relaxed);
                    Errno::ETIMEDOUT
                }
                GpuError::BadStream { .. } => Errno::EINVAL,
                GpuError::Model(_) | GpuError::NotImplemented(_) => Errno::EIO,
            };
            log::error!(
                "agx16: queue {} job {} command {}: {} -> job failed ({:?})",
                job.queue_id,
                job.id,
                index,
                error,
                errno
            );
            return Err(errno);
        }
    }
    Ok(())
}

fn run_compute(
    engine: &Engine,
    job: &Job,
    c: &CmdCompute,
    ctl: &JobControl,
) -> Result<(), GpuError> {
    let program = cdm::walk(&job.vm, c.cdm_ctrl_stream_base, c.cdm_ctrl_stream_end)?;
    let ctx = ComputeContext {
        usc_exec_base: job.usc_exec_base,
        sampler_heap: c.sampler_heap,
        sampler_count: c.sampler_count,
        resource: program.resource,
    };
    for launch in &program.launches {
        if ctl.expired() {
            return Err(GpuError::Timeout { pc: None });
        }
        engine.stats.launches.fetch_add(1, Ordering::Relaxed);
        engine.backend.run_compute(&job.vm, &ctx, launch, ctl)?;
    }
    Ok(())
}

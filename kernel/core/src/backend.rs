//! The contract between the driver core and whatever executes GPU work: the
//! functional model (agx16-sim, adapted in the shim) or, one day, firmware.

use crate::uapi::asahi::CmdRender;
use crate::vm::{Fault, VmView};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// One compute dispatch found while walking a CDM control stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComputeLaunch {
    /// GPU VA of the launch record in the control stream.
    pub record_va: u64,
    /// The raw record words, for backends that decode more fields.
    pub words: Vec<u32>,
    /// The record as agx16-cmdstream decodes it: launcher program address
    /// (inside the USC heap) and where the grid comes from.
    pub launch: agx16_cmdstream::cdm::Launch,
}

impl ComputeLaunch {
    pub fn pipeline(&self) -> u64 {
        self.launch.pipeline
    }
}

/// Per-command context shared by every launch of a compute command.
#[derive(Clone, Copy, Debug)]
pub struct ComputeContext {
    pub usc_exec_base: u64,
    pub sampler_heap: u64,
    pub sampler_count: u32,
    /// The per-stream resource page G16 programs into register 0x1a510.
    pub resource: u64,
}

/// Lets a long-running backend notice the watchdog.
/// A clock for job budgets: time since some fixed point.
pub type JobClock = fn() -> Duration;

/// Wall time (the default job clock).
pub fn wall_clock() -> Duration {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed()
}

pub struct JobControl {
    clock: JobClock,
    start: Duration,
    budget: Duration,
    cancelled: AtomicBool,
    /// Wall time (ns since `born`) before which `clock` is not read again: a CPU-time clock
    /// is a system call, and backends poll every few hundred instructions.
    born: Instant,
    next_read_ns: AtomicU64,
}

/// How often (wall time) `expired` reads the job clock.
const CLOCK_READ_INTERVAL: Duration = Duration::from_millis(5);

impl JobControl {
    /// A job allowed `budget` of `clock`'s time from now.
    pub fn new(clock: JobClock, budget: Duration) -> JobControl {
        JobControl {
            clock,
            start: clock(),
            budget,
            cancelled: AtomicBool::new(false),
            born: Instant::now(),
            next_read_ns: AtomicU64::new(0),
        }
    }
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
    /// Backends must call this regularly (e.g. every few hundred
    /// instructions) and stop with `GpuError::Timeout` when it is true.
    pub fn expired(&self) -> bool {
        if self.cancelled.load(Ordering::Relaxed) {
            return true;
        }
        let now = self.born.elapsed().as_nanos() as u64;
        if now < self.next_read_ns.load(Ordering::Relaxed) {
            return false;
        }
        self.next_read_ns.store(
            now + CLOCK_READ_INTERVAL.as_nanos() as u64,
            Ordering::Relaxed,
        );
        (self.clock)().saturating_sub(self.start) >= self.budget
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuError {
    /// A GPU page fault; `pc` is the shader address if known.
    Fault { fault: Fault, pc: Option<u64> },
    /// The watchdog expired.
    Timeout { pc: Option<u64> },
    /// The model met something it does not (yet) know; never a guess.
    Model(String),
    /// A whole command kind the model does not implement yet.
    NotImplemented(&'static str),
    /// The control stream itself is malformed.
    BadStream { va: u64, reason: String },
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::Fault { fault, pc } => write!(
                f,
                "GPU page fault ({:?}, {}) at VA {:#x}, pc {}",
                fault.kind,
                if fault.write { "write" } else { "read" },
                fault.va,
                pc.map_or("unknown".into(), |p| format!("{p:#x}"))
            ),
            GpuError::Timeout { pc } => write!(
                f,
                "watchdog timeout, pc {}",
                pc.map_or("unknown".into(), |p| format!("{p:#x}"))
            ),
            GpuError::Model(s) => write!(f, "model error: {s}"),
            GpuError::NotImplemented(s) => write!(f, "not implemented in the model: {s}"),
            GpuError::BadStream { va, reason } => {
                write!(f, "bad control stream at {va:#x}: {reason}")
            }
        }
    }
}

impl From<Fault> for GpuError {
    fn from(fault: Fault) -> Self {
        GpuError::Fault { fault, pc: None }
    }
}

/// Executes GPU commands against a job's VM view.
pub trait GpuBackend: Send + Sync {
    /// Run one compute dispatch to completion.
    fn run_compute(
        &self,
        vm: &VmView,
        ctx: &ComputeContext,
        launch: &ComputeLaunch,
        ctl: &JobControl,
    ) -> Result<(), GpuError>;

    /// Run one validated render command.
    fn run_render(&self, vm: &VmView, cmd: &CmdRender, ctl: &JobControl) -> Result<(), GpuError>;

    /// Called on the queue's thread after every job (its commands ran on that thread): a
    /// one-line note for the log about the job just executed (e.g. the model's inferred value
    /// rules), or `None`.
    fn job_report(&self) -> Option<String> {
        None
    }
}

/// A backend that executes nothing: every command fails with a clear
/// error. The default until a model is plugged in.
pub struct NoBackend;

impl GpuBackend for NoBackend {
    fn run_compute(
        &self,
        _: &VmView,
        _: &ComputeContext,
        _: &ComputeLaunch,
        _: &JobControl,
    ) -> Result<(), GpuError> {
        Err(GpuError::NotImplemented(
            "compute (no GPU backend attached)",
        ))
    }
    fn run_render(&self, _: &VmView, _: &CmdRender, _: &JobControl) -> Result<(), GpuError> {
        Err(GpuError::NotImplemented("render (no GPU backend attached)"))
    }
}

#[cfg(test)]
mod job_clock_tests {
    use super::*;

    static FAKE_MS: AtomicU64 = AtomicU64::new(1_000);

    fn fake_clock() -> Duration {
        Duration::from_millis(FAKE_MS.load(Ordering::Relaxed))
    }

    #[test]
    fn the_budget_runs_on_the_given_clock_not_on_wall_time() {
        let ctl = JobControl::new(fake_clock, Duration::from_millis(500));
        std::thread::sleep(Duration::from_millis(20));
        assert!(!ctl.expired(), "wall time passing alone must not expire it");
        FAKE_MS.fetch_add(499, Ordering::Relaxed);
        std::thread::sleep(CLOCK_READ_INTERVAL);
        assert!(!ctl.expired());
        FAKE_MS.fetch_add(1, Ordering::Relaxed);
        std::thread::sleep(CLOCK_READ_INTERVAL);
        assert!(ctl.expired());
        let quick = JobControl::new(fake_clock, Duration::from_millis(500));
        quick.cancel();
        assert!(quick.expired(), "a cancelled job is expired at once");
    }
}

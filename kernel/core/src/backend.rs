//! The contract between the driver core and whatever executes GPU work: the
//! functional model (agx16-sim, adapted in the shim) or, one day, firmware.

use crate::uapi::asahi::CmdRender;
use crate::vm::{Fault, VmView};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

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
pub struct JobControl {
    deadline: Instant,
    cancelled: AtomicBool,
}

impl JobControl {
    pub fn new(deadline: Instant) -> JobControl {
        JobControl {
            deadline,
            cancelled: AtomicBool::new(false),
        }
    }
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
    /// Backends must call this regularly (e.g. every few hundred
    /// instructions) and stop with `GpuError::Timeout` when it is true.
    pub fn expired(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed) || Instant::now() >= self.deadline
    }
    pub fn deadline(&self) -> Instant {
        self.deadline
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

//! `GpuBackend` on the M4 model: the kernel VM seen as the model's
//! `GpuMemory`, model errors mapped to job failures.
//!
//! A hardware compute launch enters the kernel through a G16 launcher
//! (setup) program. agx16-sim cannot execute launchers yet, so a launch is
//! only runnable through a `LaunchResolver` that says which code and
//! uniforms it stands for (tests use a fixture table). Without one, compute
//! and render fail with "not implemented in the model" errors.

use agx16_kernel::backend::{ComputeContext, ComputeLaunch, GpuBackend, GpuError, JobControl};
use agx16_kernel::uapi::asahi::CmdRender;
use agx16_kernel::vm::{Fault, FaultKind};
use agx16_kernel::VmView;
use agx16_sim::mem::{Access, Fault as SimFault, FaultKind as SimFaultKind, GpuMemory};
use agx16_sim::SimError;

/// The job's VM as the model reads and writes it.
pub struct SimMemory<'a>(pub &'a VmView);

fn to_sim(f: Fault, len: usize) -> SimFault {
    let access = if f.write { Access::Write } else { Access::Read };
    let kind = match f.kind {
        FaultKind::Unmapped => SimFaultKind::Unmapped,
        FaultKind::Permission => SimFaultKind::Permission,
    };
    SimFault::new(f.va, len, access, kind)
}

impl GpuMemory for SimMemory<'_> {
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), SimFault> {
        self.0.read(va, out).map_err(|f| to_sim(f, out.len()))
    }
    fn write(&self, va: u64, data: &[u8]) -> Result<(), SimFault> {
        self.0.write(va, data).map_err(|f| to_sim(f, data.len()))
    }
}

/// Model errors become job failures that name what and where.
pub fn to_gpu_error(e: SimError) -> GpuError {
    match e {
        SimError::Fault(f) => GpuError::Fault {
            fault: Fault {
                va: f.addr,
                write: f.access == Access::Write,
                kind: match f.kind {
                    SimFaultKind::Permission => FaultKind::Permission,
                    _ => FaultKind::Unmapped,
                },
            },
            pc: f.pc.map(u64::from),
        },
        SimError::Budget { pc, .. } => GpuError::Timeout {
            pc: Some(u64::from(pc)),
        },
        other => GpuError::Model(other.to_string()),
    }
}

/// Stands in for launcher execution until the model can run launchers.
pub trait LaunchResolver: Send + Sync {
    fn resolve(
        &self,
        vm: &VmView,
        ctx: &ComputeContext,
        launch: &ComputeLaunch,
    ) -> Result<agx16_sim::ComputeLaunch, GpuError>;
}

#[derive(Default)]
pub struct SimBackend {
    resolver: Option<Box<dyn LaunchResolver>>,
}

impl SimBackend {
    pub fn with_resolver(resolver: Box<dyn LaunchResolver>) -> SimBackend {
        SimBackend {
            resolver: Some(resolver),
        }
    }
}

impl GpuBackend for SimBackend {
    fn run_compute(
        &self,
        vm: &VmView,
        ctx: &ComputeContext,
        launch: &ComputeLaunch,
        ctl: &JobControl,
    ) -> Result<(), GpuError> {
        let Some(resolver) = &self.resolver else {
            return Err(GpuError::NotImplemented(
                "compute: agx16-sim cannot execute G16 launcher (setup) programs yet",
            ));
        };
        if ctl.expired() {
            return Err(GpuError::Timeout { pc: None });
        }
        let model_launch = resolver.resolve(vm, ctx, launch)?;
        agx16_sim::run_compute(&SimMemory(vm), &model_launch)
            .map(|_| ())
            .map_err(to_gpu_error)
    }

    fn run_render(&self, _: &VmView, _: &CmdRender, _: &JobControl) -> Result<(), GpuError> {
        Err(GpuError::NotImplemented(
            "render: agx16-sim has no tiling/rasterisation entry yet",
        ))
    }
}

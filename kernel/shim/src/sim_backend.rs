//! `GpuBackend` on the M4 model: the kernel VM seen as the model's
//! `GpuMemory`, model errors mapped to job failures.
//!
//! A compute launch runs the way the M4 enters a kernel: the model executes
//! the launch record's launcher (setup) program from the USC heap, follows
//! its stage target through the entry arena to the body and runs the body
//! over the grid (`agx16_sim::run_cdm_launch_cancellable`). The job's
//! watchdog is polled inside the dispatch, so an endless shader loop fails
//! the job with a timeout at its deadline. A render command runs on the model's
//! tiler/rasteriser (`agx16_sim::gfx`), which refuses by name what it does not establish.

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

/// Instruction budget of one launch: a backstop behind the watchdog (which the
/// model polls every few thousand instructions), not the primary bound.
pub const LAUNCH_BUDGET: u64 = agx16_sim::ComputeLaunch::DEFAULT_BUDGET;

#[derive(Default)]
pub struct SimBackend;

impl GpuBackend for SimBackend {
    fn run_compute(
        &self,
        vm: &VmView,
        ctx: &ComputeContext,
        launch: &ComputeLaunch,
        ctl: &JobControl,
    ) -> Result<(), GpuError> {
        if ctl.expired() {
            return Err(GpuError::Timeout { pc: None });
        }
        agx16_sim::run_cdm_launch_cancellable(
            &SimMemory(vm),
            &launch.launch,
            ctx.usc_exec_base,
            LAUNCH_BUDGET,
            &|| ctl.expired(),
        )
        .map(|_| ())
        .map_err(to_gpu_error)
    }

    fn run_render(&self, vm: &VmView, cmd: &CmdRender, ctl: &JobControl) -> Result<(), GpuError> {
        if ctl.expired() {
            return Err(GpuError::Timeout { pc: None });
        }
        // The model re-reads the UAPI record through agx16-cmdstream's table.
        let cmd = agx16_sim::gfx::RenderCommand::from_bytes(bytemuck::bytes_of(cmd))
            .map_err(to_gpu_error)?;
        // Tiles run on the model's worker threads (AGX16_SIM_THREADS), same result as serial.
        agx16_sim::gfx::run_render_isa_parallel(&SimMemory(vm), &cmd, &|| ctl.expired())
            .map(|_| ())
            .map_err(to_gpu_error)
    }
}

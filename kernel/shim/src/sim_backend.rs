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
    fn read_lanes(
        &self,
        addrs: &[u64; 32],
        mask: u32,
        size: usize,
        out: &mut [u32; 32],
    ) -> Result<(), SimFault> {
        self.0
            .read_lanes(addrs, mask, size, out)
            .map_err(|f| to_sim(f, size))
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
            .map(|s| {
                if std::env::var_os("TMP_STATS").is_some() {
                    eprintln!(
                        "TMPSTATS {} {}x{} {s:?}",
                        cmd.raw.flags.0, cmd.width, cmd.height
                    )
                }
            })
            .map_err(to_gpu_error)
    }

    /// The model's inferred value rules the job used (`agx16_sim::value_rules`, counted on this
    /// queue thread), as one line when any fired and `AGX16_SIM_RULES=1` (or
    /// `AGX16_SHIM_DEBUG`) asks for it. The counts are reset after every job either way.
    fn job_report(&self) -> Option<String> {
        report(agx16_sim::value_rules::take(), report_rules())
    }
}

/// The log line for a job's value-rule counts: the inferred rules it used, when asked for.
fn report(used: agx16_sim::value_rules::Counts, on: bool) -> Option<String> {
    on.then(|| used.summary()).flatten()
}

fn report_rules() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        // (the shim's debug switch read here too: tests include this file on its own)
        ["AGX16_SIM_RULES", "AGX16_SHIM_DEBUG"]
            .iter()
            .any(|k| std::env::var_os(k).is_some_and(|v| v != "0"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agx16_sim::value_rules::{self, Rule};

    #[test]
    fn a_job_report_names_the_inferred_rules_and_resets_the_counts() {
        value_rules::with_strict(false, || {
            value_rules::take();
            value_rules::apply(Rule::F2iNan, 3, None).unwrap();
            value_rules::apply(Rule::FetchOutsideLevel, 1, None).unwrap();
            let line = report(value_rules::take(), true).unwrap();
            assert!(
                line.contains("f2i_nan x3") && line.contains("fetch_outside_level x1"),
                "{line}"
            );
            assert_eq!(report(value_rules::take(), true), None);
            value_rules::apply(Rule::F2iNan, 1, None).unwrap();
            assert_eq!(report(value_rules::take(), false), None);
        });
    }
}

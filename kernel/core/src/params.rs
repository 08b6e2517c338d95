//! The M4's `drm_asahi_params_global` and the G16 address-space constants.
//!
//! Each value cites its source. "g16_drm" = GravityLinux/linux:
//! drivers/gpu/drm/asahi/g16_drm.rs (`get_params`, `vm_create`, `submit`),
//! "g16_platform" = .../g16_platform.rs. Values in g16_drm were measured to
//! work on a real M4 by that driver's authors; we read them from its source.

use crate::uapi::asahi::{ParamsGlobal, MAX_CLUSTERS};

/// 16 KiB GPU pages (g16_drm: every bind checks `& 0x3fff`).
pub const PAGE_SIZE: u64 = 0x4000;
pub const PAGE_MASK: u64 = PAGE_SIZE - 1;
/// First usable VA (g16_drm get_params `vm_start`).
pub const VM_START: u64 = 0x4000;
/// End of the user VA window: 42-bit space minus two pages (g16_drm `VM_END`).
pub const VM_END: u64 = (1 << 42) - 0x8000;
/// Minimum kernel VA carve-out (g16_drm `vm_kernel_min_size`).
pub const VM_KERNEL_MIN_SIZE: u64 = 0x2000_0000;
/// Per-submission command limit (g16_drm get_params and submit's `== 64`).
pub const MAX_COMMANDS_PER_SUBMISSION: u32 = 64;
/// Attachments per command (g16_drm get_params; submit rejects > 16).
pub const MAX_ATTACHMENTS: u32 = 16;
/// Timestamps tick in nanoseconds (g16_drm get_params, get_time).
pub const TIMESTAMP_FREQUENCY_HZ: u64 = 1_000_000_000;
/// USC (shader) heap base every queue must use (g16_drm queue_create).
pub const USC_EXEC_BASE: u64 = 1 << 40;

/// Host-tunable parts of the parameters; the rest are fixed for the M4.
#[derive(Clone, Copy, Debug)]
pub struct DeviceConfig {
    /// Enabled-core mask of cluster 0. The real driver reads it from the
    /// device tree (`apple,m4-core-mask`, must be non-zero within 0x3ff:
    /// g16_platform). 0x3ff = all ten cores, inferred for a full M4.
    pub core_mask: u64,
    /// Maximum GPU clock. The real driver derives it from the device tree's
    /// frequency ladder (g16_platform); no public M4 value exists, so the
    /// default is 0 ("unknown") rather than an invented number.
    pub max_frequency_khz: u32,
    /// Bytes of BO memory the device will hand out before ENOMEM.
    pub memory_limit: u64,
    /// Watchdog bound on the run time of each command of a submission, measured on
    /// `job_clock` (g16_drm's scheduler bounds a whole job by 30000 ms on a GPU thousands
    /// of times faster than the model).
    pub job_timeout_ms: u64,
    /// The clock the watchdog measures a job on (default: wall time).
    pub job_clock: crate::backend::JobClock,
}

impl Default for DeviceConfig {
    fn default() -> Self {
        DeviceConfig {
            core_mask: 0x3ff,
            max_frequency_khz: 0,
            memory_limit: 16 << 30,
            job_timeout_ms: 30_000,
            job_clock: crate::backend::wall_clock,
        }
    }
}

pub fn params_global(config: &DeviceConfig) -> ParamsGlobal {
    let mut core_masks = [0u64; MAX_CLUSTERS];
    core_masks[0] = config.core_mask;
    ParamsGlobal {
        // No soft faults on G16 (g16_drm: features 0).
        features: 0,
        gpu_generation: 16,
        gpu_variant: b'G' as u32,
        gpu_revision: 0,
        chip_id: 0x8132,
        num_dies: 1,
        num_clusters_total: 1,
        num_cores_per_cluster: 10,
        max_frequency_khz: config.max_frequency_khz,
        core_masks,
        vm_start: VM_START,
        vm_end: VM_END,
        vm_kernel_min_size: VM_KERNEL_MIN_SIZE,
        max_commands_per_submission: MAX_COMMANDS_PER_SUBMISSION,
        max_attachments: MAX_ATTACHMENTS,
        command_timestamp_frequency_hz: TIMESTAMP_FREQUENCY_HZ,
    }
}

//! The one fake M4 of this process, created on first open of the node.
//!
//! Environment:
//! - `AGX16_DUMP=DIR`: capture every submission into DIR (see agx16-kernel
//!   `dump`).
//! - `AGX16_JOB_TIMEOUT_MS`: watchdog bound per command of a submission, in process CPU time
//!   (default 30000).
//! - `AGX16_SHIM_DEBUG=1`: log opens and ioctl errors to stderr.

use crate::arena::ArenaAllocator;
use crate::sim_backend::SimBackend;
use agx16_kernel::backing::{Backing, BackingAllocator};
use agx16_kernel::params::DeviceConfig;
use agx16_kernel::KResult;
use agx16_kernel::{Device, GpuBackend};
use std::sync::{Arc, OnceLock};

pub fn debug() -> bool {
    static DEBUG: OnceLock<bool> = OnceLock::new();
    *DEBUG.get_or_init(|| std::env::var_os("AGX16_SHIM_DEBUG").is_some_and(|v| v != "0"))
}

fn backend() -> Arc<dyn GpuBackend> {
    Arc::new(SimBackend)
}

pub fn device() -> &'static Arc<Device> {
    static DEVICE: OnceLock<Arc<Device>> = OnceLock::new();
    DEVICE.get_or_init(|| {
        crate::log::init();
        let mut config = DeviceConfig {
            job_clock: agx16_sim::gfx::watchdog::process_cpu_time,
            ..DeviceConfig::default()
        };
        if let Some(ms) = std::env::var("AGX16_JOB_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            config.job_timeout_ms = ms;
        }
        let dump = std::env::var_os("AGX16_DUMP").map(std::path::PathBuf::from);
        Device::new(config, Box::new(SharedArenas), backend(), dump)
    })
}

/// The arenas behind every GEM object of this process.
pub fn arenas() -> &'static ArenaAllocator {
    static ARENAS: OnceLock<ArenaAllocator> = OnceLock::new();
    ARENAS.get_or_init(ArenaAllocator::default)
}

/// The device's allocator: the process-wide arenas.
struct SharedArenas;

impl BackingAllocator for SharedArenas {
    fn allocate(&self, size: u64) -> KResult<Box<dyn Backing>> {
        arenas().allocate(size)
    }
}

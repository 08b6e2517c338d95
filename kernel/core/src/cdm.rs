//! Walks a CDM (compute) control stream on the CPU, as the G16 kernel does
//! before handing a compute command to firmware, and collects its launches.
//!
//! Block formats come from `agx16-cmdstream` (the one table per format);
//! this module adds only the kernel's rules: the walk stays inside the
//! first contiguous segment [base, end), the terminate is the last word of
//! it, launch programs lie in the USC heap and share one resource page.
//! Source of the rules: GravityLinux/linux drivers/gpu/drm/asahi/g16_cdm.rs
//! (read from its source; that driver runs on a real M4).

use crate::backend::{ComputeLaunch, GpuError};
use crate::params::USC_EXEC_BASE;
use crate::vm::VmView;
use agx16_cmdstream::cdm::{self, CdmBlock, Grid};
use agx16_cmdstream::stream::{GpuRead, WalkLimits};

/// The USC aperture: 4 GiB from the USC base.
const USC_SIZE: u64 = 1 << 32;

/// Everything a compute command will do, found before anything runs.
#[derive(Debug)]
pub struct CdmProgram {
    pub launches: Vec<ComputeLaunch>,
    /// Shared resource page of all launches: (pipeline & !0x7fff) + 0x50000
    /// (g16_cdm; G16 programs it into register 0x1a510).
    pub resource: u64,
}

/// Only readable mappings can hold a control stream.
struct StreamMemory<'a>(&'a VmView);

impl GpuRead for StreamMemory<'_> {
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), String> {
        self.0.read(va, out).map_err(|f| format!("{f:?}"))
    }
}

fn bad(va: u64, reason: impl Into<String>) -> GpuError {
    GpuError::BadStream {
        va,
        reason: reason.into(),
    }
}

fn in_usc(va: u64) -> bool {
    (USC_EXEC_BASE..USC_EXEC_BASE + USC_SIZE).contains(&va)
}

pub fn walk(vm: &VmView, base: u64, end: u64) -> Result<CdmProgram, GpuError> {
    if base >= end || (base | end) & 3 != 0 {
        return Err(bad(base, "stream bounds not word aligned or empty"));
    }
    // g16_cdm: 4096-block budget, 32-deep call stack (WalkLimits default).
    let items = cdm::walk(&StreamMemory(vm), base, WalkLimits::default())
        .map_err(|e| bad(e.at, e.kind.to_string()))?;
    let mut launches = Vec::new();
    let mut resource = None;
    for item in &items {
        let next = item.at + item.size as u64;
        if item.at < base || next > end {
            return Err(bad(item.at, "control flow left the stream's first segment"));
        }
        if matches!(item.block, CdmBlock::Terminate(_)) && next != end {
            return Err(bad(item.at, "terminate before the stream end"));
        }
        let Some(launch) = item.block.launch() else {
            continue;
        };
        let pipeline = launch.pipeline;
        if !in_usc(pipeline) {
            return Err(bad(item.at, "launch program outside the USC heap"));
        }
        let res = (pipeline & !0x7fff) + 0x50000;
        if !in_usc(res) {
            return Err(bad(item.at, "resource page outside the USC heap"));
        }
        if resource.is_some_and(|r| r != res) {
            return Err(bad(item.at, "launches use different resource pages"));
        }
        resource = Some(res);
        // Indirect grids must be readable (3 words, or 6 with local size).
        match launch.grid {
            Grid::Direct { .. } => {}
            Grid::IndirectGlobal { pointer, .. } => vm.check(pointer, 12, false)?,
            Grid::IndirectLocal { pointer } => vm.check(pointer, 24, false)?,
        }
        let mut words = vec![0u8; item.size];
        vm.read(item.at, &mut words)?;
        launches.push(ComputeLaunch {
            record_va: item.at,
            words: words
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
            launch,
        });
    }
    let at = items.last().map_or(base, |i| i.at);
    let resource = resource.ok_or_else(|| bad(at, "stream has no launch"))?;
    vm.check(resource, 0x4000, false)?;
    Ok(CdmProgram { launches, resource })
}

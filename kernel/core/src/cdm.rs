//! Walks a CDM (compute) control stream on the CPU, as the G16 kernel does
//! before handing a compute command to firmware.
//!
//! SWITCH-OVER: the block formats below are decoded here only until
//! `agx16-cmdstream` exposes its declarative CDM unpack API; then this
//! module must call it instead (interfaces.md: one table per format).
//!
//! Facts: GravityLinux/linux drivers/gpu/drm/asahi/g16_cdm.rs (walker rules,
//! block sizes, budget, stack depth, resource selection), agreeing with
//! GravityLinux/mesa src/gallium/drivers/asahi/agx_apple9.c (launch record
//! layout); both used on a real M4.

use crate::backend::{ComputeLaunch, GpuError};
use crate::params::USC_EXEC_BASE;
use crate::vm::VmView;

/// Block kind in bits 31:29 of the first word.
const KIND_LAUNCH: u32 = 0;
const KIND_LINK: u32 = 1;
const KIND_TERMINATE: u32 = 2;
const KIND_BARRIER: u32 = 3;
const KIND_RETURN: u32 = 4;
/// Link bit 28: call (push the return address).
const LINK_CALL: u32 = 1 << 28;
/// Launch word 3 bit 30 must be set (g16_cdm).
const LAUNCH_ADDR_VALID: u32 = 1 << 30;
/// Blocks walked before the stream is declared endless (g16_cdm).
const BLOCK_BUDGET: usize = 4096;
const STACK_DEPTH: usize = 32;
/// The USC aperture: 4 GiB from the USC base.
const USC_SIZE: u64 = 1 << 32;

/// Everything a compute command will do, found before anything runs.
#[derive(Debug)]
pub struct CdmProgram {
    pub launches: Vec<ComputeLaunch>,
    /// Shared resource page of all launches: (pipeline & !0x7fff) + 0x50000.
    pub resource: u64,
}

fn bad(va: u64, reason: impl Into<String>) -> GpuError {
    GpuError::BadStream {
        va,
        reason: reason.into(),
    }
}

fn launch_size(mode: u32) -> Option<u64> {
    match mode {
        0 => Some(0x28),
        1 => Some(0x24),
        2 => Some(0x18),
        _ => None,
    }
}

pub fn walk(vm: &VmView, base: u64, end: u64) -> Result<CdmProgram, GpuError> {
    if base >= end || (base | end) & 3 != 0 {
        return Err(bad(base, "stream bounds not word aligned or empty"));
    }
    let mut cursor = base;
    let mut stack = Vec::with_capacity(STACK_DEPTH);
    let mut launches = Vec::new();
    let mut resource = None;
    for _ in 0..BLOCK_BUDGET {
        // g16_cdm keeps the walk inside the first contiguous segment.
        if cursor < base || cursor.checked_add(4).is_none_or(|e| e > end) {
            return Err(bad(cursor, "control flow left the stream"));
        }
        let header = vm.read_u32(cursor)?;
        let kind = header >> 29;
        let mode = (header >> 27) & 3;
        let size = match kind {
            KIND_LAUNCH => launch_size(mode).ok_or_else(|| bad(cursor, "launch mode 3"))?,
            KIND_LINK => 8,
            KIND_TERMINATE | KIND_BARRIER | KIND_RETURN => 4,
            _ => return Err(bad(cursor, format!("unknown block kind {kind}"))),
        };
        let next = cursor + size;
        if next > end {
            return Err(bad(cursor, "block runs past the stream end"));
        }
        let mut bytes = vec![0u8; size as usize];
        vm.read(cursor, &mut bytes)?;
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4-byte chunk")))
            .collect();
        match kind {
            KIND_LAUNCH => {
                let launch = decode_launch(cursor, mode as u8, words)?;
                let res = (launch.pipeline & !0x7fff) + 0x50000;
                if !(USC_EXEC_BASE..USC_EXEC_BASE + USC_SIZE).contains(&res) {
                    return Err(bad(cursor, "resource page outside the USC heap"));
                }
                if resource.is_some_and(|r| r != res) {
                    // G16 programs one resource register per command.
                    return Err(bad(cursor, "launches use different resource pages"));
                }
                resource = Some(res);
                if let Some(ptr) = launch.indirect {
                    let len = if mode == 2 { 24 } else { 12 };
                    vm.check(ptr, len, false)?;
                }
                launches.push(launch);
                cursor = next;
            }
            KIND_LINK => {
                if header & LINK_CALL != 0 {
                    if stack.len() == STACK_DEPTH {
                        return Err(bad(cursor, "call stack overflow"));
                    }
                    stack.push(next);
                }
                cursor = (u64::from(header & 0xff) << 32) | u64::from(words[1]);
            }
            KIND_TERMINATE => {
                if !stack.is_empty() || next != end {
                    return Err(bad(cursor, "terminate inside a call or before the end"));
                }
                let resource = resource.ok_or_else(|| bad(cursor, "stream has no launch"))?;
                vm.check(resource, 0x4000, false)?;
                return Ok(CdmProgram { launches, resource });
            }
            KIND_BARRIER => cursor = next,
            _ => {
                cursor = stack
                    .pop()
                    .ok_or_else(|| bad(cursor, "return with empty call stack"))?
            }
        }
    }
    Err(bad(cursor, "block budget exhausted (endless stream)"))
}

fn decode_launch(va: u64, mode: u8, words: Vec<u32>) -> Result<ComputeLaunch, GpuError> {
    if words[3] & LAUNCH_ADDR_VALID == 0 {
        return Err(bad(va, "launch address word lacks bit 30"));
    }
    let pipeline = (u64::from(words[3] & 0xff) << 40) | (u64::from(words[2]) << 6);
    if !(USC_EXEC_BASE..USC_EXEC_BASE + USC_SIZE).contains(&pipeline) {
        return Err(bad(va, "launch target outside the USC heap"));
    }
    let (global_size, local_size, indirect) = match mode {
        0 => (
            [words[4], words[5], words[6]],
            [words[7], words[8], words[9]],
            None,
        ),
        1 => (
            [0; 3],
            [words[6], words[7], words[8]],
            Some((u64::from(words[4]) << 32) | u64::from(words[5])),
        ),
        _ => (
            [0; 3],
            [0; 3],
            Some((u64::from(words[4]) << 32) | u64::from(words[5])),
        ),
    };
    Ok(ComputeLaunch {
        record_va: va,
        words,
        mode,
        pipeline,
        global_size,
        local_size,
        indirect,
    })
}

//! Compute dispatch: a kernel over a grid of threads, split into threadgroups
//! and SIMD-groups of 32 lanes, the way a launcher sets it up.

use crate::core::exec::{run, Ctx, Yield};
use crate::core::state::{SimdGroup, ThreadIds};
use crate::core::LANES;
use crate::error::SimError;
use crate::mem::GpuMemory;
use crate::program::Program;
use crate::trace::Trace;
use std::sync::Arc;

/// Threadgroup memory per threadgroup on M4 (32 KiB; shared notes cite
/// ADevWithAnIdea/agx-re docs/m4-deltas.md, measured limit of Metal on M4).
pub const MAX_TG_MEMORY: u32 = 32 * 1024;
/// Threads per threadgroup (Metal limit on M4, same source).
pub const MAX_TG_THREADS: u32 = 1024;

/// Where the kernel's machine code comes from.
#[derive(Clone)]
pub enum Code {
    /// Already decoded (reuse across launches).
    Program(Arc<Program>),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// `len` bytes at GPU VA `va`, read through the launch's memory.
    Va { va: u64, len: usize },
}

/// One compute launch.
#[derive(Clone)]
pub struct ComputeLaunch {
    pub code: Code,
    /// Uniform registers (32-bit each). Buffer base slot n is the 64-bit
    /// address in uniforms 2n (low) and 2n+1 (high).
    pub uniforms: Vec<u32>,
    /// Grid size in threads (`dispatchThreads` semantics: partial threadgroups at the edges).
    pub grid: [u32; 3],
    pub threadgroup: [u32; 3],
    /// Bytes of threadgroup memory (≤ 32 KiB).
    pub tg_memory: u32,
    /// Upper bound on executed instructions (all SIMD-groups), against endless loops.
    pub budget: u64,
}

impl ComputeLaunch {
    pub const DEFAULT_BUDGET: u64 = 1 << 32;
}

/// What a dispatch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub threadgroups: u64,
    pub simdgroups: u64,
    pub instructions: u64,
    pub lane_instructions: u64,
}

/// Runs a compute launch to completion against `mem`.
pub fn run_compute(mem: &dyn GpuMemory, launch: &ComputeLaunch) -> Result<Stats, SimError> {
    let prog = match &launch.code {
        Code::Program(p) => p.clone(),
        Code::Bytes(b) => Arc::new(Program::new(b)),
        Code::Va { va, len } => {
            let mut b = vec![0u8; *len];
            mem.read(*va, &mut b)?;
            Arc::new(Program::new(&b))
        }
    };
    let needed = prog.uniforms_needed();
    if launch.uniforms.len() < needed {
        return Err(SimError::Launch(format!(
            "the program reads {needed} uniform registers, the launch provides {}",
            launch.uniforms.len()
        )));
    }
    let tg = launch.threadgroup;
    let tg_threads = tg.iter().map(|&d| d as u64).product::<u64>();
    if tg_threads == 0 || tg_threads > MAX_TG_THREADS as u64 {
        return Err(SimError::Launch(format!(
            "threadgroup {tg:?} must hold 1..={MAX_TG_THREADS} threads"
        )));
    }
    if launch.tg_memory > MAX_TG_MEMORY {
        return Err(SimError::Launch(format!(
            "{} bytes of threadgroup memory > 32 KiB",
            launch.tg_memory
        )));
    }
    let groups: [u32; 3] = std::array::from_fn(|d| launch.grid[d].div_ceil(tg[d]));
    let trace = Trace::from_env();
    let mut ctx = Ctx {
        prog: &prog,
        mem,
        uniforms: &launch.uniforms,
        trace: trace.as_ref(),
        budget: launch.budget,
        instructions: 0,
        lane_instructions: 0,
    };
    let mut stats = Stats::default();
    let mut simd_counter = 0u32;
    let mut pool: Vec<SimdGroup> = Vec::new();
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                let n = simdgroups_of(launch, [gx, gy, gz], &mut pool);
                stats.threadgroups += 1;
                stats.simdgroups += n as u64;
                run_threadgroup(&mut pool[..n], &mut ctx, &mut simd_counter)?;
            }
        }
    }
    stats.instructions = ctx.instructions;
    stats.lane_instructions = ctx.lane_instructions;
    Ok(stats)
}

/// Sets up the SIMD-groups of threadgroup `tgid` in `pool` (reusing its
/// allocations) and returns how many there are: threads in x-fastest linear
/// order, 32 per SIMD-group; threads outside the grid are lanes that never run.
fn simdgroups_of(launch: &ComputeLaunch, tgid: [u32; 3], pool: &mut Vec<SimdGroup>) -> usize {
    let tg = launch.threadgroup;
    let n = tg[0] * tg[1] * tg[2];
    let count = n.div_ceil(LANES as u32) as usize;
    for s in 0..count as u32 {
        let ids = ThreadIds {
            tg: tgid,
            tg_size: tg,
            simd_index: s,
        };
        let mut live = 0u32;
        for l in 0..LANES as u32 {
            if s * LANES as u32 + l >= n {
                break;
            }
            let p = ids.local(l);
            let inside =
                |d: usize| tgid[d] as u64 * tg[d] as u64 + (p[d] as u64) < launch.grid[d] as u64;
            if (0..3).all(inside) {
                live |= 1 << l;
            }
        }
        match pool.get_mut(s as usize) {
            Some(sg) => sg.reset(live, ids),
            None => pool.push(SimdGroup::new(live, ids)),
        }
    }
    count
}

/// Runs the SIMD-groups of one threadgroup, meeting at barriers.
fn run_threadgroup(
    sgs: &mut [SimdGroup],
    ctx: &mut Ctx,
    counter: &mut u32,
) -> Result<(), SimError> {
    let first = *counter;
    *counter += sgs.len() as u32;
    loop {
        let mut waiting = 0;
        for (i, sg) in sgs.iter_mut().enumerate() {
            if sg.done {
                continue;
            }
            if let Some(t) = ctx.trace {
                t.set_group(first + i as u32);
            }
            if run(sg, ctx)? == Yield::Barrier {
                waiting += 1;
            }
        }
        if waiting == 0 {
            return Ok(());
        }
    }
}

//! Register allocation on SSA: spill to fit the budget, then assign registers in dominance order
//! (SSA interference is chordal, so pressure ≤ budget suffices up to alignment and reach), then
//! lower phis to parallel copies.

pub mod assign;
pub mod liveness;
pub mod parallel_copy;
pub mod pressure;
pub mod regfile;
pub mod spill;

use crate::error::CompileError;
use crate::ir::Function;
use crate::mir::MProgram;
use crate::target::RegTarget;

#[derive(Clone, Copy, Debug)]
pub struct RaOptions {
    /// GPRs the allocator may use (at most the file size); lower it to force spilling.
    pub gprs: u32,
}

/// Allocate registers, spilling if needed. Retries with a smaller spill target when alignment
/// fragmentation leaves no aligned tuple although the pressure fits.
pub fn allocate(
    f: &Function,
    target: &dyn RegTarget,
    opts: RaOptions,
) -> Result<MProgram, CompileError> {
    let budget = opts.gprs.min(target.gprs()) * 2;
    let mut last_err = None;
    let mut spill_target = budget;
    for prefer_high in [false, true] {
        while spill_target >= 8 {
            let mut g = f.clone();
            let stats = spill::spill_to_fit(&mut g, spill_target, 0)?;
            match assign::assign(&g, target, budget as u16, prefer_high) {
                Ok(mut p) => {
                    p.stats.spills = stats.spills;
                    p.stats.fills = stats.fills;
                    p.scratch_slots = stats.slots;
                    return Ok(p);
                }
                Err(e @ CompileError::RegAlloc { .. }) => {
                    if std::env::var_os("AGX16_RA_DEBUG").is_some() {
                        eprintln!("assign at spill target {spill_target}: {e}");
                    }
                    last_err.get_or_insert(e);
                    spill_target -= 4;
                }
                Err(e) => return Err(e),
            }
        }
        spill_target = budget;
    }
    Err(last_err.unwrap_or_else(|| CompileError::Internal("register budget too small".into())))
}

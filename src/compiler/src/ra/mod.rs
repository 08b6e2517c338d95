//! Register allocation on SSA: spill to fit the budget, then assign registers in dominance order
//! (SSA interference is chordal, so pressure ≤ budget suffices up to alignment and reach), then
//! lower phis to parallel copies.

pub mod assign;
pub mod liveness;
pub mod parallel_copy;
pub mod pressure;
pub mod regfile;
pub mod scratch;
pub mod spill;
pub mod split;

use crate::error::CompileError;
use crate::ir::Function;
use crate::mir::MProgram;
use crate::target::RegTarget;

#[derive(Clone, Copy, Debug)]
pub struct RaOptions {
    /// GPRs the allocator may use (at most the file size); lower it to force spilling.
    pub gprs: u32,
}

/// Allocate registers, spilling if needed. Spills more (a smaller spill target, continuing from
/// the spilled program) when alignment fragmentation or reach leaves no register although the
/// pressure fits.
pub fn allocate(
    f: &Function,
    target: &dyn RegTarget,
    opts: RaOptions,
) -> Result<MProgram, CompileError> {
    let budget = opts.gprs.min(target.gprs()) * 2;
    let mut last_err = None;
    // The unsplit program spilled to the budget, when it needs spilling (the first step below).
    let mut spilled = None;
    // A program whose pressure fits the budget must not spill because of per-form reach
    // (`split`). Without spilling: as is, then with long live ranges of r0–r15-only destinations moved
    // up, then also those of r0–r63-only destinations (device loads: a program reading more
    // than 64 loaded words at once).
    for split_below in [None, Some(16), Some(64)] {
        let mut g = f.clone();
        if let Some(reach) = split_below {
            if split::split_low_defs(&mut g, target, reach) == 0 {
                continue;
            }
        }
        let stats = spill::spill_to_fit(&mut g, budget, 0, target.spill_32bit_only())?;
        if stats.spills != 0 {
            if split_below.is_none() {
                spilled = Some((g, stats));
            }
            break;
        }
        match assign::assign(&g, target, budget as u16, false) {
            Ok(mut p) => {
                p.scratch_words = scratch::lower_to_words(&mut p)?;
                return Ok(p);
            }
            Err(e @ CompileError::RegAlloc { .. }) => {
                last_err.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    // Spill to fit, then assign; when assignment fails although the pressure fits (alignment,
    // per-form reach), try the other placement, then spill more: the next target continues
    // from the program already spilled (its spills and reloads stay; only new values are
    // chosen), so each step costs one spilling round or a few, not a compile from scratch.
    let (mut g, mut stats) = spilled.unwrap_or_else(|| (f.clone(), spill::SpillStats::default()));
    let mut spill_target = budget;
    while spill_target >= 8 {
        // At the budget, the program spilled above already fits (spilling it again adds nothing).
        let more =
            spill::spill_to_fit(&mut g, spill_target, stats.slots, target.spill_32bit_only())?;
        stats.spills += more.spills;
        stats.fills += more.fills;
        stats.slots = more.slots;
        for prefer_high in [false, true] {
            match assign::assign(&g, target, budget as u16, prefer_high) {
                Ok(mut p) => {
                    p.stats.spills = stats.spills;
                    p.stats.fills = stats.fills;
                    p.scratch_words = scratch::lower_to_words(&mut p)?;
                    return Ok(p);
                }
                Err(e @ CompileError::RegAlloc { .. }) => {
                    if std::env::var_os("AGX16_RA_DEBUG").is_some() {
                        eprintln!("assign at spill target {spill_target} (prefer_high {prefer_high}): {e}");
                    }
                    last_err.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        spill_target -= 4;
    }
    Err(last_err.unwrap_or_else(|| CompileError::Internal("register budget too small".into())))
}

/// The highest register pressure (in 32-bit GPRs, rounded up) the allocator sees for `f` on
/// `target`: after the pipeline's optimisation and (with `schedule`) list scheduling, before
/// any spilling. The allocator spills only where this exceeds its budget, up to retries for
/// alignment and per-form reach.
pub fn peak_pressure_gprs(
    f: &Function,
    target: &dyn crate::target::Target,
    schedule: bool,
) -> Result<u32, CompileError> {
    crate::ir::validate::validate(f)?;
    let mut g = f.clone();
    crate::opt::optimize(&mut g, target);
    if schedule {
        crate::sched::list::run(&mut g);
    }
    let cfg = crate::ir::Cfg::build(&g);
    let lv = liveness::Liveness::compute(&g, &cfg);
    let peak = pressure::scan(&g, &lv)
        .iter()
        .map(|p| p.pressure)
        .max()
        .unwrap_or(0);
    Ok(peak.div_ceil(2))
}

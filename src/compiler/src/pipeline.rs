//! The backend pipeline from SSA IR to scheduled, register-allocated MIR.

use crate::error::CompileError;
use crate::ir::{validate::validate, Function};
use crate::mir::{MItem, MProgram};
use crate::ra::{self, RaOptions};
use crate::sched;
use crate::target::{RegTarget, Target};

#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Register budget in GPRs (96 on G16; lower to force spilling in tests).
    pub gprs: u32,
    /// Run the list scheduler.
    pub schedule: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            gprs: 96,
            schedule: true,
        }
    }
}

pub fn compile_to_mir(
    f: &Function,
    target: &dyn Target,
    regs: &dyn RegTarget,
    opts: Options,
) -> Result<MProgram, CompileError> {
    validate(f)?;
    let mut g = f.clone();
    crate::opt::optimize(&mut g, target);
    validate(&g).map_err(|e| CompileError::Internal(format!("optimisation broke the IR: {e}")))?;
    if opts.schedule {
        sched::list::run(&mut g);
    }
    let mut p = ra::allocate(&g, regs, RaOptions { gprs: opts.gprs })?;
    sched::scoreboard::assign_slots(&mut p);
    p.stats.instrs = p
        .items
        .iter()
        .filter(|i| matches!(i, MItem::Instr(_)))
        .count() as u32;
    Ok(p)
}

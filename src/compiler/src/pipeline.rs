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

/// Machine code for G16 plus its statistics.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub code: Vec<u8>,
    pub mir: MProgram,
    pub stats: crate::mir::Stats,
}

/// The whole backend for G16: SSA IR → optimised, scheduled, allocated → machine code.
/// Internal panics are caught and returned as `CompileError::Internal`.
pub fn compile_g16(f: &Function, opts: Options) -> Result<Compiled, CompileError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| compile_g16_inner(f, opts)))
        .unwrap_or_else(|p| {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
            Err(CompileError::Internal(format!(
                "panic: {}",
                what.unwrap_or_default()
            )))
        })
}

fn compile_g16_inner(f: &Function, opts: Options) -> Result<Compiled, CompileError> {
    let mir = compile_to_mir(f, &crate::isel::G16Target, &crate::isel::G16Regs, opts)?;
    let enc = crate::isel::encode_program(&mir)?;
    let mut stats = mir.stats;
    stats.instrs = enc.instrs;
    stats.bytes = enc.code.len() as u32;
    Ok(Compiled {
        code: enc.code,
        mir,
        stats,
    })
}

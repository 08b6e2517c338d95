//! What the target can take as an operand directly. The G16 answers come from agx16-isa's form
//! table (see `isel`); `NoInline` keeps every operand in a register and is valid for any target.

use crate::ir::{Op, Type};

pub trait Target {
    /// Can source `src` of `op` (operating on `ty`) be the immediate `bits`?
    fn inline_imm(&self, op: Op, ty: Type, src: usize, bits: u32) -> bool;
    /// Can source `src` of `op` read a uniform register directly?
    fn uniform_src(&self, op: Op, ty: Type, src: usize) -> bool;
}

/// Every operand in a register.
pub struct NoInline;

impl Target for NoInline {
    fn inline_imm(&self, _: Op, _: Type, _: usize, _: u32) -> bool {
        false
    }
    fn uniform_src(&self, _: Op, _: Type, _: usize) -> bool {
        false
    }
}

/// Register-file facts the allocator needs from the target. Registers are counted in 32-bit
/// GPRs; the allocator works on 16-bit halves (two per GPR).
pub trait RegTarget {
    /// GPRs the file has (96 on G16).
    fn gprs(&self) -> u32;
    /// Exclusive upper bound of the GPR a destination of `op` can name.
    fn dst_reach(&self, op: Op, ty: Type) -> u32;
    /// Exclusive upper bound of the GPR source `src` of `op` can name.
    fn src_reach(&self, op: Op, ty: Type, src: usize) -> u32;
}

/// G16 register-file facts.
///
/// - 96 GPRs; r96 is a hard boundary on M4 (ADevWithAnIdea/agx-re docs/m4-deltas.md §2, measured).
/// - `get_sr` destinations only r0–r15: high destination bits are inert
///   (niklassheth/agx-re EXP-M4-38, measured; niklassheth/mesa agx_apple9_machine.c agrees).
/// - `device_load` destinations only r0–r63: r≥64 silently zeroes (ADevWithAnIdea/agx-re
///   EXP-0141, measured; niklassheth/mesa agx_apple9_machine.c table).
/// - move-immediate reaches r0–r63 in its 8-byte form (niklassheth/agx-re EXP-M4-37, measured).
/// - `float_special` (SFU) sources r0–r63 (niklassheth/mesa agx_apple9_machine.c table, inferred).
pub struct G16Regs;

impl RegTarget for G16Regs {
    fn gprs(&self) -> u32 {
        96
    }
    fn dst_reach(&self, op: Op, _ty: Type) -> u32 {
        match op {
            Op::SysVal(_) => 16,
            Op::LoadGlobal { .. } | Op::Fill { .. } => 64,
            _ => 96,
        }
    }
    fn src_reach(&self, op: Op, _ty: Type, _src: usize) -> u32 {
        match op {
            Op::Sfu(_) => 64,
            _ => 96,
        }
    }
}

//! What the target can take as an operand directly. The G16 answers come from agx16-isa's form
//! table (see `isel`); `NoInline` keeps every operand in a register and is valid for any target.

use crate::ir::{Instr, Op, Type};

pub trait Target {
    /// Can source `src` of `op` (operating on `ty`) be the immediate `bits`?
    fn inline_imm(&self, op: Op, ty: Type, src: usize, bits: u32) -> bool;
    /// Can source `src` of `op` read a uniform register directly?
    fn uniform_src(&self, op: Op, ty: Type, src: usize) -> bool;
    /// Can source `k` of `i` carry its neg/abs modifiers in place (given the other sources'
    /// modifiers as they stand)? Modifiers it cannot carry become a separate sign operation.
    fn src_modifiers(&self, _i: &Instr, _ty: Type, _k: usize) -> bool {
        true
    }
    /// Can float ops clamp their result to [0, 1] themselves?
    fn saturate(&self) -> bool {
        true
    }
    /// Register shift amounts of 32 and more do not wrap: mask them to the IR's five bits.
    fn shift_amounts_saturate(&self) -> bool {
        false
    }
    /// Lower selects to if/else with a phi (no usable select form).
    fn selects_as_branches(&self) -> bool {
        false
    }
    /// Split vector device loads/stores into scalar accesses (no validated tuple forms).
    fn split_vector_memory(&self) -> bool {
        false
    }
    /// Special-function ops and integer multiplies the target has no form for, rewritten by
    /// `opt::lower_ops` into ops it has.
    fn lowered_ops(&self) -> crate::opt::lower_ops::Lowered {
        crate::opt::lower_ops::Lowered::default()
    }
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
    /// Exclusive upper bound of the GPR the destination of `i` can name.
    fn dst_reach(&self, i: &Instr, ty: Type) -> u32;
    /// Exclusive upper bound of the GPR source `src` of `i` can name; `ty` is the instruction's
    /// type (its result's, `I32` without one), which selects the form.
    fn src_reach(&self, i: &Instr, ty: Type, src: usize) -> u32;
    /// Scratch accesses move whole 32-bit registers: 16-bit values are never spilled (their
    /// store and reload would read and overwrite the other half of the register).
    fn spill_32bit_only(&self) -> bool {
        false
    }
}

/// Any register anywhere in a 96-entry file (for testing the allocator without form limits).
pub struct AnyReg;

impl RegTarget for AnyReg {
    fn gprs(&self) -> u32 {
        96
    }
    fn dst_reach(&self, _: &Instr, _: Type) -> u32 {
        96
    }
    fn src_reach(&self, _: &Instr, _: Type, _: usize) -> u32 {
        96
    }
}

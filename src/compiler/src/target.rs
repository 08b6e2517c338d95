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

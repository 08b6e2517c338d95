//! Compile errors: values with a message naming what failed, never panics.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum CompileError {
    #[error("invalid IR: {0}")]
    InvalidIr(String),
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("register allocation failed at `{instr}`: {why}")]
    RegAlloc { instr: String, why: String },
    #[error("no validated G16 form for `{instr}`: {why}")]
    NoForm { instr: String, why: String },
    #[error("encoding `{instr}` failed: {why}")]
    Encode { instr: String, why: String },
    #[error("internal compiler error: {0}")]
    Internal(String),
}

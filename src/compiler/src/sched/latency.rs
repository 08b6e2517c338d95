//! The latency model: cycles from issue until a dependent instruction can use the result.
//!
//! No G16 latency has been measured in the public sources (/work/shared/notes/isa.md §5,
//! "Performance facts"). These are documented guesses, in the spirit of the delays the
//! GravityLinux/mesa apple9 scheduler uses (16 memory, 4 SFU, 1 otherwise, marked there as not
//! measured on T8132). Replace with measurements when they exist; this table is the only place.

use crate::ir::Op;

pub fn latency(op: Op) -> u32 {
    match op {
        Op::LoadGlobal { .. } | Op::Fill { .. } => 16,
        Op::Sfu(_) => 4,
        Op::FFma | Op::FMul | Op::FAdd | Op::IMul | Op::IMad => 2,
        Op::F2I { .. } | Op::I2F { .. } | Op::FConv => 2,
        _ => 1,
    }
}

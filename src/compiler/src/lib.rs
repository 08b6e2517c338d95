//! agx16-compiler: NIR → SSA IR → optimisation → register allocation with spilling →
//! scheduling with scoreboard slots → G16 machine code.

pub mod abi;
pub mod error;
pub mod eval;
#[cfg(feature = "glsl")]
pub mod glsl;
pub mod half;
pub mod interp;
pub mod ir;
pub mod isel;
pub mod mir;
#[cfg(feature = "nir")]
pub mod nir;
pub mod opt;
pub mod pipeline;
pub mod ra;
pub mod sched;
pub mod target;
pub mod testgen;

pub use error::CompileError;

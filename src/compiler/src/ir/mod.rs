//! The SSA intermediate representation: typed values, blocks, phis, structured control flow.

pub mod builder;
pub mod cfg;
pub mod instr;
pub mod ops;
pub mod print;
pub mod types;
pub mod validate;

pub use builder::Builder;
pub use cfg::Cfg;
pub use instr::{Block, BlockId, CfNode, Function, Instr, Operand, Src, Stage, Value};
pub use ops::{Cmp, Interp, Op, Sfu, SysVal, TexDim, TexKind};
pub use types::{Shape, Type};

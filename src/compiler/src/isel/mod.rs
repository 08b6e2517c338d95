//! Instruction selection and encoding: MIR → `agx16_isa` instructions → bytes.
//!
//! Only forms the ISA table marks hardware-validated (`Form::emittable`) are emitted, and every
//! byte comes from `agx16_isa`'s encoder. Fields the table holds as corpus-only modifiers are
//! set to the values Apple's compiler used in the hardware-run EXP-M4-35 programs
//! (niklassheth/agx-re experiments/EXP-M4-35-native-load-xor, measured outputs), which are the
//! values whose behaviour is established.

mod choose;
mod control;
mod encode;
mod gfx;
pub mod target;
pub mod texture;

pub use encode::{encode_program, Encoded};
pub use gfx::SAMPLE_MASK_PUBLICATION;
pub use target::{G16Regs, G16Target};

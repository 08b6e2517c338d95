//! The shader core: SIMD-group state, the pre-decoded program form and its
//! interpreter.

pub mod alu;
pub mod exec;
pub mod exec_mask;
mod lanes;
pub mod ops;
pub mod scoreboard;
pub mod scratch;
pub mod setup;
pub mod state;

/// Lanes of a SIMD-group (Metal family Apple9 SIMD width 32;
/// ADevWithAnIdea/agx-re:docs/m4-deltas.md §0, measured).
pub const LANES: usize = 32;
/// General-purpose registers per lane; r96 is a hard boundary on M4
/// (ADevWithAnIdea/agx-re:docs/m4-deltas.md §2, measured).
pub const GPRS: usize = 96;
/// Predicate banks p0..p5 (niklassheth/agx-re EXP-M4-53, measured).
pub const PRED_BANKS: usize = 6;
/// Scoreboard slots 1..=6 (niklassheth/agx-re:APPLE9_SCOREBOARD_SLOTS.md, measured).
pub const SLOTS: u8 = 6;

/// One value per lane.
pub type Lanes = [u32; LANES];

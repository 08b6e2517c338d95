//! Functional model of the Apple M4 GPU (G16, Apple9 ISA family).
//!
//! - [`mem`]: GPU memory as the shader core sees it ([`mem::GpuMemory`], [`mem::PageTable`]).
//! - [`dispatch`]: compute launches ([`dispatch::run_compute`]).
//! - [`core`]: SIMD-group state, scoreboard, exec-mask stack, interpreter.
//! - [`lower`]: `agx16_isa` instructions to the model's executable form.
//! - [`fp`]: measured floating-point behaviour (conversions, SFU).
//! - [`oracle`], [`harness`]: the shared real-M4 executable oracles; [`preload`]: the uniform
//!   words Apple's constant program would preload for some of them (fitted).
//! - [`trace`]: the `AGX16_SIM_TRACE` instruction trace.
//! - [`value_rules`]: the table of value rules (NaN, overflow, out-of-range texels) with their
//!   evidence, per-job counts of the inferred ones, `AGX16_SIM_STRICT`.
//! - [`gfx`]: the fixed-function render model ([`gfx::run_render`]).

pub mod core;
pub mod dispatch;
pub mod error;
pub mod fp;
pub mod gfx;
pub mod harness;
pub mod lower;
pub mod mem;
pub mod oracle;
pub mod preload;
pub mod program;
pub mod trace;
pub mod value_rules;

pub use dispatch::{
    run_cdm_launch, run_cdm_launch_cancellable, run_compute, run_compute_cancellable,
    run_compute_with_scratch, Code, ComputeLaunch, Stats,
};
pub use error::SimError;
pub use mem::{GpuMemory, PageTable};
pub use program::Program;

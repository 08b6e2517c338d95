//! Functional model of the Apple M4 GPU (G16, Apple9 ISA family).
//!
//! - [`mem`]: GPU memory as the shader core sees it ([`mem::GpuMemory`]).
//! - [`fp`]: measured floating-point behaviour (conversions, SFU).
//! - [`oracle`]: the shared real-M4 executable oracles.

pub mod fp;
pub mod mem;
pub mod oracle;

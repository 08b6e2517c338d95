//! What every control-stream walker shares: a way to read GPU memory, limits, and errors
//! that name where in the stream they happened.

use crate::record::DecodeError;
use thiserror::Error;

/// Read access to GPU virtual memory, implemented by the model's memory, the kernel's VM
/// or a capture file.
pub trait GpuRead {
    /// Fills `out` from `va`, or explains why not (unmapped, no read permission...).
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), String>;
}

/// A flat buffer mapped at `base` (handy for tests and for decoding one BO).
#[derive(Debug, Clone)]
pub struct FlatMemory {
    pub base: u64,
    pub bytes: Vec<u8>,
}

impl GpuRead for FlatMemory {
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), String> {
        let off = va
            .checked_sub(self.base)
            .ok_or_else(|| format!("{va:#x} is below buffer base {:#x}", self.base))?;
        let end = off
            .checked_add(out.len() as u64)
            .filter(|e| *e <= self.bytes.len() as u64)
            .ok_or_else(|| format!("{va:#x}+{:#x} runs past the buffer", out.len()))?;
        out.copy_from_slice(&self.bytes[off as usize..end as usize]);
        Ok(())
    }
}

/// Bounds on a walk that follows links, so hostile streams cannot loop forever.
#[derive(Debug, Clone, Copy)]
pub struct WalkLimits {
    /// Most blocks visited in one walk.
    pub max_blocks: usize,
    /// Deepest nesting of links with return.
    pub max_call_depth: usize,
}

impl Default for WalkLimits {
    fn default() -> Self {
        // The G16 kernel's CPU walker uses a 4096-block budget and a 32-entry call stack
        // (GravityLinux/linux:drivers/gpu/drm/asahi/g16_cdm.rs).
        WalkLimits {
            max_blocks: 4096,
            max_call_depth: 32,
        }
    }
}

/// Why a stream could not be decoded or walked.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StreamErrorKind {
    #[error("unknown block type {block_type} (header {header:#010x})")]
    UnknownBlockType { block_type: u32, header: u32 },
    #[error("unknown launch mode {mode} (header {header:#010x})")]
    UnknownMode { mode: u32, header: u32 },
    #[error("block of {need} bytes runs past the end ({have} left)")]
    Truncated { need: usize, have: usize },
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error("memory: {0}")]
    Memory(String),
    #[error("link with return nests deeper than {0}")]
    CallTooDeep(usize),
    #[error("return with no link-with-return to go back to")]
    ReturnWithoutCall,
    #[error("terminate inside a called stream (depth {0})")]
    TerminateInCall(usize),
    #[error("more than {0} blocks without a terminate")]
    TooManyBlocks(usize),
    #[error("misaligned address")]
    Misaligned,
}

/// A stream error with the offset (in a buffer) or VA (in a walk) where it happened.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("at {at:#x}: {kind}")]
pub struct StreamError {
    pub at: u64,
    pub kind: StreamErrorKind,
}

impl StreamError {
    pub fn new(at: u64, kind: impl Into<StreamErrorKind>) -> Self {
        StreamError {
            at,
            kind: kind.into(),
        }
    }
}

pub(crate) fn le32(bytes: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(bytes[off..off + 4].try_into().unwrap())
}

//! Where the render's memory comes from, and what can go wrong building it.

use thiserror::Error;

/// The address windows a render's pieces must live in (G16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Heap {
    /// The 4 GiB render context at 0x10_0000_0000: VDM links and PPP pointers are 32-bit
    /// offsets from its base (agx16-cmdstream `vdm::RENDER_CONTEXT_BASE`).
    RenderContext,
    /// The 4 GiB USC aperture at 1 << 40: launchers, CF tables, shader bodies, index
    /// buffers and bg/eot programs are addressed relative to it (`vdm::USC_BASE`).
    Usc,
    /// Anywhere the GPU can read and write (scissor array, occlusion results, roots).
    General,
}

/// GPU memory for one render: allocation and upload. The driver implements it over BOs
/// that live until the render's fence signals; tests implement it over the model's memory.
pub trait GpuWriter {
    /// `size` bytes aligned to `align` (a power of two) in `heap`; returns the VA.
    fn alloc(&mut self, heap: Heap, size: u64, align: u64) -> Result<u64, DrawError>;
    /// Writes `data` at `va`, inside a range `alloc` returned.
    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), DrawError>;
    /// Gives back `size` bytes at `va` that `alloc` returned in `heap`. Writers that free
    /// everything at once (a render's memory) ignore it.
    fn free(&mut self, _heap: Heap, _va: u64, _size: u64) {}

    /// Allocates and writes in one step.
    fn upload(&mut self, heap: Heap, data: &[u8], align: u64) -> Result<u64, DrawError> {
        let va = self.alloc(heap, data.len().max(4) as u64, align)?;
        self.write(va, data)?;
        Ok(va)
    }
}

/// Why a batch could not be turned into a render. Every variant names what was refused, so
/// the driver can print it and count the draw as not executed.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DrawError {
    #[error("out of GPU memory: {0}")]
    Memory(String),
    #[error("{0} is not supported by the agx16 render path")]
    Unsupported(String),
    #[error("framebuffer: {0}")]
    Framebuffer(String),
    #[error("program: {0}")]
    Program(String),
    #[error("command encoding: {0}")]
    Encode(String),
}

impl From<agx16_cmdstream::PackError> for DrawError {
    fn from(e: agx16_cmdstream::PackError) -> Self {
        DrawError::Encode(e.to_string())
    }
}

impl From<agx16_cmdstream::builder::BuildError> for DrawError {
    fn from(e: agx16_cmdstream::builder::BuildError) -> Self {
        DrawError::Encode(e.to_string())
    }
}

impl From<agx16_cmdstream::launch::LaunchError> for DrawError {
    fn from(e: agx16_cmdstream::launch::LaunchError) -> Self {
        DrawError::Program(e.to_string())
    }
}

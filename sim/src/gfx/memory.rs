//! GPU memory access for the render model: an agx16-cmdstream `GpuRead` view of the
//! model's memory (so its walkers read through page tables) and small typed helpers.

use crate::error::SimError;
use crate::mem::GpuMemory;
use agx16_cmdstream::stream::GpuRead;

/// `GpuRead` over the model's memory.
pub struct Reader<'a>(pub &'a dyn GpuMemory);

impl GpuRead for Reader<'_> {
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), String> {
        self.0.read(va, out).map_err(|f| f.to_string())
    }
}

pub fn read_bytes(mem: &dyn GpuMemory, va: u64, len: usize) -> Result<Vec<u8>, SimError> {
    let mut v = vec![0u8; len];
    mem.read(va, &mut v)?;
    Ok(v)
}

pub fn read_u64(mem: &dyn GpuMemory, va: u64) -> Result<u64, SimError> {
    let mut b = [0u8; 8];
    mem.read(va, &mut b)?;
    Ok(u64::from_le_bytes(b))
}

//! GPU memory as the shader core sees it: 42-bit virtual addresses, page
//! permissions, faults reported as values.
//!
//! The kernel core implements [`GpuMemory`] over its VMs (through an adapter in
//! the shim); [`PageTable`] is the model's own standalone implementation.

mod page_table;

pub use page_table::{PageTable, PAGE_SIZE};

/// GPU virtual addresses are 42 bits wide on the M4 (asahi UAPI VM range;
/// torvalds/linux include/uapi/drm/asahi_drm.h, inferred from the VA range
/// queries the UAPI exposes).
pub const VA_BITS: u32 = 42;
/// One past the highest GPU virtual address.
pub const VA_LIMIT: u64 = 1 << VA_BITS;

/// What an access tried to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
}

impl std::fmt::Display for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Access::Read => "read",
            Access::Write => "write",
        })
    }
}

/// Why an access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// The address is at or above [`VA_LIMIT`].
    OutOfRange,
    /// No page is mapped at the address.
    Unmapped,
    /// The page is mapped without the permission the access needs.
    Permission,
}

/// A GPU memory fault. `pc` is filled in by the shader core when the access
/// came from an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("GPU fault: {kind:?} {access} of {len} byte(s) at VA {addr:#x}{}", pc.map(|p| format!(" (pc {p:#x})")).unwrap_or_default())]
pub struct Fault {
    pub addr: u64,
    pub len: usize,
    pub access: Access,
    pub kind: FaultKind,
    pub pc: Option<u32>,
}

impl Fault {
    pub fn new(addr: u64, len: usize, access: Access, kind: FaultKind) -> Self {
        Fault {
            addr,
            len,
            access,
            kind,
            pc: None,
        }
    }
    pub fn at_pc(mut self, pc: u32) -> Self {
        self.pc = Some(pc);
        self
    }
}

/// Byte-addressed GPU memory of one VM. Object-safe so the model can run over
/// any implementation (`&dyn GpuMemory`). Accesses may cross page boundaries;
/// an implementation checks every page touched and performs nothing on fault.
///
/// Writes take `&self`: a VM is shared by every SIMD-group of a dispatch and
/// implementations use interior mutability.
pub trait GpuMemory {
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), Fault>;
    fn write(&self, va: u64, data: &[u8]) -> Result<(), Fault>;

    /// Reads `size` (1, 2 or 4) bytes at `addrs[l]` for every lane `l` in
    /// `mask` into `out[l]` (little-endian, zero-extended); stops at the first
    /// fault. The shader core's loads come through here, so implementations
    /// may override it with a faster loop.
    fn read_lanes(
        &self,
        addrs: &[u64; 32],
        mask: u32,
        size: usize,
        out: &mut [u32; 32],
    ) -> Result<(), Fault> {
        // (address, value) of the last lane read: lanes reading the same address (uniform
        // buffers, launcher pointer loads) read memory once.
        let mut last: Option<(u64, u32)> = None;
        for l in 0..32 {
            if mask >> l & 1 != 0 {
                out[l] = match last {
                    Some((va, v)) if va == addrs[l] => v,
                    _ => {
                        let mut b = [0u8; 4];
                        self.read(addrs[l], &mut b[..size])?;
                        let v = u32::from_le_bytes(b);
                        last = Some((addrs[l], v));
                        v
                    }
                };
            }
        }
        Ok(())
    }

    /// Writes the low `size` bytes of `vals[l]` to `addrs[l]` for every lane in
    /// `mask`, lowest lane first; stops at the first fault.
    fn write_lanes(
        &self,
        addrs: &[u64; 32],
        mask: u32,
        size: usize,
        vals: &[u32; 32],
    ) -> Result<(), Fault> {
        for l in 0..32 {
            if mask >> l & 1 != 0 {
                self.write(addrs[l], &vals[l].to_le_bytes()[..size])?;
            }
        }
        Ok(())
    }

    fn read_u32(&self, va: u64) -> Result<u32, Fault> {
        let mut b = [0u8; 4];
        self.read(va, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    fn write_u32(&self, va: u64, v: u32) -> Result<(), Fault> {
        self.write(va, &v.to_le_bytes())
    }
}

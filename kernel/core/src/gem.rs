//! GEM buffer objects.

use crate::backing::Backing;
use crate::errno::{Errno, KResult};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const MMAP_OFFSET_SHIFT: u32 = 36;

static NEXT_BO_ID: AtomicU64 = AtomicU64::new(1);

/// The object identity behind a fake mmap offset (the inverse of
/// `Bo::mmap_offset`), if the offset has that form.
pub fn id_of_mmap_offset(offset: u64) -> Option<u64> {
    let id = offset >> MMAP_OFFSET_SHIFT;
    (id != 0 && offset & ((1 << MMAP_OFFSET_SHIFT) - 1) == 0).then_some(id)
}

pub struct Bo {
    /// Device-unique identity (also keys dma-buf import).
    pub id: u64,
    pub size: u64,
    pub flags: u32,
    /// Owner file and VM for VM_PRIVATE objects (not exportable).
    pub private_to: Option<(u64, u32)>,
    /// Fake offset handed out by GEM_MMAP_OFFSET.
    pub mmap_offset: u64,
    backing: Box<dyn Backing>,
    accounting: Arc<AtomicU64>,
}

impl Bo {
    pub(crate) fn new(
        size: u64,
        flags: u32,
        private_to: Option<(u64, u32)>,
        backing: Box<dyn Backing>,
        accounting: Arc<AtomicU64>,
    ) -> Bo {
        let id = NEXT_BO_ID.fetch_add(1, Ordering::Relaxed);
        Bo {
            id,
            size,
            flags,
            private_to,
            // The id in the high bits keeps fake offsets unique and aligned.
            mmap_offset: id << MMAP_OFFSET_SHIFT,
            backing,
            accounting,
        }
    }

    pub fn backing(&self) -> &dyn Backing {
        &*self.backing
    }

    /// Copy out of the object. `offset..offset+out.len()` must be in bounds.
    pub fn read(&self, offset: u64, out: &mut [u8]) -> KResult<()> {
        self.check(offset, out.len())?;
        // SAFETY: bounds checked; the backing lives as long as self.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.backing.ptr().add(offset as usize),
                out.as_mut_ptr(),
                out.len(),
            )
        };
        Ok(())
    }

    pub fn write(&self, offset: u64, data: &[u8]) -> KResult<()> {
        self.check(offset, data.len())?;
        // SAFETY: bounds checked; the backing lives as long as self.
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.as_ptr(),
                self.backing.ptr().add(offset as usize),
                data.len(),
            )
        };
        Ok(())
    }

    /// Reads of one to four bytes with the backing's address and size looked up once (a
    /// shader's per-lane loads from one buffer).
    pub fn small_reads(&self) -> SmallReads<'_> {
        SmallReads {
            ptr: self.backing.ptr(),
            len: self.size.min(self.backing.len() as u64),
            _bo: std::marker::PhantomData,
        }
    }

    fn check(&self, offset: u64, len: usize) -> KResult<()> {
        let end = offset.checked_add(len as u64).ok_or(Errno::EFAULT)?;
        if end > self.size || end > self.backing.len() as u64 {
            return Err(Errno::EFAULT);
        }
        Ok(())
    }
}

/// See [`Bo::small_reads`].
pub struct SmallReads<'a> {
    ptr: *const u8,
    /// Bytes readable from `ptr` (the object's size within its backing).
    len: u64,
    _bo: std::marker::PhantomData<&'a Bo>,
}

impl SmallReads<'_> {
    /// The `size` (at most 4) bytes at `offset`, little-endian, zero-extended; the range
    /// must be in bounds, as for [`Bo::read`].
    pub fn read(&self, offset: u64, size: usize) -> KResult<u32> {
        let end = offset.checked_add(size as u64).ok_or(Errno::EFAULT)?;
        if size > 4 || end > self.len {
            return Err(Errno::EFAULT);
        }
        // SAFETY: in bounds (checked above); the backing lives as long as the object, which
        // the borrow keeps. Fixed-size loads: no library call per lane.
        unsafe {
            let p = self.ptr.add(offset as usize);
            Ok(match size {
                1 => p.read() as u32,
                2 => u16::from_le(p.cast::<u16>().read_unaligned()) as u32,
                4 => u32::from_le(p.cast::<u32>().read_unaligned()),
                _ => {
                    let mut b = [0u8; 4];
                    std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), size);
                    u32::from_le_bytes(b)
                }
            })
        }
    }
}

impl Drop for Bo {
    fn drop(&mut self) {
        self.accounting.fetch_sub(self.size, Ordering::Relaxed);
    }
}

//! Standalone per-VM page table: 16 KiB pages with read/write permissions.

use super::{Access, Fault, FaultKind, GpuMemory, VA_LIMIT};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// Apple GPUs use 16 KiB pages (GravityLinux/linux drivers/gpu/drm/asahi,
/// UAPI page-size query; inferred from the driver's page-size constant).
pub const PAGE_SIZE: u64 = 16 * 1024;
const PAGE_SHIFT: u32 = 14;

struct Page {
    data: Box<[u8]>,
    read: bool,
    write: bool,
}

/// A sparse map from 16 KiB virtual pages to backing bytes (single-threaded:
/// one dispatch runs its SIMD-groups one after another).
#[derive(Default)]
pub struct PageTable {
    pages: RefCell<HashMap<u64, Page>>,
    faults: Cell<u64>,
    /// The last page an in-page GPU access hit: (page number + 1, data
    /// pointer, read, write); 0 = empty. Cleared by every (un)map/protect.
    last: Cell<(u64, *mut u8, bool, bool)>,
}

// SAFETY: the raw pointer in `last` points into a page's boxed bytes that this table owns
// (cleared whenever a page is unmapped), so moving the table to another thread moves what it
// points to along with it. The table stays !Sync (its cells are not synchronised).
unsafe impl Send for PageTable {}

impl PageTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Maps zero-filled pages covering `[va, va+len)` with the given
    /// permissions. `va` and `len` must be page aligned and inside the VA range.
    pub fn map(&self, va: u64, len: u64, read: bool, write: bool) -> Result<(), MapError> {
        if !va.is_multiple_of(PAGE_SIZE) || !len.is_multiple_of(PAGE_SIZE) || len == 0 {
            return Err(MapError::Unaligned { va, len });
        }
        let end = va
            .checked_add(len)
            .filter(|&e| e <= VA_LIMIT)
            .ok_or(MapError::OutOfRange { va, len })?;
        self.last.set((0, std::ptr::null_mut(), false, false));
        let mut pages = self.pages.borrow_mut();
        for p in (va >> PAGE_SHIFT)..(end >> PAGE_SHIFT) {
            if pages.contains_key(&p) {
                return Err(MapError::AlreadyMapped {
                    va: p << PAGE_SHIFT,
                });
            }
        }
        for p in (va >> PAGE_SHIFT)..(end >> PAGE_SHIFT) {
            pages.insert(
                p,
                Page {
                    data: vec![0u8; PAGE_SIZE as usize].into_boxed_slice(),
                    read,
                    write,
                },
            );
        }
        Ok(())
    }

    /// Removes the mapping of every page in `[va, va+len)`.
    pub fn unmap(&self, va: u64, len: u64) {
        self.last.set((0, std::ptr::null_mut(), false, false));
        let mut pages = self.pages.borrow_mut();
        let end = va.saturating_add(len);
        for p in (va >> PAGE_SHIFT)..end.div_ceil(PAGE_SIZE) {
            pages.remove(&p);
        }
    }

    /// Changes the permissions of mapped pages in `[va, va+len)`.
    pub fn protect(&self, va: u64, len: u64, read: bool, write: bool) {
        self.last.set((0, std::ptr::null_mut(), false, false));
        let mut pages = self.pages.borrow_mut();
        let end = va.saturating_add(len);
        for p in (va >> PAGE_SHIFT)..end.div_ceil(PAGE_SIZE) {
            if let Some(page) = pages.get_mut(&p) {
                page.read = read;
                page.write = write;
            }
        }
    }

    /// Copies bytes in or out ignoring permissions (host/CPU side access).
    pub fn host_write(&self, va: u64, data: &[u8]) -> Result<(), Fault> {
        self.access(va, data.len(), Access::Write, false, |page, off, range| {
            page.data[off..off + range.len()].copy_from_slice(&data[range]);
        })
    }

    pub fn host_read(&self, va: u64, out: &mut [u8]) -> Result<(), Fault> {
        let len = out.len();
        self.access(va, len, Access::Read, false, |page, off, range| {
            out[range.clone()].copy_from_slice(&page.data[off..off + range.len()]);
        })
    }

    /// Number of faults reported by GPU-side accesses so far.
    pub fn fault_count(&self) -> u64 {
        self.faults.get()
    }

    /// Checks every page first, then applies `f` to each page chunk, so a
    /// faulting access changes nothing.
    fn access(
        &self,
        va: u64,
        len: usize,
        access: Access,
        check_perm: bool,
        mut f: impl FnMut(&mut Page, usize, std::ops::Range<usize>),
    ) -> Result<(), Fault> {
        let fault = |addr: u64, kind| {
            if check_perm {
                self.faults.set(self.faults.get() + 1);
            }
            Err(Fault::new(addr, len, access, kind))
        };
        let end = match va.checked_add(len as u64) {
            Some(e) if e <= VA_LIMIT => e,
            _ => return fault(va, FaultKind::OutOfRange),
        };
        let mut pages = self.pages.borrow_mut();
        let first = va >> PAGE_SHIFT;
        let last = if len == 0 {
            first
        } else {
            (end - 1) >> PAGE_SHIFT
        };
        for p in first..=last {
            match pages.get(&p) {
                None => return fault(va.max(p << PAGE_SHIFT), FaultKind::Unmapped),
                Some(pg) if check_perm => {
                    let ok = match access {
                        Access::Read => pg.read,
                        Access::Write => pg.write,
                    };
                    if !ok {
                        return fault(va.max(p << PAGE_SHIFT), FaultKind::Permission);
                    }
                }
                Some(_) => {}
            }
        }
        let mut done = 0usize;
        let mut addr = va;
        while done < len {
            let p = addr >> PAGE_SHIFT;
            let off = (addr & (PAGE_SIZE - 1)) as usize;
            let n = (PAGE_SIZE as usize - off).min(len - done);
            let page = pages.get_mut(&p).expect("checked above");
            f(page, off, done..done + n);
            done += n;
            addr += n as u64;
        }
        Ok(())
    }
}

impl PageTable {
    /// The page data of an access that stays inside one page, if it is the
    /// cached page and allowed; refreshes the cache from the map otherwise.
    #[inline]
    fn in_page(&self, va: u64, len: usize, write: bool) -> Option<*mut u8> {
        let off = (va & (PAGE_SIZE - 1)) as usize;
        if off + len > PAGE_SIZE as usize || va >= VA_LIMIT {
            return None;
        }
        let key = (va >> PAGE_SHIFT) + 1;
        let (k, ptr, r, w) = self.last.get();
        let (ptr, r, w) = if k == key {
            (ptr, r, w)
        } else {
            let mut pages = self.pages.borrow_mut();
            let page = pages.get_mut(&(key - 1))?;
            let e = (page.data.as_mut_ptr(), page.read, page.write);
            self.last.set((key, e.0, e.1, e.2));
            e
        };
        let ok = if write { w } else { r };
        ok.then(|| ptr.wrapping_add(off))
    }
}

impl GpuMemory for PageTable {
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), Fault> {
        if let Some(p) = self.in_page(va, out.len(), false) {
            // SAFETY: `p` points into a live page's boxed data (the cache is
            // cleared whenever pages change) with `out.len()` bytes in range.
            unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), out.len()) };
            return Ok(());
        }
        let len = out.len();
        self.access(va, len, Access::Read, true, |page, off, range| {
            out[range.clone()].copy_from_slice(&page.data[off..off + range.len()]);
        })
    }
    fn read_lanes(
        &self,
        addrs: &[u64; 32],
        mask: u32,
        size: usize,
        out: &mut [u32; 32],
    ) -> Result<(), Fault> {
        for l in 0..32 {
            if mask >> l & 1 == 0 {
                continue;
            }
            let mut b = [0u8; 4];
            match self.in_page(addrs[l], size, false) {
                // SAFETY: as in `read`.
                Some(p) => unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), size) },
                None => self.read(addrs[l], &mut b[..size])?,
            }
            out[l] = u32::from_le_bytes(b);
        }
        Ok(())
    }

    fn write_lanes(
        &self,
        addrs: &[u64; 32],
        mask: u32,
        size: usize,
        vals: &[u32; 32],
    ) -> Result<(), Fault> {
        for l in 0..32 {
            if mask >> l & 1 == 0 {
                continue;
            }
            let b = vals[l].to_le_bytes();
            match self.in_page(addrs[l], size, true) {
                // SAFETY: as in `write`.
                Some(p) => unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, size) },
                None => self.write(addrs[l], &b[..size])?,
            }
        }
        Ok(())
    }

    fn write(&self, va: u64, data: &[u8]) -> Result<(), Fault> {
        if let Some(p) = self.in_page(va, data.len(), true) {
            // SAFETY: as in `read`; no other reference to the page bytes is
            // live during this copy (single-threaded, no borrow held).
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
            return Ok(());
        }
        self.access(va, data.len(), Access::Write, true, |page, off, range| {
            page.data[off..off + range.len()].copy_from_slice(&data[range]);
        })
    }
}

/// Why a mapping request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("mapping {va:#x}+{len:#x} is not 16 KiB aligned")]
    Unaligned { va: u64, len: u64 },
    #[error("mapping {va:#x}+{len:#x} leaves the 42-bit VA range")]
    OutOfRange { va: u64, len: u64 },
    #[error("page at {va:#x} is already mapped")]
    AlreadyMapped { va: u64 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_back_across_pages_and_faults() {
        let pt = PageTable::new();
        pt.map(0x10000, 2 * PAGE_SIZE, true, true).unwrap();
        let va = 0x10000 + PAGE_SIZE - 2;
        pt.write(va, &[1, 2, 3, 4]).unwrap();
        let mut b = [0u8; 4];
        pt.read(va, &mut b).unwrap();
        assert_eq!(b, [1, 2, 3, 4]);
        // Crossing into an unmapped page faults and writes nothing.
        let end = 0x10000 + 2 * PAGE_SIZE;
        let e = pt.write(end - 2, &[9, 9, 9, 9]).unwrap_err();
        assert_eq!(
            (e.kind, e.access, e.addr),
            (FaultKind::Unmapped, Access::Write, end)
        );
        pt.read(end - 2, &mut b[..2]).unwrap();
        assert_eq!(&b[..2], &[0, 0]);
    }

    #[test]
    fn read_only_pages_refuse_gpu_writes_but_not_host_writes() {
        let pt = PageTable::new();
        pt.map(0, PAGE_SIZE, true, false).unwrap();
        let e = pt.write_u32(8, 5).unwrap_err();
        assert_eq!(e.kind, FaultKind::Permission);
        pt.host_write(8, &7u32.to_le_bytes()).unwrap();
        assert_eq!(pt.read_u32(8).unwrap(), 7);
        assert_eq!(pt.fault_count(), 1);
    }

    #[test]
    fn cached_page_follows_unmap_and_protect() {
        let pt = PageTable::new();
        pt.map(0, PAGE_SIZE, true, true).unwrap();
        pt.write_u32(4, 9).unwrap();
        assert_eq!(pt.read_u32(4).unwrap(), 9);
        pt.protect(0, PAGE_SIZE, true, false);
        assert_eq!(pt.write_u32(4, 1).unwrap_err().kind, FaultKind::Permission);
        pt.unmap(0, PAGE_SIZE);
        assert_eq!(pt.read_u32(4).unwrap_err().kind, FaultKind::Unmapped);
    }

    #[test]
    fn addresses_beyond_42_bits_fault() {
        let pt = PageTable::new();
        assert!(pt
            .map(VA_LIMIT - PAGE_SIZE, 2 * PAGE_SIZE, true, true)
            .is_err());
        let e = pt.read_u32(VA_LIMIT).unwrap_err();
        assert_eq!(e.kind, FaultKind::OutOfRange);
        assert_eq!(
            pt.map(100, PAGE_SIZE, true, true),
            Err(MapError::Unaligned {
                va: 100,
                len: PAGE_SIZE
            })
        );
    }
}

//! BO storage as suballocations of a few large shared-memory arenas.
//!
//! Each arena is one memfd (sparse: pages are committed on first touch)
//! mapped once into this process. A GEM object is a page-granular extent of
//! an arena, so the number of descriptors and mappings stays constant
//! however many objects live: a memfd per object ran out of descriptors at
//! ~1,000 objects under `ulimit -n 1024` and of VMAs near 65,530. Freed
//! extents are punched out of the memfd (the pages go back to the system
//! and read as zero, as a new GEM object must) and coalesced into the free
//! list. Objects too large for a shared arena get an arena of their own.
//!
//! The shim's mapping is what the GPU model reads and what user mmaps of a
//! GEM object return (see hooks_ioctl), so the CPU and the GPU see the same
//! pages.

use crate::real::real;
use agx16_kernel::backing::{Backing, BackingAllocator};
use agx16_kernel::{Errno, KResult};
use parking_lot::Mutex;
use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Virtual size of a shared arena; the memfd is sparse so this costs
/// address space, not memory.
const ARENA_SIZE: u64 = 1 << 30;
/// Objects above this size get a dedicated arena (so a few huge objects
/// cannot fragment the shared ones).
const DEDICATED_ABOVE: u64 = ARENA_SIZE / 4;

/// Free extents of one arena, by offset and by (size, offset): allocation
/// (best fit) and freeing (with coalescing) are O(log n).
#[derive(Default)]
struct FreeList {
    by_offset: BTreeMap<u64, u64>,
    by_size: BTreeSet<(u64, u64)>,
}

impl FreeList {
    fn add(&mut self, offset: u64, len: u64) {
        self.by_offset.insert(offset, len);
        self.by_size.insert((len, offset));
    }

    fn take(&mut self, offset: u64) -> Option<u64> {
        let len = self.by_offset.remove(&offset)?;
        self.by_size.remove(&(len, offset));
        Some(len)
    }

    fn allocate(&mut self, len: u64) -> Option<u64> {
        let &(have, offset) = self.by_size.range((len, 0)..).next()?;
        self.take(offset);
        if have > len {
            self.add(offset + len, have - len);
        }
        Some(offset)
    }

    fn free(&mut self, mut offset: u64, mut len: u64) {
        if let Some((&prev, &plen)) = self.by_offset.range(..offset).next_back() {
            if prev + plen == offset {
                self.take(prev);
                offset = prev;
                len += plen;
            }
        }
        if let Some(nlen) = self.take(offset + len) {
            len += nlen;
        }
        self.add(offset, len);
    }
}

pub struct Arena {
    pub fd: i32,
    base: *mut u8,
    size: u64,
    /// Shared by many objects (not a dedicated arena).
    pub shared: bool,
    free: Mutex<FreeList>,
}

// SAFETY: the mapping is shared memory accessed through raw copies; the
// free list is behind a mutex.
unsafe impl Send for Arena {}
unsafe impl Sync for Arena {}

impl Arena {
    fn new(size: u64, shared: bool) -> KResult<Arc<Arena>> {
        let len = usize::try_from(size).map_err(|_| Errno::ENOMEM)?;
        // SAFETY: plain syscalls on an fd we create.
        unsafe {
            let fd = libc::memfd_create(c"agx16-bo-arena".as_ptr(), libc::MFD_CLOEXEC);
            if fd < 0 {
                return Err(Errno::ENOMEM);
            }
            if libc::ftruncate(fd, size as libc::off_t) != 0 {
                (real().close)(fd);
                return Err(Errno::ENOMEM);
            }
            let ptr = (real().mmap64)(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_NORESERVE,
                fd,
                0,
            );
            if ptr == libc::MAP_FAILED {
                (real().close)(fd);
                return Err(Errno::ENOMEM);
            }
            let mut free = FreeList::default();
            free.add(0, size);
            Ok(Arc::new(Arena {
                fd,
                base: ptr as *mut u8,
                size,
                shared,
                free: Mutex::new(free),
            }))
        }
    }

    fn contains(&self, addr: usize) -> bool {
        let base = self.base as usize;
        addr >= base && addr < base + self.size as usize
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // SAFETY: we own both the mapping and the fd.
        unsafe {
            (real().munmap)(self.base as *mut libc::c_void, self.size as usize);
            (real().close)(self.fd);
        }
    }
}

/// One GEM object's extent of an arena.
pub struct ArenaBacking {
    pub arena: Arc<Arena>,
    pub offset: u64,
    len: u64,
}

impl ArenaBacking {
    /// Where the object's pages are in this process's mapping of its arena.
    pub fn addr(&self) -> *mut u8 {
        // SAFETY: offset + len lies inside the arena's mapping.
        unsafe { self.arena.base.add(self.offset as usize) }
    }
}

impl Backing for ArenaBacking {
    fn ptr(&self) -> *mut u8 {
        self.addr()
    }
    fn len(&self) -> usize {
        self.len as usize
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for ArenaBacking {
    fn drop(&mut self) {
        // Give the pages back (they read as zero afterwards), then the
        // extent. A dedicated arena simply goes away with its last user.
        // SAFETY: punching a hole in our own memfd.
        unsafe {
            libc::fallocate(
                self.arena.fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                self.offset as libc::off_t,
                self.len as libc::off_t,
            );
        }
        self.arena.free.lock().free(self.offset, self.len);
    }
}

#[derive(Default)]
pub struct ArenaAllocator {
    shared: Mutex<Vec<Arc<Arena>>>,
}

impl ArenaAllocator {
    /// Whether `addr` lies in this process's mapping of a shared arena.
    pub fn in_shared_view(&self, addr: usize) -> bool {
        self.shared.lock().iter().any(|a| a.contains(addr))
    }
}

impl BackingAllocator for ArenaAllocator {
    fn allocate(&self, size: u64) -> KResult<Box<dyn Backing>> {
        if size > DEDICATED_ABOVE {
            let arena = Arena::new(size, false)?;
            arena.free.lock().allocate(size);
            return Ok(Box::new(ArenaBacking {
                arena,
                offset: 0,
                len: size,
            }));
        }
        let mut arenas = self.shared.lock();
        for arena in arenas.iter() {
            if let Some(offset) = arena.free.lock().allocate(size) {
                return Ok(Box::new(ArenaBacking {
                    arena: arena.clone(),
                    offset,
                    len: size,
                }));
            }
        }
        let arena = Arena::new(ARENA_SIZE, true)?;
        let offset = arena.free.lock().allocate(size).ok_or(Errno::ENOMEM)?;
        arenas.push(arena.clone());
        Ok(Box::new(ArenaBacking {
            arena,
            offset,
            len: size,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::FreeList;

    #[test]
    fn free_list_best_fit_and_coalescing() {
        let mut f = FreeList::default();
        f.add(0, 100);
        assert_eq!(f.allocate(10), Some(0));
        assert_eq!(f.allocate(20), Some(10));
        assert_eq!(f.allocate(30), Some(30));
        f.free(10, 20);
        // Best fit: the 20-byte hole, not the tail.
        assert_eq!(f.allocate(15), Some(10));
        f.free(10, 15);
        f.free(0, 10);
        f.free(30, 30);
        // Everything coalesced back into one extent.
        assert_eq!(f.by_offset.len(), 1);
        assert_eq!(f.allocate(100), Some(0));
        assert_eq!(f.allocate(1), None);
    }
}

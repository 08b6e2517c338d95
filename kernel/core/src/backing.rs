//! Storage behind a GEM object. The host decides what backs it: the shim uses
//! a memfd (so user mmaps and dma-buf fds see the same pages), tests use the
//! heap, a kernel host would use shmem pages.

use crate::errno::{Errno, KResult};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::any::Any;

/// A contiguous, zero-initialised, CPU-addressable allocation that stays at
/// one address for its lifetime. Accesses go through raw pointers because
/// the CPU (user mmaps) and the GPU thread may touch it concurrently, as on
/// real shared memory.
pub trait Backing: Send + Sync {
    fn ptr(&self) -> *mut u8;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Lets a host recover its concrete type (e.g. the memfd to mmap).
    fn as_any(&self) -> &dyn Any;
}

pub trait BackingAllocator: Send + Sync {
    /// `size` is already a non-zero multiple of the page size.
    fn allocate(&self, size: u64) -> KResult<Box<dyn Backing>>;
}

/// Heap memory (tests and hosts without shared memory).
pub struct HeapBacking {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the allocation is owned and only accessed through raw copies.
unsafe impl Send for HeapBacking {}
unsafe impl Sync for HeapBacking {}

impl Backing for HeapBacking {
    fn ptr(&self) -> *mut u8 {
        self.ptr
    }
    fn len(&self) -> usize {
        self.layout.size()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for HeapBacking {
    fn drop(&mut self) {
        // SAFETY: allocated in HeapAllocator::allocate with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

pub struct HeapAllocator;

impl BackingAllocator for HeapAllocator {
    fn allocate(&self, size: u64) -> KResult<Box<dyn Backing>> {
        let size = usize::try_from(size).map_err(|_| Errno::ENOMEM)?;
        // Small alignment on purpose: the system allocator then zeroes
        // through calloc, which leaves large untouched buffers uncommitted
        // (an over-aligned request would be memset page by page).
        let layout = Layout::from_size_align(size, 16).map_err(|_| Errno::ENOMEM)?;
        // SAFETY: size is non-zero (callers round up to a page).
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(Errno::ENOMEM);
        }
        Ok(Box::new(HeapBacking { ptr, layout }))
    }
}

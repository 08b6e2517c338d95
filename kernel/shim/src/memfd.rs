//! BO storage as memfds: the shim's own mapping is what the GPU model
//! reads; user mmaps and dma-buf fds map the same pages.

use crate::real::real;
use agx16_kernel::backing::{Backing, BackingAllocator};
use agx16_kernel::{Errno, KResult};
use std::any::Any;

pub struct MemfdBacking {
    pub fd: i32,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is shared memory accessed through raw copies.
unsafe impl Send for MemfdBacking {}
unsafe impl Sync for MemfdBacking {}

impl Backing for MemfdBacking {
    fn ptr(&self) -> *mut u8 {
        self.ptr
    }
    fn len(&self) -> usize {
        self.len
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for MemfdBacking {
    fn drop(&mut self) {
        // SAFETY: we own both the mapping and the fd.
        unsafe {
            libc::munmap(self.ptr as *mut libc::c_void, self.len);
            (real().close)(self.fd);
        }
    }
}

pub struct MemfdAllocator;

impl BackingAllocator for MemfdAllocator {
    fn allocate(&self, size: u64) -> KResult<Box<dyn Backing>> {
        let len = usize::try_from(size).map_err(|_| Errno::ENOMEM)?;
        // SAFETY: plain syscalls on an fd we create.
        unsafe {
            let fd = libc::memfd_create(c"agx16-bo".as_ptr(), libc::MFD_CLOEXEC);
            if fd < 0 {
                return Err(Errno::ENOMEM);
            }
            if libc::ftruncate(fd, len as libc::off_t) != 0 {
                (real().close)(fd);
                return Err(Errno::ENOMEM);
            }
            let ptr = (real().mmap64)(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            );
            if ptr == libc::MAP_FAILED {
                (real().close)(fd);
                return Err(Errno::ENOMEM);
            }
            Ok(Box::new(MemfdBacking {
                fd,
                ptr: ptr as *mut u8,
                len,
            }))
        }
    }
}

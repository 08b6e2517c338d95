//! ioctl and mmap on the fds the shim owns.

use crate::arena::ArenaBacking;
use crate::device::arenas;
use crate::device::debug;
use crate::fdtable::{self, Entry};
use crate::guard::{hook, set_errno};
use crate::host::ShimHost;
use crate::real::real;
use crate::sync_file;
use crate::usermap;
use agx16_kernel::gem::Bo;
use agx16_kernel::Errno;
use libc::{c_int, c_ulong, c_void, off64_t, size_t};
use std::sync::Arc;

unsafe fn drm_ioctl(file: &agx16_kernel::File, request: c_ulong, arg: *mut c_void) -> c_int {
    match file.ioctl(&ShimHost, request, arg as u64) {
        Ok(v) => v,
        Err(e) => {
            if debug() {
                log::debug!("ioctl {request:#x} -> {e}");
            }
            set_errno(e.0);
            -1
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn ioctl(fd: c_int, request: c_ulong, arg: *mut c_void) -> c_int {
    hook(
        || (real().ioctl)(fd, request, arg),
        || match fdtable::get(fd) {
            Some(Entry::Drm(file)) => drm_ioctl(&file, request, arg),
            Some(Entry::SyncFile(fence)) => match sync_file::ioctl(&fence, request, arg) {
                Ok(v) => v,
                Err(Errno(e)) => {
                    set_errno(e);
                    -1
                }
            },
            _ => (real().ioctl)(fd, request, arg),
        },
        -1,
    )
}

/// Map `len` bytes at `offset` into `bo` for the application. The common
/// request (shared, read/write, no address) gets the shim's own view of the
/// object's arena, so 100,000 mapped objects cost no mappings; anything
/// else maps the arena's memfd at the object's pages.
unsafe fn map_extent(
    bo: Arc<Bo>,
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    offset: u64,
) -> *mut c_void {
    let Some(b) = bo.backing().as_any().downcast_ref::<ArenaBacking>() else {
        set_errno(libc::ENODEV);
        return libc::MAP_FAILED;
    };
    let view = addr.is_null()
        && b.arena.shared
        && flags & (libc::MAP_SHARED | libc::MAP_PRIVATE | libc::MAP_FIXED) == libc::MAP_SHARED
        && prot & libc::PROT_EXEC == 0;
    let ptr = if view {
        b.addr().add(offset as usize) as *mut c_void
    } else {
        let at = b.offset + offset;
        (real().mmap64)(addr, len, prot, flags, b.arena.fd, at as off64_t)
    };
    if ptr != libc::MAP_FAILED {
        drop(usermap::add(ptr as usize, len, bo));
    }
    ptr
}

unsafe fn map_bo(
    file: &agx16_kernel::File,
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    offset: off64_t,
) -> *mut c_void {
    match file.mmap_lookup(offset as u64, len as u64) {
        Ok(bo) => map_extent(bo, addr, len, prot, flags, 0),
        Err(e) => {
            set_errno(e.0);
            libc::MAP_FAILED
        }
    }
}

/// mmap of a dma-buf fd: `offset` is into the object.
unsafe fn map_dmabuf(
    bo: Arc<Bo>,
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    offset: off64_t,
) -> *mut c_void {
    let fits = u64::try_from(offset)
        .ok()
        .and_then(|o| o.checked_add(len as u64).map(|end| (o, end)))
        .filter(|&(o, end)| len != 0 && o % 4096 == 0 && end <= bo.size);
    match fits {
        Some((o, _)) => map_extent(bo, addr, len, prot, flags, o),
        None => {
            set_errno(libc::EINVAL);
            libc::MAP_FAILED
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn mmap64(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: off64_t,
) -> *mut c_void {
    hook(
        || (real().mmap64)(addr, len, prot, flags, fd, offset),
        || {
            if flags & libc::MAP_FIXED != 0 {
                // A new mapping over a GEM object's mapping replaces it.
                drop(usermap::remove(addr as usize, len));
            }
            match fdtable::get(fd) {
                Some(Entry::Drm(file)) => map_bo(&file, addr, len, prot, flags, offset),
                Some(Entry::DmaBuf(bo)) => map_dmabuf(bo, addr, len, prot, flags, offset),
                _ => (real().mmap64)(addr, len, prot, flags, fd, offset),
            }
        },
        libc::MAP_FAILED,
    )
}

#[no_mangle]
pub unsafe extern "C" fn mmap(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: off64_t,
) -> *mut c_void {
    mmap64(addr, len, prot, flags, fd, offset)
}

#[no_mangle]
pub unsafe extern "C" fn munmap(addr: *mut c_void, len: size_t) -> c_int {
    hook(
        || (real().munmap)(addr, len),
        || {
            let gone = usermap::remove(addr as usize, len);
            // The arena views stay mapped: the GPU model reads through them.
            let r = if arenas().in_shared_view(addr as usize) {
                0
            } else {
                (real().munmap)(addr, len)
            };
            drop(gone);
            r
        },
        -1,
    )
}

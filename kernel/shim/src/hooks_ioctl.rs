//! ioctl and mmap on the fds the shim owns.

use crate::device::debug;
use crate::fdtable::{self, Entry};
use crate::guard::{hook, set_errno};
use crate::host::ShimHost;
use crate::memfd::MemfdBacking;
use crate::real::real;
use crate::sync_file;
use agx16_kernel::Errno;
use libc::{c_int, c_ulong, c_void, off64_t, size_t};

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

unsafe fn map_bo(
    file: &agx16_kernel::File,
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    offset: off64_t,
) -> *mut c_void {
    let bo = match file.mmap_lookup(offset as u64, len as u64) {
        Ok(bo) => bo,
        Err(e) => {
            set_errno(e.0);
            return libc::MAP_FAILED;
        }
    };
    let Some(memfd) = bo.backing().as_any().downcast_ref::<MemfdBacking>() else {
        set_errno(libc::ENODEV);
        return libc::MAP_FAILED;
    };
    (real().mmap64)(addr, len, prot, flags, memfd.fd, 0)
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
        || match fdtable::drm_file(fd) {
            Some(file) => map_bo(&file, addr, len, prot, flags, offset),
            None => (real().mmap64)(addr, len, prot, flags, fd, offset),
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

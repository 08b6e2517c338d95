//! readlink, realpath and fopen for the sysfs files libdrm reads.

use crate::guard::{hook, path, set_errno};
use crate::hooks_file::content_fd;
use crate::paths::{self, classify, PathKind};
use crate::real::real;
use libc::{c_char, size_t, ssize_t, FILE};

#[no_mangle]
pub unsafe extern "C" fn readlink(p: *const c_char, buf: *mut c_char, size: size_t) -> ssize_t {
    hook(
        || (real().readlink)(p, buf, size),
        || match path(p).map(classify) {
            Some(PathKind::Subsystem) => {
                let n = paths::SUBSYSTEM_LINK.len().min(size);
                std::ptr::copy_nonoverlapping(paths::SUBSYSTEM_LINK.as_ptr(), buf as *mut u8, n);
                n as ssize_t
            }
            Some(PathKind::Hidden) => {
                set_errno(libc::ENOENT);
                -1
            }
            Some(PathKind::Other) | None => (real().readlink)(p, buf, size),
            Some(_) => {
                set_errno(libc::EINVAL);
                -1
            }
        },
        -1,
    )
}

#[no_mangle]
pub unsafe extern "C" fn __readlink_chk(
    p: *const c_char,
    buf: *mut c_char,
    size: size_t,
    buflen: size_t,
) -> ssize_t {
    if size > buflen {
        libc::abort();
    }
    readlink(p, buf, size)
}

#[no_mangle]
pub unsafe extern "C" fn realpath(p: *const c_char, resolved: *mut c_char) -> *mut c_char {
    hook(
        || (real().realpath)(p, resolved),
        || match path(p).map(classify) {
            Some(PathKind::Other) | None => (real().realpath)(p, resolved),
            Some(PathKind::Hidden) => {
                set_errno(libc::ENOENT);
                std::ptr::null_mut()
            }
            Some(_) => {
                // Our sysfs paths have no symlinks above them: echo back.
                let s = path(p).unwrap_or_default();
                let out = if resolved.is_null() {
                    libc::malloc(s.len() + 1) as *mut c_char
                } else {
                    resolved
                };
                if !out.is_null() {
                    std::ptr::copy_nonoverlapping(s.as_ptr(), out as *mut u8, s.len());
                    *out.add(s.len()) = 0;
                }
                out
            }
        },
        std::ptr::null_mut(),
    )
}

#[no_mangle]
pub unsafe extern "C" fn fopen64(p: *const c_char, mode: *const c_char) -> *mut FILE {
    hook(
        || (real().fopen64)(p, mode),
        || match path(p).map(classify) {
            Some(PathKind::Uevent) => {
                let fd = content_fd(paths::UEVENT);
                if fd < 0 {
                    return std::ptr::null_mut();
                }
                libc::fdopen(fd, c"r".as_ptr())
            }
            Some(PathKind::Other) | None => (real().fopen64)(p, mode),
            Some(_) => {
                set_errno(libc::ENOENT);
                std::ptr::null_mut()
            }
        },
        std::ptr::null_mut(),
    )
}

#[no_mangle]
pub unsafe extern "C" fn fopen(p: *const c_char, mode: *const c_char) -> *mut FILE {
    fopen64(p, mode)
}

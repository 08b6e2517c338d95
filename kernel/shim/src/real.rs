//! The libc functions we interpose, resolved with dlsym(RTLD_NEXT) so our
//! hooks can forward to them.

use libc::{c_char, c_int, c_ulong, c_void, mode_t, off64_t, size_t, ssize_t, DIR, FILE};
use std::sync::OnceLock;

pub struct Real {
    pub open64: unsafe extern "C" fn(*const c_char, c_int, mode_t) -> c_int,
    pub openat64: unsafe extern "C" fn(c_int, *const c_char, c_int, mode_t) -> c_int,
    pub close: unsafe extern "C" fn(c_int) -> c_int,
    pub ioctl: unsafe extern "C" fn(c_int, c_ulong, *mut c_void) -> c_int,
    pub fcntl: unsafe extern "C" fn(c_int, c_int, *mut c_void) -> c_int,
    pub dup: unsafe extern "C" fn(c_int) -> c_int,
    pub dup2: unsafe extern "C" fn(c_int, c_int) -> c_int,
    pub dup3: unsafe extern "C" fn(c_int, c_int, c_int) -> c_int,
    pub munmap: unsafe extern "C" fn(*mut c_void, size_t) -> c_int,
    pub mmap64:
        unsafe extern "C" fn(*mut c_void, size_t, c_int, c_int, c_int, off64_t) -> *mut c_void,
    pub stat64: unsafe extern "C" fn(*const c_char, *mut libc::stat64) -> c_int,
    pub lstat64: unsafe extern "C" fn(*const c_char, *mut libc::stat64) -> c_int,
    pub fstat64: unsafe extern "C" fn(c_int, *mut libc::stat64) -> c_int,
    pub fstatat64: unsafe extern "C" fn(c_int, *const c_char, *mut libc::stat64, c_int) -> c_int,
    pub access: unsafe extern "C" fn(*const c_char, c_int) -> c_int,
    pub readlink: unsafe extern "C" fn(*const c_char, *mut c_char, size_t) -> ssize_t,
    pub realpath: unsafe extern "C" fn(*const c_char, *mut c_char) -> *mut c_char,
    pub fopen64: unsafe extern "C" fn(*const c_char, *const c_char) -> *mut FILE,
    pub opendir: unsafe extern "C" fn(*const c_char) -> *mut DIR,
    pub readdir64: unsafe extern "C" fn(*mut DIR) -> *mut libc::dirent64,
    pub closedir: unsafe extern "C" fn(*mut DIR) -> c_int,
}

unsafe fn sym<T>(name: &[u8]) -> T {
    let p = libc::dlsym(libc::RTLD_NEXT, name.as_ptr() as *const c_char);
    if p.is_null() {
        let msg = b"agx16-drm-shim: a libc symbol is missing, aborting\n";
        libc::write(2, msg.as_ptr() as *const c_void, msg.len());
        libc::abort();
    }
    std::mem::transmute_copy(&p)
}

/// Resolved on first use. dlsym does not call any function we interpose.
pub fn real() -> &'static Real {
    static REAL: OnceLock<Real> = OnceLock::new();
    REAL.get_or_init(|| unsafe {
        Real {
            open64: sym(b"open64\0"),
            openat64: sym(b"openat64\0"),
            close: sym(b"close\0"),
            ioctl: sym(b"ioctl\0"),
            fcntl: sym(b"fcntl64\0"),
            dup: sym(b"dup\0"),
            dup2: sym(b"dup2\0"),
            dup3: sym(b"dup3\0"),
            mmap64: sym(b"mmap64\0"),
            munmap: sym(b"munmap\0"),
            stat64: sym(b"stat64\0"),
            lstat64: sym(b"lstat64\0"),
            fstat64: sym(b"fstat64\0"),
            fstatat64: sym(b"fstatat64\0"),
            access: sym(b"access\0"),
            readlink: sym(b"readlink\0"),
            realpath: sym(b"realpath\0"),
            fopen64: sym(b"fopen64\0"),
            opendir: sym(b"opendir\0"),
            readdir64: sym(b"readdir64\0"),
            closedir: sym(b"closedir\0"),
        }
    })
}

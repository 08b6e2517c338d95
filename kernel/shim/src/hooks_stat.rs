//! stat family and access: the node is a char device 226:128, our sysfs
//! paths exist, every other DRM path is hidden.

use crate::fdtable::{self, Entry};
use crate::guard::{hook, path, set_errno};
use crate::paths::{self, classify, PathKind};
use crate::real::real;
use libc::{c_char, c_int};

fn fake_stat(st: &mut libc::stat64, mode: u32, rdev: u64, size: i64) {
    // SAFETY: stat64 is plain data.
    *st = unsafe { std::mem::zeroed() };
    st.st_mode = mode;
    st.st_rdev = rdev;
    st.st_size = size;
    st.st_nlink = 1;
    st.st_blksize = 4096;
}

/// Fill `st` for our paths; None = not ours.
fn stat_path(p: &[u8], st: &mut libc::stat64, follow: bool) -> Option<c_int> {
    let chr = libc::S_IFCHR | 0o666;
    let dir = libc::S_IFDIR | 0o755;
    match classify(p) {
        PathKind::RenderNode => {
            fake_stat(
                st,
                chr,
                paths::makedev(paths::DRM_MAJOR, paths::RENDER_MINOR),
                0,
            );
        }
        PathKind::SysDevice | PathKind::SysDeviceDrm => fake_stat(st, dir, 0, 0),
        PathKind::Subsystem if !follow => fake_stat(st, libc::S_IFLNK | 0o777, 0, 0),
        PathKind::Subsystem => fake_stat(st, dir, 0, 0),
        PathKind::Uevent => fake_stat(st, libc::S_IFREG | 0o444, 0, paths::UEVENT.len() as i64),
        PathKind::Hidden => {
            set_errno(libc::ENOENT);
            return Some(-1);
        }
        PathKind::Other => return None,
    }
    Some(0)
}

unsafe fn stat_hook(
    p: *const c_char,
    st: *mut libc::stat64,
    follow: bool,
    pass: impl Fn() -> c_int,
) -> c_int {
    hook(
        &pass,
        || match path(p).filter(|_| !st.is_null()) {
            Some(s) => stat_path(s, &mut *st, follow).unwrap_or_else(&pass),
            None => pass(),
        },
        -1,
    )
}

#[no_mangle]
pub unsafe extern "C" fn stat64(p: *const c_char, st: *mut libc::stat64) -> c_int {
    stat_hook(p, st, true, || (real().stat64)(p, st))
}

#[no_mangle]
pub unsafe extern "C" fn stat(p: *const c_char, st: *mut libc::stat64) -> c_int {
    stat64(p, st)
}

#[no_mangle]
pub unsafe extern "C" fn lstat64(p: *const c_char, st: *mut libc::stat64) -> c_int {
    stat_hook(p, st, false, || (real().lstat64)(p, st))
}

#[no_mangle]
pub unsafe extern "C" fn lstat(p: *const c_char, st: *mut libc::stat64) -> c_int {
    lstat64(p, st)
}

#[no_mangle]
pub unsafe extern "C" fn fstatat64(
    dir: c_int,
    p: *const c_char,
    st: *mut libc::stat64,
    flags: c_int,
) -> c_int {
    let follow = flags & libc::AT_SYMLINK_NOFOLLOW == 0;
    let empty = flags & libc::AT_EMPTY_PATH != 0 && path(p).is_some_and(|s| s.is_empty());
    if empty {
        return fstat64(dir, st);
    }
    let absolute = path(p).is_some_and(|s| s.first() == Some(&b'/'));
    if !absolute {
        return (real().fstatat64)(dir, p, st, flags);
    }
    stat_hook(p, st, follow, || (real().fstatat64)(dir, p, st, flags))
}

#[no_mangle]
pub unsafe extern "C" fn fstatat(
    dir: c_int,
    p: *const c_char,
    st: *mut libc::stat64,
    f: c_int,
) -> c_int {
    fstatat64(dir, p, st, f)
}

#[no_mangle]
pub unsafe extern "C" fn fstat64(fd: c_int, st: *mut libc::stat64) -> c_int {
    hook(
        || (real().fstat64)(fd, st),
        || match fdtable::get(fd) {
            Some(Entry::Drm(_)) if !st.is_null() => {
                let rdev = paths::makedev(paths::DRM_MAJOR, paths::RENDER_MINOR);
                fake_stat(&mut *st, libc::S_IFCHR | 0o666, rdev, 0);
                0
            }
            _ => (real().fstat64)(fd, st),
        },
        -1,
    )
}

#[no_mangle]
pub unsafe extern "C" fn fstat(fd: c_int, st: *mut libc::stat64) -> c_int {
    fstat64(fd, st)
}

#[no_mangle]
pub unsafe extern "C" fn access(p: *const c_char, mode: c_int) -> c_int {
    hook(
        || (real().access)(p, mode),
        || match path(p).map(classify) {
            Some(PathKind::Other) | None => (real().access)(p, mode),
            Some(PathKind::Hidden) => {
                set_errno(libc::ENOENT);
                -1
            }
            Some(_) => 0,
        },
        -1,
    )
}

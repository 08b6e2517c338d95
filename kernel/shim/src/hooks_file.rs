//! open/close/dup/fcntl, stat family, access, readlink, realpath, fopen.

use crate::device::{debug, device};
use crate::fdtable::{self, Entry};
use crate::guard::{hook, path, set_errno};
use crate::host::register_dup;
use crate::paths::{self, classify, PathKind};
use crate::real::real;
use libc::{c_char, c_int, c_void, mode_t, size_t, ssize_t, FILE};

/// An fd holding `content`, positioned at the start.
unsafe fn content_fd(content: &[u8]) -> c_int {
    let fd = libc::memfd_create(c"agx16-sysfs".as_ptr(), libc::MFD_CLOEXEC);
    if fd >= 0 {
        libc::write(fd, content.as_ptr() as *const c_void, content.len());
        libc::lseek(fd, 0, libc::SEEK_SET);
    }
    fd
}

unsafe fn open_node(flags: c_int) -> c_int {
    // The fd itself is an empty memfd (a unique inode per open, see
    // fdtable); every operation on it that matters is intercepted.
    let cloexec = if flags & libc::O_CLOEXEC != 0 {
        libc::MFD_CLOEXEC
    } else {
        0
    };
    let fd = libc::memfd_create(c"agx16-renderD128".as_ptr(), cloexec);
    if fd >= 0 {
        let file = device().open();
        if debug() {
            log::debug!("open render node -> fd {fd} (file {})", file.id);
        }
        fdtable::insert(fd, Entry::Drm(file));
    }
    fd
}

unsafe fn do_open(p: &[u8], flags: c_int) -> Option<c_int> {
    match classify(p) {
        PathKind::RenderNode => Some(open_node(flags)),
        PathKind::Uevent => Some(content_fd(paths::UEVENT)),
        PathKind::Other => None,
        _ => {
            set_errno(libc::ENOENT);
            Some(-1)
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn open64(p: *const c_char, flags: c_int, mode: mode_t) -> c_int {
    hook(
        || (real().open64)(p, flags, mode),
        || match path(p).and_then(|s| do_open(s, flags)) {
            Some(fd) => fd,
            None => (real().open64)(p, flags, mode),
        },
        -1,
    )
}

#[no_mangle]
pub unsafe extern "C" fn open(p: *const c_char, flags: c_int, mode: mode_t) -> c_int {
    open64(p, flags, mode)
}

#[no_mangle]
pub unsafe extern "C" fn __open64_2(p: *const c_char, flags: c_int) -> c_int {
    open64(p, flags, 0)
}

#[no_mangle]
pub unsafe extern "C" fn __open_2(p: *const c_char, flags: c_int) -> c_int {
    open64(p, flags, 0)
}

#[no_mangle]
pub unsafe extern "C" fn openat64(
    dir: c_int,
    p: *const c_char,
    flags: c_int,
    mode: mode_t,
) -> c_int {
    hook(
        || (real().openat64)(dir, p, flags, mode),
        || {
            // Relative paths cannot name the device.
            let ours = path(p)
                .filter(|s| s.first() == Some(&b'/'))
                .and_then(|s| do_open(s, flags));
            ours.unwrap_or_else(|| (real().openat64)(dir, p, flags, mode))
        },
        -1,
    )
}

#[no_mangle]
pub unsafe extern "C" fn openat(dir: c_int, p: *const c_char, flags: c_int, mode: mode_t) -> c_int {
    openat64(dir, p, flags, mode)
}

#[no_mangle]
pub unsafe extern "C" fn __openat64_2(dir: c_int, p: *const c_char, flags: c_int) -> c_int {
    openat64(dir, p, flags, 0)
}

#[no_mangle]
pub unsafe extern "C" fn __openat_2(dir: c_int, p: *const c_char, flags: c_int) -> c_int {
    openat64(dir, p, flags, 0)
}

#[no_mangle]
pub unsafe extern "C" fn close(fd: c_int) -> c_int {
    hook(
        || (real().close)(fd),
        || {
            // Dropping the entry may release a whole open file (its queues
            // retire, its objects go away) as closing a DRM fd does.
            let entry = fdtable::remove(fd);
            let r = (real().close)(fd);
            drop(entry);
            r
        },
        -1,
    )
}

#[no_mangle]
pub unsafe extern "C" fn dup(fd: c_int) -> c_int {
    hook(
        || (real().dup)(fd),
        || {
            let new = (real().dup)(fd);
            if new >= 0 {
                register_dup(fd, new);
            }
            new
        },
        -1,
    )
}

#[no_mangle]
pub unsafe extern "C" fn dup2(fd: c_int, to: c_int) -> c_int {
    hook(
        || (real().dup2)(fd, to),
        || {
            let new = (real().dup2)(fd, to);
            if new >= 0 && new != fd {
                fdtable::remove(new);
                register_dup(fd, new);
            }
            new
        },
        -1,
    )
}

#[no_mangle]
pub unsafe extern "C" fn dup3(fd: c_int, to: c_int, flags: c_int) -> c_int {
    hook(
        || (real().dup3)(fd, to, flags),
        || {
            let new = (real().dup3)(fd, to, flags);
            if new >= 0 {
                fdtable::remove(new);
                register_dup(fd, new);
            }
            new
        },
        -1,
    )
}

#[no_mangle]
pub unsafe extern "C" fn fcntl64(fd: c_int, cmd: c_int, arg: *mut c_void) -> c_int {
    hook(
        || (real().fcntl)(fd, cmd, arg),
        || {
            let r = (real().fcntl)(fd, cmd, arg);
            if r >= 0 && (cmd == libc::F_DUPFD || cmd == libc::F_DUPFD_CLOEXEC) {
                register_dup(fd, r);
            }
            r
        },
        -1,
    )
}

#[no_mangle]
pub unsafe extern "C" fn fcntl(fd: c_int, cmd: c_int, arg: *mut c_void) -> c_int {
    fcntl64(fd, cmd, arg)
}

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

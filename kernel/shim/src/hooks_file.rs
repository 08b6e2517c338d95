//! open/close/dup/fcntl of the render node and of the fds the shim owns.

use crate::device::{debug, device};
use crate::fdtable::{self, Entry};
use crate::guard::{hook, path, set_errno};
use crate::host::register_dup;
use crate::paths::{self, classify, PathKind};
use crate::real::real;
use libc::{c_char, c_int, c_void, mode_t};

/// An fd holding `content`, positioned at the start.
pub(crate) unsafe fn content_fd(content: &[u8]) -> c_int {
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

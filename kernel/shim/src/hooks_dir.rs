//! opendir/readdir/closedir: list our node in /dev/dri (and nothing else
//! there), and in the device's `drm` sysfs directory.

use crate::guard::{hook, path, set_errno};
use crate::paths::{classify, PathKind, DEV_DRI, RENDER_NAME};
use crate::real::real;
use libc::{c_char, c_int, DIR};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::OnceLock;

struct DirState {
    /// Our entry not yet returned.
    pending: bool,
    /// A real directory stream sits behind the pointer.
    real: bool,
    entry: Box<libc::dirent64>,
}

fn dirs() -> &'static Mutex<HashMap<usize, DirState>> {
    static DIRS: OnceLock<Mutex<HashMap<usize, DirState>>> = OnceLock::new();
    DIRS.get_or_init(|| Mutex::new(HashMap::new()))
}

fn render_dirent() -> Box<libc::dirent64> {
    // SAFETY: dirent64 is plain data.
    let mut d: Box<libc::dirent64> = Box::new(unsafe { std::mem::zeroed() });
    d.d_ino = 1;
    d.d_type = libc::DT_CHR;
    d.d_reclen = std::mem::size_of::<libc::dirent64>() as u16;
    for (i, b) in RENDER_NAME.iter().enumerate() {
        d.d_name[i] = *b as c_char;
    }
    d
}

unsafe fn track(dir: *mut DIR, real: bool) -> *mut DIR {
    let dir = if dir.is_null() {
        // No such directory on this machine: a private token stands in.
        Box::into_raw(Box::new(0u64)) as *mut DIR
    } else {
        dir
    };
    dirs().lock().insert(
        dir as usize,
        DirState {
            pending: true,
            real,
            entry: render_dirent(),
        },
    );
    dir
}

#[no_mangle]
pub unsafe extern "C" fn opendir(p: *const c_char) -> *mut DIR {
    hook(
        || (real().opendir)(p),
        || match path(p) {
            Some(DEV_DRI) => {
                let d = (real().opendir)(p);
                track(d, !d.is_null())
            }
            Some(s) => match classify(s) {
                PathKind::SysDeviceDrm => track(std::ptr::null_mut(), false),
                PathKind::Other => (real().opendir)(p),
                _ => {
                    set_errno(libc::ENOENT);
                    std::ptr::null_mut()
                }
            },
            None => (real().opendir)(p),
        },
        std::ptr::null_mut(),
    )
}

unsafe fn next(dir: *mut DIR) -> *mut libc::dirent64 {
    let mut map = dirs().lock();
    let Some(state) = map.get_mut(&(dir as usize)) else {
        drop(map);
        return (real().readdir64)(dir);
    };
    if state.pending {
        state.pending = false;
        return &mut *state.entry;
    }
    if !state.real {
        return std::ptr::null_mut();
    }
    drop(map);
    // Hide every real device node; keep "." and "..".
    loop {
        let e = (real().readdir64)(dir);
        if e.is_null() {
            return e;
        }
        let name = std::ffi::CStr::from_ptr((*e).d_name.as_ptr()).to_bytes();
        if name == b"." || name == b".." {
            return e;
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn readdir64(dir: *mut DIR) -> *mut libc::dirent64 {
    hook(
        || (real().readdir64)(dir),
        || next(dir),
        std::ptr::null_mut(),
    )
}

/// glibc's `struct dirent` has the 64-bit layout on LP64 Linux.
#[no_mangle]
pub unsafe extern "C" fn readdir(dir: *mut DIR) -> *mut libc::dirent64 {
    readdir64(dir)
}

#[no_mangle]
pub unsafe extern "C" fn closedir(dir: *mut DIR) -> c_int {
    hook(
        || (real().closedir)(dir),
        || match dirs().lock().remove(&(dir as usize)) {
            Some(state) if !state.real => {
                drop(Box::from_raw(dir as *mut u64));
                0
            }
            _ => (real().closedir)(dir),
        },
        -1,
    )
}

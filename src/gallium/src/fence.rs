//! Fences are DRM syncobjs. A flush that submits a render hands its fence a syncobj the SUBMIT
//! signals (an out-sync of the submission, see batch.rs); a flush with nothing to submit waits
//! for earlier submissions and returns a syncobj created signalled (DRM_SYNCOBJ_CREATE_SIGNALED).
//! `fence_finish` waits on whatever the syncobj holds (SYNCOBJ_WAIT with WAIT_FOR_SUBMIT).

use crate::bo::Uapi;
use crate::ffi::guard;
use crate::screen::Screen;
use agx16_kernel::uapi::drm::{
    DrmSyncobjCreate, DrmSyncobjDestroy, DrmSyncobjHandle, DrmSyncobjWait, NR_SYNCOBJ_CREATE,
    NR_SYNCOBJ_DESTROY, NR_SYNCOBJ_HANDLE_TO_FD, NR_SYNCOBJ_WAIT, SYNCOBJ_CREATE_SIGNALED,
    SYNCOBJ_HANDLE_TO_FD_EXPORT_SYNC_FILE, SYNCOBJ_WAIT_ALL, SYNCOBJ_WAIT_FOR_SUBMIT,
};
use agx16_kernel::uapi::ioctl::{drm_iowr, Request, IOC_READ, IOC_WRITE};
use agx16_mesa_sys as sys;
use std::ffi::c_void;
use std::io;
use std::sync::atomic::{AtomicU32, Ordering};

/// What Mesa holds as `pipe_fence_handle` (opaque to it).
pub struct Fence {
    refs: AtomicU32,
    pub syncobj: u32,
}

pub fn drm<T>(uapi: &dyn Uapi, nr: u32, v: &mut T) -> io::Result<()> {
    let request = drm_iowr(nr, std::mem::size_of::<T>());
    // SAFETY: `v` is the struct the request encodes, live across the call.
    unsafe { uapi.ioctl(request, v as *mut T as *mut c_void) }
}

impl Fence {
    /// A fence for "everything submitted so far", which is nothing yet: a signalled syncobj.
    pub fn signalled(uapi: &dyn Uapi) -> io::Result<*mut Fence> {
        let mut c = DrmSyncobjCreate {
            handle: 0,
            flags: SYNCOBJ_CREATE_SIGNALED,
        };
        drm(uapi, NR_SYNCOBJ_CREATE, &mut c)?;
        Ok(Box::into_raw(Box::new(Fence {
            refs: AtomicU32::new(1),
            syncobj: c.handle,
        })))
    }

    /// A fence owning `syncobj` (destroyed with the last reference).
    pub fn from_syncobj(syncobj: u32) -> *mut Fence {
        Box::into_raw(Box::new(Fence {
            refs: AtomicU32::new(1),
            syncobj,
        }))
    }

    /// Waits up to `timeout_ns` (u64::MAX: forever); true when the syncobj's work has completed.
    pub fn wait(&self, uapi: &dyn Uapi, timeout_ns: u64) -> io::Result<bool> {
        syncobj_wait(uapi, self.syncobj, timeout_ns)
    }

    fn destroy(fence: *mut Fence, uapi: &dyn Uapi) {
        // SAFETY: the last reference is gone; the box was made by `signalled`.
        let fence = unsafe { Box::from_raw(fence) };
        syncobj_destroy(uapi, fence.syncobj);
    }

    /// Gallium's reference rule: `*dst = src`, counting references, destroying what drops to zero.
    ///
    /// # Safety
    /// `dst` must be valid; `*dst` and `src` are null or fences from `signalled`.
    pub unsafe fn reference(uapi: &dyn Uapi, dst: *mut *mut Fence, src: *mut Fence) {
        let old = *dst;
        if old == src {
            return;
        }
        if let Some(s) = src.as_ref() {
            s.refs.fetch_add(1, Ordering::AcqRel);
        }
        if let Some(o) = old.as_ref() {
            if o.refs.fetch_sub(1, Ordering::AcqRel) == 1 {
                Fence::destroy(old, uapi);
            }
        }
        *dst = src;
    }
}

/// Creates a syncobj (signalled or not).
pub fn syncobj_create(uapi: &dyn Uapi, signalled: bool) -> io::Result<u32> {
    let mut c = DrmSyncobjCreate {
        handle: 0,
        flags: if signalled {
            SYNCOBJ_CREATE_SIGNALED
        } else {
            0
        },
    };
    drm(uapi, NR_SYNCOBJ_CREATE, &mut c)?;
    Ok(c.handle)
}

/// Destroys a syncobj, reporting (not failing on) errors.
pub fn syncobj_destroy(uapi: &dyn Uapi, syncobj: u32) {
    let mut d = DrmSyncobjDestroy {
        handle: syncobj,
        pad: 0,
    };
    if let Err(e) = drm(uapi, NR_SYNCOBJ_DESTROY, &mut d) {
        eprintln!("agx16: SYNCOBJ_DESTROY of {syncobj}: {e}");
    }
}

/// Waits up to `timeout_ns` (u64::MAX: forever) for a syncobj; true when its work completed.
pub fn syncobj_wait(uapi: &dyn Uapi, syncobj: u32, timeout_ns: u64) -> io::Result<bool> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: plain clock read into a local.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    let now = now.tv_sec * 1_000_000_000 + now.tv_nsec;
    let deadline = i64::try_from(timeout_ns)
        .ok()
        .and_then(|t| now.checked_add(t))
        .unwrap_or(i64::MAX);
    let handles = [syncobj];
    let mut w = DrmSyncobjWait {
        handles: handles.as_ptr() as u64,
        timeout_nsec: deadline,
        count_handles: 1,
        flags: SYNCOBJ_WAIT_ALL | SYNCOBJ_WAIT_FOR_SUBMIT,
        ..Default::default()
    };
    match drm(uapi, NR_SYNCOBJ_WAIT, &mut w) {
        Ok(()) => Ok(true),
        Err(e) if e.raw_os_error() == Some(libc::ETIME) => Ok(false),
        Err(e) => Err(e),
    }
}

/// How the work behind a signalled syncobj ended: `None` when it completed, `Some(errno)` when
/// the kernel failed it (EIO: a GPU fault or a refused encoding, ETIMEDOUT: the job watchdog,
/// EINVAL: a malformed command stream, ECANCELED: its queue went away). The asahi UAPI has no
/// result buffer (mainline include/uapi/drm/asahi_drm.h `drm_asahi_submit`); a failed job
/// sets its out-fence's error, which userspace reads as Linux does everywhere: export the
/// fence as a sync file (SYNCOBJ_HANDLE_TO_FD with EXPORT_SYNC_FILE) and read its status with
/// SYNC_IOC_FILE_INFO (include/uapi/linux/sync_file.h: negative = the fence's error).
pub fn syncobj_error(uapi: &dyn Uapi, syncobj: u32) -> io::Result<Option<i32>> {
    let mut h = DrmSyncobjHandle {
        handle: syncobj,
        flags: SYNCOBJ_HANDLE_TO_FD_EXPORT_SYNC_FILE,
        fd: -1,
        ..Default::default()
    };
    drm(uapi, NR_SYNCOBJ_HANDLE_TO_FD, &mut h)?;
    // struct sync_file_info: name[32], status, flags, num_fences, pad, sync_fence_info.
    let mut info = [0u8; 56];
    let request = Request::encode(IOC_READ | IOC_WRITE, b'>' as u32, 4, info.len());
    // SAFETY: `info` is the 56-byte struct SYNC_IOC_FILE_INFO encodes; num_fences 0 asks for
    // no per-fence array.
    let r = unsafe { uapi.fd_ioctl(h.fd, request, info.as_mut_ptr() as *mut c_void) };
    uapi.close_fd(h.fd);
    r?;
    let status = i32::from_ne_bytes(info[32..36].try_into().expect("4 bytes"));
    Ok((status < 0).then_some(-status))
}

pub unsafe extern "C" fn fence_reference(
    screen: *mut sys::pipe_screen,
    dst: *mut *mut sys::pipe_fence_handle,
    src: *mut sys::pipe_fence_handle,
) {
    guard("fence_reference", (), || {
        Fence::reference(
            Screen::get(screen).bo.uapi(),
            dst as *mut *mut Fence,
            src as *mut Fence,
        )
    })
}

pub unsafe extern "C" fn fence_finish(
    screen: *mut sys::pipe_screen,
    _: *mut sys::pipe_context,
    fence: *mut sys::pipe_fence_handle,
    timeout: u64,
) -> bool {
    guard("fence_finish", false, || {
        let Some(f) = (fence as *mut Fence).as_ref() else {
            return true; // no fence: nothing to wait for
        };
        match f.wait(Screen::get(screen).bo.uapi(), timeout) {
            Ok(done) => done,
            Err(e) => {
                eprintln!("agx16: fence_finish: SYNCOBJ_WAIT on {}: {e}", f.syncobj);
                false
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bo::testing::device;
    use std::ptr::null_mut;

    #[test]
    fn flush_fences_are_signalled_syncobjs_and_unsubmitted_ones_time_out() {
        let (k, dev) = device();
        let uapi = dev.uapi();
        let f = Fence::signalled(uapi).unwrap();
        assert_eq!(k.file.counts().syncobjs, 1);
        assert!(unsafe { &*f }.wait(uapi, 0).unwrap());
        assert!(unsafe { &*f }.wait(uapi, u64::MAX).unwrap());
        // Two holders, then both let go: the syncobj is destroyed once.
        let (mut a, mut b) = (null_mut(), null_mut());
        unsafe {
            Fence::reference(uapi, &mut a, f);
            Fence::reference(uapi, &mut b, f);
            let mut creator = f;
            Fence::reference(uapi, &mut creator, null_mut());
            assert_eq!(k.file.counts().syncobjs, 1);
            Fence::reference(uapi, &mut a, null_mut());
            Fence::reference(uapi, &mut b, null_mut());
        }
        assert_eq!(k.file.counts().syncobjs, 0);
        // A syncobj with work never submitted is not signalled: a zero-timeout wait says so.
        let mut c = DrmSyncobjCreate::default();
        drm(uapi, NR_SYNCOBJ_CREATE, &mut c).unwrap();
        let pending = Fence {
            refs: AtomicU32::new(1),
            syncobj: c.handle,
        };
        assert!(!pending.wait(uapi, 0).unwrap());
    }
}

//! Every exported hook runs through `hook()`: a per-thread re-entrancy
//! guard (our own code may call the interposed libc functions, which must
//! then go straight to libc) and `catch_unwind` so no panic crosses into C.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

thread_local! {
    static IN_HOOK: Cell<bool> = const { Cell::new(false) };
}

pub fn set_errno(e: i32) {
    // SAFETY: errno is thread-local.
    unsafe { *libc::__errno_location() = e };
}

/// Run `body` unless this thread is already inside a hook, in which case
/// run `pass` (forward to libc). A panic sets errno EIO and yields
/// `on_panic`.
pub fn hook<R>(pass: impl FnOnce() -> R, body: impl FnOnce() -> R, on_panic: R) -> R {
    let nested = IN_HOOK.try_with(|g| g.replace(true)).unwrap_or(true);
    if nested {
        return pass();
    }
    let result = catch_unwind(AssertUnwindSafe(body));
    let _ = IN_HOOK.try_with(|g| g.set(false));
    match result {
        Ok(v) => v,
        Err(_) => {
            let msg = b"agx16-drm-shim: internal panic caught at the C boundary\n";
            // SAFETY: write a static buffer to stderr.
            unsafe { libc::write(2, msg.as_ptr() as *const libc::c_void, msg.len()) };
            set_errno(libc::EIO);
            on_panic
        }
    }
}

/// The bytes of a C path, or None for NULL.
///
/// # Safety
/// `p` must be NULL or a NUL-terminated string.
pub unsafe fn path<'a>(p: *const libc::c_char) -> Option<&'a [u8]> {
    (!p.is_null()).then(|| std::ffi::CStr::from_ptr(p).to_bytes())
}

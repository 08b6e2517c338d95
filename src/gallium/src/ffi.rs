//! The C boundary: no panic may unwind into Mesa.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f`; if it panics, reports the internal error on stderr and returns `fallback` instead.
pub fn guard<T>(what: &str, fallback: T, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => value,
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            eprintln!("agx16: internal error in {what}: {detail}");
            fallback
        }
    }
}

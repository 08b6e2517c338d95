//! The time bound on stage bodies. A legal shader may loop for a long time (100,000
//! iterations on one pixel is about a millisecond on the M4), so the model bounds a
//! SIMD-group's run by wall-clock time, not by an instruction count: the render's cancel
//! hook (the kernel's job timeout, the real guard) and, behind it, a generous per-run
//! limit (`AGX16_SIM_WATCHDOG_MS`, default 60 s) for callers without a hook. Either stops
//! the run with [`crate::error::SimError::Budget`] at its pc, which the kernel reports as
//! a job timeout.
//!
//! Both limits are CPU time of the process ([`process_cpu_time`]), not wall time: the
//! model shares the host with other work, and on a loaded host a job that needs 5 s of
//! CPU took 30 s of wall time and timed out (dEQP texture.vertex cases during a sweep).

use std::cell::Cell;
use std::time::{Duration, Instant};

type Hook = *const (dyn Fn() -> bool + 'static);

thread_local! {
    /// The cancel hook of the render this thread is working on.
    static HOOK: Cell<Option<Hook>> = const { Cell::new(None) };
}

/// Runs `f` with `cancelled` as this thread's render cancel hook.
pub(crate) fn with_cancel<R>(cancelled: &dyn Fn() -> bool, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Hook>);
    impl Drop for Restore {
        fn drop(&mut self) {
            HOOK.with(|h| h.set(self.0));
        }
    }
    // SAFETY: only the lifetime is erased; the pointer is cleared (Restore) before
    // `cancelled` goes out of scope, and it is only called inside `f`.
    let erased: Hook = unsafe { std::mem::transmute(cancelled as *const dyn Fn() -> bool) };
    let _restore = Restore(HOOK.with(|h| h.replace(Some(erased))));
    f()
}

/// Whether this thread's render was cancelled.
fn render_cancelled() -> bool {
    // SAFETY: a hook is set only for the extent of `with_cancel`, which outlives it.
    HOOK.with(|h| h.get()).is_some_and(|p| unsafe { (*p)() })
}

/// CPU time the process has used, all threads (the model's workers included).
pub fn process_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime into a local.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The per-run CPU-time limit (`AGX16_SIM_WATCHDOG_MS`, read once).
pub fn run_limit() -> Duration {
    static LIMIT: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let ms = std::env::var("AGX16_SIM_WATCHDOG_MS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(60_000);
        Duration::from_millis(ms)
    })
}

/// The poll a body run gives the core (every `CANCEL_POLL` instructions).
///
/// Its CPU-time window opens at the first clock read, [`READ_INTERVAL`] of wall time into
/// the run, not when the run starts: a render starts a run per vertex batch and fragment
/// group, nearly all of which end long before that, and reading the process CPU clock (a
/// system call summing every thread) for each of them was a visible part of a small draw.
/// The limit is thus counted from at most one interval later.
pub(crate) struct RunWatch {
    /// Process CPU time at the first clock read.
    start: Cell<Option<Duration>>,
    /// The next wall time the CPU clock is read (set at the first poll).
    next_read: Cell<Option<Instant>>,
}

/// How often (wall time) a run reads the CPU clock.
const READ_INTERVAL: Duration = Duration::from_millis(5);

impl RunWatch {
    pub(crate) fn start() -> RunWatch {
        RunWatch {
            start: Cell::new(None),
            next_read: Cell::new(None),
        }
    }

    pub(crate) fn expired(&self) -> bool {
        if render_cancelled() {
            return true;
        }
        let now = Instant::now();
        match self.next_read.get() {
            Some(t) if now >= t => {}
            Some(_) => return false,
            None => {
                self.next_read.set(Some(now + READ_INTERVAL));
                return false;
            }
        }
        self.next_read.set(Some(now + READ_INTERVAL));
        let cpu = process_cpu_time();
        match self.start.get() {
            Some(start) => cpu.saturating_sub(start) >= run_limit(),
            None => {
                self.start.set(Some(cpu));
                false
            }
        }
    }
}

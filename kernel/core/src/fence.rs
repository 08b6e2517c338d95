//! One-shot completion fences (dma_fence) and the wake-up hub waiters use.

use crate::errno::Errno;
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Every fence signal and syncobj change bumps the hub so multi-object
/// waits (ANY/ALL, WAIT_FOR_SUBMIT) can sleep on one condition variable.
#[derive(Default)]
pub struct Hub {
    generation: Mutex<u64>,
    cv: Condvar,
}

impl Hub {
    pub fn notify(&self) {
        *self.generation.lock() += 1;
        self.cv.notify_all();
    }

    /// Wait until `ready` returns Some or the deadline passes.
    pub fn wait_until<T>(
        &self,
        deadline: Option<Instant>,
        mut ready: impl FnMut() -> Option<T>,
    ) -> Option<T> {
        let mut generation = self.generation.lock();
        loop {
            if let Some(value) = ready() {
                return Some(value);
            }
            match deadline {
                Some(d) => {
                    if Instant::now() >= d || self.cv.wait_until(&mut generation, d).timed_out() {
                        return ready();
                    }
                }
                None => self.cv.wait(&mut generation),
            }
        }
    }
}

type Callback = Box<dyn FnOnce(Result<(), Errno>) + Send>;

enum State {
    Pending(Vec<Callback>),
    Signaled(Result<(), Errno>),
}

pub static LIVE_FENCES: AtomicU64 = AtomicU64::new(0);

pub struct Fence {
    state: Mutex<State>,
    hub: Arc<Hub>,
    pub seqno: u64,
}

static NEXT_SEQNO: AtomicU64 = AtomicU64::new(1);

impl Fence {
    pub fn new(hub: &Arc<Hub>) -> Arc<Fence> {
        LIVE_FENCES.fetch_add(1, Ordering::Relaxed);
        Arc::new(Fence {
            state: Mutex::new(State::Pending(Vec::new())),
            hub: hub.clone(),
            seqno: NEXT_SEQNO.fetch_add(1, Ordering::Relaxed),
        })
    }

    pub fn signaled(hub: &Arc<Hub>) -> Arc<Fence> {
        let fence = Fence::new(hub);
        fence.signal(Ok(()));
        fence
    }

    /// First signal wins; later calls are ignored (dma_fence semantics).
    pub fn signal(&self, result: Result<(), Errno>) {
        let callbacks = {
            let mut state = self.state.lock();
            match &mut *state {
                State::Signaled(_) => return,
                State::Pending(cbs) => {
                    let cbs = std::mem::take(cbs);
                    *state = State::Signaled(result);
                    cbs
                }
            }
        };
        for cb in callbacks {
            cb(result);
        }
        self.hub.notify();
    }

    /// None while pending, else Ok or the job's error.
    pub fn status(&self) -> Option<Result<(), Errno>> {
        match &*self.state.lock() {
            State::Pending(_) => None,
            State::Signaled(r) => Some(*r),
        }
    }

    pub fn is_signaled(&self) -> bool {
        self.status().is_some()
    }

    /// Run `cb` once signaled (immediately if already signaled).
    pub fn on_signal(&self, cb: impl FnOnce(Result<(), Errno>) + Send + 'static) {
        let mut state = self.state.lock();
        match &mut *state {
            State::Pending(cbs) => cbs.push(Box::new(cb)),
            State::Signaled(r) => {
                let r = *r;
                drop(state);
                cb(r);
            }
        }
    }

    /// Block until signaled or the deadline passes.
    pub fn wait(&self, deadline: Option<Instant>) -> Option<Result<(), Errno>> {
        self.hub.wait_until(deadline, || self.status())
    }
}

impl Drop for Fence {
    fn drop(&mut self) {
        LIVE_FENCES.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A fence that signals once all of `fences` have (dma_fence_array with
/// signal-on-all); it carries the first error among them.
pub fn merge(hub: &Arc<Hub>, fences: &[Arc<Fence>]) -> Arc<Fence> {
    if fences.len() == 1 {
        return fences[0].clone();
    }
    let merged = Fence::new(hub);
    let pending = Arc::new(Mutex::new((fences.len(), Ok(()))));
    if fences.is_empty() {
        merged.signal(Ok(()));
    }
    for f in fences {
        let merged = merged.clone();
        let pending = pending.clone();
        f.on_signal(move |r| {
            let mut p = pending.lock();
            if p.1.is_ok() {
                p.1 = r;
            }
            p.0 -= 1;
            if p.0 == 0 {
                let result = p.1;
                drop(p);
                merged.signal(result);
            }
        });
    }
    merged
}

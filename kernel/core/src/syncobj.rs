//! DRM sync objects: a binary fence slot or a timeline of (point, fence).
//!
//! Semantics follow Linux drivers/gpu/drm/drm_syncobj.c and
//! dma-fence-chain.c (inferred from their documented behaviour): a timeline
//! point is signalled once its fence and every earlier point's fence are;
//! point 0 means "the latest fence"; replacing the fence (binary signal,
//! reset) drops the timeline.

use crate::errno::Errno;
use crate::fence::{Fence, Hub};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub static LIVE_SYNCOBJS: AtomicU64 = AtomicU64::new(0);

struct Point {
    value: u64,
    fence: Arc<Fence>,
}

pub struct Syncobj {
    points: Mutex<Vec<Point>>,
    hub: Arc<Hub>,
}

/// What a waiter must see complete for a (syncobj, point) pair.
#[derive(Clone)]
pub struct PointFences(pub Vec<Arc<Fence>>);

impl PointFences {
    pub fn status(&self) -> Option<Result<(), Errno>> {
        let mut result = Ok(());
        for f in &self.0 {
            match f.status() {
                None => return None,
                Some(Err(e)) if result.is_ok() => result = Err(e),
                Some(_) => {}
            }
        }
        Some(result)
    }
}

impl Syncobj {
    pub fn new(hub: &Arc<Hub>, signaled: bool) -> Arc<Syncobj> {
        LIVE_SYNCOBJS.fetch_add(1, Ordering::Relaxed);
        let points = if signaled {
            vec![Point {
                value: 0,
                fence: Fence::signaled(hub),
            }]
        } else {
            Vec::new()
        };
        Arc::new(Syncobj {
            points: Mutex::new(points),
            hub: hub.clone(),
        })
    }

    /// Binary replace (None = reset).
    pub fn replace(&self, fence: Option<Arc<Fence>>) {
        let mut points = self.points.lock();
        points.clear();
        if let Some(fence) = fence {
            points.push(Point { value: 0, fence });
        }
        drop(points);
        self.hub.notify();
    }

    /// Timeline: attach `fence` at `value`.
    pub fn add_point(&self, value: u64, fence: Arc<Fence>) {
        let mut points = self.points.lock();
        // A binary fence at the head is a point below every timeline value.
        points.push(Point { value, fence });
        drop(points);
        self.hub.notify();
    }

    /// Latest fence (binary view), None if no fence was ever attached.
    pub fn fence(&self) -> Option<Arc<Fence>> {
        self.points.lock().last().map(|p| p.fence.clone())
    }

    /// Fences that decide whether `point` is signalled; None if the point
    /// has not been submitted yet (or the object is empty).
    pub fn find(&self, point: u64) -> Option<PointFences> {
        let points = self.points.lock();
        if point == 0 {
            return points.last().map(|p| PointFences(vec![p.fence.clone()]));
        }
        let idx = points.iter().position(|p| p.value >= point)?;
        Some(PointFences(
            points[..=idx].iter().map(|p| p.fence.clone()).collect(),
        ))
    }

    /// Highest point whose fence and all earlier fences are signalled.
    pub fn query(&self, last_submitted: bool) -> u64 {
        let points = self.points.lock();
        if last_submitted {
            return points.last().map_or(0, |p| p.value);
        }
        let mut value = 0;
        for p in points.iter() {
            if !p.fence.is_signaled() {
                break;
            }
            value = p.value;
        }
        value
    }
}

impl Drop for Syncobj {
    fn drop(&mut self) {
        LIVE_SYNCOBJS.fetch_sub(1, Ordering::Relaxed);
    }
}

//! Syncobj ioctls (Linux drivers/gpu/drm/drm_syncobj.c semantics, inferred
//! from its documented behaviour; errnos as that file returns them).

use crate::device::{lowest_free, File};
use crate::errno::{Errno, KResult};
use crate::fence::{merge, Fence};
use crate::host::{FdObject, Host};
use crate::ioctl::read_array;
use crate::syncobj::{PointFences, Syncobj};
use crate::uapi::drm as d;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Hard cap on syncobj counts per call (keeps allocations bounded; the
/// kernel is bounded by memory instead).
const MAX_HANDLES: u32 = 1 << 16;

impl File {
    fn syncobjs(&self, host: &dyn Host, addr: u64, count: u32) -> KResult<Vec<Arc<Syncobj>>> {
        if count == 0 || count > MAX_HANDLES {
            return Err(Errno::EINVAL);
        }
        let handles: Vec<u32> = read_array(host, addr, count as usize, 4)?;
        let s = self.state.lock();
        handles
            .iter()
            .map(|h| s.syncobjs.get(h).cloned().ok_or(Errno::ENOENT))
            .collect()
    }

    fn points(&self, host: &dyn Host, addr: u64, count: u32) -> KResult<Vec<u64>> {
        if addr == 0 {
            return Ok(vec![0; count as usize]);
        }
        read_array(host, addr, count as usize, 8)
    }

    fn insert_syncobj(&self, obj: Arc<Syncobj>) -> KResult<u32> {
        let mut s = self.state.lock();
        let h = lowest_free(&s.syncobjs).ok_or(Errno::ENOSPC)?;
        s.syncobjs.insert(h, obj);
        Ok(h)
    }

    pub fn syncobj_create(&self, v: &mut d::DrmSyncobjCreate) -> KResult<i32> {
        if v.flags & !d::SYNCOBJ_CREATE_SIGNALED != 0 {
            return Err(Errno::EINVAL);
        }
        let signaled = v.flags & d::SYNCOBJ_CREATE_SIGNALED != 0;
        v.handle = self.insert_syncobj(Syncobj::new(&self.device.hub, signaled))?;
        Ok(0)
    }

    pub fn syncobj_destroy(&self, v: &mut d::DrmSyncobjDestroy) -> KResult<i32> {
        if v.pad != 0 {
            return Err(Errno::EINVAL);
        }
        let mut s = self.state.lock();
        s.syncobjs.remove(&v.handle).map(|_| 0).ok_or(Errno::EINVAL)
    }

    pub fn syncobj_handle_to_fd(
        &self,
        host: &dyn Host,
        v: &mut d::DrmSyncobjHandle,
    ) -> KResult<i32> {
        let known = d::SYNCOBJ_HANDLE_TO_FD_EXPORT_SYNC_FILE | d::SYNCOBJ_HANDLE_TIMELINE;
        if v.pad != 0 || v.flags & !known != 0 {
            return Err(Errno::EINVAL);
        }
        let timeline = v.flags & d::SYNCOBJ_HANDLE_TIMELINE != 0;
        if !timeline && v.point != 0 {
            return Err(Errno::EINVAL);
        }
        if v.flags & d::SYNCOBJ_HANDLE_TO_FD_EXPORT_SYNC_FILE == 0 {
            if timeline {
                return Err(Errno::EINVAL);
            }
            let obj = self.syncobj(v.handle).ok_or(Errno::EINVAL)?;
            v.fd = host.install_fd(FdObject::Syncobj(obj), true)?;
            return Ok(0);
        }
        let obj = self.syncobj(v.handle).ok_or(Errno::ENOENT)?;
        let fences = obj.find(v.point).ok_or(Errno::EINVAL)?;
        let fence = merge(&self.device.hub, &fences.0);
        v.fd = host.install_fd(FdObject::SyncFile(fence), true)?;
        Ok(0)
    }

    pub fn syncobj_fd_to_handle(
        &self,
        host: &dyn Host,
        v: &mut d::DrmSyncobjHandle,
    ) -> KResult<i32> {
        let known = d::SYNCOBJ_FD_TO_HANDLE_IMPORT_SYNC_FILE | d::SYNCOBJ_HANDLE_TIMELINE;
        if v.pad != 0 || v.flags & !known != 0 {
            return Err(Errno::EINVAL);
        }
        let timeline = v.flags & d::SYNCOBJ_HANDLE_TIMELINE != 0;
        if !timeline && v.point != 0 {
            return Err(Errno::EINVAL);
        }
        let object = host.lookup_fd(v.fd)?;
        if v.flags & d::SYNCOBJ_FD_TO_HANDLE_IMPORT_SYNC_FILE == 0 {
            if timeline {
                return Err(Errno::EINVAL);
            }
            let FdObject::Syncobj(obj) = object else {
                return Err(Errno::EINVAL);
            };
            v.handle = self.insert_syncobj(obj)?;
            return Ok(0);
        }
        let FdObject::SyncFile(fence) = object else {
            return Err(Errno::EINVAL);
        };
        let obj = self.syncobj(v.handle).ok_or(Errno::ENOENT)?;
        if v.point != 0 {
            obj.add_point(v.point, fence);
        } else {
            obj.replace(Some(fence));
        }
        Ok(0)
    }

    fn wait_common(
        &self,
        host: &dyn Host,
        objs: &[Arc<Syncobj>],
        points: &[u64],
        timeout_nsec: i64,
        flags: u32,
    ) -> KResult<u32> {
        let known = d::SYNCOBJ_WAIT_ALL
            | d::SYNCOBJ_WAIT_FOR_SUBMIT
            | d::SYNCOBJ_WAIT_AVAILABLE
            | d::SYNCOBJ_WAIT_DEADLINE;
        if flags & !known != 0 {
            return Err(Errno::EINVAL);
        }
        let for_submit = flags & d::SYNCOBJ_WAIT_FOR_SUBMIT != 0;
        let available_only = flags & d::SYNCOBJ_WAIT_AVAILABLE != 0;
        let all = flags & d::SYNCOBJ_WAIT_ALL != 0;
        // Without WAIT_FOR_SUBMIT every point must already have a fence.
        if !for_submit && objs.iter().zip(points).any(|(o, &p)| o.find(p).is_none()) {
            return Err(Errno::EINVAL);
        }
        let now = host.monotonic_ns() as i64;
        // Absolute CLOCK_MONOTONIC timeout; one too far to represent waits
        // without a deadline.
        let deadline = if timeout_nsec <= now {
            Some(Instant::now())
        } else {
            Instant::now().checked_add(Duration::from_nanos((timeout_nsec - now) as u64))
        };
        let done = |i: usize| -> bool {
            match objs[i].find(points[i]) {
                None => false,
                Some(_) if available_only => true,
                Some(PointFences(f)) => f.iter().all(|f| f.is_signaled()),
            }
        };
        let result = self.device.hub.wait_until(deadline, || {
            if all {
                (0..objs.len()).all(done).then_some(0u32)
            } else {
                (0..objs.len()).find(|&i| done(i)).map(|i| i as u32)
            }
        });
        result.ok_or(Errno::ETIME)
    }

    pub fn syncobj_wait(&self, host: &dyn Host, v: &mut d::DrmSyncobjWait) -> KResult<i32> {
        if v.pad != 0 {
            return Err(Errno::EINVAL);
        }
        let objs = self.syncobjs(host, v.handles, v.count_handles)?;
        let points = vec![0; objs.len()];
        let first = self.wait_common(host, &objs, &points, v.timeout_nsec, v.flags)?;
        if v.flags & d::SYNCOBJ_WAIT_ALL == 0 {
            v.first_signaled = first;
        }
        Ok(0)
    }

    pub fn syncobj_timeline_wait(
        &self,
        host: &dyn Host,
        v: &mut d::DrmSyncobjTimelineWait,
    ) -> KResult<i32> {
        if v.pad != 0 {
            return Err(Errno::EINVAL);
        }
        let objs = self.syncobjs(host, v.handles, v.count_handles)?;
        let points = self.points(host, v.points, v.count_handles)?;
        let first = self.wait_common(host, &objs, &points, v.timeout_nsec, v.flags)?;
        if v.flags & d::SYNCOBJ_WAIT_ALL == 0 {
            v.first_signaled = first;
        }
        Ok(0)
    }

    pub fn syncobj_reset(&self, host: &dyn Host, v: &mut d::DrmSyncobjArray) -> KResult<i32> {
        if v.pad != 0 {
            return Err(Errno::EINVAL);
        }
        for o in self.syncobjs(host, v.handles, v.count_handles)? {
            o.replace(None);
        }
        Ok(0)
    }

    pub fn syncobj_signal(&self, host: &dyn Host, v: &mut d::DrmSyncobjArray) -> KResult<i32> {
        if v.pad != 0 {
            return Err(Errno::EINVAL);
        }
        for o in self.syncobjs(host, v.handles, v.count_handles)? {
            o.replace(Some(Fence::signaled(&self.device.hub)));
        }
        Ok(0)
    }

    pub fn syncobj_timeline_signal(
        &self,
        host: &dyn Host,
        v: &mut d::DrmSyncobjTimelineArray,
    ) -> KResult<i32> {
        if v.flags != 0 {
            return Err(Errno::EINVAL);
        }
        let objs = self.syncobjs(host, v.handles, v.count_handles)?;
        let points = self.points(host, v.points, v.count_handles)?;
        for (o, p) in objs.iter().zip(points) {
            let fence = Fence::signaled(&self.device.hub);
            if p == 0 {
                o.replace(Some(fence));
            } else {
                o.add_point(p, fence);
            }
        }
        Ok(0)
    }

    pub fn syncobj_query(
        &self,
        host: &dyn Host,
        v: &mut d::DrmSyncobjTimelineArray,
    ) -> KResult<i32> {
        if v.flags & !d::SYNCOBJ_QUERY_LAST_SUBMITTED != 0 {
            return Err(Errno::EINVAL);
        }
        let objs = self.syncobjs(host, v.handles, v.count_handles)?;
        let last = v.flags & d::SYNCOBJ_QUERY_LAST_SUBMITTED != 0;
        let values: Vec<u8> = objs
            .iter()
            .flat_map(|o| o.query(last).to_ne_bytes())
            .collect();
        host.copy_to_user(v.points, &values)?;
        Ok(0)
    }

    pub fn syncobj_transfer(&self, v: &mut d::DrmSyncobjTransfer) -> KResult<i32> {
        if v.pad != 0 {
            return Err(Errno::EINVAL);
        }
        let src = self.syncobj(v.src_handle).ok_or(Errno::ENOENT)?;
        let dst = self.syncobj(v.dst_handle).ok_or(Errno::ENOENT)?;
        let found = if v.flags & d::SYNCOBJ_WAIT_FOR_SUBMIT != 0 {
            // Bounded like a job so a transfer can never hang the caller.
            let deadline = Instant::now().checked_add(self.device.engine.timeout);
            self.device
                .hub
                .wait_until(deadline, || src.find(v.src_point))
                .ok_or(Errno::ETIME)?
        } else {
            src.find(v.src_point).ok_or(Errno::EINVAL)?
        };
        let fence = merge(&self.device.hub, &found.0);
        if v.dst_point != 0 {
            dst.add_point(v.dst_point, fence);
        } else {
            dst.replace(Some(fence));
        }
        Ok(0)
    }
}

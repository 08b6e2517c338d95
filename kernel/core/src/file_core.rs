//! Core DRM object ioctls: GEM_CLOSE and PRIME.

use crate::device::File;
use crate::errno::{Errno, KResult};
use crate::host::{FdObject, Host};
use crate::uapi::drm as d;

impl File {
    pub fn gem_close(&self, v: &mut d::DrmGemClose) -> KResult<i32> {
        // drm_gem_handle_delete: unknown handle is EINVAL. Mappings keep the
        // pages alive (the G16 driver pins them until unbind/VM death).
        self.state
            .lock()
            .bos
            .remove(&v.handle)
            .map(|_| 0)
            .ok_or(Errno::EINVAL)
    }

    pub fn prime_export(&self, host: &dyn Host, v: &mut d::DrmPrimeHandle) -> KResult<i32> {
        if v.flags & !(d::DRM_CLOEXEC | d::DRM_RDWR) != 0 {
            return Err(Errno::EINVAL);
        }
        let bo = self.bo(v.handle).ok_or(Errno::ENOENT)?;
        // VM-private objects cannot be exported (g16_drm Buffer::export).
        if bo.private_to.is_some() {
            return Err(Errno::EINVAL);
        }
        v.fd = host.install_fd(FdObject::DmaBuf(bo), v.flags & d::DRM_CLOEXEC != 0)?;
        Ok(0)
    }

    pub fn prime_import(&self, host: &dyn Host, v: &mut d::DrmPrimeHandle) -> KResult<i32> {
        let bo = match host.lookup_fd(v.fd)? {
            FdObject::DmaBuf(bo) => bo,
            _ => return Err(Errno::EINVAL),
        };
        let mut s = self.state.lock();
        // Importing an object this file already holds returns its handle.
        if let Some(h) = s.bos.handle_of(bo.id) {
            v.handle = h;
            return Ok(0);
        }
        v.handle = s.bos.insert(bo).ok_or(Errno::ENOSPC)?;
        Ok(0)
    }
}

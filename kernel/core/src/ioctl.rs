//! ioctl entry: decodes the request like Linux `drm_ioctl()` (copy in the
//! user's size, zero-extend to the kernel struct, copy back the user's
//! size) and routes it to the core-DRM or asahi handler.

use crate::device::File;
use crate::errno::{Errno, KResult};
use crate::host::Host;
use crate::uapi::asahi as a;
use crate::uapi::drm as d;
use crate::uapi::ioctl::{Request, DRM_COMMAND_BASE, DRM_COMMAND_END, IOC_READ, IOC_WRITE};
use bytemuck::Pod;

const W: u32 = IOC_WRITE;
const WR: u32 = IOC_READ | IOC_WRITE;

/// Copy the argument in, run `f`, copy it back (drm_ioctl's sizing rules).
fn call<T: Pod>(
    host: &dyn Host,
    req: Request,
    arg: u64,
    drv_dir: u32,
    f: impl FnOnce(&mut T) -> KResult<i32>,
) -> KResult<i32> {
    let drv_size = std::mem::size_of::<T>();
    let in_size = if req.dir & drv_dir & IOC_WRITE != 0 {
        req.size
    } else {
        0
    };
    let out_size = if req.dir & drv_dir & IOC_READ != 0 {
        req.size
    } else {
        0
    };
    let ksize = in_size.max(out_size).max(drv_size);
    let mut buf = vec![0u8; ksize];
    if in_size > 0 {
        host.copy_from_user(arg, &mut buf[..in_size])?;
    }
    let mut value: T = bytemuck::pod_read_unaligned(&buf[..drv_size]);
    let result = f(&mut value);
    buf[..drv_size].copy_from_slice(bytemuck::bytes_of(&value));
    if out_size > 0 && host.copy_to_user(arg, &buf[..out_size]).is_err() {
        return Err(Errno::EFAULT);
    }
    result
}

/// Every handler is also public with its typed argument (e.g.
/// `File::vm_bind(&host, &mut VmBind)`), for hosts such as a kernel module
/// whose ioctl layer copies the top-level struct itself.
impl File {
    /// Handle one ioctl on this open file. Returns the non-negative ioctl
    /// result or the errno.
    pub fn ioctl(&self, host: &dyn Host, request: u64, arg: u64) -> KResult<i32> {
        let req = Request::decode(request);
        if (DRM_COMMAND_BASE..DRM_COMMAND_END).contains(&req.nr) {
            return self.driver_ioctl(host, req, arg);
        }
        match req.nr {
            d::NR_VERSION => call(host, req, arg, WR, |v| self.version(host, v)),
            d::NR_GET_CAP => call(host, req, arg, WR, |v| self.get_cap(v)),
            d::NR_GEM_CLOSE => call(host, req, arg, W, |v| self.gem_close(v)),
            d::NR_PRIME_HANDLE_TO_FD => call(host, req, arg, WR, |v| self.prime_export(host, v)),
            d::NR_PRIME_FD_TO_HANDLE => call(host, req, arg, WR, |v| self.prime_import(host, v)),
            d::NR_SYNCOBJ_CREATE => call(host, req, arg, WR, |v| self.syncobj_create(v)),
            d::NR_SYNCOBJ_DESTROY => call(host, req, arg, WR, |v| self.syncobj_destroy(v)),
            d::NR_SYNCOBJ_HANDLE_TO_FD => {
                call(host, req, arg, WR, |v| self.syncobj_handle_to_fd(host, v))
            }
            d::NR_SYNCOBJ_FD_TO_HANDLE => {
                call(host, req, arg, WR, |v| self.syncobj_fd_to_handle(host, v))
            }
            d::NR_SYNCOBJ_WAIT => call(host, req, arg, WR, |v| self.syncobj_wait(host, v)),
            d::NR_SYNCOBJ_TIMELINE_WAIT => {
                call(host, req, arg, WR, |v| self.syncobj_timeline_wait(host, v))
            }
            d::NR_SYNCOBJ_RESET => call(host, req, arg, WR, |v| self.syncobj_reset(host, v)),
            d::NR_SYNCOBJ_SIGNAL => call(host, req, arg, WR, |v| self.syncobj_signal(host, v)),
            d::NR_SYNCOBJ_TIMELINE_SIGNAL => call(host, req, arg, WR, |v| {
                self.syncobj_timeline_signal(host, v)
            }),
            d::NR_SYNCOBJ_QUERY => call(host, req, arg, WR, |v| self.syncobj_query(host, v)),
            d::NR_SYNCOBJ_TRANSFER => call(host, req, arg, WR, |v| self.syncobj_transfer(v)),
            // Defined core ioctls without DRM_RENDER_ALLOW are refused on a
            // render node (drm_ioctl_permit); everything else is unknown.
            0x00..=0x3f | 0xa0..=0xd2 => Err(Errno::EACCES),
            _ => Err(Errno::EINVAL),
        }
    }

    fn driver_ioctl(&self, host: &dyn Host, req: Request, arg: u64) -> KResult<i32> {
        match req.nr - DRM_COMMAND_BASE {
            a::GET_PARAMS => call(host, req, arg, W, |v| self.get_params(host, v)),
            a::GET_TIME => call(host, req, arg, WR, |v| self.get_time(v)),
            a::VM_CREATE => call(host, req, arg, WR, |v| self.vm_create(v)),
            a::VM_DESTROY => call(host, req, arg, W, |v| self.vm_destroy(v)),
            a::VM_BIND => call(host, req, arg, W, |v| self.vm_bind(host, v)),
            a::GEM_CREATE => call(host, req, arg, WR, |v| self.gem_create(v)),
            a::GEM_MMAP_OFFSET => call(host, req, arg, WR, |v| self.gem_mmap_offset(v)),
            a::GEM_BIND_OBJECT => call(host, req, arg, WR, |v| self.gem_bind_object(v)),
            a::QUEUE_CREATE => call(host, req, arg, WR, |v| self.queue_create(v)),
            a::QUEUE_DESTROY => call(host, req, arg, W, |v| self.queue_destroy(v)),
            a::SUBMIT => call(host, req, arg, W, |v| self.submit(host, v)),
            _ => Err(Errno::EINVAL),
        }
    }

    fn version(&self, host: &dyn Host, v: &mut d::DrmVersion) -> KResult<i32> {
        // g16_drm DriverInfo: 0.0.0, "asahi", "Apple G16 Graphics". Linux
        // no longer has driver dates and reports "0" (inferred from
        // drm_ioctl.c's drm_version in current mainline).
        v.version_major = 0;
        v.version_minor = 0;
        v.version_patchlevel = 0;
        copy_field(host, &mut v.name_len, v.name, b"asahi")?;
        copy_field(host, &mut v.date_len, v.date, b"0")?;
        copy_field(host, &mut v.desc_len, v.desc, b"Apple G16 Graphics")?;
        Ok(0)
    }

    fn get_cap(&self, v: &mut d::DrmGetCap) -> KResult<i32> {
        // drm_getcap: only these caps exist for a render-only driver; the
        // rest need DRIVER_MODESET (EOPNOTSUPP).
        v.value = match v.capability {
            d::CAP_TIMESTAMP_MONOTONIC => 1,
            d::CAP_PRIME => d::PRIME_CAP_IMPORT | d::PRIME_CAP_EXPORT,
            d::CAP_SYNCOBJ | d::CAP_SYNCOBJ_TIMELINE => 1,
            _ => {
                v.value = 0;
                return Err(Errno::EOPNOTSUPP);
            }
        };
        Ok(0)
    }
}

/// drm_copy_field: copy at most the user's length, always report the full
/// length back.
fn copy_field(host: &dyn Host, len: &mut u64, ptr: u64, value: &[u8]) -> KResult<()> {
    let n = (*len).min(value.len() as u64) as usize;
    *len = value.len() as u64;
    if n > 0 && ptr != 0 {
        host.copy_to_user(ptr, &value[..n])?;
    }
    Ok(())
}

/// Read a user array of `count` Pod records of `stride` bytes each.
pub(crate) fn read_array<T: Pod>(
    host: &dyn Host,
    addr: u64,
    count: usize,
    stride: usize,
) -> KResult<Vec<T>> {
    let size = std::mem::size_of::<T>();
    let total = count.checked_mul(stride).ok_or(Errno::EINVAL)?;
    let mut bytes = vec![0u8; total];
    if total > 0 {
        host.copy_from_user(addr, &mut bytes)?;
    }
    let mut out = Vec::with_capacity(count);
    for chunk in bytes.chunks_exact(stride.max(1)).take(count) {
        out.push(read_extensible::<T>(chunk)?);
        let _ = size;
    }
    Ok(out)
}

/// Read a struct whose user copy may be shorter (zero-extended) or longer
/// (the extra bytes must be zero): the asahi UAPI extensibility rule.
pub(crate) fn read_extensible<T: Pod>(bytes: &[u8]) -> KResult<T> {
    let size = std::mem::size_of::<T>();
    if bytes.len() > size && bytes[size..].iter().any(|&b| b != 0) {
        return Err(Errno::EINVAL);
    }
    let mut buf = vec![0u8; size];
    let n = bytes.len().min(size);
    buf[..n].copy_from_slice(&bytes[..n]);
    Ok(bytemuck::pod_read_unaligned(&buf))
}

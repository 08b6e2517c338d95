//! The two sync_file ioctls userspace uses (include/uapi/linux/sync_file.h):
//! FILE_INFO reports the fence status (an error shows as a negative
//! status, which is how a failed GPU job becomes visible), MERGE combines.

use crate::host::ShimHost;
use agx16_kernel::fence::{merge, Fence};
use agx16_kernel::host::Host;
use agx16_kernel::uapi::ioctl::Request;
use agx16_kernel::{Errno, FdObject, KResult};
use std::sync::Arc;

const SYNC_IOC_MAGIC: u32 = b'>' as u32;
const NR_MERGE: u32 = 3;
const NR_FILE_INFO: u32 = 4;
/// sync_merge_data: name[32], fd2, fence, flags, pad.
const MERGE_SIZE: usize = 48;
/// sync_file_info: name[32], status, flags, num_fences, pad, u64 pointer.
const INFO_SIZE: usize = 56;
/// sync_fence_info: obj_name[32], driver_name[32], status, flags, u64 ts.
const FENCE_INFO_SIZE: usize = 80;

fn status(fence: &Fence) -> i32 {
    match fence.status() {
        None => 0,
        Some(Ok(())) => 1,
        Some(Err(e)) => -e.0,
    }
}

fn rd32(b: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes(b[off..off + 4].try_into().expect("4 bytes"))
}

pub fn ioctl(fence: &Arc<Fence>, request: libc::c_ulong, arg: *mut libc::c_void) -> KResult<i32> {
    let req = Request::decode(request);
    let host = ShimHost;
    let arg = arg as u64;
    if req.kind != SYNC_IOC_MAGIC {
        return Err(Errno::ENOTTY);
    }
    match (req.nr, req.size) {
        (NR_FILE_INFO, INFO_SIZE) => {
            let mut b = [0u8; INFO_SIZE];
            host.copy_from_user(arg, &mut b)?;
            if rd32(&b, 36) != 0 || rd32(&b, 44) != 0 {
                return Err(Errno::EINVAL);
            }
            b[..32].fill(0);
            b[..5].copy_from_slice(b"agx16");
            b[32..36].copy_from_slice(&status(fence).to_ne_bytes());
            if rd32(&b, 40) != 0 {
                let mut info = [0u8; FENCE_INFO_SIZE];
                info[..5].copy_from_slice(b"agx16");
                info[32..37].copy_from_slice(b"asahi");
                info[64..68].copy_from_slice(&status(fence).to_ne_bytes());
                let ptr = u64::from_ne_bytes(b[48..56].try_into().expect("8 bytes"));
                host.copy_to_user(ptr, &info)?;
            }
            b[40..44].copy_from_slice(&1u32.to_ne_bytes());
            host.copy_to_user(arg, &b)?;
            Ok(0)
        }
        (NR_MERGE, MERGE_SIZE) => {
            let mut b = [0u8; MERGE_SIZE];
            host.copy_from_user(arg, &mut b)?;
            if rd32(&b, 40) != 0 || rd32(&b, 44) != 0 {
                return Err(Errno::EINVAL);
            }
            let other = match host.lookup_fd(rd32(&b, 32) as i32)? {
                FdObject::SyncFile(f) => f,
                _ => return Err(Errno::EINVAL),
            };
            let hub = crate::device::device().hub.clone();
            let merged = merge(&hub, &[fence.clone(), other]);
            let fd = host.install_fd(FdObject::SyncFile(merged), true)?;
            b[36..40].copy_from_slice(&fd.to_ne_bytes());
            host.copy_to_user(arg, &b)?;
            Ok(0)
        }
        _ => Err(Errno::ENOTTY),
    }
}

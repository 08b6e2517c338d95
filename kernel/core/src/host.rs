//! What the core needs from its host (the LD_PRELOAD shim, a test harness,
//! or a kernel module): user-memory copies and file descriptors.

use crate::errno::KResult;
use crate::fence::Fence;
use crate::gem::Bo;
use crate::syncobj::Syncobj;
use std::sync::Arc;

/// Objects that travel between processes/opens as file descriptors.
#[derive(Clone)]
pub enum FdObject {
    /// A PRIME dma-buf.
    DmaBuf(Arc<Bo>),
    /// A syncobj shared with SYNCOBJ_HANDLE_TO_FD.
    Syncobj(Arc<Syncobj>),
    /// A sync_file holding one fence.
    SyncFile(Arc<Fence>),
}

pub trait Host {
    /// copy_from_user: EFAULT on an unreadable address.
    fn copy_from_user(&self, addr: u64, out: &mut [u8]) -> KResult<()>;
    /// copy_to_user: EFAULT on an unwritable address.
    fn copy_to_user(&self, addr: u64, data: &[u8]) -> KResult<()>;
    /// Create a new fd referring to `object`.
    fn install_fd(&self, object: FdObject, cloexec: bool) -> KResult<i32>;
    /// Resolve an fd; EBADF/EINVAL as the kernel would for a wrong fd.
    fn lookup_fd(&self, fd: i32) -> KResult<FdObject>;
    /// CLOCK_MONOTONIC in nanoseconds (syncobj timeouts are absolute).
    fn monotonic_ns(&self) -> u64;
}

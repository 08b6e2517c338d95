//! The shim as the core's host: user memory is this process's memory,
//! read through process_vm_readv so a bad pointer is EFAULT, not SIGSEGV.

use crate::fdtable::{self, Entry};
use crate::real::real;
use agx16_kernel::{Errno, FdObject, Host, KResult};

pub struct ShimHost;

fn vm_copy(local: *mut u8, remote: u64, len: usize, write: bool) -> KResult<()> {
    if len == 0 {
        return Ok(());
    }
    let liov = libc::iovec {
        iov_base: local as *mut libc::c_void,
        iov_len: len,
    };
    let riov = libc::iovec {
        iov_base: remote as usize as *mut libc::c_void,
        iov_len: len,
    };
    // SAFETY: the kernel validates the remote range; local is our buffer.
    let n = unsafe {
        if write {
            libc::process_vm_writev(libc::getpid(), &liov, 1, &riov, 1, 0)
        } else {
            libc::process_vm_readv(libc::getpid(), &liov, 1, &riov, 1, 0)
        }
    };
    if n == len as isize {
        Ok(())
    } else {
        Err(Errno::EFAULT)
    }
}

fn new_token_fd(cloexec: bool) -> KResult<i32> {
    let flags = if cloexec { libc::EFD_CLOEXEC } else { 0 };
    // SAFETY: plain syscall.
    let fd = unsafe { libc::eventfd(0, flags | libc::EFD_NONBLOCK) };
    if fd < 0 {
        Err(Errno::EMFILE)
    } else {
        Ok(fd)
    }
}

impl Host for ShimHost {
    fn copy_from_user(&self, addr: u64, out: &mut [u8]) -> KResult<()> {
        vm_copy(out.as_mut_ptr(), addr, out.len(), false)
    }

    fn copy_to_user(&self, addr: u64, data: &[u8]) -> KResult<()> {
        vm_copy(data.as_ptr() as *mut u8, addr, data.len(), true)
    }

    fn install_fd(&self, object: FdObject, cloexec: bool) -> KResult<i32> {
        let fd = match &object {
            // A dma-buf fd is an empty memfd of the object's size (a
            // unique inode, and lseek(SEEK_END) gives the size as on a real
            // dma-buf); mmap of it is routed to the object's arena pages.
            FdObject::DmaBuf(bo) => {
                let flags = if cloexec { libc::MFD_CLOEXEC } else { 0 };
                // SAFETY: plain syscalls on an fd we create.
                unsafe {
                    let fd = libc::memfd_create(c"agx16-dmabuf".as_ptr(), flags);
                    if fd < 0 {
                        return Err(Errno::EMFILE);
                    }
                    if libc::ftruncate(fd, bo.size as libc::off_t) != 0 {
                        (real().close)(fd);
                        return Err(Errno::ENOMEM);
                    }
                    fd
                }
            }
            // Sync files are eventfds that become readable when the fence
            // signals, so poll() works on them as on a real sync_file.
            FdObject::SyncFile(fence) => {
                let fd = new_token_fd(cloexec)?;
                // SAFETY: the callback gets its own duplicate to write to.
                let dup =
                    unsafe { (real().fcntl)(fd, libc::F_DUPFD_CLOEXEC, std::ptr::null_mut()) };
                if dup >= 0 {
                    fence.on_signal(move |_| unsafe {
                        let one: u64 = 1;
                        libc::write(dup, &one as *const u64 as *const libc::c_void, 8);
                        (real().close)(dup);
                    });
                }
                fd
            }
            FdObject::Syncobj(_) => new_token_fd(cloexec)?,
        };
        let entry = match object {
            FdObject::DmaBuf(bo) => Entry::DmaBuf(bo),
            FdObject::Syncobj(s) => Entry::Syncobj(s),
            FdObject::SyncFile(f) => Entry::SyncFile(f),
        };
        fdtable::insert(fd, entry);
        Ok(fd)
    }

    fn lookup_fd(&self, fd: i32) -> KResult<FdObject> {
        match fdtable::get(fd) {
            Some(Entry::DmaBuf(bo)) => return Ok(FdObject::DmaBuf(bo)),
            Some(Entry::Syncobj(s)) => return Ok(FdObject::Syncobj(s)),
            Some(Entry::SyncFile(f)) => return Ok(FdObject::SyncFile(f)),
            Some(Entry::Drm(_)) => return Err(Errno::EINVAL),
            None => {}
        }
        let id = fdtable::identity(fd).ok_or(Errno::EBADF)?;
        fdtable::dmabuf_by_identity(id)
            .map(FdObject::DmaBuf)
            .ok_or(Errno::EINVAL)
    }

    fn monotonic_ns(&self) -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime into a local.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }
}

/// Keep an exported BO alive while a duplicate of its fd is registered.
pub fn register_dup(old: i32, new: i32) {
    if let Some(entry) = fdtable::get(old) {
        fdtable::insert(new, entry);
    }
}

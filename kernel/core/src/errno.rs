//! Linux errno values as the DRM ioctl path returns them (negated by the host).

use std::fmt;

/// A positive Linux errno number.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Errno(pub i32);

impl Errno {
    pub const EPERM: Errno = Errno(1);
    pub const ENOENT: Errno = Errno(2);
    pub const EINTR: Errno = Errno(4);
    pub const EIO: Errno = Errno(5);
    pub const EBADF: Errno = Errno(9);
    pub const EAGAIN: Errno = Errno(11);
    pub const ENOMEM: Errno = Errno(12);
    pub const EACCES: Errno = Errno(13);
    pub const EFAULT: Errno = Errno(14);
    pub const EBUSY: Errno = Errno(16);
    pub const EEXIST: Errno = Errno(17);
    pub const ENODEV: Errno = Errno(19);
    pub const EINVAL: Errno = Errno(22);
    pub const EMFILE: Errno = Errno(24);
    pub const ENOTTY: Errno = Errno(25);
    pub const ENOSPC: Errno = Errno(28);
    pub const ERANGE: Errno = Errno(34);
    pub const ETIME: Errno = Errno(62);
    pub const EOVERFLOW: Errno = Errno(75);
    pub const EOPNOTSUPP: Errno = Errno(95);
    pub const ETIMEDOUT: Errno = Errno(110);
    pub const ECANCELED: Errno = Errno(125);
    /// Kernel-internal ENOTSUPP (524), which the asahi driver returns for
    /// unknown command types and helper programs (GravityLinux/linux:
    /// drivers/gpu/drm/asahi/g16_drm.rs, measured in its source).
    pub const ENOTSUPP: Errno = Errno(524);

    pub fn name(self) -> &'static str {
        match self.0 {
            1 => "EPERM",
            2 => "ENOENT",
            4 => "EINTR",
            5 => "EIO",
            9 => "EBADF",
            11 => "EAGAIN",
            12 => "ENOMEM",
            13 => "EACCES",
            14 => "EFAULT",
            16 => "EBUSY",
            17 => "EEXIST",
            19 => "ENODEV",
            22 => "EINVAL",
            24 => "EMFILE",
            25 => "ENOTTY",
            28 => "ENOSPC",
            34 => "ERANGE",
            62 => "ETIME",
            75 => "EOVERFLOW",
            95 => "EOPNOTSUPP",
            110 => "ETIMEDOUT",
            125 => "ECANCELED",
            524 => "ENOTSUPP",
            _ => "E?",
        }
    }
}

impl fmt::Debug for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.name(), self.0)
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl std::error::Error for Errno {}

pub type KResult<T> = Result<T, Errno>;

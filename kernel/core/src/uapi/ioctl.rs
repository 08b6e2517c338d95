//! Linux `_IOC` request decoding (asm-generic/ioctl.h: nr bits 0..8, type
//! 8..16, size 16..30, direction 30..32; write = user→kernel).

pub const IOC_WRITE: u32 = 1;
pub const IOC_READ: u32 = 2;

/// DRM's ioctl type character.
pub const DRM_IOCTL_BASE: u32 = b'd' as u32;
/// First driver-private ioctl number (drm.h `DRM_COMMAND_BASE`).
pub const DRM_COMMAND_BASE: u32 = 0x40;
/// Driver-private numbers end here; generic ioctls restart at 0xA0 (drm.h).
pub const DRM_COMMAND_END: u32 = 0xA0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub nr: u32,
    pub kind: u32,
    pub size: usize,
    pub dir: u32,
}

impl Request {
    pub fn decode(request: u64) -> Request {
        let r = request as u32;
        Request {
            nr: r & 0xff,
            kind: (r >> 8) & 0xff,
            size: ((r >> 16) & 0x3fff) as usize,
            dir: r >> 30,
        }
    }

    pub fn encode(dir: u32, kind: u32, nr: u32, size: usize) -> u64 {
        ((dir << 30) | ((size as u32 & 0x3fff) << 16) | (kind << 8) | nr) as u64
    }
}

/// `DRM_IOWR(nr, T)`-style helpers for tests and hosts.
pub const fn drm_iowr(nr: u32, size: usize) -> u64 {
    (((IOC_READ | IOC_WRITE) << 30) | ((size as u32) << 16) | (DRM_IOCTL_BASE << 8) | nr) as u64
}
pub const fn drm_iow(nr: u32, size: usize) -> u64 {
    ((IOC_WRITE << 30) | ((size as u32) << 16) | (DRM_IOCTL_BASE << 8) | nr) as u64
}

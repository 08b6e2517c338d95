//! Which paths belong to the fake device, and the sysfs content libdrm
//! reads to build a platform `drmDevice`.
//!
//! The set of files follows Mesa's drm-shim (niklassheth/mesa:
//! src/drm-shim/drm_shim.c, MIT; read from its source): a render node at
//! minor 128, `device/drm` present, `device/subsystem` linking to
//! `bus/platform`, and a uevent with DRIVER, OF_FULLNAME and OF_COMPATIBLE.

pub const RENDER_NODE: &[u8] = b"/dev/dri/renderD128";
pub const RENDER_NAME: &[u8] = b"renderD128";
pub const DEV_DRI: &[u8] = b"/dev/dri";
pub const DRM_MAJOR: u32 = 226;
pub const RENDER_MINOR: u32 = 128;
pub const SYS_DEVICE: &[u8] = b"/sys/dev/char/226:128/device";
pub const SYS_DEVICE_DRM: &[u8] = b"/sys/dev/char/226:128/device/drm";
pub const SYS_SUBSYSTEM: &[u8] = b"/sys/dev/char/226:128/device/subsystem";
pub const SYS_UEVENT: &[u8] = b"/sys/dev/char/226:128/device/uevent";
/// Relative link, as sysfs has it; libdrm only looks at the last component.
pub const SUBSYSTEM_LINK: &[u8] = b"../../../../../bus/platform";
/// Compatible string of the M4 GPU node (GravityLinux/linux
/// drivers/gpu/drm/asahi/asahi_m4.rs probes `apple,agx-t8132`).
pub const UEVENT: &[u8] =
    b"DRIVER=asahi\nOF_FULLNAME=/soc/gpu\nOF_COMPATIBLE_0=apple,agx-t8132\nOF_COMPATIBLE_N=1\n";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PathKind {
    RenderNode,
    /// Another DRM device or sysfs node we hide (ENOENT).
    Hidden,
    Uevent,
    SysDevice,
    SysDeviceDrm,
    Subsystem,
    /// Not ours: forward to libc.
    Other,
}

pub fn classify(path: &[u8]) -> PathKind {
    match path {
        RENDER_NODE => PathKind::RenderNode,
        SYS_UEVENT => PathKind::Uevent,
        SYS_DEVICE => PathKind::SysDevice,
        SYS_DEVICE_DRM => PathKind::SysDeviceDrm,
        SYS_SUBSYSTEM => PathKind::Subsystem,
        _ if path.starts_with(b"/dev/dri/") => PathKind::Hidden,
        // Every other DRM char device and attribute is hidden.
        _ if path.starts_with(b"/sys/dev/char/226:") => PathKind::Hidden,
        _ => PathKind::Other,
    }
}

pub fn makedev(major: u32, minor: u32) -> u64 {
    libc::makedev(major, minor)
}

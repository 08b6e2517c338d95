//! The ioctl ABI: DRM core structs, asahi structs and ioctl number decoding.
//!
//! Layouts are written from the public headers: core DRM from Linux
//! `include/uapi/drm/drm.h` (as shipped in Debian's libdrm-dev 2.4.114,
//! measured by reading the header), asahi from torvalds/linux:
//! include/uapi/drm/asahi_drm.h (MIT). Every struct is `Pod` so it can be
//! copied from and to user memory as bytes; explicit `pad` fields replace C's
//! implicit padding.

pub mod asahi;
pub mod drm;
pub mod ioctl;

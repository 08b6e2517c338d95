//! LD_PRELOAD DRM shim: presents `/dev/dri/renderD128` as an Apple M4
//! platform device (compatible `apple,agx-t8132`, driver `asahi`), hides
//! every real DRM device, and routes ioctls and mmaps on the node into
//! `agx16-kernel`.
//!
//! Build: `cargo build -p agx16-drm-shim` gives `libagx16_drm_shim.so`;
//! run a program with `LD_PRELOAD=.../libagx16_drm_shim.so`. See
//! `device.rs` for the environment variables.

mod arena;
mod device;
mod fdtable;
mod guard;
mod hooks_dir;
mod hooks_file;
mod hooks_ioctl;
mod hooks_path;
mod hooks_stat;
mod host;
mod log;
mod paths;
mod real;
pub mod sim_backend;
mod sync_file;
mod usermap;

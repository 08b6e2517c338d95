//! Host-independent asahi UAPI kernel driver core for the Apple M4 (G16G).
//!
//! The core implements the asahi DRM UAPI with the G16 validation rules:
//! objects per open file, VMs, queues, syncobjs and submission onto
//! per-queue GPU threads that call a [`GpuBackend`]. A host (the
//! LD_PRELOAD DRM shim, a test harness, or a kernel module) supplies user
//! memory access, file descriptors and BO storage through [`Host`] and
//! [`backing::BackingAllocator`].

pub mod backend;
pub mod backing;
pub mod cdm;
pub mod device;
pub mod dump;
pub mod errno;
pub mod fence;
mod file_asahi;
mod file_core;
mod file_sync;
pub mod g16_ranges;
pub mod gem;
pub mod host;
pub mod ioctl;
pub mod job;
pub mod params;
pub mod render;
pub mod submit;
pub mod syncobj;
pub mod uapi;
pub mod vm;

pub use backend::{ComputeContext, ComputeLaunch, GpuBackend, GpuError, JobControl};
pub use device::{Device, File, ObjectCounts};
pub use errno::{Errno, KResult};
pub use host::{FdObject, Host};
pub use vm::{Fault, FaultKind, VmView};

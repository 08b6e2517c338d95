//! Core DRM ioctl structs and numbers (include/uapi/drm/drm.h).

use bytemuck::{Pod, Zeroable};

pub const NR_VERSION: u32 = 0x00;
pub const NR_GET_UNIQUE: u32 = 0x01;
pub const NR_GEM_CLOSE: u32 = 0x09;
pub const NR_GET_CAP: u32 = 0x0c;
pub const NR_SET_CLIENT_CAP: u32 = 0x0d;
pub const NR_PRIME_HANDLE_TO_FD: u32 = 0x2d;
pub const NR_PRIME_FD_TO_HANDLE: u32 = 0x2e;
pub const NR_SYNCOBJ_CREATE: u32 = 0xBF;
pub const NR_SYNCOBJ_DESTROY: u32 = 0xC0;
pub const NR_SYNCOBJ_HANDLE_TO_FD: u32 = 0xC1;
pub const NR_SYNCOBJ_FD_TO_HANDLE: u32 = 0xC2;
pub const NR_SYNCOBJ_WAIT: u32 = 0xC3;
pub const NR_SYNCOBJ_RESET: u32 = 0xC4;
pub const NR_SYNCOBJ_SIGNAL: u32 = 0xC5;
pub const NR_SYNCOBJ_TIMELINE_WAIT: u32 = 0xCA;
pub const NR_SYNCOBJ_QUERY: u32 = 0xCB;
pub const NR_SYNCOBJ_TRANSFER: u32 = 0xCC;
pub const NR_SYNCOBJ_TIMELINE_SIGNAL: u32 = 0xCD;

pub const CAP_TIMESTAMP_MONOTONIC: u64 = 0x6;
pub const CAP_PRIME: u64 = 0x5;
pub const PRIME_CAP_IMPORT: u64 = 0x1;
pub const PRIME_CAP_EXPORT: u64 = 0x2;
pub const CAP_SYNCOBJ: u64 = 0x13;
pub const CAP_SYNCOBJ_TIMELINE: u64 = 0x14;

/// `O_CLOEXEC` / `O_RDWR` as DRM_CLOEXEC / DRM_RDWR (Linux x86-64/arm64).
pub const DRM_CLOEXEC: u32 = 0o2000000;
pub const DRM_RDWR: u32 = 0o2;

pub const SYNCOBJ_CREATE_SIGNALED: u32 = 1 << 0;
pub const SYNCOBJ_FD_TO_HANDLE_IMPORT_SYNC_FILE: u32 = 1 << 0;
pub const SYNCOBJ_HANDLE_TO_FD_EXPORT_SYNC_FILE: u32 = 1 << 0;
/// Newer kernels: the `point` field of drm_syncobj_handle is used.
pub const SYNCOBJ_HANDLE_TIMELINE: u32 = 1 << 1;
pub const SYNCOBJ_WAIT_ALL: u32 = 1 << 0;
pub const SYNCOBJ_WAIT_FOR_SUBMIT: u32 = 1 << 1;
pub const SYNCOBJ_WAIT_AVAILABLE: u32 = 1 << 2;
pub const SYNCOBJ_WAIT_DEADLINE: u32 = 1 << 3;
pub const SYNCOBJ_QUERY_LAST_SUBMITTED: u32 = 1 << 0;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmVersion {
    pub version_major: i32,
    pub version_minor: i32,
    pub version_patchlevel: i32,
    pub pad: u32,
    pub name_len: u64,
    pub name: u64,
    pub date_len: u64,
    pub date: u64,
    pub desc_len: u64,
    pub desc: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmUnique {
    pub unique_len: u64,
    pub unique: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmGemClose {
    pub handle: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmGetCap {
    pub capability: u64,
    pub value: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmPrimeHandle {
    pub handle: u32,
    pub flags: u32,
    pub fd: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmSyncobjCreate {
    pub handle: u32,
    pub flags: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmSyncobjDestroy {
    pub handle: u32,
    pub pad: u32,
}

/// 16 bytes in libdrm 2.4.114; newer headers append `point` (24 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmSyncobjHandle {
    pub handle: u32,
    pub flags: u32,
    pub fd: i32,
    pub pad: u32,
    pub point: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmSyncobjTransfer {
    pub src_handle: u32,
    pub dst_handle: u32,
    pub src_point: u64,
    pub dst_point: u64,
    pub flags: u32,
    pub pad: u32,
}

/// 32 bytes in libdrm 2.4.114; newer headers append `deadline_nsec`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmSyncobjWait {
    pub handles: u64,
    pub timeout_nsec: i64,
    pub count_handles: u32,
    pub flags: u32,
    pub first_signaled: u32,
    pub pad: u32,
    pub deadline_nsec: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmSyncobjTimelineWait {
    pub handles: u64,
    pub points: u64,
    pub timeout_nsec: i64,
    pub count_handles: u32,
    pub flags: u32,
    pub first_signaled: u32,
    pub pad: u32,
    pub deadline_nsec: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmSyncobjArray {
    pub handles: u64,
    pub count_handles: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct DrmSyncobjTimelineArray {
    pub handles: u64,
    pub points: u64,
    pub count_handles: u32,
    pub flags: u32,
}

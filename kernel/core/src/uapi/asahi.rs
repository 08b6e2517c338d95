//! asahi UAPI (torvalds/linux: include/uapi/drm/asahi_drm.h, MIT).

use bytemuck::{Pod, Zeroable};

pub const GET_PARAMS: u32 = 0;
pub const GET_TIME: u32 = 1;
pub const VM_CREATE: u32 = 2;
pub const VM_DESTROY: u32 = 3;
pub const VM_BIND: u32 = 4;
pub const GEM_CREATE: u32 = 5;
pub const GEM_MMAP_OFFSET: u32 = 6;
pub const GEM_BIND_OBJECT: u32 = 7;
pub const QUEUE_CREATE: u32 = 8;
pub const QUEUE_DESTROY: u32 = 9;
pub const SUBMIT: u32 = 10;

pub const MAX_CLUSTERS: usize = 64;

pub const GEM_WRITEBACK: u32 = 1 << 0;
pub const GEM_VM_PRIVATE: u32 = 1 << 1;

pub const BIND_UNBIND: u32 = 1 << 0;
pub const BIND_READ: u32 = 1 << 1;
pub const BIND_WRITE: u32 = 1 << 2;
pub const BIND_SINGLE_PAGE: u32 = 1 << 3;

pub const BIND_OBJECT_OP_BIND: u32 = 0;
pub const BIND_OBJECT_OP_UNBIND: u32 = 1;
pub const BIND_OBJECT_USAGE_TIMESTAMPS: u32 = 1 << 0;

pub const CMD_RENDER: u16 = 0;
pub const CMD_COMPUTE: u16 = 1;
pub const SET_VERTEX_ATTACHMENTS: u16 = 2;
pub const SET_FRAGMENT_ATTACHMENTS: u16 = 3;
pub const SET_COMPUTE_ATTACHMENTS: u16 = 4;

pub const PRIORITY_LOW: u32 = 0;
pub const PRIORITY_MEDIUM: u32 = 1;

pub const SYNC_SYNCOBJ: u32 = 0;
pub const SYNC_TIMELINE_SYNCOBJ: u32 = 1;

pub const BARRIER_NONE: u16 = 0xffff;

pub const RENDER_VERTEX_SCRATCH: u32 = 1 << 0;
pub const RENDER_PROCESS_EMPTY_TILES: u32 = 1 << 1;
pub const RENDER_NO_VERTEX_CLUSTERING: u32 = 1 << 2;
pub const RENDER_DBIAS_IS_INT: u32 = 1 << 18;

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ParamsGlobal {
    pub features: u64,
    pub gpu_generation: u32,
    pub gpu_variant: u32,
    pub gpu_revision: u32,
    pub chip_id: u32,
    pub num_dies: u32,
    pub num_clusters_total: u32,
    pub num_cores_per_cluster: u32,
    pub max_frequency_khz: u32,
    pub core_masks: [u64; MAX_CLUSTERS],
    pub vm_start: u64,
    pub vm_end: u64,
    pub vm_kernel_min_size: u64,
    pub max_commands_per_submission: u32,
    pub max_attachments: u32,
    pub command_timestamp_frequency_hz: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct GetParams {
    pub param_group: u32,
    pub pad: u32,
    pub pointer: u64,
    pub size: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct VmCreate {
    pub kernel_start: u64,
    pub kernel_end: u64,
    pub vm_id: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct VmDestroy {
    pub vm_id: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct GemCreate {
    pub size: u64,
    pub flags: u32,
    pub vm_id: u32,
    pub handle: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct GemMmapOffset {
    pub handle: u32,
    pub flags: u32,
    pub offset: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct GemBindOp {
    pub flags: u32,
    pub handle: u32,
    pub offset: u64,
    pub range: u64,
    pub addr: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct VmBind {
    pub vm_id: u32,
    pub num_binds: u32,
    pub stride: u32,
    pub pad: u32,
    pub userptr: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct GemBindObject {
    pub op: u32,
    pub flags: u32,
    pub handle: u32,
    pub vm_id: u32,
    pub offset: u64,
    pub range: u64,
    pub object_handle: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct QueueCreate {
    pub flags: u32,
    pub vm_id: u32,
    pub priority: u32,
    pub queue_id: u32,
    pub usc_exec_base: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct QueueDestroy {
    pub queue_id: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Sync {
    pub sync_type: u32,
    pub handle: u32,
    pub timeline_value: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct CmdHeader {
    pub cmd_type: u16,
    pub size: u16,
    pub vdm_barrier: u16,
    pub cdm_barrier: u16,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Submit {
    pub syncs: u64,
    pub cmdbuf: u64,
    pub flags: u32,
    pub queue_id: u32,
    pub in_sync_count: u32,
    pub out_sync_count: u32,
    pub cmdbuf_size: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Attachment {
    pub pointer: u64,
    pub size: u64,
    pub pad: u32,
    pub flags: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct ZlsBuffer {
    pub base: u64,
    pub comp_base: u64,
    pub stride: u32,
    pub comp_stride: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Timestamp {
    pub handle: u32,
    pub offset: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Timestamps {
    pub start: Timestamp,
    pub end: Timestamp,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct HelperProgram {
    pub binary: u32,
    pub cfg: u32,
    pub data: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct BgEot {
    pub usc: u32,
    pub rsrc_spec: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct CmdRender {
    pub flags: u32,
    pub isp_zls_pixels: u32,
    pub vdm_ctrl_stream_base: u64,
    pub vertex_helper: HelperProgram,
    pub fragment_helper: HelperProgram,
    pub isp_scissor_base: u64,
    pub isp_dbias_base: u64,
    pub isp_oclqry_base: u64,
    pub depth: ZlsBuffer,
    pub stencil: ZlsBuffer,
    pub zls_ctrl: u64,
    pub ppp_multisamplectl: u64,
    pub sampler_heap: u64,
    pub ppp_ctrl: u32,
    pub width_px: u16,
    pub height_px: u16,
    pub layers: u16,
    pub sampler_count: u16,
    pub utile_width_px: u8,
    pub utile_height_px: u8,
    pub samples: u8,
    pub sample_size_b: u8,
    pub isp_merge_upper_x: u32,
    pub isp_merge_upper_y: u32,
    pub bg: BgEot,
    pub eot: BgEot,
    pub partial_bg: BgEot,
    pub partial_eot: BgEot,
    pub isp_bgobjdepth: u32,
    pub isp_bgobjvals: u32,
    pub ts_vtx: Timestamps,
    pub ts_frag: Timestamps,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct CmdCompute {
    pub flags: u32,
    pub sampler_count: u32,
    pub cdm_ctrl_stream_base: u64,
    pub cdm_ctrl_stream_end: u64,
    pub sampler_heap: u64,
    pub helper: HelperProgram,
    pub ts: Timestamps,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct GetTime {
    pub flags: u64,
    pub gpu_timestamp: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    // Sizes derived by hand from the C layout rules applied to the header.
    #[test]
    fn struct_sizes_match_c_layout() {
        assert_eq!(
            size_of::<ParamsGlobal>(),
            8 + 8 * 4 + 64 * 8 + 3 * 8 + 2 * 4 + 8
        );
        assert_eq!(size_of::<GemBindOp>(), 32);
        assert_eq!(size_of::<Submit>(), 40);
        assert_eq!(size_of::<CmdHeader>(), 8);
        assert_eq!(size_of::<Attachment>(), 24);
        assert_eq!(size_of::<CmdCompute>(), 4 + 4 + 8 * 3 + 16 + 16);
        assert_eq!(size_of::<QueueCreate>(), 24);
        assert_eq!(size_of::<GemBindObject>(), 40);
    }
}

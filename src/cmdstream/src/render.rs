//! The fields of `drm_asahi_cmd_render` / `drm_asahi_cmd_compute` the driver fills, and the
//! register values inside them (ZLS control, ZLS pixels, PPP control), plus the submit
//! command-buffer header. Struct layouts follow the mainline UAPI header; the G16 rules for
//! values (tile sizes, tilebuffer blocks, merge) follow the G16 kernel.

use crate::evidence::{GENXML_G13, KERNEL_RENDER, MESA_AGX_PIPE, UAPI};
use crate::record::Hex;
use crate::record::Unexplained;

record! {
    /// `drm_asahi_cmd_header`: one command in a submit's command buffer (8 bytes).
    pub struct CmdHeader : 8 {
        /// 0 render, 1 compute, 2-4 set vertex/fragment/compute attachments.
        cmd_type: u16 = [0, 16] plain, UAPI;
        size: u16 = [16, 16] plain, UAPI;
        /// Index of the command this one waits for; 0xffff none.
        vdm_barrier: u16 = [32, 16] plain, UAPI;
        cdm_barrier: u16 = [48, 16] plain, UAPI;
    }
}

record! {
    /// `drm_asahi_attachment`: a memory range a command touches (a hint; 24 bytes).
    pub struct Attachment : 24 {
        pointer: Hex = [0, 64] plain, UAPI;
        size: u64 = [64, 64] plain, UAPI;
        pad: u32 = [128, 32] plain, UAPI;
        flags: Hex = [160, 32] plain, UAPI;
    }
}

/// `drm_asahi_cmd_type` values.
pub const CMD_RENDER: u16 = 0;
pub const CMD_COMPUTE: u16 = 1;
pub const CMD_SET_VERTEX_ATTACHMENTS: u16 = 2;
pub const CMD_SET_FRAGMENT_ATTACHMENTS: u16 = 3;
pub const CMD_SET_COMPUTE_ATTACHMENTS: u16 = 4;

record! {
    /// `drm_asahi_cmd_compute` (64 bytes).
    pub struct CmdCompute : 64 {
        flags: Hex = [0, 32] plain, UAPI;
        sampler_count: u32 = [32, 32] plain, UAPI;
        cdm_ctrl_stream_base: Hex = [64, 64] plain, UAPI;
        cdm_ctrl_stream_end: Hex = [128, 64] plain, UAPI;
        sampler_heap: Hex = [192, 64] plain, UAPI;
        /// Helper program; must be zero on G16.
        helper_binary: Hex = [256, 32] plain, UAPI;
        helper_cfg: Hex = [288, 32] plain, UAPI;
        helper_data: Hex = [320, 64] plain, UAPI;
        ts_start_handle: u32 = [384, 32] plain, UAPI;
        ts_start_offset: u32 = [416, 32] plain, UAPI;
        ts_end_handle: u32 = [448, 32] plain, UAPI;
        ts_end_offset: u32 = [480, 32] plain, UAPI;
    }
}

hw_enum! {
    /// Depth format for ZLS.
    pub enum ZlsFormat { F32 = 0 => "32F", Unorm16 = 2 => "16 unorm" }
}

record! {
    /// `zls_ctrl`: depth/stencil load/store control (8 bytes, G13 layout per the UAPI users).
    pub struct ZlsControl : 8 {
        unknown_0: bool = [0, 1] plain, GENXML_G13;
        z_load_twiddled: bool = [1, 1] plain, GENXML_G13;
        z_load_compress: bool = [2, 1] plain, GENXML_G13;
        s_load_twiddled: bool = [3, 1] plain, GENXML_G13;
        s_load_compress: bool = [4, 1] plain, GENXML_G13;
        z_store_twiddled: bool = [5, 1] plain, GENXML_G13;
        z_store_compress: bool = [6, 1] plain, GENXML_G13;
        s_store_twiddled: bool = [7, 1] plain, GENXML_G13;
        s_store_compress: bool = [8, 1] plain, GENXML_G13;
        s_load: bool = [14, 1] plain, GENXML_G13;
        z_load: bool = [15, 1] plain, GENXML_G13;
        s_store: bool = [18, 1] plain, GENXML_G13;
        z_store: bool = [19, 1] plain, GENXML_G13;
        z_format: ZlsFormat = [25, 2] plain, GENXML_G13;
        z_resolve: bool = [56, 1] plain, GENXML_G13;
        s_resolve: bool = [58, 1] plain, GENXML_G13;
    }
}

record! {
    /// `isp_zls_pixels`: ZLS extent.
    pub struct IspZlsPixels : 4 {
        x: u16 = [0, 15] minus1, GENXML_G13;
        y: u16 = [15, 15] minus1, GENXML_G13;
    }
}

record! {
    /// `isp_bgobjvals`: the background object's values. The UAPI documents the stencil clear in
    /// bits 7:0; every Mesa backend seeds 0x300 above it.
    pub struct IspBgObjVals : 4 {
        stencil_clear: u8 = [0, 8] plain, UAPI;
        unk_8_9: Unexplained = [8, 2] plain, MESA_AGX_PIPE;
    }
}

/// `isp_bgobjvals` for a stencil clear value, as Mesa builds it (0x300 | stencil).
pub fn bgobjvals(stencil: u8) -> u32 {
    0x300 | stencil as u32
}

record! {
    /// `ppp_ctrl` (tests on G16 use 0x202).
    pub struct PppControl : 4 {
        opengl: bool = [0, 1] plain, GENXML_G13;
        enable_w_clamp: bool = [1, 1] plain, GENXML_G13;
        default_point_size: bool = [8, 1] plain, GENXML_G13;
        fixed_point_format: bool = [9, 1] plain, GENXML_G13;
    }
}

record! {
    /// `drm_asahi_cmd_render` (240 bytes).
    pub struct CmdRender : 240 {
        flags: Hex = [0, 32] plain, UAPI;
        isp_zls_pixels: Hex = [32, 32] plain, UAPI;
        vdm_ctrl_stream_base: Hex = [64, 64] plain, UAPI;
        vertex_helper_binary: Hex = [128, 32] plain, UAPI;
        vertex_helper_cfg: Hex = [160, 32] plain, UAPI;
        vertex_helper_data: Hex = [192, 64] plain, UAPI;
        fragment_helper_binary: Hex = [256, 32] plain, UAPI;
        fragment_helper_cfg: Hex = [288, 32] plain, UAPI;
        fragment_helper_data: Hex = [320, 64] plain, UAPI;
        /// Must be nonzero on G16.
        isp_scissor_base: Hex = [384, 64] plain, KERNEL_RENDER;
        isp_dbias_base: Hex = [448, 64] plain, UAPI;
        isp_oclqry_base: Hex = [512, 64] plain, UAPI;
        depth_base: Hex = [576, 64] plain, UAPI;
        depth_comp_base: Hex = [640, 64] plain, UAPI;
        depth_stride: u32 = [704, 32] plain, UAPI;
        depth_comp_stride: u32 = [736, 32] plain, UAPI;
        stencil_base: Hex = [768, 64] plain, UAPI;
        stencil_comp_base: Hex = [832, 64] plain, UAPI;
        stencil_stride: u32 = [896, 32] plain, UAPI;
        stencil_comp_stride: u32 = [928, 32] plain, UAPI;
        zls_ctrl: Hex = [960, 64] plain, UAPI;
        /// 0x88 for one sample.
        ppp_multisamplectl: Hex = [1024, 64] plain, UAPI;
        sampler_heap: Hex = [1088, 64] plain, UAPI;
        ppp_ctrl: Hex = [1152, 32] plain, UAPI;
        width_px: u16 = [1184, 16] plain, UAPI;
        height_px: u16 = [1200, 16] plain, UAPI;
        layers: u16 = [1216, 16] plain, UAPI;
        sampler_count: u16 = [1232, 16] plain, UAPI;
        utile_width_px: u8 = [1248, 8] plain, KERNEL_RENDER;
        utile_height_px: u8 = [1256, 8] plain, KERNEL_RENDER;
        samples: u8 = [1264, 8] plain, KERNEL_RENDER;
        sample_size_b: u8 = [1272, 8] plain, KERNEL_RENDER;
        /// f32 bits of tan(60 deg) / width (the UAPI comment's "times" is wrong).
        isp_merge_upper_x: Hex = [1280, 32] plain, KERNEL_RENDER;
        isp_merge_upper_y: Hex = [1312, 32] plain, KERNEL_RENDER;
        bg_usc: Hex = [1344, 32] plain, UAPI;
        bg_rsrc_spec: Hex = [1376, 32] plain, UAPI;
        eot_usc: Hex = [1408, 32] plain, UAPI;
        eot_rsrc_spec: Hex = [1440, 32] plain, UAPI;
        partial_bg_usc: Hex = [1472, 32] plain, UAPI;
        partial_bg_rsrc_spec: Hex = [1504, 32] plain, UAPI;
        partial_eot_usc: Hex = [1536, 32] plain, UAPI;
        partial_eot_rsrc_spec: Hex = [1568, 32] plain, UAPI;
        isp_bgobjdepth: Hex = [1600, 32] plain, UAPI;
        isp_bgobjvals: Hex = [1632, 32] plain, UAPI;
        ts_vtx_start_handle: u32 = [1664, 32] plain, UAPI;
        ts_vtx_start_offset: u32 = [1696, 32] plain, UAPI;
        ts_vtx_end_handle: u32 = [1728, 32] plain, UAPI;
        ts_vtx_end_offset: u32 = [1760, 32] plain, UAPI;
        ts_frag_start_handle: u32 = [1792, 32] plain, UAPI;
        ts_frag_start_offset: u32 = [1824, 32] plain, UAPI;
        ts_frag_end_handle: u32 = [1856, 32] plain, UAPI;
        ts_frag_end_offset: u32 = [1888, 32] plain, UAPI;
    }
}

/// Render flags G16 accepts.
pub const RENDER_PROCESS_EMPTY_TILES: u32 = 1 << 1;
pub const RENDER_DBIAS_IS_INT: u32 = 1 << 18;

/// Tile (utile) sizes G16 accepts, in pixels.
pub const UTILE_SIZES: [(u8, u8); 3] = [(32, 32), (32, 16), (16, 16)];

/// Tilebuffer size in 2 KiB blocks as the G16 kernel computes it; `None` past its limit of 32.
pub fn tilebuffer_blocks(
    sample_size_b: u32,
    utile_w: u32,
    utile_h: u32,
    samples: u32,
) -> Option<u32> {
    let blocks = (sample_size_b * utile_w * utile_h * samples).div_ceil(2048);
    (blocks <= 32).then_some(blocks)
}

/// Largest utile for a per-sample tilebuffer size (bytes per pixel per sample), following
/// the 32x32 / 32x16 / 16x16 choices within the 32-block tilebuffer. At 4 samples the
/// largest is 32x16: the T8132 driver's end-of-tile tiles are 32x32 at 1x/2x and 32x16 at 4x
/// (GravityLinux/mesa src/asahi/compiler/README.apple9-ir.md "Native multisample block
/// stores", README.apple9-render-seed.md; validated by its dEQP multisample groups on M4).
pub fn utile_for(sample_size_b: u32, samples: u32) -> Option<(u8, u8)> {
    UTILE_SIZES
        .iter()
        .copied()
        .filter(|&(w, h)| samples < 4 || (w, h) != (32, 32))
        .find(|(w, h)| tilebuffer_blocks(sample_size_b, *w as u32, *h as u32, samples).is_some())
}

/// `ppp_multisamplectl` for the standard sample positions of a 1-, 2- or 4-sample render: one
/// byte per sample (sample 0 lowest), x in the low nibble and y in the high nibble, in 1/16
/// pixel: 1x the centre (8, 8); 2x (12, 12), (4, 4); 4x (6, 2), (14, 6), (2, 10), (10, 14)
/// (the D3D/Vulkan standard patterns GL ES implementations use). Evidence: GravityLinux/mesa
/// src/asahi/compiler/agx_compile.h default sample-position words 0x88, 0x44cc, 0xeaa26e26
/// (validated by a CTS-passing M4 driver: its dEQP multisample groups pass); ADevWithAnIdea/
/// agx-re docs/P0-P1-CLOSURE.md P0.3 (EXP-0126, measured on M4): the render command's
/// `ppp_multisamplectl` is this packed word and `samples` is 1, 2 or 4. `None` for other counts.
pub fn standard_sample_positions(samples: u32) -> Option<u64> {
    match samples {
        1 => Some(0x88),
        2 => Some(0x44cc),
        4 => Some(0xeaa2_6e26),
        _ => None,
    }
}

/// Value of `isp_merge_upper_{x,y}` for a framebuffer dimension: f32 bits of tan(60 deg)/dim.
pub fn merge_upper(dim: u32) -> u32 {
    (3f32.sqrt() / dim.max(1) as f32).to_bits()
}

/// Tile counts (32x32 tiles) the kernel derives from the framebuffer size.
pub fn tile_counts(width: u32, height: u32) -> (u32, u32) {
    (width.div_ceil(32), height.div_ceil(32))
}

/// Layer stride word for depth/stencil arrays: `((bytes / 16 KiB - 1) << 14) | 1`.
pub fn zls_layer_stride(bytes: u64) -> Option<u32> {
    let pages = bytes / 0x4000;
    (bytes.is_multiple_of(0x4000) && pages >= 1 && pages - 1 < (1 << 18))
        .then(|| (((pages - 1) as u32) << 14) | 1)
}

#[cfg(test)]
mod sample_position_tests {
    use super::standard_sample_positions;

    /// The words decode (low nibble x, high nibble y, sample 0 in the low byte) to the standard
    /// patterns, written here as offsets from the pixel centre in 1/16 pixel.
    #[test]
    fn standard_words_are_the_standard_patterns() {
        let decode = |w: u64, n: u32| -> Vec<(i32, i32)> {
            (0..n)
                .map(|s| {
                    let b = (w >> (8 * s)) as i32 & 0xff;
                    ((b & 0xf) - 8, (b >> 4) - 8)
                })
                .collect()
        };
        assert_eq!(decode(standard_sample_positions(1).unwrap(), 1), [(0, 0)]);
        assert_eq!(
            decode(standard_sample_positions(2).unwrap(), 2),
            [(4, 4), (-4, -4)]
        );
        assert_eq!(
            decode(standard_sample_positions(4).unwrap(), 4),
            [(-2, -6), (6, -2), (-6, 2), (2, 6)]
        );
        assert_eq!(standard_sample_positions(8), None);
    }
}

//! The per-draw 256-byte PPP state page and its nine records. Each record starts with a
//! PPP header (G13 bit layout) and sits at a fixed offset; the VDM stream points the PPP at
//! each with a `VdmPppUpdate` of the record's size. Offsets, sizes and the words T8132 Mesa
//! writes come from `GravityLinux/mesa:src/gallium/drivers/asahi/agx_apple9.c`
//! (`agx_apple9_prepare_draw`, `apple9_build_direct_bind_group`); bit meanings from the G13
//! genxml, and depth/stencil/raster words from agx-re's hardware-validated traces.

use crate::evidence::{AGXRE_CMDSTREAM, GENXML_G13, MESA_APPLE9};
use crate::print::{dump, PrintOptions};
use crate::record::{DecodeError, Hex, Record, Unexplained};

const fn w(word: u32, bit: u32) -> u32 {
    word * 32 + bit
}

/// Size of the per-draw PPP page.
pub const PPP_PAGE_SIZE: usize = 256;

hw_enum! {
    /// Depth/stencil compare function.
    pub enum ZsFunc {
        Never = 0 => "never", Less = 1 => "less", Equal = 2 => "equal", Lequal = 3 => "lequal",
        Greater = 4 => "greater", NotEqual = 5 => "not equal", Gequal = 6 => "gequal",
        Always = 7 => "always",
    }
}

hw_enum! {
    /// Stencil operation.
    pub enum StencilOp {
        Keep = 0 => "keep", Zero = 1 => "zero", Replace = 2 => "replace",
        IncrSat = 3 => "incr sat", DecrSat = 4 => "decr sat", Invert = 5 => "invert",
        IncrWrap = 6 => "incr wrap", DecrWrap = 7 => "decr wrap",
    }
}

hw_enum! {
    /// Fragment pass type (ordering of late tests and tilebuffer access).
    pub enum PassType {
        Opaque = 0 => "opaque", Translucent = 1 => "translucent",
        PunchThrough = 2 => "punch through", TranslucentPunchThrough = 3 => "translucent punch through",
    }
}

hw_enum! {
    /// Occlusion query mode.
    pub enum VisibilityMode { None = 0 => "none", Counting = 2 => "counting", Boolean = 3 => "boolean" }
}

hw_enum! {
    /// Polygon fill mode.
    pub enum PolygonMode { Fill = 0 => "fill", Line = 1 => "line", Point = 2 => "point" }
}

hw_enum! {
    /// How a primitive is rasterised.
    pub enum ObjectType {
        Triangle = 0 => "triangle", Line = 1 => "line", PointSpriteUv10 = 2 => "point sprite UV=10",
        PointSpriteUv01 = 4 => "point sprite UV=01", LineFilledTriangle = 5 => "line filled triangle",
        PointFilledTriangle = 6 => "point filled triangle",
    }
}

hw_enum! {
    /// Flat-shading (provoking) vertex as the cull word encodes it.
    pub enum PppVertex { V0 = 1 => "vertex 0", V1 = 2 => "vertex 1", V2 = 3 => "vertex 2" }
}

record! {
    /// Varying counts (+0x00, 5 words). Mesa writes header 0x10040000 and the user scalar count.
    pub struct PppVaryingCounts : 20 {
        header: Hex = [0, 32] plain, MESA_APPLE9;
        smooth: u8 = [w(1, 0), 8] plain, GENXML_G13;
        flat: u8 = [w(1, 8), 8] plain, GENXML_G13;
        linear: u8 = [w(1, 16), 8] plain, GENXML_G13;
        /// "Varying word 2" (G13 TODO) and one more word: zero in every T8132 draw.
        varying_word_2: Unexplained = [w(2, 0), 64] plain, GENXML_G13;
        unk_w4: Unexplained = [w(4, 0), 32] plain, MESA_APPLE9;
    }
}

record! {
    /// Fragment shader (+0x40, 7 words): coefficient-binding table, launch program.
    /// G16 moves the CF-binding pointer ahead of the pipeline words (T8132, EXP-M4-59).
    pub struct PppFragmentShader : 28 {
        header: Hex = [0, 32] plain, MESA_APPLE9;
        /// Bit 8 set in every T8132 draw; G13 register-count fields are not used.
        unk_w1: Unexplained = [w(1, 0), 16] plain, MESA_APPLE9;
        cf_binding_count: u8 = [w(1, 16), 7] plain, MESA_APPLE9;
        /// USC-relative byte address of the CF-binding table.
        cf_bindings: u32 = [w(2, 0), 32] plain, MESA_APPLE9;
        unk_w3: Unexplained = [w(3, 0), 32] plain, MESA_APPLE9;
        /// 0x01000000 in T8132/G17P captures; meaning not established.
        pipeline_word: Unexplained = [w(4, 0), 32] plain, MESA_APPLE9;
        /// Fragment launch program address bits 37:6.
        launch: u64 = [w(5, 0), 32] shr(6), MESA_APPLE9;
        /// Small resource-count-like value (Mesa: "formula unresolved").
        unk_w6: Unexplained = [w(6, 0), 32] plain, MESA_APPLE9;
    }
}

record! {
    /// Output select and size (+0x5c, 5 words).
    pub struct PppOutputSelect : 20 {
        header: Hex = [0, 32] plain, MESA_APPLE9;
        clip_distance_mask: Hex = [w(1, 0), 16] plain, GENXML_G13;
        varyings: bool = [w(1, 16), 1] plain, GENXML_G13;
        point_size: bool = [w(1, 18), 1] plain, MESA_APPLE9;
        viewport_target: bool = [w(1, 19), 1] plain, GENXML_G13;
        render_target: bool = [w(1, 20), 1] plain, GENXML_G13;
        frag_coord_z: bool = [w(1, 21), 1] plain, MESA_APPLE9;
        barycentric: bool = [w(1, 22), 1] plain, GENXML_G13;
        /// Varying counts (16-bit), zero on T8132.
        counts_16: Unexplained = [w(2, 0), 32] plain, GENXML_G13;
        output_unknown: Unexplained = [w(3, 0), 32] plain, GENXML_G13;
        /// Scalar vertex outputs: 4 + user scalars (+1 with point size).
        output_count: u32 = [w(4, 0), 32] plain, MESA_APPLE9;
    }
}

record! {
    /// Fragment control, faces, stencil and occlusion (+0x70, 7 words). The G16 header does
    /// not set the G13 fragment-control bit although the word is present.
    pub struct PppFragmentFaces : 28 {
        header: Hex = [0, 32] plain, MESA_APPLE9;
        /// G13 "Unk 1": set in every capture.
        fc_unk_9: Unexplained = [w(1, 9), 1] plain, GENXML_G13;
        visibility_mode: VisibilityMode = [w(1, 14), 2] plain, GENXML_G13;
        scissor_enable: bool = [w(1, 16), 1] plain, GENXML_G13;
        depth_bias_enable: bool = [w(1, 17), 1] plain, AGXRE_CMDSTREAM;
        stencil_test_enable: bool = [w(1, 18), 1] plain, AGXRE_CMDSTREAM;
        two_sided_stencil: bool = [w(1, 19), 1] plain, AGXRE_CMDSTREAM;
        tag_write_disable: bool = [w(1, 21), 1] plain, GENXML_G13;
        front_stencil_reference: u8 = [w(2, 0), 8] plain, AGXRE_CMDSTREAM;
        front_line_width: u8 = [w(2, 8), 8] plain, GENXML_G13;
        front_polygon_mode: PolygonMode = [w(2, 18), 2] plain, GENXML_G13;
        front_disable_depth_write: bool = [w(2, 21), 1] plain, AGXRE_CMDSTREAM;
        front_visibility_internal: Unexplained = [w(2, 22), 2] plain, GENXML_G13;
        front_depth_function: ZsFunc = [w(2, 24), 3] plain, AGXRE_CMDSTREAM;
        front_write_mask: Hex = [w(3, 0), 8] plain, AGXRE_CMDSTREAM;
        front_read_mask: Hex = [w(3, 8), 8] plain, AGXRE_CMDSTREAM;
        front_depth_pass: StencilOp = [w(3, 16), 3] plain, AGXRE_CMDSTREAM;
        front_depth_fail: StencilOp = [w(3, 19), 3] plain, AGXRE_CMDSTREAM;
        front_stencil_fail: StencilOp = [w(3, 22), 3] plain, AGXRE_CMDSTREAM;
        front_stencil_compare: ZsFunc = [w(3, 25), 3] plain, AGXRE_CMDSTREAM;
        back_stencil_reference: u8 = [w(4, 0), 8] plain, AGXRE_CMDSTREAM;
        back_line_width: u8 = [w(4, 8), 8] plain, GENXML_G13;
        back_polygon_mode: PolygonMode = [w(4, 18), 2] plain, GENXML_G13;
        back_disable_depth_write: bool = [w(4, 21), 1] plain, AGXRE_CMDSTREAM;
        back_visibility_internal: Unexplained = [w(4, 22), 2] plain, GENXML_G13;
        back_depth_function: ZsFunc = [w(4, 24), 3] plain, AGXRE_CMDSTREAM;
        back_write_mask: Hex = [w(5, 0), 8] plain, AGXRE_CMDSTREAM;
        back_read_mask: Hex = [w(5, 8), 8] plain, AGXRE_CMDSTREAM;
        back_depth_pass: StencilOp = [w(5, 16), 3] plain, AGXRE_CMDSTREAM;
        back_depth_fail: StencilOp = [w(5, 19), 3] plain, AGXRE_CMDSTREAM;
        back_stencil_fail: StencilOp = [w(5, 22), 3] plain, AGXRE_CMDSTREAM;
        back_stencil_compare: ZsFunc = [w(5, 25), 3] plain, AGXRE_CMDSTREAM;
        /// Index of this draw's 64-bit slot in the occlusion result buffer.
        occlusion_index: u16 = [w(6, 17), 15] plain, MESA_APPLE9;
    }
}

record! {
    /// Fragment control 2 and the second face words (+0x8c, 5 words).
    pub struct PppFragmentControl2 : 20 {
        header: Hex = [0, 32] plain, MESA_APPLE9;
        fc_unk_9: Unexplained = [w(1, 9), 1] plain, GENXML_G13;
        visibility_mode: VisibilityMode = [w(1, 14), 2] plain, MESA_APPLE9;
        depth_write_disable: bool = [w(1, 21), 1] plain, MESA_APPLE9;
        sample_mask_after_depth_stencil: bool = [w(1, 25), 1] plain, GENXML_G13;
        disable_tri_merging: bool = [w(1, 26), 1] plain, MESA_APPLE9;
        /// Bit 29 set when the shader reads the tilebuffer or MSAA is on; 0x44000000 for discard.
        pass_type: PassType = [w(1, 29), 3] plain, MESA_APPLE9;
        front_disable_depth_write: bool = [w(2, 21), 1] plain, GENXML_G13;
        front_conservative_depth: Unexplained = [w(2, 22), 2] plain, MESA_APPLE9;
        front_depth_function: ZsFunc = [w(2, 24), 3] plain, GENXML_G13;
        front_object_type: ObjectType = [w(2, 28), 4] plain, MESA_APPLE9;
        back_disable_depth_write: bool = [w(3, 21), 1] plain, GENXML_G13;
        back_conservative_depth: Unexplained = [w(3, 22), 2] plain, MESA_APPLE9;
        back_depth_function: ZsFunc = [w(3, 24), 3] plain, GENXML_G13;
        back_object_type: ObjectType = [w(3, 28), 4] plain, MESA_APPLE9;
        /// 0x1ffff when the fragment stage allocates tile memory, else zero.
        occlusion_2: Unexplained = [w(4, 0), 17] plain, MESA_APPLE9;
    }
}

record! {
    /// W clamp and cull 2 (+0xa0, 3 words).
    pub struct PppWClampCull2 : 12 {
        header: Hex = [0, 32] plain, MESA_APPLE9;
        w_clamp: f32 = [w(1, 0), 32] plain, GENXML_G13;
        clamp_w: bool = [w(2, 5), 1] plain, GENXML_G13;
        /// Set (0x80) in every T8132 draw; meaning not established.
        unk_7: Unexplained = [w(2, 7), 1] plain, MESA_APPLE9;
        draw_clipped_edges: bool = [w(2, 9), 1] plain, GENXML_G13;
        needs_primitive_id: bool = [w(2, 12), 1] plain, GENXML_G13;
        rasterizer_discard: bool = [w(2, 17), 1] plain, GENXML_G13;
    }
}

record! {
    /// Cull (+0xac, 2 words): cull bits 0/1, provoking vertex 8:7, CCW front face bit 16.
    pub struct PppCull : 8 {
        header: Hex = [0, 32] plain, MESA_APPLE9;
        cull_front: bool = [w(1, 0), 1] plain, AGXRE_CMDSTREAM;
        cull_back: bool = [w(1, 1), 1] plain, AGXRE_CMDSTREAM;
        flat_shading_vertex: PppVertex = [w(1, 7), 2] plain, MESA_APPLE9;
        depth_clip: bool = [w(1, 10), 1] plain, AGXRE_CMDSTREAM;
        depth_clamp: bool = [w(1, 11), 1] plain, AGXRE_CMDSTREAM;
        primitive_msaa: bool = [w(1, 15), 1] plain, GENXML_G13;
        front_face_ccw: bool = [w(1, 16), 1] plain, AGXRE_CMDSTREAM;
        rasterizer_discard: bool = [w(1, 17), 1] plain, GENXML_G13;
    }
}

record! {
    /// Region clip, viewport control and viewport transform (+0xc0, 10 words).
    /// Region clip is in 32-pixel tiles; the exact scissor comes from the scissor array.
    pub struct PppViewport : 40 {
        header: Hex = [0, 32] plain, MESA_APPLE9;
        clip_max_x: u16 = [w(1, 0), 9] minus1, MESA_APPLE9;
        clip_min_x: u16 = [w(1, 16), 9] plain, MESA_APPLE9;
        clip_enable: bool = [w(1, 31), 1] plain, MESA_APPLE9;
        clip_max_y: u16 = [w(2, 0), 9] minus1, MESA_APPLE9;
        clip_min_y: u16 = [w(2, 16), 9] plain, MESA_APPLE9;
        viewport_control: Unexplained = [w(3, 0), 32] plain, GENXML_G13;
        translate_x: f32 = [w(4, 0), 32] plain, MESA_APPLE9;
        scale_x: f32 = [w(5, 0), 32] plain, MESA_APPLE9;
        translate_y: f32 = [w(6, 0), 32] plain, MESA_APPLE9;
        scale_y: f32 = [w(7, 0), 32] plain, MESA_APPLE9;
        translate_z: f32 = [w(8, 0), 32] plain, MESA_APPLE9;
        scale_z: f32 = [w(9, 0), 32] plain, MESA_APPLE9;
    }
}

record! {
    /// Indices into the scissor and depth-bias arrays (+0xf0, 2 words).
    pub struct PppScissorDepthBias : 8 {
        header: Hex = [0, 32] plain, MESA_APPLE9;
        scissor: u16 = [w(1, 0), 16] plain, GENXML_G13;
        depth_bias: u16 = [w(1, 16), 16] plain, GENXML_G13;
    }
}

record! {
    /// One entry of the scissor array at `isp_scissor_base` (16 bytes).
    pub struct Scissor : 16 {
        max_x: u16 = [0, 16] plain, GENXML_G13;
        min_x: u16 = [16, 16] plain, GENXML_G13;
        max_y: u16 = [32, 16] plain, GENXML_G13;
        min_y: u16 = [48, 16] plain, GENXML_G13;
        min_z: f32 = [64, 32] plain, GENXML_G13;
        max_z: f32 = [96, 32] plain, GENXML_G13;
    }
}

record! {
    /// One entry of the depth-bias array at `isp_dbias_base` (12 bytes, unpadded).
    pub struct DepthBias : 12 {
        depth_bias: f32 = [0, 32] plain, GENXML_G13;
        slope_scale: f32 = [32, 32] plain, GENXML_G13;
        clamp: f32 = [64, 32] plain, GENXML_G13;
    }
}

/// Offsets and sizes (in words) of the nine records, in the order T8132 Mesa points the
/// PPP at them.
pub const PPP_RECORDS: [(usize, u8, &str); 9] = [
    (0x00, 5, "varying counts"),
    (0x40, 7, "fragment shader"),
    (0x5c, 5, "output select"),
    (0x70, 7, "fragment faces"),
    (0x8c, 5, "fragment control 2"),
    (0xc0, 10, "viewport"),
    (0xa0, 3, "W clamp / cull 2"),
    (0xac, 2, "cull"),
    (0xf0, 2, "scissor / depth bias"),
];

/// A decoded per-draw PPP page.
#[derive(Debug, Clone, PartialEq)]
pub struct PppPage {
    pub varying_counts: PppVaryingCounts,
    pub fragment_shader: PppFragmentShader,
    pub output_select: PppOutputSelect,
    pub fragment_faces: PppFragmentFaces,
    pub fragment_control_2: PppFragmentControl2,
    pub viewport: PppViewport,
    pub w_clamp_cull_2: PppWClampCull2,
    pub cull: PppCull,
    pub scissor_depth_bias: PppScissorDepthBias,
}

impl PppPage {
    /// Decodes a 256-byte page.
    pub fn unpack(page: &[u8]) -> Result<Self, DecodeError> {
        if page.len() < PPP_PAGE_SIZE {
            return Err(DecodeError::Truncated {
                record: "PppPage",
                need: PPP_PAGE_SIZE,
                have: page.len(),
            });
        }
        Ok(PppPage {
            varying_counts: Record::unpack(&page[0x00..])?,
            fragment_shader: Record::unpack(&page[0x40..])?,
            output_select: Record::unpack(&page[0x5c..])?,
            fragment_faces: Record::unpack(&page[0x70..])?,
            fragment_control_2: Record::unpack(&page[0x8c..])?,
            viewport: Record::unpack(&page[0xc0..])?,
            w_clamp_cull_2: Record::unpack(&page[0xa0..])?,
            cull: Record::unpack(&page[0xac..])?,
            scissor_depth_bias: Record::unpack(&page[0xf0..])?,
        })
    }

    /// Encodes the page (gaps between records are zero).
    pub fn pack(&self) -> Result<Vec<u8>, crate::PackError> {
        let mut page = vec![0u8; PPP_PAGE_SIZE];
        self.varying_counts.pack_into(&mut page[0x00..])?;
        self.fragment_shader.pack_into(&mut page[0x40..])?;
        self.output_select.pack_into(&mut page[0x5c..])?;
        self.fragment_faces.pack_into(&mut page[0x70..])?;
        self.fragment_control_2.pack_into(&mut page[0x8c..])?;
        self.viewport.pack_into(&mut page[0xc0..])?;
        self.w_clamp_cull_2.pack_into(&mut page[0xa0..])?;
        self.cull.pack_into(&mut page[0xac..])?;
        self.scissor_depth_bias.pack_into(&mut page[0xf0..])?;
        Ok(page)
    }

    /// True when every bit and value of all nine records is documented.
    pub fn fully_known(&self) -> bool {
        self.varying_counts.fully_known()
            && self.fragment_shader.fully_known()
            && self.output_select.fully_known()
            && self.fragment_faces.fully_known()
            && self.fragment_control_2.fully_known()
            && self.viewport.fully_known()
            && self.w_clamp_cull_2.fully_known()
            && self.cull.fully_known()
            && self.scissor_depth_bias.fully_known()
    }

    /// Human-readable dump; the flag says whether anything unknown was found.
    pub fn format(&self, indent: usize, opts: PrintOptions) -> (String, bool) {
        let parts = [
            dump(&self.varying_counts, indent, opts),
            dump(&self.fragment_shader, indent, opts),
            dump(&self.output_select, indent, opts),
            dump(&self.fragment_faces, indent, opts),
            dump(&self.fragment_control_2, indent, opts),
            dump(&self.viewport, indent, opts),
            dump(&self.w_clamp_cull_2, indent, opts),
            dump(&self.cull, indent, opts),
            dump(&self.scissor_depth_bias, indent, opts),
        ];
        let flagged = parts.iter().any(|p| p.1);
        (parts.into_iter().map(|p| p.0).collect(), flagged)
    }
}

/// Why a draw's PPP updates could not be assembled into a page.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PppAssembleError {
    #[error("update {index} has {words} words; the G16 layout expects {expected} there")]
    Layout {
        index: usize,
        words: u8,
        expected: u8,
    },
    #[error("{0} PPP updates; the G16 layout has {n}", n = PPP_RECORDS.len())]
    Count(usize),
    #[error("reading PPP state at {va:#x}: {why}")]
    Memory { va: u64, why: String },
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

impl PppPage {
    /// Assembles the page a draw's nine PPP updates point at (in the order of
    /// [`PPP_RECORDS`]); each record is read from where its update points.
    pub fn from_updates(
        mem: &impl crate::stream::GpuRead,
        updates: &[crate::vdm::VdmPppUpdate],
    ) -> Result<Self, PppAssembleError> {
        if updates.len() != PPP_RECORDS.len() {
            return Err(PppAssembleError::Count(updates.len()));
        }
        let mut page = [0u8; PPP_PAGE_SIZE];
        // The usual layout, the records at their page offsets from one base: one read of the
        // page, its records copied out (the bytes between them stay zero, as below).
        let base = updates[0].pointer.wrapping_sub(PPP_RECORDS[0].0 as u32);
        let one_page = updates.iter().zip(PPP_RECORDS).all(|(u, (off, words, _))| {
            u.size_words == words && u.pointer == base.wrapping_add(off as u32)
        });
        let mut whole = [0u8; PPP_PAGE_SIZE];
        if one_page
            && mem
                .read(crate::vdm::RENDER_CONTEXT_BASE + base as u64, &mut whole)
                .is_ok()
        {
            for (off, words, _) in PPP_RECORDS {
                let r = off..off + words as usize * 4;
                page[r.clone()].copy_from_slice(&whole[r]);
            }
            return Ok(PppPage::unpack(&page)?);
        }
        for (index, (u, (off, words, _))) in updates.iter().zip(PPP_RECORDS).enumerate() {
            if u.size_words != words {
                return Err(PppAssembleError::Layout {
                    index,
                    words: u.size_words,
                    expected: words,
                });
            }
            let va = crate::vdm::RENDER_CONTEXT_BASE + u.pointer as u64;
            let dst = &mut page[off..off + words as usize * 4];
            mem.read(va, dst)
                .map_err(|why| PppAssembleError::Memory { va, why })?;
        }
        Ok(PppPage::unpack(&page)?)
    }
}

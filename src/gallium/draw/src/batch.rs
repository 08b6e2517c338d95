//! A batch: the draws and clears recorded for one framebuffer between flushes, with every
//! piece of pipeline state resolved into plain values.

use crate::fb::Framebuffer;
use crate::program::{FragmentProgram, VertexProgram};
use agx16_cmdstream::ppp::{StencilOp, ZsFunc};
use agx16_cmdstream::vdm::{IndexSize, Primitive};
use std::sync::Arc;

/// The viewport transform: window = translate + scale * ndc, for x, y (framebuffer rows
/// increase with y) and z.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    pub scale: [f32; 3],
    pub translate: [f32; 3],
}

impl Viewport {
    /// The whole framebuffer, depth range [0, 1] from NDC z in [0, 1].
    pub fn full(width: u32, height: u32) -> Viewport {
        Viewport {
            scale: [width as f32 / 2.0, height as f32 / 2.0, 1.0],
            translate: [width as f32 / 2.0, height as f32 / 2.0, 0.0],
        }
    }
}

/// Rasteriser state of a draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Raster {
    pub cull_front: bool,
    pub cull_back: bool,
    /// Counter-clockwise as displayed (framebuffer y down) is front: Gallium's `front_ccw`
    /// and the model's `front_face_ccw` share that convention (sim/GFX.md "Facing").
    pub front_ccw: bool,
    /// Flat varyings take the first vertex's value (else the last's).
    pub flatshade_first: bool,
    /// Line width in pixels.
    pub line_width: f32,
    /// Clip to 0 <= z <= w.
    pub depth_clip: bool,
    /// Scissor rectangle [min_x, min_y, max_x, max_y) in pixels.
    pub scissor: Option<[u16; 4]>,
    pub rasterizer_discard: bool,
    /// Point sprites' t runs bottom to top (GL's lower-left sprite origin; GLES has only the
    /// upper-left one, t top to bottom).
    pub sprite_lower_left: bool,
    /// Polygon offset of filled triangles (glPolygonOffset with GL_POLYGON_OFFSET_FILL).
    pub depth_bias: Option<DepthBiasState>,
}

/// glPolygonOffset's factor and units (Gallium's `offset_scale`, `offset_units`) and
/// EXT_polygon_offset_clamp's clamp (0: none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthBiasState {
    pub units: f32,
    pub factor: f32,
    pub clamp: f32,
}

impl Default for Raster {
    fn default() -> Self {
        Raster {
            cull_front: false,
            cull_back: false,
            front_ccw: true,
            flatshade_first: false,
            line_width: 1.0,
            depth_clip: true,
            scissor: None,
            rasterizer_discard: false,
            sprite_lower_left: false,
            depth_bias: None,
        }
    }
}

/// One face's stencil state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilFace {
    pub func: ZsFunc,
    pub fail: StencilOp,
    pub depth_fail: StencilOp,
    pub pass: StencilOp,
    pub reference: u8,
    pub read_mask: u8,
    pub write_mask: u8,
}

/// Depth and stencil state of a draw (default: both tests off).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DepthStencil {
    /// `None`: depth test off (always passes, never writes).
    pub depth_func: Option<ZsFunc>,
    pub depth_write: bool,
    /// Front and back faces; `None`: stencil test off.
    pub stencil: Option<[StencilFace; 2]>,
}

/// Which vertices a draw reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Indices {
    /// Vertex ids `first .. first + count`.
    Direct { first: u32, count: u32 },
    /// `count` indices of `size` at `va` (in the USC aperture, where G16 index fetch reads),
    /// each plus `base_vertex`; an index equal to `restart` ends the strip or fan.
    Indexed {
        va: u64,
        size: IndexSize,
        count: u32,
        base_vertex: i32,
        restart: Option<u32>,
    },
}

impl Indices {
    pub fn count(&self) -> u32 {
        match *self {
            Indices::Direct { count, .. } | Indices::Indexed { count, .. } => count,
        }
    }
}

/// One draw.
#[derive(Clone, Debug)]
pub struct Draw {
    pub vs: Arc<VertexProgram>,
    pub fs: Arc<FragmentProgram>,
    /// Argument words each stage's launcher transfers into its uniform registers (word w =
    /// uniform w): the root record the launcher's pointer loads read, laid out as the
    /// compiler's graphics ABI says (six root qwords — texture, sampler and buffer tables and
    /// three reserved — then the stage's buffer addresses and inline words). Shorter records
    /// are padded with zero roots to the six qwords every T8132 launcher loads.
    pub vs_args: Vec<u32>,
    pub fs_args: Vec<u32>,
    pub primitive: Primitive,
    pub indices: Indices,
    pub instances: u32,
    pub raster: Raster,
    pub viewport: Viewport,
    pub zs: DepthStencil,
    /// Occlusion counting: the index of this draw's 64-bit slot in the batch's occlusion
    /// result buffer ([`Batch::occlusion_base`]), to which the samples passing its depth and
    /// stencil tests are added; `None` counts nothing.
    pub occlusion: Option<u16>,
}

/// What happens to each attachment at the start of the render.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Clear {
    /// Per colour slot: the clear value as the target's tile words (its memory bytes,
    /// [`crate::fb::tile_words`]), or `None` to keep (load) its contents.
    pub color: Vec<Option<Vec<u32>>>,
    pub depth: Option<f32>,
    pub stencil: Option<u8>,
}

/// Which attachments a clear call names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClearMask {
    /// Bit i: colour slot i.
    pub color: u32,
    pub depth: bool,
    pub stencil: bool,
}

/// The draws and clears for one framebuffer between flushes.
#[derive(Clone, Debug)]
pub struct Batch {
    pub fb: Framebuffer,
    pub clear: Clear,
    pub draws: Vec<Draw>,
    /// GPU address of the occlusion result slots the draws' `occlusion` indices name (0: no
    /// draw counts).
    pub occlusion_base: u64,
}

impl Batch {
    pub fn new(fb: Framebuffer) -> Batch {
        let n = fb.colors.len();
        Batch {
            fb,
            clear: Clear {
                color: vec![None; n],
                depth: None,
                stencil: None,
            },
            draws: Vec::new(),
            occlusion_base: 0,
        }
    }

    /// Nothing to render: no draws and no clears.
    pub fn is_empty(&self) -> bool {
        self.draws.is_empty()
            && self.clear.color.iter().all(Option::is_none)
            && self.clear.depth.is_none()
            && self.clear.stencil.is_none()
    }

    /// Records a full-framebuffer clear to a float colour of the 8-bit unorm targets (raw
    /// targets need [`Batch::clear_words`]; a float colour is refused for them: `false` is
    /// not returned for that, the slot is left to load). Before any draw it becomes the
    /// render's initial values (background program, ZLS clear values); after draws it cannot,
    /// and `false` says the caller must flush and record the clear into a fresh batch.
    pub fn clear(&mut self, mask: ClearMask, color: [f32; 4], depth: f32, stencil: u8) -> bool {
        let words: Vec<Option<Vec<u32>>> = self
            .fb
            .colors
            .iter()
            .map(|c| {
                c.as_ref()
                    .and_then(|c| c.format.pack(color))
                    .map(|b| crate::fb::tile_words(&b))
            })
            .collect();
        self.clear_words(mask, &words, depth, stencil)
    }

    /// As [`Batch::clear`], with each slot's clear value already packed into its tile words
    /// (`words[i]`; `None` leaves slot i alone).
    pub fn clear_words(
        &mut self,
        mask: ClearMask,
        words: &[Option<Vec<u32>>],
        depth: f32,
        stencil: u8,
    ) -> bool {
        if !self.draws.is_empty() {
            return false;
        }
        for (i, c) in self.clear.color.iter_mut().enumerate() {
            if mask.color & (1 << i) != 0 && self.fb.colors[i].is_some() {
                if let Some(Some(w)) = words.get(i) {
                    *c = Some(w.clone());
                }
            }
        }
        if mask.depth {
            self.clear.depth = Some(depth);
        }
        if mask.stencil {
            self.clear.stencil = Some(stencil);
        }
        true
    }
}

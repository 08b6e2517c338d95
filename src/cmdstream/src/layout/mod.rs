//! Image memory layouts: linear and twiddled (tiled Morton) planes, mip chains, array
//! layers, cube faces, 3D slices, multisampling and lossless-compression metadata sizes,
//! plus fast CPU tile/untile routines for transfers.
//!
//! Every rule here is from agx-re's hardware probes on M4 and A18 Pro
//! (`ADevWithAnIdea/agx-re:docs/tiling/README.md`, EXP-0017/0028/M4-04..07), except where a
//! comment says "inferred".

mod plane;
mod swizzle;

pub use plane::{morton_interleave, PlaneLayout, PAGE};
pub use swizzle::{tile_plane, untile_plane};

use thiserror::Error;

/// Why an image cannot be laid out.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LayoutError {
    #[error("image has a zero dimension")]
    Empty,
    #[error("element size {0} bytes is not one of 1, 2, 4, 8, 16")]
    ElementSize(u32),
    #[error("{0} samples: only 1, 2 and 4 exist")]
    Samples(u32),
    #[error("{levels} levels exceed the {max} a {w}x{h} image has")]
    Levels {
        levels: u32,
        max: u32,
        w: u32,
        h: u32,
    },
    #[error("{0}")]
    Unsupported(&'static str),
    #[error("buffer of {have} bytes, need {need}")]
    Buffer { have: usize, need: usize },
}

/// Linear (row-major) or twiddled (tiled Morton, the GPU's optimal layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tiling {
    Linear,
    Twiddled,
}

/// What kind of image, for how planes stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    D2,
    /// `layers` array slices.
    D2Array,
    /// Six faces per cube; `layers` counts cubes.
    Cube,
    /// `layers` counts depth slices (stacked 2D planes, not a 3D Morton curve).
    D3,
}

/// An image to lay out. Sizes are in texels; `block_w`/`block_h` > 1 for compressed formats
/// (element = one block of `element_bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageDesc {
    pub width: u32,
    pub height: u32,
    pub layers: u32,
    pub levels: u32,
    pub samples: u32,
    pub element_bytes: u32,
    pub block_w: u32,
    pub block_h: u32,
    pub kind: Kind,
    pub tiling: Tiling,
    /// Lossless compression requested (it only engages when the rules below allow).
    pub compressible: bool,
}

impl ImageDesc {
    /// A single-level 2D uncompressed-format image.
    pub fn simple_2d(width: u32, height: u32, element_bytes: u32, tiling: Tiling) -> Self {
        ImageDesc {
            width,
            height,
            layers: 1,
            levels: 1,
            samples: 1,
            element_bytes,
            block_w: 1,
            block_h: 1,
            kind: Kind::D2,
            tiling,
            compressible: false,
        }
    }
}

/// Where one mip level lives within a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelLayout {
    /// Byte offset from the start of the layer.
    pub offset: u64,
    pub plane: PlaneLayout,
}

/// A laid-out image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageLayout {
    pub desc: ImageDesc,
    pub levels: Vec<LevelLayout>,
    /// Bytes between consecutive planes (array layers, cube faces, 3D slices).
    pub layer_stride: u64,
    /// Number of stacked planes (layers x 6 for cubes).
    pub planes: u32,
    /// Size of the image data (all planes).
    pub image_bytes: u64,
    /// Compression metadata size, placed right after the image data, when compression engages
    /// (only for the shapes whose rule was measured: one level, one plane, one sample).
    pub aux_bytes: Option<u64>,
}

/// First-tail threshold: the run of small mip levels starts 0x8000-aligned.
const MIP_TAIL_SLOT: u64 = 0x8000;
/// Smallest mip slot.
const MIN_SLOT: u64 = 0x80;

fn mip(d: u32, l: u32) -> u32 {
    (d >> l).max(1)
}

impl ImageLayout {
    pub fn new(desc: ImageDesc) -> Result<Self, LayoutError> {
        let d = desc;
        if d.width == 0
            || d.height == 0
            || d.layers == 0
            || d.levels == 0
            || d.block_w == 0
            || d.block_h == 0
        {
            return Err(LayoutError::Empty);
        }
        if ![1, 2, 4, 8, 16].contains(&d.element_bytes) {
            return Err(LayoutError::ElementSize(d.element_bytes));
        }
        if ![1, 2, 4].contains(&d.samples) {
            return Err(LayoutError::Samples(d.samples));
        }
        // A 3D image's chain also halves its depth (GL ES 3.0 §3.8.14), so a deep volume has
        // more levels than its width and height allow; each level keeps `layers` planes.
        let depth = if d.kind == Kind::D3 { d.layers } else { 1 };
        let max = 32 - d.width.max(d.height).max(depth).leading_zeros();
        if d.levels > max {
            return Err(LayoutError::Levels {
                levels: d.levels,
                max,
                w: d.width,
                h: d.height,
            });
        }
        if d.tiling == Tiling::Linear && (d.levels > 1 || d.samples > 1 || d.kind != Kind::D2) {
            // Buffer-backed (linear) textures are single-level 2D in the sources.
            return Err(LayoutError::Unsupported(
                "linear images are single-level, single-sample 2D",
            ));
        }
        // MSAA: samples are the lowest address bits; the tile edge follows bytes per pixel.
        let elem = d.element_bytes * d.samples;
        let mut levels = Vec::with_capacity(d.levels as usize);
        let mut offset = 0u64;
        let mut in_tail = false;
        for l in 0..d.levels {
            let w_el = mip(d.width, l).div_ceil(d.block_w);
            let h_el = mip(d.height, l).div_ceil(d.block_h);
            let plane = match d.tiling {
                Tiling::Linear => PlaneLayout::linear(w_el, h_el, elem),
                Tiling::Twiddled => PlaneLayout::twiddled(w_el, h_el, elem),
            };
            let slot = if d.levels > 1 {
                plane.size.max(MIN_SLOT)
            } else {
                plane.size
            };
            if d.levels > 1 && !in_tail && slot <= MIP_TAIL_SLOT {
                in_tail = true;
                offset = offset.next_multiple_of(MIP_TAIL_SLOT);
            }
            levels.push(LevelLayout { offset, plane });
            offset += slot;
        }
        let planes = match d.kind {
            Kind::Cube => 6 * d.layers,
            _ => d.layers,
        };
        // Single-level planes stack exactly (measured). For mipmapped arrays the sources give
        // no stride; page alignment is inferred.
        let layer_stride = if d.levels == 1 || planes == 1 {
            offset
        } else {
            offset.next_multiple_of(PAGE)
        };
        let image_bytes = layer_stride * planes as u64;
        // Compression: only twiddled, W >= 16 and H >= 16 texels; one byte per 32 texels of
        // the padded image, placed right after it. Measured for single-level, single-plane,
        // single-sample images only, so other shapes are left uncompressed.
        let aux_bytes = (d.compressible
            && d.tiling == Tiling::Twiddled
            && d.width >= 16
            && d.height >= 16
            && d.levels == 1
            && planes == 1
            && d.samples == 1)
            .then(|| image_bytes / (32 * d.element_bytes as u64));
        Ok(ImageLayout {
            desc,
            levels,
            layer_stride,
            planes,
            image_bytes,
            aux_bytes,
        })
    }

    /// Byte offset of sample `s` of element (x, y) (in elements: blocks for compressed
    /// formats) of `level` in plane `plane` (layer, or layer*6+face for cubes, or z for 3D).
    #[inline]
    pub fn element_offset(&self, level: u32, plane: u32, x: u32, y: u32, s: u32) -> u64 {
        let l = &self.levels[level as usize];
        plane as u64 * self.layer_stride
            + l.offset
            + l.plane.offset(x, y)
            + s as u64 * self.desc.element_bytes as u64
    }

    /// Total allocation: image plus compression metadata.
    pub fn total_bytes(&self) -> u64 {
        self.image_bytes + self.aux_bytes.unwrap_or(0)
    }
}

//! The framebuffer a batch renders to, as the render command and tile programs see it.

use crate::mem::DrawError;
use agx16_cmdstream::layout::PlaneLayout;
use agx16_cmdstream::render::ZlsFormat;

/// Colour formats the render path writes, with their tilebuffer representation: one 32-bit
/// tile word per pixel and sample holding the pixel's bytes in memory order (the fragment
/// program packs it; the end-of-tile store copies it out unchanged).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileFormat {
    Rgba8Unorm,
    Bgra8Unorm,
}

impl TileFormat {
    /// Bytes of tilebuffer per sample.
    pub fn tile_bytes(self) -> u32 {
        4
    }

    /// The pixel bytes (memory order) of an RGBA colour, as GL converts a float colour to
    /// unorm8: clamp to [0, 1], scale by 255, round to nearest.
    pub fn pack(self, rgba: [f32; 4]) -> [u8; 4] {
        let u = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
        let [r, g, b, a] = rgba.map(u);
        match self {
            TileFormat::Rgba8Unorm => [r, g, b, a],
            TileFormat::Bgra8Unorm => [b, g, r, a],
        }
    }
}

/// One colour attachment: the level/layer it renders to.
#[derive(Clone, Debug, PartialEq)]
pub struct ColorTarget {
    /// VA of the level and layer's first byte.
    pub va: u64,
    /// Its plane (linear with a stride, or twiddled).
    pub plane: PlaneLayout,
    pub format: TileFormat,
}

/// One depth or stencil plane (twiddled, as agx16 lays out every depth/stencil resource).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZsSurface {
    pub va: u64,
}

/// The depth/stencil attachment.
#[derive(Clone, Debug, PartialEq)]
pub struct ZsTarget {
    /// Depth plane and format (Z32F or Z16 unorm: what ZLS loads and stores).
    pub depth: Option<(ZsSurface, ZlsFormat)>,
    /// Stencil plane (one byte per pixel).
    pub stencil: Option<ZsSurface>,
    /// Extent of the planes (the level's size).
    pub width: u32,
    pub height: u32,
}

/// The bound framebuffer of a batch.
#[derive(Clone, Debug, PartialEq)]
pub struct Framebuffer {
    pub width: u32,
    pub height: u32,
    pub samples: u32,
    pub colors: Vec<Option<ColorTarget>>,
    pub zs: Option<ZsTarget>,
}

/// Where each colour target's word sits in a tilebuffer sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileLayout {
    /// Byte offset of each colour target inside a sample (`None` for unbound slots).
    pub offsets: Vec<Option<u32>>,
    /// Bytes per sample (`sample_size_b`), at least 4.
    pub sample_bytes: u32,
}

impl Framebuffer {
    /// Checks what the render command can express (G16 kernel and model rules).
    pub fn validate(&self) -> Result<(), DrawError> {
        if !(1..=16384).contains(&self.width) || !(1..=16384).contains(&self.height) {
            return Err(DrawError::Framebuffer(format!(
                "{}x{} is outside 1..=16384",
                self.width, self.height
            )));
        }
        if self.samples != 1 {
            return Err(DrawError::Unsupported(format!(
                "rendering with {} samples (multisampled resources are not created)",
                self.samples
            )));
        }
        if self.colors.len() > 8 {
            return Err(DrawError::Framebuffer(format!(
                "{} colour targets (at most 8)",
                self.colors.len()
            )));
        }
        if let Some(zs) = &self.zs {
            if zs.width < self.width || zs.height < self.height {
                return Err(DrawError::Framebuffer(format!(
                    "depth/stencil {}x{} is smaller than the framebuffer {}x{}",
                    zs.width, zs.height, self.width, self.height
                )));
            }
        }
        Ok(())
    }

    /// Colour targets packed one after another in each sample, in slot order.
    pub fn tile_layout(&self) -> TileLayout {
        let mut at = 0;
        let offsets = self
            .colors
            .iter()
            .map(|c| {
                c.as_ref().map(|c| {
                    let o = at;
                    at += c.format.tile_bytes();
                    o
                })
            })
            .collect();
        TileLayout {
            offsets,
            sample_bytes: at.max(4),
        }
    }
}

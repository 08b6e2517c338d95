//! The framebuffer a batch renders to, as the render command and tile programs see it.

use crate::mem::DrawError;
use agx16_cmdstream::descriptors::{Channels, NumericType};
use agx16_cmdstream::layout::PlaneLayout;
use agx16_cmdstream::render::ZlsFormat;
use agx16_isa::meaning::TileFormat as BlockFormat;

/// Colour formats the render path writes, with their tilebuffer representation: whole 32-bit
/// tile words per pixel and sample holding the pixel's bytes in memory order (the fragment
/// program packs them; the end-of-tile store copies them out unchanged, sim/GFX.md "Background
/// and end-of-tile programs").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileFormat {
    Rgba8Unorm,
    Bgra8Unorm,
    /// Any other colour format of `bytes` (1, 2, 4, 8 or 16) bytes per pixel: the fragment
    /// program stores the memory bytes it packed itself (Mesa's `nir_format_pack_rgba`), the
    /// caller packs clear values, and the end-of-tile store copies them through an unsigned
    /// integer view of the same width ([`TileFormat::export_view`]).
    Raw {
        bytes: u8,
    },
}

impl TileFormat {
    /// Bytes of tilebuffer per sample: the memory bytes padded to whole words (each target
    /// starts on a word, the unit `tile_store` addresses).
    pub fn tile_bytes(self) -> u32 {
        match self {
            TileFormat::Rgba8Unorm | TileFormat::Bgra8Unorm => 4,
            TileFormat::Raw { bytes } => (bytes as u32).div_ceil(4) * 4,
        }
    }

    /// Bytes per pixel in memory.
    pub fn memory_bytes(self) -> u32 {
        match self {
            TileFormat::Rgba8Unorm | TileFormat::Bgra8Unorm => 4,
            TileFormat::Raw { bytes } => bytes as u32,
        }
    }

    /// The block-store tile format and PBE channels/type the end-of-tile program exports the
    /// target with: a representation whose channels have the memory format's width and
    /// encoding, so the store copies the tile bytes unchanged (sim/GFX.md `block_image_store`:
    /// format 7 into 8-bit unorm, 5 into 8-bit integers, 1 into 16-bit, 3 into 32-bit
    /// channels; agx_apple9.h `agx_apple9_block_export_format`). A raw target is exported as
    /// unsigned integers of its whole pixel width: the program already packed the bytes.
    pub fn export_view(self) -> Option<(BlockFormat, Channels, NumericType)> {
        use BlockFormat as B;
        use Channels as C;
        Some(match self {
            TileFormat::Rgba8Unorm | TileFormat::Bgra8Unorm => {
                (B::Packed8, C::R8G8B8A8, NumericType::Unorm)
            }
            TileFormat::Raw { bytes: 1 } => (B::Int8, C::R8, NumericType::Uint),
            TileFormat::Raw { bytes: 2 } => (B::Bits16, C::R16, NumericType::Uint),
            TileFormat::Raw { bytes: 4 } => (B::Bits32, C::R32, NumericType::Uint),
            TileFormat::Raw { bytes: 8 } => (B::Bits32, C::R32G32, NumericType::Uint),
            TileFormat::Raw { bytes: 16 } => (B::Bits32, C::R32G32B32A32, NumericType::Uint),
            TileFormat::Raw { .. } => return None,
        })
    }

    /// The pixel bytes (memory order) of an RGBA colour, as GL converts a float colour to
    /// unorm8: clamp to [0, 1], scale by 255, round to nearest. `None` for raw targets (their
    /// caller packs the clear value for the format).
    pub fn pack(self, rgba: [f32; 4]) -> Option<[u8; 4]> {
        let u = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
        let [r, g, b, a] = rgba.map(u);
        match self {
            TileFormat::Rgba8Unorm => Some([r, g, b, a]),
            TileFormat::Bgra8Unorm => Some([b, g, r, a]),
            TileFormat::Raw { .. } => None,
        }
    }
}

/// Tile words of a pixel from its memory bytes (little-endian words, zero-padded).
pub fn tile_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

/// Colour targets one render can export: eight, one block store each. The store's tuple field
/// takes 0, 4, 8 and 12 (agx16-isa `block_image_store_instr`), and targets 4..7 reuse a tuple
/// after the previous store's join released it (agx16-isa `block_store_sequence`). Evidence:
/// GravityLinux/mesa agx_compile_apple9.c accepts eight render targets, each with its own image
/// slot and tile byte offset, and README.apple9-es3.md verified eight RGBA32F targets at one
/// sample on T8132 (validated by a CTS-passing M4 driver). The per-sample tilebuffer budget
/// (128 bytes at 1x) bounds the formats ([`Framebuffer::tile_layout`], build.rs).
pub const MAX_BOUND_TARGETS: usize = 8;

/// One colour attachment: the level/layer it renders to.
#[derive(Clone, Debug, PartialEq)]
pub struct ColorTarget {
    /// VA of the level and layer's first byte.
    pub va: u64,
    /// Its plane (linear with a stride, or twiddled; multisampled: twiddled, each element a
    /// pixel's samples, `Framebuffer::samples` x the format's bytes).
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
        if !matches!(self.samples, 1 | 2 | 4) {
            return Err(DrawError::Unsupported(format!(
                "rendering with {} samples (1, 2 or 4)",
                self.samples
            )));
        }
        // Multisampled colour targets are GPU-tiled with a pixel's samples together
        // (`ColorTarget::plane` = `PlaneLayout::twiddled(w, h, bytes * samples)`).
        if self.samples > 1 {
            for (slot, c) in self.colors.iter().enumerate() {
                let Some(c) = c else { continue };
                let bytes = c.format.memory_bytes() * self.samples;
                if c.plane != PlaneLayout::twiddled(c.plane.width, c.plane.height, bytes) {
                    return Err(DrawError::Framebuffer(format!(
                        "{}-sample colour target {slot} is not a GPU-tiled plane of \
                         {bytes}-byte sample groups",
                        self.samples
                    )));
                }
            }
        }
        if self.colors.len() > MAX_BOUND_TARGETS {
            return Err(DrawError::Framebuffer(format!(
                "{} colour targets (at most {MAX_BOUND_TARGETS})",
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

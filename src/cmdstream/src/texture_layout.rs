//! Texture descriptors for laid-out images, and image layouts for texture descriptors, so the
//! driver and the model derive addresses from one pair of functions.
//!
//! Facts: agx-re docs/descriptors + docs/tiling (mipmapped word1 bit 26, compression word1
//! bit 27, word3 bit 31 for mips or compression, aux VA = base + padded image bytes, depth /
//! array length minus one in word3 bits 14 and up). A cube's extent counts cubes, not faces:
//! Metal's cube textures have array length 1 (agx-re docs/descriptors: the field is
//! "arrayLen − 1", type Cube = 6 measured on G17P), and GravityLinux/mesa agx_state.c
//! `agx_pack_texture` writes a cube view's layers / 6 (validated by that driver's dEQP-GLES3
//! cube groups on M4); the six faces of each cube are consecutive planes.

use crate::descriptors::{Channels, NumericType, Swizzle, Texture, TextureDimension};
use crate::layout::{ImageDesc, ImageLayout, Kind, LayoutError, Tiling};

/// Format of a texture: channel arrangement, numeric type and swizzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureFormat {
    pub channels: Channels,
    pub numeric_type: NumericType,
    pub swizzle: [Swizzle; 4],
    pub srgb: bool,
}

/// A texture descriptor for a twiddled image laid out at `base`.
pub fn texture_for(l: &ImageLayout, base: u64, f: TextureFormat) -> Result<Texture, LayoutError> {
    let d = &l.desc;
    if d.tiling != Tiling::Twiddled {
        return Err(LayoutError::Unsupported(
            "linear textures need the stride form, not modelled",
        ));
    }
    let (bytes, bw, bh) = f
        .channels
        .element()
        .ok_or(LayoutError::Unsupported("unknown channel arrangement"))?;
    if bytes != d.element_bytes || bw != d.block_w || bh != d.block_h {
        return Err(LayoutError::Unsupported(
            "format does not match the image's element size",
        ));
    }
    let dimension = match (d.kind, d.samples, d.layers) {
        (Kind::D2, 1, _) => TextureDimension::D2,
        (Kind::D2, _, _) => TextureDimension::D2Ms,
        (Kind::D2Array, 1, _) => TextureDimension::D2Array,
        (Kind::D2Array, _, _) => TextureDimension::D2ArrayMs,
        (Kind::Cube, 1, 1) => TextureDimension::Cube,
        (Kind::Cube, 1, _) => TextureDimension::CubeArray,
        (Kind::D3, 1, _) => TextureDimension::D3,
        _ => return Err(LayoutError::Unsupported("multisampled cube or 3D image")),
    };
    let aux = l.aux_bytes.is_some();
    Ok(Texture {
        dimension,
        // Bits 4..5 = 2 in every sampled colour descriptor agx-re captured on M4 and A18 for
        // Metal's optimal (twiddled) textures (docs/descriptors/format-table.md: byte0 =
        // type | 0x20 | arrangement bits 6..7, bit 4 always 0); G13 named value 1 twiddled.
        layout: crate::descriptors::Layout::Gpu,
        channels: f.channels,
        numeric_type: f.numeric_type,
        swizzle_r: f.swizzle[0],
        swizzle_g: f.swizzle[1],
        swizzle_b: f.swizzle[2],
        swizzle_a: f.swizzle[3],
        width: d.width,
        height: d.height,
        samples_log2_minus1: if d.samples > 1 {
            (d.samples.trailing_zeros() - 1) as u8
        } else {
            0
        },
        mipmapped: d.levels > 1,
        compressed: aux,
        address: base,
        srgb: f.srgb,
        extent_minus1: if d.kind == Kind::Cube {
            d.layers - 1
        } else {
            l.planes - 1
        },
        aux_layout: aux || d.levels > 1,
        aux_address: if aux { base + l.image_bytes } else { 0 },
        levels: d.levels as u16,
        ..Default::default()
    })
}

/// The image layout a texture descriptor describes (twiddled images).
pub fn layout_for(t: &Texture) -> Result<ImageLayout, LayoutError> {
    let (bytes, bw, bh) = t
        .channels
        .element()
        .ok_or(LayoutError::Unsupported("unknown channel arrangement"))?;
    let planes = t.extent_minus1 + 1;
    let samples = match t.dimension {
        TextureDimension::D2Ms | TextureDimension::D2ArrayMs => 2u32 << t.samples_log2_minus1,
        _ => 1,
    };
    let (kind, layers) = match t.dimension {
        TextureDimension::D2 | TextureDimension::D2Ms => (Kind::D2, 1),
        TextureDimension::D2Array | TextureDimension::D2ArrayMs => (Kind::D2Array, planes),
        TextureDimension::Cube if planes == 1 => (Kind::Cube, 1),
        TextureDimension::CubeArray => (Kind::Cube, planes),
        TextureDimension::D3 => (Kind::D3, planes),
        _ => {
            return Err(LayoutError::Unsupported(
                "texture dimension without an established layout",
            ))
        }
    };
    ImageLayout::new(ImageDesc {
        width: t.width,
        height: t.height,
        layers,
        levels: t.levels as u32,
        samples,
        element_bytes: bytes,
        block_w: bw,
        block_h: bh,
        kind,
        tiling: Tiling::Twiddled,
        compressible: t.compressed,
    })
}

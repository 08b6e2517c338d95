//! Texture, sampler and PBE (render target / storage image) descriptors.
//!
//! G16 layouts: T8132 Mesa's texture packer (`agx_apple9_pack_r32f_texture`) and sampler
//! packer (`agx_apple9_pack_sampler`), cross-checked with agx-re's change-one-parameter
//! traces (docs/descriptors/README.md). Where they differ from G13 (sampler LOD split, VA
//! position) the G16 sources win.

use crate::evidence::{AGXRE_DESCRIPTORS, GENXML_G13, MESA_APPLE9, MESA_APPLE9_LAUNCH};
use crate::record::{Hex, PackError, Unexplained};

hw_enum! {
    /// Texture dimension.
    pub enum TextureDimension {
        D1 = 0 => "1D", D1Array = 1 => "1D array", D2 = 2 => "2D", D2Array = 3 => "2D array",
        D2Ms = 4 => "2D multisampled", D3 = 5 => "3D", Cube = 6 => "cube",
        CubeArray = 7 => "cube array", D2ArrayMs = 8 => "2D array multisampled",
    }
}

hw_enum! {
    /// Memory layout of an image. Names are G13's; on G16 T8132 Mesa's tightly packed linear
    /// R32F texture uses value 2, so the names are unconfirmed for G16.
    pub enum Layout { Linear = 0 => "linear", Twiddled = 1 => "twiddled", Gpu = 2 => "GPU", Interchange = 3 => "interchange" }
}

hw_enum! {
    /// Channel arrangement (format class).
    pub enum Channels {
        R8 = 0x00 => "R8", R16 = 0x09 => "R16", R8G8 = 0x0a => "R8G8", R5G6B5 = 0x0b => "R5G6B5",
        R4G4B4A4 = 0x0c => "R4G4B4A4", A1R5G5B5 = 0x0d => "A1R5G5B5", R5G5B5A1 = 0x0e => "R5G5B5A1",
        R32 = 0x21 => "R32", R16G16 = 0x23 => "R16G16", R11G11B10 = 0x25 => "R11G11B10",
        R10G10B10A2 = 0x26 => "R10G10B10A2", R9G9B9E5 = 0x27 => "R9G9B9E5", R8G8B8A8 = 0x28 => "R8G8B8A8",
        R32G32 = 0x31 => "R32G32", R16G16B16A16 = 0x32 => "R16G16B16A16", R32G32B32A32 = 0x38 => "R32G32B32A32",
        Etc2Rgb8 = 0x58 => "ETC2 RGB8", Etc2Rgba8 = 0x59 => "ETC2 RGBA8", Etc2Rgb8A1 = 0x5a => "ETC2 RGB8A1",
        EacR11 = 0x5b => "EAC R11", EacRg11 = 0x5c => "EAC RG11", Astc4x4 = 0x60 => "ASTC 4x4",
        Bc1 = 0x74 => "BC1", Bc2 = 0x75 => "BC2", Bc3 = 0x76 => "BC3", Bc4 = 0x77 => "BC4",
        Bc5 = 0x78 => "BC5", Bc6h = 0x79 => "BC6H", Bc6hUfloat = 0x7a => "BC6H ufloat", Bc7 = 0x7b => "BC7",
    }
}

hw_enum! {
    /// Numeric type of a format.
    pub enum NumericType { Unorm = 0 => "unorm", Snorm = 1 => "snorm", Uint = 2 => "uint", Sint = 3 => "sint", Float = 4 => "float", Xr = 5 => "XR" }
}

hw_enum! {
    /// Swizzle source.
    pub enum Swizzle { R = 0 => "R", G = 1 => "G", B = 2 => "B", A = 3 => "A", One = 4 => "1", Zero = 5 => "0" }
}

record! {
    /// Sampled texture descriptor (32 bytes).
    pub struct Texture : 32 {
        dimension: TextureDimension = [0, 4] plain, MESA_APPLE9_LAUNCH;
        layout: Layout = [4, 2] plain, MESA_APPLE9_LAUNCH;
        channels: Channels = [6, 7] plain, MESA_APPLE9_LAUNCH;
        numeric_type: NumericType = [13, 3] plain, AGXRE_DESCRIPTORS;
        swizzle_r: Swizzle = [16, 3] plain, AGXRE_DESCRIPTORS;
        swizzle_g: Swizzle = [19, 3] plain, AGXRE_DESCRIPTORS;
        swizzle_b: Swizzle = [22, 3] plain, AGXRE_DESCRIPTORS;
        swizzle_a: Swizzle = [25, 3] plain, AGXRE_DESCRIPTORS;
        width: u32 = [28, 14] minus1, MESA_APPLE9_LAUNCH;
        height: u32 = [42, 14] minus1, MESA_APPLE9_LAUNCH;
        /// log2(samples) - 1 for multisampled types.
        samples_log2_minus1: u8 = [56, 2] plain, AGXRE_DESCRIPTORS;
        mipmapped: bool = [58, 1] plain, AGXRE_DESCRIPTORS;
        compressed: bool = [59, 1] plain, AGXRE_DESCRIPTORS;
        sparse: Unexplained = [60, 2] plain, AGXRE_DESCRIPTORS;
        /// Base VA (16-byte aligned): word2 and word3 bits 11:0 hold VA >> 4.
        address: u64 = [64, 44] shr(4), MESA_APPLE9_LAUNCH;
        srgb: bool = [108, 1] plain, AGXRE_DESCRIPTORS;
        /// Depth or array length minus one; for buffer-backed linear textures the row stride
        /// in 16-byte units minus one.
        extent_minus1: u32 = [110, 17] plain, AGXRE_DESCRIPTORS;
        /// Set with compression or mipmaps.
        aux_layout: bool = [127, 1] plain, AGXRE_DESCRIPTORS;
        /// Compression metadata VA (16-byte aligned).
        aux_address: u64 = [128, 44] shr(4), AGXRE_DESCRIPTORS;
        levels: u16 = [176, 8] minus1, AGXRE_DESCRIPTORS;
    }
}

record! {
    /// Storage-image / render-target (PBE) descriptor (32 bytes), what the end-of-tile block
    /// store (`block_image_store`) writes through: same format bits as a texture, a different
    /// width/height split, no compression aux (agx-re EXP-G1b, measured on G17P, byte-identical
    /// on M4 per m4-deltas). Layout 2 ("GPU") is the tiled-Morton layout of agx-re's optimal
    /// (twiddled) images; 0 (linear, stride below) is G13's value and not measured on G16.
    /// The four 2-bit swizzles are G13's reading of bits 16..23 (agx-re calls word0 16..27 a
    /// "format-derived component field"; its 24..27 overlap the width, so that span is
    /// taken as 16..23).
    pub struct Pbe : 32 {
        dimension: TextureDimension = [0, 4] plain, AGXRE_DESCRIPTORS;
        layout: Layout = [4, 2] plain, AGXRE_DESCRIPTORS;
        channels: Channels = [6, 7] plain, AGXRE_DESCRIPTORS;
        numeric_type: NumericType = [13, 3] plain, AGXRE_DESCRIPTORS;
        swizzle_r: Swizzle = [16, 2] plain, GENXML_G13;
        swizzle_g: Swizzle = [18, 2] plain, GENXML_G13;
        swizzle_b: Swizzle = [20, 2] plain, GENXML_G13;
        swizzle_a: Swizzle = [22, 2] plain, GENXML_G13;
        width: u32 = [24, 14] minus1, AGXRE_DESCRIPTORS;
        height: u32 = [38, 14] minus1, AGXRE_DESCRIPTORS;
        /// log2(samples) - 1 of a multisampled (`D2Ms`) target: G13's PBE "Samples" at bit 56
        /// (Mesa src/asahi/genxml/cmdbuf.xml, 0 = 2x, 1 = 4x), the bits the measured G16
        /// texture descriptor uses for its sample count (agx-re docs/descriptors, word1
        /// 24..25); the T8132 driver's multisample block store takes the count from the PBE
        /// (GravityLinux/mesa README.apple9-ir.md). Inferred for the G16 PBE.
        samples_log2_minus1: u8 = [56, 2] plain, GENXML_G13;
        /// Base VA (16-byte aligned): word2 and word3 bits 11:0 hold VA >> 4.
        address: u64 = [64, 44] shr(4), AGXRE_DESCRIPTORS;
        /// Linear row stride in 16-byte units minus one (agx-re: bytes per row =
        /// ((word3 >> 12) + 1) * 16); zero for the tiled layout.
        stride_minus1: u32 = [108, 20] plain, AGXRE_DESCRIPTORS;
    }
}

impl Pbe {
    /// A single-sample 2D render-target descriptor with the identity swizzle: `linear_stride`
    /// Some(bytes per row, a multiple of 16) for the linear layout, None for the tiled
    /// (GPU, twiddled) layout.
    pub fn render_target_2d(
        address: u64,
        width: u32,
        height: u32,
        channels: Channels,
        numeric_type: NumericType,
        linear_stride: Option<u32>,
    ) -> Pbe {
        Pbe {
            dimension: TextureDimension::D2,
            layout: if linear_stride.is_some() {
                Layout::Linear
            } else {
                Layout::Gpu
            },
            channels,
            numeric_type,
            swizzle_r: Swizzle::R,
            swizzle_g: Swizzle::G,
            swizzle_b: Swizzle::B,
            swizzle_a: Swizzle::A,
            width,
            height,
            address,
            stride_minus1: linear_stride.map_or(0, |s| (s / 16).saturating_sub(1)),
            ..Default::default()
        }
    }

    /// A multisampled (2 or 4 samples) GPU-tiled 2D render target: samples of a pixel are
    /// contiguous, the plane's elements are `samples` pixels' worth of bytes
    /// (`PlaneLayout::twiddled(width, height, bytes * samples)`; GravityLinux/mesa
    /// agx_blit.c addresses them as pixel_index * samples * bpp + sample * bpp).
    pub fn render_target_2d_ms(
        address: u64,
        width: u32,
        height: u32,
        channels: Channels,
        numeric_type: NumericType,
        samples: u32,
    ) -> Pbe {
        Pbe {
            dimension: TextureDimension::D2Ms,
            samples_log2_minus1: if samples >= 4 { 1 } else { 0 },
            ..Pbe::render_target_2d(address, width, height, channels, numeric_type, None)
        }
    }

    /// Samples of the target: 1 unless the dimension is multisampled.
    pub fn samples(&self) -> u32 {
        match self.dimension {
            TextureDimension::D2Ms | TextureDimension::D2ArrayMs => 2 << self.samples_log2_minus1,
            _ => 1,
        }
    }

    /// Bytes per row of a linear image.
    pub fn linear_stride(&self) -> u32 {
        (self.stride_minus1 + 1) * 16
    }
}

hw_enum! {
    /// Address (wrap) mode.
    pub enum Wrap { ClampToEdge = 0 => "clamp to edge", Repeat = 1 => "repeat", MirroredRepeat = 2 => "mirrored repeat", ClampToBorder = 3 => "clamp to border", ClampGl = 4 => "clamp (GL)", MirroredClampToEdge = 5 => "mirrored clamp to edge" }
}

hw_enum! {
    /// Mip filter.
    pub enum MipFilter { None = 0 => "none", Nearest = 1 => "nearest", Linear = 2 => "linear" }
}

hw_enum! {
    /// Border colour presets (the only ones the hardware has).
    pub enum BorderColour { TransparentBlack = 0 => "transparent black", OpaqueBlack = 1 => "opaque black", OpaqueWhite = 2 => "opaque white" }
}

/// Bytes between entries of a render stage's texture table (root = argument qword 0), which
/// also holds the end-of-tile program's PBE descriptors after the textures: one 32-byte
/// descriptor per entry (`Texture` and `Pbe` are 32 bytes: ADevWithAnIdea/agx-re
/// docs/descriptors, measured); that the table is a plain array of them is inferred, no source
/// prints the stride. The driver writes and the model reads tables with this one value.
pub const TEXTURE_TABLE_STRIDE: usize = 32;
/// Bytes between entries of a render stage's sampler table (root = argument qword 1): one
/// 8-byte `Sampler` per entry. Inferred: Mesa's G13 driver packs samplers 8 bytes apart unless
/// custom border colours extend them (Mesa src/gallium/drivers/asahi/agx_state.c, sampler
/// upload), and a device-global sampler table has stride 8 (agx-re docs/descriptors EXP-O2B,
/// measured on G17P). The 32-byte slot of the doc comment below is the heap slot of Apple's
/// argument buffers, which the decoder walks (`decode::SAMPLER_STRIDE`).
pub const SAMPLER_TABLE_STRIDE: usize = 8;

record! {
    /// Sampler (8 bytes, in a 32-byte heap slot). LOD min is x64 in 13 bits and LOD max x8 in
    /// 7 bits on G16 (G13 used 10/10).
    pub struct Sampler : 8 {
        /// Minimum LOD in 1/64 units.
        min_lod_64ths: u16 = [0, 13] plain, MESA_APPLE9_LAUNCH;
        /// Maximum LOD in 1/8 units.
        max_lod_8ths: u8 = [13, 7] plain, MESA_APPLE9_LAUNCH;
        max_anisotropy_log2: u8 = [20, 3] plain, MESA_APPLE9_LAUNCH;
        mag_linear: bool = [23, 1] plain, MESA_APPLE9_LAUNCH;
        min_linear: bool = [25, 1] plain, MESA_APPLE9_LAUNCH;
        mip_filter: MipFilter = [27, 2] plain, MESA_APPLE9_LAUNCH;
        wrap_s: Wrap = [29, 3] plain, MESA_APPLE9_LAUNCH;
        wrap_t: Wrap = [32, 3] plain, MESA_APPLE9_LAUNCH;
        wrap_r: Wrap = [35, 3] plain, AGXRE_DESCRIPTORS;
        unnormalized: bool = [38, 1] plain, AGXRE_DESCRIPTORS;
        /// Compare "sense" bit; T8132 Mesa sets it (with test 7) on every sampler.
        compare_sense: bool = [39, 1] plain, AGXRE_DESCRIPTORS;
        /// Compare test code (agx-re EXP-0015 maps all eight functions; table not transcribed).
        compare_test: Hex = [40, 3] plain, AGXRE_DESCRIPTORS;
        border: BorderColour = [61, 2] plain, AGXRE_DESCRIPTORS;
    }
}

impl Sampler {
    /// LOD bounds in levels, as the hardware stores them.
    pub fn lod_range(&self) -> (f32, f32) {
        (
            self.min_lod_64ths as f32 / 64.0,
            self.max_lod_8ths as f32 / 8.0,
        )
    }

    /// Sets LOD bounds, clamped to [0, 14] as T8132 Mesa does.
    pub fn set_lod_range(&mut self, min: f32, max: f32) {
        let max = max.clamp(0.0, 14.0);
        let min = min.clamp(0.0, max);
        self.min_lod_64ths = (min * 64.0).round() as u16;
        self.max_lod_8ths = (max * 8.0).round() as u8;
    }
}

record! {
    /// Coefficient-binding table header.
    pub struct CfBindingHeader : 4 {
        slots: u8 = [0, 8] plain, GENXML_G13;
        coefficient_registers: u8 = [8, 8] plain, GENXML_G13;
    }
}

hw_enum! {
    /// Interpolation of a coefficient binding.
    pub enum ShadeModel { FlatVertex0 = 0 => "flat vertex 0", FlatVertex2 = 2 => "flat vertex 2", Linear = 3 => "linear", FlatVertex1 = 6 => "flat vertex 1", Perspective = 7 => "perspective" }
}

hw_enum! {
    /// Where a coefficient binding's values come from.
    pub enum CoefficientSource { Varying = 0 => "varying", FragcoordZ = 1 => "fragcoord Z", PointCoord = 2 => "point coord", PrimitiveId = 3 => "primitive ID", Barycentric = 5 => "barycentric" }
}

record! {
    /// One coefficient binding: `components` scalars from `base_slot` into coefficient
    /// registers from `base_coefficient`. Coefficient 0 is 1/W on G16.
    pub struct CfBinding : 4 {
        components: u8 = [0, 2] minus1, MESA_APPLE9;
        shade_model: ShadeModel = [2, 3] plain, MESA_APPLE9;
        source: CoefficientSource = [5, 3] plain, MESA_APPLE9;
        base_slot: u8 = [8, 8] plain, MESA_APPLE9;
        base_coefficient: u8 = [16, 8] plain, MESA_APPLE9;
    }
}

/// Packs a CF-binding table (header then bindings).
pub fn pack_cf_table(
    header: &CfBindingHeader,
    bindings: &[CfBinding],
) -> Result<Vec<u8>, PackError> {
    use crate::Record;
    let mut out = header.pack()?;
    for b in bindings {
        out.extend(b.pack()?);
    }
    Ok(out)
}

impl Channels {
    /// Bytes per element and block size in texels (1x1 for uncompressed formats), as the
    /// format names define them; `None` for values no source names.
    pub fn element(self) -> Option<(u32, u32, u32)> {
        use Channels::*;
        Some(match self {
            R8 => (1, 1, 1),
            R16 | R8G8 | R5G6B5 | R4G4B4A4 | A1R5G5B5 | R5G5B5A1 => (2, 1, 1),
            R32 | R16G16 | R11G11B10 | R10G10B10A2 | R9G9B9E5 | R8G8B8A8 => (4, 1, 1),
            R32G32 | R16G16B16A16 => (8, 1, 1),
            R32G32B32A32 => (16, 1, 1),
            Etc2Rgb8 | Etc2Rgb8A1 | EacR11 | Bc1 | Bc4 => (8, 4, 4),
            Etc2Rgba8 | EacRg11 | Astc4x4 | Bc2 | Bc3 | Bc5 | Bc6h | Bc6hUfloat | Bc7 => (16, 4, 4),
            Unknown(_) => return None,
        })
    }
}

/// How a channel arrangement stores its components in one element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentLayout {
    /// Components 0.. (R, G, B, A) as `(first bit, bits)` of the little-endian element, the
    /// first at the least significant bits.
    Fields(&'static [(u8, u8)]),
    /// Three 9-bit mantissas at bits 0, 9, 18 sharing a 5-bit exponent at bit 27.
    SharedExponent,
}

impl Channels {
    /// Where each hardware component (R, G, B, A in swizzle-code order) sits in an element of
    /// an uncompressed arrangement; `None` for compressed and unnamed arrangements and for
    /// A1R5G5B5, whose field order no source pins down.
    ///
    /// Evidence: the codes are agx-re's M4 captures (ADevWithAnIdea/agx-re
    /// docs/descriptors/format-table.md §2d, measured: Metal's formats with these codes
    /// sampled correctly). Which bits are component R..A is inferred from Mesa's G13 table
    /// (src/asahi/layout/formats.c, run on M1): it gives each Gallium format (whose channels
    /// are named from the least significant bits) the arrangement of the same name and
    /// reaches other orders (B5G6R5, A4B4G4R4, B10G10R10A2) only through the format's
    /// swizzle, so hardware component i is the i-th field from the least significant bit.
    pub fn components(self) -> Option<ComponentLayout> {
        use Channels::*;
        use ComponentLayout::Fields;
        Some(match self {
            R8 => Fields(&[(0, 8)]),
            R16 => Fields(&[(0, 16)]),
            R8G8 => Fields(&[(0, 8), (8, 8)]),
            R5G6B5 => Fields(&[(0, 5), (5, 6), (11, 5)]),
            R4G4B4A4 => Fields(&[(0, 4), (4, 4), (8, 4), (12, 4)]),
            R5G5B5A1 => Fields(&[(0, 5), (5, 5), (10, 5), (15, 1)]),
            R32 => Fields(&[(0, 32)]),
            R16G16 => Fields(&[(0, 16), (16, 16)]),
            R11G11B10 => Fields(&[(0, 11), (11, 11), (22, 10)]),
            R10G10B10A2 => Fields(&[(0, 10), (10, 10), (20, 10), (30, 2)]),
            R9G9B9E5 => ComponentLayout::SharedExponent,
            R8G8B8A8 => Fields(&[(0, 8), (8, 8), (16, 8), (24, 8)]),
            R32G32 => Fields(&[(0, 32), (32, 32)]),
            R16G16B16A16 => Fields(&[(0, 16), (16, 16), (32, 16), (48, 16)]),
            R32G32B32A32 => Fields(&[(0, 32), (32, 32), (64, 32), (96, 32)]),
            _ => return None,
        })
    }

    /// Whether agx-re's M4 captures (format-table.md §2d) show this arrangement with this
    /// numeric type (the code is `numtype << 5 | size class`, orthogonal per its DESC-6).
    /// sRGB is a separate flag on 8-bit unorm arrangements.
    pub fn captured_with(self, t: NumericType) -> bool {
        use Channels::*;
        use NumericType::*;
        match self {
            R8 | R8G8 | R8G8B8A8 => matches!(t, Unorm | Snorm | Uint | Sint),
            R16 | R16G16 | R16G16B16A16 => matches!(t, Unorm | Snorm | Uint | Sint | Float),
            R32 | R32G32 | R32G32B32A32 => matches!(t, Uint | Sint | Float),
            R5G6B5 | R4G4B4A4 | R5G5B5A1 => t == Unorm,
            R10G10B10A2 => matches!(t, Unorm | Uint),
            R11G11B10 | R9G9B9E5 => t == Float,
            _ => false,
        }
    }
}

//! ES 3.0 sampled texture formats: normalised, half/float, integer, depth, swizzles, mipmap
//! generation and ETC2.

use super::*;

const VS3_TEXTURED: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec2 a_tc;
out vec2 v_tc;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_tc = a_tc; }
";

/// One 4x4 texture of a sized internal format drawn on a vertical strip of the framebuffer with
/// NEAREST (texel edges on whole pixels: 16 rows each, and the strip width a multiple of 4) or
/// LINEAR filtering, shown as `texture(u_tex, v_tc) * scale + bias` (so signed, integer and
/// wide-range values land in [0, 1]).
struct Strip {
    internal: u32,
    format: u32,
    ty: u32,
    data: Vec<u8>,
    /// "sampler2D", "isampler2D" or "usampler2D".
    sampler: &'static str,
    scale: [f32; 4],
    bias: [f32; 4],
    filter: u32,
    /// TEXTURE_SWIZZLE_R/G/B/A (identity when None).
    swizzle: Option<[u32; 4]>,
}

impl Strip {
    fn new(internal: u32, format: u32, ty: u32, data: Vec<u8>) -> Strip {
        Strip {
            internal,
            format,
            ty,
            data,
            sampler: "sampler2D",
            scale: [1.0; 4],
            bias: [0.0; 4],
            filter: glow::NEAREST,
            swizzle: None,
        }
    }
    fn int(mut self, signed: bool, max: f32) -> Strip {
        self.sampler = if signed { "isampler2D" } else { "usampler2D" };
        let (s, b) = if signed {
            (0.5 / max, 0.5)
        } else {
            (1.0 / max, 0.0)
        };
        self.scale = [s; 4];
        self.bias = [b; 4];
        self
    }
    fn signed(mut self) -> Strip {
        self.scale = [0.5; 4];
        self.bias = [0.5; 4];
        self
    }
    fn linear(mut self) -> Strip {
        self.filter = glow::LINEAR;
        self
    }
}

/// Deterministic pseudo-random bytes (xorshift).
fn noise_bytes(n: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2654435761) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 7) as u8
        })
        .collect()
}

/// `n` little-endian words from `f` applied to noise.
fn words<T, const N: usize>(n: usize, seed: u32, f: impl Fn(u32) -> T) -> Vec<u8>
where
    T: Into<[u8; N]>,
{
    noise_bytes(4 * n, seed)
        .chunks(4)
        .flat_map(|c| f(u32::from_le_bytes([c[0], c[1], c[2], c[3]])).into())
        .collect()
}

fn le16(v: u16) -> [u8; 2] {
    v.to_le_bytes()
}
fn le32(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}

/// binary16 bits in (-1, 1): exponent at most 14, any sign and mantissa.
fn half_in_unit(r: u32) -> u16 {
    let exp = (r >> 10) % 15;
    ((r & 0x8000) | exp << 10 | (r & 0x3ff)) as u16
}

/// f32 in [-1, 1] on a 1/4096 grid (exact in every format it is uploaded to).
fn float_in_unit(r: u32) -> f32 {
    ((r % 8193) as f32 - 4096.0) / 4096.0
}

const FS3_STRIP: &str = "#version 300 es
precision highp float;
precision highp int;
uniform highp SAMPLER u_tex;
uniform vec4 u_scale;
uniform vec4 u_bias;
in vec2 v_tc;
out vec4 o;
void main() { o = vec4(texture(u_tex, v_tc)) * u_scale + u_bias; }
";

/// Draws `strips` side by side across the framebuffer (64 / len pixels each).
unsafe fn strips(gl: &Gl, strips: &[Strip]) -> Frame {
    simple(gl, || {
        let w = (SIZE as usize / strips.len()) as f32;
        for (i, st) in strips.iter().enumerate() {
            let fs = FS3_STRIP.replace("SAMPLER", st.sampler);
            let p = program(gl, VS3_TEXTURED, &fs, &[])?;
            gl.active_texture(glow::TEXTURE0);
            let tex = gl.create_texture()?;
            gl.bind_texture(glow::TEXTURE_2D, Some(tex));
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                st.internal as i32,
                4,
                4,
                0,
                st.format,
                st.ty,
                glow::PixelUnpackData::Slice(Some(&st.data)),
            );
            check(gl, &format!("upload of internal format {:#x}", st.internal))?;
            let params = [
                (glow::TEXTURE_MIN_FILTER, st.filter),
                (glow::TEXTURE_MAG_FILTER, st.filter),
                (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE),
                (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE),
            ];
            for (param, v) in params {
                gl.tex_parameter_i32(glow::TEXTURE_2D, param, v as i32);
            }
            if let Some(sw) = st.swizzle {
                let names = [
                    glow::TEXTURE_SWIZZLE_R,
                    glow::TEXTURE_SWIZZLE_G,
                    glow::TEXTURE_SWIZZLE_B,
                    glow::TEXTURE_SWIZZLE_A,
                ];
                for (name, v) in names.into_iter().zip(sw) {
                    gl.tex_parameter_i32(glow::TEXTURE_2D, name, v as i32);
                }
            }
            let loc = gl.get_uniform_location(p, "u_tex");
            gl.uniform_1_i32(loc.as_ref(), 0);
            uniform4(gl, p, "u_scale", st.scale);
            uniform4(gl, p, "u_bias", st.bias);
            let (x0, x1) = (i as f32 * w, (i + 1) as f32 * w);
            let v = [
                x0, 0.0, 0.0, 0.0, x1, 0.0, 1.0, 0.0, x1, 64.0, 1.0, 1.0, x0, 0.0, 0.0, 0.0, x1,
                64.0, 1.0, 1.0, x0, 64.0, 0.0, 1.0,
            ];
            vertices(gl, &v, &[2, 2])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, &format!("draw of internal format {:#x}", st.internal))?;
        }
        Ok(())
    })
}

/// Unsigned normalised formats, packed ones included, and RGB8 (stored with a padding channel):
/// R8, RG8, RGB8, RGB565, RGBA4, RGB5_A1, RGB10_A2, SRGB8_ALPHA8.
pub(crate) fn texture_formats_unorm(gl: &Gl, _: &Ctx) -> Frame {
    let b = |n: usize, seed: u32| noise_bytes(16 * n, seed);
    let w16 = |seed| words::<_, 2>(16, seed, |r| le16(r as u16));
    let strips_ = [
        Strip::new(glow::R8, glow::RED, glow::UNSIGNED_BYTE, b(1, 1)),
        Strip::new(glow::RG8, glow::RG, glow::UNSIGNED_BYTE, b(2, 2)),
        Strip::new(glow::RGB8, glow::RGB, glow::UNSIGNED_BYTE, b(3, 3)),
        Strip::new(glow::RGB565, glow::RGB, glow::UNSIGNED_SHORT_5_6_5, w16(4)),
        Strip::new(
            glow::RGBA4,
            glow::RGBA,
            glow::UNSIGNED_SHORT_4_4_4_4,
            w16(5),
        ),
        Strip::new(
            glow::RGB5_A1,
            glow::RGBA,
            glow::UNSIGNED_SHORT_5_5_5_1,
            w16(6),
        ),
        Strip::new(
            glow::RGB10_A2,
            glow::RGBA,
            glow::UNSIGNED_INT_2_10_10_10_REV,
            words::<_, 4>(16, 7, le32),
        ),
        Strip::new(glow::SRGB8_ALPHA8, glow::RGBA, glow::UNSIGNED_BYTE, b(4, 8)),
    ];
    unsafe { strips(gl, &strips_) }
}

/// Signed normalised formats (shown as c / 2 + 1/2): R8, RG8, RGB8 and RGBA8 SNORM, the -128
/// codes included.
pub(crate) fn texture_formats_snorm(gl: &Gl, _: &Ctx) -> Frame {
    let b = |n: usize, seed: u32| noise_bytes(16 * n, seed);
    let strips_ = [
        Strip::new(glow::R8_SNORM, glow::RED, glow::BYTE, b(1, 11)).signed(),
        Strip::new(glow::RG8_SNORM, glow::RG, glow::BYTE, b(2, 12)).signed(),
        Strip::new(glow::RGB8_SNORM, glow::RGB, glow::BYTE, b(3, 13)).signed(),
        Strip::new(glow::RGBA8_SNORM, glow::RGBA, glow::BYTE, b(4, 14)).signed(),
    ];
    unsafe { strips(gl, &strips_) }
}

/// Half-float and packed-float formats: R16F, RG16F, RGB16F, RGBA16F (nearest), RGBA16F and
/// RG16F linear (OES_texture_half_float_linear is part of ES 3.0), R11F_G11F_B10F and RGB9_E5
/// (values below 2, shown as they are, clamped by the RGBA8 target).
pub(crate) fn texture_formats_half(gl: &Gl, _: &Ctx) -> Frame {
    let h = |n: usize, seed| words::<_, 2>(16 * n, seed, |r| le16(half_in_unit(r)));
    // 11/11/10-bit floats with exponents up to 15 (values below 2): never Inf or NaN.
    let small = |r: u32, m: u32| (r % 16) << m | (r >> 4) & ((1 << m) - 1);
    let r11 = words::<_, 4>(16, 27, |r| {
        le32(small(r, 6) | small(r >> 10, 6) << 11 | small(r >> 20, 5) << 22)
    });
    let e5 = words::<_, 4>(16, 28, |r| le32(r & 0x7ff_ffff | ((r >> 27) % 17) << 27));
    let strips_ = [
        Strip::new(glow::R16F, glow::RED, glow::HALF_FLOAT, h(1, 21)).signed(),
        Strip::new(glow::RG16F, glow::RG, glow::HALF_FLOAT, h(2, 22)).signed(),
        Strip::new(glow::RGB16F, glow::RGB, glow::HALF_FLOAT, h(3, 24)).signed(),
        Strip::new(glow::RGBA16F, glow::RGBA, glow::HALF_FLOAT, h(4, 23)).signed(),
        Strip::new(glow::RGBA16F, glow::RGBA, glow::HALF_FLOAT, h(4, 31))
            .signed()
            .linear(),
        Strip::new(glow::RG16F, glow::RG, glow::HALF_FLOAT, h(2, 32))
            .signed()
            .linear(),
        Strip::new(
            glow::R11F_G11F_B10F,
            glow::RGB,
            glow::UNSIGNED_INT_10F_11F_11F_REV,
            r11,
        ),
        Strip::new(glow::RGB9_E5, glow::RGB, glow::UNSIGNED_INT_5_9_9_9_REV, e5),
    ];
    unsafe { strips(gl, &strips_) }
}

/// 32-bit float formats, nearest (without OES_texture_float_linear Mesa samples them nearest):
/// R32F, RG32F, RGB32F (stored with a padding channel), RGBA32F.
pub(crate) fn texture_formats_float32(gl: &Gl, _: &Ctx) -> Frame {
    let f = |n: usize, seed| words::<_, 4>(16 * n, seed, |r| le32(float_in_unit(r).to_bits()));
    let strips_ = [
        Strip::new(glow::R32F, glow::RED, glow::FLOAT, f(1, 25)).signed(),
        Strip::new(glow::RG32F, glow::RG, glow::FLOAT, f(2, 26)).signed(),
        Strip::new(glow::RGB32F, glow::RGB, glow::FLOAT, f(3, 30)).signed(),
        Strip::new(glow::RGBA32F, glow::RGBA, glow::FLOAT, f(4, 29)).signed(),
    ];
    unsafe { strips(gl, &strips_) }
}

/// Integer formats through isampler2D/usampler2D (raw integers, scaled into [0, 1] by the
/// shader): R8UI, RG8I, RGBA8UI, R16I, RG16UI, RGBA16I, R32UI, RGBA32I, RGB8I, RGB10_A2UI, and
/// with full-range 32-bit values (their float conversion rounds the same way everywhere).
pub(crate) fn texture_formats_integer(gl: &Gl, _: &Ctx) -> Frame {
    let b = |n: usize, seed: u32| noise_bytes(16 * n, seed);
    let u16s = |n: usize, seed| words::<_, 2>(16 * n, seed, |r| le16(r as u16));
    let u32s = |n: usize, seed| words::<_, 4>(16 * n, seed, le32);
    let strips_ = [
        Strip::new(glow::R8UI, glow::RED_INTEGER, glow::UNSIGNED_BYTE, b(1, 41)).int(false, 255.0),
        Strip::new(glow::RG8I, glow::RG_INTEGER, glow::BYTE, b(2, 42)).int(true, 128.0),
        Strip::new(
            glow::RGBA8UI,
            glow::RGBA_INTEGER,
            glow::UNSIGNED_BYTE,
            b(4, 43),
        )
        .int(false, 255.0),
        Strip::new(glow::RGB8I, glow::RGB_INTEGER, glow::BYTE, b(3, 44)).int(true, 128.0),
        Strip::new(glow::R16I, glow::RED_INTEGER, glow::SHORT, u16s(1, 45)).int(true, 32768.0),
        Strip::new(
            glow::RG16UI,
            glow::RG_INTEGER,
            glow::UNSIGNED_SHORT,
            u16s(2, 46),
        )
        .int(false, 65535.0),
        Strip::new(glow::RGBA16I, glow::RGBA_INTEGER, glow::SHORT, u16s(4, 47)).int(true, 32768.0),
        Strip::new(
            glow::R32UI,
            glow::RED_INTEGER,
            glow::UNSIGNED_INT,
            u32s(1, 48),
        )
        .int(false, 4294967295.0),
        Strip::new(glow::RG32I, glow::RG_INTEGER, glow::INT, u32s(2, 49)).int(true, 2147483648.0),
        Strip::new(glow::RGBA32I, glow::RGBA_INTEGER, glow::INT, u32s(4, 50))
            .int(true, 2147483648.0),
        Strip::new(
            glow::RGBA32UI,
            glow::RGBA_INTEGER,
            glow::UNSIGNED_INT,
            u32s(4, 51),
        )
        .int(false, 4294967295.0),
        Strip::new(
            glow::RGB10_A2UI,
            glow::RGBA_INTEGER,
            glow::UNSIGNED_INT_2_10_10_10_REV,
            u32s(1, 52),
        )
        .int(false, 1023.0),
        Strip::new(
            glow::RGB16UI,
            glow::RGB_INTEGER,
            glow::UNSIGNED_SHORT,
            u16s(3, 53),
        )
        .int(false, 65535.0),
        Strip::new(glow::RGB32I, glow::RGB_INTEGER, glow::INT, u32s(3, 54)).int(true, 2147483648.0),
        Strip::new(glow::RG8UI, glow::RG_INTEGER, glow::UNSIGNED_BYTE, b(2, 55)).int(false, 255.0),
        Strip::new(glow::R8I, glow::RED_INTEGER, glow::BYTE, b(1, 56)).int(true, 128.0),
    ];
    unsafe { strips(gl, &strips_) }
}

/// Depth textures sampled as depth (ES 3.0: (d, 0, 0, 1), no compare, nearest):
/// DEPTH_COMPONENT16, DEPTH_COMPONENT24, DEPTH_COMPONENT32F, DEPTH24_STENCIL8 and
/// DEPTH32F_STENCIL8, with a swizzled one (d in every channel).
pub(crate) fn texture_depth(gl: &Gl, _: &Ctx) -> Frame {
    let unit = |r: u32| (r % 4097) as f32 / 4096.0;
    let z24s8 = words::<_, 4>(16, 63, |r| le32(r & 0xffff_ff00 | 0x5a));
    let z32s8: Vec<u8> = words::<_, 4>(16, 64, |r| le32(unit(r).to_bits()))
        .chunks(4)
        .flat_map(|c| [c[0], c[1], c[2], c[3], 0xa5, 0, 0, 0])
        .collect();
    let mut swizzled = Strip::new(
        glow::DEPTH_COMPONENT32F,
        glow::DEPTH_COMPONENT,
        glow::FLOAT,
        words::<_, 4>(16, 65, |r| le32(unit(r).to_bits())),
    );
    swizzled.swizzle = Some([glow::RED, glow::RED, glow::ONE, glow::RED]);
    let strips_ = [
        Strip::new(
            glow::DEPTH_COMPONENT16,
            glow::DEPTH_COMPONENT,
            glow::UNSIGNED_SHORT,
            words::<_, 2>(16, 61, |r| le16(r as u16)),
        ),
        Strip::new(
            glow::DEPTH_COMPONENT24,
            glow::DEPTH_COMPONENT,
            glow::UNSIGNED_INT,
            words::<_, 4>(16, 62, le32),
        ),
        Strip::new(
            glow::DEPTH_COMPONENT32F,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            words::<_, 4>(16, 66, |r| le32(unit(r).to_bits())),
        ),
        Strip::new(
            glow::DEPTH24_STENCIL8,
            glow::DEPTH_STENCIL,
            glow::UNSIGNED_INT_24_8,
            z24s8,
        ),
        Strip::new(
            glow::DEPTH32F_STENCIL8,
            glow::DEPTH_STENCIL,
            glow::FLOAT_32_UNSIGNED_INT_24_8_REV,
            z32s8,
        ),
        swizzled,
        Strip::new(
            glow::DEPTH_COMPONENT16,
            glow::DEPTH_COMPONENT,
            glow::UNSIGNED_SHORT,
            words::<_, 2>(16, 67, |r| le16(r as u16)),
        ),
        Strip::new(
            glow::DEPTH24_STENCIL8,
            glow::DEPTH_STENCIL,
            glow::UNSIGNED_INT_24_8,
            words::<_, 4>(16, 68, le32),
        ),
    ];
    unsafe { strips(gl, &strips_) }
}

/// Texture swizzles (ES 3.0 TEXTURE_SWIZZLE_*), composed with the format's own channel order:
/// RGBA8, BGRA-stored RGB565, R8 (missing channels and constants), an integer RG8UI (integer
/// one) and LUMINANCE_ALPHA.
pub(crate) fn texture_swizzle(gl: &Gl, _: &Ctx) -> Frame {
    let b = |n: usize, seed: u32| noise_bytes(16 * n, seed);
    let with = |mut s: Strip, sw: [u32; 4]| {
        s.swizzle = Some(sw);
        s
    };
    let (r, g, bl, a, one, zero) = (
        glow::RED,
        glow::GREEN,
        glow::BLUE,
        glow::ALPHA,
        glow::ONE,
        glow::ZERO,
    );
    let strips_ = [
        with(
            Strip::new(glow::RGBA8, glow::RGBA, glow::UNSIGNED_BYTE, b(4, 71)),
            [bl, one, r, zero],
        ),
        with(
            Strip::new(glow::RGBA8, glow::RGBA, glow::UNSIGNED_BYTE, b(4, 72)),
            [a, a, g, r],
        ),
        with(
            Strip::new(
                glow::RGB565,
                glow::RGB,
                glow::UNSIGNED_SHORT_5_6_5,
                words::<_, 2>(16, 73, |v| le16(v as u16)),
            ),
            [g, bl, r, one],
        ),
        with(
            Strip::new(glow::R8, glow::RED, glow::UNSIGNED_BYTE, b(1, 74)),
            [zero, r, g, a],
        ),
        with(
            Strip::new(glow::RG8UI, glow::RG_INTEGER, glow::UNSIGNED_BYTE, b(2, 75))
                .int(false, 255.0),
            [g, one, r, one],
        ),
        with(
            Strip::new(
                glow::LUMINANCE_ALPHA,
                glow::LUMINANCE_ALPHA,
                glow::UNSIGNED_BYTE,
                b(2, 76),
            ),
            [a, r, one, g],
        ),
        with(
            Strip::new(glow::SRGB8, glow::RGB, glow::UNSIGNED_BYTE, b(3, 77)),
            [bl, g, r, a],
        ),
        with(
            Strip::new(glow::RGBA16F, glow::RGBA, glow::HALF_FLOAT, {
                words::<_, 2>(64, 78, |v| le16(half_in_unit(v)))
            })
            .signed(),
            [a, bl, g, r],
        ),
    ];
    unsafe { strips(gl, &strips_) }
}

/// glGenerateMipmap of 16x16 textures in sampled formats other than RGBA8 (the driver's CPU
/// path declines them; Mesa then blits through the driver or falls back to software), each drawn
/// on an 8-pixel strip so level 1 is sampled (NEAREST_MIPMAP_NEAREST): RGBA16F, R8, RG8,
/// RGB10_A2, R11F_G11F_B10F, RGB565, SRGB8_ALPHA8, RGB8 (ES 3.0 generates mipmaps of
/// colour-renderable formats only; the float ones are with EXT_color_buffer_float).
pub(crate) fn texture_generate_mipmap_formats(gl: &Gl, _: &Ctx) -> Frame {
    let n = 256;
    let b = |c: usize, seed: u32| noise_bytes(n * c, seed);
    let small = |r: u32, m: u32| (r % 16) << m | (r >> 4) & ((1 << m) - 1);
    let list = [
        Strip::new(glow::RGBA16F, glow::RGBA, glow::HALF_FLOAT, {
            words::<_, 2>(4 * n, 91, |r| le16(half_in_unit(r)))
        })
        .signed(),
        Strip::new(glow::R8, glow::RED, glow::UNSIGNED_BYTE, b(1, 92)),
        Strip::new(glow::RG8, glow::RG, glow::UNSIGNED_BYTE, b(2, 93)),
        Strip::new(
            glow::RGB10_A2,
            glow::RGBA,
            glow::UNSIGNED_INT_2_10_10_10_REV,
            words::<_, 4>(n, 94, le32),
        ),
        Strip::new(
            glow::R11F_G11F_B10F,
            glow::RGB,
            glow::UNSIGNED_INT_10F_11F_11F_REV,
            words::<_, 4>(n, 95, |r| {
                le32(small(r, 6) | small(r >> 10, 6) << 11 | small(r >> 20, 5) << 22)
            }),
        ),
        // 5/6-bit channels: GL leaves the rounding of a mean that falls halfway between two
        // codes open, so each 2x2 block is a base code plus 0, 2, 2, 4 (exact means).
        Strip::new(glow::RGB565, glow::RGB, glow::UNSIGNED_SHORT_5_6_5, {
            let base = noise_bytes(2 * 8 * 8, 96);
            (0..n)
                .flat_map(|i| {
                    let (x, y) = (i % 16, i / 16);
                    let o = 2 * ((y / 2) * 8 + x / 2);
                    let a = u16::from_le_bytes([base[o], base[o + 1]]);
                    let add = 2 * (x % 2 + y % 2) as u16;
                    let code = |shift: u16, bits: u16| (a >> shift) % ((1 << bits) - 4) + add;
                    le16(code(0, 5) | code(5, 6) << 5 | code(11, 5) << 11)
                })
                .collect()
        }),
        Strip::new(
            glow::SRGB8_ALPHA8,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            b(4, 97),
        ),
        Strip::new(glow::RGB8, glow::RGB, glow::UNSIGNED_BYTE, b(3, 98)),
    ];
    unsafe {
        simple(gl, || {
            let fs = FS3_STRIP.replace("SAMPLER", "sampler2D");
            let p = program(gl, VS3_TEXTURED, &fs, &[])?;
            let loc = gl.get_uniform_location(p, "u_tex");
            gl.uniform_1_i32(loc.as_ref(), 0);
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            for (i, st) in list.iter().enumerate() {
                let tex = gl.create_texture()?;
                gl.bind_texture(glow::TEXTURE_2D, Some(tex));
                gl.tex_image_2d(
                    glow::TEXTURE_2D,
                    0,
                    st.internal as i32,
                    16,
                    16,
                    0,
                    st.format,
                    st.ty,
                    glow::PixelUnpackData::Slice(Some(&st.data)),
                );
                gl.generate_mipmap(glow::TEXTURE_2D);
                check(gl, &format!("glGenerateMipmap of {:#x}", st.internal))?;
                let params = [
                    (glow::TEXTURE_MIN_FILTER, glow::NEAREST_MIPMAP_NEAREST),
                    (glow::TEXTURE_MAG_FILTER, glow::NEAREST),
                ];
                for (param, v) in params {
                    gl.tex_parameter_i32(glow::TEXTURE_2D, param, v as i32);
                }
                uniform4(gl, p, "u_scale", st.scale);
                uniform4(gl, p, "u_bias", st.bias);
                let (x0, x1) = (i as f32 * 8.0, (i + 1) as f32 * 8.0);
                let v = [
                    x0, 0.0, 0.0, 0.0, x1, 0.0, 1.0, 0.0, x1, 64.0, 1.0, 1.0, x0, 0.0, 0.0, 0.0,
                    x1, 64.0, 1.0, 1.0, x0, 64.0, 0.0, 1.0,
                ];
                vertices(gl, &v, &[2, 2])?;
                gl.draw_arrays(glow::TRIANGLES, 0, 6);
                check(gl, &format!("draw of {:#x}", st.internal))?;
            }
            Ok(())
        })
    }
}

/// ETC2 / EAC compressed textures (core in ES 3.0): the driver samples no compressed format, so
/// Mesa's state tracker decompresses them at upload into a format it samples. One 4x4 block
/// each of ETC2 RGB8, ETC2 SRGB8, ETC2 RGBA8 (EAC alpha), EAC R11 and EAC RG11 (signed), with
/// arbitrary block bytes (every 64-bit pattern is a valid block).
pub(crate) fn texture_etc2(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        simple(gl, || {
            let list: [(u32, usize, bool); 8] = [
                (glow::COMPRESSED_RGB8_ETC2, 8, false),
                (glow::COMPRESSED_SRGB8_ETC2, 8, false),
                (glow::COMPRESSED_RGBA8_ETC2_EAC, 16, false),
                (glow::COMPRESSED_RGB8_PUNCHTHROUGH_ALPHA1_ETC2, 8, false),
                (glow::COMPRESSED_R11_EAC, 8, false),
                (glow::COMPRESSED_SIGNED_R11_EAC, 8, true),
                (glow::COMPRESSED_RG11_EAC, 16, false),
                (glow::COMPRESSED_SIGNED_RG11_EAC, 16, true),
            ];
            for (i, &(format, bytes, signed)) in list.iter().enumerate() {
                let fs = FS3_STRIP.replace("SAMPLER", "sampler2D");
                let p = program(gl, VS3_TEXTURED, &fs, &[])?;
                let tex = gl.create_texture()?;
                gl.bind_texture(glow::TEXTURE_2D, Some(tex));
                let data = noise_bytes(bytes, 80 + i as u32);
                gl.compressed_tex_image_2d(
                    glow::TEXTURE_2D,
                    0,
                    format as i32,
                    4,
                    4,
                    0,
                    bytes as i32,
                    &data,
                );
                check(gl, &format!("compressed upload {format:#x}"))?;
                for param in [glow::TEXTURE_MIN_FILTER, glow::TEXTURE_MAG_FILTER] {
                    gl.tex_parameter_i32(glow::TEXTURE_2D, param, glow::NEAREST as i32);
                }
                let loc = gl.get_uniform_location(p, "u_tex");
                gl.uniform_1_i32(loc.as_ref(), 0);
                let (s, b) = if signed { (0.5, 0.5) } else { (1.0, 0.0) };
                uniform4(gl, p, "u_scale", [s; 4]);
                uniform4(gl, p, "u_bias", [b; 4]);
                let (x0, x1) = (i as f32 * 8.0, (i + 1) as f32 * 8.0);
                let v = [
                    x0, 0.0, 0.0, 0.0, x1, 0.0, 1.0, 0.0, x1, 64.0, 1.0, 1.0, x0, 0.0, 0.0, 0.0,
                    x1, 64.0, 1.0, 1.0, x0, 64.0, 0.0, 1.0,
                ];
                vertices(gl, &v, &[2, 2])?;
                gl.draw_arrays(glow::TRIANGLES, 0, 6);
                check(gl, &format!("draw of compressed format {format:#x}"))?;
            }
            Ok(())
        })
    }
}

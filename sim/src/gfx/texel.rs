//! Texel formats of the texture unit: which descriptor formats the model samples, and how an
//! element's bytes become the component values a sample returns.
//!
//! Established: the format codes and which numeric types each arrangement takes (agx16-cmdstream
//! `Channels::captured_with`, agx-re M4 captures); where each component sits in an element
//! (`Channels::components`, inferred from Mesa's G13 table); the sample instruction carries no
//! result type (the T8132 TEXTURE_SAMPLE packer writes the same type byte for every sample,
//! agx16-isa table/texture.rs), so what a result register holds follows from the descriptor.
//!
//! Model's choices, OpenGL ES 3.0's rules, not measured on M4 (a measurement replaces them):
//! - unorm: c / (2^b - 1); snorm: max(c / (2^(b-1) - 1), -1) (ES 3.0 §2.1.6);
//! - float: binary16 exactly widened (denormals kept), binary32 as stored; the unsigned 11- and
//!   10-bit floats and RGB9_E5 by ES 3.0 §2.1.3 and §3.8.3.2 (exactly, denormals kept);
//! - sRGB: the EOTF of ES 3.0 §3.8.16 on R, G, B (never on A) before filtering;
//! - integer formats return the raw integer in the 32-bit result (zero- or sign-extended), as
//!   GL's isampler/usampler results; a swizzle's "one" is then the integer 1;
//! - a component the arrangement lacks is not established (the driver always selects a
//!   constant for it through the swizzle) and a sample that selects it is refused.

use agx16_cmdstream::descriptors::{Channels, ComponentLayout, NumericType, Texture};

/// A validated texel format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub channels: Channels,
    pub numeric: NumericType,
    pub srgb: bool,
    layout: ComponentLayout,
    bytes: usize,
}

impl Format {
    /// The format of a texture descriptor, or why the model cannot sample it.
    pub fn of(d: &Texture) -> Result<Format, String> {
        Format::new(d.channels, d.numeric_type, d.srgb)
    }

    pub fn new(channels: Channels, numeric: NumericType, srgb: bool) -> Result<Format, String> {
        let (Some(layout), Some((bytes, 1, 1))) = (channels.components(), channels.element())
        else {
            return Err(format!(
                "format {channels:?}: compressed, unnamed or component order not established \
                 (A1R5G5B5) arrangements are not modelled"
            ));
        };
        if !channels.captured_with(numeric) {
            return Err(format!(
                "format {channels:?} {numeric:?}: no M4 capture shows this arrangement with \
                 this numeric type"
            ));
        }
        let srgb_ok = numeric == NumericType::Unorm
            && matches!(channels, Channels::R8 | Channels::R8G8 | Channels::R8G8B8A8);
        if srgb && !srgb_ok {
            return Err(format!(
                "sRGB flag on {channels:?} {numeric:?}: only 8-bit unorm arrangements are \
                 captured with it"
            ));
        }
        Ok(Format {
            channels,
            numeric,
            srgb,
            layout,
            bytes: bytes as usize,
        })
    }

    /// Bytes per element.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether samples return integers (no filtering, integer swizzle constants).
    pub fn is_integer(&self) -> bool {
        matches!(self.numeric, NumericType::Uint | NumericType::Sint)
    }

    /// The bits a swizzle's "one" returns.
    pub fn one(&self) -> u32 {
        if self.is_integer() {
            1
        } else {
            1f32.to_bits()
        }
    }

    /// The components R, G, B, A of one element (`b` holds `bytes()` bytes): f32 bits for
    /// normalised and float formats, the 32-bit integer for integer formats; `None` for a
    /// component the arrangement does not have.
    pub fn decode(&self, b: &[u8]) -> [Option<u32>; 4] {
        let mut raw = [0u8; 16];
        raw[..self.bytes].copy_from_slice(&b[..self.bytes]);
        self.decode_padded(&raw)
    }

    /// [`Format::decode`] of an element already zero-padded to 16 bytes (what the sampler
    /// reads into; spares the per-texel copy).
    #[inline]
    pub fn decode_padded(&self, raw: &[u8; 16]) -> [Option<u32>; 4] {
        let word = u128::from_le_bytes(*raw);
        let mut out = [None; 4];
        match self.layout {
            ComponentLayout::SharedExponent => {
                let e = (word >> 27 & 0x1f) as i32;
                for (c, o) in out.iter_mut().take(3).enumerate() {
                    let m = (word >> (9 * c) & 0x1ff) as f32;
                    // ES 3.0 §3.8.3.2: c = m · 2^(e − B − N), B = 15, N = 9 (exact in f32).
                    *o = Some((m * (2f32).powi(e - 24)).to_bits());
                }
            }
            ComponentLayout::Fields(fields) => {
                // 8-bit unorm (and sRGB) components, most of what shaders sample, come from
                // a table of `convert`'s own results (the division and the EOTF per texel
                // were a fifth of a textured draw's model time).
                let tables = (self.numeric == NumericType::Unorm).then(|| &*UNORM8);
                for (c, &(shift, bits)) in fields.iter().enumerate() {
                    let v = (word >> shift) as u64 & ((1u64 << bits) - 1);
                    out[c] = Some(match tables {
                        Some(t) if bits == 8 => t[(self.srgb && c < 3) as usize][v as usize],
                        _ => self.convert(c, v as u32, bits as u32),
                    });
                }
            }
        }
        out
    }

    fn convert(&self, component: usize, v: u32, bits: u32) -> u32 {
        let sign_extend = |v: u32| ((v << (32 - bits)) as i32) >> (32 - bits);
        match self.numeric {
            NumericType::Uint => v,
            NumericType::Sint => sign_extend(v) as u32,
            NumericType::Unorm => {
                let f = v as f32 / ((1u32 << bits) - 1) as f32;
                if self.srgb && component < 3 {
                    srgb_to_linear(f).to_bits()
                } else {
                    f.to_bits()
                }
            }
            NumericType::Snorm => {
                let max = ((1u32 << (bits - 1)) - 1) as f32;
                (sign_extend(v) as f32 / max).max(-1.0).to_bits()
            }
            NumericType::Float => match bits {
                32 => v,
                16 => crate::fp::f16_to_f32(v as u16).to_bits(),
                11 => unsigned_float(v, 6).to_bits(),
                10 => unsigned_float(v, 5).to_bits(),
                _ => unreachable!("float components are 10, 11, 16 or 32 bits (Format::new)"),
            },
            _ => unreachable!("Format::new admits only captured numeric types"),
        }
    }
}

/// [`Format::convert`] of every 8-bit unorm value: `[linear, sRGB colour]`.
static UNORM8: std::sync::LazyLock<[[u32; 256]; 2]> = std::sync::LazyLock::new(|| {
    let of = |srgb: bool| {
        let f = Format {
            channels: Channels::R8,
            numeric: NumericType::Unorm,
            srgb,
            layout: ComponentLayout::SharedExponent,
            bytes: 1,
        };
        std::array::from_fn(|v| f.convert(0, v as u32, 8))
    };
    [of(false), of(true)]
});

/// An unsigned float with a 5-bit exponent (bias 15) above `m` mantissa bits (ES 3.0 §2.1.3-4).
fn unsigned_float(v: u32, m: u32) -> f32 {
    let (e, f) = ((v >> m) as i32, (v & ((1 << m) - 1)) as f32);
    let scale = (1u32 << m) as f32;
    match e {
        0 => f / scale * (2f32).powi(-14),
        31 if f == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (2f32).powi(e - 15) * (1.0 + f / scale),
    }
}

/// The sRGB EOTF (ES 3.0 §3.8.16).
pub fn srgb_to_linear(v: f32) -> f32 {
    if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Channels::*;
    use NumericType::*;

    fn f(b: Option<u32>) -> f32 {
        f32::from_bits(b.expect("component present"))
    }

    fn decode(c: Channels, t: NumericType, srgb: bool, bytes: &[u8]) -> [Option<u32>; 4] {
        Format::new(c, t, srgb).unwrap().decode(bytes)
    }

    #[test]
    fn unorm_and_snorm_follow_the_gl_conversions() {
        let r = decode(R8G8B8A8, Unorm, false, &[0, 255, 51, 128]);
        assert_eq!([f(r[0]), f(r[1]), f(r[2])], [0.0, 1.0, 0.2]);
        assert_eq!(f(r[3]), 128.0 / 255.0);
        // snorm: both -128 and -127 are -1; 127 is 1; 0 is 0.
        let r = decode(R8G8B8A8, Snorm, false, &[0x80, 0x81, 0x7f, 0]);
        assert_eq!(r.map(f), [-1.0, -1.0, 1.0, 0.0]);
        let r = decode(R16, Snorm, false, &(-16384i16).to_le_bytes());
        assert_eq!(f(r[0]), -16384.0 / 32767.0);
        assert_eq!(r[1..], [None; 3]);
        let r = decode(R16G16, Unorm, false, &[0xff, 0xff, 0x01, 0x00]);
        assert_eq!([f(r[0]), f(r[1])], [1.0, 1.0 / 65535.0]);
        assert_eq!(r[2..], [None; 2]);
    }

    #[test]
    fn packed_fields_start_at_the_least_significant_bit() {
        // R5G6B5: r = 31 (bits 0..4), g = 0, b = 16 (bits 11..15).
        let v: u16 = 31 | 16 << 11;
        let r = decode(R5G6B5, Unorm, false, &v.to_le_bytes());
        assert_eq!([f(r[0]), f(r[1]), f(r[2])], [1.0, 0.0, 16.0 / 31.0]);
        assert_eq!(r[3], None);
        let v: u16 = 0x1 | 0x2 << 4 | 0x3 << 8 | 0xf << 12;
        let r = decode(R4G4B4A4, Unorm, false, &v.to_le_bytes());
        assert_eq!(r.map(f), [1.0 / 15.0, 2.0 / 15.0, 3.0 / 15.0, 1.0]);
        let v: u16 = 10 | 20 << 5 | 30 << 10 | 1 << 15;
        let r = decode(R5G5B5A1, Unorm, false, &v.to_le_bytes());
        assert_eq!(r.map(f), [10.0 / 31.0, 20.0 / 31.0, 30.0 / 31.0, 1.0]);
        let v: u32 = 1023 | 512 << 10 | 1 << 20 | 2 << 30;
        let r = decode(R10G10B10A2, Unorm, false, &v.to_le_bytes());
        assert_eq!(r.map(f), [1.0, 512.0 / 1023.0, 1.0 / 1023.0, 2.0 / 3.0]);
        let r = decode(R10G10B10A2, Uint, false, &v.to_le_bytes());
        assert_eq!(r, [Some(1023), Some(512), Some(1), Some(2)]);
    }

    #[test]
    fn floats_widen_exactly() {
        // binary16: 1.0, -2.0, the largest finite 65504, the smallest denormal 2^-24.
        let h: Vec<u8> = [0x3c00u16, 0xc000, 0x7bff, 0x0001]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let r = decode(R16G16B16A16, Float, false, &h);
        assert_eq!(r.map(f), [1.0, -2.0, 65504.0, (2f32).powi(-24)]);
        let w: Vec<u8> = [1.5f32, -0.0, f32::INFINITY, 3e-40]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let r = decode(R32G32B32A32, Float, false, &w);
        assert_eq!(
            r.map(|v| v.unwrap()),
            [1.5f32, -0.0, f32::INFINITY, 3e-40].map(f32::to_bits)
        );
    }

    #[test]
    fn packed_floats_follow_es3_rules() {
        // R11G11B10F: R = exponent 15, mantissa 32 of 64 → 1.5; G = exponent 0, mantissa 1 →
        // 2^-14 / 64 (denormal); B = exponent 16, mantissa 0 of 32 → 2.0.
        let v: u32 = (15 << 6 | 32) | (1u32) << 11 | (16 << 5) << 22;
        let r = decode(R11G11B10, Float, false, &v.to_le_bytes());
        assert_eq!([f(r[0]), f(r[1]), f(r[2])], [1.5, (2f32).powi(-20), 2.0]);
        assert_eq!(r[3], None);
        // Exponent 31: infinity without mantissa, NaN with.
        let v: u32 = 31 << 6 | (31 << 6 | 1) << 11;
        let r = decode(R11G11B10, Float, false, &v.to_le_bytes());
        assert_eq!(f(r[0]), f32::INFINITY);
        assert!(f(r[1]).is_nan());
        // RGB9E5: mantissas 256, 1, 0 with exponent 16 → 256·2^(16−24) = 1, 2^-8, 0.
        let v: u32 = 256 | 1 << 9 | 16 << 27;
        let r = decode(R9G9B9E5, Float, false, &v.to_le_bytes());
        assert_eq!([f(r[0]), f(r[1]), f(r[2])], [1.0, (2f32).powi(-8), 0.0]);
        assert_eq!(r[3], None);
    }

    #[test]
    fn integers_are_raw_and_extended() {
        let r = decode(R8G8B8A8, Sint, false, &[0xff, 0x80, 0x7f, 0]);
        assert_eq!(r.map(|v| v.unwrap() as i32), [-1, -128, 127, 0]);
        let r = decode(R8G8B8A8, Uint, false, &[0xff, 0x80, 0x7f, 0]);
        assert_eq!(r.map(|v| v.unwrap()), [255, 128, 127, 0]);
        let r = decode(R16G16, Sint, false, &[0x00, 0x80, 0xfe, 0xff]);
        assert_eq!([r[0].unwrap() as i32, r[1].unwrap() as i32], [-32768, -2]);
        let r = decode(
            R32G32,
            Uint,
            false,
            &[1, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xff],
        );
        assert_eq!([r[0], r[1]], [Some(0x8000_0001), Some(u32::MAX)]);
        assert_eq!(Format::new(R8, Uint, false).unwrap().one(), 1);
        assert_eq!(Format::new(R8, Unorm, false).unwrap().one(), 1f32.to_bits());
    }

    #[test]
    fn srgb_decodes_colour_not_alpha() {
        let r = decode(R8G8B8A8, Unorm, true, &[255, 0, 188, 188]);
        assert_eq!([f(r[0]), f(r[1])], [1.0, 0.0]);
        // 188/255 = 0.7373 → ((0.7373 + 0.055) / 1.055)^2.4 ≈ 0.5029 (the sRGB curve).
        assert!((f(r[2]) - 0.5029).abs() < 1e-3, "{}", f(r[2]));
        assert_eq!(f(r[3]), 188.0 / 255.0);
        // The low segment is linear: 10/255 / 12.92.
        let r = decode(R8, Unorm, true, &[10]);
        assert_eq!(f(r[0]), 10.0 / 255.0 / 12.92);
    }

    #[test]
    fn unorm8_table_is_the_conversion() {
        // The decode's table against the division and EOTF it replaces, every byte value.
        for srgb in [false, true] {
            let fmt = Format::new(R8G8B8A8, Unorm, srgb).unwrap();
            for v in 0..=255u8 {
                let want: [Option<u32>; 4] =
                    std::array::from_fn(|c| Some(fmt.convert(c, v as u32, 8)));
                assert_eq!(fmt.decode(&[v; 4]), want, "srgb {srgb} value {v}");
                let lin = (v as f32 / 255.0).to_bits();
                assert_eq!(want[3], Some(lin));
                if !srgb {
                    assert_eq!(want[0], Some(lin));
                }
            }
        }
    }

    #[test]
    fn uncaptured_combinations_are_refused() {
        for (c, t, srgb) in [
            (R32, Unorm, false),
            (R5G6B5, Snorm, false),
            (R10G10B10A2, Sint, false),
            (R11G11B10, Unorm, false),
            (R8G8B8A8, Snorm, true),
            (R16, Unorm, true),
            (A1R5G5B5, Unorm, false),
            (Etc2Rgb8, Unorm, false),
            (R10G10B10A2, Xr, false),
        ] {
            assert!(Format::new(c, t, srgb).is_err(), "{c:?} {t:?} {srgb}");
        }
    }
}

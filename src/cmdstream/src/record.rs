//! The machinery behind every declared record: field specs, bit access, codecs,
//! the `Record` trait, errors. Records themselves are declared with [`crate::record!`].

use crate::evidence::Evidence;
use thiserror::Error;

/// How a field's logical value maps to its raw bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// raw == value
    Plain,
    /// raw == value - 1 (sizes and counts that cannot be zero)
    MinusOne,
    /// raw == value >> n; the low n bits of value must be zero (aligned addresses)
    Shr(u32),
}

/// How a printer shows a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    Uint,
    Hex,
    Bool,
    Float,
    Enum,
    /// Position known, meaning not established by any source: shown and flagged.
    Unexplained,
}

/// One field of a record: its bits, meaning and evidence.
#[derive(Debug, Clone, Copy)]
pub struct FieldSpec {
    pub name: &'static str,
    /// First bit, counted from bit 0 of the record's first little-endian 32-bit word.
    pub start: u32,
    pub width: u32,
    pub codec: Codec,
    pub display: Display,
    /// Names of enum values (empty for non-enums).
    pub names: &'static [(u64, &'static str)],
    /// Required raw value for fixed fields (block types, constant tags).
    pub fixed: Option<u64>,
    pub evidence: &'static Evidence,
}

/// A value type a field can hold.
pub trait FieldType: Sized {
    const DISPLAY: Display;
    const NAMES: &'static [(u64, &'static str)] = &[];
    fn to_u64(&self) -> u64;
    fn from_u64(raw: u64) -> Self;
    /// False for enum values no source names.
    fn is_known(&self) -> bool {
        true
    }
}

macro_rules! uint_field_type {
    ($($t:ty),*) => {$(
        impl FieldType for $t {
            const DISPLAY: Display = Display::Uint;
            fn to_u64(&self) -> u64 { *self as u64 }
            fn from_u64(raw: u64) -> Self { raw as $t }
        }
    )*};
}
uint_field_type!(u8, u16, u32, u64);

impl FieldType for bool {
    const DISPLAY: Display = Display::Bool;
    fn to_u64(&self) -> u64 {
        *self as u64
    }
    fn from_u64(raw: u64) -> Self {
        raw != 0
    }
}

impl FieldType for f32 {
    const DISPLAY: Display = Display::Float;
    fn to_u64(&self) -> u64 {
        self.to_bits() as u64
    }
    fn from_u64(raw: u64) -> Self {
        f32::from_bits(raw as u32)
    }
}

/// A value shown in hex (masks, raw pointer halves).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Hex(pub u64);
impl FieldType for Hex {
    const DISPLAY: Display = Display::Hex;
    fn to_u64(&self) -> u64 {
        self.0
    }
    fn from_u64(raw: u64) -> Self {
        Hex(raw)
    }
}

/// Bits whose position a source documents but whose meaning none explains
/// (for example a constant every driver writes). Preserved and printed as such.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Unexplained(pub u64);
impl FieldType for Unexplained {
    const DISPLAY: Display = Display::Unexplained;
    fn to_u64(&self) -> u64 {
        self.0
    }
    fn from_u64(raw: u64) -> Self {
        Unexplained(raw)
    }
}

/// Why bytes could not be unpacked as a record.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("{record}: need {need} bytes, have {have}")]
    Truncated {
        record: &'static str,
        need: usize,
        have: usize,
    },
    #[error("{record}: field {field} must be {expected:#x}, found {found:#x}")]
    FixedMismatch {
        record: &'static str,
        field: &'static str,
        expected: u64,
        found: u64,
    },
}

/// Why a record could not be packed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PackError {
    #[error("{record}.{field}: value {value:#x} does not fit {width} bits")]
    Overflow {
        record: &'static str,
        field: &'static str,
        value: u64,
        width: u32,
    },
    #[error("{record}.{field}: value {value:#x} is not a multiple of {align:#x}")]
    Misaligned {
        record: &'static str,
        field: &'static str,
        value: u64,
        align: u64,
    },
    #[error("{record}.{field}: value 0 cannot be encoded (stored minus one)")]
    Zero {
        record: &'static str,
        field: &'static str,
    },
}

/// Reads `width` (1..=64) bits at absolute bit `start` of a little-endian byte record.
pub fn get_bits(bytes: &[u8], start: u32, width: u32) -> u64 {
    debug_assert!((1..=64).contains(&width));
    let first = (start / 8) as usize;
    let last = ((start + width - 1) / 8) as usize;
    let mut acc: u128 = 0;
    for (i, b) in bytes[first..=last].iter().enumerate() {
        acc |= (*b as u128) << (8 * i);
    }
    let v = acc >> (start % 8);
    (v & ((1u128 << width) - 1)) as u64
}

/// Writes `width` bits of `value` at absolute bit `start`, leaving other bits alone.
/// A byte's share of the field at a time (every record of every draw is packed through
/// this; bit by bit it was a visible part of the per-draw cost).
pub fn set_bits(bytes: &mut [u8], start: u32, width: u32, value: u64) {
    let (mut bit, end) = (start, start + width);
    let mut v = value;
    while bit < end {
        let lo = bit % 8;
        let n = (end - bit).min(8 - lo);
        let mask = ((((1u16 << n) - 1) << lo) & 0xff) as u8;
        let byte = &mut bytes[(bit / 8) as usize];
        *byte = (*byte & !mask) | (((v as u8) << lo) & mask);
        v >>= n;
        bit += n;
    }
}

/// Raw bits for a logical value, checking range and alignment.
pub fn encode_field(record: &'static str, spec: &FieldSpec, value: u64) -> Result<u64, PackError> {
    let field = spec.name;
    let raw = match spec.codec {
        Codec::Plain => value,
        Codec::MinusOne => value
            .checked_sub(1)
            .ok_or(PackError::Zero { record, field })?,
        Codec::Shr(n) => {
            let align = 1u64 << n;
            if value & (align - 1) != 0 {
                return Err(PackError::Misaligned {
                    record,
                    field,
                    value,
                    align,
                });
            }
            value >> n
        }
    };
    if spec.width < 64 && raw >> spec.width != 0 {
        return Err(PackError::Overflow {
            record,
            field,
            value,
            width: spec.width,
        });
    }
    Ok(raw)
}

/// Logical value for raw bits.
pub fn decode_field(spec: &FieldSpec, raw: u64) -> u64 {
    match spec.codec {
        Codec::Plain => raw,
        Codec::MinusOne => raw + 1,
        Codec::Shr(n) => raw << n,
    }
}

/// ORs the bits field `f` covers into `mask`, a word's share at a time (records are packed
/// and unpacked on every draw; a bit-by-bit loop here was a visible part of the per-draw cost).
const fn cover(mask: &mut [u32], f: &FieldSpec) {
    let (mut bit, end) = (f.start as usize, f.start as usize + f.width as usize);
    while bit < end {
        let (word, lo) = (bit / 32, bit % 32);
        let left = end - bit;
        let n = if left < 32 - lo { left } else { 32 - lo };
        mask[word] |= if n == 32 {
            u32::MAX
        } else {
            ((1u32 << n) - 1) << lo
        };
        bit += n;
    }
}

/// [`known_mask`] for a record of `W` words, evaluated at compile time (records are packed
/// and unpacked on every draw, in the driver and in the model).
pub const fn known_words<const W: usize>(fields: &[FieldSpec]) -> [u32; W] {
    let mut mask = [0u32; W];
    let mut i = 0;
    while i < fields.len() {
        cover(&mut mask, &fields[i]);
        i += 1;
    }
    mask
}

/// Per-word masks of the bits some field of `fields` covers.
pub fn known_mask(fields: &[FieldSpec], words: usize) -> Vec<u32> {
    let mut mask = vec![0u32; words];
    for f in fields {
        cover(&mut mask, f);
    }
    mask
}

/// A fixed-size hardware record declared with [`crate::record!`].
pub trait Record: Sized {
    const NAME: &'static str;
    /// Size in bytes (a multiple of 4).
    const SIZE: usize;
    /// Every field, fixed ones included, in declaration order.
    fn fields() -> &'static [FieldSpec];
    /// Decodes the first `SIZE` bytes. Fixed fields must match; undocumented bits are kept.
    fn unpack(bytes: &[u8]) -> Result<Self, DecodeError>;
    /// Encodes into the first `SIZE` bytes of `out` (which must be at least that long).
    fn pack_into(&self, out: &mut [u8]) -> Result<(), PackError>;
    /// Bits no source documents, per 32-bit word, as unpacked (zero when built by a driver).
    fn unknown_bits(&self) -> &[u32];
    /// Names of enum-typed fields holding values no source names.
    fn unknown_values(&self) -> Vec<&'static str>;

    /// Encodes into a fresh buffer.
    fn pack(&self) -> Result<Vec<u8>, PackError> {
        let mut out = vec![0u8; Self::SIZE];
        self.pack_into(&mut out)?;
        Ok(out)
    }

    /// True when every bit and value is documented by some source.
    fn fully_known(&self) -> bool {
        self.unknown_bits().iter().all(|w| *w == 0) && self.unknown_values().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same<R: Record, const W: usize>() {
        assert_eq!(
            known_words::<W>(R::fields()).to_vec(),
            known_mask(R::fields(), W),
            "{}",
            R::NAME
        );
    }

    /// The bit-by-bit definition `set_bits` must equal.
    fn set_bits_reference(bytes: &mut [u8], start: u32, width: u32, value: u64) {
        for i in 0..width {
            let bit = start + i;
            let byte = &mut bytes[(bit / 8) as usize];
            let mask = 1u8 << (bit % 8);
            if (value >> i) & 1 != 0 {
                *byte |= mask;
            } else {
                *byte &= !mask;
            }
        }
    }

    #[test]
    fn set_bits_matches_the_bitwise_definition() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let width = (next() % 65) as u32;
            let start = (next() % 64) as u32;
            let value = next();
            let init: Vec<u8> = (0..17).map(|_| next() as u8).collect();
            let (mut a, mut b) = (init.clone(), init);
            set_bits(&mut a, start, width, value);
            set_bits_reference(&mut b, start, width, value);
            assert_eq!(a, b, "start {start} width {width} value {value:#x}");
        }
    }

    #[test]
    fn compile_time_known_words_match_known_mask() {
        same::<crate::descriptors::Texture, 8>();
        same::<crate::descriptors::CfBindingHeader, 1>();
        same::<crate::ppp::PppVaryingCounts, 5>();
        same::<crate::ppp::PppOutputSelect, 5>();
        same::<crate::ppp::PppWClampCull2, 3>();
    }
}

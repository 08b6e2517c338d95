//! G16's 8-bit float immediate (falu2i).
//!
//! Instruction bits: flag 8, mantissa 9..11, exponent 12..15 (bias 11), sign 19; value
//! ±(1 + m/8)·2^(e-11). Source: niklassheth/agx-re:docs/isa/encoding-tables.md `falu2i`
//! (EXP-0006, measured; 1.0 is byte1 0xb1). Exponents below 8 (bit 15 clear) select the
//! uniform-source overload instead (same source, `falu2_uni`), so the table matches bit 15 = 1
//! and the immediate field packs the rest as
//! `flag | mant<<1 | (exp-8)<<4 | sign<<7` (8 bits). Every observed immediate has flag = 1;
//! flag = 0 has no established meaning, so it decodes to `None`.

/// Decode a packed immediate field. `None` when the encoding has no established value.
pub fn decode(packed: u64) -> Option<f32> {
    let flag = packed & 1;
    let mant = (packed >> 1) & 7;
    let exp = 8 + ((packed >> 4) & 7);
    let sign = (packed >> 7) & 1;
    if flag != 1 || packed > 0xff {
        return None;
    }
    let mag = (1.0 + mant as f32 / 8.0) * 2f32.powi(exp as i32 - 11);
    Some(if sign == 1 { -mag } else { mag })
}

/// Encode a value exactly representable as an immediate.
pub fn encode(v: f32) -> Option<u64> {
    (0u64..256)
        .filter(|p| p & 1 == 1)
        .find(|p| decode(*p).map(f32::to_bits) == Some(v.to_bits()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn documented_values() {
        // 1.0 is byte1 = 0xb1 with sign clear: flag 1, mant 0, exp 11 (packed exp-8 = 3).
        assert_eq!(super::encode(1.0), Some(0x31));
        assert_eq!(super::decode(0x31), Some(1.0));
        // EXP-M4-35 `09b935..`: byte1 0xb9 = 1.5; EXP-M4-44 kernel computes in + 1.5.
        assert_eq!(super::decode(0x39), Some(1.5));
        // largest: (1 + 7/8) * 2^4 = 30
        assert_eq!(super::decode(0x7f), Some(30.0));
        assert_eq!(super::decode(0xff), Some(-30.0));
        assert_eq!(super::decode(0x30), None);
        assert_eq!(super::encode(0.1), None);
    }
}

//! Floating-point behaviour of the M4 shader core as measured: format
//! conversions, denormal flushing and the special-function unit.

pub mod round;
pub mod sfu;

/// The canonical quiet NaN the hardware returns for fp32 results
/// (niklassheth/agx-re:experiments/EXP-M4-55-sqrt-sine-assist, measured:
/// every NaN output, whatever the input payload, is 0x7fc00000).
pub const F32_CANONICAL_NAN: u32 = 0x7fc0_0000;
/// The canonical fp16 NaN (EXP-M4-54 half kernels, measured: 0x7e00).
pub const F16_CANONICAL_NAN: u16 = 0x7e00;

/// fp32 denormals act as signed zero on input and are flushed on output
/// (ADevWithAnIdea/agx-re EXP-0047/EXP-0201 for add/mul/FMA, measured;
/// EXP-M4-55 for the SFU factors, measured).
#[inline]
pub fn ftz(bits: u32) -> u32 {
    // branch-free so lane loops vectorise
    let keep = if bits & 0x7f80_0000 == 0 {
        0x8000_0000
    } else {
        u32::MAX
    };
    bits & keep
}

#[inline]
pub fn ftz_f32(x: f32) -> f32 {
    f32::from_bits(ftz(x.to_bits()))
}

/// Replaces any NaN by the canonical one.
#[inline]
pub fn canon_f32(x: f32) -> u32 {
    if x.is_nan() {
        F32_CANONICAL_NAN
    } else {
        x.to_bits()
    }
}

/// IEEE binary16 to binary32, exact (denormal halves included).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = match exp {
        0 if man == 0 => sign,
        0 => {
            // Normalise the denormal: value = man * 2^-24.
            let shift = man.leading_zeros() - 21;
            let m = (man << shift) & 0x3ff;
            let e = 127 - 15 + 1 - shift;
            sign | (e << 23) | (m << 13)
        }
        0x1f => sign | 0x7f80_0000 | (man << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (man << 13),
    };
    f32::from_bits(bits)
}

/// binary32 to binary16 with round-to-nearest-even, overflow to infinity and
/// gradual underflow. NaNs become the canonical fp16 NaN.
pub fn f32_to_f16(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return F16_CANONICAL_NAN;
    }
    let a = x.abs();
    if a.is_infinite() || a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < f32::from_bits(0x3880_0000) {
        // Below the smallest normal half (2^-14): denormal, units of 2^-24.
        let q = a * f32::from_bits(0x4b80_0000); // * 2^24, exact
        let r = round_half_even(q as f64) as u16;
        return sign | r;
    }
    let e = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let man = bits & 0x7f_ffff;
    let mut h = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
        h += 1;
    }
    sign | h as u16
}

/// fp32 -> 32-bit integer, rounding toward zero, with the value rule an input outside the
/// integer range needs (`crate::value_rules`): out-of-range values saturate (S32 above 2^31
/// and U32 below zero measured on M4, niklassheth/agx-re EXP-M4-43 SIGNED_RESULTS.json; the
/// other ends and infinities extrapolated) and NaN gives 0 (not measured anywhere).
pub fn f32_to_int_rtz(x: f32, signed: bool) -> (u32, Option<crate::value_rules::Rule>) {
    use crate::value_rules::Rule;
    let rule = if x.is_nan() {
        Some(Rule::F2iNan)
    } else if x.is_infinite() {
        Some(Rule::F2iInfinity)
    } else if signed {
        if x >= 2_147_483_648.0 {
            Some(Rule::F2iS32Above)
        } else if x < -2_147_483_648.0 {
            Some(Rule::F2iS32Below)
        } else {
            None
        }
    } else if x >= 4_294_967_296.0 {
        Some(Rule::F2iU32Above)
    } else if x <= -1.0 {
        Some(Rule::F2iU32Negative)
    } else {
        None
    };
    // Rust's float -> int casts truncate, saturate and map NaN to 0: exactly these rules.
    let v = if signed { x as i32 as u32 } else { x as u32 };
    (v, rule)
}

/// bfloat16 is the top half of a binary32.
#[inline]
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

fn round_half_even(v: f64) -> f64 {
    let r = v.round();
    if (v - v.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - v.signum()
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trips_every_finite_half() {
        for h in 0..=0xffffu16 {
            let f = f16_to_f32(h);
            if f.is_nan() {
                assert_eq!(f32_to_f16(f), F16_CANONICAL_NAN);
            } else {
                assert_eq!(f32_to_f16(f), h, "half {h:#06x}");
            }
        }
    }

    #[test]
    fn f16_rounds_to_nearest_even() {
        // 1 + 2^-11 is exactly half way between 1 and 1+2^-10: ties to even (1.0).
        assert_eq!(f32_to_f16(1.0 + 1.0 / 2048.0), 0x3c00);
        assert_eq!(f32_to_f16(1.0 + 3.0 / 2048.0), 0x3c02);
        assert_eq!(f32_to_f16(70000.0), 0x7c00);
        assert_eq!(f32_to_f16(-1e-8), 0x8000);
    }

    #[test]
    fn float_to_int_saturates_and_maps_nan_to_zero() {
        use crate::value_rules::Rule;
        let s = |x: f32| f32_to_int_rtz(x, true);
        let u = |x: f32| f32_to_int_rtz(x, false);
        // EXP-M4-43 SIGNED_RESULTS.json, M4: S32 RTZ of 2147483904.0, 4294967040.0, -1.0,
        // 65535.75 -> 2147483647, 2147483647, -1, 65535; U32 RTZ -> 2147483904, 4294967040,
        // 0, 65535; the low-bits panel -1.25, -2.5, 3.75, -65535.75 -> -1, -2, 3, -65535.
        let m4 = [2147483904.0f32, 4294967040.0, -1.0, 65535.75];
        assert_eq!(
            m4.map(|x| s(x).0),
            [0x7fff_ffff, 0x7fff_ffff, u32::MAX, 65535]
        );
        assert_eq!(m4.map(|x| u(x).0), [2147483904, 4294967040, 0, 65535]);
        let low = [-1.25f32, -2.5, 3.75, -65535.75];
        assert_eq!(low.map(|x| s(x).0 as i32), [-1, -2, 3, -65535]);
        assert_eq!(s(2147483904.0).1, Some(Rule::F2iS32Above));
        assert_eq!(u(-1.0).1, Some(Rule::F2iU32Negative));
        assert_eq!(u(-0.75), (0, None));
        assert_eq!(s(-3e9), (0x8000_0000, Some(Rule::F2iS32Below)));
        assert_eq!(s(-2147483648.0), (0x8000_0000, None));
        assert_eq!(u(5e9), (u32::MAX, Some(Rule::F2iU32Above)));
        assert_eq!(u(f32::INFINITY), (u32::MAX, Some(Rule::F2iInfinity)));
        assert_eq!(s(f32::NEG_INFINITY), (0x8000_0000, Some(Rule::F2iInfinity)));
        assert_eq!(s(f32::NAN), (0, Some(Rule::F2iNan)));
        assert_eq!(u(-f32::NAN), (0, Some(Rule::F2iNan)));
        assert_eq!(s(-7.9), (-7i32 as u32, None));
    }

    #[test]
    fn denormals_flush_to_signed_zero() {
        assert_eq!(ftz(0x0000_0001), 0);
        assert_eq!(ftz(0x807f_ffff), 0x8000_0000);
        assert_eq!(ftz(0x0080_0000), 0x0080_0000);
    }
}

//! Rounding of special-function results to fp32 as the M4 does it.
//!
//! The SFU is not correctly rounded. The rules below are fitted to every
//! fp32 result of niklassheth/agx-re EXP-M4-54 (HARDWARE.json, MIXED.json) and
//! EXP-M4-55 (measured on M4) and are checked against those files by the tests:
//! - rcp/rsqrt: nearest, except that values within a few hundredths of an ulp
//!   above a half-way point still round down (e.g. 1/8.25 -> 0x3df83e0f,
//!   rsqrt(1.5) -> 0x3f5105eb). Modelled as truncation to 5 guard bits, then
//!   round half toward zero.
//! - exp2: every inexact result is the next fp32 above the true value
//!   (2^0.5 -> 0x3fb504f4, 2^0.25 -> 0x3f9837f1).
//! - log2: inexact results are truncated toward zero after adding 2^-26
//!   (log2(4.25) -> 0x400598fd at 0.745 ulp and log2(131336) at 0.954 ulp go
//!   down, log2(1.75) at 0.916 of a 2^-24 ulp goes up: an absolute, not
//!   relative, bias). Powers of two are exact.
//! - sine factor: round to 12 guard bits, then round half up (the value for
//!   x = 1-2^-24 lies 1e-8 ulp below a half-way point and the M4 rounds it up).

/// How an exact result is brought to fp32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SfuRounding {
    /// Truncate to 24+`g` significant bits, then round half toward zero.
    GuardTruncate(u32),
    /// Round away from zero (in magnitude: up) whenever inexact.
    Up,
    /// Truncate toward zero (after any bias the caller added).
    TowardZero,
    /// Round to 24+`g` significant bits, then round half away from zero.
    GuardHalfUp(u32),
}

/// Rounds a finite, nonzero f64 to fp32 bits under `mode`. Results below the
/// fp32 normal range flush to signed zero; above it they become infinity.
pub fn to_f32(v: f64, mode: SfuRounding) -> u32 {
    let sign = if v < 0.0 { 0x8000_0000u32 } else { 0 };
    let a = v.abs();
    if a == 0.0 {
        return sign;
    }
    // Largest fp32 not above `a` (exact comparison in f64).
    let mut lo = a as f32;
    if lo as f64 > a {
        lo = f32::from_bits(lo.to_bits() - 1);
    }
    if lo.is_infinite() {
        return sign | 0x7f80_0000;
    }
    let lo_bits = lo.to_bits();
    // ulp of the binade of `lo` (normal range; smaller results flush below).
    let exp = ((lo_bits >> 23) as i32).max(1);
    let ulp = 2f64.powi(exp - 127 - 23);
    let frac = (a - lo as f64) / ulp; // in [0, 1)
    let up = match mode {
        SfuRounding::GuardTruncate(g) => {
            let scale = (1u64 << g) as f64;
            (frac * scale).floor() / scale > 0.5
        }
        SfuRounding::Up => frac > 0.0,
        SfuRounding::TowardZero => false,
        SfuRounding::GuardHalfUp(g) => {
            let scale = (1u64 << g) as f64;
            (frac * scale).round() / scale >= 0.5
        }
    };
    let bits = if up { lo_bits + 1 } else { lo_bits };
    super::ftz(sign | bits)
}

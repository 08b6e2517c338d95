//! Special-function unit results on fp32 (measured on M4: niklassheth/agx-re
//! experiments EXP-M4-54-sfu-source-controls and EXP-M4-55-sqrt-sine-assist).
//!
//! Inputs are flushed (denormal = signed zero) before evaluation; NaN results
//! are the canonical 0x7fc00000. Exception rows cite EXP-M4-55 RESULTS.md and
//! the k_rsqrt/k_sqrt edge-case runs.

use super::round::{to_f32, SfuRounding};
use super::{ftz_f32, F32_CANONICAL_NAN};

const INF: u32 = 0x7f80_0000;
const NEG_INF: u32 = 0xff80_0000;

/// The functions of the SFU families the model executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SfuFunc {
    Rcp,
    Rsqrt,
    /// `1/sqrt(x)` but 1 for ±0, +inf and denormals: `x * sqrt_factor(x)` is sqrt(x).
    SqrtFactor,
    /// `sin(pi*x/2)/x` on |x| <= 1, pi/2 at ±0, NaN elsewhere.
    SinFactor,
    Exp2,
    Log2,
    Floor,
    Ceil,
    Trunc,
    /// Round to nearest integer, ties to even.
    Rint,
}

const RCP_ROUNDING: SfuRounding = SfuRounding::GuardTruncate(5);
const EXP2_ROUNDING: SfuRounding = SfuRounding::Up;
const LOG2_ROUNDING: SfuRounding = SfuRounding::TowardZero;
/// Absolute bias added to inexact log2 results before truncation.
const LOG2_BIAS: f64 = 1.0 / (1u64 << 26) as f64;
const SIN_ROUNDING: SfuRounding = SfuRounding::GuardHalfUp(12);

/// Evaluates `f` on an fp32 input (after source modifiers), returning fp32 bits.
pub fn eval(f: SfuFunc, x: f32) -> u32 {
    let x = ftz_f32(x);
    if x.is_nan() {
        return F32_CANONICAL_NAN;
    }
    let neg = x.is_sign_negative();
    match f {
        SfuFunc::Rcp => {
            if x == 0.0 {
                return if neg { NEG_INF } else { INF };
            }
            if x.is_infinite() {
                return x.to_bits() & 0x8000_0000;
            }
            to_f32(1.0 / x as f64, RCP_ROUNDING)
        }
        SfuFunc::Rsqrt => {
            if x == 0.0 {
                return if neg { NEG_INF } else { INF };
            }
            if neg {
                return F32_CANONICAL_NAN;
            }
            if x.is_infinite() {
                return 0;
            }
            to_f32(1.0 / (x as f64).sqrt(), RCP_ROUNDING)
        }
        SfuFunc::SqrtFactor => {
            if x == 0.0 || x == f32::INFINITY {
                return 1.0f32.to_bits();
            }
            if neg {
                return F32_CANONICAL_NAN;
            }
            to_f32(1.0 / (x as f64).sqrt(), RCP_ROUNDING)
        }
        SfuFunc::SinFactor => {
            let a = (x as f64).abs();
            if a == 0.0 {
                return std::f32::consts::FRAC_PI_2.to_bits();
            }
            if a > 1.0 {
                return F32_CANONICAL_NAN;
            }
            // Within one ulp of the f64 formula (EXP-M4-55).
            let v = (std::f64::consts::FRAC_PI_2 * a).sin() / a;
            to_f32(v, SIN_ROUNDING)
        }
        SfuFunc::Exp2 => {
            if x == f32::NEG_INFINITY {
                return 0;
            }
            if x == f32::INFINITY {
                return INF;
            }
            to_f32((x as f64).exp2(), EXP2_ROUNDING)
        }
        SfuFunc::Log2 => {
            if x == 0.0 {
                return NEG_INF;
            }
            if neg {
                return F32_CANONICAL_NAN;
            }
            if x.is_infinite() {
                return INF;
            }
            let v = (x as f64).log2();
            if x.to_bits() & 0x7f_ffff == 0 {
                return (v as f32).to_bits(); // a power of two: exact
            }
            to_f32(v + LOG2_BIAS, LOG2_ROUNDING)
        }
        SfuFunc::Floor => x.floor().to_bits(),
        SfuFunc::Ceil => x.ceil().to_bits(),
        SfuFunc::Trunc => x.trunc().to_bits(),
        SfuFunc::Rint => x.round_ties_even().to_bits(),
    }
}

//! Per-lane arithmetic of the ALU forms.

use super::ops::{Cmp, FBinOp, FMod, FType, IntBinOp, Part};
use crate::fp::{bf16_to_f32, canon_f32, f16_to_f32, f32_to_f16, ftz, ftz_f32};

/// Interprets operand bits as a float of type `ty` (16-bit types use the low
/// half of `bits`, already extracted by the operand read). fp32 denormals read
/// as signed zero (EXP-0047/0201, measured).
#[inline]
pub fn to_f32(bits: u32, ty: FType) -> f32 {
    match ty {
        FType::F32 => f32::from_bits(ftz(bits)),
        FType::F16 => f16_to_f32(bits as u16),
        FType::Bf16 => ftz_f32(bf16_to_f32(bits as u16)),
    }
}

/// The float type a source part carries in a float op of type `op_ty`: 16-bit
/// parts are fp16 (the fp16->fp32 widening is the ordinary falu2 with a 16-bit
/// source; niklassheth/agx-re:docs/isa/encoding-tables.md cvt_f2h note, measured)
/// and a full register or immediate is fp32 also under an fp16 result (EXP-M4-54
/// rcp_half_neg: the 16-bit-destination multiply reads the fp32 reciprocal,
/// hardware output reproduced).
#[inline]
pub fn part_type(part: Part, op_ty: FType) -> FType {
    match (part, op_ty) {
        (Part::Full, FType::Bf16) => FType::Bf16,
        (Part::Full, _) => FType::F32,
        (_, FType::Bf16) => FType::Bf16,
        _ => FType::F16,
    }
}

#[inline]
pub fn apply_mod(x: f32, m: FMod) -> f32 {
    let x = if m.abs { x.abs() } else { x };
    if m.neg {
        -x
    } else {
        x
    }
}

/// Rounds an fp32 arithmetic result to the destination type.
#[inline]
pub fn from_f32(x: f32, ty: FType) -> u32 {
    match ty {
        FType::F32 => ftz(canon_f32(x)),
        FType::F16 => f32_to_f16(x) as u32,
        FType::Bf16 => (canon_f32(x) >> 16) & 0xffff, // truncating; no bf16 results are modelled yet
    }
}

/// fp32 fused multiply-add with one rounding (computed exactly in f64 and
/// rounded to odd there, so the final rounding to f32 is correct).
#[inline]
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    let p = a as f64 * b as f64; // exact: 24+24 bits
    let c = c as f64;
    let s = p + c;
    // TwoSum error of the f64 addition.
    let bb = s - p;
    let err = (p - (s - bb)) + (c - bb);
    // Round to odd: if inexact and even, step one f64 ulp toward the exact
    // value (branch-free so lane loops stay tight).
    let bits = s.to_bits() as i64;
    let fix = err.is_finite() & (err != 0.0) & (bits & 1 == 0);
    let step = if (err > 0.0) == (s > 0.0) { 1 } else { -1 };
    f64::from_bits((bits + if fix { step } else { 0 }) as u64) as f32
}

#[inline]
pub fn fbin(op: FBinOp, a: f32, b: f32) -> f32 {
    match op {
        FBinOp::Add => a + b,
        FBinOp::Mul => a * b,
    }
}

#[inline]
pub fn ibin(op: IntBinOp, a: u32, b: u32) -> u32 {
    match op {
        IntBinOp::Add => a.wrapping_add(b),
        IntBinOp::Sub => a.wrapping_sub(b),
        IntBinOp::Logic(truth) => {
            let t = |i: u8| if truth >> i & 1 == 1 { u32::MAX } else { 0 };
            let (x, y) = (b, a);
            (!x & !y & t(0)) | (!x & y & t(1)) | (x & !y & t(2)) | (x & y & t(3))
        }
        // The amount is the low 16 bits of B; 32 and above saturate (zero, or
        // the sign for arithmetic shifts) instead of wrapping (GravityLinux/mesa
        // agx_apple9_opt.c constant folding of register shifts, "native amount
        // contract": ushr(x, 33) = 0, ishr(0x81234567, 33) = ~0,
        // ushr(0x81234567, 0x10004) = 0x08123456; that backend runs on T8132).
        IntBinOp::Shl => a.checked_shl(b & 0xffff).unwrap_or(0),
        IntBinOp::ShrU => a.checked_shr(b & 0xffff).unwrap_or(0),
        IntBinOp::ShrS => ((a as i32) >> (b & 0xffff).min(31)) as u32,
        IntBinOp::MinU => a.min(b),
        IntBinOp::MaxU => a.max(b),
        IntBinOp::MinS => (a as i32).min(b as i32) as u32,
        IntBinOp::MaxS => (a as i32).max(b as i32) as u32,
    }
}

/// Unsigned-normalised conversion of an fp32: clamp to [0, 1], multiply by `scale`
/// exactly (f64 holds the product of a 24-bit mantissa and a 16-bit scale) and round to
/// nearest even (GravityLinux/mesa PACK_UNORM, T8132); NaN gives 0 (`value_rules`
/// PackUnormNan, inferred).
#[inline]
pub fn unorm(x: f32, scale: f64) -> u32 {
    if x.is_nan() {
        return 0;
    }
    ((x.clamp(0.0, 1.0) as f64) * scale).round_ties_even() as u32
}

#[inline]
pub fn compare(cmp: Cmp, a: u32, b: u32) -> bool {
    let (fa, fb) = (f32::from_bits(ftz(a)), f32::from_bits(ftz(b)));
    match cmp {
        Cmp::Eq => a == b,
        Cmp::Ne => a != b,
        Cmp::LtU => a < b,
        Cmp::LeU => a <= b,
        Cmp::GtU => a > b,
        Cmp::GeU => a >= b,
        Cmp::LtS => (a as i32) < (b as i32),
        Cmp::LeS => (a as i32) <= (b as i32),
        Cmp::GtS => (a as i32) > (b as i32),
        Cmp::GeS => (a as i32) >= (b as i32),
        Cmp::LtF => fa < fb,
        Cmp::LeF => fa <= fb,
        Cmp::GtF => fa > fb,
        Cmp::GeF => fa >= fb,
        Cmp::EqF => fa == fb,
        Cmp::NeF => fa != fb,
        Cmp::LeFOrUnordered => fa.partial_cmp(&fb) != Some(std::cmp::Ordering::Greater),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logic_lut_is_a_truth_table_over_a_and_b() {
        // truth bit 2x+y, x = operand B, y = operand A
        let (a, b) = (0b1100u32, 0b1010u32);
        assert_eq!(ibin(IntBinOp::Logic(0b0110), a, b), a ^ b);
        assert_eq!(ibin(IntBinOp::Logic(0b1000), a, b), a & b);
        assert_eq!(ibin(IntBinOp::Logic(0b1110), a, b), a | b);
        assert_eq!(ibin(IntBinOp::Logic(0b0011), a, b), !b);
        assert_eq!(ibin(IntBinOp::Logic(0b0100), a, b), b & !a);
    }

    #[test]
    fn register_shift_amounts_use_16_bits_and_saturate() {
        // The three constant-fold vectors GravityLinux/mesa test-apple9-opt.cpp
        // ConstantRegisterShiftFollowsNativeAmountContract gives, plus the
        // ordinary in-range cases.
        let x = 0x8123_4567;
        assert_eq!(ibin(IntBinOp::ShrU, x, 33), 0);
        assert_eq!(ibin(IntBinOp::ShrS, x, 33), u32::MAX);
        assert_eq!(ibin(IntBinOp::ShrU, x, 0x1_0004), 0x0812_3456);
        assert_eq!(ibin(IntBinOp::ShrS, x, 4), 0xf812_3456);
        assert_eq!(ibin(IntBinOp::Shl, x, 4), 0x1234_5670);
        assert_eq!(ibin(IntBinOp::Shl, x, 32), 0);
        assert_eq!(ibin(IntBinOp::ShrS, 0x7fff_ffff, 40), 0);
        assert_eq!(ibin(IntBinOp::Shl, 1, 0x1_001f), 0x8000_0000);
    }

    #[test]
    fn fma_rounds_once() {
        // (1 + 2^-23) * (1 - 2^-23) = 1 - 2^-46: exact in FMA, 1.0 - tiny
        let (a, b) = (1.0 + f32::EPSILON, 1.0 - f32::EPSILON);
        assert_eq!(fma_f32(a, b, -1.0), -(2f32.powi(-46)));
        // double rounding: a*b + c lands just above an f32 midpoint only
        // beyond f64 precision
        let a = 1.0 + 2f32.powi(-12);
        let b = 1.0 + 2f32.powi(-12) + 2f32.powi(-23);
        let c = -(2f32.powi(-11) + 2f32.powi(-23));
        assert_eq!(fma_f32(a, b, c), a.mul_add(b, c));
    }

    proptest::proptest! {
        #[test]
        fn fma_matches_the_correctly_rounded_reference(a: u32, b: u32, c: u32) {
            let (a, b, c) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            let want = a.mul_add(b, c);
            let got = fma_f32(a, b, c);
            proptest::prop_assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{a:e} * {b:e} + {c:e}: {got:e} vs {want:e}");
        }
    }

    #[test]
    fn f32_denormal_operands_and_results_flush() {
        assert_eq!(to_f32(1, FType::F32), 0.0);
        let tiny = f32::from_bits(0x0080_0000);
        assert_eq!(from_f32(tiny * 0.5, FType::F32), 0);
    }
}

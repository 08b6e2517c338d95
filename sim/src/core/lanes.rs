//! The hottest per-lane loops (fp32 add/mul/FMA with flushing), compiled twice:
//! for the baseline target and, where the CPU has them (detected at run time),
//! with AVX2 and FMA so the 32 lanes run 8 at a time and the FMA is one
//! instruction. Both versions compute the same bits.

use super::alu::fma_f32;
use super::Lanes;
use crate::fp::{ftz, F32_CANONICAL_NAN};

#[inline(always)]
fn finish(r: f32) -> u32 {
    ftz(if r.is_nan() {
        F32_CANONICAL_NAN
    } else {
        r.to_bits()
    })
}

#[inline(always)]
fn bin_body(out: &mut Lanes, a: &Lanes, b: &Lanes, mul: bool, abs: u32, neg: u32) {
    for l in 0..out.len() {
        let x = f32::from_bits(ftz(a[l]));
        let y = f32::from_bits(ftz(b[l]) & abs ^ neg);
        out[l] = finish(if mul { x * y } else { x + y });
    }
}

#[inline(always)]
fn fma_body<const HW: bool>(out: &mut Lanes, a: &Lanes, b: &Lanes, c: &Lanes, neg: u32) {
    for l in 0..out.len() {
        let x = f32::from_bits(ftz(a[l]) ^ neg);
        let (y, z) = (f32::from_bits(ftz(b[l])), f32::from_bits(ftz(c[l])));
        // With the FMA feature `mul_add` is the fused instruction; otherwise
        // the exact f64 round-to-odd evaluation (same result, see alu tests).
        out[l] = finish(if HW {
            x.mul_add(y, z)
        } else {
            fma_f32(x, y, z)
        });
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn bin_avx2(out: &mut Lanes, a: &Lanes, b: &Lanes, mul: bool, abs: u32, neg: u32) {
    bin_body(out, a, b, mul, abs, neg)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn fma_avx2(out: &mut Lanes, a: &Lanes, b: &Lanes, c: &Lanes, neg: u32) {
    fma_body::<true>(out, a, b, c, neg)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn copy_avx2(dst: &mut Lanes, src: &Lanes) {
    *dst = *src
}

/// The lanes of `mask` of `r` replaced by `new(r, v)` (selects per lane rather than
/// branches, so the loop vectorises).
#[inline(always)]
fn merge_body(r: &mut Lanes, v: &Lanes, mask: u32, new: impl Fn(u32, u32) -> u32) {
    for l in 0..r.len() {
        let n = new(r[l], v[l]);
        r[l] = if mask >> l & 1 != 0 { n } else { r[l] };
    }
}

/// Which part of a register a masked write replaces.
#[derive(Clone, Copy)]
pub enum Merge {
    Full,
    Lo,
    Hi,
}

#[inline(always)]
fn merge_any(r: &mut Lanes, v: &Lanes, mask: u32, part: Merge) {
    match part {
        Merge::Full => merge_body(r, v, mask, |_, v| v),
        Merge::Lo => merge_body(r, v, mask, |r, v| (r & 0xffff_0000) | (v & 0xffff)),
        Merge::Hi => merge_body(r, v, mask, |r, v| (r & 0xffff) | (v << 16)),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn merge_avx2(r: &mut Lanes, v: &Lanes, mask: u32, part: Merge) {
    merge_any(r, v, mask, part)
}

#[inline(always)]
fn has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `out = a + b'` or `a * b'` on fp32 bits, b' = (b & abs) ^ neg; fp32
/// denormals flush on input and output, NaNs become 0x7fc00000.
#[inline(always)]
pub fn f32_bin(out: &mut Lanes, a: &Lanes, b: &Lanes, mul: bool, abs: u32, neg: u32) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        // SAFETY: the CPU supports AVX2 and FMA (checked just above).
        unsafe { bin_avx2(out, a, b, mul, abs, neg) };
        return;
    }
    bin_body(out, a, b, mul, abs, neg)
}

/// `dst = src` with the vector width the AVX2 loops load with: a result stored in 16-byte
/// halves and read back by the next op's 32-byte loads stalled the store forwarding of
/// every dependent instruction.
#[inline(always)]
pub fn copy(dst: &mut Lanes, src: &Lanes) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        // SAFETY: the CPU supports AVX2 and FMA (checked just above).
        unsafe { copy_avx2(dst, src) };
        return;
    }
    *dst = *src
}

/// A masked register write: `part` of the lanes in `mask` from `v` (the 16-bit parts from
/// `v`'s low halves), at the AVX2 loops' vector width where the CPU has it (see [`copy`]).
#[inline(always)]
pub fn merge(r: &mut Lanes, v: &Lanes, mask: u32, part: Merge) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        // SAFETY: the CPU supports AVX2 and FMA (checked just above).
        unsafe { merge_avx2(r, v, mask, part) };
        return;
    }
    merge_any(r, v, mask, part)
}

/// `out = (a ^ neg) * b + c` with one rounding, flushing and canonical NaNs.
#[inline(always)]
pub fn f32_fma(out: &mut Lanes, a: &Lanes, b: &Lanes, c: &Lanes, neg: u32) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        // SAFETY: the CPU supports AVX2 and FMA (checked just above).
        unsafe { fma_avx2(out, a, b, c, neg) };
        return;
    }
    fma_body::<false>(out, a, b, c, neg)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn both_builds_agree(a in proptest::array::uniform32(proptest::num::u32::ANY),
                             b in proptest::array::uniform32(proptest::num::u32::ANY),
                             c in proptest::array::uniform32(proptest::num::u32::ANY)) {
            let (mut x, mut y) = ([0; 32], [0; 32]);
            f32_fma(&mut x, &a, &b, &c, 0);
            fma_body::<false>(&mut y, &a, &b, &c, 0);
            proptest::prop_assert_eq!(x, y);
            f32_bin(&mut x, &a, &b, true, u32::MAX, 0x8000_0000);
            bin_body(&mut y, &a, &b, true, u32::MAX, 0x8000_0000);
            proptest::prop_assert_eq!(x, y);
            for part in [Merge::Full, Merge::Lo, Merge::Hi] {
                let (mut x, mut y) = (a, a);
                merge(&mut x, &b, c[0], part);
                merge_any(&mut y, &b, c[0], part);
                proptest::prop_assert_eq!(x, y);
            }
        }
    }
}

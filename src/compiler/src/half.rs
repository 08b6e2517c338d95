//! IEEE binary16 ↔ binary32 conversions as 32-bit integer and float arithmetic.
//!
//! No G16 conversion form is validated for this (agx16-isa: the 16-bit-destination falu forms
//! and `cvt_f2h` are corpus-only; the mixed-width fadd of EXP-M4-54 ran on normal halves only),
//! so each direction is written with forms the compiler already selects (integer add/sub/min/
//! max, shifts, logic, `u2f`/`f2u`, fadd/fmul) and is exact for every input: zeros keep their
//! sign, denormals of both formats, infinities, NaN (a quiet NaN comes out), round to nearest
//! even or toward zero. Every choice between cases is a mask built from a sign bit or a
//! saturating difference, so no branch is generated. The halves live in 32-bit registers (bits
//! 0..15 of a word, or 16..31 for `high`), which is what packHalf2x16/unpackHalf2x16 and 16-bit
//! vertex formats read as words.

use crate::ir::{Builder, Op, Src, Type, Value};

fn op(b: &mut Builder, o: Op, srcs: impl IntoIterator<Item = Src>) -> Src {
    Src::val(b.alu(o, Type::I32, srcs))
}

fn imm(v: u32) -> Src {
    Src::imm(v)
}

const USHR: Op = Op::Shr { signed: false };
const ASHR: Op = Op::Shr { signed: true };
const UMIN: Op = Op::IMin { signed: false };
const UMAX: Op = Op::IMax { signed: false };

/// `m ^ ((m ^ d) & mask)`: `d` where `mask` is all ones, `m` where it is zero.
fn blend(b: &mut Builder, mask: Src, d: Src, m: Src) -> Src {
    let x = op(b, Op::Xor, [m, d]);
    let x = op(b, Op::And, [x, mask]);
    op(b, Op::Xor, [m, x])
}

/// 1 when `a > k` (unsigned), else 0: `umin(umax(a, k) - k, 1)`.
fn above(b: &mut Builder, a: Src, k: u32) -> Src {
    let t = op(b, UMAX, [a, imm(k)]);
    let t = op(b, Op::ISub, [t, imm(k)]);
    op(b, UMIN, [t, imm(1)])
}

/// The f32 value of the binary16 in bits 0..15 (`high`: 16..31) of the 32-bit `word`.
pub fn half_to_f32(b: &mut Builder, word: Src, high: bool) -> Value {
    let h = if high {
        op(b, USHR, [word, imm(16)])
    } else {
        op(b, Op::And, [word, imm(0xffff)])
    };
    // Sign to bit 31; magnitude m = exponent and mantissa (15 bits).
    let s = op(b, Op::And, [h, imm(0x8000)]);
    let s = op(b, Op::Shl, [s, imm(16)]);
    let m = op(b, Op::And, [h, imm(0x7fff)]);
    // Normal: the fields move up 13 bits and the exponent bias grows by 127 - 15 = 112.
    let n = op(b, Op::Shl, [m, imm(13)]);
    let n = op(b, Op::IAdd, [n, imm(112 << 23)]);
    // Infinity/NaN (m >= 0x7c00, i.e. m + 0x400 reaches bit 15): 112 more, to exponent 255.
    let inf = op(b, Op::IAdd, [m, imm(0x400)]);
    let inf = op(b, USHR, [inf, imm(15)]);
    let inf = op(b, Op::ISub, [imm(0), inf]);
    let inf = op(b, Op::And, [inf, imm(112 << 23)]);
    let n = op(b, Op::IAdd, [n, inf]);
    // Zero/denormal (m < 0x400): m * 2^-24, exact in f32 (m < 2^10 converts exactly and the
    // product is 0 or at least 2^-24, an f32 normal, so nothing is flushed).
    let df = b.alu(Op::I2F { signed: false }, Type::F32, [m]);
    let df = b.alu(
        Op::FMul,
        Type::F32,
        [Src::val(df), imm(0x3380_0000)], // 2^-24
    );
    let d = op(b, Op::Copy, [Src::val(df)]);
    let den = op(b, Op::ISub, [m, imm(0x400)]);
    let den = op(b, ASHR, [den, imm(31)]);
    let r = blend(b, den, d, n);
    let r = op(b, Op::Or, [r, s]);
    b.alu(Op::Copy, Type::F32, [r])
}

/// The binary16 bits of `x` (an f32) in bits 0..15 of a 32-bit integer (16..31 zero), rounded
/// to nearest even, or toward zero with `rtz` (then finite values beyond the largest half give
/// 65504 and only infinities give infinity). An f32 denormal is ±0 either way (its half is).
pub fn f32_to_half(b: &mut Builder, x: Src, rtz: bool) -> Value {
    let u = op(b, Op::Copy, [x]);
    let s = op(b, USHR, [u, imm(16)]);
    let s = op(b, Op::And, [s, imm(0x8000)]);
    let a = op(b, Op::And, [u, imm(0x7fff_ffff)]);
    // Normal halves (a >= 2^-14 = 0x38800000): rebias the exponent by -112, drop 13 mantissa
    // bits (a carry out of the mantissa correctly bumps the exponent).
    let n = op(b, Op::ISub, [a, imm(112 << 23)]);
    let n = if rtz {
        op(b, USHR, [n, imm(13)])
    } else {
        // + 0xfff + the lowest kept bit, then truncate: ties go to the even neighbour.
        let odd = op(b, USHR, [n, imm(13)]);
        let odd = op(b, Op::And, [odd, imm(1)]);
        let t = op(b, Op::IAdd, [n, imm(0xfff)]);
        let t = op(b, Op::IAdd, [t, odd]);
        op(b, USHR, [t, imm(13)])
    };
    // Too large (and infinity, NaN): the largest half saturates at infinity (0x7c00) when
    // rounding to nearest (65520 and up round there); toward zero at 0x7bff, plus one for
    // infinity and NaN (a > 0x7f7fffff). NaN then gets the quiet bit (a > 0x7f800000).
    let n = if rtz {
        let n = op(b, UMIN, [n, imm(0x7bff)]);
        let inf = above(b, a, 0x7f7f_ffff);
        op(b, Op::IAdd, [n, inf])
    } else {
        op(b, UMIN, [n, imm(0x7c00)])
    };
    let nan = above(b, a, 0x7f80_0000);
    let nan = op(b, Op::Shl, [nan, imm(9)]);
    let n = op(b, Op::Or, [n, nan]);
    // Denormal halves (a < 0x38800000): |x| in units of 2^-24. min() keeps the float work in
    // range for the lanes that take the other path. Nearest: |x| + 0.5 lies in [0.5, 1), where
    // an f32 step is 2^-24, so the add rounds |x| to that step (ties to even) and the result's
    // low bits count the steps (a tie at 2^-14 - 2^-25 rounds up to 0x400, the smallest normal
    // half, correctly). Toward zero: |x| * 2^24 is exact and below 2^10; f2u truncates.
    let small = op(b, UMIN, [a, imm(0x3880_0000)]);
    let small = b.alu(Op::Copy, Type::F32, [small]);
    let d = if rtz {
        let t = b.alu(Op::FMul, Type::F32, [Src::val(small), imm(0x4b80_0000)]); // 2^24
        op(b, Op::F2I { signed: false }, [Src::val(t)])
    } else {
        let t = b.alu(Op::FAdd, Type::F32, [Src::val(small), imm(0x3f00_0000)]); // 0.5
        let t = op(b, Op::Copy, [Src::val(t)]);
        op(b, Op::ISub, [t, imm(0x3f00_0000)])
    };
    let den = op(b, Op::ISub, [a, imm(0x3880_0000)]);
    let den = op(b, ASHR, [den, imm(31)]);
    let r = blend(b, den, d, n);
    b.alu(Op::Or, Type::I32, [r, s])
}

/// GLSL `packHalf2x16(vec2(lo, hi))` (`rtz`: NIR's pack_half_2x16_rtz_split).
pub fn pack_half_2x16(b: &mut Builder, lo: Src, hi: Src, rtz: bool) -> Value {
    let l = f32_to_half(b, lo, rtz);
    let h = f32_to_half(b, hi, rtz);
    let h = op(b, Op::Shl, [Src::val(h), imm(16)]);
    b.alu(Op::Or, Type::I32, [Src::val(l), h])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{f16_to_f32, f32_to_f16};
    use crate::interp::{self, Env};
    use crate::ir::{validate, Stage, SysVal};

    /// Runs `build(word)` per element of `xs` through the reference interpreter.
    fn run(xs: &[u32], build: impl Fn(&mut Builder, Src) -> Value) -> Vec<u32> {
        let mut b = Builder::new(Stage::Compute);
        let t = b.sysval(SysVal::GlobalId(0));
        let w = b.load_global(0, t, Type::I32, 1);
        let y = build(&mut b, Src::val(w));
        b.store_global(1, t, y);
        let f = b.finish();
        validate::validate(&f).unwrap_or_else(|e| panic!("{e}\n{f}"));
        let mut env = Env::default();
        env.buffers.insert(0, xs.to_vec());
        env.buffers.insert(1, vec![0; xs.len()]);
        for k in 0..xs.len() {
            env.global_id = [k as u32, 0, 0];
            interp::run(&f, &mut env).unwrap();
        }
        env.buffers.remove(&1).unwrap()
    }

    #[test]
    fn every_half_widens_exactly() {
        // Both halves of the words run through every value.
        let xs: Vec<u32> = (0..=0xffffu32).map(|h| h | (h ^ 0x5a5a) << 16).collect();
        for high in [false, true] {
            let got = run(&xs, |b, w| half_to_f32(b, w, high));
            for (&w, &g) in xs.iter().zip(&got) {
                let h = if high { w >> 16 } else { w & 0xffff } as u16;
                let want = f16_to_f32(h);
                if want.is_nan() {
                    assert!(f32::from_bits(g).is_nan(), "{h:#x} -> {g:#x}");
                } else {
                    assert_eq!(g, want.to_bits(), "{h:#x}");
                }
            }
        }
    }

    /// Round toward zero, written from the definition on exact f64 values.
    fn rtz_ref(x: f32) -> u16 {
        let s = ((x.to_bits() >> 16) & 0x8000) as u16;
        let a = x.abs() as f64;
        if x.is_nan() {
            return s | 0x7e00;
        }
        if a.is_infinite() {
            return s | 0x7c00;
        }
        // The largest half not above a: the nearest one, or the one below it.
        let h = f32_to_f16(a as f32).min(0x7c00);
        let h = if f16_to_f32(h) as f64 > a { h - 1 } else { h };
        s | h
    }

    fn edge_floats() -> Vec<u32> {
        let mut xs = vec![
            0,
            0x8000_0000,
            0x0000_0001,
            0x807f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xff80_0001,
            0x7f7f_ffff,
            0x477f_e000,
            0x477f_efff,
            0x477f_f000,
            0x477f_f001,
            0x4780_0000,
            0x3880_0000,
            0x387f_ffff,
            0x387f_f000,
            0x387f_e000,
            0x3380_0000,
            0x3300_0000,
            0x3300_0001,
            0x32ff_ffff,
            0x3340_0000,
            0x33c0_0000,
            0x3f80_1000,
            0x3f80_3000,
            0x3f80_2fff,
        ];
        // Halves, their neighbours half an f16 step away and a pseudo-random spread.
        for h in (0..0x7c00u32)
            .step_by(7)
            .chain(0x7b00..0x7c00)
            .chain(0..0x500)
        {
            let v = f16_to_f32(h as u16).to_bits();
            xs.extend([v, v + 0x1000, v + 0xfff, v + 0x1001, v | 0x8000_0000]);
        }
        let mut r = 0x1234_5678u32;
        for _ in 0..5000 {
            r ^= r << 13;
            r ^= r >> 17;
            r ^= r << 5;
            xs.push(r);
        }
        xs
    }

    #[test]
    fn f32_narrows_to_nearest_even_and_toward_zero() {
        let xs = edge_floats();
        for rtz in [false, true] {
            let got = run(&xs, |b, w| f32_to_half(b, w, rtz));
            for (&x, &g) in xs.iter().zip(&got) {
                let f = f32::from_bits(x);
                // Denormal f32 inputs are flushed (GLSL ES 3.00 §4.5.1 allows it): ±0.
                let f = crate::eval::ftz(f);
                let want = if rtz { rtz_ref(f) } else { f32_to_f16(f) };
                if f.is_nan() {
                    assert_eq!(g & 0xfe00, want as u32 & 0xfe00, "{x:#x} -> {g:#x}");
                    assert!(g & 0x3ff != 0 && g >> 16 == 0);
                } else {
                    assert_eq!(
                        g, want as u32,
                        "{x:#x} rtz={rtz}: got {g:#x} want {want:#x}"
                    );
                }
            }
        }
    }
}

//! Scalar semantics of every ALU op on raw bits: the CPU reference for the interpreter and the
//! constant folder.
//!
//! fp32 add/mul/FMA flush denormal inputs and outputs to zero on G16 (measured:
//! ADevWithAnIdea/agx-re EXP-0047 and EXP-0201 per /work/shared/notes/isa.md "Performance facts");
//! the special-function unit flushes denormal fp32 inputs to signed zero as well (measured:
//! niklassheth/agx-re EXP-M4-54 and EXP-M4-55 edge-case runs); other float ops keep denormals
//! (not measured; IEEE behaviour assumed).
//!
//! Every NaN a float operation produces is the canonical quiet NaN: 0x7fc00000 for fp32
//! (niklassheth/agx-re experiments/EXP-M4-55-sqrt-sine-assist, measured: whatever the input
//! payload) and 0x7e00 for fp16 (EXP-M4-54 half kernels, measured). Measured on the SFU; taken
//! to hold for the float ALU too (inferred; the model agrees).

use crate::ir::{Cmp, Op, Sfu, Type};

/// Flush an f32 denormal to a zero of the same sign.
pub fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// IEEE binary16 → binary32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as u32;
    let bits = match exp {
        0 if man == 0 => sign,
        0 => {
            // Subnormal: value = man * 2^-24.
            let v = man as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -v } else { v };
        }
        31 => sign | 0x7f80_0000 | (man << 13),
        _ => sign | (((exp - 15 + 127) as u32) << 23) | (man << 13),
    };
    f32::from_bits(bits)
}

/// binary32 → binary16, round to nearest even, overflow to infinity, NaN kept quiet.
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00 | ((b >> 13) & 0x3ff) as u16;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < f32::from_bits(0x3880_0000) {
        // Below 2^-14: subnormal half. Scale to units of 2^-24 and round to even.
        let r = (a * 16_777_216.0).round_ties_even();
        return sign | r as u16;
    }
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let man = b & 0x7f_ffff;
    let mut h = ((exp as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
        h += 1; // may carry into the exponent, which is the correct rounding
    }
    sign | h as u16
}

fn to_f(ty: Type, bits: u32) -> f32 {
    match ty {
        Type::F16 => f16_to_f32(bits as u16),
        _ => f32::from_bits(bits),
    }
}

fn from_f(ty: Type, x: f32) -> u32 {
    match ty {
        Type::F16 => f32_to_f16(x) as u32,
        _ => x.to_bits(),
    }
}

fn bool_bits(b: bool) -> u32 {
    if b {
        u32::MAX
    } else {
        0
    }
}

/// Sign-extend a value of `ty` to i32.
fn sext(ty: Type, bits: u32) -> i32 {
    if ty == Type::I16 {
        bits as u16 as i16 as i32
    } else {
        bits as i32
    }
}

fn cmp<T: PartialOrd>(c: Cmp, a: T, b: T) -> bool {
    match c {
        Cmp::Eq => a == b,
        Cmp::Ne => a != b,
        Cmp::Lt => a < b,
        Cmp::Ge => a >= b,
    }
}

/// Apply float source modifiers (abs, then negate) to raw bits of `ty`.
pub fn apply_mods(ty: Type, bits: u32, neg: bool, abs: bool) -> u32 {
    let sign = if ty == Type::F16 { 0x8000 } else { 0x8000_0000 };
    let mut b = bits;
    if abs {
        b &= !sign;
    }
    if neg {
        b ^= sign;
    }
    b
}

fn sfu(s: Sfu, x: f32) -> f32 {
    match s {
        Sfu::Rcp => 1.0 / x,
        Sfu::Rsqrt => 1.0 / x.sqrt(),
        Sfu::Sqrt => x.sqrt(),
        Sfu::SqrtFactor if x == 0.0 || x == f32::INFINITY => 1.0,
        Sfu::SqrtFactor => 1.0 / x.sqrt(),
        Sfu::SinFactor if x == 0.0 => std::f32::consts::FRAC_PI_2,
        Sfu::SinFactor if x.abs() > 1.0 => f32::NAN,
        Sfu::SinFactor => {
            let a = x.abs() as f64;
            ((std::f64::consts::FRAC_PI_2 * a).sin() / a) as f32
        }
        Sfu::Exp2 => x.exp2(),
        Sfu::Log2 => x.log2(),
        Sfu::Floor => x.floor(),
        Sfu::Ceil => x.ceil(),
        Sfu::Trunc => x.trunc(),
        Sfu::Rint => x.round_ties_even(),
    }
}

/// Evaluate a pure ALU op. `dst` is the destination type, `src_tys` the source types, `s` the
/// source bits after modifiers. Returns `None` for ops that are not pure scalar ALU ops.
pub fn eval(op: Op, dst: Type, src_tys: &[Type], s: &[u32], sat: bool) -> Option<u32> {
    let f = |i: usize| to_f(src_tys[i], s[i]);
    let fz = |i: usize| {
        let x = f(i);
        if dst == Type::F32 {
            ftz(x)
        } else {
            x
        }
    };
    let out_f = |x: f32, flush: bool| {
        let x = if flush && dst == Type::F32 { ftz(x) } else { x };
        let x = if sat { x.clamp(0.0, 1.0) } else { x }; // clamp keeps NaN as NaN
        let x = if sat && x.is_nan() { 0.0 } else { x };
        if x.is_nan() {
            return if dst == Type::F16 {
                0x7e00
            } else {
                0x7fc0_0000
            };
        }
        from_f(dst, x)
    };
    let m = dst.mask();
    let r = match op {
        Op::FAdd => out_f(fz(0) + fz(1), true),
        Op::FMul => out_f(fz(0) * fz(1), true),
        Op::FFma => out_f(fz(0).mul_add(fz(1), fz(2)), true),
        Op::FMin => out_f(f(0).min(f(1)), false),
        Op::FMax => out_f(f(0).max(f(1)), false),
        Op::Sfu(k) => out_f(sfu(k, fz(0)), false),
        // Float compares see fp32 denormals as zero like the fp32 ALU (inferred from the
        // add/mul/FMA measurements; agx16-sim's predicate compare does the same).
        Op::FCmp(c) => {
            let z = |k: usize| {
                if src_tys[k] == Type::F32 {
                    ftz(f(k))
                } else {
                    f(k)
                }
            };
            bool_bits(cmp(c, z(0), z(1)))
        }
        Op::IAdd => s[0].wrapping_add(s[1]) & m,
        Op::ISub => s[0].wrapping_sub(s[1]) & m,
        Op::IMul => s[0].wrapping_mul(s[1]) & m,
        Op::IMad => s[0].wrapping_mul(s[1]).wrapping_add(s[2]) & m,
        Op::IMin { signed: true } => sext(dst, s[0]).min(sext(dst, s[1])) as u32 & m,
        Op::IMax { signed: true } => sext(dst, s[0]).max(sext(dst, s[1])) as u32 & m,
        Op::IMin { signed: false } => (s[0] & m).min(s[1] & m),
        Op::IMax { signed: false } => (s[0] & m).max(s[1] & m),
        Op::ICmp { cond, signed: true } => {
            bool_bits(cmp(cond, sext(src_tys[0], s[0]), sext(src_tys[1], s[1])))
        }
        Op::ICmp {
            cond,
            signed: false,
        } => bool_bits(cmp(cond, s[0], s[1])),
        Op::And => s[0] & s[1],
        Op::Or => s[0] | s[1],
        Op::Xor => s[0] ^ s[1],
        Op::Not => !s[0] & m,
        Op::PackUnorm4x8 => (0..4).fold(0u32, |w, k| {
            let x = f32::from_bits(s[k]);
            let x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
            w | ((x * 255.0).round_ties_even() as u32) << (8 * k)
        }),
        Op::Shl => s[0].wrapping_shl(s[1] & 31) & m,
        Op::Shr { signed: false } => (s[0] & m) >> (s[1] & 31),
        Op::Shr { signed: true } => (sext(dst, s[0]) >> (s[1] & 31)) as u32 & m,
        Op::F2I { signed: true } => {
            let x = f(0);
            if dst == Type::I16 {
                x as i16 as u16 as u32
            } else {
                x as i32 as u32
            }
        }
        Op::F2I { signed: false } => {
            let x = f(0);
            if dst == Type::I16 {
                x as u16 as u32
            } else {
                x as u32
            }
        }
        Op::I2F { signed: true } => from_f(dst, sext(src_tys[0], s[0]) as f32),
        Op::I2F { signed: false } => from_f(dst, (s[0] & src_tys[0].mask()) as f32),
        Op::FConv => from_f(dst, f(0)),
        Op::Select => {
            if s[0] != 0 {
                s[1]
            } else {
                s[2]
            }
        }
        Op::Copy if sat && dst.is_float() => out_f(f(0), false),
        Op::Copy => s[0],
        _ => return None,
    };
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trip_all_finite_halves() {
        for h in 0u16..=0xffff {
            let x = f16_to_f32(h);
            if x.is_nan() {
                assert!(f16_to_f32(f32_to_f16(x)).is_nan());
            } else {
                assert_eq!(f32_to_f16(x), h, "half {h:#x} -> {x}");
            }
        }
    }

    #[test]
    fn f32_to_f16_rounds_to_nearest_even() {
        // 1 + 2^-11 is exactly halfway between 1.0 and the next half; ties to even (1.0).
        assert_eq!(f32_to_f16(1.0 + f32::powi(2.0, -11)), 0x3c00);
        // 1 + 3*2^-11 is halfway between 1+2^-10 (odd) and 1+2^-9; ties to even.
        assert_eq!(f32_to_f16(1.0 + 3.0 * f32::powi(2.0, -11)), 0x3c02);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00);
        assert_eq!(f32_to_f16(f32::powi(2.0, -25)), 0); // ties to even at the smallest subnormal
    }

    #[test]
    fn fadd_flushes_denormals() {
        let d = f32::from_bits(1);
        let r = eval(
            Op::FAdd,
            Type::F32,
            &[Type::F32; 2],
            &[d.to_bits(), 0],
            false,
        )
        .unwrap();
        assert_eq!(r, 0);
        let r = eval(
            Op::FMin,
            Type::F32,
            &[Type::F32; 2],
            &[d.to_bits(), 1.0f32.to_bits()],
            false,
        )
        .unwrap();
        assert_eq!(r, 1);
    }

    #[test]
    fn integer_ops_wrap_and_shift_mod_32() {
        let t = [Type::I32; 2];
        assert_eq!(
            eval(Op::IAdd, Type::I32, &t, &[u32::MAX, 2], false),
            Some(1)
        );
        assert_eq!(eval(Op::Shl, Type::I32, &t, &[1, 33], false), Some(2));
        assert_eq!(
            eval(
                Op::Shr { signed: true },
                Type::I32,
                &t,
                &[0x8000_0000, 31],
                false
            ),
            Some(u32::MAX)
        );
        assert_eq!(
            eval(
                Op::IMin { signed: true },
                Type::I32,
                &t,
                &[u32::MAX, 0],
                false
            ),
            Some(u32::MAX)
        );
        assert_eq!(
            eval(
                Op::IMin { signed: false },
                Type::I32,
                &t,
                &[u32::MAX, 0],
                false
            ),
            Some(0)
        );
    }

    #[test]
    fn conversions_saturate_and_nan_is_zero() {
        let f = [Type::F32];
        assert_eq!(
            eval(
                Op::F2I { signed: true },
                Type::I32,
                &f,
                &[f32::NAN.to_bits()],
                false
            ),
            Some(0)
        );
        assert_eq!(
            eval(
                Op::F2I { signed: true },
                Type::I32,
                &f,
                &[1e20f32.to_bits()],
                false
            ),
            Some(i32::MAX as u32)
        );
        assert_eq!(
            eval(
                Op::F2I { signed: false },
                Type::I32,
                &f,
                &[(-5.0f32).to_bits()],
                false
            ),
            Some(0)
        );
        assert_eq!(
            eval(
                Op::I2F { signed: true },
                Type::F32,
                &[Type::I32],
                &[u32::MAX],
                false
            ),
            Some((-1.0f32).to_bits())
        );
    }

    #[test]
    fn saturate_clamps_and_maps_nan_to_zero() {
        let t = [Type::F32; 2];
        let r = eval(Op::FAdd, Type::F32, &t, &[2.0f32.to_bits(), 0], true).unwrap();
        assert_eq!(f32::from_bits(r), 1.0);
        let r = eval(Op::FMul, Type::F32, &t, &[f32::NAN.to_bits(), 0], true).unwrap();
        assert_eq!(f32::from_bits(r), 0.0);
    }
}

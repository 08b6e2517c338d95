//! What a corpus kernel's output component may be, computed on the CPU from the GLSL ES 3.00
//! definitions (never from agx16's own evaluator), and how a model result is compared with it.
//!
//! Precision (GLSL ES 3.00.6 §4.5.1, highp): +, -, * and conversions correctly rounded;
//! a/b and 1/b 2.5 ULP for |b| in [2^-126, 2^126]; exp/exp2 (3 + 2|x|) ULP; log/log2 3 ULP
//! outside [0.5, 2], absolute 2^-21 inside; inversesqrt 2 ULP; sqrt inherited from
//! 1/inversesqrt; functions defined by equations of these inherit their error. Denormal inputs
//! and results may be flushed to zero; NaNs need not be generated or propagated, so a NaN input
//! leaves float results open. Built-ins whose precision the spec leaves undefined (trigonometry,
//! determinant, inverse) get the tolerance stated where they are defined (cases.rs).

/// The set of acceptable 32-bit results for one output component.
#[derive(Clone, Debug, PartialEq)]
pub enum Want {
    /// Exactly these bits.
    Exact(u32),
    /// A float within `ulps` ULP of `v` plus `abs` (v is computed in f64).
    Float { v: f64, ulps: f64, abs: f64 },
    /// The spec leaves the result open (undefined behaviour, NaN input, ...).
    Any,
    /// Any of these (implementation choices the spec allows).
    OneOf(Vec<Want>),
}

pub fn exact(w: u32) -> Want {
    Want::Exact(w)
}

/// Correctly rounded float result.
pub fn rn(v: f64) -> Want {
    Want::Float {
        v,
        ulps: 0.5,
        abs: 0.0,
    }
}

pub fn ulps(v: f64, n: f64) -> Want {
    Want::Float {
        v,
        ulps: n,
        abs: 0.0,
    }
}

pub fn tol(v: f64, ulps: f64, abs: f64) -> Want {
    Want::Float { v, ulps, abs }
}

pub fn b(v: bool) -> Want {
    Want::Exact(v as u32)
}

pub fn f(w: u32) -> f64 {
    f32::from_bits(w) as f64
}

pub fn is_denormal(w: u32) -> bool {
    f32::from_bits(w).is_subnormal()
}

/// Zero with the sign of a denormal, the value itself otherwise.
pub fn flush(w: u32) -> u32 {
    if is_denormal(w) {
        w & 0x8000_0000
    } else {
        w
    }
}

/// Size of one f32 ULP at magnitude |v| (denormal spacing below 2^-126).
pub fn ulp(v: f64) -> f64 {
    let a = v.abs();
    if a == 0.0 || !a.is_finite() {
        return 2f64.powi(-149);
    }
    let e = a.log2().floor().max(-126.0);
    2f64.powf(e - 23.0)
}

const F32_MIN_NORMAL: f64 = 1.1754943508222875e-38;

/// Whether the model's word `got` is acceptable.
pub fn accepts(want: &Want, got: u32, float_out: bool) -> bool {
    match want {
        Want::Any => true,
        Want::OneOf(ws) => ws.iter().any(|w| accepts(w, got, float_out)),
        Want::Exact(w) => {
            if got == *w {
                return true;
            }
            // A denormal float result may be flushed to a zero.
            float_out && is_denormal(*w) && got & 0x7fff_ffff == 0
        }
        Want::Float { v, ulps, abs } => {
            let g = f32::from_bits(got) as f64;
            if v.is_nan() {
                return true;
            }
            if g.is_nan() {
                return false;
            }
            let t = ulps * ulp(*v) + abs;
            if v.is_infinite() {
                return g == *v || t.is_infinite();
            }
            if g.is_infinite() {
                // Overflow to infinity of a value past the largest float (or an open bound).
                return t.is_infinite()
                    || (g.signum() == v.signum() && v.abs() + t >= f32::MAX as f64);
            }
            if g == 0.0 && v.abs() < F32_MIN_NORMAL * (1.0 + 1e-6) + t {
                return true;
            }
            (g - v).abs() <= t
        }
    }
}

//! sin and cos of GLSL ES 3.00 over small, large and huge arguments, GLSL → Mesa's front end →
//! agx16 → the M4 model, against the CPU's f64 sin/cos: within 2^-11 absolute where the f32
//! argument reduction is exact (|x| < 2^20), and in [-1, 1] everywhere else (GLSL ES 3.00 §8.1
//! leaves large arguments' precision to the implementation; dEQP accepts [-1, 1]). The
//! reduction once left NaN for |x| in 2^25..2^26 (dEQP precision.cos.highp_vertex).
#![cfg(feature = "glsl")]

use agx16_compiler::glsl::{compile_glsl, ShaderStage};
use agx16_compiler::pipeline::Options;

const SOURCE: &str = r#"#version 310 es
layout(local_size_x = 1) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) writeonly buffer S { float s[]; };
layout(std430, binding = 2) writeonly buffer C { float c[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    s[i] = sin(a[i]);
    c[i] = cos(a[i]);
}
"#;

#[test]
fn sin_and_cos_stay_accurate_and_bounded_for_every_argument_size() {
    let code = compile_glsl(SOURCE, ShaderStage::Compute, Options::default())
        .unwrap_or_else(|e| panic!("compile: {e}"))
        .compiled
        .code;
    let mut xs: Vec<f32> = vec![0.0, -0.0, 0.5, 1.0, 3.0, -7.25, 100.0, 12345.678];
    for e in 20..=70 {
        let m = (e as f32).exp2();
        xs.extend([m, -m, m * 1.2345, -m * 1.5437, m * 1.75]);
    }
    // The dEQP samples that failed.
    xs.extend([
        f32::from_bits(0x4c85_629d),
        f32::from_bits(0x4be3_ded8),
        -f32::from_bits(0x4be4_e77d),
        f32::from_bits(0x4cb9_ddac),
    ]);
    let n = xs.len();
    let bufs = vec![
        xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        vec![0xdead_beef; n],
        vec![0xdead_beef; n],
    ];
    let (got, _) = agx16_sim::value_rules::scoped(|| {
        agx16_sim::harness::run_with_buffers(&code, &bufs, &[], n as u32, 0)
            .unwrap_or_else(|e| panic!("model: {e}"))
    });
    for (i, &x) in xs.iter().enumerate() {
        for (k, name, f) in [(1, "sin", f64::sin as fn(f64) -> f64), (2, "cos", f64::cos)] {
            let y = f32::from_bits(got[k][i]);
            assert!(
                (-1.0..=1.0).contains(&y),
                "{name}({x:e}) = {y} is outside [-1, 1]"
            );
            if x.abs() < (1u32 << 20) as f32 {
                let want = f(x as f64);
                assert!(
                    (y as f64 - want).abs() <= 1.0 / 2048.0,
                    "{name}({x:e}) = {y}, want {want}"
                );
            }
        }
    }
}

//! Integer division and modulo of GLSL ES 3.00 on every edge input, GLSL → Mesa's front end →
//! agx16 → the M4 model, against a CPU reference.
//!
//! Mesa lowers `/` and `%` with nir_lower_idiv (a reciprocal estimate refined by multiplies
//! and compares; its float → uint conversions must saturate as the M4 does, EXP-M4-43); the
//! compiler turns a divisor of 0 into 1 first (`nir::prepare::nonzero_divisor`). References:
//! signed `/` truncates toward zero (GLSL ES 3.00 §5.9; INT_MIN / -1 overflows and wraps to
//! INT_MIN), unsigned `/` and `%` are exact, and signed `%` is what Mesa's GLSL front end
//! makes of it, `umod` of the bit patterns (GLSL leaves `%` of negative operands undefined;
//! softpipe computes the same NIR). Division by zero is undefined in GLSL: the job must not
//! fail, and the compiler's divisor 1 gives x / 0 = x, x % 0 = 0.
#![cfg(feature = "glsl")]

use agx16_compiler::glsl::{compile_glsl, ShaderStage};
use agx16_compiler::pipeline::Options;

const EDGES: [i32; 20] = [
    i32::MIN,
    i32::MIN + 1,
    -(1 << 30),
    -123_456_789,
    -65_536,
    -7,
    -3,
    -2,
    -1,
    0,
    1,
    2,
    3,
    7,
    65_535,
    65_536,
    123_456_789,
    1 << 30,
    i32::MAX - 1,
    i32::MAX,
];

const SOURCE: &str = r#"#version 310 es
layout(local_size_x = 1) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) readonly buffer B { int b[]; };
layout(std430, binding = 2) writeonly buffer Q { int q[]; };
layout(std430, binding = 3) writeonly buffer R { int r[]; };
layout(std430, binding = 4) writeonly buffer UQ { uint uq[]; };
layout(std430, binding = 5) writeonly buffer UR { uint ur[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a[i];
    int y = b[i];
    q[i] = x / y;
    r[i] = x % y;
    uq[i] = uint(x) / uint(y);
    ur[i] = uint(x) % uint(y);
}
"#;

#[test]
fn integer_division_and_modulo_match_the_cpu_reference_on_edge_inputs() {
    let code = compile_glsl(SOURCE, ShaderStage::Compute, Options::default())
        .unwrap_or_else(|e| panic!("compile: {e}"))
        .compiled
        .code;
    let pairs: Vec<(i32, i32)> = EDGES
        .iter()
        .flat_map(|&x| EDGES.iter().map(move |&y| (x, y)))
        .collect();
    let n = pairs.len();
    let bufs = vec![
        pairs.iter().map(|p| p.0 as u32).collect::<Vec<_>>(),
        pairs.iter().map(|p| p.1 as u32).collect(),
        vec![0xdead_beef; n],
        vec![0xdead_beef; n],
        vec![0xdead_beef; n],
        vec![0xdead_beef; n],
    ];
    let (got, used) = agx16_sim::value_rules::scoped(|| {
        agx16_sim::harness::run_with_buffers(&code, &bufs, &[], n as u32, 0)
            .unwrap_or_else(|e| panic!("model: {e}"))
    });
    let mut bad = Vec::new();
    for (k, &(x, y)) in pairs.iter().enumerate() {
        let (ux, uy) = (x as u32, y as u32);
        let want = if y == 0 {
            [x as u32, 0, ux, 0]
        } else {
            [x.wrapping_div(y) as u32, ux % uy, ux / uy, ux % uy]
        };
        let g = [got[2][k], got[3][k], got[4][k], got[5][k]];
        if g != want {
            bad.push(format!("{x} , {y}: got {g:?} want {want:?}"));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {n} pairs wrong:\n{}",
        bad.len(),
        bad.join("\n")
    );
    // the lowering's own conversions stay in range: no inferred value rule is needed
    eprintln!("{used}");
}

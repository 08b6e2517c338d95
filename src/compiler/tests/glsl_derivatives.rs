//! GLSL derivatives (dFdx, dFdy, fwidth) through Mesa's GLSL front end: one G16 `derivative`
//! per scalar, with the axis each built-in asks for; only in fragment shaders. What the
//! instruction computes is checked on agx16-sim (sim/tests/gfx_derivatives.rs) and against
//! softpipe end to end (the image suite's `derivatives` scene).
#![cfg(feature = "glsl")]

use agx16_compiler::glsl::{compile_glsl, ShaderStage};
use agx16_compiler::pipeline::Options;

/// (axis, source keep bit) of every `derivative` in the program, in order.
fn derivatives(src: &str) -> Vec<(u64, u64)> {
    let c = compile_glsl(src, ShaderStage::Fragment, Options::default())
        .unwrap_or_else(|e| panic!("{e}\n{src}"));
    agx16_isa::decode_program(&c.compiled.code)
        .unwrap()
        .into_iter()
        .filter(|(_, i)| i.form.name == "derivative")
        .map(|(_, i)| (i.field("axis").unwrap(), i.field("src_keep").unwrap()))
        .collect()
}

fn frag(body: &str) -> String {
    format!(
        "#version 300 es\nprecision highp float;\nin vec4 v;\nout vec4 color;\n\
         void main() {{\n{body}\n}}\n"
    )
}

#[test]
fn one_derivative_per_scalar_with_its_axis() {
    // dFdx of a vec3: three x derivatives.
    let d = derivatives(&frag("color = vec4(dFdx(v.xyz * v.yzx), 1.0);"));
    assert_eq!(d.iter().map(|x| x.0).collect::<Vec<_>>(), [0, 0, 0]);
    // dFdy of a vec2: two y derivatives.
    let d = derivatives(&frag("color = vec4(dFdy(v.xy * v.xy), 0.0, 1.0);"));
    assert_eq!(d.iter().map(|x| x.0).collect::<Vec<_>>(), [1, 1]);
    // fwidth(x) = |dFdx(x)| + |dFdy(x)|: one of each; the source survives the first.
    let mut d = derivatives(&frag("color = vec4(fwidth(sin(v.x) * v.y));"));
    assert_eq!(d.len(), 2, "{d:?}");
    d.sort();
    assert_eq!(d.iter().map(|x| x.0).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(
        d.iter().filter(|x| x.1 == 1).count(),
        1,
        "exactly one reads the source last: {d:?}"
    );
}

#[test]
fn the_corpus_derivative_shader_compiles() {
    let src = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/gfx/derivatives.frag"),
    )
    .unwrap();
    // dFdx(f), dFdy(f) and fwidth(uv.x * uv.y).
    let d = derivatives(&src);
    assert_eq!(d.len(), 4, "{d:?}");
    assert_eq!(d.iter().filter(|x| x.0 == 0).count(), 2);
}

#[test]
fn vertex_shaders_have_no_derivatives() {
    // GLSL ES 3.00 has no derivatives outside fragment shaders: the front end refuses them.
    let src = "#version 300 es\nin vec4 p;\nvoid main() { gl_Position = p + dFdx(p); }\n";
    assert!(compile_glsl(src, ShaderStage::Vertex, Options::default()).is_err());
}

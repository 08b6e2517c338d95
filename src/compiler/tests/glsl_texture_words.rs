//! The driver's texture-information words (nir::uniforms::lower_textures): a program gets only
//! the (unit, word) pairs it reads, inline after its uniforms while they fit the launcher's
//! argument words, else as a uniform block of their own; and texture ops beyond the eight
//! coordinate tuples compile (sched/scoreboard.rs reuses completed tuples). What the words
//! mean on a draw is checked against softpipe end to end (tests/ image suite `texture_units`).
#![cfg(feature = "glsl")]

use agx16_compiler::abi::MAX_UNIFORM_WORDS;
use agx16_compiler::glsl::{compile_graphics_stage, glsl_to_nir, ShaderStage};
use agx16_compiler::nir::uniforms::{TextureWords, WordsAt};

/// Sixteen units: 2D, cube, 2D array and 3D in turn (GLES 3.0 has 16 fragment units).
fn samplers() -> (String, Vec<&'static str>) {
    let kinds = ["sampler2D", "samplerCube", "sampler2DArray", "sampler3D"];
    let mut decl = String::new();
    let mut kind = Vec::new();
    for u in 0..16 {
        let k = kinds[u % 4];
        decl += &format!("uniform highp {k} s{u};\n");
        kind.push(k);
    }
    (decl, kind)
}

fn coords(kind: &str) -> &'static str {
    match kind {
        "sampler2D" => "uv",
        "samplerCube" => "vec3(uv, 1.0)",
        _ => "vec3(uv, 0.5)",
    }
}

fn compile(body: &str) -> (u16, Option<TextureWords>, usize) {
    let (decl, _) = samplers();
    let src = format!(
        "#version 300 es\nprecision highp float;\n{decl}in vec2 uv;\nout vec4 color;\n\
         void main() {{\n{body}\n}}\n"
    );
    let nir = glsl_to_nir(&src, ShaderStage::Fragment).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let (c, info, words) =
        unsafe { compile_graphics_stage(nir.as_ptr()) }.unwrap_or_else(|e| panic!("{e}\n{src}"));
    let samples = agx16_isa::decode_program(&c.code)
        .unwrap()
        .into_iter()
        .filter(|(_, i)| i.form.name == "tex_sample")
        .count();
    (info.uniform_words, words, samples)
}

#[test]
fn sixteen_units_of_mixed_targets_read_only_the_words_they_need() {
    let (_, kind) = samplers();
    let sum: Vec<String> = (0..16)
        .map(|u| format!("texture(s{u}, {})", coords(kind[u])))
        .collect();
    let (uniform_words, words, samples) = compile(&format!("color = {};", sum.join(" + ")));
    assert_eq!(
        samples, 16,
        "one sample per unit, past the eight coordinate tuples"
    );
    // Only the 2D arrays read a word: their layer count, for GL's layer clamp (word 2).
    let t = words.expect("the arrays read their layer counts");
    let arrays: Vec<(u8, u8)> = (0..16u8)
        .filter(|&u| kind[u as usize] == "sampler2DArray")
        .map(|u| (u, 2))
        .collect();
    assert_eq!(t.words, arrays);
    assert!(matches!(t.at, WordsAt::Inline(_)), "{t:?}");
    assert!(uniform_words <= MAX_UNIFORM_WORDS, "{uniform_words}");
}

#[test]
fn words_past_the_launchers_limit_become_a_uniform_block() {
    // textureSize and an offset lookup of every unit: sizes, level counts, the mip filter and
    // LOD range of 16 units (7 words each) do not fit 64 argument words.
    let (_, kind) = samplers();
    let mut body = String::from("vec4 c = vec4(0.0);\n");
    for (u, k) in kind.iter().enumerate() {
        let off = if *k == "sampler3D" {
            "ivec3(1)"
        } else {
            "ivec2(1)"
        };
        if *k == "samplerCube" {
            // Cube maps have no offset lookups.
            body += &format!(
                "c += texture(s{u}, {}) + float(textureSize(s{u}, 0).x);\n",
                coords(k)
            );
        } else {
            body += &format!(
                "c += textureOffset(s{u}, {}, {off}) + float(textureSize(s{u}, 0).x);\n",
                coords(k)
            );
        }
    }
    body += "color = c;";
    let (uniform_words, words, samples) = compile(&body);
    assert!(samples >= 16, "{samples}");
    let t = words.expect("sizes are read");
    assert_eq!(
        t.at,
        WordsAt::Block(0),
        "the first block: the program has none"
    );
    assert!(t.words.len() > 64, "{} words", t.words.len());
    // Sorted, each pair once, words 0..INFO_WORDS.
    let n = agx16_compiler::nir::texture::INFO_WORDS as u8;
    assert!(t.words.windows(2).all(|w| w[0] < w[1]) && t.words.iter().all(|w| w.1 < n));
    // The inline words are the root record and the block's qword only.
    assert!(uniform_words <= 14, "{uniform_words}");
}

#[test]
fn a_program_with_few_units_keeps_its_words_inline() {
    let src = "#version 300 es\nprecision highp float;\nuniform sampler2D s;\nuniform vec4 k;\n\
               in vec2 uv;\nout vec4 color;\n\
               void main() { color = k * texture(s, uv) + vec4(textureSize(s, 0), 0.0, 0.0); }\n";
    let nir = glsl_to_nir(src, ShaderStage::Fragment).unwrap();
    let (_, info, words) = unsafe { compile_graphics_stage(nir.as_ptr()) }.unwrap();
    let t = words.unwrap();
    // The uniform vec4 takes GL words 0..4; width and height follow it.
    assert_eq!(t.words, [(0, 0), (0, 1)]);
    assert_eq!(t.at, WordsAt::Inline(4));
    assert_eq!(info.uniform_words, info.gl_uniform_base + 6);
}

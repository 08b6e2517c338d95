//! `agx16-compile` on GLSL files: disassembly and statistics for a shader it compiles, a clear
//! error naming the NIR instruction (and a nonzero exit) for one it cannot, and the shader-db
//! totals over a directory.
#![cfg(feature = "glsl")]

use std::path::PathBuf;
use std::process::Command;

fn tool(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agx16-compile"))
        .args(args)
        .output()
        .expect("run agx16-compile");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("glsl_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const HEADER: &str = "#version 310 es\nlayout(local_size_x = 64) in;\n\
    layout(std430, binding = 0) readonly buffer In0 { uint a0[]; };\n\
    layout(std430, binding = 1) writeonly buffer Out { uint r[]; };\n";

#[test]
fn compiles_a_glsl_kernel_and_prints_disassembly_and_stats() {
    let p = write(
        "add.glsl",
        &format!(
            "{HEADER}void main() {{ uint i = gl_GlobalInvocationID.x; r[i] = a0[i] + 3u; }}\n"
        ),
    );
    let (code, out, err) = tool(&["--stage", "cs", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("device_load") && out.contains("device_store") && out.contains("stop"));
    let line = out.lines().last().unwrap();
    assert!(
        line.starts_with("MESA_SHADER_COMPUTE shader: ") && line.contains(" inst, "),
        "{line}"
    );
}

#[test]
fn unsupported_nir_is_a_clear_error_and_a_nonzero_exit() {
    // SSBO atomics are not selectable (no modelled atomic form).
    let p = write(
        "atomic.comp",
        "#version 310 es\nlayout(local_size_x = 64) in;\n\
         layout(std430, binding = 0) buffer B { uint n[]; };\n\
         void main() { atomicAdd(n[0], 1u); }\n",
    );
    let (code, out, err) = tool(&[p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("NIR intrinsic `ssbo_atomic"), "{err}");
}

#[test]
fn glsl_errors_carry_mesas_info_log() {
    let p = write(
        "bad.comp",
        &format!("{HEADER}void main() {{ r[0] = nosuch; }}\n"),
    );
    let (code, _, err) = tool(&[p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("GLSL compile failed") && err.contains("nosuch"),
        "{err}"
    );
    let p = write("x.txt", HEADER);
    let (code, _, err) = tool(&[p.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("--stage"), "{err}");
}

#[test]
fn stats_over_a_directory_prints_totals_and_timings() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/hand");
    let (code, out, _) = tool(&["--stats", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    let n = std::fs::read_dir(&dir).unwrap().count();
    // One line per shader, then the totals and the timing line.
    assert_eq!(out.lines().count(), n + 2, "{out}");
    assert!(out.contains(&format!(" of {n} shaders compiled")), "{out}");
    assert!(out.lines().last().unwrap().contains("median"), "{out}");
}

#[test]
fn vertex_and_fragment_shaders_compile_with_the_link_time_key() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/gfx");
    for (file, stage, tail) in [
        ("passthrough.vert", "MESA_SHADER_VERTEX", "vary_store"),
        ("tint.frag", "MESA_SHADER_FRAGMENT", "tile_store"),
        // Default-block uniforms lowered to load_uniform words, one indexed by a variable.
        (
            "indexed_uniforms.frag",
            "MESA_SHADER_FRAGMENT",
            "tile_store",
        ),
        // The driver's lowering: textures, a default block read from memory (82 words; an
        // array indexed in a loop), a switch's run-once loop.
        (
            "builtins_texture.frag",
            "MESA_SHADER_FRAGMENT",
            "tile_store",
        ),
        ("light_array.frag", "MESA_SHADER_FRAGMENT", "tile_store"),
        ("many_uniforms.vert", "MESA_SHADER_VERTEX", "vary_store"),
        ("skinning.vert", "MESA_SHADER_VERTEX", "vary_store"),
        ("switch_position.vert", "MESA_SHADER_VERTEX", "vary_store"),
    ] {
        let (code, out, err) = tool(&[dir.join(file).to_str().unwrap()]);
        assert_eq!(code, 0, "{file}: {err}");
        assert!(out.contains(tail), "{file}: {out}");
        let line = out.lines().last().unwrap();
        assert!(
            line.starts_with(&format!("{stage} shader: ")),
            "{file}: {out}"
        );
        // None of them needs more registers than the file has (a launcher frame with scratch
        // is supported, but these fit).
        assert!(line.contains(" 0 spills"), "{file}: {line}");
    }
    // The stage flag overrides the extension: a fragment shader is no vertex shader.
    let (code, _, err) = tool(&["--stage", "vs", dir.join("tint.frag").to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
}

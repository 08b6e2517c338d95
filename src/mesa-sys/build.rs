//! Generates Rust bindings for Mesa's NIR and Gallium headers from a configured Mesa build.
//!
//! The C flags (defines and include directories) are taken from the build's compile_commands.json, for
//! a file that is part of libgallium, so struct layouts match the C code we link against exactly.

use std::env;
use std::path::{Path, PathBuf};

/// A libgallium source whose compile command carries the gallium + NIR include paths and defines.
const REFERENCE_SOURCE: &str = "src/gallium/auxiliary/util/u_screen.c";

fn main() {
    let mesa_src = required_dir("AGX16_MESA_SRC");
    let mesa_build = required_dir("AGX16_MESA_BUILD");
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let compile_commands = mesa_build.join("compile_commands.json");
    println!("cargo:rerun-if-changed=wrapper.h");
    println!("cargo:rerun-if-changed={}", compile_commands.display());

    let mut flags = reference_flags(&compile_commands, &mesa_build);
    // nir.h's generated headers live in the build tree; be explicit in case the reference file lacks them.
    for dir in ["src/compiler/nir", "src/compiler", "src"] {
        flags.push(format!("-I{}", mesa_build.join(dir).display()));
        flags.push(format!("-I{}", mesa_src.join(dir).display()));
    }
    for dir in ["include", "src/gallium/include", "src/gallium/auxiliary"] {
        flags.push(format!("-I{}", mesa_src.join(dir).display()));
    }
    require_generated_headers(&mesa_build);

    let wrapper = Path::new(env!("CARGO_MANIFEST_DIR")).join("wrapper.h");
    let static_fns = out.join("static_fns.c");
    let bindings = bindgen::Builder::default()
        .header(wrapper.to_string_lossy())
        .clang_args(&flags)
        .allowlist_type("(nir|glsl|pipe|gl|mesa|exec|util|u)_.*")
        .allowlist_type("shader_info|float_controls|gc_ctx|blitter_context|_SHA1_CTX|disk_cache")
        .allowlist_function("(nir|glsl|pipe|util_format|ralloc|rzalloc|u_default|u_upload)_.*")
        .allowlist_function(
            "u_init_pipe_screen_caps|u_transfer_helper_.*|_mesa_shader_stage_to_string|tgsi_to_nir|_util_debug_message|disk_cache_(create|destroy|get_function_identifier)|_mesa_sha1_(init|update|final|format)",
        )
        .allowlist_function(
            "util_(copy|unreference)_framebuffer_state|util_set_vertex_buffers_mask|util_blitter_.*",
        )
        .allowlist_var("(nir|PIPE)_.*")
        .prepend_enum_name(false)
        .derive_default(true)
        .layout_tests(false)
        .generate_comments(false)
        // NIR's accessors are `static inline`; bindgen emits C wrappers for them.
        .wrap_static_fns(true)
        .wrap_static_fns_path(&static_fns)
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
        .generate()
        .unwrap_or_else(|e| fail(&format!("bindgen over {} failed: {e}", wrapper.display())));
    bindings
        .write_to_file(out.join("bindings.rs"))
        .unwrap_or_else(|e| fail(&format!("writing bindings.rs: {e}")));

    let mut cc = cc::Build::new();
    cc.file(static_fns.with_extension("c"))
        .include(env!("CARGO_MANIFEST_DIR"))
        .warnings(false);
    for flag in &flags {
        cc.flag(flag);
    }
    cc.compile("agx16_mesa_static_fns");

    // The GLSL libraries need NIR, so they come before it on the link line.
    if env::var_os("CARGO_FEATURE_GLSL").is_some() {
        build_glsl(&compile_commands, &mesa_src, &mesa_build);
    }
    if env::var_os("CARGO_FEATURE_LINK_MESA_STATIC").is_some() {
        link_mesa_static(&mesa_build);
    }
}

fn required_dir(var: &str) -> PathBuf {
    println!("cargo:rerun-if-env-changed={var}");
    let Some(dir) = env::var_os(var) else {
        fail(&format!(
            "{var} is not set. agx16-mesa-sys binds a configured Mesa build; run through `./x` \
             (which sets it), or export AGX16_MESA_SRC=<repo>/target/mesa/tree and \
             AGX16_MESA_BUILD=<repo>/target/mesa/build after `./x mesa`"
        ))
    };
    let dir = PathBuf::from(dir);
    if !dir.is_dir() {
        fail(&format!(
            "{var}={} is not a directory (has `./x mesa` run?)",
            dir.display()
        ));
    }
    dir
}

/// The -D/-I/-std flags meson uses to compile `REFERENCE_SOURCE`, with include paths made absolute.
fn reference_flags(compile_commands: &Path, build: &Path) -> Vec<String> {
    source_flags(compile_commands, build, REFERENCE_SOURCE)
}

/// Mesa's GLSL compiler for standalone use: agx16's `glsl/agx16_glsl.cpp` and Mesa's two
/// standalone scaffolding files (not built by the default Mesa build), compiled with the flags
/// meson uses for them, then libglsl/libglcpp from the build tree.
fn build_glsl(compile_commands: &Path, src: &Path, build: &Path) {
    const SCAFFOLDING: &str = "src/compiler/glsl/standalone_scaffolding.cpp";
    const PP_SCAFFOLDING: &str = "src/compiler/glsl/glcpp/pp_standalone_scaffolding.c";
    let shim = Path::new(env!("CARGO_MANIFEST_DIR")).join("glsl/agx16_glsl.cpp");
    println!("cargo:rerun-if-changed={}", shim.display());
    let cxx_flags = source_flags(compile_commands, build, SCAFFOLDING);
    let mut cxx = cc::Build::new();
    cxx.cpp(true)
        .file(&shim)
        .file(src.join(SCAFFOLDING))
        .include(src.join("src/compiler/glsl"))
        .include(build.join("src/compiler/glsl"))
        .warnings(false);
    for flag in &cxx_flags {
        cxx.flag(flag);
    }
    cxx.compile("agx16_glsl");
    // glcpp's standalone stubs and libglsl_util's four sources (Mesa's own build only makes
    // that library for glsl_compiler), all with the same include directories.
    let c_flags = source_flags(compile_commands, build, PP_SCAFFOLDING);
    let mut c = cc::Build::new();
    c.file(src.join(PP_SCAFFOLDING)).warnings(false);
    for util in [
        "src/mesa/main/extensions_table.c",
        "src/mesa/program/prog_parameter.c",
        "src/mesa/program/symbol_table.c",
        "src/mesa/program/dummy_errors.c",
    ] {
        c.file(src.join(util));
    }
    for flag in &c_flags {
        c.flag(flag);
    }
    c.compile("agx16_glcpp_scaffolding");
    // blake3 hashes shader sources (the GLSL compiler's cache keys).
    for (dir, lib) in [
        ("src/compiler/glsl", "glsl"),
        ("src/compiler/glsl/glcpp", "glcpp"),
        ("src/util/blake3", "blake3"),
    ] {
        let dir = build.join(dir);
        if !dir.join(format!("lib{lib}.a")).exists() {
            fail(&format!(
                "{}/lib{lib}.a is missing: build Mesa with `./x mesa`",
                dir.display()
            ));
        }
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static={lib}");
    }
}

/// The -D/-I/-std flags meson uses to compile `source`, with include paths made absolute.
fn source_flags(compile_commands: &Path, build: &Path, source: &str) -> Vec<String> {
    let text = std::fs::read_to_string(compile_commands).unwrap_or_else(|e| {
        fail(&format!(
            "cannot read {}: {e} (configure Mesa with `./x mesa`)",
            compile_commands.display()
        ))
    });
    let entries: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| fail(&format!("{} is not JSON: {e}", compile_commands.display())));
    let entry = entries
        .as_array()
        .and_then(|list| {
            list.iter()
                .find(|e| e["file"].as_str().is_some_and(|f| f.ends_with(source)))
        })
        .unwrap_or_else(|| {
            fail(&format!(
                "{} has no entry for {source}",
                compile_commands.display()
            ))
        });
    let command = entry["command"].as_str().unwrap_or_default();
    let words = shlex::split(command)
        .unwrap_or_else(|| fail(&format!("cannot split the compile command of {source}")));
    let directory = entry["directory"]
        .as_str()
        .map(PathBuf::from)
        .unwrap_or_else(|| build.to_path_buf());
    words
        .into_iter()
        .filter_map(|w| {
            if let Some(dir) = w.strip_prefix("-I") {
                let dir = Path::new(dir);
                let dir = if dir.is_absolute() {
                    dir.to_path_buf()
                } else {
                    directory.join(dir)
                };
                Some(format!("-I{}", dir.display()))
            } else if w.starts_with("-D") || w.starts_with("-U") || w.starts_with("-std=") {
                Some(w)
            } else {
                None
            }
        })
        .collect()
}

fn require_generated_headers(build: &Path) {
    for header in [
        "nir_opcodes.h",
        "nir_intrinsics.h",
        "nir_intrinsics_indices.h",
        "nir_builder_opcodes.h",
    ] {
        let path = build.join("src/compiler/nir").join(header);
        if !path.exists() {
            fail(&format!(
                "{} is missing: generate it with `ninja -C {} src/compiler/nir/{header}` (or `./x mesa`)",
                path.display(),
                build.display()
            ));
        }
    }
}

/// For standalone binaries: NIR, the GLSL type system and Mesa's util library from the build tree.
fn link_mesa_static(build: &Path) {
    // u_transfer_helper lives in libgallium's auxiliary library, which the shared libgallium links in;
    // in-process tests (no libgallium) get it compiled here from the Mesa tree with libgallium's flags.
    let src = required_dir("AGX16_MESA_SRC");
    const HELPER: &str = "src/gallium/auxiliary/util/u_transfer_helper.c";
    let compile_commands = build.join("compile_commands.json");
    let mut cc = cc::Build::new();
    cc.file(src.join(HELPER)).warnings(false);
    for flag in source_flags(&compile_commands, build, HELPER) {
        cc.flag(&flag);
    }
    cc.compile("agx16_mesa_transfer_helper");
    for (dir, lib) in [
        ("src/compiler/nir", "nir"),
        ("src/compiler", "compiler"),
        ("src/util", "mesa_util"),
        ("src/util", "mesa_util_sse41"),
        ("src/c11/impl", "mesa_util_c11"),
    ] {
        let path = build.join(dir);
        if !path.join(format!("lib{lib}.a")).exists() {
            fail(&format!(
                "{}/lib{lib}.a is missing: build it with `ninja -C {} {dir}/lib{lib}.a`",
                path.display(),
                build.display()
            ));
        }
        println!("cargo:rustc-link-search=native={}", path.display());
        println!("cargo:rustc-link-lib=static={lib}");
    }
    for lib in ["zstd", "z", "m", "pthread"] {
        println!("cargo:rustc-link-lib={lib}");
    }
}

fn fail(message: &str) -> ! {
    eprintln!("agx16-mesa-sys: {message}");
    std::process::exit(1);
}

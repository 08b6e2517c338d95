//! End to end: GL programs through our Mesa build onto agx16 and the DRM shim.
//!
//! Oracles: Mesa's own GL_RENDERER/GL_VERSION (derived by Mesa from our caps), EGL context creation, and
//! softpipe on the same build as the independent reference renderer.

use agx16_tests::{field, run, Stack};

const GLINFO: &str = env!("CARGO_BIN_EXE_agx16-glinfo");

fn stack() -> Stack {
    Stack::from_env().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn renderer_is_agx16_on_the_m4_and_version_matches_the_context() {
    let (ok, out, err) = run(stack().command(GLINFO, true));
    assert!(ok, "agx16-glinfo failed:\n{out}\n{err}");
    let renderer = field(&out, "GL_RENDERER").expect("GL_RENDERER line");
    assert!(
        renderer.starts_with("Apple M4 (G16G) agx16"),
        "renderer {renderer:?}"
    );
    // EGL could create exactly this GLES version and no higher; GL_VERSION must agree.
    let context = field(&out, "highest GLES context").expect("context line");
    let version = field(&out, "GL_VERSION").expect("GL_VERSION line");
    assert!(
        version.starts_with(&format!("OpenGL ES {context} Mesa 25.0.")),
        "{version:?} vs context {context}"
    );
}

/// Links the demo program with shader statistics on; returns agx16's per-stage report lines.
fn link_demo_program() -> Vec<(String, String)> {
    let mut cmd = stack().command(GLINFO, true);
    cmd.arg("--compile-demo").env("AGX16_DEBUG", "shaderdb");
    let (ok, out, err) = run(cmd);
    assert!(ok, "agx16-glinfo --compile-demo failed:\n{out}\n{err}");
    assert!(out.contains("vertex shader compile: ok"), "{out}");
    assert!(out.contains("fragment shader compile: ok"), "{out}");
    assert!(out.contains("program link: ok"), "{out}");
    // One line per stage from agx16's shader CSO: statistics when compiled, the compiler's error otherwise.
    ["vertex", "fragment"]
        .iter()
        .map(|stage| {
            let line = err
                .lines()
                .find(|l| {
                    l.starts_with(&format!("agx16 shaderdb: {stage}"))
                        || l.starts_with(&format!("agx16: {stage} shader"))
                })
                .unwrap_or_else(|| panic!("agx16 never got NIR for the {stage} shader:\n{err}"));
            (stage.to_string(), line.to_string())
        })
        .collect()
}

#[test]
fn program_links_and_the_compiler_entry_gets_nir_for_both_stages() {
    for (stage, line) in link_demo_program() {
        // Either statistics or an error that agx16-compiler returned for this NIR.
        let compiled = line.starts_with("agx16 shaderdb: ") && line.contains(" inst");
        let compiler_error = line.contains("NIR instructions) not compiled: ");
        assert!(compiled || compiler_error, "{stage}: {line}");
        assert!(
            !line.contains("(0 NIR instructions)"),
            "{stage} shader arrived without NIR: {line}"
        );
    }
}

#[test]
fn both_stages_compile_to_g16_code_with_statistics() {
    for (stage, line) in link_demo_program() {
        assert!(
            line.starts_with("agx16 shaderdb: "),
            "the {stage} shader was not compiled: {line}"
        );
        assert!(line.contains(" inst"), "no instruction count in {line:?}");
    }
}

#[test]
fn software_rendering_on_the_same_build_is_softpipe() {
    let mut cmd = stack().command(GLINFO, true);
    cmd.arg("--any-renderer").env("LIBGL_ALWAYS_SOFTWARE", "1");
    let (ok, out, err) = run(cmd);
    assert!(ok, "agx16-glinfo failed:\n{out}\n{err}");
    assert_eq!(field(&out, "GL_RENDERER"), Some("softpipe"), "{out}");
    assert!(
        field(&out, "GL_VERSION").is_some_and(|v| v.starts_with("OpenGL ES 3.")),
        "{out}"
    );
}

#[test]
fn without_the_shim_there_is_no_m4_node_and_no_silent_fallback() {
    let (ok, out, err) = run(stack().command(GLINFO, false));
    assert!(
        !ok,
        "agx16-glinfo must fail without an M4 render node:\n{out}"
    );
    assert!(err.contains("not agx16: Mesa fell back"), "{err}");
    assert!(
        err.contains("no Apple M4 render node exists") || err.contains("none accepted by agx16"),
        "{err}"
    );
}

const RESTEST: &str = env!("CARGO_BIN_EXE_agx16-restest");

/// Buffer and texture round trips through GL on agx16: glBufferData/glBufferSubData read back with
/// glMapBufferRangeEXT, every level of an RGBA8 mip chain uploaded with glTexImage2D and read back
/// with glReadPixels; a pbuffer surface allocated through resource_create. Oracle: the uploaded bytes.
/// At screen destruction no BO may be live.
#[test]
fn buffer_and_texture_data_round_trip_through_agx16_resources() {
    let mut cmd = stack().command(RESTEST, true);
    cmd.env("AGX16_DEBUG", "bo");
    let (ok, out, err) = run(cmd);
    let renderer = field(&out, "GL_RENDERER").unwrap_or_default();
    assert!(
        renderer.starts_with("Apple M4 (G16G) agx16"),
        "renderer {renderer:?}\n{out}\n{err}"
    );
    assert!(ok, "agx16-restest failed:\n{out}\n{err}");
    assert!(!out.contains("FAIL"), "{out}");
    // 3 buffer ranges + 7 texture levels + a sub-rectangle + the pbuffer.
    assert_eq!(
        out.lines().filter(|l| l.starts_with("ok: ")).count(),
        12,
        "{out}"
    );
    let report = err
        .lines()
        .find(|l| l.starts_with("agx16 bo: at screen destroy"))
        .unwrap_or_else(|| panic!("no BO report:\n{err}"));
    assert!(report.contains(" 0 live,"), "{report}");
    assert!(err.contains("agx16 bo: VM and every BO closed"), "{err}");
    assert!(!err.contains("internal error"), "{err}");
    // glFinish flushed with a fence and waited on its syncobj without an ioctl error.
    assert!(!err.contains("SYNCOBJ"), "{err}");
}

/// The same program passes on softpipe, so its checks test the data, not agx16 quirks.
#[test]
fn the_resource_round_trip_program_passes_on_softpipe() {
    let mut cmd = stack().command(RESTEST, true);
    cmd.env("LIBGL_ALWAYS_SOFTWARE", "1");
    let (ok, out, err) = run(cmd);
    assert_eq!(field(&out, "GL_RENDERER"), Some("softpipe"), "{out}\n{err}");
    assert!(ok && !out.contains("FAIL"), "{out}\n{err}");
}

const DRAWTEST: &str = env!("CARGO_BIN_EXE_agx16-drawtest");

/// Runs agx16-drawtest on agx16 (or softpipe); returns stderr and the RGBA pixels (64x64 unless
/// `args` has `--size N`).
fn draw_frame(args: &[&str], softpipe: bool) -> (String, Vec<[u8; 4]>) {
    let size: usize = args
        .iter()
        .position(|a| *a == "--size")
        .map_or(64, |i| args[i + 1].parse().unwrap());
    let mut cmd = stack().command(DRAWTEST, true);
    cmd.args(args);
    if softpipe {
        cmd.env("LIBGL_ALWAYS_SOFTWARE", "1");
    } else {
        cmd.env("AGX16_DEBUG", "bo");
    }
    let (ok, out, err) = run(cmd);
    assert!(ok, "agx16-drawtest {args:?} failed:\n{out}\n{err}");
    if !softpipe {
        // Batch memory, programs and the entry arena are all given back by screen destruction.
        let report = err
            .lines()
            .find(|l| l.starts_with("agx16 bo: at screen destroy"))
            .unwrap_or_else(|| panic!("no BO report:\n{err}"));
        assert!(report.contains(" 0 live,"), "{report}");
    }
    let renderer = field(&out, "GL_RENDERER").unwrap_or_default();
    if softpipe {
        assert_eq!(renderer, "softpipe", "{out}");
    } else {
        assert!(
            renderer.starts_with("Apple M4 (G16G) agx16"),
            "renderer {renderer:?}\n{err}"
        );
    }
    assert_eq!(
        field(&out, "size"),
        Some(format!("{size}x{size}").as_str()),
        "{out}"
    );
    let hex = field(&out, "pixels").expect("pixels line");
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    assert_eq!(bytes.len(), size * size * 4);
    (
        err,
        bytes.chunks(4).map(|c| c.try_into().unwrap()).collect(),
    )
}

/// Same coverage of everything that is not the clear colour, every channel within one 8-bit
/// step (GL leaves the rounding of ties open: softpipe rounds 76.5 down, the G16 packing up).
fn same_frame(agx: &[[u8; 4]], soft: &[[u8; 4]]) -> usize {
    assert_eq!(agx.len(), soft.len());
    let w = (agx.len() as f64).sqrt() as usize;
    let near = |a: &[u8; 4], b: &[u8; 4]| a.iter().zip(b).all(|(x, y)| x.abs_diff(*y) <= 1);
    let (bg_a, bg_s) = (agx[0], soft[0]);
    assert!(
        near(&bg_a, &bg_s),
        "clear colour {bg_a:?} vs softpipe {bg_s:?}"
    );
    let mut covered = 0;
    for (i, (a, s)) in agx.iter().zip(soft).enumerate() {
        let (ca, cs) = (a != &bg_a, s != &bg_s);
        assert_eq!(
            ca,
            cs,
            "coverage differs at pixel {},{}: agx16 {a:?} softpipe {s:?}",
            i % w,
            i / w
        );
        assert!(
            near(a, s),
            "pixel {},{}: agx16 {a:?} softpipe {s:?}",
            i % w,
            i / w
        );
        covered += ca as usize;
    }
    covered
}

/// glClear of an RGBA8 framebuffer object, read back with glReadPixels: the background and
/// end-of-tile programs on the model write what softpipe writes.
#[test]
fn a_cleared_framebuffer_matches_softpipe() {
    let (err, agx) = draw_frame(&["--clear-only"], false);
    let (_, soft) = draw_frame(&["--clear-only"], true);
    assert_eq!(same_frame(&agx, &soft), 0);
    assert!(
        !err.contains("not executed") && !err.contains("not submitted"),
        "{err}"
    );
    assert!(!err.contains("internal error"), "{err}");
}

/// glClear + glDrawArrays of a triangle whose position and colour come from a vertex buffer,
/// through the compiled vertex (attribute fetch) and fragment (varying, RGBA8 pack) variants:
/// the same pixels as softpipe on the same build.
#[test]
fn a_vertex_coloured_triangle_matches_softpipe() {
    let (err, agx) = draw_frame(&[], false);
    let (_, soft) = draw_frame(&[], true);
    let covered = same_frame(&agx, &soft);
    assert!(covered > 1000, "the triangle covers {covered} pixels");
    assert!(
        !err.contains("not executed") && !err.contains("not submitted"),
        "{err}"
    );
    assert!(!err.contains("internal error"), "{err}");
}

/// A 256x256 target is 64 tile renders in one batch: their render-context BOs run past
/// 0x10_0008_0000, where the firmware's fixed ranges start (VM_BIND refused them with EINVAL
/// and the render was not submitted). Clear + triangle equal softpipe.
#[test]
fn a_256x256_triangle_matches_softpipe() {
    let (err, agx) = draw_frame(&["--size", "256"], false);
    let (_, soft) = draw_frame(&["--size", "256"], true);
    let covered = same_frame(&agx, &soft);
    assert!(covered > 16 * 1000, "the triangle covers {covered} pixels");
    assert!(
        !err.contains("not executed") && !err.contains("not submitted"),
        "{err}"
    );
    assert!(!err.contains("internal error"), "{err}");
}

/// A 16-bit depth renderbuffer cleared with the colour, depth test LESS, two crossing
/// triangles from glDrawElements (u16 indices) with a uniform tint: the nearer one drawn first
/// stays in front, exactly where softpipe keeps it.
#[test]
fn depth_tested_indexed_triangles_with_a_uniform_match_softpipe() {
    let (err, agx) = draw_frame(&["--depth-elements"], false);
    let (_, soft) = draw_frame(&["--depth-elements"], true);
    let covered = same_frame(&agx, &soft);
    assert!(covered > 1300, "the triangles cover {covered} pixels");
    assert!(
        !err.contains("not executed") && !err.contains("not submitted"),
        "{err}"
    );
}

/// A GLSL ES 3.00 vertex shader reading three mat4s, a mat3x4 and a mat2 (82 uniform words:
/// the default block is read from memory) places and colours the triangle: the same pixels as
/// softpipe. (The draw was lost before: the program spilled and the launcher's frame carried
/// the spill size in extent B, which the model refuses.)
#[test]
fn a_vertex_shader_with_82_uniform_words_matches_softpipe() {
    let (err, agx) = draw_frame(&["--many-uniforms"], false);
    let (_, soft) = draw_frame(&["--many-uniforms"], true);
    let covered = same_frame(&agx, &soft);
    assert!(covered > 600, "the triangle covers {covered} pixels");
    assert!(
        !err.contains("not executed") && !err.contains("not submitted"),
        "{err}"
    );
    assert!(!err.contains("internal error"), "{err}");
}

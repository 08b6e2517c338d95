//! agx16-linkerrtest: errors the application sees (issue #17). On a GLES 3.0 context:
//!
//! 1. Links a GLSL ES 3.00 program that Mesa's front end accepts but whose fragment shader
//!    indexes a 300-element local array with a uniform (more than the 256 elements agx16-compiler
//!    lowers to if-ladders over registers and spill slots). Prints `link: ok|failed` and
//!    `link log: <info log on one line>`, then `link 32: ok|failed` for the same program with
//!    a 32-element array.
//!
//! 2. Program binaries (GL_NUM_PROGRAM_BINARY_FORMATS, `glGetProgramBinary`/`glProgramBinary`):
//!    prints `binary formats: N`; when N > 0, links a program whose colour comes from two
//!    uniforms, reloads it from its binary into a new program object, sets the uniforms there
//!    (a loaded program starts with default uniform values), draws a full-screen triangle into
//!    an RGBA8 target and prints `binary draw: <rgba hex of pixel (3,3)>`; then loads a binary
//!    with one byte flipped in its middle and prints `corrupt binary link: ok|failed`.
//!
//! (The KHR_debug messages for dropped draws are tested in agx16-gallium, batch.rs
//! `debug_tests`: a job that fails on the GPU is not visible to the driver yet, so no draw a
//! legal ES 3.0 program makes is known to reach the dropped-draw path end to end.)
//!
//! Prints `GL_RENDERER: ...` first; exits non-zero when a GL call reports an error.

use agx16_tests::gles::{fullscreen_triangle, gl_error, hex, read_rgba8, rgba8_target, shader};
use glow::HasContext;
use std::process::ExitCode;

const VS: &str = "#version 300 es
in vec2 a_pos;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }
";

/// A local array of 300 floats indexed by a uniform (past the 256 elements the compiler lowers).
const FS_BIG_ARRAY: &str = "#version 300 es
precision highp float;
uniform int u_index;
out vec4 o;
void main() {
    float a[300];
    for (int i = 0; i < 300; i++) a[i] = float(i) * 0.01;
    o = vec4(a[u_index], 0.0, 0.0, 1.0);
}
";

/// The colour is `u_base + u_add`, so a binary that lost either uniform's location shows.
const FS_UNIFORMS: &str = "#version 300 es
precision highp float;
uniform vec4 u_base;
uniform vec4 u_add;
out vec4 o;
void main() { o = u_base + u_add; }
";

/// Values the draw sets, and the RGBA8 pixel they give (CPU: round(255 * (base + add))).
const BASE: [f32; 4] = [0.25, 0.5, 0.0, 0.5];
const ADD: [f32; 4] = [0.5, -0.25, 0.75, 0.5];

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agx16-linkerrtest: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Compiles both stages (errors there are errors of this program) and links them.
unsafe fn program(gl: &glow::Context, fs: &str) -> Result<(glow::Program, bool), String> {
    let p = gl.create_program()?;
    gl.attach_shader(p, shader(gl, glow::VERTEX_SHADER, VS)?);
    gl.attach_shader(p, shader(gl, glow::FRAGMENT_SHADER, fs)?);
    gl.bind_attrib_location(p, 0, "a_pos");
    gl.link_program(p);
    Ok((p, gl.get_program_link_status(p)))
}

fn run() -> Result<(), String> {
    let g = agx16_tests::gles::gles(3)?;
    println!("GL_RENDERER: {}", g.renderer);
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    unsafe {
        let (p, linked) = program(&g.gl, FS_BIG_ARRAY)?;
        let log = g.gl.get_program_info_log(p);
        println!("link: {}", if linked { "ok" } else { "failed" });
        println!("link log: {}", log.trim().replace('\n', " | "));
        g.gl.delete_program(p);
        gl_error(&g.gl, "linking the big-array program")?;
        // The same program with a 32-element array (registers): links everywhere.
        let (p, linked) = program(
            &g.gl,
            &FS_BIG_ARRAY
                .replace("[300]", "[32]")
                .replace("< 300", "< 32"),
        )?;
        println!("link 32: {}", if linked { "ok" } else { "failed" });
        g.gl.delete_program(p);
        program_binary(&g.gl)?;
    }
    drop(g);
    Ok(())
}

/// Section 2: a program reloaded from its binary draws what the original does.
unsafe fn program_binary(gl: &glow::Context) -> Result<(), String> {
    let formats = gl.get_parameter_i32(glow::NUM_PROGRAM_BINARY_FORMATS);
    println!("binary formats: {formats}");
    if formats == 0 {
        return Ok(());
    }
    let (p, linked) = program(gl, FS_UNIFORMS)?;
    if !linked {
        return Err(format!("uniform program: {}", gl.get_program_info_log(p)));
    }
    let binary = gl
        .get_program_binary(p)
        .ok_or("glGetProgramBinary returned nothing")?;
    gl.delete_program(p);
    gl_error(gl, "glGetProgramBinary")?;

    let loaded = gl.create_program()?;
    gl.program_binary(loaded, &binary);
    if !gl.get_program_link_status(loaded) {
        return Err(format!(
            "glProgramBinary of a fresh binary failed: {}",
            gl.get_program_info_log(loaded)
        ));
    }
    let fbo = rgba8_target(gl, 8)?;
    gl.viewport(0, 0, 8, 8);
    gl.use_program(Some(loaded));
    for (name, v) in [("u_base", BASE), ("u_add", ADD)] {
        let at = gl.get_uniform_location(loaded, name);
        gl.uniform_4_f32_slice(at.as_ref(), &v);
    }
    let vbo = fullscreen_triangle(gl)?;
    gl.draw_arrays(glow::TRIANGLES, 0, 3);
    let px = read_rgba8(gl, 3, 3, 1, 1)?;
    println!("binary draw: {}", hex(&px));
    gl.delete_buffer(vbo);
    gl.delete_framebuffer(fbo);
    gl.delete_program(loaded);
    gl_error(gl, "drawing with the loaded program")?;

    // A damaged binary must fail the load (GL_LINK_STATUS false), not crash or draw garbage.
    let mut bad = binary;
    let mid = bad.buffer.len() / 2;
    bad.buffer[mid] ^= 0x5a;
    let q = gl.create_program()?;
    gl.program_binary(q, &bad);
    let ok = gl.get_program_link_status(q);
    println!("corrupt binary link: {}", if ok { "ok" } else { "failed" });
    gl.delete_program(q);
    // glProgramBinary of a rejected binary is not a GL error (ES 3.0 §2.12.3).
    gl_error(gl, "loading a damaged binary")
}

//! agx16-linkerrtest: errors the application sees (issue #17). On a GLES 3.0 context:
//!
//! 1. Links a GLSL ES 3.00 program that Mesa's front end accepts but whose fragment shader
//!    indexes a 100-element local array with a uniform (more than the 64 elements agx16-compiler
//!    turns into registers; it has no scratch memory). Prints `link: ok|failed` and
//!    `link log: <info log on one line>`, then `link 32: ok|failed` for the same program with
//!    a 32-element array.
//!
//! (The KHR_debug messages for dropped draws are tested in agx16-gallium, batch.rs
//! `debug_tests`: a job that fails on the GPU is not visible to the driver yet, so no draw a
//! legal ES 3.0 program makes is known to reach the dropped-draw path end to end.)
//!
//! Prints `GL_RENDERER: ...` first; exits non-zero when a GL call reports an error.

use agx16_tests::gles::{gl_error, shader};
use glow::HasContext;
use std::process::ExitCode;

const VS: &str = "#version 300 es
in vec2 a_pos;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }
";

/// A local array of 100 floats indexed by a uniform.
const FS_BIG_ARRAY: &str = "#version 300 es
precision highp float;
uniform int u_index;
out vec4 o;
void main() {
    float a[100];
    for (int i = 0; i < 100; i++) a[i] = float(i) * 0.01;
    o = vec4(a[u_index], 0.0, 0.0, 1.0);
}
";

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
        let (p, linked) = program(&g.gl, &FS_BIG_ARRAY.replace("100", "32"))?;
        println!("link 32: {}", if linked { "ok" } else { "failed" });
        g.gl.delete_program(p);
    }
    drop(g);
    Ok(())
}

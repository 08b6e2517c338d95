//! agx16-shadertest: one GLSL ES 3.00 fragment shader drawn over a 16x16 RGBA8 framebuffer
//! object (cleared to (0.1, 0.2, 0.3, 1.0), one full-screen triangle), then glReadPixels;
//! prints `GL_RENDERER: ...` and `pixels: <hex RGBA rows, bottom row first>`; exits non-zero
//! when compiling, linking or a GL call fails.
//!
//! `--case local-array` (issue #14): a `float a[100]` filled in a loop, updated in a loop whose
//! count is a uniform at indices computed from the loop counter, and read at an index from the
//! pixel position. Per pixel, with k = (x + 16 y) % 100 and A the array after the loops:
//! r = (int(A[k]) % 256) / 255, g = (int(A[(k + 37) % 100]) % 256) / 255, b = k / 255, a = 1
//! (every value an integer below 256: exact in unorm8 on any driver). `--n N` sets the loop
//! count uniform (default 50), `--scale S` the fill scale (default 1).
//!
//! `--case hyperbolic` (issue #14, the GLSL asinh/acosh of huge arguments): per pixel
//! x = u_big (a uniform, `--big X`, default 1e30); r = isinf(asinh(x)), g = asinh(x) / 100,
//! b = isinf(acosh(x)), a = acosh(x) / 100 (saturated by the unorm8 target).

use agx16_tests::gles::{
    fullscreen_triangle, gl_error, hex, position_program, read_rgba8, rgba8_target,
};
use glow::HasContext;
use std::process::ExitCode;

const SIZE: i32 = 16;

const VS: &str = "#version 300 es
in vec2 a_pos;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }
";

const FS_LOCAL_ARRAY: &str = "#version 300 es
precision highp float;
precision highp int;
uniform int u_n;
uniform float u_scale;
out vec4 o;
void main() {
    float a[100];
    for (int i = 0; i < 100; i++)
        a[i] = float(i) * u_scale;
    for (int i = 0; i < u_n; i++)
        a[(i * 7) % 100] += a[(i * 13 + 5) % 100];
    int k = (int(gl_FragCoord.x) + 16 * int(gl_FragCoord.y)) % 100;
    o = vec4(float(int(a[k]) % 256) / 255.0, float(int(a[(k + 37) % 100]) % 256) / 255.0,
             float(k) / 255.0, 1.0);
}
";

const FS_HYPERBOLIC: &str = "#version 300 es
precision highp float;
uniform float u_big;
out vec4 o;
void main() {
    float s = asinh(u_big);
    float c = acosh(u_big);
    o = vec4(isinf(s) ? 1.0 : 0.0, s / 100.0, isinf(c) ? 1.0 : 0.0, c / 100.0);
}
";

fn arg<T: std::str::FromStr>(args: &[String], name: &str) -> Option<T> {
    let k = args.iter().position(|a| a == name)?;
    args.get(k + 1)?.parse().ok()
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agx16-shadertest: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let case: String = arg(&args, "--case").ok_or(
        "usage: agx16-shadertest --case local-array|hyperbolic [--n N] [--scale S] [--big X]",
    )?;
    let fs = match case.as_str() {
        "local-array" => FS_LOCAL_ARRAY,
        "hyperbolic" => FS_HYPERBOLIC,
        c => return Err(format!("unknown case {c}")),
    };
    let g = agx16_tests::gles::gles(3)?;
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    let pixels = unsafe {
        let gl = &g.gl;
        println!("GL_RENDERER: {}", g.renderer);
        let fbo = rgba8_target(gl, SIZE)?;
        gl.viewport(0, 0, SIZE, SIZE);
        gl.clear_color(0.1, 0.2, 0.3, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl_error(gl, "glClear")?;
        let program = position_program(gl, VS, fs)?;
        let loc = |n: &str| gl.get_uniform_location(program, n);
        gl.uniform_1_i32(loc("u_n").as_ref(), arg(&args, "--n").unwrap_or(50));
        gl.uniform_1_f32(
            loc("u_scale").as_ref(),
            arg(&args, "--scale").unwrap_or(1.0),
        );
        gl.uniform_1_f32(loc("u_big").as_ref(), arg(&args, "--big").unwrap_or(1e30));
        gl_error(gl, "glUniform")?;
        fullscreen_triangle(gl)?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl_error(gl, "glDrawArrays")?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        read_rgba8(gl, 0, 0, SIZE, SIZE)?
    };
    println!("pixels: {}", hex(&pixels));
    drop(g);
    Ok(())
}

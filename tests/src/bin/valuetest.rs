//! agx16-valuetest: one GLES 3.0 draw whose fragment shader meets the value cases a legal
//! program can produce (issue #14/#17): a texelFetch far outside a 1x1 texture, min() with a
//! NaN operand, uint() of a negative float, integer division of a negative int. Renders a
//! 16x16 RGBA8 framebuffer object cleared to (0.1, 0.2, 0.3, 1.0), then glReadPixels; prints
//! `GL_RENDERER: ...` and `pixels: <hex RGBA>`; exits non-zero when a GL call reports an error.
//!
//! Per pixel: r = texelFetch(tex, ivec2(-110), 0).r (undefined in GLSL; robust access gives 0),
//! g = min(0/0, 0.25) (NaN undefined; minNum gives 0.25), b = (-7 / 2 + 8) / 16 (defined:
//! 5/16), a = uint(-7.5) == 0u ? 1 : 0.5 (undefined; the M4 saturates to 0, measured).

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

const FS: &str = "#version 300 es
precision highp float;
precision highp int;
uniform highp sampler2D u_tex;
uniform float u_zero;
uniform int u_neg;
uniform float u_negf;
out vec4 o;
void main() {
    vec4 t = texelFetch(u_tex, ivec2(-110) + ivec2(u_zero), 0);
    float m = min(u_zero / u_zero, 0.25);
    int q = u_neg / 2;
    uint c = uint(u_negf);
    o = vec4(t.r, m, float(q + 8) / 16.0, c == 0u ? 1.0 : 0.5);
}
";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agx16-valuetest: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let g = agx16_tests::gles::gles(3)?;
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    let pixels = unsafe {
        let gl = &g.gl;
        println!("GL_RENDERER: {}", g.renderer);
        let fbo = rgba8_target(gl, SIZE)?;
        // The sampled texture: 1x1 RGBA8 (200, 150, 100, 50), complete (nearest, one level).
        let tex = gl.create_texture()?;
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            1,
            1,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(&[200, 150, 100, 50])),
        );
        gl.tex_parameter_i32(
            glow::TEXTURE_2D,
            glow::TEXTURE_MIN_FILTER,
            glow::NEAREST as i32,
        );
        gl.tex_parameter_i32(
            glow::TEXTURE_2D,
            glow::TEXTURE_MAG_FILTER,
            glow::NEAREST as i32,
        );
        gl.viewport(0, 0, SIZE, SIZE);
        gl.clear_color(0.1, 0.2, 0.3, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl_error(gl, "glClear")?;
        let program = position_program(gl, VS, FS)?;
        gl.uniform_1_i32(gl.get_uniform_location(program, "u_tex").as_ref(), 0);
        gl.uniform_1_f32(gl.get_uniform_location(program, "u_zero").as_ref(), 0.0);
        gl.uniform_1_i32(gl.get_uniform_location(program, "u_neg").as_ref(), -7);
        gl.uniform_1_f32(gl.get_uniform_location(program, "u_negf").as_ref(), -7.5);
        // One triangle covering the whole target.
        fullscreen_triangle(gl)?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl_error(gl, "glDrawArrays")?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        read_rgba8(gl, 0, 0, SIZE, SIZE)?
    };
    let hex = hex(&pixels);
    println!("pixels: {hex}");
    drop(g);
    Ok(())
}

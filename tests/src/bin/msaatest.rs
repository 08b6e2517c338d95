//! agx16-msaatest SAMPLES [blend]: renders `agx16_tests::msaa_scene` into a SAMPLES-sample
//! RGBA8 renderbuffer (glRenderbufferStorageMultisample), resolves it with glBlitFramebuffer
//! into a single-sampled RGBA8 texture and prints `GL_RENDERER`, `GL_MAX_SAMPLES`, the
//! renderbuffer's `GL_SAMPLES` and `pixels: <hex RGBA, row 0 first>` of the resolved image.
//! With `blend`, each triangle is drawn with alpha `BLEND_ALPHA` and blended
//! (GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA) over the samples it covers. With `window`, the
//! resolve goes into an EGL pbuffer's window-system framebuffer instead (Mesa keeps
//! window-system framebuffers upside down, so the blit reaches the driver flipped) and the
//! pixels are read from there. With `scissor`, the destination is first cleared to 0 and the
//! resolve runs with the scissor test on `SCISSOR` (x, y, width, height). With `rgba32f`, the
//! renderbuffer and the resolved texture are RGBA32F (with `rgba16f`: RGBA16F) (EXT_color_buffer_float; read back as
//! floats and printed as x 255 rounded to 8 bits); with `finish`, glFinish after each triangle
//! ends the render, so every later triangle's render reloads the samples from memory. With
//! `a2c`, GL_SAMPLE_ALPHA_TO_COVERAGE is on during the draws. With `surface`, the scene is drawn
//! straight into a SAMPLES-sample EGL pbuffer (a multisampled window-system framebuffer) and read
//! back with glReadPixels, which resolves it; `GL_SAMPLES` is then the framebuffer's.

use agx16_tests::gles::{gl_error, hex, position_program, read_rgba8};
use agx16_tests::msaa_scene::{BLEND_ALPHA, CLEAR, SCISSOR, SIZE, TRIANGLES};
use glow::HasContext;
use std::process::ExitCode;

const VS: &str = "#version 300 es
in vec2 a_pos;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }
";

const FS: &str = "#version 300 es
precision highp float;
uniform vec4 u_col;
out vec4 o;
void main() { o = u_col; }
";

fn main() -> ExitCode {
    let samples: i32 = std::env::args()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    let opts: Vec<String> = std::env::args().skip(2).collect();
    let opt = |name: &str| opts.iter().any(|o| o == name);
    let o = Opts {
        blended: opt("blend"),
        window: opt("window"),
        scissor: opt("scissor"),
        float: opt("rgba32f") || opt("rgba16f"),
        half: opt("rgba16f"),
        finish: opt("finish"),
        a2c: opt("a2c"),
        surface: opt("surface"),
    };
    match run(samples, o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agx16-msaatest: {e}");
            ExitCode::FAILURE
        }
    }
}

struct Opts {
    blended: bool,
    window: bool,
    scissor: bool,
    float: bool,
    /// RGBA16F instead of RGBA32F (with `float`).
    half: bool,
    finish: bool,
    a2c: bool,
    surface: bool,
}

fn run(samples: i32, o: Opts) -> Result<(), String> {
    let Opts {
        blended,
        window,
        scissor,
        float,
        half,
        finish,
        a2c,
        surface,
    } = o;
    let format = match (float, half) {
        (true, true) => glow::RGBA16F,
        (true, false) => glow::RGBA32F,
        _ => glow::RGBA8,
    };
    let n = SIZE as i32;
    let g = if surface {
        agx16_tests::gles::gles_pbuffer_samples(3, n, n, samples)?
    } else if window {
        agx16_tests::gles::gles_pbuffer(3, n, n)?
    } else {
        agx16_tests::gles::gles(3)?
    };
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    unsafe {
        let gl = &g.gl;
        println!("GL_RENDERER: {}", g.renderer);
        println!(
            "GL_MAX_SAMPLES: {}",
            gl.get_parameter_i32(glow::MAX_SAMPLES)
        );
        let p = position_program(gl, VS, FS)?;
        let col = gl.get_uniform_location(p, "u_col");

        // The draws' framebuffer: a multisampled renderbuffer's, or the multisampled pbuffer.
        let ms = if surface {
            let got = gl.get_parameter_i32(glow::SAMPLES);
            println!("GL_SAMPLES: {got}");
            None
        } else {
            Some(ms_framebuffer(gl, samples, format, n)?)
        };
        gl.viewport(0, 0, n, n);
        let c = CLEAR.map(|v| v as f32 / 255.0);
        gl.clear_color(c[0], c[1], c[2], c[3]);
        gl.clear(glow::COLOR_BUFFER_BIT);

        if a2c {
            gl.enable(glow::SAMPLE_ALPHA_TO_COVERAGE);
        }
        if blended {
            gl.enable(glow::BLEND);
            gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
        }
        let vb = gl.create_buffer()?;
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(vb));
        gl.enable_vertex_attrib_array(0);
        for (t, rgba) in TRIANGLES {
            // Window position w (1/256 pixel) as NDC (w/256 - 32)/32: exact in f32.
            let ndc: Vec<f32> = t
                .iter()
                .flat_map(|v| v.map(|w| (w as f32 / 256.0 - n as f32 / 2.0) / (n as f32 / 2.0)))
                .collect();
            let bytes: Vec<u8> = ndc.iter().flat_map(|f| f.to_le_bytes()).collect();
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STREAM_DRAW);
            gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 0, 0);
            let a = if blended { BLEND_ALPHA } else { rgba[3] };
            let c = [rgba[0], rgba[1], rgba[2], a].map(|v| v as f32 / 255.0);
            gl.uniform_4_f32(col.as_ref(), c[0], c[1], c[2], c[3]);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            if finish {
                gl.finish();
            }
        }
        gl_error(gl, "draws")?;
        gl.disable(glow::BLEND);
        gl.disable(glow::SAMPLE_ALPHA_TO_COVERAGE);

        // The resolve's destination: a single-sampled texture, or the pbuffer (framebuffer 0); a
        // multisampled pbuffer is read as it is (glReadPixels resolves).
        let resolved = if window || surface {
            None
        } else {
            let tex = gl.create_texture()?;
            gl.bind_texture(glow::TEXTURE_2D, Some(tex));
            gl.tex_storage_2d(glow::TEXTURE_2D, 1, format, n, n);
            let fb = gl.create_framebuffer()?;
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(fb));
            gl.framebuffer_texture_2d(
                glow::DRAW_FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                Some(tex),
                0,
            );
            Some(fb)
        };
        gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, resolved);
        if scissor {
            gl.clear_color(0.0, 0.0, 0.0, 0.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.enable(glow::SCISSOR_TEST);
            gl.scissor(SCISSOR[0], SCISSOR[1], SCISSOR[2], SCISSOR[3]);
        }
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, ms);
        if !surface {
            resolve(gl, n)?;
        }
        gl.disable(glow::SCISSOR_TEST);
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, resolved);
        let px = if float {
            let mut f = vec![0u8; (n * n * 16) as usize];
            gl.read_pixels(
                0,
                0,
                n,
                n,
                glow::RGBA,
                glow::FLOAT,
                glow::PixelPackData::Slice(Some(&mut f)),
            );
            gl_error(gl, "glReadPixels(FLOAT)")?;
            f.chunks_exact(4)
                .map(|c| {
                    let v = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                    (v * 255.0).round().clamp(0.0, 255.0) as u8
                })
                .collect()
        } else {
            read_rgba8(gl, 0, 0, n, n)?
        };
        let hex = hex(&px);
        println!("pixels: {hex}");
    }
    Ok(())
}

/// A complete framebuffer with a `samples`-sample `format` renderbuffer, bound.
///
/// # Safety
/// A current context.
unsafe fn ms_framebuffer(
    gl: &glow::Context,
    samples: i32,
    format: u32,
    n: i32,
) -> Result<glow::Framebuffer, String> {
    let rb = gl.create_renderbuffer()?;
    gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
    gl.renderbuffer_storage_multisample(glow::RENDERBUFFER, samples, format, n, n);
    gl_error(gl, "glRenderbufferStorageMultisample")?;
    let got = gl.get_renderbuffer_parameter_i32(glow::RENDERBUFFER, glow::RENDERBUFFER_SAMPLES);
    println!("GL_SAMPLES: {got}");
    let ms = gl.create_framebuffer()?;
    gl.bind_framebuffer(glow::FRAMEBUFFER, Some(ms));
    gl.framebuffer_renderbuffer(
        glow::FRAMEBUFFER,
        glow::COLOR_ATTACHMENT0,
        glow::RENDERBUFFER,
        Some(rb),
    );
    let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
    if status != glow::FRAMEBUFFER_COMPLETE {
        return Err(format!("multisampled framebuffer status {status:#x}"));
    }
    Ok(ms)
}

/// The resolve: glBlitFramebuffer of the whole image from the read to the draw framebuffer.
///
/// # Safety
/// A current context.
unsafe fn resolve(gl: &glow::Context, n: i32) -> Result<(), String> {
    gl.blit_framebuffer(
        0,
        0,
        n,
        n,
        0,
        0,
        n,
        n,
        glow::COLOR_BUFFER_BIT,
        glow::NEAREST,
    );
    gl_error(gl, "glBlitFramebuffer")?;
    Ok(())
}

//! agx16-robusttest: a legal application that works for a long time or does something wrong
//! never loses work silently (#17).
//!
//! `agx16-robusttest programs N`: N times, links a new program (constants baked into its
//! source, so each is a distinct pair of shaders), draws a full-target triangle with it into
//! a 16x16 RGBA8 target, reads the target back and deletes the program. Prints
//! `GL_RENDERER` and one `frame <i>: <hex RGBA bytes>` line per program.
//!
//! `agx16-robusttest reset robust|plain [hang]`: a context made with
//! EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT = EGL_LOSE_CONTEXT_ON_RESET_EXT (`robust`)
//! or without (`plain`), KHR_debug output on. With `hang` (always for `robust`) it first draws
//! a fragment shader that never ends and waits (glFinish): the job watchdog fails that render.
//! Prints `reset_status: <glGetGraphicsResetStatusEXT>`; `robust` then prints `error_after:
//! <glGetError after a glClear>`, `plain` draws a known frame and prints it as `frame 0: <hex>`;
//! last `debug_errors: <KHR_debug error messages>` and the first as `debug: <text>`.

use agx16_tests::gles::{gl_error, shader};
use glow::HasContext;
use std::process::ExitCode;

const SIZE: i32 = 16;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let n: u32 = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(100);
    let r = match args.get(1).map(String::as_str) {
        Some("programs") => run_programs(n),
        Some("reset") => run_reset(
            args.get(2).map(String::as_str) == Some("robust"),
            args.iter().any(|a| a == "hang"),
        ),
        _ => Err("usage: agx16-robusttest programs N | reset robust|plain [hang]".into()),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agx16-robusttest: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Links `vs` and `fs` with attribute 0 at `a_pos`.
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn program(gl: &glow::Context, vs: &str, fs: &str) -> Result<glow::Program, String> {
    let p = gl.create_program()?;
    let mut shaders = Vec::new();
    for (kind, src) in [(glow::VERTEX_SHADER, vs), (glow::FRAGMENT_SHADER, fs)] {
        let s = shader(gl, kind, src)?;
        gl.attach_shader(p, s);
        shaders.push(s);
    }
    gl.bind_attrib_location(p, 0, "a_pos");
    gl.link_program(p);
    for s in shaders {
        gl.detach_shader(p, s);
        gl.delete_shader(s);
    }
    if !gl.get_program_link_status(p) {
        return Err(format!("link: {}", gl.get_program_info_log(p)));
    }
    Ok(p)
}

/// A 16x16 RGBA8 texture bound as the framebuffer's colour target, viewport set.
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn target(gl: &glow::Context) -> Result<(), String> {
    let t = gl.create_texture()?;
    gl.bind_texture(glow::TEXTURE_2D, Some(t));
    gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::RGBA8, SIZE, SIZE);
    let fbo = gl.create_framebuffer()?;
    gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
    gl.framebuffer_texture_2d(
        glow::FRAMEBUFFER,
        glow::COLOR_ATTACHMENT0,
        glow::TEXTURE_2D,
        Some(t),
        0,
    );
    gl.viewport(0, 0, SIZE, SIZE);
    gl_error(gl, "target")
}

/// The target's bytes as hex.
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn frame_hex(gl: &glow::Context) -> Result<String, String> {
    let mut px = vec![0u8; (SIZE * SIZE * 4) as usize];
    gl.read_pixels(
        0,
        0,
        SIZE,
        SIZE,
        glow::RGBA,
        glow::UNSIGNED_BYTE,
        glow::PixelPackData::Slice(Some(&mut px)),
    );
    gl_error(gl, "glReadPixels")?;
    Ok(px.iter().map(|b| format!("{b:02x}")).collect())
}

fn run_programs(n: u32) -> Result<(), String> {
    let g = agx16_tests::gles::gles(3)?;
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    unsafe {
        let gl = &g.gl;
        println!("GL_RENDERER: {}", g.renderer);
        target(gl)?;
        let vbo = gl.create_buffer()?;
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
        let tri: [f32; 6] = [-1.0, -1.0, 3.0, -1.0, -1.0, 3.0];
        let bytes: Vec<u8> = tri.iter().flat_map(|f| f.to_le_bytes()).collect();
        gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);
        for i in 0..n {
            // Constants that differ per program: a stale entry block or body draws the
            // wrong colours.
            let (a, b) = (
                (i * 37 % 251) as f32 / 255.0,
                (i * 101 % 241) as f32 / 255.0,
            );
            let vs = format!(
                "#version 300 es
in vec2 a_pos;
out vec2 v_uv;
void main() {{
    v_uv = a_pos * {:.6} + vec2({a:.6}, {b:.6});
    gl_Position = vec4(a_pos, 0.0, 1.0);
}}
",
                0.25 + (i % 5) as f32 * 0.05
            );
            let fs = format!(
                "#version 300 es
precision highp float;
in vec2 v_uv;
out vec4 o;
void main() {{ o = vec4(fract(v_uv), {b:.6}, {a:.6}); }}
"
            );
            let p = program(gl, &vs, &fs)?;
            gl.use_program(Some(p));
            gl.clear_color(0.0, 0.0, 0.0, 0.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl_error(gl, "glDrawArrays")?;
            println!("frame {i}: {}", frame_hex(gl)?);
            gl.use_program(None);
            gl.delete_program(p);
        }
    }
    Ok(())
}

/// EGL_EXT_create_context_robustness.
const EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT: i32 = 0x3138;
const EGL_LOSE_CONTEXT_ON_RESET_EXT: i32 = 0x31BF;

const HANG_FS: &str = "#version 300 es
precision highp float;
precision highp int;
uniform int u_n;
out vec4 o;
void main() {
    uint x = 1u;
    // u_n is 0: the loop never ends, and nothing at compile time says so.
    while (u_n >= 0) {
        x = x * 1664525u + 1013904223u;
    }
    o = vec4(float(x & 255u) / 255.0);
}
";

const PLAIN_VS: &str = "#version 300 es
in vec2 a_pos;
out vec2 v_uv;
void main() {
    v_uv = a_pos * 0.5 + 0.5;
    gl_Position = vec4(a_pos, 0.0, 1.0);
}
";

const PLAIN_FS: &str = "#version 300 es
precision highp float;
in vec2 v_uv;
out vec4 o;
void main() { o = vec4(v_uv, 0.25, 1.0); }
";

fn run_reset(robust: bool, hang: bool) -> Result<(), String> {
    let attribs = [
        EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT,
        EGL_LOSE_CONTEXT_ON_RESET_EXT,
    ];
    let mut g = agx16_tests::gles::gles_with(3, if robust { &attribs } else { &[] })?;
    let status_fn = g
        .egl
        .get_proc_address("glGetGraphicsResetStatusEXT")
        .ok_or("no glGetGraphicsResetStatusEXT")?;
    // SAFETY: the GL_EXT_robustness entry point: GLenum (void).
    let reset_status: extern "system" fn() -> u32 = unsafe { std::mem::transmute(status_fn) };
    let errors = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    unsafe {
        let e = errors.clone();
        g.gl.debug_message_callback(move |_, ty, _, _, msg| {
            if ty == glow::DEBUG_TYPE_ERROR {
                e.lock().unwrap().push(msg.to_string());
            }
        });
        let gl = &g.gl;
        gl.enable(glow::DEBUG_OUTPUT);
        gl.enable(glow::DEBUG_OUTPUT_SYNCHRONOUS);
        println!("GL_RENDERER: {}", g.renderer);
        target(gl)?;
        let vbo = gl.create_buffer()?;
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
        let tri: [f32; 6] = [-1.0, -1.0, 3.0, -1.0, -1.0, 3.0];
        let bytes: Vec<u8> = tri.iter().flat_map(|f| f.to_le_bytes()).collect();
        gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);
        if hang || robust {
            let p = program(gl, PLAIN_VS, HANG_FS)?;
            gl.use_program(Some(p));
            gl.uniform_1_i32(gl.get_uniform_location(p, "u_n").as_ref(), 0);
            gl.clear_color(0.5, 0.5, 0.5, 1.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl_error(gl, "glDrawArrays")?;
            gl.finish();
        }
        println!("reset_status: {:#x}", reset_status());
        if robust {
            gl.clear(glow::COLOR_BUFFER_BIT);
            println!("error_after: {:#x}", gl.get_error());
        } else {
            // The context keeps working: a known frame draws as on any other context.
            let p = program(gl, PLAIN_VS, PLAIN_FS)?;
            gl.use_program(Some(p));
            gl.clear_color(0.0, 0.0, 0.0, 0.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl_error(gl, "glDrawArrays")?;
            println!("frame 0: {}", frame_hex(gl)?);
        }
    }
    // Messages sent by then (a failure is learnt when its render is retired: at the reset
    // query, or the next flush).
    let msgs = errors.lock().unwrap().clone();
    println!("debug_errors: {}", msgs.len());
    if let Some(m) = msgs.first() {
        println!("debug: {}", m.replace('\n', " "));
    }
    Ok(())
}

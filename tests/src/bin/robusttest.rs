//! agx16-robusttest: a legal application that works for a long time or does something wrong
//! never loses work silently (#17).
//!
//! `agx16-robusttest programs N`: N times, links a new program (constants baked into its
//! source, so each is a distinct pair of shaders), draws a full-target triangle with it into
//! a 16x16 RGBA8 target, reads the target back and deletes the program. Prints
//! `GL_RENDERER` and one `frame <i>: <hex RGBA bytes>` line per program.
//!
//! `agx16-robusttest reset robust|plain [hang]`: a context made with
//! EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT = EGL_LOSE_CONTEXT_ON_RESET_EXT and
//! EGL_CONTEXT_OPENGL_ROBUST_ACCESS_EXT (`robust`) or without (`plain`), KHR_debug output on;
//! prints the robustness extensions present (`robustness: ...`) and
//! GL_CONTEXT_ROBUST_ACCESS_EXT (`robust_access`). With `hang` (always for `robust`) it first draws
//! a fragment shader that never ends and waits (glFinish): the job watchdog fails that render.
//! Prints `reset_status: <glGetGraphicsResetStatusEXT>`; `robust` then prints `error_after:
//! <glGetError after a glClear>`, `plain` draws a known frame and prints it as `frame 0: <hex>`;
//! last `debug_errors: <KHR_debug error messages>` and the first as `debug: <text>`.
//!
//! `agx16-robusttest fetch`: vertex and index fetches out of range, each case a frame
//! (`frame <i>: <hex>`) cleared to 0.1 and drawn with a flat colour attribute whose buffer
//! holds only the values 0.2, 0.4, 0.6 and 0.8: 0) two triangles, the right one's provoking
//! vertex past the colour buffer's end; 1) a colour attribute offset past its buffer's end;
//! 2) a left triangle in range, then (scissored to the right half) one with indices
//! 0xFFFFFFFF and 0xFFFFFFF0; 3) 12,000 indices read from a buffer of
//! three; 4) a uniform block of four colours read at index 2 (left half) and at index
//! 100,000 (right half). Then `debug_errors: <KHR_debug errors>`.
//!
//! `agx16-robusttest pressure N`: links a fragment shader holding N vec4 values live at once
//! (a chain from the varying, then consumed last-made first) and draws one pixel with it;
//! prints `link_seconds` (glLinkProgram: the link-time compile), `draw_seconds` (the first
//! draw and readback: the draw variant's compile and the run), `link: ok|<log>` and `pixel`.

use agx16_tests::gles::{fullscreen_triangle, gl_error, hex, read_rgba8, rgba8_target, shader};
use glow::HasContext;
use std::process::ExitCode;

const SIZE: i32 = 16;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let n: u32 = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(100);
    let r = match args.get(1).map(String::as_str) {
        Some("programs") => run_programs(n),
        Some("fetch") => run_fetch(),
        Some("pressure") => run_pressure(n),
        Some("reset") => run_reset(
            args.get(2).map(String::as_str) == Some("robust"),
            args.iter().any(|a| a == "hang"),
        ),
        _ => Err(
            "usage: agx16-robusttest programs N | reset robust|plain [hang] | fetch | pressure N"
                .into(),
        ),
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
    rgba8_target(gl, SIZE)?;
    gl.viewport(0, 0, SIZE, SIZE);
    gl_error(gl, "target")
}

/// The target's bytes as hex.
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn frame_hex(gl: &glow::Context) -> Result<String, String> {
    let px = read_rgba8(gl, 0, 0, SIZE, SIZE)?;
    Ok(hex(&px))
}

fn run_programs(n: u32) -> Result<(), String> {
    let g = agx16_tests::gles::gles(3)?;
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    unsafe {
        let gl = &g.gl;
        println!("GL_RENDERER: {}", g.renderer);
        target(gl)?;
        fullscreen_triangle(gl)?;
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
const EGL_CONTEXT_OPENGL_ROBUST_ACCESS_EXT: i32 = 0x30BF;

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
        EGL_CONTEXT_OPENGL_ROBUST_ACCESS_EXT,
        1,
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
        let ext = gl.supported_extensions();
        let mut robustness: Vec<&str> = ["GL_KHR_robustness", "GL_EXT_robustness"]
            .into_iter()
            .filter(|e| ext.contains(*e))
            .collect();
        let egl_ext = g
            .egl
            .query_string(Some(g.display), khronos_egl::EXTENSIONS)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if egl_ext
            .split(' ')
            .any(|e| e == "EGL_EXT_create_context_robustness")
        {
            robustness.push("EGL_EXT_create_context_robustness");
        }
        println!("robustness: {}", robustness.join(" "));
        // GL_CONTEXT_ROBUST_ACCESS_EXT (GL_EXT_robustness).
        let robust_access = ext.contains("GL_EXT_robustness") && {
            let v = gl.get_parameter_i32(0x90F3) != 0;
            gl_error(gl, "glGetIntegerv(GL_CONTEXT_ROBUST_ACCESS_EXT)")?;
            v
        };
        println!("robust_access: {robust_access}");
        target(gl)?;
        fullscreen_triangle(gl)?;
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

const FLAT_VS: &str = "#version 300 es
in vec2 a_pos;
in vec4 a_col;
flat out vec4 v_col;
void main() {
    v_col = a_col;
    gl_Position = vec4(a_pos, 0.0, 1.0);
}
";

const UBO_FS: &str = "#version 300 es
precision highp float;
uniform Colours { vec4 c[4]; };
uniform int u_i;
out vec4 o;
void main() { o = c[u_i]; }
";

const FLAT_FS: &str = "#version 300 es
precision highp float;
flat in vec4 v_col;
out vec4 o;
void main() { o = v_col; }
";

/// A buffer object of `floats` bound to `target`.
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn buffer(gl: &glow::Context, target: u32, data: &[u8]) -> Result<glow::Buffer, String> {
    let b = gl.create_buffer()?;
    gl.bind_buffer(target, Some(b));
    gl.buffer_data_u8_slice(target, data, glow::STATIC_DRAW);
    Ok(b)
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn run_fetch() -> Result<(), String> {
    let mut g = agx16_tests::gles::gles(3)?;
    let errors = std::sync::Arc::new(std::sync::Mutex::new(0u32));
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    unsafe {
        let e = errors.clone();
        g.gl.debug_message_callback(move |_, ty, _, _, _| {
            if ty == glow::DEBUG_TYPE_ERROR {
                *e.lock().unwrap() += 1;
            }
        });
        let gl = &g.gl;
        gl.enable(glow::DEBUG_OUTPUT);
        gl.enable(glow::DEBUG_OUTPUT_SYNCHRONOUS);
        println!("GL_RENDERER: {}", g.renderer);
        target(gl)?;
        let p = gl.create_program()?;
        for (kind, src) in [
            (glow::VERTEX_SHADER, FLAT_VS),
            (glow::FRAGMENT_SHADER, FLAT_FS),
        ] {
            let s = shader(gl, kind, src)?;
            gl.attach_shader(p, s);
        }
        gl.bind_attrib_location(p, 0, "a_pos");
        gl.bind_attrib_location(p, 1, "a_col");
        gl.link_program(p);
        if !gl.get_program_link_status(p) {
            return Err(format!("link: {}", gl.get_program_info_log(p)));
        }
        gl.use_program(Some(p));
        let vao = gl.create_vertex_array()?;
        gl.bind_vertex_array(Some(vao));
        gl.enable_vertex_attrib_array(0);
        gl.enable_vertex_attrib_array(1);
        // Left triangle (columns 0..7) and right triangle (columns 8..15).
        let two = f32_bytes(&[
            -1.0, -1.0, 0.0, -1.0, -1.0, 1.0, // left
            0.0, -1.0, 1.0, -1.0, 1.0, 1.0, // right
        ]);
        let colours = |n: usize| -> Vec<u8> {
            let v = [0.2f32, 0.4, 0.6, 0.8];
            f32_bytes(
                &(0..4 * n)
                    .map(|i| v[(i * 3 + i / 4) % 4])
                    .collect::<Vec<_>>(),
            )
        };
        let clear = |gl: &glow::Context| {
            gl.disable(glow::SCISSOR_TEST);
            gl.clear_color(0.1, 0.1, 0.1, 0.1);
            gl.clear(glow::COLOR_BUFFER_BIT);
        };
        let pos = buffer(gl, glow::ARRAY_BUFFER, &two)?;
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);

        // 0: three colours for six vertices: the right triangle's are past the end.
        buffer(gl, glow::ARRAY_BUFFER, &colours(3))?;
        gl.vertex_attrib_pointer_f32(1, 4, glow::FLOAT, false, 16, 0);
        clear(gl);
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        gl_error(gl, "case 0")?;
        println!("frame 0: {}", frame_hex(gl)?);

        // 1: the colour attribute starts 4096 bytes into a 48-byte buffer.
        gl.vertex_attrib_pointer_f32(1, 4, glow::FLOAT, false, 16, 4096);
        clear(gl);
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        gl_error(gl, "case 1")?;
        println!("frame 1: {}", frame_hex(gl)?);

        // 2: in range on the left; indices far out of range on the right (scissored there).
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(pos));
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);
        buffer(gl, glow::ARRAY_BUFFER, &colours(6))?;
        gl.vertex_attrib_pointer_f32(1, 4, glow::FLOAT, false, 16, 0);
        let idx: Vec<u8> = [0u32, 1, 2, 3, 0xFFFF_FFFF, 0xFFFF_FFF0]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        buffer(gl, glow::ELEMENT_ARRAY_BUFFER, &idx)?;
        clear(gl);
        gl.draw_elements(glow::TRIANGLES, 3, glow::UNSIGNED_INT, 0);
        gl.enable(glow::SCISSOR_TEST);
        gl.scissor(8, 0, 8, 16);
        gl.draw_elements(glow::TRIANGLES, 3, glow::UNSIGNED_INT, 12);
        gl.disable(glow::SCISSOR_TEST);
        gl_error(gl, "case 2")?;
        println!("frame 2: {}", frame_hex(gl)?);

        // 3: 12,000 indices (48 KB) from a buffer of three: all but three past its end.
        let idx: Vec<u8> = [0u32, 1, 2].iter().flat_map(|i| i.to_le_bytes()).collect();
        buffer(gl, glow::ELEMENT_ARRAY_BUFFER, &idx)?;
        clear(gl);
        gl.draw_elements(glow::TRIANGLES, 12_000, glow::UNSIGNED_INT, 0);
        gl_error(gl, "case 3")?;
        println!("frame 3: {}", frame_hex(gl)?);

        // 4: a uniform block array indexed by a uniform, in range and far past its end.
        let p = program(gl, PLAIN_VS, UBO_FS)?;
        gl.use_program(Some(p));
        gl.bind_vertex_array(None);
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(pos));
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);
        let ubo = buffer(gl, glow::UNIFORM_BUFFER, &colours(4))?;
        let block = gl
            .get_uniform_block_index(p, "Colours")
            .ok_or("no block Colours")?;
        gl.uniform_block_binding(p, block, 0);
        gl.bind_buffer_base(glow::UNIFORM_BUFFER, 0, Some(ubo));
        let at = gl.get_uniform_location(p, "u_i");
        clear(gl);
        gl.enable(glow::SCISSOR_TEST);
        for (x, i) in [(0, 2), (8, 100_000)] {
            gl.scissor(x, 0, 8, 16);
            gl.uniform_1_i32(at.as_ref(), i);
            // Both triangles: the scissor keeps the half.
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
        }
        gl.disable(glow::SCISSOR_TEST);
        gl_error(gl, "case 4")?;
        println!("frame 4: {}", frame_hex(gl)?);
    }
    println!("debug_errors: {}", errors.lock().unwrap());
    Ok(())
}

/// A fragment shader with `n` vec4 values live at once: a chain, each made from the one before
/// by its own constants, then folded last-made first, so every one lives to the end.
fn pressure_fs(n: u32) -> String {
    let mut src = String::from(
        "#version 300 es\nprecision highp float;\nin vec2 v_uv;\nout vec4 o;\nvoid main() {\n    vec4 v = vec4(v_uv, v_uv.yx);\n",
    );
    for i in 0..n {
        let k = 1.0 + i as f32 * 0.37;
        // Each from the one before: none can be computed late, next to its last use.
        let prev = if i == 0 {
            "v".to_string()
        } else {
            format!("a{}", i - 1)
        };
        src += &format!(
            "    vec4 a{i} = fract({prev} * {k:.3} + vec4({:.3}, {:.3}, {:.3}, {:.3}));\n",
            0.11 * i as f32,
            0.07 * i as f32,
            0.05 * i as f32,
            0.03 * i as f32
        );
    }
    src += &format!("    vec4 s = a{};\n", n - 1);
    for i in (0..n.saturating_sub(1)).rev() {
        src += &format!("    s = fract(s * 1.7 + a{i});\n");
    }
    src += "    o = s;\n}\n";
    src
}

fn run_pressure(n: u32) -> Result<(), String> {
    let g = agx16_tests::gles::gles(3)?;
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    unsafe {
        let gl = &g.gl;
        println!("GL_RENDERER: {}", g.renderer);
        target(gl)?;
        gl.viewport(0, 0, 1, 1);
        let fs = pressure_fs(n.max(1));
        let p = gl.create_program()?;
        for (kind, src) in [
            (glow::VERTEX_SHADER, PLAIN_VS),
            (glow::FRAGMENT_SHADER, &fs[..]),
        ] {
            let s = shader(gl, kind, src)?;
            gl.attach_shader(p, s);
        }
        gl.bind_attrib_location(p, 0, "a_pos");
        let t = std::time::Instant::now();
        gl.link_program(p);
        println!("link_seconds: {:.3}", t.elapsed().as_secs_f64());
        if !gl.get_program_link_status(p) {
            println!("link: {}", gl.get_program_info_log(p).replace('\n', " "));
            return Ok(());
        }
        println!("link: ok");
        gl.use_program(Some(p));
        let vbo = gl.create_buffer()?;
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
        let tri: [f32; 6] = [-1.0, -1.0, 3.0, -1.0, -1.0, 3.0];
        gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &f32_bytes(&tri), glow::STATIC_DRAW);
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);
        let t = std::time::Instant::now();
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        let px = read_rgba8(gl, 0, 0, 1, 1)?;
        println!("draw_seconds: {:.3}", t.elapsed().as_secs_f64());
        println!(
            "pixel: {:02x}{:02x}{:02x}{:02x}",
            px[0], px[1], px[2], px[3]
        );
    }
    Ok(())
}

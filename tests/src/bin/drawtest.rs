//! agx16-drawtest: renders one frame with GLES 2.0 on surfaceless EGL into a 64x64 RGBA8
//! framebuffer object and prints it, for comparison with softpipe rendering the same frame.
//!
//! Frame: glClear to (0.1, 0.2, 0.3, 1.0); unless `--clear-only`, a triangle from a vertex
//! buffer (position and colour attributes) with a colour varying, glDrawArrays(GL_TRIANGLES).
//! `--depth-elements`: a 16-bit depth renderbuffer too, cleared to 1 with the colour; the
//! depth test LESS; two overlapping triangles from glDrawElements (u16 indices), the nearer
//! one first, and the fragment colour scaled by a uniform.
//! `--size N`: an NxN target instead of 64x64 (the triangle scales with it).
//! `--many-uniforms`: GLSL ES 3.00 shaders on a GLES 3 context whose vertex shader reads three
//! mat4s, a mat3x4 and a mat2 (82 uniform words: more than a launcher transfers, so the default
//! block is read from memory) to place and colour the triangle.
//! `--tiny-draws N`: after the frame, N draws of a one-pixel triangle with a uniform change
//! before each, timed through the glReadPixels that follows (printed as `tiny-draws: N in S s`;
//! the per-draw cost of the stack, issue #16).
//! Then glReadPixels. Prints `GL_RENDERER: ...`, `size: 64x64` and `pixels: <hex RGBA rows>`;
//! exits non-zero when a GL call reports an error.

use agx16_tests::gles::{gl_error, hex, read_rgba8, shader};
use glow::HasContext;
use std::process::ExitCode;

/// Default square target size; `--size N` picks another (N in 1..=4096).
const SIZE: i32 = 64;

const VS: &str = "attribute vec4 a_pos;
attribute vec4 a_col;
varying vec4 v_col;
void main() {
    gl_Position = a_pos;
    v_col = a_col;
}
";

const FS: &str = "precision mediump float;
varying vec4 v_col;
uniform vec4 u_tint;
void main() {
    gl_FragColor = v_col * u_tint;
}
";

/// x, y, z, w, r, g, b, a per vertex; corners off the pixel-centre grid so coverage does not
/// depend on tie-breaking.
const VERTICES: [f32; 48] = [
    -0.8, -0.7, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, //
    0.75, -0.55, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, //
    -0.1, 0.85, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, //
    // A second triangle for --depth-elements, further away, crossing the first.
    -0.9, 0.3, 0.6, 1.0, 1.0, 1.0, 0.0, 1.0, //
    0.85, 0.1, 0.6, 1.0, 0.0, 1.0, 1.0, 1.0, //
    0.2, -0.9, 0.6, 1.0, 1.0, 0.0, 1.0, 1.0,
];
const TINT: [f32; 4] = [0.9, 0.8, 0.7, 1.0];

const VS_MANY: &str = "#version 300 es
uniform mat4 u_model;
uniform mat4 u_view;
uniform mat4 u_proj;
uniform mat3x4 u_m34;
uniform mat2 u_m2;
in vec4 a_pos;
in vec4 a_col;
out vec4 v_col;
void main() {
    gl_Position = u_proj * u_view * u_model * a_pos;
    vec4 c = u_m34 * a_col.xyz;
    vec2 t = u_m2 * a_col.xy;
    v_col = clamp(c + vec4(t, 0.0, 0.0), 0.0, 1.0);
}
";

const FS_MANY: &str = "#version 300 es
precision mediump float;
in vec4 v_col;
uniform vec4 u_tint;
out vec4 o;
void main() {
    o = v_col * u_tint;
}
";

/// Column-major uniform values of `--many-uniforms`: a model matrix with scale and shear, a
/// view translation, a projection scaling z, colour mixes.
const MODEL: [f32; 16] = [
    0.9, 0.1, 0.0, 0.0, -0.05, 0.85, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];
const VIEW: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.04, -0.03, 0.1, 1.0,
];
const PROJ: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 1.0,
];
const M34: [f32; 12] = [0.6, 0.1, 0.2, 0.5, 0.2, 0.5, 0.1, 0.3, 0.1, 0.2, 0.7, 0.4];
const M2: [f32; 4] = [0.1, 0.05, -0.05, 0.15];

fn main() -> ExitCode {
    let clear_only = std::env::args().any(|a| a == "--clear-only");
    let depth = std::env::args().any(|a| a == "--depth-elements");
    let many = std::env::args().any(|a| a == "--many-uniforms");
    let args: Vec<String> = std::env::args().collect();
    let size = match args.iter().position(|a| a == "--size") {
        None => SIZE,
        Some(i) => match args.get(i + 1).and_then(|v| v.parse::<i32>().ok()) {
            Some(n) if (1..=4096).contains(&n) => n,
            _ => {
                eprintln!("agx16-drawtest: --size takes a side length in 1..=4096");
                return ExitCode::FAILURE;
            }
        },
    };
    let tiny = match args.iter().position(|a| a == "--tiny-draws") {
        None => 0,
        Some(i) => match args.get(i + 1).and_then(|v| v.parse::<u32>().ok()) {
            Some(n) => n,
            None => {
                eprintln!("agx16-drawtest: --tiny-draws takes a count");
                return ExitCode::FAILURE;
            }
        },
    };
    match run(clear_only, depth, many, size, tiny) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agx16-drawtest: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(clear_only: bool, depth: bool, many: bool, size: i32, tiny: u32) -> Result<(), String> {
    let g = if many {
        agx16_tests::gles::gles(3)?
    } else {
        agx16_tests::gles::gles2()?
    };
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    let (pixels, took) = unsafe {
        let gl = &g.gl;
        println!("GL_RENDERER: {}", g.renderer);
        let tex = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            glow::RGBA as i32,
            size,
            size,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(None),
        );
        let fbo = gl.create_framebuffer()?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        gl.framebuffer_texture_2d(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            Some(tex),
            0,
        );
        if depth {
            let rb = gl.create_renderbuffer()?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
            gl.renderbuffer_storage(glow::RENDERBUFFER, glow::DEPTH_COMPONENT16, size, size);
            gl.framebuffer_renderbuffer(
                glow::FRAMEBUFFER,
                glow::DEPTH_ATTACHMENT,
                glow::RENDERBUFFER,
                Some(rb),
            );
        }
        if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
            return Err("framebuffer incomplete".into());
        }
        gl.viewport(0, 0, size, size);
        gl.clear_color(0.1, 0.2, 0.3, 1.0);
        if depth {
            gl.clear_depth_f32(1.0);
            gl.enable(glow::DEPTH_TEST);
            gl.depth_func(glow::LESS);
            gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT);
        } else {
            gl.clear(glow::COLOR_BUFFER_BIT);
        }
        gl_error(gl, "glClear")?;
        if !clear_only {
            let program = gl.create_program()?;
            let (vs_src, fs_src) = if many { (VS_MANY, FS_MANY) } else { (VS, FS) };
            let vs = shader(gl, glow::VERTEX_SHADER, vs_src)?;
            let fs = shader(gl, glow::FRAGMENT_SHADER, fs_src)?;
            gl.attach_shader(program, vs);
            gl.attach_shader(program, fs);
            gl.bind_attrib_location(program, 0, "a_pos");
            gl.bind_attrib_location(program, 1, "a_col");
            gl.link_program(program);
            if !gl.get_program_link_status(program) {
                return Err(format!("link: {}", gl.get_program_info_log(program)));
            }
            gl.use_program(Some(program));
            let tint = gl.get_uniform_location(program, "u_tint");
            let t = if depth || many { TINT } else { [1.0; 4] };
            gl.uniform_4_f32(tint.as_ref(), t[0], t[1], t[2], t[3]);
            if many {
                let loc = |name| gl.get_uniform_location(program, name);
                gl.uniform_matrix_4_f32_slice(loc("u_model").as_ref(), false, &MODEL);
                gl.uniform_matrix_4_f32_slice(loc("u_view").as_ref(), false, &VIEW);
                gl.uniform_matrix_4_f32_slice(loc("u_proj").as_ref(), false, &PROJ);
                gl.uniform_matrix_3x4_f32_slice(loc("u_m34").as_ref(), false, &M34);
                gl.uniform_matrix_2_f32_slice(loc("u_m2").as_ref(), false, &M2);
                gl_error(gl, "glUniformMatrix*")?;
            }
            let vbo = gl.create_buffer()?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            let bytes: Vec<u8> = VERTICES.iter().flat_map(|f| f.to_le_bytes()).collect();
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
            gl.enable_vertex_attrib_array(0);
            gl.enable_vertex_attrib_array(1);
            gl.vertex_attrib_pointer_f32(0, 4, glow::FLOAT, false, 32, 0);
            gl.vertex_attrib_pointer_f32(1, 4, glow::FLOAT, false, 32, 16);
            if depth {
                let ibo = gl.create_buffer()?;
                gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(ibo));
                let idx: Vec<u8> = [0u16, 1, 2, 3, 4, 5]
                    .iter()
                    .flat_map(|i| i.to_le_bytes())
                    .collect();
                gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, &idx, glow::STATIC_DRAW);
                gl.draw_elements(glow::TRIANGLES, 6, glow::UNSIGNED_SHORT, 0);
                gl_error(gl, "glDrawElements")?;
            } else {
                gl.draw_arrays(glow::TRIANGLES, 0, 3);
                gl_error(gl, "glDrawArrays")?;
            }
        }
        let start = std::time::Instant::now();
        if tiny > 0 && !clear_only {
            // One pixel near the centre: a triangle around the pixel centre (size/2 + 0.5).
            let p = 1.0 / size as f32;
            let v: [f32; 24] = [
                -p,
                -p,
                0.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0, //
                2.0 * p,
                -p,
                0.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0, //
                -p,
                2.0 * p,
                0.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
            ];
            let vbo = gl.create_buffer()?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            let bytes: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
            gl.vertex_attrib_pointer_f32(0, 4, glow::FLOAT, false, 32, 0);
            gl.vertex_attrib_pointer_f32(1, 4, glow::FLOAT, false, 32, 16);
            let program = gl.get_parameter_i32(glow::CURRENT_PROGRAM) as u32;
            let program =
                glow::NativeProgram(std::num::NonZeroU32::new(program).ok_or("no program")?);
            let tint = gl.get_uniform_location(program, "u_tint");
            for i in 0..tiny {
                let f = (i % 256) as f32 / 255.0;
                gl.uniform_4_f32(tint.as_ref(), f, 1.0 - f, 0.5, 1.0);
                gl.draw_arrays(glow::TRIANGLES, 0, 3);
            }
            gl_error(gl, "tiny draws")?;
        }
        let px = read_rgba8(gl, 0, 0, size, size)?;
        (px, start.elapsed())
    };
    if tiny > 0 {
        println!("tiny-draws: {tiny} in {:.3} s", took.as_secs_f64());
    }
    println!("size: {size}x{size}");
    let hex = hex(&pixels);
    println!("pixels: {hex}");
    // Dropping the context terminates the display, which destroys the screen (its BO report).
    drop(g);
    Ok(())
}

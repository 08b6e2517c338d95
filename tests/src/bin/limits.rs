//! agx16-limits: probes of resource and time limits a legal application may reach (#17).
//!
//! `agx16-limits loop N`: one pixel whose fragment shader runs an integer hash loop N times
//! (N a uniform, so nothing unrolls); prints `GL_RENDERER`, `pixel: <hex RGBA>` and
//! `seconds: <draw to readback>`. The expected pixel is [`hash_loop`] on the CPU.
//!
//! `agx16-limits buffers N`: lowers RLIMIT_NOFILE to 1024, then glGenBuffers +
//! glBufferData(16 bytes) N times and keeps them all live; prints `buffers: <count made>`,
//! `seconds: <total>` and `chunks: <seconds per 10,000>`, checks a sample of them reads back
//! (glCopyBufferSubData into a probe buffer, glMapBufferRange), and that a file still opens.

use agx16_tests::gles::{fullscreen_triangle, gl_error, read_rgba8, rgba8_target};
use glow::HasContext;
use std::process::ExitCode;

const VS: &str = "#version 300 es
in vec2 a_pos;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }
";

const FS: &str = "#version 300 es
precision highp float;
precision highp int;
uniform int u_n;
out vec4 o;
void main() {
    uint x = 12345u;
    for (int i = 0; i < u_n; i++) {
        x = x * 1664525u + 1013904223u;
        x ^= x >> 13;
    }
    o = vec4(uvec4(x, x >> 8, x >> 16, x >> 24) & 255u) / 255.0;
}
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let n: u32 = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let r = match args.get(1).map(String::as_str) {
        Some("loop") => run_loop(n),
        Some("buffers") => run_buffers(n),
        _ => Err("usage: agx16-limits loop|buffers N".into()),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agx16-limits: {e}");
            ExitCode::FAILURE
        }
    }
}

unsafe fn program(gl: &glow::Context) -> Result<glow::Program, String> {
    let p = gl.create_program()?;
    for (kind, src) in [(glow::VERTEX_SHADER, VS), (glow::FRAGMENT_SHADER, FS)] {
        let s = gl.create_shader(kind)?;
        gl.shader_source(s, src);
        gl.compile_shader(s);
        if !gl.get_shader_compile_status(s) {
            return Err(format!("shader compile: {}", gl.get_shader_info_log(s)));
        }
        gl.attach_shader(p, s);
    }
    gl.bind_attrib_location(p, 0, "a_pos");
    gl.link_program(p);
    if !gl.get_program_link_status(p) {
        return Err(format!("link: {}", gl.get_program_info_log(p)));
    }
    Ok(p)
}

fn run_loop(n: u32) -> Result<(), String> {
    let g = agx16_tests::gles::gles(3)?;
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    unsafe {
        let gl = &g.gl;
        println!("GL_RENDERER: {}", g.renderer);
        rgba8_target(gl, 1)?;
        gl.viewport(0, 0, 1, 1);
        gl.clear_color(0.0, 0.0, 0.0, 0.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        let p = program(gl)?;
        gl.use_program(Some(p));
        gl.uniform_1_i32(gl.get_uniform_location(p, "u_n").as_ref(), n as i32);
        fullscreen_triangle(gl)?;
        let t = std::time::Instant::now();
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl_error(gl, "glDrawArrays")?;
        let px = read_rgba8(gl, 0, 0, 1, 1)?;
        println!("seconds: {:.3}", t.elapsed().as_secs_f64());
        println!(
            "pixel: {:02x}{:02x}{:02x}{:02x}",
            px[0], px[1], px[2], px[3]
        );
    }
    Ok(())
}

fn run_buffers(n: u32) -> Result<(), String> {
    let lim = libc::rlimit {
        rlim_cur: 1024,
        rlim_max: 1024,
    };
    // SAFETY: setrlimit with a local struct.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) } != 0 {
        return Err("setrlimit(RLIMIT_NOFILE, 1024) failed".into());
    }
    let g = agx16_tests::gles::gles(3)?;
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    unsafe {
        let gl = &g.gl;
        println!("GL_RENDERER: {}", g.renderer);
        let t0 = std::time::Instant::now();
        let mut tc = t0;
        let mut chunks = Vec::new();
        let mut bufs = Vec::with_capacity(n as usize);
        for i in 0..n {
            let b = gl.create_buffer()?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(b));
            let data: Vec<u8> = [i, !i, i ^ 0x5a5a_5a5a, 7]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &data, glow::STATIC_DRAW);
            if gl.get_error() != glow::NO_ERROR {
                break;
            }
            bufs.push(b);
            if (i + 1) % 10_000 == 0 {
                chunks.push(format!("{:.2}", tc.elapsed().as_secs_f64()));
                tc = std::time::Instant::now();
            }
        }
        println!("buffers: {}", bufs.len());
        println!("seconds: {:.2}", t0.elapsed().as_secs_f64());
        println!("chunks: {}", chunks.join(","));
        // Read a sample back through the GPU path (copy) and a map.
        let probe = gl.create_buffer()?;
        gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(probe));
        gl.buffer_data_size(glow::COPY_WRITE_BUFFER, 16, glow::DYNAMIC_READ);
        let mut bad = 0;
        for (i, &b) in bufs.iter().enumerate().step_by(997) {
            gl.bind_buffer(glow::COPY_READ_BUFFER, Some(b));
            gl.copy_buffer_sub_data(glow::COPY_READ_BUFFER, glow::COPY_WRITE_BUFFER, 0, 0, 16);
            let p = gl.map_buffer_range(glow::COPY_WRITE_BUFFER, 0, 16, glow::MAP_READ_BIT);
            if p.is_null() {
                return Err("glMapBufferRange failed".into());
            }
            let w = std::slice::from_raw_parts(p as *const u32, 4);
            let i = i as u32;
            bad += usize::from(w != [i, !i, i ^ 0x5a5a_5a5a, 7]);
            gl.unmap_buffer(glow::COPY_WRITE_BUFFER);
        }
        gl_error(gl, "readback")?;
        println!("sample_mismatches: {bad}");
        let f = std::fs::File::open("/proc/self/status");
        println!("file_opens: {}", f.is_ok());
    }
    Ok(())
}

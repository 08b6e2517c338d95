//! agx16-xfbtest: OpenGL ES 3.0 transform feedback, checked against values computed here on the
//! CPU from the vertex shader's formulas (the oracle; the e2e test also runs it on softpipe, so
//! the expectations themselves are checked against an independent implementation).
//!
//! Cases (each prints `ok NAME` or `fail NAME: why`):
//! - `interleaved_triangles`: three varyings (vec3, float, gl_Position) interleaved in one
//!   buffer, glDrawArrays(GL_TRIANGLES, 1, 8): the six vertices of the two complete triangles
//!   are captured in order, the two of the incomplete one are not (the buffer keeps its fill
//!   pattern after them); GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN is 2.
//! - `separate_points_instanced`: three varyings (float, int, vec3) in three separate buffers,
//!   glDrawArraysInstanced(GL_POINTS, 0, 3, 2) with GL_RASTERIZER_DISCARD: records instance by
//!   instance, gl_InstanceID in the values.
//! - `pause_resume_lines`: one buffer bound at a byte offset (glBindBufferRange), GL_LINES:
//!   a draw, a paused draw (not captured), a resumed draw appending after the first; the
//!   query counts the captured lines only.
//! - `branches_and_arrays`: outputs written on both sides of an if (an array varying's
//!   elements, a vec2 per component), captured as elements in another order.
//!
//! - `triangle_strip_instanced`, `triangle_fan`, `line_loop_and_strip`: strips, fans and loops
//!   (Mesa accepts them under GL_TRIANGLES / GL_LINES) are captured as the primitives GL
//!   decomposes them into (OpenGL ES 3.2 §12.1.1): strip triangle i is (i, i+1, i+2) for even i
//!   and (i+1, i, i+2) for odd i, fan triangle i is (0, i+1, i+2), line strip segment i is
//!   (i, i+1) and a loop adds (n−1, 0); the primitives-written query counts them.
//!
//! - `separate_wide`: GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS components in one separate
//!   buffer (a vec4 array filling it, at least the 16 of a mat4) plus a mat2x4 in a second one,
//!   GL_POINTS: every component of every vertex where the cap says it may go.
//!
//! - `many_buffers_triangles`: eight attributes in eight buffer objects captured into four
//!   separate buffers from GL_TRIANGLES (the most addresses a capturing vertex stage passes).
//!
//! Needs an OpenGL ES 3.0 context. Exits non-zero when a case fails.

use agx16_tests::gles;
use glow::HasContext;
use std::process::ExitCode;

const VS: &str = "#version 300 es
layout(location = 0) in vec4 a_pos;
layout(location = 1) in vec3 a_val;
out vec3 v_a;
out float v_b;
flat out int v_c;
void main() {
    gl_Position = a_pos;
    v_a = a_val * 2.0 + vec3(1.0, -0.5, 0.25);
    v_b = float(gl_VertexID) * 0.5 + float(gl_InstanceID) * 100.0;
    v_c = gl_VertexID * 3 - gl_InstanceID * 7;
}
";

const FS: &str = "#version 300 es
precision highp float;
in vec3 v_a;
in float v_b;
flat in int v_c;
out vec4 o;
void main() { o = vec4(fract(v_a.x), fract(v_b), float(v_c & 7) / 8.0, 1.0); }
";

/// Vertices: position (x, y, z, w) and value (3 floats).
const N: usize = 10;

fn pos(i: usize) -> [f32; 4] {
    let t = i as f32;
    [-0.8 + 0.17 * t, 0.7 - 0.13 * t, 0.1 * (t - 4.0) / 5.0, 1.0]
}

fn val(i: usize) -> [f32; 3] {
    let t = i as f32;
    [0.25 * t - 1.0, 3.5 - t * t * 0.125, t * 0.75]
}

/// The vertex shader's outputs on the CPU.
fn v_a(i: usize) -> [f32; 3] {
    let v = val(i);
    [v[0] * 2.0 + 1.0, v[1] * 2.0 - 0.5, v[2] * 2.0 + 0.25]
}
fn v_b(id: usize, inst: usize) -> f32 {
    id as f32 * 0.5 + inst as f32 * 100.0
}
fn v_c(id: usize, inst: usize) -> i32 {
    id as i32 * 3 - inst as i32 * 7
}

/// Fill pattern of fresh capture buffers (a NaN no capture produces).
const FILL: u32 = 0x7fc0_dead;

type Res<T> = Result<T, String>;

unsafe fn check(gl: &glow::Context, what: &str) -> Res<()> {
    match gl.get_error() {
        glow::NO_ERROR => Ok(()),
        e => Err(format!("{what}: GL error {e:#x}")),
    }
}

unsafe fn program(gl: &glow::Context, varyings: &[&str], mode: u32) -> Res<glow::Program> {
    program_with(gl, VS, FS, varyings, mode)
}

unsafe fn program_with(
    gl: &glow::Context,
    vs: &str,
    fs: &str,
    varyings: &[&str],
    mode: u32,
) -> Res<glow::Program> {
    let p = gl.create_program()?;
    for (kind, src) in [(glow::VERTEX_SHADER, vs), (glow::FRAGMENT_SHADER, fs)] {
        let s = gl.create_shader(kind)?;
        gl.shader_source(s, src);
        gl.compile_shader(s);
        if !gl.get_shader_compile_status(s) {
            return Err(format!("shader compile: {}", gl.get_shader_info_log(s)));
        }
        gl.attach_shader(p, s);
    }
    gl.transform_feedback_varyings(p, varyings, mode);
    gl.link_program(p);
    if !gl.get_program_link_status(p) {
        return Err(format!("link: {}", gl.get_program_info_log(p)));
    }
    gl.use_program(Some(p));
    check(gl, "program")?;
    Ok(p)
}

/// A capture buffer of `words` words filled with [`FILL`].
unsafe fn capture_buffer(gl: &glow::Context, words: usize) -> Res<glow::Buffer> {
    let b = gl.create_buffer()?;
    gl.bind_buffer(glow::TRANSFORM_FEEDBACK_BUFFER, Some(b));
    let fill: Vec<u8> = (0..words).flat_map(|_| FILL.to_le_bytes()).collect();
    gl.buffer_data_u8_slice(glow::TRANSFORM_FEEDBACK_BUFFER, &fill, glow::DYNAMIC_READ);
    Ok(b)
}

unsafe fn read_words(gl: &glow::Context, b: glow::Buffer, words: usize) -> Res<Vec<u32>> {
    gl.bind_buffer(glow::TRANSFORM_FEEDBACK_BUFFER, Some(b));
    let p = gl.map_buffer_range(
        glow::TRANSFORM_FEEDBACK_BUFFER,
        0,
        4 * words as i32,
        glow::MAP_READ_BIT,
    );
    if p.is_null() {
        return Err("glMapBufferRange returned NULL".into());
    }
    let w = std::slice::from_raw_parts(p as *const u32, words).to_vec();
    gl.unmap_buffer(glow::TRANSFORM_FEEDBACK_BUFFER);
    check(gl, "read back")?;
    Ok(w)
}

/// Compares captured words with the expected ones (f32 within 1e-5 relative, ints exact).
fn compare(what: &str, got: &[u32], want: &[Word]) -> Res<()> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = match *w {
            Word::F(f) => {
                let g = f32::from_bits(*g);
                (g - f).abs() <= 1e-5 * f.abs().max(1.0)
            }
            Word::I(x) => *g == x as u32,
            Word::Fill => *g == FILL,
        };
        if !ok {
            return Err(format!(
                "{what}: word {i} is {g:#010x} ({}), expected {w:?}",
                f32::from_bits(*g)
            ));
        }
    }
    Ok(())
}

#[derive(Clone, Copy, Debug)]
enum Word {
    F(f32),
    I(i32),
    Fill,
}

unsafe fn query_result(gl: &glow::Context, q: glow::Query) -> Res<u32> {
    let n = gl.get_query_parameter_u32(q, glow::QUERY_RESULT);
    check(gl, "query result")?;
    Ok(n)
}

unsafe fn interleaved_triangles(gl: &glow::Context) -> Res<()> {
    program(
        gl,
        &["v_a", "v_b", "gl_Position"],
        glow::INTERLEAVED_ATTRIBS,
    )?;
    const STRIDE: usize = 8;
    let buf = capture_buffer(gl, STRIDE * 8)?;
    gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, 0, Some(buf));
    let q = gl.create_query()?;
    gl.begin_query(glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, q);
    gl.begin_transform_feedback(glow::TRIANGLES);
    gl.draw_arrays(glow::TRIANGLES, 1, 8);
    gl.end_transform_feedback();
    gl.end_query(glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
    check(gl, "capture")?;
    let mut want = Vec::new();
    for k in 0..8 {
        let id = 1 + k;
        if k < 6 {
            want.extend(v_a(id).map(Word::F));
            want.push(Word::F(v_b(id, 0)));
            want.extend(pos(id).map(Word::F));
        } else {
            want.extend([Word::Fill; STRIDE]);
        }
    }
    compare("buffer", &read_words(gl, buf, STRIDE * 8)?, &want)?;
    let n = query_result(gl, q)?;
    if n != 2 {
        return Err(format!("{n} primitives written, expected 2"));
    }
    Ok(())
}

unsafe fn separate_points_instanced(gl: &glow::Context) -> Res<()> {
    program(gl, &["v_b", "v_c", "v_a"], glow::SEPARATE_ATTRIBS)?;
    let bufs = [
        capture_buffer(gl, 6)?,
        capture_buffer(gl, 6)?,
        capture_buffer(gl, 18)?,
    ];
    for (i, b) in bufs.iter().enumerate() {
        gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, i as u32, Some(*b));
    }
    gl.enable(glow::RASTERIZER_DISCARD);
    gl.begin_transform_feedback(glow::POINTS);
    gl.draw_arrays_instanced(glow::POINTS, 0, 3, 2);
    gl.end_transform_feedback();
    gl.disable(glow::RASTERIZER_DISCARD);
    check(gl, "capture")?;
    let recs: Vec<(usize, usize)> = (0..2)
        .flat_map(|inst| (0..3).map(move |id| (id, inst)))
        .collect();
    let b: Vec<Word> = recs.iter().map(|&(id, i)| Word::F(v_b(id, i))).collect();
    let c: Vec<Word> = recs.iter().map(|&(id, i)| Word::I(v_c(id, i))).collect();
    let a: Vec<Word> = recs
        .iter()
        .flat_map(|&(id, _)| v_a(id).map(Word::F))
        .collect();
    compare("buffer 0 (v_b)", &read_words(gl, bufs[0], 6)?, &b)?;
    compare("buffer 1 (v_c)", &read_words(gl, bufs[1], 6)?, &c)?;
    compare("buffer 2 (v_a)", &read_words(gl, bufs[2], 18)?, &a)?;
    Ok(())
}

/// Attribute k of vertex i in `many_buffers_triangles` (buffer object k holds attribute k).
fn attr(k: usize, i: usize) -> [f32; 2] {
    [k as f32 * 8.0 + i as f32, k as f32 * -0.5 - i as f32 * 0.25]
}

/// Eight vertex attributes, each in a buffer object of its own (eight vertex-buffer bindings),
/// captured into four separate buffers from GL_TRIANGLES: the most addresses a capturing
/// vertex stage passes (dEQP transform_feedback.random_full_array_capture lost such draws).
unsafe fn many_buffers_triangles(gl: &glow::Context) -> Res<()> {
    let inputs: String = (0..8)
        .map(|k| format!("layout(location = {k}) in vec2 a_{k};\n"))
        .collect();
    let vs = format!(
        "#version 300 es
{inputs}out vec2 v_0;
out vec2 v_1;
out vec4 v_2;
out vec4 v_3;
void main() {{
    gl_Position = vec4(a_0 * 0.01, 0.0, 1.0);
    v_0 = a_1 * 2.0 + 1.0;
    v_1 = a_2 + a_3;
    v_2 = vec4(a_4, a_5);
    v_3 = vec4(a_6, a_7 - a_0);
}}
"
    );
    program_with(
        gl,
        &vs,
        FS_PLAIN,
        &["v_3", "v_0", "v_2", "v_1"],
        glow::SEPARATE_ATTRIBS,
    )?;
    const V: usize = 6;
    for k in 0..8 {
        let b = gl.create_buffer()?;
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(b));
        let bytes: Vec<u8> = (0..V)
            .flat_map(|i| attr(k, i))
            .flat_map(f32::to_le_bytes)
            .collect();
        gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
        gl.enable_vertex_attrib_array(k as u32);
        gl.vertex_attrib_pointer_f32(k as u32, 2, glow::FLOAT, false, 8, 0);
    }
    let sizes = [4, 2, 4, 2];
    let bufs: Vec<glow::Buffer> = sizes
        .iter()
        .map(|&n| capture_buffer(gl, V * n))
        .collect::<Res<_>>()?;
    for (i, b) in bufs.iter().enumerate() {
        gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, i as u32, Some(*b));
    }
    gl.begin_transform_feedback(glow::TRIANGLES);
    gl.draw_arrays(glow::TRIANGLES, 0, V as i32);
    gl.end_transform_feedback();
    check(gl, "capture")?;
    let a = |k: usize, i: usize| attr(k, i);
    let v3: Vec<Word> = (0..V)
        .flat_map(|i| {
            let (x, y) = (a(7, i)[0] - a(0, i)[0], a(7, i)[1] - a(0, i)[1]);
            [a(6, i)[0], a(6, i)[1], x, y]
        })
        .map(Word::F)
        .collect();
    let v0: Vec<Word> = (0..V)
        .flat_map(|i| a(1, i).map(|c| c * 2.0 + 1.0))
        .map(Word::F)
        .collect();
    let v2: Vec<Word> = (0..V)
        .flat_map(|i| [a(4, i)[0], a(4, i)[1], a(5, i)[0], a(5, i)[1]])
        .map(Word::F)
        .collect();
    let v1: Vec<Word> = (0..V)
        .flat_map(|i| [a(2, i)[0] + a(3, i)[0], a(2, i)[1] + a(3, i)[1]])
        .map(Word::F)
        .collect();
    for (n, (b, want)) in bufs.iter().zip([v3, v0, v2, v1]).enumerate() {
        compare(
            &format!("capture buffer {n}"),
            &read_words(gl, *b, want.len())?,
            &want,
        )?;
    }
    for k in 0..8 {
        gl.disable_vertex_attrib_array(k);
    }
    Ok(())
}

/// Component k of vec4 element e of vertex i's wide varying, and of its mat2x4.
fn wide(i: usize, e: usize, k: usize) -> f32 {
    i as f32 * 0.25 + e as f32 * 4.0 + k as f32 * 0.0625 + 1.0
}
fn m24(i: usize, c: usize, r: usize) -> f32 {
    i as f32 * 3.0 - c as f32 * 1.5 + r as f32 * 0.125
}

unsafe fn separate_wide(gl: &glow::Context) -> Res<()> {
    let cap = gl.get_parameter_i32(glow::MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS) as usize;
    let outputs = gl.get_parameter_i32(glow::MAX_VERTEX_OUTPUT_COMPONENTS) as usize;
    if cap < 16 {
        return Err(format!(
            "MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS {cap}: a mat4 varying (16) cannot be \
             captured in separate mode"
        ));
    }
    // The wide varying fills the cap, as far as the vertex outputs allow beside the mat2x4
    // and gl_Position.
    let n = cap.min(outputs.saturating_sub(8 + 4)) / 4;
    let elements: String = (0..n)
        .map(|e| {
            format!(
                "    v_w[{e}] = vec4(i * 0.25 + {}.0) + vec4(0.0, 0.0625, 0.125, 0.1875);\n",
                e * 4 + 1
            )
        })
        .collect();
    let vs = format!(
        "#version 300 es
layout(location = 0) in vec4 a_pos;
out vec4 v_w[{n}];
out mat2x4 v_m;
void main() {{
    gl_Position = a_pos;
    float i = float(gl_VertexID);
{elements}    v_m = mat2x4(vec4(i * 3.0) + vec4(0.0, 0.125, 0.25, 0.375),
                 vec4(i * 3.0 - 1.5) + vec4(0.0, 0.125, 0.25, 0.375));
}}
"
    );
    program_with(gl, &vs, FS_PLAIN, &["v_w", "v_m"], glow::SEPARATE_ATTRIBS)?;
    const V: usize = 3;
    let bufs = [capture_buffer(gl, V * 4 * n)?, capture_buffer(gl, V * 8)?];
    for (i, b) in bufs.iter().enumerate() {
        gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, i as u32, Some(*b));
    }
    gl.enable(glow::RASTERIZER_DISCARD);
    gl.begin_transform_feedback(glow::POINTS);
    gl.draw_arrays(glow::POINTS, 0, V as i32);
    gl.end_transform_feedback();
    gl.disable(glow::RASTERIZER_DISCARD);
    check(gl, "capture")?;
    let w: Vec<Word> = (0..V)
        .flat_map(|i| (0..n).flat_map(move |e| (0..4).map(move |k| Word::F(wide(i, e, k)))))
        .collect();
    let m: Vec<Word> = (0..V)
        .flat_map(|i| (0..2).flat_map(move |c| (0..4).map(move |r| Word::F(m24(i, c, r)))))
        .collect();
    compare(
        &format!("buffer 0 (vec4[{n}], cap {cap})"),
        &read_words(gl, bufs[0], V * 4 * n)?,
        &w,
    )?;
    compare("buffer 1 (mat2x4)", &read_words(gl, bufs[1], V * 8)?, &m)?;
    if 4 * n < 16 {
        return Err(format!("only {} components fit beside the others", 4 * n));
    }
    Ok(())
}

/// A fragment shader reading no varyings (for programs whose outputs are only captured).
const FS_PLAIN: &str = "#version 300 es
precision mediump float;
out vec4 o;
void main() { o = vec4(1.0); }
";

unsafe fn pause_resume_lines(gl: &glow::Context) -> Res<()> {
    program(gl, &["v_a"], glow::INTERLEAVED_ATTRIBS)?;
    // Bound 32 bytes (8 words) into the buffer, room for 8 records.
    let buf = capture_buffer(gl, 8 + 3 * 8)?;
    gl.bind_buffer_range(glow::TRANSFORM_FEEDBACK_BUFFER, 0, Some(buf), 32, 4 * 3 * 8);
    let q = gl.create_query()?;
    gl.begin_query(glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, q);
    gl.begin_transform_feedback(glow::LINES);
    gl.draw_arrays(glow::LINES, 0, 4);
    gl.pause_transform_feedback();
    gl.draw_arrays(glow::LINES, 6, 4);
    gl.resume_transform_feedback();
    gl.draw_arrays(glow::LINES, 4, 3);
    gl.end_transform_feedback();
    gl.end_query(glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
    check(gl, "capture")?;
    let mut want = vec![Word::Fill; 8];
    for id in [0, 1, 2, 3, 4, 5] {
        want.extend(v_a(id).map(Word::F));
    }
    want.extend([Word::Fill; 6]);
    compare("buffer", &read_words(gl, buf, 8 + 3 * 8)?, &want)?;
    let n = query_result(gl, q)?;
    if n != 3 {
        return Err(format!("{n} primitives written, expected 3"));
    }
    Ok(())
}

/// Outputs written in branches (an array varying and a vec2 written per component on either
/// side of an if), captured interleaved with the array's elements in separate records' words.
const VS_BRANCHES: &str = "#version 300 es
layout(location = 0) in vec4 a_pos;
layout(location = 1) in vec3 a_val;
out float v_arr[2];
out vec2 v_p;
void main() {
    gl_Position = a_pos;
    if (gl_VertexID % 2 == 0) {
        v_arr[0] = a_val.x + 10.0;
        v_arr[1] = a_val.y;
        v_p.y = 1.5;
    } else {
        v_arr[1] = a_val.z * 3.0;
        v_arr[0] = -a_val.x;
        v_p.y = -2.5;
    }
    v_p.x = float(gl_VertexID) + 0.25;
}
";

const FS_BRANCHES: &str = "#version 300 es
precision highp float;
in float v_arr[2];
in vec2 v_p;
out vec4 o;
void main() { o = vec4(fract(v_arr[0]), fract(v_arr[1]), fract(v_p.x + v_p.y), 1.0); }
";

unsafe fn branches_and_arrays(gl: &glow::Context) -> Res<()> {
    program_with(
        gl,
        VS_BRANCHES,
        FS_BRANCHES,
        &["v_p", "v_arr[1]", "v_arr[0]"],
        glow::INTERLEAVED_ATTRIBS,
    )?;
    const STRIDE: usize = 4;
    let buf = capture_buffer(gl, STRIDE * 4)?;
    gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, 0, Some(buf));
    gl.begin_transform_feedback(glow::POINTS);
    gl.draw_arrays(glow::POINTS, 3, 4);
    gl.end_transform_feedback();
    check(gl, "capture")?;
    let mut want = Vec::new();
    for id in 3..7 {
        let v = val(id);
        let (a0, a1, py) = if id % 2 == 0 {
            (v[0] + 10.0, v[1], 1.5)
        } else {
            (-v[0], v[2] * 3.0, -2.5)
        };
        want.extend([id as f32 + 0.25, py, a1, a0].map(Word::F));
    }
    compare("buffer", &read_words(gl, buf, STRIDE * 4)?, &want)
}

/// Vertex ids of the primitives GL decomposes `count` vertices from `first` into.
fn decomposed(mode: u32, first: usize, count: usize) -> Vec<usize> {
    let mut v = Vec::new();
    match mode {
        glow::TRIANGLE_STRIP => {
            for i in 0..count.saturating_sub(2) {
                if i % 2 == 0 {
                    v.extend([i, i + 1, i + 2]);
                } else {
                    v.extend([i + 1, i, i + 2]);
                }
            }
        }
        glow::TRIANGLE_FAN => {
            for i in 0..count.saturating_sub(2) {
                v.extend([0, i + 1, i + 2]);
            }
        }
        glow::LINE_STRIP | glow::LINE_LOOP => {
            for i in 0..count.saturating_sub(1) {
                v.extend([i, i + 1]);
            }
            if mode == glow::LINE_LOOP && count >= 2 {
                v.extend([count - 1, 0]);
            }
        }
        _ => unreachable!("decomposed() of mode {mode:#x}"),
    }
    v.into_iter().map(|k| first + k).collect()
}

/// Captures `draws` (mode, first, count, instances) under `base` with v_c and v_b interleaved
/// and checks the records (instance by instance, in decomposition order), the fill after them
/// and the primitives-written count.
unsafe fn decomposed_case(
    gl: &glow::Context,
    base: u32,
    draws: &[(u32, usize, usize, usize)],
) -> Res<()> {
    program(gl, &["v_c", "v_b"], glow::INTERLEAVED_ATTRIBS)?;
    const STRIDE: usize = 2;
    let verts = if base == glow::TRIANGLES { 3 } else { 2 };
    let mut recs = Vec::new();
    for &(mode, first, count, instances) in draws {
        for inst in 0..instances {
            recs.extend(
                decomposed(mode, first, count)
                    .into_iter()
                    .map(|id| (id, inst)),
            );
        }
    }
    // Room for the records and two more (left with the fill pattern).
    let words = STRIDE * (recs.len() + 2);
    let buf = capture_buffer(gl, words)?;
    gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, 0, Some(buf));
    gl.enable(glow::RASTERIZER_DISCARD);
    let q = gl.create_query()?;
    gl.begin_query(glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, q);
    gl.begin_transform_feedback(base);
    for &(mode, first, count, instances) in draws {
        gl.draw_arrays_instanced(mode, first as i32, count as i32, instances as i32);
    }
    gl.end_transform_feedback();
    gl.end_query(glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
    gl.disable(glow::RASTERIZER_DISCARD);
    check(gl, "capture")?;
    let mut want: Vec<Word> = recs
        .iter()
        .flat_map(|&(id, i)| [Word::I(v_c(id, i)), Word::F(v_b(id, i))])
        .collect();
    want.extend([Word::Fill; 2 * STRIDE]);
    compare("buffer", &read_words(gl, buf, words)?, &want)?;
    let n = query_result(gl, q)? as usize;
    if n != recs.len() / verts {
        return Err(format!(
            "{n} primitives written, expected {}",
            recs.len() / verts
        ));
    }
    Ok(())
}

unsafe fn triangle_strip_instanced(gl: &glow::Context) -> Res<()> {
    decomposed_case(gl, glow::TRIANGLES, &[(glow::TRIANGLE_STRIP, 2, 6, 2)])
}

unsafe fn triangle_fan(gl: &glow::Context) -> Res<()> {
    decomposed_case(gl, glow::TRIANGLES, &[(glow::TRIANGLE_FAN, 1, 5, 1)])
}

unsafe fn line_loop_and_strip(gl: &glow::Context) -> Res<()> {
    decomposed_case(
        gl,
        glow::LINES,
        &[(glow::LINE_LOOP, 3, 4, 1), (glow::LINE_STRIP, 0, 3, 1)],
    )
}

unsafe fn run() -> Res<bool> {
    let g = gles::gles(3)?;
    let gl = &g.gl;
    println!("GL_RENDERER: {}", g.renderer);
    println!("GL_VERSION: {}", gl.get_parameter_string(glow::VERSION));
    // A small colour target (the draws that are not discarded rasterise into it).
    let fbo = gl.create_framebuffer()?;
    gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
    let rb = gl.create_renderbuffer()?;
    gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
    gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, 16, 16);
    gl.framebuffer_renderbuffer(
        glow::FRAMEBUFFER,
        glow::COLOR_ATTACHMENT0,
        glow::RENDERBUFFER,
        Some(rb),
    );
    gl.viewport(0, 0, 16, 16);
    let data: Vec<u8> = (0..N)
        .flat_map(|i| {
            pos(i)
                .into_iter()
                .chain(val(i))
                .flat_map(f32::to_le_bytes)
                .collect::<Vec<_>>()
        })
        .collect();
    let vb = gl.create_buffer()?;
    gl.bind_buffer(glow::ARRAY_BUFFER, Some(vb));
    gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &data, glow::STATIC_DRAW);
    gl.vertex_attrib_pointer_f32(0, 4, glow::FLOAT, false, 28, 0);
    gl.vertex_attrib_pointer_f32(1, 3, glow::FLOAT, false, 28, 16);
    gl.enable_vertex_attrib_array(0);
    gl.enable_vertex_attrib_array(1);
    check(gl, "set-up")?;
    let mut all = true;
    type Case = unsafe fn(&glow::Context) -> Res<()>;
    let cases: [(&str, Case); 9] = [
        ("separate_wide", separate_wide),
        ("interleaved_triangles", interleaved_triangles),
        ("separate_points_instanced", separate_points_instanced),
        ("pause_resume_lines", pause_resume_lines),
        ("branches_and_arrays", branches_and_arrays),
        ("triangle_strip_instanced", triangle_strip_instanced),
        ("triangle_fan", triangle_fan),
        ("line_loop_and_strip", line_loop_and_strip),
        ("many_buffers_triangles", many_buffers_triangles),
    ];
    for (name, case) in cases {
        match case(gl) {
            Ok(()) => println!("ok {name}"),
            Err(e) => {
                println!("fail {name}: {e}");
                all = false;
            }
        }
    }
    Ok(all)
}

fn main() -> ExitCode {
    // SAFETY: GL calls on the context `run` makes current on this thread.
    match unsafe { run() } {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("agx16-xfbtest: {e}");
            ExitCode::FAILURE
        }
    }
}

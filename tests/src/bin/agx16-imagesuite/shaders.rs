//! Shader inputs and outputs: uniforms and uniform blocks, varyings (perspective, centroid,
//! flat), discard, gl_FragCoord and shader arithmetic.

use super::*;

/// Perspective-correct interpolation: a quad with w from 1 to 4 and a colour ramp.
pub(crate) fn perspective_varying(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "attribute vec4 a_pos;
attribute vec4 a_col;
varying vec4 v_col;
void main() { gl_Position = a_pos; v_col = a_col; }
";
    // Clip-space (x, y, z, w) with w varying; pixel corners chosen off centres after divide.
    let mut v = Vec::new();
    let corners = [
        ((-0.93, -0.91), 1.0, [1.0, 0.0, 0.0, 1.0]),
        ((0.95, -0.89), 4.0, [0.0, 1.0, 0.0, 1.0]),
        ((0.91, 0.97), 4.0, [0.0, 0.0, 1.0, 1.0]),
        ((-0.93, -0.91), 1.0, [1.0, 0.0, 0.0, 1.0]),
        ((0.91, 0.97), 4.0, [0.0, 0.0, 1.0, 1.0]),
        ((-0.89, 0.93), 1.0, [1.0, 1.0, 1.0, 1.0]),
    ];
    for ((x, y), w, c) in corners {
        v.extend([x * w, y * w, 0.0, w, c[0], c[1], c[2], c[3]]);
    }
    unsafe {
        simple(gl, || {
            program(gl, VS, FS_COLOUR, &["a_pos", "a_col"])?;
            vertices(gl, &v, &[4, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "glDrawArrays")
        })
    }
}

/// A mat4 uniform transforming the vertices (rotation by 90 degrees, scale 0.75, translation).
pub(crate) fn uniform_matrix(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "attribute vec3 a_pos;
uniform mat4 u_m;
void main() { gl_Position = u_m * vec4(a_pos.xy / 32.0 - 1.0, 0.0, 1.0); }
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS, FS_UNIFORM, &["a_pos"])?;
            let v: Vec<f32> = [(8.3f32, 8.6f32), (50.2, 12.1), (20.7, 52.4)]
                .iter()
                .flat_map(|&(x, y)| [x, y, 0.0])
                .collect();
            vertices(gl, &v, &[3])?;
            // Column-major.
            let m = [
                0.0f32, 0.75, 0.0, 0.0, -0.75, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.1, -0.05, 0.0,
                1.0,
            ];
            let loc = gl.get_uniform_location(p, "u_m");
            gl.uniform_matrix_4_f32_slice(loc.as_ref(), false, &m);
            uniform4(gl, p, "u_col", k(200, 150, 100, 255));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            check(gl, "glDrawArrays")
        })
    }
}

/// Components of a uniform vector read with sign modifiers (`-u.x`, `abs(u.y)`, `-abs(u.z)`):
/// each is one uniform word under a float modifier (dEQP shaders.random had 17 programs whose
/// vector uniform this way failed to compile), mixed with the interpolated colour.
pub(crate) fn uniform_negated_components(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision mediump float;
uniform vec4 u_v;
varying vec4 v_col;
void main() {
    gl_FragColor = vec4(-u_v.x, abs(u_v.y), 1.0 - abs(u_v.z), u_v.w) * 0.5 + v_col * 0.5;
}
";
    let v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    unsafe {
        simple(gl, || {
            let p = program(gl, VS_COLOUR, FS, &["a_pos", "a_col"])?;
            vertices(gl, &v, &[3, 4])?;
            uniform4(gl, p, "u_v", [-0.75, -0.5, -0.25, 1.0]);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            check(gl, "glDrawArrays")
        })
    }
}

/// A vec4 array uniform and a float uniform combined in the fragment shader.
pub(crate) fn uniform_array(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision mediump float;
uniform vec4 u_pal[3];
uniform float u_s;
void main() { gl_FragColor = (u_pal[0] + u_pal[2]) * u_s + u_pal[1]; }
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS_POS, FS, &["a_pos"])?;
            let v: Vec<f32> = [(8.3f32, 8.6f32), (50.2, 12.1), (20.7, 52.4)]
                .iter()
                .flat_map(|&(x, y)| [x, y, 0.0])
                .collect();
            vertices(gl, &v, &[3])?;
            let pal = [
                0.25f32, 0.0, 0.5, 0.5, 0.0, 0.25, 0.0, 0.25, 0.5, 0.25, 0.0, 0.5,
            ];
            let loc = gl.get_uniform_location(p, "u_pal");
            gl.uniform_4_f32_slice(loc.as_ref(), &pal);
            let loc = gl.get_uniform_location(p, "u_s");
            gl.uniform_1_f32(loc.as_ref(), 0.8);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            check(gl, "glDrawArrays")
        })
    }
}

/// Default-block uniforms past what a launcher carries inline: three mat4s indexed per vertex
/// by an attribute and a 24-entry vec4 palette indexed in the fragment shader by a varying
/// (the driver reads such a default block from memory, like a uniform block).
pub(crate) fn uniform_array_large(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "attribute vec2 a_pos;
attribute float a_sel;
uniform mat4 u_m[3];
varying float v_sel;
void main() {
    gl_Position = u_m[int(a_sel + 0.5)] * vec4(a_pos, 0.0, 1.0);
    v_sel = a_sel;
}
";
    const FS: &str = "precision mediump float;
uniform vec4 u_pal[24];
uniform float u_s;
varying float v_sel;
void main() {
    int i = int(v_sel * 5.0 + 0.5) + 2;
    gl_FragColor = u_pal[i] * u_s + u_pal[23];
}
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS, FS, &["a_pos", "a_sel"])?;
            let v = [
                -0.83f32, -0.71, 0.0, 0.41, -0.62, 0.0, -0.22, 0.58, 0.0, // matrix 0
                -0.6, -0.4, 1.0, 0.35, -0.3, 1.0, 0.1, 0.45, 1.0, // matrix 1
                -0.5, 0.1, 2.0, 0.2, 0.2, 2.0, -0.1, 0.6, 2.0, // matrix 2
            ];
            vertices(gl, &v, &[2, 1])?;
            // Column-major: identity, a scale and shift to the right, one upwards.
            let m: [f32; 48] = [
                1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
                0.8, 0.0, 0.0, 0.0, 0.0, 0.7, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.43, 0.07, 0.0, 1.0,
                0.9, 0.1, 0.0, 0.0, -0.1, 0.9, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.05, 0.31, 0.0, 1.0,
            ];
            let loc = gl.get_uniform_location(p, "u_m");
            gl.uniform_matrix_4_f32_slice(loc.as_ref(), false, &m);
            let pal: Vec<f32> = (0..24)
                .flat_map(|k| {
                    let t = k as f32 / 23.0;
                    [t, 1.0 - t, (t * 3.0).fract(), 0.5 + 0.5 * t]
                })
                .collect();
            let loc = gl.get_uniform_location(p, "u_pal");
            gl.uniform_4_f32_slice(loc.as_ref(), &pal);
            let loc = gl.get_uniform_location(p, "u_s");
            gl.uniform_1_f32(loc.as_ref(), 0.75);
            gl.draw_arrays(glow::TRIANGLES, 0, 9);
            check(gl, "glDrawArrays")
        })
    }
}

/// ES 3.0 uniform block (std140) bound from a buffer.
pub(crate) fn uniform_block(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(std140) uniform Params { vec4 offset_scale; vec4 colour; };
void main() { gl_Position = vec4(a_pos * offset_scale.zw + offset_scale.xy, 0.0, 1.0); }
";
    const FS: &str = "#version 300 es
precision mediump float;
layout(std140) uniform Params { vec4 offset_scale; vec4 colour; };
out vec4 o;
void main() { o = colour; }
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS, FS, &[])?;
            let v = [-0.91f32, -0.87, 0.93, -0.79, -0.05, 0.95];
            vertices(gl, &v, &[2])?;
            let block = gl
                .get_uniform_block_index(p, "Params")
                .ok_or("no uniform block Params")?;
            gl.uniform_block_binding(p, block, 1);
            let data = [0.05f32, -0.1, 0.8, 0.9, 0.2, 0.6, 0.8, 1.0];
            let ubo = gl.create_buffer()?;
            gl.bind_buffer(glow::UNIFORM_BUFFER, Some(ubo));
            let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
            gl.buffer_data_u8_slice(glow::UNIFORM_BUFFER, &bytes, glow::STATIC_DRAW);
            gl.bind_buffer_base(glow::UNIFORM_BUFFER, 1, Some(ubo));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            check(gl, "glDrawArrays")
        })
    }
}

/// ES 3.0 uniform blocks beyond one vec4 pair: two vertex-stage blocks (a row-major mat2, a
/// float array indexed by gl_VertexID % 3, a column-major mat4) and a fragment-stage block (a
/// vec4 array indexed by a flat varying plus an ivec4 member), bound with glBindBufferBase and
/// at a nonzero glBindBufferRange offset, two triangles.
pub(crate) fn uniform_blocks_indexed(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(std140) uniform Shape { layout(row_major) mat2 rot; vec2 offset; float scale[3]; };
layout(std140) uniform View { mat4 proj; };
flat out int v_tri;
void main() {
    vec2 p = rot * a_pos * scale[gl_VertexID % 3] + offset;
    gl_Position = proj * vec4(p, 0.0, 1.0);
    v_tri = gl_VertexID / 3;
}
";
    const FS: &str = "#version 300 es
precision mediump float;
layout(std140) uniform Palette { vec4 colours[4]; ivec4 pick; };
flat in int v_tri;
out vec4 o;
void main() { o = colours[v_tri + pick.y] * vec4(float(pick.z) / 4.0); }
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS, FS, &[])?;
            let v = [
                // Every pixel centre at least 1/100 pixel from an edge (no snapping ties).
                -0.71f32, -0.6, 0.5, -0.5, -0.1, 0.6, // triangle 0
                0.3, 0.2, 0.9, 0.1, 0.56, 0.8, // triangle 1
            ];
            vertices(gl, &v, &[2])?;
            let align = gl.get_parameter_i32(glow::UNIFORM_BUFFER_OFFSET_ALIGNMENT);
            if !(1..=256).contains(&align) || 256 % align != 0 {
                return Err(format!("UNIFORM_BUFFER_OFFSET_ALIGNMENT {align}"));
            }
            let words = |f: &[f32]| -> Vec<u8> { f.iter().flat_map(|x| x.to_le_bytes()).collect() };
            // Shape (std140): rot rows at 0 and 16, offset at 32, scale[k] at 48 + 16k.
            let (c, sn) = (0.8f32, 0.35f32);
            let shape = [
                c, -sn, 0.0, 0.0, sn, c, 0.0, 0.0, 0.05, -0.08, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.85,
                0.0, 0.0, 0.0, 1.1, 0.0, 0.0, 0.0,
            ];
            // View: columns of a scale-and-translate matrix.
            let view = [
                0.9f32, 0.0, 0.0, 0.0, 0.0, 0.95, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -0.03, 0.02, 0.0,
                1.0,
            ];
            // Palette at byte 256 of the same buffer as View: four colours, then pick.
            let palette = [
                0.9f32, 0.1, 0.2, 1.0, 0.2, 0.8, 0.3, 1.0, 0.1, 0.3, 0.9, 1.0, 0.7, 0.7, 0.1, 1.0,
            ];
            let pick: [i32; 4] = [9, 1, 3, 0];
            let ubo = |bytes: &[u8]| -> Res<glow::Buffer> {
                let b = gl.create_buffer()?;
                gl.bind_buffer(glow::UNIFORM_BUFFER, Some(b));
                gl.buffer_data_u8_slice(glow::UNIFORM_BUFFER, bytes, glow::STATIC_DRAW);
                Ok(b)
            };
            let a = ubo(&words(&shape))?;
            let mut shared = words(&view);
            shared.resize(256, 0);
            shared.extend(words(&palette));
            shared.extend(pick.iter().flat_map(|x| x.to_le_bytes()));
            let b = ubo(&shared)?;
            for (name, binding) in [("Shape", 0), ("View", 2), ("Palette", 1)] {
                let i = gl
                    .get_uniform_block_index(p, name)
                    .ok_or(format!("no uniform block {name}"))?;
                gl.uniform_block_binding(p, i, binding);
            }
            gl.bind_buffer_base(glow::UNIFORM_BUFFER, 0, Some(a));
            gl.bind_buffer_range(glow::UNIFORM_BUFFER, 2, Some(b), 0, 64);
            gl.bind_buffer_range(glow::UNIFORM_BUFFER, 1, Some(b), 256, 80);
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "glDrawArrays")
        })
    }
}

/// ES 3.0 uniform block array (two instances, constant indices) of a struct array (vec2, uint,
/// bool; indexed by gl_VertexID / 3) and a mat3, std140, both instances in one buffer at
/// offsets 0 and 256.
pub(crate) fn uniform_block_array_struct(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
struct S { vec2 off; uint flags; bool on; };
layout(std140) uniform Blk { S s[2]; mat3 m; } blk[2];
flat out vec4 v_c;
void main() {
    int t = gl_VertexID / 3;
    S x = blk[1].s[t];
    vec3 p = blk[0].m * vec3(a_pos, 1.0);
    gl_Position = vec4(p.xy + x.off, 0.0, 1.0);
    v_c = vec4(float(x.flags & 3u) / 3.0, x.on ? 1.0 : 0.25, float(t) * 0.5 + 0.25, 1.0);
}
";
    const FS: &str = "#version 300 es
precision mediump float;
flat in vec4 v_c;
out vec4 o;
void main() { o = v_c; }
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS, FS, &[])?;
            let v = [
                -0.71f32, -0.6, 0.5, -0.5, -0.1, 0.6, // triangle 0
                -0.3, -0.2, 0.3, -0.1, 0.06, 0.5, // triangle 1
            ];
            vertices(gl, &v, &[2])?;
            let align = gl.get_parameter_i32(glow::UNIFORM_BUFFER_OFFSET_ALIGNMENT);
            if !(1..=256).contains(&align) || 256 % align != 0 {
                return Err(format!("UNIFORM_BUFFER_OFFSET_ALIGNMENT {align}"));
            }
            // One instance: s[0] at 0, s[1] at 16 (vec2 off, uint flags at +8, bool at +12),
            // m's columns at 32, 48, 64.
            let instance = |s: [([f32; 2], u32, u32); 2], m: [[f32; 3]; 3]| -> Vec<u8> {
                let mut b = Vec::new();
                for (off, flags, on) in s {
                    b.extend(off.iter().flat_map(|x| x.to_le_bytes()));
                    b.extend(flags.to_le_bytes());
                    b.extend(on.to_le_bytes());
                }
                for c in m {
                    b.extend(c.iter().flat_map(|x| x.to_le_bytes()));
                    b.extend(0f32.to_le_bytes());
                }
                b
            };
            let mut bytes = instance(
                [([9.0, 9.0], 0, 0), ([9.0, 9.0], 0, 0)],
                [[0.9, 0.1, 0.0], [-0.1, 0.8, 0.0], [0.02, -0.04, 1.0]],
            );
            bytes.resize(256, 0);
            bytes.extend(instance(
                [([0.05, -0.1], 6, 1), ([0.4, 0.3], 1, 0)],
                [[0.0; 3], [0.0; 3], [0.0; 3]],
            ));
            let b = gl.create_buffer()?;
            gl.bind_buffer(glow::UNIFORM_BUFFER, Some(b));
            gl.buffer_data_u8_slice(glow::UNIFORM_BUFFER, &bytes, glow::STATIC_DRAW);
            for (name, binding) in [("Blk[0]", 3), ("Blk[1]", 5)] {
                let i = gl
                    .get_uniform_block_index(p, name)
                    .ok_or(format!("no uniform block {name}"))?;
                gl.uniform_block_binding(p, i, binding);
            }
            gl.bind_buffer_range(glow::UNIFORM_BUFFER, 3, Some(b), 0, 80);
            gl.bind_buffer_range(glow::UNIFORM_BUFFER, 5, Some(b), 256, 80);
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "glDrawArrays")
        })
    }
}

/// `n` vec4 varyings, each a different ramp, mixed by the fragment shader.
unsafe fn varyings(gl: &Gl, c: &Ctx, n: usize) -> Frame {
    let max = gl.get_parameter_i32(glow::MAX_VARYING_VECTORS) as usize;
    if max < n {
        return Err(Outcome::Skip(format!(
            "needs {n} varying vectors, the context offers {max}"
        )));
    }
    let (attr, vary_out, vary_in, frag, head) = if c.es >= 3 {
        ("in", "out", "in", "o", "#version 300 es\n")
    } else {
        ("attribute", "varying", "varying", "gl_FragColor", "")
    };
    let decl: String = (0..n)
        .map(|i| format!("v{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let vs_body: String = (0..n)
        .map(|i| {
            format!(
                "v{i} = vec4(a_t.x * {a:.4}, a_t.y * {b:.4}, (1.0 - a_t.x) * {c:.4}, a_t.y);\n",
                a = (i + 1) as f32 / n as f32,
                b = 1.0 - i as f32 / n as f32,
                c = (i % 3) as f32 / 2.0
            )
        })
        .collect();
    let sum: String = (0..n)
        .map(|i| format!("v{i} * {w:.4}", w = 1.0 / n as f32))
        .collect::<Vec<_>>()
        .join(" + ");
    let vs = format!(
        "{head}{attr} vec2 a_pos;\n{attr} vec2 a_t;\n{vary_out} vec4 {decl};\nvoid main() {{\n\
         gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0);\n{vs_body}}}\n"
    );
    let out_decl = if c.es >= 3 { "out vec4 o;\n" } else { "" };
    // Weighted so that the last varying matters on its own too (a dropped one shows).
    let fs = format!(
        "{head}precision highp float;\n{vary_in} vec4 {decl};\n{out_decl}void main() {{\n\
         {frag} = {sum};\n{frag}.b = v{last}.z;\n}}\n",
        last = n - 1
    );
    simple(gl, || {
        program(gl, &vs, &fs, &["a_pos", "a_t"])?;
        let v = [
            3.4f32, 2.7, 0.0, 0.0, 61.3, 5.2, 1.0, 0.0, 28.9, 62.1, 0.5, 1.0,
        ];
        vertices(gl, &v, &[2, 2])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        check(gl, "glDrawArrays")
    })
}

pub(crate) fn varyings_8(gl: &Gl, c: &Ctx) -> Frame {
    unsafe { varyings(gl, c, 8) }
}

pub(crate) fn varyings_16(gl: &Gl, c: &Ctx) -> Frame {
    unsafe { varyings(gl, c, 16) }
}

pub(crate) fn discard(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision mediump float;
varying vec4 v_col;
void main() {
    if (v_col.r > 0.5 || (v_col.g > 0.3 && v_col.g < 0.45))
        discard;
    gl_FragColor = v_col;
}
";
    let v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    // SAFETY: the scene's context is current.
    unsafe { colour_triangles(gl, FS, &v, 3) }
}

/// `discard` inside a loop whose trip count varies per fragment: the kill runs once per
/// iteration that takes it (the same coverage write executed again), and fragments the loop
/// never kills keep their colour.
pub(crate) fn discard_loop(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision mediump float;
varying vec4 v_col;
void main() {
    int n = int(v_col.b * 6.0);
    for (int i = 0; i < 6; i++) {
        if (i >= n) break;
        if (float(i) * 0.15 > v_col.r)
            discard;
    }
    gl_FragColor = v_col;
}
";
    let v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    // SAFETY: the scene's context is current.
    unsafe { colour_triangles(gl, FS, &v, 3) }
}

pub(crate) fn frag_coord(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision highp float;
void main() { gl_FragColor = vec4(gl_FragCoord.x / 64.0, gl_FragCoord.y / 64.0, gl_FragCoord.z, 1.0); }
";
    let v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    let mut v = v;
    for (i, z) in [-0.9f32, 0.3, 0.8].iter().enumerate() {
        v[i * 7 + 2] = *z;
    }
    // SAFETY: the scene's context is current.
    unsafe { colour_triangles(gl, FS, &v, 3) }
}

/// `centroid` varyings (ES 3.0) next to plain ones: single-sampled, both interpolate at the
/// pixel centre.
pub(crate) fn centroid_varying(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_col;
centroid out vec4 v_c;
out vec4 v_p;
centroid out float v_w;
void main() {
    gl_Position = vec4(a_pos.xy / 32.0 - 1.0, 0.0, 1.0) * (1.0 + a_col.g);
    v_c = a_col; v_p = a_col.bgra; v_w = a_pos.x / 64.0;
}
";
    const FS: &str = "#version 300 es
precision highp float;
centroid in vec4 v_c;
in vec4 v_p;
centroid in float v_w;
out vec4 o;
void main() { o = vec4(v_c.r, v_p.g, v_w, 1.0) * 0.5 + vec4(v_c.b, v_p.r, 0.0, 0.0) * 0.5; }
";
    let mut v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    v.extend(tri([[40.3, 60.4], [62.2, 30.1], [60.7, 61.8]], 0.0, RGB3));
    unsafe {
        simple(gl, || {
            program(gl, VS, FS, &[])?;
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "glDrawArrays")
        })
    }
}

/// Flat (ES 3.0) and smooth outputs side by side, and integer arithmetic in the shader.
pub(crate) fn flat_varying(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_col;
flat out vec4 v_flat;
flat out int v_id;
void main() { gl_Position = vec4(a_pos.xy / 32.0 - 1.0, 0.0, 1.0); v_flat = a_col; v_id = gl_VertexID; }
";
    const FS: &str = "#version 300 es
precision mediump float;
flat in vec4 v_flat;
flat in int v_id;
out vec4 o;
void main() { o = vec4(v_flat.rgb, float(v_id % 4) / 3.0); }
";
    let mut v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    v.extend(tri([[40.3, 60.4], [62.2, 30.1], [60.7, 61.8]], 0.0, RGB3));
    unsafe {
        simple(gl, || {
            program(gl, VS, FS, &[])?;
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "glDrawArrays")
        })
    }
}

/// Control flow and maths built-ins in the fragment shader (loop, pow, clamp, mix, step).
pub(crate) fn shader_math(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision highp float;
varying vec4 v_col;
void main() {
    vec3 acc = vec3(0.0);
    for (int i = 0; i < 4; i++) {
        acc += v_col.rgb * float(i + 1) * 0.1;
    }
    float s = step(0.5, v_col.g);
    gl_FragColor = vec4(clamp(acc, 0.0, 1.0), 1.0) * mix(0.5, 1.0, s) + vec4(0.0, 0.0, pow(v_col.b, 2.0) * 0.25, 0.0);
}
";
    let v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    // SAFETY: the scene's context is current.
    unsafe { colour_triangles(gl, FS, &v, 3) }
}

/// dFdx, dFdy and fwidth (GLSL ES 1.00 with OES_standard_derivatives, the derivative hint
/// set to NICEST) of non-linear functions of gl_FragCoord over a triangle with slanted edges
/// (partly covered quads: helper lanes feed the derivatives). The functions are sums of a
/// term in x and a term in y, so per-row (fine) and per-quad (coarse) differences agree and
/// both drivers' choices give the same image.
pub(crate) fn derivatives(gl: &Gl, c: &Ctx) -> Frame {
    const FS: &str = "#extension GL_OES_standard_derivatives : require
precision highp float;
void main() {
    vec2 p = gl_FragCoord.xy;
    float f = p.x * p.x * 0.002 + sin(p.y * 0.35) * 2.0;
    float g = cos(p.x * 0.2) + p.y * p.y * 0.003;
    gl_FragColor = vec4(dFdx(f) * 1.5 + 0.5, dFdy(f) * 0.6 + 0.5, fwidth(g) * 1.5, 1.0);
}
";
    if !c.has("GL_OES_standard_derivatives") {
        return Err(Outcome::Error(
            "GL_OES_standard_derivatives is not offered".into(),
        ));
    }
    let v = tri([[1.3, 2.4], [63.2, 9.1], [12.7, 62.8]], 0.0, RGB3);
    unsafe {
        simple(gl, || {
            gl.hint(glow::FRAGMENT_SHADER_DERIVATIVE_HINT, glow::NICEST);
            check(gl, "glHint(GL_FRAGMENT_SHADER_DERIVATIVE_HINT)")?;
            let h = gl.get_parameter_i32(glow::FRAGMENT_SHADER_DERIVATIVE_HINT);
            if h != glow::NICEST as i32 {
                return Err(format!("derivative hint reads {h:#x}, not GL_NICEST"));
            }
            program(gl, VS_COLOUR, FS, &["a_pos", "a_col"])?;
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            check(gl, "glDrawArrays")
        })
    }
}

/// GLSL ES 3.00 derivatives of non-linear functions of an interpolated varying (a cubic and
/// a sine of the perspective-divided coordinates, x and y terms separate as in
/// `derivatives`), vector dFdx/dFdy and fwidth, over two triangles with slanted edges.
pub(crate) fn derivatives_es3(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_col;
out vec2 v_uv;
void main() {
    gl_Position = vec4(a_pos.xy / 32.0 - 1.0, 0.0, 1.0);
    v_uv = a_pos.xy / 16.0;
}
";
    const FS: &str = "#version 300 es
precision highp float;
in vec2 v_uv;
out vec4 o;
void main() {
    vec2 t = vec2(v_uv.x * v_uv.x * v_uv.x * 0.05, sin(v_uv.y * 3.0));
    vec2 dx = dFdx(t);
    vec2 dy = dFdy(t);
    o = vec4(dx.x * 6.0, dy.y * 2.0 + 0.5, fwidth(t.x + t.y) * 2.5, 1.0);
}
";
    let mut v = tri([[2.3, 60.4], [61.2, 3.1], [62.7, 62.8]], 0.0, RGB3);
    v.extend(tri([[1.3, 1.4], [58.2, 2.1], [2.7, 55.8]], 0.0, RGB3));
    unsafe {
        simple(gl, || {
            program(gl, VS, FS, &[])?;
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "glDrawArrays")
        })
    }
}

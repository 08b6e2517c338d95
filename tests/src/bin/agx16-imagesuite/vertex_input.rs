//! Vertex input: instancing and divisors, matrix attributes, 16 attributes and vertex formats.

use super::*;

/// Instancing (ES 3.0): a per-instance offset attribute (divisor 1) and gl_InstanceID.
pub(crate) fn instanced(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec2 a_off;
out vec4 v_col;
void main() {
    gl_Position = vec4((a_pos + a_off) / 32.0 - 1.0, 0.0, 1.0);
    v_col = vec4(float(gl_InstanceID) / 3.0, 1.0 - float(gl_InstanceID) / 3.0, 0.5, 1.0);
}
";
    const FS: &str = "#version 300 es
precision mediump float;
in vec4 v_col;
out vec4 o;
void main() { o = v_col; }
";
    unsafe {
        simple(gl, || {
            program(gl, VS, FS, &[])?;
            // Every pixel centre at least 0.02 pixels from every instance's edges (the old
            // (20.6, 0.7) vertex passed 0.0005 from one, below the 1/256 snapping step).
            let mut v = vec![0.4f32, 0.2, 20.3, 0.4, 10.3, 22.5];
            v.extend([4.0, 4.0, 36.0, 6.0, 8.0, 36.0, 38.0, 38.0]);
            let vbo = gl.create_buffer()?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            let bytes: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
            gl.enable_vertex_attrib_array(0);
            gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);
            gl.enable_vertex_attrib_array(1);
            gl.vertex_attrib_pointer_f32(1, 2, glow::FLOAT, false, 8, 24);
            gl.vertex_attrib_divisor(1, 1);
            gl.draw_arrays_instanced(glow::TRIANGLES, 0, 3, 4);
            check(gl, "glDrawArraysInstanced")
        })
    }
}

/// Instanced arrays with divisors 1, 2 and 3 (a power of two and not) in byte/short formats,
/// drawn with glDrawElementsInstanced, and gl_InstanceID (ES 3.0).
pub(crate) fn instanced_divisors(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec2 a_off;
layout(location = 2) in vec4 a_col;
layout(location = 3) in float a_blue;
out vec4 v_col;
void main() {
    gl_Position = vec4((a_pos + a_off) / 32.0 - 1.0, 0.0, 1.0);
    v_col = vec4(a_col.rg, a_blue, float(gl_InstanceID + 2) / 8.0);
}
";
    const FS: &str = "#version 300 es
precision mediump float;
in vec4 v_col;
out vec4 o;
void main() { o = v_col; }
";
    unsafe {
        simple(gl, || {
            program(gl, VS, FS, &[])?;
            // A quad (two triangles by index) of 13.3 x 12.6 pixels, corners on the 1/16 grid.
            let quad = [
                1.3125f32, 1.6875, 14.625, 1.6875, 14.625, 14.3125, 1.3125, 14.3125,
            ];
            let vbo = gl.create_buffer()?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            let mut bytes: Vec<u8> = quad.iter().flat_map(|f| f.to_le_bytes()).collect();
            // Per-instance offsets (divisor 1): shorts, not normalised, at byte 32.
            let offs: [i16; 12] = [0, 0, 16, 0, 32, 0, 48, 16, 0, 32, 16, 48];
            bytes.extend(offs.iter().flat_map(|o| o.to_le_bytes()));
            // Colours (divisor 2): unsigned bytes normalised, at byte 56.
            bytes.extend([255u8, 0, 0, 0, 40, 200, 0, 0, 130, 90, 0, 0]);
            // Blue (divisor 3): unsigned shorts normalised, at byte 68.
            bytes.extend([0u16, 65535].iter().flat_map(|v| v.to_le_bytes()));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
            gl.enable_vertex_attrib_array(0);
            gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);
            gl.enable_vertex_attrib_array(1);
            gl.vertex_attrib_pointer_f32(1, 2, glow::SHORT, false, 4, 32);
            gl.vertex_attrib_divisor(1, 1);
            gl.enable_vertex_attrib_array(2);
            gl.vertex_attrib_pointer_f32(2, 4, glow::UNSIGNED_BYTE, true, 4, 56);
            gl.vertex_attrib_divisor(2, 2);
            gl.enable_vertex_attrib_array(3);
            gl.vertex_attrib_pointer_f32(3, 1, glow::UNSIGNED_SHORT, true, 2, 68);
            gl.vertex_attrib_divisor(3, 3);
            indices(gl, &[0u16, 1, 2, 0, 2, 3], |i| i.to_le_bytes().to_vec())?;
            gl.draw_elements_instanced(glow::TRIANGLES, 6, glow::UNSIGNED_SHORT, 0, 6);
            check(gl, "glDrawElementsInstanced")
        })
    }
}

/// Attribute locations with a gap, a mat3 attribute (three consecutive locations, one vertex
/// element per column) and an integer vector (ES 3.0), in one interleaved buffer of shorts,
/// bytes and floats.
pub(crate) fn attribute_matrix(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 2) in mat3 a_m;
layout(location = 6) in uvec2 a_u;
out vec4 v_col;
void main() {
    gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0);
    vec3 c = a_m * vec3(0.5, 0.25, 0.125);
    v_col = vec4(c, float(a_u.x + a_u.y) / 300.0);
}
";
    const FS: &str = "#version 300 es
precision mediump float;
in vec4 v_col;
out vec4 o;
void main() { o = v_col; }
";
    unsafe {
        simple(gl, || {
            program(gl, VS, FS, &[])?;
            // Per vertex: position (2 f32), matrix columns (3 x 3 unorm shorts, padded to 8
            // bytes each), two unsigned bytes: 8 + 24 + 4 = 36 bytes.
            let corners = [(3.3f32, 4.1f32), (60.7, 9.4), (12.2, 58.6), (57.9, 55.3)];
            let mut bytes = Vec::new();
            for (v, (x, y)) in corners.iter().enumerate() {
                bytes.extend(x.to_le_bytes());
                bytes.extend(y.to_le_bytes());
                for col in 0..3u32 {
                    for row in 0..4u32 {
                        let x = (v as u32 * 9001 + col * 20011 + row * 7919) % 65535;
                        bytes.extend((x as u16).to_le_bytes());
                    }
                }
                bytes.extend([(40 * v + 10) as u8, (250 - 30 * v) as u8, 0, 0]);
            }
            let vbo = gl.create_buffer()?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
            gl.enable_vertex_attrib_array(0);
            gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 36, 0);
            for col in 0..3 {
                gl.enable_vertex_attrib_array(2 + col);
                gl.vertex_attrib_pointer_f32(
                    2 + col,
                    3,
                    glow::UNSIGNED_SHORT,
                    true,
                    36,
                    8 + 8 * col as i32,
                );
            }
            gl.enable_vertex_attrib_array(6);
            gl.vertex_attrib_pointer_i32(6, 2, glow::UNSIGNED_BYTE, 36, 32);
            gl.draw_arrays(glow::TRIANGLE_STRIP, 0, 4);
            check(gl, "glDrawArrays")
        })
    }
}

/// All 16 vertex attributes (GL_MAX_VERTEX_ATTRIBS), each from its own buffer (so 16 vertex
/// buffers), in byte/short/float formats, summed into the colour, plus a uniform.
pub(crate) fn attributes_16(gl: &Gl, _: &Ctx) -> Frame {
    let mut vs = String::from("attribute vec2 a_pos;\n");
    for i in 1..16 {
        vs += &format!("attribute vec4 a_{i};\n");
    }
    vs += "uniform vec4 u_bias;\nvarying vec4 v_col;\nvoid main() {\n";
    vs += "    gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0);\n    vec4 s = u_bias;\n";
    for i in 1..16 {
        vs += &format!("    s += a_{i};\n");
    }
    vs += "    v_col = s;\n}\n";
    let names: Vec<String> = std::iter::once("a_pos".to_string())
        .chain((1..16).map(|i| format!("a_{i}")))
        .collect();
    let names: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
    unsafe {
        simple(gl, || {
            let p = program(gl, &vs, FS_COLOUR, &names)?;
            uniform4(gl, p, "u_bias", [0.05, 0.1, 0.0, 0.5]);
            let corners = [(3.3f32, 4.1f32), (60.7, 9.4), (12.2, 58.6), (57.9, 55.3)];
            let pos: Vec<u8> = corners
                .iter()
                .flat_map(|(x, y)| [x.to_le_bytes(), y.to_le_bytes()].concat())
                .collect();
            let buffer = |data: &[u8]| -> Res<()> {
                let b = gl.create_buffer()?;
                gl.bind_buffer(glow::ARRAY_BUFFER, Some(b));
                gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, data, glow::STATIC_DRAW);
                Ok(())
            };
            buffer(&pos)?;
            gl.enable_vertex_attrib_array(0);
            gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);
            for i in 1..16u32 {
                // Attribute i adds about 1/60 of its vertex's share to one channel.
                let ch = (i % 4) as usize;
                let data: Vec<u8> = (0..4)
                    .flat_map(|v| {
                        let mut e = [0u8; 4];
                        e[ch] = (4 * i + 9 * v) as u8;
                        e
                    })
                    .collect();
                buffer(&data)?;
                gl.enable_vertex_attrib_array(i);
                gl.vertex_attrib_pointer_f32(i, 4, glow::UNSIGNED_BYTE, true, 4, 0);
            }
            gl.draw_arrays(glow::TRIANGLE_STRIP, 0, 4);
            check(gl, "glDrawArrays")
        })
    }
}

/// One vertex-attribute format case of `vertex_formats`: how the attribute is specified and
/// the bytes of its six elements (at `offset`, `stride` apart).
struct FormatCase {
    ty: u32,
    size: i32,
    normalized: bool,
    /// glVertexAttribIPointer into an ivec4 (Some(true)) or uvec4 (Some(false)) input.
    integer: Option<bool>,
    stride: i32,
    offset: i32,
    elements: Vec<Vec<u8>>,
    scale: [f32; 4],
    bias: [f32; 4],
}

/// IEEE half of `v` (values chosen exactly representable).
fn half(v: f32) -> u16 {
    let b = v.to_bits();
    if v == 0.0 {
        return 0;
    }
    let sign = (b >> 16) & 0x8000;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let mant = (b >> 13) & 0x3ff;
    (sign | ((exp as u32) << 10) | mant) as u16
}

fn pack_2_10_10_10(c: [i32; 4]) -> Vec<u8> {
    let w = (c[0] as u32 & 0x3ff)
        | (c[1] as u32 & 0x3ff) << 10
        | (c[2] as u32 & 0x3ff) << 20
        | (c[3] as u32 & 3) << 30;
    w.to_le_bytes().to_vec()
}

fn format_cases() -> Vec<FormatCase> {
    // Six vertices, four component values each, spread over each type's range.
    let t = |k: usize, c: usize| ((k * 7 + c * 5 + 3) % 11) as f32 / 10.0; // 0 ..= 1
    let each = |size: usize, f: &dyn Fn(f32) -> Vec<u8>| -> Vec<Vec<u8>> {
        (0..6)
            .map(|k| (0..size).flat_map(|c| f(t(k, c))).collect())
            .collect()
    };
    let case =
        |ty, size: i32, normalized, stride, offset, elements, scale: f32, bias: f32| FormatCase {
            ty,
            size,
            normalized,
            integer: None,
            stride,
            offset,
            elements,
            scale: [scale; 4],
            bias: [bias; 4],
        };
    let sb = |x: f32| -> i8 { (x * 255.0 - 128.0).round() as i8 };
    vec![
        case(
            glow::UNSIGNED_BYTE,
            4,
            true,
            4,
            0,
            each(4, &|x| vec![(x * 255.0) as u8]),
            1.0,
            0.0,
        ),
        // Signed normalised bytes including -128 (clamped to -1 by the GLES 3.0 rule).
        case(
            glow::BYTE,
            4,
            true,
            8,
            4,
            each(4, &|x| vec![sb(x) as u8]),
            0.5,
            0.5,
        ),
        case(
            glow::UNSIGNED_SHORT,
            2,
            true,
            8,
            4,
            each(2, &|x| ((x * 65535.0) as u16).to_le_bytes().to_vec()),
            0.8,
            0.1,
        ),
        // Three shorts 6 bytes apart: unaligned for the fetch, realigned by u_vbuf.
        case(
            glow::SHORT,
            3,
            true,
            6,
            0,
            each(3, &|x| {
                (((x - 0.5) * 65534.0) as i16).to_le_bytes().to_vec()
            }),
            0.5,
            0.5,
        ),
        case(
            glow::UNSIGNED_BYTE,
            3,
            false,
            3,
            0,
            each(3, &|x| vec![(x * 250.0) as u8]),
            1.0 / 255.0,
            0.0,
        ),
        case(
            glow::BYTE,
            4,
            false,
            4,
            0,
            each(4, &|x| vec![sb(x) as u8]),
            1.0 / 256.0,
            0.5,
        ),
        case(
            glow::UNSIGNED_SHORT,
            4,
            false,
            8,
            0,
            each(4, &|x| ((x * 60000.0) as u16).to_le_bytes().to_vec()),
            1.0 / 65535.0,
            0.0,
        ),
        case(
            glow::SHORT,
            1,
            false,
            4,
            0,
            each(1, &|x| (((x - 0.5) * 600.0) as i16).to_le_bytes().to_vec()),
            1.0 / 700.0,
            0.5,
        ),
        case(
            glow::INT,
            4,
            true,
            16,
            0,
            each(4, &|x| (((x - 0.5) * 4.0e9) as i32).to_le_bytes().to_vec()),
            0.5,
            0.5,
        ),
        case(
            glow::UNSIGNED_INT,
            2,
            false,
            12,
            4,
            each(2, &|x| ((x * 4.0e9) as u32).to_le_bytes().to_vec()),
            1.0 / 4.3e9,
            0.0,
        ),
        FormatCase {
            scale: [0.5; 4],
            bias: [0.5; 4],
            ..case(
                glow::INT_2_10_10_10_REV,
                4,
                true,
                4,
                0,
                (0..6)
                    .map(|k| {
                        pack_2_10_10_10([
                            (t(k, 0) * 1023.0) as i32 - 512,
                            (t(k, 1) * 1000.0) as i32 - 500,
                            (t(k, 2) * 800.0) as i32 - 400,
                            (k as i32 % 4) - 2,
                        ])
                    })
                    .collect(),
                0.5,
                0.5,
            )
        },
        FormatCase {
            scale: [1.0 / 1023.0, 1.0 / 1023.0, 1.0 / 1023.0, 1.0 / 3.0],
            ..case(
                glow::UNSIGNED_INT_2_10_10_10_REV,
                4,
                false,
                4,
                0,
                (0..6)
                    .map(|k| {
                        pack_2_10_10_10([
                            (t(k, 0) * 1023.0) as i32,
                            (t(k, 1) * 1000.0) as i32,
                            (t(k, 2) * 700.0) as i32,
                            k as i32 % 4,
                        ])
                    })
                    .collect(),
                0.0,
                0.0,
            )
        },
        case(
            glow::HALF_FLOAT,
            4,
            false,
            8,
            0,
            each(4, &|x| half(x).to_le_bytes().to_vec()),
            1.0,
            0.0,
        ),
        FormatCase {
            integer: Some(true),
            ..case(
                glow::BYTE,
                4,
                false,
                4,
                0,
                each(4, &|x| vec![sb(x) as u8]),
                1.0 / 256.0,
                0.5,
            )
        },
        FormatCase {
            integer: Some(false),
            ..case(
                glow::UNSIGNED_SHORT,
                2,
                false,
                4,
                0,
                each(2, &|x| ((x * 65535.0) as u16).to_le_bytes().to_vec()),
                1.0 / 65535.0,
                0.25,
            )
        },
        case(
            glow::FIXED,
            2,
            false,
            8,
            0,
            each(2, &|x| ((x * 65536.0) as i32).to_le_bytes().to_vec()),
            1.0,
            0.0,
        ),
    ]
}

/// Every GLES 3.0 vertex attribute type in a cell of its own (normalised and not, pure
/// integer, half float, fixed, 2_10_10_10, unaligned strides), each vertex of a cell's
/// rectangle with its own value, the colour `value * scale + bias`.
pub(crate) fn vertex_formats(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in TYPE a_val;
uniform vec4 u_scale;
uniform vec4 u_bias;
out vec4 v_col;
void main() {
    gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0);
    v_col = vec4(a_val) * u_scale + u_bias;
}
";
    const FS: &str = "#version 300 es
precision mediump float;
in vec4 v_col;
out vec4 o;
void main() { o = v_col; }
";
    unsafe {
        simple(gl, || {
            let programs = [
                program(gl, &VS.replace("TYPE", "vec4"), FS, &[])?,
                program(gl, &VS.replace("TYPE", "ivec4"), FS, &[])?,
                program(gl, &VS.replace("TYPE", "uvec4"), FS, &[])?,
            ];
            for (i, c) in format_cases().iter().enumerate() {
                let p = programs[match c.integer {
                    None => 0,
                    Some(true) => 1,
                    Some(false) => 2,
                }];
                gl.use_program(Some(p));
                uniform4(gl, p, "u_scale", c.scale);
                uniform4(gl, p, "u_bias", c.bias);
                let (x, y) = ((i % 4) as f32 * 16.0, (i / 4) as f32 * 16.0);
                let pos: Vec<f32> = rect(x + 1.3, y + 1.7, x + 14.6, y + 14.4, 0.0, [0.0; 4])
                    .chunks(7)
                    .flat_map(|v| [v[0], v[1]])
                    .collect();
                let pbo = gl.create_buffer()?;
                gl.bind_buffer(glow::ARRAY_BUFFER, Some(pbo));
                let bytes: Vec<u8> = pos.iter().flat_map(|f| f.to_le_bytes()).collect();
                gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
                gl.enable_vertex_attrib_array(0);
                gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);
                let mut data = vec![0xa5u8; c.offset as usize + 6 * c.stride as usize];
                for (k, e) in c.elements.iter().enumerate() {
                    let at = (c.offset + k as i32 * c.stride) as usize;
                    data[at..at + e.len()].copy_from_slice(e);
                }
                let vbo = gl.create_buffer()?;
                gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
                gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &data, glow::STATIC_DRAW);
                gl.enable_vertex_attrib_array(1);
                if c.integer.is_some() {
                    gl.vertex_attrib_pointer_i32(1, c.size, c.ty, c.stride, c.offset);
                } else {
                    gl.vertex_attrib_pointer_f32(1, c.size, c.ty, c.normalized, c.stride, c.offset);
                }
                gl.draw_arrays(glow::TRIANGLES, 0, 6);
                check(gl, &format!("format case {i}"))?;
            }
            // A packed type with a size other than 4 is GL_INVALID_OPERATION (GLES 3.0
            // §2.8). Mesa checks it only when the driver reads both channel orders of the
            // packed formats; without them it asserted (dEQP negative_api.vertex_array).
            gl.vertex_attrib_pointer_f32(1, 2, glow::INT_2_10_10_10_REV, false, 0, 0);
            let e = gl.get_error();
            if e != glow::INVALID_OPERATION {
                return Err(format!(
                    "glVertexAttribPointer(size 2, GL_INT_2_10_10_10_REV) gave error {e:#x}, \
                     not GL_INVALID_OPERATION"
                ));
            }
            Ok(())
        })
    }
}

/// Normalized unsigned-byte colours and a constant attribute (array disabled).
pub(crate) fn attribute_formats(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "attribute vec2 a_pos;
attribute vec4 a_col;
attribute vec4 a_const;
varying vec4 v_col;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_col = a_col * a_const; }
";
    unsafe {
        simple(gl, || {
            program(gl, VS, FS_COLOUR, &["a_pos", "a_col", "a_const"])?;
            // 8 bytes of position (2 floats) + 4 bytes of colour per vertex.
            let mut bytes = Vec::new();
            for ((x, y), c) in [
                ((3.3f32, 4.4f32), [255u8, 0, 0, 255]),
                ((61.2, 9.9), [0, 255, 0, 255]),
                ((30.8, 60.7), [0, 0, 255, 255]),
            ] {
                bytes.extend(x.to_le_bytes());
                bytes.extend(y.to_le_bytes());
                bytes.extend(c);
            }
            let vbo = gl.create_buffer()?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
            gl.enable_vertex_attrib_array(0);
            gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 12, 0);
            gl.enable_vertex_attrib_array(1);
            gl.vertex_attrib_pointer_f32(1, 4, glow::UNSIGNED_BYTE, true, 12, 8);
            gl.disable_vertex_attrib_array(2);
            gl.vertex_attrib_4_f32(2, 1.0, 0.5, 1.0, 1.0);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            check(gl, "glDrawArrays")
        })
    }
}

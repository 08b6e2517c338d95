//! Clears and primitive types: points, lines, triangles, indexed draws, primitive restart and
//! many draws in one frame.

use super::*;

pub(crate) fn clear_color(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { simple(gl, || Ok(())) }
}

pub(crate) fn clear_scissored(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        simple(gl, || {
            gl.enable(glow::SCISSOR_TEST);
            gl.scissor(5, 9, 33, 40);
            let c = k(200, 100, 50, 255);
            gl.clear_color(c[0], c[1], c[2], c[3]);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.scissor(30, 2, 30, 20);
            let c = k(10, 250, 128, 64);
            gl.clear_color(c[0], c[1], c[2], c[3]);
            gl.clear(glow::COLOR_BUFFER_BIT);
            check(gl, "scissored glClear")
        })
    }
}

pub(crate) fn clear_color_mask(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        simple(gl, || {
            gl.color_mask(true, false, true, false);
            gl.clear_color(1.0, 1.0, 0.0, 0.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.color_mask(true, true, true, true);
            gl.enable(glow::SCISSOR_TEST);
            gl.scissor(16, 16, 16, 32);
            gl.clear_color(0.0, 1.0, 1.0, 1.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            check(gl, "masked glClear")
        })
    }
}

/// Clear colours whose 8-bit conversion is a tie (0.5·255 = 127.5): GL leaves the rounding open.
pub(crate) fn clear_rounding(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        simple(gl, || {
            gl.clear_color(0.5, 0.1, 0.3, 0.7);
            gl.clear(glow::COLOR_BUFFER_BIT);
            check(gl, "glClear")
        })
    }
}

pub(crate) fn points(gl: &Gl, _: &Ctx) -> Frame {
    // 4-pixel points centred on integer window coordinates: their edges fall between centres.
    let mut v = Vec::new();
    for (i, (x, y)) in [
        (8.0, 8.0),
        (20.0, 40.0),
        (50.0, 12.0),
        (33.0, 57.0),
        (60.0, 60.0),
    ]
    .iter()
    .enumerate()
    {
        v.extend([
            *x,
            *y,
            0.0,
            (i as f32) / 4.0,
            1.0 - (i as f32) / 4.0,
            0.5,
            1.0,
        ]);
    }
    unsafe { simple(gl, || draw_coloured(gl, &v, glow::POINTS)) }
}

/// Axis-aligned segments a quarter pixel off the centre rows/columns, ends on integer x (between
/// diamonds), so the diamond-exit rule and a 1-pixel-wide parallelogram agree except at ends.
fn line_vertices(pts: &[(f32, f32)]) -> Vec<f32> {
    pts.iter()
        .enumerate()
        .flat_map(|(i, &(x, y))| [x, y, 0.0, 1.0, (i % 3) as f32 / 2.0, 0.25, 1.0])
        .collect()
}

pub(crate) fn lines(gl: &Gl, _: &Ctx) -> Frame {
    let v = line_vertices(&[
        (4.0, 10.25),
        (60.0, 10.25),
        (30.25, 14.0),
        (30.25, 58.0),
        (8.0, 40.25),
        (24.0, 40.25),
    ]);
    unsafe { simple(gl, || draw_coloured(gl, &v, glow::LINES)) }
}

pub(crate) fn line_strip(gl: &Gl, _: &Ctx) -> Frame {
    let v = line_vertices(&[(6.0, 6.25), (50.25, 6.25), (50.25, 30.25), (12.0, 30.25)]);
    unsafe { simple(gl, || draw_coloured(gl, &v, glow::LINE_STRIP)) }
}

pub(crate) fn line_loop(gl: &Gl, _: &Ctx) -> Frame {
    let v = line_vertices(&[
        (10.25, 20.25),
        (54.25, 20.25),
        (54.25, 44.25),
        (10.25, 44.25),
    ]);
    unsafe { simple(gl, || draw_coloured(gl, &v, glow::LINE_LOOP)) }
}

pub(crate) fn triangles(gl: &Gl, _: &Ctx) -> Frame {
    let mut v = tri([[3.3, 4.1], [40.7, 9.2], [12.1, 50.6]], 0.0, RGB3);
    v.extend(tri(
        [[60.2, 30.3], [61.1, 62.7], [28.6, 58.1]],
        0.0,
        [k(255, 255, 0, 255), k(0, 255, 255, 128), k(255, 0, 255, 0)],
    ));
    unsafe { simple(gl, || draw_coloured(gl, &v, glow::TRIANGLES)) }
}

pub(crate) fn triangle_strip(gl: &Gl, _: &Ctx) -> Frame {
    let mut v = Vec::new();
    for i in 0..6 {
        let x = 4.3 + 11.1 * i as f32;
        for (y, c) in [(8.2, [1.0, 0.0, 0.2, 1.0]), (55.7, [0.1, 0.9, 0.3, 1.0])] {
            let y = y + if i % 2 == 0 { 0.0 } else { 3.1 };
            v.extend([x, y, 0.0, c[0], c[1], c[2] + 0.1 * i as f32, c[3]]);
        }
    }
    unsafe { simple(gl, || draw_coloured(gl, &v, glow::TRIANGLE_STRIP)) }
}

pub(crate) fn triangle_fan(gl: &Gl, _: &Ctx) -> Frame {
    let mut v = vec![32.3, 31.6, 0.0, 1.0, 1.0, 1.0, 1.0];
    for i in 0..7 {
        let a = i as f32 * 0.9;
        v.extend([
            32.3 + 27.1 * a.cos(),
            31.6 + 26.3 * a.sin(),
            0.0,
            (i % 2) as f32,
            (i % 3) as f32 / 2.0,
            i as f32 / 6.0,
            1.0,
        ]);
    }
    unsafe { simple(gl, || draw_coloured(gl, &v, glow::TRIANGLE_FAN)) }
}

/// A 5-vertex mesh drawn by glDrawElements with `ty` indices, sharing vertices between triangles.
unsafe fn indexed(gl: &Gl, ty: u32) -> Frame {
    let v: Vec<f32> = [
        ([4.2, 5.3], k(255, 0, 0, 255)),
        ([59.6, 7.1], k(0, 255, 0, 255)),
        ([57.4, 58.8], k(0, 0, 255, 255)),
        ([6.7, 55.2], k(255, 255, 255, 255)),
        ([31.1, 30.4], k(0, 0, 0, 255)),
    ]
    .iter()
    .flat_map(|(p, c)| [p[0], p[1], 0.0, c[0], c[1], c[2], c[3]])
    .collect();
    let idx: [u32; 9] = [0, 1, 4, 1, 2, 4, 2, 3, 4];
    simple(gl, || {
        program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
        vertices(gl, &v, &[3, 4])?;
        match ty {
            glow::UNSIGNED_BYTE => indices(gl, &idx, |i| vec![i as u8])?,
            glow::UNSIGNED_SHORT => indices(gl, &idx, |i| (i as u16).to_le_bytes().to_vec())?,
            _ => indices(gl, &idx, |i| i.to_le_bytes().to_vec())?,
        }
        gl.draw_elements(glow::TRIANGLES, 9, ty, 0);
        check(gl, "glDrawElements")
    })
}

pub(crate) fn elements_u8(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { indexed(gl, glow::UNSIGNED_BYTE) }
}

pub(crate) fn elements_u16(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { indexed(gl, glow::UNSIGNED_SHORT) }
}

pub(crate) fn elements_u32(gl: &Gl, c: &Ctx) -> Frame {
    if c.es < 3 && !c.has("GL_OES_element_index_uint") {
        return Err(Outcome::Skip(
            "32-bit indices need ES 3.0 or GL_OES_element_index_uint".into(),
        ));
    }
    unsafe { indexed(gl, glow::UNSIGNED_INT) }
}

/// glDrawElementsBaseVertex (GL_EXT/OES_draw_elements_base_vertex): the same u16 index list
/// drawn twice with base vertices 0 and 5, which select a second set of vertices elsewhere.
pub(crate) fn elements_base_vertex(gl: &Gl, c: &Ctx) -> Frame {
    if !c.has("GL_EXT_draw_elements_base_vertex") && !c.has("GL_OES_draw_elements_base_vertex") {
        return Err(Outcome::Skip(
            "needs GL_EXT_draw_elements_base_vertex or GL_OES_draw_elements_base_vertex".into(),
        ));
    }
    let mut v = Vec::new();
    // Vertices 0..5: a fan-shaped pair of triangles at the bottom left; 5..10 at the top right.
    for (ox, oy, col) in [
        (0.0, 0.0, k(255, 64, 0, 255)),
        (30.0, 28.0, k(0, 128, 255, 255)),
    ] {
        for (x, y) in [
            (3.3, 4.1),
            (27.6, 6.2),
            (24.4, 29.3),
            (6.1, 25.7),
            (15.2, 15.9),
        ] {
            v.extend(
                tri([[x + ox, y + oy], [0.0, 0.0], [0.0, 0.0]], 0.0, solid(col))[..7].to_vec(),
            );
        }
    }
    let idx: [u16; 9] = [0, 1, 4, 1, 2, 4, 2, 3, 4];
    unsafe {
        simple(gl, || {
            program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
            vertices(gl, &v, &[3, 4])?;
            indices(gl, &idx, |i| i.to_le_bytes().to_vec())?;
            gl.draw_elements_base_vertex(glow::TRIANGLES, 9, glow::UNSIGNED_SHORT, 0, 0);
            gl.draw_elements_base_vertex(glow::TRIANGLES, 6, glow::UNSIGNED_SHORT, 6, 5);
            check(gl, "glDrawElementsBaseVertex")
        })
    }
}

/// Primitive restart with the fixed index (ES 3.0 GL_PRIMITIVE_RESTART_FIXED_INDEX): a
/// triangle strip with u16 indices (also with a base vertex), a fan with u8, a line strip with
/// u32, two line loops with u8 and a triangle list with u16 whose restart drops a partial
/// triangle.
pub(crate) fn primitive_restart(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        simple(gl, || {
            gl.enable(glow::PRIMITIVE_RESTART_FIXED_INDEX);
            program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
            let q = |v: f32| (v * 16.0).round() / 16.0;
            let mut v = Vec::new();
            let mut vert = |x: f32, y: f32, c: [f32; 4]| {
                v.extend([q(x), q(y), 0.0, c[0], c[1], c[2], c[3]]);
            };
            // 0..8: two strips of two triangles each (bottom-left), 8..14: two fans, 14..20: two
            // line strips, 20..26: a list.
            for (i, c) in RGB3.iter().chain(&RGB3[..1]).enumerate() {
                vert(2.3 + 7.1 * (i % 2) as f32, 3.2 + 9.7 * (i / 2) as f32, *c);
            }
            for (i, c) in RGB3.iter().chain(&RGB3[1..2]).enumerate() {
                vert(14.6 + 6.8 * (i % 2) as f32, 2.7 + 10.3 * (i / 2) as f32, *c);
            }
            for (cx, cy) in [(44.3, 10.2), (54.7, 22.6)] {
                vert(cx, cy, RGB3[0]);
                vert(cx + 8.4, cy - 6.1, RGB3[1]);
                vert(cx + 2.2, cy + 7.3, RGB3[2]);
            }
            // Axis-aligned segments a quarter pixel off the centres (as `line_strip`).
            for (x, y, c) in [(3.0, 30.25, RGB3[0]), (24.0, 33.25, RGB3[2])] {
                vert(x, y, c);
                vert(x + 14.25, y, c);
                vert(x + 14.25, y + 9.0, c);
            }
            for (i, (x, y)) in [
                (40.2, 40.3),
                (60.7, 41.4),
                (50.1, 61.6),
                (42.3, 60.2),
                (45.5, 50.5),
                (30.5, 58.1),
            ]
            .iter()
            .enumerate()
            {
                vert(*x, *y, RGB3[i % 3]);
            }
            // 26..34: the strips again, top left, drawn with base vertex 26 (restart compares
            // the index before the base vertex is added).
            for (i, c) in RGB3.iter().chain(&RGB3[..1]).enumerate() {
                vert(2.6 + 7.2 * (i % 2) as f32, 46.2 + 7.1 * (i / 2) as f32, *c);
            }
            for (i, c) in RGB3.iter().chain(&RGB3[2..]).enumerate() {
                vert(14.2 + 7.7 * (i % 2) as f32, 47.7 + 8.4 * (i / 2) as f32, *c);
            }
            // 34..42: two axis-aligned rectangles for a line loop each.
            for (x0, x1) in [(42.25, 48.25), (50.25, 60.25)] {
                for (x, y) in [(x0, 32.25), (x1, 32.25), (x1, 37.25), (x0, 37.25)] {
                    vert(x, y, RGB3[1]);
                }
            }
            vertices(gl, &v, &[3, 4])?;
            let ibo = gl.create_buffer()?;
            gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(ibo));
            let strip: Vec<u8> = [0u16, 1, 2, 3, 0xffff, 4, 5, 6, 7]
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect();
            gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, &strip, glow::STATIC_DRAW);
            gl.draw_elements(glow::TRIANGLE_STRIP, 9, glow::UNSIGNED_SHORT, 0);
            gl.draw_elements_base_vertex(glow::TRIANGLE_STRIP, 9, glow::UNSIGNED_SHORT, 0, 26);
            let fan: Vec<u8> = vec![8, 9, 10, 0xff, 11, 12, 13];
            gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, &fan, glow::STATIC_DRAW);
            gl.draw_elements(glow::TRIANGLE_FAN, 7, glow::UNSIGNED_BYTE, 0);
            let lines: Vec<u8> = [14u32, 15, 16, 0xffff_ffff, 17, 18, 19]
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect();
            gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, &lines, glow::STATIC_DRAW);
            gl.draw_elements(glow::LINE_STRIP, 7, glow::UNSIGNED_INT, 0);
            // Each loop closes on its own first vertex.
            let loops: Vec<u8> = vec![34, 35, 36, 37, 0xff, 38, 39, 40, 41];
            gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, &loops, glow::STATIC_DRAW);
            gl.draw_elements(glow::LINE_LOOP, 9, glow::UNSIGNED_BYTE, 0);
            // 20, 21 | restart | 22, 23, 24 (the first two indices make no triangle).
            let list: Vec<u8> = [20u16, 21, 0xffff, 22, 23, 24]
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect();
            gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, &list, glow::STATIC_DRAW);
            gl.draw_elements(glow::TRIANGLES, 6, glow::UNSIGNED_SHORT, 0);
            gl.disable(glow::PRIMITIVE_RESTART_FIXED_INDEX);
            check(gl, "primitive restart draws")
        })
    }
}

/// dEQP-GLES3 primitive_restart's reference pattern with client-memory arrays: u16 triangle
/// strips of 1..12 vertices from one vertex array, drawn with glDrawRangeElements over the whole
/// vertex range, first as one draw with restarts (an index list that begins with two restarts
/// and has them doubled between strips), then strip by strip without restart (the dEQP
/// reference; the state tracker unrolls the indices of such a small draw from a large range
/// into vertices in another buffer slot, leaving slot 0 unbound). Flat colours: exact.
pub(crate) fn restart_range_client_arrays(gl: &Gl, c: &Ctx) -> Frame {
    let (Some(attrib), Some(draw)) = (c.client.vertex_attrib_pointer, c.client.draw_range_elements)
    else {
        return Err(Outcome::Error(
            "glVertexAttribPointer / glDrawRangeElements entry points".into(),
        ));
    };
    const VS: &str = "#version 300 es
in vec2 a_pos;
uniform vec4 u_col;
out vec4 v_col;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_col = u_col; }
";
    const FS: &str = "#version 300 es
precision mediump float;
in vec4 v_col;
out vec4 o;
void main() { o = v_col; }
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS, FS, &["a_pos"])?;
            let mut pos = Vec::new();
            let mut idx: Vec<u16> = vec![0xffff, 0xffff];
            let mut n = 0u16;
            for strip in 0..12u16 {
                for i in 0..strip + 1 {
                    let x = 2.25 + 4.5 * (i / 2 * 2) as f32 * 0.5;
                    let y = 2.25 + 2.5 * strip as f32 + if i % 2 == 1 { 2.0 } else { 0.0 };
                    pos.extend([x, y * 1.0]);
                    idx.push(n);
                    n += 1;
                }
                idx.extend([0xffff, 0xffff]);
            }
            // Bottom half: one draw with restarts; top half: the same strips shifted up,
            // drawn one by one.
            let top: Vec<f32> = pos
                .chunks(2)
                .flat_map(|v| [v[0] + 30.0, v[1] + 32.0])
                .collect();
            gl.bind_buffer(glow::ARRAY_BUFFER, None);
            gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, None);
            gl.enable_vertex_attrib_array(0);
            let loc = gl.get_uniform_location(p, "u_col");
            gl.uniform_4_f32(loc.as_ref(), 0.0, 1.0, 0.0, 1.0);
            gl.enable(glow::PRIMITIVE_RESTART_FIXED_INDEX);
            attrib(0, 2, glow::FLOAT, 0, 0, pos.as_ptr() as *const c_void);
            let end = n as u32 - 1;
            draw(
                glow::TRIANGLE_STRIP,
                0,
                end,
                idx.len() as i32,
                glow::UNSIGNED_SHORT,
                idx.as_ptr() as *const c_void,
            );
            gl.disable(glow::PRIMITIVE_RESTART_FIXED_INDEX);
            gl.uniform_4_f32(loc.as_ref(), 1.0, 0.0, 1.0, 1.0);
            attrib(0, 2, glow::FLOAT, 0, 0, top.as_ptr() as *const c_void);
            let mut start = 0;
            for k in 0..=idx.len() {
                if k == idx.len() || idx[k] == 0xffff {
                    if start < k {
                        draw(
                            glow::TRIANGLE_STRIP,
                            0,
                            end,
                            (k - start) as i32,
                            glow::UNSIGNED_SHORT,
                            idx[start..].as_ptr() as *const c_void,
                        );
                    }
                    start = k + 1;
                }
            }
            check(gl, "glDrawRangeElements with client arrays")
        })
    }
}

/// Several draws in one frame with state changes between them (program, uniform, buffers).
pub(crate) fn many_draws(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        simple(gl, || {
            let p = program(gl, VS_POS, FS_UNIFORM, &["a_pos"])?;
            for i in 0..8 {
                let x = 2.0 + 7.0 * i as f32;
                let r: Vec<f32> = rect(x, 3.0 + i as f32 * 2.0, x + 6.0, 60.0, 0.0, [0.0; 4])
                    .chunks(7)
                    .flat_map(|c| [c[0], c[1], c[2]])
                    .collect();
                vertices(gl, &r, &[3])?;
                uniform4(
                    gl,
                    p,
                    "u_col",
                    k(30 * i as u8, 255 - 25 * i as u8, 128, 255),
                );
                gl.draw_arrays(glow::TRIANGLES, 0, 6);
            }
            check(gl, "draws")
        })
    }
}

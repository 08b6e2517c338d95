//! Scissor, colour mask, viewport, face culling and gl_FrontFacing.

use super::*;

pub(crate) fn scissor_draw(gl: &Gl, _: &Ctx) -> Frame {
    let v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    unsafe {
        simple(gl, || {
            gl.enable(glow::SCISSOR_TEST);
            gl.scissor(10, 7, 37, 29);
            draw_coloured(gl, &v, glow::TRIANGLES)
        })
    }
}

pub(crate) fn color_mask_draw(gl: &Gl, _: &Ctx) -> Frame {
    let mut v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    v.extend(rect(30.0, 30.0, 60.0, 60.0, 0.0, k(250, 250, 250, 10)));
    unsafe {
        simple(gl, || {
            gl.color_mask(true, false, true, false);
            draw_coloured(gl, &v, glow::TRIANGLES)
        })
    }
}

pub(crate) fn viewport_offset(gl: &Gl, _: &Ctx) -> Frame {
    let v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    unsafe {
        simple(gl, || {
            gl.viewport(8, 16, 48, 40);
            draw_coloured(gl, &v, glow::TRIANGLES)
        })
    }
}

pub(crate) fn cull_back_ccw(gl: &Gl, _: &Ctx) -> Frame {
    // Four triangles, two of each winding; back faces culled, then front faces with CW front.
    let mut v = tri([[2.2, 2.3], [30.1, 4.4], [4.6, 29.7]], 0.0, RGB3); // ccw
    v.extend(tri([[34.2, 2.3], [36.6, 29.7], [62.1, 4.4]], 0.0, RGB3)); // cw
    v.extend(tri([[2.2, 34.3], [30.1, 36.4], [4.6, 61.7]], 0.0, RGB3)); // ccw
    v.extend(tri([[34.2, 34.3], [36.6, 61.7], [62.1, 36.4]], 0.0, RGB3)); // cw
    unsafe {
        simple(gl, || {
            program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
            vertices(gl, &v, &[3, 4])?;
            gl.enable(glow::CULL_FACE);
            gl.cull_face(glow::BACK);
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            gl.front_face(glow::CW);
            gl.cull_face(glow::FRONT);
            gl.draw_arrays(glow::TRIANGLES, 6, 6);
            check(gl, "culled draws")
        })
    }
}

pub(crate) fn front_facing(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision mediump float;
void main() { gl_FragColor = gl_FrontFacing ? vec4(1.0, 0.0, 0.0, 1.0) : vec4(0.0, 0.0, 1.0, 1.0); }
";
    let mut v = tri([[2.2, 2.3], [60.1, 4.4], [4.6, 59.7]], 0.0, RGB3); // ccw
    v.extend(tri([[62.2, 8.3], [12.6, 61.7], [61.1, 60.4]], 0.0, RGB3)); // ccw
    v.extend(tri([[40.2, 40.3], [20.6, 61.7], [62.1, 61.4]], 0.0, RGB3)); // cw
                                                                          // SAFETY: the scene's context is current.
    unsafe { colour_triangles(gl, FS, &v, 9) }
}

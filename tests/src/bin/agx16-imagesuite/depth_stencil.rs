//! Depth and stencil tests, discard with depth and gl_FragDepth.

use super::*;

/// Two crossing triangles and a rectangle at different depths under `func`, cleared to `clear`.
unsafe fn depth_scene(gl: &Gl, func: u32, clear: f32, write: bool) -> Frame {
    framebuffer(gl, 1, true, false)?;
    gl.clear_depth_f32(clear);
    gl.clear(glow::DEPTH_BUFFER_BIT);
    gl.enable(glow::DEPTH_TEST);
    gl.depth_func(func);
    let mut v = tri(
        [[3.4, 6.2], [60.3, 20.7], [10.2, 58.9]],
        -0.5,
        solid(k(255, 0, 0, 255)),
    );
    v.extend(tri(
        [[58.8, 4.3], [61.2, 60.1], [2.7, 33.4]],
        0.25,
        solid(k(0, 255, 0, 255)),
    ));
    program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
    vertices(gl, &v, &[3, 4])?;
    gl.draw_arrays(glow::TRIANGLES, 0, 6);
    gl.depth_mask(write);
    // A rectangle through the middle, nearest of all but drawn last.
    let r = rect(12.0, 24.0, 50.0, 40.0, -0.75, k(0, 0, 255, 255));
    vertices(gl, &r, &[3, 4])?;
    gl.draw_arrays(glow::TRIANGLES, 0, 6);
    gl.depth_mask(true);
    // A sloped triangle that pierces everything, testing the written depth.
    let s: Vec<f32> = [(2.2, 30.3, -1.0f32), (62.1, 28.7, 1.0), (33.4, 62.2, 0.0)]
        .iter()
        .flat_map(|&(x, y, z)| [x, y, z, 1.0, 1.0, 0.0, 1.0])
        .collect();
    vertices(gl, &s, &[3, 4])?;
    gl.draw_arrays(glow::TRIANGLES, 0, 3);
    check(gl, "depth-tested draws")?;
    Ok(read(gl, 1)?)
}

pub(crate) fn depth_less(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { depth_scene(gl, glow::LESS, 1.0, true) }
}

pub(crate) fn depth_greater(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { depth_scene(gl, glow::GREATER, 0.0, true) }
}

pub(crate) fn depth_lequal_no_write(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { depth_scene(gl, glow::LEQUAL, 1.0, false) }
}

/// glPolygonOffset: rectangles coplanar with a sloped plane pass GL_LESS only when their
/// offset pulls them in front (units on the left, factor on the right: the factor term follows
/// the plane's slope); a positive offset keeps a third one behind. The units are large enough
/// to cover softpipe's 24-bit depth rounding of two different triangulations of the plane.
pub(crate) fn polygon_offset(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        framebuffer(gl, 1, true, false)?;
        gl.clear_depth_f32(1.0);
        gl.clear(glow::DEPTH_BUFFER_BIT);
        gl.enable(glow::DEPTH_TEST);
        gl.depth_func(glow::LESS);
        program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
        // A plane sloping in x: z from -0.5 at the left to 0.5 at the right.
        let plane: Vec<f32> = [
            (0.0, 0.0, -0.5f32),
            (64.0, 0.0, 0.5),
            (0.0, 64.0, -0.5),
            (64.0, 0.0, 0.5),
            (64.0, 64.0, 0.5),
            (0.0, 64.0, -0.5),
        ]
        .iter()
        .flat_map(|&(x, y, z)| [x, y, z, 0.5, 0.5, 0.5, 1.0])
        .collect();
        let draw = |gl: &Gl, x0: f32, x1: f32, col: [f32; 4]| -> Res<()> {
            // The same plane restricted to [x0, x1] in x, in `col`.
            let z = |x: f32| -0.5 + x / 64.0;
            let v: Vec<f32> = [
                (x0, 8.0),
                (x1, 8.0),
                (x0, 56.0),
                (x1, 8.0),
                (x1, 56.0),
                (x0, 56.0),
            ]
            .iter()
            .flat_map(|&(x, y)| [x, y, z(x), col[0], col[1], col[2], col[3]])
            .collect();
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            Ok(())
        };
        vertices(gl, &plane, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        gl.enable(glow::POLYGON_OFFSET_FILL);
        gl.polygon_offset(0.0, -64.0);
        draw(gl, 4.0, 30.0, [1.0, 0.0, 0.0, 1.0])?;
        gl.polygon_offset(-1.0, 0.0);
        draw(gl, 34.0, 60.0, [0.0, 1.0, 0.0, 1.0])?;
        // Behind the plane: must not show.
        gl.polygon_offset(1.0, 64.0);
        draw(gl, 20.0, 44.0, [0.0, 0.0, 1.0, 1.0])?;
        gl.disable(glow::POLYGON_OFFSET_FILL);
        check(gl, "polygon offset")?;
        Ok(read(gl, 1)?)
    }
}

/// Depth-tested draws into 15x150 and 150x15 framebuffers (planes narrower or shorter than a
/// depth tile and than the renders the driver splits a framebuffer into), with packed
/// depth/stencil and with 16-bit depth; their colour is copied into the 64x64 frame in strips.
/// Slack 4: pixels on the sloped triangle's intersection with the red one tie in depth, and
/// softpipe's 24-bit fixed-point depth breaks those ties differently from agx16's f32 plane.
pub(crate) fn depth_odd_sizes(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        let frame = framebuffer(gl, 1, false, false)?;
        gl.clear_color(0.0, 0.0, 0.0, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
        let sizes = [
            (15, 150, glow::DEPTH24_STENCIL8),
            (150, 15, glow::DEPTH_COMPONENT16),
        ];
        for (n, &(w, h, depth)) in sizes.iter().enumerate() {
            let fbo = gl.create_framebuffer()?;
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            let colour = gl.create_renderbuffer()?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(colour));
            gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, w, h);
            let z = gl.create_renderbuffer()?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(z));
            gl.renderbuffer_storage(glow::RENDERBUFFER, depth, w, h);
            let at = glow::RENDERBUFFER;
            gl.framebuffer_renderbuffer(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                at,
                Some(colour),
            );
            gl.framebuffer_renderbuffer(glow::FRAMEBUFFER, glow::DEPTH_ATTACHMENT, at, Some(z));
            check(gl, "odd-size framebuffer")?;
            gl.viewport(0, 0, w, h);
            gl.clear_color(0.1, 0.2, 0.3, 1.0);
            gl.clear_depth_f32(1.0);
            gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT);
            gl.enable(glow::DEPTH_TEST);
            gl.depth_func(glow::LESS);
            // Two triangles crossing in depth over the whole target (VS_COLOUR maps 0..64).
            let mut v = tri(
                [[0.0, 0.0], [64.0, 0.0], [0.0, 64.0]],
                -0.5,
                solid(k(255, 0, 0, 255)),
            );
            v.extend(tri(
                [[64.0, 64.0], [0.0, 64.0], [64.0, 0.0]],
                0.25,
                solid(k(0, 255, 0, 255)),
            ));
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            let s: Vec<f32> = [(0.0, 20.0, -1.0f32), (64.0, 24.0, 1.0), (32.0, 64.0, 0.0)]
                .iter()
                .flat_map(|&(x, y, z)| [x, y, z, 1.0, 1.0, 0.0, 1.0])
                .collect();
            vertices(gl, &s, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl.disable(glow::DEPTH_TEST);
            // Strips of at most 64 pixels into the frame: the tall target in four columns,
            // the wide one in three rows below them.
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fbo));
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(frame));
            for part in 0..3 {
                let (sx, sy, dx, dy) = if n == 0 {
                    (0, part * 64, part * 16, 0)
                } else {
                    (part * 64, 0, 0, 48 + part * 5)
                };
                let (cw, ch) = if n == 0 {
                    (15, 64.min(h - sy))
                } else {
                    (64.min(w - sx), 5)
                };
                gl.blit_framebuffer(
                    sx,
                    sy,
                    sx + cw,
                    sy + ch,
                    dx,
                    dy,
                    dx + cw,
                    dy + ch,
                    glow::COLOR_BUFFER_BIT,
                    glow::NEAREST,
                );
            }
            check(gl, "odd-size depth draws")?;
        }
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(frame));
        gl.viewport(0, 0, SIZE, SIZE);
        Ok(read(gl, 1)?)
    }
}

pub(crate) fn depth_always_notequal(gl: &Gl, _: &Ctx) -> Frame {
    // ALWAYS lays the depth down; a second pass with NOTEQUAL at z of the rectangle draws
    // everywhere except where the rectangle's depth was stored.
    unsafe {
        framebuffer(gl, 1, true, false)?;
        gl.enable(glow::DEPTH_TEST);
        gl.depth_func(glow::ALWAYS);
        program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
        let r = rect(10.0, 10.0, 40.0, 30.0, 0.5, k(255, 0, 0, 255));
        vertices(gl, &r, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        gl.depth_func(glow::NOTEQUAL);
        let r = rect(20.0, 4.0, 60.0, 50.0, 0.5, k(0, 255, 0, 255));
        vertices(gl, &r, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        check(gl, "depth draws")?;
        Ok(read(gl, 1)?)
    }
}

/// Stencil: a first pass writes `ref` through `op`, a second pass draws where the test passes.
pub(crate) fn stencil_replace_equal(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        framebuffer(gl, 1, false, true)?;
        gl.enable(glow::STENCIL_TEST);
        program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
        gl.stencil_func(glow::ALWAYS, 5, 0xff);
        gl.stencil_op(glow::KEEP, glow::KEEP, glow::REPLACE);
        // The marking triangle is drawn in colour too (no colour mask: the stencil scenes do not
        // depend on colour-mask support).
        let t = tri([[6.3, 5.2], [58.1, 12.7], [30.4, 59.6]], 0.0, RGB3);
        vertices(gl, &t, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl.stencil_func(glow::EQUAL, 5, 0xff);
        gl.stencil_op(glow::KEEP, glow::KEEP, glow::KEEP);
        let r = rect(2.0, 20.0, 62.0, 44.0, 0.0, k(255, 128, 0, 255));
        vertices(gl, &r, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        check(gl, "stencil draws")?;
        Ok(read(gl, 1)?)
    }
}

/// Depth and stencil in one DEPTH24_STENCIL8 renderbuffer: a stencil mask from one triangle, then
/// depth-tested rectangles drawn only inside it.
pub(crate) fn depth_stencil_packed(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        framebuffer_with(gl, 1, true, true, true)?;
        gl.enable(glow::STENCIL_TEST);
        gl.enable(glow::DEPTH_TEST);
        gl.depth_func(glow::LESS);
        program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
        gl.stencil_func(glow::ALWAYS, 3, 0xff);
        gl.stencil_op(glow::KEEP, glow::KEEP, glow::REPLACE);
        gl.depth_mask(false);
        let t = tri([[6.3, 5.2], [58.1, 12.7], [30.4, 59.6]], 0.0, RGB3);
        vertices(gl, &t, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl.depth_mask(true);
        gl.stencil_func(glow::EQUAL, 3, 0xff);
        gl.stencil_op(glow::KEEP, glow::KEEP, glow::KEEP);
        let mut r = rect(2.0, 20.0, 40.0, 44.0, 0.25, k(255, 128, 0, 255));
        r.extend(rect(24.0, 8.0, 62.0, 52.0, -0.25, k(0, 128, 255, 255)));
        vertices(gl, &r, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 12);
        check(gl, "depth/stencil draws")?;
        Ok(read(gl, 1)?)
    }
}

/// Overlapping rectangles increment (saturating and wrapping), then each count gets a colour.
pub(crate) fn stencil_incr_decr(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        framebuffer(gl, 1, false, true)?;
        gl.enable(glow::STENCIL_TEST);
        let p = program(gl, VS_POS, FS_UNIFORM, &["a_pos"])?;
        gl.stencil_func(glow::ALWAYS, 0, 0xff);
        gl.stencil_op(glow::KEEP, glow::KEEP, glow::INCR);
        let mut v = Vec::new();
        for (x0, y0, x1, y1) in [
            (4.0, 4.0, 40.0, 40.0),
            (20.0, 20.0, 60.0, 60.0),
            (12.0, 30.0, 50.0, 36.0),
        ] {
            for (x, y) in [(x0, y0), (x1, y0), (x1, y1), (x0, y0), (x1, y1), (x0, y1)] {
                v.extend([x, y, 0.0]);
            }
        }
        vertices(gl, &v, &[3])?;
        uniform4(gl, p, "u_col", k(40, 40, 40, 255));
        gl.draw_arrays(glow::TRIANGLES, 0, 18);
        // DECR_WRAP where the third rectangle is: 0 wraps to 255 outside the others.
        gl.stencil_op(glow::KEEP, glow::KEEP, glow::DECR_WRAP);
        gl.draw_arrays(glow::TRIANGLES, 12, 6);
        let full = rect(0.0, 0.0, 64.0, 64.0, 0.0, [0.0; 4]);
        let fullpos: Vec<f32> = full.chunks(7).flat_map(|c| [c[0], c[1], c[2]]).collect();
        vertices(gl, &fullpos, &[3])?;
        gl.stencil_op(glow::KEEP, glow::KEEP, glow::KEEP);
        for (count, col) in [
            (1, k(255, 0, 0, 255)),
            (2, k(0, 255, 0, 255)),
            (3, k(0, 0, 255, 255)),
            (255, k(255, 255, 0, 255)),
        ] {
            gl.stencil_func(glow::EQUAL, count, 0xff);
            uniform4(gl, p, "u_col", col);
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
        }
        check(gl, "stencil draws")?;
        Ok(read(gl, 1)?)
    }
}

/// Two-sided stencil: front faces INCR, back faces INVERT under masks; then colour by value.
pub(crate) fn stencil_two_sided(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        framebuffer(gl, 1, false, true)?;
        gl.enable(glow::STENCIL_TEST);
        let p = program(gl, VS_POS, FS_UNIFORM, &["a_pos"])?;
        gl.stencil_func_separate(glow::FRONT, glow::ALWAYS, 0, 0xff);
        gl.stencil_func_separate(glow::BACK, glow::ALWAYS, 0, 0xff);
        gl.stencil_op_separate(glow::FRONT, glow::KEEP, glow::KEEP, glow::INCR);
        gl.stencil_op_separate(glow::BACK, glow::KEEP, glow::KEEP, glow::INVERT);
        gl.stencil_mask_separate(glow::BACK, 0x0f);
        // Counter-clockwise (front) and clockwise (back) triangles, overlapping; corners on the
        // 1/16 grid (see `tri`).
        let v = [
            4.25f32, 6.25, 0.0, 50.75, 10.125, 0.0, 20.25, 58.25, 0.0, // ccw
            60.125, 5.25, 0.0, 14.625, 40.375, 0.0, 58.25, 59.75, 0.0, // cw
        ];
        vertices(gl, &v, &[3])?;
        uniform4(gl, p, "u_col", k(60, 60, 60, 255));
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        gl.stencil_mask_separate(glow::BACK, 0xff);
        let full: Vec<f32> = rect(0.0, 0.0, 64.0, 64.0, 0.0, [0.0; 4])
            .chunks(7)
            .flat_map(|c| [c[0], c[1], c[2]])
            .collect();
        vertices(gl, &full, &[3])?;
        gl.stencil_op(glow::KEEP, glow::KEEP, glow::KEEP);
        for (value, col) in [
            (1, k(255, 0, 0, 255)),
            (0x0f, k(0, 255, 0, 255)),
            (0x0e, k(0, 0, 255, 255)),
        ] {
            gl.stencil_func(glow::EQUAL, value, 0xff);
            uniform4(gl, p, "u_col", col);
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
        }
        check(gl, "stencil draws")?;
        Ok(read(gl, 1)?)
    }
}

/// Discard with depth: discarded fragments must not write depth.
pub(crate) fn discard_depth(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision mediump float;
varying vec4 v_col;
void main() {
    if (v_col.r > 0.4) discard;
    gl_FragColor = v_col;
}
";
    unsafe {
        framebuffer(gl, 1, true, false)?;
        gl.enable(glow::DEPTH_TEST);
        gl.depth_func(glow::LESS);
        program(gl, VS_COLOUR, FS, &["a_pos", "a_col"])?;
        let near = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], -0.5, RGB3);
        vertices(gl, &near, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
        let far = rect(10.0, 20.0, 54.0, 60.0, 0.5, k(255, 255, 0, 255));
        vertices(gl, &far, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        check(gl, "depth draws")?;
        Ok(read(gl, 1)?)
    }
}

/// gl_FragDepth with discard (ES 3.0): the triangle's fragments take depth = red, those with
/// green above 0.8 are discarded, and a rectangle at depth 0.5 drawn after it covers only the
/// pixels whose written depth is not less than 0.5 or that were discarded.
pub(crate) fn frag_depth(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
in vec3 a_pos;
in vec4 a_col;
out vec4 v_col;
void main() {
    gl_Position = vec4(a_pos.xy / 32.0 - 1.0, a_pos.z, 1.0);
    v_col = a_col;
}
";
    const FS: &str = "#version 300 es
precision highp float;
in vec4 v_col;
out vec4 o;
void main() {
    if (v_col.g > 0.8) discard;
    gl_FragDepth = v_col.r;
    o = v_col;
}
";
    const FS_FLAT: &str = "#version 300 es
precision mediump float;
in vec4 v_col;
out vec4 o;
void main() { o = v_col; }
";
    unsafe {
        framebuffer(gl, 1, true, false)?;
        gl.enable(glow::DEPTH_TEST);
        gl.depth_func(glow::LESS);
        program(gl, VS, FS, &["a_pos", "a_col"])?;
        let near = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.9, RGB3);
        vertices(gl, &near, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        program(gl, VS, FS_FLAT, &["a_pos", "a_col"])?;
        let far = rect(10.0, 20.0, 54.0, 60.0, 0.0, k(255, 255, 0, 255));
        vertices(gl, &far, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        check(gl, "depth draws")?;
        Ok(read(gl, 1)?)
    }
}

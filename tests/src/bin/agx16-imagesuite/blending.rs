//! Blending: equations, factors, constant colour and discard under blending.

use super::*;

/// A vertex-coloured triangle over two rectangles, blended with `setup`.
unsafe fn blend_scene(gl: &Gl, setup: impl FnOnce()) -> Frame {
    framebuffer(gl, 1, false, false)?;
    program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
    let mut v = rect(4.0, 4.0, 36.0, 60.0, 0.0, k(200, 40, 90, 255));
    v.extend(rect(30.0, 8.0, 60.0, 40.0, 0.0, k(20, 180, 230, 100)));
    vertices(gl, &v, &[3, 4])?;
    gl.draw_arrays(glow::TRIANGLES, 0, 12);
    gl.enable(glow::BLEND);
    setup();
    let t = tri(
        [[2.6, 30.2], [61.3, 3.9], [50.1, 61.4]],
        0.0,
        [
            [1.0, 0.5, 0.0, 0.75],
            [0.0, 1.0, 0.25, 0.25],
            [0.5, 0.0, 1.0, 0.5],
        ],
    );
    vertices(gl, &t, &[3, 4])?;
    gl.draw_arrays(glow::TRIANGLES, 0, 3);
    check(gl, "blended draw")?;
    Ok(read(gl, 1)?)
}

/// Alpha-tested, blended foliage: `if (alpha < 0.4) discard;` with SRC_ALPHA /
/// ONE_MINUS_SRC_ALPHA blending over earlier draws (a translucent punch-through pass).
pub(crate) fn discard_blend(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision mediump float;
varying vec4 v_col;
void main() {
    if (v_col.a < 0.4) discard;
    gl_FragColor = v_col;
}
";
    unsafe {
        framebuffer(gl, 1, false, false)?;
        program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
        let mut v = rect(4.0, 4.0, 36.0, 60.0, 0.0, k(200, 40, 90, 255));
        v.extend(rect(30.0, 8.0, 60.0, 40.0, 0.0, k(20, 180, 230, 100)));
        vertices(gl, &v, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 12);
        gl.enable(glow::BLEND);
        gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
        program(gl, VS_COLOUR, FS, &["a_pos", "a_col"])?;
        let t = tri(
            [[2.6, 30.2], [61.3, 3.9], [50.1, 61.4]],
            0.0,
            [
                [1.0, 0.5, 0.0, 0.75],
                [0.0, 1.0, 0.25, 0.25],
                [0.5, 0.0, 1.0, 0.5],
            ],
        );
        vertices(gl, &t, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        check(gl, "alpha-tested blended draw")?;
        Ok(read(gl, 1)?)
    }
}

pub(crate) fn blend_alpha(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        blend_scene(gl, || {
            gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA)
        })
    }
}

pub(crate) fn blend_additive(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { blend_scene(gl, || gl.blend_func(glow::ONE, glow::ONE)) }
}

pub(crate) fn blend_subtract(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        blend_scene(gl, || {
            gl.blend_equation(glow::FUNC_SUBTRACT);
            gl.blend_func(glow::ONE, glow::DST_COLOR);
        })
    }
}

pub(crate) fn blend_reverse_subtract(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        blend_scene(gl, || {
            gl.blend_equation(glow::FUNC_REVERSE_SUBTRACT);
            gl.blend_func(glow::SRC_ALPHA, glow::ONE);
        })
    }
}

pub(crate) fn blend_min_max(gl: &Gl, c: &Ctx) -> Frame {
    if c.es < 3 && !c.has("GL_EXT_blend_minmax") {
        return Err(Outcome::Skip(
            "MIN/MAX need ES 3.0 or GL_EXT_blend_minmax".into(),
        ));
    }
    unsafe { blend_scene(gl, || gl.blend_equation_separate(glow::MIN, glow::MAX)) }
}

pub(crate) fn blend_constant(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        blend_scene(gl, || {
            gl.blend_color(0.25, 0.5, 0.75, 0.5);
            gl.blend_func(glow::CONSTANT_COLOR, glow::ONE_MINUS_CONSTANT_ALPHA);
        })
    }
}

/// One program, three draws with three blend colours (and two blend functions): the colour is
/// a per-draw uniform of the fragment variant, not part of its key.
pub(crate) fn blend_constant_per_draw(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        framebuffer(gl, 1, false, false)?;
        program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
        let v = rect(4.0, 4.0, 60.0, 60.0, 0.0, k(200, 40, 90, 255));
        vertices(gl, &v, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        gl.enable(glow::BLEND);
        let draws = [
            (
                [0.9, 0.1, 0.3, 0.25],
                glow::CONSTANT_COLOR,
                [[3.3, 3.6], [40.2, 6.1], [9.7, 44.8]],
            ),
            (
                [0.2, 0.7, 0.6, 0.75],
                glow::CONSTANT_COLOR,
                [[60.4, 3.3], [58.1, 41.7], [22.6, 20.2]],
            ),
            (
                [0.5, 0.4, 1.0, 0.6],
                glow::CONSTANT_ALPHA,
                [[6.2, 61.1], [61.4, 59.3], [33.8, 24.6]],
            ),
        ];
        for (colour, src, corners) in draws {
            gl.blend_color(colour[0], colour[1], colour[2], colour[3]);
            gl.blend_func(src, glow::ONE_MINUS_CONSTANT_ALPHA);
            let t = tri(
                corners,
                0.0,
                [
                    [1.0, 0.5, 0.0, 0.75],
                    [0.0, 1.0, 0.25, 0.25],
                    [0.5, 0.0, 1.0, 0.5],
                ],
            );
            vertices(gl, &t, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
        }
        check(gl, "blended draws")?;
        Ok(read(gl, 1)?)
    }
}

pub(crate) fn blend_separate(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        blend_scene(gl, || {
            gl.blend_equation_separate(glow::FUNC_ADD, glow::FUNC_SUBTRACT);
            gl.blend_func_separate(
                glow::DST_ALPHA,
                glow::ONE_MINUS_SRC_COLOR,
                glow::ONE,
                glow::ONE_MINUS_DST_ALPHA,
            );
        })
    }
}

/// Dual-source blending (EXT_blend_func_extended): the index-1 colour
/// (`gl_SecondaryFragDataEXT[0]`) is only a blend factor, SRC1_* / ONE_MINUS_SRC1_* on RGB and
/// alpha (gl_FragData, not gl_FragColor: softpipe's broadcast-colour path drops the index-1
/// colour). The second background rectangle is drawn by the same program with blending off, where
/// GL ignores the index-1 colour.
pub(crate) fn dual_source_blend(gl: &Gl, c: &Ctx) -> Frame {
    const FS: &str = "#extension GL_EXT_blend_func_extended : require
precision mediump float;
varying vec4 v_col;
void main() {
    gl_FragData[0] = v_col;
    gl_SecondaryFragDataEXT[0] = vec4(v_col.b, 1.0 - v_col.r, 0.5 * v_col.g, 0.8 - 0.6 * v_col.a);
}
";
    if !c.has("GL_EXT_blend_func_extended") {
        return Err(Outcome::Skip("needs GL_EXT_blend_func_extended".into()));
    }
    unsafe {
        framebuffer(gl, 1, false, false)?;
        program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
        let v = rect(4.0, 4.0, 36.0, 60.0, 0.0, k(200, 40, 90, 255));
        vertices(gl, &v, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        program(gl, VS_COLOUR, FS, &["a_pos", "a_col"])?;
        let v = rect(30.0, 8.0, 60.0, 40.0, 0.0, k(20, 180, 230, 100));
        vertices(gl, &v, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        gl.enable(glow::BLEND);
        gl.blend_func_separate(
            glow::SRC1_COLOR,
            glow::ONE_MINUS_SRC1_ALPHA,
            glow::SRC1_ALPHA,
            glow::ONE_MINUS_SRC1_COLOR,
        );
        let t = tri(
            [[2.6, 30.2], [61.3, 3.9], [50.1, 61.4]],
            0.0,
            [
                [1.0, 0.5, 0.0, 0.75],
                [0.0, 1.0, 0.25, 0.25],
                [0.5, 0.0, 1.0, 0.5],
            ],
        );
        vertices(gl, &t, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        check(gl, "dual-source blended draw")?;
        Ok(read(gl, 1)?)
    }
}

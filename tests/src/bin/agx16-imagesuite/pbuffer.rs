//! Scenes that render into the window-system surface: a 64x64 EGL pbuffer (config RGBA8888 with
//! 24-bit depth and 8-bit stencil, as dEQP's rgba8888d24s8ms0) made current with the context, drawn
//! through framebuffer 0 and read back from it. The pbuffer's colour buffer comes from the EGL
//! platform (surfaceless: Mesa's dri_create_image), its depth/stencil buffer from the DRI frontend,
//! so these scenes check the buffers GL applications and conformance runs draw into by default,
//! which the FBO scenes never touch. Every scene keeps contents across renders (flushes, read-backs,
//! blits) the way GL requires.

use super::*;

/// Clear colour of the pbuffer scenes: exactly representable.
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];

/// Binds framebuffer 0 (the pbuffer), sets the viewport and clears colour to `c`, depth to 1 and
/// stencil to 0.
unsafe fn surface(gl: &Gl, c: [f32; 4]) -> Res<()> {
    gl.bind_framebuffer(glow::FRAMEBUFFER, None);
    gl.viewport(0, 0, SIZE, SIZE);
    gl.clear_color(c[0], c[1], c[2], c[3]);
    gl.clear_depth_f32(1.0);
    gl.clear_stencil(0);
    gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT);
    check(gl, "pbuffer clear")
}

/// One-pixel read-back (a flush of everything drawn so far).
unsafe fn read_one(gl: &Gl, x: i32, y: i32) -> [u8; 4] {
    let mut px = [0u8; 4];
    gl.read_pixels(
        x,
        y,
        1,
        1,
        glow::RGBA,
        glow::UNSIGNED_BYTE,
        glow::PixelPackData::Slice(Some(&mut px)),
    );
    px
}

/// A full clear, nothing else: the surface must hold the clear colour (also after glFinish).
pub(crate) fn pbuffer_clear(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        surface(gl, RED)?;
        gl.finish();
        Ok(read(gl, 1)?)
    }
}

/// A full clear, glFinish, then a scissored clear of another colour in a later render, then a
/// second scissored clear after a one-pixel read-back.
pub(crate) fn pbuffer_clear_scissored(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        surface(gl, BG)?;
        gl.finish();
        gl.enable(glow::SCISSOR_TEST);
        gl.scissor(5, 9, 37, 21);
        gl.clear_color(0.0, 1.0, 0.0, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        read_one(gl, 0, 0);
        gl.scissor(30, 20, 30, 40);
        gl.clear_color(1.0, 1.0, 0.0, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.disable(glow::SCISSOR_TEST);
        check(gl, "scissored clears")?;
        Ok(read(gl, 1)?)
    }
}

/// Clear and a triangle in one render.
pub(crate) fn pbuffer_draw(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        surface(gl, BG)?;
        let mut v = tri([[3.3, 4.1], [60.7, 9.2], [12.1, 58.6]], 0.0, RGB3);
        v.extend(rect(36.3, 30.2, 61.9, 55.7, 0.0, k(250, 200, 10, 255)));
        draw_coloured(gl, &v, glow::TRIANGLES)?;
        Ok(read(gl, 1)?)
    }
}

/// Draws separated by glFlush, glFinish and a read-back: each later render starts from what the
/// earlier ones left, and a blended draw reads it.
pub(crate) fn pbuffer_flush_between_draws(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        surface(gl, BG)?;
        draw_coloured(
            gl,
            &tri([[3.3, 4.1], [40.7, 9.2], [12.1, 50.6]], 0.0, RGB3),
            glow::TRIANGLES,
        )?;
        gl.flush();
        draw_coloured(
            gl,
            &rect(20.3, 18.2, 58.9, 40.7, 0.0, k(250, 200, 10, 255)),
            glow::TRIANGLES,
        )?;
        gl.finish();
        draw_coloured(
            gl,
            &tri(
                [[60.2, 30.3], [61.1, 62.7], [28.6, 58.1]],
                0.0,
                solid(k(0, 64, 255, 255)),
            ),
            glow::TRIANGLES,
        )?;
        read_one(gl, 1, 1);
        gl.enable(glow::BLEND);
        gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
        draw_coloured(
            gl,
            &rect(8.2, 24.1, 50.3, 44.9, 0.0, k(255, 255, 255, 128)),
            glow::TRIANGLES,
        )?;
        gl.disable(glow::BLEND);
        Ok(read(gl, 1)?)
    }
}

/// A 32x32 texture framebuffer rendered, then blitted into the pbuffer (magnified, and 1:1 into
/// a corner) over an earlier draw; then a blit out of the pbuffer into that texture and back.
pub(crate) fn pbuffer_blit(gl: &Gl, c: &Ctx) -> Frame {
    if c.es < 3 {
        return Err(Outcome::Skip("glBlitFramebuffer needs ES 3.0".into()));
    }
    unsafe {
        surface(gl, BG)?;
        draw_coloured(
            gl,
            &tri([[3.3, 4.1], [60.7, 9.2], [12.1, 58.6]], 0.0, RGB3),
            glow::TRIANGLES,
        )?;
        gl.finish();
        let tex = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::RGBA8, 32, 32);
        let fbo = gl.create_framebuffer()?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        gl.framebuffer_texture_2d(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            Some(tex),
            0,
        );
        if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
            return Err(String::from("texture framebuffer incomplete").into());
        }
        gl.viewport(0, 0, 32, 32);
        gl.clear_color(0.2, 0.4, 0.6, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        draw_coloured(
            gl,
            &rect(4.3, 6.2, 50.9, 40.7, 0.0, k(250, 200, 10, 255)),
            glow::TRIANGLES,
        )?;
        // Into the pbuffer: magnified 2x into the upper half (sample points at quarter texels,
        // never on a texel edge where nearest filtering could go either way), 1:1 into the
        // lower-right corner.
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fbo));
        gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, None);
        gl.blit_framebuffer(
            0,
            0,
            24,
            14,
            4,
            34,
            52,
            62,
            glow::COLOR_BUFFER_BIT,
            glow::NEAREST,
        );
        gl.blit_framebuffer(
            0,
            0,
            16,
            16,
            44,
            2,
            60,
            18,
            glow::COLOR_BUFFER_BIT,
            glow::NEAREST,
        );
        check(gl, "blits into the pbuffer")?;
        // Out of the pbuffer into the texture, and the texture back 1:1 into the lower-left.
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, None);
        gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(fbo));
        gl.blit_framebuffer(
            0,
            0,
            32,
            32,
            0,
            0,
            32,
            32,
            glow::COLOR_BUFFER_BIT,
            glow::NEAREST,
        );
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fbo));
        gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, None);
        gl.blit_framebuffer(
            2,
            2,
            22,
            14,
            6,
            20,
            26,
            32,
            glow::COLOR_BUFFER_BIT,
            glow::NEAREST,
        );
        check(gl, "blits out of the pbuffer")?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, None);
        Ok(read(gl, 1)?)
    }
}

/// Depth and stencil of the pbuffer across renders: a near rectangle writes depth and stencil,
/// glFinish, then a far rectangle (depth LESS) must stay hidden behind it, and a stencil-tested
/// draw after a read-back colours only where the first one marked.
pub(crate) fn pbuffer_depth_stencil_across_flush(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        surface(gl, BG)?;
        gl.enable(glow::DEPTH_TEST);
        gl.depth_func(glow::LESS);
        gl.enable(glow::STENCIL_TEST);
        gl.stencil_func(glow::ALWAYS, 3, 0xff);
        gl.stencil_op(glow::KEEP, glow::KEEP, glow::REPLACE);
        draw_coloured(
            gl,
            &rect(10.3, 10.2, 40.9, 36.7, -0.25, k(255, 0, 0, 255)),
            glow::TRIANGLES,
        )?;
        gl.finish();
        gl.stencil_op(glow::KEEP, glow::KEEP, glow::KEEP);
        draw_coloured(
            gl,
            &rect(20.3, 4.2, 58.9, 50.7, 0.5, k(0, 255, 0, 255)),
            glow::TRIANGLES,
        )?;
        read_one(gl, 0, 0);
        gl.disable(glow::DEPTH_TEST);
        gl.stencil_func(glow::EQUAL, 3, 0xff);
        draw_coloured(
            gl,
            &tri(
                [[2.3, 30.1], [62.7, 22.2], [30.1, 62.6]],
                0.0,
                solid(k(0, 0, 255, 255)),
            ),
            glow::TRIANGLES,
        )?;
        gl.disable(glow::STENCIL_TEST);
        check(gl, "depth/stencil draws")?;
        Ok(read(gl, 1)?)
    }
}

//! ES 3.0 occlusion queries, framebuffer blits and drawing on across flushes.

use super::*;

/// Occlusion queries (ES 3.0 ANY_SAMPLES_PASSED and its conservative form) around draws hidden
/// by, partly behind and beside a near rectangle, with colour writes off for one of them (a
/// query counts samples, not colour writes); each result then paints a marker square: green when
/// samples passed, red when none did. A query read before the render ran must wait for it; after
/// glFinish each result must be available at once.
pub(crate) fn occlusion_query(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        framebuffer(gl, 1, true, false)?;
        gl.clear(glow::DEPTH_BUFFER_BIT);
        gl.enable(glow::DEPTH_TEST);
        gl.depth_func(glow::LESS);
        program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
        let occluder = rect(4.0, 4.0, 44.0, 44.0, -0.5, k(200, 200, 200, 255));
        vertices(gl, &occluder, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        let cases: [(Vec<f32>, u32, bool); 4] = [
            // Entirely behind the occluder.
            (
                tri(
                    [[8.3, 8.1], [40.2, 10.4], [20.7, 38.9]],
                    0.5,
                    solid(k(255, 0, 255, 255)),
                ),
                glow::ANY_SAMPLES_PASSED,
                true,
            ),
            // Half behind, half beside it.
            (
                tri(
                    [[30.2, 12.3], [60.7, 20.1], [40.4, 40.6]],
                    0.5,
                    solid(k(0, 255, 255, 255)),
                ),
                glow::ANY_SAMPLES_PASSED,
                true,
            ),
            // In front, colour writes off.
            (
                tri(
                    [[10.1, 30.2], [30.8, 31.3], [20.6, 42.7]],
                    -0.8,
                    solid(k(255, 255, 0, 255)),
                ),
                glow::ANY_SAMPLES_PASSED_CONSERVATIVE,
                false,
            ),
            // Beside it, but depth test NEVER (nothing passes).
            (
                tri(
                    [[48.2, 46.1], [62.3, 47.8], [55.5, 61.4]],
                    0.0,
                    solid(k(255, 128, 0, 255)),
                ),
                glow::ANY_SAMPLES_PASSED,
                true,
            ),
        ];
        let mut queries = Vec::new();
        for (i, (v, target, colour)) in cases.iter().enumerate() {
            let q = gl.create_query()?;
            gl.color_mask(*colour, *colour, *colour, *colour);
            if i == 3 {
                gl.depth_func(glow::NEVER);
            }
            gl.begin_query(*target, q);
            vertices(gl, v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl.end_query(*target);
            queries.push(q);
        }
        gl.color_mask(true, true, true, true);
        gl.depth_func(glow::ALWAYS);
        check(gl, "queried draws")?;
        // After glFinish every result is available without waiting (dEQP's occlusion_query
        // cases poll QUERY_RESULT_AVAILABLE once, right after glFinish).
        gl.finish();
        for &q in &queries {
            if gl.get_query_parameter_u32(q, glow::QUERY_RESULT_AVAILABLE) == 0 {
                return Err(
                    String::from("occlusion query result not available after glFinish").into(),
                );
            }
        }
        for (i, q) in queries.into_iter().enumerate() {
            let passed = gl.get_query_parameter_u32(q, glow::QUERY_RESULT) != 0;
            let c = if passed {
                k(0, 200, 0, 255)
            } else {
                k(200, 0, 0, 255)
            };
            let x = 4.0 + 14.0 * i as f32;
            vertices(gl, &rect(x, 50.0, x + 10.0, 60.0, -0.9, c), &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
        }
        check(gl, "query results")?;
        Ok(read(gl, 1)?)
    }
}

/// glBlitFramebuffer (ES 3.0) from a 32x32 rendered texture: a 1.5x/1.25x magnification with LINEAR
/// filtering, and a NEAREST minified, mirrored copy of a sub-rectangle (source and destination
/// rectangles given in opposite orders flip both axes). Neither is a byte copy, so they exercise the
/// draw-based blit (Mesa's util_blitter through the driver's own draw path).
pub(crate) fn blit_scaled(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        let main = framebuffer(gl, 1, false, false)?;
        let tex = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::RGBA8, 32, 32);
        let src = gl.create_framebuffer()?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(src));
        gl.framebuffer_texture_2d(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            Some(tex),
            0,
        );
        if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
            return Err(String::from("source framebuffer incomplete").into());
        }
        gl.viewport(0, 0, 32, 32);
        gl.clear_color(0.2, 0.4, 0.6, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        let mut v = tri([[6.3, 4.1], [58.7, 12.9], [20.2, 57.6]], 0.0, RGB3);
        v.extend(rect(40.3, 36.2, 60.9, 61.7, 0.0, k(250, 200, 10, 255)));
        draw_coloured(gl, &v, glow::TRIANGLES)?;
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(src));
        gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(main));
        gl.blit_framebuffer(
            0,
            0,
            32,
            32,
            0,
            0,
            48,
            40,
            glow::COLOR_BUFFER_BIT,
            glow::LINEAR,
        );
        check(gl, "linear magnifying blit")?;
        gl.blit_framebuffer(
            4,
            4,
            28,
            20,
            62,
            60,
            50,
            44,
            glow::COLOR_BUFFER_BIT,
            glow::NEAREST,
        );
        check(gl, "nearest mirrored blit")?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(main));
        Ok(read(gl, 1)?)
    }
}

/// Drawing on after a flush without clearing keeps what the earlier renders left (GL: the
/// framebuffer holds its contents until changed; piglit's shader_runner draws this way). On the
/// 64x64 target: clear + triangle, glFinish, an overlapping rectangle, a one-pixel glReadPixels
/// (another flush), a third triangle. Then a 40x24 texture (not a multiple of the 32-pixel
/// tile, so reloaded tiles reach past the image) gets clear + triangle, glFinish, a second
/// triangle without a clear, and is magnified 1:1 with nearest filtering into the target's
/// lower-left corner.
pub(crate) fn draw_after_flush(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        let main = framebuffer(gl, 1, false, false)?;
        gl.viewport(0, 0, SIZE, SIZE);
        draw_coloured(
            gl,
            &tri([[3.3, 4.1], [40.7, 9.2], [12.1, 50.6]], 0.0, RGB3),
            glow::TRIANGLES,
        )?;
        gl.finish();
        draw_coloured(
            gl,
            &rect(20.3, 18.2, 58.9, 40.7, 0.0, k(250, 200, 10, 255)),
            glow::TRIANGLES,
        )?;
        let mut px = [0u8; 4];
        gl.read_pixels(
            0,
            0,
            1,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelPackData::Slice(Some(&mut px)),
        );
        draw_coloured(
            gl,
            &tri(
                [[60.2, 30.3], [61.1, 62.7], [28.6, 58.1]],
                0.0,
                [k(255, 255, 0, 255), k(0, 255, 255, 128), k(255, 0, 255, 0)],
            ),
            glow::TRIANGLES,
        )?;
        check(gl, "draws on the main target")?;

        let (w, h) = (40, 24);
        let tex = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            glow::RGBA as i32,
            w,
            h,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(None),
        );
        for (param, v) in [
            (glow::TEXTURE_MIN_FILTER, glow::NEAREST),
            (glow::TEXTURE_MAG_FILTER, glow::NEAREST),
            (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE),
            (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE),
        ] {
            gl.tex_parameter_i32(glow::TEXTURE_2D, param, v as i32);
        }
        gl.bind_texture(glow::TEXTURE_2D, None);
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
        // VS_COLOUR's pixel space is 64 units across the viewport.
        gl.viewport(0, 0, w, h);
        gl.clear_color(0.2, 0.4, 0.6, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        draw_coloured(
            gl,
            &tri([[6.3, 4.1], [58.7, 12.9], [20.2, 57.6]], 0.0, RGB3),
            glow::TRIANGLES,
        )?;
        gl.finish();
        draw_coloured(
            gl,
            &rect(36.3, 30.2, 61.9, 61.7, 0.0, k(10, 200, 250, 255)),
            glow::TRIANGLES,
        )?;
        check(gl, "draws on the texture")?;

        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(main));
        gl.viewport(0, 0, SIZE, SIZE);
        let p = program(gl, VS_TEXTURED, FS_TEXTURED, &["a_pos", "a_tc"])?;
        let (x1, y1) = (w as f32, h as f32);
        let v = [
            0.0f32, 0.0, 0.0, 0.0, x1, 0.0, 1.0, 0.0, x1, y1, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, x1, y1,
            1.0, 1.0, 0.0, y1, 0.0, 1.0,
        ];
        vertices(gl, &v, &[2, 2])?;
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        let loc = gl.get_uniform_location(p, "u_tex");
        gl.uniform_1_i32(loc.as_ref(), 0);
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        check(gl, "sampling the texture")?;
        Ok(read(gl, 1)?)
    }
}

//! agx16-cleartest: glClearBuffer* on a framebuffer of three colour attachments (RGBA8, RGBA8UI,
//! RGBA16I, 8x8, all three draw buffers enabled), first whole, then a scissored clear of draw
//! buffer 1 and a colour-masked clear of draw buffer 0. Mesa's state tracker clears a scissored
//! or masked buffer by drawing a quad whose shader writes FRAG_RESULT_COLOR with the other
//! buffers masked off, so these clears need that colour to reach every draw buffer (found by
//! tests/webgl/webgl2-clear-buffer.html in Chromium). Prints `GL_RENDERER: ...` and one line per
//! attachment, `att<N>: <hex>` of its read-back values (RGBA8 bytes; RGBA_INTEGER as
//! little-endian 32-bit words), bottom row first; exits non-zero when a GL call reports an error.

use agx16_tests::gles::{gl_error, hex};
use glow::HasContext;
use std::process::ExitCode;

const SIZE: i32 = 8;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agx16-cleartest: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let g = agx16_tests::gles::gles(3)?;
    println!("GL_RENDERER: {}", g.renderer);
    let gl = &g.gl;
    let attachments = [
        glow::COLOR_ATTACHMENT0,
        glow::COLOR_ATTACHMENT1,
        glow::COLOR_ATTACHMENT2,
    ];
    // SAFETY: the context is current on this thread; every pointer passed lives across its call.
    unsafe {
        let fbo = gl.create_framebuffer()?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        for (att, format) in attachments
            .iter()
            .zip([glow::RGBA8, glow::RGBA8UI, glow::RGBA16I])
        {
            let t = gl.create_texture()?;
            gl.bind_texture(glow::TEXTURE_2D, Some(t));
            gl.tex_storage_2d(glow::TEXTURE_2D, 1, format, SIZE, SIZE);
            gl.framebuffer_texture_2d(glow::FRAMEBUFFER, *att, glow::TEXTURE_2D, Some(t), 0);
        }
        if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
            return Err("framebuffer incomplete".into());
        }
        gl.draw_buffers(&attachments);
        gl.clear_buffer_f32_slice(glow::COLOR, 0, &[0.25, 0.5, 0.75, 1.0]);
        gl.clear_buffer_u32_slice(glow::COLOR, 1, &[7, 8, 9, 250]);
        gl.clear_buffer_i32_slice(glow::COLOR, 2, &[-3, 300, -32768, 32767]);
        gl_error(gl, "whole clears")?;
        gl.enable(glow::SCISSOR_TEST);
        gl.scissor(2, 1, 3, 4);
        gl.clear_buffer_u32_slice(glow::COLOR, 1, &[1, 2, 3, 4]);
        gl.disable(glow::SCISSOR_TEST);
        gl.color_mask(true, false, true, false);
        gl.clear_buffer_f32_slice(glow::COLOR, 0, &[1.0, 0.0, 0.0, 0.0]);
        gl.color_mask(true, true, true, true);
        gl_error(gl, "scissored and masked clears")?;
        for (i, att) in attachments.iter().enumerate() {
            gl.read_buffer(*att);
            let (format, ty, bytes) = match i {
                0 => (glow::RGBA, glow::UNSIGNED_BYTE, 4),
                1 => (glow::RGBA_INTEGER, glow::UNSIGNED_INT, 16),
                _ => (glow::RGBA_INTEGER, glow::INT, 16),
            };
            let mut px = vec![0u8; (SIZE * SIZE * bytes) as usize];
            gl.read_pixels(
                0,
                0,
                SIZE,
                SIZE,
                format,
                ty,
                glow::PixelPackData::Slice(Some(&mut px)),
            );
            gl_error(gl, "glReadPixels")?;
            println!("att{i}: {}", hex(&px));
        }
    }
    drop(g);
    Ok(())
}

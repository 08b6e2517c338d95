//! Render targets: rendering to textures, multiple targets, integer, float and packed formats,
//! mixed sizes.

use super::*;

/// Render to texture, then sample it: a 32x32 texture cleared and drawn into through its own
/// framebuffer object (a vertex-coloured triangle and a rectangle), then magnified 2x onto the
/// 64x64 target with nearest filtering. The first render must be complete before the second
/// samples it (the driver flushes the texture's batch at the framebuffer switch).
pub(crate) fn texture_render_target(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        let main = framebuffer(gl, 1, false, false)?;
        let tex = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            glow::RGBA as i32,
            32,
            32,
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
        // Pass 1 (VS_COLOUR's pixel space is 64 wide: 2 units per texel here).
        gl.viewport(0, 0, 32, 32);
        gl.clear_color(0.2, 0.4, 0.6, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        let mut v = tri([[6.3, 4.1], [58.7, 12.9], [20.2, 57.6]], 0.0, RGB3);
        v.extend(rect(40.3, 36.2, 60.9, 61.7, 0.0, k(250, 200, 10, 255)));
        draw_coloured(gl, &v, glow::TRIANGLES)?;
        // Pass 2: sample it across the whole target.
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(main));
        gl.viewport(0, 0, SIZE, SIZE);
        gl.clear_color(BG[0], BG[1], BG[2], BG[3]);
        gl.clear(glow::COLOR_BUFFER_BIT);
        let p = program(gl, VS_TEXTURED, FS_TEXTURED, &["a_pos", "a_tc"])?;
        let v = [
            0.0f32, 0.0, 0.0, 0.0, 64.0, 0.0, 1.0, 0.0, 64.0, 64.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0,
            64.0, 64.0, 1.0, 1.0, 0.0, 64.0, 0.0, 1.0,
        ];
        vertices(gl, &v, &[2, 2])?;
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        let loc = gl.get_uniform_location(p, "u_tex");
        gl.uniform_1_i32(loc.as_ref(), 0);
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        check(gl, "sampling the rendered texture")?;
        Ok(read(gl, 1)?)
    }
}

/// A draw that samples the texture it renders into (a feedback loop: GLES 3.0 §4.4.3 leaves
/// the sampled values undefined, not the draw). The texture is the scene's colour target,
/// bound to unit 0; the shader's colour does not depend on the sampled value
/// (`step(2.0, t)` is 0 for any unorm texel), so the image is defined: two red triangles over
/// the clear colour. agx16 refused the second draw; the M4 driver samples what memory holds.
pub(crate) fn feedback_loop_draw(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision highp float;
uniform sampler2D u_tex;
varying vec2 v_tc;
void main() { gl_FragColor = vec4(0.9, 0.1, 0.2, 1.0) + step(2.0, texture2D(u_tex, v_tc)); }
";
    unsafe {
        framebuffer(gl, 1, false, false)?;
        let p = program(gl, VS_TEXTURED, FS, &["a_pos", "a_tc"])?;
        let v = [
            10.3f32, 40.1, 0.0, 0.0, 55.2, 20.7, 1.0, 0.0, 35.9, 58.4, 0.5, 1.0, 3.2, 5.1, 0.0,
            0.0, 60.7, 9.3, 1.0, 0.0, 30.2, 61.6, 0.5, 1.0,
        ];
        vertices(gl, &v, &[2, 2])?;
        gl.active_texture(glow::TEXTURE0);
        let name = gl.get_framebuffer_attachment_parameter_i32(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::FRAMEBUFFER_ATTACHMENT_OBJECT_NAME,
        );
        let target = std::num::NonZeroU32::new(name as u32)
            .map(glow::NativeTexture)
            .ok_or_else(|| String::from("the colour attachment has no texture name"))?;
        gl.bind_texture(glow::TEXTURE_2D, Some(target));
        let loc = gl.get_uniform_location(p, "u_tex");
        gl.uniform_1_i32(loc.as_ref(), 0);
        // Two draws in one render: the second samples what the first rendered.
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl.draw_arrays(glow::TRIANGLES, 3, 3);
        check(gl, "the draws sampling their own target")?;
        Ok(read(gl, 1)?)
    }
}

/// Multiple render targets (ES 3.0): three colour outputs of one fragment shader.
pub(crate) fn mrt(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_col;
out vec4 v_col;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_col = a_col; }
";
    const FS: &str = "#version 300 es
precision mediump float;
in vec4 v_col;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
void main() { o0 = v_col; o1 = v_col.bgra; o2 = vec4(1.0) - v_col; }
";
    unsafe {
        framebuffer(gl, 3, false, false)?;
        program(gl, VS, FS, &[])?;
        let v: Vec<f32> = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3)
            .chunks(7)
            .flat_map(|c| [c[0], c[1], c[3], c[4], c[5], c[6]])
            .collect();
        vertices(gl, &v, &[2, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        check(gl, "MRT draw")?;
        Ok(read(gl, 3)?)
    }
}

/// A framebuffer of colour renderbuffers of the given internal formats (attachment i =
/// `formats[i]`), every attachment a draw buffer; nothing cleared.
unsafe fn rb_framebuffer(gl: &Gl, formats: &[u32]) -> Res<glow::Framebuffer> {
    let fbo = gl.create_framebuffer()?;
    gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
    for (i, &f) in formats.iter().enumerate() {
        let rb = gl.create_renderbuffer()?;
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
        gl.renderbuffer_storage(glow::RENDERBUFFER, f, SIZE, SIZE);
        check(gl, &format!("glRenderbufferStorage({f:#x})"))?;
        gl.framebuffer_renderbuffer(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0 + i as u32,
            glow::RENDERBUFFER,
            Some(rb),
        );
    }
    let bufs: Vec<u32> = (0..formats.len() as u32)
        .map(|i| glow::COLOR_ATTACHMENT0 + i)
        .collect();
    gl.draw_buffers(&bufs);
    let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
    if status != glow::FRAMEBUFFER_COMPLETE {
        return Err(format!("framebuffer incomplete ({status:#x})"));
    }
    gl.viewport(0, 0, SIZE, SIZE);
    Ok(fbo)
}

/// Reads colour attachment `i` as integers (RGBA_INTEGER with `ty` INT or UNSIGNED_INT) and
/// keeps each component's low byte, one RGBA8-sized image per attachment.
unsafe fn read_integer(gl: &Gl, i: u32, ty: u32) -> Res<Vec<u8>> {
    gl.read_buffer(glow::COLOR_ATTACHMENT0 + i);
    let mut px = vec![0u8; (SIZE * SIZE * 16) as usize];
    gl.read_pixels(
        0,
        0,
        SIZE,
        SIZE,
        glow::RGBA_INTEGER,
        ty,
        glow::PixelPackData::Slice(Some(&mut px)),
    );
    check(gl, "glReadPixels(RGBA_INTEGER)")?;
    // One byte per component that every bit of the 32-bit value feeds.
    Ok(px.chunks(4).map(|c| c[0] ^ c[1] ^ c[2] ^ c[3]).collect())
}

/// Four render targets with a GL_NONE draw buffer between them, blending and a colour mask
/// applied to every target: attachment 1 keeps its clear, 0, 2 and 3 get two overlapping
/// alpha-blended triangles with green masked off.
pub(crate) fn mrt_gaps(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_col;
out vec4 v_col;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_col = a_col; }
";
    const FS: &str = "#version 300 es
precision mediump float;
in vec4 v_col;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
void main() {
    o0 = v_col; o1 = vec4(1.0, 0.0, 1.0, 1.0);
    o2 = vec4(v_col.bgr, 0.5); o3 = vec4(1.0) - v_col;
}
";
    unsafe {
        framebuffer(gl, 4, false, false)?;
        gl.draw_buffers(&[
            glow::COLOR_ATTACHMENT0,
            glow::NONE,
            glow::COLOR_ATTACHMENT2,
            glow::COLOR_ATTACHMENT3,
        ]);
        program(gl, VS, FS, &[])?;
        let mut c = RGB3;
        for v in &mut c {
            v[3] = 0.6;
        }
        let mut v: Vec<f32> = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, c).to_vec();
        v.extend(tri([[60.3, 60.4], [5.2, 30.1], [50.7, 1.8]], 0.0, RGB3));
        let v: Vec<f32> = v
            .chunks(7)
            .flat_map(|c| [c[0], c[1], c[3], c[4], c[5], c[6]])
            .collect();
        vertices(gl, &v, &[2, 4])?;
        gl.enable(glow::BLEND);
        gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
        gl.color_mask(true, false, true, true);
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        check(gl, "MRT draw")?;
        gl.color_mask(true, true, true, true);
        gl.disable(glow::BLEND);
        Ok(read(gl, 4)?)
    }
}

/// Per-target blending and colour masks (OES_draw_buffers_indexed: glEnablei, glBlendFunci,
/// glBlendEquationi, glColorMaski): four targets, each with its own blend function, equation
/// and mask, two overlapping triangles.
pub(crate) fn mrt_indexed_blend(gl: &Gl, c: &Ctx) -> Frame {
    if !c.has("GL_OES_draw_buffers_indexed") {
        return Err(Outcome::Error(
            "per-target blending needs GL_OES_draw_buffers_indexed".into(),
        ));
    }
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_col;
out vec4 v_col;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_col = a_col; }
";
    const FS: &str = "#version 300 es
precision mediump float;
in vec4 v_col;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
void main() { o0 = v_col; o1 = v_col.gbra; o2 = vec4(v_col.rgb, 0.25); o3 = vec4(1.0) - v_col; }
";
    unsafe {
        framebuffer(gl, 4, false, false)?;
        program(gl, VS, FS, &[])?;
        let mut col = RGB3;
        for v in &mut col {
            v[3] = 0.6;
        }
        let mut v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, col);
        v.extend(tri([[60.3, 60.4], [5.2, 30.1], [50.7, 1.8]], 0.0, col));
        let v: Vec<f32> = v
            .chunks(7)
            .flat_map(|c| [c[0], c[1], c[3], c[4], c[5], c[6]])
            .collect();
        vertices(gl, &v, &[2, 4])?;
        // 0: alpha blending; 1: blending off, green and alpha masked; 2: additive with a
        // reverse-subtract alpha; 3: min, red masked.
        gl.enable_draw_buffer(glow::BLEND, 0);
        gl.blend_func_draw_buffer(0, glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
        gl.disable_draw_buffer(glow::BLEND, 1);
        gl.color_mask_draw_buffer(1, true, false, true, false);
        gl.enable_draw_buffer(glow::BLEND, 2);
        gl.blend_func_draw_buffer(2, glow::ONE, glow::ONE);
        gl.blend_equation_separate_draw_buffer(2, glow::FUNC_ADD, glow::FUNC_REVERSE_SUBTRACT);
        gl.enable_draw_buffer(glow::BLEND, 3);
        gl.blend_equation_draw_buffer(3, glow::MIN);
        gl.color_mask_draw_buffer(3, false, true, true, true);
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        check(gl, "indexed blend draw")?;
        gl.disable(glow::BLEND);
        gl.color_mask(true, true, true, true);
        Ok(read(gl, 4)?)
    }
}

/// Integer render targets (RGBA8UI, RGBA32I, RGBA16UI): glClearBufferuiv/iv per target, then flat
/// integer varyings and integer arithmetic written to each; read back as integers. The flat
/// varyings carry INT_MIN (the bits of -0.0) and a signalling-NaN bit pattern, which must arrive
/// bit for bit (dEQP fragment_out.random.12 caught INT_MIN coming out as 0).
pub(crate) fn rt_integer(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_col;
flat out uvec4 v_u;
flat out int v_i;
flat out ivec2 v_x;
void main() {
    gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0);
    v_u = uvec4(a_col * 255.0);
    v_i = gl_VertexID * 37 - 100;
    // Not constants (the linker would fold them into the fragment shader): gl_VertexID >> 8 is 0.
    v_x = ivec2(int(0x80000000u), int(0x7f800001u)) | ivec2(gl_VertexID >> 8);
}
";
    const FS: &str = "#version 300 es
precision highp float;
precision highp int;
flat in uvec4 v_u;
flat in int v_i;
flat in ivec2 v_x;
layout(location = 0) out uvec4 o0;
layout(location = 1) out ivec4 o1;
layout(location = 2) out uvec4 o2;
layout(location = 3) out uvec4 o3;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    o0 = v_u + uvec4(uint(p.x), uint(p.y), 7u, 0u);
    o1 = ivec4(v_i * (p.x - 20) + p.y, v_x.x + (p.x & 1), v_i, -70000 - p.y);
    o2 = uvec4(v_u.x * 300u + uint(p.x), 70000u + uint(p.y), v_u.z, 65535u);
    o3 = uvec4(0xdeadbe00u + uint(p.x), uint(v_i), v_u.y << 20, uint(v_x.y) ^ uint(p.y & 1));
}
";
    unsafe {
        rb_framebuffer(
            gl,
            &[glow::RGBA8UI, glow::RGBA32I, glow::RGBA16UI, glow::RGBA32UI],
        )?;
        // Each unsigned clear has a component >= 2^23: softpipe takes a clear whose four
        // words all read as zero floats (denormals flushed) for a clear to zero. Values past
        // an 8/16-bit format's range clamp to its maximum in both (Mesa's util_format pack).
        gl.clear_buffer_u32_slice(glow::COLOR, 0, &[3, 250, 77, 0x0080_0009]);
        gl.clear_buffer_i32_slice(glow::COLOR, 1, &[-5, 100000, -300, 7]);
        gl.clear_buffer_u32_slice(glow::COLOR, 2, &[65535, 1234, 0x0080_0000, 70000]);
        gl.clear_buffer_u32_slice(
            glow::COLOR,
            3,
            &[0x8000_0003, 0x0080_00fa, 0x1234_5678, 0xff00_0009],
        );
        check(gl, "glClearBuffer")?;
        program(gl, VS, FS, &[])?;
        let mut v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
        v.extend(tri([[40.3, 60.4], [62.2, 30.1], [60.7, 61.8]], 0.0, RGB3));
        let v: Vec<f32> = v
            .chunks(7)
            .flat_map(|c| [c[0], c[1], c[3], c[4], c[5], c[6]])
            .collect();
        vertices(gl, &v, &[2, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        // A second render without a clear: the targets' earlier contents are reloaded.
        gl.finish();
        gl.draw_arrays(glow::TRIANGLES, 3, 3);
        check(gl, "integer draw")?;
        Ok(vec![
            read_integer(gl, 0, glow::UNSIGNED_INT)?,
            read_integer(gl, 1, glow::INT)?,
            read_integer(gl, 2, glow::UNSIGNED_INT)?,
            read_integer(gl, 3, glow::UNSIGNED_INT)?,
        ])
    }
}

/// Normalised render-target formats other than RGBA8 (SRGB8_ALPHA8 with linear → sRGB
/// encoding and blending in linear space, RGB565, RGB10_A2, RGBA4, RGB5_A1), cleared and
/// drawn with blending, read back as RGBA8. (R8 and RG8 attachments need ARB_texture_rg, which
/// also needs them sampled.)
unsafe fn rt_formats(gl: &Gl, formats: &[u32]) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_col;
out vec4 v_col;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_col = a_col; }
";
    const FS: &str = "#version 300 es
precision highp float;
in vec4 v_col;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
void main() { o0 = v_col; o1 = v_col.gbra; o2 = v_col.brga; o3 = vec4(v_col.rgb * 0.7, v_col.a); }
";
    rb_framebuffer(gl, formats)?;
    // 0 and 1 only: exact in every format, so blending reads the same destination whether a
    // renderer keeps the quantised value (as GL specifies) or the clear colour itself
    // (softpipe's tile cache keeps the float).
    gl.clear_color(0.0, 1.0, 1.0, 1.0);
    gl.clear(glow::COLOR_BUFFER_BIT);
    program(gl, VS, FS, &[])?;
    let mut c = RGB3;
    for v in &mut c {
        v[3] = 0.7;
    }
    let mut v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, c);
    v.extend(tri([[60.3, 60.4], [5.2, 30.1], [50.7, 1.8]], 0.0, c));
    let v: Vec<f32> = v
        .chunks(7)
        .flat_map(|c| [c[0], c[1], c[3], c[4], c[5], c[6]])
        .collect();
    vertices(gl, &v, &[2, 4])?;
    gl.enable(glow::BLEND);
    gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
    gl.draw_arrays(glow::TRIANGLES, 0, 3);
    // A second render without a clear: the targets' earlier contents are reloaded.
    gl.finish();
    gl.draw_arrays(glow::TRIANGLES, 3, 3);
    gl.disable(glow::BLEND);
    check(gl, "format draw")?;
    Ok(read(gl, formats.len() as u32)?)
}

pub(crate) fn rt_srgb_565(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { rt_formats(gl, &[glow::SRGB8_ALPHA8, glow::RGB565, glow::RGBA8]) }
}

/// R8 and RG8 attachments (ARB_texture_rg, which needs them sampled too).
pub(crate) fn rt_r8_rg8(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { rt_formats(gl, &[glow::R8, glow::RG8, glow::RGBA8]) }
}

pub(crate) fn rt_packed_formats(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { rt_formats(gl, &[glow::RGB10_A2, glow::RGBA4, glow::RGB5_A1]) }
}

/// Float render targets (RGBA16F, R11F_G11F_B10F, RGBA32F, R16F; EXT_color_buffer_float,
/// which needs them sampled too): values every format holds exactly, cleared with
/// glClearBufferfv and drawn, read back as floats, each component stored as min(4v, 255)
/// (negative → 0) in an RGBA8-sized image.
pub(crate) fn rt_float(gl: &Gl, c: &Ctx) -> Frame {
    if !c.has("GL_EXT_color_buffer_float") {
        return Err(Outcome::Error(
            "float render targets need GL_EXT_color_buffer_float".into(),
        ));
    }
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); }
";
    const FS: &str = "#version 300 es
precision highp float;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
void main() {
    vec2 p = floor(gl_FragCoord.xy) * 0.25;
    o0 = vec4(p, 96.0, -3.0);
    o1 = vec4(p.yx, 48.0, 1.0);
    o2 = vec4(p * 2.0, 0.125, 1e6);
    o3 = vec4(p.x + p.y, 0.0, 0.0, 1.0);
}
";
    unsafe {
        rb_framebuffer(
            gl,
            &[
                glow::RGBA16F,
                glow::R11F_G11F_B10F,
                glow::RGBA32F,
                glow::R16F,
            ],
        )?;
        for i in 0..4 {
            gl.clear_buffer_f32_slice(glow::COLOR, i, &[0.5, 2.25, 8.0, 1.0]);
        }
        check(gl, "glClearBufferfv")?;
        program(gl, VS, FS, &[])?;
        let v = [
            3.4f32, 2.7, 61.3, 5.2, 28.9, 62.1, 60.3, 60.4, 40.2, 62.1, 62.2, 30.1,
        ];
        vertices(gl, &v, &[2])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        // A second render without a clear: the targets' earlier contents are reloaded.
        gl.finish();
        gl.draw_arrays(glow::TRIANGLES, 3, 3);
        check(gl, "float draw")?;
        read_float_targets(gl, 4)
    }
}

/// Colour targets 0..n read back as floats, each channel times 4 clamped into a byte (the image
/// the suite compares; finer differences show as the scenes' values are multiples of 1/4).
unsafe fn read_float_targets(gl: &Gl, n: u32) -> Frame {
    let mut images = Vec::new();
    for i in 0..n {
        gl.read_buffer(glow::COLOR_ATTACHMENT0 + i);
        let mut px = vec![0u8; (SIZE * SIZE * 16) as usize];
        gl.read_pixels(
            0,
            0,
            SIZE,
            SIZE,
            glow::RGBA,
            glow::FLOAT,
            glow::PixelPackData::Slice(Some(&mut px)),
        );
        check(gl, "glReadPixels(FLOAT)")?;
        images.push(
            px.chunks(4)
                .map(|b| {
                    let v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    (v * 4.0).clamp(0.0, 255.0) as u8
                })
                .collect(),
        );
    }
    Ok(images)
}

/// Blending on 32-bit float targets (EXT_float_blend): an RGBA32F and an R32F target, additive
/// (ONE, ONE) then SRC_ALPHA / ONE_MINUS_SRC_ALPHA over overlapping triangles, with values outside
/// [0, 1] that an 8- or 16-bit target could not hold; read back as floats (x4 scale, as rt_float).
pub(crate) fn rt_float_blend(gl: &Gl, c: &Ctx) -> Frame {
    if !c.has("GL_EXT_float_blend") {
        return Err(Outcome::Error(
            "blending on float32 targets needs GL_EXT_float_blend".into(),
        ));
    }
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); }
";
    const FS: &str = "#version 300 es
precision highp float;
uniform float u_k;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
void main() {
    vec2 p = floor(gl_FragCoord.xy) * 0.125;
    o0 = vec4(p * u_k, 40.0 - u_k * 7.0, 0.25 * u_k);
    o1 = vec4(p.x * p.y * u_k, 0.0, 0.0, 0.5);
}
";
    unsafe {
        rb_framebuffer(gl, &[glow::RGBA32F, glow::R32F])?;
        for i in 0..2 {
            gl.clear_buffer_f32_slice(glow::COLOR, i, &[1.5, 12.0, 3.0, 1.0]);
        }
        let p = program(gl, VS, FS, &[])?;
        let k = gl.get_uniform_location(p, "u_k");
        let v = [
            3.4f32, 2.7, 61.3, 5.2, 28.9, 62.1, 60.3, 60.4, 40.2, 62.1, 2.2, 30.1,
        ];
        vertices(gl, &v, &[2])?;
        gl.enable(glow::BLEND);
        gl.blend_func(glow::ONE, glow::ONE);
        gl.uniform_1_f32(k.as_ref(), 1.0);
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
        gl.uniform_1_f32(k.as_ref(), 3.0);
        gl.draw_arrays(glow::TRIANGLES, 3, 3);
        check(gl, "float blending")?;
        read_float_targets(gl, 2)
    }
}

/// Attachments of different sizes (ES 3.0 / ARB_framebuffer_object: the render area is the
/// smallest). First a 64x64 texture holding a pattern, a 32x32 renderbuffer and a 64x48 depth
/// buffer (cleared): depth-tested draws reach only the 32x32 area, the texture keeps its
/// pattern outside it. Then the texture with a 40x24 renderbuffer.
/// Images: the texture and the small renderbuffer (padded to 64x64 with zeros), twice.
pub(crate) fn mixed_sizes(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_col;
out vec4 v_col;
void main() { gl_Position = vec4(a_pos.xy / 16.0 - 1.0, a_pos.z, 1.0); v_col = a_col; }
";
    const FS: &str = "#version 300 es
precision mediump float;
in vec4 v_col;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
void main() { o0 = v_col; o1 = v_col.gbra; }
";
    let pattern: Vec<u8> = (0..SIZE * SIZE)
        .flat_map(|i| [(i % 64 * 4) as u8, (i / 64 * 4) as u8, 0x5a, 0xff])
        .collect();
    unsafe {
        let read_small = |i: u32, w: i32, h: i32| -> Res<Vec<u8>> {
            gl.read_buffer(glow::COLOR_ATTACHMENT0 + i);
            let mut px = vec![0u8; (w * h * 4) as usize];
            gl.read_pixels(
                0,
                0,
                w,
                h,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut px)),
            );
            check(gl, "glReadPixels")?;
            let mut img = vec![0u8; (SIZE * SIZE * 4) as usize];
            for y in 0..h as usize {
                let row = &px[y * w as usize * 4..(y + 1) * w as usize * 4];
                img[y * SIZE as usize * 4..][..row.len()].copy_from_slice(row);
            }
            Ok(img)
        };
        let tex = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            SIZE,
            SIZE,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(&pattern)),
        );
        gl.tex_parameter_i32(
            glow::TEXTURE_2D,
            glow::TEXTURE_MIN_FILTER,
            glow::NEAREST as i32,
        );
        let rb = |format: u32, w: i32, h: i32| -> Res<glow::Renderbuffer> {
            let rb = gl.create_renderbuffer()?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
            gl.renderbuffer_storage(glow::RENDERBUFFER, format, w, h);
            check(gl, "glRenderbufferStorage")?;
            Ok(rb)
        };
        program(gl, VS, FS, &[])?;
        let mut images = Vec::new();
        for (w, h, depth) in [(32, 32, true), (40, 24, false)] {
            let fbo = gl.create_framebuffer()?;
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                Some(tex),
                0,
            );
            let small = rb(glow::RGBA8, w, h)?;
            gl.framebuffer_renderbuffer(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT1,
                glow::RENDERBUFFER,
                Some(small),
            );
            if depth {
                let d = rb(glow::DEPTH_COMPONENT16, 64, 48)?;
                gl.framebuffer_renderbuffer(
                    glow::FRAMEBUFFER,
                    glow::DEPTH_ATTACHMENT,
                    glow::RENDERBUFFER,
                    Some(d),
                );
            }
            gl.draw_buffers(&[glow::COLOR_ATTACHMENT0, glow::COLOR_ATTACHMENT1]);
            let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
            if status != glow::FRAMEBUFFER_COMPLETE {
                return Err(Outcome::Error(format!(
                    "{w}x{h}: framebuffer incomplete ({status:#x})"
                )));
            }
            gl.viewport(0, 0, 32, 32);
            // The small target has no earlier contents: clear it (its own size). The texture
            // is not cleared: softpipe clears whole surfaces, past the render area GL limits
            // a clear to.
            gl.clear_buffer_f32_slice(glow::COLOR, 1, &[0.2, 0.4, 0.6, 1.0]);
            if depth {
                gl.clear_depth_f32(1.0);
                gl.clear(glow::DEPTH_BUFFER_BIT);
                gl.enable(glow::DEPTH_TEST);
            }
            let mut v = tri([[1.3, 2.4], [31.2, 5.1], [10.7, 30.8]], 0.5, RGB3);
            v.extend(tri([[30.3, 30.4], [2.2, 15.1], [25.7, 0.8]], 0.2, RGB3));
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            gl.disable(glow::DEPTH_TEST);
            check(gl, &format!("{w}x{h} draw"))?;
            images.push(read_small(0, SIZE, SIZE)?);
            images.push(read_small(1, w, h)?);
        }
        Ok(images)
    }
}

/// Reads colour attachment `i` as floats (RGBA FLOAT), each channel times 4 clamped into a
/// byte (see [`read_float_targets`]).
unsafe fn read_float_target(gl: &Gl, i: u32) -> Res<Vec<u8>> {
    gl.read_buffer(glow::COLOR_ATTACHMENT0 + i);
    let mut px = vec![0u8; (SIZE * SIZE * 16) as usize];
    gl.read_pixels(
        0,
        0,
        SIZE,
        SIZE,
        glow::RGBA,
        glow::FLOAT,
        glow::PixelPackData::Slice(Some(&mut px)),
    );
    check(gl, "glReadPixels(FLOAT)")?;
    Ok(px
        .chunks(4)
        .map(|b| (f32::from_le_bytes([b[0], b[1], b[2], b[3]]) * 4.0).clamp(0.0, 255.0) as u8)
        .collect())
}

/// Reads colour attachment `i` as RGBA8 (a normalised target).
unsafe fn read_unorm_target(gl: &Gl, i: u32) -> Res<Vec<u8>> {
    gl.read_buffer(glow::COLOR_ATTACHMENT0 + i);
    let mut px = vec![0u8; (SIZE * SIZE * 4) as usize];
    gl.read_pixels(
        0,
        0,
        SIZE,
        SIZE,
        glow::RGBA,
        glow::UNSIGNED_BYTE,
        glow::PixelPackData::Slice(Some(&mut px)),
    );
    check(gl, "glReadPixels")?;
    Ok(px)
}

/// Eight colour targets of mixed formats (GL_MAX_DRAW_BUFFERS 8): normalised, half and full
/// float, integer and packed targets, each written by its own output, cleared with
/// glClearBuffer, drawn, then drawn again in a second render without a clear (every target
/// reloaded). 60 tilebuffer bytes per pixel.
pub(crate) fn mrt8_mixed(gl: &Gl, c: &Ctx) -> Frame {
    if !c.has("GL_EXT_color_buffer_float") {
        return Err(Outcome::Error(
            "float render targets need GL_EXT_color_buffer_float".into(),
        ));
    }
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_col;
out vec4 v_col;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_col = a_col; }
";
    const FS: &str = "#version 300 es
precision highp float;
precision highp int;
in vec4 v_col;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
layout(location = 4) out uvec4 o4;
layout(location = 5) out ivec4 o5;
layout(location = 6) out vec4 o6;
layout(location = 7) out uvec4 o7;
void main() {
    vec2 p = floor(gl_FragCoord.xy);
    o0 = v_col;
    o1 = vec4(p * 0.25, 12.5, 1.0);
    o2 = vec4(p.yx * 0.5, -2.0, 48.0);
    o3 = vec4(v_col.gb, 0.0, 1.0);
    o4 = uvec4(uint(p.x) * 1000u + uint(p.y), 0u, 0u, 1u);
    o5 = ivec4(int(p.x) - 32, -int(p.y), 5, 1);
    o6 = vec4(v_col.bgr, 0.0);
    o7 = uvec4(uint(p.x), uint(p.y), 0xdeadbeefu, uint(clamp(v_col.r, 0.0, 1.0) * 255.0));
}
";
    unsafe {
        rb_framebuffer(
            gl,
            &[
                glow::RGBA8,
                glow::RGBA16F,
                glow::RGBA32F,
                glow::RG8,
                glow::R32UI,
                glow::RGBA8I,
                glow::RGB10_A2,
                glow::RGBA32UI,
            ],
        )?;
        for i in [0, 3, 6] {
            gl.clear_buffer_f32_slice(glow::COLOR, i, &[0.2, 0.4, 0.6, 1.0]);
        }
        gl.clear_buffer_f32_slice(glow::COLOR, 1, &[0.5, 2.25, 8.0, 1.0]);
        gl.clear_buffer_f32_slice(glow::COLOR, 2, &[1.5, 3.0, 0.25, 2.0]);
        gl.clear_buffer_u32_slice(glow::COLOR, 4, &[0x0080_0007, 0, 0, 0]);
        gl.clear_buffer_i32_slice(glow::COLOR, 5, &[-7, 100, 3, -1]);
        gl.clear_buffer_u32_slice(glow::COLOR, 7, &[9, 0x0080_0000, 77, 1234]);
        check(gl, "glClearBuffer")?;
        program(gl, VS, FS, &[])?;
        let mut v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
        v.extend(tri([[40.3, 60.4], [62.2, 30.1], [60.7, 61.8]], 0.0, RGB3));
        let v: Vec<f32> = v
            .chunks(7)
            .flat_map(|c| [c[0], c[1], c[3], c[4], c[5], c[6]])
            .collect();
        vertices(gl, &v, &[2, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        // A second render without a clear: every target's earlier contents are reloaded.
        gl.finish();
        gl.draw_arrays(glow::TRIANGLES, 3, 3);
        check(gl, "eight-target draw")?;
        Ok(vec![
            read_unorm_target(gl, 0)?,
            read_float_target(gl, 1)?,
            read_float_target(gl, 2)?,
            read_unorm_target(gl, 3)?,
            read_integer(gl, 4, glow::UNSIGNED_INT)?,
            read_integer(gl, 5, glow::INT)?,
            read_unorm_target(gl, 6)?,
            read_integer(gl, 7, glow::UNSIGNED_INT)?,
        ])
    }
}

/// Eight RGBA32F targets: 128 tilebuffer bytes per pixel, the whole 1x budget (a 32x16
/// utile), each target a different function of the pixel, drawn over a clear.
pub(crate) fn mrt8_rgba32f(gl: &Gl, c: &Ctx) -> Frame {
    if !c.has("GL_EXT_color_buffer_float") {
        return Err(Outcome::Error(
            "float render targets need GL_EXT_color_buffer_float".into(),
        ));
    }
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); }
";
    let mut fs = String::from("#version 300 es\nprecision highp float;\n");
    for i in 0..8 {
        fs += &format!("layout(location = {i}) out vec4 o{i};\n");
    }
    fs += "void main() {\n    vec2 p = floor(gl_FragCoord.xy) * 0.25;\n";
    for i in 0..8 {
        fs += &format!(
            "    o{i} = vec4(p.x + {i}.0, p.y * {}.0, {}.0 - p.x, {i}.0);\n",
            i + 1,
            16 + 4 * i
        );
    }
    fs += "}\n";
    unsafe {
        rb_framebuffer(gl, &[glow::RGBA32F; 8])?;
        for i in 0..8 {
            gl.clear_buffer_f32_slice(glow::COLOR, i, &[0.25 * i as f32, 1.0, 2.0, 63.0]);
        }
        check(gl, "glClearBufferfv")?;
        program(gl, VS, &fs, &[])?;
        let v = [3.4f32, 2.7, 61.3, 5.2, 28.9, 62.1];
        vertices(gl, &v, &[2])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        check(gl, "eight-target draw")?;
        read_float_targets(gl, 8)
    }
}

//! Shared helpers: GL error checks, framebuffers, programs, vertex buffers, read-back, the
//! shaders many scenes use and shape builders in pixel coordinates.

use super::*;

pub(crate) fn check(gl: &Gl, what: &str) -> Res<()> {
    // SAFETY: a query on the current context.
    match unsafe { gl.get_error() } {
        glow::NO_ERROR => Ok(()),
        e => Err(format!("{what}: GL error {e:#x}")),
    }
}

/// A 64x64 RGBA8 texture-backed framebuffer with `targets` colour attachments and optional
/// depth (DEPTH_COMPONENT16), stencil (packed depth24/stencil8 when `stencil`), cleared to BG,
/// depth 1, stencil 0.
pub(crate) unsafe fn framebuffer(
    gl: &Gl,
    targets: u32,
    depth: bool,
    stencil: bool,
) -> Res<glow::Framebuffer> {
    framebuffer_with(gl, targets, depth, stencil, false)
}

/// As `framebuffer`; with `packed`, depth and stencil share one DEPTH24_STENCIL8 renderbuffer,
/// otherwise stencil alone is a STENCIL_INDEX8 renderbuffer (core ES 2.0).
pub(crate) unsafe fn framebuffer_with(
    gl: &Gl,
    targets: u32,
    depth: bool,
    stencil: bool,
    packed: bool,
) -> Res<glow::Framebuffer> {
    let fbo = gl.create_framebuffer()?;
    gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
    for i in 0..targets {
        let tex = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            glow::RGBA as i32,
            SIZE,
            SIZE,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(None),
        );
        gl.tex_parameter_i32(
            glow::TEXTURE_2D,
            glow::TEXTURE_MIN_FILTER,
            glow::NEAREST as i32,
        );
        gl.framebuffer_texture_2d(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0 + i,
            glow::TEXTURE_2D,
            Some(tex),
            0,
        );
    }
    gl.bind_texture(glow::TEXTURE_2D, None);
    let attach = |format: u32, points: &[u32]| -> Res<()> {
        let rb = gl.create_renderbuffer()?;
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
        gl.renderbuffer_storage(glow::RENDERBUFFER, format, SIZE, SIZE);
        check(gl, "glRenderbufferStorage")?;
        for &p in points {
            gl.framebuffer_renderbuffer(glow::FRAMEBUFFER, p, glow::RENDERBUFFER, Some(rb));
        }
        Ok(())
    };
    if packed {
        // DEPTH24_STENCIL8: OES_packed_depth_stencil in ES 2.0, core in ES 3.0.
        attach(
            glow::DEPTH24_STENCIL8,
            &[glow::DEPTH_ATTACHMENT, glow::STENCIL_ATTACHMENT],
        )?;
    } else {
        if depth {
            attach(glow::DEPTH_COMPONENT16, &[glow::DEPTH_ATTACHMENT])?;
        }
        if stencil {
            attach(glow::STENCIL_INDEX8, &[glow::STENCIL_ATTACHMENT])?;
        }
    }
    if targets > 1 {
        let bufs: Vec<u32> = (0..targets).map(|i| glow::COLOR_ATTACHMENT0 + i).collect();
        gl.draw_buffers(&bufs);
    }
    let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
    if status != glow::FRAMEBUFFER_COMPLETE {
        return Err(format!("framebuffer incomplete ({status:#x})"));
    }
    gl.viewport(0, 0, SIZE, SIZE);
    gl.clear_color(BG[0], BG[1], BG[2], BG[3]);
    gl.clear_depth_f32(1.0);
    gl.clear_stencil(0);
    let mut bits = glow::COLOR_BUFFER_BIT;
    if depth || packed {
        bits |= glow::DEPTH_BUFFER_BIT;
    }
    if stencil || packed {
        bits |= glow::STENCIL_BUFFER_BIT;
    }
    gl.clear(bits);
    check(gl, "framebuffer clear")?;
    Ok(fbo)
}

pub(crate) unsafe fn read(gl: &Gl, targets: u32) -> Res<Vec<Vec<u8>>> {
    let mut images = Vec::new();
    for i in 0..targets {
        if targets > 1 {
            gl.read_buffer(glow::COLOR_ATTACHMENT0 + i);
        }
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
        images.push(px);
    }
    Ok(images)
}

/// Compiles and links; attributes bound to locations in the order given.
pub(crate) unsafe fn program(gl: &Gl, vs: &str, fs: &str, attribs: &[&str]) -> Res<glow::Program> {
    let p = gl.create_program()?;
    for (kind, src, name) in [
        (glow::VERTEX_SHADER, vs, "vertex"),
        (glow::FRAGMENT_SHADER, fs, "fragment"),
    ] {
        let s = gl.create_shader(kind)?;
        gl.shader_source(s, src);
        gl.compile_shader(s);
        if !gl.get_shader_compile_status(s) {
            return Err(format!(
                "{name} shader compile: {}",
                gl.get_shader_info_log(s).trim()
            ));
        }
        gl.attach_shader(p, s);
    }
    for (i, a) in attribs.iter().enumerate() {
        gl.bind_attrib_location(p, i as u32, a);
    }
    gl.link_program(p);
    if !gl.get_program_link_status(p) {
        return Err(format!("link: {}", gl.get_program_info_log(p).trim()));
    }
    gl.use_program(Some(p));
    Ok(p)
}

/// Uploads `data` as an array buffer and points attributes at it: `sizes` floats each, interleaved.
pub(crate) unsafe fn vertices(gl: &Gl, data: &[f32], sizes: &[i32]) -> Res<()> {
    let vbo = gl.create_buffer()?;
    gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
    let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
    gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
    let stride: i32 = sizes.iter().sum::<i32>() * 4;
    let mut offset = 0;
    for (i, &n) in sizes.iter().enumerate() {
        gl.enable_vertex_attrib_array(i as u32);
        gl.vertex_attrib_pointer_f32(i as u32, n, glow::FLOAT, false, stride, offset);
        offset += n * 4;
    }
    Ok(())
}

pub(crate) unsafe fn indices<T: Copy>(gl: &Gl, idx: &[T], to_bytes: fn(T) -> Vec<u8>) -> Res<()> {
    let ibo = gl.create_buffer()?;
    gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(ibo));
    let bytes: Vec<u8> = idx.iter().flat_map(|&i| to_bytes(i)).collect();
    gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
    Ok(())
}

pub(crate) unsafe fn uniform4(gl: &Gl, p: glow::Program, name: &str, v: [f32; 4]) {
    let loc = gl.get_uniform_location(p, name);
    gl.uniform_4_f32(loc.as_ref(), v[0], v[1], v[2], v[3]);
}

// ---- shaders shared by many scenes ----

/// Position (xy in pixels, z in clip space) and colour attributes; colour interpolated.
pub(crate) const VS_COLOUR: &str = "attribute vec3 a_pos;
attribute vec4 a_col;
varying vec4 v_col;
void main() {
    gl_Position = vec4(a_pos.xy / 32.0 - 1.0, a_pos.z, 1.0);
    v_col = a_col;
    gl_PointSize = 4.0;
}
";
pub(crate) const FS_COLOUR: &str = "precision mediump float;
varying vec4 v_col;
void main() { gl_FragColor = v_col; }
";
/// Position only (pixels), a uniform colour.
pub(crate) const VS_POS: &str = "attribute vec3 a_pos;
void main() {
    gl_Position = vec4(a_pos.xy / 32.0 - 1.0, a_pos.z, 1.0);
    gl_PointSize = 4.0;
}
";
pub(crate) const FS_UNIFORM: &str = "precision mediump float;
uniform vec4 u_col;
void main() { gl_FragColor = u_col; }
";

/// A triangle in pixel coordinates with corners off the pixel-centre grid, z and a colour per corner.
/// Corners are rounded to 1/16 pixel: the M4 snaps window coordinates to 1/256 pixel before setup
/// (sim/GFX.md "Snapping") and softpipe does not, so a pixel centre within a snapping step of an
/// unsnapped edge could flip; on the 1/16 grid both see the same edges.
pub(crate) fn tri(p: [[f32; 2]; 3], z: f32, c: [[f32; 4]; 3]) -> Vec<f32> {
    let q = |v: f32| (v * 16.0).round() / 16.0;
    (0..3)
        .flat_map(|i| {
            [
                q(p[i][0]),
                q(p[i][1]),
                z,
                c[i][0],
                c[i][1],
                c[i][2],
                c[i][3],
            ]
        })
        .collect()
}

pub(crate) const RGB3: [[f32; 4]; 3] = [
    [1.0, 0.0, 0.0, 1.0],
    [0.0, 1.0, 0.0, 1.0],
    [0.0, 0.0, 1.0, 1.0],
];

pub(crate) fn solid(c: [f32; 4]) -> [[f32; 4]; 3] {
    [c, c, c]
}

/// Colour k/255 (exact in 8 bits).
pub(crate) fn k(r: u8, g: u8, b: u8, a: u8) -> [f32; 4] {
    [r, g, b, a].map(|v| v as f32 / 255.0)
}

/// Axis-aligned rectangle as two triangles (pixel coordinates, edges off centres), one colour.
pub(crate) fn rect(x0: f32, y0: f32, x1: f32, y1: f32, z: f32, c: [f32; 4]) -> Vec<f32> {
    let mut v = tri([[x0, y0], [x1, y0], [x1, y1]], z, solid(c));
    v.extend(tri([[x0, y0], [x1, y1], [x0, y1]], z, solid(c)));
    v
}

/// Draws `data` (pos3 + col4 per vertex) with VS_COLOUR/FS_COLOUR as `mode`.
pub(crate) unsafe fn draw_coloured(gl: &Gl, data: &[f32], mode: u32) -> Res<()> {
    program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
    vertices(gl, data, &[3, 4])?;
    gl.draw_arrays(mode, 0, (data.len() / 7) as i32);
    check(gl, "glDrawArrays")
}

/// The frame of a one-target scene without depth: framebuffer, `body`, read back.
pub(crate) unsafe fn simple(gl: &Gl, body: impl FnOnce() -> Res<()>) -> Frame {
    framebuffer(gl, 1, false, false)?;
    body()?;
    Ok(read(gl, 1)?)
}

/// glTexImage2D of level `level` of `target` (a 2D target or a cube face): `n` x `n` RGBA8
/// texels `data`.
///
/// # Safety
/// A current context with the texture bound.
pub(crate) unsafe fn rgba8_level(gl: &Gl, target: u32, level: i32, n: i32, data: &[u8]) {
    gl.tex_image_2d(
        target,
        level,
        glow::RGBA as i32,
        n,
        n,
        0,
        glow::RGBA,
        glow::UNSIGNED_BYTE,
        glow::PixelUnpackData::Slice(Some(data)),
    );
}

/// A [`simple`] frame of `count` vertices of `v` (position 3, colour 4 floats each) drawn as
/// triangles with [`VS_COLOUR`] and the fragment shader `fs`.
///
/// # Safety
/// A current context.
pub(crate) unsafe fn colour_triangles(gl: &Gl, fs: &str, v: &[f32], count: i32) -> Frame {
    simple(gl, || {
        program(gl, VS_COLOUR, fs, &["a_pos", "a_col"])?;
        vertices(gl, v, &[3, 4])?;
        gl.draw_arrays(glow::TRIANGLES, 0, count);
        check(gl, "glDrawArrays")
    })
}

//! agx16-imagesuite: the image test suite's GLES programs. Each scene renders one frame into a 64x64
//! RGBA8 framebuffer object (some add depth/stencil or a second colour target) on surfaceless EGL and
//! reads it back with glReadPixels; tests/tests/image_suite.rs runs every scene on agx16 and on
//! softpipe (the same Mesa build) and compares the images.
//!
//! Usage: `agx16-imagesuite --list` prints one `scene NAME es=V tol=T slack=S` line per scene
//! (GLES version it needs, per-channel tolerance in 8-bit steps, pixels allowed to differ beyond it);
//! `agx16-imagesuite [NAME...]` renders the named scenes (all without names), each in a fresh
//! context, and prints `GL_RENDERER: ...`, `context: ES V`, then per scene `begin NAME` and one of
//! `ok NAME HEX[ HEX...]` (one hex RGBA image per colour target), `skip NAME: REASON` (the context
//! lacks what the scene needs) or `error NAME: REASON` (a compile/link failure, an incomplete
//! framebuffer or a GL error). `begin NAME` is also written to stderr (`imagesuite: begin NAME`) so
//! the driver's messages can be attributed to the scene that caused them.
//!
//! Tolerances (the test applies them; reasons here, next to the geometry they depend on):
//! * 0: only exactly representable values reach the framebuffer (clear colours k/255, texels copied
//!   by nearest filtering, constant colours k/255 without interpolation or blending arithmetic).
//! * 1 step: a float result converted to 8 bits; GL leaves the rounding of ties and the precision
//!   of interpolation/blending/filtering open within that step. sim/GFX.md "Known gaps": the M4
//!   scene checkers allow one 8-bit step in colour, and the model's tests use the same.
//! * slack: coverage. Triangles and points are placed so no pixel centre lies on an edge (exact
//!   coverage). Lines: the GLES 2.0 spec (§3.4.1) lets the fragments of a non-antialiased line
//!   differ from the diamond-exit rule by one per segment, so line scenes allow one pixel per segment.

#[path = "agx16-imagesuite/texture_targets.rs"]
mod texture_targets;

use glow::HasContext;
use khronos_egl as egl;
use std::ffi::c_void;
use std::io::Write;
use std::process::ExitCode;

const EGL_PLATFORM_SURFACELESS_MESA: egl::Enum = 0x31DD;
const SIZE: i32 = 64;
/// The background of every scene: exactly representable, so clears compare exactly.
const BG: [f32; 4] = [16.0 / 255.0, 32.0 / 255.0, 48.0 / 255.0, 1.0];

type Gl = glow::Context;
type Res<T> = Result<T, String>;
/// One scene's colour targets (RGBA8 rows bottom-up) or why there are none.
type Frame = Result<Vec<Vec<u8>>, Outcome>;

/// What one scene's render function may report besides pixels.
enum Outcome {
    Skip(String),
    Error(String),
}

impl From<String> for Outcome {
    fn from(e: String) -> Outcome {
        Outcome::Error(e)
    }
}

struct Scene {
    name: &'static str,
    /// Lowest GLES major version the scene needs.
    es: u32,
    /// Per-channel tolerance in 8-bit steps (see the module comment).
    tol: u8,
    /// Pixels allowed to differ beyond `tol` (line scenes only).
    slack: usize,
    render: fn(&Gl, &Ctx) -> Frame,
}

/// Facts about the current context the scenes consult.
struct Ctx {
    es: u32,
    extensions: String,
}

impl Ctx {
    fn has(&self, ext: &str) -> bool {
        self.extensions.split_whitespace().any(|e| e == ext)
    }
}

fn check(gl: &Gl, what: &str) -> Res<()> {
    // SAFETY: a query on the current context.
    match unsafe { gl.get_error() } {
        glow::NO_ERROR => Ok(()),
        e => Err(format!("{what}: GL error {e:#x}")),
    }
}

/// A 64x64 RGBA8 texture-backed framebuffer with `targets` colour attachments and optional
/// depth (DEPTH_COMPONENT16), stencil (packed depth24/stencil8 when `stencil`), cleared to BG,
/// depth 1, stencil 0.
unsafe fn framebuffer(gl: &Gl, targets: u32, depth: bool, stencil: bool) -> Res<glow::Framebuffer> {
    framebuffer_with(gl, targets, depth, stencil, false)
}

/// As `framebuffer`; with `packed`, depth and stencil share one DEPTH24_STENCIL8 renderbuffer,
/// otherwise stencil alone is a STENCIL_INDEX8 renderbuffer (core ES 2.0).
unsafe fn framebuffer_with(
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

unsafe fn read(gl: &Gl, targets: u32) -> Res<Vec<Vec<u8>>> {
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
unsafe fn program(gl: &Gl, vs: &str, fs: &str, attribs: &[&str]) -> Res<glow::Program> {
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
unsafe fn vertices(gl: &Gl, data: &[f32], sizes: &[i32]) -> Res<()> {
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

unsafe fn indices<T: Copy>(gl: &Gl, idx: &[T], to_bytes: fn(T) -> Vec<u8>) -> Res<()> {
    let ibo = gl.create_buffer()?;
    gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(ibo));
    let bytes: Vec<u8> = idx.iter().flat_map(|&i| to_bytes(i)).collect();
    gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
    Ok(())
}

unsafe fn uniform4(gl: &Gl, p: glow::Program, name: &str, v: [f32; 4]) {
    let loc = gl.get_uniform_location(p, name);
    gl.uniform_4_f32(loc.as_ref(), v[0], v[1], v[2], v[3]);
}

// ---- shaders shared by many scenes ----

/// Position (xy in pixels, z in clip space) and colour attributes; colour interpolated.
const VS_COLOUR: &str = "attribute vec3 a_pos;
attribute vec4 a_col;
varying vec4 v_col;
void main() {
    gl_Position = vec4(a_pos.xy / 32.0 - 1.0, a_pos.z, 1.0);
    v_col = a_col;
    gl_PointSize = 4.0;
}
";
const FS_COLOUR: &str = "precision mediump float;
varying vec4 v_col;
void main() { gl_FragColor = v_col; }
";
/// Position only (pixels), a uniform colour.
const VS_POS: &str = "attribute vec3 a_pos;
void main() {
    gl_Position = vec4(a_pos.xy / 32.0 - 1.0, a_pos.z, 1.0);
    gl_PointSize = 4.0;
}
";
const FS_UNIFORM: &str = "precision mediump float;
uniform vec4 u_col;
void main() { gl_FragColor = u_col; }
";

/// A triangle in pixel coordinates with corners off the pixel-centre grid, z and a colour per corner.
/// Corners are rounded to 1/16 pixel: the M4 snaps window coordinates to 1/256 pixel before setup
/// (sim/GFX.md "Snapping") and softpipe does not, so a pixel centre within a snapping step of an
/// unsnapped edge could flip; on the 1/16 grid both see the same edges.
fn tri(p: [[f32; 2]; 3], z: f32, c: [[f32; 4]; 3]) -> Vec<f32> {
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

const RGB3: [[f32; 4]; 3] = [
    [1.0, 0.0, 0.0, 1.0],
    [0.0, 1.0, 0.0, 1.0],
    [0.0, 0.0, 1.0, 1.0],
];

fn solid(c: [f32; 4]) -> [[f32; 4]; 3] {
    [c, c, c]
}

/// Colour k/255 (exact in 8 bits).
fn k(r: u8, g: u8, b: u8, a: u8) -> [f32; 4] {
    [r, g, b, a].map(|v| v as f32 / 255.0)
}

/// Axis-aligned rectangle as two triangles (pixel coordinates, edges off centres), one colour.
fn rect(x0: f32, y0: f32, x1: f32, y1: f32, z: f32, c: [f32; 4]) -> Vec<f32> {
    let mut v = tri([[x0, y0], [x1, y0], [x1, y1]], z, solid(c));
    v.extend(tri([[x0, y0], [x1, y1], [x0, y1]], z, solid(c)));
    v
}

/// Draws `data` (pos3 + col4 per vertex) with VS_COLOUR/FS_COLOUR as `mode`.
unsafe fn draw_coloured(gl: &Gl, data: &[f32], mode: u32) -> Res<()> {
    program(gl, VS_COLOUR, FS_COLOUR, &["a_pos", "a_col"])?;
    vertices(gl, data, &[3, 4])?;
    gl.draw_arrays(mode, 0, (data.len() / 7) as i32);
    check(gl, "glDrawArrays")
}

/// The frame of a one-target scene without depth: framebuffer, `body`, read back.
unsafe fn simple(gl: &Gl, body: impl FnOnce() -> Res<()>) -> Frame {
    framebuffer(gl, 1, false, false)?;
    body()?;
    Ok(read(gl, 1)?)
}

// ---- scenes ----

fn clear_color(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { simple(gl, || Ok(())) }
}

fn clear_scissored(gl: &Gl, _: &Ctx) -> Frame {
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

fn clear_color_mask(gl: &Gl, _: &Ctx) -> Frame {
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
fn clear_rounding(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        simple(gl, || {
            gl.clear_color(0.5, 0.1, 0.3, 0.7);
            gl.clear(glow::COLOR_BUFFER_BIT);
            check(gl, "glClear")
        })
    }
}

fn points(gl: &Gl, _: &Ctx) -> Frame {
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

fn lines(gl: &Gl, _: &Ctx) -> Frame {
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

fn line_strip(gl: &Gl, _: &Ctx) -> Frame {
    let v = line_vertices(&[(6.0, 6.25), (50.25, 6.25), (50.25, 30.25), (12.0, 30.25)]);
    unsafe { simple(gl, || draw_coloured(gl, &v, glow::LINE_STRIP)) }
}

fn line_loop(gl: &Gl, _: &Ctx) -> Frame {
    let v = line_vertices(&[
        (10.25, 20.25),
        (54.25, 20.25),
        (54.25, 44.25),
        (10.25, 44.25),
    ]);
    unsafe { simple(gl, || draw_coloured(gl, &v, glow::LINE_LOOP)) }
}

fn triangles(gl: &Gl, _: &Ctx) -> Frame {
    let mut v = tri([[3.3, 4.1], [40.7, 9.2], [12.1, 50.6]], 0.0, RGB3);
    v.extend(tri(
        [[60.2, 30.3], [61.1, 62.7], [28.6, 58.1]],
        0.0,
        [k(255, 255, 0, 255), k(0, 255, 255, 128), k(255, 0, 255, 0)],
    ));
    unsafe { simple(gl, || draw_coloured(gl, &v, glow::TRIANGLES)) }
}

fn triangle_strip(gl: &Gl, _: &Ctx) -> Frame {
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

fn triangle_fan(gl: &Gl, _: &Ctx) -> Frame {
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

fn elements_u8(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { indexed(gl, glow::UNSIGNED_BYTE) }
}

fn elements_u16(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { indexed(gl, glow::UNSIGNED_SHORT) }
}

fn elements_u32(gl: &Gl, c: &Ctx) -> Frame {
    if c.es < 3 && !c.has("GL_OES_element_index_uint") {
        return Err(Outcome::Skip(
            "32-bit indices need ES 3.0 or GL_OES_element_index_uint".into(),
        ));
    }
    unsafe { indexed(gl, glow::UNSIGNED_INT) }
}

/// glDrawElementsBaseVertex (GL_EXT/OES_draw_elements_base_vertex): the same u16 index list
/// drawn twice with base vertices 0 and 5, which select a second set of vertices elsewhere.
fn elements_base_vertex(gl: &Gl, c: &Ctx) -> Frame {
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

/// Instancing (ES 3.0): a per-instance offset attribute (divisor 1) and gl_InstanceID.
fn instanced(gl: &Gl, _: &Ctx) -> Frame {
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
fn instanced_divisors(gl: &Gl, _: &Ctx) -> Frame {
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
fn attribute_matrix(gl: &Gl, _: &Ctx) -> Frame {
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
fn attributes_16(gl: &Gl, _: &Ctx) -> Frame {
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
fn vertex_formats(gl: &Gl, _: &Ctx) -> Frame {
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
            Ok(())
        })
    }
}

/// Primitive restart with the fixed index (ES 3.0 GL_PRIMITIVE_RESTART_FIXED_INDEX): a
/// triangle strip with u16 indices (also with a base vertex), a fan with u8, a line strip with
/// u32, two line loops with u8 and a triangle list with u16 whose restart drops a partial
/// triangle.
fn primitive_restart(gl: &Gl, _: &Ctx) -> Frame {
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

fn depth_less(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { depth_scene(gl, glow::LESS, 1.0, true) }
}

fn depth_greater(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { depth_scene(gl, glow::GREATER, 0.0, true) }
}

fn depth_lequal_no_write(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { depth_scene(gl, glow::LEQUAL, 1.0, false) }
}

fn depth_always_notequal(gl: &Gl, _: &Ctx) -> Frame {
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
fn stencil_replace_equal(gl: &Gl, _: &Ctx) -> Frame {
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
fn depth_stencil_packed(gl: &Gl, _: &Ctx) -> Frame {
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
fn stencil_incr_decr(gl: &Gl, _: &Ctx) -> Frame {
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
fn stencil_two_sided(gl: &Gl, _: &Ctx) -> Frame {
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
fn discard_blend(gl: &Gl, _: &Ctx) -> Frame {
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

fn blend_alpha(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        blend_scene(gl, || {
            gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA)
        })
    }
}

fn blend_additive(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { blend_scene(gl, || gl.blend_func(glow::ONE, glow::ONE)) }
}

fn blend_subtract(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        blend_scene(gl, || {
            gl.blend_equation(glow::FUNC_SUBTRACT);
            gl.blend_func(glow::ONE, glow::DST_COLOR);
        })
    }
}

fn blend_reverse_subtract(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        blend_scene(gl, || {
            gl.blend_equation(glow::FUNC_REVERSE_SUBTRACT);
            gl.blend_func(glow::SRC_ALPHA, glow::ONE);
        })
    }
}

fn blend_min_max(gl: &Gl, c: &Ctx) -> Frame {
    if c.es < 3 && !c.has("GL_EXT_blend_minmax") {
        return Err(Outcome::Skip(
            "MIN/MAX need ES 3.0 or GL_EXT_blend_minmax".into(),
        ));
    }
    unsafe { blend_scene(gl, || gl.blend_equation_separate(glow::MIN, glow::MAX)) }
}

fn blend_constant(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        blend_scene(gl, || {
            gl.blend_color(0.25, 0.5, 0.75, 0.5);
            gl.blend_func(glow::CONSTANT_COLOR, glow::ONE_MINUS_CONSTANT_ALPHA);
        })
    }
}

/// One program, three draws with three blend colours (and two blend functions): the colour is
/// a per-draw uniform of the fragment variant, not part of its key.
fn blend_constant_per_draw(gl: &Gl, _: &Ctx) -> Frame {
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

fn blend_separate(gl: &Gl, _: &Ctx) -> Frame {
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

fn scissor_draw(gl: &Gl, _: &Ctx) -> Frame {
    let v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    unsafe {
        simple(gl, || {
            gl.enable(glow::SCISSOR_TEST);
            gl.scissor(10, 7, 37, 29);
            draw_coloured(gl, &v, glow::TRIANGLES)
        })
    }
}

fn color_mask_draw(gl: &Gl, _: &Ctx) -> Frame {
    let mut v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    v.extend(rect(30.0, 30.0, 60.0, 60.0, 0.0, k(250, 250, 250, 10)));
    unsafe {
        simple(gl, || {
            gl.color_mask(true, false, true, false);
            draw_coloured(gl, &v, glow::TRIANGLES)
        })
    }
}

fn viewport_offset(gl: &Gl, _: &Ctx) -> Frame {
    let v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    unsafe {
        simple(gl, || {
            gl.viewport(8, 16, 48, 40);
            draw_coloured(gl, &v, glow::TRIANGLES)
        })
    }
}

fn cull_back_ccw(gl: &Gl, _: &Ctx) -> Frame {
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

fn front_facing(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision mediump float;
void main() { gl_FragColor = gl_FrontFacing ? vec4(1.0, 0.0, 0.0, 1.0) : vec4(0.0, 0.0, 1.0, 1.0); }
";
    let mut v = tri([[2.2, 2.3], [60.1, 4.4], [4.6, 59.7]], 0.0, RGB3); // ccw
    v.extend(tri([[62.2, 8.3], [12.6, 61.7], [61.1, 60.4]], 0.0, RGB3)); // ccw
    v.extend(tri([[40.2, 40.3], [20.6, 61.7], [62.1, 61.4]], 0.0, RGB3)); // cw
    unsafe {
        simple(gl, || {
            program(gl, VS_COLOUR, FS, &["a_pos", "a_col"])?;
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 9);
            check(gl, "glDrawArrays")
        })
    }
}

/// Perspective-correct interpolation: a quad with w from 1 to 4 and a colour ramp.
fn perspective_varying(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "attribute vec4 a_pos;
attribute vec4 a_col;
varying vec4 v_col;
void main() { gl_Position = a_pos; v_col = a_col; }
";
    // Clip-space (x, y, z, w) with w varying; pixel corners chosen off centres after divide.
    let mut v = Vec::new();
    let corners = [
        ((-0.93, -0.91), 1.0, [1.0, 0.0, 0.0, 1.0]),
        ((0.95, -0.89), 4.0, [0.0, 1.0, 0.0, 1.0]),
        ((0.91, 0.97), 4.0, [0.0, 0.0, 1.0, 1.0]),
        ((-0.93, -0.91), 1.0, [1.0, 0.0, 0.0, 1.0]),
        ((0.91, 0.97), 4.0, [0.0, 0.0, 1.0, 1.0]),
        ((-0.89, 0.93), 1.0, [1.0, 1.0, 1.0, 1.0]),
    ];
    for ((x, y), w, c) in corners {
        v.extend([x * w, y * w, 0.0, w, c[0], c[1], c[2], c[3]]);
    }
    unsafe {
        simple(gl, || {
            program(gl, VS, FS_COLOUR, &["a_pos", "a_col"])?;
            vertices(gl, &v, &[4, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "glDrawArrays")
        })
    }
}

/// Normalized unsigned-byte colours and a constant attribute (array disabled).
fn attribute_formats(gl: &Gl, _: &Ctx) -> Frame {
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

/// A mat4 uniform transforming the vertices (rotation by 90 degrees, scale 0.75, translation).
fn uniform_matrix(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "attribute vec3 a_pos;
uniform mat4 u_m;
void main() { gl_Position = u_m * vec4(a_pos.xy / 32.0 - 1.0, 0.0, 1.0); }
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS, FS_UNIFORM, &["a_pos"])?;
            let v: Vec<f32> = [(8.3f32, 8.6f32), (50.2, 12.1), (20.7, 52.4)]
                .iter()
                .flat_map(|&(x, y)| [x, y, 0.0])
                .collect();
            vertices(gl, &v, &[3])?;
            // Column-major.
            let m = [
                0.0f32, 0.75, 0.0, 0.0, -0.75, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.1, -0.05, 0.0,
                1.0,
            ];
            let loc = gl.get_uniform_location(p, "u_m");
            gl.uniform_matrix_4_f32_slice(loc.as_ref(), false, &m);
            uniform4(gl, p, "u_col", k(200, 150, 100, 255));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            check(gl, "glDrawArrays")
        })
    }
}

/// A vec4 array uniform and a float uniform combined in the fragment shader.
fn uniform_array(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision mediump float;
uniform vec4 u_pal[3];
uniform float u_s;
void main() { gl_FragColor = (u_pal[0] + u_pal[2]) * u_s + u_pal[1]; }
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS_POS, FS, &["a_pos"])?;
            let v: Vec<f32> = [(8.3f32, 8.6f32), (50.2, 12.1), (20.7, 52.4)]
                .iter()
                .flat_map(|&(x, y)| [x, y, 0.0])
                .collect();
            vertices(gl, &v, &[3])?;
            let pal = [
                0.25f32, 0.0, 0.5, 0.5, 0.0, 0.25, 0.0, 0.25, 0.5, 0.25, 0.0, 0.5,
            ];
            let loc = gl.get_uniform_location(p, "u_pal");
            gl.uniform_4_f32_slice(loc.as_ref(), &pal);
            let loc = gl.get_uniform_location(p, "u_s");
            gl.uniform_1_f32(loc.as_ref(), 0.8);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            check(gl, "glDrawArrays")
        })
    }
}

/// Default-block uniforms past what a launcher carries inline: three mat4s indexed per vertex
/// by an attribute and a 24-entry vec4 palette indexed in the fragment shader by a varying
/// (the driver reads such a default block from memory, like a uniform block).
fn uniform_array_large(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "attribute vec2 a_pos;
attribute float a_sel;
uniform mat4 u_m[3];
varying float v_sel;
void main() {
    gl_Position = u_m[int(a_sel + 0.5)] * vec4(a_pos, 0.0, 1.0);
    v_sel = a_sel;
}
";
    const FS: &str = "precision mediump float;
uniform vec4 u_pal[24];
uniform float u_s;
varying float v_sel;
void main() {
    int i = int(v_sel * 5.0 + 0.5) + 2;
    gl_FragColor = u_pal[i] * u_s + u_pal[23];
}
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS, FS, &["a_pos", "a_sel"])?;
            let v = [
                -0.83f32, -0.71, 0.0, 0.41, -0.62, 0.0, -0.22, 0.58, 0.0, // matrix 0
                -0.6, -0.4, 1.0, 0.35, -0.3, 1.0, 0.1, 0.45, 1.0, // matrix 1
                -0.5, 0.1, 2.0, 0.2, 0.2, 2.0, -0.1, 0.6, 2.0, // matrix 2
            ];
            vertices(gl, &v, &[2, 1])?;
            // Column-major: identity, a scale and shift to the right, one upwards.
            let m: [f32; 48] = [
                1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
                0.8, 0.0, 0.0, 0.0, 0.0, 0.7, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.43, 0.07, 0.0, 1.0,
                0.9, 0.1, 0.0, 0.0, -0.1, 0.9, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.05, 0.31, 0.0, 1.0,
            ];
            let loc = gl.get_uniform_location(p, "u_m");
            gl.uniform_matrix_4_f32_slice(loc.as_ref(), false, &m);
            let pal: Vec<f32> = (0..24)
                .flat_map(|k| {
                    let t = k as f32 / 23.0;
                    [t, 1.0 - t, (t * 3.0).fract(), 0.5 + 0.5 * t]
                })
                .collect();
            let loc = gl.get_uniform_location(p, "u_pal");
            gl.uniform_4_f32_slice(loc.as_ref(), &pal);
            let loc = gl.get_uniform_location(p, "u_s");
            gl.uniform_1_f32(loc.as_ref(), 0.75);
            gl.draw_arrays(glow::TRIANGLES, 0, 9);
            check(gl, "glDrawArrays")
        })
    }
}

/// ES 3.0 uniform block (std140) bound from a buffer.
fn uniform_block(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(std140) uniform Params { vec4 offset_scale; vec4 colour; };
void main() { gl_Position = vec4(a_pos * offset_scale.zw + offset_scale.xy, 0.0, 1.0); }
";
    const FS: &str = "#version 300 es
precision mediump float;
layout(std140) uniform Params { vec4 offset_scale; vec4 colour; };
out vec4 o;
void main() { o = colour; }
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS, FS, &[])?;
            let v = [-0.91f32, -0.87, 0.93, -0.79, -0.05, 0.95];
            vertices(gl, &v, &[2])?;
            let block = gl
                .get_uniform_block_index(p, "Params")
                .ok_or("no uniform block Params")?;
            gl.uniform_block_binding(p, block, 1);
            let data = [0.05f32, -0.1, 0.8, 0.9, 0.2, 0.6, 0.8, 1.0];
            let ubo = gl.create_buffer()?;
            gl.bind_buffer(glow::UNIFORM_BUFFER, Some(ubo));
            let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
            gl.buffer_data_u8_slice(glow::UNIFORM_BUFFER, &bytes, glow::STATIC_DRAW);
            gl.bind_buffer_base(glow::UNIFORM_BUFFER, 1, Some(ubo));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            check(gl, "glDrawArrays")
        })
    }
}

/// ES 3.0 uniform blocks beyond one vec4 pair: two vertex-stage blocks (a row-major mat2, a
/// float array indexed by gl_VertexID % 3, a column-major mat4) and a fragment-stage block (a
/// vec4 array indexed by a flat varying plus an ivec4 member), bound with glBindBufferBase and
/// at a nonzero glBindBufferRange offset, two triangles.
fn uniform_blocks_indexed(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(std140) uniform Shape { layout(row_major) mat2 rot; vec2 offset; float scale[3]; };
layout(std140) uniform View { mat4 proj; };
flat out int v_tri;
void main() {
    vec2 p = rot * a_pos * scale[gl_VertexID % 3] + offset;
    gl_Position = proj * vec4(p, 0.0, 1.0);
    v_tri = gl_VertexID / 3;
}
";
    const FS: &str = "#version 300 es
precision mediump float;
layout(std140) uniform Palette { vec4 colours[4]; ivec4 pick; };
flat in int v_tri;
out vec4 o;
void main() { o = colours[v_tri + pick.y] * vec4(float(pick.z) / 4.0); }
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS, FS, &[])?;
            let v = [
                // Every pixel centre at least 1/100 pixel from an edge (no snapping ties).
                -0.71f32, -0.6, 0.5, -0.5, -0.1, 0.6, // triangle 0
                0.3, 0.2, 0.9, 0.1, 0.56, 0.8, // triangle 1
            ];
            vertices(gl, &v, &[2])?;
            let align = gl.get_parameter_i32(glow::UNIFORM_BUFFER_OFFSET_ALIGNMENT);
            if !(1..=256).contains(&align) || 256 % align != 0 {
                return Err(format!("UNIFORM_BUFFER_OFFSET_ALIGNMENT {align}"));
            }
            let words = |f: &[f32]| -> Vec<u8> { f.iter().flat_map(|x| x.to_le_bytes()).collect() };
            // Shape (std140): rot rows at 0 and 16, offset at 32, scale[k] at 48 + 16k.
            let (c, sn) = (0.8f32, 0.35f32);
            let shape = [
                c, -sn, 0.0, 0.0, sn, c, 0.0, 0.0, 0.05, -0.08, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.85,
                0.0, 0.0, 0.0, 1.1, 0.0, 0.0, 0.0,
            ];
            // View: columns of a scale-and-translate matrix.
            let view = [
                0.9f32, 0.0, 0.0, 0.0, 0.0, 0.95, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -0.03, 0.02, 0.0,
                1.0,
            ];
            // Palette at byte 256 of the same buffer as View: four colours, then pick.
            let palette = [
                0.9f32, 0.1, 0.2, 1.0, 0.2, 0.8, 0.3, 1.0, 0.1, 0.3, 0.9, 1.0, 0.7, 0.7, 0.1, 1.0,
            ];
            let pick: [i32; 4] = [9, 1, 3, 0];
            let ubo = |bytes: &[u8]| -> Res<glow::Buffer> {
                let b = gl.create_buffer()?;
                gl.bind_buffer(glow::UNIFORM_BUFFER, Some(b));
                gl.buffer_data_u8_slice(glow::UNIFORM_BUFFER, bytes, glow::STATIC_DRAW);
                Ok(b)
            };
            let a = ubo(&words(&shape))?;
            let mut shared = words(&view);
            shared.resize(256, 0);
            shared.extend(words(&palette));
            shared.extend(pick.iter().flat_map(|x| x.to_le_bytes()));
            let b = ubo(&shared)?;
            for (name, binding) in [("Shape", 0), ("View", 2), ("Palette", 1)] {
                let i = gl
                    .get_uniform_block_index(p, name)
                    .ok_or(format!("no uniform block {name}"))?;
                gl.uniform_block_binding(p, i, binding);
            }
            gl.bind_buffer_base(glow::UNIFORM_BUFFER, 0, Some(a));
            gl.bind_buffer_range(glow::UNIFORM_BUFFER, 2, Some(b), 0, 64);
            gl.bind_buffer_range(glow::UNIFORM_BUFFER, 1, Some(b), 256, 80);
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "glDrawArrays")
        })
    }
}

/// ES 3.0 uniform block array (two instances, constant indices) of a struct array (vec2, uint,
/// bool; indexed by gl_VertexID / 3) and a mat3, std140, both instances in one buffer at
/// offsets 0 and 256.
fn uniform_block_array_struct(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
struct S { vec2 off; uint flags; bool on; };
layout(std140) uniform Blk { S s[2]; mat3 m; } blk[2];
flat out vec4 v_c;
void main() {
    int t = gl_VertexID / 3;
    S x = blk[1].s[t];
    vec3 p = blk[0].m * vec3(a_pos, 1.0);
    gl_Position = vec4(p.xy + x.off, 0.0, 1.0);
    v_c = vec4(float(x.flags & 3u) / 3.0, x.on ? 1.0 : 0.25, float(t) * 0.5 + 0.25, 1.0);
}
";
    const FS: &str = "#version 300 es
precision mediump float;
flat in vec4 v_c;
out vec4 o;
void main() { o = v_c; }
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS, FS, &[])?;
            let v = [
                -0.71f32, -0.6, 0.5, -0.5, -0.1, 0.6, // triangle 0
                -0.3, -0.2, 0.3, -0.1, 0.06, 0.5, // triangle 1
            ];
            vertices(gl, &v, &[2])?;
            let align = gl.get_parameter_i32(glow::UNIFORM_BUFFER_OFFSET_ALIGNMENT);
            if !(1..=256).contains(&align) || 256 % align != 0 {
                return Err(format!("UNIFORM_BUFFER_OFFSET_ALIGNMENT {align}"));
            }
            // One instance: s[0] at 0, s[1] at 16 (vec2 off, uint flags at +8, bool at +12),
            // m's columns at 32, 48, 64.
            let instance = |s: [([f32; 2], u32, u32); 2], m: [[f32; 3]; 3]| -> Vec<u8> {
                let mut b = Vec::new();
                for (off, flags, on) in s {
                    b.extend(off.iter().flat_map(|x| x.to_le_bytes()));
                    b.extend(flags.to_le_bytes());
                    b.extend(on.to_le_bytes());
                }
                for c in m {
                    b.extend(c.iter().flat_map(|x| x.to_le_bytes()));
                    b.extend(0f32.to_le_bytes());
                }
                b
            };
            let mut bytes = instance(
                [([9.0, 9.0], 0, 0), ([9.0, 9.0], 0, 0)],
                [[0.9, 0.1, 0.0], [-0.1, 0.8, 0.0], [0.02, -0.04, 1.0]],
            );
            bytes.resize(256, 0);
            bytes.extend(instance(
                [([0.05, -0.1], 6, 1), ([0.4, 0.3], 1, 0)],
                [[0.0; 3], [0.0; 3], [0.0; 3]],
            ));
            let b = gl.create_buffer()?;
            gl.bind_buffer(glow::UNIFORM_BUFFER, Some(b));
            gl.buffer_data_u8_slice(glow::UNIFORM_BUFFER, &bytes, glow::STATIC_DRAW);
            for (name, binding) in [("Blk[0]", 3), ("Blk[1]", 5)] {
                let i = gl
                    .get_uniform_block_index(p, name)
                    .ok_or(format!("no uniform block {name}"))?;
                gl.uniform_block_binding(p, i, binding);
            }
            gl.bind_buffer_range(glow::UNIFORM_BUFFER, 3, Some(b), 0, 80);
            gl.bind_buffer_range(glow::UNIFORM_BUFFER, 5, Some(b), 256, 80);
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "glDrawArrays")
        })
    }
}

/// `n` vec4 varyings, each a different ramp, mixed by the fragment shader.
unsafe fn varyings(gl: &Gl, c: &Ctx, n: usize) -> Frame {
    let max = gl.get_parameter_i32(glow::MAX_VARYING_VECTORS) as usize;
    if max < n {
        return Err(Outcome::Skip(format!(
            "needs {n} varying vectors, the context offers {max}"
        )));
    }
    let (attr, vary_out, vary_in, frag, head) = if c.es >= 3 {
        ("in", "out", "in", "o", "#version 300 es\n")
    } else {
        ("attribute", "varying", "varying", "gl_FragColor", "")
    };
    let decl: String = (0..n)
        .map(|i| format!("v{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let vs_body: String = (0..n)
        .map(|i| {
            format!(
                "v{i} = vec4(a_t.x * {a:.4}, a_t.y * {b:.4}, (1.0 - a_t.x) * {c:.4}, a_t.y);\n",
                a = (i + 1) as f32 / n as f32,
                b = 1.0 - i as f32 / n as f32,
                c = (i % 3) as f32 / 2.0
            )
        })
        .collect();
    let sum: String = (0..n)
        .map(|i| format!("v{i} * {w:.4}", w = 1.0 / n as f32))
        .collect::<Vec<_>>()
        .join(" + ");
    let vs = format!(
        "{head}{attr} vec2 a_pos;\n{attr} vec2 a_t;\n{vary_out} vec4 {decl};\nvoid main() {{\n\
         gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0);\n{vs_body}}}\n"
    );
    let out_decl = if c.es >= 3 { "out vec4 o;\n" } else { "" };
    // Weighted so that the last varying matters on its own too (a dropped one shows).
    let fs = format!(
        "{head}precision highp float;\n{vary_in} vec4 {decl};\n{out_decl}void main() {{\n\
         {frag} = {sum};\n{frag}.b = v{last}.z;\n}}\n",
        last = n - 1
    );
    simple(gl, || {
        program(gl, &vs, &fs, &["a_pos", "a_t"])?;
        let v = [
            3.4f32, 2.7, 0.0, 0.0, 61.3, 5.2, 1.0, 0.0, 28.9, 62.1, 0.5, 1.0,
        ];
        vertices(gl, &v, &[2, 2])?;
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        check(gl, "glDrawArrays")
    })
}

fn varyings_8(gl: &Gl, c: &Ctx) -> Frame {
    unsafe { varyings(gl, c, 8) }
}

fn varyings_16(gl: &Gl, c: &Ctx) -> Frame {
    unsafe { varyings(gl, c, 16) }
}

fn discard(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision mediump float;
varying vec4 v_col;
void main() {
    if (v_col.r > 0.5 || (v_col.g > 0.3 && v_col.g < 0.45))
        discard;
    gl_FragColor = v_col;
}
";
    let v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    unsafe {
        simple(gl, || {
            program(gl, VS_COLOUR, FS, &["a_pos", "a_col"])?;
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            check(gl, "glDrawArrays")
        })
    }
}

/// Discard with depth: discarded fragments must not write depth.
fn discard_depth(gl: &Gl, _: &Ctx) -> Frame {
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
fn frag_depth(gl: &Gl, _: &Ctx) -> Frame {
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

fn frag_coord(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision highp float;
void main() { gl_FragColor = vec4(gl_FragCoord.x / 64.0, gl_FragCoord.y / 64.0, gl_FragCoord.z, 1.0); }
";
    let v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    let mut v = v;
    for (i, z) in [-0.9f32, 0.3, 0.8].iter().enumerate() {
        v[i * 7 + 2] = *z;
    }
    unsafe {
        simple(gl, || {
            program(gl, VS_COLOUR, FS, &["a_pos", "a_col"])?;
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            check(gl, "glDrawArrays")
        })
    }
}

/// A quad in framebuffer pixels with texture coordinates, sampled from unit 0.
const VS_TEXTURED: &str = "attribute vec2 a_pos;
attribute vec2 a_tc;
varying vec2 v_tc;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_tc = a_tc; }
";
const FS_TEXTURED: &str = "precision highp float;
uniform sampler2D u_tex;
varying vec2 v_tc;
void main() { gl_FragColor = texture2D(u_tex, v_tc); }
";

/// A full-framebuffer quad with texture coordinates; `setup` creates and binds the texture.
unsafe fn textured(
    gl: &Gl,
    quad: (f32, f32, f32, f32),
    st: (f32, f32),
    setup: impl FnOnce() -> Res<()>,
) -> Frame {
    simple(gl, || {
        let p = program(gl, VS_TEXTURED, FS_TEXTURED, &["a_pos", "a_tc"])?;
        let (x0, y0, x1, y1) = quad;
        let (s, t) = st;
        let v = [
            x0, y0, 0.0, 0.0, x1, y0, s, 0.0, x1, y1, s, t, x0, y0, 0.0, 0.0, x1, y1, s, t, x0, y1,
            0.0, t,
        ];
        vertices(gl, &v, &[2, 2])?;
        gl.active_texture(glow::TEXTURE0);
        setup()?;
        let loc = gl.get_uniform_location(p, "u_tex");
        gl.uniform_1_i32(loc.as_ref(), 0);
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        check(gl, "textured draw")
    })
}

/// An 8x8 RGBA8 texture with distinct texels.
fn texels(n: usize, seed: u8) -> Vec<u8> {
    (0..n * n)
        .flat_map(|i| {
            let (x, y) = ((i % n) as u8, (i / n) as u8);
            [
                x.wrapping_mul(31).wrapping_add(seed),
                y.wrapping_mul(29).wrapping_add(seed / 2),
                (x ^ y).wrapping_mul(37),
                255 - x.wrapping_mul(y).wrapping_mul(3),
            ]
        })
        .collect()
}

unsafe fn texture(gl: &Gl, n: i32, data: &[u8], filter: u32, wrap: u32) -> Res<()> {
    let tex = gl.create_texture()?;
    gl.bind_texture(glow::TEXTURE_2D, Some(tex));
    gl.tex_image_2d(
        glow::TEXTURE_2D,
        0,
        glow::RGBA as i32,
        n,
        n,
        0,
        glow::RGBA,
        glow::UNSIGNED_BYTE,
        glow::PixelUnpackData::Slice(Some(data)),
    );
    gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MIN_FILTER, filter as i32);
    let mag = if filter == glow::LINEAR {
        glow::LINEAR
    } else {
        glow::NEAREST
    };
    gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAG_FILTER, mag as i32);
    gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_WRAP_S, wrap as i32);
    gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_WRAP_T, wrap as i32);
    check(gl, "texture upload")
}

fn texture_nearest(gl: &Gl, _: &Ctx) -> Frame {
    // 8 texels across 64 pixels: texel edges at multiples of 8 pixels, never at a centre.
    let data = texels(8, 7);
    unsafe {
        textured(gl, (0.0, 0.0, 64.0, 64.0), (1.0, 1.0), || {
            texture(gl, 8, &data, glow::NEAREST, glow::CLAMP_TO_EDGE)
        })
    }
}

fn texture_linear(gl: &Gl, _: &Ctx) -> Frame {
    let data = texels(8, 50);
    unsafe {
        textured(gl, (0.0, 0.0, 64.0, 64.0), (1.0, 1.0), || {
            texture(gl, 8, &data, glow::LINEAR, glow::CLAMP_TO_EDGE)
        })
    }
}

fn texture_repeat(gl: &Gl, _: &Ctx) -> Frame {
    // 3 repeats of 4 texels over 48 pixels: 4 pixels per texel.
    let data = texels(4, 90);
    unsafe {
        textured(gl, (8.0, 8.0, 56.0, 56.0), (3.0, 3.0), || {
            texture(gl, 4, &data, glow::NEAREST, glow::REPEAT)
        })
    }
}

/// Mipmaps: a 64x64 texture with a distinct constant colour per level, drawn onto 16x16 quads
/// (lod 2 exactly) with NEAREST_MIPMAP_NEAREST, plus one quad with glGenerateMipmap'd levels.
fn texture_mipmap(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        simple(gl, || {
            program(gl, VS_TEXTURED, FS_TEXTURED, &["a_pos", "a_tc"])?;
            let tex = gl.create_texture()?;
            gl.bind_texture(glow::TEXTURE_2D, Some(tex));
            for level in 0..7 {
                let n = 64usize >> level;
                let c = [
                    (level * 40) as u8,
                    255 - (level * 30) as u8,
                    (level * 17) as u8,
                    255,
                ];
                let data: Vec<u8> = (0..n * n).flat_map(|_| c).collect();
                gl.tex_image_2d(
                    glow::TEXTURE_2D,
                    level,
                    glow::RGBA as i32,
                    n as i32,
                    n as i32,
                    0,
                    glow::RGBA,
                    glow::UNSIGNED_BYTE,
                    glow::PixelUnpackData::Slice(Some(&data)),
                );
            }
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MIN_FILTER,
                glow::NEAREST_MIPMAP_NEAREST as i32,
            );
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MAG_FILTER,
                glow::NEAREST as i32,
            );
            // Quads of 64/2^l pixels show level l (lod exactly l).
            let mut v = Vec::new();
            for (x0, y0, n) in [
                (2.0f32, 2.0f32, 32.0f32),
                (40.0, 2.0, 16.0),
                (40.0, 24.0, 8.0),
            ] {
                for (x, y, s, t) in [
                    (0.0, 0.0, 0.0, 0.0),
                    (1.0, 0.0, 1.0, 0.0),
                    (1.0, 1.0, 1.0, 1.0),
                    (0.0, 0.0, 0.0, 0.0),
                    (1.0, 1.0, 1.0, 1.0),
                    (0.0, 1.0, 0.0, 1.0),
                ] {
                    v.extend([x0 + x * n, y0 + y * n, s, t]);
                }
            }
            vertices(gl, &v, &[2, 2])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 18);
            check(gl, "mipmapped draws")?;
            // glGenerateMipmap of a checker: level 2 of a 4x4-texel checker is its average.
            let data = texels(16, 3);
            texture(
                gl,
                16,
                &data,
                glow::NEAREST_MIPMAP_NEAREST,
                glow::CLAMP_TO_EDGE,
            )?;
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MAG_FILTER,
                glow::NEAREST as i32,
            );
            gl.generate_mipmap(glow::TEXTURE_2D);
            let mut v = Vec::new();
            for (x, y, s, t) in [
                (0.0, 0.0, 0.0, 0.0),
                (1.0, 0.0, 1.0, 0.0),
                (1.0, 1.0, 1.0, 1.0),
                (0.0, 0.0, 0.0, 0.0),
                (1.0, 1.0, 1.0, 1.0),
                (0.0, 1.0, 0.0, 1.0),
            ] {
                v.extend([4.0 + x * 16.0, 40.0 + y * 16.0, s * 4.0, t * 4.0]);
            }
            vertices(gl, &v, &[2, 2])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "generated-mipmap draw")
        })
    }
}

/// Texture formats the driver samples through a swizzle of R8G8B8A8: an RGB texture (alpha
/// one), a BGRA_EXT one (mirrored repeat) and a LUMINANCE_ALPHA one, each a 4x4 texture on a
/// 16-pixel-wide strip (texel edges on whole pixels).
fn texture_formats(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        simple(gl, || {
            let p = program(gl, VS_TEXTURED, FS_TEXTURED, &["a_pos", "a_tc"])?;
            gl.active_texture(glow::TEXTURE0);
            let loc = gl.get_uniform_location(p, "u_tex");
            gl.uniform_1_i32(loc.as_ref(), 0);
            let rgba = texels(4, 60);
            let rgb: Vec<u8> = rgba.chunks(4).flat_map(|c| [c[0], c[1], c[2]]).collect();
            let la: Vec<u8> = rgba.chunks(4).flat_map(|c| [c[0], c[3]]).collect();
            let strips: [(f32, u32, &[u8], u32, f32); 3] = [
                (0.0, glow::RGB, &rgb, glow::CLAMP_TO_EDGE, 1.0),
                (24.0, glow::BGRA, &rgba, glow::MIRRORED_REPEAT, 2.0),
                (48.0, glow::LUMINANCE_ALPHA, &la, glow::CLAMP_TO_EDGE, 1.0),
            ];
            for (x0, format, data, wrap, s) in strips {
                let tex = gl.create_texture()?;
                gl.bind_texture(glow::TEXTURE_2D, Some(tex));
                gl.tex_image_2d(
                    glow::TEXTURE_2D,
                    0,
                    format as i32,
                    4,
                    4,
                    0,
                    format,
                    glow::UNSIGNED_BYTE,
                    glow::PixelUnpackData::Slice(Some(data)),
                );
                for (param, v) in [
                    (glow::TEXTURE_MIN_FILTER, glow::NEAREST),
                    (glow::TEXTURE_MAG_FILTER, glow::NEAREST),
                    (glow::TEXTURE_WRAP_S, wrap),
                    (glow::TEXTURE_WRAP_T, wrap),
                ] {
                    gl.tex_parameter_i32(glow::TEXTURE_2D, param, v as i32);
                }
                check(gl, "texture upload")?;
                let x1 = x0 + 16.0;
                let v = [
                    x0, 0.0, 0.0, 0.0, x1, 0.0, s, 0.0, x1, 64.0, s, 1.0, x0, 0.0, 0.0, 0.0, x1,
                    64.0, s, 1.0, x0, 64.0, 0.0, 1.0,
                ];
                vertices(gl, &v, &[2, 2])?;
                gl.draw_arrays(glow::TRIANGLES, 0, 6);
            }
            check(gl, "textured draws")
        })
    }
}

/// Render to texture, then sample it: a 32x32 texture cleared and drawn into through its own
/// framebuffer object (a vertex-coloured triangle and a rectangle), then magnified 2x onto the
/// 64x64 target with nearest filtering. The first render must be complete before the second
/// samples it (the driver flushes the texture's batch at the framebuffer switch).
fn texture_render_target(gl: &Gl, _: &Ctx) -> Frame {
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

/// Occlusion queries (ES 3.0 ANY_SAMPLES_PASSED and its conservative form) around draws hidden
/// by, partly behind and beside a near rectangle, with colour writes off for one of them (a
/// query counts samples, not colour writes); each result then paints a marker square: green when
/// samples passed, red when none did. A query read before the render ran must wait for it.
fn occlusion_query(gl: &Gl, _: &Ctx) -> Frame {
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

/// Implicit-LOD samples inside an if / else-if / else chain: each branch samples a mipmapped
/// texture at its own scale (so at its own level) and the branch boundaries fall on 2x2-quad
/// boundaries, so every quad runs one branch with all four lanes (derivatives stay defined).
fn texture_in_branches(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision highp float;
uniform sampler2D u_tex;
varying vec2 v_tc;
void main() {
    if (v_tc.x < 0.25)
        gl_FragColor = texture2D(u_tex, v_tc);
    else if (v_tc.x < 0.5)
        gl_FragColor = texture2D(u_tex, v_tc * 4.0).bgra;
    else if (v_tc.y < 0.5)
        gl_FragColor = texture2D(u_tex, v_tc.yx * 0.5);
    else
        gl_FragColor = vec4(0.25, 0.5, 0.75, 1.0);
}
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS_TEXTURED, FS, &["a_pos", "a_tc"])?;
            let v = [
                0.0f32, 0.0, 0.0, 0.0, 64.0, 0.0, 1.0, 0.0, 64.0, 64.0, 1.0, 1.0, 0.0, 0.0, 0.0,
                0.0, 64.0, 64.0, 1.0, 1.0, 0.0, 64.0, 0.0, 1.0,
            ];
            vertices(gl, &v, &[2, 2])?;
            gl.active_texture(glow::TEXTURE0);
            texture(gl, 32, &texels(32, 7), glow::NEAREST, glow::REPEAT)?;
            gl.generate_mipmap(glow::TEXTURE_2D);
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MIN_FILTER,
                glow::NEAREST_MIPMAP_NEAREST as i32,
            );
            let loc = gl.get_uniform_location(p, "u_tex");
            gl.uniform_1_i32(loc.as_ref(), 0);
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "textured draw")
        })
    }
}

/// Vertex texture fetch (ES 3.0 requires 16 vertex texture units): a 9x9 grid of vertices,
/// each displaced by whole pixels from texelFetch (x) and texture() (y, level 0 in a vertex
/// shader) of a mipmapped 4x4 texture, coloured from those and textureLod at level 1;
/// textureSize wraps the fetch coordinate. Displaced corners stay on integer pixel positions
/// and the sampled coordinates off texel edges, so the rasterised edges and the NEAREST
/// lookups have no ties; the interpolated colours have tolerance 1.
fn vertex_texture(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
in vec2 a_pos;
uniform highp sampler2D u_tex;
out vec4 v_col;
void main() {
    ivec2 sz = textureSize(u_tex, 0);
    vec4 a = texelFetch(u_tex, ivec2(a_pos) & (sz - 1), 0);
    vec4 b = textureLod(u_tex, (a_pos + 0.5) / 8.0, 1.0);
    vec4 c = texture(u_tex, (a_pos + 0.5) / 8.0);
    vec2 p = a_pos * 7.0 + 4.0 + floor(vec2(a.x, c.y) * 4.0) - 2.0;
    gl_Position = vec4(p / 32.0 - 1.0, 0.0, 1.0);
    v_col = vec4(a.z, b.x, c.w, 1.0);
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
            let p = program(gl, VS, FS, &["a_pos"])?;
            let mut v = Vec::new();
            for y in 0..8 {
                for x in 0..8 {
                    let c = |dx: i32, dy: i32| [(x + dx) as f32, (y + dy) as f32];
                    for k in [c(0, 0), c(1, 0), c(1, 1), c(0, 0), c(1, 1), c(0, 1)] {
                        v.extend(k);
                    }
                }
            }
            vertices(gl, &v, &[2])?;
            gl.active_texture(glow::TEXTURE0);
            texture(gl, 4, &texels(4, 100), glow::NEAREST, glow::REPEAT)?;
            gl.generate_mipmap(glow::TEXTURE_2D);
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MIN_FILTER,
                glow::NEAREST_MIPMAP_NEAREST as i32,
            );
            let loc = gl.get_uniform_location(p, "u_tex");
            gl.uniform_1_i32(loc.as_ref(), 0);
            gl.draw_arrays(glow::TRIANGLES, 0, (v.len() / 2) as i32);
            check(gl, "vertex-textured draw")
        })
    }
}

/// glBlitFramebuffer (ES 3.0) from a 32x32 rendered texture: a 1.5x/1.25x magnification with LINEAR
/// filtering, and a NEAREST minified, mirrored copy of a sub-rectangle (source and destination
/// rectangles given in opposite orders flip both axes). Neither is a byte copy, so they exercise the
/// draw-based blit (Mesa's util_blitter through the driver's own draw path).
fn blit_scaled(gl: &Gl, _: &Ctx) -> Frame {
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
fn draw_after_flush(gl: &Gl, _: &Ctx) -> Frame {
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

/// Two textures sampled by one shader (texture units 0 and 1).
fn texture_two_units(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "attribute vec2 a_pos;
attribute vec2 a_tc;
varying vec2 v_tc;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_tc = a_tc; }
";
    const FS: &str = "precision highp float;
uniform sampler2D u_a;
uniform sampler2D u_b;
varying vec2 v_tc;
void main() { gl_FragColor = texture2D(u_a, v_tc) * 0.5 + texture2D(u_b, v_tc.yx) * 0.5; }
";
    unsafe {
        simple(gl, || {
            let p = program(gl, VS, FS, &["a_pos", "a_tc"])?;
            let v = [
                0.0f32, 0.0, 0.0, 0.0, 64.0, 0.0, 1.0, 0.0, 64.0, 64.0, 1.0, 1.0, 0.0, 0.0, 0.0,
                0.0, 64.0, 64.0, 1.0, 1.0, 0.0, 64.0, 0.0, 1.0,
            ];
            vertices(gl, &v, &[2, 2])?;
            gl.active_texture(glow::TEXTURE0);
            texture(gl, 8, &texels(8, 11), glow::NEAREST, glow::CLAMP_TO_EDGE)?;
            gl.active_texture(glow::TEXTURE1);
            texture(gl, 4, &texels(4, 200), glow::NEAREST, glow::CLAMP_TO_EDGE)?;
            let loc = gl.get_uniform_location(p, "u_a");
            gl.uniform_1_i32(loc.as_ref(), 0);
            let loc = gl.get_uniform_location(p, "u_b");
            gl.uniform_1_i32(loc.as_ref(), 1);
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "textured draw")
        })
    }
}

/// Multiple render targets (ES 3.0): three colour outputs of one fragment shader.
fn mrt(gl: &Gl, _: &Ctx) -> Frame {
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
    Ok(px.chunks(4).map(|c| c[0]).collect())
}

/// Four render targets with a GL_NONE draw buffer between them, blending and a colour mask
/// applied to every target: attachment 1 keeps its clear, 0, 2 and 3 get two overlapping
/// alpha-blended triangles with green masked off.
fn mrt_gaps(gl: &Gl, _: &Ctx) -> Frame {
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
fn mrt_indexed_blend(gl: &Gl, c: &Ctx) -> Frame {
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
/// integer varyings and integer arithmetic written to each; read back as integers.
fn rt_integer(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_col;
flat out uvec4 v_u;
flat out int v_i;
void main() {
    gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0);
    v_u = uvec4(a_col * 255.0);
    v_i = gl_VertexID * 37 - 100;
}
";
    const FS: &str = "#version 300 es
precision highp float;
precision highp int;
flat in uvec4 v_u;
flat in int v_i;
layout(location = 0) out uvec4 o0;
layout(location = 1) out ivec4 o1;
layout(location = 2) out uvec4 o2;
layout(location = 3) out uvec4 o3;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    o0 = v_u + uvec4(uint(p.x), uint(p.y), 7u, 0u);
    o1 = ivec4(v_i * (p.x - 20) + p.y, -p.x, v_i, -70000 - p.y);
    o2 = uvec4(v_u.x * 300u + uint(p.x), 70000u + uint(p.y), v_u.z, 65535u);
    o3 = uvec4(0xdeadbe00u + uint(p.x), uint(v_i), v_u.y << 20, 0u - uint(p.y));
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

fn rt_srgb_565(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { rt_formats(gl, &[glow::SRGB8_ALPHA8, glow::RGB565, glow::RGBA8]) }
}

/// R8 and RG8 attachments (ARB_texture_rg, which needs them sampled too).
fn rt_r8_rg8(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { rt_formats(gl, &[glow::R8, glow::RG8, glow::RGBA8]) }
}

fn rt_packed_formats(gl: &Gl, _: &Ctx) -> Frame {
    unsafe { rt_formats(gl, &[glow::RGB10_A2, glow::RGBA4, glow::RGB5_A1]) }
}

/// Float render targets (RGBA16F, R11F_G11F_B10F, RGBA32F, R16F; EXT_color_buffer_float,
/// which needs them sampled too): values every format holds exactly, cleared with
/// glClearBufferfv and drawn, read back as floats, each component stored as min(4v, 255)
/// (negative → 0) in an RGBA8-sized image.
fn rt_float(gl: &Gl, c: &Ctx) -> Frame {
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
        let mut images = Vec::new();
        for i in 0..4 {
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
}

/// Attachments of different sizes (ES 3.0 / ARB_framebuffer_object: the render area is the
/// smallest). First a 64x64 texture holding a pattern, a 32x32 renderbuffer and a 64x48 depth
/// buffer (cleared): depth-tested draws reach only the 32x32 area, the texture keeps its
/// pattern outside it. Then the texture with a 40x24 renderbuffer.
/// Images: the texture and the small renderbuffer (padded to 64x64 with zeros), twice.
fn mixed_sizes(gl: &Gl, _: &Ctx) -> Frame {
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

/// `centroid` varyings (ES 3.0) next to plain ones: single-sampled, both interpolate at the
/// pixel centre.
fn centroid_varying(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_col;
centroid out vec4 v_c;
out vec4 v_p;
centroid out float v_w;
void main() {
    gl_Position = vec4(a_pos.xy / 32.0 - 1.0, 0.0, 1.0) * (1.0 + a_col.g);
    v_c = a_col; v_p = a_col.bgra; v_w = a_pos.x / 64.0;
}
";
    const FS: &str = "#version 300 es
precision highp float;
centroid in vec4 v_c;
in vec4 v_p;
centroid in float v_w;
out vec4 o;
void main() { o = vec4(v_c.r, v_p.g, v_w, 1.0) * 0.5 + vec4(v_c.b, v_p.r, 0.0, 0.0) * 0.5; }
";
    let mut v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    v.extend(tri([[40.3, 60.4], [62.2, 30.1], [60.7, 61.8]], 0.0, RGB3));
    unsafe {
        simple(gl, || {
            program(gl, VS, FS, &[])?;
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "glDrawArrays")
        })
    }
}

/// Flat (ES 3.0) and smooth outputs side by side, and integer arithmetic in the shader.
fn flat_varying(gl: &Gl, _: &Ctx) -> Frame {
    const VS: &str = "#version 300 es
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_col;
flat out vec4 v_flat;
flat out int v_id;
void main() { gl_Position = vec4(a_pos.xy / 32.0 - 1.0, 0.0, 1.0); v_flat = a_col; v_id = gl_VertexID; }
";
    const FS: &str = "#version 300 es
precision mediump float;
flat in vec4 v_flat;
flat in int v_id;
out vec4 o;
void main() { o = vec4(v_flat.rgb, float(v_id % 4) / 3.0); }
";
    let mut v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    v.extend(tri([[40.3, 60.4], [62.2, 30.1], [60.7, 61.8]], 0.0, RGB3));
    unsafe {
        simple(gl, || {
            program(gl, VS, FS, &[])?;
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "glDrawArrays")
        })
    }
}

/// Control flow and maths built-ins in the fragment shader (loop, pow, clamp, mix, step).
fn shader_math(gl: &Gl, _: &Ctx) -> Frame {
    const FS: &str = "precision highp float;
varying vec4 v_col;
void main() {
    vec3 acc = vec3(0.0);
    for (int i = 0; i < 4; i++) {
        acc += v_col.rgb * float(i + 1) * 0.1;
    }
    float s = step(0.5, v_col.g);
    gl_FragColor = vec4(clamp(acc, 0.0, 1.0), 1.0) * mix(0.5, 1.0, s) + vec4(0.0, 0.0, pow(v_col.b, 2.0) * 0.25, 0.0);
}
";
    let v = tri([[2.3, 3.4], [62.2, 10.1], [20.7, 61.8]], 0.0, RGB3);
    unsafe {
        simple(gl, || {
            program(gl, VS_COLOUR, FS, &["a_pos", "a_col"])?;
            vertices(gl, &v, &[3, 4])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            check(gl, "glDrawArrays")
        })
    }
}

/// Several draws in one frame with state changes between them (program, uniform, buffers).
fn many_draws(gl: &Gl, _: &Ctx) -> Frame {
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

// ---- ES 3.0 sampled texture formats ----

const VS3_TEXTURED: &str = "#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec2 a_tc;
out vec2 v_tc;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_tc = a_tc; }
";

/// One 4x4 texture of a sized internal format drawn on a vertical strip of the framebuffer with
/// NEAREST (texel edges on whole pixels: 16 rows each, and the strip width a multiple of 4) or
/// LINEAR filtering, shown as `texture(u_tex, v_tc) * scale + bias` (so signed, integer and
/// wide-range values land in [0, 1]).
struct Strip {
    internal: u32,
    format: u32,
    ty: u32,
    data: Vec<u8>,
    /// "sampler2D", "isampler2D" or "usampler2D".
    sampler: &'static str,
    scale: [f32; 4],
    bias: [f32; 4],
    filter: u32,
    /// TEXTURE_SWIZZLE_R/G/B/A (identity when None).
    swizzle: Option<[u32; 4]>,
}

impl Strip {
    fn new(internal: u32, format: u32, ty: u32, data: Vec<u8>) -> Strip {
        Strip {
            internal,
            format,
            ty,
            data,
            sampler: "sampler2D",
            scale: [1.0; 4],
            bias: [0.0; 4],
            filter: glow::NEAREST,
            swizzle: None,
        }
    }
    fn int(mut self, signed: bool, max: f32) -> Strip {
        self.sampler = if signed { "isampler2D" } else { "usampler2D" };
        let (s, b) = if signed {
            (0.5 / max, 0.5)
        } else {
            (1.0 / max, 0.0)
        };
        self.scale = [s; 4];
        self.bias = [b; 4];
        self
    }
    fn signed(mut self) -> Strip {
        self.scale = [0.5; 4];
        self.bias = [0.5; 4];
        self
    }
    fn linear(mut self) -> Strip {
        self.filter = glow::LINEAR;
        self
    }
}

/// Deterministic pseudo-random bytes (xorshift).
fn noise_bytes(n: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2654435761) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 7) as u8
        })
        .collect()
}

/// `n` little-endian words from `f` applied to noise.
fn words<T, const N: usize>(n: usize, seed: u32, f: impl Fn(u32) -> T) -> Vec<u8>
where
    T: Into<[u8; N]>,
{
    noise_bytes(4 * n, seed)
        .chunks(4)
        .flat_map(|c| f(u32::from_le_bytes([c[0], c[1], c[2], c[3]])).into())
        .collect()
}

fn le16(v: u16) -> [u8; 2] {
    v.to_le_bytes()
}
fn le32(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}

/// binary16 bits in (-1, 1): exponent at most 14, any sign and mantissa.
fn half_in_unit(r: u32) -> u16 {
    let exp = (r >> 10) % 15;
    ((r & 0x8000) | exp << 10 | (r & 0x3ff)) as u16
}

/// f32 in [-1, 1] on a 1/4096 grid (exact in every format it is uploaded to).
fn float_in_unit(r: u32) -> f32 {
    ((r % 8193) as f32 - 4096.0) / 4096.0
}

const FS3_STRIP: &str = "#version 300 es
precision highp float;
precision highp int;
uniform highp SAMPLER u_tex;
uniform vec4 u_scale;
uniform vec4 u_bias;
in vec2 v_tc;
out vec4 o;
void main() { o = vec4(texture(u_tex, v_tc)) * u_scale + u_bias; }
";

/// Draws `strips` side by side across the framebuffer (64 / len pixels each).
unsafe fn strips(gl: &Gl, strips: &[Strip]) -> Frame {
    simple(gl, || {
        let w = (SIZE as usize / strips.len()) as f32;
        for (i, st) in strips.iter().enumerate() {
            let fs = FS3_STRIP.replace("SAMPLER", st.sampler);
            let p = program(gl, VS3_TEXTURED, &fs, &[])?;
            gl.active_texture(glow::TEXTURE0);
            let tex = gl.create_texture()?;
            gl.bind_texture(glow::TEXTURE_2D, Some(tex));
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                st.internal as i32,
                4,
                4,
                0,
                st.format,
                st.ty,
                glow::PixelUnpackData::Slice(Some(&st.data)),
            );
            check(gl, &format!("upload of internal format {:#x}", st.internal))?;
            let params = [
                (glow::TEXTURE_MIN_FILTER, st.filter),
                (glow::TEXTURE_MAG_FILTER, st.filter),
                (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE),
                (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE),
            ];
            for (param, v) in params {
                gl.tex_parameter_i32(glow::TEXTURE_2D, param, v as i32);
            }
            if let Some(sw) = st.swizzle {
                let names = [
                    glow::TEXTURE_SWIZZLE_R,
                    glow::TEXTURE_SWIZZLE_G,
                    glow::TEXTURE_SWIZZLE_B,
                    glow::TEXTURE_SWIZZLE_A,
                ];
                for (name, v) in names.into_iter().zip(sw) {
                    gl.tex_parameter_i32(glow::TEXTURE_2D, name, v as i32);
                }
            }
            let loc = gl.get_uniform_location(p, "u_tex");
            gl.uniform_1_i32(loc.as_ref(), 0);
            uniform4(gl, p, "u_scale", st.scale);
            uniform4(gl, p, "u_bias", st.bias);
            let (x0, x1) = (i as f32 * w, (i + 1) as f32 * w);
            let v = [
                x0, 0.0, 0.0, 0.0, x1, 0.0, 1.0, 0.0, x1, 64.0, 1.0, 1.0, x0, 0.0, 0.0, 0.0, x1,
                64.0, 1.0, 1.0, x0, 64.0, 0.0, 1.0,
            ];
            vertices(gl, &v, &[2, 2])?;
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, &format!("draw of internal format {:#x}", st.internal))?;
        }
        Ok(())
    })
}

/// Unsigned normalised formats, packed ones included, and RGB8 (stored with a padding channel):
/// R8, RG8, RGB8, RGB565, RGBA4, RGB5_A1, RGB10_A2, SRGB8_ALPHA8.
fn texture_formats_unorm(gl: &Gl, _: &Ctx) -> Frame {
    let b = |n: usize, seed: u32| noise_bytes(16 * n, seed);
    let w16 = |seed| words::<_, 2>(16, seed, |r| le16(r as u16));
    let strips_ = [
        Strip::new(glow::R8, glow::RED, glow::UNSIGNED_BYTE, b(1, 1)),
        Strip::new(glow::RG8, glow::RG, glow::UNSIGNED_BYTE, b(2, 2)),
        Strip::new(glow::RGB8, glow::RGB, glow::UNSIGNED_BYTE, b(3, 3)),
        Strip::new(glow::RGB565, glow::RGB, glow::UNSIGNED_SHORT_5_6_5, w16(4)),
        Strip::new(
            glow::RGBA4,
            glow::RGBA,
            glow::UNSIGNED_SHORT_4_4_4_4,
            w16(5),
        ),
        Strip::new(
            glow::RGB5_A1,
            glow::RGBA,
            glow::UNSIGNED_SHORT_5_5_5_1,
            w16(6),
        ),
        Strip::new(
            glow::RGB10_A2,
            glow::RGBA,
            glow::UNSIGNED_INT_2_10_10_10_REV,
            words::<_, 4>(16, 7, le32),
        ),
        Strip::new(glow::SRGB8_ALPHA8, glow::RGBA, glow::UNSIGNED_BYTE, b(4, 8)),
    ];
    unsafe { strips(gl, &strips_) }
}

/// Signed normalised formats (shown as c / 2 + 1/2): R8, RG8, RGB8 and RGBA8 SNORM, the -128
/// codes included.
fn texture_formats_snorm(gl: &Gl, _: &Ctx) -> Frame {
    let b = |n: usize, seed: u32| noise_bytes(16 * n, seed);
    let strips_ = [
        Strip::new(glow::R8_SNORM, glow::RED, glow::BYTE, b(1, 11)).signed(),
        Strip::new(glow::RG8_SNORM, glow::RG, glow::BYTE, b(2, 12)).signed(),
        Strip::new(glow::RGB8_SNORM, glow::RGB, glow::BYTE, b(3, 13)).signed(),
        Strip::new(glow::RGBA8_SNORM, glow::RGBA, glow::BYTE, b(4, 14)).signed(),
    ];
    unsafe { strips(gl, &strips_) }
}

/// Half-float and packed-float formats: R16F, RG16F, RGB16F, RGBA16F (nearest), RGBA16F and
/// RG16F linear (OES_texture_half_float_linear is part of ES 3.0), R11F_G11F_B10F and RGB9_E5
/// (values below 2, shown as they are, clamped by the RGBA8 target).
fn texture_formats_half(gl: &Gl, _: &Ctx) -> Frame {
    let h = |n: usize, seed| words::<_, 2>(16 * n, seed, |r| le16(half_in_unit(r)));
    // 11/11/10-bit floats with exponents up to 15 (values below 2): never Inf or NaN.
    let small = |r: u32, m: u32| (r % 16) << m | (r >> 4) & ((1 << m) - 1);
    let r11 = words::<_, 4>(16, 27, |r| {
        le32(small(r, 6) | small(r >> 10, 6) << 11 | small(r >> 20, 5) << 22)
    });
    let e5 = words::<_, 4>(16, 28, |r| le32(r & 0x7ff_ffff | ((r >> 27) % 17) << 27));
    let strips_ = [
        Strip::new(glow::R16F, glow::RED, glow::HALF_FLOAT, h(1, 21)).signed(),
        Strip::new(glow::RG16F, glow::RG, glow::HALF_FLOAT, h(2, 22)).signed(),
        Strip::new(glow::RGB16F, glow::RGB, glow::HALF_FLOAT, h(3, 24)).signed(),
        Strip::new(glow::RGBA16F, glow::RGBA, glow::HALF_FLOAT, h(4, 23)).signed(),
        Strip::new(glow::RGBA16F, glow::RGBA, glow::HALF_FLOAT, h(4, 31))
            .signed()
            .linear(),
        Strip::new(glow::RG16F, glow::RG, glow::HALF_FLOAT, h(2, 32))
            .signed()
            .linear(),
        Strip::new(
            glow::R11F_G11F_B10F,
            glow::RGB,
            glow::UNSIGNED_INT_10F_11F_11F_REV,
            r11,
        ),
        Strip::new(glow::RGB9_E5, glow::RGB, glow::UNSIGNED_INT_5_9_9_9_REV, e5),
    ];
    unsafe { strips(gl, &strips_) }
}

/// 32-bit float formats, nearest (without OES_texture_float_linear Mesa samples them nearest):
/// R32F, RG32F, RGB32F (stored with a padding channel), RGBA32F.
fn texture_formats_float32(gl: &Gl, _: &Ctx) -> Frame {
    let f = |n: usize, seed| words::<_, 4>(16 * n, seed, |r| le32(float_in_unit(r).to_bits()));
    let strips_ = [
        Strip::new(glow::R32F, glow::RED, glow::FLOAT, f(1, 25)).signed(),
        Strip::new(glow::RG32F, glow::RG, glow::FLOAT, f(2, 26)).signed(),
        Strip::new(glow::RGB32F, glow::RGB, glow::FLOAT, f(3, 30)).signed(),
        Strip::new(glow::RGBA32F, glow::RGBA, glow::FLOAT, f(4, 29)).signed(),
    ];
    unsafe { strips(gl, &strips_) }
}

/// Integer formats through isampler2D/usampler2D (raw integers, scaled into [0, 1] by the
/// shader): R8UI, RG8I, RGBA8UI, R16I, RG16UI, RGBA16I, R32UI, RGBA32I, RGB8I, RGB10_A2UI, and
/// with full-range 32-bit values (their float conversion rounds the same way everywhere).
fn texture_formats_integer(gl: &Gl, _: &Ctx) -> Frame {
    let b = |n: usize, seed: u32| noise_bytes(16 * n, seed);
    let u16s = |n: usize, seed| words::<_, 2>(16 * n, seed, |r| le16(r as u16));
    let u32s = |n: usize, seed| words::<_, 4>(16 * n, seed, le32);
    let strips_ = [
        Strip::new(glow::R8UI, glow::RED_INTEGER, glow::UNSIGNED_BYTE, b(1, 41)).int(false, 255.0),
        Strip::new(glow::RG8I, glow::RG_INTEGER, glow::BYTE, b(2, 42)).int(true, 128.0),
        Strip::new(
            glow::RGBA8UI,
            glow::RGBA_INTEGER,
            glow::UNSIGNED_BYTE,
            b(4, 43),
        )
        .int(false, 255.0),
        Strip::new(glow::RGB8I, glow::RGB_INTEGER, glow::BYTE, b(3, 44)).int(true, 128.0),
        Strip::new(glow::R16I, glow::RED_INTEGER, glow::SHORT, u16s(1, 45)).int(true, 32768.0),
        Strip::new(
            glow::RG16UI,
            glow::RG_INTEGER,
            glow::UNSIGNED_SHORT,
            u16s(2, 46),
        )
        .int(false, 65535.0),
        Strip::new(glow::RGBA16I, glow::RGBA_INTEGER, glow::SHORT, u16s(4, 47)).int(true, 32768.0),
        Strip::new(
            glow::R32UI,
            glow::RED_INTEGER,
            glow::UNSIGNED_INT,
            u32s(1, 48),
        )
        .int(false, 4294967295.0),
        Strip::new(glow::RG32I, glow::RG_INTEGER, glow::INT, u32s(2, 49)).int(true, 2147483648.0),
        Strip::new(glow::RGBA32I, glow::RGBA_INTEGER, glow::INT, u32s(4, 50))
            .int(true, 2147483648.0),
        Strip::new(
            glow::RGBA32UI,
            glow::RGBA_INTEGER,
            glow::UNSIGNED_INT,
            u32s(4, 51),
        )
        .int(false, 4294967295.0),
        Strip::new(
            glow::RGB10_A2UI,
            glow::RGBA_INTEGER,
            glow::UNSIGNED_INT_2_10_10_10_REV,
            u32s(1, 52),
        )
        .int(false, 1023.0),
        Strip::new(
            glow::RGB16UI,
            glow::RGB_INTEGER,
            glow::UNSIGNED_SHORT,
            u16s(3, 53),
        )
        .int(false, 65535.0),
        Strip::new(glow::RGB32I, glow::RGB_INTEGER, glow::INT, u32s(3, 54)).int(true, 2147483648.0),
        Strip::new(glow::RG8UI, glow::RG_INTEGER, glow::UNSIGNED_BYTE, b(2, 55)).int(false, 255.0),
        Strip::new(glow::R8I, glow::RED_INTEGER, glow::BYTE, b(1, 56)).int(true, 128.0),
    ];
    unsafe { strips(gl, &strips_) }
}

/// Depth textures sampled as depth (ES 3.0: (d, 0, 0, 1), no compare, nearest):
/// DEPTH_COMPONENT16, DEPTH_COMPONENT24, DEPTH_COMPONENT32F, DEPTH24_STENCIL8 and
/// DEPTH32F_STENCIL8, with a swizzled one (d in every channel).
fn texture_depth(gl: &Gl, _: &Ctx) -> Frame {
    let unit = |r: u32| (r % 4097) as f32 / 4096.0;
    let z24s8 = words::<_, 4>(16, 63, |r| le32(r & 0xffff_ff00 | 0x5a));
    let z32s8: Vec<u8> = words::<_, 4>(16, 64, |r| le32(unit(r).to_bits()))
        .chunks(4)
        .flat_map(|c| [c[0], c[1], c[2], c[3], 0xa5, 0, 0, 0])
        .collect();
    let mut swizzled = Strip::new(
        glow::DEPTH_COMPONENT32F,
        glow::DEPTH_COMPONENT,
        glow::FLOAT,
        words::<_, 4>(16, 65, |r| le32(unit(r).to_bits())),
    );
    swizzled.swizzle = Some([glow::RED, glow::RED, glow::ONE, glow::RED]);
    let strips_ = [
        Strip::new(
            glow::DEPTH_COMPONENT16,
            glow::DEPTH_COMPONENT,
            glow::UNSIGNED_SHORT,
            words::<_, 2>(16, 61, |r| le16(r as u16)),
        ),
        Strip::new(
            glow::DEPTH_COMPONENT24,
            glow::DEPTH_COMPONENT,
            glow::UNSIGNED_INT,
            words::<_, 4>(16, 62, le32),
        ),
        Strip::new(
            glow::DEPTH_COMPONENT32F,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            words::<_, 4>(16, 66, |r| le32(unit(r).to_bits())),
        ),
        Strip::new(
            glow::DEPTH24_STENCIL8,
            glow::DEPTH_STENCIL,
            glow::UNSIGNED_INT_24_8,
            z24s8,
        ),
        Strip::new(
            glow::DEPTH32F_STENCIL8,
            glow::DEPTH_STENCIL,
            glow::FLOAT_32_UNSIGNED_INT_24_8_REV,
            z32s8,
        ),
        swizzled,
        Strip::new(
            glow::DEPTH_COMPONENT16,
            glow::DEPTH_COMPONENT,
            glow::UNSIGNED_SHORT,
            words::<_, 2>(16, 67, |r| le16(r as u16)),
        ),
        Strip::new(
            glow::DEPTH24_STENCIL8,
            glow::DEPTH_STENCIL,
            glow::UNSIGNED_INT_24_8,
            words::<_, 4>(16, 68, le32),
        ),
    ];
    unsafe { strips(gl, &strips_) }
}

/// Texture swizzles (ES 3.0 TEXTURE_SWIZZLE_*), composed with the format's own channel order:
/// RGBA8, BGRA-stored RGB565, R8 (missing channels and constants), an integer RG8UI (integer
/// one) and LUMINANCE_ALPHA.
fn texture_swizzle(gl: &Gl, _: &Ctx) -> Frame {
    let b = |n: usize, seed: u32| noise_bytes(16 * n, seed);
    let with = |mut s: Strip, sw: [u32; 4]| {
        s.swizzle = Some(sw);
        s
    };
    let (r, g, bl, a, one, zero) = (
        glow::RED,
        glow::GREEN,
        glow::BLUE,
        glow::ALPHA,
        glow::ONE,
        glow::ZERO,
    );
    let strips_ = [
        with(
            Strip::new(glow::RGBA8, glow::RGBA, glow::UNSIGNED_BYTE, b(4, 71)),
            [bl, one, r, zero],
        ),
        with(
            Strip::new(glow::RGBA8, glow::RGBA, glow::UNSIGNED_BYTE, b(4, 72)),
            [a, a, g, r],
        ),
        with(
            Strip::new(
                glow::RGB565,
                glow::RGB,
                glow::UNSIGNED_SHORT_5_6_5,
                words::<_, 2>(16, 73, |v| le16(v as u16)),
            ),
            [g, bl, r, one],
        ),
        with(
            Strip::new(glow::R8, glow::RED, glow::UNSIGNED_BYTE, b(1, 74)),
            [zero, r, g, a],
        ),
        with(
            Strip::new(glow::RG8UI, glow::RG_INTEGER, glow::UNSIGNED_BYTE, b(2, 75))
                .int(false, 255.0),
            [g, one, r, one],
        ),
        with(
            Strip::new(
                glow::LUMINANCE_ALPHA,
                glow::LUMINANCE_ALPHA,
                glow::UNSIGNED_BYTE,
                b(2, 76),
            ),
            [a, r, one, g],
        ),
        with(
            Strip::new(glow::SRGB8, glow::RGB, glow::UNSIGNED_BYTE, b(3, 77)),
            [bl, g, r, a],
        ),
        with(
            Strip::new(glow::RGBA16F, glow::RGBA, glow::HALF_FLOAT, {
                words::<_, 2>(64, 78, |v| le16(half_in_unit(v)))
            })
            .signed(),
            [a, bl, g, r],
        ),
    ];
    unsafe { strips(gl, &strips_) }
}

/// glGenerateMipmap of 16x16 textures in sampled formats other than RGBA8 (the driver's CPU
/// path declines them; Mesa then blits through the driver or falls back to software), each drawn
/// on an 8-pixel strip so level 1 is sampled (NEAREST_MIPMAP_NEAREST): RGBA16F, R8, RG8,
/// RGB10_A2, R11F_G11F_B10F, RGB565, SRGB8_ALPHA8, RGB8 (ES 3.0 generates mipmaps of
/// colour-renderable formats only; the float ones are with EXT_color_buffer_float).
fn texture_generate_mipmap_formats(gl: &Gl, _: &Ctx) -> Frame {
    let n = 256;
    let b = |c: usize, seed: u32| noise_bytes(n * c, seed);
    let small = |r: u32, m: u32| (r % 16) << m | (r >> 4) & ((1 << m) - 1);
    let list = [
        Strip::new(glow::RGBA16F, glow::RGBA, glow::HALF_FLOAT, {
            words::<_, 2>(4 * n, 91, |r| le16(half_in_unit(r)))
        })
        .signed(),
        Strip::new(glow::R8, glow::RED, glow::UNSIGNED_BYTE, b(1, 92)),
        Strip::new(glow::RG8, glow::RG, glow::UNSIGNED_BYTE, b(2, 93)),
        Strip::new(
            glow::RGB10_A2,
            glow::RGBA,
            glow::UNSIGNED_INT_2_10_10_10_REV,
            words::<_, 4>(n, 94, le32),
        ),
        Strip::new(
            glow::R11F_G11F_B10F,
            glow::RGB,
            glow::UNSIGNED_INT_10F_11F_11F_REV,
            words::<_, 4>(n, 95, |r| {
                le32(small(r, 6) | small(r >> 10, 6) << 11 | small(r >> 20, 5) << 22)
            }),
        ),
        // 5/6-bit channels: GL leaves the rounding of a mean that falls halfway between two
        // codes open, so each 2x2 block is a base code plus 0, 2, 2, 4 (exact means).
        Strip::new(glow::RGB565, glow::RGB, glow::UNSIGNED_SHORT_5_6_5, {
            let base = noise_bytes(2 * 8 * 8, 96);
            (0..n)
                .flat_map(|i| {
                    let (x, y) = (i % 16, i / 16);
                    let o = 2 * ((y / 2) * 8 + x / 2);
                    let a = u16::from_le_bytes([base[o], base[o + 1]]);
                    let add = 2 * (x % 2 + y % 2) as u16;
                    let code = |shift: u16, bits: u16| (a >> shift) % ((1 << bits) - 4) + add;
                    le16(code(0, 5) | code(5, 6) << 5 | code(11, 5) << 11)
                })
                .collect()
        }),
        Strip::new(
            glow::SRGB8_ALPHA8,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            b(4, 97),
        ),
        Strip::new(glow::RGB8, glow::RGB, glow::UNSIGNED_BYTE, b(3, 98)),
    ];
    unsafe {
        simple(gl, || {
            let fs = FS3_STRIP.replace("SAMPLER", "sampler2D");
            let p = program(gl, VS3_TEXTURED, &fs, &[])?;
            let loc = gl.get_uniform_location(p, "u_tex");
            gl.uniform_1_i32(loc.as_ref(), 0);
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            for (i, st) in list.iter().enumerate() {
                let tex = gl.create_texture()?;
                gl.bind_texture(glow::TEXTURE_2D, Some(tex));
                gl.tex_image_2d(
                    glow::TEXTURE_2D,
                    0,
                    st.internal as i32,
                    16,
                    16,
                    0,
                    st.format,
                    st.ty,
                    glow::PixelUnpackData::Slice(Some(&st.data)),
                );
                gl.generate_mipmap(glow::TEXTURE_2D);
                check(gl, &format!("glGenerateMipmap of {:#x}", st.internal))?;
                let params = [
                    (glow::TEXTURE_MIN_FILTER, glow::NEAREST_MIPMAP_NEAREST),
                    (glow::TEXTURE_MAG_FILTER, glow::NEAREST),
                ];
                for (param, v) in params {
                    gl.tex_parameter_i32(glow::TEXTURE_2D, param, v as i32);
                }
                uniform4(gl, p, "u_scale", st.scale);
                uniform4(gl, p, "u_bias", st.bias);
                let (x0, x1) = (i as f32 * 8.0, (i + 1) as f32 * 8.0);
                let v = [
                    x0, 0.0, 0.0, 0.0, x1, 0.0, 1.0, 0.0, x1, 64.0, 1.0, 1.0, x0, 0.0, 0.0, 0.0,
                    x1, 64.0, 1.0, 1.0, x0, 64.0, 0.0, 1.0,
                ];
                vertices(gl, &v, &[2, 2])?;
                gl.draw_arrays(glow::TRIANGLES, 0, 6);
                check(gl, &format!("draw of {:#x}", st.internal))?;
            }
            Ok(())
        })
    }
}

/// ETC2 / EAC compressed textures (core in ES 3.0): the driver samples no compressed format, so
/// Mesa's state tracker decompresses them at upload into a format it samples. One 4x4 block
/// each of ETC2 RGB8, ETC2 SRGB8, ETC2 RGBA8 (EAC alpha), EAC R11 and EAC RG11 (signed), with
/// arbitrary block bytes (every 64-bit pattern is a valid block).
fn texture_etc2(gl: &Gl, _: &Ctx) -> Frame {
    unsafe {
        simple(gl, || {
            let list: [(u32, usize, bool); 8] = [
                (glow::COMPRESSED_RGB8_ETC2, 8, false),
                (glow::COMPRESSED_SRGB8_ETC2, 8, false),
                (glow::COMPRESSED_RGBA8_ETC2_EAC, 16, false),
                (glow::COMPRESSED_RGB8_PUNCHTHROUGH_ALPHA1_ETC2, 8, false),
                (glow::COMPRESSED_R11_EAC, 8, false),
                (glow::COMPRESSED_SIGNED_R11_EAC, 8, true),
                (glow::COMPRESSED_RG11_EAC, 16, false),
                (glow::COMPRESSED_SIGNED_RG11_EAC, 16, true),
            ];
            for (i, &(format, bytes, signed)) in list.iter().enumerate() {
                let fs = FS3_STRIP.replace("SAMPLER", "sampler2D");
                let p = program(gl, VS3_TEXTURED, &fs, &[])?;
                let tex = gl.create_texture()?;
                gl.bind_texture(glow::TEXTURE_2D, Some(tex));
                let data = noise_bytes(bytes, 80 + i as u32);
                gl.compressed_tex_image_2d(
                    glow::TEXTURE_2D,
                    0,
                    format as i32,
                    4,
                    4,
                    0,
                    bytes as i32,
                    &data,
                );
                check(gl, &format!("compressed upload {format:#x}"))?;
                for param in [glow::TEXTURE_MIN_FILTER, glow::TEXTURE_MAG_FILTER] {
                    gl.tex_parameter_i32(glow::TEXTURE_2D, param, glow::NEAREST as i32);
                }
                let loc = gl.get_uniform_location(p, "u_tex");
                gl.uniform_1_i32(loc.as_ref(), 0);
                let (s, b) = if signed { (0.5, 0.5) } else { (1.0, 0.0) };
                uniform4(gl, p, "u_scale", [s; 4]);
                uniform4(gl, p, "u_bias", [b; 4]);
                let (x0, x1) = (i as f32 * 8.0, (i + 1) as f32 * 8.0);
                let v = [
                    x0, 0.0, 0.0, 0.0, x1, 0.0, 1.0, 0.0, x1, 64.0, 1.0, 1.0, x0, 0.0, 0.0, 0.0,
                    x1, 64.0, 1.0, 1.0, x0, 64.0, 0.0, 1.0,
                ];
                vertices(gl, &v, &[2, 2])?;
                gl.draw_arrays(glow::TRIANGLES, 0, 6);
                check(gl, &format!("draw of compressed format {format:#x}"))?;
            }
            Ok(())
        })
    }
}

const fn s(
    name: &'static str,
    es: u32,
    tol: u8,
    slack: usize,
    render: fn(&Gl, &Ctx) -> Frame,
) -> Scene {
    Scene {
        name,
        es,
        tol,
        slack,
        render,
    }
}

const SCENES: &[Scene] = &[
    s("clear_color", 2, 0, 0, clear_color),
    s("clear_scissored", 2, 0, 0, clear_scissored),
    s("clear_color_mask", 2, 0, 0, clear_color_mask),
    s("clear_rounding", 2, 1, 0, clear_rounding),
    s("points", 2, 1, 0, points),
    s("lines", 2, 1, 3, lines),
    s("line_strip", 2, 1, 3, line_strip),
    s("line_loop", 2, 1, 4, line_loop),
    s("triangles", 2, 1, 0, triangles),
    s("triangle_strip", 2, 1, 0, triangle_strip),
    s("triangle_fan", 2, 1, 0, triangle_fan),
    s("elements_u8", 2, 1, 0, elements_u8),
    s("elements_u16", 2, 1, 0, elements_u16),
    s("elements_u32", 2, 1, 0, elements_u32),
    s("elements_base_vertex", 2, 1, 0, elements_base_vertex),
    s("instanced", 3, 1, 0, instanced),
    s("instanced_divisors", 3, 1, 0, instanced_divisors),
    s("vertex_formats", 3, 1, 0, vertex_formats),
    s("attribute_matrix", 3, 1, 0, attribute_matrix),
    s("attributes_16", 2, 1, 0, attributes_16),
    s("primitive_restart", 3, 1, 12, primitive_restart),
    s("depth_less", 2, 0, 0, depth_less),
    s("depth_greater", 2, 0, 0, depth_greater),
    s("depth_lequal_no_write", 2, 0, 0, depth_lequal_no_write),
    s("depth_always_notequal", 2, 0, 0, depth_always_notequal),
    s("stencil_replace_equal", 2, 1, 0, stencil_replace_equal),
    s("stencil_incr_decr", 2, 0, 0, stencil_incr_decr),
    s("stencil_two_sided", 2, 0, 0, stencil_two_sided),
    s("depth_stencil_packed", 2, 0, 0, depth_stencil_packed),
    s("blend_alpha", 2, 1, 0, blend_alpha),
    s("blend_additive", 2, 1, 0, blend_additive),
    s("blend_subtract", 2, 1, 0, blend_subtract),
    s("blend_reverse_subtract", 2, 1, 0, blend_reverse_subtract),
    s("blend_min_max", 2, 1, 0, blend_min_max),
    s("blend_constant", 2, 1, 0, blend_constant),
    s("blend_constant_per_draw", 2, 1, 0, blend_constant_per_draw),
    s("blend_separate", 2, 1, 0, blend_separate),
    s("scissor_draw", 2, 1, 0, scissor_draw),
    s("color_mask_draw", 2, 1, 0, color_mask_draw),
    s("viewport_offset", 2, 1, 0, viewport_offset),
    s("cull_back_ccw", 2, 1, 0, cull_back_ccw),
    s("front_facing", 2, 0, 0, front_facing),
    s("perspective_varying", 2, 1, 0, perspective_varying),
    s("attribute_formats", 2, 1, 0, attribute_formats),
    s("uniform_matrix", 2, 0, 0, uniform_matrix),
    s("uniform_array", 2, 1, 0, uniform_array),
    s("uniform_array_large", 2, 1, 0, uniform_array_large),
    s("uniform_block", 3, 1, 0, uniform_block),
    s("uniform_blocks_indexed", 3, 1, 0, uniform_blocks_indexed),
    s(
        "uniform_block_array_struct",
        3,
        1,
        0,
        uniform_block_array_struct,
    ),
    s("varyings_8", 2, 1, 0, varyings_8),
    s("varyings_16", 3, 1, 0, varyings_16),
    s("discard", 2, 1, 0, discard),
    s("discard_depth", 2, 0, 0, discard_depth),
    s("discard_blend", 2, 1, 0, discard_blend),
    s("frag_depth", 3, 1, 0, frag_depth),
    s("frag_coord", 2, 1, 0, frag_coord),
    s("texture_nearest", 2, 0, 0, texture_nearest),
    s("texture_linear", 2, 1, 0, texture_linear),
    s("texture_repeat", 2, 0, 0, texture_repeat),
    s("texture_mipmap", 2, 1, 0, texture_mipmap),
    s("texture_two_units", 2, 1, 0, texture_two_units),
    s("texture_formats", 2, 0, 0, texture_formats),
    s("texture_formats_unorm", 3, 1, 0, texture_formats_unorm),
    s("texture_formats_snorm", 3, 1, 0, texture_formats_snorm),
    s("texture_formats_half", 3, 1, 0, texture_formats_half),
    s("texture_formats_float32", 3, 1, 0, texture_formats_float32),
    s("texture_formats_integer", 3, 1, 0, texture_formats_integer),
    s("texture_depth", 3, 1, 0, texture_depth),
    s("texture_swizzle", 3, 1, 0, texture_swizzle),
    s("texture_etc2", 3, 1, 0, texture_etc2),
    s(
        "texture_generate_mipmap_formats",
        3,
        1,
        0,
        texture_generate_mipmap_formats,
    ),
    s("texture_render_target", 2, 1, 0, texture_render_target),
    s("draw_after_flush", 2, 1, 0, draw_after_flush),
    s("texture_cube", 2, 0, 0, texture_targets::texture_cube),
    s(
        "texture_cube_linear",
        2,
        1,
        0,
        texture_targets::texture_cube_linear,
    ),
    s(
        "texture_2d_array",
        3,
        0,
        0,
        texture_targets::texture_2d_array,
    ),
    s("texture_3d", 3, 0, 0, texture_targets::texture_3d),
    s(
        "texture_3d_linear",
        3,
        1,
        0,
        texture_targets::texture_3d_linear,
    ),
    s(
        "texture_lod_targets",
        3,
        0,
        0,
        texture_targets::texture_lod_targets,
    ),
    s("texture_size", 3, 0, 0, texture_targets::texture_size),
    s(
        "texture_proj_offset",
        3,
        0,
        0,
        texture_targets::texture_proj_offset,
    ),
    s("texture_grad", 3, 0, 0, texture_targets::texture_grad),
    s("texture_shadow", 3, 0, 0, texture_targets::texture_shadow),
    s(
        "texture_cube_mipmap",
        3,
        1,
        0,
        texture_targets::texture_cube_mipmap,
    ),
    s(
        "texel_fetch_targets",
        3,
        0,
        0,
        texture_targets::texel_fetch_targets,
    ),
    s("mrt", 3, 1, 0, mrt),
    s("flat_varying", 3, 1, 0, flat_varying),
    s("mrt_gaps", 3, 1, 0, mrt_gaps),
    s("mrt_indexed_blend", 3, 1, 0, mrt_indexed_blend),
    s("rt_integer", 3, 0, 0, rt_integer),
    s("rt_srgb_565", 3, 1, 0, rt_srgb_565),
    s("rt_packed_formats", 3, 1, 0, rt_packed_formats),
    s("rt_float", 3, 0, 0, rt_float),
    s("rt_r8_rg8", 3, 1, 0, rt_r8_rg8),
    s("mixed_sizes", 3, 1, 0, mixed_sizes),
    s("centroid_varying", 3, 1, 0, centroid_varying),
    s("shader_math", 2, 1, 0, shader_math),
    s("many_draws", 2, 0, 0, many_draws),
    s("blit_scaled", 3, 1, 0, blit_scaled),
    s("occlusion_query", 3, 0, 0, occlusion_query),
    s("texture_in_branches", 2, 1, 0, texture_in_branches),
    s("vertex_texture", 3, 1, 0, vertex_texture),
];

struct Egl {
    egl: egl::DynamicInstance<egl::EGL1_5>,
    display: egl::Display,
    config: egl::Config,
    es: u32,
}

fn egl_open() -> Res<Egl> {
    // SAFETY: loading the system's libEGL.
    let egl = unsafe { egl::DynamicInstance::<egl::EGL1_5>::load_required() }
        .map_err(|e| format!("cannot load libEGL.so.1: {e}"))?;
    // SAFETY: EGL_DEFAULT_DISPLAY with the surfaceless platform.
    let display = unsafe {
        egl.get_platform_display(
            EGL_PLATFORM_SURFACELESS_MESA,
            egl::DEFAULT_DISPLAY,
            &[egl::ATTRIB_NONE],
        )
    }
    .map_err(|e| format!("eglGetPlatformDisplay: {e}"))?;
    egl.initialize(display)
        .map_err(|e| format!("eglInitialize: {e}"))?;
    egl.bind_api(egl::OPENGL_ES_API)
        .map_err(|e| format!("eglBindAPI: {e}"))?;
    let config = egl
        .choose_first_config(
            display,
            &[
                egl::RENDERABLE_TYPE,
                egl::OPENGL_ES2_BIT,
                egl::SURFACE_TYPE,
                egl::PBUFFER_BIT,
                egl::NONE,
            ],
        )
        .map_err(|e| format!("eglChooseConfig: {e}"))?
        .ok_or("no GLES config")?;
    let mut e = Egl {
        egl,
        display,
        config,
        es: 2,
    };
    // The highest of ES 3 and ES 2 this display creates.
    if let Ok(ctx) = e.context(3) {
        e.es = 3;
        e.egl.destroy_context(display, ctx).ok();
    }
    Ok(e)
}

impl Egl {
    fn context(&self, version: u32) -> Res<egl::Context> {
        self.egl
            .create_context(
                self.display,
                self.config,
                None,
                &[egl::CONTEXT_CLIENT_VERSION, version as i32, egl::NONE],
            )
            .map_err(|e| format!("eglCreateContext(GLES {version}): {e}"))
    }
}

/// Renders one scene in a fresh context.
fn render(e: &Egl, scene: &Scene) -> Frame {
    if scene.es > e.es {
        return Err(Outcome::Skip(format!(
            "needs OpenGL ES {}.0; the highest context this display creates is ES {}.0",
            scene.es, e.es
        )));
    }
    let ctx = e.context(e.es)?;
    e.egl
        .make_current(e.display, None, None, Some(ctx))
        .map_err(|err| format!("eglMakeCurrent: {err}"))?;
    let proc = |name: &str| {
        e.egl
            .get_proc_address(name)
            .map_or(std::ptr::null(), |f| f as *const c_void)
    };
    // SAFETY: the context is current on this thread.
    let gl = unsafe { glow::Context::from_loader_function(proc) };
    // SAFETY: a query on the current context.
    let extensions = unsafe { gl.get_parameter_string(glow::EXTENSIONS) };
    let c = Ctx {
        es: e.es,
        extensions,
    };
    let result = (scene.render)(&gl, &c);
    // SAFETY: finishing on the current context before it goes away.
    unsafe { gl.finish() };
    drop(gl);
    e.egl.make_current(e.display, None, None, None).ok();
    e.egl.destroy_context(e.display, ctx).ok();
    result
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        for sc in SCENES {
            println!(
                "scene {} es={} tol={} slack={}",
                sc.name, sc.es, sc.tol, sc.slack
            );
        }
        return ExitCode::SUCCESS;
    }
    let mut chosen = Vec::new();
    for a in &args {
        match SCENES.iter().find(|s| s.name == a) {
            Some(s) => chosen.push(s),
            None => {
                eprintln!("agx16-imagesuite: unknown scene {a:?} (--list shows them)");
                return ExitCode::from(2);
            }
        }
    }
    if chosen.is_empty() {
        chosen = SCENES.iter().collect();
    }
    let e = match egl_open() {
        Ok(e) => e,
        Err(err) => {
            eprintln!("agx16-imagesuite: {err}");
            return ExitCode::FAILURE;
        }
    };
    // The renderer, from a throwaway context.
    if let Ok(ctx) = e.context(e.es) {
        if e.egl.make_current(e.display, None, None, Some(ctx)).is_ok() {
            let proc = |name: &str| {
                e.egl
                    .get_proc_address(name)
                    .map_or(std::ptr::null(), |f| f as *const c_void)
            };
            // SAFETY: the context is current.
            let gl = unsafe { glow::Context::from_loader_function(proc) };
            // SAFETY: a query on the current context.
            println!("GL_RENDERER: {}", unsafe {
                gl.get_parameter_string(glow::RENDERER)
            });
        }
        e.egl.make_current(e.display, None, None, None).ok();
        e.egl.destroy_context(e.display, ctx).ok();
    }
    println!("context: ES {}", e.es);
    let mut out = std::io::stdout();
    for sc in chosen {
        println!("begin {}", sc.name);
        out.flush().ok();
        eprintln!("imagesuite: begin {}", sc.name);
        match render(&e, sc) {
            Ok(images) => {
                let hex: Vec<String> = images
                    .iter()
                    .map(|px| px.iter().map(|b| format!("{b:02x}")).collect())
                    .collect();
                println!("ok {} {}", sc.name, hex.join(" "));
            }
            Err(Outcome::Skip(r)) => println!("skip {}: {r}", sc.name),
            Err(Outcome::Error(r)) => println!("error {}: {r}", sc.name),
        }
        out.flush().ok();
    }
    eprintln!("imagesuite: end");
    e.egl.terminate(e.display).ok();
    ExitCode::SUCCESS
}

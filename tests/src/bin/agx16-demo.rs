//! agx16-demo: renders a small 3D scene with GLES 2.0 on surfaceless EGL into a 128x128 RGBA8
//! framebuffer object (16-bit depth renderbuffer), writes it to a PNG and checks it against
//! softpipe rendering the same scene on the same Mesa build (a child process of this program with
//! `LIBGL_ALWAYS_SOFTWARE=1`).
//!
//! Scene: a floor and a rotated cube (indexed triangles from one vertex buffer: position, normal,
//! texture coordinate and colour attributes), depth test LESS, a perspective camera, diffuse plus
//! ambient lighting from one directional light. Optional features, each used only when agx16
//! renders it like softpipe: the view-projection matrix as a mat4 uniform in the vertex shader
//! (else clip-space positions from the CPU), per-fragment lighting (else per-vertex), a
//! mipmapped brick texture (trilinear, repeating) modulating the colour, and a translucent pane drawn last with
//! SRC_ALPHA/ONE_MINUS_SRC_ALPHA blending. The richest feature set that compiles, draws without a
//! GL error and matches softpipe is the one written; every rejected set is printed with its reason.
//! 128x128 because the model needs ~7 s per 128x128 frame (larger targets render too: see
//! agx16-drawtest `--size`).
//!
//! Usage: `agx16-demo [--out demo.png] [--reference] [--bench N]`
//!   --reference  render on softpipe (GL_RENDERER must be softpipe) instead of agx16
//!   --bench N    render the chosen scene N times on agx16 and N times on softpipe (a child
//!                process) and print both times and their ratio
//! Internal: `--features LIST --raw PATH` renders one feature set and writes raw RGBA rows.

use agx16_tests::gles::{gl_error, read_rgba8, shader};
use glow::HasContext;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

const SIZE: i32 = 128;
/// The camera angle of the written picture; bench frames turn the camera from here.
const VIEW_ANGLE: f32 = 0.55;

/// Pixel-match rule against softpipe: GL leaves rounding and rasterisation ties open, so a pixel
/// may differ by up to `TOLERANCE` 8-bit steps per channel; at most `OUTLIERS_PPM` pixels per
/// million (edge pixels on tie-breaking and texel-boundary choices) may differ by more.
const TOLERANCE: u8 = 2;
const OUTLIERS_PPM: usize = 2000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Features {
    /// The view-projection matrix is a uniform applied by the vertex shader (else the vertex
    /// buffer holds clip-space positions computed on the CPU every frame).
    gpu_transform: bool,
    fragment_lighting: bool,
    texture: bool,
    blend: bool,
}

impl Features {
    fn describe(&self) -> String {
        let mut v = vec![
            "indexed triangles (u16) from a vertex buffer (position, normal, uv, colour)",
            "depth test LESS on a 16-bit depth renderbuffer",
        ];
        v.push(if self.gpu_transform {
            "perspective camera (mat4 uniform in the vertex shader)"
        } else {
            "perspective camera (clip-space positions computed on the CPU)"
        });
        v.push(if self.fragment_lighting {
            "per-fragment diffuse+ambient lighting"
        } else {
            "per-vertex diffuse+ambient lighting"
        });
        if self.texture {
            v.push("trilinear-filtered, mipmapped RGBA8 brick texture (7 levels uploaded with glTexImage2D)");
        }
        if self.blend {
            v.push("translucent pane with SRC_ALPHA/ONE_MINUS_SRC_ALPHA blending");
        }
        v.join(", ")
    }

    fn arg(&self) -> String {
        let mut v = vec![
            if self.gpu_transform {
                "gpumvp"
            } else {
                "cpumvp"
            },
            if self.fragment_lighting {
                "fraglight"
            } else {
                "vertlight"
            },
        ];
        if self.texture {
            v.push("texture");
        }
        if self.blend {
            v.push("blend");
        }
        v.join(",")
    }

    fn parse(s: &str) -> Result<Features, String> {
        let mut f = Features {
            gpu_transform: false,
            fragment_lighting: false,
            texture: false,
            blend: false,
        };
        for w in s.split(',') {
            match w {
                "gpumvp" => f.gpu_transform = true,
                "cpumvp" => f.gpu_transform = false,
                "fraglight" => f.fragment_lighting = true,
                "vertlight" => f.fragment_lighting = false,
                "texture" => f.texture = true,
                "blend" => f.blend = true,
                o => return Err(format!("unknown feature {o:?}")),
            }
        }
        Ok(f)
    }
}

struct Options {
    out: String,
    reference: bool,
    bench: Option<u32>,
    features: Option<Features>,
    raw: Option<String>,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        out: "demo.png".into(),
        reference: false,
        bench: None,
        features: None,
        raw: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--out" => o.out = value()?,
            "--reference" => o.reference = true,
            "--bench" => {
                let n: u32 = value()?.parse().map_err(|e| format!("--bench: {e}"))?;
                if n == 0 {
                    return Err("--bench needs N >= 1".into());
                }
                o.bench = Some(n);
            }
            "--features" => o.features = Some(Features::parse(&value()?)?),
            "--raw" => o.raw = Some(value()?),
            other => {
                return Err(format!(
                    "unknown argument {other:?} (known: --out PATH, --reference, --bench N)"
                ))
            }
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("agx16-demo: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agx16-demo: {e}");
            ExitCode::FAILURE
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Maths (column-major 4x4 matrices as GL takes them).

type Mat4 = [f32; 16];

fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut r = [0.0; 16];
    for c in 0..4 {
        for row in 0..4 {
            r[c * 4 + row] = (0..4).map(|k| a[k * 4 + row] * b[c * 4 + k]).sum();
        }
    }
    r
}

fn perspective(fovy: f32, aspect: f32, near: f32, far: f32) -> Mat4 {
    let f = 1.0 / (fovy / 2.0).tan();
    let mut m = [0.0; 16];
    m[0] = f / aspect;
    m[5] = f;
    m[10] = (far + near) / (near - far);
    m[11] = -1.0;
    m[14] = 2.0 * far * near / (near - far);
    m
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn normalize(a: [f32; 3]) -> [f32; 3] {
    let l = dot(a, a).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

fn look_at(eye: [f32; 3], center: [f32; 3], up: [f32; 3]) -> Mat4 {
    let f = normalize(sub(center, eye));
    let s = normalize(cross(f, up));
    let u = cross(s, f);
    [
        s[0],
        u[0],
        -f[0],
        0.0,
        s[1],
        u[1],
        -f[1],
        0.0,
        s[2],
        u[2],
        -f[2],
        0.0,
        -dot(s, eye),
        -dot(u, eye),
        dot(f, eye),
        1.0,
    ]
}

fn rotate_y(a: f32) -> Mat4 {
    let (s, c) = a.sin_cos();
    [
        c, 0.0, -s, 0.0, 0.0, 1.0, 0.0, 0.0, s, 0.0, c, 0.0, 0.0, 0.0, 0.0, 1.0,
    ]
}

// ---------------------------------------------------------------------------------------------
// Geometry: 13 floats per vertex (position 4, normal 3, uv 2, colour 4).

const FLOATS: usize = 13;
const STRIDE: i32 = 4 * FLOATS as i32;

struct Mesh {
    vertices: Vec<f32>,
    indices: Vec<u16>,
    /// (first index, count) of the opaque part and of the translucent pane.
    opaque: (i32, i32),
    pane: (i32, i32),
}

fn quad(
    m: &mut Mesh,
    corners: [[f32; 3]; 4],
    normal: [f32; 3],
    uv: ([f32; 2], f32),
    colour: [f32; 4],
) {
    let (uv_origin, uv_scale) = uv;
    let base = (m.vertices.len() / FLOATS) as u16;
    let uvs = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    for (p, uv) in corners.iter().zip(uvs) {
        m.vertices.extend_from_slice(p);
        m.vertices.push(1.0);
        m.vertices.extend_from_slice(&normal);
        m.vertices.extend_from_slice(&[
            uv[0] * uv_scale + uv_origin[0],
            uv[1] * uv_scale + uv_origin[1],
        ]);
        m.vertices.extend_from_slice(&colour);
    }
    m.indices
        .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
}

fn scene_mesh() -> Mesh {
    let mut m = Mesh {
        vertices: Vec::new(),
        indices: Vec::new(),
        opaque: (0, 0),
        pane: (0, 0),
    };
    // Floor at y = -0.6.
    let y = -0.6;
    quad(
        &mut m,
        [
            [-1.6, y, 1.6],
            [1.6, y, 1.6],
            [1.6, y, -1.6],
            [-1.6, y, -1.6],
        ],
        [0.0, 1.0, 0.0],
        ([0.0, 0.0], 0.75),
        [0.85, 0.85, 0.8, 1.0],
    );
    // Cube of half-size 0.6 resting on the floor, turned about y (positions and normals turned
    // here, so the vertex shader needs only the view-projection matrix).
    let h = 0.6;
    let turn = rotate_y(0.6);
    let rot = |p: [f32; 3]| -> [f32; 3] {
        std::array::from_fn(|r| (0..3).map(|k| turn[k * 4 + r] * p[k]).sum())
    };
    // (normal, u axis, v axis, colour) per face.
    type Face = ([f32; 3], [f32; 3], [f32; 3], [f32; 4]);
    let faces: [Face; 6] = [
        (
            [1.0, 0.0, 0.0],
            [0.0, 0.0, -1.0],
            [0.0, 1.0, 0.0],
            [0.9, 0.25, 0.2, 1.0],
        ),
        (
            [-1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0],
            [0.2, 0.8, 0.3, 1.0],
        ),
        (
            [0.0, 1.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, -1.0],
            [0.95, 0.8, 0.2, 1.0],
        ),
        (
            [0.0, -1.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.5, 0.5, 0.5, 1.0],
        ),
        (
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.25, 0.4, 0.95, 1.0],
        ),
        (
            [0.0, 0.0, -1.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.8, 0.3, 0.85, 1.0],
        ),
    ];
    for (n, u, v, col) in faces {
        let c = |su: f32, sv: f32| -> [f32; 3] {
            rot(std::array::from_fn(|i| (n[i] + su * u[i] + sv * v[i]) * h))
        };
        let n = rot(n);
        quad(
            &mut m,
            [c(-1.0, -1.0), c(1.0, -1.0), c(1.0, 1.0), c(-1.0, 1.0)],
            n,
            ([0.0, 0.0], 0.75),
            col,
        );
    }
    m.opaque = (0, m.indices.len() as i32);
    // Translucent pane in front of the cube (facing +z, tilted by the camera's view), one
    // brick's colour of the texture.
    let first = m.indices.len() as i32;
    quad(
        &mut m,
        [
            [-1.0, -0.5, 1.1],
            [0.45, -0.5, 1.1],
            [0.45, 0.9, 1.1],
            [-1.0, 0.9, 1.1],
        ],
        [0.0, 0.0, 1.0],
        (BRICK_CENTRE, 0.0),
        [0.3, 0.75, 1.0, 0.45],
    );
    m.pane = (first, m.indices.len() as i32 - first);
    m
}

/// Edge of the brick texture's level 0.
const TEX_SIZE: usize = 64;
/// A brick's centre in texture coordinates: row 0's first brick spans texels x 2..32, y 2..16
/// (see `bricks`), so a linear sample here reads only that brick's colour.
const BRICK_CENTRE: [f32; 2] = [17.0 / 64.0, 9.0 / 64.0];

/// 64x64 RGBA8 bricks (rows of 16 texels, bricks 32 wide, every other row offset by half a
/// brick, 2-texel mortar lines, two brick shades) and its mip chain down to 1x1, each level the
/// rounded 2x2 box filter of the one above: one glTexImage2D per level (glGenerateMipmap would
/// do the same on the CPU, texture.rs in the driver; uploading the levels keeps the demo
/// independent of that path).
fn brick_levels() -> Vec<Vec<u8>> {
    let n = TEX_SIZE;
    let mut level = Vec::with_capacity(n * n * 4);
    for y in 0..n {
        for x in 0..n {
            let row = y / 16;
            let shifted = x + if row % 2 == 1 { 16 } else { 0 };
            let mortar = y % 16 < 2 || shifted % 32 < 2;
            level.extend_from_slice(if mortar {
                &[96, 96, 104, 255]
            } else if (shifted / 32 + row) % 2 == 0 {
                &[255, 236, 214, 255]
            } else {
                &[236, 214, 196, 255]
            });
        }
    }
    let mut levels = vec![level];
    let mut size = n;
    while size > 1 {
        let src = levels.last().unwrap();
        let half = size / 2;
        let mut dst = Vec::with_capacity(half * half * 4);
        for y in 0..half {
            for x in 0..half {
                for c in 0..4 {
                    let at = |dx: usize, dy: usize| {
                        src[((2 * y + dy) * size + 2 * x + dx) * 4 + c] as u32
                    };
                    dst.push(((at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) / 4) as u8);
                }
            }
        }
        levels.push(dst);
        size = half;
    }
    levels
}

// ---------------------------------------------------------------------------------------------
// Shaders.

const VS: &str = "
attribute vec4 a_pos;
attribute vec3 a_normal;
attribute vec2 a_uv;
attribute vec4 a_col;
uniform mat4 u_mvp;
varying vec4 v_col;
varying vec2 v_uv;
#ifdef FRAGMENT_LIGHTING
varying vec3 v_normal;
#endif
void main() {
#ifdef GPU_TRANSFORM
    gl_Position = u_mvp * a_pos;
#else
    gl_Position = a_pos;
#endif
#ifdef FRAGMENT_LIGHTING
    v_normal = a_normal;
    v_col = a_col;
#else
    float d = max(dot(normalize(a_normal), LIGHT), 0.0);
    v_col = vec4(a_col.rgb * (0.25 + 0.75 * d), a_col.a);
#endif
    v_uv = a_uv;
}
";

const FS: &str = "
precision highp float;
varying vec4 v_col;
varying vec2 v_uv;
#ifdef FRAGMENT_LIGHTING
varying vec3 v_normal;
#endif
#ifdef TEXTURE
uniform sampler2D u_tex;
#endif
void main() {
    vec4 c = v_col;
#ifdef FRAGMENT_LIGHTING
    float d = max(dot(normalize(v_normal), LIGHT), 0.0);
    c.rgb = c.rgb * (0.25 + 0.75 * d);
#endif
#ifdef TEXTURE
    c.rgb = c.rgb * texture2D(u_tex, v_uv).rgb;
#endif
    gl_FragColor = c;
}
";

// ---------------------------------------------------------------------------------------------
// EGL and GL.

use agx16_tests::gles::{gles2, Gles};

/// GL objects of one feature set, created once and drawn per frame.
struct Scene {
    features: Features,
    program: glow::Program,
    mvp: Option<glow::UniformLocation>,
    vbo: glow::Buffer,
    mesh: Mesh,
}

const ATTRIBS: [(u32, &str); 4] = [(0, "a_pos"), (1, "a_normal"), (2, "a_uv"), (3, "a_col")];

/// Creates the framebuffer object, buffers, texture and program of `features` on the current
/// context.
unsafe fn setup(gl: &glow::Context, features: Features) -> Result<Scene, String> {
    let target = gl.create_texture()?;
    gl.bind_texture(glow::TEXTURE_2D, Some(target));
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
    let fbo = gl.create_framebuffer()?;
    gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
    gl.framebuffer_texture_2d(
        glow::FRAMEBUFFER,
        glow::COLOR_ATTACHMENT0,
        glow::TEXTURE_2D,
        Some(target),
        0,
    );
    let rb = gl.create_renderbuffer()?;
    gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
    gl.renderbuffer_storage(glow::RENDERBUFFER, glow::DEPTH_COMPONENT16, SIZE, SIZE);
    gl.framebuffer_renderbuffer(
        glow::FRAMEBUFFER,
        glow::DEPTH_ATTACHMENT,
        glow::RENDERBUFFER,
        Some(rb),
    );
    if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
        return Err("framebuffer incomplete".into());
    }
    gl_error(gl, "framebuffer set-up")?;

    let light = normalize([0.5, 0.9, 0.7]);
    let mut defines = format!(
        "#define LIGHT vec3({:.6}, {:.6}, {:.6})\n",
        light[0], light[1], light[2]
    );
    if features.fragment_lighting {
        defines.push_str("#define FRAGMENT_LIGHTING 1\n");
    }
    if features.gpu_transform {
        defines.push_str("#define GPU_TRANSFORM 1\n");
    }
    if features.texture {
        defines.push_str("#define TEXTURE 1\n");
    }
    let program = gl.create_program()?;
    let vs = shader(gl, glow::VERTEX_SHADER, &format!("{defines}{VS}"))?;
    let fs = shader(gl, glow::FRAGMENT_SHADER, &format!("{defines}{FS}"))?;
    gl.attach_shader(program, vs);
    gl.attach_shader(program, fs);
    for (i, name) in ATTRIBS {
        gl.bind_attrib_location(program, i, name);
    }
    gl.link_program(program);
    if !gl.get_program_link_status(program) {
        return Err(format!("link: {}", gl.get_program_info_log(program)));
    }
    gl.use_program(Some(program));
    if features.texture {
        let tex = gl.create_texture()?;
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        for (level, data) in brick_levels().iter().enumerate() {
            let n = (TEX_SIZE >> level) as i32;
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                level as i32,
                glow::RGBA as i32,
                n,
                n,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(data)),
            );
        }
        for (p, v) in [
            (glow::TEXTURE_MIN_FILTER, glow::LINEAR_MIPMAP_LINEAR),
            (glow::TEXTURE_MAG_FILTER, glow::LINEAR),
            (glow::TEXTURE_WRAP_S, glow::REPEAT),
            (glow::TEXTURE_WRAP_T, glow::REPEAT),
        ] {
            gl.tex_parameter_i32(glow::TEXTURE_2D, p, v as i32);
        }
        gl.uniform_1_i32(gl.get_uniform_location(program, "u_tex").as_ref(), 0);
    }
    gl_error(gl, "program and texture set-up")?;

    let mesh = scene_mesh();
    let vbo = gl.create_buffer()?;
    gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
    let bytes: Vec<u8> = mesh.vertices.iter().flat_map(|f| f.to_le_bytes()).collect();
    gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
    let ibo = gl.create_buffer()?;
    gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(ibo));
    let idx: Vec<u8> = mesh.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, &idx, glow::STATIC_DRAW);
    for (i, (n, off)) in [(4, 0), (3, 16), (2, 28), (4, 36)].into_iter().enumerate() {
        gl.enable_vertex_attrib_array(i as u32);
        gl.vertex_attrib_pointer_f32(i as u32, n, glow::FLOAT, false, STRIDE, off);
    }
    gl.viewport(0, 0, SIZE, SIZE);
    gl.clear_color(0.08, 0.1, 0.16, 1.0);
    gl.clear_depth_f32(1.0);
    gl.enable(glow::DEPTH_TEST);
    gl.depth_func(glow::LESS);
    gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
    gl_error(gl, "vertex and fixed-function set-up")?;
    Ok(Scene {
        features,
        mvp: gl.get_uniform_location(program, "u_mvp"),
        vbo,
        program,
        mesh,
    })
}

/// Draws one frame with the camera at `angle` and reads it back (bottom row first).
unsafe fn frame(gl: &glow::Context, s: &Scene, angle: f32) -> Result<Vec<u8>, String> {
    gl.use_program(Some(s.program));
    let eye = [3.4 * angle.sin(), 2.1, 3.4 * angle.cos()];
    let view = look_at(eye, [0.0, -0.1, 0.0], [0.0, 1.0, 0.0]);
    let proj = perspective(0.9, 1.0, 0.5, 12.0);
    let vp = mul(&proj, &view);
    // Depth writes on before the clear: glClear honours the depth mask, and the previous
    // frame (or scene on this context) ends with it off for the translucent pane.
    gl.depth_mask(true);
    gl.disable(glow::BLEND);
    gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT);
    // The floor and the cube in one draw (world-space vertices).
    if s.features.gpu_transform {
        gl.uniform_matrix_4_f32_slice(s.mvp.as_ref(), false, &vp);
    } else {
        let mut v = s.mesh.vertices.clone();
        for vert in v.chunks_mut(FLOATS) {
            let p = [vert[0], vert[1], vert[2], vert[3]];
            for (r, out) in vert[..4].iter_mut().enumerate() {
                *out = (0..4).map(|k| vp[k * 4 + r] * p[k]).sum();
            }
        }
        let bytes: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(s.vbo));
        gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STREAM_DRAW);
    }
    let (first, count) = s.mesh.opaque;
    gl.draw_elements(glow::TRIANGLES, count, glow::UNSIGNED_SHORT, first * 2);
    gl_error(gl, "opaque draw")?;
    if s.features.blend {
        gl.enable(glow::BLEND);
        gl.depth_mask(false);
        let (first, count) = s.mesh.pane;
        gl.draw_elements(glow::TRIANGLES, count, glow::UNSIGNED_SHORT, first * 2);
        gl_error(gl, "blended draw")?;
    }
    let px = read_rgba8(gl, 0, 0, SIZE, SIZE)?;
    Ok(px)
}

fn check_renderer(g: &Gles, reference: bool) -> Result<(), String> {
    if reference {
        if g.renderer != "softpipe" {
            return Err(format!(
                "--reference needs softpipe (LIBGL_ALWAYS_SOFTWARE=1), got {:?}",
                g.renderer
            ));
        }
    } else if !g.renderer.starts_with("Apple M4 (G16G) agx16") {
        return Err(format!(
            "GL_RENDERER is {:?}, not agx16: run through `./x demo` (the DRM shim presents the M4)",
            g.renderer
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Comparison, PNG, child processes.

struct Diff {
    max: [u8; 4],
    mean: [f64; 4],
    outliers: usize,
}

fn diff(a: &[u8], b: &[u8]) -> Diff {
    let mut max = [0u8; 4];
    let mut sum = [0u64; 4];
    let mut outliers = 0;
    for (pa, pb) in a.chunks(4).zip(b.chunks(4)) {
        let mut out = false;
        for c in 0..4 {
            let d = pa[c].abs_diff(pb[c]);
            max[c] = max[c].max(d);
            sum[c] += d as u64;
            out |= d > TOLERANCE;
        }
        outliers += out as usize;
    }
    let n = (a.len() / 4) as f64;
    Diff {
        max,
        mean: sum.map(|s| s as f64 / n),
        outliers,
    }
}

impl Diff {
    fn matches(&self) -> bool {
        self.outliers * 1_000_000 <= OUTLIERS_PPM * (SIZE * SIZE) as usize
    }
    fn describe(&self) -> String {
        format!(
            "max |d| R {} G {} B {} A {}, mean R {:.3} G {:.3} B {:.3} A {:.3}, {} of {} pixels beyond {} steps",
            self.max[0],
            self.max[1],
            self.max[2],
            self.max[3],
            self.mean[0],
            self.mean[1],
            self.mean[2],
            self.mean[3],
            self.outliers,
            SIZE * SIZE,
            TOLERANCE
        )
    }
}

fn write_png(path: &str, bottom_up: &[u8]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), SIZE as u32, SIZE as u32);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| format!("{path}: {e}"))?;
    let row = (SIZE * 4) as usize;
    let top_down: Vec<u8> = bottom_up.chunks(row).rev().flatten().copied().collect();
    w.write_image_data(&top_down)
        .map_err(|e| format!("{path}: {e}"))?;
    w.finish().map_err(|e| format!("{path}: {e}"))
}

/// Runs this program on softpipe; returns its stdout.
fn softpipe_child(args: &[&str]) -> Result<String, String> {
    // /proc/self/exe: this very program even if a rebuild has replaced its file meanwhile.
    let out = Command::new("/proc/self/exe")
        .args(args)
        .arg("--reference")
        .env("LIBGL_ALWAYS_SOFTWARE", "1")
        .env_remove("AGX16_DEBUG")
        .output()
        .map_err(|e| format!("cannot start the softpipe child: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "softpipe child {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn softpipe_frame(features: Features) -> Result<Vec<u8>, String> {
    let path = std::env::temp_dir().join(format!("agx16-demo-{}.rgba", std::process::id()));
    let p = path.display().to_string();
    softpipe_child(&["--features", &features.arg(), "--raw", &p])?;
    let px = std::fs::read(&path).map_err(|e| format!("{p}: {e}"))?;
    std::fs::remove_file(&path).ok();
    if px.len() != (SIZE * SIZE * 4) as usize {
        return Err(format!("{p}: {} bytes", px.len()));
    }
    Ok(px)
}

/// Renders `n` frames (camera turning) after one warm-up frame; returns the time of the `n`.
unsafe fn timed(gl: &glow::Context, s: &Scene, n: u32) -> Result<Duration, String> {
    frame(gl, s, VIEW_ANGLE)?;
    let t = Instant::now();
    for i in 0..n {
        frame(gl, s, VIEW_ANGLE + 0.3 * i as f32)?;
    }
    Ok(t.elapsed())
}

fn run(opts: &Options) -> Result<(), String> {
    let g = gles2()?;
    println!("GL_RENDERER: {}", g.renderer);
    check_renderer(&g, opts.reference)?;
    let gl = &g.gl;

    // Internal modes: one feature set to a raw file, or timing on the reference.
    if let Some(features) = opts.features {
        // SAFETY: the context of `g` is current on this thread.
        let s = unsafe { setup(gl, features)? };
        if let Some(n) = opts.bench {
            let t = unsafe { timed(gl, &s, n)? };
            println!("time: {}", t.as_secs_f64());
        }
        let px = unsafe { frame(gl, &s, VIEW_ANGLE)? };
        match &opts.raw {
            Some(raw) => std::fs::write(raw, px).map_err(|e| format!("{raw}: {e}"))?,
            None => {
                write_png(&opts.out, &px)?;
                println!("wrote {} [{}]", opts.out, features.arg());
            }
        }
        return Ok(());
    }
    if opts.reference {
        // SAFETY: as above.
        let best = Features {
            gpu_transform: true,
            fragment_lighting: true,
            texture: true,
            blend: true,
        };
        let s = unsafe { setup(gl, best)? };
        let px = unsafe { frame(gl, &s, VIEW_ANGLE)? };
        println!("scene: {}", best.describe());
        write_png(&opts.out, &px)?;
        println!("wrote {} ({SIZE}x{SIZE}, softpipe)", opts.out);
        return Ok(());
    }

    // agx16: per-fragment lighting if it renders like softpipe (else per-vertex), then each of
    // texture and blending on top of that, then both if both passed.
    let mut chosen: Option<(Scene, Vec<u8>, Diff)> = None;
    let mut attempt = |features: Features| -> Result<bool, String> {
        // SAFETY: the context of `g` is current on this thread.
        let r = unsafe { setup(gl, features).and_then(|s| Ok((frame(gl, &s, VIEW_ANGLE)?, s))) };
        let (px, scene) = match r {
            Ok(r) => r,
            Err(e) => {
                println!("not used [{}]: {e}", features.arg());
                return Ok(false);
            }
        };
        let d = diff(&px, &softpipe_frame(features)?);
        if !d.matches() {
            println!(
                "not used [{}]: differs from softpipe ({})",
                features.arg(),
                d.describe()
            );
            return Ok(false);
        }
        chosen = Some((scene, px, d));
        Ok(true)
    };
    // Base: the camera matrix in the vertex shader, else on the CPU; lighting per fragment,
    // else per vertex.
    let mut base = None;
    'base: for gpu_transform in [true, false] {
        for fragment_lighting in [true, false] {
            let f = Features {
                gpu_transform,
                fragment_lighting,
                texture: false,
                blend: false,
            };
            if attempt(f)? {
                base = Some(f);
                break 'base;
            }
        }
    }
    let base = base.ok_or("not even the plainest scene renders like softpipe")?;
    let texture = attempt(Features {
        texture: true,
        ..base
    })?;
    let blend = attempt(Features {
        blend: true,
        ..base
    })?;
    if texture && blend {
        attempt(Features {
            texture: true,
            blend: true,
            ..base
        })?;
    }
    // The last set that passed is the richest (both features, else the one that passed).
    let (scene, px, d) = chosen.ok_or("no scene chosen")?;
    println!(
        "scene [{}]: {}",
        scene.features.arg(),
        scene.features.describe()
    );
    println!("vs softpipe: {}", d.describe());
    write_png(&opts.out, &px)?;
    println!("wrote {} ({SIZE}x{SIZE}, agx16)", opts.out);

    if let Some(n) = opts.bench {
        // SAFETY: as above.
        let agx = unsafe { timed(gl, &scene, n)? };
        let out = softpipe_child(&[
            "--features",
            &scene.features.arg(),
            "--bench",
            &n.to_string(),
        ])?;
        let soft: f64 = out
            .lines()
            .find_map(|l| l.strip_prefix("time: "))
            .ok_or("softpipe child printed no time")?
            .parse()
            .map_err(|e| format!("softpipe time: {e}"))?;
        let a = agx.as_secs_f64();
        println!(
            "bench: {n} frames {SIZE}x{SIZE} [{}]: agx16+model {a:.3} s ({:.1} ms/frame), softpipe {soft:.3} s ({:.1} ms/frame), agx16/softpipe {:.1}x",
            scene.features.arg(),
            1000.0 * a / n as f64,
            1000.0 * soft / n as f64,
            a / soft
        );
    }
    Ok(())
}

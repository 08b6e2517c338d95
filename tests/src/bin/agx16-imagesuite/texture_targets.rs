//! Texture targets and texture functions: cube maps (GLES 2.0), 2D arrays and 3D textures (ES
//! 3.0), and GLSL ES 3.00's textureSize, textureProj, textureOffset, texelFetchOffset,
//! textureGrad and textureLod on every target.
//!
//! Geometry: quads of 16x24 pixels (or 20x28 for cube faces) whose texture coordinates span the
//! texels so that no texel edge of a NEAREST lookup falls on a pixel centre (8 texels over 16
//! pixels: edges at even pixel offsets; the cube faces' edges at 3.75, 10, 16.25 pixels), so
//! nearest scenes have tolerance 0; linear scenes 1 step (the module comment of the suite).
//! The cube scenes other than `texture_cube_seamless` stay inside one face and, for LINEAR,
//! away from its edges; `texture_cube_seamless` crosses face edges (ES 3.0's seamless
//! filtering, §3.8.9.1) but keeps half a texel away from the cube's corners, where softpipe's
//! filter takes other texels than the three the GL specification recommends averaging.

use super::{check, program, rgba8_level, simple, texels, Frame, Gl, Res};
use glow::HasContext;

const VS2: &str = "attribute vec2 a_pos;
attribute vec3 a_tc;
varying vec3 v_tc;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_tc = a_tc; }
";

pub(super) const VS3: &str = "#version 300 es
in vec2 a_pos;
in vec3 a_tc;
out vec3 v_tc;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_tc = a_tc; }
";

/// A quad: pixel rectangle and the texture coordinate at its four corners (x0y0, x1y0, x1y1,
/// x0y1).
pub(super) struct Quad {
    pub(super) rect: [f32; 4],
    pub(super) tc: [[f32; 3]; 4],
}

/// A quad whose (s, t) span [s0, s1] x [t0, t1] with a constant third coordinate r.
pub(super) fn st_quad(rect: [f32; 4], s: [f32; 2], t: [f32; 2], r: f32) -> Quad {
    Quad {
        rect,
        tc: [
            [s[0], t[0], r],
            [s[1], t[0], r],
            [s[1], t[1], r],
            [s[0], t[1], r],
        ],
    }
}

/// The k-th of six 16x24 quads in a 3x2 grid.
pub(super) fn cell(k: usize) -> [f32; 4] {
    let (c, r) = ((k % 3) as f32, (k / 3) as f32);
    let (x0, y0) = (4.0 + 20.0 * c, 4.0 + 30.0 * r);
    [x0, y0, x0 + 16.0, y0 + 24.0]
}

/// Draws `quads` with the program of `vs`/`fs` (texture unit 0 as `u_tex`, unit 1 as
/// `u_tex1` when the program has it) after `setup` binds the textures.
unsafe fn draw_quads(
    gl: &Gl,
    vs: &str,
    fs: &str,
    quads: &[Quad],
    setup: impl FnOnce() -> Res<()>,
) -> Frame {
    draw_passes(gl, vs, &[(fs, quads)], setup)
}

/// One draw per (fragment shader, quads) pass, in order, with the textures `setup` binds.
pub(super) unsafe fn draw_passes(
    gl: &Gl,
    vs: &str,
    passes: &[(&str, &[Quad])],
    setup: impl FnOnce() -> Res<()>,
) -> Frame {
    simple(gl, || {
        setup()?;
        for (fs, quads) in passes {
            let p = program(gl, vs, fs, &["a_pos", "a_tc"])?;
            let mut v = Vec::new();
            for q in quads.iter() {
                let [x0, y0, x1, y1] = q.rect;
                let corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
                for k in [0, 1, 2, 0, 2, 3] {
                    v.extend(corners[k]);
                    v.extend(q.tc[k]);
                }
            }
            super::vertices(gl, &v, &[2, 3])?;
            for (name, unit) in [("u_tex", 0), ("u_tex1", 1)] {
                let loc = gl.get_uniform_location(p, name);
                gl.uniform_1_i32(loc.as_ref(), unit);
            }
            gl.draw_arrays(glow::TRIANGLES, 0, 6 * quads.len() as i32);
            check(gl, "draw")?;
        }
        Ok(())
    })
}

pub(super) unsafe fn params(gl: &Gl, target: u32, min: u32, mag: u32, wrap: u32) {
    gl.tex_parameter_i32(target, glow::TEXTURE_MIN_FILTER, min as i32);
    gl.tex_parameter_i32(target, glow::TEXTURE_MAG_FILTER, mag as i32);
    for w in [
        glow::TEXTURE_WRAP_S,
        glow::TEXTURE_WRAP_T,
        glow::TEXTURE_WRAP_R,
    ] {
        gl.tex_parameter_i32(target, w, wrap as i32);
    }
}

/// A 4x4 cube map, face f filled with `texels(4, 40 f + seed)`.
unsafe fn cube(gl: &Gl, seed: u8, filter: u32) -> Res<()> {
    let tex = gl.create_texture()?;
    gl.bind_texture(glow::TEXTURE_CUBE_MAP, Some(tex));
    for f in 0..6u32 {
        let data = texels(4, (40 * f as u8).wrapping_add(seed));
        rgba8_level(gl, glow::TEXTURE_CUBE_MAP_POSITIVE_X + f, 0, 4, &data);
    }
    params(
        gl,
        glow::TEXTURE_CUBE_MAP,
        filter,
        filter,
        glow::CLAMP_TO_EDGE,
    );
    check(gl, "cube map upload")
}

/// One quad per face: the direction's major axis is the face's, the other two components
/// span [-a, a] across the quad (a 20x28 quad in a 3x2 grid).
fn cube_quads(a: f32) -> Vec<Quad> {
    (0..6)
        .map(|f| {
            let (c, r) = ((f % 3) as f32, (f / 3) as f32);
            let (x0, y0) = (1.0 + 21.0 * c, 2.0 + 32.0 * r);
            let sign = if f % 2 == 0 { 1.0 } else { -1.0 };
            let dir = |s: f32, t: f32| match f / 2 {
                0 => [sign, s, t],
                1 => [s, sign, t],
                _ => [s, t, sign],
            };
            Quad {
                rect: [x0, y0, x0 + 20.0, y0 + 28.0],
                tc: [dir(-a, -a), dir(a, -a), dir(a, a), dir(-a, a)],
            }
        })
        .collect()
}

/// Quads whose directions cross face edges: on face `f`'s quad the component along `along`
/// runs over [-a, a] (a > 1 leaves the face on both sides), the remaining one over [-b, b]
/// (b small enough that no bilinear tap leaves the faces it reaches across the other axis,
/// so no tap is near a cube corner).
fn seam_quads(rects: &[[f32; 4]], a: f32, b: f32) -> Vec<Quad> {
    // (major axis, its sign, axis crossing edges); the third axis spans [-b, b].
    let faces = [
        (0usize, 1.0f32, 1usize),
        (2, -1.0, 0),
        (1, 1.0, 2),
        (1, -1.0, 0),
    ];
    rects
        .iter()
        .zip(faces.iter().cycle())
        .map(|(&rect, &(major, sign, along))| {
            let other = 3 - major - along;
            let dir = |u: f32, v: f32| {
                let mut d = [0.0; 3];
                d[major] = sign;
                d[along] = u;
                d[other] = v;
                d
            };
            Quad {
                rect,
                tc: [dir(-a, -b), dir(a, -b), dir(a, b), dir(-a, b)],
            }
        })
        .collect()
}

/// Seamless cube-map filtering (ES 3.0): LINEAR lookups of a 4x4 cube map magnified across
/// face edges (four 28x28 quads, each crossing two edges of its face), then of the same map
/// minified across edges (four 8x8 quads over a wider span: LINEAR without mipmaps, so the
/// LOD only chooses between two identical filters).
pub fn texture_cube_seamless(gl: &Gl, _: &super::Ctx) -> Frame {
    const FS: &str = "#version 300 es
precision highp float;
uniform highp samplerCube u_tex;
in vec3 v_tc;
out vec4 o;
void main() { o = texture(u_tex, v_tc); }
";
    let big = [
        [2.0, 2.0, 30.0, 30.0],
        [34.0, 2.0, 62.0, 30.0],
        [2.0, 34.0, 30.0, 62.0],
        [34.0, 34.0, 62.0, 50.0],
    ];
    let small = [
        [38.0, 52.0, 46.0, 60.0],
        [48.0, 52.0, 56.0, 60.0],
        [56.0, 52.0, 62.0, 58.0],
        [31.0, 40.0, 33.0, 48.0],
    ];
    let mut quads = seam_quads(&big, 1.7, 0.45);
    quads.extend(seam_quads(&small, 2.6, 0.4));
    unsafe { draw_quads(gl, VS3, FS, &quads, || cube(gl, 21, glow::LINEAR)) }
}

const FS_CUBE: &str = "precision highp float;
uniform samplerCube u_tex;
varying vec3 v_tc;
void main() { gl_FragColor = textureCube(u_tex, v_tc); }
";

pub fn texture_cube(gl: &Gl, _: &super::Ctx) -> Frame {
    unsafe {
        draw_quads(gl, VS2, FS_CUBE, &cube_quads(0.8), || {
            cube(gl, 3, glow::NEAREST)
        })
    }
}

pub fn texture_cube_linear(gl: &Gl, _: &super::Ctx) -> Frame {
    unsafe {
        draw_quads(gl, VS2, FS_CUBE, &cube_quads(0.6), || {
            cube(gl, 77, glow::LINEAR)
        })
    }
}

/// An 8x8x`n` RGBA8 2D array or 3D texture, plane p filled with `texels(8, 50 p + seed)`;
/// with `levels` > 1 the further levels are constant colours per level and plane.
unsafe fn volume(gl: &Gl, target: u32, n: i32, levels: i32, filter: (u32, u32)) -> Res<()> {
    let tex = gl.create_texture()?;
    gl.bind_texture(target, Some(tex));
    for level in 0..levels {
        let size = 8 >> level;
        let depth = if target == glow::TEXTURE_3D {
            (n >> level).max(1)
        } else {
            n
        };
        let mut data = Vec::new();
        for p in 0..depth {
            if level == 0 {
                data.extend(texels(8, (50 * p as u8).wrapping_add(11)));
            } else {
                let c = [
                    (level * 80) as u8,
                    (p * 60) as u8,
                    255 - (level * 50) as u8,
                    255,
                ];
                data.extend((0..size * size).flat_map(|_| c));
            }
        }
        gl.tex_image_3d(
            target,
            level,
            glow::RGBA8 as i32,
            size,
            size,
            depth,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(&data)),
        );
    }
    gl.tex_parameter_i32(target, glow::TEXTURE_MAX_LEVEL, levels - 1);
    params(gl, target, filter.0, filter.1, glow::CLAMP_TO_EDGE);
    check(gl, "texture upload")
}

const FS_ARRAY: &str = "#version 300 es
precision highp float;
uniform highp sampler2DArray u_tex;
in vec3 v_tc;
out vec4 o;
void main() { o = texture(u_tex, v_tc); }
";

pub fn texture_2d_array(gl: &Gl, _: &super::Ctx) -> Frame {
    // Layers rounded to nearest and clamped to [0, 3] (ES 3.0 §3.8.10).
    let layers = [0.0, 1.4, 2.6, 3.0, 9.0, -3.0];
    let quads: Vec<Quad> = (0..6)
        .map(|k| st_quad(cell(k), [0.0, 1.0], [0.0, 1.0], layers[k]))
        .collect();
    unsafe {
        draw_quads(gl, VS3, FS_ARRAY, &quads, || {
            volume(
                gl,
                glow::TEXTURE_2D_ARRAY,
                4,
                1,
                (glow::NEAREST, glow::NEAREST),
            )
        })
    }
}

const FS_3D: &str = "#version 300 es
precision highp float;
uniform highp sampler3D u_tex;
in vec3 v_tc;
out vec4 o;
void main() { o = texture(u_tex, v_tc); }
";

pub fn texture_3d(gl: &Gl, _: &super::Ctx) -> Frame {
    // Slices of 4: r·4 floored, clamped at the edges.
    let r = [0.1, 0.3, 0.55, 0.9, 1.3, -0.2];
    let quads: Vec<Quad> = (0..6)
        .map(|k| st_quad(cell(k), [0.0, 1.0], [0.0, 1.0], r[k]))
        .collect();
    unsafe {
        draw_quads(gl, VS3, FS_3D, &quads, || {
            volume(gl, glow::TEXTURE_3D, 4, 1, (glow::NEAREST, glow::NEAREST))
        })
    }
}

pub fn texture_3d_linear(gl: &Gl, _: &super::Ctx) -> Frame {
    // Between slices (r·4 - ½ not an integer) and at the clamped ends.
    let r = [0.2, 0.45, 0.6, 0.8, 0.05, 0.95];
    let quads: Vec<Quad> = (0..6)
        .map(|k| st_quad(cell(k), [0.1, 0.9], [0.1, 0.9], r[k]))
        .collect();
    unsafe {
        draw_quads(gl, VS3, FS_3D, &quads, || {
            volume(gl, glow::TEXTURE_3D, 4, 1, (glow::LINEAR, glow::LINEAR))
        })
    }
}

/// textureLod on a 2D array, a 3D texture and a cube map: levels 0, 1 and 2 of 3 (constant
/// colours per level and plane past level 0).
pub fn texture_lod_targets(gl: &Gl, _: &super::Ctx) -> Frame {
    const FS: &str = "#version 300 es
precision highp float;
uniform highp sampler2DArray u_tex;
uniform highp sampler3D u_tex1;
in vec3 v_tc;
out vec4 o;
void main() {
    float lod = floor(v_tc.z / 8.0);
    float layer = floor(mod(v_tc.z, 8.0));
    if (v_tc.z < 24.0)
        o = textureLod(u_tex, vec3(v_tc.xy, layer), lod);
    else
        o = textureLod(u_tex1, vec3(v_tc.xy, 0.6), lod - 3.0);
}
";
    // Third coordinate: 8·lod + layer for the array, 24 + 8·lod for the 3D texture (+¼, so
    // the interpolated value floors to the same integer on both renderers).
    let third = [0.25, 9.25, 19.25, 24.25, 32.25, 40.25];
    let quads: Vec<Quad> = (0..6)
        .map(|k| st_quad(cell(k), [0.0, 1.0], [0.0, 1.0], third[k]))
        .collect();
    unsafe { draw_quads(gl, VS3, FS, &quads, || array_and_volume(gl, 0)) }
}

/// A three-level 2D array on unit 0 and a three-level 3D texture on unit 1 ([`volume`],
/// nearest filters), both starting at `base_level`.
unsafe fn array_and_volume(gl: &Gl, base_level: i32) -> Res<()> {
    for (unit, target) in [(0, glow::TEXTURE_2D_ARRAY), (1, glow::TEXTURE_3D)] {
        gl.active_texture(glow::TEXTURE0 + unit);
        volume(
            gl,
            target,
            4,
            3,
            (glow::NEAREST_MIPMAP_NEAREST, glow::NEAREST),
        )?;
        gl.tex_parameter_i32(target, glow::TEXTURE_BASE_LEVEL, base_level);
    }
    gl.active_texture(glow::TEXTURE0);
    check(gl, "array and 3D textures")
}

/// Explicit LODs relative to a base level of 1: textureLod on a 2D array (LOD 0 and 1 are
/// levels 1 and 2) and texelFetch on a 3D texture (level 0 is level 1). agx16 describes such
/// views from level 0 and moves the explicit LOD in the shader.
pub fn texture_lod_base_level(gl: &Gl, _: &super::Ctx) -> Frame {
    const FS: &str = "#version 300 es
precision highp float;
uniform highp sampler2DArray u_tex;
uniform highp sampler3D u_tex1;
in vec3 v_tc;
out vec4 o;
void main() {
    float lod = floor(v_tc.z / 8.0);
    float layer = floor(mod(v_tc.z, 8.0));
    if (v_tc.z < 16.0)
        o = textureLod(u_tex, vec3(v_tc.xy, layer), lod);
    else
        o = texelFetch(u_tex1, ivec3(v_tc.xy * 3.99, int(layer)), int(lod) - 2);
}
";
    // 8·lod + layer for the array; 16 + layer for the 3D texture's level 0 (its base, 4x4x2).
    let third = [0.25, 3.25, 8.25, 11.25, 16.25, 17.25];
    let quads: Vec<Quad> = (0..6)
        .map(|k| st_quad(cell(k), [0.0, 1.0], [0.0, 1.0], third[k]))
        .collect();
    unsafe { draw_quads(gl, VS3, FS, &quads, || array_and_volume(gl, 1)) }
}

/// An 8x8 2D texture (three levels: texels, then constant colours) on unit 0.
unsafe fn tex2d(gl: &Gl, filter: (u32, u32)) -> Res<()> {
    let tex = gl.create_texture()?;
    gl.bind_texture(glow::TEXTURE_2D, Some(tex));
    for level in 0..3 {
        let size = 8 >> level;
        let data: Vec<u8> = if level == 0 {
            texels(8, 123)
        } else {
            (0..size * size)
                .flat_map(|_| [(level * 100) as u8, 40, 200 - (level * 60) as u8, 255])
                .collect()
        };
        rgba8_level(gl, glow::TEXTURE_2D, level, size, &data);
    }
    gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAX_LEVEL, 2);
    params(gl, glow::TEXTURE_2D, filter.0, filter.1, glow::REPEAT);
    check(gl, "texture upload")
}

/// textureSize of a 2D texture, a 2D array, a 3D texture and a cube map, written as colours
/// (size / 32): one quad per query.
pub fn texture_size(gl: &Gl, _: &super::Ctx) -> Frame {
    const FS: &str = "#version 300 es
precision highp float;
uniform highp sampler2DArray u_tex;
uniform highp sampler3D u_tex1;
in vec3 v_tc;
out vec4 o;
void main() {
    ivec3 a = textureSize(u_tex, 0);
    ivec3 b = textureSize(u_tex1, 1);
    if (v_tc.z < 0.5)
        o = vec4(vec3(a) / 32.0, 1.0);
    else
        o = vec4(vec3(b) / 32.0, 1.0);
}
";
    let quads = [
        st_quad(cell(0), [0.0, 1.0], [0.0, 1.0], 0.0),
        st_quad(cell(1), [0.0, 1.0], [0.0, 1.0], 1.0),
    ];
    unsafe {
        draw_quads(gl, VS3, FS, &quads, || {
            gl.active_texture(glow::TEXTURE0);
            volume(
                gl,
                glow::TEXTURE_2D_ARRAY,
                5,
                1,
                (glow::NEAREST, glow::NEAREST),
            )?;
            gl.active_texture(glow::TEXTURE1);
            volume(
                gl,
                glow::TEXTURE_3D,
                4,
                3,
                (glow::NEAREST_MIPMAP_NEAREST, glow::NEAREST),
            )?;
            gl.active_texture(glow::TEXTURE0);
            Ok(())
        })
    }
}

/// textureProj (the projector divided out), textureOffset and texelFetchOffset on a 2D
/// texture; one function (and program) per quad, nearest filtering at the base level.
pub fn texture_proj_offset(gl: &Gl, _: &super::Ctx) -> Frame {
    const HEAD: &str = "#version 300 es
precision highp float;
uniform highp sampler2D u_tex;
in vec3 v_tc;
out vec4 o;
";
    let fs = [
        "void main() { o = textureProj(u_tex, vec3(v_tc.xy * 2.5, 2.5)); }",
        "void main() { o = textureOffset(u_tex, v_tc.xy, ivec2(1, -2)); }",
        "void main() { o = texelFetchOffset(u_tex, ivec2(v_tc.xy * 8.0) & ivec2(3), 0, \
         ivec2(2, 1)); }",
    ]
    .map(|m| format!("{HEAD}{m}\n"));
    let quads: Vec<[Quad; 1]> = (0..3)
        .map(|k| [st_quad(cell(k), [0.0, 1.0], [0.0, 1.0], 0.0)])
        .collect();
    let passes: Vec<(&str, &[Quad])> = (0..3).map(|k| (fs[k].as_str(), &quads[k][..])).collect();
    unsafe {
        draw_passes(gl, VS3, &passes, || {
            tex2d(gl, (glow::NEAREST, glow::NEAREST))
        })
    }
}

/// textureGrad with constant gradients selecting levels 0, 1 and 2 (λ = log2(ρ) with ρ =
/// 8·|d|): NEAREST_MIPMAP_NEAREST picks the level, so the result is exact.
pub fn texture_grad(gl: &Gl, _: &super::Ctx) -> Frame {
    const FS: &str = "#version 300 es
precision highp float;
uniform highp sampler2D u_tex;
in vec3 v_tc;
out vec4 o;
void main() {
    vec2 d = vec2(v_tc.z / 8.0, 0.0);
    o = textureGrad(u_tex, v_tc.xy, d, d.yx);
}
";
    // ρ = 8·z/8 = z: λ = log2(z) = -1 (level 0), 1.1 (level 1), 2.5 (level 2).
    let z = [0.5, 2.15, 5.66];
    let quads: Vec<Quad> = (0..3)
        .map(|k| st_quad(cell(k), [0.0, 1.0], [0.0, 1.0], z[k]))
        .collect();
    unsafe {
        draw_quads(gl, VS3, FS, &quads, || {
            tex2d(gl, (glow::NEAREST_MIPMAP_NEAREST, glow::NEAREST))
        })
    }
}

/// An 8x8 depth texture (layers / faces of `target`), depth of texel (x, y) of plane p =
/// (8y + x + ½)/64 shifted by p/7 and wrapped into [0, 1), with the comparison `func`.
unsafe fn depth_texture(gl: &Gl, target: u32, internal: u32, planes: i32, func: u32) -> Res<()> {
    let tex = gl.create_texture()?;
    gl.bind_texture(target, Some(tex));
    // Z16 takes 16-bit unsigned data (GL ES 3.0 table 3.2), Z32F floats.
    let z16 = internal == glow::DEPTH_COMPONENT16;
    let ty = if z16 {
        glow::UNSIGNED_SHORT
    } else {
        glow::FLOAT
    };
    let plane = |p: i32| -> Vec<u8> {
        (0..64)
            .flat_map(|i| {
                let d = ((i as f32 + 0.5) / 64.0 + p as f32 / 7.0).fract();
                if z16 {
                    ((d * 65535.0).round() as u16).to_le_bytes().to_vec()
                } else {
                    d.to_le_bytes().to_vec()
                }
            })
            .collect()
    };
    let internal_i = internal as i32;
    match target {
        glow::TEXTURE_2D => gl.tex_image_2d(
            target,
            0,
            internal_i,
            8,
            8,
            0,
            glow::DEPTH_COMPONENT,
            ty,
            glow::PixelUnpackData::Slice(Some(&plane(0))),
        ),
        glow::TEXTURE_CUBE_MAP => {
            for f in 0..6 {
                gl.tex_image_2d(
                    glow::TEXTURE_CUBE_MAP_POSITIVE_X + f as u32,
                    0,
                    internal_i,
                    8,
                    8,
                    0,
                    glow::DEPTH_COMPONENT,
                    ty,
                    glow::PixelUnpackData::Slice(Some(&plane(f))),
                )
            }
        }
        _ => {
            let data: Vec<u8> = (0..planes).flat_map(plane).collect();
            gl.tex_image_3d(
                target,
                0,
                internal_i,
                8,
                8,
                planes,
                0,
                glow::DEPTH_COMPONENT,
                ty,
                glow::PixelUnpackData::Slice(Some(&data)),
            )
        }
    }
    params(
        gl,
        target,
        glow::NEAREST,
        glow::NEAREST,
        glow::CLAMP_TO_EDGE,
    );
    gl.tex_parameter_i32(
        target,
        glow::TEXTURE_COMPARE_MODE,
        glow::COMPARE_REF_TO_TEXTURE as i32,
    );
    gl.tex_parameter_i32(target, glow::TEXTURE_COMPARE_FUNC, func as i32);
    check(gl, "depth texture upload")
}

/// Shadow lookups: sampler2DShadow (Z32F, LEQUAL), sampler2DArrayShadow (Z16, GREATER, a
/// reference past 1 clamped for the fixed-point format) and samplerCubeShadow (Z32F, LESS),
/// NEAREST (so the comparison is exact: one texel compared). Output: the comparison result
/// in red, a constant in the other channels.
pub fn texture_shadow(gl: &Gl, _: &super::Ctx) -> Frame {
    const HEAD: &str = "#version 300 es
precision highp float;
in vec3 v_tc;
out vec4 o;
";
    let body = |decl: &str, lookup: &str| {
        format!("{HEAD}{decl}\nvoid main() {{ o = vec4({lookup}, 0.25, 0.5, 1.0); }}\n")
    };
    let fs = [
        body(
            "uniform highp sampler2DShadow u_tex;",
            "texture(u_tex, vec3(v_tc.xy, 0.5))",
        ),
        body(
            "uniform highp sampler2DShadow u_tex;",
            "texture(u_tex, vec3(v_tc.xy, 0.25))",
        ),
        body(
            "uniform highp sampler2DArrayShadow u_tex1;",
            "texture(u_tex1, vec4(v_tc.xy, 1.0, 0.4))",
        ),
        body(
            "uniform highp sampler2DArrayShadow u_tex1;",
            "texture(u_tex1, vec4(v_tc.xy, 0.0, 1.5))",
        ),
        body(
            "uniform highp samplerCubeShadow u_tex2;",
            "texture(u_tex2, vec4(1.0, v_tc.yx * 1.5 - 0.75, 0.5))",
        ),
        body(
            "uniform highp samplerCubeShadow u_tex2;",
            "texture(u_tex2, vec4(v_tc.xy * 1.5 - 0.75, -1.0, 0.7))",
        ),
    ];
    unsafe { shadow_draws(gl, &fs, glow::NEAREST) }
}

/// LINEAR shadow lookups, magnified so pixels fall between texels. GL ES 3.0 §3.8.16 leaves
/// the result of a filtered comparison implementation-dependent (in [0, 1]); softpipe
/// compares the filtered depth (sp_tex_sample.c: sample_compare runs after the filter), as
/// agx16's shader comparison does, so every pixel is 0 or 1 on both renderers. The same
/// textures and functions as `texture_shadow` (CLAMP_TO_EDGE), references that vary across
/// each quad so pass/fail edges run through texels in both directions; the second quad's
/// coordinates run past the texture to cover edge clamping.
pub fn texture_shadow_linear(gl: &Gl, _: &super::Ctx) -> Frame {
    const HEAD: &str = "#version 300 es
precision highp float;
in vec3 v_tc;
out vec4 o;
";
    let body = |decl: &str, lookup: &str| {
        format!("{HEAD}{decl}\nvoid main() {{ vec2 c = v_tc.xy * 0.5 + 0.25; o = vec4({lookup}, 0.25, 0.5, 1.0); }}\n")
    };
    let fs = [
        body(
            "uniform highp sampler2DShadow u_tex;",
            "texture(u_tex, vec3(c, 0.2 + 0.6 * v_tc.x))",
        ),
        body(
            "uniform highp sampler2DShadow u_tex;",
            "texture(u_tex, vec3(v_tc.xy * 1.3 - 0.15, 0.3 + 0.4 * v_tc.y))",
        ),
        body(
            "uniform highp sampler2DArrayShadow u_tex1;",
            "texture(u_tex1, vec4(c, 1.0, 0.3 + 0.5 * v_tc.y))",
        ),
        body(
            "uniform highp sampler2DArrayShadow u_tex1;",
            "texture(u_tex1, vec4(c.yx, 0.0, 0.9 - 0.7 * v_tc.x))",
        ),
        body(
            "uniform highp samplerCubeShadow u_tex2;",
            "texture(u_tex2, vec4(1.0, v_tc.yx - 0.5, 0.2 + 0.6 * v_tc.y))",
        ),
        body(
            "uniform highp samplerCubeShadow u_tex2;",
            "texture(u_tex2, vec4(v_tc.xy - 0.5, -1.0, 0.8 - 0.6 * v_tc.x))",
        ),
    ];
    unsafe { shadow_draws(gl, &fs, glow::LINEAR) }
}

/// The six shadow-lookup programs of `fs` over the six cells, with the depth textures of
/// units 0 (2D Z32F LEQUAL), 1 (2D array Z16 GREATER) and 2 (cube Z32F LESS) filtered by
/// `filter`.
unsafe fn shadow_draws(gl: &Gl, fs: &[String; 6], filter: u32) -> Frame {
    let quads: Vec<[Quad; 1]> = (0..6)
        .map(|k| [st_quad(cell(k), [0.0, 1.0], [0.0, 1.0], 0.0)])
        .collect();
    unsafe {
        simple(gl, || {
            gl.active_texture(glow::TEXTURE0);
            depth_texture(
                gl,
                glow::TEXTURE_2D,
                glow::DEPTH_COMPONENT32F,
                1,
                glow::LEQUAL,
            )?;
            gl.active_texture(glow::TEXTURE1);
            depth_texture(
                gl,
                glow::TEXTURE_2D_ARRAY,
                glow::DEPTH_COMPONENT16,
                2,
                glow::GREATER,
            )?;
            gl.active_texture(glow::TEXTURE2);
            depth_texture(
                gl,
                glow::TEXTURE_CUBE_MAP,
                glow::DEPTH_COMPONENT32F,
                6,
                glow::LESS,
            )?;
            for (unit, target) in [
                (glow::TEXTURE0, glow::TEXTURE_2D),
                (glow::TEXTURE1, glow::TEXTURE_2D_ARRAY),
                (glow::TEXTURE2, glow::TEXTURE_CUBE_MAP),
            ] {
                gl.active_texture(unit);
                gl.tex_parameter_i32(target, glow::TEXTURE_MIN_FILTER, filter as i32);
                gl.tex_parameter_i32(target, glow::TEXTURE_MAG_FILTER, filter as i32);
            }
            check(gl, "shadow filter")?;
            for k in 0..6 {
                let p = program(gl, VS3, &fs[k], &["a_pos", "a_tc"])?;
                let mut v = Vec::new();
                let q = &quads[k][0];
                let [x0, y0, x1, y1] = q.rect;
                let corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
                for c in [0, 1, 2, 0, 2, 3] {
                    v.extend(corners[c]);
                    v.extend(q.tc[c]);
                }
                super::vertices(gl, &v, &[2, 3])?;
                for (name, unit) in [("u_tex", 0), ("u_tex1", 1), ("u_tex2", 2)] {
                    let loc = gl.get_uniform_location(p, name);
                    gl.uniform_1_i32(loc.as_ref(), unit);
                }
                gl.draw_arrays(glow::TRIANGLES, 0, 6);
                check(gl, "shadow draw")?;
            }
            Ok(())
        })
    }
}

/// glGenerateMipmap on an 8x8 cube map, then textureLod at levels 1 (top row of faces) and 2
/// (bottom row), NEAREST_MIPMAP_NEAREST: each generated texel is the mean of the 2x2 texels
/// it covers, on both renderers.
pub fn texture_cube_mipmap(gl: &Gl, _: &super::Ctx) -> Frame {
    const FS: &str = "#version 300 es
precision highp float;
uniform highp samplerCube u_tex;
in vec3 v_tc;
out vec4 o;
void main() { o = textureLod(u_tex, v_tc, gl_FragCoord.y > 32.0 ? 2.0 : 1.0); }
";
    unsafe {
        draw_quads(gl, VS3, FS, &cube_quads(0.8), || {
            let tex = gl.create_texture()?;
            gl.bind_texture(glow::TEXTURE_CUBE_MAP, Some(tex));
            for f in 0..6u32 {
                let data = texels(8, (30 * f as u8).wrapping_add(9));
                rgba8_level(gl, glow::TEXTURE_CUBE_MAP_POSITIVE_X + f, 0, 8, &data);
            }
            gl.generate_mipmap(glow::TEXTURE_CUBE_MAP);
            params(
                gl,
                glow::TEXTURE_CUBE_MAP,
                glow::NEAREST_MIPMAP_NEAREST,
                glow::NEAREST,
                glow::CLAMP_TO_EDGE,
            );
            check(gl, "cube map mipmaps")
        })
    }
}

/// A 128x128 cube map with its own texels at every level, sampled with TEXTURE_BASE_LEVEL 4
/// and MAX_LEVEL 5 (a view from level 4 of 8x8 texels; at this size the chain from level 4 has
/// another face stride than the whole chain, so the driver cannot describe the view from its
/// base), LINEAR_MIPMAP_NEAREST minification and NEAREST magnification: the top row of faces
/// is magnified (4.8 texels of level 4 over 20 pixels: NEAREST), the bottom row minified by a
/// bias of 3 (λ 0.94 from the base: LINEAR on level 5), coordinates within [-0.6, 0.6] so that
/// no bilinear tap leaves its face.
pub fn texture_cube_base_level(gl: &Gl, _: &super::Ctx) -> Frame {
    const FS: &str = "#version 300 es
precision highp float;
uniform highp samplerCube u_tex;
in vec3 v_tc;
out vec4 o;
void main() { o = texture(u_tex, v_tc, gl_FragCoord.y > 32.0 ? 3.0 : 0.0); }
";
    unsafe {
        draw_quads(gl, VS3, FS, &cube_quads(0.6), || {
            let tex = gl.create_texture()?;
            gl.bind_texture(glow::TEXTURE_CUBE_MAP, Some(tex));
            for level in 0..8 {
                let n = 128 >> level;
                for f in 0..6u32 {
                    let seed = (level as u8).wrapping_mul(50).wrapping_add(9);
                    let data = texels(n, (30 * f as u8).wrapping_add(seed));
                    rgba8_level(
                        gl,
                        glow::TEXTURE_CUBE_MAP_POSITIVE_X + f,
                        level,
                        n as i32,
                        &data,
                    );
                }
            }
            params(
                gl,
                glow::TEXTURE_CUBE_MAP,
                glow::LINEAR_MIPMAP_NEAREST,
                glow::NEAREST,
                glow::CLAMP_TO_EDGE,
            );
            gl.tex_parameter_i32(glow::TEXTURE_CUBE_MAP, glow::TEXTURE_BASE_LEVEL, 4);
            gl.tex_parameter_i32(glow::TEXTURE_CUBE_MAP, glow::TEXTURE_MAX_LEVEL, 5);
            check(gl, "cube map levels")
        })
    }
}

/// texelFetch on a 2D array (layers 2 and 0, levels 0 and 1) and a 3D texture (slice 3 of
/// level 0, slice 1 of level 1): one program per lookup, 8x8 texels over 16x24 pixels.
pub fn texel_fetch_targets(gl: &Gl, _: &super::Ctx) -> Frame {
    const HEAD: &str = "#version 300 es
precision highp float;
uniform highp sampler2DArray u_tex;
uniform highp sampler3D u_tex1;
in vec3 v_tc;
out vec4 o;
";
    let fs = [
        "void main() { o = texelFetch(u_tex, ivec3(ivec2(v_tc.xy * 8.0), 2), 0); }",
        "void main() { o = texelFetch(u_tex, ivec3(ivec2(v_tc.xy * 4.0), 0), 1); }",
        "void main() { o = texelFetch(u_tex1, ivec3(ivec2(v_tc.xy * 8.0), 3), 0); }",
        "void main() { o = texelFetch(u_tex1, ivec3(ivec2(v_tc.xy * 4.0), 1), 1); }",
    ]
    .map(|m| format!("{HEAD}{m}\n"));
    let quads: Vec<[Quad; 1]> = (0..4)
        .map(|k| [st_quad(cell(k), [0.0, 1.0], [0.0, 1.0], 0.0)])
        .collect();
    let passes: Vec<(&str, &[Quad])> = (0..4).map(|k| (fs[k].as_str(), &quads[k][..])).collect();
    unsafe {
        draw_passes(gl, VS3, &passes, || {
            gl.active_texture(glow::TEXTURE0);
            volume(
                gl,
                glow::TEXTURE_2D_ARRAY,
                4,
                2,
                (glow::NEAREST_MIPMAP_NEAREST, glow::NEAREST),
            )?;
            gl.active_texture(glow::TEXTURE1);
            volume(
                gl,
                glow::TEXTURE_3D,
                4,
                2,
                (glow::NEAREST_MIPMAP_NEAREST, glow::NEAREST),
            )?;
            gl.active_texture(glow::TEXTURE0);
            Ok(())
        })
    }
}

//! GLES 2.0 texturing: filters, wrap modes, mipmaps, formats, two units, lookups in branches
//! and in the vertex shader.

use super::*;

/// A quad in framebuffer pixels with texture coordinates, sampled from unit 0.
pub(crate) const VS_TEXTURED: &str = "attribute vec2 a_pos;
attribute vec2 a_tc;
varying vec2 v_tc;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_tc = a_tc; }
";
pub(crate) const FS_TEXTURED: &str = "precision highp float;
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
pub(crate) fn texels(n: usize, seed: u8) -> Vec<u8> {
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

pub(crate) fn texture_nearest(gl: &Gl, _: &Ctx) -> Frame {
    // 8 texels across 64 pixels: texel edges at multiples of 8 pixels, never at a centre.
    let data = texels(8, 7);
    unsafe {
        textured(gl, (0.0, 0.0, 64.0, 64.0), (1.0, 1.0), || {
            texture(gl, 8, &data, glow::NEAREST, glow::CLAMP_TO_EDGE)
        })
    }
}

pub(crate) fn texture_linear(gl: &Gl, _: &Ctx) -> Frame {
    let data = texels(8, 50);
    unsafe {
        textured(gl, (0.0, 0.0, 64.0, 64.0), (1.0, 1.0), || {
            texture(gl, 8, &data, glow::LINEAR, glow::CLAMP_TO_EDGE)
        })
    }
}

pub(crate) fn texture_repeat(gl: &Gl, _: &Ctx) -> Frame {
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
pub(crate) fn texture_mipmap(gl: &Gl, _: &Ctx) -> Frame {
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
                rgba8_level(gl, glow::TEXTURE_2D, level, n as i32, &data);
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
pub(crate) fn texture_formats(gl: &Gl, _: &Ctx) -> Frame {
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

/// Implicit-LOD samples inside an if / else-if / else chain: each branch samples a mipmapped
/// texture at its own scale (so at its own level) and the branch boundaries fall on 2x2-quad
/// boundaries, so every quad runs one branch with all four lanes (derivatives stay defined).
pub(crate) fn texture_in_branches(gl: &Gl, _: &Ctx) -> Frame {
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
pub(crate) fn vertex_texture(gl: &Gl, _: &Ctx) -> Frame {
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

/// Two textures sampled by one shader (texture units 0 and 1).
pub(crate) fn texture_two_units(gl: &Gl, _: &Ctx) -> Frame {
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

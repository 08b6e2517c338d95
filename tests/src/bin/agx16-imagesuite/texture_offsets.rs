//! Texel offsets at mip levels above the base: textureLodOffset, textureProjLodOffset,
//! textureGradOffset and textureOffset with a bias on mipmapped 2D, 3D and 2D-shadow
//! textures whose every level has distinct texels (GL ES 3.0 §3.8.10: the offset counts
//! texels of the level sampled, so an offset scaled by the base level's size reads the wrong
//! texels there).
//!
//! Geometry (the cells of `texture_targets`: 16x24-pixel quads): coordinates span [0, k] in s
//! over 16 pixels and [0, 1] in t over 24, so at level d a texel is 16/(k·2^(4-d)) pixels
//! wide and (24·2^d)/16 tall; no texel edge falls on a pixel centre for the levels used, so
//! NEAREST scenes have tolerance 0. Implicit LODs: ρ = k·16/16 = k exactly (s along x, t
//! along y with ρ_t < ρ_s), so λ = log2 k + bias sits away from the level boundaries of both
//! renderers' rounding.

use super::texture_targets::{cell, params, st_quad, Quad, VS3};
use super::{check, program, texels, vertices, Frame, Gl, Res};
use glow::HasContext;

/// A 16x16 RGBA8 2D texture on the active unit: all five levels textured (`texels` of the
/// level's size with a seed per level).
unsafe fn mip2d(gl: &Gl, min: u32, mag: u32) -> Res<()> {
    let tex = gl.create_texture()?;
    gl.bind_texture(glow::TEXTURE_2D, Some(tex));
    for level in 0..5 {
        let n = 16 >> level;
        let data = texels(n as usize, 40 * level as u8 + 7);
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            level,
            glow::RGBA8 as i32,
            n,
            n,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(&data)),
        );
    }
    params(gl, glow::TEXTURE_2D, min, mag, glow::REPEAT);
    check(gl, "mipmapped 2D upload")
}

/// An 8x8x8 RGBA8 3D texture on the active unit, four levels, each slice textured.
unsafe fn mip3d(gl: &Gl, min: u32, mag: u32) -> Res<()> {
    let tex = gl.create_texture()?;
    gl.bind_texture(glow::TEXTURE_3D, Some(tex));
    for level in 0..4 {
        let n = 8 >> level;
        let data: Vec<u8> = (0..n)
            .flat_map(|z| texels(n as usize, (60 * level + 23 * z) as u8))
            .collect();
        gl.tex_image_3d(
            glow::TEXTURE_3D,
            level,
            glow::RGBA8 as i32,
            n,
            n,
            n,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(&data)),
        );
    }
    params(gl, glow::TEXTURE_3D, min, mag, glow::REPEAT);
    check(gl, "mipmapped 3D upload")
}

/// A 16x16 DEPTH_COMPONENT32F 2D texture on the active unit, five levels, LEQUAL comparison:
/// texel (x, y) of level d holds ((7x + 5y + 3d) mod 16 + ½)/16.
unsafe fn mip_depth(gl: &Gl, min: u32) -> Res<()> {
    let tex = gl.create_texture()?;
    gl.bind_texture(glow::TEXTURE_2D, Some(tex));
    for level in 0..5 {
        let n = 16 >> level;
        let data: Vec<u8> = (0..n * n)
            .flat_map(|i| {
                let (x, y) = (i % n, i / n);
                let d = (((7 * x + 5 * y + 3 * level) % 16) as f32 + 0.5) / 16.0;
                d.to_le_bytes()
            })
            .collect();
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            level,
            glow::DEPTH_COMPONENT32F as i32,
            n,
            n,
            0,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            glow::PixelUnpackData::Slice(Some(&data)),
        );
    }
    params(gl, glow::TEXTURE_2D, min, glow::NEAREST, glow::REPEAT);
    gl.tex_parameter_i32(
        glow::TEXTURE_2D,
        glow::TEXTURE_COMPARE_MODE,
        glow::COMPARE_REF_TO_TEXTURE as i32,
    );
    gl.tex_parameter_i32(
        glow::TEXTURE_2D,
        glow::TEXTURE_COMPARE_FUNC,
        glow::LEQUAL as i32,
    );
    check(gl, "mipmapped depth upload")
}

/// Units 0 (2D), 1 (3D) and 2 (2D depth) with the given minification filter.
unsafe fn bind_all(gl: &Gl, min: u32, mag: u32) -> Res<()> {
    gl.active_texture(glow::TEXTURE0);
    mip2d(gl, min, mag)?;
    gl.active_texture(glow::TEXTURE1);
    mip3d(gl, min, mag)?;
    gl.active_texture(glow::TEXTURE2);
    mip_depth(gl, min)?;
    gl.active_texture(glow::TEXTURE0);
    Ok(())
}

const HEAD: &str = "#version 300 es
precision highp float;
uniform highp sampler2D u_tex;
uniform highp sampler3D u_tex1;
uniform highp sampler2DShadow u_tex2;
in vec3 v_tc;
out vec4 o;
";

/// One program per (fragment body, quad), units bound by `setup`.
unsafe fn draw(gl: &Gl, bodies: &[&str], quads: &[Quad], setup: impl FnOnce() -> Res<()>) -> Frame {
    super::simple(gl, || {
        setup()?;
        for (body, q) in bodies.iter().zip(quads) {
            let fs = format!("{HEAD}void main() {{ {body} }}\n");
            let p = program(gl, VS3, &fs, &["a_pos", "a_tc"])?;
            let [x0, y0, x1, y1] = q.rect;
            let corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
            let mut v = Vec::new();
            for k in [0, 1, 2, 0, 2, 3] {
                v.extend(corners[k]);
                v.extend(q.tc[k]);
            }
            vertices(gl, &v, &[2, 3])?;
            for (name, unit) in [("u_tex", 0), ("u_tex1", 1), ("u_tex2", 2)] {
                let loc = gl.get_uniform_location(p, name);
                gl.uniform_1_i32(loc.as_ref(), unit);
            }
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            check(gl, "offset draw")?;
        }
        Ok(())
    })
}

/// Six quads over [0, 1]², one lookup each.
fn unit_quads() -> Vec<Quad> {
    (0..6)
        .map(|k| st_quad(cell(k), [0.0, 1.0], [0.0, 1.0], 0.0))
        .collect()
}

/// Explicit LODs and gradients at levels 1 and 2, NEAREST_MIPMAP_NEAREST: every result is
/// one texel, so the images match exactly. Gradients: ρ = 16·0.175 = 2.8, λ = 1.49 (level 1).
pub fn texture_lod_offset(gl: &Gl, _: &super::Ctx) -> Frame {
    let bodies = [
        "o = textureLodOffset(u_tex, v_tc.xy, 1.0, ivec2(1, -2));",
        "o = textureLodOffset(u_tex, v_tc.xy, 2.3, ivec2(-3, 2));",
        "o = textureProjLodOffset(u_tex, vec3(v_tc.xy * 2.5, 2.5), 1.2, ivec2(2, 1));",
        "o = textureGradOffset(u_tex, v_tc.xy, vec2(0.175, 0.0), vec2(0.0, 0.1), ivec2(-1, 3));",
        "o = textureLodOffset(u_tex1, vec3(v_tc.xy, 0.6), 1.0, ivec3(1, 2, -1));",
        "o = vec4(textureLodOffset(u_tex2, vec3(v_tc.xy, 0.5), 1.0, ivec2(-1, 1)), 0.25, 0.5, 1.0);",
    ];
    unsafe {
        draw(gl, &bodies, &unit_quads(), || {
            bind_all(gl, glow::NEAREST_MIPMAP_NEAREST, glow::NEAREST)
        })
    }
}

/// The same functions with LINEAR_MIPMAP_LINEAR (tolerance 1: two levels blended, each
/// bilinear at its own offset coordinate): λ 1.5, 0.375 (between the base and level 1) and
/// 6 (past the last level), gradients at λ 2.3, 3D at λ 0.75, and λ 2.75 on a minified span.
/// Explicit LODs are multiples of 1/64: the G16 LOD word holds λ in signed Q6 (GravityLinux/
/// mesa apple9_pack_texture_lod, T8132), so a blend weight of 0.4 would be 25/64 on agx16
/// against 0.4 on softpipe, 2-3 steps apart where adjacent levels differ much.
pub fn texture_lod_offset_linear(gl: &Gl, _: &super::Ctx) -> Frame {
    let bodies = [
        "o = textureLodOffset(u_tex, v_tc.xy, 1.5, ivec2(1, -2));",
        "o = textureLodOffset(u_tex, v_tc.xy, 0.375, ivec2(-3, 2));",
        "o = textureProjLodOffset(u_tex, vec3(v_tc.xy * 2.5, 2.5), 6.0, ivec2(2, 1));",
        "o = textureGradOffset(u_tex, v_tc.xy, vec2(0.3078, 0.0), vec2(0.0, 0.1), ivec2(-1, 3));",
        "o = textureLodOffset(u_tex1, vec3(v_tc.xy, 0.6), 0.75, ivec3(1, 2, -1));",
        "o = textureLodOffset(u_tex, v_tc.xy * 0.5 + 0.25, 2.75, ivec2(3, 3));",
    ];
    unsafe {
        draw(gl, &bodies, &unit_quads(), || {
            bind_all(gl, glow::LINEAR_MIPMAP_LINEAR, glow::LINEAR)
        })
    }
}

/// Implicit LODs (fragment derivatives) with a bias, NEAREST_MIPMAP_NEAREST: s spans [0, k]
/// over 16 pixels, ρ = k; λ = log2 k + bias = 1.3, 1.7, 2.0, 0.0 + 2.2 (3D: ρ = 8k/16 with
/// k = 4, λ = 1 + 0.3), and textureProjOffset with a bias (λ = 1.4).
pub fn texture_offset_bias(gl: &Gl, _: &super::Ctx) -> Frame {
    let bodies = [
        "o = textureOffset(u_tex, v_tc.xy, ivec2(1, -2), 1.3);",
        "o = textureOffset(u_tex, v_tc.xy, ivec2(-3, 2), 0.7);",
        "o = textureOffset(u_tex, v_tc.xy, ivec2(2, 1));",
        "o = textureOffset(u_tex, v_tc.xy, ivec2(-1, 3), 2.2);",
        "o = textureOffset(u_tex1, vec3(v_tc.xy, 0.6), ivec3(1, 2, -1), 0.3);",
        "o = textureProjOffset(u_tex, vec3(v_tc.xy * 2.5, 2.5), ivec2(2, -1), 1.4);",
    ];
    let k = [1.0, 2.0, 4.0, 1.0, 4.0, 1.0];
    let quads: Vec<Quad> = (0..6)
        .map(|i| st_quad(cell(i), [0.0, k[i]], [0.0, 1.0], 0.0))
        .collect();
    unsafe {
        draw(gl, &bodies, &quads, || {
            bind_all(gl, glow::NEAREST_MIPMAP_NEAREST, glow::NEAREST)
        })
    }
}

/// Vertex-stage lookups (dEQP's `_vertex` cases): 4-pixel points in an 8x8 grid, each
/// coloured by one lookup at its grid position's texel centre, rows by function:
/// textureLodOffset (level 1), textureProjLodOffset (level 2), textureGradOffset (λ 1.49),
/// textureLodOffset on the 3D texture (level 1), NEAREST_MIPMAP_NEAREST.
pub fn texture_lod_offset_vertex(gl: &Gl, _: &super::Ctx) -> Frame {
    const VS: &str = "#version 300 es
uniform highp sampler2D u_tex;
uniform highp sampler3D u_tex1;
in vec2 a_pos;
out vec4 v_c;
void main() {
    vec2 tc = (a_pos + 0.5) / 8.0;
    int row = int(a_pos.y) / 2;
    if (row == 0)
        v_c = textureLodOffset(u_tex, tc, 1.0, ivec2(1, -2));
    else if (row == 1)
        v_c = textureProjLodOffset(u_tex, vec4(tc * 2.0, 0.0, 2.0), 2.0, ivec2(-1, 1));
    else if (row == 2)
        v_c = textureGradOffset(u_tex, tc, vec2(0.175, 0.0), vec2(0.0, 0.1), ivec2(2, 1));
    else
        v_c = textureLodOffset(u_tex1, vec3(tc, 0.6), 1.0, ivec3(1, -1, 1));
    gl_Position = vec4((a_pos * 8.0 + 4.0) / 32.0 - 1.0, 0.0, 1.0);
    gl_PointSize = 4.0;
}
";
    const FS: &str = "#version 300 es
precision highp float;
in vec4 v_c;
out vec4 o;
void main() { o = v_c; }
";
    unsafe {
        super::simple(gl, || {
            bind_all(gl, glow::NEAREST_MIPMAP_NEAREST, glow::NEAREST)?;
            let p = program(gl, VS, FS, &["a_pos"])?;
            let v: Vec<f32> = (0..64)
                .flat_map(|i| [(i % 8) as f32, (i / 8) as f32])
                .collect();
            vertices(gl, &v, &[2])?;
            for (name, unit) in [("u_tex", 0), ("u_tex1", 1)] {
                let loc = gl.get_uniform_location(p, name);
                gl.uniform_1_i32(loc.as_ref(), unit);
            }
            gl.draw_arrays(glow::POINTS, 0, 64);
            check(gl, "vertex offset draw")
        })
    }
}

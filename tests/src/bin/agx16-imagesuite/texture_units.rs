//! Many texture units and lookups in one fragment shader (GLES 3.0: 16 fragment texture units):
//! 2D, cube, 2D-array and 3D textures in turn on all 16 units, each of another size and
//! content, sampled together (`texture_units_mixed`), and again with textureOffset and
//! textureSize on every unit (`texture_units_sizes`: more texture-information words than the
//! launcher's argument words hold, so agx16 reads them from a block in memory); 14 lookups of
//! one texture (`texture_lookups_14`: more lookups than coordinate-publication tuples).
//!
//! Geometry: one 64x64 quad whose (s, t) span [0, 1] (and the cube directions [-0.8, 0.8] on the
//! +x face), so no texel edge of these NEAREST lookups falls on a pixel centre. The lookups are
//! summed with weights (k + 1) / Σ: a unit or lookup that read another's texture or
//! coordinates changes the sum by many steps; the float sums round like any filtered value,
//! so the scenes have a tolerance of one step.

use super::texture_targets::params;
use super::{check, program, simple, texels, vertices, Frame, Gl, Res};
use glow::HasContext;

const VS: &str = "#version 300 es
in vec2 a_pos;
in vec2 a_tc;
out vec2 v_tc;
void main() { gl_Position = vec4(a_pos / 32.0 - 1.0, 0.0, 1.0); v_tc = a_tc; }
";

/// Sampler type of unit `u`.
fn kind(u: usize) -> &'static str {
    ["sampler2D", "samplerCube", "sampler2DArray", "sampler3D"][u % 4]
}

/// Size parameter of unit `u`: 2D and 3D width/height, cube face size, array layers or 3D
/// depth vary with the unit so that every unit's textureSize differs from its neighbours'.
fn size(u: usize) -> i32 {
    [8, 4, 16, 2][u / 4]
}

/// The coordinates unit `u` is sampled at, from v_tc.
fn coords(u: usize) -> String {
    match u % 4 {
        0 => "v_tc".into(),
        1 => "vec3(1.0, v_tc * 1.6 - 0.8)".into(),
        // Layer 1 of the array (of 2 at least); slice r = 0.3 of the 3D texture.
        2 => "vec3(v_tc, 1.0)".into(),
        _ => "vec3(v_tc, 0.3)".into(),
    }
}

/// Binds a texture of unit `u`'s kind and size to unit `u`, contents seeded by `u`.
unsafe fn unit_texture(gl: &Gl, u: usize) -> Res<()> {
    gl.active_texture(glow::TEXTURE0 + u as u32);
    let tex = gl.create_texture()?;
    let seed = ((37 * u) as u8).wrapping_add(5);
    let n = size(u);
    let target = match u % 4 {
        0 => {
            gl.bind_texture(glow::TEXTURE_2D, Some(tex));
            let data = texels(n as usize, seed);
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                glow::RGBA8 as i32,
                n,
                n,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(&data)),
            );
            glow::TEXTURE_2D
        }
        1 => {
            gl.bind_texture(glow::TEXTURE_CUBE_MAP, Some(tex));
            for f in 0..6u32 {
                let data = texels(n as usize, seed.wrapping_add((40 * f) as u8));
                gl.tex_image_2d(
                    glow::TEXTURE_CUBE_MAP_POSITIVE_X + f,
                    0,
                    glow::RGBA8 as i32,
                    n,
                    n,
                    0,
                    glow::RGBA,
                    glow::UNSIGNED_BYTE,
                    glow::PixelUnpackData::Slice(Some(&data)),
                );
            }
            glow::TEXTURE_CUBE_MAP
        }
        k => {
            // 2D array of n layers (at least 2) or 3D texture of depth n, 8x8 planes.
            let target = if k == 2 {
                glow::TEXTURE_2D_ARRAY
            } else {
                glow::TEXTURE_3D
            };
            let depth = if k == 2 { n.max(2) } else { n };
            gl.bind_texture(target, Some(tex));
            let mut data = Vec::new();
            for p in 0..depth {
                data.extend(texels(8, seed.wrapping_add((50 * p) as u8)));
            }
            gl.tex_image_3d(
                target,
                0,
                glow::RGBA8 as i32,
                8,
                8,
                depth,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(&data)),
            );
            target
        }
    };
    gl.tex_parameter_i32(target, glow::TEXTURE_MAX_LEVEL, 0);
    params(
        gl,
        target,
        glow::NEAREST,
        glow::NEAREST,
        glow::CLAMP_TO_EDGE,
    );
    check(gl, "texture upload")
}

/// Draws the 64x64 quad with `fs`, its samplers `s0`..`s{units-1}` on units 0.. after
/// `setup` made the textures.
unsafe fn draw(gl: &Gl, fs: &str, units: usize, setup: impl FnOnce() -> Res<()>) -> Frame {
    simple(gl, || {
        setup()?;
        let p = program(gl, VS, fs, &["a_pos", "a_tc"])?;
        let (x0, y0, x1, y1) = (0.0, 0.0, 64.0, 64.0);
        let c = [
            [x0, y0, 0.0, 0.0],
            [x1, y0, 1.0, 0.0],
            [x1, y1, 1.0, 1.0],
            [x0, y1, 0.0, 1.0],
        ];
        let v: Vec<f32> = [0, 1, 2, 0, 2, 3].iter().flat_map(|&k| c[k]).collect();
        vertices(gl, &v, &[2, 2])?;
        for u in 0..units {
            let loc = gl.get_uniform_location(p, &format!("s{u}"));
            gl.uniform_1_i32(loc.as_ref(), u as i32);
        }
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        check(gl, "draw")
    })
}

/// The fragment shader head: sixteen samplers of the units' kinds.
fn head() -> String {
    let mut s = String::from("#version 300 es\nprecision highp float;\n");
    for u in 0..16 {
        s += &format!("uniform highp {} s{u};\n", kind(u));
    }
    s + "in vec2 v_tc;\nout vec4 o;\n"
}

/// All 16 units sampled in one fragment shader, weighted (u + 1) / 136.
pub fn texture_units_mixed(gl: &Gl, _: &super::Ctx) -> Frame {
    let mut fs = head() + "void main() {\n    vec4 c = vec4(0.0);\n";
    for u in 0..16 {
        fs += &format!(
            "    c += texture(s{u}, {}) * {:.1};\n",
            coords(u),
            (u + 1) as f32
        );
    }
    fs += "    o = c / 136.0;\n}\n";
    unsafe {
        draw(gl, &fs, 16, || {
            for u in 0..16 {
                unit_texture(gl, u)?;
            }
            Ok(())
        })
    }
}

/// All 16 units again, with textureOffset (every target that has it) and textureSize of
/// every unit: sizes and offsets read up to seven texture-information words per unit.
pub fn texture_units_sizes(gl: &Gl, _: &super::Ctx) -> Frame {
    let mut fs = head() + "void main() {\n    vec4 c = vec4(0.0);\n    float n = 0.0;\n";
    for u in 0..16 {
        let lookup = match u % 4 {
            1 => format!("texture(s{u}, {})", coords(u)),
            3 => format!("textureOffset(s{u}, {}, ivec3(1, -1, 0))", coords(u)),
            _ => format!("textureOffset(s{u}, {}, ivec2(-1, 2))", coords(u)),
        };
        let sz = match u % 4 {
            0 | 1 => format!("vec3(textureSize(s{u}, 0), 0.0)"),
            _ => format!("vec3(textureSize(s{u}, 0))"),
        };
        fs += &format!(
            "    c += {lookup} * {:.1};\n    n += dot({sz}, vec3(1.0, 2.0, 3.0)) * {:.1};\n",
            (u + 1) as f32,
            (u % 5 + 1) as f32
        );
    }
    // The weighted colour, and the weighted sizes' sum (an exact integer) modulo 251 in alpha:
    // k / 255 exactly, and one size word read from another unit changes it by steps.
    fs += "    o = vec4(c.rgb / 136.0, mod(n, 251.0) / 255.0);\n}\n";
    unsafe {
        draw(gl, &fs, 16, || {
            for u in 0..16 {
                unit_texture(gl, u)?;
            }
            Ok(())
        })
    }
}

/// Fourteen lookups of one 8x8 texture, texel column s + k/8 (clamped), weighted (k + 1) / 105.
pub fn texture_lookups_14(gl: &Gl, _: &super::Ctx) -> Frame {
    let mut fs = String::from(
        "#version 300 es\nprecision highp float;\nuniform highp sampler2D s0;\nin vec2 v_tc;\n\
         out vec4 o;\nvoid main() {\n    vec4 c = vec4(0.0);\n",
    );
    for k in 0..14 {
        fs += &format!(
            "    c += texture(s0, v_tc + vec2({:.4}, 0.0)) * {:.1};\n",
            k as f32 / 8.0,
            (k + 1) as f32
        );
    }
    fs += "    o = c / 105.0;\n}\n";
    unsafe { draw(gl, &fs, 1, || unit_texture(gl, 0)) }
}

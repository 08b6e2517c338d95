//! Sampler views and samplers → G16 descriptors (texture.rs). Oracles: the model's own
//! derivation of an image layout from a descriptor (agx16-cmdstream `layout_for`, what
//! agx16-sim samples through) against the resource's layout and BO, the descriptors' unpacked
//! fields against the GL meaning of the state, and refusals by name.

use crate::bo::testing::{device, KernelUapi};
use crate::resource::{create_resource, destroy_resource, Resource};
use crate::screen::Screen;
use crate::texture::{sampler_descriptor, texture_descriptor};
use agx16_cmdstream::descriptors::{BorderColour, MipFilter, Sampler, Swizzle, Texture, Wrap};
use agx16_cmdstream::texture_layout::layout_for;
use agx16_cmdstream::Record;
use agx16_mesa_sys as sys;
use std::sync::Arc;

fn screen() -> (Arc<KernelUapi>, Box<Screen>) {
    let (k, bo) = device();
    let params = agx16_kernel::params::params_global(&Default::default());
    (k, Screen::for_tests(bo, params))
}

fn image(s: &mut Screen, size: u32, last_level: u8, bind: u32) -> *mut sys::pipe_resource {
    // SAFETY: plain C data.
    let mut t: sys::pipe_resource = unsafe { std::mem::zeroed() };
    t.set_target(sys::PIPE_TEXTURE_2D);
    t.set_format(sys::PIPE_FORMAT_R8G8B8A8_UNORM);
    t.width0 = size;
    t.height0 = size as u16;
    t.depth0 = 1;
    t.array_size = 1;
    t.last_level = last_level;
    t.bind = bind;
    let ps = &mut s.base as *mut sys::pipe_screen;
    Box::into_raw(create_resource(s, ps, &t).expect("resource_create")) as *mut sys::pipe_resource
}

fn view(
    res: *mut sys::pipe_resource,
    format: sys::pipe_format,
    levels: (u32, u32),
) -> sys::pipe_sampler_view {
    // SAFETY: plain C data.
    let mut v: sys::pipe_sampler_view = unsafe { std::mem::zeroed() };
    v.texture = res;
    v.set_target(sys::PIPE_TEXTURE_2D);
    v.set_format(format);
    v.set_swizzle_r(sys::PIPE_SWIZZLE_X);
    v.set_swizzle_g(sys::PIPE_SWIZZLE_Y);
    v.set_swizzle_b(sys::PIPE_SWIZZLE_Z);
    v.set_swizzle_a(sys::PIPE_SWIZZLE_W);
    // SAFETY: the texture member of the union.
    unsafe {
        v.u.tex.set_first_level(levels.0);
        v.u.tex.set_last_level(levels.1);
    }
    v
}

fn repacked(t: &Texture) -> Texture {
    Texture::unpack(&t.pack().unwrap()).unwrap()
}

#[test]
fn a_view_of_levels_1_to_4_describes_exactly_where_the_resource_keeps_them() {
    let (_k, mut s) = screen();
    let r = image(&mut s, 64, 4, sys::PIPE_BIND_SAMPLER_VIEW);
    let res = unsafe { Resource::get(r) };
    let (va, layout) = (res.bo().va, res.layout.clone().unwrap());
    let d = repacked(
        &unsafe { texture_descriptor(&view(r, sys::PIPE_FORMAT_R8G8B8A8_UNORM, (1, 4))) }
            .unwrap()
            .0,
    );
    assert!(d.fully_known());
    assert_eq!((d.width, d.height, d.levels), (32, 32, 4));
    let derived = layout_for(&d).unwrap();
    for i in 0..4 {
        let have = &layout.levels[1 + i];
        assert_eq!(derived.levels[i].plane, have.plane, "level {}", 1 + i);
        assert_eq!(
            d.address + derived.levels[i].offset,
            va + have.offset,
            "level {}",
            1 + i
        );
    }
    assert_eq!(
        [d.swizzle_r, d.swizzle_g, d.swizzle_b, d.swizzle_a],
        [Swizzle::R, Swizzle::G, Swizzle::B, Swizzle::A]
    );
    // BGRA memory order: red is byte 2; RGBX: alpha reads one.
    let (bgra, base) =
        unsafe { texture_descriptor(&view(r, sys::PIPE_FORMAT_B8G8R8A8_UNORM, (0, 4))) }.unwrap();
    assert_eq!(base, 0, "a 2D chain starts at the view's own first level");
    assert_eq!(
        [
            bgra.swizzle_r,
            bgra.swizzle_g,
            bgra.swizzle_b,
            bgra.swizzle_a
        ],
        [Swizzle::B, Swizzle::G, Swizzle::R, Swizzle::A]
    );
    let rgbx = unsafe { texture_descriptor(&view(r, sys::PIPE_FORMAT_R8G8B8X8_UNORM, (0, 0))) }
        .unwrap()
        .0;
    assert_eq!(rgbx.swizzle_a, Swizzle::One);
    assert!(!rgbx.mipmapped && rgbx.levels == 1);
    destroy_resource(&s, unsafe { Box::from_raw(r as *mut Resource) });
}

#[test]
fn views_the_model_cannot_sample_are_refused_by_name() {
    let (_k, mut s) = screen();
    let linear = image(
        &mut s,
        16,
        0,
        sys::PIPE_BIND_SAMPLER_VIEW | sys::PIPE_BIND_LINEAR,
    );
    let e = unsafe { texture_descriptor(&view(linear, sys::PIPE_FORMAT_R8G8B8A8_UNORM, (0, 0))) }
        .unwrap_err();
    assert!(e.contains("linear"), "{e}");
    let r = image(&mut s, 16, 0, sys::PIPE_BIND_SAMPLER_VIEW);
    // ETC2 has no descriptor format here (st decompresses it); a 16-bit view of 32-bit texels
    // does not match the image.
    let e =
        unsafe { texture_descriptor(&view(r, sys::PIPE_FORMAT_ETC2_RGB8, (0, 0))) }.unwrap_err();
    assert!(e.contains("sampling format"), "{e}");
    let e =
        unsafe { texture_descriptor(&view(r, sys::PIPE_FORMAT_B5G6R5_UNORM, (0, 0))) }.unwrap_err();
    assert!(e.contains("element size"), "{e}");
    let mut cube = view(r, sys::PIPE_FORMAT_R8G8B8A8_UNORM, (0, 0));
    cube.set_target(sys::PIPE_TEXTURE_CUBE);
    let e = unsafe { texture_descriptor(&cube) }.unwrap_err();
    assert!(e.contains("cube view of faces 0..=0"), "{e}");
    let mut rect = view(r, sys::PIPE_FORMAT_R8G8B8A8_UNORM, (0, 0));
    rect.set_target(sys::PIPE_TEXTURE_RECT);
    let e = unsafe { texture_descriptor(&rect) }.unwrap_err();
    assert!(e.contains("target"), "{e}");
    let e = unsafe { texture_descriptor(&view(r, sys::PIPE_FORMAT_R8G8B8A8_UNORM, (0, 3))) }
        .unwrap_err();
    assert!(e.contains("levels"), "{e}");
    for r in [linear, r] {
        destroy_resource(&s, unsafe { Box::from_raw(r as *mut Resource) });
    }
}

fn state() -> sys::pipe_sampler_state {
    let mut st = sys::pipe_sampler_state::default();
    st.set_wrap_s(sys::PIPE_TEX_WRAP_REPEAT);
    st.set_wrap_t(sys::PIPE_TEX_WRAP_MIRROR_REPEAT);
    st.set_wrap_r(sys::PIPE_TEX_WRAP_REPEAT);
    st.set_min_img_filter(sys::PIPE_TEX_FILTER_LINEAR);
    st.set_mag_img_filter(sys::PIPE_TEX_FILTER_NEAREST);
    st.set_min_mip_filter(sys::PIPE_TEX_MIPFILTER_LINEAR);
    st.min_lod = 0.5;
    st.max_lod = 1000.0;
    st
}

#[test]
fn samplers_carry_the_gl_state_and_refuse_what_g16_cannot_hold() {
    let d = sampler_descriptor(&state()).unwrap();
    let d = Sampler::unpack(&d.pack().unwrap()).unwrap();
    assert!(d.fully_known());
    assert!(d.min_linear && !d.mag_linear);
    assert_eq!(d.mip_filter, MipFilter::Linear);
    assert_eq!((d.wrap_s, d.wrap_t), (Wrap::Repeat, Wrap::MirroredRepeat));
    // GL's max LOD 1000 is more levels than any image has: clamped to the field's 14.
    assert_eq!(d.lod_range(), (0.5, 14.0));

    let mut border = state();
    border.set_wrap_s(sys::PIPE_TEX_WRAP_CLAMP_TO_BORDER);
    border.border_color.f = [1.0; 4];
    assert_eq!(
        sampler_descriptor(&border).unwrap().border,
        BorderColour::OpaqueWhite
    );
    border.border_color.f = [0.5, 0.0, 0.0, 1.0];
    assert!(sampler_descriptor(&border)
        .unwrap_err()
        .contains("border colour"));

    let mut shadow = state();
    shadow.set_compare_mode(sys::PIPE_TEX_COMPARE_R_TO_TEXTURE);
    // Shadow samplers compare in the shader (agx16-compiler nir::texture::lower): the G16
    // sampler is the same as without comparison.
    assert_eq!(
        sampler_descriptor(&shadow).unwrap(),
        sampler_descriptor(&state()).unwrap()
    );
    let mut aniso = state();
    aniso.set_max_anisotropy(4);
    assert!(sampler_descriptor(&aniso)
        .unwrap_err()
        .contains("anisotropic"));
    let mut clamp = state();
    clamp.set_wrap_t(sys::PIPE_TEX_WRAP_CLAMP);
    assert!(sampler_descriptor(&clamp)
        .unwrap_err()
        .contains("wrap mode"));
}

/// A `target` resource of `size`² texels, `array_size` layers (faces for cubes) or `depth`.
fn layered(
    s: &mut Screen,
    target: u32,
    size: u32,
    layers: u16,
    depth: u16,
    last_level: u8,
) -> *mut sys::pipe_resource {
    // SAFETY: plain C data.
    let mut t: sys::pipe_resource = unsafe { std::mem::zeroed() };
    t.set_target(target);
    t.set_format(sys::PIPE_FORMAT_R8G8B8A8_UNORM);
    t.width0 = size;
    t.height0 = size as u16;
    t.depth0 = depth;
    t.array_size = layers;
    t.last_level = last_level;
    t.bind = sys::PIPE_BIND_SAMPLER_VIEW;
    let ps = &mut s.base as *mut sys::pipe_screen;
    Box::into_raw(create_resource(s, ps, &t).expect("resource_create")) as *mut sys::pipe_resource
}

/// Arrays, cube maps and 3D: the descriptor's own layout (what the model samples through)
/// must put every plane the view covers where the resource has it.
#[test]
fn array_cube_and_3d_views_address_the_resources_planes() {
    use agx16_cmdstream::descriptors::TextureDimension;
    let (_k, mut s) = screen();
    let cases = [
        (
            sys::PIPE_TEXTURE_2D_ARRAY,
            5u16,
            1u16,
            (1u32, 3u32),
            TextureDimension::D2Array,
        ),
        (sys::PIPE_TEXTURE_CUBE, 6, 1, (0, 5), TextureDimension::Cube),
        (sys::PIPE_TEXTURE_3D, 1, 4, (0, 0), TextureDimension::D3),
    ];
    for (target, layers, depth, (a, b), dim) in cases {
        let r = layered(&mut s, target, 8, layers, depth, 0);
        let mut v = view(r, sys::PIPE_FORMAT_R8G8B8A8_UNORM, (0, 0));
        v.set_target(target);
        // SAFETY: the texture member of the union.
        unsafe {
            v.u.tex.set_first_layer(a);
            v.u.tex.set_last_layer(b);
        }
        let d = repacked(&unsafe { texture_descriptor(&v) }.unwrap().0);
        assert_eq!(d.dimension, dim, "target {target}");
        // SAFETY: a live agx16 resource.
        let res = unsafe { Resource::get(r) };
        let have = res.layout.as_ref().unwrap();
        let planes = if target == sys::PIPE_TEXTURE_3D {
            depth as u32
        } else {
            b - a + 1
        };
        // A cube descriptor's extent counts cubes (agx16-cmdstream texture_layout).
        let extent = if target == sys::PIPE_TEXTURE_CUBE {
            planes / 6
        } else {
            planes
        };
        assert_eq!(d.extent_minus1 + 1, extent, "target {target}");
        let l = layout_for(&d).unwrap();
        for p in 0..planes {
            let want = res.bo().va + have.element_offset(0, a + p, 3, 5, 0);
            assert_eq!(
                d.address + l.element_offset(0, p, 3, 5, 0),
                want,
                "plane {p}"
            );
        }
        destroy_resource(&s, unsafe { Box::from_raw(r as *mut Resource) });
    }
}

/// A view starting at level 1 of an array, a cube map or a 3D image (GL_TEXTURE_BASE_LEVEL):
/// its levels' layer stride is the whole chain's, so the descriptor covers the chain from level
/// 0 (every level and plane where the resource has it) and the view reports its base level,
/// which the sampler's LOD range starts at.
#[test]
fn base_level_views_of_layered_images_describe_the_whole_chain() {
    let (_k, mut s) = screen();
    for (target, layers, depth, (a, b)) in [
        (sys::PIPE_TEXTURE_2D_ARRAY, 5u16, 1u16, (1u32, 3u32)),
        (sys::PIPE_TEXTURE_CUBE, 6, 1, (0, 5)),
        (sys::PIPE_TEXTURE_3D, 1, 8, (0, 0)),
    ] {
        // Large enough that the chains from level 0 and 1 differ in layer stride (small images
        // pad both to the same alignment and take the ordinary path).
        let r = layered(&mut s, target, 128, layers, depth, 4);
        let mut v = view(r, sys::PIPE_FORMAT_R8G8B8A8_UNORM, (1, 3));
        v.set_target(target);
        // SAFETY: the texture member of the union.
        unsafe {
            v.u.tex.set_first_layer(a);
            v.u.tex.set_last_layer(b);
        }
        let (t, base) = unsafe { texture_descriptor(&v) }.unwrap();
        assert_eq!(base, 1, "target {target}");
        let d = repacked(&t);
        // SAFETY: a live agx16 resource.
        let res = unsafe { Resource::get(r) };
        let have = res.layout.as_ref().unwrap();
        assert_eq!(d.levels as usize, have.levels.len(), "target {target}");
        let l = layout_for(&d).unwrap();
        let planes = if target == sys::PIPE_TEXTURE_3D {
            depth as u32
        } else {
            b - a + 1
        };
        for level in 0..have.levels.len() as u32 {
            let lp = if target == sys::PIPE_TEXTURE_3D {
                (planes >> level).max(1)
            } else {
                planes
            };
            for p in 0..lp {
                let want = res.bo().va + have.element_offset(level, a + p, 1, 1, 0);
                assert_eq!(
                    d.address + l.element_offset(level, p, 1, 1, 0),
                    want,
                    "target {target} level {level} plane {p}"
                );
            }
        }
        destroy_resource(&s, unsafe { Box::from_raw(r as *mut Resource) });
    }
}

/// Views described from level 0 (cube maps, arrays, 3D) sample the levels GL selects (ES 3.0
/// §3.8.10, with nearest-mip level ⌈λ + ½⌉ - 1 from the base, clamped to the view's last) through
/// the sampler range `whole_chain_lod` gives, as the texture unit applies it (λ of level 0
/// clamped to the range; minified when λ > 0; nearest mip: level ⌊λ + ½⌋; the maximum held in
/// 8ths): for a view starting at level 0 also GL's magnification switch, for single-level views
/// (GL TEXTURE_MAX_LEVEL 0 of a cube map) too.
#[test]
fn whole_chain_views_sample_the_levels_gl_selects() {
    use crate::texture::whole_chain_lod;
    let gl_ranges = [(-1000.0, 1000.0), (0.625, 2.0), (-1.0, 0.0), (1.25, 1.25)];
    for (base, last) in [(0u8, 0u8), (0, 2), (1, 1), (2, 4), (3, 5)] {
        for mip in [MipFilter::None, MipFilter::Nearest] {
            for gl in gl_ranges {
                let (m, lo, hi) = whole_chain_lod(mip, gl, (base, last));
                let mut smp = Sampler {
                    mip_filter: m,
                    ..Default::default()
                };
                smp.set_lod_range(lo, hi);
                let (lo, hi) = smp.lod_range();
                for i in -40..80 {
                    let lambda_base = i as f32 / 8.0 + 1.0 / 32.0;
                    // GL: λ clamped to the sampler's range, relative to the base level.
                    let l = lambda_base.clamp(gl.0, gl.1);
                    let gl_minified = l > 0.0;
                    let gl_level = if mip == MipFilter::None || !gl_minified {
                        base
                    } else {
                        let d = ((l + 0.5).ceil() - 1.0).max(0.0) as u8;
                        (base + d).min(last)
                    };
                    // The unit: λ of level 0.
                    let unit = (lambda_base + base as f32).clamp(lo, hi);
                    let unit_level = if m == MipFilter::None || unit <= 0.0 {
                        0
                    } else {
                        (unit + 0.5).floor() as u8
                    };
                    let what = format!("{mip:?} {gl:?} levels {base}..={last} λ {lambda_base}");
                    assert_eq!(unit_level, gl_level, "{what}");
                    if base == 0 {
                        assert_eq!(unit > 0.0, gl_minified, "{what}");
                    }
                }
            }
        }
    }
}

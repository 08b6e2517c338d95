//! Sampled textures. Sampler views and sampler states become G16 texture descriptors and
//! samplers (agx16-cmdstream `descriptors::Texture` via `texture_layout::texture_for`, and
//! `descriptors::Sampler`: the declarative tables pack them) when they are created; per draw the
//! fragment stage's tables are filled from the bound units and their addresses go into roots
//! 0 and 1 of its root record (agx16-draw `StageTextures`, sim/GFX.md "Render-stage uniform
//! ABI"). What agx16-sim does not sample (sim/GFX.md "Textures": 2D twiddled images of the
//! formats in formats.rs `SAMPLED`, wraps 0..3, no anisotropy/compare/unnormalized coordinates) is refused by name here, so a
//! draw is either sampled as the model (and the compiler's ABI) define it or not drawn.

use crate::context::Context;
use crate::resource::Resource;
use agx16_cmdstream::descriptors::{
    BorderColour, Channels, MipFilter, Sampler, Swizzle, Texture, Wrap,
};
use agx16_cmdstream::layout::{ImageDesc, ImageLayout, Kind, Tiling};
use agx16_cmdstream::texture_layout::{texture_for, TextureFormat};
use agx16_draw::StageTextures;
use agx16_mesa_sys as sys;

/// A sampler view with its texture descriptor (or why the model cannot sample it).
/// Mesa sees `base`; `base` must stay first.
#[repr(C)]
pub struct SamplerView {
    pub base: sys::pipe_sampler_view,
    pub desc: Result<Texture, String>,
    /// The view's first level when `desc` describes the image's whole chain from level 0
    /// (see [`texture_descriptor`]); 0 when it starts at the view's first level.
    pub lod_base: u8,
    /// A copy of the view's levels as an image of their own (see [`prepare_base_copies`]).
    pub base_copy: Option<BaseCopy>,
    /// Whether this draw samples `base_copy` instead of the resource.
    pub base_copy_active: bool,
}

/// Levels `base..=last` of a view's resource copied into an image whose level 0 is the base
/// level, and its descriptor (which starts at the view's base, as no G16 descriptor field for
/// a first level is established).
pub struct BaseCopy {
    pub res: *mut sys::pipe_resource,
    pub desc: Texture,
}

impl SamplerView {
    /// How many levels the sampled descriptor's chain starts below the view's base level
    /// (agx16-compiler `LOD_BASE_WORD`).
    pub fn lod_base_word(&self) -> u32 {
        if self.base_copy_active {
            0
        } else {
            self.lod_base as u32
        }
    }

    /// Whether the descriptor describes more levels than the view's `first..=last`: the
    /// whole chain from level 0 (see [`texture_descriptor`]), also for a view that starts at
    /// level 0 and ends before the image's last level (a cube map's or array's GL
    /// TEXTURE_MAX_LEVEL), so the sampler's LOD range must bound the levels sampled.
    pub fn whole_chain(&self) -> bool {
        if self.base_copy_active {
            return false;
        }
        self.lod_base > 0
            || self.desc.as_ref().is_ok_and(|t| {
                // SAFETY: a descriptor exists only for texture views, whose `u` is `tex`.
                let tex = unsafe { self.base.u.tex };
                u32::from(t.levels) > tex.last_level() - tex.first_level() + 1
            })
    }
}

/// A sampler CSO with its G16 sampler (or why it cannot be expressed).
pub struct SamplerCso {
    pub desc: Result<Sampler, String>,
    /// The depth comparison (`PIPE_FUNC_*`) of a shadow sampler: compiled shaders compare in
    /// the shader (agx16-compiler `nir::texture::lower`), the G16 sampler does not.
    pub compare_func: Option<u32>,
    /// GL's LOD range of the sampler (min_lod, max_lod), for views with a `lod_base`.
    pub lod_range: (f32, f32),
}

/// Formats glGenerateMipmap averages on the CPU: four 8-bit unorm channels in memory order.
fn averaged_as_rgba8(format: sys::pipe_format) -> bool {
    matches!(
        format,
        sys::PIPE_FORMAT_R8G8B8A8_UNORM
            | sys::PIPE_FORMAT_R8G8B8X8_UNORM
            | sys::PIPE_FORMAT_B8G8R8A8_UNORM
            | sys::PIPE_FORMAT_B8G8R8X8_UNORM
    )
}

/// The view's swizzle composed with the format's: per output channel, the memory component
/// (R..A = byte 0..3) or a constant.
unsafe fn swizzle(view: &sys::pipe_sampler_view) -> [Swizzle; 4] {
    let desc = &*sys::util_format_description(view.format());
    let view_swizzle = [
        view.swizzle_r(),
        view.swizzle_g(),
        view.swizzle_b(),
        view.swizzle_a(),
    ];
    view_swizzle.map(|v| {
        let s = match v {
            sys::PIPE_SWIZZLE_X..=sys::PIPE_SWIZZLE_W => desc.swizzle[v as usize] as u32,
            other => other,
        };
        match s {
            sys::PIPE_SWIZZLE_X => Swizzle::R,
            sys::PIPE_SWIZZLE_Y => Swizzle::G,
            sys::PIPE_SWIZZLE_Z => Swizzle::B,
            sys::PIPE_SWIZZLE_W => Swizzle::A,
            sys::PIPE_SWIZZLE_1 => Swizzle::One,
            _ => Swizzle::Zero,
        }
    })
}

/// `sw` with each selection of a component the descriptor's arrangement lacks replaced by
/// GL's value for a missing component (G, B: 0; A: 1; GL ES 3.0 table 3.24): a view can ask
/// for one, e.g. the stencil channel (Y) of a packed depth/stencil format whose depth plane
/// (R32) is sampled, and what the M4 returns for an absent component is not established.
fn present_components(sw: [Swizzle; 4], channels: Channels) -> [Swizzle; 4] {
    use agx16_cmdstream::descriptors::ComponentLayout;
    let n = match channels.components() {
        Some(ComponentLayout::Fields(f)) => f.len(),
        Some(ComponentLayout::SharedExponent) => 3,
        None => return sw,
    };
    sw.map(|s| match s {
        Swizzle::G if n < 2 => Swizzle::Zero,
        Swizzle::B if n < 3 => Swizzle::Zero,
        Swizzle::A if n < 4 => Swizzle::One,
        s => s,
    })
}

/// The texture descriptor of a view, and the level it starts at when that is not the chain's
/// first: levels `first_level..=last_level` of a twiddled image, described as a chain starting
/// at the first level when that chain's own layout (what the model derives from the
/// descriptor, `texture_layout::layout_for`) places every level where the resource has it (2D
/// images). Otherwise (arrays, cube maps and 3D images starting at a level other than 0: their
/// layer stride is the whole chain's) the descriptor covers the resource's whole chain from
/// level 0, and the returned level is the view's base: the sampler's LOD range starts there
/// ([`stage_tables`]), so an implicit LOD, computed from level 0's size, is λ(base) + base, as
/// GL ES 3.0 §3.8.10 selects. No G16 descriptor field for a first level is established
/// (ADevWithAnIdea/agx-re docs/descriptors/README.md lists none).
///
/// # Safety
/// `view.texture` must be a live agx16 resource.
pub unsafe fn texture_descriptor(view: &sys::pipe_sampler_view) -> Result<(Texture, u8), String> {
    // Cube maps are cube descriptors (one cube: six planes), which the compiler's cube forms
    // sample with seamless filtering (agx16-compiler nir::texture::lower).
    let kind = match view.target() {
        sys::PIPE_TEXTURE_2D => Kind::D2,
        sys::PIPE_TEXTURE_2D_ARRAY => Kind::D2Array,
        sys::PIPE_TEXTURE_CUBE => Kind::Cube,
        sys::PIPE_TEXTURE_3D => Kind::D3,
        t => {
            return Err(format!(
                "sampling texture target {t} (2D, 2D arrays, cube maps and 3D are sampled; \
                 1D, rectangle and cube-map arrays are not)"
            ))
        }
    };
    let format = view.format();
    let Some((channels, numeric_type, srgb)) = crate::formats::sampled(format) else {
        return Err(format!(
            "sampling format {format} (no G16 descriptor format is established for it: \
             formats.rs SAMPLED lists those agx16-sim samples)"
        ));
    };
    let res = Resource::get(view.texture);
    let layout = res.layout.as_ref().ok_or("sampling a buffer")?;
    if layout.desc.tiling != Tiling::Twiddled {
        return Err(
            "sampling a linear image (only the twiddled texture layout is established)".into(),
        );
    }
    if layout.desc.samples > 1 {
        return Err("sampling a multisampled image".into());
    }
    let first = view.u.tex.first_level() as usize;
    let last = view.u.tex.last_level() as usize;
    if last < first || last >= layout.levels.len() {
        return Err(format!(
            "sampler view levels {first}..={last} of a {}-level image",
            layout.levels.len()
        ));
    }
    let base = layout.levels[first];
    // Planes the view covers: its layers (cube: its six faces), or a 3D image's slices.
    let (first_plane, planes) = match kind {
        Kind::D2 => (0, 1),
        Kind::D3 => (0, layout.planes),
        _ => {
            let (a, b) = (view.u.tex.first_layer(), view.u.tex.last_layer());
            if b < a || b >= layout.planes {
                return Err(format!(
                    "sampler view layers {a}..={b} of a {}-plane image",
                    layout.planes
                ));
            }
            if view.target() == sys::PIPE_TEXTURE_CUBE && (b - a + 1 != 6 || a % 6 != 0) {
                return Err(format!("a cube view of faces {a}..={b}"));
            }
            (a, b - a + 1)
        }
    };
    let chain = ImageLayout::new(ImageDesc {
        width: base.plane.width,
        height: base.plane.height,
        levels: (last - first + 1) as u32,
        layers: if kind == Kind::Cube {
            planes / 6
        } else {
            planes
        },
        kind,
        ..layout.desc
    })
    .map_err(|e| e.to_string())?;
    let f = TextureFormat {
        channels,
        numeric_type,
        swizzle: present_components(swizzle(view), channels),
        srgb,
    };
    if kind == Kind::D3 && first > 0 || planes > 1 && chain.layer_stride != layout.layer_stride {
        // The whole chain from level 0 (see above); its layers from the view's first.
        let whole = ImageLayout::new(ImageDesc {
            layers: if kind == Kind::Cube {
                planes / 6
            } else if kind == Kind::D3 {
                layout.desc.layers
            } else {
                planes
            },
            ..layout.desc
        })
        .map_err(|e| e.to_string())?;
        if whole.layer_stride != layout.layer_stride {
            return Err(format!(
                "levels {first}..={last}: the whole chain's layer stride {:#x} is not the \
                 resource's {:#x}",
                whole.layer_stride, layout.layer_stride
            ));
        }
        let va = res.bo().va + first_plane as u64 * layout.layer_stride;
        let t = texture_for(&whole, va, f).map_err(|e| e.to_string())?;
        return Ok((t, first as u8));
    }
    for (i, l) in chain.levels.iter().enumerate() {
        let have = layout.levels[first + i];
        if l.plane != have.plane || l.offset != have.offset - base.offset {
            return Err(format!(
                "a base level of {first}: level {} of the resource is not where a chain \
                 starting there puts it",
                first + i
            ));
        }
    }
    let va = res.bo().va + base.offset + first_plane as u64 * layout.layer_stride;
    Ok((texture_for(&chain, va, f).map_err(|e| e.to_string())?, 0))
}

fn wrap(mode: u32) -> Result<Wrap, String> {
    Ok(match mode {
        sys::PIPE_TEX_WRAP_CLAMP_TO_EDGE => Wrap::ClampToEdge,
        sys::PIPE_TEX_WRAP_REPEAT => Wrap::Repeat,
        sys::PIPE_TEX_WRAP_MIRROR_REPEAT => Wrap::MirroredRepeat,
        sys::PIPE_TEX_WRAP_CLAMP_TO_BORDER => Wrap::ClampToBorder,
        m => {
            return Err(format!(
                "wrap mode {m} (agx16-sim models clamp to edge, repeat, mirrored repeat and \
                 clamp to border)"
            ))
        }
    })
}

/// The G16 sampler for a Gallium sampler state.
pub fn sampler_descriptor(s: &sys::pipe_sampler_state) -> Result<Sampler, String> {
    if s.max_anisotropy() > 1 {
        return Err("anisotropic filtering (not modelled)".into());
    }
    if s.unnormalized_coords() != 0 {
        return Err("unnormalized texture coordinates (not modelled)".into());
    }
    if s.lod_bias != 0.0 {
        return Err("a sampler LOD bias (no G16 sampler field for it is established)".into());
    }
    let (wrap_s, wrap_t) = (wrap(s.wrap_s())?, wrap(s.wrap_t())?);
    // 2D textures ignore R; a mode the table cannot hold is not an error for them.
    let wrap_r = wrap(s.wrap_r()).unwrap_or(Wrap::ClampToEdge);
    let border = if [wrap_s, wrap_t].contains(&Wrap::ClampToBorder) {
        // SAFETY: reading the float member of a plain C union of four 32-bit lanes.
        match unsafe { s.border_color.f } {
            [0.0, 0.0, 0.0, 0.0] => BorderColour::TransparentBlack,
            [0.0, 0.0, 0.0, 1.0] => BorderColour::OpaqueBlack,
            [1.0, 1.0, 1.0, 1.0] => BorderColour::OpaqueWhite,
            c => {
                return Err(format!(
                    "border colour {c:?} (G16 samplers hold three preset colours)"
                ))
            }
        }
    } else {
        BorderColour::TransparentBlack
    };
    let mut d = Sampler {
        mag_linear: s.mag_img_filter() == sys::PIPE_TEX_FILTER_LINEAR,
        min_linear: s.min_img_filter() == sys::PIPE_TEX_FILTER_LINEAR,
        mip_filter: match s.min_mip_filter() {
            sys::PIPE_TEX_MIPFILTER_NEAREST => MipFilter::Nearest,
            sys::PIPE_TEX_MIPFILTER_LINEAR => MipFilter::Linear,
            _ => MipFilter::None,
        },
        wrap_s,
        wrap_t,
        wrap_r,
        border,
        // T8132 Mesa sets compare sense 1 and test 7 on every sampler (GravityLinux/mesa
        // agx_apple9 sampler packer, run on T8132; agx16-cmdstream descriptors.rs); non-shadow
        // samples ignore them (sim/GFX.md "Textures").
        compare_sense: true,
        compare_test: agx16_cmdstream::Hex(7),
        ..Default::default()
    };
    d.set_lod_range(s.min_lod, s.max_lod);
    Ok(d)
}

/// Units set in a NIR bitset.
fn units(bits: &[u32]) -> impl Iterator<Item = usize> + '_ {
    (0..bits.len() * 32).filter(|i| bits[i / 32] >> (i % 32) & 1 == 1)
}

/// Stage `stage`'s (PIPE_SHADER_VERTEX or PIPE_SHADER_FRAGMENT) texture and sampler tables for
/// this draw, from the units its program uses; marks each sampled resource as read by the open
/// batch (a CPU write flushes the batch first; renders run in submission order, so a texture
/// an earlier batch rendered is complete when this one samples it). Each stage has its own
/// launcher and root record, so its own roots 0 and 1 (sim/GFX.md "Render-stage uniform ABI":
/// GravityLinux/mesa README.apple9-launchers.md "Resource ABI" read back the root pointers of
/// VS and FS alike, T8132 measured).
///
/// # Safety
/// The bound shader CSOs, sampler views and sampler CSOs must be live; the batch must be open.
pub unsafe fn stage_tables(
    ctx: &mut Context,
    stage: sys::pipe_shader_type,
) -> Result<StageTextures, String> {
    let cso = if stage == sys::PIPE_SHADER_VERTEX {
        ctx.state.vs.as_ref().ok_or("no vertex shader bound")?
    } else {
        ctx.state.fs.as_ref().ok_or("no fragment shader bound")?
    };
    let info = &(*cso.nir).info;
    let stage = stage as usize;
    let mut tables = StageTextures::default();
    // st gathers the used units; a shader that samples with none recorded would leave roots
    // zero (the model refuses the draw at execution), so count units 0..num_textures then.
    let mut textures_used: Vec<usize> = units(&info.textures_used).collect();
    let mut samplers_used: Vec<usize> = units(&info.samplers_used).collect();
    if textures_used.is_empty() && info.num_textures > 0 {
        textures_used = (0..info.num_textures as usize).collect();
        samplers_used = textures_used.clone();
    }
    for t in textures_used {
        let view = ctx.state.sampler_views[stage][t] as *const SamplerView;
        let view = view
            .as_ref()
            .ok_or_else(|| format!("texture unit {t} is sampled but has no texture bound"))?;
        let mut desc = view
            .desc
            .clone()
            .map_err(|e| format!("texture unit {t}: {e}"))?;
        let res = view.base.texture;
        // A view of an image the open batch renders to (a feedback loop, GLES 3.0 §4.4.3:
        // undefined values, not a lost draw) samples what memory holds, as asahi does (Mesa
        // src/gallium/drivers/asahi/agx_batch.c `agx_batch_reads` flushes only another
        // batch that writes the resource; GravityLinux/mesa's M4 driver is that driver).
        ctx.render.use_resource(res, false);
        if let Some(copy) = view.base_copy.as_ref().filter(|_| view.base_copy_active) {
            desc = copy.desc.clone();
            ctx.render.use_resource(copy.res, false);
        }
        tables.textures.resize(t + 1, None);
        tables.textures[t] = Some(desc);
    }
    for s in samplers_used {
        let cso = ctx.state.samplers[stage][s]
            .as_ref()
            .ok_or_else(|| format!("sampler unit {s} is used but has no sampler bound"))?;
        let mut desc = cso
            .desc
            .clone()
            .map_err(|e| format!("sampler unit {s}: {e}"))?;
        let view = ctx.state.sampler_views[stage][s] as *const SamplerView;
        if let Some(v) = view.as_ref().filter(|v| v.whole_chain()) {
            let levels = (v.lod_base, v.base.u.tex.last_level() as u8);
            let (mip, min, max) = whole_chain_lod(desc.mip_filter, cso.lod_range, levels);
            desc.mip_filter = mip;
            desc.set_lod_range(min, max);
        }
        tables.samplers.resize(s + 1, None);
        tables.samplers[s] = Some(desc);
    }
    Ok(tables)
}

/// Views that start past level 0 and are described from level 0 (cube maps, arrays and 3D
/// images: [`texture_descriptor`]) sample GL's levels through the sampler's LOD range, but the
/// unit then tells magnification from minification by λ of level 0, which is never at or below
/// 0 there: where the sampler's magnification and minification filters differ (NEAREST against
/// LINEAR_MIPMAP_*, say), the pixels GL magnifies would be minified. For those views this
/// draw samples a copy of the view's levels as an image of their own (made or refreshed here,
/// before the draw's batch opens: the copy waits for GPU work that writes the resource, and
/// work that still samples an earlier copy), whose descriptor starts at the base level.
/// Views whose copy cannot be made keep the whole-chain description.
///
/// # Safety
/// The bound sampler views and sampler CSOs must be live.
pub unsafe fn prepare_base_copies(
    ctx: &mut Context,
    screen: &crate::screen::Screen,
) -> Result<(), String> {
    let stages = [sys::PIPE_SHADER_VERTEX, sys::PIPE_SHADER_FRAGMENT].map(|s| s as usize);
    for &st in &stages {
        for &v in &ctx.state.sampler_views[st] {
            if let Some(v) = (v as *mut SamplerView).as_mut() {
                v.base_copy_active = false;
            }
        }
    }
    for &st in &stages {
        for u in 0..ctx.state.sampler_views[st].len() {
            let Some(v) = (ctx.state.sampler_views[st][u] as *mut SamplerView).as_mut() else {
                continue;
            };
            let Some(Ok(smp)) = ctx.state.samplers[st]
                .get(u)
                .and_then(|c| c.as_ref())
                .map(|c| &c.desc)
            else {
                continue;
            };
            if v.lod_base == 0 || v.desc.is_err() || smp.mag_linear == smp.min_linear {
                continue;
            }
            if v.base_copy.is_none() {
                match make_base_copy(&v.base) {
                    Ok(c) => v.base_copy = Some(c),
                    Err(e) => {
                        eprintln!("agx16: a copy of a view's levels from its base: {e}");
                        continue;
                    }
                }
            }
            let copy = v.base_copy.as_ref().unwrap();
            if !v.base_copy_active {
                refresh_base_copy(ctx, screen, &v.base, copy.res)?;
            }
            v.base_copy_active = true;
        }
    }
    Ok(())
}

/// A resource holding `view`'s levels from its base (its level 0), and the descriptor of a
/// view of all of it with `view`'s format, swizzle and layers.
unsafe fn make_base_copy(view: &sys::pipe_sampler_view) -> Result<BaseCopy, String> {
    let src = &*view.texture;
    let (b, last) = (view.u.tex.first_level(), view.u.tex.last_level());
    if sys::util_format_is_depth_or_stencil(src.format()) {
        return Err("depth/stencil images are not copied".into());
    }
    let mut templ = *src;
    templ.next = std::ptr::null_mut();
    templ.width0 = (src.width0 >> b).max(1);
    templ.height0 = ((src.height0 as u32 >> b).max(1)) as u16;
    if src.target() == sys::PIPE_TEXTURE_3D {
        templ.depth0 = ((src.depth0 as u32 >> b).max(1)) as u16;
    }
    templ.last_level = (last - b) as u8;
    templ.bind = sys::PIPE_BIND_SAMPLER_VIEW;
    let res = crate::resource::resource_create(src.screen, &templ);
    if res.is_null() {
        return Err("the copy's image was not made".into());
    }
    let mut tmp = *view;
    tmp.texture = res;
    tmp.u.tex.set_first_level(0);
    tmp.u.tex.set_last_level(last - b);
    match texture_descriptor(&tmp) {
        Ok((desc, 0)) => Ok(BaseCopy { res, desc }),
        other => {
            let mut r = res;
            sys::pipe_resource_reference(&mut r, std::ptr::null_mut());
            Err(match other {
                Err(e) => e,
                _ => "the copy is not described from its level 0".into(),
            })
        }
    }
}

/// Copies `view`'s levels (every layer / face / slice) into `copy`'s levels from 0.
unsafe fn refresh_base_copy(
    ctx: &mut Context,
    screen: &crate::screen::Screen,
    view: &sys::pipe_sampler_view,
    copy: *mut sys::pipe_resource,
) -> Result<(), String> {
    let src = view.texture;
    ctx.render.sync_for_cpu(screen, src, false);
    ctx.render.sync_for_cpu(screen, copy, true);
    let (b, last) = (view.u.tex.first_level(), view.u.tex.last_level());
    for level in b..=last {
        let at = |d: u32| (d >> level).max(1) as i32;
        let depth = if (*src).target() == sys::PIPE_TEXTURE_3D {
            at((*src).depth0 as u32)
        } else {
            (*src).array_size as i32
        };
        let sbox = sys::pipe_box {
            x: 0,
            width: at((*src).width0),
            y: 0,
            height: at((*src).height0 as u32),
            z: 0,
            depth: depth as _,
        };
        crate::transfer::copy_region(copy, level - b, 0, 0, 0, src, level, &sbox)
            .map_err(|e| format!("copying level {level} from the view's base: {e}"))?;
    }
    Ok(())
}

/// The mip filter and LOD range (in levels of the descriptor's chain, which starts at level 0)
/// that sample a view of levels `base..=last` as GL does (ES 3.0 §3.8.10), from the sampler's
/// mip filter and GL LOD range `gl` (relative to the base level): λ of level 0 is λ(base) +
/// base, clamped to the GL range moved by `base` and to the view's levels. A single-level
/// view (no mipmapping, or `base == last`) keeps λ up to 3/8 above the base (the largest
/// bound below half a level the 8ths of the sampler's maximum hold), so nearest-mip
/// selection stays on the base level while the unit still tells minification (λ > 0) from
/// magnification, which a range pinned at 0 would turn into magnification everywhere.
pub fn whole_chain_lod(
    mip: MipFilter,
    gl: (f32, f32),
    (base, last): (u8, u8),
) -> (MipFilter, f32, f32) {
    let (b, last) = (base as f32, last as f32);
    let (min, max) = gl;
    let lo = b + min.max(0.0);
    if mip == MipFilter::None || last <= b {
        (
            MipFilter::Nearest,
            lo.min(b + 0.375),
            (b + max).min(b + 0.375),
        )
    } else {
        (mip, lo, (b + max).min(last))
    }
}

/// glGenerateMipmap on the CPU for 2D images (each layer / face of 2D arrays and cube maps as one)
/// whose levels halve exactly (each dimension even,
/// or 1): a texel of level l+1 is the mean of the 2x2 (2x1, 1x2) texels of level l it covers,
/// channel by channel, which is what a linear-filtered halving blit (Mesa's util_gen_mipmap;
/// softpipe) computes at those sizes. Four 8-bit unorm channels average as integers (rounded);
/// every other non-integer colour format formats.rs samples averages in f32 through Mesa's
/// util_format_unpack_rgba / util_format_pack_rgba (sRGB formats in linear space, as GL
/// requires). Anything else returns false, and Mesa falls back to util_gen_mipmap's blits.
pub unsafe extern "C" fn generate_mipmap(
    ctx: *mut sys::pipe_context,
    res: *mut sys::pipe_resource,
    format: sys::pipe_format,
    base_level: std::ffi::c_uint,
    last_level: std::ffi::c_uint,
    first_layer: std::ffi::c_uint,
    last_layer: std::ffi::c_uint,
) -> bool {
    crate::ffi::guard("generate_mipmap", false, || {
        let bpp = sys::util_format_get_blocksize(format) as usize;
        let general = crate::formats::sampled(format).is_some()
            && !sys::util_format_is_pure_integer(format)
            && !sys::util_format_is_depth_or_stencil(format);
        // 2D arrays and cube maps: each layer / face on its own, as a 2D image.
        let layered = matches!(
            (*res).target(),
            sys::PIPE_TEXTURE_2D_ARRAY | sys::PIPE_TEXTURE_CUBE
        );
        if !((*res).target() == sys::PIPE_TEXTURE_2D && (first_layer, last_layer) == (0, 0)
            || layered && first_layer <= last_layer)
            || !(averaged_as_rgba8(format) || general)
            || sys::util_format_get_blocksize((*res).format()) as usize != bpp
        {
            return false;
        }
        let Some(layout) = Resource::get(res).layout.as_ref() else {
            return false;
        };
        let (base, last) = (base_level as usize, last_level as usize);
        if last >= layout.levels.len() || base >= last {
            return false;
        }
        let dims: Vec<(usize, usize)> = layout.levels[base..=last]
            .iter()
            .map(|l| (l.plane.width as usize, l.plane.height as usize))
            .collect();
        let halves = |a: usize, b: usize| b == (a / 2).max(1) && (a == 1 || a.is_multiple_of(2));
        if !dims
            .windows(2)
            .all(|p| halves(p[0].0, p[1].0) && halves(p[0].1, p[1].1))
        {
            return false;
        }
        crate::transfer::sync(ctx, res, true);
        for layer in first_layer..=last_layer {
            let mut src = match read_level(ctx, res, base_level, layer, dims[0], bpp) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("agx16: generate_mipmap: {e}");
                    return false;
                }
            };
            for (i, &(w, h)) in dims.iter().enumerate().skip(1) {
                let dst = if averaged_as_rgba8(format) {
                    halve_rgba8(&src, dims[i - 1], (w, h))
                } else {
                    halve_rgba(format, bpp, &src, dims[i - 1], (w, h))
                };
                let b = sys::pipe_box {
                    x: 0,
                    width: w as i32,
                    y: 0,
                    height: h as i32,
                    z: layer as i16,
                    depth: 1,
                };
                let level = base_level + i as u32;
                if let Err(e) =
                    crate::transfer::write_texture(ctx, res, level, &b, dst.as_ptr(), w * bpp, 0)
                {
                    eprintln!("agx16: generate_mipmap: level {level}: {e}");
                    return false;
                }
                src = dst;
            }
        }
        true
    })
}

/// One level down from `src` (`sw` x `sh` texels of four 8-bit channels): rounded integer means.
fn halve_rgba8(src: &[u8], (sw, sh): (usize, usize), (w, h): (usize, usize)) -> Vec<u8> {
    let (fx, fy) = (sw / w, sh / h);
    let mut dst = vec![0u8; w * h * 4];
    for y in 0..h {
        for x in 0..w {
            for c in 0..4 {
                let mut sum = 0usize;
                for dy in 0..fy {
                    for dx in 0..fx {
                        sum += src[((y * fy + dy) * sw + x * fx + dx) * 4 + c] as usize;
                    }
                }
                let n = fx * fy;
                dst[(y * w + x) * 4 + c] = ((sum + n / 2) / n) as u8;
            }
        }
    }
    dst
}

/// One level down from `src` (`sw` x `sh` texels of `format`, `bpp` bytes each): f32 means of
/// Mesa's RGBA unpacking, packed back by Mesa.
unsafe fn halve_rgba(
    format: sys::pipe_format,
    bpp: usize,
    src: &[u8],
    (sw, sh): (usize, usize),
    (w, h): (usize, usize),
) -> Vec<u8> {
    let mut rgba = vec![0f32; sw * sh * 4];
    sys::util_format_unpack_rgba(
        format,
        rgba.as_mut_ptr().cast(),
        src.as_ptr().cast(),
        (sw * sh) as u32,
    );
    let (fx, fy) = (sw / w, sh / h);
    let mut mean = vec![0f32; w * h * 4];
    for y in 0..h {
        for x in 0..w {
            for c in 0..4 {
                let mut sum = 0f32;
                for dy in 0..fy {
                    for dx in 0..fx {
                        sum += rgba[((y * fy + dy) * sw + x * fx + dx) * 4 + c];
                    }
                }
                mean[(y * w + x) * 4 + c] = sum / (fx * fy) as f32;
            }
        }
    }
    let mut dst = vec![0u8; w * h * bpp];
    sys::util_format_pack_rgba(
        format,
        dst.as_mut_ptr().cast(),
        mean.as_ptr().cast(),
        (w * h) as u32,
    );
    dst
}

/// Level `level` of a 2D image (layer / face `layer` of an array or cube) as tightly packed
/// `bpp`-byte texels.
unsafe fn read_level(
    ctx: *mut sys::pipe_context,
    res: *mut sys::pipe_resource,
    level: u32,
    layer: u32,
    (w, h): (usize, usize),
    bpp: usize,
) -> Result<Vec<u8>, crate::transfer::MapError> {
    let b = sys::pipe_box {
        x: 0,
        width: w as i32,
        y: 0,
        height: h as i32,
        z: layer as i16,
        depth: 1,
    };
    let (t, ptr) = crate::transfer::map_any(ctx, res, level, sys::PIPE_MAP_READ, &b)?;
    let mut out = vec![0u8; w * h * bpp];
    for y in 0..h {
        std::ptr::copy_nonoverlapping(
            ptr.add(y * (*t).stride as usize),
            out[y * w * bpp..].as_mut_ptr(),
            w * bpp,
        );
    }
    crate::transfer::unmap_any(ctx, t)?;
    Ok(out)
}

#[cfg(test)]
mod present_component_tests {
    use super::*;

    /// A packed depth/stencil view's stencil channel (Y) over the sampled depth plane (R32)
    /// reads 0, a missing alpha 1; components the arrangement has are kept.
    #[test]
    fn absent_components_read_gl_defaults() {
        use Swizzle::*;
        assert_eq!(
            present_components([R, G, B, A], Channels::R32),
            [R, Zero, Zero, One]
        );
        assert_eq!(
            present_components([R, G, B, A], Channels::R8G8),
            [R, G, Zero, One]
        );
        assert_eq!(
            present_components([B, G, R, A], Channels::R8G8B8A8),
            [B, G, R, A]
        );
        assert_eq!(
            present_components([R, G, B, A], Channels::R11G11B10),
            [R, G, B, One]
        );
    }
}

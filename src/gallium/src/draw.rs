//! draw_vbo and clear: Gallium state resolved into agx16-draw's plain values and recorded into
//! the context's batch for the bound framebuffer (batch.rs builds and submits it).

use crate::batch::{BoMemory, Renderer};
use crate::context::Context;
use crate::resource::Resource;
use crate::screen::Screen;
use crate::variants;
use agx16_cmdstream::ppp::{StencilOp, ZsFunc};
use agx16_cmdstream::render::ZlsFormat;
use agx16_cmdstream::vdm::{IndexSize, Primitive};
use agx16_draw::batch::ClearMask;
use agx16_draw::{
    Batch, ColorTarget, DepthBiasState, DepthStencil, Draw, Framebuffer, GpuWriter, Heap, Indices,
    Raster, StencilFace, Viewport, ZsSurface, ZsTarget,
};
use agx16_mesa_sys as sys;

/// The bound framebuffer as agx16-draw describes it, and the resources it renders to.
///
/// # Safety
/// The framebuffer state's surfaces must be live agx16 surfaces.
pub unsafe fn framebuffer(
    fb: &sys::pipe_framebuffer_state,
) -> Result<(Framebuffer, Vec<*mut sys::pipe_resource>), String> {
    let mut resources = Vec::new();
    let mut colors = Vec::new();
    for i in 0..fb.nr_cbufs as usize {
        let s = fb.cbufs[i];
        if s.is_null() {
            colors.push(None);
            continue;
        }
        let s = &*s;
        let format = crate::rt_format::target(s.format())
            .ok_or_else(|| format!("rendering to colour format {}", s.format()))?
            .0;
        let (va, plane) = surface_plane(s)?;
        resources.push(s.texture);
        colors.push(Some(ColorTarget { va, plane, format }));
    }
    let zs = if fb.zsbuf.is_null() {
        None
    } else {
        let s = &*fb.zsbuf;
        let (va, plane) = surface_plane(s)?;
        resources.push(s.texture);
        let surface = ZsSurface { va };
        // Packed depth/stencil resources are stored split (resource.rs TRANSFER_HELPER_FLAGS):
        // the resource is the Z32_FLOAT depth plane, `stencil` the S8_UINT plane, bound as
        // the ZLS stencil base at the same level and layer.
        let r = Resource::get(s.texture);
        let (depth, stencil) = match r.internal_format {
            sys::PIPE_FORMAT_Z32_FLOAT => (Some((surface, ZlsFormat::F32)), None),
            sys::PIPE_FORMAT_Z16_UNORM => (Some((surface, ZlsFormat::Unorm16)), None),
            sys::PIPE_FORMAT_S8_UINT => (None, Some(surface)),
            f => return Err(format!("depth/stencil format {f}")),
        };
        let stencil = if r.stencil.is_null() {
            stencil
        } else {
            let view = sys::pipe_surface {
                texture: r.stencil,
                ..*s
            };
            let (sva, splane) = surface_plane(&view)?;
            if (splane.width, splane.height) != (plane.width, plane.height) || !splane.is_twiddled()
            {
                return Err("stencil plane differs in size or tiling from the depth plane".into());
            }
            resources.push(r.stencil);
            Some(ZsSurface { va: sva })
        };
        if !plane.is_twiddled() {
            return Err("a linear depth/stencil surface (ZLS loads and stores twiddled)".into());
        }
        Some(ZsTarget {
            depth,
            stencil,
            width: plane.width,
            height: plane.height,
        })
    };
    Ok((
        Framebuffer {
            width: fb.width as u32,
            height: fb.height as u32,
            samples: framebuffer_samples(fb),
            colors,
            zs,
        },
        resources,
    ))
}

/// Samples of the framebuffer: its attachments' (GL requires them equal; Mesa's
/// `util_framebuffer_get_num_samples`), the state's count without attachments.
///
/// # Safety
/// The framebuffer state's surfaces must be live.
pub unsafe fn framebuffer_samples(fb: &sys::pipe_framebuffer_state) -> u32 {
    let first = fb.cbufs[..fb.nr_cbufs as usize]
        .iter()
        .chain(std::iter::once(&fb.zsbuf))
        .find(|s| !s.is_null() && !(***s).texture.is_null());
    match first {
        Some(s) => ((*(**s).texture).nr_samples as u32).max(1),
        None => (fb.samples as u32).max(1),
    }
}

/// VA and plane of a surface's level and first layer.
unsafe fn surface_plane(
    s: &sys::pipe_surface,
) -> Result<(u64, agx16_cmdstream::layout::PlaneLayout), String> {
    let r = Resource::get(s.texture);
    let layout = r.layout.as_ref().ok_or("rendering to a buffer surface")?;
    let level = s.u.tex.level as usize;
    let layer = s.u.tex.first_layer() as u64;
    if s.u.tex.last_layer() != s.u.tex.first_layer() {
        return Err("layered rendering".into());
    }
    let l = layout
        .levels
        .get(level)
        .ok_or("surface level out of range")?;
    Ok((r.bo().va + layer * layout.layer_stride + l.offset, l.plane))
}

fn primitive(mode: sys::mesa_prim) -> Result<Primitive, String> {
    Ok(match mode {
        sys::MESA_PRIM_POINTS => Primitive::Points,
        sys::MESA_PRIM_LINES => Primitive::Lines,
        sys::MESA_PRIM_LINE_LOOP => Primitive::LineLoop,
        sys::MESA_PRIM_LINE_STRIP => Primitive::LineStrip,
        sys::MESA_PRIM_TRIANGLES => Primitive::Triangles,
        sys::MESA_PRIM_TRIANGLE_STRIP => Primitive::TriangleStrip,
        sys::MESA_PRIM_TRIANGLE_FAN => Primitive::TriangleFan,
        m => return Err(format!("primitive type {m}")),
    })
}

/// Vertices the first primitive of `p` needs.
fn first_primitive_vertices(p: Primitive) -> u32 {
    match p {
        Primitive::Points => 1,
        Primitive::Lines | Primitive::LineLoop | Primitive::LineStrip => 2,
        // Triangles, strips and fans (`primitive` maps nothing else).
        _ => 3,
    }
}

fn stencil_op(op: u32) -> StencilOp {
    // pipe_stencil_op: KEEP, ZERO, REPLACE, INCR (saturating), DECR (saturating), INCR_WRAP,
    // DECR_WRAP, INVERT.
    match op {
        sys::PIPE_STENCIL_OP_ZERO => StencilOp::Zero,
        sys::PIPE_STENCIL_OP_REPLACE => StencilOp::Replace,
        sys::PIPE_STENCIL_OP_INCR => StencilOp::IncrSat,
        sys::PIPE_STENCIL_OP_DECR => StencilOp::DecrSat,
        sys::PIPE_STENCIL_OP_INCR_WRAP => StencilOp::IncrWrap,
        sys::PIPE_STENCIL_OP_DECR_WRAP => StencilOp::DecrWrap,
        sys::PIPE_STENCIL_OP_INVERT => StencilOp::Invert,
        _ => StencilOp::Keep,
    }
}

/// pipe_compare_func numbers NEVER..ALWAYS as 0..7, the order of the hardware's field.
fn func(f: u32) -> ZsFunc {
    <ZsFunc as agx16_cmdstream::FieldType>::from_u64((f & 7) as u64)
}

unsafe fn depth_stencil(ctx: &Context) -> DepthStencil {
    let Some(d) = ctx.state.depth_stencil_alpha.as_ref() else {
        return DepthStencil::default();
    };
    let face = |i: usize| {
        let s = &d.stencil[i];
        StencilFace {
            func: func(s.func()),
            fail: stencil_op(s.fail_op()),
            depth_fail: stencil_op(s.zfail_op()),
            pass: stencil_op(s.zpass_op()),
            reference: ctx.state.stencil_ref.ref_value[i],
            read_mask: s.valuemask() as u8,
            write_mask: s.writemask() as u8,
        }
    };
    let stencil = (d.stencil[0].enabled() != 0).then(|| {
        let front = face(0);
        let back = if d.stencil[1].enabled() != 0 {
            face(1)
        } else {
            front
        };
        [front, back]
    });
    DepthStencil {
        depth_func: (d.depth_enabled() != 0).then(|| func(d.depth_func())),
        depth_write: d.depth_enabled() != 0 && d.depth_writemask() != 0,
        stencil,
    }
}

/// Rasteriser state and viewport; `halfz`: the vertex program maps GL's z in [-w, w] to
/// [0, w] (the model clips to 0 <= z <= w, sim/GFX.md "Clipping"), so the viewport's depth
/// transform is rewritten to match.
unsafe fn raster(ctx: &Context) -> (Raster, Viewport) {
    let vp = &ctx.state.viewport;
    let mut viewport = Viewport {
        scale: vp.scale,
        translate: vp.translate,
    };
    let r = ctx.state.rasterizer.as_ref();
    if r.is_none_or(|r| r.clip_halfz() == 0) {
        // The vertex variant stores (z + w) / 2 (VertexKey::gl_clip_z).
        viewport.translate[2] -= viewport.scale[2];
        viewport.scale[2] *= 2.0;
    }
    let Some(r) = r else {
        return (Raster::default(), viewport);
    };
    let sc = &ctx.state.scissor;
    let raster = Raster {
        cull_front: r.cull_face() & sys::PIPE_FACE_FRONT != 0,
        cull_back: r.cull_face() & sys::PIPE_FACE_BACK != 0,
        front_ccw: r.front_ccw() != 0,
        flatshade_first: r.flatshade_first() != 0,
        line_width: r.line_width,
        depth_clip: r.depth_clip_near() != 0,
        scissor: (r.scissor() != 0).then(|| {
            [
                sc.minx() as u16,
                sc.miny() as u16,
                sc.maxx() as u16,
                sc.maxy() as u16,
            ]
        }),
        rasterizer_discard: r.rasterizer_discard() != 0,
        sprite_lower_left: r.sprite_coord_mode() == sys::PIPE_SPRITE_COORD_LOWER_LEFT,
        // GLES offsets filled polygons only (no polygon modes); an all-zero offset is none.
        depth_bias: (r.offset_tri() != 0 && (r.offset_units != 0.0 || r.offset_scale != 0.0))
            .then_some(DepthBiasState {
                units: r.offset_units,
                factor: r.offset_scale,
                clamp: r.offset_clamp,
            }),
    };
    (raster, viewport)
}

/// Makes the context's open batch the one for the bound framebuffer (flushing another).
unsafe fn open_batch(ctx: &mut Context, screen: &Screen) -> Result<(), String> {
    let (fb, resources) = framebuffer(&ctx.state.framebuffer)?;
    fb.validate().map_err(|e| e.to_string())?;
    let r = &mut ctx.render;
    if r.batch.as_ref().is_some_and(|b| b.fb != fb) {
        r.flush(&screen.bo, &screen.programs, None);
    }
    if r.batch.is_none() {
        r.batch = Some(Batch::new(fb));
        r.mem = Some(BoMemory::new());
    }
    for res in resources {
        r.use_resource(res, true);
    }
    Ok(())
}

/// The blitter's draw rewrites every pixel of `o` (blit.rs `Overwrite`): when it is the
/// framebuffer's only attachment and the batch has no draw yet, the render starts from a clear
/// (zeros; every pixel is drawn over) instead of reloading the target, which for a linear
/// staging texture means reading every pixel with device loads first.
unsafe fn start_overwritten(ctx: &mut Context, o: crate::blit::Overwrite) {
    let fb = &ctx.state.framebuffer;
    if fb.nr_cbufs != 1 || fb.cbufs[0].is_null() || !fb.zsbuf.is_null() {
        return;
    }
    let s = &*fb.cbufs[0];
    if s.texture != o.resource
        || s.u.tex.level != o.level
        || s.u.tex.first_layer() != o.layer
        || s.u.tex.last_layer() != o.layer
    {
        return;
    }
    let words = crate::rt_format::clear_words(s.format(), &std::mem::zeroed());
    let mask = ClearMask {
        color: 1,
        depth: false,
        stencil: false,
    };
    if let Some(batch) = ctx.render.batch.as_mut() {
        // Refused (nothing changes) once the batch has draws: then it already holds the target.
        batch.clear_words(mask, &[Some(words)], 1.0, 0);
    }
}

/// For an indexed draw from a buffer object whose indices run past the buffer's end: how many
/// of its index bytes lie inside the buffer.
///
/// # Safety
/// The index buffer, when bound, must be live.
unsafe fn index_overrun(
    info: &sys::pipe_draw_info,
    draw: &sys::pipe_draw_start_count_bias,
) -> Option<usize> {
    if info.index_size == 0 || info.has_user_indices() || info.index.resource.is_null() {
        return None;
    }
    let size = info.index_size as u64;
    let start = draw.start as u64 * size;
    let end = start + draw.count as u64 * size;
    let buffer = (*info.index.resource).width0 as u64;
    (end > buffer).then(|| buffer.saturating_sub(start) as usize)
}

/// Records one draw (or says why it cannot be drawn).
unsafe fn record_draw(
    ctx: &mut Context,
    screen: &Screen,
    info: &sys::pipe_draw_info,
    draw: &sys::pipe_draw_start_count_bias,
) -> Result<(), String> {
    let prim = primitive(info.mode)?;
    // A draw with fewer vertices than one primitive of its type takes, or no instance, draws
    // nothing (GL ES 3.0 §2.8.1: incomplete primitives are ignored), so none of its state is
    // resolved.
    if draw.count < first_primitive_vertices(prim) || info.instance_count == 0 {
        return Ok(());
    }
    if info.start_instance != 0 {
        return Err("a nonzero base instance".into());
    }
    // Robust index fetch: a draw that reads indices past its index buffer's end reads
    // zeros there (GLES robust buffer access: zero or values from within the buffer). The
    // indices in range are copied on the CPU with zeros after them; only this rare draw waits
    // for GPU work that writes the buffer, before the batch is opened.
    let index_overrun = index_overrun(info, draw);
    if index_overrun.is_some() {
        ctx.render.sync_for_cpu(screen, info.index.resource, false);
    }
    // Copies of views' levels from their base level (texture.rs), before the batch opens.
    crate::texture::prepare_base_copies(ctx, screen)?;
    open_batch(ctx, screen)?;
    if let Some(o) = ctx.blit_overwrites {
        start_overwritten(ctx, o);
    }
    let vs_so = ctx.state.vs.as_ref().and_then(|vs| vs.so.as_ref());
    let capture = crate::so::plan(ctx, vs_so, info, draw)?;
    let mut programs = variants::for_draw(ctx, screen, capture.as_ref())?;
    // Each stage's texture/sampler tables (roots 0 and 1 of its root record).
    for stage in [sys::PIPE_SHADER_VERTEX, sys::PIPE_SHADER_FRAGMENT] {
        let tables = crate::texture::stage_tables(ctx, stage)?;
        if tables.is_empty() {
            continue;
        }
        let r = &mut ctx.render;
        let mut w = crate::batch::Writer {
            dev: &screen.bo,
            mem: r.mem.as_mut().unwrap(),
        };
        let args = if stage == sys::PIPE_SHADER_VERTEX {
            &mut programs.vs_args
        } else {
            &mut programs.fs_args
        };
        tables.upload(&mut w, args).map_err(|e| e.to_string())?;
    }
    let (raster, viewport) = raster(ctx);
    let zs = depth_stencil(ctx);
    let indices = if info.index_size == 0 {
        Indices::Direct {
            first: draw.start,
            count: draw.count,
        }
    } else {
        let size = match info.index_size {
            1 => IndexSize::U8,
            2 => IndexSize::U16,
            4 => IndexSize::U32,
            n => return Err(format!("index size {n}")),
        };
        let bytes = info.index_size as u64 * draw.count as u64;
        let va = if let Some(valid) = index_overrun {
            let res = info.index.resource;
            let from = draw.start as usize * info.index_size as usize;
            let mut src = vec![0u8; bytes as usize];
            src[..valid].copy_from_slice(&Resource::get(res).bo().bytes()[from..from + valid]);
            let r = &mut ctx.render;
            let mut w = crate::batch::Writer {
                dev: &screen.bo,
                mem: r.mem.as_mut().unwrap(),
            };
            w.upload(Heap::Usc, &src, 4).map_err(|e| e.to_string())?
        } else if info.has_user_indices() {
            // Client-memory indices: copied into the batch's USC memory (index fetch reads
            // the USC aperture).
            let src = std::slice::from_raw_parts(
                (info.index.user as *const u8).add(draw.start as usize * info.index_size as usize),
                bytes as usize,
            );
            let r = &mut ctx.render;
            let mut w = crate::batch::Writer {
                dev: &screen.bo,
                mem: r.mem.as_mut().unwrap(),
            };
            w.upload(Heap::Usc, src, 4).map_err(|e| e.to_string())?
        } else {
            let res = info.index.resource;
            ctx.render.use_resource(res, false);
            Resource::get(res).bo().va + draw.start as u64 * info.index_size as u64
        };
        Indices::Indexed {
            va,
            size,
            count: draw.count,
            base_vertex: draw.index_bias,
            // An index of this size can never equal a larger restart index (NV_primitive_restart
            // allows any value); the hardware compares the zero-extended index with the
            // comparand agx16-draw masks to the index size, so such a draw has no restart.
            restart: info
                .primitive_restart()
                .then_some(info.restart_index)
                .filter(|&r| r as u64 <= u64::MAX >> (64 - 8 * info.index_size as u32)),
        }
    };
    let occlusion = crate::query::draw_slot(ctx, screen)?;
    let batch = ctx.render.batch.as_mut().unwrap();
    if let Some((base, _)) = occlusion {
        batch.occlusion_base = base;
    }
    batch.draws.push(Draw {
        vs: programs.vs,
        fs: programs.fs,
        vs_args: programs.vs_args,
        fs_args: programs.fs_args,
        primitive: prim,
        indices,
        instances: info.instance_count,
        raster,
        viewport,
        zs,
        occlusion: occlusion.map(|(_, slot)| slot),
    });
    if let Some(c) = capture {
        crate::so::finish(ctx, screen, c);
    }
    Ok(())
}

pub unsafe extern "C" fn draw_vbo(
    pctx: *mut sys::pipe_context,
    info: *const sys::pipe_draw_info,
    _drawid_offset: std::ffi::c_uint,
    indirect: *const sys::pipe_draw_indirect_info,
    draws: *const sys::pipe_draw_start_count_bias,
    num_draws: std::ffi::c_uint,
) {
    crate::ffi::guard("draw_vbo", (), || {
        let ctx = Context::get(pctx);
        let screen = Screen::get(ctx.base.screen);
        if !indirect.is_null() {
            ctx.render.drop_draws(
                num_draws as u64,
                "indirect draws are not supported (argument layout not established on G16)",
            );
            return;
        }
        for i in 0..num_draws as usize {
            if let Err(e) = record_draw(ctx, screen, &*info, &*draws.add(i)) {
                ctx.render.drop_draws(1, &format!("draw not executed: {e}"));
            }
        }
    })
}

pub unsafe extern "C" fn clear(
    pctx: *mut sys::pipe_context,
    buffers: std::ffi::c_uint,
    scissor: *const sys::pipe_scissor_state,
    color: *const sys::pipe_color_union,
    depth: f64,
    stencil: std::ffi::c_uint,
) {
    crate::ffi::guard("clear", (), || {
        let ctx = Context::get(pctx);
        let screen = Screen::get(ctx.base.screen);
        let fb = &ctx.state.framebuffer;
        if let Some(s) = scissor.as_ref() {
            if s.minx() > 0
                || s.miny() > 0
                || s.maxx() < fb.width as u32
                || s.maxy() < fb.height as u32
            {
                ctx.render.drop_draws(
                    0,
                    "scissored clears are not supported (the clear is a whole-render background)",
                );
                return;
            }
        }
        if let Err(e) = open_batch(ctx, screen) {
            ctx.render
                .drop_draws(0, &format!("clear not executed: {e}"));
            return;
        }
        let mask = ClearMask {
            color: (buffers & sys::PIPE_CLEAR_COLOR) >> 2,
            depth: buffers & sys::PIPE_CLEAR_DEPTH != 0,
            stencil: buffers & sys::PIPE_CLEAR_STENCIL != 0,
        };
        // Each target's clear value in its own format (float, integer or sRGB-encoded).
        let fb = &ctx.state.framebuffer;
        let words: Vec<Option<Vec<u32>>> = (0..fb.nr_cbufs as usize)
            .map(|i| {
                fb.cbufs[i]
                    .as_ref()
                    .map(|s| crate::rt_format::clear_words(s.format(), &*color))
            })
            .collect();
        let batch = ctx.render.batch.as_mut().unwrap();
        if !batch.clear_words(mask, &words, depth as f32, stencil as u8) {
            // Draws came first: render them, then clear at the start of a new render.
            ctx.render.flush(&screen.bo, &screen.programs, None);
            if let Err(e) = open_batch(ctx, screen) {
                ctx.render
                    .drop_draws(0, &format!("clear not executed: {e}"));
                return;
            }
            ctx.render.batch.as_mut().unwrap().clear_words(
                mask,
                &words,
                depth as f32,
                stencil as u8,
            );
        }
    })
}

impl Renderer {
    /// The CPU is about to read (or, `write`, change) `res`: submit the open batch if it writes
    /// the resource (or uses it at all, for CPU writes) and wait for renders in flight.
    ///
    /// # Safety
    /// `res` must be a live agx16 resource.
    pub unsafe fn sync_for_cpu(
        &mut self,
        screen: &Screen,
        res: *mut sys::pipe_resource,
        write: bool,
    ) {
        let dev = &screen.bo;
        let Some(bo) = Resource::get(res).bo.as_ref() else {
            return;
        };
        if self.batch.is_some() && self.batch_uses(bo.handle, write) {
            self.flush(dev, &screen.programs, None);
        }
        if self.busy() {
            self.wait(dev);
        }
    }
}

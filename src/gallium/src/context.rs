//! The pipe_context: records state (state.rs, shader.rs), draws and clears into batches
//! (draw.rs, batch.rs) that a flush submits.

use crate::batch::Renderer;
use crate::ffi::guard;
use crate::{draw, shader, state, transfer};
use agx16_mesa_sys as sys;
use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;

/// Mesa sees `base`; `base` must stay first.
#[repr(C)]
pub struct Context {
    pub base: sys::pipe_context,
    pub state: Box<state::State>,
    pub render: Renderer,
    /// Mesa's blitter (blit.rs), made after the hooks it calls are installed.
    pub blitter: *mut sys::blitter_context,
    /// Transform feedback targets and queries.
    pub so: crate::so::StreamOut,
    /// Occlusion queries' slot buffer and the counting query (query.rs).
    pub occlusion: crate::query::OcclusionState,
    /// While the blitter draws a blit that rewrites every pixel of its destination: that
    /// destination (blit.rs `Overwrite`), whose render need not reload it.
    pub blit_overwrites: Option<crate::blit::Overwrite>,
}

impl Context {
    /// # Safety
    /// `ctx` must be a live context made by `create`, used from one thread at a time (Gallium's rule).
    pub unsafe fn get<'a>(ctx: *mut sys::pipe_context) -> &'a mut Context {
        &mut *(ctx as *mut Context)
    }
}

pub unsafe extern "C" fn create(
    screen: *mut sys::pipe_screen,
    _priv: *mut c_void,
    _flags: c_uint,
) -> *mut sys::pipe_context {
    guard("context_create", null_mut(), || {
        let ctx = Box::into_raw(Box::new(Context {
            // SAFETY: pipe_context is plain C data; all-zero means no callbacks.
            base: std::mem::zeroed(),
            state: state::State::new(),
            render: Renderer::new(),
            blitter: null_mut(),
            blit_overwrites: None,
            so: Default::default(),
            occlusion: Default::default(),
        }));
        let base = &mut (*ctx).base;
        base.screen = screen;
        base.priv_ = _priv;
        install_hooks(base);
        // Mesa's upload managers; they allocate buffers through resource_create on first use.
        base.stream_uploader = sys::u_upload_create_default(base);
        base.const_uploader = base.stream_uploader;
        (*ctx).blitter = sys::util_blitter_create(base);
        ctx as *mut sys::pipe_context
    })
}

fn install_hooks(c: &mut sys::pipe_context) {
    use state::*;
    c.destroy = Some(destroy);
    c.flush = Some(flush);
    c.draw_vbo = Some(draw::draw_vbo);
    c.clear = Some(draw::clear);
    c.blit = Some(transfer::blit);
    c.resource_copy_region = Some(transfer::resource_copy_region);
    c.buffer_map = Some(transfer::map);
    c.texture_map = Some(transfer::map);
    c.buffer_unmap = Some(transfer::unmap);
    c.texture_unmap = Some(transfer::unmap);
    c.transfer_flush_region = Some(transfer::transfer_flush_region);
    c.buffer_subdata = Some(transfer::buffer_subdata);
    c.texture_subdata = Some(transfer::texture_subdata);
    c.create_sampler_view = Some(create_sampler_view);
    c.generate_mipmap = Some(crate::texture::generate_mipmap);
    c.sampler_view_destroy = Some(sampler_view_destroy);
    c.create_surface = Some(create_surface);
    c.surface_destroy = Some(surface_destroy);

    c.create_vs_state = Some(shader::create_vs_state);
    c.bind_vs_state = Some(shader::bind_vs_state);
    c.delete_vs_state = Some(shader::delete_shader_state);
    c.create_fs_state = Some(shader::create_fs_state);
    c.bind_fs_state = Some(shader::bind_fs_state);
    c.delete_fs_state = Some(shader::delete_shader_state);

    c.create_blend_state = Some(create_blend_state);
    c.bind_blend_state = Some(bind_blend_state);
    c.delete_blend_state = Some(delete_blend_state);
    c.create_rasterizer_state = Some(create_rasterizer_state);
    c.bind_rasterizer_state = Some(bind_rasterizer_state);
    c.delete_rasterizer_state = Some(delete_rasterizer_state);
    c.create_depth_stencil_alpha_state = Some(create_depth_stencil_alpha_state);
    c.bind_depth_stencil_alpha_state = Some(bind_depth_stencil_alpha_state);
    c.delete_depth_stencil_alpha_state = Some(delete_depth_stencil_alpha_state);
    c.create_sampler_state = Some(create_sampler_state);
    c.bind_sampler_states = Some(bind_sampler_states);
    c.delete_sampler_state = Some(delete_sampler_state);
    c.create_vertex_elements_state = Some(create_vertex_elements_state);
    c.bind_vertex_elements_state = Some(bind_vertex_elements_state);
    c.delete_vertex_elements_state = Some(delete_vertex_elements_state);

    c.set_blend_color = Some(set_blend_color);
    c.set_stencil_ref = Some(set_stencil_ref);
    c.set_sample_mask = Some(set_sample_mask);
    c.set_min_samples = Some(set_min_samples);
    c.set_clip_state = Some(set_clip_state);
    c.set_polygon_stipple = Some(set_polygon_stipple);
    c.set_scissor_states = Some(set_scissor_states);
    c.set_viewport_states = Some(set_viewport_states);
    c.set_framebuffer_state = Some(set_framebuffer_state);
    c.set_constant_buffer = Some(set_constant_buffer);
    c.set_sampler_views = Some(set_sampler_views);
    c.set_vertex_buffers = Some(set_vertex_buffers);
    c.flush_resource = Some(flush_resource);
    c.set_debug_callback = Some(set_debug_callback);
    c.get_device_reset_status = Some(get_device_reset_status);
    c.set_device_reset_callback = Some(set_device_reset_callback);
    crate::so::install_hooks(c);
    crate::query::install_hooks(c);
}

/// Called by the frontends before a resource is shared or presented (Mesa's DRI
/// `dri2_flush_frontbuffer` calls it unconditionally when a context that drew into a window-system
/// surface is unbound). agx16 images are never compressed and never multisampled behind the
/// frontend's back, so there is nothing to decompress or resolve: the memory already holds the
/// image, and the pending render is submitted by the flush the frontend issues next.
unsafe extern "C" fn flush_resource(_ctx: *mut sys::pipe_context, _res: *mut sys::pipe_resource) {}

/// GL_KHR_robustness `glGetGraphicsResetStatus` (st calls it only for contexts made with a
/// reset notification strategy): a render of this context that the kernel failed since the
/// last query is a guilty reset. Renders that completed meanwhile are collected first, so a
/// failure is seen once its fence has signalled (after glFinish, for instance).
unsafe extern "C" fn get_device_reset_status(
    ctx: *mut sys::pipe_context,
) -> sys::pipe_reset_status {
    guard("get_device_reset_status", sys::PIPE_NO_RESET, || {
        let ctx = Context::get(ctx);
        let screen = crate::screen::Screen::get(ctx.base.screen);
        // A failure found here is this query's answer (st calls its own callback with it),
        // so the callback is not called twice for it.
        let callback = ctx.render.reset_callback.take();
        ctx.render.retire_completed(&screen.bo);
        ctx.render.reset_callback = callback;
        if std::mem::take(&mut ctx.render.reset_pending) {
            sys::PIPE_GUILTY_CONTEXT_RESET
        } else {
            sys::PIPE_NO_RESET
        }
    })
}

/// st installs its callback for LOSE_CONTEXT_ON_RESET contexts; a failed render of this
/// context calls it (batch.rs `check_completed`), which makes the context lost.
unsafe extern "C" fn set_device_reset_callback(
    ctx: *mut sys::pipe_context,
    cb: *const sys::pipe_device_reset_callback,
) {
    guard("set_device_reset_callback", (), || {
        Context::get(ctx).render.reset_callback =
            cb.as_ref().copied().filter(|c| c.reset.is_some());
    })
}

/// KHR_debug: Mesa hands over its callback when the application enables GL_DEBUG_OUTPUT (NULL
/// when it disables it); work the driver drops is reported through it (batch.rs `drop_draws`).
unsafe extern "C" fn set_debug_callback(
    ctx: *mut sys::pipe_context,
    cb: *const sys::util_debug_callback,
) {
    guard("set_debug_callback", (), || {
        Context::get(ctx).render.debug = if cb.is_null() {
            std::mem::zeroed()
        } else {
            *cb
        };
    })
}

unsafe extern "C" fn destroy(ctx: *mut sys::pipe_context) {
    guard("context destroy", (), || {
        let mut ctx = Box::from_raw(ctx as *mut Context);
        let screen = crate::screen::Screen::get(ctx.base.screen);
        if !ctx.blitter.is_null() {
            sys::util_blitter_destroy(ctx.blitter);
        }
        ctx.render.destroy(&screen.bo);
        ctx.occlusion.release(&screen.bo);
        if ctx.render.dropped_draws > 0 {
            eprintln!(
                "agx16: {} draw call(s) were not executed ({} render(s) submitted; reasons above)",
                ctx.render.dropped_draws, ctx.render.submitted
            );
        }
        ctx.state.release();
        ctx.so.release();
        if !ctx.base.stream_uploader.is_null() {
            sys::u_upload_destroy(ctx.base.stream_uploader);
        }
    })
}

/// Submits the open batch. A fence asked for covers it (an out-sync of its SUBMIT); without a
/// submission the fence is a signalled syncobj, after waiting for renders already in flight.
unsafe extern "C" fn flush(
    ctx: *mut sys::pipe_context,
    fence: *mut *mut sys::pipe_fence_handle,
    _flags: c_uint,
) {
    guard("flush", (), || {
        let ctx = Context::get(ctx);
        let screen = crate::screen::Screen::get(ctx.base.screen);
        let uapi = screen.bo.uapi();
        ctx.render.retire_completed(&screen.bo);
        if fence.is_null() {
            ctx.render.flush(&screen.bo, &screen.programs, None);
            return;
        }
        *fence = null_mut();
        let syncobj = match crate::fence::syncobj_create(uapi, false) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("agx16: flush: SYNCOBJ_CREATE: {e}");
                ctx.render.flush(&screen.bo, &screen.programs, None);
                return;
            }
        };
        if ctx
            .render
            .flush(&screen.bo, &screen.programs, Some(syncobj))
        {
            *fence = crate::fence::Fence::from_syncobj(syncobj) as *mut sys::pipe_fence_handle;
            return;
        }
        crate::fence::syncobj_destroy(uapi, syncobj);
        ctx.render.wait(&screen.bo);
        match crate::fence::Fence::signalled(uapi) {
            Ok(f) => *fence = f as *mut sys::pipe_fence_handle,
            Err(e) => eprintln!("agx16: flush: SYNCOBJ_CREATE: {e}"),
        }
    })
}

/// A sampler view carries its G16 texture descriptor, packed here (texture.rs); a view the
/// model cannot sample keeps the reason, reported by the draws that use it.
unsafe extern "C" fn create_sampler_view(
    ctx: *mut sys::pipe_context,
    res: *mut sys::pipe_resource,
    templ: *const sys::pipe_sampler_view,
) -> *mut sys::pipe_sampler_view {
    guard("create_sampler_view", null_mut(), || {
        let mut base = *templ;
        base.texture = null_mut();
        sys::pipe_reference_init(&mut base.__bindgen_anon_1.reference, 1);
        sys::pipe_resource_reference(&mut base.texture, res);
        base.context = ctx;
        let (desc, lod_base) = match crate::texture::texture_descriptor(&base) {
            Ok((d, b)) => (Ok(d), b),
            Err(e) => (Err(e), 0),
        };
        let view = Box::into_raw(Box::new(crate::texture::SamplerView {
            base,
            desc,
            lod_base,
            base_copy: None,
            base_copy_active: false,
        }));
        view as *mut sys::pipe_sampler_view
    })
}

unsafe extern "C" fn sampler_view_destroy(
    _: *mut sys::pipe_context,
    view: *mut sys::pipe_sampler_view,
) {
    guard("sampler_view_destroy", (), || {
        sys::pipe_resource_reference(&mut (*view).texture, null_mut());
        let mut view = Box::from_raw(view as *mut crate::texture::SamplerView);
        if let Some(mut copy) = view.base_copy.take() {
            sys::pipe_resource_reference(&mut copy.res, null_mut());
        }
    })
}

/// A surface (render target / depth view of a resource level) is CPU state for framebuffer binding.
unsafe extern "C" fn create_surface(
    ctx: *mut sys::pipe_context,
    res: *mut sys::pipe_resource,
    templ: *const sys::pipe_surface,
) -> *mut sys::pipe_surface {
    guard("create_surface", null_mut(), || {
        let surf = Box::into_raw(Box::new(*templ));
        let level = (*templ).u.tex.level;
        (*surf).texture = null_mut();
        sys::pipe_reference_init(&mut (*surf).reference, 1);
        sys::pipe_resource_reference(&mut (*surf).texture, res);
        (*surf).context = ctx;
        if (*res).target() == sys::PIPE_BUFFER {
            (*surf).width = (*res).width0 as u16;
            (*surf).height = 1;
        } else {
            (*surf).width = ((*res).width0 >> level).max(1) as u16;
            (*surf).height = (((*res).height0 as u32) >> level).max(1) as u16;
        }
        surf
    })
}

unsafe extern "C" fn surface_destroy(_: *mut sys::pipe_context, surf: *mut sys::pipe_surface) {
    guard("surface_destroy", (), || {
        sys::pipe_resource_reference(&mut (*surf).texture, null_mut());
        drop(Box::from_raw(surf));
    })
}

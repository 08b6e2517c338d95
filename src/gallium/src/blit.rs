//! Blits the CPU path cannot do (scaled, filtered, flipped, scissored, partial-mask, format-converting
//! ones) as draws: Mesa's util_blitter builds the shaders and state, the ordinary draw path renders.
//! The blitter binds its own state, so everything it may overwrite is saved first and restored after.

use crate::context::Context;
use agx16_mesa_sys as sys;
use std::ptr::null_mut;

const FRAGMENT: usize = sys::PIPE_SHADER_FRAGMENT as usize;

/// Number of leading slots up to the last bound one.
fn bound_count<T>(slots: &[*const T]) -> u32 {
    slots
        .iter()
        .rposition(|p| !p.is_null())
        .map_or(0, |i| i as u32 + 1)
}

/// Hands every piece of state the blitter may change to it, to restore after the blit.
///
/// # Safety
/// `ctx` must own a live blitter.
unsafe fn save_state(ctx: &mut Context) {
    let b = ctx.blitter;
    let s = &mut *ctx.state;
    sys::util_blitter_save_blend(b, s.blend as *mut _);
    sys::util_blitter_save_depth_stencil_alpha(b, s.depth_stencil_alpha as *mut _);
    sys::util_blitter_save_rasterizer(b, s.rasterizer as *mut _);
    sys::util_blitter_save_vertex_elements(b, s.vertex_elements as *mut _);
    sys::util_blitter_save_vertex_shader(b, s.vs as *mut _);
    sys::util_blitter_save_fragment_shader(b, s.fs as *mut _);
    sys::util_blitter_save_stencil_ref(b, &s.stencil_ref);
    sys::util_blitter_save_viewport(b, &mut s.viewport);
    sys::util_blitter_save_scissor(b, &mut s.scissor);
    sys::util_blitter_save_framebuffer(b, &s.framebuffer);
    sys::util_blitter_save_sample_mask(b, s.sample_mask, s.min_samples);
    let samplers = &mut s.samplers[FRAGMENT];
    sys::util_blitter_save_fragment_sampler_states(
        b,
        bound_count(samplers),
        samplers.as_mut_ptr() as *mut *mut std::ffi::c_void,
    );
    let views = &mut s.sampler_views[FRAGMENT];
    let n = bound_count(&views.map(|v| v as *const sys::pipe_sampler_view));
    sys::util_blitter_save_fragment_sampler_views(b, n, views.as_mut_ptr());
    sys::util_blitter_save_fragment_constant_buffer_slot(
        b,
        s.constant_buffers[FRAGMENT].as_mut_ptr(),
    );
    let vbs = 32 - s.vertex_buffer_mask.leading_zeros();
    sys::util_blitter_save_vertex_buffers(b, s.vertex_buffers.as_mut_ptr(), vbs);
    // The bound transform feedback targets: the blit unbinds them and rebinds them appending
    // (offset -1) where the captures left off (so.rs).
    let (n, targets) = ctx.so.bound();
    sys::util_blitter_save_so_targets(b, n, targets, sys::MESA_PRIM_POINTS);
    sys::util_blitter_save_render_condition(b, null_mut(), false, 0);
}

/// Renders `info` with the blitter; an error when the blitter cannot do it for these formats.
///
/// # Safety
/// `ctx` must be a live agx16 context and `info`'s resources live.
pub unsafe fn gpu_blit(
    ctx: *mut sys::pipe_context,
    info: &sys::pipe_blit_info,
) -> Result<(), String> {
    let c = Context::get(ctx);
    if c.blitter.is_null() {
        return Err("the context has no blitter".into());
    }
    if !sys::util_blitter_is_blit_supported(c.blitter, info) {
        return Err(format!(
            "the blitter cannot blit format {} to {} (mask {:#x}, filter {})",
            info.src.format, info.dst.format, info.mask, info.filter
        ));
    }
    save_state(c);
    c.blit_overwrites = Overwrite::of(info);
    sys::util_blitter_blit(c.blitter, info, null_mut());
    c.blit_overwrites = None;
    Ok(())
}

/// The destination of a blit that writes every pixel of one layer of one level: all colour
/// channels, the whole level (no scissor, window rectangles, render condition or blending).
/// The blitter draws one rectangle over exactly the destination box, so the render it starts
/// need not reload the target's earlier contents (`draw.rs` starts it from a clear instead).
/// glReadPixels of a window-system surface is such a blit, into a fresh linear staging
/// texture, on every read-back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overwrite {
    pub resource: *mut sys::pipe_resource,
    pub level: u32,
    pub layer: u32,
}

impl Overwrite {
    /// # Safety
    /// `info.dst.resource` must be live.
    unsafe fn of(info: &sys::pipe_blit_info) -> Option<Overwrite> {
        let d = &info.dst;
        let r = d.resource.as_ref()?;
        let minify = |v: u32| (v >> d.level).max(1);
        let (w, h) = (minify(r.width0), minify(r.height0 as u32));
        let whole = d.box_.x == 0
            && d.box_.y == 0
            && d.box_.width == w as i32
            && d.box_.height == h as i32
            && d.box_.depth == 1;
        let plain = info.mask == sys::PIPE_MASK_RGBA
            && !info.scissor_enable
            && info.num_window_rectangles == 0
            && !info.render_condition_enable
            && !info.alpha_blend
            && r.nr_samples <= 1;
        (whole && plain).then_some(Overwrite {
            resource: d.resource,
            level: d.level,
            layer: d.box_.z as u32,
        })
    }
}

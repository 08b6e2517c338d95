//! Gallium state objects and setters: recorded in the context for the draw path to encode. Reference
//! counts of resources and views are kept with Mesa's own helpers.

use crate::context::Context;
use crate::ffi::guard;
use crate::shader::ShaderCso;
use crate::texture::{sampler_descriptor, SamplerCso};
use agx16_mesa_sys as sys;
use std::ffi::{c_uint, c_void};
use std::ptr::{null, null_mut};

const STAGES: usize = sys::PIPE_SHADER_TYPES as usize;
const MAX_SAMPLERS: usize = sys::PIPE_MAX_SAMPLERS as usize;
const MAX_VIEWS: usize = sys::PIPE_MAX_SHADER_SAMPLER_VIEWS as usize;
const MAX_CONST_BUFFERS: usize = sys::PIPE_MAX_CONSTANT_BUFFERS as usize;
const MAX_VERTEX_BUFFERS: usize = sys::PIPE_MAX_ATTRIBS as usize;

/// Everything bound or set on a context.
pub struct State {
    pub blend: *const sys::pipe_blend_state,
    pub rasterizer: *const sys::pipe_rasterizer_state,
    pub depth_stencil_alpha: *const sys::pipe_depth_stencil_alpha_state,
    pub vertex_elements: *const VertexElements,
    pub vs: *const ShaderCso,
    pub fs: *const ShaderCso,
    pub samplers: [[*const SamplerCso; MAX_SAMPLERS]; STAGES],
    pub sampler_views: [[*mut sys::pipe_sampler_view; MAX_VIEWS]; STAGES],
    pub constant_buffers: [[sys::pipe_constant_buffer; MAX_CONST_BUFFERS]; STAGES],
    pub vertex_buffers: [sys::pipe_vertex_buffer; MAX_VERTEX_BUFFERS],
    pub vertex_buffer_mask: u32,
    pub framebuffer: sys::pipe_framebuffer_state,
    pub blend_color: sys::pipe_blend_color,
    pub stencil_ref: sys::pipe_stencil_ref,
    pub sample_mask: u32,
    pub min_samples: u32,
    pub clip: sys::pipe_clip_state,
    pub polygon_stipple: sys::pipe_poly_stipple,
    pub scissor: sys::pipe_scissor_state,
    pub viewport: sys::pipe_viewport_state,
}

impl State {
    pub fn new() -> Box<State> {
        // SAFETY: every field is a C struct or a raw pointer, for which all-zero means "unset".
        let mut s: Box<State> = unsafe { Box::new(std::mem::zeroed()) };
        // Every sample until the frontend sets a mask (GL's initial SAMPLE_MASK_VALUE: all).
        s.sample_mask = !0;
        s
    }

    /// Drops every reference the state holds (context destruction).
    ///
    /// # Safety
    /// The references must be ones taken by the setters below.
    pub unsafe fn release(&mut self) {
        for stage in 0..STAGES {
            for view in self.sampler_views[stage].iter_mut() {
                sys::pipe_sampler_view_reference(view, null_mut());
            }
            for cb in self.constant_buffers[stage].iter_mut() {
                sys::pipe_resource_reference(&mut cb.buffer, null_mut());
            }
        }
        sys::util_set_vertex_buffers_mask(
            self.vertex_buffers.as_mut_ptr(),
            &mut self.vertex_buffer_mask,
            null(),
            0,
            true,
        );
        sys::util_unreference_framebuffer_state(&mut self.framebuffer);
    }
}

/// A vertex-elements CSO: the element array Mesa passed.
#[allow(dead_code)] // read by the draw path, which is not written yet.
pub struct VertexElements {
    pub elements: Vec<sys::pipe_vertex_element>,
}

fn stage_index(stage: sys::pipe_shader_type) -> usize {
    let index = stage as usize;
    assert!(index < STAGES, "shader stage {stage} out of range");
    index
}

/// create/bind/delete for CSOs that are a copy of one C struct.
macro_rules! plain_cso {
    ($create:ident, $bind:ident, $delete:ident, $ty:ty, $field:ident) => {
        pub unsafe extern "C" fn $create(
            _: *mut sys::pipe_context,
            state: *const $ty,
        ) -> *mut c_void {
            guard(stringify!($create), null_mut(), || {
                Box::into_raw(Box::new(*state)) as *mut c_void
            })
        }
        pub unsafe extern "C" fn $bind(ctx: *mut sys::pipe_context, cso: *mut c_void) {
            guard(stringify!($bind), (), || {
                Context::get(ctx).state.$field = cso as *const $ty
            })
        }
        pub unsafe extern "C" fn $delete(_: *mut sys::pipe_context, cso: *mut c_void) {
            guard(stringify!($delete), (), || {
                if !cso.is_null() {
                    drop(Box::from_raw(cso as *mut $ty))
                }
            })
        }
    };
}

plain_cso!(
    create_blend_state,
    bind_blend_state,
    delete_blend_state,
    sys::pipe_blend_state,
    blend
);
plain_cso!(
    create_rasterizer_state,
    bind_rasterizer_state,
    delete_rasterizer_state,
    sys::pipe_rasterizer_state,
    rasterizer
);
plain_cso!(
    create_depth_stencil_alpha_state,
    bind_depth_stencil_alpha_state,
    delete_depth_stencil_alpha_state,
    sys::pipe_depth_stencil_alpha_state,
    depth_stencil_alpha
);

pub unsafe extern "C" fn create_sampler_state(
    _: *mut sys::pipe_context,
    state: *const sys::pipe_sampler_state,
) -> *mut c_void {
    guard("create_sampler_state", null_mut(), || {
        let desc = sampler_descriptor(&*state);
        let compare_func = ((*state).compare_mode() != sys::PIPE_TEX_COMPARE_NONE)
            .then(|| (*state).compare_func());
        let lod_range = ((*state).min_lod, (*state).max_lod);
        Box::into_raw(Box::new(SamplerCso {
            desc,
            compare_func,
            lod_range,
        })) as *mut c_void
    })
}

pub unsafe extern "C" fn bind_sampler_states(
    ctx: *mut sys::pipe_context,
    stage: sys::pipe_shader_type,
    start: c_uint,
    count: c_uint,
    samplers: *mut *mut c_void,
) {
    guard("bind_sampler_states", (), || {
        let slots = &mut Context::get(ctx).state.samplers[stage_index(stage)];
        for i in 0..count as usize {
            let cso = if samplers.is_null() {
                null_mut()
            } else {
                *samplers.add(i)
            };
            slots[start as usize + i] = cso as *const SamplerCso;
        }
    })
}

pub unsafe extern "C" fn delete_sampler_state(_: *mut sys::pipe_context, cso: *mut c_void) {
    guard("delete_sampler_state", (), || {
        if !cso.is_null() {
            drop(Box::from_raw(cso as *mut SamplerCso))
        }
    })
}

pub unsafe extern "C" fn create_vertex_elements_state(
    _: *mut sys::pipe_context,
    count: c_uint,
    elements: *const sys::pipe_vertex_element,
) -> *mut c_void {
    guard("create_vertex_elements_state", null_mut(), || {
        let elements = if count == 0 {
            Vec::new()
        } else {
            std::slice::from_raw_parts(elements, count as usize).to_vec()
        };
        Box::into_raw(Box::new(VertexElements { elements })) as *mut c_void
    })
}

pub unsafe extern "C" fn bind_vertex_elements_state(ctx: *mut sys::pipe_context, cso: *mut c_void) {
    guard("bind_vertex_elements_state", (), || {
        Context::get(ctx).state.vertex_elements = cso as *const VertexElements
    })
}

pub unsafe extern "C" fn delete_vertex_elements_state(_: *mut sys::pipe_context, cso: *mut c_void) {
    guard("delete_vertex_elements_state", (), || {
        if !cso.is_null() {
            drop(Box::from_raw(cso as *mut VertexElements))
        }
    })
}

pub unsafe extern "C" fn set_blend_color(
    ctx: *mut sys::pipe_context,
    color: *const sys::pipe_blend_color,
) {
    guard("set_blend_color", (), || {
        Context::get(ctx).state.blend_color = *color
    })
}

pub unsafe extern "C" fn set_stencil_ref(
    ctx: *mut sys::pipe_context,
    stencil_ref: sys::pipe_stencil_ref,
) {
    guard("set_stencil_ref", (), || {
        Context::get(ctx).state.stencil_ref = stencil_ref
    })
}

pub unsafe extern "C" fn set_sample_mask(ctx: *mut sys::pipe_context, mask: c_uint) {
    guard("set_sample_mask", (), || {
        Context::get(ctx).state.sample_mask = mask
    })
}

pub unsafe extern "C" fn set_min_samples(ctx: *mut sys::pipe_context, min_samples: c_uint) {
    guard("set_min_samples", (), || {
        Context::get(ctx).state.min_samples = min_samples
    })
}

pub unsafe extern "C" fn set_clip_state(
    ctx: *mut sys::pipe_context,
    clip: *const sys::pipe_clip_state,
) {
    guard("set_clip_state", (), || {
        Context::get(ctx).state.clip = *clip
    })
}

pub unsafe extern "C" fn set_polygon_stipple(
    ctx: *mut sys::pipe_context,
    stipple: *const sys::pipe_poly_stipple,
) {
    guard("set_polygon_stipple", (), || {
        Context::get(ctx).state.polygon_stipple = *stipple
    })
}

pub unsafe extern "C" fn set_scissor_states(
    ctx: *mut sys::pipe_context,
    start: c_uint,
    count: c_uint,
    scissors: *const sys::pipe_scissor_state,
) {
    // One viewport/scissor (caps.max_viewports = 1).
    guard("set_scissor_states", (), || {
        if start == 0 && count >= 1 {
            Context::get(ctx).state.scissor = *scissors
        }
    })
}

pub unsafe extern "C" fn set_viewport_states(
    ctx: *mut sys::pipe_context,
    start: c_uint,
    count: c_uint,
    viewports: *const sys::pipe_viewport_state,
) {
    guard("set_viewport_states", (), || {
        if start == 0 && count >= 1 {
            Context::get(ctx).state.viewport = *viewports
        }
    })
}

pub unsafe extern "C" fn set_framebuffer_state(
    ctx: *mut sys::pipe_context,
    fb: *const sys::pipe_framebuffer_state,
) {
    guard("set_framebuffer_state", (), || {
        sys::util_copy_framebuffer_state(&mut Context::get(ctx).state.framebuffer, fb)
    })
}

pub unsafe extern "C" fn set_constant_buffer(
    ctx: *mut sys::pipe_context,
    stage: sys::pipe_shader_type,
    index: c_uint,
    take_ownership: bool,
    buf: *const sys::pipe_constant_buffer,
) {
    guard("set_constant_buffer", (), || {
        let slot =
            &mut Context::get(ctx).state.constant_buffers[stage_index(stage)][index as usize];
        if buf.is_null() {
            sys::pipe_resource_reference(&mut slot.buffer, null_mut());
            *slot = std::mem::zeroed();
            return;
        }
        if take_ownership {
            sys::pipe_resource_reference(&mut slot.buffer, null_mut());
            slot.buffer = (*buf).buffer;
        } else {
            sys::pipe_resource_reference(&mut slot.buffer, (*buf).buffer);
        }
        slot.buffer_offset = (*buf).buffer_offset;
        slot.buffer_size = (*buf).buffer_size;
        slot.user_buffer = (*buf).user_buffer;
    })
}

pub unsafe extern "C" fn set_sampler_views(
    ctx: *mut sys::pipe_context,
    stage: sys::pipe_shader_type,
    start: c_uint,
    count: c_uint,
    unbind_trailing: c_uint,
    take_ownership: bool,
    views: *mut *mut sys::pipe_sampler_view,
) {
    guard("set_sampler_views", (), || {
        let slots = &mut Context::get(ctx).state.sampler_views[stage_index(stage)];
        for i in 0..count as usize {
            let slot = &mut slots[start as usize + i];
            let view = if views.is_null() {
                null_mut()
            } else {
                *views.add(i)
            };
            if take_ownership {
                sys::pipe_sampler_view_reference(slot, null_mut());
                *slot = view;
            } else {
                sys::pipe_sampler_view_reference(slot, view);
            }
        }
        for i in 0..unbind_trailing as usize {
            sys::pipe_sampler_view_reference(&mut slots[(start + count) as usize + i], null_mut());
        }
    })
}

pub unsafe extern "C" fn set_vertex_buffers(
    ctx: *mut sys::pipe_context,
    count: c_uint,
    buffers: *const sys::pipe_vertex_buffer,
) {
    // Gallium hands over the buffer references (take_ownership).
    guard("set_vertex_buffers", (), || {
        let state = &mut Context::get(ctx).state;
        sys::util_set_vertex_buffers_mask(
            state.vertex_buffers.as_mut_ptr(),
            &mut state.vertex_buffer_mask,
            buffers,
            count,
            true,
        )
    })
}

//! The pipe_screen: one per opened M4 render node.

use crate::device::{DeviceError, RenderNode};
use crate::ffi::{guard, unimplemented};
use crate::{caps, context, formats, shader};
use agx16_kernel::uapi::asahi::ParamsGlobal;
use agx16_mesa_sys as sys;
use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::ptr::null_mut;

/// Mesa sees `base`; the rest is ours. `base` must stay first (Mesa's pointer is our pointer).
#[repr(C)]
pub struct Screen {
    pub base: sys::pipe_screen,
    pub node: RenderNode,
    pub params: ParamsGlobal,
    name: CString,
    nir_options: &'static sys::nir_shader_compiler_options,
}

const VENDOR: &std::ffi::CStr = c"agx16";
const DEVICE_VENDOR: &std::ffi::CStr = c"Apple";

impl Screen {
    /// # Safety
    /// `screen` must be a pipe_screen created by `agx16_drm_screen_create` and not yet destroyed.
    pub unsafe fn get<'a>(screen: *mut sys::pipe_screen) -> &'a Screen {
        &*(screen as *const Screen)
    }

    fn create(fd: c_int) -> Result<*mut sys::pipe_screen, DeviceError> {
        let node = RenderNode::new(fd);
        let params = node.identify()?;
        let name = CString::new(format!(
            "Apple M4 (G16{}) agx16, {} cores",
            char::from_u32(params.gpu_variant).unwrap_or('?'),
            params.num_clusters_total * params.num_cores_per_cluster
        ))
        .expect("no NUL in the renderer name");
        let screen = Box::new(Screen {
            // SAFETY: pipe_screen is plain C data; all-zero is "no callbacks, zero caps".
            base: unsafe { std::mem::zeroed() },
            node,
            params,
            name,
            nir_options: shader::nir_options(),
        });
        let screen = Box::into_raw(screen);
        // SAFETY: `screen` was just allocated and is exclusively ours until returned.
        unsafe {
            let base = &mut (*screen).base;
            base.destroy = Some(destroy);
            base.get_name = Some(get_name);
            base.get_vendor = Some(get_vendor);
            base.get_device_vendor = Some(get_device_vendor);
            base.get_screen_fd = Some(get_screen_fd);
            base.get_shader_param = Some(get_shader_param);
            base.get_compute_param = Some(get_compute_param);
            base.get_compiler_options = Some(get_compiler_options);
            base.is_format_supported = Some(is_format_supported);
            base.context_create = Some(context::create);
            base.resource_create = Some(resource_create);
            base.resource_destroy = Some(resource_destroy);
            base.fence_reference = Some(fence_reference);
            base.fence_finish = Some(fence_finish);
            caps::init_screen_caps(&mut (*screen).base);
        }
        Ok(screen as *mut sys::pipe_screen)
    }
}

/// Mesa's entry into agx16 (see ci/mesa-agx16.patch, drm_helper.h): a screen for an asahi render node.
#[no_mangle]
pub extern "C" fn agx16_drm_screen_create(
    fd: c_int,
    _config: *const sys::pipe_screen_config,
) -> *mut sys::pipe_screen {
    guard("screen creation", null_mut(), || match Screen::create(fd) {
        Ok(screen) => screen,
        Err(e) => {
            eprintln!("agx16: no screen on render node fd {fd}: {e}");
            null_mut()
        }
    })
}

unsafe extern "C" fn destroy(screen: *mut sys::pipe_screen) {
    guard("screen destroy", (), || {
        drop(Box::from_raw(screen as *mut Screen))
    })
}

unsafe extern "C" fn get_name(screen: *mut sys::pipe_screen) -> *const c_char {
    Screen::get(screen).name.as_ptr()
}

unsafe extern "C" fn get_vendor(_: *mut sys::pipe_screen) -> *const c_char {
    VENDOR.as_ptr()
}

unsafe extern "C" fn get_device_vendor(_: *mut sys::pipe_screen) -> *const c_char {
    DEVICE_VENDOR.as_ptr()
}

unsafe extern "C" fn get_screen_fd(screen: *mut sys::pipe_screen) -> c_int {
    Screen::get(screen).node.raw_fd()
}

unsafe extern "C" fn get_shader_param(
    _: *mut sys::pipe_screen,
    stage: sys::pipe_shader_type,
    param: sys::pipe_shader_cap,
) -> c_int {
    caps::shader_param(stage, param)
}

/// Compute is not implemented: every compute parameter is 0.
unsafe extern "C" fn get_compute_param(
    _: *mut sys::pipe_screen,
    _: sys::pipe_shader_ir,
    _: sys::pipe_compute_cap,
    _: *mut c_void,
) -> c_int {
    0
}

unsafe extern "C" fn get_compiler_options(
    screen: *mut sys::pipe_screen,
    _: sys::pipe_shader_ir,
    _: sys::pipe_shader_type,
) -> *const c_void {
    Screen::get(screen).nir_options as *const _ as *const c_void
}

unsafe extern "C" fn is_format_supported(
    _: *mut sys::pipe_screen,
    format: sys::pipe_format,
    target: sys::pipe_texture_target,
    sample_count: c_uint,
    _storage_sample_count: c_uint,
    usage: c_uint,
) -> bool {
    formats::is_supported(format, target, sample_count, usage)
}

unsafe extern "C" fn resource_create(
    _: *mut sys::pipe_screen,
    _: *const sys::pipe_resource,
) -> *mut sys::pipe_resource {
    unimplemented("resource_create (GPU memory for buffers and textures)");
    null_mut()
}

unsafe extern "C" fn resource_destroy(_: *mut sys::pipe_screen, _: *mut sys::pipe_resource) {
    // resource_create never succeeds yet, so Mesa holds no agx16 resources to destroy.
    unimplemented("resource_destroy");
}

/// No GPU work is ever submitted yet, so the only fence is "none" (NULL), which is always signalled.
unsafe extern "C" fn fence_reference(
    _: *mut sys::pipe_screen,
    dst: *mut *mut sys::pipe_fence_handle,
    _src: *mut sys::pipe_fence_handle,
) {
    if !dst.is_null() {
        *dst = null_mut();
    }
}

unsafe extern "C" fn fence_finish(
    _: *mut sys::pipe_screen,
    _: *mut sys::pipe_context,
    _: *mut sys::pipe_fence_handle,
    _: u64,
) -> bool {
    true
}

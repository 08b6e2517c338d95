//! The pipe_screen: one per opened M4 render node.

use crate::bo::{BoDevice, BoError, NodeUapi};
use crate::device::{DeviceError, RenderNode};
use crate::ffi::guard;
use crate::{caps, context, debug, fence, formats, resource, shader};
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
    /// GPU memory: the VM, VA heaps and BOs.
    pub bo: BoDevice,
    /// Compiled programs and the entry arena.
    pub programs: std::sync::Mutex<crate::batch::ProgramStore>,
    name: CString,
    nir_options: &'static sys::nir_shader_compiler_options,
    /// Mesa's shader cache for this driver build: GL program binaries (`glGetProgramBinary`) and
    /// the on-disk NIR cache go through it. Null when Mesa could not create one.
    disk_cache: *mut sys::disk_cache,
}

const VENDOR: &std::ffi::CStr = c"agx16";
const DEVICE_VENDOR: &std::ffi::CStr = c"Apple";

impl Screen {
    /// # Safety
    /// `screen` must be a pipe_screen created by `agx16_drm_screen_create` and not yet destroyed.
    pub unsafe fn get<'a>(screen: *mut sys::pipe_screen) -> &'a Screen {
        &*(screen as *const Screen)
    }

    /// A screen over an in-process kernel, without Mesa's pipe loader (unit tests).
    #[cfg(test)]
    pub fn for_tests(bo: BoDevice, params: ParamsGlobal) -> Box<Screen> {
        let mut s = Box::new(Screen {
            // SAFETY: plain C data.
            base: unsafe { std::mem::zeroed() },
            node: RenderNode::new(-1),
            params,
            bo,
            programs: std::sync::Mutex::new(crate::batch::ProgramStore::new()),
            name: CString::default(),
            nir_options: shader::nir_options(),
            disk_cache: null_mut(),
        });
        // SAFETY: the screen is ours. Test screens never free the helper (a small leak per test).
        unsafe { set_resource_hooks(&mut s.base) };
        s
    }

    fn create(fd: c_int) -> Result<*mut sys::pipe_screen, ScreenError> {
        let node = RenderNode::new(fd);
        let params = node.identify()?;
        let bo = BoDevice::new(Box::new(NodeUapi { fd }), &params)?;
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
            bo,
            programs: std::sync::Mutex::new(crate::batch::ProgramStore::new()),
            name,
            nir_options: shader::nir_options(),
            // SAFETY: plain Mesa utility calls; the result is owned by the screen.
            disk_cache: unsafe { create_disk_cache() },
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
            base.get_disk_shader_cache = Some(get_disk_shader_cache);
            base.finalize_nir = Some(shader::finalize_nir);
            base.is_format_supported = Some(is_format_supported);
            base.context_create = Some(context::create);
            set_resource_hooks(base);
            base.fence_reference = Some(fence::fence_reference);
            base.fence_finish = Some(fence::fence_finish);
            caps::init_screen_caps(&mut (*screen).base);
        }
        Ok(screen as *mut sys::pipe_screen)
    }
}

/// Resource creation and destruction go through Mesa's u_transfer_helper, which splits packed
/// depth/stencil formats into two of our resources (resource.rs `TRANSFER_HELPER_FLAGS`).
///
/// # Safety
/// `base` is the pipe_screen of a `Screen` being set up.
unsafe fn set_resource_hooks(base: &mut sys::pipe_screen) {
    base.transfer_helper =
        sys::u_transfer_helper_create(&resource::TRANSFER_VTBL, resource::TRANSFER_HELPER_FLAGS);
    base.resource_create = Some(sys::u_transfer_helper_resource_create);
    base.resource_destroy = Some(sys::u_transfer_helper_resource_destroy);
}

#[derive(Debug, thiserror::Error)]
pub enum ScreenError {
    #[error("{0}")]
    Device(#[from] DeviceError),
    #[error("setting up GPU memory: {0}")]
    Memory(#[from] BoError),
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
        let screen = Box::from_raw(screen as *mut Screen);
        if !screen.base.transfer_helper.is_null() {
            sys::u_transfer_helper_destroy(screen.base.transfer_helper);
        }
        screen.programs.lock().unwrap().release(&screen.bo);
        if !screen.disk_cache.is_null() {
            sys::disk_cache_destroy(screen.disk_cache);
        }
        if debug::flags().bo {
            let s = &screen.bo.stats;
            use std::sync::atomic::Ordering::Relaxed;
            eprintln!(
                "agx16 bo: at screen destroy {} live, {} cached, {} created, {} cache hits",
                s.live.load(Relaxed),
                screen.bo.cached(),
                s.created.load(Relaxed),
                s.cache_hits.load(Relaxed)
            );
        }
        let live = screen
            .bo
            .stats
            .live
            .load(std::sync::atomic::Ordering::Relaxed);
        if live != 0 {
            eprintln!("agx16: {live} BO(s) still live at screen destroy (a resource leaked)");
        }
        drop(screen);
        if debug::flags().bo {
            eprintln!("agx16 bo: VM and every BO closed");
        }
    })
}

/// A cache keyed by the build of the library that holds this driver, so a rebuilt driver never
/// loads another build's binaries. Mesa creates it even with MESA_SHADER_CACHE_DISABLE (then it
/// only serves program binaries), as it does for llvmpipe.
unsafe fn create_disk_cache() -> *mut sys::disk_cache {
    let mut sha: sys::_SHA1_CTX = std::mem::zeroed();
    sys::_mesa_sha1_init(&mut sha);
    if !sys::disk_cache_get_function_identifier(agx16_drm_screen_create as *mut c_void, &mut sha) {
        return null_mut();
    }
    let mut digest = [0u8; 20];
    sys::_mesa_sha1_final(&mut sha, digest.as_mut_ptr());
    let mut id = [0 as c_char; 41];
    sys::_mesa_sha1_format(id.as_mut_ptr(), digest.as_ptr());
    sys::disk_cache_create(VENDOR.as_ptr(), id.as_ptr(), 0)
}

unsafe extern "C" fn get_disk_shader_cache(screen: *mut sys::pipe_screen) -> *mut sys::disk_cache {
    Screen::get(screen).disk_cache
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

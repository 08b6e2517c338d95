//! Resources: buffers and images in GPU memory (one BO each), with G16 image layouts from
//! `agx16_cmdstream::layout`.
//!
//! Layout choice (facts from GravityLinux/mesa src/gallium/drivers/asahi/agx_pipe.c
//! `agx_linear_allowed`/`agx_twiddled_allowed`/`agx_select_best_modifier`, a driver run on real M4):
//! buffers are linear; LINEAR and DISPLAY_TARGET binds force linear; staging, shared and scanout
//! resources prefer linear; depth/stencil, mipmapped and multisampled images are never linear;
//! everything else is twiddled. Lossless compression is not used (no descriptor path for it yet).

use crate::bo::{Bo, Heap};
use crate::ffi::guard;
use crate::screen::Screen;
use agx16_cmdstream::layout::{ImageDesc, ImageLayout, Kind, Tiling};
use agx16_mesa_sys as sys;
use std::ptr::null_mut;

/// Mesa sees `base`; `base` must stay first.
#[repr(C)]
pub struct Resource {
    pub base: sys::pipe_resource,
    pub bo: Option<Bo>,
    /// Images only; buffers are plain bytes.
    pub layout: Option<ImageLayout>,
}

impl Resource {
    /// # Safety
    /// `r` must be a resource made by `create`.
    pub unsafe fn get<'a>(r: *mut sys::pipe_resource) -> &'a mut Resource {
        &mut *(r as *mut Resource)
    }

    pub fn bo(&self) -> &Bo {
        self.bo.as_ref().expect("a live resource has its BO")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ResourceError {
    #[error("format {0} has no layout (element size {1} bytes)")]
    Format(u32, u32),
    #[error("target {0} is not supported")]
    Target(u32),
    #[error("{0}")]
    Layout(#[from] agx16_cmdstream::layout::LayoutError),
    #[error("bind LINEAR is impossible for this resource (mipmapped, depth/stencil, multisampled or not 2D)")]
    LinearImpossible,
    #[error("{0}")]
    Bo(#[from] crate::bo::BoError),
}

/// The image description for a template, or None for buffers.
pub fn image_desc(t: &sys::pipe_resource) -> Result<Option<ImageDesc>, ResourceError> {
    let target = t.target();
    if target == sys::PIPE_BUFFER {
        return Ok(None);
    }
    let format = t.format();
    // SAFETY: pure table lookups on a format enum.
    let (bytes, bw, bh) = unsafe {
        (
            sys::util_format_get_blocksize(format),
            sys::util_format_get_blockwidth(format),
            sys::util_format_get_blockheight(format),
        )
    };
    if ![1, 2, 4, 8, 16].contains(&bytes) {
        return Err(ResourceError::Format(format, bytes));
    }
    let array = t.array_size.max(1) as u32;
    let (kind, layers) = match target {
        sys::PIPE_TEXTURE_1D | sys::PIPE_TEXTURE_2D | sys::PIPE_TEXTURE_RECT => (Kind::D2, 1),
        sys::PIPE_TEXTURE_1D_ARRAY | sys::PIPE_TEXTURE_2D_ARRAY => (Kind::D2Array, array),
        // Gallium counts cube faces in array_size (6 per cube).
        sys::PIPE_TEXTURE_CUBE | sys::PIPE_TEXTURE_CUBE_ARRAY => (Kind::Cube, (array / 6).max(1)),
        sys::PIPE_TEXTURE_3D => (Kind::D3, t.depth0.max(1) as u32),
        other => return Err(ResourceError::Target(other)),
    };
    // SAFETY: as above.
    let depth_stencil = unsafe { sys::util_format_is_depth_or_stencil(format) }
        || t.bind & sys::PIPE_BIND_DEPTH_STENCIL != 0;
    let samples = (t.nr_samples as u32).max(1);
    let linear_allowed = t.last_level == 0
        && !depth_stencil
        && samples == 1
        && bw == 1
        && bh == 1
        && kind == Kind::D2;
    let wants_linear = t.bind & (sys::PIPE_BIND_LINEAR | sys::PIPE_BIND_DISPLAY_TARGET) != 0;
    let prefers_linear = t.usage() == sys::PIPE_USAGE_STAGING
        || t.bind & (sys::PIPE_BIND_SCANOUT | sys::PIPE_BIND_SHARED) != 0;
    if wants_linear && !linear_allowed {
        return Err(ResourceError::LinearImpossible);
    }
    let tiling = if wants_linear || (prefers_linear && linear_allowed) {
        Tiling::Linear
    } else {
        Tiling::Twiddled
    };
    Ok(Some(ImageDesc {
        width: t.width0,
        height: t.height0 as u32,
        layers,
        levels: t.last_level as u32 + 1,
        samples,
        element_bytes: bytes,
        block_w: bw,
        block_h: bh,
        kind,
        tiling,
        compressible: false,
    }))
}

/// Builds a resource for `templ` with its memory.
pub fn create_resource(
    screen: &Screen,
    pscreen: *mut sys::pipe_screen,
    templ: &sys::pipe_resource,
) -> Result<Box<Resource>, ResourceError> {
    let layout = image_desc(templ)?.map(ImageLayout::new).transpose()?;
    let (size, heap) = match &layout {
        Some(l) => (l.total_bytes(), Heap::Main),
        None => (templ.width0 as u64, Heap::Usc),
    };
    let bo = screen.bo.create(size.max(1), heap)?;
    let mut r = Box::new(Resource {
        base: *templ,
        bo: Some(bo),
        layout,
    });
    r.base.screen = pscreen;
    r.base.next = null_mut();
    // SAFETY: initialising the refcount of our own struct.
    unsafe { sys::pipe_reference_init(&mut r.base.__bindgen_anon_1.reference, 1) };
    Ok(r)
}

pub unsafe extern "C" fn resource_create(
    pscreen: *mut sys::pipe_screen,
    templ: *const sys::pipe_resource,
) -> *mut sys::pipe_resource {
    guard("resource_create", null_mut(), || {
        let screen = Screen::get(pscreen);
        match create_resource(screen, pscreen, &*templ) {
            Ok(r) => Box::into_raw(r) as *mut sys::pipe_resource,
            Err(e) => {
                eprintln!(
                    "agx16: resource_create ({}x{}x{} target {} format {}): {e}",
                    (*templ).width0,
                    (*templ).height0,
                    (*templ).array_size,
                    (*templ).target(),
                    (*templ).format()
                );
                null_mut()
            }
        }
    })
}

/// Frees a resource's memory. No GPU work exists yet, so nothing can still be using the BO.
pub fn destroy_resource(screen: &Screen, mut r: Box<Resource>) {
    if let Some(bo) = r.bo.take() {
        screen.bo.release(bo);
    }
}

pub unsafe extern "C" fn resource_destroy(
    pscreen: *mut sys::pipe_screen,
    r: *mut sys::pipe_resource,
) {
    guard("resource_destroy", (), || {
        destroy_resource(Screen::get(pscreen), Box::from_raw(r as *mut Resource))
    })
}

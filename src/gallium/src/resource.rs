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
    /// The format the memory was laid out for. Differs from `base.format` only for packed
    /// depth/stencil formats, which Mesa's u_transfer_helper splits (see `TRANSFER_HELPER_FLAGS`):
    /// `base.format` is then the format the frontend asked for (Z24_UNORM_S8_UINT, Z24X8_UNORM,
    /// Z32_FLOAT_S8X24_UINT) and this resource is the Z32_FLOAT depth plane.
    pub internal_format: sys::pipe_format,
    /// The separate S8_UINT stencil plane of a packed depth/stencil resource (owned by it; freed by
    /// u_transfer_helper_resource_destroy), else null.
    pub stencil: *mut sys::pipe_resource,
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

    /// A packed depth/stencil format stored split: maps go through u_transfer_helper.
    pub fn is_split(&self) -> bool {
        self.internal_format != self.base.format()
    }
}

/// Packed depth/stencil formats are stored as a Z32_FLOAT depth plane plus a separate S8_UINT
/// stencil plane, which is what the ZLS hardware loads and stores (separate depth and stencil
/// bases, sim/GFX.md "Depth/stencil load/clear"; Mesa 25.0.7 asahi agx_pipe.c creates its
/// u_transfer_helper with the same split for G13–G15, inferred for the M4).
///
/// Precision: Z24 depth is kept as Z32_FLOAT. Mesa's conversions (u_format_zs.c
/// `z24_unorm_to_z32_float` and `z32_float_to_z24_unorm`) round-trip all 2^24 values exactly
/// (checked exhaustively, see resource_tests), so a Z24 map/unmap never changes data. Depth
/// tests compare at float precision, which is at least as fine as 24-bit unorm below 1.0.
pub const TRANSFER_HELPER_FLAGS: sys::u_transfer_helper_flags =
    sys::U_TRANSFER_HELPER_SEPARATE_Z32S8
        | sys::U_TRANSFER_HELPER_SEPARATE_STENCIL
        | sys::U_TRANSFER_HELPER_Z24_IN_Z32F;

/// The callbacks u_transfer_helper wraps: our resource functions and the plane-level map/unmap
/// (no synchronisation there: the context's map synchronises both planes before calling the helper).
pub static TRANSFER_VTBL: sys::u_transfer_vtbl = sys::u_transfer_vtbl {
    resource_create: Some(resource_create),
    resource_destroy: Some(resource_destroy),
    transfer_map: Some(crate::transfer::map_plane),
    transfer_flush_region: Some(crate::transfer::transfer_flush_region),
    transfer_unmap: Some(crate::transfer::unmap_plane),
    get_internal_format: Some(get_internal_format),
    set_stencil: Some(set_stencil),
    get_stencil: Some(get_stencil),
};

unsafe extern "C" fn get_internal_format(r: *mut sys::pipe_resource) -> sys::pipe_format {
    Resource::get(r).internal_format
}

unsafe extern "C" fn set_stencil(r: *mut sys::pipe_resource, stencil: *mut sys::pipe_resource) {
    Resource::get(r).stencil = stencil;
}

unsafe extern "C" fn get_stencil(r: *mut sys::pipe_resource) -> *mut sys::pipe_resource {
    Resource::get(r).stencil
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
    let desc = image_desc(templ)?;
    if crate::debug::flags().resource {
        if let Some(d) = &desc {
            eprintln!(
                "agx16 resource: {}x{}x{} format {} target {} bind {:#x} usage {} levels {} \
                 samples {} -> {:?}",
                d.width,
                d.height,
                d.layers,
                templ.format(),
                templ.target(),
                templ.bind,
                templ.usage(),
                d.levels,
                d.samples,
                d.tiling
            );
        }
    }
    let layout = desc.map(ImageLayout::new).transpose()?;
    let (size, heap) = match &layout {
        Some(l) => (l.total_bytes(), Heap::Main),
        None => (templ.width0 as u64, Heap::Usc),
    };
    let bo = screen.bo.create(size.max(1), heap)?;
    let mut r = Box::new(Resource {
        base: *templ,
        bo: Some(bo),
        layout,
        internal_format: templ.format(),
        stencil: null_mut(),
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

/// Frees a resource's memory (the render path keeps references while GPU work uses it). A split
/// depth/stencil resource's stencil plane is released by u_transfer_helper_resource_destroy.
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

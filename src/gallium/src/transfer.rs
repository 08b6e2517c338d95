//! CPU access to resources: transfer_map/unmap and the subdata hooks.
//!
//! Buffers and linear images map their BO directly. Twiddled images map a linear staging copy of the
//! box: filled by untiling on map (unless the map discards the range), tiled back on unmap when
//! written. Whole-level boxes use agx16-cmdstream's fast tile/untile routines; partial boxes copy
//! element by element through the plane's address function.
//!
//! Packed depth/stencil formats (Z24_UNORM_S8_UINT, Z24X8_UNORM, Z32_FLOAT_S8X24_UINT) are stored
//! split (resource.rs `TRANSFER_HELPER_FLAGS`); their maps go through Mesa's u_transfer_helper,
//! which maps the Z32_FLOAT depth plane and the S8_UINT stencil plane with `map_plane` and packs
//! them into a staging copy in the frontend's format (unpacking it again at unmap).
//!
//! Synchronisation: no GPU work is ever submitted yet, so a map has nothing to wait for. When the draw
//! path exists, map must first flush and wait for batches that write (or, for writes, read) the
//! resource.

use crate::ffi::guard;
use crate::resource::Resource;
use agx16_cmdstream::layout::{tile_plane, untile_plane, ImageLayout, PlaneLayout};
use agx16_mesa_sys as sys;
use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;

/// Mesa sees `base`; `base` must stay first.
#[repr(C)]
pub struct Transfer {
    pub base: sys::pipe_transfer,
    /// Linear copy of the box for twiddled images (`stride` and `layer_stride` describe it).
    staging: Option<Vec<u8>>,
    /// Samples per pixel of a multisampled image's resolving map (1 otherwise): its staging copy
    /// holds one resolved value per pixel, and a write goes back to every sample.
    samples: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum MapError {
    #[error("box {x},{y},{z} {w}x{h}x{d} is outside level {level} of the resource")]
    Box {
        x: i32,
        y: i32,
        z: i32,
        w: i32,
        h: i32,
        d: i32,
        level: u32,
    },
    #[error("{0}")]
    Layout(#[from] agx16_cmdstream::layout::LayoutError),
    #[error(
        "a twiddled image cannot be mapped directly (PIPE_MAP_DIRECTLY); it needs a staging copy"
    )]
    NotDirect,
    #[error("source and destination texels differ in size")]
    TexelSize,
    #[error("a split depth/stencil resource is mapped one layer at a time (box depth {0})")]
    SplitDepth(i16),
    #[error("u_transfer_helper could not map the depth/stencil planes")]
    Helper,
    #[error(
        "a {0}-sample image of {1} bytes per sample is not mapped through a {2}-byte format \
         (the resolving map reads and writes whole samples)"
    )]
    Multisampled(u32, u32, u32),
}

/// The box in elements (blocks for compressed formats): x, y, z, w, h, d.
type Region = (u32, u32, u32, u32, u32, u32);

fn region(r: &Resource, level: u32, b: &sys::pipe_box) -> Result<Region, MapError> {
    let bad = || MapError::Box {
        x: b.x,
        y: b.y,
        z: b.z as i32,
        w: b.width,
        h: b.height,
        d: b.depth as i32,
        level,
    };
    if b.x < 0 || b.y < 0 || b.z < 0 || b.width < 0 || b.height < 0 || b.depth < 0 {
        return Err(bad());
    }
    let (x, y, z) = (b.x as u32, b.y as u32, b.z as u32);
    let (w, h, d) = (b.width as u32, b.height as u32, b.depth as u32);
    match &r.layout {
        None => {
            let end = x as u64 + w as u64;
            if end > r.base.width0 as u64 || level != 0 {
                return Err(bad());
            }
            Ok((x, 0, 0, w, 1, 1))
        }
        Some(l) => {
            let desc = &l.desc;
            let lv = l.levels.get(level as usize).ok_or_else(bad)?;
            let (bw, bh) = (desc.block_w, desc.block_h);
            let (lw, lh) = ((desc.width >> level).max(1), (desc.height >> level).max(1));
            if x + w > lw || y + h > lh || z + d > l.planes || x % bw != 0 || y % bh != 0 {
                return Err(bad());
            }
            let _ = lv;
            Ok((x / bw, y / bh, z, w.div_ceil(bw), h.div_ceil(bh), d))
        }
    }
}

fn whole_plane(p: &PlaneLayout, reg: &Region) -> bool {
    reg.0 == 0 && reg.1 == 0 && reg.3 == p.width && reg.4 == p.height
}

/// Large partial boxes go through a whole-plane linear copy (fast routines), small ones element by
/// element.
fn via_whole_plane(p: &PlaneLayout, reg: &Region) -> bool {
    4 * reg.3 as u64 * reg.4 as u64 >= p.width as u64 * p.height as u64
}

/// Copies rows of the region between a packed whole-plane image and a strided box image.
fn copy_rows(
    p: &PlaneLayout,
    reg: &Region,
    plane: &mut [u8],
    boxed: &mut [u8],
    stride: usize,
    to_box: bool,
) {
    let b = p.element_bytes as usize;
    let (pstride, row) = (p.width as usize * b, reg.3 as usize * b);
    for y in 0..reg.4 as usize {
        let po = (reg.1 as usize + y) * pstride + reg.0 as usize * b;
        let bo = y * stride;
        if to_box {
            boxed[bo..bo + row].copy_from_slice(&plane[po..po + row]);
        } else {
            plane[po..po + row].copy_from_slice(&boxed[bo..bo + row]);
        }
    }
}

/// Copies the region out of the twiddled image into `out` (rows of `stride`, planes of `layer`).
fn untile(
    l: &ImageLayout,
    bo: &[u8],
    level: u32,
    reg: Region,
    out: &mut [u8],
    stride: usize,
    layer: usize,
) -> Result<(), MapError> {
    let p = &l.levels[level as usize].plane;
    let b = p.element_bytes as usize;
    for i in 0..reg.5 {
        let base = l.element_offset(level, reg.2 + i, 0, 0, 0) as usize;
        let dst = &mut out[i as usize * layer..];
        let tiled = &bo[base..base + p.size as usize];
        if whole_plane(p, &reg) {
            untile_plane(p, tiled, dst, stride)?;
            continue;
        }
        if via_whole_plane(p, &reg) {
            let pstride = p.width as usize * b;
            let mut plane = vec![0u8; pstride * p.height as usize];
            untile_plane(p, tiled, &mut plane, pstride)?;
            copy_rows(p, &reg, &mut plane, dst, stride, true);
            continue;
        }
        for y in 0..reg.4 {
            for x in 0..reg.3 {
                let s = base + p.offset(reg.0 + x, reg.1 + y) as usize;
                let d = y as usize * stride + x as usize * b;
                dst[d..d + b].copy_from_slice(&bo[s..s + b]);
            }
        }
    }
    Ok(())
}

/// The inverse of `untile`.
fn tile(
    l: &ImageLayout,
    bo: &mut [u8],
    level: u32,
    reg: Region,
    src: &[u8],
    stride: usize,
    layer: usize,
) -> Result<(), MapError> {
    let p = &l.levels[level as usize].plane;
    let b = p.element_bytes as usize;
    for i in 0..reg.5 {
        let base = l.element_offset(level, reg.2 + i, 0, 0, 0) as usize;
        let from = &src[i as usize * layer..];
        let tiled = &mut bo[base..base + p.size as usize];
        if whole_plane(p, &reg) {
            tile_plane(p, from, stride, tiled)?;
            continue;
        }
        if via_whole_plane(p, &reg) {
            // Read-modify-write of the plane: texels outside the box keep their values.
            let pstride = p.width as usize * b;
            let mut plane = vec![0u8; pstride * p.height as usize];
            untile_plane(p, tiled, &mut plane, pstride)?;
            let mut src = from[..(reg.4 as usize - 1) * stride + reg.3 as usize * b].to_vec();
            copy_rows(p, &reg, &mut plane, &mut src, stride, false);
            tile_plane(p, &plane, pstride, tiled)?;
            continue;
        }
        for y in 0..reg.4 {
            for x in 0..reg.3 {
                let d = base + p.offset(reg.0 + x, reg.1 + y) as usize;
                let s = y as usize * stride + x as usize * b;
                bo[d..d + b].copy_from_slice(&from[s..s + b]);
            }
        }
    }
    Ok(())
}

/// Whether a resolve averages the samples of `format` (float, normalised and sRGB colour) or
/// takes sample 0 (integer colour, depth, stencil): the rule of [`resolve_blit`].
unsafe fn averages(format: sys::pipe_format) -> bool {
    !sys::util_format_is_pure_integer(format) && !sys::util_format_is_depth_or_stencil(format)
}

/// The mean of one pixel's samples as float RGBA values of `format`.
unsafe fn sample_mean(
    l: &ImageLayout,
    mem: &[u8],
    level: u32,
    z: u32,
    (x, y): (u32, u32),
    format: sys::pipe_format,
) -> [f32; 4] {
    let mut sum = [0f32; 4];
    for smp in 0..l.desc.samples {
        let at = l.element_offset(level, z, x, y, smp) as usize;
        let mut v = [0f32; 4];
        sys::util_format_unpack_rgba(
            format,
            v.as_mut_ptr() as *mut c_void,
            mem[at..].as_ptr() as *const c_void,
            1,
        );
        for k in 0..4 {
            sum[k] += v[k];
        }
    }
    sum.map(|v| v / l.desc.samples as f32)
}

/// The staging copy of a multisampled image's map: one value per pixel of the box, resolved by
/// the rule of [`averages`] in the resource's own format unless the map discards the range. This is
/// how the frontend reads a multisampled window surface (glReadPixels of a 4-sample EGL
/// config maps its colour buffer; GL ES 3.0 §4.3.1 reads the resolved value).
unsafe fn resolved_box(
    r: &Resource,
    l: &ImageLayout,
    level: u32,
    usage: u32,
    reg: Region,
) -> Result<Vec<u8>, MapError> {
    let e = l.desc.element_bytes;
    let format = r.base.format();
    let fbytes = sys::util_format_get_blocksize(format);
    if fbytes != e {
        return Err(MapError::Multisampled(l.desc.samples, e, fbytes));
    }
    let e = e as usize;
    let mut staging = vec![0u8; (e * (reg.3 * reg.4 * reg.5) as usize).max(1)];
    let discard = usage & (sys::PIPE_MAP_DISCARD_RANGE | sys::PIPE_MAP_DISCARD_WHOLE_RESOURCE) != 0;
    if usage & sys::PIPE_MAP_READ == 0 && discard {
        return Ok(staging);
    }
    let (mem, average) = (r.bo().bytes(), averages(format));
    let mut out = staging.chunks_exact_mut(e);
    for z in reg.2..reg.2 + reg.5 {
        for y in reg.1..reg.1 + reg.4 {
            for x in reg.0..reg.0 + reg.3 {
                let px = out.next().expect("staging holds the box");
                if average {
                    let mean = sample_mean(l, mem, level, z, (x, y), format);
                    sys::util_format_pack_rgba(
                        format,
                        px.as_mut_ptr() as *mut c_void,
                        mean.as_ptr() as *const c_void,
                        1,
                    );
                } else {
                    let at = l.element_offset(level, z, x, y, 0) as usize;
                    px.copy_from_slice(&mem[at..at + e]);
                }
            }
        }
    }
    Ok(staging)
}

/// Unmap of a written multisampled map: each pixel's value goes to all its samples (a CPU write
/// covers the whole pixel).
fn write_every_sample(l: &ImageLayout, mem: &mut [u8], level: u32, reg: Region, staging: &[u8]) {
    let e = l.desc.element_bytes as usize;
    let mut src = staging.chunks_exact(e);
    for z in reg.2..reg.2 + reg.5 {
        for y in reg.1..reg.1 + reg.4 {
            for x in reg.0..reg.0 + reg.3 {
                let px = src.next().expect("staging holds the box");
                for smp in 0..l.desc.samples {
                    let at = l.element_offset(level, z, x, y, smp) as usize;
                    mem[at..at + e].copy_from_slice(px);
                }
            }
        }
    }
}

/// Maps `level`/`box` of a resource; returns the transfer and the CPU pointer.
///
/// # Safety
/// `res` must be a live agx16 resource.
pub unsafe fn map_resource(
    res: *mut sys::pipe_resource,
    level: u32,
    usage: u32,
    b: &sys::pipe_box,
) -> Result<(Box<Transfer>, *mut u8), MapError> {
    let r = Resource::get(res);
    let reg = region(r, level, b)?;
    let mut t = Box::new(Transfer {
        base: std::mem::zeroed(),
        staging: None,
        samples: 1,
    });
    sys::pipe_resource_reference(&mut t.base.resource, res);
    t.base.set_level(level);
    t.base.set_usage(usage as _);
    t.base.box_ = *b;
    let bo = r.bo();
    let ptr = match &r.layout {
        None => bo.map().add(reg.0 as usize),
        Some(l) if !l.levels[level as usize].plane.is_twiddled() => {
            let p = &l.levels[level as usize].plane;
            t.base.stride = p.row_stride as c_uint;
            t.base.layer_stride = l.layer_stride as usize;
            bo.map()
                .add((l.element_offset(level, reg.2, reg.0, reg.1, 0)) as usize)
        }
        Some(_) if usage & sys::PIPE_MAP_DIRECTLY != 0 => {
            sys::pipe_resource_reference(&mut t.base.resource, null_mut());
            return Err(MapError::NotDirect);
        }
        Some(l) if l.desc.samples > 1 => {
            let staging = match resolved_box(r, l, level, usage, reg) {
                Ok(s) => s,
                Err(e) => {
                    sys::pipe_resource_reference(&mut t.base.resource, null_mut());
                    return Err(e);
                }
            };
            t.base.stride = reg.3 * l.desc.element_bytes;
            t.base.layer_stride = t.base.stride as usize * reg.4 as usize;
            t.samples = l.desc.samples;
            let mut staging = staging;
            let p = staging.as_mut_ptr();
            t.staging = Some(staging);
            p
        }
        Some(l) => {
            let e = l.desc.element_bytes as usize;
            let stride = reg.3 as usize * e;
            let layer = stride * reg.4 as usize;
            let mut staging = vec![0u8; (layer * reg.5 as usize).max(1)];
            let discard =
                usage & (sys::PIPE_MAP_DISCARD_RANGE | sys::PIPE_MAP_DISCARD_WHOLE_RESOURCE) != 0;
            if usage & sys::PIPE_MAP_READ != 0 || !discard {
                untile(l, bo.bytes(), level, reg, &mut staging, stride, layer)?;
            }
            t.base.stride = stride as c_uint;
            t.base.layer_stride = layer;
            let p = staging.as_mut_ptr();
            t.staging = Some(staging);
            p
        }
    };
    Ok((t, ptr))
}

/// Writes back a twiddled image's staging copy if the map wrote, then drops the transfer.
///
/// # Safety
/// `t` must come from `map_resource`.
#[allow(clippy::boxed_local)] // the allocation Mesa held; freed here
pub unsafe fn unmap_transfer(mut t: Box<Transfer>) -> Result<(), MapError> {
    let result = (|| {
        let Some(staging) = &t.staging else {
            return Ok(());
        };
        if t.base.usage() & sys::PIPE_MAP_WRITE == 0 {
            return Ok(());
        }
        let r = Resource::get(t.base.resource);
        let l = r.layout.as_ref().expect("staging exists only for images");
        let level = t.base.level();
        let reg = region(r, level, &t.base.box_)?;
        if t.samples > 1 {
            write_every_sample(l, r.bo().bytes(), level, reg, staging);
            return Ok(());
        }
        tile(
            l,
            r.bo().bytes(),
            level,
            reg,
            staging,
            t.base.stride as usize,
            t.base.layer_stride,
        )
    })();
    sys::pipe_resource_reference(&mut t.base.resource, null_mut());
    result
}

/// Before the CPU touches `res`: submit and wait for GPU work that writes it (or, for CPU
/// writes, that uses it at all).
///
/// # Safety
/// `ctx` null or a live agx16 context; `res` a live agx16 resource.
pub unsafe fn sync(ctx: *mut sys::pipe_context, res: *mut sys::pipe_resource, write: bool) {
    if ctx.is_null() || res.is_null() {
        return;
    }
    let c = crate::context::Context::get(ctx);
    let screen = crate::screen::Screen::get(c.base.screen);
    c.render.sync_for_cpu(screen, res, write);
}

pub unsafe extern "C" fn map(
    ctx: *mut sys::pipe_context,
    res: *mut sys::pipe_resource,
    level: c_uint,
    usage: c_uint,
    b: *const sys::pipe_box,
    out: *mut *mut sys::pipe_transfer,
) -> *mut c_void {
    guard("transfer_map", null_mut(), || {
        *out = null_mut();
        if usage & sys::PIPE_MAP_UNSYNCHRONIZED == 0 {
            sync_planes(ctx, res, usage & sys::PIPE_MAP_WRITE != 0);
        }
        match map_any(ctx, res, level, usage, &*b) {
            Ok((t, ptr)) => {
                *out = t;
                ptr as *mut c_void
            }
            Err(e) => {
                eprintln!("agx16: transfer_map: {e}");
                null_mut()
            }
        }
    })
}

pub unsafe extern "C" fn unmap(ctx: *mut sys::pipe_context, t: *mut sys::pipe_transfer) {
    guard("transfer_unmap", (), || {
        if let Err(e) = unmap_any(ctx, t) {
            eprintln!("agx16: transfer_unmap: {e}");
        }
    })
}

/// Whether `res` is a packed depth/stencil resource stored split (maps go through the helper).
unsafe fn split(res: *mut sys::pipe_resource) -> bool {
    !res.is_null() && (*res).target() != sys::PIPE_BUFFER && Resource::get(res).is_split()
}

/// Maps any resource. Split depth/stencil resources are mapped by Mesa's u_transfer_helper, which
/// maps both planes through `map_plane` and (de)interleaves into the packed format `res` has for
/// the frontend; everything else by `map_resource`. No synchronisation here.
///
/// # Safety
/// `res` a live agx16 resource; `ctx` a pipe_context whose `screen` is the resource's screen
/// (only read for split resources).
pub unsafe fn map_any(
    ctx: *mut sys::pipe_context,
    res: *mut sys::pipe_resource,
    level: u32,
    usage: u32,
    b: &sys::pipe_box,
) -> Result<(*mut sys::pipe_transfer, *mut u8), MapError> {
    if !split(res) {
        let (t, p) = map_resource(res, level, usage, b)?;
        return Ok((Box::into_raw(t) as *mut sys::pipe_transfer, p));
    }
    if b.depth != 1 {
        return Err(MapError::SplitDepth(b.depth)); // the helper asserts depth == 1
    }
    // Validate the box here: the helper's own map does not check it before allocating.
    region(Resource::get(res), level, b)?;
    let mut t = null_mut();
    let p = sys::u_transfer_helper_transfer_map(ctx, res, level, usage, b, &mut t);
    if p.is_null() || t.is_null() {
        return Err(MapError::Helper);
    }
    Ok((t, p as *mut u8))
}

/// Unmaps a transfer made by `map_any`.
///
/// # Safety
/// `t` from `map_any` with a context of the same screen.
pub unsafe fn unmap_any(
    ctx: *mut sys::pipe_context,
    t: *mut sys::pipe_transfer,
) -> Result<(), MapError> {
    if split((*t).resource) {
        // Plane errors are reported by `unmap_plane`.
        sys::u_transfer_helper_transfer_unmap(ctx, t);
        Ok(())
    } else {
        unmap_transfer(Box::from_raw(t as *mut Transfer))
    }
}

/// u_transfer_helper's plane map (`resource::TRANSFER_VTBL`): one plane, no synchronisation.
pub unsafe extern "C" fn map_plane(
    _: *mut sys::pipe_context,
    res: *mut sys::pipe_resource,
    level: c_uint,
    usage: c_uint,
    b: *const sys::pipe_box,
    out: *mut *mut sys::pipe_transfer,
) -> *mut c_void {
    guard("transfer_map (depth/stencil plane)", null_mut(), || {
        *out = null_mut();
        match map_resource(res, level, usage, &*b) {
            Ok((t, ptr)) => {
                *out = Box::into_raw(t) as *mut sys::pipe_transfer;
                ptr as *mut c_void
            }
            Err(e) => {
                eprintln!("agx16: transfer_map of a depth/stencil plane: {e}");
                null_mut()
            }
        }
    })
}

/// u_transfer_helper's plane unmap.
pub unsafe extern "C" fn unmap_plane(_: *mut sys::pipe_context, t: *mut sys::pipe_transfer) {
    guard("transfer_unmap (depth/stencil plane)", (), || {
        if let Err(e) = unmap_transfer(Box::from_raw(t as *mut Transfer)) {
            eprintln!("agx16: transfer_unmap of a depth/stencil plane: {e}");
        }
    })
}

/// `sync` for a resource and, if it is split, its stencil plane.
///
/// # Safety
/// As `sync`.
unsafe fn sync_planes(ctx: *mut sys::pipe_context, res: *mut sys::pipe_resource, write: bool) {
    sync(ctx, res, write);
    if split(res) {
        sync(ctx, Resource::get(res).stencil, write);
    }
}

/// Bytes per element (block) of a resource as the frontend sees it (its `format`), 1 for buffers.
unsafe fn texel_bytes(res: *mut sys::pipe_resource) -> usize {
    if (*res).target() == sys::PIPE_BUFFER {
        1
    } else {
        sys::util_format_get_blocksize((*res).format()) as usize
    }
}

/// Writes through to memory at unmap anyway (linear maps are the BO itself): nothing to do.
pub unsafe extern "C" fn transfer_flush_region(
    _: *mut sys::pipe_context,
    _: *mut sys::pipe_transfer,
    _: *const sys::pipe_box,
) {
}

/// Copies `data` into a buffer at `offset`.
///
/// # Safety
/// `res` must be a live agx16 buffer; `data` must hold `size` bytes.
pub unsafe fn write_buffer(
    res: *mut sys::pipe_resource,
    offset: u32,
    size: u32,
    data: *const u8,
) -> Result<(), MapError> {
    let b = sys::pipe_box {
        x: offset as i32,
        width: size as i32,
        y: 0,
        height: 1,
        z: 0,
        depth: 1,
    };
    let (t, ptr) = map_resource(
        res,
        0,
        sys::PIPE_MAP_WRITE | sys::PIPE_MAP_DISCARD_RANGE,
        &b,
    )?;
    std::ptr::copy_nonoverlapping(data, ptr, size as usize);
    unmap_transfer(t)
}

/// Copies a linear image (`stride` bytes per row, `layer_stride` per layer) into a box of a texture.
///
/// # Safety
/// `res` must be a live agx16 texture; `data` must cover the box with those strides.
pub unsafe fn write_texture(
    ctx: *mut sys::pipe_context,
    res: *mut sys::pipe_resource,
    level: u32,
    b: &sys::pipe_box,
    data: *const u8,
    stride: usize,
    layer_stride: usize,
) -> Result<(), MapError> {
    let reg = region(Resource::get(res), level, b)?;
    let row = reg.3 as usize * texel_bytes(res);
    // Split depth/stencil resources are mapped a layer at a time (u_transfer_helper maps 2D boxes).
    let layers = if split(res) { reg.5 } else { 1 };
    for i in 0..layers {
        let (b, data, zs) = if split(res) {
            let one = sys::pipe_box {
                z: b.z + i as i16,
                depth: 1,
                ..*b
            };
            (one, data.add(i as usize * layer_stride), 1)
        } else {
            (*b, data, reg.5 as usize)
        };
        let (t, ptr) = map_any(
            ctx,
            res,
            level,
            sys::PIPE_MAP_WRITE | sys::PIPE_MAP_DISCARD_RANGE,
            &b,
        )?;
        for z in 0..zs {
            for y in 0..reg.4 as usize {
                std::ptr::copy_nonoverlapping(
                    data.add(z * layer_stride + y * stride),
                    ptr.add(z * (*t).layer_stride + y * (*t).stride as usize),
                    row,
                );
            }
        }
        unmap_any(ctx, t)?;
    }
    Ok(())
}

pub unsafe extern "C" fn buffer_subdata(
    ctx: *mut sys::pipe_context,
    res: *mut sys::pipe_resource,
    _usage: c_uint,
    offset: c_uint,
    size: c_uint,
    data: *const c_void,
) {
    guard("buffer_subdata", (), || {
        sync(ctx, res, true);
        if let Err(e) = write_buffer(res, offset, size, data as *const u8) {
            eprintln!("agx16: buffer_subdata: {e}");
        }
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn texture_subdata(
    ctx: *mut sys::pipe_context,
    res: *mut sys::pipe_resource,
    level: c_uint,
    _usage: c_uint,
    b: *const sys::pipe_box,
    data: *const c_void,
    stride: c_uint,
    layer_stride: usize,
) {
    guard("texture_subdata", (), || {
        sync_planes(ctx, res, true);
        if let Err(e) = write_texture(
            ctx,
            res,
            level,
            &*b,
            data as *const u8,
            stride as usize,
            layer_stride,
        ) {
            eprintln!("agx16: texture_subdata: {e}");
        }
    })
}

/// Copies a box between resources of the same texel size on the CPU, through map/unmap (so twiddled
/// images are untiled and tiled as needed). Correct while no GPU work is pending, which is always
/// true today; the draw path must flush and wait first, or copy on the GPU.
///
/// # Safety
/// `dst` and `src` must be live agx16 resources.
#[allow(clippy::too_many_arguments)]
pub unsafe fn copy_region(
    dst: *mut sys::pipe_resource,
    dst_level: u32,
    dx: u32,
    dy: u32,
    dz: u32,
    src: *mut sys::pipe_resource,
    src_level: u32,
    sbox: &sys::pipe_box,
) -> Result<(), MapError> {
    let planes = |r| split(r).then(|| Resource::get(r).stencil);
    match (planes(dst), planes(src)) {
        (None, None) => copy_plane(dst, dst_level, dx, dy, dz, src, src_level, sbox),
        // Split depth/stencil: the depth planes (the resources themselves, same internal
        // format for the same packed format), then the stencil planes.
        // Depth-only split formats (Z24X8: stored as Z32_FLOAT) have no stencil plane.
        (Some(ds), Some(ss)) if (*dst).format() == (*src).format() => {
            copy_plane(dst, dst_level, dx, dy, dz, src, src_level, sbox)?;
            match (ds.is_null(), ss.is_null()) {
                (false, false) => copy_plane(ds, dst_level, dx, dy, dz, ss, src_level, sbox),
                (true, true) => Ok(()),
                _ => Err(MapError::TexelSize),
            }
        }
        _ => Err(MapError::TexelSize),
    }
}

/// `copy_region` between resources as stored (one plane each).
#[allow(clippy::too_many_arguments)]
unsafe fn copy_plane(
    dst: *mut sys::pipe_resource,
    dst_level: u32,
    dx: u32,
    dy: u32,
    dz: u32,
    src: *mut sys::pipe_resource,
    src_level: u32,
    sbox: &sys::pipe_box,
) -> Result<(), MapError> {
    let elem = |r: *mut sys::pipe_resource| {
        Resource::get(r)
            .layout
            .as_ref()
            .map_or(1, |l| l.desc.element_bytes as usize)
    };
    if elem(dst) != elem(src) {
        return Err(MapError::TexelSize);
    }
    let (st, sp) = map_resource(src, src_level, sys::PIPE_MAP_READ, sbox)?;
    let sreg = region(Resource::get(src), src_level, sbox)?;
    let row = sreg.3 as usize * elem(src);
    // Packed copy of the source first: source and destination may be the same resource.
    let mut packed = Vec::with_capacity(row * (sreg.4 * sreg.5) as usize);
    for z in 0..sreg.5 as usize {
        for y in 0..sreg.4 as usize {
            let p = sp.add(z * st.base.layer_stride + y * st.base.stride as usize);
            packed.extend_from_slice(std::slice::from_raw_parts(p, row));
        }
    }
    unmap_transfer(st)?;
    let dbox = sys::pipe_box {
        x: dx as i32,
        y: dy as i32,
        z: dz as i16,
        ..*sbox
    };
    let (dt, dp) = map_resource(
        dst,
        dst_level,
        sys::PIPE_MAP_WRITE | sys::PIPE_MAP_DISCARD_RANGE,
        &dbox,
    )?;
    for z in 0..sreg.5 as usize {
        for y in 0..sreg.4 as usize {
            let d = dp.add(z * dt.base.layer_stride + y * dt.base.stride as usize);
            let s = &packed[(z * sreg.4 as usize + y) * row..][..row];
            std::ptr::copy_nonoverlapping(s.as_ptr(), d, row);
        }
    }
    unmap_transfer(dt)
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn resource_copy_region(
    ctx: *mut sys::pipe_context,
    dst: *mut sys::pipe_resource,
    dst_level: c_uint,
    dx: c_uint,
    dy: c_uint,
    dz: c_uint,
    src: *mut sys::pipe_resource,
    src_level: c_uint,
    sbox: *const sys::pipe_box,
) {
    guard("resource_copy_region", (), || {
        sync_planes(ctx, src, false);
        sync_planes(ctx, dst, true);
        if let Err(e) = copy_region(dst, dst_level, dx, dy, dz, src, src_level, &*sbox) {
            eprintln!("agx16: resource_copy_region: {e}");
        }
    })
}

/// Why a blit cannot run on the CPU path.
#[derive(Debug, thiserror::Error)]
pub enum BlitError {
    #[error("{0} (needs the GPU blit of the draw path)")]
    Unsupported(&'static str),
    #[error("{0}")]
    Map(#[from] MapError),
}

/// Blits that are plain copies (same size, every channel written, no scissor, blending or swizzle)
/// run on the CPU through map/unmap, converting formats with Mesa's util_format_translate. Like
/// `copy_region`, this is correct while no GPU work is pending, which is always true today.
///
/// # Safety
/// The blit's resources must be live agx16 resources.
pub unsafe fn cpu_blit(
    ctx: *mut sys::pipe_context,
    info: &sys::pipe_blit_info,
) -> Result<(), BlitError> {
    let (s, d) = (&info.src, &info.dst);
    let (sb, db) = (&s.box_, &d.box_);
    if (sb.width, sb.height, sb.depth) != (db.width, db.height, db.depth) {
        return Err(BlitError::Unsupported("scaled or flipped blit"));
    }
    if sb.width <= 0 || sb.height <= 0 || sb.depth <= 0 {
        return Err(BlitError::Unsupported("empty or flipped box"));
    }
    if info.scissor_enable
        || info.alpha_blend
        || info.swizzle_enable
        || info.num_window_rectangles > 0
    {
        return Err(BlitError::Unsupported(
            "scissored, blended, swizzled or windowed blit",
        ));
    }
    if info.mask != sys::util_format_get_mask(d.format) {
        return Err(BlitError::Unsupported(
            "blit that writes only some channels",
        ));
    }
    // Texel size as mapped (split depth/stencil resources map in their packed format).
    let res_bytes = |r: *mut sys::pipe_resource| {
        Resource::get(r)
            .layout
            .as_ref()
            .map(|_| texel_bytes(r) as u32)
    };
    let (sbytes, dbytes) = (
        sys::util_format_get_blocksize(s.format),
        sys::util_format_get_blocksize(d.format),
    );
    if res_bytes(s.resource) != Some(sbytes) || res_bytes(d.resource) != Some(dbytes) {
        return Err(BlitError::Unsupported(
            "buffer blit or view format of another texel size",
        ));
    }
    // The source, packed first: source and destination may be the same resource.
    let (st, sp) = map_any(ctx, s.resource, s.level, sys::PIPE_MAP_READ, sb)?;
    let (w, h, depth) = (sb.width as usize, sb.height as usize, sb.depth as usize);
    let srow = w * sbytes as usize;
    let mut packed = Vec::with_capacity(srow * h * depth);
    for z in 0..depth {
        for y in 0..h {
            let p = sp.add(z * (*st).layer_stride + y * (*st).stride as usize);
            packed.extend_from_slice(std::slice::from_raw_parts(p, srow));
        }
    }
    unmap_any(ctx, st)?;
    let (dt, dp) = map_any(
        ctx,
        d.resource,
        d.level,
        sys::PIPE_MAP_WRITE | sys::PIPE_MAP_DISCARD_RANGE,
        db,
    )?;
    let mut ok = true;
    for z in 0..depth {
        let src = packed.as_ptr().add(z * srow * h);
        let dst = dp.add(z * (*dt).layer_stride);
        if s.format == d.format {
            for y in 0..h {
                std::ptr::copy_nonoverlapping(
                    src.add(y * srow),
                    dst.add(y * (*dt).stride as usize),
                    srow,
                );
            }
        } else {
            ok &= sys::util_format_translate(
                d.format,
                dst as *mut c_void,
                (*dt).stride,
                0,
                0,
                s.format,
                src as *const c_void,
                srow as c_uint,
                0,
                0,
                w as c_uint,
                h as c_uint,
            );
        }
    }
    unmap_any(ctx, dt)?;
    if !ok {
        return Err(BlitError::Unsupported(
            "format conversion util_format_translate cannot do",
        ));
    }
    Ok(())
}

/// Samples of a resource (1 for single-sampled ones).
unsafe fn samples_of(r: *mut sys::pipe_resource) -> u32 {
    if r.is_null() || (*r).target() == sys::PIPE_BUFFER {
        1
    } else {
        ((*r).nr_samples as u32).max(1)
    }
}

/// A multisample resolve (glBlitFramebuffer from a multisampled framebuffer, and the
/// window-system surface's resolve): float, normalised and sRGB colour formats take the average
/// of the samples (sRGB averaged as linear values: Mesa's unpack decodes, its pack encodes),
/// integer colour formats and depth/stencil take sample 0. The rule is the T8132 driver's
/// (GravityLinux/mesa agx_blit.c: 1/samples weights for float/unorm, sample 0 for integer and
/// depth/stencil; its dEQP multisample and blit groups pass on M4); the M4 driver runs it as a
/// compute pass, agx16 on the CPU like its other plain blits (no GPU work is pending at a
/// blit: `sync_planes` flushed and waited). The source's samples are read where the layout
/// puts them (a pixel's samples together, `ImageLayout::element_offset`). Same-size boxes
/// only (GL ES forbids scaling a multisampled read framebuffer) into a single-sampled
/// destination; `Ok(false)` when the blit is not a resolve.
///
/// # Safety
/// The blit's resources must be live agx16 resources.
pub unsafe fn resolve_blit(
    ctx: *mut sys::pipe_context,
    info: &sys::pipe_blit_info,
) -> Result<bool, BlitError> {
    let (s, d) = (&info.src, &info.dst);
    let n = samples_of(s.resource);
    if n <= 1 {
        return Ok(false);
    }
    if samples_of(d.resource) > 1 {
        return Err(BlitError::Unsupported(
            "blit between multisampled resources",
        ));
    }
    let (sb, db) = (&s.box_, &d.box_);
    if sb.width == 0 || sb.height == 0 || db.width == 0 || db.height == 0 {
        return Ok(true);
    }
    if sb.depth != 1 || db.depth != 1 {
        return Err(BlitError::Unsupported("layered resolve"));
    }
    if info.alpha_blend || info.num_window_rectangles > 0 {
        return Err(BlitError::Unsupported("blended or windowed resolve"));
    }
    let map = ResolveMap::new(info);
    let zs = sys::PIPE_MASK_Z | sys::PIPE_MASK_S;
    if info.mask & zs != 0 {
        if info.mask & !zs != 0 || s.format != d.format {
            return Err(BlitError::Unsupported(
                "depth/stencil resolve mixed with colour or between formats",
            ));
        }
        // Sample 0 of each plane (split depth/stencil resources resolve plane by plane).
        let planes = |r: *mut sys::pipe_resource| {
            let mut v = vec![r];
            if split(r) && !Resource::get(r).stencil.is_null() {
                v.push(Resource::get(r).stencil);
            }
            v
        };
        let (sp, dp) = (planes(s.resource), planes(d.resource));
        if sp.len() != dp.len() {
            return Err(BlitError::Unsupported(
                "depth/stencil resolve between layouts",
            ));
        }
        for (sr, dr) in sp.into_iter().zip(dp) {
            // Each plane as stored (a split resource's depth plane is its internal format).
            let (sf, df) = (
                Resource::get(sr).internal_format,
                Resource::get(dr).internal_format,
            );
            if sf != df {
                return Err(BlitError::Unsupported(
                    "depth/stencil resolve between plane formats",
                ));
            }
            resolve_plane(sr, s.level, sf, dr, d.level, df, &map, false)?;
        }
        return Ok(true);
    }
    if info.mask != sys::util_format_get_mask(d.format) || info.swizzle_enable {
        return Err(BlitError::Unsupported(
            "resolve of some channels or swizzled",
        ));
    }
    let average = !sys::util_format_is_pure_integer(s.format);
    if average == sys::util_format_is_pure_integer(d.format) {
        return Err(BlitError::Unsupported(
            "resolve between integer and non-integer formats",
        ));
    }
    resolve_plane(
        s.resource, s.level, s.format, d.resource, d.level, d.format, &map, average,
    )?;
    let _ = ctx;
    Ok(true)
}

/// A NEAREST depth and/or stencil blit the draw path cannot do (scaled, flipped or one plane
/// of a split depth/stencil resource: u_blitter needs a stencil export and sampled depth
/// formats for those) on the CPU: each destination pixel takes its source pixel's stored
/// value (GL ES 3.0 §4.3.3: depth/stencil blits copy values with NEAREST), plane by plane in
/// each plane's stored format, through the resolve's pixel mapping ([`ResolveMap`]: flips,
/// scaling, scissor). `Ok(false)` when the blit is not one.
///
/// # Safety
/// The blit's resources must be live agx16 resources with no GPU work pending on them.
pub(crate) unsafe fn zs_nearest_blit(info: &sys::pipe_blit_info) -> Result<bool, BlitError> {
    let (s, d) = (&info.src, &info.dst);
    let zs = sys::PIPE_MASK_Z | sys::PIPE_MASK_S;
    if info.mask & zs == 0
        || info.mask & !zs != 0
        || info.filter != sys::PIPE_TEX_FILTER_NEAREST
        || s.format != d.format
        || samples_of(s.resource) != 1
        || samples_of(d.resource) != 1
        || s.box_.depth != 1
        || d.box_.depth != 1
        || info.alpha_blend
        || info.num_window_rectangles > 0
    {
        return Ok(false);
    }
    let map = ResolveMap::new(info);
    // (source plane, destination plane) per channel the mask names.
    let mut planes = Vec::new();
    let has = |m: u32| info.mask & m != 0;
    let (sr, dr) = (s.resource, d.resource);
    let (ssplit, dsplit) = (split(sr), split(dr));
    if ssplit != dsplit {
        return Err(BlitError::Unsupported("depth/stencil blit between layouts"));
    }
    if ssplit {
        if has(sys::PIPE_MASK_Z) {
            planes.push((sr, dr));
        }
        if has(sys::PIPE_MASK_S) {
            let (ss, ds) = (Resource::get(sr).stencil, Resource::get(dr).stencil);
            if ss.is_null() || ds.is_null() {
                return Err(BlitError::Unsupported(
                    "a split resource without a stencil plane",
                ));
            }
            planes.push((ss, ds));
        }
    } else if info.mask == sys::util_format_get_mask(s.format) {
        planes.push((sr, dr));
    } else {
        return Ok(false);
    }
    for (sp, dp) in planes {
        let (sf, df) = (
            Resource::get(sp).internal_format,
            Resource::get(dp).internal_format,
        );
        if sf != df {
            return Err(BlitError::Unsupported(
                "depth/stencil blit between plane formats",
            ));
        }
        resolve_plane(sp, s.level, sf, dp, d.level, df, &map, false)?;
    }
    Ok(true)
}

/// Which source pixel each destination pixel of a resolve reads: the boxes' corners map onto
/// each other (a negative width or height flips, as `pipe_blit_info` boxes do; GL ES forbids
/// scaling a multisampled read framebuffer, but the window-system surface's flipped y arrives
/// as a flipped box), the pixel centre's image in the source taken to its pixel (a nearest
/// lookup, clamped to the source box), and the destination limited to the scissor.
struct ResolveMap {
    /// Destination pixels, half-open, sorted.
    dx: (i32, i32),
    dy: (i32, i32),
    /// (source start, source extent, destination start, destination extent) per axis.
    ax: (f64, f64, f64, f64),
    ay: (f64, f64, f64, f64),
    /// Source and destination layers.
    z: i32,
    dz: i32,
}

impl ResolveMap {
    fn new(info: &sys::pipe_blit_info) -> Self {
        let (sb, db) = (&info.src.box_, &info.dst.box_);
        let sorted = |x: i32, w: i32| if w < 0 { (x + w, x) } else { (x, x + w) };
        let mut dx = sorted(db.x, db.width);
        let mut dy = sorted(db.y, db.height);
        if info.scissor_enable {
            let sc = &info.scissor;
            dx = (dx.0.max(sc.minx() as i32), dx.1.min(sc.maxx() as i32));
            dy = (dy.0.max(sc.miny() as i32), dy.1.min(sc.maxy() as i32));
        }
        ResolveMap {
            dx,
            dy,
            ax: (sb.x as f64, sb.width as f64, db.x as f64, db.width as f64),
            ay: (sb.y as f64, sb.height as f64, db.y as f64, db.height as f64),
            z: sb.z as i32,
            dz: db.z as i32,
        }
    }

    fn empty(&self) -> bool {
        self.dx.0 >= self.dx.1 || self.dy.0 >= self.dy.1
    }

    /// The destination rectangle as a box (for the map of the destination).
    fn dst_box(&self) -> sys::pipe_box {
        sys::pipe_box {
            x: self.dx.0,
            y: self.dy.0,
            z: self.dz as _,
            width: self.dx.1 - self.dx.0,
            height: (self.dy.1 - self.dy.0) as _,
            depth: 1,
        }
    }

    /// The source pixel of destination pixel (x, y).
    fn source(&self, x: i32, y: i32) -> (u32, u32) {
        let axis = |p: i32, (s0, sw, d0, dw): (f64, f64, f64, f64)| {
            let t = (p as f64 + 0.5 - d0) / dw;
            let v = (s0 + t * sw).floor();
            let (lo, hi) = if sw < 0.0 {
                (s0 + sw, s0 - 1.0)
            } else {
                (s0, s0 + sw - 1.0)
            };
            v.clamp(lo, hi) as u32
        };
        (axis(x, self.ax), axis(y, self.ay))
    }
}

/// Resolves one plane: each destination pixel from its source pixel's samples (their mean in
/// `sformat`'s float values when `average`, else sample 0's), converted to `dformat`.
#[allow(clippy::too_many_arguments)]
unsafe fn resolve_plane(
    src: *mut sys::pipe_resource,
    slevel: u32,
    sformat: sys::pipe_format,
    dst: *mut sys::pipe_resource,
    dlevel: u32,
    dformat: sys::pipe_format,
    map: &ResolveMap,
    average: bool,
) -> Result<(), BlitError> {
    let r = Resource::get(src);
    let n = samples_of(src);
    let Some(l) = r.layout.as_ref() else {
        return Err(BlitError::Unsupported("resolve from a buffer"));
    };
    if map.empty() {
        return Ok(());
    }
    // Every source pixel the map can read lies in the source box.
    let (sx, sw) = (map.ax.0 as i32, map.ax.1 as i32);
    let (sy, sh) = (map.ay.0 as i32, map.ay.1 as i32);
    let sbox = sys::pipe_box {
        x: if sw < 0 { sx + sw } else { sx },
        y: if sh < 0 { sy + sh } else { sy },
        z: map.z as _,
        width: sw.abs(),
        height: sh.abs() as _,
        depth: 1,
    };
    region(r, slevel, &sbox)?;
    let sbytes = sys::util_format_get_blocksize(sformat) as usize;
    if sbytes != l.desc.element_bytes as usize {
        return Err(BlitError::Unsupported(
            "resolve through a view of another texel size",
        ));
    }
    let dbytes = sys::util_format_get_blocksize(dformat) as usize;
    let db = map.dst_box();
    let (w, h) = (db.width as usize, db.height as usize);
    let mem = r.bo().bytes();
    // The resolved rows in `dformat`, then written through a map of the destination.
    let mut rows = vec![0u8; w * h * dbytes];
    let mut rgba = vec![[0u32; 4]; n as usize];
    for y in 0..h {
        for x in 0..w {
            let (px, py) = map.source(db.x + x as i32, db.y + y as i32);
            let at = |smp: u32| l.element_offset(slevel, map.z as u32, px, py, smp) as usize;
            let out = &mut rows[(y * w + x) * dbytes..][..dbytes];
            if !average {
                let s0 = &mem[at(0)..at(0) + sbytes];
                if sformat == dformat {
                    out.copy_from_slice(s0);
                } else {
                    // Integer colour: through the unpacked integers.
                    sys::util_format_unpack_rgba(
                        sformat,
                        rgba.as_mut_ptr() as *mut c_void,
                        s0.as_ptr() as *const c_void,
                        1,
                    );
                    sys::util_format_pack_rgba(
                        dformat,
                        out.as_mut_ptr() as *mut c_void,
                        rgba.as_ptr() as *const c_void,
                        1,
                    );
                }
                continue;
            }
            let mean = sample_mean(l, mem, slevel, map.z as u32, (px, py), sformat);
            sys::util_format_pack_rgba(
                dformat,
                out.as_mut_ptr() as *mut c_void,
                mean.as_ptr() as *const c_void,
                1,
            );
        }
    }
    let (dt, dp) = map_resource(
        dst,
        dlevel,
        sys::PIPE_MAP_WRITE | sys::PIPE_MAP_DISCARD_RANGE,
        &db,
    )?;
    for y in 0..h {
        std::ptr::copy_nonoverlapping(
            rows[y * w * dbytes..].as_ptr(),
            dp.add(y * dt.base.stride as usize),
            w * dbytes,
        );
    }
    unmap_transfer(dt)?;
    Ok(())
}

pub unsafe extern "C" fn blit(ctx: *mut sys::pipe_context, info: *const sys::pipe_blit_info) {
    guard("blit", (), || {
        sync_planes(ctx, (*info).src.resource, false);
        sync_planes(ctx, (*info).dst.resource, true);
        match resolve_blit(ctx, &*info) {
            Ok(true) => return,
            Ok(false) => {}
            Err(e) => {
                eprintln!(
                    "agx16: multisample resolve of format {} to {} not done: {e}",
                    (*info).src.format,
                    (*info).dst.format
                );
                return;
            }
        }
        // Exact byte copies and conversions on the CPU; everything else as a draw.
        let Err(cpu) = cpu_blit(ctx, &*info) else {
            return;
        };
        // Depth/stencil NEAREST blits the CPU copy does not take (scaled, flipped, one plane).
        match zs_nearest_blit(&*info) {
            Ok(true) => return,
            Ok(false) => {}
            Err(e) => {
                eprintln!(
                    "agx16: depth/stencil blit of format {} not done: {e}",
                    (*info).src.format
                );
                return;
            }
        }
        if let Err(gpu) = crate::blit::gpu_blit(ctx, &*info) {
            eprintln!(
                "agx16: blit of format {} to {} not done: {cpu}; {gpu}",
                (*info).src.format,
                (*info).dst.format
            );
        }
    })
}

//! Resources and transfers on the in-process kernel core. Oracles: the CPU data written (round trips
//! byte for byte), the kernel's own GEM objects (what the GPU would read), an independent
//! implementation of the twiddle rule written here from its statement, and the kernel's object counts.

use crate::bo::testing::{device, KernelUapi};
use crate::resource::{create_resource, destroy_resource, Resource};
use crate::screen::Screen;
use crate::transfer::{map_resource, unmap_transfer, write_buffer, write_texture};
use agx16_cmdstream::layout::Tiling;
use agx16_mesa_sys as sys;
use std::sync::atomic::Ordering;
use std::sync::Arc;

fn screen() -> (Arc<KernelUapi>, Box<Screen>) {
    let (k, bo) = device();
    let params = agx16_kernel::params::params_global(&Default::default());
    (k, Screen::for_tests(bo, params))
}

/// Deterministic bytes (xorshift), distinct per seed.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn template(
    target: sys::pipe_texture_target,
    format: sys::pipe_format,
    w: u32,
    h: u16,
    array: u16,
    last_level: u8,
    bind: u32,
) -> sys::pipe_resource {
    // SAFETY: plain C data.
    let mut t: sys::pipe_resource = unsafe { std::mem::zeroed() };
    t.set_target(target);
    t.set_format(format);
    t.width0 = w;
    t.height0 = h;
    t.depth0 = 1;
    t.array_size = array;
    t.last_level = last_level;
    t.bind = bind;
    t
}

fn make(s: &mut Screen, t: &sys::pipe_resource) -> *mut sys::pipe_resource {
    let ps = &mut s.base as *mut sys::pipe_screen;
    Box::into_raw(create_resource(s, ps, t).expect("resource_create")) as *mut sys::pipe_resource
}

fn destroy(s: &Screen, r: *mut sys::pipe_resource) {
    // SAFETY: made by `make`, no other references.
    destroy_resource(s, unsafe { Box::from_raw(r as *mut Resource) });
}

fn bx(x: u32, y: u32, z: u32, w: u32, h: u32, d: u32) -> sys::pipe_box {
    sys::pipe_box {
        x: x as i32,
        width: w as i32,
        y: y as i32,
        height: h as i32,
        z: z as i16,
        depth: d as i16,
    }
}

/// Reads a box back through transfer_map, packed (no padding between rows).
fn read_box(r: *mut sys::pipe_resource, level: u32, b: &sys::pipe_box, bpp: usize) -> Vec<u8> {
    // SAFETY: a live resource; the map is released before returning.
    unsafe {
        let (t, ptr) = map_resource(r, level, sys::PIPE_MAP_READ, b).expect("map");
        let row = b.width as usize * bpp;
        let mut out = Vec::new();
        for z in 0..b.depth as usize {
            for y in 0..b.height as usize {
                let p = ptr.add(z * t.base.layer_stride + y * t.base.stride as usize);
                out.extend_from_slice(std::slice::from_raw_parts(p, row));
            }
        }
        unmap_transfer(t).unwrap();
        out
    }
}

/// The kernel's copy of the resource's BO (what the GPU sees).
fn kernel_bytes(k: &KernelUapi, r: *mut sys::pipe_resource) -> Vec<u8> {
    // SAFETY: a live resource.
    let bo = unsafe { Resource::get(r) }.bo();
    let mut out = vec![0u8; bo.size as usize];
    k.file.bo(bo.handle).unwrap().read(0, &mut out).unwrap();
    out
}

#[test]
fn buffer_subdata_and_map_round_trip_through_the_kernel_object() {
    let (k, mut s) = screen();
    let t = template(
        sys::PIPE_BUFFER,
        sys::PIPE_FORMAT_R8_UNORM,
        5000,
        1,
        1,
        0,
        sys::PIPE_BIND_VERTEX_BUFFER,
    );
    let r = make(&mut s, &t);
    let data = noise(5000, 1);
    unsafe { write_buffer(r, 0, 5000, data.as_ptr()).unwrap() };
    let patch = noise(123, 2);
    unsafe { write_buffer(r, 777, 123, patch.as_ptr()).unwrap() };
    let mut want = data.clone();
    want[777..900].copy_from_slice(&patch);
    assert_eq!(read_box(r, 0, &bx(0, 0, 0, 5000, 1, 1), 1), want);
    assert_eq!(read_box(r, 0, &bx(770, 0, 0, 40, 1, 1), 1), want[770..810]);
    assert_eq!(kernel_bytes(&k, r)[..5000], want[..]);
    // A box past the end is refused, not written.
    let err = unsafe { map_resource(r, 0, sys::PIPE_MAP_WRITE, &bx(4990, 0, 0, 20, 1, 1)) };
    assert!(err.is_err());
    destroy(&s, r);
    assert_eq!(s.bo.stats.live.load(Ordering::Relaxed), 0);
    s.bo.evict_cache();
    assert_eq!(k.file.counts().bos, 0);
}

/// The twiddle rule as agx-re states it (ADevWithAnIdea/agx-re docs/tiling/README.md, measured on
/// M4): square tiles of edge T = the largest power of two with T*T*bpp <= 16 KiB, row-major tiles,
/// Morton order inside a tile with x in the lower bit. Valid here for images at least T wide and
/// high whose tile rows are whole pages.
fn reference_twiddled_offset(x: u32, y: u32, width: u32, bpp: u32) -> usize {
    let mut t = 1;
    while (2 * t) * (2 * t) * bpp <= 16384 {
        t *= 2;
    }
    let cols = width.div_ceil(t);
    let tile = (y / t) * cols + x / t;
    let (mut m, xi, yi) = (0usize, x % t, y % t);
    for bit in 0..16 {
        m |= (((xi >> bit) & 1) as usize) << (2 * bit);
        m |= (((yi >> bit) & 1) as usize) << (2 * bit + 1);
    }
    (tile as usize * (t * t) as usize + m) * bpp as usize
}

#[test]
fn every_level_of_a_mip_chain_round_trips_and_level_zero_is_twiddled_per_the_rule() {
    let (k, mut s) = screen();
    let (w, h) = (256u32, 128u32);
    let levels = 9u32; // 256 -> 1
    let t = template(
        sys::PIPE_TEXTURE_2D,
        sys::PIPE_FORMAT_R8G8B8A8_UNORM,
        w,
        h as u16,
        1,
        (levels - 1) as u8,
        sys::PIPE_BIND_SAMPLER_VIEW | sys::PIPE_BIND_RENDER_TARGET,
    );
    let r = make(&mut s, &t);
    let layout = unsafe { Resource::get(r) }.layout.clone().unwrap();
    assert_eq!(layout.desc.tiling, Tiling::Twiddled);
    assert_eq!(layout.levels.len(), levels as usize);
    let mut uploads = Vec::new();
    for l in 0..levels {
        let (lw, lh) = ((w >> l).max(1), (h >> l).max(1));
        let data = noise((lw * lh * 4) as usize, 10 + l as u64);
        let b = bx(0, 0, 0, lw, lh, 1);
        unsafe {
            write_texture(
                std::ptr::null_mut(),
                r,
                l,
                &b,
                data.as_ptr(),
                lw as usize * 4,
                0,
            )
            .unwrap()
        };
        uploads.push(data);
    }
    for l in 0..levels {
        let (lw, lh) = ((w >> l).max(1), (h >> l).max(1));
        let back = read_box(r, l, &bx(0, 0, 0, lw, lh, 1), 4);
        assert!(back == uploads[l as usize], "level {l} ({lw}x{lh}) differs");
    }
    // Level 0 in the kernel's object follows the twiddle rule (T = 64 for 4-byte texels).
    let mem = kernel_bytes(&k, r);
    for (x, y) in [
        (0, 0),
        (1, 0),
        (0, 1),
        (63, 63),
        (64, 0),
        (200, 100),
        (255, 127),
    ] {
        let o = reference_twiddled_offset(x, y, w, 4);
        let src = ((y * w + x) * 4) as usize;
        assert_eq!(mem[o..o + 4], uploads[0][src..src + 4], "texel ({x},{y})");
    }
    destroy(&s, r);
}

#[test]
fn partial_boxes_read_modify_write_only_their_texels() {
    let (_k, mut s) = screen();
    let (w, h) = (100u32, 70u32);
    let t = template(
        sys::PIPE_TEXTURE_2D,
        sys::PIPE_FORMAT_B5G6R5_UNORM,
        w,
        h as u16,
        1,
        0,
        sys::PIPE_BIND_SAMPLER_VIEW,
    );
    let r = make(&mut s, &t);
    let mut want = noise((w * h * 2) as usize, 3);
    unsafe {
        write_texture(
            std::ptr::null_mut(),
            r,
            0,
            &bx(0, 0, 0, w, h, 1),
            want.as_ptr(),
            w as usize * 2,
            0,
        )
        .unwrap()
    };
    let (bx0, by0, bw, bh) = (13u32, 29u32, 37u32, 11u32);
    let patch = noise((bw * bh * 2) as usize, 4);
    unsafe {
        write_texture(
            std::ptr::null_mut(),
            r,
            0,
            &bx(bx0, by0, 0, bw, bh, 1),
            patch.as_ptr(),
            bw as usize * 2,
            0,
        )
        .unwrap()
    };
    for y in 0..bh {
        let d = (((by0 + y) * w + bx0) * 2) as usize;
        let s = (y * bw * 2) as usize;
        want[d..d + bw as usize * 2].copy_from_slice(&patch[s..s + bw as usize * 2]);
    }
    assert!(read_box(r, 0, &bx(0, 0, 0, w, h, 1), 2) == want);
    assert_eq!(
        read_box(r, 0, &bx(bx0, by0, 0, bw, bh, 1), 2),
        patch,
        "sub-box readback"
    );
    // A large box (over a quarter of the plane) takes the whole-plane path.
    let (bx0, by0, bw, bh) = (5u32, 3u32, 90u32, 61u32);
    let patch = noise((bw * bh * 2) as usize, 5);
    unsafe {
        write_texture(
            std::ptr::null_mut(),
            r,
            0,
            &bx(bx0, by0, 0, bw, bh, 1),
            patch.as_ptr(),
            bw as usize * 2,
            0,
        )
        .unwrap()
    };
    for y in 0..bh {
        let d = (((by0 + y) * w + bx0) * 2) as usize;
        let s = (y * bw * 2) as usize;
        want[d..d + bw as usize * 2].copy_from_slice(&patch[s..s + bw as usize * 2]);
    }
    assert!(read_box(r, 0, &bx(0, 0, 0, w, h, 1), 2) == want);
    assert_eq!(read_box(r, 0, &bx(bx0, by0, 0, bw, bh, 1), 2), patch);
    // Twiddled memory cannot be handed out directly.
    let direct = sys::PIPE_MAP_READ | sys::PIPE_MAP_DIRECTLY;
    assert!(unsafe { map_resource(r, 0, direct, &bx(0, 0, 0, 4, 4, 1)) }.is_err());
    destroy(&s, r);
}

#[test]
fn cube_faces_and_array_layers_are_separate_planes() {
    let (_k, mut s) = screen();
    for (target, array) in [
        (sys::PIPE_TEXTURE_CUBE, 6u16),
        (sys::PIPE_TEXTURE_2D_ARRAY, 5),
    ] {
        let t = template(
            target,
            sys::PIPE_FORMAT_R8G8B8A8_UNORM,
            32,
            32,
            array,
            5,
            sys::PIPE_BIND_SAMPLER_VIEW,
        );
        let r = make(&mut s, &t);
        let mut planes = Vec::new();
        for level in [0u32, 3] {
            let e = 32 >> level;
            for z in 0..array as u32 {
                let data = noise(e * e * 4, (level * 100 + z) as u64);
                let b = bx(0, 0, z, e as u32, e as u32, 1);
                unsafe {
                    write_texture(std::ptr::null_mut(), r, level, &b, data.as_ptr(), e * 4, 0)
                        .unwrap()
                };
                planes.push((level, z, data));
            }
        }
        for (level, z, data) in &planes {
            let e = 32 >> level;
            let back = read_box(r, *level, &bx(0, 0, *z, e, e, 1), 4);
            assert!(back == *data, "target {target} level {level} plane {z}");
        }
        // All planes of a level at once: layer_stride separates them.
        let all = read_box(r, 3, &bx(0, 0, 0, 4, 4, array as u32), 4);
        let want: Vec<u8> = planes
            .iter()
            .filter(|p| p.0 == 3)
            .flat_map(|p| p.2.clone())
            .collect();
        assert_eq!(all, want);
        destroy(&s, r);
    }
}

#[test]
fn depth_stencil_formats_are_twiddled_and_linear_targets_are_row_major() {
    let (k, mut s) = screen();
    for (format, bpp) in [
        (sys::PIPE_FORMAT_Z32_FLOAT, 4usize),
        (sys::PIPE_FORMAT_Z16_UNORM, 2),
        (sys::PIPE_FORMAT_S8_UINT, 1),
    ] {
        let t = template(
            sys::PIPE_TEXTURE_2D,
            format,
            40,
            24,
            1,
            0,
            sys::PIPE_BIND_DEPTH_STENCIL,
        );
        let r = make(&mut s, &t);
        let res = unsafe { Resource::get(r) };
        assert_eq!(res.layout.as_ref().unwrap().desc.tiling, Tiling::Twiddled);
        let data = noise(40 * 24 * bpp, bpp as u64);
        unsafe {
            write_texture(
                std::ptr::null_mut(),
                r,
                0,
                &bx(0, 0, 0, 40, 24, 1),
                data.as_ptr(),
                40 * bpp,
                0,
            )
            .unwrap()
        };
        assert!(read_box(r, 0, &bx(0, 0, 0, 40, 24, 1), bpp) == data);
        destroy(&s, r);
    }
    // A display target is linear: rows at a 16-byte-aligned stride, straight in the BO.
    let t = template(
        sys::PIPE_TEXTURE_2D,
        sys::PIPE_FORMAT_B8G8R8A8_UNORM,
        33,
        9,
        1,
        0,
        sys::PIPE_BIND_RENDER_TARGET | sys::PIPE_BIND_DISPLAY_TARGET,
    );
    let r = make(&mut s, &t);
    let data = noise(33 * 9 * 4, 9);
    unsafe {
        write_texture(
            std::ptr::null_mut(),
            r,
            0,
            &bx(0, 0, 0, 33, 9, 1),
            data.as_ptr(),
            33 * 4,
            0,
        )
        .unwrap()
    };
    let (tr, _) =
        unsafe { map_resource(r, 0, sys::PIPE_MAP_READ, &bx(0, 0, 0, 33, 9, 1)).unwrap() };
    assert_eq!(tr.base.stride, 144); // 132 rounded up to 16
    unsafe { unmap_transfer(tr).unwrap() };
    let mem = kernel_bytes(&k, r);
    for y in 0..9 {
        assert_eq!(mem[y * 144..y * 144 + 132], data[y * 132..(y + 1) * 132]);
    }
    destroy(&s, r);
    // LINEAR on a mipmapped texture cannot be honoured: an error, no allocation.
    let t = template(
        sys::PIPE_TEXTURE_2D,
        sys::PIPE_FORMAT_R8G8B8A8_UNORM,
        64,
        64,
        1,
        3,
        sys::PIPE_BIND_LINEAR,
    );
    let ps = &mut s.base as *mut sys::pipe_screen;
    assert!(create_resource(&s, ps, &t).is_err());
    assert_eq!(s.bo.stats.live.load(Ordering::Relaxed), 0);
    drop(s);
    let c = k.file.counts();
    assert_eq!((c.bos, c.vms, c.mappings), (0, 0, 0), "{c:?}");
}

/// Gallium's reference helpers (u_inlines.h) call this describer from libgallium's auxiliary library
/// for refcount debugging, which unit tests do not link. Only used when GALLIUM_REFCNT_LOG is set;
/// an empty description is what it prints for unknown objects.
#[no_mangle]
extern "C" fn debug_describe_resource(buf: *mut std::ffi::c_char, _: *const sys::pipe_resource) {
    // SAFETY: Mesa passes a buffer of at least one byte.
    unsafe { *buf = 0 };
}

#[test]
fn bad_requests_through_the_c_entry_points_fail_cleanly() {
    use crate::resource::{resource_create, resource_destroy};
    use crate::transfer::{map, unmap};
    let (k, mut s) = screen();
    let ps = &mut s.base as *mut sys::pipe_screen;
    // 3-byte texels have no G16 layout: NULL, nothing allocated.
    let t = template(
        sys::PIPE_TEXTURE_2D,
        sys::PIPE_FORMAT_R8G8B8_UNORM,
        16,
        16,
        1,
        0,
        sys::PIPE_BIND_SAMPLER_VIEW,
    );
    assert!(unsafe { resource_create(ps, &t) }.is_null());
    // More levels than the image has: NULL.
    let t = template(
        sys::PIPE_TEXTURE_2D,
        sys::PIPE_FORMAT_R8G8B8A8_UNORM,
        16,
        16,
        1,
        9,
        sys::PIPE_BIND_SAMPLER_VIEW,
    );
    assert!(unsafe { resource_create(ps, &t) }.is_null());
    assert_eq!(k.file.counts().bos, 0);
    let t = template(
        sys::PIPE_TEXTURE_2D,
        sys::PIPE_FORMAT_R8G8B8A8_UNORM,
        16,
        16,
        1,
        4,
        sys::PIPE_BIND_SAMPLER_VIEW,
    );
    let r = unsafe { resource_create(ps, &t) };
    assert!(!r.is_null());
    let mut tr: *mut sys::pipe_transfer = std::ptr::dangling_mut();
    for (level, b) in [
        (5, bx(0, 0, 0, 1, 1, 1)),
        (1, bx(4, 4, 0, 8, 8, 1)),
        (0, bx(0, 0, 1, 1, 1, 1)),
    ] {
        let p = unsafe {
            map(
                std::ptr::null_mut(),
                r,
                level,
                sys::PIPE_MAP_READ,
                &b,
                &mut tr,
            )
        };
        assert!(p.is_null() && tr.is_null(), "level {level} box {b:?}");
    }
    // A good map still works afterwards, and the resource is freed once.
    let p = unsafe {
        map(
            std::ptr::null_mut(),
            r,
            4,
            sys::PIPE_MAP_READ,
            &bx(0, 0, 0, 1, 1, 1),
            &mut tr,
        )
    };
    assert!(!p.is_null() && !tr.is_null());
    unsafe { unmap(std::ptr::null_mut(), tr) };
    unsafe { resource_destroy(ps, r) };
    assert_eq!(s.bo.stats.live.load(Ordering::Relaxed), 0);
}

#[test]
fn copy_region_moves_boxes_between_buffers_and_between_twiddled_and_linear_images() {
    use crate::transfer::copy_region;
    let (_k, mut s) = screen();
    // Buffer to itself, overlapping: the source is read before the destination is written.
    let t = template(
        sys::PIPE_BUFFER,
        sys::PIPE_FORMAT_R8_UNORM,
        1000,
        1,
        1,
        0,
        sys::PIPE_BIND_VERTEX_BUFFER,
    );
    let b = make(&mut s, &t);
    let data = noise(1000, 7);
    unsafe { write_buffer(b, 0, 1000, data.as_ptr()).unwrap() };
    unsafe { copy_region(b, 0, 100, 0, 0, b, 0, &bx(50, 0, 0, 300, 1, 1)).unwrap() };
    let mut want = data.clone();
    want.copy_within(50..350, 100);
    assert_eq!(read_box(b, 0, &bx(0, 0, 0, 1000, 1, 1), 1), want);
    destroy(&s, b);
    // Level 1 of a twiddled mip chain into a linear display target, at an offset.
    let tex = template(
        sys::PIPE_TEXTURE_2D,
        sys::PIPE_FORMAT_R8G8B8A8_UNORM,
        64,
        64,
        1,
        2,
        sys::PIPE_BIND_SAMPLER_VIEW,
    );
    let lin = template(
        sys::PIPE_TEXTURE_2D,
        sys::PIPE_FORMAT_R8G8B8A8_UNORM,
        40,
        40,
        1,
        0,
        sys::PIPE_BIND_DISPLAY_TARGET,
    );
    let (a, l) = (make(&mut s, &tex), make(&mut s, &lin));
    let lvl1 = noise(32 * 32 * 4, 8);
    unsafe {
        write_texture(
            std::ptr::null_mut(),
            a,
            1,
            &bx(0, 0, 0, 32, 32, 1),
            lvl1.as_ptr(),
            128,
            0,
        )
        .unwrap()
    };
    unsafe { copy_region(l, 0, 5, 6, 0, a, 1, &bx(3, 4, 0, 20, 10, 1)).unwrap() };
    let got = read_box(l, 0, &bx(5, 6, 0, 20, 10, 1), 4);
    let want: Vec<u8> = (0..10)
        .flat_map(|y| lvl1[((4 + y) * 32 + 3) * 4..][..80].to_vec())
        .collect();
    assert_eq!(got, want);
    // Different texel sizes are refused.
    let small = template(
        sys::PIPE_TEXTURE_2D,
        sys::PIPE_FORMAT_B5G6R5_UNORM,
        8,
        8,
        1,
        0,
        sys::PIPE_BIND_SAMPLER_VIEW,
    );
    let m = make(&mut s, &small);
    assert!(unsafe { copy_region(m, 0, 0, 0, 0, a, 0, &bx(0, 0, 0, 4, 4, 1)) }.is_err());
    for r in [a, l, m] {
        destroy(&s, r);
    }
    assert_eq!(s.bo.stats.live.load(Ordering::Relaxed), 0);
}

#[test]
fn three_d_slices_of_each_level_round_trip_in_one_map() {
    let (_k, mut s) = screen();
    let mut t = template(
        sys::PIPE_TEXTURE_3D,
        sys::PIPE_FORMAT_R8G8B8A8_UNORM,
        16,
        8,
        1,
        2,
        sys::PIPE_BIND_SAMPLER_VIEW,
    );
    t.depth0 = 4;
    let r = make(&mut s, &t);
    for (level, (w, h, d)) in [(0u32, (16u32, 8u32, 4u32)), (1, (8, 4, 2)), (2, (4, 2, 1))] {
        let data = noise((w * h * d * 4) as usize, 50 + level as u64);
        let b = bx(0, 0, 0, w, h, d);
        let (row, layer) = (w as usize * 4, (w * h * 4) as usize);
        unsafe {
            write_texture(
                std::ptr::null_mut(),
                r,
                level,
                &b,
                data.as_ptr(),
                row,
                layer,
            )
            .unwrap()
        };
        assert!(read_box(r, level, &b, 4) == data, "level {level}");
    }
    destroy(&s, r);
}

fn blit_info(
    dst: *mut sys::pipe_resource,
    dformat: sys::pipe_format,
    dbox: sys::pipe_box,
    src: *mut sys::pipe_resource,
    sformat: sys::pipe_format,
    sbox: sys::pipe_box,
) -> sys::pipe_blit_info {
    // SAFETY: plain C data.
    let mut info: sys::pipe_blit_info = unsafe { std::mem::zeroed() };
    info.dst.resource = dst;
    info.dst.format = dformat;
    info.dst.box_ = dbox;
    info.src.resource = src;
    info.src.format = sformat;
    info.src.box_ = sbox;
    info.mask = sys::PIPE_MASK_RGBA;
    info
}

#[test]
fn unscaled_blits_copy_and_convert_on_the_cpu_and_others_are_refused() {
    use crate::transfer::cpu_blit;
    let (_k, mut s) = screen();
    let bgra = template(
        sys::PIPE_TEXTURE_2D,
        sys::PIPE_FORMAT_B8G8R8A8_UNORM,
        30,
        20,
        1,
        0,
        sys::PIPE_BIND_DISPLAY_TARGET,
    );
    let rgba = template(
        sys::PIPE_TEXTURE_2D,
        sys::PIPE_FORMAT_R8G8B8A8_UNORM,
        64,
        64,
        1,
        1,
        sys::PIPE_BIND_SAMPLER_VIEW,
    );
    let (a, b) = (make(&mut s, &bgra), make(&mut s, &rgba));
    let data = noise(30 * 20 * 4, 21);
    unsafe {
        write_texture(
            std::ptr::null_mut(),
            a,
            0,
            &bx(0, 0, 0, 30, 20, 1),
            data.as_ptr(),
            120,
            0,
        )
        .unwrap()
    };
    // BGRA (linear) -> RGBA (twiddled, level 1, at an offset): channels swap, nothing else changes.
    let mut info = blit_info(
        b,
        sys::PIPE_FORMAT_R8G8B8A8_UNORM,
        bx(2, 3, 0, 12, 9, 1),
        a,
        sys::PIPE_FORMAT_B8G8R8A8_UNORM,
        bx(4, 5, 0, 12, 9, 1),
    );
    info.dst.level = 1;
    unsafe { cpu_blit(std::ptr::null_mut(), &info).unwrap() };
    let got = read_box(b, 1, &bx(2, 3, 0, 12, 9, 1), 4);
    for y in 0..9usize {
        for x in 0..12usize {
            let sp = ((5 + y) * 30 + 4 + x) * 4;
            let dp = (y * 12 + x) * 4;
            let (bb, g, r, al) = (data[sp], data[sp + 1], data[sp + 2], data[sp + 3]);
            assert_eq!(got[dp..dp + 4], [r, g, bb, al], "texel ({x},{y})");
        }
    }
    // Scaling, partial masks and scissors need the GPU: refused, destination untouched.
    let mut scaled = info;
    scaled.dst.box_ = bx(0, 0, 0, 24, 18, 1);
    let mut masked = info;
    masked.mask = sys::PIPE_MASK_R;
    let mut scissored = info;
    scissored.scissor_enable = true;
    for bad in [scaled, masked, scissored] {
        assert!(unsafe { cpu_blit(std::ptr::null_mut(), &bad) }.is_err());
    }
    assert_eq!(read_box(b, 1, &bx(2, 3, 0, 12, 9, 1), 4), got);
    for r in [a, b] {
        destroy(&s, r);
    }
}

/// Sampled formats of every texel size (1, 2, 4, 8, 16 bytes) round-trip a mip chain byte for byte
/// and place level 0 where the twiddle rule (written here from its statement) puts each texel for
/// that size, which is what the model's descriptor-derived layout reads.
#[test]
fn sampled_formats_of_every_texel_size_round_trip_and_twiddle_by_their_size() {
    let (k, mut s) = screen();
    // A width of whole 16 KiB tile rows for every size (the reference has no row padding), an
    // unaligned height.
    let (w, h, levels) = (128u32, 40u32, 4u32);
    for (i, (format, bpp)) in [
        (sys::PIPE_FORMAT_R8_UNORM, 1usize),
        (sys::PIPE_FORMAT_B5G6R5_UNORM, 2),
        (sys::PIPE_FORMAT_R16_FLOAT, 2),
        (sys::PIPE_FORMAT_R11G11B10_FLOAT, 4),
        (sys::PIPE_FORMAT_R16G16B16A16_FLOAT, 8),
        (sys::PIPE_FORMAT_R32G32B32A32_UINT, 16),
    ]
    .into_iter()
    .enumerate()
    {
        assert!(crate::formats::sampled(format).is_some(), "{format}");
        let t = template(
            sys::PIPE_TEXTURE_2D,
            format,
            w,
            h as u16,
            1,
            (levels - 1) as u8,
            sys::PIPE_BIND_SAMPLER_VIEW,
        );
        let r = make(&mut s, &t);
        let mut uploads = Vec::new();
        for l in 0..levels {
            let (lw, lh) = ((w >> l).max(1), (h >> l).max(1));
            let data = noise(
                lw as usize * lh as usize * bpp,
                100 + i as u64 * 10 + l as u64,
            );
            let b = bx(0, 0, 0, lw, lh, 1);
            unsafe {
                write_texture(
                    std::ptr::null_mut(),
                    r,
                    l,
                    &b,
                    data.as_ptr(),
                    lw as usize * bpp,
                    0,
                )
                .unwrap()
            };
            uploads.push(data);
        }
        for l in 0..levels {
            let (lw, lh) = ((w >> l).max(1), (h >> l).max(1));
            let back = read_box(r, l, &bx(0, 0, 0, lw, lh, 1), bpp);
            assert!(back == uploads[l as usize], "{format} level {l} differs");
        }
        let mem = kernel_bytes(&k, r);
        for (x, y) in [(0, 0), (1, 0), (0, 1), (17, 9), (127, 39), (64, 32)] {
            let o = reference_twiddled_offset(x, y, w, bpp as u32);
            let src = (y * w + x) as usize * bpp;
            assert_eq!(
                mem[o..o + bpp],
                uploads[0][src..src + bpp],
                "{format} texel ({x},{y})"
            );
        }
        destroy(&s, r);
    }
}

//! Packed depth/stencil formats stored split by u_transfer_helper (resource.rs
//! `TRANSFER_HELPER_FLAGS`), on the in-process kernel core. Oracles: a CPU packing of each format
//! written here from Mesa's format descriptions (u_format.csv: Z24_UNORM_S8_UINT = depth in bits
//! 0..23, stencil in 24..31; Z24X8_UNORM = depth in bits 0..23; Z32_FLOAT_S8X24_UINT = float depth
//! in bytes 0..3, stencil in byte 4), the planes read back as stored (Z32_FLOAT and S8_UINT), and
//! the kernel's object counts.

use crate::bo::testing::{device, KernelUapi};
use crate::resource::Resource;
use crate::screen::Screen;
use crate::transfer::write_texture;
use crate::transfer::{
    copy_region, cpu_blit, map_any, map_resource, unmap_any, unmap_transfer, zs_nearest_blit,
};
use agx16_mesa_sys as sys;
use std::ptr::null_mut;
use std::sync::atomic::Ordering;
use std::sync::Arc;

fn screen() -> (Arc<KernelUapi>, Box<Screen>) {
    let (k, bo) = device();
    let params = agx16_kernel::params::params_global(&Default::default());
    (k, Screen::for_tests(bo, params))
}

/// A context with only `screen` set: all u_transfer_helper reads of it.
fn context(s: &mut Screen) -> Box<sys::pipe_context> {
    // SAFETY: plain C data.
    let mut c: Box<sys::pipe_context> = Box::new(unsafe { std::mem::zeroed() });
    c.screen = &mut s.base;
    c
}

fn template(format: sys::pipe_format, w: u32, h: u16, last_level: u8) -> sys::pipe_resource {
    // SAFETY: plain C data.
    let mut t: sys::pipe_resource = unsafe { std::mem::zeroed() };
    t.set_target(sys::PIPE_TEXTURE_2D);
    t.set_format(format);
    t.width0 = w;
    t.height0 = h;
    t.depth0 = 1;
    t.array_size = 1;
    t.last_level = last_level;
    t.bind = sys::PIPE_BIND_DEPTH_STENCIL | sys::PIPE_BIND_SAMPLER_VIEW;
    t
}

/// Through the screen's hook, as Mesa creates resources.
fn create(s: &mut Screen, t: &sys::pipe_resource) -> *mut sys::pipe_resource {
    let hook = s.base.resource_create.expect("resource_create hook");
    // SAFETY: a screen set up by for_tests.
    let r = unsafe { hook(&mut s.base, t) };
    assert!(!r.is_null(), "resource_create");
    r
}

fn destroy(s: &mut Screen, r: *mut sys::pipe_resource) {
    let hook = s.base.resource_destroy.expect("resource_destroy hook");
    // SAFETY: made by `create`, no other references.
    unsafe { hook(&mut s.base, r) };
}

fn bx(x: u32, y: u32, w: u32, h: u32) -> sys::pipe_box {
    sys::pipe_box {
        x: x as i32,
        width: w as i32,
        y: y as i32,
        height: h as i32,
        z: 0,
        depth: 1,
    }
}

/// Deterministic words (xorshift).
fn noise(len: usize, seed: u64) -> Vec<u32> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32
        })
        .collect()
}

/// One texel: depth as a 24-bit unorm code (or, for Z32F-based formats, a float) and stencil.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Texel {
    depth: f32,
    stencil: u8,
}

/// The CPU reference of each packed format: bytes per texel, pack, unpack.
struct Packing {
    format: sys::pipe_format,
    bytes: usize,
    has_stencil: bool,
}

const FORMATS: [Packing; 3] = [
    Packing {
        format: sys::PIPE_FORMAT_Z24_UNORM_S8_UINT,
        bytes: 4,
        has_stencil: true,
    },
    Packing {
        format: sys::PIPE_FORMAT_Z24X8_UNORM,
        bytes: 4,
        has_stencil: false,
    },
    Packing {
        format: sys::PIPE_FORMAT_Z32_FLOAT_S8X24_UINT,
        bytes: 8,
        has_stencil: true,
    },
];

impl Packing {
    fn z24(&self) -> bool {
        self.bytes == 4
    }

    /// A texel from a random word: Z24 formats get a 24-bit code's value, Z32F any float in [0, 1].
    fn texel(&self, word: u32, word2: u32) -> Texel {
        let depth = if self.z24() {
            ((word & 0xff_ffff) as f64 / 16_777_215.0) as f32
        } else {
            (word as f64 / u32::MAX as f64) as f32
        };
        let stencil = if self.has_stencil { word2 as u8 } else { 0 };
        Texel { depth, stencil }
    }

    fn pack(&self, t: Texel, out: &mut [u8]) {
        if self.z24() {
            let code = (t.depth as f64 * 16_777_215.0).round() as u32;
            let word = code | (t.stencil as u32) << 24;
            out[..4].copy_from_slice(&word.to_le_bytes());
        } else {
            out[..4].copy_from_slice(&t.depth.to_le_bytes());
            out[4] = t.stencil;
            out[5..8].fill(0);
        }
    }

    fn unpack(&self, b: &[u8]) -> Texel {
        if self.z24() {
            let word = u32::from_le_bytes(b[..4].try_into().unwrap());
            Texel {
                depth: ((word & 0xff_ffff) as f64 / 16_777_215.0) as f32,
                stencil: if self.has_stencil {
                    (word >> 24) as u8
                } else {
                    0
                },
            }
        } else {
            Texel {
                depth: f32::from_le_bytes(b[..4].try_into().unwrap()),
                stencil: b[4],
            }
        }
    }
}

/// Texels of a box read through the context-level map (packed format).
fn read_packed(
    ctx: &mut sys::pipe_context,
    p: &Packing,
    r: *mut sys::pipe_resource,
    level: u32,
    b: &sys::pipe_box,
) -> Vec<Texel> {
    // SAFETY: a live split resource; the map is released before returning.
    unsafe {
        let (t, ptr) = map_any(ctx, r, level, sys::PIPE_MAP_READ, b).expect("map");
        let mut out = Vec::new();
        for y in 0..b.height as usize {
            for x in 0..b.width as usize {
                let at = ptr.add(y * (*t).stride as usize + x * p.bytes);
                out.push(p.unpack(std::slice::from_raw_parts(at, p.bytes)));
            }
        }
        unmap_any(ctx, t).unwrap();
        out
    }
}

/// Plane bytes of a box read as stored (no helper).
fn read_plane(r: *mut sys::pipe_resource, level: u32, b: &sys::pipe_box, bpp: usize) -> Vec<u8> {
    // SAFETY: a live resource; the map is released before returning.
    unsafe {
        let (t, ptr) = map_resource(r, level, sys::PIPE_MAP_READ, b).expect("map plane");
        let mut out = Vec::new();
        for y in 0..b.height as usize {
            let row = ptr.add(y * t.base.stride as usize);
            out.extend_from_slice(std::slice::from_raw_parts(row, b.width as usize * bpp));
        }
        unmap_transfer(t).unwrap();
        out
    }
}

fn random_texels(p: &Packing, n: usize, seed: u64) -> Vec<Texel> {
    let (a, b) = (noise(n, seed), noise(n, seed + 100));
    (0..n).map(|i| p.texel(a[i], b[i])).collect()
}

fn packed_bytes(p: &Packing, texels: &[Texel]) -> Vec<u8> {
    let mut out = vec![0u8; texels.len() * p.bytes];
    for (i, &t) in texels.iter().enumerate() {
        p.pack(t, &mut out[i * p.bytes..]);
    }
    out
}

/// The planes as the GPU sees them hold the texels: Z32F depth equal to the reference's float,
/// S8 stencil equal to the reference's byte.
fn check_planes(
    p: &Packing,
    r: *mut sys::pipe_resource,
    level: u32,
    w: u32,
    h: u32,
    want: &[Texel],
) {
    let depth = read_plane(r, level, &bx(0, 0, w, h), 4);
    for (i, t) in want.iter().enumerate() {
        let d = f32::from_le_bytes(depth[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!(d.to_bits(), t.depth.to_bits(), "depth plane texel {i}");
    }
    // SAFETY: a live resource.
    let stencil = unsafe { Resource::get(r) }.stencil;
    if p.has_stencil {
        let s = read_plane(stencil, level, &bx(0, 0, w, h), 1);
        let ws: Vec<u8> = want.iter().map(|t| t.stencil).collect();
        assert_eq!(s, ws, "stencil plane");
    } else {
        assert!(stencil.is_null());
    }
}

#[test]
fn packed_depth_stencil_formats_are_split_into_z32f_and_s8_planes_and_round_trip() {
    let (k, mut s) = screen();
    let mut ctx = context(&mut s);
    for (n, p) in FORMATS.iter().enumerate() {
        let (w, h) = (37u32, 21u16);
        let r = create(&mut s, &template(p.format, w, h as _, 1));
        // SAFETY: live resources made above.
        unsafe {
            let res = Resource::get(r);
            assert_eq!(res.base.format(), p.format, "the frontend keeps its format");
            assert_eq!(res.internal_format, sys::PIPE_FORMAT_Z32_FLOAT);
            assert_eq!(res.layout.as_ref().unwrap().desc.element_bytes, 4);
            assert_eq!(!res.stencil.is_null(), p.has_stencil);
            if p.has_stencil {
                let st = Resource::get(res.stencil);
                assert_eq!(st.internal_format, sys::PIPE_FORMAT_S8_UINT);
                assert_eq!(st.layout.as_ref().unwrap().desc.element_bytes, 1);
            }
        }
        for level in 0..2u32 {
            let (lw, lh) = ((w >> level).max(1), ((h as u32) >> level).max(1));
            let texels = random_texels(p, (lw * lh) as usize, 7 * n as u64 + level as u64);
            let bytes = packed_bytes(p, &texels);
            // SAFETY: `bytes` covers the box.
            unsafe {
                write_texture(
                    &mut *ctx,
                    r,
                    level,
                    &bx(0, 0, lw, lh),
                    bytes.as_ptr(),
                    lw as usize * p.bytes,
                    0,
                )
                .unwrap()
            };
            check_planes(p, r, level, lw, lh, &texels);
            assert_eq!(
                read_packed(&mut ctx, p, r, level, &bx(0, 0, lw, lh)),
                texels
            );

            // A partial write through a read-write map keeps the texels around it.
            let (bx0, by0, bw, bh) = (3u32, 2u32, lw.min(11) - 3, lh.min(7) - 2);
            let patch = random_texels(p, (bw * bh) as usize, 1000 + n as u64);
            let mut want = texels.clone();
            // SAFETY: the map covers the box; released before reading.
            unsafe {
                let b = bx(bx0, by0, bw, bh);
                let (t, ptr) = map_any(&mut *ctx, r, level, sys::PIPE_MAP_WRITE, &b).unwrap();
                for y in 0..bh as usize {
                    for x in 0..bw as usize {
                        let at = ptr.add(y * (*t).stride as usize + x * p.bytes);
                        let i = y * bw as usize + x;
                        p.pack(patch[i], std::slice::from_raw_parts_mut(at, p.bytes));
                        want[(by0 as usize + y) * lw as usize + bx0 as usize + x] = patch[i];
                    }
                }
                unmap_any(&mut *ctx, t).unwrap();
            }
            check_planes(p, r, level, lw, lh, &want);
            assert_eq!(read_packed(&mut ctx, p, r, level, &bx(0, 0, lw, lh)), want);
        }
        // Boxes outside the level are refused without touching the helper.
        assert!(unsafe { map_any(&mut *ctx, r, 1, sys::PIPE_MAP_READ, &bx(0, 0, 40, 1)) }.is_err());
        destroy(&mut s, r);
    }
    // Both planes of every resource were freed.
    assert_eq!(s.bo.stats.live.load(Ordering::Relaxed), 0);
    s.bo.evict_cache();
    assert_eq!(k.file.counts().bos, 0);
}

#[test]
fn z24_codes_survive_the_z32f_plane_exactly() {
    // Every 24-bit depth code through Mesa's conversions into the float plane and back (what the
    // helper does at map and unmap): the Z24-in-Z32F choice loses nothing.
    const N: u32 = 1 << 24;
    let codes: Vec<u32> = (0..N).map(|z| z | 0x5a00_0000).collect();
    let mut floats = vec![0f32; N as usize];
    let mut back = vec![0u32; N as usize];
    let row = 4096u32;
    // SAFETY: buffers of N texels, rows of `row` texels.
    unsafe {
        sys::util_format_z24_unorm_s8_uint_unpack_z_float(
            floats.as_mut_ptr(),
            row * 4,
            codes.as_ptr() as *const u8,
            row * 4,
            row,
            N / row,
        );
        sys::util_format_z24_unorm_s8_uint_pack_z_float(
            back.as_mut_ptr() as *mut u8,
            row * 4,
            floats.as_ptr(),
            row * 4,
            row,
            N / row,
        );
    }
    for z in 0..N {
        assert_eq!(back[z as usize] & 0xff_ffff, z, "code {z}");
        // The float is the code's value, rounded once (the reference's conversion).
        let want = (z as f64 / 16_777_215.0) as f32;
        assert_eq!(floats[z as usize].to_bits(), want.to_bits(), "code {z}");
    }
}

#[test]
fn copies_and_blits_of_split_resources_move_both_planes() {
    let (_k, mut s) = screen();
    let mut ctx = context(&mut s);
    let p = &FORMATS[0];
    let (w, h) = (24u32, 16u32);
    let a = create(&mut s, &template(p.format, w, h as u16, 0));
    let b = create(&mut s, &template(p.format, w, h as u16, 0));
    let c = create(&mut s, &template(p.format, w, h as u16, 0));
    let texels = random_texels(p, (w * h) as usize, 42);
    let bytes = packed_bytes(p, &texels);
    // SAFETY: live resources; `bytes` covers the box.
    unsafe {
        write_texture(
            &mut *ctx,
            a,
            0,
            &bx(0, 0, w, h),
            bytes.as_ptr(),
            w as usize * 4,
            0,
        )
        .unwrap();
        write_texture(
            &mut *ctx,
            b,
            0,
            &bx(0, 0, w, h),
            bytes.as_ptr(),
            w as usize * 4,
            0,
        )
        .unwrap();
        write_texture(
            &mut *ctx,
            c,
            0,
            &bx(0, 0, w, h),
            bytes.as_ptr(),
            w as usize * 4,
            0,
        )
        .unwrap();
    }
    // resource_copy_region of a 10x5 box from a (5, 3) to b at (2, 9).
    unsafe { copy_region(b, 0, 2, 9, 0, a, 0, &bx(5, 3, 10, 5)) }.unwrap();
    let mut want = texels.clone();
    copy_box(&mut want, &texels, w as usize, (5, 3), (2, 9), (10, 5));
    check_planes(p, b, 0, w, h, &want);
    assert_eq!(read_packed(&mut ctx, p, b, 0, &bx(0, 0, w, h)), want);

    // An unscaled depth+stencil blit of the same box from a to c.
    // SAFETY: plain C data.
    let mut info: sys::pipe_blit_info = unsafe { std::mem::zeroed() };
    info.src.resource = a;
    info.src.format = p.format;
    info.src.box_ = bx(5, 3, 10, 5);
    info.dst.resource = c;
    info.dst.format = p.format;
    info.dst.box_ = bx(2, 9, 10, 5);
    info.mask = sys::PIPE_MASK_ZS;
    unsafe { cpu_blit(&mut *ctx, &info) }.unwrap();
    check_planes(p, c, 0, w, h, &want);

    // A flipped, scaled NEAREST stencil-only blit (what u_blitter cannot do without a
    // stencil export) on the CPU: the destination box (2, 1)..(22, 15) flipped in y reads
    // the source box (4, 2)..(14, 9): each destination pixel's centre mapped onto the source,
    // floor; depth keeps c's values.
    let mut info: sys::pipe_blit_info = unsafe { std::mem::zeroed() };
    info.src.resource = a;
    info.src.format = p.format;
    info.src.box_ = bx(4, 2, 10, 7);
    info.dst.resource = c;
    info.dst.format = p.format;
    info.dst.box_ = sys::pipe_box {
        y: 15,
        height: -14,
        ..bx(2, 0, 20, 0)
    };
    info.mask = sys::PIPE_MASK_S;
    info.filter = sys::PIPE_TEX_FILTER_NEAREST;
    assert!(unsafe { zs_nearest_blit(&info) }.unwrap());
    let before = want.clone();
    for dy in 1..15usize {
        for dx in 2..22usize {
            let sx = 4 + ((dx as f64 + 0.5 - 2.0) / 20.0 * 10.0).floor() as usize;
            let sy = 2 + ((dy as f64 + 0.5 - 15.0) / -14.0 * 7.0).floor() as usize;
            want[dy * w as usize + dx].stencil = texels[sy * w as usize + sx].stencil;
        }
    }
    assert_ne!(before, want, "the blit changes some stencil values");
    check_planes(p, c, 0, w, h, &want);

    // A copy between a split and a plain Z32F resource is refused, not half done.
    let z = create(
        &mut s,
        &template(sys::PIPE_FORMAT_Z32_FLOAT, w, h as u16, 0),
    );
    assert!(unsafe { copy_region(z, 0, 0, 0, 0, a, 0, &bx(0, 0, 4, 4)) }.is_err());
    for r in [a, b, c, z] {
        destroy(&mut s, r);
    }
    assert_eq!(s.bo.stats.live.load(Ordering::Relaxed), 0);
}

/// resource_copy_region (what st_finalize_texture uses to move levels between textures) for
/// every split format, Z24X8 among them: it is split but has no stencil plane
/// (dEQP-GLES3.functional.texture.specification.texsubimage2d_depth.depth_component24 aborted on
/// the missing plane).
#[test]
fn copy_region_moves_every_split_format_including_depth_only_z24x8() {
    let (_k, mut s) = screen();
    let mut ctx = context(&mut s);
    let (w, h) = (12u32, 10u32);
    for (n, p) in FORMATS.iter().enumerate() {
        let a = create(&mut s, &template(p.format, w, h as u16, 0));
        let b = create(&mut s, &template(p.format, w, h as u16, 0));
        let texels = random_texels(p, (w * h) as usize, 7 + n as u64);
        let old = random_texels(p, (w * h) as usize, 70 + n as u64);
        for (r, t) in [(a, &texels), (b, &old)] {
            let bytes = packed_bytes(p, t);
            // SAFETY: live resources; `bytes` covers the box.
            unsafe {
                write_texture(
                    &mut *ctx,
                    r,
                    0,
                    &bx(0, 0, w, h),
                    bytes.as_ptr(),
                    w as usize * p.bytes,
                    0,
                )
            }
            .unwrap();
        }
        // A 6x4 box from a at (1, 2) to b at (5, 6).
        unsafe { copy_region(b, 0, 5, 6, 0, a, 0, &bx(1, 2, 6, 4)) }.unwrap();
        let mut want = old.clone();
        copy_box(&mut want, &texels, w as usize, (1, 2), (5, 6), (6, 4));
        check_planes(p, b, 0, w, h, &want);
        for r in [a, b] {
            destroy(&mut s, r);
        }
    }
    assert_eq!(s.bo.stats.live.load(Ordering::Relaxed), 0);
}

#[test]
fn a_split_depth_stencil_surface_binds_the_depth_and_stencil_planes() {
    let (_k, mut s) = screen();
    for p in &FORMATS {
        let r = create(&mut s, &template(p.format, 40, 30, 1));
        // SAFETY: plain C data; the surface is only read by `framebuffer`.
        let mut surf: sys::pipe_surface = unsafe { std::mem::zeroed() };
        surf.texture = r;
        surf.set_format(p.format);
        surf.u.tex.level = 1;
        let mut fb: sys::pipe_framebuffer_state = unsafe { std::mem::zeroed() };
        fb.width = 20;
        fb.height = 15;
        fb.zsbuf = &mut surf;
        let (f, resources) = unsafe { crate::draw::framebuffer(&fb) }.expect("framebuffer");
        let zs = f.zs.expect("a depth/stencil target");
        // SAFETY: live resources.
        let (res, stencil) = unsafe { (Resource::get(r), Resource::get(r).stencil) };
        let level1 = |r: &Resource| r.bo().va + r.layout.as_ref().unwrap().levels[1].offset;
        let (d, fmt) = zs.depth.expect("the depth plane");
        assert_eq!(d.va, level1(res));
        assert_eq!(fmt, agx16_cmdstream::render::ZlsFormat::F32);
        assert_eq!((zs.width, zs.height), (20, 15));
        if p.has_stencil {
            let st = zs.stencil.expect("the stencil plane");
            assert_eq!(st.va, level1(unsafe { Resource::get(stencil) }));
            assert_eq!(
                resources,
                vec![r, stencil],
                "both planes are used by the render"
            );
        } else {
            assert!(zs.stencil.is_none());
            assert_eq!(resources, vec![r]);
        }
        destroy(&mut s, r);
    }
    assert_eq!(s.bo.stats.live.load(Ordering::Relaxed), 0);
}

#[test]
fn plain_depth_formats_are_not_split_and_map_without_a_context() {
    // Plain depth formats keep working without a context (the helper is not involved).
    let (_k, mut s) = screen();
    let r = create(&mut s, &template(sys::PIPE_FORMAT_Z16_UNORM, 8, 8, 0));
    // SAFETY: a live resource.
    unsafe {
        assert!(!Resource::get(r).is_split());
        let (t, _) = map_any(null_mut(), r, 0, sys::PIPE_MAP_READ, &bx(0, 0, 8, 8)).unwrap();
        unmap_any(null_mut(), t).unwrap();
    }
    destroy(&mut s, r);
}

/// The CPU reference of a box copy between two row-major images `w` texels wide: the
/// `size` box at `from` in `src` lands at `to` in `dst`.
fn copy_box<T: Copy>(
    dst: &mut [T],
    src: &[T],
    w: usize,
    from: (usize, usize),
    to: (usize, usize),
    size: (usize, usize),
) {
    for y in 0..size.1 {
        for x in 0..size.0 {
            dst[(to.1 + y) * w + to.0 + x] = src[(from.1 + y) * w + from.0 + x];
        }
    }
}

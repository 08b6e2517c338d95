//! agx16-restest: GL resource round trips on the current driver (surfaceless EGL, GLES 2.0).
//!
//! Buffers: glBufferData + glBufferSubData, read back through glMapBufferRangeEXT
//! (GL_EXT_map_buffer_range) with GL_MAP_READ_BIT. Textures: glTexImage2D of every level of an RGBA8
//! mip chain plus a glTexSubImage2D patch, read back level by level (and a sub-rectangle) through a framebuffer object (GL_OES_fbo_render_mipmap) and
//! glReadPixels. The uploaded CPU data is the oracle; every mismatch is reported with its position.
//! Prints `GL_RENDERER: ...` and one `ok:`/`FAIL:` line per check; exits non-zero on any failure.

use glow::HasContext;
use khronos_egl as egl;
use std::ffi::c_void;
use std::process::ExitCode;

const MAP_READ_BIT: u32 = 0x0001;

type MapBufferRange = unsafe extern "C" fn(u32, isize, isize, u32) -> *mut c_void;
type UnmapBuffer = unsafe extern "C" fn(u32) -> u8;

fn main() -> ExitCode {
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(n) => {
            eprintln!("agx16-restest: {n} check(s) failed");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("agx16-restest: {e}");
            ExitCode::from(2)
        }
    }
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

fn check(failures: &mut u32, what: &str, got: &[u8], want: &[u8]) {
    match got.iter().zip(want).position(|(a, b)| a != b) {
        None if got.len() == want.len() => println!("ok: {what} ({} bytes)", want.len()),
        None => {
            *failures += 1;
            println!("FAIL: {what}: {} bytes, expected {}", got.len(), want.len());
        }
        Some(i) => {
            *failures += 1;
            println!(
                "FAIL: {what}: first difference at byte {i}: {:#04x}, expected {:#04x}",
                got[i], want[i]
            );
        }
    }
}

fn run() -> Result<u32, String> {
    let g = agx16_tests::gles::gles2()?;
    let gl = &g.gl;
    let proc = |name: &str| {
        g.egl
            .get_proc_address(name)
            .map_or(std::ptr::null(), |f| f as *const c_void)
    };
    // SAFETY: plain queries and GL calls on the current context; pointers passed live across calls.
    let failures = unsafe {
        let renderer = gl.get_parameter_string(glow::RENDERER);
        println!("GL_RENDERER: {renderer}");
        let exts = gl.supported_extensions();
        for e in ["GL_EXT_map_buffer_range", "GL_OES_fbo_render_mipmap"] {
            if !exts.contains(e) {
                return Err(format!("{e} is missing"));
            }
        }
        let map: MapBufferRange = std::mem::transmute(proc("glMapBufferRangeEXT"));
        let unmap: UnmapBuffer = std::mem::transmute(proc("glUnmapBufferOES"));
        let mut failures = 0;
        buffers(gl, map, unmap, &mut failures)?;
        textures(gl, &mut failures)?;
        // glFinish: a flush with a fence, then a wait on it.
        gl.finish();
        failures
    };
    let failures = failures + pbuffer(&g.egl, g.display, g.config, g.ctx);
    Ok(failures)
}

/// A pbuffer surface: the frontend allocates its colour (and any depth/stencil) buffers through
/// resource_create. Checks creation, binding and a glReadPixels of it (contents are undefined: nothing
/// was drawn, so only the absence of errors is checked).
fn pbuffer(
    egl: &egl::DynamicInstance<egl::EGL1_5>,
    display: egl::Display,
    config: egl::Config,
    ctx: egl::Context,
) -> u32 {
    let attribs = [egl::WIDTH, 48, egl::HEIGHT, 40, egl::NONE];
    let surface = match egl.create_pbuffer_surface(display, config, &attribs) {
        Ok(s) => s,
        Err(e) => {
            println!("FAIL: eglCreatePbufferSurface: {e}");
            return 1;
        }
    };
    let mut failures = 0;
    if let Err(e) = egl.make_current(display, Some(surface), Some(surface), Some(ctx)) {
        println!("FAIL: eglMakeCurrent(pbuffer): {e}");
        failures += 1;
    } else {
        let proc = |name: &str| {
            egl.get_proc_address(name)
                .map_or(std::ptr::null(), |f| f as *const c_void)
        };
        // SAFETY: the context is current on this thread; the pixel buffer outlives the call.
        unsafe {
            let gl = glow::Context::from_loader_function(proc);
            let mut px = vec![0u8; 48 * 40 * 4];
            gl.read_pixels(
                0,
                0,
                48,
                40,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut px)),
            );
            match gl.get_error() {
                glow::NO_ERROR => println!("ok: pbuffer 48x40 created, bound and read"),
                err => {
                    println!("FAIL: pbuffer read: GL error {err:#x}");
                    failures += 1;
                }
            }
        }
    }
    egl.make_current(display, None, None, Some(ctx)).ok();
    egl.destroy_surface(display, surface).ok();
    failures
}

unsafe fn buffers(
    gl: &glow::Context,
    map: MapBufferRange,
    unmap: UnmapBuffer,
    failures: &mut u32,
) -> Result<(), String> {
    let size = 10_000usize;
    let data = noise(size, 1);
    let patch = noise(777, 2);
    let buf = gl.create_buffer()?;
    gl.bind_buffer(glow::ARRAY_BUFFER, Some(buf));
    gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &data, glow::STATIC_DRAW);
    gl.buffer_sub_data_u8_slice(glow::ARRAY_BUFFER, 4321, &patch);
    let mut want = data.clone();
    want[4321..4321 + patch.len()].copy_from_slice(&patch);
    for (offset, len) in [(0usize, size), (4300, 1000), (9999, 1)] {
        let p = map(
            glow::ARRAY_BUFFER,
            offset as isize,
            len as isize,
            MAP_READ_BIT,
        );
        if p.is_null() {
            *failures += 1;
            println!(
                "FAIL: glMapBufferRangeEXT({offset}, {len}) returned NULL (error {:#x})",
                gl.get_error()
            );
            continue;
        }
        let got = std::slice::from_raw_parts(p as *const u8, len).to_vec();
        unmap(glow::ARRAY_BUFFER);
        check(
            failures,
            &format!("buffer map range {offset}+{len}"),
            &got,
            &want[offset..offset + len],
        );
    }
    gl.delete_buffer(buf);
    Ok(())
}

unsafe fn textures(gl: &glow::Context, failures: &mut u32) -> Result<(), String> {
    let (w, h) = (64i32, 32i32);
    let levels = 7; // 64x32 .. 1x1
    let tex = gl.create_texture()?;
    gl.bind_texture(glow::TEXTURE_2D, Some(tex));
    gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
    gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
    let mut uploads = Vec::new();
    for l in 0..levels {
        let (lw, lh) = ((w >> l).max(1), (h >> l).max(1));
        let data = noise((lw * lh * 4) as usize, 100 + l as u64);
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            l,
            glow::RGBA as i32,
            lw,
            lh,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(&data)),
        );
        uploads.push(data);
    }
    // A partial update of level 0 (glTexSubImage2D), applied to the CPU copy too.
    let (px, py, pw, ph) = (5i32, 3i32, 20i32, 10i32);
    let patch = noise((pw * ph * 4) as usize, 99);
    gl.tex_sub_image_2d(
        glow::TEXTURE_2D,
        0,
        px,
        py,
        pw,
        ph,
        glow::RGBA,
        glow::UNSIGNED_BYTE,
        glow::PixelUnpackData::Slice(Some(&patch)),
    );
    for y in 0..ph {
        let d = (((py + y) * w + px) * 4) as usize;
        let s = (y * pw * 4) as usize;
        uploads[0][d..d + (pw * 4) as usize].copy_from_slice(&patch[s..s + (pw * 4) as usize]);
    }
    let fbo = gl.create_framebuffer()?;
    gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
    for l in 0..levels {
        let (lw, lh) = ((w >> l).max(1), (h >> l).max(1));
        gl.framebuffer_texture_2d(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            Some(tex),
            l,
        );
        let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
        if status != glow::FRAMEBUFFER_COMPLETE {
            *failures += 1;
            println!("FAIL: level {l} framebuffer status {status:#x}");
            continue;
        }
        let mut got = vec![0u8; (lw * lh * 4) as usize];
        gl.read_pixels(
            0,
            0,
            lw,
            lh,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelPackData::Slice(Some(&mut got)),
        );
        check(
            failures,
            &format!("texture level {l} ({lw}x{lh}) via glReadPixels"),
            &got,
            &uploads[l as usize],
        );
        if l == 0 {
            // A sub-rectangle read.
            let (rx, ry, rw, rh) = (7i32, 5i32, 9i32, 6i32);
            let mut sub = vec![0u8; (rw * rh * 4) as usize];
            gl.read_pixels(
                rx,
                ry,
                rw,
                rh,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut sub)),
            );
            let want: Vec<u8> = (0..rh)
                .flat_map(|y| {
                    let o = (((ry + y) * w + rx) * 4) as usize;
                    uploads[0][o..o + (rw * 4) as usize].to_vec()
                })
                .collect();
            check(
                failures,
                "level 0 sub-rectangle via glReadPixels",
                &sub,
                &want,
            );
        }
    }
    gl.bind_framebuffer(glow::FRAMEBUFFER, None);
    gl.delete_framebuffer(fbo);
    gl.delete_texture(tex);
    let err = gl.get_error();
    if err != glow::NO_ERROR {
        *failures += 1;
        println!("FAIL: GL error {err:#x}");
    }
    Ok(())
}

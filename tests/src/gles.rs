//! A GLES 2.0 context on EGL's surfaceless platform: the one set-up every GL test program here uses
//! (the shim and the Mesa build are chosen by the environment the program runs in).

use glow::HasContext;
use khronos_egl as egl;
use std::ffi::c_void;

/// EGL_PLATFORM_SURFACELESS_MESA (EGL_MESA_platform_surfaceless).
pub const EGL_PLATFORM_SURFACELESS_MESA: egl::Enum = 0x31DD;

/// A current GLES 2.0 context; dropping it releases and destroys the context and the display.
pub struct Gles {
    pub egl: egl::DynamicInstance<egl::EGL1_5>,
    pub display: egl::Display,
    pub config: egl::Config,
    pub ctx: egl::Context,
    pub gl: glow::Context,
    /// GL_RENDERER of the context, for the "is it really agx16" checks.
    pub renderer: String,
}

impl Drop for Gles {
    fn drop(&mut self) {
        self.egl.make_current(self.display, None, None, None).ok();
        self.egl.destroy_context(self.display, self.ctx).ok();
        self.egl.terminate(self.display).ok();
    }
}

/// Loads libEGL, opens the surfaceless display and makes a GLES 2.0 context (pbuffer-capable
/// config, no surface) current on this thread.
pub fn gles2() -> Result<Gles, String> {
    gles(2)
}

/// As [`gles2`], for GLES major version `major` (EGL_CONTEXT_CLIENT_VERSION).
pub fn gles(major: i32) -> Result<Gles, String> {
    gles_with(major, &[])
}

/// As [`gles`], with more eglCreateContext attributes (pairs, without the terminating NONE).
pub fn gles_with(major: i32, attribs: &[egl::Int]) -> Result<Gles, String> {
    gles_on(major, attribs, None, 0)
}

/// As [`gles`], current on a `width` x `height` EGL pbuffer of an RGBA8888 config (the
/// window-system framebuffer, framebuffer 0, is the pbuffer's).
pub fn gles_pbuffer(major: i32, width: i32, height: i32) -> Result<Gles, String> {
    gles_on(major, &[], Some((width, height)), 0)
}

/// As [`gles_pbuffer`], with an EGL config of `samples` samples (a multisampled window-system
/// framebuffer).
pub fn gles_pbuffer_samples(
    major: i32,
    width: i32,
    height: i32,
    samples: i32,
) -> Result<Gles, String> {
    gles_on(major, &[], Some((width, height)), samples)
}

fn gles_on(
    major: i32,
    attribs: &[egl::Int],
    pbuffer: Option<(i32, i32)>,
    samples: i32,
) -> Result<Gles, String> {
    // SAFETY: loading the system's libEGL.
    let egl = unsafe { egl::DynamicInstance::<egl::EGL1_5>::load_required() }
        .map_err(|e| format!("cannot load libEGL.so.1: {e}"))?;
    // SAFETY: EGL_DEFAULT_DISPLAY with the surfaceless platform.
    let display = unsafe {
        egl.get_platform_display(
            EGL_PLATFORM_SURFACELESS_MESA,
            egl::DEFAULT_DISPLAY,
            &[egl::ATTRIB_NONE],
        )
    }
    .map_err(|e| format!("eglGetPlatformDisplay: {e}"))?;
    egl.initialize(display)
        .map_err(|e| format!("eglInitialize: {e}"))?;
    egl.bind_api(egl::OPENGL_ES_API)
        .map_err(|e| format!("eglBindAPI: {e}"))?;
    let mut want = vec![
        egl::RENDERABLE_TYPE,
        egl::OPENGL_ES2_BIT,
        egl::SURFACE_TYPE,
        egl::PBUFFER_BIT,
    ];
    if pbuffer.is_some() {
        for size in [
            egl::RED_SIZE,
            egl::GREEN_SIZE,
            egl::BLUE_SIZE,
            egl::ALPHA_SIZE,
        ] {
            want.extend([size, 8]);
        }
        want.extend([egl::SAMPLES, samples]);
    }
    want.push(egl::NONE);
    let config = egl
        .choose_first_config(display, &want)
        .map_err(|e| format!("eglChooseConfig: {e}"))?
        .ok_or("no GLES config")?;
    let mut ctx_attribs = vec![egl::CONTEXT_CLIENT_VERSION, major];
    ctx_attribs.extend_from_slice(attribs);
    ctx_attribs.push(egl::NONE);
    let ctx = egl
        .create_context(display, config, None, &ctx_attribs)
        .map_err(|e| format!("eglCreateContext(GLES {major}): {e}"))?;
    let surface = match pbuffer {
        Some((w, h)) => Some(
            egl.create_pbuffer_surface(
                display,
                config,
                &[egl::WIDTH, w, egl::HEIGHT, h, egl::NONE],
            )
            .map_err(|e| format!("eglCreatePbufferSurface: {e}"))?,
        ),
        None => None,
    };
    egl.make_current(display, surface, surface, Some(ctx))
        .map_err(|e| format!("eglMakeCurrent: {e}"))?;
    let gl = load_gl(&egl);
    // SAFETY: a query on the current context.
    let renderer = unsafe { gl.get_parameter_string(glow::RENDERER) };
    Ok(Gles {
        egl,
        display,
        config,
        ctx,
        gl,
        renderer,
    })
}

/// GL entry points through eglGetProcAddress, for the context current on this thread.
pub fn load_gl(egl: &egl::DynamicInstance<egl::EGL1_5>) -> glow::Context {
    let proc = |name: &str| {
        egl.get_proc_address(name)
            .map_or(std::ptr::null(), |f| f as *const c_void)
    };
    // SAFETY: glow only stores the pointers; callers use them with their context current.
    unsafe { glow::Context::from_loader_function(proc) }
}

/// Compiles one shader of `kind` on the current context; the info log on failure.
///
/// # Safety
/// A GL context must be current on this thread.
pub unsafe fn shader(gl: &glow::Context, kind: u32, src: &str) -> Result<glow::Shader, String> {
    let s = gl.create_shader(kind)?;
    gl.shader_source(s, src);
    gl.compile_shader(s);
    if !gl.get_shader_compile_status(s) {
        return Err(format!("shader compile: {}", gl.get_shader_info_log(s)));
    }
    Ok(s)
}

/// A program of the vertex and fragment sources `vs` and `fs`, attribute 0 bound to `a_pos`,
/// linked and in use.
///
/// # Safety
/// A current context.
pub unsafe fn position_program(
    gl: &glow::Context,
    vs: &str,
    fs: &str,
) -> Result<glow::Program, String> {
    let program = gl.create_program()?;
    for (kind, src) in [(glow::VERTEX_SHADER, vs), (glow::FRAGMENT_SHADER, fs)] {
        gl.attach_shader(program, shader(gl, kind, src)?);
    }
    gl.bind_attrib_location(program, 0, "a_pos");
    gl.link_program(program);
    if !gl.get_program_link_status(program) {
        return Err(format!("link: {}", gl.get_program_info_log(program)));
    }
    gl.use_program(Some(program));
    Ok(program)
}

/// `Err` naming `what` when the current context has a GL error pending.
pub fn gl_error(gl: &glow::Context, what: &str) -> Result<(), String> {
    // SAFETY: a query on the current context.
    match unsafe { gl.get_error() } {
        glow::NO_ERROR => Ok(()),
        e => Err(format!("{what}: GL error {e:#x}")),
    }
}

/// glReadPixels of the `w` x `h` rectangle at (`x`, `y`) of the read framebuffer as RGBA8 bytes,
/// bottom row first, with the GL error checked.
pub fn read_rgba8(gl: &glow::Context, x: i32, y: i32, w: i32, h: i32) -> Result<Vec<u8>, String> {
    let mut px = vec![0u8; (w.max(0) * h.max(0) * 4) as usize];
    // SAFETY: a read on the current context into a buffer of exactly w * h RGBA8 pixels.
    unsafe {
        gl.read_pixels(
            x,
            y,
            w,
            h,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelPackData::Slice(Some(&mut px)),
        )
    };
    gl_error(gl, "glReadPixels")?;
    Ok(px)
}

/// Bytes as lowercase hex, how the test programs print their frames.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A `size` x `size` RGBA8 texture as colour attachment 0 of a new framebuffer, which is left
/// bound; an incomplete framebuffer is an error.
pub fn rgba8_target(gl: &glow::Context, size: i32) -> Result<glow::Framebuffer, String> {
    // SAFETY: object creation and binding on the current context.
    unsafe {
        let t = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D, Some(t));
        gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::RGBA8, size, size);
        let fbo = gl.create_framebuffer()?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        gl.framebuffer_texture_2d(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            Some(t),
            0,
        );
        if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
            return Err("framebuffer incomplete".into());
        }
        Ok(fbo)
    }
}

/// A vertex buffer with one triangle covering the whole viewport ((-1,-1), (3,-1), (-1,3)),
/// bound as vertex attribute 0 (vec2). Returns the buffer (the caller deletes it).
///
/// # Safety
/// A context must be current on this thread.
pub unsafe fn fullscreen_triangle(gl: &glow::Context) -> Result<glow::Buffer, String> {
    let vbo = gl.create_buffer()?;
    gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
    let tri: [f32; 6] = [-1.0, -1.0, 3.0, -1.0, -1.0, 3.0];
    let bytes: Vec<u8> = tri.iter().flat_map(|f| f.to_le_bytes()).collect();
    gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
    gl.enable_vertex_attrib_array(0);
    gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);
    Ok(vbo)
}

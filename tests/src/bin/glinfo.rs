//! agx16-glinfo: creates the highest GLES context EGL (surfaceless) offers, prints what the driver reports
//! and, with `--compile-demo`, compiles and links a vertex+fragment shader pair.
//!
//! Loads libEGL at run time, so it runs against whichever Mesa `LD_LIBRARY_PATH` selects. Unless
//! `--any-renderer` is given it insists that the renderer is agx16 and explains a fallback otherwise.

use glow::HasContext;
use khronos_egl as egl;
use std::process::ExitCode;

const EGL_PLATFORM_SURFACELESS_MESA: egl::Enum = 0x31DD;
const GLES_VERSIONS: [(i32, i32); 4] = [(3, 2), (3, 1), (3, 0), (2, 0)];

struct Options {
    compile_demo: bool,
    any_renderer: bool,
}

fn main() -> ExitCode {
    let mut opts = Options {
        compile_demo: false,
        any_renderer: false,
    };
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--compile-demo" => opts.compile_demo = true,
            "--any-renderer" => opts.any_renderer = true,
            other => {
                eprintln!("agx16-glinfo: unknown argument {other:?} (known: --compile-demo, --any-renderer)");
                return ExitCode::from(2);
            }
        }
    }
    match run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agx16-glinfo: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(opts: &Options) -> Result<(), String> {
    // SAFETY: loading the system's libEGL; its initialisers are Mesa's.
    let egl = unsafe { egl::DynamicInstance::<egl::EGL1_5>::load_required() }
        .map_err(|e| format!("cannot load libEGL.so.1: {e}"))?;
    // SAFETY: EGL_DEFAULT_DISPLAY with the surfaceless platform, as EGL_MESA_platform_surfaceless defines.
    let display = unsafe {
        egl.get_platform_display(
            EGL_PLATFORM_SURFACELESS_MESA,
            egl::DEFAULT_DISPLAY,
            &[egl::ATTRIB_NONE],
        )
    }
    .map_err(|e| format!("eglGetPlatformDisplay(surfaceless): {e}"))?;
    let (major, minor) = egl
        .initialize(display)
        .map_err(|e| format!("eglInitialize: {e}{}", no_node_hint()))?;
    println!("EGL {major}.{minor}: {}", query(&egl, display, egl::VENDOR));
    println!(
        "EGL client APIs: {}",
        query(&egl, display, egl::CLIENT_APIS)
    );
    egl.bind_api(egl::OPENGL_ES_API)
        .map_err(|e| format!("eglBindAPI(GLES): {e}"))?;
    let config = egl
        .choose_first_config(
            display,
            // Surfaceless displays offer pbuffer configs only; the default SURFACE_TYPE is WINDOW.
            &[
                egl::RENDERABLE_TYPE,
                egl::OPENGL_ES2_BIT,
                egl::SURFACE_TYPE,
                egl::PBUFFER_BIT,
                egl::NONE,
            ],
        )
        .map_err(|e| format!("eglChooseConfig: {e}"))?
        .ok_or("eglChooseConfig: no GLES-capable config")?;

    let mut created = None;
    for (maj, min) in GLES_VERSIONS {
        let attribs = [
            egl::CONTEXT_MAJOR_VERSION,
            maj,
            egl::CONTEXT_MINOR_VERSION,
            min,
            egl::NONE,
        ];
        if let Ok(ctx) = egl.create_context(display, config, None, &attribs) {
            created = Some((ctx, maj, min));
            break;
        }
    }
    let (ctx, maj, min) = created.ok_or("no GLES context (tried 3.2, 3.1, 3.0, 2.0)")?;
    egl.make_current(display, None, None, Some(ctx))
        .map_err(|e| format!("eglMakeCurrent(surfaceless): {e}"))?;
    println!("highest GLES context: {maj}.{min}");

    // SAFETY: the context is current on this thread; eglGetProcAddress returns GL entry points for it.
    let gl = unsafe {
        glow::Context::from_loader_function(|name| {
            egl.get_proc_address(name)
                .map_or(std::ptr::null(), |f| f as *const std::ffi::c_void)
        })
    };
    // SAFETY: plain queries on the current context.
    let (renderer, version, glsl, extensions) = unsafe {
        (
            gl.get_parameter_string(glow::RENDERER),
            gl.get_parameter_string(glow::VERSION),
            gl.get_parameter_string(glow::SHADING_LANGUAGE_VERSION),
            extensions(&gl),
        )
    };
    println!("GL_RENDERER: {renderer}");
    println!("GL_VERSION: {version}");
    println!("GL_SHADING_LANGUAGE_VERSION: {glsl}");
    println!(
        "GL_EXTENSIONS ({}): {}",
        extensions.len(),
        extensions.join(" ")
    );
    if !opts.any_renderer && !renderer.contains("agx16") {
        return Err(format!(
            "the renderer is {renderer:?}, not agx16: Mesa fell back{}",
            no_node_hint()
        ));
    }

    let result = if opts.compile_demo {
        compile_demo(&gl, maj)
    } else {
        Ok(())
    };
    egl.make_current(display, None, None, None).ok();
    egl.destroy_context(display, ctx).ok();
    egl.terminate(display).ok();
    result
}

fn query(egl: &egl::DynamicInstance<egl::EGL1_5>, display: egl::Display, what: egl::Int) -> String {
    egl.query_string(Some(display), what)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The extension list, through glGetStringi as GLES 3 requires or the GLES 2 space-separated string.
unsafe fn extensions(gl: &glow::Context) -> Vec<String> {
    let mut list: Vec<String> = gl
        .supported_extensions()
        .iter()
        .filter(|e| !e.is_empty())
        .cloned()
        .collect();
    list.sort();
    list
}

/// Why Mesa may not be using agx16: the render nodes this process can see.
fn no_node_hint() -> String {
    let nodes: Vec<String> = std::fs::read_dir("/dev/dri")
        .map(|dir| {
            dir.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("renderD"))
                .collect()
        })
        .unwrap_or_default();
    if nodes.is_empty() {
        "; no Apple M4 render node exists (no /dev/dri/renderD*): preload the agx16 DRM shim, e.g. with `./x run -- PROGRAM`".into()
    } else {
        format!(
            "; render nodes seen: {} (none accepted by agx16; is the agx16 DRM shim preloaded?)",
            nodes.join(", ")
        )
    }
}

const VS_300: &str = "#version 300 es
in vec4 a_position;
in vec4 a_color;
uniform mat4 u_mvp;
out vec4 v_color;
void main() {
    gl_Position = u_mvp * a_position;
    v_color = a_color;
}
";
const FS_300: &str = "#version 300 es
precision mediump float;
in vec4 v_color;
out vec4 o_color;
void main() {
    o_color = v_color * 0.5 + 0.25;
}
";
const VS_100: &str = "attribute vec4 a_position;
attribute vec4 a_color;
uniform mat4 u_mvp;
varying vec4 v_color;
void main() {
    gl_Position = u_mvp * a_position;
    v_color = a_color;
}
";
const FS_100: &str = "precision mediump float;
varying vec4 v_color;
void main() {
    gl_FragColor = v_color * 0.5 + 0.25;
}
";

/// Compiles and links a vertex+fragment pair (GLSL ES 3.00 on a GLES 3 context, 1.00 otherwise).
fn compile_demo(gl: &glow::Context, gles_major: i32) -> Result<(), String> {
    let (vs, fs) = if gles_major >= 3 {
        (VS_300, FS_300)
    } else {
        (VS_100, FS_100)
    };
    // SAFETY: GL calls on the current context with objects created here.
    unsafe {
        let program = gl.create_program()?;
        for (kind, name, source) in [
            (glow::VERTEX_SHADER, "vertex", vs),
            (glow::FRAGMENT_SHADER, "fragment", fs),
        ] {
            let shader = gl.create_shader(kind)?;
            gl.shader_source(shader, source);
            gl.compile_shader(shader);
            let ok = gl.get_shader_compile_status(shader);
            println!(
                "{name} shader compile: {}",
                if ok { "ok" } else { "FAILED" }
            );
            if !ok {
                return Err(format!("{name} shader: {}", gl.get_shader_info_log(shader)));
            }
            gl.attach_shader(program, shader);
        }
        gl.link_program(program);
        let ok = gl.get_program_link_status(program);
        println!("program link: {}", if ok { "ok" } else { "FAILED" });
        if !ok {
            return Err(format!("link: {}", gl.get_program_info_log(program)));
        }
        gl.delete_program(program);
    }
    Ok(())
}

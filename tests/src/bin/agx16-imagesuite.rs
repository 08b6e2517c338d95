//! agx16-imagesuite: the image test suite's GLES programs. Each scene renders one frame into a 64x64
//! RGBA8 framebuffer object (some add depth/stencil or a second colour target) on surfaceless EGL and
//! reads it back with glReadPixels; tests/tests/image_suite.rs runs every scene on agx16 and on
//! softpipe (the same Mesa build) and compares the images.
//!
//! Usage: `agx16-imagesuite --list` prints one `scene NAME es=V tol=T slack=S` line per scene
//! (GLES version it needs, per-channel tolerance in 8-bit steps, pixels allowed to differ beyond it);
//! `agx16-imagesuite [NAME...]` renders the named scenes (all without names), each in a fresh
//! context, and prints `GL_RENDERER: ...`, `context: ES V`, then per scene `begin NAME` and one of
//! `ok NAME HEX[ HEX...]` (one hex RGBA image per colour target), `skip NAME: REASON` (the context
//! lacks what the scene needs) or `error NAME: REASON` (a compile/link failure, an incomplete
//! framebuffer or a GL error). `begin NAME` is also written to stderr (`imagesuite: begin NAME`) so
//! the driver's messages can be attributed to the scene that caused them.
//!
//! Tolerances (the test applies them; reasons here, next to the geometry they depend on):
//! * 0: only exactly representable values reach the framebuffer (clear colours k/255, texels copied
//!   by nearest filtering, constant colours k/255 without interpolation or blending arithmetic).
//! * 1 step: a float result converted to 8 bits; GL leaves the rounding of ties and the precision
//!   of interpolation/blending/filtering open within that step. sim/GFX.md "Known gaps": the M4
//!   scene checkers allow one 8-bit step in colour, and the model's tests use the same.
//! * slack: coverage. Triangles and points are placed so no pixel centre lies on an edge (exact
//!   coverage). Lines: the GLES 2.0 spec (§3.4.1) lets the fragments of a non-antialiased line
//!   differ from the diamond-exit rule by one per segment, so line scenes allow one pixel per segment.

#[path = "agx16-imagesuite/blending.rs"]
mod blending;
#[path = "agx16-imagesuite/common.rs"]
mod common;
#[path = "agx16-imagesuite/depth_stencil.rs"]
mod depth_stencil;
#[path = "agx16-imagesuite/draws.rs"]
mod draws;
#[path = "agx16-imagesuite/pbuffer.rs"]
mod pbuffer;
#[path = "agx16-imagesuite/queries_blits.rs"]
mod queries_blits;
#[path = "agx16-imagesuite/raster_state.rs"]
mod raster_state;
#[path = "agx16-imagesuite/render_targets.rs"]
mod render_targets;
#[path = "agx16-imagesuite/shaders.rs"]
mod shaders;
#[path = "agx16-imagesuite/texture_formats.rs"]
mod texture_formats;
#[path = "agx16-imagesuite/texture_offsets.rs"]
mod texture_offsets;
#[path = "agx16-imagesuite/texture_targets.rs"]
mod texture_targets;
#[path = "agx16-imagesuite/texture_units.rs"]
mod texture_units;
#[path = "agx16-imagesuite/textures.rs"]
mod textures;
#[path = "agx16-imagesuite/vertex_input.rs"]
mod vertex_input;

use blending::*;
use common::*;
use depth_stencil::*;
use draws::*;
use glow::HasContext;
use khronos_egl as egl;
use pbuffer::*;
use queries_blits::*;
use raster_state::*;
use render_targets::*;
use shaders::*;
use std::ffi::c_void;
use std::io::Write;
use std::process::ExitCode;
use texture_formats::*;
use textures::*;
use vertex_input::*;

const EGL_PLATFORM_SURFACELESS_MESA: egl::Enum = 0x31DD;
const SIZE: i32 = 64;
/// The background of every scene: exactly representable, so clears compare exactly.
const BG: [f32; 4] = [16.0 / 255.0, 32.0 / 255.0, 48.0 / 255.0, 1.0];

type Gl = glow::Context;
type Res<T> = Result<T, String>;
/// One scene's colour targets (RGBA8 rows bottom-up) or why there are none.
type Frame = Result<Vec<Vec<u8>>, Outcome>;

/// What one scene's render function may report besides pixels.
enum Outcome {
    Skip(String),
    Error(String),
}

impl From<String> for Outcome {
    fn from(e: String) -> Outcome {
        Outcome::Error(e)
    }
}

struct Scene {
    name: &'static str,
    /// Lowest GLES major version the scene needs.
    es: u32,
    /// Per-channel tolerance in 8-bit steps (see the module comment).
    tol: u8,
    /// Pixels allowed to differ beyond `tol` (line scenes only).
    slack: usize,
    render: fn(&Gl, &Ctx) -> Frame,
    /// Renders into a 64x64 pbuffer surface (framebuffer 0) instead of an FBO it makes itself.
    pbuffer: bool,
}

/// Facts about the current context the scenes consult.
struct Ctx {
    es: u32,
    extensions: String,
    /// Entry points glow only offers with buffer offsets, for client-memory arrays.
    client: ClientArrays,
}

/// glVertexAttribPointer and glDrawRangeElements with pointers into client memory.
#[derive(Clone, Copy)]
struct ClientArrays {
    vertex_attrib_pointer: Option<unsafe extern "C" fn(u32, i32, u32, u8, i32, *const c_void)>,
    draw_range_elements: Option<unsafe extern "C" fn(u32, u32, u32, i32, u32, *const c_void)>,
}

impl Ctx {
    fn has(&self, ext: &str) -> bool {
        self.extensions.split_whitespace().any(|e| e == ext)
    }
}

const fn s(
    name: &'static str,
    es: u32,
    tol: u8,
    slack: usize,
    render: fn(&Gl, &Ctx) -> Frame,
) -> Scene {
    Scene {
        name,
        es,
        tol,
        slack,
        render,
        pbuffer: false,
    }
}

/// A scene drawn into the pbuffer surface (`Scene::pbuffer`).
const fn p(
    name: &'static str,
    es: u32,
    tol: u8,
    slack: usize,
    render: fn(&Gl, &Ctx) -> Frame,
) -> Scene {
    Scene {
        pbuffer: true,
        ..s(name, es, tol, slack, render)
    }
}

const SCENES: &[Scene] = &[
    s("clear_color", 2, 0, 0, clear_color),
    s("clear_scissored", 2, 0, 0, clear_scissored),
    s("clear_color_mask", 2, 0, 0, clear_color_mask),
    s("clear_rounding", 2, 1, 0, clear_rounding),
    s("points", 2, 1, 0, points),
    s("lines", 2, 1, 3, lines),
    s("line_strip", 2, 1, 3, line_strip),
    s("line_loop", 2, 1, 4, line_loop),
    s("triangles", 2, 1, 0, triangles),
    s("triangle_strip", 2, 1, 0, triangle_strip),
    s("triangle_fan", 2, 1, 0, triangle_fan),
    s("elements_u8", 2, 1, 0, elements_u8),
    s("elements_u16", 2, 1, 0, elements_u16),
    s("elements_u32", 2, 1, 0, elements_u32),
    s("elements_base_vertex", 2, 1, 0, elements_base_vertex),
    s("instanced", 3, 1, 0, instanced),
    s("instanced_divisors", 3, 1, 0, instanced_divisors),
    s("vertex_formats", 3, 1, 0, vertex_formats),
    s("attribute_matrix", 3, 1, 0, attribute_matrix),
    s("attributes_16", 2, 1, 0, attributes_16),
    s("primitive_restart", 3, 1, 12, primitive_restart),
    s("depth_less", 2, 0, 0, depth_less),
    s("depth_greater", 2, 0, 0, depth_greater),
    s("depth_lequal_no_write", 2, 0, 0, depth_lequal_no_write),
    s("depth_always_notequal", 2, 0, 0, depth_always_notequal),
    s("polygon_offset", 2, 1, 0, polygon_offset),
    s("depth_odd_sizes", 3, 1, 4, depth_odd_sizes),
    s("stencil_replace_equal", 2, 1, 0, stencil_replace_equal),
    s("stencil_incr_decr", 2, 0, 0, stencil_incr_decr),
    s("stencil_two_sided", 2, 0, 0, stencil_two_sided),
    s("depth_stencil_packed", 2, 0, 0, depth_stencil_packed),
    s("blend_alpha", 2, 1, 0, blend_alpha),
    s("blend_additive", 2, 1, 0, blend_additive),
    s("blend_subtract", 2, 1, 0, blend_subtract),
    s("blend_reverse_subtract", 2, 1, 0, blend_reverse_subtract),
    s("blend_min_max", 2, 1, 0, blend_min_max),
    s("blend_constant", 2, 1, 0, blend_constant),
    s("dual_source_blend", 2, 1, 0, dual_source_blend),
    s("blend_constant_per_draw", 2, 1, 0, blend_constant_per_draw),
    s("blend_separate", 2, 1, 0, blend_separate),
    s("scissor_draw", 2, 1, 0, scissor_draw),
    s("color_mask_draw", 2, 1, 0, color_mask_draw),
    s("viewport_offset", 2, 1, 0, viewport_offset),
    s("cull_back_ccw", 2, 1, 0, cull_back_ccw),
    s("front_facing", 2, 0, 0, front_facing),
    s("perspective_varying", 2, 1, 0, perspective_varying),
    s("attribute_formats", 2, 1, 0, attribute_formats),
    s("uniform_matrix", 2, 0, 0, uniform_matrix),
    s("uniform_array", 2, 1, 0, uniform_array),
    s("uniform_array_large", 2, 1, 0, uniform_array_large),
    s("uniform_block", 3, 1, 0, uniform_block),
    s("uniform_blocks_indexed", 3, 1, 0, uniform_blocks_indexed),
    s(
        "uniform_block_array_struct",
        3,
        1,
        0,
        uniform_block_array_struct,
    ),
    s("varyings_8", 2, 1, 0, varyings_8),
    s("varyings_16", 3, 1, 0, varyings_16),
    s("discard", 2, 1, 0, discard),
    s("discard_loop", 2, 1, 0, discard_loop),
    s(
        "uniform_negated_components",
        2,
        1,
        0,
        uniform_negated_components,
    ),
    s("discard_depth", 2, 0, 0, discard_depth),
    s("discard_blend", 2, 1, 0, discard_blend),
    s("frag_depth", 3, 1, 0, frag_depth),
    s("frag_coord", 2, 1, 0, frag_coord),
    s("derivatives", 2, 1, 0, derivatives),
    s("derivatives_es3", 3, 1, 0, derivatives_es3),
    s("texture_nearest", 2, 0, 0, texture_nearest),
    s("texture_linear", 2, 1, 0, texture_linear),
    s("texture_repeat", 2, 0, 0, texture_repeat),
    s("texture_mipmap", 2, 1, 0, texture_mipmap),
    s("texture_two_units", 2, 1, 0, texture_two_units),
    s("texture_formats", 2, 0, 0, texture_formats),
    s("texture_formats_unorm", 3, 1, 0, texture_formats_unorm),
    s("texture_formats_snorm", 3, 1, 0, texture_formats_snorm),
    s("texture_formats_half", 3, 1, 0, texture_formats_half),
    s("texture_formats_float32", 3, 1, 0, texture_formats_float32),
    s("texture_formats_integer", 3, 1, 0, texture_formats_integer),
    s("texture_depth", 3, 1, 0, texture_depth),
    s("texture_swizzle", 3, 1, 0, texture_swizzle),
    s("texture_etc2", 3, 1, 0, texture_etc2),
    s(
        "texture_generate_mipmap_formats",
        3,
        1,
        0,
        texture_generate_mipmap_formats,
    ),
    s("texture_render_target", 2, 1, 0, texture_render_target),
    s("feedback_loop_draw", 2, 1, 0, feedback_loop_draw),
    s("draw_after_flush", 2, 1, 0, draw_after_flush),
    s(
        "restart_range_client_arrays",
        3,
        0,
        0,
        draws::restart_range_client_arrays,
    ),
    s("texture_cube", 2, 0, 0, texture_targets::texture_cube),
    s(
        "texture_cube_linear",
        2,
        1,
        0,
        texture_targets::texture_cube_linear,
    ),
    s(
        "texture_2d_array",
        3,
        0,
        0,
        texture_targets::texture_2d_array,
    ),
    s("texture_3d", 3, 0, 0, texture_targets::texture_3d),
    s(
        "texture_3d_linear",
        3,
        1,
        0,
        texture_targets::texture_3d_linear,
    ),
    s(
        "texture_lod_targets",
        3,
        0,
        0,
        texture_targets::texture_lod_targets,
    ),
    s(
        "texture_lod_base_level",
        3,
        0,
        0,
        texture_targets::texture_lod_base_level,
    ),
    s("texture_size", 3, 0, 0, texture_targets::texture_size),
    s(
        "texture_proj_offset",
        3,
        0,
        0,
        texture_targets::texture_proj_offset,
    ),
    s("texture_grad", 3, 0, 0, texture_targets::texture_grad),
    s(
        "texture_lod_offset",
        3,
        0,
        0,
        texture_offsets::texture_lod_offset,
    ),
    s(
        "texture_lod_offset_linear",
        3,
        1,
        0,
        texture_offsets::texture_lod_offset_linear,
    ),
    s(
        "texture_offset_bias",
        3,
        0,
        0,
        texture_offsets::texture_offset_bias,
    ),
    s(
        "texture_lod_offset_vertex",
        3,
        0,
        0,
        texture_offsets::texture_lod_offset_vertex,
    ),
    s("texture_shadow", 3, 0, 0, texture_targets::texture_shadow),
    s(
        "texture_shadow_linear",
        3,
        0,
        0,
        texture_targets::texture_shadow_linear,
    ),
    s(
        "texture_cube_seamless",
        3,
        1,
        0,
        texture_targets::texture_cube_seamless,
    ),
    s(
        "texture_units_mixed",
        3,
        1,
        0,
        texture_units::texture_units_mixed,
    ),
    s(
        "texture_units_sizes",
        3,
        1,
        0,
        texture_units::texture_units_sizes,
    ),
    s(
        "texture_lookups_14",
        3,
        1,
        0,
        texture_units::texture_lookups_14,
    ),
    s(
        "texture_cube_mipmap",
        3,
        1,
        0,
        texture_targets::texture_cube_mipmap,
    ),
    s(
        "texture_cube_base_level",
        3,
        1,
        0,
        texture_targets::texture_cube_base_level,
    ),
    s(
        "texel_fetch_targets",
        3,
        0,
        0,
        texture_targets::texel_fetch_targets,
    ),
    s("mrt", 3, 1, 0, mrt),
    s("flat_varying", 3, 1, 0, flat_varying),
    s("mrt_gaps", 3, 1, 0, mrt_gaps),
    s("mrt_indexed_blend", 3, 1, 0, mrt_indexed_blend),
    s("mrt8_mixed", 3, 1, 0, mrt8_mixed),
    s("mrt8_rgba32f", 3, 0, 0, mrt8_rgba32f),
    s("rt_integer", 3, 0, 0, rt_integer),
    s("rt_srgb_565", 3, 1, 0, rt_srgb_565),
    s("rt_packed_formats", 3, 1, 0, rt_packed_formats),
    s("rt_float", 3, 0, 0, rt_float),
    s("rt_float_blend", 3, 1, 0, rt_float_blend),
    s("rt_r8_rg8", 3, 1, 0, rt_r8_rg8),
    s("mixed_sizes", 3, 1, 0, mixed_sizes),
    s("centroid_varying", 3, 1, 0, centroid_varying),
    s("shader_math", 2, 1, 0, shader_math),
    s("many_draws", 2, 0, 0, many_draws),
    s("blit_scaled", 3, 1, 0, blit_scaled),
    s("occlusion_query", 3, 0, 0, occlusion_query),
    s("texture_in_branches", 2, 1, 0, texture_in_branches),
    s("vertex_texture", 3, 1, 0, vertex_texture),
    p("pbuffer_clear", 2, 0, 0, pbuffer_clear),
    p("pbuffer_clear_scissored", 2, 0, 0, pbuffer_clear_scissored),
    p("pbuffer_draw", 2, 1, 0, pbuffer_draw),
    p(
        "pbuffer_flush_between_draws",
        2,
        1,
        0,
        pbuffer_flush_between_draws,
    ),
    p("pbuffer_blit", 3, 1, 0, pbuffer_blit),
    p(
        "pbuffer_depth_stencil_across_flush",
        2,
        1,
        0,
        pbuffer_depth_stencil_across_flush,
    ),
];

struct Egl {
    egl: egl::DynamicInstance<egl::EGL1_5>,
    display: egl::Display,
    config: egl::Config,
    /// RGBA8888 with 24-bit depth and 8-bit stencil, single-sampled, pbuffer-capable (dEQP's
    /// rgba8888d24s8ms0): the pbuffer scenes' config.
    surface_config: Option<egl::Config>,
    es: u32,
}

fn egl_open() -> Res<Egl> {
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
    let config = egl
        .choose_first_config(
            display,
            &[
                egl::RENDERABLE_TYPE,
                egl::OPENGL_ES2_BIT,
                egl::SURFACE_TYPE,
                egl::PBUFFER_BIT,
                egl::NONE,
            ],
        )
        .map_err(|e| format!("eglChooseConfig: {e}"))?
        .ok_or("no GLES config")?;
    let surface_config = egl
        .choose_first_config(
            display,
            &[
                egl::RENDERABLE_TYPE,
                egl::OPENGL_ES2_BIT,
                egl::SURFACE_TYPE,
                egl::PBUFFER_BIT,
                egl::RED_SIZE,
                8,
                egl::GREEN_SIZE,
                8,
                egl::BLUE_SIZE,
                8,
                egl::ALPHA_SIZE,
                8,
                egl::DEPTH_SIZE,
                24,
                egl::STENCIL_SIZE,
                8,
                egl::SAMPLES,
                0,
                egl::NONE,
            ],
        )
        .map_err(|e| format!("eglChooseConfig (rgba8888d24s8): {e}"))?;
    let mut e = Egl {
        egl,
        display,
        config,
        surface_config,
        es: 2,
    };
    // The highest of ES 3 and ES 2 this display creates.
    if let Ok(ctx) = e.context(3) {
        e.es = 3;
        e.egl.destroy_context(display, ctx).ok();
    }
    Ok(e)
}

impl Egl {
    fn context(&self, version: u32) -> Res<egl::Context> {
        self.context_with(self.config, version)
    }

    fn context_with(&self, config: egl::Config, version: u32) -> Res<egl::Context> {
        self.egl
            .create_context(
                self.display,
                config,
                None,
                &[egl::CONTEXT_CLIENT_VERSION, version as i32, egl::NONE],
            )
            .map_err(|e| format!("eglCreateContext(GLES {version}): {e}"))
    }
}

/// Renders one scene in a fresh context.
fn render(e: &Egl, scene: &Scene) -> Frame {
    if scene.es > e.es {
        return Err(Outcome::Skip(format!(
            "needs OpenGL ES {}.0; the highest context this display creates is ES {}.0",
            scene.es, e.es
        )));
    }
    let (ctx, surface) = if scene.pbuffer {
        let config = e
            .surface_config
            .ok_or_else(|| Outcome::Skip("no RGBA8888 D24S8 pbuffer config".into()))?;
        let ctx = e.context_with(config, e.es)?;
        let surface = e
            .egl
            .create_pbuffer_surface(
                e.display,
                config,
                &[egl::WIDTH, SIZE, egl::HEIGHT, SIZE, egl::NONE],
            )
            .map_err(|err| format!("eglCreatePbufferSurface: {err}"))?;
        (ctx, Some(surface))
    } else {
        (e.context(e.es)?, None)
    };
    e.egl
        .make_current(e.display, surface, surface, Some(ctx))
        .map_err(|err| format!("eglMakeCurrent: {err}"))?;
    let proc = |name: &str| {
        e.egl
            .get_proc_address(name)
            .map_or(std::ptr::null(), |f| f as *const c_void)
    };
    // SAFETY: the context is current on this thread.
    let gl = unsafe { glow::Context::from_loader_function(proc) };
    // SAFETY: a query on the current context.
    let extensions = unsafe { gl.get_parameter_string(glow::EXTENSIONS) };
    // SAFETY: GL entry points of the current context with their C signatures.
    let client = unsafe {
        let get = |name: &str| proc(name);
        ClientArrays {
            vertex_attrib_pointer: std::mem::transmute::<*const c_void, Option<_>>(get(
                "glVertexAttribPointer",
            )),
            draw_range_elements: std::mem::transmute::<*const c_void, Option<_>>(get(
                "glDrawRangeElements",
            )),
        }
    };
    let c = Ctx {
        es: e.es,
        extensions,
        client,
    };
    let result = (scene.render)(&gl, &c);
    // SAFETY: finishing on the current context before it goes away.
    unsafe { gl.finish() };
    drop(gl);
    e.egl.make_current(e.display, None, None, None).ok();
    if let Some(surface) = surface {
        e.egl.destroy_surface(e.display, surface).ok();
    }
    e.egl.destroy_context(e.display, ctx).ok();
    result
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        for sc in SCENES {
            println!(
                "scene {} es={} tol={} slack={}",
                sc.name, sc.es, sc.tol, sc.slack
            );
        }
        return ExitCode::SUCCESS;
    }
    let mut chosen = Vec::new();
    for a in &args {
        match SCENES.iter().find(|s| s.name == a) {
            Some(s) => chosen.push(s),
            None => {
                eprintln!("agx16-imagesuite: unknown scene {a:?} (--list shows them)");
                return ExitCode::from(2);
            }
        }
    }
    if chosen.is_empty() {
        chosen = SCENES.iter().collect();
    }
    let e = match egl_open() {
        Ok(e) => e,
        Err(err) => {
            eprintln!("agx16-imagesuite: {err}");
            return ExitCode::FAILURE;
        }
    };
    // The renderer, from a throwaway context.
    if let Ok(ctx) = e.context(e.es) {
        if e.egl.make_current(e.display, None, None, Some(ctx)).is_ok() {
            let proc = |name: &str| {
                e.egl
                    .get_proc_address(name)
                    .map_or(std::ptr::null(), |f| f as *const c_void)
            };
            // SAFETY: the context is current.
            let gl = unsafe { glow::Context::from_loader_function(proc) };
            // SAFETY: a query on the current context.
            println!("GL_RENDERER: {}", unsafe {
                gl.get_parameter_string(glow::RENDERER)
            });
        }
        e.egl.make_current(e.display, None, None, None).ok();
        e.egl.destroy_context(e.display, ctx).ok();
    }
    println!("context: ES {}", e.es);
    let mut out = std::io::stdout();
    for sc in chosen {
        println!("begin {}", sc.name);
        out.flush().ok();
        eprintln!("imagesuite: begin {}", sc.name);
        match render(&e, sc) {
            Ok(images) => {
                let hex: Vec<String> = images
                    .iter()
                    .map(|px| px.iter().map(|b| format!("{b:02x}")).collect())
                    .collect();
                println!("ok {} {}", sc.name, hex.join(" "));
            }
            Err(Outcome::Skip(r)) => println!("skip {}: {r}", sc.name),
            Err(Outcome::Error(r)) => println!("error {}: {r}", sc.name),
        }
        out.flush().ok();
    }
    eprintln!("imagesuite: end");
    e.egl.terminate(e.display).ok();
    ExitCode::SUCCESS
}

//! Shader CSOs: Mesa hands over NIR at link time; `finalize_nir` trial-compiles it for the G16
//! so errors surface at glLinkProgram, and draws compile the variants they need.

use crate::context::Context;
use crate::debug;
use crate::ffi::guard;
use agx16_compiler::abi::{
    AttribFormat, FragmentKey, GraphicsKey, RenderTarget, VaryingSlot, VertexAttrib, VertexKey,
};
use agx16_mesa_sys as sys;
use std::ffi::{c_void, CStr};
use std::ptr::null_mut;

/// What NIR the compiler wants from Mesa's lowering: agx16-compiler owns the table.
pub fn nir_options() -> &'static sys::nir_shader_compiler_options {
    agx16_compiler::nir::options::options()
}

/// The result of compiling one shader for the G16.
pub struct Compiled {
    pub code: Vec<u8>,
    /// Mesa shader-db style statistics ("N inst, N regs, ...").
    pub stats: String,
}

/// A shader CSO: owns the NIR Mesa gave us (ralloc'ed, IO lowered, otherwise as given: each
/// draw-time variant compiles a clone) and the variants compiled for draws.
pub struct ShaderCso {
    pub nir: *mut sys::nir_shader,
    pub variants: crate::variants::VariantCache,
    /// Vertex: the outputs transform feedback captures (Mesa's stream-output info).
    pub so: Option<crate::so::StreamOutput>,
    /// The uniform blocks the program reads ([`ubos_read`]), the default block's included when
    /// it is read from memory, or why they do not fit.
    pub ubos: Result<u8, String>,
    /// The block the default uniform block (constant buffer 0) is read from when its words do
    /// not fit the launcher's argument words (see `agx16_compiler::nir::uniforms::INLINE_UNIFORM_WORDS`).
    pub default_block: Option<u8>,
}

use agx16_compiler::nir::uniforms::{default_block_to_ubo, ubos_read};

/// Size of a GLSL type in vec4 slots, the unit of shader inputs and outputs here.
unsafe extern "C" fn vec4_slots(ty: *const sys::glsl_type, bindless: bool) -> std::ffi::c_int {
    sys::glsl_count_vec4_slots(ty, false, bindless) as std::ffi::c_int
}

/// Turns in/out variables into load_input/store_output intrinsics with driver locations. The driver
/// owns this step because the slot layout is what its vertex fetch and varying records will use.
///
/// # Safety
/// `nir` must be a valid shader owned by the caller.
unsafe fn lower_io(nir: *mut sys::nir_shader) {
    let stage = (*nir).info.stage();
    sys::nir_assign_io_var_locations(nir, sys::nir_var_shader_in, &mut (*nir).num_inputs, stage);
    sys::nir_assign_io_var_locations(nir, sys::nir_var_shader_out, &mut (*nir).num_outputs, stage);
    // Fragment inputs keep their interpolation as load_interpolated_input + barycentrics
    // (the compiler's graphics import reads the mode from there; plain load_input is flat).
    let options = if stage == sys::MESA_SHADER_FRAGMENT {
        sys::nir_lower_io_use_interpolated_input_intrinsics
    } else {
        0
    };
    sys::nir_lower_io(
        nir,
        sys::nir_var_shader_in | sys::nir_var_shader_out,
        Some(vec4_slots),
        options,
    );
}

/// The key a CSO is compiled with at link time, before any draw state exists: every vertex
/// input a vec4 of f32 in its own tightly packed buffer; fragment inputs all four components
/// of each varying slot read, one RGBA8 target. Draws compile their own variants
/// (variants.rs); this compile reports errors and statistics at glLinkProgram.
unsafe fn link_time_key(nir: *const sys::nir_shader) -> Option<GraphicsKey> {
    let info = &(*nir).info;
    let ubos = ubos_read(nir as *mut sys::nir_shader).unwrap_or(info.num_ubos);
    let bits = |m: u64| (0..64u8).filter(move |b| m >> b & 1 == 1);
    match info.stage() {
        sys::MESA_SHADER_VERTEX => Some(GraphicsKey::Vertex(VertexKey {
            attribs: bits(info.inputs_read)
                .enumerate()
                .map(|(i, location)| VertexAttrib {
                    location,
                    buffer: i as u8,
                    offset: 0,
                    stride: 16,
                    format: AttribFormat::f32(4),
                    divisor: 0,
                })
                .collect(),
            ubos,
            gl_clip_z: true,
            xfb_buffers: 0,
            fetch_limits: None,
        })),
        sys::MESA_SHADER_FRAGMENT => Some(GraphicsKey::Fragment(FragmentKey {
            varyings: bits(info.inputs_read)
                .filter(|l| *l as u32 != sys::VARYING_SLOT_POS)
                .flat_map(|location| {
                    (0..4).map(move |component| VaryingSlot {
                        location,
                        component,
                    })
                })
                .collect(),
            frag_coord_z: info.inputs_read & (1 << sys::VARYING_SLOT_POS) != 0,
            render_targets: vec![RenderTarget::Rgba8Unorm],
            ubos,
            samples: 1,
            kill_samples: 0,
            alpha_to_coverage: false,
            keep_channels: 0,
        })),
        _ => None,
    }
}

/// Compiles through agx16-compiler's NIR graphics entry (Mesa lowering, import under the
/// graphics ABI, G16 code generation).
///
/// # Safety
/// `nir` must be a valid shader owned by the caller; the compiler lowers it in place.
unsafe fn compile(
    nir: *mut sys::nir_shader,
    default_block: Option<u8>,
) -> Result<Compiled, String> {
    if let Some(k) = default_block {
        default_block_to_ubo(nir, k);
    }
    let mut key = link_time_key(nir).ok_or("only vertex and fragment shaders are compiled")?;
    // As the draw-time variants do (variants.rs `compile`), so link-time statistics and
    // errors describe the program draws run.
    agx16_compiler::nir::uniforms::lower_textures(nir, &mut key);
    let (c, _) = agx16_compiler::nir::compile_nir_graphics(nir, &key).map_err(|e| e.to_string())?;
    let s = c.stats;
    Ok(Compiled {
        stats: format!(
            "{} inst, {} bytes, {} gprs, {} spills, {} fills, {} scoreboard waits",
            s.instrs, s.bytes, s.gprs, s.spills, s.fills, s.scoreboard_waits
        ),
        code: c.code,
    })
}

/// `pipe_screen::finalize_nir`. With `call_finalize_nir_in_linker` (caps.rs) Mesa's state tracker
/// calls it from glLinkProgram on each linked stage, IO lowered to intrinsics, and reports a
/// returned string as a linker error (st_glsl_to_nir.cpp `st_glsl_to_nir_post_opts`). We
/// trial-compile a clone there under the link-time key, so a shader the G16 compiler refuses
/// fails the link with the compiler's reason instead of linking and drawing nothing. `nir` itself
/// is never changed: draws compile exactly what they did before.
///
/// Later calls (st's variants and built-in shaders, on NIR with IO variables again) return
/// NULL: that NIR reaches `create` and the draw-time variants, which report their own errors.
/// The string is malloc'ed: st frees it with free().
pub unsafe extern "C" fn finalize_nir(
    _screen: *mut sys::pipe_screen,
    nir: *mut sys::nir_shader,
) -> *mut std::ffi::c_char {
    guard("finalize_nir", null_mut(), || {
        match link_check(nir) {
            Ok(()) => null_mut(),
            // The linker uses the message as a printf format.
            Err(e) => malloc_string(&format!("{}\n", e.replace('%', "%%"))),
        }
    })
}

/// The link-time trial compile of [`finalize_nir`]: `Err` is the reason the backend refuses it.
///
/// # Safety
/// `nir` must be a valid shader or null.
unsafe fn link_check(nir: *mut sys::nir_shader) -> Result<(), String> {
    if nir.is_null() || !(*nir).info.io_lowered() {
        return Ok(());
    }
    let stage = (*nir).info.stage();
    if stage != sys::MESA_SHADER_VERTEX && stage != sys::MESA_SHADER_FRAGMENT {
        return Ok(());
    }
    let name = stage_name(nir);
    let clone = sys::nir_shader_clone(null_mut(), nir);
    if clone.is_null() {
        return Err(format!(
            "agx16: {name} shader not compiled: nir_shader_clone failed"
        ));
    }
    // IO is already load_input/store_output with IO semantics, which is what the compiler's
    // import reads (`lower_io` in `create` produces the same from variables).
    let (_, default_block) = agx16_compiler::nir::uniforms::blocks(clone);
    let result = compile(clone, default_block);
    sys::ralloc_free(clone as *mut c_void);
    match result {
        Ok(c) => {
            if debug::flags().shaderdb {
                eprintln!("agx16 shaderdb: {name} at link: {}", c.stats);
            }
            Ok(())
        }
        Err(e) => {
            eprintln!("agx16: {name} shader not compiled at link: {e}");
            Err(format!("agx16 cannot compile the {name} shader: {e}"))
        }
    }
}

/// A NUL-terminated copy in malloc'ed memory (Mesa frees it with free()); NUL bytes are dropped.
fn malloc_string(s: &str) -> *mut std::ffi::c_char {
    let bytes: Vec<u8> = s.bytes().filter(|b| *b != 0).collect();
    // SAFETY: a fresh allocation of len + 1 bytes, filled before it is returned.
    unsafe {
        let p = libc::malloc(bytes.len() + 1) as *mut u8;
        if p.is_null() {
            return null_mut();
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        *p.add(bytes.len()) = 0;
        p as *mut std::ffi::c_char
    }
}

/// "vertex", "fragment", ...
///
/// # Safety
/// `nir` must be a valid shader.
unsafe fn stage_name(nir: *const sys::nir_shader) -> String {
    CStr::from_ptr(sys::_mesa_shader_stage_to_string((*nir).info.stage() as u32))
        .to_string_lossy()
        .into_owned()
}

unsafe fn create(ctx: *mut sys::pipe_context, state: *const sys::pipe_shader_state) -> *mut c_void {
    if state.is_null() {
        return null_mut();
    }
    let nir = match (*state).type_ {
        sys::PIPE_SHADER_IR_NIR => (*state).ir.nir,
        // Mesa's own helpers (util_blitter's shaders) still write TGSI; Mesa translates it.
        sys::PIPE_SHADER_IR_TGSI if !(*state).tokens.is_null() => {
            sys::tgsi_to_nir((*state).tokens as *const c_void, (*ctx).screen, false)
        }
        t => {
            eprintln!(
                "agx16: shader state of IR type {t} (agx16 takes NIR, or TGSI it translates)"
            );
            return null_mut();
        }
    };
    if nir.is_null() {
        eprintln!("agx16: tgsi_to_nir failed");
        return null_mut();
    }
    let stage = stage_name(nir);
    let entry = sys::nir_shader_get_entrypoint(nir);
    let nir_instrs = if entry.is_null() {
        0
    } else {
        sys::nir_iter::instr_count(entry)
    };
    let so = if (*nir).info.stage() == sys::MESA_SHADER_VERTEX {
        crate::so::parse(&(*state).stream_output, (*nir).info.outputs_written)
    } else {
        None
    };
    if so.is_some() && !entry.is_null() {
        // The capture (so.rs) reads the output values where they are last stored: outputs
        // become temporaries copied to the outputs at the end of the shader.
        sys::nir_lower_io_to_temporaries(nir, entry, true, false);
        sys::nir_lower_global_vars_to_local(nir);
        sys::nir_split_var_copies(nir);
        sys::nir_lower_var_copies(nir);
    }
    lower_io(nir);
    let (ubos, default_block) = agx16_compiler::nir::uniforms::blocks(nir);
    // Statistics for shader-db style reports (AGX16_DEBUG=shaderdb) come from a CSO-time
    // compile of a clone under the link-time key. Otherwise nothing is compiled here: a
    // linked program's stages were trial-compiled by `finalize_nir` (its errors fail the
    // link) and draws compile their own variants, so each stage is compiled once at link.
    if debug::flags().shaderdb {
        let clone = sys::nir_shader_clone(null_mut(), nir);
        let compiled = if clone.is_null() {
            Err("nir_shader_clone failed".to_string())
        } else {
            let c = compile(clone, default_block);
            sys::ralloc_free(clone as *mut c_void);
            c
        };
        match &compiled {
            Ok(c) => eprintln!(
                "agx16 shaderdb: {stage}: {} ({nir_instrs} NIR instructions, {} bytes)",
                c.stats,
                c.code.len()
            ),
            Err(e) => {
                eprintln!("agx16: {stage} shader ({nir_instrs} NIR instructions) not compiled: {e}")
            }
        }
    }
    Box::into_raw(Box::new(ShaderCso {
        nir,
        variants: Default::default(),
        so,
        ubos,
        default_block,
    })) as *mut c_void
}

/// Frees the CSO; its compiled programs go to the screen's store, which reuses their entry
/// blocks and body memory once no batch or render in flight holds them.
unsafe fn delete(ctx: *mut sys::pipe_context, cso: *mut c_void) {
    if cso.is_null() {
        return;
    }
    let cso = Box::from_raw(cso as *mut ShaderCso);
    let programs = cso.variants.lock().unwrap().take_programs();
    if !programs.is_empty() && !ctx.is_null() {
        let screen = crate::screen::Screen::get((*ctx).screen);
        let mut store = screen.programs.lock().unwrap();
        for (token, body) in programs {
            store.retire(token, body);
        }
    }
    sys::ralloc_free(cso.nir as *mut c_void);
}

pub unsafe extern "C" fn create_vs_state(
    ctx: *mut sys::pipe_context,
    state: *const sys::pipe_shader_state,
) -> *mut c_void {
    guard("create_vs_state", null_mut(), || create(ctx, state))
}

pub unsafe extern "C" fn create_fs_state(
    ctx: *mut sys::pipe_context,
    state: *const sys::pipe_shader_state,
) -> *mut c_void {
    guard("create_fs_state", null_mut(), || create(ctx, state))
}

pub unsafe extern "C" fn bind_vs_state(ctx: *mut sys::pipe_context, cso: *mut c_void) {
    guard("bind_vs_state", (), || {
        Context::get(ctx).state.vs = cso as *const ShaderCso
    })
}

pub unsafe extern "C" fn bind_fs_state(ctx: *mut sys::pipe_context, cso: *mut c_void) {
    guard("bind_fs_state", (), || {
        Context::get(ctx).state.fs = cso as *const ShaderCso
    })
}

pub unsafe extern "C" fn delete_shader_state(ctx: *mut sys::pipe_context, cso: *mut c_void) {
    guard("delete shader state", (), || delete(ctx, cso))
}

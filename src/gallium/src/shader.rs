//! Shader CSOs: Mesa hands over NIR at link time; we compile it for the G16 right away so errors surface
//! at glLinkProgram, and keep the result for draws.

use crate::context::Context;
use crate::debug;
use crate::ffi::guard;
use agx16_compiler::abi::{
    AttribFormat, FragmentKey, GraphicsKey, RenderTarget, VaryingSlot, VertexAttrib, VertexKey,
    MAX_UBOS,
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
/// draw-time variant compiles a clone), the CSO-time compile result (errors and statistics at
/// link time) and the variants compiled for draws.
pub struct ShaderCso {
    pub nir: *mut sys::nir_shader,
    #[allow(dead_code)] // reported at creation; draws use `variants`
    pub compiled: Result<Compiled, String>,
    pub variants: crate::variants::VariantCache,
    /// Vertex: the outputs transform feedback captures (Mesa's stream-output info).
    pub so: Option<crate::so::StreamOutput>,
    /// The uniform blocks the program reads ([`ubos_read`]), the default block's included when
    /// it is read from memory, or why they do not fit.
    pub ubos: Result<u8, String>,
    /// The block the default uniform block (constant buffer 0) is read from when its words do
    /// not fit the launcher's argument words (see [`INLINE_UNIFORM_WORDS`]).
    pub default_block: Option<u8>,
}

/// GL uniform words (constant buffer 0) a program reads inline, as argument words; a program
/// that reads more (or an array of more than one vec4 through a variable index: uniform
/// registers cannot be indexed, so an indexed array costs a select per element) reads the
/// whole default block with device loads from memory, as a uniform block
/// ([`default_block_to_ubo`]). A launcher transfers at most 46 words, 12 of them the root
/// record and two per buffer (sim/GFX.md "Render-stage uniform ABI").
pub const INLINE_UNIFORM_WORDS: u32 = 16;

/// Whether `nir` reads its default uniform block from memory (see [`INLINE_UNIFORM_WORDS`]).
unsafe fn default_block_in_memory(nir: *mut sys::nir_shader) -> bool {
    unsafe extern "C" fn visit(
        _b: *mut sys::nir_builder,
        x: *mut sys::nir_intrinsic_instr,
        data: *mut c_void,
    ) -> bool {
        if (*x).intrinsic == sys::nir_intrinsic_load_uniform
            && !sys::nir_src_is_const(*(*x).src.as_ptr())
            && sys::nir_intrinsic_range(x) > 4
        {
            *(data as *mut bool) = true;
        }
        false
    }
    let mut indexed = false;
    sys::nir_shader_intrinsics_pass(
        nir,
        Some(visit),
        sys::nir_metadata_all,
        &mut indexed as *mut bool as *mut c_void,
    );
    indexed || crate::variants::uniform_end(nir) > INLINE_UNIFORM_WORDS
}

/// Rewrites every `load_uniform` of `nir` (GL uniform word base + offset, `packed_uniforms`)
/// into a `load_ubo` of uniform block `block` at byte offset 4 · (base + offset): the default
/// block read from memory.
///
/// # Safety
/// `nir` must be a valid shader owned by the caller.
pub unsafe fn default_block_to_ubo(nir: *mut sys::nir_shader, block: u8) {
    unsafe extern "C" fn visit(
        b: *mut sys::nir_builder,
        x: *mut sys::nir_intrinsic_instr,
        data: *mut c_void,
    ) -> bool {
        if (*x).intrinsic != sys::nir_intrinsic_load_uniform || (*x).def.bit_size != 32 {
            return false;
        }
        let block = *(data as *const u8);
        (*b).cursor = sys::nir_before_instr(&mut (*x).instr);
        let words = sys::nir_iadd_imm(
            b,
            (*(*x).src.as_ptr()).ssa,
            sys::nir_intrinsic_base(x) as i64 as u64,
        );
        let offset = sys::nir_ishl_imm(b, words, 2);
        let n = (*x).def.num_components as u32;
        let load = sys::nir_intrinsic_instr_create((*b).shader, sys::nir_intrinsic_load_ubo);
        (*load).num_components = n as u8;
        sys::nir_def_init(&mut (*load).instr, &mut (*load).def, n, 32);
        let srcs = (*load).src.as_mut_slice(2);
        srcs[0] = sys::nir_src_for_ssa(sys::nir_imm_int(b, block as i32));
        srcs[1] = sys::nir_src_for_ssa(offset);
        sys::nir_intrinsic_set_align(load, 4, 0);
        sys::nir_intrinsic_set_range_base(load, 0);
        sys::nir_intrinsic_set_range(load, u32::MAX);
        sys::nir_builder_instr_insert(b, &mut (*load).instr);
        sys::nir_def_replace(&mut (*x).def, &mut (*load).def);
        true
    }
    let mut block = block;
    sys::nir_shader_intrinsics_pass(
        nir,
        Some(visit),
        sys::nir_metadata_control_flow,
        &mut block as *mut u8 as *mut c_void,
    );
}

/// The uniform blocks a stage's program reads: one past the highest constant `load_ubo` block
/// index (`info.num_ubos` when an index is not constant). NIR `load_ubo` block k is the state
/// tracker's constant buffer k + 1 (st_atom_constbuf.c `st_bind_ubos`; tgsi_to_nir numbers
/// TGSI's buffers alike), each a buffer qword of its root record (agx16_compiler::abi); more
/// than [`MAX_UBOS`] do not fit the launcher's argument words beside the vertex buffers and
/// uniforms. Blocks a program declares but never reads (util_blitter's shaders) get no qword.
pub unsafe fn ubos_read(nir: *mut sys::nir_shader) -> Result<u8, String> {
    unsafe extern "C" fn visit(
        _b: *mut sys::nir_builder,
        x: *mut sys::nir_intrinsic_instr,
        data: *mut std::ffi::c_void,
    ) -> bool {
        if (*x).intrinsic == sys::nir_intrinsic_load_ubo {
            let n = &mut *(data as *mut Option<u32>);
            let src = *(*x).src.as_ptr();
            *n = match (*n, sys::nir_src_is_const(src)) {
                (Some(m), true) => Some(m.max(sys::nir_src_as_uint(src) as u32 + 1)),
                _ => None,
            };
        }
        false
    }
    let mut read: Option<u32> = Some(0);
    sys::nir_shader_intrinsics_pass(
        nir,
        Some(visit),
        sys::nir_metadata_all,
        &mut read as *mut Option<u32> as *mut std::ffi::c_void,
    );
    let n = read.unwrap_or((*nir).info.num_ubos as u32);
    if n > MAX_UBOS as u32 {
        return Err(format!(
            "{n} uniform blocks in one stage (at most {MAX_UBOS})"
        ));
    }
    Ok(n as u8)
}

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
    let key = link_time_key(nir).ok_or("only vertex and fragment shaders are compiled")?;
    // As the draw-time variants do (variants.rs `compile`), so link-time statistics and
    // errors describe the program draws run.
    crate::variants::lower_textures(nir);
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
    let mut ubos = ubos_read(nir);
    let mut default_block = None;
    if default_block_in_memory(nir) {
        if let Ok(n) = ubos {
            if n >= MAX_UBOS {
                ubos = Err(format!(
                    "{n} uniform blocks and the default block in memory (at most {MAX_UBOS})"
                ));
            } else {
                default_block = Some(n);
                ubos = Ok(n + 1);
            }
        }
    }
    // The CSO-time compile lowers its own clone; `nir` stays the variants' source.
    let clone = sys::nir_shader_clone(null_mut(), nir);
    let compiled = if clone.is_null() {
        Err("nir_shader_clone failed".to_string())
    } else {
        let c = compile(clone, default_block);
        sys::ralloc_free(clone as *mut c_void);
        c
    };
    match &compiled {
        Ok(c) if debug::flags().shaderdb => {
            eprintln!(
                "agx16 shaderdb: {stage}: {} ({nir_instrs} NIR instructions, {} bytes)",
                c.stats,
                c.code.len()
            )
        }
        Ok(_) => {}
        Err(e) => {
            eprintln!("agx16: {stage} shader ({nir_instrs} NIR instructions) not compiled: {e}")
        }
    }
    Box::into_raw(Box::new(ShaderCso {
        nir,
        compiled,
        variants: Default::default(),
        so,
        ubos,
        default_block,
    })) as *mut c_void
}

unsafe fn delete(cso: *mut c_void) {
    if cso.is_null() {
        return;
    }
    let cso = Box::from_raw(cso as *mut ShaderCso);
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

pub unsafe extern "C" fn delete_shader_state(_: *mut sys::pipe_context, cso: *mut c_void) {
    guard("delete shader state", (), || delete(cso))
}

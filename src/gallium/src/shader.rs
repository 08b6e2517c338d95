//! Shader CSOs: Mesa hands over NIR at link time; we compile it for the G16 right away so errors surface
//! at glLinkProgram, and keep the result for draws.

use crate::context::Context;
use crate::debug;
use crate::ffi::guard;
use agx16_mesa_sys as sys;
use std::ffi::{c_void, CStr};
use std::ptr::null_mut;

/// What NIR the compiler wants from Mesa's lowering. The compiler owns these choices; they live here
/// until agx16-compiler exports its own table. All lowerings leave only scalar-friendly core ALU ops.
pub fn nir_options() -> sys::nir_shader_compiler_options {
    // SAFETY: a plain C struct of flags and numbers; zero means "no lowering".
    let mut o: sys::nir_shader_compiler_options = unsafe { std::mem::zeroed() };
    o.lower_fdph = true;
    o.lower_flrp16 = true;
    o.lower_flrp32 = true;
    o.lower_flrp64 = true;
    o.lower_fmod = true;
    o.lower_fpow = true;
    o.lower_scmp = true;
    o.lower_ldexp = true;
    o.lower_isign = true;
    o.lower_fsign = true;
    o.lower_uniforms_to_ubo = true;
    o.lower_int64_options = !0;
    o.lower_doubles_options = !0;
    o.max_unroll_iterations = 32;
    o
}

/// The result of compiling one shader for the G16.
pub struct Compiled {
    pub code: Vec<u8>,
    /// Mesa shader-db style statistics ("N inst, N regs, ...").
    pub stats: String,
}

/// A shader CSO: owns the NIR Mesa gave us (ralloc'ed) and the compile result.
#[allow(dead_code)] // `compiled` is read by the draw path, which is not written yet.
pub struct ShaderCso {
    pub nir: *mut sys::nir_shader,
    pub compiled: Result<Compiled, String>,
}

/// The compiler's NIR entry point. agx16-compiler does not export one yet, so every shader fails here
/// with a message saying so; the CSO still exists so GL state stays consistent, and draws refuse it.
fn compile(_nir: *mut sys::nir_shader) -> Result<Compiled, String> {
    Err("agx16-compiler has no NIR entry point yet".into())
}

/// "MESA_SHADER_VERTEX" etc.
///
/// # Safety
/// `nir` must be a valid shader.
unsafe fn stage_name(nir: *const sys::nir_shader) -> String {
    CStr::from_ptr(sys::_mesa_shader_stage_to_string((*nir).info.stage() as u32))
        .to_string_lossy()
        .into_owned()
}

unsafe fn create(state: *const sys::pipe_shader_state) -> *mut c_void {
    if state.is_null() || (*state).type_ != sys::PIPE_SHADER_IR_NIR {
        eprintln!("agx16: shader state without NIR (agx16 takes NIR only)");
        return null_mut();
    }
    let nir = (*state).ir.nir;
    let stage = stage_name(nir);
    let entry = sys::nir_shader_get_entrypoint(nir);
    let nir_instrs = if entry.is_null() {
        0
    } else {
        sys::nir_iter::instr_count(entry)
    };
    let compiled = compile(nir);
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
    Box::into_raw(Box::new(ShaderCso { nir, compiled })) as *mut c_void
}

unsafe fn delete(cso: *mut c_void) {
    if cso.is_null() {
        return;
    }
    let cso = Box::from_raw(cso as *mut ShaderCso);
    sys::ralloc_free(cso.nir as *mut c_void);
}

pub unsafe extern "C" fn create_vs_state(
    _: *mut sys::pipe_context,
    state: *const sys::pipe_shader_state,
) -> *mut c_void {
    guard("create_vs_state", null_mut(), || create(state))
}

pub unsafe extern "C" fn create_fs_state(
    _: *mut sys::pipe_context,
    state: *const sys::pipe_shader_state,
) -> *mut c_void {
    guard("create_fs_state", null_mut(), || create(state))
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

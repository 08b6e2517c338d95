//! The C ABI the Gallium driver (or any C caller) uses. Nothing panics across it: every entry
//! point catches unwinding and reports failure as a value.

use super::compile_nir;
use crate::pipeline::Options;
use agx16_mesa_sys::{nir_shader, nir_shader_compiler_options};
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Static statistics of one compiled shader (Mesa shader-db style).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Agx16ShaderStats {
    pub instrs: u32,
    pub bytes: u32,
    pub gprs: u32,
    pub spills: u32,
    pub fills: u32,
    pub scoreboard_waits: u32,
}

/// Result of `agx16_compile_nir`: either `code`/`code_size` or `error` is set.
#[repr(C)]
#[derive(Debug)]
pub struct Agx16CompileResult {
    pub code: *mut u8,
    pub code_size: usize,
    pub stats: Agx16ShaderStats,
    /// NUL-terminated message naming what could not be compiled, or null.
    pub error: *mut c_char,
}

fn error_string(msg: &str) -> *mut c_char {
    CString::new(msg.replace('\0', " "))
        .map(CString::into_raw)
        .unwrap_or(std::ptr::null_mut())
}

/// Options agx16 wants Mesa's NIR passes to honour.
#[no_mangle]
pub extern "C" fn agx16_nir_options() -> *const nir_shader_compiler_options {
    catch_unwind(super::options::options)
        .map(|o| o as *const _)
        .unwrap_or(std::ptr::null())
}

/// Lower, import and compile `nir` for G16. Returns true on success; on failure
/// `result.error` names the reason. Free the result with `agx16_compile_result_free`.
///
/// # Safety
/// `nir` must be a valid NIR shader (it is lowered in place); `result` must be writable.
#[no_mangle]
pub unsafe extern "C" fn agx16_compile_nir(
    nir: *mut nir_shader,
    result: *mut Agx16CompileResult,
) -> bool {
    if result.is_null() {
        return false;
    }
    let out = catch_unwind(AssertUnwindSafe(|| {
        if nir.is_null() {
            return Err("null NIR shader".to_string());
        }
        unsafe { compile_nir(nir, Options::default()) }.map_err(|e| e.to_string())
    }));
    let r = match out {
        Ok(Ok(c)) => {
            let code = c.code.into_boxed_slice();
            let len = code.len();
            Agx16CompileResult {
                code: Box::into_raw(code) as *mut u8,
                code_size: len,
                stats: Agx16ShaderStats {
                    instrs: c.stats.instrs,
                    bytes: c.stats.bytes,
                    gprs: c.stats.gprs,
                    spills: c.stats.spills,
                    fills: c.stats.fills,
                    scoreboard_waits: c.stats.scoreboard_waits,
                },
                error: std::ptr::null_mut(),
            }
        }
        Ok(Err(msg)) => Agx16CompileResult {
            code: std::ptr::null_mut(),
            code_size: 0,
            stats: Default::default(),
            error: error_string(&msg),
        },
        Err(_) => Agx16CompileResult {
            code: std::ptr::null_mut(),
            code_size: 0,
            stats: Default::default(),
            error: error_string("internal compiler error (panic caught at the C boundary)"),
        },
    };
    let ok = r.error.is_null();
    unsafe { result.write(r) };
    ok
}

/// Free what `agx16_compile_nir` allocated.
///
/// # Safety
/// `result` must come from `agx16_compile_nir` and not be freed twice.
#[no_mangle]
pub unsafe extern "C" fn agx16_compile_result_free(result: *mut Agx16CompileResult) {
    if result.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| unsafe {
        let r = &mut *result;
        if !r.code.is_null() {
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                r.code,
                r.code_size,
            )));
            r.code = std::ptr::null_mut();
        }
        if !r.error.is_null() {
            drop(CString::from_raw(r.error));
            r.error = std::ptr::null_mut();
        }
    }));
}

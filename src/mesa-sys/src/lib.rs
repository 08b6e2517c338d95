//! bindgen bindings over Mesa's NIR and Gallium headers, generated from the Mesa build that
//! `AGX16_MESA_SRC`/`AGX16_MESA_BUILD` name (set by `Makefile.toml`).
//!
//! NIR's and Gallium's `static inline` helpers are bound through C wrappers that bindgen generates, so
//! e.g. `nir_intrinsic_base` and `nir_shader_get_entrypoint` are callable as ordinary functions.
#![allow(
    non_upper_case_globals,
    non_camel_case_types,
    non_snake_case,
    dead_code
)]
#![allow(clippy::all, unnecessary_transmutes, unsafe_op_in_unsafe_fn)]

include!(concat!(env!("OUT_DIR"), "/bindings.rs"));

pub mod nir_iter;

/// Mesa's GLSL front end (feature `glsl`): `glsl/agx16_glsl.cpp`.
#[cfg(feature = "glsl")]
pub mod glsl {
    use super::nir_shader;
    use super::nir_shader_compiler_options;
    use std::os::raw::{c_char, c_uint};

    extern "C" {
        /// Compile and link `source` as gl_shader_stage `stage` with `options`; returns a NIR
        /// shader the caller frees with `ralloc_free`, or null with `*log` set (free it with
        /// `agx16_glsl_free_log`). Not thread-safe.
        pub fn agx16_glsl_to_nir(
            source: *const c_char,
            stage: c_uint,
            options: *const nir_shader_compiler_options,
            log: *mut *mut c_char,
        ) -> *mut nir_shader;
        pub fn agx16_glsl_free_log(log: *mut c_char);
    }
}

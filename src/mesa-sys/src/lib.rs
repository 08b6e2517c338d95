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

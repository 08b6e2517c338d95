//! The NIR front-end (feature `nir`): Mesa's own lowering and optimisation passes with agx16's
//! options, then import into the SSA IR, and the entry points the Gallium driver calls.

mod alu;
pub mod api;
mod gfx;
mod import;
mod intrinsic;
pub mod options;
pub mod prepare;
pub mod texture;
mod texture_offset;
pub mod uniforms;
pub mod vertex_fetch;

pub use import::import;

use crate::error::CompileError;
use crate::pipeline::{compile_g16, Compiled, Options};
use agx16_mesa_sys::nir_shader;

/// Lower/optimise `shader` in place with Mesa's passes, import it and compile it for G16.
///
/// # Safety
/// `shader` must be a valid NIR shader that nothing else mutates during the call.
pub unsafe fn compile_nir(
    shader: *mut nir_shader,
    opts: Options,
) -> Result<Compiled, CompileError> {
    unsafe {
        prepare::run(shader);
        let f = import(shader)?;
        let c = compile_g16(&f, opts)?;
        if std::env::var("AGX16_DEBUG").is_ok_and(|d| d.split(',').any(|x| x == "shaderdb")) {
            eprintln!("{}", c.stats.shader_db_line(&format!("{:?}", f.stage)));
        }
        Ok(c)
    }
}

/// Lower/optimise a vertex or fragment `shader` in place, import it under the graphics ABI
/// `key` (`crate::abi`) and compile it for G16; returns the code and what the driver needs to
/// know about it.
///
/// # Safety
/// `shader` must be a valid NIR shader that nothing else mutates during the call.
pub unsafe fn compile_nir_graphics(
    shader: *mut nir_shader,
    key: &crate::abi::GraphicsKey,
) -> Result<(Compiled, crate::abi::StageInfo), CompileError> {
    // Nothing panics across the driver's pipe callbacks: an internal panic is an error.
    let imported = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
        if let crate::abi::GraphicsKey::Vertex(vk) = key {
            vertex_fetch::lower(shader, vk)?;
        }
        prepare::run(shader);
        import::import_graphics(shader, key)
    }))
    .unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
        Err(CompileError::Internal(format!(
            "panic in the NIR graphics import: {}",
            what.unwrap_or_default()
        )))
    });
    let (f, g) = imported?;
    let (c, mut info) = crate::abi::compile_ir_graphics(&f, g.gl_base, Options::default())?;
    info.varyings = g.varyings;
    info.point_size = g.point_size;
    // Every buffer of the key keeps its qword (the driver fills them in this order).
    info.buffers = info.buffers.max(gfx::buffers(key));
    if std::env::var("AGX16_DEBUG").is_ok_and(|d| d.split(',').any(|x| x == "shaderdb")) {
        eprintln!("{}", c.stats.shader_db_line(&format!("{:?}", f.stage)));
    }
    Ok((c, info))
}

//! GLSL input (feature `glsl`): Mesa's own GLSL front end and NIR linker, run without a GL
//! context (agx16-mesa-sys `glsl/agx16_glsl.cpp`), with agx16's NIR options, then the NIR
//! front-end and the G16 backend. Used by `agx16-compile FILE.glsl` and the GLSL corpus test.
//!
//! A buffer block's `binding = n` is device buffer slot n: the front end rewrites Mesa's block
//! indices in `load_ssbo`/`store_ssbo` to the blocks' bindings.

use crate::error::CompileError;
use crate::nir::{compile_nir, options::options};
use crate::pipeline::{Compiled, Options};
use agx16_mesa_sys as m;
use std::ffi::{CStr, CString};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use thiserror::Error;

/// The shader stages `agx16-compile` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderStage {
    Vertex,
    Fragment,
    Compute,
}

impl ShaderStage {
    /// `vs`, `fs`, `cs` (and the long names).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "vs" | "vert" | "vertex" => Some(Self::Vertex),
            "fs" | "frag" | "fragment" => Some(Self::Fragment),
            "cs" | "comp" | "compute" => Some(Self::Compute),
            _ => None,
        }
    }

    /// From a file name: `.vert`/`.vs`, `.frag`/`.fs`, `.comp`/`.cs` (also before `.glsl`,
    /// as in `x.frag.glsl`).
    pub fn from_path(path: &Path) -> Option<Self> {
        let name = path.file_name()?.to_str()?;
        let name = name.strip_suffix(".glsl").unwrap_or(name);
        Self::parse(name.rsplit_once('.')?.1)
    }

    fn gl_stage(self) -> u32 {
        match self {
            Self::Vertex => m::MESA_SHADER_VERTEX as u32,
            Self::Fragment => m::MESA_SHADER_FRAGMENT as u32,
            Self::Compute => m::MESA_SHADER_COMPUTE as u32,
        }
    }

    /// Mesa's stage name, as shader-db prints it.
    pub fn mesa_name(self) -> &'static str {
        match self {
            Self::Vertex => "MESA_SHADER_VERTEX",
            Self::Fragment => "MESA_SHADER_FRAGMENT",
            Self::Compute => "MESA_SHADER_COMPUTE",
        }
    }
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum GlslError {
    /// Mesa's GLSL compiler or linker rejected the source (its info log).
    #[error("{0}")]
    Frontend(String),
    /// Our compiler could not compile the NIR (names the NIR instruction or G16 form).
    #[error("{0}")]
    Compile(#[from] CompileError),
}

/// A NIR shader owned by Rust (ralloc context freed on drop). It holds a reference on Mesa's
/// glsl_type cache: array and struct types (`int t[4]`) live in that cache, which Mesa frees when
/// its last user lets go, so without the reference the shader's variables (and any
/// `nir_shader_clone` of it) would point at freed types (nir_lower_indirect_derefs then read a
/// garbage array length and asserted `start < end` under `agx16-compile --stats`).
pub struct NirShader(*mut m::nir_shader);

impl NirShader {
    pub fn as_ptr(&self) -> *mut m::nir_shader {
        self.0
    }
}

impl Drop for NirShader {
    fn drop(&mut self) {
        unsafe {
            m::ralloc_free(self.0 as *mut _);
            m::glsl_type_singleton_decref();
        }
    }
}

/// Mesa's GLSL compiler keeps process-wide state (the built-in function library).
static FRONTEND: Mutex<()> = Mutex::new(());

/// GLSL source → linked NIR with agx16's options (SSBO access as `load_ssbo`/`store_ssbo`,
/// compute system values lowered).
pub fn glsl_to_nir(source: &str, stage: ShaderStage) -> Result<NirShader, GlslError> {
    let src = CString::new(source)
        .map_err(|_| GlslError::Frontend("GLSL source contains a NUL byte".into()))?;
    let _guard = FRONTEND.lock().unwrap_or_else(|e| e.into_inner());
    let mut log: *mut std::os::raw::c_char = std::ptr::null_mut();
    // The NirShader's reference on the type cache (released on drop, or below on failure), taken
    // before the front end so its own release does not free the shader's types.
    unsafe { m::glsl_type_singleton_init_or_ref() };
    let nir =
        unsafe { m::glsl::agx16_glsl_to_nir(src.as_ptr(), stage.gl_stage(), options(), &mut log) };
    if nir.is_null() {
        unsafe { m::glsl_type_singleton_decref() };
        let msg = if log.is_null() {
            "GLSL front end failed without a message".to_string()
        } else {
            let s = unsafe { CStr::from_ptr(log) }
                .to_string_lossy()
                .trim_end()
                .to_string();
            unsafe { m::glsl::agx16_glsl_free_log(log) };
            s
        };
        return Err(GlslError::Frontend(msg));
    }
    Ok(NirShader(nir))
}

/// A compiled GLSL shader and how long the backend (NIR passes → G16 code) took.
pub struct GlslCompiled {
    pub compiled: Compiled,
    pub backend_time: Duration,
}

/// GLSL → NIR → G16. Vertex and fragment shaders are compiled the way the driver compiles
/// them at link time (`link_time_key`): IO lowered to driver locations, every vertex input a
/// vec4 of f32 in its own buffer, every varying component read, one RGBA8 target.
pub fn compile_glsl(
    source: &str,
    stage: ShaderStage,
    opts: Options,
) -> Result<GlslCompiled, GlslError> {
    let nir = glsl_to_nir(source, stage)?;
    let t = Instant::now();
    let compiled = unsafe { compile_nir_stage(nir.as_ptr(), stage, opts) }?;
    Ok(GlslCompiled {
        compiled,
        backend_time: t.elapsed(),
    })
}

/// The backend for one stage of front-end output.
///
/// # Safety
/// `nir` must come from `glsl_to_nir` for `stage`; it is lowered in place.
pub unsafe fn compile_nir_stage(
    nir: *mut m::nir_shader,
    stage: ShaderStage,
    opts: Options,
) -> Result<Compiled, CompileError> {
    unsafe {
        if stage == ShaderStage::Compute {
            return compile_nir(nir, opts);
        }
        compile_graphics_stage(nir).map(|(c, _, _)| c)
    }
}

/// A vertex or fragment stage compiled as the driver compiles it at link time, with its
/// stage information and where its texture-information words went.
///
/// # Safety
/// `nir` must come from `glsl_to_nir` for a vertex or fragment stage; it is lowered in place.
pub unsafe fn compile_graphics_stage(
    nir: *mut m::nir_shader,
) -> Result<
    (
        Compiled,
        crate::abi::StageInfo,
        Option<crate::nir::uniforms::TextureWords>,
    ),
    CompileError,
> {
    unsafe {
        lower_io(nir);
        // The driver's placement of uniforms (agx16-gallium shader.rs): the default block read
        // from memory when it does not fit the launcher's words or is indexed, the
        // texture-information words it reads after the uniforms (or in a block of their own).
        let (ubos, default_block) = crate::nir::uniforms::blocks(nir);
        let ubos = ubos.map_err(CompileError::Unsupported)?;
        if let Some(k) = default_block {
            crate::nir::uniforms::default_block_to_ubo(nir, k);
        }
        let mut key = link_time_key(nir, ubos);
        let words = crate::nir::uniforms::lower_textures(nir, &mut key);
        crate::nir::compile_nir_graphics(nir, &key).map(|(c, i)| (c, i, words))
    }
}

unsafe extern "C" fn vec4_slots(ty: *const m::glsl_type, bindless: bool) -> std::ffi::c_int {
    unsafe { m::glsl_count_vec4_slots(ty, false, bindless) as std::ffi::c_int }
}

unsafe extern "C" fn dword_slots(ty: *const m::glsl_type, bindless: bool) -> std::ffi::c_int {
    unsafe { m::glsl_count_dword_slots(ty, bindless) as std::ffi::c_int }
}

/// In/out variables → load_input/store_output (fragment inputs as interpolated loads) with
/// vec4-slot driver locations, as the Gallium driver lowers what Mesa hands it.
unsafe fn lower_io(nir: *mut m::nir_shader) {
    unsafe {
        let stage = (*nir).info.stage();
        m::nir_assign_io_var_locations(nir, m::nir_var_shader_in, &mut (*nir).num_inputs, stage);
        m::nir_assign_io_var_locations(nir, m::nir_var_shader_out, &mut (*nir).num_outputs, stage);
        let options = if stage == m::MESA_SHADER_FRAGMENT {
            m::nir_lower_io_use_interpolated_input_intrinsics
        } else {
            0
        };
        m::nir_lower_io(
            nir,
            m::nir_var_shader_in | m::nir_var_shader_out,
            Some(vec4_slots),
            options,
        );
        // Default-block uniforms → load_uniform in 32-bit words (st's packed-uniform lowering,
        // samplers take no words), so `uniform float x[4]; x[i]` reaches the importer as it does
        // in the driver.
        m::nir_assign_var_locations(
            nir,
            m::nir_var_uniform,
            &mut (*nir).num_uniforms,
            Some(dword_slots),
        );
        m::nir_lower_io(nir, m::nir_var_uniform, Some(dword_slots), 0);
        m::nir_shader_gather_info(nir, m::nir_shader_get_entrypoint(nir));
    }
}

/// The representative key of a link-time compile (the driver's `link_time_key`).
unsafe fn link_time_key(nir: *const m::nir_shader, ubos: u8) -> crate::abi::GraphicsKey {
    use crate::abi::*;
    let info = unsafe { &(*nir).info };
    let bits = |mask: u64| (0..64u8).filter(move |b| mask >> b & 1 == 1);
    if info.stage() == m::MESA_SHADER_VERTEX {
        GraphicsKey::Vertex(VertexKey {
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
        })
    } else {
        GraphicsKey::Fragment(FragmentKey {
            varyings: bits(info.inputs_read)
                .filter(|l| *l as u32 != m::VARYING_SLOT_POS)
                .flat_map(|location| {
                    (0..4).map(move |component| VaryingSlot {
                        location,
                        component,
                    })
                })
                .collect(),
            frag_coord_z: info.inputs_read & (1 << m::VARYING_SLOT_POS) != 0,
            render_targets: vec![RenderTarget::Rgba8Unorm],
            ubos,
            ..Default::default()
        })
    }
}

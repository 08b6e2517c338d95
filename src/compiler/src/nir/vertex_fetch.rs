//! Vertex fetch in NIR: every vertex-stage `load_input` becomes a load of the attribute
//! element's 32-bit words from its vertex buffer followed by the format's unpacking and
//! conversion, written with Mesa's format helpers (`nir_format_unpack_uint/sint`,
//! `nir_format_unorm_to_float`, `nir_format_snorm_to_float`, `unpack_half_2x16_split_x`, which
//! the importer converts with `half::half_to_f32`), so
//! Mesa's algebraic passes see and simplify the whole fetch before import.
//!
//! The word load is a `load_ubo` whose block index is the binding's buffer qword counted from
//! the first UBO: block `ubos + b` is vertex-buffer binding `b` (`abi::vertex_buffer_slot` is
//! `abi::ubo_slot(ubos + b)`), which the importer reads as a device load from that slot. The
//! element index is the vertex id (index + base vertex) for per-vertex attributes and
//! `instance id / divisor` for instanced ones (`nir_udiv_imm`; prepare.rs lowers the
//! division).
//!
//! Robust fetch (`VertexKey::fetch_limits`): the element's first word index is clamped with
//! `umin` to the attribute's limit word, which the driver computes from the bound buffer's
//! size, so any vertex id (indices up to 0xFFFFFFFF, huge base vertices or instance counts)
//! reads words inside its own buffer: the GLES robust-access rule allows values from within
//! the buffer. Mesa's asahi driver does robust vertex buffers the same way, clamping the
//! element index in the shader against the buffer size (src/asahi/lib/agx_nir_lower_vbo.c,
//! validated on G13-G15); only `umin`, an ALU op the compiler already emits, is added.

use crate::abi::{AttribType, VertexAttrib, VertexKey};
use crate::error::CompileError;
use agx16_mesa_sys as m;

struct State<'a> {
    key: &'a VertexKey,
    error: Option<CompileError>,
}

/// Rewrites the vertex inputs of `s` (after `nir_lower_io`) into fetches under `key`.
///
/// # Safety
/// `s` must be a valid vertex-stage NIR shader that nothing else mutates during the call.
pub unsafe fn lower(s: *mut m::nir_shader, key: &VertexKey) -> Result<(), CompileError> {
    let mut st = State { key, error: None };
    unsafe {
        m::nir_shader_intrinsics_pass(
            s,
            Some(visit),
            m::nir_metadata_control_flow,
            &mut st as *mut State as *mut std::ffi::c_void,
        );
    }
    st.error.map_or(Ok(()), Err)
}

unsafe extern "C" fn visit(
    b: *mut m::nir_builder,
    x: *mut m::nir_intrinsic_instr,
    data: *mut std::ffi::c_void,
) -> bool {
    unsafe {
        if (*x).intrinsic != m::nir_intrinsic_load_input {
            return false;
        }
        let st = &mut *(data as *mut State);
        if st.error.is_some() {
            return false;
        }
        match replace(b, x, st.key) {
            Ok(()) => true,
            Err(e) => {
                st.error = Some(e);
                false
            }
        }
    }
}

unsafe fn replace(
    b: *mut m::nir_builder,
    x: *mut m::nir_intrinsic_instr,
    key: &VertexKey,
) -> Result<(), CompileError> {
    unsafe {
        let off = *(*x).src.as_ptr();
        if !m::nir_src_is_const(off) {
            return Err(CompileError::Unsupported(
                "vertex input with an indirect offset".into(),
            ));
        }
        let loc = m::nir_intrinsic_io_semantics(x).location() + m::nir_src_as_uint(off) as u32;
        let a = key
            .attribs
            .iter()
            .find(|a| a.location as u32 == loc)
            .ok_or_else(|| {
                CompileError::Unsupported(format!(
                    "vertex input location {loc} has no attribute in the key"
                ))
            })?;
        let comp = m::nir_intrinsic_component(x);
        let n = (*x).def.num_components as u32;
        if (*x).def.bit_size != 32 || comp + n > 4 {
            return Err(CompileError::Unsupported(format!(
                "{}-bit vertex input of {n} components at component {comp}",
                (*x).def.bit_size
            )));
        }
        (*b).cursor = m::nir_before_instr(&mut (*x).instr);
        let limit = key.fetch_limits.map(|w| {
            let i = key
                .attribs
                .iter()
                .position(|x| std::ptr::eq(x, a))
                .unwrap_or(0) as u32;
            w + i
        });
        let v = fetch(b, a, key.ubos, limit)?;
        let mask = ((1u32 << n) - 1) << comp;
        let r = m::nir_channels(b, v, mask as u16);
        m::nir_def_replace(&mut (*x).def, r);
        Ok(())
    }
}

/// The four components input `a` reads (GL's defaults 0, 0, 0, 1 for missing ones); with
/// `limit`, the GL uniform word of the clamp for its first word index.
unsafe fn fetch(
    b: *mut m::nir_builder,
    a: &VertexAttrib,
    ubos: u8,
    limit: Option<u32>,
) -> Result<*mut m::nir_def, CompileError> {
    unsafe {
        let f = a.format;
        f.check().map_err(CompileError::Unsupported)?;
        if !a.offset.is_multiple_of(4) || !a.stride.is_multiple_of(4) {
            return Err(CompileError::Unsupported(format!(
                "vertex attribute {a:?}: offset and stride must be multiples of 4 (the driver \
                 realigns others through u_vbuf)"
            )));
        }
        let block = a.buffer as u32 + ubos as u32;
        if crate::abi::gl_uniform_base(block as u8 + 1) > crate::abi::MAX_UNIFORM_WORDS {
            return Err(CompileError::Unsupported(format!(
                "vertex buffer binding {} after {ubos} UBOs: past the 64 argument words",
                a.buffer
            )));
        }
        let index = if a.divisor == 0 {
            m::nir_load_system_value(b, m::nir_intrinsic_load_vertex_id, 0, 1, 32)
        } else {
            let i = m::nir_load_system_value(b, m::nir_intrinsic_load_instance_id, 0, 1, 32);
            m::nir_udiv_imm(b, i, a.divisor as u64)
        };
        // Word index of the element's first word, then its byte offset (the importer reads
        // `ishl(w, 2)` back as element w).
        let mut w = m::nir_iadd_imm(
            b,
            m::nir_imul_imm(b, index, (a.stride / 4) as u64),
            (a.offset / 4) as u64,
        );
        if let Some(word) = limit {
            let last = crate::nir::texture::load_uniform_words(b, word, 1, m::nir_type_uint32);
            w = m::nir_umin(b, w, last);
        }
        let words = f.words();
        let packed = load_words(b, block, m::nir_ishl_imm(b, w, 2), words);
        let n = f.comps as u32;
        let bits: [u32; 4] = f.bits.map(u32::from);
        let signed = matches!(
            f.ty,
            AttribType::Snorm | AttribType::Sscaled | AttribType::Sint | AttribType::Fixed
        );
        // Raw components (sign-extended for signed types); 32-bit ones are the words.
        let raw = if bits[0] == 32 {
            packed
        } else if signed {
            m::nir_format_unpack_sint(b, packed, bits.as_ptr(), n)
        } else {
            m::nir_format_unpack_uint(b, packed, bits.as_ptr(), n)
        };
        let value = match f.ty {
            AttribType::Uint | AttribType::Sint => raw,
            AttribType::Unorm => m::nir_format_unorm_to_float(b, raw, bits.as_ptr()),
            AttribType::Snorm => m::nir_format_snorm_to_float(b, raw, bits.as_ptr()),
            AttribType::Uscaled => m::nir_u2f32(b, raw),
            AttribType::Sscaled => m::nir_i2f32(b, raw),
            AttribType::Fixed => m::nir_fmul_imm(b, m::nir_i2f32(b, raw), 1.0 / 65536.0),
            AttribType::Float if bits[0] == 32 => raw,
            AttribType::Float => {
                let mut c = [std::ptr::null_mut(); 4];
                for (k, ck) in c.iter_mut().enumerate().take(n as usize) {
                    *ck = m::nir_unpack_half_2x16_split_x(b, m::nir_channel(b, raw, k as u32));
                }
                m::nir_vec(b, c.as_mut_ptr(), n)
            }
        };
        let (zero, one) = if f.pure_integer() {
            (m::nir_imm_int(b, 0), m::nir_imm_int(b, 1))
        } else {
            (m::nir_imm_float(b, 0.0), m::nir_imm_float(b, 1.0))
        };
        let mut c: [*mut m::nir_def; 4] = [zero, zero, zero, one];
        for (k, ck) in c.iter_mut().enumerate().take(n as usize) {
            // GL_BGRA: x is the third stored component and z the first.
            let stored = if f.bgra && k != 1 && k != 3 { 2 - k } else { k };
            *ck = m::nir_channel(b, value, stored as u32);
        }
        Ok(m::nir_vec(b, c.as_mut_ptr(), 4))
    }
}

/// `load_ubo` of `words` 32-bit words at byte offset `offset` of block `block`.
unsafe fn load_words(
    b: *mut m::nir_builder,
    block: u32,
    offset: *mut m::nir_def,
    words: u32,
) -> *mut m::nir_def {
    unsafe {
        let load = m::nir_intrinsic_instr_create((*b).shader, m::nir_intrinsic_load_ubo);
        (*load).num_components = words as u8;
        m::nir_def_init(&mut (*load).instr, &mut (*load).def, words, 32);
        let srcs = (*load).src.as_mut_ptr();
        *srcs = m::nir_src_for_ssa(m::nir_imm_int(b, block as i32));
        *srcs.add(1) = m::nir_src_for_ssa(offset);
        m::nir_intrinsic_set_access(load, m::ACCESS_CAN_REORDER);
        m::nir_intrinsic_set_align_mul(load, 4);
        m::nir_intrinsic_set_align_offset(load, 0);
        m::nir_intrinsic_set_range_base(load, 0);
        m::nir_intrinsic_set_range(load, u32::MAX);
        m::nir_builder_instr_insert(b, &mut (*load).instr);
        &mut (*load).def
    }
}

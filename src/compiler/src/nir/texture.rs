//! NIR texture instructions → `Op::Texture` (selection: isel/texture.rs; what the model runs:
//! sim/GFX.md "Textures"), and the NIR lowering that brings GLSL ES 3.00's texture targets
//! and functions to the forms the G16 texture instruction has ([`lower`]).
//!
//! Accepted at import: 2D, 2D-array and 3D, non-shadow `tex` (implicit LOD, fragment
//! shaders; [`lower`] makes a vertex shader's explicit LOD 0), `txl` (explicit LOD), `txb` (bias) and `txf` (texelFetch), 32-bit float or integer results,
//! texture and sampler indices 0..15 (the driver's texture / sampler table entries:
//! `texture_index` / `sampler_index`, as Gallium binds sampler views and samplers by unit).
//! Everything else is `Unsupported` naming the texture op or source.
//!
//! What [`lower`] does, and why:
//! - `textureProj`, `texelFetchOffset`, `textureGrad`: Mesa's nir_lower_tex (projector
//!   divided out; integer offsets added to a fetch's coordinates; gradients turned into an
//!   explicit LOD log2(ρ)). No source establishes the G16 offset field or the gradient
//!   tuple's layout on the model's side, so these are lowered rather than selected.
//! - `textureOffset`, `textureLodOffset`, `textureGradOffset` (and `Proj` forms): the offset
//!   is in texels of the level sampled, so it becomes a coordinate per level from the LOD and
//!   the sampler's mip filter and LOD range in the unit's words (nir/texture_offset.rs).
//!   Without the driver's words, Mesa's lowering adds offset/size of the base level (exact
//!   there only).
//! - cube maps: the direction becomes face coordinates (s, t) and the face index, sampled
//!   through the cube forms (GravityLinux/mesa agx_compile_apple9.c: its CUBE operations pick
//!   the face and U/V, then the cube-dimension sample takes (s, t, face) with the face also in
//!   the word's low 16 bits; its array form is only for seamful cubes, which GLES does not
//!   have). agx16 picks the face with ordinary ALU ops by GL ES 3.0's table 3.21 (x wins
//!   ties, then y, as the CUBE operation). The texture unit filters across face edges
//!   (seamless, as GL ES 3.0 requires): agx16-sim's gfx/texture/cube.rs.
//! - `textureSize` (txs) and the array-layer clamp: no size query of the texture unit is
//!   established, so sizes come from words per texture unit the driver writes into the
//!   stage's uniforms (width, height, depth or layers, levels of the bound view), as
//!   GravityLinux/mesa agx_nir_lower_apple9_texture.c reads its TEXTURE_INFO words.
//! - shadow samplers: the depth is sampled without comparison and compared in the shader
//!   with the sampler's function from the unit's comparison word (`shadow_compare`).

use super::import::Importer;
use crate::error::CompileError;
use crate::ir::{Op, Sfu, Src, Stage, TexDim, TexKind, Type};
use agx16_mesa_sys as m;
use std::ffi::c_void;

fn unsupported<T>(what: impl Into<String>) -> Result<T, CompileError> {
    Err(CompileError::Unsupported(what.into()))
}

/// Words per texture unit in the driver's texture-information block: width, height, depth
/// (3D) or layer count (arrays; 6 for a cube), level count — of the bound view's base level —
/// the depth comparison of the bound sampler ([`compare_word`]), its mip filter and LOD
/// range ([`sampler_words`]), and the level the unit's descriptor starts below the view's
/// base level ([`LOD_BASE_WORD`]).
pub const INFO_WORDS: u32 = 9;

/// Word 8 of a unit: how many levels the descriptor's chain starts below the view's base
/// level. Arrays, cube maps and 3D images whose view starts past level 0 are described from
/// level 0 (agx16-gallium texture.rs `texture_descriptor`: their layer stride is the whole
/// chain's); an explicit LOD is relative to the base level in GL, so it is moved by this.
pub const LOD_BASE_WORD: u32 = 8;

/// Words 5..7 of a unit: the sampler's mip filter (0 none, 1 nearest, 2 linear) and its
/// minimum and maximum LOD as f32 bits, as the sampler descriptor holds them (its quantised
/// range, which the texture unit clamps λ to).
pub fn sampler_words(mip_filter: u32, min_lod: f32, max_lod: f32) -> [u32; 3] {
    [mip_filter, min_lod.to_bits(), max_lod.to_bits()]
}

/// The comparison word of a shadow sampler: Gallium's compare function (`PIPE_FUNC_*`, whose
/// bits 0, 1, 2 are "pass when the reference is less than / equal to / greater than the
/// texel") and whether the reference is clamped to [0, 1] first (fixed-point depth formats,
/// GL ES 3.0 §3.8.16).
pub fn compare_word(func: u32, clamp_reference: bool) -> u32 {
    (func & 7) | (clamp_reference as u32) << 3
}

/// Lowers `s`'s texture instructions to what [`import`] accepts. With `info_word`, `txs`
/// (and the array-layer clamp GL requires) read unit u's size words from GL uniform word
/// `info_word + INFO_WORDS·u` (the caller fills them per draw); without it, sizes are left
/// as `txs`, which import refuses by name. Returns the number of texture units whose words
/// the program reads (0 when none).
///
/// # Safety
/// `s` must be a valid NIR shader.
pub unsafe fn lower(s: *mut m::nir_shader, info_word: Option<u32>) -> u32 {
    unsafe {
        let mut o: m::nir_lower_tex_options = std::mem::zeroed();
        o.lower_txp = !0;
        o.lower_txf_offset = true;
        o.lower_offset_filter = Some(has_offset);
        // With the driver's words, filtered lookups keep their offsets for
        // nir/texture_offset.rs (per level); Mesa's lowering would use the base level's size.
        let own_offsets = info_word.is_some();
        o.callback_data = &own_offsets as *const bool as *mut c_void;
        o.lower_txd = true;
        o.lower_txs_lod = true;
        // Vertex shaders have no derivatives: GLSL's texture() there samples level 0
        // (GLSL ES 3.00 "Texture Lookup Functions": only fragment shaders have an implicit
        // LOD; elsewhere the base level is sampled), made an explicit-LOD `txl` here.
        o.lower_invalid_implicit_lod = true;
        m::nir_lower_tex(s, &o);
        let offset_units = match info_word {
            Some(w) => super::texture_offset::lower(s, w),
            None => 0,
        };
        if info_word.is_some() {
            m::nir_shader_instructions_pass(
                s,
                Some(clamp_array_layer),
                m::nir_metadata_control_flow,
                std::ptr::null_mut(),
            );
        }
        m::nir_shader_instructions_pass(
            s,
            Some(cube_to_face),
            m::nir_metadata_control_flow,
            std::ptr::null_mut(),
        );
        let Some(word) = info_word else { return 0 };
        let mut st = SizeWords {
            word,
            units: offset_units,
        };
        m::nir_shader_instructions_pass(
            s,
            Some(shadow_compare),
            m::nir_metadata_control_flow,
            &mut st as *mut SizeWords as *mut c_void,
        );
        m::nir_shader_instructions_pass(
            s,
            Some(explicit_lod_base),
            m::nir_metadata_control_flow,
            &mut st as *mut SizeWords as *mut c_void,
        );
        m::nir_shader_instructions_pass(
            s,
            Some(size_words),
            m::nir_metadata_control_flow,
            &mut st as *mut SizeWords as *mut c_void,
        );
        st.units
    }
}

unsafe extern "C" fn has_offset(i: *const m::nir_instr, own: *const c_void) -> bool {
    unsafe {
        if (*i).type_ != m::nir_instr_type_tex {
            return false;
        }
        let t = m::nir_instr_as_tex(i as *mut _);
        m::nir_tex_instr_src_index(t, m::nir_tex_src_offset) >= 0
            && !(*(own as *const bool) && super::texture_offset::handles((*t).op))
    }
}

unsafe fn tex_of(i: *mut m::nir_instr) -> Option<*mut m::nir_tex_instr> {
    unsafe { ((*i).type_ == m::nir_instr_type_tex).then(|| m::nir_instr_as_tex(i)) }
}

unsafe fn coord_src(t: *mut m::nir_tex_instr) -> Option<*mut m::nir_src> {
    unsafe {
        let k = m::nir_tex_instr_src_index(t, m::nir_tex_src_coord);
        (k >= 0).then(|| &mut (*(*t).src.add(k as usize)).src as *mut m::nir_src)
    }
}

/// `txs` at level 0 of `t`'s 2D-array texture: (width, height, layers).
unsafe fn array_size(b: *mut m::nir_builder, t: *mut m::nir_tex_instr) -> *mut m::nir_def {
    unsafe {
        let q = m::nir_tex_instr_create((*b).shader, 1);
        (*q).op = m::nir_texop_txs;
        (*q).sampler_dim = m::GLSL_SAMPLER_DIM_2D;
        (*q).is_array = true;
        (*q).texture_index = (*t).texture_index;
        (*q).sampler_index = (*t).sampler_index;
        (*q).dest_type = m::nir_type_int32;
        *(*q).src = m::nir_tex_src_for_ssa(m::nir_tex_src_lod, m::nir_imm_int(b, 0));
        m::nir_def_init(&mut (*q).instr, &mut (*q).def, 3, 32);
        m::nir_builder_instr_insert(b, &mut (*q).instr);
        &mut (*q).def
    }
}

/// GL ES 3.0 §3.8.10: a 2D array's layer is clamp(RNE(r), 0, layers - 1).
unsafe extern "C" fn clamp_array_layer(
    b: *mut m::nir_builder,
    i: *mut m::nir_instr,
    _: *mut c_void,
) -> bool {
    unsafe {
        let Some(t) = tex_of(i) else { return false };
        if !(*t).is_array
            || (*t).sampler_dim != m::GLSL_SAMPLER_DIM_2D
            || !matches!(
                (*t).op,
                m::nir_texop_tex | m::nir_texop_txb | m::nir_texop_txl
            )
        {
            return false;
        }
        let Some(src) = coord_src(t) else {
            return false;
        };
        let coord = (*src).ssa;
        if (*coord).num_components != 3 {
            return false;
        }
        (*b).cursor = m::nir_before_instr(&mut (*t).instr);
        let size = array_size(b, t);
        let last = m::nir_i2f32(
            b,
            m::nir_iadd_imm(b, m::nir_channel(b, size, 2), -1i64 as u64),
        );
        let layer = m::nir_fround_even(b, m::nir_channel(b, coord, 2));
        let layer = m::nir_fmin(b, m::nir_fmax(b, layer, m::nir_imm_float(b, 0.0)), last);
        let mut c = [
            m::nir_channel(b, coord, 0),
            m::nir_channel(b, coord, 1),
            layer,
        ];
        let v = m::nir_vec(b, c.as_mut_ptr(), 3);
        m::nir_src_rewrite(src, v);
        true
    }
}

/// `backend_flags` bit of a cube texture instruction whose coordinates are already (s, t, face)
/// ([`cube_to_face`]); [`import`] selects the cube forms for it.
pub const CUBE_FACE_COORDS: u32 = 1;

/// A cube sample's direction → (s, t, face) by GL ES 3.0 table 3.21 (major axis: x wins
/// ties, then y — the M4's CUBE operation's order, README.apple9-ir.md "Native cube
/// coordinates"); s = (sc/|ma| + 1)/2, t = (tc/|ma| + 1)/2; the face index as a float.
unsafe extern "C" fn cube_to_face(
    b: *mut m::nir_builder,
    i: *mut m::nir_instr,
    _: *mut c_void,
) -> bool {
    unsafe {
        let Some(t) = tex_of(i) else { return false };
        if (*t).sampler_dim != m::GLSL_SAMPLER_DIM_CUBE
            || (*t).is_array
            || (*t).backend_flags & CUBE_FACE_COORDS != 0
            || !matches!(
                (*t).op,
                m::nir_texop_tex | m::nir_texop_txb | m::nir_texop_txl
            )
        {
            return false;
        }
        let Some(src) = coord_src(t) else {
            return false;
        };
        let dir = (*src).ssa;
        (*b).cursor = m::nir_before_instr(&mut (*t).instr);
        let (x, y, z) = (
            m::nir_channel(b, dir, 0),
            m::nir_channel(b, dir, 1),
            m::nir_channel(b, dir, 2),
        );
        let (ax, ay, az) = (m::nir_fabs(b, x), m::nir_fabs(b, y), m::nir_fabs(b, z));
        let is_x = m::nir_iand(b, m::nir_fge(b, ax, ay), m::nir_fge(b, ax, az));
        let is_y = m::nir_iand(b, m::nir_inot(b, is_x), m::nir_fge(b, ay, az));
        let zero = m::nir_imm_float(b, 0.0);
        let (nx, ny, nz) = (
            m::nir_flt(b, x, zero),
            m::nir_flt(b, y, zero),
            m::nir_flt(b, z, zero),
        );
        let f = |v: f32| m::nir_imm_float(b, v);
        let pick =
            |c: *mut m::nir_def, a: *mut m::nir_def, d: *mut m::nir_def| m::nir_bcsel(b, c, a, d);
        // Faces +X 0, -X 1, +Y 2, -Y 3, +Z 4, -Z 5.
        let face_x = pick(nx, f(1.0), f(0.0));
        let face_y = pick(ny, f(3.0), f(2.0));
        let face_z = pick(nz, f(5.0), f(4.0));
        let face = pick(is_x, face_x, pick(is_y, face_y, face_z));
        let (neg_x, neg_y, neg_z) = (m::nir_fneg(b, x), m::nir_fneg(b, y), m::nir_fneg(b, z));
        let sc_x = pick(nx, z, neg_z);
        let sc_z = pick(nz, neg_x, x);
        let sc = pick(is_x, sc_x, pick(is_y, x, sc_z));
        let tc_y = pick(ny, neg_z, z);
        let tc = pick(is_x, neg_y, pick(is_y, tc_y, neg_y));
        let ma = pick(is_x, ax, pick(is_y, ay, az));
        let half_inv = m::nir_fmul(b, m::nir_frcp(b, ma), f(0.5));
        let s = m::nir_ffma(b, sc, half_inv, f(0.5));
        let tt = m::nir_ffma(b, tc, half_inv, f(0.5));
        let mut c = [s, tt, face];
        let v = m::nir_vec(b, c.as_mut_ptr(), 3);
        m::nir_src_rewrite(src, v);
        (*t).backend_flags |= CUBE_FACE_COORDS;
        true
    }
}

struct SizeWords {
    word: u32,
    units: u32,
}

impl SizeWords {
    /// A load of word `k` of texture unit `unit`'s information words at the cursor of `b`
    /// (counting the unit as read).
    unsafe fn load(&mut self, b: *mut m::nir_builder, unit: u32, k: u32) -> *mut m::nir_def {
        self.units = self.units.max(unit + 1);
        unsafe { load_uniform_words(b, self.word + INFO_WORDS * unit + k, 1, m::nir_type_int32) }
    }
}

/// A `load_uniform` of `n` 32-bit words of type `ty` at GL uniform word `word`, at the cursor of
/// `b` (the driver's per-draw words: texture sizes here, blend colours and capture counts in
/// agx16-gallium).
///
/// # Safety
/// `b` must be a valid builder with a cursor.
pub unsafe fn load_uniform_words(
    b: *mut m::nir_builder,
    word: u32,
    n: u32,
    ty: m::nir_alu_type,
) -> *mut m::nir_def {
    unsafe {
        let load = m::nir_intrinsic_instr_create((*b).shader, m::nir_intrinsic_load_uniform);
        (*load).num_components = n as u8;
        m::nir_def_init(&mut (*load).instr, &mut (*load).def, n, 32);
        *(*load).src.as_mut_ptr() = m::nir_src_for_ssa(m::nir_imm_int(b, 0));
        m::nir_intrinsic_set_base(load, word as i32);
        m::nir_intrinsic_set_range(load, n);
        m::nir_intrinsic_set_dest_type(load, ty);
        m::nir_builder_instr_insert(b, &mut (*load).instr);
        &mut (*load).def
    }
}

/// A shadow lookup → the depth lookup without comparison, compared in the shader with the
/// sampler's function from the unit's comparison word ([`compare_word`]): no source
/// transcribes the G16 sampler's compare-function codes (GravityLinux/mesa's sampler packer
/// writes the same compare bits for every sampler, and its offset path compares in the
/// shader too, agx_nir_lower_apple9_texture.c). With LINEAR filtering the filtered depth is
/// compared (a 0/1 result; GL ES 3.0 §3.8.16 leaves filtered comparisons
/// implementation-dependent); NEAREST is exact.
unsafe extern "C" fn shadow_compare(
    b: *mut m::nir_builder,
    i: *mut m::nir_instr,
    data: *mut c_void,
) -> bool {
    unsafe {
        let Some(t) = tex_of(i) else { return false };
        if !(*t).is_shadow
            || !matches!(
                (*t).op,
                m::nir_texop_tex | m::nir_texop_txb | m::nir_texop_txl
            )
        {
            return false;
        }
        (*b).cursor = m::nir_before_instr(&mut (*t).instr);
        let reference = m::nir_steal_tex_src(t, m::nir_tex_src_comparator);
        if reference.is_null() {
            return false;
        }
        let n = (*t).num_srcs;
        let q = m::nir_tex_instr_create((*b).shader, n);
        (*q).op = (*t).op;
        (*q).sampler_dim = (*t).sampler_dim;
        (*q).is_array = (*t).is_array;
        (*q).coord_components = (*t).coord_components;
        (*q).backend_flags = (*t).backend_flags;
        (*q).texture_index = (*t).texture_index;
        (*q).sampler_index = (*t).sampler_index;
        (*q).dest_type = m::nir_type_float32;
        for k in 0..n as usize {
            let from = &*(*t).src.add(k);
            *(*q).src.add(k) = m::nir_tex_src_for_ssa(from.src_type, from.src.ssa);
        }
        m::nir_def_init(&mut (*q).instr, &mut (*q).def, 4, 32);
        m::nir_builder_instr_insert(b, &mut (*q).instr);
        let depth = m::nir_channel(b, &mut (*q).def, 0);
        let st = &mut *(data as *mut SizeWords);
        let word = st.load(b, (*t).texture_index, 4);
        let bit = |k: u64| m::nir_ine_imm(b, m::nir_iand_imm(b, word, k), 0);
        let r = m::nir_bcsel(b, bit(8), m::nir_fsat(b, reference), reference);
        let less = m::nir_iand(b, bit(1), m::nir_flt(b, r, depth));
        let equal = m::nir_iand(b, bit(2), m::nir_feq(b, r, depth));
        let greater = m::nir_iand(b, bit(4), m::nir_flt(b, depth, r));
        let pass = m::nir_ior(b, less, m::nir_ior(b, equal, greater));
        let v = m::nir_b2f32(b, pass);
        let result = if (*t).def.num_components == 1 {
            v
        } else {
            let mut c = [v, v, v, m::nir_imm_float(b, 1.0)];
            m::nir_vec(b, c.as_mut_ptr(), 4)
        };
        m::nir_def_replace(&mut (*t).def, result);
        true
    }
}

/// Explicit-LOD lookups (`txl`, `txf`) of arrays, cube maps and 3D images: the LOD moved by
/// the unit's [`LOD_BASE_WORD`] (0 unless the bound view starts past level 0).
unsafe extern "C" fn explicit_lod_base(
    b: *mut m::nir_builder,
    i: *mut m::nir_instr,
    data: *mut c_void,
) -> bool {
    unsafe {
        let Some(t) = tex_of(i) else { return false };
        let described_from_0 = (*t).is_array
            || matches!(
                (*t).sampler_dim,
                m::GLSL_SAMPLER_DIM_CUBE | m::GLSL_SAMPLER_DIM_3D
            );
        if !described_from_0 || !matches!((*t).op, m::nir_texop_txl | m::nir_texop_txf) {
            return false;
        }
        let k = m::nir_tex_instr_src_index(t, m::nir_tex_src_lod);
        if k < 0 {
            return false;
        }
        let st = &mut *(data as *mut SizeWords);
        (*b).cursor = m::nir_before_instr(&mut (*t).instr);
        let base = st.load(b, (*t).texture_index, LOD_BASE_WORD);
        let src = &mut (*(*t).src.add(k as usize)).src;
        let lod = if (*t).op == m::nir_texop_txf {
            m::nir_iadd(b, src.ssa, base)
        } else {
            m::nir_fadd(b, src.ssa, m::nir_i2f32(b, base))
        };
        m::nir_src_rewrite(src, lod);
        true
    }
}

/// `txs` (level 0 after nir_lower_tex's `lower_txs_lod`) and `query_levels` → the unit's
/// size words.
unsafe extern "C" fn size_words(
    b: *mut m::nir_builder,
    i: *mut m::nir_instr,
    data: *mut c_void,
) -> bool {
    unsafe {
        let Some(t) = tex_of(i) else { return false };
        let (first, n) = match (*t).op {
            m::nir_texop_txs => (0, (*t).def.num_components as u32),
            m::nir_texop_query_levels => (3, 1),
            _ => return false,
        };
        let st = &mut *(data as *mut SizeWords);
        (*b).cursor = m::nir_before_instr(&mut (*t).instr);
        // One load per word, so a word no component reads is dead (the words a program
        // reads are placed densely: nir::uniforms::lower_textures).
        let unit = (*t).texture_index;
        let mut words: Vec<*mut m::nir_def> = (0..n).map(|k| st.load(b, unit, first + k)).collect();
        let load = m::nir_vec(b, words.as_mut_ptr(), n);
        m::nir_def_replace(&mut (*t).def, load);
        true
    }
}

pub(super) unsafe fn import(
    im: &mut Importer,
    t: *const m::nir_tex_instr,
) -> Result<(), CompileError> {
    unsafe {
        let dim = match ((*t).sampler_dim, (*t).is_array) {
            (m::GLSL_SAMPLER_DIM_2D, false) => TexDim::D2,
            (m::GLSL_SAMPLER_DIM_2D, true) => TexDim::D2Array,
            (m::GLSL_SAMPLER_DIM_3D, false) => TexDim::D3,
            (m::GLSL_SAMPLER_DIM_CUBE, false) if (*t).backend_flags & CUBE_FACE_COORDS != 0 => {
                TexDim::Cube
            }
            (d, a) => {
                return unsupported(format!(
                    "texture dimension {d} (array {a}): 2D, 2D arrays, cube maps (face \
                     coordinates from nir::texture::lower) and 3D are selectable"
                ))
            }
        };
        let kind = match (*t).op {
            m::nir_texop_tex if dim == TexDim::D2 => TexKind::Sample,
            // The array, cube and 3D forms carry the LOD word: an implicit-LOD sample is the
            // bias form with bias 0 (the packer has no two-word form for them).
            m::nir_texop_tex => TexKind::Bias,
            m::nir_texop_txl => TexKind::Lod,
            m::nir_texop_txb => TexKind::Bias,
            m::nir_texop_txf => TexKind::Fetch,
            m::nir_texop_txs | m::nir_texop_query_levels => {
                return unsupported(
                    "texture size queries: no hardware query is established; the driver's \
                     size words (nir::texture::lower with a word) replace them",
                )
            }
            op => return unsupported(format!("NIR texture op {op} (only tex, txb, txl, txf)")),
        };
        if (*t).is_shadow {
            return unsupported(
                "shadow samplers (the compare-function code table is not transcribed)",
            );
        }
        // The sample instruction has no result type (the T8132 packer writes one type byte for
        // every sample): the descriptor's numeric type decides whether the 32-bit results are
        // floats or raw integers (sim/src/gfx/texel.rs), so isampler/usampler results are the
        // same words.
        let result_types = [m::nir_type_float32, m::nir_type_int32, m::nir_type_uint32];
        if !result_types.contains(&(*t).dest_type) || (*t).def.num_components != 4 {
            return unsupported("texture results other than vec4 of 32-bit float or integer");
        }
        match (im.b.func().stage, kind) {
            (Stage::Fragment, _) | (Stage::Vertex, TexKind::Lod | TexKind::Fetch) => {}
            (Stage::Vertex, _) => {
                return unsupported(
                    "implicit-LOD texture ops in a vertex shader (no derivatives;                      nir::texture::lower makes them explicit LOD 0)",
                )
            }
            _ => return unsupported("texture ops outside vertex and fragment shaders"),
        }
        let (texture, sampler) = ((*t).texture_index, (*t).sampler_index);
        if texture >= 16 || (kind != TexKind::Fetch && sampler >= 16) {
            return unsupported(format!(
                "texture {texture} / sampler {sampler}: the instruction names entries 0..15"
            ));
        }
        let srcs = std::slice::from_raw_parts((*t).src, (*t).num_srcs as usize);
        let mut coord = None;
        let mut lod = None;
        for s in srcs {
            match s.src_type {
                m::nir_tex_src_coord => coord = Some(s.src.ssa),
                m::nir_tex_src_lod | m::nir_tex_src_bias => lod = Some(s.src.ssa),
                other => return unsupported(format!("texture source type {other}")),
            }
        }
        let Some(coord) = coord else {
            return unsupported("texture op without coordinates");
        };
        let (u, v) = (im.comp(coord, 0)?, im.comp(coord, 1)?);
        let mut args = vec![u, v];
        // Arrays: the layer as an integer (the driver-word lowering already clamped and
        // rounded it; without it, RNE of max(r, 0) and the model refuses layers past the
        // image), published at +2 and ORed into the word's low 16 bits.
        let mut layer = None;
        match dim {
            TexDim::D2 => {}
            TexDim::D3 => args.push(im.comp(coord, 2)?),
            TexDim::D2Array if kind == TexKind::Fetch => {
                let l = im.comp(coord, 2)?;
                layer = Some(l);
                args.push(l);
            }
            TexDim::Cube if kind == TexKind::Fetch => {
                return unsupported("texelFetch of a cube map (no cube fetch form)")
            }
            // The face (0..5, exact in the float), published at +2 and ORed into the word
            // (the packer's `layer_or_face`).
            TexDim::Cube => {
                let r = im.comp(coord, 2)?;
                let l = Src::val(im.b.alu(Op::F2I { signed: false }, Type::I32, [r]));
                layer = Some(l);
                args.push(l);
            }
            TexDim::D2Array => {
                let r = im.comp(coord, 2)?;
                let r = im.b.alu(Op::FMax, Type::F32, [r, Src::imm_f32(0.0)]);
                let r = im.b.alu(Op::Sfu(Sfu::Rint), Type::F32, [Src::val(r)]);
                let l = Src::val(im.b.alu(Op::F2I { signed: false }, Type::I32, [Src::val(r)]));
                layer = Some(l);
                args.push(l);
            }
        }
        let word = match (kind, lod) {
            (TexKind::Sample, None) => None,
            (TexKind::Lod | TexKind::Bias, Some(l)) => {
                // Signed Q6 levels in bits 16..27 (GravityLinux/mesa apple9_pack_texture_lod:
                // clamp to [-32, 2047/64], ·64, floor, to integer, 12 bits, << 16).
                let l = im.comp(l, 0)?;
                let c = im.b.alu(Op::FMax, Type::F32, [l, Src::imm_f32(-32.0)]);
                let c = im.b.alu(
                    Op::FMin,
                    Type::F32,
                    [Src::val(c), Src::imm_f32(2047.0 / 64.0)],
                );
                let c = im.b.fmul(c, Src::imm_f32(64.0));
                let c = im.b.alu(Op::Sfu(Sfu::Floor), Type::F32, [Src::val(c)]);
                let c = im.b.alu(Op::F2I { signed: true }, Type::I32, [Src::val(c)]);
                let c = im.b.alu(Op::And, Type::I32, [Src::val(c), Src::imm(0xfff)]);
                let c = im.b.alu(Op::Shl, Type::I32, [Src::val(c), Src::imm(16)]);
                Some(Src::val(c))
            }
            // Implicit LOD on an array, cube or 3D: bias 0.
            (TexKind::Bias, None) if (*t).op == m::nir_texop_tex => Some(Src::imm(0)),
            (TexKind::Fetch, Some(l)) => {
                // An integer level in the same field: level << 22 (README.apple9-ir.md).
                let l = im.comp(l, 0)?;
                Some(Src::val(im.b.alu(Op::Shl, Type::I32, [l, Src::imm(22)])))
            }
            (TexKind::Fetch, None) => Some(Src::imm(0)),
            (k, l) => {
                return unsupported(format!("{k:?} texture op with LOD source {}", l.is_some()))
            }
        };
        if let Some(w) = word {
            let w = match layer {
                Some(l) => Src::val(im.b.alu(Op::Or, Type::I32, [w, l])),
                None => w,
            };
            args.push(w);
        }
        let r =
            im.b.texture(texture as u8, sampler.min(15) as u8, kind, dim, args);
        im.define(&(*t).def, r);
        Ok(())
    }
}

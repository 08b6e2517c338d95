//! Texel offsets of filtered lookups (`textureOffset`, `textureLodOffset`, `textureGradOffset`
//! and their `Proj` forms) applied in texels of the mip level the sampler reads.
//!
//! GL ES 3.0 §3.8.10 adds the offset to the integer texel coordinates of the level being
//! sampled, before wrapping and filtering: in normalised coordinates that is offset/size(d)
//! for level d, so one coordinate fits one level only. No G16 offset operand is established
//! (agx16-isa `table/texture.rs` lists no offset field; GravityLinux/mesa, the CTS-passing
//! M4 driver, filters offset lookups by hand from texel fetches,
//! agx_nir_lower_apple9_texture.c), so offsets become coordinates here, per level:
//!
//! - λ: the explicit LOD (`txl`; `txd` arrives as `txl` of log2 ρ from nir_lower_tex), or for
//!   an implicit LOD (fragment `tex`/`txb`) λ = log2 max(|∂P/∂x|, |∂P/∂y|) in texels of the
//!   base level plus the bias, from the coordinate's derivatives (GL §3.8.11 with the
//!   Euclidean ρ; the sample then runs with that λ as an explicit LOD, so level and offset
//!   agree). It is quantised as the instruction's LOD word quantises it (signed Q6, floor:
//!   nir/texture.rs `import`) and clamped to the sampler's LOD range as its descriptor holds
//!   it (the unit's words, [`super::texture::sampler_words`]), which is the λ the texture
//!   unit works with.
//! - magnification (λ ≤ 0) or no mipmapping: the base level; the sample keeps λ.
//! - NEAREST mipmaps: level d = ⌈λ + ½⌉ − 1 (GL's rule) within the view's levels; the sample
//!   gets the integer LOD d (for d = 0, a LOD in (0, ¼] that keeps minification), so the unit
//!   reads the level whose size the offset used whatever way it rounds halves.
//! - LINEAR mipmaps (minification, float results): d₁ = min(⌊λ⌋, last), d₂ = d₁ + 1,
//!   f = λ − ⌊λ⌋; sample(d₁, c₁) and, where f > 0 and d₁ is not the last level,
//!   sample(d₂, c₂), blended (1−f)·T₁ + f·T₂ in the shader (integer LODs: the unit reads one
//!   level each). Known gaps: for λ in (0, 1) the base level is read with LOD 0, i.e. with
//!   the magnification filter (exact when the min and mag filters agree); a fractional
//!   GL_TEXTURE_MIN_LOD above d₁ or GL_TEXTURE_MAX_LOD below d₂ makes the unit clamp that
//!   integer LOD and blend two levels again.
//!   Two static samples per lookup (the model's compiler takes 8 per shader).
//!
//! Shadow lookups keep their comparator on each sample (nir/texture.rs `shadow_compare`
//! compares each), so a LINEAR-mipmapped shadow result blends comparisons.

use super::texture::{load_uniform_words, INFO_WORDS};
use agx16_mesa_sys as m;
use std::ffi::c_void;

/// Which sampling ops this pass takes (before nir_lower_tex: `txd` becomes `txl` there, and a
/// vertex shader's `tex` becomes `txl`).
pub(super) fn handles(op: m::nir_texop) -> bool {
    matches!(
        op,
        m::nir_texop_tex | m::nir_texop_txb | m::nir_texop_txl | m::nir_texop_txd
    )
}

/// Source types a lowered lookup may carry (anything else keeps the instruction, which the
/// import then refuses by name).
const KNOWN_SRCS: [m::nir_tex_src_type; 5] = [
    m::nir_tex_src_coord,
    m::nir_tex_src_offset,
    m::nir_tex_src_lod,
    m::nir_tex_src_bias,
    m::nir_tex_src_comparator,
];

/// Lowers every filtered lookup with an offset in `s`, reading unit u's words at GL uniform
/// word `word + INFO_WORDS·u`; returns one past the highest unit read (0 when none).
///
/// # Safety
/// `s` must be a valid NIR shader, after nir_lower_tex (projection and gradients lowered).
pub(super) unsafe fn lower(s: *mut m::nir_shader, word: u32) -> u32 {
    unsafe {
        let mut found: Vec<*mut m::nir_tex_instr> = Vec::new();
        m::nir_shader_instructions_pass(
            s,
            Some(collect),
            m::nir_metadata_all,
            &mut found as *mut Vec<*mut m::nir_tex_instr> as *mut c_void,
        );
        let imp = m::nir_shader_get_entrypoint(s);
        let mut units = 0;
        for t in found {
            let mut b = m::nir_builder_create(imp);
            units = units.max((*t).texture_index + 1);
            lower_one(&mut b, t, word);
        }
        if units > 0 {
            m::nir_metadata_preserve(imp, m::nir_metadata_none);
        }
        units
    }
}

/// Gathers the lookups to lower (they are rewritten afterwards: the rewrite adds control flow).
unsafe extern "C" fn collect(
    _: *mut m::nir_builder,
    i: *mut m::nir_instr,
    data: *mut c_void,
) -> bool {
    unsafe {
        if (*i).type_ == m::nir_instr_type_tex && wanted(m::nir_instr_as_tex(i)) {
            (*(data as *mut Vec<*mut m::nir_tex_instr>)).push(m::nir_instr_as_tex(i));
        }
        false
    }
}

unsafe fn wanted(t: *mut m::nir_tex_instr) -> bool {
    unsafe {
        let dims_ok = matches!(
            ((*t).sampler_dim, (*t).is_array),
            (m::GLSL_SAMPLER_DIM_2D, _) | (m::GLSL_SAMPLER_DIM_3D, false)
        );
        let srcs = std::slice::from_raw_parts((*t).src, (*t).num_srcs as usize);
        dims_ok
            && matches!(
                (*t).op,
                m::nir_texop_tex | m::nir_texop_txb | m::nir_texop_txl
            )
            && srcs.iter().any(|s| s.src_type == m::nir_tex_src_offset)
            && srcs.iter().all(|s| KNOWN_SRCS.contains(&s.src_type))
    }
}

unsafe fn src_of(t: *mut m::nir_tex_instr, ty: m::nir_tex_src_type) -> Option<*mut m::nir_def> {
    unsafe {
        let k = m::nir_tex_instr_src_index(t, ty);
        (k >= 0).then(|| (*(*t).src.add(k as usize)).src.ssa)
    }
}

/// A derivative intrinsic (`nir_intrinsic_ddx` / `ddy`) of `v`.
unsafe fn derivative(
    b: *mut m::nir_builder,
    op: m::nir_intrinsic_op,
    v: *mut m::nir_def,
) -> *mut m::nir_def {
    unsafe {
        let d = m::nir_intrinsic_instr_create((*b).shader, op);
        (*d).num_components = (*v).num_components;
        m::nir_def_init(
            &mut (*d).instr,
            &mut (*d).def,
            (*v).num_components as u32,
            32,
        );
        *(*d).src.as_mut_ptr() = m::nir_src_for_ssa(v);
        m::nir_builder_instr_insert(b, &mut (*d).instr);
        &mut (*d).def
    }
}

/// `txl` of `t`'s texture at `coord` with LOD `lod` (and `t`'s comparator).
unsafe fn sample(
    b: *mut m::nir_builder,
    t: *mut m::nir_tex_instr,
    coord: *mut m::nir_def,
    lod: *mut m::nir_def,
) -> *mut m::nir_def {
    unsafe {
        let cmp = src_of(t, m::nir_tex_src_comparator);
        let q = m::nir_tex_instr_create((*b).shader, 2 + cmp.is_some() as u32);
        (*q).op = m::nir_texop_txl;
        (*q).sampler_dim = (*t).sampler_dim;
        (*q).is_array = (*t).is_array;
        (*q).is_shadow = (*t).is_shadow;
        (*q).is_new_style_shadow = (*t).is_new_style_shadow;
        (*q).coord_components = (*t).coord_components;
        (*q).texture_index = (*t).texture_index;
        (*q).sampler_index = (*t).sampler_index;
        (*q).dest_type = (*t).dest_type;
        *(*q).src = m::nir_tex_src_for_ssa(m::nir_tex_src_coord, coord);
        *(*q).src.add(1) = m::nir_tex_src_for_ssa(m::nir_tex_src_lod, lod);
        if let Some(c) = cmp {
            *(*q).src.add(2) = m::nir_tex_src_for_ssa(m::nir_tex_src_comparator, c);
        }
        m::nir_def_init(
            &mut (*q).instr,
            &mut (*q).def,
            (*t).def.num_components as u32,
            (*t).def.bit_size as u32,
        );
        m::nir_builder_instr_insert(b, &mut (*q).instr);
        &mut (*q).def
    }
}

unsafe fn lower_one(b: *mut m::nir_builder, t: *mut m::nir_tex_instr, word: u32) {
    unsafe {
        let (Some(coord), Some(offset)) = (
            src_of(t, m::nir_tex_src_coord),
            src_of(t, m::nir_tex_src_offset),
        ) else {
            return;
        };
        (*b).cursor = m::nir_before_instr(&mut (*t).instr);
        let dims = if (*t).sampler_dim == m::GLSL_SAMPLER_DIM_3D {
            3
        } else {
            2
        };
        let base = word + INFO_WORDS * (*t).texture_index;
        let f = |v: f32| m::nir_imm_float(b, v);
        let size0: Vec<_> = (0..dims)
            .map(|c| load_uniform_words(b, base + c, 1, m::nir_type_int32))
            .collect();
        let levels = load_uniform_words(b, base + 3, 1, m::nir_type_int32);
        let mip = load_uniform_words(b, base + 5, 1, m::nir_type_int32);
        let min_lod = load_uniform_words(b, base + 6, 1, m::nir_type_float32);
        let max_lod = load_uniform_words(b, base + 7, 1, m::nir_type_float32);

        // λ before the unit's clamp.
        let lambda = match src_of(t, m::nir_tex_src_lod) {
            Some(l) if (*t).op == m::nir_texop_txl => l,
            _ => {
                let p = m::nir_trim_vector(b, coord, dims);
                let (dx, dy) = (
                    derivative(b, m::nir_intrinsic_ddx, p),
                    derivative(b, m::nir_intrinsic_ddy, p),
                );
                let (mut xx, mut yy) = (f(0.0), f(0.0));
                for (c, s) in size0.iter().enumerate() {
                    let s = m::nir_i2f32(b, *s);
                    let x = m::nir_fmul(b, m::nir_channel(b, dx, c as u32), s);
                    let y = m::nir_fmul(b, m::nir_channel(b, dy, c as u32), s);
                    xx = m::nir_ffma(b, x, x, xx);
                    yy = m::nir_ffma(b, y, y, yy);
                }
                // log2 √max(|∂P/∂x|², |∂P/∂y|²).
                let l = m::nir_fmul(b, m::nir_flog2(b, m::nir_fmax(b, xx, yy)), f(0.5));
                match src_of(t, m::nir_tex_src_bias) {
                    Some(bias) => m::nir_fadd(b, l, bias),
                    None => l,
                }
            }
        };
        // The LOD word's quantisation (signed Q6, floor after clamping to [-32, 2047/64]),
        // then the sampler's range: the λ the unit uses.
        let q = m::nir_fmin(b, m::nir_fmax(b, lambda, f(-32.0)), f(2047.0 / 64.0));
        let q = m::nir_fmul(
            b,
            m::nir_ffloor(b, m::nir_fmul(b, q, f(64.0))),
            f(1.0 / 64.0),
        );
        let lam = m::nir_fmin(b, m::nir_fmax(b, q, min_lod), max_lod);

        let top = m::nir_i2f32(b, m::nir_iadd_imm(b, levels, -1i64 as u64));
        let minify = m::nir_flt(b, f(0.0), lam);
        let integer = (*t).dest_type != m::nir_type_float32;
        // Integer textures cannot be LINEAR-mipmapped (GL: incomplete): nearest there.
        let nearest = if integer {
            m::nir_ine_imm(b, mip, 0)
        } else {
            m::nir_ieq_imm(b, mip, 1)
        };
        let linear = if integer {
            m::nir_imm_false(b)
        } else {
            m::nir_ieq_imm(b, mip, 2)
        };
        let near_min = m::nir_iand(b, minify, nearest);
        let lin_min = m::nir_iand(b, minify, linear);
        // NEAREST: ⌈λ + ½⌉ − 1 = −⌊−λ − ½⌋ − 1, within [0, top].
        let dn = m::nir_fsub(
            b,
            m::nir_fneg(
                b,
                m::nir_ffloor(b, m::nir_fsub(b, m::nir_fneg(b, lam), f(0.5))),
            ),
            f(1.0),
        );
        let dn = m::nir_fmin(b, m::nir_fmax(b, dn, f(0.0)), top);
        let fl = m::nir_ffloor(b, lam);
        let d1 = m::nir_fmin(b, fl, top);
        let level = m::nir_bcsel(b, near_min, dn, m::nir_bcsel(b, lin_min, d1, f(0.0)));
        let near_lod = m::nir_bcsel(
            b,
            m::nir_fge(b, dn, f(1.0)),
            dn,
            m::nir_fmin(b, lam, f(0.25)),
        );
        let lod = m::nir_bcsel(b, near_min, near_lod, m::nir_bcsel(b, lin_min, d1, lam));

        let at = |b: *mut m::nir_builder, level: *mut m::nir_def| {
            let l = m::nir_f2u32(b, level);
            let mut c: Vec<_> = (0..(*coord).num_components as u32)
                .map(|k| m::nir_channel(b, coord, k))
                .collect();
            for (k, s) in size0.iter().enumerate() {
                let size = m::nir_imax(b, m::nir_ushr(b, *s, l), m::nir_imm_int(b, 1));
                let o = m::nir_i2f32(b, m::nir_channel(b, offset, k as u32));
                c[k] = m::nir_fadd(
                    b,
                    c[k],
                    m::nir_fmul(b, o, m::nir_frcp(b, m::nir_i2f32(b, size))),
                );
            }
            m::nir_vec(b, c.as_mut_ptr(), c.len() as u32)
        };
        let c1 = at(b, level);
        let p = sample(b, t, c1, lod);
        let result = if integer {
            p
        } else {
            // LINEAR: the second level's share, where it has one.
            let frac = m::nir_fsub(b, lam, fl);
            let blend = m::nir_iand(
                b,
                lin_min,
                m::nir_iand(b, m::nir_flt(b, d1, top), m::nir_flt(b, f(0.0), frac)),
            );
            let nif = m::nir_push_if(b, blend);
            let d2 = m::nir_fadd(b, d1, f(1.0));
            let second = sample(b, t, at(b, d2), d2);
            let mixed = m::nir_ffma(b, m::nir_fsub(b, second, p), frac, p);
            m::nir_pop_if(b, nif);
            m::nir_if_phi(b, mixed, p)
        };
        m::nir_def_replace(&mut (*t).def, result);
    }
}

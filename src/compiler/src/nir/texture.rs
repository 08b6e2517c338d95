//! NIR texture instructions → `Op::Texture` (selection: isel/texture.rs; what the model runs:
//! sim/GFX.md "Textures").
//!
//! Accepted: 2D, non-array, non-shadow `tex` (implicit LOD, fragment shaders), `txl`
//! (explicit LOD), `txb` (bias) and `txf` (texelFetch), 32-bit float or integer results,
//! texture and sampler indices 0..15 (the driver's texture / sampler table entries:
//! `texture_index` / `sampler_index`, as Gallium binds sampler views and samplers by unit). Everything else is `Unsupported` naming
//! the texture op or source.

use super::import::Importer;
use crate::error::CompileError;
use crate::ir::{Op, Sfu, Src, Stage, TexKind, Type};
use agx16_mesa_sys as m;

fn unsupported<T>(what: impl Into<String>) -> Result<T, CompileError> {
    Err(CompileError::Unsupported(what.into()))
}

pub(super) unsafe fn import(
    im: &mut Importer,
    t: *const m::nir_tex_instr,
) -> Result<(), CompileError> {
    unsafe {
        let kind = match (*t).op {
            m::nir_texop_tex => TexKind::Sample,
            m::nir_texop_txl => TexKind::Lod,
            m::nir_texop_txb => TexKind::Bias,
            m::nir_texop_txf => TexKind::Fetch,
            op => return unsupported(format!("NIR texture op {op} (only tex, txb, txl, txf)")),
        };
        if (*t).sampler_dim != m::GLSL_SAMPLER_DIM_2D || (*t).is_array || (*t).is_shadow {
            return unsupported(format!(
                "texture dimension {} (array {}, shadow {}): only 2D is selectable",
                (*t).sampler_dim,
                (*t).is_array,
                (*t).is_shadow
            ));
        }
        // The sample instruction has no result type (the T8132 packer writes one type byte for
        // every sample): the descriptor's numeric type decides whether the 32-bit results are
        // floats or raw integers (sim/src/gfx/texel.rs), so isampler/usampler results are the
        // same words.
        let result_types = [m::nir_type_float32, m::nir_type_int32, m::nir_type_uint32];
        if !result_types.contains(&(*t).dest_type) || (*t).def.num_components != 4 {
            return unsupported("texture results other than vec4 of 32-bit float or integer");
        }
        if im.b.func().stage != Stage::Fragment {
            return unsupported("texture ops outside fragment shaders");
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
        match (kind, lod) {
            (TexKind::Sample, None) => {}
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
                args.push(Src::val(c));
            }
            (TexKind::Fetch, Some(l)) => {
                // An integer level in the same field: level << 22 (README.apple9-ir.md).
                let l = im.comp(l, 0)?;
                let w = im.b.alu(Op::Shl, Type::I32, [l, Src::imm(22)]);
                args.push(Src::val(w));
            }
            (TexKind::Fetch, None) => args.push(Src::imm(0)),
            (k, l) => {
                return unsupported(format!("{k:?} texture op with LOD source {}", l.is_some()))
            }
        }
        let r =
            im.b.texture(texture as u8, sampler.min(15) as u8, kind, args);
        im.define(&(*t).def, r);
        Ok(())
    }
}

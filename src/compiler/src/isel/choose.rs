//! Which table form implements a MIR instruction (shared by encoding and register reach).

use crate::ir::{Op, Sfu, Type};
use crate::mir::MOperand;

/// The form name for `op` on `ty`, given whether source 0 is an immediate, whether source 1 is
/// an immediate and whether source 0 is a uniform register. `None`: no validated form.
pub fn form_name(
    op: Op,
    ty: Type,
    src0_imm: bool,
    src1_imm: bool,
    src0_uniform: bool,
) -> Option<&'static str> {
    Some(match (op, ty) {
        (Op::SysVal(_), _) => "get_sr",
        // Only as the condition of an `if` (fused into the exec-mask push); reach r0–r63.
        (Op::ICmp { .. } | Op::FCmp(_), _) => "pcmp",
        // Special functions: one template per function (`form:variant`).
        (Op::Sfu(Sfu::Floor), Type::F32) => "sfu:floor",
        (Op::Sfu(Sfu::Log2), Type::F32) => "sfu:log2",
        (Op::Sfu(Sfu::Exp2), Type::F32) => "sfu:exp2",
        (Op::Sfu(Sfu::Rsqrt), Type::F32) => "sfu:rsqrt",
        (Op::Sfu(Sfu::Rcp), Type::F32) => "sfu_rcp",
        (Op::Sfu(Sfu::SqrtFactor), Type::F32) => "sfu:sqrt_factor",
        (Op::Sfu(Sfu::SinFactor), Type::F32) => "sfu:sin_factor",
        (Op::IMad, Type::I32) => "imad",
        (Op::FAdd, Type::F32) if src1_imm => "fadd_imm",
        (Op::FAdd, Type::F32) => "fadd",
        (Op::FMul, Type::F32) if src1_imm => "fmul_imm",
        (Op::FMul, Type::F32) => "fmul",
        (Op::FMul, Type::F16) => "hmul",
        (Op::FMin | Op::FMax, Type::F32) => "minmax",
        (Op::IMin { .. } | Op::IMax { .. }, Type::I32) => "minmax",
        (Op::ISub, Type::I32) if !src0_imm && !src1_imm => "isub_reg",
        // Arithmetic shift right by an immediate; r0–r15 only.
        (Op::Shr { signed: true }, Type::I32) if src1_imm && !src0_imm => "ishr_imm",
        (Op::Shr { signed: true }, Type::I32) if !src0_imm => "ishr_reg",
        (Op::Shr { signed: false }, Type::I32) if src1_imm && !src0_imm => "ushr_imm",
        (Op::Shr { signed: false }, Type::I32) if !src0_imm => "ushr_reg",
        (Op::Shl, Type::I32) if src1_imm && !src0_imm => "ishl_imm",
        (Op::Shl, Type::I32) if !src0_imm => "ishl_reg",
        (Op::FFma, Type::F32) => "ffma",
        (Op::FAdd, Type::F16) => "hadd",
        (Op::IAdd, Type::I32) if src1_imm => "iadd",
        (Op::IAdd, Type::I32) if !src0_imm => "iadd_reg",
        // F32: the sign-bit operations that stand in for abs/neg modifiers (legalize.rs).
        (Op::Xor | Op::And | Op::Or | Op::Not, Type::I32 | Type::Bool | Type::F32) => "ilogic",
        (Op::F2I { .. }, Type::I32) => "f2i",
        (Op::I2F { .. }, Type::F32) => "i2f",
        // The 8-byte move takes any 32-bit literal into r0–r63; selection uses the 2-byte form
        // when the value and the register allow.
        (Op::Copy, _) if src0_imm => "mov_imm32",
        // A uniform register into r0–r15 (the only validated form reading the uniform file).
        // Bools too: a uniform bool is a canonical 0/~0 word (st's UniformBooleanTrue with
        // native integers), which nir_lower_bool_to_int32's b2b32 turns into a plain copy.
        (Op::Copy, Type::I32 | Type::F32 | Type::Bool) if src0_uniform => "uniform_mov",
        // No validated general move: a 32-bit copy is `iadd d, s, #0`.
        (Op::Copy, Type::I32 | Type::F32 | Type::Bool) => "iadd",
        (Op::LoadGlobal { .. }, _) => "device_load",
        // Graphics IO (isel/gfx.rs): the forms whose register fields bound allocation.
        (Op::StoreOutput { .. }, _) => "logic_export",
        (Op::LoadVarying { .. }, _) => "iter",
        (Op::StoreTile { masked: true, .. }, _) => "tile_store_mask",
        (Op::StoreTile { .. }, _) => "tile_store",
        (Op::LoadTile { masked: true, .. }, _) => "tile_read_mask",
        (Op::LoadTile { .. }, _) => "tile_read",
        (Op::PackUnorm4x8, _) => "pack_unorm8x2",
        (Op::Coverage, _) => "get_sr",
        (Op::SampleMask { .. } | Op::DepthStore, _) => "logic_export",
        (Op::Texture { .. }, _) => "tex_sample",
        (Op::Derivative { .. }, Type::F32) => "derivative",
        (Op::StoreGlobal { .. }, _) => "device_store",
        // One 32-bit register to/from a scratch word (after `ra::scratch::lower_to_words`).
        (Op::Spill { .. }, Type::I32) => "spill_store",
        (Op::Fill { .. }, Type::I32) => "spill_load",
        _ => return None,
    })
}

pub fn is_imm(o: Option<&MOperand>) -> bool {
    matches!(o, Some(MOperand::Imm(_)))
}

pub fn is_uniform(o: Option<&MOperand>) -> bool {
    matches!(o, Some(MOperand::Uniform(_)))
}

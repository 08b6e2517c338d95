//! `tex_sample` fields interpreted once (agx16-isa decode; `meaning::texture_op` and
//! `meaning::texture_result_mask`), limited to what the T8132 TEXTURE_SAMPLE packer writes
//! (GravityLinux/mesa src/asahi/compiler/agx_apple9_ir.c; its GLES 3.0 suites ran the
//! encoding on M4). The render model (`crate::gfx::texture`) performs the op.

use super::check;
use agx16_isa::meaning::{texture_op, texture_result_mask, TextureAccess, TextureOp};
use agx16_isa::{Instr, Operand, Role};

/// One texture instruction, fields interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexInstr {
    /// First result register; the selected components land densely from here.
    pub dst: u8,
    /// First coordinate publication.
    pub coord: u8,
    /// Texture-table and sampler-table indices.
    pub texture: u8,
    pub sampler: u8,
    /// Result components (bit 0 R .. bit 3 A).
    pub mask: u8,
    /// Completion slot (1..6).
    pub slot: u8,
    pub op: TextureOp,
    /// Byte 8 bit 0: helper invocations retire after this sample.
    pub retire_helpers: bool,
}

impl TexInstr {
    /// Publications the op reads, relative to `coord`: (x, y) for a plain sample; the
    /// four-word LOD tuple has (x, y) at +0/+1 and the packed LOD/level word at +3; the
    /// array, cube and 3D forms also read +2 (z for 3D; the packer's TEXTURE_VOLUME_PARAMS
    /// tuple writes the layer there for arrays and the face for cubes, GravityLinux/mesa
    /// agx_apple9_ir.c `agx_apple9_vir_emit_texture_volume`).
    pub fn inputs(&self) -> &'static [u8] {
        match self.op.access {
            TextureAccess::Sample => &[0, 1],
            _ if self.op.array || self.op.cube || self.op.dims == 3 => &[0, 1, 2, 3],
            _ => &[0, 1, 3],
        }
    }
}

fn imm(i: &Instr, r: Role) -> Result<u8, String> {
    match i.operand(r).map(|o| o.value) {
        Some(Operand::ImmInt(v)) if (0..=255).contains(&v) => Ok(v as u8),
        o => Err(format!("tex_sample {} operand {o:?}", r.as_str())),
    }
}

/// Interprets a `tex_sample`; anything the packer does not write is an error naming it.
pub fn lower(i: &Instr) -> Result<TexInstr, String> {
    let op = texture_op(i)?;
    let mask = texture_result_mask(i)?;
    let dst = match i.operand(Role::Dst).map(|o| o.value) {
        Some(Operand::Gpr { reg, .. }) => reg,
        o => return Err(format!("tex_sample destination {o:?}")),
    };
    if dst as u32 + mask.count_ones() > 32 {
        return Err(format!(
            "result tuple r{dst}..r{} past r31 (README.apple9-ir.md: texture results must fit \
             through r31)",
            dst as u32 + mask.count_ones() - 1
        ));
    }
    let coord = imm(i, Role::SrcA)?;
    let four = !matches!(op.access, TextureAccess::Sample);
    if coord > 30 || coord % if four { 4 } else { 2 } != 0 {
        return Err(format!(
            "coordinate publication {coord}: the packer places the tuple at an even base up to \
             30 (a multiple of 4 for the four-word tuples)"
        ));
    }
    let Some((slot, _)) = i.produce() else {
        return Err("tex_sample without a completion tag".into());
    };
    // The packer writes the tag into both fields; the upper one alone is not established.
    if i.field("slot_hi") != i.field("slot") {
        return Err(format!(
            "completion tag fields differ ({:?} / {:?}): only the matched form is established",
            i.field("slot"),
            i.field("slot_hi")
        ));
    }
    let mode: &[u64] = if matches!(op.access, TextureAccess::Fetch) || op.shadow {
        &[0]
    } else {
        &[0x10]
    };
    check::fields(
        i,
        &[
            "variant",
            "extra_coord",
            "mask_sel",
            "slot_hi",
            "retire_helpers",
        ],
        &[
            ("b1_7", &[1]),
            ("b3_hi", &[5]),
            ("b4_35", &[2]),
            ("b4_38", &[2]),
            ("mode", mode),
            ("tex_type", &[1]),
        ],
    )?;
    Ok(TexInstr {
        dst,
        coord,
        texture: imm(i, Role::SrcB)?,
        sampler: imm(i, Role::SrcC)?,
        mask,
        slot,
        op,
        retire_helpers: i.field("retire_helpers") == Some(1),
    })
}

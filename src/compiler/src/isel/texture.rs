//! Texture selection: `Op::Texture` → coordinate publications + `tex_sample`.
//!
//! Forms and evidence (sim/GFX.md "Textures" has the model's side):
//! - `tex_sample` (agx16-isa hardware row, table/texture.rs): the T8132 TEXTURE_SAMPLE
//!   packer's shape (GravityLinux/mesa src/asahi/compiler/agx_apple9_ir.c), result tuple
//!   r[d]..r[d+3] (RGBA, selector 7) through r31, completing on the op's scoreboard slot
//!   (tag = slot - 1 in both tag fields), texture and sampler table indices 0..15; pairs
//!   00/00 implicit LOD, 00/01 explicit LOD, 04/00 bias, 80/24 fetch (`meaning::texture_op`).
//! - coordinates: publications written by `logic_export` (or of the value with itself, a bit
//!   copy; the packer's LOD/fetch tuples are exactly these exports at base, base+1 and
//!   base+3). The packer's plain-sample tuple multiplies by 1.0 with `fmul_export` instead;
//!   agx16 uses the bit copy there too, which reads the same coordinates (inferred: the
//!   texture unit reads the publication word, as the LOD tuples show). The exports complete
//!   on the sample's own slot; the packer emits no wait between them and the sample.
//! - publications: tuples of four at bases 0, 4, .., 28 (the packer's four-word tuples). A
//!   texture op reads its tuple until it completes ("borrowed texture-parameter inputs remain
//!   live until completion", README.apple9-ir.md; its physical scheduler keeps these
//!   coordinate-publication hazards and hands ops off early when publication storage runs
//!   out). The scoreboard pass (sched/scoreboard.rs) gives each op a tuple no op still in
//!   flight holds; selection checks it again: a tuple is free once an instruction has
//!   waited on the slot of the op that last read it.

use super::encode::round_trip;
use crate::error::CompileError;
use crate::ir::{Op, TexDim, TexKind};
use crate::mir::{MInstr, MOperand};
use agx16_isa::{Instr, Part, Role};

/// Publication tuples available to texture coordinates (bases 0, 4, .., 28).
pub use crate::sched::scoreboard::TUPLES;

/// Per-program texture selection state.
#[derive(Default)]
pub struct TexSelect {
    /// Completion slot (1..6) of the texture op still reading each tuple; 0 = free.
    held: [u8; TUPLES as usize],
}

fn err(i: &MInstr, why: impl Into<String>) -> CompileError {
    CompileError::NoForm {
        instr: i.to_string(),
        why: why.into(),
    }
}

fn build(i: &MInstr, name: &str, fields: &[(&str, u64)]) -> Result<Instr, CompileError> {
    let x = Instr::build(name, fields).map_err(|e| CompileError::Encode {
        instr: i.to_string(),
        why: e.to_string(),
    })?;
    if !x.form.emittable() {
        return Err(err(i, format!("form {name} is not hardware-validated")));
    }
    round_trip(i, x)
}

fn reg32(i: &MInstr, k: usize) -> Result<u64, CompileError> {
    match i.srcs.get(k).map(|s| (s.op, s.neg || s.abs)) {
        Some((MOperand::Reg(r), false)) if r.halves == 2 && r.half % 2 == 0 => Ok(r.gpr() as u64),
        _ => Err(err(i, "texture coordinates are plain 32-bit registers")),
    }
}

impl TexSelect {
    /// An instruction waits on the slots in `wait`: the texture ops on them have completed
    /// and no longer read their tuples.
    pub fn retire(&mut self, wait: u8) {
        for h in &mut self.held {
            if *h != 0 && wait >> (*h - 1) & 1 != 0 {
                *h = 0;
            }
        }
    }

    pub fn select(&mut self, i: &MInstr) -> Result<Vec<Instr>, CompileError> {
        let Op::Texture {
            texture,
            sampler,
            kind,
            dim,
        } = i.op
        else {
            return Err(CompileError::Internal(format!("{i} is not a texture op")));
        };
        if texture >= 16 || sampler >= 16 {
            return Err(err(
                i,
                "texture and sampler indices are 0..15 (4-bit fields)",
            ));
        }
        let d = match i.dst {
            Some(d) if d.halves == 8 && d.half % 2 == 0 && d.gpr() + 4 <= 32 => d.gpr() as u64,
            _ => return Err(err(i, "the result is four 32-bit registers through r31")),
        };
        let s = i.produce_slot;
        if !(1..=6).contains(&s) {
            return Err(CompileError::Internal(format!(
                "{i}: no completion slot assigned"
            )));
        }
        let t = i.tuple as usize;
        if t >= TUPLES as usize {
            return Err(CompileError::Internal(format!(
                "{i}: coordinate tuple {t} past the {TUPLES} tuples"
            )));
        }
        if self.held[t] != 0 {
            return Err(CompileError::Internal(format!(
                "{i}: coordinate tuple {t} rewritten while the texture op on slot {} that \
                 reads it is in flight (no wait on its slot)",
                self.held[t]
            )));
        }
        self.held[t] = s;
        let base = 4 * t as u64;
        let inputs: &[u64] = match (kind, dim) {
            (TexKind::Sample, TexDim::D2) => &[0, 1],
            (TexKind::Sample, _) => {
                return Err(err(
                    i,
                    "implicit-LOD samples of arrays and 3D have no form without the LOD word \
                     (import selects bias 0)",
                ))
            }
            (_, TexDim::D2) => &[0, 1, 3],
            // The packer's TEXTURE_VOLUME_PARAMS tuple: x, y, layer or z, word
            // (GravityLinux/mesa agx_apple9_ir.c `agx_apple9_vir_emit_texture_volume`).
            (_, TexDim::D2Array | TexDim::Cube | TexDim::D3) => &[0, 1, 2, 3],
        };
        if i.srcs.len() != inputs.len() {
            return Err(CompileError::Internal(format!(
                "{i}: {} sources for {kind:?}",
                i.srcs.len()
            )));
        }
        let mut out = Vec::new();
        for (k, &off) in inputs.iter().enumerate() {
            let r = reg32(i, k)?;
            out.push(super::gfx::copy_export(i, base + off, r, s as u64 - 1)?);
        }
        // Selector pairs: agx16-isa `meaning::texture_op` (the packer's pairs per dimension).
        let (v6, v7, mode) = match (kind, dim) {
            (TexKind::Sample, _) => (0x00, 0x00, 0x10),
            (TexKind::Lod, TexDim::D2) => (0x00, 0x01, 0x10),
            (TexKind::Bias, TexDim::D2) => (0x04, 0x00, 0x10),
            (TexKind::Fetch, TexDim::D2) => (0x80, 0x24, 0x00),
            (TexKind::Lod, TexDim::D2Array) => (0x08, 0x05, 0x10),
            (TexKind::Bias, TexDim::D2Array) => (0x0c, 0x04, 0x10),
            (TexKind::Fetch, TexDim::D2Array) => (0xa0, 0x24, 0x00),
            (TexKind::Lod, TexDim::D3) => (0x88, 0x21, 0x10),
            (TexKind::Bias, TexDim::D3) => (0x90, 0x01, 0x10),
            (TexKind::Fetch, TexDim::D3) => (0x98, 0x01, 0x00),
            // The packer's cube pairs (texture_dimension 1); it has no cube fetch.
            (TexKind::Lod, TexDim::Cube) => (0x00, 0x03, 0x10),
            (TexKind::Bias, TexDim::Cube) => (0x14, 0x00, 0x10),
            (TexKind::Fetch, TexDim::Cube) => {
                return Err(err(
                    i,
                    "cube maps have no fetch form (GL has no texelFetch of them)",
                ))
            }
        };
        let mut x = build(
            i,
            "tex_sample",
            &[
                ("coord", base),
                ("texture", texture as u64),
                ("sampler", sampler as u64),
                ("b1_7", 1),
                ("mask_sel", 7),
                ("b3_hi", 5),
                ("b4_35", 2),
                ("b4_38", 2),
                ("slot", s as u64 - 1),
                ("slot_hi", s as u64 - 1),
                ("variant", v6),
                ("extra_coord", v7),
                ("mode", mode),
                ("tex_type", 1),
            ],
        )?;
        x.set_gpr(Role::Dst, d as u32, Part::Full)
            .map_err(|e| CompileError::Encode {
                instr: i.to_string(),
                why: e.to_string(),
            })?;
        // The bytes must read back as the intended operation and all four components.
        let op = agx16_isa::meaning::texture_op(&x).map_err(|e| err(i, e))?;
        let want = match kind {
            TexKind::Sample => agx16_isa::meaning::TextureAccess::Sample,
            TexKind::Lod => agx16_isa::meaning::TextureAccess::Lod,
            TexKind::Bias => agx16_isa::meaning::TextureAccess::Bias,
            TexKind::Fetch => agx16_isa::meaning::TextureAccess::Fetch,
        };
        let want_dims = match dim {
            TexDim::D2 => (2, false, false),
            TexDim::D2Array => (2, true, false),
            TexDim::Cube => (2, false, true),
            TexDim::D3 => (3, false, false),
        };
        if op.access != want
            || (op.dims, op.array, op.cube) != want_dims
            || op.shadow
            || agx16_isa::meaning::texture_result_mask(&x) != Ok(0xf)
        {
            return Err(err(i, format!("tex_sample reads back as {op:?}")));
        }
        out.push(round_trip(i, x)?);
        Ok(out)
    }
}

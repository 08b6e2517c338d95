//! Graphics IO selection: vertex outputs, fragment inputs and tilebuffer colour.
//!
//! Forms and evidence:
//! - vertex outputs: `logic_export` (or of the value with itself, bit exact) writes a
//!   publication register and completes on a scoreboard slot; `vary_store` stores the
//!   publication as vertex output k, waiting on that slot. Both are hardware rows of agx16-isa
//!   (`Form::emittable`; GravityLinux/mesa agx_apple9_ir.c `pack_logic` LOGIC_EXPORT and
//!   VARY_STORE, run on T8132; README.apple9-ir.md "Varying publication completion" and
//!   EXP-M4-61: a store that does not wait on its export's slot loses outputs). Each store gets
//!   its own publication: rewriting one a store has read has no established rule.
//! - fragment inputs: `iter` at the pixel centre in the packer shape
//!   `2f 05 54 <dst<<1> 03 <cf<<1> 00 02 10 00` (agx_apple9_ir.c ITER). The form is
//!   corpus-only in agx16-isa; agx16-sim's render model executes exactly this shape
//!   (sim/GFX.md "Graphics IO the model executes"). The interpolation (flat, linear,
//!   perspective) is the coefficient binding's, which the driver writes from
//!   `abi::StageInfo::coefficients` (agx_apple9.c `apple9_build_cf_bindings`).
//! - tilebuffer colour: the packer's epilogue `tile_setup` 0x600, `tile_setup` 0x80c,
//!   `tile_store` (static mask 1, byte 7 0x4e: a raw word), `tile_fence` 0x20c
//!   (agx_apple9_ir.c TILE_ACCESS / TILE_STORE / TILE_FENCE; the Apple-compiled EXP-0008
//!   render_min epilogue stores with the same tile_store bytes). Corpus-only in agx16-isa,
//!   the shapes agx16-sim's render model executes. `tile_store` has no wait field: the
//!   scoreboard pass hands pending sources off before it.
//! - tilebuffer read (the blend destination): `tile_read` in the packer's TILE_LOAD static-mask
//!   shape `67 0e 54 <dst<<1> 00 <w<<1> 01 4e|slot ..` (agx_apple9_ir.c TILE_LOAD; byte 1 bit 0
//!   is the read enable, encoding-tables.md / EXP-0147 measured). Corpus-only in agx16-isa;
//!   agx16-sim's render model executes exactly this shape and publishes the word on the
//!   producer slot (sim/GFX.md), which the scoreboard pass assigns (`Op::is_async`) and its
//!   consumers wait on.

use super::encode::round_trip;
use crate::error::CompileError;
use crate::ir::Op;
use crate::mir::{MInstr, MOperand};
use agx16_isa::{form_by_name, Instr, Part, Role};

/// The graphics forms selected although agx16-isa holds them as corpus-only: each in the one
/// packer shape agx16-sim's render model executes (sim/GFX.md).
const MODEL_EXECUTED: &[&str] = &[
    "iter",
    "tile_setup",
    "tile_store",
    "tile_store_mask",
    "tile_fence",
    "tile_read",
    "tile_read_mask",
];
// (pack_unorm8x2 is a hardware row: `Form::emittable`.)

/// Publication registers per lane (agx16-isa export destination field, 0..127).
const PUBLICATIONS: u8 = 128;

/// Ops selected here (graphics IO, and the unorm pack, which becomes two instructions).
pub fn is_gfx_io(op: Op) -> bool {
    matches!(
        op,
        Op::StoreOutput { .. }
            | Op::LoadVarying { .. }
            | Op::StoreTile { .. }
            | Op::LoadTile { .. }
            | Op::PackUnorm4x8
            | Op::Texture { .. }
            | Op::Coverage
            | Op::SampleMask { .. }
            | Op::DepthStore
    )
}

/// First publication register of the coverage-write control words (above the texture
/// coordinate tuples, bases 0..28: isel/texture.rs); each write takes the next one.
pub const SAMPLE_MASK_PUBLICATION: u32 = 32;

/// Per-program selection state.
#[derive(Default)]
pub struct GfxSelect {
    /// Next free publication register.
    next_pub: u8,
    /// Texture selection (isel/texture.rs).
    tex: super::texture::TexSelect,
    /// Coverage writes selected so far.
    sample_masks: u8,
}

fn err(i: &MInstr, why: impl Into<String>) -> CompileError {
    CompileError::NoForm {
        instr: i.to_string(),
        why: why.into(),
    }
}

fn build(i: &MInstr, name: &str, fields: &[(&str, u64)]) -> Result<Instr, CompileError> {
    form_by_name(name).ok_or_else(|| err(i, format!("form {name} missing")))?;
    let x = Instr::build(name, fields).map_err(|e| CompileError::Encode {
        instr: i.to_string(),
        why: e.to_string(),
    })?;
    gated(i, x)
}

/// `or r, r` into publication `dst`, completing on completion slot `slot + 1` (0: none): the
/// packer's LOGIC_EXPORT copy (op_base 1, lut_a 2, lut_b bit 3). The source is kept (no release:
/// a missed release only costs register reuse).
pub(super) fn copy_export(i: &MInstr, dst: u64, r: u64, slot: u64) -> Result<Instr, CompileError> {
    build(
        i,
        "logic_export",
        &[
            ("dst", dst),
            ("a_size", 1),
            ("a", r),
            ("a_keep", 1),
            ("op_base", 1),
            ("b_size", 1),
            ("b", r),
            ("b_keep", 1),
            ("lut_a_sel", 2),
            ("lut_b3", 1),
            ("slot", slot),
        ],
    )
}

/// Only validated forms or the graphics forms the model executes, each checked to decode back.
fn gated(i: &MInstr, x: Instr) -> Result<Instr, CompileError> {
    let name = x.form.name;
    if !x.form.emittable() && !MODEL_EXECUTED.contains(&name) {
        return Err(err(i, format!("form {name} is not hardware-validated")));
    }
    round_trip(i, x)
}

fn reg32(i: &MInstr, k: usize) -> Result<u32, CompileError> {
    match i.srcs.get(k).map(|s| (s.op, s.neg || s.abs)) {
        Some((MOperand::Reg(r), false)) if r.halves == 2 && r.half % 2 == 0 => Ok(r.gpr()),
        _ => Err(err(i, "graphics IO takes plain 32-bit registers")),
    }
}

impl GfxSelect {
    /// Selection state for a program whose texture ops use coordinate tuples `0..tuples`
    /// (given by the scoreboard pass, isel/texture.rs): vertex-output publications start past
    /// them, so the two never share a publication register (abi.rs counts 4 per tuple plus
    /// one per output store, the same high-water mark).
    pub fn new(tuples: usize) -> Self {
        GfxSelect {
            next_pub: (4 * tuples.min(super::texture::TUPLES as usize)) as u8,
            ..Default::default()
        }
    }

    /// An instruction waiting on the slots in `wait` (bit s-1 for slot s) is about to run.
    pub fn retire(&mut self, wait: u8) {
        self.tex.retire(wait);
    }

    pub fn select(&mut self, i: &MInstr) -> Result<Vec<Instr>, CompileError> {
        if i.wait != 0 {
            return Err(CompileError::Internal(format!(
                "{i}: pending sources must be handed off before graphics IO"
            )));
        }
        match i.op {
            Op::Texture { .. } => self.tex.select(i),
            // Coverage read: GravityLinux/mesa's GET_COVERAGE `<d<<4 | c> c2 10 06` is agx16-isa's
            // get_sr row (form bit set, selector 0xc2; r0..r15), an asynchronous producer on
            // slot 1 (README.apple9-ir.md); the scoreboard pass gives it slot 1.
            Op::Coverage => {
                let d = match i.dst {
                    Some(d) if d.halves == 2 && d.half % 2 == 0 => d.gpr(),
                    _ => return Err(err(i, "the coverage read writes a 32-bit register")),
                };
                if i.produce_slot != 1 {
                    return Err(CompileError::Internal(format!(
                        "{i}: the coverage read completes on slot 1, not {}",
                        i.produce_slot
                    )));
                }
                let mut x = build(
                    i,
                    "get_sr",
                    &[("form", 1), ("sr_sel", 0xc2), ("dp_width", 0)],
                )?;
                x.set_gpr(Role::Dst, d, Part::Full)
                    .map_err(|e| CompileError::Encode {
                        instr: i.to_string(),
                        why: e.to_string(),
                    })?;
                Ok(vec![round_trip(i, x)?])
            }
            // Coverage write (GravityLinux/mesa `sample_mask_agx` emission, its GLES suites ran
            // discard on T8132): the control word is published by a LOGIC_EXPORT (or with
            // itself) completing on slot 1, and `57 14 54 <p<<1> 00 01` consumes it waiting on
            // slot 1; a write with live samples (the test) sits inside tile access 1 / fence 1,
            // a pure kill does not (the packer leaves the synchronisation pending for the
            // final test).
            Op::SampleMask { test } => {
                let r = reg32(i, 0)? as u64;
                if i.produce_slot != 1 {
                    return Err(CompileError::Internal(format!(
                        "{i}: the control word's export completes on slot 1, not {}",
                        i.produce_slot
                    )));
                }
                let p = SAMPLE_MASK_PUBLICATION as u64 + self.sample_masks as u64;
                if p >= PUBLICATIONS as u64 {
                    return Err(err(i, "more coverage writes than publication registers"));
                }
                self.sample_masks += 1;
                let export = copy_export(i, p, r, 0)?;
                let submit = build(
                    i,
                    "frag_sample_submit",
                    &[
                        ("b1_hi", 1),
                        ("wait", 1),
                        ("b2", 0x15),
                        ("src", p),
                        ("b4", 0),
                        ("b5", 1),
                    ],
                )?;
                if test {
                    Ok(vec![
                        export,
                        build(i, "tile_setup", &[("b1", 2), ("access", 1)])?,
                        submit,
                        build(i, "tile_fence", &[("access", 1)])?,
                    ])
                } else {
                    Ok(vec![export, submit])
                }
            }
            Op::StoreOutput { slot } => {
                let r = reg32(i, 0)? as u64;
                let s = i.produce_slot;
                if !(1..=6).contains(&s) {
                    return Err(CompileError::Internal(format!(
                        "{i}: no completion slot assigned"
                    )));
                }
                if self.next_pub >= PUBLICATIONS {
                    return Err(err(
                        i,
                        "more vertex-output stores than publication registers (128)",
                    ));
                }
                let p = self.next_pub as u64;
                self.next_pub += 1;
                let export = copy_export(i, p, r, s as u64 - 1)?;
                match agx16_isa::meaning::export_op(&export) {
                    Ok(agx16_isa::meaning::ExportOp::Logic(f))
                        if f.apply_ilogic(0x5a, 0x5a) == 0x5a => {}
                    other => return Err(err(i, format!("logic export reads back as {other:?}"))),
                }
                let store = build(
                    i,
                    "vary_store",
                    &[
                        ("b1_hi", 1),
                        ("wait", 1 << (s - 1)),
                        ("mode", 0x15),
                        ("src", p),
                        ("slot", slot as u64),
                        ("b5_tag", 4),
                    ],
                )?;
                Ok(vec![export, store])
            }
            Op::LoadVarying { cf, .. } => {
                let d = match i.dst {
                    Some(d) if d.halves == 2 && d.half % 2 == 0 => d.gpr(),
                    _ => return Err(err(i, "iter writes a 32-bit register")),
                };
                let mut x = build(
                    i,
                    "iter",
                    &[
                        ("b1_01", 1),
                        ("b2_hi", 0x15),
                        ("coeff_sel", 3),
                        ("slot", cf as u64),
                        ("b7", 2),
                        ("loc", 0x10),
                    ],
                )?;
                x.set_gpr(Role::Dst, d, Part::Full)
                    .map_err(|e| CompileError::Encode {
                        instr: i.to_string(),
                        why: e.to_string(),
                    })?;
                match agx16_isa::meaning::iter_location(&x) {
                    Ok(agx16_isa::meaning::IterLocation::Centre) => {}
                    other => return Err(err(i, format!("iter location reads back as {other:?}"))),
                }
                Ok(vec![round_trip(i, x)?])
            }
            Op::StoreTile { word, masked } => {
                let r = reg32(i, 0)?;
                let v = if masked {
                    let m = reg32(i, 1)?;
                    agx16_isa::meaning::tile_word_stores_masked(&[(r, word as u32, m)])
                } else {
                    agx16_isa::meaning::tile_word_stores(&[(r, word as u32)])
                }
                .map_err(|e| CompileError::Encode {
                    instr: i.to_string(),
                    why: e.to_string(),
                })?;
                v.into_iter().map(|x| gated(i, x)).collect()
            }
            Op::LoadTile { word, masked } => {
                let d = match i.dst {
                    Some(d) if d.halves == 2 && d.half % 2 == 0 => d.gpr(),
                    _ => return Err(err(i, "tile_read writes a 32-bit register")),
                };
                if !(1..=6).contains(&i.produce_slot) {
                    return Err(CompileError::Internal(format!(
                        "{i}: no completion slot assigned"
                    )));
                }
                let mut x = if masked {
                    let m = reg32(i, 0)?;
                    let mut x = build(
                        i,
                        "tile_read_mask",
                        &[("b2", 0x54), ("rt", word as u64), ("fmt", 0x4e)],
                    )?;
                    x.set_gpr(Role::SrcB, m, Part::Full)
                        .map_err(|e| CompileError::Encode {
                            instr: i.to_string(),
                            why: e.to_string(),
                        })?;
                    x
                } else {
                    build(
                        i,
                        "tile_read",
                        &[
                            ("b2", 0x54),
                            ("rt", word as u64),
                            ("mask", 1),
                            ("fmt", 0x4e),
                        ],
                    )?
                };
                x.set_gpr(Role::Dst, d, Part::Full)
                    .map_err(|e| CompileError::Encode {
                        instr: i.to_string(),
                        why: e.to_string(),
                    })?;
                x.set_produce(i.produce_slot)
                    .map_err(|e| CompileError::Encode {
                        instr: i.to_string(),
                        why: e.to_string(),
                    })?;
                Ok(vec![round_trip(i, x)?])
            }
            Op::PackUnorm4x8 => {
                // Two `pack_unorm8x2` (GravityLinux/mesa PACK_UNORM packer shape; agx16-isa
                // hardware row, agx16-sim executes it: clamp, ·255, ties to even) writing the
                // low half (R, G) and the high half (B, A) of the destination. Neither
                // instruction releases a source. The allocator keeps the destination off
                // sources that die here (`Op::dst_avoids_dying_sources`); a destination that
                // still holds a live source's register is written half whose sources it holds
                // first, and one holding sources of both halves is refused.
                let d = match i.dst {
                    Some(d) if d.halves == 2 && d.half % 2 == 0 => d,
                    _ => return Err(err(i, "the unorm pack writes a 32-bit register")),
                };
                let r: Vec<u32> = (0..4).map(|k| reg32(i, k)).collect::<Result<_, _>>()?;
                let half = |hi: u64, a: u32, b: u32| {
                    build(
                        i,
                        "pack_unorm8x2",
                        &[
                            ("dst", d.gpr() as u64),
                            ("dst_half", hi),
                            ("b4", 2),
                            ("a", a as u64),
                            ("b", b as u64),
                            ("b7_hi", 0x14),
                            ("b8", 0x44),
                        ],
                    )
                };
                let lo_reads = r[0] == d.gpr() || r[1] == d.gpr();
                let hi_reads = r[2] == d.gpr() || r[3] == d.gpr();
                let lo = half(0, r[0], r[1])?;
                let hi = half(1, r[2], r[3])?;
                match (lo_reads, hi_reads) {
                    (true, true) => Err(err(
                        i,
                        "the destination is a source of both halves (no order keeps both)",
                    )),
                    (false, true) => Ok(vec![hi, lo]),
                    _ => Ok(vec![lo, hi]),
                }
            }
            // gl_FragDepth (GravityLinux/mesa `store_zs_agx`, its GLES 3.0 suites on T8132): the
            // control word and the depth go out as a publication pair (PUBLICATION_PAIR: two
            // pair-word logic exports at an even base p, completing on slot 1), and
            // `d7 14 54 <p<<1> 00 03` consumes it waiting on slot 1, inside tile access /
            // fence 1.
            Op::DepthStore => {
                let (w, z) = (reg32(i, 0)? as u64, reg32(i, 1)? as u64);
                if i.produce_slot != 1 {
                    return Err(CompileError::Internal(format!(
                        "{i}: the pair's exports complete on slot 1, not {}",
                        i.produce_slot
                    )));
                }
                let p = (SAMPLE_MASK_PUBLICATION as u64 + self.sample_masks as u64 + 1) & !1;
                if p + 1 >= PUBLICATIONS as u64 {
                    return Err(err(i, "more coverage writes than publication registers"));
                }
                self.sample_masks = (p + 2 - SAMPLE_MASK_PUBLICATION as u64) as u8;
                let pair = |dst: u64, r: u64| {
                    build(
                        i,
                        "logic_export",
                        &[
                            ("dst", dst),
                            ("a_size", 1),
                            ("a", r),
                            ("a_keep", 1),
                            ("op_base", 1),
                            ("lut_a_sel", 2),
                            ("z8", 0x10),
                            ("slot", 0),
                        ],
                    )
                };
                let (e0, e1) = (pair(p, w)?, pair(p + 1, z)?);
                for e in [&e0, &e1] {
                    if agx16_isa::meaning::export_op(e)
                        != Ok(agx16_isa::meaning::ExportOp::PairWord)
                    {
                        return Err(err(i, "the pair export does not read back as a pair word"));
                    }
                }
                Ok(vec![
                    e0,
                    e1,
                    build(i, "tile_setup", &[("b1", 2), ("access", 1)])?,
                    build(i, "depth_store", &[("src", p), ("b4", 0), ("b5", 3)])?,
                    build(i, "tile_fence", &[("access", 1)])?,
                ])
            }
            _ => Err(CompileError::Internal(format!("{i} is not graphics IO"))),
        }
    }
}

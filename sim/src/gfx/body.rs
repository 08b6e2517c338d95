//! Stage bodies on the shader core. The core runs a body's ALU, memory and control flow;
//! it stops at each graphics IO instruction (which it lowers to a refusal because the
//! state involved, coefficient registers and the tilebuffer, belongs to the render
//! pipeline). This module performs that instruction (`crate::lower::gfx_io`, the single
//! interpretation of those fields) and resumes the SIMD-group after it.

use super::stages::{Fragment, FragmentResult, TileBuffer};
use super::unestablished;
use crate::core::exec::{run, Ctx, Yield};
use crate::core::ops::{Dst, Kind, Op, Part};
use crate::core::state::{SimdGroup, ThreadIds};
use crate::core::LANES;
use crate::error::{hex, SimError};
use crate::lower::gfx_io::{self, GfxOp};
use crate::mem::GpuMemory;
use crate::program::Program;
use std::collections::HashMap;

/// Largest body the model reads (bytes after the entry jump's target).
const MAX_BODY: usize = 16 * 1024;
/// Instruction budget of one SIMD-group run of a stage body (endless-loop guard).
const BUDGET: u64 = 1 << 20;

/// A stage body, decoded once.
pub struct Body {
    pub va: u64,
    pub prog: Program,
    /// Graphics IO ops by pc (or why the encoding is refused).
    io: HashMap<u32, Result<GfxOp, String>>,
}

impl Body {
    /// Reads and decodes the body at `va` (up to the first unmapped 16-byte chunk).
    pub fn load(mem: &dyn GpuMemory, va: u64) -> Result<Body, SimError> {
        let mut code = Vec::new();
        let mut chunk = [0u8; 16];
        while code.len() < MAX_BODY && mem.read(va + code.len() as u64, &mut chunk).is_ok() {
            code.extend_from_slice(&chunk);
        }
        if code.is_empty() {
            mem.read(va, &mut chunk[..2])?;
        }
        let prog = Program::new(&code);
        let mut io = HashMap::new();
        for op in &prog.ops {
            if let Ok(i) = agx16_isa::decode_at(&code, op.pc as usize) {
                if let Some(g) = gfx_io::lower(&i) {
                    io.insert(op.pc, g);
                }
            }
        }
        Ok(Body { va, prog, io })
    }

    fn error(&self, op: &Op, what: String) -> SimError {
        let at = op.pc as usize;
        let end = (at + op.len as usize).min(self.prog.code.len());
        SimError::Unestablished {
            pc: op.pc,
            bytes: hex(&self.prog.code[at..end]),
            form: self.prog.disasm_at(op.pc).to_string(),
            what: format!("{what} (body at {:#x})", self.va),
        }
    }
}

/// Runs the fragment body on one 2x2 quad (lane k = `quad[k]`; helper lanes execute but
/// their tilebuffer writes are dropped).
pub fn run_fragment_quad(
    mem: &dyn GpuMemory,
    body: &Body,
    quad: &[Fragment],
    tile: &mut TileBuffer,
) -> Result<Vec<FragmentResult>, SimError> {
    if body.prog.uniforms_needed() > 0 {
        return Err(unestablished(
            body.va,
            "fragment body",
            "the body reads uniform registers; the launcher's argument transfer is not \
             executed for render stages yet",
        ));
    }
    let live = if quad.len() >= LANES {
        u32::MAX
    } else {
        (1u32 << quad.len()) - 1
    };
    let mut sg = SimdGroup::new(live, ThreadIds::default());
    let mut ctx = Ctx {
        prog: &body.prog,
        mem,
        uniforms: &[],
        setup: None,
        trace: None,
        budget: BUDGET,
        instructions: 0,
        lane_instructions: 0,
    };
    loop {
        match run(&mut sg, &mut ctx) {
            Ok(Yield::Stop) => break,
            Ok(Yield::Barrier) => {
                return Err(unestablished(
                    body.va,
                    "fragment body",
                    "a barrier in a fragment body is not modelled",
                ))
            }
            Err(e) => {
                let op = sg.next.checked_sub(1).and_then(|k| body.prog.ops.get(k));
                let op = match op {
                    // Only the refusal the core lowered this very instruction to is a trap.
                    Some(op) if matches!(&op.kind, Kind::Refuse(r) if *r == e) => op,
                    _ => return Err(e),
                };
                let g = match body.io.get(&op.pc) {
                    Some(Ok(g)) => *g,
                    Some(Err(why)) => return Err(body.error(op, why.clone())),
                    None => return Err(e),
                };
                fragment_io(body, op, g, &mut sg, quad, tile)?;
            }
        }
    }
    Ok(vec![FragmentResult::default(); quad.len()])
}

/// Byte range of raw word `word` in one sample, when the word is unambiguous.
fn word_range(
    body: &Body,
    op: &Op,
    tile: &TileBuffer,
    word: u8,
) -> Result<std::ops::Range<usize>, SimError> {
    // The packer's static mask 1 names sample 0; with more samples what it covers is
    // not established (the GPR-mask forms carry the per-sample masks).
    if tile.samples != 1 {
        return Err(body.error(
            op,
            format!(
                "static sample mask 1 on a {}-sample tilebuffer is not established",
                tile.samples
            ),
        ));
    }
    // Word 0 is the first 32 bits of the pixel whether `rt` counts words or render
    // targets; beyond it the two readings differ and no source separates them.
    if word != 0 {
        return Err(body.error(
            op,
            format!("tile word {word}: whether the field counts 32-bit words or render targets is not established"),
        ));
    }
    if tile.sample_size < 4 {
        return Err(body.error(
            op,
            format!("tile word 0 past the {}-byte sample", tile.sample_size),
        ));
    }
    Ok(0..4)
}

fn fragment_io(
    body: &Body,
    op: &Op,
    g: GfxOp,
    sg: &mut SimdGroup,
    quad: &[Fragment],
    tile: &mut TileBuffer,
) -> Result<(), SimError> {
    let mask = sg.exec.active;
    let lanes = || (0..quad.len()).filter(move |l| mask >> l & 1 != 0);
    match g {
        GfxOp::TileSync => {}
        GfxOp::Iterate { dst, cf } => {
            let mut vals = [0u32; LANES];
            for l in lanes() {
                let v = quad[l].iterate(cf as usize).ok_or_else(|| {
                    body.error(
                        op,
                        format!(
                            "coefficient {cf} is past the {} registers the CF table binds",
                            quad[l].coefficients.len()
                        ),
                    )
                })?;
                vals[l] = v.to_bits();
            }
            sg.pending.cancel(dst.reg, dst.part);
            sg.write(dst, mask, &vals);
        }
        GfxOp::TileStore { src, word } => {
            let r = word_range(body, op, tile, word)?;
            if sg.pending.is_pending(src, Part::Full) {
                return Err(body.error(
                    op,
                    format!("tile store of r{src} while its value is in flight (the form has no wait field)"),
                ));
            }
            for l in lanes() {
                let f = &quad[l];
                if f.helper || f.sample_mask & 1 == 0 {
                    continue;
                }
                let (x, y) = (f.x - tile.origin.0, f.y - tile.origin.1);
                let bytes = sg.regs[src as usize][l].to_le_bytes();
                if let Some(s) = tile.sample_mut(x, y, 0) {
                    s[r.clone()].copy_from_slice(&bytes);
                }
            }
        }
        GfxOp::TileRead { dst, word, slot } => {
            let r = word_range(body, op, tile, word)?;
            if sg.pending.is_pending(dst, Part::Full) {
                return Err(body.error(
                    op,
                    format!("second producer into r{dst} while the first is in flight"),
                ));
            }
            let mut vals = [0u32; LANES];
            for l in lanes() {
                let f = &quad[l];
                let (x, y) = (f.x - tile.origin.0, f.y - tile.origin.1);
                if let Some(s) = tile.sample(x, y, 0) {
                    vals[l] = u32::from_le_bytes(s[r.clone()].try_into().unwrap());
                }
            }
            sg.pending.publish(dst, Part::Full, slot, mask, &vals);
        }
    }
    for &(reg, part) in &op.releases {
        sg.write(Dst { reg, part }, mask, &[0; LANES]);
    }
    Ok(())
}

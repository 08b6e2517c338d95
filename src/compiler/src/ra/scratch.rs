//! Spill slots to scratch words. The allocator spills whole values (tuples up to four
//! components) to numbered slots; G16's scratch forms move one 32-bit register per
//! instruction to a word index of the invocation's scratch (agx16-isa table/scratch.rs,
//! GravityLinux/mesa apple9 packers, T8132). After allocation each slot gets consecutive
//! words (first use order) and each `Spill`/`Fill` of a tuple becomes one access per word,
//! `slot` then naming the word. A 16-bit value keeps its one-half access (the MIR
//! interpreter executes it; G16 selection refuses it, and the G16 allocator never spills
//! 16-bit values, see `RegTarget::spill_32bit_only`).

use crate::error::CompileError;
use crate::ir::{Op, Type};
use crate::mir::{MInstr, MItem, MOperand, MProgram, Reg};
use std::collections::HashMap;

/// Rewrites slot accesses to word accesses; returns the number of scratch words used.
pub fn lower_to_words(p: &mut MProgram) -> Result<u32, CompileError> {
    let mut base: HashMap<u32, (u32, u32)> = HashMap::new(); // slot -> (first word, words)
    let mut next = 0u32;
    let mut out = Vec::with_capacity(p.items.len());
    for it in std::mem::take(&mut p.items) {
        let MItem::Instr(i) = it else {
            out.push(it);
            continue;
        };
        let (slot, reg) = match (i.op, i.dst, i.srcs.first().map(|s| s.op)) {
            (Op::Spill { slot }, _, Some(MOperand::Reg(r))) => (slot, r),
            (Op::Fill { slot }, Some(d), _) => (slot, d),
            (Op::Spill { .. } | Op::Fill { .. }, _, _) => {
                return Err(CompileError::Internal(format!(
                    "scratch access `{i}` without a register"
                )))
            }
            _ => {
                out.push(MItem::Instr(i));
                continue;
            }
        };
        let words = (reg.halves as u32).div_ceil(2);
        let (first, have) = *base.entry(slot).or_insert_with(|| {
            next += words;
            (next - words, words)
        });
        if words > have {
            return Err(CompileError::Internal(format!(
                "scratch slot {slot} accessed with {words} words after {have}"
            )));
        }
        if reg.halves > 1 && reg.half % 2 != 0 {
            return Err(CompileError::Internal(format!(
                "scratch access `{i}` on a tuple that starts at a high half"
            )));
        }
        for k in 0..words {
            let part = Reg {
                half: reg.half + 2 * k as u16,
                halves: (reg.halves - 2 * k as u8).min(2),
            };
            let ty = if part.halves == 1 {
                Type::I16
            } else {
                Type::I32
            };
            let mut w = i.clone();
            w.ty = ty;
            match i.op {
                Op::Spill { .. } => {
                    w.op = Op::Spill { slot: first + k };
                    w.srcs[0].op = MOperand::Reg(part);
                    w.srcs[0].ty = ty;
                    // The store releases its source on G16 (`SAVE releases its input`,
                    // GravityLinux/mesa apple9 shared RA); after spill-everywhere the
                    // spilled register is dead anyway.
                    w.srcs[0].release = true;
                }
                _ => {
                    w.op = Op::Fill { slot: first + k };
                    w.dst = Some(part);
                }
            }
            out.push(MItem::Instr(w));
        }
    }
    p.items = out;
    Ok(next)
}

/// The words of one scratch access (for tests and statistics).
pub fn access_word(i: &MInstr) -> Option<u32> {
    match i.op {
        Op::Spill { slot } | Op::Fill { slot } => Some(slot),
        _ => None,
    }
}

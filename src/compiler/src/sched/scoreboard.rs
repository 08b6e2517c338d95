//! Scoreboard-slot assignment after final scheduling and register allocation.
//!
//! Measured rules (niklassheth/agx-re APPLE9_SCOREBOARD_SLOTS.md, hardware runs on T8132):
//! - an asynchronous producer (device load, texture, returning atomic) tags its result with a
//!   slot 1–6; loads take slots starting at 6, from one shared pool;
//! - the first consumer names that slot and hands the value off, freeing the slot; later reads
//!   use slot 0; naming the wrong slot reads zeros;
//! - a direct load → store only works with a slot-6 producer;
//! - pending work is never carried across blocks or exec-mask changes
//!   (GravityLinux/mesa apple9 physical scheduler; inferred as a rule).
//!
//! Where a consumer would need two slots, or work would cross a boundary, a hand-off copy
//! (`r = r`, naming the slot) is inserted; that a copy onto itself completes the hand-off is
//! inferred, not measured.
//!
//! Scratch (GravityLinux/mesa apple9 physical scheduler and machine table, whose spilling
//! shaders ran on T8132; agx16-sim `core::scratch`): a fill is an asynchronous load like a
//! device load; a spill store also completes on a slot, and releases its source. A pending
//! store is completed by a copy naming its slot before the next scratch access to its word,
//! before anything writes its source register, and at every boundary. The copy rewrites the
//! store's own (released, dead) source register with itself, so it needs no spare register.
//! The compiler names no slot on the scratch forms (agx16-isa has their wait field from
//! GravityLinux's machine table, but nothing here needs it): a spill of a pending value is
//! handed off first.

use crate::ir::{Op, Type};
use crate::mir::{MInstr, MItem, MOperand, MProgram, MSrc, Reg};

/// Allocation order of the shared pool.
const POOL: [u8; 6] = [6, 1, 2, 3, 4, 5];

struct Pending {
    slot: u8,
    reg: Reg,
    /// A spill store's scratch word (its `reg` is the released source).
    store_word: Option<u32>,
}

fn handoff_one(p: &Pending, half: u16) -> MInstr {
    // Copy the first 32 bits (or 16) of the tuple onto itself; that read delivers the tuple.
    let r = Reg {
        half,
        halves: p.reg.halves.min(2),
    };
    let ty = if r.halves == 1 { Type::I16 } else { Type::I32 };
    let mut m = MInstr::new(
        Op::Copy,
        ty,
        Some(r),
        [MSrc {
            op: MOperand::Reg(r),
            ty,
            neg: false,
            abs: false,
            release: false,
        }],
    );
    m.wait = 1 << (p.slot - 1);
    m
}

/// Hand-off of a pending result. A texture's four-register tuple is copied register by
/// register, each copy naming the slot (GravityLinux/mesa agx_apple9_ir.c materialises
/// texture results per component with slot-consuming copies; agx16-sim delivers only the
/// registers a consumer reads).
fn handoff(p: &Pending) -> Vec<MInstr> {
    if p.reg.halves > 2 && p.store_word.is_none() {
        (0..p.reg.halves / 2)
            .map(|k| handoff_one(p, p.reg.half + 2 * k as u16))
            .collect()
    } else {
        vec![handoff_one(p, p.reg.half)]
    }
}

fn flush(pending: &mut Vec<Pending>, out: &mut Vec<MItem>) {
    for p in pending.drain(..) {
        out.extend(handoff(&p).into_iter().map(MItem::Instr));
    }
}

pub fn assign_slots(p: &mut MProgram) {
    let mut out = Vec::with_capacity(p.items.len());
    let mut pending: Vec<Pending> = Vec::new();
    for it in std::mem::take(&mut p.items) {
        let MItem::Instr(mut i) = it else {
            // Hand-offs go before a compare that feeds this `if`, keeping the two adjacent.
            let fused = matches!(&it, MItem::If { .. })
                && matches!(out.last(), Some(MItem::Instr(c)) if c.feeds_branch_only);
            let cmp = if fused { out.pop() } else { None };
            flush(&mut pending, &mut out);
            out.extend(cmp);
            out.push(it);
            continue;
        };
        // Coverage reads and writes complete on slot 1 (GravityLinux/mesa treats both as
        // completion barriers: every pending producer is handed off before them).
        if matches!(i.op, Op::Coverage | Op::SampleMask { .. } | Op::DepthStore) {
            flush(&mut pending, &mut out);
        }
        if let Op::SampleMask { .. } | Op::DepthStore = i.op {
            i.produce_slot = 1;
        }
        // A pending store's word is not accessed again before the store completes.
        let word = match i.op {
            Op::Spill { slot } | Op::Fill { slot } => Some(slot),
            _ => None,
        };
        if word.is_some() {
            while let Some(k) = pending
                .iter()
                .position(|pd| pd.store_word.is_some() && pd.store_word == word)
            {
                let pd = pending.remove(k);
                out.extend(handoff(&pd).into_iter().map(MItem::Instr));
            }
        }
        // Which pending producers this instruction reads.
        let mut hits: Vec<usize> = pending
            .iter()
            .enumerate()
            .filter(|(_, pd)| i.src_regs().any(|r| r.overlaps(pd.reg)))
            .map(|(k, _)| k)
            .collect();
        // Stores consume directly only from slot 6; anything else is handed off first.
        let is_store = i.op.writes_memory();
        let store_data = if is_store {
            match i.srcs.get(1).map(|s| s.op) {
                Some(MOperand::Reg(r)) => Some(r),
                _ => None,
            }
        } else {
            None
        };
        // The consumer names one contiguous group of slots (measured: FALU2/FALU3 consuming
        // several pending loads/textures name the group's base, 6→1 wrapping); a store takes
        // only its data, directly, from a slot-6 load. Everything else is handed off first.
        let mut named: u8 = 0;
        let mut keep = Vec::new();
        for &k in &hits {
            let slot_bit = 1u8 << (pending[k].slot - 1);
            // Predicate compares, tile stores, unorm packs (two instructions), derivatives
            // (agx16-isa keeps their MASK_12_17 bits raw) and device loads have no scoreboard
            // field, the scratch forms get none named here; an export's wait (45..47/61..63) on a
            // pending source is not modelled (sim/GFX.md): their sources are handed off first.
            let no_wait_field = matches!(
                i.op,
                Op::ICmp { .. }
                    | Op::FCmp(_)
                    | Op::StoreOutput { .. }
                    | Op::SampleMask { .. }
                    | Op::DepthStore
                    | Op::StoreTile { .. }
                    | Op::PackUnorm4x8
                    | Op::Texture { .. }
                    | Op::Spill { .. }
                    | Op::Fill { .. }
                    | Op::LoadGlobal { .. }
                    | Op::Derivative { .. }
            );
            // A texture tuple is always handed off register by register (see `handoff`).
            let tuple = pending[k].reg.halves > 2;
            let ok = if no_wait_field || tuple || pending[k].store_word.is_some() {
                false
            } else if is_store {
                named == 0
                    && pending[k].slot == 6
                    && store_data.is_some_and(|r| r.overlaps(pending[k].reg))
            } else {
                crate::mir::group_base(named | slot_bit).is_some()
            };
            if ok {
                named |= slot_bit;
                keep.push(k);
            }
        }
        hits.retain(|k| !keep.contains(k));
        hits.sort_unstable_by(|a, b| b.cmp(a));
        for k in hits {
            let pd = pending.remove(k);
            out.extend(handoff(&pd).into_iter().map(MItem::Instr));
        }
        if named != 0 {
            i.wait = named;
            pending.retain(|pd| named >> (pd.slot - 1) & 1 == 0);
        }
        // A write over a pending tuple (cannot happen after allocation) is handed off first.
        if let Some(d) = i.dst {
            while let Some(k) = pending.iter().position(|pd| pd.reg.overlaps(d)) {
                let pd = pending.remove(k);
                out.extend(handoff(&pd).into_iter().map(MItem::Instr));
            }
        }
        // A vertex-output store is an export completing on a slot and a `vary_store` waiting on
        // it right after (isel/gfx.rs): any slot no pending producer holds.
        if let Op::StoreOutput { .. } = i.op {
            let free = POOL
                .iter()
                .copied()
                .find(|s| !pending.iter().any(|pd| pd.slot == *s));
            i.produce_slot = match free {
                Some(s) => s,
                None => {
                    let pd = pending.remove(0);
                    out.extend(handoff(&pd).into_iter().map(MItem::Instr));
                    pd.slot
                }
            };
        }
        let spill = matches!(i.op, Op::Spill { .. });
        if i.op.is_async() || spill {
            let free = POOL
                .iter()
                .copied()
                .find(|s| !pending.iter().any(|pd| pd.slot == *s));
            let slot = match free {
                _ if i.op == Op::Coverage => 1,
                Some(s) => s,
                None => {
                    let pd = pending.remove(0);
                    out.extend(handoff(&pd).into_iter().map(MItem::Instr));
                    pd.slot
                }
            };
            i.produce_slot = slot;
            let (reg, store_word) = match (i.op, i.srcs.first().map(|s| s.op)) {
                (Op::Spill { slot: w }, Some(MOperand::Reg(r))) => (r, Some(w)),
                _ => (i.dst.expect("asynchronous ops have a destination"), None),
            };
            pending.push(Pending {
                slot,
                reg,
                store_word,
            });
        }
        out.push(MItem::Instr(i));
    }
    flush(&mut pending, &mut out);
    p.items = out;
    p.stats.scoreboard_waits = p
        .items
        .iter()
        .filter(|it| matches!(it, MItem::Instr(i) if i.wait != 0))
        .count() as u32;
}

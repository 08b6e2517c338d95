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
//!
//! Texture coordinate tuples (GravityLinux/mesa README.apple9-ir.md: "borrowed
//! texture-parameter inputs remain live until completion"; its physical scheduler keeps the
//! coordinate-publication hazards and "publication storage ... can still require earlier
//! handoffs"; validated by that driver's GLES runs on T8132): a texture op reads its
//! coordinates from a publication tuple until it completes, so a tuple may be written again
//! only after the op that read it has been handed off (a wait naming its slot). Each texture
//! op gets the lowest tuple no pending texture op holds; since at most six ops are pending
//! (six slots) and there are eight tuples, one is always free, and a program may contain any
//! number of texture ops. Should none be free, the oldest holder is handed off first.

use crate::ir::{Op, Type};
use crate::mir::{MInstr, MItem, MOperand, MProgram, MSrc, Reg};

/// Allocation order of the shared pool.
const POOL: [u8; 6] = [6, 1, 2, 3, 4, 5];

/// Coordinate publication tuples (bases 0, 4, .., 28: the T8132 packer's four-word tuples,
/// GravityLinux/mesa agx_apple9_ir.c; the coverage-write words start at 32, isel/gfx.rs).
pub const TUPLES: u8 = 8;

struct Pending {
    slot: u8,
    reg: Reg,
    /// A spill store's scratch word (its `reg` is the released source).
    store_word: Option<u32>,
    /// A texture op's coordinate publication tuple, borrowed until the op is handed off.
    tuple: Option<u8>,
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

/// The lowest coordinate tuple no pending texture op borrows; with none free, the oldest
/// borrower is handed off (its completion wait then precedes the tuple's next write).
fn free_tuple(pending: &mut Vec<Pending>, out: &mut Vec<MItem>) -> u8 {
    let held = |pending: &[Pending], t: u8| pending.iter().any(|pd| pd.tuple == Some(t));
    if let Some(t) = (0..TUPLES).find(|&t| !held(pending, t)) {
        return t;
    }
    let k = pending
        .iter()
        .position(|pd| pd.tuple.is_some())
        .expect("every tuple is held by a pending texture op");
    let pd = pending.remove(k);
    out.extend(handoff(&pd).into_iter().map(MItem::Instr));
    pd.tuple.expect("a texture op")
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
            let tuple = if let Op::Texture { .. } = i.op {
                i.tuple = free_tuple(&mut pending, &mut out);
                Some(i.tuple)
            } else {
                None
            };
            pending.push(Pending {
                slot,
                reg,
                store_word,
                tuple,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{TexDim, TexKind};

    fn reg(gpr: u16, n: u8) -> Reg {
        Reg {
            half: 2 * gpr,
            halves: 2 * n,
        }
    }

    fn src(r: Reg) -> MSrc {
        MSrc {
            op: MOperand::Reg(r),
            ty: Type::F32,
            neg: false,
            abs: false,
            release: false,
        }
    }

    fn texture(dst: u16) -> MItem {
        let op = Op::Texture {
            texture: 0,
            sampler: 0,
            kind: TexKind::Sample,
            dim: TexDim::D2,
        };
        MItem::Instr(MInstr::new(
            op,
            Type::F32,
            Some(reg(dst, 4)),
            [src(reg(0, 1)), src(reg(1, 1))],
        ))
    }

    fn read(r: u16) -> MItem {
        MItem::Instr(MInstr::new(
            Op::FAdd,
            Type::F32,
            Some(reg(90, 1)),
            [src(reg(r, 1)), src(reg(r, 1))],
        ))
    }

    /// Texture ops in program order with their tuples, and the slots waited on before each.
    fn tuples(items: &[MItem]) -> Vec<(u8, u8)> {
        let mut waited = 0u8;
        let mut out = Vec::new();
        for it in items {
            if let MItem::Instr(i) = it {
                if let Op::Texture { .. } = i.op {
                    out.push((i.tuple, waited));
                    waited = 0;
                } else {
                    waited |= i.wait;
                }
            }
        }
        out
    }

    #[test]
    fn a_completed_texture_op_frees_its_tuple_and_one_in_flight_does_not() {
        // Three lookups in flight, the first read (completed), then two more.
        let mut p = MProgram {
            items: vec![
                texture(4),
                texture(8),
                texture(12),
                read(4),
                texture(16),
                texture(20),
            ],
            ..Default::default()
        };
        assign_slots(&mut p);
        let t: Vec<u8> = tuples(&p.items).iter().map(|x| x.0).collect();
        assert_eq!(t, [0, 1, 2, 0, 3], "{p}");
        assert_eq!(p.texture_tuples(), 4);
    }

    #[test]
    fn any_number_of_texture_ops_get_tuples_free_of_ops_in_flight() {
        // Twenty lookups with no reads in between: the slots run out first, so each op
        // beyond the sixth hands the oldest off, whose tuple is then free.
        let mut p = MProgram {
            items: (0..20).map(|k| texture(4 * (k % 6) + 4)).collect(),
            ..Default::default()
        };
        // Destinations repeat every six ops: a write over a pending tuple is handed off first.
        assign_slots(&mut p);
        let mut held: Vec<(u8, u8)> = Vec::new(); // (tuple, slot) of ops in flight
        for it in &p.items {
            let MItem::Instr(i) = it else { continue };
            held.retain(|&(_, s)| i.wait >> (s - 1) & 1 == 0);
            if let Op::Texture { .. } = i.op {
                assert!(
                    held.iter().all(|&(t, _)| t != i.tuple),
                    "tuple {} reused while in flight:\n{p}",
                    i.tuple
                );
                held.push((i.tuple, i.produce_slot));
            }
        }
        assert!(p.texture_tuples() <= 6, "{p}");
    }

    #[test]
    fn with_every_tuple_held_the_oldest_holder_is_handed_off() {
        let mut pending: Vec<Pending> = (0..TUPLES)
            .map(|t| Pending {
                slot: 1 + t % 6,
                reg: reg(4 * t as u16, 4),
                store_word: None,
                tuple: Some(t),
            })
            .collect();
        let mut out = Vec::new();
        assert_eq!(free_tuple(&mut pending, &mut out), 0);
        assert_eq!(pending.len(), TUPLES as usize - 1);
        assert!(
            matches!(&out[..], [MItem::Instr(c), ..] if c.wait == 1),
            "the hand-off waits on slot 1: {out:?}"
        );
    }
}

//! Spilling: where pressure exceeds the budget, choose values live through the point,
//! cheapest first, and spill them everywhere (store after the definition, reload before each
//! use into a fresh short-lived value); a round chooses all its values in one walk from one
//! liveness computation. Each round spills values not spilled before, so this terminates.

use super::liveness::Liveness;
use crate::error::CompileError;
use crate::ir::print::instr_to_string;
use crate::ir::{CfNode, Cfg, Function, Instr, Op, Operand, Src, Value};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpillStats {
    pub spills: u32,
    pub fills: u32,
    pub slots: u32,
}

fn set_cond(ns: &mut [CfNode], from: Value, to: Value, after_block: usize) {
    for k in 0..ns.len() {
        let prev_is = matches!(k.checked_sub(1).map(|p| &ns[p]), Some(CfNode::Block(b)) if b.0 as usize == after_block);
        match &mut ns[k] {
            CfNode::If {
                cond,
                then_body,
                else_body,
            } => {
                if prev_is && *cond == from {
                    *cond = to;
                }
                set_cond(then_body, from, to, after_block);
                set_cond(else_body, from, to, after_block);
            }
            CfNode::Loop { body } => set_cond(body, from, to, after_block),
            CfNode::Block(_) => {}
        }
    }
}

/// A phi kept in memory: its block, its value, its sources with their predecessors.
type MemoryPhi = (usize, Value, Vec<(Src, crate::ir::BlockId)>);

/// Whether a spilled phi of block `b` can live in memory only: every predecessor of `b` has `b`
/// as its only successor, so a store at a predecessor's end is seen by `b` alone (structured
/// NIR-shaped control flow: a loop's preheader and latch, the two arms of an `if`).
fn memory_phi_block(cfg: &Cfg, b: usize) -> bool {
    let preds = cfg.preds(crate::ir::BlockId(b as u32));
    !preds.is_empty() && preds.iter().all(|p| cfg.succs(*p).len() == 1)
}

/// Spill each value of `slot_of` (value -> its slot) everywhere, all in one pass over the
/// program: a store after the definition, a reload into a fresh value before each instruction
/// reading it (one per instruction), and one reload at the end of a predecessor block for its
/// phi sources and its branch condition.
///
/// A spilled phi becomes a *memory phi* where its block allows it (`memory_phi_block`): the phi
/// is removed and each predecessor stores its source into the phi's slot at its end (after the
/// reloads there, so every source is read before any slot is overwritten), so the phi never
/// occupies a register — a loop header with more live phis than registers (large local arrays
/// lowered to SSA values) fits. Elsewhere the phi stays and is stored after the phi group.
fn spill_values(
    f: &mut Function,
    cfg: &Cfg,
    lv: &Liveness,
    slot_of: &[Option<u32>],
    stats: &mut SpillStats,
) {
    let slots = coalesce_memory_phis(f, cfg, lv, slot_of);
    let slot = |v: Value| slots.get(v.0 as usize).copied().flatten();
    let mut mem_phis: Vec<MemoryPhi> = Vec::new();
    let mut fill = |f: &mut Function, v: Value, s: u32| {
        stats.fills += 1;
        let n = f.new_value(f.shape(v));
        (n, Instr::new(Op::Fill { slot: s }, Some(n), []))
    };
    let mut spilled: Vec<Value> = Vec::new();
    for bi in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[bi].instrs);
        let mut out = Vec::with_capacity(old.len() + 2);
        let n_phis = old.iter().take_while(|i| i.op == Op::Phi).count();
        let mut phi_spills = Vec::new();
        for (ii, mut i) in old.into_iter().enumerate() {
            if ii == n_phis {
                out.append(&mut phi_spills);
            }
            if let (true, Some(d)) = (is_memory_phi(cfg, bi, &i, slot_of), i.dst) {
                stats.spills += 1;
                spilled.push(d);
                let srcs = i.srcs.iter().copied().zip(i.phi_preds.iter().copied());
                mem_phis.push((bi, d, srcs.collect()));
                continue;
            }
            if i.op != Op::Phi {
                // One reload per spilled value the instruction reads, in source order.
                for k in 0..i.srcs.len() {
                    let Some(v) = i.srcs[k].value() else { continue };
                    let Some(s) = slot(v) else { continue };
                    let (n, fi) = fill(f, v, s);
                    out.push(fi);
                    for src in &mut i.srcs[k..] {
                        if let Operand::Value { v: sv, .. } = &mut src.op {
                            if *sv == v {
                                *sv = n;
                            }
                        }
                    }
                }
            }
            let def = i.dst.and_then(|d| slot(d).map(|s| (d, s)));
            let is_phi = i.op == Op::Phi;
            out.push(i);
            if let Some((d, s)) = def {
                stats.spills += 1;
                spilled.push(d);
                let sp = Instr::new(Op::Spill { slot: s }, None, [Src::val(d)]);
                // A phi's store goes after the whole phi group.
                if is_phi {
                    phi_spills.push(sp);
                } else {
                    out.push(sp);
                }
            }
        }
        out.append(&mut phi_spills);
        f.blocks[bi].instrs = out;
    }
    // Phi sources and branch conditions read a value at the end of a predecessor block.
    // Per predecessor, the spilled values its successors' phis read there, in first-read order.
    let mut at_end: Vec<Vec<Value>> = vec![Vec::new(); f.blocks.len()];
    for b in &f.blocks {
        for i in b.instrs.iter().take_while(|i| i.op == Op::Phi) {
            for (src, p) in i.srcs.iter().zip(&i.phi_preds) {
                if let Some(v) = src.value().filter(|v| slot(*v).is_some()) {
                    let list = &mut at_end[p.0 as usize];
                    if !list.contains(&v) {
                        list.push(v);
                    }
                }
            }
        }
    }
    for (bi, list) in at_end.iter_mut().enumerate() {
        if let Some(c) = lv.branch_cond[bi].filter(|c| slot(*c).is_some()) {
            if !list.contains(&c) {
                list.push(c);
            }
        }
    }
    for (bi, list) in at_end.into_iter().enumerate() {
        for v in list {
            let (n, fi) = fill(f, v, slot(v).unwrap());
            let blk = &mut f.blocks[bi].instrs;
            let at = blk.len() - blk.last().is_some_and(|i| i.op.is_terminator()) as usize;
            blk.insert(at, fi);
            for b in &mut f.blocks {
                for i in b.instrs.iter_mut().take_while(|i| i.op == Op::Phi) {
                    for (s, p) in i.srcs.iter_mut().zip(i.phi_preds.iter()) {
                        if p.0 as usize == bi && s.value() == Some(v) {
                            if let Operand::Value { v: sv, .. } = &mut s.op {
                                *sv = n;
                            }
                        }
                    }
                }
            }
            if lv.branch_cond[bi] == Some(v) {
                set_cond(&mut f.body, v, n, bi);
            }
        }
    }
    store_memory_phis(f, lv, &slot, &mem_phis, stats);
}

/// Whether the phi `i` of block `bi` is kept in memory by this round (`spill_values`).
fn is_memory_phi(cfg: &Cfg, bi: usize, i: &Instr, slot_of: &[Option<u32>]) -> bool {
    i.op == Op::Phi
        && memory_phi_block(cfg, bi)
        && i.dst.is_some_and(|d| slot_of[d.0 as usize].is_some())
        && i.srcs.iter().all(|s| !s.neg && !s.abs)
}

/// Slots of this round with memory phis coalesced: a memory phi shares its slot with a memory
/// phi it reads when no member of one's class is live where a member of the other is defined
/// (phis are defined at their block's entry, so: not live into the other's block, and never two
/// phis of one block). The store on such an edge then disappears: a loop-carried array element
/// (the header's phi, the phis where the body's `if` ladders rejoin) stays in one slot and only
/// the edge that changes it stores. Classes stay small (`MAX_CLASS`) to bound the checks.
fn coalesce_memory_phis(
    f: &Function,
    cfg: &Cfg,
    lv: &Liveness,
    slot_of: &[Option<u32>],
) -> Vec<Option<u32>> {
    const MAX_CLASS: usize = 64;
    let mut slots = slot_of.to_vec();
    let mut block_of: HashMap<Value, usize> = HashMap::new();
    let mut edges: Vec<(Value, Value)> = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in b.instrs.iter().take_while(|i| i.op == Op::Phi) {
            if is_memory_phi(cfg, bi, i, slot_of) {
                let d = i.dst.unwrap();
                block_of.insert(d, bi);
                // Only a whole value of the phi's own shape can share its slot.
                edges.extend(i.srcs.iter().filter_map(|s| match s.op {
                    Operand::Value { v, comp: 0 } if f.shape(v) == f.shape(d) => Some((d, v)),
                    _ => None,
                }));
            }
        }
    }
    let mut root: HashMap<Value, Value> = block_of.keys().map(|v| (*v, *v)).collect();
    let mut members: HashMap<Value, Vec<Value>> = block_of.keys().map(|v| (*v, vec![*v])).collect();
    for (d, v) in edges {
        if !block_of.contains_key(&v) {
            continue;
        }
        let (rd, rv) = (root[&d], root[&v]);
        if rd == rv || members[&rd].len() + members[&rv].len() > MAX_CLASS {
            continue;
        }
        let interfere = members[&rd].iter().any(|a| {
            members[&rv].iter().any(|b| {
                let (ba, bb) = (block_of[a], block_of[b]);
                ba == bb || lv.live_in[bb].contains(*a) || lv.live_in[ba].contains(*b)
            })
        });
        if interfere {
            continue;
        }
        let moved = members.remove(&rv).unwrap();
        for m in &moved {
            root.insert(*m, rd);
        }
        members.get_mut(&rd).unwrap().extend(moved);
    }
    for (r, ms) in &members {
        for m in ms {
            slots[m.0 as usize] = slot_of[r.0 as usize];
        }
    }
    slots
}

/// The predecessor-end stores of the memory phis (`spill_values`), after every reload already
/// placed at those ends. They form a parallel copy between slots: a store whose source lives
/// in a slot another store of the edge writes goes after it has been read (a rotation of array
/// elements through a loop must not see a slot already overwritten); a cycle is broken by
/// reloading one slot into a register first. A source still needed after the store (live into
/// the block, or read by another phi there), an immediate, a uniform or one component of a
/// tuple is copied first, because the store releases the register it reads. A store whose
/// source is in the phi's own slot (the phi itself, or a coalesced phi) disappears.
fn store_memory_phis(
    f: &mut Function,
    lv: &Liveness,
    slot: &dyn Fn(Value) -> Option<u32>,
    mem_phis: &[MemoryPhi],
    stats: &mut SpillStats,
) {
    let mut preds: Vec<usize> = mem_phis
        .iter()
        .flat_map(|(_, _, srcs)| srcs.iter().map(|(_, p)| p.0 as usize))
        .collect();
    preds.sort_unstable();
    preds.dedup();
    for p in preds {
        // (phi, its source on this edge, the slot it writes, the slot its source is in)
        let here: Vec<(Value, Src, u32, Option<u32>)> = mem_phis
            .iter()
            .filter_map(|(_, d, srcs)| {
                let (s, _) = srcs.iter().find(|(_, q)| q.0 as usize == p)?;
                let from = s.value().and_then(slot);
                let to = slot(*d).unwrap();
                (from != Some(to)).then_some((*d, *s, to, from))
            })
            .collect();
        if here.is_empty() {
            continue;
        }
        let succ = mem_phis
            .iter()
            .find(|(_, _, srcs)| srcs.iter().any(|(_, q)| q.0 as usize == p))
            .unwrap()
            .0;
        // How often each value is read on this edge: by the memory phis and the phis left.
        let mut reads: HashMap<Value, u32> = HashMap::new();
        for (_, s, _, _) in &here {
            if let Some(v) = s.value() {
                *reads.entry(v).or_default() += 1;
            }
        }
        for i in f.blocks[succ].instrs.iter().take_while(|i| i.op == Op::Phi) {
            for (s, q) in i.srcs.iter().zip(&i.phi_preds) {
                if let Some(v) = s.value().filter(|_| q.0 as usize == p) {
                    *reads.entry(v).or_default() += 1;
                }
            }
        }
        // Order: stores reading registers first, then slot-to-slot stores, each once no
        // pending store reads the slot it writes.
        let written: Vec<u32> = here.iter().map(|e| e.2).collect();
        let (mut pending, mut order): (Vec<usize>, Vec<usize>) =
            (0..here.len()).partition(|&k| here[k].3.is_some_and(|s| written.contains(&s)));
        let mut reloaded: HashMap<u32, Value> = HashMap::new();
        let mut reload_before: Vec<(usize, u32)> = Vec::new();
        while !pending.is_empty() {
            let blocked = |k: usize| {
                let to = here[k].2;
                !reloaded.contains_key(&to)
                    && pending.iter().any(|&o| o != k && here[o].3 == Some(to))
            };
            let at = match pending.iter().position(|&k| !blocked(k)) {
                Some(at) => at,
                None => {
                    // A cycle: hold the first store's target slot in a register.
                    let to = here[pending[0]].2;
                    let n = f.new_value(f.shape(here[pending[0]].0));
                    reloaded.insert(to, n);
                    reload_before.push((order.len(), to));
                    0
                }
            };
            order.push(pending.remove(at));
        }
        let mut seq: Vec<Instr> = Vec::new();
        let mut reload_before = reload_before.into_iter().peekable();
        for (pos, &k) in order.iter().enumerate() {
            while let Some((_, to)) = reload_before.next_if(|(at, _)| *at == pos) {
                stats.fills += 1;
                seq.push(Instr::new(Op::Fill { slot: to }, Some(reloaded[&to]), []));
            }
            let (d, s, to, from) = here[k];
            let shape = f.shape(d);
            // A component or a value of another shape, an immediate, a uniform: copied.
            let copy = |f: &mut Function, seq: &mut Vec<Instr>, src: Src| {
                let c = f.new_value(shape);
                seq.push(Instr::new(Op::Copy, Some(c), [src]));
                c
            };
            let stored = match (s.op, from) {
                (Operand::Value { comp, .. }, Some(from)) => {
                    let n = match reloaded.get(&from) {
                        // The reload may feed several stores: always copied.
                        Some(&n) => {
                            let mut src = s;
                            src.op = Operand::Value { v: n, comp };
                            copy(f, &mut seq, src)
                        }
                        None => {
                            let v = s.value().unwrap();
                            let n = f.new_value(f.shape(v));
                            stats.fills += 1;
                            seq.push(Instr::new(Op::Fill { slot: from }, Some(n), []));
                            if comp == 0 && f.shape(v) == shape {
                                n
                            } else {
                                let mut src = s;
                                src.op = Operand::Value { v: n, comp };
                                copy(f, &mut seq, src)
                            }
                        }
                    };
                    n
                }
                (Operand::Value { v, comp: 0 }, None)
                    if f.shape(v) == shape
                        && reads.get(&v) == Some(&1)
                        && !lv.live_in[succ].contains(v) =>
                {
                    v
                }
                _ => copy(f, &mut seq, s),
            };
            seq.push(Instr::new(Op::Spill { slot: to }, None, [Src::val(stored)]));
        }
        let blk = &mut f.blocks[p].instrs;
        let at = blk.len() - blk.last().is_some_and(|i| i.op.is_terminator()) as usize;
        blk.splice(at..at, seq);
    }
}

/// One round's choice: walks the blocks in program order keeping the values live at each
/// instruction (those already chosen count as spilled: only their reloads occupy registers,
/// next to their readers), and where the pressure exceeds the budget takes values live
/// through the instruction, cheapest first (uses weighted by loop depth, per half and per
/// instruction of the live range; the earliest defined among equals), until it fits. The candidates live in an ordered set
/// updated at each definition and death, so a round is O(n log n) in the program size
/// whatever the pressure. Returns how many values it chose (their slots in `slot_of`).
#[allow(clippy::too_many_arguments)]
fn choose(
    f: &Function,
    cfg: &Cfg,
    lv: &Liveness,
    budget: u32,
    whole_gprs_only: bool,
    unspillable: &[bool],
    slot_of: &mut [Option<u32>],
    next_slot: &mut u32,
) -> Result<u32, CompileError> {
    let halves = |v: Value| f.shape(v).halves();
    let mut cost = vec![0u64; f.shapes.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        let w = 8u64.pow(cfg.loop_depth[bi].min(6));
        for i in &b.instrs {
            for s in i.src_values() {
                cost[s.0 as usize] += w;
            }
            if let Some(d) = i.dst {
                cost[d.0 as usize] += w;
            }
        }
    }
    // Instructions each value is live across (its live range's length).
    let mut len = vec![0u64; f.shapes.len()];
    let mut end = vec![u32::MAX; f.shapes.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        let n = b.instrs.len() as u32;
        let mut seen: Vec<Value> = Vec::new();
        let live_end = |v: Value, at: u32, end: &mut [u32], seen: &mut Vec<Value>| {
            if end[v.0 as usize] == u32::MAX {
                end[v.0 as usize] = at;
                seen.push(v);
            }
        };
        for v in lv.live_out[bi].iter() {
            live_end(v, n, &mut end, &mut seen);
        }
        if let Some(c) = lv.branch_cond[bi] {
            live_end(c, n, &mut end, &mut seen);
        }
        for (k, i) in b.instrs.iter().enumerate().rev() {
            if let Some(d) = i.dst {
                let e = std::mem::replace(&mut end[d.0 as usize], u32::MAX);
                if e != u32::MAX {
                    len[d.0 as usize] += (e - k as u32) as u64;
                }
            }
            if i.op != Op::Phi {
                for v in i.src_values() {
                    live_end(v, k as u32, &mut end, &mut seen);
                }
            }
        }
        // Live into the block: from its start.
        for v in seen {
            let e = std::mem::replace(&mut end[v.0 as usize], u32::MAX);
            if e != u32::MAX {
                len[v.0 as usize] += e as u64;
            }
        }
    }
    // Cheapest first: weighted uses per half, over the length it frees registers for (a
    // value live across much of the program goes before a short temporary of similar cost).
    let key = |v: Value| {
        (
            (cost[v.0 as usize] << 20) * 8 / (halves(v).max(1) as u64 * (len[v.0 as usize] + 1)),
            v.0,
        )
    };
    let spillable =
        |v: Value| !unspillable[v.0 as usize] && (!whole_gprs_only || halves(v).is_multiple_of(2));
    let mut chosen = 0;
    let mut srcs: Vec<Value> = Vec::new();
    // Per instruction of the block: its distinct sources that are not live after it.
    let mut dying: Vec<Vec<Value>> = Vec::new();
    let mut dst_live: Vec<bool> = Vec::new();
    for b in f.block_order() {
        let bi = b.0 as usize;
        let instrs = &f.blocks[bi].instrs;
        let mut live = lv.live_out[bi].clone();
        if let Some(c) = lv.branch_cond[bi] {
            live.insert(c);
        }
        dying.clear();
        dying.resize(instrs.len(), Vec::new());
        dst_live.clear();
        dst_live.resize(instrs.len(), false);
        for (k, i) in instrs.iter().enumerate().rev() {
            if let Some(d) = i.dst {
                dst_live[k] = live.contains(d);
                live.remove(d);
            }
            if i.op != Op::Phi {
                for v in i.src_values() {
                    if live.insert(v) {
                        dying[k].push(v);
                    }
                }
            }
        }
        // Forward: the live values not chosen, their size, and the spillable ones by cost.
        let mut live = lv.live_in[bi].clone();
        let mut size = 0u32;
        let mut cands = std::collections::BTreeSet::new();
        for v in live.iter() {
            if slot_of[v.0 as usize].is_none() {
                size += halves(v);
                if spillable(v) {
                    cands.insert(key(v));
                }
            }
        }
        for (k, i) in instrs.iter().enumerate() {
            srcs.clear();
            if i.op != Op::Phi {
                srcs.extend(i.src_values());
                srcs.sort_unstable();
                srcs.dedup();
            }
            // Sources occupy registers here whether chosen (a reload) or not; chosen ones
            // die here (the reload is read once).
            let src_size: u32 = srcs.iter().map(|v| halves(*v)).sum();
            let unchosen_srcs: u32 = srcs
                .iter()
                .filter(|v| slot_of[v.0 as usize].is_none())
                .map(|v| halves(*v))
                .sum();
            let surviving: u32 = srcs
                .iter()
                .filter(|v| slot_of[v.0 as usize].is_none() && !dying[k].contains(v))
                .map(|v| halves(*v))
                .sum();
            let dst_sz = i.dst.map(halves).unwrap_or(0);
            let srcs_here = if i.op.dst_avoids_dying_sources() {
                src_size
            } else {
                surviving
            };
            let pressure = |size: u32| size - unchosen_srcs + srcs_here + dst_sz;
            if pressure(size) > budget {
                while pressure(size) > budget {
                    let Some(&(c, v)) = cands.iter().find(|(_, v)| !srcs.contains(&Value(*v)))
                    else {
                        return Err(CompileError::RegAlloc {
                            instr: instr_to_string(f, i),
                            why: format!(
                                "{} halves needed, {budget} available, nothing left to spill",
                                pressure(size)
                            ),
                        });
                    };
                    let v = Value(v);
                    cands.remove(&(c, v.0));
                    slot_of[v.0 as usize] = Some(*next_slot);
                    *next_slot += 1;
                    chosen += 1;
                    size -= halves(v);
                }
            }
            // After the instruction: dying sources leave, the destination arrives.
            for v in &dying[k] {
                live.remove(*v);
                if slot_of[v.0 as usize].is_none() {
                    size -= halves(*v);
                    cands.remove(&key(*v));
                }
            }
            if let Some(d) = i
                .dst
                .filter(|d| dst_live[k] && slot_of[d.0 as usize].is_none())
            {
                live.insert(d);
                size += dst_sz;
                if spillable(d) {
                    cands.insert(key(d));
                }
            }
        }
    }
    Ok(chosen)
}

/// A phi that could live in memory (`memory_phi_block`) and reads another phi spilled this
/// round is spilled too, to a fixed point (a loop-carried array element: the header's phi, the
/// phis where the body's `if` ladders rejoin). Kept in a register it would need each such
/// source reloaded at its predecessor's end, all at once: a loop header with more phis than
/// registers, whose sources are phis of the loop body spilled in the same round, would then run
/// out of registers at the latch with nothing but reloads live there. As a memory phi its
/// source is stored into the phi's slot with one reload live at a time.
fn spill_phis_of_spilled(
    f: &Function,
    cfg: &Cfg,
    whole_gprs_only: bool,
    unspillable: &[bool],
    slot_of: &mut [Option<u32>],
    next_slot: &mut u32,
) {
    let mut is_phi = vec![false; f.shapes.len()];
    for b in &f.blocks {
        for i in b.instrs.iter().take_while(|i| i.op == Op::Phi) {
            is_phi[i.dst.unwrap().0 as usize] = true;
        }
    }
    let phis: Vec<&Instr> = f
        .blocks
        .iter()
        .enumerate()
        .filter(|(bi, _)| memory_phi_block(cfg, *bi))
        .flat_map(|(_, b)| b.instrs.iter().take_while(|i| i.op == Op::Phi))
        .filter(|i| i.srcs.iter().all(|s| !s.neg && !s.abs))
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for i in &phis {
            let d = i.dst.unwrap();
            if slot_of[d.0 as usize].is_some()
                || unspillable[d.0 as usize]
                || (whole_gprs_only && !f.shape(d).halves().is_multiple_of(2))
            {
                continue;
            }
            if i.src_values()
                .any(|v| is_phi[v.0 as usize] && slot_of[v.0 as usize].is_some())
            {
                slot_of[d.0 as usize] = Some(*next_slot);
                *next_slot += 1;
                changed = true;
            }
        }
    }
}

/// Spill until every point's pressure fits `budget_halves`.
/// With `whole_gprs_only`, values with an odd number of halves (16-bit scalars and tuples)
/// are never chosen (the target's scratch accesses move whole 32-bit registers).
///
/// Each round computes liveness once and chooses every value it spills in one walk over the
/// program (`choose`). Spilling every chosen value in one pass leaves over budget only the
/// reloads it adds at block ends and next to readers whose other sources die there, which
/// the next round handles; two or three rounds suffice.
///
/// A value is spilled once: spilling it again adds code and frees nothing (a phi's store
/// follows the whole phi group, so the phi stays live there), and reloads are already as
/// short as they get. Values `f` already spills or reloads are never chosen, so this can run
/// again on its own output with a smaller budget (slots then continue from `first_slot`).
pub fn spill_to_fit(
    f: &mut Function,
    budget_halves: u32,
    first_slot: u32,
    whole_gprs_only: bool,
) -> Result<SpillStats, CompileError> {
    let mut stats = SpillStats {
        slots: first_slot,
        ..Default::default()
    };
    // Values already spilled: reloads, and values stored right after their definition (after
    // the phi group for a phi). A memory phi's store at a predecessor's end reads an ordinary
    // value, which stays spillable (spilling it turns that store's source into a reload).
    let mut unspillable = vec![false; f.shapes.len()];
    for b in &f.blocks {
        let mut recent: Vec<Value> = Vec::new();
        for i in &b.instrs {
            match i.op {
                Op::Fill { .. } => {
                    i.dst.iter().for_each(|d| unspillable[d.0 as usize] = true);
                    recent.clear();
                    recent.extend(i.dst);
                }
                Op::Spill { .. } => i
                    .src_values()
                    .filter(|v| recent.contains(v))
                    .for_each(|v| unspillable[v.0 as usize] = true),
                Op::Phi => recent.extend(i.dst),
                _ => {
                    recent.clear();
                    recent.extend(i.dst);
                }
            }
        }
    }
    // Each round spills at least one value not spilled before, so this bounds the rounds.
    for _round in 0..10_000 {
        let cfg = Cfg::build(f);
        let lv = Liveness::compute(f, &cfg);
        unspillable.resize(f.shapes.len(), false);
        let mut slot_of: Vec<Option<u32>> = vec![None; f.shapes.len()];
        let chosen = choose(
            f,
            &cfg,
            &lv,
            budget_halves,
            whole_gprs_only,
            &unspillable,
            &mut slot_of,
            &mut stats.slots,
        )?;
        if chosen == 0 {
            return Ok(stats);
        }
        spill_phis_of_spilled(
            f,
            &cfg,
            whole_gprs_only,
            &unspillable,
            &mut slot_of,
            &mut stats.slots,
        );
        spill_values(f, &cfg, &lv, &slot_of, &mut stats);
        for (v, s) in slot_of.iter().enumerate() {
            if s.is_some() {
                unspillable[v] = true;
            }
        }
        unspillable.resize(f.shapes.len(), true);
    }
    Err(CompileError::Internal("spilling did not converge".into()))
}

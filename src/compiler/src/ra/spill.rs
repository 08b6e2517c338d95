//! Spilling: while pressure exceeds the budget, choose values live through the points over
//! budget, cheapest first, and spill them everywhere (store after the definition, reload before
//! each use into a fresh short-lived value), all the choices of a round from one liveness and
//! pressure computation. Each round spills values not spilled before, so this terminates.

use super::liveness::Liveness;
use super::pressure::{scan_with_through, PointInfo};
use crate::error::CompileError;
use crate::ir::print::instr_to_string;
use crate::ir::{CfNode, Cfg, Function, Instr, Op, Operand, Src, Value};

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

/// Spill each value of `slot_of` (value -> its slot) everywhere, all in one pass over the
/// program: a store after the definition (after the whole phi group for a phi), a reload into
/// a fresh value before each instruction reading it (one per instruction), and one reload at
/// the end of a predecessor block for its phi sources and its branch condition.
fn spill_values(f: &mut Function, lv: &Liveness, slot_of: &[Option<u32>], stats: &mut SpillStats) {
    let slot = |v: Value| slot_of.get(v.0 as usize).copied().flatten();
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
}

/// Spill until every point's pressure fits `budget_halves`.
/// With `whole_gprs_only`, values with an odd number of halves (16-bit scalars and tuples)
/// are never chosen (the target's scratch accesses move whole 32-bit registers).
///
/// Each round computes liveness and pressure once and chooses every value it spills from
/// them: the points over budget are visited worst first, and at each, values live through it
/// are taken cheapest first (uses weighted by loop depth, per half) until the point fits,
/// counting the ones an earlier point already took. Spilling every chosen value in one pass
/// leaves over budget only the reloads it adds (a reload is live next to its reader's other
/// sources), which the next round handles; a handful of rounds suffice.
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
    let mut unspillable = vec![false; f.shapes.len()];
    for b in &f.blocks {
        for i in &b.instrs {
            match i.op {
                Op::Fill { .. } => i.dst.iter().for_each(|d| unspillable[d.0 as usize] = true),
                Op::Spill { .. } => i
                    .src_values()
                    .for_each(|v| unspillable[v.0 as usize] = true),
                _ => {}
            }
        }
    }
    // Each round spills at least one value not spilled before, so this bounds the rounds.
    for _round in 0..10_000 {
        let cfg = Cfg::build(f);
        let lv = Liveness::compute(f, &cfg);
        let points = scan_with_through(f, &lv, budget_halves);
        let mut over: Vec<&PointInfo> = points
            .iter()
            .filter(|p| p.pressure > budget_halves)
            .collect();
        if over.is_empty() {
            return Ok(stats);
        }
        // Worst first.
        over.sort_by_key(|p| std::cmp::Reverse(p.pressure));
        unspillable.resize(f.shapes.len(), false);
        // Cost: uses weighted by loop depth; cheaper and bigger values go first.
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
        let key = |v: Value| {
            (
                cost[v.0 as usize] * 8 / f.shape(v).halves().max(1) as u64,
                v.0,
            )
        };
        let mut slot_of: Vec<Option<u32>> = vec![None; f.shapes.len()];
        let mut cands: Vec<Value> = Vec::new();
        for p in over {
            let freed: u32 = p
                .through
                .iter()
                .filter(|v| slot_of[v.0 as usize].is_some())
                .map(|v| f.shape(*v).halves())
                .sum();
            let mut excess = p.pressure.saturating_sub(budget_halves + freed);
            if excess == 0 {
                continue;
            }
            cands.clear();
            cands.extend(p.through.iter().copied().filter(|v| {
                slot_of[v.0 as usize].is_none()
                    && !unspillable[v.0 as usize]
                    && (!whole_gprs_only || f.shape(*v).halves().is_multiple_of(2))
            }));
            cands.sort_unstable_by_key(|v| key(*v));
            for &v in &cands {
                if excess == 0 {
                    break;
                }
                slot_of[v.0 as usize] = Some(stats.slots);
                stats.slots += 1;
                excess = excess.saturating_sub(f.shape(v).halves());
            }
            if excess > 0 {
                // Spilling only frees the values live through a point, and all of these are
                // taken or cannot be spilled: no round can make this point fit.
                let i = &f.blocks[p.block].instrs[p.instr];
                return Err(CompileError::RegAlloc {
                    instr: instr_to_string(f, i),
                    why: format!(
                        "{} halves needed, {budget_halves} available, nothing left to spill",
                        p.pressure
                    ),
                });
            }
        }
        spill_values(f, &lv, &slot_of, &mut stats);
        for (v, s) in slot_of.iter().enumerate() {
            if s.is_some() {
                unspillable[v] = true;
            }
        }
        unspillable.resize(f.shapes.len(), true);
    }
    Err(CompileError::Internal("spilling did not converge".into()))
}

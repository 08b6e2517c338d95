//! Spilling: while pressure exceeds the budget, pick the cheapest value live through the worst
//! point and spill it everywhere (store after its definition, reload before each use into a
//! fresh short-lived value). Each round spills a value not spilled before, so this terminates.

use super::liveness::Liveness;
use super::pressure::scan;
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

/// Spill `v` to `slot` everywhere.
fn spill_value(f: &mut Function, lv: &Liveness, v: Value, slot: u32, stats: &mut SpillStats) {
    let shape = f.shape(v);
    let fill = |f: &mut Function, stats: &mut SpillStats| {
        stats.fills += 1;
        let n = f.new_value(shape);
        (n, Instr::new(Op::Fill { slot }, Some(n), []))
    };
    for bi in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[bi].instrs);
        let mut out = Vec::with_capacity(old.len() + 2);
        let n_phis = old.iter().take_while(|i| i.op == Op::Phi).count();
        let mut phi_spill = None;
        for (ii, mut i) in old.into_iter().enumerate() {
            if ii == n_phis {
                out.extend(phi_spill.take());
            }
            if i.op != Op::Phi && i.src_values().any(|s| s == v) {
                let (n, fi) = fill(f, stats);
                out.push(fi);
                for s in &mut i.srcs {
                    if let Operand::Value { v: sv, .. } = &mut s.op {
                        if *sv == v {
                            *sv = n;
                        }
                    }
                }
            }
            let defines = i.dst == Some(v);
            let is_phi = i.op == Op::Phi;
            out.push(i);
            if defines {
                stats.spills += 1;
                let sp = Instr::new(Op::Spill { slot }, None, [Src::val(v)]);
                // A phi's store goes after the whole phi group.
                if is_phi {
                    phi_spill = Some(sp);
                } else {
                    out.push(sp);
                }
            }
        }
        out.extend(phi_spill.take());
        f.blocks[bi].instrs = out;
    }
    // Phi sources and branch conditions read v at the end of a predecessor block.
    for bi in 0..f.blocks.len() {
        let reads_as_phi = f.blocks.iter().any(|b| {
            b.instrs.iter().any(|i| {
                i.op == Op::Phi
                    && i.srcs
                        .iter()
                        .zip(&i.phi_preds)
                        .any(|(s, p)| s.value() == Some(v) && p.0 as usize == bi)
            })
        });
        let branch = lv.branch_cond[bi] == Some(v);
        if !reads_as_phi && !branch {
            continue;
        }
        let (n, fi) = fill(f, stats);
        let blk = &mut f.blocks[bi].instrs;
        let at = blk.len() - blk.last().is_some_and(|i| i.op.is_terminator()) as usize;
        blk.insert(at, fi);
        for b in &mut f.blocks {
            for i in b.instrs.iter_mut().filter(|i| i.op == Op::Phi) {
                for (s, p) in i.srcs.iter_mut().zip(i.phi_preds.iter()) {
                    if p.0 as usize == bi && s.value() == Some(v) {
                        if let Operand::Value { v: sv, .. } = &mut s.op {
                            *sv = n;
                        }
                    }
                }
            }
        }
        if branch {
            set_cond(&mut f.body, v, n, bi);
        }
    }
}

/// Spill until every point's pressure fits `budget_halves`.
/// With `whole_gprs_only`, values with an odd number of halves (16-bit scalars and tuples)
/// are never chosen (the target's scratch accesses move whole 32-bit registers).
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
    for _round in 0..10_000 {
        let cfg = Cfg::build(f);
        let lv = Liveness::compute(f, &cfg);
        let points = scan(f, &lv);
        let Some(worst) = points
            .iter()
            .filter(|p| p.pressure > budget_halves)
            .max_by_key(|p| p.pressure)
        else {
            return Ok(stats);
        };
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
        let victim = worst
            .through
            .iter()
            .filter(|v| !unspillable[v.0 as usize])
            .filter(|v| !whole_gprs_only || f.shape(**v).halves().is_multiple_of(2))
            .min_by_key(|v| {
                (
                    cost[v.0 as usize] * 8 / f.shape(**v).halves().max(1) as u64,
                    v.0,
                )
            })
            .copied();
        let Some(v) = victim else {
            let i = &f.blocks[worst.block].instrs[worst.instr];
            return Err(CompileError::RegAlloc {
                instr: instr_to_string(f, i),
                why: format!(
                    "{} halves needed, {budget_halves} available, nothing left to spill",
                    worst.pressure
                ),
            });
        };
        let before = f.shapes.len();
        spill_value(f, &lv, v, stats.slots, &mut stats);
        stats.slots += 1;
        unspillable.resize(f.shapes.len(), false);
        // A value is spilled once: spilling it again adds code and frees nothing (a phi's
        // store follows the whole phi group, so the phi stays live there). Reloads are
        // already as short as they get. Each round thus takes a new original value, which
        // bounds the rounds by the number of values.
        unspillable[v.0 as usize] = true;
        for u in &mut unspillable[before..] {
            *u = true;
        }
    }
    Err(CompileError::Internal("spilling did not converge".into()))
}

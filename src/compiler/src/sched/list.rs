//! List scheduling of each block (on SSA, before register allocation): critical-path priority
//! over the data and memory dependence graph, with the latency table; once the values the
//! block keeps live reach [`PRESSURE_LIMIT`], instructions that free more values than they
//! define go first (hoisting every independent load of a long program ahead of its users
//! would otherwise keep more values live than the register file holds, and spill).

use super::latency::latency;
use crate::ir::{Function, Instr, Op, Value};

/// Values live from the block's own definitions above which the scheduler minimises pressure
/// (well below the 64 registers device loads can write, EXP-0141).
const PRESSURE_LIMIT: usize = 40;

/// `outside[v]`: value v is read somewhere other than this block's body (another block, a phi,
/// a branch condition), so no instruction of the body is its last reader.
fn schedule_block(instrs: Vec<Instr>, outside: &[bool]) -> Vec<Instr> {
    let n_phi = instrs.iter().take_while(|i| i.op == Op::Phi).count();
    let has_term = instrs.last().is_some_and(|i| i.op.is_terminator());
    let body_end = instrs.len() - has_term as usize;
    if body_end - n_phi < 3 {
        return instrs;
    }
    let body = &instrs[n_phi..body_end];
    let n = body.len();
    // preds[k]: (instruction it waits for, latency). Data dependences through the body's
    // definitions; memory and tile-order dependences only among the instructions that touch
    // memory, the tile or coverage (the only ones `mem` can hold for).
    let mut def_at: std::collections::HashMap<Value, usize> = std::collections::HashMap::new();
    let orders = |o: Op| {
        o.reads_memory()
            || o.writes_memory()
            || matches!(
                o,
                Op::StoreTile { .. } | Op::LoadTile { .. } | Op::SampleMask { .. } | Op::DepthStore
            )
    };
    let mut ordered: Vec<usize> = Vec::new();
    let mut preds: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
    for k in 0..n {
        let b = &body[k];
        for v in b.src_values() {
            if let Some(&j) = def_at.get(&v) {
                if !preds[k].iter().any(|&(p, _)| p == j) {
                    preds[k].push((j, latency(body[j].op)));
                }
            }
        }
        if orders(b.op) {
            for &j in &ordered {
                let a = &body[j];
                let mem = (a.op.writes_memory() && (b.op.reads_memory() || b.op.writes_memory()))
                    || (a.op.reads_memory() && b.op.writes_memory())
                    || tile_order(a.op, b.op);
                if mem && !preds[k].iter().any(|&(p, _)| p == j) {
                    preds[k].push((j, 1));
                }
            }
            ordered.push(k);
        }
        if let Some(d) = b.dst {
            def_at.insert(d, k);
        }
    }
    // Longest latency-weighted path to the end of the block.
    let mut height = vec![0u32; n];
    for k in (0..n).rev() {
        height[k] = height[k].max(latency(body[k].op));
        for &(j, l) in &preds[k] {
            height[j] = height[j].max(height[k] + l);
        }
    }
    let mut ready_at = vec![0u32; n];
    let mut left: Vec<usize> = preds.iter().map(|p| p.len()).collect();
    let mut succs: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
    for (k, ps) in preds.iter().enumerate() {
        for &(j, l) in ps {
            succs[j].push((k, l));
        }
    }
    // Readers in the body still to be scheduled, per value defined in the body.
    let mut unread: std::collections::HashMap<Value, usize> = std::collections::HashMap::new();
    for i in body {
        if let Some(d) = i.dst {
            unread.insert(d, 0);
        }
    }
    for i in body {
        let mut vs: Vec<Value> = i.src_values().collect();
        vs.sort();
        vs.dedup();
        for v in vs {
            if let Some(c) = unread.get_mut(&v) {
                *c += 1;
            }
        }
    }
    let mut live = 0usize;
    // Values the instruction defines minus the body values it reads last.
    let delta = |k: usize, unread: &std::collections::HashMap<Value, usize>| -> i32 {
        let mut vs: Vec<Value> = body[k].src_values().collect();
        vs.sort();
        vs.dedup();
        let freed = vs
            .iter()
            .filter(|v| unread.get(v) == Some(&1) && !outside[v.0 as usize])
            .count() as i32;
        body[k].dst.is_some() as i32 - freed
    };
    // Instructions whose predecessors are all scheduled.
    let mut ready: Vec<usize> = (0..n).filter(|&k| left[k] == 0).collect();
    let mut order = Vec::with_capacity(n);
    let mut cycle = 0u32;
    while order.len() < n {
        let high = live >= PRESSURE_LIMIT;
        let cand = ready.iter().copied().min_by_key(|&k| {
            (
                if high { delta(k, &unread) } else { 0 },
                ready_at[k] > cycle,
                std::cmp::Reverse(height[k]),
                k,
            )
        });
        let k = cand.expect("a dependence graph of a block is acyclic");
        let d = delta(k, &unread);
        live = (live as i32 + d).max(0) as usize;
        let mut vs: Vec<Value> = body[k].src_values().collect();
        vs.sort();
        vs.dedup();
        for v in vs {
            if let Some(c) = unread.get_mut(&v) {
                *c -= 1;
            }
        }
        cycle = cycle.max(ready_at[k]) + 1;
        ready.retain(|&r| r != k);
        order.push(k);
        for &(s, l) in &succs[k] {
            left[s] -= 1;
            ready_at[s] = ready_at[s].max(cycle - 1 + l);
            if left[s] == 0 {
                ready.push(s);
            }
        }
    }
    let mut out: Vec<Instr> = instrs[..n_phi].to_vec();
    out.extend(order.into_iter().map(|k| body[k].clone()));
    out.extend(instrs[body_end..].iter().cloned());
    out
}

/// A move of a constant or uniform: scheduled just before its first reader instead of being
/// hoisted, since it depends on nothing and would only lengthen its register's life.
fn is_leaf_constant(i: &Instr) -> bool {
    i.op == Op::Copy && i.srcs.len() == 1 && i.srcs[0].value().is_none()
}

pub fn run(f: &mut Function) {
    let mut cond = vec![None; f.blocks.len()];
    crate::ra::liveness::conds(&f.body, &mut cond);
    // Per block, the values read outside its body (phis read at the predecessors' ends).
    let mut reads_in: Vec<Vec<u32>> = vec![Vec::new(); f.shapes.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in &b.instrs {
            let key = if i.op == Op::Phi { u32::MAX } else { bi as u32 };
            for v in i.src_values() {
                reads_in[v.0 as usize].push(key);
            }
        }
        if let Some(c) = cond[bi] {
            reads_in[c.0 as usize].push(u32::MAX);
        }
    }
    for (bi, b) in f.blocks.iter_mut().enumerate() {
        let outside: Vec<bool> = reads_in
            .iter()
            .map(|r| r.iter().any(|&b| b != bi as u32))
            .collect();
        let instrs = std::mem::take(&mut b.instrs);
        let (leaves, rest): (Vec<Instr>, Vec<Instr>) =
            instrs.into_iter().partition(is_leaf_constant);
        let mut out = Vec::with_capacity(leaves.len() + rest.len());
        let leaf_of: std::collections::HashMap<Value, usize> = leaves
            .iter()
            .enumerate()
            .filter_map(|(k, l)| l.dst.map(|d| (d, k)))
            .collect();
        let mut leaves: Vec<Option<Instr>> = leaves.into_iter().map(Some).collect();
        let mut read: Vec<usize> = Vec::new();
        for i in schedule_block(rest, &outside) {
            if i.op != Op::Phi {
                // The constants it reads that are still unplaced, in their original order.
                read.clear();
                read.extend(i.src_values().filter_map(|v| leaf_of.get(&v).copied()));
                read.sort_unstable();
                read.dedup();
                for &k in &read {
                    out.extend(leaves[k].take());
                }
            }
            out.push(i);
        }
        // Constants only read by phis of successors or by branch conditions stay at the end,
        // before the terminator.
        let term = out.last().is_some_and(|i| i.op.is_terminator());
        let at = out.len() - term as usize;
        let tail: Vec<Instr> = leaves.into_iter().flatten().collect();
        out.splice(at..at, tail);
        // The instruction computing the branch condition goes last, next to the `if`, so
        // selection can fuse a compare into the predicate compare.
        if let Some(c) = cond[bi] {
            if let Some(k) = out.iter().position(|i| i.dst == Some(c) && i.op != Op::Phi) {
                let i = out.remove(k);
                let term = out.last().is_some_and(|i| i.op.is_terminator());
                let at = out.len() - term as usize;
                out.insert(at, i);
            }
        }
        b.instrs = out;
    }
}

/// A tile read and a tile store of the same word keep their program order; coverage writes
/// keep theirs among themselves and against tile stores (kills before the test, the test
/// before colour stores: Mesa agx_nir_lower_sample_mask.c rules 1 and 3).
fn tile_order(a: Op, b: Op) -> bool {
    let cov = |o: Op| matches!(o, Op::SampleMask { .. } | Op::DepthStore);
    let tile = |o: Op| matches!(o, Op::StoreTile { .. } | Op::LoadTile { .. });
    matches!(
        (a, b),
        (Op::LoadTile { word: x, .. }, Op::StoreTile { word: y, .. })
            | (Op::StoreTile { word: x, .. }, Op::LoadTile { word: y, .. }) if x == y
    ) || (cov(a) && (cov(b) || tile(b)))
        || (tile(a) && cov(b))
}

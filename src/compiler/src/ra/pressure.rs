//! Register pressure (in 16-bit halves) at every instruction, consistent with how `assign`
//! allocates: sources that die at an instruction free their registers before its destination is
//! allocated, except where the destination must not overlap them (`Op::dst_avoids_dying_sources`).

use super::liveness::{Liveness, ValueSet};
use crate::ir::{Function, Op, Value};

pub struct PointInfo {
    pub block: usize,
    pub instr: usize,
    pub pressure: u32,
}

pub fn size(f: &Function, set: &ValueSet) -> u32 {
    set.iter().map(|v| f.shape(v).halves()).sum()
}

/// The highest pressure of any instruction.
pub fn peak(f: &Function, lv: &Liveness) -> u32 {
    scan(f, lv).iter().map(|p| p.pressure).max().unwrap_or(0)
}

/// Every instruction's pressure: one backward walk per block keeping the live set's size as
/// it goes (linear in the program).
pub fn scan(f: &Function, lv: &Liveness) -> Vec<PointInfo> {
    let mut out = Vec::with_capacity(f.instr_count());
    let halves = |v: Value| f.shape(v).halves();
    let mut srcs: Vec<Value> = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        let mut live = lv.live_out[bi].clone();
        if let Some(c) = lv.branch_cond[bi] {
            live.insert(c);
        }
        let mut live_size = size(f, &live);
        for (ii, i) in b.instrs.iter().enumerate().rev() {
            // `live` holds the values live after the instruction.
            let dst_sz = i.dst.map(halves).unwrap_or(0);
            if let Some(d) = i.dst {
                if live.contains(d) {
                    live.remove(d);
                    live_size -= dst_sz;
                }
            }
            // Live after, without the destination: what the instruction keeps.
            let kept = live_size;
            srcs.clear();
            if i.op != Op::Phi {
                srcs.extend(i.src_values());
            }
            // Sources not live after die here.
            let mut dying = 0;
            for &v in &srcs {
                if live.insert(v) {
                    dying += halves(v);
                }
            }
            live_size = kept + dying;
            // `live` is now the set before the instruction.
            let keep = if i.op.dst_avoids_dying_sources() || i.op == Op::Phi {
                live_size
            } else {
                kept
            };
            let pressure = keep + dst_sz;
            out.push(PointInfo {
                block: bi,
                instr: ii,
                pressure,
            });
        }
    }
    out
}

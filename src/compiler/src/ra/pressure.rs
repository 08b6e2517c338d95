//! Register pressure (in 16-bit halves) at every instruction, consistent with how `assign`
//! allocates: sources that die at an instruction free their registers before its destination is
//! allocated, except where the destination must not overlap them (`Op::dst_avoids_dying_sources`).

use super::liveness::{Liveness, ValueSet};
use crate::ir::{Function, Op};

pub struct PointInfo {
    pub block: usize,
    pub instr: usize,
    pub pressure: u32,
    /// Live before and after, and not read or written here: the spill candidates.
    pub through: Vec<crate::ir::Value>,
}

pub fn size(f: &Function, set: &ValueSet) -> u32 {
    set.iter().map(|v| f.shape(v).halves()).sum()
}

/// Every instruction's pressure; `max_only` keeps just the worst point.
pub fn scan(f: &Function, lv: &Liveness) -> Vec<PointInfo> {
    let mut out = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        let mut live = lv.live_out[bi].clone();
        if let Some(c) = lv.branch_cond[bi] {
            live.insert(c);
        }
        for (ii, i) in b.instrs.iter().enumerate().rev() {
            let after = live.clone();
            if let Some(d) = i.dst {
                live.remove(d);
            }
            if i.op != Op::Phi {
                for v in i.src_values() {
                    live.insert(v);
                }
            }
            // `live` is now the set before the instruction.
            let dst_sz = i.dst.map(|d| f.shape(d).halves()).unwrap_or(0);
            let keep = if i.op.dst_avoids_dying_sources() || i.op == Op::Phi {
                size(f, &live)
            } else {
                size(f, &live.clone().tap_remove_dead(&after))
            };
            let pressure = keep + dst_sz;
            let through = live
                .iter()
                .filter(|v| {
                    after.contains(*v) && Some(*v) != i.dst && !i.src_values().any(|s| s == *v)
                })
                .collect();
            out.push(PointInfo {
                block: bi,
                instr: ii,
                pressure,
                through,
            });
        }
    }
    out
}

trait TapRemove {
    fn tap_remove_dead(self, after: &ValueSet) -> ValueSet;
}

impl TapRemove for ValueSet {
    /// Keep only values that are still live after the instruction.
    fn tap_remove_dead(mut self, after: &ValueSet) -> ValueSet {
        let dead: Vec<_> = self.iter().filter(|v| !after.contains(*v)).collect();
        for v in dead {
            self.remove(v);
        }
        self
    }
}

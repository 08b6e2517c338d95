//! Def/use bookkeeping shared by the passes.

use crate::ir::{Function, Instr, Value};

/// Where each value is defined: (block index, instruction index).
pub fn def_sites(f: &Function) -> Vec<Option<(usize, usize)>> {
    let mut d = vec![None; f.shapes.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for (ii, i) in b.instrs.iter().enumerate() {
            if let Some(v) = i.dst {
                d[v.0 as usize] = Some((bi, ii));
            }
        }
    }
    d
}

pub fn def<'a>(f: &'a Function, sites: &[Option<(usize, usize)>], v: Value) -> Option<&'a Instr> {
    sites[v.0 as usize].map(|(b, i)| &f.blocks[b].instrs[i])
}

/// Number of source operands reading each value.
pub fn use_counts(f: &Function) -> Vec<u32> {
    let mut n = vec![0; f.shapes.len()];
    for b in &f.blocks {
        for i in &b.instrs {
            for v in i.src_values() {
                n[v.0 as usize] += 1;
            }
        }
    }
    // The condition of an `if` is a use too.
    fn cf(ns: &[crate::ir::CfNode], n: &mut [u32]) {
        for c in ns {
            match c {
                crate::ir::CfNode::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    n[cond.0 as usize] += 1;
                    cf(then_body, n);
                    cf(else_body, n);
                }
                crate::ir::CfNode::Loop { body } => cf(body, n),
                crate::ir::CfNode::Block(_) => {}
            }
        }
    }
    cf(&f.body, &mut n);
    n
}

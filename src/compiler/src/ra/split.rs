//! Splitting values whose defining form can only write r0–r15 (compact immediate forms,
//! `mov_imm`, `uniform_mov`, `ishr_imm`, ...). Such a value, when it lives on past the next
//! instruction, blocks the sixteen low registers; with more than sixteen of them live at once
//! the assignment fails although the pressure fits the file, and spilling would be the only
//! way out. A copy right after the definition (`iadd d', d, #0`, destination r0–r94) moves
//! the long part of the live range out of the low registers. Used only when the allocation
//! without it fails (`ra::allocate`), so programs that already fit are unchanged.

use crate::ir::{CfNode, Function, Instr, Op, Operand, Src, Type, Value};
use crate::target::RegTarget;

fn conds(ns: &[CfNode], out: &mut Vec<Value>) {
    for n in ns {
        match n {
            CfNode::If {
                cond,
                then_body,
                else_body,
            } => {
                out.push(*cond);
                conds(then_body, out);
                conds(else_body, out);
            }
            CfNode::Loop { body } => conds(body, out),
            CfNode::Block(_) => {}
        }
    }
}

/// Inserts the copies after definitions whose form writes below GPR `reach` (16: the compact
/// forms; 64: also device loads and `mov_imm32`, EXP-0141: loads into r64 and above read zero);
/// returns how many.
pub fn split_low_defs(f: &mut Function, target: &dyn RegTarget, reach: u32) -> u32 {
    let mut branch = Vec::new();
    conds(&f.body, &mut branch);
    // Where each value is read: (block, instruction index).
    let mut reads: Vec<Vec<(usize, usize)>> = vec![Vec::new(); f.shapes.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, i) in b.instrs.iter().enumerate() {
            for v in i.src_values() {
                reads[v.0 as usize].push((bi, k));
            }
        }
    }
    let mut renames: Vec<(Value, Value)> = Vec::new();
    for bi in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[bi].instrs);
        let mut out = Vec::with_capacity(old.len());
        for (k, i) in old.into_iter().enumerate() {
            let split = i.dst.filter(|&d| {
                let shape = f.shape(d);
                i.op != Op::Phi
                    && shape.comps == 1
                    && matches!(shape.ty, Type::I32 | Type::F32)
                    && !branch.contains(&d)
                    && target.dst_reach(&i, shape.ty) <= reach
                    && reads[d.0 as usize].iter().any(|&r| r != (bi, k + 1))
            });
            out.push(i);
            if let Some(d) = split {
                let n = f.new_value(f.shape(d));
                out.push(Instr::new(Op::Copy, Some(n), [Src::val(d)]));
                renames.push((d, n));
            }
        }
        f.blocks[bi].instrs = out;
    }
    // Every read of d except its copy reads d'.
    for &(d, n) in &renames {
        for b in &mut f.blocks {
            for i in &mut b.instrs {
                if i.op == Op::Copy && i.dst == Some(n) {
                    continue;
                }
                for s in &mut i.srcs {
                    if let Operand::Value { v, .. } = &mut s.op {
                        if *v == d {
                            *v = n;
                        }
                    }
                }
            }
        }
    }
    renames.len() as u32
}

//! Selects as branches, for targets without a usable select form: `d = c ? a : b` splits its
//! block into `if (c') {} else {}` and a merge block that starts with `d = phi(a, b)`. The
//! condition `c'` is a fresh copy of `c`'s compare (or `c != 0`) placed last before the branch,
//! so selection fuses it into the predicate compare feeding the exec-mask push. Compares whose
//! only readers were selects become dead. Same semantics as the select (the reference
//! interpreter runs either form).

use super::uses::def_sites;
use crate::ir::{Block, BlockId, CfNode, Cmp, Function, Instr, Op, Operand, Shape, Src, Type};

/// Saturation as compares and selects, for targets without a saturate bit: the op writes a
/// fresh value `t` and `d = (0 < t) ? ((t < 1) ? t : 1) : 0`, which is 0 for NaN like the IR's
/// saturate (f32 only; 16-bit compares have no validated form).
pub fn lower_saturate(f: &mut Function) -> bool {
    let mut changed = false;
    for bi in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[bi].instrs);
        let mut out = Vec::with_capacity(old.len());
        for mut i in old {
            let Some(d) = i
                .dst
                .filter(|d| i.sat && f.shape(*d) == Shape::scalar(Type::F32))
            else {
                out.push(i);
                continue;
            };
            let t = f.new_value(Shape::scalar(Type::F32));
            i.sat = false;
            i.dst = Some(t);
            out.push(i);
            let pos = f.new_value(Shape::scalar(Type::Bool));
            let below = f.new_value(Shape::scalar(Type::Bool));
            let u = f.new_value(Shape::scalar(Type::F32));
            let (zero, one) = (Src::imm(0.0f32.to_bits()), Src::imm(1.0f32.to_bits()));
            out.push(Instr::new(
                Op::FCmp(Cmp::Lt),
                Some(pos),
                [zero, Src::val(t)],
            ));
            out.push(Instr::new(
                Op::FCmp(Cmp::Lt),
                Some(below),
                [Src::val(t), one],
            ));
            out.push(Instr::new(
                Op::Select,
                Some(u),
                [Src::val(below), Src::val(t), one],
            ));
            out.push(Instr::new(
                Op::Select,
                Some(d),
                [Src::val(pos), Src::val(u), zero],
            ));
            changed = true;
        }
        f.blocks[bi].instrs = out;
    }
    changed
}

/// Lower every scalar select with a value condition. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = materialise_compares(f);
    while let Some((b, j)) = find(f) {
        split(f, b, j);
        changed = true;
    }
    if changed {
        compares_at_branches(f);
    }
    changed
}

/// An if whose condition's compare is no longer the last instruction of the block before it
/// (a select on the same compare was inserted after it and split into a branch, moving the if
/// behind the select's merge block) gets a copy of the compare at the end of that block: the
/// backend fuses a condition's compare into its branch and has no form for a compare kept as a
/// value (found by tests/glsl_fuzz.rs: a loop's exit compare also read by an `||` later).
fn compares_at_branches(f: &mut Function) {
    let sites = def_sites(f);
    let mut body = std::mem::take(&mut f.body);
    refuse(f, &sites, &mut body);
    f.body = body;
}

fn refuse(f: &mut Function, sites: &[Option<(usize, usize)>], list: &mut [CfNode]) {
    for k in 0..list.len() {
        let prev = match k.checked_sub(1).map(|p| &list[p]) {
            Some(CfNode::Block(b)) => Some(*b),
            _ => None,
        };
        match &mut list[k] {
            CfNode::If {
                cond,
                then_body,
                else_body,
            } => {
                if let Some(pb) = prev {
                    let last = f.blocks[pb.0 as usize].instrs.last().and_then(|i| i.dst);
                    let def = sites
                        .get(cond.0 as usize)
                        .copied()
                        .flatten()
                        .map(|(db, di)| f.blocks[db].instrs[di].clone());
                    if let Some(d) = def.filter(|d| {
                        matches!(d.op, Op::ICmp { .. } | Op::FCmp(_)) && !d.sat && last != d.dst
                    }) {
                        let c = f.new_value(Shape::scalar(Type::Bool));
                        f.blocks[pb.0 as usize].instrs.push(Instr::new(
                            d.op,
                            Some(c),
                            d.srcs.iter().copied(),
                        ));
                        *cond = c;
                    }
                }
                refuse(f, sites, then_body);
                refuse(f, sites, else_body);
            }
            CfNode::Loop { body } => refuse(f, sites, body),
            CfNode::Block(_) => {}
        }
    }
}

/// Compares whose result is read as a value (by a logic op, a compare of booleans, a phi, a
/// store, a select arm) and not only as a condition: those readers get `c ? ~0 : 0`, a select
/// on the compare (the IR's true is all ones) that becomes a branch like any other, while the
/// conditions keep reading the compare itself.
fn materialise_compares(f: &mut Function) -> bool {
    let is_cmp = |i: &Instr| matches!(i.op, Op::ICmp { .. } | Op::FCmp(_));
    let mut cmps = vec![false; f.shapes.len()];
    for i in f.blocks.iter().flat_map(|b| &b.instrs) {
        if let (true, Some(d)) = (is_cmp(i), i.dst) {
            cmps[d.0 as usize] = f.shape(d).comps == 1;
        }
    }
    let value_use = |i: &Instr, k: usize| !(i.op == Op::Select && k == 0);
    let mut wanted = vec![false; f.shapes.len()];
    for i in f.blocks.iter().flat_map(|b| &b.instrs) {
        for (k, s) in i.srcs.iter().enumerate() {
            if let Some(v) = s.value() {
                if cmps[v.0 as usize] && value_use(i, k) {
                    wanted[v.0 as usize] = true;
                }
            }
        }
    }
    if !wanted.iter().any(|&w| w) {
        return false;
    }
    let mut repl: Vec<Option<crate::ir::Value>> = vec![None; f.shapes.len()];
    for bi in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[bi].instrs);
        let mut out = Vec::with_capacity(old.len());
        for i in old {
            let d = i.dst.filter(|d| is_cmp(&i) && wanted[d.0 as usize]);
            out.push(i);
            if let Some(d) = d {
                let m = f.new_value(Shape::scalar(Type::Bool));
                out.push(Instr::new(
                    Op::Select,
                    Some(m),
                    [Src::val(d), Src::imm(u32::MAX), Src::imm(0)],
                ));
                repl.resize(f.shapes.len(), None);
                repl[d.0 as usize] = Some(m);
            }
        }
        f.blocks[bi].instrs = out;
    }
    repl.resize(f.shapes.len(), None);
    for b in &mut f.blocks {
        for i in &mut b.instrs {
            for k in 0..i.srcs.len() {
                // (The new selects read their compare as the condition, source 0.)
                if !value_use(i, k) {
                    continue;
                }
                if let Operand::Value { v, comp: 0 } = i.srcs[k].op {
                    if let Some(m) = repl[v.0 as usize] {
                        i.srcs[k].op = Operand::Value { v: m, comp: 0 };
                    }
                }
            }
        }
    }
    true
}

fn find(f: &Function) -> Option<(BlockId, usize)> {
    f.blocks.iter().enumerate().find_map(|(bi, b)| {
        b.instrs
            .iter()
            .position(|i| {
                // A constant condition is const_fold's; a value or a uniform word (a bool
                // uniform that copy propagation reached) becomes a branch.
                i.op == Op::Select
                    && !matches!(i.srcs[0].op, Operand::Imm(_))
                    && i.dst.is_some_and(|d| f.shape(d).comps == 1)
            })
            .map(|j| (BlockId(bi as u32), j))
    })
}

fn split(f: &mut Function, b: BlockId, j: usize) {
    let sites = def_sites(f);
    let sel = f.blocks[b.0 as usize].instrs[j].clone();
    let c = sel.srcs[0];
    // The branch condition: a copy of the defining compare, else `c != 0`.
    let cond = f.new_value(Shape::scalar(Type::Bool));
    let def = c
        .value()
        .and_then(|v| sites[v.0 as usize])
        .map(|(db, di)| f.blocks[db].instrs[di].clone());
    let cmp = match def {
        Some(d)
            if matches!(d.op, Op::ICmp { .. } | Op::FCmp(_))
                && c.op
                    == Operand::Value {
                        v: d.dst.unwrap_or(crate::ir::Value(0)),
                        comp: 0,
                    } =>
        {
            Instr::new(d.op, Some(cond), d.srcs.iter().copied())
        }
        _ => Instr::new(
            Op::ICmp {
                cond: Cmp::Ne,
                signed: false,
            },
            Some(cond),
            [
                Src {
                    neg: false,
                    abs: false,
                    ..c
                },
                Src::imm(0),
            ],
        ),
    };
    let tail: Vec<Instr> = f.blocks[b.0 as usize].instrs.split_off(j + 1);
    f.blocks[b.0 as usize].instrs.pop(); // the select
    f.blocks[b.0 as usize].instrs.push(cmp);
    let new_block = |f: &mut Function| {
        f.blocks.push(Block::default());
        BlockId(f.blocks.len() as u32 - 1)
    };
    let (t, e, m) = (new_block(f), new_block(f), new_block(f));
    // Successors of `b` now follow the merge block.
    for blk in &mut f.blocks {
        for i in blk.instrs.iter_mut().filter(|i| i.op == Op::Phi) {
            for p in i.phi_preds.iter_mut() {
                if *p == b {
                    *p = m;
                }
            }
        }
    }
    // Sources with neg/abs are computed in their arm (phis carry plain values).
    let arm_src = |f: &mut Function, blk: BlockId, s: Src| {
        if !(s.neg || s.abs) {
            return s;
        }
        let ty = sel.dst.map(|d| f.ty(d)).unwrap_or(Type::F32);
        let v = f.new_value(Shape::scalar(ty));
        f.blocks[blk.0 as usize]
            .instrs
            .push(Instr::new(Op::Copy, Some(v), [s]));
        Src::val(v)
    };
    let (a, bsrc) = (arm_src(f, t, sel.srcs[1]), arm_src(f, e, sel.srcs[2]));
    let mut phi = Instr::new(Op::Phi, sel.dst, [a, bsrc]);
    phi.phi_preds = [t, e].into_iter().collect();
    let mut merge = vec![phi];
    merge.extend(tail);
    f.blocks[m.0 as usize].instrs = merge;
    let node = [
        CfNode::If {
            cond,
            then_body: vec![CfNode::Block(t)],
            else_body: vec![CfNode::Block(e)],
        },
        CfNode::Block(m),
    ];
    insert_after(&mut f.body, b, &node);
}

fn insert_after(list: &mut Vec<CfNode>, b: BlockId, nodes: &[CfNode]) -> bool {
    for k in 0..list.len() {
        let hit = match &mut list[k] {
            CfNode::Block(x) => *x == b,
            CfNode::If {
                then_body,
                else_body,
                ..
            } => {
                if insert_after(then_body, b, nodes) || insert_after(else_body, b, nodes) {
                    return true;
                }
                false
            }
            CfNode::Loop { body } => {
                if insert_after(body, b, nodes) {
                    return true;
                }
                false
            }
        };
        if hit {
            for (n, node) in nodes.iter().enumerate() {
                list.insert(k + 1 + n, node.clone());
            }
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{self, Env};
    use crate::ir::{validate, Builder, Stage, SysVal, Type};

    /// A select on a compare and one on a bool phi, inside a loop body whose latch is the
    /// split block: same results before and after, and the IR stays valid.
    #[test]
    fn selects_become_branches_with_the_same_results() {
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let a = b.load_global(0, x, Type::I32, 1);
        let pre = b.current_block();
        b.loop_();
        let i = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
        let s = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
        let done = b.icmp(Cmp::Ge, false, i, Src::imm(4));
        b.if_(done);
        b.break_();
        b.end_if();
        let lt = b.icmp(Cmp::Lt, true, a, i);
        let v = b.select(Type::I32, lt, Src::val(i), Src::imm(7));
        let w = b.select(Type::I32, lt, Src::val(a), Src::val(v));
        let s2 = b.iadd(s, w);
        let i2 = b.iadd(i, Src::imm(1));
        let latch = b.current_block();
        b.add_phi_src(i, latch, Src::val(i2));
        b.add_phi_src(s, latch, Src::val(s2));
        b.end_loop();
        b.store_global(1, x, s);
        let f0 = b.finish();
        let mut f1 = f0.clone();
        assert!(run(&mut f1));
        validate::validate(&f1).unwrap_or_else(|e| panic!("{e}\n{f1}"));
        assert!(!f1
            .blocks
            .iter()
            .any(|b| b.instrs.iter().any(|i| i.op == Op::Select)));
        for f in [&f0, &f1] {
            let mut env = Env::default();
            env.buffers.insert(0, vec![0u32, 2, 5, 0xffff_fffe]);
            env.buffers.insert(1, vec![0; 4]);
            for t in 0..4 {
                env.global_id = [t, 0, 0];
                interp::run(f, &mut env).unwrap();
            }
            // a=0: i<... lanes: sum over i of (a<i ? a : 7)
            let want: Vec<u32> = [0i32, 2, 5, -2]
                .iter()
                .map(|&a| (0..4).map(|i| if a < i { a } else { 7 }).sum::<i32>() as u32)
                .collect();
            assert_eq!(env.buffers[&1], want, "{f}");
        }
    }

    /// A select whose condition copy propagation replaced by a uniform word (a bool uniform)
    /// becomes a branch too, with the same results for true (~0) and false (0).
    #[test]
    fn a_select_on_a_uniform_condition_becomes_a_branch() {
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let a = b.load_global(0, x, Type::I32, 1);
        let c = b.icmp(Cmp::Ne, false, a, Src::imm(0));
        let v = b.select(Type::I32, c, Src::val(a), Src::imm(7));
        b.store_global(1, x, v);
        let mut f0 = b.finish();
        let sel = f0
            .blocks
            .iter_mut()
            .flat_map(|b| &mut b.instrs)
            .find(|i| i.op == Op::Select)
            .unwrap();
        sel.srcs[0].op = Operand::Uniform(3);
        let mut f1 = f0.clone();
        assert!(run(&mut f1));
        validate::validate(&f1).unwrap_or_else(|e| panic!("{e}\n{f1}"));
        assert!(!f1
            .blocks
            .iter()
            .any(|b| b.instrs.iter().any(|i| i.op == Op::Select)));
        for (word, want) in [(u32::MAX, 5), (0, 7)] {
            for f in [&f0, &f1] {
                let mut env = Env {
                    uniforms: vec![0, 0, 0, word],
                    ..Env::default()
                };
                env.buffers.insert(0, vec![5]);
                env.buffers.insert(1, vec![0]);
                interp::run(f, &mut env).unwrap();
                assert_eq!(env.buffers[&1], vec![want], "{f}");
            }
        }
    }
}

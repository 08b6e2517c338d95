//! Copy propagation: readers of a plain copy read its source instead; phis whose sources are
//! all the same become copies.

use crate::ir::{Function, Op, Operand, Src};

/// The source a plain (unmodified, unsaturated, scalar) copy forwards, if any.
fn forwardable(f: &Function, i: &crate::ir::Instr) -> Option<Src> {
    if i.op != Op::Copy || i.sat || f.shape(i.dst?).comps != 1 {
        return None;
    }
    let s = i.srcs[0];
    (!s.has_modifiers()).then_some(s)
}

pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    // Trivial phis (all sources equal) become copies.
    for b in &mut f.blocks {
        for i in b.instrs.iter_mut().filter(|i| i.op == Op::Phi) {
            if i.srcs.windows(2).all(|w| w[0] == w[1])
                && !i.srcs.is_empty()
                && i.srcs[0].value() != i.dst
            {
                i.op = Op::Copy;
                i.srcs.truncate(1);
                i.phi_preds.clear();
                changed = true;
            }
        }
        // Keep the remaining phis at the top of the block.
        let (mut phis, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut b.instrs)
            .into_iter()
            .partition(|i| i.op == Op::Phi);
        phis.extend(rest);
        b.instrs = phis;
    }
    let mut map: Vec<Option<Src>> = vec![None; f.shapes.len()];
    // Components of a `collect` are its (unmodified) sources.
    let mut collects: Vec<Option<Vec<Src>>> = vec![None; f.shapes.len()];
    for b in &f.blocks {
        for i in &b.instrs {
            if let Some(s) = forwardable(f, i) {
                map[i.dst.unwrap().0 as usize] = Some(s);
            }
            if i.op == Op::Collect && i.srcs.iter().all(|s| !s.has_modifiers()) {
                collects[i.dst.unwrap().0 as usize] = Some(i.srcs.to_vec());
            }
        }
    }
    // Resolve chains of copies.
    let resolve = |mut s: Src| {
        for _ in 0..64 {
            match s.op {
                Operand::Value { v, comp } if collects[v.0 as usize].is_some() => {
                    let n = collects[v.0 as usize].as_ref().unwrap()[comp as usize];
                    s = Src {
                        op: n.op,
                        neg: s.neg,
                        abs: s.abs,
                    };
                }
                Operand::Value { v, comp: 0 } => match map[v.0 as usize] {
                    Some(n) => {
                        s = Src {
                            op: n.op,
                            neg: s.neg,
                            abs: s.abs,
                        }
                    }
                    None => break,
                },
                _ => break,
            }
        }
        s
    };
    let shapes = f.shapes.clone();
    for b in &mut f.blocks {
        for i in &mut b.instrs {
            let mods_ok = i.op.takes_float_modifiers();
            let op = i.op;
            let dst_vec = i.dst.is_some_and(|d| shapes[d.0 as usize].comps > 1);
            for (k, s) in i.srcs.iter_mut().enumerate() {
                let n = resolve(*s);
                if n == *s {
                    continue;
                }
                // Stores and spills name a whole value; a component of a tuple cannot stand in,
                // and a whole tuple is not its first component.
                if let Operand::Value { v, .. } = s.op {
                    let whole_pos = matches!(op, Op::Spill { .. })
                        || (matches!(op, Op::StoreGlobal { .. }) && k == 1)
                        || (matches!(op, Op::Phi | Op::Copy) && dst_vec);
                    if shapes[v.0 as usize].comps != 1 && whole_pos {
                        continue;
                    }
                }
                let whole = matches!(op, Op::Spill { .. })
                    || (matches!(op, Op::StoreGlobal { .. }) && k == 1);
                if whole
                    && matches!(n.op, Operand::Value { v, .. } if shapes[v.0 as usize].comps > 1)
                {
                    continue;
                }
                // A phi's moves happen after allocation, in the phi's register, and only
                // `uniform_mov` (destinations r0–r15) reads the uniform file: a uniform stays
                // behind its copy, whose destination allocation keeps in reach.
                if op == Op::Phi && matches!(n.op, Operand::Uniform(_)) {
                    continue;
                }
                // Modifiers only survive on ops that apply them.
                if s.has_modifiers() && !mods_ok && !matches!(n.op, Operand::Value { .. }) {
                    continue;
                }
                *s = n;
                changed = true;
            }
        }
    }
    // If conditions name values directly.
    fn cf(ns: &mut [crate::ir::CfNode], map: &[Option<Src>]) {
        for c in ns {
            match c {
                crate::ir::CfNode::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    while let Some(Src {
                        op: Operand::Value { v, comp: 0 },
                        ..
                    }) = map[cond.0 as usize]
                    {
                        *cond = v;
                    }
                    cf(then_body, map);
                    cf(else_body, map);
                }
                crate::ir::CfNode::Loop { body } => cf(body, map),
                crate::ir::CfNode::Block(_) => {}
            }
        }
    }
    cf(&mut f.body, &map);
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{self, Env};
    use crate::ir::{validate, Builder, Cmp, Shape, Src, Stage, SysVal, Type};

    /// A loop counter starting at a uniform word: the phi keeps reading the uniform's copy (a
    /// phi move cannot read the uniform file into a high register), readers elsewhere take the
    /// uniform itself, and the results stay the same.
    #[test]
    fn phis_keep_a_uniform_behind_its_copy() {
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let start = b.alu(Op::Copy, Type::I32, [Src::uniform(4)]);
        let pre = b.current_block();
        b.loop_();
        let i = b.phi(Shape::scalar(Type::I32), &[(pre, Src::val(start))]);
        let done = b.icmp(Cmp::Ge, true, i, Src::imm(9));
        b.if_(done);
        b.break_();
        b.end_if();
        let i2 = b.iadd(i, Src::imm(2));
        let latch = b.current_block();
        b.add_phi_src(i, latch, Src::val(i2));
        b.end_loop();
        let sum = b.iadd(i, Src::val(start));
        b.store_global(0, x, sum);
        let f0 = b.finish();
        let mut f1 = f0.clone();
        run(&mut f1);
        validate::validate(&f1).unwrap_or_else(|e| panic!("{e}\n{f1}"));
        let phi = f1
            .blocks
            .iter()
            .flat_map(|b| &b.instrs)
            .find(|i| i.op == Op::Phi)
            .unwrap();
        assert!(
            phi.srcs
                .iter()
                .all(|s| !matches!(s.op, Operand::Uniform(_))),
            "{f1}"
        );
        for f in [&f0, &f1] {
            let mut env = Env {
                uniforms: vec![0, 0, 0, 0, 4],
                ..Env::default()
            };
            env.buffers.insert(0, vec![0]);
            interp::run(f, &mut env).unwrap();
            assert_eq!(env.buffers[&0], vec![14], "{f}");
        }
    }
}

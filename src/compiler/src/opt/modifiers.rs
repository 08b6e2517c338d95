//! Source-modifier folding: float negate/abs copies fold into the float ops that read them, and a
//! saturating copy folds into the single-use float op that produced its source.

use super::uses::{def_sites, use_counts};
use crate::ir::{Function, Op, Operand, Src};

/// Compose `outer(inner(x))` for modifiers applied as abs-then-negate.
fn compose(outer: Src, inner: Src) -> (bool, bool) {
    if outer.abs {
        (outer.neg, true)
    } else {
        (outer.neg ^ inner.neg, inner.abs)
    }
}

pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    let sites = def_sites(f);
    // neg/abs copies into float consumers.
    let snapshot: Vec<Vec<crate::ir::Instr>> = f.blocks.iter().map(|b| b.instrs.clone()).collect();
    let shapes = f.shapes.clone();
    for b in &mut f.blocks {
        for i in &mut b.instrs {
            if !i.op.takes_float_modifiers() {
                continue;
            }
            for s in &mut i.srcs {
                let Operand::Value { v, comp: 0 } = s.op else {
                    continue;
                };
                let Some((db, di)) = sites[v.0 as usize] else {
                    continue;
                };
                let d = &snapshot[db][di];
                if d.op != Op::Copy
                    || d.sat
                    || !d.srcs[0].has_modifiers()
                    || !shapes[v.0 as usize].ty.is_float()
                {
                    continue;
                }
                let inner = d.srcs[0];
                let (neg, abs) = compose(*s, inner);
                *s = Src {
                    op: inner.op,
                    neg,
                    abs,
                };
                changed = true;
            }
        }
    }
    // fsat(y) where y is a single-use float op without saturate: saturate y itself.
    let uses = use_counts(f);
    let sites = def_sites(f);
    let mut fold = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for (ii, i) in b.instrs.iter().enumerate() {
            if i.op != Op::Copy || !i.sat || i.srcs[0].has_modifiers() {
                continue;
            }
            let Operand::Value { v, comp: 0 } = i.srcs[0].op else {
                continue;
            };
            let Some((db, di)) = sites[v.0 as usize] else {
                continue;
            };
            let d = &f.blocks[db].instrs[di];
            if uses[v.0 as usize] == 1
                && !d.sat
                && d.op.takes_float_modifiers()
                && !matches!(d.op, Op::FCmp(_))
            {
                fold.push(((bi, ii), (db, di)));
            }
        }
    }
    for ((bi, ii), (db, di)) in fold {
        f.blocks[db].instrs[di].sat = true;
        f.blocks[bi].instrs[ii].sat = false; // now a plain copy; copy-prop removes it
        changed = true;
    }
    changed
}

#[cfg(test)]
mod tests {
    use crate::interp::{run as interp, Env};
    use crate::ir::*;

    fn neg(v: Value) -> Src {
        Src {
            neg: true,
            ..Src::val(v)
        }
    }
    fn abs(v: Value) -> Src {
        Src {
            abs: true,
            ..Src::val(v)
        }
    }

    #[test]
    fn negate_abs_and_saturate_fold_and_keep_results() {
        for input in [2.5f32, -2.5, 0.25, -0.0, f32::INFINITY, f32::NAN] {
            let mut b = Builder::new(Stage::Compute);
            let x = b.load_global(0, Src::imm(0), Type::F32, 1);
            let n = b.copy(Type::F32, neg(x)); // -x
            let a = b.copy(Type::F32, abs(n)); // |-x|
            let nn = b.copy(Type::F32, neg(a)); // -|x|
            let m = b.fmul(nn, Src::imm_f32(0.5));
            let s = b.func().shapes.len(); // next value
            let _ = s;
            let sat = b.op(Op::Copy, Shape::scalar(Type::F32), [Src::val(m)]);
            let mut f0 = b.finish();
            // Mark the copy saturating (fsat).
            for blk in &mut f0.blocks {
                for i in &mut blk.instrs {
                    if i.dst == Some(sat) {
                        i.sat = true;
                    }
                }
            }
            let mut b2 = f0.clone();
            b2.blocks[0].instrs.push(Instr::new(
                Op::StoreGlobal { binding: 1 },
                None,
                [Src::imm(0), Src::val(sat)],
            ));
            b2.blocks[0].instrs.push(Instr::new(
                Op::StoreGlobal { binding: 1 },
                None,
                [Src::imm(1), Src::val(m)],
            ));
            let mut f = b2.clone();
            let mut env = Env::default();
            env.buffers.insert(0, vec![input.to_bits()]);
            env.buffers.insert(1, vec![0, 0]);
            let mut env2 = env.clone();
            interp(&b2, &mut env).unwrap();
            crate::opt::optimize(&mut f, &crate::target::NoInline);
            interp(&f, &mut env2).unwrap();
            assert_eq!(env.buffers[&1], env2.buffers[&1], "input {input}\n{f}");
            // All three modifier copies folded into the multiply.
            let mul = f.blocks[0]
                .instrs
                .iter()
                .find(|i| i.op == Op::FMul)
                .unwrap();
            assert!(mul.srcs[0].neg && mul.srcs[0].abs, "{f}");
        }
    }

    #[test]
    fn saturate_folds_into_single_use_producer() {
        let mut b = Builder::new(Stage::Compute);
        let x = b.load_global(0, Src::imm(0), Type::F32, 1);
        let m = b.fadd(x, x);
        let mut s = Instr::new(Op::Copy, None, [Src::val(m)]);
        s.sat = true;
        let v = b.op(Op::Copy, Shape::scalar(Type::F32), []);
        s.dst = Some(v);
        let mut f = b.finish();
        let last = f.blocks[0].instrs.len() - 1;
        f.blocks[0].instrs[last] = s;
        f.blocks[0].instrs.push(Instr::new(
            Op::StoreGlobal { binding: 1 },
            None,
            [Src::imm(0), Src::val(v)],
        ));
        for input in [0.3f32, 2.0, -1.0, f32::NAN] {
            let mut g = f.clone();
            let mut env = Env::default();
            env.buffers.insert(0, vec![input.to_bits()]);
            env.buffers.insert(1, vec![0]);
            let mut env2 = env.clone();
            interp(&f, &mut env).unwrap();
            crate::opt::optimize(&mut g, &crate::target::NoInline);
            interp(&g, &mut env2).unwrap();
            assert_eq!(env.buffers[&1], env2.buffers[&1]);
            assert!(
                g.blocks[0].instrs.iter().any(|i| i.op == Op::FAdd && i.sat),
                "{g}"
            );
            assert!(
                !g.blocks[0]
                    .instrs
                    .iter()
                    .any(|i| i.op == Op::Copy && i.src_values().any(|s| s == m)),
                "{g}"
            );
        }
    }
}

//! Constant folding through the reference semantics in `eval`, plus exact integer identities.

use crate::eval::{apply_mods, eval};
use crate::ir::{Function, Op, Operand, Src, Type};

fn imm(s: &Src, ty: Type) -> Option<u32> {
    match s.op {
        Operand::Imm(b) => Some(apply_mods(ty, b, s.neg, s.abs)),
        _ => None,
    }
}

pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    let shapes = f.shapes.clone();
    let fref = &*f;
    let mut new = Vec::new();
    for (bi, b) in fref.blocks.iter().enumerate() {
        for (ii, i) in b.instrs.iter().enumerate() {
            let Some(d) = i.dst else { continue };
            if shapes[d.0 as usize].comps != 1 || matches!(i.op, Op::Copy | Op::Phi | Op::Undef) {
                continue;
            }
            let dty = shapes[d.0 as usize].ty;
            let tys: Vec<Type> = (0..i.srcs.len()).map(|k| fref.src_ty(i, k)).collect();
            let vals: Option<Vec<u32>> = i.srcs.iter().zip(&tys).map(|(s, t)| imm(s, *t)).collect();
            if let Some(vals) = vals {
                if let Some(r) = eval(i.op, dty, &tys, &vals, i.sat) {
                    new.push((
                        bi,
                        ii,
                        crate::ir::Instr::new(Op::Copy, Some(d), [Src::imm(r)]),
                    ));
                    continue;
                }
            }
            // Select on a constant condition.
            if i.op == Op::Select {
                if let Some(c) = imm(&i.srcs[0], Type::Bool) {
                    let pick = if c != 0 { i.srcs[1] } else { i.srcs[2] };
                    new.push((bi, ii, crate::ir::Instr::new(Op::Copy, Some(d), [pick])));
                    continue;
                }
            }
            // Exact integer identities (x+0, x-0, x*1, x|0, x^0, x&~0, shifts by 0).
            if matches!(dty, Type::I32 | Type::I16) && i.srcs.len() == 2 {
                let m = dty.mask();
                let (a, bimm) = (i.srcs[0], imm(&i.srcs[1], dty).map(|x| x & m));
                let aimm = imm(&i.srcs[0], dty).map(|x| x & m);
                let keep = match (i.op, aimm, bimm) {
                    (
                        Op::IAdd | Op::ISub | Op::Or | Op::Xor | Op::Shl | Op::Shr { .. },
                        _,
                        Some(0),
                    ) => Some(a),
                    (Op::IMul, _, Some(1)) => Some(a),
                    (Op::And, _, Some(x)) if x == m => Some(a),
                    (Op::IAdd | Op::Or | Op::Xor, Some(0), _) => Some(i.srcs[1]),
                    (Op::IMul, Some(1), _) => Some(i.srcs[1]),
                    (Op::IMul | Op::And, _, Some(0)) => Some(Src::imm(0)),
                    _ => None,
                };
                if let Some(s) = keep {
                    new.push((bi, ii, crate::ir::Instr::new(Op::Copy, Some(d), [s])));
                }
            }
        }
    }
    for (bi, ii, i) in new {
        f.blocks[bi].instrs[ii] = i;
        changed = true;
    }
    changed
}

#[cfg(test)]
mod tests {
    use crate::interp::{run as interp, Env};
    use crate::ir::*;

    #[test]
    fn folds_float_and_int_chains_to_one_store_of_a_constant() {
        let mut b = Builder::new(Stage::Compute);
        let a = b.copy(Type::F32, Src::imm_f32(1.5));
        let c = b.fmul(a, Src::imm_f32(-2.0));
        let d = b.alu(Op::Sfu(Sfu::Floor), Type::F32, [Src::val(c)]);
        let e = b.alu(Op::F2I { signed: true }, Type::I32, [Src::val(d)]);
        let g = b.iadd(e, Src::imm(10));
        b.store_global(0, Src::imm(0), g);
        let mut f = b.finish();
        let mut env = Env::default();
        env.buffers.insert(0, vec![0]);
        let mut env2 = env.clone();
        interp(&f, &mut env).unwrap();
        crate::opt::optimize(&mut f, &crate::target::NoInline);
        interp(&f, &mut env2).unwrap();
        assert_eq!(env.buffers[&0], env2.buffers[&0]);
        assert_eq!(env2.buffers[&0][0] as i32, 7); // floor(-3.0) + 10
                                                   // Only the two constant materialisations (index, value) and the store remain.
        assert_eq!(f.instr_count(), 3, "{f}");
    }

    #[test]
    fn integer_identities_become_copies() {
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let y = b.alu(Op::IMul, Type::I32, [Src::val(x), Src::imm(1)]);
        let z = b.alu(Op::Xor, Type::I32, [Src::imm(0), Src::val(y)]);
        b.store_global(0, x, z);
        let mut f = b.finish();
        crate::opt::optimize(&mut f, &crate::target::NoInline);
        assert_eq!(f.instr_count(), 2, "{f}");
    }
}

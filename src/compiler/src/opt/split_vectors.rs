//! Split vector device loads and stores into scalar ones (for targets without validated tuple
//! memory forms). A split load is reassembled with `collect`, which copy propagation then
//! dissolves into its component readers.

use crate::ir::{Function, Instr, Op, Operand, Shape, Src};

pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    for bi in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[bi].instrs);
        let mut out = Vec::with_capacity(old.len());
        for i in old {
            let vec_load = matches!(i.op, Op::LoadGlobal { .. })
                && i.dst.is_some_and(|d| f.shape(d).comps > 1);
            let vec_store = matches!(i.op, Op::StoreGlobal { .. })
                && matches!(i.srcs[1].op, Operand::Value { v, .. } if f.shape(v).comps > 1);
            if !vec_load && !vec_store {
                out.push(i);
                continue;
            }
            changed = true;
            let idx = i.srcs[0];
            let (shape, comps) = match (vec_load, i.dst) {
                (true, Some(d)) => (f.shape(d), f.shape(d).comps),
                _ => {
                    let v = i.srcs[1].value().unwrap();
                    (f.shape(v), f.shape(v).comps)
                }
            };
            let mut parts = Vec::new();
            for k in 0..comps {
                let at = if k == 0 {
                    idx
                } else {
                    let a = f.new_value(Shape::scalar(crate::ir::Type::I32));
                    out.push(Instr::new(Op::IAdd, Some(a), [idx, Src::imm(k as u32)]));
                    Src::val(a)
                };
                if vec_load {
                    let v = f.new_value(Shape::scalar(shape.ty));
                    out.push(Instr::new(i.op, Some(v), [at]));
                    parts.push(Src::val(v));
                } else {
                    let whole = i.srcs[1].value().unwrap();
                    let c = f.new_value(Shape::scalar(shape.ty));
                    out.push(Instr::new(Op::Copy, Some(c), [Src::comp(whole, k)]));
                    out.push(Instr::new(i.op, None, [at, Src::val(c)]));
                }
            }
            if vec_load {
                out.push(Instr::new(Op::Collect, i.dst, parts));
            }
        }
        f.blocks[bi].instrs = out;
    }
    changed
}

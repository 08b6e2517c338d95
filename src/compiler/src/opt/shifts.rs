//! Shift amounts: the IR shifts by the low five bits of a register amount (GLSL leaves
//! amounts of 32 and more undefined); targets whose shifts saturate instead get the amount
//! masked with `and 31` first, so every amount means what the IR says. Immediate amounts are
//! reduced to their low five bits here (Mesa drops a `& 31` it knows the shift implies, leaving
//! e.g. `ishl x, 0xfffffffd`, which legalisation would otherwise move into a register as is).

use crate::ir::{Function, Instr, Op, Operand, Shape, Src, Type};

pub fn mask_amounts(f: &mut Function) {
    for bi in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[bi].instrs);
        let mut out = Vec::with_capacity(old.len());
        for mut i in old {
            if matches!(i.op, Op::Shl | Op::Shr { .. })
                && matches!(i.srcs[1].op, Operand::Value { .. })
            {
                let m = f.new_value(Shape::scalar(Type::I32));
                out.push(Instr::new(Op::And, Some(m), [i.srcs[1], Src::imm(31)]));
                i.srcs[1] = Src::val(m);
            }
            if matches!(i.op, Op::Shl | Op::Shr { .. }) {
                if let Operand::Imm(v) = i.srcs[1].op {
                    i.srcs[1].op = Operand::Imm(v & 31);
                }
            }
            out.push(i);
        }
        f.blocks[bi].instrs = out;
    }
}

#[cfg(test)]
mod tests {
    use crate::interp::{run, Env};
    use crate::ir::*;

    #[test]
    fn masked_shifts_keep_the_ir_meaning() {
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let a = b.load_global(0, x, Type::I32, 1);
        let n = b.load_global(1, x, Type::I32, 1);
        let l = b.alu(Op::Shl, Type::I32, [Src::val(a), Src::val(n)]);
        let r = b.alu(
            Op::Shr { signed: false },
            Type::I32,
            [Src::val(l), Src::val(n)],
        );
        b.store_global(2, x, r);
        let f = b.finish();
        let mut g = f.clone();
        super::mask_amounts(&mut g);
        validate::validate(&g).unwrap();
        for amount in [0u32, 5, 31, 32, 37, 0xffff_ffe1] {
            let env = |f: &Function| {
                let mut e = Env::default();
                e.buffers.insert(0, vec![0x8765_4321]);
                e.buffers.insert(1, vec![amount]);
                e.buffers.insert(2, vec![0]);
                run(f, &mut e).unwrap();
                e.buffers[&2][0]
            };
            assert_eq!(env(&f), env(&g), "amount {amount}");
        }
    }

    /// An immediate amount of 32 or more keeps its low five bits (found by tests/glsl_fuzz.rs:
    /// `x << (~2u & 31u)` reached the backend as `shl x, #0xfffffffd`).
    #[test]
    fn immediate_amounts_are_reduced_to_five_bits() {
        for op in [Op::Shl, Op::Shr { signed: true }, Op::Shr { signed: false }] {
            let mut b = Builder::new(Stage::Compute);
            let x = b.sysval(SysVal::GlobalId(0));
            let a = b.load_global(0, x, Type::I32, 1);
            let r = b.alu(op, Type::I32, [Src::val(a), Src::imm(0xffff_fffd)]);
            b.store_global(1, x, r);
            let mut f = b.finish();
            super::mask_amounts(&mut f);
            let amounts: Vec<_> = f
                .blocks
                .iter()
                .flat_map(|b| &b.instrs)
                .filter(|i| i.op == op)
                .map(|i| i.srcs[1].op)
                .collect();
            assert_eq!(amounts, [Operand::Imm(29)]);
        }
    }
}

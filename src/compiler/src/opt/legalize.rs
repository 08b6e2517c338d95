//! Operand legalisation: immediates and uniforms the target cannot read in place are loaded into
//! a register by a copy just before their reader (copies and phis take them as they are: a copy
//! of an immediate is a move-immediate, phis become copies).

use crate::eval::apply_mods;
use crate::ir::{Function, Instr, Op, Operand, Shape, Src};
use crate::target::Target;

pub fn run(f: &mut Function, target: &dyn Target) {
    for bi in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[bi].instrs);
        let mut out = Vec::with_capacity(old.len());
        for mut i in old {
            if matches!(i.op, Op::Copy | Op::Phi | Op::Collect) {
                out.push(i);
                continue;
            }
            for k in 0..i.srcs.len() {
                let s = i.srcs[k];
                let sty = f.src_ty(&i, k);
                let ok = match s.op {
                    Operand::Value { .. } => true,
                    Operand::Imm(b) => {
                        // Modifiers on an immediate are folded into its bits first.
                        let bits = apply_mods(sty, b, s.neg, s.abs);
                        if target.inline_imm(i.op, sty, k, bits) {
                            i.srcs[k] = Src::imm(bits);
                            true
                        } else {
                            false
                        }
                    }
                    Operand::Uniform(_) => target.uniform_src(i.op, sty, k),
                };
                if !ok {
                    let v = f.new_value(Shape::scalar(sty));
                    let mut c = Instr::new(
                        Op::Copy,
                        Some(v),
                        [Src {
                            neg: false,
                            abs: false,
                            ..s
                        }],
                    );
                    c.sat = false;
                    out.push(c);
                    // The copy holds the raw bits; the reader keeps its modifiers.
                    i.srcs[k] = Src {
                        op: Operand::Value { v, comp: 0 },
                        ..s
                    };
                }
            }
            out.push(i);
        }
        f.blocks[bi].instrs = out;
    }
}

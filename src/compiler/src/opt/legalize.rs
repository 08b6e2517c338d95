//! Operand legalisation: immediates and uniforms the target cannot read in place are loaded into
//! a register by a copy just before their reader (copies and phis take them as they are: a copy
//! of an immediate is a move-immediate, phis become copies). Float neg/abs modifiers the target
//! cannot carry on a source become a sign-bit operation on the raw bits before the reader
//! (abs = and 0x7fffffff, neg = xor 0x80000000, -|x| = or 0x80000000; the same bits the
//! modifiers define), with the mask in a register.

use crate::eval::apply_mods;
use crate::ir::{Function, Instr, Op, Operand, Shape, Src, Type, Value};
use crate::target::Target;

pub fn run(f: &mut Function, target: &dyn Target) {
    phi_sources(f);
    let collects = collect_parts(f);
    for bi in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[bi].instrs);
        let mut out = Vec::with_capacity(old.len());
        for mut i in old {
            if matches!(i.op, Op::Phi | Op::Collect) {
                out.push(i);
                continue;
            }
            modified_collect_parts(f, &collects, &mut i, &mut out);
            if i.op == Op::Copy {
                // A copy of an immediate is a move-immediate; a copy with modifiers may need a
                // sign operation.
                if matches!(i.srcs[0].op, Operand::Value { .. }) {
                    sign_ops(f, &mut i, target, &mut out);
                }
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
            sign_ops(f, &mut i, target, &mut out);
            out.push(i);
        }
        f.blocks[bi].instrs = out;
    }
}

/// The sources of every `collect` without modifiers, by destination value.
fn collect_parts(f: &Function) -> Vec<Option<Vec<Src>>> {
    let mut collects: Vec<Option<Vec<Src>>> = vec![None; f.shapes.len()];
    for b in &f.blocks {
        for i in b.instrs.iter().filter(|i| i.op == Op::Collect) {
            if i.srcs.iter().all(|s| !s.has_modifiers()) {
                collects[i.dst.unwrap().0 as usize] = Some(i.srcs.to_vec());
            }
        }
    }
    collects
}

/// A modified scalar source (`-a.x`) that names a component of a `collect` whose part is a
/// uniform or an immediate: copy propagation leaves it (a copy carries no float modifiers, and
/// the uniform cannot carry them), and the collect would then have to build the whole vector in
/// registers for one component, which has no form. The part is copied into a value of its own
/// and the source reads that, keeping its modifiers (which `sign_ops` then moves out).
fn modified_collect_parts(
    f: &mut Function,
    collects: &[Option<Vec<Src>>],
    i: &mut Instr,
    out: &mut Vec<Instr>,
) {
    let dst_vec = i.dst.is_some_and(|d| f.shape(d).comps > 1);
    for k in 0..i.srcs.len() {
        let s = i.srcs[k];
        let Operand::Value { v, comp } = s.op else {
            continue;
        };
        let whole = matches!(i.op, Op::Spill { .. })
            || (matches!(i.op, Op::StoreGlobal { .. }) && k == 1)
            || (i.op == Op::Copy && dst_vec);
        if !s.has_modifiers() || whole {
            continue;
        }
        let Some(part) = collects[v.0 as usize].as_ref().map(|p| p[comp as usize]) else {
            continue;
        };
        if matches!(part.op, Operand::Value { .. }) {
            continue;
        }
        let t = f.new_value(Shape::scalar(f.src_ty(i, k)));
        out.push(Instr::new(Op::Copy, Some(t), [part]));
        i.srcs[k] = Src {
            op: Operand::Value { v: t, comp: 0 },
            ..s
        };
    }
}

/// Phis read what a parallel copy can move: a register, an immediate or a uniform. Copy
/// propagation leaves a phi reading a component of a `collect` when that component is a
/// uniform (and may leave it for an immediate); the phi reads the component's operand itself,
/// so the collect (which has no form of its own) is left without readers. Register allocation
/// moves an immediate or uniform through a low register when the phi's is out of the move's
/// reach.
fn phi_sources(f: &mut Function) {
    let mut collects: Vec<Option<Vec<Src>>> = vec![None; f.shapes.len()];
    for b in &f.blocks {
        for i in b.instrs.iter().filter(|i| i.op == Op::Collect) {
            collects[i.dst.unwrap().0 as usize] = Some(i.srcs.to_vec());
        }
    }
    for b in &mut f.blocks {
        for i in b.instrs.iter_mut().filter(|i| i.op == Op::Phi) {
            for s in i.srcs.iter_mut() {
                let Operand::Value { v, comp } = s.op else {
                    continue;
                };
                if let Some(parts) = &collects[v.0 as usize] {
                    let p = parts[comp as usize];
                    if !p.has_modifiers() && !matches!(p.op, Operand::Value { .. }) {
                        s.op = p.op;
                    }
                }
            }
        }
    }
}

/// Replace the modifiers of `i`'s scalar 32-bit float sources that the target cannot carry by
/// `and`/`xor`/`or` with a sign mask; a copy whose modifiers all move out becomes that op.
fn sign_ops(f: &mut Function, i: &mut Instr, target: &dyn Target, out: &mut Vec<Instr>) {
    let dty = i.dst.map(|d| f.ty(d)).unwrap_or(Type::I32);
    for k in 0..i.srcs.len() {
        let s = i.srcs[k];
        if !(s.neg || s.abs) || target.src_modifiers(i, dty, k) {
            continue;
        }
        let sty = f.src_ty(i, k);
        let Operand::Value { .. } = s.op else {
            continue;
        };
        // The modifiers act on the sign bit of a 32-bit word whatever the source value's own
        // type (a float op may read a raw loaded word): one mask works for F32 and I32. A
        // component of a tuple (a texture result) is a 32-bit word like any other; an
        // instruction that reads a whole tuple has no per-word modifiers to move out.
        let whole_tuple = f.shape(s.value().unwrap_or(Value(0))).comps != 1
            && (matches!(i.op, Op::Spill { .. } | Op::StoreGlobal { .. })
                || i.dst.is_some_and(|d| f.shape(d).comps != 1));
        if !matches!(sty, Type::F32 | Type::I32) || whole_tuple {
            continue; // left for selection to name (no validated 16-bit logic form)
        }
        let (op, mask) = match (s.neg, s.abs) {
            (false, true) => (Op::And, 0x7fff_ffffu32),
            (true, false) => (Op::Xor, 0x8000_0000),
            _ => (Op::Or, 0x8000_0000),
        };
        let plain = Src {
            neg: false,
            abs: false,
            ..s
        };
        if i.op == Op::Copy && !i.sat {
            // The copy itself becomes the sign operation.
            let m = f.new_value(Shape::scalar(Type::F32));
            out.push(Instr::new(Op::Copy, Some(m), [Src::imm(mask)]));
            i.op = op;
            i.srcs = [plain, Src::val(m)].into_iter().collect();
            return;
        }
        let m = f.new_value(Shape::scalar(Type::F32));
        out.push(Instr::new(Op::Copy, Some(m), [Src::imm(mask)]));
        let t = f.new_value(Shape::scalar(Type::F32));
        out.push(Instr::new(op, Some(t), [plain, Src::val(m)]));
        i.srcs[k] = Src::val(t);
    }
}

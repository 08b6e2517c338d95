//! Structural and SSA invariants; passes are tested to preserve them.

use super::cfg::Cfg;
use super::instr::{CfNode, Function, Operand};
use super::ops::Op;
use crate::error::CompileError;

fn check_list(f: &Function, ns: &[CfNode], errs: &mut Vec<String>) {
    if !matches!(ns.first(), Some(CfNode::Block(_))) || !matches!(ns.last(), Some(CfNode::Block(_)))
    {
        errs.push("a control-flow list must start and end with a block".into());
    }
    for w in ns.windows(2) {
        if !matches!(w[0], CfNode::Block(_)) && !matches!(w[1], CfNode::Block(_)) {
            errs.push("an if/loop must be followed by a block".into());
        }
        if let (CfNode::Block(b), CfNode::If { .. } | CfNode::Loop { .. }) = (&w[0], &w[1]) {
            if f.block(*b).terminator().is_some() {
                errs.push(format!("b{} jumps away before a structured node", b.0));
            }
        }
    }
    for n in ns {
        match n {
            CfNode::Block(_) => {}
            CfNode::If {
                then_body,
                else_body,
                ..
            } => {
                check_list(f, then_body, errs);
                check_list(f, else_body, errs);
            }
            CfNode::Loop { body } => check_list(f, body, errs),
        }
    }
}

/// Check the function's invariants; the error lists every violation found.
pub fn validate(f: &Function) -> Result<(), CompileError> {
    let mut errs = Vec::new();
    check_list(f, &f.body, &mut errs);
    let cfg = Cfg::build(f);
    let mut defined = vec![false; f.shapes.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        let mut seen_non_phi = false;
        for (k, i) in b.instrs.iter().enumerate() {
            if i.op.is_terminator() && k + 1 != b.instrs.len() {
                errs.push(format!("b{bi}: terminator `{}` is not last", i.op));
            }
            if i.op == Op::Phi {
                if seen_non_phi {
                    errs.push(format!("b{bi}: phi after a non-phi"));
                }
                let mut want = cfg.preds[bi].clone();
                let mut got = i.phi_preds.to_vec();
                want.sort();
                got.sort();
                if want != got || i.srcs.len() != i.phi_preds.len() {
                    errs.push(format!(
                        "b{bi}: phi preds {:?} != cfg preds {:?}",
                        got, want
                    ));
                }
            } else {
                seen_non_phi = true;
            }
            if let Some(d) = i.dst {
                if std::mem::replace(&mut defined[d.0 as usize], true) {
                    errs.push(format!("%{} defined twice", d.0));
                }
            }
            for s in &i.srcs {
                if let Operand::Value { v, comp } = s.op {
                    if v.0 as usize >= f.shapes.len() || comp >= f.shape(v).comps {
                        errs.push(format!("b{bi}: bad source %{}.{comp} in `{}`", v.0, i.op));
                    }
                }
            }
        }
    }
    for b in &f.blocks {
        for i in &b.instrs {
            for v in i.src_values() {
                if !defined[v.0 as usize] {
                    errs.push(format!("%{} used but never defined", v.0));
                }
            }
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(CompileError::InvalidIr(errs.join("; ")))
    }
}

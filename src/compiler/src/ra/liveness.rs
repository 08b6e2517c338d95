//! Block-level liveness of SSA values (phi sources are live out of their predecessor, phi
//! destinations are defined at block entry, an `if` condition is read at the end of its block).

use crate::ir::{BlockId, CfNode, Cfg, Function, Op, Value};

/// A dense set of values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueSet(Vec<u64>);

impl ValueSet {
    pub fn new(n: usize) -> Self {
        ValueSet(vec![0; n.div_ceil(64)])
    }
    pub fn insert(&mut self, v: Value) -> bool {
        let (w, b) = (v.0 as usize / 64, v.0 % 64);
        let was = self.0[w] >> b & 1 == 1;
        self.0[w] |= 1 << b;
        !was
    }
    pub fn remove(&mut self, v: Value) {
        self.0[v.0 as usize / 64] &= !(1 << (v.0 % 64));
    }
    pub fn contains(&self, v: Value) -> bool {
        self.0[v.0 as usize / 64] >> (v.0 % 64) & 1 == 1
    }
    pub fn union_with(&mut self, o: &ValueSet) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            let n = *a | *b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
    pub fn iter(&self) -> impl Iterator<Item = Value> + '_ {
        self.0.iter().enumerate().flat_map(|(w, bits)| {
            (0..64)
                .filter(move |b| bits >> b & 1 == 1)
                .map(move |b| Value((w * 64 + b) as u32))
        })
    }
}

pub struct Liveness {
    pub live_in: Vec<ValueSet>,
    pub live_out: Vec<ValueSet>,
    /// The value an `if` after this block branches on.
    pub branch_cond: Vec<Option<Value>>,
}

/// For each block, the value an `if` right after it branches on.
pub(crate) fn conds(ns: &[CfNode], out: &mut Vec<Option<Value>>) {
    for (k, n) in ns.iter().enumerate() {
        match n {
            CfNode::If {
                cond,
                then_body,
                else_body,
            } => {
                if let Some(CfNode::Block(b)) = k.checked_sub(1).map(|p| &ns[p]) {
                    out[b.0 as usize] = Some(*cond);
                }
                conds(then_body, out);
                conds(else_body, out);
            }
            CfNode::Loop { body } => conds(body, out),
            CfNode::Block(_) => {}
        }
    }
}

impl Liveness {
    pub fn compute(f: &Function, cfg: &Cfg) -> Liveness {
        let n = f.blocks.len();
        let nv = f.shapes.len();
        let mut branch_cond = vec![None; n];
        conds(&f.body, &mut branch_cond);
        // Per-block upward-exposed uses and defs (phi sources excluded: they belong to preds).
        let mut gen = vec![ValueSet::new(nv); n];
        let mut kill = vec![ValueSet::new(nv); n];
        let mut phi_uses = vec![ValueSet::new(nv); n]; // live-out contributions of each pred
        for (bi, b) in f.blocks.iter().enumerate() {
            if let Some(c) = branch_cond[bi] {
                gen[bi].insert(c);
            }
            for i in b.instrs.iter().rev() {
                if let Some(d) = i.dst {
                    gen[bi].remove(d);
                    kill[bi].insert(d);
                }
                if i.op == Op::Phi {
                    for (s, p) in i.srcs.iter().zip(&i.phi_preds) {
                        if let Some(v) = s.value() {
                            phi_uses[p.0 as usize].insert(v);
                        }
                    }
                } else {
                    for v in i.src_values() {
                        gen[bi].insert(v);
                    }
                }
            }
        }
        let mut live_in = vec![ValueSet::new(nv); n];
        let mut live_out = phi_uses.clone();
        let order: Vec<BlockId> = f.block_order();
        let mut changed = true;
        while changed {
            changed = false;
            for b in order.iter().rev() {
                let bi = b.0 as usize;
                let mut out = phi_uses[bi].clone();
                for s in cfg.succs(*b) {
                    out.union_with(&live_in[s.0 as usize]);
                }
                let mut inn = out.clone();
                for v in kill[bi].iter() {
                    inn.remove(v);
                }
                inn.union_with(&gen[bi]);
                // Phi destinations are defined at entry, so they are never live-in.
                for i in f.blocks[bi].instrs.iter().take_while(|i| i.op == Op::Phi) {
                    inn.remove(i.dst.unwrap());
                }
                if inn != live_in[bi] || out != live_out[bi] {
                    live_in[bi] = inn;
                    live_out[bi] = out;
                    changed = true;
                }
            }
        }
        Liveness {
            live_in,
            live_out,
            branch_cond,
        }
    }
}

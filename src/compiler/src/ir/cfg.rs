//! The control-flow graph implied by the structured body.

use super::instr::{BlockId, CfNode, Function};
use super::ops::Op;

/// Successors and predecessors of every block, in deterministic order.
#[derive(Clone, Debug, Default)]
pub struct Cfg {
    pub succs: Vec<Vec<BlockId>>,
    pub preds: Vec<Vec<BlockId>>,
    /// Blocks whose successor edges leave through a structured `if` (block before the `If`).
    pub if_cond_block: Vec<bool>,
    /// Nesting depth of loops around each block (for spill-cost weighting).
    pub loop_depth: Vec<u32>,
}

/// The first block control reaches in `n` (an `if` has none of its own: its preceding block
/// branches).
fn entry(n: &CfNode) -> Option<BlockId> {
    match n {
        CfNode::Block(b) => Some(*b),
        CfNode::Loop { body } => body.first().and_then(entry),
        CfNode::If { .. } => None,
    }
}

struct Walker<'a> {
    f: &'a Function,
    cfg: Cfg,
}

impl Walker<'_> {
    fn edge(&mut self, from: BlockId, to: BlockId) {
        self.cfg.succs[from.0 as usize].push(to);
        self.cfg.preds[to.0 as usize].push(from);
    }

    /// `next`: where control goes after the list falls through (`None`: function exit).
    /// `lp`: (header, exit) of the innermost loop.
    fn list(
        &mut self,
        nodes: &[CfNode],
        next: Option<BlockId>,
        lp: Option<(BlockId, Option<BlockId>)>,
        depth: u32,
    ) {
        for (i, n) in nodes.iter().enumerate() {
            let follow = nodes.get(i + 1).and_then(entry).or(next);
            match n {
                CfNode::Block(b) => {
                    self.cfg.loop_depth[b.0 as usize] = depth;
                    let term = self.f.block(*b).terminator();
                    match (term, nodes.get(i + 1)) {
                        (Some(Op::Break), _) => {
                            if let Some((_, Some(exit))) = lp {
                                self.edge(*b, exit);
                            }
                        }
                        (Some(Op::Continue), _) => {
                            if let Some((h, _)) = lp {
                                self.edge(*b, h);
                            }
                        }
                        (Some(_), _) => {} // return / discard leave the function
                        (
                            None,
                            Some(CfNode::If {
                                then_body,
                                else_body,
                                ..
                            }),
                        ) => {
                            self.cfg.if_cond_block[b.0 as usize] = true;
                            for arm in [then_body, else_body] {
                                if let Some(t) = arm.first().and_then(entry) {
                                    self.edge(*b, t);
                                }
                            }
                        }
                        (None, _) => {
                            if let Some(t) = follow {
                                self.edge(*b, t);
                            }
                        }
                    }
                }
                CfNode::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.list(then_body, follow, lp, depth);
                    self.list(else_body, follow, lp, depth);
                }
                CfNode::Loop { body } => {
                    if let Some(h) = body.first().and_then(entry) {
                        self.list(body, Some(h), Some((h, follow)), depth + 1);
                    }
                }
            }
        }
    }
}

impl Cfg {
    pub fn build(f: &Function) -> Cfg {
        let n = f.blocks.len();
        let cfg = Cfg {
            succs: vec![Vec::new(); n],
            preds: vec![Vec::new(); n],
            if_cond_block: vec![false; n],
            loop_depth: vec![0; n],
        };
        let mut w = Walker { f, cfg };
        w.list(&f.body, None, None, 0);
        w.cfg
    }

    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        &self.preds[b.0 as usize]
    }
    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        &self.succs[b.0 as usize]
    }
}

//! Instructions, operands and the function container.

use super::ops::Op;
use super::types::{Shape, Type};
use smallvec::SmallVec;

/// An SSA value: defined exactly once, by one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

/// A basic block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// Where a source operand's bits come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// Component `comp` of an SSA value (`comp == 0` for scalars).
    Value { v: Value, comp: u8 },
    /// Constant bits, in the source's type (f32 bits, f16 bits in the low half, integers).
    Imm(u32),
    /// A 32-bit uniform register (the uniform file, preloaded per draw/dispatch).
    Uniform(u16),
}

/// A source operand with float modifiers (only meaningful on ops that take them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Src {
    pub op: Operand,
    pub neg: bool,
    pub abs: bool,
}

impl Src {
    pub fn val(v: Value) -> Self {
        Src {
            op: Operand::Value { v, comp: 0 },
            neg: false,
            abs: false,
        }
    }
    pub fn comp(v: Value, comp: u8) -> Self {
        Src {
            op: Operand::Value { v, comp },
            neg: false,
            abs: false,
        }
    }
    pub fn imm(bits: u32) -> Self {
        Src {
            op: Operand::Imm(bits),
            neg: false,
            abs: false,
        }
    }
    pub fn imm_f32(x: f32) -> Self {
        Src::imm(x.to_bits())
    }
    pub fn uniform(idx: u16) -> Self {
        Src {
            op: Operand::Uniform(idx),
            neg: false,
            abs: false,
        }
    }
    pub fn value(&self) -> Option<Value> {
        match self.op {
            Operand::Value { v, .. } => Some(v),
            _ => None,
        }
    }
    pub fn has_modifiers(&self) -> bool {
        self.neg || self.abs
    }
}

impl From<Value> for Src {
    fn from(v: Value) -> Self {
        Src::val(v)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    pub op: Op,
    pub dst: Option<Value>,
    pub srcs: SmallVec<[Src; 3]>,
    /// Clamp a float result to [0, 1].
    pub sat: bool,
    /// For phis: the predecessor block each source comes from.
    pub phi_preds: SmallVec<[BlockId; 2]>,
}

impl Instr {
    pub fn new(op: Op, dst: Option<Value>, srcs: impl IntoIterator<Item = Src>) -> Self {
        Instr {
            op,
            dst,
            srcs: srcs.into_iter().collect(),
            sat: false,
            phi_preds: SmallVec::new(),
        }
    }

    pub fn src_values(&self) -> impl Iterator<Item = Value> + '_ {
        self.srcs.iter().filter_map(|s| s.value())
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    pub instrs: Vec<Instr>,
}

impl Block {
    /// The terminator, if the block ends in one.
    pub fn terminator(&self) -> Option<Op> {
        self.instrs
            .last()
            .map(|i| i.op)
            .filter(|op| op.is_terminator())
    }
}

/// Structured control flow, shaped like NIR's: every list starts and ends with a block, and an
/// `If` or `Loop` is always followed by a block (the merge / exit block that holds its phis).
#[derive(Clone, Debug, PartialEq)]
pub enum CfNode {
    Block(BlockId),
    If {
        cond: Value,
        then_body: Vec<CfNode>,
        else_body: Vec<CfNode>,
    },
    Loop {
        body: Vec<CfNode>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Compute,
    Vertex,
    Fragment,
}

/// One shader entry point in SSA form.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub stage: Stage,
    pub shapes: Vec<Shape>,
    pub blocks: Vec<Block>,
    pub body: Vec<CfNode>,
}

impl Function {
    pub fn shape(&self, v: Value) -> Shape {
        self.shapes[v.0 as usize]
    }
    pub fn ty(&self, v: Value) -> Type {
        self.shapes[v.0 as usize].ty
    }
    pub fn new_value(&mut self, shape: Shape) -> Value {
        self.shapes.push(shape);
        Value(self.shapes.len() as u32 - 1)
    }
    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.0 as usize]
    }
    pub fn block_mut(&mut self, b: BlockId) -> &mut Block {
        &mut self.blocks[b.0 as usize]
    }
    /// Blocks in program (structured, dominance-compatible) order.
    pub fn block_order(&self) -> Vec<BlockId> {
        fn walk(nodes: &[CfNode], out: &mut Vec<BlockId>) {
            for n in nodes {
                match n {
                    CfNode::Block(b) => out.push(*b),
                    CfNode::If {
                        then_body,
                        else_body,
                        ..
                    } => {
                        walk(then_body, out);
                        walk(else_body, out);
                    }
                    CfNode::Loop { body } => walk(body, out),
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.body, &mut out);
        out
    }
    /// Total instructions (a size measure for tests and statistics).
    pub fn instr_count(&self) -> usize {
        self.blocks.iter().map(|b| b.instrs.len()).sum()
    }
}

impl Function {
    /// The type source `k` of `i` is read as. Typeless operands (immediates, uniforms) of
    /// compares and conversions take the type of a value source of the same instruction, or
    /// the op's natural default (f32 for float ops, i32 for integer ops).
    pub fn src_ty(&self, i: &Instr, k: usize) -> Type {
        let dty = i.dst.map(|d| self.ty(d)).unwrap_or(Type::I32);
        if let Some(t) = i.op.src_type(dty, k) {
            return t;
        }
        let val_ty = |s: &Src| s.value().map(|v| self.ty(v));
        if let Some(t) = val_ty(&i.srcs[k]) {
            return t;
        }
        let first = if i.op == Op::Select { 1 } else { 0 };
        if let Some(t) = i.srcs.iter().skip(first).find_map(val_ty) {
            return t;
        }
        match i.op {
            Op::FCmp(_) | Op::F2I { .. } => Type::F32,
            Op::ICmp { .. } | Op::I2F { .. } => Type::I32,
            _ => dty,
        }
    }
}

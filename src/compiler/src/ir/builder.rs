//! A cursor-style builder for SSA functions with structured control flow.

use super::instr::{Block, BlockId, CfNode, Function, Instr, Src, Stage, Value};
use super::ops::{Cmp, Op, Sfu, SysVal};
use super::types::{Shape, Type};

enum Frame {
    Root(Vec<CfNode>),
    If {
        cond: Value,
        then_body: Option<Vec<CfNode>>,
        cur: Vec<CfNode>,
    },
    Loop(Vec<CfNode>),
}

impl Frame {
    fn list(&mut self) -> &mut Vec<CfNode> {
        match self {
            Frame::Root(l) | Frame::Loop(l) => l,
            Frame::If { cur, .. } => cur,
        }
    }
}

pub struct Builder {
    f: Function,
    frames: Vec<Frame>,
}

impl Builder {
    pub fn new(stage: Stage) -> Self {
        let mut b = Builder {
            f: Function {
                stage,
                shapes: Vec::new(),
                blocks: Vec::new(),
                body: Vec::new(),
            },
            frames: vec![Frame::Root(Vec::new())],
        };
        b.open_block();
        b
    }

    fn open_block(&mut self) -> BlockId {
        let id = BlockId(self.f.blocks.len() as u32);
        self.f.blocks.push(Block::default());
        self.frames
            .last_mut()
            .unwrap()
            .list()
            .push(CfNode::Block(id));
        id
    }

    /// The block instructions are currently appended to.
    pub fn current_block(&mut self) -> BlockId {
        match self.frames.last_mut().unwrap().list().last() {
            Some(CfNode::Block(b)) => *b,
            _ => unreachable!("a list always ends with a block"),
        }
    }

    pub fn func(&self) -> &Function {
        &self.f
    }

    pub fn emit(&mut self, instr: Instr) {
        let b = self.current_block();
        self.f.block_mut(b).instrs.push(instr);
    }

    /// Emit `op` with a fresh destination of `shape`.
    pub fn op(&mut self, op: Op, shape: Shape, srcs: impl IntoIterator<Item = Src>) -> Value {
        let dst = self.f.new_value(shape);
        self.emit(Instr::new(op, Some(dst), srcs));
        dst
    }

    pub fn alu(&mut self, op: Op, ty: Type, srcs: impl IntoIterator<Item = Src>) -> Value {
        self.op(op, Shape::scalar(ty), srcs)
    }

    pub fn fadd(&mut self, a: impl Into<Src>, b: impl Into<Src>) -> Value {
        self.alu(Op::FAdd, Type::F32, [a.into(), b.into()])
    }
    pub fn fmul(&mut self, a: impl Into<Src>, b: impl Into<Src>) -> Value {
        self.alu(Op::FMul, Type::F32, [a.into(), b.into()])
    }
    pub fn ffma(&mut self, a: impl Into<Src>, b: impl Into<Src>, c: impl Into<Src>) -> Value {
        self.alu(Op::FFma, Type::F32, [a.into(), b.into(), c.into()])
    }
    pub fn sfu(&mut self, s: Sfu, a: impl Into<Src>) -> Value {
        self.alu(Op::Sfu(s), Type::F32, [a.into()])
    }
    pub fn fcmp(&mut self, c: Cmp, a: impl Into<Src>, b: impl Into<Src>) -> Value {
        self.alu(Op::FCmp(c), Type::Bool, [a.into(), b.into()])
    }
    pub fn iadd(&mut self, a: impl Into<Src>, b: impl Into<Src>) -> Value {
        self.alu(Op::IAdd, Type::I32, [a.into(), b.into()])
    }
    pub fn icmp(&mut self, cond: Cmp, signed: bool, a: impl Into<Src>, b: impl Into<Src>) -> Value {
        self.alu(Op::ICmp { cond, signed }, Type::Bool, [a.into(), b.into()])
    }
    pub fn select(&mut self, ty: Type, c: Value, a: impl Into<Src>, b: impl Into<Src>) -> Value {
        self.alu(Op::Select, ty, [Src::val(c), a.into(), b.into()])
    }
    /// `clamp(a, 0, 1)` as a saturating copy (folded into its producer by the optimiser).
    pub fn saturate(&mut self, ty: Type, a: impl Into<Src>) -> Value {
        let dst = self.f.new_value(Shape::scalar(ty));
        let mut i = Instr::new(Op::Copy, Some(dst), [a.into()]);
        i.sat = true;
        self.emit(i);
        dst
    }
    pub fn copy(&mut self, ty: Type, a: impl Into<Src>) -> Value {
        self.alu(Op::Copy, ty, [a.into()])
    }
    pub fn sysval(&mut self, s: SysVal) -> Value {
        self.alu(Op::SysVal(s), Type::I32, [])
    }
    pub fn load_global(
        &mut self,
        binding: u8,
        index: impl Into<Src>,
        ty: Type,
        comps: u8,
    ) -> Value {
        self.op(
            Op::LoadGlobal { binding },
            Shape::vec(ty, comps),
            [index.into()],
        )
    }
    /// RGBA of texture `texture` through sampler `sampler` (`Op::Texture`): srcs u, v for
    /// `Sample`, u, v, LOD word for `Lod`, x, y, level word for `Fetch` (2D); the array and
    /// 3D forms add the layer / z before the word (`TexDim`).
    pub fn texture(
        &mut self,
        texture: u8,
        sampler: u8,
        kind: super::TexKind,
        dim: super::TexDim,
        srcs: impl IntoIterator<Item = Src>,
    ) -> Value {
        self.op(
            Op::Texture {
                texture,
                sampler,
                kind,
                dim,
            },
            Shape::vec(Type::F32, 4),
            srcs,
        )
    }
    pub fn store_global(&mut self, binding: u8, index: impl Into<Src>, value: impl Into<Src>) {
        self.emit(Instr::new(
            Op::StoreGlobal { binding },
            None,
            [index.into(), value.into()],
        ));
    }
    /// Vertex stage: output scalar `slot` := `value`.
    pub fn store_output(&mut self, slot: u8, value: impl Into<Src>) {
        self.emit(Instr::new(Op::StoreOutput { slot }, None, [value.into()]));
    }
    /// Fragment stage: coefficient register `cf` interpolated with `interp`.
    pub fn load_varying(&mut self, cf: u8, interp: super::ops::Interp) -> Value {
        self.alu(Op::LoadVarying { cf, interp }, Type::F32, [])
    }
    /// Fragment stage: tilebuffer word `word` := `value`.
    pub fn store_tile(&mut self, word: u8, value: impl Into<Src>) {
        self.emit(Instr::new(
            Op::StoreTile {
                word,
                masked: false,
            },
            None,
            [value.into()],
        ));
    }
    /// Fragment stage: tilebuffer word `word` := `value` for the samples in `mask` (a
    /// multisampled tilebuffer).
    pub fn store_tile_masked(&mut self, word: u8, value: impl Into<Src>, mask: impl Into<Src>) {
        self.emit(Instr::new(
            Op::StoreTile { word, masked: true },
            None,
            [value.into(), mask.into()],
        ));
    }
    /// Fragment stage: the coverage word (asynchronous).
    pub fn coverage(&mut self) -> Value {
        self.alu(Op::Coverage, Type::I32, [])
    }
    /// Fragment stage: coverage write of control word `word` (`test`: it has live samples).
    pub fn sample_mask(&mut self, test: bool, word: impl Into<Src>) {
        self.emit(Instr::new(Op::SampleMask { test }, None, [word.into()]));
    }
    /// Fragment stage: depth store (test of every sample with depth `z`, control word `word`).
    pub fn depth_store(&mut self, word: impl Into<Src>, z: impl Into<Src>) {
        self.emit(Instr::new(Op::DepthStore, None, [word.into(), z.into()]));
    }
    /// Fragment stage: the raw tilebuffer word `word` (sample 0) before this fragment's store.
    pub fn load_tile(&mut self, word: u8) -> Value {
        self.alu(
            Op::LoadTile {
                word,
                masked: false,
            },
            Type::I32,
            [],
        )
    }
    /// Fragment stage: the raw tilebuffer word `word` of the one sample in `mask` (a
    /// multisampled tilebuffer).
    pub fn load_tile_masked(&mut self, word: u8, mask: impl Into<Src>) -> Value {
        self.alu(
            Op::LoadTile { word, masked: true },
            Type::I32,
            [mask.into()],
        )
    }
    pub fn collect(&mut self, ty: Type, comps: &[Src]) -> Value {
        self.op(
            Op::Collect,
            Shape::vec(ty, comps.len() as u8),
            comps.iter().copied(),
        )
    }

    /// A phi in the current block; `incoming` pairs each predecessor with its value.
    pub fn phi(&mut self, shape: Shape, incoming: &[(BlockId, Src)]) -> Value {
        let dst = self.f.new_value(shape);
        let mut i = Instr::new(Op::Phi, Some(dst), incoming.iter().map(|(_, s)| *s));
        i.phi_preds = incoming.iter().map(|(b, _)| *b).collect();
        let b = self.current_block();
        let instrs = &mut self.f.block_mut(b).instrs;
        let at = instrs.iter().take_while(|i| i.op == Op::Phi).count();
        instrs.insert(at, i);
        dst
    }

    /// Add an incoming edge to an existing phi (loop back-edges are known only after the body).
    pub fn add_phi_src(&mut self, phi: Value, pred: BlockId, src: Src) {
        for blk in &mut self.f.blocks {
            if let Some(i) = blk
                .instrs
                .iter_mut()
                .find(|i| i.op == Op::Phi && i.dst == Some(phi))
            {
                i.srcs.push(src);
                i.phi_preds.push(pred);
                return;
            }
        }
    }

    pub fn if_(&mut self, cond: Value) -> BlockId {
        self.frames.push(Frame::If {
            cond,
            then_body: None,
            cur: Vec::new(),
        });
        self.open_block()
    }

    /// Switch to the else arm; returns its first block.
    pub fn else_(&mut self) -> BlockId {
        if let Some(Frame::If { then_body, cur, .. }) = self.frames.last_mut() {
            *then_body = Some(std::mem::take(cur));
        }
        self.open_block()
    }

    /// Close the if; returns (last block of then, last block of else, merge block).
    pub fn end_if(&mut self) -> (BlockId, BlockId, BlockId) {
        if let Some(Frame::If {
            then_body: None, ..
        }) = self.frames.last()
        {
            self.else_();
        }
        let Some(Frame::If {
            cond,
            then_body: Some(then_body),
            cur,
        }) = self.frames.pop()
        else {
            unreachable!("end_if without if_")
        };
        let last = |l: &Vec<CfNode>| match l.last() {
            Some(CfNode::Block(b)) => *b,
            _ => unreachable!(),
        };
        let (t, e) = (last(&then_body), last(&cur));
        self.frames.last_mut().unwrap().list().push(CfNode::If {
            cond,
            then_body,
            else_body: cur,
        });
        let m = self.open_block();
        (t, e, m)
    }

    /// Open a loop; returns the header block.
    pub fn loop_(&mut self) -> BlockId {
        self.frames.push(Frame::Loop(Vec::new()));
        self.open_block()
    }

    /// Close the loop; returns (last block of the body, exit block).
    pub fn end_loop(&mut self) -> (BlockId, BlockId) {
        let last = self.current_block();
        let Some(Frame::Loop(body)) = self.frames.pop() else {
            unreachable!("end_loop without loop_")
        };
        self.frames
            .last_mut()
            .unwrap()
            .list()
            .push(CfNode::Loop { body });
        (last, self.open_block())
    }

    /// Emit a terminator and continue in a fresh (unreachable-by-fallthrough) block.
    fn jump(&mut self, op: Op) {
        self.emit(Instr::new(op, None, []));
    }
    pub fn break_(&mut self) {
        self.jump(Op::Break)
    }
    pub fn continue_(&mut self) {
        self.jump(Op::Continue)
    }
    pub fn return_(&mut self) {
        self.jump(Op::Return)
    }
    pub fn discard(&mut self) {
        self.jump(Op::Discard)
    }

    pub fn finish(mut self) -> Function {
        assert_eq!(self.frames.len(), 1, "unclosed if/loop");
        let Some(Frame::Root(body)) = self.frames.pop() else {
            unreachable!()
        };
        self.f.body = body;
        self.f
    }
}

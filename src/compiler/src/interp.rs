//! A per-thread CPU interpreter of the SSA IR: the reference evaluation that passes, register
//! allocation and generated code are compared against.

use crate::eval::{apply_mods, eval};
use crate::ir::{BlockId, CfNode, Function, Op, Operand, Src, SysVal, Type};
use std::collections::HashMap;

/// Buffers by binding (32-bit words), the uniform file and the thread's ids; for graphics
/// stages the vertex/instance ids, the vertex outputs written (by slot), the fragment's
/// iterated coefficient registers (f32 bits by register, already interpolated the way the
/// binding says) and the tilebuffer words (read by `load_tile`, written by `store_tile`).
#[derive(Clone, Debug, Default)]
pub struct Env {
    pub buffers: HashMap<u8, Vec<u32>>,
    pub uniforms: Vec<u32>,
    pub global_id: [u32; 3],
    pub local_id: [u32; 3],
    pub group_id: [u32; 3],
    pub vertex_id: u32,
    pub instance_id: u32,
    /// Fragment stage: the framebuffer pixel (x, y).
    pub pixel: [u32; 2],
    /// Fragment stage: the primitive is back-facing (the facing word reads 1, else 0).
    pub back_facing: bool,
    pub outputs: HashMap<u8, u32>,
    pub varyings: Vec<u32>,
    pub tile: HashMap<u8, u32>,
    /// Fragment stage: a coverage write killed the (single-sample) fragment.
    pub killed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Returned,
    Discarded,
}

enum Flow {
    Next,
    Break,
    Continue,
    Exit(Exit),
}

struct Thread<'a> {
    f: &'a Function,
    env: &'a mut Env,
    vals: Vec<Option<[u32; 4]>>,
    scratch: HashMap<u32, [u32; 4]>,
    prev: Option<BlockId>,
    steps: u64,
}

/// Element `idx` of a buffer of 32-bit words, viewed as elements of `ty`: 16-bit types index
/// halves (little-endian: element 2k is the low half of word k), like 16-bit device accesses.
pub fn read_elem(buf: &[u32], idx: usize, ty: Type) -> Option<u32> {
    if ty.is_16bit() {
        buf.get(idx / 2).map(|w| (w >> (16 * (idx % 2))) & 0xffff)
    } else {
        buf.get(idx).copied()
    }
}

/// Store element `idx` of `ty` (see `read_elem`).
pub fn write_elem(buf: &mut [u32], idx: usize, ty: Type, v: u32) -> Option<()> {
    if ty.is_16bit() {
        let w = buf.get_mut(idx / 2)?;
        let sh = 16 * (idx % 2);
        *w = (*w & !(0xffff << sh)) | ((v & 0xffff) << sh);
    } else {
        *buf.get_mut(idx)? = v;
    }
    Some(())
}

/// Upper bound on executed instructions, so a non-terminating loop is an error, not a hang.
const STEP_LIMIT: u64 = 10_000_000;

impl Thread<'_> {
    fn read(&self, s: &Src, ty: Type) -> Result<u32, String> {
        let bits = match s.op {
            Operand::Value { v, comp } => self.vals[v.0 as usize]
                .ok_or_else(|| format!("%{} read before written", v.0))?[comp as usize],
            Operand::Imm(b) => b,
            Operand::Uniform(u) => *self
                .env
                .uniforms
                .get(u as usize)
                .ok_or(format!("uniform u{u} not bound"))?,
        };
        Ok(apply_mods(ty, bits, s.neg, s.abs))
    }

    fn block(&mut self, b: BlockId) -> Result<Flow, String> {
        let f = self.f;
        // Phis read their sources "on the edge": evaluate all of them before writing any.
        let mut phis = Vec::new();
        for i in f.block(b).instrs.iter().take_while(|i| i.op == Op::Phi) {
            let k = i
                .phi_preds
                .iter()
                .position(|p| Some(*p) == self.prev)
                .ok_or("phi without edge from predecessor")?;
            let d = i.dst.unwrap();
            let comps = f.shape(d).comps as usize;
            let mut out = [0; 4];
            for (c, o) in out.iter_mut().enumerate().take(comps) {
                let s = &i.srcs[k];
                let s = match s.op {
                    Operand::Value { v, .. } if comps > 1 => Src::comp(v, c as u8),
                    _ => *s,
                };
                *o = self.read(&s, f.ty(d))?;
            }
            phis.push((d, out));
        }
        for (d, out) in phis {
            self.vals[d.0 as usize] = Some(out);
        }
        self.prev = Some(b);
        for i in f.block(b).instrs.iter().skip_while(|i| i.op == Op::Phi) {
            self.steps += 1;
            if self.steps > STEP_LIMIT {
                return Err("step limit exceeded".into());
            }
            let dty = i.dst.map(|d| f.ty(d)).unwrap_or(Type::I32);
            let mut out = [0u32; 4];
            match i.op {
                Op::Break => return Ok(Flow::Break),
                Op::Continue => return Ok(Flow::Continue),
                Op::Return => return Ok(Flow::Exit(Exit::Returned)),
                Op::Discard => return Ok(Flow::Exit(Exit::Discarded)),
                Op::Undef => {}
                Op::SysVal(s) => {
                    out[0] = match s {
                        SysVal::GlobalId(a) => self.env.global_id[a as usize],
                        SysVal::LocalId(a) => self.env.local_id[a as usize],
                        SysVal::GroupId(a) => self.env.group_id[a as usize],
                        SysVal::VertexId => self.env.vertex_id,
                        SysVal::InstanceId => self.env.instance_id,
                        SysVal::PixelCoord(a) => self.env.pixel[a as usize & 1],
                        SysVal::BackFacing => self.env.back_facing as u32,
                    }
                }
                Op::StoreOutput { slot } => {
                    let v = self.read(&i.srcs[0], Type::I32)?;
                    self.env.outputs.insert(slot, v);
                }
                Op::StoreTile { word, .. } => {
                    let v = self.read(&i.srcs[0], Type::I32)?;
                    if !self.env.killed {
                        self.env.tile.insert(word, v);
                    }
                }
                // One covered sample whose test is pending (a late-test pass).
                Op::Coverage => out[0] = 0x11,
                // Sample 0 in the target and not live: killed (a later test has no effect).
                Op::SampleMask { .. } | Op::DepthStore => {
                    let w = self.read(&i.srcs[0], Type::I32)?;
                    if w >> 8 & 1 != 0 && w & 1 == 0 {
                        self.env.killed = true;
                    }
                }
                Op::LoadTile { word, .. } => {
                    out[0] = *self
                        .env
                        .tile
                        .get(&word)
                        .ok_or(format!("tile word {word} has no contents"))?;
                }
                Op::LoadVarying { cf, .. } => {
                    out[0] = *self
                        .env
                        .varyings
                        .get(cf as usize)
                        .ok_or(format!("coefficient register {cf} not bound"))?;
                }
                Op::Collect => {
                    for (k, s) in i.srcs.iter().enumerate() {
                        out[k] = self.read(s, dty)?;
                    }
                }
                Op::Copy if f.shape(i.dst.unwrap()).comps > 1 => {
                    let v = i.srcs[0].value().ok_or("vector copy of a non-value")?;
                    out = self.vals[v.0 as usize].ok_or("vector copy source unset")?;
                }
                Op::LoadGlobal { binding } => {
                    let idx = self.read(&i.srcs[0], Type::I32)? as usize;
                    let buf = self
                        .env
                        .buffers
                        .get(&binding)
                        .ok_or(format!("binding {binding} not bound"))?;
                    for (c, o) in out
                        .iter_mut()
                        .enumerate()
                        .take(f.shape(i.dst.unwrap()).comps as usize)
                    {
                        *o = read_elem(buf, idx + c, dty)
                            .ok_or(format!("load b{binding}[{}] out of bounds", idx + c))?;
                    }
                }
                Op::StoreGlobal { binding } => {
                    let idx = self.read(&i.srcs[0], Type::I32)? as usize;
                    let (vals, comps) = match i.srcs[1].op {
                        Operand::Value { v, comp } if f.shape(v).comps > 1 && comp == 0 => (
                            self.vals[v.0 as usize].ok_or("store of unset value")?,
                            f.shape(v).comps as usize,
                        ),
                        _ => ([self.read(&i.srcs[1], Type::I32)?, 0, 0, 0], 1),
                    };
                    let sty = match i.srcs[1].op {
                        Operand::Value { v, .. } => f.ty(v),
                        _ => Type::I32,
                    };
                    let buf = self
                        .env
                        .buffers
                        .get_mut(&binding)
                        .ok_or(format!("binding {binding} not bound"))?;
                    for (c, v) in vals.iter().enumerate().take(comps) {
                        write_elem(buf, idx + c, sty, *v)
                            .ok_or(format!("store b{binding}[{}] out of bounds", idx + c))?;
                    }
                }
                Op::Spill { slot } => {
                    let v = i.srcs[0].value().ok_or("spill of non-value")?;
                    self.scratch
                        .insert(slot, self.vals[v.0 as usize].ok_or("spill of unset value")?);
                }
                Op::Fill { slot } => {
                    out = *self
                        .scratch
                        .get(&slot)
                        .ok_or(format!("fill of empty slot {slot}"))?
                }
                op => {
                    let tys: Vec<Type> = (0..i.srcs.len()).map(|k| f.src_ty(i, k)).collect();
                    let mut s = Vec::with_capacity(i.srcs.len());
                    for (k, src) in i.srcs.iter().enumerate() {
                        s.push(self.read(src, tys[k])?);
                    }
                    out[0] = eval(op, dty, &tys, &s, i.sat)
                        .ok_or_else(|| format!("cannot evaluate `{op}`"))?;
                }
            }
            if let Some(d) = i.dst {
                self.vals[d.0 as usize] = Some(out);
            }
        }
        Ok(Flow::Next)
    }

    fn list(&mut self, nodes: &[CfNode]) -> Result<Flow, String> {
        for n in nodes {
            let flow = match n {
                CfNode::Block(b) => self.block(*b)?,
                CfNode::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    let c = self.vals[cond.0 as usize].ok_or("if condition unset")?[0];
                    self.list(if c != 0 { then_body } else { else_body })?
                }
                CfNode::Loop { body } => loop {
                    match self.list(body)? {
                        Flow::Next | Flow::Continue => continue,
                        Flow::Break => break Flow::Next,
                        e @ Flow::Exit(_) => break e,
                    }
                },
            };
            if !matches!(flow, Flow::Next) {
                return Ok(flow);
            }
        }
        Ok(Flow::Next)
    }
}

/// Run one thread of `f` against `env` (buffers are updated in place).
pub fn run(f: &Function, env: &mut Env) -> Result<Exit, String> {
    let mut t = Thread {
        f,
        env,
        vals: vec![None; f.shapes.len()],
        scratch: HashMap::new(),
        prev: None,
        steps: 0,
    };
    match t.list(&f.body)? {
        _ if t.env.killed => Ok(Exit::Discarded),
        Flow::Exit(e) => Ok(e),
        Flow::Next => Ok(Exit::Returned),
        Flow::Break | Flow::Continue => Err("break/continue outside a loop".into()),
    }
}

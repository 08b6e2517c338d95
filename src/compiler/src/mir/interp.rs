//! A per-thread interpreter of register-allocated, scheduled MIR with the measured hazards of
//! G16 modelled, so allocation and scheduling bugs show up as wrong results:
//! - a source read with the release bit drops the register: later reads give 0
//!   (ADevWithAnIdea/agx-re docs/isa/register-move-and-liveness.md §2, measured);
//! - an asynchronous result is delivered only to a consumer naming its scoreboard slot; naming
//!   another slot reads 0 (niklassheth/agx-re APPLE9_SCOREBOARD_SLOTS.md, measured);
//! - a destination written without the publish bit reads 0 later (inferred from the same
//!   lifetime-bit rules; modelled strictly);
//! - pending asynchronous work at a control-flow boundary is an error.

use super::{MInstr, MItem, MOperand, MProgram, Reg};
use crate::eval::{apply_mods, eval};
use crate::interp::{Env, Exit};
use crate::ir::{Op, SysVal, Type};
use std::collections::HashMap;

const HALVES: usize = 192;

struct Pending {
    slot: u8,
    reg: Reg,
    bits: Vec<u16>,
}

struct Machine<'a> {
    p: &'a MProgram,
    env: &'a mut Env,
    file: [u16; HALVES],
    pending: Vec<Pending>,
    scratch: HashMap<u32, Vec<u16>>,
    matches: HashMap<usize, (usize, usize)>,
    steps: u64,
}

enum Flow {
    Next,
    Break,
    Continue,
    Exit(Exit),
}

impl Machine<'_> {
    /// Read `r`; a pending result is delivered only if `slots` (bit s-1) names its slot.
    fn read_reg(&mut self, r: Reg, slots: u8) -> Result<Vec<u16>, String> {
        if let Some(k) = self.pending.iter().position(|p| p.reg.overlaps(r)) {
            if slots >> (self.pending[k].slot - 1) & 1 == 0 {
                // Wrong or missing slot: the hardware reads zeros.
                return Ok(vec![0; r.halves as usize]);
            }
            let p = self.pending.remove(k);
            for (n, h) in (p.reg.half..p.reg.end()).enumerate() {
                self.file[h as usize] = p.bits[n];
            }
        }
        Ok((r.half..r.end()).map(|h| self.file[h as usize]).collect())
    }

    fn write_reg(&mut self, r: Reg, bits: &[u16]) -> Result<(), String> {
        if self.pending.iter().any(|p| p.reg.overlaps(r)) {
            return Err(format!(
                "write to {r} while an asynchronous result is pending there"
            ));
        }
        if r.end() as usize > HALVES {
            return Err(format!("register {r} beyond the file"));
        }
        for (n, h) in (r.half..r.end()).enumerate() {
            self.file[h as usize] = bits[n];
        }
        Ok(())
    }

    fn join(h: &[u16]) -> u32 {
        h.iter().rev().fold(0u32, |a, x| a << 16 | *x as u32)
    }

    fn split(x: u32, n: usize) -> Vec<u16> {
        (0..n).map(|k| (x >> (16 * k)) as u16).collect()
    }

    fn instr(&mut self, i: &MInstr) -> Result<(), String> {
        self.steps += 1;
        if self.steps > 10_000_000 {
            return Err("step limit exceeded".into());
        }
        // Read every source first (with slots), then apply releases.
        let mut vals: Vec<Vec<u16>> = Vec::new();
        for s in &i.srcs {
            let v = match s.op {
                MOperand::Reg(r) => {
                    let pending_here = self.pending.iter().any(|p| p.reg.overlaps(r));
                    let slots = if pending_here { i.wait } else { 0 };
                    if slots != 0 && super::group_base(slots).is_none() {
                        return Err(format!("`{i}` names slots that are not a contiguous group"));
                    }
                    self.read_reg(r, slots)?
                }
                MOperand::Imm(b) => Self::split(b, 2),
                MOperand::Uniform(u) => Self::split(
                    *self
                        .env
                        .uniforms
                        .get(u as usize)
                        .ok_or("uniform not bound")?,
                    2,
                ),
            };
            vals.push(v);
        }
        for s in &i.srcs {
            if let (MOperand::Reg(r), true) = (s.op, s.release) {
                for h in r.half..r.end() {
                    self.file[h as usize] = 0;
                }
            }
        }
        let scalar = |k: usize| -> u32 {
            let s = &i.srcs[k];
            apply_mods(s.ty, Self::join(&vals[k]) & s.ty.mask(), s.neg, s.abs)
        };
        let dst_halves = i.dst.map(|d| d.halves as usize).unwrap_or(0);
        let result: Option<Vec<u16>> = match i.op {
            Op::SysVal(sv) => Some(Self::split(
                match sv {
                    SysVal::GlobalId(a) => self.env.global_id[a as usize],
                    SysVal::LocalId(a) => self.env.local_id[a as usize],
                    SysVal::GroupId(a) => self.env.group_id[a as usize],
                    SysVal::VertexId => self.env.vertex_id,
                    SysVal::InstanceId => self.env.instance_id,
                    SysVal::PixelCoord(a) => self.env.pixel[a as usize & 1],
                    SysVal::BackFacing => self.env.back_facing as u32,
                },
                2,
            )),
            Op::Undef => Some(vec![0; dst_halves]),
            Op::Collect => Some(
                vals.iter()
                    .flat_map(|v| v[..i.ty.halves() as usize].to_vec())
                    .collect(),
            ),
            Op::Copy if dst_halves > 2 => Some(vals[0].clone()),
            Op::LoadGlobal { binding } => {
                let idx = scalar(0) as usize;
                let buf = self
                    .env
                    .buffers
                    .get(&binding)
                    .ok_or(format!("binding {binding} not bound"))?;
                // Elements of the destination type: 16-bit loads fill one half each.
                let per = if i.ty.is_16bit() { 1 } else { 2 };
                let mut out = Vec::new();
                for c in 0..dst_halves / per {
                    let v = crate::interp::read_elem(buf, idx + c, i.ty)
                        .ok_or(format!("load b{binding}[{}] out of bounds", idx + c))?;
                    out.extend(Self::split(v, per));
                }
                out.truncate(dst_halves);
                Some(out)
            }
            Op::Fill { slot } => Some(
                self.scratch
                    .get(&slot)
                    .ok_or(format!("fill of empty scratch slot {slot}"))?
                    .clone(),
            ),
            Op::StoreGlobal { binding } => {
                let idx = scalar(0) as usize;
                let data = vals[1].clone();
                let buf = self
                    .env
                    .buffers
                    .get_mut(&binding)
                    .ok_or(format!("binding {binding} not bound"))?;
                let sty = i.srcs[1].ty;
                let per = if sty.is_16bit() { 1 } else { 2 };
                for (c, w) in data.chunks(per).enumerate() {
                    crate::interp::write_elem(buf, idx + c, sty, Self::join(w))
                        .ok_or(format!("store b{binding}[{}] out of bounds", idx + c))?;
                }
                None
            }
            Op::Spill { slot } => {
                self.scratch.insert(slot, vals[0].clone());
                None
            }
            op => {
                let tys: Vec<Type> = i.srcs.iter().map(|s| s.ty).collect();
                let s: Vec<u32> = (0..i.srcs.len()).map(scalar).collect();
                let r = eval(op, i.ty, &tys, &s, i.sat).ok_or(format!("cannot execute `{i}`"))?;
                Some(Self::split(r, dst_halves))
            }
        };
        if let (Some(d), Some(bits)) = (i.dst, result) {
            if i.op.is_async() {
                if i.produce_slot == 0 || i.produce_slot > 6 {
                    return Err(format!("asynchronous `{i}` has no scoreboard slot"));
                }
                if self.pending.iter().any(|p| p.slot == i.produce_slot) {
                    return Err(format!(
                        "`{i}` reuses slot {} while it is still pending",
                        i.produce_slot
                    ));
                }
                self.write_reg(d, &vec![0; d.halves as usize])?;
                self.pending.push(Pending {
                    slot: i.produce_slot,
                    reg: d,
                    bits,
                });
            } else {
                let bits = if i.publish {
                    bits
                } else {
                    vec![0; d.halves as usize]
                };
                self.write_reg(d, &bits)?;
            }
        }
        Ok(())
    }

    fn boundary(&self, what: &str) -> Result<(), String> {
        match self.pending.first() {
            Some(p) => Err(format!(
                "result pending in {} (slot {}) carried across {what}",
                p.reg, p.slot
            )),
            None => Ok(()),
        }
    }

    fn seq(&mut self, mut pc: usize, end: usize) -> Result<Flow, String> {
        let p = self.p;
        while pc < end {
            match &p.items[pc] {
                MItem::Instr(i) => self.instr(i)?,
                MItem::If { cond } => {
                    self.boundary("if")?;
                    let (els, endif) = self.matches[&pc];
                    let c = Self::join(&self.read_reg(*cond, 0)?);
                    let flow = if c != 0 {
                        self.seq(pc + 1, els)?
                    } else {
                        self.seq(els + 1, endif)?
                    };
                    self.boundary("end of if arm")?;
                    if !matches!(flow, Flow::Next) {
                        return Ok(flow);
                    }
                    pc = endif;
                }
                MItem::Loop => {
                    self.boundary("loop")?;
                    let (_, endl) = self.matches[&pc];
                    loop {
                        match self.seq(pc + 1, endl)? {
                            Flow::Next | Flow::Continue => {}
                            Flow::Break => break,
                            e @ Flow::Exit(_) => return Ok(e),
                        }
                        self.boundary("loop back-edge")?;
                    }
                    pc = endl;
                }
                MItem::Break => return self.boundary("break").map(|_| Flow::Break),
                MItem::Continue => return self.boundary("continue").map(|_| Flow::Continue),
                MItem::Return => {
                    return self.boundary("return").map(|_| Flow::Exit(Exit::Returned))
                }
                MItem::Discard => return Ok(Flow::Exit(Exit::Discarded)),
                MItem::Else | MItem::EndIf | MItem::EndLoop => {
                    return Err(format!("unbalanced {:?}", p.items[pc]))
                }
            }
            pc += 1;
        }
        Ok(Flow::Next)
    }
}

/// Matching else/endif for each `If`, endloop for each `Loop`.
fn match_markers(items: &[MItem]) -> Result<HashMap<usize, (usize, usize)>, String> {
    let mut m = HashMap::new();
    let mut stack: Vec<(usize, Option<usize>)> = Vec::new();
    for (k, it) in items.iter().enumerate() {
        match it {
            MItem::If { .. } | MItem::Loop => stack.push((k, None)),
            MItem::Else => stack.last_mut().ok_or("else without if")?.1 = Some(k),
            MItem::EndIf => {
                let (s, e) = stack.pop().ok_or("endif without if")?;
                m.insert(s, (e.ok_or("if without else")?, k));
            }
            MItem::EndLoop => {
                let (s, _) = stack.pop().ok_or("endloop without loop")?;
                m.insert(s, (k, k));
            }
            _ => {}
        }
    }
    Ok(m)
}

/// Run one thread of `p` against `env`.
pub fn run(p: &MProgram, env: &mut Env) -> Result<Exit, String> {
    let matches = match_markers(&p.items)?;
    let mut m = Machine {
        p,
        env,
        file: [0; HALVES],
        pending: Vec::new(),
        scratch: HashMap::new(),
        matches,
        steps: 0,
    };
    let flow = m.seq(0, p.items.len())?;
    m.boundary("end of program")?;
    match flow {
        Flow::Exit(e) => Ok(e),
        _ => Ok(Exit::Returned),
    }
}

//! Register assignment in dominance (structured program) order, and linearisation to MIR with
//! phi parallel copies at the end of each predecessor.

use super::liveness::Liveness;
use super::parallel_copy::sequentialize;
use super::regfile::RegFile;
use crate::error::CompileError;
use crate::ir::print::instr_to_string;
use crate::ir::{BlockId, CfNode, Cfg, Function, Op, Operand, Type, Value};
use crate::mir::{MInstr, MItem, MOperand, MProgram, MSrc, Reg};
use crate::target::RegTarget;

/// Structured region of every block: each if-arm and loop body is its own region. A value may
/// only be released by a read in its own region (a release in a divergent arm must not drop the
/// value for lanes that take the other arm).
fn regions(ns: &[CfNode], cur: u32, next: &mut u32, out: &mut [u32]) {
    for n in ns {
        match n {
            CfNode::Block(b) => out[b.0 as usize] = cur,
            CfNode::If {
                then_body,
                else_body,
                ..
            } => {
                for arm in [then_body, else_body] {
                    *next += 1;
                    let r = *next;
                    regions(arm, r, next, out);
                }
            }
            CfNode::Loop { body } => {
                *next += 1;
                let r = *next;
                regions(body, r, next, out);
            }
        }
    }
}

struct Assigner<'a> {
    f: &'a Function,
    target: &'a dyn RegTarget,
    cfg: Cfg,
    lv: Liveness,
    regs: Vec<Option<Reg>>,
    region: Vec<u32>,
    def_block: Vec<usize>,
    file: RegFile,
    prefer_high: bool,
    /// Readers of each value (an `if` condition counts).
    uses: Vec<u32>,
    /// Halves kept free at the bottom for destinations limited to r0–r15.
    low_reserve: u16,
    /// Halves kept free at the bottom for destinations limited to r0–r63 (device loads,
    /// 32-bit literal moves) when the peak pressure is above 64 GPRs: unconstrained values
    /// would otherwise fill r0–r63 first and leave such a destination nowhere to go.
    mid_reserve: u16,
    /// Where tuples are placed from the top down: just above the function's peak pressure, so
    /// a tuple neither fragments the scalars' space nor inflates the GPR count.
    soft_top: u16,
    copies: u32,
}

impl Assigner<'_> {
    fn reg(&self, v: Value) -> Reg {
        match self.regs[v.0 as usize] {
            Some(r) => r,
            None => panic!("%{} read before it has a register", v.0),
        }
    }

    fn alloc(&mut self, v: Value, reach_gprs: u32, at: &str) -> Result<Reg, CompileError> {
        let halves = self.f.shape(v).halves() as u8;
        let reach = (reach_gprs * 2) as u16;
        // Unconstrained values start above the low registers that constrained destinations
        // (get_sr, compact forms: r0–r15) need at most at once.
        let start = if self.prefer_high && reach >= 64 {
            32
        } else if reach > 128 {
            self.low_reserve.max(self.mid_reserve)
        } else if reach > 32 {
            self.low_reserve
        } else {
            0
        };
        let r = self
            .file
            .find(halves, reach.min(self.soft_top.max(halves as u16)), start)
            .or_else(|| self.file.find(halves, reach, start))
            .ok_or_else(|| CompileError::RegAlloc {
                instr: at.to_string(),
                why: format!("no free aligned {halves}-half tuple below r{reach_gprs}"),
            })?;
        self.file.take(r);
        self.regs[v.0 as usize] = Some(r);
        Ok(r)
    }

    /// `whole`: the operand names the entire tuple (stores, spills, tuple copies).
    fn src(&self, s: &crate::ir::Src, ty: Type, whole: bool) -> MSrc {
        let op = match s.op {
            Operand::Value { v, .. } if whole => MOperand::Reg(self.reg(v)),
            Operand::Value { v, comp } => {
                let elem = self.f.shape(v).ty.halves() as u8;
                MOperand::Reg(self.reg(v).comp(comp, elem.max(1)))
            }
            Operand::Imm(b) => MOperand::Imm(b),
            Operand::Uniform(u) => MOperand::Uniform(u),
        };
        MSrc {
            op,
            ty,
            neg: s.neg,
            abs: s.abs,
            release: false,
        }
    }

    fn block(&mut self, b: BlockId, out: &mut Vec<MItem>) -> Result<(), CompileError> {
        let bi = b.0 as usize;
        let f = self.f;
        let instrs = &f.block(b).instrs;
        // Occupancy at entry: exactly the live-in values.
        self.file = self.file.clone().cleared();
        for v in self.lv.live_in[bi].iter() {
            let r = self.reg(v);
            self.file.take(r);
        }
        // Per instruction, from the block's end backwards: its sources not live after it (sorted,
        // distinct) and whether its destination is live after it.
        let mut live = self.lv.live_out[bi].clone();
        if let Some(c) = self.lv.branch_cond[bi] {
            live.insert(c);
        }
        let mut dies: Vec<Vec<Value>> = vec![Vec::new(); instrs.len()];
        let mut dst_live = vec![false; instrs.len()];
        for (k, i) in instrs.iter().enumerate().rev() {
            let mut d: Vec<Value> = i.src_values().filter(|v| !live.contains(*v)).collect();
            d.sort();
            d.dedup();
            dies[k] = d;
            if let Some(d) = i.dst {
                dst_live[k] = live.contains(d);
                live.remove(d);
            }
            if i.op != Op::Phi {
                for v in i.src_values() {
                    live.insert(v);
                }
            }
        }
        for (k, i) in instrs.iter().enumerate() {
            let text = || instr_to_string(f, i);
            if i.op == Op::Phi {
                let d = i.dst.unwrap();
                match self.regs[d.0 as usize] {
                    Some(r) => self.file.take(r),
                    None => {
                        let reach = self.phi_reach(i);
                        self.alloc(d, reach, &text())?;
                    }
                }
                continue;
            }
            if i.op.is_terminator() {
                break; // emitted after the phi copies
            }
            let dty = i.dst.map(|d| f.ty(d)).unwrap_or(Type::I32);
            let whole = |n: usize| match i.op {
                Op::Spill { .. } => true,
                Op::StoreGlobal { .. } => n == 1,
                Op::Copy => i.dst.is_some_and(|d| f.shape(d).comps > 1),
                _ => false,
            };
            let mut srcs: Vec<MSrc> = i
                .srcs
                .iter()
                .enumerate()
                .map(|(n, s)| self.src(s, f.src_ty(i, n), whole(n)))
                .collect();
            // Sources out of the form's reach are split into a reachable temporary.
            let mut temps = Vec::new();
            for (n, s) in srcs.iter_mut().enumerate() {
                let MOperand::Reg(r) = s.op else { continue };
                // The form is picked by the instruction's type, as selection does (a conversion's
                // source type names no form).
                let reach = self.target.src_reach(i, dty, n) * 2;
                if r.end() <= reach as u16 {
                    continue;
                }
                let t = self.file.find(r.halves, reach as u16, 0).ok_or_else(|| {
                    CompileError::RegAlloc {
                        instr: text(),
                        why: format!(
                            "source {r} beyond r{} and no free register to split into",
                            reach / 2
                        ),
                    }
                })?;
                self.file.take(t);
                let ty = if r.halves == 1 { Type::I16 } else { Type::I32 };
                out.extend(
                    sequentialize(&[(t, MOperand::Reg(r))])?
                        .into_iter()
                        .map(MItem::Instr),
                );
                self.copies += 1;
                s.op = MOperand::Reg(t);
                let _ = ty;
                temps.push(t);
            }
            // Registers whose value dies here.
            let dying: Vec<Value> = std::mem::take(&mut dies[k]);
            for (n, s) in i.srcs.iter().enumerate() {
                if let Some(v) = s.value() {
                    let last_read = i.srcs.iter().skip(n + 1).all(|t| t.value() != Some(v));
                    if dying.contains(&v)
                        && last_read
                        && self.region[self.def_block[v.0 as usize]] == self.region[bi]
                    {
                        srcs[n].release = !temps.iter().any(|t| MOperand::Reg(*t) == srcs[n].op);
                    }
                }
            }
            let free_dying = |s: &mut Self| {
                for v in &dying {
                    let r = s.reg(*v);
                    s.file.free(r);
                }
                for t in &temps {
                    s.file.free(*t);
                }
            };
            if !i.op.dst_avoids_dying_sources() {
                free_dying(self);
            }
            let dst = match i.dst {
                Some(d) => Some(self.alloc(d, self.target.dst_reach(i, dty), &text())?),
                None => None,
            };
            if i.op.dst_avoids_dying_sources() {
                free_dying(self);
            }
            let mut m = MInstr::new(i.op, dty, dst, srcs);
            m.sat = i.sat;
            m.feeds_branch_only = i.dst.is_some_and(|d| {
                self.lv.branch_cond[bi] == Some(d) && self.uses[d.0 as usize] == 1
            });
            if i.dst.is_some() && !dst_live[k] {
                self.file.free(dst.unwrap());
                m.publish = false;
            }
            if i.op == Op::Copy {
                self.copies += 1;
            }
            out.push(MItem::Instr(m));
        }
        // Phi copies for the successor(s), then the terminator.
        let mut copies = Vec::new();
        for s in self.cfg.succs(b).to_vec() {
            // The first predecessor to reach a phi block fixes the phis' registers.
            self.preassign_phis(s)?;
            for i in f.block(s).instrs.iter().take_while(|i| i.op == Op::Phi) {
                let Some(k) = i.phi_preds.iter().position(|p| *p == b) else {
                    continue;
                };
                let d = i.dst.unwrap();
                let dr = self.regs[d.0 as usize].ok_or_else(|| {
                    CompileError::Internal(format!("phi %{} has no register at b{}", d.0, bi))
                })?;
                let src = self.src(&i.srcs[k], f.ty(d), f.shape(d).comps > 1);
                copies.push((dr, src.op, f.ty(d)));
            }
        }
        let (before, after) = self.phi_far_sources(&mut copies)?;
        let copies: Vec<(Reg, MOperand)> = copies.into_iter().map(|(d, s, _)| (d, s)).collect();
        let seq = sequentialize(&copies)?;
        self.copies += seq.len() as u32;
        out.extend(before.into_iter().chain(seq).chain(after).map(MItem::Instr));
        match f.block(b).terminator() {
            Some(Op::Break) => out.push(MItem::Break),
            Some(Op::Continue) => out.push(MItem::Continue),
            Some(Op::Return) => out.push(MItem::Return),
            Some(Op::Discard) => out.push(MItem::Discard),
            _ => {}
        }
        Ok(())
    }

    /// Highest GPR + 1 a phi's register may be: each source becomes a register copy into it
    /// at the end of its predecessor (`iadd`, r0–r94); an immediate or uniform source whose
    /// move cannot reach the phi goes through a low temporary (`phi_far_sources`).
    fn phi_reach(&self, i: &crate::ir::Instr) -> u32 {
        let d = i.dst.expect("a phi defines a value");
        let copy = crate::ir::Instr::new(Op::Copy, Some(d), [crate::ir::Src::val(d)]);
        self.target.dst_reach(&copy, self.f.ty(d))
    }

    /// Phi copies of immediates and uniforms into registers beyond their move's reach
    /// (`mov_imm32`: r0–r63, `uniform_mov`: r0–r15) are taken out of the parallel copy and done
    /// as a move into a register within reach and a copy from it: before the parallel copy through any register that is neither
    /// live nor read by it (a destination it writes later will do), or, when the phi's
    /// register is itself read by the parallel copy, after it through a register it neither
    /// reads nor writes. Returns the moves to emit before and after.
    #[allow(clippy::type_complexity)]
    fn phi_far_sources(
        &mut self,
        copies: &mut Vec<(Reg, MOperand, Type)>,
    ) -> Result<(Vec<MInstr>, Vec<MInstr>), CompileError> {
        let mut busy = self.file.clone();
        let mark = |file: &mut RegFile, r: Reg| {
            for h in r.half..r.end() {
                let one = Reg { half: h, halves: 1 };
                if file.is_free(one) {
                    file.take(one);
                }
            }
        };
        for (_, s, _) in copies.iter() {
            if let MOperand::Reg(r) = s {
                mark(&mut busy, *r);
            }
        }
        let mut busy_late = busy.clone();
        for (d, _, _) in copies.iter() {
            mark(&mut busy_late, *d);
        }
        let (mut before, mut after) = (Vec::new(), Vec::new());
        let mut k = 0;
        while k < copies.len() {
            let (d, s, ty) = copies[k];
            let (probe_src, what) = match s {
                MOperand::Imm(bits) => (crate::ir::Src::imm(bits), format!("#{bits:#x}")),
                MOperand::Uniform(u) => (crate::ir::Src::uniform(u), format!("u{u}")),
                MOperand::Reg(_) => {
                    k += 1;
                    continue;
                }
            };
            let probe = crate::ir::Instr::new(Op::Copy, None, [probe_src]);
            let reach = (self.target.dst_reach(&probe, ty) * 2) as u16;
            if d.end() <= reach {
                k += 1;
                continue;
            }
            let read = copies
                .iter()
                .any(|(_, s, _)| matches!(s, MOperand::Reg(r) if r.overlaps(d)));
            let (file, out) = if read {
                (&busy_late, &mut after)
            } else {
                (&busy, &mut before)
            };
            let t = file
                .find(d.halves, reach, 0)
                .ok_or_else(|| CompileError::RegAlloc {
                    instr: format!("phi copy {d} = {what}"),
                    why: format!(
                        "no free register below r{} to move the source through",
                        reach / 2
                    ),
                })?;
            self.file.high_water = self.file.high_water.max(t.end());
            let src = |op| MSrc {
                op,
                ty,
                neg: false,
                abs: false,
                release: false,
            };
            out.push(MInstr::new(Op::Copy, ty, Some(t), [src(s)]));
            out.extend(sequentialize(&[(d, MOperand::Reg(t))])?);
            self.copies += 2;
            copies.remove(k);
        }
        Ok((before, after))
    }

    /// Phis of `b` get registers before any predecessor's copies are emitted: free with
    /// respect to the values live into `b` (which all dominate it and are assigned already).
    fn preassign_phis(&mut self, b: BlockId) -> Result<(), CompileError> {
        let f = self.f;
        let saved = self.file.clone();
        self.file = self.file.clone().cleared();
        for v in self.lv.live_in[b.0 as usize].iter() {
            let r = self.reg(v);
            self.file.take(r);
        }
        for i in f.block(b).instrs.iter().take_while(|i| i.op == Op::Phi) {
            let d = i.dst.unwrap();
            if self.regs[d.0 as usize].is_none() {
                let reach = self.phi_reach(i);
                self.alloc(d, reach, &instr_to_string(f, i))?;
            }
        }
        let hw = self.file.high_water;
        self.file = saved;
        self.file.high_water = self.file.high_water.max(hw);
        Ok(())
    }

    fn list(&mut self, ns: &[CfNode], out: &mut Vec<MItem>) -> Result<(), CompileError> {
        for n in ns {
            match n {
                CfNode::Block(b) => self.block(*b, out)?,
                CfNode::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    out.push(MItem::If {
                        cond: self.reg(*cond),
                    });
                    self.list(then_body, out)?;
                    out.push(MItem::Else);
                    self.list(else_body, out)?;
                    out.push(MItem::EndIf);
                }
                CfNode::Loop { body } => {
                    out.push(MItem::Loop);
                    self.list(body, out)?;
                    out.push(MItem::EndLoop);
                }
            }
        }
        Ok(())
    }
}

impl RegFile {
    fn cleared(mut self) -> Self {
        let hw = self.high_water;
        let lim = self.limit;
        self = RegFile::new(lim);
        self.high_water = hw;
        self
    }
}

/// Most halves that values with a destination limited to r0–r15 occupy at any one point.
/// The most halves live at once of values whose destination form reaches only below GPR 16,
/// and of those reaching only below GPR 64 (the first included), each rounded up to a whole
/// GPR and capped at the part of the file they are confined to (16 and 64 GPRs).
fn low_reserves(f: &Function, target: &dyn RegTarget) -> (u16, u16) {
    // 0: unconstrained, 1: below r64, 2: below r16.
    let mut class = vec![0u8; f.shapes.len()];
    for b in &f.blocks {
        for i in &b.instrs {
            if let Some(d) = i.dst {
                let reach = target.dst_reach(i, f.ty(d));
                class[d.0 as usize] = if reach <= 16 {
                    2
                } else if reach <= 64 {
                    1
                } else {
                    0
                };
            }
        }
    }
    let cfg = Cfg::build(f);
    let lv = Liveness::compute(f, &cfg);
    let (mut most16, mut most64) = (0u32, 0u32);
    for (bi, b) in f.blocks.iter().enumerate() {
        let mut live = lv.live_out[bi].clone();
        if let Some(c) = lv.branch_cond[bi] {
            live.insert(c);
        }
        // Running sizes of the two classes in `live`.
        let (mut s16, mut s64) = (0u32, 0u32);
        let add = |v: Value, sign: i32, s16: &mut u32, s64: &mut u32| {
            let h = f.shape(v).halves() as i32 * sign;
            match class[v.0 as usize] {
                2 => {
                    *s16 = (*s16 as i32 + h) as u32;
                    *s64 = (*s64 as i32 + h) as u32;
                }
                1 => *s64 = (*s64 as i32 + h) as u32,
                _ => {}
            }
        };
        for v in live.iter() {
            add(v, 1, &mut s16, &mut s64);
        }
        most16 = most16.max(s16);
        most64 = most64.max(s64);
        for i in b.instrs.iter().rev() {
            if i.op != Op::Phi {
                for v in i.src_values() {
                    if live.insert(v) {
                        add(v, 1, &mut s16, &mut s64);
                    }
                }
            }
            most16 = most16.max(s16);
            most64 = most64.max(s64);
            if let Some(d) = i.dst {
                if live.contains(d) {
                    live.remove(d);
                    add(d, -1, &mut s16, &mut s64);
                }
            }
        }
    }
    (
        (most16.min(32) as u16).next_multiple_of(2),
        (most64.min(128) as u16).next_multiple_of(2),
    )
}

/// Assign registers to a function whose pressure already fits `limit_halves`.
pub fn assign(
    f: &Function,
    target: &dyn RegTarget,
    limit_halves: u16,
    prefer_high: bool,
) -> Result<MProgram, CompileError> {
    let cfg = Cfg::build(f);
    let lv = Liveness::compute(f, &cfg);
    let mut region = vec![0; f.blocks.len()];
    regions(&f.body, 0, &mut 0, &mut region);
    let mut def_block = vec![0; f.shapes.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in &b.instrs {
            if let Some(d) = i.dst {
                def_block[d.0 as usize] = bi;
            }
        }
    }
    let peak = super::pressure::peak(f, &lv);
    let (low_reserve, mid_reserve) = low_reserves(f, target);
    let mut a = Assigner {
        f,
        target,
        cfg,
        lv,
        regs: vec![None; f.shapes.len()],
        region,
        def_block,
        file: RegFile::new(limit_halves),
        prefer_high,
        uses: crate::opt::uses::use_counts(f),
        low_reserve,
        mid_reserve: if peak > 128 { mid_reserve } else { 0 },
        soft_top: ((peak + 8).next_multiple_of(8) as u16).min(limit_halves),
        copies: 0,
    };
    let mut items = Vec::new();
    a.list(&f.body, &mut items)?;
    let mut p = MProgram {
        items,
        ..Default::default()
    };
    p.stats.gprs = (a.file.high_water as u32).div_ceil(2);
    p.stats.copies = a.copies;
    Ok(p)
}

//! The interpreter: runs one SIMD-group until it stops or reaches a barrier.

use super::alu::{apply_mod, compare, fbin, fma_f32, from_f32, ibin, part_type, to_f32, unorm};
use super::exec_mask::Scope;
use super::ops::{
    Address, Conversion, FBinOp, FMod, FType, IntBinOp, JumpCond, Kind, MemFormat, Op, Part,
    PredSel, Src,
};
use super::scoreboard::{halves, hands_off, HalfSet, Handoff};
use super::state::SimdGroup;
use super::{Lanes, LANES};
use crate::error::SimError;
use crate::fp::sfu;
use crate::mem::GpuMemory;
use crate::program::Program;
use crate::trace::Trace;
use crate::value_rules::{self, Rule, Tally};
use std::mem::MaybeUninit as Uninit;

/// What stopped a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yield {
    Stop,
    Barrier,
}

/// Everything a SIMD-group runs against.
pub struct Ctx<'a> {
    pub prog: &'a Program,
    pub mem: &'a dyn GpuMemory,
    pub uniforms: &'a [u32],
    /// `Some` while a launcher's setup invocation runs: where its launcher-only
    /// operations write. Stage bodies run with `None` and refuse those operations.
    pub setup: Option<super::setup::SetupState>,
    pub trace: Option<&'a Trace>,
    /// Polled every [`CANCEL_POLL`] instructions (the kernel's job watchdog): when it
    /// says true the run stops with [`SimError::Budget`] at the current pc.
    pub cancelled: Option<&'a dyn Fn() -> bool>,
    /// Instructions still allowed (guards against endless loops).
    pub budget: u64,
    pub instructions: u64,
    pub lane_instructions: u64,
}

/// How often (in instructions) a run polls its cancel hook.
pub const CANCEL_POLL: u64 = 4096;

/// Runs `sg` from its next instruction.
pub fn run(sg: &mut SimdGroup, ctx: &mut Ctx) -> Result<Yield, SimError> {
    match run_inner::<false>(sg, ctx)? {
        Some(y) => Ok(y),
        // not produced without `trap`: a refusal comes back as its error
        None => Err(SimError::Launch(
            "refusal trap outside a trapping run".into(),
        )),
    }
}

/// Like [`run`], but an op the lowering refused (`Kind::Refuse`) stops the run with
/// `Ok(None)` instead of a clone of its error; `sg.next` is past that op, exactly as when
/// [`run`] returns the error. Render-stage bodies stop at every graphics IO op this way
/// (`gfx::body`), so cloning and comparing the refusal's strings for each of them would
/// cost more than the op itself.
pub fn run_to_refusal(sg: &mut SimdGroup, ctx: &mut Ctx) -> Result<Option<Yield>, SimError> {
    run_inner::<true>(sg, ctx)
}

#[inline(always)]
fn run_inner<const TRAP: bool>(
    sg: &mut SimdGroup,
    ctx: &mut Ctx,
) -> Result<Option<Yield>, SimError> {
    let ops = &ctx.prog.ops;
    // the active-lane count of the last mask seen (a popcount per op is a dozen
    // instructions on the baseline target, and masks rarely change)
    let (mut last_mask, mut last_count) = (0u32, 0u64);
    loop {
        let Some(op) = ops.get(sg.next) else {
            let pc = ops.last().map(|o| o.pc + o.len as u32).unwrap_or(0);
            return Err(SimError::RanOff { pc });
        };
        if ctx.budget == 0 {
            return Err(SimError::Budget {
                budget: ctx.instructions,
                pc: op.pc,
            });
        }
        if ctx
            .cancelled
            .is_some_and(|c| ctx.instructions.is_multiple_of(CANCEL_POLL) && c())
        {
            return Err(SimError::Budget {
                budget: ctx.instructions,
                pc: op.pc,
            });
        }
        ctx.budget -= 1;
        ctx.instructions += 1;
        let mask = sg.exec.active;
        if mask != last_mask {
            (last_mask, last_count) = (mask, mask.count_ones() as u64);
        }
        ctx.lane_instructions += last_count;
        sg.next += 1;
        if !sg.scratch.stores.is_empty() {
            scratch_hazards(sg, op)?;
        }
        // nothing in flight (the common case): no operand reads zero
        let zeroed = if sg.pending.count == 0 {
            HalfSet::default()
        } else {
            resolve_pending(sg, op)?
        };
        if TRAP && matches!(op.kind, Kind::Refuse(_)) {
            // what `step` does first for a refusal, minus the error clone
            return Ok(None);
        }
        // The result lanes are written into `out` in place (returning them by value
        // copied 128 bytes through the `Result` per instruction).
        let mut out = [0u32; LANES];
        let dst = match zeroed.is_empty().then(|| fp32_fast(sg, op, &mut out)) {
            Some(Some(d)) => Some(d),
            _ => step(sg, ctx, op, mask, zeroed, &mut out)?,
        };
        // Released sources read zero from now on; the destination write comes
        // after, so a destination that reuses a released source keeps the result
        // (EXP-0003 `fadd r0, r2, r0` releasing both sources, measured).
        for &(reg, part) in &op.releases {
            release(sg, reg, part, mask);
        }
        if let Some(d) = dst {
            // An ordinary write replaces an in-flight value that no consumer
            // took: EXP-M4-44 mutations store exactly the ALU result (1.5).
            if let Some(st) = sg.scratch.store_reading(d.reg) {
                return Err(unmeasured(op, destructive_source(st)));
            }
            sg.pending.cancel(d.reg, d.part);
            sg.write(d, mask, &out);
        }
        if let Some(t) = ctx.trace {
            let written: Option<Written> = dst.map(|d| (d.reg, d.part, out));
            t.instruction(ctx.prog, sg, op, mask, written.as_ref());
        }
        match op.kind {
            Kind::Stop => {
                sg.done = true;
                return Ok(Some(Yield::Stop));
            }
            Kind::Barrier => return Ok(Some(Yield::Barrier)),
            _ => {}
        }
    }
}

/// The fp32 FMA, add and multiply with full-register operands and nothing read as zero:
/// most of the ALU work of a shader, run here without [`step`]'s general operand and type
/// handling (the same lane functions [`step`] calls for these forms, so the same bits).
/// `None` for every other op.
#[inline(always)]
fn fp32_fast(sg: &SimdGroup, op: &Op, out: &mut Lanes) -> Option<super::ops::Dst> {
    let regs = &sg.regs;
    match op.kind {
        Kind::FFma {
            ty: FType::F32,
            dst,
            a: Src::Gpr(a, Part::Full),
            b: Src::Gpr(b, Part::Full),
            c: Src::Gpr(c, Part::Full),
            neg_product,
            cm,
        } if cm == FMod::default() => {
            let neg = if neg_product { 0x8000_0000 } else { 0 };
            let (a, b, c) = (&regs[a as usize], &regs[b as usize], &regs[c as usize]);
            super::lanes::f32_fma(out, a, b, c, neg);
            Some(dst)
        }
        Kind::FBin {
            op: fop,
            ty: FType::F32,
            dst,
            a: Src::Gpr(a, Part::Full),
            am,
            b: Src::Gpr(b, Part::Full),
            bm,
        } if am == FMod::default() => {
            // a full-register B is fp32 whatever its bf16 flag says (as in `step`)
            let neg = if bm.neg { 0x8000_0000 } else { 0 };
            let abs = if bm.abs { 0x7fff_ffff } else { u32::MAX };
            let (a, b) = (&regs[a as usize], &regs[b as usize]);
            super::lanes::f32_bin(out, a, b, fop == FBinOp::Mul, abs, neg);
            Some(dst)
        }
        _ => None,
    }
}

/// Values an instruction wrote, for the trace: (register, part, values).
pub type Written = (u8, Part, Lanes);

fn unmeasured(op: &Op, what: String) -> SimError {
    SimError::Unmeasured { pc: op.pc, what }
}

/// Counts a finite result beyond fp16's range that becomes infinity in an fp16 destination
/// (value_rules F16OutOverflow).
#[inline]
fn half_overflow(tally: &mut Tally, r: f32, ty: FType, active: bool) {
    if ty == FType::F16 {
        tally.hit(
            Rule::F16OutOverflow,
            active && r.is_finite() && r.abs() >= 65520.0,
        );
    }
}

fn destructive_source(st: super::scratch::PendingStore) -> String {
    format!(
        "writes r{}, the source of the scratch store to word {} still pending on slot {} \
         (never measured without waiting)",
        st.reg, st.word, st.slot
    )
}

/// A wait naming a pending scratch store's slot completes it; block ends and exec-mask
/// changes with a store still pending were never run (`core::scratch`).
fn scratch_hazards(sg: &mut SimdGroup, op: &Op) -> Result<(), SimError> {
    sg.scratch.retire(op.hazard.wait);
    let flow = matches!(
        op.kind,
        Kind::Stop
            | Kind::Barrier
            | Kind::IfPush { .. }
            | Kind::LoopPush
            | Kind::BreakUnwind { .. }
            | Kind::LoopUpdate { .. }
            | Kind::Else
            | Kind::Pop { .. }
            | Kind::Jump { .. }
    );
    match sg.scratch.stores.first() {
        Some(st) if flow => Err(unmeasured(
            op,
            format!(
                "control flow (or the end) with the scratch store to word {} still pending \
                 on slot {} (never measured)",
                st.word, st.slot
            ),
        )),
        _ => Ok(()),
    }
}

/// Checks that a producer may tag `slot` and write `reg` while scratch stores are pending.
fn scratch_producer(sg: &SimdGroup, op: &Op, slot: u8, reg: u8) -> Result<(), SimError> {
    if let Some(st) = sg.scratch.store_on(slot) {
        return Err(unmeasured(
            op,
            format!(
                "produces on slot {slot} while the scratch store to word {} is pending there",
                st.word
            ),
        ));
    }
    match sg.scratch.store_reading(reg) {
        Some(st) => Err(unmeasured(op, destructive_source(st))),
        None => Ok(()),
    }
}

/// Applies the scoreboard rules to the pending values `op` reads. Returns
/// the half registers that read as zero for this instruction.
fn resolve_pending(sg: &mut SimdGroup, op: &Op) -> Result<HalfSet, SimError> {
    let mut zeroed = HalfSet::default();
    if sg.pending.count == 0 {
        return Ok(zeroed);
    }
    if op.hazard.drains_slots && op.hazard.wait != 0 {
        for half in 0..super::scoreboard::HALVES {
            let tag = sg.pending.tag[half];
            if tag != 0 && op.hazard.wait >> (tag - 1) & 1 != 0 {
                deliver(sg, half);
            }
        }
        if sg.pending.count == 0 {
            return Ok(zeroed);
        }
    }
    let mut hs = [0usize; 8];
    let mut n = 0;
    let mut tags = 0u8;
    for src in op.kind.sources() {
        if let Src::Gpr(r, part) = src {
            for h in halves(r, part) {
                if sg.pending.tag[h] != 0 && !hs[..n].contains(&h) && n < hs.len() {
                    hs[n] = h;
                    n += 1;
                    tags |= 1 << (sg.pending.tag[h] - 1);
                }
            }
        }
    }
    if n == 0 {
        return Ok(zeroed);
    }
    let h = op.hazard;
    let group_ok = hands_off(h.wait, h.wait_is_base, tags);
    let slot6_pending = sg.pending.any_on(6);
    for &half in &hs[..n] {
        let tag = sg.pending.tag[half];
        let handoff = if h.direct_store {
            // EXP-M4-36: named by register, valid while a slot-6 load is pending.
            if slot6_pending {
                Handoff::Deliver
            } else {
                Handoff::Zero
            }
        } else if !h.has_wait_field {
            return Err(unmeasured(
                op,
                format!(
                    "reads r{} while its load is pending on slot {tag}, but this form has no scoreboard wait field",
                    half / 2
                ),
            ));
        } else if group_ok {
            Handoff::Deliver
        } else {
            Handoff::Zero
        };
        match handoff {
            Handoff::Deliver => deliver(sg, half),
            Handoff::Zero => zeroed.insert(half),
        }
    }
    Ok(zeroed)
}

/// Writes the value pending on half register `half` into the register file.
fn deliver(sg: &mut SimdGroup, half: usize) {
    let (lanes, vals) = sg.pending.take(half);
    let part = if half.is_multiple_of(2) {
        Part::Lo
    } else {
        Part::Hi
    };
    let v: Lanes = vals.map(|x| x as u32);
    sg.write(
        super::ops::Dst {
            reg: (half / 2) as u8,
            part,
        },
        lanes,
        &v,
    );
}

fn release(sg: &mut SimdGroup, reg: u8, part: Part, mask: u32) {
    sg.write(super::ops::Dst { reg, part }, mask, &[0; LANES]);
}

#[inline(always)]
fn read(sg: &SimdGroup, ctx: &Ctx, src: Src, zeroed: HalfSet) -> Lanes {
    match src {
        Src::Gpr(r, part) => {
            let mut v = sg.regs[r as usize];
            if !zeroed.is_empty() {
                let (lo, hi) = (
                    zeroed.contains(2 * r as usize),
                    zeroed.contains(2 * r as usize + 1),
                );
                let keep =
                    if lo { 0xffff_0000u32 } else { u32::MAX } & if hi { 0xffff } else { u32::MAX };
                v = v.map(|x| x & keep);
            }
            match part {
                Part::Full => v,
                Part::Lo => v.map(|x| x & 0xffff),
                Part::Hi => v.map(|x| x >> 16),
            }
        }
        Src::Uniform(u, part) => {
            // in range: run_compute checks uniforms_needed() up front
            let w = ctx.uniforms.get(u as usize).copied().unwrap_or(0);
            let w = match part {
                Part::Full => w,
                Part::Lo => w & 0xffff,
                Part::Hi => w >> 16,
            };
            [w; LANES]
        }
        Src::Imm(v) => [v; LANES],
        Src::Zero => [0; LANES],
    }
}

/// A source's lanes: the register itself when it can be read in place, otherwise `buf`
/// filled by [`read`] (left uninitialised until then: zeroing three operand buffers per
/// instruction was a measurable share of an ALU op).
#[inline(always)]
fn operand<'a>(
    sg: &'a SimdGroup,
    ctx: &Ctx,
    src: Src,
    zeroed: HalfSet,
    buf: &'a mut std::mem::MaybeUninit<Lanes>,
) -> &'a Lanes {
    match src {
        Src::Gpr(r, Part::Full) if zeroed.is_empty() => &sg.regs[r as usize],
        _ => buf.write(read(sg, ctx, src, zeroed)),
    }
}

fn part_of(src: Src) -> Part {
    match src {
        Src::Gpr(_, p) | Src::Uniform(_, p) => p,
        _ => Part::Full,
    }
}

fn step(
    sg: &mut SimdGroup,
    ctx: &mut Ctx,
    op: &Op,
    mask: u32,
    zeroed: HalfSet,
    out: &mut Lanes,
) -> Result<Option<super::ops::Dst>, SimError> {
    let dst = match op.kind {
        Kind::Stop | Kind::Nop | Kind::Barrier => return Ok(None),
        Kind::Refuse(ref e) => return Err(e.clone()),
        Kind::Mov { dst, src } => {
            *out = read(sg, ctx, src, zeroed);
            dst
        }
        Kind::GetSr { dst, sr } => {
            if ctx.setup.is_some() {
                return Err(unmeasured(
                    op,
                    format!("{sr:?} in a setup invocation: its thread identity is not established"),
                ));
            }
            *out = sg.special(sr);
            dst
        }
        Kind::PointerLoad {
            dst,
            base,
            offset,
            count,
        } => {
            setup_only(ctx, op)?;
            pointer_load(sg, ctx, op, mask, zeroed, dst, base, offset, count)?;
            return Ok(None);
        }
        Kind::ArgStore { word, src } => {
            let v = read(sg, ctx, src, zeroed);
            let setup = setup_only(ctx, op)?;
            let mut lanes = (0..LANES).filter(|l| mask >> l & 1 != 0).map(|l| v[l]);
            let Some(first) = lanes.next() else {
                return Err(unmeasured(
                    op,
                    "argument transfer with no active lane".into(),
                ));
            };
            if lanes.any(|x| x != first) {
                return Err(unmeasured(
                    op,
                    format!("argument word {word} gets different values in different lanes"),
                ));
            }
            let w = word as usize;
            if setup.args.len() <= w {
                setup.args.resize(w + 1, None);
            }
            setup.args[w] = Some(first);
            return Ok(None);
        }
        Kind::StageAlloc(a) => {
            let s = setup_only(ctx, op)?;
            once(op, &mut s.allocation, a, "stage allocation")?;
            return Ok(None);
        }
        Kind::StageTarget { entry } => {
            let s = setup_only(ctx, op)?;
            once(op, &mut s.entry, entry, "stage target")?;
            return Ok(None);
        }
        Kind::LaunchFrame(f) => {
            let s = setup_only(ctx, op)?;
            once(op, &mut s.frame, f, "launch frame")?;
            return Ok(None);
        }
        Kind::FBin {
            op: fop,
            ty,
            dst,
            a,
            am,
            b,
            bm,
        } => {
            let (mut buf_a, mut buf_b) = (Uninit::uninit(), Uninit::uninit());
            let va = operand(sg, ctx, a, zeroed, &mut buf_a);
            let vb = operand(sg, ctx, b, zeroed, &mut buf_b);
            let (ta, tb) = (part_type(part_of(a), ty), part_type(part_of(b), ty));
            let tb = if bm.bf16 && tb != FType::F32 {
                FType::Bf16
            } else {
                tb
            };
            if (ty, ta, tb, am) == (FType::F32, FType::F32, FType::F32, FMod::default()) {
                // the common case, kept free of per-lane dispatch
                let neg = if bm.neg { 0x8000_0000 } else { 0 };
                let abs = if bm.abs { 0x7fff_ffff } else { u32::MAX };
                super::lanes::f32_bin(out, va, vb, fop == FBinOp::Mul, abs, neg);
                return Ok(Some(dst));
            }
            let mut tally = Tally::default();
            for l in 0..LANES {
                let x = apply_mod(to_f32(va[l], ta), am);
                let y = apply_mod(to_f32(vb[l], tb), bm);
                let r = fbin(fop, x, y);
                half_overflow(&mut tally, r, ty, mask >> l & 1 != 0);
                out[l] = from_f32(r, ty);
            }
            tally.apply(Some(op.pc)).map_err(|w| unmeasured(op, w))?;
            dst
        }
        Kind::FFma {
            ty,
            dst,
            a,
            b,
            c,
            neg_product,
            cm,
        } => {
            let (mut buf_a, mut buf_b, mut buf_c) =
                (Uninit::uninit(), Uninit::uninit(), Uninit::uninit());
            let va = operand(sg, ctx, a, zeroed, &mut buf_a);
            let vb = operand(sg, ctx, b, zeroed, &mut buf_b);
            let vc = operand(sg, ctx, c, zeroed, &mut buf_c);
            let (ta, tb, tc) = (
                part_type(part_of(a), ty),
                part_type(part_of(b), ty),
                part_type(part_of(c), ty),
            );
            if (ty, ta, tb, tc, cm)
                == (
                    FType::F32,
                    FType::F32,
                    FType::F32,
                    FType::F32,
                    FMod::default(),
                )
            {
                let neg = if neg_product { 0x8000_0000 } else { 0 };
                super::lanes::f32_fma(out, va, vb, vc, neg);
                return Ok(Some(dst));
            }
            let mut tally = Tally::default();
            for l in 0..LANES {
                let mut x = to_f32(va[l], ta);
                if neg_product {
                    x = -x;
                }
                let r = fma_f32(x, to_f32(vb[l], tb), apply_mod(to_f32(vc[l], tc), cm));
                half_overflow(&mut tally, r, ty, mask >> l & 1 != 0);
                out[l] = from_f32(r, ty);
            }
            tally.apply(Some(op.pc)).map_err(|w| unmeasured(op, w))?;
            dst
        }
        Kind::FMinMax { op: mop, dst, a, b } => {
            let (va, vb) = (read(sg, ctx, a, zeroed), read(sg, ctx, b, zeroed));
            let (ta, tb) = (
                part_type(part_of(a), FType::F32),
                part_type(part_of(b), FType::F32),
            );
            let mut tally = Tally::default();
            for l in 0..LANES {
                let (x, y) = (to_f32(va[l], ta), to_f32(vb[l], tb));
                let active = mask >> l & 1 != 0;
                // A NaN operand loses (minNum/maxNum); ±0 are not ordered and a tie returns
                // operand B (value_rules FMinMaxNan / FMinMaxSignedZero, A18 measurements).
                let r = if x.is_nan() || y.is_nan() {
                    tally.hit(Rule::FMinMaxNan, active);
                    if x.is_nan() {
                        y
                    } else {
                        x
                    }
                } else if x == y {
                    tally.hit(
                        Rule::FMinMaxSignedZero,
                        active && x.to_bits() != y.to_bits(),
                    );
                    y
                } else {
                    match mop {
                        super::ops::FMinMax::Min => x.min(y),
                        super::ops::FMinMax::Max => x.max(y),
                    }
                };
                out[l] = from_f32(r, FType::F32);
            }
            tally.apply(Some(op.pc)).map_err(|w| unmeasured(op, w))?;
            dst
        }
        Kind::Convert { conv, dst, src } => {
            let v = read(sg, ctx, src, zeroed);
            let mut tally = Tally::default();
            for l in 0..LANES {
                out[l] = match conv {
                    Conversion::IntToF32 { signed: true } => {
                        from_f32(v[l] as i32 as f32, FType::F32)
                    }
                    Conversion::IntToF32 { signed: false } => from_f32(v[l] as f32, FType::F32),
                    Conversion::F32ToIntRtz { signed } => {
                        let (r, rule) = crate::fp::f32_to_int_rtz(to_f32(v[l], FType::F32), signed);
                        if let Some(rule) = rule {
                            tally.hit(rule, mask >> l & 1 != 0);
                        }
                        r
                    }
                };
            }
            tally.apply(Some(op.pc)).map_err(|w| unmeasured(op, w))?;
            dst
        }
        Kind::FUnary { dst, a, m } => {
            let v = read(sg, ctx, a, zeroed);
            let ta = part_type(part_of(a), FType::F32);
            for l in 0..LANES {
                out[l] = from_f32(apply_mod(to_f32(v[l], ta), m), FType::F32);
            }
            dst
        }
        Kind::Sfu {
            func,
            src_ty,
            dst_ty,
            dst,
            src,
            m,
        } => {
            let v = read(sg, ctx, src, zeroed);
            let mut tally = Tally::default();
            for l in 0..LANES {
                let x = apply_mod(to_f32(v[l], src_ty), m);
                let r = f32::from_bits(sfu::eval(func, x));
                half_overflow(&mut tally, r, dst_ty, mask >> l & 1 != 0);
                out[l] = from_f32(r, dst_ty);
            }
            tally.apply(Some(op.pc)).map_err(|w| unmeasured(op, w))?;
            dst
        }
        Kind::PackUnorm { dst, a, b, bits } => {
            let (va, vb) = (read(sg, ctx, a, zeroed), read(sg, ctx, b, zeroed));
            let scale = ((1u32 << bits) - 1) as f64;
            let mut tally = Tally::default();
            for l in 0..LANES {
                let (x, y) = (to_f32(va[l], FType::F32), to_f32(vb[l], FType::F32));
                let active = mask >> l & 1 != 0;
                for z in [x, y] {
                    if z.is_nan() {
                        tally.hit(Rule::PackUnormNan, active);
                    } else if !(0.0..=1.0).contains(&z) {
                        tally.hit(Rule::PackUnormRange, active);
                    }
                }
                out[l] = unorm(x, scale) | unorm(y, scale) << bits;
            }
            tally.apply(Some(op.pc)).map_err(|w| unmeasured(op, w))?;
            dst
        }
        Kind::IBin { op: iop, dst, a, b } => {
            let (va, vb) = (read(sg, ctx, a, zeroed), read(sg, ctx, b, zeroed));
            for l in 0..LANES {
                out[l] = ibin(iop, va[l], vb[l]);
            }
            if matches!(iop, IntBinOp::Shl | IntBinOp::ShrU | IntBinOp::ShrS) {
                // amounts of 32 and more saturate (value_rules ShiftAmountRange)
                let wide = (0..LANES)
                    .filter(|&l| mask >> l & 1 != 0 && vb[l] & 0xffff >= 32)
                    .count() as u32;
                value_rules::apply(Rule::ShiftAmountRange, wide, Some(op.pc))
                    .map_err(|w| unmeasured(op, w))?;
            }
            dst
        }
        Kind::IMad { dst, a, b, c } => {
            let (mut buf_a, mut buf_b, mut buf_c) =
                (Uninit::uninit(), Uninit::uninit(), Uninit::uninit());
            let va = operand(sg, ctx, a, zeroed, &mut buf_a);
            let vb = operand(sg, ctx, b, zeroed, &mut buf_b);
            let vc = operand(sg, ctx, c, zeroed, &mut buf_c);
            for l in 0..LANES {
                out[l] = va[l].wrapping_mul(vb[l]).wrapping_add(vc[l]);
            }
            dst
        }
        Kind::Select {
            cmp,
            dst,
            a,
            b,
            t,
            f,
        } => {
            let (va, vb) = (read(sg, ctx, a, zeroed), read(sg, ctx, b, zeroed));
            let (vt, vf) = (read(sg, ctx, t, zeroed), read(sg, ctx, f, zeroed));
            for l in 0..LANES {
                out[l] = if compare(cmp, va[l], vb[l]) {
                    vt[l]
                } else {
                    vf[l]
                };
            }
            dst
        }
        Kind::PredCompare {
            bank,
            cmp,
            a,
            b,
            invert,
        } => {
            let (va, vb) = (read(sg, ctx, a, zeroed), read(sg, ctx, b, zeroed));
            let mut bits = 0u32;
            for l in 0..LANES {
                if compare(cmp, va[l], vb[l]) != invert {
                    bits |= 1 << l;
                }
            }
            let p = &mut sg.preds[bank as usize];
            *p = (*p & !mask) | (bits & mask);
            return Ok(None);
        }
        Kind::Load {
            fmt,
            dst,
            count,
            addr,
        } => {
            load(sg, ctx, op, mask, zeroed, fmt, dst, count, addr)?;
            return Ok(None);
        }
        Kind::Store {
            fmt,
            src,
            count,
            addr,
        } => {
            store(sg, ctx, op, mask, zeroed, fmt, src, count, addr)?;
            return Ok(None);
        }
        Kind::ScratchStore { word, src } => {
            let (Some(slot), Src::Gpr(reg, _)) = (op.hazard.produce, src) else {
                return Err(unmeasured(
                    op,
                    "scratch store without slot or register".into(),
                ));
            };
            if sg.pending.any_on(slot) {
                return Err(unmeasured(
                    op,
                    format!("scratch store tags slot {slot} while a load result is pending there"),
                ));
            }
            scratch_producer(sg, op, slot, u8::MAX)?;
            let v = read(sg, ctx, src, zeroed);
            sg.scratch
                .store(word, mask, &v, slot, reg)
                .map_err(|w| unmeasured(op, w))?;
            release(sg, reg, Part::Full, mask);
            return Ok(None);
        }
        Kind::ScratchLoad { word, dst } => {
            let Some(slot) = op.hazard.produce else {
                return Err(unmeasured(op, "scratch load without a slot".into()));
            };
            scratch_producer(sg, op, slot, dst.reg)?;
            if sg.pending.is_pending(dst.reg, Part::Full) {
                return Err(unmeasured(
                    op,
                    format!("second load into r{} while the first is in flight", dst.reg),
                ));
            }
            let v = sg.scratch.load(word, mask).map_err(|w| unmeasured(op, w))?;
            sg.pending.publish(dst.reg, Part::Full, slot, mask, &v);
            return Ok(None);
        }
        Kind::IfPush { pred } => {
            let taken = pred_lanes(sg, pred);
            sg.exec
                .push(taken, Scope::If)
                .map_err(|e| unmeasured(op, e.to_string()))?;
            return Ok(None);
        }
        Kind::LoopPush => {
            sg.exec
                .push(u32::MAX, Scope::Loop)
                .map_err(|e| unmeasured(op, e.to_string()))?;
            return Ok(None);
        }
        Kind::BreakUnwind { level, ifs } => {
            sg.exec
                .break_to(level as usize, ifs as usize)
                .map_err(|e| unmeasured(op, e.to_string()))?;
            return Ok(None);
        }
        Kind::LoopUpdate { pred, depth } => {
            let leave = sg.exec.active & pred_lanes(sg, pred);
            sg.exec
                .loop_update(leave, depth as usize)
                .map_err(|e| unmeasured(op, e.to_string()))?;
            return Ok(None);
        }
        Kind::Else => {
            sg.exec
                .invert()
                .map_err(|e| unmeasured(op, e.to_string()))?;
            return Ok(None);
        }
        Kind::Pop { scope } => {
            sg.exec
                .pop(scope)
                .map_err(|e| unmeasured(op, e.to_string()))?;
            return Ok(None);
        }
        Kind::Jump { target, cond } => {
            let take = match cond {
                JumpCond::Always => true,
                JumpCond::NoneActive => sg.exec.active == 0,
                JumpCond::AnyActive => sg.exec.active != 0,
            };
            if take {
                sg.next = target;
            }
            return Ok(None);
        }
    };
    Ok(Some(dst))
}

/// The setup state, or an error when a launcher-only operation runs in a stage body.
fn setup_only<'c>(ctx: &'c mut Ctx, op: &Op) -> Result<&'c mut super::setup::SetupState, SimError> {
    ctx.setup.as_mut().ok_or_else(|| {
        unmeasured(
            op,
            "launcher operation inside a stage body (only setup invocations were measured)".into(),
        )
    })
}

/// Each launcher sets its allocation, target and frame once; a second one is unmeasured.
fn once<T>(op: &Op, slot: &mut Option<T>, v: T, what: &str) -> Result<(), SimError> {
    if slot.is_some() {
        return Err(unmeasured(
            op,
            format!("second {what} in one setup invocation"),
        ));
    }
    *slot = Some(v);
    Ok(())
}

/// A launcher pointer load: per lane, 64-bit pointers from the GPR-pair address
/// `[r<base>:r<base+1>] + 8*offset`, published low word first into r<dst>.. on the
/// producer slot (README.apple9-launchers.md "Resource ABI"; agx16-isa `ptr_load`).
#[allow(clippy::too_many_arguments)]
fn pointer_load(
    sg: &mut SimdGroup,
    ctx: &mut Ctx,
    op: &Op,
    mask: u32,
    zeroed: HalfSet,
    dst: u8,
    base: u8,
    offset: u8,
    count: u8,
) -> Result<(), SimError> {
    let Some(slot) = op.hazard.produce else {
        return Err(unmeasured(
            op,
            "pointer load without a scoreboard slot".into(),
        ));
    };
    let lo = read(sg, ctx, Src::Gpr(base, Part::Full), zeroed);
    let hi = read(sg, ctx, Src::Gpr(base + 1, Part::Full), zeroed);
    for w in 0..2 * count as usize {
        let reg = dst as usize + w;
        if reg >= super::GPRS {
            return Err(unmeasured(
                op,
                format!("pointer load destination r{reg} beyond r95"),
            ));
        }
        let reg = reg as u8;
        if sg.pending.is_pending(reg, Part::Full) {
            return Err(unmeasured(
                op,
                format!("second load into r{reg} while the first is in flight"),
            ));
        }
        let va: Lanes64 = std::array::from_fn(|l| {
            ((hi[l] as u64) << 32 | lo[l] as u64)
                .wrapping_add(8 * offset as u64)
                .wrapping_add(4 * w as u64)
        });
        let mut vals = [0u32; LANES];
        ctx.mem
            .read_lanes(&va, mask, 4, &mut vals)
            .map_err(|f| SimError::Fault(f.at_pc(op.pc)))?;
        sg.pending.publish(reg, Part::Full, slot, mask, &vals);
    }
    Ok(())
}

/// Lanes a predicate selector names.
fn pred_lanes(sg: &SimdGroup, pred: PredSel) -> u32 {
    match pred {
        PredSel::True => u32::MAX,
        PredSel::False => 0,
        PredSel::Bank { bank, invert } => {
            let p = sg.preds[bank as usize];
            if invert {
                !p
            } else {
                p
            }
        }
    }
}

/// Per-lane byte address of element `i` of a memory access.
fn addresses(
    sg: &SimdGroup,
    ctx: &Ctx,
    op: &Op,
    addr: Address,
    zeroed: HalfSet,
) -> Result<Lanes64, SimError> {
    let lo = ctx.uniforms.get(2 * addr.base_slot as usize).copied();
    let hi = ctx.uniforms.get(2 * addr.base_slot as usize + 1).copied();
    let (Some(lo), Some(hi)) = (lo, hi) else {
        return Err(unmeasured(
            op,
            format!(
                "buffer base slot {} is beyond the launch's uniforms",
                addr.base_slot
            ),
        ));
    };
    let base = (hi as u64) << 32 | lo as u64;
    let idx = read(sg, ctx, addr.index, zeroed);
    let mut out = [0u64; LANES];
    for l in 0..LANES {
        out[l] = base.wrapping_add((idx[l] as u64) << addr.shift);
    }
    Ok(out)
}

type Lanes64 = [u64; LANES];

#[allow(clippy::too_many_arguments)]
fn load(
    sg: &mut SimdGroup,
    ctx: &mut Ctx,
    op: &Op,
    mask: u32,
    zeroed: HalfSet,
    fmt: MemFormat,
    dst: super::ops::Dst,
    count: u8,
    addr: Address,
) -> Result<(), SimError> {
    let Some(slot) = op.hazard.produce else {
        return Err(unmeasured(
            op,
            "device load without a scoreboard slot".into(),
        ));
    };
    let va = addresses(sg, ctx, op, addr, zeroed)?;
    let size = fmt.bytes();
    for i in 0..count as usize {
        let mut vals = [0u32; LANES];
        let lane_va: Lanes64 = std::array::from_fn(|l| va[l].wrapping_add((i * size) as u64));
        ctx.mem
            .read_lanes(&lane_va, mask, size, &mut vals)
            .map_err(|f| SimError::Fault(f.at_pc(op.pc)))?;
        let (reg, part) = match (dst.part, i) {
            (Part::Full, _) => (dst.reg + i as u8, Part::Full),
            (p, 0) => (dst.reg, p),
            (_, _) => {
                return Err(unmeasured(
                    op,
                    "multi-element 16-bit loads are not modelled".into(),
                ))
            }
        };
        if reg as usize >= super::GPRS {
            return Err(unmeasured(
                op,
                format!("load destination r{reg} beyond r95"),
            ));
        }
        if !sg.scratch.stores.is_empty() {
            scratch_producer(sg, op, slot, reg)?;
        }
        if sg.pending.is_pending(reg, part) {
            // Two writers in flight gave stale data on M4 (APPLE9_SCOREBOARD_SLOTS.md, r17:r20 case).
            return Err(unmeasured(
                op,
                format!("second load into r{reg} while the first is in flight"),
            ));
        }
        sg.pending.publish(reg, part, slot, mask, &vals);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn store(
    sg: &mut SimdGroup,
    ctx: &mut Ctx,
    op: &Op,
    mask: u32,
    zeroed: HalfSet,
    fmt: MemFormat,
    src: Src,
    count: u8,
    addr: Address,
) -> Result<(), SimError> {
    let va = addresses(sg, ctx, op, addr, zeroed)?;
    let size = fmt.bytes();
    for i in 0..count as usize {
        let s = match src {
            Src::Gpr(r, Part::Full) if (r as usize + i) < super::GPRS => {
                Src::Gpr(r + i as u8, Part::Full)
            }
            Src::Gpr(r, _) if i > 0 && r as usize + i >= super::GPRS => {
                return Err(unmeasured(
                    op,
                    format!("store source r{} beyond r95", r as usize + i),
                ))
            }
            s if i == 0 => s,
            _ => {
                return Err(unmeasured(
                    op,
                    "multi-element 16-bit stores are not modelled".into(),
                ))
            }
        };
        let vals = read(sg, ctx, s, zeroed);
        let lane_va: Lanes64 = std::array::from_fn(|l| va[l].wrapping_add((i * size) as u64));
        ctx.mem
            .write_lanes(&lane_va, mask, size, &vals)
            .map_err(|f| SimError::Fault(f.at_pc(op.pc)))?;
    }
    Ok(())
}

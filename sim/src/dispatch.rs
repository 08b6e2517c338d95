//! Compute dispatch: a kernel over a grid of threads, split into threadgroups
//! and SIMD-groups of 32 lanes, the way a launcher sets it up.

use crate::core::exec::{run, Ctx, Yield};
use crate::core::ops::Kind;
use crate::core::setup::SetupState;
use crate::core::state::{SimdGroup, ThreadIds};
use crate::core::LANES;
use crate::error::SimError;
use crate::mem::GpuMemory;
use crate::program::{DecodeCache, Program};
use crate::trace::Trace;
use std::rc::Rc;
use std::sync::Arc;

/// Threadgroup memory per threadgroup on M4 (32 KiB; shared notes cite
/// ADevWithAnIdea/agx-re docs/m4-deltas.md, measured limit of Metal on M4).
pub const MAX_TG_MEMORY: u32 = 32 * 1024;
/// Threads per threadgroup (Metal limit on M4, same source).
pub const MAX_TG_THREADS: u32 = 1024;

/// Where the kernel's machine code comes from.
#[derive(Clone)]
pub enum Code {
    /// Already decoded (reuse across launches).
    Program(Arc<Program>),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// `len` bytes at GPU VA `va`, read through the launch's memory.
    Va { va: u64, len: usize },
}

/// One compute launch.
#[derive(Clone)]
pub struct ComputeLaunch {
    pub code: Code,
    /// Uniform registers (32-bit each). Buffer base slot n is the 64-bit
    /// address in uniforms 2n (low) and 2n+1 (high).
    pub uniforms: Vec<u32>,
    /// Grid size in threads (`dispatchThreads` semantics: partial threadgroups at the edges).
    pub grid: [u32; 3],
    pub threadgroup: [u32; 3],
    /// Bytes of threadgroup memory (≤ 32 KiB).
    pub tg_memory: u32,
    /// Upper bound on executed instructions (all SIMD-groups), against endless loops.
    pub budget: u64,
}

impl ComputeLaunch {
    pub const DEFAULT_BUDGET: u64 = 1 << 32;
}

/// What a dispatch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub threadgroups: u64,
    pub simdgroups: u64,
    pub instructions: u64,
    pub lane_instructions: u64,
}

/// Runs a compute launch to completion against `mem`.
pub fn run_compute(mem: &dyn GpuMemory, launch: &ComputeLaunch) -> Result<Stats, SimError> {
    run_compute_inner(mem, launch, 0, None)
}

/// Like [`run_compute`] with `scratch_bytes` of per-invocation scratch (the frame extent A a
/// launcher would give the stage, at most [`MAX_SCRATCH_BYTES`]): what `spill_store` /
/// `spill_load` address. [`run_compute`] gives none, so any scratch access is an error.
pub fn run_compute_with_scratch(
    mem: &dyn GpuMemory,
    launch: &ComputeLaunch,
    scratch_bytes: u32,
) -> Result<Stats, SimError> {
    run_compute_inner(mem, launch, scratch_bytes, None)
}

pub use crate::core::scratch::MAX_SCRATCH_BYTES;

/// Like [`run_compute`], polling `cancelled` while SIMD-groups run (the kernel's
/// watchdog); a cancelled dispatch stops with [`SimError::Budget`] naming the pc.
pub fn run_compute_cancellable(
    mem: &dyn GpuMemory,
    launch: &ComputeLaunch,
    cancelled: &dyn Fn() -> bool,
) -> Result<Stats, SimError> {
    run_compute_inner(mem, launch, 0, Some(cancelled))
}

fn run_compute_inner(
    mem: &dyn GpuMemory,
    launch: &ComputeLaunch,
    scratch_bytes: u32,
    cancelled: Option<&dyn Fn() -> bool>,
) -> Result<Stats, SimError> {
    if scratch_bytes > MAX_SCRATCH_BYTES {
        return Err(SimError::Launch(format!(
            "{scratch_bytes} bytes of scratch per invocation: beyond the {MAX_SCRATCH_BYTES} \
             exercised on T8132"
        )));
    }
    let prog = match &launch.code {
        Code::Program(p) => p.clone(),
        Code::Bytes(b) => Arc::new(Program::new(b)),
        Code::Va { va, len } => {
            let mut b = vec![0u8; *len];
            mem.read(*va, &mut b)?;
            Arc::new(Program::new(&b))
        }
    };
    let needed = prog.uniforms_needed();
    if launch.uniforms.len() < needed {
        return Err(SimError::Launch(format!(
            "the program reads {needed} uniform registers, the launch provides {}",
            launch.uniforms.len()
        )));
    }
    let tg = launch.threadgroup;
    let tg_threads = tg.iter().map(|&d| d as u64).product::<u64>();
    if tg_threads == 0 || tg_threads > MAX_TG_THREADS as u64 {
        return Err(SimError::Launch(format!(
            "threadgroup {tg:?} must hold 1..={MAX_TG_THREADS} threads"
        )));
    }
    if launch.tg_memory > MAX_TG_MEMORY {
        return Err(SimError::Launch(format!(
            "{} bytes of threadgroup memory > 32 KiB",
            launch.tg_memory
        )));
    }
    let groups: [u32; 3] = std::array::from_fn(|d| launch.grid[d].div_ceil(tg[d]));
    let trace = Trace::from_env();
    let mut ctx = Ctx {
        prog: &prog,
        mem,
        uniforms: &launch.uniforms,
        setup: None,
        trace: trace.as_ref(),
        cancelled,
        budget: launch.budget,
        instructions: 0,
        lane_instructions: 0,
    };
    let mut stats = Stats::default();
    let mut simd_counter = 0u32;
    let mut pool: Vec<SimdGroup> = Vec::new();
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                let n = simdgroups_of(launch, [gx, gy, gz], &mut pool);
                for sg in &mut pool[..n] {
                    sg.scratch.reset(scratch_bytes);
                }
                stats.threadgroups += 1;
                stats.simdgroups += n as u64;
                run_threadgroup(&mut pool[..n], &mut ctx, &mut simd_counter)?;
            }
        }
    }
    stats.instructions = ctx.instructions;
    stats.lane_instructions = ctx.lane_instructions;
    Ok(stats)
}

/// Sets up the SIMD-groups of threadgroup `tgid` in `pool` (reusing its
/// allocations) and returns how many there are: threads in x-fastest linear
/// order, 32 per SIMD-group; threads outside the grid are lanes that never run.
fn simdgroups_of(launch: &ComputeLaunch, tgid: [u32; 3], pool: &mut Vec<SimdGroup>) -> usize {
    let tg = launch.threadgroup;
    let n = tg[0] * tg[1] * tg[2];
    let count = n.div_ceil(LANES as u32) as usize;
    for s in 0..count as u32 {
        let ids = ThreadIds {
            tg: tgid,
            tg_size: tg,
            simd_index: s,
        };
        let mut live = 0u32;
        let locals = ids.locals();
        for l in 0..LANES as u32 {
            if s * LANES as u32 + l >= n {
                break;
            }
            let p = locals[l as usize];
            let inside =
                |d: usize| tgid[d] as u64 * tg[d] as u64 + (p[d] as u64) < launch.grid[d] as u64;
            if (0..3).all(inside) {
                live |= 1 << l;
            }
        }
        match pool.get_mut(s as usize) {
            Some(sg) => sg.reset(live, ids),
            None => pool.push(SimdGroup::new(live, ids)),
        }
    }
    count
}

/// Runs the SIMD-groups of one threadgroup, meeting at barriers.
fn run_threadgroup(
    sgs: &mut [SimdGroup],
    ctx: &mut Ctx,
    counter: &mut u32,
) -> Result<(), SimError> {
    let first = *counter;
    *counter += sgs.len() as u32;
    loop {
        let mut waiting = 0;
        for (i, sg) in sgs.iter_mut().enumerate() {
            if sg.done {
                continue;
            }
            if let Some(t) = ctx.trace {
                t.set_group(first + i as u32);
            }
            if run(sg, ctx)? == Yield::Barrier {
                waiting += 1;
            }
        }
        if waiting == 0 {
            return Ok(());
        }
    }
}

// ---------------------------------------------------------------------------
// Hardware entry: a CDM launch runs its launcher (setup) program, whose STOP
// starts the selected entry; the entry's JMP_EXEC_ANY reaches the body.
// GravityLinux/mesa src/gallium/drivers/asahi/README.apple9-launchers.md
// (generated launchers, entry arena and bodies executed on T8132 = M4).
// ---------------------------------------------------------------------------

/// Longest launcher read: the compute launch allocation (1024 bytes, same source).
const LAUNCHER_BYTES: usize = 1024;
/// Longest body read from the USC heap. Bodies end in STOP; bytes after the
/// body are decoded but never executed unless control reaches them.
const BODY_BYTES: usize = 256 * 1024;
/// The USC heap is 4 GiB from its base (entries and bodies lie inside it).
const USC_HEAP: u64 = 1 << 32;

/// What a compute launch's setup invocation established, and where the body is.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchSetup {
    pub setup: SetupState,
    /// Argument words the body reads through its uniform operands.
    pub arguments: Vec<u32>,
    pub entry_va: u64,
    pub body_va: u64,
    /// Instructions the setup invocation executed.
    pub instructions: u64,
}

/// Reads up to `max` bytes at `va`, stopping at the first unreadable 16 KiB page.
fn read_code(mem: &dyn GpuMemory, va: u64, max: usize) -> Result<Vec<u8>, SimError> {
    let mut out = Vec::new();
    while out.len() < max {
        let at = va + out.len() as u64;
        let page_end = (at | (crate::mem::PAGE_SIZE - 1)) + 1;
        let n = ((page_end - at) as usize).min(max - out.len());
        let mut chunk = vec![0u8; n];
        match mem.read(at, &mut chunk) {
            Ok(()) => out.extend_from_slice(&chunk),
            Err(f) if out.is_empty() => return Err(SimError::Fault(f)),
            Err(_) => break,
        }
    }
    Ok(out)
}

/// Names the place (`place(pc)`, e.g. "launcher at VA+pc") in an error from a program.
fn located(e: SimError, place: impl Fn(u32) -> String) -> SimError {
    match e {
        SimError::Unestablished {
            pc,
            bytes,
            form,
            what: w,
        } => SimError::Unestablished {
            pc,
            bytes,
            form,
            what: format!("{}: {w}", place(pc)),
        },
        SimError::Unmeasured { pc, what: w } => SimError::Unmeasured {
            pc,
            what: format!("{}: {w}", place(pc)),
        },
        SimError::Decode { pc, what: w } => SimError::Decode {
            pc,
            what: format!("{}: {w}", place(pc)),
        },
        other => other,
    }
}

/// The setup invocation's program: the launcher, and when a `JMP_EXEC_ANY` before its
/// STOP leaves the launcher, the compiled setup body it tail-branches to (README
/// "Compiler-generated uniform setup": after the transfers the launch record may
/// tail-branch to a persistent setup body whose STOP completes argument
/// initialisation and starts the selected entry; no return). The two are laid end to
/// end and the jump relinked to the body's first instruction; returns the program and,
/// with a setup body, (its offset in the program, its VA).
fn setup_program(mem: &dyn GpuMemory, launcher_va: u64) -> Result<SetupProgram, SimError> {
    let code = read_code(mem, launcher_va, LAUNCHER_BYTES)?;
    let key = (launcher_va, code);
    if let Some(p) = LAUNCHERS.with(|c| c.get(&key)) {
        return Ok((p, None));
    }
    let code = key.1;
    // A launcher that tail-branches to a setup body has a JMP before its first STOP, and a
    // JMP lowers to a jump or a refusal: without either among the reachable ops (which
    // include everything up to the first STOP) there is nothing to look for.
    let reachable = Program::new_reachable(&code);
    let may_branch = reachable
        .ops
        .iter()
        .any(|o| matches!(o.kind, Kind::Jump { .. } | Kind::Refuse(_)));
    if !may_branch {
        let p = Rc::new(reachable);
        LAUNCHERS.with(|c| c.insert((launcher_va, code), p.clone()));
        return Ok((p, None));
    }
    let mut tail = None;
    for item in agx16_isa::split(&code) {
        let Ok((off, i)) = item else { break };
        match i.form.op {
            agx16_isa::Op::Stop => break,
            agx16_isa::Op::Jump => {
                let end = off + i.form.len as usize;
                let d = crate::lower::entry_jump(&i).map_err(|w| SimError::Unestablished {
                    pc: off as u32,
                    bytes: crate::error::hex(&code[off..end]),
                    form: i.form.name.into(),
                    what: format!("launcher at {launcher_va:#x}+{off:#x}: {w}"),
                })?;
                let target = (launcher_va + off as u64).wrapping_add_signed(d);
                if !(launcher_va..launcher_va + code.len() as u64).contains(&target) {
                    tail = Some((off, end, target));
                    break;
                }
            }
            _ => {}
        }
    }
    let Some((jump_at, end, setup_va)) = tail else {
        // only the reachable part: the 1 KiB window holds whatever follows the launcher
        let p = Rc::new(reachable);
        LAUNCHERS.with(|c| c.insert((launcher_va, code), p.clone()));
        return Ok((p, None));
    };
    let mut combined = code[..end].to_vec();
    combined.extend(read_code(mem, setup_va, BODY_BYTES)?);
    let mut prog = Program::new(&combined);
    let (Some(j), Some(t)) = (prog.index_of(jump_at as u32), prog.index_of(end as u32)) else {
        return Err(SimError::Launch(format!(
            "launcher at {launcher_va:#x}: setup body at {setup_va:#x} does not decode"
        )));
    };
    prog.ops[j].kind = crate::core::ops::Kind::Jump {
        target: t,
        cond: crate::core::ops::JumpCond::AnyActive,
    };
    Ok((Rc::new(prog), Some((end as u32, setup_va))))
}

/// Launchers [`setup_program`] keeps per thread (cleared when full).
const LAUNCHERS_MAX: usize = 256;

thread_local! {
    /// Decoded launchers without a setup body, by (VA, the bytes read): render stages run
    /// their launchers again on every render, and an identical window decodes identically
    /// (a rewritten launcher is a different key, so nothing is stale).
    static LAUNCHERS: DecodeCache<Program> = DecodeCache::new(LAUNCHERS_MAX);
}

/// A setup invocation's program and, with a setup body, (its offset in the program, its VA).
type SetupProgram = (Rc<Program>, Option<(u32, u64)>);

/// Runs the launcher at `launcher_va` as one setup invocation and follows its stage
/// target into the entry arena (`usc_base` + entry offset) to the body.
///
/// Modelled as one SIMD-group of 32 lanes run once per launch: the sources do not
/// say how many lanes or how often setup runs, so the model refuses anything whose
/// outcome would depend on it (thread-identity reads, argument words that differ
/// between lanes).
pub fn run_setup(
    mem: &dyn GpuMemory,
    launcher_va: u64,
    usc_base: u64,
    budget: u64,
) -> Result<LaunchSetup, SimError> {
    run_setup_inner(mem, launcher_va, usc_base, budget, None)
}

fn run_setup_inner(
    mem: &dyn GpuMemory,
    launcher_va: u64,
    usc_base: u64,
    budget: u64,
    cancelled: Option<&dyn Fn() -> bool>,
) -> Result<LaunchSetup, SimError> {
    let (prog, setup_body) = setup_program(mem, launcher_va)?;
    let place = |pc: u32| match setup_body {
        Some((start, va)) if pc >= start => format!("setup body at {va:#x}+{:#x}", pc - start),
        _ => format!("launcher at {launcher_va:#x}+{pc:#x}"),
    };
    let trace = Trace::from_env();
    let mut ctx = Ctx {
        prog: &prog,
        mem,
        uniforms: &[],
        setup: Some(SetupState::default()),
        trace: trace.as_ref(),
        cancelled,
        budget,
        instructions: 0,
        lane_instructions: 0,
    };
    // every draw runs two launchers: a recycled group spares allocating and zeroing one
    let mut sg = crate::core::state::Recycled::new(u32::MAX, ThreadIds::default());
    match run(&mut sg, &mut ctx).map_err(|e| located(e, place))? {
        Yield::Stop => {}
        Yield::Barrier => {
            return Err(SimError::Launch(format!(
                "launcher at {launcher_va:#x}: a barrier in a setup invocation is unmeasured"
            )))
        }
    }
    let setup = ctx.setup.take().expect("setup state set above");
    let instructions = ctx.instructions;
    let missing = |what: &str| {
        SimError::Launch(format!(
            "launcher at {launcher_va:#x} stopped without a {what}"
        ))
    };
    let entry = setup.entry.ok_or_else(|| missing("stage target"))?;
    if setup.allocation.is_none() {
        return Err(missing("stage allocation"));
    }
    if setup.frame.is_none() {
        return Err(missing("launch frame"));
    }
    let arguments = setup.argument_words().map_err(|w| {
        SimError::Launch(format!(
            "launcher at {launcher_va:#x} leaves argument word {w} unwritten below word {}",
            setup.args.len() - 1
        ))
    })?;
    if entry >= USC_HEAP {
        return Err(SimError::Launch(format!(
            "entry offset {entry:#x} is outside the 4 GiB USC heap"
        )));
    }
    let entry_va = usc_base + entry;
    let body_va = follow_entry(mem, entry_va)?;
    if !(usc_base..usc_base + USC_HEAP).contains(&body_va) {
        return Err(SimError::Launch(format!(
            "entry at {entry_va:#x} jumps to {body_va:#x}, outside the USC heap"
        )));
    }
    Ok(LaunchSetup {
        setup,
        arguments,
        entry_va,
        body_va,
        instructions,
    })
}

/// The entry: `JMP_EXEC_ANY` to the body, then STOP for lanes that are not active.
/// Every SIMD-group a launch starts has active lanes, so the jump is taken.
fn follow_entry(mem: &dyn GpuMemory, entry_va: u64) -> Result<u64, SimError> {
    let code = read_code(mem, entry_va, 16)?;
    let refuse = |pc: usize, what: String| {
        let end = code.len().min(pc + 10);
        SimError::Unestablished {
            pc: pc as u32,
            bytes: crate::error::hex(&code[pc.min(end)..end]),
            form: "stage entry".into(),
            what: format!("entry at {entry_va:#x}+{pc:#x}: {what}"),
        }
    };
    let jump = agx16_isa::decode_at(&code, 0).map_err(|e| refuse(0, e.to_string()))?;
    let d = crate::lower::entry_jump(&jump).map_err(|w| refuse(0, w))?;
    let at = jump.form.len as usize;
    let stop = crate::lower::lower_at(&code, at).map_err(|e| refuse(at, e.to_string()))?;
    if !matches!(stop.kind, crate::core::ops::Kind::Stop) {
        return Err(refuse(at, "the entry jump is not followed by STOP".into()));
    }
    Ok(entry_va.wrapping_add_signed(d))
}

/// Bytes from the start of `prog` up to the end of the last instruction control can
/// reach (fall-through, branch targets; STOP, an unconditional jump and a refusal end
/// a path). A body read from the USC heap has no recorded length; the bytes after it
/// (another body, data) must not count as the body's (e.g. its uniform use).
fn reachable_bytes(prog: &Program) -> usize {
    use crate::core::ops::{JumpCond, Kind};
    let n = prog.ops.len();
    let mut seen = vec![false; n];
    let mut work = vec![0usize];
    let mut end = 0usize;
    while let Some(i) = work.pop() {
        if i >= n || seen[i] {
            continue;
        }
        seen[i] = true;
        let op = &prog.ops[i];
        // an undecodable op (length 0) keeps its bytes so the refusal stays a decode error
        let len = if op.len == 0 { 16 } else { op.len as usize };
        end = end.max(op.pc as usize + len);
        match op.kind {
            Kind::Stop | Kind::Refuse(_) => {}
            Kind::Jump {
                target,
                cond: JumpCond::Always,
            } => work.push(target),
            Kind::Jump { target, .. } => work.extend([target, i + 1]),
            _ => work.push(i + 1),
        }
    }
    end.max(1).min(prog.code.len())
}

/// Runs one CDM compute launch the way the M4 does: the launcher program at
/// `launch.pipeline` (a setup invocation), then the body its entry reaches, over the
/// launch's grid, with the argument words as uniforms and the threadgroup memory the
/// stage allocation asks for. `budget` bounds the instructions of setup and body.
pub fn run_cdm_launch(
    mem: &dyn GpuMemory,
    launch: &agx16_cmdstream::cdm::Launch,
    usc_base: u64,
    budget: u64,
) -> Result<Stats, SimError> {
    run_cdm_launch_inner(mem, launch, usc_base, budget, None)
}

/// Like [`run_cdm_launch`], polling `cancelled` (the kernel's watchdog) every few
/// thousand instructions of setup and body; a cancelled launch stops with
/// [`SimError::Budget`] at the pc it reached, so an endless shader loop ends at the
/// job's deadline rather than at the instruction budget.
pub fn run_cdm_launch_cancellable(
    mem: &dyn GpuMemory,
    launch: &agx16_cmdstream::cdm::Launch,
    usc_base: u64,
    budget: u64,
    cancelled: &dyn Fn() -> bool,
) -> Result<Stats, SimError> {
    run_cdm_launch_inner(mem, launch, usc_base, budget, Some(cancelled))
}

fn run_cdm_launch_inner(
    mem: &dyn GpuMemory,
    launch: &agx16_cmdstream::cdm::Launch,
    usc_base: u64,
    budget: u64,
    cancelled: Option<&dyn Fn() -> bool>,
) -> Result<Stats, SimError> {
    use agx16_cmdstream::cdm::Grid;
    use agx16_isa::meaning::StageAllocation;
    let (grid, threadgroup) = match launch.grid {
        Grid::Direct { global, local } => (global, local),
        other => {
            return Err(SimError::Launch(format!(
                "{other:?}: indirect grids are not modelled yet"
            )))
        }
    };
    let s = run_setup_inner(mem, launch.pipeline, usc_base, budget, cancelled)?;
    let tg_memory = match s.setup.allocation {
        Some(StageAllocation::Empty) => 0,
        Some(StageAllocation::Threadgroup { bytes }) => bytes,
        other => {
            return Err(SimError::Launch(format!(
                "launcher at {:#x}: {other:?} is not a compute allocation",
                launch.pipeline
            )))
        }
    };
    // Frame extent A is the body's scratch (README.apple9-launchers.md "Resource ABI").
    let scratch_bytes = s.setup.frame.map(|f| f.extent_a as u32).unwrap_or(0);
    let body = read_code(mem, s.body_va, BODY_BYTES)?;
    // (the reachable prefix decodes to the same ops; the rest of the 256 KiB window is
    // never decoded)
    let body = &body[..reachable_bytes(&Program::new_reachable(&body))];
    let mut stats = run_compute_inner(
        mem,
        &ComputeLaunch {
            code: Code::Program(Arc::new(Program::new(body))),
            uniforms: s.arguments,
            grid,
            threadgroup,
            tg_memory,
            budget: budget.saturating_sub(s.instructions),
        },
        scratch_bytes,
        cancelled,
    )
    .map_err(|e| located(e, |pc| format!("body at {:#x}+{pc:#x}", s.body_va)))?;
    stats.instructions += s.instructions;
    Ok(stats)
}

/// One compute launch of a replayed capture.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayedLaunch {
    /// Command index in the capture's command buffer and the launch record's VA.
    pub command: usize,
    pub record_va: u64,
    pub result: Result<Stats, SimError>,
}

/// Replays the compute commands of a kernel capture (`AGX16_DUMP`, read with
/// `agx16_cmdstream::capture::Capture::parse`) on the model: its mappings become a
/// page table (read/write flags kept; a single-page mapping becomes copies of its
/// page, so writes through one alias are not seen through the others), each compute
/// command's CDM stream is walked and every launch runs as [`run_cdm_launch`] with
/// the capture's USC base. Render commands are skipped (no render replay yet). The
/// page table is returned for inspection. A malformed command buffer or stream is a
/// `SimError::Launch`; a launch's own failure is in its `result`.
pub fn replay_compute(
    cap: &agx16_cmdstream::capture::Capture,
    budget: u64,
) -> Result<(crate::mem::PageTable, Vec<ReplayedLaunch>), SimError> {
    use agx16_cmdstream::record::Record;
    use agx16_cmdstream::render::{CmdCompute, CmdHeader, CMD_COMPUTE};
    let pt = crate::mem::PageTable::new();
    for (i, m) in cap.mappings.iter().enumerate() {
        let bad = |why: String| SimError::Launch(format!("capture mapping {i}: {why}"));
        pt.map(m.start, m.end - m.start, m.flags & 1 != 0, m.flags & 2 != 0)
            .map_err(|e| bad(e.to_string()))?;
        if m.single_page() {
            let mut va = m.start;
            while va < m.end {
                pt.host_write(va, &m.bytes)?;
                va += m.bytes.len().max(1) as u64;
            }
        } else {
            pt.host_write(m.start, &m.bytes)?;
        }
    }
    struct Read<'a>(&'a crate::mem::PageTable);
    impl agx16_cmdstream::stream::GpuRead for Read<'_> {
        fn read(&self, va: u64, out: &mut [u8]) -> Result<(), String> {
            self.0.read(va, out).map_err(|f| f.to_string())
        }
    }
    let mut out = Vec::new();
    let (mut at, mut command) = (0usize, 0usize);
    while at < cap.cmdbuf.len() {
        let bad = |why: String| SimError::Launch(format!("capture command {command}: {why}"));
        let header = cap
            .cmdbuf
            .get(at..at + CmdHeader::SIZE)
            .ok_or_else(|| bad("truncated header".into()))
            .and_then(|b| CmdHeader::unpack(b).map_err(|e| bad(e.to_string())))?;
        let start = at + CmdHeader::SIZE;
        let payload = cap
            .cmdbuf
            .get(start..start + header.size as usize)
            .ok_or_else(|| bad("truncated payload".into()))?;
        if header.cmd_type == CMD_COMPUTE {
            let c = CmdCompute::unpack(payload).map_err(|e| bad(e.to_string()))?;
            let items = agx16_cmdstream::cdm::walk(
                &Read(&pt),
                c.cdm_ctrl_stream_base.0,
                agx16_cmdstream::stream::WalkLimits::default(),
            )
            .map_err(|e| bad(format!("CDM stream at {:#x}: {e}", e.at)))?;
            for item in &items {
                if let Some(launch) = item.block.launch() {
                    out.push(ReplayedLaunch {
                        command,
                        record_va: item.at,
                        result: run_cdm_launch(&pt, &launch, cap.usc_exec_base, budget),
                    });
                }
            }
        }
        at = start + header.size as usize;
        command += 1;
    }
    Ok((pt, out))
}

//! Stage bodies on the shader core. The core runs a body's ALU, memory and control flow;
//! it stops at each graphics IO instruction (which it lowers to a refusal because the
//! state involved, coefficient registers and the tilebuffer, belongs to the render
//! pipeline). This module performs that instruction (`crate::lower::gfx_io`, the single
//! interpretation of those fields) and resumes the SIMD-group after it.

use super::stages::{Fragment, FragmentResult, TileBuffer, VertexInvocation};
use super::unestablished;
use crate::core::exec::{run_to_refusal, Ctx, Yield};
use crate::core::ops::{Dst, Kind, Op, Part};
use crate::core::state::{Recycled, SimdGroup, ThreadIds};
use crate::core::LANES;
use crate::error::{hex, SimError};
use crate::lower::gfx_io::{self, GfxOp};
use crate::mem::GpuMemory;
use crate::program::{DecodeCache, Program};
use agx16_isa::meaning::ExportOp;
use rustc_hash::FxHashMap as HashMap;

/// The window the model first reads a body through (bytes after the entry jump's target);
/// a body whose reachable code runs to the window's end is read again through a window four
/// times larger, up to [`MAX_BODY`] (the hardware has no such window: the model's only
/// cost is reading and comparing the bytes).
const BODY_WINDOW: usize = 16 * 1024;
/// Largest body the model reads.
const MAX_BODY: usize = 1024 * 1024;

/// Bodies [`Body::load_shared`] keeps per thread (cleared when full).
const DECODED_MAX: usize = 64;

thread_local! {
    /// Decoded bodies by (VA, bytes read): see [`Body::load_shared`].
    static DECODED: DecodeCache<Body> = DecodeCache::new(DECODED_MAX);
}

/// A stage body, decoded once.
pub struct Body {
    pub va: u64,
    pub prog: Program,
    /// Graphics IO ops by pc (or why the encoding is refused).
    io: HashMap<u32, Result<GfxOp, String>>,
    /// Uniform words the reachable instructions read (see [`Body::uniforms_read`]).
    uniform_words: usize,
}

impl Body {
    /// Reads and decodes the body at `va` (up to the first unmapped 16-byte chunk).
    pub fn load(mem: &dyn GpuMemory, va: u64) -> Result<Body, SimError> {
        let mut window = BODY_WINDOW;
        loop {
            let code = Self::read_code(mem, va, window)?;
            let full = code.len() == window;
            let body = Self::decode(va, code);
            if !(full && window < MAX_BODY && body.runs_to_window_end()) {
                return Ok(body);
            }
            window *= 4;
        }
    }

    /// Whether decoding stopped at the end of the bytes read rather than at the program's
    /// end: its last reachable op is not a stop and ends within one instruction of the end.
    fn runs_to_window_end(&self) -> bool {
        let Some(last) = self.prog.ops.last() else {
            return false;
        };
        !matches!(last.kind, Kind::Stop)
            && last.pc as usize + last.len as usize + 16 >= self.prog.code.len()
    }

    /// [`Body::load`], shared: a body whose VA and bytes (the whole window, as read
    /// now) equal an earlier load's on this thread is that load's decode. Every render
    /// loads its bodies afresh, and decoding the whole window (most of it whatever follows
    /// the program) costs more than a small frame; comparing the bytes makes a rewritten
    /// body a different entry, so nothing is ever stale.
    pub fn load_shared(mem: &dyn GpuMemory, va: u64) -> Result<std::rc::Rc<Body>, SimError> {
        let mut window = BODY_WINDOW;
        loop {
            let code = Self::read_code(mem, va, window)?;
            let full = code.len() == window;
            let key = (va, code);
            if let Some(b) = DECODED.with(|c| c.get(&key)) {
                return Ok(b);
            }
            let body = Self::decode(va, key.1.clone());
            if full && window < MAX_BODY && body.runs_to_window_end() {
                window *= 4;
                continue;
            }
            let body = std::rc::Rc::new(body);
            DECODED.with(|c| c.insert(key, body.clone()));
            return Ok(body);
        }
    }

    fn read_code(mem: &dyn GpuMemory, va: u64, window: usize) -> Result<Vec<u8>, SimError> {
        let mut code = Vec::new();
        let mut chunk = [0u8; 16];
        // 4 KiB at a time while every chunk of the block reads (one access instead of 256);
        // the 16-byte chunks of the first block that does not give the same bytes.
        let mut block = vec![0u8; 4096];
        while code.len() + block.len() <= window
            && mem.read(va + code.len() as u64, &mut block).is_ok()
        {
            code.extend_from_slice(&block);
        }
        while code.len() < window && mem.read(va + code.len() as u64, &mut chunk).is_ok() {
            code.extend_from_slice(&chunk);
        }
        if code.is_empty() {
            mem.read(va, &mut chunk[..2])?;
        }
        Ok(code)
    }

    fn decode(va: u64, code: Vec<u8>) -> Body {
        // Only what control can reach: the window's other bytes are not the body's.
        let mut prog = Program::new_reachable(&code);
        let mut io = HashMap::default();
        for op in prog.ops.iter_mut() {
            if let Ok(i) = agx16_isa::decode_at(&code, op.pc as usize) {
                if let Some(g) = gfx_io::lower(&i) {
                    // The core executes special-register reads itself (with compute
                    // meanings); in a render-stage body they are the pipeline's, so the
                    // op traps to the render model like the other graphics IO forms.
                    if !matches!(op.kind, Kind::Refuse(_)) {
                        let end = (op.pc as usize + op.len as usize).min(code.len());
                        op.kind = Kind::Refuse(SimError::Unestablished {
                            pc: op.pc,
                            bytes: hex(&code[op.pc as usize..end]),
                            form: i.form.name.to_string(),
                            what: "a render-stage input the render model supplies".into(),
                        });
                    }
                    io.insert(op.pc, g);
                }
            }
        }
        let mut body = Body {
            va,
            prog,
            io,
            uniform_words: 0,
        };
        body.uniform_words = body.uniforms_read();
        body
    }

    /// Uniform words the body can read: uniform operands and the 64-bit base pairs of its
    /// device loads/stores, over the instructions control can reach from the entry (a body
    /// read from the USC heap has no recorded end; the bytes after its STOP are not its own).
    /// Graphics IO instructions the render model performs continue to the next one.
    pub fn uniforms_read(&self) -> usize {
        use crate::core::ops::{JumpCond, Kind as K, Src};
        let ops = &self.prog.ops;
        let mut seen = vec![false; ops.len()];
        let mut work = vec![0usize];
        let mut n = 0;
        while let Some(i) = work.pop() {
            if i >= ops.len() || seen[i] {
                continue;
            }
            seen[i] = true;
            let op = &ops[i];
            for s in op.kind.sources() {
                if let Src::Uniform(u, _) = s {
                    n = n.max(u as usize + 1);
                }
            }
            if let K::Load { addr, .. } | K::Store { addr, .. } = &op.kind {
                n = n.max(2 * addr.base_slot as usize + 2);
            }
            match op.kind {
                K::Stop => {}
                K::Refuse(_) if !matches!(self.io.get(&op.pc), Some(Ok(_))) => {}
                K::Jump {
                    target,
                    cond: JumpCond::Always,
                } => work.push(target),
                K::Jump { target, .. } => work.extend([target, i + 1]),
                _ => work.push(i + 1),
            }
        }
        n
    }

    /// The body contains a coverage write (`frag_sample_submit`) the model executes.
    pub fn writes_coverage(&self) -> bool {
        self.io
            .values()
            .any(|g| matches!(g, Ok(GfxOp::SampleMask { .. } | GfxOp::DepthStore { .. })))
    }

    /// Refuses a body that reads uniform words its launcher did not write: what the M4
    /// returns there is not established (the model never substitutes zeros).
    pub fn check_uniforms(&self, uniforms: &[u32], stage: &str) -> Result<(), SimError> {
        let n = self.uniform_words;
        if n > uniforms.len() {
            return Err(unestablished(
                self.va,
                stage,
                format!(
                    "the body reads uniform word {} but its launcher transferred {} argument \
                     words (words past the transfers are not established)",
                    n - 1,
                    uniforms.len()
                ),
            ));
        }
        Ok(())
    }

    /// Adds the body's VA to a core error (its pc is relative to the body).
    fn locate(&self, e: SimError) -> SimError {
        match e {
            SimError::Unestablished {
                pc,
                bytes,
                form,
                what,
            } => SimError::Unestablished {
                pc,
                bytes,
                form,
                what: format!("{what} (body at {:#x})", self.va),
            },
            other => other,
        }
    }

    pub(super) fn error(&self, op: &Op, what: String) -> SimError {
        let at = op.pc as usize;
        let end = (at + op.len as usize).min(self.prog.code.len());
        SimError::Unestablished {
            pc: op.pc,
            bytes: hex(&self.prog.code[at..end]),
            form: self.prog.disasm_at(op.pc).to_string(),
            what: format!("{what} (body at {:#x})", self.va),
        }
    }
}

/// Runs the fragment body on one SIMD-group of up to eight 2x2 quads (lane k = `quad[k]`;
/// lanes 4q..4q+3 are quad q's pixels (0,0), (1,0), (0,1), (1,1); helper lanes execute but
/// their tilebuffer writes are dropped).
pub fn run_fragment_quad(
    mem: &dyn GpuMemory,
    body: &Body,
    uniforms: &[u32],
    scratch: u32,
    quad: &[Fragment],
    tile: &mut TileBuffer,
) -> Result<Vec<FragmentResult>, SimError> {
    body.check_uniforms(uniforms, "fragment body")?;
    if quad.len() > LANES {
        return Err(SimError::Launch(format!(
            "render: {} fragments for one SIMD-group of {LANES} lanes",
            quad.len()
        )));
    }
    // Fragment bodies publish texture coordinates (`super::texture` has the rules).
    let mut pubs = Publications::new();
    let mut borrowed = HashMap::default();
    let writes = body.writes_coverage();
    let mut cov = Coverage {
        writes,
        killed: [0; LANES],
        tested: [0; LANES],
        depth: [None; LANES],
    };
    run_trapping(
        mem,
        body,
        uniforms,
        scratch,
        quad.len(),
        "fragment body",
        |sg, op, g| match g {
            GfxOp::Export { .. } => {
                super::texture::check_rewrite(body, op, sg, &borrowed, g)?;
                export(body, op, sg, &mut pubs, g)
            }
            GfxOp::Texture(t) => super::texture::run(
                mem,
                uniforms,
                body,
                op,
                sg,
                quad,
                &mut pubs,
                &mut borrowed,
                t,
            ),
            GfxOp::Coverage { dst } => coverage_read(body, op, sg, quad, &cov, dst),
            GfxOp::SampleMask { src, wait } => {
                coverage_write(body, op, sg, quad, &mut pubs, &mut cov, src, wait, false)
            }
            GfxOp::DepthStore { src, wait } => {
                coverage_write(body, op, sg, quad, &mut pubs, &mut cov, src, wait, true)
            }
            GfxOp::Derivative { .. } => derivative(body, op, sg, quad, g),
            _ => fragment_io(body, op, g, sg, quad, tile, Some(&cov)),
        },
    )?;
    Ok((0..quad.len())
        .map(|l| FragmentResult {
            discard: false,
            coverage_writes: writes,
            killed: cov.killed.get(l).copied().unwrap_or(0),
            tested: cov.tested.get(l).copied().unwrap_or(0),
            depth_bits: cov.depth.get(l).copied().flatten(),
        })
        .collect())
}

/// Coverage (discard and late depth/stencil tests inside the program).
///
/// Rules, each with its evidence:
/// - the read (`get_sr` 0xc2, [`GfxOp::Coverage`]) returns the invocation's covered samples in
///   bits 0..3 (ADevWithAnIdea/agx-re EXP-0091, measured on M4: the effective mask is the low N
///   bits for N samples) and completes on slot 1 (GravityLinux/mesa README.apple9-ir.md). Bits
///   4..7: GravityLinux builds word bits 4..7 as `(target << 4) & high nibble`; the model
///   returns there the covered samples whose depth/stencil test has not run yet (inferred:
///   the only reading under which that term feeds Mesa's G13 rule below; no measurement
///   separates it, sim/ISA-REQUESTS.md item 14).
/// - the write ([`GfxOp::SampleMask`]) reads a control word `target << 8 | (target << 4) &
///   high | live` (the T8132 compiler's `sample_mask_agx` lowering, agx_compile_apple9.c) and
///   does, for each sample in `target`: live → run the depth/stencil/occlusion test and update
///   now, else kill (Mesa src/asahi/compiler/agx_nir_lower_sample_mask.c, G13 semantics,
///   inferred for G16). A killed sample stays killed (later writes do not touch it); testing a
///   sample twice or killing a tested one breaks that file's rules 2 and 4 and is refused; a
///   program that writes coverage must test or kill every covered sample (rule 2, checked
///   by `super::shade`), and must do so before storing colour to it (rule 1).
/// - a killed lane keeps executing (demote: derivatives still see it); its tilebuffer writes
///   are dropped (EXP-0091, measured).
///
/// Only words in the packer's shape are accepted (bits 12..31 zero, bits 4..7 equal to
/// `target & pending`, target within the covered samples; with N samples bits 0..N-1 name
/// them, EXP-0091: only the low N bits matter),
/// only passes whose tests run after the program (punch-through: with early tests the
/// meaning of a live bit is not established).
pub(super) struct Coverage {
    /// The body contains coverage writes.
    writes: bool,
    killed: [u8; LANES],
    tested: [u8; LANES],
    /// Per lane: the depth a `depth_store` gave its tested samples (f32 bits).
    depth: [Option<u32>; LANES],
}

impl Coverage {
    /// Samples of lane `l` still waiting for their test or kill.
    fn pending(&self, f: &Fragment, l: usize) -> u8 {
        f.pending_tests & !self.killed[l] & !self.tested[l]
    }
}

fn coverage_read(
    body: &Body,
    op: &Op,
    sg: &mut SimdGroup,
    quad: &[Fragment],
    cov: &Coverage,
    dst: u8,
) -> Result<(), SimError> {
    if quad.len() > LANES {
        return Err(body.error(op, "coverage read outside a fragment SIMD-group".into()));
    }
    if sg.pending.is_pending(dst, Part::Full) {
        return Err(body.error(
            op,
            format!("second producer into r{dst} while the first is in flight"),
        ));
    }
    let mask = sg.exec.active;
    let mut vals = [0u32; LANES];
    for (l, f) in quad.iter().enumerate() {
        if mask >> l & 1 != 0 && !f.helper {
            vals[l] = f.sample_mask as u32 | (cov.pending(f, l) as u32) << 4;
        }
    }
    // GravityLinux schedules the read as a slot-1 producer (README.apple9-ir.md).
    sg.pending.publish(dst, Part::Full, 1, mask, &vals);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn coverage_write(
    body: &Body,
    op: &Op,
    sg: &mut SimdGroup,
    quad: &[Fragment],
    pubs: &mut Publications,
    cov: &mut Coverage,
    src: u8,
    wait: u8,
    depth: bool,
) -> Result<(), SimError> {
    pubs.pending
        .retain(|_, s| !(1..=6).contains(s) || wait >> (*s - 1) & 1 == 0);
    // A depth store reads the pair (control word, depth) at src, src + 1.
    let reads: &[u8] = if depth { &[src, src + 1] } else { &[src] };
    for &p in reads {
        if !pubs.value.contains_key(&p) {
            return Err(body.error(
                op,
                format!("coverage write of publication {p}, which no export wrote"),
            ));
        }
        if let Some(s) = pubs.pending.get(&p) {
            return Err(body.error(
                op,
                format!(
                    "coverage write of publication {p} before its export on slot {s} completes"
                ),
            ));
        }
        // A coverage write (discard, gl_SampleMask) consumes its publication before the
        // next instruction, so an export may write it again: the T8132 driver keeps
        // discards inside loops (GravityLinux/mesa runs agx_nir_lower_sample_mask, which
        // lowers each discard in place) and emits each as export + coverage op with one
        // fixed publication, so a loop rewrites it every iteration, and dEQP-GLES3
        // shaders.discard.*_loop_* pass on M4 (README.apple9-es3.md; validated by a
        // CTS-passing M4 driver). The depth store stays single-use (zs_emit runs once).
        if depth {
            pubs.read.insert(p);
        }
    }
    let vals = pubs.value[&src];
    let zvals = depth.then(|| pubs.value[&(src + 1)]);
    let mask = sg.exec.active;
    for (l, f) in quad.iter().enumerate() {
        if mask >> l & 1 == 0 {
            continue;
        }
        let w = vals[l];
        let (target, high, live) = ((w >> 8) as u8, (w >> 4 & 0xf) as u8, (w & 0xf) as u8);
        let bad = |why: String| {
            Err(body.error(
                op,
                format!("coverage word {w:#x} (pixel {}, {}): {why}", f.x, f.y),
            ))
        };
        if w >> 12 != 0 {
            return bad("bits 12..31 are not the packer's shape".into());
        }
        if f.pending_tests != f.sample_mask && w != 0 {
            return bad(
                "a coverage write in a pass whose depth/stencil tests ran before the program \
                 (the meaning of its live bits there is not established)"
                    .into(),
            );
        }
        if target & !f.sample_mask != 0 {
            return bad(format!(
                "target {target:#x} outside the covered samples {:#x}",
                f.sample_mask
            ));
        }
        if high != target & f.pending_tests {
            return bad(format!(
                "bits 4..7 = {high:#x}, not (target << 4) & the coverage read's high nibble \
                 ({:#x}): other values have no established meaning",
                target & f.pending_tests
            ));
        }
        for s in 0..4u8 {
            let b = 1u8 << s;
            if target & b == 0 || cov.killed[l] & b != 0 {
                continue;
            }
            if cov.tested[l] & b != 0 {
                return bad(format!(
                    "sample {s} was already tested: {} (Mesa agx_nir_lower_sample_mask.c rules \
                     2 and 4)",
                    if live & b != 0 {
                        "a second test"
                    } else {
                        "a kill after the test"
                    }
                ));
            }
            if live & b != 0 {
                cov.tested[l] |= b;
            } else {
                cov.killed[l] |= b;
            }
        }
        // The depth store gives the samples it tests the program's depth; Mesa's rule 5: one
        // per program (agx_nir_lower_sample_mask.c).
        if let Some(z) = zvals {
            if cov.depth[l].is_some() {
                return bad("a second depth store (one per program)".into());
            }
            if target & live != 0 {
                cov.depth[l] = Some(z[l]);
            }
        }
    }
    Ok(())
}

/// Performs a `derivative` (`super::quad` has the rules): every executing lane gets the
/// difference of its row's (x) or column's (y) two values of the source, read from the
/// quad's registers whatever the execution mask; then the source is released unless kept.
fn derivative(
    body: &Body,
    op: &Op,
    sg: &mut SimdGroup,
    quad: &[Fragment],
    g: GfxOp,
) -> Result<(), SimError> {
    let GfxOp::Derivative {
        axis,
        dst,
        src,
        keep,
    } = g
    else {
        unreachable!()
    };
    if !super::quad::quad_layout(quad) {
        return Err(body.error(
            op,
            format!(
                "derivative in a run of {} fragments that are not whole 2x2 quads in lanes \
                 4k..4k+3 (the quad layout a derivative reads)",
                quad.len()
            ),
        ));
    }
    if sg.pending.is_pending(src, Part::Full) {
        return Err(body.error(
            op,
            format!(
                "derivative of r{src} while its value is in flight (the form's wait is not \
                 modelled; agx16 hands pending values off first)"
            ),
        ));
    }
    let mask = sg.exec.active;
    let v = sg.regs[src as usize];
    let mut out = [0u32; LANES];
    for (l, o) in out.iter_mut().enumerate().take(quad.len()) {
        if mask >> l & 1 != 0 {
            let (lo, hi) = super::quad::fine_pair(l, axis);
            *o = super::quad::difference(v[hi], v[lo]);
        }
    }
    if !keep {
        sg.write(
            Dst {
                reg: src,
                part: Part::Full,
            },
            mask,
            &[0; LANES],
        );
    }
    sg.pending.cancel(dst, Part::Full);
    sg.write(
        Dst {
            reg: dst,
            part: Part::Full,
        },
        mask,
        &out,
    );
    Ok(())
}

/// Runs `body` on one SIMD-group of `lanes` invocations with `scratch` bytes of scratch per
/// invocation (the launcher frame's extent A), performing each graphics IO op the core stops
/// at with `io`.
pub(super) fn run_trapping(
    mem: &dyn GpuMemory,
    body: &Body,
    uniforms: &[u32],
    scratch: u32,
    lanes: usize,
    stage: &str,
    mut io: impl FnMut(&mut SimdGroup, &Op, GfxOp) -> Result<(), SimError>,
) -> Result<(), SimError> {
    let live = if lanes >= LANES {
        u32::MAX
    } else {
        (1u32 << lanes) - 1
    };
    let mut sg = Recycled::new(live, ThreadIds::default());
    sg.scratch.reset(scratch);
    let trace = crate::trace::Trace::from_env();
    // Bounded in time, not instructions (see `super::watchdog`).
    let watch = super::watchdog::RunWatch::start();
    let expired = || watch.expired();
    let mut ctx = Ctx {
        prog: &body.prog,
        mem,
        uniforms,
        setup: None,
        trace: trace.as_ref(),
        cancelled: Some(&expired),
        budget: u64::MAX,
        instructions: 0,
        lane_instructions: 0,
    };
    loop {
        match run_to_refusal(&mut sg, &mut ctx) {
            Ok(Some(Yield::Stop)) => return Ok(()),
            Ok(Some(Yield::Barrier)) => {
                return Err(unestablished(
                    body.va,
                    stage,
                    format!("a barrier in a {stage} is not modelled"),
                ))
            }
            Err(e) => return Err(body.locate(e)),
            // The core stopped at an op it lowered to a refusal (and is past it): a trap
            // when it is a graphics IO op, otherwise that refusal is the error.
            Ok(None) => {
                let op = sg.next.checked_sub(1).and_then(|k| body.prog.ops.get(k));
                let Some(op) = op else {
                    return Err(SimError::Launch(format!(
                        "{stage}: refusal trap without an op (body at {:#x})",
                        body.va
                    )));
                };
                let g = match (body.io.get(&op.pc), &op.kind) {
                    (Some(Ok(g)), _) => *g,
                    (Some(Err(why)), _) => return Err(body.error(op, why.clone())),
                    (None, Kind::Refuse(e)) => return Err(body.locate(e.clone())),
                    (None, _) => {
                        return Err(SimError::Launch(format!(
                            "{stage}: trap at a non-refusal op (body at {:#x})",
                            body.va
                        )))
                    }
                };
                let sg: &mut SimdGroup = &mut sg;
                io(sg, op, g)?;
                for &(reg, part) in &op.releases {
                    sg.write(Dst { reg, part }, sg.exec.active, &[0; LANES]);
                }
            }
        }
    }
}

/// The export (publication) file of one SIMD-group: what export forms wrote, when each
/// publication completes and whether a `vary_store` has read it.
/// Rules (GravityLinux/mesa src/asahi/compiler/README.apple9-ir.md, T8132): exports complete
/// asynchronously on the slot their bits 58..60 name, and a varying store must wait on it
/// (EXP-M4-61: no wait or the wrong slot lost outputs); a completed publication stays
/// readable by later stores; reusing its storage after a store is not safe (consumption is
/// asynchronous, no release rule established), so the model refuses it.
pub(super) struct Publications {
    pub(super) value: HashMap<u8, [u32; LANES]>,
    pub(super) pending: HashMap<u8, u8>,
    pub(super) read: rustc_hash::FxHashSet<u8>,
}

impl Publications {
    pub(super) fn new() -> Self {
        Publications {
            value: HashMap::default(),
            pending: HashMap::default(),
            read: Default::default(),
        }
    }
}

pub(super) fn export(
    body: &Body,
    op: &Op,
    sg: &mut SimdGroup,
    pubs: &mut Publications,
    g: GfxOp,
) -> Result<(), SimError> {
    let GfxOp::Export {
        dst,
        a,
        b,
        op: f,
        slot,
    } = g
    else {
        unreachable!()
    };
    let srcs: &[u8] = if f == ExportOp::PairWord {
        &[a]
    } else {
        &[a, b]
    };
    for &r in srcs {
        if sg.pending.is_pending(r, Part::Full) {
            return Err(body.error(
                op,
                format!(
                    "export source r{r} is still in flight: handing a pending value to an \
                     export (its split 45..47/61..63 wait) is not modelled yet"
                ),
            ));
        }
    }
    if let Some(s) = pubs.pending.get(&dst) {
        return Err(body.error(
            op,
            format!("publication {dst} rewritten while its export on slot {s} is in flight"),
        ));
    }
    if pubs.read.contains(&dst) {
        return Err(body.error(
            op,
            format!(
                "publication {dst} rewritten after a store read it: varying stores consume \
                 publications asynchronously with no established reuse rule, and a block \
                 store releases its tuple only at its join (tile_fence 0x300)"
            ),
        ));
    }
    let mask = sg.exec.active;
    let entry = pubs.value.entry(dst).or_insert([0; LANES]);
    for (l, e) in entry.iter_mut().enumerate() {
        if mask >> l & 1 == 0 {
            continue;
        }
        let (x, y) = (sg.regs[a as usize][l], sg.regs[b as usize][l]);
        *e = match f {
            ExportOp::FAdd { negate_b } => {
                let y = f32::from_bits(y);
                (f32::from_bits(x) + if negate_b { -y } else { y }).to_bits()
            }
            ExportOp::FMul => (f32::from_bits(x) * f32::from_bits(y)).to_bits(),
            ExportOp::Logic(func) => func.apply_ilogic(x, y),
            ExportOp::PairWord => x,
        };
    }
    pubs.pending.insert(dst, slot);
    Ok(())
}

/// Runs the vertex body for up to one SIMD-group of invocations of one draw and instance;
/// returns their `outputs` scalars. The model supplies the vertex id, the instance id, the
/// launcher's argument words as uniforms and device memory through the job's VM; outputs
/// come from `vary_store`s of publications the export forms wrote.
pub fn run_vertex_batch(
    mem: &dyn GpuMemory,
    body: &std::rc::Rc<Body>,
    uniforms: &[u32],
    scratch: u32,
    publications: u32,
    invs: &[VertexInvocation],
) -> Result<Vec<Vec<f32>>, SimError> {
    body.check_uniforms(uniforms, "vertex body")?;
    let n = invs.first().map_or(0, |i| i.outputs);
    if invs.iter().any(|i| i.outputs != n) {
        return Err(SimError::Launch(
            "render: one vertex batch with different output counts".into(),
        ));
    }
    if !super::vertex_memo::enabled() {
        return shade_vertices(mem, body, uniforms, scratch, publications, invs, n, &|| ());
    }
    // The same batch in an earlier render of the job (agx16-draw renders a batch with a large
    // tilebuffer as one render per utile rectangle).
    let inputs = super::vertex_memo::Inputs {
        body,
        uniforms,
        scratch,
        publications,
        invs,
    };
    if let Some(outs) = super::vertex_memo::reuse(mem, &inputs) {
        return Ok(outs);
    }
    let rec = super::vertex_memo::Recording::new(mem);
    let sampled = || rec.other.set(true);
    let (outs, rules) = crate::value_rules::scoped(|| {
        shade_vertices(
            &rec,
            body,
            uniforms,
            scratch,
            publications,
            invs,
            n,
            &sampled,
        )
    });
    let outs = outs?;
    super::vertex_memo::keep(&inputs, rec, rules, &outs);
    Ok(outs)
}

/// [`run_vertex_batch`]'s run of the body; `sampled` is told of each texture operation.
#[allow(clippy::too_many_arguments)]
fn shade_vertices(
    mem: &dyn GpuMemory,
    body: &Body,
    uniforms: &[u32],
    scratch: u32,
    publications: u32,
    invs: &[VertexInvocation],
    n: usize,
    sampled: &dyn Fn(),
) -> Result<Vec<Vec<f32>>, SimError> {
    let mut outs: Vec<Vec<Option<f32>>> = vec![vec![None; n]; invs.len()];
    let mut pubs = Publications::new();
    // Every vertex body exports its outputs: sized up front, the maps do not rehash as
    // they fill (one set per SIMD-group of vertices).
    pubs.value.reserve(n);
    pubs.pending.reserve(n);
    pubs.read.reserve(n);
    let mut borrowed = super::texture::Borrowed::default();
    run_trapping(
        mem,
        body,
        uniforms,
        scratch,
        invs.len(),
        "vertex body",
        |sg, op, g| match g {
            GfxOp::VertexId { dst } | GfxOp::InstanceId { dst } => {
                let vertex = matches!(g, GfxOp::VertexId { .. });
                let mut vals = [0u32; LANES];
                for (l, inv) in invs.iter().enumerate() {
                    vals[l] = if vertex {
                        inv.vertex_id
                    } else {
                        inv.instance_id
                    };
                }
                sg.pending.cancel(dst.reg, dst.part);
                sg.write(dst, sg.exec.active, &vals);
                Ok(())
            }
            // The frame's publication word is ceil(P/2) for P the compiler's publication
            // high-water mark, holes included (GravityLinux/mesa README.apple9-launchers.md
            // "Stage parameters", T8132); no run wrote past it.
            GfxOp::Export { dst, .. } if dst as u32 >= publications => Err(body.error(
                op,
                format!(
                    "export to publication {dst}, past the {publications} publication words \
                     the launcher's frame reserves (the frame carries the compiler's \
                     high-water mark; writing beyond it is not established)"
                ),
            )),
            GfxOp::Export { .. } => {
                super::texture::check_rewrite(body, op, sg, &borrowed, g)?;
                export(body, op, sg, &mut pubs, g)
            }
            // The vertex stage samples through its own roots 0 and 1, as the fragment stage
            // does (sim/GFX.md "Render-stage uniform ABI"). A vertex batch has no 2x2 quads,
            // so only the explicit-LOD and fetch forms have a defined LOD.
            GfxOp::Texture(t) => {
                sampled();
                super::texture::run_lanes(
                    mem,
                    uniforms,
                    body,
                    op,
                    sg,
                    invs.len(),
                    false,
                    &mut pubs,
                    &mut borrowed,
                    t,
                )
            }
            GfxOp::VaryingStore { slot, src, wait } => {
                // The wait retires every export completing on a named slot.
                pubs.pending
                    .retain(|_, s| !(1..=6).contains(s) || wait >> (*s - 1) & 1 == 0);
                let Some(vals) = pubs.value.get(&src) else {
                    return Err(body.error(
                        op,
                        format!("vertex output {slot} := publication {src}, which no export wrote"),
                    ));
                };
                if let Some(s) = pubs.pending.get(&src) {
                    return Err(body.error(
                        op,
                        format!(
                        "vertex output {slot} := publication {src} before its export completes: \
                         the store does not wait on slot {s} (EXP-M4-61: outputs are lost)"
                    ),
                    ));
                }
                if slot as usize >= n {
                    return Err(body.error(
                        op,
                        format!("vertex output {slot} is past the draw's {n} output scalars"),
                    ));
                }
                for (l, out) in outs.iter_mut().enumerate() {
                    if sg.exec.active >> l & 1 != 0 {
                        out[slot as usize] = Some(f32::from_bits(vals[l]));
                    }
                }
                pubs.read.insert(src);
                Ok(())
            }
            other => Err(body.error(op, format!("{other:?} in a vertex body"))),
        },
    )?;
    outs.into_iter()
        .map(|o| {
            let missing: Vec<usize> = (0..n).filter(|&k| o[k].is_none()).collect();
            if missing.is_empty() && n > 0 {
                Ok(o.into_iter().map(|v| v.unwrap_or(0.0)).collect())
            } else {
                Err(unestablished(
                    body.va,
                    "vertex body",
                    format!(
                        "the body stopped without storing its vertex outputs {missing:?} \
                         (of {n}); unstored outputs are not zeros"
                    ),
                ))
            }
        })
        .collect()
}

/// Byte range of raw word `word` in a sample.
fn word_range(
    body: &Body,
    op: &Op,
    tile: &TileBuffer,
    word: u8,
    static_mask: bool,
) -> Result<std::ops::Range<usize>, SimError> {
    // The packer's static mask 1 names sample 0; with more samples what it covers is
    // not established (the GPR-mask forms carry the per-sample masks).
    if static_mask && tile.samples != 1 {
        return Err(body.error(
            op,
            format!(
                "static sample mask 1 on a {}-sample tilebuffer is not established",
                tile.samples
            ),
        ));
    }
    // `rt` counts 32-bit words of the pixel's tile storage: the T8132 compiler stores word k
    // of a colour output at tile byte base B with the immediate B/4 + k
    // (agx_compile_apple9.c `apple9_emit_graphics_output`), which its TILE_STORE packer puts
    // in byte 5 as imm << 1, the `rt` field (agx_apple9_ir.c); TILE_LOAD packs its immediate
    // the same way (inferred to count words alike). Word w is bytes 4w..4w+4 of sample 0.
    let at = 4 * word as u32;
    if at + 4 > tile.sample_size {
        return Err(body.error(
            op,
            format!("tile word {word} past the {}-byte sample", tile.sample_size),
        ));
    }
    Ok(at as usize..at as usize + 4)
}

pub(super) fn fragment_io(
    body: &Body,
    op: &Op,
    g: GfxOp,
    sg: &mut SimdGroup,
    quad: &[Fragment],
    tile: &mut TileBuffer,
    cov: Option<&Coverage>,
) -> Result<(), SimError> {
    let mask = sg.exec.active;
    let lanes = || (0..quad.len()).filter(move |l| mask >> l & 1 != 0);
    match g {
        GfxOp::TileSync { .. } => {}
        GfxOp::PixelCoord { dst, axis } => {
            let mut vals = [0u32; LANES];
            for l in lanes() {
                vals[l] = if axis == 0 { quad[l].x } else { quad[l].y };
            }
            sg.pending.cancel(dst.reg, dst.part);
            sg.write(dst, mask, &vals);
        }
        // The facing word: zero for a front face, nonzero for a back face (agx_compile_apple9.c
        // tests only `0 < word`). Which nonzero value the M4 returns is not established; the
        // model writes 1. The face is the one the depth/stencil state uses (setup: the cull
        // record's winding; points and lines are front-facing).
        GfxOp::BackFacing { dst } => {
            let mut vals = [0u32; LANES];
            for l in lanes() {
                vals[l] = u32::from(!quad[l].front_facing);
            }
            sg.pending.cancel(dst.reg, dst.part);
            sg.write(dst, mask, &vals);
        }
        GfxOp::VertexId { .. }
        | GfxOp::InstanceId { .. }
        | GfxOp::WorkgroupId { .. }
        | GfxOp::VaryingStore { .. }
        | GfxOp::Export { .. }
        | GfxOp::BlockStore { .. } => {
            return Err(body.error(op, format!("{g:?} in a fragment body")))
        }
        GfxOp::Coverage { .. } | GfxOp::SampleMask { .. } | GfxOp::DepthStore { .. } => {
            return Err(body.error(
                op,
                "coverage outside a fragment program's quad is not modelled".into(),
            ))
        }
        GfxOp::Texture(_) => {
            return Err(body.error(
                op,
                "texture sampling outside a fragment quad's body is not modelled".into(),
            ))
        }
        GfxOp::Derivative { .. } => {
            return Err(body.error(
                op,
                "a derivative outside a fragment quad's body is not modelled".into(),
            ))
        }
        GfxOp::Iterate { dst, cf } => {
            let mut vals = [0u32; LANES];
            for l in lanes() {
                let v = quad[l].iterate(cf as usize).ok_or_else(|| {
                    body.error(
                        op,
                        format!(
                            "coefficient {cf} is past the {} registers the CF table binds",
                            quad[l].coefficients.len()
                        ),
                    )
                })?;
                vals[l] = v.to_bits();
            }
            sg.pending.cancel(dst.reg, dst.part);
            sg.write(dst, mask, &vals);
        }
        GfxOp::TileStore { src, word, mask } => {
            let r = word_range(body, op, tile, word, mask.is_none())?;
            if sg.pending.is_pending(src, Part::Full) {
                return Err(body.error(
                    op,
                    format!("tile store of r{src} while its value is in flight (the form has no wait field)"),
                ));
            }
            if let Some(m) = mask {
                if sg.pending.is_pending(m, Part::Full) {
                    return Err(body.error(
                        op,
                        format!("tile store masked by r{m} while its value is in flight (the form has no wait field)"),
                    ));
                }
            }
            for l in lanes() {
                let f = &quad[l];
                if f.helper {
                    continue;
                }
                // The samples written: sample 0 (static mask 1) or the mask register's low
                // half (`tile_store_mask`).
                let samples = match mask {
                    None => 1u8,
                    Some(m) => {
                        let v = sg.regs[m as usize][l] & 0xffff;
                        // Bits past the sample count, and samples the invocation does not
                        // cover: what the store does with them is not established (the
                        // T8132 driver passes covered samples only, README.apple9-es3.md).
                        if v >> tile.samples != 0 || v as u8 & !f.sample_mask != 0 {
                            return Err(body.error(
                                op,
                                format!(
                                    "tile store sample mask {v:#x} at pixel ({}, {}): samples \
                                     outside the invocation's {:#x} of {} are not established",
                                    f.x, f.y, f.sample_mask, tile.samples
                                ),
                            ));
                        }
                        v as u8
                    }
                };
                let mut samples = samples & f.sample_mask;
                if let Some(c) = cov.filter(|c| c.writes) {
                    // Rule 1 (see `Coverage`): tested or killed before the colour store.
                    if c.pending(f, l) & samples != 0 {
                        return Err(body.error(
                            op,
                            format!(
                                "colour store to pixel ({}, {}) before the program's coverage \
                                 writes tested or killed it",
                                f.x, f.y
                            ),
                        ));
                    }
                    // Killed: the store is dropped (EXP-0091); a sample that fails its test
                    // keeps no colour either (`super::shade` restores it).
                    samples &= !c.killed[l];
                }
                let (x, y) = (f.x - tile.origin.0, f.y - tile.origin.1);
                let bytes = sg.regs[src as usize][l].to_le_bytes();
                for smp in 0..tile.samples {
                    if samples >> smp & 1 != 0 {
                        if let Some(s) = tile.sample_mut(x, y, smp) {
                            s[r.clone()].copy_from_slice(&bytes);
                        }
                    }
                }
            }
        }
        GfxOp::TileRead {
            dst,
            word,
            slot,
            mask: smask,
        } => {
            let r = word_range(body, op, tile, word, smask.is_none())?;
            if let Some(m) = smask {
                if sg.pending.is_pending(m, Part::Full) {
                    return Err(body.error(
                        op,
                        format!("tile read masked by r{m} while its value is in flight"),
                    ));
                }
            }
            if sg.pending.is_pending(dst, Part::Full) {
                return Err(body.error(
                    op,
                    format!("second producer into r{dst} while the first is in flight"),
                ));
            }
            let mut vals = [0u32; LANES];
            for l in lanes() {
                let f = &quad[l];
                let (x, y) = (f.x - tile.origin.0, f.y - tile.origin.1);
                // The sample read: 0 (static mask 1) or the mask register's one sample. A
                // mask of several samples or none has no established result.
                let smp = match smask {
                    None => 0,
                    Some(m) => {
                        let v = sg.regs[m as usize][l] & 0xffff;
                        if v.count_ones() != 1 || v >> tile.samples != 0 {
                            return Err(body.error(
                                op,
                                format!(
                                    "tile read sample mask {v:#x} at pixel ({}, {}): one sample \
                                     of the {} is established",
                                    f.x, f.y, tile.samples
                                ),
                            ));
                        }
                        v.trailing_zeros()
                    }
                };
                if let Some(s) = tile.sample(x, y, smp) {
                    vals[l] = u32::from_le_bytes(s[r.clone()].try_into().unwrap());
                }
            }
            sg.pending.publish(dst, Part::Full, slot, mask, &vals);
        }
    }
    Ok(())
}

//! NIR graphics IO → IR, following the driver-facing ABI of `crate::abi`: vertex inputs become
//! attribute fetches from the key's vertex buffers, outputs are laid out in the PPP order
//! (position, user scalars sorted by location and component, point size), fragment inputs are
//! coefficient registers numbered as the CF bindings, colour outputs are packed tilebuffer
//! words, GL uniforms are uniform registers after the root and vertex-buffer words.

use super::import::{cstr, Importer};
use crate::abi::{self, GraphicsKey, RenderTarget, VaryingSlot};
use crate::error::CompileError;
use crate::ir::{Interp, Op, Src, SysVal, Type, Value};
use agx16_mesa_sys as m;
use agx16_mesa_sys::nir_iter::exec_list_iter;
use std::collections::BTreeSet;
use std::mem::offset_of;

/// Graphics state of one import.
pub(super) struct GfxImport {
    pub key: GraphicsKey,
    /// Vertex: the vertex id (the attribute fetches of nir/vertex_fetch.rs read it).
    vertex_id: Option<Value>,
    /// Vertex: user output scalars in output order; whether the point size is written.
    pub varyings: Vec<VaryingSlot>,
    pub point_size: bool,
    /// First uniform word of the GL uniforms.
    pub gl_base: u16,
    /// Fragment: the coverage word, read at the start of a program that discards.
    coverage: Option<Value>,
    /// Fragment: the coverage write that tests the surviving samples has been emitted.
    tested: bool,
    /// Fragment: the program writes gl_FragDepth (its depth store is the test).
    writes_depth: bool,
    /// Fragment: the program writes gl_SampleMask (alpha to coverage lowers to it): colour
    /// waits for the kill of the samples outside the mask and the test.
    writes_mask: bool,
    /// Fragment: the gl_SampleMask kill has been emitted (the test may follow).
    mask_done: bool,
    /// Fragment: colour stores waiting for the depth store (rule 1: test before colour):
    /// (word, value, bits, the one sample of a per-sample store).
    deferred: Vec<(u8, Value, u32, Option<u32>)>,
    /// Fragment, multisampled targets: the samples colour stores write (the coverage word's
    /// low bits, read once at the start).
    store_mask: Option<Value>,
    /// Fragment, multisampled targets: the sample a per-sample section is being imported for
    /// (`per_sample_section`): destination reads read it, colour stores write it if covered.
    pub sample: Option<u32>,
}

unsafe fn io_location(x: *const m::nir_intrinsic_instr) -> u32 {
    unsafe { m::nir_intrinsic_io_semantics(x).location() }
}

/// The io location an IO intrinsic accesses: its semantic location plus the constant offset
/// source `off` (arrays and matrices of inputs/outputs in slots); indirect offsets are refused.
unsafe fn io_loc(
    x: *const m::nir_intrinsic_instr,
    off: usize,
    what: &str,
) -> Result<u32, CompileError> {
    unsafe {
        let info = &m::nir_intrinsic_infos[(*x).intrinsic as usize];
        let s = &(*x).src.as_slice(info.num_srcs as usize)[off];
        if m::nir_src_is_const(*s) {
            Ok(io_location(x) + m::nir_src_as_uint(*s) as u32)
        } else {
            Err(CompileError::Unsupported(format!(
                "{what} with an indirect offset (dynamically indexed varying arrays)"
            )))
        }
    }
}

/// Calls `f` on every intrinsic of a control-flow list, in program order.
unsafe fn for_each_intrinsic(
    list: *const m::exec_list,
    f: &mut dyn FnMut(*const m::nir_intrinsic_instr) -> Result<(), CompileError>,
) -> Result<(), CompileError> {
    unsafe {
        for n in exec_list_iter::<m::nir_cf_node>(list, offset_of!(m::nir_cf_node, node)) {
            let n = n as *const m::nir_cf_node;
            match (*n).type_ {
                m::nir_cf_node_block => {
                    let blk = m::nir_cf_node_as_block(n);
                    let l = &(*blk).instr_list as *const m::exec_list;
                    for i in exec_list_iter::<m::nir_instr>(l, offset_of!(m::nir_instr, node)) {
                        let i = i as *const m::nir_instr;
                        if (*i).type_ == m::nir_instr_type_intrinsic {
                            f(m::nir_instr_as_intrinsic(i))?;
                        }
                    }
                }
                m::nir_cf_node_if => {
                    let nif = m::nir_cf_node_as_if(n);
                    for_each_intrinsic(&(*nif).then_list, f)?;
                    for_each_intrinsic(&(*nif).else_list, f)?;
                }
                m::nir_cf_node_loop => {
                    let l = m::nir_cf_node_as_loop(n);
                    for_each_intrinsic(&(*l).body, f)?;
                }
                _ => {}
            }
        }
        Ok(())
    }
}

fn name_of(x: *const m::nir_intrinsic_instr) -> String {
    unsafe { cstr(m::nir_intrinsic_infos[(*x).intrinsic as usize].name) }
}

/// Scan the entry point before import: the vertex output layout. Emits the vertex id at the
/// start of the program (so it dominates every use).
pub(super) unsafe fn prologue(
    im: &mut Importer,
    body: *const m::exec_list,
) -> Result<(), CompileError> {
    unsafe {
        let Some(g) = im.gfx.as_ref() else {
            return Ok(());
        };
        let vertex = matches!(g.key, GraphicsKey::Vertex(_));
        let mut user = BTreeSet::new();
        let mut psiz = false;
        let mut discards = false;
        let mut writes_depth = false;
        let mut writes_mask = false;
        for_each_intrinsic(body, &mut |x| {
            let name = name_of(x);
            match name.as_str() {
                "terminate" | "terminate_if" | "demote" | "demote_if" => discards = true,
                "store_output"
                    if !vertex && io_loc(x, 1, "store_output")? == m::FRAG_RESULT_DEPTH =>
                {
                    writes_depth = true
                }
                "store_output"
                    if !vertex && io_loc(x, 1, "store_output")? == m::FRAG_RESULT_SAMPLE_MASK =>
                {
                    writes_mask = true
                }
                "store_output" if vertex => {
                    let loc = io_loc(x, 1, "store_output")?;
                    let comp = m::nir_intrinsic_component(x);
                    let mask = m::nir_intrinsic_write_mask(x);
                    if loc == m::VARYING_SLOT_PSIZ {
                        psiz = true;
                    } else if loc != m::VARYING_SLOT_POS {
                        for k in 0..4 {
                            if mask >> k & 1 == 1 {
                                user.insert(VaryingSlot {
                                    location: loc as u8,
                                    component: (comp + k) as u8,
                                });
                            }
                        }
                    }
                }
                _ => {}
            }
            Ok(())
        })?;
        if !vertex {
            // The coverage word dominates every discard and the final test (or depth store).
            let (samples, kill_samples, a2c) = match &g.key {
                GraphicsKey::Fragment(k) => (k.samples, k.kill_samples, k.alpha_to_coverage),
                _ => (1, 0, false),
            };
            if a2c && samples > 1 && writes_mask {
                return Err(CompileError::Unsupported(
                    "alpha to coverage with gl_SampleMask".into(),
                ));
            }
            // gl_SampleMask, alpha to coverage and GL's sample mask only matter with samples
            // to remove.
            let writes_mask = (writes_mask || a2c) && samples > 1;
            let kill_samples = if samples > 1 { kill_samples } else { 0 };
            if writes_mask && writes_depth {
                return Err(CompileError::Unsupported(
                    "gl_SampleMask (or alpha to coverage) with gl_FragDepth".into(),
                ));
            }
            let mut cov = None;
            if discards || writes_depth || writes_mask || kill_samples != 0 {
                let c = im.b.coverage();
                let g = im.gfx.as_mut().unwrap();
                g.coverage = Some(c);
                g.writes_depth = writes_depth;
                g.writes_mask = writes_mask;
                cov = Some(c);
            }
            // GL's sample mask: those samples die first (a kill before any test, rule 3).
            if kill_samples != 0 {
                kill_samples_of(im, Src::imm(kill_samples as u32))?;
            }
            // A multisampled target: colour stores write the covered samples, the coverage
            // word's low bits (the T8132 compiler's single masked store "using the coverage",
            // agx_compile_apple9.c; GET_COVERAGE bits 0..3, EXP-0091 measured: only the low N
            // bits matter at N samples).
            if samples > 1 {
                let c = match cov {
                    Some(c) => c,
                    None => im.b.coverage(),
                };
                let m = im.b.alu(
                    Op::And,
                    Type::I32,
                    [Src::val(c), Src::imm((1u32 << samples) - 1)],
                );
                im.gfx.as_mut().unwrap().store_mask = Some(m);
            }
            return Ok(());
        }
        let id = im.b.sysval(SysVal::VertexId);
        let g = im.gfx.as_mut().unwrap();
        g.vertex_id = Some(id);
        g.varyings = user.into_iter().collect();
        g.point_size = psiz;
        Ok(())
    }
}

/// The low (covered samples) and high (samples still to test) nibbles of the coverage word.
fn coverage_nibbles(im: &mut Importer, cov: Value) -> (Value, Value) {
    let lo = im.b.alu(Op::And, Type::I32, [Src::val(cov), Src::imm(0xf)]);
    let hi =
        im.b.alu(Op::And, Type::I32, [Src::val(cov), Src::imm(0xf0)]);
    (lo, hi)
}

/// `discard` (NIR terminate/demote, `cond`: the `_if` forms' 32-bit Boolean): a coverage write
/// killing every covered sample, `sample_mask(~0, 0)` in Mesa's G13 terms; the control word is
/// `(target & lo) << 8 | (target << 4) & hi | (live & lo)` as the T8132 compiler builds it
/// (GravityLinux/mesa agx_compile_apple9.c), here `lo << 8 | hi`. The lane keeps running
/// (demote: ADevWithAnIdea/agx-re EXP-0091 measured that killed lanes still execute and
/// their writes are dropped), so GLSL's discard is implemented with demote semantics.
pub(super) fn kill(im: &mut Importer, cond: Option<Src>) -> Result<(), CompileError> {
    let (cov, tested) = match im.gfx.as_ref() {
        Some(g) if matches!(g.key, GraphicsKey::Fragment(_)) => (g.coverage, g.tested),
        _ => {
            return Err(CompileError::Unsupported(
                "discard outside a fragment shader".into(),
            ))
        }
    };
    let Some(cov) = cov else {
        return Err(CompileError::Unsupported(
            "discard through a NIR halt jump (only terminate/demote intrinsics)".into(),
        ));
    };
    if tested {
        // A kill after the test is invalid (agx_nir_lower_sample_mask.c rule 4).
        return Err(CompileError::Unsupported(
            "discard after the fragment colour output".into(),
        ));
    }
    let (lo, hi) = coverage_nibbles(im, cov);
    let t = im.b.alu(Op::Shl, Type::I32, [Src::val(lo), Src::imm(8)]);
    let mut w = im.b.alu(Op::Or, Type::I32, [Src::val(t), Src::val(hi)]);
    if let Some(c) = cond {
        // A false condition gives target 0: the write touches no sample.
        w = im.b.alu(Op::And, Type::I32, [Src::val(w), c]);
    }
    im.b.sample_mask(false, Src::val(w));
    Ok(())
}

/// A colour word store: after the test, or held back until the depth store (a program that
/// writes gl_FragDepth tests its samples there, and colour follows the test).
fn colour_store(im: &mut Importer, word: u8, v: Value) {
    colour_store_bits(im, word, v, !0)
}

/// [`colour_store`] of the bits `bits` of the word (the rest keeps each sample's value).
fn colour_store_bits(im: &mut Importer, word: u8, v: Value, bits: u32) {
    let sample = im.gfx.as_ref().and_then(|g| g.sample);
    match im.gfx.as_mut() {
        Some(g) if (g.writes_depth || g.writes_mask) && !g.tested => {
            g.deferred.push((word, v, bits, sample))
        }
        _ => store_word(im, word, v, bits, sample),
    }
}

/// One tile word store: sample 0, or the covered samples of a multisampled target; with
/// `bits` not all ones, per sample: that sample's word read, merged, stored to it if covered.
/// `sample`: only that sample (if covered), as a per-sample section stores.
fn store_word(im: &mut Importer, word: u8, v: Value, bits: u32, sample: Option<u32>) {
    let (m, samples) = match im.gfx.as_ref() {
        Some(g) => (
            g.store_mask,
            match &g.key {
                GraphicsKey::Fragment(k) => k.samples as u32,
                _ => 1,
            },
        ),
        None => (None, 1),
    };
    match m {
        Some(m) if bits != !0 => {
            let keep = im.b.alu(Op::And, Type::I32, [Src::val(v), Src::imm(bits)]);
            let which = match sample {
                Some(s) => s..s + 1,
                None => 0..samples,
            };
            for s in which {
                let one = im.b.alu(Op::Copy, Type::I32, [Src::imm(1 << s)]);
                let d = im.b.load_tile_masked(word, Src::val(one));
                let old = im.b.alu(Op::And, Type::I32, [Src::val(d), Src::imm(!bits)]);
                let nv = im.b.alu(Op::Or, Type::I32, [Src::val(keep), Src::val(old)]);
                let ms =
                    im.b.alu(Op::And, Type::I32, [Src::val(m), Src::imm(1 << s)]);
                im.b.store_tile_masked(word, nv, Src::val(ms));
            }
        }
        Some(m) => {
            let m = match sample {
                Some(s) => Src::val(im.b.alu(Op::And, Type::I32, [Src::val(m), Src::imm(1 << s)])),
                None => Src::val(m),
            };
            im.b.store_tile_masked(word, v, m)
        }
        None => im.b.store_tile(word, v),
    }
}

/// The destination's tile word `word` (what `load_output` reads): the pixel's, or on a
/// multisampled target the word of the sample a per-sample section is imported for (a masked
/// tile read of that one sample, as the T8132 compiler reads each sample's destination in its
/// blending loop: GravityLinux/mesa agx_compile_apple9.c, validated by its dEQP pass on M4).
fn destination_word(im: &mut Importer, word: u8) -> Result<Value, CompileError> {
    let g = im.gfx.as_ref().unwrap();
    match (g.store_mask, g.sample) {
        (None, _) => Ok(im.b.load_tile(word)),
        (Some(_), Some(s)) => {
            let one = im.b.alu(Op::Copy, Type::I32, [Src::imm(1 << s)]);
            Ok(im.b.load_tile_masked(word, Src::val(one)))
        }
        (Some(_), None) => Err(CompileError::Internal(
            "a multisampled destination read outside a per-sample section".into(),
        )),
    }
}

/// Whether instruction `k` of a block starts a per-sample section, and if so its last
/// instruction and the sample count: on a multisampled target each sample has its own
/// destination, so the code from the first destination read (`load_output`: blending, logic
/// ops, colour masks through `nir_lower_blend`) to the block's last colour store is imported
/// once per sample, reading and storing that sample (the T8132 compiler loops over the samples
/// with per-sample masks when blending reads the destination, agx_compile_apple9.c; otherwise
/// one store with the coverage). The section must be straight-line code without discards,
/// depth or sample-mask outputs or side effects other than colour stores.
pub(super) unsafe fn per_sample_section(
    im: &Importer,
    instrs: &[*const m::nir_instr],
    k: usize,
) -> Result<Option<(usize, u32)>, CompileError> {
    unsafe {
        let Some(g) = im.gfx.as_ref() else {
            return Ok(None);
        };
        let GraphicsKey::Fragment(fk) = &g.key else {
            return Ok(None);
        };
        if g.store_mask.is_none() || g.sample.is_some() {
            return Ok(None);
        }
        let intrinsic = |i: *const m::nir_instr| {
            ((*i).type_ == m::nir_instr_type_intrinsic).then(|| m::nir_instr_as_intrinsic(i))
        };
        match intrinsic(instrs[k]) {
            Some(x) if name_of(x) == "load_output" => {}
            _ => return Ok(None),
        }
        let mut end = None;
        for (j, &i) in instrs.iter().enumerate().skip(k) {
            match (*i).type_ {
                m::nir_instr_type_alu
                | m::nir_instr_type_load_const
                | m::nir_instr_type_undef
                | m::nir_instr_type_tex => continue,
                m::nir_instr_type_intrinsic => {}
                _ => {
                    return Err(CompileError::Unsupported(format!(
                        "{} after a multisampled destination read (per-sample blending takes \
                         straight-line code)",
                        super::import::instr_name(i)
                    )))
                }
            }
            let x = intrinsic(i).unwrap();
            match name_of(x).as_str() {
                "store_output" => {
                    let loc = io_loc(x, 1, "store_output")?;
                    if loc == m::FRAG_RESULT_DEPTH || loc == m::FRAG_RESULT_SAMPLE_MASK {
                        return Err(CompileError::Unsupported(
                            "gl_FragDepth or gl_SampleMask written after a multisampled \
                             destination read"
                                .into(),
                        ));
                    }
                    end = Some(j);
                }
                "terminate" | "terminate_if" | "demote" | "demote_if" => {
                    return Err(CompileError::Unsupported(
                        "a discard after a multisampled destination read".into(),
                    ))
                }
                n if n.starts_with("store_") || n.contains("atomic") => {
                    return Err(CompileError::Unsupported(format!(
                        "`{n}` after a multisampled destination read (it would run per sample)"
                    )))
                }
                _ => {}
            }
        }
        match end {
            Some(e) => Ok(Some((e, fk.samples as u32))),
            None => Err(CompileError::Unsupported(
                "a multisampled destination read with no colour store after it in its block".into(),
            )),
        }
    }
}

/// gl_FragDepth: the T8132 compiler's `store_zs_agx` sends (control word, depth) as a
/// publication pair to `depth_store` with target = live = all samples (GravityLinux/mesa
/// agx_compile_apple9.c; its GLES 3.0 suites ran gl_FragDepth on T8132): the depth store is
/// the program's one test (Mesa agx_nir_lower_sample_mask.c rule 5), after the discards.
/// GLSL ES clamps the written depth to [0, 1] for the depth test; the program clamps it.
fn depth_store(im: &mut Importer, z: Src) -> Result<(), CompileError> {
    let cov = match im.gfx.as_ref() {
        Some(g) if g.tested => {
            return Err(CompileError::Unsupported(
                "gl_FragDepth written twice".into(),
            ))
        }
        Some(g) => g.coverage,
        None => None,
    };
    let Some(cov) = cov else {
        return Err(CompileError::Internal(
            "gl_FragDepth without the prologue's coverage read".into(),
        ));
    };
    let (lo, hi) = coverage_nibbles(im, cov);
    let t = im.b.alu(Op::Shl, Type::I32, [Src::val(lo), Src::imm(8)]);
    let t = im.b.alu(Op::Or, Type::I32, [Src::val(t), Src::val(hi)]);
    let w = im.b.alu(Op::Or, Type::I32, [Src::val(t), Src::val(lo)]);
    let z = im.b.alu(Op::FMax, Type::F32, [z, Src::imm_f32(0.0)]);
    let z =
        im.b.alu(Op::FMin, Type::F32, [Src::val(z), Src::imm_f32(1.0)]);
    im.b.depth_store(Src::val(w), Src::val(z));
    let g = im.gfx.as_mut().unwrap();
    g.tested = true;
    for (word, v, bits, sample) in std::mem::take(&mut g.deferred) {
        store_word(im, word, v, bits, sample);
    }
    Ok(())
}

/// Kills the covered samples in `samples` (a coverage write with target `samples & lo` and no
/// live sample: Mesa's G13 `sample_mask(samples, 0)`, the control word the T8132 compiler
/// builds, `(t << 8) | (t << 4) & hi`).
fn kill_samples_of(im: &mut Importer, samples: Src) -> Result<(), CompileError> {
    let Some(cov) = im.gfx.as_ref().and_then(|g| g.coverage) else {
        return Err(CompileError::Internal(
            "a sample kill without the prologue's coverage read".into(),
        ));
    };
    let (lo, hi) = coverage_nibbles(im, cov);
    let t = im.b.alu(Op::And, Type::I32, [Src::val(lo), samples]);
    let t8 = im.b.alu(Op::Shl, Type::I32, [Src::val(t), Src::imm(8)]);
    let t4 = im.b.alu(Op::Shl, Type::I32, [Src::val(t), Src::imm(4)]);
    let h = im.b.alu(Op::And, Type::I32, [Src::val(t4), Src::val(hi)]);
    let w = im.b.alu(Op::Or, Type::I32, [Src::val(t8), Src::val(h)]);
    im.b.sample_mask(false, Src::val(w));
    Ok(())
}

/// gl_SampleMask (`store_output` FRAG_RESULT_SAMPLE_MASK; alpha to coverage lowers to it):
/// the covered samples outside `mask` die, then the survivors are tested and the colour
/// held back for the test is stored (rule 1). The T8132 compiler lowers gl_SampleMask and
/// alpha to coverage to the same coverage write (GravityLinux/mesa agx_compile_apple9.c
/// `sample_mask_agx`, README: "Alpha-to-coverage is done in the shader by demoting samples").
fn sample_mask_output(im: &mut Importer, mask: Src) -> Result<(), CompileError> {
    let Some(g) = im.gfx.as_ref() else {
        return Ok(());
    };
    if !g.writes_mask {
        // Single-sampled: every sample mask keeps or kills sample 0 with GL's rule, but a
        // one-sample target has no coverage to divide; GL ignores gl_SampleMask there.
        return Ok(());
    }
    if g.tested {
        return Err(CompileError::Unsupported(
            "gl_SampleMask written twice or after the test".into(),
        ));
    }
    let dead = im.b.alu(Op::Not, Type::I32, [mask]);
    kill_samples_of(im, Src::val(dead))?;
    im.gfx.as_mut().unwrap().mask_done = true;
    coverage_test(im)?;
    let g = im.gfx.as_mut().unwrap();
    for (word, v, bits, sample) in std::mem::take(&mut g.deferred) {
        store_word(im, word, v, bits, sample);
    }
    Ok(())
}

/// Alpha to coverage: floor(clamp(alpha, 0, 1) x samples) samples survive (the mask
/// `(1 << bits) - 1`), as gl_SampleMask would keep them.
fn alpha_to_coverage(im: &mut Importer, alpha: Src) -> Result<(), CompileError> {
    let n = match im.gfx.as_ref().map(|g| &g.key) {
        Some(GraphicsKey::Fragment(k)) => k.samples as f32,
        _ => return Ok(()),
    };
    let a = im.b.alu(Op::FMax, Type::F32, [alpha, Src::imm_f32(0.0)]);
    let a =
        im.b.alu(Op::FMin, Type::F32, [Src::val(a), Src::imm_f32(1.0)]);
    let scaled =
        im.b.alu(Op::FMul, Type::F32, [Src::val(a), Src::imm_f32(n)]);
    let bits =
        im.b.alu(Op::F2I { signed: false }, Type::I32, [Src::val(scaled)]);
    let one = im.b.alu(Op::Shl, Type::I32, [Src::imm(1), Src::val(bits)]);
    let mask = im.b.alu(Op::ISub, Type::I32, [Src::val(one), Src::imm(1)]);
    sample_mask_output(im, Src::val(mask))
}

/// The coverage write that runs the depth/stencil tests of every sample no discard killed
/// (`sample_mask(~0, ~0)`: word `lo << 8 | hi | lo`; killed samples stay killed, rule 3). It
/// precedes the colour stores (rule 1), once per program.
pub(super) fn coverage_test(im: &mut Importer) -> Result<(), CompileError> {
    let Some(g) = im.gfx.as_ref() else {
        return Ok(());
    };
    let Some(cov) = g.coverage.filter(|_| !g.tested) else {
        return Ok(());
    };
    if g.writes_mask && !g.mask_done {
        // The test follows the gl_SampleMask kill (rule 3: no kill after the test).
        return Ok(());
    }
    if g.writes_depth {
        // Only the depth store tests a depth-writing program's samples (rule 5).
        return if g.deferred.is_empty() {
            Ok(())
        } else {
            Err(CompileError::Unsupported(
                "colour output on a path without the gl_FragDepth store".into(),
            ))
        };
    }
    let (lo, hi) = coverage_nibbles(im, cov);
    let t = im.b.alu(Op::Shl, Type::I32, [Src::val(lo), Src::imm(8)]);
    let t = im.b.alu(Op::Or, Type::I32, [Src::val(t), Src::val(hi)]);
    let w = im.b.alu(Op::Or, Type::I32, [Src::val(t), Src::val(lo)]);
    im.b.sample_mask(true, Src::val(w));
    im.gfx.as_mut().unwrap().tested = true;
    Ok(())
}

/// Buffer qwords of a stage under `key`: its UBOs, then (vertex) its vertex-buffer bindings
/// and stream-output buffers.
pub(super) fn buffers(key: &GraphicsKey) -> u8 {
    match key {
        GraphicsKey::Vertex(v) => abi::vertex_buffers(v)
            .saturating_add(v.ubos)
            .saturating_add(v.xfb_buffers),
        GraphicsKey::Fragment(f) => f.ubos,
    }
}

impl GfxImport {
    pub fn new(key: &GraphicsKey) -> GfxImport {
        let gl_base = abi::gl_uniform_base(buffers(key));
        GfxImport {
            key: key.clone(),
            vertex_id: None,
            varyings: Vec::new(),
            point_size: false,
            gl_base,
            coverage: None,
            tested: false,
            writes_depth: false,
            writes_mask: false,
            mask_done: false,
            deferred: Vec::new(),
            store_mask: None,
            sample: None,
        }
    }
}

/// Defines `def` as the `n` sources (a scalar or a collect).
fn define_srcs(im: &mut Importer, def: *const m::nir_def, ty: Type, srcs: &[Src]) {
    let v = if srcs.len() == 1 {
        match srcs[0].value() {
            Some(v) if srcs[0] == Src::val(v) => v,
            _ => im.b.copy(ty, srcs[0]),
        }
    } else {
        im.b.collect(ty, srcs)
    };
    unsafe { im.define(def, v) };
}

/// The coefficient register of fragment input (location, component).
fn coefficient(g: &GfxImport, loc: u32, comp: u32) -> Result<u8, CompileError> {
    let GraphicsKey::Fragment(fk) = &g.key else {
        unreachable!()
    };
    // gl_PointCoord (s, t): the two coefficients after the user varyings (the driver binds
    // them with source PointCoord: `abi::point_coord_coefficient`).
    if loc == m::VARYING_SLOT_PNTC {
        if comp >= 2 {
            return Err(CompileError::Unsupported(format!(
                "gl_PointCoord component {comp} (it has two)"
            )));
        }
        return Ok(abi::point_coord_coefficient(fk) + comp as u8);
    }
    let k = fk
        .varyings
        .iter()
        .position(|v| v.location as u32 == loc && v.component as u32 == comp)
        .ok_or_else(|| {
            CompileError::Unsupported(format!(
                "fragment input location {loc} component {comp} is not among the key's varyings"
            ))
        })?;
    Ok((1 + fk.frag_coord_z as usize + k) as u8)
}

/// The render target a fragment colour location names and its first tile word.
fn colour_target(g: &GfxImport, loc: u32) -> Result<(RenderTarget, u8), CompileError> {
    let GraphicsKey::Fragment(fk) = &g.key else {
        unreachable!()
    };
    let rt = if loc == m::FRAG_RESULT_COLOR {
        0
    } else if loc >= m::FRAG_RESULT_DATA0 {
        (loc - m::FRAG_RESULT_DATA0) as usize
    } else {
        return Err(CompileError::Unsupported(format!(
            "fragment output location {loc} (depth/stencil/sample mask)"
        )));
    };
    // An output past the key's draw buffers has no attachment: GL drops its writes.
    let fmt = fk
        .render_targets
        .get(rt)
        .copied()
        .unwrap_or(RenderTarget::Unbound);
    if let RenderTarget::Words(n) = fmt {
        if !(1..=4).contains(&n) {
            return Err(CompileError::Unsupported(format!(
                "render target {rt} of {n} tile words (1 to 4)"
            )));
        }
    }
    Ok((
        fmt,
        fk.render_targets.iter().take(rt).map(|t| t.words()).sum(),
    ))
}

/// gl_FragCoord (`read`: the components used). x, y: the framebuffer pixel (get_sr
/// 0xa0/0xa1) + 0.5: upper-left origin, half-integer centres (the driver advertises both, so
/// the state tracker lowers the other conventions). z: the FragcoordZ binding at CF slot 1;
/// w: CF slot 0 is 1/W (its plane is linear in screen space).
fn frag_coord(im: &mut Importer, read: u32) -> Result<[Src; 4], CompileError> {
    let Some(GraphicsKey::Fragment(fk)) = im.gfx.as_ref().map(|g| &g.key) else {
        unreachable!()
    };
    let has_z = fk.frag_coord_z;
    if read & 0b100 != 0 && !has_z {
        return Err(CompileError::Unsupported(
            "gl_FragCoord.z without frag_coord_z in the key".into(),
        ));
    }
    let xy: [Src; 2] = std::array::from_fn(|a| {
        let p = im.b.sysval(SysVal::PixelCoord(a as u8));
        let f =
            im.b.alu(Op::I2F { signed: false }, Type::F32, [Src::val(p)]);
        Src::val(im.b.fadd(f, Src::imm_f32(0.5)))
    });
    let z = if has_z {
        Src::val(im.b.load_varying(1, Interp::Linear))
    } else {
        Src::val(im.b.op(Op::Undef, crate::ir::Shape::scalar(Type::F32), []))
    };
    let w = Src::val(im.b.load_varying(0, Interp::Linear));
    Ok([xy[0], xy[1], z, w])
}

/// gl_FrontFacing as a Boolean: the facing word (`get_sr` 0xc5) is zero for a front face.
fn front_facing(im: &mut Importer) -> Value {
    let w = im.b.sysval(SysVal::BackFacing);
    im.b.icmp(crate::ir::Cmp::Eq, false, Src::val(w), Src::imm(0))
}

/// Graphics intrinsics; `Ok(false)` when `name` is not one.
pub(super) unsafe fn import_intrinsic(
    im: &mut Importer,
    x: *const m::nir_intrinsic_instr,
    name: &str,
) -> Result<bool, CompileError> {
    unsafe {
        let Some(g) = im.gfx.as_ref() else {
            return Ok(false);
        };
        let vertex = matches!(g.key, GraphicsKey::Vertex(_));
        let info = &m::nir_intrinsic_infos[(*x).intrinsic as usize];
        let srcs = (*x).src.as_slice(info.num_srcs as usize);
        let comps = (*x).def.num_components as usize;
        match name {
            // dFdx/dFdy/fwidth (fwidth arrives as |ddx| + |ddy|): one `derivative` per scalar
            // (`Op::Derivative`, fine: the lane's own quad row or column). Coarse forms use
            // the same op: GL lets a coarse derivative be computed from finer differences
            // (GLSL 4.50 §8.14.1 "dFdxCoarse ... may"), and no coarse mode of the M4 is known
            // (ADevWithAnIdea/agx-re EXP-0111 FS-05); GravityLinux/mesa agx_compile_apple9.c
            // selects the one instruction for ddx/ddx_fine (its GLES suites ran on M4).
            "ddx" | "ddx_fine" | "ddx_coarse" | "ddy" | "ddy_fine" | "ddy_coarse" => {
                if vertex {
                    return Err(CompileError::Unsupported(format!(
                        "NIR intrinsic `{name}` outside a fragment shader"
                    )));
                }
                if (*x).def.bit_size != 32 {
                    return Err(CompileError::Unsupported(format!(
                        "{}-bit `{name}`",
                        (*x).def.bit_size
                    )));
                }
                let axis = u8::from(name.starts_with("ddy"));
                let mut parts = Vec::with_capacity(comps);
                for k in 0..comps {
                    let s = im.comp(srcs[0].ssa, k as u8)?;
                    parts.push(Src::val(im.b.alu(Op::Derivative { axis }, Type::F32, [s])));
                }
                define_srcs(im, &(*x).def, Type::F32, &parts);
            }
            "load_vertex_id" if vertex => {
                let id = g.vertex_id.ok_or_else(|| {
                    CompileError::Internal("the prologue emitted no vertex id".into())
                })?;
                im.define(&(*x).def, id);
            }
            // gl_InstanceID: 0 .. instances − 1 (GL's does not include a base instance; the
            // state tracker lowers gl_BaseInstance-based forms itself).
            "load_instance_id" if vertex => {
                let id = im.b.sysval(SysVal::InstanceId);
                im.define(&(*x).def, id);
            }
            // gl_FrontFacing as a system value (`fs_face_is_integer_sysval`): a Boolean.
            "load_front_face" if !vertex => {
                let f = front_facing(im);
                define_srcs(im, &(*x).def, Type::Bool, &[Src::val(f)]);
            }
            "load_input" if vertex => {
                return Err(CompileError::Internal(
                    "a vertex input the vertex fetch (nir/vertex_fetch.rs) did not lower".into(),
                ));
            }
            "store_output" if vertex => {
                let loc = io_loc(x, 1, "store_output")?;
                let comp = m::nir_intrinsic_component(x);
                let mask = m::nir_intrinsic_write_mask(x);
                let n = (*srcs[0].ssa).num_components as u32;
                if (*srcs[0].ssa).bit_size != 32 {
                    return Err(CompileError::Unsupported("16-bit vertex outputs".into()));
                }
                let user = g.varyings.len() as u8;
                let GraphicsKey::Vertex(vk) = &g.key else {
                    unreachable!()
                };
                // GL clip z in [-w, w] → the [0, w] the M4 clips to: z' = (z + w) / 2.
                let mut halfz = None;
                let written = |c: u32| c >= comp && c - comp < n && mask >> (c - comp) & 1 == 1;
                if loc == m::VARYING_SLOT_POS && vk.gl_clip_z && written(2) {
                    if !written(3) {
                        return Err(CompileError::Unsupported(
                            "gl_Position.z stored without .w in the same store (the [-w, w] \
                             → [0, w] depth mapping needs both)"
                                .into(),
                        ));
                    }
                    let z = im.comp(srcs[0].ssa, (2 - comp) as u8)?;
                    let w = im.comp(srcs[0].ssa, (3 - comp) as u8)?;
                    let sum = im.b.fadd(z, w);
                    halfz = Some(Src::val(im.b.fmul(sum, Src::imm_f32(0.5))));
                }
                for k in 0..n {
                    if mask >> k & 1 == 0 {
                        continue;
                    }
                    let c = comp + k;
                    if loc == m::VARYING_SLOT_POS && c == 2 {
                        if let Some(z) = halfz {
                            im.b.store_output(2, z);
                            continue;
                        }
                    }
                    let slot = if loc == m::VARYING_SLOT_POS {
                        c as u8
                    } else if loc == m::VARYING_SLOT_PSIZ {
                        4 + user
                    } else {
                        let v = VaryingSlot {
                            location: loc as u8,
                            component: c as u8,
                        };
                        let k = g.varyings.iter().position(|s| *s == v).ok_or_else(|| {
                            CompileError::Internal(format!("output {v:?} missed by the prologue"))
                        })?;
                        4 + k as u8
                    };
                    let s = im.comp(srcs[0].ssa, k as u8)?;
                    im.b.store_output(slot, s);
                }
            }
            // Consumed by load_interpolated_input (its mode is read there). Centroid: the
            // graphics ABI is single-sampled (abi.rs), and without multisampling GL
            // interpolates a centroid input at the pixel centre like any other.
            "load_barycentric_pixel" | "load_barycentric_centroid" if !vertex => {}
            "load_barycentric_sample"
            | "load_barycentric_at_offset"
            | "load_barycentric_at_sample" => {
                return Err(CompileError::Unsupported(format!(
                    "{name}: iteration away from the pixel centre is not established"
                )))
            }
            "load_interpolated_input" | "load_input" if !vertex => {
                let off = if name == "load_input" { 0 } else { 1 };
                let interp = if name == "load_input" {
                    Interp::Flat
                } else {
                    let bary = (*srcs[0].ssa).parent_instr;
                    let bi = m::nir_instr_as_intrinsic(bary);
                    match m::nir_intrinsic_interp_mode(bi) {
                        m::INTERP_MODE_NOPERSPECTIVE => Interp::Linear,
                        m::INTERP_MODE_FLAT => Interp::Flat,
                        _ => Interp::Perspective,
                    }
                };
                let loc = io_loc(x, off, name)?;
                let comp = m::nir_intrinsic_component(x);
                // gl_FragCoord and gl_FrontFacing as inputs (a state tracker without
                // `fs_position_is_sysval` / `fs_face_is_integer_sysval`): the same values as
                // the system values, whatever the interpolation NIR names.
                if loc == m::VARYING_SLOT_POS {
                    let parts =
                        frag_coord(im, (m::nir_def_components_read(&(*x).def) as u32) << comp)?;
                    define_srcs(
                        im,
                        &(*x).def,
                        Type::F32,
                        &parts[comp as usize..comp as usize + comps],
                    );
                    return Ok(true);
                }
                if loc == m::VARYING_SLOT_FACE {
                    // A 32-bit Boolean input (nir_lower_two_sided_color reads it so too).
                    if comp != 0 || comps != 1 {
                        return Err(CompileError::Unsupported(format!(
                            "gl_FrontFacing input of {comps} components at component {comp}"
                        )));
                    }
                    let f = front_facing(im);
                    define_srcs(im, &(*x).def, Type::Bool, &[Src::val(f)]);
                    return Ok(true);
                }
                // gl_PointCoord: a coefficient binding with source PointCoord, the driver
                // selecting that source for the PNTC slot as the M4 driver does
                // (Mesa:src/gallium/drivers/asahi/agx_state.c `agx_link_varyings_vs_fs`,
                // `util_varying_is_point_coord`; G13, inferred for G16). Its planes are
                // linear in screen space, so it is iterated without the perspective divide.
                let interp = if loc == m::VARYING_SLOT_PNTC {
                    Interp::Linear
                } else {
                    interp
                };
                let mut parts = Vec::new();
                for k in 0..comps as u32 {
                    let cf = coefficient(g, loc, comp + k)?;
                    parts.push(Src::val(im.b.load_varying(cf, interp)));
                }
                define_srcs(im, &(*x).def, Type::F32, &parts);
            }
            "load_frag_coord" if !vertex => {
                let parts = frag_coord(im, m::nir_def_components_read(&(*x).def) as u32)?;
                define_srcs(im, &(*x).def, Type::F32, &parts[..comps]);
            }
            "load_output" if !vertex => {
                // The destination colour (framebuffer fetch; what `nir_lower_blend` reads for
                // blending, logic ops and partial colour masks): the target's tile word as the
                // earlier fragments left it, unpacked to the logical RGBA order.
                let (fmt, word) = colour_target(g, io_loc(x, 0, "load_output")?)?;
                let comp = m::nir_intrinsic_component(x) as usize;
                if (*x).def.bit_size != 32 || comp + comps > 4 {
                    return Err(CompileError::Unsupported(format!(
                        "{}-bit load_output of {comps} components at component {comp}",
                        (*x).def.bit_size
                    )));
                }
                if let RenderTarget::Words(n) = fmt {
                    // The raw words; the driver's unpack turns them into the colour.
                    if comp + comps > n as usize {
                        return Err(CompileError::Unsupported(format!(
                            "load_output of {comps} words at {comp} from a {n}-word target"
                        )));
                    }
                    let parts: Vec<Src> = (comp..comp + comps)
                        .map(|k| destination_word(im, word + k as u8).map(Src::val))
                        .collect::<Result<_, _>>()?;
                    define_srcs(im, &(*x).def, Type::I32, &parts);
                    return Ok(true);
                }
                if fmt == RenderTarget::Unbound {
                    return Err(CompileError::Unsupported(
                        "load_output from a render target with no attachment".into(),
                    ));
                }
                let w = Src::val(destination_word(im, word)?);
                let c: [Src; 4] = match fmt {
                    RenderTarget::Rgba8Unorm => abi::unpack_unorm_4x8(&mut im.b, w),
                    RenderTarget::Bgra8Unorm => {
                        let c = abi::unpack_unorm_4x8(&mut im.b, w);
                        [c[2], c[1], c[0], c[3]]
                    }
                    RenderTarget::Rgba8Int => {
                        // The stored bytes, zero-extended (the pack keeps only the low bytes,
                        // so a logic op's result is the same for signed and unsigned).
                        std::array::from_fn(|k| {
                            let s = if k == 0 {
                                w
                            } else {
                                Src::val(im.b.alu(
                                    Op::Shr { signed: false },
                                    Type::I32,
                                    [w, Src::imm(8 * k as u32)],
                                ))
                            };
                            Src::val(im.b.alu(Op::And, Type::I32, [s, Src::imm(0xff)]))
                        })
                    }
                    RenderTarget::R32 => [w, Src::imm(0), Src::imm(0), Src::imm_f32(1.0)],
                    RenderTarget::Words(_) | RenderTarget::Unbound => unreachable!(),
                };
                define_srcs(im, &(*x).def, Type::F32, &c[comp..comp + comps]);
            }
            "store_output"
                if !vertex && io_loc(x, 1, "store_output")? == m::FRAG_RESULT_SAMPLE_MASK =>
            {
                let v = im.comp(srcs[0].ssa, 0)?;
                sample_mask_output(im, v)?;
            }
            "store_output" if !vertex && io_loc(x, 1, "store_output")? == m::FRAG_RESULT_DEPTH => {
                if (*srcs[0].ssa).bit_size != 32 {
                    return Err(CompileError::Unsupported("16-bit gl_FragDepth".into()));
                }
                let z = im.comp(srcs[0].ssa, 0)?;
                depth_store(im, z)?;
            }
            "store_output" if !vertex => {
                let loc = io_loc(x, 1, "store_output")?;
                let (fmt, word) = colour_target(g, loc)?;
                // Alpha to coverage reads target 0's alpha (dual-source index 0).
                let a2c = match &g.key {
                    GraphicsKey::Fragment(k) => {
                        k.alpha_to_coverage
                            && k.samples > 1
                            && (loc == m::FRAG_RESULT_COLOR || loc == m::FRAG_RESULT_DATA0)
                            && m::nir_intrinsic_io_semantics(x).dual_source_blend_index() == 0
                    }
                    _ => false,
                };
                // Colour-mask channels kept per sample (multisampled targets).
                let keep = match &g.key {
                    GraphicsKey::Fragment(k) if k.samples > 1 => {
                        let rt = if loc == m::FRAG_RESULT_COLOR {
                            0
                        } else {
                            loc.saturating_sub(m::FRAG_RESULT_DATA0)
                        };
                        (k.keep_channels >> (4 * rt.min(7))) & 0xf
                    }
                    _ => 0,
                };
                coverage_test(im)?;
                let comp = m::nir_intrinsic_component(x);
                let mask = m::nir_intrinsic_write_mask(x);
                let n = (*srcs[0].ssa).num_components as u32;
                match fmt {
                    RenderTarget::Unbound => return Ok(true),
                    RenderTarget::Words(_) | RenderTarget::R32 if keep != 0 => {
                        return Err(CompileError::Unsupported(
                            "a colour mask on a multisampled target of this format (per-sample \
                             merges are built for 8-bit RGBA targets)"
                                .into(),
                        ))
                    }
                    RenderTarget::Words(_) if a2c => {
                        return Err(CompileError::Unsupported(
                            "alpha to coverage on a render target the driver packs itself \
                             (the alpha is not visible to the compiler)"
                                .into(),
                        ))
                    }
                    RenderTarget::Words(words) => {
                        if (*srcs[0].ssa).bit_size != 32 {
                            return Err(CompileError::Unsupported(
                                "16-bit colour words (the driver packs 32-bit words)".into(),
                            ));
                        }
                        for k in 0..n {
                            if mask >> k & 1 == 0 {
                                continue;
                            }
                            let w = comp + k;
                            if w >= words as u32 {
                                return Err(CompileError::Unsupported(format!(
                                    "colour word {w} of a {words}-word render target"
                                )));
                            }
                            let s = im.comp(srcs[0].ssa, k as u8)?;
                            let v = im.b.copy(Type::I32, s);
                            colour_store(im, word + w as u8, v);
                        }
                        return Ok(true);
                    }
                    _ => {}
                }
                // GL leaves unwritten components undefined: 0, 0, 0, 1.
                let mut c = [
                    Src::imm_f32(0.0),
                    Src::imm_f32(0.0),
                    Src::imm_f32(0.0),
                    Src::imm_f32(1.0),
                ];
                for k in 0..n {
                    if mask >> k & 1 == 1 && comp + k < 4 {
                        c[(comp + k) as usize] = im.comp(srcs[0].ssa, k as u8)?;
                    }
                }
                if a2c && !im.gfx.as_ref().is_some_and(|g| g.mask_done) {
                    alpha_to_coverage(im, c[3])?;
                }
                let v = match fmt {
                    RenderTarget::Rgba8Unorm => abi::pack_unorm_4x8(&mut im.b, c),
                    RenderTarget::Bgra8Unorm => {
                        abi::pack_unorm_4x8(&mut im.b, [c[2], c[1], c[0], c[3]])
                    }
                    RenderTarget::Rgba8Int => {
                        // Unwritten components: GL leaves them undefined; 0, 0, 0, 1 as ints.
                        let mut ci = c;
                        for (k, x) in ci.iter_mut().enumerate() {
                            if let crate::ir::Operand::Imm(_) = x.op {
                                *x = Src::imm(u32::from(k == 3));
                            }
                        }
                        abi::pack_int_4x8(&mut im.b, ci)
                    }
                    RenderTarget::R32 => im.b.copy(Type::I32, c[0]),
                    RenderTarget::Words(_) | RenderTarget::Unbound => unreachable!(),
                };
                // Bytes of the kept channels (memory order: BGRA8 stores B, G, R, A).
                let byte_of = |ch: u32| match fmt {
                    RenderTarget::Bgra8Unorm if ch < 3 => 2 - ch,
                    _ => ch,
                };
                let bits = (0..4u32)
                    .filter(|&ch| keep >> ch & 1 != 0)
                    .fold(!0u32, |b, ch| b & !(0xff << (8 * byte_of(ch))));
                colour_store_bits(im, word, v, bits);
            }
            "load_uniform" => {
                let base = m::nir_intrinsic_base(x) as i64;
                if m::nir_src_is_const(srcs[0]) {
                    let off = m::nir_src_as_uint(srcs[0]) as i64;
                    uniform_words(im, x, base + off, comps)?;
                } else {
                    uniform_words_indexed(im, x, base, comps, srcs[0].ssa)?;
                }
            }
            // Transform feedback: the driver's capture stores (agx16-gallium so.rs) write
            // stream-output buffer j through its slot after the vertex buffers.
            "store_ssbo" if vertex => {
                let GraphicsKey::Vertex(vk) = &g.key else {
                    unreachable!()
                };
                let j = super::intrinsic::const_src(&srcs[1], "stream-output buffer index")?;
                let n = (*srcs[0].ssa).num_components;
                let mask = m::nir_intrinsic_write_mask(x);
                if j >= vk.xfb_buffers as u64
                    || mask != (1 << n) - 1
                    || (*srcs[0].ssa).bit_size != 32
                {
                    return Err(CompileError::Unsupported(format!(
                        "vertex store_ssbo to buffer {j} with write mask {mask:#x} (the key has {} \
                         stream-output buffers; whole 32-bit vectors only)",
                        vk.xfb_buffers
                    )));
                }
                let slot = abi::xfb_slot(vk, j as u8);
                if abi::gl_uniform_base(slot - abi::ROOT_SLOTS + 1) > abi::MAX_UNIFORM_WORDS {
                    return Err(CompileError::Unsupported(format!(
                        "stream-output buffer {j}: past the 64 argument words"
                    )));
                }
                let idx = super::intrinsic::element_index(im, srcs[2].ssa)?;
                let val = Src::val(im.value(srcs[0].ssa)?);
                im.b.store_global(slot, idx, val);
            }
            "load_ubo" => {
                let block = super::intrinsic::const_src(&srcs[0], "uniform block index")?;
                // Blocks past the UBOs are the vertex-buffer bindings of the vertex fetch
                // (nir/vertex_fetch.rs): block k is device base slot 6 + k either way.
                let blocks = buffers(&g.key);
                if block >= blocks as u64 || (*x).def.bit_size != 32 {
                    return Err(CompileError::Unsupported(format!(
                        "{}-bit load_ubo of block {block} (the key has {blocks} UBOs and vertex \
                         buffers)",
                        (*x).def.bit_size
                    )));
                }
                let idx = super::intrinsic::element_index(im, srcs[1].ssa)?;
                let v =
                    im.b.load_global(abi::ubo_slot(block as u8), idx, Type::I32, comps as u8);
                im.define(&(*x).def, v);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A uniform array element indexed by a variable (`uniform float x[4]; x[i]`, st's word
/// offset): uniforms are registers, so every candidate element of the variable's range is read
/// and a chain of selects on `offset == o` picks one (an offset past the range, undefined in
/// GLSL ES, gives the last element). Bounded to small arrays.
unsafe fn uniform_words_indexed(
    im: &mut Importer,
    x: *const m::nir_intrinsic_instr,
    base: i64,
    comps: usize,
    offset: *const m::nir_def,
) -> Result<(), CompileError> {
    /// Candidate offsets (words) at most: each costs a compare and a select per component.
    const MAX_WORDS: i64 = 64;
    unsafe {
        let range = m::nir_intrinsic_range(x) as i64;
        if (*x).def.bit_size != 32 || range < comps as i64 || range > MAX_WORDS {
            return Err(CompileError::Unsupported(format!(
                "{}-bit uniform array of {range} words indexed by a variable (at most {MAX_WORDS})",
                (*x).def.bit_size
            )));
        }
        let gl_base = im.gfx.as_ref().unwrap().gl_base as i64;
        if base < 0 || gl_base + base + range > u16::MAX as i64 {
            return Err(CompileError::Unsupported(format!("uniform word {base}")));
        }
        let off = im.comp(offset, 0)?;
        let word = |im: &mut Importer, w: i64| {
            Src::val(im.b.copy(Type::I32, Src::uniform((gl_base + base + w) as u16)))
        };
        let last = range - comps as i64;
        let mut r: Vec<Src> = (0..comps).map(|k| word(im, last + k as i64)).collect();
        for o in (0..last).rev() {
            for (k, rk) in r.iter_mut().enumerate() {
                let w = word(im, o + k as i64);
                // One compare per select, right before it (selects become branches).
                let c =
                    im.b.icmp(crate::ir::Cmp::Eq, false, off, Src::imm(o as u32));
                *rk = Src::val(im.b.select(Type::I32, c, w, *rk));
            }
        }
        define_srcs(im, &(*x).def, Type::I32, &r);
        Ok(())
    }
}

unsafe fn uniform_words(
    im: &mut Importer,
    x: *const m::nir_intrinsic_instr,
    w: i64,
    comps: usize,
) -> Result<(), CompileError> {
    unsafe {
        if (*x).def.bit_size != 32 {
            return Err(CompileError::Unsupported(format!(
                "{}-bit uniforms",
                (*x).def.bit_size
            )));
        }
        let base = im.gfx.as_ref().unwrap().gl_base as i64;
        let first = base + w;
        if w < 0 || first + comps as i64 > u16::MAX as i64 {
            return Err(CompileError::Unsupported(format!("uniform word {w}")));
        }
        let parts: Vec<Src> = (0..comps)
            .map(|k| Src::uniform((first + k as i64) as u16))
            .collect();
        let copies: Vec<Src> = parts
            .iter()
            .map(|p| Src::val(im.b.copy(Type::I32, *p)))
            .collect();
        define_srcs(im, &(*x).def, Type::I32, &copies);
        Ok(())
    }
}

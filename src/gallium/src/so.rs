//! Transform feedback (stream output) and its primitive queries.
//!
//! No source establishes a fixed-function stream-output unit on G16, and the T8132 driver captures
//! with the API vertex program itself, writing its outputs to the stream-output buffers with
//! ordinary device stores (GravityLinux/mesa src/gallium/drivers/asahi/agx_streamout.c, "Apple9
//! ... writes raw outputs through ordinary SSBOs"; inferred from that driver, not measured). agx16
//! does the same inside the draw: a vertex variant keyed on `VertexKey::xfb_buffers` gets, after its
//! output stores, a capture of every stream output at
//! `(instance * vertices_per_instance + vertex_id - first) * stride + dst_offset` (NIR below, device
//! stores through the buffers' root-record slots, agx16_compiler::abi `xfb_slot`). Draws that
//! capture are non-indexed (OpenGL ES 3.0: DrawElements is an error while transform feedback is
//! active); Mesa accepts strips, fans and loops under the matching base mode, captured as the
//! primitives they decompose into (`Decomposition`). Every vertex id of such a draw is shaded
//! once per instance and stores its outputs at each record it occupies; one that belongs to no
//! complete primitive (or only to primitives past the buffers' room) stores nothing. Offsets, the primitives-written
//! query and the buffers' room are kept on the CPU from the draw's counts, as the T8132 driver
//! does for direct draws.

use crate::context::Context;
use crate::ffi::guard;
use crate::resource::Resource;
use agx16_compiler::nir::texture::load_uniform_words;
use agx16_mesa_sys as sys;
use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;

/// The stream outputs of a vertex CSO (Gallium's `pipe_stream_output_info`, with each output
/// register resolved to its varying location).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamOutput {
    pub outputs: Vec<Capture>,
    /// Bytes per vertex of each buffer.
    pub strides: [u32; 4],
}

/// One captured output: `n` components of varying `location` from component `comp` on, at
/// 32-bit word `word` of each vertex's record in buffer `buffer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capture {
    pub buffer: u8,
    pub word: u32,
    pub location: u32,
    pub comp: u32,
    pub n: u32,
}

impl StreamOutput {
    /// Buffers the outputs write (highest buffer + 1): the variant's `xfb_buffers`.
    pub fn buffers(&self) -> u8 {
        self.outputs.iter().map(|o| o.buffer + 1).max().unwrap_or(0)
    }
}

/// The CSO's stream outputs, from the state Mesa created it with. `outputs_written` is the NIR's
/// before IO lowering: `register_index` counts the written outputs below the location
/// (st_program.c `get_stream_output_info_from_nir`).
pub fn parse(so: &sys::pipe_stream_output_info, outputs_written: u64) -> Option<StreamOutput> {
    if so.num_outputs == 0 {
        return None;
    }
    let locations: Vec<u32> = (0..64).filter(|b| outputs_written >> b & 1 == 1).collect();
    let mut r = StreamOutput {
        outputs: Vec::new(),
        strides: std::array::from_fn(|b| 4 * so.stride[b] as u32),
    };
    for o in &so.output[..so.num_outputs as usize] {
        r.outputs.push(Capture {
            buffer: o.output_buffer() as u8,
            word: o.dst_offset(),
            // An index past the written outputs names no location; `u32::MAX` makes the capture
            // pass refuse it by name.
            location: *locations
                .get(o.register_index() as usize)
                .unwrap_or(&u32::MAX),
            comp: o.start_component(),
            n: o.num_components(),
        });
    }
    Some(r)
}

unsafe fn system_value(b: *mut sys::nir_builder, op: sys::nir_intrinsic_op) -> *mut sys::nir_def {
    let x = sys::nir_intrinsic_instr_create((*b).shader, op);
    sys::nir_def_init(&mut (*x).instr, &mut (*x).def, 1, 32);
    sys::nir_builder_instr_insert(b, &mut (*x).instr);
    &mut (*x).def
}

/// Adds the capture to a vertex shader whose outputs are stored in its last block (shader.rs
/// lowers a capturing CSO's outputs to temporaries written at the end): after those stores,
/// with the [`WORDS`] GL uniform words at `word` (`Decomposition::words`: first vertex, records
/// per instance, records captured in all, then the decomposition), vertex k = vertex_id − first
/// of instance i stores its outputs at record `i · per_instance + position` for every captured
/// position it occupies (a strip vertex is in up to three triangles, a fan's vertex 0 in all of
/// them), when the record is below the captured count.
///
/// # Safety
/// `nir` must be a valid vertex shader with lowered IO.
pub unsafe fn add_capture(
    nir: *mut sys::nir_shader,
    so: &StreamOutput,
    word: u32,
) -> Result<(), String> {
    unsafe extern "C" fn collect(
        _b: *mut sys::nir_builder,
        x: *mut sys::nir_intrinsic_instr,
        data: *mut c_void,
    ) -> bool {
        if (*x).intrinsic == sys::nir_intrinsic_store_output {
            (*(data as *mut Vec<*mut sys::nir_intrinsic_instr>)).push(x);
        }
        false
    }
    let mut stores: Vec<*mut sys::nir_intrinsic_instr> = Vec::new();
    sys::nir_shader_intrinsics_pass(
        nir,
        Some(collect),
        sys::nir_metadata_all,
        &mut stores as *mut _ as *mut c_void,
    );
    let impl_ = sys::nir_shader_get_entrypoint(nir);
    let last = sys::nir_impl_last_block(impl_);
    // (location, component) → (value, channel) of the last store (program order in the block).
    type Stored = ((u32, u32), (*mut sys::nir_def, u32));
    let mut stored: Vec<Stored> = Vec::new();
    let mut elsewhere = false;
    for &x in &stores {
        if (*x).instr.block != last {
            elsewhere = true;
            continue;
        }
        let srcs = (*x).src.as_slice(2);
        if !sys::nir_src_is_const(srcs[1]) {
            return Err("a captured output stored with an indirect offset".into());
        }
        let loc =
            sys::nir_intrinsic_io_semantics(x).location() + sys::nir_src_as_uint(srcs[1]) as u32;
        let comp = sys::nir_intrinsic_component(x);
        let mask = sys::nir_intrinsic_write_mask(x);
        for k in 0..(*srcs[0].ssa).num_components as u32 {
            if mask >> k & 1 == 1 {
                let key = (loc, comp + k);
                stored.retain(|(s, _)| *s != key);
                stored.push((key, (srcs[0].ssa, k)));
            }
        }
    }
    if elsewhere {
        return Err(
            "output stores outside the shader's last block (the capture reads them there)".into(),
        );
    }
    // The captured values (buffer, word, components, value), gathered in the last block so that
    // they dominate every store below.
    let mut nb = sys::nir_builder_at(sys::nir_after_block(last));
    let b: *mut sys::nir_builder = &mut nb;
    let mut values = Vec::new();
    for o in &so.outputs {
        let mut comps = Vec::new();
        for c in o.comp..o.comp + o.n {
            let (v, ch) = stored
                .iter()
                .find(|(s, _)| *s == (o.location, c))
                .map(|(_, v)| *v)
                .ok_or_else(|| {
                    format!(
                        "captured output location {} component {c} is never stored",
                        o.location
                    )
                })?;
            comps.push(sys::nir_channel(b, v, ch));
        }
        values.push((o, sys::nir_vec(b, comps.as_mut_ptr(), o.n)));
    }
    let w = |i: u32| load_uniform_words(b, word + i, 1, sys::nir_type_uint32);
    let (first, per_instance, limit) = (w(0), w(1), w(2));
    let (plimit, qstart, qend, small) = (w(3), w(4), w(5), w(6));
    let field = |k: u32| sys::nir_iand_imm(b, sys::nir_ushr_imm(b, small, 4 * k), 0xf);
    let (pmul, jmin, jmax, swap, qcorner) = (field(0), field(1), field(2), field(3), field(4));
    let vid = system_value(b, sys::nir_intrinsic_load_vertex_id);
    let iid = system_value(b, sys::nir_intrinsic_load_instance_id);
    let k = sys::nir_isub(b, vid, first);
    let base = sys::nir_imul(b, iid, per_instance);
    // Stores every captured value at vertex record `base + position` when the record is below
    // the captured count.
    let store_at = |b: *mut sys::nir_builder,
                    position: *mut sys::nir_def,
                    cond: *mut sys::nir_def| {
        let record = sys::nir_iadd(b, base, position);
        let inside = sys::nir_iand(b, cond, sys::nir_ult(b, record, limit));
        let nif = sys::nir_push_if(b, inside);
        for (o, value) in &values {
            let stride_words = so.strides[o.buffer as usize] / 4;
            let element = sys::nir_iadd_imm(
                b,
                sys::nir_imul_imm(b, record, stride_words as u64),
                o.word as u64,
            );
            let offset = sys::nir_ishl_imm(b, element, 2);
            let st = sys::nir_intrinsic_instr_create((*b).shader, sys::nir_intrinsic_store_ssbo);
            (*st).num_components = o.n as u8;
            let srcs = (*st).src.as_mut_slice(3);
            srcs[0] = sys::nir_src_for_ssa(*value);
            srcs[1] = sys::nir_src_for_ssa(sys::nir_imm_int(b, o.buffer as i32));
            srcs[2] = sys::nir_src_for_ssa(offset);
            sys::nir_intrinsic_set_write_mask(st, (1 << o.n) - 1);
            sys::nir_intrinsic_set_align(st, 4, 0);
            sys::nir_builder_instr_insert(b, &mut (*st).instr);
        }
        sys::nir_pop_if(b, nif);
    };
    // Vertex k is corner c of primitive k − j for j in jmin..jmax (see `Decomposition`).
    for j in 0..3u32 {
        let jj = sys::nir_imm_int(b, j as i32);
        let p = sys::nir_isub(b, k, jj);
        let mut cond = sys::nir_iand(b, sys::nir_uge(b, jj, jmin), sys::nir_ult(b, jj, jmax));
        cond = sys::nir_iand(b, cond, sys::nir_uge(b, k, jj));
        cond = sys::nir_iand(b, cond, sys::nir_ult(b, p, plimit));
        let corner = if j < 2 {
            let odd = sys::nir_ine_imm(b, sys::nir_iand(b, p, swap), 0);
            sys::nir_bcsel(b, odd, sys::nir_imm_int(b, 1 - j as i32), jj)
        } else {
            jj
        };
        let position = sys::nir_iadd(b, sys::nir_imul(b, p, pmul), corner);
        store_at(b, position, cond);
    }
    // Vertex 0 is also corner `qcorner` of primitives qstart..qend (a fan's hub, a loop's close).
    let q = sys::nir_local_variable_create(impl_, sys::glsl_uint_type(), c"xfb_q".as_ptr());
    sys::nir_store_var(b, q, qstart, 1);
    let hub = sys::nir_push_if(b, sys::nir_ieq_imm(b, k, 0));
    let lp = sys::nir_push_loop(b);
    let qv = sys::nir_load_var(b, q);
    sys::nir_break_if(b, sys::nir_uge(b, qv, qend));
    let position = sys::nir_iadd(b, sys::nir_imul(b, qv, pmul), qcorner);
    store_at(b, position, sys::nir_imm_true(b));
    sys::nir_store_var(b, q, sys::nir_iadd_imm(b, qv, 1), 1);
    sys::nir_pop_loop(b, lp);
    sys::nir_pop_if(b, hub);
    sys::nir_lower_vars_to_ssa(nir);
    Ok(())
}

/// A stream-output target and how far into it the captures have written.
#[repr(C)]
struct Target {
    base: sys::pipe_stream_output_target,
    /// Bytes written from `base.buffer_offset` on.
    written: u32,
}

/// The context's bound targets and running primitives-written queries.
#[derive(Default)]
pub struct StreamOut {
    targets: Vec<*mut sys::pipe_stream_output_target>,
    /// Running primitives-written queries (query.rs), counted as capturing draws are recorded.
    pub queries: Vec<*mut crate::query::Query>,
}

impl StreamOut {
    /// The bound targets (count, array) for util_blitter's save/restore.
    pub fn bound(&mut self) -> (u32, *mut *mut sys::pipe_stream_output_target) {
        (self.targets.len() as u32, self.targets.as_mut_ptr())
    }

    /// Drops the target references (context destruction).
    ///
    /// # Safety
    /// The targets must be live.
    pub unsafe fn release(&mut self) {
        for t in self.targets.iter_mut() {
            sys::pipe_so_target_reference(t, null_mut());
        }
        self.targets.clear();
    }
}

/// What a capturing draw needs and does.
pub struct Plan {
    /// Per stream-output buffer (0..xfb_buffers): its GPU address at the write position.
    pub addresses: Vec<u64>,
    /// The capture's uniform words (`Decomposition::words`).
    pub words: [u32; WORDS],
    written_prims: u64,
    /// (target index, bytes the draw appends).
    advance: Vec<(usize, u32)>,
}

/// Number of capture uniform words (`Decomposition::words`). Few, because a capturing vertex
/// stage also passes every vertex-buffer and capture-buffer address in the launcher's 46
/// argument words (8 bindings and 4 capture buffers leave 8 for the capture).
pub const WORDS: usize = 7;

/// How a draw mode's `n` vertices become the captured primitives of one instance, in the form
/// the capture NIR evaluates: vertex k is corner c of primitive k − j for each j in
/// `jmin..jmax` with k ≥ j and k − j < `plimit`, at position `pmul · (k − j) + c` where c = j,
/// except that with `swap` an odd primitive exchanges corners 0 and 1; vertex 0 is also corner
/// `qcorner` of primitives `qstart..qend`. Lists use `pmul` 1 (position = k). The decomposition
/// is GL's (OpenGL ES 3.2 §12.1.1 / GL 4.6 §13.3.1, as Mesa's draw module emits it with the
/// last-vertex convention, draw_decompose_tmp.h): strip triangle i is (i, i+1, i+2) for even i
/// and (i+1, i, i+2) for odd i, fan triangle i is (0, i+1, i+2), line strip segment i is
/// (i, i+1) and a loop adds (n−1, 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decomposition {
    /// Vertices per captured primitive.
    verts: u32,
    /// Captured primitives per instance.
    prims: u32,
    pmul: u32,
    plimit: u32,
    jmin: u32,
    jmax: u32,
    swap: bool,
    qstart: u32,
    qend: u32,
    qcorner: u32,
}

fn decompose(mode: sys::mesa_prim, n: u32) -> Result<Decomposition, String> {
    let list = |verts: u32| {
        let prims = n / verts;
        Decomposition {
            verts,
            prims,
            pmul: 1,
            plimit: prims * verts,
            jmin: 0,
            jmax: 1,
            swap: false,
            qstart: 0,
            qend: 0,
            qcorner: 0,
        }
    };
    let strip = |verts: u32, prims: u32| Decomposition {
        verts,
        prims,
        pmul: verts,
        plimit: prims,
        jmin: 0,
        jmax: verts,
        swap: false,
        qstart: 0,
        qend: 0,
        qcorner: 0,
    };
    Ok(match mode {
        sys::MESA_PRIM_POINTS => list(1),
        sys::MESA_PRIM_LINES => list(2),
        sys::MESA_PRIM_TRIANGLES => list(3),
        sys::MESA_PRIM_LINE_STRIP => strip(2, n.saturating_sub(1)),
        sys::MESA_PRIM_LINE_LOOP => {
            let prims = if n >= 2 { n } else { 0 };
            Decomposition {
                qstart: prims.saturating_sub(1),
                qend: prims,
                qcorner: 1,
                ..strip(2, prims)
            }
        }
        sys::MESA_PRIM_TRIANGLE_STRIP => Decomposition {
            swap: true,
            ..strip(3, n.saturating_sub(2))
        },
        sys::MESA_PRIM_TRIANGLE_FAN => {
            let prims = n.saturating_sub(2);
            Decomposition {
                jmin: 1,
                qend: prims,
                ..strip(3, prims)
            }
        }
        m => {
            return Err(format!(
                "transform feedback of primitive type {m} (OpenGL ES 3.0 captures points, \
                 lines, line strips and loops, triangles, triangle strips and fans)"
            ))
        }
    })
}

impl Decomposition {
    /// The capture's uniform words (see `add_capture`).
    fn words(&self, first: u32, limit: u32) -> [u32; WORDS] {
        // The small fields share one word, 4 bits each (all are at most 3).
        let small = [
            self.pmul,
            self.jmin,
            self.jmax,
            self.swap as u32,
            self.qcorner,
        ];
        debug_assert!(small.iter().all(|&f| f < 16), "{self:?}");
        let packed = small
            .iter()
            .enumerate()
            .fold(0, |acc, (k, &f)| acc | (f & 0xf) << (4 * k));
        [
            first,
            self.prims * self.verts,
            limit,
            self.plimit,
            self.qstart,
            self.qend,
            packed,
        ]
    }
}

/// The capture plan of a draw with the bound vertex CSO (`None`: nothing is captured).
///
/// # Safety
/// The bound targets and their buffers must be live.
pub unsafe fn plan(
    ctx: &Context,
    so: Option<&StreamOutput>,
    info: &sys::pipe_draw_info,
    draw: &sys::pipe_draw_start_count_bias,
) -> Result<Option<Plan>, String> {
    let targets = &ctx.so.targets;
    let Some(so) = so.filter(|_| targets.iter().any(|t| !t.is_null())) else {
        return Ok(None);
    };
    if info.index_size != 0 {
        return Err(
            "transform feedback of an indexed draw (OpenGL ES 3.0 captures glDrawArrays)".into(),
        );
    }
    let d = decompose(info.mode, draw.count)?;
    let verts = d.verts;
    let mut room = u64::MAX;
    let mut addresses = Vec::new();
    let mut advance = Vec::new();
    for j in 0..so.buffers() as usize {
        let used = so.outputs.iter().any(|o| o.buffer as usize == j);
        let t = targets.get(j).copied().unwrap_or(null_mut());
        if t.is_null() {
            if used {
                return Err(format!("stream output buffer {j} is not bound"));
            }
            addresses.push(0);
            continue;
        }
        let t = &*(t as *const Target);
        let va =
            Resource::get(t.base.buffer).bo().va + t.base.buffer_offset as u64 + t.written as u64;
        addresses.push(va);
        let stride = so.strides[j];
        if used && stride > 0 {
            let left = t.base.buffer_size.saturating_sub(t.written) as u64;
            room = room.min(left / stride as u64 / verts as u64);
            advance.push((j, stride));
        }
    }
    let written_prims = d.prims as u64 * info.instance_count as u64;
    let written_prims = written_prims.min(room);
    let limit = u32::try_from(written_prims * verts as u64)
        .map_err(|_| "more than 2^32 captured vertices in one draw".to_string())?;
    Ok(Some(Plan {
        addresses,
        words: d.words(draw.start, limit),
        written_prims,
        advance: advance
            .into_iter()
            .map(|(j, stride)| (j, limit * stride))
            .collect(),
    }))
}

/// After a capturing draw is recorded: the targets' write positions move past the captured
/// vertices, running queries count its primitives, and the batch is submitted, so that a later
/// draw or the CPU reading the buffers sees the stores (draws of one T8132 VDM batch have no
/// memory barrier between them: agx_streamout.c ends the batch after a capture).
///
/// # Safety
/// The bound targets must be live.
pub unsafe fn finish(ctx: &mut Context, screen: &crate::screen::Screen, plan: Plan) {
    for &(j, bytes) in &plan.advance {
        let t = &mut *(ctx.so.targets[j] as *mut Target);
        t.written = t.written.saturating_add(bytes);
        ctx.render.use_resource(t.base.buffer, true);
    }
    for &q in &ctx.so.queries {
        (*q).add_primitives(plan.written_prims);
    }
    ctx.render.flush(&screen.bo, &screen.programs, None);
}

unsafe extern "C" fn create_target(
    ctx: *mut sys::pipe_context,
    res: *mut sys::pipe_resource,
    buffer_offset: c_uint,
    buffer_size: c_uint,
) -> *mut sys::pipe_stream_output_target {
    guard("create_stream_output_target", null_mut(), || {
        let t = Box::into_raw(Box::new(Target {
            // SAFETY: plain C data; all-zero is "unset".
            base: std::mem::zeroed(),
            written: 0,
        }));
        sys::pipe_reference_init(&mut (*t).base.reference, 1);
        sys::pipe_resource_reference(&mut (*t).base.buffer, res);
        (*t).base.context = ctx;
        (*t).base.buffer_offset = buffer_offset;
        (*t).base.buffer_size = buffer_size;
        t as *mut sys::pipe_stream_output_target
    })
}

unsafe extern "C" fn destroy_target(
    _: *mut sys::pipe_context,
    t: *mut sys::pipe_stream_output_target,
) {
    guard("stream_output_target_destroy", (), || {
        sys::pipe_resource_reference(&mut (*t).buffer, null_mut());
        drop(Box::from_raw(t as *mut Target));
    })
}

/// Binds `n` targets; an offset of −1 appends where the target's captures left off (resume),
/// any other value sets the write position (st: 0 at glBeginTransformFeedback).
unsafe extern "C" fn set_targets(
    pctx: *mut sys::pipe_context,
    n: c_uint,
    targets: *mut *mut sys::pipe_stream_output_target,
    offsets: *const c_uint,
    _prim: sys::mesa_prim,
) {
    guard("set_stream_output_targets", (), || {
        let ctx = Context::get(pctx);
        ctx.so.release();
        for i in 0..n as usize {
            let t = *targets.add(i);
            if !t.is_null() && *offsets.add(i) != u32::MAX {
                (*(t as *mut Target)).written = *offsets.add(i);
            }
            let mut r = null_mut();
            sys::pipe_so_target_reference(&mut r, t);
            ctx.so.targets.push(r);
        }
    })
}

pub fn install_hooks(c: &mut sys::pipe_context) {
    c.create_stream_output_target = Some(create_target);
    c.stream_output_target_destroy = Some(destroy_target);
    c.set_stream_output_targets = Some(set_targets);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mesa's register index counts the written outputs below the location
    /// (st_program.c `get_stream_output_info_from_nir`): with POS, VAR0 and VAR2 written,
    /// register 2 is VAR2.
    #[test]
    fn stream_output_registers_resolve_to_locations() {
        // SAFETY: plain C data; all-zero is an empty description.
        let mut info: sys::pipe_stream_output_info = unsafe { std::mem::zeroed() };
        info.num_outputs = 2;
        info.stride = [3, 4, 0, 0];
        let o = &mut info.output[0];
        o.set_register_index(2);
        o.set_start_component(1);
        o.set_num_components(3);
        o.set_output_buffer(0);
        o.set_dst_offset(0);
        let o = &mut info.output[1];
        o.set_register_index(0);
        o.set_start_component(0);
        o.set_num_components(4);
        o.set_output_buffer(1);
        o.set_dst_offset(0);
        let written =
            1 << sys::VARYING_SLOT_POS | 1 << sys::VARYING_SLOT_VAR0 | 1 << sys::VARYING_SLOT_VAR2;
        let so = parse(&info, written).unwrap();
        assert_eq!(so.strides, [12, 16, 0, 0]);
        assert_eq!(so.buffers(), 2);
        assert_eq!(
            so.outputs,
            vec![
                Capture {
                    buffer: 0,
                    word: 0,
                    location: sys::VARYING_SLOT_VAR2,
                    comp: 1,
                    n: 3
                },
                Capture {
                    buffer: 1,
                    word: 0,
                    location: sys::VARYING_SLOT_POS,
                    comp: 0,
                    n: 4
                },
            ]
        );
        info.num_outputs = 0;
        assert_eq!(parse(&info, written), None);
    }

    /// What the capture NIR computes, on the CPU: the positions vertex k stores at.
    fn positions(d: &Decomposition, k: u32) -> Vec<u32> {
        let mut r = Vec::new();
        for j in d.jmin..d.jmax {
            if k >= j && k - j < d.plimit {
                let p = k - j;
                let c = if d.swap && p & 1 == 1 && j < 2 {
                    1 - j
                } else {
                    j
                };
                r.push(d.pmul * p + c);
            }
        }
        if k == 0 {
            r.extend((d.qstart..d.qend).map(|q| d.pmul * q + d.qcorner));
        }
        r
    }

    /// GL's decomposition (OpenGL ES 3.2 §12.1.1, Mesa draw_decompose_tmp.h with the last-vertex
    /// convention), written out primitive by primitive.
    fn gl_order(mode: sys::mesa_prim, n: u32) -> Vec<u32> {
        let mut v = Vec::new();
        match mode {
            sys::MESA_PRIM_POINTS => v.extend(0..n),
            sys::MESA_PRIM_LINES => v.extend(0..n / 2 * 2),
            sys::MESA_PRIM_TRIANGLES => v.extend(0..n / 3 * 3),
            sys::MESA_PRIM_LINE_STRIP | sys::MESA_PRIM_LINE_LOOP => {
                for i in 1..n {
                    v.extend([i - 1, i]);
                }
                if mode == sys::MESA_PRIM_LINE_LOOP && n >= 2 {
                    v.extend([n - 1, 0]);
                }
            }
            sys::MESA_PRIM_TRIANGLE_STRIP => {
                for i in 0..n.saturating_sub(2) {
                    if i % 2 == 0 {
                        v.extend([i, i + 1, i + 2]);
                    } else {
                        v.extend([i + 1, i, i + 2]);
                    }
                }
            }
            sys::MESA_PRIM_TRIANGLE_FAN => {
                for i in 0..n.saturating_sub(2) {
                    v.extend([0, i + 1, i + 2]);
                }
            }
            _ => unreachable!(),
        }
        v
    }

    /// Every vertex stores at exactly the positions GL's decomposition puts it, and the counts
    /// (primitives, records per instance) are the decomposition's.
    #[test]
    fn decomposition_places_every_vertex_where_gl_does() {
        for mode in [
            sys::MESA_PRIM_POINTS,
            sys::MESA_PRIM_LINES,
            sys::MESA_PRIM_TRIANGLES,
            sys::MESA_PRIM_LINE_STRIP,
            sys::MESA_PRIM_LINE_LOOP,
            sys::MESA_PRIM_TRIANGLE_STRIP,
            sys::MESA_PRIM_TRIANGLE_FAN,
        ] {
            for n in 0..12 {
                let d = decompose(mode, n).unwrap();
                let want = gl_order(mode, n);
                assert_eq!(want.len() as u32, d.prims * d.verts, "mode {mode} n {n}");
                let mut got = vec![u32::MAX; want.len()];
                for k in 0..n {
                    for p in positions(&d, k) {
                        assert_eq!(got[p as usize], u32::MAX, "mode {mode} n {n}: {p} twice");
                        got[p as usize] = k;
                    }
                }
                assert_eq!(got, want, "mode {mode} n {n}");
            }
        }
        assert!(decompose(sys::MESA_PRIM_QUADS, 4).is_err());
    }
}

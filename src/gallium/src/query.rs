//! Queries: occlusion (samples passed, any samples passed) counted by the GPU into 64-bit slots,
//! and transform feedback's primitives written, counted on the CPU (so.rs).
//!
//! Occlusion: every draw recorded while an occlusion query is active gets a slot of its own in
//! a context-wide slot buffer; the render's fragment state counts the samples that pass its
//! depth/stencil tests into that slot (agx16-draw `Draw::occlusion`; the model's counting rule:
//! sim/src/gfx/tiles.rs `write_occlusion`). A result is the sum of the query's slots once the
//! renders that wrote them have completed.

use crate::bo::{Bo, Heap};
use crate::context::Context;
use crate::ffi::guard;
use crate::screen::Screen;
use agx16_mesa_sys as sys;
use std::ffi::c_uint;
use std::ptr::null_mut;

/// Slots in the buffer: the occlusion index field holds 15 bits (agx16-cmdstream `ppp`); a
/// query that runs out folds its finished slots into its value after waiting for the GPU.
const SLOTS: u16 = 4096;

pub enum Query {
    /// GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN.
    PrimitivesWritten {
        value: u64,
    },
    Occlusion(Occlusion),
}

pub struct Occlusion {
    /// ANY_SAMPLES_PASSED(_CONSERVATIVE) rather than SAMPLES_PASSED.
    predicate: bool,
    /// Slots of draws whose counts are not yet in `value`.
    slots: Vec<u16>,
    value: u64,
}

impl Query {
    pub fn add_primitives(&mut self, n: u64) {
        if let Query::PrimitivesWritten { value } = self {
            *value += n;
        }
    }
}

/// The context's slot buffer, which query counts, and whether internal draws (the blitter's)
/// are running.
#[derive(Default)]
pub struct OcclusionState {
    buffer: Option<Bo>,
    free: Vec<u16>,
    active: Option<*mut Query>,
    paused: bool,
}

impl OcclusionState {
    pub fn release(&mut self, dev: &crate::bo::BoDevice) {
        if let Some(bo) = self.buffer.take() {
            dev.release(bo);
        }
    }
}

/// The slot buffer's address and a fresh, zeroed slot for the draw being recorded, when an
/// occlusion query is counting.
///
/// # Safety
/// `ctx` must be a live context; no render in flight may still use a free slot (slots are
/// freed only after the renders that wrote them completed).
pub unsafe fn draw_slot(ctx: &mut Context, screen: &Screen) -> Result<Option<(u64, u16)>, String> {
    let st = &mut ctx.occlusion;
    let (Some(q), false) = (st.active, st.paused) else {
        return Ok(None);
    };
    if st.buffer.is_none() {
        let bo = screen
            .bo
            .create(SLOTS as u64 * 8, Heap::Main)
            .map_err(|e| format!("occlusion slot buffer: {e}"))?;
        st.buffer = Some(bo);
        st.free = (0..SLOTS).rev().collect();
    }
    if st.free.is_empty() {
        // Every slot belongs to the active query (others fold theirs when read or restarted).
        fold(ctx, screen, q);
    }
    let st = &mut ctx.occlusion;
    let slot = st
        .free
        .pop()
        .ok_or("no free occlusion slot after folding")?;
    let bo = st.buffer.as_ref().unwrap();
    bo.bytes()[slot as usize * 8..][..8].fill(0);
    let Query::Occlusion(o) = &mut *q else {
        unreachable!("only occlusion queries become active")
    };
    o.slots.push(slot);
    Ok(Some((bo.va, slot)))
}

/// Submits the open batch and waits for every render, so the slots hold their final counts.
unsafe fn finish_renders(ctx: &mut Context, screen: &Screen) {
    ctx.render.flush(&screen.bo, &screen.programs, None);
    ctx.render.wait(&screen.bo);
}

/// Adds query `q`'s slot counts to its value and frees the slots (waiting for the GPU first).
unsafe fn fold(ctx: &mut Context, screen: &Screen, q: *mut Query) {
    let Query::Occlusion(o) = &mut *q else {
        return;
    };
    if o.slots.is_empty() {
        return;
    }
    finish_renders(ctx, screen);
    let st = &mut ctx.occlusion;
    let bytes = st.buffer.as_ref().unwrap().bytes();
    for s in o.slots.drain(..) {
        let at = s as usize * 8;
        o.value += u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        st.free.push(s);
    }
}

unsafe extern "C" fn create_query(
    _: *mut sys::pipe_context,
    kind: c_uint,
    index: c_uint,
) -> *mut sys::pipe_query {
    guard("create_query", null_mut(), || {
        let q = match kind {
            sys::PIPE_QUERY_PRIMITIVES_EMITTED if index == 0 => {
                Query::PrimitivesWritten { value: 0 }
            }
            sys::PIPE_QUERY_OCCLUSION_COUNTER
            | sys::PIPE_QUERY_OCCLUSION_PREDICATE
            | sys::PIPE_QUERY_OCCLUSION_PREDICATE_CONSERVATIVE => Query::Occlusion(Occlusion {
                predicate: kind != sys::PIPE_QUERY_OCCLUSION_COUNTER,
                slots: Vec::new(),
                value: 0,
            }),
            _ => {
                // st turns a null query into GL_OUT_OF_MEMORY at glBeginQuery.
                eprintln!("agx16: query type {kind} (stream {index}) is not supported");
                return null_mut();
            }
        };
        Box::into_raw(Box::new(q)) as *mut sys::pipe_query
    })
}

unsafe fn stop(ctx: &mut Context, q: *mut Query) {
    ctx.so.queries.retain(|&x| x != q);
    if ctx.occlusion.active == Some(q) {
        ctx.occlusion.active = None;
    }
}

unsafe extern "C" fn destroy_query(pctx: *mut sys::pipe_context, q: *mut sys::pipe_query) {
    guard("destroy_query", (), || {
        let ctx = Context::get(pctx);
        let q = q as *mut Query;
        stop(ctx, q);
        // Its slots may still be counted into by renders in flight.
        let screen = Screen::get(ctx.base.screen);
        fold(ctx, screen, q);
        drop(Box::from_raw(q));
    })
}

unsafe extern "C" fn begin_query(pctx: *mut sys::pipe_context, q: *mut sys::pipe_query) -> bool {
    guard("begin_query", false, || {
        let ctx = Context::get(pctx);
        let q = q as *mut Query;
        match &mut *q {
            Query::PrimitivesWritten { value } => {
                *value = 0;
                if !ctx.so.queries.contains(&q) {
                    ctx.so.queries.push(q);
                }
            }
            Query::Occlusion(_) => {
                let screen = Screen::get(ctx.base.screen);
                fold(ctx, screen, q);
                if let Query::Occlusion(o) = &mut *q {
                    o.value = 0;
                }
                // GL allows one active occlusion query per context.
                ctx.occlusion.active = Some(q);
            }
        }
        true
    })
}

unsafe extern "C" fn end_query(pctx: *mut sys::pipe_context, q: *mut sys::pipe_query) -> bool {
    guard("end_query", false, || {
        stop(Context::get(pctx), q as *mut Query);
        true
    })
}

unsafe extern "C" fn get_query_result(
    pctx: *mut sys::pipe_context,
    q: *mut sys::pipe_query,
    wait: bool,
    result: *mut sys::pipe_query_result,
) -> bool {
    guard("get_query_result", false, || {
        let ctx = Context::get(pctx);
        let q = q as *mut Query;
        match &*q {
            // Known when the capturing draws were recorded.
            Query::PrimitivesWritten { value } => (*result).u64_ = *value,
            Query::Occlusion(o) => {
                if !o.slots.is_empty() && !wait {
                    // Renders a fence wait (glFinish) saw complete are still listed until retired.
                    let screen = Screen::get(ctx.base.screen);
                    ctx.render.retire_completed(&screen.bo);
                }
                if !o.slots.is_empty() && !wait && (ctx.render.busy() || ctx.render.batch.is_some())
                {
                    // Submit what is recorded so that a later poll can succeed.
                    let screen = Screen::get(ctx.base.screen);
                    ctx.render.flush(&screen.bo, &screen.programs, None);
                    return false;
                }
                let screen = Screen::get(ctx.base.screen);
                fold(ctx, screen, q);
                let Query::Occlusion(o) = &*q else {
                    unreachable!()
                };
                if o.predicate {
                    (*result).b = o.value > 0;
                } else {
                    (*result).u64_ = o.value;
                }
            }
        }
        true
    })
}

/// Pauses counting around internal draws (util_blitter's), which GL does not count.
unsafe extern "C" fn set_active_query_state(pctx: *mut sys::pipe_context, enable: bool) {
    guard("set_active_query_state", (), || {
        Context::get(pctx).occlusion.paused = !enable;
    })
}

pub fn install_hooks(c: &mut sys::pipe_context) {
    c.create_query = Some(create_query);
    c.destroy_query = Some(destroy_query);
    c.begin_query = Some(begin_query);
    c.end_query = Some(end_query);
    c.get_query_result = Some(get_query_result);
    c.set_active_query_state = Some(set_active_query_state);
}

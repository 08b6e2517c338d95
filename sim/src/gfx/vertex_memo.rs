//! Results of vertex batches, kept per thread so that the same batch in the next render of a
//! job is not interpreted again.
//!
//! Why: agx16 draws a framebuffer larger than one utile whose tilebuffer is too large for the
//! utiles with an established tile index as one render per utile rectangle, each with every
//! draw of the batch (agx16-draw `build_renders`), so the model shades each draw's vertices
//! once per render (and a job may submit the same batch more than once). The vertex stage of
//! one draw is the same computation in every one of those renders.
//!
//! When a result may be reused: a vertex body is deterministic in its inputs, which are the
//! decoded body (the same `Rc` from [`super::body::Body::load_shared`] means the same VA and
//! code bytes), the launcher's argument words, the scratch base, the publication words, the
//! invocations' ids and output count, strict mode, and the bytes it reads from memory. The
//! memo keeps every byte the run read (as runs of adjacent bytes); a later batch with equal
//! inputs re-reads those bytes and reuses the outputs only when they are all the same, so a
//! vertex buffer or uniform block rewritten between renders is shaded again. (With the same
//! inputs and the same bytes at every address the kept run read, a new run would make the
//! same reads, in the same order, and compute the same outputs.)
//! Not kept: runs that failed, wrote memory (stores, scratch), read two values of one byte
//! (the memory changed under them), sampled textures (their
//! descriptor and texel paths have per-thread caches of their own) or ran with the
//! instruction trace on (the trace prints every instruction). The value rules a kept run
//! counted are counted again on each reuse, so job reports stay the same.

use super::body::Body;
use super::stages::VertexInvocation;
use crate::mem::{Fault, GpuMemory};
use crate::value_rules::{self, Counts};
use rustc_hash::FxHashMap;
use std::cell::{Cell, RefCell};
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// Entries kept per thread (cleared when full). A render of N draws needs N for the next
/// render to reuse them all.
const MEMO_MAX: usize = 1 << 15;

/// The inputs of a vertex batch other than memory.
pub(super) struct Inputs<'a> {
    pub body: &'a Rc<Body>,
    pub uniforms: &'a [u32],
    pub scratch: u32,
    pub publications: u32,
    pub invs: &'a [VertexInvocation],
}

struct Entry {
    body: Rc<Body>,
    uniforms: Box<[u32]>,
    scratch: u32,
    publications: u32,
    strict: bool,
    /// (vertex id, instance id, outputs) per invocation.
    ids: Box<[(u32, u32, usize)]>,
    /// The bytes the run read, as maximal runs of adjacent bytes: (VA, bytes), by VA.
    reads: Vec<(u64, Box<[u8]>)>,
    rules: Counts,
    outputs: Vec<Vec<f32>>,
}

impl Entry {
    fn same_inputs(&self, i: &Inputs, strict: bool) -> bool {
        Rc::ptr_eq(&self.body, i.body)
            && *self.uniforms == *i.uniforms
            && self.scratch == i.scratch
            && self.publications == i.publications
            && self.strict == strict
            && self.ids.len() == i.invs.len()
            && self
                .ids
                .iter()
                .zip(i.invs)
                .all(|(&(v, inst, n), x)| (v, inst, n) == (x.vertex_id, x.instance_id, x.outputs))
    }

    /// Whether every byte the kept run read is the same in `mem` now.
    fn reads_match(&self, mem: &dyn GpuMemory) -> bool {
        let mut now = Vec::new();
        self.reads.iter().all(|(va, bytes)| {
            now.resize(bytes.len(), 0);
            mem.read(*va, &mut now).is_ok() && now[..] == bytes[..]
        })
    }
}

/// The bytes read, (VA, value) in read order, as maximal runs of adjacent bytes by VA; `None`
/// when two reads of one byte gave different values (the memory changed during the run).
fn spans(mut bytes: Vec<(u64, u8)>) -> Option<Vec<(u64, Box<[u8]>)>> {
    bytes.sort_unstable();
    bytes.dedup();
    let mut out: Vec<(u64, Vec<u8>)> = Vec::new();
    for (k, &(va, x)) in bytes.iter().enumerate() {
        if k > 0 && bytes[k - 1].0 == va {
            return None;
        }
        match out.last_mut() {
            Some((start, run)) if start.wrapping_add(run.len() as u64) == va => run.push(x),
            _ => out.push((va, vec![x])),
        }
    }
    Some(out.into_iter().map(|(va, b)| (va, b.into())).collect())
}

#[derive(Default)]
struct Memo {
    entries: FxHashMap<u64, Vec<Entry>>,
    len: usize,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

fn key(i: &Inputs) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    i.body.va.hash(&mut h);
    i.uniforms.hash(&mut h);
    (i.scratch, i.publications).hash(&mut h);
    for x in i.invs {
        (x.vertex_id, x.instance_id, x.outputs).hash(&mut h);
    }
    h.finish()
}

/// Whether batches may be kept at all on this run (not while tracing).
pub(super) fn enabled() -> bool {
    static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    !*TRACE.get_or_init(|| std::env::var_os("AGX16_SIM_TRACE").is_some())
}

/// The outputs of a kept run with these inputs whose reads all give the same bytes now;
/// its value-rule uses are counted again.
pub(super) fn reuse(mem: &dyn GpuMemory, i: &Inputs) -> Option<Vec<Vec<f32>>> {
    let strict = value_rules::strict();
    MEMO.with(|m| {
        let m = m.borrow();
        let e = m
            .entries
            .get(&key(i))?
            .iter()
            .find(|e| e.same_inputs(i, strict))?;
        if !e.reads_match(mem) {
            return None;
        }
        value_rules::count(&e.rules);
        Some(e.outputs.clone())
    })
}

/// Keeps a successful run that `rec` saw read memory (and never write it).
pub(super) fn keep(i: &Inputs, rec: Recording, rules: Counts, outputs: &[Vec<f32>]) {
    if rec.wrote.get() || rec.other.get() {
        return;
    }
    let Some(reads) = spans(rec.bytes.into_inner()) else {
        return;
    };
    let strict = value_rules::strict();
    let entry = Entry {
        body: i.body.clone(),
        uniforms: i.uniforms.into(),
        scratch: i.scratch,
        publications: i.publications,
        strict,
        ids: i
            .invs
            .iter()
            .map(|x| (x.vertex_id, x.instance_id, x.outputs))
            .collect(),
        reads,
        rules,
        outputs: outputs.to_vec(),
    };
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.len >= MEMO_MAX {
            m.entries.clear();
            m.len = 0;
        }
        let list = m.entries.entry(key(i)).or_default();
        // one entry per set of inputs: the newest reads replace the older ones
        list.retain(|e| !e.same_inputs(i, strict));
        list.push(entry);
        m.len += 1;
    });
}

/// Memory as a vertex batch sees it, with every read kept (see the module doc).
pub(super) struct Recording<'a> {
    mem: &'a dyn GpuMemory,
    /// Every byte read: (VA, value).
    bytes: RefCell<Vec<(u64, u8)>>,
    wrote: Cell<bool>,
    /// The run did something the memo does not keep (a texture sample).
    pub(super) other: Cell<bool>,
}

impl<'a> Recording<'a> {
    pub(super) fn new(mem: &'a dyn GpuMemory) -> Self {
        Recording {
            mem,
            bytes: RefCell::new(Vec::new()),
            wrote: Cell::new(false),
            other: Cell::new(false),
        }
    }
}

impl GpuMemory for Recording<'_> {
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), Fault> {
        self.mem.read(va, out)?;
        let mut b = self.bytes.borrow_mut();
        b.extend(
            out.iter()
                .enumerate()
                .map(|(k, &x)| (va.wrapping_add(k as u64), x)),
        );
        Ok(())
    }
    fn write(&self, va: u64, data: &[u8]) -> Result<(), Fault> {
        self.wrote.set(true);
        self.mem.write(va, data)
    }
    fn read_lanes(
        &self,
        addrs: &[u64; 32],
        mask: u32,
        size: usize,
        out: &mut [u32; 32],
    ) -> Result<(), Fault> {
        self.mem.read_lanes(addrs, mask, size, out)?;
        let mut b = self.bytes.borrow_mut();
        for l in (0..32).filter(|l| mask >> l & 1 != 0) {
            let v = out[l].to_le_bytes();
            b.extend((0..size.min(4)).map(|k| (addrs[l].wrapping_add(k as u64), v[k])));
        }
        Ok(())
    }
    fn write_lanes(
        &self,
        addrs: &[u64; 32],
        mask: u32,
        size: usize,
        vals: &[u32; 32],
    ) -> Result<(), Fault> {
        self.wrote.set(true);
        self.mem.write_lanes(addrs, mask, size, vals)
    }
}

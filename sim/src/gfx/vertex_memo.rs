//! Results of vertex batches, kept per thread so that the same batch in the next render of a
//! job is not interpreted again.
//!
//! Why: agx16 draws a framebuffer larger than one utile as one render per utile rectangle,
//! each with every draw of the batch (agx16-draw `build_renders`), so the model shades each
//! draw's vertices once per render (four times for a 64x64 RGBA8 target). The vertex stage of
//! one draw is the same computation in every one of those renders.
//!
//! When a result may be reused: a vertex body is deterministic in its inputs, which are the
//! decoded body (the same `Rc` from [`super::body::Body::load_shared`] means the same VA and
//! code bytes), the launcher's argument words, the scratch base, the publication words, the
//! invocations' ids and output count, strict mode, and the bytes it reads from memory. The
//! memo keeps every read's address and bytes; a later batch with equal inputs re-reads those
//! addresses (in the same order, through the same [`GpuMemory`]) and reuses the outputs only
//! when every read gives the same bytes, so a vertex buffer or uniform block rewritten
//! between renders is shaded again. The first read that differs is the first point where the
//! two runs could diverge; before it they are the same computation.
//! Not kept: runs that failed, wrote memory (stores, scratch), sampled textures (their
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

/// One memory read of a kept run: a byte read or one lane load.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Read {
    Bytes {
        va: u64,
        bytes: Box<[u8]>,
    },
    /// `read_lanes` of `size` bytes: (address, value) of each lane of `mask`, lowest first.
    Lanes {
        mask: u32,
        size: u8,
        lanes: Box<[(u64, u32)]>,
    },
}

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
    reads: Vec<Read>,
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

    /// Whether every read of the kept run gives the same bytes from `mem` now.
    fn reads_match(&self, mem: &dyn GpuMemory) -> bool {
        self.reads.iter().all(|r| match r {
            Read::Bytes { va, bytes } => {
                let mut now = vec![0u8; bytes.len()];
                mem.read(*va, &mut now).is_ok() && now[..] == bytes[..]
            }
            Read::Lanes { mask, size, lanes } => {
                let mut addrs = [0u64; 32];
                let mut want = [0u32; 32];
                let mut it = lanes.iter();
                for l in 0..32 {
                    if mask >> l & 1 != 0 {
                        let Some(&(a, v)) = it.next() else {
                            return false;
                        };
                        (addrs[l], want[l]) = (a, v);
                    }
                }
                let mut now = [0u32; 32];
                mem.read_lanes(&addrs, *mask, *size as usize, &mut now)
                    .is_ok()
                    && (0..32).all(|l| mask >> l & 1 == 0 || now[l] == want[l])
            }
        })
    }
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
        reads: rec.reads.into_inner(),
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
    reads: RefCell<Vec<Read>>,
    wrote: Cell<bool>,
    /// The run did something the memo does not keep (a texture sample).
    pub(super) other: Cell<bool>,
}

impl<'a> Recording<'a> {
    pub(super) fn new(mem: &'a dyn GpuMemory) -> Self {
        Recording {
            mem,
            reads: RefCell::new(Vec::new()),
            wrote: Cell::new(false),
            other: Cell::new(false),
        }
    }
}

impl GpuMemory for Recording<'_> {
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), Fault> {
        self.mem.read(va, out)?;
        self.reads.borrow_mut().push(Read::Bytes {
            va,
            bytes: out.into(),
        });
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
        let lanes = (0..32)
            .filter(|l| mask >> l & 1 != 0)
            .map(|l| (addrs[l], out[l]))
            .collect();
        self.reads.borrow_mut().push(Read::Lanes {
            mask,
            size: size as u8,
            lanes,
        });
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

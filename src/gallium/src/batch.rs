//! Batches per framebuffer: the context records draws and clears for the bound framebuffer into
//! an `agx16_draw::Batch`; a flush (explicit, on a framebuffer change, or before the CPU touches
//! a resource the batch uses) builds the render with agx16-draw into BOs of this batch, submits
//! it on the context's render queue with a syncobj out-fence, and keeps the BOs and resource
//! references until that syncobj signals.

use crate::bo::{asahi, Bo, BoDevice, Heap};
use crate::fence::{syncobj_create, syncobj_destroy, syncobj_wait};
use agx16_draw::{build_renders, Batch, DrawError, G16Tiles, GpuWriter, Heap as DrawHeap};
use agx16_kernel::uapi::asahi as a;
use agx16_mesa_sys as sys;
use std::collections::BTreeSet;
use std::ptr::null_mut;

/// Sub-allocation granule: each heap's BOs are at least this large.
const POOL_BYTES: u64 = 64 << 10;

fn bo_heap(h: DrawHeap) -> Heap {
    match h {
        DrawHeap::RenderContext => Heap::RenderContext,
        DrawHeap::Usc => Heap::Usc,
        DrawHeap::General => Heap::Main,
    }
}

/// GPU memory over BOs, bump-allocated per heap. Holds its BOs until `release`.
pub struct BoMemory {
    bos: Vec<Bo>,
    /// Per heap: index of the BO being filled and its fill level.
    current: Vec<(Heap, usize, u64)>,
}

impl BoMemory {
    pub fn new() -> BoMemory {
        BoMemory {
            bos: Vec::new(),
            current: Vec::new(),
        }
    }

    /// Adopts an existing BO (the entry arena) so writes into it work.
    pub fn adopt(&mut self, bo: Bo) {
        self.bos.push(bo);
    }

    pub fn alloc_in(
        &mut self,
        dev: &BoDevice,
        heap: Heap,
        size: u64,
        align: u64,
    ) -> Result<u64, DrawError> {
        if let Some((_, i, used)) = self.current.iter_mut().find(|c| c.0 == heap) {
            let bo = &self.bos[*i];
            let at = used.next_multiple_of(align);
            if at + size <= bo.size {
                *used = at + size;
                return Ok(bo.va + at);
            }
        }
        let bo = dev
            .create(size.max(POOL_BYTES), heap)
            .map_err(|e| DrawError::Memory(e.to_string()))?;
        let va = bo.va;
        self.bos.push(bo);
        let i = self.bos.len() - 1;
        self.current.retain(|c| c.0 != heap);
        self.current.push((heap, i, size));
        Ok(va)
    }

    pub fn write_at(&mut self, va: u64, data: &[u8]) -> Result<(), DrawError> {
        let bo = self
            .bos
            .iter()
            .find(|b| va >= b.va && va + data.len() as u64 <= b.va + b.size)
            .ok_or_else(|| {
                DrawError::Memory(format!("write at {va:#x} outside this batch's BOs"))
            })?;
        // SAFETY: the BO is ours and no GPU work uses it until the batch is submitted.
        unsafe {
            let at = (va - bo.va) as usize;
            bo.bytes()[at..at + data.len()].copy_from_slice(data);
        }
        Ok(())
    }

    /// Gives every BO back to the device (cache or free).
    pub fn release(self, dev: &BoDevice) {
        for bo in self.bos {
            dev.release(bo);
        }
    }
}

/// `GpuWriter` for one build: the memory plus the device it allocates from.
pub struct Writer<'a> {
    pub dev: &'a BoDevice,
    pub mem: &'a mut BoMemory,
}

impl GpuWriter for Writer<'_> {
    fn alloc(&mut self, heap: DrawHeap, size: u64, align: u64) -> Result<u64, DrawError> {
        self.mem.alloc_in(self.dev, bo_heap(heap), size, align)
    }
    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), DrawError> {
        self.mem.write_at(va, data)
    }
}

/// A submitted render and what must live until it completes.
struct Submitted {
    syncobj: u32,
    /// Draws of the render (what is lost when the job fails).
    draws: u64,
    mem: BoMemory,
    resources: Vec<*mut sys::pipe_resource>,
    /// The programs its draws launch: a deleted CSO's program is reused only after this
    /// render completes ([`ProgramStore::retire`]).
    _programs: Vec<RetiredToken>,
}

/// One reference to each program the batch's draws launch.
fn programs_of(batch: &Batch) -> Vec<RetiredToken> {
    let mut seen = BTreeSet::new();
    let mut out: Vec<RetiredToken> = Vec::new();
    for d in &batch.draws {
        if seen.insert(std::sync::Arc::as_ptr(&d.vs) as *const u8 as usize) {
            out.push(d.vs.clone());
        }
        if seen.insert(std::sync::Arc::as_ptr(&d.fs) as *const u8 as usize) {
            out.push(d.fs.clone());
        }
    }
    out
}

/// The context's render state: the open batch and the renders in flight.
pub struct Renderer {
    queue: u32,
    pub batch: Option<Batch>,
    /// The open batch's GPU memory (client index data is uploaded at draw time).
    pub mem: Option<BoMemory>,
    /// Resources the open batch uses (one reference each) and the BO handles it writes.
    resources: Vec<*mut sys::pipe_resource>,
    handles_read: BTreeSet<u32>,
    handles_written: BTreeSet<u32>,
    in_flight: Vec<Submitted>,
    /// Draws recorded but not rendered (refused at draw time or in a failed render).
    pub dropped_draws: u64,
    pub submitted: u64,
    reported: BTreeSet<String>,
    /// The application's KHR_debug callback (`pipe_context::set_debug_callback`; no function
    /// when debug output is off) and the message id Mesa assigns on first use.
    pub debug: sys::util_debug_callback,
    debug_id: std::ffi::c_uint,
    /// Renders the kernel failed (a GPU fault, the job watchdog, a refused encoding).
    pub failed_jobs: u64,
    /// A failure not yet reported through `get_device_reset_status` (contexts without a
    /// reset callback).
    pub reset_pending: bool,
    /// st's reset callback (`set_device_reset_callback`, installed for contexts made with
    /// LOSE_CONTEXT_ON_RESET): told at once when a render of this context fails.
    pub reset_callback: Option<sys::pipe_device_reset_callback>,
}

impl Renderer {
    pub fn new() -> Renderer {
        Renderer {
            queue: 0,
            batch: None,
            mem: None,
            resources: Vec::new(),
            handles_read: BTreeSet::new(),
            handles_written: BTreeSet::new(),
            in_flight: Vec::new(),
            dropped_draws: 0,
            submitted: 0,
            reported: BTreeSet::new(),
            // SAFETY: plain C data; all-zero is "no callback".
            debug: unsafe { std::mem::zeroed() },
            debug_id: 0,
            failed_jobs: 0,
            reset_pending: false,
            reset_callback: None,
        }
    }

    /// Learns how a completed render ended: a failed job loses its draws (KHR_debug message,
    /// stderr once per reason) and is a guilty context reset for this context (reported by
    /// `get_device_reset_status`, or at once through st's reset callback). The queue keeps
    /// running: later renders of a context that ignores resets draw as before.
    fn check_completed(&mut self, dev: &BoDevice, s: &Submitted) {
        match crate::fence::syncobj_error(dev.uapi(), s.syncobj) {
            Ok(None) => {}
            Ok(Some(errno)) => {
                self.failed_jobs += 1;
                let why = match errno {
                    libc::ETIMEDOUT => "timed out (the kernel's job watchdog stopped it)",
                    libc::EIO => "failed: GPU fault or a refused encoding (EIO)",
                    libc::EINVAL => "failed: command stream refused (EINVAL)",
                    libc::ECANCELED => "cancelled (its queue went away)",
                    _ => "failed",
                };
                self.drop_draws(
                    s.draws,
                    &format!("a render of {} draw(s) {why}; its draws are lost", s.draws),
                );
                match self.reset_callback {
                    // SAFETY: st's callback and data, valid for the context's life.
                    Some(cb) => {
                        if let Some(f) = cb.reset {
                            unsafe { f(cb.data, sys::PIPE_GUILTY_CONTEXT_RESET) }
                        }
                    }
                    None => self.reset_pending = true,
                }
            }
            Err(e) => self.report(&format!("cannot read how a render ended: {e}")),
        }
    }

    /// Prints a failure once per distinct message (a frame loop would repeat it forever).
    pub fn report(&mut self, what: &str) {
        if self.reported.insert(what.to_string()) {
            eprintln!("agx16: {what}");
        }
    }

    /// Counts `draws` draws that are not rendered (0 for a lost clear or a render that failed
    /// on the GPU): stderr once per distinct reason ([`report`]) and, every time, a KHR_debug
    /// error message to the application when it listens.
    ///
    /// [`report`]: Renderer::report
    pub fn drop_draws(&mut self, draws: u64, why: &str) {
        self.dropped_draws += draws;
        self.report(why);
        if self.debug.debug_message.is_some() {
            let msg = std::ffi::CString::new(format!("agx16: {why}").replace('\0', ""))
                .unwrap_or_default();
            // SAFETY: `debug` is the callback st handed over (it outlives its context's
            // draws); "%s" takes the one string argument.
            unsafe {
                sys::_util_debug_message(
                    &mut self.debug,
                    &mut self.debug_id,
                    sys::UTIL_DEBUG_TYPE_ERROR,
                    c"%s".as_ptr(),
                    msg.as_ptr(),
                )
            };
        }
    }

    /// Records that the open batch uses `res` (a reference is held until the render completes).
    ///
    /// # Safety
    /// `res` must be a live agx16 resource.
    pub unsafe fn use_resource(&mut self, res: *mut sys::pipe_resource, write: bool) {
        let r = crate::resource::Resource::get(res);
        let handle = r.bo().handle;
        let new = if write {
            self.handles_written.insert(handle)
        } else {
            self.handles_read.insert(handle)
        };
        if new {
            let mut held = null_mut();
            sys::pipe_resource_reference(&mut held, res);
            self.resources.push(held);
        }
    }

    /// Does the open batch use this BO (writes only, or reads too)?
    pub fn batch_uses(&self, handle: u32, reads_too: bool) -> bool {
        self.handles_written.contains(&handle) || (reads_too && self.handles_read.contains(&handle))
    }

    fn queue(&mut self, dev: &BoDevice) -> std::io::Result<u32> {
        if self.queue == 0 {
            let mut q = a::QueueCreate {
                vm_id: dev.vm_id,
                priority: a::PRIORITY_MEDIUM,
                usc_exec_base: crate::bo::USC_BASE,
                ..Default::default()
            };
            asahi(dev.uapi(), a::QUEUE_CREATE, &mut q)?;
            self.queue = q.queue_id;
        }
        Ok(self.queue)
    }

    /// Builds and submits the open batch. With `fence_syncobj`, that syncobj is signalled
    /// with the submission too (the caller's fence); returns whether one was submitted.
    pub fn flush(
        &mut self,
        dev: &BoDevice,
        programs: &std::sync::Mutex<ProgramStore>,
        fence_syncobj: Option<u32>,
    ) -> bool {
        let Some(batch) = self.batch.take() else {
            return false;
        };
        let mut mem = self.mem.take().unwrap_or_else(BoMemory::new);
        let resources = std::mem::take(&mut self.resources);
        self.handles_read.clear();
        self.handles_written.clear();
        if batch.is_empty() {
            mem.release(dev);
            release_resources(resources);
            return false;
        }
        let result = programs.lock().unwrap().with_tiles(dev, |tiles| {
            let mut w = Writer { dev, mem: &mut mem };
            build_renders(&batch, tiles, &mut w)
        });
        let built: Vec<agx16_draw::BuiltRender> = match result {
            Ok(b) => b,
            Err(e) => {
                self.drop_draws(
                    batch.draws.len() as u64,
                    &format!("render of {} draw(s) not submitted: {e}", batch.draws.len()),
                );
                mem.release(dev);
                release_resources(resources);
                return false;
            }
        };
        match self.submit(dev, &built, fence_syncobj) {
            Ok(syncobj) => {
                self.submitted += 1;
                self.in_flight.push(Submitted {
                    syncobj,
                    draws: batch.draws.len() as u64,
                    mem,
                    resources,
                    _programs: programs_of(&batch),
                });
                true
            }
            Err(e) => {
                self.drop_draws(
                    batch.draws.len() as u64,
                    &format!(
                        "SUBMIT of a render of {} draw(s) failed: {e}",
                        batch.draws.len()
                    ),
                );
                mem.release(dev);
                release_resources(resources);
                false
            }
        }
    }

    /// Submits the renders in order (at most the kernel's 64 commands per SUBMIT); the last
    /// submission signals the returned syncobj and the fence's (the queue runs in order).
    fn submit(
        &mut self,
        dev: &BoDevice,
        built: &[agx16_draw::BuiltRender],
        fence_syncobj: Option<u32>,
    ) -> Result<u32, String> {
        let queue = self.queue(dev).map_err(|e| format!("QUEUE_CREATE: {e}"))?;
        let chunks: Vec<&[agx16_draw::BuiltRender]> = built.chunks(64).collect();
        for (n, chunk) in chunks.iter().enumerate() {
            let mut cmdbuf = Vec::new();
            for b in chunk.iter() {
                let payload = b.payload().map_err(|e| e.to_string())?;
                let header = a::CmdHeader {
                    cmd_type: a::CMD_RENDER,
                    size: payload.len() as u16,
                    vdm_barrier: a::BARRIER_NONE,
                    cdm_barrier: a::BARRIER_NONE,
                };
                cmdbuf.extend(bytemuck::bytes_of(&header));
                cmdbuf.extend(&payload);
            }
            if n + 1 < chunks.len() {
                let mut s = a::Submit {
                    cmdbuf: cmdbuf.as_ptr() as u64,
                    queue_id: queue,
                    cmdbuf_size: cmdbuf.len() as u32,
                    ..Default::default()
                };
                asahi(dev.uapi(), a::SUBMIT, &mut s).map_err(|e| e.to_string())?;
                continue;
            }
            return self.submit_last(dev, queue, &cmdbuf, fence_syncobj);
        }
        Err("no render to submit".into())
    }

    fn submit_last(
        &mut self,
        dev: &BoDevice,
        queue: u32,
        cmdbuf: &[u8],
        fence_syncobj: Option<u32>,
    ) -> Result<u32, String> {
        let syncobj =
            syncobj_create(dev.uapi(), false).map_err(|e| format!("SYNCOBJ_CREATE: {e}"))?;
        let mut syncs = vec![a::Sync {
            sync_type: a::SYNC_SYNCOBJ,
            handle: syncobj,
            timeline_value: 0,
        }];
        if let Some(f) = fence_syncobj {
            syncs.push(a::Sync {
                sync_type: a::SYNC_SYNCOBJ,
                handle: f,
                timeline_value: 0,
            });
        }
        let mut s = a::Submit {
            syncs: syncs.as_ptr() as u64,
            cmdbuf: cmdbuf.as_ptr() as u64,
            queue_id: queue,
            in_sync_count: 0,
            out_sync_count: syncs.len() as u32,
            cmdbuf_size: cmdbuf.len() as u32,
            ..Default::default()
        };
        if let Err(e) = asahi(dev.uapi(), a::SUBMIT, &mut s) {
            syncobj_destroy(dev.uapi(), syncobj);
            return Err(e.to_string());
        }
        Ok(syncobj)
    }

    /// Waits for every render in flight (all of them, or only until none touches `handle`)
    /// and frees what they held.
    pub fn wait(&mut self, dev: &BoDevice) {
        for s in std::mem::take(&mut self.in_flight) {
            match syncobj_wait(dev.uapi(), s.syncobj, u64::MAX) {
                Ok(_) => self.check_completed(dev, &s),
                Err(e) => self.drop_draws(s.draws, &format!("waiting for a render failed: {e}")),
            }
            retire(dev, s);
        }
    }

    /// Frees renders that have completed, without blocking.
    pub fn retire_completed(&mut self, dev: &BoDevice) {
        let mut pending = Vec::new();
        for s in std::mem::take(&mut self.in_flight) {
            match syncobj_wait(dev.uapi(), s.syncobj, 0) {
                Ok(true) => {
                    self.check_completed(dev, &s);
                    retire(dev, s);
                }
                _ => pending.push(s),
            }
        }
        self.in_flight = pending;
    }

    pub fn busy(&self) -> bool {
        !self.in_flight.is_empty()
    }

    /// Context destruction: submit nothing more, wait for everything, destroy the queue.
    pub fn destroy(&mut self, dev: &BoDevice) {
        // st is going away (its debug state may already be freed): failures found now go to
        // stderr only.
        self.reset_callback = None;
        // SAFETY: plain C data; all-zero is "no callback".
        self.debug = unsafe { std::mem::zeroed() };
        if let Some(b) = self.batch.take() {
            self.dropped_draws += b.draws.len() as u64;
        }
        if let Some(m) = self.mem.take() {
            m.release(dev);
        }
        release_resources(std::mem::take(&mut self.resources));
        self.wait(dev);
        if self.queue != 0 {
            let mut d = a::QueueDestroy {
                queue_id: self.queue,
                pad: 0,
            };
            if let Err(e) = asahi(dev.uapi(), a::QUEUE_DESTROY, &mut d) {
                eprintln!("agx16: QUEUE_DESTROY: {e}");
            }
            self.queue = 0;
        }
    }
}

fn retire(dev: &BoDevice, s: Submitted) {
    syncobj_destroy(dev.uapi(), s.syncobj);
    s.mem.release(dev);
    release_resources(s.resources);
}

fn release_resources(list: Vec<*mut sys::pipe_resource>) {
    for mut r in list {
        // SAFETY: each entry holds one reference taken by `use_resource`.
        unsafe { sys::pipe_resource_reference(&mut r, null_mut()) };
    }
}

/// The device's programs: the entry arena at the bottom of the USC aperture and the bodies
/// behind its entries. A program lives until its CSO is deleted and the last render that
/// launched it has completed ([`ProgramStore::retire`]); then its entry block and body memory
/// are reused. Everything is released at screen destruction.
pub struct ProgramStore {
    pub arena: agx16_draw::EntryArena,
    pub mem: BoMemory,
    /// Body memory: USC BOs (owned by `mem`) with the free ranges inside each.
    pools: Vec<(u64, u64, crate::va::VaHeap)>,
    pub tiles: agx16_draw::TileCache,
    /// Programs whose CSO is gone, with a reference that tells when no batch or render in
    /// flight holds them any more (the count falls to this one).
    retired: Vec<(RetiredToken, agx16_draw::ShaderBody)>,
    ready: bool,
}

/// A reference to a retired program (vertex or fragment) kept only for its count.
pub type RetiredToken = std::sync::Arc<dyn std::any::Any + Send + Sync>;

/// Body memory comes in BOs of at least this many bytes.
const BODY_POOL_BYTES: u64 = 256 << 10;

/// `GpuWriter` over the program store: body memory from reusable pools, the rest (the entry
/// arena's writes) through the store's BOs.
struct ProgramWriter<'a> {
    dev: &'a BoDevice,
    mem: &'a mut BoMemory,
    pools: &'a mut Vec<(u64, u64, crate::va::VaHeap)>,
}

impl GpuWriter for ProgramWriter<'_> {
    fn alloc(&mut self, heap: DrawHeap, size: u64, align: u64) -> Result<u64, DrawError> {
        if heap != DrawHeap::Usc {
            return self.mem.alloc_in(self.dev, bo_heap(heap), size, align);
        }
        if let Some(va) = self.pools.iter_mut().find_map(|p| p.2.alloc(size, align)) {
            return Ok(va);
        }
        let bo = self
            .dev
            .create(size.max(BODY_POOL_BYTES), Heap::Usc)
            .map_err(|e| DrawError::Memory(e.to_string()))?;
        let (va, len) = (bo.va, bo.size);
        self.mem.adopt(bo);
        let mut heap = crate::va::VaHeap::new(va, len);
        let at = heap.alloc(size, align).ok_or_else(|| {
            DrawError::Memory(format!("a {size}-byte body does not fit a new pool"))
        })?;
        self.pools.push((va, len, heap));
        Ok(at)
    }
    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), DrawError> {
        self.mem.write_at(va, data)
    }
    fn free(&mut self, heap: DrawHeap, va: u64, size: u64) {
        if heap != DrawHeap::Usc {
            return;
        }
        if let Some(p) = self
            .pools
            .iter_mut()
            .find(|p| va >= p.0 && va + size <= p.0 + p.1)
        {
            p.2.free(va, size);
        }
    }
}

impl ProgramStore {
    pub fn new() -> ProgramStore {
        ProgramStore {
            arena: agx16_draw::EntryArena::new(arena_bytes()),
            mem: BoMemory::new(),
            pools: Vec::new(),
            tiles: agx16_draw::TileCache::default(),
            retired: Vec::new(),
            ready: false,
        }
    }

    /// Runs `f` with the G16 tile programs over this store (bodies and entries go here).
    pub fn with_tiles<T>(
        &mut self,
        dev: &BoDevice,
        f: impl FnOnce(&mut G16Tiles) -> Result<T, DrawError>,
    ) -> Result<T, DrawError> {
        self.ready(dev)?;
        let mut w = ProgramWriter {
            dev,
            mem: &mut self.mem,
            pools: &mut self.pools,
        };
        let mut tiles = G16Tiles {
            cache: &mut self.tiles,
            arena: &mut self.arena,
            programs: &mut w,
        };
        f(&mut tiles)
    }

    /// Places the entry arena at `USC_BASE` (stage targets are USC offsets) on first use.
    fn ready(&mut self, dev: &BoDevice) -> Result<(), DrawError> {
        if self.ready {
            return Ok(());
        }
        let bo = dev
            .create(agx16_draw::EntryArena::DEFAULT_BYTES, Heap::UscFixed)
            .map_err(|e| DrawError::Memory(e.to_string()))?;
        let va = bo.va;
        self.mem.adopt(bo);
        if va != crate::bo::USC_BASE {
            return Err(DrawError::Memory(format!(
                "the entry arena landed at {va:#x}, not at the USC base"
            )));
        }
        self.mem
            .write_at(va, &agx16_draw::EntryArena::directory()?)?;
        self.ready = true;
        Ok(())
    }

    /// Uploads a body and gives it an entry (after reclaiming what retired programs no
    /// longer need).
    pub fn add_body(
        &mut self,
        dev: &BoDevice,
        code: &[u8],
    ) -> Result<agx16_draw::ShaderBody, DrawError> {
        self.ready(dev)?;
        self.sweep(dev);
        let mut w = ProgramWriter {
            dev,
            mem: &mut self.mem,
            pools: &mut self.pools,
        };
        self.arena.add_body(&mut w, code)
    }

    /// A deleted CSO's program: its entry and body are reused once `token` is the last
    /// reference (no open batch and no render in flight holds the program).
    pub fn retire(&mut self, token: RetiredToken, body: agx16_draw::ShaderBody) {
        self.retired.push((token, body));
    }

    /// Frees the retired programs nothing holds any more.
    fn sweep(&mut self, dev: &BoDevice) {
        let mut w = ProgramWriter {
            dev,
            mem: &mut self.mem,
            pools: &mut self.pools,
        };
        let arena = &mut self.arena;
        self.retired.retain(|(token, body)| {
            if std::sync::Arc::strong_count(token) > 1 {
                return true;
            }
            arena.remove_body(&mut w, body);
            false
        });
    }

    pub fn release(&mut self, dev: &BoDevice) {
        std::mem::replace(&mut self.mem, BoMemory::new()).release(dev);
        self.pools.clear();
        self.retired.clear();
        self.tiles = agx16_draw::TileCache::default();
        self.arena = agx16_draw::EntryArena::new(arena_bytes());
        self.ready = false;
    }
}

/// The entry arena's size: the whole 8 MiB, or less with `AGX16_ENTRY_ARENA_BYTES` (tests
/// that check block reuse run past a small arena quickly).
fn arena_bytes() -> u64 {
    std::env::var("AGX16_ENTRY_ARENA_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(agx16_draw::EntryArena::DEFAULT_BYTES)
}

#[cfg(all(test, target_arch = "x86_64"))]
mod debug_tests {
    use super::*;
    use std::ffi::{c_char, c_uint, c_void, CStr};

    extern "C" {
        fn vsnprintf(
            s: *mut c_char,
            n: usize,
            fmt: *const c_char,
            ap: *mut sys::__va_list_tag,
        ) -> i32;
    }

    /// Stands in for Mesa's `_debug_message` (main/debug_output.c): formats the message as
    /// it does and keeps it with its type.
    unsafe extern "C" fn collect(
        data: *mut c_void,
        _id: *mut c_uint,
        ty: sys::util_debug_type,
        fmt: *const c_char,
        args: *mut sys::__va_list_tag,
    ) {
        let mut buf = [0 as c_char; 512];
        vsnprintf(buf.as_mut_ptr(), buf.len(), fmt, args);
        let text = CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
        (*(data as *mut Vec<(sys::util_debug_type, String)>)).push((ty, text));
    }

    #[test]
    fn dropped_draws_reach_the_debug_callback_every_time() {
        let mut got: Vec<(sys::util_debug_type, String)> = Vec::new();
        let mut r = Renderer::new();
        // Without a callback (debug output off) only the count and stderr see it.
        r.drop_draws(1, "draw not executed: primitive type 99");
        assert!(got.is_empty());
        r.debug = sys::util_debug_callback {
            async_: false,
            debug_message: Some(collect),
            data: &mut got as *mut _ as *mut c_void,
        };
        r.drop_draws(2, "render of 2 draw(s) not submitted: 100% of a test");
        r.drop_draws(2, "render of 2 draw(s) not submitted: 100% of a test");
        r.drop_draws(0, "clear not executed: x");
        assert_eq!(r.dropped_draws, 5);
        let want = [
            "agx16: render of 2 draw(s) not submitted: 100% of a test",
            "agx16: render of 2 draw(s) not submitted: 100% of a test",
            "agx16: clear not executed: x",
        ];
        assert_eq!(got.len(), want.len(), "{got:?}");
        for ((ty, text), w) in got.iter().zip(want) {
            assert_eq!(*ty, sys::UTIL_DEBUG_TYPE_ERROR);
            assert_eq!(text, w);
        }
    }
}

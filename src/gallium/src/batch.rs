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
    mem: BoMemory,
    resources: Vec<*mut sys::pipe_resource>,
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
                    mem,
                    resources,
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
            if let Err(e) = syncobj_wait(dev.uapi(), s.syncobj, u64::MAX) {
                // The render's draws are lost (a failed job); how many is not kept here.
                self.drop_draws(0, &format!("a render failed: {e}"));
            }
            retire(dev, s);
        }
    }

    /// Frees renders that have completed, without blocking.
    pub fn retire_completed(&mut self, dev: &BoDevice) {
        let mut pending = Vec::new();
        for s in std::mem::take(&mut self.in_flight) {
            match syncobj_wait(dev.uapi(), s.syncobj, 0) {
                Ok(true) => retire(dev, s),
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
/// behind its entries. Programs live as long as the screen (released at screen destruction).
pub struct ProgramStore {
    pub arena: agx16_draw::EntryArena,
    pub mem: BoMemory,
    pub tiles: agx16_draw::TileCache,
    ready: bool,
}

impl ProgramStore {
    pub fn new() -> ProgramStore {
        ProgramStore {
            arena: agx16_draw::EntryArena::new(agx16_draw::EntryArena::DEFAULT_BYTES),
            mem: BoMemory::new(),
            tiles: agx16_draw::TileCache::default(),
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
        let mut w = Writer {
            dev,
            mem: &mut self.mem,
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

    /// Uploads a body and gives it an entry.
    pub fn add_body(
        &mut self,
        dev: &BoDevice,
        code: &[u8],
    ) -> Result<agx16_draw::ShaderBody, DrawError> {
        self.ready(dev)?;
        let mut w = Writer {
            dev,
            mem: &mut self.mem,
        };
        self.arena.add_body(&mut w, code)
    }

    pub fn release(&mut self, dev: &BoDevice) {
        std::mem::replace(&mut self.mem, BoMemory::new()).release(dev);
        self.tiles = agx16_draw::TileCache::default();
        self.arena = agx16_draw::EntryArena::new(agx16_draw::EntryArena::DEFAULT_BYTES);
        self.ready = false;
    }
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

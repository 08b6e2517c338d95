//! Buffer objects over the asahi UAPI: GEM_CREATE, GEM_MMAP_OFFSET + mmap, VM_CREATE, VM_BIND at
//! addresses from our own VA heaps, GEM_CLOSE; plus a small cache of freed BOs.
//!
//! Address-space facts ("gl-mesa" = GravityLinux/mesa src/asahi/lib/agx_device.c `agx_open_device`, a
//! driver its authors run on a real M4; read from the source, not measured here):
//! - G16G's kernel window is the top `vm_kernel_min_size` bytes of the 4 GiB render context that starts at
//!   0x10_0000_0000, i.e. it ends at 0x11_0000_0000 (gl-mesa).
//! - The USC (shader) heap is the fixed 4 GiB aperture at 1 << 40, the queue's `usc_exec_base`
//!   (gl-mesa; GravityLinux/linux g16_drm.rs `queue_create` requires it).
//! - Ordinary memory lives below 1 << 39; gl-mesa's power-of-two rounding of [0x11_0000_0000, 1 << 39)
//!   yields the heap [0x20_0000_0000, 0x30_0000_0000), clear of the firmware ranges at 0x70_0000_0000+.
//! - Buffers go into the USC aperture on G16 because index fetch addresses it (gl-mesa agx_pipe.c,
//!   `AGX_BO_LOW_VA` for every PIPE_BUFFER).

use crate::va::VaHeap;
use agx16_kernel::uapi::asahi as a;
use agx16_kernel::uapi::drm::{DrmGemClose, NR_GEM_CLOSE};
use agx16_kernel::uapi::ioctl::{drm_iow, drm_iowr, DRM_COMMAND_BASE};
use bytemuck::Pod;
use std::ffi::c_void;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// GPU page size: every bind, offset and size is a multiple of 16 KiB (GravityLinux/linux g16_drm.rs).
pub const PAGE: u64 = 0x4000;
/// Start of the render context; the kernel window sits at its top (gl-mesa).
pub const RENDER_CONTEXT_BASE: u64 = 0x10_0000_0000;
pub const RENDER_CONTEXT_SIZE: u64 = 1 << 32;
/// The fixed USC aperture (gl-mesa; g16_drm.rs queue_create).
pub const USC_BASE: u64 = 1 << 40;
pub const USC_SIZE: u64 = 1 << 32;
/// Bottom of the USC aperture kept free for fixed-address programs (launcher archives); our choice of
/// size, not a hardware fact.
pub const USC_FIXED_RESERVE: u64 = 64 << 20;
/// The ordinary heap (gl-mesa's rounding, see the module comment).
pub const MAIN_BASE: u64 = 0x20_0000_0000;
pub const MAIN_SIZE: u64 = 0x10_0000_0000;
/// Freed BOs kept for reuse, in bytes.
const CACHE_LIMIT: u64 = 32 << 20;
/// And in objects: every cached object is a live GEM object (kernel memory,
/// a mapping), and the cache is searched linearly.
const CACHE_MAX_OBJECTS: usize = 256;

/// The kernel as the BO layer sees it: ioctl and mmap on the render node (or an in-process kernel in
/// tests).
pub trait Uapi: Send + Sync {
    /// # Safety
    /// `arg` must point at the struct `request` encodes, valid for reads and writes.
    unsafe fn ioctl(&self, request: u64, arg: *mut c_void) -> io::Result<()>;
    fn mmap(&self, offset: u64, len: usize) -> io::Result<*mut u8>;
    /// # Safety
    /// `ptr`/`len` must be a mapping returned by `mmap` and no longer used.
    unsafe fn munmap(&self, ptr: *mut u8, len: usize);
    /// An ioctl on another file the kernel handed out (a sync file).
    ///
    /// # Safety
    /// As [`Uapi::ioctl`].
    unsafe fn fd_ioctl(&self, fd: RawFd, request: u64, arg: *mut c_void) -> io::Result<()> {
        loop {
            if libc::ioctl(fd, request as libc::c_ulong, arg) == 0 {
                return Ok(());
            }
            let e = io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(e);
            }
        }
    }
    /// Closes a file the kernel handed out.
    fn close_fd(&self, fd: RawFd) {
        // SAFETY: `fd` is ours (returned by an ioctl) and used no more.
        unsafe { libc::close(fd) };
    }
}

/// The render node Mesa opened.
pub struct NodeUapi {
    pub fd: RawFd,
}

impl Uapi for NodeUapi {
    unsafe fn ioctl(&self, request: u64, arg: *mut c_void) -> io::Result<()> {
        loop {
            if libc::ioctl(self.fd, request as libc::c_ulong, arg) == 0 {
                return Ok(());
            }
            let e = io::Error::last_os_error();
            if !matches!(e.raw_os_error(), Some(libc::EINTR) | Some(libc::EAGAIN)) {
                return Err(e);
            }
        }
    }

    fn mmap(&self, offset: u64, len: usize) -> io::Result<*mut u8> {
        // SAFETY: a fresh shared mapping of the node at the offset GEM_MMAP_OFFSET returned.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                self.fd,
                offset as libc::off_t,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(p as *mut u8)
    }

    unsafe fn munmap(&self, ptr: *mut u8, len: usize) {
        libc::munmap(ptr as *mut c_void, len);
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BoError {
    #[error("{what} failed: {err}")]
    Ioctl { what: &'static str, err: io::Error },
    #[error("mmap of BO {handle} ({size} bytes) failed: {err}")]
    Mmap {
        handle: u32,
        size: u64,
        err: io::Error,
    },
    #[error("no GPU address space left for {0} bytes in the {1:?} heap")]
    NoVa(u64, Heap),
    #[error("BO size {0} is zero or too large")]
    Size(u64),
}

/// Which VA heap a BO lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heap {
    /// Ordinary memory (textures, render targets).
    Main,
    /// The USC aperture at 1 << 40 (shaders, and buffers, which index fetch reads from there).
    Usc,
    #[allow(dead_code)] // the entry arena's heap (batch.rs ProgramStore)
    /// The bottom of the USC aperture kept for fixed-address programs: the entry arena lives at
    /// its start (stage targets are USC offsets below 8 MiB).
    UscFixed,
    /// The render context below the kernel window: VDM streams and PPP state, which the GPU
    /// addresses with 32-bit offsets from `RENDER_CONTEXT_BASE`.
    RenderContext,
}

/// One GEM object, bound read/write at `va` and mapped at `map` for its whole life.
#[derive(Debug)]
pub struct Bo {
    pub handle: u32,
    pub size: u64,
    pub va: u64,
    pub heap: Heap,
    map: *mut u8,
}

// SAFETY: the mapping is plain shared memory; Gallium serialises access per resource.
unsafe impl Send for Bo {}
unsafe impl Sync for Bo {}

impl Bo {
    pub fn map(&self) -> *mut u8 {
        self.map
    }

    /// The whole BO as bytes.
    ///
    /// # Safety
    /// No GPU work may write the BO while the slice lives (no GPU work exists yet).
    #[allow(clippy::mut_from_ref)] // shared GPU memory, like the raw pointer it wraps
    pub unsafe fn bytes(&self) -> &mut [u8] {
        std::slice::from_raw_parts_mut(self.map, self.size as usize)
    }
}

/// Counters for leak checks and debugging.
#[derive(Debug, Default)]
pub struct BoStats {
    /// BOs handed out and not yet released.
    pub live: AtomicU64,
    /// GEM objects created over the device's life.
    pub created: AtomicU64,
    /// GEM objects that exist in the kernel now (live + cached).
    pub gem_objects: AtomicU64,
    /// BOs served from the cache.
    pub cache_hits: AtomicU64,
}

struct Heaps {
    main: VaHeap,
    usc: VaHeap,
    usc_fixed: VaHeap,
    render_context: VaHeap,
}

impl Heaps {
    fn get(&mut self, heap: Heap) -> &mut VaHeap {
        match heap {
            Heap::Main => &mut self.main,
            Heap::Usc => &mut self.usc,
            Heap::UscFixed => &mut self.usc_fixed,
            Heap::RenderContext => &mut self.render_context,
        }
    }
}

/// The device's address space and BO allocator.
pub struct BoDevice {
    uapi: Box<dyn Uapi>,
    pub vm_id: u32,
    heaps: Mutex<Heaps>,
    cache: Mutex<Vec<Bo>>,
    pub stats: BoStats,
}

impl BoDevice {
    /// Creates the VM with the G16 kernel window below the render context's end.
    pub fn new(uapi: Box<dyn Uapi>, params: &a::ParamsGlobal) -> Result<BoDevice, BoError> {
        let kernel_end = RENDER_CONTEXT_BASE + RENDER_CONTEXT_SIZE;
        let mut vm = a::VmCreate {
            kernel_start: kernel_end - params.vm_kernel_min_size,
            kernel_end,
            ..Default::default()
        };
        asahi(&*uapi, a::VM_CREATE, &mut vm).map_err(|err| BoError::Ioctl {
            what: "DRM_IOCTL_ASAHI_VM_CREATE",
            err,
        })?;
        let mut heaps = Heaps {
            main: VaHeap::new(MAIN_BASE, MAIN_SIZE),
            usc: VaHeap::new(USC_BASE + USC_FIXED_RESERVE, USC_SIZE - USC_FIXED_RESERVE),
            usc_fixed: VaHeap::new(USC_BASE, USC_FIXED_RESERVE),
            render_context: VaHeap::new(RENDER_CONTEXT_BASE, vm.kernel_start - RENDER_CONTEXT_BASE),
        };
        // The kernel refuses (EINVAL) any bind touching the firmware's fixed ranges, several of
        // which lie inside the render context from 0x10_0008_0000 on (GravityLinux/linux g16_drm
        // vm_bind; g16_render fixed_ranges, g16_compute private_ranges). Keep every heap out of them.
        for r in agx16_kernel::g16_ranges::firmware_ranges() {
            for h in [
                &mut heaps.main,
                &mut heaps.usc,
                &mut heaps.usc_fixed,
                &mut heaps.render_context,
            ] {
                h.reserve(r.clone());
            }
        }
        Ok(BoDevice {
            uapi,
            vm_id: vm.vm_id,
            heaps: Mutex::new(heaps),
            cache: Mutex::new(Vec::new()),
            stats: BoStats::default(),
        })
    }

    pub fn uapi(&self) -> &dyn Uapi {
        &*self.uapi
    }

    /// A BO of at least `size` bytes (rounded up to whole pages), bound and mapped. Contents are zero
    /// for a new GEM object and unspecified for a cached one.
    pub fn create(&self, size: u64, heap: Heap) -> Result<Bo, BoError> {
        let size = size
            .checked_next_multiple_of(PAGE)
            .filter(|&s| s > 0 && s <= 1 << 40)
            .ok_or(BoError::Size(size))?;
        {
            let mut cache = self.cache.lock().unwrap();
            if let Some(i) = cache.iter().position(|b| b.size == size && b.heap == heap) {
                let bo = cache.swap_remove(i);
                self.stats.cache_hits.fetch_add(1, Ordering::Relaxed);
                self.stats.live.fetch_add(1, Ordering::Relaxed);
                return Ok(bo);
            }
        }
        let bo = self.allocate(size, heap)?;
        self.stats.live.fetch_add(1, Ordering::Relaxed);
        Ok(bo)
    }

    /// Gives a BO back: it goes into the cache while the cache has room (bytes and objects),
    /// otherwise it is freed.
    pub fn release(&self, bo: Bo) {
        self.stats.live.fetch_sub(1, Ordering::Relaxed);
        let mut cache = self.cache.lock().unwrap();
        let cached: u64 = cache.iter().map(|b| b.size).sum();
        if cached + bo.size <= CACHE_LIMIT && cache.len() < CACHE_MAX_OBJECTS {
            cache.push(bo);
        } else {
            drop(cache);
            self.free(bo);
        }
    }

    /// Frees every cached BO.
    pub fn evict_cache(&self) {
        let bos: Vec<Bo> = std::mem::take(&mut *self.cache.lock().unwrap());
        for bo in bos {
            self.free(bo);
        }
    }

    pub fn cached(&self) -> usize {
        self.cache.lock().unwrap().len()
    }

    fn allocate(&self, size: u64, heap: Heap) -> Result<Bo, BoError> {
        let mut create = a::GemCreate {
            size,
            flags: a::GEM_VM_PRIVATE,
            vm_id: self.vm_id,
            ..Default::default()
        };
        asahi(&*self.uapi, a::GEM_CREATE, &mut create).map_err(|err| BoError::Ioctl {
            what: "DRM_IOCTL_ASAHI_GEM_CREATE",
            err,
        })?;
        self.stats.created.fetch_add(1, Ordering::Relaxed);
        self.stats.gem_objects.fetch_add(1, Ordering::Relaxed);
        let handle = create.handle;
        let mut bo = Bo {
            handle,
            size,
            va: 0,
            heap,
            map: std::ptr::null_mut(),
        };
        let result = (|| {
            let mut off = a::GemMmapOffset {
                handle,
                ..Default::default()
            };
            asahi(&*self.uapi, a::GEM_MMAP_OFFSET, &mut off).map_err(|err| BoError::Ioctl {
                what: "DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET",
                err,
            })?;
            bo.map = self
                .uapi
                .mmap(off.offset, size as usize)
                .map_err(|err| BoError::Mmap { handle, size, err })?;
            let va = self
                .heaps
                .lock()
                .unwrap()
                .get(heap)
                .alloc(size, PAGE)
                .ok_or(BoError::NoVa(size, heap))?;
            bo.va = va;
            self.bind(a::BIND_READ | a::BIND_WRITE, handle, va, size)
                .map_err(|err| BoError::Ioctl {
                    what: "DRM_IOCTL_ASAHI_VM_BIND",
                    err,
                })
        })();
        match result {
            Ok(()) => Ok(bo),
            Err(e) => {
                if bo.va != 0 {
                    self.free_va(&bo);
                    bo.va = 0;
                }
                self.free(bo);
                Err(e)
            }
        }
    }

    fn bind(&self, flags: u32, handle: u32, addr: u64, range: u64) -> io::Result<()> {
        let mut op = a::GemBindOp {
            flags,
            handle,
            offset: 0,
            range,
            addr,
        };
        let mut bind = a::VmBind {
            vm_id: self.vm_id,
            num_binds: 1,
            stride: std::mem::size_of::<a::GemBindOp>() as u32,
            pad: 0,
            userptr: &mut op as *mut a::GemBindOp as u64,
        };
        asahi(&*self.uapi, a::VM_BIND, &mut bind)
    }

    fn free_va(&self, bo: &Bo) {
        self.heaps.lock().unwrap().get(bo.heap).free(bo.va, bo.size);
    }

    /// Unmaps, unbinds and closes a BO. Failures are reported, never fatal: the kernel reclaims
    /// everything when the file closes.
    fn free(&self, bo: Bo) {
        if !bo.map.is_null() {
            // SAFETY: the mapping was made by `allocate` and dies with the BO.
            unsafe { self.uapi.munmap(bo.map, bo.size as usize) };
        }
        if bo.va != 0 {
            if let Err(e) = self.bind(a::BIND_UNBIND, 0, bo.va, bo.size) {
                eprintln!("agx16: unbinding BO {} at {:#x}: {e}", bo.handle, bo.va);
            }
            self.free_va(&bo);
        }
        let mut close = DrmGemClose {
            handle: bo.handle,
            pad: 0,
        };
        let request = drm_iow(NR_GEM_CLOSE, std::mem::size_of::<DrmGemClose>());
        // SAFETY: `close` is the struct DRM_IOCTL_GEM_CLOSE takes.
        match unsafe {
            self.uapi
                .ioctl(request, &mut close as *mut _ as *mut c_void)
        } {
            Ok(()) => {
                self.stats.gem_objects.fetch_sub(1, Ordering::Relaxed);
            }
            Err(e) => eprintln!("agx16: GEM_CLOSE of BO {}: {e}", bo.handle),
        }
    }
}

impl Drop for BoDevice {
    fn drop(&mut self) {
        self.evict_cache();
        let mut destroy = a::VmDestroy {
            vm_id: self.vm_id,
            pad: 0,
        };
        if let Err(e) = asahi(&*self.uapi, a::VM_DESTROY, &mut destroy) {
            eprintln!("agx16: VM_DESTROY of VM {}: {e}", self.vm_id);
        }
    }
}

/// One asahi driver ioctl with its struct.
pub fn asahi<T: Pod>(uapi: &dyn Uapi, nr: u32, v: &mut T) -> io::Result<()> {
    let request = drm_iowr(DRM_COMMAND_BASE + nr, std::mem::size_of::<T>());
    // SAFETY: `v` is the struct the ioctl number encodes, live across the call.
    unsafe { uapi.ioctl(request, v as *mut T as *mut c_void) }
}

#[cfg(test)]
pub mod testing {
    //! The agx16 kernel core in process, standing in for the render node: its validation (the G16
    //! kernel window, firmware ranges, page alignment) and its object counts are the oracle.

    use super::*;
    use agx16_kernel::{Device, Errno, FdObject, File, Host, KResult};
    use std::collections::HashMap;
    use std::sync::Arc;

    /// User memory is this process's memory.
    struct InProcess;

    impl Host for InProcess {
        fn copy_from_user(&self, addr: u64, out: &mut [u8]) -> KResult<()> {
            if addr == 0 {
                return Err(Errno::EFAULT);
            }
            // SAFETY: the BO layer only passes pointers to live structs of the right size.
            unsafe {
                std::ptr::copy_nonoverlapping(addr as *const u8, out.as_mut_ptr(), out.len())
            };
            Ok(())
        }
        fn copy_to_user(&self, addr: u64, data: &[u8]) -> KResult<()> {
            if addr == 0 {
                return Err(Errno::EFAULT);
            }
            // SAFETY: as above.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), addr as *mut u8, data.len()) };
            Ok(())
        }
        fn install_fd(&self, _: FdObject, _: bool) -> KResult<i32> {
            Err(Errno::EMFILE)
        }
        fn lookup_fd(&self, _: i32) -> KResult<FdObject> {
            Err(Errno::EBADF)
        }
        fn monotonic_ns(&self) -> u64 {
            let mut t = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: plain clock read into a local.
            unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
            t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
        }
    }

    pub struct KernelUapi {
        pub file: Arc<File>,
        maps: Mutex<HashMap<usize, Arc<agx16_kernel::gem::Bo>>>,
    }

    impl KernelUapi {
        pub fn new() -> Arc<KernelUapi> {
            Arc::new(KernelUapi {
                file: Device::for_tests().open(),
                maps: Mutex::new(HashMap::new()),
            })
        }
    }

    impl Uapi for Arc<KernelUapi> {
        unsafe fn ioctl(&self, request: u64, arg: *mut c_void) -> io::Result<()> {
            self.file
                .ioctl(&InProcess, request, arg as u64)
                .map(|_| ())
                .map_err(|e| io::Error::from_raw_os_error(e.0))
        }
        fn mmap(&self, offset: u64, len: usize) -> io::Result<*mut u8> {
            let bo = self
                .file
                .mmap_lookup(offset, len as u64)
                .map_err(|e| io::Error::from_raw_os_error(e.0))?;
            let ptr = bo.backing().ptr();
            self.maps.lock().unwrap().insert(ptr as usize, bo);
            Ok(ptr)
        }
        unsafe fn munmap(&self, ptr: *mut u8, _: usize) {
            self.maps.lock().unwrap().remove(&(ptr as usize));
        }
    }

    /// A BO device on a fresh in-process kernel, with the M4's parameters.
    pub fn device() -> (Arc<KernelUapi>, BoDevice) {
        let k = KernelUapi::new();
        let params = agx16_kernel::params::params_global(&Default::default());
        let dev = BoDevice::new(Box::new(k.clone()), &params).expect("VM_CREATE");
        (k, dev)
    }
}

#[cfg(test)]
mod tests {
    use super::testing::device;
    use super::*;

    #[test]
    fn the_kernel_accepts_the_g16_window_and_our_heaps() {
        let (k, dev) = device();
        let a = dev.create(100, Heap::Main).unwrap();
        let b = dev.create(3 * PAGE + 1, Heap::Usc).unwrap();
        assert_eq!(a.size, PAGE);
        assert_eq!(b.size, 4 * PAGE);
        assert!(a.va >= MAIN_BASE && a.va + a.size <= MAIN_BASE + MAIN_SIZE);
        assert!(b.va >= USC_BASE + USC_FIXED_RESERVE && b.va + b.size <= USC_BASE + USC_SIZE);
        let c = k.file.counts();
        assert_eq!((c.bos, c.vms, c.mappings), (2, 1, 2));
        // The CPU mapping is the kernel's object: bytes written here are what the GPU would read.
        unsafe { a.bytes()[..4].copy_from_slice(&[1, 2, 3, 4]) };
        let mut back = [0u8; 4];
        k.file.bo(a.handle).unwrap().read(0, &mut back).unwrap();
        assert_eq!(back, [1, 2, 3, 4]);
        dev.release(a);
        dev.release(b);
        assert_eq!(dev.stats.live.load(Ordering::Relaxed), 0);
        drop(dev);
        let c = k.file.counts();
        assert_eq!((c.bos, c.vms, c.mappings), (0, 0, 0), "{c:?}");
    }

    #[test]
    fn the_cache_reuses_equal_sizes_and_frees_beyond_its_limit() {
        let (k, dev) = device();
        let a = dev.create(PAGE, Heap::Main).unwrap();
        let (handle, va) = (a.handle, a.va);
        dev.release(a);
        assert_eq!(dev.cached(), 1);
        let again = dev.create(PAGE, Heap::Main).unwrap();
        assert_eq!((again.handle, again.va), (handle, va));
        assert_eq!(dev.stats.cache_hits.load(Ordering::Relaxed), 1);
        // A different heap never reuses it.
        let usc = dev.create(PAGE, Heap::Usc).unwrap();
        assert_ne!(usc.handle, handle);
        dev.release(usc);
        dev.release(again);
        let big = dev.create(CACHE_LIMIT + PAGE, Heap::Main).unwrap();
        dev.release(big);
        // Too big for the cache: closed at once.
        assert_eq!(k.file.counts().bos, 2);
        dev.evict_cache();
        assert_eq!(k.file.counts().bos, 0);
        assert_eq!(dev.stats.gem_objects.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn the_cache_is_bounded_in_objects() {
        let (k, dev) = device();
        let bos: Vec<Bo> = (0..CACHE_MAX_OBJECTS + 100)
            .map(|_| dev.create(PAGE, Heap::Main).unwrap())
            .collect();
        for bo in bos {
            dev.release(bo);
        }
        assert_eq!(dev.cached(), CACHE_MAX_OBJECTS);
        assert_eq!(k.file.counts().bos, CACHE_MAX_OBJECTS);
        dev.evict_cache();
        assert_eq!(k.file.counts().bos, 0);
    }

    /// Regression: a 256x256 target builds 64 tile renders whose VDM/PPP BOs fill the render context
    /// past 0x10_0008_0000, a firmware fixed range the kernel refuses to bind (VM_BIND EINVAL).
    #[test]
    fn the_render_context_heap_skips_the_firmware_ranges() {
        let (k, dev) = device();
        let mut bos = Vec::new();
        // 16 MiB of single pages: past every fixed range inside the render context.
        for _ in 0..(16 << 20) / PAGE {
            let bo = dev.create(PAGE, Heap::RenderContext).unwrap_or_else(|e| {
                panic!("render-context BO #{} failed: {e}", bos.len());
            });
            for r in agx16_kernel::g16_ranges::firmware_ranges() {
                assert!(
                    bo.va + bo.size <= r.start || bo.va >= r.end,
                    "{:#x} in {r:x?}",
                    bo.va
                );
            }
            bos.push(bo);
        }
        assert!(bos.iter().any(|b| b.va > 0x10_00c6_4000));
        assert_eq!(k.file.counts().mappings, bos.len());
        for bo in bos {
            dev.release(bo);
        }
    }

    #[test]
    fn failures_are_errors_and_leak_nothing() {
        let (k, dev) = device();
        assert!(matches!(dev.create(0, Heap::Main), Err(BoError::Size(0))));
        // More than the USC heap holds: the VA allocator refuses, the GEM object is closed again.
        let err = dev.create(USC_SIZE, Heap::Usc).unwrap_err();
        assert!(matches!(err, BoError::NoVa(..)), "{err}");
        assert_eq!(k.file.counts().bos, 0);
        assert_eq!(dev.stats.live.load(Ordering::Relaxed), 0);
    }
}

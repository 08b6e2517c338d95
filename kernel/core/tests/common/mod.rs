//! Test host: "user memory" is buffers the test registered (anything else
//! is EFAULT), fds are a table. Plus helpers for the common ioctls and a
//! scripted fake GPU backend to exercise the submission plumbing.
#![allow(dead_code)]

use agx16_cmdstream::cdm::{
    CdmBarrier, CdmBlock, CdmLaunchDirect, CdmLink, CdmReturn, CdmTerminate,
};
use agx16_kernel::backend::{ComputeContext, ComputeLaunch, GpuBackend, GpuError, JobControl};
use agx16_kernel::backing::HeapAllocator;
use agx16_kernel::params::DeviceConfig;
use agx16_kernel::uapi::asahi as a;
use agx16_kernel::uapi::drm as d;
use agx16_kernel::uapi::ioctl::{drm_iowr, DRM_COMMAND_BASE};
use agx16_kernel::{Device, Errno, FdObject, File, Host, KResult, VmView};
use bytemuck::Pod;
use parking_lot::Mutex;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub struct TestHost {
    /// Registered user buffers by start address.
    regions: Mutex<BTreeMap<u64, Box<[u8]>>>,
    fds: Mutex<HashMap<i32, FdObject>>,
    next_fd: AtomicI32,
    epoch: Instant,
}

impl Default for TestHost {
    fn default() -> Self {
        TestHost {
            regions: Mutex::new(BTreeMap::new()),
            fds: Mutex::new(HashMap::new()),
            next_fd: AtomicI32::new(100),
            epoch: Instant::now(),
        }
    }
}

impl TestHost {
    /// Register bytes as user memory; returns their "user address".
    pub fn user(&self, bytes: &[u8]) -> u64 {
        let b: Box<[u8]> = if bytes.is_empty() {
            vec![0u8; 1].into()
        } else {
            bytes.into()
        };
        let addr = b.as_ptr() as u64;
        self.regions.lock().insert(addr, b);
        addr
    }

    pub fn user_pod<T: Pod>(&self, v: &[T]) -> u64 {
        self.user(bytemuck::cast_slice(v))
    }

    /// Read back user memory (e.g. output arrays).
    pub fn read_user(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        self.copy_from_user(addr, &mut out).expect("registered");
        out
    }

    fn find(&self, addr: u64, len: usize) -> Option<*mut u8> {
        let regions = self.regions.lock();
        let (&start, r) = regions.range(..=addr).next_back()?;
        let end = start + r.len() as u64;
        (addr.checked_add(len as u64)? <= end).then_some(addr as usize as *mut u8)
    }

    pub fn fd_count(&self) -> usize {
        self.fds.lock().len()
    }

    pub fn close_fd(&self, fd: i32) {
        self.fds.lock().remove(&fd);
    }
}

impl Host for TestHost {
    fn copy_from_user(&self, addr: u64, out: &mut [u8]) -> KResult<()> {
        if out.is_empty() {
            return Ok(());
        }
        let p = self.find(addr, out.len()).ok_or(Errno::EFAULT)?;
        // SAFETY: range checked against a live registered buffer.
        unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), out.len()) };
        Ok(())
    }
    fn copy_to_user(&self, addr: u64, data: &[u8]) -> KResult<()> {
        if data.is_empty() {
            return Ok(());
        }
        let p = self.find(addr, data.len()).ok_or(Errno::EFAULT)?;
        // SAFETY: as above.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
        Ok(())
    }
    fn install_fd(&self, object: FdObject, _cloexec: bool) -> KResult<i32> {
        let fd = self.next_fd.fetch_add(1, Ordering::Relaxed);
        self.fds.lock().insert(fd, object);
        Ok(fd)
    }
    fn lookup_fd(&self, fd: i32) -> KResult<FdObject> {
        self.fds.lock().get(&fd).cloned().ok_or(Errno::EBADF)
    }
    fn monotonic_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64 + 1_000_000_000
    }
}

pub struct Env {
    pub dev: Arc<Device>,
    pub host: TestHost,
}

impl Env {
    pub fn new() -> Env {
        Env::with(Arc::new(ScriptBackend), 2_000)
    }

    pub fn with(backend: Arc<dyn GpuBackend>, timeout_ms: u64) -> Env {
        let config = DeviceConfig {
            job_timeout_ms: timeout_ms,
            ..DeviceConfig::default()
        };
        Env {
            dev: Device::new(config, Box::new(HeapAllocator), backend, None),
            host: TestHost::default(),
        }
    }

    pub fn open(&self) -> Arc<File> {
        self.dev.open()
    }

    /// Core DRM ioctl by number with a typed argument.
    pub fn core<T: Pod>(&self, f: &File, nr: u32, v: &mut T) -> KResult<i32> {
        self.raw(f, drm_iowr(nr, std::mem::size_of::<T>()), v)
    }

    /// asahi ioctl by command index (DRM_IOWR-encoded like the header's W/WR).
    pub fn asahi<T: Pod>(&self, f: &File, cmd: u32, v: &mut T) -> KResult<i32> {
        self.raw(
            f,
            drm_iowr(DRM_COMMAND_BASE + cmd, std::mem::size_of::<T>()),
            v,
        )
    }

    pub fn raw<T: Pod>(&self, f: &File, request: u64, v: &mut T) -> KResult<i32> {
        let addr = self.host.user(bytemuck::bytes_of(v));
        let r = f.ioctl(&self.host, request, addr);
        let back = self.host.read_user(addr, std::mem::size_of::<T>());
        *v = bytemuck::pod_read_unaligned(&back);
        r
    }

    pub fn vm(&self, f: &File) -> u32 {
        let mut v = a::VmCreate {
            kernel_start: KERNEL_START,
            kernel_end: KERNEL_END,
            ..Default::default()
        };
        self.asahi(f, a::VM_CREATE, &mut v).expect("vm create");
        v.vm_id
    }

    pub fn bo(&self, f: &File, size: u64) -> u32 {
        let mut g = a::GemCreate {
            size,
            ..Default::default()
        };
        self.asahi(f, a::GEM_CREATE, &mut g).expect("gem create");
        g.handle
    }

    pub fn bind(
        &self,
        f: &File,
        vm: u32,
        handle: u32,
        addr: u64,
        range: u64,
        flags: u32,
    ) -> KResult<i32> {
        let op = a::GemBindOp {
            flags,
            handle,
            offset: 0,
            range,
            addr,
        };
        let mut b = a::VmBind {
            vm_id: vm,
            num_binds: 1,
            stride: 32,
            pad: 0,
            userptr: self.host.user_pod(&[op]),
        };
        self.asahi(f, a::VM_BIND, &mut b)
    }

    pub fn queue(&self, f: &File, vm: u32) -> u32 {
        let mut q = a::QueueCreate {
            vm_id: vm,
            priority: 1,
            usc_exec_base: 1 << 40,
            ..Default::default()
        };
        self.asahi(f, a::QUEUE_CREATE, &mut q).expect("queue");
        q.queue_id
    }

    pub fn syncobj(&self, f: &File) -> u32 {
        let mut c = d::DrmSyncobjCreate::default();
        self.core(f, d::NR_SYNCOBJ_CREATE, &mut c).expect("syncobj");
        c.handle
    }

    pub fn submit(
        &self,
        f: &File,
        queue: u32,
        cmdbuf: &[u8],
        ins: &[a::Sync],
        outs: &[a::Sync],
    ) -> KResult<i32> {
        let mut syncs = ins.to_vec();
        syncs.extend_from_slice(outs);
        let mut s = a::Submit {
            syncs: self.host.user_pod(&syncs),
            cmdbuf: self.host.user(cmdbuf),
            queue_id: queue,
            in_sync_count: ins.len() as u32,
            out_sync_count: outs.len() as u32,
            cmdbuf_size: cmdbuf.len() as u32,
            ..Default::default()
        };
        self.asahi(f, a::SUBMIT, &mut s)
    }

    /// Wait for a binary syncobj (point 0) or a timeline point.
    pub fn wait(&self, f: &File, handle: u32, point: u64, timeout: Duration) -> KResult<i32> {
        let mut w = d::DrmSyncobjTimelineWait {
            handles: self.host.user_pod(&[handle]),
            points: self.host.user_pod(&[point]),
            timeout_nsec: (self.host.monotonic_ns() + timeout.as_nanos() as u64) as i64,
            count_handles: 1,
            flags: d::SYNCOBJ_WAIT_ALL | d::SYNCOBJ_WAIT_FOR_SUBMIT,
            ..Default::default()
        };
        self.core(f, d::NR_SYNCOBJ_TIMELINE_WAIT, &mut w)
    }

    pub fn write_bo(&self, f: &File, handle: u32, offset: u64, data: &[u8]) {
        f.bo(handle)
            .expect("bo")
            .write(offset, data)
            .expect("in bounds");
    }

    pub fn read_bo(&self, f: &File, handle: u32, offset: u64, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        f.bo(handle)
            .expect("bo")
            .read(offset, &mut out)
            .expect("in bounds");
        out
    }
}

/// A kernel window at the render-context base, big enough for render.
pub const KERNEL_START: u64 = 0x10_0000_0000;
pub const KERNEL_END: u64 = 0x10_0000_0000 + 0x2000_0000;
/// Where tests put data and USC code.
pub const DATA_VA: u64 = 0x2_0000_0000;
/// Control streams live below 1 << 40: CDM links carry 40-bit targets.
pub const CMD_VA: u64 = 0x3_0000_0000;
pub const CMD_SIZE: u64 = 0x10_0000;
pub const USC_VA: u64 = 1 << 40;

pub fn binary(handle: u32) -> a::Sync {
    a::Sync {
        sync_type: a::SYNC_SYNCOBJ,
        handle,
        timeline_value: 0,
    }
}

pub fn timeline(handle: u32, point: u64) -> a::Sync {
    a::Sync {
        sync_type: a::SYNC_TIMELINE_SYNCOBJ,
        handle,
        timeline_value: point,
    }
}

/// A command buffer with one compute command over [base, end).
pub fn compute_cmdbuf(base: u64, end: u64) -> Vec<u8> {
    let cmd = a::CmdCompute {
        cdm_ctrl_stream_base: base,
        cdm_ctrl_stream_end: end,
        ..Default::default()
    };
    cmdbuf(&[(a::CMD_COMPUTE, bytemuck::bytes_of(&cmd).to_vec(), 0, 0)])
}

/// (type, payload, vdm barrier, cdm barrier) -> flat command buffer.
pub fn cmdbuf(cmds: &[(u16, Vec<u8>, u16, u16)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (t, payload, vb, cb) in cmds {
        let h = a::CmdHeader {
            cmd_type: *t,
            size: payload.len() as u16,
            vdm_barrier: *vb,
            cdm_barrier: *cb,
        };
        out.extend_from_slice(bytemuck::bytes_of(&h));
        out.extend_from_slice(payload);
    }
    out
}

/// CDM blocks packed with agx16-cmdstream.
pub fn launch(pipeline: u64, global: [u32; 3], local: [u32; 3]) -> Vec<u8> {
    let mut l = CdmLaunchDirect::default();
    l.set_pipeline(pipeline).expect("aligned pipeline");
    [l.global_x, l.global_y, l.global_z] = global;
    [l.local_x, l.local_y, l.local_z] = local;
    CdmBlock::LaunchDirect(l).pack().expect("pack")
}
pub fn link(target: u64, call: bool) -> Vec<u8> {
    CdmBlock::Link(CdmLink::to(target, call).expect("link"))
        .pack()
        .expect("pack")
}
pub fn barrier() -> Vec<u8> {
    CdmBlock::Barrier(CdmBarrier::from_word(agx16_cmdstream::cdm::BARRIER_FULL).expect("barrier"))
        .pack()
        .expect("pack")
}
pub fn terminate() -> Vec<u8> {
    CdmBlock::Terminate(CdmTerminate::default())
        .pack()
        .expect("pack")
}
pub fn ret() -> Vec<u8> {
    CdmBlock::Return(CdmReturn::default()).pack().expect("pack")
}

/// Fake GPU for plumbing tests. The "program" at a launch's pipeline VA is
/// four u64 words: op, a, b, c. Ops: 1 store (global_x words b+i at VA a),
/// 2 add-one (global_x words: [a+4i] = [b+4i] + 1), 3 spin until the
/// watchdog fires, 4 sleep c ms then store like 1. Unknown ops are model
/// errors. This is not G16 behaviour; it only drives the kernel paths.
pub struct ScriptBackend;

pub const OP_STORE: u64 = 1;
pub const OP_ADD_ONE: u64 = 2;
pub const OP_SPIN: u64 = 3;
pub const OP_SLEEP_STORE: u64 = 4;

pub fn program(op: u64, a: u64, b: u64, c: u64) -> Vec<u8> {
    [op, a, b, c].iter().flat_map(|w| w.to_le_bytes()).collect()
}

impl GpuBackend for ScriptBackend {
    fn run_compute(
        &self,
        vm: &VmView,
        _: &ComputeContext,
        l: &ComputeLaunch,
        ctl: &JobControl,
    ) -> Result<(), GpuError> {
        let mut p = [0u8; 32];
        vm.read(l.pipeline(), &mut p)?;
        let w = |i: usize| u64::from_le_bytes(p[i * 8..i * 8 + 8].try_into().unwrap());
        let (op, va, b, c) = (w(0), w(1), w(2), w(3));
        let n = match l.launch.grid {
            agx16_cmdstream::cdm::Grid::Direct { global, .. } => global[0] as u64,
            _ => return Err(GpuError::Model("test ops need direct grids".into())),
        };
        match op {
            OP_STORE | OP_SLEEP_STORE => {
                if op == OP_SLEEP_STORE {
                    std::thread::sleep(Duration::from_millis(c));
                }
                for i in 0..n {
                    vm.write(va + 4 * i, &((b + i) as u32).to_le_bytes())?;
                }
                Ok(())
            }
            OP_ADD_ONE => {
                for i in 0..n {
                    let mut x = [0u8; 4];
                    vm.read(b + 4 * i, &mut x)?;
                    let v = u32::from_le_bytes(x).wrapping_add(1);
                    vm.write(va + 4 * i, &v.to_le_bytes())?;
                }
                Ok(())
            }
            OP_SPIN => loop {
                if ctl.expired() {
                    return Err(GpuError::Timeout {
                        pc: Some(l.pipeline()),
                    });
                }
                std::hint::spin_loop();
            },
            _ => Err(GpuError::Model(format!("unknown test op {op}"))),
        }
    }

    fn run_render(&self, _: &VmView, _: &a::CmdRender, _: &JobControl) -> Result<(), GpuError> {
        Err(GpuError::NotImplemented("render"))
    }
}

/// A ready-to-submit compute setup: VM, queue, data BO at DATA_VA, USC BO
/// at USC_VA holding programs and CDM streams.
pub struct Rig {
    pub file: Arc<File>,
    pub vm: u32,
    pub queue: u32,
    pub data: u32,
    pub usc: u32,
    pub cmds: u32,
}

pub const USC_SIZE: u64 = 0x10_0000;
pub const DATA_SIZE: u64 = 0x4_0000;

impl Env {
    pub fn rig(&self) -> Rig {
        let file = self.open();
        let vm = self.vm(&file);
        let data = self.bo(&file, DATA_SIZE);
        let usc = self.bo(&file, USC_SIZE);
        self.bind(
            &file,
            vm,
            data,
            DATA_VA,
            DATA_SIZE,
            a::BIND_READ | a::BIND_WRITE,
        )
        .expect("bind data");
        self.bind(&file, vm, usc, USC_VA, USC_SIZE, a::BIND_READ)
            .expect("bind usc");
        let cmds = self.bo(&file, CMD_SIZE);
        self.bind(&file, vm, cmds, CMD_VA, CMD_SIZE, a::BIND_READ)
            .expect("bind cmds");
        let queue = self.queue(&file, vm);
        Rig {
            file,
            vm,
            queue,
            data,
            usc,
            cmds,
        }
    }

    /// Put `prog` at USC offset `slot` * 0x1000 and a one-launch stream
    /// for it at the same offset of the command BO; returns the cmdbuf.
    pub fn one_launch(&self, rig: &Rig, slot: u64, prog: &[u8], n: u32) -> Vec<u8> {
        let base = slot * 0x1000;
        self.write_bo(&rig.file, rig.usc, base, prog);
        let mut stream = launch(USC_VA + base, [n, 1, 1], [1, 1, 1]);
        stream.extend(barrier());
        stream.extend(terminate());
        self.write_bo(&rig.file, rig.cmds, base, &stream);
        let start = CMD_VA + base;
        compute_cmdbuf(start, start + stream.len() as u64)
    }
}

pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

struct StderrLogger;
impl log::Log for StderrLogger {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }
    fn log(&self, r: &log::Record) {
        eprintln!("[{}] {}", r.level(), r.args());
    }
    fn flush(&self) {}
}

/// Show the core's job-failure logs in test output.
pub fn init_log() {
    static LOGGER: StderrLogger = StderrLogger;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Warn);
    }
}

//! Fuzz: >= 100,000 random and mutated ioctls against two opens, then
//! valid work must still complete correctly and every object must be
//! released (object and memory counters back to zero).
//!
//! Deterministic (seeded) so a failure reproduces. Waits are bounded (a
//! fuzzer must not block forever on a fence nobody will signal, which a
//! real kernel would also do).

mod common;
use agx16_kernel::fence::LIVE_FENCES;
use agx16_kernel::job::LIVE_WORKERS;
use agx16_kernel::syncobj::LIVE_SYNCOBJS;
use agx16_kernel::uapi::asahi as a;
use agx16_kernel::uapi::drm as d;
use agx16_kernel::uapi::ioctl::{Request, DRM_COMMAND_BASE};
use agx16_kernel::{Errno, File, Host};
use common::*;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

const IOCTLS: usize = 120_000;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize]
    }
}

struct Fuzzer<'e> {
    env: &'e Env,
    rng: Rng,
    /// Valid command buffers (store, fault, endless) to mutate.
    good_cmdbufs: Vec<Vec<u8>>,
    /// The most recent known-good setup (the fuzzer may destroy parts of
    /// older ones).
    good: Rig,
    fds: Vec<i32>,
    next_bind_va: u64,
}

impl Fuzzer<'_> {
    fn handle(&mut self) -> u32 {
        match self.rng.below(10) {
            0 => 0,
            1 => self.rng.next() as u32,
            _ => 1 + self.rng.below(8) as u32,
        }
    }

    fn va(&mut self) -> u64 {
        let page = 0x4000;
        match self.rng.below(12) {
            0 => self.rng.next(),
            1 => self.rng.next() & !(page - 1) & ((1 << 43) - 1),
            2 => KERNEL_START + self.rng.below(16) * page,
            3 => self.rng.pick(&[
                0x71_0000_0000,
                0x70_0000_0000,
                0x70_02cc_0000,
                0x10_00c6_0000,
                0x10_0008_8000,
            ]),
            4 => (1 << 42) - self.rng.below(4) * page,
            5 => self.rng.below(4) * page,
            6 => USC_VA + self.rng.below(64) * page,
            7 => CMD_VA + self.rng.below(64) * page,
            _ => DATA_VA + self.rng.below(64) * page,
        }
    }

    fn size(&mut self) -> u64 {
        match self.rng.below(10) {
            0 => self.rng.next(),
            1 => 0,
            2 => 1 << (20 + self.rng.below(22)),
            3 => self.rng.below(0x10000),
            _ => 0x4000 * (1 + self.rng.below(8)),
        }
    }

    fn word(&mut self) -> u64 {
        match self.rng.below(6) {
            0 => self.rng.next(),
            1 => 0,
            2 => u64::MAX,
            3 => 1 << self.rng.below(64),
            _ => self.rng.below(16),
        }
    }

    /// A user pointer to `bytes` (possibly mutated), or a bad pointer.
    fn ptr(&mut self, mut bytes: Vec<u8>) -> u64 {
        match self.rng.below(10) {
            0 => self.rng.pick(&[0, 8, 0xdead_0000, u64::MAX - 3]),
            1 => {
                let keep = self.rng.below(bytes.len() as u64 + 1) as usize;
                bytes.truncate(keep);
                self.env.host.user(&bytes)
            }
            _ => {
                for _ in 0..self.rng.below(3) {
                    if !bytes.is_empty() {
                        let i = self.rng.below(bytes.len() as u64) as usize;
                        bytes[i] ^= 1 << self.rng.below(8);
                    }
                }
                self.env.host.user(&bytes)
            }
        }
    }

    fn handles(&mut self) -> (u64, u32) {
        let n = self.rng.below(4) as usize;
        let hs: Vec<u32> = (0..n).map(|_| self.handle()).collect();
        let count = if self.rng.chance(5) {
            self.rng.next() as u32
        } else {
            n as u32
        };
        (self.ptr(bytemuck::cast_slice(&hs).to_vec()), count)
    }

    fn points(&mut self) -> u64 {
        let ps: Vec<u64> = (0..4).map(|_| self.rng.below(6)).collect();
        self.ptr(bytemuck::cast_slice(&ps).to_vec())
    }

    fn cmdbuf(&mut self) -> Vec<u8> {
        let mut buf = match self.rng.below(5) {
            0 => (0..self.rng.below(200))
                .map(|_| self.rng.next() as u8)
                .collect(),
            1 => {
                // A render command with random fields.
                let mut r = vec![0u8; std::mem::size_of::<a::CmdRender>()];
                for b in r.iter_mut() {
                    if self.rng.chance(20) {
                        *b = self.rng.next() as u8;
                    }
                }
                cmdbuf(&[(a::CMD_RENDER, r, 0, 0)])
            }
            _ => {
                // Endless kernels are rare: each costs a watchdog period.
                let i = if self.rng.chance(98) {
                    self.rng.below(2)
                } else {
                    2
                };
                self.good_cmdbufs[i as usize].clone()
            }
        };
        for _ in 0..self.rng.below(4) / 2 {
            if !buf.is_empty() {
                let i = self.rng.below(buf.len() as u64) as usize;
                buf[i] = self.rng.next() as u8;
            }
        }
        buf
    }

    fn one(&mut self, f: &File) -> (String, Result<i32, Errno>) {
        let good_file = self.good.file.clone();
        let env = self.env;
        let now = env.host.monotonic_ns();
        let timeout = self.rng.pick(&[0i64, (now + 1_000_000) as i64, -5]);
        let nr = self.rng.below(30);
        macro_rules! go {
            ($f:expr, $name:expr, $nr:expr, $v:expr) => {{
                let file: &File = $f;
                let mut v = $v;
                let size = std::mem::size_of_val(&v);
                let size = if self.rng.chance(5) {
                    self.rng.below(64) as usize
                } else {
                    size
                };
                let dir = if self.rng.chance(3) {
                    self.rng.below(4) as u32
                } else {
                    3
                };
                let req = Request::encode(dir, b'd' as u32, $nr, size);
                let arg = if self.rng.chance(2) {
                    self.rng.next()
                } else {
                    env.host.user(bytemuck::bytes_of(&v))
                };
                let r = file.ioctl(&env.host, req, arg);
                if arg > 0x1000 && env.host.copy_from_user(arg, &mut [0u8; 1]).is_ok() {
                    v = bytemuck::pod_read_unaligned(
                        &env.host.read_user(arg, std::mem::size_of_val(&v)),
                    );
                }
                self.note(&v);
                ($name.to_string(), r)
            }};
        }
        let cmd = |c: u32| DRM_COMMAND_BASE + c;
        match nr {
            0 => go!(
                f,
                "GET_PARAMS",
                cmd(a::GET_PARAMS),
                a::GetParams {
                    param_group: self.rng.below(3) as u32 / 2,
                    pad: 0,
                    pointer: self.ptr(vec![0; 800]),
                    size: self.size()
                }
            ),
            1 => go!(
                f,
                "GET_TIME",
                cmd(a::GET_TIME),
                a::GetTime {
                    flags: self.rng.below(3) / 2,
                    gpu_timestamp: 0
                }
            ),
            2 => go!(
                f,
                "VM_CREATE",
                cmd(a::VM_CREATE),
                a::VmCreate {
                    kernel_start: self.va(),
                    kernel_end: self.va(),
                    vm_id: 0,
                    pad: self.rng.below(20) as u32 / 19
                }
            ),
            3 => go!(
                f,
                "VM_DESTROY",
                cmd(a::VM_DESTROY),
                a::VmDestroy {
                    vm_id: self.handle(),
                    pad: 0
                }
            ),
            4 if self.rng.chance(40) => {
                // A nearly valid bind of a fresh range.
                self.next_bind_va += 0x10_0000;
                let op = a::GemBindOp {
                    flags: self.rng.pick(&[2, 4, 6, 10]),
                    handle: self.handle(),
                    offset: 0,
                    range: 0x4000 * (1 + self.rng.below(2)),
                    addr: self.next_bind_va,
                };
                let userptr = self.env.host.user_pod(&[op]);
                let f = &*good_file;
                let handle = self
                    .rng
                    .pick(&[self.good.data, self.good.usc, self.good.cmds]);
                let op = a::GemBindOp { handle, ..op };
                let userptr = if self.rng.chance(90) {
                    self.env.host.user_pod(&[op])
                } else {
                    userptr
                };
                go!(
                    f,
                    "VM_BIND",
                    cmd(a::VM_BIND),
                    a::VmBind {
                        vm_id: self.good.vm,
                        num_binds: 1,
                        stride: 32,
                        pad: 0,
                        userptr
                    }
                )
            }
            4 => {
                let n = self.rng.below(4);
                let ops: Vec<a::GemBindOp> = (0..n)
                    .map(|_| a::GemBindOp {
                        flags: self.rng.pick(&[2, 4, 6, 10, 1, 0, 16, 14]),
                        handle: self.handle(),
                        offset: if self.rng.chance(80) { 0 } else { self.size() },
                        range: self.size(),
                        addr: self.va(),
                    })
                    .collect();
                let stride = self.rng.pick(&[32, 32, 32, 24, 40, 0]);
                let mut bytes = Vec::new();
                for o in &ops {
                    let mut rec = bytemuck::bytes_of(o).to_vec();
                    rec.resize(stride as usize, 0);
                    bytes.extend(rec);
                }
                go!(
                    f,
                    "VM_BIND",
                    cmd(a::VM_BIND),
                    a::VmBind {
                        vm_id: self.handle(),
                        num_binds: n as u32,
                        stride,
                        pad: 0,
                        userptr: self.ptr(bytes)
                    }
                )
            }
            5 => go!(
                f,
                "GEM_CREATE",
                cmd(a::GEM_CREATE),
                a::GemCreate {
                    size: self.size(),
                    flags: self.rng.below(5) as u32,
                    vm_id: self.handle() * self.rng.below(2) as u32,
                    handle: 0,
                    pad: 0
                }
            ),
            6 => go!(
                f,
                "GEM_MMAP_OFFSET",
                cmd(a::GEM_MMAP_OFFSET),
                a::GemMmapOffset {
                    handle: self.handle(),
                    flags: self.rng.below(10) as u32 / 9,
                    offset: 0
                }
            ),
            7 => go!(
                f,
                "GEM_BIND_OBJECT",
                cmd(a::GEM_BIND_OBJECT),
                a::GemBindObject {
                    op: self.rng.below(3) as u32,
                    flags: self.rng.below(3) as u32,
                    handle: self.handle(),
                    vm_id: self.rng.below(10) as u32 / 9,
                    offset: self.size() & 0xffff_c000,
                    range: self.size(),
                    object_handle: self.handle(),
                    pad: 0
                }
            ),
            8 => go!(
                f,
                "QUEUE_CREATE",
                cmd(a::QUEUE_CREATE),
                a::QueueCreate {
                    flags: self.rng.below(10) as u32 / 9,
                    vm_id: self.handle(),
                    priority: self.rng.below(3) as u32,
                    queue_id: 0,
                    usc_exec_base: if self.rng.chance(90) {
                        1 << 40
                    } else {
                        self.word()
                    }
                }
            ),
            9 => go!(
                f,
                "QUEUE_DESTROY",
                cmd(a::QUEUE_DESTROY),
                a::QueueDestroy {
                    queue_id: self.handle(),
                    pad: 0
                }
            ),
            10 | 11 if self.rng.chance(60) => {
                // A nearly valid submission on a live queue.
                let f = &*good_file;
                let buf = self.cmdbuf();
                let n_in = self.rng.below(2) as u32;
                let n_out = self.rng.below(3) as u32;
                let syncs: Vec<a::Sync> = (0..n_in + n_out)
                    .map(|i| {
                        let t = self.rng.below(2) as u32;
                        // In-syncs must already carry a fence.
                        let h = self.env.syncobj(f);
                        if i < n_in {
                            let mut sig = d::DrmSyncobjTimelineArray {
                                handles: self.env.host.user_pod(&[h]),
                                points: self.env.host.user_pod(&[t as u64]),
                                count_handles: 1,
                                flags: 0,
                            };
                            let _ = self.env.core(f, d::NR_SYNCOBJ_TIMELINE_SIGNAL, &mut sig);
                        }
                        a::Sync {
                            sync_type: t,
                            handle: h,
                            timeline_value: t as u64 * (1 + self.rng.below(4)),
                        }
                    })
                    .collect();
                let syncs = self.env.host.user_pod(&syncs);
                let cmdbuf = self.env.host.user(&buf);
                go!(
                    f,
                    "SUBMIT",
                    cmd(a::SUBMIT),
                    a::Submit {
                        syncs,
                        cmdbuf,
                        flags: 0,
                        queue_id: self.good.queue,
                        in_sync_count: n_in,
                        out_sync_count: n_out,
                        cmdbuf_size: buf.len() as u32,
                        pad: 0
                    }
                )
            }
            10 | 11 => {
                let buf = self.cmdbuf();
                let len = if self.rng.chance(90) {
                    buf.len() as u32
                } else {
                    self.rng.next() as u32
                };
                let n_in = self.rng.below(3) as u32;
                let n_out = self.rng.below(3) as u32;
                let syncs: Vec<a::Sync> = (0..n_in + n_out)
                    .map(|_| a::Sync {
                        sync_type: self.rng.below(3) as u32,
                        handle: self.handle(),
                        timeline_value: self.rng.below(5),
                    })
                    .collect();
                go!(
                    f,
                    "SUBMIT",
                    cmd(a::SUBMIT),
                    a::Submit {
                        syncs: self.ptr(bytemuck::cast_slice(&syncs).to_vec()),
                        cmdbuf: self.ptr(buf),
                        flags: self.rng.below(20) as u32 / 19,
                        queue_id: self.handle(),
                        in_sync_count: n_in,
                        out_sync_count: n_out,
                        cmdbuf_size: len,
                        pad: 0
                    }
                )
            }
            12 => go!(
                f,
                "VERSION",
                d::NR_VERSION,
                d::DrmVersion {
                    name_len: self.rng.below(10),
                    name: self.ptr(vec![0; 10]),
                    desc_len: self.rng.below(30),
                    desc: self.ptr(vec![0; 30]),
                    ..Default::default()
                }
            ),
            13 => go!(
                f,
                "GET_CAP",
                d::NR_GET_CAP,
                d::DrmGetCap {
                    capability: self.rng.below(0x20),
                    value: 0
                }
            ),
            14 => go!(
                f,
                "GEM_CLOSE",
                d::NR_GEM_CLOSE,
                d::DrmGemClose {
                    handle: self.handle(),
                    pad: 0
                }
            ),
            15 => go!(
                f,
                "PRIME_H2FD",
                d::NR_PRIME_HANDLE_TO_FD,
                d::DrmPrimeHandle {
                    handle: self.handle(),
                    flags: self.rng.pick(&[0, d::DRM_CLOEXEC, d::DRM_RDWR, 4]),
                    fd: 0
                }
            ),
            16 => {
                let fd = if self.fds.is_empty() || self.rng.chance(10) {
                    self.rng.next() as i32
                } else {
                    self.rng.pick(&self.fds)
                };
                go!(
                    f,
                    "PRIME_FD2H",
                    d::NR_PRIME_FD_TO_HANDLE,
                    d::DrmPrimeHandle {
                        handle: 0,
                        flags: 0,
                        fd
                    }
                )
            }
            17 => go!(
                f,
                "SYNCOBJ_CREATE",
                d::NR_SYNCOBJ_CREATE,
                d::DrmSyncobjCreate {
                    handle: 0,
                    flags: self.rng.below(3) as u32
                }
            ),
            18 => go!(
                f,
                "SYNCOBJ_DESTROY",
                d::NR_SYNCOBJ_DESTROY,
                d::DrmSyncobjDestroy {
                    handle: self.handle(),
                    pad: 0
                }
            ),
            19 => go!(
                f,
                "SYNCOBJ_H2FD",
                d::NR_SYNCOBJ_HANDLE_TO_FD,
                d::DrmSyncobjHandle {
                    handle: self.handle(),
                    flags: self.rng.below(4) as u32,
                    fd: 0,
                    pad: 0,
                    point: self.rng.below(3)
                }
            ),
            20 => {
                let fd = if self.fds.is_empty() || self.rng.chance(10) {
                    self.rng.next() as i32
                } else {
                    self.rng.pick(&self.fds)
                };
                go!(
                    f,
                    "SYNCOBJ_FD2H",
                    d::NR_SYNCOBJ_FD_TO_HANDLE,
                    d::DrmSyncobjHandle {
                        handle: self.handle(),
                        flags: self.rng.below(4) as u32,
                        fd,
                        pad: 0,
                        point: self.rng.below(3)
                    }
                )
            }
            21 => {
                let (handles, count) = self.handles();
                go!(
                    f,
                    "SYNCOBJ_WAIT",
                    d::NR_SYNCOBJ_WAIT,
                    d::DrmSyncobjWait {
                        handles,
                        timeout_nsec: timeout,
                        count_handles: count,
                        flags: self.rng.below(16) as u32,
                        ..Default::default()
                    }
                )
            }
            22 => {
                let (handles, count) = self.handles();
                go!(
                    f,
                    "SYNCOBJ_TL_WAIT",
                    d::NR_SYNCOBJ_TIMELINE_WAIT,
                    d::DrmSyncobjTimelineWait {
                        handles,
                        points: self.points(),
                        timeout_nsec: timeout,
                        count_handles: count,
                        flags: self.rng.below(16) as u32,
                        ..Default::default()
                    }
                )
            }
            23 => {
                let (handles, count) = self.handles();
                go!(
                    f,
                    "SYNCOBJ_RESET",
                    d::NR_SYNCOBJ_RESET,
                    d::DrmSyncobjArray {
                        handles,
                        count_handles: count,
                        pad: 0
                    }
                )
            }
            24 => {
                let (handles, count) = self.handles();
                go!(
                    f,
                    "SYNCOBJ_SIGNAL",
                    d::NR_SYNCOBJ_SIGNAL,
                    d::DrmSyncobjArray {
                        handles,
                        count_handles: count,
                        pad: 0
                    }
                )
            }
            25 => {
                let (handles, count) = self.handles();
                go!(
                    f,
                    "SYNCOBJ_TL_SIGNAL",
                    d::NR_SYNCOBJ_TIMELINE_SIGNAL,
                    d::DrmSyncobjTimelineArray {
                        handles,
                        points: self.points(),
                        count_handles: count,
                        flags: self.rng.below(10) as u32 / 9
                    }
                )
            }
            26 => {
                let (handles, count) = self.handles();
                go!(
                    f,
                    "SYNCOBJ_QUERY",
                    d::NR_SYNCOBJ_QUERY,
                    d::DrmSyncobjTimelineArray {
                        handles,
                        points: self.points(),
                        count_handles: count,
                        flags: self.rng.below(3) as u32
                    }
                )
            }
            27 => go!(
                f,
                "SYNCOBJ_TRANSFER",
                d::NR_SYNCOBJ_TRANSFER,
                d::DrmSyncobjTransfer {
                    src_handle: self.handle(),
                    dst_handle: self.handle(),
                    src_point: self.rng.below(4),
                    dst_point: self.rng.below(4),
                    flags: 0,
                    pad: 0
                }
            ),
            _ => {
                // Entirely random request words.
                let req = self.rng.next() & 0xffff_ffff;
                let arg = self.env.host.user(&[0u8; 64]);
                ("RANDOM".to_string(), f.ioctl(&env.host, req, arg))
            }
        }
    }

    /// Remember fds handed out so later imports can use them.
    fn note<T: bytemuck::Pod>(&mut self, v: &T) {
        let bytes = bytemuck::bytes_of(v);
        if bytes.len() >= 12 {
            let fd = i32::from_ne_bytes(bytes[8..12].try_into().unwrap());
            if (100..100_000).contains(&fd)
                && self.env.host.lookup_fd(fd).is_ok()
                && !self.fds.contains(&fd)
            {
                self.fds.push(fd);
            }
        }
    }
}

#[test]
fn fuzz_ioctls_then_valid_work_and_no_leaks() {
    // Accounting limit far above what the fuzzer can reach, so the check of
    // valid work afterwards does not depend on what it left allocated
    // (heap pages are only committed when touched).
    let config = agx16_kernel::params::DeviceConfig {
        job_timeout_ms: 50,
        memory_limit: 64 << 30,
        ..Default::default()
    };
    let env = Env {
        dev: agx16_kernel::Device::new(
            config,
            Box::new(agx16_kernel::backing::HeapAllocator),
            Arc::new(ScriptBackend),
            None,
        ),
        host: TestHost::default(),
    };
    let start = Instant::now();
    let (report, total) = {
        let rig = env.rig();
        let rig_file = rig.file.clone();
        let good = vec![
            env.one_launch(&rig, 0, &program(OP_STORE, DATA_VA, 7, 0), 4),
            env.one_launch(&rig, 1, &program(OP_STORE, 0x7_0000_0000, 7, 0), 4),
            env.one_launch(&rig, 2, &program(OP_SPIN, 0, 0, 0), 1),
        ];
        let other = env.open();
        let mut fz = Fuzzer {
            env: &env,
            rng: Rng(0x5eed_a9c1_6000_0001),
            good_cmdbufs: good,
            good: rig,
            fds: Vec::new(),
            next_bind_va: 0x5_0000_0000,
        };
        let mut report: BTreeMap<(String, String), usize> = BTreeMap::new();
        let allowed = [
            Errno::EINVAL,
            Errno::ENOENT,
            Errno::EFAULT,
            Errno::ENOMEM,
            Errno::EEXIST,
            Errno::EACCES,
            Errno::EOPNOTSUPP,
            Errno::ENOTSUPP,
            Errno::ETIME,
            Errno::EBADF,
            Errno::ENOSPC,
        ];
        for i in 0..IOCTLS {
            if i % 2000 == 0 {
                // The fuzzer destroys objects too: set up a fresh good rig
                // with the same programs and streams.
                let fresh = env.rig();
                for slot in 0..3 {
                    let usc = env.read_bo(&fz.good.file, fz.good.usc, slot * 0x1000, 64);
                    let cmds = env.read_bo(&fz.good.file, fz.good.cmds, slot * 0x1000, 64);
                    env.write_bo(&fresh.file, fresh.usc, slot * 0x1000, &usc);
                    env.write_bo(&fresh.file, fresh.cmds, slot * 0x1000, &cmds);
                }
                fz.good = fresh;
            }
            let f = if i % 3 == 0 { &other } else { &rig_file };
            // (Device memory is not compared: retiring GPU jobs release BOs
            // they pinned at any moment.)
            let before = (rig_file.counts(), other.counts());
            let (name, r) = fz.one(f);
            if let Err(e) = r {
                assert!(allowed.contains(&e), "{name} returned unexpected {e}");
                // A rejected ioctl changes nothing. (EFAULT while copying the
                // result back comes after the work, as in Linux.)
                if e != Errno::EFAULT {
                    let after = (rig_file.counts(), other.counts());
                    assert_eq!(before, after, "{name} failed with {e} but changed state");
                }
            }
            let key = (
                name,
                r.map_or_else(|e| e.name().to_string(), |_| "ok".into()),
            );
            *report.entry(key).or_default() += 1;
        }
        // Valid work still completes with the right result on a fresh
        // queue of the fuzzed file (the fuzzer may have destroyed ours).
        let vm = env.vm(&rig_file);
        let data = env.bo(&rig_file, DATA_SIZE);
        let usc = env.bo(&rig_file, USC_SIZE);
        let cmds = env.bo(&rig_file, CMD_SIZE);
        let rw = a::BIND_READ | a::BIND_WRITE;
        env.bind(&rig_file, vm, data, DATA_VA, DATA_SIZE, rw)
            .unwrap();
        env.bind(&rig_file, vm, usc, USC_VA, USC_SIZE, a::BIND_READ)
            .unwrap();
        env.bind(&rig_file, vm, cmds, CMD_VA, CMD_SIZE, a::BIND_READ)
            .unwrap();
        let fresh = Rig {
            file: rig_file.clone(),
            vm,
            queue: env.queue(&rig_file, vm),
            data,
            usc,
            cmds,
        };
        let out = env.syncobj(&fresh.file);
        let cmd = env.one_launch(&fresh, 0, &program(OP_STORE, DATA_VA + 0x100, 40, 0), 16);
        env.submit(&fresh.file, fresh.queue, &cmd, &[], &[binary(out)])
            .unwrap();
        env.wait(&fresh.file, out, 0, Duration::from_secs(20))
            .unwrap();
        assert_eq!(
            fresh.file.syncobj(out).unwrap().fence().unwrap().status(),
            Some(Ok(()))
        );
        assert_eq!(
            words(&env.read_bo(&fresh.file, data, 0x100, 64)),
            (40..56).collect::<Vec<u32>>()
        );
        let total: usize = report.values().sum();
        (report, total)
    };
    // Every open is closed; fds the fuzzer got are closed too.
    for fd in 0..100_000 {
        env.host.close_fd(fd);
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while LIVE_WORKERS.load(Ordering::Relaxed) != 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let st = env.dev.stats();
    println!(
        "fuzz: {total} ioctls in {:?}; jobs submitted {}, completed {}, failed {}, cancelled {}, faults {}, timeouts {}",
        start.elapsed(),
        st.jobs_submitted.load(Ordering::Relaxed),
        st.jobs_completed.load(Ordering::Relaxed),
        st.jobs_failed.load(Ordering::Relaxed),
        st.jobs_cancelled.load(Ordering::Relaxed),
        st.faults.load(Ordering::Relaxed),
        st.timeouts.load(Ordering::Relaxed),
    );
    for ((name, res), n) in &report {
        println!("  {name:18} {res:10} {n}");
    }
    assert!(total >= 100_000);
    let ok: usize = report
        .iter()
        .filter(|((_, r), _)| r == "ok")
        .map(|(_, n)| n)
        .sum();
    assert!(
        ok > 5_000,
        "the fuzzer must reach the success paths too ({ok})"
    );
    assert!(st.jobs_completed.load(Ordering::Relaxed) > 0);
    assert_eq!(
        LIVE_WORKERS.load(Ordering::Relaxed),
        0,
        "queue threads leaked"
    );
    assert_eq!(env.dev.memory_used(), 0, "BO memory leaked");
    assert_eq!(LIVE_SYNCOBJS.load(Ordering::Relaxed), 0, "syncobjs leaked");
    assert_eq!(LIVE_FENCES.load(Ordering::Relaxed), 0, "fences leaked");
}

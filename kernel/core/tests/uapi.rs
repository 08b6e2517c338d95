//! Per-ioctl validation against the rules of the G16 driver and the asahi
//! UAPI header (the oracle is the documented rule each test names).

mod common;
use agx16_kernel::params::{PAGE_SIZE, VM_END};
use agx16_kernel::uapi::asahi as a;
use agx16_kernel::uapi::drm as d;
use agx16_kernel::uapi::ioctl::{drm_iow, drm_iowr, DRM_COMMAND_BASE};
use agx16_kernel::Errno;
use common::*;

#[test]
fn get_params_reports_the_m4() {
    let env = Env::new();
    let f = env.open();
    let out = env.host.user(&[0xaau8; 800]);
    let mut gp = a::GetParams {
        pointer: out,
        size: 800,
        ..Default::default()
    };
    // DRM_IOCTL_ASAHI_GET_PARAMS is _IOW: nothing is copied back.
    let req = drm_iow(DRM_COMMAND_BASE + a::GET_PARAMS, 24);
    assert_eq!(env.raw(&f, req, &mut gp), Ok(0));
    let size = std::mem::size_of::<a::ParamsGlobal>();
    let bytes = env.host.read_user(out, 800);
    let p: a::ParamsGlobal = bytemuck::pod_read_unaligned(&bytes[..size]);
    assert_eq!(
        (p.gpu_generation, p.gpu_variant, p.chip_id),
        (16, b'G' as u32, 0x8132)
    );
    assert_eq!(
        (p.num_dies, p.num_clusters_total, p.num_cores_per_cluster),
        (1, 1, 10)
    );
    assert_eq!((p.vm_start, p.vm_end), (0x4000, (1 << 42) - 0x8000));
    assert_eq!(p.vm_kernel_min_size, 0x2000_0000);
    assert_eq!((p.max_commands_per_submission, p.max_attachments), (64, 16));
    assert_eq!(p.command_timestamp_frequency_hz, 1_000_000_000);
    assert_eq!(p.core_masks[0], 0x3ff);
    // The kernel never writes past the caller's size.
    assert!(bytes[size..].iter().all(|&b| b == 0xaa));
    let short = env.host.user(&[0xaau8; 16]);
    gp.pointer = short;
    gp.size = 8;
    assert_eq!(env.raw(&f, req, &mut gp), Ok(0));
    assert_eq!(&env.host.read_user(short, 16)[8..], &[0xaa; 8]);
    gp.param_group = 1;
    assert_eq!(env.raw(&f, req, &mut gp), Err(Errno::EINVAL));
    gp.param_group = 0;
    gp.pointer = 8; // unmapped
    assert_eq!(env.raw(&f, req, &mut gp), Err(Errno::EFAULT));
}

#[test]
fn version_and_caps() {
    let env = Env::new();
    let f = env.open();
    let name = env.host.user(&[0u8; 3]);
    let mut v = d::DrmVersion {
        name_len: 3,
        name,
        ..Default::default()
    };
    assert_eq!(env.core(&f, d::NR_VERSION, &mut v), Ok(0));
    // Truncated to the user's length; the full length is reported.
    assert_eq!(env.host.read_user(name, 3), b"asa");
    assert_eq!((v.name_len, v.desc_len), (5, 18));
    for (cap, want) in [
        (d::CAP_SYNCOBJ, Ok(1)),
        (d::CAP_SYNCOBJ_TIMELINE, Ok(1)),
        (d::CAP_PRIME, Ok(3)),
        (d::CAP_TIMESTAMP_MONOTONIC, Ok(1)),
        (0x1, Err(Errno::EOPNOTSUPP)), // DUMB_BUFFER needs KMS
    ] {
        let mut c = d::DrmGetCap {
            capability: cap,
            value: 77,
        };
        let r = env.core(&f, d::NR_GET_CAP, &mut c).map(|_| c.value);
        assert_eq!(r, want, "cap {cap:#x}");
    }
    // A core ioctl without DRM_RENDER_ALLOW (GET_MAGIC) on a render node.
    let mut x = 0u64;
    assert_eq!(env.core(&f, 0x02, &mut x), Err(Errno::EACCES));
    assert_eq!(env.raw(&f, drm_iowr(0xf0, 8), &mut x), Err(Errno::EINVAL));
    assert_eq!(
        env.raw(&f, drm_iowr(DRM_COMMAND_BASE + 11, 8), &mut x),
        Err(Errno::EINVAL)
    );
}

#[test]
fn vm_create_rules() {
    let env = Env::new();
    let f = env.open();
    let ok = |s: u64, e: u64, pad: u32| {
        let mut v = a::VmCreate {
            kernel_start: s,
            kernel_end: e,
            vm_id: 0,
            pad,
        };
        env.asahi(&f, a::VM_CREATE, &mut v).map(|_| v.vm_id)
    };
    assert_eq!(ok(KERNEL_START, KERNEL_END, 0), Ok(1));
    assert_eq!(ok(KERNEL_START, KERNEL_END, 0), Ok(2));
    assert_eq!(
        ok(KERNEL_START, KERNEL_END - PAGE_SIZE, 0),
        Err(Errno::EINVAL)
    ); // < min size
    assert_eq!(ok(KERNEL_START + 4, KERNEL_END + 4, 0), Err(Errno::EINVAL)); // alignment
    assert_eq!(ok(0, 0x2000_0000, 0), Err(Errno::EINVAL)); // below vm_start
    assert_eq!(
        ok(VM_END - 0x2000_0000, VM_END + PAGE_SIZE, 0),
        Err(Errno::EINVAL)
    );
    assert_eq!(ok(KERNEL_END, KERNEL_START, 0), Err(Errno::EINVAL));
    assert_eq!(ok(KERNEL_START, KERNEL_END, 1), Err(Errno::EINVAL));
    assert_eq!(f.counts().vms, 2);
    let mut dv = a::VmDestroy { vm_id: 9, pad: 0 };
    assert_eq!(env.asahi(&f, a::VM_DESTROY, &mut dv), Err(Errno::ENOENT));
    dv.vm_id = 1;
    assert_eq!(env.asahi(&f, a::VM_DESTROY, &mut dv), Ok(0));
    assert_eq!(env.asahi(&f, a::VM_DESTROY, &mut dv), Err(Errno::ENOENT));
}

#[test]
fn gem_create_rounds_to_pages_and_checks_flags() {
    let env = Env::new();
    let f = env.open();
    let mut g = a::GemCreate {
        size: 1,
        flags: a::GEM_WRITEBACK,
        ..Default::default()
    };
    assert_eq!(env.asahi(&f, a::GEM_CREATE, &mut g), Ok(0));
    assert_eq!(f.bo(g.handle).unwrap().size, PAGE_SIZE);
    assert_eq!(env.dev.memory_used(), PAGE_SIZE);
    for (size, flags, vm_id, want) in [
        (0, 0, 0, Errno::EINVAL),
        (4096, 4, 0, Errno::EINVAL),
        (4096, 0, 1, Errno::EINVAL), // vm_id without VM_PRIVATE
        (4096, a::GEM_VM_PRIVATE, 7, Errno::ENOENT), // no such VM
        (u64::MAX, 0, 0, Errno::EINVAL),
        (1 << 40, 0, 0, Errno::ENOMEM), // above the device's memory
    ] {
        let mut g = a::GemCreate {
            size,
            flags,
            vm_id,
            ..Default::default()
        };
        assert_eq!(
            env.asahi(&f, a::GEM_CREATE, &mut g),
            Err(want),
            "{size} {flags} {vm_id}"
        );
    }
    assert_eq!(f.counts().bos, 1);
    let mut close = d::DrmGemClose { handle: 5, pad: 0 };
    assert_eq!(
        env.core(&f, d::NR_GEM_CLOSE, &mut close),
        Err(Errno::EINVAL)
    );
    close.handle = g.handle;
    assert_eq!(env.core(&f, d::NR_GEM_CLOSE, &mut close), Ok(0));
    assert_eq!(env.dev.memory_used(), 0);
    // Handles are reused lowest-first, like idr.
    assert_eq!(env.bo(&f, 10), 1);
}

#[test]
fn mmap_offset_is_per_object_and_checked() {
    let env = Env::new();
    let f = env.open();
    let h = env.bo(&f, 3 * PAGE_SIZE);
    let mut m = a::GemMmapOffset {
        handle: h,
        flags: 0,
        offset: 0,
    };
    assert_eq!(env.asahi(&f, a::GEM_MMAP_OFFSET, &mut m), Ok(0));
    assert_eq!(m.offset % PAGE_SIZE, 0);
    assert!(f.mmap_lookup(m.offset, 3 * PAGE_SIZE).is_ok());
    assert_eq!(
        f.mmap_lookup(m.offset, 4 * PAGE_SIZE).err(),
        Some(Errno::EINVAL)
    );
    assert_eq!(
        f.mmap_lookup(m.offset + PAGE_SIZE, PAGE_SIZE).err(),
        Some(Errno::EINVAL)
    );
    m.flags = 1;
    assert_eq!(
        env.asahi(&f, a::GEM_MMAP_OFFSET, &mut m),
        Err(Errno::EINVAL)
    );
    m = a::GemMmapOffset {
        handle: 99,
        flags: 0,
        offset: 0,
    };
    assert_eq!(
        env.asahi(&f, a::GEM_MMAP_OFFSET, &mut m),
        Err(Errno::ENOENT)
    );
}

#[test]
fn vm_bind_g16_rules() {
    let env = Env::new();
    let f = env.open();
    let vm = env.vm(&f);
    let h = env.bo(&f, 4 * PAGE_SIZE);
    let rw = a::BIND_READ | a::BIND_WRITE;
    let bind = |addr, range, flags| env.bind(&f, vm, h, addr, range, flags);
    assert_eq!(bind(DATA_VA, 4 * PAGE_SIZE, rw), Ok(0));
    assert_eq!(bind(DATA_VA, PAGE_SIZE, rw), Err(Errno::EEXIST));
    assert_eq!(
        bind(DATA_VA + 0x10_0000, 5 * PAGE_SIZE, rw),
        Err(Errno::EINVAL)
    ); // beyond BO
    assert_eq!(
        bind(DATA_VA + 0x10_0000 + 4, PAGE_SIZE, rw),
        Err(Errno::EINVAL)
    ); // alignment
    assert_eq!(bind(DATA_VA + 0x10_0000, 0, rw), Err(Errno::EINVAL));
    assert_eq!(bind(DATA_VA + 0x10_0000, PAGE_SIZE, 0), Err(Errno::EINVAL)); // no access
    assert_eq!(
        bind(DATA_VA + 0x10_0000, PAGE_SIZE, 0x10 | rw),
        Err(Errno::EINVAL)
    );
    assert_eq!(bind(0, PAGE_SIZE, rw), Err(Errno::EINVAL)); // below vm_start
    assert_eq!(
        bind(VM_END - PAGE_SIZE, 2 * PAGE_SIZE, rw),
        Err(Errno::EINVAL)
    );
    assert_eq!(bind(KERNEL_START, PAGE_SIZE, rw), Err(Errno::EINVAL)); // kernel window
                                                                       // G16 firmware ranges (g16_drm vm_bind, g16_compute, g16_render).
    for fw in [
        0x71_0000_0000u64,
        0x72_ffff_c000,
        0x70_0000_0000,
        0x70_02cc_0000,
        0x10_00c6_0000,
        0x10_0008_8000 + 3 * 0x2_8000,
    ] {
        // The kernel window of this VM sits at 0x10_0000_0000, so use a
        // second VM whose window is elsewhere for the 0x10_xxxx ranges.
        let mut v = a::VmCreate {
            kernel_start: 0x40_0000_0000,
            kernel_end: 0x40_2000_0000,
            ..Default::default()
        };
        env.asahi(&f, a::VM_CREATE, &mut v).unwrap();
        assert_eq!(
            env.bind(&f, v.vm_id, h, fw, PAGE_SIZE, rw),
            Err(Errno::EINVAL),
            "{fw:#x}"
        );
        assert_eq!(
            env.bind(&f, v.vm_id, h, 0x50_0000_0000, PAGE_SIZE, rw),
            Ok(0)
        );
    }
    // Single-page binds repeat one page; the offset must leave a page.
    let op = |flags, offset, range, addr| a::GemBindOp {
        flags,
        handle: h,
        offset,
        range,
        addr,
    };
    let batch = |ops: &[a::GemBindOp]| {
        let mut b = a::VmBind {
            vm_id: vm,
            num_binds: ops.len() as u32,
            stride: 32,
            pad: 0,
            userptr: env.host.user_pod(ops),
        };
        env.asahi(&f, a::VM_BIND, &mut b)
    };
    let single = a::BIND_READ | a::BIND_SINGLE_PAGE;
    assert_eq!(
        batch(&[op(single, 3 * PAGE_SIZE, 64 * PAGE_SIZE, 0x3_0000_0000)]),
        Ok(0)
    );
    assert_eq!(
        batch(&[op(single, 4 * PAGE_SIZE, PAGE_SIZE, 0x3_1000_0000)]),
        Err(Errno::EINVAL)
    );
    // A batch with one bad record changes nothing.
    let before = f.counts();
    assert_eq!(
        batch(&[op(rw, 0, PAGE_SIZE, 0x4_0000_0000), op(rw, 0, PAGE_SIZE, 3)]),
        Err(Errno::EINVAL)
    );
    assert_eq!(f.counts(), before);
    // Unbind splits a mapping; handle/offset must be zero.
    assert_eq!(
        batch(&[op(a::BIND_UNBIND, 0, PAGE_SIZE, DATA_VA + PAGE_SIZE)]),
        Err(Errno::EINVAL)
    );
    let unbind = a::GemBindOp {
        flags: a::BIND_UNBIND,
        handle: 0,
        offset: 0,
        range: PAGE_SIZE,
        addr: DATA_VA + PAGE_SIZE,
    };
    let n = f.counts().mappings;
    assert_eq!(batch(&[unbind]), Ok(0));
    assert_eq!(f.counts().mappings, n + 1);
    assert_eq!(bind(DATA_VA + PAGE_SIZE, PAGE_SIZE, rw), Ok(0));
    // Batch limits.
    let mut b = a::VmBind {
        vm_id: vm,
        num_binds: 4097,
        stride: 32,
        pad: 0,
        userptr: 0,
    };
    assert_eq!(env.asahi(&f, a::VM_BIND, &mut b), Err(Errno::EINVAL));
    b.num_binds = 1;
    b.stride = 0;
    assert_eq!(env.asahi(&f, a::VM_BIND, &mut b), Err(Errno::EINVAL));
    b.stride = 32;
    assert_eq!(env.asahi(&f, a::VM_BIND, &mut b), Err(Errno::EFAULT));
    b.vm_id = 77;
    b.userptr = env.host.user_pod(&[unbind]);
    assert_eq!(env.asahi(&f, a::VM_BIND, &mut b), Err(Errno::ENOENT));
    // Longer records are fine if the extra bytes are zero (UAPI rule).
    let mut rec = bytemuck::bytes_of(&op(rw, 0, PAGE_SIZE, 0x6_0000_0000)).to_vec();
    rec.extend([0u8; 8]);
    let mut b = a::VmBind {
        vm_id: vm,
        num_binds: 1,
        stride: 40,
        pad: 0,
        userptr: env.host.user(&rec),
    };
    assert_eq!(env.asahi(&f, a::VM_BIND, &mut b), Ok(0));
    rec[39] = 1;
    rec[24..32].copy_from_slice(&0x6_1000_0000u64.to_le_bytes());
    b.userptr = env.host.user(&rec);
    assert_eq!(env.asahi(&f, a::VM_BIND, &mut b), Err(Errno::EINVAL));
}

#[test]
fn vm_private_objects_stay_in_their_vm() {
    let env = Env::new();
    let f = env.open();
    let vm1 = env.vm(&f);
    let vm2 = env.vm(&f);
    let mut g = a::GemCreate {
        size: PAGE_SIZE,
        flags: a::GEM_VM_PRIVATE,
        vm_id: vm1,
        ..Default::default()
    };
    env.asahi(&f, a::GEM_CREATE, &mut g).unwrap();
    let rw = a::BIND_READ | a::BIND_WRITE;
    assert_eq!(
        env.bind(&f, vm2, g.handle, DATA_VA, PAGE_SIZE, rw),
        Err(Errno::EINVAL)
    );
    assert_eq!(env.bind(&f, vm1, g.handle, DATA_VA, PAGE_SIZE, rw), Ok(0));
    let mut p = d::DrmPrimeHandle {
        handle: g.handle,
        flags: d::DRM_CLOEXEC,
        fd: -1,
    };
    assert_eq!(
        env.core(&f, d::NR_PRIME_HANDLE_TO_FD, &mut p),
        Err(Errno::EINVAL)
    );
}

#[test]
fn queue_rules() {
    let env = Env::new();
    let f = env.open();
    let vm = env.vm(&f);
    let q = |flags, vm_id, priority, usc| {
        let mut c = a::QueueCreate {
            flags,
            vm_id,
            priority,
            queue_id: 0,
            usc_exec_base: usc,
        };
        env.asahi(&f, a::QUEUE_CREATE, &mut c).map(|_| c.queue_id)
    };
    assert_eq!(q(0, vm, 0, 1 << 40), Ok(1));
    assert_eq!(q(0, vm, 1, 1 << 40), Ok(2));
    assert_eq!(q(0, vm, 2, 1 << 40), Err(Errno::EINVAL)); // G16: priority <= 1
    assert_eq!(q(0, vm, 0, 1 << 41), Err(Errno::EINVAL)); // usc_exec_base == 1<<40
    assert_eq!(q(1, vm, 0, 1 << 40), Err(Errno::EINVAL));
    assert_eq!(q(0, 42, 0, 1 << 40), Err(Errno::ENOENT));
    // Destroying a VM in use hides it; queues keep it alive.
    let mut dv = a::VmDestroy { vm_id: vm, pad: 0 };
    assert_eq!(env.asahi(&f, a::VM_DESTROY, &mut dv), Ok(0));
    assert_eq!(q(0, vm, 0, 1 << 40), Err(Errno::ENOENT));
    assert_eq!(f.counts().vms, 1);
    for id in [1, 2] {
        let mut d = a::QueueDestroy {
            queue_id: id,
            pad: 0,
        };
        assert_eq!(env.asahi(&f, a::QUEUE_DESTROY, &mut d), Ok(0));
    }
    assert_eq!(f.counts().vms, 0);
    let mut d = a::QueueDestroy {
        queue_id: 1,
        pad: 0,
    };
    assert_eq!(env.asahi(&f, a::QUEUE_DESTROY, &mut d), Err(Errno::ENOENT));
}

#[test]
fn timestamp_objects_and_get_time() {
    let env = Env::new();
    let f = env.open();
    let h = env.bo(&f, 2 * PAGE_SIZE);
    let mut b = a::GemBindObject {
        op: a::BIND_OBJECT_OP_BIND,
        flags: a::BIND_OBJECT_USAGE_TIMESTAMPS,
        handle: h,
        range: PAGE_SIZE,
        offset: PAGE_SIZE,
        ..Default::default()
    };
    assert_eq!(env.asahi(&f, a::GEM_BIND_OBJECT, &mut b), Ok(0));
    assert_eq!(b.object_handle, 1);
    type Mutation = fn(&mut a::GemBindObject);
    let cases: [(Mutation, Errno); 6] = [
        (|b: &mut a::GemBindObject| b.flags = 0, Errno::EINVAL),
        (
            |b: &mut a::GemBindObject| b.range = 3 * PAGE_SIZE,
            Errno::EINVAL,
        ),
        (|b: &mut a::GemBindObject| b.offset = 12, Errno::EINVAL),
        (|b: &mut a::GemBindObject| b.vm_id = 1, Errno::EINVAL),
        (|b: &mut a::GemBindObject| b.handle = 9, Errno::ENOENT),
        (|b: &mut a::GemBindObject| b.op = 5, Errno::EINVAL),
    ];
    for (mutate, want) in cases {
        let mut c = b;
        mutate(&mut c);
        assert_eq!(env.asahi(&f, a::GEM_BIND_OBJECT, &mut c), Err(want));
    }
    let mut u = a::GemBindObject {
        op: a::BIND_OBJECT_OP_UNBIND,
        object_handle: 1,
        ..Default::default()
    };
    assert_eq!(env.asahi(&f, a::GEM_BIND_OBJECT, &mut u), Ok(0));
    assert_eq!(
        env.asahi(&f, a::GEM_BIND_OBJECT, &mut u),
        Err(Errno::ENOENT)
    );
    let mut t0 = a::GetTime::default();
    let mut t1 = a::GetTime::default();
    env.asahi(&f, a::GET_TIME, &mut t0).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    env.asahi(&f, a::GET_TIME, &mut t1).unwrap();
    // 1 GHz: nanoseconds.
    let dt = t1.gpu_timestamp - t0.gpu_timestamp;
    assert!((5_000_000..1_000_000_000).contains(&dt), "{dt}");
    t0.flags = 1;
    assert_eq!(env.asahi(&f, a::GET_TIME, &mut t0), Err(Errno::EINVAL));
}

//! Isolation between two opens: handles, VMs, queues, syncobjs and memory
//! are private except through a dma-buf the owner exported; the GPU can
//! only reach pages bound in the job's own VM.

mod common;
use agx16_kernel::params::PAGE_SIZE;
use agx16_kernel::uapi::asahi as a;
use agx16_kernel::uapi::drm as d;
use agx16_kernel::Errno;
use common::*;
use std::time::Duration;

#[test]
fn objects_are_private_to_their_open() {
    let env = Env::new();
    let a_rig = env.rig();
    let b = env.open();
    let af = &a_rig.file;
    // B has no handles: A's handle numbers mean nothing there.
    let mut m = a::GemMmapOffset {
        handle: a_rig.data,
        ..Default::default()
    };
    assert_eq!(
        env.asahi(&b, a::GEM_MMAP_OFFSET, &mut m),
        Err(Errno::ENOENT)
    );
    let mut close = d::DrmGemClose {
        handle: a_rig.data,
        pad: 0,
    };
    assert_eq!(
        env.core(&b, d::NR_GEM_CLOSE, &mut close),
        Err(Errno::EINVAL)
    );
    // A's fake offsets cannot be mapped through B.
    let mut m = a::GemMmapOffset {
        handle: a_rig.data,
        ..Default::default()
    };
    env.asahi(af, a::GEM_MMAP_OFFSET, &mut m).unwrap();
    assert!(b.mmap_lookup(m.offset, PAGE_SIZE).is_err());
    // VM, queue and syncobj ids are per open.
    assert_eq!(
        env.bind(&b, a_rig.vm, a_rig.data, DATA_VA, PAGE_SIZE, a::BIND_READ),
        Err(Errno::ENOENT)
    );
    let cmd = env.one_launch(&a_rig, 0, &program(OP_STORE, DATA_VA, 1, 0), 1);
    assert_eq!(
        env.submit(&b, a_rig.queue, &cmd, &[], &[]),
        Err(Errno::ENOENT)
    );
    let s = env.syncobj(af);
    let mut sig = d::DrmSyncobjArray {
        handles: env.host.user_pod(&[s]),
        count_handles: 1,
        pad: 0,
    };
    assert_eq!(
        env.core(&b, d::NR_SYNCOBJ_SIGNAL, &mut sig),
        Err(Errno::ENOENT)
    );
    // B's own VM 1 is a different VM from A's VM 1.
    let bvm = env.vm(&b);
    assert_eq!(bvm, a_rig.vm);
    let bbo = env.bo(&b, PAGE_SIZE);
    assert_eq!(
        env.bind(
            &b,
            bvm,
            bbo,
            DATA_VA,
            PAGE_SIZE,
            a::BIND_READ | a::BIND_WRITE
        ),
        Ok(0)
    );
    assert_eq!(af.counts().mappings, 3, "A's VM unchanged");
}

#[test]
fn gpu_cannot_reach_another_opens_memory() {
    let env = Env::new();
    let a_rig = env.rig();
    let b_file = env.open();
    let b_vm = env.vm(&b_file);
    let usc = env.bo(&b_file, USC_SIZE);
    let cmds = env.bo(&b_file, CMD_SIZE);
    env.bind(&b_file, b_vm, usc, USC_VA, USC_SIZE, a::BIND_READ)
        .unwrap();
    env.bind(&b_file, b_vm, cmds, CMD_VA, CMD_SIZE, a::BIND_READ)
        .unwrap();
    let b_rig = Rig {
        file: b_file.clone(),
        vm: b_vm,
        queue: env.queue(&b_file, b_vm),
        data: 0,
        usc,
        cmds,
    };
    env.write_bo(&a_rig.file, a_rig.data, 0, &[0x55; 16]);
    // B's job targets the VA where A mapped its data: unmapped in B's VM.
    let out = env.syncobj(&b_file);
    let cmd = env.one_launch(&b_rig, 0, &program(OP_STORE, DATA_VA, 0, 0), 4);
    env.submit(&b_file, b_rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    env.wait(&b_file, out, 0, Duration::from_secs(10)).unwrap();
    let status = b_file.syncobj(out).unwrap().fence().unwrap().status();
    assert_eq!(status, Some(Err(Errno::EIO)));
    assert_eq!(env.read_bo(&a_rig.file, a_rig.data, 0, 16), [0x55; 16]);
}

#[test]
fn dma_buf_is_the_only_way_to_share() {
    let env = Env::new();
    let a_rig = env.rig();
    let b_file = env.open();
    let mut p = d::DrmPrimeHandle {
        handle: a_rig.data,
        flags: d::DRM_CLOEXEC | d::DRM_RDWR,
        fd: -1,
    };
    assert_eq!(
        env.core(&a_rig.file, d::NR_PRIME_HANDLE_TO_FD, &mut p),
        Ok(0)
    );
    let mut i = d::DrmPrimeHandle {
        fd: p.fd,
        ..Default::default()
    };
    assert_eq!(env.core(&b_file, d::NR_PRIME_FD_TO_HANDLE, &mut i), Ok(0));
    // Importing twice yields the same handle.
    let first = i.handle;
    assert_eq!(env.core(&b_file, d::NR_PRIME_FD_TO_HANDLE, &mut i), Ok(0));
    assert_eq!(i.handle, first);
    // Importing into the exporter returns its existing handle.
    let mut back = d::DrmPrimeHandle {
        fd: p.fd,
        ..Default::default()
    };
    env.core(&a_rig.file, d::NR_PRIME_FD_TO_HANDLE, &mut back)
        .unwrap();
    assert_eq!(back.handle, a_rig.data);
    // B binds the shared BO in its own VM; its GPU job writes, A sees it.
    let b_vm = env.vm(&b_file);
    let usc = env.bo(&b_file, USC_SIZE);
    let cmds = env.bo(&b_file, CMD_SIZE);
    env.bind(&b_file, b_vm, usc, USC_VA, USC_SIZE, a::BIND_READ)
        .unwrap();
    env.bind(&b_file, b_vm, cmds, CMD_VA, CMD_SIZE, a::BIND_READ)
        .unwrap();
    env.bind(
        &b_file,
        b_vm,
        first,
        0x8_0000_0000,
        DATA_SIZE,
        a::BIND_READ | a::BIND_WRITE,
    )
    .unwrap();
    let b_rig = Rig {
        file: b_file.clone(),
        vm: b_vm,
        queue: env.queue(&b_file, b_vm),
        data: first,
        usc,
        cmds,
    };
    let out = env.syncobj(&b_file);
    let cmd = env.one_launch(&b_rig, 0, &program(OP_STORE, 0x8_0000_0000, 77, 0), 3);
    env.submit(&b_file, b_rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    env.wait(&b_file, out, 0, Duration::from_secs(10)).unwrap();
    assert_eq!(
        words(&env.read_bo(&a_rig.file, a_rig.data, 0, 12)),
        [77, 78, 79]
    );
    // The exporter closing its handle does not free the shared pages.
    let used = env.dev.memory_used();
    drop(a_rig);
    env.host.close_fd(p.fd);
    assert!(env.dev.memory_used() < used);
    assert_eq!(words(&env.read_bo(&b_file, first, 0, 4)), [77]);
}

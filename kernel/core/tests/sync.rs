//! Syncobj family: binary, timeline, waits, query, transfer, fd export and
//! import (semantics of Linux drm_syncobj.c as documented in drm.h).

mod common;
use agx16_kernel::uapi::drm as d;
use agx16_kernel::Errno;
use common::*;
use std::time::{Duration, Instant};

fn array(env: &Env, handles: &[u32]) -> d::DrmSyncobjArray {
    d::DrmSyncobjArray {
        handles: env.host.user_pod(handles),
        count_handles: handles.len() as u32,
        pad: 0,
    }
}

fn tl_array(env: &Env, handles: &[u32], points: &[u64]) -> d::DrmSyncobjTimelineArray {
    d::DrmSyncobjTimelineArray {
        handles: env.host.user_pod(handles),
        points: env.host.user_pod(points),
        count_handles: handles.len() as u32,
        flags: 0,
    }
}

fn poll(env: &Env, f: &agx16_kernel::File, handles: &[u32], flags: u32) -> Result<u32, Errno> {
    let mut w = d::DrmSyncobjWait {
        handles: env.host.user_pod(handles),
        timeout_nsec: 0,
        count_handles: handles.len() as u32,
        flags,
        ..Default::default()
    };
    env.core(f, d::NR_SYNCOBJ_WAIT, &mut w)
        .map(|_| w.first_signaled)
}

#[test]
fn binary_create_signal_reset_wait() {
    let env = Env::new();
    let f = env.open();
    let a = env.syncobj(&f);
    let mut c = d::DrmSyncobjCreate {
        handle: 0,
        flags: d::SYNCOBJ_CREATE_SIGNALED,
    };
    env.core(&f, d::NR_SYNCOBJ_CREATE, &mut c).unwrap();
    let b = c.handle;
    // No fence yet and no WAIT_FOR_SUBMIT: EINVAL.
    assert_eq!(poll(&env, &f, &[a], 0), Err(Errno::EINVAL));
    assert_eq!(poll(&env, &f, &[b], 0), Ok(0));
    // WAIT_FOR_SUBMIT on an empty syncobj times out (ETIME).
    assert_eq!(
        poll(
            &env,
            &f,
            &[a, b],
            d::SYNCOBJ_WAIT_FOR_SUBMIT | d::SYNCOBJ_WAIT_ALL
        ),
        Err(Errno::ETIME)
    );
    assert_eq!(poll(&env, &f, &[a, b], d::SYNCOBJ_WAIT_FOR_SUBMIT), Ok(1));
    let mut s = array(&env, &[a]);
    assert_eq!(env.core(&f, d::NR_SYNCOBJ_SIGNAL, &mut s), Ok(0));
    assert_eq!(poll(&env, &f, &[a, b], d::SYNCOBJ_WAIT_ALL), Ok(0));
    let mut r = array(&env, &[a, b]);
    assert_eq!(env.core(&f, d::NR_SYNCOBJ_RESET, &mut r), Ok(0));
    assert_eq!(poll(&env, &f, &[b], 0), Err(Errno::EINVAL));
    // Errors: unknown handle, zero count, bad flags, bad pad.
    let mut s = array(&env, &[a, 99]);
    assert_eq!(
        env.core(&f, d::NR_SYNCOBJ_SIGNAL, &mut s),
        Err(Errno::ENOENT)
    );
    let mut s = array(&env, &[]);
    assert_eq!(
        env.core(&f, d::NR_SYNCOBJ_SIGNAL, &mut s),
        Err(Errno::EINVAL)
    );
    assert_eq!(poll(&env, &f, &[a], 0x100), Err(Errno::EINVAL));
    let mut cr = d::DrmSyncobjCreate {
        handle: 0,
        flags: 2,
    };
    assert_eq!(
        env.core(&f, d::NR_SYNCOBJ_CREATE, &mut cr),
        Err(Errno::EINVAL)
    );
    let mut de = d::DrmSyncobjDestroy { handle: a, pad: 0 };
    assert_eq!(env.core(&f, d::NR_SYNCOBJ_DESTROY, &mut de), Ok(0));
    assert_eq!(
        env.core(&f, d::NR_SYNCOBJ_DESTROY, &mut de),
        Err(Errno::EINVAL)
    );
}

#[test]
fn wait_blocks_until_a_signal_from_another_thread() {
    let env = Env::new();
    let f = env.open();
    let h = env.syncobj(&f);
    let obj = f.syncobj(h).unwrap();
    let hub = env.dev.hub.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        obj.replace(Some(agx16_kernel::fence::Fence::signaled(&hub)));
    });
    let start = Instant::now();
    assert_eq!(env.wait(&f, h, 0, Duration::from_secs(5)), Ok(0));
    assert!(start.elapsed() >= Duration::from_millis(40));
    t.join().unwrap();
}

#[test]
fn timeline_points_query_and_wait() {
    let env = Env::new();
    let f = env.open();
    let h = env.syncobj(&f);
    let mut s = tl_array(&env, &[h], &[3]);
    assert_eq!(env.core(&f, d::NR_SYNCOBJ_TIMELINE_SIGNAL, &mut s), Ok(0));
    // A pending point 5 (a fence nobody signalled yet).
    let pending = agx16_kernel::fence::Fence::new(&env.dev.hub);
    f.syncobj(h).unwrap().add_point(5, pending.clone());
    let query = |flags| {
        let mut q = tl_array(&env, &[h], &[0]);
        q.flags = flags;
        env.core(&f, d::NR_SYNCOBJ_QUERY, &mut q).unwrap();
        u64::from_ne_bytes(env.host.read_user(q.points, 8).try_into().unwrap())
    };
    assert_eq!(query(0), 3);
    assert_eq!(query(d::SYNCOBJ_QUERY_LAST_SUBMITTED), 5);
    assert_eq!(env.wait(&f, h, 2, Duration::ZERO), Ok(0));
    assert_eq!(
        env.wait(&f, h, 4, Duration::from_millis(10)),
        Err(Errno::ETIME)
    );
    // WAIT_AVAILABLE only needs the point to exist.
    let mut w = d::DrmSyncobjTimelineWait {
        handles: env.host.user_pod(&[h]),
        points: env.host.user_pod(&[5u64]),
        count_handles: 1,
        flags: d::SYNCOBJ_WAIT_AVAILABLE,
        ..Default::default()
    };
    assert_eq!(env.core(&f, d::NR_SYNCOBJ_TIMELINE_WAIT, &mut w), Ok(0));
    // A point beyond the last submitted one is EINVAL without FOR_SUBMIT.
    let mut w = d::DrmSyncobjTimelineWait {
        handles: env.host.user_pod(&[h]),
        points: env.host.user_pod(&[9u64]),
        count_handles: 1,
        ..Default::default()
    };
    assert_eq!(
        env.core(&f, d::NR_SYNCOBJ_TIMELINE_WAIT, &mut w),
        Err(Errno::EINVAL)
    );
    pending.signal(Ok(()));
    assert_eq!(query(0), 5);
    assert_eq!(env.wait(&f, h, 5, Duration::ZERO), Ok(0));
    let mut bad = tl_array(&env, &[h], &[1]);
    bad.flags = 1;
    assert_eq!(
        env.core(&f, d::NR_SYNCOBJ_TIMELINE_SIGNAL, &mut bad),
        Err(Errno::EINVAL)
    );
}

#[test]
fn transfer_between_binary_and_timeline() {
    let env = Env::new();
    let f = env.open();
    let tl = env.syncobj(&f);
    let bin = env.syncobj(&f);
    let pending = agx16_kernel::fence::Fence::new(&env.dev.hub);
    f.syncobj(tl).unwrap().add_point(7, pending.clone());
    // timeline point 7 -> binary
    let mut t = d::DrmSyncobjTransfer {
        src_handle: tl,
        dst_handle: bin,
        src_point: 7,
        ..Default::default()
    };
    assert_eq!(env.core(&f, d::NR_SYNCOBJ_TRANSFER, &mut t), Ok(0));
    assert_eq!(env.wait(&f, bin, 0, Duration::ZERO), Err(Errno::ETIME));
    // binary -> timeline point 2 of a fresh syncobj
    let tl2 = env.syncobj(&f);
    let mut t2 = d::DrmSyncobjTransfer {
        src_handle: bin,
        dst_handle: tl2,
        dst_point: 2,
        ..Default::default()
    };
    assert_eq!(env.core(&f, d::NR_SYNCOBJ_TRANSFER, &mut t2), Ok(0));
    pending.signal(Ok(()));
    assert_eq!(env.wait(&f, bin, 0, Duration::from_secs(1)), Ok(0));
    assert_eq!(env.wait(&f, tl2, 2, Duration::from_secs(1)), Ok(0));
    // Missing source point / handles.
    let mut t3 = d::DrmSyncobjTransfer {
        src_handle: tl,
        dst_handle: bin,
        src_point: 8,
        ..Default::default()
    };
    assert_eq!(
        env.core(&f, d::NR_SYNCOBJ_TRANSFER, &mut t3),
        Err(Errno::EINVAL)
    );
    t3.src_handle = 50;
    assert_eq!(
        env.core(&f, d::NR_SYNCOBJ_TRANSFER, &mut t3),
        Err(Errno::ENOENT)
    );
    t3.src_handle = tl;
    t3.pad = 1;
    assert_eq!(
        env.core(&f, d::NR_SYNCOBJ_TRANSFER, &mut t3),
        Err(Errno::EINVAL)
    );
}

#[test]
fn syncobj_and_sync_file_fds() {
    let env = Env::new();
    let f1 = env.open();
    let f2 = env.open();
    let h = env.syncobj(&f1);
    // Share the syncobj itself with another open.
    let mut e = d::DrmSyncobjHandle {
        handle: h,
        ..Default::default()
    };
    assert_eq!(env.core(&f1, d::NR_SYNCOBJ_HANDLE_TO_FD, &mut e), Ok(0));
    let mut i = d::DrmSyncobjHandle {
        fd: e.fd,
        ..Default::default()
    };
    assert_eq!(env.core(&f2, d::NR_SYNCOBJ_FD_TO_HANDLE, &mut i), Ok(0));
    let mut s = array(&env, &[h]);
    env.core(&f1, d::NR_SYNCOBJ_SIGNAL, &mut s).unwrap();
    assert_eq!(
        env.wait(&f2, i.handle, 0, Duration::ZERO),
        Ok(0),
        "same object in both opens"
    );
    // Export a sync file of a pending fence, import it into another syncobj.
    let pending = agx16_kernel::fence::Fence::new(&env.dev.hub);
    f1.syncobj(h).unwrap().replace(Some(pending.clone()));
    let mut x = d::DrmSyncobjHandle {
        handle: h,
        flags: d::SYNCOBJ_HANDLE_TO_FD_EXPORT_SYNC_FILE,
        ..Default::default()
    };
    assert_eq!(env.core(&f1, d::NR_SYNCOBJ_HANDLE_TO_FD, &mut x), Ok(0));
    let target = env.syncobj(&f2);
    let mut im = d::DrmSyncobjHandle {
        handle: target,
        fd: x.fd,
        flags: d::SYNCOBJ_FD_TO_HANDLE_IMPORT_SYNC_FILE,
        ..Default::default()
    };
    assert_eq!(env.core(&f2, d::NR_SYNCOBJ_FD_TO_HANDLE, &mut im), Ok(0));
    assert_eq!(env.wait(&f2, target, 0, Duration::ZERO), Err(Errno::ETIME));
    pending.signal(Err(Errno::EIO));
    assert_eq!(env.wait(&f2, target, 0, Duration::ZERO), Ok(0));
    // Wrong kinds of fd.
    let mut w = d::DrmSyncobjHandle {
        fd: x.fd,
        ..Default::default()
    };
    assert_eq!(
        env.core(&f2, d::NR_SYNCOBJ_FD_TO_HANDLE, &mut w),
        Err(Errno::EINVAL)
    );
    let mut w = d::DrmSyncobjHandle {
        handle: target,
        fd: e.fd,
        flags: d::SYNCOBJ_FD_TO_HANDLE_IMPORT_SYNC_FILE,
        ..Default::default()
    };
    assert_eq!(
        env.core(&f2, d::NR_SYNCOBJ_FD_TO_HANDLE, &mut w),
        Err(Errno::EINVAL)
    );
    let mut w = d::DrmSyncobjHandle {
        fd: 12345,
        ..Default::default()
    };
    assert_eq!(
        env.core(&f2, d::NR_SYNCOBJ_FD_TO_HANDLE, &mut w),
        Err(Errno::EBADF)
    );
    // Exporting a sync file from an empty syncobj fails.
    let empty = env.syncobj(&f1);
    let mut x = d::DrmSyncobjHandle {
        handle: empty,
        flags: d::SYNCOBJ_HANDLE_TO_FD_EXPORT_SYNC_FILE,
        ..Default::default()
    };
    assert_eq!(
        env.core(&f1, d::NR_SYNCOBJ_HANDLE_TO_FD, &mut x),
        Err(Errno::EINVAL)
    );
    // libdrm 2.4.114 passes the 16-byte struct: still accepted.
    let short = [h, 0, 0, 0u32];
    let addr = env.host.user_pod(&short);
    let req = agx16_kernel::uapi::ioctl::drm_iowr(d::NR_SYNCOBJ_HANDLE_TO_FD, 16);
    assert_eq!(f1.ioctl(&env.host, req, addr), Ok(0));
    assert!(env.host.read_user(addr, 16)[8..12] != [0, 0, 0, 0]);
}

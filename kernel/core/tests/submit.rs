//! SUBMIT end to end on the scripted fake GPU: CDM walking, asynchrony,
//! dependencies, out-syncs, timestamps, faults, the watchdog, render
//! validation and capture.

mod common;
use agx16_kernel::fence::Fence;
use agx16_kernel::params::PAGE_SIZE;
use agx16_kernel::uapi::asahi as a;
use agx16_kernel::{Errno, File};
use common::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn fence_of(f: &File, syncobj: u32) -> Arc<Fence> {
    f.syncobj(syncobj).unwrap().fence().expect("fence attached")
}

fn finish(env: &Env, f: &File, syncobj: u32) -> Result<(), Errno> {
    env.wait(f, syncobj, 0, Duration::from_secs(10))
        .expect("job finishes");
    fence_of(f, syncobj).status().expect("signalled")
}

#[test]
fn compute_job_runs_and_signals() {
    let env = Env::new();
    let rig = env.rig();
    let out = env.syncobj(&rig.file);
    let cmd = env.one_launch(&rig, 0, &program(OP_STORE, DATA_VA, 1000, 0), 64);
    assert_eq!(
        env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)]),
        Ok(0)
    );
    assert_eq!(finish(&env, &rig.file, out), Ok(()));
    let got = words(&env.read_bo(&rig.file, rig.data, 0, 64 * 4));
    assert_eq!(got, (1000..1064).collect::<Vec<u32>>());
    let st = env.dev.stats();
    assert_eq!(st.launches.load(std::sync::atomic::Ordering::Relaxed), 1);
}

#[test]
fn cdm_links_calls_returns_and_barriers() {
    let env = Env::new();
    let rig = env.rig();
    // Three programs; the main stream calls a sub-stream (link with
    // return), the sub-stream returns, then the main stream jumps (link
    // without return) to a tail segment that is still inside [base, end).
    for (slot, base) in [(0u64, 0u32), (1, 100), (2, 200)] {
        env.write_bo(
            &rig.file,
            rig.usc,
            slot * 0x400,
            &program(OP_STORE, DATA_VA + slot * 0x100, base as u64, 0),
        );
    }
    let s = CMD_VA + 0x2000;
    let mut stream = launch(USC_VA, [4, 1, 1], [1, 1, 1]); // +0x00..0x28
    let call_at = stream.len() as u64;
    let sub_at = 0x100u64;
    let tail_at = 0x200u64;
    stream.extend(link(s + sub_at, true)); // call
    stream.extend(link(s + tail_at, false)); // jump to tail after return
    stream.resize(sub_at as usize, 0);
    stream.extend(launch(USC_VA + 0x400, [4, 1, 1], [1, 1, 1]));
    stream.extend(barrier());
    stream.extend(ret());
    stream.resize(tail_at as usize, 0);
    stream.extend(launch(USC_VA + 0x800, [4, 1, 1], [1, 1, 1]));
    stream.extend(terminate());
    assert!(call_at < sub_at);
    env.write_bo(&rig.file, rig.cmds, 0x2000, &stream);
    let out = env.syncobj(&rig.file);
    let cmd = compute_cmdbuf(s, s + stream.len() as u64);
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    assert_eq!(finish(&env, &rig.file, out), Ok(()));
    for (slot, base) in [(0u64, 0u32), (1, 100), (2, 200)] {
        let got = words(&env.read_bo(&rig.file, rig.data, slot * 0x100, 16));
        assert_eq!(got, (base..base + 4).collect::<Vec<u32>>(), "slot {slot}");
    }
}

#[test]
fn malformed_streams_fail_the_job_not_the_queue() {
    let env = Env::new();
    let rig = env.rig();
    let prog = program(OP_STORE, DATA_VA, 1, 0);
    env.write_bo(&rig.file, rig.usc, 0, &prog);
    let s = CMD_VA + 0x3000;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("terminate before the end", {
            let mut v = launch(USC_VA, [1, 1, 1], [1, 1, 1]);
            v.extend(terminate());
            v.extend(barrier());
            v
        }),
        ("unknown block kind", vec![0, 0, 0, 0xe0]),
        ("return without call", ret()),
        ("endless self link", link(s, false)),
        ("launch outside the USC heap", {
            let mut v = launch(0x2_0000_0000, [1, 1, 1], [1, 1, 1]);
            v.extend(terminate());
            v
        }),
        ("no launch", terminate()),
    ];
    for (what, stream) in cases {
        env.write_bo(&rig.file, rig.cmds, 0x3000, &[0u8; 0x100]);
        env.write_bo(&rig.file, rig.cmds, 0x3000, &stream);
        let out = env.syncobj(&rig.file);
        let cmd = compute_cmdbuf(s, s + stream.len() as u64);
        assert_eq!(
            env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)]),
            Ok(0),
            "{what}"
        );
        assert_eq!(finish(&env, &rig.file, out), Err(Errno::EINVAL), "{what}");
    }
    // The queue still runs good work.
    let out = env.syncobj(&rig.file);
    let cmd = env.one_launch(&rig, 1, &program(OP_STORE, DATA_VA, 5, 0), 1);
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    assert_eq!(finish(&env, &rig.file, out), Ok(()));
}

#[test]
fn page_fault_fails_job_and_queue_survives() {
    let env = Env::new();
    let rig = env.rig();
    let out = env.syncobj(&rig.file);
    // Store into an unmapped page, then into the read-only USC heap.
    for target in [0x7_0000_0000u64, USC_VA + 0x8000] {
        let cmd = env.one_launch(&rig, 0, &program(OP_STORE, target, 0, 0), 4);
        env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
            .unwrap();
        assert_eq!(finish(&env, &rig.file, out), Err(Errno::EIO));
    }
    assert_eq!(
        env.dev
            .stats()
            .faults
            .load(std::sync::atomic::Ordering::Relaxed),
        2
    );
    let cmd = env.one_launch(&rig, 1, &program(OP_STORE, DATA_VA, 9, 0), 2);
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    assert_eq!(finish(&env, &rig.file, out), Ok(()));
    assert_eq!(words(&env.read_bo(&rig.file, rig.data, 0, 8)), [9, 10]);
}

#[test]
fn watchdog_bounds_an_endless_kernel() {
    let env = Env::with(Arc::new(ScriptBackend), 200);
    let rig = env.rig();
    let out = env.syncobj(&rig.file);
    let cmd = env.one_launch(&rig, 0, &program(OP_SPIN, 0, 0, 0), 1);
    let start = Instant::now();
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    assert_eq!(finish(&env, &rig.file, out), Err(Errno::ETIMEDOUT));
    assert!(start.elapsed() < Duration::from_secs(5));
    let cmd = env.one_launch(&rig, 1, &program(OP_STORE, DATA_VA, 3, 0), 1);
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    assert_eq!(finish(&env, &rig.file, out), Ok(()));
}

#[test]
fn submit_is_asynchronous_and_dependencies_order_queues() {
    let env = Env::new();
    let rig = env.rig();
    let q2 = env.queue(&rig.file, rig.vm);
    let tl = env.syncobj(&rig.file);
    // Job A (queue 1) sleeps 150 ms then writes 50..; job B (queue 2)
    // depends on A through timeline point 1 and adds one into +0x1000.
    let a_cmd = env.one_launch(&rig, 0, &program(OP_SLEEP_STORE, DATA_VA, 50, 150), 8);
    let b_cmd = env.one_launch(
        &rig,
        1,
        &program(OP_ADD_ONE, DATA_VA + 0x1000, DATA_VA, 0),
        8,
    );
    let start = Instant::now();
    env.submit(&rig.file, rig.queue, &a_cmd, &[], &[timeline(tl, 1)])
        .unwrap();
    env.submit(
        &rig.file,
        q2,
        &b_cmd,
        &[timeline(tl, 1)],
        &[timeline(tl, 2)],
    )
    .unwrap();
    assert!(
        start.elapsed() < Duration::from_millis(100),
        "SUBMIT must not block on the GPU"
    );
    env.wait(&rig.file, tl, 2, Duration::from_secs(10)).unwrap();
    assert!(start.elapsed() >= Duration::from_millis(150));
    assert_eq!(
        words(&env.read_bo(&rig.file, rig.data, 0x1000, 32)),
        (51..59).collect::<Vec<u32>>()
    );
}

#[test]
fn timestamps_are_written_at_1ghz() {
    let env = Env::new();
    let rig = env.rig();
    let ts = env.bo(&rig.file, PAGE_SIZE);
    let mut b = a::GemBindObject {
        op: a::BIND_OBJECT_OP_BIND,
        flags: a::BIND_OBJECT_USAGE_TIMESTAMPS,
        handle: ts,
        range: PAGE_SIZE,
        ..Default::default()
    };
    env.asahi(&rig.file, a::GEM_BIND_OBJECT, &mut b).unwrap();
    env.write_bo(
        &rig.file,
        rig.usc,
        0,
        &program(OP_SLEEP_STORE, DATA_VA, 0, 20),
    );
    let mut stream = launch(USC_VA, [1, 1, 1], [1, 1, 1]);
    stream.extend(terminate());
    env.write_bo(&rig.file, rig.cmds, 0x100, &stream);
    let cmd = a::CmdCompute {
        cdm_ctrl_stream_base: CMD_VA + 0x100,
        cdm_ctrl_stream_end: CMD_VA + 0x100 + stream.len() as u64,
        ts: a::Timestamps {
            start: a::Timestamp {
                handle: b.object_handle,
                offset: 8,
            },
            end: a::Timestamp {
                handle: b.object_handle,
                offset: 16,
            },
        },
        ..Default::default()
    };
    let buf = cmdbuf(&[(a::CMD_COMPUTE, bytemuck::bytes_of(&cmd).to_vec(), 0, 0)]);
    let mut t0 = a::GetTime::default();
    env.asahi(&rig.file, a::GET_TIME, &mut t0).unwrap();
    let out = env.syncobj(&rig.file);
    env.submit(&rig.file, rig.queue, &buf, &[], &[binary(out)])
        .unwrap();
    assert_eq!(finish(&env, &rig.file, out), Ok(()));
    let mut t1 = a::GetTime::default();
    env.asahi(&rig.file, a::GET_TIME, &mut t1).unwrap();
    let v = env.read_bo(&rig.file, ts, 8, 16);
    let start = u64::from_le_bytes(v[..8].try_into().unwrap());
    let end = u64::from_le_bytes(v[8..].try_into().unwrap());
    assert!(t0.gpu_timestamp <= start && start <= end && end <= t1.gpu_timestamp);
    assert!(
        end - start >= 20_000_000,
        "20 ms sleep is >= 2e7 ticks at 1 GHz"
    );
    // Bad timestamp references are rejected at submit.
    let mut bad = cmd;
    bad.ts.start.offset = 4;
    let buf = cmdbuf(&[(a::CMD_COMPUTE, bytemuck::bytes_of(&bad).to_vec(), 0, 0)]);
    assert_eq!(
        env.submit(&rig.file, rig.queue, &buf, &[], &[]),
        Err(Errno::EINVAL)
    );
    bad.ts.start = a::Timestamp {
        handle: 9,
        offset: 0,
    };
    let buf = cmdbuf(&[(a::CMD_COMPUTE, bytemuck::bytes_of(&bad).to_vec(), 0, 0)]);
    assert_eq!(
        env.submit(&rig.file, rig.queue, &buf, &[], &[]),
        Err(Errno::ENOENT)
    );
}

#[test]
fn submit_validation_changes_nothing() {
    let env = Env::new();
    let rig = env.rig();
    let good = env.one_launch(&rig, 0, &program(OP_STORE, DATA_VA, 0, 0), 1);
    let out = env.syncobj(&rig.file);
    let compute =
        |c: a::CmdCompute| cmdbuf(&[(a::CMD_COMPUTE, bytemuck::bytes_of(&c).to_vec(), 0, 0)]);
    let base = a::CmdCompute {
        cdm_ctrl_stream_base: CMD_VA,
        cdm_ctrl_stream_end: CMD_VA + 0x2c,
        ..Default::default()
    };
    let att = |pointer, size, flags| {
        let at = a::Attachment {
            pointer,
            size,
            pad: 0,
            flags,
        };
        cmdbuf(&[(
            a::SET_COMPUTE_ATTACHMENTS,
            bytemuck::bytes_of(&at).to_vec(),
            0xffff,
            0xffff,
        )])
    };
    let with = |prefix: Vec<u8>| [prefix, good.clone()].concat();
    let cases: Vec<(&str, Vec<u8>, Errno)> = vec![
        (
            "unknown command type",
            cmdbuf(&[(7, vec![], 0, 0)]),
            Errno::ENOTSUPP,
        ),
        ("truncated header", good[..4].to_vec(), Errno::EINVAL),
        (
            "payload past the end",
            {
                let mut c = good.clone();
                c[2] = 0xff;
                c
            },
            Errno::EINVAL,
        ),
        (
            "barrier beyond commands",
            cmdbuf(&[(a::CMD_COMPUTE, bytemuck::bytes_of(&base).to_vec(), 0, 2)]),
            Errno::EINVAL,
        ),
        ("only attachments", att(DATA_VA, 16, 0), Errno::EINVAL),
        ("attachment flags", with(att(DATA_VA, 16, 1)), Errno::EINVAL),
        (
            "attachment not writable",
            with(att(USC_VA, 16, 0)),
            Errno::EINVAL,
        ),
        (
            "attachment overflow",
            with(att(u64::MAX, 16, 0)),
            Errno::EINVAL,
        ),
        (
            "helper program",
            compute(a::CmdCompute {
                helper: a::HelperProgram {
                    binary: 1,
                    ..Default::default()
                },
                ..base
            }),
            Errno::ENOTSUPP,
        ),
        (
            "flags",
            compute(a::CmdCompute { flags: 1, ..base }),
            Errno::ENOTSUPP,
        ),
        (
            "unaligned stream",
            compute(a::CmdCompute {
                cdm_ctrl_stream_base: CMD_VA + 0x2,
                ..base
            }),
            Errno::EINVAL,
        ),
        (
            "empty stream",
            compute(a::CmdCompute {
                cdm_ctrl_stream_end: CMD_VA,
                ..base
            }),
            Errno::EINVAL,
        ),
        (
            "unmapped stream",
            compute(a::CmdCompute {
                cdm_ctrl_stream_base: 0x9_0000_0000,
                cdm_ctrl_stream_end: 0x9_0000_0010,
                ..base
            }),
            Errno::EINVAL,
        ),
        (
            "sampler heap without count",
            compute(a::CmdCompute {
                sampler_heap: DATA_VA,
                ..base
            }),
            Errno::EINVAL,
        ),
        (
            "too many samplers",
            compute(a::CmdCompute {
                sampler_heap: DATA_VA,
                sampler_count: 1025,
                ..base
            }),
            Errno::EINVAL,
        ),
        (
            "trailing non-zero payload",
            {
                let mut p = bytemuck::bytes_of(&base).to_vec();
                p.extend([0, 0, 0, 1]);
                cmdbuf(&[(a::CMD_COMPUTE, p, 0, 0)])
            },
            Errno::EINVAL,
        ),
    ];
    for (what, buf, want) in cases {
        assert_eq!(
            env.submit(&rig.file, rig.queue, &buf, &[], &[binary(out)]),
            Err(want),
            "{what}"
        );
        assert!(
            rig.file.syncobj(out).unwrap().fence().is_none(),
            "{what}: out-sync touched"
        );
    }
    let too_many: Vec<_> = (0..65)
        .map(|_| {
            (
                a::CMD_COMPUTE,
                bytemuck::bytes_of(&base).to_vec(),
                0xffff,
                0xffff,
            )
        })
        .collect();
    assert_eq!(
        env.submit(&rig.file, rig.queue, &cmdbuf(&too_many), &[], &[]),
        Err(Errno::EINVAL)
    );
    let max: Vec<_> = (0..64)
        .map(|_| {
            (
                a::CMD_COMPUTE,
                bytemuck::bytes_of(&base).to_vec(),
                0xffff,
                0xffff,
            )
        })
        .collect();
    assert_eq!(
        env.submit(&rig.file, rig.queue, &cmdbuf(&max), &[], &[]),
        Ok(0)
    );
    // Shorter payloads are zero-extended (UAPI rule): a compute command
    // truncated after the stream end is still valid.
    let short = cmdbuf(&[(
        a::CMD_COMPUTE,
        bytemuck::bytes_of(&base)[..24].to_vec(),
        0,
        0,
    )]);
    assert_eq!(env.submit(&rig.file, rig.queue, &short, &[], &[]), Ok(0));
    // Syncs.
    let empty = env.syncobj(&rig.file);
    let bad_sync = a::Sync {
        sync_type: 2,
        handle: out,
        timeline_value: 0,
    };
    let binary_with_point = a::Sync {
        sync_type: 0,
        handle: out,
        timeline_value: 3,
    };
    assert_eq!(
        env.submit(&rig.file, rig.queue, &good, &[], &[bad_sync]),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        env.submit(&rig.file, rig.queue, &good, &[], &[binary_with_point]),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        env.submit(&rig.file, rig.queue, &good, &[], &[binary(77)]),
        Err(Errno::ENOENT)
    );
    assert_eq!(
        env.submit(&rig.file, rig.queue, &good, &[binary(empty)], &[]),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        env.submit(&rig.file, 99, &good, &[], &[]),
        Err(Errno::ENOENT)
    );
    let mut s = a::Submit {
        cmdbuf: env.host.user(&good),
        cmdbuf_size: good.len() as u32,
        queue_id: rig.queue,
        flags: 1,
        ..Default::default()
    };
    assert_eq!(env.asahi(&rig.file, a::SUBMIT, &mut s), Err(Errno::EINVAL));
    s.flags = 0;
    s.cmdbuf = 16;
    assert_eq!(env.asahi(&rig.file, a::SUBMIT, &mut s), Err(Errno::EFAULT));
    s.cmdbuf_size = (1 << 20) + 1;
    assert_eq!(env.asahi(&rig.file, a::SUBMIT, &mut s), Err(Errno::EINVAL));
    assert!(rig.file.syncobj(out).unwrap().fence().is_none());
}

fn render_cmd() -> a::CmdRender {
    a::CmdRender {
        vdm_ctrl_stream_base: DATA_VA,
        isp_scissor_base: DATA_VA + 0x100,
        width_px: 64,
        height_px: 64,
        layers: 1,
        utile_width_px: 32,
        utile_height_px: 32,
        samples: 1,
        sample_size_b: 8,
        ppp_multisamplectl: 0x88,
        eot: a::BgEot {
            usc: 0x40,
            rsrc_spec: 0,
        },
        partial_eot: a::BgEot {
            usc: 0x40,
            rsrc_spec: 0,
        },
        ..Default::default()
    }
}

#[test]
fn render_is_validated_then_reported_unimplemented() {
    let env = Env::new();
    let rig = env.rig();
    let out = env.syncobj(&rig.file);
    let submit = |r: a::CmdRender| {
        let buf = cmdbuf(&[(a::CMD_RENDER, bytemuck::bytes_of(&r).to_vec(), 0, 0)]);
        env.submit(&rig.file, rig.queue, &buf, &[], &[binary(out)])
    };
    assert_eq!(submit(render_cmd()), Ok(0));
    // Accepted, then the model says it cannot render yet: the job fails.
    assert_eq!(finish(&env, &rig.file, out), Err(Errno::EIO));
    let cases: Vec<(&str, a::CmdRender, Errno)> = vec![
        (
            "no scissor array",
            a::CmdRender {
                isp_scissor_base: 0,
                ..render_cmd()
            },
            Errno::EINVAL,
        ),
        (
            "zero width",
            a::CmdRender {
                width_px: 0,
                ..render_cmd()
            },
            Errno::EINVAL,
        ),
        (
            "3 samples",
            a::CmdRender {
                samples: 3,
                ..render_cmd()
            },
            Errno::EINVAL,
        ),
        (
            "utile 16x32",
            a::CmdRender {
                utile_width_px: 16,
                utile_height_px: 32,
                ..render_cmd()
            },
            Errno::EINVAL,
        ),
        (
            "tilebuffer > 32 blocks",
            a::CmdRender {
                sample_size_b: 255,
                samples: 4,
                ..render_cmd()
            },
            Errno::EINVAL,
        ),
        (
            "no end-of-tile program",
            a::CmdRender {
                eot: a::BgEot::default(),
                ..render_cmd()
            },
            Errno::EINVAL,
        ),
        (
            "rsrc without program",
            a::CmdRender {
                bg: a::BgEot {
                    usc: 0,
                    rsrc_spec: 1,
                },
                ..render_cmd()
            },
            Errno::EINVAL,
        ),
        (
            "vertex helper",
            a::CmdRender {
                vertex_helper: a::HelperProgram {
                    cfg: 1,
                    ..Default::default()
                },
                ..render_cmd()
            },
            Errno::ENOTSUPP,
        ),
        (
            "flag VERTEX_SCRATCH",
            a::CmdRender {
                flags: a::RENDER_VERTEX_SCRATCH,
                ..render_cmd()
            },
            Errno::ENOTSUPP,
        ),
        (
            "unmapped VDM stream",
            a::CmdRender {
                vdm_ctrl_stream_base: 0x9_0000_0000,
                ..render_cmd()
            },
            Errno::EINVAL,
        ),
        (
            "unaligned oclqry",
            a::CmdRender {
                isp_oclqry_base: DATA_VA + 4,
                ..render_cmd()
            },
            Errno::EINVAL,
        ),
        (
            "read-only oclqry",
            a::CmdRender {
                isp_oclqry_base: USC_VA,
                ..render_cmd()
            },
            Errno::EINVAL,
        ),
        (
            "depth stride without base",
            a::CmdRender {
                depth: a::ZlsBuffer {
                    stride: 1,
                    ..Default::default()
                },
                ..render_cmd()
            },
            Errno::EINVAL,
        ),
    ];
    for (what, r, want) in cases {
        assert_eq!(submit(r), Err(want), "{what}");
    }
    // G16 needs the kernel window at the render-context base.
    let mut v = a::VmCreate {
        kernel_start: 0x40_0000_0000,
        kernel_end: 0x40_2000_0000,
        ..Default::default()
    };
    env.asahi(&rig.file, a::VM_CREATE, &mut v).unwrap();
    let d = env.bo(&rig.file, 0x1000);
    env.bind(
        &rig.file,
        v.vm_id,
        d,
        DATA_VA,
        PAGE_SIZE,
        a::BIND_READ | a::BIND_WRITE,
    )
    .unwrap();
    env.bind(&rig.file, v.vm_id, rig.usc, USC_VA, USC_SIZE, a::BIND_READ)
        .unwrap();
    let q = env.queue(&rig.file, v.vm_id);
    let buf = cmdbuf(&[(
        a::CMD_RENDER,
        bytemuck::bytes_of(&render_cmd()).to_vec(),
        0,
        0,
    )]);
    assert_eq!(env.submit(&rig.file, q, &buf, &[], &[]), Err(Errno::EINVAL));
}

#[test]
fn capture_writes_the_submission_and_memory() {
    let dir = std::env::temp_dir().join(format!("agx16-cap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dev = agx16_kernel::Device::new(
        agx16_kernel::params::DeviceConfig::default(),
        Box::new(agx16_kernel::backing::HeapAllocator),
        Arc::new(ScriptBackend),
        Some(dir.clone()),
    );
    let env = Env {
        dev,
        host: TestHost::default(),
    };
    let rig = env.rig();
    env.write_bo(&rig.file, rig.data, 0x40, b"marker-bytes");
    let out = env.syncobj(&rig.file);
    let cmd = env.one_launch(&rig, 0, &program(OP_STORE, DATA_VA + 0x100, 0, 0), 1);
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    assert_eq!(finish(&env, &rig.file, out), Ok(()));
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    let bytes = std::fs::read(&files[0]).unwrap();
    assert_eq!(&bytes[..8], agx16_kernel::dump::MAGIC);
    let cmdlen = u32::from_le_bytes(bytes[40..44].try_into().unwrap()) as usize;
    assert_eq!(&bytes[44..44 + cmdlen], &cmd[..]);
    // Memory was captured before execution: marker present, output not.
    let pos = bytes
        .windows(12)
        .position(|w| w == b"marker-bytes")
        .expect("data BO captured");
    assert_eq!(&bytes[pos + 0xc0..pos + 0xc4], &[0, 0, 0, 0]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unrepresentable_timeouts_mean_no_deadline() {
    // AGX16_JOB_TIMEOUT_MS can be anything; the job must still run.
    let env = Env::with(Arc::new(ScriptBackend), u64::MAX);
    let rig = env.rig();
    let out = env.syncobj(&rig.file);
    let cmd = env.one_launch(&rig, 0, &program(OP_STORE, DATA_VA, 1, 0), 1);
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    let mut w = agx16_kernel::uapi::drm::DrmSyncobjWait {
        handles: env.host.user_pod(&[out]),
        timeout_nsec: i64::MAX,
        count_handles: 1,
        flags: agx16_kernel::uapi::drm::SYNCOBJ_WAIT_FOR_SUBMIT,
        ..Default::default()
    };
    assert_eq!(
        env.core(&rig.file, agx16_kernel::uapi::drm::NR_SYNCOBJ_WAIT, &mut w),
        Ok(0)
    );
    assert_eq!(fence_of(&rig.file, out).status(), Some(Ok(())));
}

/// Panics on the launch at USC_VA, behaves like ScriptBackend otherwise.
struct PanickingBackend;

impl agx16_kernel::GpuBackend for PanickingBackend {
    fn run_compute(
        &self,
        vm: &agx16_kernel::VmView,
        ctx: &agx16_kernel::ComputeContext,
        l: &agx16_kernel::ComputeLaunch,
        ctl: &agx16_kernel::JobControl,
    ) -> Result<(), agx16_kernel::GpuError> {
        if l.pipeline() == USC_VA {
            panic!("backend bug (expected by the test)");
        }
        ScriptBackend.run_compute(vm, ctx, l, ctl)
    }
    fn run_render(
        &self,
        vm: &agx16_kernel::VmView,
        cmd: &a::CmdRender,
        ctl: &agx16_kernel::JobControl,
    ) -> Result<(), agx16_kernel::GpuError> {
        ScriptBackend.run_render(vm, cmd, ctl)
    }
}

#[test]
fn a_panicking_backend_fails_the_job_and_the_queue_goes_on() {
    let env = Env::with(Arc::new(PanickingBackend), 2_000);
    let rig = env.rig();
    let out = env.syncobj(&rig.file);
    let cmd = env.one_launch(&rig, 0, &program(OP_STORE, DATA_VA, 1, 0), 1);
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    assert_eq!(finish(&env, &rig.file, out), Err(Errno::EIO));
    let cmd = env.one_launch(&rig, 1, &program(OP_STORE, DATA_VA, 6, 0), 1);
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    assert_eq!(finish(&env, &rig.file, out), Ok(()));
    assert_eq!(words(&env.read_bo(&rig.file, rig.data, 0, 4)), [6]);
}

/// Counts `job_report` calls; ScriptBackend otherwise.
#[derive(Default)]
struct ReportingBackend {
    reports: std::sync::atomic::AtomicU32,
}

impl agx16_kernel::GpuBackend for ReportingBackend {
    fn run_compute(
        &self,
        vm: &agx16_kernel::VmView,
        ctx: &agx16_kernel::ComputeContext,
        l: &agx16_kernel::ComputeLaunch,
        ctl: &agx16_kernel::JobControl,
    ) -> Result<(), agx16_kernel::GpuError> {
        ScriptBackend.run_compute(vm, ctx, l, ctl)
    }
    fn run_render(
        &self,
        vm: &agx16_kernel::VmView,
        cmd: &a::CmdRender,
        ctl: &agx16_kernel::JobControl,
    ) -> Result<(), agx16_kernel::GpuError> {
        ScriptBackend.run_render(vm, cmd, ctl)
    }
    fn job_report(&self) -> Option<String> {
        let n = self
            .reports
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Some(format!("report {n}"))
    }
}

/// The backend's per-job report is asked for once after every job, failed ones included (the
/// model backend's inferred-value-rule counts are per job because of it).
#[test]
fn the_backend_reports_once_per_job_failed_or_not() {
    let backend = Arc::new(ReportingBackend::default());
    let env = Env::with(backend.clone(), 2_000);
    let rig = env.rig();
    let out = env.syncobj(&rig.file);
    let cmd = env.one_launch(&rig, 0, &program(OP_STORE, DATA_VA, 1, 0), 1);
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    assert_eq!(finish(&env, &rig.file, out), Ok(()));
    let cmd = env.one_launch(&rig, 1, &program(99, DATA_VA, 1, 0), 1);
    env.submit(&rig.file, rig.queue, &cmd, &[], &[binary(out)])
        .unwrap();
    assert_eq!(finish(&env, &rig.file, out), Err(Errno::EIO));
    assert_eq!(backend.reports.load(std::sync::atomic::Ordering::SeqCst), 2);
}

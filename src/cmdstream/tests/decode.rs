//! agx16-decode on synthesised captures in the kernel's AGX16_DUMP format: a compute job
//! and a render job laid out the way T8132 Mesa lays them out, launch programs encoded by
//! agx16-isa.

use agx16_cmdstream::capture::{Capture, Mapping};
use agx16_cmdstream::cdm::{CdmLaunchDirect, CdmLink, BARRIER_AFTER_LAUNCH};
use agx16_cmdstream::decode::decode_capture;
use agx16_cmdstream::launch::{
    build_arena, build_launcher, ComputeResources, LaunchCommon, LaunchStage,
};
use agx16_cmdstream::print::PrintOptions;
use agx16_cmdstream::render::{CmdCompute, CmdHeader, CmdRender, CMD_COMPUTE, CMD_RENDER};
use agx16_cmdstream::vdm::{
    IndexSize, Primitive, VdmBlock, VdmIndexList, VdmPppUpdate, RENDER_CONTEXT_BASE, USC_BASE,
};
use agx16_cmdstream::{Hex, Record, Unexplained};

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Entry arena at the USC base with one block per body, and the launcher selecting block
/// `which` (built by agx16-cmdstream through agx16-isa).
fn arena(bodies: &[(u64, bool)]) -> (Mapping, Vec<u64>) {
    let a = build_arena(USC_BASE, bodies).unwrap();
    (map(USC_BASE, a.bytes), a.entries)
}

fn launcher(stage: LaunchStage, entry_offset: u64, resource_table: u64) -> Vec<u8> {
    let common = LaunchCommon {
        resource_table,
        entry_offset,
        publications: 9,
        extent_a: 4,
        extent_b: 0,
    };
    build_launcher(stage, &common).unwrap().bytes
}

fn map(start: u64, mut bytes: Vec<u8>) -> Mapping {
    bytes.resize(0x4000, 0);
    Mapping {
        start,
        end: start + 0x4000,
        flags: 1,
        bytes,
    }
}

fn command(kind: u16, payload: Vec<u8>) -> Vec<u8> {
    let h = CmdHeader {
        cmd_type: kind,
        size: payload.len() as u16,
        vdm_barrier: 0,
        cdm_barrier: 0xffff,
        unknown: [0; 2],
    };
    let mut b = h.pack().unwrap();
    b.extend(payload);
    b
}

fn compute_capture(extra_bit: bool) -> Capture {
    let stream_va = 0x5_0000_0000u64;
    let launch_va = USC_BASE + 0x1_0000;
    let mut l = CdmLaunchDirect {
        global_x: 64,
        global_y: 1,
        global_z: 1,
        local_x: 32,
        local_y: 1,
        local_z: 1,
        ..Default::default()
    };
    l.unk_19 = Unexplained(1);
    l.unk_word1 = Unexplained(0x0100_0040);
    l.set_pipeline(launch_va).unwrap();
    if extra_bit {
        l.unknown[0] = 1 << 5;
    }
    let mut s = CdmLink::to(stream_va + 0x100, false)
        .unwrap()
        .pack()
        .unwrap();
    s.resize(0x100, 0);
    s.extend(l.pack().unwrap());
    s.extend(words(&[BARRIER_AFTER_LAUNCH, 0x4000_0000]));
    let end = stream_va + s.len() as u64;
    let heap = 0x7_0000_0000u64;
    let (arena, entries) = arena(&[(USC_BASE + 0x8_0000, true)]);
    let compute = LaunchStage::Compute {
        resources: 1,
        threadgroup_bytes: 256,
    };
    let mut launch = launcher(compute, entries[0], USC_BASE + 0x1_1000);
    // The resource record the launcher loads: group-count pointer, one visible buffer.
    let mut res = ComputeResources {
        group_count_pointer: Hex(0x7_0000_0100),
        ..Default::default()
    };
    res.set_buffers(&[0x5_0000_0800]).unwrap();
    launch.resize(0x1000, 0);
    launch.extend(res.pack().unwrap());
    let c = CmdCompute {
        cdm_ctrl_stream_base: Hex(stream_va),
        cdm_ctrl_stream_end: Hex(end),
        sampler_heap: Hex(heap),
        sampler_count: 2,
        ..Default::default()
    };
    // Two samplers 0x20 apart: nearest/clamp, then linear/repeat (agx_apple9_pack_sampler words).
    let mut samplers = words(&[112 << 13, 1 << 7 | 7 << 8, 0, 0, 0, 0, 0, 0]);
    samplers.extend(words(&[
        112 << 13 | 1 << 23 | 1 << 25 | 1 << 29,
        1 | 1 << 7 | 7 << 8,
    ]));
    Capture {
        job_id: 7,
        queue_id: 1,
        usc_exec_base: USC_BASE,
        cmdbuf: command(CMD_COMPUTE, c.pack().unwrap()),
        mappings: vec![
            map(stream_va, s),
            map(launch_va, launch),
            map(heap, samplers),
            arena,
        ],
    }
}

#[test]
fn decodes_compute_capture() {
    let cap = Capture::parse(&compute_capture(false).to_bytes()).unwrap();
    let r = decode_capture(&cap, PrintOptions::default());
    assert_eq!((r.errors, r.flagged), (0, 0), "{}", r.text);
    assert!(
        r.text.contains("CdmLink")
            && r.text.contains("CdmLaunchDirect")
            && r.text.contains("CdmTerminate")
    );
    assert!(
        r.text.contains("global_x                     64"),
        "{}",
        r.text
    );
    for needle in [
        "stop",
        "ptr_load r18, r2",
        "stage_target",
        "roots @ 0x10000011000 (2 pointers), Threadgroup { bytes: 256 }, entry +0x3c0",
        "entry @ 0x100000003c0",
        "stage body @ 0x10000080000",
        "argument qwords: 0x700000100 0x500000800",
    ] {
        assert!(r.text.contains(needle), "missing {needle}:\n{}", r.text);
    }
}

#[test]
fn flags_unknown_bits() {
    let r = decode_capture(&compute_capture(true), PrintOptions::default());
    assert_eq!(r.flagged, 1, "{}", r.text);
    assert!(r.text.contains("UNKNOWN BITS word 0"));
}

#[test]
fn decodes_render_capture() {
    let ctx_page = 0x0400_0000u32;
    let ppp_va = RENDER_CONTEXT_BASE + ctx_page as u64;
    let vlaunch = USC_BASE + 0x2_0000;
    let flaunch = USC_BASE + 0x2_0100;
    let cf = 0x2_1000u32;
    // PPP page: all records zero except the headers, fragment shader and scissor index.
    let mut page = vec![0u8; 256];
    let put = |p: &mut Vec<u8>, o: usize, v: u32| p[o..o + 4].copy_from_slice(&v.to_le_bytes());
    put(&mut page, 0x40, 0x0080_0000);
    put(&mut page, 0x44, 0x100 | 2 << 16);
    put(&mut page, 0x48, cf);
    put(&mut page, 0x50, 0x0100_0000);
    put(&mut page, 0x54, (flaunch >> 6) as u32);
    put(&mut page, 0xb0, 3 << 7); // cull: provoking vertex 2 (zero is not a valid value)
    put(&mut page, 0xf0, 0x100);
    put(&mut page, 0xf4, 1);
    let (arena, entries) = arena(&[(USC_BASE + 0x8_0000, false), (USC_BASE + 0x9_0000, false)]);
    let mut usc = launcher(LaunchStage::Vertex, entries[0], USC_BASE + 0x2_2000);
    usc.resize(0x100, 0);
    let fragment = LaunchStage::Fragment {
        samples: 1,
        tile_bytes: 4,
    };
    usc.extend(launcher(fragment, entries[1], USC_BASE + 0x2_2100));
    let mut cfb = words(&[0x0202, 0x0c, 3 | 7 << 2 | 1 << 8 | 1 << 16]);
    cfb.resize(0x40, 0);
    let mut stream = words(&[
        0x4000_002e,
        0,
        0x0100_0000,
        (vlaunch >> 6) as u32,
        0x0505,
        2,
        0,
    ]);
    for (off, n) in [
        (0x00, 5),
        (0x40, 7),
        (0x5c, 5),
        (0x70, 7),
        (0x8c, 5),
        (0xc0, 10),
        (0xa0, 3),
        (0xac, 2),
        (0xf0, 2),
    ] {
        stream.extend(
            VdmPppUpdate {
                size_words: n,
                pointer: ctx_page + off,
                unknown: [0; 2],
            }
            .pack()
            .unwrap(),
        );
    }
    stream.extend(
        VdmBlock::IndexList(VdmIndexList::direct(Primitive::Triangles, 3, 1, 0))
            .pack()
            .unwrap(),
    );
    let ib = USC_BASE + 0x3_0000;
    stream.extend(
        VdmBlock::IndexList(VdmIndexList::indexed(
            Primitive::Triangles,
            IndexSize::U16,
            ib,
            6,
            3,
            1,
            0,
            false,
        ))
        .pack()
        .unwrap(),
    );
    stream.extend(words(&[0xc000_0000]));
    let vdm_va = RENDER_CONTEXT_BASE + 0x18000;
    let scissor_va = 0x6_0000_0000u64;
    let c = CmdRender {
        vdm_ctrl_stream_base: Hex(vdm_va),
        isp_scissor_base: Hex(scissor_va),
        width_px: 64,
        height_px: 64,
        ..Default::default()
    };
    let mut scissors = vec![0u8; 16];
    scissors.extend(words(&[64, 64, 0, 0x3f80_0000]));
    let cap = Capture {
        job_id: 1,
        queue_id: 1,
        usc_exec_base: USC_BASE,
        cmdbuf: command(CMD_RENDER, c.pack().unwrap()),
        mappings: vec![
            map(vdm_va, stream),
            map(ppp_va, page),
            map(vlaunch, usc),
            map(USC_BASE + cf as u64, cfb),
            map(scissor_va, scissors),
            map(ib, vec![2, 0, 1, 0, 0, 0]),
            arena,
        ],
    };
    let r = decode_capture(&cap, PrintOptions::default());
    assert_eq!((r.errors, r.flagged), (0, 0), "{}", r.text);
    for needle in [
        "VdmStateHeader",
        "PppFragmentShader",
        "CfBinding",
        "scissor[1]",
        "max_x                        64",
        "vertex launch program",
        "fragment launch program",
        "VdmIndexListHeader",
        "stage body @ 0x10000080000",
        "Tile { samples: 1, units: 1 }, entry +0x480",
        "stage body @ 0x10000090000",
    ] {
        assert!(r.text.contains(needle), "missing {needle}:\n{}", r.text);
    }
}

#[test]
fn rejects_bad_captures() {
    assert!(Capture::parse(b"NOTACAPT").is_err());
    let mut b = compute_capture(false).to_bytes();
    b.truncate(b.len() - 10);
    assert!(Capture::parse(&b).is_err());
}

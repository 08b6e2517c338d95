//! Replaying a kernel capture (`AGX16_DUMP` format, agx16-cmdstream `capture`) on the
//! model: command buffer -> compute command -> CDM stream -> launch record ->
//! launcher -> entry -> body. The body is a real Apple-compiled kernel; the memory the
//! replay leaves must hold what a real M4 wrote.

use agx16_cmdstream::capture::{Capture, Mapping};
use agx16_cmdstream::cdm::{CdmBarrier, CdmBlock, CdmLaunchDirect, CdmTerminate, BARRIER_FULL};
use agx16_cmdstream::launch::{build_arena, build_launcher, LaunchCommon, LaunchStage};
use agx16_cmdstream::record::{Hex, Record};
use agx16_cmdstream::render::{CmdCompute, CmdHeader, CMD_COMPUTE};
use agx16_sim::dispatch::replay_compute;
use agx16_sim::harness::{check, slot_order, Outcome};
use agx16_sim::oracle::{oracle_files, oracles_dir, Oracle};

const USC: u64 = 1 << 40;
const DATA: u64 = 0x2_0000_0000;
const STREAM: u64 = 0x3_0000_0000;
const PAGE: u64 = 0x4000;

fn mapping(start: u64, bytes: Vec<u8>, flags: u32) -> Mapping {
    let len = (bytes.len() as u64).div_ceil(PAGE).max(1) * PAGE;
    let mut b = bytes;
    b.resize(len as usize, 0);
    Mapping {
        start,
        end: start + len,
        flags,
        bytes: b,
    }
}

#[test]
fn a_captured_compute_job_replays_to_the_m4_result() {
    let dir = oracles_dir().join("sim");
    let o = oracle_files(&dir)
        .unwrap()
        .iter()
        .map(|p| Oracle::load(p).unwrap())
        .find(|o| {
            o.name.starts_with("EXP-M4")
                && !agx16_sim::harness::needs_preload(o)
                && matches!(check(o), Outcome::Pass(_))
        })
        .expect("an M4 kernel the model runs");
    let order = slot_order(&o);
    // Data: one 16 KiB window per base slot.
    let mut data = vec![0u8; order.len() * PAGE as usize];
    for (slot, binding) in order.iter().enumerate() {
        let buf = o.buffers.iter().find(|b| b.binding == *binding).unwrap();
        for (k, w) in buf.words_u32.iter().enumerate() {
            let at = slot * PAGE as usize + 4 * k;
            data[at..at + 4].copy_from_slice(&w.to_le_bytes());
        }
    }
    // USC heap: arena, launcher (+0x10000), body (+0x20000), resource record (+0x40000).
    let body_va = USC + 0x20000;
    let arena = build_arena(USC, &[(body_va, true)]).unwrap();
    let mut usc = vec![0u8; 0x44000];
    usc[..arena.bytes.len()].copy_from_slice(&arena.bytes);
    let launcher = build_launcher(
        LaunchStage::Compute {
            resources: order.len().saturating_sub(1).max(1),
            threadgroup_bytes: 0,
        },
        &LaunchCommon {
            resource_table: USC + 0x40000,
            entry_offset: arena.entries[0],
            publications: 0,
            extent_a: 0,
            extent_b: 0,
        },
    )
    .unwrap();
    usc[0x10000..0x10000 + launcher.bytes.len()].copy_from_slice(&launcher.bytes);
    let code = o.code().unwrap();
    usc[0x20000..0x20000 + code.len()].copy_from_slice(&code);
    for slot in 0..order.len() {
        let at = 0x40000 + 8 * slot;
        usc[at..at + 8].copy_from_slice(&(DATA + slot as u64 * PAGE).to_le_bytes());
    }
    // CDM stream: launch, barrier, terminate.
    let tg = o
        .threads
        .threadgroup
        .unwrap_or([o.threads.grid[0].clamp(1, 1024), 1, 1]);
    let mut stream =
        CdmBlock::LaunchDirect(CdmLaunchDirect::t8132(USC + 0x10000, o.threads.grid, tg).unwrap())
            .pack()
            .unwrap();
    stream.extend(
        CdmBlock::Barrier(CdmBarrier::from_word(BARRIER_FULL).unwrap())
            .pack()
            .unwrap(),
    );
    stream.extend(CdmBlock::Terminate(CdmTerminate::default()).pack().unwrap());
    let cmd = CmdCompute {
        cdm_ctrl_stream_base: Hex(STREAM),
        cdm_ctrl_stream_end: Hex(STREAM + stream.len() as u64),
        ..Default::default()
    }
    .pack()
    .unwrap();
    let mut cmdbuf = CmdHeader {
        cmd_type: CMD_COMPUTE,
        size: cmd.len() as u16,
        ..Default::default()
    }
    .pack()
    .unwrap();
    cmdbuf.extend(cmd);
    let cap = Capture {
        job_id: 1,
        queue_id: 1,
        usc_exec_base: USC,
        cmdbuf,
        mappings: vec![
            mapping(USC, usc, 1),
            mapping(DATA, data, 3),
            mapping(STREAM, stream, 1),
        ],
    };
    // Through the file format, as `AGX16_DUMP` writes it.
    let bytes = cap.to_bytes();
    let cap = Capture::parse(&bytes).unwrap();

    // The same file through `agx16-sim replay`.
    let file = std::env::temp_dir().join(format!("agx16-replay-{}.cap", std::process::id()));
    std::fs::write(&file, &bytes).unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_agx16-sim"))
        .arg("replay")
        .arg(&file)
        .output()
        .unwrap();
    std::fs::remove_file(&file).ok();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("1 passed, 0 failed"),
        "{stdout}"
    );
    let (pt, launches) = replay_compute(&cap, 1 << 24).unwrap();
    assert_eq!(launches.len(), 1);
    assert!(launches[0].result.is_ok(), "{:?}", launches[0].result);
    assert_eq!((launches[0].command, launches[0].record_va), (0, STREAM));
    for exp in &o.expected {
        let slot = order.iter().position(|&b| b == exp.binding).unwrap() as u64;
        let mut got = vec![0u8; 4 * exp.words_u32.len()];
        pt.host_read(DATA + slot * PAGE, &mut got).unwrap();
        let got: Vec<u32> = got
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, exp.words_u32, "{}: binding {}", o.name, exp.binding);
    }

    // A truncated command buffer is an error value naming the command.
    let mut broken = cap.clone();
    broken.cmdbuf.truncate(20);
    let Err(e) = replay_compute(&broken, 1 << 24) else {
        panic!("a truncated command buffer replayed");
    };
    assert!(e.to_string().contains("capture command 0"), "{e}");
}

//! Compute launches entered the way the M4 enters them: a CDM launch record points
//! at a launcher (setup) program built by agx16-cmdstream; the model runs it (root
//! literals, pointer loads from the resource record, stage allocation, stage target,
//! frame, argument transfers, STOP), follows the entry arena's JMP_EXEC_ANY to the
//! body and runs the body over the grid. Bodies are real Apple-compiled kernels from
//! the shared oracles; outputs must equal what a real M4 wrote.

use agx16_cmdstream::cdm::{CdmBlock, CdmLaunchDirect, Launch};
use agx16_cmdstream::launch::{
    build_arena, build_launcher, resolve_launch, LaunchCommon, LaunchProgram, LaunchStage,
};
use agx16_cmdstream::record::Record;
use agx16_cmdstream::stream::GpuRead;
use agx16_isa::meaning::{self, StageAllocation};
use agx16_sim::dispatch::run_setup;
use agx16_sim::harness::{buffer_va, check, prepare, slot_order, Outcome};
use agx16_sim::mem::PAGE_SIZE;
use agx16_sim::oracle::{oracle_files, oracles_dir, Oracle};
use agx16_sim::{run_cdm_launch, PageTable, SimError};

const USC: u64 = 1 << 40;
const LAUNCHER: u64 = USC + 0x10000;
const BODY: u64 = USC + 0x20000;
const RECORD: u64 = USC + 0x40000;
const BUDGET: u64 = 1 << 24;

struct Image {
    pt: PageTable,
    launch: Launch,
    /// Buffer addresses in the kernel's base-slot order.
    buffers: Vec<u64>,
}

struct Read<'a>(&'a PageTable);
impl GpuRead for Read<'_> {
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), String> {
        self.0.host_read(va, out).map_err(|f| f.to_string())
    }
}

fn map(pt: &PageTable, va: u64, bytes: &[u8]) {
    let len = (bytes.len() as u64).max(1).div_ceil(PAGE_SIZE) * PAGE_SIZE;
    pt.map(va, len, true, false).unwrap();
    pt.host_write(va, bytes).unwrap();
}

/// The compute stage for `k` buffers. Apple-compiled kernels read base slot n from
/// argument qword n, so the resource record holds the buffers from qword 0 (the
/// launcher copies qwords 0..=R whatever they mean; GravityLinux's own mains put a
/// group-count pointer in qword 0, these bodies do not read one).
fn stage(k: usize, threadgroup_bytes: u32) -> LaunchStage {
    LaunchStage::Compute {
        resources: k.saturating_sub(1).max(1),
        threadgroup_bytes,
    }
}

fn common(entry_offset: u64) -> LaunchCommon {
    LaunchCommon {
        resource_table: RECORD,
        entry_offset,
        publications: 0,
        extent_a: 0,
        extent_b: 0,
    }
}

/// Maps an oracle's buffers, its body, an entry arena, a resource record and the
/// launcher `edit` may change (None = as built).
fn image(o: &Oracle, edit: impl FnOnce(&mut LaunchProgram, u64)) -> Image {
    let (pt, l) = prepare(o).unwrap();
    let buffers: Vec<u64> = l
        .uniforms
        .chunks(2)
        .map(|p| p[0] as u64 | (p[1] as u64) << 32)
        .collect();
    map(&pt, BODY, &o.code().unwrap());
    let arena = build_arena(USC, &[(BODY, true)]).unwrap();
    map(&pt, USC, &arena.bytes);
    let mut record = vec![0u8; 0x100];
    for (i, b) in buffers.iter().enumerate() {
        record[8 * i..8 * i + 8].copy_from_slice(&b.to_le_bytes());
    }
    map(&pt, RECORD, &record);
    let mut prog = build_launcher(stage(buffers.len(), 0), &common(arena.entries[0])).unwrap();
    edit(&mut prog, arena.entries[0]);
    map(&pt, LAUNCHER, &prog.bytes);
    let (grid, tg) = (
        o.threads.grid,
        o.threads
            .threadgroup
            .unwrap_or([o.threads.grid[0].clamp(1, 1024), 1, 1]),
    );
    let packed = CdmLaunchDirect::t8132(LAUNCHER, grid, tg)
        .unwrap()
        .pack()
        .unwrap();
    let launch = CdmBlock::decode(&packed).unwrap().launch().unwrap();
    Image {
        pt,
        launch,
        buffers,
    }
}

fn reencode(p: &mut LaunchProgram) {
    p.bytes = p.instrs.iter().flat_map(|i| i.encode()).collect();
}

fn oracles() -> Vec<Oracle> {
    let dir = oracles_dir().join("sim");
    oracle_files(&dir)
        .unwrap_or_else(|e| panic!("oracles at {}: {e}", dir.display()))
        .iter()
        .map(|p| Oracle::load(p).unwrap())
        .collect()
}

/// Compares every expected buffer with what the run left in memory.
fn matches_m4(o: &Oracle, img: &Image) -> Result<(), String> {
    let order = slot_order(o);
    for exp in &o.expected {
        let slot = order.iter().position(|&b| b == exp.binding).unwrap();
        assert_eq!(img.buffers[slot], buffer_va(slot as u64));
        let mut bytes = vec![0u8; exp.words_u32.len() * 4];
        img.pt.host_read(img.buffers[slot], &mut bytes).unwrap();
        let got: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        if got != exp.words_u32 {
            return Err(format!(
                "{}: binding {} differs from the M4",
                o.name, exp.binding
            ));
        }
    }
    Ok(())
}

#[test]
fn oracle_kernels_run_through_real_launchers() {
    let (mut passed, mut refused, mut preloaded) = (0, 0, 0);
    for o in oracles() {
        // Fitted constant-program preloads (agx16_sim::preload) are harness inputs this
        // launcher does not deliver: those kernels run only through `check`.
        if agx16_sim::harness::needs_preload(&o) {
            preloaded += 1;
            continue;
        }
        let direct = check(&o);
        let img = image(&o, |_, _| {});
        match run_cdm_launch(&img.pt, &img.launch, USC, BUDGET) {
            Ok(stats) => {
                matches_m4(&o, &img).unwrap();
                assert!(
                    matches!(direct, Outcome::Pass(_)),
                    "{}: passes through the launcher but not directly: {direct}",
                    o.name
                );
                assert!(stats.instructions > 0);
                passed += 1;
            }
            // A body reading uniform words no one supplies (the float constants of the
            // EXP-M4-55 sine/sqrt kernels) is refused up front, directly too.
            Err(SimError::Launch(m)) if m.contains("uniform registers") => {
                assert!(
                    matches!(direct, Outcome::Error(SimError::Launch(_))),
                    "{}: {m} (direct run: {direct})",
                    o.name
                );
                refused += 1;
            }
            Err(e) => {
                // Only the refusals the body already meets without a launcher.
                assert!(
                    matches!(direct, Outcome::Error(_)),
                    "{}: {e} (direct run: {direct})",
                    o.name
                );
                assert!(
                    matches!(
                        e,
                        SimError::Unestablished { .. } | SimError::Unmeasured { .. }
                    ),
                    "{}: {e}",
                    o.name
                );
                assert!(e.to_string().contains("body at"), "{}: {e}", o.name);
                refused += 1;
            }
        }
    }
    println!(
        "through real launchers: {passed} matched the M4, {refused} refused in the body, \
         {preloaded} skipped (need preloaded uniforms)"
    );
    assert!(passed >= 100, "only {passed} oracles ran through launchers");
}

fn first_passing() -> Oracle {
    oracles()
        .into_iter()
        .find(|o| {
            o.name.starts_with("EXP-M4")
                && !agx16_sim::harness::needs_preload(o)
                && matches!(check(o), Outcome::Pass(_))
        })
        .expect("an M4 kernel the model runs")
}

#[test]
fn setup_hands_the_body_what_the_resource_record_holds() {
    let o = first_passing();
    let img = image(&o, |_, _| {});
    let s = run_setup(&img.pt, LAUNCHER, USC, BUDGET).unwrap();
    // The decoder-side reading of the same memory (agx16-cmdstream resolve_launch).
    let r = resolve_launch(&Read(&img.pt), USC, LAUNCHER).unwrap();
    assert_eq!(s.arguments, r.argument_words);
    assert_eq!((s.entry_va, s.body_va), (r.entry_va, r.body_va));
    assert_eq!(s.body_va, BODY);
    for (i, b) in img.buffers.iter().enumerate() {
        assert_eq!(
            s.arguments[2 * i] as u64 | (s.arguments[2 * i + 1] as u64) << 32,
            *b
        );
    }
    assert_eq!(s.setup.allocation, Some(StageAllocation::Empty));
}

#[test]
fn threadgroup_allocation_reaches_the_stage() {
    let o = first_passing();
    for bytes in meaning::THREADGROUP_SIZES {
        let img = image(&o, |p, entry| {
            *p = build_launcher(stage(2, bytes), &common(entry)).unwrap();
        });
        let s = run_setup(&img.pt, LAUNCHER, USC, BUDGET).unwrap();
        assert_eq!(
            s.setup.allocation,
            Some(StageAllocation::Threadgroup { bytes })
        );
        run_cdm_launch(&img.pt, &img.launch, USC, BUDGET).unwrap();
        matches_m4(&o, &img).unwrap();
    }
}

#[test]
fn first_transfer_without_its_wait_reads_zero_pointers() {
    // Scoreboard rule (niklassheth/agx-re APPLE9_SCOREBOARD_SLOTS.md): a consumer that
    // does not name the load's slot reads zero. The body then addresses page 0.
    let o = first_passing();
    let img = image(&o, |p, _| {
        let at = p
            .instrs
            .iter()
            .position(|i| i.form.name == "arg_store")
            .unwrap();
        p.instrs[at] = meaning::arg_store_instr(0, 18, false).unwrap();
        reencode(p);
    });
    let s = run_setup(&img.pt, LAUNCHER, USC, BUDGET).unwrap();
    assert!(s.arguments.iter().all(|&w| w == 0), "{:x?}", s.arguments);
    match run_cdm_launch(&img.pt, &img.launch, USC, BUDGET) {
        Err(SimError::Fault(f)) => assert!(f.addr < PAGE_SIZE, "{f}"),
        other => panic!("expected a fault near VA 0, got {other:?}"),
    }
}

#[test]
fn unestablished_launcher_fields_are_refused_with_place_and_field() {
    let o = first_passing();
    // Frame extent B: role not established, only 0 measured.
    let img = image(&o, |p, _| {
        let at = p
            .instrs
            .iter()
            .position(|i| i.form.name == "launch_frame")
            .unwrap();
        p.instrs[at] = meaning::launch_frame_instr(0, 0, 64).unwrap();
        reencode(p);
    });
    let e = run_cdm_launch(&img.pt, &img.launch, USC, BUDGET).unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(e, SimError::Unestablished { .. }) && text.contains("extent B"),
        "{text}"
    );
    assert!(
        text.contains(&format!("launcher at {LAUNCHER:#x}")),
        "{text}"
    );

    // A pointer-load format no launcher used.
    let img = image(&o, |p, _| {
        let at = p
            .instrs
            .iter()
            .position(|i| i.form.name == "ptr_load")
            .unwrap();
        p.instrs[at].set("ld_format", 0x11).unwrap();
        reencode(p);
    });
    let text = run_cdm_launch(&img.pt, &img.launch, USC, BUDGET)
        .unwrap_err()
        .to_string();
    assert!(text.contains("ptr_load format 0x11"), "{text}");
}

#[test]
fn stage_target_must_select_an_entry_jump() {
    let o = first_passing();
    // Entry offset 0x40 is inside the helper directory (padding), not an entry.
    let img = image(&o, |p, _| {
        *p = build_launcher(stage(2, 0), &common(0x40)).unwrap();
    });
    let e = run_cdm_launch(&img.pt, &img.launch, USC, BUDGET).unwrap_err();
    assert!(
        matches!(&e, SimError::Unestablished { form, .. } if form == "stage entry"),
        "{e}"
    );
    assert!(e.to_string().contains(&format!("{:#x}", USC + 0x40)), "{e}");
}

#[test]
fn launcher_without_target_or_with_gaps_is_a_launch_error() {
    let o = first_passing();
    let img = image(&o, |p, _| {
        p.instrs.retain(|i| i.form.name != "stage_target");
        reencode(p);
    });
    let e = run_cdm_launch(&img.pt, &img.launch, USC, BUDGET).unwrap_err();
    assert!(e.to_string().contains("without a stage target"), "{e}");

    let img = image(&o, |p, _| {
        let at = p
            .instrs
            .iter()
            .rposition(|i| i.form.name == "arg_store")
            .unwrap();
        p.instrs.remove(at - 1);
        reencode(p);
    });
    let e = run_cdm_launch(&img.pt, &img.launch, USC, BUDGET).unwrap_err();
    assert!(e.to_string().contains("unwritten"), "{e}");
}

#[test]
fn launcher_operations_in_a_body_are_refused() {
    let o = first_passing();
    let img = image(&o, |_, _| {});
    // Put a launcher (its ptr_load first after the literals) where the body is.
    let p = build_launcher(stage(2, 0), &common(0x400)).unwrap();
    img.pt.host_write(BODY, &p.bytes).unwrap();
    let e = run_cdm_launch(&img.pt, &img.launch, USC, BUDGET).unwrap_err();
    assert!(e.to_string().contains("inside a stage body"), "{e}");
}

#[test]
fn unmapped_launcher_is_a_fault() {
    let o = first_passing();
    let img = image(&o, |_, _| {});
    let mut l = img.launch;
    l.pipeline = USC + 0x80_0000;
    assert!(matches!(
        run_cdm_launch(&img.pt, &l, USC, BUDGET),
        Err(SimError::Fault(_))
    ));
}

#[test]
fn cancel_hook_stops_an_endless_body_at_its_pc() {
    let o = first_passing();
    let img = image(&o, |_, _| {});
    // Body: JMP_EXEC_ANY to itself, taken while any lane is active.
    let body = agx16_cmdstream::launch::jump_any(0).unwrap();
    img.pt.host_write(BODY, &body).unwrap();
    let polls = std::cell::Cell::new(0u32);
    let cancelled = || {
        polls.set(polls.get() + 1);
        polls.get() > 3
    };
    let r = agx16_sim::run_cdm_launch_cancellable(&img.pt, &img.launch, USC, u64::MAX, &cancelled);
    match r {
        Err(SimError::Budget { pc, budget }) => {
            assert_eq!(pc, 0, "stopped in the body's loop");
            assert!(budget >= agx16_sim::core::exec::CANCEL_POLL, "{budget}");
        }
        other => panic!("expected a cancelled run, got {other:?}"),
    }
    assert_eq!(polls.get(), 4);
    // Without cancellation the instruction budget still bounds it.
    let r = run_cdm_launch(&img.pt, &img.launch, USC, 10_000);
    assert!(matches!(r, Err(SimError::Budget { .. })), "{r:?}");
}

/// An authored setup body: r30 = `value`, argument word `word` = r30, STOP.
fn setup_body(word: u32, value: u32) -> Vec<u8> {
    let mut mov = agx16_isa::Instr::new(agx16_isa::form_by_name("mov_imm32").unwrap());
    mov.set_gpr(agx16_isa::Role::Dst, 30, agx16_isa::Part::Full)
        .unwrap()
        .set("imm", value as u64)
        .unwrap();
    let mut b = mov.encode_checked().unwrap();
    b.extend(
        meaning::arg_store_instr(word, 30, false)
            .unwrap()
            .encode_checked()
            .unwrap(),
    );
    b.extend(
        agx16_isa::Instr::build("stop", &[])
            .unwrap()
            .encode_checked()
            .unwrap(),
    );
    b
}

#[test]
fn launcher_tail_jumps_to_a_compiled_setup_body() {
    // README.apple9-launchers.md "Compiler-generated uniform setup": setup results go
    // to the argument words after the 2*(N+1) root words; setup STOP starts the entry.
    let o = first_passing();
    const SETUP: u64 = USC + 0x30000;
    let roots = stage(slot_order(&o).len(), 0).root_words().unwrap();
    let img = image(&o, |p, entry| {
        *p = agx16_cmdstream::launch::build_launcher_with_setup(
            stage(slot_order(&o).len(), 0),
            &common(entry),
            LAUNCHER,
            SETUP,
        )
        .unwrap();
    });
    map(&img.pt, SETUP, &setup_body(roots, 0xfeed_f00d));
    let s = run_setup(&img.pt, LAUNCHER, USC, BUDGET).unwrap();
    assert_eq!(s.arguments.len(), roots as usize + 1);
    assert_eq!(s.arguments[roots as usize], 0xfeed_f00d);
    assert_eq!(s.body_va, BODY);
    run_cdm_launch(&img.pt, &img.launch, USC, BUDGET).unwrap();
    matches_m4(&o, &img).unwrap();

    // A refusal inside the setup body names the setup body, not the launcher.
    let mut bad = setup_body(roots, 1);
    bad[0] ^= 0xff; // no longer a mov_imm32
    img.pt.host_write(SETUP, &bad).unwrap();
    let e = run_cdm_launch(&img.pt, &img.launch, USC, BUDGET).unwrap_err();
    assert!(
        e.to_string().contains(&format!("setup body at {SETUP:#x}")),
        "{e}"
    );
}

#[test]
fn mutated_launchers_and_entries_end_in_a_value_never_a_panic() {
    let o = first_passing();
    let img = image(&o, |_, _| {});
    let mut launcher = vec![0u8; 256];
    img.pt.host_read(LAUNCHER, &mut launcher).unwrap();
    let mut entry = vec![0u8; 16];
    let entry_va = USC + agx16_cmdstream::launch::entry_offset(0);
    img.pt.host_read(entry_va, &mut entry).unwrap();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut ok, mut refused) = (0, 0);
    for round in 0..300 {
        let (va, orig) = if round % 3 == 0 {
            (entry_va, &entry)
        } else {
            (LAUNCHER, &launcher)
        };
        let mut m = orig.clone();
        let len = if va == LAUNCHER { 160 } else { 12 };
        for _ in 0..1 + rnd() % 3 {
            let at = (rnd() % len) as usize;
            m[at] ^= 1 << (rnd() % 8);
        }
        img.pt.host_write(va, &m).unwrap();
        match run_cdm_launch(&img.pt, &img.launch, USC, 1 << 20) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(!e.to_string().is_empty());
                refused += 1;
            }
        }
        img.pt.host_write(va, orig).unwrap();
    }
    println!("mutated launchers/entries: {ok} ran, {refused} refused or faulted");
    assert!(refused > 0);
}

#[test]
fn bytes_after_the_body_are_not_part_of_it() {
    // A body read from the heap has no length: what follows it (here another kernel
    // that reads more uniforms than this launch provides) must not count.
    let all = oracles();
    let wide = |o: &Oracle| agx16_sim::Program::new(&o.code().unwrap()).uniforms_needed();
    let o = all
        .iter()
        .find(|o| {
            slot_order(o).len() <= 2
                && !agx16_sim::harness::needs_preload(o)
                && matches!(check(o), Outcome::Pass(_))
        })
        .expect("a runnable kernel with at most two buffers");
    let next = all
        .iter()
        .find(|x| wide(x) > 4)
        .expect("a kernel reading more than four uniforms");
    let img = image(o, |_, _| {});
    let mut code = o.code().unwrap();
    code.extend(next.code().unwrap());
    img.pt.host_write(BODY, &code).unwrap();
    run_cdm_launch(&img.pt, &img.launch, USC, BUDGET).unwrap();
    matches_m4(o, &img).unwrap();
}

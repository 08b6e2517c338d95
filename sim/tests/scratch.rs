//! Per-invocation scratch (`spill_store` / `spill_load`) on small programs assembled with
//! agx16-isa, against the rules in `agx16_sim::core::scratch` (GravityLinux/mesa apple9
//! sources, T8132): word-indexed per lane, capacity = frame extent A to the byte, a store
//! completes on its slot and releases its source, a load's result is handed off by a wait.

use agx16_isa::{encode_program, Instr};
use agx16_sim::mem::PAGE_SIZE;
use agx16_sim::{run_compute, run_compute_with_scratch, Code, ComputeLaunch, PageTable, SimError};

const OUT: u64 = 0x40_0000_0000;

fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn gid() -> Instr {
    b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa0)])
}

fn store(index: u64, data: u64) -> Instr {
    b(
        "device_store",
        &[
            ("addr_mode", 0x54),
            ("data", data),
            ("base_slot", 0),
            ("index", index),
            ("access_desc", 0x21),
            ("st_format", 0x11),
            ("st_desc_hi", 0x24),
            ("elem_size", 0x11),
        ],
    )
}

/// `d = a + k`, waiting on the slot mask `wait` (the 32-bit immediate add of EXP-M4-35 load_xor_load_retain).
fn add_imm(d: u64, a: u64, k: u64, wait: u64) -> Instr {
    b(
        "iadd",
        &[
            ("b2_fmt", 0x15),
            ("dst", d),
            ("opmode", 2),
            ("dst_size", 1),
            ("b7_hi", 8),
            ("b_imm", k),
            ("a", a),
            ("b8_0", 1),
            ("b8_hi", 2),
            ("b9_hi", 2),
            ("wait", wait),
        ],
    )
}

fn spill(word: u64, src: u64, slot: u64) -> Instr {
    let mut i = b("spill_store", &[("word", word), ("src", src)]);
    i.set_produce(slot as u8).unwrap();
    i
}

fn fill(word: u64, dst: u64, slot: u64) -> Instr {
    let mut i = b("spill_load", &[("word", word), ("dst", dst)]);
    i.set_produce(slot as u8).unwrap();
    i
}

const S6: u64 = 1 << 5;

fn run(prog: Vec<Instr>, scratch: Option<u32>) -> (PageTable, Result<agx16_sim::Stats, SimError>) {
    let pt = PageTable::new();
    pt.map(OUT, PAGE_SIZE, true, true).unwrap();
    let launch = ComputeLaunch {
        code: Code::Bytes(encode_program(&prog)),
        uniforms: vec![OUT as u32, (OUT >> 32) as u32],
        grid: [40, 1, 1],
        threadgroup: [40, 1, 1],
        tg_memory: 0,
        budget: 1 << 20,
    };
    let r = match scratch {
        Some(bytes) => run_compute_with_scratch(&pt, &launch, bytes),
        None => run_compute(&pt, &launch),
    };
    (pt, r)
}

fn words(pt: &PageTable, n: usize) -> Vec<u32> {
    let mut b = vec![0u8; 4 * n];
    pt.host_read(OUT, &mut b).unwrap();
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// out[i] = i + 5 through scratch word `word`: r2 = i + 5; spill r2; a wait completes the
/// store (and rewrites r2); fill r3; the consumer takes r3 from slot 6.
fn round_trip(word: u64) -> Vec<Instr> {
    vec![
        gid(),
        add_imm(2, 1, 5, 0),
        spill(word, 2, 6),
        add_imm(2, 2, 0, S6),
        fill(word, 3, 6),
        add_imm(4, 3, 0, S6),
        store(1, 4),
        b("stop", &[]),
    ]
}

fn unmeasured(r: Result<agx16_sim::Stats, SimError>) -> String {
    match r {
        Err(e @ SimError::Unmeasured { .. }) => e.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn values_round_trip_per_lane_and_extent_a_is_exact_to_the_byte() {
    for word in [0u64, 7, 8191] {
        let a = 4 * (word as u32 + 1);
        if a > 32768 {
            continue;
        }
        let (pt, r) = run(round_trip(word), Some(a));
        r.unwrap();
        assert_eq!(words(&pt, 40), (0..40).map(|i| i + 5).collect::<Vec<u32>>());
        // one byte short of the highest word: the M4 fails, the model refuses
        let (_, r) = run(round_trip(word), Some(a - 1));
        assert!(unmeasured(r).contains("outside frame extent A"));
    }
}

#[test]
fn without_a_frame_scratch_is_refused_and_extents_beyond_32k_are_launch_errors() {
    let (_, r) = run(round_trip(0), None);
    assert!(unmeasured(r).contains("extent A = 0"));
    let (_, r) = run(round_trip(0), Some(32772));
    assert!(matches!(r, Err(SimError::Launch(_))));
}

#[test]
fn the_store_releases_its_source() {
    // Reading r2 after the store (with the wait) gives 0, not i + 5.
    let prog = vec![
        gid(),
        add_imm(2, 1, 5, 0),
        spill(3, 2, 6),
        add_imm(4, 2, 1, S6),
        store(1, 4),
        b("stop", &[]),
    ];
    let (pt, r) = run(prog, Some(16));
    r.unwrap();
    assert_eq!(words(&pt, 40), vec![1; 40]);
}

#[test]
fn a_fill_without_its_wait_reads_zero() {
    let mut prog = round_trip(2);
    prog[5] = add_imm(4, 3, 0, 1); // names slot 1, the value is on slot 6
    let (pt, r) = run(prog, Some(64));
    r.unwrap();
    assert_eq!(words(&pt, 40), vec![0; 40]);
}

#[test]
fn pending_store_hazards_are_refused() {
    // fill of the word while its store is pending
    let mut p = round_trip(2);
    p.remove(3);
    assert!(unmeasured(run(p, Some(64)).1).contains("pending"));
    // writing the store's source before its completion
    let mut p = round_trip(2);
    p[3] = add_imm(2, 1, 0, 0);
    assert!(unmeasured(run(p, Some(64)).1).contains("source of the scratch store"));
    // stopping with the store pending
    let p = vec![gid(), spill(0, 1, 6), b("stop", &[])];
    assert!(unmeasured(run(p, Some(64)).1).contains("still pending"));
}

#[test]
fn never_written_words_are_refused() {
    let p = vec![
        gid(),
        fill(4, 3, 6),
        add_imm(4, 3, 0, S6),
        store(1, 4),
        b("stop", &[]),
    ];
    assert!(unmeasured(run(p, Some(64)).1).contains("before any store"));
}

#[test]
fn a_store_takes_a_pending_fill_through_its_wait_field() {
    // The scratch forms take a wait (mask at bits 45..47/61..63, agx16-isa table/scratch.rs):
    // storing a filled value still pending on slot 1 delivers it when the store names slot 1,
    // and stores zero otherwise (the measured wrong-slot rule of every wait field).
    let prog = |wait: u8| {
        let mut again = spill(1, 3, 6);
        again.set_wait(agx16_isa::SlotSet(wait)).unwrap();
        vec![
            gid(),
            add_imm(2, 1, 5, 0),
            spill(0, 2, 6),
            add_imm(2, 2, 0, S6),
            fill(0, 3, 1),
            again,
            add_imm(3, 3, 0, S6),
            fill(1, 4, 6),
            add_imm(5, 4, 0, S6),
            store(1, 5),
            b("stop", &[]),
        ]
    };
    let (pt, r) = run(prog(1), Some(8));
    r.unwrap();
    assert_eq!(words(&pt, 40), (0..40).map(|i| i + 5).collect::<Vec<u32>>());
    let (pt, r) = run(prog(0), Some(8));
    r.unwrap();
    assert_eq!(words(&pt, 40), vec![0; 40]);
}

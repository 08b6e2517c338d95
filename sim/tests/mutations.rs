//! Mutation tests: re-encode one field of an Apple-compiled oracle program
//! through agx16-isa and check the model reacts the way the M4 measurements say.

use agx16_isa::{decode_program, encode_program, Instr, SlotSet};
use agx16_sim::harness::{check, prepare, Outcome};
use agx16_sim::oracle::{oracles_dir, Oracle};
use agx16_sim::{run_compute, Code, PageTable};

fn load(name: &str) -> Oracle {
    Oracle::load(&oracles_dir().join("sim").join(format!("{name}.json"))).unwrap()
}

/// Re-encodes the program with `edit` applied to the first instruction of form `form`.
fn mutate(o: &Oracle, form: &str, edit: impl Fn(&mut Instr)) -> Oracle {
    let code = o.code().unwrap();
    let mut instrs: Vec<Instr> = decode_program(&code)
        .unwrap()
        .into_iter()
        .map(|(_, i)| i)
        .collect();
    assert_eq!(
        encode_program(&instrs),
        code,
        "{}: decode/encode round trip",
        o.name
    );
    let i = instrs
        .iter_mut()
        .find(|i| i.form.name == form)
        .unwrap_or_else(|| panic!("no {form} in {}", o.name));
    edit(i);
    let mut m = o.clone();
    m.main_hex = encode_program(&instrs)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    m
}

/// Runs an oracle's launch and returns the words of buffer slot `slot`.
fn run_words(o: &Oracle, binding: u32) -> Vec<u32> {
    let (pt, launch): (PageTable, _) = prepare(o).unwrap();
    run_compute(&pt, &launch).unwrap();
    let order = agx16_sim::harness::slot_order(o);
    let slot = order.iter().position(|&b| b == binding).unwrap() as u64;
    let n = o
        .buffers
        .iter()
        .find(|b| b.binding == binding)
        .unwrap()
        .words_u32
        .len();
    let mut bytes = vec![0u8; n * 4];
    pt.host_read(agx16_sim::harness::buffer_va(slot), &mut bytes)
        .unwrap();
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn consumer_naming_the_wrong_slot_reads_zero() {
    // EXP-0003 add: both loads publish on slot 6 and the fadd names slot 6.
    // Naming slot 5 (or 0) instead makes both pending operands read zero, so
    // every lane stores 0.0 (APPLE9_SCOREBOARD_SLOTS.md: neighbouring/zero
    // selectors zero every result lane, measured).
    let o = load("EXP-0003__add");
    assert!(matches!(check(&o), Outcome::Pass(_)));
    for slot in [0u8, 5, 1] {
        let m = mutate(&o, "fadd", |i| {
            i.set_wait(if slot == 0 {
                SlotSet(0)
            } else {
                SlotSet(1 << (slot - 1))
            })
            .unwrap();
        });
        let out = run_words(&m, 2);
        assert_eq!(&out[..8], &[0u32; 8], "slot {slot}");
    }
}

#[test]
fn sfu_naming_the_wrong_slot_sees_zero_input() {
    // rsqrt of a pending load: with the slot mask moved off slot 6 the SFU
    // input reads zero and rsqrt(+0) = +inf in every lane.
    let o = load("EXP-M4-54__native__rsqrt_float_abs");
    assert!(matches!(check(&o), Outcome::Pass(_)));
    let m = mutate(&o, "sfu", |i| {
        i.set_wait(SlotSet(1 << 4)).unwrap();
    });
    assert_eq!(&run_words(&m, 2)[..8], &[0x7f80_0000u32; 8]);
}

#[test]
fn releasing_a_live_source_matches_the_hardware_mutation() {
    // Setting the SFU release bit of the retained-source kernels must give what
    // the M4 gave for the same mutation (EXP-M4-54 forced_release oracles).
    for (native, form, mutated) in [
        (
            "EXP-M4-54__native__rcp_float_reuse",
            "sfu_rcp",
            "EXP-M4-54__mutation__rcp_float_reuse__forced_release",
        ),
        (
            "EXP-M4-54__native__exp2_float_reuse",
            "sfu",
            "EXP-M4-54__mutation__exp2_float_reuse__forced_release",
        ),
        (
            "EXP-M4-54__native__floor_half_reuse",
            "sfu",
            "EXP-M4-54__mutation__floor_half_reuse__forced_release",
        ),
    ] {
        let o = load(native);
        assert!(matches!(check(&o), Outcome::Pass(_)), "{native}");
        let m = mutate(&o, form, |i| {
            i.set("rel", 1).unwrap();
        });
        let hw = load(mutated);
        assert_eq!(
            m.main_hex, hw.main_hex,
            "the re-encoded mutation is the measured one"
        );
        let mut m = m;
        m.expected = hw.expected.clone();
        assert!(
            matches!(check(&m), Outcome::Pass(_)),
            "{mutated}: {}",
            check(&m)
        );
        // and the native expectation no longer holds: the later x + bias reads 0 + bias
        let mut unchanged = m.clone();
        unchanged.expected = o.expected.clone();
        assert!(
            matches!(check(&unchanged), Outcome::Mismatch { .. }),
            "{native}: release had no effect"
        );
    }
}

#[test]
fn launch_from_gpu_va_reads_the_same_program() {
    let o = load("EXP-M4-54__native__exp2_float_abs");
    let (pt, mut launch) = prepare(&o).unwrap();
    let code = o.code().unwrap();
    let va = 0x20_0000_0000u64;
    pt.map(va, agx16_sim::mem::PAGE_SIZE, true, false).unwrap();
    pt.host_write(va, &code).unwrap();
    launch.code = Code::Va {
        va,
        len: code.len(),
    };
    let stats = run_compute(&pt, &launch).unwrap();
    assert_eq!(stats.simdgroups, 1);
    assert!(stats.lane_instructions >= 8 * 5);
}

/// The oracle with byte `at` of its program replaced.
fn splice(o: &Oracle, at: usize, byte: u8) -> Oracle {
    let mut code = o.code().unwrap();
    code[at] = byte;
    let mut m = o.clone();
    m.main_hex = code.iter().map(|b| format!("{b:02x}")).collect();
    m
}

#[test]
fn immediate_compare_bound_follows_the_exp_0010_sweeps() {
    // ADevWithAnIdea/agx-re experiments/EXP-0010-control-flow/RESULTS.md (A18 Pro, measured):
    // eret4 main[7] (the pcmp_imm bound byte) 0x80/0x82/0x84/0x8e leaves gid < 2/4/6/all
    // storing 7; dsel5 main[21] 0x80 gives 100 for every a > 1 (200 only for a = 0) and 0x8e
    // gives 200 everywhere. The fitted reading (agx16-isa `pcmp_imm`/`isel_imm`: bound =
    // byte3 bits 1..6 plus the condition byte's 0x10 as bit 0) was fitted to the unspliced
    // runs only, so these are independent checks of it.
    let eret4 = load("EXP-0010__eret4");
    for (byte, active) in [(0x80u8, 2usize), (0x82, 4), (0x84, 6), (0x8e, 8)] {
        let got = run_words(&splice(&eret4, 7, byte), 0);
        let want: Vec<u32> = (0..8).map(|g| if g < active { 7 } else { 0 }).collect();
        assert_eq!(got, want, "eret4 main[7] = {byte:#04x}");
    }
    let dsel5 = load("EXP-0010__dsel5");
    let a = &dsel5
        .buffers
        .iter()
        .find(|b| b.binding == 1)
        .unwrap()
        .words_u32;
    for (byte, bound) in [(0x80u8, 1u32), (0x84, 5), (0x8e, 15)] {
        let got = run_words(&splice(&dsel5, 21, byte), 0);
        let want: Vec<u32> = a
            .iter()
            .map(|&x| if x > bound { 100 } else { 200 })
            .collect();
        assert_eq!(got, want, "dsel5 main[21] = {byte:#04x}");
    }
    // The sweep's extremes as the experiment states them.
    assert_eq!(
        run_words(&splice(&dsel5, 21, 0x8e), 0),
        vec![200; 8],
        "0x8e: all 200"
    );
}

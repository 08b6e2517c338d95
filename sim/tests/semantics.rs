//! Model behaviour on small programs assembled with agx16-isa, checked
//! against the documented meaning of each instruction (not against the model).

use agx16_isa::{encode_program, Instr};
use agx16_sim::mem::{FaultKind, PAGE_SIZE};
use agx16_sim::{run_compute, Code, ComputeLaunch, PageTable, SimError};

const OUT: u64 = 0x40_0000_0000;

fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `out[r_index] = r_data` as the Apple-compiled 32-bit stores encode it.
fn store(base: u64, index: u64, data: u64) -> Instr {
    b(
        "device_store",
        &[
            ("addr_mode", 0x54),
            ("data", data),
            ("base_slot", base),
            ("index", index),
            ("access_desc", 0x21),
            ("st_format", 0x11),
            ("st_desc_hi", 0x24),
            ("elem_size", 0x11),
        ],
    )
}

fn run(
    prog: Vec<Instr>,
    grid: u32,
    out_mapped: bool,
) -> (PageTable, Result<agx16_sim::Stats, SimError>) {
    let pt = PageTable::new();
    if out_mapped {
        pt.map(OUT, PAGE_SIZE, true, true).unwrap();
    }
    let launch = ComputeLaunch {
        code: Code::Bytes(encode_program(&prog)),
        uniforms: vec![OUT as u32, (OUT >> 32) as u32],
        grid: [grid, 1, 1],
        threadgroup: [grid.min(1024), 1, 1],
        tg_memory: 0,
        budget: 1 << 20,
    };
    let r = run_compute(&pt, &launch);
    (pt, r)
}

fn words(pt: &PageTable, n: usize) -> Vec<u32> {
    let mut b = vec![0u8; 4 * n];
    pt.host_read(OUT, &mut b).unwrap();
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn gid() -> Instr {
    b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa0)])
}

#[test]
fn if_else_pop_with_constant_predicates() {
    // if (false) out[i] = 5; else out[i] = 9;  then after the pop out[i+40] = 5
    // Banks 6/7 are constant true/false (EXP-M4-52/53).
    let prog = vec![
        gid(),
        b("mov_imm", &[("dst", 2), ("imm", 5)]),
        b("mov_imm", &[("dst", 3), ("imm", 9)]),
        b("if_push", &[("mode", 0x54), ("bank", 7)]),
        store(0, 1, 2),
        b("else", &[]),
        store(0, 1, 3),
        b("pop", &[("mode", 4), ("scope_kind", 1)]),
        b("stop", &[]),
    ];
    let (pt, r) = run(prog, 40, true);
    r.unwrap();
    assert_eq!(words(&pt, 40), vec![9; 40]);
}

#[test]
fn store_to_unmapped_memory_is_a_fault_with_pc() {
    let prog = vec![
        gid(),
        b("mov_imm", &[("dst", 2), ("imm", 5)]),
        store(0, 1, 2),
        b("stop", &[]),
    ];
    let (_, r) = run(prog, 8, false);
    match r {
        Err(SimError::Fault(f)) => {
            assert_eq!(f.kind, FaultKind::Unmapped);
            assert_eq!(f.addr, OUT);
            assert_eq!(f.pc, Some(6), "get_sr (4 bytes) + mov_imm (2 bytes)");
        }
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn read_only_page_refuses_stores() {
    let prog = vec![
        gid(),
        b("mov_imm", &[("dst", 2), ("imm", 5)]),
        store(0, 1, 2),
        b("stop", &[]),
    ];
    let pt = PageTable::new();
    pt.map(OUT, PAGE_SIZE, true, false).unwrap();
    let launch = ComputeLaunch {
        code: Code::Bytes(encode_program(&prog)),
        uniforms: vec![OUT as u32, (OUT >> 32) as u32],
        grid: [4, 1, 1],
        threadgroup: [4, 1, 1],
        tg_memory: 0,
        budget: 1 << 20,
    };
    let e = run_compute(&pt, &launch).unwrap_err();
    assert!(matches!(e, SimError::Fault(f) if f.kind == FaultKind::Permission));
}

#[test]
fn unknown_field_values_stop_with_pc_and_bytes() {
    // get_sr of a special register the model has no measurement for
    let prog = vec![
        b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0x3)]),
        b("stop", &[]),
    ];
    let (_, r) = run(prog, 1, true);
    match r {
        Err(SimError::Unestablished {
            pc: 0,
            bytes,
            form,
            what,
        }) => {
            assert_eq!(bytes.len(), 8);
            assert_eq!(form, "get_sr");
            assert!(what.contains("0x3"), "{what}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn partial_threadgroups_leave_outside_lanes_alone() {
    // grid of 37 threads: lanes 37..63 of the second SIMD-group never store
    let prog = vec![
        gid(),
        b("mov_imm", &[("dst", 2), ("imm", 1)]),
        store(0, 1, 2),
        b("stop", &[]),
    ];
    let (pt, r) = run(prog, 37, true);
    let s = r.unwrap();
    assert_eq!(s.simdgroups, 2);
    let w = words(&pt, 64);
    assert_eq!(&w[..37], &[1; 37][..]);
    assert_eq!(&w[37..], &[0; 27][..]);
    assert_eq!(s.lane_instructions, 37 * 4);
}

#[test]
fn endless_programs_hit_the_budget() {
    let prog = vec![b("jump", &[("mode", 0x54), ("offset", 0)])];
    let (_, r) = run(prog, 1, true);
    assert!(matches!(r, Err(SimError::Budget { .. })), "{r:?}");
}

#[test]
fn launch_without_the_buffer_slots_a_program_uses_is_refused() {
    let prog = vec![
        gid(),
        b("mov_imm", &[("dst", 2), ("imm", 5)]),
        store(3, 1, 2),
        b("stop", &[]),
    ];
    let pt = PageTable::new();
    let launch = ComputeLaunch {
        code: Code::Bytes(encode_program(&prog)),
        uniforms: vec![0; 2],
        grid: [4, 1, 1],
        threadgroup: [4, 1, 1],
        tg_memory: 0,
        budget: 1 << 20,
    };
    let e = run_compute(&pt, &launch).unwrap_err();
    assert!(
        matches!(e, SimError::Launch(ref m) if m.contains("8 uniform")),
        "{e}"
    );
}

#[test]
fn predicate_compare_drives_if_else() {
    // out[i] = (i < 5u) ? 7 : 9 through pcmp (cond 5 = uint <, EXP-M4-45) + if/else
    let pcmp = |invert: u64| {
        b(
            "pcmp",
            &[
                ("invert", invert),
                ("a_size", 1),
                ("a", 1),
                ("ctrl_lo", 1),
                ("ctrl_hi", 1),
                ("b_size", 1),
                ("b", 2),
                ("cond", 5),
                ("operand_tail", 0xc0),
            ],
        )
    };
    for (invert, lo, hi) in [(0, 7, 9), (1, 9, 7)] {
        let prog = vec![
            gid(),
            b("mov_imm", &[("dst", 2), ("imm", 5)]),
            b("mov_imm", &[("dst", 3), ("imm", 7)]),
            b("mov_imm", &[("dst", 4), ("imm", 9)]),
            pcmp(invert),
            b("if_push", &[("mode", 0x54), ("bank", 0)]),
            store(0, 1, 3),
            b("else", &[]),
            store(0, 1, 4),
            b("pop", &[("mode", 4), ("scope_kind", 1)]),
            b("stop", &[]),
        ];
        let (pt, r) = run(prog, 12, true);
        r.unwrap();
        let want: Vec<u32> = (0..12).map(|i| if i < 5 { lo } else { hi }).collect();
        assert_eq!(words(&pt, 12), want, "invert={invert}");
    }
}

#[test]
fn wide_immediates_uniforms_and_integer_min_max() {
    // out[i] = imax(i, umin(0xdeadbeef, uniform 2)) with signed max
    let prog = vec![
        gid(),
        b("mov_imm32", &[("dst", 2), ("imm", 0xdead_beef)]),
        b(
            "uniform_mov",
            &[("dst", 3), ("u_size", 1), ("u", 2), ("b3", 0x08)],
        ),
        // umin (sel 5) of the two
        b(
            "minmax",
            &[
                ("dst", 5),
                ("a_size", 1),
                ("a", 2),
                ("b_size", 1),
                ("b", 3),
                ("sel", 5),
            ],
        ),
        // imax (sel 6) with the thread id: signed, so 0xdead_beef (negative) loses
        b(
            "minmax",
            &[
                ("dst", 6),
                ("a_size", 1),
                ("a", 5),
                ("b_size", 1),
                ("b", 1),
                ("sel", 6),
            ],
        ),
        store(0, 1, 6),
        b("stop", &[]),
    ];
    let pt = PageTable::new();
    pt.map(OUT, PAGE_SIZE, true, true).unwrap();
    for (u, want_min) in [
        (0x8000_0001u32, 0x8000_0001u32),
        (0xffff_fff0, 0xdead_beef),
        (5, 5),
    ] {
        let launch = ComputeLaunch {
            code: Code::Bytes(encode_program(&prog)),
            uniforms: vec![OUT as u32, (OUT >> 32) as u32, u],
            grid: [8, 1, 1],
            threadgroup: [8, 1, 1],
            tg_memory: 0,
            budget: 1 << 20,
        };
        run_compute(&pt, &launch).unwrap();
        let want: Vec<u32> = (0..8).map(|i| (want_min as i32).max(i) as u32).collect();
        assert_eq!(words(&pt, 8), want, "uniform {u:#x}");
    }
}

#[test]
fn int_float_conversions() {
    // out[i] = int(float(i)^4) through i2f (signed), two fp32 multiplies and
    // f2i (round toward zero, signed): exact for these values.
    let conv = |name: &str, d: u64, s: u64, signed: u64| {
        let mut f = vec![
            ("mode", 0x15),
            ("src_class", 3),
            ("dst", d),
            ("src", s),
            ("op_hi", 2),
            ("signed", signed),
        ];
        if name == "i2f" {
            f.extend([("op_lo", 0x0c), ("b7_lo", 0x20)]);
        } else {
            f.extend([("op_lo", 0x14), ("b7_lo", 0x08), ("b8", 3)]);
        }
        b(name, &f)
    };
    let prog = vec![
        gid(),
        conv("i2f", 2, 1, 1),
        // r3 = r2 * r2 (fp32), then back to int
        b(
            "fmul",
            &[("dst", 3), ("a_size", 1), ("a", 2), ("b_size", 1), ("b", 2)],
        ),
        b(
            "fmul",
            &[("dst", 3), ("a_size", 1), ("a", 3), ("b_size", 1), ("b", 3)],
        ),
        conv("f2i", 4, 3, 1),
        store(0, 1, 4),
        b("stop", &[]),
    ];
    let (pt, r) = run(prog, 16, true);
    r.unwrap();
    let want: Vec<u32> = (0..16u32)
        .map(|i| ((i as f32).powi(4)) as i32 as u32)
        .collect();
    assert_eq!(words(&pt, 16), want);
}

/// Out-of-range float -> int saturates and NaN gives 0 (agx16_sim::value_rules): S32 above
/// 2^31 and U32 below 0 measured on M4 (niklassheth/agx-re EXP-M4-43), free of charge; the
/// other ends, infinities and NaN are inferred, counted per lane and refused in strict mode.
#[test]
fn float_to_int_saturates_and_nan_gives_zero() {
    use agx16_sim::value_rules::{self, Rule};
    let conv = |signed: u64| {
        b(
            "f2i",
            &[
                ("mode", 0x15),
                ("src_class", 3),
                ("dst", 4),
                ("src", 3),
                ("op_lo", 0x14),
                ("op_hi", 2),
                ("b7_lo", 8),
                ("b8", 2 | signed),
                ("signed", signed),
            ],
        )
    };
    let prog = |bits: u32, signed: u64| {
        vec![
            gid(),
            b("mov_imm32", &[("dst", 3), ("imm", bits as u64)]),
            conv(signed),
            store(0, 1, 4),
            b("stop", &[]),
        ]
    };
    let cases = [
        (0x7f00_0000u32, 1, 0x7fff_ffffu32, None), // 1.7e38 -> S32 max, measured
        (0xff00_0000, 1, 0x8000_0000, Some(Rule::F2iS32Below)),
        (0x7f80_0000, 1, 0x7fff_ffff, Some(Rule::F2iInfinity)),
        (0x7fc0_0000, 1, 0, Some(Rule::F2iNan)),
        (0xc0e0_0000, 1, -7i32 as u32, None), // -7.0
        (0xc0e0_0000, 0, 0, None),            // -7.0 -> U32 0, measured
        (0x4f80_0000, 0, u32::MAX, Some(Rule::F2iU32Above)), // 2^32
        (0xffc0_0000, 0, 0, Some(Rule::F2iNan)),
    ];
    for (bits, signed, want, rule) in cases {
        let ((pt, r), used) = value_rules::with_strict(false, || {
            value_rules::scoped(|| run(prog(bits, signed), 4, true))
        });
        r.unwrap();
        assert_eq!(words(&pt, 4), vec![want; 4], "{bits:#x} signed={signed}");
        assert_eq!(used.inferred(), if rule.is_some() { 4 } else { 0 });
        if let Some(rule) = rule {
            assert_eq!(used.get(rule), 4, "{bits:#x}");
        }
    }
    let (_, r) = value_rules::with_strict(true, || run(prog(0x7fc0_0000, 1), 4, true));
    assert!(
        matches!(&r, Err(SimError::Unmeasured { pc: 12, what }) if what.contains("f2i_nan")),
        "{r:?}"
    );
    let (_, r) = value_rules::with_strict(true, || run(prog(0x7f00_0000, 1), 4, true));
    r.unwrap();
}

/// The native F32 -> U32 cast (`.. b4 08 02 00`, niklassheth/agx-re EXP-M4-43 on M4)
/// converts 2147483904.0 and 4294967040.0 to 0x80000100 and 0xffffff00; the crossed pair
/// (unsigned with byte8 0x03) is a 16-bit saturating format there (65535) and is refused.
#[test]
fn unsigned_float_to_int_uses_the_native_u32_pair() {
    let conv = |b8: u64| {
        b(
            "f2i",
            &[
                ("mode", 0x15),
                ("src_class", 3),
                ("dst", 4),
                ("src", 3),
                ("op_lo", 0x14),
                ("op_hi", 2),
                ("b7_lo", 8),
                ("b8", b8),
                ("signed", 0),
            ],
        )
    };
    for (bits, want) in [(0x4f00_0001u32, 0x8000_0100u32), (0x4f7f_ffff, 0xffff_ff00)] {
        let prog = vec![
            gid(),
            b("mov_imm32", &[("dst", 3), ("imm", bits as u64)]),
            conv(2),
            store(0, 1, 4),
            b("stop", &[]),
        ];
        let (pt, r) = run(prog, 4, true);
        r.unwrap();
        assert_eq!(words(&pt, 4), vec![want; 4], "{bits:#x}");
    }
    let prog = vec![
        gid(),
        b("mov_imm32", &[("dst", 3), ("imm", 0x3f80_0000)]),
        conv(3),
        store(0, 1, 4),
        b("stop", &[]),
    ];
    let (_, r) = run(prog, 4, true);
    assert!(r.is_err(), "{r:?}");
}

#[test]
fn threadgroup_barrier_resumes_every_simdgroup() {
    // 3 SIMD-groups meet at a threadgroup barrier, then each lane stores 1.
    let prog = vec![
        gid(),
        b("mov_imm", &[("dst", 2), ("imm", 1)]),
        b("barrier", &[("b1", 4), ("scope", 0x61), ("flags", 9)]),
        store(0, 1, 2),
        b("stop", &[]),
    ];
    let (pt, r) = run(prog, 96, true);
    let s = r.unwrap();
    assert_eq!((s.threadgroups, s.simdgroups), (1, 3));
    assert_eq!(words(&pt, 96), vec![1; 96]);
    assert_eq!(s.lane_instructions, 96 * 5);
}

#[test]
fn load_beyond_its_measured_register_reach_is_refused() {
    // device_load reaches r0..r63 (GravityLinux/mesa machine table; r64+ is
    // reported to zero silently on A18): the model refuses r64.
    let load = b(
        "device_load",
        &[
            ("addr_mode", 0x54),
            ("dst", 64),
            ("base_slot", 0),
            ("index", 1),
            ("access_desc", 0x20),
            ("ld_format", 0x11),
            ("ldform_hi11", 0x10),
            ("elem_size", 0x46),
        ],
    );
    let prog = vec![gid(), load, b("stop", &[])];
    let (_, r) = run(prog, 4, true);
    match r {
        Err(SimError::Unestablished { pc: 4, what, .. }) => assert!(what.contains("r64"), "{what}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn special_registers_follow_the_launch_geometry() {
    // out[gid.x] = sr for a 1-D grid of 80 threads in threadgroups of 16:
    // thread_position_in_threadgroup.x (0xa4) = i % 16,
    // threadgroup_position_in_grid.x (0x9c) = i / 16,
    // threads_per_threadgroup.x (0x98) = 16 (Metal meanings).
    for (sel, f) in [
        (0xa4u64, (|i| i % 16) as fn(u32) -> u32),
        (0x9c, |i| i / 16),
        (0x98, |_| 16),
    ] {
        let prog = vec![
            gid(),
            b("get_sr", &[("form", 1), ("dst", 2), ("sr_sel", sel)]),
            store(0, 1, 2),
            b("stop", &[]),
        ];
        let pt = PageTable::new();
        pt.map(OUT, PAGE_SIZE, true, true).unwrap();
        let launch = ComputeLaunch {
            code: Code::Bytes(encode_program(&prog)),
            uniforms: vec![OUT as u32, (OUT >> 32) as u32],
            grid: [80, 1, 1],
            threadgroup: [16, 1, 1],
            tg_memory: 0,
            budget: 1 << 20,
        };
        let s = run_compute(&pt, &launch).unwrap();
        assert_eq!((s.threadgroups, s.simdgroups), (5, 5));
        let want: Vec<u32> = (0..80).map(f).collect();
        assert_eq!(words(&pt, 80), want, "sr {sel:#x}");
    }
}

#[test]
fn integer_add_sub_wrap_around() {
    // out[i] = ((i + 0xffff_fffe) - i) + 37 = 35 (wrapping), assembled from the established encodings:
    // register add/sub (GravityLinux pack_iadd bytes) and the immediate add of EXP-M4-35.
    let reg = |name: &str, d, a, bb| {
        b(
            name,
            &[
                ("b2_fmt", 0x15),
                ("dst", d),
                ("opmode", 2),
                ("a", a),
                ("b", bb),
                ("b7_hi", 0x15),
                ("b8_0", 1),
                ("b8_hi", 2),
            ],
        )
    };
    let prog = vec![
        gid(),
        b("mov_imm32", &[("dst", 2), ("imm", 0xffff_fffe)]),
        reg("iadd_reg", 3, 1, 2), // i - 2 (wrapping)
        reg("isub_reg", 4, 3, 1), // 0xffff_fffe
        b(
            "iadd",
            &[
                ("b2_fmt", 0x15),
                ("dst", 5),
                ("opmode", 2),
                ("dst_size", 1),
                ("b7_hi", 8),
                ("b_imm", 37),
                ("a", 4),
                ("b8_0", 1),
                ("b8_hi", 2),
                ("b9_hi", 2),
            ],
        ),
        store(0, 1, 5),
        b("stop", &[]),
    ];
    let (pt, r) = run(prog, 8, true);
    r.unwrap();
    let want: Vec<u32> = (0..8u32)
        .map(|i| i.wrapping_add(0xffff_fffe).wrapping_sub(i).wrapping_add(37))
        .collect();
    assert_eq!(words(&pt, 8), want);
}

#[test]
fn divergent_loop_counts_per_lane() {
    // do { acc += 1; k += 1 } while (k != gid + 1); out[gid] = acc
    // loop push / latch `8f 04 54 22` / JMP_EXEC_ANY / kind-2 pop (EXP-M4-46).
    let add_imm = |d: u64, a: u64, k: u64| {
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
            ],
        )
    };
    let head = vec![
        gid(),
        add_imm(4, 1, 1), // r4 = gid + 1
        b("mov_imm", &[("dst", 2), ("imm", 0)]),
        b("mov_imm", &[("dst", 3), ("imm", 0)]),
        b("loop_push", &[("mode", 0x54), ("bank", 6)]),
    ];
    let body = vec![
        add_imm(2, 2, 1),
        add_imm(3, 3, 1),
        b(
            "pcmp_ext",
            &[
                ("a_size", 1),
                ("a", 3),
                ("ctrl_lo", 1),
                ("ctrl_hi", 1),
                ("b_size", 1),
                ("b", 4),
                ("relation", 7),
                ("operand_tail", 0xc0),
            ],
        ),
        b("loop_update", &[("b3_lo", 2), ("bank", 0), ("invert", 1)]),
    ];
    let len = |v: &[Instr]| v.iter().map(|i| i.form.len as i64).sum::<i64>();
    let back = -len(&body);
    let mut prog = head;
    prog.extend(body);
    prog.push(b(
        "jump",
        &[("mode", 0x54), ("offset", back as u64 & 0xffff_ffff_ffff)],
    ));
    prog.push(b("pop", &[("mode", 4), ("scope_kind", 2)]));
    prog.push(store(0, 1, 2));
    prog.push(b("stop", &[]));
    let (pt, r) = run(prog, 40, true);
    r.unwrap();
    assert_eq!(words(&pt, 40), (1..=40).collect::<Vec<u32>>());
}

#[test]
fn break_under_an_if_leaves_the_loop() {
    // for (k = 0;; k++) { if (k == gid) break; acc++; }  out[gid] = acc = gid
    let add_imm = |d: u64, a: u64, k: u64| {
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
            ],
        )
    };
    let eq = |a: u64, bb: u64| {
        b(
            "pcmp_ext",
            &[
                ("a_size", 1),
                ("a", a),
                ("ctrl_lo", 1),
                ("ctrl_hi", 1),
                ("b_size", 1),
                ("b", bb),
                ("relation", 7),
                ("operand_tail", 0xc0),
            ],
        )
    };
    let head = vec![
        gid(),
        b("mov_imm", &[("dst", 2), ("imm", 0)]),
        b("mov_imm", &[("dst", 3), ("imm", 0)]),
        b("mov_imm32", &[("dst", 9), ("imm", 0xffff_ffff)]),
        b("loop_push", &[("mode", 0x54), ("bank", 6)]),
    ];
    let body = vec![
        eq(3, 1),
        // the measured sequence: if_push directly followed by the break
        // (EXP-M4-46 `0f 05 54 01` + `8f 05 54 03 00 01`)
        b("if_push", &[("mode", 0x54), ("bank", 0)]),
        b("break_unwind", &[("b2", 0x54), ("b3", 3), ("b4", 0x100)]),
        b("pop", &[("mode", 4), ("scope_kind", 1)]),
        add_imm(2, 2, 1),
        add_imm(3, 3, 1),
        eq(3, 9), // never true: the latch keeps every lane
        b("loop_update", &[("b3_lo", 2), ("bank", 0), ("invert", 1)]),
    ];
    let back = -body.iter().map(|i| i.form.len as i64).sum::<i64>();
    let mut prog = head;
    prog.extend(body);
    prog.push(b(
        "jump",
        &[("mode", 0x54), ("offset", back as u64 & 0xffff_ffff_ffff)],
    ));
    prog.push(b("pop", &[("mode", 4), ("scope_kind", 2)]));
    prog.push(store(0, 1, 2));
    prog.push(b("stop", &[]));
    let (pt, r) = run(prog, 33, true);
    r.unwrap();
    assert_eq!(words(&pt, 33), (0..33).collect::<Vec<u32>>());
}

#[test]
fn huge_grids_do_not_panic() {
    // A grid at the u32 limit must not overflow thread arithmetic; the
    // instruction budget ends it cleanly.
    let prog = vec![gid(), b("stop", &[])];
    let pt = PageTable::new();
    let launch = ComputeLaunch {
        code: Code::Bytes(encode_program(&prog)),
        uniforms: vec![],
        grid: [u32::MAX, 1, 1],
        threadgroup: [1024, 1, 1],
        tg_memory: 0,
        budget: 1000,
    };
    assert!(matches!(
        run_compute(&pt, &launch),
        Err(SimError::Budget { .. })
    ));
}

#[test]
fn extended_float_compares_are_ordered_ge_and_le_or_unordered() {
    // EXP-M4-45 (M4): pcmp_ext relation 2 = ordered a >= b, relation 3 = a <= b
    // or unordered. Reference: Rust's IEEE comparisons.
    let vals = [1.0f32, 2.0, -0.0, 0.0, f32::NAN, f32::INFINITY];
    for relation in [2u64, 3] {
        for &x in &vals {
            for &y in &vals {
                let prog = vec![
                    gid(),
                    b("mov_imm32", &[("dst", 2), ("imm", x.to_bits() as u64)]),
                    b("mov_imm32", &[("dst", 3), ("imm", y.to_bits() as u64)]),
                    b("mov_imm", &[("dst", 4), ("imm", 7)]),
                    b("mov_imm", &[("dst", 5), ("imm", 9)]),
                    b(
                        "pcmp_ext",
                        &[
                            ("a_size", 1),
                            ("a", 2),
                            ("ctrl_lo", 1),
                            ("ctrl_hi", 1),
                            ("b_size", 1),
                            ("b", 3),
                            ("relation", relation),
                            ("operand_tail", 0xc0),
                        ],
                    ),
                    b("if_push", &[("mode", 0x54), ("bank", 0)]),
                    store(0, 1, 4),
                    b("else", &[]),
                    store(0, 1, 5),
                    b("pop", &[("mode", 4), ("scope_kind", 1)]),
                    b("stop", &[]),
                ];
                let (pt, r) = run(prog, 2, true);
                r.unwrap();
                let holds = if relation == 2 {
                    x >= y
                } else {
                    x.partial_cmp(&y) != Some(std::cmp::Ordering::Greater)
                };
                let want = if holds { 7 } else { 9 };
                assert_eq!(words(&pt, 2), vec![want; 2], "{x} rel{relation} {y}");
            }
        }
    }
}

#[test]
fn funary_modifiers_copy_abs_and_negate() {
    // byte5 0x00 mov, 0x02 |a|, 0x0a -a (niklassheth/agx-re encoding-tables.md `funary`);
    // reference: Rust's f32 operations on -2.5 and 3.0.
    for (m, x, want) in [
        (0x00u64, -2.5f32, -2.5f32),
        (0x02, -2.5, 2.5),
        (0x0a, -2.5, 2.5),
        (0x0a, 3.0, -3.0),
    ] {
        let prog = vec![
            gid(),
            b("mov_imm32", &[("dst", 2), ("imm", x.to_bits() as u64)]),
            b(
                "funary",
                &[
                    ("dst", 3),
                    ("a_size", 1),
                    ("a", 2),
                    ("b3", 0x11),
                    ("srcmod", 2),
                    ("mod", m),
                ],
            ),
            store(0, 1, 3),
            b("stop", &[]),
        ];
        let (pt, r) = run(prog, 1, true);
        r.unwrap();
        assert_eq!(words(&pt, 1), vec![want.to_bits()], "mod {m:#x} of {x}");
    }
}

/// fmin/fmax (minmax selectors 1/0) as ADevWithAnIdea/agx-re EXP-0013 measured them on the
/// A18 (raw/val_unary_minmax.log): a NaN operand loses, two NaNs give NaN, ±0 are not ordered
/// and a tie returns operand B (fmax(-0,+0) = +0, fmax(+0,-0) = -0). Inferred on M4, so each
/// NaN or signed-zero lane counts (agx16_sim::value_rules).
#[test]
fn float_min_max_follow_the_a18_nan_and_signed_zero_results() {
    use agx16_sim::value_rules::{self, Rule};
    let prog = |a: u32, bb: u32, sel: u64| {
        vec![
            gid(),
            b("mov_imm32", &[("dst", 2), ("imm", a as u64)]),
            b("mov_imm32", &[("dst", 3), ("imm", bb as u64)]),
            b(
                "minmax",
                &[
                    ("dst", 5),
                    ("a_size", 1),
                    ("a", 2),
                    ("b_size", 1),
                    ("b", 3),
                    ("sel", sel),
                ],
            ),
            store(0, 1, 5),
            b("stop", &[]),
        ]
    };
    let (nan, three, pz, nz) = (0x7fc0_0000u32, 0x4040_0000u32, 0u32, 0x8000_0000u32);
    let one = 0x3f80_0000u32;
    // (a, b, fmax, fmin, rule)
    let cases = [
        (nan, three, three, three, Some(Rule::FMinMaxNan)),
        (three, nan, three, three, Some(Rule::FMinMaxNan)),
        (0x7f80_0001, nan, nan, nan, Some(Rule::FMinMaxNan)),
        (nz, pz, pz, pz, Some(Rule::FMinMaxSignedZero)),
        (pz, nz, nz, nz, Some(Rule::FMinMaxSignedZero)),
        (one, three, three, one, None),
        (0xff80_0000, one, one, 0xff80_0000, None),
    ];
    for (a, bb, max, min, rule) in cases {
        for (sel, want) in [(0, max), (1, min)] {
            let ((pt, r), used) = value_rules::with_strict(false, || {
                value_rules::scoped(|| run(prog(a, bb, sel), 4, true))
            });
            r.unwrap();
            assert_eq!(words(&pt, 4), vec![want; 4], "{a:#x} {bb:#x} sel {sel}");
            assert_eq!(used.inferred(), if rule.is_some() { 4 } else { 0 });
            if let Some(rule) = rule {
                assert_eq!(used.get(rule), 4);
            }
        }
    }
    let (_, r) = value_rules::with_strict(true, || run(prog(nan, one, 1), 4, true));
    assert!(
        matches!(&r, Err(SimError::Unmeasured { what, .. }) if what.contains("fminmax_nan")),
        "{r:?}"
    );
}

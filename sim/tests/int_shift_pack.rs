//! Integer shifts and unorm packs against CPU references written from the
//! sources' contracts. Shifts:
//! the encodings are GravityLinux/mesa pack_shift's (packer vectors of its
//! test-apple9.cpp, backend run on T8132) and the Apple-compiled `ishr_imm` of
//! EXP-M4-13 dec2_k_ashr_amt; the semantics (amount = low 16 bits of a register
//! source, 32 and above saturate) are that backend's native amount contract.

use agx16_isa::{decode_at, encode_program, Instr};
use agx16_sim::mem::PAGE_SIZE;
use agx16_sim::{run_compute, Code, ComputeLaunch, PageTable, SimError};

const OUT: u64 = 0x40_0000_0000;
const THREADS: u32 = 64;
const VALUE: u32 = 0x8123_4567;

fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

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

fn iadd_reg(d: u64, a: u64, bb: u64) -> Instr {
    b(
        "iadd_reg",
        &[
            ("b2_fmt", 0x15),
            ("dst", d),
            ("opmode", 2),
            ("a", a),
            ("a_keep", 1),
            ("b", bb),
            ("b_keep", 1),
            ("b7_hi", 0x15),
            ("b8_0", 1),
            ("b8_hi", 2),
        ],
    )
}

/// A register shift `name` r[d] = r[a] op r[amount], both sources kept.
fn shift_reg(name: &str, d: u64, a: u64, amount: u64) -> Instr {
    let mut f = vec![
        ("mode", 0x15),
        ("dst", d),
        ("src_class", 2),
        ("src", a),
        ("b", amount),
    ];
    if name == "ishr_reg" {
        f.push(("b8", 0xe2));
    } else {
        f.extend([("b8", 0xf0), ("b9_hi", 4)]);
    }
    b(name, &f)
}

/// An immediate shift r[d] = r[a] op k, source kept.
fn shift_imm(name: &str, d: u64, a: u64, k: u64) -> Instr {
    let mut f = vec![
        ("mode", 0x15),
        ("dst", d),
        ("src_class", 2),
        ("src", a),
        ("amount", k),
    ];
    if name == "ishr_imm" {
        f.push(("b8", 0x62));
    } else {
        f.extend([("b8", 0xf0), ("b9_hi", 4)]);
    }
    b(name, &f)
}

fn run(prog: &[Instr], outputs: usize) -> Result<Vec<Vec<u32>>, SimError> {
    let pt = PageTable::new();
    let mut uniforms = vec![];
    for k in 0..outputs as u64 {
        let va = OUT + k * PAGE_SIZE;
        pt.map(va, PAGE_SIZE, true, true).unwrap();
        uniforms.extend([va as u32, (va >> 32) as u32]);
    }
    run_compute(
        &pt,
        &ComputeLaunch {
            code: Code::Bytes(encode_program(prog)),
            uniforms,
            grid: [THREADS, 1, 1],
            threadgroup: [THREADS, 1, 1],
            tg_memory: 0,
            budget: 1 << 20,
        },
    )?;
    Ok((0..outputs as u64)
        .map(|k| {
            let mut bytes = vec![0u8; 4 * THREADS as usize];
            pt.host_read(OUT + k * PAGE_SIZE, &mut bytes).unwrap();
            bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
        .collect())
}

/// CPU reference of the contract (written from the source's statement, not
/// from the model): amount = low 16 bits, >= 32 gives 0 (or the sign).
fn reference(op: &str, x: u32, amount: u32) -> u32 {
    let n = amount & 0xffff;
    match op {
        "shl" if n >= 32 => 0,
        "shl" => x << n,
        "ushr" if n >= 32 => 0,
        "ushr" => x >> n,
        _ if n >= 32 => {
            if x & 0x8000_0000 != 0 {
                u32::MAX
            } else {
                0
            }
        }
        _ => ((x as i32) >> n) as u32,
    }
}

#[test]
fn packer_vectors_decode_to_the_shift_forms() {
    // GravityLinux/mesa test-apple9.cpp: r80 = r95 >> r64, both sources kept.
    let arith = decode_at(
        &[0xa7, 0x01, 0x54, 0xa0, 0x02, 0x7c, 0x01, 0x1a, 0xe2, 0x00],
        0,
    )
    .unwrap();
    let logical = decode_at(
        &[
            0xa7, 0x00, 0x54, 0xa0, 0x02, 0x7c, 0x01, 0x02, 0xf0, 0x10, 0x05, 0x00,
        ],
        0,
    )
    .unwrap();
    for (i, name) in [(&arith, "ishr_reg"), (&logical, "ushr_reg")] {
        assert_eq!(i.form.name, name);
        assert_eq!(i.field("dst"), Some(80));
        assert_eq!(i.field("src"), Some(95));
        assert_eq!(i.field("b"), Some(64));
        assert_eq!(i.field("rel_a"), Some(0));
        assert_eq!(i.field("rel_b"), Some(0));
    }
    // Apple-compiled (EXP-M4-13 dec2_k_ashr_amt): r3 = r3 >> 8, source released.
    let apple = decode_at(
        &[0xa7, 0x01, 0x54, 0x06, 0x02, 0x0c, 0x20, 0x78, 0x62, 0x00],
        0,
    )
    .unwrap();
    assert_eq!(apple.form.name, "ishr_imm");
    assert_eq!(apple.field("amount"), Some(8));
    assert_eq!(apple.field("rel_a"), Some(1));
}

#[test]
fn register_shifts_match_the_reference_for_every_amount_0_to_63() {
    // r1 = gid (the amount), r2 = VALUE, r3 = VALUE - ... per lane: r4 = gid + VALUE;
    // r6 = gid + 0x10000 (a 16-bit-truncated amount equal to gid).
    let prog = vec![
        b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa0)]),
        b("mov_imm32", &[("dst", 2), ("imm", VALUE as u64)]),
        iadd_reg(4, 1, 2),
        b("mov_imm32", &[("dst", 5), ("imm", 0x1_0000)]),
        iadd_reg(6, 1, 5),
        shift_reg("ishr_reg", 10, 4, 1),
        shift_reg("ushr_reg", 11, 4, 1),
        shift_reg("ishl_reg", 12, 4, 1),
        shift_reg("ushr_reg", 13, 4, 6),
        shift_reg("ishr_reg", 14, 2, 6),
        store(0, 1, 10),
        store(1, 1, 11),
        store(2, 1, 12),
        store(3, 1, 13),
        store(4, 1, 14),
        b("stop", &[]),
    ];
    let out = run(&prog, 5).unwrap();
    let per_lane = |op: &str, x: &dyn Fn(u32) -> u32, amt: &dyn Fn(u32) -> u32| -> Vec<u32> {
        (0..THREADS).map(|i| reference(op, x(i), amt(i))).collect()
    };
    let v = |i: u32| i.wrapping_add(VALUE);
    assert_eq!(out[0], per_lane("ishr", &v, &|i| i));
    assert_eq!(out[1], per_lane("ushr", &v, &|i| i));
    assert_eq!(out[2], per_lane("shl", &v, &|i| i));
    assert_eq!(out[3], per_lane("ushr", &v, &|i| i + 0x1_0000));
    assert_eq!(out[4], per_lane("ishr", &|_| VALUE, &|i| i + 0x1_0000));
    // spot values from the contract's own vectors
    assert_eq!(out[4][33], u32::MAX);
    assert_eq!(out[4][4], 0xf812_3456);
}

#[test]
fn immediate_shifts_match_the_reference() {
    let mut prog = vec![
        b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa0)]),
        b("mov_imm32", &[("dst", 2), ("imm", VALUE as u64)]),
        iadd_reg(4, 1, 2),
    ];
    let cases = [
        ("ishr_imm", "ishr", 0),
        ("ishr_imm", "ishr", 8),
        ("ishr_imm", "ishr", 31),
        ("ushr_imm", "ushr", 1),
        ("ushr_imm", "ushr", 31),
        ("ishl_imm", "shl", 5),
        ("ishl_imm", "shl", 31),
    ];
    for (k, (form, _, amount)) in cases.iter().enumerate() {
        prog.push(shift_imm(form, 8 + k as u64, 4, *amount));
    }
    for k in 0..cases.len() as u64 {
        prog.push(store(k, 1, 8 + k));
    }
    prog.push(b("stop", &[]));
    let out = run(&prog, cases.len()).unwrap();
    for (k, (form, op, amount)) in cases.iter().enumerate() {
        let want: Vec<u32> = (0..THREADS)
            .map(|i| reference(op, i.wrapping_add(VALUE), *amount as u32))
            .collect();
        assert_eq!(out[k], want, "{form} by {amount}");
    }
}

#[test]
fn a_released_shift_source_reads_zero_afterwards() {
    // The Apple-compiled ishr_imm releases its source (byte7 bit 6): storing
    // the source afterwards stores zero, as every released register does.
    let prog = vec![
        b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa0)]),
        b("mov_imm32", &[("dst", 3), ("imm", VALUE as u64)]),
        b(
            "ishr_imm",
            &[
                ("mode", 0x15),
                ("dst", 4),
                ("src_class", 2),
                ("src", 3),
                ("amount", 8),
                ("rel_a", 1),
                ("b8", 0x62),
            ],
        ),
        store(0, 1, 4),
        store(1, 1, 3),
        b("stop", &[]),
    ];
    let out = run(&prog, 2).unwrap();
    assert!(out[0].iter().all(|&w| w == ((VALUE as i32) >> 8) as u32));
    assert!(out[1].iter().all(|&w| w == 0));
}

#[test]
fn unmeasured_shift_control_bytes_are_refused() {
    let mut bad = shift_reg("ushr_reg", 10, 4, 1);
    bad.set("b8", 0xf1).unwrap();
    let prog = vec![
        b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa0)]),
        bad,
        store(0, 1, 10),
        b("stop", &[]),
    ];
    let e = run(&prog, 1).unwrap_err();
    assert!(
        matches!(&e, SimError::Unestablished { form, what, .. } if form == "ushr_reg" && what.contains("b8")),
        "{e}"
    );
}

// ---- unorm packs (GravityLinux/mesa PACK_UNORM_2X16 / PACK_UNORM_4X8) ----

/// CPU reference: GL's packUnorm rule with round-to-nearest-even of the exact
/// product, as the source states for the hardware.
fn unorm_ref(x: f32, bits: u32) -> u32 {
    let scale = ((1u64 << bits) - 1) as f64;
    let p = (x.clamp(0.0, 1.0) as f64) * scale;
    let (fl, fr) = (p.floor(), p - p.floor());
    let r = if fr > 0.5 || (fr == 0.5 && fl % 2.0 == 1.0) {
        fl + 1.0
    } else {
        fl
    };
    r as u32
}

fn pack(name: &str, d: u64, half: u64, a: u64, bb: u64) -> Instr {
    let mut f = vec![
        ("dst", d),
        ("b4", 2),
        ("a", a),
        ("b", bb),
        ("b7_hi", 0x14),
        ("b8", 0x44),
    ];
    if name == "pack_unorm8x2" {
        f.push(("dst_half", half));
    }
    b(name, &f)
}

#[test]
fn packer_vector_bytes_decode_to_the_pack_forms() {
    // GravityLinux/mesa PACK_UNORM_2X16 base bytes with r5 = pack(r2, r3).
    let p16 = pack("pack_unorm16x2", 5, 0, 2, 3);
    let bytes = encode_program(&[p16]);
    assert_eq!(
        bytes,
        [0x97, 0x04, 0x56, 0x0a, 0x02, 0x08, 0x18, 0x50, 0x44, 0x82]
    );
    let p8 = pack("pack_unorm8x2", 5, 1, 2, 3);
    let bytes = encode_program(&[p8]);
    assert_eq!(
        bytes,
        [0x97, 0x04, 0x54, 0x0b, 0x02, 0x08, 0x18, 0x50, 0x44, 0xc2]
    );
}

#[test]
fn unorm_packs_match_the_reference() {
    // Per-lane fp32 inputs from the thread id: i2f(gid) * k, spanning
    // negative, in-range, ties and above-one values.
    let conv = |d: u64, s: u64| {
        b(
            "i2f",
            &[
                ("mode", 0x15),
                ("src_class", 3),
                ("dst", d),
                ("src", s),
                ("op_hi", 2),
                ("signed", 1),
                ("op_lo", 0x0c),
                ("b7_lo", 0x20),
            ],
        )
    };
    let fmul = |d: u64, a: u64, bb: u64| {
        b(
            "fmul",
            &[
                ("dst", d),
                ("a_size", 1),
                ("a", a),
                ("b_size", 1),
                ("b", bb),
            ],
        )
    };
    let fadd = |d: u64, a: u64, bb: u64| {
        b(
            "fadd",
            &[
                ("dst", d),
                ("a_size", 1),
                ("a", a),
                ("b_size", 1),
                ("b", bb),
            ],
        )
    };
    // x = gid / 31 - 0.25 (some below 0, some above 1); y = gid / 510 (near-halfway products).
    let k1 = 1.0f32 / 31.0;
    let k2 = 1.0f32 / 510.0;
    let prog = vec![
        b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa0)]),
        conv(2, 1),
        b("mov_imm32", &[("dst", 3), ("imm", k1.to_bits() as u64)]),
        b(
            "mov_imm32",
            &[("dst", 4), ("imm", (-0.25f32).to_bits() as u64)],
        ),
        b("mov_imm32", &[("dst", 5), ("imm", k2.to_bits() as u64)]),
        fmul(6, 2, 3),
        fadd(6, 6, 4),
        fmul(7, 2, 5),
        pack("pack_unorm16x2", 10, 0, 6, 7),
        pack("pack_unorm8x2", 11, 0, 6, 7),
        pack("pack_unorm8x2", 11, 1, 7, 6),
        store(0, 1, 10),
        store(1, 1, 11),
        b("stop", &[]),
    ];
    let out = run(&prog, 2).unwrap();
    for i in 0..THREADS {
        let x = (i as f32) * k1 + -0.25;
        let y = (i as f32) * k2;
        let w16 = unorm_ref(x, 16) | unorm_ref(y, 16) << 16;
        let w8 =
            unorm_ref(x, 8) | unorm_ref(y, 8) << 8 | unorm_ref(y, 8) << 16 | unorm_ref(x, 8) << 24;
        assert_eq!(out[0][i as usize], w16, "lane {i}: x {x} y {y}");
        assert_eq!(out[1][i as usize], w8, "lane {i}: x {x} y {y}");
    }
    // the data covers clamping at both ends (x < 0 in lane 0, x > 1 in lane 63)
    assert_eq!(out[1][0] & 0xff, 0);
    assert_eq!(out[1][63] & 0xff, 255);
}

/// A NaN packs as 0 (agx16_sim::value_rules PackUnormNan, inferred: counted per value and
/// refused in strict mode); out-of-range values clamp (PackUnormRange, the M4 driver's rule).
#[test]
fn unorm_pack_of_nan_gives_zero() {
    use agx16_sim::value_rules::{self, Rule};
    let prog = vec![
        b("mov_imm32", &[("dst", 2), ("imm", 0x7fc0_0000)]),
        b("mov_imm32", &[("dst", 3), ("imm", 0x3f00_0000)]),
        b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa0)]),
        pack("pack_unorm16x2", 10, 0, 2, 3),
        store(0, 1, 10),
        b("stop", &[]),
    ];
    let (out, used) =
        value_rules::with_strict(false, || value_rules::scoped(|| run(&prog, 1).unwrap()));
    // NaN -> 0 in the low half, 0.5 -> round(32767.5) = 32768 in the high half
    assert!(out[0].iter().all(|&w| w == 0x8000_0000), "{:08x?}", out[0]);
    assert_eq!(used.get(Rule::PackUnormNan), THREADS as u64);
    assert_eq!(used.get(Rule::PackUnormRange), 0);
    let e = value_rules::with_strict(true, || run(&prog, 1).unwrap_err());
    assert!(
        matches!(&e, SimError::Unmeasured { what, .. } if what.contains("pack_unorm_nan")),
        "{e}"
    );
}

// ---- zext16 (the narrow get_sr companion) ----

#[test]
fn zext16_clears_the_high_half_in_place() {
    // r3 = 0xdead_beef + gid, then zext16 r3 (GravityLinux get_sr_zext16's companion word).
    let with = |zext: bool| {
        let mut prog = vec![
            b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa0)]),
            b("mov_imm32", &[("dst", 2), ("imm", 0xdead_beef)]),
            iadd_reg(3, 1, 2),
        ];
        if zext {
            prog.push(b("zext16", &[("dst", 3)]));
        }
        prog.extend([store(0, 1, 3), b("stop", &[])]);
        run(&prog, 1).unwrap().remove(0)
    };
    let sum = |i: u32| 0xdead_beefu32.wrapping_add(i);
    assert_eq!(
        with(true),
        (0..THREADS).map(|i| sum(i) & 0xffff).collect::<Vec<_>>()
    );
    assert_eq!(with(false), (0..THREADS).map(sum).collect::<Vec<_>>());
    // the encoding is the pair's companion word `33 00 00 01`
    assert_eq!(
        encode_program(&[b("zext16", &[("dst", 3)])]),
        [0x33, 0, 0, 1]
    );
}

/// The multiply-add of GravityLinux/mesa pack_imad (`9f 00 54 .. 02 .. .. .. d0 2f 2a 00`,
/// INT_MAD_EXTENDED, run on T8132 by that backend): the low 32 bits of a * b + c, with
/// wrapping products of large operands; the packer's keep bits leave the sources readable.
#[test]
fn imad_is_the_low_word_of_a_times_b_plus_c() {
    let imad = |d: u64, a: u64, bb: u64, c: u64, keep: bool| {
        let mut f = vec![
            ("b2_fmt", 0x15),
            ("opmode", 2),
            ("mulsel", 0xd),
            ("b9_0", 1),
            ("b9_hi", 2),
            ("b10", 0x2a),
            ("dst", d),
            ("a", a),
            ("b", bb),
            ("c", c),
        ];
        if keep {
            f.extend([("a_keep", 1), ("b_keep", 1), ("c_keep", 1)]);
        } else {
            f.extend([("rel_a", 1), ("rel_b", 1), ("rel_c", 1)]);
        }
        b("imad", &f)
    };
    // r4 = gid + VALUE; r5 = 0x10001 * gid + 77 (kept sources); r6 = r4 * r4 + r5 (released)
    let prog = vec![
        b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa0)]),
        b("mov_imm32", &[("dst", 2), ("imm", VALUE as u64)]),
        iadd_reg(4, 1, 2),
        b("mov_imm32", &[("dst", 7), ("imm", 0x1_0001)]),
        b("mov_imm32", &[("dst", 8), ("imm", 77)]),
        imad(5, 1, 7, 8, true),
        imad(6, 4, 4, 5, false),
        store(0, 1, 6),
        store(1, 1, 7),
        store(2, 1, 5),
        b("stop", &[]),
    ];
    let out = run(&prog, 3).unwrap();
    let r5 = |i: u32| i.wrapping_mul(0x1_0001).wrapping_add(77);
    let r4 = |i: u32| i.wrapping_add(VALUE);
    let want: Vec<u32> = (0..THREADS)
        .map(|i| r4(i).wrapping_mul(r4(i)).wrapping_add(r5(i)))
        .collect();
    assert_eq!(out[0], want);
    assert_eq!(out[1], vec![0x1_0001; THREADS as usize], "a kept source");
    assert_eq!(
        out[2],
        vec![0; THREADS as usize],
        "a released source reads zero"
    );
    // Any other multiply selector is not established.
    let mut odd = imad(5, 1, 7, 8, true);
    odd.set("mulsel", 0xe).unwrap();
    let prog = vec![
        b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa0)]),
        odd,
        b("stop", &[]),
    ];
    assert!(run(&prog, 0).is_err());
}

//! Launcher forms against the byte layouts and golden values GravityLinux publishes for its
//! T8132 launchers: agx_apple9_encoding.h (pointer load, argument word), agx_apple9_launch.c
//! (allocation, target, frame) and test/test-apple9-launch.cpp (entry 0x12340 -> 0x246aa,
//! publication-pair table, tile-mode table, threadgroup words).

use agx16_isa::meaning::*;
use agx16_isa::{decode, decode_program, Instr, Op, Role};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn round_trip(i: &Instr) -> Instr {
    let bytes = i.encode_checked().expect("encodes and decodes to itself");
    let d = decode(&bytes).unwrap();
    assert_eq!(&d, i);
    d
}

#[test]
fn pointer_load_matches_the_published_template() {
    // `67 00 54 dst<<1 base 00 00 00 (57|59) 00 offset 40 26 00`
    let two = pointer_load_instr(18, 2, 0, 2).unwrap();
    assert_eq!(two.encode(), hex("6700542402000000570000402600"));
    let one = pointer_load_instr(34, 2, 8, 1).unwrap();
    assert_eq!(one.encode(), hex("6700544402000000590008402600"));
    for i in [&two, &one] {
        let d = round_trip(i);
        assert_eq!(d.form.op, Op::PointerLoad);
        assert_eq!(
            d.produce().map(|p| p.0),
            Some(2),
            "results pending on slot 2"
        );
    }
    assert_eq!(pointer_load_count(&one), Ok(1));
    assert_eq!(address_base(&one), Ok(AddressBase::GprPair(2)));
    // The same bytes with byte 12 bit 5 are GravityLinux's GPR-addressed device load shape;
    // a native load (`elem_size` 0x44, EXP-M4-54) addresses a uniform pair.
    let native = decode(&hex("6710540300002000410100404400")).unwrap();
    assert_eq!(address_base(&native), Ok(AddressBase::UniformPair(0)));
    let mut indirect = native.encode();
    indirect[4] = 6;
    indirect[12] |= 0x20;
    assert_eq!(
        address_base(&decode(&indirect).unwrap()),
        Ok(AddressBase::GprPair(6))
    );
    assert_eq!(pointer_load_count(&two), Ok(2));
    // r60:r61 as the root pair ran on M4; r62 + 2 pointers leaves the file.
    assert!(pointer_load_instr(8, 60, 0, 2).is_ok());
    assert!(pointer_load_instr(62, 2, 0, 2).is_err());
    assert!(pointer_load_instr(18, 2, 0, 3).is_err());
}

#[test]
fn argument_store_matches_the_published_template() {
    // `(dst&15)<<4|0b, src<<1, 9|(dst>>4)<<6, 4|wait<<6`
    let first = arg_store_instr(0, 18, true).unwrap();
    assert_eq!(first.encode(), hex("0b240944"));
    let last = arg_store_instr(17, 35, false).unwrap();
    assert_eq!(last.encode(), hex("1b464904"));
    let d = round_trip(&first);
    assert_eq!(d.wait().unwrap().slots.slots().collect::<Vec<_>>(), vec![2]);
    assert!(round_trip(&last).wait().unwrap().slots.is_empty());
    assert!(arg_store_instr(64, 18, false).is_err());
    assert!(arg_store_instr(0, 64, false).is_err());
}

#[test]
fn stage_target_golden_entry() {
    // test-apple9-launch.cpp: entry 0x12340 encodes 0x246aa in the 24-bit field at byte 2.
    let t = stage_target_instr(0x12340).unwrap();
    assert_eq!(t.encode(), hex("7701aa46020000028000"));
    assert_eq!(t.field("target"), Some(0x246aa));
    assert_eq!(stage_entry(&round_trip(&t)), Ok(0x12340));
    // Placements at +0x7f8000 executed; odd and overflowing entries are rejected.
    assert!(stage_target_instr(0x7f_8000).is_ok());
    assert!(stage_target_instr(0x12341).is_err());
    assert!(stage_target_instr(0x80_0000).is_err());
    // The required control bits (byte 7 bit 1, byte 8 bit 7) identify the form.
    let mut cleared = t.encode();
    cleared[7] = 0;
    assert!(decode(&cleared).map_or(true, |i| i.form.name != "stage_target"));
}

#[test]
fn frame_publication_pairs_and_extents() {
    // Publication counts -> word at frame byte 3 (test-apple9-launch.cpp pair boundaries).
    let table = [
        (0, 0),
        (1, 0x80),
        (2, 0x80),
        (8, 0x200),
        (9, 0x280),
        (36, 0x900),
        (1022, 0xff80),
    ];
    for (count, word) in table {
        let b = launch_frame_instr(count, 4, 4096).unwrap().encode();
        assert_eq!(u16::from_le_bytes([b[3], b[4]]), word, "P = {count}");
        assert_eq!(u16::from_le_bytes([b[5], b[6]]), 4, "A at +5");
        assert_eq!(u16::from_le_bytes([b[7], b[8]]), 4096, "B at +7");
        assert_eq!(b[9], 0);
    }
    let f = launch_frame_instr(9, 4, 4096).unwrap();
    assert_eq!(f.encode(), hex("f7002a80020400001000"));
    let m = launch_frame(&round_trip(&f)).unwrap();
    assert_eq!((m.publication_words, m.extent_a, m.extent_b), (10, 4, 4096));
    assert!(launch_frame_instr(1023, 0, 0).is_err());
}

#[test]
fn allocation_tile_modes_and_threadgroup_words() {
    // (samples, tile bytes, byte 4 mode, byte 3) from test-apple9-launch.cpp.
    let cases = [
        (1, 8, 0x4b, 0x43),
        (2, 24, 0x4b, 0x46),
        (4, 64, 0x43, 16),
        (1, 128, 0x4b, 0x61),
        (1, 0, 0x4b, 0x41),
        (2, 0, 0x4b, 0x40),
        (4, 0, 0x43, 0),
    ];
    for (samples, bytes, mode, low) in cases {
        let a = StageAllocation::Tile {
            samples,
            units: (bytes as u32).div_ceil(8) as u8,
        };
        let i = stage_allocation_instr(a).unwrap();
        let b = i.encode();
        assert_eq!((b[0], b[1]), (0x77, 0));
        assert_eq!((b[3], b[4]), (low, mode), "{samples}x {bytes} B");
        assert_eq!(b[2], if samples == 4 { 0xaa } else { 0x2a });
        assert_eq!(stage_allocation(&round_trip(&i)).unwrap().0, a);
    }
    for bytes in THREADGROUP_SIZES {
        let a = StageAllocation::Threadgroup { bytes };
        let b = stage_allocation_instr(a).unwrap().encode();
        assert_eq!(u16::from_le_bytes([b[4], b[5]]) as u32, (bytes << 2) | 0x80);
        assert_eq!((b[3], b[6], b[7]), (0x41, 0, 0));
        assert_eq!(stage_allocation(&decode(&b).unwrap()).unwrap().0, a);
    }
    let empty = stage_allocation_instr(StageAllocation::Empty).unwrap();
    assert_eq!(empty.encode(), hex("77002a4100000000"));
    for bad in [
        StageAllocation::Threadgroup { bytes: 384 },
        StageAllocation::Tile {
            samples: 3,
            units: 1,
        },
        StageAllocation::Tile {
            samples: 1,
            units: 17,
        },
    ] {
        assert!(stage_allocation_instr(bad).is_err(), "{bad:?}");
    }
    // Unmeasured combinations decode but have no meaning.
    let mut odd = empty.encode();
    odd[4] = 0x4a;
    assert!(stage_allocation(&decode(&odd).unwrap()).is_err());
}

#[test]
fn a_published_layout_program_decodes_in_order() {
    // Graphics layout per README "Resource ABI": 16 B roots, three 14 B loads, allocation,
    // target with its entry field at byte 68, frame, twelve 4 B transfers, STOP.
    let mut p = Vec::new();
    for (dst, v) in [(2u32, 0x0020_8000u64), (3, 0x100)] {
        let mut m = Instr::new(agx16_isa::form_by_name("mov_imm32").unwrap());
        m.set_gpr(Role::Dst, dst, agx16_isa::Part::Full)
            .unwrap()
            .set("imm", v)
            .unwrap();
        m.encode_into(&mut p);
    }
    for i in [4u8, 2, 0] {
        pointer_load_instr(18 + 2 * i as u32, 2, i, 2)
            .unwrap()
            .encode_into(&mut p);
    }
    assert_eq!(p.len(), 16 + 42);
    stage_allocation_instr(StageAllocation::Tile {
        samples: 1,
        units: 3,
    })
    .unwrap()
    .encode_into(&mut p);
    stage_target_instr(0x12340).unwrap().encode_into(&mut p);
    assert_eq!(&p[68..71], &[0xaa, 0x46, 0x02]);
    launch_frame_instr(9, 0, 0).unwrap().encode_into(&mut p);
    let transfers = p.len();
    for w in 0..12 {
        arg_store_instr(w, 18 + w, w == 0)
            .unwrap()
            .encode_into(&mut p);
    }
    assert_eq!(p.len() - transfers, 48);
    Instr::build("stop", &[]).unwrap().encode_into(&mut p);
    let ops: Vec<Op> = decode_program(&p)
        .unwrap()
        .iter()
        .map(|(_, i)| i.form.op)
        .collect();
    let mut want = vec![Op::MovImm, Op::MovImm];
    want.extend([Op::PointerLoad; 3]);
    want.extend([Op::StageAllocation, Op::StageTarget, Op::LaunchFrame]);
    want.extend([Op::ArgumentStore; 12]);
    want.push(Op::Stop);
    assert_eq!(ops, want);
    // The assembler reads back what the disassembler prints, instruction by instruction.
    for (off, i) in decode_program(&p).unwrap() {
        let text = i.to_string();
        let back = agx16_isa::parse_line(&text, 1).unwrap().unwrap();
        assert_eq!(back.encode(), i.encode(), "{off:#x}: {text}");
    }
}

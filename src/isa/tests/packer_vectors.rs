//! Encodings published as golden vectors by the GravityLinux/mesa Apple9 packer tests
//! (src/asahi/compiler/test/test-apple9.cpp; the packer comments cite the T8132 experiments
//! that validated each layout). Built here from operand values through the table; the bytes
//! must match exactly. This is an independent check of field positions.

use agx16_isa::{form_by_name, Instr, Part, Role, SlotSet};

fn build(form: &str, f: impl FnOnce(&mut Instr)) -> Vec<u8> {
    let mut i = Instr::new(form_by_name(form).unwrap_or_else(|| panic!("no form {form}")));
    f(&mut i);
    i.encode_checked().unwrap_or_else(|e| panic!("{form}: {e}"))
}

#[test]
fn mov_imm_vectors() {
    assert_eq!(
        build("mov_imm", |i| {
            i.set_gpr(Role::Dst, 15, Part::Full)
                .unwrap()
                .set("imm", 0x7f)
                .unwrap();
        }),
        [0xfc, 0x7f]
    );
    for (dst, value, bytes) in [
        (
            0,
            0x12345678u64,
            [0x0c, 0xf8, 0x02, 0x12, 0x18, 0x08, 0xa2, 0x01],
        ),
        (
            18,
            0x3f800000,
            [0x2c, 0x80, 0x42, 0x3e, 0x00, 0x00, 0x00, 0x0c],
        ),
        (
            34,
            0x01020304,
            [0x2c, 0x84, 0x82, 0x00, 0x0c, 0x00, 0x10, 0x08],
        ),
        (
            63,
            0xffffffff,
            [0xfc, 0xff, 0xc2, 0xfe, 0x1e, 0x0c, 0xff, 0x0f],
        ),
    ] {
        let got = build("mov_imm32", |i| {
            i.set_gpr(Role::Dst, dst, Part::Full)
                .unwrap()
                .set("imm", value)
                .unwrap();
        });
        assert_eq!(got, bytes, "mov_imm32 r{dst} {value:#x}");
    }
    // r64 is outside the form's reach
    let mut i = Instr::new(form_by_name("mov_imm32").unwrap());
    assert!(i.set_gpr(Role::Dst, 64, Part::Full).is_err());
}

/// live_after_mask bit 0 keeps source A, bit 1 keeps source B: keeping clears the release bit
/// and sets the source byte's bit 7.
fn keep(i: &mut Instr, mask: u8) {
    i.set("rel_a", u64::from(mask & 1 == 0)).unwrap();
    i.set("rel_b", u64::from(mask & 2 == 0)).unwrap();
    i.set("a_keep", u64::from(mask & 1)).unwrap();
    i.set("b_keep", u64::from(mask >> 1 & 1)).unwrap();
}

#[test]
fn compact_float_add_liveness_and_slot() {
    for (mask, bytes) in [
        (0, [0x49, 0x05, 0x3c, 0x07, 0x00, 0x00]),
        (1, [0x49, 0x85, 0x34, 0x07, 0x00, 0x00]),
        (2, [0x49, 0x05, 0x2c, 0x87, 0x00, 0x00]),
        (3, [0x49, 0x85, 0x24, 0x87, 0x00, 0x00]),
    ] {
        let got = build("fadd", |i| {
            i.set_gpr(Role::Dst, 4, Part::Full).unwrap();
            i.set_gpr(Role::SrcA, 2, Part::Full).unwrap();
            i.set_gpr(Role::SrcB, 3, Part::Full).unwrap();
            i.set("publish", 1).unwrap();
            keep(i, mask);
        });
        assert_eq!(got, bytes, "fadd mask {mask}");
    }
    let got = build("fadd", |i| {
        i.set_gpr(Role::Dst, 4, Part::Full).unwrap();
        i.set_gpr(Role::SrcA, 2, Part::Full).unwrap();
        i.set_gpr(Role::SrcB, 3, Part::Full).unwrap();
        i.set("publish", 1).unwrap();
        keep(i, 3);
        i.set_wait(SlotSet(1 << 5)).unwrap();
    });
    assert_eq!(got, [0x49, 0x85, 0x24, 0x87, 0x00, 0xc0]);
}

#[test]
fn compact_alu_scattered_high_registers() {
    // r95 = r64 + r79 (every scattered register bit)
    let got = build("fadd", |i| {
        i.set_gpr(Role::Dst, 95, Part::Full).unwrap();
        i.set_gpr(Role::SrcA, 64, Part::Full).unwrap();
        i.set_gpr(Role::SrcB, 79, Part::Full).unwrap();
        i.set("rel_a", 1)
            .unwrap()
            .set("rel_b", 1)
            .unwrap()
            .set("publish", 1)
            .unwrap();
    });
    assert_eq!(got, [0xf9, 0x01, 0x7c, 0x1f, 0x00, 0x15]);
    let got = build("minmax", |i| {
        i.set_gpr(Role::Dst, 95, Part::Full).unwrap();
        i.set_gpr(Role::SrcA, 64, Part::Full).unwrap();
        i.set_gpr(Role::SrcB, 79, Part::Full).unwrap();
        i.set("rel_a", 1)
            .unwrap()
            .set("rel_b", 1)
            .unwrap()
            .set("publish", 1)
            .unwrap();
        i.set("sel", 5).unwrap();
    });
    assert_eq!(got, [0xf2, 0x01, 0x7e, 0x1f, 0x05, 0x15]);
}

#[test]
fn minmax_liveness() {
    for (mask, sel, bytes) in [
        (0u8, 5, [0x42, 0x05, 0x3e, 0x07, 0x05, 0x00]),
        (1, 5, [0x42, 0x85, 0x36, 0x07, 0x05, 0x00]),
        (2, 5, [0x42, 0x05, 0x2e, 0x87, 0x05, 0x00]),
        (3, 1, [0x42, 0x85, 0x26, 0x87, 0x01, 0x00]),
    ] {
        let got = build("minmax", |i| {
            i.set_gpr(Role::Dst, 4, Part::Full).unwrap();
            i.set_gpr(Role::SrcA, 2, Part::Full).unwrap();
            i.set_gpr(Role::SrcB, 3, Part::Full).unwrap();
            i.set("sel", sel).unwrap();
            i.set("publish", 1).unwrap();
            keep(i, mask);
        });
        assert_eq!(got, bytes, "minmax mask {mask}");
    }
}

#[test]
fn fma_liveness_and_slot() {
    // r4 = r2 * r3 + r5; live_after_mask bit 2 keeps C (release bit 39, keep bit 47).
    for (mask, wait, bytes) in [
        (0u8, 0, [0x49, 0x05, 0x3e, 0x07, 0x81, 0x0a, 0x02, 0x00]),
        (1, 0, [0x49, 0x85, 0x36, 0x07, 0x81, 0x0a, 0x02, 0x00]),
        (2, 0, [0x49, 0x05, 0x2e, 0x87, 0x81, 0x0a, 0x02, 0x00]),
        (4, 0, [0x49, 0x05, 0x3e, 0x07, 0x01, 0x8a, 0x02, 0x00]),
        (7, 0, [0x49, 0x85, 0x26, 0x87, 0x01, 0x8a, 0x02, 0x00]),
        (0, 6, [0x49, 0x05, 0x3e, 0x07, 0x81, 0x0a, 0x02, 0xc0]),
    ] {
        let got = build("ffma", |i| {
            i.set_gpr(Role::Dst, 4, Part::Full).unwrap();
            i.set_gpr(Role::SrcA, 2, Part::Full).unwrap();
            i.set_gpr(Role::SrcB, 3, Part::Full).unwrap();
            i.set_gpr(Role::SrcC, 5, Part::Full).unwrap();
            i.set("publish", 1).unwrap();
            keep(i, mask & 3);
            i.set("rel_c", u64::from(mask & 4 == 0)).unwrap();
            i.set("c_keep", u64::from(mask >> 2 & 1)).unwrap();
            i.set("b6", 2).unwrap();
            i.set("wait", wait).unwrap();
        });
        assert_eq!(got, bytes, "ffma mask {mask}");
    }
}

#[test]
fn immediate_add_slots() {
    // r2 = r2 + 2.0, for every scoreboard slot 0..6
    for slot in 0..=6u8 {
        let got = build("fadd_imm", |i| {
            i.set_gpr(Role::Dst, 2, Part::Full).unwrap();
            i.set_gpr(Role::SrcA, 2, Part::Full).unwrap();
            i.set("imm", agx16_isa::minifloat::encode(2.0).unwrap())
                .unwrap();
            i.set("flags", 3).unwrap();
            i.set_wait(if slot == 0 {
                SlotSet(0)
            } else {
                SlotSet(1 << (slot - 1))
            })
            .unwrap();
        });
        assert_eq!(
            got,
            [0x29, 0xc1, 0x34, 0x05, 0x80, slot << 5],
            "slot {slot}"
        );
    }
}

#[test]
fn extended_logic_liveness_and_slots() {
    // r4 = r2 ^ r3
    let xor = agx16_isa::meaning::logic_encoding("xor").unwrap();
    let base = |i: &mut Instr| {
        i.set_gpr(Role::Dst, 4, Part::Full).unwrap();
        i.set_gpr(Role::SrcA, 2, Part::Full).unwrap();
        i.set_gpr(Role::SrcB, 3, Part::Full).unwrap();
        i.set("op_base", xor.op_base as u64).unwrap();
        i.set("lut_a_sel", xor.lut_a as u64).unwrap();
        i.set("lut_b", xor.lut_b as u64).unwrap();
    };
    for (mask, b2_21, bytes) in [
        (
            0u8,
            0,
            [0x4b, 0x05, 0x1e, 0x07, 0x02, 0x08, 0x00, 0x00, 0x00, 0x00],
        ),
        (
            1,
            0,
            [0x4b, 0x85, 0x16, 0x07, 0x02, 0x08, 0x00, 0x00, 0x00, 0x00],
        ),
        (
            2,
            1,
            [0x4b, 0x05, 0x2e, 0x87, 0x02, 0x08, 0x00, 0x00, 0x00, 0x00],
        ),
        (
            3,
            1,
            [0x4b, 0x85, 0x26, 0x87, 0x02, 0x08, 0x00, 0x00, 0x00, 0x00],
        ),
    ] {
        let got = build("ilogic", |i| {
            base(i);
            keep(i, mask);
            i.set("b2_21", b2_21).unwrap();
        });
        assert_eq!(got, bytes, "ilogic mask {mask}");
    }
    for slot in 1..=6u8 {
        let mut i = Instr::new(form_by_name("ilogic").unwrap());
        base(&mut i);
        i.set_wait(SlotSet(1 << (slot - 1))).unwrap();
        let b = i.encode();
        let mask = (b[5] >> 5) | ((b[7] >> 5) << 3);
        assert_eq!(mask, 1 << (slot - 1));
    }
}

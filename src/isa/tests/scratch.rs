//! Scratch (spill) store/load against the T8132 packer layouts
//! (GravityLinux/mesa src/asahi/compiler/agx_apple9_ir.c SPILL_STORE / SPILL_LOAD).

use agx16_isa::{decode, Instr, Op, Operand, Part, Role};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn spill_store_word_200_of_r70_on_slot_3() {
    let b = hex("8b0d0f00221104080000");
    let i = decode(&b).unwrap();
    assert_eq!(i.form.op, Op::ScratchStore);
    assert_eq!(i.field("word"), Some(200));
    assert!(matches!(
        i.operand(Role::SrcA).unwrap().value,
        Operand::Gpr { reg: 70, .. }
    ));
    assert_eq!(i.produce().map(|p| p.0), Some(3));
    let mut built = Instr::new(i.form);
    built
        .set("word", 200)
        .unwrap()
        .set_gpr(Role::SrcA, 70, Part::Full)
        .unwrap()
        .set_produce(3)
        .unwrap();
    assert_eq!(built.encode_checked().unwrap(), b);
}

#[test]
fn spill_load_word_300_into_r70_on_slot_4() {
    let b = hex("6cd8016108000010");
    let i = decode(&b).unwrap();
    assert_eq!(i.form.op, Op::ScratchLoad);
    assert_eq!(i.field("word"), Some(300));
    assert!(matches!(
        i.operand(Role::Dst).unwrap().value,
        Operand::Gpr { reg: 70, .. }
    ));
    assert_eq!(i.produce().map(|p| p.0), Some(4));
    let mut built = Instr::new(i.form);
    built
        .set("word", 300)
        .unwrap()
        .set_gpr(Role::Dst, 70, Part::Full)
        .unwrap()
        .set_produce(4)
        .unwrap()
        .set("b1_0", 0)
        .unwrap();
    assert_eq!(built.encode_checked().unwrap(), b);
}

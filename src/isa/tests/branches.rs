//! Branch offsets: in every decoded corpus program each `jump` / `jump_exec_none` target,
//! taken relative to the branch's own address, lands on an instruction boundary inside the
//! program. (EXP-0010 prodloop, run on hardware: the backward jump at 0x6a with offset -44
//! reaches the loop head 0x3e right after the loop push; the exec-none jump at 0x24 with +86
//! reaches the final pop at 0x7a.)

mod common;

use agx16_isa::{Op, Operand, Role};
use std::collections::HashSet;

#[test]
fn jump_targets_are_instruction_boundaries() {
    let (mut jumps, mut on_boundary, mut on_boundary_after) = (0, 0, 0);
    let mut bad = Vec::new();
    for p in agx16_isa::check::program_files(&common::oracles().join("isa/corpus")).unwrap() {
        let bytes = agx16_isa::check::read_program(&p).unwrap();
        let Ok(prog) = agx16_isa::decode_program(&bytes) else {
            continue;
        };
        let starts: HashSet<i64> = prog.iter().map(|(o, _)| *o as i64).collect();
        for (off, i) in &prog {
            if !matches!(i.form.op, Op::Jump | Op::JumpExecNone) {
                continue;
            }
            let Some(Operand::ImmInt(d)) = i.operand(Role::SrcA).map(|o| o.value) else {
                panic!("{}: jump without offset", p.display())
            };
            jumps += 1;
            let t = *off as i64 + d;
            if starts.contains(&t) || t == bytes.len() as i64 {
                on_boundary += 1;
            } else {
                bad.push(format!("{} @{off:#x}: target {t:#x}", p.display()));
            }
            if starts.contains(&(t + i.form.len as i64)) {
                on_boundary_after += 1;
            }
        }
    }
    println!("jumps: {jumps}; self-relative targets on boundaries: {on_boundary}; end-relative: {on_boundary_after}");
    assert!(jumps >= 10, "too few jumps in the corpus ({jumps})");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `if_push` directly followed by the EXP-M4-46 break-unwind (measured on M4) is two
/// instructions; only the `0f 05 54 1a 8f ..` pattern of the call canary is a call.
#[test]
fn if_push_then_break_is_not_a_call() {
    let code = [0x0f, 0x05, 0x54, 0x01, 0x8f, 0x05, 0x54, 0x03, 0x00, 0x01];
    let a = agx16_isa::decode_at(&code, 0).unwrap();
    assert_eq!((a.form.name, a.form.len), ("if_push", 4));
    let b = agx16_isa::decode_at(&code, 4).unwrap();
    assert_eq!((b.form.name, b.form.len), ("break_unwind", 6));
    let call = [
        0x0f, 0x05, 0x54, 0x1a, 0x8f, 0x10, 0x54, 0x54, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00,
    ];
    assert_eq!(agx16_isa::decode_at(&call, 0).unwrap().form.name, "call");
}

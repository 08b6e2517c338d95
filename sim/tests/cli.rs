//! The `agx16-sim` tool's contract: `check` ends with `N passed, M failed`, and
//! `AGX16_SIM_TRACE` prints pc, disassembly, exec mask and written values.

use agx16_sim::oracle::oracles_dir;
use std::process::Command;

fn tool() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agx16-sim"))
}

#[test]
fn check_prints_failures_then_the_closing_line() {
    let dir = oracles_dir().join("sim");
    let out = tool().arg("check").arg(&dir).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap();
    let (p, f) = last.split_once(" passed, ").expect(last);
    let (p, f): (usize, usize) = (
        p.parse().unwrap(),
        f.trim_end_matches(" failed").parse().unwrap(),
    );
    assert_eq!(
        p + f,
        std::fs::read_dir(&dir).unwrap().count() - 1,
        "every oracle but INDEX.json"
    );
    assert_eq!(text.lines().filter(|l| l.starts_with("FAIL ")).count(), f);
    assert_eq!(out.status.success(), f == 0);
}

#[test]
fn trace_shows_pc_disassembly_mask_and_values() {
    let file = oracles_dir().join("sim/EXP-0003__add.json");
    let out = tool()
        .arg("check")
        .arg(&file)
        .env("AGX16_SIM_TRACE", "group=0,lane=0-1")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .ends_with("1 passed, 0 failed\n"));
    // fadd of a[0]=1.0 and b[0]=10.0 -> 11.0 (0x41300000) in lane 0
    let fadd = err.lines().find(|l| l.contains("fadd")).expect(&err);
    assert!(
        fadd.contains("pc 0x0020") && fadd.contains("exec 000000ff"),
        "{fadd}"
    );
    assert!(
        fadd.contains("0:0x41300000") && fadd.contains("1:0x41b00000"),
        "{fadd}"
    );
    assert_eq!(
        err.lines().count(),
        6,
        "six instructions, one SIMD-group: {err}"
    );
}

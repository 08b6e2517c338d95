//! The command-line tools: `agx16-disasm --check` prints the summary line, and `agx16-asm`
//! turns `agx16-disasm` output back into the original bytes.

mod common;

use std::process::Command;

#[test]
fn check_prints_the_summary_line() {
    let dir = common::oracles().join("isa/corpus");
    let out = Command::new(env!("CARGO_BIN_EXE_agx16-disasm"))
        .arg("--check")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().last().unwrap();
    let want = agx16_isa::check::check_dir(&dir).unwrap().line();
    assert_eq!(line, want);
    assert!(
        line.starts_with("programs: ") && line.contains(" decoded / 294 total; instructions: ")
    );
}

#[test]
fn asm_of_disasm_is_identity() {
    let dir = common::oracles().join("isa/corpus/EXP-M4-35-native-load-xor");
    let tmp = std::env::temp_dir().join(format!("agx16-isa-tools-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for p in agx16_isa::check::program_files(&dir).unwrap() {
        let listing = Command::new(env!("CARGO_BIN_EXE_agx16-disasm"))
            .arg(&p)
            .output()
            .unwrap();
        assert!(listing.status.success(), "{}", p.display());
        let asm_file = tmp.join("prog.s");
        std::fs::write(&asm_file, &listing.stdout).unwrap();
        let bin = tmp.join("prog.bin");
        let st = Command::new(env!("CARGO_BIN_EXE_agx16-asm"))
            .arg(&asm_file)
            .arg("-o")
            .arg(&bin)
            .status()
            .unwrap();
        assert!(st.success());
        assert_eq!(
            std::fs::read(&bin).unwrap(),
            agx16_isa::check::read_program(&p).unwrap(),
            "{}",
            p.display()
        );
    }
    std::fs::remove_dir_all(&tmp).ok();
}

#[test]
fn disasm_reports_hostile_input_without_panicking() {
    let tmp = std::env::temp_dir().join(format!("agx16-isa-bad-{}.hex", std::process::id()));
    std::fs::write(&tmp, "ffff").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_agx16-disasm"))
        .arg(&tmp)
        .output()
        .unwrap();
    std::fs::remove_file(&tmp).ok();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no instruction form matches"));
}

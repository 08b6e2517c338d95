//! The agx16-decode binary: file handling and exit codes.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agx16-decode"))
}

fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("agx16-decode-{}-{name}", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn raw_cdm_stream() {
    // Mesa-style direct launch, barrier, terminate.
    let words = [
        0x0088_0000u32,
        0x0100_0040,
        0x4000,
        0x4000_0001,
        64,
        1,
        1,
        32,
        1,
        1,
        0x6000_0160,
        0x4000_0000,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let p = temp("cdm.bin", &bytes);
    let out = bin()
        .args(["--cdm", "0x500000000"])
        .arg(&p)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("CDM @ 0x500000028 (4 bytes)") && text.contains("CdmTerminate"),
        "{text}"
    );
    std::fs::remove_file(p).unwrap();
}

#[test]
fn bad_inputs_fail_cleanly() {
    let p = temp("junk.bin", b"not a capture at all");
    let out = bin().arg(&p).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad magic"));
    let out = bin().args(["--cdm", "0x1000"]).arg(&p).output().unwrap();
    assert!(!out.status.success(), "junk is not a CDM stream");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ERROR: the stream ends without a terminate"),
        "{text}"
    );
    assert!(
        text.contains("UNKNOWN BITS"),
        "junk sets undocumented bits: {text}"
    );
    std::fs::remove_file(p).unwrap();
    let out = bin().output().unwrap();
    assert_eq!(out.status.code(), Some(2), "usage");
}

#[test]
fn launcher_file_in_hex_and_binary() {
    use agx16_cmdstream::launch::{build_launcher, LaunchCommon, LaunchStage};
    let common = LaunchCommon {
        resource_table: 0x100_0020_8000,
        entry_offset: 0x12340,
        publications: 9,
        extent_a: 4,
        extent_b: 4096,
    };
    let stage = LaunchStage::Compute {
        resources: 2,
        threadgroup_bytes: 128,
    };
    let bytes = build_launcher(stage, &common).unwrap().bytes;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    for (name, content) in [("l.hex", format!("{hex}\n").into_bytes()), ("l.bin", bytes)] {
        let p = temp(name, &content);
        let out = bin().arg("--launcher").arg(&p).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert!(
            text.contains("stage_target")
                && text.contains("= roots @ 0x10000208000 (3 pointers), Threadgroup { bytes: 128 }, entry +0x12340"),
            "{text}"
        );
        std::fs::remove_file(p).unwrap();
    }
    // A STOP alone is no launcher: reported, non-zero exit.
    let p = temp("stop.bin", &[0x0e, 0, 0, 0]);
    let out = bin().arg("--launcher").arg(&p).output().unwrap();
    assert!(!out.status.success());
    std::fs::remove_file(p).unwrap();
}

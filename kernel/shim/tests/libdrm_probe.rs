//! Runs tests/c/libdrm_probe.c with the shim preloaded: real libdrm
//! enumerates the fake device (the independent oracle for the sysfs and
//! /dev surface) and the program checks UAPI round trips.

use std::path::PathBuf;
use std::process::Command;

/// The cdylib cargo built for this test run: next to the test binary in
/// target/<profile>/deps, or uplifted to target/<profile>.
pub fn shim_path() -> PathBuf {
    let exe = std::env::current_exe().expect("test exe path");
    let deps = exe.parent().expect("deps dir");
    let here = deps.join("libagx16_drm_shim.so");
    if here.exists() {
        return here;
    }
    deps.parent()
        .expect("profile dir")
        .join("libagx16_drm_shim.so")
}

#[test]
fn libdrm_enumerates_and_uses_the_node() {
    let shim = shim_path();
    assert!(shim.exists(), "{} not built", shim.display());
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let bin = out_dir.join("libdrm_probe");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c/libdrm_probe.c");
    let cc = Command::new("cc")
        .args(["-O1", "-Wall", "-o"])
        .arg(&bin)
        .arg(&src)
        .args(["-I/usr/include/libdrm", "-ldrm"])
        .status()
        .expect("run cc (needs a C compiler and libdrm-dev)");
    assert!(
        cc.success(),
        "compiling the probe failed: is libdrm-dev installed?"
    );
    let out = Command::new(&bin)
        .env("LD_PRELOAD", &shim)
        .output()
        .expect("run probe");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "probe failed:\n{stdout}");
    assert!(stdout.contains("ALL OK"));
}

#[test]
fn without_the_shim_no_m4_node_exists() {
    // The same probe must not find our device when the shim is absent.
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let bin = out_dir.join("libdrm_probe_plain");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c/libdrm_probe.c");
    let cc = Command::new("cc")
        .args(["-O1", "-o"])
        .arg(&bin)
        .arg(&src)
        .args(["-I/usr/include/libdrm", "-ldrm"])
        .status()
        .expect("run cc");
    assert!(cc.success());
    let out = Command::new(&bin).output().expect("run probe");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(!stdout.contains("compatible apple,agx-t8132") || stdout.contains("FAIL"));
}

#[test]
fn random_ioctls_through_the_preloaded_shim() {
    let shim = shim_path();
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let bin = out_dir.join("shim_fuzz");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c/shim_fuzz.c");
    let cc = Command::new("cc")
        .args(["-O1", "-Wall", "-o"])
        .arg(&bin)
        .arg(&src)
        .args(["-I/usr/include/libdrm", "-ldrm"])
        .status()
        .expect("run cc");
    assert!(cc.success());
    let out = Command::new(&bin)
        .arg("100000")
        .env("LD_PRELOAD", &shim)
        .output()
        .expect("run fuzz");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "shim fuzz failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("device OK"));
}

/// 100,000 live GEM objects under `ulimit -n 1024` (bo_many.c sets the
/// limit itself): all mapped and distinct, descriptors constant, creation
/// time per 10,000 objects flat. Prints the figures.
#[test]
fn a_hundred_thousand_objects_under_a_low_fd_limit() {
    let shim = shim_path();
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let bin = out_dir.join("bo_many");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c/bo_many.c");
    let cc = Command::new("cc")
        .args(["-O1", "-Wall", "-o"])
        .arg(&bin)
        .arg(&src)
        .args(["-I/usr/include/libdrm", "-ldrm"])
        .status()
        .expect("run cc");
    assert!(cc.success());
    let out = Command::new(&bin)
        .arg("100000")
        .env("LD_PRELOAD", &shim)
        .output()
        .expect("run bo_many");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success() && stdout.contains("ALL OK"),
        "bo_many failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

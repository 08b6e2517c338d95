//! Legal programs near resource and time limits never lose work (#17): a 100,000-iteration
//! loop on one pixel (the model's watchdog measures time, not a 2^20-instruction budget)
//! matches the CPU reference, and 100,000 live GL buffers work under RLIMIT_NOFILE = 1024
//! (the shim backs GEM objects with shared arenas, not a descriptor each).

use agx16_tests::{field, run, Stack};

const LIMITS: &str = env!("CARGO_BIN_EXE_agx16-limits");

/// The fragment shader's loop on the CPU (wrapping u32 arithmetic as GLSL uint).
fn hash_loop(n: u32) -> [u8; 4] {
    let mut x: u32 = 12345;
    for _ in 0..n {
        x = x.wrapping_mul(1664525).wrapping_add(1013904223);
        x ^= x >> 13;
    }
    x.to_le_bytes()
}

fn limits(args: &[&str]) -> (bool, String, String) {
    let stack = Stack::from_env().unwrap_or_else(|e| panic!("{e}"));
    let mut cmd = stack.command(LIMITS, true);
    cmd.args(args);
    run(cmd)
}

#[test]
fn a_hundred_thousand_iterations_on_one_pixel_match_the_cpu() {
    let (ok, out, err) = limits(&["loop", "100000"]);
    assert!(ok, "agx16-limits loop failed:\n{out}\n{err}");
    let renderer = field(&out, "GL_RENDERER").unwrap_or_default();
    assert!(
        renderer.starts_with("Apple M4 (G16G) agx16"),
        "{renderer:?}"
    );
    assert!(!err.contains("job failed"), "{err}");
    let want: String = hash_loop(100_000)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(field(&out, "pixel"), Some(want.as_str()), "{out}\n{err}");
    println!(
        "100,000 iterations: {} s",
        field(&out, "seconds").unwrap_or("?")
    );
}

#[test]
fn a_hundred_thousand_live_buffers_under_a_low_fd_limit() {
    let (ok, out, err) = limits(&["buffers", "100000"]);
    assert!(ok, "agx16-limits buffers failed:\n{out}\n{err}");
    println!("{out}");
    let renderer = field(&out, "GL_RENDERER").unwrap_or_default();
    assert!(
        renderer.starts_with("Apple M4 (G16G) agx16"),
        "{renderer:?}"
    );
    assert_eq!(field(&out, "buffers"), Some("100000"), "{out}\n{err}");
    assert_eq!(field(&out, "sample_mismatches"), Some("0"), "{out}");
    assert_eq!(field(&out, "file_opens"), Some("true"), "{out}");
}

//! A long-lived process and a misbehaving one never lose work silently (#17), on agx16 and on
//! softpipe from the same Mesa build.
//!
//! - Programs created and deleted far beyond the entry arena's size keep drawing: the driver
//!   reuses the entry blocks and body memory of deleted programs (each frame matches
//!   softpipe's).

use agx16_tests::{field, run, Stack};

const ROBUSTTEST: &str = env!("CARGO_BIN_EXE_agx16-robusttest");

fn robusttest(softpipe: bool, args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let stack = Stack::from_env().unwrap_or_else(|e| panic!("{e}"));
    let mut cmd = stack.command(ROBUSTTEST, !softpipe);
    if softpipe {
        cmd.env("LIBGL_ALWAYS_SOFTWARE", "1");
    }
    cmd.args(args).envs(env.iter().copied());
    let r = run(cmd);
    let renderer = field(&r.1, "GL_RENDERER").unwrap_or_default().to_string();
    if softpipe {
        assert_eq!(renderer, "softpipe", "{}\n{}", r.1, r.2);
    } else {
        assert!(
            renderer.starts_with("Apple M4 (G16G) agx16"),
            "{renderer:?}\n{}",
            r.2
        );
    }
    r
}

/// The `<key> <i>: <hex>` lines of the output as byte vectors, in order.
fn frames(out: &str, key: &str) -> Vec<Vec<u8>> {
    out.lines()
        .filter_map(|l| l.strip_prefix(key)?.split_once(": "))
        .map(|(_, hex)| {
            (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect()
        })
        .collect()
}

/// Largest per-channel difference between two frames.
fn worst(a: &[u8], b: &[u8]) -> i32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (*x as i32 - *y as i32).abs())
        .max()
        .unwrap_or(0)
}

/// Entry arena of 48 blocks (0x340 directory + 48 * 0xc0): each program needs two entries, so
/// 150 programs are six times what it holds at once.
const SMALL_ARENA: &str = "10048";
const PROGRAMS: usize = 150;

#[test]
fn programs_far_beyond_the_entry_arena_keep_drawing() {
    let n = PROGRAMS.to_string();
    let (ok, out, err) = robusttest(
        false,
        &["programs", &n],
        &[("AGX16_ENTRY_ARENA_BYTES", SMALL_ARENA)],
    );
    assert!(ok, "agx16-robusttest programs failed:\n{err}");
    assert!(!err.contains("entry arena is full"), "{err}");
    let agx = frames(&out, "frame ");
    let (ok, out, err) = robusttest(true, &["programs", &n], &[]);
    assert!(ok, "softpipe run failed:\n{err}");
    let soft = frames(&out, "frame ");
    assert_eq!(agx.len(), PROGRAMS);
    assert_eq!(soft.len(), PROGRAMS);
    for (i, (a, s)) in agx.iter().zip(&soft).enumerate() {
        // Every frame is drawn (the clear is transparent black, the draw's alpha is not zero
        // past the first program) and its colours are the program's own.
        assert!(
            worst(a, s) <= 1,
            "program {i}: differs from softpipe by {}",
            worst(a, s)
        );
    }
}

/// GL_GUILTY_CONTEXT_RESET (KHR_robustness).
const GUILTY_CONTEXT_RESET: &str = "0x8253";
/// GL_CONTEXT_LOST.
const CONTEXT_LOST: &str = "0x507";

/// A short kernel job watchdog, so a render that never ends fails quickly.
const WATCHDOG: [(&str, &str); 1] = [("AGX16_JOB_TIMEOUT_MS", "300")];

#[test]
fn a_render_that_never_ends_is_a_guilty_reset_of_a_robust_context() {
    let (ok, out, err) = robusttest(false, &["reset", "robust"], &WATCHDOG);
    assert!(ok, "agx16-robusttest reset robust failed:\n{out}\n{err}");
    assert_eq!(
        field(&out, "reset_status"),
        Some(GUILTY_CONTEXT_RESET),
        "{out}\n{err}"
    );
    // LOSE_CONTEXT_ON_RESET: the context is lost from then on.
    assert_eq!(field(&out, "error_after"), Some(CONTEXT_LOST), "{out}");
    // The application heard why through KHR_debug (the first message; Mesa's own
    // GL_CONTEXT_LOST error for the glClear follows).
    let msg = field(&out, "debug").unwrap_or_default();
    assert!(msg.contains("timed out"), "{msg}");
}

#[test]
fn a_context_without_reset_notification_keeps_drawing_after_a_failed_render() {
    let (ok, out, err) = robusttest(false, &["reset", "plain", "hang"], &WATCHDOG);
    assert!(
        ok,
        "agx16-robusttest reset plain hang failed:\n{out}\n{err}"
    );
    // No reset notification was asked for: GL says NO_ERROR, KHR_debug still tells.
    assert_eq!(field(&out, "reset_status"), Some("0x0"), "{out}");
    assert_eq!(field(&out, "debug_errors"), Some("1"), "{out}");
    let agx = frames(&out, "frame ");
    let (ok, out, err) = robusttest(true, &["reset", "plain"], &[]);
    assert!(ok, "softpipe run failed:\n{out}\n{err}");
    let soft = frames(&out, "frame ");
    assert_eq!((agx.len(), soft.len()), (1, 1), "{out}");
    assert!(
        worst(&agx[0], &soft[0]) <= 1,
        "the frame after the failed render differs from softpipe by {}",
        worst(&agx[0], &soft[0])
    );
    // The frame is not the clear colour alone.
    assert!(agx[0].chunks(4).any(|p| p[0] > 100));
}

//! A long-lived process and a misbehaving one never lose work silently (#17), on agx16 and on
//! softpipe from the same Mesa build.
//!
//! - Programs created and deleted far beyond the entry arena's size keep drawing: the driver
//!   reuses the entry blocks and body memory of deleted programs (each frame matches
//!   softpipe's).
//! - A render that never ends fails by the job watchdog: a guilty reset of a robust context
//!   (then lost), a KHR_debug message in every case, and a context without reset
//!   notification draws the next frame as softpipe does.
//! - Vertex and index fetches out of range read zero or values of their own buffer and never
//!   fail the job.

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
        field(&out, "robustness"),
        Some("GL_KHR_robustness GL_EXT_robustness EGL_EXT_create_context_robustness"),
        "{out}"
    );
    assert_eq!(field(&out, "robust_access"), Some("true"), "{out}");
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

/// The clear colour of the fetch cases (0.1) and the bytes their colour buffer's values give
/// (0.2, 0.4, 0.6, 0.8, and zero).
const CLEAR_BYTE: u8 = 0x1a;
const BUFFER_BYTES: [u8; 5] = [0x00, 0x33, 0x66, 0x99, 0xcc];

/// Pixel (x, y) of a 16x16 frame.
fn px(f: &[u8], x: usize, y: usize) -> &[u8] {
    &f[(y * 16 + x) * 4..][..4]
}

fn drawn(p: &[u8]) -> bool {
    p != [CLEAR_BYTE; 4]
}

/// Out-of-range vertex, index and uniform block fetches (GLES robust buffer access: zero or values from
/// within the buffer) never fail the job nor read another buffer; in-range draws of the same
/// pass are kept. softpipe's frames of the same calls are the reference where the result is
/// defined; where it is not, every component must be a value of the colour buffer or zero
/// (another buffer's data, the positions, would give 0xff).
#[test]
fn out_of_range_vertex_index_and_uniform_fetches_read_zero_or_their_own_buffer() {
    let (ok, out, err) = robusttest(false, &["fetch"], &[]);
    assert!(ok, "agx16-robusttest fetch failed:\n{out}\n{err}");
    assert!(!err.contains("job failed"), "{err}");
    assert_eq!(field(&out, "debug_errors"), Some("0"), "{out}\n{err}");
    let agx = frames(&out, "frame ");
    let (ok, sout, err) = robusttest(true, &["fetch"], &[]);
    assert!(ok, "softpipe run failed:\n{err}");
    let soft = frames(&sout, "frame ");
    assert_eq!((agx.len(), soft.len()), (5, 5), "{out}\n{sout}");
    let allowed = |p: &[u8]| !drawn(p) || p.iter().all(|b| BUFFER_BYTES.contains(b));
    let close = |a: &[u8], b: &[u8]| worst(a, b) <= 1;
    for y in 0..16 {
        for x in 0..16 {
            let at = format!("pixel {x},{y}");
            // 0: the left triangle's colours are in range; the right one's are past the end.
            let (a, s) = (px(&agx[0], x, y), px(&soft[0], x, y));
            if x < 8 {
                assert!(close(a, s), "case 0 {at}: {a:?} vs softpipe {s:?}");
            }
            assert_eq!(drawn(a), drawn(s), "case 0 {at}: coverage");
            assert!(allowed(a), "case 0 {at}: {a:?}");
            // 1: the attribute starts past its buffer: same coverage as case 0 (softpipe
            // skips this draw), values allowed.
            let a = px(&agx[1], x, y);
            assert_eq!(drawn(a), drawn(s), "case 1 {at}: coverage");
            assert!(allowed(a), "case 1 {at}: {a:?}");
            // 2: the left draw is in range; the right one's indices are not.
            let (a, s) = (px(&agx[2], x, y), px(&soft[2], x, y));
            if x < 8 {
                assert!(close(a, s), "case 2 {at}: {a:?} vs softpipe {s:?}");
            } else {
                assert!(allowed(a), "case 2 {at}: {a:?}");
            }
            // 3: indices past the index buffer's end read zero: degenerate triangles.
            let (a, s) = (px(&agx[3], x, y), px(&soft[3], x, y));
            assert!(close(a, s), "case 3 {at}: {a:?} vs softpipe {s:?}");
            // 4: a uniform block element in range (left), far past the block (right).
            let (a, s) = (px(&agx[4], x, y), px(&soft[4], x, y));
            if x < 8 {
                assert!(close(a, s), "case 4 {at}: {a:?} vs softpipe {s:?}");
            }
            assert_eq!(drawn(a), drawn(s), "case 4 {at}: coverage");
            assert!(allowed(a), "case 4 {at}: {a:?}");
        }
    }
    // The in-range draws did draw.
    assert!(drawn(px(&agx[0], 0, 0)) && drawn(px(&agx[2], 0, 0)) && drawn(px(&agx[3], 0, 0)));
}

/// A fragment shader keeping 32 and then 128 vec4s live at once (4 and 5 times the register
/// file: hundreds of values spill to scratch) links and draws the pixel softpipe draws. The
/// chain `fract(x * k + c)` amplifies any difference in a single rounding, so the pixel
/// agrees only when every value survives its spill and reload.
#[test]
fn shaders_far_beyond_the_register_file_spill_and_draw_as_softpipe() {
    for n in ["32", "128"] {
        let (ok, out, err) = robusttest(false, &["pressure", n], &[]);
        assert!(ok, "agx16-robusttest pressure {n} failed:\n{err}");
        assert_eq!(field(&out, "link"), Some("ok"), "{n} vec4s:\n{out}\n{err}");
        let (ok, soft, err) = robusttest(true, &["pressure", n], &[]);
        assert!(ok, "softpipe run failed:\n{err}");
        let px = |o: &str| frames(&o.replace("pixel: ", "pixel 0: "), "pixel ");
        let (a, s) = (px(&out), px(&soft));
        assert_eq!((a.len(), s.len()), (1, 1), "{out}\n{soft}");
        assert!(
            worst(&a[0], &s[0]) <= 1,
            "{n} vec4s: pixel {:02x?} vs softpipe {:02x?}",
            a[0],
            s[0]
        );
    }
}

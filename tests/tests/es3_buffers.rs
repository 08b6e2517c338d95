//! End to end: OpenGL ES 3.0 uniform blocks and transform feedback through agx16 on the model.
//!
//! Oracles: the vertex shader's formulas on the CPU (agx16-xfbtest) and
//! softpipe on the same Mesa build (the same program, and the image-suite scenes).

use agx16_tests::{field, run, Stack};

const XFBTEST: &str = env!("CARGO_BIN_EXE_agx16-xfbtest");
const SUITE: &str = env!("CARGO_BIN_EXE_agx16-imagesuite");

fn stack() -> Stack {
    Stack::from_env().unwrap_or_else(|e| panic!("{e}"))
}

/// `program args` on agx16 (with the BO report) or softpipe.
fn run_es3(program: &str, args: &[&str], softpipe: bool) -> (bool, String, String) {
    let mut cmd = stack().command(program, true);
    cmd.args(args);
    if softpipe {
        cmd.env("LIBGL_ALWAYS_SOFTWARE", "1");
    } else {
        cmd.env("AGX16_DEBUG", "bo");
    }
    let (ok, out, err) = run(cmd);
    let renderer = field(&out, "GL_RENDERER").unwrap_or_default().to_string();
    if softpipe {
        assert_eq!(renderer, "softpipe", "{out}\n{err}");
    } else {
        assert!(
            renderer.starts_with("Apple M4 (G16G) agx16"),
            "renderer {renderer:?}\n{out}\n{err}"
        );
        let report = err
            .lines()
            .find(|l| l.starts_with("agx16 bo: at screen destroy"))
            .unwrap_or_else(|| panic!("no BO report:\n{err}"));
        assert!(report.contains(" 0 live,"), "{report}");
    }
    (ok, out, err)
}

#[test]
fn transform_feedback_captures_what_the_cpu_computes() {
    for softpipe in [true, false] {
        let (ok, out, err) = run_es3(XFBTEST, &[], softpipe);
        let passed = out.lines().filter(|l| l.starts_with("ok ")).count();
        assert!(
            ok && passed == 9 && !out.contains("fail "),
            "agx16-xfbtest (softpipe: {softpipe}):\n{out}\n{err}"
        );
        if !softpipe {
            // No draw of the program was dropped or refused.
            assert!(!err.contains("not executed"), "{err}");
        }
    }
}

/// The `ok NAME HEX...` image of each scene.
fn scene_images(out: &str) -> Vec<(String, Vec<u8>)> {
    out.lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some("ok")).then(|| {
                let name = w.next().unwrap().to_string();
                let hex: String = w.collect();
                let bytes = (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                    .collect();
                (name, bytes)
            })
        })
        .collect()
}

#[test]
fn uniform_block_scenes_match_softpipe() {
    let scenes = [
        "uniform_block",
        "uniform_blocks_indexed",
        "uniform_block_array_struct",
    ];
    let (ok_a, out_a, err_a) = run_es3(SUITE, &scenes, false);
    let (ok_s, out_s, err_s) = run_es3(SUITE, &scenes, true);
    assert!(ok_a && ok_s, "{out_a}\n{err_a}\n{out_s}\n{err_s}");
    let (a, s) = (scene_images(&out_a), scene_images(&out_s));
    assert_eq!(a.len(), scenes.len(), "{out_a}\n{err_a}");
    assert_eq!(s.len(), scenes.len(), "{out_s}\n{err_s}");
    for ((name, ia), (_, is)) in a.iter().zip(&s) {
        assert_eq!(ia.len(), is.len(), "{name}");
        // One 8-bit step: the scenes' tolerance in the image suite (float to unorm8 rounding).
        let bad = ia
            .chunks(4)
            .zip(is.chunks(4))
            .position(|(x, y)| x.iter().zip(y).any(|(p, q)| p.abs_diff(*q) > 1));
        assert_eq!(bad, None, "{name}: first differing pixel");
        // The blocks' colours are drawn, not only the clear colour.
        let first = &is[..4];
        assert!(is.chunks(4).any(|p| p != first), "{name}: a single colour");
    }
}

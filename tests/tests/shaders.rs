//! GLSL ES 3.00 programs the compiler used to refuse (issue #14), drawn through the whole stack
//! by agx16-shadertest and compared with softpipe on the same Mesa build and, where the result
//! is defined, with a CPU reference.

use agx16_tests::{field, run, Stack};

const SHADERTEST: &str = env!("CARGO_BIN_EXE_agx16-shadertest");
const SIZE: usize = 16;

fn pixels(out: &str) -> Vec<[u8; 4]> {
    let hex = field(out, "pixels").unwrap_or_else(|| panic!("no pixels line:\n{out}"));
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    assert_eq!(bytes.len(), SIZE * SIZE * 4);
    bytes.chunks(4).map(|c| c.try_into().unwrap()).collect()
}

/// Draws `args` on agx16 (`softpipe` false) or softpipe; the pixels, after checking the renderer.
fn draw(softpipe: bool, args: &[&str]) -> Vec<[u8; 4]> {
    let stack = Stack::from_env().unwrap_or_else(|e| panic!("{e}"));
    let mut cmd = stack.command(SHADERTEST, !softpipe);
    if softpipe {
        cmd.env("LIBGL_ALWAYS_SOFTWARE", "1");
    }
    cmd.args(args);
    let (ok, out, err) = run(cmd);
    assert!(ok, "agx16-shadertest {args:?} failed:\n{out}\n{err}");
    let renderer = field(&out, "GL_RENDERER").unwrap_or_default();
    if softpipe {
        assert_eq!(renderer, "softpipe");
    } else {
        assert!(
            renderer.starts_with("Apple M4 (G16G) agx16"),
            "{renderer:?}"
        );
        assert!(!err.contains("job failed"), "{err}");
    }
    pixels(&out)
}

/// The local-array case computed on the CPU (see agx16-shadertest): bottom row first.
fn local_array_reference(n: usize, scale: f32) -> Vec<[u8; 4]> {
    let mut a: Vec<f32> = (0..100).map(|i| i as f32 * scale).collect();
    for i in 0..n {
        a[(i * 7) % 100] += a[(i * 13 + 5) % 100];
    }
    let byte = |v: f32| ((v as i32) % 256) as u8;
    (0..SIZE * SIZE)
        .map(|p| {
            let k = p % 100; // x + 16 y with p = 16 y + x
            [byte(a[k]), byte(a[(k + 37) % 100]), k as u8, 255]
        })
        .collect()
}

/// `float a[100]` indexed by loop counters and the pixel position (more loop-carried elements
/// than the 96 registers: the compiler keeps the rest in scratch as memory phis) draws what the
/// CPU computes and what softpipe draws.
#[test]
fn a_large_dynamically_indexed_local_array_matches_softpipe_and_the_cpu() {
    for (n, scale) in [("50", "1"), ("13", "2")] {
        let args = ["--case", "local-array", "--n", n, "--scale", scale];
        let want = local_array_reference(n.parse().unwrap(), scale.parse().unwrap());
        let agx = draw(false, &args);
        let soft = draw(true, &args);
        assert_eq!(
            soft, want,
            "softpipe differs from the CPU reference (n {n})"
        );
        assert_eq!(agx, want, "agx16 differs from the CPU reference (n {n})");
    }
}

/// asinh/acosh of huge arguments: Mesa's built-in formulas overflow in x*x from 2^64 on, on
/// agx16 as on softpipe (the GLSL corpus reference admits that infinity, see
/// src/compiler/tests/corpus/cases.rs `inverse_hyperbolic`); below it both are finite and equal.
#[test]
fn asinh_acosh_of_huge_arguments_match_softpipe() {
    for (big, inf) in [("1e19", 0), ("2e19", 255), ("1e30", 255)] {
        let args = ["--case", "hyperbolic", "--big", big];
        let agx = draw(false, &args);
        let soft = draw(true, &args);
        assert_eq!(agx, soft, "x = {big}");
        assert!(
            agx.iter().all(|p| p[0] == inf && p[2] == inf),
            "x = {big}: {:?}",
            agx[0]
        );
    }
}

//! Errors the application sees (issue #17), with agx16-linkerrtest on agx16 and on softpipe
//! from the same Mesa build: a shader the agx16 backend refuses fails glLinkProgram with the
//! compiler's reason in the info log (softpipe links the same program).

use agx16_tests::{field, run, Stack};

const LINKERRTEST: &str = env!("CARGO_BIN_EXE_agx16-linkerrtest");

fn linkerrtest(softpipe: bool) -> (String, String) {
    let stack = Stack::from_env().unwrap_or_else(|e| panic!("{e}"));
    let mut cmd = stack.command(LINKERRTEST, !softpipe);
    if softpipe {
        cmd.env("LIBGL_ALWAYS_SOFTWARE", "1");
    }
    let (ok, out, err) = run(cmd);
    assert!(ok, "agx16-linkerrtest failed:\n{out}\n{err}");
    (out, err)
}

#[test]
fn shaders_the_backend_refuses_fail_the_link_with_the_reason() {
    let (out, err) = linkerrtest(false);
    let renderer = field(&out, "GL_RENDERER").unwrap_or_default();
    assert!(renderer.contains("agx16"), "{renderer:?}");

    assert_eq!(field(&out, "link"), Some("failed"), "{out}\n{err}");
    let log = field(&out, "link log").unwrap_or_default();
    assert!(
        log.contains("agx16 cannot compile the fragment shader")
            && log.contains("dynamically indexed local array larger than 256 elements"),
        "{log}"
    );
    assert_eq!(field(&out, "link 32"), Some("ok"), "{out}\n{err}");
}

/// The expected pixel from the program's uniforms, on the CPU: round(255 * (base + add)).
fn uniform_program_pixel() -> String {
    let (base, add) = ([0.25f32, 0.5, 0.0, 0.5], [0.5f32, -0.25, 0.75, 0.5]);
    (0..4)
        .map(|c| format!("{:02x}", (255.0 * (base[c] + add[c])).round() as u8))
        .collect()
}

#[test]
fn a_program_reloaded_from_its_binary_draws_like_the_original() {
    let (out, err) = linkerrtest(false);
    assert!(field(&out, "GL_RENDERER")
        .unwrap_or_default()
        .contains("agx16"));
    let formats: u32 = field(&out, "binary formats")
        .and_then(|f| f.parse().ok())
        .unwrap_or(0);
    assert!(
        formats >= 1,
        "agx16 offers no program binary format:\n{out}\n{err}"
    );
    assert_eq!(
        field(&out, "binary draw"),
        Some(uniform_program_pixel().as_str()),
        "{out}\n{err}"
    );
    assert_eq!(
        field(&out, "corrupt binary link"),
        Some("failed"),
        "{out}\n{err}"
    );
}

#[test]
fn softpipe_links_the_same_program() {
    let (out, err) = linkerrtest(true);
    assert_eq!(field(&out, "GL_RENDERER"), Some("softpipe"));
    assert_eq!(field(&out, "link"), Some("ok"), "{out}\n{err}");
    assert_eq!(field(&out, "link 32"), Some("ok"), "{out}\n{err}");
}

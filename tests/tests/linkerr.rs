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
            && log.contains("dynamically indexed local array larger than 64 elements"),
        "{log}"
    );
    assert_eq!(field(&out, "link 32"), Some("ok"), "{out}\n{err}");
}

#[test]
fn softpipe_links_the_same_program() {
    let (out, err) = linkerrtest(true);
    assert_eq!(field(&out, "GL_RENDERER"), Some("softpipe"));
    assert_eq!(field(&out, "link"), Some("ok"), "{out}\n{err}");
    assert_eq!(field(&out, "link 32"), Some("ok"), "{out}\n{err}");
}

//! End to end: OpenGL ES 3.0 texture targets and functions (2D arrays, 3D textures, textureLod
//! on them, textureSize, textureProj/Offset/texelFetchOffset, textureGrad, generated cube mipmaps, shadow samplers) through agx16 on the
//! model, compared with softpipe on the same Mesa build.
//!
//! agx16 still exposes ES 2.0 until every ES 3.0 feature exists, so agx16's run asks Mesa for
//! 3.0 (`MESA_GLES_VERSION_OVERRIDE=3.0`, marked ES3-OVERRIDE); the image suite skips these
//! scenes until the lead flips the version. Tolerance per scene is the suite's (`--list`).

use agx16_tests::{field, run, Stack};

const SUITE: &str = env!("CARGO_BIN_EXE_agx16-imagesuite");

const SCENES: &[&str] = &[
    "texture_2d_array",
    "texture_3d",
    "texture_3d_linear",
    "texture_lod_targets",
    "texture_size",
    "texture_proj_offset",
    "texture_grad",
    "texture_cube_mipmap",
    "texture_shadow",
];

fn stack() -> Stack {
    Stack::from_env().unwrap_or_else(|e| panic!("{e}"))
}

fn run_suite(args: &[&str], softpipe: bool) -> (bool, String, String) {
    let mut cmd = stack().command(SUITE, true);
    cmd.args(args);
    if softpipe {
        cmd.env("LIBGL_ALWAYS_SOFTWARE", "1");
    } else {
        // ES3-OVERRIDE
        cmd.env("MESA_GLES_VERSION_OVERRIDE", "3.0");
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
    }
    (ok, out, err)
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

/// Each scene's tolerance from `--list` (`scene NAME es=V tol=T slack=S`).
fn tolerance(name: &str) -> u8 {
    let (ok, out, err) = run(stack().command(SUITE, false).arg("--list").to_owned_cmd());
    assert!(ok, "{err}");
    out.lines()
        .find_map(|l| {
            let mut w = l.split_whitespace().skip(1);
            (w.next() == Some(name)).then(|| {
                w.find_map(|f| f.strip_prefix("tol="))
                    .and_then(|t| t.parse().ok())
                    .unwrap()
            })
        })
        .unwrap_or_else(|| panic!("no scene {name}"))
}

trait ToOwnedCmd {
    fn to_owned_cmd(&mut self) -> std::process::Command;
}

impl ToOwnedCmd for std::process::Command {
    fn to_owned_cmd(&mut self) -> std::process::Command {
        std::mem::replace(self, std::process::Command::new(self.get_program()))
    }
}

#[test]
fn texture_target_and_function_scenes_match_softpipe() {
    let (ok_a, out_a, err_a) = run_suite(SCENES, false);
    let (ok_s, out_s, err_s) = run_suite(SCENES, true);
    assert!(ok_a && ok_s, "{out_a}\n{err_a}\n{out_s}\n{err_s}");
    let (a, s) = (scene_images(&out_a), scene_images(&out_s));
    assert_eq!(a.len(), SCENES.len(), "{out_a}\n{err_a}");
    assert_eq!(s.len(), SCENES.len(), "{out_s}\n{err_s}");
    for ((name, ia), (_, is)) in a.iter().zip(&s) {
        assert_eq!(ia.len(), is.len(), "{name}");
        let tol = tolerance(name);
        let bad = ia
            .chunks(4)
            .zip(is.chunks(4))
            .position(|(x, y)| x.iter().zip(y).any(|(p, q)| p.abs_diff(*q) > tol));
        assert_eq!(bad, None, "{name}: first pixel beyond {tol} steps");
        // Textured quads are drawn, not only the clear colour.
        let first = &is[..4];
        assert!(is.chunks(4).any(|p| p != first), "{name}: a single colour");
    }
}

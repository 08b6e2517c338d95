//! The image test suite: every scene of agx16-imagesuite rendered through agx16 on the model and
//! through softpipe on the same Mesa build, compared pixel by pixel.
//!
//! Comparison (tolerances and their reasons are in the scene program's module comment): every
//! channel of every pixel within the scene's tolerance (0 for exactly representable results, one
//! 8-bit step where a float is converted: sim/GFX.md "Known gaps", the M4 scene checkers' and the
//! model's own tolerance), except `slack` pixels for line scenes (GLES 2.0 §3.4.1 lets a line's
//! fragments differ from the diamond-exit rule by one per segment). A coverage difference is a
//! pixel beyond the tolerance, so coverage is exact everywhere else.
//!
//! tests/image-suite-expectations.txt lists the scenes agx16 does not render yet with the reason
//! (a substring of what the run reports) and the scenes skipped on agx16. Any other outcome fails: an expected pass that fails, an expected failure that
//! passes or fails for another reason, a skip that runs. Softpipe must render every scene (it
//! exposes ES 3.x), and its images must not be a single colour unless the scene is a full clear,
//! so that a broken scene cannot pass by drawing nothing on both. On a failure both images and a
//! diff are written to target/tmp/image-suite/.

use agx16_tests::{field, run, Stack};
use std::collections::BTreeMap;
use std::path::PathBuf;

const SUITE: &str = env!("CARGO_BIN_EXE_agx16-imagesuite");
const EXPECTATIONS: &str = include_str!("../image-suite-expectations.txt");
const SIZE: usize = 64;

struct SceneInfo {
    name: String,
    tol: u8,
    slack: usize,
}

/// What one run reported for one scene, with the driver's stderr while it ran.
#[derive(Clone, Debug)]
enum Outcome {
    Ok(Vec<Vec<u8>>),
    Skip(String),
    Error(String),
    /// The process died during the scene (signal or abort): a driver crash.
    Crash(String),
}

fn stack() -> Stack {
    Stack::from_env().unwrap_or_else(|e| panic!("{e}"))
}

fn scenes() -> Vec<SceneInfo> {
    let (ok, out, err) = run(stack().command(SUITE, false).arg("--list").to_owned_cmd());
    assert!(ok, "agx16-imagesuite --list failed: {err}");
    out.lines()
        .map(|l| {
            let mut w = l.split_whitespace();
            assert_eq!(w.next(), Some("scene"), "{l}");
            let name = w.next().expect("name").to_string();
            let mut num = |key: &str| -> usize {
                let kv = w
                    .find(|x| x.starts_with(key))
                    .unwrap_or_else(|| panic!("{l}"));
                kv[key.len() + 1..].parse().unwrap()
            };
            let _es = num("es");
            let tol = num("tol") as u8;
            let slack = num("slack");
            SceneInfo { name, tol, slack }
        })
        .collect()
}

/// `Command` is not `Clone`; this keeps the builder calls chainable on a reference.
trait OwnedCmd {
    fn to_owned_cmd(&mut self) -> std::process::Command;
}

impl OwnedCmd for std::process::Command {
    fn to_owned_cmd(&mut self) -> std::process::Command {
        std::mem::replace(self, std::process::Command::new("true"))
    }
}

fn decode(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// Runs the named scenes in as few processes as possible: after a crash the rest continue in a
/// new process. Returns the renderer and per scene its outcome and the stderr written while it ran.
fn render_all(
    names: &[String],
    softpipe: bool,
) -> (String, BTreeMap<String, (Outcome, String)>, Vec<String>) {
    let mut results = BTreeMap::new();
    let mut renderer = String::new();
    let mut tails = Vec::new();
    let mut todo: Vec<String> = names.to_vec();
    while !todo.is_empty() {
        let mut cmd = stack().command(SUITE, true);
        cmd.args(&todo);
        if softpipe {
            cmd.env("LIBGL_ALWAYS_SOFTWARE", "1");
        } else {
            cmd.env("AGX16_DEBUG", "bo");
        }
        let (ok, out, err) = run(cmd);
        if let Some(r) = field(&out, "GL_RENDERER") {
            renderer = r.to_string();
        }
        // stderr per scene, split at the program's markers.
        let mut logs: BTreeMap<String, String> = BTreeMap::new();
        let mut current: Option<String> = None;
        let mut tail = String::new();
        for line in err.lines() {
            if let Some(n) = line.strip_prefix("imagesuite: begin ") {
                current = Some(n.to_string());
            } else if line == "imagesuite: end" {
                current = None;
            } else if let Some(n) = &current {
                let log = logs.entry(n.clone()).or_default();
                log.push_str(line);
                log.push('\n');
            } else {
                tail.push_str(line);
                tail.push('\n');
            }
        }
        let mut last_begun = None;
        for line in out.lines() {
            if let Some(n) = line.strip_prefix("begin ") {
                last_begun = Some(n.to_string());
                continue;
            }
            let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
            let outcome = match kind {
                "ok" => {
                    let mut w = rest.split(' ');
                    let name = w.next().unwrap().to_string();
                    (name, Outcome::Ok(w.map(decode).collect()))
                }
                "skip" | "error" => {
                    let (name, reason) = rest.split_once(": ").unwrap_or((rest, ""));
                    let o = if kind == "skip" {
                        Outcome::Skip(reason.to_string())
                    } else {
                        Outcome::Error(reason.to_string())
                    };
                    (name.to_string(), o)
                }
                _ => continue,
            };
            let log = logs.get(&outcome.0).cloned().unwrap_or_default();
            results.insert(outcome.0, (outcome.1, log));
        }
        let crashed = last_begun.filter(|n| !results.contains_key(n));
        match crashed {
            Some(n) => {
                let log = logs.get(&n).cloned().unwrap_or_default();
                let what = format!(
                    "process died (exit ok: {ok}) during the scene; last stderr: {}",
                    log.lines().last().unwrap_or("(none)")
                );
                results.insert(n.clone(), (Outcome::Crash(what), log));
                let at = todo.iter().position(|t| t == &n).unwrap();
                todo.drain(..=at);
            }
            None => {
                assert!(
                    ok,
                    "agx16-imagesuite failed outside a scene (softpipe: {softpipe}):\n{err}"
                );
                for n in &todo {
                    assert!(results.contains_key(n), "no result for {n}:\n{out}");
                }
                tails.push(tail);
                todo.clear();
            }
        }
    }
    (renderer, results, tails)
}

/// Pixels differing beyond `tol` in some channel, and the first of them.
/// (pixel index, agx16 pixel, softpipe pixel).
type Diff = (usize, [u8; 4], [u8; 4]);

fn compare(agx: &[u8], soft: &[u8], tol: u8) -> (usize, Option<Diff>) {
    let mut bad = 0;
    let mut first = None;
    for (i, (a, s)) in agx.chunks(4).zip(soft.chunks(4)).enumerate() {
        if a.iter().zip(s).any(|(x, y)| x.abs_diff(*y) > tol) {
            bad += 1;
            first.get_or_insert((i, a.try_into().unwrap(), s.try_into().unwrap()));
        }
    }
    (bad, first)
}

/// A minimal PNG (RGBA8, stored deflate blocks) so failures can be looked at.
fn png(path: &PathBuf, rgba: &[u8]) {
    fn crc(data: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in data {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
    fn chunk(out: &mut Vec<u8>, kind: &[u8], data: &[u8]) {
        out.extend((data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend(data);
        out.extend(&body);
        out.extend(crc(&body).to_be_bytes());
    }
    // glReadPixels rows run bottom-up; PNG rows top-down.
    let mut raw = Vec::new();
    for row in (0..SIZE).rev() {
        raw.push(0u8);
        raw.extend(&rgba[row * SIZE * 4..(row + 1) * SIZE * 4]);
    }
    let mut z = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65535).collect();
    for (i, b) in blocks.iter().enumerate() {
        z.push((i + 1 == blocks.len()) as u8);
        z.extend((b.len() as u16).to_le_bytes());
        z.extend((!(b.len() as u16)).to_le_bytes());
        z.extend(*b);
    }
    let (mut a, mut bsum) = (1u32, 0u32);
    for &x in &raw {
        a = (a + x as u32) % 65521;
        bsum = (bsum + a) % 65521;
    }
    z.extend(((bsum << 16) | a).to_be_bytes());
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend((SIZE as u32).to_be_bytes());
    ihdr.extend((SIZE as u32).to_be_bytes());
    ihdr.extend([8, 6, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    std::fs::write(path, out).unwrap();
}

fn write_images(name: &str, agx: &[Vec<u8>], soft: &[Vec<u8>], tol: u8) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("image-suite");
    std::fs::create_dir_all(&dir).unwrap();
    for (t, (a, s)) in agx.iter().zip(soft).enumerate() {
        png(&dir.join(format!("{name}-{t}-agx16.png")), a);
        png(&dir.join(format!("{name}-{t}-softpipe.png")), s);
        // Diff: red where beyond the tolerance, grey where within it, black where equal.
        let diff: Vec<u8> = a
            .chunks(4)
            .zip(s.chunks(4))
            .flat_map(|(p, q)| {
                let d = p.iter().zip(q).map(|(x, y)| x.abs_diff(*y)).max().unwrap();
                match d {
                    0 => [0, 0, 0, 255],
                    d if d <= tol => [96, 96, 96, 255],
                    _ => [255, 0, 0, 255],
                }
            })
            .collect();
        png(&dir.join(format!("{name}-{t}-diff.png")), &diff);
    }
    dir.display().to_string()
}

/// `fail NAME: REASON` / `skip NAME: REASON` lines; `#` comments.
fn expectations() -> BTreeMap<String, (String, String)> {
    EXPECTATIONS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (kind, rest) = l
                .split_once(' ')
                .unwrap_or_else(|| panic!("bad line {l:?}"));
            assert!(kind == "fail" || kind == "skip", "bad line {l:?}");
            let (name, reason) = rest
                .split_once(": ")
                .unwrap_or_else(|| panic!("bad line {l:?}"));
            (name.to_string(), (kind.to_string(), reason.to_string()))
        })
        .collect()
}

/// The driver's own messages for a scene (refusals, internal errors), one line.
fn driver_lines(log: &str) -> String {
    log.lines()
        .filter(|l| l.starts_with("agx16: ") || l.contains("panicked"))
        .collect::<Vec<_>>()
        .join(" | ")
}

#[test]
fn every_scene_renders_like_softpipe_or_fails_as_expected() {
    let scenes = scenes();
    assert!(scenes.len() >= 30, "only {} scenes", scenes.len());
    let expected = expectations();
    for name in expected.keys() {
        assert!(
            scenes.iter().any(|s| &s.name == name),
            "tests/image-suite-expectations.txt names an unknown scene {name}"
        );
    }
    let names: Vec<String> = scenes.iter().map(|s| s.name.clone()).collect();
    // The model is the slow part: agx16 runs as two processes (alternate scenes) next to softpipe,
    // so the suite uses both cores of the build machine.
    let halves: [Vec<String>; 2] =
        [0, 1].map(|h| names.iter().skip(h).step_by(2).cloned().collect());
    let (soft, agx_runs) = std::thread::scope(|sc| {
        let soft = sc.spawn(|| render_all(&names, true));
        let agx: Vec<_> = halves
            .iter()
            .map(|half| sc.spawn(move || render_all(half, false)))
            .collect();
        let agx: Vec<_> = agx.into_iter().map(|t| t.join().unwrap()).collect();
        (soft.join().unwrap(), agx)
    });
    let (soft_renderer, soft, _) = soft;
    assert_eq!(soft_renderer, "softpipe");
    let mut agx = BTreeMap::new();
    let mut tails = Vec::new();
    let mut agx_renderer = String::new();
    for (renderer, results, t) in agx_runs {
        agx_renderer = renderer;
        agx.extend(results);
        tails.extend(t);
    }
    assert!(
        agx_renderer.starts_with("Apple M4 (G16G) agx16"),
        "renderer {agx_renderer:?}"
    );
    // Every BO given back at screen destruction of each completed run.
    for tail in &tails {
        let report = tail
            .lines()
            .find(|l| l.starts_with("agx16 bo: at screen destroy"))
            .unwrap_or_else(|| panic!("no BO report:\n{tail}"));
        assert!(report.contains(" 0 live,"), "{report}");
    }

    let mut problems = Vec::new();
    let mut summary = Vec::new();
    for sc in &scenes {
        let (s_out, s_log) = &soft[&sc.name];
        let Outcome::Ok(s_img) = s_out else {
            problems.push(format!(
                "{}: softpipe did not render it: {s_out:?}\n{s_log}",
                sc.name
            ));
            continue;
        };
        let first = &s_img[0][..4];
        let full_clear = sc.name.starts_with("clear_color")
            || sc.name.starts_with("clear_rounding")
            || sc.name == "pbuffer_clear";
        if !full_clear {
            let varied = s_img.iter().any(|img| img.chunks(4).any(|p| p != first));
            if !varied {
                problems.push(format!("{}: softpipe drew a single colour", sc.name));
            }
        }
        let (a_out, a_log) = &agx[&sc.name];
        let drv = driver_lines(a_log);
        // (status, reason) of the agx16 run.
        let (status, reason) = match a_out {
            Outcome::Ok(a_img) => {
                let mut bad = Vec::new();
                for (t, (a, s)) in a_img.iter().zip(s_img).enumerate() {
                    let (n, at) = compare(a, s, sc.tol);
                    if n > sc.slack {
                        let (i, pa, ps) = at.unwrap();
                        bad.push(format!(
                            "target {t}: {n} pixels beyond {} step(s) (slack {}), first at {},{}: agx16 {pa:?} softpipe {ps:?}",
                            sc.tol,
                            sc.slack,
                            i % SIZE,
                            i / SIZE
                        ));
                    }
                }
                if a_img.len() != s_img.len() {
                    bad.push(format!("{} targets vs {}", a_img.len(), s_img.len()));
                }
                if bad.is_empty() {
                    if a_log.contains("internal error") {
                        ("fail", format!("internal error: {drv}"))
                    } else {
                        ("pass", String::new())
                    }
                } else {
                    let dir = write_images(&sc.name, a_img, s_img, sc.tol);
                    let why = if drv.is_empty() {
                        bad.join("; ")
                    } else {
                        drv.clone()
                    };
                    (
                        "fail",
                        format!("{why} [mismatch: {}; images in {dir}]", bad.join("; ")),
                    )
                }
            }
            Outcome::Skip(r) => ("skip", r.clone()),
            Outcome::Error(r) => ("fail", format!("{r} {drv}")),
            Outcome::Crash(r) => ("fail", format!("crash: {r} {drv}")),
        };
        summary.push(format!("{:<24} {status:<4} {reason}", sc.name));
        match (expected.get(&sc.name), status) {
            (None, "pass") => {}
            (None, _) => problems.push(format!("{}: expected to pass, {status}: {reason}", sc.name)),
            (Some((kind, _)), "pass") => problems.push(format!(
                "{}: listed as `{kind}` in tests/image-suite-expectations.txt but now passes; remove the line",
                sc.name
            )),
            (Some((kind, want)), st) if kind == st && reason.contains(want.as_str()) => {}
            (Some((kind, want)), st) => problems.push(format!(
                "{}: expected `{kind}: {want}`, got `{st}: {reason}`",
                sc.name
            )),
        }
    }
    eprintln!("image suite on {agx_renderer}:\n{}", summary.join("\n"));
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

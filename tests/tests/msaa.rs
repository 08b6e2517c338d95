//! Multisampling end to end: `agx16-msaatest` renders an edge-heavy scene into 2x and 4x
//! renderbuffers on agx16 and resolves it with glBlitFramebuffer; every pixel of the resolved
//! image is compared with the CPU reference of `agx16_tests::msaa_scene` (coverage at the
//! standard sample positions, mean of the samples): within one 8-bit step (the resolve's float
//! mean and re-encoding), and the scene has many partly covered pixels, so a single-sample
//! render, a resolve of sample 0 or wrong sample positions fail. softpipe has no multisampling
//! on this Mesa build, so it cannot be the oracle here.

use agx16_tests::msaa_scene::{
    reference, reference_blended, reference_blended_a2c, reference_flipped, SCISSOR, SIZE,
};
use agx16_tests::{field, run, Stack};

const MSAA: &str = env!("CARGO_BIN_EXE_agx16-msaatest");

/// Renders the scene at `samples` with agx16-msaatest's options `opts` and compares the
/// resolve with `want` within `tol` 8-bit steps.
fn resolved(samples: u32) {
    check(samples, &[], reference(samples), 1);
}

fn check(samples: u32, opts: &[&str], (want, partial): (Vec<[u8; 4]>, usize), tol: i32) {
    let stack = Stack::from_env().unwrap_or_else(|e| panic!("{e}"));
    let mut cmd = stack.command(MSAA, true);
    cmd.arg(samples.to_string());
    cmd.args(opts);
    let (ok, out, err) = run(cmd);
    assert!(ok, "agx16-msaatest {samples} failed:\n{out}\n{err}");
    let renderer = field(&out, "GL_RENDERER").unwrap_or_default();
    assert!(
        renderer.starts_with("Apple M4 (G16G) agx16"),
        "{renderer:?}"
    );
    let max: u32 = field(&out, "GL_MAX_SAMPLES").unwrap().parse().unwrap();
    assert!(max >= 4, "GL_MAX_SAMPLES {max}");
    assert_eq!(
        field(&out, "GL_SAMPLES"),
        Some(samples.to_string().as_str())
    );
    let hex = field(&out, "pixels").expect("pixels");
    let got: Vec<u8> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    assert!(
        partial > 150,
        "{samples}x: only {partial} partly covered pixels"
    );
    let size = agx16_tests::msaa_scene::SIZE as usize;
    let mut worst = 0;
    let mut bad = Vec::new();
    for (i, w) in want.iter().enumerate() {
        let g = &got[4 * i..4 * i + 4];
        let d = (0..4)
            .map(|k| (g[k] as i32 - w[k] as i32).abs())
            .max()
            .unwrap();
        worst = worst.max(d);
        if d > tol && bad.len() < 10 {
            bad.push((i % size, i / size, g.to_vec(), *w));
        }
    }
    println!("{samples}x: {partial} partly covered pixels, worst difference {worst}");
    assert!(worst <= tol, "{samples}x: differences {bad:?}");
}

/// Blending on a multisampled target reads and writes each sample's own colour: the
/// reference blends per sample and resolves. Tolerance 2: each draw's float blend is rounded to
/// unorm8 (agx16 in f32, the reference in f64: a tie may round either way once in a pixel's
/// history) and the resolve rounds once more. The test first checks that blending changes
/// most of the image (so dropped or unblended draws fail) and that hundreds of pixels are
/// partly covered (where one destination for all samples gives other colours).
fn blended(samples: u32) {
    let (want, partial) = reference_blended(samples);
    let (plain, _) = reference(samples);
    let differ = want
        .iter()
        .zip(&plain)
        .filter(|(a, b)| (0..4).any(|k| (a[k] as i32 - b[k] as i32).abs() > 8))
        .count();
    assert!(differ > 1000, "blending changes only {differ} pixels");
    check(samples, &["blend"], (want, partial), 2);
}

#[test]
fn two_samples_blend_per_sample() {
    blended(2);
}

#[test]
fn four_samples_blend_per_sample() {
    blended(4);
}

#[test]
fn two_samples_resolve_to_the_reference() {
    resolved(2);
}

#[test]
fn four_samples_resolve_to_the_reference() {
    resolved(4);
}

/// The resolve into the window-system framebuffer (an EGL pbuffer): Mesa keeps it upside down,
/// so the blit reaches the driver with a flipped source box; read back through GL, the image
/// must still be the reference (a resolve that ignores the flip, or refuses it, fails).
#[test]
fn four_samples_resolve_into_the_window_surface() {
    check(4, &["window"], reference(4), 1);
}

/// A resolve with the scissor test on writes the scissor rectangle only (GL ES 3.0 §4.3.3: the
/// scissor test applies to blits); the rest keeps the destination's clear (0).
#[test]
fn two_samples_resolve_within_the_scissor() {
    let (mut want, partial) = reference(2);
    let [x0, y0, w, h] = SCISSOR.map(|v| v as usize);
    for (i, p) in want.iter_mut().enumerate() {
        let (x, y) = (i % SIZE as usize, i / SIZE as usize);
        if !(x0..x0 + w).contains(&x) || !(y0..y0 + h).contains(&y) {
            *p = [0; 4];
        }
    }
    check(2, &["scissor"], (want, partial), 1);
}

/// RGBA32F at 4x (64-byte sample groups, reloaded through a 16-byte view of twice the size)
/// with glFinish after each triangle, so every render after the first reloads all samples:
/// the float resolve, read back as floats, is the reference within one 8-bit step.
#[test]
fn four_samples_of_rgba32f_reload_and_resolve() {
    check(4, &["rgba32f", "finish"], reference(4), 1);
}

/// RGBA32F at 2x and RGBA16F at 4x (32-byte sample groups, reloaded through an 8-byte view of
/// twice the size: two texels per RGBA32F sample, one per RGBA16F sample), every render after
/// the first reloading all samples: the float resolve is the reference within one 8-bit step.
#[test]
fn thirty_two_byte_sample_groups_reload_and_resolve() {
    check(2, &["rgba32f", "finish"], reference(2), 1);
    check(4, &["rgba16f", "finish"], reference(4), 1);
}

/// The same reload path for RGBA8 at 2x (a 8-byte sample group fetched as one texel).
#[test]
fn two_samples_reload_between_renders() {
    check(2, &["finish"], reference(2), 1);
}

/// Alpha to coverage together with blending on a multisampled target: coverage comes from the
/// fragment's alpha (153/255 keeps 2 of 4 samples), the kept samples blend; the blend's own
/// alpha would keep another count (a first draw over alpha 1 blends to 0.76: 3 samples).
#[test]
fn four_samples_alpha_to_coverage_with_blending() {
    check(4, &["blend", "a2c"], reference_blended_a2c(4), 2);
}

/// A 4-sample EGL pbuffer drawn into directly (a multisampled window-system framebuffer, as a
/// 4-sample EGL config gives dEQP's `multisample.default_framebuffer` cases): glReadPixels maps
/// its colour buffer, and the map hands back each pixel's resolved value (GL ES 3.0 §4.3.1), so
/// the read must equal the reference of the upside-down stored image. A map that refuses fails
/// the read (GL_OUT_OF_MEMORY), one that returns sample 0 misses the partly covered pixels.
#[test]
fn four_samples_read_back_from_a_multisampled_window_surface() {
    check(4, &["surface"], reference_flipped(4), 1);
}

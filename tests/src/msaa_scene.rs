//! The multisample resolve scene of `agx16-msaatest` and its CPU reference.
//!
//! The scene: a 64x64 RGBA8 framebuffer of `samples` samples cleared to [`CLEAR`], then
//! [`TRIANGLES`] drawn in order with flat colours (no depth, no blending), resolved with
//! glBlitFramebuffer into a single-sampled RGBA8 image. Vertices are window positions in
//! 1/256 pixel (exact in the NDC the program passes, so the viewport transform and the
//! 1/256 snap reproduce them), with thin slivers and shallow edges so many pixels are partly
//! covered.
//!
//! The reference, from the rules alone (independent of agx16's model and driver): each sample
//! of pixel (x, y) sits at (x + sx/16, y + sy/16) for the standard positions (the packed
//! words 0x44cc and 0xeaa26e26: x in the low nibble, y in the high, sample 0 in the low byte;
//! the D3D/Vulkan patterns; GravityLinux/mesa agx_compile.h, agx-re EXP-0126 measured on M4);
//! a sample takes the colour of the last triangle covering it (edge functions in exact
//! integers; a sample exactly on an edge belongs to a top or left edge, the model's documented
//! tie rule); the resolve is the mean of the samples' unorm8 values, re-encoded to unorm8
//! (GravityLinux/mesa agx_blit.c: a 1/samples weight for unorm formats). Window y counts
//! framebuffer rows (glReadPixels row 0 is row 0).

/// The blended variant (`agx16-msaatest SAMPLES blend`): every triangle drawn with this
/// alpha (unorm8) and glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA), so each sample
/// blends over its own earlier colour (GL ES 3.0 §4.1.8: blending per sample).
pub const BLEND_ALPHA: u8 = 153;

/// The scissor rectangle (x, y, width, height) of `agx16-msaatest SAMPLES scissor`.
pub const SCISSOR: [i32; 4] = [9, 14, 33, 27];

/// Framebuffer edge in pixels.
pub const SIZE: u32 = 64;

/// The clear colour (unorm8).
pub const CLEAR: [u8; 4] = [20, 30, 90, 255];

/// Triangles: three window positions in 1/256 pixel and an RGBA8 colour.
pub const TRIANGLES: &[([[i64; 2]; 3], [u8; 4])] = &[
    // A large triangle with shallow and steep edges.
    (
        [
            [3 * 256 + 37, 5 * 256 + 91],
            [60 * 256 + 13, 11 * 256 + 170],
            [21 * 256 + 201, 58 * 256 + 7],
        ],
        [230, 40, 30, 255],
    ),
    // A thin sliver across it (a few samples per pixel).
    (
        [
            [256 + 120, 40 * 256 + 3],
            [62 * 256 + 77, 33 * 256 + 150],
            [62 * 256 + 77, 34 * 256 + 60],
        ],
        [40, 220, 60, 255],
    ),
    // A near-horizontal and a near-vertical sliver.
    (
        [
            [8 * 256 + 9, 20 * 256 + 128],
            [56 * 256 + 201, 22 * 256 + 17],
            [8 * 256 + 9, 21 * 256 + 70],
        ],
        [250, 250, 40, 255],
    ),
    (
        [
            [44 * 256 + 100, 2 * 256 + 55],
            [46 * 256 + 3, 61 * 256 + 230],
            [45 * 256 + 11, 2 * 256 + 55],
        ],
        [60, 200, 240, 128],
    ),
    // A fan of three around a shared vertex (shared edges: each sample drawn once).
    (
        [
            [32 * 256 + 77, 48 * 256 + 133],
            [50 * 256 + 5, 44 * 256 + 201],
            [41 * 256 + 190, 61 * 256 + 9],
        ],
        [200, 100, 220, 255],
    ),
    (
        [
            [32 * 256 + 77, 48 * 256 + 133],
            [41 * 256 + 190, 61 * 256 + 9],
            [24 * 256 + 33, 57 * 256 + 250],
        ],
        [120, 60, 10, 255],
    ),
    (
        [
            [32 * 256 + 77, 48 * 256 + 133],
            [24 * 256 + 33, 57 * 256 + 250],
            [50 * 256 + 5, 44 * 256 + 201],
        ],
        [255, 255, 255, 255],
    ),
];

/// Sample offsets in 1/16 pixel (x, y), sample 0 first.
pub fn positions(samples: u32) -> Vec<(i64, i64)> {
    let word: u64 = match samples {
        1 => 0x88,
        2 => 0x44cc,
        4 => 0xeaa2_6e26,
        n => panic!("{n} samples"),
    };
    (0..samples)
        .map(|s| {
            let b = (word >> (8 * s)) & 0xff;
            ((b & 0xf) as i64, (b >> 4) as i64)
        })
        .collect()
}

fn covers(t: &[[i64; 2]; 3], p: [i64; 2]) -> bool {
    let area =
        (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
    if area == 0 {
        return false;
    }
    let sg = area.signum();
    (0..3).all(|i| {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        let e = sg * ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]));
        let (dx, dy) = (sg * (b[0] - a[0]), sg * (b[1] - a[1]));
        e > 0 || (e == 0 && ((dy == 0 && dx > 0) || dy < 0))
    })
}

/// The resolved image (row-major, row 0 first) and the number of pixels whose samples differ.
pub fn reference(samples: u32) -> (Vec<[u8; 4]>, usize) {
    render(samples, false, samples, false)
}

/// [`reference`] of a framebuffer stored upside down (Mesa's window-system framebuffers): the
/// rasteriser's sample positions and fill rule apply to the stored rows, so the scene is
/// rendered flipped (y -> SIZE - y) and its rows read back in GL order.
pub fn reference_flipped(samples: u32) -> (Vec<[u8; 4]>, usize) {
    let (img, partial) = render(samples, false, samples, true);
    let rows: Vec<&[[u8; 4]]> = img.chunks(SIZE as usize).rev().collect();
    (rows.concat(), partial)
}

/// One sample's colour after `glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA)` of `src`
/// (alpha [`BLEND_ALPHA`]) over `dst`: the unorm8 values as floats, the result rounded to
/// unorm8 (each draw stores to the 8-bit target).
pub fn blend(src: [u8; 4], dst: [u8; 4]) -> [u8; 4] {
    let a = BLEND_ALPHA as f64 / 255.0;
    let src = [src[0], src[1], src[2], BLEND_ALPHA];
    std::array::from_fn(|k| {
        let v = src[k] as f64 / 255.0 * a + dst[k] as f64 / 255.0 * (1.0 - a);
        (v * 255.0).round() as u8
    })
}

/// [`reference`] of the blended variant: each sample blends every triangle covering it in
/// draw order over its own colour.
pub fn reference_blended(samples: u32) -> (Vec<[u8; 4]>, usize) {
    render(samples, true, samples, false)
}

/// [`reference_blended`] with GL_SAMPLE_ALPHA_TO_COVERAGE on: alpha [`BLEND_ALPHA`] keeps
/// floor(alpha x samples) samples, the lowest-numbered ones (the mask (1 << n) - 1: the M4
/// driver's rule, Mesa asahi agx_nir_lower_alpha.c), and only those blend; the coverage
/// uses the fragment's alpha, not the blended one.
pub fn reference_blended_a2c(samples: u32) -> (Vec<[u8; 4]>, usize) {
    let keep = (BLEND_ALPHA as f32 / 255.0 * samples as f32) as u32;
    render(samples, true, keep, false)
}

/// Samples `keep..` are never written; `flip` mirrors the scene vertically (y -> SIZE - y).
fn render(samples: u32, blended: bool, keep: u32, flip: bool) -> (Vec<[u8; 4]>, usize) {
    let pos = positions(samples);
    let flipped: Vec<([[i64; 2]; 3], [u8; 4])> = TRIANGLES
        .iter()
        .map(|(t, c)| {
            let t = t.map(|[x, y]| [x, if flip { SIZE as i64 * 256 - y } else { y }]);
            (t, *c)
        })
        .collect();
    let triangles = &flipped;
    let mut out = Vec::new();
    let mut partial = 0;
    for y in 0..SIZE as i64 {
        for x in 0..SIZE as i64 {
            let cols: Vec<[u8; 4]> = pos
                .iter()
                .enumerate()
                .map(|(s, &(sx, sy))| {
                    let p = [x * 256 + 16 * sx, y * 256 + 16 * sy];
                    if s as u32 >= keep {
                        CLEAR
                    } else if blended {
                        triangles
                            .iter()
                            .filter(|(t, _)| covers(t, p))
                            .fold(CLEAR, |d, (_, c)| blend(*c, d))
                    } else {
                        triangles
                            .iter()
                            .rev()
                            .find(|(t, _)| covers(t, p))
                            .map_or(CLEAR, |(_, c)| *c)
                    }
                })
                .collect();
            if cols.iter().any(|c| *c != cols[0]) {
                partial += 1;
            }
            out.push(std::array::from_fn(|k| {
                let sum: u32 = cols.iter().map(|c| c[k] as u32).sum();
                (sum as f64 / cols.len() as f64).round() as u8
            }));
        }
    }
    (out, partial)
}

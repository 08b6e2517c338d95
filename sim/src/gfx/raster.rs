//! Coverage: is a pixel centre inside a raster triangle?
//!
//! A single-sampled pixel (x, y) is sampled at its centre (x + 1/2, y + 1/2) (the GL/Metal
//! convention; the M4 scene checkers of niklassheth/mesa sample there, e.g.
//! hundred-triangles offsets its geometry by a quarter pixel to stay clear of ambiguous
//! centres); multisampled pixels at their `ppp_multisamplectl` positions (`command.rs`). Edges are evaluated
//! exactly in 1/256-pixel fixed point. A centre exactly on an edge belongs to the triangle
//! when the edge is a top edge (horizontal, interior below) or a left edge: the top-left
//! rule of D3D and GL implementations. No source measures the M4's tie-break, so this is
//! the model's documented choice (sim/GFX.md).

use super::setup::RasterTri;

/// Edge function of edge a->b at point p (positive inside for positive-area triangles).
fn edge(a: [i64; 2], b: [i64; 2], p: [i64; 2]) -> i64 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

/// Top or left edge in y-down coordinates of a positive-area triangle.
fn top_left(a: [i64; 2], b: [i64; 2]) -> bool {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    (dy == 0 && dx > 0) || dy < 0
}

/// Whether the centre of pixel (x, y) is covered.
pub fn covers(t: &RasterTri, x: u32, y: u32) -> bool {
    covers_at(t, [x as i64 * 256 + 128, y as i64 * 256 + 128])
}

/// Whether the sample at `offset` (1/16 pixel from the pixel's corner) of pixel (x, y) is
/// covered; sample positions lie on the 1/256 grid (16 steps per 1/16).
pub fn covers_sample(t: &RasterTri, x: u32, y: u32, offset: (u32, u32)) -> bool {
    covers_at(
        t,
        [
            x as i64 * 256 + 16 * offset.0 as i64,
            y as i64 * 256 + 16 * offset.1 as i64,
        ],
    )
}

/// The samples of pixel (x, y) the triangle covers, bit k for `positions[k]`: the pixel
/// centre for a single-sampled render (`samples` 1), else each position.
pub fn coverage(t: &RasterTri, x: u32, y: u32, samples: u32, positions: &[(u32, u32)]) -> u8 {
    let mut covered = 0u8;
    for (k, pos) in positions.iter().enumerate() {
        let hit = if samples == 1 {
            covers(t, x, y)
        } else {
            covers_sample(t, x, y, *pos)
        };
        covered |= (hit as u8) << k;
    }
    covered
}

/// Whether the triangle covers any sample of any pixel inside its bounds.
pub fn covers_any(t: &RasterTri, samples: u32, positions: &[(u32, u32)]) -> bool {
    let [x0, y0, x1, y1] = t.bounds;
    (y0..y1).any(|y| (x0..x1).any(|x| coverage(t, x, y, samples, positions) != 0))
}

fn covers_at(t: &RasterTri, p: [i64; 2]) -> bool {
    (0..3).all(|i| {
        let (a, b) = (t.v[i], t.v[(i + 1) % 3]);
        let e = edge(a, b, p);
        e > 0 || (e == 0 && top_left(a, b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfx::coeff::DepthPlane;

    fn tri(v: [[i64; 2]; 3]) -> RasterTri {
        RasterTri {
            draw: 0,
            v,
            front_facing: true,
            covered: true,
            coefficients: 0..0,
            depth: DepthPlane::default(),
            bounds: [0, 0, 8, 8],
        }
    }

    /// The 4x standard pattern against a vertical edge at x = 8.5 px and a horizontal one at
    /// y = 8.5 px: only the samples left of (above) the edge are inside. Positions decoded by
    /// hand from 0xeaa26e26: (6, 2), (14, 6), (2, 10), (10, 14) sixteenths.
    #[test]
    fn samples_at_the_standard_positions_split_a_pixel() {
        let pos = [(6, 2), (14, 6), (2, 10), (10, 14)];
        // Right edge x = 8.5 px (2176 in 1/256); pixel (8, 20) lies between it and the
        // diagonal.
        let t = tri([[0, 0], [2176, 0], [2176, 8192]]);
        let inside: Vec<bool> = pos.iter().map(|&p| covers_sample(&t, 8, 20, p)).collect();
        assert_eq!(inside, vec![true, false, true, false]);
        // Bottom edge y = 8.5 px (y down); pixel (1, 8) lies above it, right of x = 0.
        let t = tri([[0, 0], [8192, 2176], [0, 2176]]);
        let inside: Vec<bool> = pos.iter().map(|&p| covers_sample(&t, 1, 8, p)).collect();
        assert_eq!(inside, vec![true, true, false, false]);
    }

    #[test]
    fn shared_edge_pixels_are_drawn_once() {
        // A 4x4-pixel square split along its diagonal through pixel centres.
        let (a, b, c, d) = ([128, 128], [1152, 128], [1152, 1152], [128, 1152]);
        let t1 = tri([a, b, c]);
        let t2 = tri([a, c, d]);
        for y in 0..6 {
            for x in 0..6 {
                let n = covers(&t1, x, y) as u32 + covers(&t2, x, y) as u32;
                let inside = (0..4).contains(&x) && (0..4).contains(&y);
                assert_eq!(n, inside as u32, "pixel {x},{y}");
            }
        }
    }
}

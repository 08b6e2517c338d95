//! Homogeneous clipping in clip space, before the perspective divide.
//!
//! x and y are clipped to a guard band, not to the viewport: window coordinates within
//! ±[`GUARD_BAND`] pixels. The viewport's bounds come from the scissor the driver programs
//! (Mesa's asahi driver always intersects it with the viewport, agx_state.c
//! `agx_get_scissor_extents`, M1 driver). That G16 keeps wide points and lines past the
//! viewport edge this way is inferred from the CTS-passing M4 driver (GravityLinux/mesa)
//! passing dEQP-GLES3 clipping.point.wide_point_clip* and clipping.line.wide_line_clip*;
//! the band's size is not documented (model's choice, larger than any framebuffer).
//! z is clipped, when the cull record's depth_clip is set, to 0 <= z <= w (the Metal/D3D
//! depth convention the G13/G16 viewport uses: Mesa's asahi driver lowers GL's -w..w depth
//! to it, `clip_halfz`; inferred). A plane w >= W_MIN keeps the divide finite (the model's
//! choice). Vertex outputs are interpolated linearly in clip space at the new vertices.
//! niklassheth/mesa scenes "varyings" (clipped, depth-clipped) were validated on M4 against
//! CPU references that clip this way (measured outcome, method inferred).

/// A vertex in clip space with all its scalar outputs (position first).
#[derive(Debug, Clone, PartialEq)]
pub struct ClipVertex {
    pub out: Vec<f32>,
}

impl ClipVertex {
    pub fn pos(&self) -> [f32; 4] {
        [self.out[0], self.out[1], self.out[2], self.out[3]]
    }
    fn lerp(&self, other: &ClipVertex, t: f32) -> ClipVertex {
        ClipVertex {
            out: self
                .out
                .iter()
                .zip(&other.out)
                .map(|(a, b)| a + (b - a) * t)
                .collect(),
        }
    }
}

/// Smallest w kept (model's choice).
pub const W_MIN: f32 = 1e-6;

/// Window coordinates the clipper keeps, in pixels either side of 0 (model's choice: past
/// the 16384-pixel framebuffer limit, well inside the rasteriser's exact range).
pub const GUARD_BAND: f32 = 65536.0;

/// The volume primitives are clipped to: per axis x, y the bounds of x/w (and y/w) whose
/// window coordinates stay in the guard band, and whether z is clipped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipVolume {
    bounds: [[f32; 2]; 2],
    depth_clip: bool,
}

impl ClipVolume {
    /// -w <= x, y <= w: the viewport itself (tests of the clipping arithmetic).
    pub fn unit(depth_clip: bool) -> ClipVolume {
        ClipVolume {
            bounds: [[-1.0, 1.0]; 2],
            depth_clip,
        }
    }

    /// The guard band of a viewport transform window = translate + scale * (x / w).
    pub fn guard_band(scale: [f32; 2], translate: [f32; 2], depth_clip: bool) -> ClipVolume {
        let axis = |s: f32, t: f32| {
            // A zero (or non-finite) scale maps every x to one column: nothing to clip there.
            if !(s.abs() >= 1e-12 && s.is_finite() && t.is_finite()) {
                return [-1e18, 1e18];
            }
            let (a, b) = ((-GUARD_BAND - t) / s, (GUARD_BAND - t) / s);
            [a.min(b), a.max(b)]
        };
        ClipVolume {
            bounds: [axis(scale[0], translate[0]), axis(scale[1], translate[1])],
            depth_clip,
        }
    }

    /// Signed distances to the planes (inside when >= 0): the first [`Self::planes`] of them
    /// are active. A fixed array: this runs for every vertex of every primitive.
    fn distances(&self, p: [f32; 4]) -> [f32; 7] {
        let [x, y, z, w] = p;
        let [[x0, x1], [y0, y1]] = self.bounds;
        [
            x - x0 * w,
            x1 * w - x,
            y - y0 * w,
            y1 * w - y,
            w - W_MIN,
            z,
            w - z,
        ]
    }

    fn planes(&self) -> usize {
        if self.depth_clip {
            7
        } else {
            5
        }
    }

    pub fn inside(&self, v: &ClipVertex) -> bool {
        self.distances(v.pos())[..self.planes()]
            .iter()
            .all(|d| *d >= 0.0)
    }
}

/// Clips a polygon (a triangle) against the volume; returns the clipped polygon's vertices
/// in order (empty when nothing remains).
pub fn clip_polygon(poly: Vec<ClipVertex>, vol: &ClipVolume) -> Vec<ClipVertex> {
    let mut cur = poly;
    for plane in 0..vol.planes() {
        if cur.is_empty() {
            break;
        }
        let mut next = Vec::with_capacity(cur.len() + 2);
        for i in 0..cur.len() {
            let a = &cur[i];
            let b = &cur[(i + 1) % cur.len()];
            let da = vol.distances(a.pos())[plane];
            let db = vol.distances(b.pos())[plane];
            if da >= 0.0 {
                next.push(a.clone());
            }
            if (da >= 0.0) != (db >= 0.0) {
                // From the inside endpoint: an edge two triangles share is walked in opposite
                // directions by each, and both must get the same bits at the crossing, or the
                // fill rule sees two different edges (dEQP clipping.polygon_edge overdraw).
                next.push(if da >= 0.0 {
                    a.lerp(b, da / (da - db))
                } else {
                    b.lerp(a, db / (db - da))
                });
            }
        }
        cur = next;
    }
    cur
}

/// Clips a line segment; `None` when it lies wholly outside.
pub fn clip_line(a: &ClipVertex, b: &ClipVertex, vol: &ClipVolume) -> Option<[ClipVertex; 2]> {
    let (da, db) = (vol.distances(a.pos()), vol.distances(b.pos()));
    let n = vol.planes();
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (x, y) in da[..n].iter().zip(&db[..n]) {
        if *x < 0.0 && *y < 0.0 {
            return None;
        }
        if *x < 0.0 {
            t0 = t0.max(x / (x - y));
        } else if *y < 0.0 {
            t1 = t1.min(x / (x - y));
        }
    }
    (t0 <= t1).then(|| [a.lerp(b, t0), a.lerp(b, t1)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> ClipVertex {
        ClipVertex {
            out: vec![x, y, 0.5, 1.0],
        }
    }

    #[test]
    fn triangle_crossing_one_edge_becomes_a_quad() {
        let out = clip_polygon(
            vec![v(0.0, 0.0), v(2.0, 0.0), v(0.0, 0.5)],
            &ClipVolume::unit(true),
        );
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|p| p.out[0] <= 1.0 + 1e-6));
        assert!(clip_polygon(
            vec![v(2.0, 0.0), v(3.0, 0.0), v(2.0, 1.0)],
            &ClipVolume::unit(true)
        )
        .is_empty());
    }

    #[test]
    fn a_shared_edge_is_cut_at_the_same_point_from_both_sides() {
        // Two triangles of a quad whose diagonal crosses the volume (dEQP-GLES3
        // clipping.polygon_edge.quad_near_edge_2 coordinates): the clipped diagonal's
        // endpoints must be identical in both.
        let p = |x: f32, y: f32, z: f32| ClipVertex {
            out: vec![x, y, z, 1.0],
        };
        let (v0, v1) = (p(40400.0, 39600.0, 400.99), p(39600.0, 40400.0, 400.99));
        let (v2, v3) = (
            p(-40400.0, -39600.0, -399.01),
            p(-39600.0, -40400.0, -399.01),
        );
        let t1 = clip_polygon(vec![v0.clone(), v1, v2.clone()], &ClipVolume::unit(true));
        let t2 = clip_polygon(vec![v0, v2, v3], &ClipVolume::unit(true));
        let shared: Vec<_> = t1.iter().filter(|a| t2.contains(a)).collect();
        assert_eq!(shared.len(), 2, "{t1:?}\n{t2:?}");
    }
}

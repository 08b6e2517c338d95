//! Homogeneous clipping in clip space, before the perspective divide.
//!
//! The clip volume is -w <= x <= w, -w <= y <= w and, when the cull record's depth_clip is
//! set, 0 <= z <= w (the Metal/D3D depth convention the G13/G16 viewport uses: Mesa's
//! asahi driver lowers GL's -w..w depth to it, `clip_halfz`; inferred). A plane w >= W_MIN
//! keeps the divide finite (the model's choice; hardware guard-band details are not
//! documented). Vertex outputs are interpolated linearly in clip space at the new vertices.
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

/// Signed distances to the active planes (inside when >= 0): the first `n` of the array
/// (five planes, seven with depth clipping). An array, not a Vec: setup asks for them for
/// every vertex of every primitive.
fn distances(p: [f32; 4], depth_clip: bool) -> ([f32; 7], usize) {
    let [x, y, z, w] = p;
    let d = [w + x, w - x, w + y, w - y, w - W_MIN, z, w - z];
    (d, if depth_clip { 7 } else { 5 })
}

pub fn inside(v: &ClipVertex, depth_clip: bool) -> bool {
    let (d, n) = distances(v.pos(), depth_clip);
    d[..n].iter().all(|d| *d >= 0.0)
}

/// Clips a polygon (a triangle) against the volume; returns the clipped polygon's vertices
/// in order (empty when nothing remains).
pub fn clip_polygon(poly: Vec<ClipVertex>, depth_clip: bool) -> Vec<ClipVertex> {
    let planes = distances([0.0; 4], depth_clip).1;
    let mut cur = poly;
    for plane in 0..planes {
        if cur.is_empty() {
            break;
        }
        let mut next = Vec::with_capacity(cur.len() + 2);
        for i in 0..cur.len() {
            let a = &cur[i];
            let b = &cur[(i + 1) % cur.len()];
            let da = distances(a.pos(), depth_clip).0[plane];
            let db = distances(b.pos(), depth_clip).0[plane];
            if da >= 0.0 {
                next.push(a.clone());
            }
            if (da >= 0.0) != (db >= 0.0) {
                next.push(a.lerp(b, da / (da - db)));
            }
        }
        cur = next;
    }
    cur
}

/// Clips a line segment; `None` when it lies wholly outside.
pub fn clip_line(a: &ClipVertex, b: &ClipVertex, depth_clip: bool) -> Option<[ClipVertex; 2]> {
    let ((da, n), (db, _)) = (
        distances(a.pos(), depth_clip),
        distances(b.pos(), depth_clip),
    );
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
        let out = clip_polygon(vec![v(0.0, 0.0), v(2.0, 0.0), v(0.0, 0.5)], true);
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|p| p.out[0] <= 1.0 + 1e-6));
        assert!(clip_polygon(vec![v(2.0, 0.0), v(3.0, 0.0), v(2.0, 1.0)], true).is_empty());
    }
}

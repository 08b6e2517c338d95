//! Primitive assembly: a run of vertices into points, lines or triangles.
//!
//! Topology values are the VDM primitive enum (ADevWithAnIdea/agx-re docs/cmdstream,
//! measured on G17P; m4-deltas: identical on M4). Vertex order within each primitive
//! follows OpenGL (ES 3.0 §2.6 / GL 4.6 table 13.2), rotated so the first vertex of the
//! primitive is the provoking vertex under the "first" convention and the last one under
//! the "last" convention, keeping the winding. Flat-shaded coefficients then read vertex
//! 0 or 2 of the primitive, as the CF binding's shade model says (GravityLinux/mesa
//! agx_apple9.c `apple9_build_cf_bindings`: shade 0 for flat-first, 2 otherwise). The
//! ordering itself is the model's choice (inferred), documented in sim/GFX.md.

use agx16_cmdstream::vdm::{Primitive, ProvokingVertex};

/// An assembled primitive: indices into the run's vertices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prim {
    Point(usize),
    Line([usize; 2]),
    Triangle([usize; 3]),
}

/// Assembles one run of `n` vertices. `None` for topologies GLES never emits and no G16
/// source establishes (quads, quad strips, unknown values).
pub fn assemble(topology: Primitive, n: usize, provoking: ProvokingVertex) -> Option<Vec<Prim>> {
    let first = matches!(provoking, ProvokingVertex::First);
    let mut out = Vec::new();
    match topology {
        Primitive::Points => out.extend((0..n).map(Prim::Point)),
        Primitive::Lines => out.extend((0..n / 2).map(|i| Prim::Line([2 * i, 2 * i + 1]))),
        Primitive::LineStrip => {
            out.extend((1..n).map(|i| Prim::Line([i - 1, i])));
        }
        Primitive::LineLoop => {
            out.extend((1..n).map(|i| Prim::Line([i - 1, i])));
            if n >= 2 {
                out.push(Prim::Line([n - 1, 0]));
            }
        }
        Primitive::Triangles => {
            out.extend((0..n / 3).map(|i| Prim::Triangle([3 * i, 3 * i + 1, 3 * i + 2])));
        }
        Primitive::TriangleStrip => {
            for i in 0..n.saturating_sub(2) {
                let t = if i % 2 == 0 {
                    [i, i + 1, i + 2]
                } else if first {
                    // Provoking vertex i stays first; swapping the others keeps the winding.
                    [i, i + 2, i + 1]
                } else {
                    [i + 1, i, i + 2]
                };
                out.push(Prim::Triangle(t));
            }
        }
        Primitive::TriangleFan => {
            for i in 0..n.saturating_sub(2) {
                // GL provoking vertex of fan triangle i: i+1 (first) or i+2 (last); a
                // rotation of (0, i+1, i+2) keeps the winding.
                let t = if first {
                    [i + 1, i + 2, 0]
                } else {
                    [0, i + 1, i + 2]
                };
                out.push(Prim::Triangle(t));
            }
        }
        _ => return None,
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_keep_winding_and_provoking_vertex() {
        let last = assemble(Primitive::TriangleStrip, 5, ProvokingVertex::Last).unwrap();
        assert_eq!(
            last,
            vec![
                Prim::Triangle([0, 1, 2]),
                Prim::Triangle([2, 1, 3]),
                Prim::Triangle([2, 3, 4])
            ]
        );
        let first = assemble(Primitive::TriangleStrip, 4, ProvokingVertex::First).unwrap();
        assert_eq!(first[1], Prim::Triangle([1, 3, 2]));
        let fan = assemble(Primitive::TriangleFan, 4, ProvokingVertex::First).unwrap();
        assert_eq!(
            fan,
            vec![Prim::Triangle([1, 2, 0]), Prim::Triangle([2, 3, 0])]
        );
        assert_eq!(
            assemble(Primitive::LineLoop, 3, ProvokingVertex::Last)
                .unwrap()
                .len(),
            3
        );
        assert!(assemble(Primitive::Quads, 4, ProvokingVertex::Last).is_none());
    }
}

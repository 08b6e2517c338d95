//! The 2x2 quads of a fragment SIMD-group and the differences taken across them: the
//! `derivative` instruction and the implicit-LOD texture sample read the same lanes.
//!
//! Layout: lane `4k + i` is pixel `(i & 1, i >> 1)` of quad k (the render's upper-left
//! origin, y down; `super::shade` builds quads this way, `quad_layout` checks it), for every
//! quad index k of the group, not only lanes 0..3.
//!
//! Rules, each with its evidence:
//! - quad-local, right minus left and lower minus upper: ADevWithAnIdea/agx-re EXP-0111 FS-04
//!   (measured on M4): a step of +1000 between columns 0 and 1 reads `dfdx = 1000` on both
//!   lanes of each row of that quad and 0 across a quad boundary; the same transposed for
//!   dfdy, rows counted downward (FS-03: upper-left origin). `deriv_axis_check` read
//!   `[1, 0, 0, 1]` for dfdx/dfdy of pos.x/pos.y.
//! - helper and demoted lanes feed their neighbours (EXP-0111 FS-06, EXP-0091 §2, measured on
//!   M4: a never-covered helper gives `dfdx(pos.x) = 1`; a neighbour sees a discarded lane's
//!   post-discard value). The model runs helpers and demoted lanes like any other lane.
//! - fine, not coarse (inferred): each row (dfdx) or column (dfdy) is differenced on its own.
//!   No measurement separates this from one difference per quad (FS-04's step varies along
//!   one axis only; FS-05: no coarse mode is reachable from Metal). GravityLinux/mesa's T8132
//!   compiler selects the op for NIR `ddx`/`ddx_fine` (agx_compile_apple9.c, its GLES 3.0
//!   suites ran derivate.* on M4) and agx-re's FS-04 reads it as fine; GL accepts fine
//!   differences for every derivative form, coarse included.
//! - the arithmetic is an fp32 subtract with the ALU's rules (denormals flush on input and
//!   output, canonical NaN; inferred from the adder, `crate::fp`).
//! - a neighbour outside the execution mask (divergent control flow, where GL leaves the
//!   derivative undefined) contributes what its register holds (inferred: the difference
//!   reads the quad's registers; never an error).
//! - the implicit-LOD sample uses one scale factor per quad, from the differences at the
//!   quad's (0,0) lane, i.e. [`fine_pair`] of lane `4k` (coarse derivatives, which GL permits
//!   for the LOD; model's choice, `super::texture`).

use super::stages::Fragment;

/// Lane of pixel (`dx`, `dy`) in the quad of lane `l`.
#[inline]
pub fn lane(l: usize, dx: usize, dy: usize) -> usize {
    (l & !3) | dy << 1 | dx
}

/// The lanes whose difference `hi - lo` is lane `l`'s derivative along `axis` (0 x, 1 y):
/// the two pixels of `l`'s row (x) or column (y) in its quad.
#[inline]
pub fn fine_pair(l: usize, axis: u8) -> (usize, usize) {
    let (x, y) = (l & 1, l >> 1 & 1);
    if axis == 0 {
        (lane(l, 0, y), lane(l, 1, y))
    } else {
        (lane(l, x, 0), lane(l, x, 1))
    }
}

/// The fp32 difference `hi - lo` as the adder computes it (flush on input and output,
/// canonical NaN).
#[inline]
pub fn difference(hi: u32, lo: u32) -> u32 {
    use crate::fp::{canon_f32, ftz, ftz_f32};
    let d = ftz_f32(f32::from_bits(hi)) - ftz_f32(f32::from_bits(lo));
    ftz(canon_f32(d))
}

/// Whether the fragments fill whole quads in the layout above (lane `4k + i` is pixel
/// `(i & 1, i >> 1)` of an aligned 2x2 quad).
pub fn quad_layout(frags: &[Fragment]) -> bool {
    frags.len().is_multiple_of(4)
        && frags.chunks(4).all(|q| {
            q[0].x.is_multiple_of(2)
                && q[0].y.is_multiple_of(2)
                && (1..4).all(|i| {
                    (q[i].x, q[i].y) == (q[0].x + (i as u32 & 1), q[0].y + (i as u32 >> 1))
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_stay_in_the_lanes_quad_for_every_quad_index() {
        for l in 0..32 {
            for axis in 0..2 {
                let (lo, hi) = fine_pair(l, axis);
                assert_eq!((lo & !3, hi & !3), (l & !3, l & !3));
                // lo is the left (upper) pixel, hi the right (lower) one, in l's row (column).
                let d = if axis == 0 { 1 } else { 2 };
                assert_eq!(hi - lo, d);
                assert!(l == lo || l == hi || (l ^ lo) == 3 - d || (l ^ hi) == 3 - d);
            }
        }
        assert_eq!(fine_pair(13, 0), (12, 13));
        assert_eq!(fine_pair(14, 0), (14, 15));
        assert_eq!(fine_pair(14, 1), (12, 14));
        assert_eq!(fine_pair(13, 1), (13, 15));
    }

    #[test]
    fn difference_flushes_and_canonicalises() {
        assert_eq!(
            f32::from_bits(difference(3f32.to_bits(), 1f32.to_bits())),
            2.0
        );
        // A denormal input acts as zero; a denormal result flushes to zero.
        assert_eq!(difference(1, 0), 0);
        let tiny = f32::MIN_POSITIVE;
        assert_eq!(
            difference((tiny * 1.5).to_bits(), tiny.to_bits()),
            0,
            "2^-127 flushes"
        );
        assert_eq!(
            difference(f32::INFINITY.to_bits(), f32::INFINITY.to_bits()),
            crate::fp::F32_CANONICAL_NAN
        );
    }
}

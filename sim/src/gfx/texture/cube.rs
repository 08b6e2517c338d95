//! Cube-map sampling: the cube forms' face selection, seamless filtering across face edges and
//! the implicit LOD of a quad whose pixels lie on different faces.
//!
//! Established: the cube forms read (s, t) face coordinates and the face index (in the word's
//! low 16 bits and, for the non-shadow forms, also in the third publication) that the CUBE
//! operations and the packer produce (GravityLinux/mesa README.apple9-ir.md "Native cube
//! coordinates": face index and the U/V numerators, s = u/|ma| + 1/2; agx_compile_apple9.c
//! passes the face as `layer_or_face` into both). The M4 sampler has no seamless control and
//! the M4 driver writes none, yet passes dEQP-GLES3's cube filtering groups: the hardware
//! filters seamlessly (../shared/notes/m4-fact-gaps.md Q4, inference from that validation).
//!
//! Model's choices (GL-conformant, not measured on M4): a tap outside the face is the texel of
//! the adjacent face that the GL ES 3.0 face table (table 3.21) maps it to (§3.8.9.1 seamless
//! cube maps), found by turning the tap's texel centre back into a direction; a tap outside
//! the face on both axes (a corner) is the average of the three texels that meet there (the
//! method the GL specification recommends); wrap modes do not apply. The implicit LOD of a
//! quad takes its pixels' directions projected onto one face, the one of its pixels' faces
//! where the quad's footprint is smallest (see [`implicit_lod`]), so the derivatives stay
//! continuous where the quad straddles an edge.

use super::{blend, level_size, texel, At, Image, LaneInput, TexError, Texel};
use crate::mem::GpuMemory;
use crate::value_rules::Rule;

fn refuse<T>(what: impl Into<String>) -> Result<T, TexError> {
    Err(TexError::Refused(what.into()))
}

/// The face a lane samples: the word's low 16 bits, which the third publication repeats.
pub(super) fn face(inp: &LaneInput) -> Result<u32, TexError> {
    let face = inp.words[3] & 0xffff;
    if face >= 6 {
        return refuse(format!(
            "cube face {face} in the LOD word (faces are 0..5; what the M4 does with others \
             is not established)"
        ));
    }
    if inp.words[2] != face {
        return refuse(format!(
            "cube sample with face {face} in the word but {:#x} in the third publication: \
             only the packer's form (the face in both) is established",
            inp.words[2]
        ));
    }
    Ok(face)
}

/// (sc, tc, ma) of direction `d` on `face` (GL ES 3.0 table 3.21; ma signed: positive when
/// `d` points at that face's side).
fn axes(face: u32, d: [f64; 3]) -> (f64, f64, f64) {
    let [x, y, z] = d;
    match face {
        0 => (-z, -y, x),
        1 => (z, -y, -x),
        2 => (x, z, y),
        3 => (x, -z, -y),
        4 => (x, -y, z),
        _ => (-x, -y, -z),
    }
}

/// The direction of face coordinates (a, b) = (2s - 1, 2t - 1) on `face` (major component 1).
fn direction(face: u32, a: f64, b: f64) -> [f64; 3] {
    match face {
        0 => [1.0, -b, -a],
        1 => [-1.0, -b, a],
        2 => [a, 1.0, b],
        3 => [a, -1.0, -b],
        4 => [a, -b, 1.0],
        _ => [-a, -b, -1.0],
    }
}

/// The face a direction selects (largest magnitude; x wins ties, then y: the CUBE operation's
/// order, README.apple9-ir.md) and its (s, t).
fn select(d: [f64; 3]) -> (u32, f64, f64) {
    let [ax, ay, az] = d.map(f64::abs);
    let face = if ax >= ay && ax >= az {
        (d[0] < 0.0) as u32
    } else if ay >= az {
        2 + (d[1] < 0.0) as u32
    } else {
        4 + (d[2] < 0.0) as u32
    };
    let (sc, tc, ma) = axes(face, d);
    (face, (sc / ma + 1.0) / 2.0, (tc / ma + 1.0) / 2.0)
}

/// Texel (i, j) of `face` at a level of `n`×`n` texels, one step outside the face at most on
/// each axis: the adjacent face's texel for an edge, the average of three for a corner.
fn tap(
    mem: &dyn GpuMemory,
    img: &Image,
    level: u32,
    face: u32,
    i: i64,
    j: i64,
    n: i64,
) -> Result<Texel, TexError> {
    let inside = |v: i64| (0..n).contains(&v);
    match (inside(i), inside(j)) {
        (true, true) => texel(mem, img, level, face, i as u32, j as u32),
        (false, false) => {
            let c = |v: i64| v.clamp(0, n - 1);
            let three = [
                tap(mem, img, level, face, c(i), c(j), n)?,
                tap(mem, img, level, face, i, c(j), n)?,
                tap(mem, img, level, face, c(i), j, n)?,
            ];
            Ok(blend(&three.map(|t| (1.0 / 3.0, t))))
        }
        _ => {
            let centre = |v: i64| 2.0 * (v as f64 + 0.5) / n as f64 - 1.0;
            let (f, s, t) = select(direction(face, centre(i), centre(j)));
            let idx = |c: f64| ((c * n as f64).floor() as i64).clamp(0, n - 1) as u32;
            texel(mem, img, level, f, idx(s), idx(t))
        }
    }
}

/// Nearest or bilinear lookup of (s, t) on face `at.layer` of `level`, seamless across edges.
pub(super) fn filter(
    mem: &dyn GpuMemory,
    img: &Image,
    level: u32,
    at: At,
    linear: bool,
) -> Result<Texel, TexError> {
    let n = level_size(img, level)[0] as i64;
    let (mut u, mut v) = (at.str[0] * n as f32, at.str[1] * n as f32);
    for c in [&mut u, &mut v] {
        if !c.is_finite() {
            // value_rules NonFiniteCoordinate, as the 2D forms: NaN -> 0, ±inf -> ±2^24
            // texels (past the face: its edge)
            super::rule(Rule::NonFiniteCoordinate, 1)?;
            *c = if c.is_nan() {
                0.0
            } else {
                16_777_216f32.copysign(*c)
            };
        }
    }
    if linear && img.format.is_integer() {
        return super::incomplete(img);
    }
    let face = at.layer;
    if !linear {
        let c = |x: f32| (x.floor() as i64).clamp(0, n - 1);
        return tap(mem, img, level, face, c(u), c(v), n);
    }
    // Coordinates past the face by more than half a texel (s outside [0, 1]) select the face
    // edge's taps, as an edge clamp would.
    let (u, v) = (u.clamp(0.0, n as f32) - 0.5, v.clamp(0.0, n as f32) - 0.5);
    let (i0, j0) = (u.floor() as i64, v.floor() as i64);
    let (a, b) = (u - u.floor(), v - v.floor());
    let mut taps = Vec::with_capacity(4);
    for (dj, wj) in [(0, 1.0 - b), (1, b)] {
        for (di, wi) in [(0, 1.0 - a), (1, a)] {
            taps.push((wi * wj, tap(mem, img, level, face, i0 + di, j0 + dj, n)?));
        }
    }
    Ok(blend(&taps))
}

/// log2 of the quad's scale factor at level 0 (one per quad, as the 2D forms): pixels (1,0)
/// and (0,1) against (0,0), their directions projected onto one face. Where the quad lies on
/// one face that is its face (the plain differences of (s, t)). Where it straddles an edge
/// (a quad at the edge of a face-filling primitive has helper pixels beyond it) each face
/// that one of its four pixels selects is tried, and the smallest footprint is taken:
/// projecting a direction that lies beyond a face's edge onto that face stretches its
/// coordinates like a tangent, so the face the pixels lie on gives the derivative GL means
/// (the derivatives of the face coordinates of the face the sampled pixel selects; dEQP's
/// reference, tcuTexLookupVerifier, takes each pixel's own face), while pixel (0,0)'s face
/// alone overstated λ by up to a level at corners (dEQP-GLES3 mipmap.cube.generate.*_fastest
/// selected the next level at one corner pixel).
pub(super) fn implicit_lod(
    img: &Image,
    quad: [LaneInput; 3],
    fourth: Option<LaneInput>,
) -> Result<f32, TexError> {
    let n = level_size(img, 0)[0] as f64;
    let mut d = [[0f64; 3]; 3];
    // The distinct faces of the quad's pixels (at most four; no allocation per quad).
    let (mut face_list, mut nfaces) = ([0u32; 4], 0);
    for (k, inp) in quad.iter().chain(fourth.as_ref()).enumerate() {
        let f = face(inp)?;
        if k < 3 {
            let (s, t) = (
                f32::from_bits(inp.words[0]) as f64,
                f32::from_bits(inp.words[1]) as f64,
            );
            d[k] = direction(f, 2.0 * s - 1.0, 2.0 * t - 1.0);
        }
        if !face_list[..nfaces].contains(&f) {
            face_list[nfaces] = f;
            nfaces += 1;
        }
    }
    let len = |a: [f64; 2], b: [f64; 2]| ((b[0] - a[0]) * n).hypot((b[1] - a[1]) * n);
    // The quad's (s, t) on `face`, if every direction points at that face's side.
    let on = |face: u32| -> Option<[[f64; 2]; 3]> {
        let mut st = [[0f64; 2]; 3];
        for k in 0..3 {
            let (sc, tc, ma) = axes(face, d[k]);
            if ma <= 0.0 {
                return None;
            }
            st[k] = [(sc / ma + 1.0) / 2.0, (tc / ma + 1.0) / 2.0];
        }
        Some(st)
    };
    let faces = &face_list[..nfaces];
    if faces.len() > 1 {
        crate::value_rules::apply(crate::value_rules::Rule::CubeLodAcrossFaces, 1, None)
            .map_err(TexError::Refused)?;
    }
    let scale = faces
        .iter()
        .filter_map(|&f| on(f))
        .map(|st| len(st[0], st[1]).max(len(st[0], st[2])))
        .fold(f64::INFINITY, f64::min);
    if scale.is_finite() {
        return Ok(scale.log2() as f32);
    }
    // No face sees all three directions (a quad spanning more than a face, e.g. a pixel whose
    // quad neighbours lie on opposite sides): each pixel's own face coordinates stand in.
    let own = |k: usize| [0, 1].map(|c| f32::from_bits(quad[k].words[c]) as f64);
    Ok(len(own(0), own(1)).max(len(own(0), own(2))).log2() as f32)
}

/// [`select`] for the sampling tests of the parent module.
#[cfg(test)]
pub(super) fn tests_select(d: [f64; 3]) -> (u32, f64, f64) {
    select(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every face's (s, t) round-trips through its direction, and the face table agrees with
    /// GL ES 3.0 table 3.21 at the face centres.
    #[test]
    fn directions_round_trip() {
        let centres = [
            [1.0, 0.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, -1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0],
        ];
        for (f, c) in centres.iter().enumerate() {
            assert_eq!(select(*c), (f as u32, 0.5, 0.5));
            for (s, t) in [(0.1, 0.8), (0.9, 0.3), (0.5, 0.05)] {
                let (g, s2, t2) = select(direction(f as u32, 2.0 * s - 1.0, 2.0 * t - 1.0));
                assert_eq!(g, f as u32);
                assert!((s2 - s).abs() < 1e-12 && (t2 - t).abs() < 1e-12);
            }
        }
        // +X, t = 0 is the y = +1 edge (tc = -y): the texel above it is on +Y, at its s = 1
        // edge (sc = x... +Y's t axis is z, and +X's s axis is -z).
        let n = 4.0;
        let (f, s, t) = select(direction(0, 2.0 * 0.375 - 1.0, 2.0 * (-0.5 / n) - 1.0));
        assert_eq!(f, 2);
        assert!(s * n >= 3.0 && s * n < 4.0, "+Y x = 1 edge: s {s}");
        assert!(
            (t * n).floor() == 2.0,
            "the same distance along the edge: t {t}"
        );
    }
}

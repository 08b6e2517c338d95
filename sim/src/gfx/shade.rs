//! Shading one raster triangle over one utile: per-sample coverage, scissor and region
//! clip, depth/stencil tests and updates in the order the pass type asks for, and the
//! fragment program run on 2x2 pixel quads.
//!
//! Quads: fragment programs see their pixels in aligned 2x2 quads, and pixels of a quad
//! with no work run as helper invocations whose writes are dropped, so quad-local
//! derivatives have all four lanes (quad-local derivatives and helper lanes: ADevWithAnIdea/
//! agx-re P0.8 ABI analysis, measured on M4; the GL rule for derivatives). Pass types:
//! opaque/translucent test and update before the program, which runs for the samples that
//! passed; punch-through runs the program first for every covered sample and tests/updates
//! only the samples it keeps (Mesa G13 `sample_mask` semantics, inferred for G16). A
//! discarded fragment, a helper lane, or a sample failing its late test keeps no
//! tilebuffer writes.

use super::coeff::Plane;
use super::command::RenderCommand;
use super::raster::coverage;
use super::setup::RasterTri;
use super::stages::{Fragment, FragmentResult, Stages, TileBuffer};
use super::stream::DrawState;
use super::tiles::{DrawFrag, ZsTile};
use super::zs::{test, FaceState, ZsOutcome};
use super::{render_error, RenderStats};
use crate::error::SimError;
use crate::mem::GpuMemory;

/// Samples a pixel can have (G16 renders take 1, 2 or 4: `super::command`).
const MAX_SAMPLES: usize = 4;

/// One pixel of a quad.
#[derive(Clone, Copy)]
struct Lane {
    /// Index of the pixel's first sample in the utile's depth/stencil arrays.
    base: usize,
    covered: u8,
    passed: u8,
    /// Per sample: depth and test outcome (covered samples only).
    outs: [Option<(f32, ZsOutcome)>; MAX_SAMPLES],
}

/// Coverage and tests of one pixel; `None` when nothing of it is covered.
#[allow(clippy::too_many_arguments)]
fn evaluate(
    cmd: &RenderCommand,
    d: &DrawState,
    f: &DrawFrag,
    t: &RasterTri,
    face: &FaceState,
    zs: &ZsTile,
    tb: &TileBuffer,
    x: u32,
    y: u32,
) -> Result<Option<Lane>, SimError> {
    if let Some(s) = &f.scissor {
        if x < s.min_x as u32 || x >= s.max_x as u32 || y < s.min_y as u32 || y >= s.max_y as u32 {
            return Ok(None);
        }
    }
    if let Some([x0, y0, x1, y1]) = f.region {
        if x < x0 || x >= x1 || y < y0 || y >= y1 {
            return Ok(None);
        }
    }
    let ns = cmd.samples;
    let covered = coverage(t, x, y, ns, &cmd.sample_positions);
    if covered == 0 {
        return Ok(None);
    }
    let (tx, ty) = (x - tb.origin.0, y - tb.origin.1);
    let base = ((ty * tb.width + tx) * ns) as usize;
    let mut outs = [None; MAX_SAMPLES];
    let mut passed = 0u8;
    for (k, pos) in cmd.sample_positions.iter().enumerate() {
        if covered & (1 << k) == 0 {
            continue;
        }
        let (sx, sy) = if ns == 1 {
            (x as f64 + 0.5, y as f64 + 0.5)
        } else {
            (
                x as f64 + pos.0 as f64 / 16.0,
                y as f64 + pos.1 as f64 / 16.0,
            )
        };
        let mut z = t.depth.at(sx, sy);
        if f.depth_clamp {
            z = z.clamp(0.0, 1.0);
        }
        if let Some(s) = &f.scissor {
            // The scissor entry's depth range bounds the fragment depth (G13 genxml).
            z = z.max(s.min_z).min(s.max_z);
        }
        let z = zs
            .depth_of(z)
            .map_err(|w| super::unestablished(d.at, "depth test", w))?;
        let i = base + k;
        let out = test(face, z, zs.z[i], zs.s[i], d.at)?;
        passed |= (out.pass as u8) << k;
        outs[k] = Some((z, out));
    }
    Ok(Some(Lane {
        base,
        covered,
        passed,
        outs,
    }))
}

/// Applies a lane's depth/stencil results for the samples in `keep`.
fn update(zs: &mut ZsTile, lane: &Lane, face: &FaceState, keep: u8) {
    for (k, o) in lane.outs.iter().enumerate() {
        if let (Some((z, out)), true) = (o, keep & (1 << k) != 0) {
            zs.s[lane.base + k] = out.stencil;
            if out.pass && face.depth_write {
                zs.z[lane.base + k] = *z;
            }
        }
    }
}

/// Quads one fragment SIMD-group holds: eight 2x2 quads fill its 32 lanes, quad k in lanes
/// 4k..4k+3 (the hardware packs a group with quads of one primitive; ADevWithAnIdea/agx-re
/// docs/m4-deltas.md §0: SIMD width 32, measured; quad packing inferred).
pub const QUADS_PER_GROUP: usize = crate::core::LANES / 4;

/// One quad waiting for its SIMD-group: its pixels' coverage and tests, and the tilebuffer
/// bytes of its pixels before the program (restored for samples that keep no writes).
struct PendingQuad {
    qx: u32,
    qy: u32,
    lanes: [Option<Lane>; 4],
    /// Work per lane: the samples the program runs for (0 = helper).
    work: [u8; 4],
}

/// Rasterises one triangle over one utile; returns the samples that passed.
///
/// Quads with work are collected in raster order and shaded [`QUADS_PER_GROUP`] at a time in
/// one SIMD-group. The quads of one primitive cover disjoint pixels, so a quad's early tests,
/// saved bytes and result application touch nothing another quad of the group reads: the
/// outcome is the one of shading them one after another.
#[allow(clippy::too_many_arguments)]
pub(super) fn shade_prim(
    mem: &dyn GpuMemory,
    cmd: &RenderCommand,
    d: &DrawState,
    f: &DrawFrag,
    t: &RasterTri,
    coefficients: &[Plane],
    tb: &mut TileBuffer,
    zs: &mut ZsTile,
    stages: &mut dyn Stages,
    stats: &mut RenderStats,
) -> Result<u64, SimError> {
    if !t.covered {
        // Setup found no sample inside: every pixel would evaluate to nothing.
        return Ok(0);
    }
    let face = FaceState::of(
        &d.page.fragment_faces,
        !t.front_facing,
        d.page.fragment_control_2.depth_write_disable,
    );
    let (org, w, h) = (tb.origin, tb.width, tb.height);
    let (x0, x1) = (
        org.0.max(t.bounds[0]),
        (org.0 + w).min(t.bounds[2]).min(cmd.width),
    );
    let (y0, y1) = (
        org.1.max(t.bounds[1]),
        (org.1 + h).min(t.bounds[3]).min(cmd.height),
    );
    let mut passed = 0;
    let mut batch: Vec<PendingQuad> = Vec::with_capacity(QUADS_PER_GROUP);
    let mut saved: Vec<u8> = Vec::new();
    for qy in (y0 & !1..y1).step_by(2) {
        for qx in (x0 & !1..x1).step_by(2) {
            let mut lanes: [Option<Lane>; 4] = [None; 4];
            for (k, (dx, dy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
                let (x, y) = (qx + dx, qy + dy);
                let inside = (x0..x1).contains(&x) && (y0..y1).contains(&y);
                if inside {
                    lanes[k] = evaluate(cmd, d, f, t, &face, zs, tb, x, y)?;
                }
            }
            let mut work = [0u8; 4];
            for (k, lane) in lanes.iter().enumerate() {
                let Some(lane) = lane else { continue };
                stats.fragments_rasterized += lane.covered.count_ones() as u64;
                work[k] = if f.late_zs {
                    lane.covered
                } else {
                    update(zs, lane, &face, lane.covered);
                    lane.passed
                };
            }
            if work == [0; 4] {
                continue;
            }
            batch.push(PendingQuad {
                qx,
                qy,
                lanes,
                work,
            });
            if batch.len() == QUADS_PER_GROUP {
                passed += shade_group(
                    mem,
                    d,
                    f,
                    t,
                    coefficients,
                    &face,
                    tb,
                    zs,
                    stages,
                    stats,
                    &batch,
                    &mut saved,
                )?;
                batch.clear();
            }
        }
    }
    if !batch.is_empty() {
        passed += shade_group(
            mem,
            d,
            f,
            t,
            coefficients,
            &face,
            tb,
            zs,
            stages,
            stats,
            &batch,
            &mut saved,
        )?;
    }
    stats.samples_passed += passed;
    Ok(passed)
}

/// Runs the fragment program on one SIMD-group of quads and applies each lane's result;
/// returns the samples that passed. `saved` is scratch for the tilebuffer bytes.
#[allow(clippy::too_many_arguments)]
fn shade_group(
    mem: &dyn GpuMemory,
    d: &DrawState,
    f: &DrawFrag,
    t: &RasterTri,
    coefficients: &[Plane],
    face: &FaceState,
    tb: &mut TileBuffer,
    zs: &mut ZsTile,
    stages: &mut dyn Stages,
    stats: &mut RenderStats,
    batch: &[PendingQuad],
    saved: &mut Vec<u8>,
) -> Result<u64, SimError> {
    let org = tb.origin;
    let mut frags: Vec<Fragment> = Vec::with_capacity(4 * batch.len());
    for q in batch {
        for k in 0..4 {
            frags.push(Fragment {
                draw: t.draw,
                launch: f.launch,
                x: q.qx + (k as u32 & 1),
                y: q.qy + (k as u32 >> 1),
                front_facing: t.front_facing,
                sample_mask: q.work[k],
                pending_tests: if f.late_zs { q.work[k] } else { 0 },
                helper: q.work[k] == 0,
                coefficients,
            });
        }
        stats.fragments_shaded += q.work.iter().filter(|m| **m != 0).count() as u64;
    }
    // Every pixel's bytes before the program (`pixel_size` each; pixels outside the
    // tilebuffer have none).
    let pixel_size = (tb.samples * tb.sample_size) as usize;
    saved.clear();
    for fr in &frags {
        match tb.pixel(fr.x.wrapping_sub(org.0), fr.y.wrapping_sub(org.1)) {
            Some(p) => saved.extend_from_slice(p),
            None => saved.resize(saved.len() + pixel_size, 0),
        }
    }
    let results = stages.fragments(mem, &frags, tb)?;
    if results.len() != frags.len() {
        return Err(render_error(format!(
            "fragment stage returned {} results for {} fragments",
            results.len(),
            frags.len()
        )));
    }
    let mut passed = 0;
    for (i, fr) in frags.iter().enumerate() {
        let q = &batch[i / 4];
        let k = i % 4;
        let r: FragmentResult = results[i];
        let work = q.work[k];
        // Samples whose writes stay: none for helpers and discards.
        let keep = match &q.lanes[k] {
            // The program ran the tests itself at its coverage writes (`super::body`
            // "Coverage"): the tested samples update depth/stencil and count; killed
            // ones do neither. Every covered sample must be one or the other (Mesa
            // agx_nir_lower_sample_mask.c rule 2).
            Some(lane) if work != 0 && r.coverage_writes => {
                let left = lane.covered & !(r.killed | r.tested);
                if !f.late_zs || left != 0 {
                    return Err(super::unestablished(
                        f.launch,
                        "fragment program",
                        format!(
                            "pixel ({}, {}): covered samples {left:#x} neither tested \
                             nor killed by the program's coverage writes (late tests: \
                             {})",
                            fr.x, fr.y, f.late_zs
                        ),
                    ));
                }
                // A depth store's value replaces the interpolated depth of the samples
                // it tests (GravityLinux/mesa `store_zs_agx`; G13 zs_emit, inferred).
                let with_z;
                let lane = match r.depth_bits {
                    Some(bits) => {
                        let z = zs
                            .depth_of(f32::from_bits(bits))
                            .map_err(|w| super::unestablished(d.at, "depth store", w))?;
                        let mut outs = lane.outs;
                        let mut passed = 0;
                        for (s, o) in outs.iter_mut().enumerate() {
                            if let Some((zz, out)) = o {
                                let i = lane.base + s;
                                *out = test(face, z, zs.z[i], zs.s[i], d.at)?;
                                *zz = z;
                                passed |= (out.pass as u8) << s;
                            }
                        }
                        with_z = Lane {
                            base: lane.base,
                            covered: lane.covered,
                            passed,
                            outs,
                        };
                        &with_z
                    }
                    None => lane,
                };
                update(zs, lane, face, r.tested);
                lane.passed & r.tested
            }
            Some(lane) if work != 0 && !r.discard => {
                if f.late_zs {
                    update(zs, lane, face, lane.covered);
                }
                lane.passed
            }
            _ => 0,
        };
        passed += keep.count_ones() as u64;
        let (tx, ty) = (fr.x.wrapping_sub(org.0), fr.y.wrapping_sub(org.1));
        restore(
            tb,
            tx,
            ty,
            &saved[i * pixel_size..(i + 1) * pixel_size],
            keep,
        );
    }
    Ok(passed)
}

/// Puts back the bytes of every sample not in `keep`.
fn restore(tb: &mut TileBuffer, tx: u32, ty: u32, saved: &[u8], keep: u8) {
    let ss = tb.sample_size as usize;
    if let Some(px) = tb.pixel_mut(tx, ty) {
        for (k, (now, was)) in px.chunks_mut(ss).zip(saved.chunks(ss)).enumerate() {
            if keep & (1 << k) == 0 {
                now.copy_from_slice(was);
            }
        }
    }
}

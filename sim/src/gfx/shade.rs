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

use super::command::RenderCommand;
use super::raster::{covers, covers_sample};
use super::setup::RasterTri;
use super::stages::{Fragment, FragmentResult, Stages, TileBuffer};
use super::stream::DrawState;
use super::tiles::{DrawFrag, ZsTile};
use super::zs::{test, FaceState, ZsOutcome};
use super::{render_error, RenderStats};
use crate::error::SimError;
use crate::mem::GpuMemory;

/// One pixel of a quad.
struct Lane {
    /// Index of the pixel's first sample in the utile's depth/stencil arrays.
    base: usize,
    covered: u8,
    passed: u8,
    /// Per sample: depth and test outcome (covered samples only).
    outs: Vec<Option<(f32, ZsOutcome)>>,
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
    let mut covered = 0u8;
    for (k, pos) in cmd.sample_positions.iter().enumerate() {
        let hit = if ns == 1 {
            covers(t, x, y)
        } else {
            covers_sample(t, x, y, *pos)
        };
        covered |= (hit as u8) << k;
    }
    if covered == 0 {
        return Ok(None);
    }
    let (tx, ty) = (x - tb.origin.0, y - tb.origin.1);
    let base = ((ty * tb.width + tx) * ns) as usize;
    let mut outs = Vec::with_capacity(ns as usize);
    let mut passed = 0u8;
    for (k, pos) in cmd.sample_positions.iter().enumerate() {
        if covered & (1 << k) == 0 {
            outs.push(None);
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
        let i = base + k;
        let out = test(face, z, zs.z[i], zs.s[i], d.at)?;
        passed |= (out.pass as u8) << k;
        outs.push(Some((z, out)));
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

/// Rasterises one triangle over one utile; returns the samples that passed.
#[allow(clippy::too_many_arguments)]
pub(super) fn shade_prim(
    mem: &dyn GpuMemory,
    cmd: &RenderCommand,
    d: &DrawState,
    f: &DrawFrag,
    t: &RasterTri,
    tb: &mut TileBuffer,
    zs: &mut ZsTile,
    stages: &mut dyn Stages,
    stats: &mut RenderStats,
) -> Result<u64, SimError> {
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
    for qy in (y0 & !1..y1).step_by(2) {
        for qx in (x0 & !1..x1).step_by(2) {
            let mut lanes: Vec<Option<Lane>> = Vec::with_capacity(4);
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let (x, y) = (qx + dx, qy + dy);
                let inside = (x0..x1).contains(&x) && (y0..y1).contains(&y);
                lanes.push(if inside {
                    evaluate(cmd, d, f, t, &face, zs, tb, x, y)?
                } else {
                    None
                });
            }
            // Work per lane: the samples the program runs for (0 = helper).
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
            let frags: Vec<Fragment> = (0..4)
                .map(|k| Fragment {
                    draw: t.draw,
                    launch: f.launch,
                    x: qx + (k as u32 & 1),
                    y: qy + (k as u32 >> 1),
                    front_facing: t.front_facing,
                    sample_mask: work[k],
                    pending_tests: if f.late_zs { work[k] } else { 0 },
                    helper: work[k] == 0,
                    coefficients: &t.coefficients,
                })
                .collect();
            let saved: Vec<Option<Vec<u8>>> = frags
                .iter()
                .map(|fr| {
                    tb.pixel(fr.x.wrapping_sub(org.0), fr.y.wrapping_sub(org.1))
                        .map(|p| p.to_vec())
                })
                .collect();
            stats.fragments_shaded += work.iter().filter(|m| **m != 0).count() as u64;
            let results = stages.fragments(mem, &frags, tb)?;
            if results.len() != 4 {
                return Err(render_error(format!(
                    "fragment stage returned {} results for a quad of 4",
                    results.len()
                )));
            }
            for k in 0..4 {
                let r: FragmentResult = results[k];
                // Samples whose writes stay: none for helpers and discards.
                let keep = match &lanes[k] {
                    // The program ran the tests itself at its coverage writes (`super::body`
                    // "Coverage"): the tested samples update depth/stencil and count; killed
                    // ones do neither. Every covered sample must be one or the other (Mesa
                    // agx_nir_lower_sample_mask.c rule 2).
                    Some(lane) if work[k] != 0 && r.coverage_writes => {
                        let left = lane.covered & !(r.killed | r.tested);
                        if !f.late_zs || left != 0 {
                            return Err(super::unestablished(
                                f.launch,
                                "fragment program",
                                format!(
                                    "pixel ({}, {}): covered samples {left:#x} neither tested \
                                     nor killed by the program's coverage writes (late tests: \
                                     {})",
                                    frags[k].x, frags[k].y, f.late_zs
                                ),
                            ));
                        }
                        // A depth store's value replaces the interpolated depth of the samples
                        // it tests (GravityLinux/mesa `store_zs_agx`; G13 zs_emit, inferred).
                        let with_z;
                        let lane = match r.depth_bits {
                            Some(bits) => {
                                let z = f32::from_bits(bits);
                                let mut outs = lane.outs.clone();
                                let mut passed = 0;
                                for (s, o) in outs.iter_mut().enumerate() {
                                    if let Some((zz, out)) = o {
                                        let i = lane.base + s;
                                        *out = test(&face, z, zs.z[i], zs.s[i], d.at)?;
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
                        update(zs, lane, &face, r.tested);
                        lane.passed & r.tested
                    }
                    Some(lane) if work[k] != 0 && !r.discard => {
                        if f.late_zs {
                            update(zs, lane, &face, lane.covered);
                        }
                        lane.passed
                    }
                    _ => 0,
                };
                passed += keep.count_ones() as u64;
                let (tx, ty) = (
                    frags[k].x.wrapping_sub(org.0),
                    frags[k].y.wrapping_sub(org.1),
                );
                restore(tb, tx, ty, saved[k].as_deref(), keep);
            }
        }
    }
    stats.samples_passed += passed;
    Ok(passed)
}

/// Puts back the bytes of every sample not in `keep`.
fn restore(tb: &mut TileBuffer, tx: u32, ty: u32, saved: Option<&[u8]>, keep: u8) {
    let ss = tb.sample_size as usize;
    if let (Some(saved), Some(px)) = (saved, tb.pixel_mut(tx, ty)) {
        for (k, (now, was)) in px.chunks_mut(ss).zip(saved.chunks(ss)).enumerate() {
            if keep & (1 << k) == 0 {
                now.copy_from_slice(was);
            }
        }
    }
}

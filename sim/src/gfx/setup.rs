//! Per draw: vertex shading, primitive assembly, clipping, perspective divide, viewport,
//! snapping, culling, and triangle setup into raster triangles with their coefficient
//! registers. Lines and points become the triangles that cover them.
//!
//! Rules and evidence (details in sim/GFX.md):
//! - Viewport: window = translate + scale * ndc per axis, from the PPP viewport record
//!   (+0xc0; GravityLinux/mesa agx_apple9.c `apple9_build_viewport`, M4 scenes).
//! - Snapping: window x/y rounded to 1/256 pixel (the convention niklassheth/mesa's M4 scene
//!   checkers model; inferred, not measured bit-exactly).
//! - Facing: signed area in framebuffer coordinates (y down); counter-clockwise as displayed
//!   is front when the cull record's front_face_ccw is set (agx-re docs/cmdstream bit 16,
//!   validated; the sign convention is the model's, see GFX.md). Zero area is culled.
//! - Line width: the faces record's 8-bit width is (raw + 1) / 16 pixels (4:4 fixed point
//!   minus one: Mesa src/gallium/drivers/asahi/agx_state.c `agx_pack_line_width`, G13,
//!   inferred for G16).

use super::assemble::{assemble, Prim};
use super::clip::{clip_line, clip_polygon, ClipVertex, ClipVolume};
use super::coeff::{
    CfTable, CoeffPlan, DepthPlane, Geometry, Plane, PrimShape, SetupVertex, SlotMap,
};
use super::command::RenderCommand;
use super::depth_bias;
use super::indices::vertex_runs;
use super::raster::covers_any;
use super::stages::{Stages, VertexInvocation};
use super::stream::DrawState;
use super::tiles::TILE;
use super::{render_error, unestablished, RenderStats};
use crate::error::SimError;
use crate::mem::GpuMemory;
use crate::value_rules::{self, Rule};
use agx16_cmdstream::ppp::{DepthBias, ObjectType, PolygonMode, PppPage, VisibilityMode};
use agx16_cmdstream::vdm::{ProvokingVertex, USC_BASE};
use rustc_hash::FxHashMap as HashMap;

/// Most vertex invocations (count x instances) one draw may ask of the model. The hardware
/// has no such limit; it keeps a hostile stream from exhausting the host.
pub const MAX_VERTEX_WORK: u64 = 1 << 24;

/// Largest window coordinate magnitude the model rasterises (pixels); keeps the exact
/// 1/256-pixel edge products inside i64.
pub const MAX_WINDOW: f64 = (1 << 20) as f64;

/// Vertex invocations handed to the stage per call: one SIMD-group (32 lanes, the shader
/// core's width; sim README).
pub const VERTEX_BATCH: usize = 32;

/// Sub-pixel steps per pixel.
pub const SUBPIXEL: f64 = 256.0;

/// A triangle ready for rasterisation.
#[derive(Debug, Clone)]
pub struct RasterTri {
    pub draw: usize,
    /// Vertices in 1/256-pixel fixed point, ordered so the signed area is positive.
    pub v: [[i64; 2]; 3],
    pub front_facing: bool,
    /// Whether some sample of the render may lie inside: false when setup found that none
    /// does (the triangle then shades nothing, and its registers are left empty).
    pub covered: bool,
    /// Its coefficient registers in [`RasterTris`] (none when not covered).
    pub coefficients: std::ops::Range<u32>,
    /// Window depth plane (not computed when not covered).
    pub depth: DepthPlane,
    /// Pixel bounds [x0, x1) x [y0, y1), inside the framebuffer.
    pub bounds: [u32; 4],
}

/// A render's raster triangles in submission order, their coefficient registers kept
/// together in one list (a triangle's own registers would cost an allocation or a large
/// inline array each, and most triangles of a dense mesh cover no sample), the 32x32 tiles
/// any emitted triangle touches, and per tile the kept triangles that touch it.
///
/// A triangle that covers no sample of a draw without occlusion counting is not kept: in a
/// tile it would shade nothing and count nothing, and the tiles it touches are marked here.
#[derive(Debug)]
pub struct RasterTris {
    pub tris: Vec<RasterTri>,
    planes: Vec<Plane>,
    /// Per tile (row-major, `cols` a row): whether an emitted triangle touches it.
    touched: Vec<bool>,
    /// Per tile: the kept triangles whose bounds touch it, in primitive order (utiles walk
    /// their tile's list instead of every triangle of the render).
    bins: Vec<Vec<u32>>,
    cols: u32,
}

/// Whether pixel bounds `[x0, y0, x1, y1)` touch the `w` x `h` rectangle at (x, y) (the
/// test the tile walk selects tiles and utiles' triangles with).
pub fn bounds_touch(b: [u32; 4], x: u32, y: u32, w: u32, h: u32) -> bool {
    b[0] < x + w && b[2] > x && b[1] < y + h && b[3] > y
}

impl RasterTris {
    /// No triangles yet, for a `width` x `height` render.
    pub fn new(width: u32, height: u32) -> Self {
        let cols = width.div_ceil(TILE);
        let tiles = (cols * height.div_ceil(TILE)) as usize;
        RasterTris {
            tris: Vec::new(),
            planes: Vec::new(),
            touched: vec![false; tiles],
            bins: vec![Vec::new(); tiles],
            cols,
        }
    }

    /// Whether an emitted triangle touches the tile with origin (x, y) (a multiple of 32).
    pub fn tile_touched(&self, x: u32, y: u32) -> bool {
        self.touched[self.tile_index(x, y)]
    }

    /// The indices of the kept triangles touching the tile with origin (x, y) (a multiple of
    /// 32 inside the render), in primitive order.
    pub fn tile_bin(&self, x: u32, y: u32) -> &[u32] {
        &self.bins[self.tile_index(x, y)]
    }

    fn tile_index(&self, x: u32, y: u32) -> usize {
        ((y / TILE) * self.cols + x / TILE) as usize
    }

    /// The tiles pixel bounds `b` touch (row-major indices).
    fn tiles_of(&self, b: [u32; 4]) -> impl Iterator<Item = usize> + use<> {
        let cols = self.cols;
        let rows = self.touched.len() as u32 / cols.max(1);
        // Candidates around the bounds; the exact test decides (empty bounds on a tile's
        // interior still touch it).
        let (tx0, tx1) = ((b[0] / TILE).saturating_sub(1), (b[2] / TILE + 1).min(cols));
        let (ty0, ty1) = ((b[1] / TILE).saturating_sub(1), (b[3] / TILE + 1).min(rows));
        (ty0..ty1).flat_map(move |ty| {
            (tx0..tx1)
                .filter(move |&tx| bounds_touch(b, tx * TILE, ty * TILE, TILE, TILE))
                .map(move |tx| (ty * cols + tx) as usize)
        })
    }

    /// Marks the tiles an emitted triangle with pixel bounds `b` touches.
    fn touch(&mut self, b: [u32; 4]) {
        for i in self.tiles_of(b) {
            self.touched[i] = true;
        }
    }

    /// Keeps `t`, listed in the bins of the tiles it touches.
    fn push(&mut self, t: RasterTri) {
        let index = self.tris.len() as u32;
        for i in self.tiles_of(t.bounds) {
            self.bins[i].push(index);
        }
        self.tris.push(t);
    }

    /// The coefficient registers of `t` (one of these triangles).
    pub fn coefficients(&self, t: &RasterTri) -> &[Plane] {
        &self.planes[t.coefficients.start as usize..t.coefficients.end as usize]
    }
}

/// The draw-level state setup needs.
struct DrawSetup<'a> {
    page: &'a PppPage,
    cf: CfTable,
    map: SlotMap,
    /// Scalar outputs per vertex.
    outputs: usize,
    /// The CF bindings resolved for triangles, lines and points, each when first needed.
    plans: [Option<CoeffPlan>; 3],
    at: u64,
    index: usize,
    point_size_slot: Option<usize>,
    line_width: f64,
    /// What clipping keeps (the viewport's guard band).
    vol: ClipVolume,
    /// The draw's polygon offset, when its faces record enables one.
    depth_bias: Option<DepthBias>,
    /// The draw counts samples for an occlusion query (its visibility mode is not None):
    /// its triangles that cover no sample still take part (they create the query's entry).
    counts_visibility: bool,
}

/// Checks a draw's state for features the model does not establish.
fn check_page(p: &PppPage, at: u64) -> Result<(), SimError> {
    let f = &p.fragment_faces;
    let refuse = |what: &str| Err(unestablished(at, "PPP page", what.to_string()));
    if f.front_polygon_mode != PolygonMode::Fill || f.back_polygon_mode != PolygonMode::Fill {
        return refuse("polygon modes other than fill are not modelled");
    }
    let o = &p.output_select;
    if o.clip_distance_mask.0 != 0 || o.viewport_target || o.render_target || o.barycentric {
        return refuse("clip distances, viewport/layer targets and barycentrics are not modelled");
    }
    Ok(())
}

/// Shades, assembles and sets up every primitive of one draw, appending to `out`.
pub fn process_draw(
    mem: &dyn GpuMemory,
    cmd: &RenderCommand,
    index: usize,
    draw: &DrawState,
    stages: &mut dyn Stages,
    out: &mut RasterTris,
    stats: &mut RenderStats,
) -> Result<(), SimError> {
    let at = draw.at;
    let page = &draw.page;
    check_page(page, at)?;
    let launch = draw
        .state
        .vertex_word1
        .as_ref()
        .ok_or_else(|| render_error(format!("draw at {at:#x}: no vertex launch program latched")))?
        .launch;
    let outputs = draw
        .state
        .vertex_outputs
        .as_ref()
        .ok_or_else(|| render_error(format!("draw at {at:#x}: no vertex output count latched")))?
        .count_1 as usize;
    if outputs < 4 || outputs as u32 != page.output_select.output_count {
        return Err(render_error(format!(
            "draw at {at:#x}: VDM says {outputs} vertex outputs, the PPP output record {}",
            page.output_select.output_count
        )));
    }
    let point_size_slot = page.output_select.point_size.then(|| outputs - 1);
    let user_scalars = outputs - 4 - point_size_slot.map_or(0, |_| 1);
    let provoking = draw
        .state
        .vertex_unknown
        .as_ref()
        .map_or(ProvokingVertex::First, |u| u.flat_shading_control);
    if !matches!(provoking, ProvokingVertex::First | ProvokingVertex::Last) {
        // GL has first/last only; no source documents the middle-vertex ordering.
        return Err(unestablished(
            at,
            "VDM state",
            format!("provoking vertex {provoking:?}"),
        ));
    }
    let fs = &page.fragment_shader;
    let mut setup = DrawSetup {
        page,
        cf: CfTable::read(mem, fs.cf_bindings, fs.cf_binding_count)?,
        map: SlotMap {
            has_z: page.output_select.frag_coord_z,
            user_scalars,
        },
        outputs,
        plans: [None, None, None],
        at,
        index,
        point_size_slot,
        line_width: (page.fragment_faces.front_line_width as f64 + 1.0) / 16.0,
        vol: ClipVolume::guard_band(
            [page.viewport.scale_x, page.viewport.scale_y],
            [page.viewport.translate_x, page.viewport.translate_y],
            page.cull.depth_clip,
        ),
        depth_bias: match page.fragment_faces.depth_bias_enable {
            true => Some(depth_bias::read(
                mem,
                cmd.raw.isp_dbias_base.0,
                page.scissor_depth_bias.depth_bias,
            )?),
            false => None,
        },
        counts_visibility: page.fragment_faces.visibility_mode != VisibilityMode::None,
    };
    let topology = draw.index_list.header.primitive;
    let instances = draw.index_list.instances.unwrap_or(1);
    let work = draw.index_list.count.unwrap_or(0) as u64 * instances as u64;
    if work > MAX_VERTEX_WORK {
        return Err(render_error(format!(
            "draw at {at:#x}: {work} vertex invocations exceed the model's limit of {MAX_VERTEX_WORK}"
        )));
    }
    let discard = page.cull.rasterizer_discard || page.w_clamp_cull_2.rasterizer_discard;
    for run in vertex_runs(mem, draw)? {
        let prims = assemble(topology, run.len(), provoking).ok_or_else(|| {
            unestablished(
                at,
                "VDM index list",
                format!("primitive {topology:?} is not modelled"),
            )
        })?;
        // Distinct vertex ids in first-use order (shaded in SIMD-group-sized batches) and,
        // per run position, its id's index among them: the same for every instance.
        let (ids, pos) = distinct_ids(&run);
        // The primitives over those distinct vertices.
        let prims: Vec<Prim> = prims
            .iter()
            .map(|p| match *p {
                Prim::Point(i) => Prim::Point(pos[i]),
                Prim::Line(l) => Prim::Line(l.map(|i| pos[i])),
                Prim::Triangle(t) => Prim::Triangle(t.map(|i| pos[i])),
            })
            .collect();
        for instance in 0..instances {
            let mut shaded: Vec<ClipVertex> = Vec::with_capacity(ids.len());
            for batch in ids.chunks(VERTEX_BATCH) {
                let invs: Vec<VertexInvocation> = batch
                    .iter()
                    .map(|&id| VertexInvocation {
                        draw: index,
                        launch: USC_BASE | launch,
                        vertex_id: id,
                        instance_id: instance,
                        outputs,
                    })
                    .collect();
                let results = stages.vertices(mem, &invs)?;
                if results.len() != invs.len() {
                    return Err(render_error(format!(
                        "draw at {at:#x}: vertex stage returned {} results for {} vertices",
                        results.len(),
                        invs.len()
                    )));
                }
                for o in results {
                    if o.len() != outputs {
                        return Err(render_error(format!(
                            "draw at {at:#x}: vertex stage produced {} outputs, {outputs} declared",
                            o.len()
                        )));
                    }
                    stats.vertices_shaded += 1;
                    let mut v = ClipVertex { out: o };
                    apply_w_clamp(cmd, page, &mut v);
                    shaded.push(v);
                }
            }
            stats.primitives += prims.len() as u64;
            if discard {
                continue;
            }
            let prepared: Vec<Prepared> = shaded
                .iter()
                .map(|v| Prepared::of(page, &setup.vol, v))
                .collect();
            out.tris.reserve(prims.len());
            for p in &prims {
                setup_prim(cmd, &mut setup, p, &prepared, out, stats)?;
            }
        }
    }
    Ok(())
}

/// The distinct ids of `run` in first-use order, and for each position of `run` the index
/// of its id among them. Ids within a few times the run's length of each other (every
/// direct draw, most indexed ones) are looked up in a table, others in a hash map.
fn distinct_ids(run: &[u32]) -> (Vec<u32>, Vec<usize>) {
    let mut ids = Vec::new();
    let mut pos = Vec::with_capacity(run.len());
    let (Some(&lo), Some(&hi)) = (run.iter().min(), run.iter().max()) else {
        return (ids, pos);
    };
    let span = (hi - lo) as usize + 1;
    if span <= 4 * run.len() + 64 {
        let mut table = vec![usize::MAX; span];
        for &id in run {
            let t = &mut table[(id - lo) as usize];
            if *t == usize::MAX {
                ids.push(id);
                *t = ids.len() - 1;
            }
            pos.push(*t);
        }
    } else {
        let mut slot: HashMap<u32, usize> = HashMap::default();
        for &id in run {
            let k = *slot.entry(id).or_insert_with(|| {
                ids.push(id);
                ids.len() - 1
            });
            pos.push(k);
        }
    }
    (ids, pos)
}

/// W clamp: w = max(w, w_clamp) when both ppp_ctrl and the PPP record enable it (G13
/// genxml field names; inferred semantics).
fn apply_w_clamp(cmd: &RenderCommand, page: &PppPage, v: &mut ClipVertex) {
    let r = &page.w_clamp_cull_2;
    if cmd.ppp_ctrl.enable_w_clamp && r.clamp_w && v.out[3] < r.w_clamp {
        v.out[3] = r.w_clamp;
    }
}

/// A shaded vertex as every primitive using it sees it (computed once per vertex, not once
/// per primitive).
struct Prepared<'a> {
    clip: &'a ClipVertex,
    /// Every clip-space position component is finite.
    finite: bool,
    /// Inside the clip volume.
    inside: bool,
    /// Its window position (for the primitives drawn unclipped).
    window: SetupVertex<'a>,
}

impl<'a> Prepared<'a> {
    fn of(page: &PppPage, vol: &ClipVolume, v: &'a ClipVertex) -> Self {
        Prepared {
            clip: v,
            finite: v.pos().iter().all(|c| c.is_finite()),
            inside: vol.inside(v),
            window: to_window(page, v),
        }
    }
}

/// `x` rounded to the nearest 1/256 pixel (halfway away from zero).
fn snap(x: f64) -> f64 {
    round(x * SUBPIXEL) / SUBPIXEL
}

/// `f64::round` (halfway cases away from zero), without the library call it makes on
/// targets without a rounding instruction: the same value for every input, signed zeros and
/// NaN included (`round_matches_std` checks).
fn round(x: f64) -> f64 {
    // 2^52: from here on every f64 is an integer (and NaN and infinities fail the test).
    if x.is_nan() || x.abs() >= 4_503_599_627_370_496.0 {
        return x;
    }
    let t = x as i64 as f64; // truncated: exact below 2^52
    let frac = x - t; // exact
    let r = if frac >= 0.5 {
        t + 1.0
    } else if frac <= -0.5 {
        t - 1.0
    } else {
        t
    };
    r.copysign(x)
}

fn to_window<'a>(page: &PppPage, v: &'a ClipVertex) -> SetupVertex<'a> {
    let vp = &page.viewport;
    let [x, y, z, w] = v.pos().map(|c| c as f64);
    let inv_w = 1.0 / w;
    SetupVertex {
        x: snap(vp.translate_x as f64 + vp.scale_x as f64 * x * inv_w),
        y: snap(vp.translate_y as f64 + vp.scale_y as f64 * y * inv_w),
        z: vp.translate_z as f64 + vp.scale_z as f64 * z * inv_w,
        inv_w,
        out: &v.out,
    }
}

fn setup_prim(
    cmd: &RenderCommand,
    s: &mut DrawSetup,
    p: &Prim,
    verts: &[Prepared],
    out: &mut RasterTris,
    stats: &mut RenderStats,
) -> Result<(), SimError> {
    let vol = s.vol;
    // A NaN or infinite clip-space position: the primitive is culled (value_rules
    // NonFinitePosition, inferred; GL leaves such positions undefined).
    let idx: &[usize] = match p {
        Prim::Point(i) => std::slice::from_ref(i),
        Prim::Line(i) => i,
        Prim::Triangle(i) => i,
    };
    if idx.iter().any(|&i| !verts[i].finite) {
        value_rules::apply(Rule::NonFinitePosition, 1, None)
            .map_err(|w| unestablished(s.at, "vertex output", w))?;
        stats.primitives_culled += 1;
        return Ok(());
    }
    match *p {
        Prim::Triangle(idx) => {
            let tri = idx.map(|i| &verts[i]);
            let flat = tri.map(|v| v.window);
            if tri.iter().all(|v| v.inside) {
                // Unclipped: the raster triangle is the primitive's own window vertices.
                if !emit(cmd, s, &flat, &flat, PrimShape::Triangle, out)? {
                    stats.primitives_culled += 1;
                }
                return Ok(());
            }
            stats.primitives_clipped += 1;
            let poly = clip_polygon(tri.map(|v| v.clip.clone()).to_vec(), &vol);
            if poly.len() < 3 {
                stats.primitives_culled += 1;
                return Ok(());
            }
            let w: Vec<SetupVertex> = poly.iter().map(|v| to_window(s.page, v)).collect();
            for k in 1..w.len() - 1 {
                let t = [w[0], w[k], w[k + 1]];
                if !emit(cmd, s, &t, &flat, PrimShape::Triangle, out)? {
                    stats.primitives_culled += 1;
                }
            }
        }
        Prim::Line([a, b]) => {
            let Some([a, b]) = clip_line(verts[a].clip, verts[b].clip, &vol) else {
                stats.primitives_culled += 1;
                return Ok(());
            };
            let (wa, wb) = (to_window(s.page, &a), to_window(s.page, &b));
            let flat = [wa, wb, wb];
            let (dx, dy) = (wb.x - wa.x, wb.y - wa.y);
            let h = s.line_width / 2.0;
            // Offset across the minor axis (GL "aliased wide line" parallelogram).
            let (ox, oy) = if dx.abs() >= dy.abs() {
                (0.0, h)
            } else {
                (h, 0.0)
            };
            fn shift<'a>(
                mut v: SetupVertex<'a>,
                sign: f64,
                (ox, oy): (f64, f64),
            ) -> SetupVertex<'a> {
                v.x = snap(v.x + sign * ox);
                v.y = snap(v.y + sign * oy);
                v
            }
            let q = [
                shift(wa, -1.0, (ox, oy)),
                shift(wa, 1.0, (ox, oy)),
                shift(wb, 1.0, (ox, oy)),
                shift(wb, -1.0, (ox, oy)),
            ];
            emit(cmd, s, &[q[0], q[1], q[2]], &flat, PrimShape::Line, out)?;
            emit(cmd, s, &[q[0], q[2], q[3]], &flat, PrimShape::Line, out)?;
        }
        Prim::Point(i) => {
            let v = &verts[i];
            if !v.inside {
                stats.primitives_culled += 1;
                return Ok(());
            }
            let size = s.point_size_slot.map_or(1.0, |k| v.clip.out[k] as f64);
            let c = v.window;
            let h = size / 2.0;
            let corner = |sx: f64, sy: f64| {
                let mut q = c;
                q.x = snap(c.x + sx * h);
                q.y = snap(c.y + sy * h);
                q
            };
            let q = [
                corner(-1.0, -1.0),
                corner(1.0, -1.0),
                corner(1.0, 1.0),
                corner(-1.0, 1.0),
            ];
            let flat = [c, c, c];
            let t_up = match s.page.fragment_control_2.front_object_type {
                ObjectType::PointSpriteUv01 => Some(false),
                ObjectType::PointSpriteUv10 => Some(true),
                _ => None,
            };
            let shape = PrimShape::Point {
                left: q[0].x,
                top: q[0].y,
                size: q[2].x - q[0].x,
                t_up,
            };
            emit(cmd, s, &[q[0], q[1], q[2]], &flat, shape, out)?;
            emit(cmd, s, &[q[0], q[2], q[3]], &flat, shape, out)?;
        }
    }
    Ok(())
}

/// Triangles whose bounds span at most this many pixels are checked for covering a sample
/// at setup (larger ones nearly always do, and are built without looking).
const COVERAGE_CHECK_PIXELS: u64 = 16;

/// Culls or emits one raster triangle; false when culled.
fn emit(
    cmd: &RenderCommand,
    s: &mut DrawSetup,
    t: &[SetupVertex<'_>; 3],
    flat: &[SetupVertex<'_>; 3],
    shape: PrimShape,
    out: &mut RasterTris,
) -> Result<bool, SimError> {
    let is_triangle = shape == PrimShape::Triangle;
    // Clipping keeps window coordinates near the viewport; a hostile viewport scale or a
    // non-finite output could still push them past what exact i64 edge products hold.
    if t.iter()
        .any(|p| !(p.x.abs() <= MAX_WINDOW && p.y.abs() <= MAX_WINDOW))
    {
        return Err(unestablished(
            s.at,
            "PPP viewport",
            format!(
                "window position ({}, {}) outside the model's +-{MAX_WINDOW} pixel range",
                t[0].x, t[0].y
            ),
        ));
    }
    let fx = |v: &SetupVertex| [(v.x * SUBPIXEL) as i64, (v.y * SUBPIXEL) as i64];
    let mut v = [fx(&t[0]), fx(&t[1]), fx(&t[2])];
    let area =
        (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[2][0] - v[0][0]) * (v[1][1] - v[0][1]);
    if area == 0 {
        return Ok(false);
    }
    let cull = &s.page.cull;
    let front = if is_triangle {
        // y points down: a negative area is counter-clockwise as displayed.
        (area < 0) == cull.front_face_ccw
    } else {
        true
    };
    if is_triangle && ((front && cull.cull_front) || (!front && cull.cull_back)) {
        return Ok(false);
    }
    if area < 0 {
        v.swap(1, 2);
    }
    let kind = match shape {
        PrimShape::Triangle => 0,
        PrimShape::Line => 1,
        PrimShape::Point { .. } => 2,
    };
    let plan = match &mut s.plans[kind] {
        Some(plan) => plan,
        empty => empty.insert(CoeffPlan::new(&s.cf, s.at, s.map, s.outputs, shape)?),
    };
    let min = |k: usize| v.iter().map(|p| p[k]).min().unwrap_or(0);
    let max = |k: usize| v.iter().map(|p| p[k]).max().unwrap_or(0);
    let lim = |c: i64, hi: u32| (c.div_euclid(256)).clamp(0, hi as i64) as u32;
    let bounds = [
        lim(min(0), cmd.width),
        lim(min(1), cmd.height),
        lim(max(0) + 256, cmd.width),
        lim(max(1) + 256, cmd.height),
    ];
    let mut tri = RasterTri {
        draw: s.index,
        v,
        front_facing: front,
        covered: true,
        coefficients: 0..0,
        depth: DepthPlane::default(),
        bounds,
    };
    let [x0, y0, x1, y1] = bounds;
    if (x1 - x0) as u64 * (y1 - y0) as u64 <= COVERAGE_CHECK_PIXELS {
        tri.covered = covers_any(&tri, cmd.samples, &cmd.sample_positions);
    }
    out.touch(bounds);
    // GLES offsets filled polygons only; lines and points drawn as triangles keep their depth.
    let bias = s.depth_bias.as_ref().filter(|_| is_triangle);
    if !tri.covered && bias.is_none() {
        // Nothing of it is shaded: no depth plane or registers to build.
        if s.counts_visibility {
            out.push(tri);
        }
        return Ok(true);
    }
    let g = Geometry::of(t.each_ref().map(|p| (p.x, p.y)));
    tri.depth = DepthPlane::of(&g, t.each_ref().map(|p| p.z));
    if let Some(b) = bias {
        let z = [t[0].z, t[1].z, t[2].z];
        tri.depth.z0 += depth_bias::bias(b, &tri.depth, z, cmd.zls.z_format)
            .map_err(|w| unestablished(s.at, "depth bias", w))?;
    }
    if tri.covered {
        let (start, end) = (out.planes.len(), out.planes.len() + plan.registers());
        let index = |i: usize| {
            u32::try_from(i)
                .map_err(|_| render_error("over 2^32 coefficient registers in a render"))
        };
        tri.coefficients = index(start)?..index(end)?;
        out.planes.resize(end, Plane::default());
        plan.build(&mut out.planes[start..], t, &g, flat, shape);
    }
    if tri.covered || s.counts_visibility {
        out.push(tri);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::{bounds_touch, distinct_ids, round, RasterTris, TILE};

    /// The tile map marks exactly the tiles the tile walk's own test selects, empty bounds
    /// (a triangle clamped onto the framebuffer's edge) included.
    #[test]
    fn touched_tiles_are_those_the_walk_selects() {
        let (w, h) = (100, 70);
        let mut seed = 0x9e37_79b9u32;
        let mut next = |m: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed % m
        };
        for _ in 0..2000 {
            let (x0, y0) = (next(w + 1), next(h + 1));
            let b = [x0, y0, (x0 + next(40)).min(w), (y0 + next(40)).min(h)];
            let mut map = RasterTris::new(w, h);
            map.touch(b);
            for ty in 0..h.div_ceil(TILE) {
                for tx in 0..w.div_ceil(TILE) {
                    let (x, y) = (tx * TILE, ty * TILE);
                    assert_eq!(
                        map.tile_touched(x, y),
                        bounds_touch(b, x, y, TILE, TILE),
                        "{b:?} tile ({x}, {y})"
                    );
                }
            }
        }
    }

    #[test]
    fn round_matches_std() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            0.49999999999999994,
            -0.49999999999999994,
            4503599627370495.5,
            -4503599627370495.5,
            4503599627370496.0,
            9007199254740993.0,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        // Halfway points, their neighbours and scattered values across the exponent range.
        let mut bits = 0x9e37_79b9_7f4a_7c15u64;
        for k in -2000i64..2000 {
            let h = k as f64 + 0.5;
            xs.extend([
                h,
                f64::from_bits(h.to_bits() + 1),
                f64::from_bits(h.to_bits() - 1),
            ]);
            bits ^= bits << 13;
            bits ^= bits >> 7;
            bits ^= bits << 17;
            xs.push(f64::from_bits(bits));
            xs.push(f64::from_bits(bits >> 2 | 0x3ff0_0000_0000_0000) * k as f64 * 256.0);
        }
        for x in xs {
            assert_eq!(
                round(x).to_bits(),
                x.round().to_bits(),
                "{x:e} ({:#x})",
                x.to_bits()
            );
        }
    }

    /// First-use order and positions, as a linear search computes them.
    fn naive(run: &[u32]) -> (Vec<u32>, Vec<usize>) {
        let mut ids: Vec<u32> = Vec::new();
        let pos = run
            .iter()
            .map(|id| match ids.iter().position(|x| x == id) {
                Some(k) => k,
                None => {
                    ids.push(*id);
                    ids.len() - 1
                }
            })
            .collect();
        (ids, pos)
    }

    #[test]
    fn distinct_ids_keep_first_use_order_on_both_paths() {
        let runs: [&[u32]; 5] = [
            &[],
            &[5, 6, 7, 7, 6, 8],           // table
            &[3, 1, 2, 3, 0xffff_fff0, 1], // hash map (wide span)
            &[u32::MAX, 0, u32::MAX],      // hash map, extreme ids
            &[9, 9, 9],
        ];
        for run in runs {
            assert_eq!(distinct_ids(run), naive(run), "{run:?}");
        }
    }
}

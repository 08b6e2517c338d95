//! The fixed-function render model of the M4 (G16): what one `drm_asahi_cmd_render` does.
//!
//! Pipeline, in the order the hardware runs it (see `sim/GFX.md` for every rule and its
//! evidence):
//! 1. [`stream`]: walk the VDM control stream (agx16-cmdstream's walker and unpack) into
//!    draws with their latched vertex state and PPP page.
//! 2. [`indices`]: expand each draw's index list (direct, u8/u16/u32, primitive restart).
//! 3. [`stages::Stages::vertex`]: shade each referenced vertex once per instance.
//! 4. [`assemble`], [`clip`], [`setup`]: primitives, homogeneous clipping, perspective
//!    divide, viewport, 1/256-pixel snapping, culling and winding.
//! 5. [`tiles`]: per 32x32 tile (split into utiles): background program, depth/stencil load
//!    or clear, rasterisation ([`raster`]), coefficient registers ([`coeff`]), depth/stencil
//!    ([`zs`]), fragment program, occlusion counts, end-of-tile program, depth/stencil store.
//!
//! Shader stages are behind [`stages::Stages`]: [`stages::IsaStages`] is the strict
//! hardware path (launchers run as setup invocations; vertex and fragment bodies run on the
//! shader core through [`body`], background and end-of-tile bodies through
//! [`tile_programs`]; graphics IO forms not established are errors), tests supply host
//! stages.

pub mod assemble;
pub mod body;
pub mod clip;
pub mod coeff;
pub mod command;
pub mod depth_bias;
pub mod indices;
pub mod launcher;
pub mod memory;
pub mod quad;
pub mod raster;
pub mod setup;
pub mod shade;
pub mod stages;
pub mod stream;
pub mod texel;
pub mod texture;
pub mod tile_programs;
pub mod tiles;
mod vertex_memo;
pub mod watchdog;
pub mod zs;

pub use command::RenderCommand;
pub use stages::{Fragment, FragmentResult, IsaStages, Stages, TileBuffer, VertexInvocation};

use crate::error::SimError;
use crate::mem::GpuMemory;

/// What a render did (counts over the whole command).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderStats {
    pub draws: u64,
    /// Vertex-stage invocations (one per distinct vertex id and instance of a draw).
    pub vertices_shaded: u64,
    /// Primitives assembled from the index lists.
    pub primitives: u64,
    /// Primitives dropped by culling (face or zero area) or lying wholly outside the clip volume.
    pub primitives_culled: u64,
    /// Primitives that needed clipping against a clip-volume plane.
    pub primitives_clipped: u64,
    /// Utile passes run (background + end-of-tile pairs).
    pub utiles: u64,
    /// Pixel samples covered by a primitive (after scissor).
    pub fragments_rasterized: u64,
    /// Fragment-stage invocations.
    pub fragments_shaded: u64,
    /// Samples that passed depth/stencil and were not discarded.
    pub samples_passed: u64,
}

/// Runs one render command on the model with the hardware (ISA) shader stages.
pub fn run_render(mem: &dyn GpuMemory, cmd: &RenderCommand) -> Result<RenderStats, SimError> {
    run_render_with(mem, cmd, &mut IsaStages::default())
}

/// Runs one render command with the given shader stages.
pub fn run_render_with(
    mem: &dyn GpuMemory,
    cmd: &RenderCommand,
    stages: &mut dyn Stages,
) -> Result<RenderStats, SimError> {
    run_render_cancellable(mem, cmd, stages, &|| false)
}

/// Like [`run_render_with`], polling `cancelled` between draws and between tiles (the
/// kernel's job timeout); a cancelled render returns [`SimError::Budget`].
pub fn run_render_cancellable(
    mem: &dyn GpuMemory,
    cmd: &RenderCommand,
    stages: &mut dyn Stages,
    cancelled: &dyn Fn() -> bool,
) -> Result<RenderStats, SimError> {
    watchdog::with_cancel(cancelled, || run_render_serial(mem, cmd, stages, cancelled))
}

fn run_render_serial(
    mem: &dyn GpuMemory,
    cmd: &RenderCommand,
    stages: &mut dyn Stages,
    cancelled: &dyn Fn() -> bool,
) -> Result<RenderStats, SimError> {
    let mut stats = RenderStats::default();
    let draws = stream::read_draws(mem, cmd)?;
    let mut prims = setup::RasterTris::new(cmd.width, cmd.height);
    for (index, draw) in draws.iter().enumerate() {
        if cancelled() {
            return Err(cancel_error(&stats));
        }
        stats.draws += 1;
        setup::process_draw(mem, cmd, index, draw, stages, &mut prims, &mut stats)?;
    }
    tiles::render_tiles(mem, cmd, &draws, &prims, stages, &mut stats, cancelled)?;
    Ok(stats)
}

/// Host threads the model renders with: `AGX16_SIM_THREADS` (1 = serial), else the host's
/// available parallelism. Read once per process.
pub fn render_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        std::env::var("AGX16_SIM_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n >= 1)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    })
}

/// The worker pool of `threads` threads (one per count, kept for the process: the per-thread
/// decode caches stay warm from render to render).
fn pool(threads: usize) -> Result<&'static rayon::ThreadPool, SimError> {
    use std::sync::{Mutex, OnceLock};
    static POOLS: OnceLock<Mutex<Vec<(usize, &'static rayon::ThreadPool)>>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(p);
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("agx16-sim-{i}"))
        .build()
        .map_err(|e| render_error(format!("worker pool of {threads} threads: {e}")))?;
    let p: &'static rayon::ThreadPool = Box::leak(Box::new(p));
    pools.push((threads, p));
    Ok(p)
}

/// Runs one render command on the model with the hardware (ISA) stages, its tiles spread
/// over [`render_threads`] host threads (the M4's cores run tiles independently). The result
/// is the serial one bit for bit: every tile reads only the render's inputs and writes only
/// its own pixels, depth/stencil and tilebuffer, counts and occlusion sums are added in tile
/// order, and the first failing tile in the serial order is the error. A render whose
/// fragment programs store to device memory (tiles could write the same bytes) runs
/// serially.
pub fn run_render_isa_parallel(
    mem: &(dyn GpuMemory + Sync),
    cmd: &RenderCommand,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<RenderStats, SimError> {
    let isa = || Box::new(IsaStages::default()) as Box<dyn Stages>;
    run_render_parallel(mem, cmd, &isa, cancelled, render_threads())
}

/// Stage sets for a render's threads: each call gives a fresh one (for the draws, and one
/// per worker's share of the tiles).
pub type StagesFactory<'a> = dyn Fn() -> Box<dyn Stages> + Sync + 'a;

/// [`run_render_isa_parallel`] with any stages (`make` gives each thread its own) and
/// `threads` host threads (1 = the serial order itself). Tiles run in parallel only when
/// [`Stages::fragment_may_store`] says no fragment program of the render stores to memory.
pub fn run_render_parallel(
    mem: &(dyn GpuMemory + Sync),
    cmd: &RenderCommand,
    make: &StagesFactory,
    cancelled: &(dyn Fn() -> bool + Sync),
    threads: usize,
) -> Result<RenderStats, SimError> {
    watchdog::with_cancel(cancelled, || {
        run_render_threads(mem, cmd, make, cancelled, threads)
    })
}

fn run_render_threads(
    mem: &(dyn GpuMemory + Sync),
    cmd: &RenderCommand,
    make: &StagesFactory,
    cancelled: &(dyn Fn() -> bool + Sync),
    threads: usize,
) -> Result<RenderStats, SimError> {
    use rayon::prelude::*;
    let mut stages = make();
    let stages = &mut *stages;
    let mut stats = RenderStats::default();
    let draws = stream::read_draws(mem, cmd)?;
    let mut prims = setup::RasterTris::new(cmd.width, cmd.height);
    for (index, draw) in draws.iter().enumerate() {
        if cancelled() {
            return Err(cancel_error(&stats));
        }
        stats.draws += 1;
        setup::process_draw(mem, cmd, index, draw, stages, &mut prims, &mut stats)?;
    }
    let job = tiles::TileJob::new(mem, cmd, &draws, &prims)?;
    let list = job.tiles();
    let parallel = threads > 1
        && list.len() > 1
        && !job
            .fragment_launchers()
            .into_iter()
            .any(|l| stages.fragment_may_store(mem, l));
    let mut occlusion = tiles::Occlusion::new();
    if !parallel {
        for tile in list {
            if cancelled() {
                return Err(cancel_error(&stats));
            }
            job.run_tile(mem, tile, stages, &mut stats, &mut occlusion)?;
        }
        job.finish(mem, &occlusion)?;
        return Ok(stats);
    }
    let draws_done = stats.draws;
    let results: Vec<_> = pool(threads)?.install(|| {
        list.par_iter()
            .map_init(make, |st, &tile| {
                let mut s = RenderStats::default();
                let mut o = tiles::Occlusion::new();
                let r = if cancelled() {
                    Err(SimError::Budget {
                        budget: draws_done,
                        pc: 0,
                    })
                } else {
                    watchdog::with_cancel(cancelled, || {
                        job.run_tile(mem, tile, &mut **st, &mut s, &mut o)
                    })
                };
                (r, s, o)
            })
            .collect()
    });
    for (r, s, o) in results {
        r?;
        stats.add_tile(&s);
        for (index, (mode, n)) in o {
            occlusion.entry(index).or_insert((mode, 0)).1 += n;
        }
    }
    job.finish(mem, &occlusion)?;
    Ok(stats)
}

impl RenderStats {
    /// Adds the counts of one tile's run.
    fn add_tile(&mut self, t: &RenderStats) {
        self.draws += t.draws;
        self.vertices_shaded += t.vertices_shaded;
        self.primitives += t.primitives;
        self.primitives_culled += t.primitives_culled;
        self.primitives_clipped += t.primitives_clipped;
        self.utiles += t.utiles;
        self.fragments_rasterized += t.fragments_rasterized;
        self.fragments_shaded += t.fragments_shaded;
        self.samples_passed += t.samples_passed;
    }
}

/// The error a cancelled render returns (budget = draws processed so far).
pub(crate) fn cancel_error(stats: &RenderStats) -> SimError {
    SimError::Budget {
        budget: stats.draws,
        pc: 0,
    }
}

/// A render-level error (stream, state or command) as a model error value.
pub(crate) fn render_error(what: impl Into<String>) -> SimError {
    SimError::Launch(format!("render: {}", what.into()))
}

/// Something a stream asks for whose behaviour the model does not establish.
pub(crate) fn unestablished(at: u64, record: &str, what: impl Into<String>) -> SimError {
    SimError::Unestablished {
        // Stream addresses are 42-bit; the pc field keeps the low 32 bits, `what` the full VA.
        pc: at as u32,
        bytes: String::new(),
        form: record.to_string(),
        what: format!("{} (at {at:#x})", what.into()),
    }
}

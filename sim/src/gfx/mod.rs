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
    let mut stats = RenderStats::default();
    let draws = stream::read_draws(mem, cmd)?;
    let mut prims = Vec::new();
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

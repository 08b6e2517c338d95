//! The fragment half of a render: 32x32 tiles, each run as utiles of the command's utile
//! size (the tilebuffer holds one utile: sample_size bytes per pixel; GravityLinux/linux
//! g16_render.rs tilebuffer blocks = sample_size * utile area * samples / 2048, inferred
//! that a 32x32 tile with a smaller utile is processed utile by utile).
//!
//! Per utile, in order: background program (`bg_usc`, optional), depth/stencil load (ZLS
//! control load bits) or clear (`isp_bgobjdepth`, `isp_bgobjvals` stencil bits 7:0), every
//! primitive touching the utile in submission order (coverage, scissor and region clip,
//! depth/stencil, fragment program, occlusion counting), end-of-tile program (`eot_usc`),
//! depth/stencil store. Without PROCESS_EMPTY_TILES, tiles no primitive touches are skipped
//! (UAPI flag name; Mesa sets it for clears; inferred).

use super::command::RenderCommand;
use super::setup::{bounds_touch, RasterTris};
use super::stages::{Stages, TileBuffer};
use super::stream::DrawState;
use super::{render_error, unestablished, RenderStats};
use crate::error::SimError;
use crate::mem::GpuMemory;
use agx16_cmdstream::layout::PlaneLayout;
use agx16_cmdstream::ppp::{PassType, Scissor, VisibilityMode};
use agx16_cmdstream::render::{ZlsFormat, RENDER_PROCESS_EMPTY_TILES};
use agx16_cmdstream::vdm::USC_BASE;
use agx16_cmdstream::Record;
use std::collections::BTreeMap;

/// Hardware tile edge in pixels (ADevWithAnIdea/agx-re docs/pipeline: fixed 32x32,
/// measured on G17P; m4-deltas: same on M4; G16 kernel tile counts ceil(W/32)).
pub const TILE: u32 = 32;

/// Per-draw state the fragment half needs, decoded once.
pub(super) struct DrawFrag {
    pub launch: u64,
    pub late_zs: bool,
    pub scissor: Option<Scissor>,
    pub region: Option<[u32; 4]>,
    pub depth_clamp: bool,
    pub visibility: VisibilityMode,
    pub occlusion_index: u16,
}

fn draw_frag(
    mem: &dyn GpuMemory,
    cmd: &RenderCommand,
    d: &DrawState,
) -> Result<DrawFrag, SimError> {
    let p = &d.page;
    let late_zs = match p.fragment_control_2.pass_type {
        PassType::Opaque | PassType::Translucent => false,
        PassType::PunchThrough | PassType::TranslucentPunchThrough => true,
        PassType::Unknown(v) => {
            return Err(unestablished(
                d.at,
                "PPP fragment control 2",
                format!("pass type {v}"),
            ))
        }
    };
    let scissor = if p.fragment_faces.scissor_enable {
        let va = cmd.raw.isp_scissor_base.0 + 16 * p.scissor_depth_bias.scissor as u64;
        let mut b = [0u8; 16];
        mem.read(va, &mut b)?;
        Some(Scissor::unpack(&b).map_err(|e| render_error(format!("scissor at {va:#x}: {e}")))?)
    } else {
        None
    };
    let v = &p.viewport;
    let region = v.clip_enable.then(|| {
        [
            v.clip_min_x as u32 * TILE,
            v.clip_min_y as u32 * TILE,
            v.clip_max_x as u32 * TILE,
            v.clip_max_y as u32 * TILE,
        ]
    });
    let visibility = p.fragment_faces.visibility_mode;
    if let VisibilityMode::Unknown(m) = visibility {
        return Err(unestablished(
            d.at,
            "PPP fragment faces",
            format!("visibility mode {m}"),
        ));
    }
    Ok(DrawFrag {
        launch: USC_BASE | p.fragment_shader.launch,
        late_zs,
        scissor,
        region,
        depth_clamp: p.cull.depth_clamp,
        visibility,
        occlusion_index: p.fragment_faces.occlusion_index,
    })
}

/// Depth and stencil of one utile.
pub(super) struct ZsTile {
    pub z: Vec<f32>,
    pub s: Vec<u8>,
    /// The render's depth plane is 16-bit unorm.
    pub unorm16: bool,
}

impl ZsTile {
    /// A fragment's depth as the depth plane holds it: a 16-bit unorm plane's depth tests and
    /// stores the fixed-point value (GL ES 3.0 §2.13.1: window z is converted to the depth
    /// buffer's fixed-point representation; Z32F keeps the float). The tile keeps that value,
    /// so a depth stored and loaded again between renders compares as it did within one
    /// (dEQP-GLES3 fbo.blit.depth_stencil.depth_component16_scale draws at the depth an earlier
    /// render stored and expects LESS to fail). The M4's own Z16 arithmetic is not measured; the
    /// M4 driver passes that case on M4 (GravityLinux/mesa README.apple9-es3.md), inferred.
    /// Value rule `depth_unorm16` (counted per fragment).
    pub fn depth_of(&self, z: f32) -> Result<f32, String> {
        if self.unorm16 {
            crate::value_rules::apply(crate::value_rules::Rule::DepthUnorm16, 1, None)?;
            Ok((z.clamp(0.0, 1.0) * 65535.0).round() / 65535.0)
        } else {
            Ok(z)
        }
    }
}

/// Depth and stencil planes: with N samples a pixel's samples are contiguous and the tiling's
/// element is all of them (`PlaneLayout::twiddled(w, h, bytes * N)`, sample s at + s * bytes):
/// Mesa's layout (src/asahi/layout/layout.c `ail_get_block_size_B`: block = format bytes x
/// sample count; G13), which the T8132 driver keeps for its multisampled depth/stencil (its
/// depth/stencil multisampling cases pass on M4, README.apple9-es3.md). Inferred for ZLS.
fn zs_layouts(cmd: &RenderCommand) -> (PlaneLayout, PlaneLayout, u32) {
    let (w, h) = (cmd.zls_pixels.x as u32, cmd.zls_pixels.y as u32);
    let zb = if cmd.zls.z_format == ZlsFormat::Unorm16 {
        2
    } else {
        4
    };
    let ns = cmd.samples;
    (
        PlaneLayout::twiddled(w, h, zb * ns),
        PlaneLayout::twiddled(w, h, ns),
        zb,
    )
}

fn check_zls(cmd: &RenderCommand) -> Result<(), SimError> {
    let z = &cmd.zls;
    let bad = |w: &str| Err(render_error(format!("zls_ctrl: {w}")));
    if z.z_load_compress || z.s_load_compress || z.z_store_compress || z.s_store_compress {
        return bad("compressed depth/stencil is not modelled");
    }
    // Only the twiddled (GPU-tiled) arrangement has an established layout for ZLS.
    if (z.z_load && !z.z_load_twiddled)
        || (z.z_store && !z.z_store_twiddled)
        || (z.s_load && !z.s_load_twiddled)
        || (z.s_store && !z.s_store_twiddled)
    {
        return bad("linear depth/stencil surfaces have no established row pitch");
    }
    if z.z_resolve || z.s_resolve || z.unknown_0 {
        return bad("resolve and bit 0 are not modelled");
    }
    Ok(())
}

fn zs_load(
    mem: &dyn GpuMemory,
    cmd: &RenderCommand,
    org: (u32, u32),
    w: u32,
    h: u32,
) -> Result<ZsTile, SimError> {
    // Z16 clears are unorm16, others f32 bits (Mesa src/asahi/vulkan/hk_cmd_draw.c; G13,
    // inferred for G16).
    let clear_z = match cmd.zls.z_format {
        ZlsFormat::Unorm16 => (cmd.raw.isp_bgobjdepth.0 as u32 & 0xffff) as f32 / 65535.0,
        _ => f32::from_bits(cmd.raw.isp_bgobjdepth.0 as u32),
    };
    // Per sample, a pixel's samples together (`super::shade` indexes pixel * N + sample).
    let ns = cmd.samples;
    let n = (w * h * ns) as usize;
    let mut t = ZsTile {
        z: vec![clear_z; n],
        s: vec![cmd.bg_vals.stencil_clear; n],
        unorm16: cmd.zls.z_format == ZlsFormat::Unorm16,
    };
    let (zl, sl, zb) = zs_layouts(cmd);
    for y in 0..h {
        for x in 0..w {
            let (px, py) = (org.0 + x, org.1 + y);
            if px >= zl.width || py >= zl.height {
                continue;
            }
            for smp in 0..ns {
                let i = ((y * w + x) * ns + smp) as usize;
                if cmd.zls.z_load {
                    let mut b = [0u8; 4];
                    mem.read(
                        cmd.raw.depth_base.0 + zl.offset(px, py) + (smp * zb) as u64,
                        &mut b[..zb as usize],
                    )?;
                    t.z[i] = if zb == 2 {
                        u16::from_le_bytes([b[0], b[1]]) as f32 / 65535.0
                    } else {
                        f32::from_le_bytes(b)
                    };
                }
                if cmd.zls.s_load {
                    let mut b = [0u8; 1];
                    mem.read(
                        cmd.raw.stencil_base.0 + sl.offset(px, py) + smp as u64,
                        &mut b,
                    )?;
                    t.s[i] = b[0];
                }
            }
        }
    }
    Ok(t)
}

fn zs_store(
    mem: &dyn GpuMemory,
    cmd: &RenderCommand,
    org: (u32, u32),
    w: u32,
    h: u32,
    t: &ZsTile,
) -> Result<(), SimError> {
    let (zl, sl, zb) = zs_layouts(cmd);
    let ns = cmd.samples;
    for y in 0..h {
        for x in 0..w {
            let (px, py) = (org.0 + x, org.1 + y);
            if px >= zl.width || py >= zl.height {
                continue;
            }
            for smp in 0..ns {
                let i = ((y * w + x) * ns + smp) as usize;
                if cmd.zls.z_store {
                    let va = cmd.raw.depth_base.0 + zl.offset(px, py) + (smp * zb) as u64;
                    if zb == 2 {
                        let v = (t.z[i].clamp(0.0, 1.0) * 65535.0).round() as u16;
                        mem.write(va, &v.to_le_bytes())?;
                    } else {
                        mem.write(va, &t.z[i].to_le_bytes())?;
                    }
                }
                if cmd.zls.s_store {
                    mem.write(
                        cmd.raw.stencil_base.0 + sl.offset(px, py) + smp as u64,
                        &[t.s[i]],
                    )?;
                }
            }
        }
    }
    Ok(())
}

/// Occlusion counts by query index: (mode, samples passed).
pub(super) type Occlusion = BTreeMap<u16, (VisibilityMode, u64)>;

/// The state every tile of a render reads.
pub(super) struct TileJob<'a> {
    pub cmd: &'a RenderCommand,
    pub draws: &'a [DrawState],
    pub frag: Vec<DrawFrag>,
    pub prims: &'a RasterTris,
}

impl<'a> TileJob<'a> {
    pub fn new(
        mem: &'a dyn GpuMemory,
        cmd: &'a RenderCommand,
        draws: &'a [DrawState],
        prims: &'a RasterTris,
    ) -> Result<Self, SimError> {
        check_zls(cmd)?;
        let frag: Vec<DrawFrag> = draws
            .iter()
            .map(|d| draw_frag(mem, cmd, d))
            .collect::<Result<_, _>>()?;
        Ok(TileJob {
            cmd,
            draws,
            frag,
            prims,
        })
    }

    /// The tiles to run, in the serial order (row-major), as (x0, y0) pixel origins: every
    /// tile, or without PROCESS_EMPTY_TILES those some primitive touches.
    pub fn tiles(&self) -> Vec<(u32, u32)> {
        let cmd = self.cmd;
        let process_empty = cmd.raw.flags.0 as u32 & RENDER_PROCESS_EMPTY_TILES != 0;
        let mut out = Vec::new();
        for ty in 0..cmd.height.div_ceil(TILE) {
            for tx in 0..cmd.width.div_ceil(TILE) {
                let (x0, y0) = (tx * TILE, ty * TILE);
                if process_empty || self.prims.tile_touched(x0, y0) {
                    out.push((x0, y0));
                }
            }
        }
        out
    }

    /// Fragment launchers of the render's draws (each once, in draw order).
    pub fn fragment_launchers(&self) -> Vec<u64> {
        let mut out: Vec<u64> = Vec::new();
        for f in &self.frag {
            if !out.contains(&f.launch) {
                out.push(f.launch);
            }
        }
        out
    }

    /// Runs the utiles of the tile at (x0, y0), adding to `stats` and `occlusion`.
    pub fn run_tile(
        &self,
        mem: &dyn GpuMemory,
        (x0, y0): (u32, u32),
        stages: &mut dyn Stages,
        stats: &mut RenderStats,
        occlusion: &mut Occlusion,
    ) -> Result<(), SimError> {
        let cmd = self.cmd;
        let (uw, uh) = cmd.utile;
        // The tile's triangles when its utiles lie inside it (every utile size divides
        // the tile), else all of them.
        let all: Vec<u32>;
        let inside = x0 % TILE == 0 && y0 % TILE == 0 && x0 < cmd.width && y0 < cmd.height;
        let bin = match (inside, TILE % uw.max(1), TILE % uh.max(1)) {
            (true, 0, 0) => Some(self.prims.tile_bin(x0, y0)),
            _ => None,
        };
        let bin = match bin {
            Some(b) => b,
            None => {
                all = (0..self.prims.tris.len() as u32).collect();
                &all
            }
        };
        for uy in (0..TILE).step_by(uh as usize) {
            for ux in (0..TILE).step_by(uw as usize) {
                let org = (x0 + ux, y0 + uy);
                // A utile with no pixel of the render area is not walked: nothing in it
                // is rendered or stored (inferred: the tile walk covers the render's
                // width x height; with the 32x32 utile every walked tile has such a
                // pixel, which is all that ran on hardware).
                if org.0 >= cmd.width || org.1 >= cmd.height {
                    continue;
                }
                let mut tb = TileBuffer::new(org, uw, uh, cmd.samples, cmd.sample_size);
                stats.utiles += 1;
                if cmd.raw.bg_usc.0 != 0 {
                    stages.background(mem, USC_BASE | cmd.raw.bg_usc.0, &mut tb)?;
                }
                let mut zs = zs_load(mem, cmd, org, uw, uh)?;
                for t in bin
                    .iter()
                    .map(|&i| &self.prims.tris[i as usize])
                    .filter(|t| bounds_touch(t.bounds, org.0, org.1, uw, uh))
                {
                    let d = &self.draws[t.draw];
                    let f = &self.frag[t.draw];
                    let coefficients = self.prims.coefficients(t);
                    let passed = super::shade::shade_prim(
                        mem,
                        cmd,
                        d,
                        f,
                        t,
                        coefficients,
                        &mut tb,
                        &mut zs,
                        stages,
                        stats,
                    )?;
                    if f.visibility != VisibilityMode::None {
                        occlusion
                            .entry(f.occlusion_index)
                            .or_insert((f.visibility, 0))
                            .1 += passed;
                    }
                }
                stages.end_of_tile(mem, USC_BASE | cmd.raw.eot_usc.0, &tb)?;
                zs_store(mem, cmd, org, uw, uh, &zs)?;
            }
        }
        Ok(())
    }

    /// Writes the occlusion results of the whole render.
    pub fn finish(&self, mem: &dyn GpuMemory, occlusion: &Occlusion) -> Result<(), SimError> {
        write_occlusion(mem, self.cmd, occlusion)
    }
}

/// Runs every tile of the render, one after another.
pub fn render_tiles(
    mem: &dyn GpuMemory,
    cmd: &RenderCommand,
    draws: &[DrawState],
    prims: &RasterTris,
    stages: &mut dyn Stages,
    stats: &mut RenderStats,
    cancelled: &dyn Fn() -> bool,
) -> Result<(), SimError> {
    let job = TileJob::new(mem, cmd, draws, prims)?;
    let mut occlusion = Occlusion::new();
    for tile in job.tiles() {
        if cancelled() {
            return Err(super::cancel_error(stats));
        }
        job.run_tile(mem, tile, stages, stats, &mut occlusion)?;
    }
    job.finish(mem, &occlusion)
}

/// Occlusion results: counting mode adds passed samples to the draw's 64-bit slot at
/// `isp_oclqry_base + 8 * index`; boolean mode stores 1 when any sample passed (G13
/// genxml visibility modes; slot index from T8132 Mesa; inferred semantics).
fn write_occlusion(
    mem: &dyn GpuMemory,
    cmd: &RenderCommand,
    occ: &Occlusion,
) -> Result<(), SimError> {
    for (index, (mode, n)) in occ {
        let va = cmd.raw.isp_oclqry_base.0 + 8 * *index as u64;
        if cmd.raw.isp_oclqry_base.0 == 0 {
            return Err(render_error("occlusion counting with isp_oclqry_base = 0"));
        }
        let old = super::memory::read_u64(mem, va)?;
        let new = match mode {
            VisibilityMode::Counting => old.wrapping_add(*n),
            _ if *n > 0 => 1,
            _ => old,
        };
        mem.write(va, &new.to_le_bytes())?;
    }
    Ok(())
}

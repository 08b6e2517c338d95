//! Background and end-of-tile programs: the two per-utile stages that move pixels into and
//! out of the tilebuffer.
//!
//! Both are entered like the fragment stage: `bg_usc` / `eot_usc` name a fragment launcher
//! (stage allocation = the tile layout), whose setup invocation transfers the argument words
//! (texture, sampler and buffer table roots) and whose stage target selects the body
//! (GravityLinux/mesa src/gallium/drivers/asahi/README.apple9-es3.md "Native tile export":
//! "Both the background reload and EOT export helpers prepare fragment launch records";
//! README.apple9-render-seed.md "Tile helpers"; run on T8132).
//!
//! - Background: the body runs over every pixel of the fresh utile (aligned 2x2 quads, eight
//!   per SIMD-group, every lane a real pixel, all samples) and writes raw tile words with
//!   `tile_store`, the values coming from the body's own arithmetic (`mov_imm32`, uniforms,
//!   loads addressed by the pixel coordinates `get_sr` 0xa0/0xa1 give, as in fragment
//!   bodies). GravityLinux's background "writes its raw words into the tilebuffer" per pixel.
//!   A background that keeps an attachment's earlier contents reads them with a texture fetch
//!   at the pixel coordinate from the attachment's memory and stores the result as the tile
//!   word (Mesa src/asahi/lib/agx_bg_eot.c `build_background_op`, AGX_BG_LOAD: `txf` at
//!   `load_pixel_coord`, G13; the T8132 reload does the same: GravityLinux/mesa
//!   src/gallium/drivers/asahi/agx_blit.c `asahi_reload_fs`, `txf` at `load_pixel_coord`
//!   packed into raw tile words, a CTS-passing M4 driver): the model runs `tex_sample` and the
//!   exports feeding it as in fragment bodies (`super::texture`).
//!   No primitive exists: coefficient iteration is refused. The grouping is the model's
//!   choice (the program sees no lane identity the model supplies).
//! - End of tile: the body runs once per finished utile as one invocation (model's choice:
//!   how many lanes the M4 starts for it is not stated; the block store is per tile). Its
//!   `block_image_store` exports the utile through a PBE descriptor: see [`block_store`].

use super::body::{self, Body, Publications};
use super::launcher::{run_stage_setup, RenderStage};
use super::stages::{Fragment, TileBuffer};
use super::{render_error, unestablished};
use crate::core::ops::Op;
use crate::error::SimError;
use crate::lower::gfx_io::GfxOp;
use crate::mem::GpuMemory;
use agx16_cmdstream::descriptors::{Channels, Layout, NumericType, Pbe, Swizzle, TextureDimension};
use agx16_cmdstream::layout::PlaneLayout;
use agx16_cmdstream::Record;
use agx16_isa::meaning::StageAllocation;
use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;

/// Bytes of one image-table entry. The compiler numbers block-store images after the bound
/// textures in the same table (agx_compile_apple9.c: `image = textures + images below the
/// binding`), whose root is argument qword 0, so the stride is the texture table's
/// (agx16-cmdstream `TEXTURE_TABLE_STRIDE`: 32-byte descriptors measured, the array inferred).
pub const IMAGE_TABLE_STRIDE: u64 = agx16_cmdstream::descriptors::TEXTURE_TABLE_STRIDE as u64;

/// A background or end-of-tile program: its body, the argument words its launcher's setup
/// invocation transferred (the body's uniform registers) and the frame's publication words.
#[derive(Clone)]
pub struct TileProgram {
    pub body: Rc<Body>,
    pub arguments: Rc<[u32]>,
    pub publications: u32,
    /// The launcher's stage allocation (a tile layout).
    pub allocation: StageAllocation,
    pub launcher: u64,
}

/// Loaded tile programs by launcher VA (one render).
#[derive(Default)]
pub struct TilePrograms {
    programs: HashMap<u64, TileProgram>,
}

impl TilePrograms {
    /// Runs the launcher at `va` (once per render) as a fragment setup invocation
    /// ([`run_stage_setup`]: tile-layout allocation, pointer loads, argument transfers, frame)
    /// and loads its body.
    pub fn load(&mut self, mem: &dyn GpuMemory, va: u64) -> Result<TileProgram, SimError> {
        if let Some(p) = self.programs.get(&va) {
            return Ok(p.clone());
        }
        let s = run_stage_setup(mem, va, RenderStage::Fragment)?;
        let p = TileProgram {
            body: Body::load_shared(mem, s.body)?,
            arguments: s.arguments.into(),
            publications: s.frame.publication_words,
            allocation: s.allocation,
            launcher: va,
        };
        self.programs.insert(va, p.clone());
        Ok(p)
    }
}

/// As for the fragment stage: the launcher's tile layout must name the render's sample count
/// (GravityLinux/mesa agx_apple9.c passes the pipeline's samples to the launch builder; 1x/2x/4x
/// layouts ran on T8132); another layout has no established meaning.
fn check_tile_layout(p: &TileProgram, tile: &TileBuffer, stage: &str) -> Result<(), SimError> {
    match p.allocation {
        StageAllocation::Tile { samples, .. } if samples as u32 == tile.samples => Ok(()),
        a => Err(unestablished(
            p.launcher,
            stage,
            format!(
                "{a:?} for a {}-sample render: the launcher's tile layout must be the render's",
                tile.samples
            ),
        )),
    }
}

/// Refuses an export past the publication words the launcher's frame reserves: as in
/// vertex bodies, they bound the exports (GravityLinux README.apple9-launchers.md "Stage
/// parameters").
fn check_export_in_frame(p: &TileProgram, op: &Op, g: GfxOp) -> Result<(), SimError> {
    match g {
        GfxOp::Export { dst, .. } if dst as u32 >= p.publications => Err(p.body.error(
            op,
            format!(
                "export to publication {dst}, past the {} publication words the launcher's \
                 frame reserves",
                p.publications
            ),
        )),
        _ => Ok(()),
    }
}

/// Runs the background program on a fresh utile.
pub fn run_background(
    mem: &dyn GpuMemory,
    p: &TileProgram,
    tile: &mut TileBuffer,
) -> Result<(), SimError> {
    let stage = "background program";
    check_tile_layout(p, tile, "background launcher")?;
    p.body.check_uniforms(&p.arguments, stage)?;
    let all = ((1u32 << tile.samples) - 1) as u8;
    // Every pixel of the utile, quad by quad (2x2, lanes (0,0), (1,0), (0,1), (1,1)), eight
    // quads per SIMD-group (model's choice: no derivative or lane identity is visible to a
    // background body, so the grouping does not change its result).
    let mut pixels = Vec::with_capacity((tile.width * tile.height) as usize);
    for qy in (0..tile.height).step_by(2) {
        for qx in (0..tile.width).step_by(2) {
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                if qx + dx < tile.width && qy + dy < tile.height {
                    pixels.push(Fragment {
                        draw: 0,
                        launch: p.body.va,
                        x: tile.origin.0 + qx + dx,
                        y: tile.origin.1 + qy + dy,
                        front_facing: true,
                        sample_mask: all,
                        pending_tests: 0,
                        helper: false,
                        coefficients: &[],
                    });
                }
            }
        }
    }
    for group in pixels.chunks(crate::core::LANES) {
        // A reload reads the attachment's memory with a texture fetch at the pixel
        // (publications written by exports, then `tex_sample`; `super::texture` has the rules).
        let mut pubs = Publications::new();
        let mut borrowed = HashMap::default();
        body::run_trapping(
            mem,
            &p.body,
            &p.arguments,
            0,
            group.len(),
            stage,
            |sg, op, g| match g {
                GfxOp::Export { .. } => {
                    check_export_in_frame(p, op, g)?;
                    super::texture::check_rewrite(&p.body, op, sg, &borrowed, g)?;
                    body::export(&p.body, op, sg, &mut pubs, g)
                }
                // Only the forms without derivatives: every lane is a real pixel, but the
                // background's quads are the model's grouping, not established, so implicit
                // LOD is refused there by `texture::execute` (no complete quad).
                GfxOp::Texture(t) => super::texture::run_lanes(
                    mem,
                    &p.arguments,
                    &p.body,
                    op,
                    sg,
                    group.len(),
                    false,
                    &mut pubs,
                    &mut borrowed,
                    t,
                ),
                GfxOp::TileStore { .. }
                | GfxOp::TileRead { .. }
                | GfxOp::TileSync { .. }
                | GfxOp::PixelCoord { .. } => {
                    body::fragment_io(&p.body, op, g, sg, group, tile, None)
                }
                GfxOp::Iterate { .. } => Err(p.body.error(
                    op,
                    "coefficient iteration in a background program: no primitive binds \
                 coefficient registers there"
                        .into(),
                )),
                other => Err(p
                    .body
                    .error(op, format!("{other:?} in a background program"))),
            },
        )?;
    }
    Ok(())
}

/// Runs the end-of-tile program on a finished utile.
pub fn run_end_of_tile(
    mem: &dyn GpuMemory,
    p: &TileProgram,
    tile: &TileBuffer,
) -> Result<(), SimError> {
    let stage = "end-of-tile program";
    check_tile_layout(p, tile, "end-of-tile launcher")?;
    p.body.check_uniforms(&p.arguments, stage)?;
    let mut pubs = Publications::new();
    // Publications read by block stores that no join has completed yet.
    let mut unjoined: Vec<u8> = Vec::new();
    body::run_trapping(
        mem,
        &p.body,
        &p.arguments,
        0,
        1,
        stage,
        |sg, op, g| match g {
            GfxOp::Export { .. } => {
                check_export_in_frame(p, op, g)?;
                body::export(&p.body, op, sg, &mut pubs, g)
            }
            GfxOp::TileSync { join: false } => Ok(()),
            // Publication reuse: the join completes the block stores before it, and with them
            // their reads of the publication tuple, so the tuple may be written again.
            // Evidence: GravityLinux/mesa src/asahi/compiler/agx_apple9_ir.c
            // `agx_apple9_vir_emit_block_image_store` ("the synchronous store contract
            // releases its publication and joins the memory operation before the next VIR
            // instruction"), whose store takes only tuples 0, 4, 8, 12 (agx_apple9_machine.c
            // BLOCK_IMAGE_STORE: publication at most 15, 4-aligned), and README.apple9-es3.md:
            // eight RGBA32F targets verified at one sample on T8132, so targets 5..8 reuse a
            // tuple after the join (validated by a CTS-passing M4 driver).
            GfxOp::TileSync { join: true } => {
                for r in unjoined.drain(..) {
                    pubs.read.remove(&r);
                }
                Ok(())
            }
            GfxOp::BlockStore {
                coord,
                image,
                format,
                wait,
                multisample,
            } => {
                // The store's wait retires every export completing on a named slot.
                pubs.pending
                    .retain(|_, s| !(1..=6).contains(s) || wait >> (*s - 1) & 1 == 0);
                // 2D: (x, y, offset << 16 | level); multisample: (x, y, 0, offset << 16)
                // (README.apple9-ir.md "Native multisample block stores": the zero word is
                // part of the validated contract, its other meanings are not modelled).
                let n = if multisample { 4 } else { 3 };
                let mut words = [0u32; 4];
                for (k, w) in words.iter_mut().take(n).enumerate() {
                    let r = coord + k as u8;
                    let Some(v) = pubs.value.get(&r) else {
                        return Err(p.body.error(
                            op,
                            format!("block store reads publication {r}, which no export wrote"),
                        ));
                    };
                    if let Some(s) = pubs.pending.get(&r) {
                        return Err(p.body.error(
                            op,
                            format!(
                                "block store reads publication {r} before its export completes: \
                             the store does not wait on slot {s}"
                            ),
                        ));
                    }
                    *w = v[0];
                    pubs.read.insert(r);
                    unjoined.push(r);
                }
                if multisample && words[2] != 0 {
                    return Err(p.body.error(
                        op,
                        format!(
                            "multisample block store with publication word 2 = {:#x}: only 0 \
                             is established",
                            words[2]
                        ),
                    ));
                }
                let bs = BlockStore {
                    x: words[0],
                    y: words[1],
                    offset_level: if multisample { words[3] } else { words[2] },
                    image,
                    format,
                    multisample,
                };
                block_store(mem, &p.arguments, tile, &bs).map_err(|e| match e {
                    StoreError::Refused(w) => p.body.error(op, w),
                    StoreError::Sim(e) => e,
                })
            }
            GfxOp::WorkgroupId { dst, axis } => {
                let v = tile_index(tile, axis).map_err(|w| p.body.error(op, w))?;
                let mut vals = [0u32; crate::core::LANES];
                vals[0] = v;
                sg.pending.cancel(dst.reg, dst.part);
                sg.write(dst, sg.exec.active, &vals);
                Ok(())
            }
            GfxOp::PixelCoord { .. } => Err(p.body.error(
                op,
                "pixel coordinates in an end-of-tile program: which position an end-of-tile \
             invocation reports (the tile's?) is not established (its workgroup id, get_sr \
             0x9c/0x9d, locates the tile)"
                    .into(),
            )),
            other => Err(p
                .body
                .error(op, format!("{other:?} in an end-of-tile program"))),
        },
    )
}

/// The workgroup id an end-of-tile invocation reads along `axis` (`get_sr` 0x9c / 0x9d): the
/// index of the tile it exports, in tiles of 32x32 pixels at one or two samples and 32x16 at
/// four. Evidence: GravityLinux/mesa src/gallium/drivers/asahi/agx_blit.c `asahi_reload_fs`
/// (the end-of-tile "color store" helper: block-store coordinates = workgroup id x * 32,
/// y * (4 samples ? 16 : 32)), agx_state.c (the render's tile: 32x16 at four samples, else
/// 32x32), README.apple9-render-seed.md "Tile helpers" ("Workgroup IDs locate the tile"; one
/// export invocation per 32x32 tile at 1x/2x, 32x16 at 4x; full-framebuffer scans and 65x33
/// edge probes on T8132), agx_compile_apple9.c `apple9_system_source` (load_workgroup_id =
/// get_sr 0x9c + component, direct 32-bit values, EXP-M4-29); validated by that CTS-passing
/// M4 driver. A render whose utile is another size has no established tile index (which grid
/// the id counts is not stated), so it is refused, as is z (0x9e: layers are not modelled).
fn tile_index(tile: &TileBuffer, axis: u8) -> Result<u32, String> {
    let evidenced = match tile.samples {
        1 | 2 => (32, 32),
        _ => (32, 16),
    };
    if (tile.width, tile.height) != evidenced {
        return Err(format!(
            "the workgroup id of an end-of-tile program in a {}-sample render with {}x{} \
             utiles: only {}x{} tiles at this sample count are established",
            tile.samples, tile.width, tile.height, evidenced.0, evidenced.1
        ));
    }
    Ok(if axis == 0 {
        tile.origin.0 / tile.width
    } else {
        tile.origin.1 / tile.height
    })
}

/// One block store's operands (the publication tuple and the instruction's immediates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockStore {
    /// Image pixel the utile's top-left pixel lands on.
    pub x: u32,
    pub y: u32,
    /// `tile byte offset << 16 | mip level` (README.apple9-ir.md: the offset above the level).
    pub offset_level: u32,
    pub image: u8,
    pub format: u8,
    /// Mode 0x228: every sample of the utile into a multisampled target.
    pub multisample: bool,
}

/// Why a block store did not happen.
#[derive(Debug)]
pub enum StoreError {
    /// Something the model does not establish (named).
    Refused(String),
    /// A fault or malformed descriptor.
    Sim(SimError),
}

impl From<SimError> for StoreError {
    fn from(e: SimError) -> Self {
        StoreError::Sim(e)
    }
}

/// Bytes per pixel of a block store that copies the tile representation unchanged: the tile
/// format (agx_apple9.h `agx_apple9_block_export_format`: 7 packed 8-bit normalised, 5 8-bit
/// integer, 1 16-bit, 3 32-bit channels) names the same channel width and encoding as the
/// descriptor. Packed formats with other widths (RGB565, RGB5A1, RGBA4 use half-float tile
/// components, RGB10A2 integer 16-bit ones; RGB10A2 unorm and R11G11B10 share format 7 with
/// RGBA8) need a conversion no source describes, so they are not listed.
pub fn raw_copy_bytes(format: u8, channels: Channels, numeric: NumericType) -> Option<u32> {
    use Channels as C;
    use NumericType as N;
    let int = matches!(numeric, N::Uint | N::Sint);
    let width = |c: Channels, w8: u32| match c {
        C::R8 | C::R16 | C::R32 => Some(w8),
        C::R8G8 | C::R16G16 | C::R32G32 => Some(2 * w8),
        C::R8G8B8A8 | C::R16G16B16A16 | C::R32G32B32A32 => Some(4 * w8),
        _ => None,
    };
    match (format, channels) {
        (7, C::R8 | C::R8G8 | C::R8G8B8A8) if numeric == N::Unorm => width(channels, 1),
        (5, C::R8 | C::R8G8 | C::R8G8B8A8) if int => width(channels, 1),
        (1, C::R16 | C::R16G16 | C::R16G16B16A16) if int || numeric == N::Float => {
            width(channels, 2)
        }
        (3, C::R32 | C::R32G32 | C::R32G32B32A32) if int || numeric == N::Float => {
            width(channels, 4)
        }
        _ => None,
    }
}

/// Executes a 2D block image store: every pixel (u, v) of the utile goes to image pixel
/// (x + u, y + v), taking the 4 bytes at the tile byte offset of sample 0 and writing them
/// at the address the PBE descriptor gives that pixel. Pixels outside the descriptor's
/// width/height are not written (its bounds, README.apple9-es3.md "PBE descriptors encode
/// ... bounds"; G13 behaviour, inferred).
///
/// Established subset (everything else is refused by name):
/// - a tile representation whose channels already have the memory format's width and
///   encoding ([`raw_copy_bytes`]), identity swizzle: the tile bytes at the offset are the
///   memory bytes (the packed 8-bit word holds R in its low byte as the T8132 compiler's RGBA8
///   colour path packs it; the PBE "supplies conversion", none between equal encodings;
///   inferred);
/// - 2D, single-sample tilebuffer, level 0; or the multisample mode from a 2/4-sample
///   tilebuffer into a GPU-tiled 2D-multisampled target of that count, all samples, each
///   pixel's samples contiguous;
/// - layout 2 (GPU: tiled Morton, agx16-cmdstream `PlaneLayout::twiddled`, measured by agx-re)
///   with no stride, or layout 0 (linear, `(stride_minus1 + 1) * 16` bytes per row; G13 value,
///   inferred for G16).
pub fn block_store(
    mem: &dyn GpuMemory,
    arguments: &[u32],
    tile: &TileBuffer,
    s: &BlockStore,
) -> Result<(), StoreError> {
    let refuse = |w: String| Err(StoreError::Refused(w));
    if !s.multisample && tile.samples != 1 {
        return refuse(format!(
            "2D block store from a {}-sample tilebuffer: which sample it exports is not \
             established",
            tile.samples
        ));
    }
    if s.multisample && tile.samples == 1 {
        return refuse("multisample block store from a 1-sample tilebuffer".into());
    }
    let (offset, level) = (s.offset_level >> 16, s.offset_level & 0xffff);
    if level != 0 {
        return refuse(format!(
            "block store to mip level {level}: level addressing through the PBE is not modelled"
        ));
    }
    if arguments.len() < 2 {
        return refuse(
            "block store without an image table: the launcher transferred no argument words \
             0..1 (the texture/image table root)"
                .into(),
        );
    }
    let table = arguments[0] as u64 | (arguments[1] as u64) << 32;
    let va = table.wrapping_add(IMAGE_TABLE_STRIDE * s.image as u64);
    let mut raw = [0u8; 32];
    mem.read(va, &mut raw).map_err(SimError::from)?;
    let d = Pbe::unpack(&raw)
        .map_err(|e| StoreError::Sim(render_error(format!("PBE descriptor at {va:#x}: {e}"))))?;
    if !d.fully_known() {
        return refuse(format!(
            "PBE descriptor at {va:#x} has bits no source documents {:08x?} or unnamed values \
             {:?}",
            d.unknown_bits(),
            d.unknown_values()
        ));
    }
    let want = if s.multisample {
        TextureDimension::D2Ms
    } else {
        TextureDimension::D2
    };
    if d.dimension != want || (!s.multisample && d.samples_log2_minus1 != 0) {
        return refuse(format!(
            "PBE descriptor at {va:#x}: dimension {:?} samples field {} for a {} block store \
             (2D with the 2D mode, 2D multisampled with mode 0x228)",
            d.dimension,
            d.samples_log2_minus1,
            if s.multisample { "multisample" } else { "2D" }
        ));
    }
    // The multisample store exports every sample; the descriptor's count must be the
    // tilebuffer's (a mismatch has no established meaning).
    if s.multisample && d.samples() != tile.samples {
        return refuse(format!(
            "PBE descriptor at {va:#x} names {} samples, the tilebuffer has {}",
            d.samples(),
            tile.samples
        ));
    }
    let ns = if s.multisample { tile.samples } else { 1 };
    let identity = [d.swizzle_r, d.swizzle_g, d.swizzle_b, d.swizzle_a]
        == [Swizzle::R, Swizzle::G, Swizzle::B, Swizzle::A];
    if !identity {
        return refuse(format!(
            "PBE descriptor at {va:#x}: swizzle {:?} (only the identity is modelled)",
            [d.swizzle_r, d.swizzle_g, d.swizzle_b, d.swizzle_a]
        ));
    }
    let Some(bytes) = raw_copy_bytes(s.format, d.channels, d.numeric_type) else {
        return refuse(format!(
            "block store of tile format {} into a {:?} {:?} PBE: only equal-width \
             representations (packed 8-bit unorm, 8-bit integer, 16-/32-bit float and integer \
             channels) are modelled",
            s.format, d.channels, d.numeric_type
        ));
    };
    let layout = match d.layout {
        // Multisampled: a pixel's samples are contiguous, the tiling's element is all of them
        // (GravityLinux/mesa agx_blit.c: pixel_index * samples * bpp + sample * bpp; its
        // multisample/blit dEQP groups pass on M4).
        Layout::Gpu if d.stride_minus1 == 0 => PlaneLayout::twiddled(d.width, d.height, bytes * ns),
        Layout::Linear if s.multisample => {
            return refuse(format!(
                "PBE descriptor at {va:#x}: a linear multisampled target (only GPU-tiled \
                 multisampled targets are modelled)"
            ))
        }
        Layout::Linear => {
            let mut l = PlaneLayout::linear(d.width, d.height, bytes);
            l.row_stride = d.linear_stride() as u64;
            l
        }
        other => {
            return refuse(format!(
                "PBE descriptor at {va:#x}: layout {other:?} with stride field {} (only GPU-tiled \
                 without a stride and linear are modelled)",
                d.stride_minus1
            ))
        }
    };
    if offset + bytes > tile.sample_size {
        return refuse(format!(
            "tile byte offset {offset} + {bytes} is past the {}-byte sample",
            tile.sample_size
        ));
    }
    let o = offset as usize..(offset + bytes) as usize;
    for v in 0..tile.height {
        for u in 0..tile.width {
            let (px, py) = (s.x as u64 + u as u64, s.y as u64 + v as u64);
            if px >= d.width as u64 || py >= d.height as u64 {
                continue;
            }
            let at = d.address + layout.offset(px as u32, py as u32);
            for smp in 0..ns {
                let src = &tile.sample(u, v, smp).expect("inside the utile")[o.clone()];
                mem.write(at + (smp * bytes) as u64, src)
                    .map_err(SimError::from)?;
            }
        }
    }
    Ok(())
}

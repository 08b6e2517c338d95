//! The G16 background and end-of-tile programs (sim/GFX.md "Background and end-of-tile
//! programs (what a driver emits)"): the background body writes each colour target's clear
//! word with `tile_store`, or reloads a target without a clear by fetching its memory at the
//! pixel ([`reload_body`]); the end-of-tile body exports each target with `block_image_store`
//! through a PBE descriptor in the image table the launcher's first root points at. Both are
//! entered through fragment launchers. Bodies are cached by their bytes; launchers and image
//! tables are per render.

use crate::build::{stage_launcher_for, TilePass, TilePrograms};
use crate::fb::TileFormat;
use crate::mem::{DrawError, GpuWriter, Heap};
use crate::program::{EntryArena, ShaderBody};
use crate::textures::StageTextures;
use agx16_cmdstream::descriptors::{
    Channels, NumericType, Pbe, Swizzle, Texture, TEXTURE_TABLE_STRIDE,
};
use agx16_cmdstream::layout::{ImageDesc, ImageLayout, PlaneLayout, Tiling};
use agx16_cmdstream::texture_layout::{texture_for, TextureFormat};
use agx16_cmdstream::Record;
use agx16_isa::meaning::{
    self, block_store_ms_sequence, block_store_sequence, tile_word_stores, tile_word_stores_masked,
    TileFormat as BlockFormat,
};
use agx16_isa::{encode_program, Instr, Part, Role};
use std::collections::HashMap;

fn isa(name: &str, f: &[(&str, u64)]) -> Result<Instr, DrawError> {
    Instr::build(name, f).map_err(|e| DrawError::Program(format!("{name}: {e}")))
}

fn mov32(dst: u32, v: u32) -> Result<Instr, DrawError> {
    let mut i = isa("mov_imm32", &[("imm", v as u64)])?;
    i.set_gpr(Role::Dst, dst, Part::Full)
        .map_err(|e| DrawError::Program(e.to_string()))?;
    Ok(i)
}

/// Background body: for each `(tile word, value)`, that word := value for every pixel (the
/// packer's tile epilogue; `tile_store`'s `rt` field counts 32-bit words, sim/GFX.md). With
/// `samples` > 1 every sample of the pixel: `tile_store_mask` with a register holding all
/// samples (the static form names sample 0 only; the T8132 driver's multisample stores take
/// their samples from a register, GravityLinux/mesa agx_apple9_ir.c TILE_STORE).
pub fn clear_body(words: &[(u32, u32)], samples: u32) -> Result<Vec<u8>, DrawError> {
    let mut p = Vec::new();
    for (k, &(_, value)) in words.iter().enumerate() {
        p.push(mov32(k as u32, value)?);
    }
    let stores = if samples > 1 {
        let mask = words.len() as u32;
        p.push(mov32(mask, (1 << samples) - 1)?);
        let stores: Vec<(u32, u32, u32)> = words
            .iter()
            .enumerate()
            .map(|(k, &(word, _))| (k as u32, word, mask))
            .collect();
        tile_word_stores_masked(&stores)
    } else {
        let stores: Vec<(u32, u32)> = words
            .iter()
            .enumerate()
            .map(|(k, &(word, _))| (k as u32, word))
            .collect();
        tile_word_stores(&stores)
    };
    p.extend(stores.map_err(|e| DrawError::Program(format!("tile stores: {e}")))?);
    p.push(isa("stop", &[])?);
    Ok(encode_program(&p))
}

/// How the background initialises one colour target's tile word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileInit {
    /// Store this raw word (the clear colour in tile-word bytes).
    Clear(u32),
    /// Reload the target's memory: read pixel (min(ox + x, w-1), min(oy + y, h-1)) from
    /// `source` and store it into the word; (ox, oy) = `origin`, the image pixel of this
    /// render's (0, 0) ((0, 0) unless the batch is one render per utile rectangle,
    /// [`TilePass::origin`](crate::build::TilePass)).
    Load {
        source: ReloadSource,
        origin: (u32, u32),
        width: u32,
        height: u32,
        /// 0: an RGBA8/BGRA8 target, one word holding the pixel's four memory bytes; n > 0:
        /// a raw target whose pixel bytes fill n tile words from `word` on (zero-extended
        /// when the pixel is narrower than a word).
        raw_words: u8,
        /// Memory bytes of one sample of a pixel.
        bytes: u8,
    },
}

/// Where a reload reads a colour target's earlier contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReloadSource {
    /// Texture-table entry `n`: a one-level 2D view of a twiddled target (RGBA8 unorm for
    /// RGBA8/BGRA8 targets, else an unsigned-integer view of the pixel's width,
    /// [`reload_view`]), read with `texelFetch`.
    Texture(u8),
    /// A linear target read with device loads: device base slot `slot` holds the target's
    /// VA, rows are `row_stride` bytes (a multiple of 16), pixels `bytes` bytes (1, 2, 4, 8
    /// or 16). Why loads and not a texture: the G16 sampled-texture descriptor's selector for
    /// the linear layout is not established (see [`reload_texture`]), while device loads of
    /// 32-bit words are (agx16-compiler `device_load`, M4-measured encoding, already used by
    /// fragment programs for UBOs).
    Memory {
        slot: u8,
        row_stride: u32,
        bytes: u8,
    },
}

/// Background body that keeps earlier contents: for each `(tile word, init)`, the word := the
/// clear value, or the target's own pixel (GL: a render without a clear starts from what the
/// last one left). Evidence: Mesa src/asahi/lib/agx_bg_eot.c `build_background_op`
/// (AGX_BG_LOAD: an ordinary `txf` of the attachment's memory at `load_pixel_coord`, stored as
/// the tile output; G13, inferred for G16); GravityLinux/mesa
/// src/gallium/drivers/asahi/README.apple9-es3.md (T8132 background/export helpers are
/// ordinary compiled shaders, so any memory read an ordinary fragment program may do serves).
/// Compiled by agx16-compiler, so the fetch or load, its publications and slot waits and the
/// unorm pack are the compiler's single encoding (`texelFetch`, `device_load`,
/// `packUnorm4x8`). Twiddled targets are fetched as textures: the texel round trip is exact
/// (fetch gives b/255 in f32 and the pack rounds b/255*255 back to b). Linear targets are read
/// as 32-bit words ([`ReloadSource::Memory`]): the word holds the pixel's bytes, which is what
/// the tile word holds (memory order), so no conversion at all; a 1- or 2-byte pixel is
/// shifted out of the aligned word that contains it (rows are 16-byte aligned, so that word
/// lies in the row). Clamping to the image: the background also runs on utile pixels past the
/// image's edge, which the end-of-tile store skips (PBE bounds) but whose fetch the model
/// refuses (out-of-range fetches are not established); clamped, they read a pixel that is
/// never exported. Returns the code, its publication extent and its scratch bytes (a
/// background reloading many targets can spill).
///
/// Multisampled targets (`samples` > 1): the target is fetched as one wide texel per pixel
/// (all its samples' bytes, at most 16: the plane's element, [`reload_view`] of the sample
/// group's width; groups of 32 or 64 bytes as four quarter-group texels, [`sample_view`]) and
/// sample s's words go to that sample alone (`tile_store_mask` with 1 << s
/// in a register: the T8132 driver's reload "loops over samples with a per-sample mask",
/// GravityLinux/mesa agx_blit.c / README.apple9-es3.md); clears store to every sample.
pub fn reload_body(
    words: &[(u32, TileInit)],
    samples: u32,
) -> Result<(Vec<u8>, u32, u16), DrawError> {
    use agx16_compiler::ir::{Builder, Op, Src, Stage, SysVal, TexKind, Type};
    let mut b = Builder::new(Stage::Fragment);
    let x = b.sysval(SysVal::PixelCoord(0));
    let y = b.sysval(SysVal::PixelCoord(1));
    let all = (samples > 1).then(|| b.alu(Op::Copy, Type::I32, [Src::imm((1 << samples) - 1)]));
    for &(word, init) in words {
        let word = u8::try_from(word)
            .map_err(|_| DrawError::Program(format!("tile word {word} past the IR's range")))?;
        let value = match init {
            TileInit::Clear(v) => b.alu(Op::Copy, Type::I32, [Src::imm(v)]),
            TileInit::Load {
                source,
                origin,
                width,
                height,
                raw_words,
                bytes,
            } => {
                let ix = b.alu(Op::IAdd, Type::I32, [Src::val(x), Src::imm(origin.0)]);
                let iy = b.alu(Op::IAdd, Type::I32, [Src::val(y), Src::imm(origin.1)]);
                let cx = b.alu(
                    Op::IMin { signed: false },
                    Type::I32,
                    [Src::val(ix), Src::imm(width.saturating_sub(1))],
                );
                let cy = b.alu(
                    Op::IMin { signed: false },
                    Type::I32,
                    [Src::val(iy), Src::imm(height.saturating_sub(1))],
                );
                if samples > 1 {
                    let ReloadSource::Texture(texture) = source else {
                        return Err(DrawError::Framebuffer(
                            "a linear multisampled colour target".into(),
                        ));
                    };
                    let bytes = bytes as u32;
                    // A group wider than one texel (32 or 64 bytes) is read through a view of
                    // texels a quarter of the group wide (`reload_texture`): piece q of pixel
                    // (x, y)'s group is texel (2x + (q & 1), 2y + (q >> 1)).
                    let group = bytes * samples;
                    let piece = if group > 16 { group / 4 } else { group };
                    let mut pieces = [None; 4];
                    for smp in 0..samples {
                        let mask = b.alu(Op::Copy, Type::I32, [Src::imm(1 << smp)]);
                        // The group's bytes as little-endian 32-bit components; sample s's
                        // bytes start at s * bytes.
                        for k in 0..raw_words.max(1) as u32 {
                            let at = smp * bytes + 4 * k;
                            let q = (at / piece) as usize;
                            let t = match pieces[q] {
                                Some(t) => t,
                                None => {
                                    let (vx, vy) = if group > 16 {
                                        let vx =
                                            b.alu(Op::Shl, Type::I32, [Src::val(cx), Src::imm(1)]);
                                        let vx = b.alu(
                                            Op::IAdd,
                                            Type::I32,
                                            [Src::val(vx), Src::imm(q as u32 & 1)],
                                        );
                                        let vy =
                                            b.alu(Op::Shl, Type::I32, [Src::val(cy), Src::imm(1)]);
                                        let vy = b.alu(
                                            Op::IAdd,
                                            Type::I32,
                                            [Src::val(vy), Src::imm(q as u32 >> 1)],
                                        );
                                        (vx, vy)
                                    } else {
                                        (cx, cy)
                                    };
                                    let t = b.texture(
                                        texture,
                                        0,
                                        TexKind::Fetch,
                                        agx16_compiler::ir::TexDim::D2,
                                        [Src::val(vx), Src::val(vy), Src::imm(0)],
                                    );
                                    pieces[q] = Some(t);
                                    t
                                }
                            };
                            let at = at % piece;
                            let comp = Src::comp(t, (at / 4) as u8);
                            let v = if bytes >= 4 {
                                b.alu(Op::Copy, Type::I32, [comp])
                            } else {
                                let sh = b.alu(
                                    Op::Shr { signed: false },
                                    Type::I32,
                                    [comp, Src::imm(8 * (at % 4))],
                                );
                                let m = (1u32 << (8 * bytes)) - 1;
                                b.alu(Op::And, Type::I32, [Src::val(sh), Src::imm(m)])
                            };
                            b.store_tile_masked(word + k as u8, v, Src::val(mask));
                        }
                    }
                    continue;
                }
                let words: Vec<Src> = match source {
                    ReloadSource::Texture(texture) => {
                        // Level 0 (the level word is level << 22, compiler README "Textures").
                        let t = b.texture(
                            texture,
                            0,
                            TexKind::Fetch,
                            agx16_compiler::ir::TexDim::D2,
                            [Src::val(cx), Src::val(cy), Src::imm(0)],
                        );
                        if raw_words == 0 {
                            let packed = agx16_compiler::abi::pack_unorm_4x8(
                                &mut b,
                                std::array::from_fn(|k| Src::comp(t, k as u8)),
                            );
                            vec![Src::val(packed)]
                        } else {
                            (0..raw_words).map(|k| Src::comp(t, k)).collect()
                        }
                    }
                    ReloadSource::Memory {
                        slot,
                        row_stride,
                        bytes,
                    } => memory_pixel(&mut b, slot, row_stride, bytes as u32, cx, cy)?,
                };
                let want = raw_words.max(1) as usize;
                if words.len() != want {
                    return Err(DrawError::Program(format!(
                        "reload of {} word(s) for a target of {want} tile word(s)",
                        words.len()
                    )));
                }
                for (k, w) in words.into_iter().enumerate() {
                    let c = b.alu(Op::Copy, Type::I32, [w]);
                    b.store_tile(word + k as u8, c);
                }
                continue;
            }
        };
        match all {
            Some(m) => b.store_tile_masked(word, value, Src::val(m)),
            None => b.store_tile(word, value),
        }
    }
    let (c, info) = agx16_compiler::abi::compile_ir_graphics(
        &b.finish(),
        0,
        // In program order: each target's fetch is stored before the next one starts. The
        // list scheduler would hoist every fetch to the top, and the texture results' bank
        // (r0..r31) holds only a few at a time: eight reloaded 16-byte targets spilled, and
        // graphics launchers run no scratch frame the model establishes.
        agx16_compiler::pipeline::Options {
            schedule: false,
            ..Default::default()
        },
    )
    .map_err(|e| DrawError::Program(format!("background reload program: {e}")))?;
    let scratch = u16::try_from(4 * c.mir.scratch_words).map_err(|_| {
        DrawError::Program(format!(
            "background reload program: {} scratch words",
            c.mir.scratch_words
        ))
    })?;
    Ok((c.code, info.publications, scratch))
}

/// The tile words of pixel (`cx`, `cy`) of a linear image whose VA is in device base slot
/// `slot` (`row_stride` bytes per row, `bytes` per pixel), read with 32-bit device loads
/// (`LoadGlobal` indexes 32-bit words from the slot's base).
fn memory_pixel(
    b: &mut agx16_compiler::ir::Builder,
    slot: u8,
    row_stride: u32,
    bytes: u32,
    cx: agx16_compiler::ir::Value,
    cy: agx16_compiler::ir::Value,
) -> Result<Vec<agx16_compiler::ir::Src>, DrawError> {
    use agx16_compiler::ir::{Op, Src, Type};
    if !row_stride.is_multiple_of(16) || ![1, 2, 4, 8, 16].contains(&bytes) {
        return Err(DrawError::Framebuffer(format!(
            "a linear colour target of {bytes}-byte pixels and {row_stride}-byte rows"
        )));
    }
    let row_words = row_stride / 4;
    if bytes >= 4 {
        let n = bytes / 4;
        // Word index y * row_words + x * n.
        let xs = b.alu(
            Op::Shl,
            Type::I32,
            [Src::val(cx), Src::imm(n.trailing_zeros())],
        );
        let index = b.alu(
            Op::IMad,
            Type::I32,
            [Src::val(cy), Src::imm(row_words), Src::val(xs)],
        );
        let t = b.load_global(slot, Src::val(index), Type::I32, n as u8);
        return Ok((0..n as u8).map(|k| Src::comp(t, k)).collect());
    }
    // 1 or 2 bytes: the aligned word holding the pixel, shifted and masked.
    let per_word = 4 / bytes;
    let xw = b.alu(
        Op::Shr { signed: false },
        Type::I32,
        [Src::val(cx), Src::imm(per_word.trailing_zeros())],
    );
    let index = b.alu(
        Op::IMad,
        Type::I32,
        [Src::val(cy), Src::imm(row_words), Src::val(xw)],
    );
    let word = b.load_global(slot, Src::val(index), Type::I32, 1);
    let lane = b.alu(Op::And, Type::I32, [Src::val(cx), Src::imm(per_word - 1)]);
    let shift = b.alu(
        Op::Shl,
        Type::I32,
        [Src::val(lane), Src::imm(3 + bytes.trailing_zeros())],
    );
    let shifted = b.alu(
        Op::Shr { signed: false },
        Type::I32,
        [Src::val(word), Src::val(shift)],
    );
    let mask = if bytes == 1 { 0xff } else { 0xffff };
    let v = b.alu(Op::And, Type::I32, [Src::val(shifted), Src::imm(mask)]);
    Ok(vec![Src::val(v)])
}

/// Where an end-of-tile program exports its tile to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportOrigin {
    /// Image pixel (x, y), the same for every tile: renders of one utile.
    Fixed(u32, u32),
    /// The tile's own position: its workgroup id times this tile size (agx16-isa
    /// `tile_origin_instrs`; the T8132 end-of-tile helper's form), so one program exports
    /// every tile of a render.
    Located((u32, u32)),
}

/// End-of-tile body: for each `(image, tile byte offset, block-store format)`, the utile to image pixel
/// (`x`, `y`) through image-table entry `image`: agx16-isa's block-store sequence (publish x,
/// y and offset << 16 into publication tuple 4 (k mod 4), store, join) for target k. The store
/// takes tuples 0, 4, 8 and 12 only; targets 4..7 reuse them, which the join after each store
/// allows (it releases the tuple: agx16-isa `block_store_sequence`). (`x`, `y`) come from
/// `origin`: constants, or computed once into r0, r1 from the tile's workgroup id.
///
/// Multisampled (`multisample`): the multisample store (mode 0x228) with the four-word tuple
/// (x, y, 0, offset << 16) (agx16-isa `block_store_ms_sequence`).
pub fn export_body(
    origin: ExportOrigin,
    targets: &[(u32, u32, BlockFormat)],
    multisample: bool,
) -> Result<Vec<u8>, DrawError> {
    let (x, y) = match origin {
        ExportOrigin::Fixed(x, y) => (x, y),
        ExportOrigin::Located(tile) => return located_export_body(tile, targets, multisample),
    };
    let mut p = Vec::new();
    for (k, &(image, offset, format)) in targets.iter().enumerate() {
        let tuple = 4 * (k as u32 % 4);
        let store = if multisample {
            let r = 4 * (k as u32 % 4);
            p.extend([
                mov32(r, x)?,
                mov32(r + 1, y)?,
                mov32(r + 2, 0)?,
                mov32(r + 3, offset << 16)?,
            ]);
            block_store_ms_sequence(tuple, [r, r + 1, r + 2, r + 3], image, format)
        } else {
            let r = 3 * (k as u32 % 4);
            p.extend([mov32(r, x)?, mov32(r + 1, y)?, mov32(r + 2, offset << 16)?]);
            block_store_sequence(tuple, r, r + 1, r + 2, image, format)
        }
        .map_err(|e| DrawError::Program(format!("block store of target {k}: {e}")))?;
        p.extend(store);
    }
    p.push(isa("stop", &[])?);
    Ok(encode_program(&p))
}

/// [`export_body`] for [`ExportOrigin::Located`]: x, y in r0, r1 (the workgroup id times the
/// tile size), zero in r2 for the multisample tuple, each target's offset word in r3..r6.
fn located_export_body(
    tile: (u32, u32),
    targets: &[(u32, u32, BlockFormat)],
    multisample: bool,
) -> Result<Vec<u8>, DrawError> {
    let err = |e: agx16_isa::EncodeError| DrawError::Program(format!("tile origin: {e}"));
    let mut p = meaning::tile_origin_instrs(0, 1, tile).map_err(err)?;
    if multisample {
        p.push(mov32(2, 0)?);
    }
    for (k, &(image, offset, format)) in targets.iter().enumerate() {
        let tuple = 4 * (k as u32 % 4);
        let r = 3 + k as u32 % 4;
        p.push(mov32(r, offset << 16)?);
        let store = if multisample {
            block_store_ms_sequence(tuple, [0, 1, 2, r], image, format)
        } else {
            block_store_sequence(tuple, 0, 1, r, image, format)
        }
        .map_err(|e| DrawError::Program(format!("block store of target {k}: {e}")))?;
        p.extend(store);
    }
    p.push(isa("stop", &[])?);
    Ok(encode_program(&p))
}

/// Bodies already uploaded, by their bytes.
#[derive(Default, Debug)]
pub struct TileCache {
    bodies: HashMap<Vec<u8>, ShaderBody>,
    /// Compiled reload backgrounds (body, publication extent, scratch bytes) by their tile words.
    reloads: HashMap<ReloadKey, (ShaderBody, u32, u16)>,
}

impl TileCache {
    /// Bodies uploaded for tile programs (each holds an entry block for the device's life).
    pub fn body_count(&self) -> usize {
        self.bodies.len() + self.reloads.len()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ReloadKey(Vec<(u32, TileInit)>, u32);

/// The device base slot of the first linear target a background reloads with device loads:
/// the first after the six root slots (texture and sampler tables, sim/GFX.md "Render-stage
/// uniform ABI"), where ordinary fragment programs keep their UBOs.
const FIRST_RELOAD_SLOT: u8 = 6;

/// The texture view a raw target of `bytes` bytes per pixel is reloaded through: unsigned
/// integers of the same width (1, 2, 4, 8 or 16 bytes), which the texture unit returns raw
/// (sim/GFX.md "Textures": integer formats sample as raw integers; texelFetch, no filtering),
/// with the components it has (missing ones selected as 0/1, never a missing channel).
/// Returns the channels and how many components carry the bytes.
/// A twiddled plane of 32- or 64-byte sample groups (2 or 4 samples of 16 bytes, 4 of 8) as
/// a one-level image of texels a quarter of the group wide (8 or 16 bytes), twice as wide and
/// high, over the same bytes: its tiles have twice the edge (tile edge T with T*T*bytes <= 16
/// KiB: 16 for 32 and 64 bytes, 32 for 8 and 16, agx16-cmdstream `tile_edge`) and the same
/// bytes, and within a tile the Morton index of (2x + a, 2y + b) is 4 * Morton(x, y) + a + 2b,
/// so texel (2x + (q & 1), 2y + (q >> 1)) is byte offset(x, y) + q * piece: quarter q of the
/// pixel's group in the sample-minor layout. Checked here on the planes' geometry (and by the
/// `sample_view_addresses_each_sample` test byte for byte).
fn sample_view(plane: &PlaneLayout) -> Result<ImageLayout, DrawError> {
    let piece = plane.element_bytes / 4;
    let view = ImageLayout::new(ImageDesc::simple_2d(
        2 * plane.width,
        2 * plane.height,
        piece,
        Tiling::Twiddled,
    ))
    .map_err(|e| DrawError::Framebuffer(format!("reload texture layout: {e}")))?;
    let v = &view.levels[0].plane;
    if !matches!(plane.element_bytes, 32 | 64)
        || v.size != plane.size
        || v.tile_w != 2 * plane.tile_w
        || v.tile_h != 2 * plane.tile_h
        || v.cols != plane.cols
    {
        return Err(DrawError::Framebuffer(format!(
            "a {}-byte sample group plane without a {piece}-byte view of the same bytes",
            plane.element_bytes
        )));
    }
    Ok(view)
}

fn reload_view(bytes: u32) -> Option<(Channels, u8)> {
    Some(match bytes {
        1 => (Channels::R8, 1),
        2 => (Channels::R16, 1),
        4 => (Channels::R32, 1),
        8 => (Channels::R32G32, 2),
        16 => (Channels::R32G32B32A32, 4),
        _ => return None,
    })
}

/// The texture descriptor a reload fetches a twiddled colour target through: its level-0 plane
/// as a one-level 2D image (agx16-cmdstream `texture_for`). Tile words hold the pixel's memory
/// bytes for RGBA8 and BGRA8 alike, so both are fetched as RGBA8 with the identity swizzle and
/// packed back byte for byte; raw targets through [`reload_view`].
///
/// Linear targets are not read through a texture. What is known of G16 linear sampled
/// descriptors: agx-re docs/descriptors/format-table.md §7 (buffer-backed textures, A18 and
/// M4 captures) puts bytes-per-row / 16 - 1 in word3 bits 14.. (the field 3D/array textures
/// use for their depth), and GravityLinux/mesa agx_apple9.h gives the same 16-bit field for
/// "linear sampled textures"; but what tells the texture unit that an image is linear is not
/// established: word0 bits 4..5 (G13's layout field, 0 = linear) read 2 in every M4/A18
/// capture agx-re made, buffer-backed ones included (it reads them as part of the channel
/// arrangement), and GravityLinux's one linear descriptor (`agx_apple9_pack_r32f_texture`,
/// a tightly packed R32F image) also carries 2 with a zero stride field. With 2 meaning the
/// twiddled layout for the model, a linear descriptor cannot be written from evidence yet,
/// so [`ReloadSource::Memory`] reads linear targets with device loads instead.
fn reload_texture(t: &crate::fb::ColorTarget, samples: u32) -> Result<Texture, DrawError> {
    if !t.plane.is_twiddled() {
        return Err(DrawError::Framebuffer(
            "a linear colour target reaches the texture reload (it is read with device loads)"
                .into(),
        ));
    }
    // Multisampled: one texel is a pixel's sample group (the plane's element).
    let mut bytes = t.format.memory_bytes() * samples;
    let raw = samples > 1 || matches!(t.format, TileFormat::Raw { .. });
    // No texel is 32 or 64 bytes wide: such groups are read as an image of quarter-group
    // texels of twice the width and height ([`sample_view`]), where quarter q of pixel
    // (x, y)'s group is texel (2x + (q & 1), 2y + (q >> 1)).
    let wide = samples > 1 && bytes > 16;
    let mut desc = ImageDesc::simple_2d(
        t.plane.width,
        t.plane.height,
        if wide { bytes / samples } else { bytes },
        Tiling::Twiddled,
    );
    if wide {
        desc.samples = samples;
    }
    let mut layout = ImageLayout::new(desc)
        .map_err(|e| DrawError::Framebuffer(format!("reload texture layout: {e}")))?;
    if layout.levels[0].plane != t.plane {
        return Err(DrawError::Framebuffer(
            "a tiled colour target whose plane is not a one-level image's layout".into(),
        ));
    }
    if wide {
        layout = sample_view(&t.plane)?;
        bytes /= 4;
    }
    let format = match raw {
        false => TextureFormat {
            channels: Channels::R8G8B8A8,
            numeric_type: NumericType::Unorm,
            swizzle: [Swizzle::R, Swizzle::G, Swizzle::B, Swizzle::A],
            srgb: false,
        },
        true => {
            let (channels, n) = reload_view(bytes).ok_or_else(|| {
                DrawError::Unsupported(format!("reloading a {bytes}-byte colour target"))
            })?;
            let pick = |k: u8, s: Swizzle| if k < n { s } else { Swizzle::Zero };
            TextureFormat {
                channels,
                numeric_type: NumericType::Uint,
                swizzle: [
                    Swizzle::R,
                    pick(1, Swizzle::G),
                    pick(2, Swizzle::B),
                    if n == 4 { Swizzle::A } else { Swizzle::One },
                ],
                srgb: false,
            }
        }
    };
    texture_for(&layout, t.va, format)
        .map_err(|e| DrawError::Framebuffer(format!("reload texture descriptor: {e}")))
}

/// `TilePrograms` for the G16: bodies go into the device's program memory and arena,
/// launchers and image tables into the render's memory.
pub struct G16Tiles<'a> {
    pub cache: &'a mut TileCache,
    pub arena: &'a mut EntryArena,
    pub programs: &'a mut dyn GpuWriter,
}

impl G16Tiles<'_> {
    fn body(&mut self, code: Vec<u8>) -> Result<ShaderBody, DrawError> {
        if let Some(b) = self.cache.bodies.get(&code) {
            return Ok(*b);
        }
        let b = self.arena.add_body(self.programs, &code)?;
        self.cache.bodies.insert(code, b);
        Ok(b)
    }
}

fn targets<'a>(
    pass: &TilePass<'a>,
) -> Result<Vec<(usize, u32, &'a crate::fb::ColorTarget)>, DrawError> {
    let mut out = Vec::new();
    for (slot, t) in pass.batch.fb.colors.iter().enumerate() {
        let (Some(t), Some(off)) = (t, pass.layout.offsets[slot]) else {
            continue;
        };
        // Tile words hold the pixel's bytes in memory order (the fragment program packs B
        // first for BGRA8, and every raw format itself), so each target exports as a byte
        // copy through a PBE of the same width with the identity swizzle
        // (`TileFormat::export_view`).
        if t.format.export_view().is_none() {
            return Err(DrawError::Unsupported(format!(
                "colour target {slot} of format {:?}: no block-store view of its width",
                t.format
            )));
        }
        out.push((slot, off, t));
    }
    Ok(out)
}

impl TilePrograms for G16Tiles<'_> {
    fn background(
        &mut self,
        mem: &mut dyn GpuWriter,
        pass: &TilePass,
    ) -> Result<(u32, u32), DrawError> {
        let targets = targets(pass)?;
        if targets.is_empty() {
            return Ok((0, 0));
        }
        let samples = pass.batch.fb.samples;
        let mut words = Vec::new();
        let mut textures = Vec::new();
        // VAs of the linear targets reloaded with device loads, base slot FIRST_RELOAD_SLOT on.
        let mut linear: Vec<u64> = Vec::new();
        for &(slot, offset, t) in &targets {
            let n = t.format.tile_bytes() / 4;
            if let Some(value) = &pass.clear[slot] {
                if value.len() != n as usize {
                    return Err(DrawError::Framebuffer(format!(
                        "clear value of {} words for colour target {slot} of {n} tile words",
                        value.len()
                    )));
                }
                for (k, &v) in value.iter().enumerate() {
                    words.push((offset / 4 + k as u32, TileInit::Clear(v)));
                }
                continue;
            }
            let raw_words = match t.format {
                TileFormat::Raw { bytes } => (bytes as u32).div_ceil(4) as u8,
                _ => 0,
            };
            let source = if t.plane.is_twiddled() {
                let texture = u8::try_from(textures.len()).map_err(|_| {
                    DrawError::Framebuffer("more reloaded targets than texture indices".into())
                })?;
                textures.push(reload_texture(t, samples)?);
                ReloadSource::Texture(texture)
            } else {
                // Device base slots after the six roots (sim/GFX.md "Render-stage uniform
                // ABI": base slot q is argument words 2q, 2q+1).
                let slot = FIRST_RELOAD_SLOT + linear.len() as u8;
                linear.push(t.va);
                ReloadSource::Memory {
                    slot,
                    row_stride: t.plane.row_stride as u32,
                    bytes: t.format.memory_bytes() as u8,
                }
            };
            let init = TileInit::Load {
                source,
                origin: pass.origin,
                width: t.plane.width,
                height: t.plane.height,
                raw_words,
                bytes: t.format.memory_bytes() as u8,
            };
            words.push((offset / 4, init));
        }
        if textures.is_empty() && linear.is_empty() {
            let clears: Vec<(u32, u32)> = words
                .iter()
                .map(|&(w, i)| match i {
                    TileInit::Clear(v) => (w, v),
                    TileInit::Load { .. } => unreachable!("no target loads"),
                })
                .collect();
            let body = self.body(clear_body(&clears, samples)?)?;
            let usc = stage_launcher_for(mem, pass, body.entry_offset, 0, 0, &[])?;
            return Ok((usc, 0));
        }
        let key = ReloadKey(words.clone(), samples);
        let (body, publications, scratch) = match self.cache.reloads.get(&key) {
            Some(&b) => b,
            None => {
                let (code, publications, scratch) = reload_body(&words, samples)?;
                let b = (self.body(code)?, publications, scratch);
                self.cache.reloads.insert(key, b);
                b
            }
        };
        // The texture table in root 0 (sim/GFX.md "Render-stage uniform ABI"); a fetch reads
        // no sampler, so root 1 stays zero.
        let mut args = Vec::new();
        if !textures.is_empty() {
            StageTextures {
                textures: textures.into_iter().map(Some).collect(),
                samplers: Vec::new(),
            }
            .upload(mem, &mut args)?;
        }
        if !linear.is_empty() {
            args.resize(2 * FIRST_RELOAD_SLOT as usize, 0);
            for va in linear {
                args.extend([va as u32, (va >> 32) as u32]);
            }
        }
        let usc = stage_launcher_for(mem, pass, body.entry_offset, publications, scratch, &args)?;
        Ok((usc, 0))
    }

    fn end_of_tile(
        &mut self,
        mem: &mut dyn GpuWriter,
        pass: &TilePass,
    ) -> Result<(u32, u32), DrawError> {
        let targets = targets(pass)?;
        let samples = pass.batch.fb.samples;
        let mut table = Vec::new();
        let mut stores = Vec::new();
        for (k, &(_, offset, t)) in targets.iter().enumerate() {
            let linear = (!t.plane.is_twiddled()).then_some(t.plane.row_stride as u32);
            let bytes = t.format.memory_bytes() * samples;
            if (samples > 1 && !t.plane.is_twiddled())
                || (t.plane.is_twiddled()
                    && t.plane != PlaneLayout::twiddled(t.plane.width, t.plane.height, bytes))
            {
                return Err(DrawError::Framebuffer(
                    "a tiled colour target whose plane is not the PBE's layout".into(),
                ));
            }
            let (block, channels, numeric) = t.format.export_view().expect("checked by targets");
            let pbe = if samples > 1 {
                Pbe::render_target_2d_ms(
                    t.va,
                    t.plane.width,
                    t.plane.height,
                    channels,
                    numeric,
                    samples,
                )
            } else {
                Pbe::render_target_2d(
                    t.va,
                    t.plane.width,
                    t.plane.height,
                    channels,
                    numeric,
                    linear,
                )
            };
            let mut d = pbe.pack()?;
            d.resize(TEXTURE_TABLE_STRIDE, 0);
            table.extend(d);
            stores.push((k as u32, offset, block));
        }
        // The body exports each tile where its workgroup id puts it, or (renders of one
        // utile) to fixed image pixels: this render's origin.
        let origin = match pass.located {
            Some(tile) => ExportOrigin::Located(tile),
            None => ExportOrigin::Fixed(pass.origin.0, pass.origin.1),
        };
        let body = self.body(export_body(origin, &stores, samples > 1)?)?;
        let mut args = Vec::new();
        if !table.is_empty() {
            let t = mem.upload(Heap::General, &table, 64)?;
            args.extend([t as u32, (t >> 32) as u32]);
        }
        // Tuples 0..12 (reused past four targets), three words each.
        let publications = 4 * stores.len().min(4) as u32;
        let usc = stage_launcher_for(mem, pass, body.entry_offset, publications, 0, &args)?;
        Ok((usc, 0))
    }
}

#[cfg(test)]
mod sample_view_tests {
    use super::*;

    /// Every sample of every pixel of 4x 16-byte, 2x 16-byte and 4x 8-byte images of assorted
    /// sizes (below, at and past the 16-element tile edge, odd and padded) is the quarter-group
    /// view's texels (2x + (q & 1), 2y + (q >> 1)) for the quarters q it spans, byte for byte.
    #[test]
    fn sample_view_addresses_each_sample() {
        for (bytes, samples) in [(16u32, 4u32), (16, 2), (8, 4)] {
            let piece = bytes * samples / 4;
            for (w, h) in [
                (1, 1),
                (3, 5),
                (16, 16),
                (17, 9),
                (40, 33),
                (64, 7),
                (100, 70),
            ] {
                let mut d = ImageDesc::simple_2d(w, h, bytes, Tiling::Twiddled);
                d.samples = samples;
                let ms = ImageLayout::new(d).unwrap();
                let view = sample_view(&ms.levels[0].plane).unwrap();
                for y in 0..h {
                    for x in 0..w {
                        for s in 0..samples {
                            for at in (s * bytes..(s + 1) * bytes).step_by(piece as usize) {
                                let q = at / piece;
                                assert_eq!(
                                    ms.element_offset(0, 0, x, y, s) + (at - s * bytes) as u64,
                                    view.element_offset(0, 0, 2 * x + (q & 1), 2 * y + (q >> 1), 0),
                                    "{samples}x{bytes} {w}x{h} pixel ({x}, {y}) sample {s}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

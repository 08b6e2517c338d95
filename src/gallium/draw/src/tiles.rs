//! The G16 background and end-of-tile programs (sim/GFX.md "Background and end-of-tile
//! programs (what a driver emits)"): the background body writes each colour target's clear
//! word with `tile_store`; the end-of-tile body exports each target with `block_image_store`
//! through a PBE descriptor in the image table the launcher's first root points at. Both are
//! entered through fragment launchers. Bodies are cached by their bytes; launchers and image
//! tables are per render.

use crate::build::{stage_launcher_for, TilePass, TilePrograms};
use crate::fb::TileFormat;
use crate::mem::{DrawError, GpuWriter, Heap};
use crate::program::{EntryArena, ShaderBody};
use agx16_cmdstream::descriptors::{Channels, NumericType, Pbe};
use agx16_cmdstream::layout::PlaneLayout;
use agx16_cmdstream::Record;
use agx16_isa::meaning::{block_store_sequence, tile_word_stores, TileFormat as BlockFormat};
use agx16_isa::{encode_program, Instr, Part, Role};
use std::collections::HashMap;

/// Image-table entries are 32-byte descriptors: texture and PBE descriptors are 32 bytes
/// (ADevWithAnIdea/agx-re docs/descriptors, measured); that the table is a plain array of them is
/// inferred (the model's `gfx::tile_programs::IMAGE_TABLE_STRIDE`, sim/GFX.md).
const IMAGE_TABLE_STRIDE: usize = 32;

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
/// packer's tile epilogue; `tile_store`'s `rt` field counts 32-bit words, sim/GFX.md).
pub fn clear_body(words: &[(u32, u32)]) -> Result<Vec<u8>, DrawError> {
    let mut p = Vec::new();
    for (k, &(_, value)) in words.iter().enumerate() {
        p.push(mov32(k as u32, value)?);
    }
    let stores: Vec<(u32, u32)> = words
        .iter()
        .enumerate()
        .map(|(k, &(word, _))| (k as u32, word))
        .collect();
    p.extend(
        tile_word_stores(&stores).map_err(|e| DrawError::Program(format!("tile stores: {e}")))?,
    );
    p.push(isa("stop", &[])?);
    Ok(encode_program(&p))
}

/// End-of-tile body: for each `(image, tile byte offset)`, the utile to image pixel
/// (`x`, `y`) through image-table entry `image`: agx16-isa's block-store sequence (publish x,
/// y and offset << 16 into publication tuple 4k, store, join) for target k.
pub fn export_body(x: u32, y: u32, targets: &[(u32, u32)]) -> Result<Vec<u8>, DrawError> {
    let mut p = Vec::new();
    for (k, &(image, offset)) in targets.iter().enumerate() {
        let r = 3 * k as u32;
        p.extend([mov32(r, x)?, mov32(r + 1, y)?, mov32(r + 2, offset << 16)?]);
        let store =
            block_store_sequence(4 * k as u32, r, r + 1, r + 2, image, BlockFormat::Packed8)
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
        // first for BGRA8), so both formats export as a byte copy through an RGBA8 PBE with
        // the identity swizzle, the one the model's block store takes.
        match t.format {
            TileFormat::Rgba8Unorm | TileFormat::Bgra8Unorm => {}
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
        let mut words = Vec::new();
        for &(slot, offset, _) in &targets {
            let value = pass.clear[slot].ok_or_else(|| {
                DrawError::Unsupported(
                    "keeping a colour target's earlier contents across renders (the background \
                     program's block load is not established)"
                        .into(),
                )
            })?;
            words.push((offset / 4, u32::from_le_bytes(value)));
        }
        let body = self.body(clear_body(&words)?)?;
        let usc = stage_launcher_for(mem, pass, body.entry_offset, 0, &[])?;
        Ok((usc, 0))
    }

    fn end_of_tile(
        &mut self,
        mem: &mut dyn GpuWriter,
        pass: &TilePass,
    ) -> Result<(u32, u32), DrawError> {
        let targets = targets(pass)?;
        let mut table = Vec::new();
        let mut stores = Vec::new();
        for (k, &(_, offset, t)) in targets.iter().enumerate() {
            let linear = (!t.plane.is_twiddled()).then_some(t.plane.row_stride as u32);
            if t.plane.is_twiddled()
                && t.plane != PlaneLayout::twiddled(t.plane.width, t.plane.height, 4)
            {
                return Err(DrawError::Framebuffer(
                    "a tiled colour target whose plane is not the PBE's layout".into(),
                ));
            }
            let pbe = Pbe::render_target_2d(
                t.va,
                t.plane.width,
                t.plane.height,
                Channels::R8G8B8A8,
                NumericType::Unorm,
                linear,
            );
            let mut d = pbe.pack()?;
            d.resize(IMAGE_TABLE_STRIDE, 0);
            table.extend(d);
            stores.push((k as u32, offset));
        }
        // The body exports to fixed image pixels: this render's origin.
        let body = self.body(export_body(pass.origin.0, pass.origin.1, &stores)?)?;
        let mut args = Vec::new();
        if !table.is_empty() {
            let t = mem.upload(Heap::General, &table, 64)?;
            args.extend([t as u32, (t >> 32) as u32]);
        }
        let usc = stage_launcher_for(mem, pass, body.entry_offset, 4 * stores.len() as u32, &args)?;
        Ok((usc, 0))
    }
}

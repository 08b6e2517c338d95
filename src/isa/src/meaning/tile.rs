//! The end-of-tile block store: field meanings and builders in the T8132 packer's shapes
//! (GravityLinux/mesa src/asahi/compiler/agx_apple9_ir.c BLOCK_IMAGE_STORE and
//! BLOCK_STORE_PARAMS; agx_apple9_machine.c marks both HARDWARE; its end-of-tile export helper
//! ran them for every stored attachment on T8132, README.apple9-es3.md "Native tile export").
//!
//! Sequence the packer emits for one attachment: three `logic_export`s publishing
//! `x`, `y`, `tile byte offset << 16` (IOR of the value with itself, completion slot 1) into
//! publications c, c+1, c+2 (c = 0, 4, 8 or 12), the 12-byte `block_image_store` waiting on
//! slot 1, and `tile_fence` 0x300 waiting on slot 1 ("synchronously join export slot 1").

use crate::form::Role;
use crate::instr::{EncodeError, Instr, Part};
use crate::table::form_by_name;

/// `mode` of the 2D block store (README.apple9-ir.md "Native multisample block stores").
pub const BLOCK_STORE_MODE_2D: u64 = 0x5a8;
/// `mode` of the multisample block store (every sample of the implicit tile).
pub const BLOCK_STORE_MODE_MS: u64 = 0x228;

/// Tile representation the block store reads (agx_apple9.h `agx_apple9_block_export_format`:
/// the NIR format of the tile, signedness and destination conversion come from the PBE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileFormat {
    /// 16-bit channels.
    Bits16 = 1,
    /// 32-bit channels.
    Bits32 = 3,
    /// 8-bit integer channels.
    Int8 = 5,
    /// Packed words: 8-bit normalised channels, RGB10A2, R11G11B10.
    Packed8 = 7,
}

impl TileFormat {
    pub fn from_field(v: u64) -> Option<TileFormat> {
        Some(match v {
            1 => TileFormat::Bits16,
            3 => TileFormat::Bits32,
            5 => TileFormat::Int8,
            7 => TileFormat::Packed8,
            _ => return None,
        })
    }
}

fn form(name: &str) -> Result<&'static crate::form::Form, EncodeError> {
    form_by_name(name).ok_or_else(|| EncodeError::Other(format!("no form {name}")))
}

/// Publication `publication` := r`src` | r`src`, completing on slot 1: the packer's block
/// store parameter publisher (LOGIC_EXPORT of IOR, slot field 0), source kept.
pub fn publish_word_instr(publication: u32, src: u32) -> Result<Instr, EncodeError> {
    if publication >= 128 {
        return Err(EncodeError::Other(format!(
            "publication {publication} past the 128-entry export file"
        )));
    }
    let mut i = Instr::new(form("logic_export")?);
    i.set("dst", publication as u64)?
        .set_gpr(Role::SrcA, src, Part::Full)?
        .set_gpr(Role::SrcB, src, Part::Full)?
        .set("a_keep", 1)?
        .set("b_keep", 1)?
        .set("op_base", 1)?
        .set("lut_a_sel", 2)?
        .set("lut_b3", 1)?
        .set("slot", 0)?;
    Ok(i)
}

/// The 2D block image store of the tuple at publication `coord` (0, 4, 8 or 12) to image-table
/// entry `image` (0..15) reading tile representation `format`, waiting on slot 1.
pub fn block_image_store_instr(
    coord: u32,
    image: u32,
    format: TileFormat,
) -> Result<Instr, EncodeError> {
    block_image_store_mode(coord, image, format, BLOCK_STORE_MODE_2D)
}

/// The multisample block image store (mode 0x228): every sample of the implicit tile, the
/// tuple at `coord` holding (x, y, 0, offset << 16) (GravityLinux/mesa agx_apple9_ir.c
/// BLOCK_IMAGE_STORE with the BLOCK_IMAGE_STORE_MS encoding; README.apple9-ir.md "Native
/// multisample block stores": 2x/4x exports on T8132, eight-target mixed-format tests).
pub fn block_image_store_ms_instr(
    coord: u32,
    image: u32,
    format: TileFormat,
) -> Result<Instr, EncodeError> {
    block_image_store_mode(coord, image, format, BLOCK_STORE_MODE_MS)
}

fn block_image_store_mode(
    coord: u32,
    image: u32,
    format: TileFormat,
    mode: u64,
) -> Result<Instr, EncodeError> {
    if !coord.is_multiple_of(4) || coord > 12 || image > 15 {
        return Err(EncodeError::Other(format!(
            "block store tuple {coord} / image {image}: the packer uses tuples 0, 4, 8, 12 and \
             images 0..15"
        )));
    }
    let mut i = Instr::new(form("block_image_store")?);
    i.set("wait", 1)?
        .set("coord", coord as u64)?
        .set("image", image as u64)?
        .set("ctrl7", 0x80)?
        .set("mode", mode)?
        .set("format", format as u64)?
        .set("ctrl10", 1)?;
    Ok(i)
}

/// The image pixel of the tile an end-of-tile invocation exports, into r`rx`, r`ry` (r0..r15):
/// its workgroup id (`get_sr` 0x9c / 0x9d, the full-word form) times the tile size `tile`
/// (powers of two), with in-place `ishl_imm`s. Evidence: the T8132 end-of-tile helper computes
/// its block-store coordinates as workgroup id x * 32, y * (4 samples ? 16 : 32)
/// (GravityLinux/mesa src/gallium/drivers/asahi/agx_blit.c `asahi_reload_fs`; README.apple9-
/// render-seed.md "Workgroup IDs locate the tile"), and its compiler reads load_workgroup_id
/// as get_sr 0x9c + component, direct 32-bit values (agx_compile_apple9.c
/// `apple9_system_source`, EXP-M4-29); the shift is the packer's `pack_shift` shape
/// (agx_apple9_ir.c, as agx16-compiler emits it). Validated by that CTS-passing M4 driver.
pub fn tile_origin_instrs(rx: u32, ry: u32, tile: (u32, u32)) -> Result<Vec<Instr>, EncodeError> {
    let mut out = Vec::new();
    for (r, sel, size) in [(rx, 0x9c, tile.0), (ry, 0x9d, tile.1)] {
        if r > 15 || !size.is_power_of_two() {
            return Err(EncodeError::Other(format!(
                "tile origin into r{r} with tile size {size}: get_sr writes r0..r15, sizes are \
                 powers of two"
            )));
        }
        let mut sr = Instr::build("get_sr", &[("form", 1), ("sr_sel", sel)])?;
        sr.set_gpr(Role::Dst, r, Part::Full)?;
        out.push(sr);
        let mut sh = Instr::build(
            "ishl_imm",
            &[
                ("mode", 0x15),
                ("src_class", 2),
                ("b8", 0xf0),
                ("b9_hi", 4),
                ("amount", size.trailing_zeros() as u64),
            ],
        )?;
        sh.set_gpr(Role::Dst, r, Part::Full)?
            .set_gpr(Role::SrcA, r, Part::Full)?;
        out.push(sh);
    }
    Ok(out)
}

/// `tile_fence` 0x300 waiting on slot 1: joins the block store.
pub fn block_store_join_instr() -> Result<Instr, EncodeError> {
    let mut i = Instr::new(form("tile_fence")?);
    i.set("wait", 1)?.set("access", 0x300)?;
    Ok(i)
}

/// The whole export of one attachment: publish r`x`, r`y`, r`offset_word` (= tile byte offset
/// << 16) into publications `coord`..`coord`+2, store, join. The join releases the tuple, so the
/// next attachment may publish into it again: the packer's store contract "releases its
/// publication and joins the memory operation before the next VIR instruction"
/// (agx_apple9_ir.c `agx_apple9_vir_emit_block_image_store`), and with only four tuples its
/// end-of-tile helper exported eight RGBA32F attachments on T8132 (README.apple9-es3.md).
/// Validated by a CTS-passing M4 driver.
pub fn block_store_sequence(
    coord: u32,
    x: u32,
    y: u32,
    offset_word: u32,
    image: u32,
    format: TileFormat,
) -> Result<Vec<Instr>, EncodeError> {
    Ok(vec![
        publish_word_instr(coord, x)?,
        publish_word_instr(coord + 1, y)?,
        publish_word_instr(coord + 2, offset_word)?,
        block_image_store_instr(coord, image, format)?,
        block_store_join_instr()?,
    ])
}

/// The multisample export of one attachment: publish x, y, zero and `offset_word` (= tile
/// byte offset << 16) into publications `coord`..`coord`+3 (r`zero` must hold 0), the
/// multisample store, join (README.apple9-ir.md: "(pixel_x, pixel_y, 0, tile_byte_offset <<
/// 16)"; putting the offset in the third word exports attachment zero).
pub fn block_store_ms_sequence(
    coord: u32,
    [x, y, zero, offset_word]: [u32; 4],
    image: u32,
    format: TileFormat,
) -> Result<Vec<Instr>, EncodeError> {
    Ok(vec![
        publish_word_instr(coord, x)?,
        publish_word_instr(coord + 1, y)?,
        publish_word_instr(coord + 2, zero)?,
        publish_word_instr(coord + 3, offset_word)?,
        block_image_store_ms_instr(coord, image, format)?,
        block_store_join_instr()?,
    ])
}

/// Like [`tile_word_stores`] for a multisampled tilebuffer: each `(source register, tile
/// word, mask register)` stores with `tile_store_mask`, the samples in the mask register's low
/// half (GravityLinux/mesa agx_apple9_ir.c TILE_STORE, dynamic-mask branch: `e7 16 54
/// <src<<1> 00 <w<<1> <m<<1> 4e 00 00 00 08`; the mask is kept).
pub fn tile_word_stores_masked(stores: &[(u32, u32, u32)]) -> Result<Vec<Instr>, EncodeError> {
    let mut v = vec![
        Instr::build("tile_setup", &[("b1", 2), ("access", 0x600)])?,
        Instr::build("tile_setup", &[("b1", 2), ("access", 0x80c)])?,
    ];
    for &(src, word, mask) in stores {
        let mut i = Instr::build(
            "tile_store_mask",
            &[("mode", 0x54), ("rt", word as u64), ("fmt", 0x4e)],
        )?;
        i.set_gpr(Role::SrcD, src, Part::Full)?
            .set_gpr(Role::SrcB, mask, Part::Full)?;
        v.push(i);
    }
    v.push(Instr::build("tile_fence", &[("access", 0x20c)])?);
    Ok(v)
}

/// The packer's tile epilogue for raw 32-bit tile words: `tile_setup` 0x600, `tile_setup` 0x80c,
/// one `tile_store` per `(source register, tile word)` (static sample mask 1, byte 7 0x4e: the
/// word stored as is), `tile_fence` 0x20c (GravityLinux/mesa agx_apple9_ir.c TILE_STORE and
/// tile sync packers, the fragment epilogue of that driver's GLES runs on T8132; the Apple
/// EXP-0008 render_min epilogue has the same bytes, ADevWithAnIdea/agx-re, G17P). Used by the
/// compiler's colour outputs and the driver's background (clear) programs.
pub fn tile_word_stores(stores: &[(u32, u32)]) -> Result<Vec<Instr>, EncodeError> {
    let mut v = vec![
        Instr::build("tile_setup", &[("b1", 2), ("access", 0x600)])?,
        Instr::build("tile_setup", &[("b1", 2), ("access", 0x80c)])?,
    ];
    for &(src, word) in stores {
        v.push(Instr::build(
            "tile_store",
            &[
                ("mode", 0x54),
                ("src", src as u64),
                ("rt", word as u64),
                ("mask", 1),
                ("fmt", 0x4e),
            ],
        )?);
    }
    v.push(Instr::build("tile_fence", &[("access", 0x20c)])?);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(v: &[Instr]) -> String {
        crate::encode_program(v)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn packer_bytes() {
        // BLOCK_IMAGE_STORE: `57 10 54 <c<<1> 00 <img<<4> 00 80 a8 <fmt<<4|5> 01 00`, then
        // `07 12 54 00 03 00`.
        let s = block_image_store_instr(8, 3, TileFormat::Packed8).unwrap();
        let j = block_store_join_instr().unwrap();
        assert_eq!(hex(&[s, j]), "5710541000300080a8750100071254000300");
        assert!(block_image_store_instr(2, 0, TileFormat::Packed8).is_err());
        assert!(block_image_store_instr(0, 16, TileFormat::Packed8).is_err());
        let seq = block_store_sequence(4, 0, 1, 2, 0, TileFormat::Bits32).unwrap();
        assert_eq!(seq.len(), 5);
        assert!(seq[..3].iter().all(|i| i.form.name == "logic_export"));
        assert_eq!(TileFormat::from_field(7), Some(TileFormat::Packed8));
        assert_eq!(TileFormat::from_field(2), None);
        // The multisample store: mode 0x228 (byte 8 0x28, byte 9 fmt<<4 | 2), four words.
        let m = block_image_store_ms_instr(4, 1, TileFormat::Packed8).unwrap();
        assert_eq!(hex(&[m]), "571054080010008028720100");
        let seq = block_store_ms_sequence(0, [1, 2, 3, 4], 0, TileFormat::Bits32).unwrap();
        assert_eq!(seq.len(), 6);
    }

    #[test]
    fn masked_tile_store_bytes() {
        // TILE_STORE_MASK: `e7 16 54 <src<<1> 00 <w<<1> <m<<1> 4e 00 00 00 08`.
        let v = tile_word_stores_masked(&[(5, 2, 7)]).unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(hex(&v[2..3]), "e716540a00040e4e00000008");
        let back = crate::decode(&crate::encode_program(&v[2..3])).unwrap();
        assert_eq!(back.form.name, "tile_store_mask");
    }
}

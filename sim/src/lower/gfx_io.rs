//! Graphics IO forms of stage bodies: what the render model's fixed-function units do for
//! them. The shader core lowers these forms to refusals (they touch state it does not own:
//! coefficient registers, the tilebuffer); the render model (`crate::gfx::body`) runs the
//! body on the core and performs each of these ops when the core stops at it.
//!
//! Only the encodings the T8132 compiler packers emit (GravityLinux/mesa
//! src/asahi/compiler/agx_apple9_ir.c, its GLES suites run on M4, via agx16-isa's field
//! table) are accepted; any other value of a field is an error naming it.

use super::check;
use crate::core::ops::{Dst, Part};
use agx16_isa::meaning::{export_op, iter_location, ExportOp, IterLocation};
use agx16_isa::{Instr, Op as F, Role};

/// One graphics IO operation, fields interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GfxOp {
    /// r[dst] = coefficient register `cf` evaluated at the pixel centre (divided by
    /// coefficient 0 when the register's binding is perspective).
    Iterate { dst: Dst, cf: u8 },
    /// Raw 32-bit tilebuffer word `word` of the pixel's samples := r[src]: sample 0 (static
    /// mask, `mask` None) or the samples in the low half of r[mask] (`tile_store_mask`).
    TileStore { src: u8, word: u8, mask: Option<u8> },
    /// r[dst] = raw 32-bit tilebuffer word `word` of sample 0 (static mask) or of the one
    /// sample in the low half of r[mask] (`tile_read_mask`), published on `slot`.
    TileRead {
        dst: u8,
        word: u8,
        slot: u8,
        mask: Option<u8>,
    },
    /// Tile access setup / fence: orders tilebuffer access between invocations of a pixel.
    /// `join`: the fence is the block store's join (`tile_fence` 0x300 waiting on slot 1), which
    /// completes the stores before it and releases the publications they read (see
    /// `crate::gfx::tile_programs` "Publication reuse").
    TileSync { join: bool },
    /// r[dst] = the invocation's vertex id (`get_sr` selector 0xdd in a vertex body).
    VertexId { dst: Dst },
    /// r[dst] = the invocation's instance id (`get_sr` selector 0xd8 in a vertex body).
    InstanceId { dst: Dst },
    /// r[dst] = the invocation's framebuffer pixel coordinate, x for axis 0 and y for axis 1
    /// (`get_sr` 0xa0 / 0xa1 in a fragment-stage body).
    PixelCoord { dst: Dst, axis: u8 },
    /// r[dst] = the invocation's facing word: 0 for a front-facing primitive, nonzero for a
    /// back-facing one (`get_sr` 0xc5 in a fragment body).
    BackFacing { dst: Dst },
    /// r[dst] = the invocation's workgroup id along `axis` (0 x, 1 y; `get_sr` 0x9c / 0x9d).
    /// Only end-of-tile bodies give it a value: the index of the tile they export.
    WorkgroupId { dst: Dst, axis: u8 },
    /// Vertex output `slot` (0..3 position, then user scalars) := publication register
    /// `src`, after the publication completes (wait mask, slots 1..6 as bits 0..5).
    VaryingStore { slot: u8, src: u8, wait: u8 },
    /// Export the utile (end-of-tile block store): publications `coord`, `coord`+1, `coord`+2
    /// hold pixel x, pixel y and `tile byte offset << 16 | level`; `image` names the entry of
    /// the stage's image table whose PBE descriptor says where and how; `format` is the tile
    /// representation. The store waits on the slots in `wait` (bits 0..5 = slots 1..6).
    /// `multisample` (mode 0x228): the tuple is four words (x, y, 0, `offset << 16`) and every
    /// sample of the utile goes out.
    BlockStore {
        coord: u8,
        image: u8,
        format: u8,
        wait: u8,
        multisample: bool,
    },
    /// r[dst] = the invocation's coverage word, published on scoreboard slot 1: bits 0..3 the
    /// samples the invocation covers, bits 4..7 the covered samples whose depth/stencil test
    /// has not run yet (`get_sr` 0xc2; meaning of the high nibble inferred, see
    /// `crate::gfx::body` "Coverage").
    Coverage { dst: u8 },
    /// Coverage write (`frag_sample_submit`): the control word in publication `src` (waited on
    /// through `wait`, bits 0..5 = slots 1..6) kills or tests samples (`crate::gfx::body`).
    SampleMask { src: u8, wait: u8 },
    /// Depth store (`depth_store`): a coverage write whose control word is publication `src`
    /// (even) and whose tested samples take the depth (f32) in publication `src` + 1.
    DepthStore { src: u8, wait: u8 },
    /// Texture sample/fetch (performed by `crate::gfx::texture`).
    Texture(super::texture::TexInstr),
    /// r[dst] = the quad-local difference of r[src] along `axis` (0 x, 1 y), per row or column
    /// of the lane's quad (`crate::gfx::quad` has the rules); `keep` clear releases the
    /// source after the read.
    Derivative {
        axis: u8,
        dst: u8,
        src: u8,
        keep: bool,
    },
    /// Publication register `dst` := `op`(r[a], r[b]), complete on scoreboard `slot` (1..6).
    Export {
        dst: u8,
        a: u8,
        b: u8,
        op: ExportOp,
        slot: u8,
    },
}

/// The graphics IO op of `i`, `None` when `i` is not a graphics IO form, or the reason it
/// is refused.
pub fn lower(i: &Instr) -> Option<Result<GfxOp, String>> {
    let r = match (i.form.op, i.form.name) {
        (F::Iterate, "iter") => iterate(i),
        (F::TileStore, "tile_store") => tile_store(i),
        (F::TileStore, "tile_store_mask") => tile_store_mask(i),
        (F::TileStore, "block_image_store") => block_store(i),
        (F::TileStore, "depth_store") => depth_store(i),
        (F::TileRead, "tile_read") => tile_read(i),
        (F::TileRead, "tile_read_mask") => tile_read_mask(i),
        (F::TileRead, "tile_setup") => tile_sync(i, true),
        (F::Fence, "tile_fence") => tile_sync(i, false),
        (F::GetSr, "get_sr") if i.field("sr_sel") == Some(0xdd) => {
            vertex_sr(i).map(|dst| GfxOp::VertexId { dst })
        }
        (F::GetSr, "get_sr") if i.field("sr_sel") == Some(0xd8) => {
            vertex_sr(i).map(|dst| GfxOp::InstanceId { dst })
        }
        // The T8132 compiler lowers NIR `load_pixel_coord` to get_sr 0xa0 + component ("the
        // fragment SR reads a full word"; agx_compile_apple9.c `apple9_system_source`; its
        // GLES suites ran gl_FragCoord on M4). In compute the same selectors are the thread
        // position in the grid; which one a body sees depends on its stage.
        (F::GetSr, "get_sr") if matches!(i.field("sr_sel"), Some(0xa0 | 0xa1)) => {
            let axis = (i.field("sr_sel").unwrap_or(0) - 0xa0) as u8;
            vertex_sr(i).map(|dst| GfxOp::PixelCoord { dst, axis })
        }
        // The T8132 compiler reads gl_FrontFacing as a full-word `get_sr` 0xc5 (the same
        // encoding as the pixel coordinates): "the word read of selector 0xc5 reports
        // back-facing", and NIR's front-facing Boolean is `0 < word ? false : true`
        // (GravityLinux/mesa src/asahi/compiler/agx_compile_apple9.c
        // `apple9_lower_bool_scalar` and its facing-state prologue; its GLES 3.0 suites ran
        // gl_FrontFacing on T8132). Only zero / nonzero is established.
        (F::GetSr, "get_sr") if i.field("sr_sel") == Some(0xc5) => {
            vertex_sr(i).map(|dst| GfxOp::BackFacing { dst })
        }
        // GravityLinux/mesa agx_apple9_ir.c packs its GET_COVERAGE read (immediate 0x10c2 only)
        // as `<dst<<4 | c> c2 10 06`, this row with the form bit set, and schedules it as an
        // asynchronous producer on slot 1 (README.apple9-ir.md); its GLES suites (discard,
        // sample masks) ran on T8132. Only that shape: r0..r15, form bit 1.
        (F::GetSr, "get_sr") if i.field("sr_sel") == Some(0xc2) => coverage_read(i),
        // The T8132 compiler reads NIR `load_workgroup_id` x / y as get_sr 0x9c / 0x9d, "direct
        // 32-bit values" through the same full-word encoding (agx_compile_apple9.c
        // `apple9_system_source`, EXP-M4-29 on M4); its end-of-tile helper locates its tile
        // with them (agx_blit.c `asahi_reload_fs`). The stage decides whether it has a value.
        (F::GetSr, "get_sr") if matches!(i.field("sr_sel"), Some(0x9c | 0x9d)) => {
            let axis = (i.field("sr_sel").unwrap_or(0) - 0x9c) as u8;
            vertex_sr(i).map(|dst| GfxOp::WorkgroupId { dst, axis })
        }
        // Any other special register in a render-stage body: the compute meanings (thread
        // and threadgroup positions, SIMD indices) have no established value there.
        (F::GetSr, _) => Err(format!(
            "special register {:#x} has no established value in a render-stage body",
            i.field("sr_sel").unwrap_or(0)
        )),
        (F::VaryingStore, "vary_store") => varying_store(i),
        (F::Opaque, "fadd_export" | "fmul_export" | "logic_export") => export(i),
        (F::Texture, "tex_sample") => super::texture::lower(i).map(GfxOp::Texture),
        (F::Derivative, "derivative") => derivative(i),
        (F::Iterate | F::TileStore | F::TileRead | F::VaryingStore, _) => Err(refusal(i)),
        (_, "frag_sample_submit") => sample_mask(i),
        _ => return None,
    };
    Some(r)
}

fn refusal(i: &Instr) -> String {
    match i.form.name {
        "iter_flat" => "flat iteration: the asynchronous tuple (word 2 = provoking vertex) is \
             not modelled"
            .into(),
        "iter_setup" => "centroid/sample positions are not modelled".into(),
        n => format!("{n} is not an established graphics IO encoding"),
    }
}

fn reg(i: &Instr, role: Role) -> Result<u8, String> {
    match i.operand(role).map(|o| o.value) {
        Some(agx16_isa::Operand::Gpr {
            reg,
            part: agx16_isa::Part::Full,
        }) if (reg as usize) < crate::core::GPRS => Ok(reg),
        other => Err(format!(
            "{} operand {other:?} is not a 32-bit register",
            role.as_str()
        )),
    }
}

// ITER `2f 05 54 <dst<<1> 03 <cf<<1> 00 02 10 00` (packer ITER at the pixel centre).
fn iterate(i: &Instr) -> Result<GfxOp, String> {
    match iter_location(i)? {
        IterLocation::Centre => {}
        IterLocation::Position { .. } => {
            return Err("iteration at a centroid/sample position is not modelled".into())
        }
    }
    check::fields(
        i,
        &["coeff_sel", "lead", "wait", "b7", "b9", "mode", "loc"],
        &[("b1_01", &[1]), ("b2_hi", &[0x15])],
    )?;
    let cf = i.field("slot").unwrap_or(0) as u8;
    Ok(GfxOp::Iterate {
        dst: Dst {
            reg: reg(i, Role::Dst)?,
            part: Part::Full,
        },
        cf,
    })
}

// TILE_STORE static-mask shape `e7 06 54 <src<<1> 00 <w<<1> 01 4e 00 00 00 00` (packer; the
// Apple-compiled EXP-0008 render_min epilogue stores with the same bytes). The GPR-mask
// shape (bit 12 / byte 11 = 8) is not separated from `kind` (launcher helper correction),
// so it is refused. Byte 7 0x4e is what the packer writes for every render-target format
// it packs itself (raw words); other values name Apple's per-format stores (corpus).
fn tile_store(i: &Instr) -> Result<GfxOp, String> {
    check::fields(
        i,
        &["rt"],
        &[("mode", &[0x54]), ("mask", &[1]), ("fmt", &[0x4e])],
    )?;
    let word = i.field("rt").unwrap_or(0) as u8;
    Ok(GfxOp::TileStore {
        src: reg(i, Role::SrcD)?,
        word,
        mask: None,
    })
}

// TILE_STORE_MASK `e7 16 54 <src<<1> 00 <w<<1> <m<<1> 4e <rel<<3> 00 00 08` (packer's dynamic
// branch): the mask register's low half (byte 6 bit 0 clear), byte 7 0x4e, every other byte
// zero; the release bit is the form's Release field (`super::hazards`).
fn tile_store_mask(i: &Instr) -> Result<GfxOp, String> {
    check::fields(
        i,
        &["rt", "src", "mask", "mask_release"],
        &[("mode", &[0x54]), ("fmt", &[0x4e])],
    )?;
    Ok(GfxOp::TileStore {
        src: reg(i, Role::SrcD)?,
        word: i.field("rt").unwrap_or(0) as u8,
        mask: Some(reg(i, Role::SrcB)?),
    })
}

// BLOCK_IMAGE_STORE `57 10 54 <c<<1> 00 <img<<4> 00 80 a8 <fmt<<4 | 5> 01 00` (packer; the
// compound ends with the tile fence waiting on slot 1): the packer emits only the 2D mode
// 0x5a8 and the multisample mode 0x228, byte 7 0x80, byte 10 1, publication bases 0..12 in
// steps of 4. The multisample mode exports all samples of the implicit tile (sample count
// from the PBE descriptor) from a four-word tuple (README.apple9-ir.md "Native multisample
// block stores"; the packer's BLOCK_IMAGE_STORE_MS branch, same bytes but mode 0x228).
fn block_store(i: &Instr) -> Result<GfxOp, String> {
    let mode = i.field("mode").unwrap_or(0);
    check::fields(
        i,
        &["coord", "image", "format"],
        &[
            ("mode", &[0x5a8, 0x228]),
            ("ctrl7", &[0x80]),
            ("ctrl10", &[1]),
        ],
    )?;
    let coord = i.field("coord").unwrap_or(0) as u8;
    if !coord.is_multiple_of(4) || coord > 12 {
        return Err(format!(
            "publication base {coord}: the packer places the tuple at 0, 4, 8 or 12"
        ));
    }
    Ok(GfxOp::BlockStore {
        coord,
        image: i.field("image").unwrap_or(0) as u8,
        format: i.field("format").unwrap_or(0) as u8,
        wait: i.wait().map(|w| w.slots.0).unwrap_or(0),
        multisample: mode == 0x228,
    })
}

// TILE_LOAD static-mask shape `67 0e 54 <dst<<1> 00 <w<<1> 01 <4e | slot>..`.
fn tile_read(i: &Instr) -> Result<GfxOp, String> {
    check::fields(
        i,
        &["rt"],
        &[("b2", &[0x54]), ("mask", &[1]), ("fmt", &[0x4e])],
    )?;
    let Some((slot, _)) = i.produce() else {
        return Err("tile read without a producer slot".into());
    };
    Ok(GfxOp::TileRead {
        dst: reg(i, Role::Dst)?,
        word: i.field("rt").unwrap_or(0) as u8,
        slot,
        mask: None,
    })
}

// TILE_LOAD_MASK `67 06 54 <dst<<1> 00 <w<<1> <m<<1> <4e | ..> .. 00 00 20` (packer's dynamic
// branch): byte 4 zero, the mask's low half, byte 7's format bits 0x4e.
fn tile_read_mask(i: &Instr) -> Result<GfxOp, String> {
    check::fields(
        i,
        &["rt", "dst", "mask", "slot", "mask_release"],
        &[("b2", &[0x54]), ("fmt", &[0x4e])],
    )?;
    let Some((slot, _)) = i.produce() else {
        return Err("tile read without a producer slot".into());
    };
    Ok(GfxOp::TileRead {
        dst: reg(i, Role::Dst)?,
        word: i.field("rt").unwrap_or(0) as u8,
        slot,
        mask: Some(reg(i, Role::SrcB)?),
    })
}

// TILE_ACCESS `87 02 54 <access:16> 00` / TILE_FENCE `07 02 54 <access:16> 00`: the packer
// emits access 0xf00, 0x600, 0x800|m, 1 and fence 0x300, m, 0x200|m, 1 (m in bits 2..7).
fn tile_sync(i: &Instr, setup: bool) -> Result<GfxOp, String> {
    let a = i.field("access").unwrap_or(0);
    let m = a & 0xfc;
    let ok = if setup {
        matches!(a, 0xf00 | 0x600 | 1) || a == (0x800 | m)
    } else {
        matches!(a, 0x300 | 1) || a == m || a == (0x200 | m)
    };
    if !ok {
        return Err(format!("tile access value {a:#x} is not a packer encoding"));
    }
    let allowed: &[check::Allowed] = if setup {
        &[("b1", &[2]), ("access", &[a])]
    } else {
        &[("access", &[a])]
    };
    check::fields(i, &[], allowed)?;
    let join = !setup && a == 0x300 && i.wait().is_some_and(|w| w.slots.0 & 1 != 0);
    Ok(GfxOp::TileSync { join })
}

fn coverage_read(i: &Instr) -> Result<GfxOp, String> {
    check::fields(
        i,
        &["sr_sel"],
        &[("form", &[1]), ("dp_width", &[0]), ("dst_bank", &[0])],
    )?;
    match i.operand(Role::Dst).map(|o| o.value) {
        Some(agx16_isa::Operand::Gpr {
            reg,
            part: agx16_isa::Part::Full,
        }) => Ok(GfxOp::Coverage { dst: reg }),
        other => Err(format!("coverage read destination {other:?}")),
    }
}

// COVERAGE `57 14 54 <p<<1> 00 01` (packer): the only shape GravityLinux emits, so byte 1's
// low bits, byte 2, bytes 4/5 and the slot-1 wait are pinned (EXP-0091 spliced byte 4 and
// changed which samples die: other values have other, unestablished meanings).
fn sample_mask(i: &Instr) -> Result<GfxOp, String> {
    check::fields(
        i,
        &["src"],
        &[("b1_hi", &[1]), ("b2", &[0x15]), ("b4", &[0]), ("b5", &[1])],
    )?;
    let wait = i.wait().map(|w| w.slots.0).unwrap_or(0);
    if wait != 1 {
        return Err(format!(
            "coverage write waiting on slot mask {wait:#x}: the packer waits on slot 1 only"
        ));
    }
    Ok(GfxOp::SampleMask {
        src: i.field("src").unwrap_or(0) as u8,
        wait,
    })
}

// DEPTH_STORE `d7 14 54 <p<<1> 00 03` (packer): p even, bytes 4/5 0/3, the slot-1 wait
// pinned by byte 1.
fn depth_store(i: &Instr) -> Result<GfxOp, String> {
    check::fields(i, &["src"], &[("b4", &[0]), ("b5", &[3])])?;
    let src = i.field("src").unwrap_or(0) as u8;
    if !src.is_multiple_of(2) || src >= 127 {
        return Err(format!(
            "depth store of publication pair {src}: the packer places it at an even index"
        ));
    }
    Ok(GfxOp::DepthStore { src, wait: 1 })
}

// DERIVATIVE `37 (05 | axis<<1) 54 <dst<<1> 03 <(src&63)<<2> (90 | keep<<1 | src>>6) 40 00 00`
// (GravityLinux/mesa agx_apple9_ir.c, the only shape its packer emits besides the saturate bit,
// which the model's adder does not implement: refused). Every other byte is pinned.
fn derivative(i: &Instr) -> Result<GfxOp, String> {
    check::fields(
        i,
        &["axis", "src_keep"],
        &[
            ("b1_0", &[1]),
            ("b1_hi", &[1]),
            ("b2", &[0x54]),
            ("b4", &[3]),
            ("b6_hi", &[0x24]),
            ("b7_hi", &[8]),
        ],
    )?;
    Ok(GfxOp::Derivative {
        axis: i.field("axis").unwrap_or(0) as u8,
        dst: reg(i, Role::Dst)?,
        src: reg(i, Role::SrcA)?,
        keep: i.field("src_keep") == Some(1),
    })
}

// `get_sr` with selector 0xdd: the vertex id (agx16-isa SPECIAL_REGS, corpus-only: the
// EXP-0008 render_interp vertex body's only input read); selector 0xd8: the instance id
// (GravityLinux/mesa src/asahi/compiler/agx_compile_apple9.c `apple9_system_source` maps
// `load_instance_id` to 0xd8 next to `load_vertex_id` to 0xdd and emits both through the same
// encoding; that compiler's GLES 3.0 sweep on T8132 covers instanced draws and attribute
// divisors, README.apple9-es3.md).
// Same field checks as the core's get_sr lowering; the core writes SR reads synchronously,
// and so does this.
fn vertex_sr(i: &Instr) -> Result<Dst, String> {
    check::fields(i, &["sr_sel", "form"], &[("dp_width", &[0])])?;
    match i.operand(Role::Dst).map(|o| o.value) {
        Some(agx16_isa::Operand::Gpr { reg, part }) => Ok(Dst {
            reg,
            part: super::part_of(part),
        }),
        _ => Err("get_sr destination".into()),
    }
}

// VARY_STORE `57 (06 | wait<<4) (54..) <src<<1> <slot&7<<5> (40 | slot>>3) 00 00` (packer):
// `mode`, `hint6` and the tag nibble hold what the Apple-compiled stores hold; EXP-M4-61
// (GravityLinux/mesa README.apple9-ir.md "Varying publication completion", measured on
// T8132) establishes the wait on the publication's completion slot, not the other fields.
fn varying_store(i: &Instr) -> Result<GfxOp, String> {
    // hint6: 0 in the packer, 0x41..0x4d in the EXP-0008 bodies (which drew their expected
    // images); only those values are accepted, as stores whose value they do not change.
    check::fields(
        i,
        &["src", "slot"],
        &[
            ("b1_hi", &[1]),
            ("b5_tag", &[4]),
            ("mode", &[0x15]),
            ("hint6", &[0, 0x41, 0x42, 0x48, 0x49, 0x4b, 0x4c, 0x4d]),
        ],
    )?;
    let wait = i.wait().map(|w| w.slots.0).unwrap_or(0);
    Ok(GfxOp::VaryingStore {
        slot: i.field("slot").unwrap_or(0) as u8,
        src: i.field("src").unwrap_or(0) as u8,
        wait,
    })
}

// FLOAT2_EXPORT `X9 (a<<1|1) 1c|op (b<<1|1) 41 00 00 (slot-1)<<2` and LOGIC_EXPORT
// `Xb (a<<1|1) 1f (b<<1|1) 42 08 00 (slot-1)<<2 00 00` (packers `pack_float2` / `pack_logic`
// with the export encodings): the destination is a publication index, bits 58..60 the
// completion slot minus one (README.apple9-ir.md "Varying publication completion").
fn export(i: &Instr) -> Result<GfxOp, String> {
    let op = export_op(i)?;
    let dst = match i.operand(Role::Dst).map(|o| o.value) {
        Some(agx16_isa::Operand::ImmInt(v)) if (0..128).contains(&v) => v as u8,
        other => {
            return Err(format!(
                "export destination {other:?} is not a publication index"
            ))
        }
    };
    let Some((slot, _)) = i.produce() else {
        return Err("export without a completion slot".into());
    };
    let a = reg(i, Role::SrcA)?;
    // A pair word reads only r[a] (its B field is cleared).
    let b = if op == ExportOp::PairWord {
        a
    } else {
        reg(i, Role::SrcB)?
    };
    Ok(GfxOp::Export {
        dst,
        a,
        b,
        op,
        slot,
    })
}

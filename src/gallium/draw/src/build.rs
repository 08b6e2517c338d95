//! Building one render command from a batch.
//!
//! Per draw: a VDM state update (vertex launcher, output count, provoking vertex, restart
//! index), the nine PPP updates pointing into the draw's 256-byte PPP page, and an index
//! list. Per stage and draw: resource roots and a launcher (agx16-cmdstream `launch`). Per
//! render: the scissor array, ZLS control and clear values, the bg/eot programs and the
//! `drm_asahi_cmd_render` fields. Word layouts are agx16-cmdstream's; the choices the
//! sources leave open follow T8132 Mesa (GravityLinux/mesa agx_apple9.c
//! `agx_apple9_prepare_draw`), as the model's harness in sim/tests/gfx_common does.

use crate::batch::{Batch, Draw, Indices};
use crate::fb::TileLayout;
use crate::mem::{DrawError, GpuWriter, Heap};
use crate::program::Interp;
use agx16_cmdstream::builder::{ChunkPool, StreamBuilder};
use agx16_cmdstream::descriptors::{
    pack_cf_table, CfBinding, CfBindingHeader, CoefficientSource, ShadeModel,
};
use agx16_cmdstream::launch::{
    fragment_allocation_mode, COMPUTE_LAUNCH_BYTES, GRAPHICS_LAUNCH_BYTES,
};
use agx16_cmdstream::layout::PlaneLayout;
use agx16_cmdstream::ppp::{
    DepthBias, ObjectType, PassType, PppPage, PppVertex, Scissor, StencilOp, VisibilityMode,
    ZsFunc, PPP_PAGE_SIZE, PPP_RECORDS,
};
use agx16_cmdstream::render::{
    bgobjvals, merge_upper, standard_sample_positions, utile_for, CmdRender, IspZlsPixels,
    PppControl, ZlsControl, ZlsFormat, RENDER_PROCESS_EMPTY_TILES,
};
use agx16_cmdstream::vdm::Primitive;
use agx16_cmdstream::vdm::{
    IndexSize, ProvokingVertex, VdmBlock, VdmIndexList, VdmPppUpdate, VdmRestartIndex, VdmState,
    VdmVertexOutputs, VdmVertexUnknown, VdmVertexWord0, VdmVertexWord1, RENDER_CONTEXT_BASE,
    USC_BASE,
};
use agx16_cmdstream::{Hex, Record, Unexplained};
use agx16_isa::meaning::{self, StageAllocation};
use agx16_isa::{Instr, Part, Role};

/// What the tile programs are asked to do for one render.
#[derive(Clone, Debug)]
pub struct TilePass<'a> {
    pub batch: &'a Batch,
    pub layout: &'a TileLayout,
    /// Utile size in pixels.
    pub utile: (u8, u8),
    /// Framebuffer pixel this render's (0, 0) is: (0, 0) for a render of the whole
    /// framebuffer; with utiles of no established tile index, a batch larger than one utile
    /// is rendered as one render per utile-sized rectangle whose end-of-tile program exports
    /// to image pixels it names itself.
    pub origin: (u32, u32),
    /// The tile size the end-of-tile program's workgroup id counts (it exports each tile at id
    /// times this, [`located_tile`]), or `None` for the per-rectangle renders.
    pub located: Option<(u32, u32)>,
    /// Per colour slot: the clear value as tile words, or `None` to load the target.
    pub clear: Vec<Option<Vec<u32>>>,
}

/// The background and end-of-tile programs of a render (`bg_usc`/`eot_usc` with their
/// resource specs): the background program initialises each utile's colour words (clear
/// values or loaded contents), the end-of-tile program stores them to the colour targets.
pub trait TilePrograms {
    /// `(usc, rsrc_spec)` of the background program; `usc` 0 means none.
    fn background(
        &mut self,
        mem: &mut dyn GpuWriter,
        pass: &TilePass,
    ) -> Result<(u32, u32), DrawError>;
    /// `(usc, rsrc_spec)` of the end-of-tile program (mandatory on G16).
    fn end_of_tile(
        &mut self,
        mem: &mut dyn GpuWriter,
        pass: &TilePass,
    ) -> Result<(u32, u32), DrawError>;
}

/// A built render: the command (240 bytes once packed) and what it holds.
#[derive(Clone, Debug)]
pub struct BuiltRender {
    pub cmd: CmdRender,
    /// Start of the VDM stream and the byte range of its chunks.
    pub vdm_start: u64,
    pub draws: usize,
}

impl BuiltRender {
    /// The `drm_asahi_cmd_render` payload.
    pub fn payload(&self) -> Result<Vec<u8>, DrawError> {
        Ok(self.cmd.pack()?)
    }
}

fn usc_offset(va: u64, what: &str) -> Result<u32, DrawError> {
    va.checked_sub(USC_BASE)
        .and_then(|o| u32::try_from(o).ok())
        .ok_or_else(|| DrawError::Memory(format!("{what} at {va:#x} is outside the USC aperture")))
}

fn rc_offset(va: u64, what: &str) -> Result<u32, DrawError> {
    va.checked_sub(RENDER_CONTEXT_BASE)
        .and_then(|o| u32::try_from(o).ok())
        .ok_or_else(|| {
            DrawError::Memory(format!("{what} at {va:#x} is outside the render context"))
        })
}

/// GL line width to the 4:4 fixed-point-minus-one field ((raw + 1) / 16 pixels; Mesa asahi
/// `agx_pack_line_width`).
fn line_width_raw(w: f32) -> u8 {
    ((w * 16.0).round() - 1.0).clamp(0.0, 255.0) as u8
}

/// Root record words every launcher loads at least (six qwords: texture, sampler and buffer
/// tables, three reserved; README.apple9-launchers.md "Resource ABI", T8132).
const MIN_ROOT_WORDS: usize = 12;
/// Pending registers the pointer loads fill start at r18 and must stay below r64
/// (agx16-isa `pointer_load_instr`).
const PENDING_BASE: u32 = 18;
pub const MAX_ARG_WORDS: usize = 64 - PENDING_BASE as usize;

fn isa_error(e: agx16_isa::EncodeError) -> DrawError {
    DrawError::Program(format!("launcher encoding: {e}"))
}

/// A stage launcher in the generated sequence of T8132 Mesa (GravityLinux/mesa
/// README.apple9-launchers.md "Generated launch control", run on T8132): the root record's
/// address into r2:r3, pointer loads of its qwords (highest pair first) into r18.., the
/// stage allocation and target, the publication/scratch frame, one argument transfer per
/// word (the first waits for the loads), STOP. agx16-cmdstream's `build_launcher` emits the
/// same sequence for exactly six roots; draws hand over more words (buffers, inline
/// uniforms), so the count is a parameter here.
fn stage_launcher(
    resource_table: u64,
    words: usize,
    allocation: StageAllocation,
    entry_offset: u64,
    publications: u32,
    scratch: u16,
) -> Result<Vec<u8>, DrawError> {
    let literal = |dst: u32, v: u32| -> Result<Instr, DrawError> {
        let mut i = Instr::build("mov_imm32", &[("imm", v as u64)]).map_err(isa_error)?;
        i.set_gpr(Role::Dst, dst, Part::Full).map_err(isa_error)?;
        Ok(i)
    };
    let mut bytes = Vec::new();
    for (dst, v) in [
        (2, resource_table as u32),
        (3, (resource_table >> 32) as u32),
    ] {
        bytes.extend(literal(dst, v)?.encode_checked().map_err(isa_error)?);
    }
    let key: LauncherKey = (
        words,
        match allocation {
            StageAllocation::Empty => (0, 0, 0),
            StageAllocation::Threadgroup { bytes } => (1, bytes, 0),
            StageAllocation::Tile { samples, units } => (2, samples as u32, units),
        },
        entry_offset,
        publications,
        scratch,
    );
    let tail = LAUNCHER_TAILS.with(|c| c.borrow().get(&key).cloned());
    let tail = match tail {
        Some(t) => t,
        None => {
            let t = std::rc::Rc::new(launcher_tail(
                words,
                allocation,
                entry_offset,
                publications,
                scratch,
            )?);
            LAUNCHER_TAILS.with(|c| {
                let mut c = c.borrow_mut();
                if c.len() >= LAUNCHER_TAILS_MAX {
                    c.clear();
                }
                c.insert(key, t.clone());
            });
            t
        }
    };
    bytes.extend_from_slice(&tail);
    // T8132 Mesa allocates 256 bytes per graphics launcher; longer root records (many inline
    // uniform words) need more. 1024 bytes is compute's allocation and what the model reads
    // (sim/GFX.md "Render-stage uniform ABI"); no graphics launcher that long ran on hardware.
    if bytes.len() > COMPUTE_LAUNCH_BYTES {
        return Err(DrawError::Program(format!(
            "launcher of {} bytes exceeds the {COMPUTE_LAUNCH_BYTES} bytes any launcher ran with",
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// What a launcher's code after its two address literals depends on: root words,
/// allocation (kind, value, units), entry offset, publications, scratch.
type LauncherKey = (usize, (u8, u32, u8), u64, u32, u16);

/// Launcher tails kept per thread (cleared when full).
const LAUNCHER_TAILS_MAX: usize = 1024;

thread_local! {
    /// Encoded launcher tails by what they depend on: every draw has a launcher per stage
    /// and only its root record's address (the two literals in front) changes from draw to
    /// draw, so the encoding (and its decode-back check) of the rest is done once per shape.
    static LAUNCHER_TAILS: std::cell::RefCell<
        rustc_hash::FxHashMap<LauncherKey, std::rc::Rc<Vec<u8>>>,
    > = Default::default();
}

/// The launcher after its two address literals: pointer loads, allocation, target, frame,
/// argument transfers, STOP (encoded).
fn launcher_tail(
    words: usize,
    allocation: StageAllocation,
    entry_offset: u64,
    publications: u32,
    scratch: u16,
) -> Result<Vec<u8>, DrawError> {
    let mut p = vec![];
    let qwords = words / 2;
    for q in (0..qwords).step_by(2).rev() {
        let count = (qwords - q).min(2) as u8;
        p.push(
            meaning::pointer_load_instr(PENDING_BASE + 2 * q as u32, 2, q as u8, count)
                .map_err(isa_error)?,
        );
    }
    p.push(meaning::stage_allocation_instr(allocation).map_err(isa_error)?);
    p.push(meaning::stage_target_instr(entry_offset).map_err(isa_error)?);
    // Scratch is extent A (the byte capacity of the spill words); B stays 0, the value every
    // measured case used: T8132 compute tests isolated A as the spill capacity, "B = 0 passes
    // those tests; increasing B does not rescue undersized A" (GravityLinux/mesa
    // src/gallium/drivers/asahi/README.apple9-launchers.md "Resource ABI"; graphics uses the
    // same record). That driver passes its spill size in B too, whose role is not established.
    p.push(meaning::launch_frame_instr(publications, scratch, 0).map_err(isa_error)?);
    for w in 0..words as u32 {
        p.push(meaning::arg_store_instr(w, PENDING_BASE + w, w == 0).map_err(isa_error)?);
    }
    p.push(Instr::build("stop", &[]).map_err(isa_error)?);
    let mut bytes = Vec::new();
    for i in &p {
        bytes.extend(i.encode_checked().map_err(isa_error)?);
    }
    Ok(bytes)
}

/// What a launcher is built from: allocation (kind and its two values), entry offset,
/// publications, scratch and argument words.
type SharedLauncherKey = ((u8, u32, u32), u64, u32, u16, Vec<u32>);

/// A batch's immutable uploads by content, and its launchers by what they are built from.
#[derive(Default)]
struct SharedUploads {
    launchers: rustc_hash::FxHashMap<SharedLauncherKey, u32>,
    uploads: rustc_hash::FxHashMap<(Heap, u64, Vec<u8>), u64>,
    /// Per draw of the batch (by index), what every render of it gives that draw: the vertex
    /// launcher's USC offset and the CF table's VA and binding count (neither depends on the
    /// render's origin).
    per_draw: Vec<Option<(u32, u64, u8)>>,
}

impl SharedUploads {
    fn per_draw(&self, index: usize) -> Option<(u32, u64, u8)> {
        self.per_draw.get(index).copied().flatten()
    }

    fn remember(&mut self, index: usize, v: (u32, u64, u8)) {
        if self.per_draw.len() <= index {
            self.per_draw.resize(index + 1, None);
        }
        self.per_draw[index] = Some(v);
    }

    /// [`launcher`], or the offset of the equal launcher this render already has.
    fn launcher(
        &mut self,
        mem: &mut dyn GpuWriter,
        allocation: StageAllocation,
        entry_offset: u64,
        publications: u32,
        scratch: u16,
        args: &[u32],
    ) -> Result<u32, DrawError> {
        let alloc_key = match allocation {
            StageAllocation::Empty => (0, 0, 0),
            StageAllocation::Threadgroup { bytes } => (1, bytes, 0),
            StageAllocation::Tile { samples, units } => (2, samples as u32, units as u32),
        };
        let key = (
            alloc_key,
            entry_offset,
            publications,
            scratch,
            args.to_vec(),
        );
        if let Some(&off) = self.launchers.get(&key) {
            return Ok(off);
        }
        let off = launcher(mem, allocation, entry_offset, publications, scratch, args)?;
        self.launchers.insert(key, off);
        Ok(off)
    }

    /// `mem.upload`, or the VA of the same bytes already uploaded to `heap` at `align`.
    fn upload(
        &mut self,
        mem: &mut dyn GpuWriter,
        heap: Heap,
        data: Vec<u8>,
        align: u64,
    ) -> Result<u64, DrawError> {
        let key = (heap, align, data);
        if let Some(&va) = self.uploads.get(&key) {
            return Ok(va);
        }
        let va = mem.upload(heap, &key.2, align)?;
        self.uploads.insert(key, va);
        Ok(va)
    }
}

/// Uploads a stage's root record (its argument words) and launcher; returns the launcher's
/// USC offset.
fn launcher(
    mem: &mut dyn GpuWriter,
    allocation: StageAllocation,
    entry_offset: u64,
    publications: u32,
    scratch: u16,
    args: &[u32],
) -> Result<u32, DrawError> {
    let mut words = args.to_vec();
    words.resize(words.len().max(MIN_ROOT_WORDS).next_multiple_of(2), 0);
    if words.len() > MAX_ARG_WORDS {
        return Err(DrawError::Unsupported(format!(
            "{} argument words (the launcher's pending registers hold {MAX_ARG_WORDS})",
            words.len()
        )));
    }
    let record: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let resource_table = mem.upload(Heap::General, &record, 64)?;
    let mut bytes = stage_launcher(
        resource_table,
        words.len(),
        allocation,
        entry_offset,
        publications,
        scratch,
    )?;
    bytes.resize(
        bytes.len().max(GRAPHICS_LAUNCH_BYTES).next_multiple_of(64),
        0,
    );
    // Launch fields hold address bits 37:6: 64-byte alignment.
    let va = mem.upload(Heap::Usc, &bytes, 64)?;
    usc_offset(va, "launcher")
}

/// A fragment-stage launcher for a tile program of this render (the tile allocation of its
/// samples and tile bytes); returns its USC offset.
pub(crate) fn stage_launcher_for(
    mem: &mut dyn GpuWriter,
    pass: &TilePass,
    entry_offset: u64,
    publications: u32,
    scratch: u16,
    args: &[u32],
) -> Result<u32, DrawError> {
    let allocation = StageAllocation::Tile {
        samples: pass.batch.fb.samples as u8,
        units: pass.layout.sample_bytes.div_ceil(8) as u8,
    };
    launcher(mem, allocation, entry_offset, publications, scratch, args)
}

/// The fragment program's CF-binding table (Mesa T8132 shape: 1/W into coefficient 0, Z
/// into coefficient 1 when read, then each varying).
fn cf_table(d: &Draw) -> Result<(Vec<u8>, u8), DrawError> {
    let fs = &d.fs;
    let mut bindings = vec![CfBinding {
        components: 1,
        shade_model: ShadeModel::Linear,
        source: CoefficientSource::Varying,
        base_slot: 0,
        base_coefficient: 0,
        ..Default::default()
    }];
    let user_base = 1 + fs.reads_frag_z as u8;
    if fs.reads_frag_z {
        bindings.push(CfBinding {
            components: 1,
            shade_model: ShadeModel::Linear,
            source: CoefficientSource::FragcoordZ,
            base_slot: 1,
            base_coefficient: 1,
            ..Default::default()
        });
    }
    let user_outputs = d.vs.outputs as u32 - 4 - d.vs.writes_point_size as u32;
    for v in &fs.varyings {
        if !(1..=4).contains(&v.components) || v.slot as u32 + v.components as u32 > user_outputs {
            return Err(DrawError::Program(format!(
                "fragment varying at scalar {} ({} components) is not among the vertex \
                 program's {user_outputs} user outputs",
                v.slot, v.components
            )));
        }
        bindings.push(CfBinding {
            components: v.components,
            shade_model: match v.interp {
                Interp::Perspective => ShadeModel::Perspective,
                Interp::Linear => ShadeModel::Linear,
                Interp::Flat if d.raster.flatshade_first => ShadeModel::FlatVertex0,
                Interp::Flat => ShadeModel::FlatVertex2,
            },
            source: CoefficientSource::Varying,
            base_slot: user_base + v.slot,
            base_coefficient: v.coefficient,
            ..Default::default()
        });
    }
    if let Some(cf) = fs.point_coord {
        // gl_PointCoord: the rasteriser's point-sprite coordinate, no vertex slot (the M4
        // driver binds the PNTC varying so: Mesa:src/gallium/drivers/asahi/agx_state.c
        // `agx_link_varyings_vs_fs`; G13, inferred for G16).
        bindings.push(CfBinding {
            components: 2,
            shade_model: ShadeModel::Linear,
            source: CoefficientSource::PointCoord,
            base_slot: 0,
            base_coefficient: cf,
            ..Default::default()
        });
    }
    let header = CfBindingHeader {
        slots: user_base + user_outputs as u8,
        coefficient_registers: fs.coefficient_registers(),
        ..Default::default()
    };
    Ok((pack_cf_table(&header, &bindings)?, bindings.len() as u8))
}

struct PageInputs {
    cf_bindings: u32,
    cf_count: u8,
    fs_launch: u32,
    scissor_index: u16,
    depth_bias_index: Option<u16>,
    has_depth: bool,
    has_stencil: bool,
}

/// The PPP page of all-zero bytes, unpacked once.
fn zero_page() -> Result<PppPage, DrawError> {
    static ZERO: std::sync::OnceLock<Result<PppPage, String>> = std::sync::OnceLock::new();
    ZERO.get_or_init(|| PppPage::unpack(&[0u8; PPP_PAGE_SIZE]).map_err(|e| e.to_string()))
        .clone()
        .map_err(DrawError::Encode)
}

fn ppp_page(d: &Draw, p: &PageInputs) -> Result<PppPage, DrawError> {
    let mut page = zero_page()?;
    let fs = &mut page.fragment_shader;
    fs.cf_binding_count = p.cf_count;
    fs.cf_bindings = p.cf_bindings;
    fs.launch = p.fs_launch as u64;

    let o = &mut page.output_select;
    o.varyings = d.vs.outputs > 4 + d.vs.writes_point_size as u8;
    o.point_size = d.vs.writes_point_size;
    o.frag_coord_z = d.fs.reads_frag_z;
    o.output_count = d.vs.outputs as u32;

    let f = &mut page.fragment_faces;
    let depth = if p.has_depth {
        d.zs.depth_func.unwrap_or(ZsFunc::Always)
    } else {
        ZsFunc::Always
    };
    let depth_write = p.has_depth && d.zs.depth_func.is_some() && d.zs.depth_write;
    f.front_depth_function = depth;
    f.back_depth_function = depth;
    f.front_disable_depth_write = !depth_write;
    f.back_disable_depth_write = !depth_write;
    let lw = line_width_raw(d.raster.line_width);
    f.front_line_width = lw;
    f.back_line_width = lw;
    // Counting mode adds the samples that pass the depth/stencil tests to the draw's slot
    // (model: sim/src/gfx/tiles.rs `write_occlusion`, G13 visibility modes, T8132 slot index).
    match d.occlusion {
        Some(index) => {
            f.visibility_mode = VisibilityMode::Counting;
            f.occlusion_index = index;
        }
        None => f.visibility_mode = VisibilityMode::None,
    }
    f.scissor_enable = true;
    if let (Some([front, back]), true) = (d.zs.stencil, p.has_stencil) {
        f.stencil_test_enable = true;
        f.two_sided_stencil = front != back;
        f.front_stencil_reference = front.reference;
        f.front_read_mask = Hex(front.read_mask as u64);
        f.front_write_mask = Hex(front.write_mask as u64);
        f.front_stencil_compare = front.func;
        f.front_stencil_fail = front.fail;
        f.front_depth_fail = front.depth_fail;
        f.front_depth_pass = front.pass;
        f.back_stencil_reference = back.reference;
        f.back_read_mask = Hex(back.read_mask as u64);
        f.back_write_mask = Hex(back.write_mask as u64);
        f.back_stencil_compare = back.func;
        f.back_stencil_fail = back.fail;
        f.back_depth_fail = back.depth_fail;
        f.back_depth_pass = back.pass;
    } else {
        for (m, op) in [
            (&mut f.front_stencil_compare, &mut f.front_depth_pass),
            (&mut f.back_stencil_compare, &mut f.back_depth_pass),
        ] {
            *m = ZsFunc::Always;
            *op = StencilOp::Keep;
        }
    }

    // Points are point sprites, their (s, t) origin per the rasteriser state (Mesa selects the
    // object type so for points: Mesa:src/gallium/drivers/asahi/agx_state.c
    // `agx_point_object_type`; G13, inferred for G16; the model's PointCoord planes follow it).
    if d.primitive == Primitive::Points {
        let o = if d.raster.sprite_lower_left {
            ObjectType::PointSpriteUv10
        } else {
            ObjectType::PointSpriteUv01
        };
        page.fragment_control_2.front_object_type = o;
        page.fragment_control_2.back_object_type = o;
    }
    page.fragment_control_2.pass_type = match (d.fs.discards, d.fs.reads_tilebuffer) {
        (false, false) => PassType::Opaque,
        (false, true) => PassType::Translucent,
        (true, false) => PassType::PunchThrough,
        (true, true) => PassType::TranslucentPunchThrough,
    };

    let v = &mut page.viewport;
    [v.scale_x, v.scale_y, v.scale_z] = d.viewport.scale;
    [v.translate_x, v.translate_y, v.translate_z] = d.viewport.translate;

    let c = &mut page.cull;
    c.cull_front = d.raster.cull_front;
    c.cull_back = d.raster.cull_back;
    c.front_face_ccw = d.raster.front_ccw;
    c.depth_clip = d.raster.depth_clip;
    c.rasterizer_discard = d.raster.rasterizer_discard;
    c.flat_shading_vertex = if d.raster.flatshade_first {
        PppVertex::V0
    } else {
        PppVertex::V2
    };
    page.scissor_depth_bias.scissor = p.scissor_index;
    if let Some(i) = p.depth_bias_index {
        page.fragment_faces.depth_bias_enable = true;
        page.scissor_depth_bias.depth_bias = i;
    }
    Ok(page)
}

fn index_list(d: &Draw) -> Result<VdmIndexList, DrawError> {
    Ok(match d.indices {
        Indices::Direct { first, count } => {
            VdmIndexList::direct(d.primitive, count, d.instances, first)
        }
        Indices::Indexed {
            va,
            size,
            count,
            base_vertex,
            restart,
        } => {
            let bytes = size
                .bytes()
                .ok_or_else(|| DrawError::Unsupported(format!("index size {size:?}")))?;
            if !(USC_BASE..USC_BASE + (1 << 32)).contains(&va) {
                return Err(DrawError::Memory(format!(
                    "index buffer at {va:#x} is outside the USC aperture G16 index fetch reads"
                )));
            }
            VdmIndexList::indexed(
                d.primitive,
                size,
                va,
                count * bytes,
                count,
                d.instances,
                base_vertex,
                restart.is_some(),
            )
        }
    })
}

/// The restart comparand for a draw (the index size's all-ones value when GL asks for fixed
/// restart).
fn restart_value(d: &Draw) -> Option<u32> {
    match d.indices {
        Indices::Indexed {
            restart: Some(r),
            size,
            ..
        } => Some(match size {
            IndexSize::U8 => r & 0xff,
            IndexSize::U16 => r & 0xffff,
            _ => r,
        }),
        _ => None,
    }
}

/// The tile an end-of-tile program locates by its workgroup id (get_sr 0x9c / 0x9d) in a
/// render of `samples` samples with `utile`-sized utiles: 32x32 at one or two samples, 32x16
/// at four, the T8132 driver's tiles (GravityLinux/mesa agx_blit.c `asahi_reload_fs`: export
/// coordinates = workgroup id x * 32, y * (4 samples ? 16 : 32); agx_state.c: the render's
/// tile 32x16 at four samples, else 32x32; README.apple9-render-seed.md "Workgroup IDs locate
/// the tile", full-framebuffer renders on T8132; validated by that CTS-passing M4 driver).
/// `None` for other utiles (a large tilebuffer): no source says which grid the id counts there,
/// and agx16-sim refuses the read.
pub fn located_tile(utile: (u32, u32), samples: u32) -> Option<(u32, u32)> {
    match (samples, utile) {
        (1 | 2, (32, 32)) | (4, (32, 16)) => Some(utile),
        _ => None,
    }
}

/// Builds the renders for `batch`: one render of the whole framebuffer when the end-of-tile
/// program can locate its tile ([`located_tile`]), else one per utile-sized rectangle (see
/// [`TilePass::origin`]), in row order. Everything they point at is allocated and written
/// through `mem`; the bg/eot programs come from `tiles`.
pub fn build_renders(
    batch: &Batch,
    tiles: &mut dyn TilePrograms,
    mem: &mut dyn GpuWriter,
) -> Result<Vec<BuiltRender>, DrawError> {
    let fb = &batch.fb;
    fb.validate()?;
    let layout = fb.tile_layout();
    let (uw, uh) = utile_for(layout.sample_bytes, fb.samples).ok_or_else(|| {
        DrawError::Framebuffer(format!(
            "{} tilebuffer bytes per sample do not fit the 32-block tilebuffer",
            layout.sample_bytes
        ))
    })?;
    let (uw, uh) = (uw as u32, uh as u32);
    let mut out = Vec::new();
    // Launchers, CF tables and PPP pages equal in several renders of the batch are one copy
    // (immutable memory of the batch, as within a render).
    let mut shared = SharedUploads::default();
    if let Some(tile) = located_tile((uw, uh), fb.samples) {
        // The last column and row of utiles may end past the render area.
        let (ox, oy) = ((fb.width - 1) / uw * uw, (fb.height - 1) / uh * uh);
        edge_clears(batch, (ox, oy), (fb.width - ox, fb.height - oy), (uw, uh))?;
        out.push(build_one(
            batch,
            (0, 0),
            Some(tile),
            tiles,
            mem,
            &mut shared,
        )?);
        return Ok(out);
    }
    let mut sub = None;
    for oy in (0..fb.height).step_by(uh as usize) {
        for ox in (0..fb.width).step_by(uw as usize) {
            let sub = sub_batch(batch, &mut sub, (ox, oy), (uw, uh))?;
            out.push(build_one(sub, (ox, oy), None, tiles, mem, &mut shared)?);
        }
    }
    Ok(out)
}

/// The render's depth-bias array (one 12-byte entry per distinct polygon offset, G13 genxml
/// "Depth bias"; the M4 driver uploads scissor and depth-bias arrays with each batch,
/// GravityLinux/mesa README.apple9-state.md, CTS-passing) and each draw's entry. Units are
/// doubled as Mesa's asahi driver writes them (agx_state.c, `offset_units * 2`: the
/// hardware's unit is half GL's minimum resolvable difference; M1 driver). Address 0 and no
/// entries when no draw has an offset.
fn depth_bias_array(
    batch: &Batch,
    mem: &mut dyn GpuWriter,
) -> Result<(Vec<Option<u16>>, u64), DrawError> {
    let mut entries: Vec<[u32; 3]> = Vec::new();
    let mut of = Vec::with_capacity(batch.draws.len());
    for d in &batch.draws {
        of.push(match d.raster.depth_bias {
            Some(b) => {
                let e = [
                    (b.units * 2.0).to_bits(),
                    b.factor.to_bits(),
                    b.clamp.to_bits(),
                ];
                Some(intern(&mut entries, e) as u16)
            }
            None => None,
        });
    }
    if entries.is_empty() {
        return Ok((of, 0));
    }
    let mut bytes = Vec::with_capacity(entries.len() * DepthBias::SIZE);
    for [units, factor, clamp] in entries {
        let e = DepthBias {
            depth_bias: f32::from_bits(units),
            slope_scale: f32::from_bits(factor),
            clamp: f32::from_bits(clamp),
            ..Default::default()
        };
        bytes.extend(e.pack()?);
    }
    Ok((of, mem.upload(Heap::General, &bytes, 64)?))
}

/// The index of `x` in `v`, appended when absent (render-level arrays the draws index).
fn intern<T: PartialEq>(v: &mut Vec<T>, x: T) -> usize {
    v.iter().position(|y| *y == x).unwrap_or_else(|| {
        v.push(x);
        v.len() - 1
    })
}

/// A draw's scissor entry: its viewport's rectangle, intersected with its GL scissor when
/// enabled, within the framebuffer `full`. The rasteriser clips primitives to a guard band,
/// not to the viewport (agx16-sim gfx/clip.rs), so the viewport bounds come from the scissor,
/// as Mesa's asahi driver always programs them (agx_state.c `agx_get_scissor_extents`: the
/// viewport's extent, then the scissor's if enabled; M1/G13 driver). Evidence that G16 needs
/// it: the CTS-passing M4 driver (GravityLinux/mesa) passes dEQP-GLES3 clipping.point.
/// wide_point_clip*, whose reference keeps wide points centred just past the viewport edge
/// and drops their pixels outside it (inferred from that validation).
fn draw_scissor(d: &Draw, full: [u16; 4]) -> [u16; 4] {
    let [sx, sy, _] = d.viewport.scale;
    let [tx, ty, _] = d.viewport.translate;
    // Integer GL viewports give integer edges (an odd size has .5 in both scale and
    // translate); truncation as asahi, clamped to the framebuffer.
    let edge = |v: f32, max: u16| (v as i64).clamp(0, max as i64) as u16;
    let mut r = [
        edge(tx - sx.abs(), full[2]),
        edge(ty - sy.abs(), full[3]),
        edge(tx + sx.abs(), full[2]),
        edge(ty + sy.abs(), full[3]),
    ];
    if let Some([x0, y0, x1, y1]) = d.raster.scissor {
        r = [r[0].max(x0), r[1].max(y0), r[2].min(x1), r[3].min(y1)];
    }
    // An empty intersection stays an empty rectangle (min = max), never an inverted one.
    r[2] = r[2].max(r[0]);
    r[3] = r[3].max(r[1]);
    r
}

/// The part of `batch` in the utile-sized rectangle at `origin`: the same draws with the
/// viewport and scissors moved by −origin, the depth/stencil planes offset to the rectangle
/// (twiddled planes keep an aligned power-of-two block contiguous, checked pixel by pixel).
/// `copy` is where it is made: one copy of the batch for all its renders, set from the
/// batch's own values on every call (a flush copies its draws once, not once per render).
fn sub_batch<'a>(
    batch: &Batch,
    copy: &'a mut Option<Batch>,
    origin: (u32, u32),
    utile: (u32, u32),
) -> Result<&'a Batch, DrawError> {
    let fb = &batch.fb;
    let (ox, oy) = origin;
    let (w, h) = (utile.0.min(fb.width - ox), utile.1.min(fb.height - oy));
    edge_clears(batch, origin, (w, h), utile)?;
    let sub = copy.get_or_insert_with(|| batch.clone());
    sub.fb = batch.fb.clone();
    if origin == (0, 0) && (w, h) == (fb.width, fb.height) {
        for (d, b) in sub.draws.iter_mut().zip(&batch.draws) {
            d.viewport.translate = b.viewport.translate;
            d.raster.scissor = b.raster.scissor;
        }
        return Ok(sub);
    }
    sub.fb.width = w;
    sub.fb.height = h;
    for (d, b) in sub.draws.iter_mut().zip(&batch.draws) {
        d.viewport.translate[0] = b.viewport.translate[0] - ox as f32;
        d.viewport.translate[1] = b.viewport.translate[1] - oy as f32;
        let [x0, y0, x1, y1] = b
            .raster
            .scissor
            .unwrap_or([0, 0, fb.width as u16, fb.height as u16])
            .map(|v| v as i64);
        let clamp = |v: i64, o: u32, n: u32| (v - o as i64).clamp(0, n as i64) as u16;
        d.raster.scissor = Some([
            clamp(x0, ox, w),
            clamp(y0, oy, h),
            clamp(x1, ox, w),
            clamp(y1, oy, h),
        ]);
    }
    let samples = fb.samples;
    if let Some(zs) = &mut sub.fb.zs {
        // Multisampled planes: a pixel's samples together (agx16-sim `gfx::tiles` ZLS).
        let bytes: Vec<u32> = [
            zs.depth
                .as_ref()
                .map(|(_, f)| if *f == ZlsFormat::Unorm16 { 2 } else { 4 }),
            zs.stencil.as_ref().map(|_| 1),
        ]
        .into_iter()
        .flatten()
        .map(|b| b * samples)
        .collect();
        let base_of = |part: (u32, u32), bytes: u32| -> Option<u64> {
            let key = (zs.width, zs.height, bytes, part, origin, (w, h));
            if let Some(base) = SPLIT_BASES.with(|m| m.borrow().get(&key).copied()) {
                return base;
            }
            let base = split_base(key);
            SPLIT_BASES.with(|m| {
                let mut m = m.borrow_mut();
                if m.len() >= SPLIT_BASES_MAX {
                    m.clear();
                }
                m.insert(key, base);
            });
            base
        };
        // The rectangle as a utile-sized plane of its own, else (narrow or short planes, whose
        // tiles are smaller than a utile) as a plane of the rendered size.
        let (part, bases) = [utile, (w, h)]
            .into_iter()
            .find_map(|part| {
                let bases: Option<Vec<u64>> = bytes.iter().map(|&b| base_of(part, b)).collect();
                bases.map(|v| (part, v))
            })
            .ok_or_else(|| {
                DrawError::Unsupported(format!(
                    "a {}x{} depth/stencil plane split into {}x{} renders",
                    zs.width, zs.height, utile.0, utile.1
                ))
            })?;
        let mut bases = bases.into_iter();
        if let Some((s, _)) = &mut zs.depth {
            s.va += bases.next().unwrap_or(0);
        }
        if let Some(s) = &mut zs.stencil {
            s.va += bases.next().unwrap_or(0);
        }
        zs.width = part.0;
        zs.height = part.1;
    }
    Ok(sub)
}

/// A plane split: (plane width, height, bytes per pixel, utile, origin, rendered size).
type SplitKey = (u32, u32, u32, (u32, u32), (u32, u32), (u32, u32));

/// Split checks kept per thread (cleared when full).
const SPLIT_BASES_MAX: usize = 4096;

thread_local! {
    /// [`split_base`] results: every render of a split framebuffer checks the same
    /// rectangles, pixel by pixel.
    static SPLIT_BASES: std::cell::RefCell<std::collections::HashMap<SplitKey, Option<u64>>> =
        Default::default();
}

/// The byte offset of the rectangle at `origin` in the twiddled plane when its pixels lie
/// where a utile-sized twiddled plane of their own would put them (checked pixel by pixel),
/// else `None`.
fn split_base((width, height, bytes, utile, (ox, oy), (w, h)): SplitKey) -> Option<u64> {
    let full = PlaneLayout::twiddled(width, height, bytes);
    let part = PlaneLayout::twiddled(utile.0, utile.1, bytes);
    let base = full.offset(ox, oy);
    for v in 0..h {
        for u in 0..w {
            if full.offset(ox + u, oy + v) != base + part.offset(u, v) {
                return None;
            }
        }
    }
    Some(base)
}

/// Attachments larger than the framebuffer (GL allows mixed sizes; the render area is the
/// smallest): a render covers whole utiles, so on an edge utile the background's clear and the
/// depth/stencil clear would also reach attachment pixels past the render area, which GL keeps
/// (the end-of-tile store and ZLS store clip only to each attachment's own size). Loads are
/// stored back unchanged there, so only a clear of such an attachment on such a utile is
/// refused by name.
fn edge_clears(
    batch: &Batch,
    origin: (u32, u32),
    (w, h): (u32, u32),
    utile: (u32, u32),
) -> Result<(), DrawError> {
    let fb = &batch.fb;
    let (ox, oy) = origin;
    let past = |aw: u32, ah: u32| (w < utile.0 && aw > ox + w) || (h < utile.1 && ah > oy + h);
    for (slot, t) in fb.colors.iter().enumerate() {
        if let (Some(t), Some(Some(_))) = (t, batch.clear.color.get(slot)) {
            if past(t.plane.width, t.plane.height) {
                return Err(DrawError::Unsupported(format!(
                    "clearing colour attachment {slot} ({}x{}) of a {}x{} framebuffer whose \
                     render area ends inside a utile (the clear would reach pixels outside it)",
                    t.plane.width, t.plane.height, fb.width, fb.height
                )));
            }
        }
    }
    if let Some(zs) = &fb.zs {
        let cleared = (zs.depth.is_some() && batch.clear.depth.is_some())
            || (zs.stencil.is_some() && batch.clear.stencil.is_some());
        if cleared && past(zs.width, zs.height) {
            return Err(DrawError::Unsupported(format!(
                "clearing a {}x{} depth/stencil attachment of a {}x{} framebuffer whose render \
                 area ends inside a utile (the clear would reach pixels outside it)",
                zs.width, zs.height, fb.width, fb.height
            )));
        }
    }
    Ok(())
}

/// The fragment root record of `d` for the render at `origin`: the program's origin words
/// ([`FragmentProgram::origin_word`](crate::program::FragmentProgram)) hold origin x, y as f32.
fn with_origin(d: &Draw, origin: (u32, u32)) -> Result<std::borrow::Cow<'_, [u32]>, DrawError> {
    let Some(w) = d.fs.origin_word else {
        return Ok(std::borrow::Cow::Borrowed(&d.fs_args));
    };
    let mut args = d.fs_args.clone();
    if args.len() < w + 2 {
        args.resize(w + 2, 0);
    }
    args[w] = (origin.0 as f32).to_bits();
    args[w + 1] = (origin.1 as f32).to_bits();
    Ok(std::borrow::Cow::Owned(args))
}

/// Builds one render of `batch` whose pixel (0, 0) is framebuffer pixel `origin`; `located`
/// as [`TilePass::located`].
fn build_one(
    batch: &Batch,
    origin: (u32, u32),
    located: Option<(u32, u32)>,
    tiles: &mut dyn TilePrograms,
    mem: &mut dyn GpuWriter,
    shared: &mut SharedUploads,
) -> Result<BuiltRender, DrawError> {
    let fb = &batch.fb;
    fb.validate()?;
    let layout = fb.tile_layout();
    let utile = utile_for(layout.sample_bytes, fb.samples).ok_or_else(|| {
        DrawError::Framebuffer(format!(
            "{} tilebuffer bytes per sample do not fit the 32-block tilebuffer",
            layout.sample_bytes
        ))
    })?;
    let has_depth = fb.zs.as_ref().is_some_and(|z| z.depth.is_some());
    let has_stencil = fb.zs.as_ref().is_some_and(|z| z.stencil.is_some());

    // Scissor array: entry 0 is the whole framebuffer, then one per distinct draw scissor.
    let full = [0, 0, fb.width as u16, fb.height as u16];
    let mut scissors: Vec<[u16; 4]> = vec![full];
    let mut scissor_of = Vec::with_capacity(batch.draws.len());
    for d in &batch.draws {
        let s = draw_scissor(d, full);
        scissor_of.push(intern(&mut scissors, s) as u16);
    }
    let mut scissor_bytes = Vec::new();
    for [x0, y0, x1, y1] in &scissors {
        let s = Scissor {
            min_x: *x0,
            min_y: *y0,
            max_x: *x1,
            max_y: *y1,
            min_z: 0.0,
            max_z: 1.0,
            ..Default::default()
        };
        scissor_bytes.extend(s.pack()?);
    }
    let scissor_base = mem.upload(Heap::General, &scissor_bytes, 64)?;
    let (bias_of, dbias_base) = depth_bias_array(batch, mem)?;

    // Fragment stages allocate the tilebuffer layout: 8-byte units per sample, at most 128
    // bytes at 1x and 64 at 2x/4x (README.apple9-launchers.md, T8132).
    fragment_allocation_mode(fb.samples)?;
    let max_tile = if fb.samples == 1 { 128 } else { 64 };
    if layout.sample_bytes > max_tile {
        return Err(DrawError::Framebuffer(format!(
            "{} tilebuffer bytes per sample (the fragment allocation holds {max_tile})",
            layout.sample_bytes
        )));
    }
    let fragment_allocation = StageAllocation::Tile {
        samples: fb.samples as u8,
        units: layout.sample_bytes.div_ceil(8) as u8,
    };

    // Per-draw blocks. Launchers, CF tables and PPP pages are immutable render memory, so
    // draws whose inputs are equal share one copy (a run of draws that changes only a
    // fragment uniform shares its vertex launcher; the model also sets up each launcher once
    // per render): fewer uploads here and fewer setup invocations in the GPU.
    // The blocks are packed as they are made: `packed` holds them back to back, `ends` where
    // each one ends.
    let mut packed = Vec::new();
    let mut ends = Vec::new();
    let mut emit = |b: VdmBlock| -> Result<(), DrawError> {
        b.pack_onto(&mut packed)?;
        ends.push(packed.len());
        Ok(())
    };
    for (i, d) in batch.draws.iter().enumerate() {
        if d.vs.outputs < 4 {
            return Err(DrawError::Program(format!(
                "vertex program with {} outputs (position needs 4)",
                d.vs.outputs
            )));
        }
        if d.instances == 0 || d.indices.count() == 0 {
            continue;
        }
        let earlier = shared.per_draw(i);
        let vs_launch = match earlier {
            Some((vs, _, _)) => vs,
            None => shared.launcher(
                mem,
                StageAllocation::Empty,
                d.vs.body.entry_offset,
                d.vs.publications,
                d.vs.scratch,
                &d.vs_args,
            )?,
        };
        let fs_args = with_origin(d, origin)?;
        let fs_launch = shared.launcher(
            mem,
            fragment_allocation,
            d.fs.body.entry_offset,
            d.fs.publications,
            d.fs.scratch,
            &fs_args,
        )?;
        let (cf_va, cf_count) = match earlier {
            Some((_, va, count)) => (va, count),
            None => {
                let (cf, count) = cf_table(d)?;
                (shared.upload(mem, Heap::Usc, cf, 16)?, count)
            }
        };
        shared.remember(i, (vs_launch, cf_va, cf_count));
        let page = ppp_page(
            d,
            &PageInputs {
                cf_bindings: usc_offset(cf_va, "CF table")?,
                cf_count,
                fs_launch,
                scissor_index: scissor_of[i],
                depth_bias_index: bias_of[i],
                has_depth,
                has_stencil,
            },
        )?;
        let page_va = shared.upload(mem, Heap::RenderContext, page.pack()?, 256)?;
        let page_off = rc_offset(page_va, "PPP page")?;
        let n = d.vs.outputs;
        emit(VdmBlock::State(VdmState {
            restart_index: restart_value(d).map(|value| VdmRestartIndex {
                value,
                ..Default::default()
            }),
            vertex_word0: Some(VdmVertexWord0::default()),
            vertex_word1: Some(VdmVertexWord1 {
                // T8132 Mesa's pipeline word (also in G17P captures); meaning unknown.
                pipeline_word: Unexplained(0x0100_0000),
                launch: vs_launch as u64,
                ..Default::default()
            }),
            vertex_outputs: Some(VdmVertexOutputs {
                count_1: n,
                count_2: n,
                ..Default::default()
            }),
            vertex_unknown: Some(VdmVertexUnknown {
                flat_shading_control: if d.raster.flatshade_first {
                    ProvokingVertex::First
                } else {
                    ProvokingVertex::Last
                },
                ..Default::default()
            }),
        }))?;
        for (off, words, _) in PPP_RECORDS {
            emit(VdmBlock::PppUpdate(VdmPppUpdate {
                size_words: words,
                pointer: page_off + off as u32,
                ..Default::default()
            }))?;
        }
        emit(VdmBlock::IndexList(index_list(d)?))?;
    }

    // The VDM stream, in chunks of one render-context allocation.
    let sizes = packed.len();
    const CHUNK: usize = 0x1000;
    let chunks = sizes / (CHUNK - 64) + 2;
    let pool_bytes = (chunks * CHUNK) as u64;
    let pool = mem.alloc(Heap::RenderContext, pool_bytes, CHUNK as u64)?;
    let mut sb = StreamBuilder::vdm(ChunkPool::new(pool, pool_bytes, CHUNK));
    let mut start = 0;
    for &end in &ends {
        sb.push_bytes(&packed[start..end])?;
        start = end;
    }
    let stream = sb.finish()?;
    for c in &stream.chunks {
        mem.write(c.va, &c.bytes)?;
    }

    // Tile programs.
    let clear: Vec<Option<Vec<u32>>> = fb
        .colors
        .iter()
        .zip(&batch.clear.color)
        .map(|(t, c)| match (t, c) {
            (Some(_), Some(c)) => Some(c.clone()),
            _ => None,
        })
        .collect();
    let pass = TilePass {
        batch,
        layout: &layout,
        utile,
        origin,
        located,
        clear,
    };
    let (bg_usc, bg_rsrc) = tiles.background(mem, &pass)?;
    let (eot_usc, eot_rsrc) = tiles.end_of_tile(mem, &pass)?;

    // Depth/stencil: clear when the batch clears, else load; always store (twiddled).
    let mut zls = ZlsControl::default();
    let (mut depth_base, mut stencil_base, mut zls_pixels) = (0, 0, 0u32);
    let mut bg_depth = 1.0f32.to_bits();
    if let Some(zs) = &fb.zs {
        if let Some((surface, format)) = zs.depth {
            let load = batch.clear.depth.is_none();
            zls.z_load = load;
            zls.z_load_twiddled = load;
            zls.z_store = true;
            zls.z_store_twiddled = true;
            zls.z_format = format;
            depth_base = surface.va;
            if let Some(z) = batch.clear.depth {
                let z = z.clamp(0.0, 1.0);
                bg_depth = match format {
                    // Z16 clears take a unorm16 value in the low bits (Mesa hk_cmd_draw.c).
                    ZlsFormat::Unorm16 => (z * 65535.0).round() as u32,
                    _ => z.to_bits(),
                };
            }
        }
        if let Some(surface) = zs.stencil {
            let load = batch.clear.stencil.is_none();
            zls.s_load = load;
            zls.s_load_twiddled = load;
            zls.s_store = true;
            zls.s_store_twiddled = true;
            stencil_base = surface.va;
        }
        let px = IspZlsPixels {
            x: zs.width as u16,
            y: zs.height as u16,
            ..Default::default()
        };
        zls_pixels = u32::from_le_bytes(px.pack()?.try_into().unwrap());
    }
    let zls_word = u64::from_le_bytes(zls.pack()?.try_into().unwrap());
    let ppp_ctrl = PppControl {
        enable_w_clamp: true,
        fixed_point_format: true,
        ..Default::default()
    };
    // A clear must reach every tile, so a render that clears anything runs the bg/eot
    // programs on all of them (the UAPI: "This must be set when clearing render targets",
    // include/uapi/drm/asahi_drm.h `DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES`; the model skips
    // untouched tiles without it, sim/src/gfx/tiles.rs). A single-sample render with draws
    // that only loads leaves the tiles no primitive touches as they are: their end-of-tile
    // store would write back what the background loaded from the same planes. Renders
    // without draws (the whole render is the reload and store) and multisampled ones keep
    // every tile.
    let clears = batch.clear.color.iter().any(Option::is_some)
        || batch.clear.depth.is_some()
        || batch.clear.stencil.is_some();
    let every_tile = clears || batch.draws.is_empty() || fb.samples != 1;
    let cmd = CmdRender {
        flags: Hex(if every_tile {
            RENDER_PROCESS_EMPTY_TILES as u64
        } else {
            0
        }),
        isp_zls_pixels: Hex(zls_pixels as u64),
        vdm_ctrl_stream_base: Hex(stream.start),
        isp_scissor_base: Hex(scissor_base),
        isp_dbias_base: Hex(dbias_base),
        isp_oclqry_base: Hex(batch.occlusion_base),
        depth_base: Hex(depth_base),
        stencil_base: Hex(stencil_base),
        zls_ctrl: Hex(zls_word),
        // The standard sample positions of the render's sample count (validate() admits 1).
        ppp_multisamplectl: Hex(standard_sample_positions(fb.samples).ok_or_else(|| {
            DrawError::Unsupported(format!("{} samples (1, 2 or 4)", fb.samples))
        })?),
        ppp_ctrl: Hex(u32::from_le_bytes(ppp_ctrl.pack()?.try_into().unwrap()) as u64),
        width_px: fb.width as u16,
        height_px: fb.height as u16,
        layers: 1,
        utile_width_px: utile.0,
        utile_height_px: utile.1,
        samples: fb.samples as u8,
        sample_size_b: layout.sample_bytes as u8,
        isp_merge_upper_x: Hex(merge_upper(fb.width) as u64),
        isp_merge_upper_y: Hex(merge_upper(fb.height) as u64),
        bg_usc: Hex(bg_usc as u64),
        bg_rsrc_spec: Hex(bg_rsrc as u64),
        eot_usc: Hex(eot_usc as u64),
        eot_rsrc_spec: Hex(eot_rsrc as u64),
        // The G16 kernel requires partial-render programs (partial_eot always, partial_bg
        // when bg is set: GravityLinux/linux g16_drm.rs `render_parameters`). They run when
        // the tiler's memory overflows mid-render, which the model never does (sim/GFX.md
        // "Known gaps"); the store is the end-of-tile program's, but the background should
        // then reload the stored tiles instead of clearing (tiles.rs `reload_body` could, for
        // twiddled targets; not wired: the model never runs these). So partial renders would
        // lose earlier draws on hardware.
        partial_bg_usc: Hex(bg_usc as u64),
        partial_bg_rsrc_spec: Hex(bg_rsrc as u64),
        partial_eot_usc: Hex(eot_usc as u64),
        partial_eot_rsrc_spec: Hex(eot_rsrc as u64),
        isp_bgobjdepth: Hex(bg_depth as u64),
        isp_bgobjvals: Hex(bgobjvals(batch.clear.stencil.unwrap_or(0)) as u64),
        ..Default::default()
    };
    Ok(BuiltRender {
        cmd,
        vdm_start: stream.start,
        draws: batch.draws.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agx16_cmdstream::launch::{build_launcher, LaunchCommon, LaunchStage};

    #[test]
    fn six_root_launchers_equal_agx16_cmdstreams() {
        for (stage, alloc) in [
            (LaunchStage::Vertex, StageAllocation::Empty),
            (
                LaunchStage::Fragment {
                    samples: 1,
                    tile_bytes: 8,
                },
                StageAllocation::Tile {
                    samples: 1,
                    units: 1,
                },
            ),
        ] {
            let common = LaunchCommon {
                resource_table: 0x2_0000_1240,
                entry_offset: 0x400,
                publications: 6,
                extent_a: 0,
                extent_b: 0,
            };
            let want = build_launcher(stage, &common).unwrap().bytes;
            let got = stage_launcher(0x2_0000_1240, 12, alloc, 0x400, 6, 0).unwrap();
            assert_eq!(got, want, "{stage:?}");
        }
        // More words: one more pointer load and transfer per qword; too many is an error.
        let long = stage_launcher(0x1000, 16, StageAllocation::Empty, 0x400, 0, 0).unwrap();
        assert!(
            long.len()
                > stage_launcher(0x1000, 12, StageAllocation::Empty, 0x400, 0, 0)
                    .unwrap()
                    .len()
        );
        let mut mem_err = None;
        struct NoMem;
        impl GpuWriter for NoMem {
            fn alloc(&mut self, _: Heap, _: u64, _: u64) -> Result<u64, DrawError> {
                Ok(USC_BASE + 0x10000)
            }
            fn write(&mut self, _: u64, _: &[u8]) -> Result<(), DrawError> {
                Ok(())
            }
        }
        if let Err(e) = launcher(&mut NoMem, StageAllocation::Empty, 0x400, 0, 0, &[0; 60]) {
            mem_err = Some(e);
        }
        assert!(
            matches!(mem_err, Some(DrawError::Unsupported(_))),
            "{mem_err:?}"
        );
    }

    #[test]
    fn line_widths_use_the_four_four_encoding() {
        assert_eq!(line_width_raw(1.0), 15);
        assert_eq!(line_width_raw(2.5), 39);
        assert_eq!(line_width_raw(0.0), 0);
        assert_eq!(line_width_raw(100.0), 255);
    }
}

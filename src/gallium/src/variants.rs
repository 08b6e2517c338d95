//! Shader variants for a draw: the vertex program keyed on the vertex elements (vertex fetch is
//! part of the G16 vertex program) and the fragment program keyed on the linked varyings and
//! the framebuffer's formats (the program packs colour into tile words), compiled by
//! agx16-compiler's NIR graphics entry on first use and kept with the CSO. Blending, logic ops
//! and partial colour masks are part of the fragment variant: Mesa's `nir_lower_blend` rewrites
//! the colour stores to blend against the destination (`load_output`, which the compiler
//! reads from the target's tile word), the way the G16 compilers do it (GravityLinux/mesa
//! apple9 path and Mesa asahi lower blending into the fragment shader; G16 has no fixed-function
//! blender in any source).

use crate::context::Context;
use crate::resource::Resource;
use crate::screen::Screen;
use crate::shader::ShaderCso;
use agx16_cmdstream::descriptors::MipFilter;
use agx16_compiler::abi::{
    AttribFormat, AttribType, FragmentKey, GraphicsKey, RenderTarget, StageInfo, VertexAttrib,
    VertexKey, ROOT_WORDS,
};
use agx16_compiler::ir::Interp as CInterp;
use agx16_compiler::nir::texture::load_uniform_words;
use agx16_compiler::nir::uniforms::{lower_textures, uniform_end, TextureWords, WordsAt};
use agx16_draw::{FragmentProgram, Interp, Varying, VertexProgram};
use agx16_mesa_sys as sys;
use std::sync::{Arc, Mutex};

/// The programs and launcher argument words of one draw.
pub struct DrawPrograms {
    pub vs: Arc<VertexProgram>,
    pub fs: Arc<FragmentProgram>,
    pub vs_args: Vec<u32>,
    pub fs_args: Vec<u32>,
}

/// A compiled vertex variant and where its root record takes the words the driver adds.
type VertexVariant = Result<(Arc<VertexProgram>, StageInfo, VertexWords), String>;

/// Where a variant's texture-information words go in a draw's root record.
#[derive(Clone, Debug)]
enum TexWords {
    /// Inline from root-record word `.0` on: word i is `.1[i]` = (unit, word of the unit).
    Inline(usize, Vec<(u8, u8)>),
    /// Uniform block `.0` (a buffer qword after the program's own blocks), uploaded per draw.
    Block(u8, Vec<(u8, u8)>),
}

impl TexWords {
    fn new(t: Option<TextureWords>, gl_uniform_base: u16) -> Option<TexWords> {
        t.map(|t| match t.at {
            WordsAt::Inline(w) => TexWords::Inline(gl_uniform_base as usize + w as usize, t.words),
            WordsAt::Block(k) => TexWords::Block(k, t.words),
        })
    }

    /// The block the words are read from, when in memory.
    fn block(this: &Option<TexWords>) -> Option<u8> {
        match this {
            Some(TexWords::Block(k, _)) => Some(*k),
            _ => None,
        }
    }
}

/// Root-record words of a vertex variant besides the program's own uniforms.
#[derive(Clone, Debug)]
struct VertexWords {
    /// GL uniform words the program itself reads (from constant buffer 0).
    program_words: usize,
    /// The root-record word of the transform feedback capture's three words.
    capture: Option<usize>,
    /// The texture-information words (as for fragments: [`texture_info`]).
    texture_info: Option<TexWords>,
    /// The root-record word of the fetch limit words, one per attribute of the key
    /// ([`fetch_limits`]).
    fetch_limits: Option<usize>,
    /// The root-record word of the uniform blocks' bound sizes ([`clamp_ubo_offsets`]).
    ubo_sizes: Option<usize>,
}

/// A compiled fragment variant and where its root record takes the words the driver adds.
type FragmentVariant = Result<(Arc<FragmentProgram>, StageInfo, FragmentWords), String>;

/// Root-record words of a fragment variant besides the program's own uniforms.
#[derive(Clone, Debug)]
struct FragmentWords {
    /// GL uniform words the program itself reads (from constant buffer 0); the words past
    /// them are the driver's own (see [`ExtraWords`]).
    program_words: usize,
    /// The root-record word of the blend colour's four f32 words, when blending reads it.
    blend_color: Option<usize>,
    /// The texture-information words the program reads and where (see [`texture_info`]).
    texture_info: Option<TexWords>,
    /// The root-record word of the uniform blocks' bound sizes ([`clamp_ubo_offsets`]).
    ubo_sizes: Option<usize>,
}

/// Compiled variants of one CSO, by key.
#[derive(Default)]
pub struct Variants {
    vertex: Vec<(VertexKey, VertexVariant)>,
    fragment: Vec<((FragmentKey, BlendKey), FragmentVariant)>,
}

impl Variants {
    /// Takes every compiled program out (the CSO is being deleted): each with a reference
    /// for [`crate::batch::ProgramStore::retire`] and its body.
    pub fn take_programs(&mut self) -> Vec<(crate::batch::RetiredToken, agx16_draw::ShaderBody)> {
        let mut out: Vec<(crate::batch::RetiredToken, agx16_draw::ShaderBody)> = Vec::new();
        for (_, v) in self.vertex.drain(..) {
            if let Ok((p, ..)) = v {
                let body = p.body;
                out.push((p, body));
            }
        }
        for (_, v) in self.fragment.drain(..) {
            if let Ok((p, ..)) = v {
                let body = p.body;
                out.push((p, body));
            }
        }
        out
    }
}

/// One render target's blend state as `nir_lower_blend` takes it: (func, src factor, dst
/// factor) for RGB and alpha, the colour mask, the target's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtBlend {
    pub rgb: [u32; 3],
    pub alpha: [u32; 3],
    pub colormask: u32,
    pub format: u32,
}

/// The blend state a fragment variant is compiled for (empty: plain stores).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlendKey {
    pub rts: Vec<RtBlend>,
    /// Logic op function when logic ops are enabled.
    pub logicop: Option<u32>,
}

const REPLACE: [u32; 3] = [
    sys::PIPE_BLEND_ADD,
    sys::PIPE_BLENDFACTOR_ONE,
    sys::PIPE_BLENDFACTOR_ZERO,
];

impl BlendKey {
    /// Whether the program reads the destination (and so needs `nir_lower_blend`).
    pub fn reads_destination(&self) -> bool {
        self.logicop.is_some()
            || self.rts.iter().any(|r| {
                r.format != sys::PIPE_FORMAT_NONE
                    && (r.colormask != 0xf || r.rgb != REPLACE || r.alpha != REPLACE)
            })
    }

    fn options(&self) -> sys::nir_lower_blend_options {
        // SAFETY: a plain C struct of integers and enums; all-zero is a valid value.
        let mut o: sys::nir_lower_blend_options = unsafe { std::mem::zeroed() };
        let ch = |c: [u32; 3]| sys::nir_lower_blend_channel {
            func: c[0],
            src_factor: c[1],
            dst_factor: c[2],
        };
        for (i, r) in self.rts.iter().enumerate() {
            o.rt[i].rgb = ch(r.rgb);
            o.rt[i].alpha = ch(r.alpha);
            o.rt[i].colormask = r.colormask;
            o.format[i] = r.format;
        }
        if let Some(f) = self.logicop {
            o.logicop_enable = true;
            o.logicop_func = f;
        }
        o
    }
}

fn uses_src1(f: u32) -> bool {
    matches!(
        f,
        sys::PIPE_BLENDFACTOR_SRC1_COLOR
            | sys::PIPE_BLENDFACTOR_SRC1_ALPHA
            | sys::PIPE_BLENDFACTOR_INV_SRC1_COLOR
            | sys::PIPE_BLENDFACTOR_INV_SRC1_ALPHA
    )
}

/// The blend key of the bound blend state and framebuffer; blend state the variant cannot
/// express is refused with its reason.
///
/// # Safety
/// The bound blend CSO and colour surfaces must be live.
pub unsafe fn blend_key(ctx: &Context) -> Result<BlendKey, String> {
    let fb = &ctx.state.framebuffer;
    let Some(b) = ctx.state.blend.as_ref() else {
        // No blend state: plain stores, but the formats still decide the colour packing.
        return Ok(BlendKey {
            rts: (0..fb.nr_cbufs as usize)
                .map(|i| RtBlend {
                    rgb: REPLACE,
                    alpha: REPLACE,
                    colormask: 0xf,
                    format: fb.cbufs[i]
                        .as_ref()
                        .map_or(sys::PIPE_FORMAT_NONE, |s| s.format()),
                })
                .collect(),
            logicop: None,
        });
    };
    // Alpha to coverage is the fragment key's (`fragment_key`), not the blend's.
    let mut key = BlendKey {
        rts: Vec::new(),
        logicop: (b.logicop_enable() != 0).then(|| b.logicop_func()),
    };
    for i in 0..fb.nr_cbufs as usize {
        if fb.cbufs[i].is_null() {
            // A GL_NONE draw buffer: no attachment, its writes are dropped (mask 0 makes
            // nir_lower_blend remove them; without it the compiler drops them).
            key.rts.push(RtBlend {
                rgb: REPLACE,
                alpha: REPLACE,
                colormask: 0,
                format: sys::PIPE_FORMAT_NONE,
            });
            continue;
        }
        let rt = target_blend(b, i);
        let (rgb, alpha) = if key.logicop.is_none() {
            equations(rt)
        } else {
            (REPLACE, REPLACE)
        };
        // Dual-source factors read the index-1 colour, which nir_lower_blend takes from the
        // program's `dual_source_blend_index` 1 store (GL allows them on target 0 only).
        if i > 0
            && [rgb[1], rgb[2], alpha[1], alpha[2]]
                .into_iter()
                .any(uses_src1)
        {
            return Err("dual-source blending on a target past 0".into());
        }
        // A colour mask without blending on a multisampled RGBA8/BGRA8 target is the fragment
        // key's (`keep_channels`: the program merges each sample's bytes); elsewhere
        // nir_lower_blend's destination read, which the compiler runs per sample.
        let colormask = if colour_mask_per_sample(ctx, rgb, alpha, (*fb.cbufs[i]).format()) {
            0xf
        } else {
            rt.colormask() & 0xf
        };
        key.rts.push(RtBlend {
            rgb,
            alpha,
            colormask,
            format: (*fb.cbufs[i]).format(),
        });
    }
    Ok(key)
}

/// Whether a target's colour mask is merged per sample by the program's byte merge
/// (multisampled framebuffer, a compiler-packed 8-bit RGBA target, no blending or logic op
/// on the target).
///
/// # Safety
/// The bound blend CSO and surfaces must be live.
unsafe fn colour_mask_per_sample(
    ctx: &Context,
    rgb: [u32; 3],
    alpha: [u32; 3],
    format: sys::pipe_format,
) -> bool {
    crate::draw::framebuffer_samples(&ctx.state.framebuffer) > 1
        && !crate::rt_format::is_raw(format)
        && rgb == REPLACE
        && alpha == REPLACE
        && ctx
            .state
            .blend
            .as_ref()
            .is_some_and(|b| b.logicop_enable() == 0)
}

/// Target `i`'s blend state (target 0's for all unless blending is independent).
fn target_blend(b: &sys::pipe_blend_state, i: usize) -> &sys::pipe_rt_blend_state {
    &b.rt[if b.independent_blend_enable() != 0 {
        i
    } else {
        0
    }]
}

/// A target's (function, source factor, destination factor) for RGB and alpha; REPLACE when
/// blending is off.
fn equations(rt: &sys::pipe_rt_blend_state) -> ([u32; 3], [u32; 3]) {
    if rt.blend_enable() == 0 {
        return (REPLACE, REPLACE);
    }
    (
        [rt.rgb_func(), rt.rgb_src_factor(), rt.rgb_dst_factor()],
        [
            rt.alpha_func(),
            rt.alpha_src_factor(),
            rt.alpha_dst_factor(),
        ],
    )
}

/// The colour-mask channels each target keeps when they are merged per sample (see
/// `FragmentKey::keep_channels`).
///
/// # Safety
/// As `blend_key`.
unsafe fn keep_channels(ctx: &Context) -> u32 {
    let fb = &ctx.state.framebuffer;
    let Some(b) = ctx.state.blend.as_ref() else {
        return 0;
    };
    let mut keep = 0;
    for i in 0..(fb.nr_cbufs as usize).min(8) {
        if fb.cbufs[i].is_null() {
            continue;
        }
        let rt = target_blend(b, i);
        let (rgb, alpha) = equations(rt);
        if colour_mask_per_sample(ctx, rgb, alpha, (*fb.cbufs[i]).format()) {
            keep |= (!rt.colormask() & 0xf) << (4 * i);
        }
    }
    keep
}

pub type VariantCache = Mutex<Variants>;

/// The vertex fetch's description of a vertex-buffer format (from Mesa's format table), or why
/// the fetch cannot read it: plain RGBA-ordered formats of 1..4 components, all of one type
/// (unsigned/signed, normalised, scaled or pure integer; float; 16.16 fixed), which the
/// compiler's `AttribFormat::check` accepts. Others (BGRA, 64-bit) are left to u_vbuf's CPU
/// translation (formats.rs says it does not support them).
pub fn attrib_format(f: sys::pipe_format) -> Result<AttribFormat, String> {
    // SAFETY: Mesa's static format table; every pipe_format value has an entry (or null).
    let d = unsafe { sys::util_format_description(f).as_ref() }
        .ok_or_else(|| format!("vertex attribute format {f}: not a format"))?;
    let n = d.nr_channels() as usize;
    let refuse = |why: &str| Err(format!("vertex attribute format {f}: {why}"));
    if d.layout != sys::UTIL_FORMAT_LAYOUT_PLAIN
        || d.colorspace != sys::UTIL_FORMAT_COLORSPACE_RGB
        || !(1..=4).contains(&n)
    {
        return refuse("not a plain RGBA format of 1..4 components");
    }
    let c0 = &d.channel[0];
    let ty = match (c0.type_(), c0.normalized() != 0, c0.pure_integer() != 0) {
        (sys::UTIL_FORMAT_TYPE_FLOAT, ..) => AttribType::Float,
        (sys::UTIL_FORMAT_TYPE_UNSIGNED, true, _) => AttribType::Unorm,
        (sys::UTIL_FORMAT_TYPE_UNSIGNED, false, true) => AttribType::Uint,
        (sys::UTIL_FORMAT_TYPE_UNSIGNED, false, false) => AttribType::Uscaled,
        (sys::UTIL_FORMAT_TYPE_SIGNED, true, _) => AttribType::Snorm,
        (sys::UTIL_FORMAT_TYPE_SIGNED, false, true) => AttribType::Sint,
        (sys::UTIL_FORMAT_TYPE_SIGNED, false, false) => AttribType::Sscaled,
        (sys::UTIL_FORMAT_TYPE_FIXED, ..) => AttribType::Fixed,
        _ => return refuse("void channels"),
    };
    let mut bits = [0u8; 4];
    let mut shift = 0;
    for (k, c) in d.channel[..n].iter().enumerate() {
        if (c.type_(), c.normalized(), c.pure_integer())
            != (c0.type_(), c0.normalized(), c0.pure_integer())
            || c.shift() != shift
        {
            return refuse("mixed channel types or out-of-order channels");
        }
        bits[k] = c.size() as u8;
        shift += c.size();
    }
    // Component k of the element feeds shader component k, or (B*G*R*A* formats, GL_BGRA)
    // x and z swap.
    let order = |k: usize| {
        if k < n {
            sys::PIPE_SWIZZLE_X + k as u32
        } else if k == 3 {
            sys::PIPE_SWIZZLE_1
        } else {
            sys::PIPE_SWIZZLE_0
        }
    };
    let swizzle = d.swizzle.map(u32::from);
    let bgra = n == 4 && swizzle == [order(2), order(1), order(0), order(3)];
    if !bgra && (0..4).any(|k| swizzle[k] != order(k)) {
        return refuse("a swizzled channel order");
    }
    let a = AttribFormat {
        ty,
        comps: n as u8,
        bits,
        bgra,
    };
    a.check()?;
    Ok(a)
}

/// The vertex key: element i feeds the i-th vertex shader input in location order (how the
/// state tracker orders vertex elements).
unsafe fn vertex_key(ctx: &Context, vs: &ShaderCso, xfb_buffers: u8) -> Result<VertexKey, String> {
    let ve = ctx
        .state
        .vertex_elements
        .as_ref()
        .ok_or("no vertex elements bound")?;
    let read = (*vs.nir).info.inputs_read;
    let locations: Vec<u8> = (0..64)
        .filter(|b| read >> b & 1 == 1)
        .map(|b| b as u8)
        .collect();
    let mut attribs = Vec::new();
    for (i, e) in ve.elements.iter().enumerate() {
        let Some(&location) = locations.get(i) else {
            break;
        };
        attribs.push(VertexAttrib {
            location,
            buffer: e.vertex_buffer_index(),
            offset: e.src_offset as u32,
            stride: e.src_stride,
            format: attrib_format(e.src_format as sys::pipe_format)?,
            divisor: e.instance_divisor,
        });
    }
    // GL's z in [-w, w] unless clip control asked for [0, w] (draw.rs rewrites the
    // viewport's depth transform to match).
    let gl_clip_z = ctx
        .state
        .rasterizer
        .as_ref()
        .is_none_or(|r| r.clip_halfz() == 0);
    Ok(VertexKey {
        attribs,
        ubos: vs.ubos.clone()?,
        gl_clip_z,
        xfb_buffers,
        // Placed by `compile` past the variant's other words.
        fetch_limits: None,
    })
}

unsafe fn fragment_key(
    ctx: &Context,
    fs: &ShaderCso,
    vs_info: &StageInfo,
) -> Result<FragmentKey, String> {
    let fb = &ctx.state.framebuffer;
    let samples = crate::draw::framebuffer_samples(fb);
    let mut render_targets = Vec::new();
    for i in 0..fb.nr_cbufs as usize {
        let s = fb.cbufs[i];
        let rt = if s.is_null() {
            RenderTarget::Unbound
        } else {
            let f = (*s).format();
            crate::rt_format::target(f)
                .ok_or_else(|| format!("fragment output to format {f}"))?
                .1
        };
        render_targets.push(rt);
    }
    let frag_coord_z = (*fs.nir).info.inputs_read & (1 << sys::VARYING_SLOT_POS) != 0
        || (*fs.nir).info.system_values_read[0] & (1 << sys::SYSTEM_VALUE_FRAG_COORD) != 0;
    Ok(FragmentKey {
        varyings: vs_info.varyings.clone(),
        frag_coord_z,
        render_targets,
        ubos: fs.ubos.clone()?,
        samples: samples as u8,
        // GL's sample mask (glSampleCoverage through st's sample mask): the samples it clears.
        kill_samples: if samples > 1 {
            (!ctx.state.sample_mask & ((1u32 << samples) - 1)) as u8
        } else {
            0
        },
        keep_channels: keep_channels(ctx),
        alpha_to_coverage: samples > 1
            && ctx
                .state
                .blend
                .as_ref()
                .is_some_and(|b| b.alpha_to_coverage() != 0),
    })
}

/// The root-record qwords of a stage's `n` uniform blocks: the GPU address of constant buffer
/// k + 1's first byte (its binding offset included) for block k, and of constant buffer 0 (the
/// default uniform block; st hands it over in CPU memory, copied into the batch here) for
/// the block `default_block` names; the driver's texture-information words, uploaded here, for
/// the block `driver` names.
unsafe fn ubo_words(
    ctx: &mut Context,
    screen: &Screen,
    stage: usize,
    n: u8,
    default_block: Option<u8>,
    driver: Option<(u8, &[u32])>,
    args: &mut Vec<u32>,
) -> Result<Vec<u32>, String> {
    let mut sizes = Vec::new();
    for k in 0..n {
        if let Some((_, words)) = driver.filter(|d| d.0 == k) {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let mut w = crate::batch::Writer {
                dev: &screen.bo,
                mem: ctx.render.mem.as_mut().ok_or("no open batch")?,
            };
            let va = agx16_draw::GpuWriter::upload(&mut w, agx16_draw::Heap::General, &bytes, 16)
                .map_err(|e| e.to_string())?;
            args.extend([va as u32, (va >> 32) as u32]);
            // Its size keeps the words of later blocks at their indices (none follow today).
            sizes.push(bytes.len() as u32);
            continue;
        }
        let cbi = if default_block == Some(k) {
            0
        } else {
            k as usize + 1
        };
        let cb = ctx.state.constant_buffers[stage][cbi];
        let size = if cb.buffer.is_null() {
            cb.buffer_size
        } else {
            let whole = (*cb.buffer).width0.saturating_sub(cb.buffer_offset);
            cb.buffer_size.min(whole)
        };
        sizes.push(size);
        let va = if !cb.user_buffer.is_null() {
            let bytes = std::slice::from_raw_parts(
                (cb.user_buffer as *const u8).add(cb.buffer_offset as usize),
                cb.buffer_size as usize,
            );
            let mut w = crate::batch::Writer {
                dev: &screen.bo,
                mem: ctx.render.mem.as_mut().ok_or("no open batch")?,
            };
            agx16_draw::GpuWriter::upload(&mut w, agx16_draw::Heap::General, bytes, 16)
                .map_err(|e| e.to_string())?
        } else if cb.buffer.is_null() {
            return Err(format!(
                "uniform block {k} has no buffer bound (constant buffer {cbi})"
            ));
        } else {
            ctx.render.use_resource(cb.buffer, false);
            Resource::get(cb.buffer).bo().va + cb.buffer_offset as u64
        };
        args.extend([va as u32, (va >> 32) as u32]);
    }
    Ok(sizes)
}

/// Robust uniform block reads: a `load_ubo` at a computed byte offset reads at
/// `umin(offset, max(size - bytes, 0))`, where `size` is the block's bound size from GL
/// uniform word `*data + block` (filled per draw by [`ubo_words`]), so an index past the
/// block's end reads within the bound range instead of another buffer or unmapped memory
/// (GLES robust buffer access: values from within the buffer). Constant offsets are left as
/// they are (GLSL refuses constant indices past an array's end).
unsafe extern "C" fn clamp_ubo_offsets(
    b: *mut sys::nir_builder,
    x: *mut sys::nir_intrinsic_instr,
    data: *mut std::ffi::c_void,
) -> bool {
    if (*x).intrinsic != sys::nir_intrinsic_load_ubo {
        return false;
    }
    let srcs = (*x).src.as_mut_ptr();
    if !sys::nir_src_is_const(*srcs) || sys::nir_src_is_const(*srcs.add(1)) {
        return false;
    }
    let block = sys::nir_src_as_uint(*srcs) as u32;
    let bytes = (*x).def.num_components as i64 * (*x).def.bit_size as i64 / 8;
    (*b).cursor = sys::nir_before_instr(&mut (*x).instr);
    let size = load_uniform_words(b, *(data as *const u32) + block, 1, sys::nir_type_uint32);
    let last = sys::nir_imax(
        b,
        sys::nir_iadd_imm(b, size, (-bytes) as u64),
        sys::nir_imm_int(b, 0),
    );
    let offset = sys::nir_umin(b, (*srcs.add(1)).ssa, last);
    sys::nir_src_rewrite(srcs.add(1), offset);
    true
}

/// `store_output` to FRAG_RESULT_COLOR → FRAG_RESULT_DATA0.
unsafe extern "C" fn fragcolor_to_data0(
    _b: *mut sys::nir_builder,
    x: *mut sys::nir_intrinsic_instr,
    _data: *mut std::ffi::c_void,
) -> bool {
    if (*x).intrinsic != sys::nir_intrinsic_store_output {
        return false;
    }
    let mut sem = sys::nir_intrinsic_io_semantics(x);
    if sem.location() != sys::FRAG_RESULT_COLOR {
        return false;
    }
    sem.set_location(sys::FRAG_RESULT_DATA0);
    sys::nir_intrinsic_set_io_semantics(x, sem);
    true
}

/// Before target 0's colour store (`FRAG_RESULT_DATA0`, index 0), a gl_SampleMask store of
/// alpha to coverage's mask: floor(clamp(alpha, 0, 1) x samples) samples survive (the
/// compiler's `alpha_to_coverage` rule, Mesa asahi agx_nir_lower_alpha.c's; an unwritten alpha
/// is 1). `data`: the sample count (u32).
unsafe extern "C" fn alpha_to_sample_mask(
    b: *mut sys::nir_builder,
    x: *mut sys::nir_intrinsic_instr,
    data: *mut std::ffi::c_void,
) -> bool {
    if (*x).intrinsic != sys::nir_intrinsic_store_output {
        return false;
    }
    let sem = sys::nir_intrinsic_io_semantics(x);
    if sem.location() != sys::FRAG_RESULT_DATA0 || sem.dual_source_blend_index() != 0 {
        return false;
    }
    let samples = *(data as *const u32);
    (*b).cursor = sys::nir_before_instr(&mut (*x).instr);
    let v = (*x).src.as_slice(2)[0].ssa;
    let comp = sys::nir_intrinsic_component(x);
    let written = sys::nir_intrinsic_write_mask(x);
    let alpha =
        if comp <= 3 && 3 - comp < (*v).num_components as u32 && written >> (3 - comp) & 1 == 1 {
            sys::nir_channel(b, v, 3 - comp)
        } else {
            sys::nir_imm_float(b, 1.0)
        };
    let a = sys::nir_fmin(
        b,
        sys::nir_fmax(b, alpha, sys::nir_imm_float(b, 0.0)),
        sys::nir_imm_float(b, 1.0),
    );
    let n = sys::nir_f2u32(b, sys::nir_fmul_imm(b, a, samples as f64));
    let mask = sys::nir_iadd_imm(b, sys::nir_ishl(b, sys::nir_imm_int(b, 1), n), u64::MAX);
    let st = sys::nir_intrinsic_instr_create((*b).shader, sys::nir_intrinsic_store_output);
    (*st).num_components = 1;
    (*st).src.as_mut_slice(2)[0] = sys::nir_src_for_ssa(mask);
    (*st).src.as_mut_slice(2)[1] = sys::nir_src_for_ssa(sys::nir_imm_int(b, 0));
    sys::nir_intrinsic_set_base(st, 0);
    sys::nir_intrinsic_set_component(st, 0);
    sys::nir_intrinsic_set_write_mask(st, 1);
    sys::nir_intrinsic_set_src_type(st, sys::nir_type_uint32);
    let mut ms = sem;
    ms.set_location(sys::FRAG_RESULT_SAMPLE_MASK);
    ms.set_num_slots(1);
    ms.set_dual_source_blend_index(0);
    sys::nir_intrinsic_set_io_semantics(st, ms);
    sys::nir_builder_instr_insert(b, &mut (*st).instr);
    true
}

/// Removes a fragment colour store of `dual_source_blend_index` 1 (see `compile`).
unsafe extern "C" fn drop_dual_source_store(
    _b: *mut sys::nir_builder,
    x: *mut sys::nir_intrinsic_instr,
    _data: *mut std::ffi::c_void,
) -> bool {
    if (*x).intrinsic != sys::nir_intrinsic_store_output
        || sys::nir_intrinsic_io_semantics(x).dual_source_blend_index() == 0
    {
        return false;
    }
    sys::nir_instr_remove(&mut (*x).instr);
    true
}

/// `load_blend_const_color_rgba` (what `nir_lower_blend` reads the GL blend colour with; it
/// clamps it for fixed-point targets itself) → the four f32 uniform words at GL word `*data`,
/// which [`for_draw`] fills from `set_blend_color` on every draw, so a colour change does not
/// compile a new variant.
unsafe extern "C" fn blend_const_uniform(
    b: *mut sys::nir_builder,
    x: *mut sys::nir_intrinsic_instr,
    data: *mut std::ffi::c_void,
) -> bool {
    if (*x).intrinsic != sys::nir_intrinsic_load_blend_const_color_rgba {
        return false;
    }
    (*b).cursor = sys::nir_before_instr(&mut (*x).instr);
    let load = load_uniform_words(b, *(data as *const u32), 4, sys::nir_type_float32);
    sys::nir_def_replace(&mut (*x).def, load);
    true
}

/// gl_FragCoord.xy + the render's origin: agx16-draw draws a batch with a large tilebuffer as
/// one render per utile rectangle (else one render, origin 0) and the pixel the M4 reports is the render's (compiler README "gl_FragCoord"), so
/// x and y of `load_frag_coord` (or the VARYING_SLOT_POS input, plain or interpolated) get the two f32 uniform
/// words at GL word `*data`, which agx16-draw fills per render (`FragmentProgram::origin_word`).
unsafe extern "C" fn frag_coord_origin(
    b: *mut sys::nir_builder,
    x: *mut sys::nir_intrinsic_instr,
    data: *mut std::ffi::c_void,
) -> bool {
    let first = match (*x).intrinsic {
        sys::nir_intrinsic_load_frag_coord => 0,
        sys::nir_intrinsic_load_input | sys::nir_intrinsic_load_interpolated_input
            if sys::nir_intrinsic_io_semantics(x).location() == sys::VARYING_SLOT_POS =>
        {
            sys::nir_intrinsic_component(x)
        }
        _ => return false,
    };
    let n = (*x).def.num_components as u32;
    if first >= 2 || (*x).def.bit_size != 32 {
        return false;
    }
    let word = *(data as *const u32);
    (*b).cursor = sys::nir_after_instr(&mut (*x).instr);
    let load = load_uniform_words(b, word, 2, sys::nir_type_float32);
    let mut comps: Vec<*mut sys::nir_def> = (0..n)
        .map(|i| {
            let c = sys::nir_channel(b, &mut (*x).def, i);
            match first + i {
                k @ (0 | 1) => sys::nir_fadd(b, c, sys::nir_channel(b, load, k)),
                _ => c,
            }
        })
        .collect();
    let v = sys::nir_vec(b, comps.as_mut_ptr(), n);
    sys::nir_def_rewrite_uses_after(&mut (*x).def, v, (*v).parent_instr);
    true
}

/// GL uniform words a fragment variant adds past the program's own uniforms.
#[derive(Clone, Debug, Default)]
struct ExtraWords {
    /// The GL uniform words of the program itself (constant buffer 0), before any added word.
    program_words: u32,
    /// The render origin, for gl_FragCoord (see [`frag_coord_origin`]).
    origin: Option<u32>,
    /// The blend colour, for constant blend factors (see [`blend_const_uniform`]).
    blend_color: Option<u32>,
    /// Vertex: the transform feedback capture's words (see `so::add_capture`).
    capture: Option<u32>,
    /// Texture sizes and sampler words, for textureSize, offsets, gradients, shadow compares
    /// and the array-layer clamp (agx16-compiler `nir::texture::lower`): the words the
    /// program reads, inline or as a uniform block (`nir::uniforms::lower_textures`).
    texture_info: Option<TextureWords>,
    /// Vertex: the robust fetch's limit words, one per attribute (`VertexKey::fetch_limits`).
    fetch_limits: Option<u32>,
    /// The bound size of each uniform block the program reads with a computed offset, from
    /// this word on (one word per block, see [`clamp_ubo_offsets`]).
    ubo_sizes: Option<u32>,
}

/// The texture-information words `want` ((unit, word) pairs) of `stage` for this draw. A
/// unit's words: width, height, depth (3D) or layers (arrays; 6 for a cube), level count of
/// the bound view at its base level (what `txs` returns at LOD 0; zeros for an unbound unit,
/// which the draw refuses anyway), the shadow comparison of the unit's sampler and its mip
/// filter and LOD range.
///
/// # Safety
/// The bound sampler views must be live.
unsafe fn texture_info(ctx: &Context, stage: sys::pipe_shader_type, want: &[(u8, u8)]) -> Vec<u32> {
    let units = want.iter().map(|&(u, _)| u as usize + 1).max().unwrap_or(0);
    let all = unit_words(ctx, stage, units);
    let n = agx16_compiler::nir::texture::INFO_WORDS as usize;
    want.iter()
        .map(|&(u, k)| all[n * u as usize + k as usize])
        .collect()
}

/// Every texture-information word of `stage`'s units `0..units` (see [`texture_info`]).
///
/// # Safety
/// The bound sampler views must be live.
unsafe fn unit_words(ctx: &Context, stage: sys::pipe_shader_type, units: usize) -> Vec<u32> {
    let stage = stage as usize;
    let mut out = Vec::new();
    for u in 0..units {
        let view = ctx.state.sampler_views[stage]
            .get(u)
            .copied()
            .unwrap_or(std::ptr::null_mut());
        let mut w = [0u32; agx16_compiler::nir::texture::INFO_WORDS as usize];
        // Shadow samplers: the sampler's comparison; the reference is clamped to [0, 1] for
        // fixed-point depth (Z16, Z24: GL ES 3.0 §3.8.16), not for Z32F.
        let cso = ctx.state.samplers[stage].get(u).and_then(|s| s.as_ref());
        // Mip filter and LOD range as the G16 sampler descriptor holds them (texture offsets
        // are applied per level in the shader, agx16-compiler nir/texture_offset.rs).
        if let Some(Ok(d)) = cso.map(|s| &s.desc) {
            let mip = match d.mip_filter {
                MipFilter::Nearest => 1,
                MipFilter::Linear => 2,
                _ => 0,
            };
            let (min, max) = d.lod_range();
            w[5..8].copy_from_slice(&agx16_compiler::nir::texture::sampler_words(mip, min, max));
        }
        let sampler = cso.and_then(|s| s.compare_func);
        if let (Some(func), Some(v)) = (sampler, view.as_ref()) {
            let fixed = !matches!(
                v.format(),
                sys::PIPE_FORMAT_Z32_FLOAT | sys::PIPE_FORMAT_Z32_FLOAT_S8X24_UINT
            );
            w[4] = agx16_compiler::nir::texture::compare_word(func, fixed);
        }
        if let Some(v) = view.as_ref() {
            let r = &*v.texture;
            let first = v.u.tex.first_level();
            let at = |d: u32| (d >> first).max(1);
            let layers = v.u.tex.last_layer() - v.u.tex.first_layer() + 1;
            w[..4].copy_from_slice(&[
                at(r.width0),
                at(r.height0 as u32),
                if v.target() == sys::PIPE_TEXTURE_3D {
                    at(r.depth0 as u32)
                } else {
                    layers
                },
                v.u.tex.last_level() - first + 1,
            ]);
            let own = &*(v as *const sys::pipe_sampler_view as *const crate::texture::SamplerView);
            w[agx16_compiler::nir::texture::LOD_BASE_WORD as usize] = own.lod_base_word();
        }
        out.extend(w);
    }
    out
}

/// Compiles `cso` for `key` on a clone of its NIR (the compiler lowers in place). For a
/// fragment program, also returns the GL uniform words it added (see [`ExtraWords`]).
unsafe fn compile(
    cso: &ShaderCso,
    key: &GraphicsKey,
    blend: Option<&BlendKey>,
    robust_fetch: bool,
) -> Result<(agx16_compiler::pipeline::Compiled, StageInfo, ExtraWords), String> {
    // The texture-information words may become a uniform block of their own, which the key
    // then counts (`lower_textures`); the variant stays cached under the draw's key.
    let mut key = key.clone();
    let key = &mut key;
    let clone = sys::nir_shader_clone(std::ptr::null_mut(), cso.nir);
    if clone.is_null() {
        return Err("nir_shader_clone failed".into());
    }
    if let Some(k) = cso.default_block {
        agx16_compiler::nir::uniforms::default_block_to_ubo(clone, k);
    }
    let mut extra = ExtraWords {
        program_words: uniform_end(clone),
        ..Default::default()
    };
    if let GraphicsKey::Fragment(_) = key {
        let reads = (*clone).info.inputs_read & (1 << sys::VARYING_SLOT_POS) != 0
            || (*clone).info.system_values_read[0] & (1 << sys::SYSTEM_VALUE_FRAG_COORD) != 0;
        if reads {
            let mut word = uniform_end(clone);
            sys::nir_shader_intrinsics_pass(
                clone,
                Some(frag_coord_origin),
                sys::nir_metadata_control_flow,
                &mut word as *mut u32 as *mut std::ffi::c_void,
            );
            extra.origin = Some(word);
        }
    }
    if let GraphicsKey::Vertex(v) = key {
        if v.xfb_buffers > 0 {
            let so = cso
                .so
                .as_ref()
                .ok_or("a capturing variant of a CSO without stream outputs")?;
            let word = uniform_end(clone);
            if let Err(e) = crate::so::add_capture(clone, so, word) {
                sys::ralloc_free(clone as *mut std::ffi::c_void);
                return Err(e);
            }
            extra.capture = Some(word);
        }
    }
    if let Some(b) = blend.filter(|b| b.reads_destination()) {
        // nir_lower_blend takes per-target locations: gl_FragColor is target 0's (the
        // compiler stores FRAG_RESULT_COLOR to target 0 alike).
        sys::nir_shader_intrinsics_pass(
            clone,
            Some(fragcolor_to_data0),
            sys::nir_metadata_control_flow,
            std::ptr::null_mut(),
        );
        // Alpha to coverage reads the fragment's alpha, not the blended one: on a multisampled
        // target with a destination read it becomes a gl_SampleMask store before the blend
        // (the compiler's rule otherwise applies it at the colour store, which nir_lower_blend
        // turns into the blended colour).
        if let GraphicsKey::Fragment(k) = key {
            if k.alpha_to_coverage && k.samples > 1 {
                let mut samples = k.samples as u32;
                sys::nir_shader_intrinsics_pass(
                    clone,
                    Some(alpha_to_sample_mask),
                    sys::nir_metadata_control_flow,
                    &mut samples as *mut u32 as *mut std::ffi::c_void,
                );
                k.alpha_to_coverage = false;
            }
        }
        sys::nir_lower_blend(clone, &b.options());
        // nir_lower_blend loads the blend colour for every target whether a factor uses it
        // or not: only live loads get words.
        sys::nir_opt_dce(clone);
        // Past every uniform, the origin words included (they were added above).
        let mut word = uniform_end(clone);
        if sys::nir_shader_intrinsics_pass(
            clone,
            Some(blend_const_uniform),
            sys::nir_metadata_control_flow,
            &mut word as *mut u32 as *mut std::ffi::c_void,
        ) {
            extra.blend_color = Some(word);
        }
    }
    if let GraphicsKey::Fragment(_) = key {
        // The index-1 colour is only a blend factor: nir_lower_blend consumed it above when a
        // factor reads it; otherwise GL ignores it, so it is never stored to a target.
        sys::nir_shader_intrinsics_pass(
            clone,
            Some(drop_dual_source_store),
            sys::nir_metadata_control_flow,
            std::ptr::null_mut(),
        );
    }
    if let (GraphicsKey::Fragment(_), Some(b)) = (&*key, blend) {
        // Raw targets: the program packs its colour into the format's memory words.
        let formats: Vec<u32> = b.rts.iter().map(|r| r.format).collect();
        crate::rt_format::pack_colour_outputs(clone, &formats);
    }
    let mut word = uniform_end(clone);
    if sys::nir_shader_intrinsics_pass(
        clone,
        Some(clamp_ubo_offsets),
        sys::nir_metadata_control_flow,
        &mut word as *mut u32 as *mut std::ffi::c_void,
    ) {
        extra.ubo_sizes = Some(word);
    }
    // Both stages sample (a vertex shader's implicit LOD becomes LOD 0 in the lowering).
    extra.texture_info = lower_textures(clone, key);
    // Robust vertex fetch: the limit words go past every other word (the fetch is lowered
    // inside the compile, so they are not in the NIR yet).
    if let GraphicsKey::Vertex(v) = key {
        if robust_fetch && !v.attribs.is_empty() {
            let info_end = match &extra.texture_info {
                Some(t) => match t.at {
                    agx16_compiler::nir::uniforms::WordsAt::Inline(w) => w + t.words.len() as u32,
                    agx16_compiler::nir::uniforms::WordsAt::Block(_) => 0,
                },
                None => 0,
            };
            let word = uniform_end(clone).max(info_end);
            extra.fetch_limits = Some(word);
            v.fetch_limits = Some(word);
        }
    }
    let r = agx16_compiler::nir::compile_nir_graphics(clone, key).map_err(|e| e.to_string());
    sys::ralloc_free(clone as *mut std::ffi::c_void);
    r.map(|(c, i)| (c, i, extra))
}

fn interp(i: CInterp) -> Interp {
    match i {
        CInterp::Perspective => Interp::Perspective,
        CInterp::Linear => Interp::Linear,
        _ => Interp::Flat,
    }
}

unsafe fn vertex_variant(screen: &Screen, cso: &ShaderCso, key: &VertexKey) -> VertexVariant {
    let mut cache = cso.variants.lock().unwrap();
    if let Some((_, r)) = cache.vertex.iter().find(|(k, _)| k == key) {
        return r.clone();
    }
    let r = (|| {
        let vk = GraphicsKey::Vertex(key.clone());
        let (c, info, extra) = match compile(cso, &vk, None, true) {
            Ok(r)
                if r.2.fetch_limits.is_none()
                    || r.1.uniform_words as usize <= agx16_draw::build::MAX_ARG_WORDS =>
            {
                r
            }
            // The robust fetch's limit words (one per attribute) do not fit the launcher's
            // argument words (dEQP transform_feedback with four capture buffers): the variant
            // fetches without them rather than not drawing.
            _ => compile(cso, &vk, None, false)?,
        };
        // Spills address per-thread scratch sized by the launch frame's extent A
        // (4 bytes per scratch word, agx16-compiler MProgram::scratch_words).
        let scratch = u16::try_from(4 * c.mir.scratch_words)
            .map_err(|_| format!("{} bytes of scratch", 4 * c.mir.scratch_words))?;
        let body = screen
            .programs
            .lock()
            .unwrap()
            .add_body(&screen.bo, &c.code)
            .map_err(|e| e.to_string())?;
        let p = VertexProgram {
            body,
            outputs: info.outputs,
            writes_point_size: info.point_size,
            publications: info.publications,
            scratch,
        };
        let words = VertexWords {
            program_words: extra.program_words as usize,
            capture: extra
                .capture
                .map(|w| info.gl_uniform_base as usize + w as usize),
            texture_info: TexWords::new(extra.texture_info, info.gl_uniform_base),
            fetch_limits: extra
                .fetch_limits
                .map(|w| info.gl_uniform_base as usize + w as usize),
            ubo_sizes: extra
                .ubo_sizes
                .map(|w| info.gl_uniform_base as usize + w as usize),
        };
        Ok((Arc::new(p), info, words))
    })();
    cache.vertex.push((key.clone(), r.clone()));
    r
}

unsafe fn fragment_variant(
    screen: &Screen,
    cso: &ShaderCso,
    key: &FragmentKey,
    blend: &BlendKey,
) -> FragmentVariant {
    let mut cache = cso.variants.lock().unwrap();
    if let Some((_, r)) = cache
        .fragment
        .iter()
        .find(|((k, b), _)| k == key && b == blend)
    {
        return r.clone();
    }
    let r = (|| {
        let (c, info, extra) =
            compile(cso, &GraphicsKey::Fragment(key.clone()), Some(blend), true)?;
        let scratch = u16::try_from(4 * c.mir.scratch_words)
            .map_err(|_| format!("{} bytes of scratch", 4 * c.mir.scratch_words))?;
        let user_base = 1 + key.frag_coord_z as usize;
        let pc = agx16_compiler::abi::point_coord_coefficient(key) as usize;
        let point_coord = info
            .coefficients
            .get(pc..)
            .is_some_and(|c| c.iter().any(Option::is_some))
            .then_some(pc as u8);
        let varyings = info
            .coefficients
            .iter()
            .enumerate()
            .take(pc)
            .skip(user_base)
            .filter_map(|(cf, i)| {
                i.map(|i| Varying {
                    slot: (cf - user_base) as u8,
                    components: 1,
                    interp: interp(i),
                    coefficient: cf as u8,
                })
            })
            .collect();
        let body = screen
            .programs
            .lock()
            .unwrap()
            .add_body(&screen.bo, &c.code)
            .map_err(|e| e.to_string())?;
        let p = FragmentProgram {
            body,
            varyings,
            reads_frag_z: key.frag_coord_z,
            point_coord,
            discards: info.discards,
            // Colour masks merged per sample read the tilebuffer too (translucent pass).
            reads_tilebuffer: blend.reads_destination() || key.keep_channels != 0,
            publications: info.publications,
            scratch,
            origin_word: extra
                .origin
                .map(|w| info.gl_uniform_base as usize + w as usize),
        };
        let words = FragmentWords {
            program_words: extra.program_words as usize,
            blend_color: extra
                .blend_color
                .map(|w| info.gl_uniform_base as usize + w as usize),
            texture_info: TexWords::new(extra.texture_info.clone(), info.gl_uniform_base),
            ubo_sizes: extra
                .ubo_sizes
                .map(|w| info.gl_uniform_base as usize + w as usize),
        };
        Ok((Arc::new(p), info, words))
    })();
    cache
        .fragment
        .push(((key.clone(), blend.clone()), r.clone()));
    r
}

/// Inline uniform words `base..info.uniform_words` of `stage`: the first `program_words` from
/// its constant buffer 0 (all of them when `None`), zeros past them for the driver's own words.
unsafe fn inline_uniforms(
    ctx: &mut Context,
    stage: usize,
    info: &StageInfo,
    program_words: Option<usize>,
    args: &mut Vec<u32>,
) -> Result<(), String> {
    let base = info.gl_uniform_base as usize;
    let want = info.uniform_words as usize;
    args.resize(base.max(args.len()), 0);
    if want <= base {
        return Ok(());
    }
    let cb = &ctx.state.constant_buffers[stage][0];
    let n = want - base;
    let mut words = vec![0u32; n];
    let from_cb = program_words.unwrap_or(n).min(n);
    let bytes = (from_cb * 4).min(cb.buffer_size as usize);
    if from_cb == 0 {
        // Only the driver's words: no constant buffer needed.
    } else if !cb.user_buffer.is_null() {
        std::ptr::copy_nonoverlapping(
            (cb.user_buffer as *const u8).add(cb.buffer_offset as usize),
            words.as_mut_ptr() as *mut u8,
            bytes,
        );
    } else if !cb.buffer.is_null() {
        let r = Resource::get(cb.buffer);
        let src = r.bo().bytes();
        let at = cb.buffer_offset as usize;
        std::ptr::copy_nonoverlapping(src[at..].as_ptr(), words.as_mut_ptr() as *mut u8, bytes);
        ctx.render.use_resource(cb.buffer, false);
    } else {
        return Err("the program reads uniforms but no constant buffer is bound".into());
    }
    args.extend(words);
    Ok(())
}

/// Writes `words` into the root record `args` from word `at` on (growing it as needed).
fn put_words(args: &mut Vec<u32>, at: usize, words: &[u32]) {
    if args.len() < at + words.len() {
        args.resize(at + words.len(), 0);
    }
    args[at..at + words.len()].copy_from_slice(words);
}

/// The vertex-buffer bindings' addresses and the robust fetch's limit word of each attribute
/// (`VertexKey::fetch_limits`): the last word index, from its binding's address, at which the
/// attribute's element still lies inside the bound buffer (from the binding's offset to the
/// buffer's end). An out-of-range vertex or instance then reads words of its own buffer
/// (GLES robust buffer access: values from within the buffer). A binding whose buffer cannot
/// hold one element of one of its attributes is pointed at 16 zero bytes of the batch instead,
/// with limit 0 for its attributes: they read zeros (the rule's other allowed result; an
/// attribute of that binding that would fit reads zeros too).
///
/// # Safety
/// The bound vertex buffers must be live.
unsafe fn fetch_bounds(
    ctx: &mut Context,
    screen: &Screen,
    key: &VertexKey,
    bindings: u8,
) -> Result<(Vec<u64>, Vec<u32>), String> {
    let mut addresses = Vec::new();
    let mut available = Vec::new();
    for b in 0..bindings as usize {
        let vb = ctx.state.vertex_buffers[b];
        // A binding below the highest one that no attribute reads (u_vbuf puts translated
        // vertices in a free slot, leaving slot 0 unbound, when it unrolls a draw's indices):
        // its address word is never read.
        let read = key.attribs.iter().any(|a| a.buffer as usize == b);
        let (va, bytes) = if !read {
            (0, 0)
        } else if vb.is_user_buffer {
            return Err("client-memory vertex arrays (the state tracker uploads them)".into());
        } else if vb.buffer.resource.is_null() {
            return Err(format!("vertex buffer {b} is not bound"));
        } else {
            ctx.render.use_resource(vb.buffer.resource, false);
            let size = (*vb.buffer.resource).width0 as u64;
            (
                Resource::get(vb.buffer.resource).bo().va + vb.buffer_offset as u64,
                size.saturating_sub(vb.buffer_offset as u64),
            )
        };
        addresses.push(va);
        // Words the buffer reaches into: a 6-byte element ending at the buffer's last byte
        // is inside it though its second word is not whole (the BO extends past the buffer
        // in whole words; dEQP draw.random.117: 22 bytes, stride 16, two vertices).
        available.push(bytes.div_ceil(4));
    }
    let fits = |a: &VertexAttrib| available[a.buffer as usize] >= a.format.words() as u64;
    let mut sink = None;
    for a in key.attribs.iter().filter(|a| !fits(a)) {
        let va = match sink {
            Some(va) => va,
            None => {
                let r = &mut ctx.render;
                let mut w = crate::batch::Writer {
                    dev: &screen.bo,
                    mem: r.mem.as_mut().ok_or("no open batch")?,
                };
                let va = agx16_draw::GpuWriter::upload(
                    &mut w,
                    agx16_draw::Heap::General,
                    &[0u8; 16],
                    16,
                )
                .map_err(|e| e.to_string())?;
                *sink.insert(va)
            }
        };
        addresses[a.buffer as usize] = va;
    }
    let limits = key
        .attribs
        .iter()
        .map(|a| {
            if sink.is_some() && addresses[a.buffer as usize] == sink.unwrap_or(0) {
                0
            } else {
                let last = available[a.buffer as usize] - a.format.words() as u64;
                last.min(u32::MAX as u64) as u32
            }
        })
        .collect();
    Ok((addresses, limits))
}

/// The texture-information words a variant reads this draw (empty when none).
///
/// # Safety
/// The bound sampler views must be live.
unsafe fn stage_texture_words(
    ctx: &Context,
    stage: sys::pipe_shader_type,
    t: &Option<TexWords>,
) -> Vec<u32> {
    match t {
        Some(TexWords::Inline(_, want) | TexWords::Block(_, want)) => {
            texture_info(ctx, stage, want)
        }
        None => Vec::new(),
    }
}

/// The compiled variants the bound shaders need for this draw, and their root records.
///
/// # Safety
/// The bound CSOs and buffers must be live.
/// `capture`: the draw's transform feedback (so.rs), which selects a capturing vertex variant.
pub unsafe fn for_draw(
    ctx: &mut Context,
    screen: &Screen,
    capture: Option<&crate::so::Plan>,
) -> Result<DrawPrograms, String> {
    let vs = ctx.state.vs.as_ref().ok_or("no vertex shader bound")?;
    let fs = ctx.state.fs.as_ref().ok_or("no fragment shader bound")?;
    let xfb_buffers = capture.map_or(0, |p| p.addresses.len() as u8);
    let vkey = vertex_key(ctx, vs, xfb_buffers)?;
    let (vprog, vinfo, vwords) = vertex_variant(screen, vs, &vkey)?;
    let fkey = fragment_key(ctx, fs, &vinfo)?;
    let bkey = blend_key(ctx)?;
    let (fprog, finfo, fwords) = fragment_variant(screen, fs, &fkey, &bkey)?;

    // Vertex root record: six zero roots, the uniform blocks', the vertex buffers' and the
    // stream-output buffers' addresses, inline uniforms.
    let mut vs_args = vec![0u32; ROOT_WORDS as usize];
    let (vdefault, fdefault) = (vs.default_block, fs.default_block);
    let vtex = stage_texture_words(ctx, sys::PIPE_SHADER_VERTEX, &vwords.texture_info);
    let vblock = TexWords::block(&vwords.texture_info);
    let vsizes = ubo_words(
        ctx,
        screen,
        sys::PIPE_SHADER_VERTEX as usize,
        vkey.ubos + vblock.is_some() as u8,
        vdefault,
        vblock.map(|k| (k, &vtex[..])),
        &mut vs_args,
    )?;
    let bindings = agx16_compiler::abi::vertex_buffers(&vkey);
    let (addresses, limits) = fetch_bounds(ctx, screen, &vkey, bindings)?;
    for va in addresses {
        vs_args.extend([va as u32, (va >> 32) as u32]);
    }
    for va in capture.map_or(&[][..], |p| &p.addresses) {
        vs_args.extend([*va as u32, (va >> 32) as u32]);
    }
    inline_uniforms(
        ctx,
        sys::PIPE_SHADER_VERTEX as usize,
        &vinfo,
        Some(vwords.program_words),
        &mut vs_args,
    )?;
    if let (Some(w), Some(p)) = (vwords.capture, capture) {
        let n = p.words.len();
        if vs_args.len() < w + n {
            vs_args.resize(w + n, 0);
        }
        vs_args[w..w + n].copy_from_slice(&p.words);
    }
    if let Some(w) = vwords.fetch_limits {
        put_words(&mut vs_args, w, &limits);
    }
    if let Some(w) = vwords.ubo_sizes {
        put_words(&mut vs_args, w, &vsizes);
    }
    if let Some(TexWords::Inline(w, _)) = vwords.texture_info {
        if vs_args.len() < w + vtex.len() {
            vs_args.resize(w + vtex.len(), 0);
        }
        vs_args[w..w + vtex.len()].copy_from_slice(&vtex);
    }
    let mut fs_args = vec![0u32; ROOT_WORDS as usize];
    let ftex = stage_texture_words(ctx, sys::PIPE_SHADER_FRAGMENT, &fwords.texture_info);
    let fblock = TexWords::block(&fwords.texture_info);
    let fsizes = ubo_words(
        ctx,
        screen,
        sys::PIPE_SHADER_FRAGMENT as usize,
        fkey.ubos + fblock.is_some() as u8,
        fdefault,
        fblock.map(|k| (k, &ftex[..])),
        &mut fs_args,
    )?;
    inline_uniforms(
        ctx,
        sys::PIPE_SHADER_FRAGMENT as usize,
        &finfo,
        Some(fwords.program_words),
        &mut fs_args,
    )?;
    if let Some(w) = fwords.ubo_sizes {
        put_words(&mut fs_args, w, &fsizes);
    }
    if let Some(w) = fwords.blend_color {
        if fs_args.len() < w + 4 {
            fs_args.resize(w + 4, 0);
        }
        let color = ctx.state.blend_color.color.map(f32::to_bits);
        fs_args[w..w + 4].copy_from_slice(&color);
    }
    if let Some(TexWords::Inline(w, _)) = fwords.texture_info {
        if fs_args.len() < w + ftex.len() {
            fs_args.resize(w + ftex.len(), 0);
        }
        fs_args[w..w + ftex.len()].copy_from_slice(&ftex);
    }
    Ok(DrawPrograms {
        vs: vprog,
        fs: fprog,
        vs_args,
        fs_args,
    })
}

#[cfg(test)]
mod tests {
    //! The blend colour's uniform words, on the compiler's own account of what the program
    //! reads (`StageInfo::uniform_words`): the oracle is nir_lower_blend's formulas — a
    //! constant factor reads the blend colour, SRC_ALPHA / ONE_MINUS_SRC_ALPHA do not.
    use super::*;

    /// A fragment CSO that stores GL uniform words 0..4 (its colour) to target 0.
    unsafe fn fragment_cso() -> ShaderCso {
        fragment_cso_stores(&[0])
    }

    /// A fragment CSO storing GL uniform words 4i..4i+4 to target 0 with dual-source blend
    /// index `dual[i]`, one store per entry.
    unsafe fn fragment_cso_stores(dual: &[u32]) -> ShaderCso {
        sys::glsl_type_singleton_init_or_ref();
        let mut nb = sys::nir_builder_init_simple_shader(
            sys::MESA_SHADER_FRAGMENT,
            crate::shader::nir_options(),
            c"agx16-blend-const-test".as_ptr(),
        );
        let b: *mut sys::nir_builder = &mut nb;
        for (i, &index) in dual.iter().enumerate() {
            let colour = load_uniform_words(b, 4 * i as u32, 4, sys::nir_type_float32);
            let st = sys::nir_intrinsic_instr_create((*b).shader, sys::nir_intrinsic_store_output);
            (*st).num_components = 4;
            let srcs = (*st).src.as_mut_slice(2);
            srcs[0] = sys::nir_src_for_ssa(colour);
            srcs[1] = sys::nir_src_for_ssa(sys::nir_imm_int(b, 0));
            let mut sem = sys::nir_io_semantics::default();
            sem.set_location(sys::FRAG_RESULT_DATA0);
            sem.set_num_slots(1);
            sem.set_dual_source_blend_index(index);
            sys::nir_intrinsic_set_io_semantics(st, sem);
            sys::nir_intrinsic_set_base(st, 0);
            sys::nir_intrinsic_set_component(st, 0);
            sys::nir_intrinsic_set_write_mask(st, 0xf);
            sys::nir_intrinsic_set_src_type(st, sys::nir_type_float32);
            sys::nir_builder_instr_insert(b, &mut (*st).instr);
        }
        (*(*b).shader).info.outputs_written |= 1 << sys::FRAG_RESULT_DATA0;
        ShaderCso {
            nir: (*b).shader,
            variants: Default::default(),
            so: None,
            ubos: Ok(0),
            default_block: None,
        }
    }

    fn blend(src: u32, dst: u32) -> BlendKey {
        let ch = [sys::PIPE_BLEND_ADD, src, dst];
        BlendKey {
            rts: vec![RtBlend {
                rgb: ch,
                alpha: ch,
                colormask: 0xf,
                format: sys::PIPE_FORMAT_R8G8B8A8_UNORM,
            }],
            logicop: None,
        }
    }

    #[test]
    fn constant_blend_factors_read_four_uniform_words_past_the_programs_own() {
        let key = GraphicsKey::Fragment(FragmentKey {
            varyings: vec![],
            frag_coord_z: false,
            render_targets: vec![RenderTarget::Rgba8Unorm],
            ubos: 0,
            ..Default::default()
        });
        // SAFETY: a shader built and freed here; compile works on a clone.
        unsafe {
            let cso = fragment_cso();
            let words = |b: &BlendKey| {
                let (_, info, extra) = compile(&cso, &key, Some(b), true).unwrap();
                (
                    extra.program_words,
                    extra.blend_color,
                    info.uniform_words - info.gl_uniform_base,
                )
            };
            // CONSTANT_COLOR / ONE_MINUS_CONSTANT_ALPHA: the colour is words 4..8, and the
            // program reads them (all four channels feed an RGBA8 target).
            let c = blend(
                sys::PIPE_BLENDFACTOR_CONST_COLOR,
                sys::PIPE_BLENDFACTOR_INV_CONST_ALPHA,
            );
            assert_eq!(words(&c), (4, Some(4), 8));
            // CONSTANT_ALPHA alone still gets the colour words (the alpha is word 7).
            let a = blend(
                sys::PIPE_BLENDFACTOR_CONST_ALPHA,
                sys::PIPE_BLENDFACTOR_ZERO,
            );
            assert_eq!(words(&a), (4, Some(4), 8));
            // No constant factor: nir_lower_blend's blend-colour load is dead, no words.
            let s = blend(
                sys::PIPE_BLENDFACTOR_SRC_ALPHA,
                sys::PIPE_BLENDFACTOR_INV_SRC_ALPHA,
            );
            assert_eq!(words(&s), (4, None, 4));
            sys::ralloc_free(cso.nir as *mut std::ffi::c_void);
        }
    }

    #[test]
    fn the_index_1_colour_is_read_only_by_dual_source_factors() {
        let key = GraphicsKey::Fragment(FragmentKey {
            varyings: vec![],
            frag_coord_z: false,
            render_targets: vec![RenderTarget::Rgba8Unorm],
            ubos: 0,
            ..Default::default()
        });
        // SAFETY: a shader built and freed here; compile works on a clone.
        unsafe {
            // Colour words 0..4, index-1 colour words 4..8.
            let cso = fragment_cso_stores(&[0, 1]);
            let words = |b: Option<&BlendKey>| {
                let (_, info, _) = compile(&cso, &key, b, true).unwrap();
                info.uniform_words - info.gl_uniform_base
            };
            // SRC1_COLOR / ONE_MINUS_SRC1_ALPHA: nir_lower_blend's factors read the index-1
            // colour (and its store is gone: one target, one RGBA8 store).
            let d = blend(
                sys::PIPE_BLENDFACTOR_SRC1_COLOR,
                sys::PIPE_BLENDFACTOR_INV_SRC1_ALPHA,
            );
            assert_eq!(words(Some(&d)), 8);
            // Blending without src1 factors, or none at all: GL ignores the index-1 colour,
            // so its words are dead.
            let s = blend(
                sys::PIPE_BLENDFACTOR_SRC_ALPHA,
                sys::PIPE_BLENDFACTOR_INV_SRC_ALPHA,
            );
            assert_eq!(words(Some(&s)), 4);
            assert_eq!(words(None), 4);
            sys::ralloc_free(cso.nir as *mut std::ffi::c_void);
        }
    }
}

//! The driver-facing graphics ABI: what a compiled vertex or fragment program expects from the
//! Gallium driver (uniform words, vertex buffers, coefficient bindings, tilebuffer layout) and
//! what the compiler reports back (`StageInfo`).
//!
//! Summary (README "Graphics ABI" has the prose version):
//!
//! Vertex program
//! - inputs: the vertex id (index + base vertex; `get_sr` 0xdd, what agx16-sim's render model
//!   supplies); GL vertex attributes are fetched by the program itself from vertex buffers
//!   described by [`VertexKey::attribs`] (buffer slot, byte offset, byte stride, format,
//!   divisor), as 32-bit device loads of the element's words at
//!   `address(slot) + offset + i * stride` (i = vertex id, or instance id / divisor), unpacked
//!   and converted in the program (NIR programs: `nir::vertex_fetch`, Mesa's format helpers);
//!   offsets and strides are multiples of 4 (the driver's `vertex_input_alignment` cap has
//!   Gallium's u_vbuf realign others); GL uniforms.
//! - outputs, in this order (the PPP output list): clip-space position x, y, z, w (slots 0..3),
//!   then the user varyings' scalars in [`StageInfo::varyings`] order, then the point size when
//!   written. [`StageInfo::outputs`] is the count the driver programs (`count_1`/`count_2`,
//!   PPP output count; `output_select.point_size` when [`StageInfo::point_size`]).
//! - `gl_InstanceID`: the instance id (0 .. instances − 1, `get_sr` 0xd8; GL's
//!   gl_InstanceID does not include a base instance); an attribute with divisor d > 0 is
//!   fetched at element `instance id / d`.
//!
//! Fragment program
//! - inputs: coefficient registers (CF slots) numbered as GravityLinux/mesa
//!   `apple9_build_cf_bindings` numbers them (M4 scenes; sim/GFX.md "Coefficient registers"):
//!   slot 0 = 1/W, slot 1 = Z when [`FragmentKey::frag_coord_z`], then one slot per user scalar
//!   in the order of [`FragmentKey::varyings`] (the vertex program's [`StageInfo::varyings`]).
//!   Rendering is single-sampled: every input is iterated at the pixel centre, `centroid`
//!   ones included (GL's rule without multisampling); per-sample and offset iteration is
//!   refused. [`StageInfo::coefficients`] gives the interpolation of every slot the program reads; the
//!   driver writes it into the CF binding (G16's `iter` has no perspective bit: the binding
//!   carries the mode).
//! - outputs: raw 32-bit tilebuffer words. Render target k starts at the word after the
//!   words of targets 0..k ([`RenderTarget::words`]); an RGBA8 UNORM target is one word that
//!   the program packs itself (`round(clamp(c, 0, 1) * 255)` per channel, R in bits 0..7), the
//!   layout of GL's `packUnorm4x8`. [`StageInfo::tile_words`] is the number of words written.
//!   `tile_store` `rt` counts 32-bit words (sim/GFX.md); the driver's sample size must hold
//!   every word (the model refuses words past the sample).
//!
//! Uniform words: sim/GFX.md "Render-stage uniform ABI" (the launcher's argument transfer
//! makes argument word w uniform register w; a `device_load` with base slot q reads its 64-bit
//! base address from words 2q, 2q+1; GravityLinux/mesa README.apple9-launchers.md, T8132):
//! - qwords 0..5 (words 0..11, [`ROOT_WORDS`]): texture, sampler, buffer tables, reserved; the
//!   compiler reads none of them;
//! - qwords 6..6+B−1: the stage's buffers, B = [`StageInfo::buffers`]: first the UBOs by GL
//!   index ([`GraphicsKey`] `ubos`; UBO k is device base slot 6 + k, [`ubo_slot`]), then in the
//!   vertex stage the vertex-buffer bindings (binding b is base slot 6 + ubos + b,
//!   [`vertex_buffer_slot`]), then the stream-output buffers ([`VertexKey::xfb_buffers`],
//!   [`xfb_slot`]); each holds the 64-bit address of the binding's first byte;
//! - words 12 + 2B ..: the inline uniform words ([`StageInfo::gl_uniform_base`]); NIR
//!   `load_uniform` base + offset counted in 32-bit words w reads uniform
//!   `gl_uniform_base + w`; `load_ubo` of block k at byte offset o is a device load of element
//!   o/4 from UBO k. [`StageInfo::uniform_words`] is the number of words the program reads
//!   (at most 64: the `arg_store` destination has 6 bits).

use crate::error::CompileError;
use crate::ir::{Builder, Function, Interp, Op, Operand, Src, Stage, SysVal, TexKind, Type, Value};
use crate::pipeline::{compile_g16, Compiled, Options};

/// How the components of a vertex attribute are stored and what the shader reads from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AttribType {
    /// IEEE floats (16- or 32-bit), read as f32.
    Float,
    /// Unsigned normalised integers, read as `c / (2^bits − 1)`.
    Unorm,
    /// Signed normalised integers, read as `max(c / (2^(bits−1) − 1), −1)` (GLES 3.0 §2.1.6.1).
    Snorm,
    /// Unsigned integers converted to float (GL's non-normalised integer data for a float input).
    Uscaled,
    /// Signed integers converted to float.
    Sscaled,
    /// Unsigned integers passed as integers (glVertexAttribIPointer).
    Uint,
    /// Signed integers, sign-extended, passed as integers.
    Sint,
    /// Signed 16.16 fixed point (GL_FIXED, 32-bit components), read as `c / 65536`.
    Fixed,
}

/// Format of one vertex attribute in its buffer: `comps` components of `bits[k]` bits each,
/// packed from bit 0 of the element's first little-endian 32-bit word upwards (8-bit component
/// k is byte k; a component never straddles a word). Plain arrays have one size for every
/// component (8, 16 or 32 bits); the packed 2_10_10_10_REV formats are `[10, 10, 10, 2]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AttribFormat {
    pub ty: AttribType,
    pub comps: u8,
    pub bits: [u8; 4],
    /// GL_BGRA order (4 components): the shader's x is stored component 2 and its z component
    /// 0 (`B10G10R10A2_*`, what glVertexAttribPointer with size GL_BGRA selects).
    pub bgra: bool,
}

impl AttribFormat {
    /// `comps` components of one size.
    pub const fn plain(ty: AttribType, size: u8, comps: u8) -> AttribFormat {
        AttribFormat {
            ty,
            comps,
            bits: [size; 4],
            bgra: false,
        }
    }
    /// `comps` (1..4) little-endian f32.
    pub const fn f32(comps: u8) -> AttribFormat {
        AttribFormat::plain(AttribType::Float, 32, comps)
    }
    /// `comps` 32-bit integers passed through.
    pub const fn i32(comps: u8) -> AttribFormat {
        AttribFormat::plain(AttribType::Uint, 32, comps)
    }
    /// `comps` normalised unsigned bytes (R8G8B8A8_UNORM and narrower).
    pub const fn unorm8(comps: u8) -> AttribFormat {
        AttribFormat::plain(AttribType::Unorm, 8, comps)
    }
    /// The packed 2_10_10_10_REV layout (x in bits 0..9, y 10..19, z 20..29, w 30..31).
    pub const fn packed_2_10_10_10(ty: AttribType) -> AttribFormat {
        AttribFormat {
            ty,
            comps: 4,
            bits: [10, 10, 10, 2],
            bgra: false,
        }
    }
    /// The same stored layout read in GL_BGRA order.
    pub const fn bgra(self) -> AttribFormat {
        AttribFormat { bgra: true, ..self }
    }
    pub fn comps(self) -> u8 {
        self.comps
    }
    /// The shader reads integers (the missing w is the integer 1, not 1.0).
    pub fn pure_integer(self) -> bool {
        matches!(self.ty, AttribType::Uint | AttribType::Sint)
    }
    /// Bytes one element occupies.
    pub fn bytes(self) -> u32 {
        self.bits[..self.comps as usize]
            .iter()
            .map(|&b| b as u32)
            .sum::<u32>()
            / 8
    }
    /// 32-bit words the fetch loads for one element.
    pub fn words(self) -> u32 {
        self.bytes().div_ceil(4)
    }
    /// Whether the vertex fetch can read this format, or why not.
    pub fn check(self) -> Result<(), String> {
        let n = self.comps as usize;
        let bits = &self.bits[..n.min(4)];
        let ok = (1..=4).contains(&n)
            && (bits
                .iter()
                .all(|&b| b == bits[0] && matches!(b, 8 | 16 | 32))
                || (bits == [10, 10, 10, 2] && self.ty != AttribType::Float));
        if !ok {
            return Err(format!(
                "vertex attribute format {self:?}: 1..4 components of 8, 16 or 32 bits, or \
                 2_10_10_10"
            ));
        }
        if self.bgra && n != 4 {
            return Err(format!(
                "vertex attribute format {self:?}: GL_BGRA order needs 4 components"
            ));
        }
        match (self.ty, bits[0]) {
            (AttribType::Float, 8) => {
                Err(format!("vertex attribute format {self:?}: 8-bit floats"))
            }
            (AttribType::Fixed, b) if b != 32 => Err(format!(
                "vertex attribute format {self:?}: fixed point is 32-bit (GL_FIXED)"
            )),
            _ => Ok(()),
        }
    }
    fn is_float(self) -> bool {
        !self.pure_integer()
    }
}

/// One vertex attribute (a GL vertex-array binding resolved by the driver).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexAttrib {
    /// The vertex shader input it feeds (NIR io location, `VERT_ATTRIB_GENERIC0 + n` for
    /// generic attribute n).
    pub location: u8,
    /// Vertex-buffer binding: device base slot [`vertex_buffer_slot`], after the UBOs.
    pub buffer: u8,
    /// Byte offset of the first element (a multiple of 4).
    pub offset: u32,
    /// Byte stride between elements (a multiple of 4; 0 = the same element for every vertex).
    pub stride: u32,
    pub format: AttribFormat,
    /// 0: one element per vertex (indexed by the vertex id); d > 0: one element per d
    /// instances (indexed by `instance_id / d`, GL's instanced arrays without a base instance).
    pub divisor: u32,
}

/// A user varying scalar: NIR io location (`VARYING_SLOT_VAR0 + n`, …) and component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VaryingSlot {
    pub location: u8,
    pub component: u8,
}

/// Format of one render target in the tilebuffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenderTarget {
    /// One word: R in bits 0..7, G 8..15, B 16..23, A 24..31, each `round(clamp(c,0,1)*255)`.
    Rgba8Unorm,
    /// One word: B in bits 0..7, G, R, A (B8G8R8A8_UNORM, window-system surfaces).
    Bgra8Unorm,
    /// One word: the low 8 bits of each integer component, R in bits 0..7
    /// (R8G8B8A8_UINT / _SINT).
    Rgba8Int,
    /// One word: the raw bits of the colour's first component (R32_FLOAT/UINT/SINT).
    R32,
    /// `n` (1..=4) words holding the pixel's memory bytes, which the program's colour output
    /// already is: component k of a `store_output` is word k, raw (the driver packs each
    /// format with Mesa's `nir_format_pack_rgba` before compiling and unpacks `load_output`
    /// with `nir_format_unpack_rgba`).
    Words(u8),
    /// No attachment (a GL_NONE draw buffer between bound ones): no tile words; stores to it
    /// are dropped, as GL drops writes to a draw buffer of NONE.
    Unbound,
}

impl RenderTarget {
    /// 32-bit tilebuffer words per sample this target occupies.
    pub fn words(self) -> u8 {
        match self {
            RenderTarget::Words(n) => n,
            RenderTarget::Unbound => 0,
            _ => 1,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VertexKey {
    /// The attribute fetched for each vertex shader input the program reads.
    pub attribs: Vec<VertexAttrib>,
    /// Uniform buffers bound to the stage (their qwords precede the vertex buffers').
    pub ubos: u8,
    /// GL clip-space depth (z in [-w, w], `clip_halfz` off): the program stores
    /// `(z + w) / 2` as position z, the [0, w] range the M4 clips to (sim/GFX.md "Clipping").
    pub gl_clip_z: bool,
    /// Stream-output (transform feedback) buffers the program writes: NIR `store_ssbo` to
    /// buffer j is a device store through base slot [`xfb_slot`] (after the vertex buffers).
    pub xfb_buffers: u8,
    /// Robust vertex fetch (GLES robust buffer access): the GL uniform word of the first of
    /// one word per attribute, in `attribs` order, holding the last 32-bit word index (from
    /// the binding's address) the attribute's fetch may start at. The fetch clamps its word
    /// index to it (`umin`), so an out-of-range vertex or instance reads words of its own
    /// buffer instead of faulting or reading another buffer. `None`: no clamp.
    pub fetch_limits: Option<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FragmentKey {
    /// The linked varying order (the vertex program's `StageInfo::varyings`).
    pub varyings: Vec<VaryingSlot>,
    /// CF slot 1 is Z (PPP output-select `frag_coord_z`).
    pub frag_coord_z: bool,
    /// Render targets by GL draw buffer.
    pub render_targets: Vec<RenderTarget>,
    /// Uniform buffers bound to the stage.
    pub ubos: u8,
    /// Samples of the render targets (0 or 1: single-sampled, colour stores write sample 0;
    /// 2 or 4: colour stores write the covered samples through `tile_store_mask` with the
    /// coverage word's low bits, as the T8132 compiler's multisample stores do, GravityLinux/
    /// mesa README.apple9-es3.md).
    pub samples: u8,
    /// Samples GL's sample mask (glSampleMaski / glSampleCoverage through Mesa's
    /// `set_sample_mask`) removes: the program kills them from its coverage (0: none).
    pub kill_samples: u8,
    /// GL_SAMPLE_ALPHA_TO_COVERAGE: render target 0's alpha keeps floor(alpha x samples)
    /// samples (Mesa src/asahi/lib/agx_nir_lower_alpha.c: `(1 << f2u32(alpha * n)) - 1`
    /// as a discard mask; the T8132 compiler also demotes the samples, agx_compile_apple9.c).
    pub alpha_to_coverage: bool,
    /// Multisampled targets: GL colour-mask channels each render target keeps (bits 4k..4k+3
    /// for target k, R..A; 0: all written). The program merges them per sample: it reads each
    /// sample's word (`tile_read_mask`, one sample) and stores the merge to that sample if
    /// covered, the T8132 compiler's per-sample loop for destination reads (agx_compile_apple9.c;
    /// GravityLinux/mesa README: multisampled blending loops over samples with a per-sample
    /// mask). RGBA8/BGRA8 targets only.
    pub keep_channels: u32,
}

/// The first of the two coefficient registers gl_PointCoord (s, t) is iterated from: after 1/W,
/// Z when read and the key's varyings. The driver binds them with coefficient source
/// PointCoord (agx16-cmdstream `descriptors::CoefficientSource`).
pub fn point_coord_coefficient(key: &FragmentKey) -> u8 {
    (1 + key.frag_coord_z as usize + key.varyings.len()) as u8
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphicsKey {
    Vertex(VertexKey),
    Fragment(FragmentKey),
}

/// What the driver needs to know about a compiled graphics program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageInfo {
    /// Vertex: output scalars (position 4 + user scalars + point size).
    pub outputs: u8,
    /// Vertex: user varying scalars in output order (slot 4 + k holds `varyings[k]`); filled
    /// by the NIR path (IR programs name slots directly).
    pub varyings: Vec<VaryingSlot>,
    /// Vertex: the last output is the point size.
    pub point_size: bool,
    /// Buffer qwords after the root record (UBOs, then vertex buffers): B in sim/GFX.md.
    pub buffers: u8,
    /// Publication registers the program writes (the launcher frame's publication extent).
    pub publications: u32,
    /// First inline uniform word (12 + 2B).
    pub gl_uniform_base: u16,
    /// Uniform words the program reads (addresses and GL uniforms).
    pub uniform_words: u16,
    /// Fragment: interpolation of each coefficient register the program reads (index = CF
    /// slot; `None` = not read).
    pub coefficients: Vec<Option<Interp>>,
    /// Fragment: 32-bit tilebuffer words written.
    pub tile_words: u8,
    /// Fragment: the program discards (punch-through pass type).
    pub discards: bool,
}

/// Root-record words at the start of every render stage's uniforms (six qwords).
pub const ROOT_WORDS: u16 = 12;
/// Device base slots the root record occupies.
pub const ROOT_SLOTS: u8 = 6;
/// Argument words a launcher can transfer (6-bit `arg_store` destination).
pub const MAX_UNIFORM_WORDS: u16 = 64;

/// Uniform blocks a stage can read: 12, the OpenGL ES 3.0 minimum per stage
/// (MAX_VERTEX/FRAGMENT_UNIFORM_BLOCKS). Each costs two of the at most 46 argument words a
/// graphics launcher transfers (sim/GFX.md "Render-stage uniform ABI": pending registers
/// r18..r63, GravityLinux/mesa README.apple9-launchers.md, T8132), beside the 12 root words,
/// the vertex buffers and the inline uniforms, so no more than the minimum is offered.
pub const MAX_UBOS: u8 = 12;

/// The device base slot of UBO `k`.
pub fn ubo_slot(k: u8) -> u8 {
    ROOT_SLOTS + k
}

/// The device base slot of vertex-buffer binding `b` of a stage with `ubos` UBOs.
pub fn vertex_buffer_slot(ubos: u8, b: u8) -> u8 {
    ROOT_SLOTS + ubos + b
}

/// Vertex-buffer bindings a vertex program under `key` addresses (highest binding + 1).
pub fn vertex_buffers(key: &VertexKey) -> u8 {
    key.attribs.iter().map(|a| a.buffer + 1).max().unwrap_or(0)
}

/// The device base slot of stream-output buffer `j` of a vertex program under `key`: after its
/// UBOs and vertex buffers.
pub fn xfb_slot(key: &VertexKey, j: u8) -> u8 {
    ROOT_SLOTS + key.ubos + vertex_buffers(key) + j
}

/// Uniform words of device base slot `q`: (low, high) halves of its 64-bit address.
pub fn slot_words(q: u8) -> (u16, u16) {
    (2 * q as u16, 2 * q as u16 + 1)
}

/// First inline uniform word of a stage with `buffers` buffer qwords.
pub fn gl_uniform_base(buffers: u8) -> u16 {
    ROOT_WORDS + 2 * buffers as u16
}

/// `x * k` with adds only (no validated integer multiply or shift-left form): double-and-add
/// from the top bit of the constant.
pub fn mul_const(b: &mut Builder, x: Src, k: u32) -> Src {
    if k == 0 {
        return Src::imm(0);
    }
    let mut acc = x;
    for bit in (0..31 - k.leading_zeros()).rev() {
        acc = Src::val(b.alu(Op::IAdd, Type::I32, [acc, acc]));
        if k >> bit & 1 == 1 {
            acc = Src::val(b.alu(Op::IAdd, Type::I32, [acc, x]));
        }
    }
    acc
}

/// The four components a vertex shader input sees for `a` (GL fills missing ones with
/// 0, 0, 0, 1): device loads at element `vertex_id * stride/4 + offset/4` of vertex-buffer
/// binding `a.buffer` (device base slot [`vertex_buffer_slot`] after `ubos` UBOs).
/// `vertex_id` is the program's vertex id value.
pub fn fetch_attribute(
    b: &mut Builder,
    a: &VertexAttrib,
    vertex_id: Value,
    ubos: u8,
) -> Result<[Src; 4], CompileError> {
    let n = a.format.comps();
    let f = a.format;
    let unorm8 = f == AttribFormat::unorm8(n);
    let words32 = f.bits[0] == 32
        && !f.bgra
        && f.check().is_ok()
        && matches!(
            f.ty,
            AttribType::Float | AttribType::Uint | AttribType::Sint
        );
    if !(unorm8 || words32)
        || a.divisor != 0
        || !a.offset.is_multiple_of(4)
        || !a.stride.is_multiple_of(4)
    {
        return Err(CompileError::Unsupported(format!(
            "vertex attribute {a:?} in an IR program: 32-bit float/integer or unorm8 \
             components, per-vertex, offset and stride multiples of 4 (NIR programs fetch \
             every format: nir::vertex_fetch)"
        )));
    }
    let ty = if a.format.is_float() {
        Type::F32
    } else {
        Type::I32
    };
    let index = mul_const(b, Src::val(vertex_id), a.stride / 4);
    let index = if a.offset == 0 {
        index
    } else {
        Src::val(b.alu(Op::IAdd, Type::I32, [index, Src::imm(a.offset / 4)]))
    };
    if gl_uniform_base(a.buffer.saturating_add(ubos).saturating_add(1)) > MAX_UNIFORM_WORDS {
        return Err(CompileError::Unsupported(format!(
            "vertex buffer binding {} after {ubos} UBOs: past the 64 argument words",
            a.buffer
        )));
    }
    let slot = vertex_buffer_slot(ubos, a.buffer);
    if unorm8 {
        // One word; byte k = (w >> 8k) & 0xff (ushr_imm / ilogic), then u2f and · 1/255.
        let w = b.load_global(slot, index, Type::I32, 1);
        let mut out = [Src::imm(0), Src::imm(0), Src::imm(0), Src::imm_f32(1.0)];
        for (k, o) in out.iter_mut().enumerate().take(n as usize) {
            let shifted = if k == 0 {
                w
            } else {
                b.alu(
                    Op::Shr { signed: false },
                    Type::I32,
                    [Src::val(w), Src::imm(8 * k as u32)],
                )
            };
            let byte = if k == 3 {
                shifted
            } else {
                b.alu(Op::And, Type::I32, [Src::val(shifted), Src::imm(0xff)])
            };
            let f = b.alu(Op::I2F { signed: false }, Type::F32, [Src::val(byte)]);
            *o = Src::val(b.fmul(f, Src::imm_f32(1.0 / 255.0)));
        }
        return Ok(out);
    }
    let v = b.load_global(slot, index, ty, n);
    let one = if ty == Type::F32 { 1.0f32.to_bits() } else { 1 };
    Ok(std::array::from_fn(|k| {
        if k < n as usize {
            if n == 1 {
                Src::val(v)
            } else {
                Src::comp(v, k as u8)
            }
        } else if k == 3 {
            Src::imm(one)
        } else {
            Src::imm(0)
        }
    }))
}

/// GL `packUnorm4x8(c)`: `round(clamp(c_k, 0, 1) * 255)` in byte k (R in bits 0..7), the
/// layout an RGBA8 UNORM tilebuffer word holds. Selected as two `pack_unorm8x2` (isel/gfx.rs).
pub fn pack_unorm_4x8(b: &mut Builder, c: [Src; 4]) -> Value {
    b.alu(Op::PackUnorm4x8, Type::I32, c)
}

/// GL `unpackUnorm4x8(w)`: byte k of `w` (R in bits 0..7) as `byte / 255` (shift, and,
/// `u2f`, multiply by 1/255: one rounding, so `pack_unorm_4x8` gives the bytes back).
pub fn unpack_unorm_4x8(b: &mut Builder, w: Src) -> [Src; 4] {
    std::array::from_fn(|k| {
        let shifted = if k == 0 {
            w
        } else {
            Src::val(b.alu(
                Op::Shr { signed: false },
                Type::I32,
                [w, Src::imm(8 * k as u32)],
            ))
        };
        let byte = if k == 3 {
            shifted
        } else {
            Src::val(b.alu(Op::And, Type::I32, [shifted, Src::imm(0xff)]))
        };
        let f = b.alu(Op::I2F { signed: false }, Type::F32, [byte]);
        Src::val(b.fmul(f, Src::imm_f32(1.0 / 255.0)))
    })
}

/// The low bytes of four integers in one word, component k in byte k (`ushr`-free: and,
/// shift left, or).
pub fn pack_int_4x8(b: &mut Builder, c: [Src; 4]) -> Value {
    let mut word: Option<Value> = None;
    for (k, &x) in c.iter().enumerate() {
        let byte = if k == 3 {
            x
        } else {
            Src::val(b.alu(Op::And, Type::I32, [x, Src::imm(0xff)]))
        };
        let part = if k == 0 {
            byte
        } else {
            Src::val(b.alu(Op::Shl, Type::I32, [byte, Src::imm(8 * k as u32)]))
        };
        word = Some(match word {
            None => b.copy(Type::I32, part),
            Some(w) => b.alu(Op::Or, Type::I32, [Src::val(w), part]),
        });
    }
    word.expect("four components")
}

/// The stage information an IR graphics program implies (outputs, coefficient use, uniform
/// words, tile words, publications); `varyings` is left empty (IR programs name output slots
/// directly). `gl_uniform_base` is reported as given.
pub fn stage_info(f: &Function, gl_uniform_base: u16) -> Result<StageInfo, CompileError> {
    stage_info_with(f, gl_uniform_base, None)
}

/// [`stage_info`] with the coordinate tuples the compiled texture ops use (`None`: as many
/// as could be in use at once, one per op up to `isel::texture::TUPLES`).
fn stage_info_with(
    f: &Function,
    gl_uniform_base: u16,
    tuples: Option<u8>,
) -> Result<StageInfo, CompileError> {
    let mut textures = 0usize;
    let mut info = StageInfo {
        gl_uniform_base,
        ..Default::default()
    };
    let mut stored = Vec::new();
    let mut sample_masks = 0u32;
    let mut uniforms = 0u16;
    let mut buffers = 0u8;
    for i in f.blocks.iter().flat_map(|b| &b.instrs) {
        for s in &i.srcs {
            if let Operand::Uniform(u) = s.op {
                uniforms = uniforms.max(u + 1);
            }
        }
        let wrong = |what: &str| {
            Err(CompileError::InvalidIr(format!(
                "{what} in a {:?} program",
                f.stage
            )))
        };
        match i.op {
            Op::LoadGlobal { binding } | Op::StoreGlobal { binding } => {
                buffers = buffers.max(binding + 1);
            }
            Op::StoreOutput { slot } => {
                if f.stage != Stage::Vertex {
                    return wrong("store_output");
                }
                if !stored.contains(&slot) {
                    stored.push(slot);
                }
                // isel/gfx.rs: one publication register per output store.
                info.publications += 1;
            }
            Op::Texture { kind, .. } => {
                if f.stage == Stage::Vertex && matches!(kind, TexKind::Sample | TexKind::Bias) {
                    return Err(CompileError::Unsupported(
                        "implicit-LOD texture ops in a vertex program: a vertex batch has no \
                         2x2 quads, so no derivatives (nir::texture::lower makes GLSL's \
                         texture() there an explicit LOD 0)"
                            .into(),
                    ));
                }
                if !matches!(f.stage, Stage::Fragment | Stage::Vertex) {
                    return Err(CompileError::Unsupported(
                        "texture ops outside vertex and fragment shaders: agx16-sim models \
                         them only in render bodies"
                            .into(),
                    ));
                }
                textures += 1;
            }
            Op::SysVal(SysVal::VertexId) if f.stage != Stage::Vertex => return wrong("vertex id"),
            Op::SysVal(SysVal::PixelCoord(_)) if f.stage != Stage::Fragment => {
                return wrong("pixel coordinate")
            }
            Op::SysVal(SysVal::InstanceId) if f.stage != Stage::Vertex => {
                return wrong("instance id")
            }
            Op::SysVal(SysVal::BackFacing) if f.stage != Stage::Fragment => return wrong("facing"),
            Op::LoadVarying { cf, interp } => {
                if f.stage != Stage::Fragment {
                    return wrong("load_varying");
                }
                let k = cf as usize;
                if info.coefficients.len() <= k {
                    info.coefficients.resize(k + 1, None);
                }
                match info.coefficients[k] {
                    Some(m) if m != interp => {
                        return Err(CompileError::Unsupported(format!(
                            "coefficient register {cf} read as {m:?} and {interp:?}"
                        )))
                    }
                    _ => info.coefficients[k] = Some(interp),
                }
            }
            Op::StoreTile { word, .. } | Op::LoadTile { word, .. } => {
                if f.stage != Stage::Fragment {
                    return wrong("tile access");
                }
                info.tile_words = info.tile_words.max(word + 1);
            }
            Op::Discard => info.discards = true,
            Op::Coverage if f.stage != Stage::Fragment => return wrong("coverage"),
            // A coverage write kills or tests samples itself: the pass type must run the
            // depth/stencil tests after the program (punch-through), and the write takes a
            // publication of its own (isel/gfx.rs: above the texture tuples, 32 + k).
            Op::SampleMask { .. } => {
                if f.stage != Stage::Fragment {
                    return wrong("sample_mask");
                }
                info.discards = true;
                sample_masks += 1;
            }
            // The depth store tests late too, and takes an even publication pair (isel/gfx.rs).
            Op::DepthStore => {
                if f.stage != Stage::Fragment {
                    return wrong("depth_store");
                }
                info.discards = true;
                sample_masks += 3;
            }
            _ => {}
        }
    }
    if f.stage == Stage::Vertex {
        stored.sort_unstable();
        let n = stored.len() as u8;
        if n < 4 || stored.iter().enumerate().any(|(k, s)| *s as usize != k) {
            return Err(CompileError::InvalidIr(format!(
                "vertex outputs {stored:?}: the position (0..3) and every slot up to the last \
                 must be stored (the hardware has no default for an unstored output)"
            )));
        }
        info.outputs = n;
    }
    // isel/texture.rs: 4-aligned coordinate tuples below the output publications.
    let tuples = tuples.unwrap_or(textures.min(crate::isel::texture::TUPLES as usize) as u8);
    info.publications += 4 * tuples as u32;
    if sample_masks > 0 {
        info.publications = info
            .publications
            .max(crate::isel::SAMPLE_MASK_PUBLICATION + sample_masks);
    }
    info.buffers = buffers.saturating_sub(ROOT_SLOTS);
    info.uniform_words = uniforms.max(2 * buffers as u16);
    if info.uniform_words > MAX_UNIFORM_WORDS {
        return Err(CompileError::Unsupported(format!(
            "{} uniform words: a launcher transfers at most {MAX_UNIFORM_WORDS}",
            info.uniform_words
        )));
    }
    Ok(info)
}

/// Compile an IR graphics program (vertex or fragment) for G16 and describe it.
/// `gl_uniform_base` is where the program's GL uniform operands start (for the report only:
/// IR operands already name uniform registers; see [`gl_uniform_base`]).
pub fn compile_ir_graphics(
    f: &Function,
    gl_uniform_base: u16,
    opts: Options,
) -> Result<(Compiled, StageInfo), CompileError> {
    if f.stage == Stage::Compute {
        return Err(CompileError::InvalidIr(
            "compile_ir_graphics takes a vertex or fragment program".into(),
        ));
    }
    let mut info = stage_info(f, gl_uniform_base)?;
    let c = compile_g16(f, opts)?;
    // The frame holds the tuples the texture ops actually use (the scoreboard pass reuses
    // completed ones).
    info.publications =
        stage_info_with(f, gl_uniform_base, Some(c.mir.texture_tuples()))?.publications;
    Ok((c, info))
}

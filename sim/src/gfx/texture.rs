//! The texture unit: what a `tex_sample` returns (fields: `crate::lower::texture`).
//!
//! Established (evidence per fact):
//! - Operands. The sample reads its coordinates from the publication file the export forms
//!   write (the packer's coordinate tuple is two `fmul_export`s of x·1 and y·1; the LOD,
//!   bias and fetch tuples are `logic_export` bit copies at base, base+1 and base+3), and
//!   returns the selected components densely into r[dst].. through its completion slot, as
//!   loads do: the first consumer must name the slot (GravityLinux/mesa agx_apple9_ir.c
//!   TEXTURE_SAMPLE / TEXTURE_COORDS / LOD_PARAMS packers; README.apple9-ir.md "texture
//!   operations use the same six completion tags as memory traffic", EXP-M4-63/66 retags on
//!   T8132). The packer emits no wait between the coordinate exports and the sample, so the
//!   model lets the sample consume pending coordinate exports (inferred from that packer's
//!   passing GLES suites).
//! - Resources. Texture index t and sampler index s are direct indices into the stage's
//!   texture and sampler tables, graphics roots 0 and 1 (argument words 0..1 and 2..3;
//!   README.apple9-launchers.md "Resource ABI", T8132; packer comment: indices isolated with
//!   crossed own-source M4 samples). Table strides are the model's inferred choice: 32 bytes
//!   per texture descriptor (the descriptor size, as the model's PBE image table), 8 bytes
//!   per sampler (the sampler size; agx-re docs/descriptors EXP-O2B measured stride 8 for
//!   Metal's device sampler table).
//! - Descriptors: agx16-cmdstream `Texture` / `Sampler` (agx-re docs/descriptors, M4 + A18
//!   captures; GravityLinux `agx_apple9_pack_sampler`: wrap codes 0 edge, 1 repeat,
//!   2 mirror, 3 border, EXP-M4-08). Image addressing: agx16-cmdstream `ImageLayout` (agx-re
//!   docs/tiling, measured M4), through `texture_layout::layout_for`.
//! - Explicit LOD / bias word: signed Q6 in bits 16..27 (packer `apple9_pack_texture_lod`);
//!   a fetch's level is that field's integer part (README.apple9-ir.md: "an integer mip
//!   level is shifted by 22").
//!
//! Model's choices, GL-conformant but not measured on M4 (a future measurement replaces
//! them): texel centres, the nearest/bilinear rules and the LOD formula are OpenGL ES 3.0's
//! (§3.8.10-11), computed in f32 with exact weights; the implicit LOD uses one scale factor
//! per 2x2 quad from the differences between lanes (0,0)-(1,0) and (0,0)-(0,1) (coarse
//! derivatives, which GL permits: the `derivative` op's values at the quad's (0,0) lane,
//! with the same quad layout and inactive-lane rule, `super::quad`); nearest mip selection rounds λ half-up (GL's
//! `ceil(λ + 1/2) - 1` rounds half down; both within GL's tolerance, this one is GL's);
//! texel formats decode by GL's conversion rules (`super::texel`, which also lists the
//! formats the model samples). Value cases follow `crate::value_rules` (counted, refused only
//! in strict mode): fetches outside the image read zero (robust access), a sampled layer past
//! the last reads the last, non-finite coordinates and a NaN LOD are defined, and linear
//! filtering of an integer format reads GL's incomplete-texture (0, 0, 0, 1). Everything
//! else — uncaptured formats, an integer border texel, a swizzle selecting a component the
//! format lacks, dimensions, compressed or multisampled images, anisotropy, shadow compare,
//! unnormalized coordinates, mirror-clamp and the untested wrap codes — is refused by name.

use super::texel::Format;
use crate::core::LANES;
use crate::error::SimError;
use crate::lower::texture::TexInstr;
use crate::mem::GpuMemory;
use crate::value_rules::{self, Rule};
use agx16_cmdstream::descriptors::{
    BorderColour, Layout, MipFilter, Sampler, Swizzle, Texture, TextureDimension, Wrap,
};
use agx16_cmdstream::layout::ImageLayout;
use agx16_cmdstream::texture_layout::layout_for;
use agx16_cmdstream::Record;
use agx16_isa::meaning::TextureAccess;

/// Bytes per texture-table and sampler-table entry: agx16-cmdstream's one definition, shared
/// with the driver that writes the tables (inferred, see there and the module comment).
pub const TEXTURE_STRIDE: u64 = agx16_cmdstream::descriptors::TEXTURE_TABLE_STRIDE as u64;
pub const SAMPLER_STRIDE: u64 = agx16_cmdstream::descriptors::SAMPLER_TABLE_STRIDE as u64;

/// Why a sample could not be performed: a refusal (the caller names the instruction) or a
/// memory fault.
#[derive(Debug)]
pub enum TexError {
    Refused(String),
    Sim(SimError),
}

impl From<SimError> for TexError {
    fn from(e: SimError) -> Self {
        TexError::Sim(e)
    }
}

fn refuse<T>(what: impl Into<String>) -> Result<T, TexError> {
    Err(TexError::Refused(what.into()))
}

/// Applies a value rule to `uses` texels (`crate::value_rules`: counted, or refused in strict
/// mode).
fn rule(r: Rule, uses: u32) -> Result<(), TexError> {
    value_rules::apply(r, uses, None).map_err(TexError::Refused)
}

/// A texel of zeros (robust access: GL's out-of-range fetches; the descriptor's swizzle still
/// supplies its constant ones).
const ZERO_TEXEL: Texel = [Some(0); 4];

/// A decoded, validated texture binding.
struct Image {
    desc: Texture,
    format: Format,
    layout: ImageLayout,
    base: u64,
    cache: std::cell::RefCell<TexelCache>,
}

/// Texels one sample operation already read, by (level, plane, x, y): the filter footprints
/// of neighbouring lanes overlap, and memory does not change during one operation, so a
/// repeated read gives the same words (only reads that succeeded are kept, so a fault still
/// comes from the first read that faults). Direct-mapped over an 8x8 texel window.
struct TexelCache {
    key: [u64; TEXEL_CACHE],
    val: [Texel; TEXEL_CACHE],
}

const TEXEL_CACHE: usize = 64;

impl TexelCache {
    fn new() -> Self {
        TexelCache {
            key: [u64::MAX; TEXEL_CACHE],
            val: [[None; 4]; TEXEL_CACHE],
        }
    }

    /// The key and slot of a texel; `None` where the fields do not fit the key (never
    /// equal to the empty key: levels stay below 255).
    fn slot(level: u32, plane: u32, x: u32, y: u32) -> Option<(u64, usize)> {
        (level < 255 && plane < 1 << 16 && x < 1 << 20 && y < 1 << 20).then(|| {
            let key = (level as u64) << 56 | (plane as u64) << 40 | (y as u64) << 20 | x as u64;
            let at = (x & 7 | (y & 7) << 3) as usize ^ (level as usize * 5 + plane as usize * 3);
            (key, at % TEXEL_CACHE)
        })
    }
}

fn table_address(uniforms: &[u32], root: usize, what: &str) -> Result<u64, TexError> {
    match uniforms.get(2 * root..2 * root + 2) {
        Some(w) if w[0] != 0 || w[1] != 0 => Ok(w[0] as u64 | (w[1] as u64) << 32),
        Some(_) => refuse(format!(
            "the {what} table root (argument qword {root}) is zero"
        )),
        None => refuse(format!(
            "the launcher transferred no {what} table root (argument words {}..{})",
            2 * root,
            2 * root + 1
        )),
    }
}

/// The descriptor dimension an op reads: the 2D forms 2D descriptors, the 2D-array forms
/// 2D-array descriptors, the cube forms cube descriptors (one cube: GravityLinux/mesa samples
/// a GLES cube map's cube view through the cube form, agx_compile_apple9.c), the 3D forms 3D
/// descriptors. Any other pairing is refused: what the M4 does with a mismatched descriptor
/// is not established.
fn expected_dimension(op: &agx16_isa::meaning::TextureOp) -> Option<TextureDimension> {
    match (op.dims, op.array, op.cube) {
        (2, false, false) => Some(TextureDimension::D2),
        (2, true, false) => Some(TextureDimension::D2Array),
        (2, false, true) => Some(TextureDimension::Cube),
        (3, false, false) => Some(TextureDimension::D3),
        _ => None,
    }
}

fn texture(
    mem: &dyn GpuMemory,
    uniforms: &[u32],
    index: u8,
    want: TextureDimension,
) -> Result<Image, TexError> {
    let va = table_address(uniforms, 0, "texture")? + TEXTURE_STRIDE * index as u64;
    let mut b = [0u8; 32];
    mem.read(va, &mut b).map_err(SimError::from)?;
    let d = Texture::unpack(&b)
        .map_err(|e| TexError::Refused(format!("texture descriptor at {va:#x}: {e}")))?;
    let bad = |what: String| TexError::Refused(format!("texture descriptor at {va:#x}: {what}"));
    if !d.fully_known() {
        return Err(bad("bits no source documents are set".into()));
    }
    if d.dimension != want {
        return Err(bad(format!(
            "a {:?} descriptor read by a {want:?} texture operation (only matching pairs are \
             modelled)",
            d.dimension
        )));
    }
    if d.layout != Layout::Gpu {
        return Err(bad(format!(
            "layout {:?}: only value 2 (Metal's twiddled textures in every M4 capture) is \
             established for sampled descriptors",
            d.layout
        )));
    }
    let format = Format::of(&d).map_err(bad)?;
    if d.compressed || d.aux_address != 0 {
        return Err(bad("compressed images are not modelled".into()));
    }
    if d.sparse.0 != 0 {
        return Err(bad("sparse textures are not modelled".into()));
    }
    if d.samples_log2_minus1 != 0
        || (matches!(want, TextureDimension::D2 | TextureDimension::Cube) && d.extent_minus1 != 0)
    {
        return Err(bad(
            "sample count / depth fields set on a single-sample 2D texture or single cube".into(),
        ));
    }
    if d.mipmapped != (d.levels > 1) || d.aux_layout != d.mipmapped {
        return Err(bad(format!(
            "mipmapped bit {} / aux-layout bit {} do not match {} levels (agx-re: both set \
             exactly when mipmapped, without compression)",
            d.mipmapped, d.aux_layout, d.levels
        )));
    }
    for s in [d.swizzle_r, d.swizzle_g, d.swizzle_b, d.swizzle_a] {
        if matches!(s, Swizzle::Unknown(_)) {
            return Err(bad(format!("swizzle code {s:?} is untested")));
        }
    }
    if want == TextureDimension::Cube && d.width != d.height {
        return Err(bad(format!(
            "a {}x{} cube map: cube faces are square",
            d.width, d.height
        )));
    }
    let layout = layout_for(&d).map_err(|e| bad(format!("{e:?}")))?;
    if (layout.levels.len() as u32) < d.levels as u32 {
        return Err(bad(format!(
            "{} levels for a {}x{} image",
            d.levels, d.width, d.height
        )));
    }
    Ok(Image {
        base: d.address,
        desc: d,
        format,
        layout,
        cache: std::cell::RefCell::new(TexelCache::new()),
    })
}

fn sampler(
    mem: &dyn GpuMemory,
    uniforms: &[u32],
    index: u8,
    three_d: bool,
) -> Result<Sampler, TexError> {
    let va = table_address(uniforms, 1, "sampler")? + SAMPLER_STRIDE * index as u64;
    let mut b = [0u8; 8];
    mem.read(va, &mut b).map_err(SimError::from)?;
    let s =
        Sampler::unpack(&b).map_err(|e| TexError::Refused(format!("sampler at {va:#x}: {e}")))?;
    let bad = |what: &str| TexError::Refused(format!("sampler at {va:#x}: {what}"));
    if !s.fully_known() {
        return Err(bad("bits no source documents are set"));
    }
    if s.max_anisotropy_log2 != 0 {
        return Err(bad("anisotropic filtering is not modelled"));
    }
    if s.unnormalized {
        return Err(bad("unnormalized coordinates are not modelled"));
    }
    let wraps = [s.wrap_s, s.wrap_t, s.wrap_r];
    for &w in &wraps[..if three_d { 3 } else { 2 }] {
        if !matches!(
            w,
            Wrap::ClampToEdge | Wrap::Repeat | Wrap::MirroredRepeat | Wrap::ClampToBorder
        ) {
            return Err(bad(&format!("wrap mode {w:?} is not modelled")));
        }
    }
    if matches!(s.mip_filter, MipFilter::Unknown(_)) || matches!(s.border, BorderColour::Unknown(_))
    {
        return Err(bad("mip filter or border code no source names"));
    }
    Ok(s)
}

/// Components R..A of one texel as the sample returns them (`texel::Format::decode`), before
/// the descriptor's swizzle; `None` where the arrangement has no such component.
type Texel = [Option<u32>; 4];

/// Texel (x, y) of plane `plane` (array layer or 3D slice) of `level`, already wrapped.
fn texel(
    mem: &dyn GpuMemory,
    img: &Image,
    level: u32,
    plane: u32,
    x: u32,
    y: u32,
) -> Result<Texel, TexError> {
    let slot = TexelCache::slot(level, plane, x, y);
    if let Some((key, at)) = slot {
        let c = img.cache.borrow();
        if c.key[at] == key {
            return Ok(c.val[at]);
        }
    }
    let va = img.base + img.layout.element_offset(level, plane, x, y, 0);
    let mut b = [0u8; 16];
    mem.read(va, &mut b[..img.format.bytes()])
        .map_err(SimError::from)?;
    let t = img.format.decode_padded(&b);
    if let Some((key, at)) = slot {
        let mut c = img.cache.borrow_mut();
        c.key[at] = key;
        c.val[at] = t;
    }
    Ok(t)
}

/// Wraps an integer texel coordinate into [0, size), or `None` for the border.
fn wrap_index(i: i64, size: i64, w: Wrap) -> Option<i64> {
    // `rem_euclid` by a mask for power-of-two sizes (most textures): the same value without
    // a 64-bit divide per tap and axis
    let rem = |i: i64, n: i64| {
        if n > 0 && n & (n - 1) == 0 {
            i & (n - 1)
        } else {
            i.rem_euclid(n)
        }
    };
    Some(match w {
        Wrap::Repeat => rem(i, size),
        Wrap::MirroredRepeat => {
            let m = rem(i, 2 * size);
            if m < size {
                m
            } else {
                2 * size - 1 - m
            }
        }
        Wrap::ClampToBorder if i < 0 || i >= size => return None,
        _ => i.clamp(0, size - 1),
    })
}

fn border(s: &Sampler) -> Texel {
    match s.border {
        BorderColour::OpaqueBlack => [0.0, 0.0, 0.0, 1.0],
        BorderColour::OpaqueWhite => [1.0; 4],
        _ => [0.0; 4],
    }
    .map(|v: f32| Some(v.to_bits()))
}

/// `Σ w·t` per component in f32 (normalised and float formats); a component missing from
/// any tap stays missing.
fn blend(taps: &[(f32, Texel)]) -> Texel {
    std::array::from_fn(|c| {
        taps.iter()
            .try_fold(0f32, |acc, (w, t)| Some(acc + w * f32::from_bits(t[c]?)))
            .map(f32::to_bits)
    })
}

/// The extent of `level` in texels: width, height and (3D) depth; 1 for the depth of 2D
/// and array images.
fn level_size(img: &Image, level: u32) -> [u32; 3] {
    let p = &img.layout.levels[level as usize].plane;
    let depth = if img.desc.dimension == TextureDimension::D3 {
        ((img.desc.extent_minus1 + 1) >> level).max(1)
    } else {
        1
    };
    [p.width, p.height, depth]
}

/// Where a lane samples: normalized (s, t, r) (r only for 3D) and the array layer (0 for
/// 2D and 3D).
#[derive(Clone, Copy, Debug)]
struct At {
    str: [f32; 3],
    layer: u32,
}

/// GL's filtered lookup in `level` (ES 3.0 §3.8.10-11): nearest or (bi/tri)linear over the
/// image's 2 or 3 dimensions, wrapped per axis, the border for a tap outside a
/// clamp-to-border axis.
fn filter(
    mem: &dyn GpuMemory,
    img: &Image,
    smp: &Sampler,
    level: u32,
    at: At,
    linear: bool,
) -> Result<Texel, TexError> {
    if img.desc.dimension == TextureDimension::Cube {
        return cube::filter(mem, img, level, at, linear);
    }
    let size = level_size(img, level);
    let dims = if img.desc.dimension == TextureDimension::D3 {
        3
    } else {
        2
    };
    let wrap = [smp.wrap_s, smp.wrap_t, smp.wrap_r];
    let b = border(smp);
    let mut base = [0i64; 3];
    let mut weight = [0f32; 3];
    for c in 0..dims {
        let mut u = at.str[c] * size[c] as f32;
        if !u.is_finite() {
            // NaN -> 0 and +-inf -> +-2^24 texels (a multiple of every power-of-two size,
            // clamped to the edge by the clamp modes).
            rule(Rule::NonFiniteCoordinate, 1)?;
            u = if u.is_nan() {
                0.0
            } else {
                16_777_216f32.copysign(u)
            };
        }
        let u = if linear { u - 0.5 } else { u };
        base[c] = u.floor() as i64;
        weight[c] = u - u.floor();
    }
    if linear && img.format.is_integer() {
        return incomplete(img);
    }
    let count = if linear { 1usize << dims } else { 1 };
    // on the stack: this runs per lane and mip level of every sample
    let mut taps = [(0f32, [None; 4]); 8];
    for (tap, slot) in taps.iter_mut().enumerate().take(count) {
        let mut idx = [0u32; 3];
        let mut w = 1.0f32;
        let mut outside = false;
        for c in 0..dims {
            let bit = (tap >> c) & 1;
            if linear {
                w *= if bit == 1 { weight[c] } else { 1.0 - weight[c] };
            }
            match wrap_index(base[c] + bit as i64, size[c] as i64, wrap[c]) {
                Some(i) => idx[c] = i as u32,
                None => outside = true,
            }
        }
        let t = if outside {
            if img.format.is_integer() {
                return refuse(format!(
                    "a border texel of the integer format {:?} {:?}: what the preset border \
                     colours are for integer formats is not established",
                    img.format.channels, img.format.numeric
                ));
            }
            b
        } else {
            let plane = if dims == 3 { idx[2] } else { at.layer };
            texel(mem, img, level, plane, idx[0], idx[1])?
        };
        *slot = (w, t);
    }
    // Nearest returns the texel's words unchanged (raw integers stay integers).
    Ok(if linear {
        blend(&taps[..count])
    } else {
        taps[0].1
    })
}

/// What GL returns for an incomplete texture, (0, 0, 0, 1): linear filtering of an integer
/// format makes a texture incomplete (the M4's answer is not established).
fn incomplete(img: &Image) -> Result<Texel, TexError> {
    rule(Rule::IntegerLinearFilter, 1)?;
    Ok([Some(0), Some(0), Some(0), Some(img.format.one())])
}

/// Signed Q6 in bits 16..27 of a packed LOD word, in levels.
fn q6_lod(word: u32) -> f32 {
    (((word >> 16 & 0xfff) as i32) << 20 >> 20) as f32 / 64.0
}

/// What one lane samples.
#[derive(Clone, Copy, Debug, Default)]
pub struct LaneInput {
    /// The coordinate tuple's publications (x, y, [layer | z], LOD word).
    pub words: [u32; 4],
}

/// The array layer in the low 16 bits of an array op's LOD/level word (GravityLinux/mesa
/// README.apple9-ir.md, T8132; its packer ORs the layer into the packed LOD for the LOD and bias
/// forms too). `None` for a layer past the image (what the M4 returns for it is not
/// established; the compiler clamps, as GL requires, so only a fetch gets there).
fn array_layer(img: &Image, word: u32) -> Option<u32> {
    let layer = word & 0xffff;
    (layer < img.desc.extent_minus1 + 1).then_some(layer)
}

/// Performs `t` for the active lanes (`lanes[k]` = lane k's publications, `None` for a lane
/// that does not execute). `quads`: the publications of every lane, executing or not, when
/// the lanes are whole 2x2 quads in `super::quad`'s layout, so implicit-LOD derivatives
/// exist (an inactive lane contributes what its publications hold, as it does for the
/// `derivative` op). Returns the result registers' values, component k of the selected ones
/// in row k.
pub fn execute(
    mem: &dyn GpuMemory,
    uniforms: &[u32],
    t: &TexInstr,
    lanes: &[Option<LaneInput>],
    quads: Option<&[LaneInput]>,
) -> Result<Vec<[u32; LANES]>, TexError> {
    let Some(want) = expected_dimension(&t.op) else {
        return refuse(format!(
            "the {}D{} texture forms are not modelled",
            t.op.dims,
            if t.op.array { " array" } else { "" }
        ));
    };
    if t.op.shadow {
        return refuse("shadow compare: the compare-function code table is not transcribed");
    }
    if t.op.access == TextureAccess::Gradient {
        return refuse("explicit-gradient samples are not modelled");
    }
    let three_d = want == TextureDimension::D3;
    let is_cube = want == TextureDimension::Cube;
    let img = texture(mem, uniforms, t.texture, want)?;
    let mut rgba: Vec<Texel> = vec![[None; 4]; lanes.len()];
    let mut raw: Vec<Option<[u32; 4]>> = vec![None; lanes.len()];
    if t.op.access == TextureAccess::Fetch {
        for (l, inp) in lanes.iter().enumerate() {
            let Some(inp) = inp else { continue };
            let (x, y, w3) = (inp.words[0] as i32, inp.words[1] as i32, inp.words[3]);
            // Level << 22 in the Q6 field; arrays add the layer in the low 16 bits
            // (README.apple9-ir.md "Native cube coordinates and integer texture reads").
            let low = if t.op.array { 0 } else { w3 & 0xffff };
            if low != 0 || w3 >> 28 != 0 || w3 >> 16 & 0x3f != 0 {
                return refuse(format!(
                    "fetch level word {w3:#x}: only an integer level in bits 22..27 (and an \
                     array layer in bits 0..15) is established"
                ));
            }
            // Out of range (level, texel or layer): zero, as robust access defines it (the
            // M4's answer is not established; GLSL leaves the value undefined).
            let level = w3 >> 22;
            if level >= img.desc.levels as u32 {
                rule(Rule::FetchLevelRange, 1)?;
                rgba[l] = ZERO_TEXEL;
                continue;
            }
            let size = level_size(&img, level);
            let z = if three_d { inp.words[2] as i32 } else { 0 };
            if x < 0
                || y < 0
                || z < 0
                || x as u32 >= size[0]
                || y as u32 >= size[1]
                || z as u32 >= size[2]
            {
                rule(Rule::FetchOutsideLevel, 1)?;
                rgba[l] = ZERO_TEXEL;
                continue;
            }
            let plane = if t.op.array {
                match array_layer(&img, w3) {
                    Some(p) => p,
                    None => {
                        rule(Rule::FetchLayerRange, 1)?;
                        rgba[l] = ZERO_TEXEL;
                        continue;
                    }
                }
            } else {
                z as u32
            };
            rgba[l] = texel(mem, &img, level, plane, x as u32, y as u32)?;
        }
    } else {
        let smp = sampler(mem, uniforms, t.sampler, three_d)?;
        let (min_lod, max_lod) = smp.lod_range();
        let top = img.desc.levels as f32 - 1.0;
        let words_xyz = |i: &LaneInput| {
            let f = |k: usize| f32::from_bits(i.words[k]);
            [f(0), f(1), if three_d { f(2) } else { 0.0 }]
        };
        let coords = |l: usize| lanes.get(l).copied().flatten().map(|i| words_xyz(&i));
        if t.op.access == TextureAccess::Sample && (t.op.array || three_d || is_cube) {
            return refuse("an implicit-LOD sample without a LOD word on arrays or 3D");
        }
        // Implicit LOD: one scale factor per quad, from the differences at the quad's (0,0)
        // lane (`super::quad`; model's choice, see the module comment).
        let implicit_lod = matches!(t.op.access, TextureAccess::Sample | TextureAccess::Bias);
        if implicit_lod && quads.is_none() {
            return refuse(
                "implicit-LOD sample outside whole 2x2 quads (a vertex batch or a background \
                 program): its derivatives are not established",
            );
        }
        let size = level_size(&img, 0).map(|v| v as f32);
        let quad_lambda = |l: usize| -> Result<f32, TexError> {
            let q = quads.unwrap_or_default();
            let at = |dx, dy| q.get(super::quad::lane(l, dx, dy)).copied();
            let (Some(p0), Some(p1), Some(p2)) = (at(0, 0), at(1, 0), at(0, 1)) else {
                return Ok(f32::NAN);
            };
            if is_cube {
                return cube::implicit_lod(&img, [p0, p1, p2], at(1, 1));
            }
            let len = |a: [f32; 3], b: [f32; 3]| {
                (0..3)
                    .map(|c| ((b[c] - a[c]) * size[c]).powi(2))
                    .sum::<f32>()
                    .sqrt()
            };
            let (p0, p1, p2) = (words_xyz(&p0), words_xyz(&p1), words_xyz(&p2));
            Ok(len(p0, p1).max(len(p0, p2)).log2())
        };
        // (quad, its λ) of the last quad computed: lanes come in quad order.
        let mut quad_at: Option<(usize, f32)> = None;
        for l in 0..lanes.len() {
            let (Some(inp), Some(str)) = (lanes[l], coords(l)) else {
                continue;
            };
            let implicit = match quad_at {
                _ if !implicit_lod => None,
                Some((q, i)) if q == l / 4 => Some(i),
                _ => {
                    let i = quad_lambda(l)?;
                    quad_at = Some((l / 4, i));
                    Some(i)
                }
            };
            let word = inp.words[3];
            let layer = if t.op.array {
                match array_layer(&img, word) {
                    Some(p) => p,
                    None => {
                        rule(Rule::SampleLayerRange, 1)?;
                        img.desc.extent_minus1
                    }
                }
            } else if is_cube {
                cube::face(&inp)?
            } else {
                0
            };
            let stray = if t.op.array || is_cube {
                word & 0xf000_0000
            } else {
                word & 0xf000_ffff
            };
            let lambda = match (t.op.access, implicit) {
                (TextureAccess::Lod, _) | (TextureAccess::Bias, _) if stray != 0 => {
                    return refuse(format!(
                        "LOD word {word:#x}: bits outside the Q6 field 16..27 (and an array's \
                         layer in 0..15) are not established"
                    ))
                }
                (TextureAccess::Lod, _) => q6_lod(word),
                (TextureAccess::Bias, Some(i)) => i + q6_lod(word),
                (_, Some(i)) => i,
                _ => unreachable!(),
            };
            let lambda = if lambda.is_nan() {
                rule(Rule::NanLod, 1)?;
                0.0
            } else {
                lambda
            };
            let lambda = lambda.clamp(min_lod, max_lod);
            let minify = lambda > 0.0;
            let linear = if minify {
                smp.min_linear
            } else {
                smp.mag_linear
            };
            let at = At { str, layer };
            rgba[l] = match (smp.mip_filter, minify) {
                (MipFilter::Nearest, true) => {
                    let d = (lambda + 0.5).floor().clamp(0.0, top) as u32;
                    filter(mem, &img, &smp, d, at, linear)?
                }
                (MipFilter::Linear, true) if img.format.is_integer() => incomplete(&img)?,
                (MipFilter::Linear, true) => {
                    let d0 = lambda.floor().min(top);
                    let d1 = (d0 + 1.0).min(top);
                    let f = if d0 >= top { 0.0 } else { lambda - d0 };
                    let a = filter(mem, &img, &smp, d0 as u32, at, linear)?;
                    let b = filter(mem, &img, &smp, d1 as u32, at, linear)?;
                    blend(&[(1.0 - f, a), (f, b)])
                }
                _ => filter(mem, &img, &smp, 0, at, linear)?,
            };
        }
    }
    for (l, c) in rgba.iter().enumerate() {
        if lanes[l].is_none() {
            continue;
        }
        let pick = |s: Swizzle| match s {
            Swizzle::R => c[0],
            Swizzle::G => c[1],
            Swizzle::B => c[2],
            Swizzle::A => c[3],
            Swizzle::One => Some(img.format.one()),
            _ => Some(0),
        };
        let d = &img.desc;
        let mut words = [0u32; 4];
        for (k, s) in [d.swizzle_r, d.swizzle_g, d.swizzle_b, d.swizzle_a]
            .into_iter()
            .enumerate()
        {
            if t.mask >> k & 1 == 0 {
                continue;
            }
            words[k] = pick(s).ok_or_else(|| {
                TexError::Refused(format!(
                    "result component {k} selects {s:?} of {:?}, which has no such component: \
                     what the M4 returns for it is not established",
                    img.format.channels
                ))
            })?;
        }
        raw[l] = Some(words);
    }
    let mut out = Vec::new();
    for comp in 0..4 {
        if t.mask >> comp & 1 == 0 {
            continue;
        }
        let mut row = [0u32; LANES];
        for (l, r) in raw.iter().enumerate() {
            if let Some(r) = r {
                row[l] = r[comp];
            }
        }
        out.push(row);
    }
    Ok(out)
}

mod cube;

/// Coordinate publications a sample read, with the result registers (and the scoreboard's
/// numbers of their publications) that must complete before the publication may be rewritten
/// ("borrowed texture-parameter inputs remain live until completion", GravityLinux/mesa
/// README.apple9-ir.md, whose driver reuses the tuples only after a handoff). Complete means
/// every result register of that sample has been taken over by a wait on its slot; a later
/// producer into the same registers does not keep the tuple borrowed.
pub(super) type Borrowed = rustc_hash::FxHashMap<u8, Results>;

/// A sample's result registers with their publication numbers (the first `.1` of `.0`).
pub(super) type Results = ([(u8, u32); 4], u8);

/// Refuses an export over a coordinate publication whose sample has not completed.
pub(super) fn check_rewrite(
    body: &super::body::Body,
    op: &crate::core::ops::Op,
    sg: &crate::core::state::SimdGroup,
    borrowed: &Borrowed,
    g: crate::lower::gfx_io::GfxOp,
) -> Result<(), SimError> {
    let crate::lower::gfx_io::GfxOp::Export { dst, .. } = g else {
        return Ok(());
    };
    if let Some((regs, n)) = borrowed.get(&dst) {
        let regs = &regs[..*n as usize];
        if let Some(&(reg, _)) = regs.iter().find(|&&(r, q)| sg.pending.in_flight(r, q)) {
            return Err(body.error(
                op,
                format!(
                    "publication {dst} rewritten while the sample that reads it has not \
                     completed (its result r{reg} is still in flight: no wait on its slot)"
                ),
            ));
        }
    }
    Ok(())
}

/// Performs a `tex_sample` in a fragment body: [`run_lanes`] over the quad's lanes, with
/// derivatives when the lanes are whole 2x2 quads.
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    mem: &dyn GpuMemory,
    uniforms: &[u32],
    body: &super::body::Body,
    op: &crate::core::ops::Op,
    sg: &mut crate::core::state::SimdGroup,
    quad: &[super::stages::Fragment],
    pubs: &mut super::body::Publications,
    borrowed: &mut Borrowed,
    t: TexInstr,
) -> Result<(), SimError> {
    // Whole 2x2 quads in lanes 4k..4k+3 (`super::quad`), whatever the execution mask.
    let full_quad = super::quad::quad_layout(quad);
    run_lanes(
        mem,
        uniforms,
        body,
        op,
        sg,
        quad.len(),
        full_quad,
        pubs,
        borrowed,
        t,
    )
}

/// Performs a `tex_sample` for lanes `0..lanes` of a render body (a fragment quad, or a
/// vertex batch with `quad` false: no derivatives, so implicit-LOD forms are refused):
/// reads the coordinate publications, samples, and publishes the results on the
/// instruction's completion slot.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_lanes(
    mem: &dyn GpuMemory,
    uniforms: &[u32],
    body: &super::body::Body,
    op: &crate::core::ops::Op,
    sg: &mut crate::core::state::SimdGroup,
    lanes_n: usize,
    full_quad: bool,
    pubs: &mut super::body::Publications,
    borrowed: &mut Borrowed,
    t: TexInstr,
) -> Result<(), SimError> {
    use crate::core::ops::Part;
    let mask = sg.exec.active;
    let n = t.mask.count_ones() as u8;
    for r in t.dst..t.dst + n {
        if sg.pending.is_pending(r, Part::Full) {
            return Err(body.error(
                op,
                format!("second producer into r{r} while the first is in flight"),
            ));
        }
    }
    // Every lane's publications (an inactive lane's hold what was last exported there);
    // the executing lanes sample, the whole quads give the implicit LOD's derivatives.
    let mut all = vec![LaneInput { words: [0; 4] }; lanes_n];
    for &k in t.inputs() {
        let p = t.coord + k;
        let Some(v) = pubs.value.get(&p) else {
            return Err(body.error(
                op,
                format!("the sample reads publication {p}, which no export wrote"),
            ));
        };
        for (l, lane) in all.iter_mut().enumerate() {
            lane.words[k as usize] = v[l];
        }
    }
    let lanes: Vec<Option<LaneInput>> = (0..lanes_n)
        .map(|l| (mask >> l & 1 != 0).then_some(all[l]))
        .collect();
    for &k in t.inputs() {
        pubs.pending.remove(&(t.coord + k));
    }
    // No executing lane (a branch every lane of the quad skipped, which the compiler does not
    // jump over): nothing is sampled and no lane's registers change, so no derivative, descriptor
    // or coordinate is needed. The destinations still complete on their slot.
    let mut results: Results = ([(0, 0); 4], n);
    if mask & ((1u64 << lanes_n) - 1) as u32 == 0 {
        for k in 0..n {
            let r = t.dst + k;
            let q = sg
                .pending
                .publish(r, Part::Full, t.slot, 0, &[0; crate::core::LANES]);
            results.0[k as usize] = (r, q);
        }
    } else {
        let quads = full_quad.then_some(&all[..]);
        let rows = execute(mem, uniforms, &t, &lanes, quads).map_err(|e| match e {
            TexError::Refused(w) => body.error(op, w),
            TexError::Sim(e) => e,
        })?;
        for (k, row) in rows.iter().enumerate().take(4) {
            let r = t.dst + k as u8;
            results.0[k] = (r, sg.pending.publish(r, Part::Full, t.slot, mask, row));
        }
    }
    for &k in t.inputs() {
        borrowed.insert(t.coord + k, results);
    }
    Ok(())
}

#[cfg(test)]
mod targets_tests;

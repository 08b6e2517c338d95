//! Meanings of graphics-form selector values, limited to the encodings the T8132 compiler
//! packers emit (GravityLinux/mesa agx_apple9_ir.c; run by its GLES suites on M4). Other
//! values are errors naming the field, never guesses.

use crate::instr::Instr;
use crate::op::Op;

/// Where an `iter` evaluates its coefficient.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IterLocation {
    /// The pixel centre (loc 0x10, byte 6 zero).
    Centre,
    /// The packed position a centroid/sample `iter_setup` wrote to GPR `reg`; `release` = last use.
    Position { reg: u8, release: bool },
}

fn val(i: &Instr, name: &str) -> u64 {
    i.field(name).unwrap_or(0)
}

/// Location of an `iter` (coefficient index = field `slot`; its flat/linear/perspective mode
/// comes from the draw's CF binding table). Only the packer's combination of the other fields
/// (`coeff_sel` 3, `lead` 0, no wait, `b7` 2) is accepted.
pub fn iter_location(i: &Instr) -> Result<IterLocation, String> {
    if i.form.name != "iter" {
        return Err(format!("{} is not an iter", i.form.name));
    }
    let fixed = [
        ("coeff_sel", 3),
        ("lead", 0),
        ("wait", 0),
        ("b7", 2),
        ("b9", 0),
    ];
    for (name, want) in fixed {
        if val(i, name) != want {
            return Err(format!("iter {name}={:#x} is unmeasured", val(i, name)));
        }
    }
    let reg = val(i, "mode") as u8;
    match (val(i, "loc"), reg) {
        (0x10, 0) => Ok(IterLocation::Centre),
        (0x08, r) if r < 64 => Ok(IterLocation::Position {
            reg: r,
            release: false,
        }),
        (0x20, r) if r < 64 => Ok(IterLocation::Position {
            reg: r,
            release: true,
        }),
        (loc, m) => Err(format!("iter loc={loc:#x} mode={m:#x} is unmeasured")),
    }
}

/// What a `tex_sample` does, from its byte 6/7 selector pair (GravityLinux/mesa
/// agx_apple9_ir.c TEXTURE_SAMPLE packer: the explicit-LOD forms carry the packer's `bias`
/// flag as the immediate that picks the pair, so the pair tells LOD from bias).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureAccess {
    /// Implicit-LOD sample: coordinates (x, y) in two publications.
    Sample,
    /// Explicit LOD (textureLod): (x, y, [layer | z], packed LOD) in four publications.
    Lod,
    /// Implicit LOD plus a bias (texture(s, p, bias)): same tuple as `Lod`.
    Bias,
    /// Integer-coordinate fetch (texelFetch): (x, y, [layer | z], level) as integers.
    Fetch,
    /// Sample with explicit gradients.
    Gradient,
}

/// Dimensionality, access kind and shadow compare of a `tex_sample`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureOp {
    pub dims: u8,
    /// 2D array.
    pub array: bool,
    /// Cube map: (s, t) face coordinates, the face in the word's low 16 bits (`dims` 2).
    pub cube: bool,
    pub access: TextureAccess,
    pub shadow: bool,
}

/// Decodes the selector pair the packer writes; anything else is an error.
/// Pairs (byte 6 with the shadow bit 5 clear / byte 7): 2D 00/00 sample, 00/01 LOD, 04/00
/// bias, 04/01 gradient, 80/24 fetch; 2D array 08/05 LOD, 0c/04 bias, a0/24 fetch; 3D 88/21
/// LOD, 90/01 bias, 98/01 fetch; cube 00/03 LOD, 14/00 bias. Byte 6 bit 5 = shadow compare
/// (never with a fetch: 0xa0 is the array fetch). Fetch modes: README.apple9-ir.md
/// "Native cube coordinates and integer texture reads" (authored Metal and GLES3 fetch tests).
/// The cube pair is the packer's `texture_dimension` 1, which its NIR selection passes for
/// `GLSL_SAMPLER_DIM_CUBE` after the CUBE operations turned the direction into (s, t, face)
/// (agx_compile_apple9.c; the array pair is used instead only for seamful cubes): validated by
/// that driver's GLES3 cube-map suites on M4 (README.apple9-es3.md, "native cube-coordinate
/// operations ... the focused GLES3 suites pass").
pub fn texture_op(i: &Instr) -> Result<TextureOp, String> {
    if i.form.op != Op::Texture || i.form.name != "tex_sample" {
        return Err(format!("{} is not a tex_sample", i.form.name));
    }
    let v6 = val(i, "variant") as u8;
    let v7 = val(i, "extra_coord") as u8;
    use TextureAccess::*;
    let fetch = |dims, array| TextureOp {
        dims,
        array,
        cube: false,
        access: Fetch,
        shadow: false,
    };
    match (v6, v7) {
        (0x80, 0x24) => return Ok(fetch(2, false)),
        (0xa0, 0x24) => return Ok(fetch(2, true)),
        (0x98, 0x01) => return Ok(fetch(3, false)),
        _ => {}
    }
    let shadow = v6 & 0x20 != 0;
    let (dims, array, cube, access) = match (v6 & !0x20, v7) {
        (0x00, 0x00) => (2, false, false, Sample),
        (0x00, 0x01) => (2, false, false, Lod),
        (0x04, 0x00) => (2, false, false, Bias),
        (0x04, 0x01) => (2, false, false, Gradient),
        (0x08, 0x05) => (2, true, false, Lod),
        (0x0c, 0x04) => (2, true, false, Bias),
        (0x88, 0x21) => (3, false, false, Lod),
        (0x90, 0x01) => (3, false, false, Bias),
        (0x00, 0x03) => (2, false, true, Lod),
        (0x14, 0x00) => (2, false, true, Bias),
        (a, b) => return Err(format!("tex_sample selector {a:#x}/{b:#x} is unmeasured")),
    };
    Ok(TextureOp {
        dims,
        array,
        cube,
        access,
        shadow,
    })
}

/// Result components of a `tex_sample` (bit 0 R .. bit 3 A) from its 4-bit `mask_sel`
/// field. The selector is a permutation of the 15 non-empty masks (GravityLinux/mesa
/// agx_apple9_ir.c TEXTURE_SAMPLE: "T8132 authored read/sample probes cover all 15 nonempty
/// masks"); the results are dense, in R G B A order among the selected components. Listed
/// here by selector value 0..15: the component sets written as RGBA letters.
pub fn texture_result_mask(i: &Instr) -> Result<u8, String> {
    const BY_SELECTOR: [&str; 16] = [
        "R", "G", "B", "A", "RA", "RG", "RGB", "RGBA", "RB", "GB", "GA", "BA", "RBA", "RGA", "GBA",
        "",
    ];
    let sel = val(i, "mask_sel") as usize;
    let m = BY_SELECTOR[sel]
        .chars()
        .fold(0u8, |m, c| m | 1 << "RGBA".find(c).unwrap());
    if m == 0 {
        return Err(format!(
            "tex_sample result selector {sel} names no packer mask"
        ));
    }
    Ok(m)
}

/// The `mask_sel` value returning components `mask` (bit 0 R .. bit 3 A), the inverse of
/// [`texture_result_mask`].
pub fn texture_mask_selector(mask: u8) -> Option<u64> {
    (0..16u64).find(|&sel| {
        let mut i = Instr::new(crate::form_by_name("tex_sample").unwrap());
        i.set("mask_sel", sel).is_ok() && texture_result_mask(&i) == Ok(mask)
    })
}

/// What an export form computes into its publication register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportOp {
    /// f32 a + b (`b_neg`: a - b).
    FAdd { negate_b: bool },
    /// f32 a * b.
    FMul,
    /// Bitwise function of the two words (apply with `LogicFn::apply_ilogic(a, b)`).
    Logic(crate::meaning::LogicFn),
    /// The word of r[a], unchanged: one half of a publication pair (GravityLinux/mesa
    /// agx_apple9_ir.c PUBLICATION_PAIR: its packer takes the `or a, a` LOGIC_EXPORT, clears
    /// source B (bits 25..31, 42, its size bit 24, release bit 20), LUT bit 43, and sets byte 8
    /// bit 4; the pair (control word, depth) feeds `depth_store`; inferred to publish r[a]).
    PairWord,
}

/// The operation of a `fadd_export` / `fmul_export` / `logic_export`, limited to what the
/// T8132 packers emit (GravityLinux/mesa agx_apple9_ir.c `pack_float2`, `pack_logic` with the
/// export encodings): 32-bit GPR sources, no abs/negate-A/saturate (float2 export refuses
/// modifiers; `b_neg` is the FSUB bit the packer shares), logic functions and, or, xor.
/// Everything else is an error naming the field.
pub fn export_op(i: &Instr) -> Result<ExportOp, String> {
    let name = i.form.name;
    if name == "logic_export" && val(i, "z8") == 0x10 {
        let want = [
            ("a_size", 1),
            ("b_size", 0),
            ("b", 0),
            ("rel_b", 0),
            ("b_keep", 0),
            ("op_base", 1),
            ("lut_a_sel", 2),
            ("lut_b1", 0),
            ("lut_b3", 0),
            ("lut_a_free", 0),
            ("lut_a_5", 0),
            ("lut_a_7", 0),
            ("z6", 0),
            ("b7_lo", 0),
            ("z9", 0),
        ];
        for (f, v) in want {
            if val(i, f) != v {
                return Err(format!(
                    "logic_export pair word: {f} = {:#x} (the packer writes {v:#x})",
                    val(i, f)
                ));
            }
        }
        return Ok(ExportOp::PairWord);
    }
    for size in ["a_size", "b_size"] {
        if val(i, size) != 1 {
            return Err(format!(
                "{name}: {size} 0 (16-bit source) is not a packer encoding"
            ));
        }
    }
    match name {
        "fadd_export" | "fmul_export" => {
            for f in ["ctrl", "b6", "b7_lo"] {
                if val(i, f) != 0 {
                    return Err(format!("{name}: {f} = {:#x} is not established", val(i, f)));
                }
            }
            if name == "fmul_export" {
                if val(i, "b_neg") != 0 {
                    return Err("fmul_export: b_neg is not a packer encoding".into());
                }
                Ok(ExportOp::FMul)
            } else {
                Ok(ExportOp::FAdd {
                    negate_b: val(i, "b_neg") != 0,
                })
            }
        }
        "logic_export" => {
            for f in [
                "lut_a_free",
                "lut_a_5",
                "lut_a_7",
                "z6",
                "b7_lo",
                "z8",
                "z9",
            ] {
                if val(i, f) != 0 {
                    return Err(format!("{name}: {f} = {:#x} is not established", val(i, f)));
                }
            }
            let lut_b = (val(i, "lut_b1") << 1 | val(i, "lut_b3") << 3) as u8;
            let key = (val(i, "op_base") as u8, val(i, "lut_a_sel") as u8, lut_b);
            crate::meaning::ILOGIC_LUT
                .iter()
                .filter(|e| matches!(e.function.name, "and" | "or" | "xor"))
                .find(|e| (e.op_base, e.lut_a, e.lut_b) == key)
                .map(|e| ExportOp::Logic(e.function))
                .ok_or_else(|| {
                    format!(
                        "logic_export selector {key:?} is not one the packer emits (and, or, xor)"
                    )
                })
        }
        _ => Err(format!("{name} is not an export form")),
    }
}

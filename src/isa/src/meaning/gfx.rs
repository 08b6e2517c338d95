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

/// What a `tex_sample` does, from its byte 6/7 selector pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureAccess {
    /// Implicit-LOD sample.
    Sample,
    /// Integer-coordinate fetch (no sampler filtering).
    Fetch,
    /// Sample with explicit gradients.
    Gradient,
    /// The packer's two explicit-LOD encodings, told apart by its LOD immediate (0 or 1);
    /// which of bias / absolute LOD each is is not stated in the source.
    LodForm(u8),
    /// 1D/3D: the packer writes one pair per LOD immediate (0 or 1) whatever the access
    /// (a plain sample uses immediate 0), so only that immediate is known.
    DimensionForm(u8),
}

/// Dimensionality, access kind and shadow compare of a 2D/1D/3D `tex_sample`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureOp {
    pub dims: u8,
    /// 2D array (only established for fetches: `a0 24`, README.apple9-ir.md).
    pub array: bool,
    pub access: TextureAccess,
    pub shadow: bool,
}

/// Decodes the selector pair the packer writes; anything else is an error.
pub fn texture_op(i: &Instr) -> Result<TextureOp, String> {
    if i.form.op != Op::Texture || i.form.name != "tex_sample" {
        return Err(format!("{} is not a tex_sample", i.form.name));
    }
    let v6 = val(i, "variant") as u8;
    // 0xa0 = fetch | array (bit 5), not a shadow fetch
    let shadow = v6 & 0x20 != 0 && v6 != 0xa0;
    use TextureAccess::*;
    let mut array = false;
    let (dims, access) = match (v6 & !0x20, val(i, "extra_coord") as u8) {
        // Integer fetch read modes for 2D array and 3D (GravityLinux/mesa
        // src/asahi/compiler/README.apple9-ir.md, authored Metal + GLES3 fetch tests on M4).
        (0x80, 0x24) if v6 & 0x20 != 0 => {
            array = true;
            (2, Fetch)
        }
        (0x98, 0x01) => (3, Fetch),
        (0x00, 0x00) => (2, Sample),
        (0x80, 0x24) => (2, Fetch),
        (0x04, 0x01) => (2, Gradient),
        (0x04, 0x00) => (2, LodForm(1)),
        (0x00, 0x01) => (2, LodForm(0)),
        (0x88, 0x21) => (3, DimensionForm(0)),
        (0x90, 0x01) => (3, DimensionForm(1)),
        (0x00, 0x03) => (1, DimensionForm(0)),
        (0x14, 0x00) => (1, DimensionForm(1)),
        (a, b) => return Err(format!("tex_sample selector {a:#x}/{b:#x} is unmeasured")),
    };
    Ok(TextureOp {
        dims,
        array,
        access,
        shadow,
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
}

/// The operation of a `fadd_export` / `fmul_export` / `logic_export`, limited to what the
/// T8132 packers emit (GravityLinux/mesa agx_apple9_ir.c `pack_float2`, `pack_logic` with the
/// export encodings): 32-bit GPR sources, no abs/negate-A/saturate (float2 export refuses
/// modifiers; `b_neg` is the FSUB bit the packer shares), logic functions and, or, xor.
/// Everything else is an error naming the field.
pub fn export_op(i: &Instr) -> Result<ExportOp, String> {
    let name = i.form.name;
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

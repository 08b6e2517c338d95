//! Meanings of op-select values that the table stores as plain numbers: special-register
//! selectors and special-function-unit functions. Each entry carries its evidence.

use crate::evidence::Evidence;
use crate::instr::Instr;
use crate::op::Op;

mod address;
mod gfx;
mod launch;
mod tile;
pub use address::*;
pub use gfx::*;
pub use launch::*;
pub use tile::*;

/// One special register readable by `get_sr` (byte 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecialReg {
    pub sel: u8,
    pub name: &'static str,
    pub evidence: Evidence,
}

const SR_SRC: &str = "niklassheth/agx-re:docs/isa/encoding-tables.md get_sr sr_sel";

/// Selector table (niklassheth/agx-re encoding-tables.md `get_sr`, own-MSL byte diffs; 0xa0 is
/// additionally exercised by every hash-matched EXP-M4-35/54/55 oracle on M4). Selectors
/// 0x00..0x7f materialise the selector as an immediate rather than reading a register
/// (EXP-0140, G17P) and are not listed.
pub static SPECIAL_REGS: &[SpecialReg] = &[
    sr(0x82, "thread_index_in_simdgroup", Evidence::CorpusOnly),
    sr(0x84, "simd_is_helper_thread", Evidence::CorpusOnly),
    sr(0x85, "simdgroup_index_in_threadgroup", Evidence::CorpusOnly),
    sr(0x88, "base_vertex", Evidence::CorpusOnly),
    sr(0x8a, "base_instance", Evidence::CorpusOnly),
    sr(0x98, "threads_per_threadgroup.x", Evidence::CorpusOnly),
    sr(0x99, "threads_per_threadgroup.y", Evidence::CorpusOnly),
    sr(0x9a, "threads_per_threadgroup.z", Evidence::CorpusOnly),
    // The T8132 compiler reads NIR load_workgroup_id as 0x9c + component, direct 32-bit values
    // (GravityLinux/mesa agx_compile_apple9.c `apple9_system_source`, EXP-M4-29 on M4); its
    // end-of-tile helper locates its tile with x and y (agx_blit.c `asahi_reload_fs`).
    sr(0x9c, "threadgroup_position_in_grid.x", Evidence::CorpusOnly),
    sr(0x9d, "threadgroup_position_in_grid.y", Evidence::CorpusOnly),
    sr(0x9e, "threadgroup_position_in_grid.z", Evidence::CorpusOnly),
    sr(0xa0, "thread_position_in_grid.x", Evidence::Hardware),
    sr(0xa1, "thread_position_in_grid.y", Evidence::CorpusOnly),
    sr(0xa2, "thread_position_in_grid.z", Evidence::CorpusOnly),
    sr(
        0xa4,
        "thread_position_in_threadgroup.x",
        Evidence::CorpusOnly,
    ),
    sr(
        0xa5,
        "thread_position_in_threadgroup.y",
        Evidence::CorpusOnly,
    ),
    sr(
        0xa6,
        "thread_position_in_threadgroup.z",
        Evidence::CorpusOnly,
    ),
    // Vertex id: the only input of ADevWithAnIdea/agx-re EXP-0008 render_interp `v_main`
    // (kernels/render_interp.metal takes `[[vertex_id]]` and nothing else) and its compiled body
    // (corpus render_interp.vertex.main) reads only `get_sr 0xdd`, then forms `(vid<<1)&2`,
    // `vid&2` from it; the pipeline drew the expected image (raw/render_hw.txt, A18 Pro = G17P).
    // Data-flow evidence, not an M4 mutation: corpus-only.
    sr(0xdd, "vertex_id", Evidence::CorpusOnly),
];

const fn sr(sel: u8, name: &'static str, evidence: Evidence) -> SpecialReg {
    SpecialReg {
        sel,
        name,
        evidence,
    }
}

/// Source of the special-register table.
pub const SPECIAL_REG_SOURCE: &str = SR_SRC;

/// The special register named by a `get_sr` selector.
pub fn special_register(sel: u8) -> Option<SpecialReg> {
    SPECIAL_REGS.iter().copied().find(|s| s.sel == sel)
}

/// Special-function-unit functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SfuFn {
    Rcp,
    Rsqrt,
    /// 1/sqrt(x), except 1 for ±0, +inf and denormals; sqrt(x) = x * factor (EXP-M4-55).
    SqrtFactor,
    /// sin(pi*x/2)/x, the sine assist (EXP-M4-55).
    SinFactor,
    Exp2,
    Log2,
    /// Round to nearest even (rint).
    Rint,
    Floor,
    Ceil,
    Trunc,
}

/// The function an SFU instruction computes, with the evidence of that mapping. Combinations
/// not measured give an error naming the fields (the strict model refuses them).
///
/// Measured on M4 (EXP-M4-54/55 oracles in ../shared/oracles/sim and niklassheth/agx-re
/// experiments/EXP-M4-55-sqrt-sine-assist/RESULTS.md): 0xaf class 0 on the reciprocal datapath
/// = rcp; 0xaf class 1 and 3 = rsqrt; 0xaf class 2 = exp2; 0x2f class 2 = log2; 0x2f class 0
/// with round mode 1 = floor; 0x2f class 1 = the sqrt factor (fnsel bit 1 inert); 0x2f class 3
/// = the sine factor. From niklassheth/agx-re encoding-tables.md `fspecial` (G17P, measured):
/// 0x2f class 0 round modes 0/2/3 = rint/ceil/trunc.
pub fn sfu_function(i: &Instr) -> Result<(SfuFn, Evidence), String> {
    if i.form.op != Op::Sfu {
        return Err(format!("{} is not an SFU instruction", i.form.name));
    }
    let get = |n: &str| i.field(n).unwrap_or(0);
    let recip = i.form.name == "sfu_rcp";
    let hi = get("fn_hi");
    let class = get("fnclass") & 3;
    let fnsel = get("fnsel_lo");
    let hw = Evidence::Hardware;
    let r = match (recip, hi, class) {
        (true, 1, 0) => (SfuFn::Rcp, hw),
        (false, 1, 1) | (false, 1, 3) => (SfuFn::Rsqrt, hw),
        (false, 1, 2) => (SfuFn::Exp2, hw),
        (false, 0, 2) => (SfuFn::Log2, hw),
        (false, 0, 1) => (SfuFn::SqrtFactor, hw),
        (false, 0, 3) => (SfuFn::SinFactor, hw),
        (false, 0, 0) => match get("roundmode") {
            0 => (SfuFn::Rint, Evidence::CorpusOnly),
            1 => (SfuFn::Floor, hw),
            2 => (SfuFn::Ceil, Evidence::CorpusOnly),
            3 => (SfuFn::Trunc, Evidence::CorpusOnly),
            m => return Err(format!("{}: round mode {m} not established", i.form.name)),
        },
        _ => {
            return Err(format!(
                "{}: function (fn_hi {hi}, fnclass {}, fnsel_lo {fnsel}) not established",
                i.form.name,
                get("fnclass")
            ))
        }
    };
    Ok(r)
}

/// A two-input boolean function f(x, y) as its truth table: bit `2*x + y` is f(x, y). The
/// function names use x and y as "a" and "b" (`a_and_not_b` = x & !y).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LogicFn {
    pub name: &'static str,
    pub truth: u8,
}

impl LogicFn {
    /// Apply bitwise to two 32-bit words: f(x, y).
    #[inline]
    pub fn apply(self, x: u32, y: u32) -> u32 {
        let t = |i: u8| {
            if self.truth >> i & 1 == 1 {
                u32::MAX
            } else {
                0
            }
        };
        (!x & !y & t(0)) | (!x & y & t(1)) | (x & !y & t(2)) | (x & y & t(3))
    }

    /// Apply to an `ilogic` instruction's operands: the table's x is the byte3 source (our
    /// `Role::SrcB`) and y the byte1 source (`Role::SrcA`). niklassheth/agx-re
    /// encoding-tables.md `ilogic` DEF-0154-5 (G17P, measured: 16/16 only with this reading, the
    /// 8 asymmetric functions fail otherwise); EXP-M4-13 `andnot_u32` (a & ~b with a in byte1)
    /// uses the selector of `not_a_and_b`, consistent with it.
    #[inline]
    pub fn apply_ilogic(self, src_a: u32, src_b: u32) -> u32 {
        self.apply(src_b, src_a)
    }
}

/// One measured `ilogic` encoding: `(op_base, lut_a & 3, lut_b & 0xf)` selects the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogicEncoding {
    pub function: LogicFn,
    pub op_base: u8,
    pub lut_a: u8,
    pub lut_b: u8,
}

const fn lut(name: &'static str, truth: u8, op_base: u8, lut_a: u8, lut_b: u8) -> LogicEncoding {
    LogicEncoding {
        function: LogicFn { name, truth },
        op_base,
        lut_a,
        lut_b,
    }
}

/// All 16 functions, each executed on M4 (ADevWithAnIdea/agx-re:experiments/EXP-0146-m4-emit-
/// int-misc/analysis/ilogic_lut_table.md, both gated runs agreeing). Truth bit order f(0,0),
/// f(0,1), f(1,0), f(1,1) from bit 0 with x = byte3 source, y = byte1 source (see
/// `LogicFn::apply_ilogic`).
pub static ILOGIC_LUT: &[LogicEncoding] = &[
    lut("zero", 0b0000, 0, 0, 0x0),
    lut("and", 0b1000, 1, 0, 0x0),
    lut("a_and_not_b", 0b0100, 0, 0, 0x8),
    lut("a", 0b1100, 0, 0, 0x9),
    lut("not_a_and_b", 0b0010, 0, 2, 0x0),
    lut("b", 0b1010, 0, 2, 0x2),
    lut("xor", 0b0110, 0, 2, 0x8),
    lut("or", 0b1110, 1, 2, 0x8),
    lut("nor", 0b0001, 0, 1, 0x0),
    lut("xnor", 0b1001, 1, 1, 0x0),
    lut("not_b", 0b0101, 0, 1, 0x2),
    lut("a_or_not_b", 0b1101, 1, 1, 0x8),
    lut("not_a", 0b0011, 0, 1, 0x1),
    lut("not_a_or_b", 0b1011, 1, 3, 0x0),
    lut("nand", 0b0111, 0, 3, 0x8),
    lut("one", 0b1111, 0, 1, 0x5),
];

/// The boolean function of an `ilogic` instruction. The lut fields must be exactly one of the
/// measured encodings (lut_a bits 2..4 and lut_b bit 4 are don't-care per the same source;
/// lut_a bits 5..7 must be clear).
pub fn logic_function(i: &Instr) -> Result<(LogicFn, Evidence), String> {
    if i.form.op != Op::ILogic {
        return Err(format!("{} is not an ilogic instruction", i.form.name));
    }
    let get = |n: &str| i.field(n).unwrap_or(0) as u8;
    if get("lut_a_z") != 0 {
        return Err("ilogic lut_a bits 5..7 set: not established".into());
    }
    // `ixor_c4`: the compact xor (fitted to EXP-M4-35 alu_xor_alu, see the table).
    if i.form.name == "ixor_c4" {
        let xor = logic_encoding("xor").expect("xor is measured").function;
        return Ok((xor, Evidence::Fitted));
    }
    // `ilogic_ub` (B from the uniform file): op_base is a match bit and its one selector bit is
    // bit 43, the 0x8 of the GPR form's lut_b (fitted to the EXP-M4-35 oracles, see the table).
    let (key, ev) = if i.form.name == "ilogic_ub" {
        ((1, get("lut_a_sel"), get("lut_b") << 3), Evidence::Fitted)
    } else {
        (
            (get("op_base"), get("lut_a_sel"), get("lut_b") & 0xf),
            Evidence::Hardware,
        )
    };
    ILOGIC_LUT
        .iter()
        .find(|e| (e.op_base, e.lut_a, e.lut_b) == key)
        .map(|e| (e.function, ev))
        .ok_or_else(|| format!("ilogic selector {key:?} not among the measured encodings"))
}

/// The measured encoding of a boolean function, for the compiler.
pub fn logic_encoding(name: &str) -> Option<LogicEncoding> {
    ILOGIC_LUT.iter().copied().find(|e| e.function.name == name)
}

/// Device-load/store data formats (`ld_format` / `st_format` low 6 bits): element bits and count.
/// niklassheth/agx-re encoding-tables.md `device_load` (own-MSL byte diffs; 0x11 also in every
/// hash-matched EXP-M4-35/54 oracle, 0x01 in the EXP-M4-54 half kernels).
pub static MEMORY_FORMATS: &[(u8, u8, u8, Evidence)] = &[
    (0x11, 32, 1, Evidence::Hardware),
    (0x01, 16, 1, Evidence::Hardware),
    (0x21, 8, 1, Evidence::CorpusOnly),
    (0x19, 32, 2, Evidence::CorpusOnly),
    (0x1d, 32, 3, Evidence::CorpusOnly),
    (0x17, 32, 4, Evidence::CorpusOnly),
    (0x07, 16, 4, Evidence::CorpusOnly),
];

/// `(element bits, component count, evidence)` of a memory format code.
pub fn memory_format(code: u8) -> Option<(u8, u8, Evidence)> {
    MEMORY_FORMATS
        .iter()
        .find(|f| f.0 == code)
        .map(|f| (f.1, f.2, f.3))
}

/// Comparison of a predicate compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compare {
    FloatEq,
    FloatGt,
    FloatLt,
    /// Ordered float >= (extended form relation 2, EXP-M4-45 on M4).
    FloatGe,
    /// Float <= including unordered operands (extended form relation 3, EXP-M4-45 on M4).
    FloatLeOrUnordered,
    UintGt,
    UintLt,
    SintGt,
    SintLt,
    /// Integer / bitwise equality (differs from IEEE equality for -0 and NaN).
    BitEq,
}

/// The comparison of a `pcmp` (byte4) or `pcmp_ext` (byte6) instruction and whether the second
/// operand is the compact-immediate class (bit 0x10). niklassheth/agx-re encoding-tables.md
/// icmp_pred_ordered6 / icmp_pred_extended10 (own-MSL byte diffs; EXP-M4-45/53 hardware runs).
pub fn compare_condition(i: &Instr) -> Result<(Compare, bool, Evidence), String> {
    let (v, ext) = match i.form.name {
        "pcmp" | "pcmp_imm" | "isel_imm" => (i.field("cond").unwrap_or(0), false),
        "pcmp_ext" => (i.field("relation").unwrap_or(0), true),
        n => return Err(format!("{n} is not a predicate compare")),
    };
    let imm = v & 0x10 != 0;
    // niklassheth/agx-re EXP-M4-45 (M4, measured): the native float `>=` is the extended form
    // with relation 2, and 3 gives `<=` including unordered cases; the encoding tables' older
    // gt/lt reading of the extended relations is superseded.
    let c = match (ext, v & !0x10) {
        (false, 2) => Compare::FloatGt,
        (false, 3) => Compare::FloatLt,
        (true, 2) => Compare::FloatGe,
        (true, 3) => Compare::FloatLeOrUnordered,
        (false, 4) => Compare::UintGt,
        (false, 5) => Compare::UintLt,
        (false, 6) => Compare::SintGt,
        (false, 7) => Compare::SintLt,
        (true, 0) => Compare::FloatEq,
        (true, 7) => Compare::BitEq,
        (_, x) => return Err(format!("{}: condition {x:#x} not established", i.form.name)),
    };
    Ok((c, imm, Evidence::CorpusOnly))
}

/// Functions of the min/max form (`minmax.sel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MinMaxFn {
    FMax,
    FMin,
    UMax,
    UMin,
    SMax,
    SMin,
}

/// `minmax.sel` values: 0 fmax, 1 fmin, 4 umax, 5 umin, 6 imax, 7 imin
/// (niklassheth/agx-re:docs/isa/encoding-tables.md `minmax`; register map measured on T8132 by
/// EXP-M4-38). Selectors 2 and 3 are not established.
pub static MINMAX_SELECTORS: &[(u8, MinMaxFn, Evidence)] = &[
    (0, MinMaxFn::FMax, Evidence::Hardware),
    (1, MinMaxFn::FMin, Evidence::Hardware),
    (4, MinMaxFn::UMax, Evidence::Hardware),
    (5, MinMaxFn::UMin, Evidence::Hardware),
    (6, MinMaxFn::SMax, Evidence::Hardware),
    (7, MinMaxFn::SMin, Evidence::Hardware),
];

/// The function of a `minmax` instruction, or an error for an unestablished selector.
pub fn minmax_function(i: &Instr) -> Result<(MinMaxFn, Evidence), String> {
    if i.form.op != Op::MinMax {
        return Err(format!("{} is not a min/max instruction", i.form.name));
    }
    let sel = i.field("sel").unwrap_or(0);
    MINMAX_SELECTORS
        .iter()
        .find(|e| u64::from(e.0) == sel)
        .map(|e| (e.1, e.2))
        .ok_or_else(|| format!("min/max selector {sel} is not established"))
}

/// The selector of a min/max function, for the compiler.
pub fn minmax_selector(f: MinMaxFn) -> Option<u8> {
    MINMAX_SELECTORS.iter().find(|e| e.1 == f).map(|e| e.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minmax_selectors_round_trip() {
        for &(sel, f, _) in MINMAX_SELECTORS {
            assert_eq!(minmax_selector(f), Some(sel));
        }
        assert_eq!(MINMAX_SELECTORS.len(), 6);
    }

    #[test]
    fn lut_table_is_complete_and_consistent() {
        // 16 distinct truth tables; each name's truth table matches its meaning on bits.
        let mut seen = [false; 16];
        for e in ILOGIC_LUT {
            seen[e.function.truth as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
        let (a, b) = (0b1100u32, 0b1010u32);
        let f = |n| logic_encoding(n).unwrap().function.apply(a, b) & 0xf;
        // ilogic operand order: x is the byte3 source
        let xor = logic_encoding("a_and_not_b").unwrap().function;
        assert_eq!(xor.apply_ilogic(b, a) & 0xf, a & !b & 0xf);
        assert_eq!(f("and"), a & b);
        assert_eq!(f("or"), a | b);
        assert_eq!(f("xor"), a ^ b);
        assert_eq!(f("a_and_not_b"), a & !b & 0xf);
        assert_eq!(f("not_a_or_b"), (!a | b) & 0xf);
        assert_eq!(f("nand"), !(a & b) & 0xf);
    }
}

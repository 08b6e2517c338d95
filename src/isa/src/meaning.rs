//! Meanings of op-select values that the table stores as plain numbers: special-register
//! selectors and special-function-unit functions. Each entry carries its evidence.

use crate::evidence::Evidence;
use crate::instr::Instr;
use crate::op::Op;

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
    Sqrt,
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
/// Measured on M4 (EXP-M4-54/55 oracles in ../shared/oracles/sim): 0xaf class 0 on the
/// reciprocal datapath = rcp; 0xaf class 1 = rsqrt; 0xaf class 2 = exp2; 0x2f class 2 = log2;
/// 0x2f class 0 with round mode 1 = floor; 0x2f class 1 on the sqrt datapath (fnsel_lo 2) =
/// sqrt. From niklassheth/agx-re encoding-tables.md `fspecial` (G17P, measured): 0x2f class 0
/// round modes 0/2/3 = rint/ceil/trunc.
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
        (false, 1, 1) => (SfuFn::Rsqrt, hw),
        (false, 1, 2) => (SfuFn::Exp2, hw),
        (false, 0, 2) => (SfuFn::Log2, hw),
        (false, 0, 1) if fnsel == 2 => (SfuFn::Sqrt, hw),
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

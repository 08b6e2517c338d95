//! Special-function unit (byte0 0x2f/0xaf, 10 bytes).

//! Function, source type, modifiers and result type as measured on M4 by
//! niklassheth/agx-re EXP-M4-54-sfu-source-controls (RESULTS.md, HARDWARE.json,
//! MIXED.json) and EXP-M4-55-sqrt-sine-assist:
//! - the function is agx16-isa's `meaning::sfu_function` (the one mapping, with
//!   its evidence: EXP-M4-54/55 on M4, encoding-tables `fspecial` for rint/ceil/
//!   trunc);
//! - ordinary form (byte6 bit7 set): source type byte6 bits 4:3, release bit5,
//!   abs byte7 bit7, negate byte8 bit0;
//! - reciprocal form: source type byte7 bits 3:2, release byte6 bit4, abs
//!   byte8 bit6; no negate (native rcp_*_neg kernels negate with a separate
//!   instruction; their byte4 bit0, like k_sqrt's, leaves the result unchanged);
//! - type codes 0 bf16, 1 f16, 2 f32; 16-bit sources are the register's low half;
//! - result f16 (low half of dst) where the native half-result kernels differ
//!   from the float-result ones: ordinary byte7 bit5, reciprocal byte8 bit4
//!   (with byte7 bit1). Native diff, inferred.

use super::{check, src};
use crate::core::ops::{Dst, FMod, FType, Kind, Part, Src};
use crate::fp::sfu::SfuFunc;
use agx16_isa::meaning::{sfu_function, SfuFn};
use agx16_isa::{Instr, Role};

/// Values of the not-yet-understood control bits that hardware-run programs
/// hold (EXP-M4-54 native/mixed/mutations, EXP-M4-55 k_sqrt and root_* runs).
/// `src_class` bit 0 (k_sqrt, rcp_*_neg) and `fnsel_lo` bit 1 (rcp b6_02/b6_12,
/// root_*_92) left the measured results unchanged; std `fnsel_lo` bit 2 appears
/// in every native half->half kernel.
const COMMON: &[check::Allowed] = &[
    ("src_class", &[2, 3]),
    ("src_cache", &[0x15]),
    ("dst_hi", &[0, 1]),
    ("src_hi", &[0, 1]),
];
const RCP: &[check::Allowed] = &[
    ("fnsel_lo", &[0, 2]),
    ("precsel_lo", &[0, 2]),
    ("precsel_hi", &[4]),
    ("rcp_flag", &[1]),
    ("res_f16", &[0, 1]),
    ("src_abs", &[0, 1]),
];
const STD: &[check::Allowed] = &[
    ("fnsel_lo", &[0, 2, 4]),
    ("precsel", &[0]),
    ("b7_6", &[1]),
    ("res_f16", &[0, 1]),
    ("src_abs", &[0, 1]),
    ("src_neg", &[0, 1]),
    ("roundmode", &[0, 1, 2, 3]),
];

pub fn lower(i: &Instr) -> Result<Kind, String> {
    let f = |n: &str| i.field(n).unwrap_or(0);
    let rcp_form = i.form.name == "sfu_rcp";
    let allowed: Vec<check::Allowed> = COMMON
        .iter()
        .chain(if rcp_form { RCP } else { STD })
        .copied()
        .collect();
    check::fields(i, &["fn_hi", "fnclass", "src_type"], &allowed)?;
    let f16_result = f("res_f16") == 1;
    if rcp_form && (f("precsel_lo") == 2) != f16_result {
        return Err("reciprocal byte7 bit1 without the matching result type is unmeasured".into());
    }
    let abs = f("src_abs") == 1;
    let neg = !rcp_form && f("src_neg") == 1;
    // The function is agx16-isa's `meaning::sfu_function` (one mapping, with
    // its evidence). The round-mode bits only mean something on the rounding
    // class; elsewhere a set value is unmeasured.
    let (func, _evidence) = sfu_function(i)?;
    let func = match func {
        SfuFn::Rcp => SfuFunc::Rcp,
        SfuFn::Rsqrt => SfuFunc::Rsqrt,
        SfuFn::SqrtFactor => SfuFunc::SqrtFactor,
        SfuFn::SinFactor => SfuFunc::SinFactor,
        SfuFn::Exp2 => SfuFunc::Exp2,
        SfuFn::Log2 => SfuFunc::Log2,
        SfuFn::Rint => SfuFunc::Rint,
        SfuFn::Floor => SfuFunc::Floor,
        SfuFn::Ceil => SfuFunc::Ceil,
        SfuFn::Trunc => SfuFunc::Trunc,
    };
    let rounding = matches!(
        func,
        SfuFunc::Rint | SfuFunc::Floor | SfuFunc::Ceil | SfuFunc::Trunc
    );
    if !rcp_form && !rounding && f("roundmode") != 0 {
        return Err(format!(
            "SFU round mode {} on a non-rounding function is unmeasured",
            f("roundmode")
        ));
    }
    let src_ty = match f("src_type") {
        0 => FType::Bf16,
        1 => FType::F16,
        2 => FType::F32,
        t => return Err(format!("SFU source type code {t} is unmeasured")),
    };
    // 16-bit operands name a half register (EXP-M4-54 half kernels read r1.lo,
    // write r1.hi, and alu kernels read r1.hi; measured).
    let (src_hi, dst_hi) = (f("src_hi") == 1, f("dst_hi") == 1);
    if (src_hi && src_ty == FType::F32) || (dst_hi && !f16_result) {
        return Err("high-half select on a 32-bit SFU operand is unmeasured".into());
    }
    let s = match src(i, Role::SrcA)? {
        Src::Gpr(r, _) if src_ty == FType::F32 => Src::Gpr(r, Part::Full),
        Src::Gpr(r, _) => Src::Gpr(r, if src_hi { Part::Hi } else { Part::Lo }),
        other => other,
    };
    let d = match src(i, Role::Dst)? {
        Src::Gpr(reg, _) if f16_result => Dst {
            reg,
            part: if dst_hi { Part::Hi } else { Part::Lo },
        },
        Src::Gpr(reg, _) => Dst {
            reg,
            part: Part::Full,
        },
        _ => return Err("SFU destination is not a register".into()),
    };
    // A 16-bit result of a bf16 source is bf16: EXP-M4-54 floor_bfloat_store
    // (hash-matched on M4) writes floor(x) to r0.hi and widens it to fp32 by
    // clearing r0.lo; the M4 stored 1.0 = 0x3f800000, i.e. r0.hi = 0x3f80 (as
    // fp16 the same bits would read 0x3c00). The rounding functions' results
    // are exact in bf16; for other functions the bf16 rounding is unmeasured.
    let dst_ty = match (f16_result, src_ty) {
        (false, _) => FType::F32,
        (true, FType::Bf16) if rounding => FType::Bf16,
        (true, FType::Bf16) => {
            return Err("16-bit bf16 result of a non-rounding SFU function is unmeasured".into())
        }
        (true, _) => FType::F16,
    };
    Ok(Kind::Sfu {
        func,
        src_ty,
        dst_ty,
        dst: d,
        src: s,
        m: FMod {
            abs,
            neg,
            bf16: false,
        },
    })
}

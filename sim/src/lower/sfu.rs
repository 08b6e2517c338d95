//! Special-function unit (byte0 0x2f/0xaf, 10 bytes).
//!
//! Function, source type, modifiers and result type as measured on M4 by
//! niklassheth/agx-re EXP-M4-54-sfu-source-controls (RESULTS.md, HARDWARE.json,
//! MIXED.json) and EXP-M4-55-sqrt-sine-assist:
//! - function by (byte0 bit7, byte1 class): af/0 rcp, af/1 rsqrt, af/2 exp2,
//!   2f/0 rounding (byte8 bits 7:1 = 1: floor), 2f/1 sqrt factor, 2f/2 log2,
//!   2f/3 sine factor; af/3 matched rsqrt on the EXP-M4-55 edge vector;
//! - ordinary form (byte6 bit7 set): source type byte6 bits 4:3, release bit5,
//!   abs byte7 bit7, negate byte8 bit0;
//! - reciprocal form: source type byte7 bits 3:2, release byte6 bit4, abs
//!   byte8 bit6; no negate (native rcp_*_neg kernels negate with a separate
//!   instruction; their byte4 bit0, like k_sqrt's, leaves the result unchanged);
//! - type codes 0 bf16, 1 f16, 2 f32; 16-bit sources are the register's low half;
//! - result f16 (low half of dst) where the native half-result kernels differ
//!   from the float-result ones: ordinary byte7 bit5, reciprocal byte8 bit4
//!   (with byte7 bit1). Native diff, inferred.
//!
//! The `agx16_isa` table does not split these bits into fields yet
//! (sim/ISA-REQUESTS.md #1), so they are read from the byte-wide field values.

use super::{check, src};
use crate::core::ops::{Dst, FMod, FType, Kind, Part, Src};
use crate::fp::sfu::SfuFunc;
use agx16_isa::{Instr, Role};

fn bit(v: u64, b: u32) -> bool {
    v >> b & 1 != 0
}

pub fn lower(i: &Instr) -> Result<Kind, String> {
    let f = |n: &str| i.field(n).unwrap_or(0);
    let rcp_form = i.form.name == "sfu_rcp";
    let (fn_hi, class) = (f("fn_hi"), f("fnclass"));
    let (lo, hi, b7, b8, b4) = (f("fnsel_lo"), f("fnsel_hi"), f("precsel"), f("roundmode"), f("src_class"));
    // byte6 = lo | rel<<4 | hi<<5 (rcp) or lo | rel<<5 | hi<<6 (ordinary)
    let byte6 = if rcp_form { lo | f("rel") << 4 | hi << 5 } else { lo | f("rel") << 5 | hi << 6 | 0x80 };
    check::fields(
        i,
        &["fn_hi", "fnclass", "fnsel_lo", "fnsel_hi", "precsel", "roundmode", "src_class"],
        &[("src_cache", &[0x15]), ("sched_flag", &[0]), ("dst_b0", &[0, 1]), ("src_b01", &[0, 2])],
    )?;
    let (src_ty, abs, neg, f16_result);
    if rcp_form {
        // byte6: bit1 measured inert (EXP-M4-54 b6_02 / b6_12 mutations); others clear.
        if byte6 & !0x12 != 0 {
            return Err(format!("reciprocal byte6 {byte6:#04x}: bits other than 1 and 4 are unmeasured"));
        }
        if b7 & !0x0e != 0x40 || b4 & !1 != 0x02 || b8 & !0x50 != 0x20 {
            return Err(format!("reciprocal controls b4={b4:#x} b7={b7:#x} b8={b8:#x} are unmeasured"));
        }
        src_ty = (b7 >> 2) & 3;
        abs = bit(b8, 6);
        neg = false;
        f16_result = bit(b8, 4);
        if bit(b7, 1) != f16_result {
            return Err(format!("reciprocal b7 bit1 ({b7:#x}) without the matching result type is unmeasured"));
        }
    } else {
        // byte6 bit1 measured inert on the root classes (EXP-M4-55 90/92/b0/b2);
        // byte6 bit2 and byte4 bit0 appear in native kernels (half->half 0xac,
        // k_sqrt byte4 0x03) whose outputs the f32-evaluate-then-round model
        // reproduces: inert for the model.
        if byte6 & 0x41 != 0 || b7 & !0xa0 != 0x40 || b4 & !1 != 0x02 {
            return Err(format!("SFU controls b4={b4:#x} b6={byte6:#x} b7={b7:#x} are unmeasured"));
        }
        src_ty = (byte6 >> 3) & 3;
        abs = bit(b7, 7);
        f16_result = bit(b7, 5);
        neg = bit(b8, 0);
    }
    let func = match (fn_hi, class, b8 >> 1) {
        (1, 0, _) => SfuFunc::Rcp,
        (1, 1, 0) | (1, 3, 0) => SfuFunc::Rsqrt,
        (1, 2, 0) => SfuFunc::Exp2,
        (0, 0, 1) => SfuFunc::Floor,
        (0, 1, 0) => SfuFunc::SqrtFactor,
        (0, 2, 0) => SfuFunc::Log2,
        (0, 3, 0) => SfuFunc::SinFactor,
        (h, c, m) => return Err(format!("SFU function (byte0 bit7 {h}, class {c}, byte8 mode {m:#x}) is unmeasured")),
    };
    let src_ty = match src_ty {
        0 => FType::Bf16,
        1 => FType::F16,
        2 => FType::F32,
        t => return Err(format!("SFU source type code {t} is unmeasured")),
    };
    // 16-bit operands name a half register: dst byte3 bit0 and src byte5 bit1
    // select the high half (EXP-M4-54 half kernels read r1.lo and write r1.hi,
    // byte3 0x03 / byte5 0x04, and alu kernels read r1.hi, byte5 0x06; measured).
    let src_hi = f("src_b01") == 2;
    let dst_hi = f("dst_b0") == 1;
    if (src_hi && src_ty == FType::F32) || (dst_hi && !f16_result) {
        return Err("high-half select on a 32-bit SFU operand is unmeasured".into());
    }
    let s = match src(i, Role::SrcA)? {
        Src::Gpr(r, _) if src_ty == FType::F32 => Src::Gpr(r, Part::Full),
        Src::Gpr(r, _) => Src::Gpr(r, if src_hi { Part::Hi } else { Part::Lo }),
        other => other,
    };
    let d = match src(i, Role::Dst)? {
        Src::Gpr(reg, _) if f16_result => Dst { reg, part: if dst_hi { Part::Hi } else { Part::Lo } },
        Src::Gpr(reg, _) => Dst { reg, part: Part::Full },
        _ => return Err("SFU destination is not a register".into()),
    };
    Ok(Kind::Sfu {
        func,
        src_ty,
        dst_ty: if f16_result { FType::F16 } else { FType::F32 },
        dst: d,
        src: s,
        m: FMod { abs, neg },
    })
}

//! NIR ALU instructions → IR ops (after scalarisation and 32-bit booleans).

use super::import::{cstr, Importer};
use crate::error::CompileError;
use crate::ir::{Cmp, Op, Sfu, Src, Type};
use agx16_mesa_sys as m;

/// The IR type of an ALU result from NIR's output type and the def's bit size.
fn result_type(op: m::nir_op, bits: u8) -> Result<Type, CompileError> {
    let out = unsafe { m::nir_op_infos[op as usize].output_type };
    let base = out & 0x86; // NIR_ALU_TYPE_BASE_TYPE_MASK
    Ok(match (base, bits) {
        (0x80, 32) => Type::F32,
        (0x80, 16) => Type::F16,
        (0x06, 32) | (0x06, 1) => Type::Bool,
        (_, 32) => Type::I32,
        (_, 16) => Type::I16,
        (_, b) => return Err(CompileError::Unsupported(format!("{b}-bit ALU result"))),
    })
}

fn cmp(c: Cmp) -> Op {
    Op::FCmp(c)
}

/// IR op for a NIR op name (plus how sources are modified).
enum Map {
    Op(Op),
    Neg,
    Abs,
    Sat,
    Sub,
    INeg,
    IAbs,
    /// ufind_msb / ifind_msb (Mesa 25 lowers the msb searches only onto uclz; find_lsb is
    /// Mesa's `lower_find_lsb`, ufind_msb(x & -x), nir/options.rs).
    FindBit(FindBit),
    /// fsin (false) / fcos (true).
    SinCos(bool),
    Vec,
    BoolTo(u32),
    /// unpack_half_2x16_split_x (false) / _y (true): the half in bits 0..15 / 16..31 as f32.
    UnpackHalf(bool),
    /// pack_half_2x16_split (false) / pack_half_2x16_rtz_split (true).
    PackHalf(bool),
    /// Unsigned saturating subtract / add (nir_opt_algebraic forms usub_sat from
    /// `a - umin(a, b)` shapes; no saturating form is selected).
    USubSat,
    UAddSat,
}

#[derive(Clone, Copy)]
enum FindBit {
    UMsb,
    IMsb,
}

/// The index of the highest set bit of `x`, -1 for 0, through the float exponent: the bits of
/// `x & !(x >> 1)` are never adjacent, so converting it to f32 cannot round up to the next
/// power of two and its exponent is exactly the index; 0 converts to 0.0, whose exponent
/// field gives -127, and max(e, -1) turns that into -1.
fn ufind_msb(b: &mut crate::ir::Builder, x: Src) -> crate::ir::Value {
    let half = b.alu(Op::Shr { signed: false }, Type::I32, [x, Src::imm(1)]);
    let keep = b.alu(Op::Not, Type::I32, [Src::val(half)]);
    let y = b.alu(Op::And, Type::I32, [x, Src::val(keep)]);
    let f = b.alu(Op::I2F { signed: false }, Type::F32, [Src::val(y)]);
    let bits = b.alu(Op::Copy, Type::I32, [Src::val(f)]);
    let e = b.alu(
        Op::Shr { signed: false },
        Type::I32,
        [Src::val(bits), Src::imm(23)],
    );
    let i = b.alu(
        Op::IAdd,
        Type::I32,
        [Src::val(e), Src::imm((-127i32) as u32)],
    );
    b.alu(
        Op::IMax { signed: true },
        Type::I32,
        [Src::val(i), Src::imm(u32::MAX)],
    )
}

fn find_bit(b: &mut crate::ir::Builder, which: FindBit, x: Src) -> crate::ir::Value {
    match which {
        FindBit::UMsb => ufind_msb(b, x),
        // GLSL findMSB(int): for negative x the highest clear bit, i.e. that of !x.
        FindBit::IMsb => {
            let sign = b.alu(Op::Shr { signed: true }, Type::I32, [x, Src::imm(31)]);
            let y = b.alu(Op::Xor, Type::I32, [x, Src::val(sign)]);
            ufind_msb(b, Src::val(y))
        }
    }
}

/// sin(x) (cos: sin(x + pi/2)) with G16's sine assist, as Apple's compiler builds it on the
/// `sin_factor` SFU function (EXP-M4-55 k_sin): t = x * 2/pi (+1 for cos) is reduced to
/// s = t - 4 * floor(t/4 + 1/2) in [-2, 2), folded into [-1, 1] by s' = sign(s) * (1 - ||s| - 1|)
/// (sin(pi/2 * s) is symmetric about s = ±1), and sin(pi/2 * s') = s' * sin_factor(s');
/// |s| is clamped to 2 for arguments too large for the reduction to be exact.
/// (Mesa's lower_sincos polynomial misses the corpus's 2^-11 bound by about 1.3x.)
fn sin_cos(b: &mut crate::ir::Builder, cos: bool, x: Src) -> crate::ir::Value {
    let f = |v: f32| Src::imm(v.to_bits());
    let mut t = b.alu(Op::FMul, Type::F32, [x, f(std::f32::consts::FRAC_2_PI)]);
    if cos {
        t = b.alu(Op::FAdd, Type::F32, [Src::val(t), f(1.0)]);
    }
    let q = b.alu(Op::FMul, Type::F32, [Src::val(t), f(0.25)]);
    let q = b.alu(Op::FAdd, Type::F32, [Src::val(q), f(0.5)]);
    let q = b.sfu(crate::ir::Sfu::Floor, q);
    // t - 4q: 4q is exact and the difference is at most 2 in magnitude (no ffma: the model
    // does not run its template yet).
    let q4 = b.alu(Op::FMul, Type::F32, [Src::val(q), f(4.0)]);
    let neg_q4 = Src {
        neg: true,
        ..Src::val(q4)
    };
    let s = b.alu(Op::FAdd, Type::F32, [Src::val(t), neg_q4]);
    let a = b.alu(
        Op::Copy,
        Type::F32,
        [Src {
            abs: true,
            ..Src::val(s)
        }],
    );
    // |s| <= 2 only while t/4 + 1/2 is exact: from |t| = 2^24 on its rounding can leave
    // |s| = 4 (cos of 2^25..2^26 came out NaN: dEQP precision.cos.highp_vertex). The folded
    // argument stays in [-1, 1] for every input (GLSL leaves the value for large x
    // undefined; dEQP accepts [-1, 1]).
    let a = b.alu(Op::FMin, Type::F32, [Src::val(a), f(2.0)]);
    let u = b.alu(Op::FAdd, Type::F32, [Src::val(a), f(-1.0)]);
    let nu = b.alu(
        Op::Copy,
        Type::F32,
        [Src {
            neg: true,
            abs: true,
            ..Src::val(u)
        }],
    );
    let v = b.alu(Op::FAdd, Type::F32, [Src::val(nu), f(1.0)]);
    let sign = b.alu(Op::And, Type::F32, [Src::val(s), Src::imm(0x8000_0000)]);
    let sp = b.alu(Op::Or, Type::F32, [Src::val(v), Src::val(sign)]);
    let k = b.sfu(crate::ir::Sfu::SinFactor, sp);
    b.alu(Op::FMul, Type::F32, [Src::val(sp), Src::val(k)])
}

fn map(name: &str) -> Option<Map> {
    use Map::*;
    Some(match name {
        "fadd" => Op(crate::ir::Op::FAdd),
        "fmul" => Op(crate::ir::Op::FMul),
        "ffma" => Op(crate::ir::Op::FFma),
        "fmin" => Op(crate::ir::Op::FMin),
        "fmax" => Op(crate::ir::Op::FMax),
        "fneg" => Neg,
        "fabs" => Abs,
        "fsat" => Sat,
        "fsub" => Sub,
        "frcp" => Op(crate::ir::Op::Sfu(Sfu::Rcp)),
        "frsq" => Op(crate::ir::Op::Sfu(Sfu::Rsqrt)),
        "fsqrt" => Op(crate::ir::Op::Sfu(Sfu::Sqrt)),
        "fexp2" => Op(crate::ir::Op::Sfu(Sfu::Exp2)),
        "flog2" => Op(crate::ir::Op::Sfu(Sfu::Log2)),
        "ffloor" => Op(crate::ir::Op::Sfu(Sfu::Floor)),
        "fceil" => Op(crate::ir::Op::Sfu(Sfu::Ceil)),
        "ftrunc" => Op(crate::ir::Op::Sfu(Sfu::Trunc)),
        "fround_even" => Op(crate::ir::Op::Sfu(Sfu::Rint)),
        "flt32" | "flt" => Op(cmp(Cmp::Lt)),
        "fge32" | "fge" => Op(cmp(Cmp::Ge)),
        "feq32" | "feq" => Op(cmp(Cmp::Eq)),
        "fneu32" | "fneu" => Op(cmp(Cmp::Ne)),
        "ilt32" | "ilt" => Op(crate::ir::Op::ICmp {
            cond: Cmp::Lt,
            signed: true,
        }),
        "ige32" | "ige" => Op(crate::ir::Op::ICmp {
            cond: Cmp::Ge,
            signed: true,
        }),
        "ieq32" | "ieq" => Op(crate::ir::Op::ICmp {
            cond: Cmp::Eq,
            signed: true,
        }),
        "ine32" | "ine" => Op(crate::ir::Op::ICmp {
            cond: Cmp::Ne,
            signed: true,
        }),
        "ult32" | "ult" => Op(crate::ir::Op::ICmp {
            cond: Cmp::Lt,
            signed: false,
        }),
        "uge32" | "uge" => Op(crate::ir::Op::ICmp {
            cond: Cmp::Ge,
            signed: false,
        }),
        "iadd" => Op(crate::ir::Op::IAdd),
        "isub" => Op(crate::ir::Op::ISub),
        "ineg" => INeg,
        // Mesa 25 lowers 32-bit iabs only in nir_opt_algebraic_late, which prepare.rs does not
        // run (in nir_opt_algebraic `lower_iabs` only stops it being formed).
        "iabs" => IAbs,
        "fsin" => SinCos(false),
        "fcos" => SinCos(true),
        "ufind_msb" => FindBit(self::FindBit::UMsb),
        "ifind_msb" => FindBit(self::FindBit::IMsb),
        "imul" => Op(crate::ir::Op::IMul),
        "imin" => Op(crate::ir::Op::IMin { signed: true }),
        "imax" => Op(crate::ir::Op::IMax { signed: true }),
        "umin" => Op(crate::ir::Op::IMin { signed: false }),
        "umax" => Op(crate::ir::Op::IMax { signed: false }),
        "iand" => Op(crate::ir::Op::And),
        "ior" => Op(crate::ir::Op::Or),
        "ixor" => Op(crate::ir::Op::Xor),
        "inot" => Op(crate::ir::Op::Not),
        "ishl" => Op(crate::ir::Op::Shl),
        "ishr" => Op(crate::ir::Op::Shr { signed: true }),
        "ushr" => Op(crate::ir::Op::Shr { signed: false }),
        "f2i32" | "f2i16" => Op(crate::ir::Op::F2I { signed: true }),
        "f2u32" | "f2u16" => Op(crate::ir::Op::F2I { signed: false }),
        "i2f32" | "i2f16" => Op(crate::ir::Op::I2F { signed: true }),
        "u2f32" | "u2f16" => Op(crate::ir::Op::I2F { signed: false }),
        "f2f16" | "f2f32" | "f2f16_rtne" => Op(crate::ir::Op::FConv),
        "b32csel" | "bcsel" => Op(crate::ir::Op::Select),
        "mov" => Op(crate::ir::Op::Copy),
        "vec2" | "vec3" | "vec4" => Vec,
        "b2f32" => BoolTo(1.0f32.to_bits()),
        "b2i32" => BoolTo(1),
        // Mesa's lower_(un)pack_half_2x16 split the vector forms into these (options.rs);
        // half.rs converts with integer and float arithmetic, exact for every input.
        "unpack_half_2x16_split_x" => UnpackHalf(false),
        "unpack_half_2x16_split_y" => UnpackHalf(true),
        "pack_half_2x16_split" => PackHalf(false),
        "pack_half_2x16_rtz_split" => PackHalf(true),
        "usub_sat" => USubSat,
        "uadd_sat" => UAddSat,
        _ => return None,
    })
}

pub(super) unsafe fn import(
    im: &mut Importer,
    a: *const m::nir_alu_instr,
) -> Result<(), CompileError> {
    unsafe {
        let op = (*a).op;
        let info = &m::nir_op_infos[op as usize];
        let name = cstr(info.name);
        let bits = (*a).def.bit_size;
        let comps = (*a).def.num_components;
        let ty = result_type(op, bits)?;
        let n = info.num_inputs as usize;
        let srcs = (*a).src.as_slice(n);
        if name == "pack_unorm_4x8" {
            // GL packUnorm4x8 with float ALU ops (no validated shift-left; abi.rs).
            let x = &srcs[0];
            let mut c = [Src::imm(0); 4];
            for (k, ck) in c.iter_mut().enumerate() {
                *ck = im.comp(x.src.ssa, x.swizzle[k])?;
            }
            let v = crate::abi::pack_unorm_4x8(&mut im.b, c);
            im.define(&(*a).def, v);
            return Ok(());
        }
        let mut s = Vec::with_capacity(n);
        for x in srcs {
            s.push(im.comp(x.src.ssa, x.swizzle[0])?);
        }
        let mapped =
            map(&name).ok_or_else(|| CompileError::Unsupported(format!("NIR ALU op `{name}`")))?;
        if comps != 1 && !matches!(mapped, Map::Vec) {
            return Err(CompileError::Unsupported(format!(
                "vector NIR ALU op `{name}` (scalarise first)"
            )));
        }
        let neg = |x: Src| Src { neg: !x.neg, ..x };
        let v = match mapped {
            Map::Op(o) => im.b.alu(o, ty, s),
            Map::Neg => im.b.alu(Op::Copy, ty, [neg(s[0])]),
            Map::Abs => im.b.alu(
                Op::Copy,
                ty,
                [Src {
                    abs: true,
                    neg: false,
                    ..s[0]
                }],
            ),
            Map::Sat => im.b.saturate(ty, s[0]),
            Map::Sub => im.b.alu(Op::FAdd, ty, [s[0], neg(s[1])]),
            Map::INeg => im.b.alu(Op::ISub, ty, [Src::imm(0), s[0]]),
            // |x| = max(x, 0 - x) (signed; INT_MIN stays INT_MIN, as GLSL's abs wraps).
            Map::IAbs => {
                let n = im.b.alu(Op::ISub, ty, [Src::imm(0), s[0]]);
                im.b.alu(Op::IMax { signed: true }, ty, [s[0], Src::val(n)])
            }
            Map::FindBit(w) => find_bit(&mut im.b, w, s[0]),
            Map::SinCos(cos) => sin_cos(&mut im.b, cos, s[0]),
            Map::Vec => im.b.collect(ty, &s),
            Map::BoolTo(one) => im.b.alu(Op::Select, ty, [s[0], Src::imm(one), Src::imm(0)]),
            Map::UnpackHalf(high) => crate::half::half_to_f32(&mut im.b, s[0], high),
            Map::PackHalf(rtz) => crate::half::pack_half_2x16(&mut im.b, s[0], s[1], rtz),
            // a - min(a, b): 0 when b >= a. a + min(b, ~a): ~a is the headroom below 2^32.
            Map::USubSat => {
                let m = im.b.alu(Op::IMin { signed: false }, ty, [s[0], s[1]]);
                im.b.alu(Op::ISub, ty, [s[0], Src::val(m)])
            }
            Map::UAddSat => {
                let room = im.b.alu(Op::Not, ty, [s[0]]);
                let m =
                    im.b.alu(Op::IMin { signed: false }, ty, [s[1], Src::val(room)]);
                im.b.alu(Op::IAdd, ty, [s[0], Src::val(m)])
            }
        };
        im.define(&(*a).def, v);
        Ok(())
    }
}

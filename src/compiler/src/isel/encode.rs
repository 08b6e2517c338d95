//! Encoding MIR through the ISA table.

use super::choose::{form_name, is_imm, is_uniform};
use crate::error::CompileError;
use crate::ir::{Op, SysVal};
use crate::mir::{MInstr, MItem, MOperand, MProgram, MSrc, Reg};
use agx16_isa::{form_by_name, Instr, Kind, Part, Role, SlotSet};

/// Machine code and what it holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoded {
    pub code: Vec<u8>,
    pub instrs: u32,
}

fn err(i: &MInstr, why: impl Into<String>) -> CompileError {
    CompileError::NoForm {
        instr: i.to_string(),
        why: why.into(),
    }
}

fn enc_err(i: &MInstr, e: agx16_isa::EncodeError) -> CompileError {
    CompileError::Encode {
        instr: i.to_string(),
        why: e.to_string(),
    }
}

fn part(r: Reg) -> Part {
    match (r.halves, r.half % 2) {
        (1, 0) => Part::Lo,
        (1, _) => Part::Hi,
        _ => Part::Full,
    }
}

fn reg_of(i: &MInstr, s: &MSrc) -> Result<Reg, CompileError> {
    match s.op {
        MOperand::Reg(r) if r.halves <= 2 => Ok(r),
        MOperand::Reg(r) => Err(err(
            i,
            format!("tuple operand {r} (vector memory is split before allocation)"),
        )),
        _ => Err(err(i, "expected a register operand")),
    }
}

/// Set the field of `kind` (first match) to `v`.
fn set_kind(x: &mut Instr, kind: Kind, v: u64) -> Result<(), agx16_isa::EncodeError> {
    let name = x
        .form
        .fields
        .iter()
        .find(|f| f.kind == kind)
        .map(|f| f.name);
    match name {
        Some(n) => x.set(n, v).map(|_| ()),
        None => Err(agx16_isa::EncodeError::Other(format!(
            "{} has no {kind:?} field",
            x.form.name
        ))),
    }
}

/// Apple-compiled instructions from hardware-run programs (the executable oracles under
/// ../shared/oracles/sim), one per form: the template whose modifier and raw fields (bits whose
/// meaning is not established) are kept, while operands, scoreboard and lifetime fields are
/// overwritten. Sources (captured bytes, measured outputs):
/// - M4 (T8132): get_sr, fadd, device_load/store (+ direct store) from niklassheth/agx-re
///   EXP-M4-54 kernels; ilogic XOR from EXP-M4-35 `load_xor_load_distinct`, iadd and iadd_reg
///   from EXP-M4-35 `load_xor_load_retain`; fadd_imm
///   from EXP-M4-44 (falu2i `in + 1.5`, slot field cleared); ffma from EXP-M4-55 `k_sin`.
/// - A18 Pro (G17P, same Apple9 encoding; behaviour on M4 inferred): fmul from
///   ADevWithAnIdea/agx-re EXP-0003 `mul`, mov_imm from EXP-0010 `eret4`.
fn template(name: &str) -> Option<&'static str> {
    Some(match name {
        "get_sr" => "1ca01006",
        // EXP-M4-35 `load_xor_load_retain` 0x52 (M4, hash-matched): r1 = r3 + 64 with a 32-bit
        // result. (The distinct kernel's `9f 11 54 04 03 4a 08 04 ..` writes a 16-bit sum into
        // a half: agx16-isa `iadd` dst_size/dst_hi, fitted to load_xor_chain5.)
        "iadd" => "9f015402028018881104",
        "ilogic" => "0b051e01020800800000",
        // EXP-M4-35 `load_xor_load_retain` 0x48 (M4, hash-matched output): r0 = r1 + r0, both
        // GPRs (byte9 bit 2 set; with it clear B is a uniform, agx16-isa `iadd_ru`).
        "iadd_reg" => "9f015400020400a81705",
        // Conversions in the shape the ISA table cites as measured (ADevWithAnIdea/agx-re
        // EXP-0013/0144, niklassheth/agx-re EXP-M4-42/43), bytes from EXP-M4-13 programs:
        // int -> f32 `a7 07 54 .. 03 .. ac 20`, f32 -> int (toward zero) `27 07 54 .. 03 .. b4 48 03 00`.
        "i2f" => "a70754220324ac20",
        "f2i" => "2707540e031cb4480300",
        "device_load" => "6700440001012000510100404600",
        "device_store" => "e700540002012000110000901100",
        // Direct store of a pending slot-6 load (addr_mode 0x56; EXP-M4-35/36, measured).
        "device_store_direct" => "e700560003012100110000901100",
        "fadd" => "09051c0100c0",
        "fmul" => "09051d0100c0",
        "ffma" => "29812609210a02c2",
        "fadd_imm" => "09b914018000",
        // The fadd_imm bytes above with the op selector (bits 16..18 = 5) agx16-isa gives
        // `fmul_imm` (hardware row); flags = 1 as measured in EXP-M4-44. The one Apple fmul_imm
        // in a hardware-run program (EXP-M4-55 k_sqrt_precise `59 a1 25 85 80 00`) has flags = 2,
        // whose meaning is not established (agx16-sim accepts only flags = 1).
        "fmul_imm" => "09b915018000",
        // GravityLinux/mesa agx_apple9 packer golden vector (validated on T8132 by that
        // backend's runs; agx16-isa tests/packer_vectors.rs `minmax_liveness`): r4 = umin(r2, r3).
        "minmax" => "420506070500",
        // The iadd_reg bytes with byte 0 = 0x1f, agx16-isa's `isub_reg` (hardware row, same
        // field layout; GravityLinux/mesa pack_iadd's subtract, run on T8132).
        "isub_reg" => "1f015400020400a81705",
        // The hadd bytes with the op selector 5 agx16-isa gives `hmul` (hardware row).
        "hmul" => "10031d0200c0",
        "mov_imm" => "1c07",
        // Apple-compiled `ishr_imm r3, r3, #8` of niklassheth/agx-re EXP-M4-13 dec2_k_ashr_amt;
        // every amount 0..31 on r0–r15 validated on T8132 (GravityLinux/mesa pack_ishr_imm,
        // EXP-0139, as cited by agx16-isa); agx16-sim executes it, releasing the source.
        "ishr_imm" => "a7015406020c20786200",
        // Apple-compiled `9b 38 01 08` (r9 = u28.l) of niklassheth/agx-re EXP-M4-13
        // dec2_n8__g_bary; the form and its b3 = 0x08 are measured by ADevWithAnIdea/agx-re
        // EXP-0020 (agx16-isa hardware row, agx16-sim accepts b3 = 0x08 only).
        "uniform_mov" => "9b380108",
        // ADevWithAnIdea/agx-re EXP-0010 `prodloop` (A18 Pro, run on hardware): r1 = 1.
        "mov_imm32" => "1c81220000000000",
        // EXP-M4-54 half kernels (M4, measured): 16-bit load/store and hadd.
        "device_load:16" => "6700440201002000410100404400",
        "device_store:16" => "e700540202002000010000101100",
        "device_store_direct:16" => "e700560203002100010000101100",
        "hadd" => "10031c0200c0",
        // EXP-M4-54 native float SFU kernels (`*_float_reuse`: r2 = f(r0), measured).
        "sfu:floor" => "2f005604020090400200",
        "sfu:log2" => "2f025604020090400000",
        "sfu:exp2" => "af025604020090400000",
        "sfu:rsqrt" => "af015604020090400000",
        "sfu_rcp" => "af005604020000482000",
        // EXP-M4-55 `k_sqrt` (M4, hash-matched output over 32 edge inputs): r2 = the square-root
        // factor of r0 (0x2f class 1), which Apple's compiler multiplies by r0 for sqrt.
        "sfu:sqrt_factor" => "2f015604030092400000",
        // EXP-M4-55 `k_sin` (M4, hash-matched output over 32 edge inputs): r2 = the sine factor
        // of r3 (0x2f class 3), multiplied by r3 for sin(pi/2 * r3).
        "sfu:sin_factor" => "2f035404030c92400000",
        // Scratch word store/load: no Apple-compiled instance exists; these are the T8132
        // packer layouts of GravityLinux/mesa agx_apple9_ir.c (SPILL_STORE: word 200 of r70,
        // SPILL_LOAD: word 300 into r70; their spilling shaders ran on T8132), as
        // agx16-isa tests/scratch.rs checks them. Every bit outside word/register/slot is 0.
        "spill_store" => "8b0d0f00221104080000",
        "spill_load" => "6cd8016108000010",
        _ => return None,
    })
}

/// Forms whose template is the T8132 compiler packer's shape (GravityLinux/mesa
/// agx_apple9_ir.c `pack_shift`, its test vectors decoded in agx16-sim's int_shift_pack
/// tests; agx16-isa hardware rows, executed by agx16-sim): logical/left shifts by an
/// immediate or a register and the arithmetic shift by a register. Operands, scoreboard and
/// lifetime fields are set by selection.
fn packer_template(name: &str) -> Option<Instr> {
    if name == "imad" {
        // GravityLinux/mesa agx_apple9_ir.c pack_imad: `9f 00 54 <dst<<1> 02 .. .. .. d0 2f 2a
        // 00` (INT_MAD_EXTENDED, hardware evidence in agx_apple9_machine.c; multiply selector
        // 0xd = low 32 bits of a * b + c). The packer's base bytes release every source
        // (byte 9 0x2f); this template starts with the release bits clear and selection sets
        // each source's release or keep bit.
        let mut x = Instr::build(
            name,
            &[
                ("b2_fmt", 0x15),
                ("opmode", 2),
                ("mulsel", 0xd),
                ("b9_0", 1),
                ("b9_hi", 2),
                ("b10", 0x2a),
            ],
        )
        .ok()?;
        for f in ["rel_a", "rel_b", "rel_c"] {
            x.set(f, 0).ok()?;
        }
        return Some(x);
    }
    if name == "derivative" {
        // GravityLinux/mesa agx_apple9_ir.c DERIVATIVE: `37 (05 | axis<<1) 54 <dst<<1> 03
        // <(src&63)<<2> (90 | keep<<1 | src>>6) 40 00 00` (agx_apple9_machine.c: HARDWARE; its
        // GLES suites, derivate.* included, ran on M4). Axis, registers and keep are set by
        // selection; the saturate bit stays clear.
        return Instr::build(
            name,
            &[
                ("b1_0", 1),
                ("b1_hi", 1),
                ("b2", 0x54),
                ("b4", 3),
                ("b6_hi", 0x24),
                ("b7_hi", 8),
            ],
        )
        .ok();
    }
    let tail: &[(&str, u64)] = match name {
        "ishr_reg" => &[("b8", 0xe2)],
        "ushr_imm" | "ushr_reg" | "ishl_imm" | "ishl_reg" => &[("b8", 0xf0), ("b9_hi", 4)],
        _ => return None,
    };
    let mut x = Instr::build(name, &[("mode", 0x15), ("src_class", 2)]).ok()?;
    for (f, v) in tail {
        x.set(f, *v).ok()?;
    }
    Some(x)
}

fn from_template(name: &str) -> Option<Instr> {
    if let Some(x) = packer_template(name) {
        return Some(x);
    }
    let hex = template(name)?;
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|k| u8::from_str_radix(&hex[k..k + 2], 16).ok())
        .collect::<Option<_>>()?;
    let mut x = agx16_isa::decode_at(&bytes, 0).ok()?;
    let form_name = name
        .split(':')
        .next()
        .unwrap_or(name)
        .trim_end_matches("_direct");
    if x.form.name != form_name {
        return None;
    }
    // Clear what the compiler decides: scoreboard, lifetime bits.
    let clear: Vec<&str> = x
        .form
        .fields
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                Kind::Wait(_) | Kind::Release(_) | Kind::Publish | Kind::Produce(_)
            )
        })
        .map(|f| f.name)
        .collect();
    for n in clear {
        x.set(n, 0).ok()?;
    }
    Some(x)
}

/// `select`, with the 2-byte `mov_imm` allowed or not (`encode_program` forbids it where the
/// bytes that follow would make the pair decode as another form).
fn select_with(i: &MInstr, allow_compact: bool) -> Result<Instr, CompileError> {
    if matches!(
        i.op,
        Op::StoreOutput { .. }
            | Op::LoadVarying { .. }
            | Op::StoreTile { .. }
            | Op::LoadTile { .. }
            | Op::Coverage
            | Op::SampleMask { .. }
            | Op::DepthStore
    ) {
        return Err(CompileError::Internal(format!(
            "{i}: graphics IO is selected by gfx::select"
        )));
    }
    let name = form_name(
        i.op,
        i.ty,
        is_imm(i.srcs.first().map(|s| &s.op)),
        is_imm(i.srcs.get(1).map(|s| &s.op)),
        is_uniform(i.srcs.first().map(|s| &s.op)),
    )
    .ok_or_else(|| err(i, format!("no validated form for {} on {}", i.op, i.ty)))?;
    let compact_move = allow_compact
        && matches!((i.op, i.srcs.first().map(|s| s.op), i.dst), (Op::Copy, Some(MOperand::Imm(v)), Some(d)) if v <= 0x7f && d.gpr() < 16 && d.halves == 2);
    let name = if compact_move { "mov_imm" } else { name };
    let fname = name.split(':').next().unwrap_or(name);
    let form = form_by_name(fname)
        .ok_or_else(|| err(i, format!("form {fname} missing from the table")))?;
    if !form.emittable() {
        return Err(err(i, format!("form {name} is not hardware-validated")));
    }
    if i.sat {
        return Err(err(i, "saturate has no validated encoding"));
    }
    if i.srcs.iter().any(|s| s.abs) && !matches!(i.op, Op::Sfu(_)) {
        return Err(err(i, "abs source modifier has no validated encoding"));
    }
    if i.op == Op::Copy && i.srcs.first().is_some_and(|s| s.neg) {
        return Err(err(i, "a negated copy has no validated encoding"));
    }
    // A store of a still-pending load result uses the direct mode, which has no wait field.
    let direct = i.op.writes_memory() && i.wait == 1 << 5;
    let is16 = match i.op {
        Op::LoadGlobal { .. } => i.ty.is_16bit(),
        Op::StoreGlobal { .. } => i.srcs.get(1).is_some_and(|s| s.ty.is_16bit()),
        _ => false,
    };
    let tname = match (direct, is16) {
        (true, false) => "device_store_direct".to_string(),
        (true, true) => "device_store_direct:16".to_string(),
        (false, true) => format!("{name}:16"),
        (false, false) => name.to_string(),
    };
    let tname = tname.as_str();
    let mut x = from_template(tname)
        .ok_or_else(|| err(i, format!("no hardware-run template for {tname}")))?;
    let _ = form;
    let e =
        |r: Result<&mut Instr, agx16_isa::EncodeError>| r.map(|_| ()).map_err(|e| enc_err(i, e));
    if let Some(d) = i.dst {
        if !matches!(i.op, Op::LoadGlobal { .. }) || d.halves == 2 {
            e(x.set_gpr(Role::Dst, d.gpr(), part(d)))?;
        }
    }
    // Sources 0 and 1 trade places when only the first carries the negate a form puts on its
    // B source (addition and multiplication commute); their release bits go with them.
    let mut swapped = false;
    match i.op {
        Op::SysVal(SysVal::GlobalId(0)) => {
            e(x.set("sr_sel", 0xa0))?;
        }
        // The vertex id: selector 0xdd, the only input EXP-0008 render_interp's Apple-compiled
        // vertex body reads (ADevWithAnIdea/agx-re kernels/render_interp.metal,
        // raw/render_hw.txt, G17P; agx16-isa SPECIAL_REGS, corpus-only) and the one
        // agx16-sim's render model supplies to vertex bodies (sim/GFX.md).
        Op::SysVal(SysVal::VertexId) => {
            e(x.set("sr_sel", 0xdd))?;
        }
        // Pixel x / y: selectors 0xa0 / 0xa1 (GravityLinux/mesa agx_compile_apple9.c
        // `apple9_system_source`: NIR load_pixel_coord, a full word; its GLES suites ran
        // gl_FragCoord on T8132), executed by agx16-sim in fragment bodies (sim/GFX.md).
        Op::SysVal(SysVal::PixelCoord(a)) if a < 2 => {
            e(x.set("sr_sel", 0xa0 + a as u64))?;
        }
        // The instance id: selector 0xd8, the T8132 compiler's `load_instance_id` through the
        // same encoding as the vertex id (GravityLinux/mesa agx_compile_apple9.c
        // `apple9_system_source`; its GLES 3.0 sweep on T8132 covers instanced draws),
        // executed by agx16-sim's render model in vertex bodies (sim/GFX.md).
        Op::SysVal(SysVal::InstanceId) => {
            e(x.set("sr_sel", 0xd8))?;
        }
        // The facing word: selector 0xc5, a full-word read like the pixel coordinates, zero
        // for front faces (agx_compile_apple9.c `apple9_lower_bool_scalar`: "the word read of
        // selector 0xc5 reports back-facing"; GLES suites on T8132), executed by agx16-sim in
        // fragment bodies.
        Op::SysVal(SysVal::BackFacing) => {
            e(x.set("sr_sel", 0xc5))?;
        }
        Op::SysVal(s) => {
            return Err(err(
                i,
                format!("{s:?} has no measured special-register selector"),
            ))
        }
        Op::Copy if is_imm(i.srcs.first().map(|s| &s.op)) => {
            let MOperand::Imm(v) = i.srcs[0].op else {
                unreachable!()
            };
            if i.dst.is_some_and(|d| d.halves != 2) {
                return Err(err(i, "16-bit move-immediate has no validated form"));
            }
            e(x.set("imm", v as u64))?;
        }
        Op::Copy if is_uniform(i.srcs.first().map(|s| &s.op)) => {
            let MOperand::Uniform(u) = i.srcs[0].op else {
                unreachable!()
            };
            if i.dst.is_some_and(|d| d.halves != 2) || i.srcs[0].abs {
                return Err(err(i, "only 32-bit uniform moves are selected"));
            }
            let f = x
                .form
                .fields
                .iter()
                .position(|f| f.kind == Kind::Uniform(Role::SrcA))
                .ok_or_else(|| err(i, "uniform_mov has no uniform field"))?;
            let name = x.form.fields[f].name;
            e(x.set(name, u as u64))?;
            e(set_kind(&mut x, Kind::Size(Role::SrcA), 1).map(|_| &mut x))?;
            match x.operand(Role::SrcA).map(|o| o.value) {
                Some(agx16_isa::Operand::Uniform {
                    index,
                    part: Part::Full,
                }) if index == u => {}
                other => return Err(err(i, format!("uniform operand reads back as {other:?}"))),
            }
        }
        Op::Copy => {
            e(x.set_gpr(Role::SrcA, reg_of(i, &i.srcs[0])?.gpr(), Part::Full))?;
            e(x.set("b_imm", 0))?;
        }
        Op::And | Op::Or | Op::Xor | Op::Not => {
            // The truth table comes from agx16-isa's measured LUT encodings (EXP-M4-35 and the
            // table's sources); `not a` reads its operand as both sources.
            let name = match i.op {
                Op::And => "and",
                Op::Or => "or",
                Op::Xor => "xor",
                _ => "not_a",
            };
            let enc = agx16_isa::meaning::logic_encoding(name)
                .ok_or_else(|| err(i, format!("no measured {name} encoding")))?;
            e(x.set("op_base", enc.op_base as u64))?;
            e(x.set("lut_a_sel", enc.lut_a as u64))?;
            e(x.set("lut_b", enc.lut_b as u64))?;
            let a = reg_of(i, &i.srcs[0])?;
            let b = if i.op == Op::Not {
                a
            } else {
                reg_of(i, &i.srcs[1])?
            };
            if i.srcs.iter().any(|s| s.neg || s.abs) || a.halves != 2 || b.halves != 2 {
                return Err(err(i, "logic ops take plain 32-bit registers"));
            }
            e(x.set_gpr(Role::SrcA, a.gpr(), Part::Full))?;
            e(x.set_gpr(Role::SrcB, b.gpr(), Part::Full))?;
            match agx16_isa::meaning::logic_function(&x) {
                Ok((f, _)) if f.name == name => {}
                other => return Err(err(i, format!("logic encoding reads back as {other:?}"))),
            }
        }
        Op::FAdd | Op::FMul | Op::IAdd | Op::ISub => {
            let (mut a, mut b) = (i.srcs[0], i.srcs[1]);
            // fadd/fmul negate B, hadd negates A; addition and multiplication commute.
            let neg_field = if x.form.field_index("a_neg").is_some() {
                "a_neg"
            } else {
                "b_neg"
            };
            let wrong = if neg_field == "a_neg" {
                b.neg && !a.neg
            } else {
                a.neg && !b.neg
            };
            if wrong
                && matches!(i.op, Op::FAdd | Op::FMul)
                && !is_imm(Some(&b.op))
                && !is_imm(Some(&a.op))
            {
                std::mem::swap(&mut a, &mut b);
                swapped = true;
            }
            let bad_neg = if neg_field == "a_neg" { b.neg } else { a.neg };
            if bad_neg || ((a.neg || b.neg) && !matches!(i.op, Op::FAdd | Op::FMul)) {
                return Err(err(i, "negate on this source has no validated encoding"));
            }
            if a.neg {
                e(x.set("a_neg", 1))?;
            }
            let ra = reg_of(i, &a)?;
            e(x.set_gpr(Role::SrcA, ra.gpr(), part(ra)))?;
            match b.op {
                MOperand::Imm(v) if matches!(i.op, Op::FAdd | Op::FMul) => {
                    let v = if b.neg { v ^ 0x8000_0000 } else { v };
                    let packed = agx16_isa::minifloat::encode(f32::from_bits(v))
                        .ok_or_else(|| err(i, "immediate not encodable as minifloat"))?;
                    e(set_kind(&mut x, Kind::ImmF8(Role::SrcB), packed).map(|_| &mut x))?;
                }
                MOperand::Imm(v) => e(x.set("b_imm", v as u64))?,
                _ => {
                    let rb = reg_of(i, &b)?;
                    e(x.set_gpr(Role::SrcB, rb.gpr(), part(rb)))?;
                    if b.neg {
                        e(x.set(neg_field, 1))?;
                    }
                }
            }
        }
        Op::FMin | Op::FMax | Op::IMin { .. } | Op::IMax { .. } => {
            use agx16_isa::meaning::{minmax_function, minmax_selector, MinMaxFn as M};
            let f = match i.op {
                Op::FMin => M::FMin,
                Op::FMax => M::FMax,
                Op::IMin { signed: true } => M::SMin,
                Op::IMin { signed: false } => M::UMin,
                Op::IMax { signed: true } => M::SMax,
                _ => M::UMax,
            };
            let sel = minmax_selector(f)
                .ok_or_else(|| err(i, format!("agx16-isa has no selector for {f:?}")))?;
            e(x.set("sel", sel as u64))?;
            for (k, role) in [Role::SrcA, Role::SrcB].into_iter().enumerate() {
                let s = i.srcs[k];
                if s.neg {
                    return Err(err(i, "min/max source negate has no validated encoding"));
                }
                let r = reg_of(i, &s)?;
                if r.halves != 2 {
                    return Err(err(i, "only 32-bit min/max is selected"));
                }
                e(x.set_gpr(role, r.gpr(), Part::Full))?;
            }
            match minmax_function(&x) {
                Ok((g, _)) if g == f => {}
                other => return Err(err(i, format!("min/max reads back as {other:?}"))),
            }
        }
        Op::Shr { .. } | Op::Shl => {
            let a = reg_of(i, &i.srcs[0])?;
            if a.halves != 2 || i.srcs[0].neg || i.srcs[1].neg {
                return Err(err(i, "shifts take a 32-bit register"));
            }
            e(x.set_gpr(Role::SrcA, a.gpr(), Part::Full))?;
            match i.srcs[1].op {
                MOperand::Imm(n) if n <= 31 => e(x.set("amount", n as u64))?,
                MOperand::Imm(_) => return Err(err(i, "shift amount past 31")),
                _ => {
                    // Register amounts: the hardware reads the low 16 bits and saturates at 32
                    // (agx16-sim's shift contract); opt/shifts.rs masked them to the IR's low
                    // five bits before allocation.
                    let b = reg_of(i, &i.srcs[1])?;
                    if b.halves != 2 {
                        return Err(err(i, "shift amounts are 32-bit registers"));
                    }
                    e(x.set_gpr(Role::SrcB, b.gpr(), Part::Full))?;
                }
            }
        }
        Op::F2I { signed } | Op::I2F { signed } => {
            let a = i.srcs[0];
            if a.neg || a.abs {
                return Err(err(
                    i,
                    "conversion source modifiers have no validated encoding",
                ));
            }
            let r = reg_of(i, &a)?;
            if r.halves != 2 {
                return Err(err(i, "only 32-bit conversions are measured"));
            }
            e(x.set_gpr(Role::SrcA, r.gpr(), Part::Full))?;
            e(x.set("signed", u64::from(signed)))?;
            if i.op == (Op::F2I { signed }) {
                // byte8 bit 0 pairs with the signed bit: S32 = 0x03, U32 = 0x02 (the native
                // F32->U32 cast `27 07 56 .. 02 .. b4 08 02 00`, niklassheth/agx-re EXP-M4-43,
                // M4; the crossed 0x08/0x03 pair is a 16-bit saturating conversion there).
                e(x.set("b8", if signed { 3 } else { 2 }))?;
            }
        }
        Op::Sfu(_) => {
            let a = i.srcs[0];
            let r = reg_of(i, &a)?;
            e(x.set_gpr(Role::SrcA, r.gpr(), part(r)))?;
            // Source negate/abs: fields measured on the floor/log2/rsqrt/exp2 form
            // (EXP-M4-54 `*_neg`/`*_abs` kernels); the reciprocal form has none.
            for (on, field) in [(a.neg, "src_neg"), (a.abs, "src_abs")] {
                if on {
                    if x.form.field_index(field).is_none() {
                        return Err(err(
                            i,
                            format!("{field} has no validated encoding on {}", x.form.name),
                        ));
                    }
                    e(x.set(field, 1))?;
                }
            }
        }
        Op::IMad => {
            for (k, (role, keep)) in [
                (Role::SrcA, "a_keep"),
                (Role::SrcB, "b_keep"),
                (Role::SrcC, "c_keep"),
            ]
            .into_iter()
            .enumerate()
            {
                let s = i.srcs[k];
                let r = reg_of(i, &s)?;
                if s.neg || s.abs || r.halves != 2 {
                    return Err(err(i, "imad takes plain 32-bit registers"));
                }
                e(x.set_gpr(role, r.gpr(), Part::Full))?;
                // pack_imad pairs each source's release bit with a keep bit: set when the
                // source stays live.
                if !s.release {
                    e(x.set(keep, 1))?;
                }
            }
        }
        Op::Derivative { axis } => {
            let s = i.srcs[0];
            let r = reg_of(i, &s)?;
            if s.neg || r.halves != 2 {
                return Err(err(i, "derivatives take a plain 32-bit register"));
            }
            e(x.set("axis", u64::from(axis)))?;
            e(x.set_gpr(Role::SrcA, r.gpr(), Part::Full))?;
            // Byte 6 bit 1: the source stays live after the instruction (the packer sets it
            // from liveness; agx16-sim releases a source without it).
            e(x.set("src_keep", u64::from(!s.release)))?;
        }
        Op::FFma => {
            let neg_product = i.srcs[0].neg ^ i.srcs[1].neg;
            if i.srcs[2].neg {
                return Err(err(i, "negated addend has no validated encoding"));
            }
            for (k, role) in [Role::SrcA, Role::SrcB, Role::SrcC].into_iter().enumerate() {
                let r = reg_of(i, &i.srcs[k])?;
                e(x.set_gpr(role, r.gpr(), part(r)))?;
            }
            if neg_product {
                e(x.set("neg_ab", 1))?;
            }
        }
        Op::Spill { slot: word } | Op::Fill { slot: word } => {
            // One full register per word (`ra::scratch::lower_to_words`); a half would
            // read or overwrite the other half of its register.
            let r = match i.op {
                Op::Spill { .. } => reg_of(i, &i.srcs[0])?,
                _ => i.dst.ok_or_else(|| err(i, "fill without a destination"))?,
            };
            if r.halves != 2 {
                return Err(err(i, "scratch accesses move whole 32-bit registers"));
            }
            if i.produce_slot == 0 {
                return Err(err(i, "scratch access without a completion slot"));
            }
            e(x.set("word", word as u64))?;
            if let Op::Spill { .. } = i.op {
                e(x.set_gpr(Role::SrcA, r.gpr(), Part::Full))?;
            }
        }
        Op::LoadGlobal { binding } | Op::StoreGlobal { binding } => {
            let idx = reg_of(i, &i.srcs[0])?;
            e(x.set_gpr(Role::SrcB, idx.gpr(), Part::Full))?;
            e(x.set("base_slot", binding as u64))?;
            // 16-bit accesses name a half register: the GPR plus a high-half bit.
            if let (Op::LoadGlobal { .. }, Some(d)) = (i.op, i.dst) {
                if d.halves == 1 {
                    e(x.set_gpr(Role::Dst, d.gpr(), Part::Full))?;
                    e(x.set("dst_hi", u64::from(d.half % 2 == 1)))?;
                } else if d.halves != 2 {
                    return Err(err(i, "tuple loads are split before allocation"));
                }
            }
            if let Op::StoreGlobal { .. } = i.op {
                let d = reg_of(i, &i.srcs[1])?;
                e(x.set_gpr(Role::SrcD, d.gpr(), Part::Full))?;
                if d.halves == 1 {
                    e(x.set("data_hi", u64::from(d.half % 2 == 1)))?;
                }
            }
        }
        _ => return Err(err(i, "not selected")),
    }
    // Scoreboard and lifetime bits.
    if i.produce_slot != 0 {
        e(x.set_produce(i.produce_slot))?;
    }
    if i.wait != 0 && !direct {
        // Index layouts name a group by its base slot; mask layouts name every slot.
        let index_layout = x.form.fields.iter().any(|f| {
            matches!(
                f.kind,
                Kind::Wait(agx16_isa::SlotLayout::Index45 | agx16_isa::SlotLayout::Index61)
            )
        });
        let set = if index_layout {
            let base = crate::mir::group_base(i.wait)
                .ok_or_else(|| err(i, "scoreboard slots are not a contiguous group"))?;
            1 << (base - 1)
        } else {
            i.wait
        };
        e(x.set_wait(SlotSet(set)))?;
    }
    for (k, s) in i.srcs.iter().enumerate() {
        if !s.release {
            continue;
        }
        let k = match k {
            0 | 1 if swapped => 1 - k,
            _ => k,
        };
        let role = [Role::SrcA, Role::SrcB, Role::SrcC][k.min(2)];
        // Forms without a release field keep the register: a missed release only costs reuse.
        if x.form.fields.iter().any(|f| f.kind == Kind::Release(role)) {
            e(set_kind(&mut x, Kind::Release(role), 1).map(|_| &mut x))?;
        }
    }
    if x.form.fields.iter().any(|f| f.kind == Kind::Publish) && i.publish {
        e(set_kind(&mut x, Kind::Publish, 1).map(|_| &mut x))?;
    }
    round_trip(i, x)
}

/// The bytes must decode back to the same form and fields; otherwise the table has another form
/// claiming those bits. Dropping the release bits (always safe: the register simply stays
/// allocated) is tried before giving up.
pub(super) fn round_trip(i: &MInstr, mut x: Instr) -> Result<Instr, CompileError> {
    let same = |x: &Instr| {
        agx16_isa::decode_at(&x.encode(), 0)
            .is_ok_and(|d| d.form.name == x.form.name && d.values() == x.values())
    };
    if same(&x) {
        return Ok(x);
    }
    let rel: Vec<&str> = x
        .form
        .fields
        .iter()
        .filter(|f| matches!(f.kind, Kind::Release(_)))
        .map(|f| f.name)
        .collect();
    for n in rel {
        x.set(n, 0).map_err(|e| enc_err(i, e))?;
    }
    if same(&x) {
        return Ok(x);
    }
    let other = agx16_isa::decode_at(&x.encode(), 0)
        .map(|d| d.form.name.to_string())
        .unwrap_or_else(|e| e.to_string());
    Err(CompileError::Encode {
        instr: i.to_string(),
        why: format!("{} bytes decode as {other}", x.form.name),
    })
}

/// Item indices where a continue wrapper opens: for each loop with a `continue` of its own, the
/// start of the top-level construct (a fused compare + if counts from the compare) that holds
/// the first one. The wrapper is a loop scope entered once around the rest of the body; a
/// continue leaves it. Breaks of the loop after that point would have to leave two loop scopes
/// at once, which is not measured: a clear error.
fn continue_wrappers(items: &[MItem]) -> Result<std::collections::HashSet<usize>, CompileError> {
    let mut at = std::collections::HashSet::new();
    for (l, it) in items.iter().enumerate() {
        if !matches!(it, MItem::Loop) {
            continue;
        }
        // depth: ifs and loops open inside this loop's body; inner: loops among them.
        let (mut depth, mut inner) = (0usize, 0usize);
        let mut top = l + 1;
        let mut wrap: Option<usize> = None;
        for k in l + 1..items.len() {
            let item = &items[k];
            if depth == 0 {
                if matches!(item, MItem::EndLoop) {
                    break;
                }
                let fused = matches!(item, MItem::If { cond }
                    if matches!(items.get(k.wrapping_sub(1)), Some(MItem::Instr(i))
                        if i.feeds_branch_only && i.dst == Some(*cond)));
                if !(k > l + 1 && top == k - 1 && fused) {
                    top = if fused { k - 1 } else { k };
                }
            }
            match item {
                MItem::If { .. } => depth += 1,
                MItem::Loop => {
                    depth += 1;
                    inner += 1;
                }
                MItem::EndIf => depth -= 1,
                MItem::EndLoop => {
                    depth -= 1;
                    inner -= 1;
                }
                MItem::Continue if inner == 0 && wrap.is_none() => wrap = Some(top),
                _ => {}
            }
        }
        let Some(w) = wrap else { continue };
        // Breaks of this loop inside the wrapped part.
        let (mut depth, mut inner) = (0usize, 0usize);
        for item in &items[w..] {
            match item {
                MItem::Loop => {
                    depth += 1;
                    inner += 1;
                }
                MItem::If { .. } => depth += 1,
                MItem::EndIf => depth = depth.saturating_sub(1),
                MItem::EndLoop if depth == 0 => break,
                MItem::EndLoop => {
                    depth -= 1;
                    inner -= 1;
                }
                MItem::Break if inner == 0 => {
                    return Err(CompileError::NoForm {
                        instr: "break".into(),
                        why: "a break after a continue in the same loop would leave the \
                              continue scope and the loop at once, which is not measured"
                            .into(),
                    })
                }
                _ => {}
            }
        }
        at.insert(w);
    }
    Ok(at)
}

/// Encode a program: straight-line code, if/else, loops, break, continue, early return.
pub fn encode_program(p: &MProgram) -> Result<Encoded, CompileError> {
    // The 2-byte `mov_imm` (`<dst>c <imm>`) followed by bytes whose second pair has byte-2
    // bit 4 set, bit 7 clear and a byte-3 low nibble of 6 decodes as a 4-byte `get_sr`
    // (agx16-isa's length rule; found by tests/glsl_fuzz.rs: `mov_imm r6, #0; mov_imm r7, #6`).
    // Every instruction boundary is checked by decoding the program as the machine does; a
    // compact move that is misread is re-encoded as the 8-byte `mov_imm32`.
    let mut wide = std::collections::HashSet::new();
    loop {
        let starts = std::cell::RefCell::new(Vec::new());
        let compact = std::cell::RefCell::new(Vec::new());
        let enc = encode_program_with(p, &wide, &starts, &compact)?;
        let starts = starts.into_inner();
        let mut bad = None;
        for (n, &s) in starts.iter().enumerate() {
            let end = starts.get(n + 1).copied().unwrap_or(enc.code.len());
            let len = agx16_isa::decode_at(&enc.code, s).map(|d| d.encode().len());
            if len.as_ref().ok() != Some(&(end - s)) {
                bad = Some((s, len));
                break;
            }
        }
        let Some((at, len)) = bad else {
            return Ok(enc);
        };
        match compact.into_inner().iter().find(|(o, _)| *o == at) {
            Some(&(_, k)) if wide.insert(k) => {}
            _ => {
                let end = (at + 16).min(enc.code.len());
                let bytes: String = enc.code[at..end]
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                return Err(CompileError::Internal(format!(
                    "the instruction at offset {at:#x} ({bytes}) decodes with another length \
                     ({len:?})"
                )));
            }
        }
    }
}

fn encode_program_with(
    p: &MProgram,
    wide: &std::collections::HashSet<usize>,
    starts: &std::cell::RefCell<Vec<usize>>,
    compact: &std::cell::RefCell<Vec<(usize, usize)>>,
) -> Result<Encoded, CompileError> {
    use super::control;
    let mut out = Encoded::default();
    let emit = |x: Instr, out: &mut Encoded| {
        starts.borrow_mut().push(out.code.len());
        x.encode_into(&mut out.code);
        out.instrs += 1;
    };
    let unsupported = |what: &MItem| CompileError::NoForm {
        instr: format!("{what:?}"),
        why: "not selectable here: discard (frag_sample_submit is corpus-only in agx16-isa), an \
              unconditional continue, or a continue outside its wrapper"
            .into(),
    };
    // Open scopes: `None` for an if, `Some(body start offset)` for a loop.
    let mut scopes: Vec<Option<usize>> = Vec::new();
    let items = &p.items;
    // Early returns: the whole program runs inside a loop scope entered once; a return under
    // ifs is a break out of it (break-unwind, EXP-M4-46), and at the end every remaining lane
    // leaves through the measured latch update on an all-true compare, so the jump back is
    // never taken and the loop pop restores the lanes for the final `stop`.
    let early_return = items
        .iter()
        .enumerate()
        .any(|(k, it)| matches!(it, MItem::Return) && k + 1 != items.len());
    if early_return {
        emit(control::loop_push()?, &mut out);
        scopes.push(Some(out.code.len()));
    }
    let wrap_at = continue_wrappers(items)?;
    let tuples = items
        .iter()
        .filter_map(|it| match it {
            MItem::Instr(i) if matches!(i.op, Op::Texture { .. }) => Some(i.tuple as usize + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let mut gfx = super::gfx::GfxSelect::new(tuples);
    // Scope depths (indices into `scopes`) of continue wrappers.
    let mut wrappers: Vec<usize> = Vec::new();
    // The innermost loop's body ended in an unconditional break: its end has no back-jump.
    let mut once_through = false;
    let mut k = 0;
    while k < items.len() {
        if wrap_at.contains(&k) {
            emit(control::loop_push()?, &mut out);
            wrappers.push(scopes.len());
            scopes.push(Some(out.code.len()));
        }
        match &items[k] {
            MItem::Instr(i) => {
                // A wait completes the texture ops on its slots, freeing their coordinates.
                gfx.retire(i.wait);
                if let (true, Some(MItem::If { cond })) = (i.feeds_branch_only, items.get(k + 1)) {
                    if i.dst == Some(*cond) {
                        // `if (c) break; else {}` or `if (c) {} else break;` directly in a loop:
                        // the latch update takes the leaving lanes out.
                        let in_loop = matches!(scopes.last(), Some(Some(_)));
                        let tail = items.get(k + 2..k + 5);
                        let leave = match tail {
                            Some([MItem::Break, MItem::Else, MItem::EndIf]) if in_loop => {
                                Some(true)
                            }
                            Some([MItem::Else, MItem::Break, MItem::EndIf]) if in_loop => {
                                Some(false)
                            }
                            _ => None,
                        };
                        emit(round_trip(i, control::predicate_compare(i)?)?, &mut out);
                        if let Some(leave_when) = leave {
                            emit(control::loop_update(leave_when, 0)?, &mut out);
                            k += 5;
                        } else {
                            emit(control::if_push()?, &mut out);
                            scopes.push(None);
                            k += 2;
                        }
                        continue;
                    }
                }
                if super::gfx::is_gfx_io(i.op) {
                    for x in gfx.select(i)? {
                        emit(x, &mut out);
                    }
                } else {
                    let x = select_with(i, !wide.contains(&k))?;
                    if x.form.name == "mov_imm" {
                        compact.borrow_mut().push((out.code.len(), k));
                    }
                    emit(x, &mut out);
                }
            }
            MItem::If { .. } => {
                return Err(CompileError::NoForm {
                    instr: "if".into(),
                    why: "the condition is not a compare fused into the branch".into(),
                })
            }
            MItem::Else => emit(control::else_()?, &mut out),
            MItem::EndIf => {
                emit(control::pop()?, &mut out);
                scopes.pop();
            }
            MItem::Loop => {
                emit(control::loop_push()?, &mut out);
                scopes.push(Some(out.code.len()));
            }
            MItem::EndLoop => {
                if wrappers.last() == Some(&(scopes.len().wrapping_sub(1))) {
                    // End of a continue wrapper: the lanes still active leave it; the pop
                    // brings back the ones that continued.
                    wrappers.pop();
                    let Some(Some(start)) = scopes.pop() else {
                        return Err(CompileError::Internal("unbalanced continue scope".into()));
                    };
                    emit(control::all_lanes_true()?, &mut out);
                    emit(control::loop_update(true, 0)?, &mut out);
                    let here = out.code.len() as i64;
                    emit(control::jump(start as i64 - here)?, &mut out);
                    emit(control::loop_pop()?, &mut out);
                }
                let Some(Some(start)) = scopes.pop() else {
                    return Err(CompileError::Internal("unbalanced loop".into()));
                };
                if !std::mem::take(&mut once_through) {
                    let here = out.code.len() as i64;
                    emit(control::jump(start as i64 - here)?, &mut out);
                }
                emit(control::loop_pop()?, &mut out);
            }
            MItem::Continue
                if wrappers
                    .last()
                    .is_some_and(|&w| scopes[w + 1..].iter().all(|s| s.is_none())) =>
            {
                // The lanes leave the continue wrapper (break-unwind, EXP-M4-46) and wait at
                // its pop, the end of the iteration.
                let level = scopes.iter().filter(|s| s.is_some()).count() as u8;
                let ifs = scopes.iter().rev().take_while(|s| s.is_none()).count() as u8;
                if ifs == 0 {
                    return Err(CompileError::NoForm {
                        instr: "continue".into(),
                        why: "an unconditional continue has no measured unwind (ifs = 0)".into(),
                    });
                }
                emit(control::break_unwind(level, ifs)?, &mut out);
            }
            MItem::Break if scopes.iter().any(|s| s.is_some()) => {
                let level = scopes.iter().filter(|s| s.is_some()).count() as u8;
                let ifs = scopes.iter().rev().take_while(|s| s.is_none()).count() as u8;
                let loop_depth = scopes.len() - 1;
                if ifs == 0
                    && matches!(items.get(k + 1), Some(MItem::EndLoop))
                    && wrappers.last() != Some(&loop_depth)
                {
                    // The body's last act is an unconditional break (GLSL's loop around a
                    // `switch` with fall-through, which Mesa's wrapper unroll keeps when a
                    // case breaks early): the loop never iterates, so its end falls into the
                    // loop pop with no back-jump. The pop restores the lanes from before the
                    // loop, those an earlier break parked included (sim exec_mask), so only
                    // the measured loop push/pop and break-unwind forms run.
                    once_through = true;
                    k += 1;
                    continue;
                }
                if ifs == 0 {
                    return Err(CompileError::NoForm {
                        instr: "break".into(),
                        why: "an unconditional break has no measured unwind (ifs = 0)".into(),
                    });
                }
                emit(control::break_unwind(level, ifs)?, &mut out);
            }
            MItem::Return if scopes.is_empty() && k + 1 == items.len() => {}
            MItem::Return if early_return && k + 1 == items.len() && scopes.len() == 1 => {}
            MItem::Return if early_return && scopes.iter().filter(|s| s.is_some()).count() == 1 => {
                // Under ifs only (leaving nested loops at once is not measured).
                let ifs = scopes.iter().rev().take_while(|s| s.is_none()).count() as u8;
                if ifs == 0 {
                    return Err(CompileError::NoForm {
                        instr: "return".into(),
                        why: "an unconditional early return has no measured unwind (ifs = 0)"
                            .into(),
                    });
                }
                emit(control::break_unwind(1, ifs)?, &mut out);
            }
            MItem::Return if early_return => {
                return Err(CompileError::NoForm {
                    instr: "return".into(),
                    why: "a return inside a loop would leave several loop scopes at once, which \
                          is not measured"
                        .into(),
                })
            }
            other => return Err(unsupported(other)),
        }
        k += 1;
    }
    if early_return {
        emit(control::all_lanes_true()?, &mut out);
        emit(control::loop_update(true, 0)?, &mut out);
        let (Some(Some(start)), true) = (scopes.pop(), scopes.is_empty()) else {
            return Err(CompileError::Internal("unbalanced program scope".into()));
        };
        let here = out.code.len() as i64;
        emit(control::jump(start as i64 - here)?, &mut out);
        emit(control::loop_pop()?, &mut out);
    }
    let stop = Instr::build("stop", &[]).map_err(|e| CompileError::Encode {
        instr: "stop".into(),
        why: e.to_string(),
    })?;
    emit(stop, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Type;
    use crate::mir::{MProgram, MSrc};

    fn mov(gpr: u16, v: u32) -> MItem {
        let src = MSrc {
            op: MOperand::Imm(v),
            ty: Type::I32,
            neg: false,
            abs: false,
            release: false,
        };
        let dst = Reg {
            half: gpr * 2,
            halves: 2,
        };
        MItem::Instr(MInstr::new(Op::Copy, Type::I32, Some(dst), [src]))
    }

    /// `mov_imm r6, #0; mov_imm r7, #6` as two 2-byte moves reads back as one 4-byte get_sr
    /// (found by tests/glsl_fuzz.rs); the first becomes a `mov_imm32` and the program decodes
    /// to exactly the emitted instructions.
    #[test]
    fn compact_moves_that_would_decode_as_get_sr_are_widened() {
        let p = MProgram {
            items: vec![mov(6, 0), mov(7, 6), mov(8, 5)],
            scratch_words: 0,
            stats: Default::default(),
        };
        let enc = encode_program(&p).unwrap();
        let mut names = vec![];
        let mut at = 0;
        while at < enc.code.len() {
            let d = agx16_isa::decode_at(&enc.code, at).unwrap();
            at += d.encode().len();
            names.push(d.form.name);
        }
        assert_eq!(names, ["mov_imm32", "mov_imm", "mov_imm", "stop"]);
    }
}

//! G16 answers to the allocator's and legaliser's questions, read from the ISA form table.

use super::choose::form_name;
use crate::ir::{Instr, Op, Operand, Sfu, Type};
use crate::target::{RegTarget, Target};
use agx16_isa::{form_by_name, Kind, Role};

/// Highest GPR + 1 a role of a form can name: the table's measured reach, else the width of
/// its register field, capped at the 96-entry file. `name` may carry a template variant
/// (`sfu:floor` is the `sfu` form).
fn reach(name: &str, role: Role) -> u32 {
    let form_name = name.split(':').next().unwrap_or(name);
    let Some(form) = form_by_name(form_name) else {
        return 96;
    };
    if let Some(r) = form.reach(role) {
        return (r.max_gpr as u32 + 1).min(96);
    }
    form.fields
        .iter()
        .find(|f| f.kind == Kind::Gpr(role))
        .map(|f| (1u32 << f.width()).min(96))
        .unwrap_or(96)
}

fn role(src: usize, op: Op) -> Role {
    match (op, src) {
        (Op::LoadGlobal { .. } | Op::StoreGlobal { .. }, 0) => Role::SrcB, // the index register
        (Op::StoreGlobal { .. }, _) => Role::SrcD,                         // the data register
        (Op::StoreTile { masked: true, .. }, 1) => Role::SrcB, // the sample-mask register
        (Op::LoadTile { masked: true, .. }, 0) => Role::SrcB,  // the sample-mask register
        (Op::StoreTile { .. }, _) => Role::SrcD,
        (_, 0) => Role::SrcA,
        (_, 1) => Role::SrcB,
        _ => Role::SrcC,
    }
}

fn imm(i: &Instr, k: usize) -> bool {
    i.srcs
        .get(k)
        .is_some_and(|s| matches!(s.op, Operand::Imm(_)))
}

fn uniform(i: &Instr) -> bool {
    i.srcs
        .first()
        .is_some_and(|s| matches!(s.op, Operand::Uniform(_)))
}

/// Register facts: 96 GPRs (ADevWithAnIdea/agx-re docs/m4-deltas.md §2, measured); per-form
/// reach from the table; device loads below r64 (ADevWithAnIdea/agx-re EXP-0141: r≥64
/// silently zeroes, measured).
pub struct G16Regs;

impl RegTarget for G16Regs {
    fn gprs(&self) -> u32 {
        96
    }
    fn dst_reach(&self, i: &Instr, ty: Type) -> u32 {
        // Fills and spills have no ALU form name: the hand-off rule below still applies.
        let r = match form_name(i.op, ty, imm(i, 0), imm(i, 1), uniform(i)) {
            Some(name) => reach(name, Role::Dst),
            None => 96,
        };
        match i.op {
            Op::LoadGlobal { .. } => r.min(64),
            // A fill's hand-off copy (`iadd r, r, #0`) reaches r0..r94.
            Op::Fill { .. } => r.min(95),
            _ => r,
        }
    }
    /// `spill_store` / `spill_load` move full 32-bit registers (agx16-isa table/scratch.rs).
    fn spill_32bit_only(&self) -> bool {
        true
    }
    fn src_reach(&self, i: &Instr, ty: Type, src: usize) -> u32 {
        let r = match form_name(i.op, ty, imm(i, 0), imm(i, 1), uniform(i)) {
            Some(name) => reach(name, role(src, i.op)),
            None => 96,
        };
        match i.op {
            // A spill store's completion copy (`iadd r, r, #0` of its released source,
            // sched/scoreboard.rs) reaches r0..r94, as a fill's.
            Op::Spill { .. } => r.min(95),
            _ => r,
        }
    }
}

/// Operand capabilities: float immediates where the 8-bit minifloat encodes them exactly
/// (`fadd_imm` source B), integer immediates in `iadd` source B (8-bit field).
pub struct G16Target;

impl Target for G16Target {
    fn inline_imm(&self, op: Op, ty: Type, src: usize, bits: u32) -> bool {
        match (op, ty, src) {
            // fadd_imm has a hardware-run template (EXP-M4-44); isub with an immediate is corpus-only.
            // fmul_imm: the fadd_imm layout with the multiply selector (agx16-isa hardware row).
            (Op::FAdd | Op::FMul, Type::F32, 1) => {
                agx16_isa::minifloat::encode(f32::from_bits(bits)).is_some()
            }
            (Op::IAdd, Type::I32, 1) => bits <= 0xff,
            // ishr_imm: amounts 0..31 validated (GravityLinux/mesa pack_ishr_imm, EXP-0139).
            (Op::Shr { signed: true }, Type::I32, 1) => bits <= 31,
            // ushr_imm / ishl_imm: 5-bit amount field (GravityLinux/mesa pack_shift).
            (Op::Shr { signed: false } | Op::Shl, Type::I32, 1) => bits <= 31,
            (Op::LoadGlobal { .. } | Op::StoreGlobal { .. }, _, _) => false,
            _ => false,
        }
    }
    fn uniform_src(&self, _op: Op, _ty: Type, _src: usize) -> bool {
        false
    }
    /// Source modifiers the selected forms encode: one negated source of fadd/fmul/hadd/hmul
    /// (register forms; `b_neg`/`a_neg`), a negated product of ffma (`neg_ab`), neg/abs on the
    /// SFU forms except the reciprocal (EXP-M4-54). No validated form takes abs on an ALU source.
    fn src_modifiers(&self, i: &Instr, _ty: Type, k: usize) -> bool {
        let s = i.srcs[k];
        let others_neg = i.srcs.iter().enumerate().any(|(j, o)| j != k && o.neg);
        let any_imm = i.srcs.iter().any(|o| matches!(o.op, Operand::Imm(_)));
        match i.op {
            // Source modifiers are measured on floor/log2/rsqrt/exp2 only (EXP-M4-54).
            Op::Sfu(Sfu::Rcp | Sfu::SqrtFactor | Sfu::SinFactor) => false,
            Op::Sfu(_) => true,
            Op::FAdd | Op::FMul => !s.abs && !others_neg && !any_imm,
            Op::FFma => !s.abs && k < 2,
            _ => false,
        }
    }
    fn split_vector_memory(&self) -> bool {
        true
    }
    /// sqrt as x times the SFU's square-root factor (the way Apple's compiler does it,
    /// EXP-M4-55 k_sqrt); round-to-even through the adder (the SFU's rint mode is corpus-only in
    /// agx16-isa); integer multiplies as `imad` with a zero addend (the one multiply form);
    /// undefined values as 0 (one move; what a register nothing wrote reads is not established).
    fn lowered_ops(&self) -> crate::opt::lower_ops::Lowered {
        crate::opt::lower_ops::Lowered {
            sqrt: true,
            rint: true,
            imul: true,
            undef: true,
        }
    }
    /// The only hardware-validated select (`isel10`) has its op/compare/condition fields at
    /// corpus-only evidence and agx16-sim does not model selects: selects (and compares used as
    /// values, which NIR's b2i/b2f turn into selects) become branches on predicate compares.
    fn selects_as_branches(&self) -> bool {
        true
    }
    /// No validated form has a saturate bit: f32 saturation becomes compares and selects.
    fn saturate(&self) -> bool {
        false
    }
    /// Register shift amounts: the hardware uses the low 16 bits and saturates at 32
    /// (agx16-sim's contract from GravityLinux/mesa pack_shift); the IR uses the low 5 bits.
    fn shift_amounts_saturate(&self) -> bool {
        true
    }
}

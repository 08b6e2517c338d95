//! Disassembly syntax, derived from the table.
//!
//! `name op, op, ... field=value ...`: operands in role order (dst first) as `r5`, `r5.l`,
//! `r5.h`, `u3`, `#12`, `#-4`, `#1.5`, `#f8:0x1b1`; every other non-zero field as
//! `name=value`; bits outside every field as `unmapped=0x...`.

use std::fmt;

use crate::form::{Kind, Role};
use crate::instr::{Instr, Operand, Part};
use crate::minifloat;

pub(crate) fn is_operand_kind(k: Kind) -> bool {
    matches!(
        k,
        Kind::Gpr(_)
            | Kind::Size(_)
            | Kind::Half(_)
            | Kind::Uniform(_)
            | Kind::ImmU(_)
            | Kind::ImmS(_)
            | Kind::ImmF8(_)
    )
}

/// Roles that appear as operands of a form, in printing order.
pub(crate) fn operand_roles(form: &crate::form::Form) -> Vec<Role> {
    [Role::Dst, Role::SrcA, Role::SrcB, Role::SrcC, Role::SrcD]
        .into_iter()
        .filter(|r| {
            form.fields.iter().any(|f| {
                matches!(f.kind, Kind::Gpr(x) | Kind::Uniform(x) | Kind::ImmU(x) | Kind::ImmS(x) | Kind::ImmF8(x) if x == *r)
            })
        })
        .collect()
}

fn suffix(p: Part) -> &'static str {
    match p {
        Part::Full => "",
        Part::Lo => ".l",
        Part::Hi => ".h",
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Operand::Gpr { reg, part } => write!(f, "r{reg}{}", suffix(part)),
            Operand::Uniform { index, part } => write!(f, "u{index}{}", suffix(part)),
            Operand::ImmInt(v) => write!(f, "#{v}"),
            Operand::ImmFloat(x) => write!(f, "#{x:?}"),
            Operand::ImmF8Raw(v) => write!(f, "#f8:{v:#x}"),
            Operand::Pred(p) => write!(f, "p{p}"),
        }
    }
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.form.name)?;
        let mut first = true;
        for role in operand_roles(self.form) {
            let op = self.operand(role).expect("role listed by operand_roles");
            let text = match op.value {
                // Print as a float only when that text re-encodes to the same bits.
                Operand::ImmFloat(x) => {
                    let raw = self
                        .form
                        .fields
                        .iter()
                        .zip(self.values())
                        .find(|(fl, _)| fl.kind == Kind::ImmF8(role))
                        .map(|(_, v)| *v)
                        .unwrap_or(0);
                    if minifloat::encode(x) == Some(raw) {
                        op.value.to_string()
                    } else {
                        Operand::ImmF8Raw(raw as u16).to_string()
                    }
                }
                v => v.to_string(),
            };
            write!(f, "{}{}", if first { " " } else { ", " }, text)?;
            first = false;
        }
        // Size=1 together with a Half field would hide the half bit: print it explicitly.
        for (fl, v) in self.form.fields.iter().zip(self.values()) {
            let hidden_half = matches!(fl.kind, Kind::Half(r) if self.operand(r).map(|o| matches!(o.value, Operand::Gpr{part: Part::Full, ..} | Operand::Uniform{part: Part::Full, ..})).unwrap_or(false));
            if *v != 0 && (!is_operand_kind(fl.kind) || hidden_half) {
                if *v < 10 {
                    write!(f, " {}={}", fl.name, v)?;
                } else {
                    write!(f, " {}={:#x}", fl.name, v)?;
                }
            }
        }
        if self.unmapped != 0 {
            write!(f, " unmapped={:#x}", self.unmapped)?;
        }
        Ok(())
    }
}

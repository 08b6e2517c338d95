//! A decoded (or built) instruction: a form plus one value per field.

use crate::bits::Word;
use crate::evidence::Evidence;
use crate::form::{Field, Form, Kind, Role};
use crate::minifloat;

/// Most fields any form has.
pub const MAX_FIELDS: usize = 24;

/// An instruction of a known form with its field values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instr {
    pub form: &'static Form,
    values: [u64; MAX_FIELDS],
    /// Bits covered by neither a match nor a field (kept so encoding is lossless).
    pub unmapped: Word,
}

/// Which 16/32-bit part of a register an operand names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Full,
    Lo,
    Hi,
}

/// A typed operand value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    Gpr {
        reg: u8,
        part: Part,
    },
    Uniform {
        index: u16,
        part: Part,
    },
    ImmInt(i64),
    ImmFloat(f32),
    /// An 8-bit float immediate whose value is not established (raw packed bits).
    ImmF8Raw(u16),
    Pred(u8),
}

/// An operand together with its role and the weakest evidence of the fields it came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TypedOperand {
    pub role: Role,
    pub value: Operand,
    pub evidence: Evidence,
}

/// Error constructing or modifying an instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("form {form} has no field {field}")]
    NoField { form: &'static str, field: String },
    #[error("value {value:#x} does not fit field {form}.{field} ({width} bits)")]
    TooWide {
        form: &'static str,
        field: &'static str,
        value: u64,
        width: u32,
    },
    #[error("form {form} has no {what} for role {role:?}")]
    NoOperand {
        form: &'static str,
        role: Role,
        what: &'static str,
    },
    #[error("r{reg} is outside the reach r0..r{max} of {form} operand {role:?}")]
    OutOfReach {
        form: &'static str,
        role: Role,
        reg: u32,
        max: u8,
    },
    #[error("{0}")]
    Other(String),
}

impl Instr {
    /// An instruction of `form` with every field zero.
    pub fn new(form: &'static Form) -> Self {
        Instr {
            form,
            values: [0; MAX_FIELDS],
            unmapped: 0,
        }
    }

    pub(crate) fn from_parts(
        form: &'static Form,
        values: [u64; MAX_FIELDS],
        unmapped: Word,
    ) -> Self {
        Instr {
            form,
            values,
            unmapped,
        }
    }

    /// Field values in table order.
    pub fn values(&self) -> &[u64] {
        &self.values[..self.form.fields.len()]
    }

    /// Value of the field called `name`.
    pub fn field(&self, name: &str) -> Option<u64> {
        self.form.field_index(name).map(|i| self.values[i])
    }

    /// Evidence of the field called `name`.
    pub fn field_evidence(&self, name: &str) -> Option<Evidence> {
        self.form
            .field_index(name)
            .map(|i| self.form.fields[i].evidence)
    }

    /// Set a field by name (value must fit).
    pub fn set(&mut self, name: &str, value: u64) -> Result<&mut Self, EncodeError> {
        let i = self
            .form
            .field_index(name)
            .ok_or_else(|| EncodeError::NoField {
                form: self.form.name,
                field: name.to_string(),
            })?;
        self.set_index(i, value)
    }

    pub(crate) fn set_index(&mut self, i: usize, value: u64) -> Result<&mut Self, EncodeError> {
        let f = &self.form.fields[i];
        if value > f.max() {
            return Err(EncodeError::TooWide {
                form: self.form.name,
                field: f.name,
                value,
                width: f.width(),
            });
        }
        self.values[i] = value;
        Ok(self)
    }

    pub(crate) fn find(&self, pred: impl Fn(Kind) -> bool) -> Option<(&'static Field, u64)> {
        let fields: &'static [Field] = self.form.fields;
        fields
            .iter()
            .zip(self.values.iter())
            .find(|(f, _)| pred(f.kind))
            .map(|(f, v)| (f, *v))
    }

    /// Set the GPR of `role` (and its size/half fields), checking the form's reach.
    pub fn set_gpr(&mut self, role: Role, reg: u32, part: Part) -> Result<&mut Self, EncodeError> {
        let form = self.form;
        if let Some(r) = form.reach(role) {
            if reg > r.max_gpr as u32 {
                return Err(EncodeError::OutOfReach {
                    form: form.name,
                    role,
                    reg,
                    max: r.max_gpr,
                });
            }
        }
        let gi = form
            .fields
            .iter()
            .position(|f| f.kind == Kind::Gpr(role))
            .ok_or(EncodeError::NoOperand {
                form: form.name,
                role,
                what: "GPR field",
            })?;
        self.set_index(gi, reg as u64)?;
        self.set_part(role, part)
    }

    fn set_part(&mut self, role: Role, part: Part) -> Result<&mut Self, EncodeError> {
        let form = self.form;
        let size = form.fields.iter().position(|f| f.kind == Kind::Size(role));
        let half = form.fields.iter().position(|f| f.kind == Kind::Half(role));
        match (size, half, part) {
            (Some(s), _, Part::Full) => self.set_index(s, 1)?,
            (None, None, Part::Full) => self,
            (Some(s), None, Part::Lo) => self.set_index(s, 0)?,
            (s, Some(h), Part::Lo | Part::Hi) => {
                if let Some(s) = s {
                    self.set_index(s, 0)?;
                }
                self.set_index(h, u64::from(part == Part::Hi))?
            }
            _ => {
                return Err(EncodeError::NoOperand {
                    form: form.name,
                    role,
                    what: "operand part",
                })
            }
        };
        Ok(self)
    }

    fn part_of(&self, role: Role) -> Part {
        let size = self.find(|k| k == Kind::Size(role)).map(|(_, v)| v);
        let half = self.find(|k| k == Kind::Half(role)).map(|(_, v)| v);
        match (size, half) {
            (Some(1), _) => Part::Full,
            (_, Some(1)) => Part::Hi,
            (Some(0), _) | (_, Some(0)) => Part::Lo,
            _ => Part::Full,
        }
    }

    fn part_evidence(&self, role: Role) -> Evidence {
        self.form
            .fields
            .iter()
            .filter(|f| f.kind == Kind::Size(role) || f.kind == Kind::Half(role))
            .map(|f| f.evidence)
            .max()
            .unwrap_or(Evidence::Hardware)
    }

    /// The typed operand of `role`, if the form has one.
    pub fn operand(&self, role: Role) -> Option<TypedOperand> {
        let (f, v) = self.find(|k| {
            matches!(k, Kind::Gpr(r) | Kind::Uniform(r) | Kind::ImmU(r) | Kind::ImmS(r) | Kind::ImmF8(r) if r == role)
        })?;
        let part_ev = self.part_evidence(role);
        let (value, evidence) = match f.kind {
            Kind::Gpr(_) => (
                Operand::Gpr {
                    reg: v as u8,
                    part: self.part_of(role),
                },
                f.evidence.max(part_ev),
            ),
            Kind::Uniform(_) => (
                Operand::Uniform {
                    index: v as u16,
                    part: self.part_of(role),
                },
                f.evidence.max(part_ev),
            ),
            Kind::ImmU(_) => (Operand::ImmInt(v as i64), f.evidence),
            Kind::ImmS(_) => {
                let w = f.width();
                let s = if w < 64 && v >> (w - 1) & 1 == 1 {
                    (v as i64) - (1i64 << w)
                } else {
                    v as i64
                };
                (Operand::ImmInt(s), f.evidence)
            }
            Kind::ImmF8(_) => match minifloat::decode(v) {
                Some(x) => (Operand::ImmFloat(x), f.evidence),
                None => (Operand::ImmF8Raw(v as u16), Evidence::Hypothesis),
            },
            _ => unreachable!("filtered above"),
        };
        Some(TypedOperand {
            role,
            value,
            evidence,
        })
    }

    /// All typed operands in role order (dst first).
    pub fn operands(&self) -> Vec<TypedOperand> {
        [Role::Dst, Role::SrcA, Role::SrcB, Role::SrcC, Role::SrcD]
            .into_iter()
            .filter_map(|r| self.operand(r))
            .collect()
    }

    /// Predicate bank operand, if any.
    pub fn pred(&self) -> Option<(u8, Evidence)> {
        self.find(|k| k == Kind::Pred)
            .map(|(f, v)| (v as u8, f.evidence))
    }

    /// Fields whose evidence is weaker than `at_least`: what a strict model must
    /// not rely on (it decides per field whether the value in hand is the established one).
    pub fn unestablished(&self, at_least: Evidence) -> Vec<&'static Field> {
        let fields: &'static [Field] = self.form.fields;
        fields
            .iter()
            .zip(self.values.iter())
            .filter(|(f, _)| f.evidence > at_least)
            .map(|(f, _)| f)
            .collect()
    }
}

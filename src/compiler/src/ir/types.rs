//! Value types of the SSA IR.

use std::fmt;

/// The type of one component of an SSA value.
///
/// `Bool` lives in a general register as 0 / 0xFFFF_FFFF (NIR's 32-bit boolean convention after
/// `nir_lower_bool_to_int32`), so selects and logic ops work on it directly. `Pred` is a
/// predicate-bank value (p0–p5) that only control flow consumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    F32,
    F16,
    I32,
    I16,
    Bool,
    Pred,
}

impl Type {
    /// Size of one component in 16-bit register halves (the allocation unit of the file).
    pub fn halves(self) -> u32 {
        match self {
            Type::F16 | Type::I16 => 1,
            Type::F32 | Type::I32 | Type::Bool => 2,
            Type::Pred => 0,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Type::F32 | Type::F16)
    }

    pub fn is_16bit(self) -> bool {
        matches!(self, Type::F16 | Type::I16)
    }

    /// Mask of the bits a component of this type occupies.
    pub fn mask(self) -> u32 {
        match self {
            Type::F16 | Type::I16 => 0xffff,
            Type::Pred => 1,
            _ => u32::MAX,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Type::F32 => "f32",
            Type::F16 => "f16",
            Type::I32 => "i32",
            Type::I16 => "i16",
            Type::Bool => "bool",
            Type::Pred => "pred",
        };
        f.write_str(s)
    }
}

/// Shape of an SSA value: a scalar or a tuple (vector) of up to four components of one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub ty: Type,
    pub comps: u8,
}

impl Shape {
    pub fn scalar(ty: Type) -> Self {
        Shape { ty, comps: 1 }
    }
    pub fn vec(ty: Type, comps: u8) -> Self {
        Shape { ty, comps }
    }
    /// Register-file footprint in halves.
    pub fn halves(self) -> u32 {
        self.ty.halves() * self.comps as u32
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.comps == 1 {
            write!(f, "{}", self.ty)
        } else {
            write!(f, "{}x{}", self.ty, self.comps)
        }
    }
}

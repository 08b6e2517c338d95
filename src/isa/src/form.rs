//! The shape of one table entry: an instruction form, its match bits and its fields.
//!
//! An N-byte instruction is one little-endian integer: bit 8k+b is byte k, bit b
//! (niklassheth/agx-re:docs/isa/encoding-tables.md "How to read this", measured).

use crate::evidence::Evidence;
use crate::op::Op;

/// A run of bits `[lo, lo+width)` of the instruction word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bits {
    pub lo: u8,
    pub width: u8,
}

/// A constant that identifies the form: bits `[lo, lo+width)` equal `value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match {
    pub bits: Bits,
    pub value: u64,
}

/// Operand role, used to tie together register number, size and lifetime fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Dst,
    SrcA,
    SrcB,
    SrcC,
    SrcD,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Dst => "dst",
            Role::SrcA => "a",
            Role::SrcB => "b",
            Role::SrcC => "c",
            Role::SrcD => "d",
        }
    }
}

/// The four physical layouts of a consumer's scoreboard-slot field
/// (GravityLinux/mesa:src/asahi/compiler/agx_apple9_machine.h dependency layouts;
/// niklassheth/agx-re:APPLE9_SCOREBOARD_SLOTS.md, measured on M4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotLayout {
    /// 3-bit slot number at bits 45..47 (falu2, falu2i, half ALU, min/max).
    Index45,
    /// 3-bit slot number at bits 61..63 (falu3, isel10).
    Index61,
    /// One-hot six-slot mask at bits 12..17 (SFU, conversions, iadd, shifts).
    Mask12,
    /// One-hot mask split over bits 45..47 (slots 1-3) and 61..63 (slots 4-6) (extended ilogic).
    MaskSplit45_61,
    /// One bit at 30: set = wait for slot 2, where the launcher's pointer loads publish
    /// (argument transfer; GravityLinux/mesa agx_apple9_encoding.h, hardware-run launchers).
    Flag30Slot2,
}

/// How a producer publishes its result slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProduceLayout {
    /// Scalar device load: t = 2(s-1) mod 7 split over byte 8 bits 7:6 and byte 9 bit 0;
    /// the field holds t with t&1 as bit 0 (niklassheth/agx-re:APPLE9_SCOREBOARD_SLOTS.md, measured).
    LoadToken,
    /// Atomic byte+1 high nibble one-hot: 1 -> slot 6, 2 -> slot 1, 4 -> slot 2 (same source, corpus correlation).
    AtomicNibble,
    /// Atomic-result publication code (bits 45..47): 1 -> slot 6, 2 -> 1, 3 -> 3, 4 -> 2, 5 -> 4,
    /// 6 -> 5; 7 unresolved (niklassheth/agx-re encoding-tables.md `atomic_result`, EXP-M4-49).
    AtomicResultCode,
    /// Zero-based slot number (0 -> slot 1 .. 5 -> slot 6): flat iteration byte 5 and the
    /// tilebuffer-load tag (GravityLinux/mesa agx_apple9_ir.c ITER_FLAT / TILE_LOAD packers).
    SlotIndex,
}

/// What a field means. Register-bearing kinds carry the operand role they belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// GPR number of the role's operand.
    Gpr(Role),
    /// 1 = 32-bit operand, 0 = 16-bit (low half unless a `Half` field says otherwise).
    Size(Role),
    /// 1 = high 16-bit half, 0 = low half.
    Half(Role),
    /// Uniform-register number of the role's operand.
    Uniform(Role),
    /// Unsigned integer immediate of the role's operand.
    ImmU(Role),
    /// Sign/magnitude-free two's complement immediate of the role's operand.
    ImmS(Role),
    /// G16 8-bit float immediate packed as flag|mant<<1|exp<<4|sign<<8 (see `minifloat`).
    ImmF8(Role),
    /// Special-register number (get_sr).
    SpecialReg,
    /// Predicate bank p0..p5 (6/7 = constant true/false in exec-mask pushes).
    Pred,
    /// Byte offset of a branch target relative to a form-specific base.
    BranchOffset,
    /// Consumer wait on scoreboard slots.
    Wait(SlotLayout),
    /// Producer publication slot.
    Produce(ProduceLayout),
    /// Set = the role's source register is released (later reads see 0).
    Release(Role),
    /// Set = the destination is published.
    Publish,
    /// Selects the operation within the form (e.g. SFU function, LUT).
    OpSelect,
    /// A known modifier (negate, abs, rounding, format ...).
    Modifier,
    /// Bits localised by byte-diff whose meaning is not established.
    Raw,
}

/// One field: where its bits are (LSB-first pieces), what it means, and how well that is known.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub pieces: &'static [Bits],
    pub kind: Kind,
    pub evidence: Evidence,
    /// `repo:path` (experiment) the fact comes from.
    pub source: &'static str,
}

impl Field {
    /// Total width of the field in bits.
    pub fn width(&self) -> u32 {
        self.pieces.iter().map(|p| p.width as u32).sum()
    }
    /// Largest value the field can hold.
    pub fn max(&self) -> u64 {
        let w = self.width();
        if w >= 64 {
            u64::MAX
        } else {
            (1u64 << w) - 1
        }
    }
}

/// Register reach of one operand of a form: the registers the hardware is known to address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    pub role: Role,
    pub max_gpr: u8,
    pub evidence: Evidence,
}

/// One instruction form: the unit of decode, encode, print and parse.
#[derive(Debug)]
pub struct Form {
    /// Unique mnemonic of the form (used by the printer and parser).
    pub name: &'static str,
    /// Semantic identity.
    pub op: Op,
    /// Length in bytes (2..=16, even).
    pub len: u8,
    pub matches: &'static [Match],
    pub fields: &'static [Field],
    pub reach: &'static [Reach],
    pub evidence: Evidence,
    /// `repo:path` (experiment) for the form as a whole.
    pub source: &'static str,
}

impl Form {
    /// Hardware-validated forms are the only ones a compiler emits by default.
    pub fn emittable(&self) -> bool {
        self.evidence == Evidence::Hardware
    }

    /// Highest register number the hardware is known to reach for `role`, if the form has one.
    pub fn reach(&self, role: Role) -> Option<Reach> {
        self.reach.iter().copied().find(|r| r.role == role)
    }

    /// Index of the field called `name`.
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

// ---- const helpers used by the table ----

pub const fn b(lo: u8, width: u8) -> Bits {
    Bits { lo, width }
}

pub const fn m(lo: u8, width: u8, value: u64) -> Match {
    Match {
        bits: Bits { lo, width },
        value,
    }
}

pub const fn fld(
    name: &'static str,
    pieces: &'static [Bits],
    kind: Kind,
    evidence: Evidence,
    source: &'static str,
) -> Field {
    Field {
        name,
        pieces,
        kind,
        evidence,
        source,
    }
}

pub const fn reach(role: Role, max_gpr: u8, evidence: Evidence) -> Reach {
    Reach {
        role,
        max_gpr,
        evidence,
    }
}

/// Forms are identified by their unique mnemonic.
impl PartialEq for Form {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for Form {}

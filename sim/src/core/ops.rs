//! The model's executable instruction form: every field already interpreted,
//! so the interpreter never looks at instruction bits (those are read once, by
//! `agx16_isa` decode, in `crate::lower`).

use crate::fp::sfu::SfuFunc;

/// Which bits of a 32-bit register an operand names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Full,
    Lo,
    Hi,
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    Gpr(u8, Part),
    Uniform(u16, Part),
    /// Immediate bits (already in the operand's type).
    Imm(u32),
    /// Reads zero (a released or otherwise dead operand is modelled by the state instead).
    Zero,
}

/// A destination register part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dst {
    pub reg: u8,
    pub part: Part,
}

/// How a 16-bit or 32-bit operand is interpreted by float arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FType {
    F32,
    F16,
    Bf16,
}

/// Source modifiers applied before the operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FMod {
    pub abs: bool,
    pub neg: bool,
    /// A 16-bit source holds bfloat16 rather than binary16.
    pub bf16: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FBinOp {
    Add,
    Mul,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntBinOp {
    Add,
    Sub,
    /// Bitwise function as a truth table: bit 2x+y is f(x, y) with x the B
    /// operand and y the A operand (agx16-isa `LogicFn::apply_ilogic`).
    Logic(u8),
    Shl,
    ShrU,
    ShrS,
    MinU,
    MaxU,
    MinS,
    MaxS,
}

/// Integer/float conversions the model executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    /// int -> fp32, round to nearest even.
    IntToF32 { signed: bool },
    /// fp32 -> int, round toward zero; out-of-range inputs saturate and NaN gives 0
    /// (`crate::value_rules`).
    F32ToIntRtz { signed: bool },
}

/// fp32 minimum/maximum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FMinMax {
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    LtU,
    LeU,
    GtU,
    GeU,
    LtS,
    LeS,
    GtS,
    GeS,
    LtF,
    LeF,
    GtF,
    GeF,
    EqF,
    NeF,
    /// `a <= b` or either operand NaN (extended compare relation 3, EXP-M4-45).
    LeFOrUnordered,
}

/// Memory element formats of device loads and stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemFormat {
    U8,
    U16,
    U32,
}

impl MemFormat {
    pub fn bytes(self) -> usize {
        match self {
            MemFormat::U8 => 1,
            MemFormat::U16 => 2,
            MemFormat::U32 => 4,
        }
    }
}

/// Thread-invariant and per-thread values `get_sr` can read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecialReg {
    ThreadPositionInGrid(u8),
    ThreadPositionInThreadgroup(u8),
    ThreadgroupPositionInGrid(u8),
    ThreadsPerThreadgroup(u8),
    ThreadIndexInSimdgroup,
    SimdgroupIndexInThreadgroup,
}

/// Where a memory access goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Address {
    /// Buffer base slot (a 64-bit address in uniform registers 2n, 2n+1).
    pub base_slot: u16,
    /// Per-lane element index (unsigned 32-bit).
    pub index: Src,
    /// Byte offset = index << shift.
    pub shift: u8,
}

/// One pre-decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Stop,
    /// No architectural effect in this model (e.g. a SIMD-group barrier).
    Nop,
    Mov {
        dst: Dst,
        src: Src,
    },
    /// `dst = unorm(a) | unorm(b) << bits`: clamp to [0, 1], scale by 2^bits - 1,
    /// round to nearest even (16-bit fields fill a word, 8-bit ones a half).
    PackUnorm {
        dst: Dst,
        a: Src,
        b: Src,
        bits: u8,
    },
    GetSr {
        dst: Dst,
        sr: SpecialReg,
    },
    FBin {
        op: FBinOp,
        ty: FType,
        dst: Dst,
        a: Src,
        am: FMod,
        b: Src,
        bm: FMod,
    },
    /// d = min/max(a, b) on fp32: minNum/maxNum, a tie of ±0 returns b (`crate::value_rules`).
    FMinMax {
        op: FMinMax,
        dst: Dst,
        a: Src,
        b: Src,
    },
    /// 32-bit integer <-> fp32 conversion.
    Convert {
        conv: Conversion,
        dst: Dst,
        src: Src,
    },
    /// d = mod(a) on fp32 (fmov/fabs/fneg).
    FUnary {
        dst: Dst,
        a: Src,
        m: FMod,
    },
    /// d = ±(a*b) + c with a single rounding.
    FFma {
        ty: FType,
        dst: Dst,
        a: Src,
        b: Src,
        c: Src,
        neg_product: bool,
        cm: FMod,
    },
    Sfu {
        func: SfuFunc,
        src_ty: FType,
        dst_ty: FType,
        dst: Dst,
        src: Src,
        m: FMod,
    },
    IBin {
        op: IntBinOp,
        dst: Dst,
        a: Src,
        b: Src,
    },
    /// d = a*b + c (wrapping, low 32 bits).
    IMad {
        dst: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Select {
        cmp: Cmp,
        dst: Dst,
        a: Src,
        b: Src,
        t: Src,
        f: Src,
    },
    /// Writes bank `bank` of the predicate file: lane bit = cmp(a, b) ^ invert.
    PredCompare {
        bank: u8,
        cmp: Cmp,
        a: Src,
        b: Src,
        invert: bool,
    },
    Load {
        fmt: MemFormat,
        dst: Dst,
        count: u8,
        addr: Address,
    },
    Store {
        fmt: MemFormat,
        src: Src,
        count: u8,
        addr: Address,
    },
    /// Per-invocation scratch word `word` := `src` (a full register), completing on the
    /// producer slot; the source register is released (`core::scratch`).
    ScratchStore {
        word: u16,
        src: Src,
    },
    /// `dst` := scratch word `word`, pending on the producer slot like a device load.
    ScratchLoad {
        word: u16,
        dst: Dst,
    },
    /// Structured `if`: push the mask, keep lanes whose predicate (bank, or
    /// constant true/false) matches.
    IfPush {
        pred: PredSel,
    },
    /// Opens a loop scope (mask unchanged).
    LoopPush,
    /// Loop latch / break: lanes whose predicate says "leave" stop until the
    /// loop's pop. `depth` = scopes open inside the loop.
    LoopUpdate {
        pred: PredSel,
        depth: u8,
    },
    /// Break-unwind: active lanes leave loop `level` (1 = outermost);
    /// `ifs` scopes are open inside the innermost loop.
    BreakUnwind {
        level: u8,
        ifs: u8,
    },
    Else,
    Pop {
        scope: super::exec_mask::Scope,
    },
    /// Jump by `target` (index into the program) when the condition holds.
    Jump {
        target: usize,
        cond: JumpCond,
    },
    Barrier,
    /// Launcher (setup invocation) only: loads `count` 64-bit pointers from
    /// `[r<base>:r<base+1>] + 8*offset` into r<dst>.. (low word first), pending
    /// on the producer slot like a device load.
    PointerLoad {
        dst: u8,
        base: u8,
        offset: u8,
        count: u8,
    },
    /// Launcher only: argument (uniform) word `word` of the stage body = `src`.
    ArgStore {
        word: u16,
        src: Src,
    },
    /// Launcher only: the stage's allocation (threadgroup memory / tile layout).
    StageAlloc(agx16_isa::meaning::StageAllocation),
    /// Launcher only: USC byte offset of the entry the body starts from.
    StageTarget {
        entry: u64,
    },
    /// Launcher only: publication capacity and scratch frame extents.
    LaunchFrame(agx16_isa::meaning::LaunchFrame),
    /// An instruction the model will not execute (unestablished or not
    /// implemented); reaching it stops the SIMD-group with this error.
    Refuse(crate::error::SimError),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredSel {
    Bank { bank: u8, invert: bool },
    True,
    False,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JumpCond {
    Always,
    /// No lane is active (skips an empty arm).
    NoneActive,
    AnyActive,
}

/// Scoreboard behaviour of one instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hazard {
    /// Slots named by the consumer's wait field (bit s-1 = slot s).
    pub wait: u8,
    /// The wait field is a base-slot index (a group starts there) rather than a mask.
    pub wait_is_base: bool,
    /// The form has a wait field at all.
    pub has_wait_field: bool,
    /// This instruction publishes its result on this slot (1..=6), if a producer.
    pub produce: Option<u8>,
    /// A direct device store that names the pending value by register
    /// (EXP-M4-36): has no wait field of its own.
    pub direct_store: bool,
    /// The wait completes every value pending on the named slots, not only
    /// the operands this instruction reads (launcher argument transfers: one
    /// waiting transfer, then the rest read their loaded words; GravityLinux/mesa
    /// README.apple9-launchers.md "Resource ABI", readouts matched on T8132).
    pub drains_slots: bool,
}

/// A pre-decoded instruction with its position and lifetime effects.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    pub pc: u32,
    pub len: u8,
    pub kind: Kind,
    pub hazard: Hazard,
    /// Registers (with part) released by this instruction: later reads see zero.
    pub releases: Releases,
}

/// The at most four source registers an instruction releases (one per source role), kept
/// inline: ops are cloned out of the lowering memo on every decode of a launcher (every
/// draw), and a `Vec` here cost an allocation per op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Releases {
    len: u8,
    regs: [(u8, Part); 4],
}

impl Default for Releases {
    fn default() -> Self {
        Releases {
            len: 0,
            regs: [(0, Part::Full); 4],
        }
    }
}

impl Releases {
    /// Adds a release; an instruction has four source roles, so a fifth is a lowering bug.
    pub fn push(&mut self, r: (u8, Part)) {
        self.regs[self.len as usize] = r;
        self.len += 1;
    }
}

impl std::ops::Deref for Releases {
    type Target = [(u8, Part)];
    fn deref(&self) -> &[(u8, Part)] {
        &self.regs[..self.len as usize]
    }
}

impl std::ops::DerefMut for Releases {
    fn deref_mut(&mut self) -> &mut [(u8, Part)] {
        &mut self.regs[..self.len as usize]
    }
}

impl<'a> IntoIterator for &'a Releases {
    type Item = &'a (u8, Part);
    type IntoIter = std::slice::Iter<'a, (u8, Part)>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl Kind {
    /// Every source operand, in operand order.
    pub fn sources(&self) -> impl Iterator<Item = Src> {
        let v: [Option<Src>; 4] = match *self {
            Kind::Mov { src, .. } => [Some(src), None, None, None],
            Kind::FUnary { a, .. } => [Some(a), None, None, None],
            Kind::Convert { src, .. } => [Some(src), None, None, None],
            Kind::FBin { a, b, .. }
            | Kind::IBin { a, b, .. }
            | Kind::PredCompare { a, b, .. }
            | Kind::FMinMax { a, b, .. }
            | Kind::PackUnorm { a, b, .. } => [Some(a), Some(b), None, None],
            Kind::FFma { a, b, c, .. } | Kind::IMad { a, b, c, .. } => {
                [Some(a), Some(b), Some(c), None]
            }
            Kind::Sfu { src, .. } => [Some(src), None, None, None],
            Kind::Select { a, b, t, f, .. } => [Some(a), Some(b), Some(t), Some(f)],
            Kind::Load { addr, .. } => [Some(addr.index), None, None, None],
            Kind::Store { src, addr, .. } => [Some(src), Some(addr.index), None, None],
            Kind::ScratchStore { src, .. } => [Some(src), None, None, None],
            Kind::PointerLoad { base, .. } => [
                Some(Src::Gpr(base, Part::Full)),
                Some(Src::Gpr(base.saturating_add(1), Part::Full)),
                None,
                None,
            ],
            Kind::ArgStore { src, .. } => [Some(src), None, None, None],
            _ => [None; 4],
        };
        v.into_iter().flatten()
    }
}

//! Machine IR: the program after register allocation, as a linear list with structured
//! control-flow markers. Scheduling annotations (scoreboard slots, lifetime bits) live here.

pub mod interp;

use crate::ir::{Op, Type};
use smallvec::SmallVec;
use std::fmt;

/// A register tuple: `halves` consecutive 16-bit halves starting at half `half`
/// (GPR `half / 2`; an odd start is the high half of that GPR).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    pub half: u16,
    pub halves: u8,
}

impl Reg {
    pub fn gpr(self) -> u32 {
        self.half as u32 / 2
    }
    pub fn end(self) -> u16 {
        self.half + self.halves as u16
    }
    pub fn overlaps(self, o: Reg) -> bool {
        self.half < o.end() && o.half < self.end()
    }
    /// The `comp`-th component of `elem_halves` each.
    pub fn comp(self, comp: u8, elem_halves: u8) -> Reg {
        Reg {
            half: self.half + (comp * elem_halves) as u16,
            halves: elem_halves,
        }
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.halves, self.half % 2) {
            (1, 0) => write!(f, "r{}l", self.gpr()),
            (1, _) => write!(f, "r{}h", self.gpr()),
            (2, _) => write!(f, "r{}", self.gpr()),
            (n, _) => write!(f, "r{}:r{}", self.gpr(), self.gpr() + n as u32 / 2 - 1),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MOperand {
    Reg(Reg),
    Imm(u32),
    Uniform(u16),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MSrc {
    pub op: MOperand,
    /// The type the instruction reads this source as.
    pub ty: Type,
    pub neg: bool,
    pub abs: bool,
    /// Lifetime bit: this read is the register's last; hardware may drop it (later reads give 0).
    pub release: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MInstr {
    pub op: Op,
    /// Destination type (operation width).
    pub ty: Type,
    pub dst: Option<Reg>,
    pub srcs: SmallVec<[MSrc; 3]>,
    pub sat: bool,
    /// Async producers: the scoreboard slot (1–6) its result is tagged with.
    pub produce_slot: u8,
    /// Consumers: the scoreboard slots named to receive pending results (bit s-1 for slot s;
    /// empty = ordinary register path). More than one slot is a contiguous group (6→1 wraps),
    /// which index layouts encode as its base slot.
    pub wait: u8,
    /// Texture ops: the coordinate publication tuple (base 4 * this) the scoreboard pass gave
    /// the op, free of every texture op still in flight (`sched::scoreboard`).
    pub tuple: u8,
    /// Lifetime bit: the destination is read later, so it must be published to the file.
    pub publish: bool,
    /// The result is read only by the structured `if` right after it (a compare that
    /// selection fuses into the predicate compare feeding the exec-mask push).
    pub feeds_branch_only: bool,
}

/// The base of a contiguous (cyclic 1..6) slot group, or `None` if the set is not one.
pub fn group_base(set: u8) -> Option<u8> {
    let has = |s: u8| set >> (s - 1) & 1 == 1;
    let pred = |s: u8| if s == 1 { 6 } else { s - 1 };
    let starts: Vec<u8> = (1..=6).filter(|&s| has(s) && !has(pred(s))).collect();
    match (set & 0x3f, starts.as_slice()) {
        (0, _) => None,
        (0x3f, _) => Some(6),
        (_, [b]) => Some(*b),
        _ => None,
    }
}

impl MInstr {
    pub fn new(op: Op, ty: Type, dst: Option<Reg>, srcs: impl IntoIterator<Item = MSrc>) -> Self {
        MInstr {
            op,
            ty,
            dst,
            srcs: srcs.into_iter().collect(),
            sat: false,
            produce_slot: 0,
            wait: 0,
            tuple: 0,
            feeds_branch_only: false,
            publish: true,
        }
    }
    pub fn src_regs(&self) -> impl Iterator<Item = Reg> + '_ {
        self.srcs.iter().filter_map(|s| match s.op {
            MOperand::Reg(r) => Some(r),
            _ => None,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum MItem {
    Instr(MInstr),
    /// Push the exec mask: lanes where `cond` (a bool register) is true run the then-arm.
    If {
        cond: Reg,
    },
    Else,
    EndIf,
    Loop,
    EndLoop,
    Break,
    Continue,
    Return,
    Discard,
}

/// Statistics in the spirit of Mesa's shader-db lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub instrs: u32,
    pub bytes: u32,
    pub gprs: u32,
    pub spills: u32,
    pub fills: u32,
    pub scoreboard_waits: u32,
    pub copies: u32,
}

impl Stats {
    /// One line in the spirit of Mesa's shader-db reports.
    pub fn shader_db_line(&self, stage: &str) -> String {
        format!(
            "{stage} shader: {} inst, {} bytes, {} gprs, {} spills, {} fills, {} scoreboard waits, {} copies",
            self.instrs, self.bytes, self.gprs, self.spills, self.fills, self.scoreboard_waits, self.copies
        )
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct MProgram {
    pub items: Vec<MItem>,
    /// 32-bit words of per-thread scratch the spills use (accesses name words 0..this);
    /// a G16 launch needs frame extent A = 4 * this bytes.
    pub scratch_words: u32,
    pub stats: Stats,
}

impl MProgram {
    /// Coordinate publication tuples the texture ops use (bases 0, 4, .. below 4 * this).
    pub fn texture_tuples(&self) -> u8 {
        self.items
            .iter()
            .filter_map(|it| match it {
                MItem::Instr(i) if matches!(i.op, Op::Texture { .. }) => Some(i.tuple + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }
}

impl fmt::Display for MInstr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(d) = self.dst {
            write!(f, "{d}{} = ", if self.publish { "" } else { "(nopub)" })?;
        }
        write!(
            f,
            "{}.{}{}",
            self.op,
            self.ty,
            if self.sat { ".sat" } else { "" }
        )?;
        for (k, s) in self.srcs.iter().enumerate() {
            let mut t = match s.op {
                MOperand::Reg(r) => r.to_string(),
                MOperand::Imm(b) => format!("#{b:#x}"),
                MOperand::Uniform(u) => format!("u{u}"),
            };
            if s.abs {
                t = format!("|{t}|");
            }
            if s.neg {
                t = format!("-{t}");
            }
            if s.release {
                t.push_str("(rel)");
            }
            write!(f, "{}{t}", if k == 0 { " " } else { ", " })?;
        }
        if let Op::Texture { .. } = self.op {
            write!(f, " @c{}", 4 * self.tuple as u32)?;
        }
        if self.produce_slot != 0 {
            write!(f, " ->sb{}", self.produce_slot)?;
        }
        if self.wait != 0 {
            let slots: Vec<String> = (1..=6)
                .filter(|s| self.wait >> (s - 1) & 1 == 1)
                .map(|s| s.to_string())
                .collect();
            write!(f, " <-sb{}", slots.join(","))?;
        }
        Ok(())
    }
}

impl fmt::Display for MProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut depth = 0usize;
        for it in &self.items {
            if matches!(it, MItem::Else | MItem::EndIf | MItem::EndLoop) {
                depth = depth.saturating_sub(1);
            }
            let pad = "  ".repeat(depth + 1);
            match it {
                MItem::Instr(i) => writeln!(f, "{pad}{i}")?,
                MItem::If { cond } => writeln!(f, "{pad}if {cond}")?,
                other => writeln!(f, "{pad}{}", format!("{other:?}").to_lowercase())?,
            }
            if matches!(it, MItem::If { .. } | MItem::Else | MItem::Loop) {
                depth += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::group_base;

    #[test]
    fn contiguous_slot_groups_and_their_base() {
        assert_eq!(group_base(1 << 5), Some(6));
        assert_eq!(group_base((1 << 5) | 1), Some(6)); // 6 -> 1 wraps
        assert_eq!(group_base(0b000110), Some(2));
        assert_eq!(group_base(0b000101), None); // 1 and 3: hole at 2
        assert_eq!(group_base((1 << 5) | 0b10), None); // 6 and 2: hole at 1
        assert_eq!(group_base(0x3f), Some(6));
        assert_eq!(group_base(0), None);
    }
}

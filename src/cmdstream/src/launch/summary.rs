//! Reads a launcher program back into its parameters (decoder and model side), through
//! `agx16-isa`'s decoder and launcher meanings. Only the established sequence is accepted:
//! literal moves, pointer loads, allocation, target, frame, argument transfers, then STOP
//! (optionally after a tail jump to a compiled setup body).

use super::LaunchError;
use agx16_isa::meaning::{self, LaunchFrame, StageAllocation};
use agx16_isa::{Op, Operand, Role};
use std::collections::BTreeMap;
use std::fmt;

/// One pointer load of a launcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointerLoad {
    pub dst: u8,
    pub base: u8,
    /// Offset in 8-byte units from the root address.
    pub offset: u8,
    /// Pointers loaded (1 or 2).
    pub count: u8,
}

/// One argument transfer: argument word `word` = r`src`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgumentTransfer {
    pub word: u16,
    pub src: u8,
    pub waits_for_loads: bool,
}

/// What a launcher program sets up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchSummary {
    /// Full address in the root pair of the pointer loads.
    pub resource_table: u64,
    pub loads: Vec<PointerLoad>,
    pub allocation: StageAllocation,
    /// USC byte offset of the selected entry.
    pub entry_offset: u64,
    pub frame: LaunchFrame,
    pub transfers: Vec<ArgumentTransfer>,
    /// Displacement of a tail jump to a compiled setup body, if present.
    pub setup_jump: Option<i64>,
    /// Bytes up to and including the STOP.
    pub length: usize,
}

fn err(at: usize, what: impl Into<String>) -> LaunchError {
    LaunchError::Program {
        at,
        what: what.into(),
    }
}

fn gpr(i: &agx16_isa::Instr, role: Role) -> Option<u8> {
    match i.operand(role)?.value {
        Operand::Gpr { reg, .. } => Some(reg),
        _ => None,
    }
}

/// Decodes a launcher from `bytes` (which may extend past its STOP).
pub fn summarize_launcher(bytes: &[u8]) -> Result<LaunchSummary, LaunchError> {
    let mut literals = BTreeMap::new();
    let (mut loads, mut transfers) = (Vec::new(), Vec::new());
    let (mut allocation, mut entry, mut frame, mut setup_jump) = (None, None, None, None);
    for item in agx16_isa::split(bytes) {
        let (at, i) = item.map_err(|e| err(e.offset(), e.to_string()))?;
        let bad = |what: String| err(at, what);
        match i.form.op {
            Op::MovImm if i.form.name == "mov_imm32" && loads.is_empty() => {
                let dst = gpr(&i, Role::Dst).ok_or_else(|| bad("literal without dst".into()))?;
                literals.insert(dst, i.field("imm").unwrap_or(0) as u32);
            }
            Op::PointerLoad if allocation.is_none() => loads.push(PointerLoad {
                dst: gpr(&i, Role::Dst).unwrap_or(0),
                base: gpr(&i, Role::SrcA).unwrap_or(0),
                offset: i.field("offset").unwrap_or(0) as u8,
                count: meaning::pointer_load_count(&i).map_err(bad)?,
            }),
            Op::StageAllocation if allocation.is_none() => {
                allocation = Some(meaning::stage_allocation(&i).map_err(bad)?.0)
            }
            Op::StageTarget if allocation.is_some() && entry.is_none() => {
                entry = Some(meaning::stage_entry(&i).map_err(bad)?)
            }
            Op::LaunchFrame if entry.is_some() && frame.is_none() => {
                frame = Some(meaning::launch_frame(&i).map_err(bad)?)
            }
            Op::ArgumentStore if frame.is_some() && setup_jump.is_none() => {
                let word = match i.operand(Role::Dst).map(|o| o.value) {
                    Some(Operand::Uniform { index, .. }) => index,
                    _ => return Err(bad("argument store without a word".into())),
                };
                transfers.push(ArgumentTransfer {
                    word,
                    src: gpr(&i, Role::SrcA).unwrap_or(0),
                    waits_for_loads: i.wait().is_some_and(|w| !w.slots.is_empty()),
                });
            }
            Op::Jump if frame.is_some() && setup_jump.is_none() => {
                setup_jump = i.operand(Role::SrcA).and_then(|o| match o.value {
                    Operand::ImmInt(v) => Some(v),
                    _ => None,
                });
            }
            Op::Stop => {
                let base = loads
                    .first()
                    .map(|l| l.base)
                    .ok_or_else(|| bad("no pointer loads".into()))?;
                let half = |r: u8| {
                    literals
                        .get(&r)
                        .copied()
                        .ok_or_else(|| bad(format!("root r{r} is never set")))
                };
                let resource_table = half(base)? as u64 | (half(base + 1)? as u64) << 32;
                return Ok(LaunchSummary {
                    resource_table,
                    loads,
                    allocation: allocation.ok_or_else(|| bad("no stage allocation".into()))?,
                    entry_offset: entry.ok_or_else(|| bad("no stage target".into()))?,
                    frame: frame.ok_or_else(|| bad("no launch frame".into()))?,
                    transfers,
                    setup_jump,
                    length: at + i.form.len as usize,
                });
            }
            _ => return Err(bad(format!("{} is out of launcher order", i.form.name))),
        }
    }
    Err(err(bytes.len(), "no STOP"))
}

impl fmt::Display for LaunchSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointers: u32 = self.loads.iter().map(|l| l.count as u32).sum();
        write!(
            f,
            "roots @ {:#x} ({} pointers), {:?}, entry +{:#x}, {} publication words, frame A {} B {}, {} argument words",
            self.resource_table,
            pointers,
            self.allocation,
            self.entry_offset,
            self.frame.publication_words,
            self.frame.extent_a,
            self.frame.extent_b,
            self.transfers.len()
        )?;
        if let Some(d) = self.setup_jump {
            write!(f, ", setup body at {d:+}")?;
        }
        Ok(())
    }
}

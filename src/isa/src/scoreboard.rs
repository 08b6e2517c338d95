//! Scoreboard slots and register lifetime: one accessor over the four consumer-slot layouts,
//! producer publication, source release and destination publication.

use crate::evidence::Evidence;
use crate::form::{Kind, ProduceLayout, Role, SlotLayout};
use crate::instr::{EncodeError, Instr};

/// Slot published by atomic-result codes 1..=6.
const ATOMIC_RESULT_SLOTS: [u8; 6] = [6, 1, 3, 2, 4, 5];

/// A set of scoreboard slots 1..=6 (bit s-1 = slot s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SlotSet(pub u8);

impl SlotSet {
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn contains(self, slot: u8) -> bool {
        (1..=6).contains(&slot) && self.0 & (1 << (slot - 1)) != 0
    }
    pub fn slots(self) -> impl Iterator<Item = u8> {
        (1..=6u8).filter(move |s| self.contains(*s))
    }
}

/// Scoreboard wait of a consumer, read through its layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    pub layout: SlotLayout,
    pub slots: SlotSet,
    /// Raw selector 7 of the index layouts: not a real slot, never emitted.
    pub reserved7: bool,
    pub evidence: Evidence,
}

impl Instr {
    /// Scoreboard slots this instruction waits on, read through the form's layout.
    pub fn wait(&self) -> Option<Wait> {
        let (f, v) = self.find(|k| matches!(k, Kind::Wait(_)))?;
        let Kind::Wait(layout) = f.kind else {
            unreachable!()
        };
        let (slots, reserved7) = match layout {
            SlotLayout::Index45 | SlotLayout::Index61 => match v {
                0 => (SlotSet(0), false),
                7 => (SlotSet(0), true),
                s => (SlotSet(1 << (s - 1)), false),
            },
            SlotLayout::Mask12 | SlotLayout::MaskSplit45_61 => (SlotSet(v as u8 & 0x3f), false),
            SlotLayout::Flag30Slot2 => (SlotSet(if v != 0 { 1 << 1 } else { 0 }), false),
        };
        Some(Wait {
            layout,
            slots,
            reserved7,
            evidence: f.evidence,
        })
    }

    /// Set the wait field from a slot set (index layouts take at most one slot).
    pub fn set_wait(&mut self, slots: SlotSet) -> Result<&mut Self, EncodeError> {
        let form = self.form;
        let i = form
            .fields
            .iter()
            .position(|f| matches!(f.kind, Kind::Wait(_)))
            .ok_or_else(|| EncodeError::Other(format!("{} has no wait field", form.name)))?;
        let Kind::Wait(layout) = form.fields[i].kind else {
            unreachable!()
        };
        let v = match layout {
            SlotLayout::Index45 | SlotLayout::Index61 => match slots.0.count_ones() {
                0 => 0,
                1 => slots.0.trailing_zeros() as u64 + 1,
                _ => {
                    return Err(EncodeError::Other(format!(
                        "{} names one base slot; got {:?}",
                        form.name, slots
                    )))
                }
            },
            SlotLayout::Mask12 | SlotLayout::MaskSplit45_61 => (slots.0 & 0x3f) as u64,
            SlotLayout::Flag30Slot2 => match slots.0 {
                0 => 0,
                0b10 => 1,
                _ => {
                    return Err(EncodeError::Other(format!(
                        "{} can only wait on slot 2; got {:?}",
                        form.name, slots
                    )))
                }
            },
        };
        self.set_index(i, v)
    }

    /// Scoreboard slot this producer publishes its result on (1..=6), if it is a producer.
    pub fn produce(&self) -> Option<(u8, Evidence)> {
        let (f, v) = self.find(|k| matches!(k, Kind::Produce(_)))?;
        let Kind::Produce(layout) = f.kind else {
            unreachable!()
        };
        let slot = match layout {
            // t = 2(s-1) mod 7  =>  s-1 = 4t mod 7 (4 is the inverse of 2 mod 7)
            ProduceLayout::LoadToken => ((4 * v) % 7) as u8 + 1,
            ProduceLayout::AtomicNibble => match v {
                1 => 6,
                2 => 1,
                4 => 2,
                _ => return None,
            },
            ProduceLayout::AtomicResultCode => match v {
                1..=6 => ATOMIC_RESULT_SLOTS[v as usize - 1],
                _ => return None,
            },
            ProduceLayout::SlotIndex => match v {
                0..=5 => v as u8 + 1,
                _ => return None,
            },
        };
        Some((slot, f.evidence))
    }

    /// Set the producer slot (1..=6).
    pub fn set_produce(&mut self, slot: u8) -> Result<&mut Self, EncodeError> {
        let form = self.form;
        let i = form
            .fields
            .iter()
            .position(|f| matches!(f.kind, Kind::Produce(_)))
            .ok_or_else(|| EncodeError::Other(format!("{} is not a producer", form.name)))?;
        if !(1..=6).contains(&slot) {
            return Err(EncodeError::Other(format!("slot {slot} is not 1..=6")));
        }
        let Kind::Produce(layout) = form.fields[i].kind else {
            unreachable!()
        };
        let v = match layout {
            ProduceLayout::LoadToken => (2 * (slot as u64 - 1)) % 7,
            ProduceLayout::AtomicNibble => match slot {
                6 => 1,
                1 => 2,
                2 => 4,
                _ => {
                    return Err(EncodeError::Other(format!(
                        "atomic slot {slot} not established"
                    )))
                }
            },
            ProduceLayout::SlotIndex => slot as u64 - 1,
            ProduceLayout::AtomicResultCode => ATOMIC_RESULT_SLOTS
                .iter()
                .position(|s| *s == slot)
                .map_or(0, |p| p as u64 + 1),
        };
        self.set_index(i, v)
    }

    /// Whether the source of `role` is released by this instruction (later reads see 0).
    pub fn releases(&self, role: Role) -> Option<(bool, Evidence)> {
        self.find(|k| k == Kind::Release(role))
            .map(|(f, v)| (v != 0, f.evidence))
    }

    /// Whether the destination is published.
    pub fn publishes(&self) -> Option<(bool, Evidence)> {
        self.find(|k| k == Kind::Publish)
            .map(|(f, v)| (v != 0, f.evidence))
    }
}

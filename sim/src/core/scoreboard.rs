//! Asynchronous results and the six scoreboard slots.
//!
//! Rules (niklassheth/agx-re:APPLE9_SCOREBOARD_SLOTS.md, measured on M4 with
//! full-output oracles; EXP-M4-33/34/35/36/44):
//! - a producer (device load, texture, returning atomic) publishes its result on
//!   one slot 1..=6; the value is not in the GPR until a consumer takes it;
//! - the first consumer names the slot (or the base of a contiguous group,
//!   wrapping 6 -> 1); that handoff writes the value into the GPR and frees the
//!   slot, later reads are ordinary (slot 0);
//! - a consumer naming slot 0 or any other slot reads zero for that operand
//!   (EXP-M4-44 falu2i selector mutations: every lane reads 0);
//! - a direct device store names the pending value by register and needs a
//!   slot-6 scalar load among the pending producers, else it stores zero
//!   (EXP-M4-36).

use super::ops::Part;
use super::{Lanes, GPRS, LANES};

/// Values in flight to the register file.
pub struct Pending {
    /// Slot (1..=6) each register's pending value is published on; 0 = none.
    pub tag: [u8; GPRS],
    /// Lanes the producer wrote.
    pub lanes: [u32; GPRS],
    /// Register part the value goes to.
    pub part: [Part; GPRS],
    pub vals: Box<[Lanes; GPRS]>,
    /// Number of registers with a pending value.
    pub count: u32,
}

impl Default for Pending {
    fn default() -> Self {
        Pending { tag: [0; GPRS], lanes: [0; GPRS], part: [Part::Full; GPRS], vals: Box::new([[0; LANES]; GPRS]), count: 0 }
    }
}

/// What a consumer's read of a pending register yields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handoff {
    /// The value arrives (and is written to the register).
    Deliver,
    /// The operand reads zero; the value stays in flight.
    Zero,
}

/// Slots a consumer accepts: `named` (bit s-1 = slot s) for a mask layout, or
/// for an index layout the group of `group` slots starting at the named base.
pub fn accepted_slots(named: u8, base_layout: bool, group: u32) -> u8 {
    if !base_layout || named == 0 {
        return named;
    }
    let base = named.trailing_zeros() as u8 + 1;
    let mut set = 0u8;
    let mut s = base;
    for _ in 0..group.clamp(1, 6) {
        set |= 1 << (s - 1);
        s = if s == 6 { 1 } else { s + 1 };
    }
    set
}

impl Pending {
    pub fn is_pending(&self, reg: u8) -> bool {
        self.tag[reg as usize] != 0
    }

    /// Any register pending on slot `slot`.
    pub fn any_on(&self, slot: u8) -> bool {
        self.count > 0 && self.tag.iter().any(|&t| t == slot)
    }

    pub fn publish(&mut self, reg: u8, part: Part, slot: u8, lanes: u32, vals: &Lanes) {
        let r = reg as usize;
        self.part[r] = part;
        if self.tag[r] == 0 {
            self.count += 1;
        }
        self.tag[r] = slot;
        self.lanes[r] |= lanes;
        for l in 0..LANES {
            if lanes >> l & 1 != 0 {
                self.vals[r][l] = vals[l];
            }
        }
    }

    /// Takes a pending value out (for delivery into the register file).
    pub fn take(&mut self, reg: u8) -> (u32, Lanes) {
        let r = reg as usize;
        self.tag[r] = 0;
        self.count -= 1;
        let lanes = std::mem::take(&mut self.lanes[r]);
        (lanes, self.vals[r])
    }

    /// Drops a pending value without delivering it.
    pub fn cancel(&mut self, reg: u8) {
        let r = reg as usize;
        if self.tag[r] != 0 {
            self.tag[r] = 0;
            self.lanes[r] = 0;
            self.count -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_selector_groups_wrap_from_six_to_one() {
        assert_eq!(accepted_slots(1 << 5, true, 2), 0b10_0001);
        assert_eq!(accepted_slots(1 << 5, true, 1), 0b10_0000);
        assert_eq!(accepted_slots(1 << 1, true, 3), 0b00_1110);
        assert_eq!(accepted_slots(0b1001, false, 2), 0b1001);
        assert_eq!(accepted_slots(0, true, 2), 0);
    }
}

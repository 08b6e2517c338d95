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
//!
//! Pending values are tracked per 16-bit half register (r*2 + high), so a
//! 16-bit load into r1.lo and another into r1.hi are independent (EXP-M4-54
//! half kernels, measured).

use super::ops::Part;
use super::{GPRS, LANES};

pub const HALVES: usize = 2 * GPRS;

/// The half registers an operand part covers.
pub fn halves(reg: u8, part: Part) -> std::ops::Range<usize> {
    let h = reg as usize * 2;
    match part {
        Part::Full => h..h + 2,
        Part::Lo => h..h + 1,
        Part::Hi => h + 1..h + 2,
    }
}

/// A set of half registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HalfSet([u64; 3]);

impl HalfSet {
    pub fn insert(&mut self, h: usize) {
        self.0[h / 64] |= 1 << (h % 64);
    }
    pub fn contains(&self, h: usize) -> bool {
        self.0[h / 64] >> (h % 64) & 1 != 0
    }
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 3]
    }
}

/// 16-bit values in flight to the register file.
pub struct Pending {
    /// Slot (1..=6) each half's pending value is published on; 0 = none.
    pub tag: [u8; HALVES],
    /// Lanes the producer wrote.
    pub lanes: [u32; HALVES],
    pub vals: Box<[[u16; LANES]; HALVES]>,
    /// Number of halves with a pending value.
    pub count: u32,
    /// Which publication each half's pending value came from (`publish` numbers them), so a
    /// later producer into the same register is not mistaken for the first one.
    pub seq: [u32; HALVES],
    next_seq: u32,
}

impl Default for Pending {
    fn default() -> Self {
        Pending {
            tag: [0; HALVES],
            lanes: [0; HALVES],
            vals: Box::new([[0; LANES]; HALVES]),
            count: 0,
            seq: [0; HALVES],
            next_seq: 0,
        }
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

/// Whether a consumer's wait field takes over the pending values it reads,
/// published on the slot set `tags` (bit s-1 = slot s). All or nothing: a
/// group either hands off whole or every member reads zero.
/// - index layouts name the group's base: the tags must be exactly the
///   contiguous run of slots from the base (wrapping 6 -> 1), so two loads on
///   slot 6 need base 6 and a load(6)+texture(1) pair needs base 6;
/// - mask layouts name slots one-hot: every tag must be named.
pub fn hands_off(named: u8, base_layout: bool, tags: u8) -> bool {
    if named == 0 || tags == 0 {
        return false;
    }
    if !base_layout {
        return tags & !named == 0;
    }
    let base = named.trailing_zeros() as u8 + 1;
    let mut window = 0u8;
    let mut s = base;
    for _ in 0..tags.count_ones() {
        window |= 1 << (s - 1);
        s = if s == 6 { 1 } else { s + 1 };
    }
    window == tags
}

impl Pending {
    /// Whether any half of the operand has a value in flight.
    pub fn is_pending(&self, reg: u8, part: Part) -> bool {
        self.count > 0 && halves(reg, part).any(|h| self.tag[h] != 0)
    }

    /// Any value pending on slot `slot`.
    pub fn any_on(&self, slot: u8) -> bool {
        self.count > 0 && self.tag.contains(&slot)
    }

    /// Publishes a loaded value for `part` of `reg` (16-bit parts take the low
    /// 16 bits of `vals`).
    /// Returns the publication's number (see [`Pending::in_flight`]).
    pub fn publish(
        &mut self,
        reg: u8,
        part: Part,
        slot: u8,
        lanes: u32,
        vals: &[u32; LANES],
    ) -> u32 {
        self.next_seq = self.next_seq.wrapping_add(1);
        for (k, h) in halves(reg, part).enumerate() {
            if self.tag[h] == 0 {
                self.count += 1;
            }
            self.tag[h] = slot;
            self.seq[h] = self.next_seq;
            self.lanes[h] |= lanes;
            let shift = if part == Part::Full { 16 * k } else { 0 };
            // a select per lane rather than a branch, indexed over the fixed lane count, so
            // the loop vectorises (also with overflow checks, as in the shim's build)
            let dst = &mut self.vals[h];
            for l in 0..LANES {
                let new = (vals[l] >> shift) as u16;
                dst[l] = if lanes >> l & 1 != 0 { new } else { dst[l] };
            }
        }
        self.next_seq
    }

    /// Whether publication `seq` (into `reg`) still has a half in flight.
    pub fn in_flight(&self, reg: u8, seq: u32) -> bool {
        self.count > 0 && halves(reg, Part::Full).any(|h| self.tag[h] != 0 && self.seq[h] == seq)
    }

    /// Forgets everything in flight.
    pub fn clear(&mut self) {
        if self.count != 0 {
            self.tag = [0; HALVES];
            self.lanes = [0; HALVES];
            self.count = 0;
        }
    }

    /// Takes a pending half out (for delivery into the register file).
    pub fn take(&mut self, h: usize) -> (u32, [u16; LANES]) {
        self.tag[h] = 0;
        self.count -= 1;
        (std::mem::take(&mut self.lanes[h]), self.vals[h])
    }

    /// Drops the pending values of an operand without delivering them.
    pub fn cancel(&mut self, reg: u8, part: Part) {
        if self.count == 0 {
            return;
        }
        for h in halves(reg, part) {
            if self.tag[h] != 0 {
                self.tag[h] = 0;
                self.lanes[h] = 0;
                self.count -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S1: u8 = 1;
    const S2: u8 = 2;
    const S6: u8 = 1 << 5;

    #[test]
    fn base_selector_groups_wrap_from_six_to_one() {
        assert!(hands_off(S6, true, S6));
        assert!(hands_off(S6, true, S6 | S1));
        assert!(!hands_off(S1, true, S6 | S1));
        assert!(
            !hands_off(1 << 4, true, S6),
            "a neighbouring base zeroes the group"
        );
        assert!(hands_off(S1, true, S1 | S2));
        assert!(!hands_off(0, true, S6));
    }

    #[test]
    fn mask_selectors_must_name_every_tag() {
        assert!(hands_off(S6, false, S6));
        assert!(hands_off(S6 | S1, false, S6));
        assert!(
            !hands_off(S2 | 4, false, S6),
            "FALU's binary 6 read as a mask names slots 2 and 3"
        );
    }

    #[test]
    fn halves_are_independent() {
        let mut p = Pending::default();
        p.publish(1, Part::Lo, 6, 1, &[0x1234; LANES]);
        assert!(
            p.is_pending(1, Part::Lo) && p.is_pending(1, Part::Full) && !p.is_pending(1, Part::Hi)
        );
        p.publish(1, Part::Hi, 1, 1, &[0x5678; LANES]);
        let (lanes, v) = p.take(3);
        assert_eq!((lanes, v[0]), (1, 0x5678));
        p.cancel(1, Part::Full);
        assert_eq!(p.count, 0);
    }
}

//! Per-invocation scratch: the word-indexed file `spill_store` / `spill_load` address.
//!
//! Facts (each with its source):
//! - scratch is a word-indexed file of its own per invocation, separate from the GPRs and
//!   addressed only by the instruction's word field (no base register or uniform): GravityLinux/
//!   mesa src/asahi/compiler/agx_apple9_machine.c (EXP-M4-60 comment, hardware evidence);
//! - its capacity is frame extent A of the stage's launcher: with S the highest word a body
//!   accesses, A = 4*(S+1) bytes passes on T8132 and one byte less fails, at four pressure
//!   levels (GravityLinux/mesa src/gallium/drivers/asahi/README.apple9-launchers.md
//!   "Resource ABI", measured). What an access beyond A does is not described beyond
//!   "fails", so it is an error here;
//! - the largest extent exercised on T8132 is 32768 bytes per invocation (GravityLinux/mesa
//!   agx_apple9 compute header `AGX_APPLE9_MAX_SCRATCH_BYTES`, "exercised on T8132 in all
//!   three stages"); the word fields are 13 bits wide, which is the same 8192 words
//!   (agx16-isa table/scratch.rs);
//! - store and load each produce a completion tag (a scoreboard slot) and a load's result is
//!   handed off like a device load's (agx_apple9_machine.c EXP-M4-60 comment; the
//!   GravityLinux physical scheduler, whose spilling shaders ran on T8132, inferred);
//! - a store releases its source register (GravityLinux/mesa agx_apple9 shared RA: "SAVE
//!   releases its input", inferred from their hardware-run lowering); modelled like a
//!   release bit: the register reads zero afterwards;
//! - the GravityLinux scheduler always waits for a pending store before another scratch
//!   access to the same word, before writing the store's source register, and before any
//!   block end or exec-mask change. Nothing else ran, so each of those is an error here;
//!   a wait field naming the store's slot completes it.
//!
//! Not established, hence errors: what a never-written word reads (the invocation's scratch
//! starts unwritten), extents beyond 32768 bytes.

use super::LANES;

/// Largest frame extent A (bytes) exercised on T8132 (see the module comment).
pub const MAX_SCRATCH_BYTES: u32 = 32768;

/// A store whose completion tag has not been waited for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingStore {
    pub slot: u8,
    pub word: u16,
    /// The source register the store read (destructively).
    pub reg: u8,
}

/// One SIMD-group's scratch: `words` 32-bit words per lane.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    /// Frame extent A in bytes.
    bytes: u32,
    /// `vals[w][l]`: word `w` of lane `l`.
    vals: Vec<[u32; LANES]>,
    /// Lanes that have written word `w`.
    written: Vec<u32>,
    pub stores: Vec<PendingStore>,
}

impl Scratch {
    /// A fresh (unwritten) scratch of `bytes` per lane, reusing the allocation.
    pub fn reset(&mut self, bytes: u32) {
        self.bytes = bytes;
        let words = (bytes / 4) as usize;
        self.vals.clear();
        self.vals.resize(words, [0; LANES]);
        self.written.clear();
        self.written.resize(words, 0);
        self.stores.clear();
    }

    pub fn bytes(&self) -> u32 {
        self.bytes
    }

    /// The word's index if it lies inside frame extent A.
    fn index(&self, word: u16) -> Result<usize, String> {
        if 4 * (word as u32 + 1) > self.bytes {
            return Err(format!(
                "scratch word {word} (bytes {}..{}) is outside frame extent A = {} bytes",
                4 * word as u32,
                4 * word as u32 + 4,
                self.bytes
            ));
        }
        Ok(word as usize)
    }

    fn check_no_store_on(&self, word: u16) -> Result<(), String> {
        match self.stores.iter().find(|s| s.word == word) {
            Some(s) => Err(format!(
                "scratch word {word} accessed while a store to it is pending on slot {} \
                 (never measured without waiting)",
                s.slot
            )),
            None => Ok(()),
        }
    }

    /// Stores `v` for the lanes of `mask` and records the store pending on `slot`.
    pub fn store(
        &mut self,
        word: u16,
        mask: u32,
        v: &[u32; LANES],
        slot: u8,
        reg: u8,
    ) -> Result<(), String> {
        let w = self.index(word)?;
        self.check_no_store_on(word)?;
        for (l, (dst, x)) in self.vals[w].iter_mut().zip(v).enumerate() {
            if mask >> l & 1 != 0 {
                *dst = *x;
            }
        }
        self.written[w] |= mask;
        self.stores.push(PendingStore { slot, word, reg });
        Ok(())
    }

    /// The word for the lanes of `mask`; every one of them must have written it.
    pub fn load(&self, word: u16, mask: u32) -> Result<[u32; LANES], String> {
        let w = self.index(word)?;
        self.check_no_store_on(word)?;
        let unwritten = mask & !self.written[w];
        if unwritten != 0 {
            return Err(format!(
                "scratch word {word} read in lane {} before any store to it \
                 (initial scratch contents are not established)",
                unwritten.trailing_zeros()
            ));
        }
        Ok(self.vals[w])
    }

    /// A wait naming the slots in `slots` (bit s-1 = slot s) completes the stores on them.
    pub fn retire(&mut self, slots: u8) {
        if slots != 0 && !self.stores.is_empty() {
            self.stores.retain(|s| slots >> (s.slot - 1) & 1 == 0);
        }
    }

    /// A pending store whose source is `reg` (writing it first is not measured).
    pub fn store_reading(&self, reg: u8) -> Option<PendingStore> {
        self.stores.iter().copied().find(|s| s.reg == reg)
    }

    /// A pending store tagged with `slot`.
    pub fn store_on(&self, slot: u8) -> Option<PendingStore> {
        self.stores.iter().copied().find(|s| s.slot == slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extent_a_bounds_words_to_the_byte() {
        let mut s = Scratch::default();
        s.reset(12);
        let v = [7u32; LANES];
        assert!(s.store(2, 1, &v, 6, 3).is_ok());
        s.retire(1 << 5);
        assert!(s.store(3, 1, &v, 6, 3).unwrap_err().contains("outside"));
        assert_eq!(s.load(2, 1).unwrap()[0], 7);
    }

    #[test]
    fn unwritten_lanes_and_pending_stores_are_errors() {
        let mut s = Scratch::default();
        s.reset(64);
        let v = [1u32; LANES];
        s.store(0, 0b01, &v, 2, 5).unwrap();
        assert!(s.load(0, 0b01).unwrap_err().contains("pending"));
        s.retire(0b10);
        assert!(s.store_reading(5).is_none());
        assert_eq!(s.load(0, 0b01).unwrap()[0], 1);
        assert!(s.load(0, 0b11).unwrap_err().contains("lane 1"));
    }
}

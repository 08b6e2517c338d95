//! Architectural state of one SIMD-group.

use super::exec_mask::ExecStack;
use super::lanes::Merge;
use super::ops::{Dst, Part, SpecialReg};
use super::scoreboard::Pending;
use super::scratch::Scratch;
use super::{Lanes, GPRS, LANES, PRED_BANKS};

/// Identity of the threads a SIMD-group runs: lane l is thread
/// `simd_index * 32 + l` of its threadgroup in x-fastest linear order.
#[derive(Clone, Copy, Debug, Default)]
pub struct ThreadIds {
    pub tg: [u32; 3],
    /// Threadgroup size of the launch.
    pub tg_size: [u32; 3],
    pub simd_index: u32,
}

impl ThreadIds {
    /// Position of lane `l` inside the threadgroup.
    #[inline]
    pub fn local(&self, l: u32) -> [u32; 3] {
        let t = self.simd_index * LANES as u32 + l;
        let [x, y, _] = self.tg_size;
        [t % x, (t / x) % y, t / (x * y)]
    }

    /// [`ThreadIds::local`] of every lane: lane 0's position by division, the others by
    /// stepping x (wrapping into y, then z), which is what the divisions give for the
    /// consecutive linear indices of one SIMD-group (dividing per lane was a sixth of a
    /// memory-bound kernel's time).
    pub fn locals(&self) -> [[u32; 3]; LANES] {
        let [x, y, _] = self.tg_size;
        if x == 0 || y == 0 {
            return std::array::from_fn(|l| self.local(l as u32));
        }
        let mut p = self.local(0);
        let mut out = [[0; 3]; LANES];
        for o in out.iter_mut() {
            *o = p;
            p[0] += 1;
            if p[0] == x {
                p[0] = 0;
                p[1] += 1;
                if p[1] == y {
                    p[1] = 0;
                    p[2] += 1;
                }
            }
        }
        out
    }

    /// Position of lane `l` in the grid.
    #[inline]
    pub fn global(&self, l: u32) -> [u32; 3] {
        let p = self.local(l);
        // wrapping: lanes past a u32-sized grid are never live anyway
        std::array::from_fn(|d| self.tg[d].wrapping_mul(self.tg_size[d]).wrapping_add(p[d]))
    }
}

pub struct SimdGroup {
    pub regs: Box<[Lanes; GPRS]>,
    pub preds: [u32; PRED_BANKS],
    pub exec: ExecStack,
    pub pending: Pending,
    /// Per-invocation scratch (empty unless the dispatch gives the stage a frame extent A).
    pub scratch: Scratch,
    /// Return addresses (program indices) held by the hardware link.
    pub link: Vec<usize>,
    /// Index of the next instruction.
    pub next: usize,
    pub ids: ThreadIds,
    pub done: bool,
    /// Registers written since the last reset (bit r), so a reset clears only those.
    dirty: u128,
}

impl SimdGroup {
    /// A SIMD-group whose lanes `live` exist (the others never execute).
    pub fn new(live: u32, ids: ThreadIds) -> Self {
        SimdGroup {
            regs: Box::new([[0; LANES]; GPRS]),
            preds: [0; PRED_BANKS],
            exec: ExecStack::new(live),
            pending: Pending::default(),
            scratch: Scratch::default(),
            link: Vec::new(),
            next: 0,
            ids,
            done: live == 0,
            dirty: 0,
        }
    }

    /// Makes this SIMD-group a fresh one (registers zero, nothing in flight),
    /// reusing its allocations.
    pub fn reset(&mut self, live: u32, ids: ThreadIds) {
        let mut d = self.dirty;
        while d != 0 {
            let r = d.trailing_zeros() as usize;
            self.regs[r] = [0; LANES];
            d &= d - 1;
        }
        self.dirty = 0;
        self.preds = [0; PRED_BANKS];
        self.exec = ExecStack::new(live);
        self.pending.clear();
        self.scratch.reset(0);
        self.link.clear();
        self.next = 0;
        self.ids = ids;
        self.done = live == 0;
    }

    /// Writes `v` to the destination part in the lanes of `mask`.
    #[inline(always)]
    pub fn write(&mut self, dst: Dst, mask: u32, v: &Lanes) {
        self.dirty |= 1 << dst.reg;
        let r = &mut self.regs[dst.reg as usize];
        match dst.part {
            Part::Full if mask == u32::MAX => super::lanes::copy(r, v),
            Part::Full => super::lanes::merge(r, v, mask, Merge::Full),
            Part::Lo => super::lanes::merge(r, v, mask, Merge::Lo),
            Part::Hi => super::lanes::merge(r, v, mask, Merge::Hi),
        }
    }

    pub fn special(&self, sr: SpecialReg) -> Lanes {
        let mut out = [0; LANES];
        let locals = match sr {
            SpecialReg::ThreadPositionInGrid(_) | SpecialReg::ThreadPositionInThreadgroup(_) => {
                self.ids.locals()
            }
            _ => [[0; 3]; LANES],
        };
        for (l, o) in out.iter_mut().enumerate() {
            *o = match sr {
                SpecialReg::ThreadPositionInGrid(d) => {
                    let d = d as usize;
                    // as ThreadIds::global
                    let ids = &self.ids;
                    ids.tg[d]
                        .wrapping_mul(ids.tg_size[d])
                        .wrapping_add(locals[l][d])
                }
                SpecialReg::ThreadPositionInThreadgroup(d) => locals[l][d as usize],
                SpecialReg::ThreadgroupPositionInGrid(d) => self.ids.tg[d as usize],
                SpecialReg::ThreadsPerThreadgroup(d) => self.ids.tg_size[d as usize],
                SpecialReg::ThreadIndexInSimdgroup => l as u32,
                SpecialReg::SimdgroupIndexInThreadgroup => self.ids.simd_index,
            };
        }
        out
    }
}

thread_local! {
    /// SIMD-groups given back by [`Recycled`], reused by the next one on this thread.
    static SPARE: std::cell::RefCell<Vec<SimdGroup>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A fresh SIMD-group taken from a per-thread pool and given back when dropped. Render
/// stages start one SIMD-group per fragment quad or vertex batch; a new group zeroes and
/// frees its 12 KiB register file each time, while [`SimdGroup::reset`] clears only the
/// registers written. The state the holder sees is exactly that of [`SimdGroup::new`].
pub struct Recycled(Option<SimdGroup>);

/// Groups the pool keeps (nested runs hold at most a few at a time).
const SPARE_MAX: usize = 8;

impl Recycled {
    pub fn new(live: u32, ids: ThreadIds) -> Self {
        let sg = SPARE.with(|s| s.borrow_mut().pop());
        Recycled(Some(match sg {
            Some(mut sg) => {
                sg.reset(live, ids);
                sg
            }
            None => SimdGroup::new(live, ids),
        }))
    }
}

impl std::ops::Deref for Recycled {
    type Target = SimdGroup;
    fn deref(&self) -> &SimdGroup {
        self.0.as_ref().expect("present until drop")
    }
}

impl std::ops::DerefMut for Recycled {
    fn deref_mut(&mut self) -> &mut SimdGroup {
        self.0.as_mut().expect("present until drop")
    }
}

impl Drop for Recycled {
    fn drop(&mut self) {
        if let Some(sg) = self.0.take() {
            // `try_with`: during thread teardown the pool may already be gone.
            let _ = SPARE.try_with(|s| {
                let mut s = s.borrow_mut();
                if s.len() < SPARE_MAX {
                    s.push(sg);
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stepped_lane_positions_equal_the_divisions() {
        for tg_size in [
            [1, 1, 1],
            [7, 3, 5],
            [32, 2, 1],
            [5, 1, 9],
            [1024, 1, 1],
            [3, 7, 40],
        ] {
            for simd_index in 0..40 {
                let ids = ThreadIds {
                    tg: [3, 1, 2],
                    tg_size,
                    simd_index,
                };
                let want: [[u32; 3]; LANES] = std::array::from_fn(|l| ids.local(l as u32));
                assert_eq!(ids.locals(), want, "{tg_size:?} simd {simd_index}");
            }
        }
    }
}

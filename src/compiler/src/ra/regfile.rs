//! Occupancy of the register file in 16-bit halves.

use crate::mir::Reg;

pub const MAX_HALVES: usize = 192;

#[derive(Clone)]
pub struct RegFile {
    used: [bool; MAX_HALVES],
    /// Halves the allocator may use (2 × GPR budget).
    pub limit: u16,
    /// Highest half ever used + 1 (for the GPR count).
    pub high_water: u16,
}

impl RegFile {
    pub fn new(limit_halves: u16) -> Self {
        RegFile {
            used: [false; MAX_HALVES],
            limit: limit_halves.min(MAX_HALVES as u16),
            high_water: 0,
        }
    }
    pub fn is_free(&self, r: Reg) -> bool {
        r.end() <= self.limit && (r.half..r.end()).all(|h| !self.used[h as usize])
    }
    pub fn take(&mut self, r: Reg) {
        for h in r.half..r.end() {
            self.used[h as usize] = true;
        }
        self.high_water = self.high_water.max(r.end());
    }
    pub fn free(&mut self, r: Reg) {
        for h in r.half..r.end() {
            self.used[h as usize] = false;
        }
    }
    /// A free, aligned tuple of `halves` below half `reach`. Scalars take the lowest fit
    /// (searching from `start` first); wider tuples take the highest fit, so scalars do not
    /// fragment the space tuples need.
    pub fn find(&self, halves: u8, reach: u16, start: u16) -> Option<Reg> {
        let align = (halves as u16)
            .next_power_of_two()
            .max(if halves >= 2 { 2 } else { 1 });
        let end = reach.min(self.limit);
        if halves > 2 {
            let mut h = (end.saturating_sub(halves as u16) / align) * align;
            loop {
                let r = Reg { half: h, halves };
                if r.end() <= end && self.is_free(r) {
                    return Some(r);
                }
                if h < align {
                    return None;
                }
                h -= align;
            }
        }
        let try_range = |from: u16, to: u16| {
            let mut h = from.div_ceil(align) * align;
            while h + halves as u16 <= to {
                let r = Reg { half: h, halves };
                if self.is_free(r) {
                    return Some(r);
                }
                h += align;
            }
            None
        };
        try_range(start.min(end), end).or_else(|| try_range(0, end.min(start + halves as u16 - 1)))
    }
}

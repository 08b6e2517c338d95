//! The implicit execution-mask / reconvergence stack of a SIMD-group.
//!
//! Apple9 keeps the exec mask in hardware, separate from the six predicate
//! banks: a structured `if` pushes, `else` inverts within the enclosing mask,
//! `pop` restores (niklassheth/agx-re EXP-M4-52-deep-mask-stack, measured on M4
//! to 32 live nesting levels). Deeper nesting is not measured and is an error.

/// Deepest nesting the measurements cover.
pub const MAX_DEPTH: usize = 32;

#[derive(Clone, Debug)]
pub struct ExecStack {
    /// Lanes currently executing.
    pub active: u32,
    /// Masks saved by each open `if` (outermost first).
    saved: Vec<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MaskError {
    #[error("exec-mask stack deeper than the {MAX_DEPTH} measured levels")]
    TooDeep,
    #[error("else/pop with no open if")]
    Empty,
}

impl ExecStack {
    pub fn new(active: u32) -> Self {
        ExecStack {
            active,
            saved: Vec::with_capacity(MAX_DEPTH),
        }
    }

    pub fn depth(&self) -> usize {
        self.saved.len()
    }

    /// Opens an `if`: lanes in `taken` stay active.
    pub fn push(&mut self, taken: u32) -> Result<(), MaskError> {
        if self.saved.len() == MAX_DEPTH {
            return Err(MaskError::TooDeep);
        }
        self.saved.push(self.active);
        self.active &= taken;
        Ok(())
    }

    /// Switches to the other arm: lanes active before the `if` and not in the then-arm.
    pub fn invert(&mut self) -> Result<(), MaskError> {
        let outer = *self.saved.last().ok_or(MaskError::Empty)?;
        self.active = outer & !self.active;
        Ok(())
    }

    /// Closes `levels` open `if`s.
    pub fn pop(&mut self, levels: usize) -> Result<(), MaskError> {
        for _ in 0..levels {
            self.active = self.saved.pop().ok_or(MaskError::Empty)?;
        }
        Ok(())
    }

    /// Removes `lanes` from the active mask and from every saved mask (a
    /// returning lane never comes back).
    pub fn retire(&mut self, lanes: u32) {
        self.active &= !lanes;
        for m in &mut self.saved {
            *m &= !lanes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_else_pop_restores_the_outer_mask() {
        let mut s = ExecStack::new(0xff);
        s.push(0x0f).unwrap();
        assert_eq!(s.active, 0x0f);
        s.push(0x05).unwrap();
        assert_eq!(s.active, 0x05);
        s.invert().unwrap();
        assert_eq!(s.active, 0x0a);
        s.pop(1).unwrap();
        s.invert().unwrap();
        assert_eq!(s.active, 0xf0);
        s.pop(1).unwrap();
        assert_eq!(s.active, 0xff);
        assert_eq!(s.pop(1), Err(MaskError::Empty));
    }

    #[test]
    fn nesting_beyond_the_measured_depth_is_an_error() {
        let mut s = ExecStack::new(1);
        for _ in 0..MAX_DEPTH {
            s.push(1).unwrap();
        }
        assert_eq!(s.push(1), Err(MaskError::TooDeep));
    }
}

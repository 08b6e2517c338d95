//! The implicit execution-mask / reconvergence stack of a SIMD-group.
//!
//! Apple9 keeps the exec mask in hardware, separate from the six predicate
//! banks (niklassheth/agx-re EXP-M4-52/53/46, measured on M4):
//! - a structured `if` pushes, `else` inverts within the enclosing mask, a
//!   kind-1 pop restores (to 32 measured levels; deeper is an error here);
//! - a loop pushes a kind-2 scope; its latch update removes the lanes whose
//!   condition ends the loop from the current mask and from every scope opened
//!   inside the loop (a break under an `if` stays broken after that `if`'s
//!   pop); the kind-2 pop restores the mask from before the loop.

/// Deepest nesting the measurements cover.
pub const MAX_DEPTH: usize = 32;

/// What opened a scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    If,
    Loop,
}

#[derive(Clone, Debug)]
pub struct ExecStack {
    /// Lanes currently executing.
    pub active: u32,
    /// Mask saved by each open scope (outermost first).
    saved: Vec<(u32, Scope)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MaskError {
    #[error("exec-mask stack deeper than the {MAX_DEPTH} measured levels")]
    TooDeep,
    #[error("else/pop with no open scope")]
    Empty,
    #[error("pop of a {want:?} scope while the innermost open scope is a {got:?}")]
    WrongScope { want: Scope, got: Scope },
    #[error("loop update at depth {encoded} but {actual} scope(s) are open inside the loop")]
    WrongDepth { encoded: usize, actual: usize },
    #[error("loop update outside a loop")]
    NoLoop,
    #[error("break to loop level {0}, which is not open")]
    NoSuchLoop(usize),
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

    /// Opens a scope: lanes in `taken` stay active.
    pub fn push(&mut self, taken: u32, scope: Scope) -> Result<(), MaskError> {
        if self.saved.len() == MAX_DEPTH {
            return Err(MaskError::TooDeep);
        }
        self.saved.push((self.active, scope));
        self.active &= taken;
        Ok(())
    }

    /// Switches to the other arm of the innermost `if`: lanes active before it
    /// and not in the then-arm.
    pub fn invert(&mut self) -> Result<(), MaskError> {
        let &(outer, scope) = self.saved.last().ok_or(MaskError::Empty)?;
        if scope != Scope::If {
            return Err(MaskError::WrongScope {
                want: Scope::If,
                got: scope,
            });
        }
        self.active = outer & !self.active;
        Ok(())
    }

    /// Closes the innermost scope, which must be of kind `scope`.
    pub fn pop(&mut self, scope: Scope) -> Result<(), MaskError> {
        let &(mask, got) = self.saved.last().ok_or(MaskError::Empty)?;
        if got != scope {
            return Err(MaskError::WrongScope { want: scope, got });
        }
        self.saved.pop();
        self.active = mask;
        Ok(())
    }

    /// Loop-mask update: `leave` lanes stop executing until the innermost
    /// loop's pop. `depth` is the number of scopes the instruction says are
    /// open inside that loop; it must match the stack.
    pub fn loop_update(&mut self, leave: u32, depth: usize) -> Result<(), MaskError> {
        let lp = self
            .saved
            .iter()
            .rposition(|s| s.1 == Scope::Loop)
            .ok_or(MaskError::NoLoop)?;
        let inside = self.saved.len() - lp - 1;
        if inside != depth {
            return Err(MaskError::WrongDepth {
                encoded: depth,
                actual: inside,
            });
        }
        self.active &= !leave;
        for s in &mut self.saved[lp + 1..] {
            s.0 &= !leave;
        }
        Ok(())
    }
}

impl ExecStack {
    /// Break-unwind: every active lane leaves loop number `level` (1 =
    /// outermost open loop) and everything inside it. `ifs` is the number of
    /// scopes the instruction says are open inside the innermost loop.
    pub fn break_to(&mut self, level: usize, ifs: usize) -> Result<(), MaskError> {
        let loops: Vec<usize> = self
            .saved
            .iter()
            .enumerate()
            .filter(|s| s.1 .1 == Scope::Loop)
            .map(|s| s.0)
            .collect();
        let &inner = loops.last().ok_or(MaskError::NoLoop)?;
        let inside = self.saved.len() - inner - 1;
        if inside != ifs {
            return Err(MaskError::WrongDepth {
                encoded: ifs,
                actual: inside,
            });
        }
        let &target = level
            .checked_sub(1)
            .and_then(|l| loops.get(l))
            .ok_or(MaskError::NoSuchLoop(level))?;
        let leave = self.active;
        self.active = 0;
        for s in &mut self.saved[target + 1..] {
            s.0 &= !leave;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_else_pop_restores_the_outer_mask() {
        let mut s = ExecStack::new(0xff);
        s.push(0x0f, Scope::If).unwrap();
        assert_eq!(s.active, 0x0f);
        s.push(0x05, Scope::If).unwrap();
        assert_eq!(s.active, 0x05);
        s.invert().unwrap();
        assert_eq!(s.active, 0x0a);
        s.pop(Scope::If).unwrap();
        s.invert().unwrap();
        assert_eq!(s.active, 0xf0);
        s.pop(Scope::If).unwrap();
        assert_eq!(s.active, 0xff);
        assert_eq!(s.pop(Scope::If), Err(MaskError::Empty));
    }

    #[test]
    fn nesting_beyond_the_measured_depth_is_an_error() {
        let mut s = ExecStack::new(1);
        for _ in 0..MAX_DEPTH {
            s.push(1, Scope::If).unwrap();
        }
        assert_eq!(s.push(1, Scope::If), Err(MaskError::TooDeep));
    }

    #[test]
    fn break_unwind_leaves_the_target_loop_only() {
        let mut s = ExecStack::new(0xff);
        s.push(u32::MAX, Scope::Loop).unwrap(); // outer loop
        s.push(u32::MAX, Scope::Loop).unwrap(); // inner loop
        s.push(0x0f, Scope::If).unwrap();
        s.break_to(2, 1).unwrap(); // lanes 0..3 break the inner loop
        assert_eq!(s.active, 0);
        s.pop(Scope::If).unwrap();
        assert_eq!(s.active, 0xf0);
        s.pop(Scope::Loop).unwrap();
        assert_eq!(s.active, 0xff, "they are back in the outer loop");
        assert_eq!(s.break_to(3, 0), Err(MaskError::NoSuchLoop(3)));
    }

    #[test]
    fn a_break_under_an_if_survives_the_ifs_pop() {
        let mut s = ExecStack::new(0xff);
        s.push(u32::MAX, Scope::Loop).unwrap();
        s.push(0x0f, Scope::If).unwrap();
        s.loop_update(0x03, 1).unwrap(); // lanes 0,1 break inside the if
        assert_eq!(s.active, 0x0c);
        s.pop(Scope::If).unwrap();
        assert_eq!(s.active, 0xfc);
        assert_eq!(
            s.loop_update(0x10, 1),
            Err(MaskError::WrongDepth {
                encoded: 1,
                actual: 0
            })
        );
        s.loop_update(0xf0, 0).unwrap();
        assert_eq!(s.active, 0x0c);
        assert_eq!(
            s.pop(Scope::If),
            Err(MaskError::WrongScope {
                want: Scope::If,
                got: Scope::Loop
            })
        );
        s.pop(Scope::Loop).unwrap();
        assert_eq!(s.active, 0xff);
    }
}

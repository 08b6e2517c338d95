//! What a launcher's setup invocation leaves for its stage body: argument words,
//! the stage allocation, the selected entry and the publication/scratch frame
//! (GravityLinux/mesa README.apple9-launchers.md "Generated launch control", T8132).

use agx16_isa::meaning::{LaunchFrame, StageAllocation};

/// State written by launcher-only operations while a setup invocation runs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SetupState {
    /// Argument words by index (`None` = never written).
    pub args: Vec<Option<u32>>,
    pub allocation: Option<StageAllocation>,
    /// USC byte offset of the entry.
    pub entry: Option<u64>,
    pub frame: Option<LaunchFrame>,
}

impl SetupState {
    /// The argument words 0..n the body reads; a hole is an error (no launcher the
    /// sources ran leaves one, so what the body would read there is unknown).
    pub fn argument_words(&self) -> Result<Vec<u32>, usize> {
        self.args
            .iter()
            .enumerate()
            .map(|(w, v)| v.ok_or(w))
            .collect()
    }
}

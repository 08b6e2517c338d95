//! Why a SIMD-group or a dispatch stopped abnormally.

use crate::mem::Fault;

/// Errors of the model. Each names where it happened; none is a panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// The program contains an encoding, field value or bit whose behaviour
    /// is not established (or not implemented): the model refuses to guess.
    #[error("pc {pc:#x} [{bytes}] {form}: {what}")]
    Unestablished {
        pc: u32,
        bytes: String,
        form: String,
        what: String,
    },
    /// `agx16_isa` could not decode the bytes at `pc`.
    #[error("pc {pc:#x}: cannot decode: {what}")]
    Decode { pc: u32, what: String },
    /// A GPU memory fault (address, access and pc inside).
    #[error("{0}")]
    Fault(Fault),
    /// A behaviour outside what was measured happened at run time.
    #[error("pc {pc:#x}: {what}")]
    Unmeasured { pc: u32, what: String },
    /// The program ran past its end without `stop`.
    #[error("pc {pc:#x}: execution left the program")]
    RanOff { pc: u32 },
    /// The dispatch executed more instructions than its budget allows.
    #[error("instruction budget of {budget} exhausted (pc {pc:#x})")]
    Budget { budget: u64, pc: u32 },
    /// A launch description that cannot be run.
    #[error("bad launch: {0}")]
    Launch(String),
}

impl From<Fault> for SimError {
    fn from(f: Fault) -> Self {
        SimError::Fault(f)
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

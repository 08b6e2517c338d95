//! How well a form or a field is established.

/// Evidence level of a form or field. Only `Hardware` forms are emittable by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Evidence {
    /// Meaning measured on real Apple9 hardware (splice/mutation runs), M4 unless the source says G17P.
    Hardware,
    /// Seen in Apple-compiled code; length/bits are real, meaning is inferred from byte diffs.
    CorpusOnly,
    /// Fitted to the measured output of hardware-run oracles (../shared/oracles/sim) that no
    /// public source explains: a hypothesis the model executes so that those oracles run, and
    /// that they check. Never emitted (only `Hardware` forms are `emittable`); the source names
    /// the oracle(s) it was fitted to.
    Fitted,
    /// A guess consistent with the data; the model must not execute it.
    Hypothesis,
}

impl Evidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Evidence::Hardware => "hardware-validated",
            Evidence::CorpusOnly => "corpus-only",
            Evidence::Fitted => "hypothesis fitted to M4 oracle outputs",
            Evidence::Hypothesis => "hypothesis",
        }
    }
}

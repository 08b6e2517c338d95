//! How well a form or a field is established.

/// Evidence level of a form or field. Only `Hardware` forms are emittable by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Evidence {
    /// Meaning measured on real Apple9 hardware (splice/mutation runs), M4 unless the source says G17P.
    Hardware,
    /// Seen in Apple-compiled code; length/bits are real, meaning is inferred from byte diffs.
    CorpusOnly,
    /// A guess consistent with the data; the model must not execute it.
    Hypothesis,
}

impl Evidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Evidence::Hardware => "hardware-validated",
            Evidence::CorpusOnly => "corpus-only",
            Evidence::Hypothesis => "hypothesis",
        }
    }
}

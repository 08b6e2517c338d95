//! Everything else the corpus needs: selects, min/max, compares, stores of varyings, ...

use super::src::{ET, LEN};
use crate::form::{Field, Form};

const B4: &[Field] = &[
    raw!("b0_hi", 4, 4),
    raw!("b1", 8, 8),
    raw!("b2", 16, 8),
    raw!("b3", 24, 8),
];

pub static FORMS: &[Form] = &[
    // 4-byte conditional select (ADevWithAnIdea/agx-re isadb.py: 0x05/0x16)
    form!(
        "psel",
        Select,
        4,
        CorpusOnly,
        LEN,
        [(0, 8, 0x05)],
        &[raw!("b1", 8, 8), raw!("b2", 16, 8), raw!("b3", 24, 8)],
        []
    ),
    form!(
        "psel16",
        Select,
        4,
        CorpusOnly,
        LEN,
        [(0, 8, 0x16)],
        &[raw!("b1", 8, 8), raw!("b2", 16, 8), raw!("b3", 24, 8)],
        []
    ),
];
const _: (&[Field], &str) = (B4, ET);

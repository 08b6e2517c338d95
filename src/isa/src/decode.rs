//! Table-driven decoder and program splitter.

use std::sync::OnceLock;

use crate::bits::{form_masks, get_field, word_from, FormMasks};
use crate::form::Form;
use crate::instr::{Instr, MAX_FIELDS};
use crate::table::forms;

/// Why bytes did not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("offset {offset:#x}: no instruction form matches {head}")]
    Unknown { offset: usize, head: String },
    #[error("offset {offset:#x}: program ends inside an instruction ({have} of {need} byte(s))")]
    Truncated {
        offset: usize,
        have: usize,
        need: usize,
    },
}

impl DecodeError {
    pub fn offset(&self) -> usize {
        match self {
            DecodeError::Unknown { offset, .. } | DecodeError::Truncated { offset, .. } => *offset,
        }
    }
}

/// Candidate forms per first byte, in table order, with their masks (built once).
fn buckets() -> &'static [Vec<(&'static Form, FormMasks)>] {
    static BUCKETS: OnceLock<Vec<Vec<(&'static Form, FormMasks)>>> = OnceLock::new();
    BUCKETS.get_or_init(|| {
        let all: Vec<_> = forms().iter().map(|f| (*f, form_masks(f))).collect();
        (0u128..256)
            .map(|b0| {
                all.iter()
                    .filter(|(_, m)| (b0 & m.match_mask & 0xff) == (m.match_value & 0xff))
                    .copied()
                    .collect()
            })
            .collect()
    })
}

/// Decode the instruction at the start of `bytes`.
pub fn decode(bytes: &[u8]) -> Result<Instr, DecodeError> {
    decode_at(bytes, 0)
}

/// Decode the instruction at `offset` of `bytes`. The first form in table order whose
/// length fits and whose match bits hold wins, so specific forms precede general ones.
pub fn decode_at(bytes: &[u8], offset: usize) -> Result<Instr, DecodeError> {
    let rest = bytes.get(offset..).unwrap_or(&[]);
    if rest.len() < 2 {
        return Err(DecodeError::Truncated {
            offset,
            have: rest.len(),
            need: 2,
        });
    }
    let w = word_from(rest);
    for &(form, ref mk) in &buckets()[rest[0] as usize] {
        let len = form.len as usize;
        if len > rest.len() {
            continue;
        }
        if (w & mk.match_mask) != mk.match_value {
            continue;
        }
        let word = w & mk.len_mask;
        let mut values = [0u64; MAX_FIELDS];
        for (v, f) in values.iter_mut().zip(form.fields) {
            *v = get_field(word, f);
        }
        let unmapped = word & !mk.match_mask & !mk.field_mask;
        return Ok(Instr::from_parts(form, values, unmapped));
    }
    // A longer form whose match bits agree with the bytes that are there: the program ends
    // inside that instruction.
    let have_mask = crate::bits::mask(rest.len().min(16) as u32 * 8);
    if let Some(need) = buckets()[rest[0] as usize]
        .iter()
        .filter(|(f, mk)| {
            f.len as usize > rest.len()
                && (w & mk.match_mask & have_mask) == (mk.match_value & have_mask)
        })
        .map(|(f, _)| f.len as usize)
        .min()
    {
        return Err(DecodeError::Truncated {
            offset,
            have: rest.len(),
            need,
        });
    }
    let head: Vec<String> = rest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    Err(DecodeError::Unknown {
        offset,
        head: head.join(" "),
    })
}

/// Iterator over the instructions of a program: `(offset, instruction)`; stops after the first error.
pub struct Split<'a> {
    bytes: &'a [u8],
    offset: usize,
    failed: bool,
}

impl Iterator for Split<'_> {
    type Item = Result<(usize, Instr), DecodeError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.offset >= self.bytes.len() {
            return None;
        }
        match decode_at(self.bytes, self.offset) {
            Ok(i) => {
                let at = self.offset;
                self.offset += i.form.len as usize;
                Some(Ok((at, i)))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// Split a program into instructions.
pub fn split(bytes: &[u8]) -> Split<'_> {
    Split {
        bytes,
        offset: 0,
        failed: false,
    }
}

/// Decode a whole program, or report where it stops decoding.
pub fn decode_program(bytes: &[u8]) -> Result<Vec<(usize, Instr)>, DecodeError> {
    split(bytes).collect()
}

//! Table-driven encoder.

use crate::bits::{form_masks, put, put_field, Word};
use crate::instr::{EncodeError, Instr};
use crate::table::form_by_name;

impl Instr {
    /// The instruction as one little-endian word (bits above its length are zero).
    pub fn to_word(&self) -> Word {
        let mut w: Word = 0;
        for m in self.form.matches {
            put(&mut w, m.bits, m.value);
        }
        if self.unmapped != 0 {
            let mk = form_masks(self.form);
            w |= self.unmapped & !mk.match_mask & !mk.field_mask & mk.len_mask;
        }
        for (f, v) in self.form.fields.iter().zip(self.values()) {
            put_field(&mut w, f, *v);
        }
        w
    }

    /// Append the instruction's bytes to `out`.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        let bytes = self.to_word().to_le_bytes();
        out.extend_from_slice(&bytes[..self.form.len as usize]);
    }

    /// The instruction's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.form.len as usize);
        self.encode_into(&mut v);
        v
    }

    /// Encode and verify that the bytes decode back to this very instruction (same form, same
    /// field values). A compiler should use this: a value combination that an earlier table
    /// entry claims would otherwise be emitted as something else.
    pub fn encode_checked(&self) -> Result<Vec<u8>, EncodeError> {
        let bytes = self.encode();
        match crate::decode::decode(&bytes) {
            Ok(d) if d == *self => Ok(bytes),
            Ok(d) => Err(EncodeError::Other(format!(
                "{} encodes to bytes that decode as {} ({})",
                self.form.name, d.form.name, d
            ))),
            Err(e) => Err(EncodeError::Other(format!(
                "{} does not decode back: {e}",
                self.form.name
            ))),
        }
    }

    /// Build an instruction of the form called `name` from `(field, value)` pairs; other fields are 0.
    pub fn build(name: &str, fields: &[(&str, u64)]) -> Result<Instr, EncodeError> {
        let form = form_by_name(name)
            .ok_or_else(|| EncodeError::Other(format!("no form named {name}")))?;
        let mut i = Instr::new(form);
        for (n, v) in fields {
            i.set(n, *v)?;
        }
        Ok(i)
    }
}

/// Encode a sequence of instructions into one program.
pub fn encode_program(instrs: &[Instr]) -> Vec<u8> {
    let mut out = Vec::new();
    for i in instrs {
        i.encode_into(&mut out);
    }
    out
}

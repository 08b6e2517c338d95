//! Reading and writing bit runs of a little-endian instruction word.

use crate::form::{Bits, Field, Form};

/// A whole instruction (at most 16 bytes) as one little-endian integer.
pub type Word = u128;

pub(crate) fn mask(width: u32) -> Word {
    if width >= 128 {
        Word::MAX
    } else {
        (1u128 << width) - 1
    }
}

pub(crate) fn get(w: Word, b: Bits) -> u64 {
    ((w >> b.lo) & mask(b.width as u32)) as u64
}

pub(crate) fn put(w: &mut Word, b: Bits, v: u64) {
    let m = mask(b.width as u32) << b.lo;
    *w = (*w & !m) | (((v as Word) << b.lo) & m);
}

/// Concatenate a field's pieces, first piece in the low bits.
pub(crate) fn get_field(w: Word, f: &Field) -> u64 {
    let mut v = 0u64;
    let mut shift = 0u32;
    for p in f.pieces {
        v |= get(w, *p) << shift;
        shift += p.width as u32;
    }
    v
}

pub(crate) fn put_field(w: &mut Word, f: &Field, v: u64) {
    let mut shift = 0u32;
    for p in f.pieces {
        put(w, *p, (v >> shift) & (mask(p.width as u32) as u64));
        shift += p.width as u32;
    }
}

pub(crate) fn bits_mask(b: Bits) -> Word {
    mask(b.width as u32) << b.lo
}

/// Bits of a form: which are pinned by matches, which belong to fields, and the whole length.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FormMasks {
    pub match_mask: Word,
    pub match_value: Word,
    pub field_mask: Word,
    pub len_mask: Word,
}

pub(crate) fn form_masks(f: &Form) -> FormMasks {
    let mut match_mask = 0;
    let mut match_value = 0;
    for m in f.matches {
        match_mask |= bits_mask(m.bits);
        match_value |= (m.value as Word & mask(m.bits.width as u32)) << m.bits.lo;
    }
    let mut field_mask = 0;
    for fl in f.fields {
        for p in fl.pieces {
            field_mask |= bits_mask(*p);
        }
    }
    FormMasks {
        match_mask,
        match_value,
        field_mask,
        len_mask: mask(f.len as u32 * 8),
    }
}

/// Little-endian word from up to 16 bytes.
pub(crate) fn word_from(bytes: &[u8]) -> Word {
    let mut buf = [0u8; 16];
    let n = bytes.len().min(16);
    buf[..n].copy_from_slice(&bytes[..n]);
    Word::from_le_bytes(buf)
}

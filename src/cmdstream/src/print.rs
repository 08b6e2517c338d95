//! Human-readable dumps of records, driven by the same field tables as pack/unpack.

use crate::evidence::Basis;
use crate::record::{decode_field, get_bits, known_mask, Display, FieldSpec, Record};
use std::fmt::Write;

/// Options for [`format_fields`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PrintOptions {
    /// Append each field's evidence (`repo:path`, basis).
    pub evidence: bool,
}

fn basis_tag(b: Basis) -> &'static str {
    match b {
        Basis::MeasuredM4 => "measured on M4",
        Basis::MeasuredApple9 => "measured on Apple9 (G17P)",
        Basis::InferredFromG13 => "inferred from G13",
        Basis::Inferred => "inferred",
    }
}

fn value_text(spec: &FieldSpec, raw: u64) -> (String, bool) {
    let v = decode_field(spec, raw);
    match spec.display {
        // Shifted fields are addresses: show them in hex.
        Display::Uint if matches!(spec.codec, crate::record::Codec::Shr(_)) => {
            (format!("{v:#x}"), false)
        }
        Display::Uint => (format!("{v}"), false),
        Display::Hex => (format!("{v:#x}"), false),
        Display::Bool => ((raw != 0).to_string(), false),
        Display::Float => (format!("{}", f32::from_bits(v as u32)), false),
        Display::Unexplained => (format!("{v:#x} (unexplained)"), false),
        Display::Enum => match spec.names.iter().find(|(n, _)| *n == raw) {
            Some((_, label)) => (format!("{label} ({raw})"), false),
            None => (format!("UNKNOWN VALUE {raw}"), true),
        },
    }
}

/// Formats a record's bytes field by field, then any set bits no field covers.
/// Returns the text and whether anything unknown was flagged.
pub fn format_fields(
    name: &str,
    fields: &[FieldSpec],
    bytes: &[u8],
    indent: usize,
    opts: PrintOptions,
) -> (String, bool) {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    let mut flagged = false;
    let _ = writeln!(out, "{pad}{name}");
    for f in fields.iter().filter(|f| f.fixed.is_none()) {
        let raw = get_bits(bytes, f.start, f.width);
        let (text, bad) = value_text(f, raw);
        // Unexplained bits are documented positions: printed as such, not counted as unknown.
        flagged |= bad;
        let _ = write!(out, "{pad}  {:<28} {}", f.name, text);
        if opts.evidence {
            let _ = write!(
                out,
                "    [{}; {}]",
                f.evidence.source,
                basis_tag(f.evidence.basis)
            );
        }
        out.push('\n');
    }
    let words = bytes.len() / 4;
    let known = known_mask(fields, words);
    for (w, k) in known.iter().enumerate() {
        let word = u32::from_le_bytes(bytes[w * 4..w * 4 + 4].try_into().unwrap());
        let unk = word & !k;
        if unk != 0 {
            flagged = true;
            let _ = writeln!(
                out,
                "{pad}  UNKNOWN BITS word {w} (+{:#x}): {unk:#010x}",
                w * 4
            );
        }
    }
    (out, flagged)
}

/// Formats a typed record (packing it first).
pub fn format_record<R: Record>(r: &R, indent: usize, opts: PrintOptions) -> String {
    match r.pack() {
        Ok(bytes) => format_fields(R::NAME, R::fields(), &bytes, indent, opts).0,
        Err(e) => format!("{}{}: cannot pack: {e}\n", " ".repeat(indent), R::NAME),
    }
}

/// Formats a typed record and reports whether anything unknown was flagged.
pub fn dump<R: Record>(r: &R, indent: usize, opts: PrintOptions) -> (String, bool) {
    match r.pack() {
        Ok(bytes) => format_fields(R::NAME, R::fields(), &bytes, indent, opts),
        Err(e) => (
            format!("{}{}: cannot pack: {e}\n", " ".repeat(indent), R::NAME),
            true,
        ),
    }
}

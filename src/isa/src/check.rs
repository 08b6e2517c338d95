//! Whole-program checks shared by `agx16-disasm --check` and the tests.

use std::path::{Path, PathBuf};

use crate::decode::split;
use crate::instr::Instr;
use crate::op::Op;
use crate::parse::parse_line;

/// Outcome of checking one program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProgramCheck {
    /// Every instruction decoded to a table form and the forms tile the program exactly.
    pub decoded: bool,
    /// Instructions decoded (all of them when `decoded`).
    pub instructions: usize,
    /// Instructions of forms with `Op::Opaque` (length known, meaning not).
    pub opaque: usize,
    /// Instructions whose `encode(decode(x))` differs from `x`.
    pub encode_mismatches: usize,
    /// Instructions whose `parse(print(decode(x)))` re-encodes differently from `x`.
    pub asm_mismatches: usize,
    /// Offset and reason of the first decode failure.
    pub failure: Option<(usize, String)>,
}

/// Decode, re-encode and re-assemble every instruction of `bytes`.
pub fn check_program(bytes: &[u8]) -> ProgramCheck {
    let mut c = ProgramCheck::default();
    for item in split(bytes) {
        match item {
            Ok((off, i)) => {
                c.instructions += 1;
                if i.form.op == Op::Opaque {
                    c.opaque += 1;
                }
                let orig = &bytes[off..off + i.form.len as usize];
                if i.encode() != orig {
                    c.encode_mismatches += 1;
                }
                if !asm_roundtrip(&i, orig) {
                    c.asm_mismatches += 1;
                }
            }
            Err(e) => {
                c.failure = Some((e.offset(), e.to_string()));
                return c;
            }
        }
    }
    c.decoded = true;
    c
}

fn asm_roundtrip(i: &Instr, orig: &[u8]) -> bool {
    match parse_line(&i.to_string(), 1) {
        Ok(Some(p)) => p.encode() == orig,
        _ => false,
    }
}

/// Program bytes from a file: lowercase/uppercase hex text (whitespace ignored) or raw binary.
pub fn read_program(path: &Path) -> std::io::Result<Vec<u8>> {
    let raw = std::fs::read(path)?;
    let text: Vec<u8> = raw
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    if !text.is_empty()
        && text.len().is_multiple_of(2)
        && text.iter().all(|b| b.is_ascii_hexdigit())
    {
        let s = std::str::from_utf8(&text).expect("hex digits are ASCII");
        Ok((0..s.len() / 2)
            .map(|k| u8::from_str_radix(&s[2 * k..2 * k + 2], 16).expect("checked hex"))
            .collect())
    } else {
        Ok(raw)
    }
}

/// All `*.hex` files below `dir`, sorted.
pub fn program_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "hex") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Totals over a directory of programs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub programs: usize,
    pub decoded: usize,
    /// Instructions in decoded programs.
    pub instructions: usize,
    /// Unknown instructions in decoded programs (a decoded program has none by definition).
    pub unknown: usize,
    /// Round-trip mismatches (encode or assemble) in decoded programs.
    pub mismatches: usize,
    /// Opaque-form instructions in decoded programs.
    pub opaque: usize,
    pub failures: Vec<(PathBuf, usize, String)>,
}

impl Summary {
    /// The one-line summary printed by `agx16-disasm --check`.
    pub fn line(&self) -> String {
        format!(
            "programs: {} decoded / {} total; instructions: {}; unknown: {}; round-trip mismatches: {}",
            self.decoded, self.programs, self.instructions, self.unknown, self.mismatches
        )
    }
}

/// Check every program below `dir`.
pub fn check_dir(dir: &Path) -> std::io::Result<Summary> {
    let mut s = Summary::default();
    for p in program_files(dir)? {
        let bytes = read_program(&p)?;
        let c = check_program(&bytes);
        s.programs += 1;
        if c.decoded {
            s.decoded += 1;
            s.instructions += c.instructions;
            s.opaque += c.opaque;
            s.mismatches += c.encode_mismatches + c.asm_mismatches;
        } else if let Some((off, why)) = c.failure {
            s.failures.push((p, off, why));
        }
    }
    Ok(s)
}

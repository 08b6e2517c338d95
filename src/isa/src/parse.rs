//! Assembler: parses the printer's syntax back into instructions.

use crate::form::{Kind, Role};
use crate::instr::{EncodeError, Instr, Part};
use crate::minifloat;
use crate::print::operand_roles;
use crate::table::form_by_name;

/// Why a line did not assemble.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {msg}")]
pub struct ParseError {
    pub line: usize,
    pub msg: String,
}

fn err(line: usize, msg: impl Into<String>) -> ParseError {
    ParseError {
        line,
        msg: msg.into(),
    }
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn parse_u64(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

fn parse_part(s: &str) -> (&str, Part) {
    if let Some(b) = s.strip_suffix(".l") {
        (b, Part::Lo)
    } else if let Some(b) = s.strip_suffix(".h") {
        (b, Part::Hi)
    } else {
        (s, Part::Full)
    }
}

fn set_kind(i: &mut Instr, kind: Kind, v: u64) -> Result<(), EncodeError> {
    let idx = i
        .form
        .fields
        .iter()
        .position(|f| f.kind == kind)
        .ok_or_else(|| EncodeError::Other(format!("{} has no {kind:?} field", i.form.name)))?;
    i.set_index(idx, v)?;
    Ok(())
}

fn apply_operand(i: &mut Instr, role: Role, text: &str) -> Result<(), String> {
    let has = |k: Kind| i.form.fields.iter().any(|f| f.kind == k);
    if let Some(imm) = text.strip_prefix('#') {
        if let Some(raw) = imm.strip_prefix("f8:") {
            let v = parse_int(raw).ok_or(format!("bad f8 immediate {text}"))?;
            return set_kind(i, Kind::ImmF8(role), v as u64).map_err(|e| e.to_string());
        }
        if has(Kind::ImmF8(role)) {
            let x: f32 = imm
                .parse()
                .map_err(|_| format!("bad float immediate {text}"))?;
            let v = minifloat::encode(x).ok_or(format!("{x} is not an 8-bit float immediate"))?;
            return set_kind(i, Kind::ImmF8(role), v).map_err(|e| e.to_string());
        }
        let v = parse_int(imm).ok_or(format!("bad integer immediate {text}"))?;
        if has(Kind::ImmS(role)) {
            let f = i
                .form
                .fields
                .iter()
                .find(|f| f.kind == Kind::ImmS(role))
                .unwrap();
            let w = f.width();
            let lim = 1i64 << (w - 1);
            if v < -lim || v >= lim {
                return Err(format!("{v} does not fit {} signed bits", w));
            }
            return set_kind(i, Kind::ImmS(role), (v as u64) & f.max()).map_err(|e| e.to_string());
        }
        if v < 0 {
            return Err(format!("negative immediate {v} for unsigned operand"));
        }
        return set_kind(i, Kind::ImmU(role), v as u64).map_err(|e| e.to_string());
    }
    let (body, part) = parse_part(text);
    if let Some(n) = body.strip_prefix('r') {
        let reg: u32 = n.parse().map_err(|_| format!("bad register {text}"))?;
        // The printer shows what the bits say; the assembler accepts it back even beyond
        // the form's validated reach (reach is enforced by `set_gpr` for compilers).
        set_kind(i, Kind::Gpr(role), reg as u64).map_err(|e| e.to_string())?;
    } else if let Some(n) = body.strip_prefix('u') {
        let idx: u32 = n.parse().map_err(|_| format!("bad uniform {text}"))?;
        set_kind(i, Kind::Uniform(role), idx as u64).map_err(|e| e.to_string())?;
    } else {
        return Err(format!("cannot parse operand {text}"));
    }
    let size = has(Kind::Size(role));
    let half = has(Kind::Half(role));
    match part {
        Part::Full if size => set_kind(i, Kind::Size(role), 1).map_err(|e| e.to_string())?,
        Part::Full => {}
        Part::Lo | Part::Hi => {
            if size {
                set_kind(i, Kind::Size(role), 0).map_err(|e| e.to_string())?;
            }
            if half {
                set_kind(i, Kind::Half(role), u64::from(part == Part::Hi))
                    .map_err(|e| e.to_string())?;
            } else if part == Part::Hi || !size {
                return Err(format!("operand {text}: form has no half selector"));
            }
        }
    }
    Ok(())
}

/// Parse one line. Blank lines and comments (`;` to end of line) give `None`. A leading
/// `offset:` token is followed by a bytes column; both are ignored (the text is re-encoded).
pub fn parse_line(text: &str, line: usize) -> Result<Option<Instr>, ParseError> {
    let text = text.split(';').next().unwrap_or("").trim();
    if text.is_empty() {
        return Ok(None);
    }
    let mut toks: Vec<&str> = text.split_whitespace().collect();
    if toks[0].ends_with(':') {
        if toks.len() < 3 {
            return Err(err(line, "offset column without bytes and mnemonic"));
        }
        toks.drain(..2);
    }
    let name = toks[0];
    let form = form_by_name(name).ok_or_else(|| err(line, format!("unknown mnemonic {name}")))?;
    let mut instr = Instr::new(form);
    let mut operand_text = String::new();
    let mut kv = Vec::new();
    for t in &toks[1..] {
        if t.contains('=') {
            kv.push(*t);
        } else {
            operand_text.push_str(t);
        }
    }
    let ops: Vec<&str> = operand_text.split(',').filter(|s| !s.is_empty()).collect();
    let roles = operand_roles(form);
    if ops.len() != roles.len() {
        return Err(err(
            line,
            format!("{name} takes {} operand(s), got {}", roles.len(), ops.len()),
        ));
    }
    for (role, op) in roles.iter().zip(ops) {
        apply_operand(&mut instr, *role, op).map_err(|m| err(line, m))?;
    }
    for t in kv {
        let (k, v) = t.split_once('=').expect("contains '='");
        if k == "unmapped" {
            let h = v
                .strip_prefix("0x")
                .ok_or_else(|| err(line, "unmapped needs hex"))?;
            instr.unmapped =
                u128::from_str_radix(h, 16).map_err(|_| err(line, format!("bad hex {v}")))?;
            continue;
        }
        let val = parse_u64(v).ok_or_else(|| err(line, format!("bad value {t}")))?;
        instr.set(k, val).map_err(|e| err(line, e.to_string()))?;
    }
    Ok(Some(instr))
}

/// Parse a whole listing.
pub fn parse_program(text: &str) -> Result<Vec<Instr>, ParseError> {
    let mut out = Vec::new();
    for (n, l) in text.lines().enumerate() {
        if let Some(i) = parse_line(l, n + 1)? {
            out.push(i);
        }
    }
    Ok(out)
}

//! From `agx16_isa` instructions to the model's executable ops.

use crate::core::ops::{Hazard, Kind, Op};
use crate::error::{hex, SimError};
use agx16_isa::Instr;

/// Decodes and lowers the instruction at `off`. Returns the op and its disassembly.
pub fn lower_at(code: &[u8], off: usize) -> Result<(Op, String), SimError> {
    let instr = agx16_isa::decode_at(code, off)
        .map_err(|e| SimError::Decode { pc: off as u32, what: e.to_string() })?;
    let len = instr.form.len;
    let bytes = &code[off..off + len as usize];
    let text = instr.to_string();
    let refuse = |what: String| SimError::Unestablished {
        pc: off as u32,
        bytes: hex(bytes),
        form: instr.form.name.to_string(),
        what,
    };
    let mut op = Op { pc: off as u32, len, kind: Kind::Nop, hazard: Hazard::default(), releases: vec![] };
    op.kind = match lower(&instr, &mut op) {
        Ok(k) => k,
        Err(what) => Kind::Refuse(refuse(what)),
    };
    Ok((op, text))
}

fn lower(instr: &Instr, _op: &mut Op) -> Result<Kind, String> {
    Err(format!("{:?} forms are not modelled yet", instr.form.op))
}

/// A listing of how the model sees a program: offset, bytes, form, fields.
pub fn dump(code: &[u8]) -> String {
    let mut out = String::new();
    let mut off = 0;
    while off < code.len() {
        match agx16_isa::decode_at(code, off) {
            Ok(i) => {
                let len = i.form.len as usize;
                let fields: Vec<String> =
                    i.form.fields.iter().zip(i.values()).map(|(f, v)| format!("{}={v:#x}", f.name)).collect();
                out.push_str(&format!(
                    "{off:04x} {:<32} {:<14} {:?}/{:?}  {}  [{}]\n",
                    hex(&code[off..off + len]),
                    i.form.name,
                    i.form.op,
                    i.form.evidence,
                    i,
                    fields.join(" ")
                ));
                off += len;
            }
            Err(e) => {
                out.push_str(&format!("{off:04x} {e}\n"));
                break;
            }
        }
    }
    out
}

//! Human-readable text form of a function (for debugging and test failure messages).

use super::instr::{CfNode, Function, Instr, Operand, Src};
use std::fmt::{self, Write};

fn src(f: &Function, s: &Src) -> String {
    let mut t = match s.op {
        Operand::Value { v, comp } if f.shape(v).comps > 1 => {
            format!("%{}.{}", v.0, b"xyzw"[comp as usize] as char)
        }
        Operand::Value { v, .. } => format!("%{}", v.0),
        Operand::Imm(bits) => format!("#{bits:#x}"),
        Operand::Uniform(u) => format!("u{u}"),
    };
    if s.abs {
        t = format!("|{t}|");
    }
    if s.neg {
        t = format!("-{t}");
    }
    t
}

pub fn instr_to_string(f: &Function, i: &Instr) -> String {
    let mut out = String::new();
    if let Some(d) = i.dst {
        let _ = write!(out, "%{}:{} = ", d.0, f.shape(d));
    }
    let _ = write!(out, "{}{}", i.op, if i.sat { ".sat" } else { "" });
    for (k, s) in i.srcs.iter().enumerate() {
        let _ = write!(out, "{}{}", if k == 0 { " " } else { ", " }, src(f, s));
        if let Some(p) = i.phi_preds.get(k) {
            let _ = write!(out, "@b{}", p.0);
        }
    }
    out
}

fn nodes(f: &Function, ns: &[CfNode], depth: usize, out: &mut String) -> fmt::Result {
    let pad = "  ".repeat(depth);
    for n in ns {
        match n {
            CfNode::Block(b) => {
                writeln!(out, "{pad}b{}:", b.0)?;
                for i in &f.block(*b).instrs {
                    writeln!(out, "{pad}  {}", instr_to_string(f, i))?;
                }
            }
            CfNode::If {
                cond,
                then_body,
                else_body,
            } => {
                writeln!(out, "{pad}if %{} {{", cond.0)?;
                nodes(f, then_body, depth + 1, out)?;
                writeln!(out, "{pad}}} else {{")?;
                nodes(f, else_body, depth + 1, out)?;
                writeln!(out, "{pad}}}")?;
            }
            CfNode::Loop { body } => {
                writeln!(out, "{pad}loop {{")?;
                nodes(f, body, depth + 1, out)?;
                writeln!(out, "{pad}}}")?;
            }
        }
    }
    Ok(())
}

impl fmt::Display for Function {
    fn fmt(&self, fm: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        nodes(self, &self.body, 0, &mut s)?;
        fm.write_str(&s)
    }
}

//! `AGX16_SIM_TRACE`: an instruction trace on stderr.
//!
//! Syntax: `AGX16_SIM_TRACE=1` traces everything; otherwise a comma list of
//! `group=N` / `group=A-B` (SIMD-group index within the dispatch, repeatable)
//! and `lane=N` / `lane=A-B` (which lanes' written values to print; default 0-3).
//! Each line: group, pc, disassembly, exec mask, then `rN[.lo|.hi]=` values.

use crate::core::exec::Written;
use crate::core::ops::{Op, Part};
use crate::core::state::SimdGroup;
use crate::program::Program;
use std::cell::Cell;

pub struct Trace {
    groups: Vec<(u32, u32)>,
    lanes: u32,
    current_group: Cell<u32>,
}

impl Trace {
    /// The trace configured by `AGX16_SIM_TRACE`, if set.
    /// The variable is read once per process: render bodies ask for every fragment quad.
    pub fn from_env() -> Option<Trace> {
        static SPEC: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
        let spec = SPEC.get_or_init(|| std::env::var("AGX16_SIM_TRACE").ok());
        Trace::parse(spec.as_deref()?).ok()
    }

    pub fn parse(spec: &str) -> Result<Trace, String> {
        let mut t = Trace {
            groups: vec![],
            lanes: 0,
            current_group: Cell::new(0),
        };
        let spec = spec.trim();
        if !(spec.is_empty() || spec == "1" || spec == "all") {
            for item in spec.split(',') {
                let (k, v) = item
                    .split_once('=')
                    .ok_or_else(|| format!("bad trace item {item:?}"))?;
                let (a, b) = match v.split_once('-') {
                    Some((a, b)) => (a.parse::<u32>(), b.parse::<u32>()),
                    None => (v.parse::<u32>(), v.parse::<u32>()),
                };
                let (a, b) = (a.map_err(|e| e.to_string())?, b.map_err(|e| e.to_string())?);
                match k {
                    "group" => t.groups.push((a, b)),
                    "lane" => {
                        for l in a..=b.min(31) {
                            t.lanes |= 1 << l;
                        }
                    }
                    _ => return Err(format!("unknown trace key {k:?}")),
                }
            }
        }
        if t.lanes == 0 {
            t.lanes = 0xf;
        }
        Ok(t)
    }

    /// Selects the SIMD-group the next lines belong to.
    pub fn set_group(&self, g: u32) {
        self.current_group.set(g);
    }

    fn wants_group(&self) -> bool {
        let g = self.current_group.get();
        self.groups.is_empty() || self.groups.iter().any(|&(a, b)| (a..=b).contains(&g))
    }

    pub fn instruction(
        &self,
        prog: &Program,
        _sg: &SimdGroup,
        op: &Op,
        mask: u32,
        written: Option<&Written>,
    ) {
        if !self.wants_group() {
            return;
        }
        let mut line = format!(
            "sim g{} pc {:#06x} {:<40} exec {:08x}",
            self.current_group.get(),
            op.pc,
            prog.disasm_at(op.pc),
            mask
        );
        if let Some((reg, part, vals)) = written {
            let p = match part {
                Part::Full => "",
                Part::Lo => ".lo",
                Part::Hi => ".hi",
            };
            line.push_str(&format!(" r{reg}{p}="));
            let shown: Vec<String> = (0..32)
                .filter(|l| self.lanes >> l & 1 != 0)
                .map(|l| format!("{l}:{:#x}", vals[l]))
                .collect();
            line.push_str(&shown.join(" "));
        }
        eprintln!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_filters_parse() {
        let t = Trace::parse("group=2-3,lane=5").unwrap();
        assert_eq!(t.lanes, 1 << 5);
        t.set_group(1);
        assert!(!t.wants_group());
        t.set_group(3);
        assert!(t.wants_group());
        let all = Trace::parse("1").unwrap();
        assert_eq!(all.lanes, 0xf);
        assert!(all.wants_group());
        assert!(Trace::parse("lanes=1").is_err());
    }
}

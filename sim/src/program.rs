//! A program pre-decoded once into the model's executable form.

use crate::core::ops::{Hazard, Kind, Op, Src};
use crate::error::hex;
use std::collections::HashMap;

pub struct Program {
    /// In increasing pc order (decoding is sequential): [`Program::index_of`] searches them.
    pub ops: Vec<Op>,
    pub code: Vec<u8>,
}

impl Program {
    /// Decodes `code` (via `agx16_isa`) and lowers every instruction. Forms
    /// the model cannot execute become ops that stop the SIMD-group with an
    /// error when reached, so unreached code does not fail a launch.
    pub fn new(code: &[u8]) -> Program {
        Self::decode(code, false)
    }

    /// [`Program::new`] over the prefix of `code` that control can reach from offset 0:
    /// decoding stops after a STOP or an unconditional jump once no jump decoded so far
    /// targets anything beyond it. Nothing can execute past that point (a STOP or an
    /// unconditional jump never falls through, every later op could only be entered by a
    /// jump, and the jumps that could be reached are all decoded and land before it), so
    /// every op a run can reach is decoded, lowered and linked exactly as by
    /// [`Program::new`]. Stage bodies and launchers are read from the USC heap with no
    /// recorded end, so without this the model decoded (and disassembled) kilobytes of
    /// whatever follows each program, on every render.
    pub fn new_reachable(code: &[u8]) -> Program {
        Self::decode(code, true)
    }

    fn decode(code: &[u8], reachable_only: bool) -> Program {
        let mut ops: Vec<Op> = vec![];
        let mut off = 0usize;
        // Highest jump target decoded so far (pcs before linking).
        let mut max_target = 0usize;
        while off < code.len() {
            if reachable_only {
                if let Some(last) = ops.last() {
                    let ends_flow = matches!(
                        last.kind,
                        Kind::Stop
                            | Kind::Jump {
                                cond: crate::core::ops::JumpCond::Always,
                                ..
                            }
                    );
                    if ends_flow && max_target < off {
                        break;
                    }
                }
            }
            match lower_memo(code, off) {
                Ok(op) => {
                    off += op.len as usize;
                    if let Kind::Jump { target, .. } = op.kind {
                        max_target = max_target.max(target);
                    }
                    ops.push(op);
                }
                Err(e) => {
                    ops.push(Op {
                        pc: off as u32,
                        len: 0,
                        kind: Kind::Refuse(e),
                        hazard: Hazard::default(),
                        releases: Default::default(),
                    });
                    break;
                }
            }
        }
        let mut p = Program {
            ops,
            code: code.to_vec(),
        };
        p.link_branches();
        p
    }

    /// Number of uniform registers the program reads (buffer base slot n
    /// counts as uniforms 2n and 2n+1).
    pub fn uniforms_needed(&self) -> usize {
        let mut n = 0;
        for op in &self.ops {
            for s in op.kind.sources() {
                if let Src::Uniform(u, _) = s {
                    n = n.max(u as usize + 1);
                }
            }
            if let Kind::Load { addr, .. } | Kind::Store { addr, .. } = &op.kind {
                n = n.max(2 * addr.base_slot as usize + 2);
            }
        }
        n
    }

    pub fn index_of(&self, pc: u32) -> Option<usize> {
        self.ops.binary_search_by_key(&pc, |o| o.pc).ok()
    }

    /// Disassembly of the op at `pc`, for the trace and error messages (made on demand:
    /// programs are decoded on every render that brings new launchers, and formatting every
    /// op's text there cost more than decoding it).
    pub fn disasm_at(&self, pc: u32) -> String {
        let Some(i) = self.index_of(pc) else {
            return "?".into();
        };
        match agx16_isa::decode_at(&self.code, pc as usize) {
            Ok(instr) => instr.to_string(),
            Err(_) => {
                let at = self.ops[i].pc as usize;
                let end = (at + 16).min(self.code.len());
                format!("<undecodable {}>", hex(&self.code[at..end]))
            }
        }
    }

    /// Turns branch target pcs into op indices; a target that is not an
    /// instruction start makes the branch refuse to run.
    fn link_branches(&mut self) {
        for i in 0..self.ops.len() {
            if let Kind::Jump { target, cond } = self.ops[i].kind {
                let pc = target as u32;
                match self.index_of(pc) {
                    Some(t) => self.ops[i].kind = Kind::Jump { target: t, cond },
                    None => {
                        let op = &self.ops[i];
                        self.ops[i].kind = Kind::Refuse(crate::error::SimError::Unestablished {
                            pc: op.pc,
                            bytes: hex(&self.code[op.pc as usize..(op.pc + op.len as u32) as usize]),
                            form: self.disasm_at(op.pc),
                            what: format!("branch target {pc:#x} is not an instruction boundary"),
                        })
                    }
                }
            }
        }
    }
}

/// Bytes an instruction can span (agx16-isa decodes from at most a 16-byte window).
const MAX_INSTR_BYTES: usize = 16;

/// Lowered instructions by (offset, the bytes of the decode window there, the window's length).
type LowerKey = (u32, [u8; MAX_INSTR_BYTES], u8);

/// Lowered instructions kept per thread (cleared when full).
const LOWERED_MAX: usize = 1 << 15;

thread_local! {
    /// Ops by what their decode and lowering read: the instruction's offset (branch targets
    /// are relative) and the at most 16 bytes from it (the decoder's window; shorter at the
    /// end of the code). Equal keys decode and lower identically, so an entry is never
    /// stale. Launchers are new code on every draw, yet only their root-record address
    /// literals differ from the previous draw's: their other ops come from here.
    static LOWERED: std::cell::RefCell<
        rustc_hash::FxHashMap<LowerKey, Result<Op, crate::error::SimError>>,
    > = Default::default();
}

/// [`crate::lower::lower_at`] through the per-thread memo of lowered instructions.
fn lower_memo(code: &[u8], off: usize) -> Result<Op, crate::error::SimError> {
    let window = &code[off.min(code.len())..(off + MAX_INSTR_BYTES).min(code.len())];
    let mut bytes = [0u8; MAX_INSTR_BYTES];
    bytes[..window.len()].copy_from_slice(window);
    let key = (off as u32, bytes, window.len() as u8);
    if let Some(r) = LOWERED.with(|m| m.borrow().get(&key).cloned()) {
        return r;
    }
    let r = crate::lower::lower_at(code, off);
    LOWERED.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= LOWERED_MAX {
            m.clear();
        }
        m.insert(key, r.clone());
    });
    r
}

/// Decoded code by (VA, the bytes read there), for a per-thread `thread_local!`: code read
/// again with identical bytes decodes identically, and a rewritten program is a different
/// key, so an entry is never stale. Cleared when it reaches its bound.
///
/// Lookups hash the VA, the length and only the first [`HASHED_BYTES`] bytes, then compare
/// every byte: windows are up to 16 KiB and read on every render, and hashing all of them
/// cost more than the comparison (a hash collision only costs that comparison).
pub struct DecodeCache<T> {
    max: usize,
    map: std::cell::RefCell<DecodeMap<T>>,
    /// Entries in `map` (summing its buckets on every insert cost more than the insert).
    entries: std::cell::Cell<usize>,
}

/// Entries by the hash of their key's head; each bucket holds the full keys.
type DecodeMap<T> = HashMap<u64, Vec<((u64, Vec<u8>), std::rc::Rc<T>)>>;

/// Bytes of a key's code that its hash covers.
const HASHED_BYTES: usize = 256;

fn head_hash(key: &(u64, Vec<u8>)) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    key.0.hash(&mut h);
    key.1.len().hash(&mut h);
    key.1[..key.1.len().min(HASHED_BYTES)].hash(&mut h);
    h.finish()
}

impl<T> DecodeCache<T> {
    pub fn new(max: usize) -> Self {
        DecodeCache {
            max,
            map: std::cell::RefCell::new(HashMap::new()),
            entries: std::cell::Cell::new(0),
        }
    }

    pub fn get(&self, key: &(u64, Vec<u8>)) -> Option<std::rc::Rc<T>> {
        let m = self.map.borrow();
        let bucket = m.get(&head_hash(key))?;
        bucket
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    pub fn insert(&self, key: (u64, Vec<u8>), value: std::rc::Rc<T>) {
        let mut m = self.map.borrow_mut();
        if self.entries.get() >= self.max {
            m.clear();
            self.entries.set(0);
        }
        let bucket = m.entry(head_hash(&key)).or_default();
        match bucket.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 = value,
            None => {
                bucket.push((key, value));
                self.entries.set(self.entries.get() + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agx16_isa::{encode_program, Instr};

    fn mov(dst: u64, v: u64) -> Vec<u8> {
        encode_program(&[Instr::build("mov_imm32", &[("dst", dst), ("imm", v)]).unwrap()])
    }
    fn stop() -> Vec<u8> {
        encode_program(&[Instr::build("stop", &[]).unwrap()])
    }
    /// The reachable decode is a prefix of the full one, op for op.
    fn same_prefix(full: &Program, part: &Program) {
        assert!(part.ops.len() <= full.ops.len());
        for (i, (a, b)) in full.ops.iter().zip(&part.ops).enumerate() {
            assert_eq!((a.pc, a.len), (b.pc, b.len), "op {i}");
            assert_eq!(full.disasm_at(a.pc), part.disasm_at(b.pc), "op {i}");
        }
    }

    #[test]
    fn decode_cache_tells_keys_with_the_same_head_apart() {
        let c: DecodeCache<u32> = DecodeCache::new(8);
        let a = vec![7u8; 4096];
        let mut b = a.clone();
        b[4000] = 8; // differs past the hashed head
        c.insert((0x100, a.clone()), std::rc::Rc::new(1));
        assert_eq!(c.get(&(0x100, b.clone())), None);
        c.insert((0x100, b.clone()), std::rc::Rc::new(2));
        assert_eq!(c.get(&(0x100, a.clone())).as_deref(), Some(&1));
        assert_eq!(c.get(&(0x100, b)).as_deref(), Some(&2));
        assert_eq!(c.get(&(0x200, a)), None, "another VA");
    }

    #[test]
    fn reachable_decode_stops_after_the_last_reachable_stop() {
        // mov; stop; then bytes that are not the program's (more movs, then garbage)
        let mut code = [mov(1, 7), stop(), mov(2, 8), mov(3, 9)].concat();
        code.extend([0xff; 32]);
        let (full, part) = (Program::new(&code), Program::new_reachable(&code));
        same_prefix(&full, &part);
        assert_eq!(part.ops.len(), 2);
        assert!(full.ops.len() > 4, "the full decode goes on past the STOP");
    }

    #[test]
    fn reachable_decode_follows_jumps_past_a_stop() {
        // jump_any over the first STOP to the mov behind it; the second STOP ends it
        let head = [stop()].concat();
        let tail = [mov(1, 7), stop()].concat();
        let jump_len = agx16_cmdstream::launch::jump_any(0).unwrap().len();
        let jump = agx16_cmdstream::launch::jump_any((jump_len + head.len()) as i64).unwrap();
        let mut code = [jump, head, tail, mov(2, 8)].concat();
        code.extend([0xff; 32]);
        let (full, part) = (Program::new(&code), Program::new_reachable(&code));
        same_prefix(&full, &part);
        assert_eq!(part.ops.len(), 4, "jump, stop, mov, stop");
        assert!(matches!(part.ops[0].kind, Kind::Jump { target: 2, .. }));
        assert!(full.ops.len() > 4);
    }
}

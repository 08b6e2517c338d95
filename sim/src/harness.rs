//! Runs an executable oracle on the model and compares with the real-M4 output.

use crate::dispatch::{run_compute, Code, ComputeLaunch, Stats};
use crate::error::SimError;
use crate::mem::{PageTable, PAGE_SIZE};
use crate::oracle::Oracle;

/// Where the harness maps buffers: one 1 MiB-aligned window per binding.
const BUFFER_BASE: u64 = 0x10_0000_0000;
const BUFFER_STRIDE: u64 = 0x10_0000;

/// The result of one oracle.
#[derive(Debug)]
pub enum Outcome {
    Pass(Stats),
    /// Output differs: (binding, first differing word index, got, want, differing words).
    Mismatch {
        binding: u32,
        word: usize,
        got: u32,
        want: u32,
        differing: usize,
    },
    Error(SimError),
}

/// GPU VA of the buffer in base slot `slot`.
pub fn buffer_va(slot: u64) -> u64 {
    BUFFER_BASE + slot * BUFFER_STRIDE
}

/// Runs compute `code` as one threadgroup of `threads` on a fresh address space: buffer k (32-bit
/// words) mapped at [`buffer_va`]`(k)` with its address in uniform words 2k/2k+1, then `extra`
/// uniform words, `scratch` bytes of per-thread scratch. Returns every buffer after the run (the
/// compiler's differential tests use it; the model's errors are returned as text).
pub fn run_with_buffers(
    code: &[u8],
    buffers: &[Vec<u32>],
    extra: &[u32],
    threads: u32,
    scratch: u32,
) -> Result<Vec<Vec<u32>>, String> {
    let pt = PageTable::new();
    let mut uniforms = Vec::new();
    for (slot, b) in buffers.iter().enumerate() {
        let va = buffer_va(slot as u64);
        let bytes: Vec<u8> = b.iter().flat_map(|w| w.to_le_bytes()).collect();
        pt.map(va, BUFFER_STRIDE, true, true)
            .map_err(|e| e.to_string())?;
        pt.host_write(va, &bytes).map_err(|e| e.to_string())?;
        uniforms.extend([va as u32, (va >> 32) as u32]);
    }
    uniforms.extend_from_slice(extra);
    let launch = ComputeLaunch {
        code: Code::Bytes(code.to_vec()),
        uniforms,
        grid: [threads, 1, 1],
        threadgroup: [threads, 1, 1],
        tg_memory: 0,
        budget: 1 << 24,
    };
    crate::dispatch::run_compute_with_scratch(&pt, &launch, scratch).map_err(|e| e.to_string())?;
    buffers
        .iter()
        .enumerate()
        .map(|(slot, b)| {
            let mut bytes = vec![0u8; b.len() * 4];
            pt.host_read(buffer_va(slot as u64), &mut bytes)
                .map_err(|e| e.to_string())?;
            Ok(bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect())
        })
        .collect()
}

/// Whether the oracle needs uniform words beyond its buffer addresses (fitted preloads,
/// [`crate::preload`]): a launch path that only delivers buffer addresses cannot run it.
pub fn needs_preload(o: &Oracle) -> bool {
    crate::preload::preload(&o.name).is_some()
}

/// Buffer bindings in the order the harness assigns base slots: ascending
/// binding number, consecutive slots from 0 (oracles README; the EXP-M4-35
/// `decoded_buffer_slots` confirm it for those programs).
pub fn slot_order(o: &Oracle) -> Vec<u32> {
    let mut b: Vec<u32> = o.buffers.iter().map(|b| b.binding).collect();
    b.sort_unstable();
    b.dedup();
    b
}

/// Builds the launch and memory for an oracle: buffer base slots in uniform pairs 0.., then the
/// oracle's preloaded uniform words, if any ([`crate::preload`]).
pub fn prepare(o: &Oracle) -> Result<(PageTable, ComputeLaunch), SimError> {
    let code = o
        .code()
        .ok_or_else(|| SimError::Launch(format!("{}: bad main_hex", o.name)))?;
    let pt = PageTable::new();
    let order = slot_order(o);
    let mut uniforms = vec![0u32; 2 * order.len()];
    for (slot, binding) in order.iter().enumerate() {
        let buf = o
            .buffers
            .iter()
            .find(|b| b.binding == *binding)
            .expect("binding from buffers");
        let va = buffer_va(slot as u64);
        let bytes: Vec<u8> = buf.words_u32.iter().flat_map(|w| w.to_le_bytes()).collect();
        let len = (bytes.len() as u64).max(1).div_ceil(PAGE_SIZE) * PAGE_SIZE;
        if len > BUFFER_STRIDE {
            return Err(SimError::Launch(format!(
                "buffer {binding} larger than the harness window"
            )));
        }
        pt.map(va, len, true, true)
            .map_err(|e| SimError::Launch(e.to_string()))?;
        pt.host_write(va, &bytes)?;
        uniforms[2 * slot] = va as u32;
        uniforms[2 * slot + 1] = (va >> 32) as u32;
    }
    // Literals Apple's constant program would have preloaded (fitted, see `preload`).
    if let Some(p) = crate::preload::preload(&o.name) {
        for &(u, v) in p.words {
            let u = u as usize;
            if u < uniforms.len() {
                return Err(SimError::Launch(format!(
                    "{}: preloaded uniform {u} overlaps a buffer address",
                    o.name
                )));
            }
            uniforms.resize(uniforms.len().max(u + 1), 0);
            uniforms[u] = v;
        }
    }
    let grid = o.threads.grid;
    // Unrecorded threadgroup sizes do not matter to these kernels (README): use
    // the grid's x extent up to the 1024-thread limit.
    let threadgroup = o
        .threads
        .threadgroup
        .unwrap_or([grid[0].clamp(1, 1024), 1, 1]);
    let launch = ComputeLaunch {
        code: Code::Bytes(code),
        uniforms,
        grid,
        threadgroup,
        tg_memory: 0,
        budget: 1 << 24,
    };
    Ok((pt, launch))
}

/// Runs one oracle and compares every expected buffer bit for bit.
pub fn check(o: &Oracle) -> Outcome {
    let (pt, launch) = match prepare(o) {
        Ok(x) => x,
        Err(e) => return Outcome::Error(e),
    };
    let stats = match run_compute(&pt, &launch) {
        Ok(s) => s,
        Err(e) => return Outcome::Error(e),
    };
    let order = slot_order(o);
    for exp in &o.expected {
        let Some(slot) = order.iter().position(|&b| b == exp.binding) else {
            return Outcome::Error(SimError::Launch(format!(
                "expected binding {} is not bound",
                exp.binding
            )));
        };
        let va = buffer_va(slot as u64);
        let mut bytes = vec![0u8; exp.words_u32.len() * 4];
        if let Err(f) = pt.host_read(va, &mut bytes) {
            return Outcome::Error(f.into());
        }
        let got: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let diffs: Vec<usize> = (0..got.len())
            .filter(|&i| got[i] != exp.words_u32[i])
            .collect();
        if let Some(&i) = diffs.first() {
            return Outcome::Mismatch {
                binding: exp.binding,
                word: i,
                got: got[i],
                want: exp.words_u32[i],
                differing: diffs.len(),
            };
        }
    }
    Outcome::Pass(stats)
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Pass(s) => write!(f, "pass ({} lane-instructions)", s.lane_instructions),
            Outcome::Mismatch { binding, word, got, want, differing } => write!(
                f,
                "buffer {binding}: {differing} word(s) differ; first at word {word}: got {got:#010x}, M4 wrote {want:#010x}"
            ),
            Outcome::Error(e) => write!(f, "error: {e}"),
        }
    }
}

//! Resolves what a launcher hands its stage body, reading GPU memory: the argument words its
//! pointer loads and transfers produce, and the body its entry's `JMP_EXEC_ANY` reaches. For
//! decoders and for checking builders against memory images; the model executes the
//! launcher's instructions itself.

use super::summary::{summarize_launcher, LaunchSummary};
use super::LaunchError;
use crate::stream::GpuRead;
use agx16_isa::{Op, Operand, Role};
use std::collections::BTreeMap;

/// Launchers are at most this long (compute allocation size).
const LAUNCH_READ: usize = super::COMPUTE_LAUNCH_BYTES;

/// A launcher with its memory-dependent results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedLaunch {
    pub summary: LaunchSummary,
    /// Argument word `i` as the body sees it (uniform selector 2i).
    pub argument_words: Vec<u32>,
    /// VA of the selected entry and of the body its jump reaches.
    pub entry_va: u64,
    pub body_va: u64,
}

fn read_prefix(mem: &impl GpuRead, va: u64, max: usize) -> Vec<u8> {
    let mut n = max;
    while n >= 4 {
        let mut b = vec![0u8; n];
        if mem.read(va, &mut b).is_ok() {
            return b;
        }
        n /= 2;
    }
    Vec::new()
}

fn mem_err(what: String) -> LaunchError {
    LaunchError::Program { at: 0, what }
}

/// Resolves the launcher at `launch_va` with USC base `usc_base`.
pub fn resolve_launch(
    mem: &impl GpuRead,
    usc_base: u64,
    launch_va: u64,
) -> Result<ResolvedLaunch, LaunchError> {
    let bytes = read_prefix(mem, launch_va, LAUNCH_READ);
    let summary = summarize_launcher(&bytes)?;
    // Pending registers the loads fill, 32 bits each, low word first.
    let mut pending = BTreeMap::new();
    for l in &summary.loads {
        let va = summary.resource_table + 8 * l.offset as u64;
        let mut b = vec![0u8; 8 * l.count as usize];
        mem.read(va, &mut b)
            .map_err(|e| mem_err(format!("pointer load at {va:#x}: {e}")))?;
        for (k, w) in b.chunks(4).enumerate() {
            pending.insert(
                l.dst as usize + k,
                u32::from_le_bytes(w.try_into().unwrap()),
            );
        }
    }
    let mut argument_words = Vec::with_capacity(summary.transfers.len());
    for t in &summary.transfers {
        let v = pending.get(&(t.src as usize)).copied().ok_or_else(|| {
            mem_err(format!(
                "argument word {} reads r{} no load filled",
                t.word, t.src
            ))
        })?;
        if t.word as usize != argument_words.len() {
            return Err(mem_err(format!("argument word {} out of order", t.word)));
        }
        argument_words.push(v);
    }
    let entry_va = usc_base + summary.entry_offset;
    let entry = read_prefix(mem, entry_va, 16);
    let jump = agx16_isa::split(&entry)
        .next()
        .and_then(|r| r.ok())
        .filter(|(_, i)| i.form.op == Op::Jump)
        .and_then(|(_, i)| match i.operand(Role::SrcA)?.value {
            Operand::ImmInt(d) => Some(d),
            _ => None,
        })
        .ok_or_else(|| mem_err(format!("entry at {entry_va:#x} is not a JMP_EXEC_ANY")))?;
    Ok(ResolvedLaunch {
        summary,
        argument_words,
        entry_va,
        body_va: (entry_va as i64 + jump) as u64,
    })
}

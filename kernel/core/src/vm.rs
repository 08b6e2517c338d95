//! GPU virtual address spaces: bind/unbind with the G16 rules, and the
//! read-only snapshot a job executes against.

use crate::errno::{Errno, KResult};
use crate::g16_ranges::{firmware_ranges, overlaps};
use crate::gem::{Bo, SmallReads};
use crate::params::{PAGE_MASK, PAGE_SIZE, VM_END, VM_START};
use crate::uapi::asahi::{GemBindOp, BIND_READ, BIND_SINGLE_PAGE, BIND_UNBIND, BIND_WRITE};
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[derive(Clone)]
pub struct Mapping {
    pub va: Range<u64>,
    pub bo: Arc<Bo>,
    /// Offset into `bo` of `va.start` (or of the repeated page if `single`).
    pub offset: u64,
    pub read: bool,
    pub write: bool,
    pub single: bool,
}

impl Mapping {
    /// BO offset backing `va` (which must be inside this mapping).
    fn bo_offset(&self, va: u64) -> u64 {
        let delta = va - self.va.start;
        if self.single {
            self.offset + (delta & PAGE_MASK)
        } else {
            self.offset + delta
        }
    }

    /// Bytes from `va` to the end of the contiguous backing run.
    fn run_len(&self, va: u64) -> u64 {
        let to_end = self.va.end - va;
        if self.single {
            to_end.min(PAGE_SIZE - (va & PAGE_MASK))
        } else {
            to_end
        }
    }
}

pub struct Vm {
    pub id: u32,
    pub kernel: Range<u64>,
    /// Destroyed by userspace but still used by a queue (g16_drm keeps it).
    pub visible: bool,
    mappings: BTreeMap<u64, Mapping>,
}

/// A validated bind operation, ready to apply.
pub enum BindOp {
    Map(Mapping),
    Unmap(Range<u64>),
}

impl Vm {
    pub fn new(id: u32, kernel: Range<u64>) -> Vm {
        Vm {
            id,
            kernel,
            visible: true,
            mappings: BTreeMap::new(),
        }
    }

    /// Checks the VA half of a bind op (g16_drm vm_bind).
    pub fn check_range(&self, addr: u64, range: u64, offset: u64) -> KResult<Range<u64>> {
        let end = addr.checked_add(range).ok_or(Errno::EINVAL)?;
        let va = addr..end;
        if range == 0
            || (addr | range | offset) & PAGE_MASK != 0
            || addr < VM_START
            || end > VM_END
            || overlaps(&va, &self.kernel)
            || firmware_ranges().iter().any(|r| overlaps(&va, r))
        {
            return Err(Errno::EINVAL);
        }
        Ok(va)
    }

    /// Validate one user bind record. `lookup` resolves a GEM handle.
    pub fn prepare(
        &self,
        file_id: u64,
        op: &GemBindOp,
        lookup: impl Fn(u32) -> Option<Arc<Bo>>,
    ) -> KResult<BindOp> {
        let GemBindOp {
            flags,
            handle,
            offset,
            range,
            addr,
        } = *op;
        let va = self.check_range(addr, range, offset)?;
        if flags == BIND_UNBIND {
            if handle != 0 || offset != 0 {
                return Err(Errno::EINVAL);
            }
            return Ok(BindOp::Unmap(va));
        }
        let read = flags & BIND_READ != 0;
        let write = flags & BIND_WRITE != 0;
        let single = flags & BIND_SINGLE_PAGE != 0;
        if flags & !(BIND_READ | BIND_WRITE | BIND_SINGLE_PAGE) != 0 || !(read || write) {
            return Err(Errno::EINVAL);
        }
        let bo = lookup(handle).ok_or(Errno::ENOENT)?;
        if let Some(owner) = bo.private_to {
            if owner != (file_id, self.id) {
                return Err(Errno::EINVAL);
            }
        }
        let need = if single { PAGE_SIZE } else { range };
        if offset.checked_add(need).ok_or(Errno::EINVAL)? > bo.size {
            return Err(Errno::EINVAL);
        }
        Ok(BindOp::Map(Mapping {
            va,
            bo,
            offset,
            read,
            write,
            single,
        }))
    }

    /// Apply a batch atomically: on error nothing changes. Each op costs
    /// O(log n) in the mappings it does not touch (an undo log, not a copy
    /// of the whole map, gives the atomicity).
    pub fn apply(&mut self, ops: Vec<BindOp>) -> KResult<()> {
        let mut log = Vec::new();
        for op in ops {
            match op {
                BindOp::Unmap(va) => unmap_in(&mut self.mappings, &va, &mut log),
                BindOp::Map(m) => {
                    if first_overlap(&self.mappings, &m.va).is_some() {
                        for entry in log.into_iter().rev() {
                            match entry {
                                Undo::Inserted(start) => {
                                    self.mappings.remove(&start);
                                }
                                Undo::Removed(old) => {
                                    self.mappings.insert(old.va.start, old);
                                }
                            }
                        }
                        return Err(Errno::EEXIST);
                    }
                    log.push(Undo::Inserted(m.va.start));
                    self.mappings.insert(m.va.start, m);
                }
            }
        }
        Ok(())
    }

    pub fn snapshot(&self) -> Arc<VmView> {
        Arc::new(VmView {
            mappings: self.mappings.values().cloned().collect(),
            last: [AtomicUsize::new(0), AtomicUsize::new(0)],
        })
    }

    pub fn mapping_count(&self) -> usize {
        self.mappings.len()
    }
}

/// How to take back one change of a bind batch.
enum Undo {
    Inserted(u64),
    Removed(Mapping),
}

/// Start of the last mapping overlapping `va`, if any. Mappings do not
/// overlap, so the last one starting before `va.end` ends last of those.
fn first_overlap(map: &BTreeMap<u64, Mapping>, va: &Range<u64>) -> Option<u64> {
    map.range(..va.end)
        .next_back()
        .filter(|(_, m)| m.va.end > va.start)
        .map(|(&s, _)| s)
}

fn unmap_in(map: &mut BTreeMap<u64, Mapping>, va: &Range<u64>, log: &mut Vec<Undo>) {
    while let Some(start) = first_overlap(map, va) {
        let m = map.remove(&start).expect("found above");
        // Logged before the pieces: the head reuses m's key, so undoing
        // must remove the pieces before m goes back.
        log.push(Undo::Removed(m.clone()));
        if m.va.start < va.start {
            let mut head = m.clone();
            head.va = m.va.start..va.start;
            log.push(Undo::Inserted(head.va.start));
            map.insert(head.va.start, head);
        }
        if va.end < m.va.end {
            let mut tail = m.clone();
            tail.offset = if m.single {
                m.offset
            } else {
                m.offset + (va.end - m.va.start)
            };
            tail.va = va.end..m.va.end;
            log.push(Undo::Inserted(tail.va.start));
            map.insert(tail.va.start, tail);
        }
    }
}

/// Why a GPU access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    Unmapped,
    Permission,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub va: u64,
    pub write: bool,
    pub kind: FaultKind,
}

/// The VM as one job sees it: mappings frozen at submit time. Holding the
/// BOs keeps their pages alive until the job is done, as the real driver
/// pins them.
pub struct VmView {
    mappings: Vec<Mapping>,
    /// Indices of the mappings the last two lookups that searched found: the model's
    /// accesses come in runs (texels of one texture, words of one buffer) or alternate
    /// between two buffers (depth and stencil of a tile, a texture and the target), so
    /// most lookups hit one of them again.
    last: [AtomicUsize; 2],
}

impl VmView {
    fn find(&self, va: u64) -> Option<&Mapping> {
        for last in &self.last {
            if let Some(m) = self.mappings.get(last.load(Ordering::Relaxed)) {
                if m.va.contains(&va) {
                    return Some(m);
                }
            }
        }
        let idx = self
            .mappings
            .partition_point(|m| m.va.start <= va)
            .checked_sub(1)?;
        let m = self.mappings.get(idx)?;
        if va < m.va.end {
            let newest = self.last[0].swap(idx, Ordering::Relaxed);
            self.last[1].store(newest, Ordering::Relaxed);
            Some(m)
        } else {
            None
        }
    }

    fn walk(
        &self,
        va: u64,
        len: usize,
        write: bool,
        mut each: impl FnMut(&Mapping, u64, usize, usize),
    ) -> Result<(), Fault> {
        let mut done = 0usize;
        while done < len {
            let cur = va.checked_add(done as u64).ok_or(Fault {
                va,
                write,
                kind: FaultKind::Unmapped,
            })?;
            let fault = |kind| Fault {
                va: cur,
                write,
                kind,
            };
            let m = self.find(cur).ok_or(fault(FaultKind::Unmapped))?;
            if (write && !m.write) || (!write && !m.read) {
                return Err(fault(FaultKind::Permission));
            }
            let n = (m.run_len(cur) as usize).min(len - done);
            each(m, m.bo_offset(cur), done, n);
            done += n;
        }
        Ok(())
    }

    /// Check the whole range first so a faulting access has no effect.
    pub fn check(&self, va: u64, len: usize, write: bool) -> Result<(), Fault> {
        self.walk(va, len, write, |_, _, _, _| {})
    }

    /// The mapping and BO offset when [va, va+len) lies in one run of one mapping that allows
    /// the access: the common case, served without the two walks (check, then copy).
    fn single_run(&self, va: u64, len: usize, write: bool) -> Option<(&Mapping, u64)> {
        let m = self.find(va)?;
        let allowed = if write { m.write } else { m.read };
        (allowed && len != 0 && m.run_len(va) >= len as u64).then(|| (m, m.bo_offset(va)))
    }

    pub fn read(&self, va: u64, out: &mut [u8]) -> Result<(), Fault> {
        if let Some((m, off)) = self.single_run(va, out.len(), false) {
            m.bo.read(off, out)
                .expect("mapping bounds validated at bind time");
            return Ok(());
        }
        self.check(va, out.len(), false)?;
        let len = out.len();
        self.walk(va, len, false, |m, off, at, n| {
            m.bo.read(off, &mut out[at..at + n])
                .expect("mapping bounds validated at bind time");
        })
    }

    /// Reads `size` (at most 4) bytes at `addrs[l]` for every lane `l` in `mask` into
    /// `out[l]` (little-endian, zero-extended), lowest lane first, stopping at the first fault:
    /// what one [`Self::read`] per lane gives. A lane inside the contiguous mapping the lane
    /// before it read from skips the lookup (a shader's per-lane loads mostly walk one
    /// buffer).
    pub fn read_lanes(
        &self,
        addrs: &[u64; 32],
        mask: u32,
        size: usize,
        out: &mut [u32; 32],
    ) -> Result<(), Fault> {
        let size = size.min(4);
        let mut run: Option<(&Mapping, SmallReads)> = None;
        for (l, (&va, o)) in addrs.iter().zip(out.iter_mut()).enumerate() {
            if mask >> l & 1 == 0 {
                continue;
            }
            *o = match &run {
                Some((m, bytes))
                    if va >= m.va.start && va.saturating_add(size as u64) <= m.va.end =>
                {
                    bytes
                        .read(m.bo_offset(va), size)
                        .expect("mapping bounds validated at bind time")
                }
                _ => {
                    let mut b = [0u8; 4];
                    self.read(va, &mut b[..size])?;
                    run = self
                        .find(va)
                        .filter(|m| m.read && !m.single)
                        .map(|m| (m, m.bo.small_reads()));
                    u32::from_le_bytes(b)
                }
            };
        }
        Ok(())
    }

    pub fn write(&self, va: u64, data: &[u8]) -> Result<(), Fault> {
        if let Some((m, off)) = self.single_run(va, data.len(), true) {
            m.bo.write(off, data)
                .expect("mapping bounds validated at bind time");
            return Ok(());
        }
        self.check(va, data.len(), true)?;
        self.walk(va, data.len(), true, |m, off, at, n| {
            m.bo.write(off, &data[at..at + n])
                .expect("mapping bounds validated at bind time");
        })
    }

    pub fn read_u32(&self, va: u64) -> Result<u32, Fault> {
        let mut b = [0u8; 4];
        self.read(va, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Mapped ranges, for capture.
    pub fn mappings(&self) -> &[Mapping] {
        &self.mappings
    }

    /// Whether [va, va+len) is mapped with the given access (g16 `cover`).
    pub fn covers(&self, va: u64, len: u64, write: bool) -> bool {
        len != 0 && usize::try_from(len).is_ok_and(|l| self.check(va, l, write).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backing::{BackingAllocator, HeapAllocator};
    use std::sync::atomic::AtomicU64;

    fn bo(size: u64, fill: impl Fn(usize) -> u8) -> Arc<Bo> {
        let bo = Bo::new(
            size,
            0,
            None,
            HeapAllocator.allocate(size).unwrap(),
            Arc::new(AtomicU64::new(size)),
        );
        let bytes: Vec<u8> = (0..size as usize).map(fill).collect();
        bo.write(0, &bytes).unwrap();
        Arc::new(bo)
    }

    /// Per-lane reads over two mappings (one single-page), an unreadable one and a hole:
    /// `read_lanes` gives what one `read` per lane gives, the same fault included.
    #[test]
    fn read_lanes_equal_one_read_per_lane() {
        let base = VM_START;
        let map = |va: Range<u64>, bo: Arc<Bo>, read: bool, single: bool| Mapping {
            va,
            bo,
            offset: 0,
            read,
            write: true,
            single,
        };
        let view = VmView {
            mappings: vec![
                map(
                    base..base + 2 * PAGE_SIZE,
                    bo(2 * PAGE_SIZE, |i| i as u8),
                    true,
                    false,
                ),
                map(
                    base + 2 * PAGE_SIZE..base + 4 * PAGE_SIZE,
                    bo(PAGE_SIZE, |i| (i * 7) as u8),
                    true,
                    true,
                ),
                map(
                    base + 4 * PAGE_SIZE..base + 5 * PAGE_SIZE,
                    bo(PAGE_SIZE, |_| 9),
                    false,
                    false,
                ),
            ],
            last: [AtomicUsize::new(0), AtomicUsize::new(0)],
        };
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for round in 0..400 {
            let mut addrs = [0u64; 32];
            for a in addrs.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // Mostly runs within one buffer, sometimes anywhere in (or past) the mappings.
                *a = if round % 4 == 0 {
                    base + seed % (6 * PAGE_SIZE)
                } else {
                    base + (round as u64 * 97) % (4 * PAGE_SIZE) + (seed % 64)
                };
            }
            let mask = (seed >> 7) as u32 | 1;
            for size in [1, 2, 4] {
                let mut want = [0u32; 32];
                let expected = (0..32).try_for_each(|l| {
                    if mask >> l & 1 != 0 {
                        let mut b = [0u8; 4];
                        view.read(addrs[l], &mut b[..size])?;
                        want[l] = u32::from_le_bytes(b);
                    }
                    Ok(())
                });
                let mut got = [0u32; 32];
                assert_eq!(view.read_lanes(&addrs, mask, size, &mut got), expected);
                assert_eq!(got, want, "round {round} size {size}");
            }
        }
    }
}

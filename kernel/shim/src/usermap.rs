//! CPU mappings of GEM objects handed to the application. As in the kernel,
//! a mapping holds a reference to its object, so closing the GEM handle
//! while the mapping lives neither frees the pages nor lets the arena give
//! them to another object; munmap (or a MAP_FIXED mapping over it) drops
//! the reference. Not tracked: mremap of such a mapping.

use agx16_kernel::gem::Bo;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::Arc;

/// start -> (length, one reference per mmap that returned this range: the
/// arena view gives every mmap of one object the same address).
type Table = Mutex<BTreeMap<usize, (usize, Vec<Arc<Bo>>)>>;

static TABLE: Table = Mutex::new(BTreeMap::new());

/// Record that [addr, addr+len) maps `bo`. References displaced by the new
/// mapping are returned for the caller to drop outside the lock.
pub fn add(addr: usize, len: usize, bo: Arc<Bo>) -> Vec<Arc<Bo>> {
    let mut t = TABLE.lock();
    if let Some((l, refs)) = t.get_mut(&addr) {
        if *l == len && refs.first().is_some_and(|b| b.id == bo.id) {
            refs.push(bo);
            return Vec::new();
        }
    }
    let old = remove_locked(&mut t, addr, len, false);
    t.insert(addr, (len, vec![bo]));
    old
}

/// munmap of [addr, addr+len): an exact match drops one mapping's
/// reference; otherwise overlapping entries are trimmed or removed. The
/// references that go are returned so the caller drops them after the lock
/// is released (dropping a BO may free an arena extent).
pub fn remove(addr: usize, len: usize) -> Vec<Arc<Bo>> {
    remove_locked(&mut TABLE.lock(), addr, len, true)
}

fn remove_locked(
    t: &mut BTreeMap<usize, (usize, Vec<Arc<Bo>>)>,
    addr: usize,
    len: usize,
    exact_pops_one: bool,
) -> Vec<Arc<Bo>> {
    if exact_pops_one {
        if let Some((l, refs)) = t.get_mut(&addr) {
            if *l == len && refs.len() > 1 {
                return refs.pop().into_iter().collect();
            }
        }
    }
    let end = addr.saturating_add(len);
    let hits: Vec<usize> = t
        .range(..end)
        .rev()
        .take_while(|(&s, &(l, _))| s + l > addr)
        .map(|(&s, _)| s)
        .collect();
    let mut gone = Vec::new();
    for start in hits {
        let (l, refs) = t.remove(&start).expect("collected above");
        if start < addr {
            t.insert(start, (addr - start, refs.clone()));
        }
        if start + l > end {
            t.insert(end, (start + l - end, refs.clone()));
        }
        gone.extend(refs);
    }
    gone
}

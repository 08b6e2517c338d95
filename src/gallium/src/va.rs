//! A first-fit GPU virtual-address allocator over one range, with coalescing on free.

use std::collections::BTreeMap;

pub struct VaHeap {
    /// Free ranges: start -> length.
    free: BTreeMap<u64, u64>,
}

impl VaHeap {
    pub fn new(start: u64, size: u64) -> VaHeap {
        VaHeap {
            free: BTreeMap::from([(start, size)]),
        }
    }

    /// `size` bytes at an `align`-aligned address (align a power of two), lowest address first.
    pub fn alloc(&mut self, size: u64, align: u64) -> Option<u64> {
        let (start, len, addr) = self.free.iter().find_map(|(&start, &len)| {
            let addr = start.checked_next_multiple_of(align)?;
            (addr.checked_add(size)? <= start + len).then_some((start, len, addr))
        })?;
        self.free.remove(&start);
        if addr > start {
            self.free.insert(start, addr - start);
        }
        let end = start + len;
        if addr + size < end {
            self.free.insert(addr + size, end - (addr + size));
        }
        Some(addr)
    }

    /// Takes `range` out of the free space for good (addresses the kernel refuses to bind). Only valid
    /// before any allocation overlapping it.
    pub fn reserve(&mut self, range: std::ops::Range<u64>) {
        let hit: Vec<(u64, u64)> = self
            .free
            .iter()
            .filter(|(&s, &l)| s < range.end && range.start < s + l)
            .map(|(&s, &l)| (s, l))
            .collect();
        for (s, l) in hit {
            self.free.remove(&s);
            if s < range.start {
                self.free.insert(s, range.start - s);
            }
            if range.end < s + l {
                self.free.insert(range.end, s + l - range.end);
            }
        }
    }

    /// Returns a range `alloc` handed out.
    pub fn free(&mut self, addr: u64, size: u64) {
        let (mut start, mut len) = (addr, size);
        if let Some((&s, &l)) = self.free.range(..addr).next_back() {
            debug_assert!(s + l <= addr, "double free of VA {addr:#x}");
            if s + l == addr {
                self.free.remove(&s);
                start = s;
                len += l;
            }
        }
        if let Some(&l) = self.free.get(&(addr + size)) {
            self.free.remove(&(addr + size));
            len += l;
        }
        self.free.insert(start, len);
    }

    #[cfg(test)]
    pub fn free_ranges(&self) -> usize {
        self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_disjoint_and_coalesce_back() {
        let mut h = VaHeap::new(0x4000, 0x10_0000);
        let a = h.alloc(0x4000, 0x4000).unwrap();
        let b = h.alloc(0x1000, 0x8000).unwrap();
        let c = h.alloc(0x4000, 0x4000).unwrap();
        assert_eq!(a, 0x4000);
        assert_eq!(b % 0x8000, 0);
        assert!(b >= a + 0x4000);
        assert!(c + 0x4000 <= b || c >= b + 0x1000);
        assert_eq!(h.alloc(0x20_0000, 0x4000), None);
        for (addr, size) in [(b, 0x1000), (a, 0x4000), (c, 0x4000)] {
            h.free(addr, size);
        }
        assert_eq!(h.free_ranges(), 1);
        assert_eq!(h.alloc(0x10_0000, 0x4000), Some(0x4000));
    }

    #[test]
    fn reserved_ranges_are_never_handed_out() {
        let mut h = VaHeap::new(0x4000, 0x20_0000);
        h.reserve(0x1_0000..0x1_4000);
        h.reserve(0x1_c000..0x2_4000);
        h.reserve(0x30_0000..0x40_0000); // beyond the heap: no effect
        let mut got = Vec::new();
        while let Some(a) = h.alloc(0x4000, 0x4000) {
            assert!(a + 0x4000 <= 0x1_0000 || a >= 0x1_4000, "{a:#x}");
            assert!(a + 0x4000 <= 0x1_c000 || a >= 0x2_4000, "{a:#x}");
            got.push(a);
        }
        // 0x20_0000 bytes of 16 KiB pages, less the three reserved pages.
        assert_eq!(got.len(), 0x20_0000 / 0x4000 - 3);
        // A block larger than the gap below the first hole lands above it.
        let mut h = VaHeap::new(0x4000, 0x20_0000);
        h.reserve(0x1_0000..0x1_4000);
        assert_eq!(h.alloc(0x1_0000, 0x4000), Some(0x1_4000));
    }
}

//! The sorted scan's per-top-level-vdev queue (`dsl_scan_io_queue_t`, DS@zfs-0.8.0 and
//! DS@zfs-2.2.0; spec §5.2).
//!
//! Theory of operation
//! -------------------
//! During the metadata phase every DVA that needs I/O becomes a "sio" (offset, asize, psize,
//! birth txg — `sio_phys_birth`, which the repair write's DTL test needs) queued on
//! its top-level vdev, ordered by offset. Sios closer than `zfs_scan_max_ext_gap` form one
//! extent (a `range_tree` with gap merging). The issue phase takes whole extents: the
//! lowest-offset extent while checkpointing, the best-scored extent while clearing memory,
//! where `score = fill + ((fill·128/size)·fill_weight·fill)/128` (`ext_size_value`).
//! 0.8.0–2.1.5 compare scores at full precision (higher first, then lower offset);
//! 2.1.6/2.2.0+ key on `(64 − highbit64(score)) << 56 | start`, so scores are compared
//! by their log2 bucket and then by offset.
//!
//! Memory: what ZFS counts against `zfs_scan_mem_lim_*` — 120 B + 16 B per DVA per sio
//! (`SIO_GET_MUSED`) and ≈ 72 B per extent ((sizeof(range_seg_gap_t) + 8) × 1.5). The
//! simulator itself stores 20 B per sio and 40 B per extent.

use std::collections::{BTreeMap, BTreeSet};

/// A queued sio as the issue phase takes it: (offset, asize, psize, birth txg).
pub type Sio = (u64, u32, u32, u64);

/// ZFS's accounting for one single-DVA sio, bytes.
pub const SIO_MEM_BYTES: u64 = 136;
/// ZFS's accounting for one extent node, bytes.
pub const EXT_MEM_BYTES: u64 = 72;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ext {
    end: u64,
    fill: u64,
}

pub struct SortedQueue {
    /// offset → (asize, psize, birth txg).
    sios: BTreeMap<u64, (u32, u32, u64)>,
    exts: BTreeMap<u64, Ext>,
    by_score: BTreeSet<(u64, u64)>,
    max_gap: u64,
    fill_weight: u64,
    /// 2.1.6/2.2+: scores compared by log2 bucket.
    quantized: bool,
    pub bytes: u64,
}

impl SortedQueue {
    pub fn new(max_gap: u64, fill_weight: u64, quantized: bool) -> SortedQueue {
        SortedQueue { sios: BTreeMap::new(), exts: BTreeMap::new(), by_score: BTreeSet::new(), max_gap, fill_weight, quantized, bytes: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.sios.is_empty()
    }
    pub fn len(&self) -> usize {
        self.sios.len()
    }
    pub fn extents(&self) -> usize {
        self.exts.len()
    }
    /// What ZFS counts against the scan memory limit for this queue.
    pub fn mem_used(&self) -> u64 {
        self.sios.len() as u64 * SIO_MEM_BYTES + self.exts.len() as u64 * EXT_MEM_BYTES
    }

    fn key(&self, start: u64, e: &Ext) -> (u64, u64) {
        let size = (e.end - start).max(1) as u128;
        let fill = e.fill as u128;
        let score = fill + ((fill * 128 / size) * self.fill_weight as u128 * fill) / 128;
        let score = score.min(u64::MAX as u128) as u64;
        if self.quantized {
            let hb = 64 - score.leading_zeros() as u64; // highbit64: 1-based, 0 for 0
            (64 - hb, start)
        } else {
            (u64::MAX - score, start)
        }
    }

    fn put_ext(&mut self, start: u64, e: Ext) {
        self.exts.insert(start, e);
        let k = self.key(start, &e);
        self.by_score.insert(k);
    }

    fn take_ext(&mut self, start: u64) -> Ext {
        let e = self.exts.remove(&start).expect("extent");
        let k = self.key(start, &e);
        self.by_score.remove(&k);
        e
    }

    /// Queue the read of one DVA at `offset` (`asize` bytes allocated, `psize` read) of a
    /// block born in txg `birth`.
    pub fn insert(&mut self, offset: u64, asize: u32, psize: u32, birth: u64) {
        if self.sios.insert(offset, (asize, psize, birth)).is_some() {
            return; // the same DVA twice (cannot happen with a valid layout)
        }
        self.bytes += asize as u64;
        let end = offset + asize as u64;
        let gap = self.max_gap;
        let mut start = offset;
        let mut ext = Ext { end, fill: asize as u64 };
        // Merge with the extent before (if within gap), then with following ones.
        if let Some((&s, &e)) = self.exts.range(..=offset).next_back() {
            if offset <= e.end + gap {
                self.take_ext(s);
                start = s;
                ext = Ext { end: e.end.max(end), fill: e.fill + asize as u64 };
            }
        }
        while let Some((&s, &e)) = self.exts.range(start..).next() {
            if s > ext.end + gap {
                break;
            }
            self.take_ext(s);
            ext = Ext { end: ext.end.max(e.end), fill: ext.fill + e.fill };
        }
        self.put_ext(start, ext);
    }

    /// Start of the lowest-offset extent.
    pub fn lowest_extent(&self) -> Option<u64> {
        self.exts.keys().next().copied()
    }

    /// Start of the best-scored extent.
    pub fn best_extent(&self) -> Option<u64> {
        self.by_score.iter().next().map(|&(_, s)| s)
    }

    /// Does an extent start at `start` (still)?
    pub fn has_extent(&self, start: u64) -> bool {
        self.exts.contains_key(&start)
    }

    /// Remove and return the lowest sio of the extent starting at `start`; returns the
    /// extent's new start (None once it is empty) with it.
    pub fn pop_from(&mut self, start: u64) -> Option<(Sio, Option<u64>)> {
        let e = self.take_ext(start);
        let (&off, &(asize, psize, birth)) = self.sios.range(start..).next()?;
        self.sios.remove(&off);
        self.bytes -= asize as u64;
        let rest = Ext { end: e.end, fill: e.fill - asize as u64 };
        let next = self.sios.range(off..).next().map(|(&o, _)| o).filter(|&o| o < e.end);
        match next {
            Some(n) if rest.fill > 0 => {
                self.put_ext(n, rest);
                Some(((off, asize, psize, birth), Some(n)))
            }
            _ => Some(((off, asize, psize, birth), None)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sios_within_the_gap_form_one_extent() {
        let mut q = SortedQueue::new(2 << 20, 3, false);
        q.insert(0, 131072, 131072, 1);
        q.insert(3 << 20, 131072, 131072, 1); // gap 2.875 MiB > 2 MiB: new extent
        assert_eq!(q.extents(), 2);
        q.insert(1 << 20, 131072, 131072, 1); // bridges both (gaps < 2 MiB)
        assert_eq!(q.extents(), 1);
        assert_eq!(q.len(), 3);
        assert_eq!(q.mem_used(), 3 * SIO_MEM_BYTES + EXT_MEM_BYTES);
    }

    #[test]
    fn pops_in_offset_order_and_shrinks_the_extent() {
        let mut q = SortedQueue::new(1 << 20, 3, false);
        for off in [5u64, 1, 3, 2, 4] {
            q.insert(off << 17, 131072, 131072, 1);
        }
        let mut start = q.lowest_extent().unwrap();
        let mut got = vec![];
        loop {
            let ((off, _, _, _), next) = q.pop_from(start).unwrap();
            got.push(off >> 17);
            match next {
                Some(n) => start = n,
                None => break,
            }
        }
        assert_eq!(got, vec![1, 2, 3, 4, 5]);
        assert!(q.is_empty());
        assert_eq!(q.extents(), 0);
    }

    #[test]
    fn best_extent_prefers_dense_large_fill() {
        let mut q = SortedQueue::new(1 << 20, 3, false);
        // Extent A: one block at 0. Extent B: 8 contiguous blocks at 100 MiB.
        q.insert(0, 131072, 131072, 1);
        for k in 0..8u64 {
            q.insert((100 << 20) + k * 131072, 131072, 131072, 1);
        }
        assert_eq!(q.lowest_extent(), Some(0));
        assert_eq!(q.best_extent(), Some(100 << 20));
    }

    #[test]
    fn quantized_scores_tie_by_offset() {
        let mut q = SortedQueue::new(1 << 20, 3, true);
        // Two extents whose scores fall in the same log2 bucket: the lower offset wins.
        for k in 0..5u64 {
            q.insert((200 << 20) + k * 131072, 131072, 131072, 1);
        }
        for k in 0..6u64 {
            q.insert((400 << 20) + k * 131072, 131072, 131072, 1);
        }
        let mut full = SortedQueue::new(1 << 20, 3, false);
        for k in 0..5u64 {
            full.insert((200 << 20) + k * 131072, 131072, 131072, 1);
        }
        for k in 0..6u64 {
            full.insert((400 << 20) + k * 131072, 131072, 131072, 1);
        }
        assert_eq!(full.best_extent(), Some(400 << 20));
        assert_eq!(q.best_extent(), Some(200 << 20));
    }
}

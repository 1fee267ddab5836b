//! The sorted scan's per-top-level-vdev queue (`dsl_scan_io_queue_t`, DS@zfs-0.8.0 and
//! DS@zfs-2.2.0; spec §5.2).
//!
//! Theory of operation
//! -------------------
//! During the metadata phase every DVA that needs I/O becomes a "sio" (offset, asize, psize,
//! birth txg — `sio_phys_birth`, which the repair write's DTL test needs) queued on
//! its top-level vdev, ordered by offset. Sios closer than `zfs_scan_max_ext_gap` form one
//! extent (a `range_tree` with gap merging). The issue phase takes whole extents (one is
//! issued to its end before the next is chosen; `Sorted::pop_next` in `scan.rs`): the
//! lowest-offset extent while checkpointing, the best-scored extent while clearing memory
//! (`zfs_scan_issue_strategy` 1: always the lowest; 2: always the best),
//! where `score = fill + ((fill·128/size)·fill_weight·fill)/128` (`ext_size_value`).
//! 0.8.0–2.1.5 compare scores at full precision (higher first, then lower offset);
//! 2.1.6/2.2.0+ key on `(64 − highbit64(score)) << 56 | start`, so scores are compared
//! by their log2 bucket and then by offset.
//!
//! Memory: what ZFS counts against `zfs_scan_mem_lim_*` (`dsl_scan_should_clear`) — per
//! sio 120 B + 16 B per DVA of its block (`SIO_GET_MUSED`; every sio carries all the
//! block's DVAs), per extent 72 B in 0.8 (`sizeof (range_seg_t)`, two AVL nodes and three
//! u64s), 24 B in 2.0/2.1 (`sizeof (range_seg_gap_t)`) and 48 B from 2.2
//! (`(sizeof (range_seg_gap_t) + sizeof (uint64_t)) * 3 / 2`, 87b46d63b2) — is computed
//! from the sio, DVA and extent counts, exactly as ZFS counts it, whatever the simulator
//! stores.
//!
//! What the simulator stores (its own memory, not ZFS's): sios are kept run-length
//! encoded — a *run* is a maximal set of queued sios that are back to back on the vdev
//! (each starts where the previous one ends) with the same asize and psize and births that
//! no DTL tells apart, stored once as (first offset, count, asize, psize, birth range). A
//! birth matters only through the DTL test (`leaf_misses`: is it inside a leaf's DTL
//! range?), so the caller passes the *cuts* — the txgs x at which some leaf's DTL
//! membership changes between x − 1 and x (each DTL's `lo` and `hi + 1`) — and a run never
//! spans a cut. Every sio of a run then answers every DTL test like the run's lowest birth,
//! which the issue phase gets back as the sio's birth. That stays true while the run is
//! queued: DTLs change only at a leaf's outage start, when its `hi` advances to the synced
//! txg, or when a finished scan excises them — cuts above every queued birth (queued blocks
//! were born by the scan's `max_txg`) — or when a new disk's DTL starts at `TXG_INITIAL`,
//! below every birth. So the set of queued sios, and every result, is exactly what a
//! per-sio map holds: a run is split back into its sios one at a time as the issue phase
//! pops them (lowest offset first), and an insert merges with the run ending where it
//! starts or starting where it ends. A fresh fill places a lane's blocks back to back, so a
//! run is as long as the lane's contiguous stretch on the vdev, however many txgs wrote it;
//! the store grows with the breaks in contiguity (metadata between data, metaslab ends),
//! not with the blocks. An aged layout (`fragmentation` → 1) scatters blocks so that runs
//! shorten towards one sio each (≈ 40 B per sio). Extents cost 40 B each. The score index
//! (extents by score, for the best-extent pick) is built the first time an issue phase
//! asks for the best extent and kept current from then on, so a metadata phase that
//! queues the whole vdev before issuing (a resilver that fits the memory limit) never
//! holds it. The other DVAs of a multi-copy (ditto) block's sios are kept aside by offset
//! (`others`): metadata only, a small share of the sios.

use crate::layout::Dva;
use crate::release::Release;
use std::collections::{BTreeMap, BTreeSet};

/// A queued sio as the issue phase takes it: (offset, asize, psize, birth txg).
pub type Sio = (u64, u32, u32, u64);

/// ZFS's accounting for one single-DVA sio, bytes: `sizeof (scan_io_t)` + one `dva_t`.
pub const SIO_MEM_BYTES: u64 = 136;
/// ZFS's accounting for each further DVA of a sio's block, bytes (`sizeof (dva_t)`).
pub const DVA_MEM_BYTES: u64 = 16;

/// ZFS's accounting for one extent node in `release`, bytes (see the module doc).
pub fn ext_mem_bytes(release: Release) -> u64 {
    match release {
        r if r >= Release::Zfs22 => 48,
        r if r >= Release::Zfs20 => 24,
        _ => 72,
    }
}

/// The other copies of a sio's block, in the sio's order: `bp2sio` puts the queued DVA
/// first and the block's next ones after it, wrapping round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Others {
    n: u8,
    dvas: [Dva; 2],
}

impl Others {
    /// The copies after DVA `i` of `all` (wrapping round).
    pub fn of(all: &[Dva], i: usize) -> Others {
        let mut o = Others::default();
        for k in 1..all.len() {
            o.dvas[o.n as usize] = all[(i + k) % all.len()];
            o.n += 1;
        }
        o
    }
    pub fn as_slice(&self) -> &[Dva] {
        &self.dvas[..self.n as usize]
    }
}

/// `Others` as the store keeps them: 32 bytes instead of 56 (a DVA's vdev id fits 16 bits
/// and its asize 32, as the queued sio's own does). The store holds one per queued sio of a
/// ditto-copied block — at 1 PB some 290 K at the metadata walk's end.
#[derive(Clone, Copy, Debug)]
struct PackedOthers {
    offset: [u64; 2],
    asize: [u32; 2],
    vdev: [u16; 2],
    n: u8,
}

impl PackedOthers {
    fn pack(o: &Others) -> PackedOthers {
        let mut p = PackedOthers { offset: [0; 2], asize: [0; 2], vdev: [0; 2], n: o.n };
        for (k, d) in o.as_slice().iter().enumerate() {
            debug_assert!(d.asize <= u32::MAX as u64);
            (p.offset[k], p.asize[k], p.vdev[k]) = (d.offset, d.asize as u32, d.vdev);
        }
        p
    }

    fn unpack(&self) -> Others {
        let mut o = Others { n: self.n, ..Default::default() };
        for k in 0..self.n as usize {
            o.dvas[k] = Dva { vdev: self.vdev[k], offset: self.offset[k], asize: self.asize[k] as u64 };
        }
        o
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ext {
    end: u64,
    fill: u64,
}

/// Back-to-back sios of one asize and psize whose births lie in `bmin..=bmin + span` with no DTL
/// cut between them: `count` of them from the key offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    count: u32,
    asize: u32,
    psize: u32,
    /// Highest birth − lowest (24 bytes a run instead of 32; births further apart than
    /// u32::MAX txgs simply do not share a run).
    span: u32,
    bmin: u64,
}

/// No cut x with `lo < x <= hi`: births `lo..=hi` answer every DTL test alike, and the
/// range fits a run's `span`.
fn uncut(lo: u64, hi: u64, cuts: &[u64]) -> bool {
    hi - lo <= u32::MAX as u64 && !cuts.iter().any(|&x| lo < x && x <= hi)
}

impl Run {
    /// Can a sio of this size born in `birth` join the run?
    fn takes(&self, asize: u32, psize: u32, birth: u64, cuts: &[u64]) -> bool {
        self.asize == asize && self.psize == psize && uncut(self.bmin.min(birth), self.bmax().max(birth), cuts)
    }
    fn bmax(&self) -> u64 {
        self.bmin + self.span as u64
    }
    /// Set the births to `lo..=hi` (which `uncut` has checked).
    fn set_births(&mut self, lo: u64, hi: u64) {
        self.bmin = lo;
        self.span = (hi - lo) as u32;
    }
    fn len(&self) -> u64 {
        self.count as u64 * self.asize as u64
    }
}

pub struct SortedQueue {
    /// First offset of a run → the run (runs are disjoint; the key is its lowest live sio).
    runs: BTreeMap<u64, Run>,
    /// Queued sios (Σ run counts).
    n_sios: u64,
    exts: BTreeMap<u64, Ext>,
    /// Extents by (score key, start) — only while `scored`; see the module doc.
    by_score: BTreeSet<(u64, u64)>,
    scored: bool,
    max_gap: u64,
    fill_weight: u64,
    /// 2.1.6/2.2+: scores compared by log2 bucket.
    quantized: bool,
    /// What ZFS counts per extent node (`ext_mem_bytes`).
    ext_mem_bytes: u64,
    /// Offset → the other DVAs of a queued multi-DVA sio, and how many DVAs they are.
    others: BTreeMap<u64, PackedOthers>,
    other_dvas: u64,
    pub bytes: u64,
}

impl SortedQueue {
    pub fn new(max_gap: u64, fill_weight: u64, quantized: bool, ext_mem_bytes: u64) -> SortedQueue {
        SortedQueue {
            runs: BTreeMap::new(),
            n_sios: 0,
            exts: BTreeMap::new(),
            by_score: BTreeSet::new(),
            scored: false,
            max_gap,
            fill_weight,
            quantized,
            ext_mem_bytes,
            others: BTreeMap::new(),
            other_dvas: 0,
            bytes: 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.n_sios == 0
    }
    pub fn len(&self) -> usize {
        self.n_sios as usize
    }
    /// Runs the simulator stores for the queued sios (its own memory, ≈ 40 B each).
    pub fn runs(&self) -> usize {
        self.runs.len()
    }
    pub fn extents(&self) -> usize {
        self.exts.len()
    }
    /// What ZFS counts against the scan memory limit for this queue.
    pub fn mem_used(&self) -> u64 {
        self.n_sios * SIO_MEM_BYTES + self.other_dvas * DVA_MEM_BYTES + self.exts.len() as u64 * self.ext_mem_bytes
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
        if self.scored {
            let k = self.key(start, &e);
            self.by_score.insert(k);
        }
    }

    fn take_ext(&mut self, start: u64) -> Ext {
        let e = self.exts.remove(&start).expect("extent");
        if self.scored {
            let k = self.key(start, &e);
            self.by_score.remove(&k);
        }
        e
    }

    /// Add one sio to the run store; false if a queued sio already covers `offset`.
    fn store_sio(&mut self, offset: u64, asize: u32, psize: u32, birth: u64, cuts: &[u64]) -> bool {
        let end = offset + asize as u64;
        let mut prev = None;
        if let Some((&s, r)) = self.runs.range(..=offset).next_back() {
            if s + r.len() > offset {
                return false;
            }
            if s + r.len() == offset && r.takes(asize, psize, birth, cuts) {
                prev = Some((s, *r));
            }
        }
        let next = match self.runs.range(offset..).next() {
            Some((&s, r)) if s == end && r.takes(asize, psize, birth, cuts) => Some((s, *r)),
            Some((&s, _)) if s < end => return false,
            _ => None,
        };
        // Joining both neighbours must not put a cut inside the joined run either.
        let next = next.filter(|(_, n)| prev.is_none_or(|(_, p)| uncut(p.bmin.min(n.bmin), p.bmax().max(n.bmax()), cuts)));
        match (prev, next) {
            (Some((p, pr)), Some((n, nr))) => {
                self.runs.remove(&n);
                let r = self.runs.get_mut(&p).unwrap();
                r.count += 1 + nr.count;
                r.set_births(pr.bmin.min(nr.bmin).min(birth), pr.bmax().max(nr.bmax()).max(birth));
            }
            (Some((p, _)), None) => {
                let r = self.runs.get_mut(&p).unwrap();
                r.count += 1;
                let (lo, hi) = (r.bmin.min(birth), r.bmax().max(birth));
                r.set_births(lo, hi);
            }
            (None, Some((n, nr))) => {
                self.runs.remove(&n);
                let mut r = Run { count: nr.count + 1, ..nr };
                r.set_births(nr.bmin.min(birth), nr.bmax().max(birth));
                self.runs.insert(offset, r);
            }
            (None, None) => {
                self.runs.insert(offset, Run { count: 1, asize, psize, span: 0, bmin: birth });
            }
        }
        true
    }

    /// Remove and return the lowest queued sio at or after `start`.
    /// The lowest queued sio at or after `start`, taken off its run; with the offset of
    /// the run's next sio when the run goes on.
    fn take_first_sio(&mut self, start: u64) -> Option<(Sio, Option<u64>)> {
        // A run's key is its lowest sio, and extents start at a sio, so `start` is a key;
        // a run covering `start` from below would mean a sio queued in no extent.
        debug_assert!(self.runs.range(..start).next_back().is_none_or(|(&s, r)| s + r.len() <= start));
        let (&off, &r) = self.runs.range(start..).next()?;
        self.runs.remove(&off);
        let mut follow = None;
        if r.count > 1 {
            let n = off + r.asize as u64;
            self.runs.insert(n, Run { count: r.count - 1, ..r });
            follow = Some(n);
        }
        Some(((off, r.asize, r.psize, r.bmin), follow))
    }

    /// Queue the read of one DVA at `offset` (`asize` bytes allocated, `psize` read) of a
    /// block born in txg `birth`; `cuts` are the pool's DTL cuts now (see the module doc).
    pub fn insert(&mut self, offset: u64, asize: u32, psize: u32, birth: u64, cuts: &[u64]) {
        self.insert_copies(offset, asize, psize, birth, cuts, Others::default());
    }

    /// `insert` for a DVA of a block with further copies (`others`).
    pub fn insert_copies(&mut self, offset: u64, asize: u32, psize: u32, birth: u64, cuts: &[u64], others: Others) {
        if !self.store_sio(offset, asize, psize, birth, cuts) {
            return; // the same DVA twice (cannot happen with a valid layout)
        }
        if others.n > 0 {
            self.others.insert(offset, PackedOthers::pack(&others));
            self.other_dvas += others.n as u64;
        }
        self.n_sios += 1;
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

    /// Start of the best-scored extent (builds the score index on first use).
    pub fn best_extent(&mut self) -> Option<u64> {
        if !self.scored {
            self.by_score = self.exts.iter().map(|(&s, e)| self.key(s, e)).collect();
            self.scored = true;
        }
        self.by_score.iter().next().map(|&(_, s)| s)
    }

    /// Does an extent start at `start` (still)?
    pub fn has_extent(&self, start: u64) -> bool {
        self.exts.contains_key(&start)
    }

    /// Remove and return the lowest sio of the extent starting at `start`; returns the
    /// extent's new start (None once it is empty) with it. The sio's birth is the lowest of
    /// its run's, which every DTL test answers as it would the sio's own.
    pub fn pop_from(&mut self, start: u64) -> Option<(Sio, Option<u64>)> {
        self.pop_copies_from(start).map(|(sio, _, next)| (sio, next))
    }

    /// `pop_from`, with the sio's block's other copies.
    pub fn pop_copies_from(&mut self, start: u64) -> Option<(Sio, Others, Option<u64>)> {
        let e = self.take_ext(start);
        let ((off, asize, psize, birth), follow) = self.take_first_sio(start)?;
        let others = if self.others.is_empty() { None } else { self.others.remove(&off).map(|p| p.unpack()) }.unwrap_or_default();
        self.other_dvas -= others.n as u64;
        self.n_sios -= 1;
        self.bytes -= asize as u64;
        if self.n_sios == 0 {
            self.scored = false; // drained: the next fill builds no index until asked
        }
        let rest = Ext { end: e.end, fill: e.fill - asize as u64 };
        let next = follow.or_else(|| self.runs.range(off..).next().map(|(&o, _)| o)).filter(|&o| o < e.end);
        match next {
            Some(n) if rest.fill > 0 => {
                self.put_ext(n, rest);
                Some(((off, asize, psize, birth), others, Some(n)))
            }
            _ => Some(((off, asize, psize, birth), others, None)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sios_within_the_gap_form_one_extent() {
        let mut q = SortedQueue::new(2 << 20, 3, false, 72);
        q.insert(0, 131072, 131072, 1, &[]);
        q.insert(3 << 20, 131072, 131072, 1, &[]); // gap 2.875 MiB > 2 MiB: new extent
        assert_eq!(q.extents(), 2);
        q.insert(1 << 20, 131072, 131072, 1, &[]); // bridges both (gaps < 2 MiB)
        assert_eq!(q.extents(), 1);
        assert_eq!(q.len(), 3);
        assert_eq!(q.mem_used(), 3 * SIO_MEM_BYTES + 72);
    }

    /// Audit 1 F4: the extent node costs 72 B in 0.8, 24 B in 2.0/2.1, 48 B from 2.2, and
    /// each sio 120 B + 16 B per DVA of its block (`dsl_scan_should_clear`, `SIO_GET_MUSED`).
    #[test]
    fn memory_is_counted_per_release_and_per_dva() {
        for (rel, ext) in [(Release::Zfs08, 72), (Release::Zfs20, 24), (Release::Zfs21, 24), (Release::Zfs22, 48), (Release::Zfs23, 48)] {
            let mut q = SortedQueue::new(2 << 20, 3, rel >= Release::Zfs22, ext_mem_bytes(rel));
            q.insert(0, 131072, 131072, 1, &[]);
            assert_eq!(q.mem_used(), 136 + ext, "{rel:?}");
            // A ditto block's DVA, 100 MiB away (a second extent): 120 + 2 × 16.
            let all = [Dva { vdev: 0, offset: 100 << 20, asize: 4096 }, Dva { vdev: 1, offset: 7 << 20, asize: 4096 }];
            q.insert_copies(100 << 20, 4096, 4096, 1, &[], Others::of(&all, 0));
            assert_eq!(q.mem_used(), 136 + 152 + 2 * ext, "{rel:?}");
            let (_, others, _) = q.pop_copies_from(100 << 20).unwrap();
            assert_eq!(others.as_slice(), &all[1..]);
            assert_eq!(q.mem_used(), 136 + ext, "{rel:?}");
        }
        let all = [1u64, 2, 3].map(|o| Dva { vdev: o as u16, offset: o, asize: 1 });
        assert_eq!(Others::of(&all, 1).as_slice(), &[all[2], all[0]]);
    }

    #[test]
    fn pops_in_offset_order_and_shrinks_the_extent() {
        let mut q = SortedQueue::new(1 << 20, 3, false, 72);
        for off in [5u64, 1, 3, 2, 4] {
            q.insert(off << 17, 131072, 131072, 1, &[]);
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
        let mut q = SortedQueue::new(1 << 20, 3, false, 72);
        // Extent A: one block at 0. Extent B: 8 contiguous blocks at 100 MiB.
        q.insert(0, 131072, 131072, 1, &[]);
        for k in 0..8u64 {
            q.insert((100 << 20) + k * 131072, 131072, 131072, 1, &[]);
        }
        assert_eq!(q.lowest_extent(), Some(0));
        assert_eq!(q.best_extent(), Some(100 << 20));
    }

    #[test]
    fn quantized_scores_tie_by_offset() {
        let mut q = SortedQueue::new(1 << 20, 3, true, 48);
        // Two extents whose scores fall in the same log2 bucket: the lower offset wins.
        for k in 0..5u64 {
            q.insert((200 << 20) + k * 131072, 131072, 131072, 1, &[]);
        }
        for k in 0..6u64 {
            q.insert((400 << 20) + k * 131072, 131072, 131072, 1, &[]);
        }
        let mut full = SortedQueue::new(1 << 20, 3, false, 72);
        for k in 0..5u64 {
            full.insert((200 << 20) + k * 131072, 131072, 131072, 1, &[]);
        }
        for k in 0..6u64 {
            full.insert((400 << 20) + k * 131072, 131072, 131072, 1, &[]);
        }
        assert_eq!(full.best_extent(), Some(400 << 20));
        assert_eq!(q.best_extent(), Some(200 << 20));
    }

    #[test]
    fn back_to_back_sios_share_one_run() {
        let mut q = SortedQueue::new(1 << 20, 3, true, 48);
        // A DTL starting at txg 8 cuts between births 7 and 8. Out of order: 2, 0, 1 join
        // into one run; 3 (born 8, across the cut) starts a second; 4 (born 9) joins it;
        // 6 is not adjacent: a third.
        let cuts = [8u64];
        for (k, birth) in [(2u64, 7u64), (0, 6), (1, 7), (3, 8), (4, 9), (6, 8)] {
            q.insert(k * 131072, 131072, 131072, birth, &cuts);
        }
        assert_eq!(q.len(), 6);
        assert_eq!(q.runs(), 3);
        assert_eq!(q.mem_used(), 6 * SIO_MEM_BYTES + 48);
        q.insert(131072, 131072, 131072, 7, &cuts); // a duplicate changes nothing
        assert_eq!((q.len(), q.runs()), (6, 3));
        // Without cuts every birth is alike: one run for 0–4, one for 6.
        let mut all = SortedQueue::new(1 << 20, 3, true, 48);
        for (k, birth) in [(2u64, 7u64), (0, 6), (1, 7), (3, 8), (4, 9), (6, 8)] {
            all.insert(k * 131072, 131072, 131072, birth, &[]);
        }
        assert_eq!(all.runs(), 2);
        // The birth handed back is the run's lowest, on the same side of every cut.
        let ((off, _, _, birth), next) = q.pop_from(0).unwrap();
        assert_eq!((off, birth, next), (0, 6, Some(131072)));
        let _ = q.pop_from(131072).unwrap();
        let _ = q.pop_from(2 * 131072).unwrap();
        let ((off, _, _, birth), _) = q.pop_from(3 * 131072).unwrap();
        assert_eq!((off, birth), (3 * 131072, 8));
        assert_eq!(q.runs(), 2);
    }

    /// The run store holds exactly the sios a per-sio map would: random inserts and pops
    /// against a reference `BTreeMap`, comparing every popped sio's offset and sizes, and
    /// its birth's side of every DTL cut.
    #[test]
    fn run_store_matches_a_per_sio_map() {
        let mut rng = 0x9e3779b97f4a7c15u64;
        let mut rand = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let side = |b: u64, cuts: &[u64]| cuts.iter().filter(|&&x| b >= x).count();
        let mut q = SortedQueue::new(1 << 18, 3, true, 48);
        let mut reference: BTreeMap<u64, (u32, u32, u64)> = BTreeMap::new();
        let unit = 4096u64;
        let mut merged = 0;
        let mut across = 0;
        for step in 0..20000 {
            // Cuts as a DTL makes them: at 40 and 70 for the first half, then also at 55.
            let cuts: &[u64] = if step < 10000 { &[40, 70] } else { &[40, 55, 70] };
            if rand(3) > 0 {
                // Slots of 2 units; a block takes 1 or 2 units so neighbours can touch.
                let slot = rand(4000);
                let asize = if slot % 7 == 0 { unit } else { 2 * unit };
                // After step 10000 only births above 55 are inserted: a new cut never
                // falls inside a queued run's births (the module doc's invariant).
                let birth = if step < 10000 { 1 + slot / 80 + rand(2) * (step % 2) } else { 56 + rand(40) };
                let off = slot * 2 * unit;
                if !reference.contains_key(&off) {
                    reference.insert(off, (asize as u32, asize as u32, birth));
                }
                q.insert(off, asize as u32, asize as u32, birth, cuts);
            } else if let Some(start) = q.best_extent() {
                let brute = q.exts.iter().map(|(&s, e)| q.key(s, e)).min().map(|(_, s)| s);
                assert_eq!(Some(start), brute, "step {step}: best extent");
                let ((off, asize, psize, birth), _) = q.pop_from(start).unwrap();
                let (&roff, &(ra, rp, rb)) = reference.range(start..).next().unwrap();
                assert_eq!((off, asize, psize), (roff, ra, rp), "step {step}");
                assert_eq!(side(birth, cuts), side(rb, cuts), "step {step}: birth {birth} for {rb}");
                across += (birth != rb) as u32;
                reference.remove(&roff);
            }
            assert_eq!(q.len(), reference.len(), "step {step}");
            merged = merged.max(q.len() - q.runs());
        }
        assert!(merged > 100, "runs never merged sios: {merged}");
        assert!(across > 100, "runs never spanned births: {across}");
    }
}

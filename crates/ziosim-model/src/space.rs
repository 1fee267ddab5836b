//! The space the run's own writes take, and the frees that give it back.
//!
//! ZFS never overwrites a live block: a txg's sync writes every dirty record to new space
//! and, once the new block pointer is in place, kills the old one (`dbuf_write_done` →
//! `dsl_dataset_block_kill`, DBUF@zfs-0.6.5 and @zfs-2.2.0). With no snapshot holding it
//! the old block is freed in that same syncing txg (`dsl_free` → `metaslab_free`). The
//! metaslab writes the free to its space map in the txg's `metaslab_sync`, so the on-disk
//! map — what `vdev_rebuild_ranges` loads and a scan's traversal reaches — no longer holds
//! it after that sync; the allocator gets the space back only two syncs later:
//! `metaslab_sync_done` of txg N moves N's frees into `ms_defer[N % TXG_DEFER_SIZE]` and
//! returns the frees of N − 2 to `ms_allocatable` (MS@zfs-2.2.0 `metaslab_sync_done`,
//! `TXG_DEFER_SIZE` 2; idle syncs count too; solaris-2009 has no defer: `defer_syncs`).
//! `vs_alloc` (`zpool iostat`'s `alloc`) follows the same `metaslab_sync_done`: a txg's
//! allocations count once it has synced, frees once they leave the defer tree (`held`,
//! `alloc_bytes`). Log blocks in the main pool are freed by `zil_sync` of the first
//! txg whose sync covers every record in them (`lwb_max_txg`, ZIL@zfs-2.2.0 `zil_sync`);
//! the model frees an lwb with the txg that was open when it was allocated.
//!
//! The model keeps, per top-level vdev, two range sets over the space above the layout's
//! (where `alloc_free` places the run's blocks):
//! * `live` — what the space maps hold: allocated, and not freed in a synced txg. A
//!   sequential rebuild copies it, metaslab by metaslab as loaded; a scan visits the run's
//!   blocks only while they are in it.
//! * `busy` — what the allocator must not give out: `live` plus the frees still deferred.
//!   Until the allocator's cursor first reaches the end of a vdev everything past it is
//!   free, so the set is built only then (from `live` and the deferred frees) and kept
//!   from there on.
//!
//! and, per record (`dirty.rs`'s keys: object, level, block id), where its current copy is
//! — up to three pieces: the DVAs of a metadata block (`copies`), or the one or two slices
//! of the packed records a small data block was written into. Rewriting a record frees
//! the pieces of its previous copy in the rewriting txg.
//!
//! The first rewrite of a layout data block frees its layout copy for the space maps and
//! for every scan's traversal and total (`layout_freed`, `layout_gone`), but the layout's
//! space stays out of the allocator's reach and a sequential rebuild still copies the
//! layout's ranges whole (at most the writers' footprint, once); a layout indirect block's
//! first rewrite frees nothing. Simplified also: a `dmu_sync` block is matched to its
//! txg's overridden data records in order, not by file and block; a record past
//! `MAX_TRACKED` distinct ones is not followed (its copies stay allocated — the behaviour before frees were modelled),
//! so memory stays bounded by that many entries.

use std::collections::{BTreeMap, VecDeque};
// clippy.toml fences HashMap for its random per-process seed; this one has a fixed hasher
// (`dirty::KeyHasher`) and is only asked for single keys, never iterated.
#[allow(clippy::disallowed_types)]
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

#[allow(clippy::disallowed_types)]
type KeyMap = HashMap<(u64, u64), Copies, BuildHasherDefault<crate::dirty::KeyHasher>>;
// Same fixed hasher; asked for membership only.
#[allow(clippy::disallowed_types)]
type IndexSet = std::collections::HashSet<u64, BuildHasherDefault<crate::dirty::KeyHasher>>;

/// Records followed at most (and layout blocks noted as freed, ≈ 16 bytes each, at most as
/// many): ≈ 80 bytes each in the map, so ≈ 80 MiB at most, and a run
/// rewriting fewer distinct records than this (any rewriter of a working set under
/// 128 GiB of 128 KiB records) frees every copy it replaces.
pub(crate) const MAX_TRACKED: usize = 1 << 20;
/// `TXG_DEFER_SIZE` (MS@zfs-2.2.0): a txg's frees go back to the allocator this many syncs
/// after their own. OpenSolaris b117 (`solaris-2009`) had no defer tree: its
/// `metaslab_sync_done` vacates the txg's freed map into the allocatable one at once
/// (9babb37438 metaslab.c; `TXG_DEFER_SIZE` first appears at 428870ff73, b141).
pub(crate) const TXG_DEFER_SIZE: u64 = 2;

/// Syncs a free stays deferred on `release`.
pub(crate) fn defer_syncs(release: crate::release::Release) -> u64 {
    if release == crate::release::Release::Solaris2009 { 0 } else { TXG_DEFER_SIZE }
}

/// Disjoint ranges [start, end), each with a tag (the birth txg of the blocks in it, or 0
/// when it does not matter); touching ranges of one tag are one range.
#[derive(Default, Debug, Clone)]
pub(crate) struct RangeSet {
    m: BTreeMap<u64, (u64, u64)>,
    bytes: u64,
}

impl RangeSet {
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    pub(crate) fn len(&self) -> usize {
        self.m.len()
    }

    /// Add [a, b) with `tag`, replacing whatever it overlaps (only a full vdev overlaps).
    pub(crate) fn add(&mut self, a: u64, b: u64, tag: u64) {
        if a >= b {
            return;
        }
        // The allocator's usual case before it wraps: past every range (the rightmost
        // path of the tree, no key compared).
        if let Some(mut last) = self.m.last_entry() {
            let v = last.get_mut();
            if v.0 <= a {
                if v.0 == a && v.1 == tag {
                    v.0 = b;
                } else {
                    self.m.insert(a, (b, tag));
                }
                self.bytes += b - a;
                return;
            }
        }
        // Its usual case after that, one lookup: the last range starting at or before `b`
        // starts at or before `a` and reaches it, so nothing else is in the way.
        if let Some((&s, v)) = self.m.range_mut(..=b).next_back() {
            if s <= a && v.0 >= a && v.1 == tag {
                if b > v.0 {
                    self.bytes += b - v.0;
                    v.0 = b;
                }
                return;
            }
            if v.0 <= a {
                // It ends at or before `a` (touching with another tag) and no range starts
                // in (a, b] — one starting at `b` would have been the one found.
                self.m.insert(a, (b, tag));
                self.bytes += b - a;
                return;
            }
        }
        self.remove(a, b);
        let (mut lo, mut hi) = (a, b);
        if let Some((&s, &(e, t))) = self.m.range(..a).next_back() {
            if e == a && t == tag {
                lo = s;
                self.m.remove(&s);
                self.bytes -= e - s;
            }
        }
        if let Some(&(e, t)) = self.m.get(&b) {
            if t == tag {
                hi = e;
                self.m.remove(&b);
                self.bytes -= e - b;
            }
        }
        self.m.insert(lo, (hi, tag));
        self.bytes += hi - lo;
    }

    /// Remove [a, b) wherever it is held.
    pub(crate) fn remove(&mut self, a: u64, b: u64) {
        if a >= b {
            return;
        }
        // The usual case, one lookup: [a, b) lies inside one range.
        if let Some((&s, v)) = self.m.range_mut(..=a).next_back() {
            let (e, tag) = *v;
            if e >= b {
                self.bytes -= b - a;
                if s == a {
                    self.m.remove(&s);
                } else {
                    v.0 = a;
                }
                if e > b {
                    self.m.insert(b, (e, tag));
                }
                return;
            }
            if e > a {
                // Cut the range that starts at or before `a`; it ends inside [a, b).
                self.bytes -= e - a;
                if s == a {
                    self.m.remove(&s);
                } else {
                    v.0 = a;
                }
            }
        }
        while let Some((&s, &(e, tag))) = self.m.range(a..b).next() {
            self.m.remove(&s);
            self.bytes -= e - s;
            if e > b {
                self.m.insert(b, (e, tag));
                self.bytes += e - b;
            }
        }
    }

    /// The end of a range overlapping [a, b) (the last one starting before `b`), if any.
    #[cfg(test)]
    pub(crate) fn overlap_end(&self, a: u64, b: u64) -> Option<u64> {
        // Ranges are disjoint and sorted: if the last one starting before `b` ends at or
        // before `a`, so do all the others.
        self.m.range(..b).next_back().map(|(_, &(e, _))| e).filter(|&e| e > a)
    }

    /// The first offset ≥ `off` where `len` bytes are free, ending by `end` (one descent,
    /// then the ranges in order: a first-fit walk).
    pub(crate) fn first_gap(&self, off: u64, len: u64, end: u64) -> Option<u64> {
        let mut pos = off;
        if let Some((_, &(e, _))) = self.m.range(..=pos).next_back() {
            pos = pos.max(e);
        }
        for (&s, &(e, _)) in self.m.range(pos..) {
            if s >= pos + len || pos + len > end {
                break;
            }
            pos = e;
        }
        (pos + len <= end).then_some(pos)
    }

    /// The ranges inside [a, b), cut at its ends, in offset order, with their tags.
    pub(crate) fn within_tagged(&self, a: u64, b: u64) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        let first = self.m.range(..a).next_back().filter(|(_, &(e, _))| e > a).map(|(_, &(e, t))| (a, e.min(b), t));
        first.into_iter().chain(self.m.range(a..b).map(move |(&s, &(e, t))| (s, e.min(b), t)))
    }

    /// The ranges inside [a, b), cut at its ends, touching ones joined whatever their tags.
    pub(crate) fn within(&self, a: u64, b: u64) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for (s, e, _) in self.within_tagged(a, b) {
            match out.last_mut() {
                Some(l) if l.1 == s => l.1 = e,
                _ => out.push((s, e)),
            }
        }
        out
    }

    /// Bytes of [a, b) held with tag `tag`.
    pub(crate) fn bytes_tagged(&self, a: u64, b: u64, tag: u64) -> u64 {
        self.within_tagged(a, b).filter(|r| r.2 == tag).map(|r| r.1 - r.0).sum()
    }
}

/// A piece of a record's copy: (top-level vdev, offset, length).
pub(crate) type Piece = (u16, u64, u64);

/// Up to three pieces (a block's DVAs, or the slices of packed records it was written in).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Copies {
    p: [Piece; 3],
    n: u8,
}

impl Copies {
    pub(crate) fn push(&mut self, piece: Piece) {
        if (self.n as usize) < self.p.len() && piece.2 > 0 {
            self.p[self.n as usize] = piece;
            self.n += 1;
        }
    }

    pub(crate) fn pieces(&self) -> &[Piece] {
        &self.p[..self.n as usize]
    }
}

/// The run's space (see the module comment).
#[derive(Default)]
pub(crate) struct RunSpace {
    pub(crate) live: Vec<RangeSet>,
    busy: Vec<RangeSet>,
    /// Per top-level vdev: the allocator went round, so `busy` is kept.
    wrapped: Vec<bool>,
    copies: KeyMap,
    /// Layout data blocks (by traversal index) whose layout copy a rewrite freed: no
    /// traversal reaches them any more (the record's tree now points at its new copy).
    layout_gone: IndexSet,
    /// Their allocated bytes (every DVA), which the pool's `vs_alloc` no longer holds.
    pub(crate) layout_gone_bytes: u64,
    /// Frees by the txg that frees them: out of `live` at its sync, out of `busy` two later.
    freeing: BTreeMap<u64, Vec<Piece>>,
    /// `dmu_sync` blocks by the txg whose dirty records they override, in write order.
    orphans: BTreeMap<u64, VecDeque<Piece>>,
    /// Bytes freed (their txg synced) and bytes of copies of records not followed.
    pub(crate) freed_bytes: u64,
    pub(crate) untracked_bytes: u64,
    /// Records followed at most (`MAX_TRACKED`).
    limit: usize,
    /// Syncs so far, idle ones (`idle_sync`) included: ZFS numbers those too.
    syncs: u64,
    /// Syncs a free stays deferred: `TXG_DEFER_SIZE`, 0 on solaris-2009.
    defer: u64,
    /// Synced txgs whose frees are still deferred: (txg, `syncs` at its sync).
    deferring: VecDeque<(u64, u64)>,
    /// Per top-level vdev, what the run changed in its `vs_alloc`, which moves only in
    /// `metaslab_sync_done` (MS@zfs-2.2.0): + a txg's allocations when that txg has synced
    /// (until then in `pending`), − its frees (the run's and the layout copies rewrites
    /// freed, `layout_frees`) when they leave the defer tree.
    held: Vec<i64>,
    /// Allocations whose txg has not synced yet: (engine txg, bytes per top-level vdev).
    pending: VecDeque<(u64, Vec<u64>)>,
    /// Layout copies freed by rewrites, by the txg that freed them: (top-level vdev, asize).
    layout_frees: BTreeMap<u64, Vec<(u16, u64)>>,
}

impl RunSpace {
    /// The space of `ntops` top-level vdevs; frees deferred `defer` syncs.
    pub(crate) fn new(ntops: usize, defer: u64) -> RunSpace {
        RunSpace {
            live: vec![RangeSet::default(); ntops],
            busy: vec![RangeSet::default(); ntops],
            wrapped: vec![false; ntops],
            held: vec![0; ntops],
            defer,
            limit: MAX_TRACKED,
            ..Default::default()
        }
    }

    /// `alloc_free` gave out [off, off + len) of `t` (`ms_allocating[txg]`, engine txg
    /// `txg`) for blocks born in `birth` (the scan's txg numbering): in the space maps from
    /// the txg's sync on (the model counts it at once, as the rebuild's load did), in
    /// `vs_alloc` from the end of that sync.
    pub(crate) fn alloc(&mut self, t: usize, off: u64, len: u64, birth: u64, txg: u64) {
        self.live[t].add(off, off + len, birth);
        let i = match self.pending.iter().rposition(|e| e.0 == txg) {
            Some(i) => i,
            None => {
                let i = self.pending.partition_point(|e| e.0 < txg);
                self.pending.insert(i, (txg, vec![0; self.held.len()]));
                i
            }
        };
        self.pending[i].1[t] += len;
        if self.wrapped[t] {
            self.busy[t].add(off, off + len, 0);
        }
    }

    /// The allocator's cursor of `t` reached the end and goes back to the start of the
    /// free space: from here on it must find its way past what is still held.
    pub(crate) fn wrap(&mut self, t: usize) {
        if self.wrapped[t] {
            return;
        }
        self.wrapped[t] = true;
        let busy = &mut self.busy[t];
        for (a, b) in self.live[t].within(0, u64::MAX) {
            busy.add(a, b, 0);
        }
        for &(u, off, len) in self.freeing.values().flatten() {
            if u as usize == t {
                busy.add(off, off + len, 0);
            }
        }
    }

    /// Bytes of [off, off + len) of `t` still held by blocks born in `birth`: an earlier
    /// block there was freed and the space given to a later one.
    pub(crate) fn live_born(&self, t: usize, off: u64, len: u64, birth: u64) -> u64 {
        self.live[t].bytes_tagged(off, off + len, birth)
    }

    /// The next offset ≥ `off` where `len` bytes of `t` are free, searching up to `end`.
    pub(crate) fn next_free(&self, t: usize, off: u64, len: u64, end: u64) -> Option<u64> {
        if !self.wrapped[t] {
            // Nothing was given out past the cursor yet.
            return (off + len <= end).then_some(off);
        }
        self.busy[t].first_gap(off, len, end)
    }

    /// Record `key` now has `new` (written by the sync of `txg`): its previous copy is
    /// freed in `txg`. False when the record had no copy the run wrote (its first write).
    pub(crate) fn rewrite(&mut self, key: (u64, u64), new: Copies, txg: u64) -> bool {
        if let Some(old) = self.copies.get_mut(&key) {
            let freed = std::mem::replace(old, new);
            self.freeing.entry(txg).or_default().extend_from_slice(freed.pieces());
            return true;
        } else if self.copies.len() < self.limit {
            self.copies.insert(key, new);
        } else {
            self.untracked_bytes += new.pieces().iter().map(|p| p.2).sum::<u64>();
        }
        false
    }

    /// The first rewrite of layout data block `index` (traversal index, `asize` bytes over
    /// its DVAs) freed its layout copy. False when it was already gone, or when the blocks
    /// followed reached `MAX_TRACKED` (its copy then stays allocated, as a record past the
    /// limit keeps its copies).
    pub(crate) fn layout_freed(&mut self, index: u64, asize: u64) -> bool {
        if self.layout_gone.len() >= self.limit || !self.layout_gone.insert(index) {
            return false;
        }
        self.layout_gone_bytes += asize;
        true
    }

    /// `asize` bytes of a layout copy freed in `txg` (`layout_freed`) lay on top-level
    /// vdev `t`: out of `vs_alloc` when that free leaves the defer tree.
    pub(crate) fn layout_gone_on(&mut self, txg: u64, t: usize, asize: u64) {
        self.layout_frees.entry(txg).or_default().push((t as u16, asize));
    }

    /// What `vs_alloc` of top-level vdev `t` holds beyond the layout's `layout_bytes`.
    pub(crate) fn alloc_bytes(&self, t: usize, layout_bytes: u64) -> u64 {
        (layout_bytes as i64 + self.held[t]).max(0) as u64
    }

    /// Layout data block `index` was freed by a rewrite (`layout_freed`).
    #[inline]
    pub(crate) fn layout_gone(&self, index: u64) -> bool {
        !self.layout_gone.is_empty() && self.layout_gone.contains(&index)
    }

    /// Record `key` is gone (its object destroyed by the sync of `txg`): its copy is freed.
    pub(crate) fn forget(&mut self, key: (u64, u64), txg: u64) {
        if let Some(old) = self.copies.remove(&key) {
            self.freeing.entry(txg).or_default().extend_from_slice(old.pieces());
        }
    }

    /// A block freed with txg `txg` whatever record it belonged to (an lwb).
    pub(crate) fn free_with(&mut self, txg: u64, piece: Piece) {
        self.freeing.entry(txg).or_default().push(piece);
    }

    /// A `dmu_sync` block written for txg `txg`'s dirty data.
    pub(crate) fn orphan(&mut self, txg: u64, piece: Piece) {
        self.orphans.entry(txg).or_default().push_back(piece);
    }

    /// The next `dmu_sync` block of `txg`, for one of its overridden records.
    pub(crate) fn take_orphan(&mut self, txg: u64) -> Option<Piece> {
        let v = self.orphans.get_mut(&txg)?;
        let p = v.pop_front();
        if v.is_empty() {
            self.orphans.remove(&txg);
        }
        p
    }

    /// The frees `synced(txg)` will take out of the space maps (the `dmu_sync` blocks no
    /// record took are not among them yet).
    pub(crate) fn freeing_of(&self, txg: u64) -> &[Piece] {
        self.freeing.get(&txg).map_or(&[], |v| v.as_slice())
    }

    /// `metaslab_sync` of `txg`: its frees leave the space maps; `metaslab_sync_done`:
    /// the frees of `txg − TXG_DEFER_SIZE` go back to the allocator. `dmu_sync` blocks
    /// no record of a txg up to this one took (late arrivals, or more blocks than
    /// overridden records) are freed with it.
    pub(crate) fn synced(&mut self, txg: u64) {
        while let Some(e) = self.orphans.first_entry().filter(|e| *e.key() <= txg) {
            let v = e.remove();
            self.freeing.entry(txg).or_default().extend(v);
        }
        if let Some(v) = self.freeing.get(&txg) {
            for &(t, off, len) in v.iter() {
                self.live[t as usize].remove(off, off + len);
                self.freed_bytes += len;
            }
        }
        while self.pending.front().is_some_and(|e| e.0 <= txg) {
            let (_, v) = self.pending.pop_front().unwrap();
            for (h, b) in self.held.iter_mut().zip(v) {
                *h += b as i64;
            }
        }
        self.syncs += 1;
        self.deferring.push_back((txg, self.syncs));
        self.return_deferred();
    }

    /// An idle txg synced (`TxgAction::Elided`): ZFS gives it a number, and its
    /// `metaslab_sync_done` returns the frees of the txg `defer` syncs before it.
    pub(crate) fn idle_sync(&mut self) {
        self.syncs += 1;
        self.return_deferred();
    }

    /// Give the allocator back the frees of the txgs that synced `defer` syncs ago.
    fn return_deferred(&mut self) {
        while let Some(&(txg, _)) = self.deferring.front().filter(|e| e.1 + self.defer <= self.syncs) {
            self.deferring.pop_front();
            while let Some(e) = self.freeing.first_entry().filter(|e| *e.key() <= txg) {
                for (t, off, len) in e.remove() {
                    self.held[t as usize] -= len as i64;
                    if self.wrapped[t as usize] {
                        self.busy[t as usize].remove(off, off + len);
                    }
                }
            }
            while let Some(e) = self.layout_frees.first_entry().filter(|e| *e.key() <= txg) {
                for (t, asize) in e.remove() {
                    self.held[t as usize] -= asize as i64;
                }
            }
        }
    }

    /// Records followed.
    pub(crate) fn tracked(&self) -> usize {
        self.copies.len()
    }

    /// For the results: what the run's blocks take at the end, what their rewrites freed.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "live_bytes": self.live.iter().map(|r| r.bytes()).sum::<u64>(),
            "live_ranges": self.live.iter().map(|r| r.len()).sum::<usize>(),
            "freed_bytes": self.freed_bytes,
            "records_followed": self.tracked(),
            "unfollowed_bytes": self.untracked_bytes,
            "layout_freed_bytes": self.layout_gone_bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(s: &RangeSet) -> Vec<(u64, u64)> {
        s.within(0, u64::MAX)
    }

    #[test]
    fn ranges_coalesce_split_and_count() {
        let mut s = RangeSet::default();
        s.add(10, 20, 0);
        s.add(30, 40, 0);
        s.add(20, 30, 0); // touches both: one range
        assert_eq!(ranges(&s), vec![(10, 40)]);
        assert_eq!((s.bytes(), s.len()), (30, 1));
        s.add(5, 50, 0); // covers it
        assert_eq!((ranges(&s), s.bytes()), (vec![(5, 50)], 45));
        s.remove(10, 20);
        assert_eq!(ranges(&s), vec![(5, 10), (20, 50)]);
        s.remove(0, 7);
        s.remove(45, 60);
        assert_eq!((ranges(&s), s.bytes()), (vec![(7, 10), (20, 45)], 28));
        s.remove(8, 30); // the end of one and the start of the next
        assert_eq!((ranges(&s), s.bytes()), (vec![(7, 8), (30, 45)], 16));
        assert_eq!(s.overlap_end(0, 7), None);
        assert_eq!(s.overlap_end(0, 8), Some(8));
        assert_eq!(s.overlap_end(10, 31), Some(45));
        assert!(s.overlap_end(44, 100).is_some() && s.overlap_end(45, 100).is_none());
        assert_eq!(s.within(0, 40), vec![(7, 8), (30, 40)]);
        assert_eq!(s.within(35, 40), vec![(35, 40)]);
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn a_rewrite_frees_the_old_copy_at_its_sync_and_to_the_allocator_two_syncs_later() {
        let mut sp = RunSpace::new(1, TXG_DEFER_SIZE);
        let mut c = Copies::default();
        c.push((0, 1000, 100));
        sp.alloc(0, 1000, 100, 5, 5);
        sp.rewrite((1, 7), c, 5);
        let mut c2 = Copies::default();
        c2.push((0, 1100, 100));
        sp.alloc(0, 1100, 100, 6, 6);
        sp.rewrite((1, 7), c2, 6);
        assert_eq!(sp.live[0].bytes(), 200);
        sp.synced(5); // the first copy's txg: nothing freed in it
        assert_eq!(sp.live[0].bytes(), 200);
        sp.wrap(0);
        sp.synced(6); // the rewrite's txg: out of the space map, still deferred
        assert_eq!((ranges(&sp.live[0]), sp.freed_bytes), (vec![(1100, 1200)], 100));
        assert_eq!(sp.next_free(0, 1000, 100, 10_000), Some(1200));
        sp.synced(7);
        assert_eq!(sp.next_free(0, 1000, 100, 10_000), Some(1200));
        sp.synced(8); // 6 + TXG_DEFER_SIZE: allocatable again
        assert_eq!(sp.next_free(0, 1000, 100, 10_000), Some(1000));
        assert_eq!(sp.next_free(0, 1000, 101, 10_000), Some(1200));
        assert_eq!(sp.next_free(0, 1150, 100, 1250), None);
        assert_eq!(sp.tracked(), 1);
    }

    /// Idle syncs count towards the defer (ZFS numbers them); b117 had no defer tree; and
    /// `vs_alloc` takes a txg's allocations when it has synced, its frees when they are back.
    #[test]
    fn the_defer_counts_idle_syncs_and_is_none_on_solaris_2009() {
        let rewrite = |defer: u64| {
            let mut sp = RunSpace::new(1, defer);
            let c = |off| {
                let mut c = Copies::default();
                c.push((0, off, 100));
                c
            };
            sp.alloc(0, 1000, 100, 5, 5);
            sp.rewrite((1, 7), c(1000), 5);
            assert_eq!(sp.alloc_bytes(0, 0), 0, "not in vs_alloc before its txg synced");
            sp.synced(5);
            sp.wrap(0);
            sp.alloc(0, 1100, 100, 6, 6);
            sp.rewrite((1, 7), c(1100), 6);
            sp.layout_gone_on(6, 0, 40);
            sp.synced(6);
            sp
        };
        let mut sp = rewrite(TXG_DEFER_SIZE);
        assert_eq!((sp.alloc_bytes(0, 1000), sp.next_free(0, 1000, 100, 10_000)), (1200, Some(1200)));
        sp.idle_sync();
        assert_eq!(sp.alloc_bytes(0, 1000), 1200);
        sp.idle_sync(); // two syncs after the free's own: back
        assert_eq!((sp.alloc_bytes(0, 1000), sp.next_free(0, 1000, 100, 10_000)), (1060, Some(1000)));
        let sp = rewrite(defer_syncs(crate::release::Release::Solaris2009));
        assert_eq!((sp.alloc_bytes(0, 1000), sp.next_free(0, 1000, 100, 10_000)), (1060, Some(1000)));
    }

    #[test]
    fn dmu_sync_blocks_go_to_their_records_or_are_freed_with_their_txg() {
        let mut sp = RunSpace::new(1, TXG_DEFER_SIZE);
        sp.alloc(0, 0, 10, 4, 4);
        sp.alloc(0, 10, 10, 4, 4);
        sp.orphan(4, (0, 0, 10));
        sp.orphan(4, (0, 10, 10));
        assert_eq!(sp.take_orphan(4), Some((0, 0, 10)));
        assert_eq!(sp.take_orphan(3), None);
        // The second one no record took: freed with txg 4.
        sp.synced(4);
        assert_eq!(ranges(&sp.live[0]), vec![(0, 10)]);
        assert_eq!(sp.take_orphan(4), None);
    }

    #[test]
    fn records_past_the_limit_keep_their_copies() {
        let mut sp = RunSpace::new(1, TXG_DEFER_SIZE);
        sp.limit = 2;
        let c = |off| {
            let mut c = Copies::default();
            c.push((0, off, 4096));
            c
        };
        sp.rewrite((0, 0), c(0), 1);
        sp.rewrite((0, 1), c(4096), 1);
        sp.rewrite((9, 9), c(8192), 1);
        assert_eq!((sp.tracked(), sp.untracked_bytes), (2, 4096));
        // A record already followed still is.
        sp.rewrite((0, 0), c(12288), 2);
        assert_eq!(sp.freeing[&2], vec![(0, 0, 4096)]);
    }

    #[test]
    fn ranges_keep_their_tags_apart() {
        let mut s = RangeSet::default();
        s.add(0, 10, 1);
        s.add(10, 20, 1); // the allocator's next block of the same txg: one range
        s.add(20, 30, 2); // the next txg's touches it: a range of its own
        assert_eq!(s.within_tagged(0, 100).collect::<Vec<_>>(), vec![(0, 20, 1), (20, 30, 2)]);
        assert_eq!(s.within(0, 100), vec![(0, 30)]);
        // Freed, and given to a later txg: its bytes are that txg's.
        s.remove(5, 15);
        s.add(5, 15, 3);
        assert_eq!(s.within_tagged(0, 100).collect::<Vec<_>>(), vec![(0, 5, 1), (5, 15, 3), (15, 20, 1), (20, 30, 2)]);
        assert_eq!((s.bytes_tagged(0, 20, 1), s.bytes_tagged(0, 20, 3), s.bytes()), (10, 10, 30));
        // A range added at the start of a same-tag one joins it; an overlapping add (a full
        // vdev) replaces what it covers.
        s.add(30, 40, 4);
        s.add(25, 35, 4);
        assert_eq!(s.within_tagged(20, 100).collect::<Vec<_>>(), vec![(20, 25, 2), (25, 40, 4)]);
        s.add(50, 60, 5);
        s.add(45, 50, 5);
        assert_eq!(s.within_tagged(41, 100).collect::<Vec<_>>(), vec![(45, 60, 5)]);
        assert_eq!(s.bytes(), 40 + 15);
    }

    /// Random adds and removes against a plain array of units: the same content, tags,
    /// total, and touching ranges of one tag always joined.
    #[test]
    fn ranges_match_a_plain_array() {
        let mut rng = ziosim_engine::Rng::stream(3, "space/test");
        const N: usize = 200;
        let mut s = RangeSet::default();
        let mut a = [None::<u64>; N];
        for step in 0..20_000 {
            let x = rng.below(N as u64);
            let y = (x + 1 + rng.below(12)).min(N as u64);
            if rng.below(3) == 0 {
                s.remove(x, y);
                a[x as usize..y as usize].fill(None);
            } else {
                let tag = rng.below(3);
                s.add(x, y, tag);
                a[x as usize..y as usize].fill(Some(tag));
            }
            let mut want: Vec<(u64, u64, u64)> = Vec::new();
            for (i, v) in a.iter().enumerate() {
                let Some(t) = *v else { continue };
                match want.last_mut() {
                    Some(l) if l.1 == i as u64 && l.2 == t => l.1 += 1,
                    _ => want.push((i as u64, i as u64 + 1, t)),
                }
            }
            assert_eq!(s.within_tagged(0, N as u64).collect::<Vec<_>>(), want, "step {step}");
            assert_eq!(s.bytes(), a.iter().flatten().count() as u64, "step {step}");
            let (p, q) = (rng.below(N as u64), rng.below(N as u64));
            let (p, q) = (p.min(q), p.max(q) + 1);
            let hit = a[p as usize..q as usize].iter().any(|v| v.is_some());
            assert_eq!(s.overlap_end(p, q).is_some(), hit, "step {step}");
            let len = 1 + rng.below(8);
            let gap = (p..=N as u64 - len).find(|&o| a[o as usize..(o + len) as usize].iter().all(|v| v.is_none()));
            assert_eq!(s.first_gap(p, len, N as u64), gap, "step {step}");
        }
    }
}

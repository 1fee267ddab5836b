//! The legacy scan's metadata prefetch (`dsl_scan_prefetch`).
//!
//! Theory of operation (DS@zfs-0.7.13 `dsl_scan_recurse`, `dsl_scan_visitdnode`,
//! `dsl_scan_prefetch`; il:44ecc5327a; spec §5.1)
//! -------------------------------------------------------------------------------
//! When the traversal has read an indirect block it prefetches, before visiting any of
//! them, every child block pointer that is itself an indirect block (level > 0) or a dnode
//! block; when it has read a dnode block, the top block pointer of each of its dnodes that
//! is an indirect. A prefetch is `arc_read` with ARC_FLAG_NOWAIT | ARC_FLAG_PREFETCH at
//! ASYNC_READ priority, with no parent zio: it is not counted against
//! `zfs_top_maxinflight`, the txg's drain does not wait for it, and it does not stamp
//! `spa_last_io` (ZIO_FLAG_SCAN_THREAD). Blocks born at or before the scan's minimum txg are
//! not prefetched (they will not be visited). `zfs_no_scrub_prefetch = 1` turns it off.
//!
//! When the traversal reaches a prefetched block, its synchronous read finds it in the ARC
//! (done: no I/O) or waits for the prefetch in flight. The model keeps prefetched blocks
//! until the traversal visits them (no ARC eviction).
//!
//! Children are found by walking the layout's traversal forward from the parent over its
//! subtree (depth-first order puts every child inside it). The walk is skipped for a file's
//! level-1 indirects (their children are data), so over a whole scan each level of the tree
//! is walked about once more: O(pool blocks) extra integer work, O(fan-out) memory.
//!
//! Releases from 0.8 prefetch through a separate queue and thread (`dsl_scan_prefetch_thread`);
//! that engine is not modelled here.

use crate::io::IoClass;
use crate::layout::{Block, BlockKind, Cursor};
use crate::scan::OWNER_SCAN;
use crate::sim::{Ev, Model_};
use std::collections::BTreeMap;
use ziosim_engine::Ctx;

/// Owner bit (under `OWNER_SCAN`) of a prefetch's leaf reads.
pub(crate) const OWNER_SCAN_PF: u32 = 1 << 28;

#[derive(Clone, Copy, Debug, Default)]
struct PfSlot {
    /// Leaf reads still in flight.
    pending: u32,
    block: u64,
    /// The prefetch state this slot belongs to (stale after a new scan starts).
    gen: u64,
}

/// Prefetched metadata of the running legacy scan, by traversal index: `Some(slot)` in
/// flight, `None` in the ARC.
#[derive(Default)]
pub(crate) struct ScanPrefetch {
    slots: Vec<PfSlot>,
    free: Vec<u32>,
    blocks: BTreeMap<u64, Option<u32>>,
    gen: u64,
    /// The traversal waits, synchronously, for this block's prefetch.
    waiting: Option<u64>,
}

impl ScanPrefetch {
    /// A new scan: forget what the last one prefetched (its reads in flight finish unused).
    pub(crate) fn reset(&mut self) {
        self.gen += 1;
        self.blocks.clear();
        self.waiting = None;
    }
}

impl Model_ {
    pub(crate) fn prefetch_on(&self) -> bool {
        let legacy = self.scan.as_ref().is_some_and(|s| s.sorted.is_none());
        legacy && self.tun.try_get(crate::tunables::T::zfs_no_scrub_prefetch).unwrap_or(0) == 0
    }

    /// The traversal is about to read metadata block `blk`: true if the read is not needed
    /// (prefetched and in the ARC) — or the traversal now waits for the prefetch in flight
    /// (then false is returned and the wait is set up).
    pub(crate) fn scan_prefetched(&mut self, blk: &Block) -> Option<bool> {
        match self.scan_pf.blocks.get(&blk.index).copied() {
            None => None,
            Some(None) => {
                self.scan_pf.blocks.remove(&blk.index);
                self.scan.as_mut().unwrap().prefetch_hits += 1;
                Some(true)
            }
            Some(Some(_)) => {
                self.scan_pf.waiting = Some(blk.index);
                self.scan.as_mut().unwrap().prefetch_hits += 1;
                Some(false)
            }
        }
    }

    /// After the traversal read `parent` (at bookmark `at`): prefetch its metadata children.
    pub(crate) fn scan_prefetch_children(&mut self, parent: &Block, at: Cursor, ctx: &mut Ctx<Ev>) {
        if !self.prefetch_on() {
            return;
        }
        let min_txg = self.scan.as_ref().unwrap().min_txg;
        let file = at.file();
        // Which blocks are children, and where the parent's subtree ends.
        let (want_level, stop_level) = match (parent.kind, file) {
            (BlockKind::Indirect, Some(_)) if parent.level >= 2 => (parent.level - 1, parent.level),
            (BlockKind::Indirect, None) => (parent.level - 1, parent.level),
            (BlockKind::Dnode, None) => (u8::MAX, 0),
            _ => return,
        };
        let mut kids: Vec<Block> = Vec::new();
        let mut tr = self.layout.traverse_from(at);
        tr.next(); // the parent itself
        let mut last_file = None;
        loop {
            let c = tr.cursor();
            let Some(b) = tr.next() else { break };
            let f = c.file();
            let inside = match (parent.kind, file) {
                // A file's indirect: the same file, lower levels.
                (BlockKind::Indirect, Some(pf)) => f == Some(pf) && b.level < stop_level,
                // A meta-dnode indirect: everything until the next meta-dnode indirect at
                // its level or above (dnode blocks and their files lie inside).
                (BlockKind::Indirect, None) => f.is_some() || b.kind == BlockKind::Dnode || b.level < stop_level,
                // A dnode block: the files it holds.
                _ => f.is_some(),
            };
            if !inside || b.kind == BlockKind::Objset {
                break;
            }
            let child = match (parent.kind, file) {
                (BlockKind::Dnode, None) => {
                    // Each file's first block, if it is an indirect (dn_blkptr at level > 0).
                    let first = f != last_file;
                    last_file = f;
                    first && b.kind == BlockKind::Indirect
                }
                (BlockKind::Indirect, None) if want_level == 0 => f.is_none() && b.kind == BlockKind::Dnode,
                (BlockKind::Indirect, None) => f.is_none() && b.kind == BlockKind::Indirect && b.level == want_level,
                _ => f == file && b.level == want_level,
            };
            if child && b.birth_txg > min_txg {
                kids.push(b);
            }
        }
        for b in kids {
            self.scan_prefetch_issue(&b, ctx);
        }
    }

    fn scan_prefetch_issue(&mut self, b: &Block, ctx: &mut Ctx<Ev>) {
        if self.scan_pf.blocks.contains_key(&b.index) {
            return;
        }
        let pf = &mut self.scan_pf;
        let slot = PfSlot { pending: 0, block: b.index, gen: pf.gen };
        let i = match pf.free.pop() {
            Some(i) => {
                pf.slots[i as usize] = slot;
                i
            }
            None => {
                pf.slots.push(slot);
                (pf.slots.len() - 1) as u32
            }
        };
        pf.blocks.insert(b.index, Some(i));
        self.scan.as_mut().unwrap().prefetch_reads += 1;
        let d = b.dvas[0];
        let n = self.read_at(d.vdev as usize, d.offset, b.psize, IoClass::AsyncRead, 0, OWNER_SCAN | OWNER_SCAN_PF | i, ctx);
        self.scan_pf.slots[i as usize].pending = n;
        if n == 0 {
            self.scan_prefetch_done(i, ctx);
        }
    }

    /// A leaf read of prefetch slot `i` completed.
    pub(crate) fn scan_prefetch_leaf_done(&mut self, i: u32, ctx: &mut Ctx<Ev>) {
        let s = &mut self.scan_pf.slots[i as usize];
        s.pending -= 1;
        if s.pending == 0 {
            self.scan_prefetch_done(i, ctx);
        }
    }

    fn scan_prefetch_done(&mut self, i: u32, ctx: &mut Ctx<Ev>) {
        let pf = &mut self.scan_pf;
        let slot = pf.slots[i as usize];
        pf.free.push(i);
        if slot.gen != pf.gen || pf.blocks.get(&slot.block) != Some(&Some(i)) {
            return;
        }
        if pf.waiting == Some(slot.block) {
            // The traversal was waiting for this block: its synchronous read is done.
            pf.waiting = None;
            pf.blocks.remove(&slot.block);
            self.scan_meta_ready(ctx);
        } else {
            pf.blocks.insert(slot.block, None);
        }
    }
}

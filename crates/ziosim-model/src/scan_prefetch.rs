//! A scan's metadata prefetch: the legacy engine's (`dsl_scan_prefetch`, before 0.8) and
//! the prefetch thread of 0.8+ (`dsl_scan_prefetch_thread`).
//!
//! Theory of operation (DS@zfs-0.7.13 `dsl_scan_recurse`, `dsl_scan_visitdnode`,
//! `dsl_scan_prefetch`; il:44ecc5327a; spec §5.1)
//! -------------------------------------------------------------------------------
//! When the traversal has read an indirect block it prefetches, before visiting any of
//! them, every child block pointer that is itself an indirect block (level > 0) or a dnode
//! block; when it has read a dnode block, the top block pointer of each of its dnodes that
//! is an indirect. A prefetch is `arc_read` with ARC_FLAG_NOWAIT | ARC_FLAG_PREFETCH at
//! ASYNC_READ priority (ZIO_FLAG_CANFAIL | ZIO_FLAG_SCAN_THREAD): it is not counted against
//! `zfs_top_maxinflight` and does not stamp `spa_last_io`, but its parent is the txg's
//! `scn_zio_root`, which `dsl_scan_sync` waits for after `dsl_scan_visit` — so the txg's
//! drain waits for the prefetch reads in flight (il:4445fffbbb, il:7adb730b58, zfs-0.6.5,
//! zfs-0.7.0 `dsl_scan_prefetch`, `dsl_scan_sync`). Blocks born at or before the scan's
//! minimum txg are not prefetched (they will not be visited). `zfs_no_scrub_prefetch = 1`
//! turns it off. solaris-2009 (`dsl_scrub.c`) has no scan prefetch.
//!
//! When the traversal reaches a prefetched block, its synchronous read finds it in the ARC
//! (done: no I/O) or waits for the prefetch in flight. The model keeps prefetched blocks
//! until the traversal visits them (no ARC eviction).
//!
//! Children come from `Layout::meta_children`: closed-form bookmarks, O(fan-out) work and
//! memory per parent.
//!
//! The 0.8+ prefetch thread (DS@zfs-0.8.0 … DS@zfs-2.2.0 `dsl_scan_prefetch`,
//! `dsl_scan_prefetch_cb`, `dsl_scan_prefetch_thread`, `dsl_scan_sync`)
//! -------------------------------------------------------------------------------------
//! From 0.8 the traversal no longer prefetches; a thread does, for both the sorted scan and
//! `zfs_scan_legacy`. `dsl_scan_sync` dispatches it before `dsl_scan_visit` and stops it
//! (`scn_prefetch_stop`) when the visit returns — the txg's traversal share — and the
//! txg's `zio_wait(scn_zio_root)` waits for its reads in flight (they are children of
//! that root). Its queue (`scn_prefetch_queue`) is sorted by bookmark, i.e. by traversal
//! index, and it always issues the first entry: `arc_read` NOWAIT|PREFETCH at SCRUB
//! priority, while the pool's scan bytes in flight (`spa_scrub_inflight`: these reads, and
//! a legacy scan's own) stay under `scn_maxinflight_bytes`. When a prefetched block
//! arrives (`dsl_scan_prefetch_cb`), the children it points to that are metadata
//! (`Layout::meta_children`) and born after the scan's minimum txg join the queue, so the
//! thread runs down the tree ahead of the traversal, never further than the in-flight
//! limit lets it. The traversal still reads every metadata block with ARC_FLAG_WAIT: it
//! finds it in the ARC, waits for the prefetch in flight, or — when the thread has not got
//! there — reads it itself (SCRUB priority); a block the traversal read arrives in the ARC
//! for the thread too (its queue entry becomes an ARC hit: the model queues the children
//! when the read completes, and the thread skips the entry). The queue is stored as one
//! run per parent (its children leave in order), so its memory follows the parents with
//! children still queued — about the reads in flight — not the children (ZFS's AVL tree
//! holds one node per child: half a million on the 1 PB bench pool).
//!
//! Both the sync thread (a `zfs_scan_legacy` scan waiting for bytes in flight) and the
//! prefetch thread wait on `spa_scrub_io_cv`; when bytes free up the model wakes the scan
//! first, so the txg's pause check is reached and the traversal, which the prefetch only
//! serves, is not starved by it.
//!
//! A new thread each txg starts again from the root: `dsl_scan_visit_rootbp` prefetches
//! the objset, and every block on the way down to the bookmark is in the ARC (an ARC hit
//! runs the callback at once); `dsl_scan_check_prefetch_resume` drops subtrees the
//! traversal has finished. The model seeds the queue the same way, with no I/O: the
//! children of the bookmark's ancestors that lie at or after it. A stopped thread's queue
//! is dropped; what it read stays in the ARC (no eviction, as above).
//!
//! `scn_maxinflight_bytes` = MAX(1 MiB, `zfs_scan_vdev_limit` × leaves) in 0.8–2.0
//! (`dsl_scan_count_leaves`: readable data leaves), × data disks from 2.1
//! (`dsl_scan_count_data_disks`: raidz width − parity, 1 per mirror or disk), capped at
//! `arc_c_max` / 4 from 2.2 (`arc_default_max` on Linux: RAM / 2; 2.3: MAX(5/8 RAM,
//! RAM − 1 GiB)). `zfs_no_scrub_prefetch = 1` keeps the queue empty.

use crate::io::IoClass;
use crate::layout::{Block, BlockKind, Cursor};
use crate::release::Release;
use crate::scan::{ScanState, Wait, OWNER_SCAN};
use crate::sim::{Ev, Model_};
use std::collections::BTreeMap;
use ziosim_engine::Ctx;

/// Owner bit (under `OWNER_SCAN`) of a prefetch's leaf reads.
pub(crate) const OWNER_SCAN_PF: u32 = 1 << 28;

#[derive(Clone, Copy, Debug)]
struct PfSlot {
    /// Leaf reads still in flight.
    pending: u32,
    block: u64,
    /// The prefetch state this slot belongs to (stale after a new scan starts).
    gen: u64,
    /// A read of the 0.8+ thread: its bookmark (for the children) and psize (in flight).
    thread: Option<(Cursor, u64)>,
    /// No copy of the block could be read.
    failed: bool,
}

/// The running scan's prefetch (both engines): prefetched metadata by traversal index
/// (`Some(slot)` in flight, `None` in the ARC), and the 0.8+ thread's state.
#[derive(Default)]
pub(crate) struct ScanPrefetch {
    slots: Vec<PfSlot>,
    free: Vec<u32>,
    blocks: BTreeMap<u64, Option<u32>>,
    gen: u64,
    /// The traversal waits, synchronously, for this block's prefetch.
    waiting: Option<u64>,
    /// 0.8+: the thread runs (the txg's traversal share); its queue by traversal index;
    /// its reads in flight and their bytes (its share of `spa_scrub_inflight`).
    running: bool,
    /// The queue, one entry per parent with children still to issue — `dsl_scan_prefetch`
    /// queues them all at once, and they leave in traversal order, so a parent's are a run:
    /// (index of its next child, its own index) → (its bookmark, that child's number).
    /// Memory is per parent, not per child (a 1 PB pool queued ~0.5 M children).
    queue: BTreeMap<(u64, u64), (Cursor, u64)>,
    /// Prefetch reads in flight, both engines' (the txg's drain waits for them).
    pub(crate) inflight: u32,
    pub(crate) inflight_bytes: u64,
    kids: Vec<Cursor>,
}

impl ScanPrefetch {
    /// A new scan: forget what the last one prefetched (its reads in flight finish unused).
    pub(crate) fn reset(&mut self) {
        self.gen += 1;
        self.blocks.clear();
        self.waiting = None;
        self.running = false;
        self.queue.clear();
        self.inflight = 0;
        self.inflight_bytes = 0;
    }
}

impl Model_ {
    /// The legacy (pre-0.8) engine prefetches from the traversal — from the 2010 dsl_scan.c
    /// (`dsl_scan_prefetch`, il:44ecc5327a); solaris-2009's `scrub_visitbp` prefetches
    /// nothing (il:379c004d1f dsl_scrub.c).
    pub(crate) fn prefetch_on(&self) -> bool {
        let rel = self.cfg.release;
        rel > Release::Solaris2009 && rel < Release::Zfs08 && self.scan.is_some() && self.no_scrub_prefetch() == 0
    }

    fn no_scrub_prefetch(&self) -> i64 {
        self.tun.try_get(crate::tunables::T::zfs_no_scrub_prefetch).unwrap_or(0)
    }

    /// `scn_maxinflight_bytes` for this txg (0.8+; see the module doc).
    pub(crate) fn scan_maxinflight_bytes(&self) -> u64 {
        let rel = self.cfg.release;
        if rel < Release::Zfs08 {
            return 0;
        }
        let limit = self.tun.get(crate::tunables::T::zfs_scan_vdev_limit) as u64;
        // `tops` are the data vdevs (log vdevs are not counted).
        let n: u64 = (0..self.tops.len()).map(|t| self.scan_disks(t)).sum();
        let mut bytes = (limit * n).max(1 << 20);
        if rel >= Release::Zfs22 {
            bytes = bytes.min(rel.arc_c_max(self.cfg.ram_bytes) / 4);
        }
        bytes
    }

    /// 0.8+: the prefetch thread starts (a txg's traversal share begins): seed its queue
    /// from the bookmark's ancestors and issue.
    pub(crate) fn pf_thread_start(&mut self, ctx: &mut Ctx<Ev>) {
        let s = self.scan.as_ref().unwrap();
        if self.cfg.release < Release::Zfs08 || self.no_scrub_prefetch() != 0 || s.layout_done() {
            return;
        }
        let (cur, meta_read) = (s.cursor.index(), s.meta_read);
        // A block the traversal has read (before the bookmark, or at it once read) is in the
        // ARC: walk into it if its subtree holds the bookmark; queue the rest.
        let read = |i: u64| i < cur || (i == cur && meta_read);
        self.scan_pf.running = true;
        // The root, unread, is the traversal's first read (its callback queues the rest).
        let mut stack = if read(0) { vec![(Cursor::START, u64::MAX)] } else { vec![] };
        let mut kids = std::mem::take(&mut self.scan_pf.kids);
        while let Some((c, end)) = stack.pop() {
            self.layout.meta_children(c, &mut kids);
            for (n, k) in kids.iter().enumerate() {
                if !read(k.index()) {
                    self.pf_enqueue_run(c, n as u64);
                    break;
                }
                let k_end = kids.get(n + 1).map_or(end, |x| x.index());
                if k_end > cur {
                    stack.push((*k, k_end)); // holds the bookmark: in the ARC, walk into it
                }
            }
        }
        self.scan_pf.kids = kids;
        self.pf_pump(ctx);
    }

    /// The traversal share ended (`scn_prefetch_stop`): the queue is dropped; reads in
    /// flight complete (the txg's drain waits for them) without queueing children.
    pub(crate) fn pf_thread_stop(&mut self) {
        self.scan_pf.running = false;
        self.scan_pf.queue.clear();
    }

    /// `dsl_scan_prefetch` for the children of `parent` from number `n` on, unless prefetch
    /// is off (read at every call, so a `set` takes effect at once). Children out of the
    /// scan's scope are dropped as they leave the queue.
    fn pf_enqueue_run(&mut self, parent: Cursor, n: u64) {
        if self.no_scrub_prefetch() != 0 {
            return;
        }
        if let Some(c) = self.layout.meta_child(parent, n) {
            self.scan_pf.queue.insert((c.index(), parent.index()), (parent, n));
        }
    }

    /// `dsl_scan_prefetch_cb` for the block at `at` (in the ARC now): queue its children.
    /// The caller then pumps the thread.
    pub(crate) fn pf_arrived(&mut self, at: Cursor) {
        if self.scan_pf.running {
            self.pf_enqueue_run(at, 0);
        }
    }

    /// `dsl_scan_prefetch_thread`: issue the first queued block while the pool's scan bytes
    /// in flight are under `scn_maxinflight_bytes`.
    pub(crate) fn pf_pump(&mut self, ctx: &mut Ctx<Ev>) {
        // Called on every scan completion from 0.8: out at once unless the thread runs.
        while self.scan_pf.running {
            let s = self.scan.as_ref().unwrap();
            let legacy_bytes = if s.sorted.is_none() { s.inflight_bytes } else { 0 };
            let (cur, meta_read, max, min_txg) = (s.cursor.index(), s.meta_read, s.max_inflight_bytes, s.min_txg);
            let pf = &mut self.scan_pf;
            if pf.inflight_bytes + legacy_bytes >= max {
                break;
            }
            let Some(((index, pidx), (parent, n))) = pf.queue.pop_first() else { break };
            // The run goes on with the parent's next child.
            if let Some(next) = self.layout.meta_child(parent, n + 1) {
                self.scan_pf.queue.insert((next.index(), pidx), (parent, n + 1));
            }
            if index < cur || (index == cur && meta_read) {
                continue; // the traversal has read it: an ARC hit of no use
            }
            let c = self.layout.meta_child(parent, n).unwrap();
            match self.scan_pf.blocks.get(&index) {
                Some(None) => {
                    // In the ARC (an earlier txg's prefetch): the callback runs at once.
                    self.pf_arrived(c);
                    continue;
                }
                Some(Some(_)) => continue,
                None => {}
            }
            let b = self.layout.traverse_from(c).next().unwrap();
            if b.birth_txg <= min_txg {
                continue; // not in the scan's scope: never queued by ZFS
            }
            self.scan_pf.inflight_bytes += b.psize;
            self.scan_prefetch_read(&b, IoClass::Scrub, Some((c, b.psize)), ctx);
        }
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

    /// After the traversal read `parent` (at bookmark `at`): prefetch its metadata children
    /// (an indirect's, a dnode block's; the legacy traversal reads the MOS and the objset
    /// without prefetching below them).
    pub(crate) fn scan_prefetch_children(&mut self, parent: &Block, at: Cursor, ctx: &mut Ctx<Ev>) {
        if !self.prefetch_on() || at.in_prefix() || !matches!(parent.kind, BlockKind::Indirect | BlockKind::Dnode) {
            return;
        }
        let min_txg = self.scan.as_ref().unwrap().min_txg;
        let mut kids = std::mem::take(&mut self.scan_pf.kids);
        self.layout.meta_children(at, &mut kids);
        for &c in &kids {
            let b = self.layout.traverse_from(c).next().unwrap();
            if b.birth_txg > min_txg {
                self.scan_prefetch_issue(&b, ctx);
            }
        }
        self.scan_pf.kids = kids;
    }

    fn scan_prefetch_issue(&mut self, b: &Block, ctx: &mut Ctx<Ev>) {
        if self.scan_pf.blocks.contains_key(&b.index) {
            return;
        }
        self.scan_prefetch_read(b, IoClass::AsyncRead, None, ctx);
    }

    /// A prefetch read of `b` (its first DVA), tracked in a slot until it completes.
    fn scan_prefetch_read(&mut self, b: &Block, class: IoClass, thread: Option<(Cursor, u64)>, ctx: &mut Ctx<Ev>) {
        let pf = &mut self.scan_pf;
        let slot = PfSlot { pending: 0, block: b.index, gen: pf.gen, thread, failed: false };
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
        // Both engines' prefetches are children of the txg's scn_zio_root: the drain waits.
        pf.inflight += 1;
        self.scan.as_mut().unwrap().prefetch_reads += 1;
        let fl = self.scan_meta_flags();
        let n = self.scan_read_copies(b, class, fl, OWNER_SCAN | OWNER_SCAN_PF | i, ctx);
        self.scan_pf.slots[i as usize].pending = n;
        if n == 0 {
            // No copy readable: the prefetch fails (`dsl_scan_prefetch_cb` gets no buffer and
            // queues no children; `dsl_scan_prefetch` in ≤0.7 leaves nothing in the ARC), so
            // the traversal reads the block itself when it gets there, and fails.
            self.scan_pf.slots[i as usize].failed = true;
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
        if slot.gen != pf.gen {
            return;
        }
        pf.inflight -= 1;
        if let Some((_, psize)) = slot.thread {
            // The bytes leave spa_scrub_inflight.
            pf.inflight_bytes -= psize;
        }
        if slot.failed && pf.blocks.get(&slot.block) == Some(&Some(i)) {
            // Failed at issue, so nobody waits for it yet.
            debug_assert!(pf.waiting != Some(slot.block));
            pf.blocks.remove(&slot.block);
        } else if pf.blocks.get(&slot.block) == Some(&Some(i)) {
            let waited = pf.waiting == Some(slot.block);
            if waited {
                pf.waiting = None;
                pf.blocks.remove(&slot.block);
            } else {
                pf.blocks.insert(slot.block, None);
            }
            if let Some((at, _)) = slot.thread {
                // dsl_scan_prefetch_cb: its children join the queue.
                self.pf_arrived(at);
            }
            if waited {
                // The traversal was waiting for this block: its synchronous read is done.
                self.scan_meta_ready(ctx);
            }
        }
        if slot.thread.is_some() {
            // Both threads wait on spa_scrub_io_cv for bytes in flight; the model wakes the
            // scan first (a legacy scan's reads, the txg's pause check), then the thread —
            // else each freed byte goes back to the prefetch and the sync thread starves.
            self.pf_wake_scan(ctx);
            self.pf_pump(ctx);
        } else if self.scan.as_ref().is_some_and(|s| s.wait == Wait::Drain) {
            // The legacy sync thread waits in zio_wait(scn_zio_root), not on
            // spa_scrub_io_cv: only a txg draining is woken.
            self.scan_check_drain(ctx);
        }
    }

    /// A thread read completed: a legacy scan waiting for bytes in flight may go on, and
    /// a txg draining may end.
    fn pf_wake_scan(&mut self, ctx: &mut Ctx<Ev>) {
        let Some(s) = self.scan.as_mut() else { return };
        match s.wait {
            Wait::Inflight if s.sorted.is_none() && s.state == ScanState::Scanning => {
                s.wait = Wait::Running;
                self.scan_run(ctx);
            }
            Wait::Drain => self.scan_check_drain(ctx),
            _ => {}
        }
    }
}

#[cfg(test)]
#[path = "scan_legacy_tests.rs"]
mod legacy_tests;

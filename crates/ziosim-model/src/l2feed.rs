//! The L2ARC feed thread: what the pool's cache devices are written, when, and the L2ARC
//! hits sent to the disks while a cache device is being written (`l2arc_norw`).
//!
//! Theory of operation (`l2arc_feed_thread`, `l2arc_write_buffers`, `l2arc_write_interval`,
//! `l2arc_dev_get_next`, `l2arc_evict`: arc.c@b108 (d164b20935, 2009), illumos arc.c
//! (openzfs/openzfs 061f2c3daf), ARC@zfs-0.7.13 and ARC@zfs-2.2.0; spec `zfs-model.md` §7)
//! -----------------------------------------------------------------------------------
//! * One feed thread serves every cache device. Each wake-up takes the next cache device
//!   in turn that is not dead (`l2arc_dev_get_next`), and writes to it at most
//!   `l2arc_write_max` bytes of ARC buffers that are eligible: cacheable (`secondarycache`,
//!   `all` by default), not already on a cache device, no I/O in flight. It walks the
//!   ARC lists from their eviction end, looking at most `l2arc_headroom` × the target
//!   bytes up (× `l2arc_headroom_boost` = 200 % with the compressed ARC of 0.7+). Each buffer is one `zio_write_phys` at ASYNC_WRITE priority at the
//!   device's write hand, which moves on by the buffer's size rounded to the sector
//!   (`vdev_psize_to_asize`); near the device's end the hand goes back to its start.
//! * The thread waits for those writes (`zio_wait`); while it waits the device is
//!   `l2ad_writing`, and with `l2arc_norw` an L2ARC hit on it is read from the pool
//!   instead (ZFS counts it as an L2 miss; `rw_clash` here counts these, not arcstats'
//!   `l2_rw_clash`, which is a hit on a buffer whose own L2 write is in flight). 2.0+ then
//!   rewrites the device header (512 B, one sector, at the end of the front labels:
//!   `l2arc_dev_hdr_update`, waited for), and every `l2ad_log_entries` buffers written
//!   (1022; one per 16 MiB of a device under 16 GiB; none below 1 GiB) add a log block of
//!   their headers (`l2arc_log_blk_commit`, persistent L2ARC). From 2.2 (feff9dfed3) the
//!   target carries the worst case of those log blocks on top (`l2arc_log_blk_overhead`:
//!   17 of them on 8 MiB), keeps 64 KiB for one in its buffer check, and counts them in
//!   what it wrote; 2.0 and 2.1 only clear that much more ahead of the hand.
//! * The next wake-up: `l2arc_feed_min_ms` after this one began if it wrote more than half
//!   its target and `l2arc_feed_again` is set, else `l2arc_feed_secs`; never before the
//!   writes are done (`next = MAX(now, MIN(now + interval, began + interval))`). With no
//!   usable cache device the thread sleeps one second.
//!
//! What becomes eligible here (the model has no ARC lists — workloads draw hits from
//! their `arc_hit`/`l2arc_hit` shares, or a trace's `arc_size` ARC holds records): every
//! buffer that entered the ARC from the pool's disks, which the ARC evicts again as new
//! ones come in:
//! * a record a workload read from the pool on demand, or found prefetched (a prefetched
//!   buffer loses its L2CACHE flag when it lands with `l2arc_noprefetch`, and a demand
//!   hit gives it back: `arc_read_done`, `arc_read`); an L2ARC hit is on a cache device
//!   already; a prefetched record nobody asked for is not fed;
//! * the data and metadata blocks a txg sync writes (`arc_write` with the dataset's
//!   `secondarycache`).
//! Scan reads never are: the scan's `arc_read` passes no `ARC_FLAG_L2CACHE`
//! (`dsl_scan_recurse`, DS@zfs-0.7.13 / @zfs-2.2.0; illumos 2012 likewise), and scrub
//! reads of data bypass the ARC.
//!
//! They wait in `backlog`, oldest first (the oldest are nearest the eviction end). A
//! feed takes from its front while the next buffer fits the target; buffers that would
//! be more than `l2arc_headroom` × target from the end are evicted unfed (dropped from
//! the front, `evicted_unfed_bytes`). Simplifications: the ARC is warm from the start
//! (no `l2arc_write_boost`, fed from the lists' tails) — ZFS sets `arc_warm` only at its
//! first memory reclaim, so a real ARC that has not been short of memory feeds up to
//! twice `l2arc_write_max`, newest buffers first; compressed blocks are read from the
//! cache device whole and fed at their on-disk size, where 0.7+ reads them compressed
//! and solaris-2009 fed them uncompressed (illumos-2012/2014 and 0.6.5 compressed them
//! on the way, counting the target uncompressed); the headroom counts eligible
//! bytes only (ZFS counts every buffer it passes, L2ARC copies included, so it feeds
//! somewhat less under heavy churn); buffers keep the size they were read or written
//! with (no compressed-ARC transforms); a log block is written at its full 64 KiB (its
//! compressed size is not known here, so this is an upper bound of ≈ 0.05 % of what is
//! fed with 128 KiB records); the hand starts at the device's start; MOS blocks are left
//! out; eviction ahead of the hand writes nothing (`l2arc_trim_ahead` = 0).

use crate::io::{IoClass, Op};
use crate::release::Release;
use crate::sim::{Ev, Model_};
use crate::tunables::T;
use serde_json::{json, Value};
use std::collections::VecDeque;
use ziosim_engine::{Ctx, NS_PER_S};

/// Owner of the feed's leaf writes (`sim::resolve_owner`).
pub(crate) const OWNER_L2FEED: u32 = u32::MAX - 2;

/// `VDEV_LABEL_START_SIZE`: the two front labels and the boot block; the L2ARC device
/// header (2.0+) follows, then the buffers (`l2arc_add_vdev`).
const LABEL_START: u64 = 4 << 20;
/// `VDEV_LABEL_END_SIZE`: the two back labels.
const LABEL_END: u64 = 512 << 10;
/// `sizeof (l2arc_dev_hdr_phys_t)` (SPA_MINBLOCKSIZE).
const DEV_HDR_BYTES: u64 = 512;
/// `L2ARC_LOG_BLK_MAX_ENTRIES` and the uncompressed log block (1022 entries of 64 bytes
/// plus its header; `sizeof (l2arc_log_blk_phys_t)`, include/sys/arc_impl.h@zfs-2.2.0).
const LOG_BLK_ENTRIES: u32 = 1022;
const LOG_BLK_BYTES: u64 = 64 << 10;

/// The feed in progress on one device.
#[derive(Clone, Copy, Debug)]
struct Writing {
    /// Index in `Model_::cache_leaves`.
    dev: usize,
    begin_ns: u64,
    target: u64,
    wrote: u64,
    /// Writes not yet complete.
    pending: u32,
    /// The 2.0+ device-header write was issued: the buffer writes are done, and the
    /// device is no longer `l2ad_writing`.
    header: bool,
}

/// State of the L2ARC feed thread (`Model_::l2`).
#[derive(Default)]
pub(crate) struct L2Feed {
    /// Eligible buffers, oldest first, as runs of (size, count).
    backlog: VecDeque<(u32, u32)>,
    backlog_bytes: u64,
    /// The device the last feed went to (`l2arc_dev_last`).
    last: Option<usize>,
    /// Per cache device: write hand, and buffers since its last log block (2.0+).
    hand: Vec<u64>,
    log_entries: Vec<u32>,
    writing: Option<Writing>,
    // Results (arcstats' names where they have one).
    feeds: u64,
    writes_sent: u64,
    write_bytes: u64,
    buffers: u64,
    log_blocks: u64,
    rw_clash: u64,
    evicted_unfed_bytes: u64,
}

impl L2Feed {
    pub(crate) fn new(ncache: usize) -> L2Feed {
        L2Feed { hand: vec![0; ncache], log_entries: vec![0; ncache], ..Default::default() }
    }
}

impl Model_ {
    /// The feed thread's first wake-up (at module load: at once, finding nothing).
    pub(crate) fn l2_start(&mut self, ctx: &mut Ctx<Ev>) {
        if !self.cache_leaves.is_empty() {
            ctx.schedule_at(ctx.now(), Ev::L2Feed);
        }
    }

    /// `count` buffers of `size` bytes entered the ARC from the pool and may be fed.
    pub(crate) fn l2_eligible(&mut self, size: u64, count: u64) {
        if self.cache_leaves.is_empty() || size == 0 || count == 0 {
            return;
        }
        let mut left = count;
        while left > 0 {
            let n = left.min(u32::MAX as u64) as u32;
            match self.l2.backlog.back_mut() {
                Some((s, c)) if *s as u64 == size && *c <= u32::MAX - n => *c += n,
                _ => self.l2.backlog.push_back((size as u32, n)),
            }
            left -= n as u64;
        }
        self.l2.backlog_bytes += size * count;
        // What lies farther from the eviction end than the feed looks is evicted unfed
        // before it gets there. 0.7+ keeps buffers compressed in the ARC
        // (`zfs_compressed_arc_enabled`) and so boosts the headroom by
        // `l2arc_headroom_boost` = 200 %.
        // `l2arc_headroom` = 0 is "no limit" from 2.0 (`l2arc_headroom != 0 &&`); before,
        // the walk stopped at the first buffer it passed, so nothing was ever fed.
        let headroom = self.tun.get(T::l2arc_headroom) as u64;
        if headroom == 0 && self.cfg.release >= Release::Zfs20 {
            return;
        }
        let boost = if self.cfg.release >= Release::Zfs07 { 2 } else { 1 };
        let dev = self.l2.last.map_or(0, |d| (d + 1) % self.cache_leaves.len());
        let reach = headroom.saturating_mul(self.l2_target(dev)).saturating_mul(boost);
        let l2 = &mut self.l2;
        while l2.backlog_bytes > reach {
            let (s, c) = l2.backlog.front_mut().unwrap();
            let s = *s as u64;
            let drop = ((l2.backlog_bytes - reach).div_ceil(s)).min(*c as u64);
            *c -= drop as u32;
            l2.backlog_bytes -= drop * s;
            l2.evicted_unfed_bytes += drop * s;
            if *c == 0 {
                l2.backlog.pop_front();
            }
        }
    }

    /// Bytes one feed to cache device `dev` writes at most (`l2arc_write_size`):
    /// `l2arc_write_max`, plus from 2.2 the worst case of its log blocks (feff9dfed3; 2.0
    /// and 2.1 add that only to how far ahead of the hand they evict, `l2_reach`).
    fn l2_target(&self, dev: usize) -> u64 {
        if self.cfg.release < Release::Zfs22 {
            return self.tun.get(T::l2arc_write_max) as u64;
        }
        self.l2_reach(dev)
    }

    /// How far ahead of the hand a feed of `dev` clears (`l2arc_evict`'s distance): the
    /// target, with the worst case of log blocks on 2.0/2.1 too (none before 2.0).
    fn l2_reach(&self, dev: usize) -> u64 {
        let max = self.tun.get(T::l2arc_write_max) as u64;
        max + self.l2_log_overhead(dev, max)
    }

    /// `l2arc_log_blk_overhead`: log blocks `write` bytes of 512 B buffers would need on
    /// `dev` at most, as the asize of full log blocks.
    fn l2_log_overhead(&self, dev: usize, write: u64) -> u64 {
        let entries = self.l2_log_entries(dev) as u64;
        if entries == 0 {
            return 0;
        }
        let sector = 1u64 << self.cfg.pool.ashift;
        (write >> 9).div_ceil(entries) * LOG_BLK_BYTES.next_multiple_of(sector)
    }

    /// `l2ad_log_entries` (2.0+, `l2arc_rebuild_dev`): buffers per log block — none on a
    /// device that ends below `l2arc_rebuild_blocks_min_l2size` (1 GiB), else one per
    /// 16 MiB of the device up to 1022 (ARC@zfs-2.0.0, @zfs-2.2.0).
    fn l2_log_entries(&self, dev: usize) -> u32 {
        if self.cfg.release < Release::Zfs20 {
            return 0;
        }
        let (start, end) = self.l2_span(dev);
        if end < 1 << 30 {
            return 0;
        }
        ((end - start) >> 24).min(LOG_BLK_ENTRIES as u64) as u32
    }

    /// Where cache device `dev`'s buffers go: after the front labels (and the 2.0+
    /// device header), before the back labels.
    fn l2_span(&self, dev: usize) -> (u64, u64) {
        let sector = 1u64 << self.cfg.pool.ashift;
        let start = LABEL_START + if self.cfg.release >= Release::Zfs20 { DEV_HDR_BYTES.max(sector) } else { 0 };
        let end = self.leaves[self.cache_leaves[dev] as usize].size_bytes.saturating_sub(LABEL_END).max(start);
        (start, end)
    }

    /// `l2arc_norw`: is cache device `leaf` being fed, so an L2ARC hit on it goes to the
    /// pool? Counts the clash.
    pub(crate) fn l2_rw_clash(&mut self, leaf: u16) -> bool {
        let Some(w) = self.l2.writing else { return false };
        if w.header || self.cache_leaves[w.dev] != leaf || self.tun.get(T::l2arc_norw) == 0 {
            return false;
        }
        self.l2.rw_clash += 1;
        true
    }

    /// One wake-up of `l2arc_feed_thread`.
    pub(crate) fn l2_feed(&mut self, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let n = self.cache_leaves.len();
        let first = self.l2.last.map_or(0, |d| (d + 1) % n);
        let Some(dev) = (0..n).map(|k| (first + k) % n).find(|&d| self.leaves[self.cache_leaves[d] as usize].writeable()) else {
            ctx.schedule_in(NS_PER_S, Ev::L2Feed);
            return;
        };
        self.l2.last = Some(dev);
        self.l2.feeds += 1;
        let leaf = self.cache_leaves[dev];
        let sector = 1u64 << self.cfg.pool.ashift;
        let v2 = self.cfg.release >= Release::Zfs20;
        let (start, end) = self.l2_span(dev);
        // l2arc_write_size resets a target larger than the device; here it is cut to it.
        let target = self.l2_target(dev).min(end - start);
        // l2arc_evict: a hand that would pass the end with this write starts over.
        if self.l2.hand[dev] < start || self.l2.hand[dev] + self.l2_reach(dev).min(end - start) > end {
            self.l2.hand[dev] = start;
        }
        // 2.2+ keeps room for a log block in the buffer check, and counts log blocks in
        // what the feed wrote (feff9dfed3); 2.0/2.1 did neither.
        let v22 = self.cfg.release >= Release::Zfs22;
        let log_entries = self.l2_log_entries(dev);
        let log_reserve = if v22 && log_entries > 0 { LOG_BLK_BYTES } else { 0 };
        // Before 2.0 `l2arc_headroom` = 0 stops the walk at its first buffer.
        let walk = !(self.tun.get(T::l2arc_headroom) == 0 && !v2);
        let mut wrote = 0u64;
        let mut log_bytes = 0u64;
        let mut pending = 0u32;
        while let Some(&(size, _)) = self.l2.backlog.front().filter(|_| walk) {
            let asize = (size as u64).next_multiple_of(sector);
            if wrote + asize + log_reserve > target {
                break;
            }
            let (_, c) = self.l2.backlog.front_mut().unwrap();
            *c -= 1;
            if *c == 0 {
                self.l2.backlog.pop_front();
            }
            self.l2.backlog_bytes -= size as u64;
            let hand = self.l2.hand[dev];
            self.l2.hand[dev] = hand + asize;
            wrote += asize;
            pending += 1;
            self.l2.buffers += 1;
            self.submit_leaf(leaf, Op::Write, IoClass::AsyncWrite, 0, hand, asize as u32, OWNER_L2FEED, ctx);
            if log_entries > 0 {
                self.l2.log_entries[dev] += 1;
                if self.l2.log_entries[dev] >= log_entries {
                    self.l2.log_entries[dev] = 0;
                    let hand = self.l2.hand[dev];
                    let lb = LOG_BLK_BYTES.next_multiple_of(sector);
                    self.l2.hand[dev] = hand + lb;
                    if v22 {
                        wrote += lb;
                    }
                    log_bytes += lb;
                    pending += 1;
                    self.l2.log_blocks += 1;
                    self.submit_leaf(leaf, Op::Write, IoClass::AsyncWrite, 0, hand, lb as u32, OWNER_L2FEED, ctx);
                }
            }
        }
        let w = Writing { dev, begin_ns: now, target, wrote, pending, header: false };
        if pending == 0 {
            // Nothing selected: no zio, no header update.
            self.l2.writing = None;
            self.l2_next(w, ctx);
            return;
        }
        self.l2.writes_sent += 1;
        // Every byte on the device, log blocks included, whether or not `wrote` counts them.
        self.l2.write_bytes += if v22 { wrote } else { wrote + log_bytes };
        self.l2.writing = Some(w);
    }

    /// A write of the feed in progress completed.
    pub(crate) fn l2_write_done(&mut self, ctx: &mut Ctx<Ev>) {
        let mut w = self.l2.writing.expect("an L2ARC feed write completed with no feed in progress");
        w.pending -= 1;
        if w.pending > 0 {
            self.l2.writing = Some(w);
            return;
        }
        if self.cfg.release >= Release::Zfs20 && !w.header {
            // l2arc_dev_hdr_update, after l2ad_writing is cleared, waited for.
            let leaf = self.cache_leaves[w.dev];
            let sector = 1u64 << self.cfg.pool.ashift;
            w.header = true;
            w.pending = 1;
            self.l2.writing = Some(w);
            self.submit_leaf(leaf, Op::Write, IoClass::AsyncWrite, 0, LABEL_START, DEV_HDR_BYTES.max(sector) as u32, OWNER_L2FEED, ctx);
            return;
        }
        self.l2.writing = None;
        self.l2_next(w, ctx);
    }

    /// `l2arc_write_interval`: when the thread wakes next.
    fn l2_next(&mut self, w: Writing, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let again = self.tun.get(T::l2arc_feed_again) != 0 && w.wrote > w.target / 2;
        let interval = if again {
            self.tun.get(T::l2arc_feed_min_ms) as u64 * 1_000_000
        } else {
            self.tun.get(T::l2arc_feed_secs) as u64 * NS_PER_S
        };
        let next = now.max((now + interval).min(w.begin_ns + interval));
        ctx.schedule_at(next, Ev::L2Feed);
    }

    /// The `l2arc` results: present when the pool has cache devices.
    pub(crate) fn l2_results(&self) -> Option<Value> {
        if self.cache_leaves.is_empty() {
            return None;
        }
        let l2 = &self.l2;
        Some(json!({
            "feeds": l2.feeds, "writes_sent": l2.writes_sent, "write_bytes": l2.write_bytes,
            "buffers": l2.buffers, "log_blocks": l2.log_blocks, "rw_clash": l2.rw_clash,
            "evicted_unfed_bytes": l2.evicted_unfed_bytes, "backlog_bytes": l2.backlog_bytes,
        }))
    }
}

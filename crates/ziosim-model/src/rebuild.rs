//! Sequential resilver ("device rebuild", `zpool replace -s` / `zpool attach -s`, 2.0+).
//!
//! Theory of operation (`module/zfs/vdev_rebuild.c` `vdev_rebuild_thread`,
//! `vdev_rebuild_ranges`, `vdev_rebuild_range`, `vdev_rebuild_cb`,
//! `vdev_rebuild_complete_sync` at zfs-2.0.0, zfs-2.1.0 and zfs-2.2.0; `vdev_mirror.c`
//! `vdev_mirror_io_start`/`_io_done` at zfs-2.1.0; spec §5.4)
//! ---------------------------------------------------------------------------------
//! One thread per top-level vdev (mirror, or a disk being replaced), outside syncing
//! context, walks the vdev's allocated space in LBA order — metaslab by metaslab, from the
//! space maps; here the layout's allocated ranges, then the space txgs wrote while the
//! model ran — without looking at blocks or checksums:
//!
//! ```text
//! for each allocated range, in offset order:
//!     split into chunks of MIN(range, roundup(zfs_rebuild_max_segment, ashift), 16 MiB)
//!     for each chunk:
//!         scanned += chunk
//!         wait while in flight ≥ limit      2.0: zfs_rebuild_queue_limit chunks
//!                                           2.1: MAX(1 MiB, zfs_rebuild_vdev_limit × children) bytes
//!                                                (the top's children: 2 for a lone disk
//!                                                being replaced, under `replacing-0`)
//!                                           2.2+: also ≤ (arc_c_max / 2) / #top-level vdevs
//!                                                 (log vdevs included; `Release::arc_c_max`)
//!         issued += chunk
//!         read the chunk from one healthy child (REBUILD priority, chosen by load as
//!             vdev_mirror_child_select does; the new disk's DTL covers the synthetic
//!             block's birth TXG_INITIAL, so it is skipped)
//!         then write it to every child whose DTL covers TXG_INITIAL — the new disks only
//!             (REBUILD priority, IO_REPAIR); rebuilt += chunk per write
//! wait for the last chunk; complete: excise the vdev's DTLs up to the txg the rebuild
//!     started in, detach replaced disks; when no other rebuild is active, start a scrub
//!     (2.0: always, `spa_async_thread`; 2.1+: if zfs_rebuild_scrub_enabled)
//! ```
//!
//! Progress is `vdev_rebuild_stat_t`: `bytes_est` is the vdev's allocated bytes when the
//! rebuild starts, refreshed every 5 minutes (`vdev_rebuild_update_bytes_est`); the
//! pass counters restart with the thread. Attaching another disk (`attach -s`) to a
//! rebuilding vdev resets it to the start once its I/O drains (`vdev_rebuild_reset_sync`);
//! detaching every disk that needs it cancels it. Deferred resilvers do not exist for
//! rebuilds; a healing resilver asked for meanwhile waits for the rebuild to end.
//!
//! Simplifications: there are no metaslabs in the walk, so chunks are not cut at metaslab
//! boundaries and the thread never stops at one. ZFS walks `vdev_ms[0 … vdev_ms_count)`
//! (2^ms_shift bytes each, `vdev_metaslab_set_size`; `layout::metaslab_shift`) and, before
//! loading each metaslab's space map, calls `txg_wait_synced(dsl, 0)` — the open txg + 2
//! (TXG_DEFER_SIZE) synced, i.e. three txg syncs, forced at once — with no new chunk issued
//! meanwhile (the ≤ 20 in flight go on): 2.0 at every metaslab, empty ones too (RB@zfs-2.0.0
//! `vdev_rebuild_thread`); 2.1+ only when a `ms_allocating[]` tree of that metaslab is not
//! empty, i.e. the txgs not yet synced allocated in it (RB@zfs-2.1.0 … 2.3.0). So a 2.0
//! rebuild is short by about ms_count × 3 txg syncs (≈ 200 metaslabs per vdev; each sync
//! of an idle pool is its uberblock writes, under a write load a full txg), and a 2.1+
//! rebuild under writes by three syncs each time it reaches the metaslab being allocated
//! from. The per-chunk MOS `dmu_tx_assign` (which can be throttled by dirty data) and the
//! wait for each txg's rebuild zios in `spa_sync` are not modelled either; the thread
//! starts at the command rather than in the next txg's sync task. dRAID is not modelled.

use crate::admin::TXG_INITIAL;
use crate::io::{flags, IoClass, Op};
use crate::layout::RangesPos;
use crate::release::Release;
use crate::scan::{ScanFunc, ScanState};
use crate::sim::{Ev, Model_};
use crate::tunables::T;
use serde_json::{json, Value};
use ziosim_engine::{Ctx, NS_PER_MS, NS_PER_S};

/// Owner bits of rebuild leaf I/Os (top three bits 001); the low bits index the chunk slots.
pub(crate) const OWNER_REBUILD: u32 = 1 << 29;
/// SPA_MAXBLOCKSIZE caps a chunk.
const MAX_CHUNK_BYTES: u64 = 16 << 20;
/// `vdev_rebuild_update_bytes_est` runs every 5 minutes.
const EST_INTERVAL_NS: u64 = 300 * NS_PER_S;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RebuildState {
    Active,
    Complete,
    Canceled,
}

impl RebuildState {
    /// The name in results and `zpool status` snapshots (`vdev_rebuild_state_t`).
    pub fn key(self) -> &'static str {
        match self {
            RebuildState::Active => "active",
            RebuildState::Complete => "complete",
            RebuildState::Canceled => "canceled",
        }
    }
}

/// One top-level vdev's rebuild (`vdev_rebuild_t` with its `vdev_rebuild_phys_t`).
#[derive(Clone, Debug)]
pub struct Rebuild {
    pub top: usize,
    pub state: RebuildState,
    pub start_ns: u64,
    pub end_ns: u64,
    /// The txg the rebuild started in (`vrp_max_txg`): DTLs up to it are excised at the end.
    pub max_txg: u64,
    pub scanned: u64,
    pub issued: u64,
    pub rebuilt: u64,
    pub est: u64,
    pub errors: u64,
    pub pass_start_ns: u64,
    pub pass_scanned: u64,
    pub pass_issued: u64,
    pub pass_skipped: u64,
    /// Chunks read/written (for results).
    pub chunks: u64,
    pos: RangesPos,
    layout_done: bool,
    /// Next offset of the space written while running still to walk.
    extra_off: u64,
    cur: Option<(u64, u64)>,
    inflight_bytes: u64,
    inflight_chunks: u64,
    reset_wanted: bool,
    last_est_ns: u64,
}

impl Rebuild {
    pub fn active(&self) -> bool {
        self.state == RebuildState::Active
    }
}

/// A chunk in flight: its read, then its writes.
#[derive(Clone, Copy, Debug, Default)]
pub struct RbIo {
    top: u16,
    offset: u64,
    size: u64,
    pending: u32,
    writing: bool,
}

/// Chunk slots (kept in `Admin`).
#[derive(Default)]
pub struct RbIos {
    ios: Vec<RbIo>,
    free: Vec<u32>,
}

impl Model_ {
    pub(crate) fn rebuild_active_any(&self) -> bool {
        self.admin.rebuilds.iter().flatten().any(|r| r.active())
    }

    /// A sequential rebuild has started at some point of the run.
    pub(crate) fn rebuild_ran(&self) -> bool {
        !self.admin.rebuild_history.is_empty() || self.admin.rebuilds.iter().any(|r| r.is_some())
    }

    fn rebuild_est(&self, t: usize) -> u64 {
        self.layout.alloc_bytes(t) + self.admin.written_end[t].saturating_sub(self.top_alloc_bytes[t])
    }

    /// `vdev_rebuild`: start a rebuild of top-level vdev `t`, or reset a running one.
    pub(crate) fn rebuild_start(&mut self, t: usize, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        if let Some(r) = self.admin.rebuilds[t].as_mut() {
            if r.active() {
                r.reset_wanted = true;
                self.rebuild_pump(t, ctx);
                return;
            }
        }
        if let Some(old) = self.admin.rebuilds[t].take() {
            let v = self.rebuild_summary(&old, now);
            self.admin.rebuild_history.push(v);
        }
        // vdev_rebuild_thread: a running scrub is cancelled first.
        if let Some(s) = self.scan.as_mut() {
            if s.func == ScanFunc::Scrub && s.state == ScanState::Scanning {
                s.state = ScanState::Canceled;
                s.end_ns = now;
            }
        }
        for l in self.top_leaves(t) {
            self.leaves[l as usize].rebuild_processed = 0;
        }
        let est = self.rebuild_est(t);
        self.admin.rebuilds[t] = Some(Rebuild {
            top: t,
            state: RebuildState::Active,
            start_ns: now,
            end_ns: 0,
            max_txg: self.rebuild_max_txg(t),
            scanned: 0,
            issued: 0,
            rebuilt: 0,
            est,
            errors: 0,
            pass_start_ns: now,
            pass_scanned: 0,
            pass_issued: 0,
            pass_skipped: 0,
            chunks: 0,
            pos: RangesPos::default(),
            layout_done: false,
            extra_off: self.top_alloc_bytes[t],
            cur: None,
            inflight_bytes: 0,
            inflight_chunks: 0,
            reset_wanted: false,
            last_est_ns: now,
        });
        self.rebuild_pump(t, ctx);
    }

    /// The highest txg the rebuild of `t` must copy (`vdev_resilver_needed`, else the open txg).
    fn rebuild_max_txg(&self, t: usize) -> u64 {
        self.resilver_needed_on(&[t]).map_or(self.open_txg(), |r| r.1)
    }

    /// `vdev_rebuild_cancel_sync`: the vdev needs no rebuild any more.
    pub(crate) fn rebuild_cancel(&mut self, t: usize, ctx: &mut Ctx<Ev>) {
        if let Some(r) = self.admin.rebuilds[t].as_mut() {
            if r.active() {
                r.state = RebuildState::Canceled;
                r.end_ns = ctx.now();
                self.rebuild_after_end(false, ctx);
            }
        }
    }

    /// Bytes the rebuild of `t` may have in flight (2.1+), or chunks (2.0).
    fn rebuild_limit(&self, t: usize) -> (Option<u64>, Option<u64>) {
        if let Some(q) = self.tun.try_get(T::zfs_rebuild_queue_limit) {
            return (None, Some(q as u64));
        }
        let per_leaf = self.tun.get(T::zfs_rebuild_vdev_limit) as u64;
        // The root's children are the data and the log vdevs (cache devices are not).
        let root_children = self.tops.len() + self.log_tops.len();
        // `vd->vdev_children` of the top-level vdev: a lone disk being replaced is then a
        // `replacing-0` (or `spare-0`) top with two children (RB@zfs-2.1.0
        // `vdev_rebuild_thread`; `spa_vdev_attach` allows it, the parent being the root).
        let interior = self.tops[t].kind == crate::pool::VdevType::Disk && self.replacing[t][0].is_some();
        let children = if interior { 2 } else { self.tops[t].leaves.len() };
        let limit = rebuild_bytes_limit(self.cfg.release, self.cfg.ram_bytes, per_leaf, children, root_children);
        (Some(limit), None)
    }

    /// The next chunk of top-level vdev `t` in LBA order, if any.
    fn rebuild_next_chunk(&mut self, t: usize) -> Option<(u64, u64)> {
        let ashift = self.tops[t].ashift;
        let seg = (self.tun.get(T::zfs_rebuild_max_segment) as u64).div_ceil(1 << ashift) << ashift;
        let seg = seg.min(MAX_CHUNK_BYTES);
        let written_end = self.admin.written_end[t];
        let r = self.admin.rebuilds[t].as_mut().unwrap();
        loop {
            if let Some((off, len)) = r.cur {
                let n = len.min(seg);
                r.cur = (len > n).then_some((off + n, len - n));
                return Some((off, n));
            }
            if !r.layout_done {
                let mut it = self.layout.allocated_ranges_at(t, r.pos);
                match it.next() {
                    Some(rg) => {
                        r.pos = it.position();
                        r.cur = Some(rg);
                        continue;
                    }
                    None => r.layout_done = true,
                }
            }
            if r.extra_off < written_end {
                r.cur = Some((r.extra_off, written_end - r.extra_off));
                r.extra_off = written_end;
                continue;
            }
            return None;
        }
    }

    /// Issue chunks of the rebuild of `t` while its in-flight limit allows.
    pub(crate) fn rebuild_pump(&mut self, t: usize, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        loop {
            let (lim_bytes, lim_chunks) = self.rebuild_limit(t);
            let Some(r) = self.admin.rebuilds[t].as_ref().filter(|r| r.active()) else { return };
            if r.reset_wanted && r.inflight_chunks > 0 {
                return;
            }
            let (reset, est_due) = (r.reset_wanted, now - r.last_est_ns >= EST_INTERVAL_NS);
            // vdev_rebuild_reset_sync: vrp_max_txg from vdev_resilver_needed.
            let max_txg_now = if reset { self.rebuild_max_txg(t) } else { 0 };
            let est = if reset || est_due { self.rebuild_est(t) } else { 0 };
            let r = self.admin.rebuilds[t].as_mut().unwrap();
            if reset {
                // vdev_rebuild_reset_sync: from the start, counters cleared.
                r.reset_wanted = false;
                r.max_txg = max_txg_now;
                (r.scanned, r.issued, r.rebuilt) = (0, 0, 0);
                (r.pass_start_ns, r.pass_scanned, r.pass_issued, r.pass_skipped) = (now, 0, 0, 0);
                r.pos = RangesPos::default();
                r.layout_done = false;
                r.extra_off = self.top_alloc_bytes[t];
                r.cur = None;
                r.est = est;
                r.start_ns = now;
                r.last_est_ns = now;
            }
            if est_due && !reset {
                r.est = est;
                r.last_est_ns = now;
            }
            if lim_bytes.is_some_and(|m| r.inflight_bytes >= m) || lim_chunks.is_some_and(|m| r.inflight_chunks >= m) {
                return;
            }
            let Some((off, size)) = self.rebuild_next_chunk(t) else {
                if self.admin.rebuilds[t].as_ref().unwrap().inflight_chunks == 0 {
                    self.rebuild_complete(t, ctx);
                }
                return;
            };
            let r = self.admin.rebuilds[t].as_mut().unwrap();
            r.scanned += size;
            r.pass_scanned += size;
            r.issued += size;
            r.pass_issued += size;
            r.inflight_bytes += size;
            r.inflight_chunks += 1;
            r.chunks += 1;
            let slot = self.rb_alloc(RbIo { top: t as u16, offset: off, size, pending: 1, writing: false });
            let Some(src) = self.try_pick_mirror_child(t, off, 0, ctx.now()) else {
                // No healthy copy: the read fails (vrp_errors) and nothing is written.
                // Released here, not through rebuild_io_done: that re-enters this pump,
                // one stack frame per failed chunk.
                self.admin.rebuilds[t].as_mut().unwrap().errors += 1;
                self.rb_release(slot);
                continue;
            };
            self.submit_leaf(src, Op::Read, IoClass::Rebuild, flags::RESILVER, off, size as u32, OWNER_REBUILD | slot, ctx);
        }
    }

    fn rb_alloc(&mut self, io: RbIo) -> u32 {
        let s = &mut self.admin.rb;
        if let Some(i) = s.free.pop() {
            s.ios[i as usize] = io;
            i
        } else {
            s.ios.push(io);
            (s.ios.len() - 1) as u32
        }
    }

    /// A leaf I/O of chunk `slot` completed.
    pub(crate) fn rebuild_leaf_done(&mut self, slot: u32, ctx: &mut Ctx<Ev>) {
        let io = &mut self.admin.rb.ios[slot as usize];
        io.pending -= 1;
        if io.pending > 0 {
            return;
        }
        let io = *io;
        if !io.writing {
            // The read is in: repair every child whose DTL covers the synthetic block's
            // birth — the new disks (vdev_mirror_io_done, REBUILD priority, IO_REPAIR).
            let t = io.top as usize;
            let mut targets = std::mem::take(&mut self.writes);
            targets.clear();
            let empty = |l: u16| self.leaves[l as usize].writeable() && self.leaves[l as usize].dtl.is_some_and(|(lo, _)| lo <= TXG_INITIAL);
            targets.extend(self.top_leaves_iter(t).filter(|&l| empty(l)).map(|l| (l, io.offset, io.size)));
            let n = targets.len() as u64;
            for &(l, off, size) in &targets {
                self.submit_leaf(l, Op::Write, IoClass::Rebuild, flags::REPAIR, off, size as u32, OWNER_REBUILD | slot, ctx);
                self.leaves[l as usize].rebuild_processed += size;
            }
            self.writes = targets;
            if n > 0 {
                if let Some(r) = self.admin.rebuilds[t].as_mut() {
                    r.rebuilt += io.size * n;
                }
                let e = &mut self.admin.rb.ios[slot as usize];
                e.writing = true;
                e.pending = n as u32;
                return;
            }
        }
        self.rebuild_io_done(slot, ctx);
    }

    fn rebuild_io_done(&mut self, slot: u32, ctx: &mut Ctx<Ev>) {
        let t = self.rb_release(slot);
        self.rebuild_pump(t, ctx);
    }

    /// Free chunk `slot` and take it off its rebuild's in-flight counts; returns its top.
    fn rb_release(&mut self, slot: u32) -> usize {
        let io = self.admin.rb.ios[slot as usize];
        self.admin.rb.free.push(slot);
        let t = io.top as usize;
        if let Some(r) = self.admin.rebuilds[t].as_mut() {
            r.inflight_bytes = r.inflight_bytes.saturating_sub(io.size);
            r.inflight_chunks = r.inflight_chunks.saturating_sub(1);
        }
        t
    }

    /// `vdev_rebuild_complete_sync` and the REBUILD_DONE async task.
    fn rebuild_complete(&mut self, t: usize, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let max_txg = {
            let r = self.admin.rebuilds[t].as_mut().unwrap();
            r.state = RebuildState::Complete;
            r.end_ns = now;
            r.max_txg
        };
        self.dtl_excise(&[t], max_txg, false);
        self.replacing_done();
        self.redundancy_update(now);
        self.rebuild_after_end(true, ctx);
    }

    /// After a rebuild ends: the automatic scrub (or a resilver that waited), or the stop.
    /// Only a rebuild that `completed` asks for the scrub: 2.0's `SPA_ASYNC_REBUILD_DONE`
    /// and 2.1+'s scrub setup are in `vdev_rebuild_complete_sync`, which a cancelled
    /// rebuild never reaches (`vdev_rebuild_cancel_sync`; vdev_rebuild.c@zfs-2.0.0,
    /// @zfs-2.2.0).
    fn rebuild_after_end(&mut self, completed: bool, ctx: &mut Ctx<Ev>) {
        if !self.rebuild_active_any() {
            if std::mem::take(&mut self.admin.resilver_waiting) && self.resilver_needed().is_some() {
                self.scan_request(ScanFunc::Resilver, ctx);
            } else if completed {
                let scrub = self.cfg.release < Release::Zfs21 || self.tun.try_get(T::zfs_rebuild_scrub_enabled).unwrap_or(1) != 0;
                let busy = self.running_scan(None).is_some();
                if scrub && !busy {
                    self.scan_request(ScanFunc::Scrub, ctx);
                }
            }
        }
        self.stop_if_scans_done(ctx);
    }

    /// `vdev_rebuild_stat_t` of the rebuild of `t` as `zpool status` reads it.
    pub(crate) fn rebuild_stats_json(&self, t: usize, r: &Rebuild, now: u64) -> Value {
        let epoch = self.cfg.epoch_s;
        let secs = |ns: u64| epoch + ns / NS_PER_S;
        let end = if r.active() { now } else { r.end_ns };
        json!({
            "vdev": self.tops[t].name,
            "state": r.state.key(),
            "start_s": secs(r.start_ns), "end_s": if r.active() { 0 } else { secs(r.end_ns) },
            "scan_time_ms": (end - r.start_ns) / NS_PER_MS,
            "scanned": r.scanned, "issued": r.issued, "rebuilt": r.rebuilt, "estimate": r.est,
            "errors": r.errors, "pass_start_s": secs(r.pass_start_ns),
            "pass_time_ms": (end - r.pass_start_ns) / NS_PER_MS,
            "pass_scanned": r.pass_scanned, "pass_issued": r.pass_issued, "pass_skipped": r.pass_skipped,
        })
    }

    /// A rebuild's summary for the results (`rebuilds`).
    pub(crate) fn rebuild_summary(&self, r: &Rebuild, now: u64) -> Value {
        let end = if r.active() { now } else { r.end_ns };
        let dur = end.saturating_sub(r.start_ns);
        json!({
            "vdev": self.tops[r.top].name,
            "state": r.state.key(),
            "start_ns": r.start_ns, "end_ns": end, "duration_ns": dur,
            "scanned_bytes": r.scanned, "issued_bytes": r.issued, "rebuilt_bytes": r.rebuilt,
            "estimate_bytes": r.est, "chunks": r.chunks, "errors": r.errors,
            "scanned_bytes_per_s": crate::stats::rate_per_s(r.scanned, dur),
            "rebuilt_bytes_per_s": crate::stats::rate_per_s(r.rebuilt, dur),
        })
    }
}

/// A 2.1+ rebuild's in-flight byte limit for one top-level vdev with `children` leaves
/// (`vdev_rebuild_thread`): MAX(1 MiB, `zfs_rebuild_vdev_limit` × children), and from 2.2
/// at most (`arc_c_max` / 2) / MAX(root's children, 1) — the root's children being every
/// top-level vdev, log vdevs included (`rvd->vdev_children`).
fn rebuild_bytes_limit(rel: Release, ram: u64, per_leaf: u64, children: usize, root_children: usize) -> u64 {
    let limit = (per_leaf * children as u64).max(1 << 20);
    if rel >= Release::Zfs22 {
        limit.min(rel.arc_c_max(ram) / 2 / root_children.max(1) as u64)
    } else {
        limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1 << 20;

    #[test]
    fn rebuild_limit_is_per_child_then_capped_by_the_arc_from_2_2() {
        // 2.1: 64 MiB × 2 children, no ARC cap however little memory there is.
        assert_eq!(rebuild_bytes_limit(Release::Zfs21, 256 * M, 64 * M, 2, 1), 128 * M);
        // At least 1 MiB.
        assert_eq!(rebuild_bytes_limit(Release::Zfs21, 256 * M, 0, 2, 1), M);
        // 2.2: arc_c_max = 128 MiB on 256 MiB, half of it shared by the root's children.
        assert_eq!(rebuild_bytes_limit(Release::Zfs22, 256 * M, 64 * M, 2, 1), 64 * M);
        assert_eq!(rebuild_bytes_limit(Release::Zfs22, 256 * M, 64 * M, 2, 2), 32 * M);
        // 2.3: arc_c_max = 5/8 of 256 MiB = 160 MiB.
        assert_eq!(rebuild_bytes_limit(Release::Zfs23, 256 * M, 64 * M, 2, 1), 80 * M);
        // Plenty of memory: the per-child limit binds.
        assert_eq!(rebuild_bytes_limit(Release::Zfs23, 16 << 30, 64 * M, 2, 3), 128 * M);
    }

    /// `zpool replace -s` of a lone disk makes the top-level vdev `replacing-0`, whose two
    /// children set the 2.1+ in-flight limit (`zfs_rebuild_vdev_limit × vdev_children`).
    #[test]
    fn a_replaced_lone_disk_counts_two_children() {
        use crate::config::RunConfig;
        use crate::sim::Run;
        for (release, per_child) in [("zfs-2.1", 32 * M), ("zfs-2.2", 64 * M), ("zfs-2.3", 64 * M)] {
            let dev = serde_json::to_value(crate::device::presets::get("hdd-7200-sata-2014").unwrap()).unwrap();
            let cfg = json!({
                "name": "t", "seed": 1, "release": release, "hz": 100, "ram_bytes": 64u64 << 30,
                "stop_ns": 3600 * NS_PER_S, "report_interval_ns": NS_PER_S, "devices": {"d": dev},
                "pool": {"name": "tank", "ashift": 12, "recordsize_bytes": 131072, "allocated_bytes": 1u64 << 30,
                         "vdevs": [{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]},
                "workloads": [],
                "actions": [{"at_ns": 0, "do": "replace", "old": "sda", "new": "sdb", "sequential": true}]
            });
            let mut run = Run::new(RunConfig::from_json(&cfg.to_string()).unwrap()).unwrap();
            while !run.sim.model().rebuild_active_any() {
                assert!(!run.step_events(1), "{release}: no rebuild");
            }
            assert_eq!(run.sim.model().rebuild_limit(0), (Some(2 * per_child), None), "{release}");
        }
    }
}

//! Sequential resilver ("device rebuild", `zpool replace -s` / `zpool attach -s`, 2.0+).
//!
//! Theory of operation (`module/zfs/vdev_rebuild.c` `vdev_rebuild_thread`,
//! `vdev_rebuild_ranges`, `vdev_rebuild_range`, `vdev_rebuild_cb`,
//! `vdev_rebuild_complete_sync` at zfs-2.0.0, zfs-2.1.0 and zfs-2.2.0; `vdev_mirror.c`
//! `vdev_mirror_io_start`/`_io_done` at zfs-2.1.0; spec §5.4)
//! ---------------------------------------------------------------------------------
//! One thread per top-level vdev (mirror, or a disk being replaced), outside syncing
//! context, walks the vdev's allocated space in LBA order, metaslab by metaslab, without
//! looking at blocks or checksums. A metaslab's ranges are its space map's; here the
//! layout's allocated ranges and the space the run's blocks still hold (`space.rs`: what
//! txgs wrote, less what later txgs freed), cut at the metaslab's ends:
//!
//! ```text
//! for each metaslab m of the vdev (vdev_ms_count of 2^vdev_ms_shift bytes):
//!     metaslab_disable(m)
//!     2.0:  txg_wait_synced(dsl, 0)                     (every metaslab, empty ones too)
//!     2.1+: if some ms_allocating[0..TXG_SIZE) of m holds space: txg_wait_synced(dsl, 0)
//!           — i.e. until the open txg + TXG_DEFER_SIZE (2) has synced, the sync thread
//!           pushed at once (tx_sync_txg_waiting), three syncs on an idle pool; no new
//!           chunk meanwhile, the ones in flight go on
//!     for each allocated range of m, in offset order:
//!         split into chunks of MIN(range, roundup(zfs_rebuild_max_segment, ashift), 16 MiB)
//!         for each chunk:
//!             scanned += chunk
//!             wait while in flight ≥ limit      2.0: zfs_rebuild_queue_limit chunks
//!                                               2.1: MAX(1 MiB, zfs_rebuild_vdev_limit × children) bytes
//!                                                    (the top's children: 2 for a lone disk
//!                                                    being replaced, under `replacing-0`)
//!                                               2.2+: also ≤ (arc_c_max / 2) / #top-level vdevs
//!                                                     (log vdevs included; `Release::arc_c_max`)
//!             issued += chunk
//!             read the chunk from one healthy child (REBUILD priority, chosen by load as
//!                 vdev_mirror_child_select does; the new disk's DTL covers the synthetic
//!                 block's birth TXG_INITIAL, so it is skipped)
//!             then write it to every child whose DTL covers TXG_INITIAL — the new disks only
//!                 (REBUILD priority, IO_REPAIR); rebuilt += chunk per write
//! wait for the last chunk; complete: excise the vdev's DTLs up to the txg the rebuild
//!     started in, detach replaced disks; when no other rebuild is active, start a scrub
//!     (2.0: always, `spa_async_thread`; 2.1+: if zfs_rebuild_scrub_enabled)
//! ```
//!
//! The metaslabs are ZFS's: `vdev_metaslab_set_size` (`layout::metaslab_shift`: about 200,
//! 512 MiB … 16 GiB each, at least 16) on the vdev's asize — the smallest child less its
//! labels — and asize >> ms_shift of them (RB/VD@zfs-2.0.0 … 2.3.0). `ms_allocating[txg]`
//! is the space the allocator gave out in a txg until that txg's `metaslab_sync` (in its
//! spa_sync after the data and scan writes): here every block `alloc_free` places — a
//! syncing txg's data, an lwb or `dmu_sync` block in the open txg — is noted with its txg
//! and dropped when that txg's sync leaves its data and scan phases
//! (`Txg::ms_allocating`). The results count each rebuild's waits (`metaslab_waits`,
//! `metaslab_wait_ns`).
//!
//! Progress is `vdev_rebuild_stat_t`: `bytes_est` is the vdev's allocated bytes when the
//! rebuild starts, refreshed every 5 minutes (`vdev_rebuild_update_bytes_est`); the
//! pass counters restart with the thread. Attaching another disk (`attach -s`) to a
//! rebuilding vdev resets it to the start once its I/O drains (`vdev_rebuild_reset_sync`);
//! detaching every disk that needs it cancels it. Deferred resilvers do not exist for
//! rebuilds; a healing resilver asked for meanwhile waits for the rebuild to end.
//!
//! Simplifications: the thread waits for txg syncs as ZFS's does, but the model's spa_sync
//! does not wait for the txg's rebuild zios (`spa_txg_zio`, which ZFS's first sync of the
//! three waits for before anything else), so the chunks in flight when a wait starts do not
//! hold it back: ZFS's pause at a metaslab is about the drain of those chunks (≤ 20 × 1 MiB
//! on 2.0) longer. The model's allocator ignores `metaslab_disable` — it keeps writing
//! where its cursor is — and gives out the tail past the last whole metaslab, which the
//! walk then counts in the last metaslab; what is written in a metaslab after the thread
//! loaded it is not copied (the walk's ranges are the space map as loaded; ZFS's writes go
//! to the new disk as well). The per-chunk MOS
//! `dmu_tx_assign` (which can be throttled by dirty data) is not modelled; the thread
//! starts at the command rather than in the next txg's sync task.
//!
//! dRAID (`vdev_draid_rebuild_asize`, `vdev_draid_need_resilver`, `vdev_draid_io_start_read`
//! at zfs-2.1.0): a chunk is whole stripes of one group, at most `zfs_rebuild_max_segment` ×
//! data columns; a chunk whose group holds no child under `replacing`/`spare` is scanned,
//! not issued; otherwise every column of its stripes but those of the children being rebuilt
//! is read (parity too), and each rebuilt column is written to its child's new disk or
//! distributed spare. The in-flight limit counts a chunk's psize (its data columns).

use crate::admin::TXG_INITIAL;
use crate::io::{flags, IoClass, Op, NO_LEAF};
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
/// Low bits of a rebuild's `txg_wait_synced` waiter id: its top-level vdev.
const OWNER_INDEX_BITS: u32 = OWNER_REBUILD - 1;
/// `TXG_DEFER_SIZE`: `txg_wait_synced(dp, 0)` waits for the open txg + 2.
const TXG_DEFER_SIZE: u64 = 2;
/// `sizeof (vdev_label_t)` (256 KiB): a leaf's size is aligned down to it.
const LABEL_BYTES: u64 = 256 << 10;
/// `VDEV_LABEL_START_SIZE` + `VDEV_LABEL_END_SIZE`: two labels and the boot block in front
/// (4 MiB), two labels at the end (512 KiB).
const LABELS_BYTES: u64 = (4 << 20) + (512 << 10);

/// The metaslabs of a top-level vdev of `size_bytes`: (`vdev_ms_shift`, `vdev_ms_count`).
/// ZFS sizes them from `vdev_asize` — the smallest child's size aligned to a label
/// (256 KiB) less the front and back labels (4 MiB + 512 KiB; VD@zfs-2.0.0 … 2.3.0
/// `vdev_open`) — with `vdev_metaslab_set_size` (`layout::metaslab_shift`), and makes
/// asize >> ms_shift of them (`vdev_metaslab_init`).
pub(crate) fn metaslabs(size_bytes: u64) -> (u32, u64) {
    let asize = (size_bytes & !(LABEL_BYTES - 1)).saturating_sub(LABELS_BYTES);
    let shift = crate::layout::metaslab_shift(asize);
    (shift, (asize >> shift).max(1))
}

/// What the walk of a rebuild has next.
enum Next {
    /// A chunk (offset, size) to read and copy.
    Chunk(u64, u64),
    /// The thread reaches the next metaslab (`Rebuild::ms`), which may make it wait.
    Metaslab,
    /// Every metaslab walked.
    Done,
}

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
    /// Waits for txg syncs at a metaslab (`txg_wait_synced(dsl, 0)`) and their total time.
    pub ms_waits: u64,
    pub ms_wait_ns: u64,
    pos: RangesPos,
    layout_done: bool,
    /// The rest (offset, end) of the layout range being walked; it may reach past `ms`.
    lay: Option<(u64, u64)>,
    /// The run's live ranges in `ms` when it was loaded, still to walk (reversed: the next
    /// one last). The walk copies what its space map held then (`vdev_rebuild_ranges`
    /// walks a tree `space_map_load` filled): later allocations in it reach the new disk
    /// through the mirror's own writes, and later frees are copied anyway.
    ms_extra: Vec<(u64, u64)>,
    cur: Option<(u64, u64)>,
    /// The metaslab being walked, and whether its ranges are being issued (past its wait).
    ms: u64,
    ms_loaded: bool,
    /// Engine txg the thread waits to see synced before it loads `ms`, and since when.
    wait_txg: Option<u64>,
    wait_start_ns: u64,
    inflight_bytes: u64,
    inflight_chunks: u64,
    reset_wanted: bool,
    last_est_ns: u64,
    /// The txgs that issued a range, by `txg & 3` (`vr_scan_offset[]`): each one's sync
    /// rewrites the rebuild's state in the top-level vdev's ZAP (`vdev_rebuild_update_sync`).
    range_txgs: [u64; 4],
}

impl Rebuild {
    pub fn active(&self) -> bool {
        self.state == RebuildState::Active
    }

    /// The thread loads metaslab `ms` (past its wait): its ranges are fixed from here on.
    fn load_ms(&mut self, mut extra: Vec<(u64, u64)>) {
        self.ms_loaded = true;
        extra.reverse();
        self.ms_extra = extra;
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

    /// The top-level vdevs whose rebuild issued a range in `txg` (their state is rewritten
    /// in its sync); forgets them.
    pub(crate) fn rebuild_take_range_txg(&mut self, txg: u64) -> Vec<usize> {
        let mut tops = Vec::new();
        for (t, r) in self.admin.rebuilds.iter_mut().enumerate() {
            if let Some(r) = r.as_mut().filter(|r| r.range_txgs[(txg & 3) as usize] == txg) {
                r.range_txgs[(txg & 3) as usize] = 0;
                tops.push(t);
            }
        }
        tops
    }

    /// A sequential rebuild has started at some point of the run.
    pub(crate) fn rebuild_ran(&self) -> bool {
        !self.admin.rebuild_history.is_empty() || self.admin.rebuilds.iter().any(|r| r.is_some())
    }

    fn rebuild_est(&self, t: usize) -> u64 {
        self.layout.alloc_bytes(t) + self.space.live[t].bytes()
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
            ms_waits: 0,
            ms_wait_ns: 0,
            pos: RangesPos::default(),
            layout_done: false,
            lay: None,
            ms_extra: Vec::new(),
            cur: None,
            ms: 0,
            ms_loaded: false,
            wait_txg: None,
            wait_start_ns: 0,
            inflight_bytes: 0,
            inflight_chunks: 0,
            reset_wanted: false,
            range_txgs: [0; 4],
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

    /// The metaslabs of top-level vdev `t` (`metaslabs`).
    fn rebuild_metaslabs(&self, t: usize) -> (u32, u64) {
        metaslabs(self.tops[t].size_bytes)
    }

    /// The run's live ranges in the metaslab the rebuild of `t` is at (`space.rs`); the
    /// last metaslab takes in the tail past it, as `rebuild_next_chunk` does.
    fn rebuild_ms_live(&self, t: usize) -> Vec<(u64, u64)> {
        let (shift, ms_count) = self.rebuild_metaslabs(t);
        let ms = self.admin.rebuilds[t].as_ref().unwrap().ms;
        let start = |m: u64| self.tops[t].draid.as_ref().map_or(m << shift, |d| d.astart(m << shift));
        let end = if ms + 1 < ms_count { start(ms + 1) } else { u64::MAX };
        self.space.live[t].within(start(ms), end)
    }

    /// The next chunk of top-level vdev `t` in LBA order, within the metaslab being walked.
    fn rebuild_next_chunk(&mut self, t: usize) -> Next {
        let ashift = self.tops[t].ashift;
        let seg = (self.tun.get(T::zfs_rebuild_max_segment) as u64).div_ceil(1 << ashift) << ashift;
        let seg = seg.min(MAX_CHUNK_BYTES);
        let max_segment = self.tun.get(T::zfs_rebuild_max_segment) as u64;
        let draid = self.tops[t].draid.clone();
        let (shift, ms_count) = self.rebuild_metaslabs(t);
        let r = self.admin.rebuilds[t].as_mut().unwrap();
        loop {
            if let Some((off, len)) = r.cur {
                // dRAID: whole stripes of one group (`vdev_draid_rebuild_asize`).
                let n = match &draid {
                    Some(d) => d.rebuild_chunk(off, len, max_segment),
                    None => len.min(seg),
                };
                r.cur = (len > n).then_some((off + n, len - n));
                return Next::Chunk(off, n);
            }
            if !r.ms_loaded {
                return if r.ms < ms_count { Next::Metaslab } else { Next::Done };
            }
            // A range never spans metaslabs (each has its own space map). The model's
            // allocator may use the tail past the last whole metaslab, which ZFS leaves
            // unused: the last metaslab takes it in.
            // dRAID metaslabs start on a whole stripe (`vdev_draid_metaslab_init`), so a
            // range is cut there, never inside a stripe.
            let ms_end = match (&draid, r.ms + 1 < ms_count) {
                (_, false) => u64::MAX,
                (Some(d), true) => d.astart((r.ms + 1) << shift),
                (None, true) => (r.ms + 1) << shift,
            };
            if r.lay.is_none() && !r.layout_done {
                let mut it = self.layout.allocated_ranges_at(t, r.pos);
                match it.next() {
                    Some((off, len)) => {
                        r.pos = it.position();
                        r.lay = Some((off, off + len));
                    }
                    None => r.layout_done = true,
                }
            }
            if let Some((off, end)) = r.lay.filter(|&(off, _)| off < ms_end) {
                let e = end.min(ms_end);
                r.cur = Some((off, e - off));
                r.lay = (end > e).then_some((e, end));
                continue;
            }
            if r.lay.is_none() && r.layout_done {
                // The run's live space (above the layout's) as the metaslab was loaded.
                if let Some((lo, hi)) = r.ms_extra.pop() {
                    r.cur = Some((lo, hi - lo));
                    continue;
                }
            }
            r.ms += 1;
            r.ms_loaded = false;
        }
    }

    /// The thread reaches metaslab `ms` of `t` (`vdev_rebuild_thread`): `metaslab_disable`,
    /// then `txg_wait_synced(dsl, 0)` — the open txg + TXG_DEFER_SIZE synced, the sync
    /// thread pushed at once (TXG@zfs-2.0.0 `txg_wait_synced_impl`, `txg_sync_thread`) —
    /// before its space map is loaded. 2.0 waits at every metaslab (RB@zfs-2.0.0); 2.1+
    /// only while one of its `ms_allocating[]` trees holds space (RB@zfs-2.1.0 … 2.3.0).
    /// Chunks in flight go on meanwhile. Returns true while the thread waits.
    fn rebuild_metaslab(&mut self, t: usize, ctx: &mut Ctx<Ev>) -> bool {
        let (shift, ms_count) = self.rebuild_metaslabs(t);
        let ms = self.admin.rebuilds[t].as_ref().unwrap().ms;
        let (lo, hi) = (ms << shift, if ms + 1 < ms_count { (ms + 1) << shift } else { u64::MAX });
        let wait = self.cfg.release < Release::Zfs21
            || self.txg.ms_allocating[t].iter().any(|&(_, a, b)| a < hi && b > lo);
        if !wait {
            let extra = self.rebuild_ms_live(t);
            self.admin.rebuilds[t].as_mut().unwrap().load_ms(extra);
            return false;
        }
        let r = self.admin.rebuilds[t].as_mut().unwrap();
        let target = self.txg.eng.open_txg() + TXG_DEFER_SIZE;
        r.wait_txg = Some(target);
        r.wait_start_ns = ctx.now();
        r.ms_waits += 1;
        let mut out = Vec::new();
        if self.txg.eng.wait_synced(ctx.now(), Some(target), OWNER_REBUILD | t as u32, &mut out) {
            let extra = self.rebuild_ms_live(t);
            let r = self.admin.rebuilds[t].as_mut().unwrap();
            r.wait_txg = None;
            r.load_ms(extra);
            return false;
        }
        self.txg_actions(out, ctx);
        self.admin.rebuilds[t].as_ref().unwrap().wait_txg.is_some()
    }

    /// A `txg_wait_synced` waiter was released: a rebuild thread goes on with its metaslab.
    /// A release meant for an earlier wait (a cancelled or restarted rebuild) is ignored.
    pub(crate) fn rebuild_wait_done(&mut self, waiter: u32, ctx: &mut Ctx<Ev>) {
        if waiter & !OWNER_INDEX_BITS != OWNER_REBUILD {
            return;
        }
        let t = (waiter & OWNER_INDEX_BITS) as usize;
        let synced = self.txg.eng.synced_txg();
        let Some(r) = self.admin.rebuilds.get(t).and_then(|r| r.as_ref()).filter(|r| r.active()) else { return };
        if r.wait_txg.is_none_or(|g| g > synced) {
            return;
        }
        let extra = self.rebuild_ms_live(t);
        let r = self.admin.rebuilds[t].as_mut().unwrap();
        r.wait_txg = None;
        r.load_ms(extra);
        r.ms_wait_ns += ctx.now() - r.wait_start_ns;
        self.rebuild_pump(t, ctx);
    }

    /// Issue chunks of the rebuild of `t` while its in-flight limit allows.
    pub(crate) fn rebuild_pump(&mut self, t: usize, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        loop {
            let (lim_bytes, lim_chunks) = self.rebuild_limit(t);
            let Some(r) = self.admin.rebuilds[t].as_ref().filter(|r| r.active()) else { return };
            // In txg_wait_synced the thread notices nothing (a reset waits for it too).
            if r.wait_txg.is_some() || (r.reset_wanted && r.inflight_chunks > 0) {
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
                r.lay = None;
                r.ms_extra.clear();
                r.cur = None;
                (r.ms, r.ms_loaded) = (0, false);
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
            let (off, size) = match self.rebuild_next_chunk(t) {
                Next::Chunk(off, size) => (off, size),
                Next::Metaslab => {
                    if self.rebuild_metaslab(t, ctx) {
                        return;
                    }
                    continue;
                }
                Next::Done => {
                    if self.admin.rebuilds[t].as_ref().unwrap().inflight_chunks == 0 {
                        self.rebuild_complete(t, ctx);
                    }
                    return;
                }
            };
            let r = self.admin.rebuilds[t].as_mut().unwrap();
            r.scanned += size;
            r.pass_scanned += size;
            if self.tops[t].draid.is_some() && !self.draid_chunk_degraded(t, off, size) {
                // vdev_dtl_need_resilver → vdev_draid_group_degraded: a group with no child
                // being replaced or spared needs nothing. 2.2 counts it as skipped, which
                // `zpool status` takes off the bytes to issue (RB@zfs-2.2.0
                // vr_pass_bytes_skipped, fa7b2390d4; 2.1 skips it uncounted).
                if self.cfg.release >= Release::Zfs22 {
                    self.admin.rebuilds[t].as_mut().unwrap().pass_skipped += size;
                }
                continue;
            }
            let charge = self.chunk_psize(t, size);
            // vdev_rebuild_range assigns a MOS tx for the range; the first range of a txg
            // schedules the state update in that txg's sync.
            let txg = self.txg.eng.sync_task();
            let r = self.admin.rebuilds[t].as_mut().unwrap();
            r.range_txgs[(txg & 3) as usize] = txg;
            r.issued += size;
            r.pass_issued += size;
            r.inflight_bytes += charge;
            r.inflight_chunks += 1;
            r.chunks += 1;
            let slot = self.rb_alloc(RbIo { top: t as u16, offset: off, size, pending: 1, writing: false });
            if self.tops[t].draid.is_some() {
                self.draid_rebuild_read(t, slot, ctx);
                continue;
            }
            let Some(src) = self.try_pick_mirror_child(t, off, size, 0, ctx.now()) else {
                // No healthy copy: the read fails (vrp_errors) and nothing is written.
                // Released here, not through rebuild_io_done: that re-enters this pump,
                // one stack frame per failed chunk.
                self.rebuild_chunk_lost(t, off, size);
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
        if !io.writing && self.tops[io.top as usize].draid.is_some() {
            if self.draid_rebuild_write(slot, ctx) {
                return;
            }
        } else if !io.writing {
            // The read is in: repair every child whose DTL covers the synthetic block's
            // birth — the new disks (vdev_mirror_io_done, REBUILD priority, IO_REPAIR).
            let t = io.top as usize;
            let mut targets = std::mem::take(&mut self.writes);
            targets.clear();
            targets.extend(self.top_leaves_iter(t).filter(|&l| self.rebuild_empty(l)).map(|l| (l, io.offset, io.size)));
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

    /// A chunk the rebuild could not read or reconstruct (`vrp_errors`): nothing is written
    /// for it, and the new disk or spare is still taken as whole when the rebuild ends, so
    /// the blocks in it are lost — the scrub that follows, and any read, finds them so —
    /// unless a disk that was only offline may still hold them (then the scrub's repair
    /// can find a copy once it is back, as ZFS's would).
    fn rebuild_chunk_lost(&mut self, t: usize, off: u64, size: u64) {
        self.admin.rebuilds[t].as_mut().unwrap().errors += 1;
        if self.top_leaves_iter(t).any(|l| self.leaves[l as usize].offline) {
            return;
        }
        self.add_lost_range(t as u16, off, off + size);
    }

    /// The psize of a chunk of `size` bytes of vdev space — on dRAID the data columns' share
    /// of its stripes. It is what the chunk counts against the in-flight limit
    /// (`vr_bytes_inflight += psize`).
    fn chunk_psize(&self, t: usize, size: u64) -> u64 {
        self.tops[t].draid.as_ref().map_or(size, |d| size / d.groupwidth * d.ndata)
    }

    /// A leaf a rebuild writes: writeable, its DTL holding the synthetic block's birth.
    /// While a rebuild runs no healing resilver can (`spa_vdev_attach` refuses either
    /// while the other is active), so such a leaf is one a rebuild is filling
    /// (`vdev_rebuild_txg` set).
    pub(crate) fn rebuild_empty(&self, l: u16) -> bool {
        let leaf = &self.leaves[l as usize];
        leaf.writeable() && leaf.dtl.is_some_and(|(lo, _)| lo <= TXG_INITIAL)
    }

    /// The columns of the stripes of dRAID chunk (`off`, `size`) of `t` (one group, one row).
    fn draid_chunk_cols(&mut self, t: usize, off: u64, size: u64) -> Vec<crate::pool::Column> {
        let mut cols = std::mem::take(&mut self.cols);
        self.tops[t].map(off, self.chunk_psize(t, size), true, &mut cols);
        cols
    }

    /// `vdev_draid_group_degraded`: a child of the chunk's group sits under a `replacing`
    /// or `spare` vdev.
    fn draid_chunk_degraded(&mut self, t: usize, off: u64, size: u64) -> bool {
        let cols = self.draid_chunk_cols(t, off, size);
        let hit = cols.iter().any(|c| self.replacing[t][c.child as usize].is_some());
        self.cols = cols;
        hit
    }

    /// A dRAID rebuild chunk's read (`vdev_draid_io_start_read` at REBUILD priority): every
    /// column of its stripes except those of children being rebuilt (stale by definition)
    /// and unreadable ones, parity included; more missing than parity is an error.
    fn draid_rebuild_read(&mut self, t: usize, slot: u32, ctx: &mut Ctx<Ev>) {
        let io = self.admin.rb.ios[slot as usize];
        let cols = self.draid_chunk_cols(t, io.offset, io.size);
        let mut reads = std::mem::take(&mut self.writes);
        reads.clear();
        let mut missing = 0;
        for c in &cols {
            let ch = c.child as usize;
            // A child being rebuilt is stale whatever it holds (`vdev_draid_rebuilding`); a
            // spare rebuilt earlier is read like any child.
            let rebuilding = self.replacing[t][ch].is_some_and(|n| self.rebuild_empty(n));
            // A spare rebuilt earlier whose share of this offset lies on a disk that failed
            // since is missing here too (`vdev_draid_missing` follows it to that disk).
            match self.col_read_leaf(t, ch, c.offset, 0).filter(|_| !rebuilding) {
                Some(l) => reads.push((l, c.offset, c.size)),
                None => missing += 1,
            }
        }
        self.cols = cols;
        if missing > self.tops[t].kind.nparity() as usize {
            self.writes = reads;
            self.rebuild_chunk_lost(t, io.offset, io.size);
            self.rb_release(slot);
            return;
        }
        self.admin.rb.ios[slot as usize].pending = reads.len() as u32;
        for &(l, off, size) in &reads {
            self.submit_leaf(l, Op::Read, IoClass::Rebuild, flags::RESILVER, off, size as u32, OWNER_REBUILD | slot, ctx);
        }
        self.writes = reads;
    }

    /// A dRAID chunk's reads are in: write each rebuilt column to the new disk or
    /// distributed spare of its child (IO_REPAIR, REBUILD priority). False when nothing
    /// needed writing.
    fn draid_rebuild_write(&mut self, slot: u32, ctx: &mut Ctx<Ev>) -> bool {
        let io = self.admin.rb.ios[slot as usize];
        let t = io.top as usize;
        let cols = self.draid_chunk_cols(t, io.offset, io.size);
        let mut targets = std::mem::take(&mut self.writes);
        targets.clear();
        for c in &cols {
            let Some(n) = self.replacing[t][c.child as usize] else { continue };
            // The column's new disk or spare being rebuilt; or `rc_force_repair`: a
            // distributed spare already in place whose share of this offset lies on a child
            // now being rebuilt itself (`vdev_draid_io_start_read`) — the write goes through
            // the spare and on to that child's new disk or spare (`share_write_leaves`).
            let force = || self.share_replacement(t, n, c.offset).is_some_and(|r| self.rebuild_empty(r));
            if self.rebuild_empty(n) || force() {
                targets.push((n, c.offset, c.size));
            }
        }
        self.cols = cols;
        // Every physical leaf written counts its bytes (`vs_rebuild_processed`, so each shows
        // "(resilvering)"), and the rebuild's total counts them (`vrp_bytes_rebuilt`); a
        // distributed spare counts its own `vs_rebuild_processed` but stays out of the total,
        // "to avoid double counting" (`vdev_stat_update`, MS@zfs-2.2.0).
        let mut bytes = 0;
        let mut n = 0;
        let mut fan = std::mem::take(&mut self.col_writes);
        for &(l, off, size) in &targets {
            fan.clear();
            if self.leaves[l as usize].draid_spare.is_some() {
                self.share_write_leaves(t, l, off, true, &mut fan);
                self.leaves[l as usize].rebuild_processed += size;
            } else {
                fan.push((l, NO_LEAF));
            }
            for &(p, via) in &fan {
                self.submit_leaf_via(p, via, Op::Write, IoClass::Rebuild, flags::REPAIR, off, size as u32, OWNER_REBUILD | slot, ctx);
                self.leaves[p as usize].rebuild_processed += size;
                bytes += size;
                n += 1;
            }
        }
        self.col_writes = fan;
        self.writes = targets;
        if n == 0 {
            return false;
        }
        if let Some(r) = self.admin.rebuilds[t].as_mut() {
            r.rebuilt += bytes;
        }
        let e = &mut self.admin.rb.ios[slot as usize];
        e.writing = true;
        e.pending = n;
        true
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
        let charge = self.chunk_psize(t, io.size);
        if let Some(r) = self.admin.rebuilds[t].as_mut() {
            r.inflight_bytes = r.inflight_bytes.saturating_sub(charge);
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
            "metaslab_waits": r.ms_waits, "metaslab_wait_ns": r.ms_wait_ns,
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

    /// A 2-disk 1 TB HDD mirror holding 1 GiB; `sdb` fails, `replace -s` to `sdc` at 1 s.
    fn mirror_replace(release: &str, workloads: Value) -> crate::sim::Run {
        use crate::config::RunConfig;
        let dev = serde_json::to_value(crate::device::presets::get("hdd-7200-sata-2014").unwrap()).unwrap();
        let cfg = json!({
            "name": "t", "seed": 1, "release": release, "hz": 100, "ram_bytes": 16u64 << 30,
            "stop_ns": 3600 * NS_PER_S, "report_interval_ns": NS_PER_S, "devices": {"d": dev},
            "pool": {"name": "tank", "ashift": 12, "recordsize_bytes": 131072, "allocated_bytes": 1u64 << 30,
                     "vdevs": [{"type": "mirror", "disks": [{"name": "sda", "device": "d"}, {"name": "sdb", "device": "d"}]}]},
            "workloads": workloads,
            "actions": [{"at_ns": 0, "do": "fail", "disk": "sdb"},
                        {"at_ns": NS_PER_S, "do": "replace", "old": "sdb", "new": "sdc", "sequential": true}]
        });
        crate::sim::Run::new(RunConfig::from_json(&cfg.to_string()).unwrap()).unwrap()
    }

    /// One wait of a rebuild thread: the metaslab, the txg waited for, the synced txg when it
    /// began and when it ended, and the chunks issued when it began and while it lasted.
    #[derive(Debug)]
    struct Wait {
        ms: u64,
        target: u64,
        synced: (u64, Option<u64>),
        chunks: (u64, u64),
    }

    /// Step `run` until the rebuild of top 0 has ended, noting every wait.
    fn waits_until_done(run: &mut crate::sim::Run) -> Vec<Wait> {
        let mut waits: Vec<Wait> = Vec::new();
        loop {
            assert!(!run.step_events(1), "the run ended first");
            let m = run.sim.model();
            let Some(r) = m.admin.rebuilds[0].as_ref() else { continue };
            let synced = m.txg.eng.synced_txg();
            let began = r.ms_waits > waits.len() as u64;
            let open = waits.last_mut().filter(|w| w.synced.1.is_none());
            if began {
                // A wait began this event (perhaps as the previous one ended).
                if let Some(w) = open {
                    w.synced.1 = Some(synced);
                }
                let target = r.wait_txg.expect("waiting");
                waits.push(Wait { ms: r.ms, target, synced: (synced, None), chunks: (r.chunks, r.chunks) });
            } else if let Some(w) = open {
                if r.wait_txg == Some(w.target) {
                    w.chunks.1 = r.chunks;
                } else {
                    w.synced.1 = Some(synced);
                }
            }
            if !r.active() {
                assert_eq!(r.ms_waits, waits.len() as u64);
                return waits;
            }
        }
    }

    /// zfs-2.0 waits for three txg syncs at every metaslab of the vdev, empty ones too, and
    /// issues no chunk meanwhile (RB@zfs-2.0.0 `vdev_rebuild_thread`; audit 5 F4).
    #[test]
    fn zfs_2_0_waits_for_three_txg_syncs_once_per_metaslab() {
        let mut run = mirror_replace("zfs-2.0", json!([]));
        let (shift, count) = run.sim.model().rebuild_metaslabs(0);
        // 1 TB less 4.5 MiB of labels: 200 × 5 GB → 8 GiB metaslabs, 116 whole ones.
        assert_eq!((shift, count), (33, 116));
        let waits = waits_until_done(&mut run);
        assert_eq!(waits.iter().map(|w| w.ms).collect::<Vec<_>>(), (0..116).collect::<Vec<_>>());
        for w in &waits {
            // txg_wait_synced(dsl, 0): the open txg (synced + 1 on an idle pool) + 2.
            assert_eq!(w.target, w.synced.0 + 3, "{w:?}");
            assert_eq!(w.synced.1, Some(w.target), "released when the target synced: {w:?}");
            assert_eq!(w.chunks.0, w.chunks.1, "nothing issued while waiting: {w:?}");
        }
    }

    /// 2.1+ waits only at a metaslab whose `ms_allocating[]` holds space; the space of
    /// runtime allocations is kept per txg until its `metaslab_sync`.
    #[test]
    fn zfs_2_1_waits_only_at_a_metaslab_with_unsynced_allocations() {
        let mut run = mirror_replace("zfs-2.1", json!([]));
        let (shift, _) = run.sim.model().rebuild_metaslabs(0);
        // An allocation in metaslab 3 that a txg far ahead made (it never syncs here).
        let far = 1 << 40;
        run.sim.model_mut().txg.ms_allocating[0].push((far, (3 << shift) + 4096, (3 << shift) + 8192));
        let waits = waits_until_done(&mut run);
        assert_eq!(waits.len(), 1, "{waits:?}");
        assert_eq!(waits[0].ms, 3);
        assert_eq!(waits[0].synced.1, Some(waits[0].target));
        let mut run = mirror_replace("zfs-2.1", json!([]));
        assert!(waits_until_done(&mut run).is_empty());
        // Under writes: each txg's allocations stay only until its sync's metaslab_sync.
        let w = json!([{"name": "w", "kind": "random-write", "sizes": [[131072, 1.0]], "rate_per_s": 400.0}]);
        let mut run = mirror_replace("zfs-2.1", w);
        let mut seen = 0;
        for _ in 0..200_000 {
            run.step_events(1);
            let m = run.sim.model();
            let pend = &m.txg.ms_allocating[0];
            let (synced, open) = (m.txg.eng.synced_txg(), m.txg.eng.open_txg());
            assert!(pend.iter().all(|e| e.0 > synced && e.0 <= open), "{pend:?} synced {synced}");
            assert!(pend.len() <= 2, "{pend:?}");
            seen += pend.len();
        }
        assert!(seen > 0);
    }

    /// A metaslab is copied as its space map stood when the thread loaded it
    /// (`vdev_rebuild_ranges` walks the tree `space_map_load` filled): space allocated in
    /// it afterwards reaches the new disk through the mirror's own writes, and the walk
    /// does not chase the allocator's cursor.
    #[test]
    fn space_allocated_after_a_metaslab_is_loaded_is_not_copied() {
        let mut run = mirror_replace("zfs-2.1", json!([]));
        loop {
            assert!(!run.step_events(1), "the rebuild ended before loading metaslab 0");
            let r = run.sim.model().admin.rebuilds[0].as_ref();
            if r.is_some_and(|r| r.ms == 0 && r.ms_loaded) {
                break;
            }
        }
        let m = run.sim.model_mut();
        let alloc = m.layout.alloc_bytes(0);
        // The allocator gives out 64 MiB of metaslab 0 after the load.
        assert_eq!(m.space.live[0].bytes(), 0);
        m.space.alloc(0, m.top_alloc_bytes[0], 64 << 20, 1, 1);
        while !run.step_events(1) {}
        let r = run.sim.model().admin.rebuilds[0].as_ref().unwrap();
        assert_eq!(r.state, RebuildState::Complete);
        assert_eq!(r.rebuilt, alloc, "only what the space map held at the load");
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

//! Pool administration while the model runs: `zpool replace`, `attach`, `detach`,
//! `offline`, `online`, a disk failing; the dirty time logs (DTLs) that say what each disk
//! misses; and the vdev tree `zpool status` prints.
//!
//! Theory of operation (OpenZFS `module/zfs/spa.c` `spa_vdev_attach`/`spa_vdev_detach`,
//! `vdev.c` `vdev_dtl_*`/`vdev_resilver_needed`/`vdev_offline`, `dsl_scan.c`
//! `dsl_scan_assess_vdev`, `lib/libzfs/libzfs_pool.c` `zpool_vdev_attach`/`_detach`,
//! read at zfs-2.1.0 and zfs-2.2.0; spec §5.0, §5.4, §5.6)
//! ---------------------------------------------------------------------------------
//! * **Txgs.** Pool txg numbers continue the layout's: the pool's contents were born in
//!   txgs 1 ..= `layout.last_txg()`, and the engine's txg `n` is pool txg `last + n`.
//! * **DTL.** Each leaf keeps DTL_MISSING as one inclusive range of txgs. A disk that
//!   cannot be written (failed, offline) gains every txg that syncs meanwhile (the write
//!   to it fails and `vdev_dtl_dirty` records the txg). A new disk (`replace`, `attach`)
//!   starts with `[TXG_INITIAL, dtl_max_txg]`, `dtl_max_txg` = `spa_vdev_enter`'s txg
//!   (last synced + 1) + TXG_CONCURRENT_STATES (`spa_vdev_attach`).
//!   `vdev_resilver_needed` spans the DTLs of *writeable* leaves; a block needs resilver
//!   I/O if a leaf of its top-level vdev (raidz: one holding a column of it, 0.7+) has a
//!   DTL containing its birth txg, writeable or not (the vdev's DTL_PARTIAL). A scan that
//!   completes excises every non-deferred writeable leaf's DTL up to the scan's max txg
//!   (`vdev_dtl_reassess`) — except, from illumos 3958 (il:b4952e17e8, 2013: illumos-2014,
//!   zfs-0.6.5 on), a disk a healing attach added (`vdev_resilver_txg`) whose DTL reaches
//!   past that max txg: it was attached after the scan began, keeps its whole DTL and is
//!   resilvered by the restart its attach scheduled (`vdev_dtl_should_excise`).
//!   solaris-2009, freebsd-9 and illumos-2012 predate the fix: there such a disk keeps
//!   only the txgs past the scan, and the restart copies just those — the partial
//!   resilver of illumos bug 3958.
//! * **Blocks written while running.** Each txg's writes are contiguous per top-level
//!   vdev, so they are kept as extents `(vdev, offset, asize, psize, birth)`, merged when
//!   adjacent and of one txg — a few per txg. Scans visit them after the layout's blocks;
//!   a sequential rebuild walks them after the layout's allocated ranges.
//! * **Tree changes.** `attach` to a disk makes its top-level vdev a mirror (`mirror-N`,
//!   N = its vdev id) and adds the child; `replace` puts a `replacing-C` vdev over child C;
//!   when the new disk's DTL is empty after a resilver or rebuild the old disk is detached
//!   (`spa_vdev_resilver_done`). `detach` removes a mirror or replacing child (a mirror of
//!   one child collapses into the disk); it fails with ZFS's text when the disk holds the
//!   only valid copy (`vdev_dtl_required`, EBUSY) or its parent is neither (ENOTSUP).
//! * **Resilver requests** (§5.6): an `attach`/`replace` (or a spare put in) schedules the
//!   resilver for the sync of `dtl_max_txg`, three txgs on (`scn_restart_txg`; the command
//!   waits for that txg, which counts as a txg waiter for the scan's pause rule), cancelling
//!   whatever scan runs then; a second attach before then moves the restart, so both disks
//!   share one resilver. 0.8+ instead defers a disk attached while a resilver scan runs
//!   (`vdev_defer_resilver`) — restarting instead with `zfs_resilver_disable_defer` or,
//!   2.3, below `zfs_resilver_defer_percent` of progress (`dsl_scan_sync`). solaris-2009
//!   reaches the same txg through `spa_scrub(spa, POOL_SCRUB_RESILVER)`, whose sync task
//!   cancels and restarts any scan. `online` asks for a resilver at the next txg
//!   (`dsl_resilver_restart(dp, 0)`), and follows `dsl_scan_assess_vdev`: nothing when the
//!   running resilver's range already covers the disk's DTL; ≤0.7 restarts, 0.8+ defers.
//! * Commands that ZFS would refuse at that moment are not errors of the scenario: they
//!   are logged in the results with the message `zpool` prints (`cannot detach sdb: no
//!   valid replicas`) and the run goes on, as a script would.
//!
//! * **Log and cache devices** (`aux_fail.rs` for what their loss does to the ZIL and the
//!   L2ARC): `fail`, `offline` and `online` act on them too. `vdev_offline` takes a log
//!   device whatever its redundancy from 6803605 (il:e6ca193ded, May 2009: "Log devices
//!   are always expendable", VD@zfs-0.6.5 … @zfs-2.3.0 `vdev_offline_locked`); before it
//!   (solaris-2009, il:379c004d1f) `vdev_dtl_required` refuses a log disk with no live
//!   mirror partner (EBUSY: `no valid replicas`). A cache device is an aux vdev
//!   (`vdev_aux` set): it can always be taken offline. A dead or offline log vdev makes
//!   the pool DEGRADED (`vdev_propagate_state`'s "Root special" for a top-level log
//!   device, il:379c004d1f … VD@zfs-2.3.0); a cache device is no child of the root and
//!   leaves the pool state alone.
//!
//! Simplifications: one DTL range per leaf (ZFS keeps a range tree); a disk that cannot be
//! written is never a resilver target (its repair writes would fail); a failed disk never
//! comes back (`online` prints ZFS's "remains in faulted state" warning); raidz expansion
//! (2.3 `attach` to raidz) is not modelled. A dRAID distributed spare (`draid.rs`) is a
//! hot spare whose leaf is virtual: `submit_leaf` sends its I/O to the child holding the
//! spare's share of the offset, and on down that child's own `spare-N`/`replacing-N` when
//! it failed in turn (`col_read_leaf`, `col_write_leaves`).

use crate::config::Action;
use crate::pool::VdevType;
use crate::release::Release;
use crate::scan::ScanFunc;
use crate::sim::{Ev, Model_};
use crate::status_log::{Snapshot, StatusRow};
use crate::tunables::T;
use serde_json::{json, Value};
use ziosim_engine::Ctx;

/// The leaves of one child of a top-level vdev (`Model_::child_leaves`).
pub(crate) type ChildLeaves = std::iter::Chain<std::iter::Once<u16>, std::option::IntoIter<u16>>;

/// First txg of the pool (`TXG_INITIAL`); a DTL starting here misses every block.
pub const TXG_INITIAL: u64 = 1;
/// `TXG_CONCURRENT_STATES`: a new disk's DTL reaches this far past the open txg.
const TXG_CONCURRENT_STATES: u64 = 3;

/// Blocks written by txgs while the model runs, on one top-level vdev.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    pub top: u16,
    pub offset: u64,
    /// Allocated bytes (Σ asize of its blocks).
    pub asize: u64,
    /// Each block's psize and asize (one record size per txg write).
    pub psize: u64,
    pub block_asize: u64,
    pub birth: u64,
}

/// State kept for administration: written extents, the action log, rebuilds.
pub struct Admin {
    pub extents: Vec<Extent>,
    /// Per top-level vdev: index in `extents` of its last extent.
    last_ext: Vec<Option<usize>>,
    /// What each action did: `{at_ns, do, command, error}`.
    pub log: Vec<Value>,
    /// Sequential rebuilds, one record per top-level vdev (the latest).
    pub rebuilds: Vec<Option<crate::rebuild::Rebuild>>,
    /// Finished rebuilds' summaries, in end order.
    pub rebuild_history: Vec<Value>,
    /// A resilver was requested while a rebuild ran (`spa_async_thread` waits for it).
    pub resilver_waiting: bool,
    /// Rebuild chunks in flight.
    pub rb: crate::rebuild::RbIos,
}

impl Admin {
    pub fn new(ntops: usize) -> Admin {
        Admin {
            extents: Vec::new(),
            last_ext: vec![None; ntops],
            log: Vec::new(),
            rebuilds: (0..ntops).map(|_| None).collect(),
            rebuild_history: Vec::new(),
            resilver_waiting: false,
            rb: Default::default(),
        }
    }

    /// A txg wrote a `psize` record taking `asize` at `offset` of top-level vdev `t`.
    pub fn note_write(&mut self, t: usize, offset: u64, asize: u64, psize: u64, birth: u64) {
        if let Some(i) = self.last_ext[t] {
            let e = &mut self.extents[i];
            if e.birth == birth && e.psize == psize && e.offset + e.asize == offset {
                e.asize += asize;
                return;
            }
        }
        self.extents.push(Extent { top: t as u16, offset, asize, psize, block_asize: asize, birth });
        self.last_ext[t] = Some(self.extents.len() - 1);
    }

}

/// Where a disk sits: top-level vdev, child index, and whether it is the new disk of a
/// `replacing` child.
#[derive(Clone, Copy, Debug)]
struct Place {
    t: usize,
    c: usize,
    new: bool,
}

/// A hot spare (`zpool add POOL spare DISK`): AVAIL until a `replace` (by the administrator,
/// or by zed's / FMA's retire agent when a disk fails) makes it the new disk of a `spare-N`
/// vdev over the failed one, INUSE from then on.
#[derive(Clone, Debug)]
pub struct Spare {
    pub name: String,
    pub device: String,
    /// The leaf standing in, while in use.
    pub leaf: Option<u16>,
    /// Made a permanent member (`zpool detach` of the disk it stood in for).
    pub gone: bool,
    /// A dRAID distributed spare: (its top-level vdev, spare id).
    pub draid: Option<(usize, u64)>,
}

/// The distributed spares of the pool's dRAID vdevs, after the hot spares as
/// `vdev_draid_spare_create` appends them: `draid<parity>-<vdev id>-<spare id>`.
pub fn draid_spares(cfg: &crate::config::RunConfig) -> Vec<Spare> {
    let mut out = Vec::new();
    for (t, v) in cfg.pool.vdevs.iter().enumerate() {
        if !v.kind.is_draid() {
            continue;
        }
        for s in 0..v.spares {
            out.push(Spare {
                name: draid_spare_name(v.kind.nparity(), t, s),
                device: v.disks[0].device.clone(),
                leaf: None,
                gone: false,
                draid: Some((t, s)),
            });
        }
    }
    out
}

/// `draid2-0-1`: spare 1 of top-level vdev 0, a draid2.
pub fn draid_spare_name(nparity: u32, t: usize, s: u64) -> String {
    format!("draid{nparity}-{t}-{s}")
}

/// A `spare-N` vdev: spare `si`'s leaf `spare` stands in for `orig` in top-level vdev `t`.
/// While `new` is None the spare sits in the child's `replacing` slot (the I/O paths treat
/// it as a mirror side, as `vdev_spare_ops` does). `zpool replace orig new` then makes the
/// spare the child's data disk and `new` its replacing disk — `spare-N` over `replacing-0`
/// (`orig`, `new`) and the spare — and when `new` is resilvered, `orig` and the spare are
/// detached and the spare is AVAIL again (`spa_vdev_resilver_done`).
#[derive(Clone, Copy, Debug)]
pub struct SpareLink {
    pub t: usize,
    pub si: usize,
    pub spare: u16,
    pub orig: u16,
    pub new: Option<u16>,
}

impl Model_ {
    /// The `spare-N` link of child `c` of top-level vdev `t`, if it is one.
    pub(crate) fn spare_link(&self, t: usize, c: usize) -> Option<SpareLink> {
        let (l, r) = (self.tops[t].leaves[c], self.replacing[t][c]);
        self.spare_links.iter().copied().find(|k| k.t == t && (Some(k.spare) == r || (k.spare == l && k.new.is_some())))
    }

    /// Does a retire agent put a spare in when a disk fails (`pool.spares.auto`, else the
    /// release's platform)?
    fn spares_activate(&self) -> bool {
        self.cfg.pool.spares_auto.unwrap_or(self.cfg.release.activates_spares())
    }

    /// Bytes a disk must hold to be a child of top-level vdev `t` (`vdev_open`'s check).
    fn child_size_bytes(&self, t: usize) -> u64 {
        let top = &self.tops[t];
        if let Some(d) = &top.draid {
            // vdev_draid_min_asize: the reflow reserve plus a 1/(C − S) share.
            return crate::draid::REFLOW_RESERVE + top.size_bytes.div_ceil(d.ndisks);
        }
        top.size_bytes / if top.kind.is_raidz() { top.leaves.len() as u64 } else { 1 }
    }

    /// A new disk to resilver in top-level vdev `t`: a runtime leaf missing every txg up to
    /// the open one's concurrent states (`spa_vdev_attach`).
    fn add_resilvering_leaf(&mut self, name: &str, device: &str, t: usize) -> u16 {
        let vname = self.tops[t].name.clone();
        let n = self.add_leaf_at_runtime(name, device, &vname);
        // spa_vdev_attach: DTL_MISSING = [TXG_INITIAL, dtl_max_txg), end excluded
        // (`vdev_dtl_dirty(newvd, DTL_MISSING, TXG_INITIAL, dtl_max_txg - TXG_INITIAL)`,
        // spa.c@zfs-0.7.0, @zfs-2.2.0); `dtl` is inclusive. The resilver is set up in
        // dtl_max_txg, so its scope ends before its setup txg, as a scrub's does.
        self.leaves[n as usize].dtl = Some((TXG_INITIAL, self.dtl_max_txg() - 1));
        self.refresh_dtl_cuts();
        self.leaves[n as usize].resilvering = true;
        n
    }

    /// zed's (0.7+, `zfs_retire`) or FMA's (Solaris, illumos) retire agent: a disk that
    /// failed is replaced by the first available spare large enough (`replace_with_spare`).
    fn spare_auto_activate(&mut self, disk: &str, ctx: &mut Ctx<Ev>) {
        if !self.spares_activate() {
            return;
        }
        let Some((_, p)) = self.find_disk(disk) else { return };
        if p.new || self.replacing[p.t][p.c].is_some() {
            return;
        }
        let need = self.child_size_bytes(p.t);
        // zfs_retire `replace_with_spare` tries the spares in order until one attaches; a
        // distributed spare attaches only to its own dRAID's children, and with a
        // sequential rebuild ("prefer sequential resilvering for distributed spares",
        // zfs_retire.c@zfs-2.1.0).
        let Some(si) = (0..self.spares.len()).find(|&i| {
            let sp = &self.spares[i];
            sp.leaf.is_none()
                && !sp.gone
                && match sp.draid {
                    Some((t, _)) => t == p.t,
                    None => self.cfg.devices[&sp.device].capacity_bytes() >= need,
                }
        }) else {
            return;
        };
        let name = self.spares[si].name.clone();
        let pool = self.cfg.pool.name.clone();
        let seq = self.spares[si].draid.is_some();
        let result = self.act_attach(disk, &name, None, seq, true, ctx);
        let (error, warning) = match result {
            Ok(w) => (None, w),
            Err(e) => (Some(e), None),
        };
        let s = if seq { "-s " } else { "" };
        self.admin.log.push(json!({"at_ns": ctx.now(), "command": format!("zpool replace {s}{pool} {disk} {name}"),
                                   "error": error, "warning": warning, "by": "retire agent"}));
    }

    /// The pool txg now open (the one a command's changes land in).
    pub(crate) fn open_txg(&self) -> u64 {
        self.layout.last_txg() + self.txg.sync_txg + 1
    }

    /// The txg `spa_vdev_enter` hands a vdev command: the last synced one + 1 (while a txg
    /// syncs, that one). `spa_vdev_attach` bases the new disk's DTL and the resilver's start
    /// on it (spa.c@zfs-0.7.13, @zfs-2.2.0).
    pub(crate) fn vdev_enter_txg(&self) -> u64 {
        self.layout.last_txg() + self.txg.sync_txg + u64::from(!self.txg.syncing)
    }

    /// `spa_vdev_attach`'s `dtl_max_txg`: where a new disk's DTL ends and its resilver starts.
    fn dtl_max_txg(&self) -> u64 {
        self.vdev_enter_txg() + TXG_CONCURRENT_STATES
    }

    /// spa_sync of engine txg `txg` starts: a disk that cannot be written misses it.
    pub(crate) fn dtl_note_sync(&mut self, txg: u64) {
        let ptxg = self.layout.last_txg() + txg;
        let mut changed = false;
        for t in 0..self.tops.len() {
            for c in 0..self.tops[t].leaves.len() {
                for l in self.child_leaves(t, c) {
                    let leaf = &mut self.leaves[l as usize];
                    if leaf.failed || leaf.offline {
                        let dtl = Some(match leaf.dtl {
                            Some((lo, hi)) => (lo, hi.max(ptxg)),
                            None => (ptxg, ptxg),
                        });
                        changed |= dtl != leaf.dtl;
                        leaf.dtl = dtl;
                    }
                }
            }
        }
        if changed {
            self.refresh_dtl_cuts();
        }
    }

    /// Recompute `dtl_cuts` after a DTL changed.
    pub(crate) fn refresh_dtl_cuts(&mut self) {
        let mut cuts = std::mem::take(&mut self.dtl_cuts);
        cuts.clear();
        for leaf in &self.leaves {
            if let Some((lo, hi)) = leaf.dtl {
                cuts.extend([lo, hi + 1]);
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        self.dtl_cuts = cuts;
    }

    /// Every leaf of top-level vdev `t`: its children and the new disks of replacing children.
    /// A copy, for callers that change leaves as they go; see `top_leaves_iter`.
    pub(crate) fn top_leaves(&self, t: usize) -> Vec<u16> {
        self.top_leaves_iter(t).collect()
    }

    /// `top_leaves` without the allocation, in the same order.
    pub(crate) fn top_leaves_iter(&self, t: usize) -> impl Iterator<Item = u16> + '_ {
        self.tops[t].leaves.iter().copied().chain(self.replacing[t].iter().flatten().copied())
    }

    /// The leaves of child `c` of top-level vdev `t`: the child, then the new disk of its
    /// `replacing` vdev if it has one. Holds no borrow of the model.
    #[inline]
    pub(crate) fn child_leaves(&self, t: usize, c: usize) -> ChildLeaves {
        std::iter::once(self.tops[t].leaves[c]).chain(self.replacing[t][c])
    }

    /// Does writeable leaf `l` miss a block born in `birth`? (The DTL first: most leaves
    /// have none, and the resilver asks for every leaf of every block it visits.)
    #[inline]
    pub(crate) fn leaf_misses(&self, l: u16, birth: u64) -> bool {
        let leaf = &self.leaves[l as usize];
        leaf.dtl.is_some_and(|(lo, hi)| lo <= birth && birth <= hi) && leaf.writeable()
    }

    /// Does a writeable leaf of child `c` of top-level vdev `t` (the child, or the new disk
    /// of its `replacing` vdev) miss a block born in `birth`? With `any`, a leaf that cannot
    /// be written counts too: the question a resilver asks of a block is the top-level
    /// vdev's DTL_PARTIAL, the union of its children's whether or not they can be written
    /// (`vdev_dtl_reassess`; `dsl_scan_need_resilver` DS@zfs-0.7.13, `vdev_default_need_
    /// resilver`/`vdev_raidz_need_resilver` VD@zfs-2.2.0) — a new disk that dies mid-
    /// resilver keeps the resilver reading, only its writes fail.
    #[inline]
    pub(crate) fn child_misses(&self, t: usize, c: usize, birth: u64, any: bool) -> bool {
        let miss = |l: u16| if any { self.leaf_dtl_holds(l, birth) } else { self.leaf_misses(l, birth) };
        miss(self.tops[t].leaves[c]) || self.replacing[t][c].is_some_and(miss)
    }

    /// Does leaf `l`'s DTL hold txg `birth`, whether or not it can be written?
    #[inline]
    pub(crate) fn leaf_dtl_holds(&self, l: u16, birth: u64) -> bool {
        self.leaves[l as usize].dtl.is_some_and(|(lo, hi)| lo <= birth && birth <= hi)
    }

    /// Does top-level vdev `t`'s DTL_PARTIAL hold txg `birth` (any leaf's DTL, writeable
    /// or not: `child_misses` with `any`)?
    pub(crate) fn top_misses(&self, t: usize, birth: u64) -> bool {
        self.top_leaves_iter(t).any(|l| self.leaf_dtl_holds(l, birth))
    }

    /// `vdev_resilver_needed` of the pool: (min, max) — blocks born in (min, max] — over the
    /// DTLs of writeable leaves, or None.
    pub(crate) fn resilver_needed(&self) -> Option<(u64, u64)> {
        self.resilver_needed_on((0..self.tops.len()).collect::<Vec<_>>().as_slice())
    }

    pub(crate) fn resilver_needed_on(&self, tops: &[usize]) -> Option<(u64, u64)> {
        let mut r: Option<(u64, u64)> = None;
        for &t in tops {
            for l in self.top_leaves_iter(t) {
                let leaf = &self.leaves[l as usize];
                if let (true, Some((lo, hi))) = (leaf.writeable(), leaf.dtl) {
                    r = Some(match r {
                        Some((a, b)) => (a.min(lo - 1), b.max(hi)),
                        None => (lo - 1, hi),
                    });
                }
            }
        }
        r
    }

    /// Excise DTLs up to `max_txg` on the given top-level vdevs (`vdev_dtl_reassess` after a
    /// completed scan or rebuild): writeable, non-deferred leaves only. After a scan
    /// (`by_scan`), from illumos 3958 (il:b4952e17e8, 2013; `vdev_dtl_should_excise`
    /// VD@zfs-0.6.5, VD@zfs-0.7.13, VD@zfs-2.2.0) a disk a healing attach added
    /// (`vdev_resilver_txg` ≠ 0) whose DTL reaches past the scan's max txg was attached
    /// after the scan began and keeps its whole DTL; earlier releases cut it at `max_txg`,
    /// so the restart its attach scheduled copies only the newest txgs to it.
    pub(crate) fn dtl_excise(&mut self, tops: &[usize], max_txg: u64, by_scan: bool) {
        let keep_late_attach = by_scan && self.cfg.release >= Release::Illumos2014;
        for &t in tops {
            for l in self.top_leaves(t) {
                let leaf = &mut self.leaves[l as usize];
                if !leaf.writeable() || leaf.deferred {
                    continue;
                }
                if let Some((lo, hi)) = leaf.dtl {
                    if keep_late_attach && leaf.resilver_txg != 0 && hi > max_txg {
                        continue;
                    }
                    leaf.dtl = if hi <= max_txg { None } else { Some((lo.max(max_txg + 1), hi)) };
                }
                if leaf.dtl.is_none() {
                    leaf.resilver_txg = 0;
                }
            }
        }
        self.refresh_dtl_cuts();
    }

    /// `spa_vdev_resilver_done`: replacing children whose new disk misses nothing lose
    /// their old disk.
    pub(crate) fn replacing_done(&mut self) {
        for t in 0..self.tops.len() {
            for c in 0..self.tops[t].leaves.len() {
                let Some(new) = self.replacing[t][c] else { continue };
                if self.leaves[new as usize].dtl.is_some() || !self.leaves[new as usize].writeable() {
                    continue;
                }
                if let Some(k) = self.spare_link(t, c) {
                    if k.new.is_none() {
                        // A spare that caught up stays in spare-N until a detach.
                        self.leaves[new as usize].resilvering = false;
                        continue;
                    }
                    // The disk that replaced the failed one is whole: the spare goes back.
                    self.spares[k.si].leaf = None;
                    self.spare_links.retain(|x| x.spare != k.spare);
                }
                let old = self.tops[t].leaves[c];
                self.leaves[old as usize].detached = true;
                self.leaves[new as usize].resilvering = false;
                self.tops[t].leaves[c] = new;
                self.replacing[t][c] = None;
            }
        }
    }

    fn find_disk(&self, name: &str) -> Option<(u16, Place)> {
        for t in 0..self.tops.len() {
            for c in 0..self.tops[t].leaves.len() {
                let l = self.tops[t].leaves[c];
                if self.leaves[l as usize].name == name && !self.leaves[l as usize].detached {
                    return Some((l, Place { t, c, new: false }));
                }
                if let Some(n) = self.replacing[t][c] {
                    if self.leaves[n as usize].name == name && !self.leaves[n as usize].detached {
                        return Some((n, Place { t, c, new: true }));
                    }
                }
            }
        }
        None
    }

    /// A log or cache leaf named `name`: (leaf, its log vdev if a log device).
    fn find_aux(&self, name: &str) -> Option<(u16, Option<usize>)> {
        if let Some(t) = self.log_tops.iter().position(|v| v.iter().any(|&l| self.leaves[l as usize].name == name)) {
            let l = *self.log_tops[t].iter().find(|&&l| self.leaves[l as usize].name == name).unwrap();
            return Some((l, Some(t)));
        }
        self.cache_leaves.iter().copied().find(|&l| self.leaves[l as usize].name == name).map(|l| (l, None))
    }

    /// `zpool offline` of log or cache leaf `l` (in log vdev `t`, if a log device).
    fn aux_offline(&mut self, disk: &str, l: u16, t: Option<usize>) -> Result<Option<String>, String> {
        if self.leaves[l as usize].offline || self.leaves[l as usize].failed {
            return Ok(None);
        }
        if let (Some(t), Release::Solaris2009) = (t, self.cfg.release) {
            // il:379c004d1f vdev_offline: vdev_dtl_required for a log disk as for any other.
            let partner = self.log_tops[t].iter().any(|&x| x != l && self.leaves[x as usize].writeable());
            if !partner {
                return Err(format!("cannot offline {disk}: no valid replicas"));
            }
        }
        self.leaves[l as usize].offline = true;
        Ok(None)
    }

    /// `vdev_dtl_required`: would the top-level vdev lose data without leaf `l`? A mirror
    /// needs one other child that holds data; raidz tolerates `nparity` children missing.
    fn dtl_required(&self, l: u16, p: Place) -> bool {
        let top = &self.tops[p.t];
        // Children that can still serve all old data once `l` is gone.
        let mut good = 0;
        let mut missing = 0;
        for c in 0..top.leaves.len() {
            let mut ok = false;
            for x in self.child_leaves(p.t, c) {
                if x != l && self.leaves[x as usize].holds_data() {
                    ok = true;
                }
            }
            if ok {
                good += 1;
            } else {
                missing += 1;
            }
        }
        match top.kind {
            VdevType::Disk | VdevType::Mirror => good == 0,
            k => missing > k.nparity() as usize,
        }
    }

    fn rename_top(&mut self, t: usize) {
        let name = if self.tops[t].kind == VdevType::Disk {
            self.leaves[self.tops[t].leaves[0] as usize].name.clone()
        } else {
            format!("{}-{}", self.tops[t].kind.label(), t)
        };
        self.tops[t].name = name.clone();
        for l in self.top_leaves(t) {
            self.leaves[l as usize].vdev_name = name.clone();
        }
    }

    fn healing_resilver_running(&self) -> bool {
        self.running_scan(Some(ScanFunc::Resilver)).is_some()
            || self.scan_pending == Some(ScanFunc::Resilver)
    }

    /// Carry out vdev action `idx` and log what `zpool` would have said.
    pub(crate) fn admin_action(&mut self, idx: usize, ctx: &mut Ctx<Ev>) {
        let a = self.cfg.actions[idx].clone();
        let pool = self.cfg.pool.name.clone();
        // The kernel refuses a pool-modifying command on a suspended pool (`set_state`:
        // online, offline), with zpool's words for it.
        let refused = |msg: String, set_state: bool| -> Option<Result<Option<String>, String>> {
            self.refused_while_suspended(set_state).then(|| Err(format!("{msg}: pool I/O is currently suspended")))
        };
        let (command, result) = match &a.action {
            Action::Fail { disk } => (format!("(disk {disk} stops answering)"), self.act_fail(disk)),
            Action::Replace { old, new, device, sequential } => (
                format!("zpool replace{} {pool} {old} {new}", if *sequential { " -s" } else { "" }),
                refused(format!("cannot replace {old} with {new}"), false)
                    .unwrap_or_else(|| self.act_attach(old, new, device.as_deref(), *sequential, true, ctx)),
            ),
            Action::Attach { disk, new, device, sequential } => (
                format!("zpool attach{} {pool} {disk} {new}", if *sequential { " -s" } else { "" }),
                refused(format!("cannot attach {new} to {disk}"), false)
                    .unwrap_or_else(|| self.act_attach(disk, new, device.as_deref(), *sequential, false, ctx)),
            ),
            Action::Detach { disk } => (
                format!("zpool detach {pool} {disk}"),
                refused(format!("cannot detach {disk}"), false).unwrap_or_else(|| self.act_detach(disk, ctx)),
            ),
            Action::Offline { disk } => (
                format!("zpool offline {pool} {disk}"),
                refused(format!("cannot offline {disk}"), true).unwrap_or_else(|| self.act_offline(disk)),
            ),
            Action::Online { disk } => (
                format!("zpool online {pool} {disk}"),
                refused(format!("cannot online {disk}"), true).unwrap_or_else(|| self.act_online(disk, ctx)),
            ),
            _ => return,
        };
        let (error, warning) = match result {
            Ok(w) => (None, w),
            Err(e) => (Some(e), None),
        };
        let failed = matches!(&a.action, Action::Fail { .. }) && error.is_none();
        if let (None, Action::Fail { disk } | Action::Offline { disk }) = (&error, &a.action) {
            if self.find_aux(disk).is_some_and(|(_, t)| t.is_some()) {
                self.aux.log_event(ctx.now());
            }
        }
        self.admin.log.push(json!({"at_ns": a.at_ns, "command": command, "error": error, "warning": warning}));
        if let (true, Action::Fail { disk }) = (failed, &a.action) {
            self.spare_auto_activate(disk, ctx);
        }
        self.redundancy_update(ctx.now());
    }

    fn act_fail(&mut self, disk: &str) -> Result<Option<String>, String> {
        let aux = self.find_aux(disk).map(|(l, _)| l);
        let l = match self.find_disk(disk) {
            Some((l, _)) => l,
            None => aux.ok_or_else(|| format!("no disk {disk} in the pool"))?,
        };
        self.leaves[l as usize].failed = true;
        Ok(None)
    }

    /// `zpool replace [-s]` (replacing) or `zpool attach [-s]`.
    fn act_attach(&mut self, old: &str, new: &str, device: Option<&str>, seq: bool, replacing: bool, ctx: &mut Ctx<Ev>) -> Result<Option<String>, String> {
        let msg = if replacing { format!("cannot replace {old} with {new}") } else { format!("cannot attach {new} to {old}") };
        let Some((l, p)) = self.find_disk(old) else { return Err(format!("{msg}: no such device in pool")) };
        if self.leaves.iter().any(|x| x.name == new && !x.detached) {
            return Err(format!("{msg}: {new} is busy, or device removal is in progress"));
        }
        let spare = self.spares.iter().position(|sp| sp.name == new && !sp.gone);
        if spare.is_some() && !replacing {
            return Err(format!("{msg}: device is reserved as a hot spare"));
        }
        if let Some((dt, _)) = spare.and_then(|si| self.spares[si].draid) {
            if dt != p.t {
                return Err(format!("{msg}: dRAID spares can only replace child devices in their parent's dRAID vdev"));
            }
        }
        // The failed disk under a spare-N is replaced: the spare serves its data while the
        // new disk is resilvered, then returns to the spares.
        if let (Some(k), false) = (self.spare_link(p.t, p.c).filter(|k| k.new.is_none() && k.orig == l), p.new) {
            if spare.is_some() || seq {
                return Err(format!("{msg}: already in replacing/spare config; wait for completion or use 'zpool detach'"));
            }
            if self.leaves[l as usize].writeable() {
                return Err(format!("{msg}: ziosim models replacing a disk a hot spare stands in for only once that disk has failed"));
            }
            let dev = device.map(str::to_string).unwrap_or_else(|| self.leaves[l as usize].device_name.clone());
            let n = self.add_resilvering_leaf(new, &dev, p.t);
            self.leaves[l as usize].detached = true;
            self.tops[p.t].leaves[p.c] = k.spare;
            self.replacing[p.t][p.c] = Some(n);
            if let Some(link) = self.spare_links.iter_mut().find(|x| x.spare == k.spare) {
                link.new = Some(n);
            }
            self.resilver_attach(n, ctx);
            return Ok(None);
        }
        let rel = self.cfg.release;
        if rel >= Release::Zfs20 {
            if seq && self.healing_resilver_running() {
                return Err(format!("{msg}: currently resilvering"));
            }
            if !seq && self.rebuild_active_any() {
                return Err(format!("{msg}: currently sequentially resilvering"));
            }
        }
        let kind = self.tops[p.t].kind;
        if let Some(why) = crate::config::raidz_refusal(kind, seq, replacing) {
            return Err(format!("{msg}: {why}"));
        }
        if replacing {
            if p.new || self.replacing[p.t][p.c].is_some() {
                return self.replace_in_replacing(old, new, device, seq, l, p, spare.is_some(), &msg, ctx);
            }
        } else if p.new || self.replacing[p.t][p.c].is_some() {
            return Err(format!("{msg}: can only attach to mirrors and top-level disks"));
        }
        let dev = match spare {
            Some(si) if self.spares[si].leaf.is_some() => return Err(format!("{msg}: {new} is busy, or device removal is in progress")),
            Some(si) => self.spares[si].device.clone(),
            None => device.map(str::to_string).unwrap_or_else(|| self.leaves[l as usize].device_name.clone()),
        };
        let draid_spare = spare.and_then(|si| self.spares[si].draid);
        // A distributed spare is as large as the vdev's children (`vdev_draid_spare_open`).
        if draid_spare.is_none() && self.cfg.devices[&dev].capacity_bytes() < self.child_size_bytes(p.t) {
            return Err(format!("{msg}: device is too small"));
        }
        let n = self.add_resilvering_leaf(new, &dev, p.t);
        self.leaves[n as usize].draid_spare = draid_spare.map(|(t, s)| (t as u16, s as u16));
        if let Some(si) = spare {
            self.spares[si].leaf = Some(n);
            self.spare_links.push(SpareLink { t: p.t, si, spare: n, orig: l, new: None });
        }
        if replacing {
            self.replacing[p.t][p.c] = Some(n);
        } else {
            self.tops[p.t].leaves.push(n);
            self.replacing[p.t].push(None);
            if kind == VdevType::Disk {
                self.tops[p.t].kind = VdevType::Mirror;
            }
            self.rename_top(p.t);
        }
        if seq {
            self.rebuild_start(p.t, ctx);
        } else {
            self.resilver_attach(n, ctx);
        }
        Ok(None)
    }

    /// `zpool replace` of a disk inside a `replacing-N` (either side). From pool version 26
    /// (`SPA_VERSION_MULTI_REPLACE`; every release but solaris-2009, whose libzfs says
    /// "cannot replace a replacing device") `spa_vdev_attach` adds the new disk as a further
    /// child; when it is resilvered, `spa_vdev_resilver_done_hunt` detaches the first child,
    /// then the next, down to the newest (spa.c@zfs-0.7.0, @zfs-2.2.0). The model reaches
    /// that end at once: the superseded new disk is detached now and the original replaced
    /// by the newest, so `zpool status` lists two children, not three, and the superseded
    /// disk's partial copy no longer counts meanwhile. A hot spare on either side keeps
    /// libzfs's refusal.
    #[allow(clippy::too_many_arguments)]
    fn replace_in_replacing(&mut self, old: &str, new: &str, device: Option<&str>, seq: bool, l: u16, p: Place, spare: bool, msg: &str, ctx: &mut Ctx<Ev>) -> Result<Option<String>, String> {
        if self.cfg.release == Release::Solaris2009 {
            return Err(format!("{msg}: cannot replace a replacing device"));
        }
        if spare || self.spare_link(p.t, p.c).is_some() {
            return Err(format!("{msg}: already in replacing/spare config; wait for completion or use 'zpool detach'"));
        }
        let dev = device.map(str::to_string).unwrap_or_else(|| self.leaves[l as usize].device_name.clone());
        if self.cfg.devices[&dev].capacity_bytes() < self.child_size_bytes(p.t) {
            return Err(format!("{msg}: device is too small"));
        }
        let superseded = self.leaves[self.replacing[p.t][p.c].unwrap() as usize].name.clone();
        let orig = self.leaves[self.tops[p.t].leaves[p.c] as usize].name.clone();
        debug_assert!(old == superseded || old == orig);
        self.act_detach(&superseded, ctx)?;
        self.act_attach(&orig, new, Some(&dev), seq, true, ctx)
    }

    fn act_detach(&mut self, disk: &str, ctx: &mut Ctx<Ev>) -> Result<Option<String>, String> {
        let msg = format!("cannot detach {disk}");
        let Some((l, p)) = self.find_disk(disk) else { return Err(format!("{msg}: no such device in pool")) };
        let in_replacing = p.new || self.replacing[p.t][p.c].is_some();
        if !in_replacing && self.tops[p.t].kind != VdevType::Mirror {
            return Err(format!("{msg}: only applicable to mirror and replacing vdevs"));
        }
        if self.dtl_required(l, p) {
            return Err(format!("{msg}: no valid replicas"));
        }
        self.leaves[l as usize].detached = true;
        self.leaves[l as usize].resilvering = false;
        if let Some(k) = self.spare_link(p.t, p.c) {
            self.spare_links.retain(|x| x.spare != k.spare);
            match (k.new, l == k.spare) {
                // The spare goes back to the spares (and with it spare-N).
                (_, true) => self.spares[k.si].leaf = None,
                // The failed disk goes: the spare becomes a permanent member.
                (None, false) => self.spares[k.si].gone = true,
                (Some(_), false) => {
                    // The new disk goes: back to the spare standing in for the failed one.
                    self.replacing[p.t][p.c] = Some(k.spare);
                    self.tops[p.t].leaves[p.c] = k.orig;
                    self.leaves[k.orig as usize].detached = false;
                    self.spare_links.push(SpareLink { new: None, ..k });
                    self.rename_top(p.t);
                    return Ok(None);
                }
            }
        }
        if p.new {
            // Cancels the replacement.
            self.replacing[p.t][p.c] = None;
        } else if let Some(n) = self.replacing[p.t][p.c].take() {
            // The original goes; the new disk takes its place (and keeps its DTL).
            self.tops[p.t].leaves[p.c] = n;
        } else {
            self.tops[p.t].leaves.remove(p.c);
            self.replacing[p.t].remove(p.c);
            if self.tops[p.t].leaves.len() == 1 {
                self.tops[p.t].kind = VdevType::Disk;
            }
        }
        self.rename_top(p.t);
        // A rebuild of this vdev with nothing left to rebuild is cancelled
        // (`vdev_rebuild_should_cancel`).
        if self.resilver_needed_on(&[p.t]).is_none() {
            self.rebuild_cancel(p.t, ctx);
        }
        Ok(None)
    }

    fn act_offline(&mut self, disk: &str) -> Result<Option<String>, String> {
        let msg = format!("cannot offline {disk}");
        if let (None, Some((l, t))) = (self.find_disk(disk), self.find_aux(disk)) {
            return self.aux_offline(disk, l, t);
        }
        let Some((l, p)) = self.find_disk(disk) else { return Err(format!("{msg}: no such device in pool")) };
        if self.leaves[l as usize].offline || self.leaves[l as usize].failed {
            return Ok(None);
        }
        if self.dtl_required(l, p) {
            return Err(format!("{msg}: no valid replicas"));
        }
        self.leaves[l as usize].offline = true;
        Ok(None)
    }

    fn act_online(&mut self, disk: &str, ctx: &mut Ctx<Ev>) -> Result<Option<String>, String> {
        let aux = self.find_aux(disk).map(|(l, _)| l);
        let Some(l) = self.find_disk(disk).map(|(l, _)| l).or(aux) else {
            return Err(format!("cannot online {disk}: no such device in pool"));
        };
        let leaf = &mut self.leaves[l as usize];
        if leaf.failed {
            return Ok(Some(format!(
                "warning: device '{disk}' onlined, but remains in faulted state\nuse 'zpool replace' to replace devices that are no longer present"
            )));
        }
        if !leaf.offline {
            return Ok(None);
        }
        leaf.offline = false;
        if leaf.role != crate::sim::LeafRole::Data {
            // A log or cache device: nothing to resilver here (see the module notes).
            return Ok(None);
        }
        if leaf.dtl.is_some() {
            self.resilver_need(l, ctx);
        }
        Ok(None)
    }

    /// `spa_vdev_attach` of new disk `n` for a healing resilver (replace, attach, a spare
    /// put in): the disk is marked with `spa_vdev_enter`'s txg (`vdev_resilver_txg`) and the
    /// command waits until `dtl_max_txg` = that txg + TXG_CONCURRENT_STATES has synced. 0.8+ defers
    /// the disk while a resilver scan runs; otherwise (and ≤0.7 always) the resilver is
    /// (re)started in the sync of `dtl_max_txg` (`dsl_resilver_restart(dp, dtl_max_txg)`,
    /// spa.c@zfs-0.7.13; `dsl_scan_restart_resilver`, spa.c@zfs-2.2.0), so a second attach
    /// before then moves the restart and joins that one resilver. solaris-2009 calls
    /// `spa_scrub(spa, POOL_SCRUB_RESILVER)` once `txg + 2` has synced: its sync task
    /// cancels any scan and starts the resilver over the recomputed DTLs a txg later
    /// (spa.c, dsl_scrub.c `dsl_pool_scrub_setup_sync` @il:379c004d1f) — the same txg.
    fn resilver_attach(&mut self, n: u16, ctx: &mut Ctx<Ev>) {
        let dtl_max_txg = self.dtl_max_txg();
        self.leaves[n as usize].resilver_txg = self.vdev_enter_txg();
        self.cmd_wait_txg = self.cmd_wait_txg.max(dtl_max_txg);
        if self.rebuild_active_any() {
            // spa_async_thread starts no resilver while a rebuild runs.
            self.admin.resilver_waiting = true;
            return;
        }
        if self.cfg.release >= Release::Zfs08 && self.running_scan(Some(ScanFunc::Resilver)).is_some() {
            self.leaves[n as usize].deferred = true;
            return;
        }
        self.scan_restart_at(ScanFunc::Resilver, dtl_max_txg, ctx);
    }

    /// A healing resilver is needed for leaf `l` (online of a stale disk): start one, or
    /// restart or defer the running one as the release does (§5.6).
    pub(crate) fn resilver_need(&mut self, l: u16, ctx: &mut Ctx<Ev>) {
        if self.rebuild_active_any() {
            // spa_async_thread starts no resilver while a rebuild runs.
            self.admin.resilver_waiting = true;
            return;
        }
        let running = self.running_scan(Some(ScanFunc::Resilver));
        match running {
            None => self.scan_request(ScanFunc::Resilver, ctx),
            Some(s) => {
                let covered = self.leaves[l as usize].dtl.is_some_and(|(_, hi)| hi <= s.max_txg);
                if covered && !self.leaves[l as usize].resilvering {
                    return; // dsl_scan_assess_vdev: the running resilver covers it
                }
                if self.cfg.release >= Release::Zfs08 {
                    self.leaves[l as usize].deferred = true;
                } else {
                    self.scan_restart(ctx);
                }
            }
        }
    }

    /// 0.8+ `dsl_scan_sync`: restart instead of waiting for a deferred resilver when
    /// `zfs_resilver_disable_defer` is set or (2.3) progress is under the defer percentage.
    pub(crate) fn resilver_restart_early(&self) -> bool {
        if !self.leaves.iter().any(|l| l.deferred) {
            return false;
        }
        let Some(s) = self.running_scan(None) else { return false };
        if self.tun.try_get(T::zfs_resilver_disable_defer).unwrap_or(0) != 0 {
            return true;
        }
        match self.tun.try_get(T::zfs_resilver_defer_percent) {
            Some(pct) => {
                let to_issue = s.to_examine.saturating_sub(s.skipped) as u128;
                (s.issued as u128) < to_issue * pct as u128 / 100
            }
            None => false,
        }
    }

    /// `scenario.stop = "scan-done"`: stop once no scan or rebuild runs or waits, and no
    /// later action can start one.
    pub(crate) fn stop_if_scans_done(&mut self, ctx: &mut Ctx<Ev>) {
        if !self.cfg.stop_on_scan_done {
            return;
        }
        let now = ctx.now();
        // Actions not carried out yet (those at this very instant included) that could
        // start or resume a scan.
        let spares_act = self.spares_activate()
            && self.spares.iter().any(|sp| sp.leaf.is_none() && !sp.gone);
        let later = self.cfg.actions[self.actions_done..].iter().any(|a| {
            matches!(
                a.action,
                Action::Scrub | Action::ResumeScrub | Action::Replace { .. } | Action::Attach { .. } | Action::Online { .. }
            ) || (spares_act && matches!(a.action, Action::Fail { .. }))
        });
        // A paused scrub that nothing will resume waits for ever: done, as far as the run goes.
        let scanning = self.running_scan(None).is_some_and(|s| s.paused_since_ns.is_none());
        if !later && !scanning && self.scan_pending.is_none() && !self.rebuild_active_any() && !self.admin.resilver_waiting {
            ctx.schedule_in(self.cfg.stop_after_scan_done_ns, Ev::Stop);
            self.scan_done_stop_ns.get_or_insert(now + self.cfg.stop_after_scan_done_ns);
        }
    }

    /// One `zpool status` snapshot: the vdev tree with states and notes, the scan
    /// statistics and the rebuild statistics of each top-level vdev that has them.
    pub(crate) fn status_snapshot(&self, now: u64) -> Snapshot {
        let row = |depth: u32, name: &str, state: &'static str, note: &str| StatusRow {
            depth,
            name: name.to_string(),
            state,
            note: note.to_string(),
            scan_processed: 0,
            resilver_deferred: false,
        };
        let scan = self.running_scan(None);
        // 2.2.0 (e9b12d4196, backported to 2.1.12; the zfs-2.1 key follows 2.1.0) prints the
        // scan and rebuild notes only for a healthy disk: a faulted one keeps its frozen stats.
        let healthy_only = self.cfg.release >= Release::Zfs22;
        let leaf_row = |d: u32, l: u16, t: usize| {
            let leaf = &self.leaves[l as usize];
            let (state, aux) = if leaf.failed {
                ("UNAVAIL", "cannot open")
            } else if leaf.offline {
                ("OFFLINE", "")
            } else {
                ("ONLINE", "")
            };
            // print_status_config: the aux note, then the scan note for leaves with repair
            // bytes (or deferred), then the rebuild note when the top-level vdev's rebuild
            // is active; each after two spaces.
            let mut notes = vec![aux];
            let shown = !healthy_only || state == "ONLINE";
            // solaris-2009 has no "(resilvering)": it prints the leaf's repair bytes,
            // "10.0G resilvered", during the scan and after it (the status printer formats
            // them from `scan_processed`; il:379c004d1f print_status_config).
            let noted = self.cfg.release != Release::Solaris2009;
            if let Some(s) = scan.filter(|_| shown && noted) {
                if leaf.scan_processed > 0 {
                    notes.push(if s.func == ScanFunc::Resilver { "(resilvering)" } else { "(repairing)" });
                } else if leaf.deferred {
                    notes.push("(awaiting resilver)");
                }
            }
            let rebuilding = self.admin.rebuilds[t].as_ref().is_some_and(|r| r.active());
            if rebuilding && leaf.rebuild_processed > 0 && shown {
                notes.push("(resilvering)");
            }
            notes.retain(|n| !n.is_empty());
            // vs_scan_processed and vs_resilver_deferred as `zpool status -j` prints them.
            StatusRow {
                scan_processed: leaf.scan_processed,
                resilver_deferred: leaf.deferred,
                ..row(d, &leaf.name, state, &notes.join("  "))
            }
        };
        let dead = |l: u16| !self.leaves[l as usize].writeable();
        let mut tops = Vec::new();
        let (mut pool_degraded, mut pool_dead) = (false, false);
        let mut special_from = None;
        for (t, top) in self.tops.iter().enumerate() {
            if top.special && special_from.is_none() {
                // After the pool's row (the tree's first).
                special_from = Some(1 + tops.len());
            }
            let mut children = Vec::new();
            // vdev_propagate_state: dead children (faulted) and degraded ones (a replacing
            // vdev with one side dead) both make the parent DEGRADED.
            let (mut ndead, mut ndegraded) = (0, 0);
            for c in 0..top.leaves.len() {
                let old = top.leaves[c];
                let link = self.spare_link(t, c);
                match (self.replacing[t][c], link.and_then(|k| k.new.map(|n| (k, n)))) {
                    (Some(_), Some((k, n))) => {
                        // spare-N over replacing-0 (the failed disk and its replacement)
                        // and the spare that serves meanwhile.
                        let rdead = dead(k.orig) && dead(n);
                        let sdead = rdead && dead(k.spare);
                        if sdead {
                            ndead += 1;
                        } else {
                            ndegraded += 1;
                        }
                        // vdev_mirror_state_change: every child gone is CANT_OPEN with
                        // VDEV_AUX_NO_REPLICAS, printed "insufficient replicas".
                        let (rstate, rnote) = if rdead { ("UNAVAIL", "insufficient replicas") } else { ("DEGRADED", "") };
                        let (sstate, snote) = if sdead { ("UNAVAIL", "insufficient replicas") } else { ("DEGRADED", "") };
                        children.push(row(2, &format!("spare-{c}"), sstate, snote));
                        children.push(row(3, "replacing-0", rstate, rnote));
                        children.push(leaf_row(4, k.orig, t));
                        children.push(leaf_row(4, n, t));
                        children.push(leaf_row(3, k.spare, t));
                    }
                    (Some(new), _) => {
                        let rdead = dead(old) && dead(new);
                        if rdead {
                            ndead += 1;
                        }
                        let rstate = if rdead { "UNAVAIL" } else if dead(old) || dead(new) { "DEGRADED" } else { "ONLINE" };
                        if rstate == "DEGRADED" {
                            ndegraded += 1;
                        }
                        let label = if link.is_some() { "spare" } else { "replacing" };
                        children.push(row(2, &format!("{label}-{c}"), rstate, if rdead { "insufficient replicas" } else { "" }));
                        children.push(leaf_row(3, old, t));
                        children.push(leaf_row(3, new, t));
                    }
                    (None, _) => {
                        if dead(old) {
                            ndead += 1;
                        }
                        children.push(leaf_row(2, old, t));
                    }
                }
            }
            let state = match top.kind {
                _ if ndead == 0 && ndegraded == 0 => "ONLINE",
                _ if ndead == 0 => "DEGRADED",
                VdevType::Disk => "UNAVAIL",
                VdevType::Mirror if ndead == top.leaves.len() => "UNAVAIL",
                k if k.is_raidz() && ndead > k.nparity() as usize => "UNAVAIL",
                _ => "DEGRADED",
            };
            if state != "ONLINE" {
                pool_degraded = true;
            }
            // A dead top-level vdev leaves the root without replicas: both print
            // CANT_OPEN / VDEV_AUX_NO_REPLICAS (print_status_config).
            pool_dead |= state == "UNAVAIL";
            let note = if state == "UNAVAIL" { "insufficient replicas" } else { "" };
            if top.kind == VdevType::Disk {
                // A single-disk top-level vdev is printed as the disk itself (or its
                // replacing vdev).
                for mut ch in children {
                    ch.depth -= 1;
                    tops.push(ch);
                }
            } else {
                tops.push(row(1, &top.name, state, note));
                tops.extend(children);
            }
        }
        let (logs, cache, log_degraded) = self.aux_status_rows();
        pool_degraded |= log_degraded;
        let pstate = if pool_dead { "UNAVAIL" } else if pool_degraded { "DEGRADED" } else { "ONLINE" };
        let mut rows = vec![row(0, &self.cfg.pool.name, pstate, if pool_dead { "insufficient replicas" } else { "" })];
        rows.extend(tops);
        let rebuild: Vec<Value> = (0..self.tops.len())
            .filter_map(|t| self.admin.rebuilds[t].as_ref().map(|r| self.rebuild_stats_json(t, r, now)))
            .collect();
        // print_spares: every spare not made a permanent member, INUSE while in a spare-N.
        let spares: Vec<Value> = self
            .spares
            .iter()
            .filter(|sp| !sp.gone)
            .map(|sp| json!({"name": sp.name, "state": if sp.leaf.is_some() { "INUSE" } else { "AVAIL" }}))
            .collect();
        Snapshot {
            t_ns: now,
            state: pstate,
            tree: rows,
            spares: Value::Array(spares),
            scan: self.scan_stats_json(),
            errors: self.lost_blocks.len(),
            rebuild: if rebuild.is_empty() { Value::Null } else { Value::Array(rebuild) },
            aux: self.aux.tracking().then_some((logs, cache)),
            // After a panic no zpool runs: the last snapshot shows the pool as it was.
            suspended: self.suspension.as_ref().filter(|s| s.failmode != crate::config::Failmode::Panic).map(|s| s.failmode.name()),
            special_from,
        }
    }

    /// The `logs` and `cache` rows of `zpool status` (log vdevs at depth 1, log mirror
    /// children at 2, cache devices at 1), and whether a log vdev makes the pool DEGRADED.
    fn aux_status_rows(&self) -> (Vec<StatusRow>, Vec<StatusRow>, bool) {
        let row = |depth: u32, name: &str, state: &'static str, note: &str| StatusRow {
            depth,
            name: name.to_string(),
            state,
            note: note.to_string(),
            scan_processed: 0,
            resilver_deferred: false,
        };
        let leaf_row = |depth: u32, l: u16| {
            let leaf = &self.leaves[l as usize];
            let (state, note) = if leaf.failed {
                ("UNAVAIL", "cannot open")
            } else if leaf.offline {
                ("OFFLINE", "")
            } else {
                ("ONLINE", "")
            };
            row(depth, &leaf.name, state, note)
        };
        let (mut logs, mut degraded) = (Vec::new(), false);
        for (t, leaves) in self.log_tops.iter().enumerate() {
            let dead = leaves.iter().filter(|&&l| !self.leaves[l as usize].writeable()).count();
            degraded |= dead > 0;
            let (name, kind) = &self.log_names[t];
            if *kind == VdevType::Disk {
                logs.push(leaf_row(1, leaves[0]));
                continue;
            }
            let (state, note) = match dead {
                0 => ("ONLINE", ""),
                d if d == leaves.len() => ("UNAVAIL", "insufficient replicas"),
                _ => ("DEGRADED", ""),
            };
            logs.push(row(1, name, state, note));
            logs.extend(leaves.iter().map(|&l| leaf_row(2, l)));
        }
        let cache = self.cache_leaves.iter().map(|&l| leaf_row(1, l)).collect();
        (logs, cache, degraded)
    }
}

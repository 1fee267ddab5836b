//! Log (SLOG) and cache (L2ARC) devices that fail or go offline while the model runs.
//!
//! Theory of operation
//! -------------------
//! What it decides: where a log block goes once a log device is gone, which log writes
//! failed, where an L2ARC hit is read from once its cache device is gone, and what the
//! results say about it. Inputs: the `fail`/`offline`/`online` actions `admin.rs` carries
//! out on log and cache leaves, and every completion of a leaf I/O on such a leaf.
//!
//! Rules, in order:
//! 1. *Allocation* (`metaslab_alloc_dva` skips a top-level vdev that is not
//!    `vdev_allocatable` — dead, or `vdev_cant_write`; il:379c004d1f `metaslab.c`,
//!    MS@zfs-2.2.0): a log block goes to the next log vdev in turn that still has a
//!    writeable child; a degraded log mirror writes its live children only. With no
//!    usable log vdev `metaslab_alloc` on the log class fails and `zio_alloc_zil` (il:
//!    `zio_alloc_blk` in 2009) allocates from the normal class: the block goes to the main
//!    pool, as without a SLOG. The ZIL is told nothing: `spa_has_slogs` still counts the
//!    log vdev's metaslab group (a `zpool offline` passivates it only while the log is
//!    reset, `vdev_offline_locked`, and activates it again), so the write states stay
//!    those of a pool with a SLOG (large O_DSYNC writes stay COPIED).
//! 2. *Failed writes*: a disk that fails stops answering; the lwb writes it had queued or
//!    in service come back with an error when they complete. An lwb write to a log vdev
//!    fails when every child it went to failed (`vdev_mirror_io_done`: a write succeeds
//!    with one good copy). The ZIL then does what its era does (`zil.rs`, "A log block
//!    write that fails"). Flushes of a dead device are skipped; their errors never
//!    mattered (`zio_flush` uses `ZIO_FLAG_DONT_PROPAGATE` in every era).
//! 3. *L2ARC*: `arc_read` reads the L2ARC only while the buffer's cache device is not
//!    `vdev_is_dead` (ARC@zfs-0.6.5 … @zfs-2.3.0, il:379c004d1f `arc.c`): a hit whose
//!    device failed or is offline is read from the pool instead (`l2arc_redirected`), and
//!    the device is fed no more (`l2arc_dev_get_next` skips dead devices, `l2feed.rs`).
//!    A read in flight on it when it fails comes back with an error and
//!    `l2arc_read_done` reissues it to the pool (`l2arc_read_errors`).
//!
//! Invariants: with no action on a log or cache device nothing here changes a decision,
//! a random draw or a result key (`tracking` is false, the rotor advances as before).
//!
//! Simplifications: ZFS allocates each lwb's block when the previous one is issued, so
//! the lwb after the failure instant goes to the dead device too; here the allocator
//! learns of the failure at once. `spa_reset_logs` (the ZIL suspended while `zpool
//! offline` of a log device runs) and a resilver of a log mirror child brought back
//! with `online` are not modelled; `online` of a cache device restores its hits at once
//! (the ARC's headers still point at it).

use crate::config::{Action, RunConfig};
use crate::io::{IoClass, LeafIo, Op};
use crate::sim::{Ev, LeafRole, Model_};
use crate::stats::FineHist;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use ziosim_engine::Ctx;

/// Tag of a ZIL `txg_wait_synced` waiter (`TxgAction::WaitDone`); the low bits are the
/// `zil_ios` slot. Rebuild waiters use `rebuild::OWNER_REBUILD` (bit 29) and below.
pub(crate) const ZIL_TXG_WAITER: u32 = 1 << 30;

/// State of log/cache device failures.
#[derive(Default)]
pub(crate) struct AuxState {
    /// An action names a log device / a cache device: the results carry their keys.
    log_actions: bool,
    cache_actions: bool,
    /// Per `zil_ios` slot: (children a SLOG lwb write went to, children that failed).
    slot_fail: Vec<(u32, u32)>,
    /// When a log device first failed or went offline.
    log_event_ns: Option<u64>,
    /// Commit latency before and after `log_event_ns`.
    commit_before: FineHist,
    commit_after: FineHist,
    /// Log blocks the allocator sent to the main pool for want of a usable log vdev.
    pub(crate) lwb_pool_writes: u64,
    /// Per workload: L2ARC hits read from the pool (device gone), and L2ARC reads that
    /// failed in flight and were read again from the pool.
    l2_redirected: Vec<u64>,
    l2_read_errors: Vec<u64>,
    /// L2ARC reads in flight, (op, cache offset) → record, while a cache device may fail.
    l2_inflight: BTreeMap<(u32, u64), u64>,
}

impl AuxState {
    pub(crate) fn new(cfg: &RunConfig, nwls: usize) -> AuxState {
        let log: Vec<&str> = cfg.pool.log.iter().flat_map(|v| v.disks.iter().map(|d| d.name.as_str())).collect();
        let cache: Vec<&str> = cfg.pool.cache.iter().map(|d| d.name.as_str()).collect();
        let named = |names: &[&str]| {
            cfg.actions.iter().any(|a| match &a.action {
                Action::Fail { disk } | Action::Offline { disk } | Action::Online { disk } => names.contains(&disk.as_str()),
                _ => false,
            })
        };
        AuxState {
            log_actions: named(&log),
            cache_actions: named(&cache),
            l2_redirected: vec![0; nwls],
            l2_read_errors: vec![0; nwls],
            ..Default::default()
        }
    }

    /// Completions on log and cache leaves need a look (some action may fail one).
    #[inline]
    pub(crate) fn tracking(&self) -> bool {
        self.log_actions || self.cache_actions
    }

    /// A `zil_ios` slot was (re)used: a SLOG write to `children` leaves, or 0.
    #[inline]
    pub(crate) fn set_slot(&mut self, slot: u32, children: u32) {
        if !self.log_actions {
            return;
        }
        let i = slot as usize;
        if self.slot_fail.len() <= i {
            self.slot_fail.resize(i + 1, (0, 0));
        }
        self.slot_fail[i] = (children, 0);
    }

    /// The slot's I/O is done: did its SLOG write fail on every child?
    #[inline]
    pub(crate) fn slot_failed(&self, slot: u32) -> bool {
        self.slot_fail.get(slot as usize).is_some_and(|&(n, f)| n > 0 && f >= n)
    }

    /// A commit ended after `lat_ns` (at `now`).
    #[inline]
    pub(crate) fn commit_done(&mut self, now: u64, lat_ns: u64) {
        if !self.log_actions {
            return;
        }
        match self.log_event_ns {
            Some(t) if now >= t => self.commit_after.add(lat_ns),
            _ => self.commit_before.add(lat_ns),
        }
    }

    /// Some log block went to the main pool for want of a usable log vdev.
    #[inline]
    pub(crate) fn slog_redirected(&self) -> bool {
        self.lwb_pool_writes > 0
    }

    /// A log device failed or went offline now.
    pub(crate) fn log_event(&mut self, now: u64) {
        self.log_event_ns.get_or_insert(now);
    }
}

impl Model_ {
    /// `metaslab_alloc` on the log class: the next log vdev in turn with a writeable
    /// child and room for `need` bytes beside the log blocks it holds, or None (no usable
    /// log vdev, or all full: the normal class takes the block, `zio_alloc_zil`).
    pub(crate) fn slog_pick(&mut self, need: u64) -> Option<usize> {
        let n = self.log_tops.len();
        for k in 0..n {
            let t = (self.zil_slog_rotor + k) % n;
            let room = self.zil.log_taken_bytes(t) + need <= self.log_top_size(t);
            if room && self.log_tops[t].iter().any(|&l| self.leaves[l as usize].writeable()) {
                self.zil_slog_rotor += k + 1;
                return Some(t);
            }
        }
        self.aux.lwb_pool_writes += 1;
        None
    }

    /// A leaf I/O on a log or cache leaf completed (only while `aux.tracking()`), before
    /// its owner hears of it: a write of a failed log leaf counts as failed; a read of a
    /// failed cache leaf is read again from the pool (`l2arc_read_done`).
    pub(crate) fn aux_io_done(&mut self, li: usize, io: &LeafIo, ctx: &mut Ctx<Ev>) {
        let (role, failed) = (self.leaves[li].role, self.leaves[li].failed);
        let tag = io.owner >> 29;
        if role == LeafRole::Log && failed && tag == 3 && io.op == Op::Write {
            let slot = (io.owner & ((1 << 29) - 1)) as usize;
            if let Some(e) = self.aux.slot_fail.get_mut(slot) {
                e.1 += 1;
            }
        }
        if role != LeafRole::Cache || io.op != Op::Read || tag != 0 {
            return;
        }
        let id = io.owner;
        let Some(b) = self.aux.l2_inflight.remove(&(id, io.offset)) else { return };
        if failed {
            let wl = self.ops[id as usize].wl as usize;
            self.aux.l2_read_errors[wl] += 1;
            // The caller then resolves the failed read; the pool reads keep the op waiting.
            // l2arc_read_done reissues a plain zio_read of the block (no prefetch).
            let n = self.read_block(b, IoClass::SyncRead, id, ctx);
            self.ops[id as usize].pending += n;
            if n == 0 {
                self.ops[id as usize].eio = true;
            }
        }
    }

    /// An L2ARC read of record `b` at cache offset `coff` for op `id` was issued.
    #[inline]
    pub(crate) fn l2_issued(&mut self, id: u32, coff: u64, b: u64) {
        if self.aux.cache_actions {
            self.aux.l2_inflight.insert((id, coff), b);
        }
    }

    /// An L2ARC hit of workload `wl` whose cache device is gone: read from the pool.
    #[inline]
    pub(crate) fn l2_redirect(&mut self, wl: usize) {
        self.aux.l2_redirected[wl] += 1;
    }

    /// `ZilAction::TxgWait`: `txg_wait_synced(dp, 0)`, then the ZIL hears of `token`.
    pub(crate) fn zil_txg_wait(&mut self, token: u32, ctx: &mut Ctx<Ev>) {
        let slot = self.zil_slot(token, 1);
        let mut out = Vec::new();
        if self.txg.eng.wait_synced(ctx.now(), None, ZIL_TXG_WAITER | slot, &mut out) {
            self.zil_io_done(slot, ctx);
        }
        self.txg_actions(out, ctx);
    }

    /// `zil.log_devices` of the results (only when an action names a log device).
    pub(crate) fn aux_zil_results(&self) -> Option<Value> {
        if !self.aux.log_actions {
            return None;
        }
        let z = self.zil.stats();
        let a = &self.aux;
        Some(json!({
            "event_ns": a.log_event_ns,
            "lwb_write_errors": z.lwb_write_errors,
            "commits_txg_fallback": z.commits_txg_fallback,
            "commits_unlogged": z.commits_unlogged,
            "lwb_pool_writes": a.lwb_pool_writes,
            "commit_latency_ns_before": serde_json::to_value(a.commit_before.pcts()).unwrap(),
            "commit_latency_ns_after": serde_json::to_value(a.commit_after.pcts()).unwrap(),
        }))
    }

    /// Per-workload L2ARC keys (only when an action names a cache device).
    pub(crate) fn aux_workload_results(&self, wl: usize, v: &mut Value) {
        if self.aux.cache_actions {
            v["l2arc_redirected"] = json!(self.aux.l2_redirected[wl]);
            v["l2arc_read_errors"] = json!(self.aux.l2_read_errors[wl]);
        }
    }

}

//! Transaction groups, dirty data and the write throttle, as a sans-IO state machine.
//!
//! Theory of operation
//! -------------------
//! Models `module/zfs/txg.c` (`txg_sync_thread`, `txg_kick`, `txg_wait_synced`,
//! `txg_delay`), `dmu_tx.c` (`dmu_tx_assign`, `dmu_tx_wait`, `dmu_tx_delay`) and
//! `dsl_pool.c` (`dsl_pool_need_dirty_delay`, `dsl_pool_dirty_space`,
//! `dsl_pool_tempreserve_space`, the old `dsl_pool_sync` write-limit update) at
//! illumos il:69962b5647 (2013), zfs-0.6.2 (pre-2013 throttle), zfs-0.7.13, zfs-0.8.0,
//! zfs-2.1.0, zfs-2.2.0 and zfs-2.3.0 (`spec/zfs-model.md` §4).
//!
//! It never touches the event queue or a device: the simulator calls it with `now_ns`
//! and it answers with a [`TxDecision`] or pushes [`TxgAction`]s into an output buffer.
//!
//! *Pipeline.* Up to three txgs live at once: **open** (accepting writes), **quiesced**
//! (closed, waiting for the sync thread) and **syncing** (its dirty data being written).
//! Quiescing is instantaneous here (no tx holds last across simulated time). The sync
//! thread (`txg_sync_thread`) starts the next sync when it is idle and any of:
//!   1. a scan is active (`dsl_scan_active`: back-to-back syncs, even empty ones);
//!   2. someone waits for a txg (`txg_wait_synced`, `tx_sync_txg_waiting`), incl. kicks;
//!   3. a quiesced txg is ready (pre-2013: a writer over the write limit forced it);
//!   4. 2013 → 2.1: pool-total dirty ≥ `zfs_dirty_data_sync` (≤ 0.7) or
//!      `zfs_dirty_data_sync_percent` of `zfs_dirty_data_max` (0.8–2.1), its wait-loop
//!      condition (removed in 2.2.0 by 50e09eddd0);
//!   5. `zfs_txg_timeout` has passed since the *start* of the previous sync.
//!
//! A txg that rule 5 alone would sync while it holds no dirty data is elided (ZFS writes
//! nothing for it either); the timer is re-armed as if it had synced instantly, and the
//! deferred frees move on by one txg (`TxgAction::Elided`).
//!
//! *Kick* (`txg_kick`): 2013 → 2.1, every `dmu_tx_assign` checks pool-total dirty against
//! the sync threshold (`zfs_dirty_data_sync` ≤ 0.7, `zfs_dirty_data_sync_percent` of
//! `zfs_dirty_data_max` from 0.8) and kicks only when no txg is syncing or quiesced.
//! 2.2+ (50e09eddd0) checks the *open txg's own* dirty bytes after they are added and
//! sets `tx_sync_txg_waiting` to it, so the sync thread takes it as soon as it is free.
//! `zfs-2.1` here is 2.1.0 (pool total); the 2.1.6 backport of the per-txg rule is not
//! a separate release key.
//!
//! *Throttle, 2013+* (`dmu_tx_delay`): when dirty > min = max × `zfs_delay_min_dirty_percent`
//! a tx is delayed; at dirty ≥ `zfs_dirty_data_max` it blocks until dirty < max, then is
//! delayed with the dirty level of that moment, still counted from its own `tx_start` (so a
//! tx that waited longer than the delay does not sleep). Blocked txs wake one at a time:
//! every change of dirty data (`dsl_pool_dirty_delta`, a sync write landing or a writer's
//! bytes added) signals one waiter while dirty < max, and the woken one re-checks with the
//! bytes of the writers woken before it already counted. A delayed tx is admitted without
//! further checks (`tx_dirty_delayed`).
//! ```text
//!   delay = scale·(dirty−min)/(max−dirty), capped at zfs_delay_max_ns (100 ms)
//!   2.2+: delay = max(delay, same curve on logged-write bytes vs zfs_wrlog_data_max)
//!   wakeup = max(tx_start + delay, last_wakeup + delay); last_wakeup = wakeup
//!   delay ▲                                               ┆
//!  100 ms┤                                          ______│ (cap)
//!        │                                        /       │
//!  scale ┤· · · · · · · · · · · · · · · · · · ·./        │
//!      0 ┼────────────────────────────·······            │
//!        0 %                       60 %      80 %       100 % dirty
//! ```
//! The `last_wakeup` rule serialises delayed writers: N writers at one dirty level are
//! spaced `delay` apart, so throughput is ~1/delay however many threads write.
//!
//! *Throttle, pre-2013* (`dsl_pool_tempreserve_space`): each txg admits at most
//! `write_limit` bytes — the bytes its writes dirtied (`dp_space_towrite`), not their
//! sizes; a tx that finds the open txg over it waits for the next txg to
//! open (`txg_wait_open`, which quiesces the open txg as soon as the quiesced slot is
//! free); over 7/8 of it a tx sleeps one clock tick while the previous txg still waits
//! for the sync thread (`txg_delay`). After each sync, throughput = bytes / ms of the
//! sync's data writes — `dsl_pool_sync` times only its own writes, not the scan's share of
//! the txg nor the uberblock (EWMA ¼ new) — and `write_limit = clamp(throughput × zfs_txg_synctime_ms,
//! zfs_write_limit_min, RAM >> zfs_write_limit_shift)`; it starts at the minimum. Before
//! that, and with `zfs_no_write_throttle` alone, `arc_tempreserve_space` refuses a tx the
//! same way once the dirty data not yet written is over `arc_c / 4` and the tx would take
//! it past `arc_c / 2` (`arc_c` at its maximum, MAX(¾ RAM, RAM − 1 GiB)).
//!
//! *Data at risk* (`spec` §4.3): every admitted byte (a write's own size, whatever it
//! dirtied) is *unsynced* until its txg's sync
//! completes; bytes a caller was told were durable without the ZIL making them so
//! (`sync=disabled`, `zil_disable`) are *at risk* from that moment until their txg
//! syncs ([`Txg::add_at_risk`], fed by the ZIL's `AtRisk` action). Both are integrated
//! over time (byte·ns) with their maxima, and the longest time any at-risk byte waited.
//!
//! Invariants: dirty ≥ 0 per txg; at most one quiesced and one syncing txg; txg numbers
//! increase by one per quiesce; a `Resume` is emitted exactly once per blocked tx.

use crate::release::Release;
use crate::tunables::{Tunables, T};
use std::collections::VecDeque;

pub type TxId = u32;
const NS_PER_S: u64 = 1_000_000_000;
const NS_PER_MS: u64 = 1_000_000;
/// `TXG_DEFER_SIZE`: `txg_wait_synced(dp, 0)` waits for open + 2 (TXG@zfs-2.2.0).
const TXG_DEFER_SIZE: u64 = 2;
/// `zfs_delay_max_ns` when the release has it as a constant (2.2+).
const DELAY_MAX_NS_CONST: u64 = 100_000_000;

/// Machine facts the txg model needs besides tunables.
#[derive(Clone, Copy, Debug)]
pub struct TxgConfig {
    /// Physical memory (pre-2013 write limit cap = RAM >> zfs_write_limit_shift).
    pub ram_bytes: u64,
    /// Clock tick rate; the pre-2013 `txg_delay` sleeps one tick.
    pub hz: u32,
}

/// What `assign` decided for a tx.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxDecision {
    /// Admitted: the bytes are now dirty data of `txg`.
    Admit { txg: u64 },
    /// Sleep, then call `assign(.., delayed = true)` at this time (ns).
    DelayUntil(u64),
    /// Blocked; a [`TxgAction::Resume`] for this tx will say when to retry.
    Wait,
}

/// Requests from the txg model to the simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxgAction {
    /// Write out txg's dirty data (spa_sync); report with `on_sync_progress`/`on_sync_done`.
    /// `overridden_bytes` of them were already written by `dmu_sync` (see `dmu_sync`): the
    /// sync writes only the rest, and undirties all.
    StartSync { txg: u64, dirty_bytes: u64, overridden_bytes: u64 },
    /// Call `on_timer` at this time. A later `Timer` supersedes earlier ones (stale calls
    /// are harmless).
    Timer { at_ns: u64 },
    /// A blocked tx may retry: call `assign(.., delayed = true)` at `at_ns`.
    Resume { tx_id: TxId, at_ns: u64 },
    /// Everything written in `txg` is on stable storage (forward to `Zil::on_txg_synced`).
    Synced { txg: u64 },
    /// A `wait_synced` caller is released.
    WaitDone { waiter: u32 },
    /// The timeout came with nothing dirty: ZFS syncs that txg without writing anything
    /// (`vdev_config_sync` returns early when the uberblock did not change), but its
    /// `metaslab_sync_done` still returns the frees of two txgs back to the allocator (a
    /// metaslab with deferred space dirties itself in the next txg, MS@zfs-2.2.0). The model
    /// gives that txg no number: forward to `RunSpace::idle_sync` and `Zil::on_idle_sync`.
    Elided,
}

/// Data-at-risk statistics (see module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RiskStats {
    /// Bytes promised durable but only made stable by a future txg sync, now.
    pub at_risk_bytes: u64,
    pub at_risk_bytes_max: u64,
    /// ∫ at-risk bytes dt, in byte·ns.
    pub at_risk_byte_ns: u128,
    /// Longest time from an at-risk promise to its txg's sync (ns).
    pub at_risk_window_ns_max: u64,
    /// Acknowledged (admitted) bytes whose txg has not synced, now.
    pub unsynced_bytes: u64,
    pub unsynced_bytes_max: u64,
    pub unsynced_byte_ns: u128,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Throttle {
    /// Pre-2013 per-txg write limit.
    WriteLimit,
    /// 2013+ dirty-data delay curve; `kick_per_txg` from 2.2, `wrlog` from 2.2.
    DelayCurve,
}

#[derive(Clone, Copy, Debug, Default)]
struct TxgState {
    txg: u64,
    /// Bytes not yet written out (dirty); bytes the txg's writes dirtied (`dp_space_towrite`,
    /// what the pre-2013 write limit counts); bytes acknowledged (unsynced until synced).
    dirty: u64,
    towrite: u64,
    acked: u64,
    wrlog: u64,
    /// Dirty bytes `dmu_sync` wrote in place (`DR_OVERRIDDEN`): the sync does not write them.
    overridden: u64,
    /// A sync task was queued in it (`dp_sync_tasks`): its sync is not elided when idle.
    sync_task: bool,
}

/// The transaction-group engine of one pool.
pub struct Txg {
    release: Release,
    cfg: TxgConfig,
    throttle: Throttle,
    timeout_ns: u64,
    tick_ns: u64,
    // 2013+ throttle
    dirty_max: u64,
    delay_min_bytes: u64,
    /// `zfs_delay_min_dirty_percent` itself: the wrlog threshold applies it to
    /// `zfs_wrlog_data_max` (a percent recomputed from `delay_min_bytes` rounds down).
    delay_min_pct: u64,
    delay_scale: u64,
    delay_max_ns: u64,
    wrlog_max: Option<u64>,
    /// 2.2+: logged bytes of one txg past which `dsl_pool_wrlog_count` kicks its sync,
    /// `zfs_wrlog_data_max` × (`zfs_dirty_data_sync_percent` + 10) / 200.
    wrlog_sync_min: u64,
    sync_threshold: u64,
    kick_per_txg: bool,
    dirty_sync_in_loop: bool,
    last_wakeup_ns: u64,
    // pre-2013 throttle
    write_limit: u64,
    /// The ARC's target size, for the pre-2013 `arc_tempreserve_space` bound.
    arc_c: u64,
    write_limit_min: u64,
    write_limit_max: u64,
    write_limit_override: u64,
    synctime_ms: u64,
    throughput_bytes_per_ms: u64,
    no_throttle: bool,
    // pipeline
    open: TxgState,
    quiesced: Option<TxgState>,
    syncing: Option<TxgState>,
    sync_start_ns: u64,
    /// When the syncing txg's last dirty byte was written (end of `dsl_pool_sync`'s writes).
    sync_data_done_ns: Option<u64>,
    last_sync_start_ns: u64,
    synced_txg: u64,
    sync_txg_waiting: u64,
    scan_active: bool,
    armed_timer_ns: u64,
    /// Txs blocked at dirty_data_max (2013+) or waiting for the next txg (pre-2013), with
    /// their `tx_start`.
    blocked: VecDeque<(TxId, u64)>,
    waiters: Vec<(u64, u32)>,
    // accounting
    risk: RiskStats,
    risk_last_ns: u64,
    /// (txg, bytes, first promise ns) of at-risk bytes, by txg.
    at_risk: VecDeque<(u64, u64, u64)>,
    syncs: u64,
}

impl Txg {
    pub fn new(release: Release, tun: &Tunables, cfg: TxgConfig) -> Txg {
        let throttle = if release >= Release::Illumos2014 { Throttle::DelayCurve } else { Throttle::WriteLimit };
        let g = |t| tun.try_get(t).unwrap_or(0).max(0) as u64;
        let dirty_max = tun.try_get(T::zfs_dirty_data_max).unwrap_or((cfg.ram_bytes / 10) as i64).max(1) as u64;
        let sync_threshold = match tun.try_get(T::zfs_dirty_data_sync_percent) {
            Some(p) => dirty_max * p as u64 / 100,
            None => tun.try_get(T::zfs_dirty_data_sync).unwrap_or(64 << 20) as u64,
        };
        let write_limit_min = g(T::zfs_write_limit_min);
        let delay_min_pct = tun.try_get(T::zfs_delay_min_dirty_percent).unwrap_or(60).max(0) as u64;
        let shift = tun.try_get(T::zfs_write_limit_shift).unwrap_or(3) as u32;
        Txg {
            release,
            cfg,
            throttle,
            timeout_ns: tun.get(T::zfs_txg_timeout) as u64 * NS_PER_S,
            tick_ns: NS_PER_S / cfg.hz.max(1) as u64,
            dirty_max,
            delay_min_bytes: dirty_max * delay_min_pct / 100,
            delay_min_pct,
            delay_scale: g(T::zfs_delay_scale),
            delay_max_ns: tun.try_get(T::zfs_delay_max_ns).map(|v| v as u64).unwrap_or(DELAY_MAX_NS_CONST),
            wrlog_max: tun.try_get(T::zfs_wrlog_data_max).map(|v| v as u64),
            wrlog_sync_min: tun.try_get(T::zfs_wrlog_data_max).map_or(u64::MAX, |m| {
                m as u64 * (tun.try_get(T::zfs_dirty_data_sync_percent).unwrap_or(20).max(0) as u64 + 10) / 200
            }),
            sync_threshold,
            kick_per_txg: release >= Release::Zfs22,
            // txg_sync_thread's wait loop tests dp_dirty_total against the sync threshold
            // (TXG@zfs-0.6.5..2.1.0; zfs_dirty_data_sync_percent from 0.8.0); gone in 2.2.0.
            dirty_sync_in_loop: (Release::Illumos2014..Release::Zfs22).contains(&release),
            last_wakeup_ns: 0,
            write_limit: write_limit_min,
            write_limit_min,
            write_limit_max: if shift >= 64 { 0 } else { cfg.ram_bytes >> shift }.max(write_limit_min),
            write_limit_override: g(T::zfs_write_limit_override),
            synctime_ms: g(T::zfs_txg_synctime_ms),
            throughput_bytes_per_ms: 0,
            no_throttle: g(T::zfs_no_write_throttle) != 0,
            // arc_c at its maximum, the illumos rule MAX(3/4 RAM, RAM − 1 GiB) (spec §7,
            // il:eb633035c8 arc.c `arc_init`; taken for solaris-2009 and FreeBSD 9 too).
            arc_c: (cfg.ram_bytes / 4 * 3).max(cfg.ram_bytes.saturating_sub(1 << 30)),
            open: TxgState { txg: 1, ..Default::default() },
            quiesced: None,
            syncing: None,
            sync_start_ns: 0,
            sync_data_done_ns: None,
            last_sync_start_ns: 0,
            synced_txg: 0,
            sync_txg_waiting: 0,
            scan_active: false,
            armed_timer_ns: u64::MAX,
            blocked: VecDeque::new(),
            waiters: Vec::new(),
            risk: RiskStats::default(),
            risk_last_ns: 0,
            at_risk: VecDeque::new(),
            syncs: 0,
        }
    }

    /// Arm the first timer. Call once at time 0.
    pub fn start(&mut self, now_ns: u64, out: &mut Vec<TxgAction>) {
        self.last_sync_start_ns = now_ns;
        self.poll(now_ns, out);
    }

    // ------------------------------------------------------------ admission

    /// `dmu_tx_assign(TXG_WAIT)` of a write of `bytes`. `start_ns` is when the tx was
    /// created (`tx_start`, the write's arrival); `delayed` is true on the retry after a
    /// `DelayUntil` or `Resume` (the tx was already throttled once).
    pub fn assign(
        &mut self,
        now_ns: u64,
        tx_id: TxId,
        bytes: u64,
        start_ns: u64,
        delayed: bool,
        out: &mut Vec<TxgAction>,
    ) -> TxDecision {
        self.assign_charged(now_ns, tx_id, bytes, |_| bytes, start_ns, delayed, out)
    }

    /// `assign` of a write of `bytes` (what the writer has acknowledged once admitted:
    /// data at risk until its txg syncs) that charges `dirty(txg)` bytes of dirty data when
    /// admitted to `txg`: the buffers it dirties first there (`dbuf_dirty`), none for a
    /// buffer already dirty in it. The charge is asked for only on admission, after any
    /// kick the assignment made has opened a new txg.
    #[allow(clippy::too_many_arguments)]
    pub fn assign_charged(
        &mut self,
        now_ns: u64,
        tx_id: TxId,
        bytes: u64,
        dirty: impl FnOnce(u64) -> u64,
        start_ns: u64,
        delayed: bool,
        out: &mut Vec<TxgAction>,
    ) -> TxDecision {
        match self.throttle {
            Throttle::DelayCurve => {
                if !delayed {
                    let total = self.dirty_total();
                    // dsl_pool_need_dirty_delay: the ≤ 2.1 kick lives here.
                    if !self.kick_per_txg && total > self.sync_threshold {
                        self.kick_idle(now_ns, out);
                    }
                    if total > self.delay_min_bytes || self.wrlog_over_min() {
                        if total >= self.dirty_max {
                            self.blocked.push_back((tx_id, start_ns));
                            return TxDecision::Wait;
                        }
                        if let Some(w) = self.delay_wakeup(now_ns, start_ns, total) {
                            return TxDecision::DelayUntil(w);
                        }
                    }
                }
            }
            Throttle::WriteLimit => {
                // arc_tempreserve_space, whatever the write limit says: ERESTART once the
                // reservation plus the ARC's anonymous (dirty, not yet written) data pass
                // arc_c / 2 while that data is over arc_c / 4 (ARC@zfs-0.6.2, il:7e0e2549bf
                // arc.c) — the only bound left with zfs_no_write_throttle.
                let anon = self.dirty_total();
                if anon > self.arc_c / 4 && anon + bytes > self.arc_c / 2 {
                    self.blocked.push_back((tx_id, start_ns));
                    self.request_quiesce(now_ns, out);
                    return TxDecision::Wait;
                }
                let limit = self.current_write_limit();
                let reserved = self.open.towrite;
                if !self.no_throttle && limit > 0 && reserved > 0 && reserved > limit {
                    // ERESTART → dmu_tx_wait → txg_wait_open(txg + 1).
                    self.blocked.push_back((tx_id, start_ns));
                    self.request_quiesce(now_ns, out);
                    return TxDecision::Wait;
                }
                if !delayed && !self.no_throttle && reserved > limit - (limit >> 3) && self.quiesced.is_some() {
                    // txg_delay(dp, txg, 1): the previous txg still waits for the sync thread.
                    return TxDecision::DelayUntil(now_ns + self.tick_ns);
                }
            }
        }
        let charge = dirty(self.open.txg);
        self.admit(now_ns, bytes, charge, out)
    }

    fn admit(&mut self, now_ns: u64, bytes: u64, dirty: u64, out: &mut Vec<TxgAction>) -> TxDecision {
        self.account(now_ns);
        self.open.dirty += dirty;
        // dbuf_dirty → dnode_willuse_space → dsl_pool_willuse_space: the pre-2013 limit's
        // dp_space_towrite[txg] counts what the write dirtied, not its size (DBUF@zfs-0.6.2).
        self.open.towrite += dirty;
        self.open.acked += bytes;
        self.risk.unsynced_bytes += bytes;
        self.risk.unsynced_bytes_max = self.risk.unsynced_bytes_max.max(self.risk.unsynced_bytes);
        let txg = self.open.txg;
        if self.kick_per_txg && self.open.dirty > self.sync_threshold {
            // dsl_pool_dirty_space → txg_kick(dp, txg) (2.2+): no idle condition.
            self.sync_txg_waiting = self.sync_txg_waiting.max(txg);
        }
        if self.throttle == Throttle::DelayCurve {
            // dsl_pool_dirty_delta signals a blocked writer on an increase too ("each thread
            // wakes the next waiter", DP@zfs-0.6.5..2.3.0).
            self.wake_blocked(now_ns, out);
        }
        self.poll(now_ns, out);
        TxDecision::Admit { txg }
    }

    /// `dmu_tx_delay` (TX@zfs-0.6.3..2.3.0): the wakeup time, or `None` for no sleep.
    fn delay_wakeup(&mut self, now_ns: u64, start_ns: u64, dirty: u64) -> Option<u64> {
        let mut t = self.delay_ns(dirty);
        if let Some(max) = self.wrlog_max {
            let wrlog = self.wrlog_total();
            // zfs_wrlog_data_max * zfs_delay_min_dirty_percent / 100 (TX@zfs-2.2.0 dmu_tx_delay).
            let wmin = max * self.delay_min_pct / 100;
            if wrlog >= max {
                t = self.delay_max_ns;
            } else if wrlog > wmin {
                t = t.max(curve(self.delay_scale, wrlog - wmin, max - wrlog));
            }
        }
        let t = t.min(self.delay_max_ns);
        if t == 0 || now_ns > start_ns + t {
            return None;
        }
        let wakeup = (start_ns + t).max(self.last_wakeup_ns + t);
        self.last_wakeup_ns = wakeup;
        Some(wakeup)
    }

    /// The delay curve alone at a dirty level (before the cap and serialisation), ns.
    pub fn delay_ns(&self, dirty: u64) -> u64 {
        if dirty <= self.delay_min_bytes {
            return 0;
        }
        if dirty >= self.dirty_max {
            return self.delay_max_ns;
        }
        curve(self.delay_scale, dirty - self.delay_min_bytes, self.dirty_max - dirty).min(self.delay_max_ns)
    }

    fn wrlog_over_min(&self) -> bool {
        // DP@zfs-2.2.0 dsl_pool_need_wrlog_delay.
        self.wrlog_max.is_some_and(|m| self.wrlog_total() > m * self.delay_min_pct / 100)
    }

    fn current_write_limit(&self) -> u64 {
        if self.write_limit_override > 0 {
            self.write_limit_override
        } else {
            self.write_limit
        }
    }

    /// Logged-write bytes of `txg` (`dsl_pool_wrlog_count`, 2.2+): call for every write the
    /// ZIL logs. Past `wrlog_sync_min` of them the txg's sync is kicked, as dirty data past
    /// `zfs_dirty_data_sync_percent` kicks it (DP@zfs-2.2.0 and @zfs-2.3.0: "a value
    /// slightly bigger than min dirty sync bytes"). No effect before 2.2.
    pub fn log_written(&mut self, now_ns: u64, txg: u64, bytes: u64, out: &mut Vec<TxgAction>) {
        if self.wrlog_max.is_none() {
            return;
        }
        let mut kick = false;
        for s in [Some(&mut self.open), self.quiesced.as_mut(), self.syncing.as_mut()].into_iter().flatten() {
            if s.txg == txg {
                s.wrlog += bytes;
                kick = s.wrlog > self.wrlog_sync_min;
            }
        }
        if kick && self.sync_txg_waiting < txg {
            // txg_kick(dp, txg).
            self.sync_txg_waiting = txg;
            self.poll(now_ns, out);
        }
    }

    /// `dmu_sync` is writing `bytes` of `txg`'s dirty data in place. While `txg` is open or
    /// quiescing the dirty records take the block (`DR_OVERRIDDEN`; `dbuf_write` then
    /// issues no data I/O for them): true. Once it is syncing the sync writes its own copy
    /// and `dmu_sync_late_arrival` a second one: false. (DMU@zfs-0.6.5 `dmu_sync`; before
    /// PSARC 2009/571 (b24ab67627) a syncing block was waited for instead, which this
    /// treats like the late arrival.)
    pub fn dmu_sync(&mut self, txg: u64, bytes: u64) -> bool {
        for s in [Some(&mut self.open), self.quiesced.as_mut()].into_iter().flatten() {
            if s.txg == txg {
                s.overridden = (s.overridden + bytes).min(s.dirty);
                return true;
            }
        }
        false
    }

    /// A `set` action changed the tunables: take the new timeout, dirty-data and throttle
    /// parameters (ZFS reads them where it uses them); the pipeline's state stays.
    pub fn retune(&mut self, tun: &Tunables) {
        let f = Txg::new(self.release, tun, self.cfg);
        self.timeout_ns = f.timeout_ns;
        self.dirty_max = f.dirty_max;
        self.delay_min_bytes = f.delay_min_bytes;
        self.delay_min_pct = f.delay_min_pct;
        self.delay_scale = f.delay_scale;
        self.delay_max_ns = f.delay_max_ns;
        self.wrlog_max = f.wrlog_max;
        self.wrlog_sync_min = f.wrlog_sync_min;
        self.sync_threshold = f.sync_threshold;
        self.write_limit_min = f.write_limit_min;
        self.write_limit_max = f.write_limit_max;
        self.write_limit_override = f.write_limit_override;
        self.synctime_ms = f.synctime_ms;
        self.no_throttle = f.no_throttle;
    }

    // ------------------------------------------------------------ pipeline

    /// Scan (scrub/resilver) active: the sync thread then syncs back to back.
    pub fn set_scan_active(&mut self, now_ns: u64, active: bool, out: &mut Vec<TxgAction>) {
        self.scan_active = active;
        self.poll(now_ns, out);
    }

    /// `txg_wait_synced(dp, txg)`; `None` = 0 = "everything so far" (open + TXG_DEFER_SIZE).
    /// Returns true if already satisfied (no `WaitDone` follows).
    pub fn wait_synced(&mut self, now_ns: u64, txg: Option<u64>, waiter: u32, out: &mut Vec<TxgAction>) -> bool {
        let target = txg.unwrap_or(self.open.txg + TXG_DEFER_SIZE);
        if target <= self.synced_txg {
            return true;
        }
        self.sync_txg_waiting = self.sync_txg_waiting.max(target);
        self.waiters.push((target, waiter));
        self.poll(now_ns, out);
        false
    }

    /// `dsl_sync_task_nowait` in the open txg (no data): it does not hurry the sync, but
    /// the txg is no longer empty, so its sync at the timeout runs. Returns the txg.
    pub fn sync_task(&mut self) -> u64 {
        self.open.sync_task = true;
        self.open.txg
    }

    /// Timer fired (stale timers are harmless).
    pub fn on_timer(&mut self, now_ns: u64, out: &mut Vec<TxgAction>) {
        if self.armed_timer_ns <= now_ns {
            self.armed_timer_ns = u64::MAX;
        }
        self.poll(now_ns, out);
    }

    /// `bytes` of the syncing txg's dirty data reached disk (`dsl_pool_undirty_space`):
    /// lowers dirty data (async-write concurrency, throttle) and may unblock writers.
    pub fn on_sync_progress(&mut self, now_ns: u64, bytes: u64, out: &mut Vec<TxgAction>) {
        if let Some(s) = self.syncing.as_mut() {
            s.dirty -= bytes.min(s.dirty);
            if s.dirty == 0 && self.sync_data_done_ns.is_none() {
                self.sync_data_done_ns = Some(now_ns);
            }
        }
        self.wake_blocked(now_ns, out);
    }

    /// The sync of `txg` finished (uberblock written): its data is stable.
    pub fn on_sync_done(&mut self, now_ns: u64, txg: u64, out: &mut Vec<TxgAction>) {
        let s = self.syncing.take().expect("on_sync_done without a sync");
        assert_eq!(s.txg, txg, "sync done for a txg that is not syncing");
        self.account(now_ns);
        self.risk.unsynced_bytes -= s.acked;
        while let Some(&(t, b, first)) = self.at_risk.front() {
            if t > txg {
                break;
            }
            self.at_risk.pop_front();
            self.risk.at_risk_bytes -= b;
            self.risk.at_risk_window_ns_max = self.risk.at_risk_window_ns_max.max(now_ns - first);
        }
        if self.throttle == Throttle::WriteLimit {
            // dsl_pool_sync's write_time spans its dataset, dir and MOS writes only: the scan
            // (dsl_scan_sync, after it in spa_sync; 2009: dsl_pool_scrub_sync between the timed
            // parts) and vdev_config_sync are outside (dsl_pool.c@il:4445fffbbb, @il:379c004d1f).
            let data_done_ns = self.sync_data_done_ns.unwrap_or(now_ns);
            self.update_write_limit(s.towrite, data_done_ns - self.sync_start_ns);
        }
        self.sync_data_done_ns = None;
        self.synced_txg = txg;
        out.push(TxgAction::Synced { txg });
        let mut i = 0;
        while i < self.waiters.len() {
            if self.waiters[i].0 <= txg {
                out.push(TxgAction::WaitDone { waiter: self.waiters.remove(i).1 });
            } else {
                i += 1;
            }
        }
        self.wake_blocked(now_ns, out);
        self.poll(now_ns, out);
    }

    /// Old `dsl_pool_sync` (DP@zfs-0.6.2): smoothed throughput sets the next write limit.
    fn update_write_limit(&mut self, written: u64, sync_ns: u64) {
        let write_ms = sync_ns / NS_PER_MS;
        if written > self.write_limit_min / 8 && write_ms > 1 {
            let thr = written / write_ms;
            self.throughput_bytes_per_ms =
                if self.throughput_bytes_per_ms == 0 { thr } else { thr / 4 + 3 * self.throughput_bytes_per_ms / 4 };
            self.write_limit =
                (self.throughput_bytes_per_ms * self.synctime_ms).max(self.write_limit_min).min(self.write_limit_max);
        }
    }

    /// ≤ 2.1 `txg_kick`: quiesce the open txg only if nothing is syncing or quiesced. It
    /// raises `tx_quiesce_txg_waiting`, not `tx_sync_txg_waiting` (TXG@zfs-2.1.0 txg_kick),
    /// so the kicked txg's sync does not count as waited for in [`Txg::sync_waiting`].
    fn kick_idle(&mut self, now_ns: u64, out: &mut Vec<TxgAction>) {
        if self.syncing.is_none() && self.quiesced.is_none() && !self.open_empty() {
            self.quiesce();
            self.poll(now_ns, out);
        }
    }

    /// `txg_wait_open(txg + 1)` (pre-2013 over-limit writers): quiesce the open txg if
    /// the quiesced slot is free; blocked writers retry in the new open txg.
    fn request_quiesce(&mut self, now_ns: u64, out: &mut Vec<TxgAction>) {
        if self.quiesced.is_none() {
            self.quiesce();
            self.wake_blocked(now_ns, out);
            self.poll(now_ns, out);
        }
    }

    fn quiesce(&mut self) {
        let next = TxgState { txg: self.open.txg + 1, ..Default::default() };
        self.quiesced = Some(std::mem::replace(&mut self.open, next));
    }

    /// Release blocked txs whose condition cleared, in FIFO order. 2013+: one per call, each
    /// call being one change of dirty data.
    fn wake_blocked(&mut self, now_ns: u64, out: &mut Vec<TxgAction>) {
        match self.throttle {
            Throttle::DelayCurve => {
                // dsl_pool_dirty_delta: cv_signal (one waiter) while dp_dirty_total < max; the
                // waiter leaves dmu_tx_wait and calls dmu_tx_delay with its own tx_start, which
                // does not sleep (nor move dp_last_wakeup) once tx_start + delay has passed
                // (TX/DP@zfs-0.6.5..2.3.0 dmu_tx_wait, dmu_tx_delay, dsl_pool_dirty_delta; il:73527f441c).
                let total = self.dirty_total();
                if total < self.dirty_max {
                    if let Some((tx_id, start_ns)) = self.blocked.pop_front() {
                        let at_ns = self.delay_wakeup(now_ns, start_ns, total).unwrap_or(now_ns);
                        out.push(TxgAction::Resume { tx_id, at_ns });
                    }
                }
            }
            Throttle::WriteLimit => {
                // Woken when a new txg opens (the limit is per txg).
                if self.open_empty() {
                    while let Some((tx_id, _)) = self.blocked.pop_front() {
                        out.push(TxgAction::Resume { tx_id, at_ns: now_ns });
                    }
                }
            }
        }
    }

    /// The sync thread's decision (see module doc, rules 1–5).
    fn poll(&mut self, now_ns: u64, out: &mut Vec<TxgAction>) {
        if self.syncing.is_some() {
            return;
        }
        let due_ns = self.last_sync_start_ns + self.timeout_ns;
        let forced = self.scan_active
            || self.sync_txg_waiting > self.synced_txg
            || self.quiesced.is_some()
            || (self.dirty_sync_in_loop && self.dirty_total() >= self.sync_threshold);
        if !forced && now_ns < due_ns {
            self.arm(due_ns, out);
            return;
        }
        if !forced && self.open_empty() {
            // Timeout with nothing to write: elided (see module doc).
            self.last_sync_start_ns = now_ns;
            out.push(TxgAction::Elided);
            self.arm(now_ns + self.timeout_ns, out);
            return;
        }
        if self.quiesced.is_none() {
            self.quiesce();
        }
        let s = self.quiesced.take().expect("quiesced txg");
        self.sync_start_ns = now_ns;
        // Nothing to write (all of it written by dmu_sync, or empty): the data part is over.
        self.sync_data_done_ns = (s.dirty <= s.overridden).then_some(now_ns);
        self.last_sync_start_ns = now_ns;
        self.syncs += 1;
        out.push(TxgAction::StartSync { txg: s.txg, dirty_bytes: s.dirty, overridden_bytes: s.overridden });
        self.syncing = Some(s);
        // Pre-2013: the quiesced slot is free again; writers waiting for a new txg.
        if self.throttle == Throttle::WriteLimit && !self.blocked.is_empty() {
            self.quiesce();
            self.wake_blocked(now_ns, out);
        }
    }

    fn arm(&mut self, at_ns: u64, out: &mut Vec<TxgAction>) {
        if self.armed_timer_ns != at_ns {
            self.armed_timer_ns = at_ns;
            out.push(TxgAction::Timer { at_ns });
        }
    }

    // ------------------------------------------------------------ accounting

    /// Bytes the caller acknowledged as durable that only txg `txg`'s sync will make
    /// stable (forwarded `ZilAction::AtRisk`). Ignored if `txg` already synced. A txg's
    /// at-risk bytes never exceed the dirty data its writes charged (`dp_space_towrite`):
    /// what a crash loses is the txg's dirty records (spec §4.3), however often they were
    /// rewritten and acknowledged.
    pub fn add_at_risk(&mut self, now_ns: u64, txg: u64, bytes: u64) {
        if txg <= self.synced_txg || bytes == 0 {
            return;
        }
        let cap = [Some(self.open), self.quiesced, self.syncing].into_iter().flatten().find(|s| s.txg == txg).map_or(u64::MAX, |s| s.towrite);
        self.account(now_ns);
        let bytes = match self.at_risk.iter_mut().find(|e| e.0 == txg) {
            Some(e) => {
                let add = bytes.min(cap.saturating_sub(e.1));
                e.1 += add;
                add
            }
            None if bytes.min(cap) == 0 => 0,
            None => {
                let add = bytes.min(cap);
                let pos = self.at_risk.iter().position(|e| e.0 > txg).unwrap_or(self.at_risk.len());
                self.at_risk.insert(pos, (txg, add, now_ns));
                add
            }
        };
        self.risk.at_risk_bytes += bytes;
        self.risk.at_risk_bytes_max = self.risk.at_risk_bytes_max.max(self.risk.at_risk_bytes);
    }

    fn account(&mut self, now_ns: u64) {
        let dt = now_ns.saturating_sub(self.risk_last_ns) as u128;
        self.risk.at_risk_byte_ns += self.risk.at_risk_bytes as u128 * dt;
        self.risk.unsynced_byte_ns += self.risk.unsynced_bytes as u128 * dt;
        self.risk_last_ns = self.risk_last_ns.max(now_ns);
    }

    /// Data-at-risk statistics integrated up to `now_ns`.
    pub fn risk(&mut self, now_ns: u64) -> RiskStats {
        self.account(now_ns);
        let mut r = self.risk;
        // Bytes still at risk count toward the window with their age so far.
        if let Some(&(_, _, first)) = self.at_risk.front() {
            r.at_risk_window_ns_max = r.at_risk_window_ns_max.max(now_ns - first);
        }
        r
    }

    /// Dirty bytes of all txgs (`dp_dirty_total`): drives async-write concurrency.
    pub fn dirty_bytes(&self) -> u64 {
        self.dirty_total()
    }

    /// Nothing was admitted to the open txg yet.
    fn open_empty(&self) -> bool {
        self.open.towrite == 0 && self.open.acked == 0 && !self.open.sync_task
    }

    fn dirty_total(&self) -> u64 {
        self.open.dirty + self.quiesced.map_or(0, |s| s.dirty) + self.syncing.map_or(0, |s| s.dirty)
    }

    fn wrlog_total(&self) -> u64 {
        self.open.wrlog + self.quiesced.map_or(0, |s| s.wrlog) + self.syncing.map_or(0, |s| s.wrlog)
    }

    pub fn dirty_max_bytes(&self) -> u64 {
        self.dirty_max
    }
    pub fn open_txg(&self) -> u64 {
        self.open.txg
    }
    pub fn synced_txg(&self) -> u64 {
        self.synced_txg
    }
    pub fn syncing_txg(&self) -> Option<u64> {
        self.syncing.map(|s| s.txg)
    }
    /// Syncs started so far.
    pub fn syncs(&self) -> u64 {
        self.syncs
    }
    /// `txg_sync_waiting` (TXG@il:379c004d1f..zfs-2.3.0): the syncing txg or a later one is
    /// waited for (`tx_sync_txg_waiting`: `txg_wait_synced`, and from 2.2 the per-txg dirty
    /// kick, which names the open txg), or a txg is quiesced (pre-2013: a writer over the
    /// write limit forced it with `txg_wait_open`). The scan's pause test reads it during a
    /// sync; like ZFS's it is true when nothing syncs (`tx_syncing_txg` = 0).
    pub fn sync_waiting(&self) -> bool {
        self.syncing.map_or(0, |s| s.txg) <= self.sync_txg_waiting || self.quiesced.is_some()
    }
    /// Pre-2013 per-txg write limit in force (bytes).
    pub fn write_limit_bytes(&self) -> u64 {
        self.current_write_limit()
    }
    /// The release throttles by the pre-2013 per-txg write limit, not by
    /// `zfs_dirty_data_max` (which it does not have).
    pub fn uses_write_limit(&self) -> bool {
        matches!(self.throttle, Throttle::WriteLimit)
    }
    pub fn release(&self) -> Release {
        self.release
    }
}

/// `zfs_delay_scale * (over) / (room)` without overflow.
fn curve(scale: u64, over: u64, room: u64) -> u64 {
    ((scale as u128 * over as u128) / room.max(1) as u128).min(u64::MAX as u128) as u64
}

#[cfg(test)]
mod tests;

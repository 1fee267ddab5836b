//! Unit tests of the txg model: each drives the state machine directly with `now_ns`.

use super::*;

const MIB: u64 = 1 << 20;
const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

fn tun(r: Release, ram: u64, set: &[(&str, i64)]) -> Tunables {
    let mut t = Tunables::defaults(r, ram);
    for (k, v) in set {
        t.set(k, *v).unwrap();
    }
    t
}

fn txg(r: Release, set: &[(&str, i64)]) -> Txg {
    Txg::new(r, &tun(r, 16 << 30, set), TxgConfig { ram_bytes: 16 << 30, hz: 100 })
}

fn syncs(out: &[TxgAction]) -> Vec<(u64, u64)> {
    out.iter()
        .filter_map(|a| match a {
            TxgAction::StartSync { txg, dirty_bytes, .. } => Some((*txg, *dirty_bytes)),
            _ => None,
        })
        .collect()
}

#[test]
fn delay_curve_matches_dmu_tx_delay() {
    // max = 100 MiB so every percentage is a whole number of MiB.
    let t = txg(Release::Zfs22, &[("zfs_dirty_data_max", 100 * MIB as i64)]);
    let at = |p: u64| t.delay_ns(p * MIB);
    assert_eq!(at(60), 0);
    assert_eq!(at(70), 500_000 * 10 / 30);
    assert_eq!(at(80), 500_000, "midpoint = zfs_delay_scale");
    assert_eq!(at(90), 1_500_000);
    assert_eq!(at(99), 39 * 500_000);
    assert_eq!(at(100), 100 * MS, "capped at zfs_delay_max_ns");
    // Same curve in the first 2013 release, with its own tunable cap.
    let t =
        txg(Release::Illumos2014, &[("zfs_dirty_data_max", 100 * MIB as i64), ("zfs_delay_max_ns", 10 * MS as i64)]);
    assert_eq!(t.delay_ns(99 * MIB), 10 * MS);
}

/// Fill dirty data to `pct` % of a 100 MiB max without delays (admitted as one tx).
fn filled(r: Release, pct: u64) -> (Txg, Vec<TxgAction>) {
    let mut t = txg(r, &[("zfs_dirty_data_max", 100 * MIB as i64)]);
    let mut out = vec![];
    t.start(0, &mut out);
    assert_eq!(t.assign(0, 0, pct * MIB, 0, false, &mut out), TxDecision::Admit { txg: 1 });
    (t, out)
}

#[test]
fn delayed_txs_are_serialised_through_last_wakeup() {
    let (mut t, mut out) = filled(Release::Zfs22, 80);
    let now = 10 * MS;
    let d: Vec<_> = (1..=3).map(|i| t.assign(now, i, 4096, now, false, &mut out)).collect();
    assert_eq!(
        d,
        vec![
            TxDecision::DelayUntil(now + 500_000),
            TxDecision::DelayUntil(now + 1_000_000),
            TxDecision::DelayUntil(now + 1_500_000)
        ]
    );
    // The retry after the sleep is admitted without a second delay.
    assert_eq!(t.assign(now + 500_000, 1, 4096, now, true, &mut out), TxDecision::Admit { txg: 2 });
    // A tx created long ago (waited elsewhere longer than the delay) does not sleep.
    assert!(matches!(t.assign(now + 5 * MS, 4, 4096, 0, false, &mut out), TxDecision::Admit { .. }));
}

#[test]
fn below_min_dirty_no_delay_and_at_max_block_until_space() {
    let (mut t, mut out) = filled(Release::Zfs22, 59);
    assert!(matches!(t.assign(MS, 1, 4096, MS, false, &mut out), TxDecision::Admit { .. }));
    let (mut t, mut out) = filled(Release::Zfs22, 100);
    assert_eq!(t.assign(MS, 7, 4096, MS, false, &mut out), TxDecision::Wait);
    // The kick started a sync of txg 1; half of it reaches disk → below max → resume,
    // delayed per the curve at 50 % (no delay).
    assert_eq!(syncs(&out), vec![(1, 100 * MIB)]);
    out.clear();
    t.on_sync_progress(2 * MS, 50 * MIB, &mut out);
    assert_eq!(out, vec![TxgAction::Resume { tx_id: 7, at_ns: 2 * MS }]);
    // At 90 % the resumed tx is delayed 1.5 ms from its tx_start (1 ms), not from now.
    let (mut t, mut out) = filled(Release::Zfs22, 100);
    assert_eq!(t.assign(MS, 7, 4096, MS, false, &mut out), TxDecision::Wait);
    out.clear();
    t.on_sync_progress(2 * MS, 10 * MIB, &mut out);
    assert_eq!(out, vec![TxgAction::Resume { tx_id: 7, at_ns: MS + 1_500_000 }]);
}

/// Audit 3 F1: a writer blocked at zfs_dirty_data_max is delayed from its own tx_start
/// (no sleep once it waited longer than the delay), and waiters wake one at a time, each
/// seeing the bytes of the ones woken before it (dmu_tx_wait, dmu_tx_delay, dsl_pool_dirty_delta).
#[test]
fn blocked_writers_wake_one_at_a_time_from_their_tx_start() {
    let (mut t, mut out) = filled(Release::Zfs22, 100);
    for id in 1..=3 {
        assert_eq!(t.assign(0, id, 4 * MIB, 0, false, &mut out), TxDecision::Wait);
    }
    out.clear();
    // One sync write lands at 1 s: dirty 95 % < max. Only the first waiter wakes, at once:
    // it waited 1 s, far longer than the 3.5 ms the curve asks at 95 %.
    t.on_sync_progress(S, 5 * MIB, &mut out);
    assert_eq!(out, vec![TxgAction::Resume { tx_id: 1, at_ns: S }]);
    out.clear();
    // Its 4 MiB make 99 % (< max): that increase signals the next one, again without a sleep.
    assert_eq!(t.assign(S, 1, 4 * MIB, 0, true, &mut out), TxDecision::Admit { txg: 2 });
    assert_eq!(out, vec![TxgAction::Resume { tx_id: 2, at_ns: S }]);
    out.clear();
    // Its 4 MiB make 103 % ≥ max: the third stays blocked until dirty falls again.
    t.assign(S, 2, 4 * MIB, 0, true, &mut out);
    assert!(out.iter().all(|a| !matches!(a, TxgAction::Resume { .. })), "{out:?}");
    t.on_sync_progress(S + 100 * MS, 10 * MIB, &mut out);
    assert_eq!(out, vec![TxgAction::Resume { tx_id: 3, at_ns: S + 100 * MS }]);
}

/// Drive timers and complete every sync `sync_ns` after it starts; a small write every
/// `write_every_ns`. Returns sync start times.
fn run(t: &mut Txg, until_ns: u64, write_every_ns: u64, bytes: u64, sync_ns: u64) -> Vec<u64> {
    let mut out = vec![];
    let mut timer = u64::MAX;
    let mut done_at: Option<(u64, u64)> = None;
    let mut starts = vec![];
    let mut next_write = 0;
    t.start(0, &mut out);
    let mut now = 0;
    let mut id = 0;
    loop {
        for a in out.drain(..) {
            match a {
                TxgAction::Timer { at_ns } => timer = at_ns,
                TxgAction::StartSync { txg, .. } => {
                    starts.push(now);
                    done_at = Some((now + sync_ns, txg));
                }
                _ => {}
            }
        }
        let next = [timer, done_at.map_or(u64::MAX, |d| d.0), next_write].into_iter().min().unwrap();
        if next > until_ns {
            return starts;
        }
        now = next;
        if done_at.is_some_and(|d| d.0 == now) {
            let (_, g) = done_at.take().unwrap();
            t.on_sync_done(now, g, &mut out);
        } else if timer == now {
            timer = u64::MAX;
            t.on_timer(now, &mut out);
        } else {
            id += 1;
            let d = t.assign(now, id, bytes, now, false, &mut out);
            assert!(matches!(d, TxDecision::Admit { .. }), "{d:?}");
            next_write += write_every_ns;
        }
    }
}

#[test]
fn timeout_driven_syncs_every_txg_timeout() {
    let mut t = txg(Release::Zfs22, &[]);
    let starts = run(&mut t, 21 * S, S, 4096, 100 * MS);
    assert_eq!(starts, vec![5 * S, 10 * S, 15 * S, 20 * S]);
    // solaris-2009: 30 s.
    let mut t = txg(Release::Solaris2009, &[]);
    assert_eq!(run(&mut t, 61 * S, S, 4096, 100 * MS), vec![30 * S, 60 * S]);
}

#[test]
fn idle_pool_elides_empty_txgs() {
    let mut t = txg(Release::Zfs22, &[]);
    assert!(run(&mut t, 60 * S, u64::MAX / 2, 0, MS).is_empty());
}

#[test]
fn threshold_driven_syncs_before_the_timeout() {
    // zfs-0.7: pool-total dirty > zfs_dirty_data_sync (64 MiB) kicks a sync.
    let mut t = txg(Release::Zfs07, &[]);
    let starts = run(&mut t, 3 * S, 100 * MS, 8 * MIB, 50 * MS);
    // 9th write (at 0.8 s) makes 72 MiB > 64 MiB: the next assign kicks.
    assert!(!starts.is_empty() && starts[0] < S, "{starts:?}");
    // zfs-2.2: 20 % of dirty_max (1.6 GiB on 16 GiB RAM) = 327 MiB in the open txg.
    let mut t = txg(Release::Zfs22, &[("zfs_dirty_data_max", 1000 * MIB as i64)]);
    let starts = run(&mut t, 3 * S, 100 * MS, 50 * MIB, 50 * MS);
    assert_eq!(starts[0], 400 * MS, "5th write makes 250 MiB > 200 MiB");
}

#[test]
fn kick_per_txg_in_2_2_versus_idle_only_in_2_1() {
    for r in [Release::Zfs21, Release::Zfs22] {
        let mut t = txg(r, &[("zfs_dirty_data_max", 100 * MIB as i64)]);
        let mut out = vec![];
        t.start(0, &mut out);
        t.assign(0, 1, 30 * MIB, 0, false, &mut out);
        // 2.2 kicks at once (open txg 30 % > 20 %); 2.1 from its sync loop (pool 30 % ≥ 20 %).
        t.assign(MS, 2, MIB, MS, false, &mut out);
        assert_eq!(syncs(&out).len(), 1, "{r:?}");
        out.clear();
        // While txg 1 syncs, 25 MiB more go into txg 2: one sync at a time.
        t.assign(2 * MS, 3, 25 * MIB, 2 * MS, false, &mut out);
        assert!(syncs(&out).is_empty(), "{r:?}: one sync at a time");
        // 2.1's kick waits for an idle pipeline; 2.2's marks txg 2 as waited for at once.
        assert_eq!(t.sync_txg_waiting >= 2, r == Release::Zfs22, "{r:?}");
    }
}

/// Audit 3 F2: 0.8–2.1 keep the dirty test in txg_sync_thread's wait loop: when a sync ends
/// with pool dirty ≥ zfs_dirty_data_sync_percent of the max, the next sync starts at once,
/// with no writer arriving to kick it (TXG@zfs-0.8.0/2.0.0/2.1.0 txg_sync_thread).
#[test]
fn sync_loop_dirty_rule_through_2_1() {
    for r in [Release::Zfs08, Release::Zfs20, Release::Zfs21, Release::Zfs22] {
        let mut t = txg(r, &[("zfs_dirty_data_max", 1600 * MIB as i64)]);
        let mut out = vec![];
        t.start(0, &mut out);
        t.assign(0, 1, 600 * MIB, 0, false, &mut out);
        t.assign(MS, 2, MIB, MS, false, &mut out);
        assert_eq!(syncs(&out).len(), 1, "{r:?}: kicked");
        // 500 MiB (31 %) into txg 2 while txg 1 syncs, then nothing more is written.
        t.assign(2 * MS, 3, 500 * MIB, 2 * MS, false, &mut out);
        out.clear();
        t.on_sync_done(S, 1, &mut out);
        assert_eq!(syncs(&out), vec![(2, 501 * MIB)], "{r:?}: next sync at once");
    }
    // Below the threshold the sync waits for the timeout.
    let mut t = txg(Release::Zfs21, &[("zfs_dirty_data_max", 1600 * MIB as i64)]);
    let mut out = vec![];
    t.start(0, &mut out);
    t.assign(0, 1, 600 * MIB, 0, false, &mut out);
    t.assign(MS, 2, 100 * MIB, MS, false, &mut out);
    out.clear();
    t.on_sync_done(S, 1, &mut out);
    assert!(syncs(&out).is_empty(), "{out:?}");
}

#[test]
fn scan_active_syncs_back_to_back() {
    let mut t = txg(Release::Zfs22, &[]);
    let mut out = vec![];
    t.start(0, &mut out);
    t.set_scan_active(0, true, &mut out);
    assert_eq!(syncs(&out), vec![(1, 0)]);
    out.clear();
    t.on_sync_done(MS, 1, &mut out);
    assert_eq!(syncs(&out), vec![(2, 0)], "next sync at once, even with nothing dirty");
}

#[test]
fn wait_synced_zero_waits_for_open_plus_defer() {
    let mut t = txg(Release::Zfs22, &[]);
    let mut out = vec![];
    t.start(0, &mut out);
    t.assign(0, 1, 4096, 0, false, &mut out);
    assert!(!t.wait_synced(0, None, 42, &mut out));
    for g in 1..=3 {
        assert!(!out.contains(&TxgAction::WaitDone { waiter: 42 }), "released before txg {g}");
        assert_eq!(t.syncing_txg(), Some(g));
        t.on_sync_done(g * MS, g, &mut out);
    }
    assert!(out.contains(&TxgAction::WaitDone { waiter: 42 }));
    assert!(t.wait_synced(5 * MS, Some(2), 43, &mut out), "already synced");
}

#[test]
fn old_throttle_write_limit_and_next_txg_wait() {
    let r = Release::Freebsd9;
    let ram = 1u64 << 30;
    let mut t = Txg::new(r, &tun(r, ram, &[]), TxgConfig { ram_bytes: ram, hz: 100 });
    let mut out = vec![];
    t.start(0, &mut out);
    assert_eq!(t.write_limit_bytes(), 32 * MIB, "starts at zfs_write_limit_min");
    // 33 MiB in txg 1: the next tx finds it over the limit and waits for txg 2.
    assert_eq!(t.assign(0, 1, 33 * MIB, 0, false, &mut out), TxDecision::Admit { txg: 1 });
    assert_eq!(t.assign(MS, 2, 4096, MS, false, &mut out), TxDecision::Wait);
    assert!(out.contains(&TxgAction::StartSync { txg: 1, dirty_bytes: 33 * MIB, overridden_bytes: 0 }));
    assert!(out.contains(&TxgAction::Resume { tx_id: 2, at_ns: MS }));
    assert_eq!(t.assign(MS, 2, 4096, MS, true, &mut out), TxDecision::Admit { txg: 2 });
    // Fast sync (33 MiB in 100 ms): limit = throughput x 1000 ms, capped at RAM/8.
    t.on_sync_done(101 * MS, 1, &mut out);
    assert_eq!(t.write_limit_bytes(), 128 * MIB);

    // Over 7/8 of the limit while the previous txg still waits for the sync thread: one tick.
    let mut t = Txg::new(r, &tun(r, ram, &[]), TxgConfig { ram_bytes: ram, hz: 100 });
    t.start(0, &mut out);
    t.assign(0, 1, 33 * MIB, 0, false, &mut out); // txg 1
    t.assign(0, 2, 1, 0, false, &mut out); // waits → txg 1 syncs, txg 2 opens
    t.assign(0, 2, 33 * MIB, 0, true, &mut out); // txg 2 over the limit
    assert_eq!(t.assign(0, 3, 1, 0, false, &mut out), TxDecision::Wait); // txg 2 quiesced
    t.assign(0, 3, 30 * MIB, 0, true, &mut out); // txg 3 at 30/32 > 7/8
    assert_eq!(t.assign(0, 4, 1, 0, false, &mut out), TxDecision::DelayUntil(10 * MS), "1 tick at hz=100");
    // Slow sync (33 MiB in 2 s): limit falls back to the 32 MiB floor.
    t.on_sync_done(2 * S, 1, &mut out);
    assert_eq!(t.write_limit_bytes(), 32 * MIB);
}

#[test]
fn data_at_risk_until_txg_sync() {
    let mut t = txg(Release::Zfs22, &[]);
    let mut out = vec![];
    t.start(0, &mut out);
    t.assign(0, 1, 8192, 0, false, &mut out);
    t.add_at_risk(S, 1, 8192);
    let r = t.risk(3 * S);
    assert_eq!(r.at_risk_bytes, 8192);
    assert_eq!(r.at_risk_byte_ns, 8192 * 2 * S as u128);
    // Timeout sync at 5 s, done at 5.5 s.
    t.on_timer(5 * S, &mut out);
    t.on_sync_done(5 * S + 500 * MS, 1, &mut out);
    let r = t.risk(10 * S);
    assert_eq!(r.at_risk_bytes, 0);
    assert_eq!(r.at_risk_bytes_max, 8192);
    assert_eq!(r.at_risk_window_ns_max, 4 * S + 500 * MS);
    assert_eq!(r.unsynced_bytes, 0);
    assert_eq!(r.unsynced_byte_ns, 8192 * (5 * S + 500 * MS) as u128);
    // Promises for an already-synced txg are not at risk.
    t.add_at_risk(11 * S, 1, 100);
    assert_eq!(t.risk(12 * S).at_risk_bytes, 0);
}

#[test]
fn dmu_sync_overrides_an_open_txg_and_not_a_syncing_one() {
    let mut t = txg(Release::Zfs22, &[]);
    let mut out = vec![];
    t.start(0, &mut out);
    assert_eq!(t.assign(0, 1, 8 * MIB, 0, false, &mut out), TxDecision::Admit { txg: 1 });
    // A commit's dmu_sync writes 1 MiB of txg 1 in place: its sync skips those bytes...
    assert!(t.dmu_sync(1, MIB));
    // ...but never more than the txg holds.
    assert!(t.dmu_sync(1, 64 * MIB));
    t.on_timer(5 * S, &mut out);
    assert!(out.contains(&TxgAction::StartSync { txg: 1, dirty_bytes: 8 * MIB, overridden_bytes: 8 * MIB }), "{out:?}");
    // Txg 1 is syncing: dmu_sync_late_arrival writes a copy of its own.
    assert_eq!(t.syncing_txg(), Some(1));
    assert!(!t.dmu_sync(1, MIB));
}

/// Audit 3 F5: solaris-2009's target sync time is 5 s (`zfs_txg_synctime = 5`,
/// dsl_pool.c@il:379c004d1f), so a 100 MB sync written in 1 s allows 500 MB per txg.
#[test]
fn solaris_2009_write_limit_targets_five_second_syncs() {
    let r = Release::Solaris2009;
    assert_eq!(Tunables::defaults(r, 16 << 30).get(T::zfs_txg_synctime_ms), 5000);
    assert_eq!(Tunables::defaults(Release::Freebsd9, 16 << 30).get(T::zfs_txg_synctime_ms), 1000);
    let mut t = txg(r, &[]);
    let mut out = vec![];
    t.start(0, &mut out);
    assert_eq!(t.assign(0, 1, 100_000_000, 0, false, &mut out), TxDecision::Admit { txg: 1 });
    assert_eq!(t.assign(0, 2, 4096, 0, false, &mut out), TxDecision::Wait, "over the 32 MiB floor");
    assert_eq!(syncs(&out), vec![(1, 100_000_000)]);
    t.on_sync_progress(S, 100_000_000, &mut out);
    t.on_sync_done(S, 1, &mut out);
    assert_eq!(t.write_limit_bytes(), 500_000_000, "throughput 100 MB/s x 5 s, under RAM/8 = 2 GiB");
}

/// Audit 3 F11: the 2.2+ wrlog delay starts above 60 % of zfs_wrlog_data_max, as
/// `zfs_wrlog_data_max * zfs_delay_min_dirty_percent / 100` (TX@zfs-2.2.0 dmu_tx_delay),
/// even when 60 % of zfs_dirty_data_max is not a whole number of bytes.
#[test]
fn wrlog_delay_starts_at_sixty_percent() {
    // 16 GiB RAM: dirty_max 1 717 986 918 (60 % = 1 030 792 150.8, rounded down),
    // wrlog max 2 x that.
    let mut t = txg(Release::Zfs22, &[]);
    let wmax = t.wrlog_max.unwrap();
    assert_eq!(wmax, 2 * t.dirty_max_bytes());
    let mut out = vec![];
    t.start(0, &mut out);
    assert!(matches!(t.assign(0, 1, 4096, 0, false, &mut out), TxDecision::Admit { txg: 1 }));
    // Logged bytes at 59.5 % of the wrlog max: below the threshold, so no delay.
    t.log_written(0, 1, wmax / 1000 * 595, &mut out);
    assert!(!t.wrlog_over_min());
    assert!(matches!(t.assign(MS, 2, 4096, MS, false, &mut out), TxDecision::Admit { .. }));
    // Just over 60 %: delayed.
    t.log_written(0, 1, wmax / 1000 * 6, &mut out);
    assert!(t.wrlog_over_min());
}

/// QA 2026-11-28: from 2.2 a txg's logged bytes past zfs_wrlog_data_max ×
/// (zfs_dirty_data_sync_percent + 10) / 200 kick its sync (DP@zfs-2.2.0
/// dsl_pool_wrlog_count → txg_kick), however little data it dirtied; 2.1 has no wrlog.
#[test]
fn logged_bytes_past_fifteen_percent_kick_the_sync() {
    let mut t = txg(Release::Zfs22, &[]);
    let min = t.wrlog_max.unwrap() * 30 / 200;
    let mut out = vec![];
    t.start(0, &mut out);
    assert!(matches!(t.assign(0, 1, 4096, 0, false, &mut out), TxDecision::Admit { txg: 1 }));
    out.clear();
    t.log_written(MS, 1, min, &mut out);
    assert_eq!(syncs(&out), vec![], "at the threshold: no kick");
    t.log_written(MS, 1, 1, &mut out);
    assert_eq!(syncs(&out), vec![(1, 4096)], "one byte over: txg 1 syncs now");
    let mut t = txg(Release::Zfs21, &[]);
    let mut out = vec![];
    t.start(0, &mut out);
    assert!(matches!(t.assign(0, 1, 4096, 0, false, &mut out), TxDecision::Admit { txg: 1 }));
    out.clear();
    t.log_written(MS, 1, 10 << 30, &mut out);
    assert_eq!(syncs(&out), vec![]);
}

/// Audit 2 F2: the pre-2013 throughput sample times dsl_pool_sync's own writes only; a
/// scan's share of the same txg (dsl_scan_sync, after it in spa_sync) does not lower it.
#[test]
fn write_limit_throughput_times_the_data_writes_only() {
    for r in [Release::Solaris2009, Release::Freebsd9, Release::Illumos2012] {
        let mut t = txg(r, &[]);
        let mut out = vec![];
        t.start(0, &mut out);
        assert_eq!(t.assign(0, 1, 100_000_000, 0, false, &mut out), TxDecision::Admit { txg: 1 });
        assert_eq!(t.assign(0, 2, 4096, 0, false, &mut out), TxDecision::Wait);
        assert_eq!(syncs(&out), vec![(1, 100_000_000)]);
        // The data lands in 1 s; the scan's share and the uberblock end the txg at 6 s.
        t.on_sync_progress(S, 100_000_000, &mut out);
        t.on_sync_done(6 * S, 1, &mut out);
        assert_eq!(t.write_limit_bytes(), 100_000 * t.synctime_ms, "{r:?}: 100 MB/s over the data writes");
    }
}

/// Audit 2 F1 and its 2.2+ note: `txg_sync_waiting` during a sync. Pre-2013 a writer over
/// the write limit quiesces the open txg (txg_wait_open); 2.2+ the per-txg kick names the
/// open txg in tx_sync_txg_waiting; a ≤ 2.1 kick only quiesces an idle pipeline.
#[test]
fn sync_waiting_follows_txg_sync_waiting() {
    // illumos-2012: txg 1 syncs; a writer over the limit in txg 2 quiesces it.
    let r = Release::Illumos2012;
    let mut t = Txg::new(r, &tun(r, 1 << 30, &[]), TxgConfig { ram_bytes: 1 << 30, hz: 100 });
    let mut out = vec![];
    t.start(0, &mut out);
    t.assign(0, 1, 33 * MIB, 0, false, &mut out);
    assert_eq!(t.assign(0, 2, 4096, 0, false, &mut out), TxDecision::Wait);
    assert_eq!(t.syncing_txg(), Some(1));
    t.assign(0, 2, 4096, 0, true, &mut out);
    assert!(!t.sync_waiting(), "nothing waits for txg 2 yet");
    t.assign(0, 3, 33 * MIB, 0, false, &mut out);
    assert_eq!(t.assign(MS, 4, 4096, MS, false, &mut out), TxDecision::Wait);
    assert!(t.sync_waiting(), "txg 2 quiesced behind the syncing txg 1");

    // zfs-2.2: the open txg passing 20 % of the max while txg 1 syncs.
    let mut t = txg(Release::Zfs22, &[("zfs_dirty_data_max", 100 * MIB as i64)]);
    t.start(0, &mut out);
    t.assign(0, 1, 30 * MIB, 0, false, &mut out);
    assert_eq!(t.syncing_txg(), Some(1));
    assert!(t.sync_waiting(), "txg 1 was kicked: its own sync is waited for");
    t.on_sync_done(MS, 1, &mut out);
    t.assign(MS, 2, 10 * MIB, MS, false, &mut out);
    t.on_timer(5 * S + MS, &mut out);
    assert_eq!(t.syncing_txg(), Some(2));
    assert!(!t.sync_waiting(), "txg 2 synced by the timeout");
    t.assign(5 * S + 2 * MS, 3, 25 * MIB, 5 * S, false, &mut out);
    assert!(t.sync_waiting(), "txg 3 kicked while txg 2 syncs");

    // zfs-2.1: the kick quiesces an idle pipeline; nobody waits for the kicked sync.
    let mut t = txg(Release::Zfs21, &[("zfs_dirty_data_max", 100 * MIB as i64)]);
    t.start(0, &mut out);
    t.assign(0, 1, 30 * MIB, 0, false, &mut out);
    t.assign(MS, 2, MIB, MS, false, &mut out);
    assert_eq!(t.syncing_txg(), Some(1));
    t.assign(2 * MS, 3, 25 * MIB, 2 * MS, false, &mut out);
    assert!(!t.sync_waiting());
}

#[test]
fn without_the_write_limit_the_arc_still_bounds_dirty_data() {
    // zfs_no_write_throttle=1 on illumos-2012 with 4 GiB: arc_c = 3 GiB, so
    // arc_tempreserve_space refuses a tx once dirty data is over 768 MiB (arc_c/4) and
    // the tx would take it past 1.5 GiB (arc_c/2); the writer waits for the next txg.
    let r = Release::Illumos2012;
    let ram = 4u64 << 30;
    let mut t = Txg::new(r, &tun(r, ram, &[("zfs_no_write_throttle", 1)]), TxgConfig { ram_bytes: ram, hz: 100 });
    let mut out = vec![];
    t.start(0, &mut out);
    let mut admitted = 0u64;
    let mut id = 0;
    loop {
        id += 1;
        match t.assign(0, id, 64 * MIB, 0, false, &mut out) {
            TxDecision::Admit { .. } => admitted += 64 * MIB,
            d => {
                assert_eq!(d, TxDecision::Wait);
                break;
            }
        }
        assert!(id < 1000, "never bounded");
    }
    assert_eq!(admitted, 1536 * MIB, "up to arc_c / 2");
    // With the write limit on, its 32 MiB floor binds long before.
    let mut t = Txg::new(r, &tun(r, ram, &[]), TxgConfig { ram_bytes: ram, hz: 100 });
    t.start(0, &mut out);
    assert_eq!(t.assign(0, 1, 64 * MIB, 0, false, &mut out), TxDecision::Admit { txg: 1 });
    assert_eq!(t.assign(0, 2, 64 * MIB, 0, false, &mut out), TxDecision::Wait);
}

#[test]
fn rewrites_of_the_same_records_are_at_risk_once() {
    // sync=disabled and one 4 KiB record rewritten and "fsynced" 1000 times in a txg: a
    // crash loses that record's new contents, 4 KiB, not 1000 acknowledgements (spec
    // §4.3: bounded by the txg's dirty data).
    let mut t = txg(Release::Zfs22, &[]);
    let mut out = vec![];
    t.start(0, &mut out);
    t.assign_charged(0, 1, 4096, |_| 4096, 0, false, &mut out);
    for i in 0..1000u64 {
        if i > 0 {
            t.assign_charged(i, 1 + i as u32, 4096, |_| 0, i, false, &mut out); // already dirty
        }
        t.add_at_risk(i, 1, 4096);
    }
    assert_eq!(t.risk(S).at_risk_bytes, 4096);
    assert_eq!(t.risk(S).unsynced_bytes, 4096 * 1000, "acknowledged bytes are counted apart");
}

//! Unit tests of the ZIL model, driven by a tiny deterministic harness: fixed latencies
//! per action kind, closed-loop committer threads, an event heap keyed (time, seq).

use super::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const US: u64 = 1_000;
const MS: u64 = 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Done(Token),
    /// A SLOG lwb write comes back with an error.
    Fail(Token),
    Timer(Token),
    /// Thread starts its next write + commit.
    Go(u32),
}

struct H {
    z: Zil,
    now: u64,
    seq: u64,
    q: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    /// (time, action) of everything the ZIL asked for.
    log: Vec<(u64, ZilAction)>,
    lwb_ns: u64,
    flush_ns: u64,
    indirect_ns: u64,
    /// Per thread: commits left, bytes per write, commit start time.
    left: Vec<u32>,
    /// SLOG lwb writes fail (the log device died).
    slog_dead: bool,
    /// How long a `TxgWait` takes.
    txg_wait_ns: u64,
    /// `AtRisk` actions seen: (txg, bytes).
    risk: Vec<(u64, u64)>,
    write_bytes: u32,
    o_dsync: bool,
    started: Vec<u64>,
    /// Commit latencies (Wake − commit).
    lat: Vec<u64>,
}

fn tun(r: Release, set: &[(&str, i64)]) -> Tunables {
    let mut t = Tunables::defaults(r, 16 << 30);
    for (k, v) in set {
        t.set(k, *v).unwrap();
    }
    t
}

fn cfg(slog: bool) -> ZilConfig {
    ZilConfig {
        slog,
        logbias: Logbias::Latency,
        sync: SyncMode::Standard,
        zil_disable: false,
        recordsize_bytes: 128 * 1024,
        volume: false,
    }
}

impl H {
    fn new(r: Release, set: &[(&str, i64)], c: ZilConfig) -> H {
        H {
            z: Zil::new(r, &tun(r, set), c),
            now: 0,
            seq: 0,
            q: BinaryHeap::new(),
            log: vec![],
            lwb_ns: MS,
            flush_ns: 500 * US,
            indirect_ns: 2 * MS,
            left: vec![],
            slog_dead: false,
            txg_wait_ns: 1000 * MS,
            risk: vec![],
            write_bytes: 4096,
            o_dsync: false,
            started: vec![],
            lat: vec![],
        }
    }
    fn at(&mut self, t: u64, e: Ev) {
        self.seq += 1;
        self.q.push(Reverse((t, self.seq, e)));
    }
    fn exec(&mut self, out: Vec<ZilAction>) {
        for a in out {
            self.log.push((self.now, a));
            match a {
                ZilAction::LwbWrite { token, on_slog, .. } if on_slog && self.slog_dead => {
                    self.at(self.now + self.lwb_ns, Ev::Fail(token))
                }
                ZilAction::LwbWrite { token, .. } => self.at(self.now + self.lwb_ns, Ev::Done(token)),
                ZilAction::IndirectWrite { token, .. } => self.at(self.now + self.indirect_ns, Ev::Done(token)),
                ZilAction::Flush { token, .. } => self.at(self.now + self.flush_ns, Ev::Done(token)),
                ZilAction::Timer { token, at_ns } => self.at(at_ns, Ev::Timer(token)),
                ZilAction::Wake { waiter } => {
                    let w = waiter as usize;
                    if w < self.started.len() {
                        self.lat.push(self.now - self.started[w]);
                        if self.left[w] > 0 {
                            self.at(self.now, Ev::Go(waiter));
                        }
                    }
                }
                ZilAction::AtRisk { txg, bytes } => self.risk.push((txg, bytes)),
                ZilAction::TxgWait { token } => self.at(self.now + self.txg_wait_ns, Ev::Done(token)),
            }
        }
    }
    /// `threads` closed-loop writers, `n` write+fsync each, thread i starting at i × `stagger`.
    fn fsync_loop(&mut self, threads: u32, n: u32, stagger: u64) {
        self.left = vec![n; threads as usize];
        self.started = vec![0; threads as usize];
        for i in 0..threads {
            self.at(i as u64 * stagger, Ev::Go(i));
        }
        self.run();
    }
    fn run(&mut self) {
        while let Some(Reverse((t, _, e))) = self.q.pop() {
            self.now = t;
            let mut out = vec![];
            match e {
                Ev::Done(tok) => self.z.on_io_done(t, tok, &mut out),
                Ev::Fail(tok) => self.z.on_io_failed(t, tok, &mut out),
                Ev::Timer(tok) => self.z.on_timer(t, tok, &mut out),
                Ev::Go(th) => {
                    self.left[th as usize] -= 1;
                    self.started[th as usize] = t;
                    let foid = th as u64 + 1;
                    let need = self.z.write(1, foid, 0, self.write_bytes, u64::MAX, self.o_dsync, &mut out);
                    if need || !self.o_dsync {
                        self.z.commit(t, foid, th, &mut out);
                    } else {
                        // sync=disabled / zil_disable: the O_DSYNC write is acknowledged at once.
                        out.push(ZilAction::Wake { waiter: th });
                    }
                }
            }
            self.exec(out);
        }
    }
    fn count(&self, f: impl Fn(&ZilAction) -> bool) -> usize {
        self.log.iter().filter(|(_, a)| f(a)).count()
    }
    fn lwbs(&self) -> Vec<(u32, bool, IoClass)> {
        self.log
            .iter()
            .filter_map(|(_, a)| match a {
                ZilAction::LwbWrite { bytes, on_slog, class, .. } => Some((*bytes, *on_slog, *class)),
                _ => None,
            })
            .collect()
    }
}

fn is_lwb(a: &ZilAction) -> bool {
    matches!(a, ZilAction::LwbWrite { .. })
}
fn is_flush(a: &ZilAction) -> bool {
    matches!(a, ZilAction::Flush { .. })
}
fn is_ind(a: &ZilAction) -> bool {
    matches!(a, ZilAction::IndirectWrite { .. })
}

#[test]
fn legacy_three_overlapping_commits_make_two_batches() {
    let mut h = H::new(Release::Zfs07, &[], cfg(false));
    h.write_bytes = 1024; // two records fit the 4 KiB lwbs
                          // A at 0 starts batch 1; B and C arrive while it is in flight: both join batch 2.
    h.fsync_loop(3, 1, 100 * US);
    assert_eq!(h.z.stats().batches, 2);
    assert_eq!(h.count(is_flush), 2);
    assert_eq!(h.count(is_lwb), 2, "batch 2 packs B's and C's records into one lwb");
    // A: write + flush; B and C wait for batch 1 and then their own.
    let (w, f) = (h.lwb_ns, h.flush_ns);
    assert_eq!(h.lat, vec![w + f, 2 * (w + f) - 100 * US, 2 * (w + f) - 200 * US]);
}

#[test]
fn legacy_commit_with_nothing_to_log_returns_at_once() {
    let mut h = H::new(Release::Illumos2014, &[], cfg(false));
    let mut out = vec![];
    h.z.commit(0, 5, 9, &mut out);
    assert_eq!(out, vec![ZilAction::Wake { waiter: 9 }]);
}

#[test]
fn pipeline_single_thread_one_lwb_and_one_flush_per_commit() {
    for r in [Release::Zfs08, Release::Zfs21, Release::Zfs22, Release::Zfs23] {
        let mut h = H::new(r, &[], cfg(false));
        h.fsync_loop(1, 20, 0);
        // The first commit overflows the initial 4 KiB block (2 lwbs); then one each.
        assert_eq!(h.count(is_lwb), 21, "{r:?}");
        assert_eq!(h.count(is_flush), 20, "{r:?}");
        assert_eq!(h.lat.len(), 20);
    }
}

#[test]
fn pipeline_group_commit_shares_lwbs_and_flushes() {
    let mut h = H::new(Release::Zfs08, &[], cfg(false));
    h.fsync_loop(16, 20, 10 * US);
    let commits = h.z.stats().commits as usize;
    assert_eq!(commits, 16 * 20);
    let flushes = h.count(is_flush);
    assert!(commits >= 4 * flushes, "{commits} commits, {flushes} flushes");
    assert!(h.count(is_lwb) < commits / 4);
    // Same workload on the legacy two-batch path also groups, but every batch waits
    // for the previous one.
    let mut l = H::new(Release::Zfs07, &[], cfg(false));
    l.fsync_loop(16, 20, 10 * US);
    assert!(l.z.stats().commits as usize >= 4 * l.count(is_flush));
}

/// zfs-2.3.0 `zil_process_commit_list`: a commit that finds no open lwb but an earlier
/// lwb not yet flushed marks the workload parallel (≥ 4 bursts), so its lwb stays open
/// for the commit timeout and later committers join it; a lone committer whose previous
/// lwb is stable issues at once.
#[test]
fn zfs23_commits_behind_an_unflushed_lwb_share_the_next_one() {
    let mut h = H::new(Release::Zfs23, &[], cfg(false));
    h.fsync_loop(16, 20, 10 * US);
    let commits = h.z.stats().commits as usize;
    let (lwbs, flushes) = (h.count(is_lwb), h.count(is_flush));
    assert_eq!(commits, 16 * 20);
    // (Before the fix every such commit got its own lwb and flush: flushes ≈ commits.)
    assert!(commits >= 3 * flushes, "{commits} commits, {flushes} flushes");
    assert!(commits >= 3 * lwbs, "{commits} commits, {lwbs} lwbs");
    // Two commits 100 µs apart, the first lwb still in flight (1.5 ms): the second is
    // not issued at once but sleeps 10 % of the (EWMA) lwb latency, so a latency must be
    // known first: three single-thread commits.
    let mut h = H::new(Release::Zfs23, &[], cfg(false));
    h.write_bytes = 2048;
    h.fsync_loop(1, 3, 0);
    let l1 = h.lwb_ns + h.flush_ns;
    assert_eq!(h.lat, vec![l1; 3], "single thread: never waits");
    let mut out = vec![];
    let t0 = 10 * MS;
    h.now = t0;
    h.z.write(1, 1, 0, 2048, u64::MAX, false, &mut out);
    h.z.commit(t0, 1, 0, &mut out);
    assert!(out.iter().any(is_lwb), "previous lwb stable: issued at once");
    h.exec(out);
    let mut out = vec![];
    h.z.write(1, 2, 0, 2048, u64::MAX, false, &mut out);
    h.z.commit(t0 + 100 * US, 2, 1, &mut out);
    assert!(!out.iter().any(is_lwb), "behind an unflushed lwb: left open to share");
    let sleep = h.z.last_lwb_latency_ns() / 10;
    assert!(sleep > 0);
    assert!(matches!(out.last(), Some(ZilAction::Timer { at_ns, .. }) if *at_ns == t0 + 100 * US + sleep), "{out:?}");
}

#[test]
fn commit_timeout_wait_is_pct_of_last_latency() {
    let mut h = H::new(Release::Zfs08, &[], cfg(false));
    h.write_bytes = 2048;
    h.fsync_loop(1, 2, 0);
    // First commit: no latency known → issued at once. Second: waits 5 % of 1.5 ms.
    let issue: Vec<u64> = h.log.iter().filter(|(_, a)| is_lwb(a)).map(|(t, _)| *t).collect();
    let l1 = h.lwb_ns + h.flush_ns;
    assert_eq!(issue, vec![0, l1 + l1 * 5 / 100]);
    assert_eq!(h.lat, vec![l1, l1 + l1 * 5 / 100]);
    // 2.3: pct 10, but a single thread is not parallel → issued at once.
    let mut h = H::new(Release::Zfs23, &[], cfg(false));
    h.write_bytes = 2048;
    h.fsync_loop(1, 2, 0);
    assert_eq!(h.lat, vec![l1, l1]);
    // 2.2: the EWMA latency (1.5 ms / 8) × 5 % > 5 µs: still waits...
    let mut h = H::new(Release::Zfs22, &[], cfg(false));
    h.write_bytes = 2048;
    h.fsync_loop(1, 2, 0);
    assert_eq!(h.lat[1], l1 + (l1 / 8) * 5 / 100);
    // ...but on a fast log device (sleep < zil_min_commit_timeout) issues at once.
    let mut h = H::new(Release::Zfs22, &[], cfg(true));
    h.lwb_ns = 40 * US;
    h.flush_ns = 20 * US;
    h.fsync_loop(1, 3, 0);
    assert_eq!(h.lat, vec![60 * US; 3]);
}

#[test]
fn lwb_size_tables_per_era() {
    use Release::*;
    let k = 1024u64;
    let b = |r, used| lwb_bucket(r, used, 128 * 1024) / 1024;
    assert_eq!([b(Zfs08, 1000), b(Zfs08, 5 * k), b(Zfs08, 20 * k), b(Zfs08, 60 * k)], [4, 12, 36, 128]);
    assert_eq!([b(Zfs20, 60 * k), b(Zfs20, 100 * k), b(Zfs20, 130 * k), b(Zfs20, 200 * k)], [68, 128, 68, 128]);
    assert_eq!(lwb_bucket(Zfs22, 100 * k, 64 * 1024), 64 * 1024, "capped by zil_maxblocksize");
    // 2.3 plan: one block for a small burst, an even split for a medium one.
    let p = |size| lwb_block_23(lwb_plan_23(size, 128 * 1024, 0).0, 128 * 1024);
    assert_eq!(p(10 * k), 12 * 1024);
    assert_eq!(p(200 * k), 104 * 1024);
    assert_eq!(p(2000 * k), 128 * 1024);
    // The smallest workable first block of a medium burst: what the other blocks leave.
    assert_eq!(lwb_plan_23(200 * k, 128 * 1024, 0).1, 200 * 1024 - (130_888 - 130_696 / 16));
    assert_eq!(lwb_plan_23(2000 * k, 128 * 1024, 0).1, 0);
}

#[test]
fn lwb_sizes_follow_commit_sizes() {
    // Single thread, 20 KiB writes + fsync. First commit: the initial 4 KiB block, then
    // blocks sized by the bucket rule; from the second commit on, one 36 KiB-bucket block
    // per commit (max over the last 16), of which only the used part is written.
    let used = round_up(184 + 192 + 20 * 1024, 4096);
    for r in [Release::Zfs08, Release::Zfs21] {
        let mut h = H::new(r, &[], cfg(true));
        h.write_bytes = 20 * 1024;
        h.fsync_loop(1, 5, 0);
        let sizes: Vec<u32> = h.lwbs().iter().map(|l| l.0).collect();
        assert_eq!(sizes[0], 4096, "{r:?}");
        assert_eq!(sizes[sizes.len() - 4..], [used; 4], "{r:?}: {sizes:?}");
    }
    // solaris-2009 (before zil_block_buckets) sizes the next block from the previous and
    // the current commit's bytes, rounded up to 4 KiB — 192 + 20480 + the 184-byte
    // trailer → 24 KiB — and writes whole blocks (no slim ZIL). The first commit starts
    // in the initial 4 KiB block and grows as its record spills over.
    let mut h = H::new(Release::Solaris2009, &[], cfg(true));
    h.write_bytes = 20 * 1024;
    h.fsync_loop(1, 5, 0);
    let sizes: Vec<u32> = h.lwbs().iter().map(|l| l.0).collect();
    assert_eq!(sizes[0], 4096, "{sizes:?}");
    assert_eq!(sizes[sizes.len() - 4..], [24 * 1024; 4], "{sizes:?}");
    // A commit three times larger: its 60 KiB record does not fit the 24 KiB block
    // planned for it, which goes out empty, and takes a 64 KiB one; the next two commits
    // get 64 KiB blocks too (this commit's bytes, then zl_prev_used).
    let mut h = H::new(Release::Solaris2009, &[], cfg(true));
    for kib in [20u32, 20, 60, 20, 20] {
        h.write_bytes = kib * 1024;
        h.fsync_loop(1, 1, 0);
    }
    let sizes: Vec<u32> = h.lwbs().iter().map(|l| l.0 / 1024).collect();
    assert_eq!(sizes, [4, 24, 24, 24, 64, 64, 64]);
    // 2.3 predicts the burst: after the first commit one block of just the right size.
    let mut h = H::new(Release::Zfs23, &[], cfg(true));
    h.write_bytes = 20 * 1024;
    h.fsync_loop(1, 5, 0);
    let sizes: Vec<u32> = h.lwbs().iter().map(|l| l.0).collect();
    assert_eq!(sizes[sizes.len() - 4..], [used; 4], "{sizes:?}");
}

#[test]
fn logbias_throughput_logs_indirectly() {
    let mut c = cfg(true);
    c.logbias = Logbias::Throughput;
    let mut h = H::new(Release::Zfs21, &[], c);
    h.write_bytes = 8192;
    h.fsync_loop(1, 3, 0);
    assert_eq!(h.count(is_ind), 3);
    assert!(h.lwbs().iter().all(|l| l.0 == 4096), "only block pointers in the log");
    assert!(h.log.iter().any(|(_, a)| matches!(a, ZilAction::Flush { slog: true, pool: true, .. })));
}

#[test]
fn slog_keeps_large_writes_in_the_log() {
    for r in [Release::Zfs07, Release::Zfs21, Release::Zfs23] {
        let mut h = H::new(r, &[], cfg(false));
        h.write_bytes = 128 * 1024;
        h.fsync_loop(1, 2, 0);
        assert_eq!(h.count(is_ind), 2, "{r:?}: no SLOG → dmu_sync the block");
        let mut h = H::new(r, &[], cfg(true));
        h.write_bytes = 128 * 1024;
        h.fsync_loop(1, 2, 0);
        assert_eq!(h.count(is_ind), 0, "{r:?}: SLOG → data in lwbs");
        assert!(h.lwbs().iter().all(|l| l.1), "{r:?}: on the SLOG");
        assert!(h.lwbs().iter().map(|l| l.0 as u64).sum::<u64>() > 256 * 1024);
    }
}

#[test]
fn zfs_065_slog_limit_and_logbias() {
    // illumos: logbias=throughput sends lwbs to the main pool even with a SLOG; ZoL
    // 0.6.5 dropped that term (5d7a86d114), see zfs_065_slog_ignores_logbias.
    let mut c = cfg(true);
    c.logbias = Logbias::Throughput;
    let mut h = H::new(Release::Illumos2014, &[], c);
    h.fsync_loop(1, 2, 0);
    assert!(h.lwbs().iter().all(|l| !l.1));
    // A 4 MiB commit: past zil_slog_limit with a list over 2 MiB → main pool.
    let mut h = H::new(Release::Zfs065, &[], cfg(true));
    h.write_bytes = 4 << 20;
    h.fsync_loop(1, 1, 0);
    let l = h.lwbs();
    assert!(l[0].1 && !l.last().unwrap().1, "first lwbs on the SLOG, later ones not");
}

#[test]
fn slog_bulk_demotes_big_commits_to_async_write() {
    let mut h = H::new(Release::Zfs07, &[], cfg(true));
    h.write_bytes = 2 << 20;
    h.fsync_loop(1, 1, 0);
    let l = h.lwbs();
    assert_eq!(l[0].2, IoClass::SyncWrite);
    assert_eq!(l.last().unwrap().2, IoClass::AsyncWrite, "past 768 KiB of this commit");
    let k = l.iter().position(|x| x.2 == IoClass::AsyncWrite).unwrap();
    // Demoted from the first lwb that takes this commit past zil_slog_bulk (768 KiB).
    let sum = |n: usize| l[..n].iter().map(|x| x.0 as u64).sum::<u64>();
    assert!(sum(k) <= 768 * 1024 + 4096 * k as u64 && sum(k + 1) > 768 * 1024, "lwb {k}: {l:?}");
    // 2.3: 64 MiB threshold → all SYNC_WRITE.
    let mut h = H::new(Release::Zfs23, &[], cfg(true));
    h.write_bytes = 2 << 20;
    h.fsync_loop(1, 1, 0);
    assert!(h.lwbs().iter().all(|x| x.2 == IoClass::SyncWrite));
    // No SLOG: never demoted.
    let mut h = H::new(Release::Zfs07, &[], cfg(false));
    h.write_bytes = 2 << 20;
    h.o_dsync = true;
    h.fsync_loop(1, 1, 0);
    assert!(h.lwbs().iter().all(|x| x.2 == IoClass::SyncWrite));
}

#[test]
fn nocacheflush_means_no_flush() {
    for (r, t) in [
        (Release::Zfs08, "zil_nocacheflush"),
        (Release::Zfs22, "zfs_nocacheflush"),
        (Release::Zfs07, "zfs_nocacheflush"),
    ] {
        let mut h = H::new(r, &[(t, 1)], cfg(false));
        h.fsync_loop(4, 5, 10 * US);
        assert_eq!(h.count(is_flush), 0, "{r:?} {t}");
        assert!(h.count(is_lwb) > 0);
        assert_eq!(h.lat.len(), 20);
    }
}

#[test]
fn sync_disabled_does_no_io_and_reports_data_at_risk() {
    let mut c = cfg(false);
    c.sync = SyncMode::Disabled;
    let mut h = H::new(Release::Zfs22, &[], c);
    h.fsync_loop(2, 3, 0);
    assert_eq!(h.count(is_lwb) + h.count(is_flush) + h.count(is_ind), 0);
    assert_eq!(h.lat, vec![0; 6]);
    let risk: u64 = h
        .log
        .iter()
        .filter_map(|(_, a)| match a {
            ZilAction::AtRisk { bytes, .. } => Some(*bytes),
            _ => None,
        })
        .sum();
    assert_eq!(risk, 6 * 4096, "each promised byte counted once");
    // Once the txg synced, nothing is promised at risk.
    let mut out = vec![];
    h.z.write(1, 9, 0, 4096, u64::MAX, false, &mut out);
    h.z.on_txg_synced(1);
    h.z.commit(0, 9, 99, &mut out);
    assert_eq!(out, vec![ZilAction::Wake { waiter: 99 }]);
}

#[test]
fn zil_disable_on_solaris_2009_likewise() {
    let mut h = H::new(Release::Solaris2009, &[("zil_disable", 1)], cfg(false));
    h.o_dsync = true;
    h.fsync_loop(1, 4, 0);
    assert_eq!(h.count(is_lwb) + h.count(is_flush), 0);
    assert_eq!(h.count(|a| matches!(a, ZilAction::AtRisk { txg: 1, bytes: 4096 })), 4);
    // Without it the same workload logs.
    let mut h = H::new(Release::Solaris2009, &[], cfg(false));
    h.o_dsync = true;
    h.fsync_loop(1, 4, 0);
    // One lwb per commit, plus the initial 4 KiB block the first 4 KiB record (with its
    // header) does not fit: 2009 writes it out empty and starts an 8 KiB one.
    assert_eq!(h.count(is_lwb), 5);
}

#[test]
fn sync_always_needs_a_commit_per_write() {
    let mut c = cfg(false);
    c.sync = SyncMode::Always;
    let mut z = Zil::new(Release::Zfs22, &tun(Release::Zfs22, &[]), c);
    let mut out = vec![];
    assert!(z.write(1, 1, 0, 4096, u64::MAX, false, &mut out));
    let mut z = Zil::new(Release::Zfs22, &tun(Release::Zfs22, &[]), cfg(false));
    assert!(!z.write(1, 1, 0, 4096, u64::MAX, false, &mut out));
    assert!(z.write(1, 1, 0, 4096, u64::MAX, true, &mut out));
}

#[test]
fn fsync_commits_only_its_file_but_carries_earlier_sync_records() {
    let mut z = Zil::new(Release::Zfs21, &tun(Release::Zfs21, &[]), cfg(true));
    let mut out = vec![];
    z.write(1, 1, 0, 8192, u64::MAX, false, &mut out); // file 1, async
    z.write(1, 2, 0, 100_000, u64::MAX, false, &mut out); // file 2, async: not in file 1's commit
    z.commit(0, 1, 0, &mut out);
    // First commit: no latency yet → timer at 0; fire it.
    let t = out.iter().find_map(|a| if let ZilAction::Timer { token, .. } = a { Some(*token) } else { None }).unwrap();
    out.clear();
    z.on_timer(0, t, &mut out);
    let bytes: u32 =
        out.iter().filter_map(|a| if let ZilAction::LwbWrite { bytes, .. } = a { Some(*bytes) } else { None }).sum();
    assert!(bytes < 16 * 1024, "only file 1's 8 KiB went to the log: {bytes}");
}

#[test]
fn chained_completion_wakes_in_order() {
    // Two lwbs in flight; the second finishes writing first but wakes only after the first.
    let mut z = Zil::new(Release::Zfs21, &tun(Release::Zfs21, &[]), cfg(true));
    let mut out = vec![];
    z.write(1, 1, 0, 2048, u64::MAX, false, &mut out);
    z.commit(0, 1, 1, &mut out);
    let timer = |out: &Vec<ZilAction>| {
        out.iter().find_map(|a| if let ZilAction::Timer { token, .. } = a { Some(*token) } else { None }).unwrap()
    };
    let lwb = |out: &Vec<ZilAction>| {
        out.iter().find_map(|a| if let ZilAction::LwbWrite { token, .. } = a { Some(*token) } else { None }).unwrap()
    };
    let t1 = timer(&out);
    out.clear();
    z.on_timer(0, t1, &mut out);
    let w1 = lwb(&out);
    out.clear();
    z.write(1, 2, 0, 2048, u64::MAX, false, &mut out);
    z.commit(10, 2, 2, &mut out);
    let t2 = timer(&out);
    out.clear();
    z.on_timer(10, t2, &mut out);
    let w2 = lwb(&out);
    out.clear();
    z.on_io_done(20, w2, &mut out);
    let f2 = out.iter().find_map(|a| if let ZilAction::Flush { token, .. } = a { Some(*token) } else { None }).unwrap();
    out.clear();
    z.on_io_done(30, f2, &mut out);
    assert!(out.is_empty(), "lwb 2 is stable but lwb 1 is not: {out:?}");
    z.on_io_done(40, w1, &mut out);
    let f1 = out.iter().find_map(|a| if let ZilAction::Flush { token, .. } = a { Some(*token) } else { None }).unwrap();
    out.clear();
    z.on_io_done(50, f1, &mut out);
    assert_eq!(out, vec![ZilAction::Wake { waiter: 1 }, ZilAction::Wake { waiter: 2 }]);
}

#[test]
fn big_commit_defers_flushes_to_the_last_lwb() {
    for r in [Release::Zfs07, Release::Zfs08, Release::Zfs22, Release::Zfs23] {
        let mut h = H::new(r, &[], cfg(true));
        h.write_bytes = 1 << 20;
        h.fsync_loop(1, 1, 0);
        assert!(h.count(is_lwb) >= 8, "{r:?}");
        assert_eq!(h.count(is_flush), 1, "{r:?}: earlier lwbs have no waiters → one flush at the end");
        assert_eq!(h.lat.len(), 1);
    }
}

/// Zil and Txg driven together the way the simulator will: writes assigned by the txg,
/// `AtRisk` forwarded to it, `Synced` forwarded back.
fn risk_after(sync: SyncMode, r: Release, set: &[(&str, i64)]) -> crate::txg::RiskStats {
    use crate::txg::{Txg, TxgConfig};
    let t = tun(r, set);
    let mut txg = Txg::new(r, &t, TxgConfig { ram_bytes: 16 << 30, hz: 100 });
    let mut c = cfg(true);
    c.sync = sync;
    let mut z = Zil::new(r, &t, c);
    let (mut zo, mut to) = (vec![], vec![]);
    txg.start(0, &mut to);
    // One 8 KiB write + fsync every 100 ms for 8 s; log I/O and txg syncs are instant.
    for i in 0..80u32 {
        let now = i as u64 * 100 * MS;
        for phase in 0..2 {
            if phase == 0 {
                txg.on_timer(now, &mut to);
            } else {
                let crate::txg::TxDecision::Admit { txg: g } = txg.assign(now, i, 8192, now, false, &mut to) else {
                    panic!("throttled")
                };
                z.write(g, 1, 0, 8192, u64::MAX, false, &mut zo);
                z.commit(now, 1, i, &mut zo);
            }
            drain(&mut z, &mut txg, &mut zo, &mut to, now);
        }
    }
    txg.risk(8000 * MS)
}

fn drain(
    z: &mut Zil,
    txg: &mut crate::txg::Txg,
    zo: &mut Vec<ZilAction>,
    to: &mut Vec<crate::txg::TxgAction>,
    now: u64,
) {
    use crate::txg::TxgAction;
    while !zo.is_empty() || !to.is_empty() {
        for a in std::mem::take(zo) {
            match a {
                ZilAction::LwbWrite { token, .. }
                | ZilAction::IndirectWrite { token, .. }
                | ZilAction::Flush { token, .. } => z.on_io_done(now, token, zo),
                ZilAction::Timer { token, .. } => z.on_timer(now, token, zo),
                ZilAction::AtRisk { txg: g, bytes } => txg.add_at_risk(now, g, bytes),
                ZilAction::Wake { .. } => {}
                ZilAction::TxgWait { token } => z.on_io_done(now, token, zo),
            }
        }
        for a in std::mem::take(to) {
            match a {
                TxgAction::StartSync { txg: g, .. } => txg.on_sync_done(now, g, to),
                TxgAction::Synced { txg: g } => z.on_txg_synced(g),
                _ => {}
            }
        }
    }
}

#[test]
fn data_at_risk_only_without_the_log() {
    let r = risk_after(SyncMode::Disabled, Release::Zfs22, &[]);
    // Every fsynced write of a 5 s txg interval is at risk until the timeout sync.
    assert_eq!(r.at_risk_bytes_max, 8192 * 50, "{r:?}");
    assert_eq!(r.at_risk_window_ns_max, 5000 * MS, "{r:?}");
    assert!(r.at_risk_byte_ns > 0);
    let r = risk_after(SyncMode::Standard, Release::Zfs22, &[]);
    assert_eq!((r.at_risk_bytes_max, r.at_risk_byte_ns), (0, 0), "the ZIL made every fsync stable");
    assert!(r.unsynced_bytes_max > 0, "async exposure is still reported");
    let r = risk_after(SyncMode::Standard, Release::Solaris2009, &[("zil_disable", 1)]);
    assert!(r.at_risk_bytes_max > 0);
}

#[test]
fn zil_and_throttle_tunables_follow_the_source_per_release() {
    use crate::tunables::T;
    let t = |r| Tunables::defaults(r, 16 << 30);
    assert_eq!(t(Release::Zfs22).get(T::zil_slog_bulk), 768 * 1024);
    assert_eq!(t(Release::Zfs23).get(T::zil_slog_bulk), 64 << 20);
    assert!(t(Release::Zfs065).try_get(T::zil_slog_bulk).is_none());
    assert_eq!(t(Release::Zfs065).get(T::zil_slog_limit), 1 << 20);
    assert_eq!(t(Release::Zfs08).get(T::zfs_commit_timeout_pct), 5);
    assert_eq!(t(Release::Zfs23).get(T::zfs_commit_timeout_pct), 10);
    assert_eq!(t(Release::Zfs22).get(T::zil_min_commit_timeout), 5000);
    assert!(t(Release::Zfs23).try_get(T::zil_min_commit_timeout).is_none());
    assert!(t(Release::Zfs07).try_get(T::zil_nocacheflush).is_none());
    assert_eq!(t(Release::Solaris2009).get(T::zil_disable), 0);
    assert!(t(Release::Freebsd9).try_get(T::zil_disable).is_none());
    assert_eq!(t(Release::Zfs07).get(T::zfs_dirty_data_sync), 64 << 20);
    assert_eq!(t(Release::Zfs08).get(T::zfs_dirty_data_sync_percent), 20);
    assert!(t(Release::Zfs22).try_get(T::zfs_delay_max_ns).is_none(), "static const in 2.2");
    assert_eq!(t(Release::Zfs22).get(T::zfs_wrlog_data_max), 2 * t(Release::Zfs22).get(T::zfs_dirty_data_max));
    assert_eq!(t(Release::Illumos2012).get(T::zfs_write_limit_shift), 3);
    assert!(t(Release::Illumos2014).try_get(T::zfs_write_limit_min).is_none());
}

#[test]
fn write_state_is_picked_per_logged_chunk() {
    // (state, data bytes) of the records one write leaves on file 1's async list.
    let records = |r: Release, slog: bool, off: u64, len: u32| {
        let mut h = H::new(r, &[], cfg(slog));
        let mut out = vec![];
        h.z.write(1, 1, off, len, u64::MAX, false, &mut out);
        h.z.async_by_foid[&1].iter().map(|i| (i.state, i.data)).collect::<Vec<_>>()
    };
    use WriteState::*;
    let k = 1024u32;
    // 48 KiB at 120 KiB of 128 KiB records, no SLOG: up to 2.1 zfs_write logs 8 KiB (not
    // above zfs_immediate_write_sz: copied) then 40 KiB (INDIRECT); 2.2 logs the 48 KiB
    // at once (INDIRECT, one record per file block touched).
    assert_eq!(records(Release::Zfs21, false, 120 * 1024, 48 * k), [(NeedCopy, 8 * k), (Indirect, 0)]);
    assert_eq!(records(Release::Solaris2009, false, 120 * 1024, 48 * k), [(NeedCopy, 8 * k), (Indirect, 0)]);
    assert_eq!(records(Release::Zfs22, false, 120 * 1024, 48 * k), [(Indirect, 0), (Indirect, 0)]);
    // 1 MiB on solaris-2009: eight INDIRECT blocks without a SLOG; with one (logbias
    // latency) copied data, each 128 KiB chunk cut into 64 KiB records (ZIL_MAX_LOG_DATA).
    assert_eq!(records(Release::Solaris2009, false, 0, 1024 * k), [(Indirect, 0); 8]);
    assert_eq!(records(Release::Solaris2009, true, 0, 1024 * k), [(NeedCopy, 64 * k); 16]);
}

/// `zvol_log_write` (§6.2): the records of one volume write of `len` at `off`.
fn vol_recs(r: Release, volblock: u32, slog: bool, logbias: Logbias, off: u64, len: u64, sync: bool) -> Vec<(WriteState, u32, u64)> {
    let c = ZilConfig { slog, logbias, recordsize_bytes: volblock, volume: true, ..cfg(slog) };
    let mut recs = Vec::new();
    Zil::new(r, &tun(r, &[]), c).volume_records(off, len, sync, &mut recs);
    recs
}

#[test]
fn zvol_log_write_legacy_rule() {
    use WriteState::*;
    let lat = Logbias::Latency;
    // 8K volblocksize ≤ zvol_immediate_write_sz (32K): never INDIRECT; FUA → COPIED.
    assert_eq!(vol_recs(Release::Illumos2014, 8192, false, lat, 0, 16384, true), vec![(Copied, 16384, 16384)]);
    assert_eq!(vol_recs(Release::Illumos2014, 8192, false, lat, 0, 16384, false), vec![(NeedCopy, 16384, 16384)]);
    // logbias=throughput (imm 0): aligned full blocks INDIRECT, the unaligned head copied.
    let tp = vol_recs(Release::Zfs065, 8192, false, Logbias::Throughput, 4096, 20480, true);
    assert_eq!(tp, vec![(Copied, 20480, 20480)], "an unaligned start copies the rest in one chunk");
    let tp = vol_recs(Release::Zfs065, 8192, false, Logbias::Throughput, 8192, 20480, true);
    assert_eq!(tp, vec![(Indirect, 0, 8192), (Indirect, 0, 8192), (Copied, 4096, 4096)]);
    // 64K blocks (> 32K) without a SLOG: full aligned blocks INDIRECT; with one (latency): copied.
    assert_eq!(vol_recs(Release::Illumos2014, 65536, false, lat, 0, 65536, true), vec![(Indirect, 0, 65536)]);
    assert_eq!(vol_recs(Release::Illumos2014, 65536, true, lat, 0, 65536, true), vec![(Copied, 65536, 65536)]);
}

#[test]
fn zvol_log_write_rule_from_0_7() {
    use WriteState::*;
    let lat = Logbias::Latency;
    // One state for the whole write; INDIRECT records cut at block boundaries.
    assert_eq!(vol_recs(Release::Zfs22, 65536, false, lat, 32768, 131072, true), vec![(Indirect, 0, 32768), (Indirect, 0, 65536), (Indirect, 0, 32768)]);
    // Shorter than a block: copied (FUA) or need-copy, one record.
    assert_eq!(vol_recs(Release::Zfs22, 65536, false, lat, 0, 4096, true), vec![(Copied, 4096, 4096)]);
    assert_eq!(vol_recs(Release::Zfs07, 16384, false, lat, 0, 65536, false), vec![(NeedCopy, 65536, 65536)]);
    // 2.2: a FUA write above zil_maxcopied (7.5K) is NEED_COPY.
    assert_eq!(vol_recs(Release::Zfs22, 16384, false, lat, 0, 16384, true), vec![(NeedCopy, 16384, 16384)]);
    assert_eq!(vol_recs(Release::Zfs21, 16384, false, lat, 0, 16384, true), vec![(Copied, 16384, 16384)]);
    // logbias=throughput: INDIRECT whatever the size.
    assert_eq!(vol_recs(Release::Zfs22, 16384, true, Logbias::Throughput, 0, 4096, true), vec![(Indirect, 0, 4096)]);
}

/// Audit 3 F4: `zil_slog_limit` / `USE_SLOG` arrived in il d48e086f56 (Oct 2009); the
/// 2009 `zil_lwb_write_start` (il 2672fd86ff) allocates every lwb with `zio_alloc_blk`,
/// which tries the log class first, whatever the commit's size.
#[test]
fn solaris_2009_has_no_slog_limit() {
    let t = Tunables::defaults(Release::Solaris2009, 16 << 30);
    assert!(t.try_get(T::zil_slog_limit).is_none());
    assert_eq!(Tunables::defaults(Release::Freebsd9, 16 << 30).get(T::zil_slog_limit), 1 << 20);
    let mut h = H::new(Release::Solaris2009, &[], cfg(true));
    h.write_bytes = 4 << 20;
    h.fsync_loop(1, 1, 0);
    let l = h.lwbs();
    assert!(l.len() > 16, "{l:?}");
    assert!(l.iter().all(|x| x.1), "every lwb on the SLOG: {l:?}");
}

/// Audit 3 F9: ZoL 5d7a86d114 ("Use the slog even with logbias=throughput") took the
/// logbias term out of `USE_SLOG`; ZIL@zfs-0.6.5 tests only `zl_cur_used` and
/// `zl_itx_list_sz` against `zil_slog_limit`. illumos (il 73527f441c) keeps it.
#[test]
fn zfs_065_slog_ignores_logbias() {
    let mut c = cfg(true);
    c.logbias = Logbias::Throughput;
    for (r, on_slog) in [(Release::Zfs065, true), (Release::Illumos2014, false), (Release::Illumos2012, false)] {
        let mut h = H::new(r, &[], c);
        h.fsync_loop(1, 2, 0);
        let l = h.lwbs();
        assert!(!l.is_empty() && l.iter().all(|x| x.1 == on_slog), "{r:?}: {l:?}");
    }
}

/// Audit 3 F10: ZIL@zfs-0.8.0 (and 2.0.0, 2.1.0) `zil_commit_waiter` sleeps
/// `MAX(zfs_commit_timeout_pct, 1)` % of the last lwb latency: 0 still means 1 %.
#[test]
fn commit_timeout_pct_zero_still_waits_one_percent() {
    for r in [Release::Zfs08, Release::Zfs21] {
        let mut h = H::new(r, &[("zfs_commit_timeout_pct", 0)], cfg(false));
        h.write_bytes = 2048;
        h.fsync_loop(1, 2, 0);
        let l1 = h.lwb_ns + h.flush_ns;
        let issue: Vec<u64> = h.log.iter().filter(|(_, a)| is_lwb(a)).map(|(t, _)| *t).collect();
        assert_eq!(issue, vec![0, l1 + l1 / 100], "{r:?}");
    }
    // 2.2's "first" shortcut (zil_process_commit_list) computes its sleep with the bare
    // pct: 0 is below zil_min_commit_timeout, so a lone committer never waits.
    let mut h = H::new(Release::Zfs22, &[("zfs_commit_timeout_pct", 0)], cfg(false));
    h.write_bytes = 2048;
    h.lwb_ns = 10 * MS;
    h.fsync_loop(1, 3, 0);
    assert_eq!(h.lat, vec![h.lwb_ns + h.flush_ns; 3]);
}

/// Audit 3 F7: ZIL@zfs-2.2.0 (and 2.3.0) `zil_lwb_write_done` defers the flush only to a
/// next lwb in state ISSUED (its zio must already depend on this one); with a next lwb
/// still open the lwb flushes its own vdevs at once. 0.8 – 2.1 defer to any next lwb.
#[test]
fn zfs22_defers_a_flush_only_to_an_issued_lwb() {
    for (r, flush_at_once) in [(Release::Zfs22, true), (Release::Zfs21, false), (Release::Zfs08, false)] {
        let mut h = H::new(r, &[], cfg(true));
        h.write_bytes = 2048;
        h.fsync_loop(1, 3, 0); // a known lwb latency; every lwb stable
        // A 64 KiB commit: full lwbs go out at once, the last one stays open with the
        // waiter until the commit timeout.
        let (t0, mut out) = (100 * MS, vec![]);
        h.z.write(1, 7, 0, 64 * 1024, u64::MAX, false, &mut out);
        h.z.commit(t0, 7, 50, &mut out);
        let writes: Vec<Token> =
            out.iter().filter_map(|a| if let ZilAction::LwbWrite { token, .. } = a { Some(*token) } else { None }).collect();
        assert!(!writes.is_empty() && out.iter().any(|a| matches!(a, ZilAction::Timer { .. })), "{r:?}: {out:?}");
        // The lwb before the open one finishes writing before the timeout.
        let mut done = vec![];
        h.z.on_io_done(t0 + 10 * US, *writes.last().unwrap(), &mut done);
        assert_eq!(done.iter().any(is_flush), flush_at_once, "{r:?}: {done:?}");
    }
}

/// Audit 3 F8: include/sys/zil_impl.h@zfs-0.7.0 and @zfs-0.8.0 `ZIL_MAX_COPIED_DATA` and
/// ZIL@zfs-2.0.0/2.1.0 `zil_max_copied_data`: half a max-size log block less the record
/// header, (131 072 − 184) / 2 − 192 = 65 252 bytes; `zfs_log_write` and `zvol_log_write`
/// log larger O_DSYNC/FUA writes NEED_COPY. 2.2+: MIN(a whole block's data, zil_maxcopied).
#[test]
fn max_copied_data_is_half_a_log_block_from_0_7_to_2_1() {
    use WriteState::*;
    for r in [Release::Zfs07, Release::Zfs08, Release::Zfs20, Release::Zfs21] {
        let z = Zil::new(r, &tun(r, &[]), cfg(true));
        assert_eq!(z.write_state(65_252, 131_072, true), Copied, "{r:?}");
        assert_eq!(z.write_state(65_253, 131_072, true), NeedCopy, "{r:?}");
        assert_eq!(z.write_state(98_304, 131_072, true), NeedCopy, "{r:?}");
        let recs = vol_recs(r, 131_072, true, Logbias::Latency, 0, 98_304, true);
        assert_eq!(recs, vec![(NeedCopy, 98_304, 98_304)], "{r:?}");
    }
    // 2.0 – 2.1: from zl_max_block_size (zil_maxblocksize).
    let z = Zil::new(Release::Zfs21, &tun(Release::Zfs21, &[("zil_maxblocksize", 65_536)]), cfg(true));
    let half = (65_536 - 184) / 2 - 192;
    assert_eq!((z.write_state(half, 131_072, true), z.write_state(half + 1, 131_072, true)), (Copied, NeedCopy));
    // 2.2: zil_maxcopied, but never more than one max-size block holds.
    let z = Zil::new(Release::Zfs22, &tun(Release::Zfs22, &[("zil_maxcopied", 1 << 20)]), cfg(true));
    assert_eq!(z.write_state(130_696, 131_072, true), Copied);
    assert_eq!(z.write_state(130_697, 131_072, true), NeedCopy);
}

/// Audit 3 F3: before OpenZFS 7578 (il c5ee46810f, zfs-0.7.0) `zil_lwb_commit` never split
/// a record over log blocks — one that does not fit sends the current lwb out (even empty)
/// and goes whole into the next — and `zfs_log_write` cut every non-INDIRECT record larger
/// than `ZIL_MAX_LOG_DATA` to `SPA_OLD_MAXBLOCKSIZE / 2`, never falling back from COPIED
/// (ZL@zfs-0.6.5, il ce636f8b38 and il 73527f441c `zfs_log_write`, `zil_lwb_commit`).
#[test]
fn before_0_7_records_are_cut_to_64k_and_never_split() {
    use WriteState::*;
    let k = 1024u32;
    for r in [Release::Freebsd9, Release::Illumos2012, Release::Illumos2014, Release::Zfs065] {
        let mut h = H::new(r, &[], cfg(true));
        let mut out = vec![];
        h.z.write(1, 1, 0, 128 * k, u64::MAX, false, &mut out);
        let recs: Vec<_> = h.z.async_by_foid[&1].iter().map(|i| (i.state, i.data)).collect();
        assert_eq!(recs, [(NeedCopy, 64 * k); 2], "{r:?}");
        h.z.write(1, 2, 0, 128 * k, u64::MAX, true, &mut out);
        let recs: Vec<_> = h.z.sync_list.iter().map(|i| (i.state, i.data)).collect();
        assert_eq!(recs, [(Copied, 64 * k); 2], "{r:?}: O_DSYNC stays COPIED");
        // A 1 MiB write + fsync: 16 records of 65 728 bytes; two do not fit a 128 KiB
        // block (130 888 bytes of room), so each lwb carries one (68 KiB written) after
        // the initial 4 KiB block, which goes out empty.
        let mut h = H::new(r, &[], cfg(true));
        h.write_bytes = 1 << 20;
        h.fsync_loop(1, 1, 0);
        let sizes: Vec<u32> = h.lwbs().iter().map(|l| l.0 / k).collect();
        assert_eq!(sizes, [[4].as_slice(), &[68; 16]].concat(), "{r:?}");
    }
    // 0.7 splits NEED_COPY records over full blocks.
    let mut h = H::new(Release::Zfs07, &[], cfg(true));
    h.write_bytes = 1 << 20;
    h.fsync_loop(1, 1, 0);
    assert!(h.lwbs().iter().filter(|l| l.0 == 128 * k).count() >= 7, "{:?}", h.lwbs());
}

/// Audit 3, minor note: ZIL@zfs-2.3.0 `zil_lwb_write_issue` demotes a SLOG lwb to
/// ASYNC_WRITE when `zl_cur_size` (the whole burst, summed by `zil_get_commit_list`) is
/// past `zil_slog_bulk`. A burst that ends at once (not parallel) has been through
/// `zil_burst_done` (`zl_cur_size` = 0) before `zil_commit_writer` issues its lwbs, so
/// all of them are SYNC_WRITE; in a parallel burst every full lwb is demoted from the
/// first, and the last one, issued after `zil_burst_done`, is not.
#[test]
fn zfs23_slog_bulk_looks_at_the_whole_burst() {
    let bulk = [("zil_slog_bulk", 768 * 1024)];
    let mut h = H::new(Release::Zfs23, &bulk, cfg(true));
    h.write_bytes = 2 << 20;
    h.fsync_loop(1, 1, 0);
    assert!(h.lwbs().len() > 8 && h.lwbs().iter().all(|x| x.2 == IoClass::SyncWrite), "{:?}", h.lwbs());
    // Parallel: a 2 MiB commit behind an unflushed lwb.
    let mut z = Zil::new(Release::Zfs23, &tun(Release::Zfs23, &bulk), cfg(true));
    let mut out = vec![];
    z.write(1, 1, 0, 2048, u64::MAX, false, &mut out);
    z.commit(0, 1, 1, &mut out);
    assert!(out.iter().any(is_lwb), "not parallel yet: issued at once");
    out.clear();
    z.write(1, 2, 0, 2 << 20, u64::MAX, false, &mut out);
    z.commit(10 * US, 2, 2, &mut out);
    let classes: Vec<IoClass> =
        out.iter().filter_map(|a| if let ZilAction::LwbWrite { class, .. } = a { Some(*class) } else { None }).collect();
    assert!(!classes.is_empty() && classes.iter().all(|c| *c == IoClass::AsyncWrite), "{classes:?}");
    let t = out.iter().find_map(|a| if let ZilAction::Timer { token, .. } = a { Some(*token) } else { None }).unwrap();
    out.clear();
    z.on_timer(50 * US, t, &mut out);
    assert!(matches!(out[..], [ZilAction::LwbWrite { class: IoClass::SyncWrite, .. }]), "{out:?}");
}

/// A SLOG whose every lwb write fails: what a commit does about it, per era.
fn dead_slog(r: Release) -> H {
    let mut h = H::new(r, &[], cfg(true));
    h.slog_dead = true;
    h.fsync_loop(1, 3, 0);
    h
}

#[test]
fn failed_lwb_waits_for_a_txg_sync_in_2009_and_from_2_2() {
    // il:379c004d1f zl_log_error → txg_wait_synced; ZIL@zfs-2.2.0 zcw_zio_error → the same.
    for r in [Release::Solaris2009, Release::Zfs22, Release::Zfs23] {
        let h = dead_slog(r);
        let st = h.z.stats();
        assert_eq!(st.commits_txg_fallback, 3, "{r:?} {st:?}");
        assert_eq!(st.commits_unlogged, 0, "{r:?}");
        assert!(st.lwb_write_errors >= 3, "{r:?} {st:?}");
        assert_eq!(h.lat.len(), 3, "{r:?}: every commit ends");
        assert!(h.lat.iter().all(|&l| l >= h.txg_wait_ns), "{r:?} {:?}", h.lat);
        assert!(h.risk.is_empty(), "{r:?}: nothing acknowledged before its txg synced");
    }
}

#[test]
fn failed_lwb_goes_unnoticed_from_2009_to_2_1() {
    // ZIO_FLAG_DONT_PROPAGATE on the lwb write (il:8f18d1fadf … ZIL@zfs-2.1.0): the commit
    // returns as if logged, and its bytes are at risk until their txg syncs.
    for r in [Release::Freebsd9, Release::Illumos2014, Release::Zfs065, Release::Zfs07, Release::Zfs08, Release::Zfs21] {
        let h = dead_slog(r);
        let st = h.z.stats();
        assert_eq!(st.commits_unlogged, 3, "{r:?} {st:?}");
        assert_eq!(st.commits_txg_fallback, 0, "{r:?}");
        assert_eq!(h.lat.len(), 3, "{r:?}");
        assert!(h.lat.iter().all(|&l| l < h.txg_wait_ns), "{r:?} {:?}", h.lat);
        let bytes: u64 = h.risk.iter().map(|e| e.1).sum();
        assert_eq!(bytes, 3 * 4096, "{r:?} {:?}", h.risk);
        // No flush after a failed write in the pipeline eras (zil_lwb_write_done).
        if r >= Release::Zfs08 {
            assert_eq!(st.flushes, 0, "{r:?} {st:?}");
        }
    }
}

#[test]
fn a_healthy_slog_never_falls_back() {
    for r in [Release::Solaris2009, Release::Zfs07, Release::Zfs21, Release::Zfs23] {
        let mut h = H::new(r, &[], cfg(true));
        h.fsync_loop(2, 5, 0);
        let st = h.z.stats();
        assert_eq!((st.lwb_write_errors, st.commits_txg_fallback, st.commits_unlogged), (0, 0, 0), "{r:?}");
        assert!(h.risk.is_empty());
    }
}

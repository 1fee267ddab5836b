//! Rules of each vdev_queue era, pinned (`spec/zfs-model.md` §2). Each test drives a policy
//! the way the model does: `enqueue` then `next_issue` until `None`; `complete` then again.

use super::classes::Limits;
use super::nia::NiaPolicy;
use super::order::InClassOrder;
use super::*;
use crate::io::{flags, IoClass, IoClass::*, IoSlab, LeafIo, Op, NO_IO};
use crate::tunables::Tunables;
use ziosim_engine::Rng;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;
const GIB: u64 = 1024 * MIB;
const S: u64 = 1_000_000_000;

fn tunables(r: Release, tweaks: &[(&str, i64)]) -> Tunables {
    let mut t = Tunables::defaults(r, 16 * GIB);
    for (n, v) in tweaks {
        t.set(n, *v).unwrap();
    }
    t
}

struct H {
    ios: IoSlab,
    q: Box<dyn QueuePolicy>,
    env: QueueEnv,
    now: u64,
}

impl H {
    fn new(r: Release, tweaks: &[(&str, i64)]) -> H {
        H::with(build(r, 100, &tunables(r, tweaks), true))
    }
    fn with(q: Box<dyn QueuePolicy>) -> H {
        H { ios: IoSlab::new(), q, env: QueueEnv::default(), now: 0 }
    }
    fn add_f(&mut self, class: IoClass, op: Op, off: u64, size: u64, f: u8) -> IoId {
        let mut io = LeafIo::new(0, op, class, off, size as u32);
        io.flags = f;
        io.enqueue_ns = self.now;
        let id = self.ios.alloc(io);
        self.q.enqueue(id, &mut self.ios, self.now);
        id
    }
    fn add(&mut self, class: IoClass, off: u64, size: u64) -> IoId {
        let op = match class {
            SyncWrite | AsyncWrite | Initializing | Trim => Op::Write,
            _ => Op::Read,
        };
        self.add_f(class, op, off, size, 0)
    }
    fn pump(&mut self) -> Vec<Issue> {
        let mut v = Vec::new();
        while let Some(i) = self.q.next_issue(&mut self.ios, self.now, &self.env) {
            v.push(i);
            assert!(v.len() < 100_000, "next_issue never returns None");
        }
        v
    }
    fn done(&mut self, i: &Issue) {
        self.q.complete(i, &self.ios, self.now);
    }
    fn members(&self, i: &Issue) -> Vec<IoId> {
        let mut v = vec![i.head];
        while let n @ 0..=0xFFFF_FFFE = self.ios.get(*v.last().unwrap()).agg_next {
            v.push(n);
        }
        v
    }
    fn depth(&self, c: IoClass) -> ClassDepth {
        self.q.depths()[c.idx()]
    }
}

fn classes_of(v: &[Issue]) -> Vec<IoClass> {
    v.iter().map(|i| i.class).collect()
}

// ---------------------------------------------------------------- 2013 class scheduler

#[test]
fn strict_priority_sync_read_before_scrub_in_min_pass() {
    for r in [Release::Illumos2014, Release::Zfs065, Release::Zfs20] {
        let mut h = H::new(r, &[("zfs_vdev_max_active", 1)]);
        h.add(Scrub, 0, 4096);
        h.add(SyncRead, 10 * MIB, 4096);
        let v = h.pump();
        assert_eq!(classes_of(&v), vec![SyncRead], "{r:?}");
        h.done(&v[0]);
        assert_eq!(classes_of(&h.pump()), vec![Scrub], "{r:?}");
    }
}

#[test]
fn min_pass_gives_scrub_its_minimum_before_more_sync_reads() {
    // sync reads min 10 / max 20 here: pass 1 fills SR to 10, then scrub to its min 1, and
    // only pass 2 lets SR go on to 20 before scrub's second slot.
    let mut h = H::new(Release::Zfs065, &[("zfs_vdev_sync_read_max_active", 20)]);
    for i in 0..30 {
        h.add(SyncRead, i * MIB, 4096);
    }
    for i in 0..5 {
        h.add(Scrub, 100 * GIB + i * MIB, 4096);
    }
    let v = classes_of(&h.pump());
    let mut want = vec![SyncRead; 10];
    want.push(Scrub);
    want.extend([SyncRead; 10]);
    want.push(Scrub);
    assert_eq!(v, want);
    assert_eq!(h.depth(SyncRead), ClassDepth { queued: 10, active: 20 });
    assert_eq!(h.depth(Scrub), ClassDepth { queued: 3, active: 2 });
}

#[test]
fn max_active_caps_each_class_and_the_leaf() {
    let mut h = H::new(Release::Zfs08, &[]);
    for i in 0..30 {
        h.add(AsyncRead, i * MIB, 4096);
        h.add(Scrub, 100 * GIB + i * MIB, 4096);
    }
    let v = h.pump();
    assert_eq!(v.iter().filter(|i| i.class == AsyncRead).count(), 3);
    assert_eq!(v.iter().filter(|i| i.class == Scrub).count(), 2);
    assert!(h.pump().is_empty());

    let mut h = H::new(Release::Zfs08, &[("zfs_vdev_max_active", 5)]);
    for i in 0..30 {
        h.add(SyncRead, i * MIB, 4096);
        h.add(AsyncRead, 100 * GIB + i * MIB, 4096);
    }
    let v = h.pump();
    assert_eq!(v.len(), 5);
    assert!(v.iter().all(|i| i.class == SyncRead), "strict priority fills the leaf cap with sync reads");
    h.done(&v[0]);
    assert_eq!(h.pump().len(), 1);
}

#[test]
fn async_write_max_active_follows_dirty_data() {
    for (r, min) in [(Release::Illumos2014, 1), (Release::Zfs065, 1), (Release::Zfs07, 2), (Release::Zfs22, 2)] {
        // a dirty_data_max divisible by 100, so 45 % is exactly half way
        let t = tunables(r, &[("zfs_dirty_data_max", 1_000_000_000)]);
        let lim = Limits::from_tunables(r, &t);
        let dmax = t.get(T::zfs_dirty_data_max) as u64;
        let at = |pct: u64| lim.async_write_max(&QueueEnv { dirty_bytes: dmax * pct / 100, pending_synctask: false });
        // 45 %: (15 % / 30 %) x (10 - min) + min, truncated.
        let mid = (10 - min) / 2 + min;
        assert_eq!([at(0), at(30), at(45), at(60), at(100)], [min, min, mid, 10, 10], "{r:?}");
        let sync = QueueEnv { dirty_bytes: 0, pending_synctask: true };
        assert_eq!(lim.async_write_max(&sync), 10, "{r:?}: a pending sync task forces the maximum");
    }
    assert_eq!(Release::Zfs065.queue_era(), QueueEra::Classes);
    // Through the policy: 45 % dirty on 0.6.5 lets 5 async writes out, not 10.
    let mut h = H::new(Release::Zfs065, &[("zfs_vdev_aggregation_limit", 0)]);
    h.env.dirty_bytes = tunables(Release::Zfs065, &[]).get(T::zfs_dirty_data_max) as u64 * 45 / 100;
    for i in 0..20 {
        h.add(AsyncWrite, i * MIB, 4096);
    }
    assert_eq!(h.pump().len(), 5);
    h.env.dirty_bytes = 0;
    let mut h2 = H::new(Release::Zfs065, &[]);
    for i in 0..20 {
        h2.add(AsyncWrite, i * MIB, 4096);
    }
    assert_eq!(h2.pump().len(), 1, "async_write_min_active is 1 before zfs-0.7");
    let mut h3 = H::new(Release::Zfs07, &[]);
    for i in 0..20 {
        h3.add(AsyncWrite, i * MIB, 4096);
    }
    assert_eq!(h3.pump().len(), 2, "async_write_min_active is 2 from zfs-0.7");
}

#[test]
fn enqueue_makes_one_attempt_completion_loops() {
    // vdev_queue_io tries once; a burst queued without attempts in between issues one.
    let mut h = H::new(Release::Zfs08, &[]);
    h.add(SyncRead, 0, 4096);
    assert_eq!(h.pump().len(), 1);
    assert!(h.q.next_issue(&mut h.ios, 0, &QueueEnv::default()).is_none());
    h.add(SyncRead, 10 * MIB, 4096);
    h.add(SyncRead, 20 * MIB, 4096);
    assert_eq!(h.pump().len(), 2, "one attempt owed per enqueue");
}

// ---------------------------------------------------------------- in-class order

#[test]
fn lba_classes_run_c_scan_and_wrap() {
    let mut h = H::new(Release::Zfs08, &[("zfs_vdev_max_active", 1), ("zfs_vdev_aggregation_limit", 0)]);
    let first = h.add(AsyncRead, 500 * MIB, 4096);
    let v = h.pump();
    assert_eq!(v[0].head, first);
    for off in [900, 100, 600, 400] {
        h.add(AsyncRead, off * MIB, 4096);
    }
    let mut order = Vec::new();
    let mut cur = v[0];
    loop {
        h.done(&cur);
        let v = h.pump();
        if v.is_empty() {
            break;
        }
        order.push(v[0].offset / MIB);
        cur = v[0];
    }
    assert_eq!(order, vec![600, 900, 100, 400]);
}

#[test]
fn last_offset_is_issue_start_before_zfs_08_and_end_after() {
    // A issued at 1 MiB (128 KiB); B queued inside A's range, C beyond it.
    for (r, want) in [(Release::Zfs065, [1024 + 64, 2048]), (Release::Zfs08, [2048, 1024 + 64])] {
        let mut h = H::new(r, &[("zfs_vdev_max_active", 1), ("zfs_vdev_aggregation_limit", 0)]);
        h.add(AsyncRead, MIB, 128 * KIB);
        let a = h.pump()[0];
        h.add(AsyncRead, 2 * MIB, 4096);
        h.add(AsyncRead, MIB + 64 * KIB, 4096);
        h.done(&a);
        let b = h.pump()[0];
        h.done(&b);
        let c = h.pump()[0];
        assert_eq!([b.offset / KIB, c.offset / KIB], want, "{r:?}");
    }
}

#[test]
fn sync_classes_are_fifo() {
    let mut h = H::new(Release::Zfs21, &[("zfs_vdev_max_active", 1)]);
    h.add(SyncRead, 50 * MIB, 4096);
    let mut cur = h.pump()[0];
    for (i, off) in [900u64, 100, 600].iter().enumerate() {
        h.now = (i as u64 + 1) * 1000;
        h.add(SyncRead, off * MIB, 4096);
    }
    let mut order = Vec::new();
    loop {
        h.done(&cur);
        let Some(&i) = h.pump().first() else { break };
        order.push(i.offset / MIB);
        cur = i;
    }
    assert_eq!(order, vec![900, 100, 600]);
}

#[test]
fn same_nanosecond_fifo_ios_keep_their_queue_order() {
    // A commit's lwbs are queued in one simulated instant; the slab hands out recycled
    // ids, so the ids run against the queue order. ZFS issues them in order (distinct
    // io_timestamps up to 2.1, a list from 2.2).
    for r in [Release::Zfs07, Release::Zfs21, Release::Zfs22] {
        let mut h = H::new(r, &[("zfs_vdev_max_active", 1), ("zfs_vdev_aggregation_limit", 0)]);
        let first = h.add(SyncWrite, 0, 4096);
        let mut cur = h.pump()[0];
        assert_eq!(cur.head, first);
        // Free three slab slots so the next allocations reuse them (LIFO).
        let spare: Vec<IoId> = (0..3).map(|_| h.ios.alloc(LeafIo::new(0, Op::Write, SyncWrite, 0, 0))).collect();
        for id in spare {
            h.ios.free(id);
        }
        let ids: Vec<IoId> = [1u64, 2, 3].iter().map(|&k| h.add(SyncWrite, k * MIB, 4096)).collect();
        assert!(ids.windows(2).all(|w| w[0] > w[1]), "ids must run backwards for this test: {ids:?}");
        let mut order = Vec::new();
        loop {
            h.done(&cur);
            let Some(&i) = h.pump().first() else { break };
            order.push(i.offset / MIB);
            cur = i;
        }
        assert_eq!(order, vec![1, 2, 3], "{r:?}");
    }
}

#[test]
fn zfs22_old_bucket_beats_newer_lower_offset() {
    let run = |r: Release| {
        let mut h = H::new(r, &[("zfs_vdev_max_active", 1), ("zfs_vdev_aggregation_limit", 0)]);
        h.add(AsyncRead, 5 * GIB, 4096);
        let a = h.pump()[0];
        h.now = 300_000_000; // bucket 0 (< 2^29 ns)
        h.add(AsyncRead, 900 * MIB, 4096);
        h.now = 600_000_000; // bucket 1
        h.add(AsyncRead, 100 * MIB, 4096);
        h.now = 700_000_000;
        h.done(&a);
        let b = h.pump()[0];
        h.done(&b);
        let c = h.pump()[0];
        [b.offset / MIB, c.offset / MIB]
    };
    assert_eq!(run(Release::Zfs22), [900, 100], "2.2: the older 0.537 s bucket goes first");
    assert_eq!(run(Release::Zfs21), [100, 900], "2.1: pure C-SCAN wraps to the lowest offset");
}

#[test]
fn zfs22_c_scan_inside_a_bucket() {
    let mut h = H::new(Release::Zfs22, &[("zfs_vdev_max_active", 1), ("zfs_vdev_aggregation_limit", 0)]);
    h.add(AsyncRead, 500 * MIB, 4096);
    let mut cur = h.pump()[0];
    for off in [900, 100, 600] {
        h.add(AsyncRead, off * MIB, 4096);
    }
    let mut order = Vec::new();
    loop {
        h.done(&cur);
        let Some(&i) = h.pump().first() else { break };
        order.push(i.offset / MIB);
        cur = i;
    }
    assert_eq!(order, vec![600, 900, 100]);
}

// ---------------------------------------------------------------- priority change (0.8+)

/// A queued prefetch raised to SYNC_READ (`vdev_queue_change_io_priority`): it leaves the
/// async-read queue; 0.8 … 2.1 sort it among the sync reads by the time it was queued,
/// 2.2+ put it at the tail of the sync-read list. The I/O at the disk is left alone.
#[test]
fn a_queued_read_raised_to_sync_read_goes_by_its_era_s_fifo_rule() {
    for (r, raised_first) in [(Release::Zfs08, true), (Release::Zfs20, true), (Release::Zfs21, true), (Release::Zfs22, false), (Release::Zfs23, false)] {
        let mut h = H::new(r, &[("zfs_vdev_max_active", 1)]);
        let busy = h.add(Scrub, 900 * GIB, 128 * KIB);
        let v = h.pump();
        assert_eq!(v.len(), 1, "{r:?}");
        let pf = h.add(AsyncRead, 500 * MIB, 128 * KIB);
        h.now = 10;
        let s1 = h.add(SyncRead, GIB, 4 * KIB);
        h.now = 20;
        let s2 = h.add(SyncRead, 2 * GIB, 4 * KIB);
        h.now = 30;
        assert!(!h.q.change_priority(busy, SyncRead, &mut h.ios), "{r:?}: an active I/O keeps its class");
        assert_eq!(h.depth(Scrub), ClassDepth { queued: 0, active: 1 }, "{r:?}");
        assert!(h.q.change_priority(pf, SyncRead, &mut h.ios), "{r:?}");
        assert_eq!(h.ios.get(pf).class, SyncRead);
        assert_eq!(h.depth(AsyncRead).queued, 0, "{r:?}");
        assert_eq!(h.depth(SyncRead).queued, 3, "{r:?}");
        assert!(h.pump().is_empty(), "{r:?}: the change itself issues nothing");
        let mut order = Vec::new();
        let mut last = v[0];
        for _ in 0..3 {
            h.done(&last);
            let v = h.pump();
            assert_eq!(v.len(), 1, "{r:?}");
            assert_eq!(v[0].class, SyncRead, "{r:?}");
            order.push(v[0].head);
            last = v[0];
        }
        let want = if raised_first { vec![pf, s1, s2] } else { vec![s1, s2, pf] };
        assert_eq!(order, want, "{r:?}");
    }
}

/// Without the change the same prefetch waits behind both sync reads on every era, and the
/// pre-2013 deadline queue has no way to change a priority.
#[test]
fn an_unraised_prefetch_waits_and_the_deadline_queue_cannot_raise_one() {
    let mut h = H::new(Release::Zfs08, &[("zfs_vdev_max_active", 1)]);
    h.add(Scrub, 900 * GIB, 128 * KIB);
    let mut last = h.pump()[0];
    let pf = h.add(AsyncRead, 500 * MIB, 128 * KIB);
    h.now = 10;
    h.add(SyncRead, GIB, 4 * KIB);
    h.add(SyncRead, 2 * GIB, 4 * KIB);
    let mut order = Vec::new();
    for _ in 0..3 {
        h.done(&last);
        last = h.pump()[0];
        order.push(last.head);
    }
    assert_eq!(order[2], pf);
    for r in [Release::Solaris2009, Release::Freebsd9, Release::Illumos2012] {
        let mut h = H::new(r, &[("zfs_vdev_min_pending", 1), ("zfs_vdev_max_pending", 1)]);
        h.add(Scrub, 900 * GIB, 128 * KIB);
        h.pump();
        let pf = h.add(AsyncRead, 500 * MIB, 128 * KIB);
        assert!(h.pump().is_empty(), "{r:?}: queued");
        assert!(!h.q.change_priority(pf, SyncRead, &mut h.ios), "{r:?}");
        assert_eq!(h.ios.get(pf).class, AsyncRead, "{r:?}");
    }
}

// ---------------------------------------------------------------- NIA throttle (2.1, 2.2)

fn nia(r: Release, tweaks: &[(&str, i64)]) -> (NiaPolicy, Tunables) {
    let t = tunables(r, tweaks);
    let lim = Limits::from_tunables(r, &t);
    let p = NiaPolicy::new(lim, &t, InClassOrder::From, agg_params(r, &t, true), r >= Release::Zfs22);
    (p, t)
}

struct N {
    q: NiaPolicy,
    ios: IoSlab,
}
impl N {
    fn new(tweaks: &[(&str, i64)]) -> N {
        N { q: nia(Release::Zfs21, tweaks).0, ios: IoSlab::new() }
    }
    fn add(&mut self, class: IoClass, off: u64) {
        let mut io = LeafIo::new(0, Op::Read, class, off, 4096);
        io.enqueue_ns = 0;
        let id = self.ios.alloc(io);
        self.q.enqueue(id, &mut self.ios, 0);
    }
    fn pump(&mut self) -> Vec<Issue> {
        let mut v = Vec::new();
        while let Some(i) = self.q.next_issue(&mut self.ios, 0, &QueueEnv::default()) {
            v.push(i);
        }
        v
    }
    fn done(&mut self, i: &Issue) {
        self.q.complete(i, &self.ios, 0);
    }
    fn scrub_active(&self) -> u32 {
        self.q.depths()[Scrub.idx()].active
    }
}

#[test]
fn nia_one_scrub_with_interactive_io_and_only_with_credit() {
    let mut n = N::new(&[("zfs_vdev_aggregation_limit", 0)]);
    n.add(SyncRead, 0);
    let sr = n.pump();
    assert_eq!(n.q.nia_state(), (1, 1), "first interactive issue sets credit to 1");
    for i in 0..6 {
        n.add(Scrub, (10 + i) * GIB);
    }
    let v = n.pump();
    assert_eq!(classes_of(&v), vec![Scrub], "one scrub on the starting credit");
    assert_eq!(n.q.nia_state(), (1, 0));
    n.done(&v[0]);
    assert!(n.pump().is_empty(), "no credit left while the sync read is outstanding");
    assert_eq!(n.scrub_active(), 0);
    // The last interactive completion resets credit to 0; scrub then runs 1 at a time.
    n.done(&sr[0]);
    assert_eq!(n.q.nia_state(), (0, 0));
    let v = n.pump();
    assert_eq!(v.len(), 1);
}

#[test]
fn nia_credit_refills_on_interactive_completion() {
    let mut n = N::new(&[("zfs_vdev_aggregation_limit", 0)]);
    n.add(SyncRead, 0);
    n.add(SyncRead, GIB);
    let sr = n.pump();
    assert_eq!(sr.len(), 2);
    n.add(Scrub, 10 * GIB);
    n.add(Scrub, 11 * GIB);
    n.add(Scrub, 12 * GIB);
    let s1 = n.pump();
    assert_eq!(s1.len(), 1);
    assert_eq!(n.q.nia_state(), (2, 0));
    n.done(&sr[0]);
    assert_eq!(n.q.nia_state(), (1, 5), "refilled to zfs_vdev_nia_credit");
    assert!(n.pump().is_empty(), "still at most one scrub active with interactive I/O out");
    n.done(&s1[0]);
    let s2 = n.pump();
    assert_eq!(s2.len(), 1);
    assert_eq!(n.q.nia_state(), (1, 4));
    // A different credit tunable refills to that value.
    let mut n = N::new(&[("zfs_vdev_nia_credit", 2)]);
    n.add(SyncRead, 0);
    n.add(SyncRead, GIB);
    let sr = n.pump();
    n.done(&sr[0]);
    assert_eq!(n.q.nia_state(), (1, 2));
}

#[test]
fn nia_idle_after_nia_delay_completions_scrub_runs_to_max() {
    let mut n = N::new(&[("zfs_vdev_aggregation_limit", 0)]);
    for i in 0..40 {
        n.add(Scrub, i * GIB);
    }
    let mut maxima = Vec::new();
    let mut out = n.pump();
    for _ in 0..8 {
        maxima.push(n.scrub_active());
        let i = out.remove(0);
        n.done(&i);
        out.extend(n.pump());
    }
    // credit counts NIA completions on an idle disk: 1 active until 5 completions, then 3.
    assert_eq!(maxima, vec![1, 1, 1, 1, 1, 3, 3, 3]);
    // An interactive I/O brings it back to the throttle.
    n.add(SyncRead, 0);
    let v = n.pump();
    assert_eq!(classes_of(&v), vec![SyncRead]);
    assert_eq!(n.q.nia_state(), (1, 1));
    assert_eq!(n.scrub_active(), 3, "already-active scrubs are not aborted");
    for i in out.drain(..) {
        n.done(&i);
        assert!(n.pump().iter().all(|i| i.class != Scrub) || n.scrub_active() <= 1);
    }
    assert!(n.scrub_active() <= 1);
}

#[test]
fn nia_round_robin_first_pass_rotates() {
    let order = |r: Release| {
        let mut h = H::new(r, &[("zfs_vdev_max_active", 1), ("zfs_vdev_aggregation_limit", 0)]);
        h.add(SyncRead, 0, 4096);
        let mut cur = h.pump()[0];
        for i in 0..2 {
            h.add(SyncRead, (1 + i) * MIB, 4096);
            h.add(AsyncRead, (10 + i) * MIB, 4096);
        }
        let mut v = Vec::new();
        loop {
            h.done(&cur);
            let Some(&i) = h.pump().first() else { break };
            v.push(i.class);
            cur = i;
        }
        v
    };
    assert_eq!(order(Release::Zfs20), vec![SyncRead, SyncRead, AsyncRead, AsyncRead], "2013: strict priority");
    assert_eq!(order(Release::Zfs21), vec![AsyncRead, SyncRead, AsyncRead, SyncRead], "2.1: round robin");
    assert_eq!(order(Release::Zfs22), vec![AsyncRead, SyncRead, AsyncRead, SyncRead], "2.2: round robin");
}

#[test]
fn zfs22_failed_pick_restarts_round_robin_at_sync_read() {
    let first_class = |r: Release| {
        let mut h = H::new(r, &[("zfs_vdev_max_active", 4), ("zfs_vdev_aggregation_limit", 0)]);
        for i in 0..3 {
            h.add(AsyncRead, i * GIB, 4096);
        }
        assert_eq!(h.pump().len(), 3);
        h.add(AsyncRead, 9 * GIB, 4096);
        assert!(h.pump().is_empty(), "async read at its max: the pick fails");
        h.add(AsyncWrite, 20 * GIB, 4096);
        h.add(SyncRead, 30 * GIB, 4096);
        let v = h.pump();
        assert_eq!(v.len(), 1, "one slot left under max_active 4");
        v[0].class
    };
    assert_eq!(first_class(Release::Zfs21), AsyncWrite, "2.1 keeps last_prio = async read");
    assert_eq!(first_class(Release::Zfs22), SyncRead, "2.2 resets last_prio after a failed pick");
}

// ---------------------------------------------------------------- aggregation

#[test]
fn adjacent_reads_merge_up_to_the_limit() {
    let mut h = H::new(Release::Zfs07, &[]); // limit 128 KiB
    let ids: Vec<IoId> = (0..24).map(|i| h.add(AsyncRead, MIB + i * 8 * KIB, 8 * KIB)).collect();
    let v = h.pump();
    assert_eq!(v[0].members, 16);
    assert_eq!((v[0].offset, v[0].size), (MIB, 128 * KIB));
    assert_eq!(h.members(&v[0]), ids[..16].to_vec(), "members chain in offset order");
    assert_eq!(h.ios.get(ids[15]).agg_next, NO_IO);
    assert_eq!(v.len(), 2);
    assert_eq!((v[1].members, v[1].offset, v[1].size), (8, MIB + 128 * KIB, 64 * KIB));
    assert_eq!(h.depth(AsyncRead), ClassDepth { queued: 0, active: 2 }, "an aggregate is one active I/O");

    let mut h = H::new(Release::Zfs08, &[]); // 1 MiB rotating, 128 KiB non-rotating
    (0..200).for_each(|i| _ = h.add(AsyncRead, i * 8 * KIB, 8 * KIB));
    assert_eq!(h.pump()[0].size, MIB);
    let t = tunables(Release::Zfs08, &[]);
    let mut h = H::with(build(Release::Zfs08, 100, &t, false));
    (0..200).for_each(|i| _ = h.add(AsyncRead, i * 8 * KIB, 8 * KIB));
    assert_eq!(h.pump()[0].size, 128 * KIB, "aggregation_limit_non_rotating");

    // Pre-2013: 128 KiB even if the tunable says more.
    let mut h = H::new(Release::Illumos2012, &[("zfs_vdev_aggregation_limit", MIB as i64)]);
    (0..200).for_each(|i| _ = h.add(AsyncRead, i * 8 * KIB, 8 * KIB));
    assert_eq!(h.pump()[0].size, 128 * KIB);
}

#[test]
fn read_gap_limit() {
    for (gap, merged) in [(0, true), (32 * KIB, true), (32 * KIB + 512, false)] {
        let mut h = H::new(Release::Zfs08, &[]);
        h.add(AsyncRead, MIB, 16 * KIB);
        h.add(AsyncRead, MIB + 16 * KIB + gap, 16 * KIB);
        let v = h.pump();
        if merged {
            assert_eq!(v[0].members, 2, "gap {gap}");
            assert_eq!(v[0].size, 32 * KIB + gap, "gap bytes are transferred");
        } else {
            assert!(v.iter().all(|i| i.members == 1), "gap {gap}");
        }
    }
}

#[test]
fn before_illumos_5313_aggregation_stays_inside_the_class_queue() {
    // illumos-2014 (pre-5313): neighbours are the class queue's own, and the FIFO sync
    // classes never merge (il:69962b5647 `vdev_queue_aggregate`: "the synchronous i/o queues
    // are not sorted by LBA"); zfs-0.6.5: the read offset tree of all classes.
    let run = |r: Release| {
        let mut h = H::new(r, &[]);
        let a = h.add(SyncRead, MIB, 16 * KIB);
        let b = h.add(SyncRead, MIB + 16 * KIB, 16 * KIB);
        let c = h.add(AsyncRead, MIB + 32 * KIB, 16 * KIB);
        let sync = h.pump();
        let sync = h.members(&sync[0]);
        let mut h = H::new(r, &[]);
        let d = h.add(AsyncRead, 4 * MIB, 16 * KIB);
        let e = h.add(AsyncRead, 4 * MIB + 16 * KIB, 16 * KIB);
        let f = h.add(AsyncWrite, 4 * MIB + 32 * KIB, 16 * KIB);
        let g = h.add(SyncRead, 4 * MIB + 32 * KIB, 16 * KIB);
        let asy = h.pump();
        let first_async = asy.iter().find(|i| i.class == AsyncRead).map(|i| h.members(i));
        (sync, first_async, [a, b, c, d, e, f, g])
    };
    let (m, am, [a, _, _, d, e, _, _]) = run(Release::Illumos2014);
    assert_eq!(m, vec![a], "a sync read goes alone");
    assert_eq!(am, Some(vec![d, e]), "async reads merge within their class queue only");
    let (m, am, [a, b, c, _, _, _, g]) = run(Release::Zfs065);
    assert_eq!(m, vec![a, b, c]);
    assert_eq!(am, None, "the sync read took the async reads along: {g}");
}

#[test]
fn writes_merge_only_when_contiguous() {
    for (gap, merged) in [(0, true), (512, false), (4 * KIB, false)] {
        let mut h = H::new(Release::Zfs08, &[]);
        h.add(AsyncWrite, MIB, 16 * KIB);
        h.add(AsyncWrite, MIB + 16 * KIB + gap, 16 * KIB);
        let v = h.pump();
        assert_eq!(v[0].members == 2, merged, "gap {gap}");
    }
}

#[test]
fn only_identical_agg_flags_merge() {
    // scrub reads vs demand reads
    let mut h = H::new(Release::Zfs08, &[]);
    h.add_f(Scrub, Op::Read, MIB, 16 * KIB, flags::SCRUB);
    h.add_f(AsyncRead, Op::Read, MIB + 16 * KIB, 16 * KIB, 0);
    let v = h.pump();
    assert_eq!(v.len(), 2);
    assert!(v.iter().all(|i| i.members == 1), "{v:?}");
    let mut h = H::new(Release::Zfs08, &[]);
    h.add_f(Scrub, Op::Read, MIB, 16 * KIB, flags::SCRUB);
    h.add_f(Scrub, Op::Read, MIB + 16 * KIB, 16 * KIB, flags::SCRUB | flags::RESILVER);
    h.add_f(Scrub, Op::Read, MIB + 32 * KIB, 16 * KIB, flags::SCRUB | flags::RESILVER);
    let v = h.pump();
    assert_eq!(v.iter().map(|i| i.members).collect::<Vec<_>>(), vec![1, 2], "scrub and resilver reads stay apart");
    // across classes with identical flags they do merge (one offset tree per type)
    let mut h = H::new(Release::Zfs08, &[]);
    h.add_f(SyncRead, Op::Read, MIB, 16 * KIB, 0);
    h.add_f(AsyncRead, Op::Read, MIB + 16 * KIB, 16 * KIB, 0);
    let v = h.pump();
    assert_eq!((v[0].class, v[0].members), (SyncRead, 2));
    assert_eq!(h.depth(AsyncRead), ClassDepth { queued: 0, active: 0 });
    // repair writes merge with repair writes only
    let mut h = H::new(Release::Zfs08, &[]);
    let rep = flags::REPAIR | flags::SCRUB;
    h.add_f(AsyncWrite, Op::Write, MIB, 16 * KIB, rep);
    h.add_f(AsyncWrite, Op::Write, MIB + 16 * KIB, 16 * KIB, rep);
    h.add_f(AsyncWrite, Op::Write, MIB + 32 * KIB, 16 * KIB, 0);
    let v = h.pump();
    assert_eq!(v[0].members, 2);
    assert_eq!(v[0].size, 32 * KIB);
    assert_eq!(h.ios.get(v[0].head).flags, rep);
    // reads never merge with writes, DONT_AGGREGATE never merges, TRIM never merges
    let mut h = H::new(Release::Zfs21, &[]);
    h.add_f(AsyncRead, Op::Read, MIB, 16 * KIB, flags::DONT_AGGREGATE);
    h.add_f(AsyncRead, Op::Read, MIB + 16 * KIB, 16 * KIB, flags::DONT_AGGREGATE);
    h.add_f(Trim, Op::Write, 2 * MIB, 16 * KIB, 0);
    h.add_f(Trim, Op::Write, 2 * MIB + 16 * KIB, 16 * KIB, 0);
    h.add_f(AsyncWrite, Op::Write, MIB + 32 * KIB, 16 * KIB, 0);
    let v = h.pump();
    assert!(v.iter().all(|i| i.members == 1), "{v:?}");
}

#[test]
fn optional_padding_rules() {
    let opt = flags::OPTIONAL;
    // Leading optional dropped, trailing optional trimmed.
    let mut h = H::new(Release::Zfs08, &[]);
    // a read ending at 1 MiB + 4 KiB puts last_offset there, so `a` is the chosen write
    h.add(SyncRead, MIB, 4 * KIB);
    assert_eq!(h.pump().len(), 1);
    let o1 = h.add_f(AsyncWrite, Op::Write, MIB, 4 * KIB, opt);
    let a = h.add_f(AsyncWrite, Op::Write, MIB + 4 * KIB, 16 * KIB, 0);
    let b = h.add_f(AsyncWrite, Op::Write, MIB + 20 * KIB, 16 * KIB, 0);
    let o2 = h.add_f(AsyncWrite, Op::Write, MIB + 36 * KIB, 4 * KIB, opt);
    let v = h.pump();
    assert_eq!(v.len(), 1);
    assert_eq!(h.members(&v[0]), vec![a, b]);
    assert_eq!((v[0].offset, v[0].size), (MIB + 4 * KIB, 32 * KIB));
    // the padding left alone is completed without the device
    let mut gone = Vec::new();
    while let Some(id) = h.q.take_discarded() {
        gone.push(id);
    }
    gone.sort();
    assert_eq!(gone, { let mut g = vec![o1, o2]; g.sort(); g });
    assert_eq!(h.depth(AsyncWrite), ClassDepth { queued: 0, active: 1 }, "discarded padding is never active");

    // Stretch: padding bridges a write to the next one within write_gap_limit (4 KiB).
    let mut h = H::new(Release::Zfs08, &[("zfs_vdev_aggregation_limit", 32 * KIB as i64)]);
    let a = h.add_f(AsyncWrite, Op::Write, MIB, 16 * KIB, 0);
    let b = h.add_f(AsyncWrite, Op::Write, MIB + 16 * KIB, 16 * KIB, 0);
    let p = h.add_f(AsyncWrite, Op::Write, MIB + 32 * KIB, 4 * KIB, opt);
    let c = h.add_f(AsyncWrite, Op::Write, MIB + 36 * KIB, 16 * KIB, 0);
    let v = h.pump();
    assert_eq!(h.members(&v[0]), vec![a, b, p], "0.7+: optional I/O may pass the limit");
    let _ = c;
}

#[test]
fn pre_07_optional_io_respects_the_limit_and_stretch_makes_it_lead() {
    let mut h = H::new(Release::Zfs065, &[("zfs_vdev_aggregation_limit", 32 * KIB as i64)]);
    let a = h.add_f(AsyncWrite, Op::Write, MIB, 16 * KIB, 0);
    let b = h.add_f(AsyncWrite, Op::Write, MIB + 16 * KIB, 16 * KIB, 0);
    let p = h.add_f(AsyncWrite, Op::Write, MIB + 32 * KIB, 4 * KIB, flags::OPTIONAL);
    let c = h.add_f(AsyncWrite, Op::Write, MIB + 36 * KIB, 16 * KIB, 0);
    let v = h.pump();
    assert_eq!(h.members(&v[0]), vec![a, b], "before 0.7 the padding may not pass the limit");
    // c is within write_gap_limit of b through contiguous padding: the padding is made
    // mandatory (but still data-less) so the next command starts right where this one ended
    assert_eq!(h.ios.get(p).flags, flags::NODATA);
    h.done(&v[0]);
    let v = h.pump();
    assert_eq!(h.members(&v[0]), vec![p, c]);
    assert!(h.q.take_discarded().is_none());
}

#[test]
fn entry_fixup_remaps_classes_the_release_lacks() {
    let mut h = H::new(Release::Zfs08, &[]);
    let r = h.add_f(Rebuild, Op::Read, MIB, 4096, 0);
    let w = h.add_f(Scrub, Op::Write, 10 * MIB, 4096, 0);
    assert_eq!(h.ios.get(r).class, AsyncRead, "no REBUILD class before zfs-2.0");
    assert_eq!(h.ios.get(w).class, AsyncWrite, "a scrub-class write becomes an async write");
    let mut h = H::new(Release::Zfs20, &[]);
    let r = h.add_f(Rebuild, Op::Read, MIB, 4096, 0);
    assert_eq!(h.ios.get(r).class, Rebuild);
}

#[test]
fn trim_is_fifo_from_zfs_08() {
    let mut h = H::new(Release::Zfs21, &[("zfs_vdev_max_active", 1)]);
    h.add(SyncRead, 0, 4096);
    let mut cur = h.pump()[0];
    for (i, off) in [900u64, 100, 600].iter().enumerate() {
        h.now = (i as u64 + 1) * 1000;
        h.add(Trim, off * MIB, 4096);
    }
    let mut order = Vec::new();
    loop {
        h.done(&cur);
        let Some(&i) = h.pump().first() else { break };
        order.push(i.offset / MIB);
        cur = i;
    }
    assert_eq!(order, vec![900, 100, 600]);
}

// ---------------------------------------------------------------- pre-2013 deadline queue

#[test]
fn deadline_pending_ramps_from_min_to_max() {
    let mut h = H::new(Release::Illumos2012, &[("zfs_vdev_aggregation_limit", 0)]);
    let mut active = Vec::new();
    for i in 0..40 {
        h.add(SyncRead, i * GIB, 4096);
        active.extend(h.pump());
    }
    assert_eq!(active.len(), 4, "enqueues issue only below zfs_vdev_min_pending");
    let mut pending = Vec::new();
    for _ in 0..9 {
        let i = active.remove(0);
        h.done(&i);
        active.extend(h.pump());
        pending.push(active.len());
    }
    // each completion issues up to ramp_rate (2): one more than it frees, up to max_pending 10
    assert_eq!(pending, vec![5, 6, 7, 8, 9, 10, 10, 10, 10]);
    let mut h = H::new(Release::Solaris2009, &[("zfs_vdev_aggregation_limit", 0)]);
    let mut active = Vec::new();
    for i in 0..100 {
        h.add(SyncRead, i * GIB, 4096);
        active.extend(h.pump());
    }
    for _ in 0..40 {
        let i = active.remove(0);
        h.done(&i);
        active.extend(h.pump());
    }
    assert_eq!(active.len(), 35, "solaris-2009 max_pending 35");
}

#[test]
fn deadline_scrub_waits_behind_newer_sync_reads() {
    let mut h = H::new(Release::Illumos2012, &[("zfs_vdev_aggregation_limit", 0)]);
    let mut active = Vec::new();
    for i in 0..4 {
        h.add(AsyncWrite, 500 * GIB + i * GIB, 4096);
        active.extend(h.pump());
    }
    assert_eq!(active.len(), 4);
    h.add(Scrub, 0, 4096); // deadline 0 + 20
    h.now = 10 * S; // bucket 18: deadline 18 < 20
    h.add(SyncRead, 100 * GIB, 4096);
    h.now = 12 * S; // bucket 22: deadline 22 > 20
    h.add(SyncRead, 200 * GIB, 4096);
    h.add_f(Scrub, Op::Read, 300 * GIB, 4096, flags::RESILVER); // 22 + 10
    h.now = 13 * S; // bucket 24: deadline 24 + 6 = 30
    h.add(AsyncRead, 400 * GIB, 4096);
    let mut order = Vec::new();
    for _ in 0..5 {
        let i = active.remove(0);
        h.done(&i);
        let v = h.pump();
        order.extend(v.iter().map(|i| i.offset / GIB));
        active.extend(v);
    }
    assert_eq!(order, vec![100, 0, 200, 400, 300]);
    assert_eq!(h.depth(Scrub), ClassDepth { queued: 0, active: 2 });
}

/// solaris-2009 stamps deadlines in clock ticks (`lbolt64 >> 6`), so its bucket depends on
/// hz: 0.64 s at hz 100, 64 ms at hz 1000; later releases use 0.537 s of `gethrtime()`.
#[test]
fn deadline_bucket_follows_the_release_clock() {
    // A scrub read queued at 0 has deadline 0 + 20; which side of it does a sync read
    // queued at `at` fall on? (Four async writes fill min_pending so both wait.)
    let first = |r: Release, hz: u32, at: u64| {
        let mut h = H::with(build(r, hz, &tunables(r, &[("zfs_vdev_aggregation_limit", 0)]), true));
        let mut active = Vec::new();
        for i in 0..4 {
            h.add(AsyncWrite, 500 * GIB + i * GIB, 4096);
            active.extend(h.pump());
        }
        h.add(Scrub, 0, 4096);
        h.now = at;
        h.add(SyncRead, 100 * GIB, 4096);
        let i = active.remove(0);
        h.done(&i);
        h.pump()[0].offset / GIB
    };
    let ms = S / 1000;
    // 12.7 s: 1270 ticks >> 6 = 19 at hz 100 (before the scrub's 20); 23 buckets of 0.537 s.
    assert_eq!(first(Release::Solaris2009, 100, 12_700 * ms), 100);
    assert_eq!(first(Release::Illumos2012, 100, 12_700 * ms), 0);
    // 1.4 s at hz 1000: 1400 >> 6 = 21, after the scrub; at hz 100 still bucket 2.
    assert_eq!(first(Release::Solaris2009, 1000, 1_400 * ms), 0);
    assert_eq!(first(Release::Solaris2009, 100, 1_400 * ms), 100);
}

// ---------------------------------------------------------------- depths and invariants

#[test]
fn depths_report_queued_and_active() {
    for r in Release::ALL {
        let mut h = H::new(r, &[("zfs_vdev_aggregation_limit", 0)]);
        for i in 0..5 {
            h.add(Scrub, i * GIB, 4096);
        }
        for i in 0..3 {
            h.add(SyncRead, 100 * GIB + i * GIB, 4096);
        }
        let v = h.pump();
        let d = h.q.depths();
        let (q, a): (u32, u32) = d.iter().fold((0, 0), |(q, a), x| (q + x.queued, a + x.active));
        assert_eq!(q + a, 8, "{r:?}");
        assert_eq!(a as usize, v.len(), "{r:?}");
        assert_eq!(d[SyncRead.idx()].queued + d[SyncRead.idx()].active, 3, "{r:?}");
        for i in &v {
            h.done(i);
        }
        let n = h.pump().len() as u32;
        let after: u32 = h.q.depths().iter().map(|x| x.active).sum();
        assert_eq!(after, n, "{r:?}");
        let q2: u32 = h.q.depths().iter().map(|x| x.queued).sum();
        assert_eq!(q2 + n, 8 - v.len() as u32, "{r:?}");
    }
}

/// Random enqueue/issue/complete sequences: class maxima and the leaf cap hold, every I/O is
/// issued or discarded exactly once, aggregates are well formed.
#[test]
fn property_random_sequences_keep_invariants() {
    let classes = [SyncRead, SyncWrite, AsyncRead, AsyncWrite, Scrub, Removal, Initializing, Trim, Rebuild];
    for seed in 0..60u64 {
        let r = Release::ALL[(seed % Release::ALL.len() as u64) as usize];
        let mut rng = Rng::stream(seed, "queue-property");
        let small_cap = rng.chance(0.3);
        let tweaks: Vec<(&str, i64)> = if small_cap && r.queue_era() != QueueEra::Deadline {
            vec![("zfs_vdev_max_active", 1 + rng.below(6) as i64)]
        } else {
            vec![]
        };
        let t = tunables(r, &tweaks);
        let mut h = H::new(r, &tweaks);
        h.env.dirty_bytes = rng.below(t.try_get(T::zfs_dirty_data_max).unwrap_or(GIB as i64) as u64 + 1);
        h.env.pending_synctask = rng.chance(0.1);
        let lim = (r.queue_era() != QueueEra::Deadline).then(|| Limits::from_tunables(r, &t));
        let cap = match &lim {
            Some(l) => l.max_active,
            None => t.get(T::zfs_vdev_max_pending).max(t.get(T::zfs_vdev_min_pending)) as u32,
        };
        let agg = agg_params(r, &t, true);
        let mut seen = std::collections::BTreeMap::<IoId, u32>::new();
        let mut live = std::collections::BTreeSet::<IoId>::new();
        let mut active: Vec<Issue> = Vec::new();
        let mut enqueued = 0u32;
        let mut check = |h: &mut H, v: Vec<Issue>, active: &mut Vec<Issue>, live: &mut std::collections::BTreeSet<IoId>| {
            for i in v {
                let m = h.members(&i);
                assert_eq!(m.len() as u32, i.members, "seed {seed}");
                let mut end = i.offset;
                for (k, &id) in m.iter().enumerate() {
                    let io = h.ios.get(id);
                    assert_eq!(io.op, i.op, "seed {seed}");
                    assert!(k == 0 || io.offset >= end, "seed {seed}: members overlap or out of order");
                    end = io.end();
                    assert!(live.remove(&id), "seed {seed}: io {id} issued twice");
                    *seen.entry(id).or_default() += 1;
                }
                assert_eq!(i.offset + i.size, end, "seed {seed}");
                if i.members > 1 {
                    assert!(i.size <= agg.max_span, "seed {seed}");
                }
                active.push(i);
            }
            while let Some(id) = h.q.take_discarded() {
                assert!(live.remove(&id), "seed {seed}: io {id} discarded twice");
                *seen.entry(id).or_default() += 1;
            }
            let d = h.q.depths();
            let total: u32 = d.iter().map(|x| x.active).sum();
            assert!(total <= cap, "seed {seed} {r:?}: {total} active over cap {cap}");
            assert_eq!(total as usize, active.len(), "seed {seed}");
            let queued: u32 = d.iter().map(|x| x.queued).sum();
            assert_eq!(queued as usize, live.len(), "seed {seed}: queued count drifted");
            if let Some(l) = &lim {
                for (c, dc) in d.iter().enumerate() {
                    let mx = if c == AsyncWrite.idx() { l.async_write_max(&h.env) } else { l.max[c] };
                    assert!(dc.active <= mx.max(l.min[c]), "seed {seed} {r:?}: class {c} {} > {mx}", dc.active);
                }
            }
        };
        for step in 0..3000 {
            h.now += rng.below(20_000_000);
            if active.is_empty() || rng.chance(0.55) {
                let c = classes[rng.below(NUM_CLASSES as u64) as usize];
                let op = if rng.chance(0.5) { Op::Read } else { Op::Write };
                let mut f = [0, flags::SCRUB, flags::REPAIR, flags::RESILVER][rng.below(4) as usize];
                if op == Op::Write && rng.chance(0.15) {
                    f |= flags::OPTIONAL;
                }
                if rng.chance(0.03) {
                    f |= flags::DONT_AGGREGATE;
                }
                let off = rng.below(256) * 4 * KIB;
                let size = (1 + rng.below(8)) * 4 * KIB;
                let id = h.add_f(c, op, off, size, f);
                live.insert(id);
                enqueued += 1;
            } else {
                let k = rng.below(active.len() as u64) as usize;
                let i = active.swap_remove(k);
                h.done(&i);
                for id in h.members(&i) {
                    h.ios.free(id);
                }
            }
            if rng.chance(0.9) || step % 50 == 0 {
                let v = h.pump();
                check(&mut h, v, &mut active, &mut live);
            }
        }
        // drain
        for _ in 0..1_000_000 {
            if active.is_empty() {
                let v = h.pump();
                check(&mut h, v, &mut active, &mut live);
                if active.is_empty() {
                    break;
                }
            }
            let i = active.remove(0);
            h.done(&i);
            let v = h.pump();
            check(&mut h, v, &mut active, &mut live);
        }
        assert!(live.is_empty(), "seed {seed} {r:?}: {} I/Os never issued", live.len());
        assert_eq!(seen.values().sum::<u32>(), enqueued, "seed {seed}");
    }
}

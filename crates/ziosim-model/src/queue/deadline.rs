//! The pre-2013 deadline queue (OpenSolaris/illumos until Aug 2013, FreeBSD 9, ZoL ≤ 0.6.2).
//!
//! Models module/zfs/vdev_queue.c at zfs-0.6.2 (`vdev_queue_io`, `vdev_queue_io_to_issue`,
//! `vdev_queue_io_done`, `vdev_queue_deadline_compare`) and `zio_priority_table` of
//! module/zfs/zio.c at the same tag (`spec/zfs-model.md` §2.1).
//!
//! One queue per leaf, ordered by `deadline = (enqueue time >> zfs_vdev_time_shift) + prio`,
//! then offset. The clock is `gethrtime()` in ns with shift 29 (a 0.537 s bucket) from
//! illumos 3618 (il:c55e05cb35, 2013-03) on: illumos-2012 (il:7e0e2549bf, the parent of
//! 4045) and ZoL 0.6.2 have it; so does freebsd-9 here, after FreeBSD head of 2013
//! (ChimeraCoder/freebsd@f7ff0d66) — no 9.x release copy could be read, and one from before
//! the merge of 3618 would stamp `lbolt64` ticks (hz 1000) with shift 6. Before 3618 the
//! clock was `lbolt64`, the clock tick count, with shift 6: 64 ticks, 0.64 s at hz 100
//! (snv_117, `vdev_queue_io`, read in zfs-fuse 5c5ace08; il:4445fffbbb of 2012-06 still
//! has it). Either way a priority step is "one bucket later":
//!
//! | class (ziosim) | old priority | | class | old priority |
//! |---|---|---|---|---|
//! | SyncRead, SyncWrite | 0 | | AsyncRead | 6 |
//! | AsyncWrite, Trim (FREE) | 4 | | Scrub with RESILVER flag, Rebuild | 10 |
//! | repair write (AsyncWrite, REPAIR) | as its read: 10 / 20 | | Scrub, Removal, Initializing | 20 |
//!
//! A scrub read is thus ~10.7 s (2009: 12.8 s at hz 100) behind a sync read queued at the
//! same time, and waits
//! behind every sync read queued within those 20 buckets. (Removal, Initializing, Trim and
//! Rebuild did not exist then; their rows are the nearest old equivalents.)
//!
//! Issue limit: the I/Os outstanding ("pending", an aggregate counts once) must be below a
//! limit that depends on who asks. An enqueue makes one attempt with limit
//! `zfs_vdev_min_pending` (4); a completion makes up to `zfs_vdev_ramp_rate` (2) attempts with
//! limit `zfs_vdev_max_pending` (10). So a burst starts at 4 outstanding and each completion
//! can add one more than it removes, ramping to 10 — the "exponential ramp" of the source.
//! The head of the deadline queue always goes first (no C-SCAN); aggregation walks the
//! read/write offset trees holding all queued I/Os, capped at 128 KiB (old SPA_MAXBLOCKSIZE).

use std::collections::VecDeque;

use super::sorted::SortedSet;

use super::aggregate::{self, AggParams};
use super::order::key;
use super::{ClassDepth, Issue, QueueEnv, QueuePolicy};
use crate::io::{flags, IoClass, IoId, IoSlab, LeafIo, NUM_CLASSES};
use crate::release::Release;
use crate::tunables::{Tunables, T};

/// `zio_priority_table` value of a ziosim class (ZIO@zfs-0.6.2).
pub fn old_priority(class: IoClass, io_flags: u8) -> u64 {
    match class {
        IoClass::SyncRead | IoClass::SyncWrite => 0,
        // A repair write takes the priority of the read it repairs: `vdev_mirror_io_done`
        // and `vdev_raidz_io_done` issue it with `zio->io_priority` (il:975c32a05c and
        // il:69962b5647^ vdev_mirror.c, vdev_raidz.c), and the resilver's read is
        // ZIO_PRIORITY_RESILVER (`dsl_scan_scrub_cb`, `scrub_visitbp` in 2009), a scrub's
        // ZIO_PRIORITY_SCRUB. The fixed ASYNC_WRITE priority for repairs came with 4045.
        IoClass::AsyncWrite if io_flags & flags::REPAIR != 0 => {
            if io_flags & flags::RESILVER != 0 {
                10
            } else {
                20
            }
        }
        IoClass::AsyncWrite | IoClass::Trim => 4,
        IoClass::AsyncRead => 6,
        IoClass::Scrub if io_flags & flags::RESILVER != 0 => 10,
        IoClass::Rebuild => 10,
        IoClass::Scrub | IoClass::Removal | IoClass::Initializing => 20,
    }
}

type Key = (u64, u64, IoId);

/// The pre-2013 queue of one leaf.
pub struct DeadlinePolicy {
    deadline: SortedSet<Key>,
    /// Read and write offset sets (`order::key::lba` keys) that aggregation walks.
    by_type: [SortedSet<u128>; 2],
    queued: [u32; NUM_CLASSES],
    active: [u32; NUM_CLASSES],
    pending: u32,
    min_pending: u32,
    max_pending: u32,
    ramp_rate: u32,
    time_shift: u32,
    clock: DeadlineClock,
    agg: AggParams,
    /// Attempts owed at the max_pending limit (from completions).
    attempts_done: u32,
    /// Attempts owed at the min_pending limit (from enqueues).
    attempts_enqueue: u32,
    scratch: Vec<(u64, IoId)>,
    /// Deadline-queue keys of one issue's members (`remove_members_from_deadline`).
    scratch_keys: Vec<Key>,
    discarded: VecDeque<IoId>,
}

/// What the deadline counts in: `gethrtime()` nanoseconds, or `lbolt64` clock ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeadlineClock {
    Hrtime,
    /// Ticks of this many ns (1 s / hz); simulated time 0 is tick 0.
    Lbolt { tick_ns: u64 },
}

impl DeadlineClock {
    /// The clock `release` stamps queued I/Os with, on a kernel running at `hz`.
    pub fn of(release: Release, hz: u32) -> DeadlineClock {
        match release {
            Release::Solaris2009 => DeadlineClock::Lbolt { tick_ns: 1_000_000_000 / hz.max(1) as u64 },
            _ => DeadlineClock::Hrtime,
        }
    }
    #[inline]
    fn read(self, ns: u64) -> u64 {
        match self {
            DeadlineClock::Hrtime => ns,
            DeadlineClock::Lbolt { tick_ns } => ns / tick_ns,
        }
    }
}

impl DeadlinePolicy {
    pub fn new(t: &Tunables, agg: AggParams, clock: DeadlineClock) -> DeadlinePolicy {
        DeadlinePolicy {
            deadline: SortedSet::default(),
            by_type: Default::default(),
            queued: [0; NUM_CLASSES],
            active: [0; NUM_CLASSES],
            pending: 0,
            min_pending: t.get(T::zfs_vdev_min_pending) as u32,
            max_pending: t.get(T::zfs_vdev_max_pending) as u32,
            ramp_rate: t.get(T::zfs_vdev_ramp_rate) as u32,
            time_shift: t.get(T::zfs_vdev_time_shift) as u32,
            clock,
            agg,
            attempts_done: 0,
            attempts_enqueue: 0,
            scratch: Vec::with_capacity(64),
            scratch_keys: Vec::with_capacity(64),
            discarded: VecDeque::new(),
        }
    }

    #[inline]
    fn key(&self, io: &LeafIo, id: IoId) -> Key {
        ((self.clock.read(io.enqueue_ns) >> self.time_shift) + old_priority(io.class, io.flags), io.offset, id)
    }

    /// Remove from the deadline queue only; `io_to_issue` removes all members from the
    /// offset set at once.
    fn remove_from_deadline(&mut self, id: IoId, io: &LeafIo) {
        let removed = self.deadline.remove(&self.key(io, id));
        debug_assert!(removed, "io {id} not queued");
        self.queued[io.class.idx()] -= 1;
    }

    /// `remove_from_deadline` of every member of an issue. Members queued in one deadline
    /// bucket are neighbours in the deadline queue too (offset order inside a bucket), so
    /// they leave it in runs through `SortedSet::remove_prefix`, one search per run.
    fn remove_members_from_deadline(&mut self, members: &[(u64, IoId)], ios: &IoSlab) {
        if let [(_, id)] = *members {
            return self.remove_from_deadline(id, ios.get(id));
        }
        let mut keys = std::mem::take(&mut self.scratch_keys);
        keys.clear();
        for &(_, id) in members {
            let io = ios.get(id);
            keys.push(self.key(io, id));
            self.queued[io.class.idx()] -= 1;
        }
        let mut done = 0;
        while done < keys.len() {
            let n = self.deadline.remove_prefix(&keys[done..]);
            assert!(n > 0, "io {} not queued", keys[done].2);
            done += n;
        }
        self.scratch_keys = keys;
    }

    /// `vdev_queue_io_to_issue(vq, pending_limit)`.
    fn io_to_issue(&mut self, limit: u32, ios: &mut IoSlab, now_ns: u64) -> Option<Issue> {
        loop {
            if self.pending >= limit {
                return None;
            }
            let &(_, _, z) = self.deadline.first()?;
            let zio = *ios.get(z);
            let mut members = std::mem::take(&mut self.scratch);
            let zpos = match aggregate::type_index(zio.class, zio.op) {
                Some(t) => aggregate::plan_by_type(&self.by_type[t], ios, z, &self.agg, &mut members),
                None => {
                    members.clear();
                    None
                }
            };
            if members.len() < 2 {
                members.clear();
                members.push((zio.offset, z));
            }
            self.remove_members_from_deadline(&members, ios);
            // Members are neighbours in the offset set (`aggregate::plan`): one run, from
            // `z`'s place found by the planning (the deadline queue is another set).
            if let Some(t) = aggregate::type_index(zio.class, zio.op) {
                let removed = match zpos {
                    Some(p) => aggregate::remove_members_at(&mut self.by_type[t], p, z, &members),
                    None => 0,
                };
                debug_assert_eq!(removed, members.len(), "aggregate members not neighbours in the offset set");
            }
            if members.len() == 1 && aggregate::no_data(ios.get(z).flags) {
                self.discarded.push_back(z);
                self.scratch = members;
                continue;
            }
            let (offset, size) = aggregate::chain(&members, ios, now_ns);
            let n = members.len() as u32;
            let head = members[0].1;
            self.scratch = members;
            self.pending += 1;
            self.active[zio.class.idx()] += 1;
            return Some(Issue { head, offset, size, op: zio.op, class: zio.class, members: n });
        }
    }
}

impl QueuePolicy for DeadlinePolicy {
    fn enqueue(&mut self, id: IoId, ios: &mut IoSlab, _now_ns: u64) {
        let io = ios.get_mut(id);
        io.agg_next = crate::io::NO_IO;
        let io = *io;
        self.deadline.insert(self.key(&io, id));
        if let Some(t) = aggregate::type_index(io.class, io.op) {
            self.by_type[t].insert(key::lba(io.offset, id));
        }
        self.queued[io.class.idx()] += 1;
        self.attempts_enqueue = self.attempts_enqueue.saturating_add(1);
    }

    fn next_issue(&mut self, ios: &mut IoSlab, now_ns: u64, _env: &QueueEnv) -> Option<Issue> {
        let limit = if self.attempts_done > 0 {
            self.attempts_done -= 1;
            self.max_pending
        } else if self.attempts_enqueue > 0 {
            self.attempts_enqueue -= 1;
            self.min_pending
        } else {
            return None;
        };
        let r = self.io_to_issue(limit, ios, now_ns);
        if r.is_none() {
            self.attempts_done = 0;
            self.attempts_enqueue = 0;
        }
        r
    }

    fn owes_attempt(&self) -> bool {
        self.attempts_done > 0 || self.attempts_enqueue > 0
    }

    fn complete(&mut self, issue: &Issue, _ios: &IoSlab, _now_ns: u64) {
        let c = issue.class.idx();
        assert!(self.active[c] > 0 && self.pending > 0, "completion of an issue not active");
        self.active[c] -= 1;
        self.pending -= 1;
        self.attempts_done = self.attempts_done.saturating_add(self.ramp_rate);
    }

    fn depths(&self) -> [ClassDepth; NUM_CLASSES] {
        let mut d = [ClassDepth::default(); NUM_CLASSES];
        for (c, e) in d.iter_mut().enumerate() {
            e.queued = self.queued[c];
            e.active = self.active[c];
        }
        d
    }

    fn take_discarded(&mut self) -> Option<IoId> {
        self.discarded.pop_front()
    }

    /// `zfs_vdev_min/max_pending` and `ramp_rate` are read per pick, the aggregation limits
    /// per aggregation. `zfs_vdev_time_shift` stays as loaded: ZFS applies it once, to each
    /// zio's deadline at enqueue, and the model derives queued zios' keys from it.
    fn retune(&mut self, release: Release, t: &Tunables, rotational: bool) {
        self.min_pending = t.get(T::zfs_vdev_min_pending) as u32;
        self.max_pending = t.get(T::zfs_vdev_max_pending) as u32;
        self.ramp_rate = t.get(T::zfs_vdev_ramp_rate) as u32;
        self.agg = super::agg_params(release, t, rotational);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{LeafIo, Op};
    use crate::queue::{build, QueueEnv};

    /// Pre-4045 a resilver's repair write keeps the read's ZIO_PRIORITY_RESILVER (10): queued
    /// in the same bucket as a txg write (4), it sorts after it whatever the offsets.
    #[test]
    fn resilver_repair_write_sorts_behind_txg_writes() {
        assert_eq!(old_priority(IoClass::AsyncWrite, flags::REPAIR | flags::RESILVER), 10);
        assert_eq!(old_priority(IoClass::AsyncWrite, flags::REPAIR), 20);
        assert_eq!(old_priority(IoClass::AsyncWrite, 0), 4);
        for r in [Release::Solaris2009, Release::Freebsd9, Release::Illumos2012] {
            let mut t = Tunables::defaults(r, 16 << 30);
            t.set("zfs_vdev_aggregation_limit", 0).unwrap();
            let mut q = build(r, 100, &t, true);
            let mut ios = IoSlab::new();
            let env = QueueEnv::default();
            let add = |ios: &mut IoSlab, q: &mut Box<dyn QueuePolicy>, off: u64, f: u8| {
                let mut io = LeafIo::new(0, Op::Write, IoClass::AsyncWrite, off, 4096);
                io.flags = f;
                let id = ios.alloc(io);
                q.enqueue(id, ios, 0);
            };
            // Four far reads fill min_pending, so the two writes wait in the queue.
            for i in 0..4u64 {
                let mut io = LeafIo::new(0, Op::Read, IoClass::SyncRead, (500 + i) << 30, 4096);
                io.enqueue_ns = 0;
                let id = ios.alloc(io);
                q.enqueue(id, &mut ios, 0);
            }
            let mut active = Vec::new();
            while let Some(i) = q.next_issue(&mut ios, 0, &env) {
                active.push(i);
            }
            assert_eq!(active.len(), 4);
            add(&mut ios, &mut q, 1 << 20, 0);
            add(&mut ios, &mut q, 0, flags::REPAIR | flags::RESILVER);
            let done = active.remove(0);
            q.complete(&done, &ios, 0);
            let mut order = Vec::new();
            while let Some(i) = q.next_issue(&mut ios, 0, &env) {
                order.push(i.offset);
            }
            assert_eq!(order, vec![1 << 20, 0], "{r:?}: the txg write goes first");
        }
    }
}

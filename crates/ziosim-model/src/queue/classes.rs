//! The 2013 I/O scheduler: per-class min/max active, strict priority.
//!
//! Models `vdev_queue_class_to_issue`, `vdev_queue_class_min_active`,
//! `vdev_queue_class_max_active` and `vdev_queue_max_async_writes` of module/zfs/vdev_queue.c
//! (illumos 4045 il:69962b5647; ZoL zfs-0.6.3 … zfs-2.0.0, 0.8.x), `spec/zfs-model.md` §2.2, §2.5.
//!
//! Decides which class issues next; the class's own queue decides which I/O (`order.rs`),
//! then aggregation (`aggregate.rs`). Order of rules, re-run on every enqueue (one attempt)
//! and after every completion (until nothing is eligible):
//!
//! 1. Nothing if the leaf already has `zfs_vdev_max_active` issues outstanding.
//! 2. Min pass, strict priority (SYNC_READ first): the first class with queued I/O and fewer
//!    than `min_active` outstanding.
//! 3. Max pass, strict priority: the first class with queued I/O under its `max_active`.
//!
//! So a scrub always gets its `min_active` (1) even under a flood of sync reads — the min pass
//! reaches it before the max pass serves more sync reads.
//!
//! ASYNC_WRITE's `max_active` follows the pool's dirty data (integer arithmetic, as in C):
//!
//! ```text
//!  max_active
//!   10 |                    ________  async_write_max_active
//!      |                  /
//!      |                /
//!  1-2 |______________/               async_write_min_active (1 before 0.7.0, 2 after)
//!      +--------------+-----+-------- dirty bytes
//!                    30 %  60 % of zfs_dirty_data_max
//! ```
//!
//! From illumos 4753 / zfs-0.6.4 a pending sync task (user action waiting on `spa_sync`)
//! forces the maximum. Scrub/resilver repair writes ride this class.

use super::order::{ClassQueues, InClassOrder, Take};
use super::{ClassDepth, Issue, QueueEnv, QueuePolicy};
use crate::io::{IoClass, IoId, IoSlab, NUM_CLASSES};
use crate::release::Release;
use crate::tunables::{Tunables, T};

const MIN_T: [T; NUM_CLASSES] = [
    T::zfs_vdev_sync_read_min_active,
    T::zfs_vdev_sync_write_min_active,
    T::zfs_vdev_async_read_min_active,
    T::zfs_vdev_async_write_min_active,
    T::zfs_vdev_scrub_min_active,
    T::zfs_vdev_removal_min_active,
    T::zfs_vdev_initializing_min_active,
    T::zfs_vdev_trim_min_active,
    T::zfs_vdev_rebuild_min_active,
];
const MAX_T: [T; NUM_CLASSES] = [
    T::zfs_vdev_sync_read_max_active,
    T::zfs_vdev_sync_write_max_active,
    T::zfs_vdev_async_read_max_active,
    T::zfs_vdev_async_write_max_active,
    T::zfs_vdev_scrub_max_active,
    T::zfs_vdev_removal_max_active,
    T::zfs_vdev_initializing_max_active,
    T::zfs_vdev_trim_max_active,
    T::zfs_vdev_rebuild_max_active,
];

/// Per-class limits of one leaf, read once from the tunables.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Classes the release has (their tunables exist).
    pub has: [bool; NUM_CLASSES],
    pub min: [u32; NUM_CLASSES],
    /// Static maxima; ASYNC_WRITE's entry is `async_write_max_active` (see `max_for`).
    pub max: [u32; NUM_CLASSES],
    pub max_active: u32,
    pub dirty_min_bytes: u64,
    pub dirty_max_bytes: u64,
    /// A pending sync task forces the async-write maximum (illumos 4753, zfs-0.6.4+).
    pub synctask_clause: bool,
}

impl Limits {
    pub fn from_tunables(release: Release, t: &Tunables) -> Limits {
        let mut l = Limits {
            has: [false; NUM_CLASSES],
            min: [0; NUM_CLASSES],
            max: [0; NUM_CLASSES],
            max_active: t.get(T::zfs_vdev_max_active) as u32,
            dirty_min_bytes: 0,
            dirty_max_bytes: 0,
            synctask_clause: release >= Release::Illumos2014,
        };
        for c in 0..NUM_CLASSES {
            if let (Some(mn), Some(mx)) = (t.try_get(MIN_T[c]), t.try_get(MAX_T[c])) {
                l.has[c] = true;
                l.min[c] = mn as u32;
                l.max[c] = mx as u32;
            }
        }
        let dirty_max = t.get(T::zfs_dirty_data_max) as u64;
        l.dirty_min_bytes = dirty_max * t.get(T::zfs_vdev_async_write_active_min_dirty_percent) as u64 / 100;
        l.dirty_max_bytes = dirty_max * t.get(T::zfs_vdev_async_write_active_max_dirty_percent) as u64 / 100;
        l
    }

    /// `vdev_queue_max_async_writes`: async-write concurrency for `dirty` bytes.
    pub fn async_write_max(&self, env: &QueueEnv) -> u32 {
        let (lo, hi) = (self.min[IoClass::AsyncWrite.idx()] as u64, self.max[IoClass::AsyncWrite.idx()] as u64);
        let d = env.dirty_bytes;
        if d > self.dirty_max_bytes || (self.synctask_clause && env.pending_synctask) {
            return hi as u32;
        }
        if d < self.dirty_min_bytes {
            return lo as u32;
        }
        if self.dirty_max_bytes <= self.dirty_min_bytes {
            // min and max percentages equal: C would divide by zero at exactly that point.
            return hi as u32;
        }
        ((d - self.dirty_min_bytes) * hi.saturating_sub(lo) / (self.dirty_max_bytes - self.dirty_min_bytes) + lo) as u32
    }

    /// The 2013 `max_active` of class `c`.
    #[inline]
    pub fn max_for(&self, c: usize, env: &QueueEnv) -> u32 {
        if c == IoClass::AsyncWrite.idx() {
            self.async_write_max(env)
        } else {
            self.max[c]
        }
    }
}

/// The 2013 scheduler of one leaf.
pub struct ClassesPolicy {
    q: ClassQueues,
    lim: Limits,
}

impl ClassesPolicy {
    /// `agg_per_class`: aggregate within the class queue (before illumos 5313 / zfs-0.6.5).
    pub fn new(lim: Limits, order: InClassOrder, agg: super::aggregate::AggParams, agg_per_class: bool) -> ClassesPolicy {
        ClassesPolicy { q: ClassQueues::new(order, lim.has, agg, agg_per_class), lim }
    }

    fn class_to_issue(&self, env: &QueueEnv) -> Option<usize> {
        if self.q.active_total >= self.lim.max_active {
            return None;
        }
        let q = &self.q;
        q.queued_from(0)
            .find(|&p| q.active[p] < self.lim.min[p])
            .or_else(|| q.queued_from(0).find(|&p| q.active[p] < self.lim.max_for(p, env)))
    }
}

impl QueuePolicy for ClassesPolicy {
    fn enqueue(&mut self, id: IoId, ios: &mut IoSlab, _now_ns: u64) {
        self.q.enqueue(id, ios);
    }

    fn next_issue(&mut self, ios: &mut IoSlab, now_ns: u64, env: &QueueEnv) -> Option<Issue> {
        if !self.q.take_attempt() {
            return None;
        }
        if self.q.pick_known_empty(env) {
            debug_assert_eq!(self.class_to_issue(env), None, "a repeated class pick found a class");
            self.q.attempt_failed();
            return None;
        }
        loop {
            let Some(p) = self.class_to_issue(env) else {
                self.q.note_no_pick(env);
                self.q.attempt_failed();
                return None;
            };
            if let Take::Issue(issue) = self.q.take(p, ios, now_ns) {
                return Some(issue);
            }
        }
    }

    fn complete(&mut self, issue: &Issue, _ios: &IoSlab, _now_ns: u64) {
        self.q.complete(issue);
    }

    fn retune(&mut self, release: Release, t: &Tunables, rotational: bool) {
        self.lim = Limits::from_tunables(release, t);
        self.q.set_agg(super::agg_params(release, t, rotational));
        self.q.forget_no_pick();
    }

    fn depths(&self) -> [ClassDepth; NUM_CLASSES] {
        self.q.depths()
    }

    fn change_priority(&mut self, id: IoId, to: IoClass, ios: &mut IoSlab) -> bool {
        self.q.change_priority(id, to, ios)
    }

    fn take_discarded(&mut self) -> Option<IoId> {
        self.q.take_discarded()
    }

    fn owes_attempt(&self) -> bool {
        self.q.owes_attempt()
    }
}

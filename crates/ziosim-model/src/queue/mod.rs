//! Per-leaf vdev_queue policies: which queued I/O goes to the disk next
//! (`spec/zfs-model.md` §1–§2). One module per era; the device decides how long it takes.
//!
//! The model calls `enqueue` when a leaf I/O arrives and `next_issue` on every enqueue and
//! every completion until it returns `None` or the device has no free tag, exactly as ZFS
//! runs `vdev_queue_io_to_issue` from `vdev_queue_io` and `vdev_queue_io_done`. The policy
//! keeps ZFS's per-call budget: each `enqueue` owes one issue attempt (`vdev_queue_io` tries
//! once), each `complete` owes attempts until one finds nothing (pre-2013: up to
//! `zfs_vdev_ramp_rate`); `next_issue` returns `None` once the owed attempts are spent.
//!
//! | module | era | releases |
//! |---|---|---|
//! | `deadline` | pre-2013 deadline queue, min/max_pending ramp (§2.1) | solaris-2009, freebsd-9, illumos-2012 |
//! | `classes` | 2013 class scheduler, strict priority min then max pass (§2.2, §2.5) | illumos-2014 … zfs-2.0 |
//! | `nia` | non-interactive throttle, round-robin min pass (§2.3) | zfs-2.1 |
//! | `fifo` | FIFO lists, 0.537 s buckets for LBA classes, NIA selection (§2.4) | zfs-2.2, zfs-2.3 |
//!
//! Shared: `order` (per-class queues and the in-class pick of each era, §2.6), `aggregate`
//! (§2.7) and `sorted` (the allocation-free ordered set every queue is built on).
//!
//! What a policy does to the slab: on `enqueue` (2013 and later) it applies `vdev_queue_io`'s
//! priority fix-up, rewriting `LeafIo::class` when the release lacks the class or the class
//! cannot carry the op (e.g. a REBUILD read on zfs-0.8 becomes ASYNC_READ); on issue it sets
//! `agg_next` (the chain) and `issue_ns` of every member; the aggregation "stretch" rule may
//! turn a queued OPTIONAL I/O into a NODATA one. Equal keys (same offset, or same
//! `enqueue_ns` in a FIFO class) are ordered by `IoId` where ZFS compares zio addresses, so
//! every order is a function of the inputs alone.

use crate::io::{IoClass, IoId, IoSlab, Op, NUM_CLASSES};
use crate::release::{QueueEra, Release};
use crate::tunables::T;
use crate::tunables::Tunables;

/// One command to send to the device: an I/O, or an aggregate of adjacent I/Os chained
/// through `LeafIo::agg_next` from `head` in offset order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Issue {
    pub head: IoId,
    pub offset: u64,
    pub size: u64,
    pub op: Op,
    /// The class the issue counts against (the chosen I/O's class).
    pub class: IoClass,
    /// Number of member I/Os (1 = not aggregated).
    pub members: u32,
}

/// Pool-wide state some policies read (async-write concurrency follows dirty data, §2.5).
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueEnv {
    pub dirty_bytes: u64,
    pub pending_synctask: bool,
}

/// Queued and active counts of one class, as `zpool iostat -q` prints them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassDepth {
    pub queued: u32,
    pub active: u32,
}

pub trait QueuePolicy {
    /// A new I/O (already in the slab with `enqueue_ns` set) joins the queue.
    fn enqueue(&mut self, id: IoId, ios: &mut IoSlab, now_ns: u64);
    /// The next I/O (or aggregate) to issue, removed from the queue and counted active;
    /// `None` if nothing is eligible now.
    fn next_issue(&mut self, ios: &mut IoSlab, now_ns: u64, env: &QueueEnv) -> Option<Issue>;
    /// An issued I/O (or aggregate) completed.
    fn complete(&mut self, issue: &Issue, ios: &IoSlab, now_ns: u64);
    /// Queued/active per class, in `IoClass` order.
    fn depths(&self) -> [ClassDepth; NUM_CLASSES];
    /// A queued no-data I/O (lone raidz padding: OPTIONAL or NODATA) that `next_issue`
    /// completed without the device, as ZFS's `zio_vdev_io_bypass` does. The model drains
    /// these after each `next_issue` loop and completes them at once; they never count as
    /// active and never reach `complete`.
    fn take_discarded(&mut self) -> Option<IoId> {
        None
    }
    /// Whether an issue attempt is still owed (`next_issue` would look at the queue). False
    /// after `next_issue` returned `None`, until the next `enqueue` or `complete`: the model
    /// skips the issue loop on wake-ups that complete nothing, and checks this in debug builds.
    fn owes_attempt(&self) -> bool;
    /// Raise or lower a queued I/O's priority (`vdev_queue_change_io_priority`, 0.8+): true
    /// if it was queued and moved to class `to`; an issued one is left alone. The pre-2013
    /// deadline queue never had it (the default: false).
    fn change_priority(&mut self, _id: IoId, _to: IoClass, _ios: &mut IoSlab) -> bool {
        false
    }
    /// The tunables changed at run time (a `set` action): take the new limits, as ZFS reads
    /// `zfs_vdev_*` on every pick and every aggregation. What is queued stays queued.
    fn retune(&mut self, release: Release, t: &Tunables, rotational: bool);
}

pub mod aggregate;
pub mod classes;
pub mod deadline;
pub mod fifo;
pub mod nia;
pub mod order;
pub mod sorted;
#[cfg(test)]
mod tests;

use aggregate::AggParams;
use order::InClassOrder;

/// Aggregation parameters of `release` for a leaf (§1.3, §2.7).
pub fn agg_params(release: Release, t: &Tunables, rotational: bool) -> AggParams {
    let nonrot = if rotational { None } else { t.try_get(T::zfs_vdev_aggregation_limit_non_rotating) };
    let limit = nonrot.unwrap_or_else(|| t.get(T::zfs_vdev_aggregation_limit)).max(0) as u64;
    let cap = match release.queue_era() {
        QueueEra::Deadline => aggregate::SPA_OLD_MAXBLOCKSIZE,
        _ => aggregate::SPA_MAXBLOCKSIZE,
    };
    AggParams {
        limit: limit.min(cap),
        max_span: cap,
        optional_beyond_limit: release >= Release::Zfs07,
        read_gap: t.get(T::zfs_vdev_read_gap_limit) as u64,
        // solaris-2009 (snv_117) has no write gap: writes merge only when contiguous.
        write_gap: t.try_get(T::zfs_vdev_write_gap_limit).unwrap_or(0).max(0) as u64,
    }
}

/// Build the policy of `release` for a leaf (`hz`: the kernel clock rate, which the
/// solaris-2009 deadline counts in).
pub fn build(release: Release, hz: u32, t: &Tunables, rotational: bool) -> Box<dyn QueuePolicy> {
    let agg = agg_params(release, t, rotational);
    match release.queue_era() {
        QueueEra::Deadline => Box::new(deadline::DeadlinePolicy::new(t, agg, deadline::DeadlineClock::of(release, hz))),
        QueueEra::Classes => {
            let order = if release >= Release::Zfs08 { InClassOrder::From } else { InClassOrder::After };
            // illumos-2014 predates 5313 (2015-01): aggregation stays inside the class queue
            let per_class = release < Release::Zfs065;
            Box::new(classes::ClassesPolicy::new(classes::Limits::from_tunables(release, t), order, agg, per_class))
        }
        QueueEra::Nia => {
            let lim = classes::Limits::from_tunables(release, t);
            Box::new(nia::NiaPolicy::new(lim, t, InClassOrder::From, agg, false))
        }
        QueueEra::Fifo => Box::new(fifo::new(classes::Limits::from_tunables(release, t), t, agg)),
    }
}

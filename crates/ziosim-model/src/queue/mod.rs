//! Per-leaf vdev_queue policies: which queued I/O goes to the disk next
//! (`spec/zfs-model.md` §1–§2). One module per era; the device decides how long it takes.
//!
//! The model calls `enqueue` when a leaf I/O arrives and `next_issue` on every enqueue and
//! every completion until it returns `None` or the device has no free tag, exactly as ZFS
//! runs `vdev_queue_io_to_issue` from `vdev_queue_io` and `vdev_queue_io_done`.

use crate::io::{IoClass, IoId, IoSlab, Op, NUM_CLASSES};
use crate::release::{QueueEra, Release};
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
}

/// Build the policy of `release` for a leaf.
pub fn build(release: Release, t: &Tunables, rotational: bool) -> Box<dyn QueuePolicy> {
    let _ = (release.queue_era(), t, rotational);
    Box::new(fifo_placeholder::Placeholder::default())
}

/// Temporary: every class FIFO, unlimited. Replaced by the era policies.
mod fifo_placeholder {
    use super::*;
    use std::collections::VecDeque;
    #[derive(Default)]
    pub struct Placeholder {
        q: VecDeque<IoId>,
        active: [u32; NUM_CLASSES],
    }
    impl QueuePolicy for Placeholder {
        fn enqueue(&mut self, id: IoId, _ios: &mut IoSlab, _now_ns: u64) {
            self.q.push_back(id);
        }
        fn next_issue(&mut self, ios: &mut IoSlab, _now_ns: u64, _env: &QueueEnv) -> Option<Issue> {
            let id = self.q.pop_front()?;
            let io = ios.get(id);
            self.active[io.class.idx()] += 1;
            Some(Issue { head: id, offset: io.offset, size: io.size as u64, op: io.op, class: io.class, members: 1 })
        }
        fn complete(&mut self, issue: &Issue, _ios: &IoSlab, _now_ns: u64) {
            self.active[issue.class.idx()] -= 1;
        }
        fn depths(&self) -> [ClassDepth; NUM_CLASSES] {
            let mut d = [ClassDepth::default(); NUM_CLASSES];
            for c in 0..NUM_CLASSES {
                d[c].active = self.active[c];
            }
            d
        }
    }
    #[allow(dead_code)]
    fn _era(_: QueueEra) {}
}

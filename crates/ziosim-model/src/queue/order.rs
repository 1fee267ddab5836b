//! Per-class queues of the 2013-and-later schedulers and the rule for which queued I/O of a
//! class goes next (`spec/zfs-model.md` §2.6), shared by `classes`, `nia` and `fifo`.
//!
//! Models the queue half of module/zfs/vdev_queue.c: `vdev_queue_io_add`/`_remove`,
//! `vdev_queue_pending_add`/`_remove` (class counts only; the NIA counters live in `nia.rs`)
//! and the in-class pick of `vdev_queue_io_to_issue`, as read at zfs-0.6.3/0.6.5/0.7.0
//! (illumos 4045 port), zfs-0.8.0/2.0.0/2.1.0 and zfs-2.2.0.
//!
//! In-class order by era:
//!
//! | era | FIFO classes (SYNC_READ, SYNC_WRITE, TRIM) | LBA classes |
//! |---|---|---|
//! | il 2013 … 0.7 | lowest timestamp | first offset > `last_offset`, else lowest (C-SCAN); `last_offset` = *start* of the last issue |
//! | 0.8 … 2.1 | lowest timestamp | first offset ≥ `last_offset`, else lowest; `last_offset` = *end* of the last issue |
//! | 2.2+ | list head | oldest 0.537 s bucket (`timestamp >> 29`); inside it first offset ≥ `last_offset`, else the bucket's lowest |
//!
//! `last_offset` is one per leaf, shared by all classes. Keys are `(k1, k2, id)`: FIFO
//! `(seq, id)`, LBA `(0, offset, id)` or `(bucket, offset, id)` in 2.2. A FIFO class is
//! in arrival order (`seq`, `LeafIo::seq`, a per-leaf counter): ZFS's `io_timestamp`s
//! (`gethrtime()` at `vdev_queue_io`) are distinct for zios queued one after another, and
//! 2.2+ keeps the class as a list (`list_insert_tail`), so I/Os the simulation queues in
//! the same nanosecond (a commit's lwbs) keep the order they were queued in. The two
//! differ only for an I/O whose priority changes while queued (`change_priority`, 0.8+):
//! 0.8 … 2.1 re-insert it by its old timestamp (it keeps its `seq`), 2.2+ at the tail of
//! the new class's list (a new `seq`). Other ties fall to the I/O id (ZFS falls to the
//! zio address), so the order is a pure function of the inputs.
//! Every queued I/O is also in the read or write offset set that aggregation walks (TRIM
//! in neither), keyed `(offset, id)`.
//!
//! Keys are packed into one `u128` whose integer order is the tuple order (one compare
//! instead of three on the hot insert/remove path; see [`key`]): `seq·2³² + id`,
//! `offset·2³² + id`, `bucket·2⁹⁶ + offset·2³² + id`. The bucket has 32 bits, i.e. 2⁶¹ ns
//! (73 years) of simulated time; later I/Os would share the last bucket.

use std::collections::VecDeque;

use super::sorted::SortedSet;

use super::aggregate::{self, AggParams};
use super::{ClassDepth, Issue, QueueEnv};
use crate::io::{IoClass, IoId, IoSlab, LeafIo, Op, NUM_CLASSES};

/// 2.2's deadline bucket: `VDQ_T_SHIFT` (0.537 s on nanoseconds).
pub const VDQ_T_SHIFT: u32 = 29;

/// Which in-class ordering rule applies (the rows of the table above).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InClassOrder {
    /// illumos 2013 … zfs-0.7: search at `last_offset + 1`; `last_offset` = issue start.
    After,
    /// zfs-0.8 … 2.1: search at `last_offset - 1` (= offset ≥ last); `last_offset` = issue end.
    From,
    /// zfs-2.2+: oldest 0.537 s bucket first, C-SCAN inside it.
    Bucketed,
}

type Key = u128;

/// Packing of the queue keys (module comment): constructors and field readers.
pub mod key {
    use crate::io::IoId;

    /// `(seq, id)` of a FIFO class.
    #[inline]
    pub fn fifo(seq: u64, id: IoId) -> u128 {
        (seq as u128) << 32 | id as u128
    }
    /// `(0, offset, id)`, also the `(offset, id)` key of the per-type offset sets.
    #[inline]
    pub fn lba(offset: u64, id: IoId) -> u128 {
        (offset as u128) << 32 | id as u128
    }
    /// `(bucket, offset, id)` of 2.2's LBA classes (bucket saturates at 2³² − 1).
    #[inline]
    pub fn bucketed(bucket: u64, offset: u64, id: IoId) -> u128 {
        debug_assert!(bucket <= u32::MAX as u64, "2.2 deadline bucket {bucket} beyond 73 simulated years");
        (bucket.min(u32::MAX as u64) as u128) << 96 | lba(offset, id)
    }
    #[inline]
    pub fn id(k: u128) -> IoId {
        k as u32
    }
    /// The offset of an `lba` or `bucketed` key.
    #[inline]
    pub fn offset(k: u128) -> u64 {
        (k >> 32) as u64
    }
    /// The bucket of a `bucketed` key.
    #[inline]
    pub fn bucket(k: u128) -> u64 {
        (k >> 96) as u64
    }
}

/// Set bits of a class mask, ascending.
pub struct Bits(u32);

impl Iterator for Bits {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(b)
    }
}

/// Outcome of taking from a class.
pub enum Take {
    Issue(Issue),
    /// A lone no-data I/O was completed without the device; choose again.
    Discarded,
}

/// The queued and active I/Os of one leaf under a class scheduler.
pub struct ClassQueues {
    sets: [SortedSet<Key>; NUM_CLASSES],
    queued: [u32; NUM_CLASSES],
    /// Bit `c` set iff class `c` has queued I/Os (2.2's `vq_cqueued`).
    pub queued_mask: u32,
    by_type: [SortedSet<u128>; 2],
    pub active: [u32; NUM_CLASSES],
    pub active_total: u32,
    pub last_offset: u64,
    order: InClassOrder,
    /// Before illumos 5313 (2015-01; ZoL 0.6.5) aggregation walked the chosen class's own
    /// queue, in offset order, and never merged the FIFO sync classes; after, the per-type
    /// offset sets holding every class.
    agg_per_class: bool,
    /// Classes this release has; others are remapped at entry as `vdev_queue_io` does.
    has_class: [bool; NUM_CLASSES],
    agg: AggParams,
    scratch: Vec<(u64, IoId)>,
    /// Class-queue keys of one take's members (`remove_members_from_classes`).
    scratch_keys: Vec<Key>,
    discarded: VecDeque<IoId>,
    /// Issue attempts owed: 1 per enqueue (`vdev_queue_io` tries once), unbounded after a
    /// completion (`vdev_queue_io_done` loops); cleared when an attempt finds nothing.
    budget: u32,
    /// Arrival counter for `LeafIo::seq`.
    next_seq: u64,
    /// `(queued_mask, env)` when the last class pick found nothing; `None` once a take, a
    /// completion or a retune may have changed the answer (`pick_known_empty`).
    no_pick: Option<(u32, u64, bool)>,
}

impl ClassQueues {
    pub fn new(order: InClassOrder, has_class: [bool; NUM_CLASSES], agg: AggParams, agg_per_class: bool) -> ClassQueues {
        ClassQueues {
            sets: Default::default(),
            queued: [0; NUM_CLASSES],
            queued_mask: 0,
            by_type: Default::default(),
            active: [0; NUM_CLASSES],
            active_total: 0,
            last_offset: 0,
            order,
            agg_per_class,
            has_class,
            agg,
            scratch: Vec::with_capacity(64),
            scratch_keys: Vec::with_capacity(64),
            discarded: VecDeque::with_capacity(16),
            budget: 0,
            next_seq: 0,
            no_pick: None,
        }
    }

    /// The priority fix-up of `vdev_queue_io` (§1.1): a read or write whose class this release
    /// lacks, or that cannot carry that op, becomes ASYNC_READ / ASYNC_WRITE.
    fn fixup(&self, io: &LeafIo) -> IoClass {
        use IoClass::*;
        let c = io.class;
        let ok = self.has_class[c.idx()]
            && matches!(
                (io.op, c),
                (_, Trim)
                    | (Op::Read, SyncRead | AsyncRead | Scrub | Removal | Initializing | Rebuild)
                    | (Op::Write, SyncWrite | AsyncWrite | Removal | Initializing | Rebuild)
            );
        match (ok, io.op) {
            (true, _) => c,
            (false, Op::Read) => AsyncRead,
            (false, _) => AsyncWrite,
        }
    }

    #[inline]
    fn key(&self, io: &LeafIo, id: IoId) -> Key {
        if io.class.fifo() {
            key::fifo(io.seq, id)
        } else if self.order == InClassOrder::Bucketed {
            key::bucketed(io.enqueue_ns >> VDQ_T_SHIFT, io.offset, id)
        } else {
            key::lba(io.offset, id)
        }
    }

    /// New aggregation limits (a run-time tunable change).
    pub fn set_agg(&mut self, agg: AggParams) {
        self.agg = agg;
    }

    pub fn enqueue(&mut self, id: IoId, ios: &mut IoSlab) {
        let io = ios.get_mut(id);
        debug_assert!(io.op != Op::Flush, "flushes bypass the vdev queue");
        io.agg_next = crate::io::NO_IO;
        io.seq = self.next_seq;
        self.next_seq += 1;
        let c = self.fixup(io);
        io.class = c;
        let io = *io;
        self.add_to_class(id, &io);
        if let Some(t) = aggregate::type_index(c, io.op).filter(|_| !self.agg_per_class) {
            self.by_type[t].insert(key::lba(io.offset, id));
        }
        self.budget = self.budget.saturating_add(1);
    }

    /// Remove from the class queue only; the caller removes the offset-set entries (all the
    /// members of a take at once, see `take`).
    fn remove_from_class(&mut self, id: IoId, io: &LeafIo) {
        let removed = self.try_remove_from_class(id, io);
        debug_assert!(removed, "io {id} not queued in {:?}", io.class);
    }

    /// `remove_from_class` of an I/O that may not be queued (false: it was not).
    fn try_remove_from_class(&mut self, id: IoId, io: &LeafIo) -> bool {
        let c = io.class.idx();
        if !self.sets[c].remove(&self.key(io, id)) {
            return false;
        }
        self.queued[c] -= 1;
        if self.queued[c] == 0 {
            self.queued_mask &= !(1 << c);
        }
        true
    }

    /// Put `io` in its class queue (its `class` and, for a FIFO class, `seq` set).
    fn add_to_class(&mut self, id: IoId, io: &LeafIo) {
        let c = io.class.idx();
        self.sets[c].insert(self.key(io, id));
        self.queued[c] += 1;
        self.queued_mask |= 1 << c;
    }

    /// `vdev_queue_change_io_priority` (0.8+, a8b2e30685): move I/O `id`, if still queued,
    /// to class `to` (after the same read/write fix-up), and true; an issued I/O keeps its
    /// class and counts (false). Nothing issues because of it: the next enqueue or
    /// completion picks again, as in ZFS. From 2.2 the I/O joins the tail of a FIFO class's
    /// list; before, the class tree orders it by the time it was first queued.
    pub fn change_priority(&mut self, id: IoId, to: IoClass, ios: &mut IoSlab) -> bool {
        use IoClass::*;
        let io = *ios.get(id);
        let to = match (io.op, to) {
            (Op::Read, SyncRead | AsyncRead | Scrub) | (Op::Write, SyncWrite | AsyncWrite) => to,
            (Op::Read, _) => AsyncRead,
            _ => AsyncWrite,
        };
        if !self.try_remove_from_class(id, &io) {
            return false;
        }
        let io = ios.get_mut(id);
        io.class = to;
        if self.order == InClassOrder::Bucketed {
            io.seq = self.next_seq;
            self.next_seq += 1;
        }
        let io = *io;
        self.add_to_class(id, &io);
        self.no_pick = None;
        true
    }

    /// `remove_from_class` of every member of a take. Members of one class (in offset
    /// order) are usually neighbours in their class queue as well — an LBA class orders by
    /// offset inside a deadline bucket — so each such run leaves it through
    /// `SortedSet::remove_prefix`, one search for the run; whatever does not line up (another
    /// bucket, a FIFO class) falls back to the next search.
    fn remove_members_from_classes(&mut self, members: &[(u64, IoId)], ios: &IoSlab) {
        if let [(_, id)] = *members {
            return self.remove_from_class(id, ios.get(id));
        }
        let mut keys = std::mem::take(&mut self.scratch_keys);
        let mut i = 0;
        while i < members.len() {
            let c = ios.get(members[i].1).class.idx();
            keys.clear();
            while let Some(&(_, id)) = members.get(i) {
                let io = ios.get(id);
                if io.class.idx() != c {
                    break;
                }
                keys.push(self.key(io, id));
                i += 1;
            }
            let mut done = 0;
            while done < keys.len() {
                let n = self.sets[c].remove_prefix(&keys[done..]);
                assert!(n > 0, "io {} not queued in class {c}", key::id(keys[done]));
                done += n;
            }
            self.queued[c] -= keys.len() as u32;
            if self.queued[c] == 0 {
                self.queued_mask &= !(1 << c);
            }
        }
        self.scratch_keys = keys;
    }

    /// Classes with queued I/O, ascending, from `queued_mask` bits `from..`.
    #[inline]
    pub fn queued_from(&self, from: usize) -> Bits {
        Bits(self.queued_mask & !((1u32 << from) - 1))
    }

    /// Classes with queued I/O, ascending, below `to`.
    #[inline]
    pub fn queued_below(&self, to: usize) -> Bits {
        Bits(self.queued_mask & ((1u32 << to) - 1))
    }

    #[inline]
    pub fn has_queued(&self, c: usize) -> bool {
        self.queued_mask & (1 << c) != 0
    }

    /// Consume one issue attempt; false if none is owed.
    #[inline]
    pub fn take_attempt(&mut self) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        true
    }

    /// Whether an issue attempt is owed (`QueuePolicy::owes_attempt`).
    #[inline]
    pub fn owes_attempt(&self) -> bool {
        self.budget > 0
    }

    /// An attempt found nothing eligible: the caller returns and owes no more attempts.
    #[inline]
    pub fn attempt_failed(&mut self) {
        self.budget = 0;
    }

    /// Whether a class pick would find nothing again. A class scheduler's pick reads the
    /// queued classes, the active counts (and NIA counters, which move with them), the
    /// limits and the dirty bytes; between a take or a completion only enqueues change
    /// anything, and only by queueing a class that was not queued. While a txg's writes
    /// pour into a leaf whose class limits are full, each enqueue owes an attempt
    /// (`vdev_queue_io`), and this answers most of them without the min and max passes.
    /// A failed pick's side effect (2.2 resets `last_prio`) is idempotent, so skipping the
    /// repeat changes nothing.
    #[inline]
    pub fn pick_known_empty(&self, env: &QueueEnv) -> bool {
        self.no_pick == Some((self.queued_mask, env.dirty_bytes, env.pending_synctask))
    }

    /// The class pick found nothing with the queue and `env` as they are now.
    #[inline]
    pub fn note_no_pick(&mut self, env: &QueueEnv) {
        self.no_pick = Some((self.queued_mask, env.dirty_bytes, env.pending_synctask));
    }

    /// The limits changed (a retune): the next pick must look again.
    pub fn forget_no_pick(&mut self) {
        self.no_pick = None;
    }

    /// The in-class pick (§2.6). `c` must have queued I/Os.
    fn pick(&self, c: usize) -> IoId {
        let set = &self.sets[c];
        let first = *set.first().expect("class chosen with an empty queue");
        if IoClass::from_idx(c).fifo() {
            return key::id(first);
        }
        match self.order {
            InClassOrder::After => {
                key::id(*set.first_at_or_after(&key::lba(self.last_offset.saturating_add(1), 0)).unwrap_or(&first))
            }
            InClassOrder::From => key::id(*set.first_at_or_after(&key::lba(self.last_offset, 0)).unwrap_or(&first)),
            InClassOrder::Bucketed => {
                if key::offset(first) >= self.last_offset {
                    return key::id(first);
                }
                let b = key::bucket(first);
                match set.first_at_or_after(&key::bucketed(b, self.last_offset, 0)) {
                    Some(&k) if key::bucket(k) == b => key::id(k),
                    _ => key::id(first),
                }
            }
        }
    }

    /// Take the next I/O of class `c` (and its aggregate), count it active against `c`.
    /// Not inlined: most `next_issue` calls find no class to take from, and should not pay
    /// for this one's registers.
    #[inline(never)]
    pub fn take(&mut self, c: usize, ios: &mut IoSlab, now_ns: u64) -> Take {
        self.no_pick = None;
        let z = self.pick(c);
        let zio = *ios.get(z);
        let mut members = std::mem::take(&mut self.scratch);
        members.clear();
        // `z`'s place in its per-type offset set, found by the planning.
        let mut zpos = None;
        if let Some(t) = aggregate::type_index(zio.class, zio.op) {
            if self.agg_per_class {
                // Before 5313 a FIFO (sync) class queue was not searched for neighbours:
                // `vdev_queue_aggregate` returned at once for SYNC_READ and SYNC_WRITE,
                // whose queues are not in offset order (il:69962b5647 through
                // il:b515258426, and ZoL 0.6.3).
                let set = &self.sets[c];
                if let Some(zpos) = set.find(&self.key(&zio, z)).filter(|_| !IoClass::from_idx(c).fifo()) {
                    aggregate::plan(set, zpos, |&k| key::id(k), ios, &self.agg, &mut members);
                }
            } else {
                zpos = aggregate::plan_by_type(&self.by_type[t], ios, z, &self.agg, &mut members);
            }
        }
        if members.len() < 2 {
            members.clear();
            members.push((zio.offset, z));
        }
        self.remove_members_from_classes(&members, ios);
        // The members are neighbours in the per-type offset set (`aggregate::plan`'s
        // invariant), so they leave it as one run, from `z`'s place found by the planning
        // (the class queues are other sets). TRIM is in no offset set.
        if let Some(t) = aggregate::type_index(zio.class, zio.op).filter(|_| !self.agg_per_class) {
            let removed = match zpos {
                Some(p) => aggregate::remove_members_at(&mut self.by_type[t], p, z, &members),
                None => 0,
            };
            debug_assert_eq!(removed, members.len(), "aggregate members not neighbours in the offset set");
        }
        let out = if members.len() == 1 && aggregate::no_data(ios.get(z).flags) {
            self.discarded.push_back(z);
            Take::Discarded
        } else {
            let (offset, size) = aggregate::chain(&members, ios, now_ns);
            self.active[c] += 1;
            self.active_total += 1;
            self.last_offset = match self.order {
                InClassOrder::After => offset,
                InClassOrder::From | InClassOrder::Bucketed => offset + size,
            };
            Take::Issue(Issue {
                head: members[0].1,
                offset,
                size,
                op: zio.op,
                class: IoClass::from_idx(c),
                members: members.len() as u32,
            })
        };
        self.scratch = members;
        out
    }

    pub fn complete(&mut self, issue: &Issue) {
        let c = issue.class.idx();
        assert!(self.active[c] > 0, "completion of an issue not active in {:?}", issue.class);
        self.active[c] -= 1;
        self.active_total -= 1;
        self.budget = u32::MAX;
        self.no_pick = None;
    }

    pub fn take_discarded(&mut self) -> Option<IoId> {
        self.discarded.pop_front()
    }

    pub fn depths(&self) -> [ClassDepth; NUM_CLASSES] {
        let mut d = [ClassDepth::default(); NUM_CLASSES];
        for (c, e) in d.iter_mut().enumerate() {
            e.queued = self.queued[c];
            e.active = self.active[c];
        }
        d
    }
}

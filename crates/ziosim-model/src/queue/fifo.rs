//! The zfs-2.2 queue: FIFO lists for sync and TRIM classes, 0.537 s deadline buckets for the
//! LBA-ordered classes, NIA throttle unchanged.
//!
//! Models module/zfs/vdev_queue.c at zfs-2.2.0 (8469b5aac0 "Another set of vdev queue
//! optimizations"; `spec/zfs-model.md` §2.4): `vdev_queue_class_fifo`, `vdev_queue_to_compare`
//! (key `(io_timestamp >> VDQ_T_SHIFT, io_offset)`, VDQ_T_SHIFT = 29), the in-class pick of
//! `vdev_queue_io_to_issue`, and the bitmap form of `vdev_queue_class_to_issue`.
//!
//! What changed from 2.1, and why it matters to a simulation:
//!
//! * SYNC_READ, SYNC_WRITE and TRIM are plain lists: the head goes next.
//! * An LBA class (async read/write, scrub, removal, initializing, rebuild) takes its oldest
//!   0.537 s bucket first and runs C-SCAN only inside it: the next offset ≥ `last_offset` in
//!   that bucket, else the bucket's lowest offset. An I/O queued in an older bucket therefore
//!   beats a newer one at a lower offset — a deadline that bounds scrub/async starvation to
//!   about half a second per bucket, where 2.1's pure C-SCAN could pass it over indefinitely.
//! * TRIM never aggregates (`zfs_vdev_aggregate_trim` is gone).
//! * Class selection is 2.1's NIA algorithm (`nia.rs`); the one visible difference is that a
//!   pick that finds nothing restarts the next round-robin min pass at SYNC_READ.
//!
//! The bucket ordering itself lives with the other eras' in-class rules in `order.rs`
//! (`InClassOrder::Bucketed`); this module only assembles the 2.2 policy.

use super::aggregate::AggParams;
use super::classes::Limits;
use super::nia::NiaPolicy;
use super::order::InClassOrder;
use crate::tunables::Tunables;

/// Bucket width of the 2.2 deadline, ns (2^29 ns ≈ 0.537 s).
pub const BUCKET_NS: u64 = 1 << super::order::VDQ_T_SHIFT;

/// The zfs-2.2/2.3 scheduler of one leaf.
pub fn new(lim: Limits, t: &Tunables, agg: AggParams) -> NiaPolicy {
    NiaPolicy::new(lim, t, InClassOrder::Bucketed, agg, true)
}

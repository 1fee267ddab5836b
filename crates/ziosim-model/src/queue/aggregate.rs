//! Aggregation: merging the chosen I/O with its queued neighbours into one device command.
//!
//! Models `vdev_queue_aggregate` (module/zfs/vdev_queue.c; the pre-2013 form lives inline in
//! `vdev_queue_io_to_issue` at zfs-0.6.2) as read at zfs-0.6.2, 0.6.5, 0.7.0, 2.1.0 and 2.2.0
//! (`spec/zfs-model.md` §2.7).
//!
//! Inputs: the per-type (read or write) offset-ordered set of *all* queued I/Os of the leaf,
//! whatever their class (zfs-0.6.5+, illumos 5313 fe319232 of 2015-01, and the pre-2013
//! queue), or before 5313 the chosen class's own queue (never a FIFO sync class's: 4045's
//! `vdev_queue_aggregate` returns at once for SYNC_READ and SYNC_WRITE); and the I/O
//! `z` the scheduler chose. Spans and gaps are unsigned as in C, so a neighbour that lies
//! before the span's start or overlaps it ends the walk. Order of rules:
//!
//! 1. No aggregation if `z` has DONT_AGGREGATE, the limit is 0, or `z` is a TRIM.
//! 2. Walk backwards from `z` while the neighbour has identical `AGG_INHERIT` flags, the span
//!    stays within `limit` and the gap is at most `maxgap` (reads: `zfs_vdev_read_gap_limit`,
//!    writes: 0). Gaps are unsigned as in C: overlapping I/Os never merge.
//! 3. Drop leading OPTIONAL (raidz padding) I/Os: they add nothing at the front.
//! 4. Walk forwards under the same rules; from zfs-0.7.0 an OPTIONAL I/O may exceed `limit`
//!    as long as the span stays within SPA_MAXBLOCKSIZE (16 MiB).
//! 5. Writes: if the I/Os right after the span are contiguous OPTIONAL ones leading to a
//!    mandatory I/O within `zfs_vdev_write_gap_limit` of the last mandatory one, keep the
//!    trailing optional I/Os ("stretch") and make the next I/O mandatory so the next command
//!    starts where this one ends; otherwise trim trailing OPTIONAL I/Os.
//! 6. One member left: no aggregate. Otherwise the aggregate covers [first, last end),
//!    read gaps included (those bytes are transferred and discarded).
//!
//! Invariant: members are contiguous neighbours in the type set, in offset order, all with the
//! same `AGG_INHERIT` bits and the same op.

use super::order::key;
use super::sorted::{Pos, SortedSet};

use crate::io::{flags, IoClass, IoId, IoSlab, Op};

/// SPA_MAXBLOCKSIZE with large blocks (zfs-0.6.5+): the absolute cap on an aggregate.
pub const SPA_MAXBLOCKSIZE: u64 = 16 << 20;
/// SPA_MAXBLOCKSIZE before large blocks: the cap of the pre-2013 queue.
pub const SPA_OLD_MAXBLOCKSIZE: u64 = 128 << 10;

/// Aggregation parameters of one leaf, resolved from the release's tunables.
#[derive(Clone, Copy, Debug)]
pub struct AggParams {
    /// Largest span, bytes (already capped); 0 disables aggregation.
    pub limit: u64,
    /// Largest span even for trailing OPTIONAL I/Os (zfs-0.7.0+), bytes.
    pub max_span: u64,
    /// zfs-0.7.0+: OPTIONAL I/Os may extend the span beyond `limit` up to `max_span`.
    pub optional_beyond_limit: bool,
    pub read_gap: u64,
    pub write_gap: u64,
}

/// No data to transfer: raidz padding (OPTIONAL) or an I/O that was optional (NODATA).
/// A lone one of these is completed without touching the device.
#[inline]
pub fn no_data(f: u8) -> bool {
    f & (flags::OPTIONAL | flags::NODATA) != 0
}

#[inline]
fn optional(f: u8) -> bool {
    f & flags::OPTIONAL != 0
}

/// Which per-type set an I/O lives in (TRIM in none: it never aggregates).
#[inline]
pub fn type_index(class: IoClass, op: Op) -> Option<usize> {
    match (class, op) {
        (IoClass::Trim, _) => None,
        (_, Op::Read) => Some(0),
        (_, Op::Write) => Some(1),
        (_, Op::Flush) => None,
    }
}

/// Unsigned gap from the end of `a` to the start of `b`, as C's `IO_GAP` (wraps if overlapping).
#[inline]
fn gap(a_end: u64, b_off: u64) -> u64 {
    b_off.wrapping_sub(a_end)
}

/// `plan` over a per-type offset set (zfs-0.6.5+, illumos 5313+, and the pre-2013 queue).
/// The set holds `order::key::lba(offset, id)` keys. Returns where `z` is in the set (`plan`
/// does not change the set, so the position holds until the caller changes it), letting
/// the caller remove the members without searching again.
pub fn plan_by_type(set: &SortedSet<u128>, ios: &mut IoSlab, z: IoId, p: &AggParams, out: &mut Vec<(u64, IoId)>) -> Option<Pos> {
    out.clear();
    let o = ios.get(z).offset;
    let zpos = set.find(&key::lba(o, z))?;
    plan(set, zpos, |&k| key::id(k), ios, p, out);
    Some(zpos)
}

/// Remove the members `plan_by_type` chose (or `z` alone, when it chose fewer than two)
/// from the per-type set, given `z`'s position there: they are neighbours in it, so the
/// first is `z`'s position stepped back once per member before `z`. (An OPTIONAL `z` can be
/// trimmed off the end of its own aggregate; then the run is found by searching.) Returns
/// how many left, as `SortedSet::remove_run` from the first member would.
pub fn remove_members_at(set: &mut SortedSet<u128>, zpos: Pos, z: IoId, members: &[(u64, IoId)]) -> usize {
    let (o, id) = members[0];
    let Some(before) = members.iter().position(|m| m.1 == z) else {
        return set.remove_run(&key::lba(o, id), members.len());
    };
    let mut first = Some(zpos);
    for _ in 0..before {
        first = first.and_then(|p| set.prev_pos(p));
    }
    match first {
        Some(p) if *set.at(p) == key::lba(o, id) => set.remove_run_from(p, members.len()),
        // Not neighbours after all (`plan`'s invariant broken; the caller asserts).
        _ => set.remove_run(&key::lba(o, id), members.len()),
    }
}

/// Plan the aggregate around the I/O at `zpos` of `set` (neighbours are the set's
/// neighbours; `id_of` names the I/O of a key). On return `out` holds the members in offset
/// order (`(offset, id)`); fewer than 2 means "issue it alone". May clear OPTIONAL on the
/// I/O that follows the span (the stretch rule), marking it NODATA so it stays data-less.
pub fn plan<K: Ord + Copy>(
    set: &SortedSet<K>,
    zpos: Pos,
    id_of: impl Fn(&K) -> IoId,
    ios: &mut IoSlab,
    p: &AggParams,
    out: &mut Vec<(u64, IoId)>,
) {
    out.clear();
    let z = id_of(set.at(zpos));
    let zio = *ios.get(z);
    let zflags = zio.flags & flags::AGG_INHERIT;
    if zflags & flags::DONT_AGGREGATE != 0 || p.limit == 0 || type_index(zio.class, zio.op).is_none() {
        return;
    }
    let maxgap = if zio.op == Op::Read { p.read_gap } else { 0 };
    let zkey = (zio.offset, z);
    let last_end = zio.end();
    let mut mandatory: Option<IoId> = (!optional(zio.flags)).then_some(z);

    // 2. backwards
    let mut first_off = zio.offset;
    let mut cur = zpos;
    while let Some(pp) = set.prev_pos(cur) {
        cur = pp;
        let id = id_of(set.at(pp));
        let d = ios.get(id);
        let o = d.offset;
        if d.flags & flags::AGG_INHERIT != zflags || last_end.wrapping_sub(o) > p.limit || gap(d.end(), first_off) > maxgap {
            break;
        }
        first_off = o;
        out.push((o, id));
        if mandatory.is_none() && !optional(d.flags) {
            mandatory = Some(id);
        }
    }
    out.reverse();
    out.push(zkey);
    // 3. drop leading optional I/Os (never past z)
    let mut start = 0;
    while start + 1 < out.len() && optional(ios.get(out[start].1).flags) {
        start += 1;
    }
    if start > 0 {
        out.drain(..start);
    }
    let first_off = out[0].0;

    // 4. forwards
    let mut last = zio;
    let mut last_pos = zpos;
    while let Some(np) = set.next_pos(last_pos) {
        let id = id_of(set.at(np));
        let d = ios.get(id);
        let o = d.offset;
        let span = d.end().wrapping_sub(first_off); // wraps like C when out of offset order
        let within = span <= p.limit || (p.optional_beyond_limit && optional(d.flags) && span <= p.max_span);
        if d.flags & flags::AGG_INHERIT != zflags || !within || gap(last.end(), o) > maxgap {
            break;
        }
        last = *d;
        last_pos = np;
        out.push((o, id));
        if !optional(d.flags) {
            mandatory = Some(id);
        }
    }

    // 5. trailing optional I/Os
    let mut stretch_next: Option<IoId> = None;
    if zio.op == Op::Write {
        if let Some(m) = mandatory {
            let m_end = ios.get(m).end();
            let mut n_end = last.end();
            let mut next_after_last = None;
            let mut cur = last_pos;
            while let Some(np) = set.next_pos(cur) {
                cur = np;
                let id = id_of(set.at(np));
                if next_after_last.is_none() {
                    next_after_last = Some(id);
                }
                let d = ios.get(id);
                let o = d.offset;
                if gap(n_end, o) != 0 || gap(m_end, o) > p.write_gap {
                    break;
                }
                n_end = d.end();
                if !optional(d.flags) {
                    stretch_next = next_after_last;
                    break;
                }
            }
        }
    }
    if let Some(n) = stretch_next {
        let d = ios.get_mut(n);
        if optional(d.flags) {
            d.flags = (d.flags & !flags::OPTIONAL) | flags::NODATA;
        }
    } else {
        while out.len() > 1 {
            let (_, lid) = *out.last().unwrap();
            if Some(lid) == mandatory {
                break;
            }
            debug_assert!(optional(ios.get(lid).flags));
            out.pop();
        }
    }
}

/// Chain `members` (offset order) through `agg_next`, stamp their issue time, and return
/// (offset, span) of the command.
pub fn chain(members: &[(u64, IoId)], ios: &mut IoSlab, now_ns: u64) -> (u64, u64) {
    let first = members[0].0;
    let mut end = 0;
    for (i, &(_, id)) in members.iter().enumerate() {
        let next = members.get(i + 1).map_or(crate::io::NO_IO, |m| m.1);
        let io = ios.get_mut(id);
        io.agg_next = next;
        io.issue_ns = now_ns;
        end = end.max(io.end());
    }
    (first, end - first)
}

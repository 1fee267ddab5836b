//! The non-interactive I/O throttle: "Reduce latency effects of non-interactive I/O".
//!
//! Models module/zfs/vdev_queue.c at zfs-2.1.0 (6f5aac3ca0 + fix dcf7044522; backported to
//! 2.0.1 as 2080c4f27e): `vdev_queue_class_to_issue` with round-robin via `vq_last_prio`,
//! `vdev_queue_class_min_active`/`_max_active` for NIA classes, and the `vq_ia_active` /
//! `vq_nia_credit` bookkeeping of `vdev_queue_pending_add`/`_remove` (`spec/zfs-model.md` §2.3).
//! zfs-2.2's rewrite keeps these semantics (`fifo.rs` builds this policy with 2.2 ordering).
//!
//! Non-interactive (NIA) classes: SCRUB, REMOVAL, INITIALIZING, REBUILD; all others are
//! interactive (IA). Counters, per leaf:
//!
//! * issue IA: `ia_active += 1`; the first one sets `nia_credit = 1`.
//!   issue NIA while `ia_active > 0`: `nia_credit -= 1`.
//! * complete IA: `ia_active -= 1`; `nia_credit = 0` if that was the last, else
//!   `zfs_vdev_nia_credit` (5). complete NIA while `ia_active == 0`: `nia_credit += 1`.
//!
//! NIA limits: with IA outstanding, min = max = MIN(nia_credit, class min) — at most one scrub
//! I/O, and only with credit. IA-idle but fewer than `zfs_vdev_nia_delay` NIA completions
//! since: max = MAX(1, class min). After that: the class max (scrub 3). Queued-but-unissued
//! IA I/Os do not throttle scrub; they win the class pick.
//!
//! Class pick: nothing if `zfs_vdev_max_active` outstanding; min pass round-robin starting
//! after the class last chosen; max pass in strict priority; the chosen class becomes
//! `last_prio`. In 2.1 a failed pick leaves `last_prio` alone; in 2.2 it sets it past the last
//! class, so the next min pass starts at SYNC_READ.

use super::aggregate::AggParams;
use super::classes::Limits;
use super::order::{ClassQueues, InClassOrder, Take};
use super::{ClassDepth, Issue, QueueEnv, QueuePolicy};
use crate::io::{IoClass, IoId, IoSlab, NUM_CLASSES};
use crate::tunables::{Tunables, T};

/// Bits of the non-interactive classes (`!IoClass::interactive`), by `IoClass::idx`.
const NIA_MASK: u32 = 1 << IoClass::Scrub as u32
    | 1 << IoClass::Removal as u32
    | 1 << IoClass::Initializing as u32
    | 1 << IoClass::Rebuild as u32;

/// The 2.1 (and, with `reset_last_prio`, 2.2) scheduler of one leaf.
pub struct NiaPolicy {
    q: ClassQueues,
    lim: Limits,
    ia_active: u32,
    nia_credit: i64,
    last_prio: usize,
    nia_delay: i64,
    nia_credit_refill: i64,
    /// 2.2: a pick that finds nothing sets `last_prio` to NUM_CLASSES.
    reset_last_prio: bool,
}

impl NiaPolicy {
    pub fn new(lim: Limits, t: &Tunables, order: InClassOrder, agg: AggParams, reset_last_prio: bool) -> NiaPolicy {
        NiaPolicy {
            q: ClassQueues::new(order, lim.has, agg, false),
            lim,
            ia_active: 0,
            nia_credit: 0,
            last_prio: 0,
            nia_delay: t.get(T::zfs_vdev_nia_delay),
            nia_credit_refill: t.get(T::zfs_vdev_nia_credit),
            reset_last_prio,
        }
    }

    #[inline]
    fn min_active(&self, p: usize) -> i64 {
        let m = self.lim.min[p] as i64;
        if NIA_MASK & (1 << p) == 0 || self.ia_active == 0 {
            m
        } else {
            self.nia_credit.min(m)
        }
    }

    #[inline]
    fn max_active(&self, p: usize, env: &QueueEnv) -> i64 {
        if NIA_MASK & (1 << p) == 0 {
            return self.lim.max_for(p, env) as i64;
        }
        let m = self.lim.min[p] as i64;
        if self.ia_active > 0 {
            self.nia_credit.min(m)
        } else if self.nia_credit < self.nia_delay {
            m.max(1)
        } else {
            self.lim.max[p] as i64
        }
    }

    fn class_to_issue(&mut self, env: &QueueEnv) -> Option<usize> {
        if self.q.queued_mask == 0 || self.q.active_total >= self.lim.max_active {
            return None;
        }
        let start = if self.last_prio + 1 >= NUM_CLASSES { 0 } else { self.last_prio + 1 };
        let q = &self.q;
        // Min pass round-robin from `start` (the classes from `start` up, then those below),
        // then the max pass in priority order.
        let mut found = None;
        for p in q.queued_from(start) {
            if (q.active[p] as i64) < self.min_active(p) {
                found = Some(p);
                break;
            }
        }
        if found.is_none() {
            for p in q.queued_below(start) {
                if (q.active[p] as i64) < self.min_active(p) {
                    found = Some(p);
                    break;
                }
            }
        }
        if found.is_none() {
            for p in q.queued_from(0) {
                if (q.active[p] as i64) < self.max_active(p, env) {
                    found = Some(p);
                    break;
                }
            }
        }
        match found {
            Some(p) => self.last_prio = p,
            None if self.reset_last_prio => self.last_prio = NUM_CLASSES,
            None => {}
        }
        found
    }

    /// `vdev_queue_pending_add`'s NIA half.
    fn on_issue(&mut self, class: IoClass) {
        if class.interactive() {
            self.ia_active += 1;
            if self.ia_active == 1 {
                self.nia_credit = 1;
            }
        } else if self.ia_active > 0 {
            self.nia_credit -= 1;
        }
    }

    /// `vdev_queue_pending_remove`'s NIA half.
    fn on_complete(&mut self, class: IoClass) {
        if class.interactive() {
            self.ia_active -= 1;
            self.nia_credit = if self.ia_active == 0 { 0 } else { self.nia_credit_refill };
        } else if self.ia_active == 0 {
            self.nia_credit += 1;
        }
    }

    /// (interactive I/Os outstanding, NIA credit) — for tests and `iostat`-style probes.
    pub fn nia_state(&self) -> (u32, i64) {
        (self.ia_active, self.nia_credit)
    }
}

impl QueuePolicy for NiaPolicy {
    fn enqueue(&mut self, id: IoId, ios: &mut IoSlab, _now_ns: u64) {
        self.q.enqueue(id, ios);
    }

    fn next_issue(&mut self, ios: &mut IoSlab, now_ns: u64, env: &QueueEnv) -> Option<Issue> {
        if !self.q.take_attempt() {
            return None;
        }
        if self.q.pick_known_empty(env) {
            #[cfg(debug_assertions)]
            {
                let last_prio = self.last_prio;
                debug_assert_eq!(self.class_to_issue(env), None, "a repeated class pick found a class");
                debug_assert_eq!(self.last_prio, last_prio, "a repeated failed pick moved last_prio");
            }
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
                self.on_issue(issue.class);
                return Some(issue);
            }
        }
    }

    fn complete(&mut self, issue: &Issue, _ios: &IoSlab, _now_ns: u64) {
        self.q.complete(issue);
        self.on_complete(issue.class);
    }

    fn retune(&mut self, release: crate::release::Release, t: &Tunables, rotational: bool) {
        self.lim = Limits::from_tunables(release, t);
        self.q.set_agg(super::agg_params(release, t, rotational));
        self.q.forget_no_pick();
        self.nia_delay = t.get(T::zfs_vdev_nia_delay);
        self.nia_credit_refill = t.get(T::zfs_vdev_nia_credit);
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

#[cfg(test)]
mod nia_mask_tests {
    use super::*;

    #[test]
    fn nia_mask_is_the_non_interactive_classes() {
        for c in IoClass::ALL {
            assert_eq!(NIA_MASK & (1 << c.idx()) != 0, !c.interactive(), "{c:?}");
        }
    }
}

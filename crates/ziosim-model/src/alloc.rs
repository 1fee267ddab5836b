//! Which top-level vdev each block spa_sync writes goes to, and how many of them may be
//! in flight: the metaslab rotor (`metaslab_alloc_dva`) and, from zfs-0.7, the allocation
//! throttle (`zio_dva_throttle`). Read at zfs-0.7.13, 0.8.0/0.8.6, 2.0.0, 2.1.0, 2.2.0 and
//! 2.3.0 (zio.c, metaslab.c, spa.c, spa_misc.c; illumos got it in 2016 with 7090,
//! il:4756c3d746, after the illumos releases ziosim models).
//!
//! *Rotor.* A class keeps one rotor (from 2.1 one per allocator): a new block's first copy
//! goes to the rotor's vdev, a ditto copy to the vdev after the previous copy's. After
//! each allocation the rotor's byte count grows by the copy's asize; once it reaches the
//! vdev's `mg_aliquot` (`metaslab_aliquot` × children to 2.1, × data disks from 2.2) the
//! rotor moves to the next vdev and the count restarts. A vdev passed over (unwritable,
//! or skipped by the throttle) moves the rotor past it too. (`mg_bias`, the free-space
//! correction, is not modelled: the model's vdevs fill evenly.)
//!
//! *Throttle (0.7–2.3).* Every ASYNC_WRITE block that needs a new allocation — spa_sync's
//! data, indirect, dnode and MOS blocks; not the ZIL, not `dmu_sync` — waits in its
//! allocator's queue, ordered by bookmark (objset, object, level, block id), until its
//! copies fit in the allocator's slots; only the queue's head is ever considered, and each
//! arrival or slot release admits at most one block. A copy holds its slot and one unit of
//! its vdev's queue depth until the copy's write (all its leaf writes) completes. A vdev at
//! its depth limit is passed over while a vdev after it (before where the walk began) is
//! under its own — so writes go to the vdevs that finish them.
//! * 0.7: one queue; slots = limit × vdevs; limit `zfs_vdev_async_write_max_active` ×
//!   `zfs_vdev_queue_depth_pct` / 100 = 100 per vdev, fixed.
//! * 0.8–2.3: allocators (4; 2.3: `spa_num_allocators`, fewer on machines below 16 CPUs),
//!   each with its own queue, slots and per-vdev depths; a block's allocator hashes
//!   (objset, object, level, block id >> 20). Each txg a vdev's limit restarts at
//!   `zfs_vdev_def_queue_depth` (32) and an allocator's slots at 32 × vdevs; every
//!   completed copy raises its vdev's limit by one (and the slots with it) up to 100. A
//!   ditto copy d may go to limit × (4 + d) / 4 (OpenZFS 9751).
//! * 2.1+: the rotor is per allocator (f8020c9363).
//!
//! *Classes (0.8+).* A pool with special vdevs has a second metaslab class: each class
//! keeps its own rotor(s) over its own vdevs and its own slots per allocator
//! (`mc_rotor`, `mca_alloc_slots`: `metaslab_class_throttle_reserve` takes the block's
//! class, `spa_preferred_class` chose it); the allocators' queues are shared
//! (`spa_allocs[].spaa_tree`, MS@zfs-0.8.0 and @zfs-2.2.0 `zio_io_to_allocate`).
//!
//! When the walk allows no vdev (all at their limits with none ahead under it cannot
//! happen; all unwritable is the pool's suspension, handled by the caller) the rotor's
//! vdev is used (0.7–2.0's `try_hard` pass; 2.1+ would gang the block, not modelled).

use std::collections::BTreeSet;

/// A block's place in its allocator's queue: (objset, object, level + 1, block id, arrival).
pub(crate) type Order = (u64, u64, u64, u64, u64);

/// What the release and its tunables make of the throttle for one txg (`spa_sync`
/// re-reads them before each sync's first pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Params {
    /// `zio_dva_throttle_enabled` on a release that has the throttle (0.7+).
    pub on: bool,
    /// `mg_max_alloc_queue_depth`: async_write_max_active × queue_depth_pct / 100.
    pub cap: u32,
    /// Per-vdev limit each txg starts at: `zfs_vdev_def_queue_depth` (0.8+); 0.7: `cap`.
    pub def: u32,
    /// Allocators (0.7: 1).
    pub allocators: usize,
    /// 0.8+: limits grow per completed copy and ditto copies get (4 + d) / 4 of them.
    pub growing: bool,
    /// 2.1+: a rotor per allocator.
    pub rotor_per_allocator: bool,
}

#[derive(Clone, Copy, Default, Debug)]
struct Rotor {
    at: usize,
    acc: u64,
}

#[derive(Default, Debug)]
struct Allocator {
    /// Slots in use and available, per class.
    used: [u32; 2],
    max: [u32; 2],
    depth: Vec<u32>,
    cur: Vec<u32>,
    queue: BTreeSet<(Order, u32)>,
}

/// The rotor(s) and throttle state of the pool's metaslab classes (normal, special).
#[derive(Debug)]
pub(crate) struct Allocation {
    p: Params,
    aliquot: Vec<u64>,
    /// Per class: its vdevs (global indices, in vdev order; a rotor's `at` counts in here).
    members: [Vec<usize>; 2],
    /// Per vdev: its class.
    class: Vec<u8>,
    rotors: [Vec<Rotor>; 2],
    al: Vec<Allocator>,
    arrivals: u64,
}

impl Allocation {
    /// `aliquot[t]`: top-level vdev t's `mg_aliquot` in bytes of asize; every vdev normal.
    #[cfg(test)]
    pub(crate) fn new(aliquot: Vec<u64>) -> Allocation {
        let n = aliquot.len();
        Self::with_classes(aliquot, vec![false; n])
    }

    /// As `new`, with `special[t]` marking the special class's vdevs.
    pub(crate) fn with_classes(aliquot: Vec<u64>, special: Vec<bool>) -> Allocation {
        let p = Params { on: false, cap: 0, def: 0, allocators: 1, growing: false, rotor_per_allocator: false };
        let class: Vec<u8> = special.iter().map(|&s| u8::from(s)).collect();
        let members = [0u8, 1].map(|c| (0..class.len()).filter(|&t| class[t] == c).collect::<Vec<_>>());
        let rotors = [vec![Rotor::default()], vec![Rotor::default()]];
        let mut a = Allocation { p, aliquot, members, class, rotors, al: Vec::new(), arrivals: 0 };
        a.begin_txg(p);
        a
    }

    /// The pool has a special class.
    pub(crate) fn has_special(&self) -> bool {
        !self.members[1].is_empty()
    }

    pub(crate) fn params(&self) -> Params {
        self.p
    }

    /// `spa_sync_adjust_vdev_max_queue_depth` (0.8+; spa_sync in 0.7): the txg's limits.
    /// The rotors persist across txgs; nothing is in flight between syncs.
    pub(crate) fn begin_txg(&mut self, p: Params) {
        let n = self.aliquot.len();
        let allocators = p.allocators.max(1);
        if self.al.len() != allocators {
            self.al = (0..allocators).map(|_| Allocator { depth: vec![0; n], ..Default::default() }).collect();
        }
        let nrot = if p.rotor_per_allocator { allocators } else { 1 };
        for rotors in &mut self.rotors {
            if rotors.len() != nrot {
                // All rotors start at the class's (`metaslab_group_activate` sets every
                // allocator's to the same group).
                let r = rotors[0];
                *rotors = vec![r; nrot];
            }
        }
        self.p = p;
        let start = if p.growing { p.def } else { p.cap };
        let sizes = [self.members[0].len() as u32, self.members[1].len() as u32];
        for a in &mut self.al {
            a.cur = vec![start; n];
            a.max = sizes.map(|m| start.saturating_mul(m));
        }
    }

    /// The allocator a block of (objset, object, level, block id) uses: a fixed mix of
    /// the same fields `zio_dva_throttle` hashes (cityhash4 there, so the spread is the
    /// same, not the assignment), 2^20-block regions of an object together.
    pub(crate) fn allocator_of(&self, objset: u64, object: u64, level: u64, blkid: u64) -> usize {
        let n = self.al.len() as u64;
        if n <= 1 {
            return 0;
        }
        let mut h = 0x9E37_79B9_7F4A_7C15u64;
        for v in [objset, object, level, blkid >> 20] {
            h = (h ^ v).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            h ^= h >> 31;
        }
        (h % n) as usize
    }

    /// A block arrives at allocator `a`'s queue.
    pub(crate) fn enqueue(&mut self, a: usize, key: (u64, u64, u64, u64), blk: u32) {
        self.arrivals += 1;
        self.al[a].queue.insert(((key.0, key.1, key.2, key.3, self.arrivals), blk));
    }

    /// Blocks waiting in any allocator's queue.
    pub(crate) fn waiting(&self) -> usize {
        self.al.iter().map(|a| a.queue.len()).sum()
    }

    /// `zio_io_to_allocate`: admit the head of allocator `a`'s queue if its copies fit in
    /// the free slots of its class (`copies(blk)`: (copies, class); always, with the
    /// throttle off), reserving them.
    pub(crate) fn admit(&mut self, a: usize, copies: impl Fn(u32) -> (u32, usize)) -> Option<u32> {
        let on = self.p.on;
        let al = &mut self.al[a];
        let &(k, blk) = al.queue.first()?;
        let (c, class) = copies(blk);
        if on && al.used[class] + c > al.max[class] {
            return None;
        }
        if on {
            al.used[class] += c;
        }
        al.queue.remove(&(k, blk));
        Some(blk)
    }

    /// `metaslab_alloc_dva` for copy `d` of a block of allocator `a` in class `class`
    /// (`prev`: the vdev of copy d − 1), of `asize` bytes, among the class's vdevs `usable`
    /// marks writable: the vdev, with the rotor moved and (throttle on) the vdev's depth
    /// taken. None: no usable vdev in the class.
    pub(crate) fn pick(&mut self, a: usize, class: usize, d: usize, prev: Option<usize>, usable: &[bool], asize: impl Fn(usize) -> u64) -> Option<usize> {
        let m = &self.members[class];
        let n = m.len();
        if n == 0 {
            return None;
        }
        let ri = if self.p.rotor_per_allocator { a } else { 0 };
        // Local indices (places in the class) from here on; `m[i]` is the vdev.
        let start = match prev.and_then(|t| m.iter().position(|&x| x == t)) {
            Some(i) => (i + 1) % n,
            None => self.rotors[class][ri].at % n,
        };
        let groups = m.iter().filter(|&&t| usable[t]).count();
        let mut i = start;
        let mut chosen = None;
        loop {
            if usable[m[i]] && self.allowed(a, class, d, i, start, groups) {
                chosen = Some(i);
                break;
            }
            // `next:` a group passed over moves the rotor past it.
            self.rotors[class][ri] = Rotor { at: (i + 1) % n, acc: 0 };
            i = (i + 1) % n;
            if i == start {
                break;
            }
        }
        let i = match chosen {
            Some(i) => i,
            // try_hard: the first writable vdev from where the walk began.
            None => (0..n).map(|k| (start + k) % n).find(|&i| usable[m[i]])?,
        };
        let g = m[i];
        let r = &mut self.rotors[class][ri];
        r.acc += asize(g);
        if r.acc >= self.aliquot[g] {
            *r = Rotor { at: (i + 1) % n, acc: 0 };
        }
        if self.p.on {
            self.al[a].depth[g] += 1;
        }
        Some(g)
    }

    /// `metaslab_group_allocatable`'s throttle test of the class's `i`-th vdev for copy
    /// `d`, the walk having begun at its `start`-th, with `groups` writable vdevs.
    fn allowed(&self, a: usize, class: usize, d: usize, i: usize, start: usize, groups: usize) -> bool {
        let m = &self.members[class];
        let n = m.len();
        if !self.p.on || n <= 1 || groups <= 1 {
            return true;
        }
        let al = &self.al[a];
        let limit = |g: usize| if self.p.growing { al.cur[g] as u64 * (4 + d as u64) / 4 } else { al.cur[g] as u64 };
        if (al.depth[m[i]] as u64) < limit(m[i]) {
            return true;
        }
        // At or over its limit: pass it over if a vdev after it, before the walk's start,
        // is under its own (whatever that vdev's health: the look-ahead does not ask).
        let mut h = (i + 1) % n;
        while h != start {
            if (al.depth[m[h]] as u64) < limit(m[h]) {
                return false;
            }
            h = (h + 1) % n;
        }
        true
    }

    /// `zio_dva_throttle_done`: a copy of class `class` allocator `a` placed on vdev `g`
    /// was written; its depth and slot are released and (0.8+) the vdev's limit grows.
    /// The caller then admits once (`zio_allocate_dispatch`).
    pub(crate) fn done(&mut self, a: usize, class: usize, g: usize) {
        if !self.p.on {
            return;
        }
        let (cap, growing) = (self.p.cap, self.p.growing);
        let gc = self.class[g] as usize;
        let al = &mut self.al[a];
        al.depth[g] = al.depth[g].saturating_sub(1);
        if growing && al.cur[g] < cap {
            al.cur[g] += 1;
            // The vdev's class gains the slot (`metaslab_class_throttle_unreserve` gives
            // back to the block's class; the limit grows in the vdev's group's class).
            al.max[gc] += 1;
        }
        al.used[class] = al.used[class].saturating_sub(1);
    }

    /// Copies in flight on vdev `g` (all allocators).
    #[cfg(test)]
    fn depth(&self, g: usize) -> u32 {
        self.al.iter().map(|a| a.depth[g]).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p07() -> Params {
        Params { on: true, cap: 100, def: 100, allocators: 1, growing: false, rotor_per_allocator: false }
    }
    fn p22() -> Params {
        Params { on: true, cap: 100, def: 32, allocators: 4, growing: true, rotor_per_allocator: true }
    }

    #[test]
    fn the_rotor_keeps_a_vdev_for_its_aliquot_and_passes_unwritable_ones() {
        let mut a = Allocation::new(vec![1 << 20; 3]);
        let all = [true; 3];
        let picks: Vec<usize> = (0..12).map(|_| a.pick(0, 0, 0, None, &all, |_| 256 << 10).unwrap()).collect();
        assert_eq!(picks, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
        // A ditto copy goes to the vdev after the previous copy's.
        assert_eq!(a.pick(0, 0, 1, Some(2), &all, |_| 256 << 10), Some(0));
        let mut b = Allocation::new(vec![1 << 20; 3]);
        let no1 = [true, false, true];
        let picks: Vec<usize> = (0..8).map(|_| b.pick(0, 0, 0, None, &no1, |_| 512 << 10).unwrap()).collect();
        assert_eq!(picks, [0, 0, 2, 2, 0, 0, 2, 2]);
        assert_eq!(b.pick(0, 0, 0, None, &[false; 3], |_| 512), None);
    }

    #[test]
    fn a_vdev_at_its_limit_is_passed_over_while_one_ahead_has_room() {
        // 0.7: limit 100 per vdev, slots 100 × 2. Vdev 0 fills to 100 (its writes never
        // complete), then the rotor moves on to vdev 1 even inside 0's aliquot.
        let mut a = Allocation::new(vec![u64::MAX / 4; 2]);
        a.begin_txg(p07());
        let all = [true; 2];
        for _ in 0..100 {
            assert_eq!(a.pick(0, 0, 0, None, &all, |_| 4096), Some(0));
        }
        assert_eq!(a.pick(0, 0, 0, None, &all, |_| 4096), Some(1));
        // Both full: the look-ahead finds no room, so the rotor's vdev takes it (over).
        for _ in 0..99 {
            a.pick(0, 0, 0, None, &all, |_| 4096);
        }
        assert_eq!((a.depth(0), a.depth(1)), (100, 100));
        let g = a.pick(0, 0, 0, None, &all, |_| 4096).unwrap();
        assert_eq!(a.depth(g), 101);
        // A completion frees vdev 0: the next block goes back there only once the walk
        // starting at the rotor reaches it.
        a.done(0, 0, 0);
        assert_eq!(a.depth(0), if g == 0 { 100 } else { 99 });
    }

    #[test]
    fn slots_admit_the_queue_head_only_and_grow_with_completions_from_0_8() {
        let mut a = Allocation::new(vec![1 << 20; 2]);
        a.begin_txg(p22());
        // 32 × 2 slots per allocator; a 3-copy head blocks a 1-copy block behind it.
        for i in 0..70 {
            a.enqueue(0, (1, 5, 1, i), i as u32);
        }
        let mut admitted = 0;
        while a.admit(0, |_| (1, 0)).is_some() {
            admitted += 1;
        }
        assert_eq!(admitted, 64);
        a.enqueue(0, (0, 0, 0, 0), 1000); // MOS, sorts first
        a.done(0, 0, 0); // one slot back, and vdev 0's limit 33: two free now
        assert_eq!(a.admit(0, |b| (if b == 1000 { 3 } else { 1 }, 0)), None);
        assert_eq!(a.admit(0, |_| (2, 0)), Some(1000));
        assert_eq!(a.waiting(), 6);
        // Limits restart at 32 each txg; 0.7's stay at 100.
        a.begin_txg(p22());
        assert_eq!((a.al[0].cur[0], a.al[0].max[0]), (32, 64));
        a.begin_txg(p07());
        assert_eq!((a.al[0].cur[0], a.al[0].max[0]), (100, 200));
    }

    #[test]
    fn ditto_copies_may_exceed_the_limit_by_a_quarter_per_copy_from_0_8() {
        let mut a = Allocation::new(vec![u64::MAX / 4; 2]);
        a.begin_txg(p22());
        let all = [true; 2];
        for _ in 0..32 {
            assert_eq!(a.pick(1, 0, 0, None, &all, |_| 4096), Some(0));
        }
        // Copy 0 now goes to vdev 1; a second copy (d = 1) after vdev 1 may still use
        // vdev 0 up to 40.
        assert_eq!(a.pick(1, 0, 0, None, &all, |_| 4096), Some(1));
        for _ in 0..8 {
            assert_eq!(a.pick(1, 0, 1, Some(1), &all, |_| 4096), Some(0));
        }
        assert_eq!(a.depth(0), 40);
        // The other allocators' depths are their own.
        assert_eq!(a.pick(2, 0, 0, None, &all, |_| 4096), Some(0));
    }

    #[test]
    fn with_the_throttle_off_nothing_waits_and_no_depth_is_kept() {
        let mut a = Allocation::new(vec![1 << 20; 2]);
        a.begin_txg(Params { on: false, ..p22() });
        for i in 0..500 {
            a.enqueue(0, (1, 1, 1, i), i as u32);
        }
        assert_eq!((0..500).filter(|_| a.admit(0, |_| (3, 0)).is_some()).count(), 500);
        for _ in 0..500 {
            a.pick(0, 0, 0, None, &[true; 2], |_| 1 << 20);
        }
        assert_eq!(a.depth(0) + a.depth(1), 0);
    }
}

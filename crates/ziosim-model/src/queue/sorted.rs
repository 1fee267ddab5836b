//! `SortedSet`: the ordered set behind every vdev queue (class queues, offset trees).
//!
//! ZFS keeps its queues in AVL trees threaded through the zio. Here a queue is a sorted list
//! of small sorted blocks (at most `BLOCK` keys each) with the blocks' own order kept in a
//! vector. Why not `BTreeSet`: a leaf's queue swings between empty and thousands of entries,
//! and `BTreeSet` allocates and frees nodes as it does; these blocks are recycled through a
//! free list, so after warm-up a queue never touches the allocator. Small queues — the usual
//! case — live in one block, where an insert is a binary search and a short `memmove`.
//!
//! The last key of every block is also kept in one contiguous vector (`lasts`), so finding
//! the block for a key is a binary search over adjacent memory rather than a walk through
//! block headers (a cache miss each in queues thousands deep).
//!
//! Costs for n keys: find O(log n); insert/remove O(log n + BLOCK) plus, on a block split or
//! merge (one in ~BLOCK/2 operations), O(n / BLOCK) to shift block handles. Inserting past
//! the last key and removing the first key (most operations of a vdev queue) skip the
//! searches; `remove_run` takes out a run of neighbours after one search.
//! Invariants: no block is empty; keys strictly increase across blocks; `len` is the total;
//! `lasts[i]` is the last key of `blocks[i]`.

/// Most keys in one block.
const BLOCK: usize = 32;

/// A position in a [`SortedSet`], valid until the set is next modified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos(u32, u32);

pub struct SortedSet<K> {
    blocks: Vec<Vec<K>>,
    lasts: Vec<K>,
    free: Vec<Vec<K>>,
    len: usize,
}

impl<K: Ord + Copy> Default for SortedSet<K> {
    fn default() -> Self {
        SortedSet { blocks: Vec::new(), lasts: Vec::new(), free: Vec::new(), len: 0 }
    }
}

impl<K: Ord + Copy> SortedSet<K> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn first(&self) -> Option<&K> {
        self.blocks.first().map(|b| &b[0])
    }

    /// Index of the first block whose last key is ≥ `k` (may be `blocks.len()`).
    #[inline]
    fn block_for(&self, k: &K) -> usize {
        self.lasts.partition_point(|l| l < k)
    }

    fn new_block(&mut self) -> Vec<K> {
        self.free.pop().unwrap_or_else(|| Vec::with_capacity(BLOCK + 1))
    }

    /// Insert `k`; false if it was already present.
    ///
    /// Most queues fill in key order (a txg's writes, time-ordered FIFO keys): ≈ 77 % of the
    /// mixed benches' inserts land after the last key in a last block with room. That case
    /// is inlined into the caller (it was ≈ 45 instructions, 20 of them the out-of-line
    /// call's register saves); everything else goes through `insert_slow`.
    #[inline]
    pub fn insert(&mut self, k: K) -> bool {
        if let (Some(last), Some(b)) = (self.lasts.last_mut(), self.blocks.last_mut()) {
            if *last < k && b.len() < BLOCK {
                b.push(k);
                *last = k;
                self.len += 1;
                return true;
            }
        }
        self.insert_slow(k)
    }

    #[inline(never)]
    fn insert_slow(&mut self, k: K) -> bool {
        if self.blocks.is_empty() {
            let mut b = self.new_block();
            b.push(k);
            self.blocks.push(b);
            self.lasts.push(k);
            self.len = 1;
            return true;
        }
        // After the last key (its block full): a full last block is not split in half (that
        // would leave half-empty blocks behind an append) but followed by a fresh one.
        let nb_last = self.blocks.len() - 1;
        if self.lasts[nb_last] < k {
            self.len += 1;
            if self.blocks[nb_last].len() < BLOCK {
                self.blocks[nb_last].push(k);
                self.lasts[nb_last] = k;
            } else {
                let mut b = self.new_block();
                b.push(k);
                self.blocks.push(b);
                self.lasts.push(k);
            }
            return true;
        }
        // The last block's range is the next most common target (keys of the newest 2.2
        // deadline bucket); no search over the block maxima for it.
        let bi = if nb_last > 0 && self.lasts[nb_last - 1] < k { nb_last } else { self.block_for(&k).min(nb_last) };
        let b = &mut self.blocks[bi];
        let pos = match b.binary_search(&k) {
            Ok(_) => return false,
            Err(p) => p,
        };
        b.insert(pos, k);
        if pos + 1 == b.len() {
            self.lasts[bi] = k;
        }
        self.len += 1;
        if b.len() > BLOCK {
            let mut nb = self.new_block();
            let b = &mut self.blocks[bi];
            nb.extend_from_slice(&b[BLOCK / 2..]);
            b.truncate(BLOCK / 2);
            let last = b[BLOCK / 2 - 1];
            self.blocks.insert(bi + 1, nb);
            self.lasts.insert(bi, last);
        }
        true
    }

    /// Remove `k`; false if it was absent.
    pub fn remove(&mut self, k: &K) -> bool {
        // Fast path: schedulers mostly take the lowest key (FIFO heads, C-SCAN wrapping).
        let (bi, pos) = match self.blocks.first() {
            Some(b) if b[0] == *k => (0, 0),
            _ => {
                let bi = self.block_for(k);
                let Some(b) = self.blocks.get(bi) else { return false };
                let Ok(pos) = b.binary_search(k) else { return false };
                (bi, pos)
            }
        };
        let b = &mut self.blocks[bi];
        b.remove(pos);
        self.len -= 1;
        let n = b.len();
        if n == 0 {
            let b = self.blocks.remove(bi);
            self.lasts.remove(bi);
            self.free.push(b);
        } else if n < BLOCK / 4 && bi + 1 < self.blocks.len() && n + self.blocks[bi + 1].len() <= BLOCK / 2 {
            let mut next = self.blocks.remove(bi + 1);
            self.blocks[bi].extend_from_slice(&next);
            self.lasts.remove(bi);
            next.clear();
            self.free.push(next);
        } else if pos == n {
            self.lasts[bi] = self.blocks[bi][n - 1];
        }
        true
    }

    /// Remove `k` and the `n - 1` keys after it (an aggregate's members, neighbours in the
    /// set): one search for the run instead of one per key. Returns how many were removed
    /// (fewer than `n` only if the set ends first); 0 if `k` is absent.
    pub fn remove_run(&mut self, k: &K, n: usize) -> usize {
        let first_bi = self.block_for(k);
        let Some(b) = self.blocks.get(first_bi) else { return 0 };
        let Ok(pos) = b.binary_search(k) else { return 0 };
        self.remove_run_at(first_bi, pos, n)
    }

    /// Remove the key at `p` and the `n - 1` keys after it (`remove_run` without the search,
    /// for a caller that has just found `p`); returns how many were removed.
    pub fn remove_run_from(&mut self, p: Pos, n: usize) -> usize {
        self.remove_run_at(p.0 as usize, p.1 as usize, n)
    }

    /// Remove the longest prefix of `keys` in which each key is the set's successor of the
    /// one before, after one search for `keys[0]`; returns its length (0 if `keys[0]` is
    /// absent).
    /// An aggregate's members of one class are usually neighbours in their class queue too,
    /// so they leave it in one call instead of one search and one shift each.
    pub fn remove_prefix(&mut self, keys: &[K]) -> usize {
        let Some(k) = keys.first() else { return 0 };
        let bi = self.block_for(k);
        let Some(b) = self.blocks.get(bi) else { return 0 };
        let Ok(pos) = b.binary_search(k) else { return 0 };
        let mut n = 1;
        let mut p = Pos(bi as u32, pos as u32);
        while n < keys.len() {
            match self.next_pos(p) {
                Some(q) if *self.at(q) == keys[n] => {
                    p = q;
                    n += 1;
                }
                _ => break,
            }
        }
        self.remove_run_at(bi, pos, n)
    }

    /// Remove up to `n` keys from position `pos` of block `first_bi` on.
    fn remove_run_at(&mut self, first_bi: usize, mut pos: usize, mut n: usize) -> usize {
        let mut bi = first_bi;
        let mut removed = 0;
        while n > 0 && bi < self.blocks.len() {
            let b = &mut self.blocks[bi];
            let take = n.min(b.len() - pos);
            b.drain(pos..pos + take);
            removed += take;
            n -= take;
            if b.is_empty() {
                let b = self.blocks.remove(bi);
                self.lasts.remove(bi);
                self.free.push(b);
            } else {
                if pos == b.len() {
                    self.lasts[bi] = b[pos - 1];
                }
                bi += 1;
            }
            pos = 0;
        }
        self.len -= removed;
        self.merge_small(first_bi);
        removed
    }

    /// `remove`'s merge rule for block `bi`: under a quarter full, it absorbs the next block
    /// when both fit in half a block.
    fn merge_small(&mut self, bi: usize) {
        if bi + 1 < self.blocks.len() {
            let n = self.blocks[bi].len();
            if n < BLOCK / 4 && n + self.blocks[bi + 1].len() <= BLOCK / 2 {
                let mut next = self.blocks.remove(bi + 1);
                self.blocks[bi].extend_from_slice(&next);
                self.lasts.remove(bi);
                next.clear();
                self.free.push(next);
            }
        }
    }

    /// Position of the first key ≥ `k`, as (block, index); block == blocks.len() if none.
    #[inline]
    fn lower_bound(&self, k: &K) -> (usize, usize) {
        let bi = self.block_for(k);
        match self.blocks.get(bi) {
            Some(b) => (bi, b.partition_point(|x| x < k)),
            None => (bi, 0),
        }
    }

    /// The first key ≥ `k`.
    pub fn first_at_or_after(&self, k: &K) -> Option<&K> {
        let (bi, i) = self.lower_bound(k);
        self.blocks.get(bi).map(|b| &b[i])
    }

    /// Keys > `k`, ascending.
    pub fn iter_after<'a>(&'a self, k: &K) -> impl Iterator<Item = &'a K> + 'a {
        let (bi, mut i) = self.lower_bound(k);
        if self.blocks.get(bi).is_some_and(|b| b[i] == *k) {
            i += 1;
        }
        let (head, rest) = match self.blocks.get(bi) {
            Some(b) => (&b[i..], &self.blocks[bi + 1..]),
            None => (&[][..], &[][..]),
        };
        head.iter().chain(rest.iter().flat_map(|b| b.iter()))
    }

    /// Keys < `k`, descending.
    pub fn iter_before_rev<'a>(&'a self, k: &K) -> impl Iterator<Item = &'a K> + 'a {
        let (bi, i) = self.lower_bound(k);
        let (head, rest) = match self.blocks.get(bi) {
            Some(b) => (&b[..i], &self.blocks[..bi]),
            None => (&[][..], &self.blocks[..]),
        };
        head.iter().rev().chain(rest.iter().rev().flat_map(|b| b.iter().rev()))
    }

    /// Position of `k` if present.
    #[inline]
    pub fn find(&self, k: &K) -> Option<Pos> {
        let bi = self.block_for(k);
        let i = self.blocks.get(bi)?.binary_search(k).ok()?;
        Some(Pos(bi as u32, i as u32))
    }

    #[inline]
    pub fn at(&self, p: Pos) -> &K {
        &self.blocks[p.0 as usize][p.1 as usize]
    }

    /// The position after `p`, if any.
    #[inline]
    pub fn next_pos(&self, p: Pos) -> Option<Pos> {
        let (bi, i) = (p.0 as usize, p.1 as usize);
        if i + 1 < self.blocks[bi].len() {
            Some(Pos(p.0, p.1 + 1))
        } else if bi + 1 < self.blocks.len() {
            Some(Pos(p.0 + 1, 0))
        } else {
            None
        }
    }

    /// The position before `p`, if any.
    #[inline]
    pub fn prev_pos(&self, p: Pos) -> Option<Pos> {
        if p.1 > 0 {
            Some(Pos(p.0, p.1 - 1))
        } else if p.0 > 0 {
            let bi = p.0 as usize - 1;
            Some(Pos(p.0 - 1, self.blocks[bi].len() as u32 - 1))
        } else {
            None
        }
    }

    /// All keys, ascending.
    pub fn iter(&self) -> impl Iterator<Item = &K> + '_ {
        self.blocks.iter().flat_map(|b| b.iter())
    }

    /// Panics unless the invariants in the module comment hold.
    #[cfg(test)]
    fn check_invariants(&self) {
        assert_eq!(self.lasts.len(), self.blocks.len());
        assert_eq!(self.blocks.iter().map(|b| b.len()).sum::<usize>(), self.len);
        for (b, l) in self.blocks.iter().zip(&self.lasts) {
            assert!(!b.is_empty() && b.last() == Some(l));
        }
        assert!(self.iter().zip(self.iter().skip(1)).all(|(a, b)| a < b));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use ziosim_engine::Rng;

    /// Random inserts/removes/queries agree with `BTreeSet`, across block splits and merges.
    #[test]
    fn agrees_with_btreeset() {
        for seed in 0..20 {
            let mut rng = Rng::stream(seed, "sorted-set");
            let mut a = SortedSet::<(u64, u32)>::default();
            let mut b = BTreeSet::<(u64, u32)>::new();
            let span = [8u64, 200, 5000][seed as usize % 3];
            for step in 0..20_000 {
                let k = (rng.below(span), rng.below(4) as u32);
                // bias toward growth, then toward shrinking, to cross block boundaries both ways
                let grow = if (step / 4000) % 2 == 0 { 0.7 } else { 0.3 };
                if rng.chance(grow) {
                    assert_eq!(a.insert(k), b.insert(k));
                } else {
                    assert_eq!(a.remove(&k), b.remove(&k));
                }
                assert_eq!(a.len(), b.len());
                assert_eq!(a.first(), b.first());
                if step % 13 == 0 {
                    a.check_invariants();
                }
                let q = (rng.below(span + 2), rng.below(5) as u32);
                assert_eq!(a.first_at_or_after(&q), b.range(q..).next());
                if step % 97 == 0 {
                    assert!(a.iter_after(&q).eq(b.range((std::ops::Bound::Excluded(q), std::ops::Bound::Unbounded))));
                    assert!(a.iter_before_rev(&q).eq(b.range(..q).rev()));
                    assert!(a.iter().eq(b.iter()));
                    if let Some(&k) = b.iter().nth(rng.below(b.len() as u64 + 1) as usize) {
                        let p = a.find(&k).unwrap();
                        assert_eq!(a.next_pos(p).map(|p| *a.at(p)), b.range((std::ops::Bound::Excluded(k), std::ops::Bound::Unbounded)).next().copied());
                        assert_eq!(a.prev_pos(p).map(|p| *a.at(p)), b.range(..k).next_back().copied());
                    }
                    assert_eq!(a.find(&q).is_some(), b.contains(&q));
                }
            }
        }
    }

    /// Removing runs of neighbours agrees with removing them one by one from `BTreeSet`.
    #[test]
    fn remove_run_agrees_with_btreeset() {
        for seed in 0..10 {
            let mut rng = Rng::stream(seed, "sorted-set-run");
            let mut a = SortedSet::<u64>::default();
            let mut b = BTreeSet::<u64>::new();
            for step in 0..20_000 {
                let grow = if (step / 2500) % 2 == 0 { 0.8 } else { 0.4 };
                if rng.chance(grow) || b.is_empty() {
                    let k = rng.below(3000);
                    assert_eq!(a.insert(k), b.insert(k));
                } else {
                    let k = if rng.chance(0.9) {
                        *b.iter().nth(rng.below(b.len() as u64) as usize).unwrap()
                    } else {
                        rng.below(3000)
                    };
                    let span = if rng.chance(0.1) { 80 } else { 8 };
                    let n = 1 + rng.below(span) as usize;
                    let want: Vec<u64> = if b.contains(&k) { b.range(k..).take(n).copied().collect() } else { vec![] };
                    assert_eq!(a.remove_run(&k, n), want.len());
                    for x in &want {
                        b.remove(x);
                    }
                }
                assert_eq!(a.len(), b.len());
                if step % 11 == 0 {
                    a.check_invariants();
                    assert!(a.iter().eq(b.iter()));
                }
            }
        }
    }

    /// The queue pattern the fast paths serve (appends past the last key, removal of the first
    /// key), mixed with out-of-order traffic, agrees with `BTreeSet` and keeps the invariants.
    #[test]
    fn remove_prefix_agrees_with_btreeset() {
        for seed in 0..10 {
            let mut rng = Rng::stream(seed, "sorted-set-prefix");
            let mut a = SortedSet::<u64>::default();
            let mut b = BTreeSet::<u64>::new();
            for step in 0..20_000 {
                let grow = if (step / 2500) % 2 == 0 { 0.8 } else { 0.4 };
                if rng.chance(grow) || b.is_empty() {
                    let k = rng.below(3000);
                    assert_eq!(a.insert(k), b.insert(k));
                } else {
                    // Ascending keys: mostly set neighbours, sometimes with a stranger in
                    // the run (a key absent, or one skipped), where the prefix must stop.
                    let start = *b.iter().nth(rng.below(b.len() as u64) as usize).unwrap();
                    let span = if rng.chance(0.1) { 80 } else { 8 };
                    let mut keys: Vec<u64> = b.range(start..).take(1 + rng.below(span) as usize).copied().collect();
                    if keys.len() > 2 && rng.chance(0.3) {
                        let i = 1 + rng.below(keys.len() as u64 - 1) as usize;
                        if rng.chance(0.5) {
                            keys.remove(i);
                        } else if !b.contains(&(keys[i] - 1)) && keys[i] - 1 > keys[i - 1] {
                            keys[i] -= 1;
                        }
                    }
                    if rng.chance(0.05) {
                        keys[0] = 3000 + rng.below(10); // absent
                    }
                    let mut want = 0;
                    let mut it = b.range(keys[0]..);
                    while want < keys.len() && it.next() == Some(&keys[want]) {
                        want += 1;
                    }
                    assert_eq!(a.remove_prefix(&keys), want);
                    for x in &keys[..want] {
                        b.remove(x);
                    }
                }
                assert_eq!(a.len(), b.len());
                if step % 11 == 0 {
                    a.check_invariants();
                    assert!(a.iter().eq(b.iter()));
                }
            }
        }
    }

    #[test]
    fn append_and_pop_front_agree_with_btreeset() {
        for seed in 0..6 {
            let mut rng = Rng::stream(seed, "sorted-set-fifo");
            let mut a = SortedSet::<u64>::default();
            let mut b = BTreeSet::<u64>::new();
            let mut next = 0u64;
            for step in 0..30_000 {
                let phase = (step / 3000) % 3; // grow, steady, drain
                let r = rng.below(100);
                if r < [70, 45, 20][phase] {
                    next += 1 + rng.below(3);
                    let k = if rng.chance(0.9) { next } else { rng.below(next + 1) };
                    assert_eq!(a.insert(k), b.insert(k));
                } else if r < 95 {
                    let k = b.first().copied().unwrap_or(0);
                    assert_eq!(a.remove(&k), b.remove(&k));
                } else {
                    let k = rng.below(next + 2);
                    assert_eq!(a.remove(&k), b.remove(&k));
                }
                assert_eq!(a.len(), b.len());
                assert_eq!(a.first(), b.first());
                if step % 7 == 0 {
                    a.check_invariants();
                    assert!(a.iter().eq(b.iter()));
                }
            }
        }
    }
}

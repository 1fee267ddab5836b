//! Indirect blocks on a workload's read path: what a read that misses the ARC must read
//! before its data.
//!
//! A read of a record the ARC does not hold needs the record's block pointer, which lives
//! in the level-1 indirect block above it (in that block's parent above it, and so on up to
//! the dnode). `dmu_buf_hold_array_by_dnode` holds each record's dbuf in turn; for one not
//! cached, `dbuf_findbp` holds the parent and reads it synchronously (`dbuf_read(*parentp,
//! NULL, …)`, a SYNC_READ through `arc_read`), climbing as far as a cached parent
//! (DBUF@zfs-2.2.0; the same chain in b117's `dbuf.c`). Only then is the record's own read
//! issued. So a record whose level-1 block left the ARC costs two dependent disk reads, and
//! a read of a cold region three or more: the extra latency a read-mostly workload shows
//! when its working set's indirect blocks no longer fit in memory.
//!
//! A write needs them too: `dmu_tx_hold_write` → `dmu_tx_count_write` reads every level-1
//! block above the records it covers (`dmu_tx_check_ioerr`, DMU_TX@zfs-2.2.0) before the
//! write's tx can be assigned, and the partly covered records after them (`rmw_reads`).
//!
//! This is modelled for workloads with a modelled ARC (`arc_size`): beside the records'
//! cache (`trace::ArcCache`) the indirect blocks of the layout's files (`Layout::
//! data_parents`) live in a cache of their own, sized as the release limits metadata in
//! the ARC (`meta_share`), holding each block at the bytes the ARC keeps of it (its psize
//! with the compressed ARC of 0.7+, its lsize before). A read's chain is read in order,
//! top level first, one block at a time, before the record reads it leads to. Simplified:
//! the metadata cache is one LRU list (ZFS's metadata buffers sit in the MRU/MFU lists
//! too, evicted to `arc_meta_limit` by `arc_adjust_meta`); it takes no room from the
//! records' cache; an indirect block is read from the pool, never from the L2ARC; an
//! operation's chain blocks are read one at a time before any of its records; the
//! prefetcher's reads do not climb; and a workload with the `arc_hit` draw instead of
//! `arc_size` finds every indirect block cached, as before.

use std::collections::BTreeMap;

/// The share of the ARC its metadata may fill on `release`, as (numerator, denominator)
/// of `arc_c`: `arc_meta_limit` = `arc_c_max` / 4 on OpenSolaris (b117 `arc_init`),
/// FreeBSD and illumos; 3/4 in ZFS on Linux 0.6.5 (ARC@zfs-0.6.5 `arc_init`) and, as
/// `zfs_arc_meta_limit_percent` = 75, from 0.7 to 2.1 (ARC@zfs-0.7.0, @zfs-2.1.0); 2.2
/// dropped the limit (`zfs_arc_meta_balance` only weighs metadata's ghost hits,
/// ARC@zfs-2.2.0), so all of it.
pub(crate) fn meta_share(release: crate::release::Release) -> (u64, u64) {
    use crate::release::Release as R;
    match release {
        r if r >= R::Zfs22 => (1, 1),
        r if r >= R::Zfs065 => (3, 4),
        _ => (1, 4),
    }
}

/// Bytes the ARC holds of a block of `psize` / `lsize`: compressed from 0.7
/// (`zfs_compressed_arc_enabled` = B_TRUE, ARC@zfs-0.7.0), whole before.
pub(crate) fn arc_bytes(release: crate::release::Release, psize: u64, lsize: u64) -> u64 {
    if release >= crate::release::Release::Zfs07 { psize } else { lsize }
}

/// An LRU cache of indirect blocks by traversal index, bounded in bytes.
pub(crate) struct IndirectCache {
    cap: u64,
    used: u64,
    clock: u64,
    /// index → (last use, bytes).
    blocks: BTreeMap<u64, (u64, u64)>,
    /// last use → index, oldest first.
    order: BTreeMap<u64, u64>,
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    /// Missing blocks read from the pool (a miss with no copy left is not read).
    pub(crate) reads: u64,
}

impl IndirectCache {
    pub(crate) fn new(cap_bytes: u64) -> IndirectCache {
        IndirectCache { cap: cap_bytes, used: 0, clock: 0, blocks: BTreeMap::new(), order: BTreeMap::new(), hits: 0, misses: 0,
                        reads: 0 }
    }

    pub(crate) fn capacity(&self) -> u64 {
        self.cap
    }

    /// Bytes held now.
    pub(crate) fn used(&self) -> u64 {
        self.used
    }

    /// Was block `index` (holding `bytes` in the ARC) cached? Either way it is now, as the
    /// most recently used (a miss is read in by the caller); the least recently used go
    /// while the cache is over its size.
    pub(crate) fn touch(&mut self, index: u64, bytes: u64) -> bool {
        self.clock += 1;
        let now = self.clock;
        if let Some((last, _)) = self.blocks.get_mut(&index) {
            self.order.remove(last);
            *last = now;
            self.order.insert(now, index);
            self.hits += 1;
            return true;
        }
        self.misses += 1;
        self.blocks.insert(index, (now, bytes));
        self.order.insert(now, index);
        self.used += bytes;
        while self.used > self.cap {
            let Some((_, old)) = self.order.pop_first() else { break };
            let (_, b) = self.blocks.remove(&old).expect("ordered block cached");
            self.used -= b;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::Release;

    #[test]
    fn the_cache_keeps_the_most_recent_blocks_within_its_bytes() {
        let mut c = IndirectCache::new(100);
        assert!(!c.touch(1, 40));
        assert!(!c.touch(2, 40));
        assert!(c.touch(1, 40), "1 is cached");
        // 3 pushes the cache to 120 bytes: the least recently used (2) goes.
        assert!(!c.touch(3, 40));
        assert_eq!(c.used(), 80);
        assert!(c.touch(1, 40) && c.touch(3, 40));
        assert!(!c.touch(2, 40), "2 was evicted");
        assert_eq!((c.hits, c.misses), (3, 4));
        // A block larger than the cache passes through it.
        assert!(!c.touch(9, 500));
        assert_eq!(c.used(), 0);
        assert!(!c.touch(9, 500));
    }

    #[test]
    fn the_metadata_share_and_its_size_follow_the_release() {
        assert_eq!(meta_share(Release::Solaris2009), (1, 4));
        assert_eq!(meta_share(Release::Freebsd9), (1, 4));
        assert_eq!(meta_share(Release::Illumos2014), (1, 4));
        assert_eq!(meta_share(Release::Zfs065), (3, 4));
        assert_eq!(meta_share(Release::Zfs21), (3, 4));
        assert_eq!(meta_share(Release::Zfs22), (1, 1));
        assert_eq!(arc_bytes(Release::Zfs065, 20_480, 131_072), 131_072);
        assert_eq!(arc_bytes(Release::Zfs07, 20_480, 131_072), 20_480);
    }
}

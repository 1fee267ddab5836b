//! Space maps: the MOS blocks a txg's allocations and frees make its sync write
//! (`metaslab_sync`), on top of the data and the blocks above it (`dirty.rs`).
//!
//! Theory of operation
//! -------------------
//! Every metaslab keeps its history in a space map, an object of the MOS: one 64-bit word
//! per allocated or freed range (a range longer than `SM_RUN_MAX` = 2^15 sectors takes one
//! per 2^15), after a debug word per `space_map_write` call (SM@zfs-0.6.5
//! `space_map_write`). What a sync writes of it:
//!
//! * **Before 2.0** each metaslab the txg allocated from or freed to appends its ranges to
//!   its own space map (`metaslab_sync`: alloc tree, then freeing tree), whose blocks are
//!   4 KiB (`space_map_blksz`, `zfs_metaslab_sm_blksz` to 0.8). The appended bytes dirty
//!   the object's last block — rewritten whole, with what it held — and any new ones; an
//!   object of more than one block has an indirect block above them (`dn_nblkptr` = 1 with
//!   the 320-byte `space_map_phys_t` bonus), and the object's dnode dirties its MOS dnode
//!   block (32 dnodes a block; metaslab m of vdev t has dnode Σ earlier vdevs' metaslabs +
//!   m, as the pool's first syncs created them).
//! * **From 2.0** (`log_spacemap`, on in a new pool) the txg's ranges of every metaslab go to
//!   one log space map the txg creates (`spa_generate_syncing_log_sm`, 128 KiB blocks,
//!   two-word entries carrying the vdev; MSLOG@zfs-2.2.0), plus its dnode and an entry in
//!   the log ZAP; a metaslab first dirtied since its last flush rewrites its vdev's
//!   unflushed-txg array (`metaslab_unflushed_bump`, one 8-byte slot per metaslab); and
//!   `spa_flush_metaslabs` flushes the metaslab flushed longest ago
//!   (`zfs_min_metaslabs_to_flush` = 1) into its own space map (128 KiB blocks,
//!   `zfs_metaslab_sm_blksz_with_log`).
//!
//! Every block is MOS metadata: three copies (`spa_max_replication`), compressed like the
//! layout's metadata. The sync writes them after the data and the scan's share of the txg
//! (spa_sync's later passes), before the flush that precedes the uberblock.
//!
//! Not modelled: condensing (`metaslab_condense` rewrites a space map grown large against
//! its metaslab's free ranges), the frees of old log space maps once flushed, a metaslab's
//! flush beyond the one per txg that `spa_estimate_metaslabs_to_flush` asks for when the
//! log nears its block limit, and the space maps' history before the run (every object
//! starts empty, as in a pool filled in one pass).

use std::collections::BTreeMap;

/// Longest run one entry describes, in sectors (`SM_RUN_MAX`, 15 run bits).
const SM_RUN_MAX: u64 = 1 << 15;
/// Dnodes per 16 KiB MOS dnode block.
const DNODES_PER_BLOCK: u64 = 32;
/// lsize of a MOS dnode block.
pub(crate) const DNODE_BLOCK: u64 = 16 << 10;
/// Block size of a log space map (`zfs_log_sm_blksz`).
const LOG_SM_BLKSZ: u64 = 128 << 10;

/// Record keys of the MOS blocks (`space.rs` follows their copies; the txg path's keys
/// use tags 1–8).
const TAG_MOS_DNODE: u64 = 9 << 56;
const TAG_SM: u64 = 10 << 56;
const TAG_SM_IND: u64 = 11 << 56;
const TAG_LOG_SM: u64 = 12 << 56;
const TAG_LOG_ZAP: u64 = 13 << 56;
const TAG_UNFLUSHED: u64 = 14 << 56;
const TAG_LOG_DNODE: u64 = 15 << 56;

/// One block a sync writes: its record key and the bytes it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SmBlock {
    pub key: (u64, u64),
    pub lsize: u64,
}

fn ms_key(tag: u64, ms: (u16, u64)) -> u64 {
    tag | (ms.0 as u64) << 40 | ms.1
}

/// The ranges a txg allocated from and freed to one metaslab: entries of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MsChange {
    pub allocs: u64,
    pub frees: u64,
}

impl MsChange {
    /// Entries a range of `len` bytes takes in sectors of 2^`ashift`.
    pub(crate) fn entries(len: u64, ashift: u32) -> u64 {
        (len >> ashift).div_ceil(SM_RUN_MAX).max(1)
    }
}

/// Per pool: the space maps' sizes, the log era's unflushed metaslabs, and counters.
#[derive(Debug)]
pub(crate) struct SpaceMaps {
    /// Log space map (2.0+) or one space map per metaslab.
    log: bool,
    /// Block size of a metaslab's own space map.
    blksz: u64,
    /// Block pointers per indirect block of a space map object (log2).
    fanout_shift: u32,
    /// First metaslab dnode of each vdev (key order: pool vdevs, then log vdevs).
    dnode_base: Vec<u64>,
    /// Bytes in each metaslab's space map object.
    objsize: BTreeMap<(u16, u64), u64>,
    /// Log era: metaslabs with changes not yet flushed → (txg of the first, words owed).
    unflushed: BTreeMap<(u16, u64), (u64, u64)>,
    /// Metaslabs per vdev.
    ms_count: Vec<u64>,
    /// Log era: the log space maps not yet destroyed, by txg → their blocks.
    logs: BTreeMap<u64, u64>,
    /// Blocks handed out, for the tests.
    blocks: u64,
}

impl SpaceMaps {
    /// `ms_count`: metaslabs of each vdev; `indblkshift`: the release's (MOS objects take
    /// `zfs_default_ibs` too).
    pub(crate) fn new(log: bool, ms_count: Vec<u64>, indblkshift: u32) -> SpaceMaps {
        let mut dnode_base = Vec::with_capacity(ms_count.len());
        let mut acc = 0;
        for &n in &ms_count {
            dnode_base.push(acc);
            acc += n;
        }
        SpaceMaps {
            log,
            blksz: if log { 128 << 10 } else { 4 << 10 },
            fanout_shift: indblkshift - 7,
            dnode_base,
            objsize: BTreeMap::new(),
            unflushed: BTreeMap::new(),
            ms_count,
            logs: BTreeMap::new(),
            blocks: 0,
        }
    }

    /// The MOS blocks the sync of `txg` writes for `changes` (per (vdev, metaslab)), each
    /// with the bytes it holds (its lsize before compression; a block is written whole),
    /// and in `destroyed` the blocks of log space maps it destroys.
    pub(crate) fn txg(&mut self, txg: u64, changes: &BTreeMap<(u16, u64), MsChange>, out: &mut Vec<SmBlock>, destroyed: &mut Vec<(u64, u64)>) {
        out.clear();
        destroyed.clear();
        if changes.is_empty() && self.unflushed.is_empty() {
            return;
        }
        let mut dnodes = Vec::new();
        if !self.log {
            for (&ms, c) in changes {
                let words = c.allocs + c.frees + u64::from(c.allocs > 0) + u64::from(c.frees > 0);
                self.append(ms, 8 * words, out);
                dnodes.push(self.dnode_block(ms));
            }
        } else {
            // The txg's log space map: two words an entry, one debug word per call.
            let words: u64 = changes.values().map(|c| 2 * (c.allocs + c.frees) + u64::from(c.allocs > 0) + u64::from(c.frees > 0)).sum();
            let (mut left, mut blk) = (8 * words, 0);
            while left > 0 {
                out.push(SmBlock { key: (TAG_LOG_SM | txg, blk), lsize: left.min(LOG_SM_BLKSZ) });
                left -= left.min(LOG_SM_BLKSZ);
                blk += 1;
            }
            if words > 0 {
                // Its dnode (a new object each txg) and its entry in the log ZAP.
                out.push(SmBlock { key: (TAG_LOG_DNODE, 0), lsize: DNODE_BLOCK });
                out.push(SmBlock { key: (TAG_LOG_ZAP, 0), lsize: 4 << 10 });
                self.logs.insert(txg, blk);
            }
            let mut bumped = Vec::new();
            for (&ms, c) in changes {
                let w = c.allocs + c.frees;
                match self.unflushed.get_mut(&ms) {
                    Some(e) => e.1 += w,
                    None => {
                        self.unflushed.insert(ms, (txg, w));
                        bumped.push(ms.0);
                    }
                }
            }
            bumped.dedup();
            for v in bumped {
                // The vdev's unflushed-txg array: one 8-byte slot per metaslab.
                out.push(SmBlock { key: (TAG_UNFLUSHED | v as u64, 0), lsize: (8 * self.ms_count[v as usize]).next_multiple_of(512) });
            }
            // spa_flush_metaslabs: the metaslab flushed longest ago (not one dirtied only now).
            let oldest = self.unflushed.iter().filter(|(_, &(t, _))| t < txg).min_by_key(|(&ms, &(t, _))| (t, ms)).map(|(&ms, &e)| (ms, e));
            if let Some((ms, (_, w))) = oldest {
                self.unflushed.remove(&ms);
                self.append(ms, 8 * (w + 2), out);
                dnodes.push(self.dnode_block(ms));
            }
            // spa_cleanup_old_sm_logs: a log every metaslab has flushed past is destroyed.
            let keep = self.unflushed.values().map(|e| e.0).min().unwrap_or(txg);
            while let Some(e) = self.logs.first_entry().filter(|e| *e.key() < keep) {
                let (t, n) = e.remove_entry();
                destroyed.extend((0..n).map(|b| (TAG_LOG_SM | t, b)));
            }
        }
        dnodes.sort_unstable();
        dnodes.dedup();
        out.extend(dnodes.iter().map(|&u| SmBlock { key: (TAG_MOS_DNODE, u), lsize: DNODE_BLOCK }));
        self.blocks += out.len() as u64;
    }

    /// Append `bytes` to metaslab `ms`'s own space map: the blocks they dirty (the last
    /// one holding what it held before) and the indirect above them, if any.
    fn append(&mut self, ms: (u16, u64), bytes: u64, out: &mut Vec<SmBlock>) {
        let size = self.objsize.entry(ms).or_insert(0);
        let (from, to) = (*size, *size + bytes);
        *size = to;
        let b = self.blksz;
        for blk in from / b..to.div_ceil(b) {
            out.push(SmBlock { key: (ms_key(TAG_SM, ms), blk), lsize: (to - blk * b).min(b).next_multiple_of(512) });
        }
        if to > b {
            let (f, l) = ((from / b) >> self.fanout_shift, ((to - 1) / b) >> self.fanout_shift);
            // An indirect's pointers: 128 bytes per child block it holds so far.
            for i in f..=l {
                let children = ((to - 1) / b + 1 - (i << self.fanout_shift)).min(1 << self.fanout_shift);
                out.push(SmBlock { key: (ms_key(TAG_SM_IND, ms), i), lsize: (children * 128).next_multiple_of(512) });
            }
        }
    }

    fn dnode_block(&self, ms: (u16, u64)) -> u64 {
        (self.dnode_base[ms.0 as usize] + ms.1) / DNODES_PER_BLOCK
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(v: &[((u16, u64), u64, u64)]) -> BTreeMap<(u16, u64), MsChange> {
        v.iter().map(|&(k, allocs, frees)| (k, MsChange { allocs, frees })).collect()
    }

    /// The lsizes of a txg's blocks, and the log blocks it destroys.
    fn run(sm: &mut SpaceMaps, txg: u64, c: &[((u16, u64), u64, u64)]) -> (Vec<u64>, usize) {
        let (mut out, mut gone) = (Vec::new(), Vec::new());
        sm.txg(txg, &changes(c), &mut out, &mut gone);
        (out.iter().map(|b| b.lsize).collect(), gone.len())
    }

    #[test]
    fn before_2_0_each_metaslab_appends_to_its_own_space_map() {
        let mut sm = SpaceMaps::new(false, vec![100, 100], 14);
        // Two metaslabs of vdev 0 (one dnode block), one of vdev 1 (dnode 100 + 5: block 3).
        let (out, _) = run(&mut sm, 5, &[((0, 0), 3, 0), ((0, 1), 1, 2), ((1, 5), 0, 1)]);
        // 4 words (debug + 3), 5 words (2 debug + 3), 2 words: one 4 KiB block each, rewritten
        // with what it holds; then dnode blocks 0 and 3.
        assert_eq!(out, vec![512, 512, 512, DNODE_BLOCK, DNODE_BLOCK]);
        // 600 more allocation entries on (0, 0): 4 808 bytes in, the block fills and a second
        // one starts, and the object now needs an indirect of two pointers.
        let (out, _) = run(&mut sm, 6, &[((0, 0), 600, 0)]);
        assert_eq!(out, vec![4096, 1024, 512, DNODE_BLOCK]);
        assert_eq!(sm.blocks, 9);
    }

    #[test]
    fn a_long_range_takes_an_entry_per_2_15_sectors() {
        assert_eq!(MsChange::entries(4096, 12), 1);
        assert_eq!(MsChange::entries(128 << 20, 12), 1);
        assert_eq!(MsChange::entries((128 << 20) + 4096, 12), 2);
        assert_eq!(MsChange::entries(512, 12), 1);
    }

    #[test]
    fn from_2_0_a_txg_writes_one_log_and_flushes_one_metaslab() {
        let mut sm = SpaceMaps::new(true, vec![200], 17);
        // txg 5 dirties two metaslabs: a log of 2 × (2 entries × 2 words + 2 debug) words,
        // its dnode and ZAP entry, and the vdev's unflushed-txg array (200 slots); nothing
        // older to flush.
        assert_eq!(run(&mut sm, 5, &[((0, 3), 1, 1), ((0, 4), 1, 1)]), (vec![8 * 12, DNODE_BLOCK, 4096, 2048], 0));
        // txg 6 dirties metaslab 3 again (no new array write) and flushes the oldest of txg
        // 5's, metaslab 3 (ties by key): its 5 words owed + 2 debug into its own space map.
        assert_eq!(run(&mut sm, 6, &[((0, 3), 1, 0)]), (vec![8 * 3, DNODE_BLOCK, 4096, 512, DNODE_BLOCK], 0));
        // An idle txg still flushes: metaslab 4. Every metaslab has then flushed past the
        // logs of txgs 5 and 6: both are destroyed (one block each).
        assert_eq!(run(&mut sm, 7, &[]), (vec![512, DNODE_BLOCK], 2));
        assert_eq!(run(&mut sm, 8, &[]), (vec![], 0));
        assert_eq!(sm.blocks, 4 + 5 + 2);
    }
}

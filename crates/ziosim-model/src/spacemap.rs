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
//!   `spa_flush_metaslabs` (a txg that dirtied the MOS: a change, or a scan's state)
//!   flushes metaslabs into their own space maps (128 KiB blocks,
//!   `zfs_metaslab_sm_blksz_with_log`), oldest flush first: as many as
//!   `spa_estimate_metaslabs_to_flush` wants to keep the log under its block limit (4 ×
//!   the metaslabs, within [1000, 2^18]; 2.2: 4 × the metaslabs with changes, within
//!   [1000, 2^17], and at most 1000 txgs of logs), at least `zfs_min_metaslabs_to_flush`
//!   = 1, and more while the unflushed ranges (8 bytes each) exceed 0.1 % of the host's
//!   memory. 2.2 passes over metaslabs without changes, moving them to the txg; 2.0 and
//!   2.1 flush them as any other (600a02b884, in 2.2.0 and 2.1.6). A metaslab joins the
//!   flush order at its first change of the run, as in a pool whose log just started.
//!
//! Every block is MOS metadata: three copies (`spa_max_replication`), compressed like the
//! layout's metadata. The sync writes them after the data and the scan's share of the txg
//! (spa_sync's later passes), before the flush that precedes the uberblock.
//!
//! Not modelled: condensing (`metaslab_condense` rewrites a space map grown large against
//! its metaslab's free ranges), ranges merging across txgs in a metaslab's unflushed trees
//! (each txg's entries are counted as they were logged), and the space maps' history
//! before the run (every object starts empty, as in a pool filled in one pass).

use crate::release::Release;
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
/// use tags 1–8, the scan and rebuild state's 16).
const TAG_MOS_DNODE: u64 = 9 << 56;
const TAG_SM: u64 = 10 << 56;
const TAG_SM_IND: u64 = 11 << 56;
const TAG_LOG_SM: u64 = 12 << 56;
const TAG_LOG_ZAP: u64 = 13 << 56;
const TAG_UNFLUSHED: u64 = 14 << 56;
const TAG_LOG_DNODE: u64 = 15 << 56;
/// The pool directory's ZAP leaf holding a scan's state (`sim.rs` writes it each scanning
/// txg).
pub(crate) const MOS_DIR_KEY: (u64, u64) = (16 << 56, 0);
/// The ZAP leaf of top-level vdev `t`'s ZAP holding its sequential rebuild's state.
pub(crate) fn top_zap_key(t: usize) -> (u64, u64) {
    (MOS_DIR_KEY.0, 1 + t as u64)
}

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
    /// Block size of a metaslab's own space map.
    blksz: u64,
    /// Block pointers per indirect block of a space map object (log2).
    fanout_shift: u32,
    /// First metaslab dnode of each vdev (key order: pool vdevs, then log vdevs).
    dnode_base: Vec<u64>,
    /// Bytes in each metaslab's space map object.
    objsize: BTreeMap<(u16, u64), u64>,
    /// Log era: the flushing state.
    flush: Option<LogState>,
    /// Metaslabs per vdev.
    ms_count: Vec<u64>,
    /// Blocks handed out, for the tests.
    blocks: u64,
}

/// Log era: one metaslab's place in `spa_metaslabs_by_flushed`.
#[derive(Clone, Copy, Debug)]
struct Flushed {
    /// `ms_unflushed_txg`: the txg of its last flush (or bump).
    txg: u64,
    /// `ms_unflushed_dirty` (2.2 on): it has changes since then.
    dirty: bool,
    /// Its unflushed ranges (`ms_unflushed_allocs` + `_frees`), one entry each.
    segs: u64,
}

/// A row of `spa_log_summary` (`log_summary_entry_t`).
#[derive(Clone, Copy, Debug, Default)]
struct SummaryRow {
    start: u64,
    end: u64,
    txgs: u64,
    ms: u64,
    ms_dirty: u64,
    blocks: u64,
}

/// The log era's flushing state (`spa_log_spacemap.c`): which metaslab is flushed longest
/// ago, the log space maps still alive and the summary the flush estimate reads.
#[derive(Debug)]
struct LogState {
    /// The 2.2 algorithm (`600a02b884`, in 2.2.0 and backported to 2.1.6): only metaslabs
    /// with changes are flushed and counted; the txg limit. Before: every metaslab in turn.
    dirty_only: bool,
    ms: BTreeMap<(u16, u64), Flushed>,
    /// `spa_metaslabs_by_flushed`: (unflushed txg, vdev, metaslab).
    by_flushed: std::collections::BTreeSet<(u64, u16, u64)>,
    /// `spa_sm_logs_by_txg`: txg → (blocks, metaslabs last flushed in it).
    logs: BTreeMap<u64, (u64, u64)>,
    summary: std::collections::VecDeque<SummaryRow>,
    /// `sus_nblocks`, `sus_memused`, `sus_blocklimit`.
    nblocks: u64,
    memused: u64,
    blocklimit: u64,
    /// Metaslabs in the pool (2.0/2.1's block limit).
    total_ms: u64,
    /// Bytes the unflushed trees may use: `zfs_unflushed_max_mem_amt`, and
    /// `zfs_unflushed_max_mem_ppm` of the host's memory.
    mem_limit: u64,
}

/// `zfs_unflushed_log_block_pct`, `_min`, `zfs_unflushed_log_txg_max`,
/// `zfs_max_logsm_summary_length`, `zfs_max_log_walking`, `zfs_min_metaslabs_to_flush`
/// (MSLOG@zfs-2.1.0 and @zfs-2.2.0; the same in both but the txg limit, new in 2.2).
const LOG_BLOCK_PCT: u64 = 400;
const LOG_BLOCK_MIN: u64 = 1000;
const LOG_TXG_MAX: u64 = 1000;
const SUMMARY_LENGTH: u64 = 10;
const MAX_LOG_WALKING: usize = 5;
const MIN_METASLABS_TO_FLUSH: u64 = 1;
/// Bytes of one unflushed range: `range_seg32_t` (a metaslab of < 2^32 sectors).
const SEG_BYTES: u64 = 8;

impl LogState {
    fn new(dirty_only: bool, total_ms: u64, ram_bytes: u64) -> LogState {
        let mut s = LogState {
            dirty_only,
            ms: BTreeMap::new(),
            by_flushed: Default::default(),
            logs: BTreeMap::new(),
            summary: Default::default(),
            nblocks: 0,
            memused: 0,
            blocklimit: 0,
            total_ms,
            mem_limit: (1u64 << 30).min(ram_bytes / 1000),
        };
        s.set_blocklimit();
        s
    }

    /// `spa_log_sm_set_blocklimit`: 4 × the metaslabs (2.2: those with changes), within
    /// [min, max].
    fn set_blocklimit(&mut self) {
        let ms = if self.dirty_only { self.summary.iter().map(|r| r.ms_dirty).sum() } else { self.total_ms };
        // zfs_unflushed_log_block_max: 2^18 to 2.1.0, 2^17 with the txg limit.
        let max = if self.dirty_only { 1 << 17 } else { 1 << 18 };
        self.blocklimit = (ms * LOG_BLOCK_PCT / 100).clamp(LOG_BLOCK_MIN, max);
    }

    /// `summary_entry_is_full`.
    fn row_full(&self, r: &SummaryRow, txg: u64) -> bool {
        if self.dirty_only {
            if r.end == txg {
                return false;
            }
            if r.txgs >= LOG_TXG_MAX.div_ceil(SUMMARY_LENGTH) {
                return true;
            }
        }
        self.blocklimit.div_ceil(SUMMARY_LENGTH).max(1) <= r.blocks
    }

    /// `summary_add_data`.
    fn summary_add(&mut self, txg: u64, ms: u64, ms_dirty: u64, blocks: u64) {
        if self.summary.back().is_none_or(|r| self.row_full(r, txg)) {
            self.summary.push_back(SummaryRow { start: txg, end: txg, txgs: 1, ..Default::default() });
        }
        let r = self.summary.back_mut().unwrap();
        if r.end < txg {
            r.end = txg;
            r.txgs += 1;
        }
        r.ms += ms;
        r.ms_dirty += ms_dirty;
        r.blocks += blocks;
    }

    /// `spa_log_summary_decrement_mscount`: the row holding `txg`.
    fn summary_forget_ms(&mut self, txg: u64, dirty: bool) {
        if let Some(r) = self.summary.iter_mut().rev().find(|r| r.start <= txg) {
            r.ms = r.ms.saturating_sub(1);
            if dirty && self.dirty_only {
                r.ms_dirty = r.ms_dirty.saturating_sub(1);
            }
        }
    }

    /// `spa_log_summary_decrement_blkcount`.
    fn summary_forget_blocks(&mut self, mut gone: u64) {
        if self.dirty_only {
            if let Some(r) = self.summary.front_mut() {
                r.txgs = r.txgs.saturating_sub(1);
            }
        }
        while let Some(r) = self.summary.front_mut() {
            if r.blocks > gone {
                r.blocks -= gone;
                break;
            } else if r.ms == 0 {
                gone -= r.blocks;
                self.summary.pop_front();
            } else {
                // Every metaslab flushed in this row's txgs: its blocks are gone, it stays.
                r.blocks = 0;
                break;
            }
        }
    }

    /// Metaslab `ms` (in the tree) moves to `txg`: `metaslab_unflushed_bump` (2.2) or
    /// `metaslab_flush_update` (2.1). Returns the log space maps destroyed.
    fn bump(&mut self, ms: (u16, u64), txg: u64, dirty: bool, destroyed: &mut Vec<(u64, u64)>) {
        let f = self.ms.get_mut(&ms).unwrap();
        let (prev, prev_dirty) = (f.txg, f.dirty);
        self.by_flushed.remove(&(prev, ms.0, ms.1));
        f.txg = txg;
        f.dirty = dirty;
        self.by_flushed.insert((txg, ms.0, ms.1));
        if let Some(l) = self.logs.get_mut(&prev) {
            l.1 = l.1.saturating_sub(1);
        }
        if let Some(l) = self.logs.get_mut(&txg) {
            l.1 += 1;
        }
        self.summary_forget_ms(prev, prev_dirty);
        self.summary_add(txg, 1, u64::from(dirty), 0);
        // spa_cleanup_old_sm_logs: every log older than the oldest flush is obsolete.
        let oldest = self.by_flushed.first().map_or(txg, |e| e.0);
        while let Some(e) = self.logs.first_entry().filter(|e| *e.key() < oldest) {
            let (t, (n, _)) = e.remove_entry();
            self.summary_forget_blocks(n);
            self.nblocks -= n;
            destroyed.extend((0..n).map(|b| (TAG_LOG_SM | t, b)));
        }
    }

    /// `spa_estimate_incoming_log_blocks`: the mean of the last few logs before `txg`.
    fn incoming(&self, txg: u64) -> u64 {
        let last: Vec<u64> = self.logs.range(..txg).rev().take(MAX_LOG_WALKING).map(|(_, l)| l.0).collect();
        if last.is_empty() {
            0
        } else {
            last.iter().sum::<u64>().div_ceil(last.len() as u64)
        }
    }

    /// `spa_estimate_metaslabs_to_flush`.
    fn to_flush(&self, txg: u64) -> u64 {
        let incoming = self.incoming(txg) as i64;
        let mut future = 1i64;
        let mut blocks = self.blocklimit as i64 - self.nblocks as i64 - incoming;
        let mut txgs = if self.dirty_only { LOG_TXG_MAX as i64 - self.summary.iter().map(|r| r.txgs as i64).sum::<i64>() } else { i64::MAX / 4 };
        let (mut total, mut best) = (0i64, MIN_METASLABS_TO_FLUSH as i64);
        for r in &self.summary {
            if blocks >= 0 && txgs >= 0 {
                let skip = if incoming == 0 { txgs + 1 } else { (txgs + 1).min(blocks / incoming + 1) };
                blocks -= skip * incoming;
                txgs -= skip;
                future += skip;
            }
            blocks += r.blocks as i64;
            txgs += r.txgs as i64;
            total += if self.dirty_only { r.ms_dirty } else { r.ms } as i64;
            best = best.max((total + future - 1) / future);
        }
        best as u64
    }
}

impl SpaceMaps {
    /// `release`: whether it has the log space map and which flush algorithm; `ms_count`:
    /// metaslabs of each vdev; `ram_bytes`: the host's memory (the unflushed-change limit).
    pub(crate) fn new(release: Release, ms_count: Vec<u64>, ram_bytes: u64) -> SpaceMaps {
        let log = release >= Release::Zfs20;
        // MOS objects take `zfs_default_ibs` too.
        let indblkshift = crate::layout::indblkshift(release);
        let mut dnode_base = Vec::with_capacity(ms_count.len());
        let mut acc = 0;
        for &n in &ms_count {
            dnode_base.push(acc);
            acc += n;
        }
        SpaceMaps {
            blksz: if log { 128 << 10 } else { 4 << 10 },
            fanout_shift: indblkshift - 7,
            dnode_base,
            objsize: BTreeMap::new(),
            flush: log.then(|| LogState::new(release >= Release::Zfs22, ms_count.iter().sum(), ram_bytes)),
            ms_count,
            blocks: 0,
        }
    }

    /// The MOS blocks the sync of `txg` writes for `changes` (per (vdev, metaslab)), each
    /// with the bytes it holds (its lsize before compression; a block is written whole),
    /// and in `destroyed` the blocks of log space maps it destroys. `mos_dirty`: the txg
    /// dirtied the MOS otherwise (a scan's state); an idle txg flushes nothing.
    pub(crate) fn txg(&mut self, txg: u64, changes: &BTreeMap<(u16, u64), MsChange>, mos_dirty: bool, out: &mut Vec<SmBlock>, destroyed: &mut Vec<(u64, u64)>) {
        out.clear();
        destroyed.clear();
        let mut dnodes = Vec::new();
        match self.flush.take() {
            None => {
                for (&ms, c) in changes {
                    let words = c.allocs + c.frees + u64::from(c.allocs > 0) + u64::from(c.frees > 0);
                    self.append(ms, 8 * words, out);
                    dnodes.push(self.dnode_block(ms));
                }
            }
            Some(mut st) => {
                self.log_txg(&mut st, txg, changes, mos_dirty, out, &mut dnodes, destroyed);
                self.flush = Some(st);
            }
        }
        dnodes.sort_unstable();
        dnodes.dedup();
        out.extend(dnodes.iter().map(|&u| SmBlock { key: (TAG_MOS_DNODE, u), lsize: DNODE_BLOCK }));
        self.blocks += out.len() as u64;
    }

    /// The log era's txg (MSLOG/MS@zfs-2.1.0 and @zfs-2.2.0): `spa_flush_metaslabs` after
    /// the txg's data, then `metaslab_sync` of each metaslab it changed into the txg's log
    /// space map, then `spa_sync_close_syncing_log_sm`.
    #[allow(clippy::too_many_arguments)]
    fn log_txg(&mut self, st: &mut LogState, txg: u64, changes: &BTreeMap<(u16, u64), MsChange>, mos_dirty: bool, out: &mut Vec<SmBlock>, dnodes: &mut Vec<u64>, destroyed: &mut Vec<(u64, u64)>) {
        let mut arrays = Vec::new();
        let mut generated = false;
        if !st.by_flushed.is_empty() && (mos_dirty || !changes.is_empty()) {
            // spa_generate_syncing_log_sm, then as many metaslabs as the block heuristic
            // wants (and more while the unflushed changes exceed their memory), oldest
            // flush first, up to those flushed in this txg. 2.2 passes over metaslabs
            // without changes (moving them to this txg); 2.1 flushes them as any other.
            generated = true;
            st.logs.insert(txg, (0, 0));
            let mut want = st.to_flush(txg);
            while let Some(&(t, v, m)) = st.by_flushed.first() {
                if t == txg || (want == 0 && st.memused <= st.mem_limit) {
                    break;
                }
                let f = st.ms[&(v, m)];
                if f.dirty || !st.dirty_only {
                    if f.segs > 0 {
                        self.append((v, m), 8 * (f.segs + 2), out);
                        dnodes.push(self.dnode_block((v, m)));
                    }
                    st.memused -= SEG_BYTES * f.segs;
                    st.ms.get_mut(&(v, m)).unwrap().segs = 0;
                    want = want.saturating_sub(1);
                }
                st.bump((v, m), txg, false, destroyed);
                arrays.push(v);
            }
            st.set_blocklimit();
        }
        // metaslab_sync: a metaslab joins the flush order at its first change (as in a pool
        // whose space maps the run starts with empty); from 2.2 one without changes since
        // its flush moves to this txg as it gets some.
        let mut words = 0;
        for (&ms, c) in changes {
            if !generated {
                generated = true;
                st.logs.insert(txg, (0, 0));
            }
            match st.ms.get(&ms) {
                None => {
                    st.ms.insert(ms, Flushed { txg, dirty: true, segs: 0 });
                    st.by_flushed.insert((txg, ms.0, ms.1));
                    st.logs.get_mut(&txg).unwrap().1 += 1;
                    st.summary_add(txg, 1, 1, 0);
                    arrays.push(ms.0);
                }
                Some(f) if st.dirty_only && !f.dirty => {
                    st.bump(ms, txg, true, destroyed);
                    arrays.push(ms.0);
                }
                Some(_) => {}
            }
            let n = c.allocs + c.frees;
            st.ms.get_mut(&ms).unwrap().segs += n;
            st.memused += SEG_BYTES * n;
            // Two words an entry (the vdev is in it), one debug word per call.
            words += 2 * n + u64::from(c.allocs > 0) + u64::from(c.frees > 0);
        }
        if !generated {
            return;
        }
        // The txg's log space map (at least one block: the MOS blocks its own flushes wrote
        // are allocated in later passes and logged there), its dnode and its log-ZAP entry.
        let n = (8 * words).div_ceil(LOG_SM_BLKSZ).max(1);
        let mut left = (8 * words).max(512);
        for blk in 0..n {
            out.push(SmBlock { key: (TAG_LOG_SM | txg, blk), lsize: left.min(LOG_SM_BLKSZ).next_multiple_of(512) });
            left -= left.min(LOG_SM_BLKSZ);
        }
        out.push(SmBlock { key: (TAG_LOG_DNODE, 0), lsize: DNODE_BLOCK });
        out.push(SmBlock { key: (TAG_LOG_ZAP, 0), lsize: 4 << 10 });
        st.logs.get_mut(&txg).unwrap().0 = n;
        st.nblocks += n;
        st.summary_add(txg, 0, 0, n);
        // Each vdev whose metaslabs moved rewrites its unflushed-txg array (8 bytes a
        // metaslab, `metaslab_update_ondisk_flush_data`).
        arrays.sort_unstable();
        arrays.dedup();
        for v in arrays {
            out.push(SmBlock { key: (TAG_UNFLUSHED | v as u64, 0), lsize: (8 * self.ms_count[v as usize]).next_multiple_of(512) });
        }
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
        sm.txg(txg, &changes(c), false, &mut out, &mut gone);
        (out.iter().map(|b| b.lsize).collect(), gone.len())
    }

    const RAM: u64 = 16 << 30;

    #[test]
    fn before_2_0_each_metaslab_appends_to_its_own_space_map() {
        let mut sm = SpaceMaps::new(Release::Zfs065, vec![100, 100], RAM);
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
        // An idle txg writes nothing.
        assert_eq!(run(&mut sm, 7, &[]), (vec![], 0));
    }

    #[test]
    fn a_long_range_takes_an_entry_per_2_15_sectors() {
        assert_eq!(MsChange::entries(4096, 12), 1);
        assert_eq!(MsChange::entries(128 << 20, 12), 1);
        assert_eq!(MsChange::entries((128 << 20) + 4096, 12), 2);
        assert_eq!(MsChange::entries(512, 12), 1);
    }

    #[test]
    fn from_2_0_a_txg_writes_one_log_and_flushes_the_metaslab_flushed_longest_ago() {
        for rel in [Release::Zfs21, Release::Zfs22] {
            let mut sm = SpaceMaps::new(rel, vec![200], RAM);
            // txg 5 dirties two metaslabs: a log of 2 × (2 entries × 2 words + 2 debug)
            // words (in a 512-byte sector), its dnode and ZAP entry, and the vdev's unflushed-txg array (200 slots);
            // nothing was in the flush order before.
            assert_eq!(run(&mut sm, 5, &[((0, 3), 1, 1), ((0, 4), 1, 1)]), (vec![512, DNODE_BLOCK, 4096, 2048], 0));
            // txg 6 flushes the first of txg 5's, metaslab 3 (ties by key): its 2 entries +
            // 2 debug words into its own space map and its dnode; then logs its new change.
            assert_eq!(run(&mut sm, 6, &[((0, 3), 1, 0)]), (vec![512, 512, DNODE_BLOCK, 4096, 2048, DNODE_BLOCK], 0));
            // An idle txg (no change, no scan) flushes nothing.
            assert_eq!(run(&mut sm, 7, &[]), (vec![], 0));
            // A txg with a change elsewhere flushes metaslab 4; metaslab 3, now oldest
            // (flushed in 6), holds txg 6's log.
            let (out, gone) = run(&mut sm, 8, &[((0, 9), 1, 0)]);
            assert_eq!(out[0], 512, "{rel:?}");
            // Every metaslab has flushed past txg 5's log: destroyed (one block).
            assert_eq!(gone, 1, "{rel:?}");
        }
    }

    #[test]
    fn releases_from_2_2_skip_metaslabs_without_changes_2_1_flushes_them_in_turn() {
        // 100 metaslabs changed once, at txg 1; metaslab 0 changes every txg. Once the
        // others are flushed (one a txg, txgs 2–100), 2.1 goes on flushing them in turn,
        // one a txg, so metaslab 0 is flushed every 100 txgs; 2.2 moves the clean ones
        // along without counting them and flushes metaslab 0 every txg.
        let ms0_flushes = |rel| {
            let mut sm = SpaceMaps::new(rel, vec![100], RAM);
            run(&mut sm, 1, &(0..100).map(|m| ((0, m), 1, 0)).collect::<Vec<_>>());
            let mut n = 0;
            for txg in 2..300 {
                let (mut out, mut gone) = (Vec::new(), Vec::new());
                sm.txg(txg, &changes(&[((0, 0), 10, 10)]), false, &mut out, &mut gone);
                if txg >= 150 {
                    n += usize::from(out.iter().any(|b| b.key.0 == ms_key(TAG_SM, (0, 0))));
                }
            }
            n
        };
        assert!(ms0_flushes(Release::Zfs21) <= 2, "{}", ms0_flushes(Release::Zfs21));
        assert_eq!(ms0_flushes(Release::Zfs22), 150);
    }

    #[test]
    fn a_log_past_its_block_limit_flushes_more_than_one_metaslab_a_txg() {
        // 2000 metaslabs, every one changed by 80 entries a txg: 2000 × 160 words = 20 log
        // blocks a txg against a limit of 4 × 2000 = 8000 blocks. One flush a txg (a
        // 2000-txg rotation) would let the log grow to 40 000 blocks; the estimate (which
        // takes the largest of its projections) flushes about six a txg and holds it a
        // little under the limit.
        for rel in [Release::Zfs21, Release::Zfs22] {
            let mut sm = SpaceMaps::new(rel, vec![2000], 1 << 40);
            let all = changes(&(0..2000).map(|m| ((0, m), 40, 40)).collect::<Vec<_>>());
            let (mut max_nblocks, mut flushes) = (0, 0);
            for txg in 1..1500 {
                let (mut out, mut gone) = (Vec::new(), Vec::new());
                sm.txg(txg, &all, false, &mut out, &mut gone);
                max_nblocks = max_nblocks.max(sm.flush.as_ref().unwrap().nblocks);
                if txg >= 1000 {
                    // Metaslabs flushed: those whose own space map got blocks.
                    let mut ms: Vec<u64> = out.iter().filter(|b| b.key.0 & (0xff << 56) == TAG_SM).map(|b| b.key.0).collect();
                    ms.dedup();
                    flushes += ms.len();
                }
            }
            let st = sm.flush.as_ref().unwrap();
            assert!(st.blocklimit >= 7900 && st.blocklimit <= 8000, "{rel:?}: {}", st.blocklimit);
            assert!(max_nblocks <= 8000 + 2 * 20, "{rel:?}: {max_nblocks}");
            assert!(st.nblocks >= 6000, "{rel:?}: {}", st.nblocks);
            // At the limit exactly, 2000 / (8000 / 20) = 5 flushes a txg.
            assert!((5 * 500..=7 * 500).contains(&flushes), "{rel:?}: {flushes} in 500 txgs");
        }
    }

    #[test]
    fn unflushed_changes_past_their_memory_limit_force_flushes() {
        // 16 MiB of RAM: 16 KiB of unflushed ranges (2 048 of 8 bytes) at most. 20 metaslabs
        // of 500 new ranges a txg each exceed it at once; the flushes bring it back under.
        let mut sm = SpaceMaps::new(Release::Zfs22, vec![20], 16 << 20);
        let all: Vec<_> = (0..20).map(|m| ((0, m), 250, 250)).collect();
        for txg in 1..30 {
            let (mut out, mut gone) = (Vec::new(), Vec::new());
            sm.txg(txg, &changes(&all), false, &mut out, &mut gone);
            let st = sm.flush.as_ref().unwrap();
            // After the flushes, before this txg's own changes: at most the limit.
            assert!(st.memused <= st.mem_limit + 20 * 500 * SEG_BYTES, "txg {txg}: {}", st.memused);
        }
        let st = sm.flush.as_ref().unwrap();
        // Flushed down to the limit, then this txg's 80 000 bytes: all but two metaslabs
        // are flushed every txg.
        assert!(st.memused > 20 * 500 * SEG_BYTES && st.memused <= st.mem_limit + 20 * 500 * SEG_BYTES, "{}", st.memused);
    }
}

//! Dirty records per txg: which blocks a write dirties, how many bytes of dirty data that
//! adds, and what the txg's sync then writes.
//!
//! ZFS dirties a buffer once per txg. `dbuf_dirty` of a buffer that already has a dirty
//! record for the tx's txg returns that record ("If this buffer is already dirty, we're
//! done") without charging dirty data again; otherwise it charges the buffer's size
//! (`dmu_objset_willuse_space` → `dsl_pool_dirty_space`) and, below the object's top level,
//! dirties the parent indirect block the same way, recursively. `dnode_setdirty` dirties
//! the dnode's own buffer, a 16 KiB block of the meta-dnode, and through it the
//! meta-dnode's indirect blocks (DBUF@zfs-2.2.0 `dbuf_dirty`, DN@zfs-2.2.0
//! `dnode_setdirty`; the same in 0.6.5). At sync every dirty record is written once:
//! data blocks, then each dirty indirect and dnode block with its metadata copies
//! (`redundant_metadata=all`), then the dataset's objset and the MOS blocks above it.
//!
//! The model keys a record by what identifies a `dbuf_impl_t`: (object, level, block id).
//! A workload's record `b` is the layout's file data block `b` (`Layout::data_place`), so
//! its file's indirect blocks and its dnode block come from the layout's tree; a file the
//! run creates (an `nfs-copy` file, a database's WAL) is a new object with its own tree.
//! Indirect blocks hold 1024 pointers (128 KiB, `indblkshift` 17, the 0.7+ default) in
//! every release, as in the layout (docs/validation.md says what that simplifies).
//!
//! `take` hands the sync each record's key with its write, so `space.rs` can free the
//! copy the record had before. Not modelled: the space-map appends of the metaslabs a
//! txg allocates from and frees to, the MOS's `dsl_dir` and deadlist updates.

use std::collections::BTreeMap;
// clippy.toml fences HashSet for its random per-process seed; this one has a fixed hasher
// (`KeyHasher`), so even its order would repeat, and it is only asked for membership.
#[allow(clippy::disallowed_types)]
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use crate::layout::{Layout, DNODE_BLOCK_LSIZE, DNODES_PER_BLOCK};

/// A multiplicative hash of a (u64, u64) key (deterministic; membership only, never
/// iterated, so no order depends on it).
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7C_C1_B7_27_22_0A_95);
    }
}

#[allow(clippy::disallowed_types)]
type KeySet = HashSet<(u64, u64), BuildHasherDefault<KeyHasher>>;

// Key tags (top byte of the key's first word; `spacemap.rs` uses 9–16 for MOS blocks).
const TAG_DATA: u64 = 1 << 56;
const TAG_IND: u64 = 2 << 56;
const TAG_DNODE: u64 = 3 << 56;
const TAG_META: u64 = 4 << 56;
const TAG_OBJ_DATA: u64 = 5 << 56;
const TAG_OBJ_IND: u64 = 6 << 56;
const TAG_ZAP: u64 = 7 << 56;
/// The objsets above the dataset, rewritten by every txg that dirtied anything.
const TAG_OBJSET: u64 = 8 << 56;

/// The record key of the layout's `i`-th objset write (0: the MOS objset, 1: the MOS dnode
/// block, 2: the dataset's objset; `Layout::objset_writes`).
pub(crate) fn objset_key(i: u64) -> (u64, u64) {
    (TAG_OBJSET, i)
}

/// The layout's data block a record key names, if it names one (not an object the run made).
pub(crate) fn layout_data_block(key: (u64, u64)) -> Option<u64> {
    (key.0 == TAG_DATA).then_some(key.1)
}

/// A file's (or a new object's) indirect block: what `zfs_user_indirect_is_special` keeps
/// off the special class when 0 (`spa_preferred_class`).
pub(crate) fn is_user_indirect(key: (u64, u64)) -> bool {
    matches!(key.0 & !LOW56, TAG_IND | TAG_OBJ_IND)
}

const LOW56: u64 = (1 << 56) - 1;
const LOW48: u64 = (1 << 48) - 1;

/// What a write covers.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target {
    /// Records `first..=last` of the workloads' address space (layout data blocks, wrapped).
    Records { first: u64, last: u64 },
    /// Blocks `first..=last` of an object the run created: `foid`, `blocks` long when its
    /// size is known (0: it grows, as an append-only log does), of `block_bytes` each (a
    /// file of one block has a block of its own size).
    Object { foid: u64, first: u64, last: u64, blocks: u64, block_bytes: u64 },
    /// A metadata operation on object `foid` of the run's (a create, setattr, mkdir): its
    /// dnode, and the first `nzaps` of `zaps` — directory ZAP blocks (an id unique per
    /// directory, the block's size) it adds an entry to.
    Meta { foid: u64, zaps: [(u64, u64); 2], nzaps: u8 },
}

/// One block a write dirties for the first time in its txg.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NewRecord {
    key: (u64, u64),
    /// Bytes of dirty data it charges (`db_size`).
    charge: u64,
    /// Its write at sync: psize and copies; a data block has psize 0 (the sync writes the
    /// txg's data bytes as records).
    psize: u64,
    ndvas: u8,
}

#[derive(Default)]
struct Slot {
    txg: u64,
    keys: KeySet,
    data_bytes: u64,
    /// Data records in the order they were dirtied, with their bytes.
    data: Vec<((u64, u64), u64)>,
    /// Metadata writes of the txg: (psize, copies) → their records, in dirtying order.
    meta: BTreeMap<(u64, u8), Vec<(u64, u64)>>,
}

/// The dirty records of the (at most four) txgs not yet synced: open, quiescing, syncing.
#[derive(Default)]
pub(crate) struct DirtyRecords {
    slots: [Slot; 4],
    /// The records the last `scan` found new (kept for `mark`).
    scratch: Vec<NewRecord>,
    /// `indblkshift` of the objects the run creates (the running release's
    /// `zfs_default_ibs`); None: the layout's.
    obj_indblkshift: Option<u32>,
}

/// What a txg's sync writes (`DirtyRecords::take`).
#[derive(Debug, Default)]
pub(crate) struct SyncWrites {
    pub data_bytes: u64,
    /// The data records (key, bytes) in the order the sync packs them into records.
    pub data: Vec<((u64, u64), u64)>,
    /// (psize, copies, blocks), in a fixed order.
    pub meta: Vec<(u64, u8, u64)>,
    /// The records of each `meta` entry, in its order.
    pub meta_keys: Vec<Vec<(u64, u64)>>,
}

impl DirtyRecords {
    /// Objects the run creates get indirect blocks of 2^`obj_indblkshift` bytes.
    pub(crate) fn new(obj_indblkshift: u32) -> DirtyRecords {
        DirtyRecords { obj_indblkshift: Some(obj_indblkshift), ..Default::default() }
    }

    fn slot(&self, txg: u64) -> Option<&Slot> {
        let s = &self.slots[(txg & 3) as usize];
        (s.txg == txg).then_some(s)
    }

    /// The blocks a write of `target` dirties that are not yet dirty in `txg`, and the
    /// dirty data they charge (record size `rs` for a data block). Kept for `mark`.
    pub(crate) fn scan(&mut self, lo: &Layout, nblocks: u64, rs: u64, txg: u64, target: Target) -> u64 {
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let slot = self.slot(txg);
        let mut add = |r: NewRecord| {
            if slot.is_some_and(|s| s.keys.contains(&r.key)) || out.iter().any(|o| o.key == r.key) {
                return false;
            }
            out.push(r);
            true
        };
        match target {
            Target::Records { first, last } => {
                for b in first..=last {
                    let b = b % nblocks.max(1);
                    if !add(NewRecord { key: (TAG_DATA, b), charge: rs, psize: 0, ndvas: 1 }) {
                        continue;
                    }
                    let p = lo.data_place(b);
                    let file = (p.file << 4 | p.class as u64) & LOW48;
                    for l in 1..=p.levels {
                        let idx = p.block >> (lo.fanout_shift() * l);
                        let (psize, ndvas) = lo.indirect_write(p.class, l, idx);
                        let r = NewRecord { key: (TAG_IND | (l as u64) << 48 | file, idx), charge: lo.indirect_lsize(), psize, ndvas };
                        if !add(r) {
                            break; // its parents are dirty already
                        }
                    }
                    dirty_dnode(lo, p.unit, &mut add);
                }
            }
            Target::Object { foid, first, last, blocks, block_bytes } => {
                let obj = foid & LOW48;
                let ibs = self.obj_indblkshift.unwrap_or(lo.fanout_shift() + 7);
                let (sh, ind_lsize) = (ibs - 7, 1u64 << ibs);
                // A full indirect block of the object (block pointers compress as the layout's).
                let (ind_psize, ind_ndvas) = lo.metadata_write(ind_lsize);
                let unit = new_object_unit(lo, foid);
                for blk in first..=last {
                    if !add(NewRecord { key: (TAG_OBJ_DATA | (foid & LOW56), blk), charge: block_bytes, psize: 0, ndvas: 1 }) {
                        continue;
                    }
                    // Indirect levels: enough that the top one is a single block (a file of
                    // one block keeps its pointer in the dnode); a growing object has the
                    // levels its current size needs.
                    let n = if blocks > 0 { blocks } else { blk + 1 };
                    let mut l = 0;
                    while (n - 1) >> (sh * l) > 0 {
                        l += 1;
                        let idx = blk >> (sh * l);
                        let r = NewRecord { key: (TAG_OBJ_IND | (l as u64) << 48 | obj, idx), charge: ind_lsize, psize: ind_psize, ndvas: ind_ndvas };
                        if !add(r) {
                            break;
                        }
                    }
                    dirty_dnode(lo, unit, &mut add);
                }
            }
            Target::Meta { foid, zaps, nzaps } => {
                for &(zap, bytes) in &zaps[..nzaps as usize] {
                    let (psize, ndvas) = lo.metadata_write(bytes);
                    add(NewRecord { key: (TAG_ZAP | (zap & LOW56), 0), charge: bytes, psize, ndvas });
                }
                dirty_dnode(lo, new_object_unit(lo, foid), &mut add);
            }
        }
        let charge = out.iter().map(|r| r.charge).sum();
        self.scratch = out;
        charge
    }

    /// The write `scan` looked at was admitted to `txg`: its new records are dirty now.
    pub(crate) fn mark(&mut self, txg: u64) {
        let s = &mut self.slots[(txg & 3) as usize];
        if s.txg != txg {
            debug_assert!(s.keys.is_empty(), "txg {} still dirty when {txg} opened", s.txg);
            *s = Slot { txg, ..Slot::default() };
        }
        for r in self.scratch.drain(..) {
            s.keys.insert(r.key);
            if r.psize == 0 {
                s.data_bytes += r.charge;
                s.data.push((r.key, r.charge));
            } else {
                s.meta.entry((r.psize, r.ndvas)).or_default().push(r.key);
            }
        }
    }

    /// What the sync of `txg` writes; its records are clean from then on. A txg that
    /// dirtied anything also rewrites the objsets above the dataset.
    pub(crate) fn take(&mut self, lo: &Layout, txg: u64) -> SyncWrites {
        let s = &mut self.slots[(txg & 3) as usize];
        if s.txg != txg || s.keys.is_empty() {
            return SyncWrites::default();
        }
        let s = std::mem::take(s);
        let mut meta = s.meta;
        for (i, w) in lo.objset_writes().enumerate() {
            meta.entry(w).or_default().push((TAG_OBJSET, i as u64));
        }
        let (meta, meta_keys) = meta.into_iter().map(|((p, d), keys)| ((p, d, keys.len() as u64), keys)).unzip();
        SyncWrites { data_bytes: s.data_bytes, data: s.data, meta, meta_keys }
    }
}

/// The dnode block of object `foid` the run created: new objects' dnodes follow the
/// layout's, 32 to a block, numbered as each workload creates them (two creating
/// workloads share blocks).
fn new_object_unit(lo: &Layout, foid: u64) -> u64 {
    let (units, _) = lo.dnode_blocks();
    units + (foid & ((1 << 40) - 1)) / DNODES_PER_BLOCK
}

/// A micro-ZAP's block size holding `entries` names: 64-byte chunks, one of them the
/// header; it starts at 512 bytes and grows by 512 whenever it is full (`zap_lockdir`,
/// ZM@zfs-0.6.5), up to 128 KiB (then it becomes a fat ZAP, not modelled).
pub(crate) fn mzap_bytes(entries: u64) -> u64 {
    ((entries + 1) * 64).div_ceil(512).clamp(1, 256) * 512
}

/// `dnode_setdirty`: the dnode block `unit` and the meta-dnode indirects above it.
fn dirty_dnode(lo: &Layout, unit: u64, add: &mut impl FnMut(NewRecord) -> bool) {
    let (psize, ndvas) = lo.dnode_write();
    if !add(NewRecord { key: (TAG_DNODE, unit), charge: DNODE_BLOCK_LSIZE, psize, ndvas }) {
        return;
    }
    // The meta-dnode has the levels its largest dnode block needs (the layout's, or one
    // the run created beyond them); the top one is a single block.
    let (units, _) = lo.dnode_blocks();
    let n = units.max(unit + 1);
    let (psize, ndvas) = lo.full_indirect_write();
    let mut l = 1;
    loop {
        let idx = unit >> (lo.fanout_shift() * l);
        if !add(NewRecord { key: (TAG_META | (l as u64) << 48, idx), charge: lo.indirect_lsize(), psize, ndvas }) {
            return;
        }
        if (n - 1) >> (lo.fanout_shift() * l) == 0 {
            return;
        }
        l += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{FileClass, LayoutParams, DNODE_BLOCK_LSIZE as DN};
    const IND: u64 = 128 << 10;
    use crate::pool::{TopVdev, VdevType};

    fn layout(rs: u64, files: &[(u64, f64)]) -> Layout {
        let mut p = LayoutParams::fresh(8 << 30, rs, 12);
        p.files = files.iter().map(|&(size_bytes, weight)| FileClass { size_bytes, weight }).collect();
        let tops = vec![TopVdev { name: "d".into(), kind: VdevType::Disk, leaves: vec![0], ashift: 12, size_bytes: 64 << 30, draid: None, special: false }];
        Layout::new(&p, &tops).unwrap()
    }

    fn write(d: &mut DirtyRecords, lo: &Layout, txg: u64, t: Target) -> u64 {
        let c = d.scan(lo, lo.data_blocks(), 4096, txg, t);
        d.mark(txg);
        c
    }

    #[test]
    fn a_record_is_charged_once_per_txg_with_its_parents() {
        // 1 GiB files of 4K records: an L1 covers 1024 records (4 MiB), an L2 the file.
        let lo = layout(4096, &[(1 << 30, 1.0)]);
        let mut d = DirtyRecords::default();
        let rec = |b| Target::Records { first: b, last: b };
        // First write of txg 5: the record, its L1 and L2, its file's dnode block and the
        // meta-dnode's one indirect.
        assert_eq!(write(&mut d, &lo, 5, rec(0)), 4096 + 2 * IND + DN + IND);
        // The same record again: nothing new (dbuf_dirty finds its dirty record).
        assert_eq!(write(&mut d, &lo, 5, rec(0)), 0);
        // Its neighbour under the same L1: only the record.
        assert_eq!(write(&mut d, &lo, 5, rec(1)), 4096);
        // A record under the next L1 of the same file: the record and that L1.
        assert_eq!(write(&mut d, &lo, 5, rec(1024)), 4096 + IND);
        // A write covering two records charges each once.
        assert_eq!(write(&mut d, &lo, 5, Target::Records { first: 2, last: 3 }), 2 * 4096);
        // The next txg dirties everything afresh.
        assert_eq!(write(&mut d, &lo, 6, rec(0)), 4096 + 3 * IND + DN);
        // txg 5's sync: 5 records; L1 ×2, L2, meta L1 (two copies each) and one dnode block,
        // then the objsets.
        let w = d.take(&lo, 5);
        assert_eq!(w.data_bytes, 5 * 4096);
        let (ind, _) = lo.full_indirect_write();
        let n = |psize: u64| w.meta.iter().filter(|m| m.0 == psize).map(|m| m.2).sum::<u64>();
        assert!(n(ind) >= 3, "{w:?}");
        let blocks: u64 = w.meta.iter().map(|m| m.2).sum();
        assert_eq!(blocks, 5 + lo.objset_writes().count() as u64, "{w:?}");
        // Taken: txg 5 has nothing left; txg 6 is untouched.
        assert_eq!(d.take(&lo, 5).data_bytes, 0);
        assert_eq!(d.take(&lo, 6).data_bytes, 4096);
    }

    #[test]
    fn a_one_block_file_dirties_its_dnode_block_not_an_indirect() {
        // 4 KiB files: one block each, its pointer in the dnode; 32 dnodes to a block.
        let lo = layout(128 << 10, &[(4 << 10, 1.0)]);
        let mut d = DirtyRecords::default();
        // 2 M files in 64 Ki dnode blocks: two meta-dnode levels.
        let (units, levels) = lo.dnode_blocks();
        assert_eq!((units, levels), (65536, 2));
        let first = write(&mut d, &lo, 1, Target::Records { first: 0, last: 0 });
        assert_eq!(first, 4096 + DN + 2 * IND);
        // File 1 shares file 0's dnode block; file 32 has the next one.
        assert_eq!(write(&mut d, &lo, 1, Target::Records { first: 1, last: 1 }), 4096);
        assert_eq!(write(&mut d, &lo, 1, Target::Records { first: 32, last: 32 }), 4096 + DN);
    }

    #[test]
    fn a_create_dirties_its_dnode_block_and_its_directory_zap() {
        let lo = layout(128 << 10, &[(1 << 30, 1.0)]);
        let mut d = DirtyRecords::default();
        // A micro-ZAP: 512 bytes for up to 7 names, then 512 more per 8.
        assert_eq!([mzap_bytes(0), mzap_bytes(7), mzap_bytes(8), mzap_bytes(10)], [512, 512, 1024, 1024]);
        assert_eq!(mzap_bytes(1 << 20), 128 << 10);
        let create = |foid, entries| Target::Meta { foid, zaps: [(9, mzap_bytes(entries)), (0, 0)], nzaps: 1 };
        assert_eq!(write(&mut d, &lo, 1, create(1, 1)), 512 + DN + IND);
        // The next file of that directory: the ZAP and the dnode block are dirty already.
        assert_eq!(write(&mut d, &lo, 1, create(2, 2)), 0);
        // Its SETATTR dirties nothing new either; a file in the next dnode block does.
        assert_eq!(write(&mut d, &lo, 1, Target::Meta { foid: 2, zaps: [(0, 0); 2], nzaps: 0 }), 0);
        assert_eq!(write(&mut d, &lo, 1, Target::Meta { foid: 40, zaps: [(0, 0); 2], nzaps: 0 }), DN);
        let w = d.take(&lo, 1);
        assert_eq!(w.data_bytes, 0);
        // The ZAP block and the two dnode blocks and the meta L1, then the objsets.
        assert_eq!(w.meta.iter().map(|m| m.2).sum::<u64>(), 4 + lo.objset_writes().count() as u64, "{w:?}");
    }

    #[test]
    fn created_files_have_trees_of_their_own() {
        let lo = layout(128 << 10, &[(1 << 30, 1.0)]);
        let mut d = DirtyRecords::default();
        let one = |foid| Target::Object { foid, first: 0, last: 0, blocks: 1, block_bytes: 8192 };
        // A one-block file: its block (its own size) and a new dnode block after the
        // layout's, whose meta-dnode indirect is dirty already from the first file.
        assert_eq!(write(&mut d, &lo, 1, one(7)), 8192 + DN + IND);
        assert_eq!(write(&mut d, &lo, 1, one(8)), 8192);
        assert_eq!(write(&mut d, &lo, 1, one(40)), 8192 + DN);
        // A growing log: its second block brings an L1.
        let log = |blk| Target::Object { foid: 1 << 40, first: blk, last: blk, blocks: 0, block_bytes: 4096 };
        assert_eq!(write(&mut d, &lo, 1, log(0)), 4096);
        assert_eq!(write(&mut d, &lo, 1, log(1)), 4096 + IND);
        assert_eq!(write(&mut d, &lo, 1, log(1)), 0);
    }

    #[test]
    fn before_0_7_a_write_dirties_16k_indirects() {
        // A pool written by a release before 0.7: 1 GiB files of 4K records under 128-pointer
        // indirects — an L1 per 512 KiB, an L2 per 64 MiB, an L3 for the file.
        let mut p = LayoutParams::fresh(8 << 30, 4096, 12);
        p.files = vec![FileClass { size_bytes: 1 << 30, weight: 1.0 }];
        p.indblkshift = crate::layout::INDBLKSHIFT_OLD;
        let tops = vec![TopVdev { name: "d".into(), kind: VdevType::Disk, leaves: vec![0], ashift: 12, size_bytes: 64 << 30, draid: None, special: false }];
        let lo = Layout::new(&p, &tops).unwrap();
        const IND16: u64 = 16 << 10;
        let mut d = DirtyRecords::new(crate::layout::INDBLKSHIFT_OLD);
        let rec = |b| Target::Records { first: b, last: b };
        // The record, L1, L2, L3, the dnode block and the meta-dnode's L1: 16 KiB each
        // where 0.7+ charges 128 KiB — the dirty data a small random write costs.
        assert_eq!(write(&mut d, &lo, 5, rec(0)), 4096 + 3 * IND16 + DN + IND16);
        assert_eq!(write(&mut d, &lo, 5, rec(127)), 4096);
        assert_eq!(write(&mut d, &lo, 5, rec(128)), 4096 + IND16);
        assert_eq!(write(&mut d, &lo, 5, rec(16384)), 4096 + 2 * IND16);
        // An object the run creates takes the running release's indirects: a 0.7+
        // release on this old pool gives its growing log 128 KiB ones.
        let mut d = DirtyRecords::new(crate::layout::INDBLKSHIFT_NEW);
        let log = |blk| Target::Object { foid: 1 << 40, first: blk, last: blk, blocks: 0, block_bytes: 4096 };
        assert_eq!(write(&mut d, &lo, 1, log(0)), 4096 + DN + IND16);
        assert_eq!(write(&mut d, &lo, 1, log(1)), 4096 + IND);
        assert_eq!(write(&mut d, &lo, 1, log(1024)), 4096 + IND + IND);
    }
}

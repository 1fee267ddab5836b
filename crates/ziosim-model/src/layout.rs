//! Pool contents: where every block lives and the order a traversal meets it — generated
//! on demand from a few parameters, never stored, so memory does not grow with the pool.
//!
//! Theory of operation
//! -------------------
//! **Logical tree (what a scan walks).** One dataset of files. The traversal order is the
//! one `dsl_scan_visit` produces (DS@zfs-0.7.13 `dsl_scan_visitds` → `dsl_scan_visitbp` →
//! `dsl_scan_recurse`, spec §5.0): first the MOS (its objset block and a dnode block, three
//! DVAs each: the MOS objset gets `os_copies = spa_max_replication`, `dmu_objset_open_impl`), then the
//! dataset's objset block, then the meta-dnode (object 0) depth-first: each of its
//! indirect blocks before its first child, each 16 KiB dnode block (32 dnodes of 512 B,
//! `DNODES_PER_BLOCK`) followed by the 32 files it holds, each file in block-id order,
//! depth-first through its indirect blocks (128 KiB, `indblkshift` 17, 1024 block pointers
//! of 128 B, from 0.7; 16 KiB of 128 pointers before — `LayoutParams::indblkshift`). A file
//! of one block keeps its pointer in the dnode (no indirect); a larger file has the fewest
//! levels such that fanout^levels ≥ its block count (`dn_nblkptr` = 1, ZPL dnodes with an
//! SA bonus).
//!
//! ```text
//!  MOS objset · MOS dnodes · objset · meta L1 · dnode blk 0 · f0: L1 D0 … D1023 L1 D1024 … · f1 … · dnode blk 1 …
//! ```
//!
//! The file-size mix is a list of classes (size, share of the file data bytes). A dnode
//! block's 32 files share one class, and classes follow a fixed *period* of dnode blocks
//! (class-major: n₀ blocks of class 0, n₁ of class 1, …, with nᵢ the smallest integers that
//! give each class its byte share within 1 %). Every count and every position is therefore
//! closed-form arithmetic over (period, class, dnode block, file, block id); only the last,
//! partly filled file breaks the pattern and it is the last. The fill stops at the first
//! data block that brings Σ psize of file data to `allocated_bytes`.
//!
//! Sizes: data psize = lsize (the class size rounded to 512 B, or `recordsize`) divided by
//! `compression_ratio`, rounded up to 2^ashift, stored uncompressed unless compression saves
//! ≥ 12.5 % (`zio_compress_data`). An indirect block's psize is its used pointers × 128 B /
//! `metadata_compression_ratio` (trailing empty pointers compress to nothing), a dnode
//! block's 16 KiB / that ratio. File data has one DVA; all metadata two (`copies` + 1,
//! `redundant_metadata=all`, `dmu_write_policy`); the MOS three.
//!
//! **Physical placement (where the allocator put it).** Blocks are grouped into *lanes*:
//! blocks of one role and one psize (the data of class c, the non-last level-l indirects of
//! class c, the last ones, dnode blocks, meta-dnode indirects, each MOS block), with one
//! lane per DVA copy. Inside a lane, blocks are numbered by *rank* in traversal order. A
//! lane is cut into runs of `b = aliquot / psize` blocks; run q goes to a top-level vdev by
//! a weighted rotor (the metaslab rotor `mc_rotor`, each vdev keeping `mg_aliquot` bytes
//! of asize — aliquot × children to 2.1, × data disks from 2.2 — before moving on, biased
//! by free space so vdevs fill in proportion to their usable size: `metaslab_alloc_dva`,
//! `metaslab_group_alloc`, MS@zfs-2.2.0); copy
//! d of a block goes to the vdev d places further round the rotor (ditto blocks on
//! different vdevs, `metaslab_alloc` with `hintdva`) or, on a one-vdev pool, to another
//! lane of the same vdev. Each vdev's space is a repeating cycle of Q run-sized slots shared
//! out among lanes in proportion to their runs (smooth weighted round-robin), so a lane's
//! k-th run on a vdev sits at `(k div qₗ)·cycle + prefix[pos(k mod qₗ)]` — closed form,
//! disjoint by construction, with `TopVdev::asize` (raidz parity and padding) per block.
//! Segregating roles this way is the model's one liberty: ZFS interleaves sizes in a
//! fresh fill; here metadata sits in slots interleaved with the data runs, ≤ one cycle away.
//!
//! **Raidz column phase (where parity lands).** A block's first column is its sector mod
//! dcols (`vdev_raidz_map_alloc`) and every raidz asize is a multiple of nparity+1 sectors.
//! When a record's asize is a multiple of dcols (128 KiB on 6-wide raidz2: 32 + 16 = 48
//! sectors), a contiguous stream of records keeps one first column, so parity stays on the
//! same children (only raidz1 swaps it every MiB) — true of ZFS for as long as one
//! metaslab's stream runs homogeneous (`metaslab_df_alloc`: first fit from a cursor, no
//! alignment). What moves it in ZFS is where a stream restarts: each metaslab starts at
//! m·2^ms_shift (`vdev_metaslab_set_size`, VD@zfs-2.2.0; the stream leaves the old
//! metaslab's tail and begins at the next one's first free sector, 2^(ms_shift−ashift) mod
//! dcols columns further on), and odd-sized allocations interleaved in a stream (an
//! indirect or dnode block whose asize is not a multiple of dcols). The model keeps the
//! first: each raidz geometry's cycle is cut into stretches of 2^ms_shift bytes (the cycle's
//! end closes one), and stretch n starts on column n·step, step = 2^(ms_shift−ashift) mod
//! dcols, after a gap of < dcols sectors (`metaslab_column_step`). For the default pool
//! (6 × 1 TB raidz2: 16 GiB metaslabs, step 4) parity lands on children {0,1}, {4,5},
//! {2,3} in turn and each disk holds its share of data columns within 0.4 %. The second it
//! does not: metadata runs are whole aliquots (`run_blocks` a power of two), whose asize
//! sums to a multiple of dcols however odd one block's is, so a data stream keeps its
//! column between stretches. Where the step is 0 (dcols a power of two, e.g. 8-wide
//! raidz3, 56-sector records) a homogeneous pool therefore keeps parity on the same
//! children, as ZFS would without interleaved odd-sized blocks.
//!
//! **Fresh vs aged.** A fresh fill allocates in traversal order: rank order is offset order,
//! so a legacy scrub reads each vdev nearly sequentially. Ageing (rewrites, snapshots,
//! deletes) is one parameter f ∈ [0, 1]: each lane's ranks are cut into chunks of
//! g = 2^(32·(1−f)) blocks (f = 0: one chunk, the fresh layout; f = 1: single blocks) and the
//! chunks are shuffled by a keyed bijection (a 4-round Feistel network over the chunk index
//! with cycle-walking), so no table is stored and no two blocks collide. Birth txgs: fresh,
//! the txg a sequential writer of `txg_bytes` per txg reaches that block (increasing with
//! traversal index; a metadata block takes the txg of the last block of its subtree, so a
//! parent is never older than a child); aged, a fraction f of data blocks is reborn at a
//! uniform later txg and every metadata block is as new as the pool's last txg.
//!
//! **Cost.** `Layout::new` is O(#top vdevs + lanes + Q); a `Traversal` is a `Cursor` (a
//! bookmark: object, level, block id) plus a reference; `next()` is a handful of integer
//! operations and, when f > 0, one Feistel evaluation per block.

use crate::pool::TopVdev;
use serde::{Deserialize, Serialize};

/// Dnodes per dnode block (16 KiB / 512 B).
pub const DNODES_PER_BLOCK: u64 = 32;
pub const DNODE_BLOCK_LSIZE: u64 = 16 << 10;
/// `indblkshift` of 0.7+ (`DN_MAX_INDBLKSHIFT` 17: 128 KiB indirect blocks of 1024 block
/// pointers, OpenZFS 7104, illumos 2016, ZoL 0.7.0) …
pub const INDBLKSHIFT_NEW: u32 = 17;
/// … and of every release before (`DN_MAX_INDBLKSHIFT` 14: 16 KiB, 128 pointers; zfs-0.6.5
/// include/sys/dnode.h, the default `zfs_default_ibs` for files, zvols and the meta-dnode).
pub const INDBLKSHIFT_OLD: u32 = 14;

/// The `indblkshift` a release gives the objects it creates.
/// What `metaslab_aliquot` is multiplied by for a top-level vdev's `mg_aliquot`: its
/// children (`vdev_children`, to 2.1), or with `per_data_disk` its data disks (2.2's
/// `vdev_get_ndisks` − `vdev_get_nparity`, c55b2932; a mirror or disk counts one).
pub fn aliquot_multiplier(t: &TopVdev, per_data_disk: bool) -> u64 {
    if !per_data_disk {
        t.leaves.len().max(1) as u64
    } else if let Some(d) = &t.draid {
        d.ndata as u64
    } else if t.kind.is_raidz() {
        (t.leaves.len() as u64).saturating_sub(t.kind.nparity() as u64).max(1)
    } else {
        1
    }
}

pub fn indblkshift(release: crate::release::Release) -> u32 {
    if release < crate::release::Release::Zfs07 {
        INDBLKSHIFT_OLD
    } else {
        INDBLKSHIFT_NEW
    }
}
pub const BLKPTR_BYTES: u64 = 128;
const BLKPTR_SHIFT: u32 = 7;
/// objset_phys_t with user/group used accounting.
pub const OBJSET_LSIZE: u64 = 4 << 10;
/// Enough for a 1P file of 512 B blocks with 4 KiB indirects (32^10 = 2^50).
const MAX_LEVELS: usize = 10;
/// Slots in one cycle of a vdev's space, at most.
const CYCLE_SLOTS_MAX: u64 = 4096;
/// Dnode blocks in one class period, at most.
const PERIOD_UNITS_MAX: u64 = 1 << 16;

/// One class of files: every file of the class has `size_bytes`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileClass {
    pub size_bytes: u64,
    /// Share of the file data bytes (normalised over the classes; need not sum to 1).
    pub weight: f64,
}

fn default_ratio() -> f64 {
    1.0
}
fn default_md_ratio() -> f64 {
    2.0
}
fn default_indblkshift() -> u32 {
    INDBLKSHIFT_NEW
}

fn default_true() -> bool {
    true
}

fn default_aliquot() -> u64 {
    1 << 20
}
fn default_txg_bytes() -> u64 {
    1 << 30
}

/// What the pool holds and how it was filled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutParams {
    /// Σ psize of file data blocks (compressed, before parity and ditto copies).
    pub allocated_bytes: u64,
    /// Dataset `recordsize`: a power of two in [512 B, 16 MiB].
    pub recordsize_bytes: u64,
    /// Sector shift psize is rounded to (9..=16).
    pub ashift: u32,
    /// File-size mix; at least one class with positive weight.
    pub files: Vec<FileClass>,
    /// 0 = fresh sequential fill … 1 = every block placed independently (aged pool).
    #[serde(default)]
    pub fragmentation: f64,
    /// lsize / psize of file data, ≥ 1.
    #[serde(default = "default_ratio")]
    pub compression_ratio: f64,
    /// lsize / psize of indirect and dnode blocks (lz4 on block pointers), ≥ 1.
    #[serde(default = "default_md_ratio")]
    pub metadata_compression_ratio: f64,
    /// `metaslab_aliquot`: 512 KiB in illumos, FreeBSD and OpenZFS to 2.1, 1 MiB from 2.2
    /// (MS@zfs-2.1.0:54, MS@zfs-2.2.0:54) — pass the release's value. A layout run is this
    /// many bytes of one lane's blocks.
    #[serde(default = "default_aliquot")]
    pub metaslab_aliquot_bytes: u64,
    /// How a vdev's `mg_aliquot` (asize it takes before the rotor moves on) multiplies
    /// `metaslab_aliquot`: false, by its children (`vdev_children`, to 2.1); true, by its
    /// distinct data disks (`vdev_get_ndisks − vdev_get_nparity`: 1 for a mirror, 2.2+,
    /// "Improve mg_aliquot math", c55b2932).
    #[serde(default = "default_true")]
    pub aliquot_per_data_disk: bool,
    /// File data bytes written per txg by the filling writer (sets birth txgs).
    #[serde(default = "default_txg_bytes")]
    pub txg_bytes: u64,
    /// log2 of the indirect block size of the pool's files and meta-dnode (`indblkshift`:
    /// 17 from 0.7, 14 before — pass the value of the release that wrote the files).
    #[serde(default = "default_indblkshift")]
    pub indblkshift: u32,
    #[serde(default)]
    pub seed: u64,
    /// The dataset's `special_small_blocks`: data blocks of at most this psize go to the
    /// special vdevs (`TopVdev::special`) while the class is under its limit; 0: none.
    #[serde(default)]
    pub special_small_blocks_bytes: u64,
    /// `zfs_special_class_metadata_reserve_pct`: small data blocks stop going to the
    /// special class once it is more than 100 − this % full.
    #[serde(default = "default_reserve_pct")]
    pub special_reserve_pct: u32,
    /// `zfs_user_indirect_is_special`: files' indirect blocks go to the special class.
    #[serde(default = "default_true")]
    pub user_indirect_is_special: bool,
}

fn default_reserve_pct() -> u32 {
    25
}

impl LayoutParams {
    /// A fresh pool of `recordsize` files of 1 GiB — the simplest useful contents.
    pub fn fresh(allocated_bytes: u64, recordsize_bytes: u64, ashift: u32) -> LayoutParams {
        LayoutParams {
            allocated_bytes,
            recordsize_bytes,
            ashift,
            files: vec![FileClass { size_bytes: 1 << 30, weight: 1.0 }],
            fragmentation: 0.0,
            compression_ratio: default_ratio(),
            metadata_compression_ratio: default_md_ratio(),
            metaslab_aliquot_bytes: default_aliquot(),
            aliquot_per_data_disk: true,
            txg_bytes: default_txg_bytes(),
            indblkshift: INDBLKSHIFT_NEW,
            seed: 0,
            special_small_blocks_bytes: 0,
            special_reserve_pct: default_reserve_pct(),
            user_indirect_is_special: true,
        }
    }

    /// One-line error naming the field, the value and what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        let bad = |field: &str, v: String, allowed: &str| Err(format!("layout.{field}: {v} — allowed: {allowed}"));
        if self.allocated_bytes == 0 {
            return bad("allocated_bytes", "0".into(), "> 0");
        }
        let rs = self.recordsize_bytes;
        if !rs.is_power_of_two() || !(512..=16 << 20).contains(&rs) {
            return bad("recordsize_bytes", rs.to_string(), "a power of two in 512..=16777216");
        }
        if !(9..=16).contains(&self.ashift) {
            return bad("ashift", self.ashift.to_string(), "9..=16");
        }
        for (i, c) in self.files.iter().enumerate() {
            if c.size_bytes == 0 || c.size_bytes > 1 << 50 {
                return bad(&format!("files[{i}].size_bytes"), c.size_bytes.to_string(), "1..=2^50");
            }
            if !c.weight.is_finite() || c.weight < 0.0 {
                return bad(&format!("files[{i}].weight"), c.weight.to_string(), "a finite number ≥ 0");
            }
        }
        if self.files.is_empty() || !self.files.iter().any(|c| c.weight > 0.0) {
            return bad("files", format!("{} classes", self.files.len()), "at least one class with weight > 0");
        }
        if !(0.0..=1.0).contains(&self.fragmentation) {
            return bad("fragmentation", self.fragmentation.to_string(), "0..=1");
        }
        for (name, r) in [("compression_ratio", self.compression_ratio), ("metadata_compression_ratio", self.metadata_compression_ratio)] {
            if !r.is_finite() || r < 1.0 {
                return bad(name, r.to_string(), "a finite number ≥ 1");
            }
        }
        if self.metaslab_aliquot_bytes < 4096 || self.metaslab_aliquot_bytes > 1 << 30 {
            return bad("metaslab_aliquot_bytes", self.metaslab_aliquot_bytes.to_string(), "4096..=2^30");
        }
        if self.txg_bytes == 0 {
            return bad("txg_bytes", "0".into(), "> 0");
        }
        // DN_MIN_INDBLKSHIFT (12 from 0.7) ..= DN_MAX_INDBLKSHIFT (17).
        if !(12..=17).contains(&self.indblkshift) {
            return bad("indblkshift", self.indblkshift.to_string(), "12..=17 (4 KiB … 128 KiB indirect blocks)");
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockKind {
    /// An objset_phys (MOS or dataset root).
    Objset,
    /// A 16 KiB block of 32 dnodes (level 0 of a meta-dnode).
    Dnode,
    /// An indirect block (1024 block pointers from 0.7, 128 before).
    Indirect,
    /// File data (level 0 of a file).
    Data,
}

impl BlockKind {
    pub fn is_metadata(self) -> bool {
        self != BlockKind::Data
    }
}

/// One copy of a block: top-level vdev, offset in its asize space, allocated size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dva {
    pub vdev: u16,
    pub offset: u64,
    pub asize: u64,
}

/// A block as a traversal meets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// Position in traversal order (0-based).
    pub index: u64,
    /// Indirection level inside its object (0 = data or dnode block).
    pub level: u8,
    pub kind: BlockKind,
    pub psize: u64,
    pub lsize: u64,
    pub birth_txg: u64,
    /// Valid entries of `dvas` (1, 2 or 3).
    pub ndvas: u8,
    pub dvas: [Dva; 3],
}

impl Block {
    pub fn dvas(&self) -> &[Dva] {
        &self.dvas[..self.ndvas as usize]
    }
    /// Σ asize over the DVAs (what a scan counts as examined).
    pub fn asize_total(&self) -> u64 {
        self.dvas().iter().map(|d| d.asize).sum()
    }
}

/// A file data block's place in the object tree (`Layout::data_place`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataPlace {
    /// File-size class of its file.
    pub class: u32,
    /// Its file, numbered within the class.
    pub file: u64,
    /// Block id inside the file.
    pub block: u64,
    /// The dnode block (level-0 block of the meta-dnode) holding its file's dnode.
    pub unit: u64,
    /// Indirect levels of its file (0: the file's one block pointer is in the dnode).
    pub levels: u32,
}

/// Counts by kind over the whole layout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LayoutSummary {
    pub blocks: u64,
    pub data_blocks: u64,
    pub indirect_blocks: u64,
    pub dnode_blocks: u64,
    pub objset_blocks: u64,
    pub files: u64,
    /// Σ psize of file data blocks.
    pub data_psize_bytes: u64,
    /// Σ psize of metadata blocks (one copy).
    pub metadata_psize_bytes: u64,
    /// Σ asize over every DVA of every block (`zpool status` "to examine").
    pub examined_bytes: u64,
}

/// A class of files with its derived shape.
#[derive(Clone, Debug)]
struct Class {
    /// Data blocks per file.
    k: u64,
    data_psize: u64,
    /// Indirect levels (0 when the one block pointer lives in the dnode).
    levels: u32,
    /// Level-l blocks per file (`n[0]` = k).
    n: [u64; MAX_LEVELS + 1],
    /// Blocks per (full) file: data + indirect.
    file_blocks: u64,
    /// Dnode blocks of this class per period, and where they start in the period.
    units: u64,
    start: u64,
    data_lane: u32,
    /// Lane of the non-last level-l indirects: `ind_lane + 2(l−1)`; the last: `+ 1`.
    ind_lane: u32,
    /// log2 of the block pointers per indirect block.
    sh: u32,
}

impl Class {
    /// Position of data block `j` inside its file's traversal (indirects before it counted).
    #[inline]
    fn pos(&self, j: u64) -> u64 {
        let mut p = j;
        for l in 1..=self.levels {
            p += (j >> (self.sh * l)) + 1;
        }
        p
    }
}

/// Blocks of one role and psize, numbered by rank; cut into runs of `run_blocks`.
#[derive(Clone, Debug)]
struct Lane {
    psize: u64,
    lsize: u64,
    ndvas: u8,
    count: u64,
    run_blocks: u64,
    runs: u64,
    /// First slot-lane (lane, copy 0); copy d is `slot + d`.
    slot: u32,
    /// Fragmentation: chunks of `chunk` ranks, the first `nchunks` of them shuffled.
    chunk: u64,
    nchunks: u64,
    key: u64,
    /// Allocation class: 0 normal, 1 special (`Layout::groups`).
    group: u8,
    /// Ranks from `split` on are lane `over`'s, from its rank 0: the blocks written once
    /// the special class had no more room for this lane (u64::MAX: none).
    split: u64,
    over: u32,
}

/// One allocation class's placement: its top-level vdevs, its rotor and its slot cycle.
/// The normal class is group 0; a pool with special vdevs has the special class as group 1.
#[derive(Clone, Debug, Default)]
struct Group {
    /// Its top-level vdevs (global indices), in vdev order; "local" indices count in here.
    members: Vec<u16>,
    /// Rotor: cycle entry → (local top, ordinal among that top's runs in the cycle).
    rotor: Vec<(u16, u32)>,
    rotor_w: Vec<u32>,
    rotor_start: Vec<u32>,
    /// Per slot-lane (every lane's; 0 for lanes of other groups): slots per cycle and
    /// where its positions start in `pos`.
    q: Vec<u32>,
    pos_start: Vec<u32>,
    pos: Vec<u32>,
    /// The cycle: slot-lane at each position and its ordinal among that lane's positions.
    pattern: Vec<u32>,
    ord: Vec<u32>,
}

impl Lane {
    fn new(psize: u64, lsize: u64, ndvas: u8, count: u64) -> Lane {
        Lane { psize, lsize, ndvas, count, run_blocks: 0, runs: 0, slot: 0, chunk: 0, nchunks: 0, key: 0, group: 0, split: u64::MAX, over: 0 }
    }
}

/// Per distinct vdev geometry: the slot cycle laid out in that vdev's asize space.
#[derive(Clone, Debug)]
struct Geom {
    /// asize of one block of each lane.
    lane_asize: Vec<u64>,
    /// `pre[i]`: offset of cycle slot i; `pre[Q]` = bytes per cycle (its slots, then on
    /// raidz a gap of < dcols sectors that sets the next cycle's first column).
    pre: Vec<u64>,
    /// `pre` in `Layout::pos` order (`pos_pre[i] = pre[pos[i]]`): a slot-lane's `k`-th slot
    /// of a cycle is one lookup away (`slot_offset`).
    pos_pre: Vec<u64>,
}

#[derive(Clone, Debug)]
struct PrefixBlock {
    kind: BlockKind,
    lane: u32,
}

/// The generated contents of a pool.
#[derive(Clone, Debug)]
pub struct Layout {
    /// log2 of the block pointers per indirect block (`indblkshift` − 7).
    sh: u32,
    frag: f64,
    /// lsize / psize of metadata blocks, and the sector shift psize rounds to.
    md_ratio: f64,
    ashift: u32,
    seed: u64,
    classes: Vec<Class>,
    period_units: u64,
    /// Blocks (excluding meta indirects) and data blocks per period.
    period_blocks: u64,
    period_data: u64,
    /// Complete dnode blocks; the one at `u_full` (if `n_units` > `u_full`) is partial.
    u_full: u64,
    last_files_full: u64,
    last_k: u64,
    n_units: u64,
    meta_levels: u32,
    meta_lane: u32,
    dnode_lane: u32,
    prefix: Vec<PrefixBlock>,
    lanes: Vec<Lane>,
    /// The allocation classes' placements (normal, then special if the pool has it).
    groups: Vec<Group>,
    /// Per top-level vdev: its group and its local index there.
    top_group: Vec<(u8, u16)>,
    /// Slot-lane → (lane, copy).
    slot_lane: Vec<(u32, u8)>,
    /// End of the space each vdev uses.
    used_end: Vec<u64>,
    geoms: Vec<Geom>,
    top_geom: Vec<u16>,
    n_blocks: u64,
    txgs: u64,
    alloc: Vec<u64>,
    summary: LayoutSummary,
}

/// psize of a block of `lsize` whose content compresses by `ratio`.
fn compressed(lsize: u64, ratio: f64, ashift: u32) -> u64 {
    let unit = 1u64 << ashift;
    let want = ((lsize as f64 / ratio).ceil() as u64).max(1);
    let p = want.div_ceil(unit) * unit;
    // zio_compress_data keeps the compressed copy only if it saves ≥ 1/8.
    if p > lsize - (lsize >> 3) {
        lsize.div_ceil(unit) * unit
    } else {
        p
    }
}

fn indirect_psize(children: u64, ind_lsize: u64, ratio: f64, ashift: u32) -> u64 {
    let unit = 1u64 << ashift;
    let want = ((children * BLKPTR_BYTES) as f64 / ratio).ceil() as u64;
    let p = want.max(1).div_ceil(unit) * unit;
    if p > ind_lsize - (ind_lsize >> 3) {
        ind_lsize
    } else {
        p
    }
}

/// ⌊a·b / n⌋ for a quotient that fits 64 bits. The product fits 64 bits too in every
/// real use (block index × txgs, bytes × writes), so the 128-bit division — a library call
/// — is only the fallback; both give the same quotient.
#[inline]
pub(crate) fn mul_div(a: u64, b: u64, n: u64) -> u64 {
    match a.checked_mul(b) {
        Some(p) => p / n,
        None => (a as u128 * b as u128 / n as u128) as u64,
    }
}

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Keyed bijection on [0, n): a 4-round Feistel network over the bit width of n (halves
/// of ⌈w/2⌉ and ⌊w/2⌋ bits, swapping each round), cycle-walked back into range — fewer
/// than 2 tries expected. The round function is one multiply (a Fibonacci hash).
#[inline]
fn feistel(x: u64, n: u64, key: u64) -> u64 {
    if n <= 1 {
        return x;
    }
    let w = (64 - (n - 1).leading_zeros()).max(2);
    let (wa, wb) = (w - w / 2, w / 2);
    let mut y = x;
    loop {
        // l: wa bits, r: wb bits; after each round the widths swap.
        let (mut l, mut r, mut wl, mut wr) = (y >> wb, y & ((1 << wb) - 1), wa, wb);
        for round in 0..4u64 {
            let f = (r ^ key.rotate_left(16 * round as u32)).wrapping_add(round).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let f = (f >> (64 - wl)) & ((1 << wl) - 1);
            (l, r, wl, wr) = (r, l ^ f, wr, wl);
        }
        debug_assert_eq!((wl, wr), (wa, wb));
        y = (l << wb) | r;
        if y < n {
            return y;
        }
    }
}

/// Identifies distinct vdev geometries (asize depends only on the first three; the slot
/// cycle's column phase also on the metaslab step).
fn geom_key(t: &TopVdev) -> (u32, usize, u32, u64) {
    // dRAID: the group's data width sets the asize too.
    let draid = t.draid.as_ref().map_or(0, |d| 1000 * (d.ndata as u32 + 1));
    (t.kind.nparity() + if t.kind.is_raidz() { 0 } else { 100 } + draid, t.leaves.len(), t.ashift, metaslab_column_step(t))
}

/// `vdev_metaslab_set_size` (module/zfs/vdev.c, zfs-0.8.0 … 2.3): about 200 metaslabs of
/// 2^29 … 2^34 bytes, at least 16 and at most 2^17 of them, never below 2^24
/// (`SPA_MAXBLOCKSHIFT`). Releases before 0.8 used highbit(asize / 200): a different
/// power of two, which moves a raidz metaslab's first column by a different step of the
/// same subgroup of columns (see `metaslab_column_step`).
pub fn metaslab_shift(asize_bytes: u64) -> u32 {
    let highbit = |x: u64| 64 - x.leading_zeros();
    let count = asize_bytes >> 29;
    let shift = if count < 16 {
        highbit(asize_bytes / 16)
    } else if count > 200 {
        highbit(asize_bytes / 200)
    } else {
        29
    };
    if shift < 24 {
        24
    } else if shift > 34 {
        if (asize_bytes >> 34) > 1 << 17 {
            highbit(asize_bytes / (1 << 17))
        } else {
            34
        }
    } else {
        shift
    }
}

/// Columns by which the first column of consecutive metaslabs advances on a raidz vdev:
/// metaslab m starts at sector m·2^(ms_shift − ashift) of the asize space and a block's
/// first column is its sector mod dcols (`vdev_raidz_map_alloc`). 0 for a mirror or disk.
/// dRAID has no column phase: its stripes are whole and aligned (`vdev_draid_metaslab_init`).
fn metaslab_column_step(t: &TopVdev) -> u64 {
    if !t.has_raidz_columns() {
        return 0;
    }
    let sh = metaslab_shift(t.size_bytes).saturating_sub(t.ashift);
    ((1u128 << sh) % t.leaves.len() as u128) as u64
}

impl Layout {
    pub fn new(params: &LayoutParams, tops: &[TopVdev]) -> Result<Layout, String> {
        params.validate()?;
        if tops.is_empty() || tops.len() > u16::MAX as usize {
            return Err(format!("pool.vdevs: {} top-level vdevs — allowed: 1..=65535", tops.len()));
        }
        let p = params;
        let sh = p.indblkshift - BLKPTR_SHIFT;
        let fanout = 1u64 << sh;
        let ind_lsize = 1u64 << p.indblkshift;
        let mut lanes: Vec<Lane> = Vec::new();
        let mut lane = |psize: u64, lsize: u64, ndvas: u8| {
            lanes.push(Lane::new(psize, lsize, ndvas, 0));
            (lanes.len() - 1) as u32
        };
        // MOS objset, MOS dnode block (3 copies), dataset objset (2 copies).
        let os_psize = compressed(OBJSET_LSIZE, p.metadata_compression_ratio, p.ashift);
        let dn_psize = compressed(DNODE_BLOCK_LSIZE, p.metadata_compression_ratio, p.ashift);
        let prefix = vec![
            PrefixBlock { kind: BlockKind::Objset, lane: lane(os_psize, OBJSET_LSIZE, 3) },
            PrefixBlock { kind: BlockKind::Dnode, lane: lane(dn_psize, DNODE_BLOCK_LSIZE, 3) },
            PrefixBlock { kind: BlockKind::Objset, lane: lane(os_psize, OBJSET_LSIZE, 2) },
        ];
        let dnode_lane = lane(dn_psize, DNODE_BLOCK_LSIZE, 2);

        // Classes and their period.
        let rs = p.recordsize_bytes;
        let total_w: f64 = p.files.iter().map(|c| c.weight.max(0.0)).sum();
        let mut classes = Vec::new();
        let mut shares = Vec::new();
        for c in p.files.iter().filter(|c| c.weight > 0.0) {
            let (k, lsize) = if c.size_bytes <= rs { (1, c.size_bytes.div_ceil(512) * 512) } else { (c.size_bytes.div_ceil(rs), rs) };
            let data_psize = compressed(lsize, p.compression_ratio, p.ashift);
            let mut n = [0u64; MAX_LEVELS + 1];
            n[0] = k;
            let mut levels = 0u32;
            while n[levels as usize] > 1 || (levels == 0 && k > 1) {
                levels += 1;
                n[levels as usize] = n[levels as usize - 1].div_ceil(fanout);
                if levels as usize == MAX_LEVELS {
                    break;
                }
            }
            let file_blocks = n.iter().sum();
            let data_lane = lane(data_psize, lsize, 1);
            let mut ind_lane = 0;
            for l in 1..=levels as usize {
                let last_children = n[l - 1] - fanout * (n[l] - 1);
                let a = lane(indirect_psize(fanout, ind_lsize, p.metadata_compression_ratio, p.ashift), ind_lsize, 2);
                lane(indirect_psize(last_children, ind_lsize, p.metadata_compression_ratio, p.ashift), ind_lsize, 2);
                if l == 1 {
                    ind_lane = a;
                }
            }
            classes.push(Class { k, data_psize, levels, n, file_blocks, units: 0, start: 0, data_lane, ind_lane, sh });
            shares.push(c.weight / total_w);
        }
        // Dnode blocks per class per period: the smallest multiple giving every class its
        // byte share within 1 % (or the best under PERIOD_UNITS_MAX).
        let unit_bytes: Vec<f64> = classes.iter().map(|c| (DNODES_PER_BLOCK * c.k * c.data_psize) as f64).collect();
        let x: Vec<f64> = shares.iter().zip(&unit_bytes).map(|(w, b)| w / b).collect();
        let xmin = x.iter().cloned().fold(f64::INFINITY, f64::min);
        let mut best: Option<(f64, Vec<u64>)> = None;
        for m in 1..=100u64 {
            let n: Vec<u64> = x.iter().map(|xi| ((xi / xmin * m as f64).round() as u64).max(1)).collect();
            if n.iter().sum::<u64>() > PERIOD_UNITS_MAX && best.is_some() {
                break;
            }
            let bytes: f64 = n.iter().zip(&unit_bytes).map(|(ni, b)| *ni as f64 * b).sum();
            let err = n.iter().zip(&unit_bytes).zip(&shares).map(|((ni, b), w)| ((*ni as f64 * b / bytes) - w).abs() / w).fold(0.0, f64::max);
            if !matches!(&best, Some((e, _)) if err >= *e) {
                best = Some((err, n));
            }
            if err <= 0.01 {
                break;
            }
        }
        let n_per = best.expect("at least one class").1;
        let mut start = 0;
        for (c, n) in classes.iter_mut().zip(&n_per) {
            c.units = *n;
            c.start = start;
            start += n;
        }
        let period_units = start;
        let period_blocks: u64 = classes.iter().map(|c| c.units * (1 + DNODES_PER_BLOCK * c.file_blocks)).sum();
        let period_data: u64 = classes.iter().map(|c| c.units * DNODES_PER_BLOCK * c.k).sum();
        let period_bytes: u64 = classes.iter().map(|c| c.units * DNODES_PER_BLOCK * c.k * c.data_psize).sum();

        // Fill to allocated_bytes: whole periods, then class by class, then the last file.
        let mut rem = p.allocated_bytes % period_bytes;
        let mut u_full = p.allocated_bytes / period_bytes * period_units;
        let (mut last_files_full, mut last_k) = (0, 0);
        for c in &classes {
            let ub = DNODES_PER_BLOCK * c.k * c.data_psize;
            let take = (rem / ub).min(c.units);
            u_full += take;
            rem -= take * ub;
            if take < c.units {
                let fb = c.k * c.data_psize;
                last_files_full = rem / fb;
                last_k = (rem - last_files_full * fb).div_ceil(c.data_psize);
                break;
            }
        }
        let partial = last_files_full > 0 || last_k > 0;
        let n_units = u_full + u64::from(partial);
        let mut meta_levels = 1u32;
        while fanout.pow(meta_levels) < n_units {
            meta_levels += 1;
        }
        let meta_lane = lanes.len() as u32;
        {
            let mut below = n_units;
            for _ in 1..=meta_levels {
                let count = below.div_ceil(fanout);
                let last_children = below - fanout * (count - 1);
                let full = indirect_psize(fanout, ind_lsize, p.metadata_compression_ratio, p.ashift);
                let last = indirect_psize(last_children, ind_lsize, p.metadata_compression_ratio, p.ashift);
                lanes.push(Lane::new(full, ind_lsize, 2, count - 1));
                lanes.push(Lane::new(last, ind_lsize, 2, 1));
                below = count;
            }
        }

        let mut lo = Layout {
            sh,
            frag: p.fragmentation,
            md_ratio: p.metadata_compression_ratio,
            ashift: p.ashift,
            seed: p.seed,
            classes,
            period_units,
            period_blocks,
            period_data,
            u_full,
            last_files_full,
            last_k,
            n_units,
            meta_levels,
            meta_lane,
            dnode_lane,
            prefix,
            lanes,
            groups: vec![],
            top_group: vec![],
            slot_lane: vec![],
            used_end: vec![],
            geoms: vec![],
            top_geom: vec![],
            n_blocks: 0,
            txgs: 1,
            alloc: vec![],
            summary: LayoutSummary::default(),
        };
        lo.count_lanes();
        lo.n_blocks = lo.index_start(n_units);
        let data_bytes = lo.summary.data_psize_bytes;
        lo.txgs = data_bytes.div_ceil(p.txg_bytes).max(1);
        // Plan; if the special vdevs overflow only by the slot cycles' rounding, plan again
        // with their capacity scaled down (a few rounds at most: each removes the overshoot).
        let base = lo.lanes.clone();
        let mut room = 1.0;
        for _ in 0..8 {
            lo.lanes = base.clone();
            lo.assign_special(p, tops, room);
            match lo.plan_space(p, tops) {
                Ok(()) => return Ok(lo),
                Err((_, Some(ratio))) => room *= ratio * 0.999,
                Err((e, None)) => return Err(e),
            }
        }
        Err(format!("pool.special: {} bytes of special vdevs — too small for the layout's metadata plan", tops.iter().filter(|t| t.special).map(|t| t.size_bytes).sum::<u64>()))
    }

    /// Fill in the block count of every lane and the summary (closed form).
    fn count_lanes(&mut self) {
        for pb in &self.prefix {
            self.lanes[pb.lane as usize].count = 1;
        }
        self.lanes[self.dnode_lane as usize].count = self.n_units;
        let partial_class = (self.n_units > self.u_full).then(|| self.class_of(self.u_full));
        let mut s = LayoutSummary { objset_blocks: 2, dnode_blocks: 1 + self.n_units, ..Default::default() };
        for ci in 0..self.classes.len() {
            let c = &self.classes[ci];
            let mut files = self.units_before(ci, self.u_full) * DNODES_PER_BLOCK;
            let mut tail_k = 0;
            if partial_class == Some(ci) {
                files += self.last_files_full;
                tail_k = self.last_k;
            }
            let data = files * c.k + tail_k;
            self.lanes[c.data_lane as usize].count = data;
            s.data_blocks += data;
            s.data_psize_bytes += data * c.data_psize;
            s.files += files + u64::from(tail_k > 0);
            let mut tail_n = tail_k;
            for l in 1..=c.levels as usize {
                tail_n = tail_n.div_ceil(1 << self.sh);
                let nonlast = files * (c.n[l] - 1) + tail_n.saturating_sub(1);
                let last = files + u64::from(tail_k > 0);
                let li = c.ind_lane as usize + 2 * (l - 1);
                self.lanes[li].count = nonlast;
                self.lanes[li + 1].count = last;
                s.indirect_blocks += nonlast + last;
            }
        }
        for l in 0..2 * self.meta_levels as usize {
            s.indirect_blocks += self.lanes[self.meta_lane as usize + l].count;
        }
        for ci in 0..self.classes.len() {
            let c = &self.classes[ci];
            for l in 1..=c.levels as usize {
                let li = c.ind_lane as usize + 2 * (l - 1);
                s.metadata_psize_bytes += self.lanes[li].count * self.lanes[li].psize + self.lanes[li + 1].count * self.lanes[li + 1].psize;
            }
        }
        for l in 0..2 * self.meta_levels as usize {
            let ln = &self.lanes[self.meta_lane as usize + l];
            s.metadata_psize_bytes += ln.count * ln.psize;
        }
        for pb in &self.prefix {
            s.metadata_psize_bytes += self.lanes[pb.lane as usize].psize;
        }
        s.metadata_psize_bytes += self.n_units * self.lanes[self.dnode_lane as usize].psize;
        s.blocks = s.data_blocks + s.indirect_blocks + s.dnode_blocks + s.objset_blocks;
        self.summary = s;
    }

    /// Which lanes (or first parts of lanes) the special class holds, if the pool has
    /// special vdevs (`spa_preferred_class`, spa_misc.c@zfs-0.8.0 and @zfs-2.2.0): every
    /// metadata block — objsets, dnode blocks, the meta-dnode's indirects, and files'
    /// indirects unless `zfs_user_indirect_is_special` is 0 — then file data blocks of
    /// psize ≤ `special_small_blocks` while the class is under 100 − `reserve` % full.
    /// A lane that does not fit whole is split: its first ranks (the first blocks written,
    /// in a fresh fill) stay special and the rest go to a new normal lane, as ZFS falls
    /// back to the normal class once the special one is full (`zio_dva_allocate` on
    /// ENOSPC) or over the small-block limit. `room` scales the class's capacity (1, or
    /// less when the slot cycle's rounding made the first plan overflow).
    fn assign_special(&mut self, p: &LayoutParams, tops: &[TopVdev], room: f64) {
        let Some(first) = tops.iter().find(|t| t.special) else { return };
        let cap: f64 = tops.iter().filter(|t| t.special).map(|t| t.size_bytes as f64).sum::<f64>() * room;
        let mut meta: Vec<u32> = self.prefix.iter().map(|pb| pb.lane).collect();
        meta.push(self.dnode_lane);
        meta.extend(self.meta_lane..self.meta_lane + 2 * self.meta_levels);
        let mut small = Vec::new();
        for c in &self.classes {
            if p.user_indirect_is_special {
                meta.extend(c.ind_lane..c.ind_lane + 2 * c.levels);
            }
            if self.lanes[c.data_lane as usize].psize <= p.special_small_blocks_bytes {
                small.push(c.data_lane);
            }
        }
        let small_cap = cap * (100 - p.special_reserve_pct.min(100)) as f64 / 100.0;
        let mut used = 0.0;
        for (lanes, limit) in [(meta, cap), (small, small_cap)] {
            for li in lanes {
                let l = &self.lanes[li as usize];
                if l.count == 0 {
                    continue;
                }
                let per = (first.asize(l.psize) * l.ndvas as u64) as f64;
                let fit = ((limit - used).max(0.0) / per).floor() as u64;
                let take = fit.min(l.count);
                used += take as f64 * per;
                if take == 0 {
                    continue;
                }
                let li = li as usize;
                self.lanes[li].group = 1;
                if take < self.lanes[li].count {
                    let mut over = self.lanes[li].clone();
                    over.group = 0;
                    over.count -= take;
                    self.lanes[li].count = take;
                    self.lanes[li].split = take;
                    self.lanes[li].over = self.lanes.len() as u32;
                    self.lanes.push(over);
                }
            }
        }
    }

    /// Runs, rotors, slot cycles, fragmentation chunks, per-vdev bytes; checks the fit.
    /// Special vdevs short of room only from the slot cycles' rounding make the caller
    /// plan again with less (`Err(Some(ratio))`).
    fn plan_space(&mut self, p: &LayoutParams, tops: &[TopVdev]) -> Result<(), (String, Option<f64>)> {
        let ntops = tops.len();
        let mut groups = vec![Group::default()];
        self.top_group = Vec::with_capacity(ntops);
        for (t, top) in tops.iter().enumerate() {
            let g = usize::from(top.special);
            if groups.len() <= g {
                groups.resize(g + 1, Group::default());
            }
            self.top_group.push((g as u8, groups[g].members.len() as u16));
            groups[g].members.push(t as u16);
        }
        if groups[0].members.is_empty() {
            return Err((format!("pool.vdevs: {ntops} top-level vdevs, all special — allowed: at least one data vdev"), None));
        }
        // Rotor: a vdev keeps `mg_aliquot` bytes of asize per turn (`metaslab_alloc_dva`
        // moves the rotor once `mca_aliquot` reaches it), i.e. mg_aliquot × its data
        // fraction of psize: that many runs (of `metaslab_aliquot` psize bytes) for the
        // smallest vdev — exactly its data disks to 2.1; 2.2's (n − p)²/n on raidz, rounded —
        // and in proportion to usable size for larger ones, so vdevs fill evenly (the
        // free-space bias `mg_bias`). The rotor cycle stays ≤ 4096. Each class has its own
        // (`mc_rotor`).
        for g in &mut groups {
            let usable: Vec<f64> = g.members.iter().map(|&t| tops[t as usize].size_bytes as f64 * tops[t as usize].data_fraction()).collect();
            let (imin, umin) = usable.iter().cloned().enumerate().fold((0, f64::INFINITY), |a, (i, u)| if u < a.1 { (i, u) } else { a });
            let umin = umin.max(1.0);
            let t0 = &tops[g.members[imin] as usize];
            let mult = aliquot_multiplier(t0, p.aliquot_per_data_disk) as f64;
            let runs_min = (mult * t0.data_fraction()).max(1.0);
            let total: f64 = usable.iter().map(|u| u / umin * runs_min).sum();
            let scale = if total > 4096.0 { 4096.0 / total } else { 1.0 };
            g.rotor_w = usable.iter().map(|u| ((u / umin * runs_min * scale).round() as u32).max(1)).collect();
            let mut acc = 0u32;
            for (t, w) in g.rotor_w.iter().enumerate() {
                g.rotor_start.push(acc);
                for o in 0..*w {
                    g.rotor.push((t as u16, o));
                }
                acc += w;
            }
        }
        // Lanes: runs, slot-lane ids, fragmentation.
        let mut nslots = 0u32;
        let g_blocks = if self.frag <= 0.0 { u64::MAX } else { (2f64.powf(32.0 * (1.0 - self.frag))).floor().max(1.0) as u64 };
        for (i, l) in self.lanes.iter_mut().enumerate() {
            l.run_blocks = (p.metaslab_aliquot_bytes / l.psize).max(1);
            l.runs = l.count.div_ceil(l.run_blocks);
            l.slot = nslots;
            nslots += l.ndvas as u32;
            l.chunk = g_blocks.min(l.count).max(1);
            l.nchunks = l.count / l.chunk;
            l.key = mix64(p.seed ^ mix64(0x6c61_6e65 + i as u64));
        }
        self.slot_lane.clear();
        for (li, l) in self.lanes.iter().enumerate() {
            for d in 0..l.ndvas {
                self.slot_lane.push((li as u32, d));
            }
        }
        // Each class's slot cycle, shared by its vdevs: its lanes get slots in proportion
        // to their runs.
        for (gi, g) in groups.iter_mut().enumerate() {
            let mut runs_of_slot = vec![0u64; nslots as usize];
            for l in self.lanes.iter().filter(|l| l.group as usize == gi) {
                for d in 0..l.ndvas as usize {
                    runs_of_slot[l.slot as usize + d] = l.runs;
                }
            }
            let total_runs: u64 = runs_of_slot.iter().sum();
            let qt = total_runs.clamp(1, CYCLE_SLOTS_MAX) as f64;
            g.q = if gi == 0 {
                runs_of_slot
                    .iter()
                    .map(|&r| if r == 0 { 0 } else { ((qt * r as f64 / total_runs as f64).round() as u32).max(1) })
                    .collect()
            } else {
                // The special class runs close to full by design (the small blocks' reserve),
                // so its cycle must not waste room: the fewest cycles c such that every
                // lane's runs fit in c cycles of ⌈runs / c⌉ slots within CYCLE_SLOTS_MAX —
                // rounding a lane's share down (1.49 slots to 1) would make it the last to
                // end, by half again. (The normal class keeps its rounded shares.)
                let slots = |c: u64| runs_of_slot.iter().map(|&r| r.div_ceil(c)).sum::<u64>();
                let (mut lo_c, mut hi_c) = (1u64, total_runs.max(1));
                while lo_c < hi_c {
                    let mid = lo_c + (hi_c - lo_c) / 2;
                    if slots(mid) <= CYCLE_SLOTS_MAX {
                        hi_c = mid;
                    } else {
                        lo_c = mid + 1;
                    }
                }
                runs_of_slot.iter().map(|&r| r.div_ceil(lo_c) as u32).collect()
            };
            let qsum: u64 = g.q.iter().map(|&x| x as u64).sum();
            // Smooth weighted round-robin (nginx): interleaves lanes evenly through the cycle.
            let mut cur = vec![0i64; nslots as usize];
            let mut pattern = Vec::with_capacity(qsum as usize);
            for _ in 0..qsum {
                let mut bi = usize::MAX;
                for s in 0..nslots as usize {
                    if g.q[s] == 0 {
                        continue;
                    }
                    cur[s] += g.q[s] as i64;
                    if bi == usize::MAX || cur[s] > cur[bi] {
                        bi = s;
                    }
                }
                cur[bi] -= qsum as i64;
                pattern.push(bi as u32);
            }
            let mut per: Vec<Vec<u32>> = vec![vec![]; nslots as usize];
            for (i, s) in pattern.iter().enumerate() {
                g.ord.push(per[*s as usize].len() as u32);
                per[*s as usize].push(i as u32);
            }
            for v in per {
                g.pos_start.push(g.pos.len() as u32);
                g.pos.extend(v);
            }
            g.pattern = pattern;
        }
        // Geometries (one per class and vdev shape: the cycle is the class's).
        let mut keys: Vec<(u8, (u32, usize, u32, u64))> = vec![];
        self.geoms.clear();
        self.top_geom.clear();
        for (t, top) in tops.iter().enumerate() {
            let gi = self.top_group[t].0;
            let k = (gi, geom_key(top));
            let idx = match keys.iter().position(|x| *x == k) {
                Some(i) => i,
                None => {
                    keys.push(k);
                    let g = &groups[gi as usize];
                    self.geoms.push(self.geom(top, g, k.1 .3));
                    keys.len() - 1
                }
            };
            self.top_geom.push(idx as u16);
        }
        // Bytes per vdev and the space each needs.
        self.alloc = vec![0; ntops];
        let mut end = vec![0u64; ntops];
        for li in 0..self.lanes.len() {
            let l = self.lanes[li].clone();
            if l.count == 0 {
                continue;
            }
            let g = &groups[l.group as usize];
            let n = g.members.len();
            let (last_t0, _) = Self::rotor_rank(g, l.runs - 1);
            let short = l.runs * l.run_blocks - l.count;
            for t0 in 0..n {
                let runs_here = Self::runs_on(g, l.runs, t0);
                if runs_here == 0 {
                    continue;
                }
                let blocks = runs_here * l.run_blocks - if last_t0 as usize == t0 { short } else { 0 };
                for d in 0..l.ndvas as usize {
                    let t = g.members[(t0 + d) % n] as usize;
                    let geo = &self.geoms[self.top_geom[t] as usize];
                    self.alloc[t] += blocks * geo.lane_asize[li];
                    let s = l.slot as usize + d;
                    let k = runs_here - 1;
                    let run_end = Self::slot_offset(g, geo, s, k) + l.run_blocks * geo.lane_asize[li];
                    end[t] = end[t].max(run_end);
                }
            }
        }
        // Special vdevs short of room: plan again with the class's capacity scaled down
        // by the worst overshoot (its lanes fitted by bytes, not by the cycle's slots).
        let worst = tops
            .iter()
            .enumerate()
            .filter(|(t, top)| top.special && end[*t] > top.size_bytes)
            .map(|(t, top)| top.size_bytes as f64 / end[t] as f64)
            .fold(f64::INFINITY, f64::min);
        if worst.is_finite() {
            return Err((String::new(), Some(worst)));
        }
        for (t, top) in tops.iter().enumerate() {
            if end[t] > top.size_bytes {
                return Err((
                    format!(
                        "layout.allocated_bytes: {} — does not fit: vdev {} would need {} of its {} bytes",
                        p.allocated_bytes, top.name, end[t], top.size_bytes
                    ),
                    None,
                ));
            }
        }
        self.summary.examined_bytes = self.alloc.iter().sum();
        self.used_end = end;
        self.groups = groups;
        Ok(())
    }

    /// The slot cycle of class `g` laid out in the asize space of a vdev shaped like `t`
    /// (`step`: its metaslab column step, `geom_key`'s last field).
    fn geom(&self, t: &TopVdev, g: &Group, step: u64) -> Geom {
        let lane_asize: Vec<u64> = self.lanes.iter().map(|l| t.asize(l.psize)).collect();
        // Raidz: the cycle is cut into metaslab-sized stretches (and always ends one);
        // stretch n starts on column n·step (mod dcols) as metaslab n would, after a gap
        // of < dcols sectors. The cycle then holds a whole number of stretches, so cycle
        // c's stretches continue the count.
        let dcols = t.leaves.len() as u64;
        let ms_bytes = 1u64 << metaslab_shift(t.size_bytes);
        let (mut stretch, mut stretch_end) = (0u64, ms_bytes);
        let align = |off: u64, n: u64| -> u64 {
            let want = (n % dcols) * step % dcols;
            off + (((want + dcols - (off >> t.ashift) % dcols) % dcols) << t.ashift)
        };
        let mut pre = Vec::with_capacity(g.pattern.len() + 1);
        let mut off = 0u64;
        for s in &g.pattern {
            if t.has_raidz_columns() && off >= stretch_end {
                stretch += 1;
                off = align(off, stretch);
                stretch_end = off + ms_bytes;
            }
            pre.push(off);
            let li = self.slot_lane[*s as usize].0 as usize;
            off += self.lanes[li].run_blocks * lane_asize[li];
        }
        if t.has_raidz_columns() {
            off = align(off, stretch + 1);
        }
        pre.push(off);
        let pos_pre = g.pos.iter().map(|&i| pre[i as usize]).collect();
        Geom { lane_asize, pre, pos_pre }
    }

    // ------------------------------------------------------------ closed-form structure

    /// Class of dnode block `u`.
    #[inline]
    fn class_of(&self, u: u64) -> usize {
        let r = u % self.period_units;
        self.classes.iter().position(|c| r < c.start + c.units).unwrap_or(0)
    }

    /// Dnode blocks of class `ci` before dnode block `u` (u ≤ u_full).
    #[inline]
    fn units_before(&self, ci: usize, u: u64) -> u64 {
        let c = &self.classes[ci];
        (u / self.period_units) * c.units + (u % self.period_units).saturating_sub(c.start).min(c.units)
    }

    /// Traversal index of the first block at or after dnode block `u`'s meta indirects
    /// (u ≤ n_units; u = n_units gives the total block count).
    fn index_start(&self, u: u64) -> u64 {
        let uf = u.min(self.u_full);
        let mut i = self.prefix.len() as u64 + (uf / self.period_units) * self.period_blocks;
        let r = uf % self.period_units;
        for c in &self.classes {
            i += r.saturating_sub(c.start).min(c.units) * (1 + DNODES_PER_BLOCK * c.file_blocks);
        }
        if u > self.u_full {
            let c = &self.classes[self.class_of(self.u_full)];
            i += 1 + self.last_files_full * c.file_blocks;
            if self.last_k > 0 {
                i += self.tail_file_blocks(c);
            }
        }
        for l in 1..=self.meta_levels {
            i += u.div_ceil(1 << (self.sh * l));
        }
        i
    }

    fn tail_file_blocks(&self, c: &Class) -> u64 {
        let mut n = self.last_k;
        let mut b = n;
        for _ in 1..=c.levels {
            n = n.div_ceil(1 << self.sh);
            b += n;
        }
        b
    }

    /// Files in dnode block `u`.
    #[inline]
    fn files_in(&self, u: u64) -> u64 {
        if u < self.u_full {
            DNODES_PER_BLOCK
        } else {
            self.last_files_full + u64::from(self.last_k > 0)
        }
    }

    #[inline]
    fn fresh_birth(&self, index: u64) -> u64 {
        1 + mul_div(index.min(self.n_blocks - 1), self.txgs, self.n_blocks)
    }

    /// Birth of a metadata block whose subtree ends at traversal index `end`.
    #[inline]
    fn meta_birth(&self, end: u64) -> u64 {
        if self.frag > 0.0 {
            self.txgs
        } else {
            self.fresh_birth(end)
        }
    }

    // ------------------------------------------------------------ placement

    /// Run `q` of a lane of class `g`: its (local) top and its ordinal among that top's runs.
    #[inline]
    fn rotor_rank(g: &Group, q: u64) -> (u16, u64) {
        let r = g.rotor.len() as u64;
        let (t, o) = g.rotor[(q % r) as usize];
        (t, (q / r) * g.rotor_w[t as usize] as u64 + o as u64)
    }

    /// Runs of a lane of class `g` with `runs` runs that land on its local top `t` (copy 0).
    fn runs_on(g: &Group, runs: u64, t: usize) -> u64 {
        let r = g.rotor.len() as u64;
        let w = g.rotor_w[t] as u64;
        let s = g.rotor_start[t] as u64;
        (runs / r) * w + (runs % r).saturating_sub(s).min(w)
    }

    /// Offset of the `k`-th slot of slot-lane `s` of class `g` in geometry `geo`.
    #[inline]
    fn slot_offset(g: &Group, geo: &Geom, s: usize, k: u64) -> u64 {
        let q = g.q[s] as u64;
        let cycle = geo.pre[geo.pre.len() - 1];
        (k / q) * cycle + geo.pos_pre[g.pos_start[s] as usize + (k % q) as usize]
    }

    /// Fills `b.dvas` for the block of rank `rank` in lane `li`.
    #[inline]
    fn place(&self, li: u32, rank: u64, b: &mut Block) {
        let (li, rank) = {
            let l = &self.lanes[li as usize];
            if rank >= l.split { (l.over, rank - l.split) } else { (li, rank) }
        };
        let l = &self.lanes[li as usize];
        let mut r = rank;
        if l.nchunks > 1 && rank < l.nchunks * l.chunk {
            r = feistel(rank / l.chunk, l.nchunks, l.key) * l.chunk + rank % l.chunk;
        }
        let q = r / l.run_blocks;
        let j = r - q * l.run_blocks;
        let g = &self.groups[l.group as usize];
        let (t0, k) = Self::rotor_rank(g, q);
        let n = g.members.len();
        b.ndvas = l.ndvas;
        // Copy d goes to the class's top t0 + d (mod n); t0 < n, so stepping with a wrap is that.
        let mut t = t0 as usize;
        for (d, dva) in b.dvas[..l.ndvas as usize].iter_mut().enumerate() {
            let top = g.members[t];
            let geo = &self.geoms[self.top_geom[top as usize] as usize];
            let asize = geo.lane_asize[li as usize];
            let offset = Self::slot_offset(g, geo, l.slot as usize + d, k) + j * asize;
            *dva = Dva { vdev: top, offset, asize };
            t = if t + 1 == n { 0 } else { t + 1 };
        }
    }

    #[inline]
    fn make(&self, index: u64, kind: BlockKind, level: u8, li: u32, rank: u64, birth_txg: u64) -> Block {
        let l = &self.lanes[li as usize];
        let mut b = Block { index, level, kind, psize: l.psize, lsize: l.lsize, birth_txg, ndvas: 0, dvas: [Dva::default(); 3] };
        self.place(li, rank, &mut b);
        b
    }

    #[inline]
    fn data_birth(&self, index: u64, li: u32, rank: u64) -> u64 {
        let fresh = self.fresh_birth(index);
        if self.frag <= 0.0 {
            return fresh;
        }
        let h = mix64(self.seed ^ mix64((li as u64) << 48 ^ rank ^ 0xb1e7));
        if ((h >> 11) as f64) * (1.0 / (1u64 << 53) as f64) < self.frag {
            fresh + mix64(h) % (self.txgs - fresh + 1)
        } else {
            fresh
        }
    }

    // ------------------------------------------------------------ public API

    /// Blocks in traversal order from `cursor` (`Cursor::START` for the whole pool).
    pub fn traverse_from(&self, cursor: Cursor) -> Traversal<'_> {
        Traversal { lo: self, cur: cursor }
    }

    pub fn traverse(&self) -> Traversal<'_> {
        self.traverse_from(Cursor::START)
    }

    /// The bookmark just past the metadata block at `at` and everything below it (the
    /// traversal is depth first, parent before children): where a traversal that could
    /// not read that block goes on. None for the pool's prefix (MOS and objset blocks),
    /// a data block, or the end.
    pub fn subtree_end(&self, at: Cursor) -> Option<Cursor> {
        let (stage, level, unit, file) = (at.stage, at.step, at.unit, at.file);
        if !matches!(stage, Stage::MetaInd | Stage::Dnode | Stage::FileInd) {
            return None;
        }
        let mut t = self.traverse_from(at);
        t.next()?;
        loop {
            let c = t.cursor();
            let inside = match stage {
                // A meta-dnode indirect of level l: the lower ones, the dnode blocks and
                // their files, until the next meta indirect of level l or above.
                Stage::MetaInd => c.stage != Stage::Done && !(c.stage == Stage::MetaInd && c.step >= level),
                // A dnode block: its files.
                Stage::Dnode => matches!(c.stage, Stage::FileInd | Stage::Data) && c.unit == unit,
                // A file's indirect of level l: the file's blocks until its next indirect
                // of level l or above.
                _ => {
                    matches!(c.stage, Stage::FileInd | Stage::Data)
                        && (c.unit, c.file) == (unit, file)
                        && !(c.stage == Stage::FileInd && c.step >= level)
                }
            };
            if !inside {
                return Some(c);
            }
            t.next();
        }
    }

    /// Every block, in traversal order.
    pub fn n_blocks(&self) -> u64 {
        self.n_blocks
    }

    /// File data (level-0) blocks.
    pub fn data_blocks(&self) -> u64 {
        self.summary.data_blocks
    }

    /// The `i`-th file data block in traversal order (`i < data_blocks()`).
    pub fn data_block(&self, i: u64) -> Block {
        assert!(i < self.summary.data_blocks, "data block {i} of {}", self.summary.data_blocks);
        let (ci, u, f, j, files_before) = self.locate_data(i);
        let c = &self.classes[ci];
        let mut index = self.index_start(u) + 1 + f * c.file_blocks + c.pos(j);
        for l in 1..=self.meta_levels {
            index += u64::from(u & ((1 << (self.sh * l)) - 1) == 0);
        }
        let rank = files_before * c.k + j;
        self.make(index, BlockKind::Data, 0, c.data_lane, rank, self.data_birth(index, c.data_lane, rank))
    }

    /// Data block `i`'s class, dnode block, file within that dnode block, block id in the
    /// file, and the class's files before it.
    #[inline]
    fn locate_data(&self, i: u64) -> (usize, u64, u64, u64, u64) {
        let mut r = i % self.period_data;
        let mut u = i / self.period_data * self.period_units;
        let mut found = 0;
        for (ci, c) in self.classes.iter().enumerate() {
            let n = c.units * DNODES_PER_BLOCK * c.k;
            if r < n {
                found = ci;
                break;
            }
            r -= n;
        }
        let c = &self.classes[found];
        let per_unit = DNODES_PER_BLOCK * c.k;
        u += c.start + r / per_unit;
        let rr = r % per_unit;
        let (f, j) = (rr / c.k, rr % c.k);
        (found, u, f, j, self.units_before(found, u) * DNODES_PER_BLOCK + f)
    }

    /// The indirect blocks of data block `i`'s file above it, top level first, into `out`
    /// (none for a file whose one block pointer lives in its dnode): the chain
    /// `dbuf_findbp` climbs to find the block's pointer (DBUF@zfs-2.2.0). The blocks are
    /// the ones the traversal meets (same index, lane, rank and birth): in a file's
    /// pre-order the level-`l` block `m` comes `l` places before data block `m << (sh·l)`.
    pub fn data_parents(&self, i: u64, out: &mut Vec<Block>) {
        out.clear();
        let (ci, u, f, j, files_before) = self.locate_data(i);
        let c = &self.classes[ci];
        let mut file_start = self.index_start(u) + 1 + f * c.file_blocks;
        for l in 1..=self.meta_levels {
            file_start += u64::from(u & ((1 << (self.sh * l)) - 1) == 0);
        }
        let k = if u == self.u_full && f == self.last_files_full && self.last_k > 0 { self.last_k } else { c.k };
        for l in (1..=c.levels).rev() {
            let m = j >> (self.sh * l);
            let index = file_start + c.pos(m << (self.sh * l)) - l as u64;
            out.push(self.file_indirect(c, l, m, k, files_before, file_start, index));
        }
    }

    /// Level-`l` indirect block `m` of a file of class `c` with `k` data blocks, the
    /// class's `files_before`-th, whose blocks start at traversal index `file_start`; at
    /// `index` in the traversal. Its lane and rank (the last of its level has its own
    /// lane), and the birth of the last data block under it.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn file_indirect(&self, c: &Class, l: u32, m: u64, k: u64, files_before: u64, file_start: u64, index: u64) -> Block {
        let sh = self.sh * l;
        let last = m == k.div_ceil(1 << sh) - 1;
        let li = c.ind_lane + 2 * (l - 1) + u32::from(last);
        let rank = if last { files_before } else { files_before * (c.n[l as usize] - 1) + m };
        let j_end = ((m + 1) << sh).min(k) - 1;
        self.make(index, BlockKind::Indirect, l as u8, li, rank, self.meta_birth(file_start + c.pos(j_end)))
    }

    /// Where the `i`-th file data block sits in the object tree (`i < data_blocks()`): its
    /// file, its block id in the file and the file's dnode block — what `dbuf_dirty` and
    /// `dnode_setdirty` dirty above it when it is written.
    pub fn data_place(&self, i: u64) -> DataPlace {
        let (ci, u, _, j, files_before) = self.locate_data(i);
        DataPlace { class: ci as u32, file: files_before, block: j, unit: u, levels: self.classes[ci].levels }
    }

    /// (psize, copies) of the level-`level` indirect block number `idx` of a file of class
    /// `class` (the last one of its level holds fewer pointers).
    pub fn indirect_write(&self, class: u32, level: u32, idx: u64) -> (u64, u8) {
        let c = &self.classes[class as usize];
        let last = idx + 1 >= c.n[level as usize];
        let lane = &self.lanes[c.ind_lane as usize + 2 * (level as usize - 1) + usize::from(last)];
        (lane.psize, lane.ndvas)
    }

    /// (psize, copies) of a dnode block.
    pub fn dnode_write(&self) -> (u64, u8) {
        let lane = &self.lanes[self.dnode_lane as usize];
        (lane.psize, lane.ndvas)
    }

    /// (psize, copies) of a metadata block of `lsize` bytes (a ZAP block, say): compressed
    /// like the layout's metadata, two copies.
    pub fn metadata_write(&self, lsize: u64) -> (u64, u8) {
        (compressed(lsize, self.md_ratio, self.ashift), 2)
    }

    /// log2 of the block pointers per indirect block (10 from 0.7, 7 before).
    pub fn fanout_shift(&self) -> u32 {
        self.sh
    }

    /// lsize of an indirect block (what a dirty one is charged).
    pub fn indirect_lsize(&self) -> u64 {
        1 << (self.sh + BLKPTR_SHIFT)
    }

    /// (psize, copies) of a full indirect block.
    pub fn full_indirect_write(&self) -> (u64, u8) {
        let lane = &self.lanes[self.meta_lane as usize];
        (lane.psize, lane.ndvas)
    }

    /// (psize, copies) of the blocks every txg that changed the dataset rewrites above its
    /// dnodes: the dataset's objset, the MOS dnode block holding its `dsl_dataset`, the MOS
    /// objset (`dmu_objset_sync`, `dsl_dataset_sync`, `spa_sync`'s MOS pass).
    pub fn objset_writes(&self) -> impl Iterator<Item = (u64, u8)> + '_ {
        self.prefix.iter().map(|pb| {
            let lane = &self.lanes[pb.lane as usize];
            (lane.psize, lane.ndvas)
        })
    }

    /// Dnode blocks of the layout (level 0 of the meta-dnode) and the meta-dnode's indirect
    /// levels above them.
    pub fn dnode_blocks(&self) -> (u64, u32) {
        (self.n_units, self.meta_levels)
    }

    /// Bytes allocated on top-level vdev `top` (Σ asize of the DVAs it holds).
    pub fn alloc_bytes(&self, top: usize) -> u64 {
        self.alloc[top]
    }

    /// Bookmarks of the metadata blocks the block at `at` points to, in traversal order:
    /// what a 0.8+ scan's prefetch queues when that block arrives (`dsl_scan_prefetch_cb`:
    /// an indirect's children of level > 0 or of type DNODE, a dnode block's dnodes' top
    /// block pointers of level > 0, an objset's meta-dnode top pointer). Data blocks and a
    /// file's level-1 indirects have none. O(children): each bookmark is closed-form.
    pub fn meta_children(&self, at: Cursor, out: &mut Vec<Cursor>) {
        out.clear();
        out.extend((0..).map_while(|i| self.meta_child(at, i)));
    }

    /// The `i`-th of `meta_children(at)`, or None past the last: O(1).
    pub fn meta_child(&self, at: Cursor, i: u64) -> Option<Cursor> {
        let mut tr = self.traverse_from(at);
        match at.stage {
            Stage::Done | Stage::Data => None,
            Stage::Prefix => {
                // MOS objset → MOS dnode block → the dataset's objset → its meta-dnode top.
                if i > 0 {
                    return None;
                }
                tr.next();
                Some(tr.cur)
            }
            Stage::MetaInd => {
                let l = at.step;
                let span = 1u64 << (self.sh * l);
                let sub = span >> self.sh;
                let u = at.unit / span * span + i * sub;
                if i >= 1 << self.sh || u >= self.n_units {
                    return None;
                }
                tr.enter_unit(u);
                // The level-(l−1) block at u follows the higher ones that start there.
                let top = tr.cur.step;
                tr.cur.index = self.index_start(u) + (top - (l - 1)) as u64;
                if l > 1 {
                    tr.cur.step = l - 1;
                } else {
                    tr.cur.stage = Stage::Dnode;
                }
                Some(tr.cur)
            }
            Stage::Dnode => {
                let cl = &self.classes[at.class as usize];
                if cl.levels == 0 || i >= self.files_in(at.unit) {
                    return None;
                }
                tr.cur.index = at.index + 1 + i * cl.file_blocks;
                tr.enter_file(i);
                Some(tr.cur)
            }
            Stage::FileInd => {
                let l = at.step;
                if l < 2 || i >= 1 << self.sh {
                    return None;
                }
                let cl = &self.classes[at.class as usize];
                let sh = self.sh;
                let j = (at.j >> (sh * l) << (sh * l)) + (i << (sh * (l - 1)));
                if j >= at.k {
                    return None;
                }
                let mut c = at;
                c.j = j;
                c.step = l - 1;
                c.index = at.file_start + cl.pos(j) - (l - 1) as u64;
                Some(c)
            }
        }
    }

    /// Σ asize over every DVA (`zpool status` "to examine").
    pub fn examined_bytes(&self) -> u64 {
        self.summary.examined_bytes
    }

    /// Allocated ranges of top-level vdev `top` in offset order, adjacent ones merged: what
    /// a sequential rebuild reads from the space maps (`vdev_rebuild`, spec §5.4). O(1) state.
    pub fn allocated_ranges(&self, top: usize) -> AllocatedRanges<'_> {
        AllocatedRanges { lo: self, top, cycle: 0, i: 0, pending: None }
    }

    /// Bytes of asize space vdev `top` uses, holes included (the highest allocated end).
    pub fn used_end_bytes(&self, top: usize) -> u64 {
        self.used_end[top]
    }

    /// (offset, length) of cycle slot `i` of cycle `cycle` on `top` if it holds a run.
    fn slot_range(&self, top: usize, cycle: u64, i: usize) -> Option<(u64, u64)> {
        let (gi, lt) = self.top_group[top];
        let g = &self.groups[gi as usize];
        let s = g.pattern[i] as usize;
        let (li, d) = self.slot_lane[s];
        let l = &self.lanes[li as usize];
        let n = g.members.len();
        let t0 = (lt as usize + n - d as usize % n) % n;
        let runs_here = Self::runs_on(g, l.runs, t0);
        let k = cycle * g.q[s] as u64 + g.ord[i] as u64;
        if k >= runs_here {
            return None;
        }
        let geo = &self.geoms[self.top_geom[top] as usize];
        let asize = geo.lane_asize[li as usize];
        let (last_t0, last_k) = Self::rotor_rank(g, l.runs - 1);
        let blocks = if last_t0 as usize == t0 && last_k == k { l.count - (l.runs - 1) * l.run_blocks } else { l.run_blocks };
        Some((cycle * geo.pre[geo.pre.len() - 1] + geo.pre[i], blocks * asize))
    }

    pub fn summary(&self) -> LayoutSummary {
        self.summary
    }

    /// Birth txg of the newest block (the pool's txg when the scan starts is after it).
    pub fn last_txg(&self) -> u64 {
        self.txgs
    }
}

/// Where an [`AllocatedRanges`] walk stands, so that a long walk (a sequential rebuild) can
/// be resumed later without holding a borrow of the layout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RangesPos {
    cycle: u64,
    i: usize,
    pending: Option<(u64, u64)>,
}

impl Layout {
    /// Resume an allocated-ranges walk of `top` at `pos` (from [`AllocatedRanges::position`];
    /// `RangesPos::default()` is the start).
    pub fn allocated_ranges_at(&self, top: usize, pos: RangesPos) -> AllocatedRanges<'_> {
        AllocatedRanges { lo: self, top, cycle: pos.cycle, i: pos.i, pending: pos.pending }
    }
}

impl AllocatedRanges<'_> {
    /// The walk's state: `allocated_ranges_at` with it yields what this iterator yields next.
    pub fn position(&self) -> RangesPos {
        RangesPos { cycle: self.cycle, i: self.i, pending: self.pending }
    }
}

/// Allocated (offset, length) ranges of one vdev in offset order.
#[derive(Clone, Debug)]
pub struct AllocatedRanges<'a> {
    lo: &'a Layout,
    top: usize,
    cycle: u64,
    i: usize,
    pending: Option<(u64, u64)>,
}

impl Iterator for AllocatedRanges<'_> {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        let lo = self.lo;
        let g = &lo.geoms[lo.top_geom[self.top] as usize];
        let cycle_bytes = g.pre[g.pre.len() - 1];
        let slots = lo.groups[lo.top_group[self.top].0 as usize].pattern.len();
        loop {
            if self.i == slots {
                self.i = 0;
                self.cycle += 1;
            }
            if self.cycle * cycle_bytes >= lo.used_end[self.top] {
                return self.pending.take();
            }
            let r = lo.slot_range(self.top, self.cycle, self.i);
            self.i += 1;
            let Some((off, len)) = r else { continue };
            match self.pending {
                Some((po, pl)) if po + pl == off => self.pending = Some((po, pl + len)),
                Some(prev) => {
                    self.pending = Some((off, len));
                    return Some(prev);
                }
                None => self.pending = Some((off, len)),
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Stage {
    Prefix,
    MetaInd,
    Dnode,
    FileInd,
    Data,
    Done,
}

/// A traversal bookmark: the next block to visit (object, level, block id) and its index.
/// Resuming from a cursor continues exactly where the traversal that produced it stopped.
/// Serializable, so a paused scan's bookmark can be saved with its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    index: u64,
    stage: Stage,
    /// Prefix position, or the pending level (meta or file indirect).
    step: u32,
    class: u32,
    unit: u64,
    file: u64,
    /// Files of this class before the current file.
    files_before: u64,
    /// Data blocks in the current file, next data block id, index of the file's first block.
    k: u64,
    j: u64,
    file_start: u64,
}

impl Cursor {
    pub const START: Cursor =
        Cursor { index: 0, stage: Stage::Prefix, step: 0, class: 0, unit: 0, file: 0, files_before: 0, k: 0, j: 0, file_start: 0 };

    /// Traversal index of the next block.
    pub fn index(&self) -> u64 {
        self.index
    }
    pub fn is_done(&self) -> bool {
        self.stage == Stage::Done
    }
}

/// Blocks in traversal order; O(1) state.
#[derive(Clone, Debug)]
pub struct Traversal<'a> {
    lo: &'a Layout,
    cur: Cursor,
}

impl Cursor {
    /// The bookmark is in the pool's prefix (the MOS and the dataset's objset block).
    pub fn in_prefix(&self) -> bool {
        self.stage == Stage::Prefix
    }

    /// The file the block at this bookmark belongs to, as (dnode block, file in it); None
    /// for the pool's prefix (MOS, objset) and the meta-dnode's own blocks.
    pub fn file(&self) -> Option<(u64, u64)> {
        matches!(self.stage, Stage::FileInd | Stage::Data).then_some((self.unit, self.file))
    }
}

impl Traversal<'_> {
    /// Bookmark of the next block.
    pub fn cursor(&self) -> Cursor {
        self.cur
    }

    fn enter_unit(&mut self, u: u64) {
        let lo = self.lo;
        let c = &mut self.cur;
        if u >= lo.n_units {
            c.stage = Stage::Done;
            return;
        }
        c.unit = u;
        c.class = lo.class_of(u) as u32;
        let mut top = 0;
        for l in 1..=lo.meta_levels {
            if u & ((1 << (lo.sh * l)) - 1) == 0 {
                top = l;
            }
        }
        c.step = top;
        c.stage = if top > 0 { Stage::MetaInd } else { Stage::Dnode };
    }

    fn enter_file(&mut self, f: u64) {
        let lo = self.lo;
        let u = self.cur.unit;
        if f >= lo.files_in(u) {
            return self.enter_unit(u + 1);
        }
        let ci = self.cur.class as usize;
        let cl = &lo.classes[ci];
        let c = &mut self.cur;
        c.file = f;
        c.files_before = lo.units_before(ci, u) * DNODES_PER_BLOCK + f;
        c.k = if u == lo.u_full && f == lo.last_files_full { lo.last_k } else { cl.k };
        c.j = 0;
        c.file_start = c.index;
        c.step = cl.levels;
        c.stage = if cl.levels > 0 { Stage::FileInd } else { Stage::Data };
    }
}

impl Iterator for Traversal<'_> {
    type Item = Block;

    #[inline]
    fn next(&mut self) -> Option<Block> {
        let lo = self.lo;
        let c = self.cur;
        let b = match c.stage {
            Stage::Done => return None,
            Stage::Prefix => {
                let pb = &lo.prefix[c.step as usize];
                let b = lo.make(c.index, pb.kind, 0, pb.lane, 0, lo.txgs);
                self.cur.step += 1;
                if self.cur.step as usize == lo.prefix.len() {
                    self.cur.index += 1;
                    self.enter_unit(0);
                    return Some(b);
                }
                b
            }
            Stage::MetaInd => {
                let l = c.step;
                let span = 1u64 << (lo.sh * l);
                let m = c.unit / span;
                let count = lo.n_units.div_ceil(span);
                let last = m == count - 1;
                let li = lo.meta_lane + 2 * (l - 1) + u32::from(last);
                let end_unit = ((m + 1) * span).min(lo.n_units);
                let birth = lo.meta_birth(lo.index_start(end_unit) - 1);
                let b = lo.make(c.index, BlockKind::Indirect, l as u8, li, if last { 0 } else { m }, birth);
                self.cur.step -= 1;
                if self.cur.step == 0 {
                    self.cur.stage = Stage::Dnode;
                }
                b
            }
            Stage::Dnode => {
                let birth = lo.meta_birth(lo.index_start(c.unit + 1) - 1);
                let b = lo.make(c.index, BlockKind::Dnode, 0, lo.dnode_lane, c.unit, birth);
                self.cur.index += 1;
                self.enter_file(0);
                return Some(b);
            }
            Stage::FileInd => {
                let cl = &lo.classes[c.class as usize];
                let l = c.step;
                let b = lo.file_indirect(cl, l, c.j >> (lo.sh * l), c.k, c.files_before, c.file_start, c.index);
                self.cur.step -= 1;
                if self.cur.step == 0 {
                    self.cur.stage = Stage::Data;
                }
                b
            }
            Stage::Data => {
                let cl = &lo.classes[c.class as usize];
                let rank = c.files_before * cl.k + c.j;
                let b = lo.make(c.index, BlockKind::Data, 0, cl.data_lane, rank, lo.data_birth(c.index, cl.data_lane, rank));
                let j = c.j + 1;
                self.cur.index += 1;
                if j == c.k {
                    self.enter_file(c.file + 1);
                } else {
                    self.cur.j = j;
                    let top = (j.trailing_zeros() / lo.sh).min(cl.levels);
                    if top > 0 {
                        self.cur.step = top;
                        self.cur.stage = Stage::FileInd;
                    }
                }
                return Some(b);
            }
        };
        self.cur.index += 1;
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::{raidz_map, VdevType};

    #[test]
    fn mul_div_is_the_wide_quotient() {
        let mut rng = ziosim_engine::Rng::stream(5, "mul-div");
        for _ in 0..100_000 {
            let (sn, sb) = (rng.below(64), rng.below(64));
            let n = 1 + rng.below(u64::MAX >> sn);
            let a = rng.below(n);
            let b = rng.below(u64::MAX >> sb);
            // a < n keeps the quotient below b, so it fits; wide products take the fallback.
            assert_eq!(mul_div(a, b, n), (a as u128 * b as u128 / n as u128) as u64, "{a} {b} {n}");
        }
        assert_eq!(mul_div(u64::MAX - 1, u64::MAX - 2, u64::MAX), u64::MAX - 3);
    }

    fn top(name: &str, kind: VdevType, disks: u16, size_bytes: u64) -> TopVdev {
        TopVdev { name: name.into(), kind, leaves: (0..disks).collect(), ashift: 12, size_bytes, draid: None, special: false }
    }

    fn mixed(allocated_bytes: u64, f: f64, seed: u64) -> LayoutParams {
        LayoutParams {
            files: vec![
                FileClass { size_bytes: 4 << 10, weight: 0.02 },
                FileClass { size_bytes: 48 << 10, weight: 0.05 },
                FileClass { size_bytes: 3 << 20, weight: 0.13 },
                FileClass { size_bytes: 256 << 20, weight: 0.8 },
            ],
            fragmentation: f,
            compression_ratio: 1.3,
            seed,
            ..LayoutParams::fresh(allocated_bytes, 128 << 10, 12)
        }
    }

    fn pool3() -> Vec<TopVdev> {
        vec![top("raidz2-0", VdevType::Raidz2, 6, 64 << 30), top("mirror-1", VdevType::Mirror, 2, 32 << 30), top("raidz1-2", VdevType::Raidz1, 4, 48 << 30)]
    }

    /// Every DVA of every block, checked for disjointness per vdev and fit; returns the count.
    fn assert_no_overlap(lo: &Layout, tops: &[TopVdev]) -> usize {
        let mut ext: Vec<(u16, u64, u64)> = vec![];
        for b in lo.traverse() {
            for d in b.dvas() {
                assert_eq!(d.asize, tops[d.vdev as usize].asize(b.psize), "asize of {b:?}");
                ext.push((d.vdev, d.offset, d.asize));
            }
        }
        ext.sort_unstable();
        for w in ext.windows(2) {
            if w[0].0 == w[1].0 {
                assert!(w[0].1 + w[0].2 <= w[1].1, "overlap on vdev {}: {:?} {:?}", w[0].0, w[0], w[1]);
            }
        }
        for e in &ext {
            assert!(e.1 + e.2 <= tops[e.0 as usize].size_bytes, "past the end of vdev {}", e.0);
        }
        ext.len()
    }

    #[test]
    fn data_place_numbers_files_and_blocks_in_traversal_order() {
        let tops = vec![top("d", VdevType::Disk, 1, 1 << 40)];
        let lo = Layout::new(&mixed(20 << 30, 0.0, 1), &tops).unwrap();
        let mut files = std::collections::HashSet::new();
        let mut prev: Option<DataPlace> = None;
        for i in 0..lo.data_blocks() {
            let p = lo.data_place(i);
            files.insert((p.class, p.file));
            if let Some(q) = prev.filter(|q| (q.class, q.file) == (p.class, p.file)) {
                // Inside a file the block ids run on and the dnode block stays.
                assert_eq!((p.block, p.unit), (q.block + 1, q.unit), "block {i}");
            } else {
                assert_eq!(p.block, 0, "block {i} starts a file");
            }
            prev = Some(p);
        }
        assert_eq!(files.len() as u64, lo.summary().files);
    }

    #[test]
    fn a_data_blocks_parents_are_the_indirects_the_traversal_met_above_it() {
        let tops = pool3();
        // 16 KiB indirects (7 pointer bits) and 128 KiB (10), fresh and aged, a partial last
        // file (the allocation is no whole number of periods).
        for (ibs, f, alloc) in [(17, 0.0, (20 << 30) + (5 << 20)), (14, 0.3, (9 << 30) + (77 << 20) + 4096)] {
            let lo = Layout::new(&LayoutParams { indblkshift: ibs, ..mixed(alloc, f, 3) }, &tops).unwrap();
            let mut t = lo.traverse();
            let mut above: Vec<Option<Block>> = vec![None; MAX_LEVELS + 1];
            let (mut file, mut data, mut checked) = (None, 0u64, 0u64);
            let mut got = Vec::new();
            loop {
                let c = t.cursor();
                let Some(b) = t.next() else { break };
                if c.file() != file {
                    file = c.file();
                    above.iter_mut().for_each(|a| *a = None);
                }
                match b.kind {
                    BlockKind::Indirect if c.file().is_some() => above[b.level as usize] = Some(b),
                    BlockKind::Data => {
                        lo.data_parents(data, &mut got);
                        let want: Vec<Block> = above[1..].iter().rev().flatten().copied().collect();
                        assert_eq!(got, want, "data block {data} ({b:?})");
                        checked += got.len() as u64;
                        data += 1;
                    }
                    _ => {}
                }
            }
            assert_eq!(data, lo.data_blocks());
            assert!(checked > data / 2, "{checked} parents of {data} data blocks");
        }
    }

    #[test]
    fn a_subtree_ends_where_the_traversal_leaves_the_block() {
        let tops = vec![top("d", VdevType::Disk, 1, 1 << 40)];
        let lo = Layout::new(&mixed(20 << 30, 0.0, 1), &tops).unwrap();
        let mut t = lo.traverse();
        let (mut dnodes, mut file_inds) = (0, 0);
        loop {
            let c = t.cursor();
            let Some(b) = t.next() else { break };
            let Some(e) = lo.subtree_end(c) else {
                assert!(c.in_prefix() || b.kind == BlockKind::Data || b.kind == BlockKind::Objset, "{b:?}");
                continue;
            };
            assert!(e.index() > c.index());
            // Walk the blocks between: all below `b`; the one at `e` is not.
            let mut u = lo.traverse_from(t.cursor());
            while u.cursor().index() < e.index() {
                let (cc, x) = (u.cursor(), u.next().unwrap());
                match (b.kind, c.file()) {
                    (BlockKind::Dnode, _) => assert_eq!(cc.file().map(|f| f.0), Some(c.unit), "{x:?} under {b:?}"),
                    (BlockKind::Indirect, Some(f)) => assert!(cc.file() == Some(f) && x.level < b.level, "{x:?} under {b:?}"),
                    // A meta-dnode indirect: lower ones, dnode blocks and files.
                    (BlockKind::Indirect, None) => assert!(cc.file().is_some() || x.kind == BlockKind::Dnode || x.level < b.level, "{x:?}"),
                    _ => unreachable!(),
                }
            }
            let next = lo.traverse_from(e).next();
            match (b.kind, c.file(), next) {
                (_, _, None) => {}
                (BlockKind::Dnode, _, Some(_)) => {
                    dnodes += 1;
                    assert!(e.file().is_none_or(|f| f.0 != c.unit));
                }
                (BlockKind::Indirect, Some(f), Some(x)) => {
                    file_inds += 1;
                    assert!(e.file() != Some(f) || x.level >= b.level, "{x:?} after {b:?}");
                }
                (BlockKind::Indirect, None, Some(x)) => assert!(e.file().is_none() && x.kind == BlockKind::Indirect && x.level >= b.level),
                _ => unreachable!(),
            }
        }
        assert!(dnodes > 10 && file_inds > 10, "{dnodes} {file_inds}");
    }

    #[test]
    fn feistel_is_a_bijection() {
        for n in [2u64, 3, 5, 64, 1000, 4097] {
            let mut seen: Vec<u64> = (0..n).map(|x| feistel(x, n, 0xfeed ^ n)).collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len() as u64, n);
            assert!(seen.iter().all(|&y| y < n));
        }
    }

    #[test]
    fn validate_names_the_field() {
        let mut p = LayoutParams::fresh(1 << 30, 128 << 10, 12);
        p.fragmentation = 1.5;
        let e = p.validate().unwrap_err();
        assert!(e.starts_with("layout.fragmentation: 1.5"), "{e}");
        assert!(!e.contains('\n'));
        p.fragmentation = 0.0;
        p.recordsize_bytes = 100_000;
        assert!(p.validate().unwrap_err().starts_with("layout.recordsize_bytes"));
        p.recordsize_bytes = 128 << 10;
        p.files[0].weight = f64::NAN;
        assert!(p.validate().unwrap_err().starts_with("layout.files[0].weight"));
        let json = r#"{"allocated_bytes":1,"recordsize_bytes":131072,"ashift":12,"files":[],"bogus":1}"#;
        assert!(serde_json::from_str::<LayoutParams>(json).unwrap_err().to_string().contains("bogus"));
    }

    #[test]
    fn too_full_pool_is_an_error() {
        let tops = vec![top("mirror-0", VdevType::Mirror, 2, 1 << 30)];
        let e = Layout::new(&LayoutParams::fresh(2 << 30, 128 << 10, 12), &tops).unwrap_err();
        assert!(e.contains("does not fit") && e.contains("mirror-0"), "{e}");
    }

    #[test]
    fn totals_match_allocated_and_summary() {
        let tops = pool3();
        // Every indirect size a release writes (17 from 0.7, 14 before) and the smallest.
        for (alloc, ibs) in [(1u64 << 20, 17), (7 << 30, 17), ((20 << 30) + 12345, 17), (7 << 30, 14), ((3 << 30) + 12345, 12)] {
            let lo = Layout::new(&LayoutParams { indblkshift: ibs, ..mixed(alloc, 0.3, 1) }, &tops).unwrap();
            let s = lo.summary();
            let (mut n, mut data, mut data_bytes, mut examined, mut ind, mut dn, mut os) = (0u64, 0u64, 0u64, 0u64, 0, 0, 0);
            for (i, b) in lo.traverse().enumerate() {
                assert_eq!(b.index, i as u64);
                n += 1;
                examined += b.asize_total();
                match b.kind {
                    BlockKind::Data => {
                        data += 1;
                        data_bytes += b.psize;
                        assert_eq!(b.ndvas, 1);
                    }
                    BlockKind::Indirect => ind += 1,
                    BlockKind::Dnode => dn += 1,
                    BlockKind::Objset => os += 1,
                }
                if b.kind.is_metadata() {
                    assert!(b.ndvas >= 2);
                }
            }
            assert_eq!(n, lo.n_blocks());
            assert_eq!((n, data, ind, dn, os), (s.blocks, s.data_blocks, s.indirect_blocks, s.dnode_blocks, s.objset_blocks));
            assert_eq!(data_bytes, s.data_psize_bytes);
            assert!(data_bytes >= alloc && data_bytes < alloc + (128 << 10), "{data_bytes} vs {alloc}");
            assert_eq!(examined, lo.examined_bytes());
            assert_eq!(examined, (0..tops.len()).map(|t| lo.alloc_bytes(t)).sum::<u64>());
        }
    }

    #[test]
    fn metadata_in_true_proportion() {
        let tops = vec![top("mirror-0", VdevType::Mirror, 2, 1 << 40)];
        // 1 GiB files of 128 KiB records: 8192 data blocks, 8 L1 + 1 L2 per file.
        let lo = Layout::new(&LayoutParams::fresh(64 << 30, 128 << 10, 12), &tops).unwrap();
        let s = lo.summary();
        assert_eq!(s.data_blocks, 64 << 13);
        assert_eq!(s.files, 64);
        // 64 files × (8 L1 + 1 L2) + the meta-dnode's one L1.
        assert_eq!(s.indirect_blocks, 64 * 9 + 1);
        assert_eq!(s.dnode_blocks, 1 + 2);
        // Small files: one block each, pointer in the dnode, a dnode block per 32 files.
        let p = LayoutParams { files: vec![FileClass { size_bytes: 8 << 10, weight: 1.0 }], ..LayoutParams::fresh(32 * 8192 * 100, 128 << 10, 12) };
        let s = Layout::new(&p, &tops).unwrap().summary();
        assert_eq!(s.files, 3200);
        assert_eq!(s.dnode_blocks, 1 + 100);
        assert_eq!(s.indirect_blocks, 1);
        // Indirect psize follows the pointers it holds: a full L1 compresses 2:1 to 64 KiB.
        let ind: Vec<Block> = lo.traverse().filter(|b| b.kind == BlockKind::Indirect && b.level == 1).take(3).collect();
        assert_eq!(ind[1].psize, 64 << 10);
        assert_eq!(ind[1].lsize, 128 << 10);
    }

    #[test]
    fn releases_before_0_7_write_16k_indirects() {
        let tops = vec![top("mirror-0", VdevType::Mirror, 2, 1 << 40)];
        let p = LayoutParams { indblkshift: INDBLKSHIFT_OLD, ..LayoutParams::fresh(64 << 30, 128 << 10, 12) };
        let lo = Layout::new(&p, &tops).unwrap();
        assert_eq!((lo.fanout_shift(), lo.indirect_lsize()), (7, 16 << 10));
        let s = lo.summary();
        // 8192 blocks per file under 128-pointer indirects: 64 L1 + 1 L2 per file (against
        // 8 + 1 with 128 KiB ones), and the meta-dnode's one L1.
        assert_eq!(s.indirect_blocks, 64 * 65 + 1);
        // A full L1 is 16 KiB of pointers, 2:1 → 8 KiB: a scan reads 7.2× as many of them,
        // for the same bytes.
        let ind: Vec<Block> = lo.traverse().filter(|b| b.kind == BlockKind::Indirect && b.level == 1).take(3).collect();
        assert_eq!((ind[1].psize, ind[1].lsize), (8 << 10, 16 << 10));
        // A file's L1 comes before each 128 data blocks: the 129th block of the first file
        // follows the second L1.
        let mut t = lo.traverse().skip_while(|b| b.kind != BlockKind::Indirect || b.level != 2);
        t.next();
        let order: Vec<(BlockKind, u8)> = t.take(131).map(|b| (b.kind, b.level)).collect();
        assert_eq!(order[0], (BlockKind::Indirect, 1));
        assert!(order[1..129].iter().all(|&o| o == (BlockKind::Data, 0)));
        assert_eq!(order[129], (BlockKind::Indirect, 1));
        assert!(Layout::new(&LayoutParams { indblkshift: 11, ..p.clone() }, &tops).unwrap_err().contains("indblkshift: 11"));
    }

    /// Data records a vdev receives before the rotor moves on, in a fresh fill of two equal
    /// vdevs (the most common run of consecutive data blocks on one vdev).
    fn stint(kind: VdevType, disks: u16, aliquot: u64, per_data_disk: bool) -> u64 {
        let tops = vec![top("a", kind, disks, 1 << 40), top("b", kind, disks, 1 << 40)];
        let p = LayoutParams { metaslab_aliquot_bytes: aliquot, aliquot_per_data_disk: per_data_disk, ..LayoutParams::fresh(4 << 30, 128 << 10, 12) };
        let lo = Layout::new(&p, &tops).unwrap();
        let mut runs = std::collections::BTreeMap::<u64, u64>::new();
        let (mut prev, mut n) = (u16::MAX, 0);
        for b in lo.traverse().filter(|b| b.kind == BlockKind::Data) {
            if b.dvas[0].vdev != prev && n > 0 {
                *runs.entry(n).or_default() += 1;
                n = 0;
            }
            prev = b.dvas[0].vdev;
            n += 1;
        }
        runs.into_iter().max_by_key(|&(_, c)| c).unwrap().0
    }

    #[test]
    fn rotor_gives_each_vdev_its_mg_aliquot() {
        // To 2.1, mg_aliquot = 512 KiB × children of asize: 3 MiB on a 6-wide raidz2 =
        // 2 MiB of data = 16 records; 1 MiB on a 2-way mirror = 8.
        assert_eq!(stint(VdevType::Raidz2, 6, 512 << 10, false), 16);
        assert_eq!(stint(VdevType::Mirror, 2, 512 << 10, false), 8);
        // From 2.2, 1 MiB × data disks: 4 MiB of asize on the raidz2 = 2.67 MiB of data,
        // rounded to 3 MiB = 24 records; a mirror has one data disk: 8 again.
        assert_eq!(stint(VdevType::Raidz2, 6, 1 << 20, true), 24);
        assert_eq!(stint(VdevType::Mirror, 2, 1 << 20, true), 8);
    }

    #[test]
    fn class_shares_follow_weights() {
        let tops = pool3();
        let p = mixed(20 << 30, 0.0, 1);
        let lo = Layout::new(&p, &tops).unwrap();
        let mut by_class = [0u64; 4];
        for b in lo.traverse().filter(|b| b.kind == BlockKind::Data) {
            let c = match b.lsize {
                4096 => 0,
                x if x == 48 << 10 => 1,
                _ => 2,
            };
            by_class[c] += b.psize;
        }
        let total: u64 = by_class.iter().sum();
        // 3 MiB and 256 MiB files both use 128 KiB records: compare the small classes.
        let share0 = by_class[0] as f64 / total as f64;
        let share1 = by_class[1] as f64 / total as f64;
        assert!((share0 - 0.02 * 4096.0 / 4096.0 * 1.0).abs() < 0.01, "{share0}");
        assert!(share1 > 0.03 && share1 < 0.07, "{share1}");
    }

    #[test]
    fn no_overlap_exhaustive_tiny_and_small() {
        let tiny = vec![top("raidz1-0", VdevType::Raidz1, 3, 64 << 20), top("disk-1", VdevType::Disk, 1, 32 << 20)];
        for f in [0.0, 0.5, 0.9, 1.0] {
            for seed in 0..3 {
                let n = assert_no_overlap(&Layout::new(&mixed(20 << 20, f, seed), &tiny).unwrap(), &tiny);
                assert!(n > 100);
            }
        }
        let tops = pool3();
        for f in [0.0, 0.6, 1.0] {
            assert_no_overlap(&Layout::new(&mixed(12 << 30, f, 7), &tops).unwrap(), &tops);
        }
        assert_no_overlap(&Layout::new(&LayoutParams { indblkshift: 14, ..mixed(12 << 30, 0.6, 7) }, &tops).unwrap(), &tops);
    }

    #[test]
    fn allocated_ranges_cover_exactly_the_blocks() {
        let tops = vec![top("raidz1-0", VdevType::Raidz1, 3, 64 << 20), top("disk-1", VdevType::Disk, 1, 32 << 20)];
        for f in [0.0, 1.0] {
            let lo = Layout::new(&mixed(20 << 20, f, 1), &tops).unwrap();
            for t in 0..tops.len() {
                let ranges: Vec<(u64, u64)> = lo.allocated_ranges(t).collect();
                assert!(ranges.windows(2).all(|w| w[0].0 + w[0].1 < w[1].0), "sorted, disjoint, merged");
                assert_eq!(ranges.iter().map(|r| r.1).sum::<u64>(), lo.alloc_bytes(t));
                let mut ext: Vec<(u64, u64)> =
                    lo.traverse().flat_map(|b| b.dvas().to_vec()).filter(|d| d.vdev as usize == t).map(|d| (d.offset, d.asize)).collect();
                ext.sort_unstable();
                // Every DVA lies inside a range (ranges are merged runs of DVAs).
                let mut ri = 0;
                for (o, a) in ext {
                    while ranges[ri].0 + ranges[ri].1 <= o {
                        ri += 1;
                    }
                    assert!(ranges[ri].0 <= o && o + a <= ranges[ri].0 + ranges[ri].1);
                }
                assert!(ranges.last().map_or(0, |r| r.0 + r.1) <= lo.used_end_bytes(t));
            }
        }
    }

    #[test]
    fn deterministic_by_seed() {
        let tops = pool3();
        let digest = |seed| {
            let lo = Layout::new(&mixed(2 << 30, 0.7, seed), &tops).unwrap();
            lo.traverse().fold(0u64, |h, b| mix64(h ^ b.dvas[0].offset ^ (b.dvas[0].vdev as u64) << 50 ^ b.birth_txg << 40))
        };
        assert_eq!(digest(5), digest(5));
        assert_ne!(digest(5), digest(6));
    }

    /// Fraction of consecutive same-vdev visits (DVA 0) whose offset increases.
    fn forward_fraction(lo: &Layout, ntops: usize) -> f64 {
        let mut last = vec![None; ntops];
        let (mut fwd, mut all) = (0u64, 0u64);
        for b in lo.traverse() {
            let d = b.dvas[0];
            if let Some(o) = last[d.vdev as usize] {
                all += 1;
                fwd += u64::from(d.offset > o);
            }
            last[d.vdev as usize] = Some(d.offset);
        }
        fwd as f64 / all as f64
    }

    #[test]
    fn fresh_fill_is_sequential() {
        let tops = pool3();
        let lo = Layout::new(&mixed(8 << 30, 0.0, 1), &tops).unwrap();
        let f = forward_fraction(&lo, tops.len());
        assert!(f > 0.9, "forward fraction {f}");
        // Births never decrease along a fresh traversal's data.
        let mut last = 0;
        for b in lo.traverse().filter(|b| b.kind == BlockKind::Data) {
            assert!(b.birth_txg >= last);
            last = b.birth_txg;
        }
        assert_eq!(last, lo.last_txg());
    }

    fn spearman(xs: &[u64], ys: &[u64]) -> f64 {
        let rank = |v: &[u64]| {
            let mut idx: Vec<usize> = (0..v.len()).collect();
            idx.sort_by_key(|&i| v[i]);
            let mut r = vec![0f64; v.len()];
            for (k, i) in idx.into_iter().enumerate() {
                r[i] = k as f64;
            }
            r
        };
        let (rx, ry) = (rank(xs), rank(ys));
        let n = xs.len() as f64;
        let m = (n - 1.0) / 2.0;
        let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - m) * (b - m)).sum();
        let var: f64 = rx.iter().map(|a| (a - m) * (a - m)).sum();
        cov / var
    }

    #[test]
    fn fragmentation_decorrelates_physical_order() {
        let tops = pool3();
        // One class: lanes of different classes fill at different points of the class
        // period, so a mixed pool's fresh rank correlation is lower (forward fraction is
        // what `fresh_fill_is_sequential` checks there).
        let corr = |f: f64| {
            let p = LayoutParams { fragmentation: f, seed: 3, ..LayoutParams::fresh(8 << 30, 128 << 10, 12) };
            let lo = Layout::new(&p, &tops).unwrap();
            let (mut xs, mut ys) = (vec![], vec![]);
            for b in lo.traverse().filter(|b| b.dvas[0].vdev == 0) {
                xs.push(b.index);
                ys.push(b.dvas[0].offset);
            }
            (spearman(&xs, &ys), forward_fraction(&lo, tops.len()))
        };
        let (c0, _) = corr(0.0);
        assert!(c0 > 0.99, "fresh {c0}");
        let (c1, fw1) = corr(1.0);
        assert!(c1.abs() < 0.05, "aged {c1}");
        assert!((fw1 - 0.5).abs() < 0.05, "aged forward fraction {fw1}");
        // Chunks of 2^(32(1−f)) blocks: f = 0.8 keeps ~84-block (10 MiB) extents, f = 0.95 ~3.
        let (_, fw_08) = corr(0.8);
        let (_, fw_095) = corr(0.95);
        assert!(fw_08 > fw_095 && fw_095 > fw1 && fw_095 < 0.85, "forward fraction f=0.8 {fw_08} f=0.95 {fw_095}");
    }

    #[test]
    fn resumable_from_any_cursor() {
        let tops = pool3();
        for ibs in [17, 14] {
            let lo = Layout::new(&LayoutParams { indblkshift: ibs, ..mixed(1 << 30, 0.5, 2) }, &tops).unwrap();
            let all: Vec<Block> = lo.traverse().collect();
            for stop in [1usize, 2, 3, 4, 1000, 4321, all.len() - 1] {
                let mut t = lo.traverse();
                let head: Vec<Block> = t.by_ref().take(stop).collect();
                let cur = t.cursor();
                assert_eq!(cur.index(), stop as u64);
                let cur: Cursor = serde_json::from_str(&serde_json::to_string(&cur).unwrap()).unwrap();
                let tail: Vec<Block> = lo.traverse_from(cur).collect();
                assert_eq!(head.len() + tail.len(), all.len());
                assert!(head.iter().chain(tail.iter()).eq(all.iter()), "resume at {stop}");
            }
            let mut t = lo.traverse();
            t.by_ref().for_each(drop);
            assert!(t.cursor().is_done());
        }
    }

    #[test]
    fn meta_children_are_every_metadata_block_once() {
        // 4 KiB files (4 096 dnode blocks: two meta-dnode levels) and 256 MiB files (two
        // indirect levels), plus a partial last file; with 16 KiB indirects (before 0.7) the
        // meta-dnode has two levels as well.
        for ibs in [17, 14] {
            let p = LayoutParams {
                files: vec![FileClass { size_bytes: 4 << 10, weight: 0.5 }, FileClass { size_bytes: 256 << 20, weight: 0.5 }],
                indblkshift: ibs,
                ..LayoutParams::fresh((1 << 30) + (5 << 20), 128 << 10, 12)
            };
            let lo = Layout::new(&p, &pool3()).unwrap();
            assert!(lo.meta_levels >= 2);
            let mut at = Vec::new();
            let mut all = Vec::new();
            let mut t = lo.traverse();
            loop {
                let c = t.cursor();
                let Some(b) = t.next() else { break };
                at.push(c);
                all.push(b);
            }
            let mut parent = vec![None; all.len()];
            let mut kids = Vec::new();
            for (i, b) in all.iter().enumerate().filter(|(_, b)| b.kind.is_metadata()) {
                lo.meta_children(at[i], &mut kids);
                for c in &kids {
                    let k = lo.traverse_from(*c).next().unwrap();
                    assert_eq!(k, all[c.index() as usize], "child of {b:?} at {c:?}");
                    assert!(k.kind.is_metadata() && k.index > b.index, "{k:?} under {b:?}");
                    if b.kind == BlockKind::Indirect {
                        assert_eq!(k.level + 1, b.level.max(1), "{k:?} under {b:?}");
                    }
                    assert_eq!(parent[k.index as usize].replace(b.index), None, "{k:?} twice");
                }
            }
            for (i, b) in all.iter().enumerate() {
                assert_eq!(parent[i].is_some(), b.kind.is_metadata() && i > 0, "{b:?}");
            }
        }
    }

    #[test]
    fn data_block_random_access_matches_traversal() {
        let tops = pool3();
        for ibs in [17, 14] {
            let lo = Layout::new(&LayoutParams { indblkshift: ibs, ..mixed((3 << 30) + 777, 0.4, 9) }, &tops).unwrap();
            let data: Vec<Block> = lo.traverse().filter(|b| b.kind == BlockKind::Data).collect();
            assert_eq!(data.len() as u64, lo.data_blocks());
            let mut i = 0u64;
            while i < lo.data_blocks() {
                assert_eq!(lo.data_block(i), data[i as usize], "data block {i}");
                i = i * 3 + 1;
            }
            assert_eq!(lo.data_block(lo.data_blocks() - 1), *data.last().unwrap());
        }
    }

    #[test]
    fn spread_follows_vdev_size() {
        let tops = vec![
            top("mirror-0", VdevType::Mirror, 2, 100 << 30),
            top("mirror-1", VdevType::Mirror, 2, 200 << 30),
            top("mirror-2", VdevType::Mirror, 2, 300 << 30),
        ];
        let lo = Layout::new(&LayoutParams::fresh(60 << 30, 128 << 10, 12), &tops).unwrap();
        let a: Vec<f64> = (0..3).map(|t| lo.alloc_bytes(t) as f64).collect();
        assert!((a[1] / a[0] - 2.0).abs() < 0.1 && (a[2] / a[0] - 3.0).abs() < 0.15, "{a:?}");
    }

    #[test]
    fn ditto_copies_on_distinct_vdevs_or_places() {
        let one = vec![top("raidz2-0", VdevType::Raidz2, 6, 8 << 30)];
        let lo = Layout::new(&mixed(256 << 20, 0.5, 1), &one).unwrap();
        let mos: Vec<Block> = lo.traverse().take(2).collect();
        for b in &mos {
            assert_eq!(b.ndvas, 3);
            let d = b.dvas();
            assert!(d.iter().all(|x| x.vdev == 0));
            assert!(d[0].offset != d[1].offset && d[1].offset != d[2].offset && d[0].offset != d[2].offset);
        }
        assert_no_overlap(&lo, &one);
        let two = vec![top("mirror-0", VdevType::Mirror, 2, 4 << 30), top("mirror-1", VdevType::Mirror, 2, 4 << 30)];
        let lo = Layout::new(&mixed(256 << 20, 0.0, 1), &two).unwrap();
        for b in lo.traverse().filter(|b| b.kind.is_metadata()) {
            assert_ne!(b.dvas[0].vdev, b.dvas[1].vdev, "{b:?}");
            if b.ndvas == 3 {
                assert_eq!(b.dvas[2].vdev, b.dvas[0].vdev);
            }
        }
        assert_no_overlap(&lo, &two);
    }

    #[test]
    fn parents_never_older_than_children() {
        let tops = pool3();
        for f in [0.0, 0.5] {
            let lo = Layout::new(&mixed(2 << 30, f, 4), &tops).unwrap();
            // Births of the open ancestors by level (dnode block at level 7 here).
            let mut open = [u64::MAX; 8];
            let all: Vec<Block> = lo.traverse().collect();
            for (i, b) in all.iter().enumerate() {
                // A meta-dnode indirect is the parent of the dnode blocks after it: the
                // first non-indirect block that follows it is a dnode block.
                let next = all[i + 1..].iter().find(|x| x.kind != BlockKind::Indirect);
                if b.kind == BlockKind::Indirect && next.map(|x| x.kind) == Some(BlockKind::Dnode) {
                    assert!(b.birth_txg >= next.unwrap().birth_txg, "{b:?}");
                    continue;
                }
                match b.kind {
                    BlockKind::Objset => {}
                    BlockKind::Dnode => {
                        // A dnode block holds files of one class: ancestors reset here.
                        open = [u64::MAX; 8];
                        open[7] = b.birth_txg;
                    }
                    BlockKind::Indirect | BlockKind::Data => {
                        let lvl = b.level as usize;
                        let b = *b;
                        assert!(b.birth_txg <= open[lvl + 1..].iter().copied().min().unwrap(), "{b:?}");
                        open[lvl] = b.birth_txg;
                        for x in &mut open[..lvl] {
                            *x = u64::MAX;
                        }
                    }
                }
            }
        }
    }

    /// Per-child bytes of the data columns of every file data block on raidz top `t`
    /// (what normal reads touch), and the number of distinct first columns seen.
    fn data_column_bytes(lo: &Layout, tops: &[TopVdev], t: usize) -> (Vec<u64>, usize) {
        let top = &tops[t];
        let dcols = top.leaves.len() as u32;
        let mut per = vec![0u64; dcols as usize];
        let mut firsts = vec![false; dcols as usize];
        let mut cols = vec![];
        for b in lo.traverse().filter(|b| b.kind == BlockKind::Data && b.dvas[0].vdev as usize == t) {
            let d = b.dvas[0];
            firsts[((d.offset >> top.ashift) % dcols as u64) as usize] = true;
            raidz_map(d.offset, b.psize, top.ashift, dcols, top.kind.nparity(), &mut cols);
            for c in cols.iter().filter(|c| !c.parity && !c.skip) {
                per[c.child as usize] += c.size;
            }
        }
        (per, firsts.iter().filter(|&&x| x).count())
    }

    /// (max − min) / mean of per-child shares.
    fn spread(per: &[u64]) -> f64 {
        let mean = per.iter().sum::<u64>() as f64 / per.len() as f64;
        (*per.iter().max().unwrap() - *per.iter().min().unwrap()) as f64 / mean
    }

    #[test]
    fn default_pool_spreads_parity_over_every_disk() {
        // scenarios/default.toml: 6 × 1 TB raidz2, ashift 12, 128 KiB records, fill 0.1.
        // 128 KiB is 32 data + 16 parity = 48 sectors, a multiple of 6: a block's first
        // column only moves where a metaslab starts (2^22 sectors ≡ 4 mod 6 apart).
        let size = (1_000_000_000_000u64 >> 12 << 12) * 6;
        let tops = vec![top("raidz2-0", VdevType::Raidz2, 6, size)];
        let alloc = (size as f64 * 4.0 / 6.0 * 0.1) as u64 >> 12 << 12;
        let lo = Layout::new(&LayoutParams::fresh(alloc, 128 << 10, 12), &tops).unwrap();
        let (per, firsts) = data_column_bytes(&lo, &tops, 0);
        let sp = spread(&per);
        eprintln!("default pool: data-column bytes per disk {per:?}, spread {sp:.4}, first columns {firsts}");
        assert!(sp < 0.03, "per-disk data-column bytes {per:?}: spread {sp}");
    }

    #[test]
    fn metaslab_shift_follows_vdev_metaslab_set_size() {
        // The table in vdev.c: < 8 GB ~16 metaslabs; 8–100 GB one per 512 MB; 100 GB–3 TB
        // ~200; 3 TB–2 PB one per 16 GB; beyond, ~2^17 of them; never below 2^24.
        assert_eq!(metaslab_shift(1 << 30), 27);
        assert_eq!(metaslab_shift(64 << 30), 29);
        assert_eq!(metaslab_shift(1 << 40), 33);
        assert_eq!(metaslab_shift(6_000_000_000_000), 34);
        assert_eq!(metaslab_shift(1 << 60), 44);
        assert_eq!(metaslab_shift(64 << 20), 24);
    }

    #[test]
    fn homogeneous_stream_keeps_its_column_within_a_metaslab() {
        // 6-wide raidz2 of 64 GiB: 512 MiB metaslabs, 2^17 sectors ≡ 2 (mod 6) apart. A
        // stream of 128 KiB records (48 sectors) keeps its first column inside a
        // metaslab-sized stretch and moves 2 columns at each new one, so parity sits on
        // children {0,1}, then {2,3}, then {4,5}: all three pairs, evenly over the pool.
        let tops = vec![top("raidz2-0", VdevType::Raidz2, 6, 64 << 30)];
        let lo = Layout::new(&LayoutParams::fresh(16 << 30, 128 << 10, 12), &tops).unwrap();
        let mut by_offset: Vec<u64> = lo.traverse().filter(|b| b.kind == BlockKind::Data).map(|b| b.dvas[0].offset).collect();
        by_offset.sort_unstable();
        let col = |o: u64| (o >> 12) % 6;
        let ms = 512u64 << 20;
        let (mut at, mut last) = (vec![0u64], col(by_offset[0]));
        for &o in &by_offset[1..] {
            let c = col(o);
            if c != last {
                assert_eq!((c + 6 - last) % 6, 2, "steps by the metaslab's column step at {o}");
                at.push(o);
                last = c;
            }
        }
        // 16 GiB of data is 24 GiB of asize space: one change per 512 MiB stretch (a cycle
        // of the slot pattern, ~6 GiB here, also ends one, possibly short).
        let gaps: Vec<u64> = at.windows(2).map(|w| w[1] - w[0]).collect();
        let short = gaps.iter().filter(|&&g| g < ms).count();
        eprintln!("{} column changes, {short} stretches shorter than a metaslab", gaps.len());
        assert!((44..=56).contains(&gaps.len()), "{} column changes", gaps.len());
        assert!(short <= gaps.len() / 8, "{short} of {} stretches shorter than a metaslab", gaps.len());
        let (per, firsts) = data_column_bytes(&lo, &tops, 0);
        assert_eq!(firsts, 3);
        assert!(spread(&per) < 0.05, "{per:?}");
        // Where the step is 0 mod dcols (8 children: 2^k ≡ 0 mod 8) and the record's asize
        // is a multiple of the width (raidz3: 32 + 3·7 = 53 → 56 sectors), a homogeneous
        // fill never moves: parity stays on the first three children, as in ZFS when no
        // odd-sized allocation interleaves (the model does not interleave them; theory of
        // operation).
        let tops = vec![top("raidz3-0", VdevType::Raidz3, 8, 64 << 30)];
        let lo = Layout::new(&LayoutParams::fresh(16 << 30, 128 << 10, 12), &tops).unwrap();
        let (per, firsts) = data_column_bytes(&lo, &tops, 0);
        assert_eq!(firsts, 1);
        assert_eq!(per.iter().filter(|&&x| x == 0).count(), 3, "{per:?}");
        // A width the record does not divide rotates by itself: 5-wide raidz2, 54 sectors.
        let tops = vec![top("raidz2-0", VdevType::Raidz2, 5, 64 << 30)];
        let lo = Layout::new(&LayoutParams::fresh(16 << 30, 128 << 10, 12), &tops).unwrap();
        let (per, firsts) = data_column_bytes(&lo, &tops, 0);
        assert_eq!(firsts, 5);
        assert!(spread(&per) < 0.02, "{per:?}");
    }

    #[test]
    fn traversal_state_is_small() {
        assert!(std::mem::size_of::<Traversal>() <= 128, "{}", std::mem::size_of::<Traversal>());
        assert!(std::mem::size_of::<Block>() <= 128);
    }

    fn special(name: &str, kind: VdevType, disks: u16, size_bytes: u64) -> TopVdev {
        TopVdev { special: true, ..top(name, kind, disks, size_bytes) }
    }

    /// Special vdevs hold every metadata block (both copies, the MOS's three) and, with
    /// `special_small_blocks`, the data blocks of psize ≤ it until the class is 75 % full;
    /// the data vdevs the rest. Nothing overlaps, every range is counted, and a class too
    /// small for its share splits a lane: its first blocks stay special.
    #[test]
    fn the_special_class_holds_metadata_and_small_blocks() {
        let data = [top("raidz2-0", VdevType::Raidz2, 6, 12 << 30), top("raidz2-1", VdevType::Raidz2, 6, 12 << 30)];
        let p = |small: u64, f: f64| LayoutParams { special_small_blocks_bytes: small, ..mixed(8 << 30, f, 1) };
        for f in [0.0, 0.6] {
            let tops = [data[0].clone(), data[1].clone(), special("mirror-2", VdevType::Mirror, 2, 1 << 30)];
            // Metadata only: every metadata DVA on vdev 2, no data DVA there.
            let lo = Layout::new(&p(0, f), &tops).unwrap();
            assert_no_overlap(&lo, &tops);
            let (mut md, mut small) = (0u64, 0u64);
            for b in lo.traverse() {
                for d in b.dvas() {
                    assert_eq!(d.vdev == 2, b.kind.is_metadata(), "{b:?}");
                }
                md += u64::from(b.kind.is_metadata());
            }
            assert!(md > 1000);
            assert_eq!(lo.alloc_bytes(2), lo.allocated_ranges(2).map(|r| r.1).sum::<u64>());
            // 4 KiB and 48 KiB files (psize ≤ 64K) join them: their ≈ 740 MiB fit in 75 % of 2 GiB.
            let tops = [data[0].clone(), data[1].clone(), special("mirror-2", VdevType::Mirror, 2, 2 << 30)];
            let lo = Layout::new(&p(64 << 10, f), &tops).unwrap();
            assert_no_overlap(&lo, &tops);
            for b in lo.traverse() {
                let on_special = b.dvas().iter().all(|d| d.vdev == 2);
                assert_eq!(on_special, b.kind.is_metadata() || b.psize <= 64 << 10, "{b:?}");
                small += u64::from(b.kind == BlockKind::Data && b.psize <= 64 << 10);
            }
            assert!(small > 1000);
            // A smaller special mirror (256 MiB): metadata first, then the small blocks
            // until 75 % — the rest of them on the data vdevs, the first ones special.
            let tops = [data[0].clone(), data[1].clone(), special("mirror-2", VdevType::Mirror, 2, 256 << 20)];
            let lo = Layout::new(&p(64 << 10, f), &tops).unwrap();
            assert_no_overlap(&lo, &tops);
            let (mut first_normal, mut last_special) = (u64::MAX, 0);
            let mut special_bytes = 0;
            for b in lo.traverse() {
                let on_special = b.dvas()[0].vdev == 2;
                if b.kind.is_metadata() {
                    assert!(on_special, "{b:?}");
                } else if b.psize <= 64 << 10 {
                    if on_special {
                        last_special = last_special.max(b.index);
                    } else {
                        first_normal = first_normal.min(b.index);
                    }
                }
                special_bytes += b.dvas().iter().filter(|d| d.vdev == 2).map(|d| d.asize).sum::<u64>();
            }
            assert!(first_normal < u64::MAX && last_special > 0);
            assert!(special_bytes <= 256 << 20 && special_bytes > 3 * (256 << 20) / 4 * 9 / 10, "{special_bytes}");
            // With no reserve the small blocks fill the class, not less of it (its slot cycle
            // wastes no room).
            let lo = Layout::new(&LayoutParams { special_reserve_pct: 0, ..p(64 << 10, f) }, &tops).unwrap();
            assert_no_overlap(&lo, &tops);
            // (Within the 1 MiB runs a lane rounds to: 93 % of this small class.)
            assert!(lo.alloc_bytes(2) > (256 << 20) * 90 / 100, "{}", lo.alloc_bytes(2));
            // No indirect blocks of files on the special vdevs with zfs_user_indirect_is_special = 0.
            let tops = [data[0].clone(), data[1].clone(), special("mirror-2", VdevType::Mirror, 2, 1 << 30)];
            let lo = Layout::new(&LayoutParams { user_indirect_is_special: false, ..p(0, f) }, &tops).unwrap();
            assert_no_overlap(&lo, &tops);
            // Special: the objsets, dnode blocks and the meta-dnode's indirects; not the
            // files' indirects (nor their data).
            let mut t = lo.traverse();
            let mut files_ind = 0;
            loop {
                let c = t.cursor();
                let Some(b) = t.next() else { break };
                let file_ind = c.stage == Stage::FileInd;
                files_ind += u64::from(file_ind);
                assert_eq!(b.dvas[0].vdev == 2, b.kind.is_metadata() && !file_ind, "{b:?}");
            }
            assert!(files_ind > 100);
        }
        // Metadata that outgrows the special class (≈ 60 MiB of it here) spills to the data
        // vdevs; the class keeps what its slot cycle fits (whole 1 MiB runs per lane).
        let tops = [data[0].clone(), data[1].clone(), special("mirror-2", VdevType::Mirror, 2, 48 << 20)];
        let lo = Layout::new(&p(0, 0.0), &tops).unwrap();
        assert_no_overlap(&lo, &tops);
        let spilled = lo.traverse().filter(|b| b.kind.is_metadata() && b.dvas[0].vdev != 2).count();
        assert!(spilled > 0 && lo.alloc_bytes(2) > 24 << 20, "{spilled} {}", lo.alloc_bytes(2));
    }
}

#[cfg(test)]
mod scale {
    use super::*;
    use crate::pool::VdevType;

    /// A 1.2 PB, 100-disk pool: construction is instant, the state stays small and a walk
    /// of its first blocks is cheap. (Speed is measured in bench/, not asserted here.)
    #[test]
    fn petabyte_pool_is_cheap() {
        let tops: Vec<TopVdev> = (0..10)
            .map(|i| TopVdev { name: format!("raidz2-{i}"), kind: VdevType::Raidz2, leaves: (i * 10..i * 10 + 10).collect(), ashift: 12, size_bytes: 120 << 40, draid: None, special: false })
            .collect();
        let mut p = LayoutParams::fresh(600 << 40, 128 << 10, 12);
        p.files = vec![FileClass { size_bytes: 16 << 10, weight: 0.05 }, FileClass { size_bytes: 8 << 30, weight: 0.95 }];
        for f in [0.0, 1.0] {
            p.fragmentation = f;
            let lo = Layout::new(&p, &tops).unwrap();
            assert!(lo.summary().blocks > 4_000_000_000);
            // Memory: lanes, cycle and rotor tables only.
            assert!(lo.groups[0].pos.len() <= CYCLE_SLOTS_MAX as usize + 64 && lo.groups[0].rotor.len() <= 4096);
            let n = lo.traverse().take(2_000_000).filter(|b| b.kind == BlockKind::Data).count();
            assert!(n > 1_900_000);
            // Random access lands in range.
            let b = lo.data_block(lo.data_blocks() / 3 * 2);
            assert!(b.dvas[0].offset + b.dvas[0].asize <= tops[b.dvas[0].vdev as usize].size_bytes);
        }
    }

}

//! Every ZFS tunable ziosim models, declared once: ZFS's own name, unit, allowed range,
//! default per release (`None` = the release does not have it), and the trade-off in one
//! sentence. `ziosim tunables`, `docs/tunables.md` and scenario validation read this table.
//!
//! Defaults are piecewise over [`Release::ALL`] (chronological): an entry `(R, v)` sets the
//! default to `v` from release `R` on, until the next entry; `NA` means "not in this release".
//! Sources are `spec/zfs-model.md` §1.2, §1.3, §2.1, §2.5, §2.8, §4.1 (read from
//! `module/zfs/vdev_queue.c`, `vdev_mirror.c`, `dsl_pool.c`, `arc.c` at the tags named there).

use crate::release::Release;

/// Marks a release range in which the tunable does not exist.
pub const NA: i64 = i64::MIN;
const KIB: i64 = 1024;
const MIB: i64 = 1024 * 1024;
const GIB: i64 = 1024 * 1024 * 1024;

/// RAM of a scenario that does not set `zfs.ram` (`DEFAULTS` in `python/ziosim/scenario.py`).
/// A default derived from RAM is shown for it where no scenario gives one (`ziosim tunables`,
/// `docs/tunables.md`): the declared number of a derived tunable only marks the releases that
/// have it; [`Tunables::defaults`] computes the value.
pub const DEFAULT_RAM_BYTES: u64 = 16 << 30;

/// One tunable's declaration.
#[derive(Debug)]
pub struct TunableDecl {
    /// The C variable name, as `/sys/module/zfs/parameters/<name>` and `/etc/system` spell it.
    pub name: &'static str,
    /// Unit of the value: count, bytes, percent, ticks, ns, ms, s, bool, shift.
    pub unit: &'static str,
    pub min: i64,
    pub max: i64,
    /// Piecewise defaults over releases (see module doc).
    pub defaults: &'static [(Release, i64)],
    /// When set, the default is computed from the machine (the text says how).
    pub derived: Option<&'static str>,
    /// What raising or lowering it trades.
    pub doc: &'static str,
    /// Where the default was read.
    pub source: &'static str,
}

impl TunableDecl {
    /// The default in `r`, or `None` if `r` lacks the tunable.
    pub fn default_for(&self, r: Release) -> Option<i64> {
        let mut v = NA;
        for (from, val) in self.defaults {
            if *from <= r {
                v = *val;
            }
        }
        (v != NA).then_some(v)
    }
    /// Releases that have this tunable.
    pub fn releases(&self) -> Vec<Release> {
        Release::ALL.iter().copied().filter(|r| self.default_for(*r).is_some()).collect()
    }
}

macro_rules! tunables {
    ($( $id:ident = $name:literal, $unit:literal, [$min:expr, $max:expr],
        [$( ($rel:ident, $v:expr) ),*], $derived:expr, $doc:literal, $src:literal; )*) => {
        /// Index of a tunable in [`DECLS`] and [`Tunables`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[allow(non_camel_case_types)]
        #[repr(u16)]
        pub enum T { $($id),* }
        pub static DECLS: &[TunableDecl] = &[ $( TunableDecl {
            name: $name, unit: $unit, min: $min, max: $max,
            defaults: &[$((Release::$rel, $v)),*], derived: $derived, doc: $doc, source: $src,
        } ),* ];
    };
}

tunables! {
    // ---- pre-2013 deadline queue (§2.1) ----
    zfs_vdev_max_pending = "zfs_vdev_max_pending", "count", [1, 1000],
        [(Solaris2009, 35), (Freebsd9, 10), (Illumos2014, NA)], None,
        "I/Os outstanding per leaf; more lets the drive's NCQ reorder, fewer keeps a scrub from filling the drive queue ahead of user reads.",
        "il:c33e334fd3 (35 -> 10, 2009-10-15); VQ@zfs-0.6.2";
    zfs_vdev_min_pending = "zfs_vdev_min_pending", "count", [1, 1000],
        [(Solaris2009, 4), (Illumos2014, NA)], None,
        "Pending limit a leaf starts from before ramping toward max_pending; lower reacts faster to a burst of user reads.",
        "VQ@zfs-0.6.2";
    zfs_vdev_ramp_rate = "zfs_vdev_ramp_rate", "count", [1, 1000],
        [(Solaris2009, 2), (Illumos2014, NA)], None,
        "How fast the pending limit climbs per completion; higher reaches full depth sooner.",
        "VQ@zfs-0.6.2";
    zfs_vdev_time_shift = "zfs_vdev_time_shift", "shift", [0, 63],
        [(Solaris2009, 6), (Freebsd9, 29), (Illumos2014, NA)], None,
        "Deadline bucket = enqueue time >> shift: 29 on ns (0.537 s); solaris-2009 shifts clock ticks, 6 = 64 ticks (0.64 s at hz 100). Larger buckets sort more I/O by offset, smaller ones enforce priority sooner.",
        "snv_117 (zfs-fuse 5c5ace08, lbolt64); FreeBSD 9 (gethrtime); VQ@zfs-0.6.2, il:69962b5647^";

    // ---- 2013 scheduler classes (§1.2) ----
    zfs_vdev_max_active = "zfs_vdev_max_active", "count", [1, 100000],
        [(Illumos2014, 1000)], None,
        "Cap on I/Os outstanding per leaf over all classes; the per-class maxima bind long before the default.",
        "VQ@zfs-0.6.3..master";
    zfs_vdev_sync_read_min_active = "zfs_vdev_sync_read_min_active", "count", [1, 1000],
        [(Illumos2014, 10)], None,
        "Sync (demand) reads always allowed per leaf; higher lets NCQ reorder more reads at the cost of per-read latency.",
        "VQ@zfs-0.6.3..master";
    zfs_vdev_sync_read_max_active = "zfs_vdev_sync_read_max_active", "count", [1, 1000],
        [(Illumos2014, 10)], None,
        "Most sync reads outstanding per leaf; deeper queues raise HDD IOPS (SATF) and tail latency together.",
        "VQ@zfs-0.6.3..master";
    zfs_vdev_sync_write_min_active = "zfs_vdev_sync_write_min_active", "count", [1, 1000],
        [(Illumos2014, 10)], None,
        "Sync (ZIL) writes always allowed per leaf.",
        "VQ@zfs-0.6.3..master";
    zfs_vdev_sync_write_max_active = "zfs_vdev_sync_write_max_active", "count", [1, 1000],
        [(Illumos2014, 10)], None,
        "Most sync writes outstanding per leaf.",
        "VQ@zfs-0.6.3..master";
    zfs_vdev_async_read_min_active = "zfs_vdev_async_read_min_active", "count", [1, 1000],
        [(Illumos2014, 1)], None,
        "Prefetch reads always allowed per leaf.",
        "VQ@zfs-0.6.3..master";
    zfs_vdev_async_read_max_active = "zfs_vdev_async_read_max_active", "count", [1, 1000],
        [(Illumos2014, 3)], None,
        "Most prefetch reads per leaf; higher speeds streaming reads, lower protects demand reads.",
        "VQ@zfs-0.6.3..master";
    zfs_vdev_async_write_min_active = "zfs_vdev_async_write_min_active", "count", [1, 1000],
        [(Illumos2014, 1), (Zfs07, 2)], None,
        "Async (txg and resilver repair) writes always allowed per leaf; raising it keeps resilver writes flowing on a quiet pool.",
        "il:69962b5647; 06226b5936 (1 -> 2, zfs-0.7.0)";
    zfs_vdev_async_write_max_active = "zfs_vdev_async_write_max_active", "count", [1, 1000],
        [(Illumos2014, 10)], None,
        "Async writes per leaf when dirty data is at or above the max-dirty percentage.",
        "VQ@zfs-0.6.3..master";
    zfs_vdev_scrub_min_active = "zfs_vdev_scrub_min_active", "count", [1, 1000],
        [(Illumos2014, 1)], None,
        "Scrub/resilver reads always allowed per leaf.",
        "VQ@zfs-0.6.3..master";
    zfs_vdev_scrub_max_active = "zfs_vdev_scrub_max_active", "count", [1, 1000],
        [(Illumos2014, 2), (Zfs21, 3)], None,
        "Most scrub/resilver I/Os per leaf; higher scans faster and hurts user latency more.",
        "VQ@zfs-2.0.0 (2); backport 2080c4f27e (3, zfs-2.0.1/2.1.0)";
    zfs_vdev_removal_min_active = "zfs_vdev_removal_min_active", "count", [1, 1000],
        [(Illumos2014, NA), (Zfs08, 1)], None,
        "Device-removal copy I/Os always allowed per leaf.",
        "VQ@zfs-0.8.0";
    zfs_vdev_removal_max_active = "zfs_vdev_removal_max_active", "count", [1, 1000],
        [(Illumos2014, NA), (Zfs08, 2)], None,
        "Most device-removal copy I/Os per leaf.",
        "VQ@zfs-0.8.0";
    zfs_vdev_initializing_min_active = "zfs_vdev_initializing_min_active", "count", [1, 1000],
        [(Illumos2014, NA), (Zfs08, 1)], None,
        "zpool initialize writes always allowed per leaf.",
        "VQ@zfs-0.8.0";
    zfs_vdev_initializing_max_active = "zfs_vdev_initializing_max_active", "count", [1, 1000],
        [(Illumos2014, NA), (Zfs08, 1)], None,
        "Most zpool initialize writes per leaf.",
        "VQ@zfs-0.8.0";
    zfs_vdev_trim_min_active = "zfs_vdev_trim_min_active", "count", [1, 1000],
        [(Illumos2014, NA), (Zfs08, 1)], None,
        "TRIM commands always allowed per leaf.",
        "VQ@zfs-0.8.0";
    zfs_vdev_trim_max_active = "zfs_vdev_trim_max_active", "count", [1, 1000],
        [(Illumos2014, NA), (Zfs08, 2)], None,
        "Most TRIM commands per leaf.",
        "VQ@zfs-0.8.0";
    zfs_vdev_rebuild_min_active = "zfs_vdev_rebuild_min_active", "count", [1, 1000],
        [(Illumos2014, NA), (Zfs20, 1)], None,
        "Sequential-rebuild I/Os always allowed per leaf.",
        "VQ@zfs-2.0.0";
    zfs_vdev_rebuild_max_active = "zfs_vdev_rebuild_max_active", "count", [1, 1000],
        [(Illumos2014, NA), (Zfs20, 3)], None,
        "Most sequential-rebuild I/Os per leaf; higher rebuilds faster at the cost of user latency.",
        "VQ@zfs-2.0.0";
    zfs_vdev_async_write_active_min_dirty_percent = "zfs_vdev_async_write_active_min_dirty_percent", "percent", [0, 100],
        [(Illumos2014, 30)], None,
        "Below this share of zfs_dirty_data_max, async writes run at min_active; raising it delays txg write-out concurrency.",
        "VQ@zfs-0.6.3..master";
    zfs_vdev_async_write_active_max_dirty_percent = "zfs_vdev_async_write_active_max_dirty_percent", "percent", [0, 100],
        [(Illumos2014, 60)], None,
        "At or above this share of zfs_dirty_data_max, async writes run at max_active.",
        "VQ@zfs-0.6.3..master";
    zfs_vdev_nia_delay = "zfs_vdev_nia_delay", "count", [1, 1000],
        [(Zfs21, 5)], None,
        "Non-interactive (scrub) completions with no user I/O before a leaf counts as idle and scrub may use its full max_active.",
        "6f5aac3ca0 + dcf7044522 (zfs-2.1.0); backport 2080c4f27e (2.0.1)";
    zfs_vdev_nia_credit = "zfs_vdev_nia_credit", "count", [1, 1000],
        [(Zfs21, 5)], None,
        "Non-interactive I/Os a leaf may issue while user I/O is outstanding; higher scans faster under load, lower protects user latency.",
        "6f5aac3ca0 (zfs-2.1.0)";

    // ---- aggregation (§1.3, §2.7) ----
    zfs_vdev_aggregation_limit = "zfs_vdev_aggregation_limit", "bytes", [0, 16 * MIB],
        [(Solaris2009, 128 * KIB), (Zfs08, MIB)], None,
        "Largest span adjacent queued I/Os are merged into; bigger merges stream better but hold the disk longer per command.",
        "VQ@zfs-0.6.5 (SPA_OLD_MAXBLOCKSIZE); d4a72f2386 (1 MiB, zfs-0.8.0)";
    zfs_vdev_aggregation_limit_non_rotating = "zfs_vdev_aggregation_limit_non_rotating", "bytes", [0, 16 * MIB],
        [(Solaris2009, NA), (Zfs08, 128 * KIB)], None,
        "Aggregation limit for non-rotational leaves.",
        "1af240f3b5 (zfs-0.8.0)";
    zfs_vdev_read_gap_limit = "zfs_vdev_read_gap_limit", "bytes", [0, 16 * MIB],
        [(Solaris2009, 32 * KIB)], None,
        "Largest hole read (and discarded) to merge two reads; bigger trades wasted transfer for fewer seeks.",
        "VQ@zfs-0.6.2..master";
    zfs_vdev_write_gap_limit = "zfs_vdev_write_gap_limit", "bytes", [0, 16 * MIB],
        [(Freebsd9, 4 * KIB)], None,
        "Largest hole allowed between merged writes (filled by optional padding only).",
        "il:f94275ce20 (6854621, after snv_117); VQ@zfs-0.6.2..master";

    // ---- mirror read selection (§2.8) ----
    zfs_vdev_mirror_rotating_inc = "zfs_vdev_mirror_rotating_inc", "count", [0, 1000],
        [(Zfs07, 0)], None,
        "Load added to a rotating child whose last I/O ended exactly at this offset.",
        "MR@zfs-0.7.0..master";
    zfs_vdev_mirror_rotating_seek_inc = "zfs_vdev_mirror_rotating_seek_inc", "count", [0, 1000],
        [(Zfs07, 5)], None,
        "Load added to a rotating child that must seek far; higher keeps reads on the disk already near the data.",
        "MR@zfs-0.7.0..master";
    zfs_vdev_mirror_rotating_seek_offset = "zfs_vdev_mirror_rotating_seek_offset", "bytes", [0, 1 << 40],
        [(Zfs07, MIB)], None,
        "Distance within which a rotating child gets half the seek penalty.",
        "MR@zfs-0.7.0..master";
    zfs_vdev_mirror_non_rotating_inc = "zfs_vdev_mirror_non_rotating_inc", "count", [0, 1000],
        [(Zfs07, 0)], None,
        "Load added to a non-rotating child for a linear read.",
        "MR@zfs-0.7.0..master";
    zfs_vdev_mirror_non_rotating_seek_inc = "zfs_vdev_mirror_non_rotating_seek_inc", "count", [0, 1000],
        [(Zfs07, 1)], None,
        "Load added to a non-rotating child for a non-linear read.",
        "MR@zfs-0.7.0..master";

    // ---- scrub and resilver: legacy scan (spec §5.1; DS@zfs-0.6.2/0.6.5/0.7.13, il:44ecc5327a) ----
    zfs_top_maxinflight = "zfs_top_maxinflight", "count", [1, 100000],
        [(Freebsd9, 32), (Zfs08, NA)], None,
        "Scan zios in flight per top-level vdev; more keeps deep disk queues busy during a scrub, fewer leaves room for users.",
        "DS@zfs-0.7.13; il:44ecc5327a";
    zfs_scrub_delay = "zfs_scrub_delay", "ticks", [0, 1 << 30],
        [(Freebsd9, 4), (Zfs08, NA)], None,
        "Ticks the sync thread sleeps before each scrub read when user I/O happened within zfs_scan_idle; 0 scrubs at full speed under load.",
        "DS@zfs-0.7.13; il:44ecc5327a";
    zfs_resilver_delay = "zfs_resilver_delay", "ticks", [0, 1 << 30],
        [(Freebsd9, 2), (Zfs08, NA)], None,
        "Ticks the sync thread sleeps before each resilver read when the pool is busy; 0 resilvers at full speed under load.",
        "DS@zfs-0.7.13; il:44ecc5327a";
    zfs_scan_idle = "zfs_scan_idle", "ticks", [0, 1 << 30],
        [(Freebsd9, 50), (Zfs08, NA)], None,
        "A pool is busy if user I/O happened within this many ticks; smaller windows let a scan run undelayed between bursts.",
        "DS@zfs-0.7.13; il:44ecc5327a";
    zfs_scan_min_time_ms = "zfs_scan_min_time_ms", "ms", [0, 1 << 30],
        [(Freebsd9, 1000), (Zfs08, NA)], None,
        "Least time a scrub works in each txg before it yields to waiters or dirty data; longer scrubs faster and stretches txgs.",
        "DS@zfs-0.7.13 (renamed zfs_scrub_min_time_ms in 0.8.0)";
    zfs_scrub_min_time_ms = "zfs_scrub_min_time_ms", "ms", [0, 1 << 30],
        [(Freebsd9, NA), (Zfs08, 1000)], None,
        "Least time a scrub works in each txg before it yields; longer scrubs faster and stretches txgs.",
        "DS@zfs-0.8.0..2.3.0";
    zfs_resilver_min_time_ms = "zfs_resilver_min_time_ms", "ms", [0, 1 << 30],
        [(Freebsd9, 3000)], None,
        "Least time a resilver works in each txg before it yields; users raise it (e.g. 15000) to resilver faster under load.",
        "DS@zfs-0.7.13, DS@zfs-2.2.0";
    zfs_resilver_disable_defer = "zfs_resilver_disable_defer", "bool", [0, 1],
        [(Zfs08, 0)], None,
        "1 restarts a running resilver from the start when another disk needs one, instead of deferring it to the end.",
        "DS@zfs-0.8.0..2.3.0 (dsl_scan_sync)";
    zfs_resilver_defer_percent = "zfs_resilver_defer_percent", "percent", [0, 100],
        [(Zfs23, 10)], None,
        "A resilver less than this far along restarts to include a newly needed disk rather than deferring it.",
        "DS@zfs-2.3.0 (0d77e738e6)";
    zfs_scrub_limit = "zfs_scrub_limit", "count", [1, 100000],
        [(Solaris2009, 10), (Freebsd9, NA)], None,
        "Scan zios in flight per leaf vdev (the pool's limit is its sum over the leaves, log leaves included); more keeps deep disk queues busy during a scrub, fewer leaves room for users.",
        "il:379c004d1f vdev.c (vdev_add_child), dsl_scrub.c; still defined but unused after the 2010 dsl_scan.c (il:44ecc5327a)";
    zfs_no_scrub_io = "zfs_no_scrub_io", "bool", [0, 1],
        [(Solaris2009, 0)], None,
        "1 makes a scrub traverse without reading data: fast and useless (a known foot-gun).",
        "il:379c004d1f dsl_scrub.c; DS@zfs-0.7.13, DS@zfs-2.2.0";
    zfs_no_scrub_prefetch = "zfs_no_scrub_prefetch", "bool", [0, 1],
        [(Freebsd9, 0)], None,
        "1 stops the scan prefetching metadata it will visit next; the traversal then waits on every indirect block.",
        "DS@zfs-0.7.13, DS@zfs-2.2.0";

    // ---- scrub and resilver: sorted scan (spec §5.2; DS@zfs-0.8.0 .. DS@zfs-2.3.0) ----
    zfs_scan_legacy = "zfs_scan_legacy", "bool", [0, 1],
        [(Zfs08, 0)], None,
        "1 scans in logical order with immediate issue (no sorting): less memory, more seeking.",
        "d4a72f2386 (zfs-0.8.0)";
    zfs_scan_vdev_limit = "zfs_scan_vdev_limit", "bytes", [0, 1 << 40],
        [(Zfs08, 4 * MIB), (Zfs22, 16 * MIB)], None,
        "Scan bytes in flight per data disk of a top-level vdev; more keeps disks streaming, less protects user latency.",
        "DS@zfs-0.8.0 (4 MiB); c0aea7cf4e (16 MiB, zfs-2.2.0)";
    zfs_scan_issue_strategy = "zfs_scan_issue_strategy", "count", [0, 2],
        [(Zfs08, 0)], None,
        "Extent order while issuing: 0 automatic, 1 lowest LBA first, 2 largest (best-filled) extent first.",
        "DS@zfs-0.8.0..2.3.0";
    zfs_scan_max_ext_gap = "zfs_scan_max_ext_gap", "bytes", [0, 1 << 40],
        [(Zfs08, 2 * MIB)], None,
        "Largest hole merged into a sorted extent; bigger extents read more contiguously but queue more memory.",
        "DS@zfs-0.8.0..2.3.0";
    zfs_scan_fill_weight = "zfs_scan_fill_weight", "count", [0, 1000],
        [(Zfs08, 3)], None,
        "Weight of fill versus size when ranking extents to issue while clearing memory.",
        "DS@zfs-0.8.0..2.3.0";
    zfs_scan_mem_lim_fact = "zfs_scan_mem_lim_fact", "count", [1, 1 << 20],
        [(Zfs08, 20)], None,
        "Sort memory is capped at RAM / this factor (20 = 5 %); more memory means longer sequential issue runs.",
        "DS@zfs-0.8.0..2.3.0";
    zfs_scan_mem_lim_soft_fact = "zfs_scan_mem_lim_soft_fact", "count", [1, 1 << 20],
        [(Zfs08, 20)], None,
        "Issuing stops once sort memory falls below hard − hard/this factor (hysteresis).",
        "DS@zfs-0.8.0..2.3.0";
    zfs_scan_checkpoint_intval = "zfs_scan_checkpoint_intval", "s", [1, 1 << 30],
        [(Zfs08, 7200)], None,
        "Seconds between scan checkpoints, when queued sorted I/O is flushed so progress survives a reboot.",
        "DS@zfs-0.8.0..2.3.0";
    zfs_scan_strict_mem_lim = "zfs_scan_strict_mem_lim", "bool", [0, 1],
        [(Zfs08, 0)], None,
        "1 stops the metadata walk at the next block once sort memory reaches the hard limit, instead of checking once per txg: memory held at the limit, shorter walks.",
        "DS@zfs-0.8.0..2.3.0";

    // ---- sequential rebuild (spec §5.4; RB@zfs-2.0.0 .. 2.2.0) ----
    zfs_rebuild_max_segment = "zfs_rebuild_max_segment", "bytes", [4096, 16 * MIB],
        [(Zfs20, MIB)], None,
        "Largest chunk a sequential rebuild copies per I/O.",
        "RB@zfs-2.0.0..2.2.0";
    zfs_rebuild_queue_limit = "zfs_rebuild_queue_limit", "count", [1, 1 << 20],
        [(Zfs20, 20), (Zfs21, NA)], None,
        "Rebuild chunks in flight per top-level vdev (2.0.0 only).",
        "RB@zfs-2.0.0";
    zfs_rebuild_vdev_limit = "zfs_rebuild_vdev_limit", "bytes", [MIB, 1 << 40],
        [(Zfs21, 32 * MIB), (Zfs22, 64 * MIB)], None,
        "Rebuild bytes in flight per leaf of the top-level vdev; more rebuilds faster at user-latency cost.",
        "RB@zfs-2.1.0 (32 MiB); 973934b965 (64 MiB, zfs-2.2.0)";
    zfs_rebuild_scrub_enabled = "zfs_rebuild_scrub_enabled", "bool", [0, 1],
        [(Zfs21, 1)], None,
        "1 starts a full scrub after a sequential rebuild, to verify what it copied without checksums.",
        "RB@zfs-2.1.0..2.2.0";

    // ---- L2ARC feed thread (spec §7; l2feed.rs) ----
    l2arc_write_max = "l2arc_write_max", "bytes", [1, 1 << 40],
        [(Solaris2009, 8 * MIB), (Zfs23, 32 * MIB)], None,
        "Bytes the L2ARC feed writes to a cache device per interval once the ARC is warm; higher fills the cache faster and loads the device with more writes.",
        "arc.c@b108 (d164b20935, 2009); illumos arc.c (openzfs/openzfs 061f2c3daf); ARC@zfs-0.6.5..2.2.0 (L2ARC_WRITE_SIZE 8 MiB); 887a3c533b (32 MiB, zfs-2.3.0)";
    l2arc_headroom = "l2arc_headroom", "count", [0, 1 << 20],
        [(Solaris2009, 2), (Zfs23, 8)], None,
        "How far from the ARC's eviction end the feed looks for buffers, in feed writes (0: the whole ARC from zfs-2.0; before it, nothing is fed); buffers farther up are evicted before it sees them.",
        "arc.c@b108; ARC@zfs-0.6.5..2.2.0 (L2ARC_HEADROOM 2); 887a3c533b (8, zfs-2.3.0); 0 = no limit from ARC@zfs-2.0.0";
    l2arc_feed_secs = "l2arc_feed_secs", "s", [1, 3600],
        [(Solaris2009, 1)], None,
        "Seconds between L2ARC feeds when the last one wrote at most half of l2arc_write_max.",
        "arc.c@b108; ARC@zfs-0.6.5..2.3.0 (L2ARC_FEED_SECS)";
    l2arc_feed_min_ms = "l2arc_feed_min_ms", "ms", [0, 3_600_000],
        [(Solaris2009, 200)], None,
        "Interval between L2ARC feeds after one that wrote more than half of l2arc_write_max (with l2arc_feed_again); lower feeds a busy ARC faster.",
        "arc.c@b108; ARC@zfs-0.6.5..2.3.0 (L2ARC_FEED_MIN_MS)";
    l2arc_feed_again = "l2arc_feed_again", "bool", [0, 1],
        [(Solaris2009, 1)], None,
        "1 feeds again after l2arc_feed_min_ms when the last feed wrote more than half its target, instead of waiting l2arc_feed_secs.",
        "arc.c@b108; ARC@zfs-0.6.5..2.3.0 l2arc_write_interval";
    l2arc_norw = "l2arc_norw", "bool", [0, 1],
        [(Solaris2009, 1), (Zfs065, 0)], None,
        "1 sends L2ARC hits to the pool's disks while their cache device is being fed (no reads during writes); 0 reads the cache device anyway.",
        "arc.c@b108 and illumos arc.c (B_TRUE; FreeBSD's copy too, vfs.zfs.l2arc_norw); c93504f03a (B_FALSE, ZoL 0.6.2, 2013-07)";

    // ---- prefetch (dmu_zfetch, spec §7) ----
    zfs_prefetch_disable = "zfs_prefetch_disable", "bool", [0, 1],
        [(Solaris2009, 0)], None,
        "1 turns off predictive prefetch: sequential reads then wait on every record, random reads lose nothing.",
        "ZF@zfs-0.8.0..2.3.0";
    zfetch_max_distance = "zfetch_max_distance", "bytes", [0, 1 << 31],
        [(Solaris2009, NA), (Zfs07, 8 * MIB), (Zfs22, 64 * MIB)], None,
        "How far ahead of a sequential stream prefetch reads; farther streams faster and holds more ARC and disk queue.",
        "ZF@zfs-0.7.0, 0.8.0 (8 MiB); ZF@zfs-2.2.0 (64 MiB)";
    zfetch_min_distance = "zfetch_min_distance", "bytes", [0, 1 << 31],
        [(Solaris2009, NA), (Zfs22, 4 * MIB)], None,
        "A stream's prefetch distance doubles per hit up to this, then grows by 1/8 only when the reader catches up with its prefetch.",
        "ZF@zfs-2.2.0, 2.3.0";
    zfetch_block_cap = "zfetch_block_cap", "count", [1, 1 << 20],
        [(Solaris2009, 256), (Zfs07, NA)], None,
        "Blocks a stream of the old prefetcher reads ahead of the reader, in bursts (256 blocks of 128K: 32-64 MiB ahead); more streams faster and holds more ARC.",
        "dmu_zfetch.c@zfs-0.6.5 and illumos il:d3d50737e5, il:69962b5647";
    zfetch_max_streams = "zfetch_max_streams", "count", [1, 1 << 16],
        [(Solaris2009, 8)], None,
        "Sequential streams tracked per file; more lets more readers of one file each be prefetched.",
        "dmu_zfetch.c@zfs-0.6.5; ZF@zfs-0.7.0..2.3.0";
    zfetch_min_sec_reap = "zfetch_min_sec_reap", "s", [0, 1 << 20],
        [(Solaris2009, 2), (Zfs22, 1)], None,
        "Idle seconds before a stream may be recycled for a new one (before 2.2: idle more than this many whole seconds).",
        "dmu_zfetch.c@zfs-0.6.5; ZF@zfs-0.7.0..2.1.0 (2), ZF@zfs-2.2.0 (1)";
    zfetch_max_sec_reap = "zfetch_max_sec_reap", "s", [0, 1 << 20],
        [(Solaris2009, NA), (Zfs22, 2)], None,
        "Idle seconds after which a stream is reused for a new one whatever the cap.",
        "ZF@zfs-2.2.0, 2.3.0";

    // ---- dirty data (drives async-write concurrency, §2.5 and §4.1) ----
    zfs_dirty_data_max_percent = "zfs_dirty_data_max_percent", "percent", [1, 100],
        [(Illumos2014, 10)], None,
        "zfs_dirty_data_max as a share of RAM when not set directly.",
        "ARC@zfs-0.6.3, ARC@zfs-2.2.0";
    zfs_dirty_data_max = "zfs_dirty_data_max", "bytes", [MIB, 1 << 50],
        [(Illumos2014, 4 * GIB)], Some("min(RAM x zfs_dirty_data_max_percent / 100, zfs_dirty_data_max_max)"),
        "Dirty data a pool may hold before writers block; more absorbs bursts, less bounds data at risk and txg length.",
        "ARC@zfs-0.6.3..2.2.0 arc_init";
    zfs_dirty_data_max_max = "zfs_dirty_data_max_max", "bytes", [MIB, 1 << 50],
        [(Illumos2014, 4 * GIB), (Zfs065, 4 * GIB)], Some("illumos: 4 GiB; zfs-0.6.5: 25% of RAM; zfs-0.7+: min(4 GiB, 25% of RAM)"),
        "Upper bound on zfs_dirty_data_max.",
        "il:69962b5647 DP; ARC@zfs-0.6.5; ARC@zfs-0.7.0";
    zfs_txg_timeout = "zfs_txg_timeout", "s", [1, 3600],
        [(Solaris2009, 30), (Freebsd9, 5)], None,
        "Seconds between txg syncs when nothing else forces one; longer batches more writes and lengthens the window of data at risk.",
        "il:1ab7f2ded0 (30 s, 2008); il:44ecc5327a (5 s, 2010-06-08)";

    // ---- 2013 write throttle and txg kick (§4.1, §4.2; txg.rs) ----
    zfs_dirty_data_sync = "zfs_dirty_data_sync", "bytes", [0, 1 << 50],
        [(Illumos2014, 64 * MIB), (Zfs08, NA)], None,
        "Pool-wide dirty data that starts a txg sync before the timeout; lower syncs smaller txgs more often, higher batches more writes.",
        "il:69962b5647 DP; DP@zfs-0.6.3..0.7.13 (replaced by zfs_dirty_data_sync_percent, OpenZFS 9617 dfbe267503)";
    zfs_dirty_data_sync_percent = "zfs_dirty_data_sync_percent", "percent", [0, 100],
        [(Illumos2014, NA), (Zfs08, 20)], None,
        "Share of zfs_dirty_data_max that starts a txg sync early (pool-total dirty up to 2.1, the open txg's own dirty from 2.2); lower bounds txg size and data at risk.",
        "DP@zfs-0.8.0, DP@zfs-2.1.0 (pool total); 50e09eddd0 / DP@zfs-2.2.0 (per txg)";
    zfs_delay_min_dirty_percent = "zfs_delay_min_dirty_percent", "percent", [0, 100],
        [(Illumos2014, 60)], None,
        "Dirty share of zfs_dirty_data_max above which every write is delayed; lower throttles sooner and smooths latency, higher lets bursts through at full speed.",
        "DP@zfs-0.6.3..master";
    zfs_delay_scale = "zfs_delay_scale", "ns", [0, 1 << 40],
        [(Illumos2014, 500_000)], None,
        "Delay per write at the midpoint of the throttle curve (80 % dirty by default); higher throttles harder, giving ~1e9/scale writes/s there.",
        "DP@zfs-0.6.3..master";
    zfs_delay_max_ns = "zfs_delay_max_ns", "ns", [0, 1 << 40],
        [(Illumos2014, 100_000_000), (Zfs22, NA)], None,
        "Cap on one write's throttle delay; a static constant of 100 ms from 2.2 (not settable).",
        "TX@zfs-0.6.3 (tunable); TX@zfs-2.2.0 (static const)";
    zfs_wrlog_data_max = "zfs_wrlog_data_max", "bytes", [MIB, 1 << 50],
        [(Zfs22, 8 * GIB)], Some("2 x zfs_dirty_data_max"),
        "Bytes of logged writes (ZIL) not yet synced before writes are throttled as if dirty data were high; a txg logging 15 % of it syncs early.",
        "ARC@zfs-2.2.0 (a7bd20e309); TX@zfs-2.2.0 dmu_tx_delay; DP@zfs-2.2.0 dsl_pool_wrlog_count";

    // ---- pre-2013 write throttle (§4.2 'Pre-2013'; txg.rs) ----
    zfs_txg_synctime_ms = "zfs_txg_synctime_ms", "ms", [1, 3_600_000],
        [(Solaris2009, 5000), (Freebsd9, 1000), (Illumos2014, NA)], None,
        "Target duration of a txg sync: the per-txg write limit is measured sync throughput x this; longer lets more data into each txg.",
        "DP@zfs-0.6.2 (illumos 2010-2013; 1000 from il:44ecc5327a, 2010-06); solaris-2009: dsl_pool.c@il:379c004d1f zfs_txg_synctime = 5 (seconds; renamed _ms = 5000 by il:bf0ec83ab8)";
    zfs_write_limit_shift = "zfs_write_limit_shift", "shift", [0, 63],
        [(Solaris2009, 3), (Illumos2014, NA)], None,
        "Per-txg write limit cap = RAM >> shift (1/8 of RAM); smaller shift admits bigger txgs.",
        "DP@zfs-0.6.2";
    zfs_write_limit_min = "zfs_write_limit_min", "bytes", [0, 1 << 50],
        [(Solaris2009, 32 * MIB), (Illumos2014, NA)], None,
        "Floor of the per-txg write limit; also the limit before the first measured sync.",
        "DP@zfs-0.6.2";
    zfs_write_limit_override = "zfs_write_limit_override", "bytes", [0, 1 << 50],
        [(Solaris2009, 0), (Illumos2014, NA)], None,
        "If non-zero, a fixed per-txg write limit instead of the measured one.",
        "DP@zfs-0.6.2";
    zfs_no_write_throttle = "zfs_no_write_throttle", "bool", [0, 1],
        [(Solaris2009, 0), (Illumos2014, NA)], None,
        "1 turns the pre-2013 per-txg write limit off: writers wait for the next txg only once dirty data passes half the ARC (arc_tempreserve_space).",
        "DP@zfs-0.6.2";

    // ---- allocation throttle (alloc.rs) ----
    zio_dva_throttle_enabled = "zio_dva_throttle_enabled", "bool", [0, 1],
        [(Solaris2009, NA), (Zfs07, 1)], None,
        "1 caps each top-level vdev's spa_sync writes in flight and gives the next to a vdev with room, so faster vdevs take more; 0 spreads every txg by the rotor alone and the slowest vdev paces it.",
        "zio.c@zfs-0.7.0 (3dfb57a35e, OpenZFS 7090) .. zio.c@zfs-2.3.0";
    zfs_vdev_queue_depth_pct = "zfs_vdev_queue_depth_pct", "percent", [1, 100_000],
        [(Solaris2009, NA), (Zfs07, 1000)], None,
        "A top-level vdev's limit of spa_sync writes in flight (from 0.8 the ceiling it grows to) as % of zfs_vdev_async_write_max_active; lower moves writes to faster vdevs sooner, higher queues more to aggregate.",
        "vdev_queue.c@zfs-0.7.0 .. 2.3.0 (kernel default; 300 in userland)";
    zfs_vdev_def_queue_depth = "zfs_vdev_def_queue_depth", "count", [1, 100_000],
        [(Solaris2009, NA), (Zfs08, 32)], None,
        "spa_sync writes in flight per top-level vdev and allocator at the start of each txg; each completed write raises it by one up to the zfs_vdev_queue_depth_pct ceiling.",
        "vdev_queue.c@zfs-0.8.0 (492f64e941, OpenZFS 9112) .. 2.3.0; a Linux module parameter from 2.2 (ece7ab7e7d), a FreeBSD sysctl (vfs.zfs.vdev.def_queue_depth) from 2.0";
    spa_num_allocators = "spa_num_allocators", "count", [1, 1 << 10],
        [(Solaris2009, NA), (Zfs23, 4)], None,
        "Allocators, each with its own queue and limits for spa_sync writes, read at pool import; 2.3 uses min(this, CPUs / 4), and ziosim takes 16 CPUs: at most 4.",
        "spa_misc.c@zfs-2.3.0 (645b833079); 4, fixed, in 0.8 .. 2.2";

    // ---- the special allocation class (layout.rs, sync_alloc.rs) ----
    zfs_special_class_metadata_reserve_pct = "zfs_special_class_metadata_reserve_pct", "percent", [0, 100],
        [(Illumos2014, NA), (Zfs08, 25)], None,
        "Share of the special vdevs kept for metadata: file blocks of special_small_blocks or less go there only while the class is below 100 − this % full; lower lets more small blocks onto the SSDs and risks metadata spilling to the data vdevs.",
        "spa_misc.c@zfs-0.8.0 .. 2.3.0 (spa_preferred_class)";
    zfs_user_indirect_is_special = "zfs_user_indirect_is_special", "bool", [0, 1],
        [(Illumos2014, NA), (Zfs08, 1)], None,
        "1 puts the indirect blocks of files and volumes on the special vdevs with the other metadata; 0 leaves them on the data vdevs, beside the data they point to.",
        "spa_misc.c@zfs-0.8.0 .. 2.3.0 (spa_preferred_class)";

    // ---- ZIL (§6; zil.rs) ----
    zfs_immediate_write_sz = "zfs_immediate_write_sz", "bytes", [0, 1 << 30],
        [(Solaris2009, 32 * KIB)], None,
        "Writes at least this large (no SLOG) are logged indirectly: the block is written in place and the log holds a pointer; higher puts more data through the log.",
        "ZL@zfs-0.6.5, ZL@zfs-0.7.0, ZL@zfs-2.2.0";
    zvol_immediate_write_sz = "zvol_immediate_write_sz", "bytes", [0, 1 << 30],
        [(Freebsd9, 32 * KIB)], None,
        "A zvol whose volblocksize is above this (no SLOG) logs full-block writes indirectly: the block is written in place and the log holds a pointer.",
        "zvol.c zvol_log_write (illumos 2012–2014, ZL@zfs-0.6.5, ZL@zfs-0.7.0, ZL@zfs-2.2.0)";
    zil_slog_limit = "zil_slog_limit", "bytes", [0, 1 << 40],
        [(Freebsd9, MIB), (Zfs07, NA)], None,
        "A commit larger than this (with a commit list over twice it) writes its log blocks to the main pool instead of the SLOG, sparing the SLOG bulk data.",
        "il d48e086f56 (Oct 2009, after solaris-2009) USE_SLOG; ZIL@zfs-0.6.5; removed by OpenZFS 7578 (zfs-0.7.0)";
    zil_slog_bulk = "zil_slog_bulk", "bytes", [0, 1 << 40],
        [(Zfs07, 768 * KIB), (Zfs23, 64 * MIB)], None,
        "Log blocks of a commit past this many bytes go to the SLOG at ASYNC_WRITE priority so one bulk writer cannot starve small fsyncs.",
        "ZIL@zfs-0.7.0 (OpenZFS 7578); c0e58995e3 (64 MiB, zfs-2.3.0)";
    zfs_commit_timeout_pct = "zfs_commit_timeout_pct", "percent", [0, 100],
        [(Zfs08, 5), (Zfs23, 10)], None,
        "A committer waits up to this share of the last log-block latency for others to fill its block; higher groups more commits per write at the cost of single-thread latency.",
        "ZIL@zfs-0.8.0 (OpenZFS 8585); ZIL@zfs-2.3.0 (10)";
    zil_min_commit_timeout = "zil_min_commit_timeout", "ns", [0, 1 << 40],
        [(Zfs22, 5000), (Zfs23, NA)], None,
        "If the commit wait would be shorter than this and the workload looks single-threaded, the log block is issued at once.",
        "ZIL@zfs-2.2.0 (0f740a4f1d); removed in 252f46be7d (zfs-2.3.0)";
    zil_maxblocksize = "zil_maxblocksize", "bytes", [4 * KIB, 16 * MIB],
        [(Zfs20, 128 * KIB)], None,
        "Largest log block; bigger blocks mean fewer log writes for big commits.",
        "ZIL@zfs-2.0.0 (f15d6a5457), ZIL@zfs-2.3.0";
    zil_maxcopied = "zil_maxcopied", "bytes", [0, 1 << 20],
        [(Zfs22, 7680)], None,
        "O_SYNC writes up to this size are copied into the log record at write time; larger ones are copied at commit time.",
        "ZIL@zfs-2.2.0 (66b81b3497 backport)";
    zfs_nocacheflush = "zfs_nocacheflush", "bool", [0, 1],
        [(Solaris2009, 0)], None,
        "1 skips disk cache flushes (ZIL and txg): faster sync writes, data loss on power failure unless every device has power-loss protection.",
        "ZIL@zfs-0.7.13 (zil.c); VD@zfs-0.8.0 (vdev.c, all flushes)";
    zil_nocacheflush = "zil_nocacheflush", "bool", [0, 1],
        [(Zfs08, 0)], None,
        "1 skips the cache flush after ZIL writes only; safe only on log devices with power-loss protection.",
        "ZIL@zfs-0.8.0";
    zil_disable = "zil_disable", "bool", [0, 1],
        [(Solaris2009, 0), (Freebsd9, NA)], None,
        "1 (read at mount) removes the intent log: sync requests return at once and acknowledged data is lost back to the last txg on a crash.",
        "il:55da60b91d^ zfs_vfsops.c, zvol.c (removed 2010-05-03, PSARC/2010/108)";
}

/// Resolved tunable values for one run (release defaults plus scenario overrides).
#[derive(Clone, Debug)]
pub struct Tunables {
    pub release: Release,
    vals: Vec<i64>,
}

/// A user mistake in a tunable override: one line naming the field, value and what is allowed.
#[derive(Clone, Debug, PartialEq)]
pub struct TunableError(pub String);

/// `allmem * percent / 100`, multiplied first as `arc_init` does (arc.c@zfs-2.2.0): on
/// 16 GiB that is 1717986918 for 10 %, where dividing first gave 1717986910.
fn pct_of(ram: i64, pct: i64) -> i64 {
    (ram as i128 * pct as i128 / 100).min(i64::MAX as i128) as i64
}

impl Tunables {
    /// Release defaults; `ram_bytes` feeds the derived defaults.
    pub fn defaults(release: Release, ram_bytes: u64) -> Tunables {
        let mut vals: Vec<i64> = DECLS.iter().map(|d| d.default_for(release).unwrap_or(NA)).collect();
        let ram = ram_bytes.min(i64::MAX as u64) as i64;
        let quarter = ram / 4;
        let max_max = if release >= Release::Zfs07 {
            quarter.min(4 * GIB)
        } else if release >= Release::Zfs065 {
            quarter
        } else {
            4 * GIB
        };
        vals[T::zfs_dirty_data_max_max as usize] = max_max.max(MIB);
        let pct = vals[T::zfs_dirty_data_max_percent as usize];
        let pct = if pct == NA { 10 } else { pct };
        vals[T::zfs_dirty_data_max as usize] = pct_of(ram, pct).min(max_max).max(MIB);
        if vals[T::zfs_wrlog_data_max as usize] != NA {
            vals[T::zfs_wrlog_data_max as usize] = 2 * vals[T::zfs_dirty_data_max as usize];
        }
        Tunables { release, vals }
    }

    /// Release defaults with the scenario's load-time overrides: the values derived at module
    /// load (`zfs_dirty_data_max` from the percent and `zfs_dirty_data_max_max`, arc.c
    /// `arc_init`; `zfs_wrlog_data_max` = 2 × dirty, `dmu_objset_init`) follow the overrides
    /// they derive from unless themselves overridden. A `set` action later changes only the
    /// tunable it names, as a live write of a module parameter does.
    pub fn at_load<'a>(
        release: Release,
        ram_bytes: u64,
        overrides: impl IntoIterator<Item = (&'a String, &'a i64)>,
    ) -> Result<Tunables, TunableError> {
        let mut t = Tunables::defaults(release, ram_bytes);
        let mut given = Vec::new();
        for (k, v) in overrides {
            t.set(k, *v)?;
            given.push(k.as_str());
        }
        let has = |n: &str| given.contains(&n);
        if !has("zfs_dirty_data_max") && (has("zfs_dirty_data_max_percent") || has("zfs_dirty_data_max_max")) {
            let ram = ram_bytes.min(i64::MAX as u64) as i64;
            let pct = t.try_get(T::zfs_dirty_data_max_percent).unwrap_or(10);
            let max_max = t.get(T::zfs_dirty_data_max_max);
            t.vals[T::zfs_dirty_data_max as usize] = pct_of(ram, pct).min(max_max).max(MIB);
        }
        if !has("zfs_wrlog_data_max") && t.try_get(T::zfs_wrlog_data_max).is_some() {
            t.vals[T::zfs_wrlog_data_max as usize] = 2 * t.get(T::zfs_dirty_data_max);
        }
        Ok(t)
    }

    /// Value of a tunable this release has. Panics if the release lacks it (a model bug:
    /// a model must only read tunables of its own era).
    #[inline]
    pub fn get(&self, t: T) -> i64 {
        let v = self.vals[t as usize];
        assert!(v != NA, "{} read in release {} which lacks it", DECLS[t as usize].name, self.release.key());
        v
    }

    /// Value, or `None` if this release lacks the tunable.
    pub fn try_get(&self, t: T) -> Option<i64> {
        self.try_get_index(t as usize)
    }

    /// Value of `DECLS[i]`, or `None` if this release lacks it.
    pub fn try_get_index(&self, i: usize) -> Option<i64> {
        let v = self.vals[i];
        (v != NA).then_some(v)
    }

    /// Set by ZFS name, with range and release checks.
    pub fn set(&mut self, name: &str, value: i64) -> Result<(), TunableError> {
        let Some(i) = DECLS.iter().position(|d| d.name == name) else {
            let hint = nearest(name).map(|n| format!(" (hint: did you mean {n}?)")).unwrap_or_default();
            return Err(TunableError(format!("zfs.tunables.{name}: unknown tunable{hint}")));
        };
        let d = &DECLS[i];
        if d.default_for(self.release).is_none() {
            let have: Vec<&str> = d.releases().iter().map(|r| r.key()).collect();
            return Err(TunableError(format!(
                "zfs.tunables.{name}: release {} does not have this tunable; releases that do: {}",
                self.release.key(),
                have.join(", ")
            )));
        }
        if value < d.min || value > d.max {
            return Err(TunableError(format!(
                "zfs.tunables.{name}: {value} is out of range; allowed {}..={} {}",
                d.min, d.max, d.unit
            )));
        }
        self.vals[i] = value;
        Ok(())
    }

    /// (name, value) for every tunable this release has, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, i64)> + '_ {
        DECLS.iter().zip(self.vals.iter()).filter(|(_, v)| **v != NA).map(|(d, v)| (d.name, *v))
    }
}

/// The declared name closest to `name` by edit distance, if reasonably close.
pub fn nearest(name: &str) -> Option<&'static str> {
    let best = DECLS.iter().map(|d| (edit_distance(name, d.name), d.name)).min()?;
    (best.0 <= name.len().max(4) / 2).then_some(best.1)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let c = if a[i - 1] == b[j - 1] { 0 } else { 1 };
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + c);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn era_defaults_follow_the_source() {
        let t = |r| Tunables::defaults(r, 16 << 30);
        assert_eq!(t(Release::Zfs20).get(T::zfs_vdev_scrub_max_active), 2);
        assert_eq!(t(Release::Zfs21).get(T::zfs_vdev_scrub_max_active), 3);
        assert_eq!(t(Release::Zfs065).get(T::zfs_vdev_async_write_min_active), 1);
        assert_eq!(t(Release::Zfs07).get(T::zfs_vdev_async_write_min_active), 2);
        assert_eq!(t(Release::Zfs07).get(T::zfs_vdev_aggregation_limit), 128 * KIB);
        assert_eq!(t(Release::Zfs08).get(T::zfs_vdev_aggregation_limit), MIB);
        assert_eq!(t(Release::Solaris2009).get(T::zfs_vdev_max_pending), 35);
        assert_eq!(t(Release::Illumos2012).get(T::zfs_vdev_max_pending), 10);
        assert!(t(Release::Illumos2014).try_get(T::zfs_vdev_max_pending).is_none());
        assert!(t(Release::Zfs20).try_get(T::zfs_vdev_nia_credit).is_none());
        assert_eq!(t(Release::Solaris2009).get(T::zfs_txg_timeout), 30);
        assert_eq!(t(Release::Zfs22).get(T::zfs_txg_timeout), 5);
        // 16 GiB RAM: 10 % = 1.6 GiB, under the 4 GiB cap.
        assert_eq!(t(Release::Zfs22).get(T::zfs_dirty_data_max), (16i64 << 30) * 10 / 100);
    }

    #[test]
    fn load_time_overrides_rederive_dirty_data_max() {
        let ram = 64u64 << 30;
        let o = |k: &str, v: i64| vec![(k.to_string(), v)];
        let get = |ov: Vec<(String, i64)>| {
            let t = Tunables::at_load(Release::Zfs22, ram, ov.iter().map(|(k, v)| (k, v))).unwrap();
            (t.get(T::zfs_dirty_data_max), t.get(T::zfs_wrlog_data_max))
        };
        assert_eq!(get(vec![]), (4 * GIB, 8 * GIB));
        assert_eq!(get(o("zfs_dirty_data_max_max", GIB)), (GIB, 2 * GIB));
        assert_eq!(get(o("zfs_dirty_data_max_percent", 1)), (ram as i64 / 100, 2 * (ram as i64 / 100))); // ram × 1 / 100
        // An explicit value wins over the derivation.
        let both = vec![("zfs_dirty_data_max_max".to_string(), GIB), ("zfs_dirty_data_max".to_string(), 3 * GIB)];
        assert_eq!(get(both).0, 3 * GIB);
    }

    #[test]
    fn overrides_are_checked() {
        let mut t = Tunables::defaults(Release::Zfs20, 1 << 30);
        assert!(t.set("zfs_vdev_scrub_max_active", 8).is_ok());
        assert_eq!(t.get(T::zfs_vdev_scrub_max_active), 8);
        let e = t.set("zfs_vdev_nia_credit", 3).unwrap_err().0;
        assert!(e.contains("does not have") && e.contains("zfs-2.1"), "{e}");
        let e = t.set("zfs_vdev_scrub_max_activ", 3).unwrap_err().0;
        assert!(e.contains("did you mean zfs_vdev_scrub_max_active"), "{e}");
        let e = t.set("zfs_vdev_scrub_max_active", 0).unwrap_err().0;
        assert!(e.contains("out of range"), "{e}");
    }

    #[test]
    fn names_are_unique() {
        for (i, a) in DECLS.iter().enumerate() {
            for b in &DECLS[i + 1..] {
                assert_ne!(a.name, b.name);
            }
        }
    }
}

/// `docs/tunables.md`, generated from [`DECLS`] (a test keeps the file current).
pub fn markdown() -> String {
    let mut s = String::from(
        "# Tunables\n\nGenerated from `crates/ziosim-model/src/tunables.rs` (the one declaration); \
         do not edit by hand — `UPDATE_DOCS=1 cargo test -p ziosim-model tunables_doc` rewrites it.\n\
         Set any of them in a scenario's `[zfs] tunables = { name = value }`; a tunable the \
         scenario's release lacks is an error naming the releases that have it.\n\n",
    );
    for (i, d) in DECLS.iter().enumerate() {
        s += &format!("## `{}`\n\n{}\n\n", d.name, d.doc);
        s += &format!("- unit: {}; range: {}..={}\n", d.unit, d.min, d.max);
        if let Some(x) = d.derived {
            s += &format!("- default derived: {x}; the table gives it for {} GiB of RAM (`zfs.ram`'s default)\n", DEFAULT_RAM_BYTES >> 30);
        }
        s += &format!("- source: {}\n\n", d.source);
        let head = if d.derived.is_some() { format!("default ({} GiB RAM)", DEFAULT_RAM_BYTES >> 30) } else { "default".into() };
        s += &format!("| release | {head} |\n|---|---|\n");
        for r in Release::ALL {
            // `Tunables::defaults` fills the derived slots in every release; only those of
            // releases that have the tunable are defaults.
            let v = d.default_for(r).and_then(|v| {
                if d.derived.is_some() { Tunables::defaults(r, DEFAULT_RAM_BYTES).try_get_index(i) } else { Some(v) }
            });
            s += &format!("| {} | {} |\n", r.key(), v.map(|v| v.to_string()).unwrap_or_else(|| "—".into()));
        }
        s += "\n";
    }
    s
}

#[cfg(test)]
mod doc_tests {
    #[test]
    fn tunables_doc_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/tunables.md");
        let want = super::markdown();
        if std::env::var("UPDATE_DOCS").is_ok() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(have == want, "docs/tunables.md is stale: run UPDATE_DOCS=1 cargo test -p ziosim-model tunables_doc");
    }
}

//! The storage model wired together: workloads → ARC → pool geometry → per-leaf vdev_queue
//! → (link) → device, plus a minimal transaction-group writer and the statistics.
//!
//! Theory of operation
//! -------------------
//! * A workload makes logical operations: closed loop (N threads, each issuing its next
//!   operation `think_ns` after the previous completed) or open loop (Poisson arrivals).
//!   A read is an ARC hit with probability `arc_hit_ratio` (completes after `arc_hit_ns`,
//!   a memory copy), else an L2ARC hit with `l2arc_hit_ratio` (a SYNC_READ on a cache
//!   device), else a read of every record it covers from the pool, at SYNC_READ priority
//!   (`arc_read` → `zio_read`, ARC@zfs-2.2.0). A partial-record read reads the whole record.
//!   Once every record is in memory the copy to the caller (`arc_hit_ns` plus the bytes
//!   at one core's memcpy rate, `copy_ns`) ends the read. With a modelled ARC
//!   (`arc_size`) a record's read first reads the indirect blocks above it that the ARC
//!   lacks, one after the other (`indirect.rs`).
//! * Where blocks live: the pool's contents come from the layout generator (`layout.rs`,
//!   `pool.layout`; default a fresh fill of recordsize records). Logical record `b` of a
//!   workload is the layout's `b`-th file data block in traversal order, read from its
//!   first DVA at its psize; a sequential stream walks data blocks in that order (on an
//!   aged pool, physically scattered). Txg writes go to free space after each vdev's used
//!   end.
//! * A record read on a mirror goes to one child (`MirrorPenalty`), on raidz to its data
//!   columns, on a disk to the disk. Each leaf I/O enters its leaf's queue policy; the
//!   policy is asked for work on every enqueue and completion, and what it issues waits
//!   in the leaf's block-layer FIFO for a device tag (and the link's permission).
//! * Writes are buffered as dirty data: `txg.rs` decides admission (`dmu_tx_assign`: the
//!   2013+ delay curve or the pre-2013 per-txg write limit), when a txg syncs, and holds
//!   the data-at-risk books. A sync writes the txg's dirty records to fresh space at
//!   ASYNC_WRITE priority; dirty data falls as those writes land, so async-write
//!   concurrency (§2.5, via the queue policy) and the throttle follow it. While a scan is
//!   active (or requested) the engine syncs back to back.
//! * Latency: leaf total = completion − enqueue; disk = completion − issue; queue = the
//!   rest (`vdev_stat_update`, VD@zfs-2.2.0, spec §3). Workload latency = operation
//!   completion − arrival.
//!
//! * nfs-copy with `source`: the client's own disk (a device model owned by the client,
//!   not a pool leaf) is read cold the way GNU `cp -r` (coreutils 7.x, `copy.c`:
//!   `copy_dir` → `savedir`, `copy_internal` → `lstat`, `copy_reg` → `read`) on a 2009
//!   Linux ext3 client meets it: per directory its entry block, per 32 files an
//!   inode-table block (128-byte inodes), per file its data in one read (page-cache
//!   read-ahead) — each at a random position (a tree written over years, scattered).
//!
//! Same-time events run in scheduling order (engine rule); every random draw comes from a
//! stream named after its owner (`workload/<name>`, `disk/<leaf>`, `mirror/<vdev>`).

use crate::config::{RunConfig, WorkloadKind};
use crate::device::link::Link;
use crate::device::{AnyDevice, Cmd, Device};
use crate::layout::{FileClass, Layout, LayoutParams};
use crate::io::{flags, IoClass, IoId, IoSlab, LeafIo, Op, NO_IO, NO_LEAF, NUM_CLASSES};
use crate::pool::{Column, MirrorPenalty, TopVdev, VdevType};
use crate::release::Release;
use crate::zfetch::Zfetch;
use crate::queue::{self, Issue, QueueEnv, QueuePolicy};
use crate::series::{self, SeriesStore};
use crate::stats::{log2_bucket, FineHist, Log2Hist};
use crate::tunables::{Tunables, T};
use crate::trace::{ArcCache, ArcEra, TraceOp, TraceState};
use crate::txg::TxgAction;
use crate::zil::ZilAction;
use serde_json::{json, Value};
use std::collections::VecDeque;
use ziosim_engine::{stream_seed, Ctx, End, Limits, Model, Rng, Sim, NS_PER_S};

#[cfg(test)]
#[path = "mirror_select_tests.rs"]
mod mirror_select_tests;

/// Events of the model. Small and `Copy`.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// A device asked to be woken (stale if `gen` is not the leaf's current one).
    DevWake { leaf: u16, gen: u32 },
    /// An issued command's data finished crossing the leaf's link.
    LinkDone { leaf: u16, head: IoId },
    /// Next open-loop arrival of a workload.
    Arrival { wl: u16 },
    /// A closed-loop thread starts its next operation.
    ThreadGo { wl: u16, thread: u32 },
    /// A logical operation served from memory completes.
    OpDone { op: u32 },
    /// Sample per-leaf counters (the report interval).
    Sample,
    /// The txg engine's timer fired.
    TxgTimer,
    /// A throttled write retries `dmu_tx_assign` (after its delay or when unblocked).
    TxRetry { op: u32 },
    /// A ZIL timer (commit-waiter timeout) is due.
    ZilTimer { token: u32 },
    /// An NFS request reached the server.
    NfsServer { op: u32 },
    /// An nfs-copy client's source disk asked to be woken (stale if `gen` is not current).
    SrcWake { wl: u16, gen: u32 },
    /// A database workload's checkpoint is due (`checkpoint_timeout`).
    DbCheckpoint { wl: u16 },
    /// The checkpointer wakes to write the pages due by now (it naps 100 ms between).
    DbTick { wl: u16 },
    /// The legacy scan's delay (`zfs_scrub_delay` ticks) elapsed.
    ScanResume,
    /// The L2ARC feed thread wakes (`l2feed.rs`).
    L2Feed,
    /// Blocks of the syncing txg leave the write issue taskq (`sync_alloc.rs`).
    SyncArrive,
    /// Scenario action number `idx` is due.
    Action { idx: u32 },
    /// End of the run.
    Stop,
}

/// Dirty bytes a write of `size` bytes at `off` adds: every record of `rs` bytes it touches
/// becomes a dirty buffer of the open txg, whole.
fn dirty_bytes(off: u64, size: u64, rs: u64) -> u64 {
    ((off + size - 1) / rs - off / rs + 1) * rs
}

/// A write's copy into its dirty buffers (`dmu_write_uio` → `uiomove`), on top of the
/// per-operation `arc_hit_latency`: one core's memcpy of a DRAM-resident buffer, 5.6 GB/s
/// (25 MB in 4.5 ms on a Broadwell-E with DDR4-2133; 2.2 ms on a Skylake client —
/// stackoverflow.com/questions/39260020). A rewrite of a buffer already dirty costs the
/// writer only this; the write throttle never sees it.
const COPY_BYTES_PER_S: u64 = 5_600_000_000;

pub(crate) fn copy_ns(bytes: u64) -> u64 {
    (bytes as u128 * NS_PER_S as u128 / COPY_BYTES_PER_S as u128) as u64
}

/// The object every write of a volume goes to (`ZVOL_OBJ`); apart from the per-thread file
/// ids of a filesystem's writers.
const ZVOL_FOID: u64 = u64::MAX - 1;

// Who waits for a leaf I/O (`LeafIo::owner`): the top three bits name the waiter, the
// bits below index its table. 000 a logical op (`ops`), 001 a rebuild chunk
// (`rebuild::OWNER_REBUILD`), 010 a scan zio (`scan::OWNER_SCAN`, with
// `scan_prefetch::OWNER_SCAN_PF` below it), 011 the ZIL (`zil_ios`), 10x a prefetch
// (`pf_recs`), 11x a copy spa_sync writes (`sync_alloc::OWNER_SYNC`); `NO_IO` (nobody),
// `OWNER_TXG` (the sync thread's flushes and uberblocks) and `l2feed::OWNER_L2FEED` are
// whole values.
const OWNER_TXG: u32 = u32::MAX - 1;
/// Held on a pending-I/O counter while its writes are being submitted (see `begin_sync`).
pub(crate) const SUBMIT_GUARD: u64 = 1 << 30;
/// Owner bits of ZIL I/O (lwb, indirect and flush); the low bits index `zil_ios`.
const OWNER_ZIL: u32 = 3 << 29;
/// Owner bit of prefetch reads; the low bits index `pf_recs`.
const OWNER_PF: u32 = 1 << 31;
const OWNER_TAG_SHIFT: u32 = 29;
const OWNER_INDEX_MASK: u32 = (1 << OWNER_TAG_SHIFT) - 1;

/// What a leaf's vdev is in the pool: data (top-level vdevs and the disks replacing their
/// children), separate log, or L2ARC cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LeafRole {
    Data,
    Log,
    Cache,
}

/// One prefetched record: in flight while `pending` > 0; demand reads wait on it.
#[derive(Default)]
pub(crate) struct PfRec {
    /// Whose it is: the workload, its file and stream (`zfetch::Fetch`), the record.
    wl: u16,
    file: u32,
    gen: u64,
    b: u64,
    pending: u32,
    waiters: Vec<u32>,
    /// Its leaf reads (0.8+, for `promote_prefetch`; ids of completed ones may have been
    /// reused, so each is checked against the record's owner before use).
    ios: Vec<IoId>,
    /// A demand read raised it to SYNC_READ already.
    promoted: bool,
    /// Still in its stream's window (else freed once its reads complete).
    in_window: bool,
    /// No copy could be read: a demand read of it gets EIO.
    lost: bool,
}

const LEAF_LAT_BUCKETS: usize = 37;
const SIZE_BUCKETS: usize = 25;

/// One leaf's completions of one class. The `zpool iostat -w` latency histograms
/// (`*_wait_log2`) are derived from the fine ones at the end (`FineHist::log2`).
#[derive(Default, Clone)]
pub(crate) struct ClassStats {
    ops: u64,
    bytes: u64,
    agg_ops: u64,
    total_f: FineHist,
    disk_f: FineHist,
    queue_f: FineHist,
    // What `vdev_stat_update` records, per device command of this class (the chosen zio's
    // priority): an aggregate counts once at its own size, its members not at all
    // (`zio_vdev_io_bypass`), VD@zfs-2.2.0. `zpool iostat -w/-r` print these.
    size_ind: Log2Hist<SIZE_BUCKETS>,
    size_agg: Log2Hist<SIZE_BUCKETS>,
    cmd_total: Log2Hist<LEAF_LAT_BUCKETS>,
    cmd_disk: Log2Hist<LEAF_LAT_BUCKETS>,
    cmd_queue: Log2Hist<LEAF_LAT_BUCKETS>,
}

/// The value `single_histo_average` gives a latency: the midpoint 2^i + 2^i/2 of its log2
/// bucket i (`L_HISTO`, the 37 buckets of `zpool iostat -w`).
#[inline]
fn histo_mid(ns: u64) -> u64 {
    let b = log2_bucket(ns).min(LEAF_LAT_BUCKETS - 1);
    (1u64 << b) + ((1u64 << b) >> 1)
}

/// Consecutive members of one completed command with the same class and op: the sums
/// `Leaf::count_run` adds at once.
struct MemberRun {
    class: IoClass,
    op: Op,
    n: u64,
    bytes: u64,
}

impl MemberRun {
    fn new(io: &LeafIo) -> MemberRun {
        MemberRun { class: io.class, op: io.op, n: 0, bytes: 0 }
    }
    #[inline]
    fn add(&mut self, io: &LeafIo) {
        self.n += 1;
        self.bytes += io.size as u64;
    }
}

/// Logical reads and writes a top-level vdev issued (one per block, whatever its children
/// did), for the pre-0.7 `zpool iostat -v` rows.
#[derive(Default, Clone, Copy)]
pub(crate) struct TopCounters {
    read_ops: u64,
    write_ops: u64,
    read_bytes: u64,
    write_bytes: u64,
}

impl TopCounters {
    pub(crate) fn add(&mut self, op: Op, bytes: u64) {
        match op {
            Op::Read => {
                self.read_ops += 1;
                self.read_bytes += bytes;
            }
            Op::Write => {
                self.write_ops += 1;
                self.write_bytes += bytes;
            }
            Op::Flush => {}
        }
    }
}

/// Counters that the sampler turns into per-interval series (cumulative here).
#[derive(Default, Clone, Copy)]
pub(crate) struct LeafCounters {
    read_ops: u64,
    write_ops: u64,
    read_bytes: u64,
    write_bytes: u64,
    busy_ns: u64,
    read_total_ns: u64,
    write_total_ns: u64,
    read_disk_ns: u64,
    write_disk_ns: u64,
    /// Queue-wait sums per class.
    queue_ns: [u64; NUM_CLASSES],
    // The same waits as `zpool iostat -l` averages them: each command counted at the
    // midpoint of its log2 bucket (`single_histo_average`, ZM@zfs-2.2.0).
    read_total_mid: u64,
    write_total_mid: u64,
    read_disk_mid: u64,
    write_disk_mid: u64,
    queue_mid: [u64; NUM_CLASSES],
    class_ops: [u64; NUM_CLASSES],
    inflight_ns: u128,
}

impl LeafCounters {
    /// A zio a distributed spare passed on to a disk (`vdev_stat_update` on the spare, a
    /// leaf vdev): its operation and bytes. It never waits in the spare's own queue (the
    /// spare bypasses `vdev_queue_io`), so it adds no latency to the spare's histograms.
    #[cold]
    fn count_via(&mut self, io: &LeafIo) {
        match io.op {
            Op::Read => {
                self.read_ops += 1;
                self.read_bytes += io.size as u64;
            }
            Op::Write => {
                self.write_ops += 1;
                self.write_bytes += io.size as u64;
            }
            Op::Flush => {}
        }
    }

    /// Bytes of read commands completed (`zpool iostat` read bandwidth's sum).
    pub(crate) fn read_bytes(&self) -> u64 {
        self.read_bytes
    }

    /// The cumulative values whose per-interval deltas are the leaf's series, in the order
    /// of `series::DELTA_KEYS`, then the operations per class. A queue's wait sums the
    /// classes `zpool iostat -l` shows in its column.
    pub(crate) fn cumulative(&self) -> [u64; series::CUMULATIVE] {
        let q = |classes: &[IoClass]| -> u64 { classes.iter().map(|k| self.queue_ns[k.idx()]).sum() };
        let qm = |classes: &[IoClass]| -> u64 { classes.iter().map(|k| self.queue_mid[k.idx()]).sum() };
        let (sr, sw, sc, tr, rb) = ([IoClass::SyncRead], [IoClass::SyncWrite], [IoClass::Scrub], [IoClass::Trim], [IoClass::Rebuild]);
        let (ar, aw) = ([IoClass::AsyncRead, IoClass::Removal], [IoClass::AsyncWrite, IoClass::Initializing]);
        let mut out = [0; series::CUMULATIVE];
        let deltas = [
            self.read_ops, self.write_ops, self.read_bytes, self.write_bytes, self.busy_ns,
            self.read_total_ns, self.write_total_ns, self.read_disk_ns, self.write_disk_ns,
            q(&sr), q(&sw), q(&ar), q(&aw), q(&sc), q(&tr), q(&rb),
            self.read_total_mid, self.write_total_mid, self.read_disk_mid, self.write_disk_mid,
            qm(&sr), qm(&sw), qm(&ar), qm(&aw), qm(&sc), qm(&tr), qm(&rb),
            self.inflight_ns as u64,
        ];
        out[..deltas.len()].copy_from_slice(&deltas);
        out[deltas.len()..].copy_from_slice(&self.class_ops);
        out
    }
}

pub(crate) struct Leaf {
    pub(crate) name: String,
    pub(crate) vdev_name: String,
    pub(crate) role: LeafRole,
    pub(crate) device_name: String,
    pub(crate) dev: AnyDevice,
    pub(crate) policy: Box<dyn QueuePolicy>,
    pub(crate) blk: VecDeque<IoId>,
    pub(crate) wake_gen: u32,
    pub(crate) wake_at: Option<u64>,
    pub(crate) link: Option<(usize, usize)>,
    pub(crate) last_offset: u64,
    /// zfs-0.7 (0.7.0 … 0.7.5): `vq_lastoffset`, the end of the last read a mirror sent
    /// this leaf, set when the mirror chose it (`vdev_queue_register_lastoffset`); writes
    /// and scrub reads leave it alone. From 0.7.6 the mirror reads `last_offset` instead.
    pub(crate) mirror_last: u64,
    /// Issues handed out by the policy and not yet completed (mirror load).
    pub(crate) active: u32,
    pub(crate) rotational: bool,
    pub(crate) size_bytes: u64,
    pub(crate) classes: Vec<ClassStats>,
    pub(crate) cnt: LeafCounters,
    /// Commands handed to the disk's block layer and not yet complete (`iostat`'s in-flight
    /// count: waiting for the drive or its link, in the drive, crossing the link back) —
    /// the span `disk_wait` measures, so busy time and queue length obey Little's law with it.
    pub(crate) dev_outstanding: u32,
    pub(crate) last_change_ns: u64,
    /// The disk stopped answering (`fail` action): FAULTED, never read or written.
    pub(crate) failed: bool,
    /// A new disk being resilvered into a `replacing` vdev.
    pub(crate) resilvering: bool,
    /// Set when it replaced another disk that has now been detached.
    pub(crate) detached: bool,
    /// `zpool offline`: not read or written until `zpool online` (state OFFLINE).
    pub(crate) offline: bool,
    /// DTL_MISSING as one inclusive range of pool txgs (`admin.rs`), if any.
    pub(crate) dtl: Option<(u64, u64)>,
    /// `vdev_resilver_deferred` (0.8+): waits for the running resilver to finish.
    pub(crate) deferred: bool,
    /// `vdev_resilver_txg`: the pool txg a healing `attach`/`replace` added it in, 0 once
    /// its DTL is empty (or never attached so). From illumos 3958 a completing resilver
    /// leaves such a leaf's DTL whole when it reaches past the scan (`admin::dtl_excise`).
    pub(crate) resilver_txg: u64,
    /// `vs_scan_processed` / `vs_rebuild_processed`: repair bytes written to it by the
    /// current scan / its top-level vdev's rebuild (the `(resilvering)` note).
    pub(crate) scan_processed: u64,
    pub(crate) rebuild_processed: u64,
    /// The device's datasheet (annualized failure rate %, bits per non-recoverable read
    /// error); 0 = not published (`redundancy.rs`).
    pub(crate) reliability: (f64, f64),
    /// A dRAID distributed spare standing in (top-level vdev, spare id): a virtual leaf
    /// whose I/O at an offset goes to the child that holds that spare's share of the
    /// offset's slice (`vdev_draid_spare_io_start`, `vdev_draid_spare_get_child`).
    pub(crate) draid_spare: Option<(u16, u16)>,
}

impl Leaf {
    /// Can take writes (`vdev_writeable`): not failed, offline or detached.
    pub(crate) fn writeable(&self) -> bool {
        !self.failed && !self.offline && !self.detached
    }
    /// Writeable and not missing everything (a new disk's DTL starts at the first txg).
    pub(crate) fn holds_data(&self) -> bool {
        self.writeable() && self.dtl.is_none_or(|(lo, _)| lo > crate::admin::TXG_INITIAL)
    }

    /// The statistics of one completed member that depend on the member itself.
    #[inline]
    fn count_member(&mut self, io: &LeafIo, total: u64, queue: u64) {
        let cs = &mut self.classes[io.class.idx()];
        cs.total_f.add(total);
        cs.queue_f.add(queue);
    }

    /// The statistics of a run of members of one class and op, all with disk time `disk`.
    #[inline]
    fn count_run(&mut self, r: &MemberRun, disk: u64, agg: bool) {
        let cs = &mut self.classes[r.class.idx()];
        cs.ops += r.n;
        cs.bytes += r.bytes;
        if agg {
            cs.agg_ops += r.n;
        }
        cs.disk_f.add_n(disk, r.n);
    }

    /// One device command as `vdev_stat_update` counts it: the aggregate (or the lone zio)
    /// once, in the chosen zio's class, at the command's size; its queue time is its first
    /// member's (`aio->io_timestamp = first->io_timestamp`, vdev_queue.c at zfs-2.2.0).
    #[inline]
    fn count_command(&mut self, iss: &Issue, total: u64, queue: u64, disk: u64) {
        let cs = &mut self.classes[iss.class.idx()];
        if iss.members > 1 {
            cs.size_agg.add(iss.size);
        } else {
            cs.size_ind.add(iss.size);
        }
        cs.cmd_total.add(total);
        cs.cmd_disk.add(disk);
        cs.cmd_queue.add(queue);
        let c = &mut self.cnt;
        c.class_ops[iss.class.idx()] += 1;
        c.queue_ns[iss.class.idx()] += queue;
        c.queue_mid[iss.class.idx()] += histo_mid(queue);
        let (ops, bytes, total_ns, disk_ns, total_mid, disk_mid) = match iss.op {
            Op::Read => (&mut c.read_ops, &mut c.read_bytes, &mut c.read_total_ns, &mut c.read_disk_ns, &mut c.read_total_mid, &mut c.read_disk_mid),
            Op::Write => (&mut c.write_ops, &mut c.write_bytes, &mut c.write_total_ns, &mut c.write_disk_ns, &mut c.write_total_mid, &mut c.write_disk_mid),
            Op::Flush => return,
        };
        *ops += 1;
        *bytes += iss.size;
        *total_ns += total;
        *disk_ns += disk;
        *total_mid += histo_mid(total);
        *disk_mid += histo_mid(disk);
    }

    /// A leaf built from its device spec with the release's queue policy.
    #[allow(clippy::too_many_arguments)]
    fn new(
        name: &str,
        vdev_name: &str,
        role: LeafRole,
        device_name: &str,
        spec: &crate::device::DeviceSpec,
        seed: u64,
        release: crate::release::Release,
        hz: u32,
        tun: &Tunables,
        link: Option<(usize, usize)>,
    ) -> Leaf {
        let dev = spec.build(stream_seed(seed, &format!("disk/{name}")));
        let rotational = dev.rotational();
        let reliability = spec.reliability();
        Leaf {
            name: name.to_string(),
            vdev_name: vdev_name.to_string(),
            role,
            device_name: device_name.to_string(),
            size_bytes: dev.capacity_bytes(),
            policy: queue::build(release, hz, tun, rotational),
            dev,
            blk: VecDeque::new(),
            wake_gen: 0,
            wake_at: None,
            link,
            last_offset: 0,
            mirror_last: 0,
            active: 0,
            rotational,
            classes: vec![ClassStats::default(); NUM_CLASSES],
            cnt: LeafCounters::default(),
            dev_outstanding: 0,
            last_change_ns: 0,
            failed: false,
            resilvering: false,
            detached: false,
            offline: false,
            dtl: None,
            deferred: false,
            resilver_txg: 0,
            scan_processed: 0,
            rebuild_processed: 0,
            reliability,
            draid_spare: None,
        }
    }
}

/// A read of a workload with a modelled ARC waiting for the indirect blocks above its
/// records (`indirect.rs`): what it reads once they are in.
struct MetaChain {
    off: u64,
    size: u64,
    file: u32,
    /// A read: which of its records the ARC held (`read_arc_records` reads the others).
    /// None: a write, which goes on with `write_go`.
    in_arc: Option<Vec<bool>>,
    /// Still to read, in order (each record's chain top level first): a block this op
    /// reads (`true`; it is in `ind_inflight` from the lookup on, so others wait for it),
    /// or one another op is reading, which this op waits for (`false`).
    chain: VecDeque<(crate::layout::Block, bool)>,
    /// The block whose read this op issued and waits for, if any.
    reading: Option<u64>,
}

pub(crate) struct LogicalOp {
    pub(crate) wl: u16,
    pub(crate) thread: u32,
    pub(crate) start_ns: u64,
    pub(crate) pending: u32,
    pub(crate) bytes: u64,
    /// Dirty bytes this write adds once admitted (writes only).
    pub(crate) dirty: u64,
    pub(crate) live: bool,
    /// Write: file and offset (the ZIL logs them); when its commit was asked for.
    pub(crate) foid: u64,
    pub(crate) offset: u64,
    pub(crate) commit_ns: u64,
    /// nfs-copy: which RPC this is.
    pub(crate) rpc: NfsStep,
    /// database: which part of a transaction or checkpoint this is.
    pub(crate) db: DbOp,
    /// A record of this read had no readable copy: the op returns EIO.
    pub(crate) eio: bool,
    /// A write waiting for the reads of the records it covers only in part.
    pub(crate) rmw: bool,
    /// trace: the record's operation (`TraceOp::tag`; 0 = not a trace record).
    pub(crate) tr: u8,
}

/// A database workload's operations (`WorkloadKind::Database`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DbOp {
    None,
    /// A random page read of a transaction.
    Read,
    /// The commit: the WAL append and its fdatasync (or an O_DSYNC write).
    Wal,
    /// A checkpoint's buffered page write.
    CkptWrite,
    /// The checkpoint's fsync of the data files.
    CkptSync,
}

/// Checkpointer ops are not a session's.
const DB_CKPT_THREAD: u32 = u32::MAX;
/// The checkpointer's nap between write bursts (PostgreSQL `CheckpointWriteDelay`: 100 ms).
const DB_TICK_NS: u64 = 100_000_000;

#[derive(Clone, Copy, Default)]
pub(crate) struct DbSession {
    reads_done: u32,
    in_txn: bool,
    txn_start_ns: u64,
}

/// A database workload's sessions, WAL, dirty pages and checkpointer.
pub(crate) struct Db {
    sessions: Vec<DbSession>,
    reads_per_txn: u32,
    wal_bytes: u64,
    dirty_per_txn: u32,
    checkpoint_ns: u64,
    spread: f64,
    wal_foid: u64,
    data_foid: u64,
    wal_off: u64,
    /// Pages dirtied since the last checkpoint began.
    dirty_pages: u64,
    ckpt_active: bool,
    ckpt_pages: u64,
    ckpt_written: u64,
    ckpt_acked: u64,
    /// Pages the pacing says should be written by now.
    ckpt_due: u64,
    ckpt_syncing: bool,
    ckpt_start_ns: u64,
    checkpoints: u64,
    ckpt_pages_total: u64,
    ckpt_hist: FineHist,
    reads: FineHist,
    reads_log2: Log2Hist<64>,
    commits: FineHist,
    commits_log2: Log2Hist<64>,
}

/// The RPCs a 2009 Linux NFSv3 client sends for GNU `cp -r` (see `nfs_start`): per
/// directory MKDIR then ACCESS; per file CREATE (EXCLUSIVE, as `open(O_CREAT|O_EXCL)`)
/// and the SETATTR that follows an exclusive create, WRITEs of up to wsize, COMMIT at
/// close (close-to-open). With a source disk, the client's own cold reads come between
/// (the `Src*` steps, served by [`SrcDisk`], not by the server).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NfsStep {
    Idle,
    Mkdir,
    /// Source: the new directory's entry block (`savedir` → getdents).
    SrcDir,
    /// Source: the inode-table block holding the next files' inodes (`lstat`).
    SrcInode,
    Access,
    Create,
    Setattr,
    /// Source: the file's data (the `read` loop; page-cache read-ahead covers it).
    SrcRead,
    Write,
    Commit,
}

impl NfsStep {
    /// A metadata operation the server assigns a tx to, logs and commits (CREATE, MKDIR,
    /// SETATTR).
    fn is_meta(self) -> bool {
        matches!(self, NfsStep::Create | NfsStep::Mkdir | NfsStep::Setattr)
    }
}

#[derive(Clone, Copy)]
pub(crate) struct NfsThread {
    foid: u64,
    size: u64,
    off: u64,
    step: NfsStep,
    /// This file is the first of a new directory (its MKDIR/ACCESS are due).
    new_dir: bool,
    /// Its directory, and the names in it once this file is created.
    dir: u64,
    entries: u64,
}

/// ext3's 4 KiB block: the unit of the source's metadata reads and data rounding.
const SRC_BLOCK_BYTES: u64 = 4096;
/// ext3's 128-byte inodes: 32 per inode-table block.
const SRC_INODES_PER_BLOCK: u64 = SRC_BLOCK_BYTES / 128;

/// The nfs-copy client's own source disk (`source`): a device model of its own, driven by
/// `Ev::SrcWake` the way leaves are by `Ev::DevWake`, but owned by the client — never a
/// pool leaf, so it is in no pool report and is no pool I/O. Reads are FIFO (one per
/// thread at most); positions come from the stream `workload/<name>/source`.
pub(crate) struct SrcDisk {
    device_name: String,
    dev: AnyDevice,
    capacity_bytes: u64,
    rng: Rng,
    wake_gen: u32,
    wake_at: Option<u64>,
    /// Threads whose read waits for a device tag, in arrival order.
    waiting: VecDeque<u32>,
    /// Per thread: (offset, bytes, submitted at, data read?).
    reqs: Vec<(u64, u64, u64, bool)>,
    done: Vec<u32>,
    reads: u64,
    data_reads: u64,
    bytes: u64,
    lat: FineHist,
    lat_log2: Log2Hist<64>,
}

/// An nfs-copy workload's client: files left, per-thread file state, the network.
pub(crate) struct NfsClient {
    files_left: u64,
    files_done: u64,
    next_foid: u64,
    threads: Vec<NfsThread>,
    busy_threads: u32,
    finished_ns: Option<u64>,
    wsize_bytes: u64,
    rtt_ns: u64,
    net_bytes_per_s: u64,
    /// Directories of the tree, how many are made, how many files the tree has.
    dirs: u64,
    dirs_made: u64,
    files_total: u64,
    /// Files started in the current source directory (inode-table blocks are per 32).
    dir_files: u64,
    /// The client's source disk, if the scenario gives one.
    src: Option<SrcDisk>,
}

impl NfsClient {
    /// A copy of `files` files, which ends by itself (0 copies until the run stops).
    fn finite(&self) -> bool {
        self.files_total > 0
    }
}

/// Where an operation ended relative to the pool's scans — the three windows of the
/// classic before/during/after comparison (a DTrace `quantize()` per window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScanPhase {
    /// No scan has started yet (a requested one starts at the next txg).
    Before = 0,
    /// A scrub, resilver or rebuild is issuing I/O (not paused).
    During = 1,
    /// A scan ran and none is issuing now (finished, cancelled or paused).
    After = 2,
}

impl ScanPhase {
    pub(crate) const KEYS: [&'static str; 3] = ["before", "during", "after"];
}

/// Operation count, bytes and latency of one [`ScanPhase`] window.
#[derive(Clone, Debug, Default)]
pub(crate) struct PhaseLat {
    pub(crate) ops: u64,
    pub(crate) bytes: u64,
    pub(crate) lat: FineHist,
    pub(crate) lat_log2: Log2Hist<64>,
}

pub(crate) struct Workload {
    pub(crate) name: String,
    pub(crate) kind: WorkloadKind,
    pub(crate) rng: Rng,
    pub(crate) sizes_cdf: Vec<(u64, f64)>,
    pub(crate) rate_per_s: Option<f64>,
    pub(crate) threads: u32,
    pub(crate) think_ns: u64,
    pub(crate) region_off: u64,
    pub(crate) region_len: u64,
    pub(crate) arc_hit: f64,
    pub(crate) arc_hit_ns: u64,
    pub(crate) l2_hit: f64,
    pub(crate) start_ns: u64,
    pub(crate) stop_ns: u64,
    /// Next offset of the sequential stream (all threads of a sequential workload share
    /// one stream, like one fio job with iodepth = threads).
    pub(crate) cursor: u64,
    pub(crate) ops: u64,
    pub(crate) bytes: u64,
    pub(crate) arc_hits: u64,
    pub(crate) l2_hits: u64,
    /// Reads of this workload that returned EIO: a record had no readable copy.
    pub(crate) read_errors: u64,
    pub(crate) lat: FineHist,
    pub(crate) lat_log2: Log2Hist<64>,
    /// The same latencies split by when the operation ended: before any scan, while a
    /// scan was issuing, after it (see [`ScanPhase`]).
    pub(crate) by_phase: [PhaseLat; 3],
    pub(crate) s_ops: u64,
    pub(crate) s_bytes: u64,
    pub(crate) s_lat_sum: u128,
    pub(crate) s_lat_max: u64,
    /// This interval's latencies in log2 buckets (reset by `sample`), for the report's
    /// latency heat map.
    pub(crate) s_lat_log2: Log2Hist<64>,
    pub(crate) series: Vec<(u64, u64, u128, u64)>,
    /// Per interval: the non-empty bucket range of `s_lat_log2` as (first bucket, counts
    /// from it to the last non-empty one); `(0, [])` for an interval without operations.
    pub(crate) series_lat_log2: Vec<(u32, Vec<u64>)>,
    /// The workload's predictive prefetcher, its files' streams (`zfetch.rs`; None when
    /// `zfs_prefetch_disable` is set).
    pub(crate) pf: Option<Zfetch>,
    /// Operations in flight now, and ∫ in-flight dt (ns) for Little's law.
    pub(crate) inflight: u64,
    pub(crate) inflight_ns: u128,
    pub(crate) inflight_since_ns: u64,
    /// fsync-write: O_DSYNC instead of an fsync after each write.
    pub(crate) o_dsync: bool,
    /// The last record a write of this workload covered (its dbuf is dirty in memory).
    pub(crate) last_rec: u64,
    /// Records read because a write covered them only in part (`dmu_buf_will_dirty`).
    pub(crate) rmw_reads: u64,
    /// zvol: FUA writes; a flush after every `flush_every` writes (0: never); writes so far.
    pub(crate) fua: bool,
    pub(crate) flush_every: u32,
    pub(crate) zvol_writes: u64,
    pub(crate) nfs: Option<NfsClient>,
    pub(crate) db: Option<Db>,
    pub(crate) trace: Option<TraceState>,
    /// With `arc_size` (trace, random or sequential reads and writes): which records the
    /// ARC holds (instead of the `arc_hit` draw).
    pub(crate) arc: Option<ArcCache>,
    /// With `arc`: the indirect blocks the ARC holds (`indirect.rs`).
    pub(crate) meta: Option<crate::indirect::IndirectCache>,
}

impl Workload {
    /// Count one completed operation of `bytes` and latency `lat` (ns), ended in scan phase
    /// `phase`, in every place an operation is counted: the run's totals and histogram, the
    /// phase's, and the report interval's. Every kind of workload comes through here, so
    /// `ops`, `by_scan_phase` and the per-interval histograms always agree.
    fn count_op(&mut self, lat: u64, bytes: u64, phase: ScanPhase) {
        self.ops += 1;
        self.bytes += bytes;
        self.lat.add(lat);
        self.lat_log2.add(lat);
        let ph = &mut self.by_phase[phase as usize];
        ph.ops += 1;
        ph.bytes += bytes;
        ph.lat.add(lat);
        ph.lat_log2.add(lat);
        self.s_ops += 1;
        self.s_bytes += bytes;
        self.s_lat_sum += lat as u128;
        self.s_lat_max = self.s_lat_max.max(lat);
        self.s_lat_log2.add(lat);
    }
}

/// The minimal txg writer (see module doc).
/// Where spa_sync is within a txg.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SyncPhase {
    Data,
    Scan,
    /// spa_sync's later passes: the MOS blocks `metaslab_sync` dirtied (`spacemap.rs`).
    SpaceMaps,
    /// `vdev_config_sync`: flush every leaf written in this txg before any uberblock.
    FlushData,
    /// `vdev_uberblock_sync_list`: the uberblock into the 4 labels of every leaf of up
    /// to `SPA_SYNC_MIN_VDEVS` top-level vdevs...
    Uberblock,
    /// ...then a flush of those leaves.
    FlushUberblock,
}

/// The simulator's side of the txg engine (`txg.rs`): the engine decides admission,
/// throttle delays and when a sync starts; this struct carries out spa_sync's phases and
/// mirrors the engine's numbers the queue policy and the scan read.
pub(crate) struct Txg {
    pub(crate) eng: crate::txg::Txg,
    pub(crate) phase: SyncPhase,
    /// Mirror of the engine (refreshed after every call): dirty data of all txgs.
    pub(crate) dirty: u64,
    pub(crate) syncing: bool,
    /// The txg being synced.
    pub(crate) sync_txg: u64,
    pub(crate) sync_pending_ios: u64,
    /// The syncing txg's data phase rewrote the objsets (it had dirty records).
    pub(crate) sync_wrote_objsets: bool,
    pub(crate) last_sync_start_ns: u64,
    pub(crate) write_cursor: Vec<u64>,
    /// Per top-level vdev: (engine txg, start, end) of the space allocated in txgs whose
    /// `metaslab_sync` has not run yet — the metaslabs' `ms_allocating[]` trees, which a
    /// 2.1+ sequential rebuild tests (`rebuild.rs`). Adjacent pieces of one txg merge.
    pub(crate) ms_allocating: Vec<Vec<(u64, u64, u64)>>,
    pub(crate) sync_ns_hist: FineHist,
    /// Per leaf: written in the txg being built (data, ZIL, repair), so `vdev_config_sync`
    /// flushes it; and the leaves the uberblock went to this sync.
    pub(crate) flush_owed: Vec<bool>,
    pub(crate) ub_leaves: Vec<u16>,
    /// Cache flushes spa_sync issued (both kinds) and their share of the sync time.
    pub(crate) sync_flushes: u64,
    pub(crate) sync_flush_ns_sum: u64,
    pub(crate) flush_phase_start_ns: u64,
    /// Picks the uberblock's top-level vdevs (`random_in_range` in spa_sync).
    pub(crate) ub_rng: Rng,
    /// Writes the throttle delayed (`dmu_tx_delay`) or blocked (at dirty max / write limit).
    pub(crate) delayed_writes: u64,
    pub(crate) blocked_writes: u64,
    pub(crate) throttle_ns_sum: u64,
    /// What the syncs wrote: data records' bytes; indirect, dnode and objset blocks
    /// (every copy) and their bytes.
    pub(crate) data_bytes: u64,
    pub(crate) meta_blocks: u64,
    pub(crate) meta_bytes: u64,
    /// Of those, the space maps' (`spacemap.rs`).
    pub(crate) sm_blocks: u64,
    pub(crate) sm_bytes: u64,
}

/// Most report intervals a run keeps (each holds a sample of every series and a `zpool
/// status` snapshot); `scenario.py`'s `REPORT_SAMPLES_MAX`.
pub const REPORT_SAMPLES_MAX: usize = 20_000;

pub struct Model_ {
    pub(crate) cfg: RunConfig,
    pub(crate) tun: Tunables,
    pub(crate) ios: IoSlab,
    pub(crate) issues: Vec<Issue>,
    pub(crate) leaves: Vec<Leaf>,
    /// The txgs at which some leaf's DTL membership changes (each DTL's lo and hi + 1),
    /// kept current by the DTL updates; the sorted scan's run store needs them.
    pub(crate) dtl_cuts: Vec<u64>,
    pub(crate) tops: Vec<TopVdev>,
    /// Per top-level vdev: end of the space the layout's contents use (holes included);
    /// txg writes allocate after it.
    pub(crate) top_alloc_bytes: Vec<u64>,
    /// Where every pre-existing block lives and the order a traversal meets it.
    pub(crate) layout: Layout,
    /// Blocks dirty in each unsynced txg (what its sync writes).
    dirty_recs: crate::dirty::DirtyRecords,
    pub(crate) cache_leaves: Vec<u16>,
    pub(crate) links: Vec<Link>,
    pub(crate) link_ports: Vec<Vec<u16>>,
    pub(crate) mirror_pen: MirrorPenalty,
    pub(crate) ops: Vec<LogicalOp>,
    pub(crate) ops_free: Vec<u32>,
    pub(crate) pf_recs: Vec<PfRec>,
    pub(crate) pf_free: Vec<u32>,
    /// A demand read raises an in-flight prefetch to SYNC_READ (0.8+, `promote_prefetch`).
    pf_promote: bool,
    /// Collects the ids `submit_leaf_via` allocates while a prefetch read is being issued.
    pf_capture: Option<Vec<IoId>>,
    /// Prefetch records in flight, pool-wide (2.2's `zfetch` `io_active`).
    pf_active: u64,
    /// Scratch of `zfetch`: the reads streams ask for and the records they let go of.
    pf_fetches: Vec<crate::zfetch::Fetch>,
    pf_released: Vec<u32>,
    pf_cached: Vec<bool>,
    /// Scratch of `start_read`: per record of a read, in the ARC / held by a stream.
    rd_in_arc: Vec<bool>,
    rd_held: Vec<bool>,
    /// Reads waiting for the indirect blocks above their records (`indirect.rs`), by op.
    meta_chains: std::collections::BTreeMap<u32, MetaChain>,
    /// Scratch of `start_read_arc`: a record's parents.
    rd_parents: Vec<crate::layout::Block>,
    /// Indirect blocks (workload, traversal index) an op of a workload with a modelled ARC
    /// is reading or is about to read in its chain, and the ops waiting for them (`dbuf_read`
    /// of a dbuf in DB_READ waits for that read).
    ind_inflight: std::collections::BTreeMap<(u16, u64), Vec<u32>>,
    /// Records (workload, record) such ops are reading from the pool or the L2ARC, and the
    /// ops that found them being read (`arc_read` of a buffer in IO_IN_PROGRESS waits).
    rec_inflight: std::collections::BTreeMap<(u16, u64), Vec<u32>>,
    /// Per op, the records of `rec_inflight` it is reading (released in `data_ready`).
    op_recs: std::collections::BTreeMap<u32, Vec<u64>>,
    pub(crate) wls: Vec<Workload>,
    pub(crate) txg: Txg,
    /// File data blocks of the layout: the records foreground workloads address.
    pub(crate) nblocks: u64,
    /// Where spa_sync's new blocks go and how many may be in flight (`alloc.rs`), and the
    /// syncing txg's blocks on their way (`sync_alloc.rs`); 2.3's allocator count.
    pub(crate) alloc: crate::alloc::Allocation,
    pub(crate) sblk: crate::sync_alloc::SyncBlocks,
    pub(crate) alloc_count: usize,
    pub(crate) recordsize: u64,
    pub(crate) cols: Vec<Column>,
    /// Scratch list of (leaf, offset, size) writes, reused by the repair paths.
    pub(crate) writes: Vec<(u16, u64, u64)>,
    /// Scratch for `col_write_leaves`: (leaf, the distributed spare it went through).
    pub(crate) col_writes: Vec<(u16, u16)>,
    pub(crate) done: Vec<u32>,
    pub(crate) sample_t: Vec<u64>,
    pub(crate) leaf_ios_done: u64,
    pub(crate) stopped: bool,
    /// The host's "stop now?" ([`Run::set_interrupt_poll`]): asked every few thousand steps
    /// of a loop that can run long inside one event (the scan's metadata walk) and between
    /// events. True abandons the run where it is — its state is then no simulation result —
    /// so it never changes a run that goes on.
    interrupt_poll: Option<fn() -> bool>,
    interrupt_count: u32,
    pub(crate) interrupted: bool,
    /// When `scenario.stop = "scan-done"` scheduled its stop (the run's `end` then says so).
    pub(crate) scan_done_stop_ns: Option<u64>,
    /// When `stop = "workloads-done"` found every finite workload finished.
    workloads_done_ns: Option<u64>,
    /// Why the run stopped: `scan-done` or `stop-time` (set by `Ev::Stop`).
    stop_reason: &'static str,
    /// New disk per child of each top-level vdev while it is being replaced.
    pub(crate) replacing: Vec<Vec<Option<u16>>>,
    /// Hot spares, and the `spare-N` vdevs they stand in (`admin.rs`).
    pub(crate) spares: Vec<crate::admin::Spare>,
    pub(crate) spare_links: Vec<crate::admin::SpareLink>,
    /// When a non-scan I/O last reached a top-level vdev (`spa_last_io`, legacy scan idle test).
    pub(crate) last_user_io_ns: u64,
    /// Blocks a read found with no readable copy, as (top-level vdev, offset): the pool's
    /// persistent error log, which `zpool status` counts as "N data errors".
    pub(crate) lost_blocks: std::collections::BTreeSet<(u16, u64)>,
    /// The pool's suspension (`suspend.rs`), once it happened.
    pub(crate) suspension: Option<crate::suspend::Suspension>,
    /// When the suspension ended the run (failmode=panic, or a scan-done stop).
    pub(crate) suspend_stop_ns: Option<u64>,
    /// Log blocks that found no vdev (their commits wait for a txg sync).
    pub(crate) log_blocks_stalled: u64,
    /// Vdev ranges, as (top-level vdev, start) → end, disjoint and not touching, that a
    /// sequential rebuild could not reconstruct (`vrp_errors`) because disks had failed: the
    /// blocks there have no copy left, so reads and scans find them lost and put them in the
    /// error log.
    pub(crate) lost_ranges: std::collections::BTreeMap<(u16, u64), u64>,
    /// Each top-level vdev's redundancy over time (`redundancy.rs`).
    pub(crate) red: Vec<crate::redundancy::RedTrack>,
    /// Scenario actions carried out so far (they run in index order).
    pub(crate) actions_done: usize,
    /// The run reached `REPORT_SAMPLES_MAX` report intervals and stops.
    sample_limit: bool,
    /// The scan (scrub/resilver) of this pool, if one was ever started.
    pub(crate) scan: Option<crate::scan::Scan>,
    /// A scan asked for, set up in the sync of the first txg ≥ `scan_pending_txg`.
    pub(crate) scan_pending: Option<crate::scan::ScanFunc>,
    /// Pool txg of `scan_pending` (`scn_restart_txg`): 0 = the next txg boundary; an
    /// `attach`/`replace` sets its `dtl_max_txg` (open txg + TXG_CONCURRENT_STATES).
    pub(crate) scan_pending_txg: u64,
    /// Pool txg a `zpool attach`/`replace` waits to see synced (`spa_vdev_exit(spa, …,
    /// dtl_max_txg)`): `txg_sync_waiting` for the scan's pause rule until it syncs.
    pub(crate) cmd_wait_txg: u64,
    /// Metadata the legacy scan prefetched (`dsl_scan_prefetch`).
    pub(crate) scan_pf: crate::scan_prefetch::ScanPrefetch,
    /// The before/during/after window the pool is in, and since when; time spent in each
    /// finished window (ns). Per-window rates divide by these.
    pub(crate) phase_now: (ScanPhase, u64),
    pub(crate) phase_ns: [u64; 3],
    /// `zpool status` snapshots taken at each sample.
    pub(crate) status_snaps: crate::status_log::StatusLog,
    /// Sequential rebuilds, vdev configuration changes, DTLs, blocks written while running.
    pub(crate) admin: crate::admin::Admin,
    /// The space the run's blocks take and the frees that give it back (`space.rs`).
    pub(crate) space: crate::space::RunSpace,
    /// Scans that ended (finished, or canceled by a restart or a newer scan).
    pub(crate) scan_history: Vec<serde_json::Value>,
    pub(crate) seed: u64,
    /// The dataset's intent log and the separate log vdevs (leaf indexes per log vdev).
    pub(crate) zil: crate::zil::Zil,
    pub(crate) log_tops: Vec<Vec<u16>>,
    /// Name and type of each log vdev, as `zpool status` prints them.
    pub(crate) log_names: Vec<(String, VdevType)>,
    /// Logical I/O issued to each top-level vdev (data, then log): what a top-level vdev's own
    /// `vdev_stat` counted before 0.7 (`zpool iostat -v` of those releases), cumulative, and
    /// its samples at each report interval.
    pub(crate) top_cnt: Vec<TopCounters>,
    top_series: Vec<Vec<TopCounters>>,
    /// Per report interval, each top-level vdev's `vs_alloc` at its end (data vdevs, then
    /// log vdevs): `top_alloc_now`.
    alloc_series: Vec<Vec<u64>>,
    /// Every leaf's per-interval series (`series.rs`).
    series: SeriesStore,
    pub(crate) zil_slog_rotor: usize,
    pub(crate) zil_slog_cursor: Vec<u64>,
    /// Metaslab shift of each top-level vdev, then of each log vdev.
    ms_shift: Vec<u32>,
    /// Space maps (`spacemap.rs`) and the (txg, log vdev, metaslab) the SLOG's blocks touched.
    spacemaps: crate::spacemap::SpaceMaps,
    slog_ms: Vec<(u64, u16, u64)>,
    sm_scratch: (Vec<crate::spacemap::SmBlock>, Vec<(u64, u64)>),
    /// Layout copies the syncing txg's first rewrites freed (for its space maps).
    sm_layout_frees: Vec<crate::space::Piece>,
    pub(crate) zil_pool_rotor: usize,
    /// Per leaf: the ZIL wrote it since its last flush of it.
    pub(crate) zil_flush_owed: Vec<bool>,
    /// ZIL I/O in flight: (token, leaf I/Os outstanding), by slot.
    pub(crate) zil_ios: Vec<(u32, u32)>,
    pub(crate) zil_ios_free: Vec<u32>,
    /// Commit latency: zil_commit call → waiter woken.
    pub(crate) zil_commit_hist: FineHist,
    /// ZIL cache flushes completed (leaf flushes of `zil_flush_vdevs`) and their latency.
    pub(crate) flushes: u64,
    pub(crate) flush_hist: FineHist,
    /// Data at risk as of the last sample or the stop.
    pub(crate) risk: crate::txg::RiskStats,
    /// Log and cache devices that fail or go offline (`aux_fail.rs`).
    pub(crate) aux: crate::aux_fail::AuxState,
    /// The L2ARC feed thread (`l2feed.rs`).
    pub(crate) l2: crate::l2feed::L2Feed,
}

/// The public model type.
pub type StorageModel = Model_;

fn err<T>(s: String) -> Result<T, String> {
    Err(s)
}

/// The pool's contents from `pool.layout` (default: `LayoutParams::fresh`), as the
/// release that wrote them (`pool.layout.written_by`, default the scenario's) left them:
/// its indirect block size (16 KiB before 0.7) and its rotor (`metaslab_aliquot` 512 KiB ×
/// children to 2.1, 1 MiB × data disks from 2.2).
fn build_layout(cfg: &RunConfig, tops: &[TopVdev], tun: &Tunables) -> Result<Layout, String> {
    let p = &cfg.pool;
    let mut params = LayoutParams::fresh(p.allocated_bytes, p.recordsize_bytes, p.ashift);
    params.seed = cfg.seed;
    // A volume's blocks are DMU_OT_ZVOL, which `DMU_OT_IS_FILE` leaves out: no
    // special_small_blocks for them (`dmu_write_policy`, dmu.c@zfs-0.8.0 … @zfs-2.3.0).
    params.special_small_blocks_bytes = if cfg.is_volume() { 0 } else { cfg.special_small_blocks_bytes };
    params.special_reserve_pct = tun.try_get(T::zfs_special_class_metadata_reserve_pct).unwrap_or(25).clamp(0, 100) as u32;
    params.user_indirect_is_special = tun.try_get(T::zfs_user_indirect_is_special).unwrap_or(1) != 0;
    let writer = p.layout.as_ref().and_then(|l| l.written_by).unwrap_or(cfg.release);
    params.indblkshift = crate::layout::indblkshift(writer);
    if writer < Release::Zfs22 {
        params.metaslab_aliquot_bytes = 512 << 10;
        params.aliquot_per_data_disk = false;
    }
    if let Some(l) = &p.layout {
        params.fragmentation = l.fragmentation;
        params.compression_ratio = l.compression_ratio;
        params.seed = l.seed.unwrap_or(cfg.seed);
        if !l.files.is_empty() {
            params.files = l.files.iter().map(|&(size_bytes, weight)| FileClass { size_bytes, weight }).collect();
        }
    }
    params.validate().map_err(|e| format!("pool.{e}"))?;
    Layout::new(&params, tops).map_err(|e| format!("pool.layout: {e}"))
}

impl Model_ {
    pub fn new(mut cfg: RunConfig) -> Result<Model_, String> {
        let tun = Tunables::at_load(cfg.release, cfg.ram_bytes, &cfg.tunables).map_err(|e| e.0)?;
        let seed = cfg.seed;
        let mut links = Vec::new();
        let mut link_names: Vec<String> = Vec::new();
        for (name, lp) in &cfg.links {
            lp.validate().map_err(|e| format!("links.{name}.{e}"))?;
            link_names.push(name.clone());
        }
        let mut leaves: Vec<Leaf> = Vec::new();
        let mut tops = Vec::new();
        let ashift = cfg.pool.ashift;
        let mut link_ports: Vec<Vec<u16>> = vec![Vec::new(); link_names.len()];
        let mut add_leaf = |leaves: &mut Vec<Leaf>, d: &crate::config::DiskConfig, vdev_name: &str, role: LeafRole| -> Result<u16, String> {
            let idx = leaves.len() as u16;
            let link = match &d.link {
                Some(l) => {
                    let li = link_names.iter().position(|n| n == l).unwrap();
                    link_ports[li].push(idx);
                    Some((li, link_ports[li].len() - 1))
                }
                None => None,
            };
            leaves.push(Leaf::new(&d.name, vdev_name, role, &d.device, &cfg.devices[&d.device], seed, cfg.release, cfg.hz, &tun, link));
            Ok(idx)
        };
        // Data vdevs, then the special class's (vdev ids follow `zpool create`'s order:
        // `tank raidz2 … special mirror c d` makes raidz2-0 and mirror-1).
        let ndata = cfg.pool.vdevs.len();
        for (i, v) in cfg.pool.tops().enumerate() {
            let special = i >= ndata;
            let field = if special { format!("pool.special[{}]", i - ndata) } else { format!("pool.vdevs[{i}]") };
            let draid = v.draid(ashift).map_err(|e| format!("{field}: {e}"))?.map(std::sync::Arc::new);
            let name = match &draid {
                Some(d) => format!("{}-{}", d.type_name(), i),
                None if v.kind == VdevType::Disk => v.disks[0].name.clone(),
                None => format!("{}-{}", v.kind.label(), i),
            };
            let mut idxs = Vec::new();
            for d in &v.disks {
                idxs.push(add_leaf(&mut leaves, d, &name, LeafRole::Data)?);
            }
            let min_cap = idxs.iter().map(|&l| leaves[l as usize].size_bytes).min().unwrap();
            // Leave the front 4 MiB for labels/boot block (VDEV_LABEL_START_SIZE) — ignored
            // here; usable size rounded down to whole sectors per child.
            let per_child = min_cap >> ashift << ashift;
            let size_bytes = match (&draid, v.kind) {
                (Some(d), _) => d.vdev_bytes(per_child),
                (None, VdevType::Disk | VdevType::Mirror) => per_child,
                _ => per_child * idxs.len() as u64,
            };
            tops.push(TopVdev { name, kind: v.kind, leaves: idxs, ashift, size_bytes, draid, special });
        }
        let mut cache_leaves = Vec::new();
        for d in &cfg.pool.cache {
            cache_leaves.push(add_leaf(&mut leaves, d, "cache", LeafRole::Cache)?);
        }
        let mut log_tops = Vec::new();
        // Log vdevs are top-level vdevs too, numbered after the data vdevs (`zpool create
        // tank mirror a b log mirror c d` makes mirror-0 and mirror-1); a lone disk goes by
        // its own name, as zpool status prints it.
        let mut log_names = Vec::new();
        for (k, v) in cfg.pool.log.iter().enumerate() {
            let name = if v.kind == VdevType::Disk {
                v.disks[0].name.clone()
            } else {
                format!("{}-{}", v.kind.label(), tops.len() + k)
            };
            let mut idxs = Vec::new();
            for d in &v.disks {
                idxs.push(add_leaf(&mut leaves, d, &name, LeafRole::Log)?);
            }
            log_tops.push(idxs);
            log_names.push((name, v.kind));
        }
        for (li, name) in link_names.iter().enumerate() {
            links.push(Link::new(cfg.links[name].clone(), link_ports[li].len()));
        }

        // Pool contents: the layout generator places every block (fresh fill by default).
        let rs = cfg.pool.recordsize_bytes;
        let layout = build_layout(&cfg, &tops, &tun)?;
        let nblocks = layout.data_blocks();
        // `mg_aliquot` of each top-level vdev (`metaslab_group_create`/`_activate`):
        // `metaslab_aliquot` (512 KiB, 1 MiB from 2.2) × its children to 2.1, × its data
        // disks from 2.2 (c55b293287; a mirror counts one), in asize bytes.
        let z22 = cfg.release >= Release::Zfs22;
        let aliquot: u64 = if z22 { 1 << 20 } else { 512 << 10 };
        let mg_aliquot: Vec<u64> = tops.iter().map(|t| aliquot * crate::layout::aliquot_multiplier(t, z22)).collect();
        let special_tops: Vec<bool> = tops.iter().map(|t| t.special).collect();
        // spa_alloc_count (2.3): MAX(MIN(spa_num_allocators, ncpus / spa_cpus_per_allocator
        // (4)), 1), read when the pool is imported; the model takes 16 CPUs, so at most 4.
        let alloc_count = tun.try_get(T::spa_num_allocators).unwrap_or(4).clamp(1, 16 / 4) as usize;
        // New txg writes go to free space after the pre-existing contents of each vdev.
        // (dRAID allocates whole stripes from a stripe-aligned start, `vdev_draid_get_astart`.)
        let top_alloc_bytes: Vec<u64> = (0..tops.len())
            .map(|t| {
                let end = layout.used_end_bytes(t);
                tops[t].draid.as_ref().map_or(end, |d| d.astart(end))
            })
            .collect();
        for (t, top) in tops.iter().enumerate() {
            if top_alloc_bytes[t] > top.size_bytes {
                return err(format!(
                    "pool.allocated: {} bytes — does not fit: vdev {} would need {} of its {} bytes",
                    cfg.pool.allocated_bytes, top.name, top_alloc_bytes[t], top.size_bytes
                ));
            }
        }
        let prefetch_on = tun.get(T::zfs_prefetch_disable) == 0;
        let zf_params = crate::zfetch::Params::new(cfg.release, &tun, rs, cfg.ram_bytes);
        let mut wls = Vec::new();
        // A trace's records move into its replay state (they can be tens of MB; the kept
        // config needs none of them).
        let mut traces: Vec<Option<crate::config::TraceConfig>> = cfg.workloads.iter_mut().map(|w| w.trace.take()).collect();
        // The ARC a trace's `arc_size` models: 2.2 rebalanced it (ARC@zfs-2.2.0 `arc_evict`);
        // before, `arc_p` with the ghost-ratio dampener of onnv 6951024 (2010).
        let arc_era = match cfg.release {
            r if r >= crate::release::Release::Zfs22 => ArcEra::Balance,
            r => ArcEra::Adapt { dampened: r > crate::release::Release::Solaris2009 },
        };
        for (i, w) in cfg.workloads.iter().enumerate() {
            let total: f64 = w.sizes.iter().map(|(_, wt)| wt).sum();
            let mut acc = 0.0;
            let sizes_cdf = w
                .sizes
                .iter()
                .map(|(s, wt)| {
                    acc += wt / total;
                    (*s, acc)
                })
                .collect();
            let logical = nblocks * rs;
            let region_len = if w.region_length_bytes == 0 { logical.saturating_sub(w.region_offset_bytes) } else { w.region_length_bytes };
            if w.region_offset_bytes + region_len > logical || region_len == 0 {
                return err(format!(
                    "workload {}: region {}+{} bytes — allowed: within the {} allocated bytes",
                    w.name, w.region_offset_bytes, region_len, logical
                ));
            }
            let threads = w.threads.unwrap_or(0);
            // The files the prefetcher tracks: a trace's own (`trace_files`: each from the
            // 1 MiB boundary below its lowest record to its highest), else the region as
            // one file.
            let files = match traces[i].as_ref() {
                // A volume is one object: its reads share its streams, whatever device of
                // the trace they came from.
                Some(tc) if !cfg.is_volume() => crate::trace::trace_files(tc, w.region_offset_bytes, region_len, rs),
                _ => vec![(w.region_offset_bytes / rs, (w.region_offset_bytes + region_len).div_ceil(rs) - w.region_offset_bytes / rs)],
            };
            wls.push(Workload {
                name: w.name.clone(),
                kind: w.kind,
                rng: Rng::stream(seed, &format!("workload/{}", w.name)),
                sizes_cdf,
                rate_per_s: w.rate_per_s,
                threads,
                think_ns: w.think_ns,
                region_off: w.region_offset_bytes,
                region_len,
                arc_hit: w.arc_hit_ratio,
                arc_hit_ns: w.arc_hit_ns,
                l2_hit: w.l2arc_hit_ratio,
                start_ns: w.start_ns,
                stop_ns: w.stop_ns.unwrap_or(u64::MAX),
                cursor: w.region_offset_bytes,
                ops: 0,
                bytes: 0,
                arc_hits: 0,
                read_errors: 0,
                l2_hits: 0,
                lat: FineHist::default(),
                lat_log2: Log2Hist::default(),
                by_phase: Default::default(),
                s_ops: 0,
                s_bytes: 0,
                s_lat_sum: 0,
                s_lat_max: 0,
                s_lat_log2: Log2Hist::default(),
                series: Vec::new(),
                series_lat_log2: Vec::new(),
                pf: prefetch_on.then(|| Zfetch::new(zf_params.clone(), &files)),
                inflight: 0,
                inflight_ns: 0,
                inflight_since_ns: 0,
                o_dsync: w.o_dsync,
                fua: w.fua,
                last_rec: u64::MAX,
                rmw_reads: 0,
                flush_every: w.flush_every,
                zvol_writes: 0,
                nfs: (w.kind == WorkloadKind::NfsCopy).then(|| NfsClient {
                    files_left: if w.files == 0 { u64::MAX } else { w.files },
                    files_done: 0,
                    next_foid: (i as u64 + 1) << 40,
                    threads: vec![NfsThread { foid: 0, size: 0, off: 0, step: NfsStep::Idle, new_dir: false, dir: 0, entries: 0 }; threads as usize],
                    busy_threads: threads,
                    finished_ns: None,
                    wsize_bytes: w.wsize_bytes.max(512),
                    rtt_ns: w.rtt_ns,
                    net_bytes_per_s: w.net_bytes_per_s,
                    dirs: w.dirs,
                    dirs_made: 0,
                    files_total: w.files,
                    dir_files: 0,
                    src: w.source.as_ref().map(|d| {
                        let dev = cfg.devices[d].build(stream_seed(seed, &format!("client/{}", w.name)));
                        SrcDisk {
                            device_name: d.clone(),
                            capacity_bytes: dev.capacity_bytes(),
                            dev,
                            rng: Rng::stream(seed, &format!("workload/{}/source", w.name)),
                            wake_gen: 0,
                            wake_at: None,
                            waiting: VecDeque::new(),
                            reqs: vec![(0, 0, 0, false); threads as usize],
                            done: Vec::new(),
                            reads: 0,
                            data_reads: 0,
                            bytes: 0,
                            lat: FineHist::default(),
                            lat_log2: Log2Hist::default(),
                        }
                    }),
                }),
                db: (w.kind == WorkloadKind::Database).then(|| Db {
                    sessions: vec![DbSession::default(); threads as usize],
                    reads_per_txn: w.reads_per_txn,
                    wal_bytes: w.wal_bytes,
                    dirty_per_txn: w.dirty_pages_per_txn,
                    checkpoint_ns: w.checkpoint_ns,
                    spread: w.checkpoint_spread,
                    wal_foid: (i as u64 + 1) << 40,
                    data_foid: ((i as u64 + 1) << 40) + 1,
                    wal_off: 0,
                    dirty_pages: 0,
                    ckpt_active: false,
                    ckpt_pages: 0,
                    ckpt_written: 0,
                    ckpt_acked: 0,
                    ckpt_due: 0,
                    ckpt_syncing: false,
                    ckpt_start_ns: 0,
                    checkpoints: 0,
                    ckpt_pages_total: 0,
                    ckpt_hist: FineHist::default(),
                    reads: FineHist::default(),
                    reads_log2: Log2Hist::default(),
                    commits: FineHist::default(),
                    commits_log2: Log2Hist::default(),
                }),
                // RunConfig::check made sure only a trace workload has records, and has them.
                trace: traces[i].take().map(|tc| TraceState::new(tc, region_len, w.threads.is_none())),
                arc: (w.arc_bytes > 0).then(|| ArcCache::new(w.arc_bytes / rs, rs, arc_era, cfg.hz)),
                meta: (w.arc_bytes > 0).then(|| {
                    let (n, d) = crate::indirect::meta_share(cfg.release);
                    crate::indirect::IndirectCache::new(w.arc_bytes / d * n)
                }),
            });
        }
        let eng = crate::txg::Txg::new(cfg.release, &tun, crate::txg::TxgConfig { ram_bytes: cfg.ram_bytes, hz: cfg.hz });
        let write_cursor = top_alloc_bytes.clone();
        let mirror_pen = MirrorPenalty::from_tunables(&tun);
        let replacing = tops.iter().map(|t| vec![None; t.leaves.len()]).collect();
        let sync = match cfg.sync.as_str() {
            "always" => crate::zil::SyncMode::Always,
            "disabled" => crate::zil::SyncMode::Disabled,
            _ => crate::zil::SyncMode::Standard,
        };
        let logbias = if cfg.logbias == "throughput" { crate::zil::Logbias::Throughput } else { crate::zil::Logbias::Latency };
        let zil_disable = tun.try_get(T::zil_disable).unwrap_or(0) != 0;
        let zil = crate::zil::Zil::new(
            cfg.release,
            &tun,
            crate::zil::ZilConfig { slog: !log_tops.is_empty(), logbias, sync, zil_disable, recordsize_bytes: rs as u32, volume: cfg.is_volume() },
        );
        let nleaves = leaves.len();
        let ntops_all = tops.len();
        // Metaslabs of each top-level vdev, then of each log vdev (its smallest child).
        let ms_geom: Vec<(u32, u64)> = tops
            .iter()
            .map(|t| crate::rebuild::metaslabs(t.size_bytes))
            .chain(log_tops.iter().map(|l| crate::rebuild::metaslabs(l.iter().map(|&i| leaves[i as usize].size_bytes).min().unwrap_or(0))))
            .collect();
        let (tops_len, log_len) = (tops.len(), log_tops.len());
        let series = SeriesStore::new(leaves.len());
        let nwls = wls.len();
        Ok(Model_ {
            tun,
            mirror_pen,
            ios: IoSlab::new(),
            issues: Vec::new(),
            leaves,
            dtl_cuts: Vec::new(),
            tops,
            top_alloc_bytes,
            layout,
            // New objects take the running release's `zfs_default_ibs`.
            dirty_recs: crate::dirty::DirtyRecords::new(crate::layout::indblkshift(cfg.release)),
            cache_leaves,
            links,
            link_ports,
            ops: Vec::new(),
            ops_free: Vec::new(),
            pf_recs: Vec::new(),
            pf_free: Vec::new(),
            pf_promote: cfg.release >= Release::Zfs08,
            pf_capture: None,
            pf_active: 0,
            pf_fetches: Vec::new(),
            pf_released: Vec::new(),
            pf_cached: Vec::new(),
            rd_in_arc: Vec::new(),
            rd_held: Vec::new(),
            meta_chains: std::collections::BTreeMap::new(),
            rd_parents: Vec::new(),
            ind_inflight: std::collections::BTreeMap::new(),
            rec_inflight: std::collections::BTreeMap::new(),
            op_recs: std::collections::BTreeMap::new(),
            wls,
            txg: Txg {
                phase: SyncPhase::Data,
                dirty: 0,
                eng,
                syncing: false,
                sync_txg: 0,
                sync_pending_ios: 0,
                sync_wrote_objsets: false,
                last_sync_start_ns: 0,
                ms_allocating: vec![Vec::new(); write_cursor.len()],
                write_cursor,
                sync_ns_hist: FineHist::default(),
                flush_owed: vec![false; nleaves],
                ub_leaves: Vec::new(),
                sync_flushes: 0,
                data_bytes: 0,
                meta_blocks: 0,
                meta_bytes: 0,
                sm_blocks: 0,
                sm_bytes: 0,
                sync_flush_ns_sum: 0,
                flush_phase_start_ns: 0,
                ub_rng: Rng::stream(seed, "txg/uberblock"),
                delayed_writes: 0,
                blocked_writes: 0,
                throttle_ns_sum: 0,
            },
            nblocks,
            alloc: crate::alloc::Allocation::with_classes(mg_aliquot, special_tops),
            sblk: Default::default(),
            alloc_count,
            recordsize: rs,
            cols: Vec::with_capacity(32),
            writes: Vec::with_capacity(32),
            col_writes: Vec::new(),
            done: Vec::with_capacity(64),
            sample_t: Vec::new(),
            leaf_ios_done: 0,
            stopped: false,
            interrupt_poll: None,
            interrupt_count: 0,
            interrupted: false,
            scan_done_stop_ns: None,
            workloads_done_ns: None,
            stop_reason: "stop-time",
            replacing,
            spares: cfg
                .pool
                .spares
                .iter()
                .map(|d| crate::admin::Spare { name: d.name.clone(), device: d.device.clone(), leaf: None, gone: false, draid: None })
                .chain(crate::admin::draid_spares(&cfg))
                .collect(),
            spare_links: Vec::new(),
            last_user_io_ns: 0,
            lost_blocks: Default::default(),
            suspension: None,
            suspend_stop_ns: None,
            log_blocks_stalled: 0,
            lost_ranges: Default::default(),
            red: Vec::new(),
            actions_done: 0,
            sample_limit: false,
            scan: None,
            scan_pending: None,
            scan_pending_txg: 0,
            cmd_wait_txg: 0,
            scan_pf: Default::default(),
            phase_now: (ScanPhase::Before, 0),
            phase_ns: [0; 3],
            status_snaps: Default::default(),
            admin: crate::admin::Admin::new(ntops_all),
            space: crate::space::RunSpace::new(ntops_all, crate::space::defer_syncs(cfg.release)),
            scan_history: Vec::new(),
            seed,
            zil,
            zil_slog_cursor: vec![0; log_tops.len()],
            ms_shift: ms_geom.iter().map(|g| g.0).collect(),
            spacemaps: crate::spacemap::SpaceMaps::new(cfg.release, ms_geom.iter().map(|g| g.1).collect(), cfg.ram_bytes),
            slog_ms: Vec::new(),
            sm_scratch: Default::default(),
            sm_layout_frees: Vec::new(),
            log_tops,
            top_cnt: vec![TopCounters::default(); tops_len + log_len],
            top_series: Vec::new(),
            alloc_series: Vec::new(),
            series,
            log_names,
            zil_slog_rotor: 0,
            zil_pool_rotor: 0,
            zil_flush_owed: vec![false; nleaves],
            zil_ios: Vec::new(),
            zil_ios_free: Vec::new(),
            zil_commit_hist: FineHist::default(),
            flushes: 0,
            flush_hist: FineHist::default(),
            risk: crate::txg::RiskStats::default(),
            aux: crate::aux_fail::AuxState::new(&cfg, nwls),
            l2: crate::l2feed::L2Feed::new(cfg.pool.cache.len()),
            cfg,
        })
    }

    /// Schedule the initial events.
    pub fn start(&mut self, ctx: &mut Ctx<Ev>) {
        for i in 0..self.wls.len() {
            let w = &mut self.wls[i];
            if let Some(due) = w.trace.as_ref().and_then(|t| t.next_due_ns()) {
                ctx.schedule_at(w.start_ns.saturating_add(due).min(self.cfg.stop_ns), Ev::Arrival { wl: i as u16 });
            } else if let Some(rate) = w.rate_per_s {
                // A Poisson stream's first arrival is an exponential gap after its start too
                // (memorylessness), not at the start itself.
                let gap = w.rng.exp(1e9 / rate).round() as u64;
                ctx.schedule_at(w.start_ns + gap.max(1), Ev::Arrival { wl: i as u16 });
            } else {
                for t in 0..w.threads {
                    ctx.schedule_at(w.start_ns, Ev::ThreadGo { wl: i as u16, thread: t });
                }
            }
            if let Some(db) = &w.db {
                ctx.schedule_at(w.start_ns + db.checkpoint_ns, Ev::DbCheckpoint { wl: i as u16 });
            }
        }
        ctx.schedule_at(self.cfg.report_interval_ns, Ev::Sample);
        let mut out = Vec::new();
        self.txg.eng.start(ctx.now(), &mut out);
        self.txg_actions(out, ctx);
        ctx.schedule_at(self.cfg.stop_ns, Ev::Stop);
        self.redundancy_init(ctx.now());
        for (i, a) in self.cfg.actions.iter().enumerate() {
            ctx.schedule_at(a.at_ns, Ev::Action { idx: i as u32 });
        }
        self.l2_start(ctx);
    }

    /// Carry out scenario action `idx`.
    fn do_action(&mut self, idx: usize, ctx: &mut Ctx<Ev>) {
        use crate::config::Action;
        match self.cfg.actions[idx].action.clone() {
            a @ (Action::Scrub | Action::PauseScrub | Action::ResumeScrub | Action::Cancel) => {
                self.scan_command(idx, &a, ctx)
            }
            Action::Fail { .. }
            | Action::Replace { .. }
            | Action::Attach { .. }
            | Action::Detach { .. }
            | Action::Offline { .. }
            | Action::Online { .. } => self.admin_action(idx, ctx),
            Action::Set { tunable, value } => {
                // Validated at load; a failure here would be a bug.
                self.tun.set(&tunable, value).expect("tunable validated at load");
                // ZFS reads these globals where it uses them: every leaf's queue limits and
                // aggregation, the txg engine's timeout and throttle, the mirror read
                // penalties take the new value now; the scan's limits at its next txg
                // (`scan_txg_begin`). Nothing is issued because of the change itself: the
                // next enqueue or completion picks with the new limits, as in ZFS.
                let rel = self.cfg.release;
                for l in &mut self.leaves {
                    let rotational = l.dev.rotational();
                    l.policy.retune(rel, &self.tun, rotational);
                }
                self.txg.eng.retune(&self.tun);
                self.zil.retune(&self.tun);
                self.mirror_pen = MirrorPenalty::from_tunables(&self.tun);
            }
        }
        self.actions_done = idx + 1;
        self.stop_if_scans_done(ctx);
    }

    /// A disk added while running (`zpool replace` new disk); its series start with zeros.
    pub(crate) fn add_leaf_at_runtime(&mut self, name: &str, device: &str, vdev_name: &str) -> u16 {
        let spec = &self.cfg.devices[device];
        let leaf = Leaf::new(name, vdev_name, LeafRole::Data, device, spec, self.seed, self.cfg.release, self.cfg.hz, &self.tun, None);
        self.leaves.push(leaf);
        self.series.add_leaf();
        self.zil_flush_owed.push(false);
        self.txg.flush_owed.push(false);
        (self.leaves.len() - 1) as u16
    }

    // ---------------------------------------------------------------- workloads

    fn alloc_op(&mut self, op: LogicalOp) -> u32 {
        if let Some(i) = self.ops_free.pop() {
            self.ops[i as usize] = op;
            i
        } else {
            self.ops.push(op);
            (self.ops.len() - 1) as u32
        }
    }

    fn start_op(&mut self, wl: usize, thread: u32, ctx: &mut Ctx<Ev>) {
        if self.wls[wl].nfs.is_some() {
            self.nfs_start(wl, thread, ctx);
            return;
        }
        if self.wls[wl].db.is_some() {
            self.db_start(wl, thread, ctx);
            return;
        }
        if self.wls[wl].trace.is_some() {
            self.trace_start(wl, thread, ctx);
            return;
        }
        let now = ctx.now();
        let rs = self.recordsize;
        let w = &mut self.wls[wl];
        let u = w.rng.f64();
        let size = w.sizes_cdf.iter().find(|(_, c)| u <= *c).unwrap_or(w.sizes_cdf.last().unwrap()).0;
        let size = size.min(w.region_len);
        let off = if w.kind.is_seq() {
            if w.cursor + size > w.region_off + w.region_len {
                w.cursor = w.region_off;
            }
            let o = w.cursor;
            w.cursor += size;
            o
        } else {
            let slots = (w.region_len / size).max(1);
            w.region_off + w.rng.below(slots) * size
        };
        let is_read = w.kind.is_read();
        w.inflight_ns += (now - w.inflight_since_ns) as u128 * w.inflight as u128;
        w.inflight_since_ns = now;
        w.inflight += 1;
        // A writer thread of an fsync workload writes its own file; on a volume every
        // write goes to its one object.
        let foid = if self.zil.is_volume() { ZVOL_FOID } else { ((wl as u64) << 32 | thread as u64) + 1 };
        let op = LogicalOp {
            wl: wl as u16, thread, start_ns: now, pending: 0, bytes: size, dirty: 0, live: true, foid, offset: off,
            commit_ns: 0, rpc: NfsStep::Idle, db: DbOp::None, eio: false, rmw: false, tr: 0,
        };
        if !is_read {
            let id = self.alloc_op(LogicalOp { dirty: dirty_bytes(off, size, rs), ..op });
            self.write_start(wl, id, off, size, ctx);
            return;
        }
        let id = self.alloc_op(op);
        self.start_read(wl, id, off, size, 0, ctx);
    }

    /// `dmu_write` → `dmu_buf_will_dirty`: a record that write `id` covers only in part
    /// must be in memory before the copy, so one not cached is read first (`dbuf_read`,
    /// synchronously, in the writer's thread). Cached are the record this workload's
    /// previous write ended in (its dbuf is dirty) and, with probability `arc_hit`, any
    /// other. Returns the reads issued; the write goes on when they are in (`data_ready`).
    fn rmw_reads(&mut self, wl: usize, id: u32, off: u64, size: u64, ctx: &mut Ctx<Ev>) -> u32 {
        let rs = self.recordsize;
        let end = off + size;
        let (first, last) = (off / rs, (end - 1) / rs);
        let partial_first = off % rs != 0 || end < (first + 1) * rs;
        let partial_last = last != first && end % rs != 0;
        let prev = std::mem::replace(&mut self.wls[wl].last_rec, last);
        let mut n = 0;
        for b in [partial_first.then_some(first), partial_last.then_some(last)].into_iter().flatten() {
            let w = &mut self.wls[wl];
            let cached = match w.arc.as_mut() {
                Some(arc) => arc.touch(b, ctx.now()),
                None => w.rng.chance(w.arc_hit),
            };
            if b == prev || cached {
                continue;
            }
            // Completions are events, so counting after submitting is safe.
            let k = self.read_block(b, IoClass::SyncRead, id, ctx);
            self.ops[id as usize].pending += k;
            n += k;
            self.wls[wl].rmw_reads += 1;
            // No copy: under failmode wait the read (and the write) waits on the suspended
            // pool; otherwise (continue, or a live vdev lacking the block) the read fails,
            // and so does the write: dmu_tx_hold_write reads a partly covered block with
            // DB_RF_CANFAIL (dmu_tx_check_ioerr) and its EIO fails the tx (`assign_write`).
            if k == 0 {
                if self.demand_read_suspends(b, id, ctx) {
                    n += 1;
                } else {
                    self.ops[id as usize].eio = true;
                }
            }
        }
        self.ops[id as usize].rmw = n > 0;
        n
    }

    /// Read op `id` (`size` bytes at `off` of workload `wl`'s region): an ARC hit, an
    /// L2ARC hit, or demand reads of every record it covers (plus prefetch).
    fn start_read(&mut self, wl: usize, id: u32, off: u64, size: u64, file: u32, ctx: &mut Ctx<Ev>) {
        if self.wls[wl].arc.is_some() {
            self.start_read_arc(wl, id, off, size, file, ctx);
            return;
        }
        let rs = self.recordsize;
        let w = &mut self.wls[wl];
        let arc_hit = w.rng.chance(w.arc_hit);
        let l2_hit = !arc_hit && w.rng.chance(w.l2_hit);
        let first = off / rs;
        let last = (off + size - 1) / rs;
        let n = (last - first + 1) as usize;
        let mut in_arc = std::mem::take(&mut self.rd_in_arc);
        in_arc.clear();
        in_arc.resize(n, arc_hit);
        if arc_hit {
            self.wls[wl].arc_hits += 1;
            self.zfetch(wl, file, off, size, &in_arc, ctx);
            self.rd_in_arc = in_arc;
            let t = self.read_copy_ns(wl, size);
            ctx.schedule_in(t, Ev::OpDone { op: id });
            return;
        }
        // A record a stream has prefetched or is prefetching is in the ARC (or about to
        // be): with `l2arc_noprefetch` the prefetch read the pool, and the demand read finds
        // its buffer, never the L2ARC (`arc_read`). Only the others can be L2ARC hits.
        let mut held = std::mem::take(&mut self.rd_held);
        held.clear();
        let pf = self.wls[wl].pf.as_ref();
        held.extend((first..=last).map(|b| pf.is_some_and(|pf| pf.lookup(file, b).is_some())));
        let from_l2 = l2_hit && held.iter().any(|&h| !h) && {
            let recs: Vec<u64> = (first..=last).filter(|&b| !held[(b - first) as usize]).collect();
            self.l2_read(wl, id, recs.into_iter(), ctx)
        };
        for b in first..=last {
            let h = held[(b - first) as usize];
            if from_l2 && !h {
                continue;
            }
            // A demand hit on a prefetched buffer makes it L2-cacheable again; an L2ARC
            // hit read from the pool instead (dead device, `l2arc_norw`) is not re-fed.
            self.demand_read(wl, b, id, !l2_hit || h, file, ctx);
        }
        self.zfetch(wl, file, off, size, &in_arc, ctx);
        self.rd_in_arc = in_arc;
        self.rd_held = held;
        if self.ops[id as usize].pending == 0 {
            // Every record was already prefetched: an ARC hit.
            let t = self.read_copy_ns(wl, size);
            ctx.schedule_in(t, Ev::OpDone { op: id });
        }
    }

    /// Read op `id` of a workload with a modelled ARC (`arc_size`): the records it covers
    /// that the cache does not hold are read — from the L2ARC (its hit share of the misses)
    /// or from the pool; none missing is an ARC hit.
    fn start_read_arc(&mut self, wl: usize, id: u32, off: u64, size: u64, file: u32, ctx: &mut Ctx<Ev>) {
        let rs = self.recordsize;
        let now = ctx.now();
        let first = off / rs;
        let last = (off + size - 1) / rs;
        // A record a stream prefetched or is prefetching is an ARC buffer (the prefetch put
        // it there), but the read takes it through the stream (`demand_read`: it may have
        // to wait for it); a record another op is reading is cached too, but this op waits
        // for that read (`read_arc_records`), so neither makes the op a plain hit.
        let pf = self.wls[wl].pf.as_ref();
        let held: Vec<bool> = (first..=last).map(|b| pf.is_some_and(|pf| pf.lookup(file, b).is_some())).collect();
        let w16 = wl as u16;
        let w = &mut self.wls[wl];
        let arc = w.arc.as_mut().unwrap();
        let mut in_arc: Vec<bool> = (first..=last).zip(&held).map(|(b, &h)| arc.touch(b, now) && !h).collect();
        // A record another op is reading is waited for (`read_arc_records`), even one whose
        // header the model's ARC already let go: it is not read again.
        let mut waits = false;
        if !self.rec_inflight.is_empty() {
            for (b, c) in (first..).zip(in_arc.iter_mut()) {
                if self.rec_inflight.contains_key(&(w16, b)) {
                    (*c, waits) = (true, true);
                }
            }
        }
        if !waits && in_arc.iter().all(|&c| c) {
            w.arc_hits += 1;
            let t = w.arc_hit_ns + copy_ns(size);
            self.zfetch(wl, file, off, size, &in_arc, ctx);
            ctx.schedule_in(t, Ev::OpDone { op: id });
            return;
        }
        // The records it reads itself are being read from now on (their ARC headers exist):
        // a later op that wants them waits for this one.
        let need: Vec<u64> = (first..).zip(in_arc.iter().zip(&held)).filter(|&(_, (&c, &h))| !c && !h).map(|(b, _)| b).collect();
        for &b in &need {
            self.rec_inflight.insert((w16, b), Vec::new());
        }
        if !need.is_empty() {
            self.op_recs.insert(id, need.clone());
        }
        // The records it reads need their block pointers: the indirect blocks above a
        // record neither cached nor held by a stream, missing from the ARC, are read
        // first, one after the other (`indirect.rs`).
        if self.wls[wl].meta.is_some() {
            let chain = self.missing_parents(wl, need.into_iter());
            if !chain.is_empty() {
                self.meta_chains.insert(id, MetaChain { off, size, file, in_arc: Some(in_arc), chain, reading: None });
                self.next_indirect(id, ctx);
                return;
            }
        }
        self.read_arc_records(wl, id, off, size, file, &in_arc, ctx);
    }

    /// The indirect blocks above records `recs` (in order) that workload `wl`'s ARC lacks,
    /// in the order they are read: `dbuf_findbp` climbs only past parents the ARC lacks,
    /// from level 1 up to the first cached one, whose reads then come top down. Records
    /// under the level-1 block of the one before them share its lookup.
    fn missing_parents(&mut self, wl: usize, recs: impl Iterator<Item = u64>) -> VecDeque<(crate::layout::Block, bool)> {
        let mut chain = VecDeque::new();
        let mut parents = std::mem::take(&mut self.rd_parents);
        let mut last_l1 = u64::MAX;
        let w16 = wl as u16;
        for b in recs {
            self.layout.data_parents(b % self.nblocks.max(1), &mut parents);
            let Some(l1) = parents.last() else { continue };
            if std::mem::replace(&mut last_l1, l1.index) == l1.index {
                continue;
            }
            // Bottom up: a block being read (by another op, or earlier in this chain) is
            // waited for and ends the climb; a cached one ends it; a missing one is read.
            let at = chain.len();
            for p in parents.iter().rev() {
                if self.ind_inflight.contains_key(&(w16, p.index)) {
                    chain.insert(at, (*p, false));
                    break;
                }
                let bytes = crate::indirect::arc_bytes(self.cfg.release, p.psize, p.lsize);
                if self.wls[wl].meta.as_mut().unwrap().touch(p.index, bytes) {
                    break;
                }
                self.ind_inflight.insert((w16, p.index), Vec::new());
                chain.insert(at, (*p, true));
            }
        }
        self.rd_parents = parents;
        chain
    }

    /// A write of `size` bytes at `off` by op `id` of workload `wl`: `dmu_tx_hold_write`
    /// first reads the level-1 blocks above every record it covers (`dmu_tx_count_write` →
    /// `dmu_tx_check_ioerr`, DMU_TX@zfs-2.2.0), which a modelled ARC may lack (`indirect.rs`);
    /// then `write_go`.
    fn write_start(&mut self, wl: usize, id: u32, off: u64, size: u64, ctx: &mut Ctx<Ev>) {
        if self.wls[wl].meta.is_some() {
            let rs = self.recordsize;
            let chain = self.missing_parents(wl, off / rs..=(off + size - 1) / rs);
            if !chain.is_empty() {
                self.meta_chains.insert(id, MetaChain { off, size, file: 0, in_arc: None, chain, reading: None });
                self.next_indirect(id, ctx);
                return;
            }
        }
        self.write_go(wl, id, off, size, ctx);
    }

    /// A write whose level-1 blocks are in: the records it covers in part are read
    /// (`rmw_reads`), the records it writes become dirty buffers in a modelled ARC, and
    /// once the reads are in the write is assigned to a txg.
    fn write_go(&mut self, wl: usize, id: u32, off: u64, size: u64, ctx: &mut Ctx<Ev>) {
        let reads = self.rmw_reads(wl, id, off, size, ctx);
        let (rs, now) = (self.recordsize, ctx.now());
        if let Some(arc) = self.wls[wl].arc.as_mut() {
            for b in off / rs..=(off + size - 1) / rs {
                arc.insert(b, now);
            }
        }
        if reads == 0 {
            self.assign_write(id, false, ctx);
        }
    }

    /// The next indirect block read op `id` waits for, or, with none left, its records.
    /// A block with no readable copy fails the read (`dbuf_findbp`'s EIO fails the hold).
    fn next_indirect(&mut self, id: u32, ctx: &mut Ctx<Ev>) {
        let wl = self.ops[id as usize].wl as usize;
        let w16 = wl as u16;
        // The block this op was reading is in: whoever waited for it goes on.
        if let Some(done) = self.meta_chains.get_mut(&id).expect("op in a chain").reading.take() {
            self.ind_read_done(w16, done, ctx);
        }
        loop {
            let chain = self.meta_chains.get_mut(&id).expect("op in a chain");
            let Some((blk, own)) = chain.chain.pop_front() else {
                let c = self.meta_chains.remove(&id).unwrap();
                match c.in_arc {
                    Some(in_arc) => self.read_arc_records(wl, id, c.off, c.size, c.file, &in_arc, ctx),
                    None => self.write_go(wl, id, c.off, c.size, ctx),
                }
                return;
            };
            if !own {
                // Another op's read of it: wait, unless it is in already.
                if let Some(waiters) = self.ind_inflight.get_mut(&(w16, blk.index)) {
                    waiters.push(id);
                    self.ops[id as usize].pending += 1;
                    return;
                }
                continue;
            }
            self.last_user_io_ns = ctx.now();
            self.ops[id as usize].pending += 1;
            let mut n = 0;
            for d in blk.dvas() {
                n = self.read_at(d.vdev as usize, d.offset, blk.psize, IoClass::SyncRead, 0, id, ctx);
                if n > 0 {
                    break;
                }
            }
            self.ops[id as usize].pending -= 1;
            self.ops[id as usize].pending += n;
            if n > 0 {
                self.wls[wl].meta.as_mut().unwrap().reads += 1;
                self.meta_chains.get_mut(&id).unwrap().reading = Some(blk.index);
                return;
            }
            // No copy on a dead top-level vdev under failmode wait or panic: the pool
            // suspends and the read waits with it (as a record's read does), and so do the
            // ops waiting for its blocks.
            if self.read_suspends(blk.dvas[0].vdev as usize, id, ctx) {
                return;
            }
            // No copy: the hold fails with EIO, and so does the read — or the write
            // (`dmu_tx_check_ioerr` sets `tx_err`; `data_ready` hands it to `assign_write`,
            // which fails an op marked EIO). The blocks it was to read are released to
            // their waiters, which try them themselves.
            let c = self.meta_chains.remove(&id).unwrap();
            self.ind_read_done(w16, blk.index, ctx);
            for (b, own) in c.chain {
                if own {
                    self.ind_read_done(w16, b.index, ctx);
                }
            }
            self.ops[id as usize].eio = true;
            self.ops[id as usize].rmw |= c.in_arc.is_none();
            if self.ops[id as usize].pending == 0 {
                self.data_ready(id, ctx);
            }
            return;
        }
    }

    /// Indirect block `index` of workload `w16` is in (or will not be read by the op that
    /// was to): the ops waiting for it go on with their chains.
    fn ind_read_done(&mut self, w16: u16, index: u64, ctx: &mut Ctx<Ev>) {
        for w in self.ind_inflight.remove(&(w16, index)).unwrap_or_default() {
            self.op_wait_done(w, ctx);
        }
    }

    /// The rest of `start_read_arc` once the records' block pointers are in: the records
    /// not in `in_arc` from a stream's prefetch, the L2ARC or the pool.
    #[allow(clippy::too_many_arguments)]
    fn read_arc_records(&mut self, wl: usize, id: u32, off: u64, size: u64, file: u32, in_arc: &[bool], ctx: &mut Ctx<Ev>) {
        let first = off / self.recordsize;
        // What the model's ARC lacks may be in a stream's prefetch (read or in flight);
        // only the rest can be L2ARC hits (as in `start_read`).
        let held: Vec<bool> = (first..).zip(in_arc).map(|(b, &c)| !c && self.wls[wl].pf.as_ref().is_some_and(|pf| pf.lookup(file, b).is_some())).collect();
        let l2_share = self.wls[wl].l2_hit;
        let l2_hit = self.wls[wl].rng.chance(l2_share);
        let l2_recs: Vec<u64> = if l2_hit { (first..).zip(in_arc.iter().zip(&held)).filter(|(_, (&c, &h))| !c && !h).map(|(b, _)| b).collect() } else { Vec::new() };
        let from_l2 = !l2_recs.is_empty() && self.l2_read(wl, id, l2_recs.iter().copied(), ctx);
        let w16 = wl as u16;
        for (i, b) in (first..).take(in_arc.len()).enumerate() {
            if in_arc[i] {
                // Being read by another op: wait for that read.
                if let Some(waiters) = self.rec_inflight.get_mut(&(w16, b)) {
                    waiters.push(id);
                    self.ops[id as usize].pending += 1;
                }
                continue;
            }
            if from_l2 && !held[i] {
                continue;
            }
            let eio = std::mem::take(&mut self.ops[id as usize].eio);
            self.demand_read(wl, b, id, !l2_hit || held[i], file, ctx);
            if self.ops[id as usize].eio && !held[i] {
                // No copy: the read leaves no buffer (`arc_read_done` drops a failed read's
                // header), so the ARC does not hold the record.
                self.wls[wl].arc.as_mut().unwrap().forget(b);
            }
            self.ops[id as usize].eio |= eio;
        }
        self.zfetch(wl, file, off, size, in_arc, ctx);
        if self.ops[id as usize].pending == 0 {
            // Nothing to wait for (records prefetched, or with no copy: EIO).
            self.release_recs(id, ctx);
            let t = self.read_copy_ns(wl, size);
            ctx.schedule_in(t, Ev::OpDone { op: id });
        }
    }

    /// An L2ARC hit of read op `id` on records `recs` (the first picks the cache device):
    /// each record read from that device; false if it is dead or offline — `arc_read`
    /// then reads the pool, which the caller does.
    fn l2_read(&mut self, wl: usize, id: u32, mut recs: impl Iterator<Item = u64>, ctx: &mut Ctx<Ev>) -> bool {
        let rs = self.recordsize;
        let Some(first) = recs.next() else { return false };
        let leaf = self.cache_leaves[(first % self.cache_leaves.len() as u64) as usize];
        if !self.leaves[leaf as usize].writeable() {
            self.l2_redirect(wl);
            return false;
        }
        if self.l2_rw_clash(leaf) {
            return false;
        }
        self.wls[wl].l2_hits += 1;
        let nrec = (self.leaves[leaf as usize].size_bytes / rs).max(1);
        for b in std::iter::once(first).chain(recs) {
            let coff = (b.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 16) % nrec * rs;
            self.l2_issued(id, coff, b);
            self.ops[id as usize].pending += 1;
            self.submit_leaf(leaf, Op::Read, IoClass::SyncRead, 0, coff, rs as u32, id, ctx);
        }
        true
    }

    /// An open-loop trace's records due by now go out (several may share an instant), then
    /// its next arrival is set for the next record's recorded time.
    fn trace_arrival(&mut self, wl: usize, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        loop {
            let w = &self.wls[wl];
            let Some(due) = w.trace.as_ref().unwrap().next_due_ns() else { break };
            let at = w.start_ns.saturating_add(due);
            if at > now {
                if at < w.stop_ns && at < self.cfg.stop_ns {
                    ctx.schedule_at(at, Ev::Arrival { wl: wl as u16 });
                }
                break;
            }
            self.trace_start(wl, 0, ctx);
        }
    }

    /// The next record of a trace workload, issued now (for caller `thread` in a closed
    /// loop): the same logical operation a synthetic workload makes (`trace.rs`).
    fn trace_start(&mut self, wl: usize, thread: u32, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let rs = self.recordsize;
        let volume = self.zil.is_volume();
        let w = &mut self.wls[wl];
        let Some(rec) = w.trace.as_mut().unwrap().take() else {
            return;
        };
        let off = w.region_off + rec.offset;
        w.inflight_ns += (now - w.inflight_since_ns) as u128 * w.inflight as u128;
        w.inflight_since_ns = now;
        w.inflight += 1;
        // Each file of the trace is a file of the dataset (its own `zil_commit` target);
        // on a volume every record goes to its one object.
        let foid = if volume { ZVOL_FOID } else { ((wl as u64 + 1) << 40) | (rec.file as u64 + 1) };
        let op = LogicalOp {
            wl: wl as u16, thread, start_ns: now, pending: 0, bytes: rec.size, dirty: 0, live: true, foid, offset: off,
            commit_ns: 0, rpc: NfsStep::Idle, db: DbOp::None, eio: false, rmw: false, tr: rec.op.tag(),
        };
        match rec.op {
            TraceOp::Read => {
                let id = self.alloc_op(op);
                self.start_read(wl, id, off, rec.size, if volume { 0 } else { rec.file }, ctx);
            }
            TraceOp::Write | TraceOp::SyncWrite => {
                let id = self.alloc_op(LogicalOp { dirty: dirty_bytes(off, rec.size, rs), ..op });
                self.write_start(wl, id, off, rec.size, ctx);
            }
            TraceOp::Flush => {
                // fsync(2) / a flush request: zil_commit of the file, no data (zfs_fsync).
                let id = self.alloc_op(LogicalOp { commit_ns: now, ..op });
                let mut out = Vec::new();
                self.zil.commit(now, foid, id, &mut out);
                self.zil_actions(out, ctx);
            }
        }
    }

    /// `scenario.stop = "workloads-done"`: stop once every workload with a finite job (an
    /// nfs-copy of `files`, a trace replayed once) has finished it.
    fn stop_if_workloads_done(&mut self, ctx: &mut Ctx<Ev>) {
        if !self.cfg.stop_on_workloads_done || self.workloads_done_ns.is_some() {
            return;
        }
        let all = self.wls.iter().all(|w| {
            let nfs = w.nfs.as_ref().map_or(true, |n| !n.finite() || n.finished_ns.is_some());
            let tr = w.trace.as_ref().map_or(true, |t| !t.finite() || t.finished());
            nfs && tr
        });
        if all {
            self.workloads_done_ns = Some(ctx.now());
            ctx.schedule_in(0, Ev::Stop);
        }
    }

    /// The next RPC of an nfs-copy thread: sent now, at the server after half a round trip
    /// plus its bytes on the wire.
    fn nfs_start(&mut self, wl: usize, thread: u32, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let w = &mut self.wls[wl];
        let u = w.rng.f64();
        let n = w.nfs.as_mut().unwrap();
        let t = &mut n.threads[thread as usize];
        if t.step == NfsStep::Idle {
            if n.files_left == 0 {
                n.busy_threads -= 1;
                if n.busy_threads == 0 {
                    n.finished_ns = Some(now);
                    self.stop_if_workloads_done(ctx);
                }
                return;
            }
            // File k of the tree lives in directory k·dirs/files (cp -r walks depth
            // first: a directory is made just before its first file).
            let k = n.files_total.saturating_sub(n.files_left);
            n.files_left -= 1;
            let size = w.sizes_cdf.iter().find(|(_, c)| u <= *c).unwrap_or(w.sizes_cdf.last().unwrap()).0;
            let dir = if n.files_total > 0 { (k as u128 * n.dirs as u128 / n.files_total as u128) as u64 } else { 0 };
            // Without `dirs` the tree is one directory, entered at the first file.
            let new_dir = if n.dirs > 0 { dir >= n.dirs_made } else { k == 0 };
            if n.dirs > 0 && new_dir {
                n.dirs_made = dir + 1;
            }
            if new_dir {
                n.dir_files = 0;
            }
            // lstat of the file: its inode-table block is read cold once per 32 files of
            // a directory (the rest of the directory's inodes share it).
            let inode_read = n.src.is_some() && n.dir_files.is_multiple_of(SRC_INODES_PER_BLOCK);
            n.dir_files += 1;
            let step = if n.dirs > 0 && new_dir {
                NfsStep::Mkdir
            } else if n.src.is_some() && new_dir {
                NfsStep::SrcDir
            } else if inode_read {
                NfsStep::SrcInode
            } else {
                NfsStep::Create
            };
            *t = NfsThread { foid: n.next_foid, size, off: 0, step, new_dir, dir, entries: n.dir_files };
            n.next_foid += 1;
        }
        let (step, off) = (t.step, t.off);
        let bytes = if step == NfsStep::Write { n.wsize_bytes.min(t.size - t.off) } else { 0 };
        let src = n.src.is_some();
        t.step = match step {
            // cp makes the destination directory, then reads the source one (savedir).
            NfsStep::Mkdir if src => NfsStep::SrcDir,
            NfsStep::Mkdir => NfsStep::Access,
            NfsStep::SrcDir => NfsStep::SrcInode,
            NfsStep::SrcInode if t.new_dir && n.dirs > 0 => NfsStep::Access,
            NfsStep::SrcInode => NfsStep::Create,
            NfsStep::Access => NfsStep::Create,
            NfsStep::Create => NfsStep::Setattr,
            NfsStep::Setattr if t.size > 0 && src => NfsStep::SrcRead,
            NfsStep::Setattr if t.size > 0 => NfsStep::Write,
            NfsStep::SrcRead => NfsStep::Write,
            NfsStep::Write => {
                t.off += bytes;
                if t.off >= t.size {
                    NfsStep::Commit
                } else {
                    NfsStep::Write
                }
            }
            // An empty file has nothing to flush at close: no COMMIT.
            NfsStep::Setattr | NfsStep::Commit | NfsStep::Idle => {
                n.files_done += 1;
                NfsStep::Idle
            }
        };
        if matches!(step, NfsStep::SrcDir | NfsStep::SrcInode | NfsStep::SrcRead) {
            let bytes = if step == NfsStep::SrcRead { t.size.next_multiple_of(SRC_BLOCK_BYTES) } else { SRC_BLOCK_BYTES };
            self.src_submit(wl, thread, bytes, step == NfsStep::SrcRead, ctx);
            return;
        }
        let foid = t.foid;
        let wire_ns = n.rtt_ns / 2 + (bytes as u128 * NS_PER_S as u128 / n.net_bytes_per_s.max(1) as u128) as u64;
        w.inflight_ns += (now - w.inflight_since_ns) as u128 * w.inflight as u128;
        w.inflight_since_ns = now;
        w.inflight += 1;
        let op = LogicalOp {
            wl: wl as u16, thread, start_ns: now, pending: 0, bytes, dirty: bytes.next_multiple_of(4096),
            live: true, foid, offset: off, commit_ns: 0, rpc: step, db: DbOp::None, eio: false, rmw: false, tr: 0,
        };
        let id = self.alloc_op(op);
        ctx.schedule_in(wire_ns.max(1), Ev::NfsServer { op: id });
    }

    /// A cold read of `bytes` from the client's source disk for `thread`, at a random
    /// block-aligned position (a home directory written over years is scattered; every
    /// read is a seek). The thread continues when it completes (`src_wake`).
    fn src_submit(&mut self, wl: usize, thread: u32, bytes: u64, data: bool, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let s = self.wls[wl].nfs.as_mut().unwrap().src.as_mut().unwrap();
        let bytes = bytes.min(s.capacity_bytes);
        let slots = ((s.capacity_bytes - bytes) / SRC_BLOCK_BYTES).max(1);
        let off = s.rng.below(slots) * SRC_BLOCK_BYTES;
        s.reqs[thread as usize] = (off, bytes, now, data);
        s.waiting.push_back(thread);
        self.src_drain(wl, ctx);
    }

    /// Hand waiting reads to the source disk while it has tags, and keep its wake-up armed.
    fn src_drain(&mut self, wl: usize, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let s = self.wls[wl].nfs.as_mut().unwrap().src.as_mut().unwrap();
        while let Some(&t) = s.waiting.front() {
            if !s.dev.can_accept(Op::Read) {
                break;
            }
            s.waiting.pop_front();
            let (off, bytes, _, _) = s.reqs[t as usize];
            s.dev.submit(now, Cmd { tag: t, op: Op::Read, offset_bytes: off, size_bytes: bytes });
        }
        let next = s.dev.next_event_ns();
        if next != s.wake_at {
            s.wake_gen = s.wake_gen.wrapping_add(1);
            s.wake_at = next;
            if let Some(at) = next {
                ctx.schedule_at(at, Ev::SrcWake { wl: wl as u16, gen: s.wake_gen });
            }
        }
    }

    /// The source disk's wake-up: account the finished reads and move their threads on.
    fn src_wake(&mut self, wl: usize, gen: u32, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let s = self.wls[wl].nfs.as_mut().unwrap().src.as_mut().unwrap();
        if s.wake_gen != gen {
            return;
        }
        s.wake_at = None;
        let mut done = std::mem::take(&mut s.done);
        done.clear();
        s.dev.advance(now, &mut done);
        for &t in &done {
            let (_, bytes, at, data) = s.reqs[t as usize];
            let lat = (now - at).max(1);
            s.reads += 1;
            s.data_reads += data as u64;
            s.bytes += bytes;
            s.lat.add(lat);
            s.lat_log2.add(lat);
        }
        self.src_drain(wl, ctx);
        let go = now < self.wls[wl].stop_ns && !self.stopped;
        for &t in &done {
            if go {
                self.nfs_start(wl, t, ctx);
            }
        }
        self.wls[wl].nfs.as_mut().unwrap().src.as_mut().unwrap().done = done;
    }

    fn src_results(s: &SrcDisk) -> Value {
        json!({
            "device": s.device_name, "reads": s.reads, "data_reads": s.data_reads,
            "meta_reads": s.reads - s.data_reads, "bytes": s.bytes,
            "latency_ns": serde_json::to_value(s.lat.pcts()).unwrap(), "latency_log2": s.lat_log2.counts.to_vec(),
        })
    }

    /// The server handles an RPC: a WRITE is an unstable (async) write; ACCESS only reads
    /// attributes; CREATE, MKDIR and SETATTR are logged metadata the server makes stable
    /// before replying (`rfs3_create`/`rfs3_mkdir`/`rfs3_setattr` call VOP_FSYNC, the
    /// second fsync of a create finds nothing new), as COMMIT does.
    fn nfs_server(&mut self, id: u32, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let op = &self.ops[id as usize];
        let (rpc, foid, wl) = (op.rpc, op.foid, op.wl as usize);
        if rpc == NfsStep::Access {
            let t = self.ack_ns(wl);
            ctx.schedule_in(t, Ev::OpDone { op: id });
            return;
        }
        if rpc != NfsStep::Commit {
            // A WRITE's tx dirties its blocks; zfs_create / zfs_mkdir / zfs_setattr's the
            // file's dnode and the directory's ZAP, then log and commit (`nfs_meta_admitted`).
            self.assign_write(id, false, ctx);
            return;
        }
        let mut out = Vec::new();
        self.ops[id as usize].commit_ns = now;
        self.zil.commit(now, foid, id, &mut out);
        self.zil_actions(out, ctx);
    }

    /// A CREATE, MKDIR or SETATTR's tx was assigned to `txg`: log its record (TX_CREATE /
    /// TX_MKDIR: `lr_create_t` + name; TX_SETATTR: `lr_setattr_t`) and make it stable
    /// before the reply, as the server's VOP_FSYNC does.
    fn nfs_meta_admitted(&mut self, id: u32, txg: u64, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let op = &self.ops[id as usize];
        let (rpc, foid) = (op.rpc, op.foid);
        self.zil.log_meta(txg, foid, if rpc == NfsStep::Setattr { 184 } else { 200 });
        let mut out = Vec::new();
        self.ops[id as usize].commit_ns = now;
        self.zil.commit(now, foid, id, &mut out);
        self.zil_actions(out, ctx);
    }

    /// From the server's (or the memory copy's) completion to the caller seeing it: the
    /// memory copy, plus half a round trip for an NFS reply.
    fn ack_ns(&self, wl: usize) -> u64 {
        let w = &self.wls[wl];
        w.arc_hit_ns + w.nfs.as_ref().map_or(0, |n| n.rtt_ns / 2)
    }

    /// The blocks write op `id` covers: records of the workloads' address space, or of a
    /// file the run creates (an `nfs-copy` file, a database's WAL).
    fn write_target(&self, id: u32) -> crate::dirty::Target {
        use crate::dirty::Target;
        let rs = self.recordsize;
        let op = &self.ops[id as usize];
        let (first, last) = (op.offset / rs, (op.offset + op.bytes.max(1) - 1) / rs);
        if op.rpc.is_meta() {
            // Its directory's micro-ZAP gains a name (a new directory's own starts empty,
            // its parent — the copy's top directory — gains one).
            let n = self.wls[op.wl as usize].nfs.as_ref().unwrap();
            let t = &n.threads[op.thread as usize];
            let zap = |d: u64| ((op.wl as u64 + 1) << 40) | d;
            let (zaps, nzaps) = match op.rpc {
                NfsStep::Create => ([(zap(t.dir), crate::dirty::mzap_bytes(t.entries)), (0, 0)], 1),
                NfsStep::Mkdir => ([(zap(t.dir), crate::dirty::mzap_bytes(0)), (zap(1 << 39), crate::dirty::mzap_bytes(n.dirs_made))], 2),
                _ => ([(0, 0); 2], 0),
            };
            return Target::Meta { foid: op.foid, zaps, nzaps };
        }
        if op.rpc == NfsStep::Write {
            let size = self.wls[op.wl as usize].nfs.as_ref().unwrap().threads[op.thread as usize].size;
            let blocks = size.div_ceil(rs).max(1);
            let block_bytes = if blocks == 1 { size.next_multiple_of(4096).min(rs) } else { rs };
            return Target::Object { foid: op.foid, first, last, blocks, block_bytes };
        }
        if op.db == DbOp::Wal {
            return Target::Object { foid: op.foid, first, last, blocks: 0, block_bytes: rs };
        }
        Target::Records { first, last }
    }

    /// `dmu_tx_assign` of write op `id` (`delayed`: the retry after a throttle sleep).
    /// It charges dirty data for the blocks it dirties first in the txg it is admitted to.
    fn assign_write(&mut self, id: u32, delayed: bool, ctx: &mut Ctx<Ev>) {
        if self.ops[id as usize].eio {
            // A record it covers in part could not be read: write(2) returns EIO.
            let t = self.wls[self.ops[id as usize].wl as usize].arc_hit_ns;
            ctx.schedule_in(t, Ev::OpDone { op: id });
            return;
        }
        if self.suspended() {
            // dmu_tx_try_assign: ERESTART while the pool is suspended (`suspend.rs`).
            self.park_write();
            return;
        }
        let now = ctx.now();
        let op = &self.ops[id as usize];
        let (bytes, start_ns) = (op.dirty, op.start_ns);
        let target = self.write_target(id);
        let (recs, lo, nblocks, rs) = (&mut self.dirty_recs, &self.layout, self.nblocks, self.recordsize);
        let mut out = Vec::new();
        let d = self.txg.eng.assign_charged(now, id, bytes, |txg| recs.scan(lo, nblocks, rs, txg, target), start_ns, delayed, &mut out);
        match d {
            crate::txg::TxDecision::Admit { txg } => {
                self.dirty_recs.mark(txg);
                if delayed {
                    self.txg.throttle_ns_sum += now - start_ns;
                }
                self.admit_write(id, txg, ctx);
            }
            crate::txg::TxDecision::DelayUntil(t) => {
                self.txg.delayed_writes += 1;
                ctx.schedule_at(t, Ev::TxRetry { op: id });
            }
            crate::txg::TxDecision::Wait => self.txg.blocked_writes += 1,
        }
        self.txg_actions(out, ctx);
    }

    /// The write is dirty data of `txg`; the ZIL logs it (`zfs_log_write`). A plain write
    /// is acknowledged after the memory copy; an fsync-write (O_DSYNC, `sync=always`, or
    /// the fsync that follows it) once its commit wakes it.
    fn admit_write(&mut self, id: u32, txg: u64, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let op = &self.ops[id as usize];
        if op.rpc.is_meta() {
            self.nfs_meta_admitted(id, txg, ctx);
            return;
        }
        let w = &self.wls[op.wl as usize];
        let (foid, off, len) = (op.foid, op.offset, op.bytes);
        let (fsync, sync) = if w.kind == WorkloadKind::Zvol {
            // A FUA write is logged sync and committed; a flush request after it commits
            // everything the volume logged (zvol_write, zvol_request: zil_commit(ZVOL_OBJ)).
            let w = &mut self.wls[op.wl as usize];
            w.zvol_writes += 1;
            (w.flush_every > 0 && w.zvol_writes % w.flush_every as u64 == 0, w.fua)
        } else if let Some(k) = TraceOp::from_tag(op.tr) {
            // A trace's `S` record: O_DSYNC on a file, FUA on a volume — logged sync and
            // committed before it completes; `W` is buffered.
            let s = k == TraceOp::SyncWrite;
            (s, s)
        } else {
            let fsync = w.kind == WorkloadKind::FsyncWrite || op.db == DbOp::Wal;
            (fsync, fsync && w.o_dsync)
        };
        // An nfs-copy file is written whole before its COMMIT, so its size is known; the
        // other writers' files are longer than a record.
        let op = &self.ops[id as usize];
        let file_bytes = self.wls[op.wl as usize].nfs.as_ref().map_or(u64::MAX, |n| n.threads[op.thread as usize].size);
        let mut out = Vec::new();
        let need = self.zil.write(txg, foid, off, len as u32, file_bytes, sync, &mut out);
        let mut txg_out = Vec::new();
        self.txg.eng.log_written(now, txg, self.zil.wrlog_bytes(), &mut txg_out);
        self.txg_actions(txg_out, ctx);
        if need || fsync {
            // zil_commit(foid) for O_DSYNC/sync=always, or the fsync(2) after the write.
            self.ops[id as usize].commit_ns = now;
            self.zil.commit(now, foid, id, &mut out);
        } else {
            let op = &self.ops[id as usize];
            let t = self.ack_ns(op.wl as usize) + copy_ns(op.bytes);
            ctx.schedule_in(t, Ev::OpDone { op: id });
        }
        self.zil_actions(out, ctx);
    }

    /// Carry out what the ZIL asked for (see docs/sync-writes.md).
    fn zil_actions(&mut self, out: Vec<ZilAction>, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        for a in out {
            match a {
                ZilAction::LwbWrite { token, bytes, on_slog, class, seq } => {
                    if on_slog && !self.log_tops.is_empty() {
                        self.zil_slog_write(token, bytes, class, seq, ctx);
                    } else {
                        self.zil_pool_write(token, bytes, class, None, ctx);
                    }
                }
                ZilAction::IndirectWrite { token, bytes, txg } => {
                    self.txg.eng.dmu_sync(txg, bytes as u64);
                    self.zil_pool_write(token, bytes, IoClass::SyncWrite, Some(txg), ctx)
                }
                ZilAction::Flush { token, slog, pool } => self.zil_flush(token, slog, pool, ctx),
                ZilAction::Timer { token, at_ns } => ctx.schedule_at(at_ns.max(now), Ev::ZilTimer { token }),
                ZilAction::Wake { waiter } => {
                    let op = &self.ops[waiter as usize];
                    if !self.zil.is_disabled() {
                        self.zil_commit_hist.add((now - op.commit_ns).max(1));
                        self.aux.commit_done(now, (now - op.commit_ns).max(1));
                    }
                    let t = self.ack_ns(op.wl as usize) + copy_ns(op.bytes);
                    ctx.schedule_in(t, Ev::OpDone { op: waiter });
                }
                ZilAction::AtRisk { txg, bytes } => self.txg.eng.add_at_risk(now, txg, bytes),
                ZilAction::TxgWait { token } => self.zil_txg_wait(token, ctx),
            }
        }
    }

    pub(crate) fn zil_slot(&mut self, token: u32, pending: u32) -> u32 {
        let e = (token, pending);
        let slot = match self.zil_ios_free.pop() {
            Some(i) => {
                self.zil_ios[i as usize] = e;
                i
            }
            None => {
                self.zil_ios.push(e);
                (self.zil_ios.len() - 1) as u32
            }
        };
        self.aux.set_slot(slot, 0);
        slot
    }

    /// Size of log vdev `t`: its smallest disk (a mirror is as large as its smallest child).
    pub(crate) fn log_top_size(&self, t: usize) -> u64 {
        self.log_tops[t].iter().map(|&l| self.leaves[l as usize].size_bytes).min().unwrap_or(0)
    }

    /// An lwb on the separate log: the log vdevs take turns; a mirror writes every live
    /// child. With no usable log vdev the block goes to the main pool (`aux_fail.rs`).
    fn zil_slog_write(&mut self, token: u32, bytes: u32, class: IoClass, seq: u64, ctx: &mut Ctx<Ev>) {
        // zio_alloc_zil: the log class first (the rotor passes over a log vdev with no room
        // for the block's planned size), then the main pool (ZIO@zfs-2.2.0).
        let need = self.zil.lwb_alloc_bytes(seq);
        let Some(t) = self.slog_pick(need) else {
            self.zil_pool_write(token, bytes, class, None, ctx);
            return;
        };
        self.zil.place_lwb(seq, t as u16);
        let cap = self.log_top_size(t);
        let mut off = self.zil_slog_cursor[t];
        if off + bytes as u64 > cap {
            off = 0;
        }
        self.zil_slog_cursor[t] = off + (bytes as u64).next_multiple_of(4096);
        // The block's metaslab is dirty in the open txg (`spacemap.rs`).
        let e = (self.txg.eng.open_txg(), t as u16, off >> self.ms_shift[self.tops.len() + t]);
        if self.slog_ms.last() != Some(&e) {
            self.slog_ms.push(e);
        }
        let live = self.log_tops[t].iter().filter(|&&l| self.leaves[l as usize].writeable()).count() as u32;
        let slot = self.zil_slot(token, live);
        self.aux.set_slot(slot, live);
        let nt = self.tops.len();
        self.top_cnt[nt + t].add(Op::Write, bytes as u64);
        // By index (submit_leaf needs &mut self; `log_tops` is fixed once the model is built).
        for i in 0..self.log_tops[t].len() {
            let l = self.log_tops[t][i];
            if !self.leaves[l as usize].writeable() {
                continue;
            }
            self.zil_flush_owed[l as usize] = true;
            // The lwb's allocation dirties the log vdev's metaslab in the open txg.
            self.txg.flush_owed[l as usize] = true;
            self.submit_leaf(l, Op::Write, class, 0, off, bytes, OWNER_ZIL | slot, ctx);
        }
    }

    /// `asize` bytes of free space on top-level vdev `t` for a new block: the first free
    /// piece from the vdev's write cursor, going round inside the free space above the
    /// layout's (COW never overwrites live data in place; the layout's region is modelled as
    /// fixed) past the run's live blocks and its deferred frees (`space.rs`).
    /// The block belongs to engine txg `txg` (`metaslab_alloc`'s txg: the syncing one for
    /// txg data, the open one for an lwb or a `dmu_sync` block).
    fn alloc_free(&mut self, t: usize, asize: u64, txg: u64) -> u64 {
        let (lo, end) = (self.top_alloc_bytes[t], self.tops[t].size_bytes);
        let mut off = self.txg.write_cursor[t];
        if off + asize > end || off < lo {
            off = lo;
            self.space.wrap(t);
        }
        // Past the run's live blocks and its frees still deferred (`space.rs`); from the
        // start of the free space when nothing is left ahead. The model has no ENOSPC: a
        // full vdev places the block at the cursor.
        let off = self.space.next_free(t, off, asize, end).or_else(|| self.space.next_free(t, lo, asize, end)).unwrap_or(off);
        self.space.alloc(t, off, asize, self.layout.last_txg() + txg, txg);
        self.txg.write_cursor[t] = off + asize;
        // metaslab_alloc_dva → metaslab_group_alloc adds the range to ms_allocating[txg].
        let pend = &mut self.txg.ms_allocating[t];
        match pend.last_mut() {
            Some(e) if e.0 == txg && e.2 == off => e.2 = off + asize,
            _ => pend.push((txg, off, off + asize)),
        }
        off
    }

    /// An lwb in the main pool or a `dmu_sync` block (`dmu_sync`: the txg whose dirty data
    /// it writes): allocated from free space like txg data (successive top-level vdevs), at
    /// `class`. An lwb is freed with the txg open now (`zil_sync`); a `dmu_sync` block
    /// becomes its record's copy at that txg's sync (`space.rs`).
    fn zil_pool_write(&mut self, token: u32, bytes: u32, class: IoClass, dmu_sync: Option<u64>, ctx: &mut Ctx<Ev>) {
        // User data reaching a non-log top-level vdev outside the syncing txg marks the pool
        // busy for the legacy scan (`spa_last_io`, zio.c:zio_vdev_io_start at il:44ecc5327a,
        // il:4445fffbbb, il:7adb730b58, zfs-0.6.5, zfs-0.7.0): an lwb is written with txg 0
        // (zil.c:zil_lwb_write_init), a `dmu_sync` block in an unsynced
        // txg (dmu.c:dmu_sync, dmu_sync_late_arrival). lwbs on a SLOG do not count (`vdev_islog`).
        self.last_user_io_ns = ctx.now();
        // An lwb goes to the normal class, never the special one (`zio_alloc_zil`: log,
        // embedded log, then normal; ZIO@zfs-2.2.0); a `dmu_sync` block is file data, which
        // `special_small_blocks` may send to the special class (`spa_preferred_class`).
        let mut tops = self.writeable_tops();
        let special = dmu_sync.is_some()
            && self.small_block_to_special(bytes as u64)
            && self.special_room(bytes as u64, 1)
            && tops.iter().any(|&t| self.tops[t].special);
        tops.retain(|&t| self.tops[t].special == special);
        if tops.is_empty() {
            // zio_alloc_zil fails: the commit falls back to txg_wait_synced, which the
            // pool's suspension holds (the txg's own sync suspends it if it has not yet).
            self.park_commit();
            return;
        }
        let t = tops[self.zil_pool_rotor % tops.len()];
        self.zil_pool_rotor += 1;
        let psize = (bytes as u64).next_multiple_of(1 << self.tops[t].ashift);
        let open = self.txg.eng.open_txg();
        let asize = self.tops[t].asize(psize);
        let off = self.alloc_free(t, asize, open);
        match dmu_sync {
            Some(txg) => self.space.orphan(txg, (t as u16, off, asize)),
            None => self.space.free_with(open, (t as u16, off, asize)),
        }
        // Guarded like `begin_sync`: dropped skip-sector writes complete inside write_block.
        let slot = self.zil_slot(token, SUBMIT_GUARD as u32);
        let n = self.write_block(t, off, psize, class, OWNER_ZIL | slot, ctx);
        for &l in &self.tops[t].leaves {
            self.zil_flush_owed[l as usize] = true;
        }
        let e = &mut self.zil_ios[slot as usize];
        e.1 = e.1 + n as u32 + 1 - SUBMIT_GUARD as u32;
        self.zil_io_done(slot, ctx);
    }

    /// `zil_flush_vdevs`: a cache flush to every leaf the ZIL wrote since its last flush
    /// of that kind. ZFS flushes bypass the vdev queue: straight to the block-layer FIFO.
    fn zil_flush(&mut self, token: u32, slog: bool, pool: bool, ctx: &mut Ctx<Ev>) {
        // Log blocks the allocator put in the main pool (no usable log vdev) are flushed
        // with the "SLOG" ones: ZFS flushes the vdevs an lwb was written to.
        let pool = pool || (slog && self.aux.slog_redirected());
        let slot = self.zil_slot(token, 0);
        let mut targets = Vec::new();
        for l in 0..self.leaves.len() {
            let is_log = self.leaves[l].role == LeafRole::Log;
            if self.zil_flush_owed[l] && ((is_log && slog) || (!is_log && pool)) && self.leaves[l].writeable() {
                self.zil_flush_owed[l] = false;
                targets.push(l as u16);
            }
        }
        self.zil_ios[slot as usize].1 = targets.len() as u32 + 1;
        for l in targets {
            self.submit_flush(l, OWNER_ZIL | slot, ctx);
        }
        self.zil_io_done(slot, ctx);
    }

    /// A flush command into leaf `leaf`'s block-layer FIFO (bypassing the queue policy).
    fn submit_flush(&mut self, leaf: u16, owner: u32, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let mut io = LeafIo::new(leaf, Op::Flush, IoClass::SyncWrite, 0, 0);
        io.owner = owner;
        io.enqueue_ns = now;
        io.issue_ns = now;
        let id = self.ios.alloc(io);
        let iss = Issue { head: id, offset: 0, size: 0, op: Op::Flush, class: IoClass::SyncWrite, members: 1 };
        if self.issues.len() <= id as usize {
            self.issues.resize(id as usize + 1 + 64, iss);
        }
        self.issues[id as usize] = iss;
        let l = &mut self.leaves[leaf as usize];
        Self::account_outstanding(l, now);
        l.dev_outstanding += 1;
        l.blk.push_back(id);
        self.drain_blk(leaf, ctx);
    }

    pub(crate) fn zil_io_done(&mut self, slot: u32, ctx: &mut Ctx<Ev>) {
        let e = &mut self.zil_ios[slot as usize];
        e.1 -= 1;
        if e.1 > 0 {
            return;
        }
        let token = e.0;
        self.zil_ios_free.push(slot);
        let mut out = Vec::new();
        if self.aux.slot_failed(slot) {
            self.zil.on_io_failed(ctx.now(), token, &mut out);
        } else {
            self.zil.on_io_done(ctx.now(), token, &mut out);
        }
        self.zil_actions(out, ctx);
    }

    // ---------------------------------------------------------------- database

    /// A session's next step: the transaction's page reads one after another, then its
    /// commit (the WAL append made durable: `fdatasync`, or an O_DSYNC write).
    fn db_start(&mut self, wl: usize, thread: u32, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let rs = self.recordsize;
        let w = &mut self.wls[wl];
        let db = w.db.as_mut().unwrap();
        let s = &mut db.sessions[thread as usize];
        if !s.in_txn {
            s.in_txn = true;
            s.reads_done = 0;
            s.txn_start_ns = now;
            w.inflight_ns += (now - w.inflight_since_ns) as u128 * w.inflight as u128;
            w.inflight_since_ns = now;
            w.inflight += 1;
        }
        let base = LogicalOp {
            wl: wl as u16, thread, start_ns: now, pending: 0, bytes: 0, dirty: 0, live: true, foid: db.data_foid,
            offset: 0, commit_ns: 0, rpc: NfsStep::Idle, db: DbOp::None, eio: false, rmw: false, tr: 0,
        };
        if s.reads_done < db.reads_per_txn {
            let (off, size) = Self::db_page(w);
            let id = self.alloc_op(LogicalOp { bytes: size, offset: off, db: DbOp::Read, ..base });
            self.start_read(wl, id, off, size, 0, ctx);
            return;
        }
        let (off, len) = (db.wal_off, db.wal_bytes);
        db.wal_off += len;
        let dirty = dirty_bytes(off, len, rs);
        let foid = db.wal_foid;
        let id = self.alloc_op(LogicalOp { bytes: len, dirty, foid, offset: off, db: DbOp::Wal, ..base });
        self.assign_write(id, false, ctx);
    }

    /// A random data page: size from `sizes`, page-aligned within the region.
    fn db_page(w: &mut Workload) -> (u64, u64) {
        let u = w.rng.f64();
        let size = w.sizes_cdf.iter().find(|(_, c)| u <= *c).unwrap_or(w.sizes_cdf.last().unwrap()).0.min(w.region_len);
        let slots = (w.region_len / size).max(1);
        (w.region_off + w.rng.below(slots) * size, size)
    }

    /// A database sub-operation completed.
    fn db_finish(&mut self, id: u32, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let op = &self.ops[id as usize];
        let (wl, thread, lat, kind) = (op.wl as usize, op.thread, now - op.start_ns, op.db);
        self.ops[id as usize].live = false;
        self.ops_free.push(id);
        let stopped = self.stopped;
        // `handle` keeps `phase_now` current at the end of every event.
        let phase = self.phase_now.0;
        let w = &mut self.wls[wl];
        let db = w.db.as_mut().unwrap();
        match kind {
            DbOp::Read => {
                db.reads.add(lat);
                db.reads_log2.add(lat);
                db.sessions[thread as usize].reads_done += 1;
                self.db_start(wl, thread, ctx);
            }
            DbOp::Wal => {
                db.commits.add(lat);
                db.commits_log2.add(lat);
                db.dirty_pages += db.dirty_per_txn as u64;
                let s = &mut db.sessions[thread as usize];
                s.in_txn = false;
                let (txn, bytes) = (now - s.txn_start_ns, db.wal_bytes);
                w.inflight_ns += (now - w.inflight_since_ns) as u128 * w.inflight as u128;
                w.inflight_since_ns = now;
                w.inflight -= 1;
                w.count_op(txn, bytes, phase);
                if now < w.stop_ns && !stopped {
                    if w.think_ns == 0 {
                        self.db_start(wl, thread, ctx);
                    } else {
                        ctx.schedule_in(w.think_ns, Ev::ThreadGo { wl: wl as u16, thread });
                    }
                }
            }
            DbOp::CkptWrite => {
                db.ckpt_acked += 1;
                self.db_ckpt_write_next(wl, ctx);
                self.db_ckpt_sync(wl, ctx);
            }
            DbOp::CkptSync => {
                db.ckpt_hist.add((now - db.ckpt_start_ns).max(1));
                db.checkpoints += 1;
                db.ckpt_active = false;
                db.ckpt_syncing = false;
            }
            DbOp::None => unreachable!(),
        }
    }

    /// `checkpoint_timeout` elapsed: write back every page dirtied since the last
    /// checkpoint began, spread over `checkpoint_spread` of the interval (a checkpoint
    /// still running when the next is due makes that one wait its turn: skipped here).
    fn db_checkpoint(&mut self, wl: usize, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let w = &mut self.wls[wl];
        let db = w.db.as_mut().unwrap();
        if now + db.checkpoint_ns < w.stop_ns && !self.stopped {
            ctx.schedule_in(db.checkpoint_ns, Ev::DbCheckpoint { wl: wl as u16 });
        }
        if db.ckpt_active || db.dirty_pages == 0 {
            return;
        }
        db.ckpt_active = true;
        db.ckpt_pages = std::mem::take(&mut db.dirty_pages);
        db.ckpt_pages_total += db.ckpt_pages;
        db.ckpt_written = 0;
        db.ckpt_acked = 0;
        db.ckpt_due = 0;
        db.ckpt_start_ns = now;
        self.db_tick(wl, ctx);
    }

    /// The checkpointer's pacing: the pages due by now (paced linearly over the spread)
    /// are written, then it naps `DB_TICK_NS`.
    fn db_tick(&mut self, wl: usize, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let db = self.wls[wl].db.as_mut().unwrap();
        let span = (db.checkpoint_ns as f64 * db.spread).max(1.0);
        let frac = ((now - db.ckpt_start_ns + DB_TICK_NS) as f64 / span).min(1.0);
        let due = ((db.ckpt_pages as f64 * frac).ceil() as u64).min(db.ckpt_pages);
        db.ckpt_due = due;
        let pages = db.ckpt_pages;
        self.db_ckpt_write_next(wl, ctx);
        if due < pages {
            ctx.schedule_in(DB_TICK_NS, Ev::DbTick { wl: wl as u16 });
        } else {
            self.db_ckpt_sync(wl, ctx);
        }
    }

    /// The checkpointer is one process writing one page at a time (PostgreSQL
    /// `BufferSync` → `FlushBuffer` → `write()`): the next page due goes out when the last
    /// write returned (its tx admitted and its data copied), so at most one of its writes
    /// waits in the write throttle.
    fn db_ckpt_write_next(&mut self, wl: usize, ctx: &mut Ctx<Ev>) {
        let db = self.wls[wl].db.as_ref().unwrap();
        if db.ckpt_written >= db.ckpt_due || db.ckpt_written > db.ckpt_acked {
            return;
        }
        let (rs, foid, now) = (self.recordsize, db.data_foid, ctx.now());
        let (off, size) = Self::db_page(&mut self.wls[wl]);
        let dirty = dirty_bytes(off, size, rs);
        let op = LogicalOp {
            wl: wl as u16, thread: DB_CKPT_THREAD, start_ns: now, pending: 0, bytes: size, dirty, live: true, foid,
            offset: off, commit_ns: 0, rpc: NfsStep::Idle, db: DbOp::CkptWrite, eio: false, rmw: false, tr: 0,
        };
        let id = self.alloc_op(op);
        self.wls[wl].db.as_mut().unwrap().ckpt_written += 1;
        // A page smaller than the record: the record is read first unless the ARC still
        // has it (the share `arc_hit`, as for the transactions' page reads).
        if self.rmw_reads(wl, id, off, size, ctx) == 0 {
            self.assign_write(id, false, ctx);
        }
    }

    /// Every checkpoint write is acknowledged: fsync the data files (`zil_commit` of
    /// their object; the pages' records go to the log unless their txg already synced).
    fn db_ckpt_sync(&mut self, wl: usize, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let db = self.wls[wl].db.as_mut().unwrap();
        if !db.ckpt_active || db.ckpt_syncing || db.ckpt_written < db.ckpt_pages || db.ckpt_acked < db.ckpt_pages {
            return;
        }
        db.ckpt_syncing = true;
        let foid = db.data_foid;
        let op = LogicalOp {
            wl: wl as u16, thread: DB_CKPT_THREAD, start_ns: now, pending: 0, bytes: 0, dirty: 0, live: true, foid,
            offset: 0, commit_ns: now, rpc: NfsStep::Idle, db: DbOp::CkptSync, eio: false, rmw: false, tr: 0,
        };
        let id = self.alloc_op(op);
        let mut out = Vec::new();
        self.zil.commit(now, foid, id, &mut out);
        self.zil_actions(out, ctx);
    }

    fn db_results(db: &Db) -> Value {
        json!({
            "reads": {"ops": db.reads.n, "latency_ns": serde_json::to_value(db.reads.pcts()).unwrap(),
                      "latency_log2": db.reads_log2.counts.to_vec()},
            "commits": {"ops": db.commits.n, "latency_ns": serde_json::to_value(db.commits.pcts()).unwrap(),
                        "latency_log2": db.commits_log2.counts.to_vec()},
            "checkpoints": {"done": db.checkpoints, "pages": db.ckpt_pages_total,
                            "duration_ns": serde_json::to_value(db.ckpt_hist.pcts()).unwrap(),
                            "running_at_end": db.ckpt_active},
            "dirty_pages_at_end": db.dirty_pages,
        })
    }

    /// One thing op `id` waited for is done (a leaf I/O of its own, or a block or record
    /// another op was reading): with nothing left it goes on with its indirect-block chain,
    /// or its data is ready.
    fn op_wait_done(&mut self, id: u32, ctx: &mut Ctx<Ev>) {
        let op = &mut self.ops[id as usize];
        op.pending -= 1;
        if op.pending == 0 {
            if !self.meta_chains.is_empty() && self.meta_chains.contains_key(&id) {
                self.next_indirect(id, ctx);
            } else {
                self.data_ready(id, ctx);
            }
        }
    }

    /// The records op `id` was reading (`rec_inflight`) are in, or will not be (a read
    /// with no copy): the ops that found them being read go on.
    fn release_recs(&mut self, id: u32, ctx: &mut Ctx<Ev>) {
        if self.op_recs.is_empty() {
            return;
        }
        let Some(recs) = self.op_recs.remove(&id) else { return };
        let w16 = self.ops[id as usize].wl;
        for b in recs {
            for w in self.rec_inflight.remove(&(w16, b)).unwrap_or_default() {
                self.op_wait_done(w, ctx);
            }
        }
    }

    /// Every record an operation needs is in memory: the copy to the caller's buffer
    /// (the same memory-copy cost as an ARC hit) ends the operation.
    fn data_ready(&mut self, id: u32, ctx: &mut Ctx<Ev>) {
        self.release_recs(id, ctx);
        if std::mem::take(&mut self.ops[id as usize].rmw) {
            // The records a write covers in part are in: now the write itself.
            self.assign_write(id, false, ctx);
            return;
        }
        let op = &self.ops[id as usize];
        let t = self.read_copy_ns(op.wl as usize, op.bytes);
        ctx.schedule_in(t, Ev::OpDone { op: id });
    }

    /// What a read whose records are all in memory still costs: `arc_hit_ns` and the copy
    /// of its `bytes` to the caller (`dmu_read_uio` → `uiomove`, one core's memcpy, as a
    /// buffered write's copy the other way).
    fn read_copy_ns(&self, wl: usize, bytes: u64) -> u64 {
        self.wls[wl].arc_hit_ns + copy_ns(bytes)
    }

    fn finish_op(&mut self, id: u32, ctx: &mut Ctx<Ev>) {
        let eio = self.ops[id as usize].eio;
        if eio {
            self.wls[self.ops[id as usize].wl as usize].read_errors += 1;
        }
        if let Some(k) = TraceOp::from_tag(self.ops[id as usize].tr) {
            let op = &self.ops[id as usize];
            let (wl, bytes, lat) = (op.wl as usize, op.bytes, ctx.now() - op.start_ns);
            let phase = self.phase_now.0 as usize;
            let t = self.wls[wl].trace.as_mut().unwrap();
            if t.complete((!eio).then_some(k), bytes, lat, phase, ctx.now()) {
                self.stop_if_workloads_done(ctx);
            }
        }
        if self.ops[id as usize].db != DbOp::None {
            self.db_finish(id, ctx);
            return;
        }
        let now = ctx.now();
        let op = &self.ops[id as usize];
        let (wl, thread, lat, bytes) = (op.wl as usize, op.thread, now - op.start_ns, op.bytes);
        debug_assert!(lat > 0, "zero-latency op {id} pending {} at {now}", op.pending);
        // `handle` keeps `phase_now` current at the end of every event.
        let phase = self.phase_now.0;
        self.ops[id as usize].live = false;
        self.ops_free.push(id);
        let w = &mut self.wls[wl];
        w.inflight_ns += (now - w.inflight_since_ns) as u128 * w.inflight as u128;
        w.inflight_since_ns = now;
        w.inflight -= 1;
        if eio {
            // A failed read counts in read_errors only, not in ops, bytes or latency, and
            // its thread stops, as a fio job does on an I/O error (continue_on_error=none).
            // (Open-loop arrivals go on: they do not wait for completions.) Its time in
            // flight leaves the in-flight integral too, so Little's law holds over the ops
            // that are counted.
            w.inflight_ns -= lat as u128;
            // A single-pass trace whose every thread stopped so is over.
            let threads = w.threads;
            if w.trace.as_mut().is_some_and(|t| !t.open_loop() && t.stop_thread(threads, now)) {
                self.stop_if_workloads_done(ctx);
            }
            return;
        }
        w.count_op(lat, bytes, phase);
        let open_loop = w.trace.as_ref().is_some_and(|t| t.open_loop());
        if w.rate_per_s.is_none() && !open_loop && now < w.stop_ns && !self.stopped {
            if w.think_ns == 0 {
                self.start_op(wl, thread, ctx);
            } else {
                ctx.schedule_in(w.think_ns, Ev::ThreadGo { wl: wl as u16, thread });
            }
        }
    }

    // ---------------------------------------------------------------- pool

    /// Issue the leaf reads of logical record `b` (the layout's `b`-th file data block,
    /// from its first DVA) for `owner`; returns how many.
    pub(crate) fn read_block(&mut self, b: u64, class: IoClass, owner: u32, ctx: &mut Ctx<Ev>) -> u32 {
        let blk = self.layout.data_block(b % self.nblocks.max(1));
        let d = blk.dvas[0];
        self.last_user_io_ns = ctx.now();
        self.read_at(d.vdev as usize, d.offset, blk.psize, class, 0, owner, ctx)
    }

    /// Normal (non-scan) read of a block at `voff` on top-level vdev `t`: a healthy
    /// mirror child chosen by load; raidz data columns, plus every parity column when a
    /// data column is missing (reconstruction, `vdev_raidz_io_start`). A block with no
    /// readable copy (every mirror child gone, more raidz columns missing than parity)
    /// issues nothing, returns 0 and goes into the error log (`lost_blocks`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn read_at(&mut self, t: usize, voff: u64, psize: u64, class: IoClass, fl: u8, owner: u32, ctx: &mut Ctx<Ev>) -> u32 {
        let n = self.read_at_leaves(t, voff, psize, class, fl, owner, ctx);
        if n > 0 {
            self.top_cnt[t].add(Op::Read, psize);
        }
        n
    }

    /// Is the block at `voff` of top-level vdev `t` in the pool's error log (no copy of it
    /// survived), or in a range a sequential rebuild could not reconstruct? Its copies are
    /// garbage from then on, whatever disks come back.
    #[inline]
    pub(crate) fn block_lost(&self, t: usize, voff: u64) -> bool {
        (!self.lost_blocks.is_empty() && self.lost_blocks.contains(&(t as u16, voff)))
            || (!self.lost_ranges.is_empty() && self.in_lost_range(t, voff))
    }

    #[cold]
    fn in_lost_range(&self, t: usize, voff: u64) -> bool {
        let t = t as u16;
        self.lost_ranges.range(..=(t, voff)).next_back().is_some_and(|(&(lt, _), &end)| lt == t && voff < end)
    }

    /// Add [`start`, `end`) of top-level vdev `t` to `lost_ranges`, merged with the ranges it
    /// overlaps or touches.
    pub(crate) fn add_lost_range(&mut self, t: u16, start: u64, end: u64) {
        let (mut a, mut b) = (start, end);
        if let Some((&(lt, s), &e)) = self.lost_ranges.range(..=(t, a)).next_back() {
            if lt == t && e >= a {
                (a, b) = (s, b.max(e));
                self.lost_ranges.remove(&(t, s));
            }
        }
        while let Some((&(lt, s), &e)) = self.lost_ranges.range((t, a)..).next() {
            if lt != t || s > b {
                break;
            }
            b = b.max(e);
            self.lost_ranges.remove(&(t, s));
        }
        self.lost_ranges.insert((t, a), b);
    }

    #[allow(clippy::too_many_arguments)]
    fn read_at_leaves(&mut self, t: usize, voff: u64, psize: u64, class: IoClass, fl: u8, owner: u32, ctx: &mut Ctx<Ev>) -> u32 {
        if self.block_lost(t, voff) {
            // A lost block reads back as EIO (failmode=continue), with no device I/O: the
            // checksum of whatever copy is read fails. (ZFS reads the copies first; the
            // cost of that read is left out.)
            return 0;
        }
        match self.tops[t].kind {
            VdevType::Disk | VdevType::Mirror => {
                let leaf = if self.tops[t].kind == VdevType::Disk { self.child_read_leaf(t, 0) } else { self.try_pick_mirror_child(t, voff, psize, 0, ctx.now()) };
                let Some(leaf) = leaf else {
                    self.log_lost_read(t, voff);
                    return 0;
                };
                self.submit_leaf(leaf, Op::Read, class, fl, voff, psize as u32, owner, ctx);
                1
            }
            k => {
                let mut cols = std::mem::take(&mut self.cols);
                self.tops[t].map(voff, psize, false, &mut cols);
                let n = if self.tops[t].leaves.iter().all(|&l| self.leaves[l as usize].holds_data()) {
                    self.read_data_columns(t, &cols, class, fl, owner, ctx)
                } else {
                    // dRAID: a column missing makes the read whole stripes, padding too
                    // (`vdev_draid_map_alloc_empty`), for the reconstruction.
                    if self.tops[t].draid.is_some() && cols.iter().any(|c| self.col_read_leaf(t, c.child as usize, c.offset, 0).is_none()) {
                        self.tops[t].map(voff, psize, true, &mut cols);
                    }
                    self.read_degraded(t, voff, k.nparity(), &cols, class, fl, owner, ctx)
                };
                self.cols = cols;
                n
            }
        }
    }

    /// A raidz read with every child readable: the data columns, each from its child.
    #[allow(clippy::too_many_arguments)]
    fn read_data_columns(&mut self, t: usize, cols: &[Column], class: IoClass, fl: u8, owner: u32, ctx: &mut Ctx<Ev>) -> u32 {
        let mut n = 0;
        for c in cols.iter().filter(|c| !c.skip && c.size > 0 && !c.parity) {
            let leaf = self.tops[t].leaves[c.child as usize];
            self.submit_leaf(leaf, Op::Read, class, fl, c.offset, c.size as u32, owner, ctx);
            n += 1;
        }
        n
    }

    /// A raidz read with a child missing: the readable columns, parity too if a data
    /// column is gone; nothing (0) if more are gone than parity can rebuild.
    #[allow(clippy::too_many_arguments)]
    fn read_degraded(&mut self, t: usize, voff: u64, nparity: u32, cols: &[Column], class: IoClass, fl: u8, owner: u32, ctx: &mut Ctx<Ev>) -> u32 {
        // Columns no child can read, per row (dRAID: a block across a group end has two,
        // each with its own parity): any data one means reconstruction from parity.
        let (mut gone, mut missing_data) = ([0usize; 2], [false; 2]);
        for c in cols.iter().filter(|c| !c.skip && c.size > 0 && self.col_read_leaf(t, c.child as usize, c.offset, 0).is_none()) {
            gone[c.row as usize] += 1;
            missing_data[c.row as usize] |= !c.parity;
        }
        if gone.iter().any(|&g| g > nparity as usize) {
            // vdev_raidz_combrec: more columns lost than parity can rebuild.
            self.log_lost_read(t, voff);
            return 0;
        }
        let mut n = 0;
        for c in cols.iter().filter(|c| !c.skip && c.size > 0 && (!c.parity || missing_data[c.row as usize])) {
            if let Some(leaf) = self.col_read_leaf(t, c.child as usize, c.offset, 0) {
                self.submit_leaf(leaf, Op::Read, class, fl, c.offset, c.size as u32, owner, ctx);
                n += 1;
            }
        }
        n
    }

    /// The leaf that can serve reads for child `c` of top-level vdev `t`: the original disk
    /// unless it failed or is offline; a disk being resilvered or rebuilt holds nothing yet
    /// (its DTL covers every txg), so it never serves reads. (A disk back from `offline`
    /// misses only blocks written meanwhile, which foreground reads never address.)
    pub(crate) fn child_read_leaf(&self, t: usize, c: usize) -> Option<u16> {
        let old = self.tops[t].leaves[c];
        if self.leaves[old as usize].holds_data() {
            return Some(old);
        }
        // A hot spare that finished its resilver stands in for a failed disk (`spare-N`
        // stays until the administrator detaches one side).
        self.replacing[t][c].filter(|&r| {
            let leaf = &self.leaves[r as usize];
            leaf.writeable() && leaf.dtl.is_none()
        })
    }

    /// The leaves a write to child `c` goes to: the original (unless failed or offline) and
    /// the new disk of a `replacing` vdev.
    #[inline]
    pub(crate) fn child_write_leaves(&self, t: usize, c: usize) -> [Option<u16>; 2] {
        let old = self.tops[t].leaves[c];
        [self.leaves[old as usize].writeable().then_some(old), self.replacing[t][c]]
    }

    /// Demand read of record `b` for logical op `id`: served from a prefetched record if
    /// the stream has it (waiting for it if still in flight), else read from the pool.
    /// `feed`: the record is not on a cache device (not an L2ARC hit the pool serves
    /// instead), so once in the ARC it may be fed to one (`l2feed.rs`).
    fn demand_read(&mut self, wl: usize, b: u64, id: u32, feed: bool, file: u32, ctx: &mut Ctx<Ev>) {
        if feed && !self.cache_leaves.is_empty() {
            let psize = self.layout.data_block(b % self.nblocks.max(1)).psize;
            self.l2_eligible(psize, 1);
        }
        if let Some(pf) = self.wls[wl].pf.as_mut() {
            if let Some(slot) = pf.lookup(file, b) {
                let rec = &mut self.pf_recs[slot as usize];
                if rec.lost {
                    if !self.demand_read_suspends(b, id, ctx) {
                        self.ops[id as usize].eio = true;
                    }
                } else {
                    pf.hits += 1;
                    if rec.pending > 0 {
                        rec.waiters.push(id);
                        self.ops[id as usize].pending += 1;
                        if self.pf_promote && !rec.promoted {
                            rec.promoted = true;
                            pf.promoted += 1;
                            self.promote_prefetch(slot);
                        }
                    }
                }
                return;
            }
        }
        // An op waits on its own reads; count before submitting (completions are events).
        self.ops[id as usize].pending += 1;
        let n = self.read_block(b, IoClass::SyncRead, id, ctx);
        self.ops[id as usize].pending -= 1;
        self.ops[id as usize].pending += n;
        if n == 0 && !self.demand_read_suspends(b, id, ctx) {
            // No copy could be read: the op will return EIO.
            self.ops[id as usize].eio = true;
        }
    }

    /// A demand read of record `b` found no copy: true if the op now waits on the
    /// suspended pool (its vdev is dead and failmode is not `continue`).
    fn demand_read_suspends(&mut self, b: u64, id: u32, ctx: &mut Ctx<Ev>) -> bool {
        let t = self.layout.data_block(b % self.nblocks.max(1)).dvas[0].vdev as usize;
        self.read_suspends(t, id, ctx)
    }

    /// Tell the workload's prefetcher about a read of `size` bytes at `off` of `file`
    /// (`in_arc[i]`: its i-th record was in memory), and issue the prefetch reads it asks
    /// for (ASYNC_READ, `dbuf_prefetch`). `zfs_read` hands the DMU a read in pieces that end
    /// at 1 MiB file offsets (`zfs_read_chunk_size`, ZPL@zfs-0.6.5 … 2.3.0), one after the
    /// other, each with its own `dmu_zfetch` call and its prefetch issued before the next
    /// piece; `zvol_read` hands it pieces of `DMU_MAX_ACCESS`/2 (32 MiB) from the request's
    /// start (zvol.c@zfs-0.7.0:892, zvol_os.c@zfs-2.2.0:459). The model issues every
    /// piece's demand reads at once, before this.
    fn zfetch(&mut self, wl: usize, file: u32, off: u64, size: u64, in_arc: &[bool], ctx: &mut Ctx<Ev>) {
        let rs = self.recordsize;
        let now = ctx.now();
        let volume = self.zil.is_volume();
        let Some(pf) = self.wls[wl].pf.as_ref() else { return };
        let (chunk, origin) = if volume { (32 << 20, off) } else { (1 << 20, pf.base(file) * rs) };
        let max_access = pf.max_access_bytes();
        let in_flight_cached = pf.in_flight_is_cached();
        let first = off / rs;
        let last = (off + size - 1) / rs;
        let mut fetches = std::mem::take(&mut self.pf_fetches);
        let mut released = std::mem::take(&mut self.pf_released);
        let mut cached = std::mem::take(&mut self.pf_cached);
        fetches.clear();
        let (mut a, end) = (off, off + size);
        let mut prev_last = None;
        while a < end {
            let b = (a + chunk - (a - origin.min(a)) % chunk).min(end);
            let (r0, r1) = (a / rs, (b - 1) / rs);
            let piece = b - a;
            a = b;
            if piece > max_access {
                // Before 2.2 a DMU access over `zfetch_array_rd_sz` is not prefetched for
                // (only a volume's pieces can be; a file's are ≤ 1 MiB).
                continue;
            }
            // What each record looks like to this piece: in the ARC, or prefetched (read,
            // or being read where that counts), or finished by the piece before (a record
            // larger than a piece).
            cached.clear();
            for r in r0..=r1 {
                let held = self.wls[wl].pf.as_ref().unwrap().lookup(file, r).map(|slot| in_flight_cached || self.pf_recs[slot as usize].pending == 0);
                cached.push(in_arc[(r - first) as usize] || held == Some(true) || prev_last == Some(r));
            }
            prev_last = Some(r1);
            released.clear();
            let from = fetches.len();
            let io_active = self.pf_active;
            self.wls[wl].pf.as_mut().unwrap().access(file, r0, &cached, now, io_active, &mut fetches, &mut released);
            for &slot in &released {
                let rec = &mut self.pf_recs[slot as usize];
                rec.in_window = false;
                if rec.pending == 0 {
                    self.pf_free.push(slot);
                }
            }
            for k in from..fetches.len() {
                let (gen, blocks) = (fetches[k].gen, fetches[k].blocks.clone());
                for r in blocks {
                    // `dbuf_prefetch` reads nothing already in memory or being read: what a
                    // stream holds, and this read's own records (read on demand already).
                    if (first..=last).contains(&r) || self.wls[wl].pf.as_ref().unwrap().lookup(file, r).is_some()
                        || self.wls[wl].arc.as_ref().is_some_and(|a| a.holds(r)) {
                        continue;
                    }
                    self.prefetch_read(wl, file, gen, r, ctx);
                }
            }
        }
        self.pf_fetches = fetches;
        self.pf_released = released;
        self.pf_cached = cached;
    }

    /// Read record `b` ahead for stream `gen` of `file` of workload `wl`.
    fn prefetch_read(&mut self, wl: usize, file: u32, gen: u64, b: u64, ctx: &mut Ctx<Ev>) {
        let slot = match self.pf_free.pop() {
            Some(s) => s,
            None => {
                self.pf_recs.push(PfRec::default());
                (self.pf_recs.len() - 1) as u32
            }
        };
        let rec = &mut self.pf_recs[slot as usize];
        let mut ios = std::mem::take(&mut rec.ios);
        ios.clear();
        let waiters = std::mem::take(&mut rec.waiters);
        *rec = PfRec { wl: wl as u16, file, gen, b, pending: 1, waiters, ios: Vec::new(), promoted: false, in_window: true, lost: false };
        // A stream gone since it asked (a later piece of the same read ended it): nobody
        // will look the record up, so it is freed once read.
        let kept = self.wls[wl].pf.as_mut().unwrap().push(file, gen, b, slot);
        self.pf_recs[slot as usize].in_window = kept;
        if self.pf_promote {
            self.pf_capture = Some(ios);
        }
        debug_assert!(slot < 1 << 30, "prefetch slots end below the sync copies' owner tag");
        let n = self.read_block(b, IoClass::AsyncRead, OWNER_PF | slot, ctx);
        let rec = &mut self.pf_recs[slot as usize];
        rec.ios = self.pf_capture.take().unwrap_or_default();
        rec.pending = rec.pending - 1 + n;
        rec.lost = n == 0;
        if n == 0 {
            self.wls[wl].pf.as_mut().unwrap().done(file, gen, b);
            if !kept {
                self.pf_free.push(slot);
            }
        } else {
            self.pf_active += 1;
            // The prefetch's `arc_read` makes the record an ARC buffer (a modelled ARC's
            // too: a later demand read of it is a hit).
            let now = ctx.now();
            if let Some(arc) = self.wls[wl].arc.as_mut() {
                arc.insert_prefetched(b, now);
            }
        }
    }

    /// A demand read waits on prefetched record `slot` still in flight: from 0.8.0
    /// `arc_read` raises the prefetch's zio tree to SYNC_READ (`zio_change_priority`,
    /// a8b2e30685; ARC@zfs-0.8.0 … 2.3.0), so its reads still queued move to their
    /// leaves' SYNC_READ queue; those already at the disk are left as they are
    /// (`vdev_queue_change_io_priority`, VQ@zfs-0.8.0, 2.2.0). Nothing issues because of
    /// it — the leaf picks again at its next enqueue or completion.
    fn promote_prefetch(&mut self, slot: u32) {
        let owner = OWNER_PF | slot;
        let ios = std::mem::take(&mut self.pf_recs[slot as usize].ios);
        for &id in &ios {
            let io = self.ios.get(id);
            if io.owner == owner && io.op == Op::Read {
                let leaf = io.leaf as usize;
                self.leaves[leaf].policy.change_priority(id, IoClass::SyncRead, &mut self.ios);
            }
        }
        self.pf_recs[slot as usize].ios = ios;
    }

    fn prefetch_done(&mut self, slot: u32, ctx: &mut Ctx<Ev>) {
        let rec = &mut self.pf_recs[slot as usize];
        rec.pending -= 1;
        if rec.pending > 0 {
            return;
        }
        let (wl, file, gen, b) = (rec.wl as usize, rec.file, rec.gen, rec.b);
        let waiters = std::mem::take(&mut rec.waiters);
        self.pf_active -= 1;
        if let Some(pf) = self.wls[wl].pf.as_mut() {
            pf.done(file, gen, b);
        }
        if !rec.in_window {
            self.pf_free.push(slot);
        }
        for id in waiters {
            let op = &mut self.ops[id as usize];
            op.pending -= 1;
            if op.pending == 0 {
                self.data_ready(id, ctx);
            }
        }
    }

    fn write_block(&mut self, t: usize, voff: u64, rs: u64, class: IoClass, owner: u32, ctx: &mut Ctx<Ev>) -> u64 {
        self.top_cnt[t].add(Op::Write, rs);
        let mut n = 0;
        match self.tops[t].kind {
            VdevType::Disk | VdevType::Mirror => {
                for c in 0..self.tops[t].leaves.len() {
                    for leaf in self.child_write_leaves(t, c).into_iter().flatten() {
                        self.txg.flush_owed[leaf as usize] = true;
                        self.submit_leaf(leaf, Op::Write, class, 0, voff, rs as u32, owner, ctx);
                        n += 1;
                    }
                }
            }
            _ => {
                let mut cols = std::mem::take(&mut self.cols);
                self.tops[t].map(voff, rs, true, &mut cols);
                let draid = self.tops[t].draid.is_some();
                // Raidz pads an allocation to whole rows with skip sectors, written as
                // OPTIONAL I/Os so that writes on either side can merge through them since
                // 6854621 (il:f94275ce20, 2009-07-16); snv_117 (solaris-2009) wrote only the
                // real columns and left the padding as a hole.
                let pad = self.cfg.release >= Release::Freebsd9;
                for c in cols.iter().filter(|c| c.size > 0 && (pad || !c.skip)) {
                    let fl = if c.skip { flags::OPTIONAL } else { 0 };
                    if draid {
                        // A distributed spare's share may lie on a disk that failed too.
                        let mut w = std::mem::take(&mut self.col_writes);
                        self.col_write_leaves(t, c.child as usize, c.offset, &mut w);
                        for &(leaf, via) in &w {
                            self.txg.flush_owed[leaf as usize] = true;
                            self.submit_leaf_via(leaf, via, Op::Write, class, fl, c.offset, c.size as u32, owner, ctx);
                            n += 1;
                        }
                        self.col_writes = w;
                        continue;
                    }
                    for leaf in self.child_write_leaves(t, c.child as usize).into_iter().flatten() {
                        self.txg.flush_owed[leaf as usize] = true;
                        self.submit_leaf(leaf, Op::Write, class, fl, c.offset, c.size as u32, owner, ctx);
                        n += 1;
                    }
                }
                self.cols = cols;
            }
        }
        n
    }

    /// `vdev_mirror_child_select` for a block born in `birth`: children whose DTL holds
    /// that txg are skipped (0: a block older than any DTL). None when no child can serve
    /// the read.
    pub(crate) fn try_pick_mirror_child(&mut self, t: usize, off: u64, size: u64, birth: u64, now: u64) -> Option<u16> {
        // The child a read may use: readable, and holding the block's txg (its DTL).
        let usable = |m: &Self, c: usize| {
            m.child_read_leaf(t, c).filter(|&l| !(birth > 0 && m.leaf_misses(l, birth)))
        };
        let n = self.tops[t].leaves.len();
        if self.cfg.release < crate::release::Release::Zfs065 {
            // Solaris, illumos and FreeBSD's legacy ZFS (vdev_mirror_map_alloc, il:2009–2014
            // before the 0.7 load rule reached illumos): the preferred child is the read's
            // 2 MiB stripe, (offset >> vdev_mirror_shift) % children with shift 21, and
            // vdev_mirror_child_select takes the first usable child from there.
            let pref = ((off >> 21) % n as u64) as usize;
            return (0..n).map(|i| (pref + i) % n).find_map(|c| usable(self, c));
        }
        if self.cfg.release == crate::release::Release::Zfs065 {
            // ZoL 0.6.5 (MR@zfs-0.6.5 vdev_mirror_map_alloc): the readable children with the
            // fewest active I/Os (vdev_mirror_pending, vq_active_tree); among equals the one
            // the current zfs_vdev_mirror_switch_us (10 ms) time slice picks; then, as
            // child_select does, the first usable child from it. A replacing-N or spare-N
            // child is an interior vdev whose own queue is never used: 0 pending, always.
            const SWITCH_NS: u64 = 10_000 * 1_000;
            let active = |m: &Self, c: usize| {
                m.child_read_leaf(t, c).map(|l| if m.replacing[t][c].is_some() { 0 } else { m.leaves[l as usize].active })
            };
            let lowest = (0..n).filter_map(|c| active(self, c)).min()?;
            let tied = || (0..n).filter(|&c| active(self, c) == Some(lowest));
            let nr = tied().count() as u64;
            let pref = tied().nth(((now / SWITCH_NS) % nr) as usize).unwrap_or(0);
            return (0..n).map(|i| (pref + i) % n).find_map(|c| usable(self, c));
        }
        // zfs-0.7 … 2.3 (MR@zfs-0.7.13 … MR@zfs-2.3.0 vdev_mirror_child_select): the usable
        // children with the lowest vdev_mirror_load.
        // The tied children in child order; a mirror wider than the array (rare) counts
        // them all and finds the pick in a second pass.
        let mut best = i64::MAX;
        let mut tied = 0usize;
        let mut cands: [u16; 8] = [0; 8];
        for c in 0..n {
            let Some(l) = usable(self, c) else { continue };
            let load = self.mirror_child_load(t, c, l, off);
            if load < best {
                best = load;
                tied = 0;
            }
            if load == best {
                if let Some(slot) = cands.get_mut(tied) {
                    *slot = l;
                }
                tied += 1;
            }
        }
        if tied == 0 {
            return None;
        }
        // vdev_mirror_preferred_child_randomize below the root: among equals the read's
        // 2 MiB stripe picks, (io_offset >> vdev_mirror_shift) % count with shift 21 — no
        // random draw (only the root's choice among DVAs draws one).
        let pick = ((off >> 21) % tied as u64) as usize;
        let chosen = match cands.get(pick) {
            Some(&l) => Some(l),
            None => (0..n)
                .filter_map(|c| usable(self, c).filter(|&l| self.mirror_child_load(t, c, l, off) == best))
                .nth(pick),
        };
        // 0.7.0 … 0.7.5: the chosen child remembers where this read ends. A replacing-N
        // or spare-N child would remember it in its own (interior) queue, which the model
        // keeps at 0 as later releases do.
        if let Some(l) = chosen.filter(|_| self.cfg.release == crate::release::Release::Zfs07) {
            if self.tops[t].leaves.iter().zip(&self.replacing[t]).any(|(&c, r)| c == l && r.is_none()) {
                self.leaves[l as usize].mirror_last = off + size;
            }
        }
        chosen
    }

    /// `vdev_mirror_load` of child `c` of mirror `t` (read leaf `l`) for a read at `off`.
    /// A `replacing-N` or `spare-N` child is an interior vdev: every vdev has a queue
    /// (`vdev_queue_init` in `vdev_alloc_common`) but only leaves use theirs, so its
    /// length and last offset stay 0 (`vdev_queue_length`, `vdev_queue_last_offset`) and
    /// its load is the seek penalty alone, whatever its disks are doing; it counts as
    /// non-rotational only when all its disks are (`vdev_open_children`). MR@zfs-0.7.13 …
    /// MR@zfs-2.3.0, VQ@zfs-2.1.0/2.2.0.
    fn mirror_child_load(&self, t: usize, c: usize, l: u16, off: u64) -> i64 {
        if self.replacing[t][c].is_some() {
            let orig = self.spare_link(t, c).filter(|k| k.new.is_some()).map(|k| k.orig);
            let rotational = [Some(self.tops[t].leaves[c]), self.replacing[t][c], orig]
                .into_iter()
                .flatten()
                .any(|d| self.leaves[d as usize].rotational);
            return self.mirror_pen.load(0, 0, rotational, off);
        }
        let leaf = &self.leaves[l as usize];
        if self.cfg.release == crate::release::Release::Zfs07 {
            return self.mirror_pen.load_070(leaf.active, leaf.mirror_last, leaf.rotational, off);
        }
        self.mirror_pen.load(leaf.active, leaf.last_offset, leaf.rotational, off)
    }

    // ---------------------------------------------------------------- txg

    /// Carry out what the txg engine asked for (in order; nested calls use their own buffer).
    pub(crate) fn txg_actions(&mut self, out: Vec<TxgAction>, ctx: &mut Ctx<Ev>) {
        self.txg_mirror();
        for a in out {
            match a {
                TxgAction::StartSync { txg, dirty_bytes, overridden_bytes } => {
                    self.begin_sync(txg, dirty_bytes, overridden_bytes, ctx)
                }
                TxgAction::Timer { at_ns } => ctx.schedule_at(at_ns.max(ctx.now()), Ev::TxgTimer),
                TxgAction::Resume { tx_id, at_ns } => ctx.schedule_at(at_ns.max(ctx.now()), Ev::TxRetry { op: tx_id }),
                TxgAction::Synced { txg } => self.zil.on_txg_synced(txg),
                TxgAction::Elided => {
                    self.space.idle_sync();
                    self.zil.on_idle_sync();
                }
                TxgAction::WaitDone { waiter } if waiter & crate::aux_fail::ZIL_TXG_WAITER != 0 => {
                    self.zil_io_done(waiter & !crate::aux_fail::ZIL_TXG_WAITER, ctx)
                }
                TxgAction::WaitDone { waiter } => self.rebuild_wait_done(waiter, ctx),
            }
        }
        self.txg_mirror();
    }

    fn txg_mirror(&mut self) {
        self.txg.dirty = self.txg.eng.dirty_bytes();
    }

    /// Tell the engine whether a scan wants back-to-back syncs (a requested scan starts at
    /// the next txg boundary, so a pending request counts too), and act on its answer.
    /// The scan code calls this when it needs a txg boundary.
    pub(crate) fn start_sync(&mut self, ctx: &mut Ctx<Ev>) {
        let active = self.scan_wants_syncs();
        let mut out = Vec::new();
        self.txg.eng.set_scan_active(ctx.now(), active, &mut out);
        self.txg_actions(out, ctx);
    }

    /// spa_sync of one txg: write the dirty data (dsl_pool_sync, waited for), then the
    /// scan's share of the txg (dsl_scan_sync) when a scan is active, then the uberblock
    /// (one small SYNC_WRITE per leaf, `vdev_uberblock_sync`). While a scan is active the
    /// engine starts the next txg as soon as this one ends (§4.1: the sync thread does not wait).
    /// spa_sync's data phase: `bytes` of dirty data, of which `overridden` are already on
    /// disk (`dmu_sync`), so only the rest is written; all of it is undirtied as it lands.
    fn begin_sync(&mut self, txg: u64, bytes: u64, overridden: u64, ctx: &mut Ctx<Ev>) {
        let rs = self.recordsize;
        self.txg.syncing = true;
        self.txg.sync_txg = txg;
        self.txg.phase = SyncPhase::Data;
        self.txg.last_sync_start_ns = ctx.now();
        let w = self.dirty_recs.take(&self.layout, txg);
        self.txg.sync_wrote_objsets = !w.meta.is_empty();
        debug_assert!(w.data_bytes + w.meta.iter().map(|m| m.2).sum::<u64>() > 0 || bytes == 0);
        let written = w.data_bytes - overridden.min(w.data_bytes);
        let nrec = written.div_ceil(rs);
        self.dtl_note_sync(txg);
        // A scan's sync writes its state to the MOS too (dsl_scan_sync_state).
        if self.writeable_tops().is_empty() && (nrec > 0 || !w.meta.is_empty() || self.scan_active()) {
            // No vdev for the txg's blocks: the allocation fails, the pool suspends, and
            // this sync waits in zio_wait for a resume that never comes (the guard stays).
            self.txg.sync_pending_ios += SUBMIT_GUARD;
            self.suspend(crate::suspend::SuspendCause::Write, ctx);
            return;
        }
        // Every dirty buffer of the txg is in the ARC once written, L2ARC-eligible
        // (`arc_write`), the ones dmu_sync wrote early too.
        if !self.cache_leaves.is_empty() {
            self.l2_eligible(rs, w.data_bytes.div_ceil(rs));
            for &(psize, _, n) in &w.meta {
                self.l2_eligible(psize, n);
            }
        }
        // The data records, then the dirty indirect and dnode blocks and the objsets
        // above them, each with its copies (ditto blocks), through the allocation stage.
        let mut meta = Vec::new();
        for (&(psize, ndvas, n), keys) in w.meta.iter().zip(&w.meta_keys) {
            meta.extend(keys.iter().take(n as usize).map(|&key| (psize, ndvas, key)));
        }
        self.sync_data_blocks(w.data, written, nrec, meta, bytes, ctx);
        self.sync_advance(ctx);
    }

    /// The MOS blocks of the syncing txg: a running scan's state (`dsl_scan_sync_state`),
    /// then the space-map blocks (`spacemap.rs`) of the metaslabs its allocations
    /// (`ms_allocating`, SLOG log blocks) and frees touched, then the MOS dnode block and
    /// objset above them when the data phase did not write those; each block three copies
    /// through the allocation stage. Returns the sync's pending work (0: nothing to wait for).
    fn sync_space_maps(&mut self, ctx: &mut Ctx<Ev>) -> u64 {
        use crate::spacemap::MsChange;
        let txg = self.txg.sync_txg;
        let tops = self.writeable_tops();
        self.txg.sync_pending_ios += SUBMIT_GUARD;
        // A running scan rewrites its state every txg: dsl_scan_sync_state's zap_update of
        // the pool directory's "scan" entry (a fat ZAP: its 24 integers rule out a
        // micro-ZAP) dirties that entry's 16 KiB leaf (`fzap_default_block_shift`;
        // DS@zfs-0.7.13, @zfs-2.2.0). dsl_scan_sync dirties it after pass 1's MOS sync, so
        // pass 2 writes it, and its allocation and its old copy's free reach the space maps.
        // A sequential rebuild's ranges do the same in the top-level vdev's ZAP
        // (`vdev_rebuild_update_sync`, a fat ZAP too: REBUILD_PHYS_ENTRIES integers;
        // VR@zfs-2.0.0 … 2.3.0) for every txg that issued one.
        let mut zaps: Vec<(u64, u64)> = self.rebuild_take_range_txg(txg).into_iter().map(crate::spacemap::top_zap_key).collect();
        // (dsl_scan_sync returns before it for a paused scrub.)
        if self.scan_active() {
            zaps.push(crate::spacemap::MOS_DIR_KEY);
        }
        let mos_dirty = !zaps.is_empty();
        if !tops.is_empty() {
            let (psize, _) = self.layout.metadata_write(16 << 10);
            // Allocated at once: the space maps below record their allocations.
            for &key in &zaps {
                self.sync_mos_block(psize, 3, key, true, ctx);
            }
        }
        let mut changes: std::collections::BTreeMap<(u16, u64), MsChange> = Default::default();
        // Range [s, e) of top-level vdev t, cut at metaslab boundaries: its entries in each.
        let mut add = |t: usize, s: u64, e: u64, free: bool| {
            let (shift, ashift) = (self.ms_shift[t], self.tops[t].ashift);
            let mut x = s;
            while x < e {
                let y = e.min(((x >> shift) + 1) << shift);
                let c = changes.entry((t as u16, x >> shift)).or_default();
                *(if free { &mut c.frees } else { &mut c.allocs }) += MsChange::entries(y - x, ashift);
                x = y;
            }
        };
        for t in 0..self.tops.len() {
            for &(_, s, e) in self.txg.ms_allocating[t].iter().filter(|e| e.0 == txg) {
                add(t, s, e, false);
            }
        }
        // Frees (the run's copies, and the layout copies of blocks first rewritten now),
        // merged where adjacent (a range tree holds them so).
        let mut frees: Vec<crate::space::Piece> = self.space.freeing_of(txg).to_vec();
        frees.extend_from_slice(&self.sm_layout_frees);
        frees.sort_unstable();
        let mut i = 0;
        while i < frees.len() {
            let (t, s, mut len) = frees[i];
            i += 1;
            while i < frees.len() && frees[i].0 == t && frees[i].1 == s + len {
                len += frees[i].2;
                i += 1;
            }
            add(t as usize, s, s + len, true);
        }
        self.sm_layout_frees.clear();
        // Log blocks on a separate log: allocated in the txg open when written and freed
        // with it (`zil_sync`): one range of each in every metaslab the cursor crossed.
        for &(tx, lt, ms) in &self.slog_ms {
            if tx == txg {
                let c = changes.entry(((self.tops.len() + lt as usize) as u16, ms)).or_default();
                c.allocs = 1;
                c.frees = 1;
            }
        }
        self.slog_ms.retain(|e| e.0 > txg);
        let (mut blocks, mut gone) = std::mem::take(&mut self.sm_scratch);
        self.spacemaps.txg(txg, &changes, mos_dirty, &mut blocks, &mut gone);
        let n_sm = blocks.len();
        if (mos_dirty || !blocks.is_empty()) && !self.txg.sync_wrote_objsets {
            // Any MOS change rewrites the MOS dnode block above it and the MOS objset the
            // uberblock points to; a txg with dirty records wrote them with the dataset's.
            blocks.push(crate::spacemap::SmBlock { key: crate::dirty::objset_key(1), lsize: crate::spacemap::DNODE_BLOCK });
            blocks.push(crate::spacemap::SmBlock { key: crate::dirty::objset_key(0), lsize: crate::layout::OBJSET_LSIZE });
        }
        for &key in &gone {
            self.space.forget(key, txg);
        }
        if !tops.is_empty() {
            for (k, b) in blocks.iter().enumerate() {
                let (psize, _) = self.layout.metadata_write(b.lsize);
                self.sync_mos_block(psize, 3, b.key, false, ctx);
                if k < n_sm {
                    self.txg.sm_blocks += 3;
                    self.txg.sm_bytes += 3 * psize;
                }
            }
        }
        self.txg.sync_pending_ios -= SUBMIT_GUARD;
        self.sm_scratch = (blocks, gone);
        self.txg.sync_pending_ios
    }

    /// One block (one copy) the sync of `txg` writes on top-level vdev `t`: allocated from
    /// free space, noted as born in `txg`, written at ASYNC_WRITE for `owner`. Returns its
    /// leaf writes and where it went.
    pub(crate) fn sync_write(&mut self, t: usize, psize: u64, txg: u64, owner: u32, ctx: &mut Ctx<Ev>) -> (u64, crate::space::Piece) {
        let asize = self.tops[t].asize(psize);
        let off = self.alloc_free(t, asize, txg);
        self.admin.note_write(t, off, asize, psize, self.layout.last_txg() + txg);
        (self.write_block(t, off, psize, IoClass::AsyncWrite, owner, ctx), (t as u16, off, asize))
    }

    /// The sync of `txg` packed its data records' bytes into records of `rs` bytes
    /// (`recs`, the first `written` bytes; the rest were overridden by `dmu_sync`): each
    /// record's copy is its slice of them (the last one takes the last record's tail), or
    /// its txg's next `dmu_sync` block. Its previous copy is freed with the txg.
    pub(crate) fn space_note_data(&mut self, data: &[((u64, u64), u64)], recs: &[crate::space::Piece], written: u64, txg: u64) {
        let rs = self.recordsize;
        let packed = recs.len() as u64 * rs;
        let mut pos = 0;
        for &(key, charge) in data {
            let mut c = crate::space::Copies::default();
            if pos < written {
                let b = if pos + charge >= written { packed } else { pos + charge };
                let mut x = pos;
                while x < b {
                    let k = x / rs;
                    let y = b.min((k + 1) * rs);
                    let (t, off, asize) = recs[k as usize];
                    let s = off + crate::layout::mul_div(asize, x - k * rs, rs);
                    let e = off + crate::layout::mul_div(asize, y - k * rs, rs);
                    c.push((t, s, e - s));
                    x = y;
                }
            } else if let Some(p) = self.space.take_orphan(txg) {
                c.push(p);
            }
            pos += charge;
            if !self.space.rewrite(key, c, txg) {
                // The first rewrite of a layout block frees its layout copy: in the space
                // maps, and for every traversal from this sync on (a scan then meets the
                // record's new copy, or nothing if it is out of the scan's range); the
                // layout's space itself stays as it is (`alloc_free`).
                if let Some(b) = crate::dirty::layout_data_block(key) {
                    let blk = self.layout.data_block(b % self.layout.data_blocks().max(1));
                    if self.space.layout_freed(blk.index, blk.asize_total()) {
                        for d in &blk.dvas[..blk.ndvas as usize] {
                            self.sm_layout_frees.push((d.vdev, d.offset, d.asize));
                            self.space.layout_gone_on(txg, d.vdev as usize, d.asize);
                        }
                    }
                }
            }
        }
    }

    /// Move the sync thread on once what it waits for is done.
    pub(crate) fn sync_advance(&mut self, ctx: &mut Ctx<Ev>) {
        if !self.txg.syncing || self.txg.sync_pending_ios > 0 {
            return;
        }
        match self.txg.phase {
            SyncPhase::Data => {
                self.txg.phase = SyncPhase::Scan;
                self.scan_apply_pending(ctx);
                if self.scan_active() {
                    self.scan_txg_begin(ctx);
                    return; // the scan calls sync_advance when its share is drained
                }
                self.sync_advance(ctx);
            }
            SyncPhase::Scan => {
                if self.scan_txg_busy() {
                    return;
                }
                // vdev_sync → metaslab_sync (after dsl_pool_sync and dsl_scan_sync) appends the
                // txg's allocations and frees to the space maps, MOS objects the next passes
                // write.
                self.txg.phase = SyncPhase::SpaceMaps;
                if self.sync_space_maps(ctx) == 0 {
                    self.sync_advance(ctx);
                }
            }
            SyncPhase::SpaceMaps => {
                // metaslab_sync has emptied ms_allocating[txg] ...
                let txg = self.txg.sync_txg;
                self.txg.ms_allocating.iter_mut().for_each(|v| v.retain(|e| e.0 > txg));
                // ... and the txg's frees; metaslab_sync_done returns those of txg − 2.
                self.space.synced(txg);
                // vdev_config_sync: flush every leaf written in this txg (data, ZIL blocks,
                // repairs) so the blocks are stable before an uberblock points at them.
                self.txg.phase = SyncPhase::FlushData;
                self.txg.flush_phase_start_ns = ctx.now();
                let owed = std::mem::replace(&mut self.txg.flush_owed, vec![false; self.leaves.len()]);
                let targets: Vec<u16> = (0..owed.len() as u16).filter(|&l| owed[l as usize]).collect();
                if self.sync_flush(&targets, ctx) == 0 {
                    self.sync_advance(ctx);
                }
            }
            SyncPhase::FlushData => {
                self.txg.sync_flush_ns_sum += ctx.now() - self.txg.flush_phase_start_ns;
                self.txg.phase = SyncPhase::Uberblock;
                // spa_sync picks up to SPA_SYNC_MIN_VDEVS (3) non-log top-level vdevs from a
                // random start; vdev_uberblock_sync writes every leaf below them, in all
                // four labels (L0/L1 at the front, L2/L3 in the last 512 KiB).
                let ntops = self.tops.len();
                let c0 = self.txg.ub_rng.below(ntops as u64) as usize;
                let mut leaves = Vec::new();
                for k in 0..ntops.min(3) {
                    let t = (c0 + k) % ntops;
                    for c in 0..self.tops[t].leaves.len() {
                        for l in self.child_write_leaves(t, c).into_iter().flatten() {
                            // vdev_uberblock_sync skips distributed spares: they have no labels.
                            if self.leaves[l as usize].writeable() && self.leaves[l as usize].draid_spare.is_none() {
                                leaves.push(l);
                            }
                        }
                    }
                }
                let ub_bytes = 1u64 << self.tops[0].ashift.clamp(10, 13);
                let slot = self.txg.sync_txg % ((128 << 10) / ub_bytes);
                self.txg.sync_pending_ios += 4 * leaves.len() as u64;
                for &l in &leaves {
                    let size = self.leaves[l as usize].size_bytes;
                    for label in [0, 256 << 10, size - (512 << 10), size - (256 << 10)] {
                        let off = label + (128 << 10) + slot * ub_bytes;
                        self.submit_leaf(l, Op::Write, IoClass::SyncWrite, 0, off, ub_bytes as u32, OWNER_TXG, ctx);
                    }
                }
                self.txg.ub_leaves = leaves;
                if self.txg.ub_leaves.is_empty() {
                    self.end_sync(ctx);
                }
            }
            SyncPhase::Uberblock => {
                // vdev_uberblock_sync_list: flush the uberblocks before the odd labels may
                // be overwritten (the label rewrites themselves only happen when the
                // config changed; not modelled).
                self.txg.phase = SyncPhase::FlushUberblock;
                self.txg.flush_phase_start_ns = ctx.now();
                let targets = std::mem::take(&mut self.txg.ub_leaves);
                if self.sync_flush(&targets, ctx) == 0 {
                    self.sync_advance(ctx);
                }
            }
            SyncPhase::FlushUberblock => {
                self.txg.sync_flush_ns_sum += ctx.now() - self.txg.flush_phase_start_ns;
                self.end_sync(ctx)
            }
        }
    }

    /// `zio_flush` of `targets` for spa_sync (nothing with `zfs_nocacheflush`, which
    /// vdev_disk honours for every flush in all releases); returns how many were sent.
    fn sync_flush(&mut self, targets: &[u16], ctx: &mut Ctx<Ev>) -> u64 {
        if self.tun.try_get(T::zfs_nocacheflush).unwrap_or(0) != 0 {
            return 0;
        }
        let live: Vec<u16> = targets
            .iter()
            .copied()
            .filter(|&l| {
                let leaf = &self.leaves[l as usize];
                // A distributed spare has no children of its own to flush
                // (`vdev_draid_spare_ioctl`); the disks it wrote are flushed as written.
                !leaf.failed && !leaf.detached && leaf.role != LeafRole::Cache && leaf.draid_spare.is_none()
            })
            .collect();
        self.txg.sync_pending_ios += live.len() as u64;
        self.txg.sync_flushes += live.len() as u64;
        for l in &live {
            self.submit_flush(*l, OWNER_TXG, ctx);
        }
        live.len() as u64
    }

    fn end_sync(&mut self, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        debug_assert_eq!(self.alloc.waiting(), 0, "a sync ended with blocks waiting for allocation");
        self.txg.syncing = false;
        self.txg.sync_ns_hist.add(now - self.txg.last_sync_start_ns);
        self.scan_txg_end(ctx);
        let mut out = Vec::new();
        let active = self.scan_wants_syncs();
        // Before the engine's own poll in on_sync_done decides on the next sync.
        self.txg.eng.set_scan_active(now, active, &mut out);
        debug_assert!(out.is_empty(), "the engine started a sync while one is running");
        self.txg.eng.on_sync_done(now, self.txg.sync_txg, &mut out);
        self.txg_actions(out, ctx);
    }

    // ---------------------------------------------------------------- leaves

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn submit_leaf(&mut self, leaf: u16, op: Op, class: IoClass, fl: u8, offset: u64, size: u32, owner: u32, ctx: &mut Ctx<Ev>) {
        let (leaf, via) = if self.leaves[leaf as usize].draid_spare.is_some() { (self.draid_spare_child(leaf, offset, op), leaf) } else { (leaf, NO_LEAF) };
        self.submit_leaf_via(leaf, via, op, class, fl, offset, size, owner, ctx);
    }

    /// `submit_leaf` of an I/O already resolved to a physical leaf; `via` is the dRAID
    /// distributed spare it was addressed to (`NO_LEAF`: none), which counts it too.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn submit_leaf_via(&mut self, leaf: u16, via: u16, op: Op, class: IoClass, fl: u8, offset: u64, size: u32, owner: u32, ctx: &mut Ctx<Ev>) {
        let mut io = LeafIo::new(leaf, op, class, offset, size);
        io.flags = fl;
        io.owner = owner;
        io.via = via;
        io.enqueue_ns = ctx.now();
        let id = self.ios.alloc(io);
        if let Some(c) = self.pf_capture.as_mut() {
            c.push(id);
        }
        let l = &mut self.leaves[leaf as usize];
        l.policy.enqueue(id, &mut self.ios, ctx.now());
        self.pump(leaf, ctx);
    }

    /// The child (index in top-level vdev `t`) holding distributed spare `l`'s share of
    /// physical offset `off` (`vdev_draid_spare_get_child`); None when `l` is not a
    /// distributed spare.
    #[inline]
    pub(crate) fn spare_pos(&self, t: usize, l: u16, off: u64) -> Option<usize> {
        let (_, sp) = self.leaves[l as usize].draid_spare?;
        Some(self.tops[t].draid.as_ref().unwrap().spare_child(sp as u64, off) as usize)
    }

    /// The new disk or spare standing in for the child that holds distributed spare `n`'s
    /// share of offset `off` (None: `n` is no distributed spare, or that child stands
    /// alone) — the case of `rc_force_repair`.
    #[inline]
    pub(crate) fn share_replacement(&self, t: usize, n: u16, off: u64) -> Option<u16> {
        self.spare_pos(t, n, off).and_then(|p| self.replacing[t][p])
    }

    /// The physical leaf a distributed spare's sectors at `offset` are read from
    /// (`vdev_draid_spare_io_start`): the child holding that spare's share of the offset's
    /// slice (`spare_pos`), or, if that child has failed and stands under a
    /// `spare-N`/`replacing-N` itself, the side of that vdev holding the data
    /// (`col_read_path`). Callers check readability first ([`Self::col_read_leaf`]); when
    /// nothing can serve the read it goes to the original child. Writes to a spare fan out
    /// ([`Self::share_write_leaves`]) and never come here.
    #[cold]
    fn draid_spare_child(&self, leaf: u16, offset: u64, op: Op) -> u16 {
        debug_assert_eq!(op, Op::Read, "a write to a distributed spare must fan out (share_write_leaves)");
        let t = self.leaves[leaf as usize].draid_spare.expect("a distributed spare").0 as usize;
        let p0 = self.spare_pos(t, leaf, offset).unwrap();
        self.col_read_path(t, p0, offset, 0).map_or(self.tops[t].leaves[p0], |(_, l)| l)
    }

    /// Reads of child `c`'s column at physical offset `off` for a block born in `birth`
    /// (0: any): (the leaf to submit to — the child, or the spare or new disk standing in
    /// for it — and the physical leaf that holds the data), following a distributed spare
    /// to the child holding its share, which may stand under its own spare; None when the
    /// data is not there (`vdev_draid_readable`, `vdev_draid_missing`).
    fn col_read_path(&self, t: usize, c: usize, off: u64, birth: u64) -> Option<(u16, u16)> {
        let usable = |l: &u16| !(birth > 0 && self.leaf_misses(*l, birth));
        let first = self.child_read_leaf(t, c).filter(usable)?;
        let mut l = first;
        for _ in 0..=self.spares.len() {
            let Some(p) = self.spare_pos(t, l, off) else { return Some((first, l)) };
            l = self.child_read_leaf(t, p).filter(usable)?;
        }
        None
    }

    /// dRAID, `vdev_draid_readable` and `vdev_draid_missing` of child `c`'s column at
    /// physical offset `off` for a block born in `birth` (0: any): the leaf to submit the
    /// read to (`submit_leaf` takes a distributed spare on to its share's disk), or None
    /// when the data is not there — the child is gone, or a distributed spare's share at
    /// `off` lies on a disk that failed and whose own replacement does not hold it yet.
    /// Other vdev types: `child_read_leaf`, with the DTL test.
    pub(crate) fn col_read_leaf(&self, t: usize, c: usize, off: u64, birth: u64) -> Option<u16> {
        self.col_read_path(t, c, off, birth).map(|(first, _)| first)
    }

    /// The writes to child `c`'s column at physical offset `off`, as (physical leaf, the
    /// distributed spare it went through or `NO_LEAF`): the child if it can take writes,
    /// and the disk replacing it or the spare standing in; a distributed spare's write goes
    /// on as [`Self::share_write_leaves`] says. Only dRAID has shares; other types give
    /// `child_write_leaves`.
    pub(crate) fn col_write_leaves(&self, t: usize, c: usize, off: u64, out: &mut Vec<(u16, u16)>) {
        out.clear();
        let [old, new] = self.child_write_leaves(t, c);
        // The child itself may be a distributed spare: once the disk it stood in for is
        // being replaced, it is the old side of the `replacing-N` (`act_attach`).
        match old {
            Some(o) if self.spare_pos(t, o, off).is_some() => self.share_write_leaves(t, o, off, false, out),
            Some(o) => out.push((o, NO_LEAF)),
            None => {}
        }
        let Some(n) = new else { return };
        if self.spare_pos(t, n, off).is_none() {
            out.push((n, NO_LEAF));
        } else if self.leaves[n as usize].writeable() {
            self.share_write_leaves(t, n, off, false, out);
        }
    }

    /// The physical leaves a write addressed to distributed spare `n` at physical offset
    /// `off` reaches, appended as (leaf, `n`): the child holding `n`'s share of the
    /// offset's slice (`vdev_draid_spare_io_start` → `vdev_draid_spare_get_child`), and
    /// when that child stands under a `spare-N`/`replacing-N`, what the mirror ops of that
    /// vdev write: every side that takes writes, a second distributed spare followed the
    /// same way (a different spare column of the slice each hop). A sequential rebuild's
    /// repair write (`rebuild`: REBUILD priority, IO_REPAIR) goes only to the side being
    /// rebuilt when there is one (`vdev_mirror_io_start`, `mm_rebuilding`: "only issue write
    /// repair IOs to the vdev which is being rebuilt"; MS@zfs-2.2.0). Nothing when the
    /// share's disk is gone with nothing standing in.
    pub(crate) fn share_write_leaves(&self, t: usize, n: u16, off: u64, rebuild: bool, out: &mut Vec<(u16, u16)>) {
        let Some(mut p) = self.spare_pos(t, n, off) else { return };
        // Each position has one replacement at most: a chain, one spare column per hop.
        for _ in 0..=self.spares.len() {
            let [old, new] = self.child_write_leaves(t, p);
            let new = new.filter(|&r| self.leaves[r as usize].writeable());
            if !(rebuild && new.is_some_and(|r| self.rebuild_empty(r))) {
                out.extend(old.map(|l| (l, n)));
            }
            let Some(r) = new else { return };
            match self.spare_pos(t, r, off) {
                None => return out.push((r, n)),
                Some(q) => p = q,
            }
        }
    }

    /// Ask the host's poll every 4096th call (it is a syscall-free flag check, but not free):
    /// true once it said stop (`interrupted`).
    #[inline]
    pub(crate) fn poll_interrupt(&mut self) -> bool {
        if let Some(f) = self.interrupt_poll {
            self.interrupt_count = self.interrupt_count.wrapping_add(1);
            if self.interrupt_count % 4096 == 0 && !self.interrupted && f() {
                self.interrupted = true;
            }
        }
        self.interrupted
    }

    fn env(&self) -> QueueEnv {
        QueueEnv { dirty_bytes: self.txg.dirty, pending_synctask: false }
    }

    fn account_outstanding(l: &mut Leaf, now: u64) {
        let dt = now - l.last_change_ns;
        if l.dev_outstanding > 0 {
            l.cnt.busy_ns += dt;
            l.cnt.inflight_ns += dt as u128 * l.dev_outstanding as u128;
        }
        l.last_change_ns = now;
    }

    fn pump(&mut self, leaf: u16, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let env = self.env();
        let li = leaf as usize;
        while let Some(iss) = self.leaves[li].policy.next_issue(&mut self.ios, now, &env) {
            if self.issues.len() <= iss.head as usize {
                self.issues.resize(iss.head as usize + 1 + 64, iss);
            }
            self.issues[iss.head as usize] = iss;
            // The policy stamped every member with the issue time (`aggregate::chain`).
            #[cfg(debug_assertions)]
            {
                let mut m = iss.head;
                while m != NO_IO {
                    debug_assert_eq!(self.ios.get(m).issue_ns, now, "leaf {leaf}: member {m} not stamped at issue");
                    m = self.ios.get(m).agg_next;
                }
            }
            let l = &mut self.leaves[li];
            l.active += 1;
            l.last_offset = iss.offset + iss.size;
            Self::account_outstanding(l, now);
            l.dev_outstanding += 1;
            l.blk.push_back(iss.head);
        }
        // Padding I/Os the policy dropped complete without the device (zio_vdev_io_bypass).
        while let Some(id) = self.leaves[li].policy.take_discarded() {
            let owner = self.ios.get(id).owner;
            self.ios.free(id);
            self.resolve_owner(owner, ctx);
        }
        self.drain_blk(leaf, ctx);
    }

    fn drain_blk(&mut self, leaf: u16, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let li = leaf as usize;
        loop {
            let l = &mut self.leaves[li];
            let Some(&h) = l.blk.front() else { break };
            let iss = self.issues[h as usize];
            if !l.dev.can_accept(iss.op) {
                break;
            }
            if let Some((link, port)) = l.link {
                if !self.links[link].may_issue(port) {
                    break;
                }
                self.links[link].on_issue(port);
            }
            l.blk.pop_front();
            l.dev.submit(now, Cmd { tag: h, op: iss.op, offset_bytes: iss.offset, size_bytes: iss.size });
        }
        self.rearm(leaf, ctx);
    }

    fn rearm(&mut self, leaf: u16, ctx: &mut Ctx<Ev>) {
        let l = &mut self.leaves[leaf as usize];
        let next = l.dev.next_event_ns();
        if next != l.wake_at {
            l.wake_gen = l.wake_gen.wrapping_add(1);
            l.wake_at = next;
            if let Some(t) = next {
                ctx.schedule_at(t, Ev::DevWake { leaf, gen: l.wake_gen });
            }
        }
    }

    fn dev_wake(&mut self, leaf: u16, gen: u32, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let li = leaf as usize;
        if self.leaves[li].wake_gen != gen {
            return;
        }
        self.leaves[li].wake_at = None;
        let mut done = std::mem::take(&mut self.done);
        done.clear();
        self.leaves[li].dev.advance(now, &mut done);
        if done.is_empty() {
            // Only the drive's internal clock moved (most wake-ups: an overhead phase or a
            // read-ahead step ended). The policy owes no issue attempt — every `pump` ends
            // with its budget spent, and only an enqueue or a completion renews it — so the
            // issue loop would find nothing; the block-layer queue may still move.
            debug_assert!(!self.leaves[li].policy.owes_attempt(), "leaf {leaf}: issue attempt owed on a wake-up");
            self.done = done;
            self.drain_blk(leaf, ctx);
            return;
        }
        let mut freed_link = None;
        for &h in &done {
            let l = &mut self.leaves[li];
            match l.link {
                Some((link, port)) => {
                    self.links[link].on_device_done(port);
                    freed_link = Some(link);
                    let iss = self.issues[h as usize];
                    let bytes = if iss.op == Op::Flush { 0 } else { iss.size };
                    let t = self.links[link].transfer(now, bytes);
                    ctx.schedule_at(t, Ev::LinkDone { leaf, head: h });
                }
                None => self.complete_issue(leaf, h, ctx),
            }
        }
        self.done = done;
        self.pump(leaf, ctx);
        // Retry the ports the link refused, in the link's round-robin order. Most links
        // refuse nobody (a shared link never does), and listing the ports cost ≈ 150
        // instructions a completion on the busy-scrub pool's eight.
        if let Some(link) = freed_link.filter(|&k| self.links[k].any_waiting()) {
            let waiting: Vec<u16> = self.links[link].waiting_ports().map(|p| self.link_ports[link][p]).collect();
            for l in waiting {
                if l != leaf && !self.leaves[l as usize].blk.is_empty() {
                    self.drain_blk(l, ctx);
                }
            }
        }
    }

    fn complete_issue(&mut self, leaf: u16, head: IoId, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let li = leaf as usize;
        let iss = self.issues[head as usize];
        let l = &mut self.leaves[li];
        Self::account_outstanding(l, now);
        l.dev_outstanding -= 1;
        if iss.op == Op::Flush {
            // A flush never entered the queue policy (see `submit_flush`).
            let io = *self.ios.get(head);
            self.ios.free(head);
            if io.owner != OWNER_TXG {
                self.flushes += 1;
                self.flush_hist.add((now - io.enqueue_ns).max(1));
            }
            self.resolve_owner(io.owner, ctx);
            return;
        }
        self.leaves[li].policy.complete(&iss, &self.ios, now);
        self.leaves[li].active -= 1;
        self.leaf_ios_done += 1;
        let agg = iss.members > 1;
        // The policy stamped every member with the command's issue time (`aggregate::chain`),
        // so all share one disk time; what only sums are counted once per run of members of
        // one class.
        let (enqueue_ns, issue_ns) = {
            let first = self.ios.get(head);
            (first.enqueue_ns, first.issue_ns)
        };
        let disk = now - issue_ns;
        self.leaves[li].count_command(&iss, now - enqueue_ns, issue_ns - enqueue_ns, disk);
        let mut run = MemberRun::new(self.ios.get(head));
        let mut m = head;
        while m != NO_IO {
            let io = *self.ios.get(m);
            if (io.class, io.op) != (run.class, run.op) {
                self.leaves[li].count_run(&run, disk, agg);
                run = MemberRun::new(&io);
            }
            debug_assert_eq!(now - io.issue_ns, disk, "members issued apart");
            let total = now - io.enqueue_ns;
            let queue = io.issue_ns - io.enqueue_ns;
            self.leaves[li].count_member(&io, total, queue);
            if io.via != NO_LEAF {
                self.leaves[io.via as usize].cnt.count_via(&io);
            }
            run.add(&io);
            self.ios.free(m);
            if self.aux.tracking() && self.leaves[li].role != LeafRole::Data {
                self.aux_io_done(li, &io, ctx);
            }
            self.resolve_owner(io.owner, ctx);
            m = io.agg_next;
        }
        self.leaves[li].count_run(&run, disk, agg);
    }

    /// One leaf I/O of `owner` is done: tell whoever waits for it.
    fn resolve_owner(&mut self, owner: u32, ctx: &mut Ctx<Ev>) {
        if owner == NO_IO {
        } else if owner == crate::l2feed::OWNER_L2FEED {
            self.l2_write_done(ctx);
        } else if owner == OWNER_TXG {
            self.txg.sync_pending_ios -= 1;
            self.sync_advance(ctx);
        } else {
            match owner >> OWNER_TAG_SHIFT {
                0 => {
                    self.op_wait_done(owner, ctx);
                }
                1 => self.rebuild_leaf_done(owner & OWNER_INDEX_MASK, ctx),
                2 => self.scan_leaf_done(owner & OWNER_INDEX_MASK, ctx),
                3 => self.zil_io_done(owner & OWNER_INDEX_MASK, ctx),
                4 | 5 => self.prefetch_done(owner & !OWNER_PF, ctx),
                _ => self.sync_leaf_done(owner & OWNER_INDEX_MASK, ctx),
            }
        }
    }

    fn sample(&mut self, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        if self.sample_t.len() + 1 >= REPORT_SAMPLES_MAX && !self.stopped && !self.sample_limit {
            // The last report this run may keep: stop with it (scenario.py checks runs
            // with a known end beforehand; "scan-done" alone is only known here).
            self.sample_limit = true;
            ctx.schedule_in(0, Ev::Stop);
        }
        self.risk = self.txg.eng.risk(now);
        self.sample_t.push(now);
        for (i, l) in self.leaves.iter_mut().enumerate() {
            Self::account_outstanding(l, now);
            let d = l.policy.depths();
            let mut row = [(0u32, 0u32); NUM_CLASSES];
            for (i, cd) in d.iter().enumerate() {
                row[i] = (cd.queued, cd.active);
            }
            self.series.push(i, l.cnt.cumulative(), row);
        }
        self.top_series.push(self.top_cnt.clone());
        let row = (0..self.top_cnt.len()).map(|t| self.top_alloc_now(t)).collect();
        self.alloc_series.push(row);
        if !self.cfg.actions.is_empty() {
            let snap = self.status_snapshot(now);
            self.status_snaps.push(snap);
        }
        for w in &mut self.wls {
            w.series.push((w.s_ops, w.s_bytes, w.s_lat_sum, w.s_lat_max));
            w.s_ops = 0;
            w.s_bytes = 0;
            w.s_lat_sum = 0;
            w.s_lat_max = 0;
            let c = &mut w.s_lat_log2.counts;
            let row = match (c.iter().position(|&n| n > 0), c.iter().rposition(|&n| n > 0)) {
                (Some(lo), Some(hi)) => (lo as u32, c[lo..=hi].to_vec()),
                _ => (0, Vec::new()),
            };
            w.series_lat_log2.push(row);
            *c = [0; 64];
        }
        if now + self.cfg.report_interval_ns <= self.cfg.stop_ns {
            ctx.schedule_in(self.cfg.report_interval_ns, Ev::Sample);
        }
    }

    /// `vs_alloc` of top-level vdev `t` now (data vdevs, then log vdevs): the layout's
    /// blocks plus the run's of every synced txg, less the frees out of the defer tree
    /// (`space.rs`); a log vdev's is the space of its synced log blocks until reusable
    /// (`zil.rs`, `LogSpace`).
    pub(crate) fn top_alloc_now(&self, t: usize) -> u64 {
        match t.checked_sub(self.tops.len()) {
            None => self.space.alloc_bytes(t, self.layout.alloc_bytes(t)),
            Some(l) => self.zil.log_held_bytes(l),
        }
    }

    /// Leaf I/Os completed so far.
    pub fn leaf_ios(&self) -> u64 {
        self.leaf_ios_done
    }

    /// The scan's (examined, to_examine, issued, skipped, sorted) bytes, if a scan was ever
    /// started (for the progress bar and probes such as `examples/bench.rs`): a sorted
    /// scan (0.8+) examines everything early and then issues, so its share done is
    /// issued / (to_examine − skipped), as ZFS's "% done".
    pub fn scan_progress(&self) -> Option<(u64, u64, u64, u64, bool)> {
        self.scan.as_ref().map(|s| (s.examined, s.to_examine, s.issued, s.skipped, s.sorted.is_some()))
    }

    /// Work done and to do of the workloads with an end of their own (a trace played once:
    /// records completed; an nfs-copy of `files`: files copied); None when there is none.
    pub fn workloads_progress(&self) -> Option<(u64, u64)> {
        let mut any = false;
        let (mut done, mut total) = (0, 0);
        for w in &self.wls {
            if let Some(t) = w.trace.as_ref().filter(|t| t.finite()) {
                any = true;
                done += t.completed().min(t.records());
                total += t.records();
            }
            if let Some(n) = w.nfs.as_ref().filter(|n| n.finite()) {
                any = true;
                done += n.files_done.min(n.files_total);
                total += n.files_total;
            }
        }
        any.then_some((done, total))
    }

    /// The sorted scan's stored queue: (sios, runs, extents), see `Sorted::store_counts`.
    pub fn scan_store_counts(&self) -> Option<(u64, u64, u64)> {
        self.scan.as_ref()?.sorted.as_ref().map(|s| s.store_counts())
    }

    /// The results document (`docs/internals.md`) as a `Value` (tests and examples; a long
    /// run's series make this large — `results_json` streams them instead).
    pub fn results(&self, digest: u64, events: u64, sim_time_ns: u64, end: &str) -> Value {
        serde_json::to_value(self.results_doc(digest, events, sim_time_ns, end, false)).unwrap()
    }

    /// The results document as JSON text, the series and status snapshots streamed from
    /// their stores (no `Value` tree of them). `compact`: `series.leaves` is `[]` (the
    /// bindings hand the columns over with `take_leaf_column`) and each status snapshot's
    /// tree is indices into `status.rows` (`status_log.rs`).
    pub fn results_json(&self, digest: u64, events: u64, sim_time_ns: u64, end: &str, compact: bool) -> String {
        serde_json::to_string(&self.results_doc(digest, events, sim_time_ns, end, compact)).unwrap()
    }

    /// Leaves in the results (`leaves`, `series.leaves`).
    pub fn leaf_count(&self) -> usize {
        self.leaves.len()
    }

    /// Workloads in the results (`workloads`, `series.workloads`).
    pub fn workload_count(&self) -> usize {
        self.wls.len()
    }

    /// Report intervals sampled (`series.t_ns`).
    pub fn sample_count(&self) -> usize {
        self.sample_t.len()
    }

    /// Column `c` (`series::column_names`) of the leaves' series, interval-major (leaf `i`
    /// of interval `k` at `k * leaf_count() + i`), removed from the core: after the bindings
    /// took the columns, `results`/`results_json` would give empty series.
    pub fn take_leaf_column(&mut self, c: usize) -> Vec<u64> {
        debug_assert_eq!(self.series.leaves(), self.leaves.len());
        self.series.take_column(c)
    }

    fn results_doc(&self, digest: u64, events: u64, sim_time_ns: u64, end: &str, compact: bool) -> ResultsDoc<'_> {
        let head = self.results_head(digest, events, sim_time_ns, end);
        let status = (!self.cfg.actions.is_empty()).then_some(crate::status_log::StatusJson {
            log: &self.status_snaps,
            epoch_s: self.cfg.epoch_s,
            compact,
        });
        ResultsDoc { head, leaves: (!compact).then_some(&self.series), status }
    }

    /// Everything of the results but `status` and `series.leaves`, which `ResultsDoc` adds.
    fn results_head(&self, digest: u64, events: u64, sim_time_ns: u64, end: &str) -> Value {
        let pct = |h: &FineHist| serde_json::to_value(h.pcts()).unwrap();
        let mut pool_classes = serde_json::Map::new();
        for c in IoClass::ALL {
            let (mut ops, mut bytes) = (0, 0);
            let (mut t, mut d, mut q) = (FineHist::default(), FineHist::default(), FineHist::default());
            for l in &self.leaves {
                let cs = &l.classes[c.idx()];
                ops += cs.ops;
                bytes += cs.bytes;
                if cs.ops > 0 {
                    t.merge(&cs.total_f);
                    d.merge(&cs.disk_f);
                    q.merge(&cs.queue_f);
                }
            }
            if ops > 0 {
                pool_classes.insert(
                    c.key().into(),
                    json!({"ops": ops, "bytes": bytes, "total_wait_ns": pct(&t), "disk_wait_ns": pct(&d), "queue_wait_ns": pct(&q)}),
                );
            }
        }
        let leaves: Vec<Value> = self
            .leaves
            .iter()
            .map(|l| {
                let mut classes = serde_json::Map::new();
                for c in IoClass::ALL {
                    let cs = &l.classes[c.idx()];
                    if cs.ops == 0 {
                        continue;
                    }
                    classes.insert(
                        c.key().into(),
                        json!({
                            "ops": cs.ops, "bytes": cs.bytes, "agg_ops": cs.agg_ops,
                            "commands": cs.cmd_total.counts.iter().sum::<u64>(),
                            "total_wait_log2": cs.cmd_total.counts.to_vec(),
                            "disk_wait_log2": cs.cmd_disk.counts.to_vec(),
                            "queue_wait_log2": cs.cmd_queue.counts.to_vec(),
                            "size_ind_log2": cs.size_ind.counts.to_vec(),
                            "size_agg_log2": cs.size_agg.counts.to_vec(),
                            "total_wait_ns": pct(&cs.total_f), "disk_wait_ns": pct(&cs.disk_f), "queue_wait_ns": pct(&cs.queue_f),
                        }),
                    );
                }
                let mut v = json!({
                    "name": l.name, "vdev": l.vdev_name, "device": l.device_name, "rotational": l.rotational,
                    "size_bytes": l.size_bytes, "busy_ns": l.cnt.busy_ns, "classes": classes,
                });
                if l.draid_spare.is_some() {
                    // A distributed spare has no queue or disk of its own: what it passed on
                    // to the disks holding its shares, as its `zpool iostat -v` row counts it.
                    let c = &l.cnt;
                    v["passed_on"] = json!({"read_ops": c.read_ops, "write_ops": c.write_ops,
                                            "read_bytes": c.read_bytes, "write_bytes": c.write_bytes});
                }
                v
            })
            .collect();
        // Per top-level vdev (data vdevs, then log vdevs), the logical I/O of each interval.
        let series_tops: Vec<Value> = (0..self.top_cnt.len())
            .map(|t| {
                let n = self.top_series.len();
                let delta = |f: &dyn Fn(&TopCounters) -> u64| -> Vec<u64> {
                    (0..n).map(|k| f(&self.top_series[k][t]) - if k == 0 { 0 } else { f(&self.top_series[k - 1][t]) }).collect()
                };
                json!({"read_ops": delta(&|c| c.read_ops), "write_ops": delta(&|c| c.write_ops),
                       "read_bytes": delta(&|c| c.read_bytes), "write_bytes": delta(&|c| c.write_bytes),
                       "alloc_bytes": self.alloc_series.iter().map(|r| r[t]).collect::<Vec<u64>>()})
            })
            .collect();
        let series_wls: Vec<Value> = self
            .wls
            .iter()
            .map(|w| {
                json!({
                    "ops": w.series.iter().map(|s| s.0).collect::<Vec<_>>(),
                    "bytes": w.series.iter().map(|s| s.1).collect::<Vec<_>>(),
                    "latency_ns_sum": w.series.iter().map(|s| s.2 as u64).collect::<Vec<_>>(),
                    "latency_ns_max": w.series.iter().map(|s| s.3).collect::<Vec<_>>(),
                    "latency_log2_lo": w.series_lat_log2.iter().map(|s| s.0).collect::<Vec<_>>(),
                    "latency_log2": w.series_lat_log2.iter().map(|s| &s.1).collect::<Vec<_>>(),
                })
            })
            .collect();
        let secs = (sim_time_ns as f64 / 1e9).max(1e-9);
        let mut open = vec![(0u64, 0u64); self.wls.len()];
        for op in self.ops.iter().filter(|o| o.live) {
            open[op.wl as usize].0 += 1;
            open[op.wl as usize].1 += sim_time_ns.saturating_sub(op.start_ns);
        }
        let wls: Vec<Value> = self
            .wls
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let mut v = json!({
                    "inflight_at_end": open[i].0, "inflight_age_ns_at_end": open[i].1,
                    "name": w.name, "kind": w.kind.key(), "ops": w.ops, "bytes": w.bytes,
                    "arc_hits": w.arc_hits, "l2arc_hits": w.l2_hits, "read_errors": w.read_errors, "rmw_reads": w.rmw_reads,
                    "prefetch_hits": w.pf.as_ref().map_or(0, |p| p.hits),
                    "prefetch_promoted": w.pf.as_ref().map_or(0, |p| p.promoted),
                    "latency_log2": w.lat_log2.counts.to_vec(), "latency_ns": pct(&w.lat),
                    "by_scan_phase": (self.scan.is_some() || self.rebuild_ran()).then(|| {
                        let mut m = serde_json::Map::new();
                        for (i, (k, ph)) in ScanPhase::KEYS.iter().zip(&w.by_phase).enumerate() {
                            let mut span_ns = self.phase_ns[i];
                            if self.phase_now.0 as usize == i {
                                span_ns += sim_time_ns.saturating_sub(self.phase_now.1);
                            }
                            m.insert((*k).into(), json!({
                                "ops": ph.ops, "bytes": ph.bytes, "window_ns": span_ns,
                                "latency_log2": ph.lat_log2.counts.to_vec(), "latency_ns": pct(&ph.lat),
                            }));
                        }
                        Value::Object(m)
                    }),
                    "ops_per_s": w.ops as f64 / secs, "bytes_per_s": w.bytes as f64 / secs,
                    "files_done": w.nfs.as_ref().map(|n| n.files_done),
                    "finished_ns": w.nfs.as_ref().map(|n| n.finished_ns)
                        .or(w.trace.as_ref().filter(|t| t.finite()).map(|t| t.finished_ns))
                        .map(|f| f.unwrap_or(sim_time_ns)),
                    "finished": w.nfs.as_ref().map(|n| n.finished_ns.is_some())
                        .or(w.trace.as_ref().filter(|t| t.finite()).map(|t| t.finished())),
                    "source": w.nfs.as_ref().and_then(|n| n.src.as_ref()).map(Self::src_results),
                    "db": w.db.as_ref().map(Self::db_results),
                    "mean_inflight": ((w.inflight_ns + (sim_time_ns.saturating_sub(w.inflight_since_ns)) as u128 * w.inflight as u128) as f64 / sim_time_ns.max(1) as f64),
                });
                let arc = w.arc.as_ref().map(|a| {
                    let (mru, mfu, mru_target) = a.sizes();
                    let mut j = json!({
                        "records": a.capacity(), "hits": a.hits, "misses": a.misses,
                        "mru_hits": a.list_hits[0], "mfu_hits": a.list_hits[1],
                        "mru_ghost_hits": a.list_hits[2], "mfu_ghost_hits": a.list_hits[3],
                        "mru_records": mru, "mfu_records": mfu, "mru_target_records": mru_target,
                    });
                    if let Some(m) = &w.meta {
                        j["indirect"] = json!({
                            "cache_bytes": m.capacity(), "held_bytes": m.used(), "hits": m.hits,
                            "misses": m.misses, "reads": m.reads,
                        });
                    }
                    j
                });
                // Only a trace workload has the key, and only one with `arc_size` has `arc`
                // (a trace's in `trace`), so other workloads' results keep their shape.
                if let Some(t) = &w.trace {
                    let scanned = self.scan.is_some() || self.rebuild_ran();
                    v["trace"] = t.results(scanned.then_some(&ScanPhase::KEYS));
                    if let Some(a) = arc {
                        v["trace"]["arc"] = a;
                    }
                } else if let Some(a) = arc {
                    v["arc"] = a;
                }
                self.aux_workload_results(i, &mut v);
                v
            })
            .collect();
        let vdevs: Vec<Value> = self
            .tops
            .iter()
            .enumerate()
            .map(|(i, t)| {
                json!({"name": t.name, "type": t.kind.label(), "leaves": t.leaves,
                       "class": if t.special { "special" } else { "normal" },
                       "alloc_bytes": self.top_alloc_now(i), "layout_alloc_bytes": self.layout.alloc_bytes(i),
                       "size_bytes": t.size_bytes})
            })
            .collect();
        let scan = self.scan.as_ref().map(|sc| {
            let mut v = self.scan_summary_json(sc, sim_time_ns);
            let active_ns = v["duration_ns"].as_u64().unwrap() - v["paused_ns"].as_u64().unwrap();
            // What the disks (and links) carried for the scan: every SCRUB-class leaf read.
            let leaf_read: u64 = self.leaves.iter().map(|l| l.classes[IoClass::Scrub.idx()].bytes).sum();
            v["leaf_read_bytes"] = json!(leaf_read);
            v["leaf_read_bytes_per_s"] = json!(crate::stats::rate_per_s(leaf_read, active_ns));
            v
        });
        let mut scans = self.scan_history.clone();
        scans.extend(self.scan.as_ref().map(|sc| self.scan_summary_json(sc, sim_time_ns)));
        let mut rebuilds = self.admin.rebuild_history.clone();
        rebuilds.extend(self.admin.rebuilds.iter().flatten().map(|r| self.rebuild_summary(r, sim_time_ns)));
        let mut v = json!({
            "scan": scan, "scans": scans, "rebuilds": rebuilds, "actions": self.admin.log,
            "digest": format!("{digest:016x}"), "events": events, "sim_time_ns": sim_time_ns, "end": end,
            "leaf_ios": self.leaf_ios_done, "peak_live_ios": self.ios.live_max(),
            "pool": {"name": self.cfg.pool.name, "alloc_bytes": (0..self.tops.len()).map(|t| self.top_alloc_now(t)).sum::<u64>(),
                     "layout_alloc_bytes": (0..self.tops.len()).map(|t| self.layout.alloc_bytes(t)).sum::<u64>(),
                     "size_bytes": self.tops.iter().map(|t| t.size_bytes).sum::<u64>(),
                     "failmode": self.cfg.pool.failmode.name(), "suspended": self.suspension_json(),
                     "written": self.space.json(),
                     "vdevs": vdevs, "cache": self.cache_leaves, "redundancy": self.redundancy_json(sim_time_ns),
                     "spares": self.spares.iter().map(|sp| &sp.name).collect::<Vec<_>>(),
                     "log": self.log_names.iter().zip(&self.log_tops)
                         .enumerate()
                         .map(|(i, ((name, kind), leaves))| json!({"name": name, "type": kind.label(), "leaves": leaves,
                                                                  "alloc_bytes": self.zil.log_held_bytes(i)}))
                         .collect::<Vec<_>>()},
            "leaves": leaves, "classes": pool_classes, "workloads": wls,
            "txg": {"syncs": self.txg.eng.syncs(), "sync_ns": pct(&self.txg.sync_ns_hist), "dirty_max_bytes": self.txg_dirty_max_json(), "write_limit_bytes": self.txg_write_limit_json(),
                    "delayed_writes": self.txg.delayed_writes, "blocked_writes": self.txg.blocked_writes,
                    "throttle_ns_sum": self.txg.throttle_ns_sum,
                    "leaf_flushes": self.txg.sync_flushes, "flush_ns_sum": self.txg.sync_flush_ns_sum,
                    "data_bytes": self.txg.data_bytes, "metadata_blocks": self.txg.meta_blocks,
                    "metadata_bytes": self.txg.meta_bytes,
                    "space_map_blocks": self.txg.sm_blocks, "space_map_bytes": self.txg.sm_bytes},
            "zil": self.zil_results(),
            "series": {"interval_ns": self.cfg.report_interval_ns, "t_ns": self.sample_t,
                       "tops": series_tops, "workloads": series_wls},
        });
        if let Some(l2) = self.l2_results() {
            v["l2arc"] = l2;
        }
        v
    }

    /// ZIL activity, cache flushes and data at risk (`spec` §4.3, §6).
    /// `zfs_dirty_data_max` (2013+); null for the releases before it, which had none.
    fn txg_dirty_max_json(&self) -> Value {
        if self.txg.eng.uses_write_limit() { Value::Null } else { json!(self.txg.eng.dirty_max_bytes()) }
    }

    /// The pre-2013 per-txg write limit in force at the end of the run; null from 2013.
    fn txg_write_limit_json(&self) -> Value {
        if self.txg.eng.uses_write_limit() { json!(self.txg.eng.write_limit_bytes()) } else { Value::Null }
    }

    fn zil_results(&self) -> Value {
        let z = self.zil.stats();
        let r = &self.risk;
        let secs = (self.risk_time_ns().max(1)) as f64;
        let mut v = json!({
            "commits": z.commits, "lwb_writes": z.lwb_writes, "lwb_bytes": z.lwb_bytes,
            "indirect_writes": z.indirect_writes, "indirect_bytes": z.indirect_bytes,
            "flush_requests": z.flushes, "batches": z.batches, "disabled": self.zil.is_disabled(),
            "log_space_bytes_max": z.log_space_bytes_max,
            "slog": !self.log_tops.is_empty(),
            "lwb_pool_writes": self.aux.lwb_pool_writes,
            "commit_latency_ns": serde_json::to_value(self.zil_commit_hist.pcts()).unwrap(),
            "leaf_flushes": self.flushes,
            "flush_latency_ns": serde_json::to_value(self.flush_hist.pcts()).unwrap(),
            "at_risk": {
                "bytes_max": r.at_risk_bytes_max, "bytes_mean": r.at_risk_byte_ns as f64 / secs,
                "window_ns_max": r.at_risk_window_ns_max,
                "unsynced_bytes_max": r.unsynced_bytes_max, "unsynced_bytes_mean": r.unsynced_byte_ns as f64 / secs,
            },
        });
        if let Some(d) = self.aux_zil_results() {
            v["log_devices"] = d;
        }
        v
    }

    /// The time up to which `self.risk` was integrated (the last sample or the stop).
    fn risk_time_ns(&self) -> u64 {
        self.sample_t.last().copied().unwrap_or(0)
    }
}

/// The results document: `head` (a `Value`, small) with `status` and `series.leaves`
/// streamed from their stores in the places sorted keys give them.
struct ResultsDoc<'a> {
    head: Value,
    /// `None`: the compact form's `series.leaves`, `[]`.
    leaves: Option<&'a SeriesStore>,
    status: Option<crate::status_log::StatusJson<'a>>,
}

/// A value of the document: from `head`, or streamed.
enum Part<'a> {
    Value(&'a Value),
    Series(&'a ResultsDoc<'a>, &'a serde_json::Map<String, Value>),
    Leaves(Option<&'a SeriesStore>),
    Status(&'a Option<crate::status_log::StatusJson<'a>>),
}

impl serde::Serialize for Part<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        match self {
            Part::Value(v) => v.serialize(s),
            Part::Series(doc, map) => doc.merged(map, &[("leaves", Part::Leaves(doc.leaves))], s),
            Part::Leaves(None) => s.serialize_seq(Some(0))?.end(),
            Part::Leaves(Some(store)) => {
                let mut q = s.serialize_seq(Some(store.leaves()))?;
                for i in 0..store.leaves() {
                    q.serialize_element(&store.leaf_json(i))?;
                }
                q.end()
            }
            Part::Status(st) => st.serialize(s),
        }
    }
}

impl ResultsDoc<'_> {
    /// `map` with `extra` entries added, all in sorted key order (as `serde_json` writes
    /// an object); an entry of `map` named "series" is streamed with the leaves.
    fn merged<S: serde::Serializer>(&self, map: &serde_json::Map<String, Value>, extra: &[(&str, Part<'_>)], s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut parts: Vec<(&str, Part<'_>)> = map
            .iter()
            .map(|(k, v)| match (k.as_str(), v) {
                ("series", Value::Object(m)) => (k.as_str(), Part::Series(self, m)),
                _ => (k.as_str(), Part::Value(v)),
            })
            .collect();
        for (k, p) in extra {
            parts.push((k, match p {
                Part::Leaves(l) => Part::Leaves(*l),
                Part::Status(st) => Part::Status(st),
                _ => unreachable!("only streamed parts are added"),
            }));
        }
        parts.sort_by_key(|(k, _)| *k);
        let mut m = s.serialize_map(Some(parts.len()))?;
        for (k, p) in &parts {
            m.serialize_entry(k, p)?;
        }
        m.end()
    }
}

impl serde::Serialize for ResultsDoc<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Value::Object(map) = &self.head else { unreachable!("the head is an object") };
        self.merged(map, &[("status", Part::Status(&self.status))], s)
    }
}

impl Model for Model_ {
    type Event = Ev;

    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<Ev>) {
        match ev {
            Ev::DevWake { leaf, gen } => self.dev_wake(leaf, gen, ctx),
            Ev::LinkDone { leaf, head } => {
                self.complete_issue(leaf, head, ctx);
                self.pump(leaf, ctx);
            }
            Ev::Arrival { wl } => {
                let w = &mut self.wls[wl as usize];
                if ctx.now() >= w.stop_ns || self.stopped {
                    return;
                }
                if w.trace.is_some() {
                    self.trace_arrival(wl as usize, ctx);
                } else {
                    let mean_ns = 1e9 / w.rate_per_s.unwrap();
                    let gap = w.rng.exp(mean_ns).round() as u64;
                    ctx.schedule_in(gap.max(1), Ev::Arrival { wl });
                    self.start_op(wl as usize, 0, ctx);
                }
            }
            Ev::ThreadGo { wl, thread } => {
                if ctx.now() < self.wls[wl as usize].stop_ns && !self.stopped {
                    self.start_op(wl as usize, thread, ctx);
                }
            }
            Ev::OpDone { op } => self.finish_op(op, ctx),
            Ev::Sample => self.sample(ctx),
            Ev::TxgTimer => {
                let mut out = Vec::new();
                self.txg.eng.on_timer(ctx.now(), &mut out);
                self.txg_actions(out, ctx);
            }
            Ev::TxRetry { op } => self.assign_write(op, true, ctx),
            Ev::SyncArrive => self.sync_arrivals_due(ctx),
            Ev::NfsServer { op } => self.nfs_server(op, ctx),
            Ev::SrcWake { wl, gen } => self.src_wake(wl as usize, gen, ctx),
            Ev::DbCheckpoint { wl } => self.db_checkpoint(wl as usize, ctx),
            Ev::DbTick { wl } => self.db_tick(wl as usize, ctx),
            Ev::ZilTimer { token } => {
                let mut out = Vec::new();
                self.zil.on_timer(ctx.now(), token, &mut out);
                self.zil_actions(out, ctx);
            }
            Ev::ScanResume => self.scan_resume(ctx),
            Ev::L2Feed => self.l2_feed(ctx),
            Ev::Action { idx } => self.do_action(idx as usize, ctx),
            Ev::Stop => {
                // The last interval may be partial (or end exactly now, with its Sample
                // event still queued behind this one): sample it here, once.
                if self.sample_t.last().copied().unwrap_or(0) < ctx.now() {
                    self.sample(ctx);
                } else if !self.status_snaps.is_empty() {
                    // Sampled at this very instant, but events of the same instant (an
                    // action, the scan's end) may have run after it: the run's last
                    // `zpool status` shows the state it ends in. (The counters' interval
                    // since that sample is empty.)
                    let snap = self.status_snapshot(ctx.now());
                    self.status_snaps.replace_last(snap);
                }
                self.stopped = true;
                self.stop_reason = if self.sample_limit {
                    "limit: 20000 report intervals (raise scenario.report_interval)"
                } else if self.scan_done_stop_ns == Some(ctx.now()) {
                    "scan-done"
                } else if self.workloads_done_ns == Some(ctx.now()) {
                    "workloads-done"
                } else if self.suspend_stop_ns == Some(ctx.now()) {
                    if self.cfg.pool.failmode == crate::config::Failmode::Panic { "panic" } else { "suspended" }
                } else {
                    "stop-time"
                };
                ctx.stop();
            }
        }
        // Scans start, pause and end inside many kinds of event; account the window here,
        // once, at the exact time it changes.
        let phase = self.scan_phase();
        if phase != self.phase_now.0 {
            self.phase_ns[self.phase_now.0 as usize] += ctx.now() - self.phase_now.1;
            self.phase_now = (phase, ctx.now());
        }
    }

    fn digest_word(ev: &Ev) -> u64 {
        match *ev {
            Ev::DevWake { leaf, gen } => 1 << 56 | (leaf as u64) << 32 | gen as u64,
            Ev::LinkDone { leaf, head } => 2 << 56 | (leaf as u64) << 32 | head as u64,
            Ev::Arrival { wl } => 3 << 56 | wl as u64,
            Ev::ThreadGo { wl, thread } => 4 << 56 | (wl as u64) << 32 | thread as u64,
            Ev::OpDone { op } => 5 << 56 | op as u64,
            Ev::Sample => 6 << 56,
            Ev::TxgTimer => 7 << 56,
            Ev::Stop => 8 << 56,
            Ev::ScanResume => 9 << 56,
            Ev::Action { idx } => 10 << 56 | idx as u64,
            Ev::TxRetry { op } => 11 << 56 | op as u64,
            Ev::ZilTimer { token } => 12 << 56 | token as u64,
            Ev::NfsServer { op } => 13 << 56 | op as u64,
            Ev::DbCheckpoint { wl } => 14 << 56 | wl as u64,
            Ev::DbTick { wl } => 15 << 56 | wl as u64,
            Ev::SrcWake { wl, gen } => 16 << 56 | (wl as u64) << 32 | gen as u64,
            Ev::L2Feed => 17 << 56,
            Ev::SyncArrive => 18 << 56,
        }
    }
}

/// A whole run: the engine plus the model, steppable in chunks.
pub struct Run {
    pub sim: Sim<Model_>,
    pub stop_ns: u64,
    end: Option<String>,
}

impl Run {
    pub fn new(cfg: RunConfig) -> Result<Run, String> {
        let limits = match &cfg.limits {
            Some(l) => Limits { events_max: l.events_max, time_ns_max: l.time_ns_max },
            None => Limits::default(),
        };
        let stop_ns = cfg.stop_ns;
        let model = Model_::new(cfg)?;
        let mut sim = Sim::new(model, limits);
        sim.with_ctx(|m, ctx| m.start(ctx));
        Ok(Run { sim, stop_ns, end: None })
    }

    /// A function the run asks, now and then, whether to stop at once (a pending Ctrl-C in
    /// the host): `step_events` then returns early with [`Run::interrupted`] set. The run
    /// is abandoned there; a poll that says no changes nothing.
    pub fn set_interrupt_poll(&mut self, f: fn() -> bool) {
        self.sim.model_mut().interrupt_poll = Some(f);
    }

    /// The interrupt poll said stop: the run's state is no result.
    pub fn interrupted(&self) -> bool {
        self.sim.model().interrupted
    }

    /// Handle up to `n` events; true once the run has ended. Returns early (false) when the
    /// interrupt poll says stop.
    pub fn step_events(&mut self, n: u64) -> bool {
        if self.end.is_some() {
            return true;
        }
        let target = self.sim.events_handled() + n;
        let poll = self.sim.model().interrupt_poll;
        while self.sim.events_handled() < target {
            if self.sim.model().interrupted {
                return false;
            }
            match self.sim.peek_time() {
                None => {
                    self.end = Some("drained".into());
                    return true;
                }
                Some(_) => {
                    // With a poll, a slice of events at a time, asking it between slices.
                    let upto = match poll {
                        Some(f) if f() => {
                            self.sim.model_mut().interrupted = true;
                            return false;
                        }
                        Some(_) => target.min(self.sim.events_handled() + 4096),
                        None => target,
                    };
                    let e = self.sim.run_until_events(upto);
                    match e {
                        End::Stopped => {
                            self.end = Some(self.sim.model().stop_reason.into());
                            return true;
                        }
                        End::Limit(s) => {
                            self.end = Some(format!("limit: {s}"));
                            return true;
                        }
                        End::Drained => {
                            self.end = Some("drained".into());
                            return true;
                        }
                        End::Reached(_) => {}
                    }
                }
            }
        }
        false
    }

    pub fn run_to_end(&mut self) -> &str {
        while !self.step_events(1 << 20) {}
        self.end.as_deref().unwrap()
    }

    pub fn end(&self) -> Option<&str> {
        self.end.as_deref()
    }

    pub fn results(&self) -> Value {
        self.sim.model().results(self.sim.digest(), self.sim.events_handled(), self.sim.now(), self.end.as_deref().unwrap_or("running"))
    }

    /// The results document as JSON text (`Model_::results_json`).
    pub fn results_json(&self, compact: bool) -> String {
        let end = self.end.as_deref().unwrap_or("running");
        self.sim.model().results_json(self.sim.digest(), self.sim.events_handled(), self.sim.now(), end, compact)
    }
}

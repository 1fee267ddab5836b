//! The run config: the scenario after Python has validated and normalised it (every size in
//! bytes, every time in ns). Shape documented in `docs/internals.md`. Python reports user
//! mistakes; what reaches here is checked again and any remaining problem is reported as a
//! one-line error naming the field.

use crate::device::link::LinkParams;
use crate::device::DeviceSpec;
use crate::pool::VdevType;
use crate::release::Release;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    pub name: String,
    pub seed: u64,
    pub release: Release,
    /// Platform clock ticks per second (legacy scan delays are in ticks).
    pub hz: u32,
    pub ram_bytes: u64,
    pub stop_ns: u64,
    pub report_interval_ns: u64,
    #[serde(default)]
    pub tunables: BTreeMap<String, i64>,
    pub devices: BTreeMap<String, DeviceSpec>,
    #[serde(default)]
    pub links: BTreeMap<String, LinkParams>,
    pub pool: PoolConfig,
    #[serde(default)]
    pub workloads: Vec<WorkloadConfig>,
    #[serde(default)]
    pub limits: Option<LimitsConfig>,
    /// Timed administrator actions (scrub, replace, fail, …), in time order.
    #[serde(default)]
    pub actions: Vec<ActionConfig>,
    /// End the run when the last scan (scrub/resilver/rebuild) finishes.
    #[serde(default)]
    pub stop_on_scan_done: bool,
    /// With `stop_on_scan_done`: keep running this long after the scan finishes (the
    /// "after" window of a before/during/after comparison), ns.
    #[serde(default)]
    pub stop_after_scan_done_ns: u64,
    /// End the run once every workload with a finite job (an nfs-copy of `files`, a
    /// trace replayed once) has finished.
    #[serde(default)]
    pub stop_on_workloads_done: bool,
    /// Wall-clock time of simulated t = 0, seconds since the Unix epoch (dates in output).
    #[serde(default = "default_epoch")]
    pub epoch_s: u64,
    /// The dataset's `sync` property (`standard`, `always`, `disabled`).
    #[serde(default = "default_sync")]
    pub sync: String,
    /// The dataset's `logbias` property (`latency`, `throughput`).
    #[serde(default = "default_logbias")]
    pub logbias: String,
    /// The dataset's `special_small_blocks` property (0.8+): file blocks of at most this
    /// psize go to the special vdevs while they have room (`spa_preferred_class`); 0: none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub special_small_blocks_bytes: u64,
}

fn default_sync() -> String {
    "standard".into()
}

fn default_logbias() -> String {
    "latency".into()
}

/// 2023-10-14 00:00:01 UTC: the date of the zfs-2.2 `zpool status` example in the spec.
fn default_epoch() -> u64 {
    1_697_241_601
}

// No deny_unknown_fields here: serde cannot combine it with a flattened tagged enum; the
// Python side rejects unknown action keys.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ActionConfig {
    pub at_ns: u64,
    #[serde(flatten)]
    pub action: Action,
}

/// What an administrator does (`zpool scrub`, `zpool replace`, a disk dying, …).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "do", rename_all = "kebab-case")]
pub enum Action {
    /// `zpool scrub`.
    Scrub,
    /// `zpool scrub -p` (0.7+).
    PauseScrub,
    /// `zpool scrub` on a paused scrub.
    ResumeScrub,
    /// `zpool scrub -s` / cancel the running scrub.
    Cancel,
    /// The disk stops answering (its I/Os fail; ZFS marks it FAULTED/UNAVAIL).
    Fail { disk: String },
    /// `zpool replace pool old new` (a resilver), optionally `-s` (sequential rebuild, 2.0+).
    Replace {
        old: String,
        new: String,
        /// Device of the new disk (a key of `devices`); default: the old disk's.
        #[serde(default)]
        device: Option<String>,
        #[serde(default)]
        sequential: bool,
    },
    /// `zpool attach pool disk new` (optionally `-s`): a disk becomes a mirror, or a mirror
    /// gains a child, and the new disk is resilvered (or rebuilt).
    Attach {
        disk: String,
        new: String,
        #[serde(default)]
        device: Option<String>,
        #[serde(default)]
        sequential: bool,
    },
    /// `zpool detach pool disk`: remove a mirror child or one side of a replacing vdev.
    Detach { disk: String },
    /// `zpool offline pool disk`: stop using a disk; it misses every txg until onlined.
    Offline { disk: String },
    /// `zpool online pool disk`: use it again and resilver what it missed.
    Online { disk: String },
    /// Change a tunable at run time (`echo v > /sys/module/zfs/parameters/name`).
    Set { tunable: String, value: i64 },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    pub events_max: u64,
    pub time_ns_max: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolConfig {
    pub name: String,
    pub ashift: u32,
    pub recordsize_bytes: u64,
    /// Logical (pre-parity) data bytes stored in the pool.
    pub allocated_bytes: u64,
    pub vdevs: Vec<VdevConfig>,
    #[serde(default)]
    pub cache: Vec<DiskConfig>,
    /// Hot spares (`zpool add POOL spare …`, `admin.rs`).
    #[serde(default)]
    pub spares: Vec<DiskConfig>,
    /// A failed disk is replaced by an available spare at once (zed's or FMA's retire
    /// agent); `None`: the release's default (`Release::activates_spares`).
    #[serde(default)]
    pub spares_auto: Option<bool>,
    /// Separate log devices (SLOG): each a disk or a mirror.
    #[serde(default)]
    pub log: Vec<VdevConfig>,
    /// The special allocation class (0.8+, `zpool create … special mirror a b`): top-level
    /// vdevs numbered after the data vdevs, holding the pool's metadata and the file blocks
    /// `special_small_blocks` sends there (`layout.rs`, `sync_alloc.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub special: Vec<VdevConfig>,
    /// What the pool holds and how aged it is (default: a fresh fill of recordsize records).
    #[serde(default)]
    pub layout: Option<LayoutConfig>,
    /// The `failmode` pool property: what the pool does when I/O it cannot do without
    /// fails (`sim.rs` `suspend`).
    #[serde(default, skip_serializing_if = "Failmode::is_default")]
    pub failmode: Failmode,
}

impl PoolConfig {
    /// Every top-level vdev that holds blocks, in vdev-id order: the data vdevs, then the
    /// special ones (log vdevs are not among them).
    pub fn tops(&self) -> impl Iterator<Item = &VdevConfig> {
        self.vdevs.iter().chain(&self.special)
    }
}

/// `zpool set failmode=`: `wait` (the default) suspends the pool and blocks I/O until
/// `zpool clear`; `continue` suspends it too but returns EIO to reads of what is lost;
/// `panic` panics the host (`zio_suspend`, `spa_get_failmode`; zpoolprops(7)).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Failmode {
    #[default]
    Wait,
    Continue,
    Panic,
}

impl Failmode {
    fn is_default(&self) -> bool {
        *self == Failmode::Wait
    }

    pub fn name(self) -> &'static str {
        match self {
            Failmode::Wait => "wait",
            Failmode::Continue => "continue",
            Failmode::Panic => "panic",
        }
    }
}

/// The scenario's `pool.layout`, normalised: it becomes `layout::LayoutParams` with the
/// pool's allocated bytes, recordsize and ashift.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LayoutConfig {
    /// 0 = fresh sequential fill … 1 = every block placed independently.
    #[serde(default)]
    pub fragmentation: f64,
    /// File-size mix as (size in bytes, share of the data bytes); empty: 1 GiB files.
    #[serde(default)]
    pub files: Vec<(u64, f64)>,
    /// lsize / psize of file data, ≥ 1.
    #[serde(default = "one")]
    pub compression_ratio: f64,
    /// Placement seed; default: the run's seed.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The release that wrote the pool's files (its indirect block size and allocation
    /// rotor); default: the run's release. An upgraded pool keeps what its old release wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_by: Option<crate::release::Release>,
}

fn one() -> f64 {
    1.0
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VdevConfig {
    #[serde(rename = "type")]
    pub kind: VdevType,
    pub disks: Vec<DiskConfig>,
    /// dRAID only: data columns per redundancy group (`draid2:<D>d`); None: ZFS's default,
    /// MIN(children − spares − parity, 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<u64>,
    /// dRAID only: distributed spares (`draid2:…:<S>s`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub spares: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl VdevConfig {
    /// The dRAID geometry of a `draid` vdev (None for other types), or what is wrong with it.
    pub fn draid(&self, ashift: u32) -> Result<Option<crate::draid::Draid>, String> {
        if !self.kind.is_draid() {
            return Ok(None);
        }
        let np = self.kind.nparity() as u64;
        let c = self.disks.len() as u64;
        let nd = self.data.unwrap_or_else(|| crate::draid::Draid::default_ndata(np, c, self.spares));
        crate::draid::Draid::new(np, nd, c, self.spares, ashift).map(Some)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskConfig {
    pub name: String,
    pub device: String,
    #[serde(default)]
    pub link: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadKind {
    RandomRead,
    RandomWrite,
    SeqRead,
    SeqWrite,
    /// Each thread writes to its own file and makes every write durable (`fsync` after it,
    /// or O_DSYNC) before the next.
    FsyncWrite,
    /// An NFSv3 client copying a tree of small files (`cp -r`): per file CREATE, WRITEs,
    /// COMMIT at close, SETATTR, one RPC at a time per thread.
    NfsCopy,
    /// An OLTP database on the dataset: each session runs transactions of random page
    /// reads (through the ARC) and one WAL append made durable (fdatasync or O_DSYNC);
    /// a checkpointer writes the pages the transactions dirtied, spread over the
    /// checkpoint interval, then fsyncs the data files.
    Database,
    /// A block-device user of a zvol (a VM disk, an iSCSI LU): random writes of `sizes`,
    /// each FUA if `fua`, and a cache flush (REQ_PREFLUSH, DKIOCFLUSHWRITECACHE) after
    /// every `flush_every`-th write; both end in `zil_commit(ZVOL_OBJ)`. The scenario's
    /// dataset is then a volume and `pool.recordsize` its volblocksize.
    Zvol,
    /// A recorded I/O trace replayed record by record (`trace`): at its recorded times
    /// (open loop), or as fast as `threads` operations in flight allow (closed loop).
    Trace,
}

impl WorkloadKind {
    /// Kinds a modelled ARC (`arc_size`) may serve: the plain readers and writers and a
    /// trace (python/ziosim/scenario.py `ARC_SIZE_KINDS`).
    pub fn arc_size_allowed(self) -> bool {
        matches!(self, WorkloadKind::Trace | WorkloadKind::RandomRead | WorkloadKind::SeqRead | WorkloadKind::RandomWrite
            | WorkloadKind::SeqWrite)
    }

    pub fn key(self) -> &'static str {
        match self {
            WorkloadKind::RandomRead => "random-read",
            WorkloadKind::RandomWrite => "random-write",
            WorkloadKind::SeqRead => "seq-read",
            WorkloadKind::SeqWrite => "seq-write",
            WorkloadKind::FsyncWrite => "fsync-write",
            WorkloadKind::NfsCopy => "nfs-copy",
            WorkloadKind::Database => "database",
            WorkloadKind::Zvol => "zvol",
            WorkloadKind::Trace => "trace",
        }
    }
    pub fn is_read(self) -> bool {
        matches!(self, WorkloadKind::RandomRead | WorkloadKind::SeqRead)
    }
    pub fn is_seq(self) -> bool {
        matches!(self, WorkloadKind::SeqRead | WorkloadKind::SeqWrite)
    }
}

impl RunConfig {
    /// The dataset is a volume (zvol) rather than a filesystem: a zvol workload uses it.
    pub fn is_volume(&self) -> bool {
        self.workloads.iter().any(|w| w.kind == WorkloadKind::Zvol || (w.kind == WorkloadKind::Trace && w.volume))
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadConfig {
    pub name: String,
    pub kind: WorkloadKind,
    /// (size in bytes, weight) pairs.
    pub sizes: Vec<(u64, f64)>,
    #[serde(default)]
    pub rate_per_s: Option<f64>,
    #[serde(default)]
    pub threads: Option<u32>,
    #[serde(default)]
    pub think_ns: u64,
    #[serde(default)]
    pub region_offset_bytes: u64,
    /// 0 = the whole allocated space.
    #[serde(default)]
    pub region_length_bytes: u64,
    #[serde(default)]
    pub arc_hit_ratio: f64,
    /// Latency of an ARC hit (a memory copy), ns.
    #[serde(default = "default_arc_hit_ns")]
    pub arc_hit_ns: u64,
    #[serde(default)]
    pub l2arc_hit_ratio: f64,
    #[serde(default)]
    pub start_ns: u64,
    #[serde(default)]
    pub stop_ns: Option<u64>,
    /// fsync-write: open the file O_DSYNC (the write itself commits) instead of fsync.
    #[serde(default)]
    pub o_dsync: bool,
    /// zvol: every write is FUA (Force Unit Access): committed before it completes.
    #[serde(default)]
    pub fua: bool,
    /// zvol: a cache flush follows every this-many writes of the workload (the write
    /// completes with it); 0 = never.
    #[serde(default)]
    pub flush_every: u32,
    /// nfs-copy: files to copy (sizes drawn from `sizes`); 0 = until stop.
    #[serde(default)]
    pub files: u64,
    /// nfs-copy: largest WRITE RPC, bytes (the mount's wsize).
    #[serde(default = "default_wsize")]
    pub wsize_bytes: u64,
    /// nfs-copy: network round trip, ns.
    #[serde(default = "default_rtt")]
    pub rtt_ns: u64,
    /// nfs-copy: network bandwidth, bytes per second.
    #[serde(default = "default_net_rate")]
    pub net_bytes_per_s: u64,
    /// nfs-copy: directories the tree holds (each a MKDIR the server commits and an
    /// ACCESS the client sends before creating in it); 0 = all files in one directory.
    #[serde(default)]
    pub dirs: u64,
    /// nfs-copy: the client's own disk the tree is read from (a key of `devices`), cold:
    /// per directory its entry block and inode-table block, per file its data. None = the
    /// source is already in the client's memory.
    #[serde(default)]
    pub source: Option<String>,
    /// trace: the records to replay (Python parses the trace file into these columns).
    #[serde(default)]
    pub trace: Option<TraceConfig>,
    /// trace, random/seq read/write: a model of the ARC (`trace::ArcCache`) of this many
    /// bytes of records decides ARC hits, instead of the `arc_hit_ratio` draw, and the
    /// release's metadata share of it the indirect blocks' (`indirect.rs`); 0 = off.
    #[serde(default)]
    pub arc_bytes: u64,
    /// trace: the trace is a block device's (a VM disk, an iSCSI LU) and replays on a
    /// volume, as a `zvol` workload makes the dataset one.
    #[serde(default)]
    pub volume: bool,
    /// database: random page reads per transaction (`sizes` are the page size).
    #[serde(default = "default_db_reads")]
    pub reads_per_txn: u32,
    /// database: WAL bytes written and made durable per commit.
    #[serde(default = "default_wal_bytes")]
    pub wal_bytes: u64,
    /// database: data pages each transaction dirties (written back at checkpoints).
    #[serde(default = "default_db_dirty")]
    pub dirty_pages_per_txn: u32,
    /// database: checkpoint interval (`checkpoint_timeout`), ns.
    #[serde(default = "default_checkpoint_ns")]
    pub checkpoint_ns: u64,
    /// database: share of the interval the checkpoint's writes are spread over
    /// (`checkpoint_completion_target`).
    #[serde(default = "default_checkpoint_spread")]
    pub checkpoint_spread: f64,
}

/// Most records a trace workload's modelled ARC may hold (about 100 bytes of memory each,
/// with the ghost lists' headers).
pub const ARC_RECORDS_MAX: u64 = 1 << 22;

/// A trace workload's records as columns, one entry per record, in issue order.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// Issue time after the workload's start, ns, non-decreasing (already scaled by the
    /// scenario's `speed`); empty: the trace has no times and replays closed loop.
    #[serde(default)]
    pub t_ns: Vec<u64>,
    /// One letter per record: `R` read, `W` write, `S` write made durable before it
    /// completes (O_DSYNC, FUA), `F` flush (fsync / fdatasync, a cache flush of a block
    /// device): a commit of the file's log with no data.
    pub ops: String,
    /// Byte offset in the workload's region (wrapped into it if beyond).
    pub offset: Vec<u64>,
    /// Bytes (0 for `F`).
    pub size: Vec<u64>,
    /// File of each record (its own ZIL commit target); empty: one file.
    #[serde(default)]
    pub file: Vec<u32>,
    /// Start again from the first record when the last was issued (timed: one lap later).
    #[serde(default)]
    pub repeat: bool,
}

impl TraceConfig {
    /// The records' columns agree and every value is usable; a one-line error otherwise.
    pub fn check(&self, path: &str, timed_needed: bool) -> Result<(), String> {
        let n = self.offset.len();
        if n == 0 {
            return Err(format!("{path}.trace: no records — allowed: at least one read, write or flush"));
        }
        if self.ops.len() != n || self.size.len() != n || (!self.t_ns.is_empty() && self.t_ns.len() != n)
            || (!self.file.is_empty() && self.file.len() != n)
        {
            return Err(format!("{path}.trace: columns of different lengths — allowed: one entry per record in each"));
        }
        if let Some((i, c)) = self.ops.bytes().enumerate().find(|(_, c)| !matches!(c, b'R' | b'W' | b'S' | b'F')) {
            return Err(format!("{path}.trace.ops[{i}]: {:?} — allowed: R, W, S or F", c as char));
        }
        for (i, (&sz, c)) in self.size.iter().zip(self.ops.bytes()).enumerate() {
            if c != b'F' && sz == 0 {
                return Err(format!("{path}.trace.size[{i}]: 0 — allowed: more than 0 for a read or write"));
            }
            if sz > 1 << 40 {
                return Err(format!("{path}.trace.size[{i}]: {sz} — allowed: at most 1 TiB"));
            }
        }
        if let Some(i) = self.t_ns.windows(2).position(|w| w[1] < w[0]) {
            return Err(format!("{path}.trace.t_ns[{}]: {} — before the record ahead of it; allowed: non-decreasing times", i + 1, self.t_ns[i + 1]));
        }
        if timed_needed && self.t_ns.is_empty() {
            return Err(format!("{path}.trace: the records have no times — allowed: threads (closed-loop replay)"));
        }
        Ok(())
    }

    pub fn timed(&self) -> bool {
        !self.t_ns.is_empty()
    }
}

/// pgbench's TPC-B-like transaction: one SELECT and three UPDATEs of random rows (plus an
/// INSERT appended to a hot page) — about four pages looked up and three dirtied.
fn default_db_reads() -> u32 {
    4
}
fn default_db_dirty() -> u32 {
    3
}
/// PostgreSQL writes whole 8 KiB WAL pages (`XLOG_BLCKSZ`); a small commit rewrites one.
fn default_wal_bytes() -> u64 {
    8192
}
/// PostgreSQL `checkpoint_timeout` = 5 min.
fn default_checkpoint_ns() -> u64 {
    300_000_000_000
}
/// PostgreSQL ≥ 14 `checkpoint_completion_target` = 0.9 (0.5 before).
fn default_checkpoint_spread() -> f64 {
    0.9
}

/// Linux NFSv3 against a 2009 Solaris server: 32 KiB transfers (`nfs3_max_transfer_size`
/// was raised to 1 MiB only later); a scenario sets its own.
fn default_wsize() -> u64 {
    32 << 10
}

/// A switched gigabit LAN's round trip (~0.2 ms).
fn default_rtt() -> u64 {
    200_000
}

/// Gigabit Ethernet payload rate.
fn default_net_rate() -> u64 {
    117_000_000
}

fn default_arc_hit_ns() -> u64 {
    2_000
}

/// What `zpool` says when `attach` (or `replace` with `-s`) targets a raidz child, which
/// it refuses in every release (`spa_vdev_attach`); None when the kind allows it.
pub(crate) fn raidz_refusal(kind: VdevType, sequential: bool, replacing: bool) -> Option<&'static str> {
    match (kind.is_raidz(), replacing) {
        (true, true) if sequential && !kind.is_draid() => Some("only mirror and dRAID vdevs support sequential reconstruction"),
        (true, false) => Some("can only attach to mirrors and top-level disks"),
        _ => None,
    }
}

/// A config problem: one line naming the field, the value and what is allowed.
pub fn field_err(field: &str, value: impl std::fmt::Display, allowed: &str) -> String {
    format!("{field}: {value} — {allowed}")
}

impl RunConfig {
    pub fn from_json(s: &str) -> Result<RunConfig, String> {
        let c: RunConfig = serde_json::from_str(s).map_err(|e| format!("run config: {e}"))?;
        c.check()?;
        Ok(c)
    }

    /// Checks the Python side cannot do alone (it does the user-facing ones first).
    pub fn check(&self) -> Result<(), String> {
        if self.report_interval_ns == 0 {
            return Err(field_err("scenario.report_interval", 0, "allowed: a positive duration"));
        }
        for (name, d) in &self.devices {
            d.validate().map_err(|e| format!("devices.{name}.{e}"))?;
        }
        for (name, l) in &self.links {
            l.validate().map_err(|e| format!("links.{name}.{e}"))?;
        }
        if self.pool.vdevs.is_empty() {
            return Err(field_err("pool.vdevs", "[]", "allowed: at least one vdev"));
        }
        if !(9..=16).contains(&self.pool.ashift) {
            return Err(field_err("pool.ashift", self.pool.ashift, "allowed: 9..=16"));
        }
        let rs = self.pool.recordsize_bytes;
        if !rs.is_power_of_two() || !(512..=16 << 20).contains(&rs) {
            return Err(field_err("pool.recordsize", rs, "allowed: a power of two from 512 to 16M"));
        }
        for (i, v) in self.pool.vdevs.iter().enumerate() {
            if v.disks.len() < v.kind.min_children() {
                return Err(field_err(
                    &format!("pool.vdevs[{i}].disks"),
                    v.disks.len(),
                    &format!("too few for {}; allowed: at least {}", v.kind.label(), v.kind.min_children()),
                ));
            }
            if v.kind.is_draid() {
                if self.release < Release::Zfs21 {
                    return Err(field_err(&format!("pool.vdevs[{i}].type"), v.kind.label(), "allowed: from release zfs-2.1 (dRAID came with OpenZFS 2.1.0)"));
                }
                v.draid(self.pool.ashift).map_err(|e| format!("pool.vdevs[{i}]: {e}"))?;
            } else if v.data.is_some() || v.spares > 0 {
                return Err(field_err(&format!("pool.vdevs[{i}].{}", if v.data.is_some() { "data" } else { "spares" }), v.data.unwrap_or(v.spares), "applies to draid vdevs only"));
            }
            if v.kind == VdevType::Disk && v.disks.len() != 1 {
                return Err(field_err(&format!("pool.vdevs[{i}].disks"), v.disks.len(), "allowed: exactly 1 for type disk"));
            }
            for (j, d) in v.disks.iter().enumerate() {
                self.check_disk(&format!("pool.vdevs[{i}].disks[{j}]"), d)?;
            }
        }
        for (j, d) in self.pool.cache.iter().enumerate() {
            self.check_disk(&format!("pool.cache[{j}]"), d)?;
        }
        for (j, d) in self.pool.spares.iter().enumerate() {
            self.check_disk(&format!("pool.spares[{j}]"), d)?;
        }
        for (i, v) in self.pool.special.iter().enumerate() {
            let f = |k: &str| format!("pool.special[{i}].{k}");
            if self.release < Release::Zfs08 {
                return Err(field_err(&f("type"), v.kind.label(), "allowed: from release zfs-0.8 (allocation classes came with OpenZFS 0.8.0)"));
            }
            if v.kind.is_draid() || v.data.is_some() || v.spares > 0 {
                return Err(field_err(&f("type"), v.kind.label(), "allowed: disk, mirror, raidz1, raidz2, raidz3"));
            }
            if v.disks.len() < v.kind.min_children() {
                return Err(field_err(&f("disks"), v.disks.len(), &format!("too few for {}; allowed: at least {}", v.kind.label(), v.kind.min_children())));
            }
            if v.kind == VdevType::Disk && v.disks.len() != 1 {
                return Err(field_err(&f("disks"), v.disks.len(), "allowed: exactly 1 for type disk"));
            }
            for (j, d) in v.disks.iter().enumerate() {
                self.check_disk(&format!("pool.special[{i}].disks[{j}]"), d)?;
            }
        }
        let sb = self.special_small_blocks_bytes;
        if sb != 0 {
            // zfs_prop.c: "zero or 512 to 128K, power of 2" at 0.8.0, to 1M from 2.0 (to the
            // pool's maxblocksize from 2.2, libzfs_dataset.c).
            let max: u64 = if self.release < Release::Zfs08 {
                0
            } else if self.release < Release::Zfs20 {
                128 << 10
            } else if self.release < Release::Zfs22 {
                1 << 20
            } else {
                16 << 20
            };
            if max == 0 || !sb.is_power_of_two() || !(512..=max).contains(&sb) {
                return Err(field_err("zfs.special_small_blocks", sb, &format!("allowed: 0, or a power of two from 512 to {max} (from release zfs-0.8)")));
            }
        }
        for (i, v) in self.pool.log.iter().enumerate() {
            if !matches!(v.kind, VdevType::Disk | VdevType::Mirror) || v.disks.len() < v.kind.min_children() {
                return Err(field_err(&format!("pool.log[{i}].type"), v.kind.label(), "allowed: disk or mirror (2+ disks)"));
            }
            for (j, d) in v.disks.iter().enumerate() {
                self.check_disk(&format!("pool.log[{i}].disks[{j}]"), d)?;
            }
        }
        if !["standard", "always", "disabled"].contains(&self.sync.as_str()) {
            return Err(field_err("zfs.sync", &self.sync, "allowed: standard, always, disabled"));
        }
        if !["latency", "throughput"].contains(&self.logbias.as_str()) {
            return Err(field_err("zfs.logbias", &self.logbias, "allowed: latency, throughput"));
        }
        // Disks a command may name: the pool's, then the new ones replace/attach add, each
        // with the type of the top-level vdev it belongs to.
        let mut disks: Vec<&str> = self.pool.tops().flat_map(|v| v.disks.iter().map(|d| d.name.as_str())).collect();
        let mut kinds: Vec<VdevType> = self.pool.tops().flat_map(|v| v.disks.iter().map(|_| v.kind)).collect();
        let mut owners: Vec<usize> = self.pool.tops().enumerate().flat_map(|(t, v)| v.disks.iter().map(move |_| t)).collect();
        let draid_spares = crate::admin::draid_spares(self);
        let spare_names: Vec<&str> = self.pool.spares.iter().map(|d| d.name.as_str()).chain(draid_spares.iter().map(|s| s.name.as_str())).collect();
        // Log and cache devices can fail, go offline and come back (`aux_fail.rs`).
        let aux_names: Vec<&str> = (self.pool.log.iter().flat_map(|v| v.disks.iter()))
            .chain(self.pool.cache.iter())
            .map(|d| d.name.as_str())
            .collect();
        let mut last = 0;
        for (i, a) in self.actions.iter().enumerate() {
            let f = |k: &str| format!("action[{i}].{k}");
            if a.at_ns < last {
                return Err(field_err(&f("at"), a.at_ns, "allowed: actions in time order"));
            }
            last = a.at_ns;
            match &a.action {
                Action::Fail { disk } | Action::Offline { disk } | Action::Online { disk }
                    if aux_names.contains(&disk.as_str()) => {}
                Action::Fail { disk } | Action::Detach { disk } | Action::Offline { disk } | Action::Online { disk }
                    if !disks.contains(&disk.as_str()) && !spare_names.contains(&disk.as_str()) =>
                {
                    return Err(field_err(&f("disk"), disk, &format!("allowed: one of [{}]", disks.join(", "))));
                }
                Action::Replace { old: target, new, device, sequential } | Action::Attach { disk: target, new, device, sequential } => {
                    let replacing = matches!(a.action, Action::Replace { .. });
                    let key = if replacing { "old" } else { "disk" };
                    let Some(k) = disks.iter().position(|d| d == target) else {
                        return Err(field_err(&f(key), target, &format!("allowed: one of [{}]", disks.join(", "))));
                    };
                    if disks.contains(&new.as_str()) || self.pool.cache.iter().any(|d| &d.name == new) {
                        return Err(field_err(&f("new"), new, "allowed: a name no disk of the pool has, or a spare's"));
                    }
                    // A distributed spare may be rebuilt onto sequentially (zpool replace -s).
                    let draid_spare = draid_spares.iter().find(|s| &s.name == new);
                    if spare_names.contains(&new.as_str()) && (device.is_some() || (*sequential && draid_spare.is_none()) || !replacing) {
                        return Err(field_err(&f("new"), new, "a hot spare; allowed with do = \"replace\", without device or sequential"));
                    }
                    if let Some((dt, _)) = draid_spare.and_then(|s| s.draid) {
                        if owners[k] != dt {
                            return Err(field_err(&f("new"), new, &format!("a distributed spare of pool.vdevs[{dt}]: zpool says \"dRAID spares can only replace child devices in their parent's dRAID vdev\"")));
                        }
                    }
                    if let Some(d) = device {
                        if !self.devices.contains_key(d) {
                            return Err(field_err(&f("device"), d, "allowed: a key of [devices]"));
                        }
                    }
                    if *sequential && self.release < Release::Zfs20 {
                        return Err(field_err(&f("sequential"), true, "allowed: only from release zfs-2.0 (zpool replace -s)"));
                    }
                    let kind = kinds[k];
                    if let Some(why) = raidz_refusal(kind, *sequential, replacing) {
                        let (fk, v) = if replacing { ("sequential", "true".to_string()) } else { ("disk", target.clone()) };
                        return Err(field_err(&f(fk), v, &format!("{} is in a {}: zpool says \"{why}\"", target, kind.label())));
                    }
                    disks.push(new.as_str());
                    kinds.push(if kind == VdevType::Disk && !replacing { VdevType::Mirror } else { kind });
                    owners.push(owners[k]);
                }
                Action::PauseScrub | Action::ResumeScrub if self.release < Release::Zfs07 => {
                    return Err(field_err(&f("do"), "pause-scrub", "allowed: from release zfs-0.7 (zpool scrub -p)"));
                }
                _ => {}
            }
        }
        for (i, w) in self.workloads.iter().enumerate() {
            let f = |k: &str| format!("workload[{i}].{k}");
            // A trace brings its own sizes and times: `threads` makes its replay closed loop.
            let trace = w.kind == WorkloadKind::Trace;
            if trace {
                match &w.trace {
                    None => return Err(field_err(&f("trace"), "none", "allowed: the trace's records (a trace file)")),
                    Some(tc) => tc.check(&format!("workload[{i}]"), w.threads.is_none())?,
                }
                if let Some(r) = w.rate_per_s {
                    return Err(field_err(&f("rate"), r, "not for trace (its records carry their times); allowed: threads for a closed-loop replay, or neither"));
                }
            } else if w.trace.is_some() {
                return Err(field_err(&f("trace"), "records", &format!("applies to trace only; remove it for {}", w.kind.key())));
            }
            if w.arc_bytes > 0 {
                if !w.kind.arc_size_allowed() {
                    return Err(field_err(&f("arc_size"), w.arc_bytes, &format!(
                        "applies to trace, random-read, seq-read, random-write, seq-write only; remove it for {}",
                        w.kind.key())));
                }
                let recs = w.arc_bytes / self.pool.recordsize_bytes.max(1);
                if recs > ARC_RECORDS_MAX {
                    return Err(field_err(&f("arc_size"), w.arc_bytes, &format!(
                        "{recs} records of pool.recordsize; allowed: at most {ARC_RECORDS_MAX} records")));
                }
            }
            if !trace && (w.sizes.is_empty() || w.sizes.iter().any(|(s, wt)| *s == 0 || !(*wt > 0.0))) {
                return Err(field_err(&f("sizes"), format!("{:?}", w.sizes), "allowed: sizes > 0 with weights > 0"));
            }
            match (w.rate_per_s, w.threads) {
                (Some(r), None) if r > 0.0 && r.is_finite() => {}
                (None, Some(t)) if t > 0 => {}
                (None, None) if trace => {}
                _ => return Err(field_err(&f("rate"), format!("{:?}/{:?}", w.rate_per_s, w.threads), "allowed: exactly one of rate > 0 or threads > 0")),
            }
            if w.kind == WorkloadKind::Database {
                if w.threads.is_none() {
                    return Err(field_err(&f("rate"), format!("{:?}", w.rate_per_s), "allowed for database: threads (sessions)"));
                }
                if w.wal_bytes == 0 || w.wal_bytes > 16 << 20 {
                    return Err(field_err(&f("wal"), w.wal_bytes, "allowed: 1 byte to 16M"));
                }
                if w.checkpoint_ns == 0 {
                    return Err(field_err(&f("checkpoint"), 0, "allowed: a positive duration"));
                }
                if !(w.checkpoint_spread > 0.0 && w.checkpoint_spread <= 1.0) {
                    return Err(field_err(&f("checkpoint_spread"), w.checkpoint_spread, "allowed: above 0, at most 1"));
                }
            }
            if let Some(src) = &w.source {
                if w.kind != WorkloadKind::NfsCopy {
                    return Err(field_err(&f("source"), src, &format!("applies to nfs-copy only; remove it for {}", w.kind.key())));
                }
                if !self.devices.contains_key(src) {
                    let have: Vec<&str> = self.devices.keys().map(|s| s.as_str()).collect();
                    return Err(field_err(&f("source"), src, &format!("allowed: one of [{}]", have.join(", "))));
                }
            }
            if w.kind != WorkloadKind::Zvol && (w.fua || w.flush_every > 0) {
                let (k, v) = if w.fua { ("fua", "true".to_string()) } else { ("flush_every", w.flush_every.to_string()) };
                return Err(field_err(&f(k), v, &format!("applies to zvol only; remove it for {}", w.kind.key())));
            }
            if w.volume && w.kind != WorkloadKind::Trace {
                return Err(field_err(&f("volume"), "true", &format!("applies to trace only; remove it for {}", w.kind.key())));
            }
            if w.kind == WorkloadKind::Zvol || w.volume {
                let (k, v) = if w.volume { ("volume", "true") } else { ("kind", "zvol") };
                if self.release == Release::Solaris2009 {
                    return Err(field_err(&f(k), v, "allowed: from release freebsd-9 (the 2009 zvol log path is not modelled)"));
                }
                if let Some(o) = self.workloads.iter().find(|o| matches!(o.kind, WorkloadKind::FsyncWrite | WorkloadKind::NfsCopy | WorkloadKind::Database)) {
                    return Err(field_err(
                        &f(k),
                        v,
                        &format!("the dataset is then a volume, which {} ({}) cannot use: allowed: zvol with random or sequential workloads", o.name, o.kind.key()),
                    ));
                }
            }
            if w.kind == WorkloadKind::NfsCopy && w.threads.is_none() {
                return Err(field_err(&f("rate"), format!("{:?}", w.rate_per_s), "allowed for nfs-copy: threads (a client copies file after file)"));
            }
            for (k, v) in [("arc_hit", w.arc_hit_ratio), ("l2arc_hit", w.l2arc_hit_ratio)] {
                if !(0.0..=1.0).contains(&v) {
                    return Err(field_err(&f(k), v, "allowed: 0..=1"));
                }
            }
            if w.l2arc_hit_ratio > 0.0 && self.pool.cache.is_empty() {
                return Err(field_err(&f("l2arc_hit"), w.l2arc_hit_ratio, "allowed: 0 unless pool.cache has a device"));
            }
        }
        Ok(())
    }

    fn check_disk(&self, field: &str, d: &DiskConfig) -> Result<(), String> {
        if !self.devices.contains_key(&d.device) {
            let have: Vec<&str> = self.devices.keys().map(|s| s.as_str()).collect();
            return Err(field_err(&format!("{field}.device"), &d.device, &format!("allowed: one of [{}]", have.join(", "))));
        }
        if let Some(l) = &d.link {
            if !self.links.contains_key(l) {
                let have: Vec<&str> = self.links.keys().map(|s| s.as_str()).collect();
                return Err(field_err(&format!("{field}.link"), l, &format!("allowed: one of [{}]", have.join(", "))));
            }
        }
        Ok(())
    }
}

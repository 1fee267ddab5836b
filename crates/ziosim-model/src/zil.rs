//! The ZFS intent log (ZIL) and synchronous-write semantics, as a sans-IO state machine.
//!
//! Theory of operation
//! -------------------
//! Models `module/zfs/zil.c` (`zil_commit`, `zil_commit_writer`, `zil_get_commit_list`,
//! `zil_prune_commit_list`, `zil_process_commit_list`, `zil_lwb_commit`,
//! `zil_lwb_write_issue`/`_close`, `zil_lwb_write_done`, `zil_lwb_flush_defer`,
//! `zil_commit_waiter`/`_timeout`, `zil_flush_vdevs`) and `zfs_log.c` (`zfs_log_write`
//! write state) at zfs-0.6.5, zfs-0.7.13 (legacy), zfs-0.8.0, zfs-2.0.0, zfs-2.1.0,
//! zfs-2.2.0 and zfs-2.3.0, plus OpenSolaris `zil_disable` (il:55da60b91d^). Spec:
//! `spec/zfs-model.md` §6; flush costs are the device's business (`spec/devices.md`
//! §2.7, §5.5).
//!
//! The model never touches the queue or a device. The simulator calls [`Zil::write`]
//! for every logged write (after the txg assigned it), [`Zil::commit`] for every sync
//! request, and [`Zil::on_io_done`] / [`Zil::on_timer`] / [`Zil::on_txg_synced`]; the
//! model answers with [`ZilAction`]s.
//!
//! *Itxs.* Each write becomes one or more log records (itxs) in its txg: **COPIED**
//! (data in the record, must fit one log block), **NEED_COPY** (data copied at commit;
//! from 0.7 it may be split over log blocks) or **INDIRECT** (the file's whole block — record size, or
//! a one-block file's own size — is written in place by `dmu_sync` at SYNC_WRITE priority,
//! once per block and txg; the record holds only a block pointer; split per file block). `zfs_write` logs a write chunk by chunk — up to 2.1 one file
//! block at a time (at most the record size, aligned to it), from 2.2 up to 32 MiB — and
//! the state is picked per chunk by its length ("size" below), per era (§6.2):
//!   - ≤ 0.6.5: size > imm (0 if logbias=throughput else `zfs_immediate_write_sz`) and
//!     not (SLOG and logbias=latency) and size ≤ blocksize → INDIRECT; O_DSYNC → COPIED;
//!     else NEED_COPY. A COPIED/NEED_COPY chunk above `ZIL_MAX_LOG_DATA` is cut into
//!     64 KiB records, and no record is ever split over log blocks (`zil_lwb_commit`
//!     sends the current lwb out, even empty, and puts the record whole in the next).
//!   - 0.7 – 2.3: logbias=throughput → INDIRECT; no SLOG and size ≥ imm → INDIRECT;
//!     O_DSYNC → COPIED up to `ZIL_MAX_COPIED_DATA` — 0.7 – 2.1 half a max-size block
//!     less the header (65 252 B), 2.2+ MIN(a block's data, `zil_maxcopied`) — above it
//!     NEED_COPY; else NEED_COPY.
//!
//! Records of O_DSYNC writes and metadata ops go to the sync list; others stay async per
//! file until a commit of that file (`zil_async_to_sync`; foid 0 = all files). Records of
//! synced txgs are dropped (`zil_clean`).
//!
//! *Legacy commit, ≤ 0.7* (§6.3, two-batch group commit): a commit arriving while a
//! writer is busy joins the *next* batch; when the writer's batch completes, one waiter of
//! the next batch becomes the writer and commits everything on the sync list. The writer
//! packs all records into log blocks (lwbs), issues each as it fills and the last partial
//! one, waits for all of them (and their INDIRECT writes), then flushes every device
//! written (`zil_flush_vdevs`, skipped with `zfs_nocacheflush`). So a commit that arrives
//! just after a batch started waits for that whole batch plus its own.
//!
//! *Commit pipeline, 0.8+* (§6.4): records are assigned to the open lwb in order; a full
//! lwb is issued at once (many may be in flight). The committer's waiter is attached to
//! the lwb holding its commit record; if that lwb is still open it sleeps up to
//! MAX(`zfs_commit_timeout_pct`, 1) % of the last lwb latency (issue → flush done),
//! then issues the lwb itself if nobody did. A commit with nothing new to log waits for the last issued
//! lwb, or returns at once if that is already stable (`zil_prune_commit_list`).
//! Completion is chained: an lwb is done only when its write, its INDIRECT writes, its
//! flush and every earlier lwb are done. On write completion an lwb with no waiters whose
//! successor exists and has not finished writing (2.2+: whose successor is issued, not
//! still open) defers its flush to the successor (`zil_lwb_flush_defer`); otherwise it
//! flushes the devices written unless `zil_nocacheflush`/`zfs_nocacheflush`.
//!   - 2.2: latency is an EWMA (7·old + new)/8; a commit that opens a fresh lwb while
//!     every earlier lwb is stable ("first", probably single-threaded) issues it at once
//!     if the sleep (here with the bare pct) would be < `zil_min_commit_timeout` or the
//!     lwb is ≥ 7/8 full.
//!   - 2.3 (`zil_process_commit_list`, `zil_burst_done`, checked line by line against
//!     zfs-2.3.0 zil.c): a commit that finds another committer's open lwb sets the
//!     parallel count to 8 bursts; one that finds no open lwb while an earlier lwb is
//!     not yet flushed raises it to at least 4; it falls by one only when a burst ends
//!     (the lwb is closed, at once or by the waiter's timeout). When not parallel the
//!     lwb is closed and issued at once (no sleep); when parallel the waiter sleeps
//!     `zfs_commit_timeout_pct` (10 %) of the last lwb latency so others can join.
//!
//! *lwb sizing* (§6.5) is decided when an lwb is issued, for the next one, from
//! `zl_cur_used` (bytes of the current commit burst): solaris-2009 (before
//! `zil_block_buckets`, onnv 11670) the largest of the previous commit's bytes, this
//! commit's bytes and the bytes still on the itx list (each + the 184-byte trailer),
//! rounded up to 4 KiB; 0.6.5–0.8 buckets {4K, 12K, 36K, 128K},
//! 2.0–2.2 the pair table {≤4K→4K, ≤12K→12K, ≤36K→36K, ≤68K→68K, ≤128K→128K,
//! ≤132K→68K, else 128K} capped by `zil_maxblocksize`, both as the max over the last 16
//! sizes; 2.3 (`zil_lwb_plan`, `zil_lwb_predict`, `zil_lwb_write_close`) plans each
//! burst (one block for a small burst, an even split for a medium one, max blocks beyond
//! 8) and sizes the next block for what is left of the burst — when parallel, also for
//! what the history predicts may join — or, between bursts, for a first block enough for
//! 7 of the last 8 bursts (the second largest if that halves it). The first lwb is 4 KiB. Only the used
//! part, rounded up to 4 KiB, is written (slim ZIL), except on solaris-2009 (pool
//! versions before slim ZIL write the whole block).
//!
//! *Placement and priority:* lwbs go to the SLOG if there is one — freebsd-9 to
//! illumos-2014 only while logbias=latency and (burst < `zil_slog_limit` or commit list
//! < 2 × it), else the main pool; zfs-0.6.5 the same without the logbias term; always on
//! solaris-2009 (before `USE_SLOG`) and from 0.7. Priority SYNC_WRITE, except on a SLOG
//! once the burst exceeds `zil_slog_bulk` (0.7+) → ASYNC_WRITE: up to 2.2 the bytes
//! placed so far, 2.3 the whole burst (`zl_cur_size`, zero once the burst has ended).
//!
//! *sync / zil_disable* (§6.6): `sync=always` makes every write need a commit;
//! `sync=disabled` and `zil_disable` (solaris-2009) make a commit return at once and
//! emit [`ZilAction::AtRisk`] for the bytes it promised (each byte once), which stay at
//! risk until their txg syncs. Under `zil_disable` ZFS keeps no log at all; the records
//! here are bookkeeping for that accounting only and cause no I/O.
//!
//! *A log block write that fails* (a SLOG that died with lwbs in flight; the simulator
//! reports it with [`Zil::on_io_failed`]) is handled as each era's `zil.c` does:
//!   - solaris-2009 (il:379c004d1f `zil_lwb_write_done` sets `zl_log_error`;
//!     `zil_commit_writer` then calls `txg_wait_synced(dp, 0)`): the batch's commits wait
//!     for the open txg + 2 to sync ([`ZilAction::TxgWait`]) before they return.
//!   - freebsd-9 … zfs-2.1: 6846163 (il:8f18d1fadf, Sep 2009) issues lwb writes with
//!     `ZIO_FLAG_DONT_PROPAGATE` and PSARC 2009/571 (il:b24ab67627) dropped `zl_log_error`,
//!     so the error never reaches `zil_commit` (legacy: `zio_wait(zl_root_zio)` returns 0,
//!     ZIL@zfs-0.6.5 `zil_commit_writer`; 0.8–2.1: `zil_lwb_write_done` skips the flush and
//!     `zil_lwb_flush_vdevs_done` wakes the waiters with `zcw_zio_error` = 0, ZIL@zfs-0.8.0,
//!     @zfs-2.1.0). The commit returns as if logged: its bytes live only in memory until
//!     their txg syncs, and are reported [`ZilAction::AtRisk`] (`commits_unlogged`).
//!   - zfs-2.2+: f82f0279ed (OpenZFS #12391, 2021) lets the error propagate; the waiter
//!     sees `zcw_zio_error` and `zil_commit_impl` falls back to `txg_wait_synced(dp, 0)`
//!     (ZIL@zfs-2.2.0, @zfs-2.3.0). The error reaches every later lwb whose root zio was
//!     made a parent of the failed one's (`zil_lwb_set_zio_dependency`: issued before the
//!     failed lwb was done), so their waiters fall back too.
//! A failed lwb flushes nothing (`zil_lwb_write_done` returns early on `io_error`, 0.8+).
//!
//! Invariants: lwbs complete in issue order; a waiter is woken exactly once; at most one
//! lwb is open; every token handed out comes back exactly once (`on_io_done` for writes
//! and flushes, `on_timer` for timers).

use crate::io::IoClass;
use crate::release::Release;
use crate::tunables::{Tunables, T};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

pub type Token = u32;
pub type WaiterId = u32;

const KIB: u32 = 1024;
/// `sizeof (lr_write_t)`: a TX_WRITE record header, also the whole INDIRECT record.
pub const LR_WRITE_BYTES: u32 = 192;
/// `sizeof (zil_chain_t)` (`zil_trailer_t` before slim ZIL): the block header/trailer
/// every lwb carries — pad 8 + next-block blkptr 128 + nused 8 + `zio_eck_t` 40
/// (include/sys/zil.h; 2009: zfs-fuse 5c5ace08 zil.h `zil_trailer_t`, the same fields).
const ZIL_CHAIN_BYTES: u32 = 184;
/// `ZIL_MIN_BLKSZ`: write rounding and first block size.
const ZIL_MIN_BLKSZ: u32 = 4 * KIB;
const SPA_OLD_MAXBLOCKSIZE: u32 = 128 * KIB;
/// `ZIL_MAX_LOG_DATA`: the most data one record can carry in a max-size block.
const ZIL_MAX_LOG_DATA: u64 = (SPA_OLD_MAXBLOCKSIZE - ZIL_CHAIN_BYTES - LR_WRITE_BYTES) as u64;
/// `ZIL_PREV_BLKS`: sizes remembered by the ≤ 2.2 sizing rule.
const ZIL_PREV_BLKS: usize = 16;
/// `ZIL_BURSTS` (2.3): bursts of history for prediction and parallel detection.
const ZIL_BURSTS: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    Standard,
    Always,
    Disabled,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logbias {
    Latency,
    Throughput,
}

/// Dataset and pool facts the ZIL needs.
#[derive(Clone, Copy, Debug)]
pub struct ZilConfig {
    /// The pool has a separate log device.
    pub slog: bool,
    pub logbias: Logbias,
    pub sync: SyncMode,
    /// OpenSolaris `zil_disable` (only solaris-2009 has it; ignored elsewhere).
    pub zil_disable: bool,
    /// Dataset record size (a volume's volblocksize): INDIRECT writes are whole blocks of it.
    pub recordsize_bytes: u32,
    /// The dataset is a volume: writes are logged by `zvol_log_write`, not `zfs_log_write`.
    pub volume: bool,
}

/// How a record's data reaches the log (`itx_wr_state_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteState {
    Copied,
    NeedCopy,
    Indirect,
}

/// Requests from the ZIL to the simulator. Every token comes back once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZilAction {
    /// Write a log block of `bytes` to the SLOG (`on_slog`) or the main pool at `class`;
    /// report completion with `on_io_done(token)`.
    /// `seq` names the block's space for `place_lwb`.
    LwbWrite { token: Token, bytes: u32, on_slog: bool, class: IoClass, seq: u64 },
    /// `dmu_sync`: write one whole data block of `bytes` (the file's block size) in place
    /// in the main pool at SYNC_WRITE; report with `on_io_done(token)`. The block is txg
    /// `txg`'s dirty data: while that txg is open or quiescing, the write overrides its
    /// dirty record (`DR_OVERRIDDEN`) and the txg's sync does not write it again; once it
    /// syncs, `dmu_sync_late_arrival` writes a block of its own. (Its txg already synced:
    /// `EEXIST`; the block already synced or being synced for this txg and not written
    /// since: `EALREADY` — in both cases nothing is written and no action comes.)
    IndirectWrite { token: Token, bytes: u32, txg: u64 },
    /// Cache-flush the devices ZIL I/O wrote since the previous flush of that kind: the
    /// SLOG devices (`slog`) and/or the main-pool leaves (`pool`); one `on_io_done(token)`
    /// when all of them are done.
    Flush { token: Token, slog: bool, pool: bool },
    /// Call `on_timer(token)` at `at_ns`.
    Timer { token: Token, at_ns: u64 },
    /// The sync request of `waiter` is complete: acknowledge it.
    Wake { waiter: WaiterId },
    /// `bytes` were acknowledged as durable but only txg `txg`'s sync makes them stable
    /// (forward to `Txg::add_at_risk`).
    AtRisk { txg: u64, bytes: u64 },
    /// `txg_wait_synced(dp, 0)` after a failed log write: report with `on_io_done(token)`
    /// once the open txg + `TXG_DEFER_SIZE` has synced (at once if it already has).
    TxgWait { token: Token },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Era {
    /// ≤ 0.7: two-batch group commit.
    Legacy,
    /// 0.8 – 2.1 pipeline.
    Pipeline,
    /// 2.2: EWMA latency, `zil_min_commit_timeout`.
    Pipeline22,
    /// 2.3: burst prediction and parallel detection.
    Pipeline23,
}

#[derive(Clone, Copy, Debug)]
struct Itx {
    txg: u64,
    state: WriteState,
    /// Log data bytes carried (COPIED/NEED_COPY) or 0 (INDIRECT / metadata).
    data: u32,
    /// Record header bytes (metadata records: their whole size).
    header: u32,
    /// User bytes this record makes durable (for at-risk accounting).
    user: u64,
    /// INDIRECT: the block `dmu_sync` writes — its size (the file's block size), file and
    /// block number; 0 for other records.
    block: u32,
    foid: u64,
    blk: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LwbState {
    Opened,
    Issued,
    WriteDone,
    FlushDone,
}

#[derive(Debug)]
struct Lwb {
    id: u64,
    size: u32,
    nused: u32,
    state: LwbState,
    waiters: Vec<WaiterId>,
    /// INDIRECT records' `dmu_sync` writes: (block bytes, txg, file, block number).
    indirect: Vec<(u32, u64, u64, u64)>,
    pending: u32,
    flush_pending: bool,
    /// Devices written whose flush this lwb owes (its own plus deferred ones).
    owe_slog: bool,
    owe_pool: bool,
    issued_ns: u64,
    /// `lwb_max_txg`: the highest txg of the records in it.
    max_txg: u64,
    /// Its write failed (or, 2.2+, an lwb it depends on failed).
    error: bool,
    /// 2.2+: issued while an earlier lwb was not yet done, so an error of that one reaches
    /// this one (`zil_lwb_set_zio_dependency`).
    dep: bool,
    /// The user bytes of its records per txg: at risk if its write fails unnoticed.
    risk: Vec<(u64, u64)>,
}

impl Lwb {
    fn new(id: u64, size: u32) -> Lwb {
        Lwb {
            id,
            size,
            nused: ZIL_CHAIN_BYTES,
            state: LwbState::Opened,
            waiters: Vec::new(),
            indirect: Vec::new(),
            pending: 0,
            flush_pending: false,
            max_txg: 0,
            owe_slog: false,
            owe_pool: false,
            issued_ns: 0,
            error: false,
            dep: false,
            risk: Vec::new(),
        }
    }
    /// Note a record's user bytes (for the at-risk books of a failed write).
    fn add_risk(&mut self, txg: u64, user: u64) {
        if user == 0 {
            return;
        }
        match self.risk.last_mut() {
            Some(e) if e.0 == txg => e.1 += user,
            _ => self.risk.push((txg, user)),
        }
    }
    fn space(&self) -> u32 {
        self.size - self.nused
    }
}

#[derive(Clone, Copy, Debug)]
enum Tok {
    Io(u64),
    Flush(u64),
    Timer(u64),
    LegacyIo,
    LegacyFlush,
    /// A legacy slog lwb write, with its records' user bytes per txg.
    LegacyLwb(u64),
    /// 2.2+: a waiter whose lwb failed waits for a txg sync.
    WaiterTxg(WaiterId),
    /// solaris-2009: the writer waits for a txg sync after a failed batch.
    LegacyTxgWait,
}

/// Counters for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ZilStats {
    pub commits: u64,
    pub lwb_writes: u64,
    pub lwb_bytes: u64,
    pub indirect_writes: u64,
    pub indirect_bytes: u64,
    pub flushes: u64,
    /// Legacy writer batches or pipeline commit bursts that did I/O.
    pub batches: u64,
    /// Most log space (SLOG, or the pool without one) held by log blocks at once: written
    /// and not yet allocatable again (see `LogSpace`).
    pub log_space_bytes_max: u64,
    /// Log block writes that failed (a SLOG died with them in flight).
    pub lwb_write_errors: u64,
    /// Commits that waited for a txg sync because their log write failed
    /// (solaris-2009, zfs-2.2+).
    pub commits_txg_fallback: u64,
    /// Commits acknowledged although their log write failed, the error never reaching
    /// `zil_commit` (freebsd-9 … zfs-2.1); their bytes are at risk until their txg syncs.
    pub commits_unlogged: u64,
}

/// A log block not (yet) placed on a log vdev: in the main pool, whose own accounting
/// holds it (`space.rs`).
const NO_TOP: u16 = u16::MAX;

/// The log blocks' space on their device. `zil_sync` (zfs-2.2.0 `zil.c`) frees the lwbs at
/// the head of the chain, in order, once the txg syncing is at least each one's
/// `lwb_alloc_txg` and `lwb_max_txg` (the highest txg of its records); the metaslab then
/// defers the freed space for `TXG_DEFER_SIZE` syncs (none on solaris-2009, `space.rs`).
/// What a SLOG must hold is the peak of written-and-not-yet-reusable bytes; what `zpool
/// iostat` shows of it (`vs_alloc`, moved only by `metaslab_sync_done`) counts an lwb from
/// the end of its allocation txg's sync.
#[derive(Default)]
struct LogSpace {
    /// Issued lwbs in chain order: (txg allocated in, txg whose sync frees it, bytes, log
    /// vdev or `NO_TOP`).
    live: VecDeque<(u64, u64, u64, u16)>,
    /// Freed lwbs: (`syncs` when their free synced, bytes, log vdev).
    deferred: VecDeque<(u64, u64, u16)>,
    bytes: u64,
    /// Entries `live` gave up so far: lwb `seq` is `live[seq − popped]`.
    popped: u64,
    /// Leading entries of `live` whose allocation txg has synced (in `vs_alloc`).
    counted: usize,
    /// Syncs so far, idle ones included; a free is reusable `defer` syncs after its own.
    syncs: u64,
    defer: u64,
    /// Per log vdev (index among the log vdevs): the bytes its lwbs hold for the
    /// allocator (placed, not yet reusable), and its `vs_alloc`.
    held_by_top: Vec<u64>,
    alloc_by_top: Vec<u64>,
    /// Highest txg a record or allocation has been seen in (≈ the open txg).
    seen_txg: u64,
}

impl LogSpace {
    /// Deferred space whose free synced `defer` syncs ago is reusable again.
    fn return_deferred(&mut self) {
        while self.deferred.front().is_some_and(|&(at, _, _)| at + self.defer <= self.syncs) {
            let (_, b, top) = self.deferred.pop_front().unwrap();
            self.bytes -= b;
            if top != NO_TOP {
                self.held_by_top[top as usize] -= b;
                self.alloc_by_top[top as usize] -= b;
            }
        }
    }
}

/// The intent log of one dataset.
pub struct Zil {
    space: LogSpace,
    release: Release,
    era: Era,
    cfg: ZilConfig,
    disabled: bool,
    imm_bytes: u32,
    /// `zvol_immediate_write_sz`.
    zvol_imm_bytes: u32,
    /// Scratch list of one write's records (`write`).
    recs: Vec<(WriteState, u32, u64)>,
    /// Bytes of the last `write` that `dsl_pool_wrlog_count` counts (`wrlog_bytes`).
    wrlog_bytes: u64,
    /// Blocks `dmu_sync` wrote for their txg's dirty record and nobody wrote since:
    /// (txg, file, block number). Another INDIRECT record of the same block finds it
    /// (`EALREADY`: one write per block and txg); a write to the block removes it (the
    /// new dirty record is not overridden); entries leave when their txg syncs.
    overrides: BTreeSet<(u64, u64, u64)>,
    max_copied: u32,
    max_block: u32,
    slog_limit: Option<u64>,
    slog_bulk: Option<u64>,
    timeout_pct: u64,
    min_commit_timeout_ns: u64,
    no_flush: bool,
    slim: bool,
    // records
    sync_list: VecDeque<Itx>,
    async_by_foid: BTreeMap<u64, Vec<Itx>>,
    synced_txg: u64,
    // lwbs
    lwbs: VecDeque<Lwb>,
    next_lwb_id: u64,
    next_size: u32,
    prev_sizes: [u32; ZIL_PREV_BLKS],
    prev_rotor: usize,
    /// 2.3 burst history (`zl_prev_opt`, `zl_prev_min`, `zl_prev_rotor`) and the current
    /// burst (`zl_cur_size`, `zl_cur_left`, `zl_cur_max`).
    prev_opt: [u32; ZIL_BURSTS],
    prev_min: [u32; ZIL_BURSTS],
    burst_rotor: usize,
    cur_size: u64,
    cur_left: u64,
    cur_max: u32,
    parallel: u32,
    cur_used: u64,
    /// `zl_prev_used` (solaris-2009 sizing): the previous commit's `zl_cur_used`.
    prev_used: u64,
    itx_list_bytes: u64,
    /// solaris-2009 `zl_itx_list_sz` as the writer walks the list: records of the commit
    /// not yet put in an lwb (the files' pending async records are added when sizing).
    list_left: u64,
    last_latency_ns: u64,
    // tokens
    next_token: Token,
    tokens: BTreeMap<Token, Tok>,
    // legacy group commit
    writer_busy: bool,
    next_batch: u64,
    com_batch: u64,
    writer_batch: u64,
    legacy_waiters: Vec<(u64, WaiterId)>,
    legacy_pending: u32,
    legacy_owe_slog: bool,
    legacy_owe_pool: bool,
    /// The legacy batch had a failed lwb write; the user bytes of the failed lwbs.
    legacy_error: bool,
    legacy_risk: Vec<(u64, u64)>,
    /// Legacy slog lwbs in flight: their records' user bytes per txg, by id.
    legacy_lwb_risk: BTreeMap<u64, Vec<(u64, u64)>>,
    stats: ZilStats,
}

impl Zil {
    /// A `set` action changed the tunables: the thresholds and switches `zfs_log_write`,
    /// `zil_commit` and `zil_lwb_write_issue` read per call take the new values; the log's
    /// state and `zil_maxblocksize` (the blocks already planned) stay.
    pub fn retune(&mut self, tun: &Tunables) {
        let f = Zil::new(self.release, tun, self.cfg);
        self.disabled = f.disabled;
        self.imm_bytes = f.imm_bytes;
        self.zvol_imm_bytes = f.zvol_imm_bytes;
        self.max_copied = f.max_copied;
        self.slog_limit = f.slog_limit;
        self.slog_bulk = f.slog_bulk;
        self.timeout_pct = f.timeout_pct;
        self.min_commit_timeout_ns = f.min_commit_timeout_ns;
        self.no_flush = f.no_flush;
    }

    pub fn new(release: Release, tun: &Tunables, cfg: ZilConfig) -> Zil {
        let era = if release >= Release::Zfs23 {
            Era::Pipeline23
        } else if release >= Release::Zfs22 {
            Era::Pipeline22
        } else if release >= Release::Zfs08 {
            Era::Pipeline
        } else {
            Era::Legacy
        };
        let flag = |t| tun.try_get(t).unwrap_or(0) != 0;
        let zil_disable = cfg.zil_disable || flag(T::zil_disable);
        let max_block = tun.try_get(T::zil_maxblocksize).map(|v| v as u32).unwrap_or(SPA_OLD_MAXBLOCKSIZE);
        Zil {
            release,
            era,
            cfg,
            disabled: cfg.sync == SyncMode::Disabled || (zil_disable && release == Release::Solaris2009),
            imm_bytes: tun.get(T::zfs_immediate_write_sz) as u32,
            zvol_imm_bytes: tun.try_get(T::zvol_immediate_write_sz).unwrap_or(32 * KIB as i64) as u32,
            recs: Vec::new(),
            wrlog_bytes: 0,
            overrides: BTreeSet::new(),
            max_copied: max_copied_data(tun, max_block),
            max_block,
            slog_limit: tun.try_get(T::zil_slog_limit).map(|v| v as u64),
            slog_bulk: tun.try_get(T::zil_slog_bulk).map(|v| v as u64),
            timeout_pct: tun.try_get(T::zfs_commit_timeout_pct).unwrap_or(0) as u64,
            min_commit_timeout_ns: tun.try_get(T::zil_min_commit_timeout).unwrap_or(0) as u64,
            no_flush: flag(T::zfs_nocacheflush) || flag(T::zil_nocacheflush),
            slim: release > Release::Solaris2009,
            sync_list: VecDeque::new(),
            async_by_foid: BTreeMap::new(),
            synced_txg: 0,
            lwbs: VecDeque::new(),
            next_lwb_id: 0,
            next_size: ZIL_MIN_BLKSZ,
            prev_sizes: [0; ZIL_PREV_BLKS],
            prev_rotor: 0,
            // zil_alloc: every previous optimum starts at one full block.
            prev_opt: [max_block - ZIL_CHAIN_BYTES; ZIL_BURSTS],
            prev_min: [0; ZIL_BURSTS],
            burst_rotor: 0,
            cur_size: 0,
            cur_left: 0,
            cur_max: 0,
            parallel: 0,
            cur_used: 0,
            prev_used: 0,
            itx_list_bytes: 0,
            list_left: 0,
            last_latency_ns: 0,
            next_token: 0,
            tokens: BTreeMap::new(),
            writer_busy: false,
            next_batch: 1,
            com_batch: 0,
            writer_batch: 0,
            legacy_waiters: Vec::new(),
            legacy_pending: 0,
            legacy_owe_slog: false,
            legacy_owe_pool: false,
            legacy_error: false,
            legacy_risk: Vec::new(),
            legacy_lwb_risk: BTreeMap::new(),
            stats: ZilStats::default(),
            space: LogSpace { defer: crate::space::defer_syncs(release), ..LogSpace::default() },
        }
    }

    // ------------------------------------------------------------ records

    /// `zfs_log_write` for a write of `len` bytes at `offset` of file `foid`, assigned to
    /// `txg`; the file is `file_bytes` long once written (`u64::MAX`: longer than any
    /// record — only its block size matters). Returns true if the caller must now
    /// `commit(foid, ..)` before acknowledging the write (O_DSYNC or `sync=always`); with
    /// `sync=disabled` an O_DSYNC write is acknowledged at once and its bytes reported
    /// `AtRisk`.
    #[allow(clippy::too_many_arguments)]
    pub fn write(
        &mut self,
        txg: u64,
        foid: u64,
        offset: u64,
        len: u32,
        file_bytes: u64,
        o_dsync: bool,
        out: &mut Vec<ZilAction>,
    ) -> bool {
        // The records (state, data carried, bytes written) of this write, then its itxs:
        // O_DSYNC ones on the sync list, the others per file until a commit of that file.
        let bs = self.block_bytes(file_bytes);
        let mut recs = std::mem::take(&mut self.recs);
        recs.clear();
        if self.cfg.volume {
            self.volume_records(offset, len as u64, o_dsync, &mut recs);
        } else {
            self.file_records(offset, len as u64, bs, o_dsync, &mut recs);
        }
        self.space.seen_txg = self.space.seen_txg.max(txg);
        // The write dirties its blocks again: a dmu_sync of them in this txg no longer
        // stands (`dbuf_dirty` → `dbuf_unoverride`).
        if !self.overrides.is_empty() && len > 0 {
            for blk in offset / bs..=(offset + len as u64 - 1) / bs {
                self.overrides.remove(&(txg, foid, blk));
            }
        }
        // ZL@zfs-2.2.0 zfs_log_write / zvol_log_write: only WR_COPIED and WR_NEED_COPY
        // writes count as logged bytes, and nothing does when zil_replaying (which is
        // true with sync=disabled) makes them return before logging.
        self.wrlog_bytes = if self.cfg.sync == SyncMode::Disabled {
            0
        } else {
            recs.iter().filter(|r| r.0 != WriteState::Indirect).map(|r| r.2).sum()
        };
        let mut pos = offset;
        for &(state, data, user) in &recs {
            let (block, blk) = if state == WriteState::Indirect { (bs as u32, pos / bs) } else { (0, 0) };
            pos += user;
            let itx = Itx { txg, state, data, header: LR_WRITE_BYTES, user, block, foid, blk };
            if o_dsync {
                self.sync_list.push_back(itx);
            } else {
                self.async_by_foid.entry(foid).or_default().push(itx);
            }
        }
        self.recs = recs;
        if o_dsync && self.disabled {
            self.promise(foid, out);
            return false;
        }
        o_dsync || self.cfg.sync == SyncMode::Always
    }

    /// Bytes of the last [`Zil::write`] that are logged-write bytes for the 2.2+ write
    /// throttle (forward to `Txg::log_written`): its COPIED and NEED_COPY records, none
    /// with `sync=disabled`.
    pub fn wrlog_bytes(&self) -> u64 {
        self.wrlog_bytes
    }

    /// The block size of a file `file_bytes` long (`zp->z_blksz`): one block of its size
    /// rounded up to 512 bytes while it fits in a record (`zfs_grow_blocksize` →
    /// `dnode_set_blksz`, P2ROUNDUP to SPA_MINBLOCKSIZE), else the record size. A
    /// volume's blocks are its volblocksize.
    fn block_bytes(&self, file_bytes: u64) -> u64 {
        let rs = self.cfg.recordsize_bytes.max(512) as u64;
        if self.cfg.volume || file_bytes > rs {
            rs
        } else {
            file_bytes.next_multiple_of(512).max(512)
        }
    }

    /// `zfs_log_write`: the records (state, data bytes carried, bytes written) of one file
    /// write of `len` at `offset` of a file whose blocks are `bs`, appended to `recs`.
    fn file_records(&self, offset: u64, len: u64, bs: u64, o_dsync: bool, recs: &mut Vec<(WriteState, u32, u64)>) {
        // zfs_write logs a write chunk by chunk and zfs_log_write picks the write state
        // for each chunk's length (`resid`): up to 2.1 a chunk is one file block (at most
        // `z_max_blksz`, aligned to it); from 2.2 up to DMU_MAX_ACCESS / 2 (32 MiB), i.e.
        // the whole request here (the full-block append path is not told apart).
        // INDIRECT records are one per file block.
        let (mut off, end) = (offset, offset + len);
        while off < end {
            let n = if self.release >= Release::Zfs22 {
                ((32 << 20) - off % bs).min(end - off)
            } else {
                (bs - off % bs).min(end - off)
            };
            let state = self.write_state(n as u32, bs as u32, o_dsync);
            // Before OpenZFS 7578 (zfs-0.7.0) no record is split over log blocks, so
            // zfs_log_write cuts a non-INDIRECT chunk above ZIL_MAX_LOG_DATA into
            // half-block records (ZL@zfs-0.6.5, il ce636f8b38, il 73527f441c, il 379c004d1f).
            let piece = if state != WriteState::Indirect && self.release <= Release::Zfs065 && n > ZIL_MAX_LOG_DATA {
                (SPA_OLD_MAXBLOCKSIZE / 2) as u64
            } else {
                n
            };
            let mut o = 0;
            while o < n {
                let m = if state == WriteState::Indirect { (bs - (off + o) % bs).min(n - o) } else { piece.min(n - o) };
                recs.push((state, if state == WriteState::Indirect { 0 } else { m as u32 }, m));
                o += m;
            }
            off += n;
        }
    }

    /// A metadata record (create, remove, setattr, …) of `record_bytes` for `foid`:
    /// always on the sync list (`zil_itx_create` sets `itx_sync`), so the next commit of
    /// anything carries it. With `sync=always` the caller commits after it (foid 0).
    pub fn log_meta(&mut self, txg: u64, _foid: u64, record_bytes: u32) {
        let itx =
            Itx { txg, state: WriteState::Copied, data: 0, header: record_bytes.max(64), user: 0, block: 0, foid: 0, blk: 0 };
        self.space.seen_txg = self.space.seen_txg.max(txg);
        self.sync_list.push_back(itx);
    }

    /// The dataset is a volume.
    pub fn is_volume(&self) -> bool {
        self.cfg.volume
    }

    /// `zvol_log_write`: the records (state, data bytes carried, bytes written) of one
    /// volume write of `len` at `offset`, `sync` if FUA or `sync=always`, appended to `recs`.
    ///   - ≤ 0.6.5 and illumos: per chunk, INDIRECT for an aligned full block when
    ///     volblocksize > imm (0 if logbias=throughput, else `zvol_immediate_write_sz`) and
    ///     not (SLOG and logbias=latency); else COPIED if sync, NEED_COPY if not, in chunks
    ///     of at most `ZIL_MAX_LOG_DATA`.
    ///   - 0.7+ (OpenZFS 7578): one state for the write — throughput → INDIRECT; no SLOG
    ///     and len ≥ volblocksize > `zvol_immediate_write_sz` → INDIRECT; sync → COPIED
    ///     (NEED_COPY above the largest copied record); else NEED_COPY — one record for the
    ///     whole write, INDIRECT ones cut at block boundaries.
    pub fn volume_records(&self, offset: u64, len: u64, sync: bool, recs: &mut Vec<(WriteState, u32, u64)>) {
        let bs = self.cfg.recordsize_bytes.max(512) as u64;
        let imm = self.zvol_imm_bytes as u64;
        let throughput = self.cfg.logbias == Logbias::Throughput;
        let (mut off, end) = (offset, offset + len);
        if self.release <= Release::Zfs065 {
            let imm = if throughput { 0 } else { imm };
            let slogging = self.cfg.slog && !throughput;
            while off < end {
                let resid = end - off;
                let (state, n) = if bs > imm && !slogging && resid >= bs && off % bs == 0 {
                    (WriteState::Indirect, bs)
                } else {
                    (if sync { WriteState::Copied } else { WriteState::NeedCopy }, resid.min(ZIL_MAX_LOG_DATA))
                };
                recs.push((state, if state == WriteState::Indirect { 0 } else { n as u32 }, n));
                off += n;
            }
            return;
        }
        let state = if throughput || (!self.cfg.slog && len >= bs && bs > imm) {
            WriteState::Indirect
        } else if sync && len <= self.max_copied as u64 {
            WriteState::Copied
        } else {
            WriteState::NeedCopy
        };
        while off < end {
            let n = if state == WriteState::Indirect { (bs - off % bs).min(end - off) } else { end - off };
            recs.push((state, if state == WriteState::Indirect { 0 } else { n as u32 }, n));
            off += n;
        }
    }

    /// The write state `zfs_log_write` picks for a write of `len` to a file whose blocks
    /// are `blksz` bytes (§6.2).
    pub fn write_state(&self, len: u32, blksz: u32, o_dsync: bool) -> WriteState {
        let throughput = self.cfg.logbias == Logbias::Throughput;
        if self.release <= Release::Zfs065 {
            let imm = if throughput { 0 } else { self.imm_bytes };
            let slogging = self.cfg.slog && !throughput;
            if len > imm && !slogging && len <= blksz {
                return WriteState::Indirect;
            }
            // No fallback to NEED_COPY by size: records are cut to fit a block instead
            // (ZL@zfs-0.6.5 zfs_log_write; `file_records`).
            return if o_dsync { WriteState::Copied } else { WriteState::NeedCopy };
        } else if throughput || (!self.cfg.slog && len >= self.imm_bytes) {
            return WriteState::Indirect;
        }
        if o_dsync && len <= self.max_copied {
            WriteState::Copied
        } else {
            WriteState::NeedCopy
        }
    }

    /// An idle txg synced (`TxgAction::Elided`; ZFS numbers it): space freed `defer`
    /// syncs before it is reusable.
    pub fn on_idle_sync(&mut self) {
        self.space.syncs += 1;
        self.space.return_deferred();
    }

    /// Bytes allocated for log block `seq` (`ZilAction::LwbWrite`): its planned size.
    pub fn lwb_alloc_bytes(&self, seq: u64) -> u64 {
        let sp = &self.space;
        seq.checked_sub(sp.popped).and_then(|i| sp.live.get(i as usize)).map_or(0, |e| e.2)
    }

    /// Log block `seq` (`ZilAction::LwbWrite`) was allocated on log vdev `top`.
    pub fn place_lwb(&mut self, seq: u64, top: u16) {
        let sp = &mut self.space;
        let Some(i) = seq.checked_sub(sp.popped).map(|i| i as usize).filter(|&i| i < sp.live.len()) else {
            debug_assert!(false, "lwb {seq} placed after it was freed");
            return;
        };
        sp.live[i].3 = top;
        let b = sp.live[i].2;
        if sp.held_by_top.len() <= top as usize {
            sp.held_by_top.resize(top as usize + 1, 0);
            sp.alloc_by_top.resize(top as usize + 1, 0);
        }
        sp.held_by_top[top as usize] += b;
        if i < sp.counted {
            sp.alloc_by_top[top as usize] += b;
        }
    }

    /// Log vdev `top`'s `vs_alloc` now: its log blocks whose allocation txg has synced,
    /// until their space is reusable.
    pub fn log_held_bytes(&self, top: usize) -> u64 {
        self.space.alloc_by_top.get(top).copied().unwrap_or(0)
    }

    /// Bytes the allocator cannot give out on log vdev `top`: its log blocks from their
    /// allocation until their space is reusable.
    pub fn log_taken_bytes(&self, top: usize) -> u64 {
        self.space.held_by_top.get(top).copied().unwrap_or(0)
    }

    /// `zil_clean`: records of txgs up to `txg` are on disk through the txg and need no
    /// log (forward `TxgAction::Synced`).
    pub fn on_txg_synced(&mut self, txg: u64) {
        self.synced_txg = self.synced_txg.max(txg);
        self.overrides = self.overrides.split_off(&(txg + 1, 0, 0));
        let sp = &mut self.space;
        sp.syncs += 1;
        // metaslab_sync_done of txg: its allocations enter vs_alloc ...
        while let Some(&(_, _, b, top)) = sp.live.get(sp.counted).filter(|e| e.0 <= txg) {
            if top != NO_TOP {
                sp.alloc_by_top[top as usize] += b;
            }
            sp.counted += 1;
        }
        // ... and zil_sync's frees enter the defer tree.
        while sp.live.front().is_some_and(|&(_, free, _, _)| free <= txg) {
            let (_, _, b, top) = sp.live.pop_front().unwrap();
            sp.popped += 1;
            sp.counted = sp.counted.saturating_sub(1);
            sp.deferred.push_back((sp.syncs, b, top));
        }
        sp.return_deferred();
        self.sync_list.retain(|i| i.txg > txg);
        for v in self.async_by_foid.values_mut() {
            v.retain(|i| i.txg > txg);
        }
        self.async_by_foid.retain(|_, v| !v.is_empty());
    }

    /// `zil_async_to_sync(foid)`: foid 0 moves every file's records.
    fn async_to_sync(&mut self, foid: u64) {
        if foid == 0 {
            let all = std::mem::take(&mut self.async_by_foid);
            let mut v: Vec<Itx> = all.into_values().flatten().collect();
            v.sort_by_key(|i| i.txg);
            self.sync_list.extend(v);
        } else if let Some(v) = self.async_by_foid.remove(&foid) {
            self.sync_list.extend(v);
        }
    }

    /// sync=disabled / zil_disable: the records a commit would have written are promised.
    fn promise(&mut self, foid: u64, out: &mut Vec<ZilAction>) {
        self.async_to_sync(foid);
        let mut by_txg: BTreeMap<u64, u64> = BTreeMap::new();
        for i in self.sync_list.drain(..) {
            *by_txg.entry(i.txg).or_default() += i.user;
        }
        for (txg, bytes) in by_txg {
            if bytes > 0 && txg > self.synced_txg {
                out.push(ZilAction::AtRisk { txg, bytes });
            }
        }
    }

    // ------------------------------------------------------------ commit

    /// `zil_commit(zilog, foid)` on behalf of `waiter` (foid 0 = all files). The waiter
    /// gets exactly one `Wake`, possibly in this call.
    pub fn commit(&mut self, now_ns: u64, foid: u64, waiter: WaiterId, out: &mut Vec<ZilAction>) {
        if self.disabled {
            // zil_commit returns at once (sync=disabled, zil_disable): no commit happens.
            self.promise(foid, out);
            out.push(ZilAction::Wake { waiter });
            return;
        }
        self.stats.commits += 1;
        self.async_to_sync(foid);
        match self.era {
            Era::Legacy => self.legacy_commit(now_ns, waiter, out),
            _ => self.pipeline_commit(now_ns, waiter, out),
        }
    }

    /// `zil_get_commit_list`: every sync record of an unsynced txg, in order.
    fn take_commit_list(&mut self) -> Vec<Itx> {
        let synced = self.synced_txg;
        let list: Vec<Itx> = self.sync_list.drain(..).filter(|i| i.txg > synced).collect();
        self.itx_list_bytes = list.iter().map(|i| (i.header + i.data) as u64).sum();
        self.list_left = self.itx_list_bytes;
        // zil_get_commit_list (2.3): the burst grows by every record's full size.
        for i in &list {
            self.cur_size += (i.header + i.data) as u64;
            self.cur_left += (i.header + i.data) as u64;
            let rec = i.header + if i.state == WriteState::Copied { i.data } else { 0 };
            self.cur_max = self.cur_max.max(rec);
        }
        list
    }

    fn pipeline_commit(&mut self, now_ns: u64, waiter: WaiterId, out: &mut Vec<ZilAction>) {
        let list = self.take_commit_list();
        let open_before = self.open_lwb().is_some();
        if list.is_empty() {
            // zil_prune_commit_list: wait for the last lwb opened unless it is stable.
            match self.lwbs.back_mut() {
                None => out.push(ZilAction::Wake { waiter }),
                Some(l) => {
                    l.waiters.push(waiter);
                    let id = l.id;
                    self.arm_waiter(now_ns, id, out);
                }
            }
            return;
        }
        // 2.2 "first": no open lwb and every earlier lwb stable.
        let first = !open_before && self.lwbs.is_empty();
        if self.era == Era::Pipeline23 {
            // zil_process_commit_list (2.3): an open lwb means the workload is really
            // multi-threaded; an earlier lwb not yet flushed means it probably is. The
            // count only falls when a burst ends (zil_burst_done).
            if open_before {
                self.parallel = ZIL_BURSTS as u32;
            } else if !self.lwbs.is_empty() {
                self.parallel = self.parallel.max(ZIL_BURSTS as u32 / 2);
            }
        }
        for itx in list {
            self.assign(now_ns, itx, out);
        }
        if self.open_lwb().is_none() {
            self.open_new();
        }
        let l = self.lwbs.back_mut().expect("open lwb");
        l.waiters.push(waiter);
        let (id, space, size) = (l.id, l.space(), l.size);
        let issue_now = match self.era {
            // ZIL@zfs-2.2.0 zil_process_commit_list computes this sleep with the bare
            // zfs_commit_timeout_pct (no MAX(.., 1)).
            Era::Pipeline22 => {
                first
                    && (self.last_latency_ns * self.timeout_pct / 100 < self.min_commit_timeout_ns || space < size / 8)
            }
            Era::Pipeline23 => self.parallel == 0,
            _ => false,
        };
        if issue_now {
            self.close_burst_and_issue(now_ns, id, out);
        } else {
            self.arm_waiter(now_ns, id, out);
        }
    }

    /// `zil_commit_waiter`'s sleep: `MAX(zfs_commit_timeout_pct, 1)` % of the last lwb
    /// latency in every pipeline era (ZIL@zfs-0.8.0 to zfs-2.3.0 `zil_commit_waiter`).
    fn sleep_ns(&self) -> u64 {
        self.last_latency_ns * self.timeout_pct.max(1) / 100
    }

    /// `zil_commit_waiter`: if the waiter's lwb is still open, sleep up to the timeout.
    fn arm_waiter(&mut self, now_ns: u64, lwb_id: u64, out: &mut Vec<ZilAction>) {
        let open = self.lwbs.iter().any(|l| l.id == lwb_id && l.state == LwbState::Opened);
        if open {
            let token = self.token(Tok::Timer(lwb_id));
            out.push(ZilAction::Timer { token, at_ns: now_ns + self.sleep_ns() });
        }
    }

    /// A timer token came back (`zil_commit_waiter_timeout`).
    pub fn on_timer(&mut self, now_ns: u64, token: Token, out: &mut Vec<ZilAction>) {
        let Some(Tok::Timer(id)) = self.tokens.remove(&token) else {
            panic!("on_timer: token {token} is not a ZIL timer");
        };
        if self.lwbs.iter().any(|l| l.id == id && l.state == LwbState::Opened) {
            self.close_burst_and_issue(now_ns, id, out);
        }
    }

    /// Issue the open lwb at the end of a commit burst; `zl_cur_used` restarts.
    fn close_burst_and_issue(&mut self, now_ns: u64, id: u64, out: &mut Vec<ZilAction>) {
        debug_assert_eq!(self.open_lwb(), Some(id));
        if self.era == Era::Pipeline23 {
            // 2.3 calls zil_burst_done before zil_lwb_write_close, so the next block is
            // sized by the prediction alone.
            self.end_burst();
            self.issue_open(now_ns, out);
        } else {
            self.issue_open(now_ns, out);
            self.end_burst();
        }
    }

    /// The commit burst ended (`zil_burst_done` in 2.3: the parallel count decays and
    /// the burst enters the history).
    fn end_burst(&mut self) {
        if self.era == Era::Pipeline23 && self.cur_size > 0 {
            self.parallel = self.parallel.saturating_sub(1);
            self.burst_rotor = (self.burst_rotor + 1) % ZIL_BURSTS;
            let (opt, min) = lwb_plan_23(self.cur_size, self.max_block, self.cur_max);
            self.prev_opt[self.burst_rotor] = opt;
            self.prev_min[self.burst_rotor] = min;
        }
        self.cur_size = 0;
        self.cur_left = 0;
        self.cur_max = 0;
        self.cur_used = 0;
        self.stats.batches += 1;
    }

    /// `zil_lwb_predict` (2.3): a first-block size enough for 7 of the last 8 bursts,
    /// unless the second largest need saves half.
    fn predict_23(&self) -> u32 {
        let (mut o, m) =
            if self.cur_size > 0 { lwb_plan_23(self.cur_size, self.max_block, self.cur_max) } else { (u32::MAX, 0) };
        o = self.prev_opt.iter().copied().fold(o, u32::min);
        let (mut m1, mut m2) = (m.max(o), o);
        for &m in &self.prev_min {
            if m >= m1 {
                m2 = m1;
                m1 = m;
            } else if m > m2 {
                m2 = m;
            }
        }
        if (m1 as u64) < 2 * m2 as u64 {
            m1
        } else {
            m2
        }
    }

    fn open_lwb(&self) -> Option<u64> {
        self.lwbs.back().filter(|l| l.state == LwbState::Opened).map(|l| l.id)
    }

    fn open_new(&mut self) {
        let id = self.next_lwb_id;
        self.next_lwb_id += 1;
        self.lwbs.push_back(Lwb::new(id, self.next_size));
    }

    /// `zil_lwb_commit`/`zil_lwb_assign`: put one record into the open lwb, issuing full
    /// lwbs (they go out at once in every era).
    fn assign(&mut self, now_ns: u64, itx: Itx, out: &mut Vec<ZilAction>) {
        if self.open_lwb().is_none() {
            self.open_new();
        }
        let rec = itx.header + round8(itx.data);
        self.cur_left = self.cur_left.saturating_sub((itx.header + itx.data) as u64);
        self.list_left = self.list_left.saturating_sub((itx.header + itx.data) as u64);
        if self.release <= Release::Zfs065 {
            // zil_lwb_commit before lwb chunking (OpenZFS 7578, il c5ee46810f, zfs-0.7.0;
            // read at zfs-fuse 5c5ace08, il ce636f8b38, il 73527f441c, ZIL@zfs-0.6.5): the
            // record counts in zl_cur_used first; if it does not fit, the current block
            // goes out (even empty) and the next one, sized with the record counted,
            // takes it whole.
            self.cur_used += rec as u64;
            if self.lwbs.back().unwrap().space() < rec {
                self.issue_open(now_ns, out);
                self.open_new();
            }
            let indirect = itx.state == WriteState::Indirect;
            let l = self.lwbs.back_mut().unwrap();
            l.nused += rec.min(l.space());
            l.max_txg = l.max_txg.max(itx.txg);
            l.add_risk(itx.txg, itx.user);
            if indirect {
                l.indirect.push((itx.block, itx.txg, itx.foid, itx.blk));
            }
            return;
        }
        match itx.state {
            WriteState::NeedCopy if itx.data > 0 => {
                let mut left = itx.data;
                while left > 0 {
                    let space = self.lwbs.back().unwrap().space();
                    let size = self.lwbs.back().unwrap().size;
                    // Do not start a chunk in a nearly full block (zil_max_waste_space).
                    if space < itx.header + 8 || (space < size / 8 && itx.header + round8(left) > space) {
                        self.issue_open_and_reopen(now_ns, 0, out);
                        continue;
                    }
                    let chunk = left.min((space - itx.header) & !7);
                    let l = self.lwbs.back_mut().unwrap();
                    l.nused += itx.header + round8(chunk);
                    l.max_txg = l.max_txg.max(itx.txg);
                    l.add_risk(itx.txg, (chunk as u64).min(itx.user));
                    self.cur_used += (itx.header + round8(chunk)) as u64;
                    left -= chunk;
                }
            }
            _ => {
                let l = self.lwbs.back_mut().unwrap();
                if l.space() < rec {
                    if l.nused == ZIL_CHAIN_BYTES {
                        // Nothing in it yet: take a block the record fits in instead.
                        l.size = round_up(rec + ZIL_CHAIN_BYTES, ZIL_MIN_BLKSZ).min(self.max_block).max(l.size);
                    } else {
                        self.issue_open_and_reopen(now_ns, rec, out);
                    }
                }
                let l = self.lwbs.back_mut().unwrap();
                l.nused += rec.min(l.space());
                l.max_txg = l.max_txg.max(itx.txg);
                l.add_risk(itx.txg, itx.user);
                if itx.state == WriteState::Indirect {
                    l.indirect.push((itx.block, itx.txg, itx.foid, itx.blk));
                }
                self.cur_used += rec as u64;
            }
        }
    }

    fn issue_open_and_reopen(&mut self, now_ns: u64, need: u32, out: &mut Vec<ZilAction>) {
        self.issue_open(now_ns, out);
        self.open_new();
        // A record larger than the planned block gets a block it fits in.
        let l = self.lwbs.back_mut().unwrap();
        if l.space() < need.min(self.max_block - ZIL_CHAIN_BYTES) {
            l.size = round_up(need + ZIL_CHAIN_BYTES, ZIL_MIN_BLKSZ).min(self.max_block);
        }
    }

    /// Issue the open lwb (`zil_lwb_write_issue`): its writes, then plan the next size.
    fn issue_open(&mut self, now_ns: u64, out: &mut Vec<ZilAction>) {
        let on_slog = self.lwb_on_slog();
        let class = self.lwb_class(on_slog);
        let legacy = self.era == Era::Legacy;
        let idx = self.lwbs.len() - 1;
        // The block was allocated in the open txg (`lwb_alloc_txg`) at its full planned size.
        let alloc_txg = self.space.seen_txg.max(self.synced_txg + 1);
        let synced = self.synced_txg;
        let seq;
        let (id, bytes, indirect) = {
            let l = &mut self.lwbs[idx];
            debug_assert_eq!(l.state, LwbState::Opened);
            l.state = LwbState::Issued;
            l.issued_ns = now_ns;
            let sp = &mut self.space;
            seq = sp.popped + sp.live.len() as u64;
            sp.live.push_back((alloc_txg, alloc_txg.max(l.max_txg), l.size as u64, NO_TOP));
            sp.bytes += l.size as u64;
            self.stats.log_space_bytes_max = self.stats.log_space_bytes_max.max(sp.bytes);
            let bytes = if self.slim { round_up(l.nused, ZIL_MIN_BLKSZ).min(l.size) } else { l.size };
            // dmu_sync of a block whose txg already synced: EEXIST; of one already synced
            // for its txg and not written since: EALREADY. Neither writes anything.
            let ov = &mut self.overrides;
            l.indirect.retain(|&(_, txg, foid, blk)| txg > synced && ov.insert((txg, foid, blk)));
            l.pending = 1 + l.indirect.len() as u32;
            // 2.2+ zil_lwb_set_zio_dependency: an earlier lwb not yet done is a child.
            l.dep = idx > 0;
            l.owe_slog |= on_slog;
            l.owe_pool |= !on_slog || !l.indirect.is_empty();
            (l.id, bytes, std::mem::take(&mut l.indirect))
        };
        for (b, txg, _, _) in indirect {
            let token = self.token(if legacy { Tok::LegacyIo } else { Tok::Io(id) });
            self.stats.indirect_writes += 1;
            self.stats.indirect_bytes += b as u64;
            out.push(ZilAction::IndirectWrite { token, bytes: b, txg });
        }
        let token = if legacy && on_slog {
            // Only a SLOG write can fail here: keep what a failure would leave unlogged.
            let risk = std::mem::take(&mut self.lwbs[idx].risk);
            self.legacy_lwb_risk.insert(id, risk);
            self.token(Tok::LegacyLwb(id))
        } else {
            self.token(if legacy { Tok::LegacyIo } else { Tok::Io(id) })
        };
        self.stats.lwb_writes += 1;
        self.stats.lwb_bytes += bytes as u64;
        out.push(ZilAction::LwbWrite { token, bytes, on_slog, class, seq });
        if legacy {
            let l = &self.lwbs[idx];
            self.legacy_pending += l.pending;
            self.legacy_owe_slog |= l.owe_slog;
            self.legacy_owe_pool |= l.owe_pool;
            self.lwbs.pop_back();
        }
        self.next_size = self.plan_next_size();
    }

    fn lwb_on_slog(&self) -> bool {
        if !self.cfg.slog {
            return false;
        }
        match self.slog_limit {
            // USE_SLOG (il d48e086f56 to zfs-0.6.5). ZoL 5d7a86d114 dropped its logbias
            // term (ZIL@zfs-0.6.5); illumos (il 73527f441c) and FreeBSD keep it.
            Some(lim) => {
                (self.release == Release::Zfs065 || self.cfg.logbias == Logbias::Latency)
                    && (self.cur_used < lim || self.itx_list_bytes < 2 * lim)
            }
            // solaris-2009 (il 2672fd86ff `zio_alloc_blk`: log class first) and 0.7+.
            None => true,
        }
    }

    fn lwb_class(&self, on_slog: bool) -> IoClass {
        // ≤ 2.2: the bytes placed so far in this commit (`zl_cur_used`). 2.3
        // (ZIL@zfs-2.3.0 zil_lwb_write_issue): the whole burst (`zl_cur_size`), which
        // zil_burst_done has zeroed before a burst's last lwb goes out — and before every
        // lwb of a burst that is not parallel, since zil_commit_writer issues them only
        // after zil_process_commit_list has ended the burst.
        let burst = match self.era {
            Era::Pipeline23 if self.parallel == 0 => 0,
            Era::Pipeline23 => self.cur_size,
            _ => self.cur_used,
        };
        match self.slog_bulk {
            Some(bulk) if on_slog && burst > bulk => IoClass::AsyncWrite,
            _ => IoClass::SyncWrite,
        }
    }

    /// Size of the next lwb, from the bytes of the current burst (§6.5).
    fn plan_next_size(&mut self) -> u32 {
        if self.era == Era::Pipeline23 {
            // zil_lwb_write_close (2.3): what is left of this burst (plus, when
            // parallel, what the history predicts may join), or the prediction alone.
            let plan = if self.cur_left > 0 {
                let p = lwb_plan_23(self.cur_left, self.max_block, self.cur_max).0;
                if self.parallel > 0 {
                    p.max(lwb_plan_23(self.cur_left + self.predict_23() as u64, self.max_block, self.cur_max).0)
                } else {
                    p
                }
            } else {
                self.predict_23()
            };
            return round_up(plan.saturating_add(ZIL_CHAIN_BYTES), ZIL_MIN_BLKSZ).min(self.max_block);
        }
        if self.release == Release::Solaris2009 {
            // Before zil_block_buckets (onnv 11670, Feb 2010; zfs-fuse 5c5ace08
            // zil_lwb_write_start): the largest of the previous commit's bytes, this
            // commit's so far and what waits on the itx list, rounded up to 4 KiB.
            let waiting: u64 = self.async_by_foid.values().flatten().map(|i| (i.header + i.data) as u64).sum();
            let trailer = ZIL_CHAIN_BYTES as u64;
            let want = self.prev_used.max(self.cur_used + trailer).max(self.list_left + waiting + trailer);
            return round_up(want.min(self.max_block as u64) as u32, ZIL_MIN_BLKSZ).min(self.max_block);
        }
        let sz = lwb_bucket(self.release, self.cur_used, self.max_block);
        self.prev_sizes[self.prev_rotor] = sz;
        self.prev_rotor = (self.prev_rotor + 1) % ZIL_PREV_BLKS;
        self.prev_sizes.iter().copied().max().unwrap_or(sz).min(self.max_block)
    }

    // ------------------------------------------------------------ completions

    /// A write or flush token came back.
    pub fn on_io_done(&mut self, now_ns: u64, token: Token, out: &mut Vec<ZilAction>) {
        let tok = self.tokens.remove(&token).unwrap_or_else(|| panic!("on_io_done: unknown ZIL token {token}"));
        match tok {
            Tok::Io(id) => {
                let l = self.lwb_mut(id);
                l.pending -= 1;
                if l.pending == 0 {
                    self.write_done(id, out);
                }
            }
            Tok::Flush(id) => self.lwb_mut(id).flush_pending = false,
            Tok::Timer(_) => panic!("on_io_done: token {token} is a timer"),
            Tok::WaiterTxg(w) => {
                out.push(ZilAction::Wake { waiter: w });
                return;
            }
            Tok::LegacyTxgWait => {
                self.legacy_wake(now_ns, out);
                return;
            }
            Tok::LegacyLwb(id) => {
                self.legacy_lwb_risk.remove(&id);
                self.legacy_pending -= 1;
                if self.legacy_pending == 0 {
                    self.legacy_writes_done(now_ns, out);
                }
                return;
            }
            Tok::LegacyIo => {
                self.legacy_pending -= 1;
                if self.legacy_pending == 0 {
                    self.legacy_writes_done(now_ns, out);
                }
                return;
            }
            Tok::LegacyFlush => {
                self.legacy_finish(now_ns, out);
                return;
            }
        }
        self.complete_in_order(now_ns, out);
    }

    /// A log block write came back with an error (its device died). Flush and timer tokens
    /// never fail (`zio_flush` errors are not propagated, in every era).
    pub fn on_io_failed(&mut self, now_ns: u64, token: Token, out: &mut Vec<ZilAction>) {
        match self.tokens.get(&token).copied() {
            Some(Tok::Io(id)) => {
                self.stats.lwb_write_errors += 1;
                self.lwb_mut(id).error = true;
            }
            Some(Tok::LegacyLwb(id)) => {
                self.stats.lwb_write_errors += 1;
                self.legacy_error = true;
                let risk = self.legacy_lwb_risk.remove(&id).unwrap_or_default();
                self.legacy_risk.extend(risk);
            }
            _ => {}
        }
        self.on_io_done(now_ns, token, out);
    }

    fn lwb_mut(&mut self, id: u64) -> &mut Lwb {
        self.lwbs.iter_mut().find(|l| l.id == id).expect("live lwb")
    }

    /// `zil_lwb_write_done`: flush now or defer the flush to the next lwb.
    fn write_done(&mut self, id: u64, out: &mut Vec<ZilAction>) {
        let i = self.lwbs.iter().position(|l| l.id == id).unwrap();
        self.lwbs[i].state = LwbState::WriteDone;
        // 0.8 – 2.1 defer to any next lwb (ZIL@zfs-2.1.0 zil_lwb_write_done has no state
        // test; here: one still open or writing). ZIL@zfs-2.2.0 (and 2.3.0) defers only to
        // a next lwb already ISSUED; with one still open it flushes at once.
        let next_writing = self.lwbs.get(i + 1).is_some_and(|n| match n.state {
            LwbState::Issued => true,
            LwbState::Opened => self.era < Era::Pipeline22,
            _ => false,
        });
        let (slog, pool) = (self.lwbs[i].owe_slog, self.lwbs[i].owe_pool);
        self.lwbs[i].owe_slog = false;
        self.lwbs[i].owe_pool = false;
        if self.lwbs[i].error {
            // zil_lwb_write_done (0.8+): on io_error the vdev tree is emptied, no flush.
            return;
        }
        if self.lwbs[i].waiters.is_empty() && next_writing {
            let n = &mut self.lwbs[i + 1];
            n.owe_slog |= slog;
            n.owe_pool |= pool;
        } else if (slog || pool) && !self.no_flush {
            let token = self.token(Tok::Flush(id));
            self.stats.flushes += 1;
            self.lwbs[i].flush_pending = true;
            out.push(ZilAction::Flush { token, slog, pool });
        }
    }

    /// Chained completion: lwbs become stable strictly in order.
    fn complete_in_order(&mut self, now_ns: u64, out: &mut Vec<ZilAction>) {
        while let Some(l) = self.lwbs.front() {
            if l.state != LwbState::WriteDone || l.flush_pending {
                break;
            }
            let mut l = self.lwbs.pop_front().unwrap();
            l.state = LwbState::FlushDone;
            let lat = now_ns - l.issued_ns;
            self.last_latency_ns = if self.era >= Era::Pipeline22 { (self.last_latency_ns * 7 + lat) / 8 } else { lat };
            if l.error {
                self.lwb_failed(&mut l, out);
                continue;
            }
            for w in l.waiters.drain(..) {
                out.push(ZilAction::Wake { waiter: w });
            }
        }
    }

    /// A failed lwb is done (0.8+). 2.2+: its waiters fall back to a txg sync and the
    /// error reaches the next lwb if it depends on this one; 0.8–2.1: they are woken as if
    /// the log held their records, which stay at risk until their txg syncs.
    fn lwb_failed(&mut self, l: &mut Lwb, out: &mut Vec<ZilAction>) {
        if self.era >= Era::Pipeline22 {
            for w in l.waiters.drain(..) {
                self.stats.commits_txg_fallback += 1;
                let token = self.token(Tok::WaiterTxg(w));
                out.push(ZilAction::TxgWait { token });
            }
            if let Some(n) = self.lwbs.front_mut().filter(|n| n.dep) {
                n.error = true;
            }
            return;
        }
        self.stats.commits_unlogged += l.waiters.len() as u64;
        for w in l.waiters.drain(..) {
            out.push(ZilAction::Wake { waiter: w });
        }
        self.at_risk(&std::mem::take(&mut l.risk), out);
    }

    /// Acknowledged bytes no log holds: at risk until their txg syncs.
    fn at_risk(&self, risk: &[(u64, u64)], out: &mut Vec<ZilAction>) {
        for &(txg, bytes) in risk {
            if bytes > 0 && txg > self.synced_txg {
                out.push(ZilAction::AtRisk { txg, bytes });
            }
        }
    }

    // ------------------------------------------------------------ legacy

    fn legacy_commit(&mut self, now_ns: u64, waiter: WaiterId, out: &mut Vec<ZilAction>) {
        let mybatch = self.next_batch;
        self.legacy_waiters.push((mybatch, waiter));
        if !self.writer_busy {
            self.legacy_start_writer(now_ns, mybatch, out);
        }
    }

    /// `zil_commit_writer` (≤ 0.7): everything on the sync list, all lwbs at once.
    fn legacy_start_writer(&mut self, now_ns: u64, batch: u64, out: &mut Vec<ZilAction>) {
        self.next_batch = batch + 1;
        self.writer_batch = batch;
        self.writer_busy = true;
        self.cur_used = 0;
        let list = self.take_commit_list();
        if list.is_empty() {
            self.legacy_finish(now_ns, out);
            return;
        }
        self.stats.batches += 1;
        for itx in list {
            self.assign(now_ns, itx, out);
        }
        if self.open_lwb().is_some() {
            self.issue_open(now_ns, out);
        }
        self.prev_used = self.cur_used;
    }

    fn legacy_writes_done(&mut self, now_ns: u64, out: &mut Vec<ZilAction>) {
        let (slog, pool) = (self.legacy_owe_slog, self.legacy_owe_pool);
        self.legacy_owe_slog = false;
        self.legacy_owe_pool = false;
        if (slog || pool) && !self.no_flush {
            let token = self.token(Tok::LegacyFlush);
            self.stats.flushes += 1;
            out.push(ZilAction::Flush { token, slog, pool });
        } else {
            self.legacy_finish(now_ns, out);
        }
    }

    /// Batch written and flushed. After a failed lwb write, solaris-2009's writer waits
    /// for a txg sync first (`zl_log_error`); later releases never see the error, so the
    /// failed lwbs' bytes are at risk.
    fn legacy_finish(&mut self, now_ns: u64, out: &mut Vec<ZilAction>) {
        if std::mem::take(&mut self.legacy_error) {
            let batch = self.writer_batch;
            let n = self.legacy_waiters.iter().filter(|&&(b, _)| b <= batch).count() as u64;
            let risk = std::mem::take(&mut self.legacy_risk);
            if self.release == Release::Solaris2009 {
                self.stats.commits_txg_fallback += n;
                let token = self.token(Tok::LegacyTxgWait);
                out.push(ZilAction::TxgWait { token });
                return;
            }
            self.stats.commits_unlogged += n;
            self.at_risk(&risk, out);
        }
        self.legacy_wake(now_ns, out);
    }

    /// Batch done: wake it (and any older), hand the writer role to the next batch.
    fn legacy_wake(&mut self, now_ns: u64, out: &mut Vec<ZilAction>) {
        self.com_batch = self.writer_batch;
        self.writer_busy = false;
        let com = self.com_batch;
        self.legacy_waiters.retain(|&(b, w)| {
            if b <= com {
                out.push(ZilAction::Wake { waiter: w });
                false
            } else {
                true
            }
        });
        if let Some(&(b, _)) = self.legacy_waiters.first() {
            self.legacy_start_writer(now_ns, b, out);
        }
    }

    // ------------------------------------------------------------ misc

    fn token(&mut self, t: Tok) -> Token {
        let token = self.next_token;
        self.next_token = self.next_token.wrapping_add(1);
        self.tokens.insert(token, t);
        token
    }

    pub fn stats(&self) -> ZilStats {
        self.stats
    }
    /// Last lwb latency (issue → stable) the commit timeout is computed from, ns.
    pub fn last_lwb_latency_ns(&self) -> u64 {
        self.last_latency_ns
    }
    /// True if commits return at once without log I/O (sync=disabled or zil_disable).
    pub fn is_disabled(&self) -> bool {
        self.disabled
    }
}

fn round8(x: u32) -> u32 {
    (x + 7) & !7
}

fn round_up(x: u32, to: u32) -> u32 {
    x.div_ceil(to) * to
}

/// The largest O_DSYNC/FUA write logged COPIED (`ZIL_MAX_COPIED_DATA`,
/// `zil_max_copied_data`): 0.7 – 2.1 half a max-size log block less the record header
/// ("fit at least two records"; include/sys/zil_impl.h@zfs-0.7.0 and @zfs-0.8.0 with
/// SPA_OLD_MAXBLOCKSIZE, ZIL@zfs-2.0.0/2.1.0 with `zl_max_block_size`); 2.2+
/// MIN(one max-size block's data, `zil_maxcopied`) (ZIL@zfs-2.2.0). ≤ 0.6.5 never falls
/// back from COPIED (see `Zil::write_state`).
fn max_copied_data(tun: &Tunables, max_block: u32) -> u32 {
    let whole = max_block - ZIL_CHAIN_BYTES - LR_WRITE_BYTES;
    match tun.try_get(T::zil_maxcopied) {
        Some(v) => (v as u32).min(whole),
        None => (max_block - ZIL_CHAIN_BYTES) / 2 - LR_WRITE_BYTES,
    }
}

/// ≤ 2.2 lwb size bucket for a burst of `cur_used` bytes (before the max-of-16 rule).
pub fn lwb_bucket(release: Release, cur_used: u64, max_block: u32) -> u32 {
    let need = cur_used + ZIL_CHAIN_BYTES as u64;
    if release < Release::Zfs20 {
        // zil_block_buckets {4K, 8K+4K, 32K+4K, UINT64_MAX → ZIL_MAX_BLKSZ}.
        for b in [4 * KIB, 12 * KIB, 36 * KIB] {
            if need <= b as u64 {
                return b;
            }
        }
        return SPA_OLD_MAXBLOCKSIZE;
    }
    // f15d6a5457: {limit, size} pairs; the 132K row avoids a 128K block plus a tiny one.
    const TABLE: [(u64, u32); 6] = [
        (4096, 4 * KIB),
        (8192 + 4096, 12 * KIB),
        (32768 + 4096, 36 * KIB),
        (65536 + 4096, 68 * KIB),
        (131072, 128 * KIB),
        (131072 + 4096, 68 * KIB),
    ];
    let sz = TABLE.iter().find(|(lim, _)| need <= *lim).map_or(SPA_OLD_MAXBLOCKSIZE, |e| e.1);
    sz.min(max_block)
}

/// 2.3 `zil_lwb_plan`: how a burst of `size` bytes is split over log blocks, as
/// (block payload to plan for, smallest first block that still works). Small bursts take
/// one block, bursts beyond 8 blocks take full blocks, medium ones an even split unless
/// the waste allowance (`zil_max_waste_space`, or the largest record `cur_max`) forbids it.
pub fn lwb_plan_23(size: u64, max_block: u32, cur_max: u32) -> (u32, u32) {
    let md = (max_block - ZIL_CHAIN_BYTES) as u64;
    if size <= md {
        return (size as u32, size as u32);
    }
    if size > 8 * md {
        return (md as u32, 0);
    }
    let n = size.div_ceil(md - LR_WRITE_BYTES as u64);
    let chunk = size.div_ceil(n);
    let waste = ((md - LR_WRITE_BYTES as u64) / 16).max(cur_max as u64);
    if chunk + waste <= md {
        let min = size.saturating_sub((md - waste) * (n - 1)).max(waste);
        (chunk as u32, min as u32)
    } else {
        (md as u32, 0)
    }
}

/// The block size `zil_lwb_write_close` (2.3) allocates for a plan of `plan` bytes.
pub fn lwb_block_23(plan: u32, max_block: u32) -> u32 {
    round_up(plan.saturating_add(ZIL_CHAIN_BYTES), ZIL_MIN_BLKSZ).min(max_block)
}

#[cfg(test)]
mod tests;

//! A recorded I/O trace replayed against the pool (`workload.kind = "trace"`).
//!
//! Theory of operation
//! -------------------
//! Python (`python/ziosim/trace.py`) reads the trace file — fio iolog v2/v3, blkparse text,
//! the SNIA MSR Cambridge and UMass/SPC CSV formats, or ziosim's own CSV — into columns:
//! per record its issue time (or none), an operation letter, a byte offset, a size and a
//! file. This module keeps the replay's place in those columns and its per-operation
//! statistics; `sim.rs` turns each record into the same logical operation the synthetic
//! workloads make, so a replayed read meets the ARC model (`arc_hit`, `l2arc_hit`) and
//! the pool's layout, and a replayed write the txg throttle and the ZIL:
//!
//! * `R`: a read of the records it covers (`zfs_read` → `dmu_read_uio`).
//! * `W`: a buffered write (`zfs_write`): dirty data of the open txg, logged for a later
//!   commit; a write covering a record in part first reads it unless cached.
//! * `S`: a write the caller waits to be durable — O_DSYNC on a file, FUA on a volume
//!   (`zfs_log_write` with the sync flag, then `zil_commit` of its file).
//! * `F`: fsync/fdatasync of a file, or a cache flush sent to a volume: `zil_commit` of
//!   that file (`zfs_fsync`, `zvol_request` with REQ_PREFLUSH / BIO_FLUSH), no data.
//!
//! Timing follows fio's replay (`read_iolog_get`, `iolog_delay` in fio's iolog.c): with
//! times, each record is issued at its recorded time after the workload's start, whatever
//! is still in flight (open loop, so a slower pool shows as latency, not as a longer
//! trace); without times (or with `threads`), `threads` callers each take the next record
//! as soon as their previous one completed (closed loop, as fio's `replay_no_stall` with
//! an iodepth), so a slower pool shows as a longer replay (`finished_ns`).
//! A file's records of one trace go to one file of the dataset; several files (fio
//! files, blkparse devices, MSR disks) are laid end to end in the workload's region by
//! the parser, and each has its own ZIL commit target.

use crate::config::TraceConfig;
use crate::stats::{FineHist, Log2Hist};
use serde_json::{json, Value};
use std::collections::HashMap;

const NIL: u32 = u32::MAX;

/// The ARC's four lists (`arc.c`): cached once, cached more than once, and the two
/// ghost lists of records evicted from each (headers without data).
const MRU: usize = 0;
const MFU: usize = 1;
const MRU_GHOST: usize = 2;
const MFU_GHOST: usize = 3;

/// How a release's ARC balances its MRU against its MFU list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArcEra {
    /// `arc_p`, moved by `arc_adapt` at every ghost hit by the ghost lists' size ratio;
    /// `dampened` caps that ratio at 10 (onnv 6951024, June 2010: every release here but
    /// solaris-2009). `arc_evict` (`arc_adjust` before 2.0) trims the MRU to `arc_p`, the
    /// MFU to the rest, MRU + its ghost to `arc_c` and both ghosts to `arc_c`.
    Adapt { dampened: bool },
    /// zfs-2.2's rework (ARC@zfs-2.2.0 `arc_evict`, `arc_evict_adj`): the MRU's share of the
    /// data, `arc_pd` (a 32-bit fraction, ½ at start), moves at each eviction by the ghost
    /// hits since the previous one; each ghost list is kept to half of the other lists.
    Balance,
}

/// One cached record and where it sits.
#[derive(Clone, Copy)]
struct Node {
    rec: u64,
    prev: u32,
    next: u32,
    list: u8,
    /// `b_arc_access`, in clock ticks.
    access: u64,
    /// ARC_FLAG_PREFETCH: read ahead, not yet asked for.
    prefetch: bool,
}

/// ZFS's adaptive replacement cache over a trace's records (`workload.arc_size`): which of
/// them the ARC still holds when the trace asks for them again, as `arc_access` and
/// `arc_evict` decide it for data buffers (ARC@zfs-2.1.0, ARC@zfs-2.2.0; the 2009 code of
/// onnv for solaris-2009, which lacks the dampener). A first access puts a record at the
/// head of the MRU list; an access more than `ARC_MINTIME` (hz>>4 ticks, ~62 ms) after it
/// moves it to the MFU list, and a quicker one leaves it in the MRU (a record read twice
/// in a row by one sequential pass is not "frequent"); every access brings it to its
/// list's head (the hold and release of the buffer take it off its list and put it back).
/// Eviction takes list tails into their ghost lists; a ghost hit is still a miss (the data
/// must be read) but teaches the balance and enters the MFU. A written record enters
/// the MRU as a new buffer (the sync that writes it gives it a new header).
///
/// Simplifications: the cache size `arc_c` is fixed (`arc_size`; ZFS grows and shrinks it
/// with memory pressure); all records are data of one size (no metadata share, so 2.2's
/// `arc_meta` and the 2.1 metadata limits do not apply); eviction runs at once when an
/// insert goes over `arc_c` (ZFS's eviction thread runs when the ARC overflows, in batches).
/// Lookups only: the map's order never reaches a result.
pub(crate) struct ArcCache {
    era: ArcEra,
    /// `arc_c`, in records.
    c: u64,
    /// ≤ 2.1: `arc_p`, the MRU target, in records.
    p: u64,
    /// 2.2: `arc_pd`, the MRU's share of the data (2^32 = all), the ghost targets of the
    /// last eviction and the ghost hits since it, in bytes as ZFS counts them.
    pd: u64,
    gs: [u64; 2],
    ghost_hits: [u64; 2],
    rec_bytes: u64,
    /// `ARC_MINTIME` and the clock tick, ns.
    mintime_ticks: u64,
    tick_ns: u64,
    map: HashMap<u64, u32>,
    nodes: Vec<Node>,
    free: Vec<u32>,
    /// Per list: head (most recent), tail, length.
    head: [u32; 4],
    tail: [u32; 4],
    len: [u64; 4],
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    /// Hits per list they were found in (`arcstat_mru_hits`, …; the ghost ones are misses).
    pub(crate) list_hits: [u64; 4],
}

impl ArcCache {
    /// A cache of `records` records of `rec_bytes` each, for a platform with `hz` ticks a second.
    pub(crate) fn new(records: u64, rec_bytes: u64, era: ArcEra, hz: u32) -> ArcCache {
        let c = records.max(1);
        let hz = hz.max(1) as u64;
        ArcCache {
            era,
            c,
            p: c >> 1,
            pd: 1 << 31,
            gs: [0; 2],
            ghost_hits: [0; 2],
            rec_bytes: rec_bytes.max(1),
            mintime_ticks: hz >> 4,
            tick_ns: 1_000_000_000 / hz,
            map: HashMap::new(),
            nodes: Vec::new(),
            free: Vec::new(),
            head: [NIL; 4],
            tail: [NIL; 4],
            len: [0; 4],
            hits: 0,
            misses: 0,
            list_hits: [0; 4],
        }
    }

    pub(crate) fn capacity(&self) -> u64 {
        self.c
    }

    /// Is record `rec` cached now (in the MRU or MFU list, not a ghost)? A lookup that
    /// changes nothing: what `dbuf_prefetch` checks before reading a record ahead.
    pub(crate) fn holds(&self, rec: u64) -> bool {
        self.map.get(&rec).is_some_and(|&i| (self.nodes[i as usize].list as usize) < MRU_GHOST)
    }

    /// Records now in the MRU and MFU lists, and the MRU's target (`arc_p`, or `arc_pd`'s
    /// share of `arc_c`).
    pub(crate) fn sizes(&self) -> (u64, u64, u64) {
        let target = match self.era {
            ArcEra::Adapt { .. } => self.p,
            ArcEra::Balance => ((self.c as u128 * self.pd as u128) >> 32) as u64,
        };
        (self.len[MRU], self.len[MFU], target)
    }

    fn unlink(&mut self, i: u32) {
        let Node { prev, next, list, .. } = self.nodes[i as usize];
        let l = list as usize;
        if prev == NIL { self.head[l] = next } else { self.nodes[prev as usize].next = next }
        if next == NIL { self.tail[l] = prev } else { self.nodes[next as usize].prev = prev }
        self.len[l] -= 1;
    }

    fn push_head(&mut self, i: u32, l: usize) {
        let h = self.head[l];
        let n = &mut self.nodes[i as usize];
        (n.prev, n.next, n.list) = (NIL, h, l as u8);
        if h != NIL {
            self.nodes[h as usize].prev = i;
        }
        self.head[l] = i;
        if self.tail[l] == NIL {
            self.tail[l] = i;
        }
        self.len[l] += 1;
    }

    fn move_to(&mut self, i: u32, l: usize) {
        self.unlink(i);
        self.push_head(i, l);
    }

    /// The ARC's answer for a read of `rec` at `now_ns`: was the record cached? Either way
    /// it is cached now (a miss is read into the ARC by the read that follows).
    pub(crate) fn touch(&mut self, rec: u64, now_ns: u64) -> bool {
        let now = now_ns / self.tick_ns;
        let Some(&i) = self.map.get(&rec) else {
            self.misses += 1;
            self.add_new(rec, now);
            return false;
        };
        let list = self.nodes[i as usize].list as usize;
        self.list_hits[list] += 1;
        match list {
            MRU => {
                self.hits += 1;
                // The first demand access of a prefetched buffer only clears its flag: the
                // prefetch "already handled possible promotion" (`arc_access`, ARC@zfs-2.2.0;
                // the HDR_PREFETCH branch before).
                if std::mem::take(&mut self.nodes[i as usize].prefetch) {
                    self.nodes[i as usize].access = now;
                    self.move_to(i, MRU);
                    return true;
                }
                // `ddi_time_after(now, b_arc_access + ARC_MINTIME)`: promote, else stay.
                if now > self.nodes[i as usize].access + self.mintime_ticks {
                    self.nodes[i as usize].access = now;
                    self.move_to(i, MFU);
                } else {
                    self.move_to(i, MRU);
                }
                true
            }
            MFU => {
                self.hits += 1;
                self.nodes[i as usize].access = now;
                self.move_to(i, MFU);
                true
            }
            g => {
                // A ghost hit: the data is gone and is read again (a miss); the header
                // says which list was too small (`arc_adapt` / the 2.2 ghost-hit sums),
                // and the record enters the MFU.
                self.misses += 1;
                match self.era {
                    ArcEra::Adapt { dampened } => self.adapt(g, dampened),
                    ArcEra::Balance => self.ghost_hits[g - MRU_GHOST] += self.rec_bytes,
                }
                self.nodes[i as usize].access = now;
                self.nodes[i as usize].prefetch = false;
                self.move_to(i, MFU);
                self.evict();
                false
            }
        }
    }

    /// A written record: a new buffer at the MRU's head, whatever the old one was.
    pub(crate) fn insert(&mut self, rec: u64, now_ns: u64) {
        let now = now_ns / self.tick_ns;
        if let Some(&i) = self.map.get(&rec) {
            self.nodes[i as usize].access = now;
            self.nodes[i as usize].prefetch = false;
            self.move_to(i, MRU);
            self.evict();
        } else {
            self.add_new(rec, now);
        }
    }

    /// A read of `rec` failed (no copy): its buffer never filled, so the ARC does not hold
    /// it (`arc_read_done` destroys the header of a failed read).
    pub(crate) fn forget(&mut self, rec: u64) {
        if let Some(i) = self.map.remove(&rec) {
            self.unlink(i);
            self.free.push(i);
        }
    }

    /// A record read ahead (`dbuf_prefetch` → `arc_read` with ARC_FLAG_PREFETCH): a new
    /// buffer at the MRU's head, flagged until a demand read asks for it. The caller
    /// prefetches only what the cache does not hold.
    pub(crate) fn insert_prefetched(&mut self, rec: u64, now_ns: u64) {
        let now = now_ns / self.tick_ns;
        if !self.map.contains_key(&rec) {
            self.add_new(rec, now);
        }
        if let Some(&i) = self.map.get(&rec) {
            self.nodes[i as usize].prefetch = true;
        }
    }

    fn add_new(&mut self, rec: u64, now: u64) {
        let node = Node { rec, prev: NIL, next: NIL, list: MRU as u8, access: now, prefetch: false };
        let i = match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        self.map.insert(rec, i);
        self.push_head(i, MRU);
        self.evict();
    }

    /// `arc_adapt` for a hit in ghost list `g`, one record's worth (≤ 2.1).
    fn adapt(&mut self, g: usize, dampened: bool) {
        let p_min = self.c >> 4; // arc_p_min_shift
        let (mrug, mfug) = (self.len[MRU_GHOST], self.len[MFU_GHOST]);
        let cap = |m: u64| if dampened { m.min(10) } else { m };
        if g == MRU_GHOST {
            let mult = cap(if mrug >= mfug { 1 } else { mfug / mrug });
            self.p = (self.c - p_min).min(self.p + mult);
        } else {
            let mult = cap(if mfug >= mrug { 1 } else { mrug / mfug });
            let delta = mult.min(self.p);
            self.p = p_min.max(self.p - delta);
        }
    }

    /// Take up to `n` records from the tail of list `l`: into its ghost list, or (a ghost
    /// list) out of the cache.
    fn evict_from(&mut self, l: usize, n: i64) {
        for _ in 0..n.max(0) {
            let i = self.tail[l];
            if i == NIL {
                break;
            }
            if l >= MRU_GHOST {
                self.unlink(i);
                self.map.remove(&self.nodes[i as usize].rec);
                self.free.push(i);
            } else {
                self.move_to(i, l + 2);
            }
        }
    }

    /// `arc_evict` for data buffers, when the cached records exceed `arc_c`.
    fn evict(&mut self) {
        let c = self.c as i64;
        let size = (self.len[MRU] + self.len[MFU]) as i64;
        match self.era {
            ArcEra::Adapt { .. } => {
                if size > c {
                    self.evict_from(MRU, (size - c).min(self.len[MRU] as i64 - self.p as i64));
                    let size = (self.len[MRU] + self.len[MFU]) as i64;
                    self.evict_from(MFU, size - c);
                }
                self.evict_from(MRU_GHOST, (self.len[MRU] + self.len[MRU_GHOST]) as i64 - c);
                self.evict_from(MFU_GHOST, (self.len[MRU_GHOST] + self.len[MFU_GHOST]) as i64 - c);
            }
            ArcEra::Balance => {
                if size <= c {
                    return;
                }
                let b = self.rec_bytes as i64;
                let (gr, gf) = (std::mem::take(&mut self.ghost_hits[0]), std::mem::take(&mut self.ghost_hits[1]));
                self.pd = evict_adj(self.pd, self.gs[0] + self.gs[1], gr, gf, 100);
                // wt = t - (asize - arc_c): the data the lists should keep, here arc_c.
                let wt = c * b;
                let w = wt * (self.pd >> 16) as i64 >> 16;
                let e = (size - c) * b;
                let e = e.min(self.len[MRU] as i64 * b - w);
                self.evict_from(MRU, e.max(0).div_euclid(b) + i64::from(e.max(0) % b != 0));
                self.evict_from(MFU, (self.len[MRU] + self.len[MFU]) as i64 - c);
                // Each ghost list at most half the other lists (data only here).
                self.gs = [self.len[MFU] * self.rec_bytes / 2, self.len[MRU] * self.rec_bytes / 2];
                self.evict_from(MRU_GHOST, self.len[MRU_GHOST] as i64 - (self.gs[0] / self.rec_bytes) as i64);
                self.evict_from(MFU_GHOST, self.len[MFU_GHOST] as i64 - (self.gs[1] / self.rec_bytes) as i64);
            }
        }
    }
}

/// `arc_evict_adj` (ARC@zfs-2.2.0): move the fraction `frac` (of 2^32) by the ghost hits
/// `up` and `down` relative to the ghost lists' `total` size, each direction damped as the
/// fraction nears its end.
fn evict_adj(frac: u64, total: u64, mut up: u64, mut down: u64, balance: u64) -> u64 {
    if total < 8 || up + down == 0 {
        return frac;
    }
    if up + down >= total / 4 {
        let scale = (up + down) / (total / 8);
        up /= scale;
        down /= scale;
    }
    let s = total.leading_zeros().min(32); // MIN(64 - highbit64(total), 32)
    let ofrac = (1u64 << 32) - frac;
    if frac >= 4 * ofrac {
        up /= frac / (2 * ofrac + 1);
    }
    up = (up << s) / (total >> (32 - s));
    if ofrac >= 4 * frac {
        down /= ofrac / (2 * frac + 1);
    }
    down = (down << s) / (total >> (32 - s));
    down = down * 100 / balance;
    frac.wrapping_add(up).wrapping_sub(down)
}

/// What a record does (index into the per-kind statistics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum TraceOp {
    Read = 0,
    Write = 1,
    SyncWrite = 2,
    Flush = 3,
}

impl TraceOp {
    pub(crate) const KEYS: [&'static str; 4] = ["read", "write", "sync_write", "flush"];

    fn from_letter(c: u8) -> TraceOp {
        match c {
            b'R' => TraceOp::Read,
            b'W' => TraceOp::Write,
            b'S' => TraceOp::SyncWrite,
            _ => TraceOp::Flush,
        }
    }

    /// The op tag a logical operation carries (0 = not a trace operation).
    pub(crate) fn tag(self) -> u8 {
        self as u8 + 1
    }

    pub(crate) fn from_tag(tag: u8) -> Option<TraceOp> {
        match tag {
            1 => Some(TraceOp::Read),
            2 => Some(TraceOp::Write),
            3 => Some(TraceOp::SyncWrite),
            4 => Some(TraceOp::Flush),
            _ => None,
        }
    }
}

/// One record, resolved to the workload's region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TraceRec {
    pub(crate) op: TraceOp,
    /// Byte offset within the workload's region.
    pub(crate) offset: u64,
    pub(crate) size: u64,
    pub(crate) file: u32,
}

#[derive(Clone, Debug, Default)]
struct KindStats {
    ops: u64,
    bytes: u64,
    lat: FineHist,
    lat_log2: Log2Hist<64>,
    /// The same split by scan window (`sim::ScanPhase`: before, during, after).
    by_phase: [(u64, u64, FineHist, Log2Hist<64>); 3],
}

/// A trace workload's place in its records and what it has measured.
pub(crate) struct TraceState {
    cfg: TraceConfig,
    /// Replayed at the recorded times (the trace has them and no `threads` were given).
    open_loop: bool,
    /// Length of the region records are wrapped into.
    region_len: u64,
    /// Next record to issue, and how many laps of the trace were issued before it.
    next: usize,
    laps: u64,
    /// A lap's length when repeating with times: the last record's time plus one mean gap.
    lap_ns: u64,
    issued: u64,
    done: u64,
    stats: [KindStats; 4],
    pub(crate) finished_ns: Option<u64>,
    /// Closed-loop threads stopped by an I/O error (as a fio job stops).
    stopped_threads: u32,
}

impl TraceState {
    pub(crate) fn new(cfg: TraceConfig, region_len: u64, open_loop: bool) -> TraceState {
        let n = cfg.offset.len() as u64;
        let lap_ns = match (cfg.t_ns.first(), cfg.t_ns.last()) {
            (Some(&a), Some(&b)) if n > 1 => b + (b - a) / (n - 1),
            (Some(&b), _) => b + 1_000_000,
            _ => 0,
        }
        .max(1);
        let open_loop = open_loop && cfg.timed();
        TraceState { cfg, open_loop, region_len, next: 0, laps: 0, lap_ns, issued: 0, done: 0, stats: Default::default(), finished_ns: None, stopped_threads: 0 }
    }

    /// Records go out at their recorded times, not when a caller is free.
    pub(crate) fn open_loop(&self) -> bool {
        self.open_loop
    }

    pub(crate) fn records(&self) -> u64 {
        self.cfg.offset.len() as u64
    }

    /// Records completed so far (every lap).
    pub(crate) fn completed(&self) -> u64 {
        self.done
    }

    /// Every record was issued (never, when repeating).
    pub(crate) fn exhausted(&self) -> bool {
        self.laps > 0 && !self.cfg.repeat
    }

    /// A closed-loop thread of `threads` stopped at an I/O error; returns true when that
    /// ended a single pass (every thread stopped: the records left are never issued).
    pub(crate) fn stop_thread(&mut self, threads: u32, now: u64) -> bool {
        self.stopped_threads += 1;
        if self.cfg.repeat || self.finished_ns.is_some() || self.stopped_threads < threads {
            return false;
        }
        self.finished_ns = Some(now);
        true
    }

    /// Every record of a single pass has completed.
    pub(crate) fn finished(&self) -> bool {
        self.finished_ns.is_some()
    }

    /// A finite job: a single pass, not a repeating one.
    pub(crate) fn finite(&self) -> bool {
        !self.cfg.repeat
    }

    /// Issue time of the next record, ns after the workload's start (timed traces).
    pub(crate) fn next_due_ns(&self) -> Option<u64> {
        if self.exhausted() || !self.open_loop {
            return None;
        }
        Some(self.laps.saturating_mul(self.lap_ns).saturating_add(self.cfg.t_ns[self.next]))
    }

    /// Where record `i` lands in a region of `region_len` bytes: `take`'s offset and size.
    fn placed(cfg: &TraceConfig, i: usize, region_len: u64) -> (u64, u64) {
        let op = TraceOp::from_letter(cfg.ops.as_bytes()[i]);
        let size = if op == TraceOp::Flush { 0 } else { cfg.size[i].min(region_len) };
        // Beyond the region: wrapped into it; a record crossing its end is moved back so
        // that it ends there (same size, so the operation's bytes are the trace's).
        let mut offset = cfg.offset[i] % region_len;
        if offset + size > region_len {
            offset = region_len - size;
        }
        (offset, size)
    }

    /// Take the next record, or None once a single pass has issued them all.
    pub(crate) fn take(&mut self) -> Option<TraceRec> {
        if self.exhausted() {
            return None;
        }
        let i = self.next;
        let op = TraceOp::from_letter(self.cfg.ops.as_bytes()[i]);
        let (offset, size) = Self::placed(&self.cfg, i, self.region_len);
        let file = self.cfg.file.get(i).copied().unwrap_or(0);
        self.next += 1;
        if self.next == self.cfg.offset.len() {
            self.next = 0;
            self.laps += 1;
        }
        self.issued += 1;
        Some(TraceRec { op, offset, size, file })
    }

    /// Count a completed record, ended in scan window `phase` (`None`: it failed, counted
    /// nowhere but in `completed`); returns true when it completed the single pass.
    pub(crate) fn complete(&mut self, op: Option<TraceOp>, bytes: u64, lat: u64, phase: usize, now: u64) -> bool {
        if let Some(op) = op {
            let s = &mut self.stats[op as usize];
            s.ops += 1;
            s.bytes += bytes;
            s.lat.add(lat);
            s.lat_log2.add(lat);
            let p = &mut s.by_phase[phase];
            p.0 += 1;
            p.1 += bytes;
            p.2.add(lat);
            p.3.add(lat);
        }
        self.done += 1;
        if !self.cfg.repeat && self.finished_ns.is_none() && self.done == self.records() {
            self.finished_ns = Some(now);
            return true;
        }
        false
    }

    /// The replay's results; `phases`: the scan windows' keys when a scan ran (each kind
    /// of record then has its latency per window too), None otherwise.
    pub(crate) fn results(&self, phases: Option<&[&str; 3]>) -> Value {
        let mut by_op = serde_json::Map::new();
        for (k, s) in TraceOp::KEYS.iter().zip(&self.stats) {
            let mut v = json!({"ops": s.ops, "bytes": s.bytes, "latency_ns": serde_json::to_value(s.lat.pcts()).unwrap(),
                               "latency_log2": s.lat_log2.counts.to_vec()});
            if let Some(keys) = phases {
                let mut m = serde_json::Map::new();
                for (key, (ops, bytes, lat, log2)) in keys.iter().zip(&s.by_phase) {
                    m.insert((*key).into(), json!({"ops": ops, "bytes": bytes, "latency_ns": serde_json::to_value(lat.pcts()).unwrap(),
                                                   "latency_log2": log2.counts.to_vec()}));
                }
                v["by_scan_phase"] = Value::Object(m);
            }
            by_op.insert((*k).into(), v);
        }
        json!({
            "records": self.records(), "issued": self.issued, "completed": self.done,
            "laps": self.laps, "open_loop": self.open_loop, "repeat": self.cfg.repeat,
            "by_op": Value::Object(by_op),
        })
    }
}

/// The files of trace `cfg` replayed in a region at `region_off` of `region_len` bytes, as
/// the prefetcher sees them: per file index, its first record (pool-wide number of
/// `rs`-byte records) and its number of records, from its lowest byte rounded down to
/// 1 MiB — where the parser starts the file (`python/ziosim/trace.py`), so `zfs_read`'s
/// 1 MiB pieces fall where the application's did — to its highest (a file no read or
/// write touches: none; a flush has no place).
pub(crate) fn trace_files(cfg: &TraceConfig, region_off: u64, region_len: u64, rs: u64) -> Vec<(u64, u64)> {
    let mut span: Vec<(u64, u64)> = Vec::new();
    for i in 0..cfg.offset.len() {
        if TraceOp::from_letter(cfg.ops.as_bytes()[i]) == TraceOp::Flush {
            continue;
        }
        let (off, size) = TraceState::placed(cfg, i, region_len);
        let f = cfg.file.get(i).copied().unwrap_or(0) as usize;
        if span.len() <= f {
            span.resize(f + 1, (u64::MAX, 0));
        }
        let (lo, hi) = &mut span[f];
        *lo = (*lo).min(off);
        *hi = (*hi).max(off + size.max(1));
    }
    span.into_iter()
        .map(|(lo, hi)| {
            if lo == u64::MAX {
                return (0, 0);
            }
            let first = (region_off + (lo & !((1 << 20) - 1))) / rs;
            (first, (region_off + hi).div_ceil(rs) - first)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(ops: &str, t: Vec<u64>, off: Vec<u64>, size: Vec<u64>, repeat: bool) -> TraceConfig {
        TraceConfig { t_ns: t, ops: ops.into(), offset: off, size, file: vec![], repeat }
    }

    #[test]
    fn a_files_prefetch_extent_runs_from_its_1_mib_start_and_ignores_flushes() {
        const M: u64 = 1 << 20;
        // File 0 at 0–3 MiB, file 1 from 17 MiB (+128K) with an fsync (offset 0, no size).
        let mut c = cfg("RRRF", vec![], vec![0, 3 * M - 4096, 17 * M + 131072, 0], vec![4096, 4096, 131072, 0], false);
        c.file = vec![0, 0, 1, 1];
        let f = trace_files(&c, 8 * M, 64 * M, 131072);
        assert_eq!(f[0], (64, 24));
        // From 17 MiB (its first read at 17 MiB + 128K, rounded down) to 17.25 MiB.
        assert_eq!(f[1], (64 + 17 * 8, 2));
    }

    #[test]
    fn records_wrap_into_the_region_keeping_their_size() {
        let mut s = TraceState::new(cfg("RWF", vec![], vec![10, 1000, 5], vec![100, 100, 0], false), 1000, false);
        assert_eq!(s.take().unwrap(), TraceRec { op: TraceOp::Read, offset: 10, size: 100, file: 0 });
        // 1000 wraps to 0.
        assert_eq!(s.take().unwrap().offset, 0);
        let f = s.take().unwrap();
        assert_eq!((f.op, f.size), (TraceOp::Flush, 0));
        assert!(s.take().is_none());
        let mut s = TraceState::new(cfg("W", vec![], vec![950], vec![100], false), 1000, false);
        assert_eq!(s.take().unwrap().offset, 900);
    }

    #[test]
    fn a_repeating_timed_trace_laps_one_mean_gap_after_its_last_record() {
        let mut s = TraceState::new(cfg("RR", vec![0, 10], vec![0, 0], vec![1, 1], true), 100, true);
        assert_eq!(s.next_due_ns(), Some(0));
        s.take();
        assert_eq!(s.next_due_ns(), Some(10));
        s.take();
        assert_eq!(s.next_due_ns(), Some(20));
        s.take();
        assert_eq!(s.next_due_ns(), Some(30));
        assert!(!s.exhausted());
    }

    #[test]
    fn the_single_pass_finishes_when_its_last_record_completes() {
        let mut s = TraceState::new(cfg("RW", vec![], vec![0, 0], vec![1, 1], false), 100, false);
        s.take();
        s.take();
        assert!(s.exhausted());
        assert!(!s.complete(Some(TraceOp::Write), 1, 5, 0, 7));
        assert!(s.complete(Some(TraceOp::Read), 1, 5, 1, 9));
        assert_eq!(s.finished_ns, Some(9));
        let r = s.results(None);
        assert_eq!(r["by_op"]["read"]["ops"], 1);
        assert_eq!(r["completed"], 2);
        assert!(r["by_op"]["read"].get("by_scan_phase").is_none());
        let r = s.results(Some(&["before", "during", "after"]));
        assert_eq!(r["by_op"]["read"]["by_scan_phase"]["during"]["ops"], 1);
        assert_eq!(r["by_op"]["write"]["by_scan_phase"]["before"]["ops"], 1);
    }

    const MS: u64 = 1_000_000;

    fn arc(records: u64, era: ArcEra) -> ArcCache {
        ArcCache::new(records, 128 << 10, era, 1000)
    }

    const ERAS: [ArcEra; 3] = [ArcEra::Adapt { dampened: false }, ArcEra::Adapt { dampened: true }, ArcEra::Balance];

    #[test]
    fn a_second_read_within_arc_mintime_leaves_a_record_in_the_mru() {
        for era in ERAS {
            let mut a = arc(8, era);
            assert!(!a.touch(1, 0));
            assert!(a.touch(1, 10 * MS)); // 10 ms later: still "once"
            assert_eq!(a.sizes().0, 1);
            assert!(a.touch(1, 63 * MS)); // 63 ticks after the first access (ARC_MINTIME = 62)
            assert_eq!((a.sizes().0, a.sizes().1), (0, 1));
            assert_eq!((a.hits, a.misses, a.list_hits[0], a.list_hits[1]), (2, 1, 2, 0));
        }
    }

    #[test]
    fn a_prefetched_records_first_demand_read_is_a_hit_that_leaves_it_in_the_mru() {
        // `arc_access`: the prefetch already handled promotion, so the first demand access
        // only clears the flag; the next one, past ARC_MINTIME, promotes it.
        for era in ERAS {
            let mut a = arc(8, era);
            a.insert_prefetched(5, 0);
            assert!(a.holds(5) && !a.holds(6));
            assert!(a.touch(5, 500 * MS));
            assert_eq!((a.sizes().0, a.sizes().1), (1, 0), "{era:?}");
            assert!(a.touch(5, 600 * MS));
            assert_eq!((a.sizes().0, a.sizes().1), (0, 1), "{era:?}");
            assert_eq!((a.hits, a.misses), (2, 0));
        }
    }

    #[test]
    fn a_hot_set_survives_a_scan_that_would_flush_an_lru() {
        // 16 records read every second (MFU after their second read), then a one-pass scan
        // of 1 000 records in 100 ms, then the hot set again: an LRU of 32 records would
        // have lost all 16; the ARC evicts the scan's records from its MRU and keeps them.
        for era in ERAS {
            let mut a = arc(32, era);
            for lap in 0..3 {
                for r in 0..16 {
                    a.touch(r, lap * 1000 * MS + r);
                }
            }
            for k in 0..1000 {
                a.touch(1_000 + k, 3000 * MS + k * 100_000);
            }
            let hot = (0..16).filter(|&r| a.touch(r, 3200 * MS + r)).count();
            assert_eq!(hot, 16, "{era:?}: {hot} of 16 hot records left");
            let (mru, mfu, _) = a.sizes();
            assert!(mru + mfu <= 32, "{era:?}: {mru} + {mfu} cached in 32");
            assert!(a.len[MRU_GHOST] + a.len[MFU_GHOST] <= 32, "{era:?}: ghosts {:?}", a.len);
        }
    }

    #[test]
    fn ghost_hits_move_the_mru_target_their_way() {
        for era in ERAS {
            // 16 hot records (read twice, 100 ms apart: MFU), then laps over 24 cold ones:
            // the MRU, held to its target, sends cold records to its ghost list, and the
            // next lap finds them there — recency was short, the MRU target grows.
            let mut a = arc(32, era);
            let mut t = 0;
            let mut read = |a: &mut ArcCache, r: u64| {
                a.touch(r, t);
                t += 100 * MS;
            };
            for _ in 0..2 {
                (0..16).for_each(|r| read(&mut a, r));
            }
            let before = a.sizes().2;
            for _ in 0..3 {
                (100..124).for_each(|r| read(&mut a, r));
            }
            assert!(a.list_hits[MRU_GHOST] > 0, "{era:?}: {:?}", a.list_hits);
            assert!(a.sizes().2 > before, "{era:?}: MRU target {before} → {}", a.sizes().2);
            // Then a burst of 40 new records pushes records out of the MFU (the cold ones
            // the last laps promoted, and hot ones) into its ghost list; rereading those
            // hits there — frequency was short, the target falls.
            (200..240).for_each(|r| read(&mut a, r));
            let before = a.sizes().2;
            (0..16).chain(100..124).for_each(|r| read(&mut a, r));
            assert!(a.list_hits[MFU_GHOST] > 0, "{era:?}: {:?}", a.list_hits);
            assert!(a.sizes().2 < before, "{era:?}: MRU target {before} → {}", a.sizes().2);
        }
    }

    #[test]
    fn arc_adapt_steps_by_the_ghost_ratio_within_bounds() {
        let mut a = arc(32, ArcEra::Adapt { dampened: true });
        a.len[MRU_GHOST] = 1;
        a.len[MFU_GHOST] = 50;
        a.adapt(MRU_GHOST, true);
        assert_eq!(a.p, 16 + 10, "the ratio 50 is capped at 10");
        a.adapt(MRU_GHOST, false);
        assert_eq!(a.p, 30, "undampened: +50, capped at arc_c - arc_p_min");
        a.len = [0, 0, 50, 1];
        for _ in 0..10 {
            a.adapt(MFU_GHOST, true);
        }
        assert_eq!(a.p, 2, "arc_p_min = 32 >> 4");
    }

    #[test]
    fn arc_evict_adj_moves_the_fraction_as_zfs_computes_it() {
        let half = 1u64 << 31;
        // 10 MRU ghost hits against ghost lists of 1 000: up = 10·2^32 / 1000.
        assert_eq!(evict_adj(half, 1000, 10, 0, 100), half + 42_949_672);
        assert_eq!(evict_adj(half, 1000, 0, 10, 100), half - 42_949_672);
        // Nothing to learn from: unchanged.
        assert_eq!(evict_adj(half, 7, 5, 0, 100), half);
        assert_eq!(evict_adj(half, 1000, 0, 0, 100), half);
        // Near the top the MRU's gains are damped (frac ≥ 4·(1 − frac)).
        let high = (1u64 << 32) - (1 << 28);
        assert!(evict_adj(high, 1000, 10, 0, 100) - high < 42_949_672 / 2);
    }

    #[test]
    fn a_written_record_is_a_new_mru_buffer() {
        let mut a = arc(4, ArcEra::Balance);
        a.touch(7, 0);
        a.touch(7, 100 * MS); // MFU
        a.insert(7, 200 * MS);
        assert_eq!((a.sizes().0, a.sizes().1), (1, 0));
        assert_eq!((a.hits, a.misses), (1, 1), "an insert counts no lookup");
        for r in 10..20 {
            a.insert(r, 300 * MS);
        }
        assert!(a.sizes().0 + a.sizes().1 <= 4);
        assert!(!a.touch(7, 400 * MS), "pushed out by newer writes");
    }

    #[test]
    fn check_names_the_bad_column() {
        let c = cfg("RX", vec![], vec![0, 0], vec![1, 1], false);
        assert!(c.check("workload[0]", false).unwrap_err().contains("trace.ops[1]"));
        let c = cfg("RR", vec![5, 4], vec![0, 0], vec![1, 1], false);
        assert!(c.check("workload[0]", false).unwrap_err().contains("t_ns[1]"));
        let c = cfg("RR", vec![], vec![0, 0], vec![1, 0], false);
        assert!(c.check("workload[0]", false).unwrap_err().contains("size[1]"));
        let c = cfg("R", vec![], vec![0], vec![1], false);
        assert!(c.check("workload[0]", true).unwrap_err().contains("threads"));
        assert!(cfg("RF", vec![1, 2], vec![0, 0], vec![1, 0], false).check("w", true).is_ok());
    }
}

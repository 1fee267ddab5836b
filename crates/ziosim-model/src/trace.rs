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

/// A least-recently-used cache of records (`workload.arc_size`): which of a trace's
/// records the ARC still holds when the trace asks for them again. ZFS's ARC balances a
/// recency list against a frequency list (`arc.c`: MRU/MFU with ghost lists); this is its
/// recency half alone, so a trace that rereads a working set larger than the cache but
/// with a hot core hits somewhat less here than on ZFS. Lookups only: no iteration, so the
/// map's order never reaches a result.
pub(crate) struct Lru {
    cap: usize,
    map: HashMap<u64, u32>,
    /// (record, previous, next) — most recent at `head`.
    nodes: Vec<(u64, u32, u32)>,
    head: u32,
    tail: u32,
    pub(crate) hits: u64,
    pub(crate) misses: u64,
}

impl Lru {
    pub(crate) fn new(records: u64) -> Lru {
        let cap = records.max(1) as usize;
        Lru { cap, map: HashMap::new(), nodes: Vec::new(), head: NIL, tail: NIL, hits: 0, misses: 0 }
    }

    pub(crate) fn capacity(&self) -> u64 {
        self.cap as u64
    }

    fn unlink(&mut self, i: u32) {
        let (_, p, n) = self.nodes[i as usize];
        if p == NIL { self.head = n } else { self.nodes[p as usize].2 = n }
        if n == NIL { self.tail = p } else { self.nodes[n as usize].1 = p }
    }

    fn push_front(&mut self, i: u32) {
        self.nodes[i as usize].1 = NIL;
        self.nodes[i as usize].2 = self.head;
        if self.head != NIL {
            self.nodes[self.head as usize].1 = i;
        }
        self.head = i;
        if self.tail == NIL {
            self.tail = i;
        }
    }

    /// Was `rec` cached? Either way it is the most recent now (a miss brings it in, as the
    /// read that follows does; the least recent record leaves when the cache is full).
    pub(crate) fn touch(&mut self, rec: u64) -> bool {
        if let Some(&i) = self.map.get(&rec) {
            self.hits += 1;
            if self.head != i {
                self.unlink(i);
                self.push_front(i);
            }
            return true;
        }
        self.misses += 1;
        let i = if self.nodes.len() < self.cap {
            self.nodes.push((rec, NIL, NIL));
            (self.nodes.len() - 1) as u32
        } else {
            let i = self.tail;
            self.unlink(i);
            self.map.remove(&self.nodes[i as usize].0);
            self.nodes[i as usize].0 = rec;
            i
        };
        self.map.insert(rec, i);
        self.push_front(i);
        false
    }

    /// Put `rec` in without counting a lookup (a written record's dirty buffer).
    pub(crate) fn insert(&mut self, rec: u64) {
        let (h, m) = (self.hits, self.misses);
        self.touch(rec);
        (self.hits, self.misses) = (h, m);
    }
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
        TraceState { cfg, open_loop, region_len, next: 0, laps: 0, lap_ns, issued: 0, done: 0, stats: Default::default(), finished_ns: None }
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

    /// Take the next record, or None once a single pass has issued them all.
    pub(crate) fn take(&mut self) -> Option<TraceRec> {
        if self.exhausted() {
            return None;
        }
        let i = self.next;
        let op = TraceOp::from_letter(self.cfg.ops.as_bytes()[i]);
        let size = if op == TraceOp::Flush { 0 } else { self.cfg.size[i].min(self.region_len) };
        // Beyond the region: wrapped into it; a record crossing its end is moved back so
        // that it ends there (same size, so the operation's bytes are the trace's).
        let mut offset = self.cfg.offset[i] % self.region_len;
        if offset + size > self.region_len {
            offset = self.region_len - size;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(ops: &str, t: Vec<u64>, off: Vec<u64>, size: Vec<u64>, repeat: bool) -> TraceConfig {
        TraceConfig { t_ns: t, ops: ops.into(), offset: off, size, file: vec![], repeat }
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

    #[test]
    fn the_lru_keeps_the_most_recent_records() {
        let mut l = Lru::new(3);
        assert!(!l.touch(1) && !l.touch(2) && !l.touch(3));
        assert!(l.touch(1)); // 1 is now the most recent: 2 is the least
        assert!(!l.touch(4)); // evicts 2
        assert!(!l.touch(2)); // evicts 3
        assert!(l.touch(1) && l.touch(4) && l.touch(2));
        assert!(!l.touch(3));
        assert_eq!((l.hits, l.misses), (4, 6));
        l.insert(9);
        assert_eq!((l.hits, l.misses), (4, 6));
        assert!(l.touch(9));
        let mut one = Lru::new(0);
        assert!(!one.touch(5) && one.touch(5) && !one.touch(6) && !one.touch(5));
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

//! The `zpool status` snapshots of a run with actions, one per report interval, kept small.
//!
//! Theory of operation
//! -------------------
//! `status_snapshot` (admin.rs) builds the vdev tree as rows; `StatusLog::push` stores
//! each distinct row once (`rows`, found again through `ids`) and the snapshot as the list
//! of its rows' indices. Between two intervals of a resilver almost every row is the same
//! (only the resilvering disk's `scan_processed` moves), so a 100-disk snapshot costs a few
//! hundred bytes of indices instead of a `serde_json::Value` tree of ~100 kB.
//!
//! The results document still carries every snapshot whole (`StatusJson`, streamed with
//! the sorted keys `serde_json` gives an object, so its bytes did not change); the compact
//! form (`compact: true`) gives the rows once under `status.rows` and each tree as indices
//! into it, which the Python side turns back into the same lists of (shared) row objects.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;
use std::collections::BTreeMap;

/// One row of a `zpool status` vdev tree (read, write and checksum errors are always 0).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct StatusRow {
    pub(crate) depth: u32,
    pub(crate) name: String,
    pub(crate) state: &'static str,
    pub(crate) note: String,
    /// `vs_scan_processed`; printed only when non-zero.
    pub(crate) scan_processed: u64,
    /// `vs_resilver_deferred`; printed only when set.
    pub(crate) resilver_deferred: bool,
}

impl Serialize for StatusRow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("cksum", &0)?;
        m.serialize_entry("depth", &self.depth)?;
        m.serialize_entry("name", &self.name)?;
        m.serialize_entry("note", &self.note)?;
        m.serialize_entry("read", &0)?;
        if self.resilver_deferred {
            m.serialize_entry("resilver_deferred", &true)?;
        }
        if self.scan_processed > 0 {
            m.serialize_entry("scan_processed", &self.scan_processed)?;
        }
        m.serialize_entry("state", self.state)?;
        m.serialize_entry("write", &0)?;
        m.end()
    }
}

/// A snapshot as `status_snapshot` builds it: the tree's rows, and the rest as JSON.
pub(crate) struct Snapshot {
    pub(crate) t_ns: u64,
    pub(crate) state: &'static str,
    pub(crate) tree: Vec<StatusRow>,
    pub(crate) spares: Value,
    pub(crate) scan: Value,
    pub(crate) errors: usize,
    pub(crate) rebuild: Value,
    /// The `logs` and `cache` rows, when an action may change a log or cache device
    /// (otherwise the printers show those devices ONLINE from the pool layout).
    pub(crate) aux: Option<(Vec<StatusRow>, Vec<StatusRow>)>,
    /// The pool is suspended: its `failmode` (`ZPOOL_CONFIG_SUSPENDED`).
    pub(crate) suspended: Option<&'static str>,
    /// Index in `tree` of the first row of the special class's vdevs (`zpool status`
    /// prints them under `special`), if the pool has any.
    pub(crate) special_from: Option<usize>,
}

/// A stored snapshot: the tree as indices into `StatusLog::rows`.
struct Stored {
    t_ns: u64,
    state: &'static str,
    tree: Vec<u32>,
    spares: Value,
    scan: Value,
    errors: usize,
    rebuild: Value,
    aux: Option<(Vec<StatusRow>, Vec<StatusRow>)>,
    suspended: Option<&'static str>,
    special_from: Option<usize>,
}

#[derive(Default)]
pub(crate) struct StatusLog {
    rows: Vec<StatusRow>,
    ids: BTreeMap<StatusRow, u32>,
    snaps: Vec<Stored>,
}

impl StatusLog {
    pub(crate) fn is_empty(&self) -> bool {
        self.snaps.is_empty()
    }

    pub(crate) fn push(&mut self, snap: Snapshot) {
        let tree = snap.tree.into_iter().map(|r| self.intern(r)).collect();
        self.snaps.push(Stored {
            t_ns: snap.t_ns,
            state: snap.state,
            tree,
            spares: snap.spares,
            scan: snap.scan,
            errors: snap.errors,
            rebuild: snap.rebuild,
            aux: snap.aux,
            suspended: snap.suspended,
            special_from: snap.special_from,
        });
    }

    /// Replace the last snapshot (the run's end at the instant of its last sample).
    pub(crate) fn replace_last(&mut self, snap: Snapshot) {
        self.snaps.pop();
        self.push(snap);
    }

    fn intern(&mut self, row: StatusRow) -> u32 {
        if let Some(&id) = self.ids.get(&row) {
            return id;
        }
        let id = u32::try_from(self.rows.len()).expect("status rows fit in u32");
        self.rows.push(row.clone());
        self.ids.insert(row, id);
        id
    }
}

/// `status` of the results: `{"epoch_s", "snapshots"}`, or in the compact form
/// `{"epoch_s", "rows", "snapshots"}` with each tree as indices into `rows`.
pub(crate) struct StatusJson<'a> {
    pub(crate) log: &'a StatusLog,
    pub(crate) epoch_s: u64,
    pub(crate) compact: bool,
}

struct SnapJson<'a> {
    log: &'a StatusLog,
    snap: &'a Stored,
    compact: bool,
}

struct TreeJson<'a>(&'a StatusLog, &'a [u32]);

impl Serialize for TreeJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut q = s.serialize_seq(Some(self.1.len()))?;
        for &id in self.1 {
            q.serialize_element(&self.0.rows[id as usize])?;
        }
        q.end()
    }
}

impl Serialize for SnapJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let sn = self.snap;
        let mut m = s.serialize_map(None)?;
        if let Some((_, cache)) = &sn.aux {
            m.serialize_entry("cache", cache)?;
        }
        m.serialize_entry("errors", &sn.errors)?;
        if let Some((logs, _)) = &sn.aux {
            m.serialize_entry("logs", logs)?;
        }
        m.serialize_entry("rebuild", &sn.rebuild)?;
        m.serialize_entry("scan", &sn.scan)?;
        if let Some(k) = sn.special_from {
            m.serialize_entry("special_from", &k)?;
        }
        m.serialize_entry("spares", &sn.spares)?;
        m.serialize_entry("state", sn.state)?;
        if let Some(mode) = sn.suspended {
            m.serialize_entry("suspended", mode)?;
        }
        m.serialize_entry("t_ns", &sn.t_ns)?;
        if self.compact {
            m.serialize_entry("tree", &sn.tree)?;
        } else {
            m.serialize_entry("tree", &TreeJson(self.log, &sn.tree))?;
        }
        m.end()
    }
}

struct SnapsJson<'a>(&'a StatusJson<'a>);

impl Serialize for SnapsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let log = self.0.log;
        let mut q = s.serialize_seq(Some(log.snaps.len()))?;
        for snap in &log.snaps {
            q.serialize_element(&SnapJson { log, snap, compact: self.0.compact })?;
        }
        q.end()
    }
}

impl Serialize for StatusJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("epoch_s", &self.epoch_s)?;
        if self.compact {
            m.serialize_entry("rows", &self.log.rows)?;
        }
        m.serialize_entry("snapshots", &SnapsJson(self))?;
        m.end()
    }
}

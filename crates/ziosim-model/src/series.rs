//! Per-interval series of each leaf, kept as the columns the results carry.
//!
//! Theory of operation
//! -------------------
//! At every report interval the sampler hands each leaf's cumulative counters
//! (`LeafCounters::cumulative`) and its queue depths to `SeriesStore::push`, which appends
//! the interval's deltas — and the depths as they are — to one `Vec<u64>` per column,
//! shared by all leaves (interval-major). A leaf added mid-run (a replacement disk) widens
//! every column, with zeros for the intervals before it.
//!
//! Why columns of deltas: the results document carries exactly these numbers
//! (`series.leaves[i].<key>[k]`), so nothing is derived at the end. A run of 100 disks used
//! to keep every interval's whole counter struct and then build the series through a
//! `serde_json::Value` tree (32 bytes a number, several copies at once): hundreds of
//! kilobytes per interval, gigabytes for a long resilver. Now a number is 8 bytes, written
//! once; `LeafSeriesJson` streams the columns into the JSON document without a tree, and
//! the bindings hand each column to Python as one buffer, freeing it here
//! (`take_column`), so the core and Python never hold two copies of all of it.
//!
//! Invariants: every column of a leaf has one value per report interval taken so far; a
//! delta is `cumulative − cumulative at the previous sample` in u64 arithmetic, as the
//! results always computed it; the key order of `json_order` is the sorted order
//! `serde_json` gives an object, so the streamed document is byte for byte the old one.

use crate::io::{IoClass, NUM_CLASSES};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// Keys of the delta series taken from `LeafCounters::cumulative`, in its order; the
/// per-class operation counts (`class_ops`) follow them there.
pub const DELTA_KEYS: [&str; 28] = [
    "read_ops", "write_ops", "read_bytes", "write_bytes", "busy_ns",
    "read_total_wait_ns_sum", "write_total_wait_ns_sum", "read_disk_wait_ns_sum", "write_disk_wait_ns_sum",
    "syncq_read_wait_ns_sum", "syncq_write_wait_ns_sum", "asyncq_read_wait_ns_sum", "asyncq_write_wait_ns_sum",
    "scrub_wait_ns_sum", "trim_wait_ns_sum", "rebuild_wait_ns_sum",
    "read_total_wait_mid_ns_sum", "write_total_wait_mid_ns_sum", "read_disk_wait_mid_ns_sum",
    "write_disk_wait_mid_ns_sum", "syncq_read_wait_mid_ns_sum", "syncq_write_wait_mid_ns_sum",
    "asyncq_read_wait_mid_ns_sum", "asyncq_write_wait_mid_ns_sum", "scrub_wait_mid_ns_sum",
    "trim_wait_mid_ns_sum", "rebuild_wait_mid_ns_sum", "inflight_ns_integral",
];
/// Cumulative values per sample: the delta series, then `class_ops` per class.
pub const CUMULATIVE: usize = DELTA_KEYS.len() + NUM_CLASSES;
/// Per-class groups (an object of class → series each), with their first column.
const GROUPS: [(&str, usize); 3] =
    [("class_ops", DELTA_KEYS.len()), ("queued", CUMULATIVE), ("active", CUMULATIVE + NUM_CLASSES)];
/// Columns of a leaf: the cumulative deltas, then queued and active per class.
pub const COLUMNS: usize = CUMULATIVE + 2 * NUM_CLASSES;

/// One entry of a leaf's series object.
#[derive(Clone, Copy)]
enum Entry {
    Column(usize),
    /// A per-class group: its first column; class `c` is at `first + c.idx()`.
    Group(usize),
}

/// The leaf series object's keys in serialised (sorted) order.
fn json_order() -> Vec<(&'static str, Entry)> {
    let mut keys: Vec<(&str, Entry)> = DELTA_KEYS.iter().enumerate().map(|(c, k)| (*k, Entry::Column(c))).collect();
    keys.extend(GROUPS.iter().map(|(k, first)| (*k, Entry::Group(*first))));
    keys.sort_by_key(|(k, _)| *k);
    keys
}

/// The classes in serialised (sorted key) order.
fn classes_sorted() -> [IoClass; NUM_CLASSES] {
    let mut c = IoClass::ALL;
    c.sort_by_key(|c| c.key());
    c
}

/// Every column's name, in the order `LeafSeriesJson` writes them: a plain key, or
/// `group/class` for a per-class series. Column `column_names()[j].1` is the index for
/// `SeriesStore::column`.
pub fn column_names() -> Vec<(String, usize)> {
    let mut out = Vec::with_capacity(COLUMNS);
    for (key, entry) in json_order() {
        match entry {
            Entry::Column(c) => out.push((key.to_string(), c)),
            Entry::Group(first) => {
                out.extend(classes_sorted().iter().map(|cl| (format!("{key}/{}", cl.key()), first + cl.idx())))
            }
        }
    }
    out
}

/// Every leaf's series: one `Vec<u64>` per column, interval-major — the value of leaf `i`
/// at interval `k` is at `k * leaves + i`. A column is one large allocation: its unused
/// capacity is never touched (not resident), and freeing it gives the memory back at once.
pub(crate) struct SeriesStore {
    leaves: usize,
    /// Per leaf, the cumulative values at the last sample (zero before the first).
    prev: Vec<[u64; CUMULATIVE]>,
    cols: Vec<Vec<u64>>,
}

impl SeriesStore {
    pub(crate) fn new(leaves: usize) -> SeriesStore {
        SeriesStore { leaves, prev: vec![[0; CUMULATIVE]; leaves], cols: vec![Vec::new(); COLUMNS] }
    }

    /// Report intervals sampled so far.
    pub(crate) fn samples(&self) -> usize {
        self.cols[0].len().checked_div(self.leaves).unwrap_or(0)
    }

    /// A leaf added mid-run (a replacement disk): zeros for the intervals before it. Each
    /// column is laid out anew, one at a time (a few times a run at most).
    pub(crate) fn add_leaf(&mut self) {
        let (old, samples) = (self.leaves, self.samples());
        for col in &mut self.cols {
            let mut wider = Vec::with_capacity(col.capacity() / old.max(1) * (old + 1));
            for row in col.chunks_exact(old.max(1)).take(samples) {
                wider.extend_from_slice(row);
                wider.push(0);
            }
            *col = wider;
        }
        self.leaves += 1;
        self.prev.push([0; CUMULATIVE]);
    }

    /// Leaf `leaf`'s values of the interval being sampled: the deltas of `cumulative` since
    /// its last sample, and its queue depths. Leaves are pushed in order, every interval.
    pub(crate) fn push(&mut self, leaf: usize, cumulative: [u64; CUMULATIVE], depths: [(u32, u32); NUM_CLASSES]) {
        assert_eq!(self.cols[0].len() % self.leaves, leaf, "series pushed out of leaf order");
        for (j, (now, before)) in cumulative.iter().zip(&self.prev[leaf]).enumerate() {
            self.cols[j].push(now - before);
        }
        for (c, (queued, active)) in depths.iter().enumerate() {
            self.cols[CUMULATIVE + c].push(*queued as u64);
            self.cols[CUMULATIVE + NUM_CLASSES + c].push(*active as u64);
        }
        self.prev[leaf] = cumulative;
    }

    /// Leaves per interval in the columns (the stride of `column`).
    pub(crate) fn leaves(&self) -> usize {
        self.leaves
    }

    /// Column `c`, interval-major (`k * leaves() + i`).
    #[cfg(test)]
    pub(crate) fn column(&self, c: usize) -> &[u64] {
        &self.cols[c]
    }

    /// Column `c`, leaving it empty here (the bindings' hand-over).
    pub(crate) fn take_column(&mut self, c: usize) -> Vec<u64> {
        std::mem::take(&mut self.cols[c])
    }

    /// Leaf `leaf`'s entry of `series.leaves` in the results document, streamed.
    pub(crate) fn leaf_json(&self, leaf: usize) -> LeafSeriesJson<'_> {
        LeafSeriesJson { store: self, leaf }
    }
}

/// One leaf's series object, streamed from the store.
pub(crate) struct LeafSeriesJson<'a> {
    store: &'a SeriesStore,
    leaf: usize,
}

/// One leaf's values of a column.
struct Strided<'a>(&'a SeriesStore, usize, usize);

impl Serialize for Strided<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (store, c, leaf) = (self.0, self.1, self.2);
        s.collect_seq(store.cols[c].iter().skip(leaf).step_by(store.leaves.max(1)))
    }
}

struct GroupJson<'a>(&'a LeafSeriesJson<'a>, usize);

impl Serialize for GroupJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(NUM_CLASSES))?;
        for c in classes_sorted() {
            m.serialize_entry(c.key(), &Strided(self.0.store, self.1 + c.idx(), self.0.leaf))?;
        }
        m.end()
    }
}

impl Serialize for LeafSeriesJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let order = json_order();
        let mut m = s.serialize_map(Some(order.len()))?;
        for (key, entry) in order {
            match entry {
                Entry::Column(c) => m.serialize_entry(key, &Strided(self.store, c, self.leaf))?,
                Entry::Group(first) => m.serialize_entry(key, &GroupJson(self, first))?,
            }
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cover_every_column_once_in_sorted_order() {
        let names = column_names();
        assert_eq!(names.len(), COLUMNS);
        let mut idx: Vec<usize> = names.iter().map(|n| n.1).collect();
        idx.sort();
        assert_eq!(idx, (0..COLUMNS).collect::<Vec<_>>());
        // The groups' keys sort as serde_json's sorted objects do (`/` joins them here).
        let tops: Vec<&str> = json_order().iter().map(|e| e.0).collect();
        let mut sorted = tops.clone();
        sorted.sort();
        assert_eq!(tops, sorted);
    }

    #[test]
    fn pushes_deltas_and_depths_and_widens_for_a_new_leaf() {
        let mut s = SeriesStore::new(1);
        let mut cum = [0u64; CUMULATIVE];
        cum[0] = 5;
        cum[DELTA_KEYS.len()] = 3;
        s.push(0, cum, [(1, 2); NUM_CLASSES]);
        s.add_leaf();
        cum[0] = 12;
        s.push(0, cum, [(0, 0); NUM_CLASSES]);
        let mut other = [0u64; CUMULATIVE];
        other[0] = 4;
        s.push(1, other, [(0, 0); NUM_CLASSES]);
        assert_eq!((s.samples(), s.leaves()), (2, 2));
        assert_eq!(s.column(0), &[5, 0, 7, 4]);
        assert_eq!(s.column(DELTA_KEYS.len()), &[3, 0, 0, 0]);
        assert_eq!(s.column(CUMULATIVE), &[1, 0, 0, 0]);
        assert_eq!(s.column(CUMULATIVE + NUM_CLASSES), &[2, 0, 0, 0]);
        let json = serde_json::to_value(s.leaf_json(1)).unwrap();
        assert_eq!(json["read_ops"], serde_json::json!([0, 4]));
        assert_eq!(json["class_ops"]["sync_read"], serde_json::json!([0, 0]));
    }
}

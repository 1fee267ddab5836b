//! `dmu_zfetch`: the predictive prefetcher of each release (`spec/zfs-model.md` §7).
//!
//! Theory of operation
//! -------------------
//! ZFS keeps up to `zfetch_max_streams` streams per file (dnode). A read tells the
//! prefetcher which level-0 blocks it covers; an access that continues a stream advances
//! it and may read ahead (ASYNC_READ), one that continues none may start a stream. What
//! counts as "continues", how far ahead a stream reads and when an idle stream is
//! recycled changed four times (read at module/zfs/dmu_zfetch.c and its callers in dmu.c,
//! dbuf.c, zfs_vnops.c at zfs-0.6.5, 0.7.0, 0.8.0, 2.0.0, 2.1.0, 2.2.0, 2.3.0, and
//! illumos' usr/src/uts/common/fs/zfs/dmu_zfetch.c at 7cbf8b4321^, d3d50737e5 and
//! 69962b5647):
//!
//! | era | releases | a stream hit | how far ahead |
//! |---|---|---|---|
//! | `Capped` | solaris-2009 … zfs-0.6.5 | the block after the stream's window (one `dbuf_read` per block) | `zfetch_block_cap` blocks: the window grows to 256 blocks and is read ahead in bursts of its length, 256–511 blocks ahead (32–64 MiB at 128K); a demand miss inside a grown stream restarts it |
//! | `Rewrite` | zfs-0.7 | exactly the stream's next block; block 0 never starts a stream | the lead doubles from the access size per hit, up to `zfetch_max_distance` (8 MiB) |
//! | `Trim` | zfs-0.8, 2.0 | also an access that starts in the last block read (unaligned reads) | as 0.7 |
//! | `Gated` | zfs-2.1 | as 0.8; files of two blocks or fewer never, and an access reaching the file's last block ends its stream | as 0.7, but data is read ahead only once the stream has met a block not in memory, then all of the predicted window at once |
//! | `Bytes` | zfs-2.2, 2.3 | as 2.1 | doubling to `zfetch_min_distance` (4 MiB; not while the pool's prefetches in flight exceed `arc_c_max`/16), then +1/8 per hit only after the reader caught up with an unfinished prefetch, up to `zfetch_max_distance` (64 MiB) |
//!
//! Streams are recycled when idle: before 2.2 any stream idle for more than
//! `zfetch_min_sec_reap` whole seconds (so ≥ 3 s) is deleted when a new one is needed
//! (from 2.1 only one without prefetches in flight); from 2.2 one idle `zfetch_max_sec_reap`
//! (2 s) is reused, and at the cap the oldest idle `zfetch_min_sec_reap` (1 s). A file
//! holds at most MAX(1, MIN(`zfetch_max_streams`, its size / `zfetch_max_distance`))
//! streams (old era: its blocks / `zfetch_block_cap`).
//!
//! What is left out: indirect-block prefetch (the model reads no indirect blocks for
//! foreground reads); the old era's backward and strided ("colinear") streams; 2.3's
//! reordered-access tolerance (`zfetch_max_reorder`) and its rule ignoring accesses just
//! behind a stream (2.3 runs as 2.2 here); writes, which from 0.7 advance streams for
//! their indirect blocks; and lock contention, which made 0.7 skip creating a stream.
//!
//! The caller (`sim.rs`) splits a read as `zfs_read` does, into pieces that end at
//! 1 MiB file offsets, and calls [`Zfetch::access`] for each in order, telling it which
//! blocks were already in memory or in flight; it issues the reads `access` asks for and
//! records them with [`Zfetch::push`], and reports their completion with
//! [`Zfetch::done`]. Each stream keeps the records it prefetched (`window`), so a demand
//! read finds them ([`Zfetch::lookup`]); a stream releases its records once the reader
//! has passed them, or when the stream goes.

use std::collections::VecDeque;
use std::ops::Range;

use crate::release::Release;
use crate::tunables::{Tunables, T};

const S: u64 = 1_000_000_000;

/// The prefetcher's rules, by release (module table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Era {
    Capped,
    Rewrite,
    Trim,
    Gated,
    Bytes,
}

impl Era {
    pub(crate) fn of(r: Release) -> Era {
        match r {
            r if r >= Release::Zfs22 => Era::Bytes,
            Release::Zfs21 => Era::Gated,
            Release::Zfs08 | Release::Zfs20 => Era::Trim,
            Release::Zfs07 => Era::Rewrite,
            _ => Era::Capped,
        }
    }
}

/// The prefetcher's parameters for one run.
#[derive(Clone, Debug)]
pub(crate) struct Params {
    pub era: Era,
    /// Before September 2009 (onnv 7cbf8b4321) an access inside a stream's window was a
    /// hit whether or not the block had been prefetched: solaris-2009.
    pub window_hit_any: bool,
    pub max_streams: u64,
    pub min_reap_ns: u64,
    pub max_reap_ns: u64,
    pub block_cap: u64,
    pub max_dist: u64,
    pub min_dist: u64,
    /// log2 of the record size.
    pub dbs: u32,
    /// 2.2+: doubling stops while the pool's prefetch blocks in flight reach this
    /// (`arc_c_max >> (4 + dbs)`).
    pub io_cap: u64,
}

impl Params {
    pub(crate) fn new(r: Release, t: &Tunables, recordsize: u64, ram: u64) -> Params {
        let dbs = recordsize.max(1).trailing_zeros();
        let get = |k: T, d: i64| t.try_get(k).unwrap_or(d).max(0) as u64;
        Params {
            era: Era::of(r),
            window_hit_any: r == Release::Solaris2009,
            max_streams: get(T::zfetch_max_streams, 8),
            min_reap_ns: get(T::zfetch_min_sec_reap, 2) * S,
            max_reap_ns: get(T::zfetch_max_sec_reap, 2) * S,
            block_cap: get(T::zfetch_block_cap, 256),
            max_dist: get(T::zfetch_max_distance, 8 << 20),
            min_dist: get(T::zfetch_min_distance, 4 << 20),
            dbs,
            io_cap: r.arc_c_max(ram) >> (4 + dbs),
        }
    }
}

/// One stream. Block numbers are the file's (0 = its first record).
pub(crate) struct Stream {
    /// Unique among the run's streams: a completed prefetch finds its stream by it.
    gen: u64,
    /// 0.7+: the next block expected (`zs_blkid`).
    blkid: u64,
    /// 0.7+: the end of the predicted window (`zs_pf_blkid`, 2.2 `zs_pf_end`).
    pf: u64,
    /// 2.1+: the first predicted block not yet read (`zs_pf_blkid1`, 2.2 `zs_pf_start`).
    pf1: u64,
    /// 2.2+: the distance, bytes (`zs_pf_dist`).
    dist: u64,
    /// 2.1+: the stream has met a block not in memory (`zs_missed`, sticky).
    missed: bool,
    /// 2.2+: a prefetch finished after the reader had passed its block (`zs_more`).
    more: bool,
    atime: u64,
    /// Old era: the window of accessed blocks [`off`, `off + len`), the prefetch head
    /// `ph` and the growing cap (`zst_offset`, `zst_len`, `zst_ph_offset`, `zst_cap`).
    off: u64,
    len: u64,
    ph: u64,
    cap: u64,
    /// Prefetches of this stream not yet completed (`zs_refs` beyond the list's).
    inflight: u32,
    /// The records this stream prefetched and the reader has not passed: (pool-wide
    /// record number, prefetch slot), ascending.
    window: VecDeque<(u64, u32)>,
}

impl Stream {
    fn new(gen: u64, blkid: u64, now: u64) -> Stream {
        Stream {
            gen,
            blkid,
            pf: blkid,
            pf1: blkid,
            dist: 0,
            missed: false,
            more: false,
            atime: now,
            off: blkid,
            len: 1,
            ph: blkid + 1,
            cap: 1,
            inflight: 0,
            window: VecDeque::new(),
        }
    }
}

/// A file's streams (list head first) and where its records are in the pool's numbering.
pub(crate) struct FileZf {
    /// Pool-wide record number of the file's block 0.
    base: u64,
    /// The file's last block (`dn_maxblkid`).
    maxblkid: u64,
    streams: Vec<Stream>,
}

/// Reads a stream of the accessed file asks for: blocks `blocks` (pool-wide record
/// numbers) for stream `gen`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fetch {
    pub gen: u64,
    pub blocks: Range<u64>,
}

/// The prefetcher of one workload: its files' streams.
pub(crate) struct Zfetch {
    p: Params,
    files: Vec<FileZf>,
    next_gen: u64,
    /// Records held in all the streams' windows (`lookup` has nothing to find at 0).
    windowed: u64,
    /// Records a read found prefetched (read or in flight).
    pub hits: u64,
    /// In-flight prefetches a demand read raised to SYNC_READ (0.8+).
    pub promoted: u64,
}

impl Zfetch {
    /// `files`: each file's first record (pool-wide number) and its number of records.
    pub(crate) fn new(p: Params, files: &[(u64, u64)]) -> Zfetch {
        let files = files.iter().map(|&(base, n)| FileZf { base, maxblkid: n.saturating_sub(1), streams: Vec::new() }).collect();
        Zfetch { p, files, next_gen: 0, windowed: 0, hits: 0, promoted: 0 }
    }

    /// Whether a record being read counts as in memory for this release's prefetcher:
    /// before 2.1 (`ARC_FLAG_CACHED` on an in-flight header, `dbuf_read`'s `prefetched`);
    /// from 2.1 `missed` asks whether the dbuf was `DB_CACHED` after `dbuf_read`
    /// (dmu.c@zfs-2.1.0:574), which a block still being read is not.
    pub(crate) fn in_flight_is_cached(&self) -> bool {
        self.p.era < Era::Gated
    }

    /// Before 2.2 a DMU access over `zfetch_array_rd_sz` (1 MiB) is not prefetched for
    /// (dmu.c@zfs-0.6.5:400, @zfs-0.7.0:509, @zfs-2.1.0:542).
    pub(crate) fn max_access_bytes(&self) -> u64 {
        if self.p.era < Era::Bytes { 1 << 20 } else { u64::MAX }
    }

    /// The file's first record (pool-wide number).
    pub(crate) fn base(&self, file: u32) -> u64 {
        self.files.get(file as usize).map_or(0, |f| f.base)
    }

    /// The prefetch slot holding pool-wide record `b` of `file`, if a stream prefetched it.
    pub(crate) fn lookup(&self, file: u32, b: u64) -> Option<u32> {
        if self.windowed == 0 {
            return None;
        }
        let f = self.files.get(file as usize)?;
        f.streams.iter().find_map(|s| s.window.binary_search_by_key(&b, |&(r, _)| r).ok().map(|i| s.window[i].1))
    }

    /// A prefetch read of record `b` for stream `gen` of `file` was issued in `slot`: false
    /// if that stream is gone (nobody will look the record up; free it once read).
    pub(crate) fn push(&mut self, file: u32, gen: u64, b: u64, slot: u32) -> bool {
        let Some(s) = self.stream_mut(file, gen) else { return false };
        debug_assert!(s.window.back().is_none_or(|&(r, _)| r < b), "prefetch window out of order");
        s.window.push_back((b, slot));
        s.inflight += 1;
        self.windowed += 1;
        true
    }

    /// A prefetch of record `b` for stream `gen` of `file` completed (its last leaf read).
    /// 2.2+: one the reader had already passed marks its stream as falling behind
    /// (`dmu_zfetch_done`).
    pub(crate) fn done(&mut self, file: u32, gen: u64, b: u64) {
        let base = self.base(file);
        if let Some(s) = self.stream_mut(file, gen) {
            s.inflight = s.inflight.saturating_sub(1);
            if b - base < s.blkid {
                s.more = true;
            }
        }
    }

    fn stream_mut(&mut self, file: u32, gen: u64) -> Option<&mut Stream> {
        self.files.get_mut(file as usize)?.streams.iter_mut().find(|s| s.gen == gen)
    }

    /// A read of `cached.len()` records of `file` from pool-wide record `first` — a piece
    /// no larger than `zfs_read`'s 1 MiB chunk — at `now`; `cached[i]`: record `first + i`
    /// counts as in memory (`in_flight_is_cached`). `io_active`: the pool's prefetch
    /// records in flight. Appends the reads to issue to `out`, which holds those of this
    /// read's earlier pieces (old era: a block one of them asked for is in flight by its
    /// turn), and the slots streams let go of to `released`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn access(&mut self, file: u32, first: u64, cached: &[bool], now: u64, io_active: u64, out: &mut Vec<Fetch>, released: &mut Vec<u32>) {
        let Some(f) = self.files.get_mut(file as usize) else { return };
        if cached.is_empty() || first < f.base {
            return;
        }
        let blkid = first - f.base;
        let p = &self.p;
        let gen = &mut self.next_gen;
        let before = released.len();
        if p.era == Era::Capped {
            // Block by block, as `dbuf_read` calls it: a block an earlier step of this
            // read prefetched is in flight by its turn (`ARC_FLAG_CACHED`).
            for (i, &c) in cached.iter().enumerate() {
                let b = blkid + i as u64;
                let c = c || out.iter().any(|x| x.blocks.contains(&(f.base + b)));
                if let Some((g, r)) = old_access(p, f, b, c, now, gen, released) {
                    out.push(Fetch { gen: g, blocks: f.base + r.start..f.base + r.end });
                }
            }
        } else {
            let missed = cached.iter().any(|&c| !c);
            if let Some((g, r)) = new_access(p, f, blkid, cached.len() as u64, missed, now, io_active, gen, released) {
                out.push(Fetch { gen: g, blocks: f.base + r.start..f.base + r.end });
            }
        }
        self.windowed -= (released.len() - before) as u64;
    }
}

/// Let go of every record of `s` (it is deleted or reused).
fn release_all(s: &mut Stream, released: &mut Vec<u32>) {
    released.extend(s.window.drain(..).map(|(_, slot)| slot));
}

/// Let go of the records of `s` before pool-wide record `upto` (the reader passed them).
fn release_below(s: &mut Stream, upto: u64, released: &mut Vec<u32>) {
    while let Some(&(b, slot)) = s.window.front() {
        if b >= upto {
            break;
        }
        s.window.pop_front();
        released.push(slot);
    }
}

fn new_gen(gen: &mut u64) -> u64 {
    let g = *gen;
    *gen = gen.wrapping_add(1);
    g
}

/// The old zfetch (solaris-2009 … zfs-0.6.5; `dmu_zfetch`, `dmu_zfetch_find`,
/// `dmu_zfetch_dofetch`, `dmu_zfetch_stream_reclaim` at zfs-0.6.5 and illumos): one
/// `dbuf_read` of block `b`, `prefetched` if it was in memory or in flight. Forward
/// streams only. Returns the blocks (the file's numbering) to prefetch and the stream.
fn old_access(p: &Params, f: &mut FileZf, b: u64, prefetched: bool, now: u64, gen: &mut u64, released: &mut Vec<u32>) -> Option<(u64, Range<u64>)> {
    let mut reset = None;
    for (i, s) in f.streams.iter_mut().enumerate() {
        if s.len == 0 {
            continue;
        }
        if s.off <= b && b < s.off + s.len {
            if prefetched || p.window_hit_any {
                return None;
            }
            continue;
        }
        if b == s.off + s.len {
            if !prefetched && s.len > 1 {
                // A demand miss in a grown stream: it is dropped and one starts here.
                reset = Some(i);
                break;
            }
            s.len += 1;
            if s.len > p.block_cap {
                s.off += s.len - p.block_cap;
                s.len = p.block_cap;
            }
            // The reader may still be inside block `b` (a read smaller than a record).
            release_below(s, f.base + b, released);
            // dmu_zfetch_dofetch: read ahead in pieces of the window's length up to
            // `cap` blocks past it.
            s.cap = (2 * s.cap).min(p.block_cap);
            let tail = s.ph.max(s.off + s.len);
            let limit = s.off + s.len + s.cap;
            let mut end = tail;
            while end < limit {
                end += s.len;
            }
            s.ph = end;
            s.atime = now;
            let end = end.min(f.maxblkid + 1);
            return (tail < end).then(|| (s.gen, tail..end));
        }
    }
    if let Some(i) = reset {
        let mut s = f.streams.remove(i);
        release_all(&mut s, released);
    }
    // A new stream: reuse the first idle more than `zfetch_min_sec_reap` whole seconds.
    let idle = |s: &Stream| (now - s.atime) / S > p.min_reap_ns / S;
    if let Some(i) = f.streams.iter().position(idle) {
        let mut old = f.streams.remove(i);
        release_all(&mut old, released);
    } else {
        let max = p.max_streams.min(f.maxblkid / p.block_cap.max(1)).max(1);
        if f.streams.len() as u64 >= max {
            return None;
        }
    }
    f.streams.insert(0, Stream::new(new_gen(gen), b, now));
    None
}

/// 0.7+ (`dmu_zfetch` at 0.7.0/0.8.0/2.0.0, `dmu_zfetch_prepare`/`_run` at 2.1.0/2.2.0):
/// an access of `nblks` blocks from `blkid`; `missed`: one of them was not in memory.
#[allow(clippy::too_many_arguments)]
fn new_access(p: &Params, f: &mut FileZf, mut blkid: u64, mut nblks: u64, missed: bool, now: u64, io_active: u64, gen: &mut u64, released: &mut Vec<u32>) -> Option<(u64, Range<u64>)> {
    // 0.7 and 0.8/2.0 ignore block 0 (`dmu_zfetch` returns); 2.1+ track it on the
    // `dmu_buf_hold_array` path and skip files of two blocks or fewer.
    if p.era <= Era::Trim && blkid == 0 {
        return None;
    }
    if p.era >= Era::Gated && f.maxblkid < 2 {
        return None;
    }
    let end = blkid + nblks;
    // The first stream in the list the access continues: at its next block, or from 0.8
    // (illumos 8835) in the last block read, which is then trimmed off the access.
    let found = f.streams.iter().position(|s| s.blkid == blkid || (p.era >= Era::Trim && s.blkid == blkid + 1));
    if let Some(i) = found.filter(|&i| f.streams[i].blkid == blkid + 1) {
        debug_assert!(f.streams[i].blkid != blkid);
        blkid += 1;
        nblks -= 1;
    }
    if p.era >= Era::Gated && end >= f.maxblkid {
        // Reaching the end of the file ends the stream, with nothing read ahead.
        if let Some(i) = found {
            let mut s = f.streams.remove(i);
            release_all(&mut s, released);
        }
        return None;
    }
    if nblks == 0 {
        return None;
    }
    let Some(i) = found else {
        create(p, f, end, now, gen, released);
        return None;
    };
    let dbs = p.dbs;
    let base = f.base;
    let maxblkid = f.maxblkid;
    let s = &mut f.streams[i];
    let range = if p.era == Era::Bytes {
        let nbytes = nblks << dbs;
        if s.dist < nbytes {
            s.dist = nbytes;
        } else if s.dist < p.min_dist && (s.dist < 1 << dbs || io_active < p.io_cap) {
            s.dist *= 2;
        } else if s.more {
            s.dist += s.dist / 8;
        }
        s.more = false;
        s.dist = s.dist.min(p.max_dist);
        let pf_n = s.dist >> dbs;
        s.pf = s.pf.max(end + pf_n);
        gated_run(s, end, missed)
    } else {
        let pf_start = s.pf.max(end);
        let dist = p.max_dist >> dbs;
        let pf_n = (s.pf.saturating_sub(blkid) + nblks).min(dist.saturating_sub(pf_start - end));
        s.pf = pf_start + pf_n;
        if p.era == Era::Gated {
            gated_run(s, end, missed)
        } else {
            pf_start..s.pf
        }
    };
    s.blkid = end;
    s.atime = now;
    // The reader may still be inside the last block (a read smaller than a record).
    release_below(s, base + end - 1, released);
    // `dbuf_prefetch` reads nothing past the file's last block.
    let r = range.start.min(maxblkid + 1)..range.end.min(maxblkid + 1);
    (!r.is_empty()).then(|| (s.gen, r))
}

/// 2.1+'s `dmu_zfetch_run` for an access ending at `end`: the predicted blocks not yet
/// read, once the stream has met a block not in memory (`zs_missed` is sticky); none before.
fn gated_run(s: &mut Stream, end: u64, missed: bool) -> Range<u64> {
    s.pf1 = s.pf1.max(end);
    s.missed |= missed;
    if !s.missed {
        return end..end;
    }
    let r = s.pf1..s.pf;
    s.pf1 = s.pf;
    r
}

/// A new stream expecting block `blkid` (`dmu_zfetch_stream_create`), if the file may
/// have another.
fn create(p: &Params, f: &mut FileZf, blkid: u64, now: u64, gen: &mut u64, released: &mut Vec<u32>) {
    let max = p.max_streams.min((f.maxblkid << p.dbs) / p.max_dist.max(1)).max(1);
    if p.era == Era::Bytes {
        // Reuse a stream idle `zfetch_max_sec_reap` (the first; the others go), else at
        // the cap the oldest idle `zfetch_min_sec_reap`. A new stream is born "idle"
        // `zfetch_min_sec_reap` so that it can be reused before its first hit.
        let born = |gen: &mut u64| Stream { atime: now.saturating_sub(p.min_reap_ns), ..Stream::new(new_gen(gen), blkid, now) };
        let stale = |s: &Stream| s.inflight == 0 && s.atime + p.max_reap_ns <= now;
        let mut reuse = None;
        let mut i = 0;
        while i < f.streams.len() {
            if stale(&f.streams[i]) {
                if reuse.is_none() {
                    reuse = Some(i);
                    i += 1;
                } else {
                    let mut s = f.streams.remove(i);
                    release_all(&mut s, released);
                }
            } else {
                i += 1;
            }
        }
        if reuse.is_none() && f.streams.len() as u64 >= max {
            reuse = f
                .streams
                .iter()
                .enumerate()
                .filter(|(_, s)| s.inflight == 0 && s.atime + p.min_reap_ns <= now)
                .min_by_key(|(_, s)| s.atime)
                .map(|(i, _)| i);
            if reuse.is_none() {
                return;
            }
        }
        match reuse {
            Some(i) => {
                release_all(&mut f.streams[i], released);
                f.streams[i] = born(gen);
            }
            None => f.streams.insert(0, born(gen)),
        }
        return;
    }
    // Before 2.2: delete every stream idle more than `zfetch_min_sec_reap` whole seconds
    // (2.1: only those with no prefetch in flight), then add one if under the cap.
    let mut i = 0;
    while i < f.streams.len() {
        let s = &f.streams[i];
        if (now - s.atime) / S > p.min_reap_ns / S && (p.era < Era::Gated || s.inflight == 0) {
            let mut s = f.streams.remove(i);
            release_all(&mut s, released);
        } else {
            i += 1;
        }
    }
    if (f.streams.len() as u64) < max {
        f.streams.insert(0, Stream::new(new_gen(gen), blkid, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn params(r: Release) -> Params {
        let t = Tunables::defaults(r, 16 << 30);
        Params::new(r, &t, 128 << 10, 16 << 30)
    }

    /// A reader of one 128K block at a time from `start`, every block missing from memory
    /// unless prefetched: per access, the blocks read ahead.
    fn ramp(r: Release, start: u64, accesses: u64) -> Vec<u64> {
        let mut z = Zfetch::new(params(r), &[(0, 1 << 20)]);
        let mut held = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        let mut per = Vec::new();
        for b in start..start + accesses {
            out.clear();
            let mut rel = Vec::new();
            z.access(0, b, &[held.contains(&b)], b * 1_000_000, 0, &mut out, &mut rel);
            let mut n = 0;
            for f in &out {
                for x in f.blocks.clone() {
                    held.insert(x);
                    z.push(0, f.gen, x, x as u32);
                    n += 1;
                }
            }
            per.push(n);
        }
        per
    }

    #[test]
    fn the_old_zfetch_ramps_in_bursts_of_its_window_up_to_256_blocks() {
        // zfs-0.6.5 dmu_zfetch_find/dofetch on 1-block accesses of a cold file: nothing
        // at the first access (a stream is made), then 2, 3, 8, 10, 18, 28, 72, 126 blocks.
        let v = ramp(Release::Zfs065, 5, 9);
        assert_eq!(v, vec![0, 2, 3, 8, 10, 18, 28, 72, 126]);
        // Steady state: bursts of 256 blocks once per 256 blocks read.
        let v = ramp(Release::Zfs065, 5, 3000);
        let tail = &v[2000..];
        assert!(tail.iter().all(|&n| n == 0 || n == 256), "{:?}", &tail[..40]);
        let bursts = tail.iter().filter(|&&n| n == 256).count();
        assert!(bursts == 3 || bursts == 4, "{bursts} bursts in 1000 blocks");
    }

    /// A reader of `n`-block pieces; per access, whether all its blocks were prefetched.
    fn pieces(r: Release, n: u64, accesses: u64) -> Vec<bool> {
        let mut z = Zfetch::new(params(r), &[(0, 1 << 20)]);
        let mut held = std::collections::BTreeSet::new();
        let (mut out, mut rel) = (Vec::new(), Vec::new());
        let mut v = Vec::new();
        for k in 0..accesses {
            let b0 = 1 + k * n;
            let cached: Vec<bool> = (b0..b0 + n).map(|b| held.contains(&b)).collect();
            v.push(cached.iter().all(|&c| c));
            out.clear();
            z.access(0, b0, &cached, 0, 0, &mut out, &mut rel);
            for f in &out {
                for x in f.blocks.clone() {
                    if x >= b0 + n && held.insert(x) {
                        z.push(0, f.gen, x, x as u32);
                    }
                }
            }
        }
        v
    }

    #[test]
    fn one_mib_reads_stay_ahead_of_the_reader_in_every_era() {
        for r in [Release::Zfs065, Release::Zfs07, Release::Zfs08, Release::Zfs21, Release::Zfs22] {
            let v = pieces(r, 8, 400);
            assert!(v[10..].iter().all(|&c| c), "{r:?}: {:?}", &v[..20]);
        }
    }

    #[test]
    fn from_0_7_the_lead_doubles_to_zfetch_max_distance() {
        // 0.7: the first access makes the stream, then 1, 2, 3, 5, 9, 17, 33 (the lead
        // doubling to 64 blocks = 8 MiB), then one block per access.
        let v = ramp(Release::Zfs07, 5, 12);
        assert_eq!(v, vec![0, 1, 2, 3, 5, 9, 17, 33, 1, 1, 1, 1]);
        // Block 0 is ignored before 2.1: the stream starts at block 1.
        assert_eq!(ramp(Release::Zfs08, 0, 3), vec![0, 0, 1]);
        // 2.1 tracks block 0 but reads ahead only after a miss: every access here missed.
        assert_eq!(ramp(Release::Zfs21, 0, 4), vec![0, 1, 2, 3]);
    }

    #[test]
    fn zfs_2_2_doubles_to_4_mib_then_grows_only_when_the_reader_catches_up() {
        let v = ramp(Release::Zfs22, 5, 12);
        // 1, 2, 4, 8, 16, 32 blocks of lead (32 × 128K = 4 MiB), then one block per access.
        assert_eq!(v, vec![0, 1, 2, 3, 5, 9, 17, 1, 1, 1, 1, 1]);
        let p = params(Release::Zfs22);
        assert_eq!((p.min_dist, p.max_dist), (4 * MIB, 64 * MIB));
        // A prefetch finishing after the reader passed its block lets the next hit grow the
        // distance by an eighth.
        let mut z = Zfetch::new(p, &[(0, 1 << 20)]);
        let (mut out, mut rel) = (Vec::new(), Vec::new());
        for b in 1..=8 {
            out.clear();
            z.access(0, b, &[false], 0, 0, &mut out, &mut rel);
        }
        let gen = out[0].gen;
        z.done(0, gen, 3);
        out.clear();
        z.access(0, 9, &[true], 0, 0, &mut out, &mut rel);
        assert_eq!(out[0].blocks.end - out[0].blocks.start, 1 + 4, "32 + 32/8 blocks of lead");
    }

    #[test]
    fn streams_per_file_are_capped_and_idle_ones_recycled() {
        // 0.8: a file whose last block starts at 16 MiB holds MAX(1, MIN(8, maxblkid ×
        // 128K / 8 MiB)) = 2 streams.
        let mut z = Zfetch::new(params(Release::Zfs08), &[(0, 129)]);
        let (mut out, mut rel) = (Vec::new(), Vec::new());
        for (t, b) in [(0, 10), (0, 40), (0, 70)] {
            z.access(0, b, &[false], t, 0, &mut out, &mut rel);
        }
        assert_eq!(z.files[0].streams.len(), 2);
        // Idle 3 s (more than zfetch_min_sec_reap = 2 whole seconds): deleted for a new one.
        z.access(0, 90, &[false], 3 * S, 0, &mut out, &mut rel);
        assert_eq!(z.files[0].streams.len(), 1);
        assert_eq!(z.files[0].streams[0].blkid, 91);
    }

    #[test]
    fn zfs_2_1_ends_a_stream_at_the_file_end_and_skips_tiny_files() {
        let mut z = Zfetch::new(params(Release::Zfs21), &[(0, 64), (100, 2)]);
        let (mut out, mut rel) = (Vec::new(), Vec::new());
        for b in 0..63 {
            z.access(0, b, &[false], 0, 0, &mut out, &mut rel);
        }
        assert!(out.iter().all(|f| f.blocks.end <= 64), "{out:?}");
        assert!(z.files[0].streams.is_empty(), "the access reaching block 63 ended the stream");
        out.clear();
        z.access(1, 100, &[false], 0, 0, &mut out, &mut rel);
        z.access(1, 101, &[false], 0, 0, &mut out, &mut rel);
        assert!(out.is_empty() && z.files[1].streams.is_empty());
    }

    #[test]
    fn a_stream_lets_go_of_the_records_the_reader_passed() {
        let mut z = Zfetch::new(params(Release::Zfs08), &[(1000, 1 << 20)]);
        let (mut out, mut rel) = (Vec::new(), Vec::new());
        for b in 1001..1010 {
            out.clear();
            z.access(0, b, &[false], 0, 0, &mut out, &mut rel);
            for f in &out {
                for x in f.blocks.clone() {
                    z.push(0, f.gen, x, x as u32);
                }
            }
        }
        assert_eq!(z.lookup(0, 1008), None, "read, and passed");
        assert_eq!(z.lookup(0, 1009), Some(1009), "the reader may still be inside the block it read last");
        assert_eq!(z.lookup(0, 1010), Some(1010));
        assert!(rel.contains(&1003) && !rel.contains(&1009));
    }
}

//! Pool geometry: how a block on a top-level vdev becomes leaf I/Os.
//!
//! Theory of operation
//! -------------------
//! A pool is a list of top-level vdevs (single disk, mirror, raidz1/2/3), each over leaves
//! indexed globally. A block lives at an offset in its top-level vdev's allocatable space
//! ("asize space"). For a mirror or a disk that offset is the leaf offset. For raidz it is
//! interleaved over the children sector by sector: sector `b` sits on child `b % dcols` at
//! child sector `b / dcols`, and a block's columns start at child `b % dcols` and wrap —
//! `vdev_raidz_map_alloc` (module/zfs/vdev_raidz.c, RZ@zfs-2.1.0). Column sizes, parity
//! and skip (padding) sectors follow `spec/zfs-model.md` §5.5:
//!
//! ```text
//! s = psize/2^ashift; D = dcols − nparity; q = s div D; r = s mod D
//! bc = r ? r + nparity : 0          columns c < bc carry q+1 sectors, others q
//! asize = roundup(s + nparity·ceil(s/D), nparity+1) · 2^ashift
//! ```
//!
//! A normal read touches only the data columns; a write touches every column, and the skip
//! sectors that round the allocation up to a multiple of nparity+1 are written as
//! OPTIONAL I/Os that aggregation may fold in (§2.7). Mirror reads go to one child chosen
//! by load plus a seek penalty (`vdev_mirror_child_select`, MR@zfs-2.1.0, §2.8).

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VdevType {
    Disk,
    Mirror,
    Raidz1,
    Raidz2,
    Raidz3,
    /// dRAID (zfs-2.1+): the geometry is the top-level vdev's `draid` (`crate::draid`).
    Draid1,
    Draid2,
    Draid3,
}

impl VdevType {
    pub fn nparity(self) -> u32 {
        match self {
            VdevType::Raidz1 => 1,
            VdevType::Raidz2 => 2,
            VdevType::Raidz3 | VdevType::Draid3 => 3,
            VdevType::Draid1 => 1,
            VdevType::Draid2 => 2,
            _ => 0,
        }
    }
    /// A parity vdev (raidz or dRAID): columns on the children, `nparity` of them may be lost.
    pub fn is_raidz(self) -> bool {
        self.nparity() > 0
    }
    pub fn is_draid(self) -> bool {
        matches!(self, VdevType::Draid1 | VdevType::Draid2 | VdevType::Draid3)
    }
    /// Fewest children the type allows (`zpool create` rules).
    pub fn min_children(self) -> usize {
        match self {
            VdevType::Disk => 1,
            VdevType::Mirror => 2,
            VdevType::Raidz1 => 2,
            VdevType::Raidz2 => 3,
            VdevType::Raidz3 => 4,
            VdevType::Draid1 => 2,
            VdevType::Draid2 => 3,
            VdevType::Draid3 => 4,
        }
    }
    /// Name prefix as `zpool status` prints it (`raidz2-0`, `mirror-1`).
    pub fn label(self) -> &'static str {
        match self {
            VdevType::Disk => "disk",
            VdevType::Mirror => "mirror",
            VdevType::Raidz1 => "raidz1",
            VdevType::Raidz2 => "raidz2",
            VdevType::Raidz3 => "raidz3",
            VdevType::Draid1 => "draid1",
            VdevType::Draid2 => "draid2",
            VdevType::Draid3 => "draid3",
        }
    }
}

/// One column of a raidz map: a contiguous run of sectors on one child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// Child index within the vdev (0..dcols).
    pub child: u32,
    /// Byte offset on the child.
    pub offset: u64,
    pub size: u64,
    pub parity: bool,
    /// Skip (padding) sector: written only, optional.
    pub skip: bool,
    /// Row of the map (dRAID: a block across a group end has two, each with its own
    /// parity; raidz: always 0).
    pub row: u8,
}

/// Allocated size of a block of `psize` bytes on a raidz vdev (`vdev_raidz_asize`).
pub fn raidz_asize(psize: u64, ashift: u32, dcols: u32, nparity: u32) -> u64 {
    let s = psize.div_ceil(1 << ashift);
    let d = (dcols - nparity) as u64;
    let np = nparity as u64;
    let tot = s + np * s.div_ceil(d);
    tot.div_ceil(np + 1) * (np + 1) << ashift
}

/// The raidz map of a block at vdev `offset` with `psize` bytes: parity columns first, then
/// data columns, then skip sectors. Pushes into `out` (cleared first).
pub fn raidz_map(offset: u64, psize: u64, ashift: u32, dcols: u32, nparity: u32, out: &mut Vec<Column>) {
    out.clear();
    let unit = 1u64 << ashift;
    let b = offset >> ashift;
    let s = psize.div_ceil(unit);
    let dc = dcols as u64;
    let d = dc - nparity as u64;
    let f = b % dc;
    let o = (b / dc) << ashift;
    let q = s / d;
    let r = s - q * d;
    let bc = if r == 0 { 0 } else { r + nparity as u64 };
    let tot = s + nparity as u64 * (q + u64::from(r != 0));
    let acols = if q == 0 { bc } else { dc };
    // Columns bc..scols exist with no data when q == 0: they only position skip sectors.
    let scols = if q == 0 { dc.min(bc.div_ceil(nparity as u64 + 1) * (nparity as u64 + 1)) } else { dc };
    let skip = tot.div_ceil(nparity as u64 + 1) * (nparity as u64 + 1) - tot;
    let place = |c: u64| -> (u32, u64) {
        let col = f + c;
        if col >= dc {
            ((col - dc) as u32, o + unit)
        } else {
            (col as u32, o)
        }
    };
    for c in 0..acols {
        let (child, coff) = place(c);
        let sectors = if c < bc { q + 1 } else { q };
        out.push(Column { child, offset: coff, size: sectors * unit, parity: c < nparity as u64, skip: false, row: 0 });
    }
    // raidz1 only: swap the parity column with the first data column in every other MiB
    // of vdev space, so that parity (never read normally) does not sit on the same child
    // for every full-width block (vdev_raidz_map_alloc, "switch the parity every 1MB").
    let mut skip_start = bc;
    if nparity == 1 && out.len() >= 2 && offset & (1 << 20) != 0 {
        let (a, b) = (out[0], out[1]);
        out[0] = Column { child: b.child, offset: b.offset, ..a };
        out[1] = Column { child: a.child, offset: a.offset, ..b };
        // Sizes stay with their logical columns; ZFS swaps only device and offset, and
        // then never starts padding in the (now data) zeroth column.
        if skip_start == 0 {
            skip_start = 1;
        }
    }
    // Skip sectors: one per column from column `bc` on, right after that column's data
    // (`rm_skipstart`, vdev_raidz_io_start write path).
    // They wrap to column 0 at scols (only possible when scols == dcols, where column 0's
    // next sector is also the next sector in asize space).
    for k in 0..skip {
        let c = if skip_start + k >= scols { skip_start + k - scols } else { skip_start + k };
        // A real column (possibly swapped above) ends where its data ends; a column past
        // acols holds no data and only positions the sector.
        let (child, end) = if c < acols {
            let col = out[c as usize];
            (col.child, col.offset + col.size)
        } else {
            place(c)
        };
        out.push(Column { child, offset: end, size: unit, parity: false, skip: true, row: 0 });
    }
}

/// A top-level vdev.
#[derive(Clone, Debug)]
pub struct TopVdev {
    pub name: String,
    pub kind: VdevType,
    /// Global leaf indices of the children.
    pub leaves: Vec<u16>,
    pub ashift: u32,
    /// Bytes of allocatable space (raw, parity included, as `zpool list` counts raidz).
    pub size_bytes: u64,
    /// dRAID geometry (None for other types).
    pub draid: Option<std::sync::Arc<crate::draid::Draid>>,
    /// A vdev of the special allocation class (`zpool add POOL special …`, 0.8+).
    pub special: bool,
}

impl TopVdev {
    /// A raidz vdev: variable-width columns whose first child is the block's sector mod the
    /// width (not dRAID, whose stripes are whole and permuted).
    pub fn has_raidz_columns(&self) -> bool {
        self.kind.is_raidz() && self.draid.is_none()
    }

    /// The columns of a block at `offset` (parity first): raidz's map, or dRAID's
    /// (`full`: every column at its stripe size, as writes and scans move it).
    pub fn map(&self, offset: u64, psize: u64, full: bool, out: &mut Vec<Column>) {
        match &self.draid {
            Some(d) => d.map(offset, psize, full, out),
            None => raidz_map(offset, psize, self.ashift, self.leaves.len() as u32, self.kind.nparity(), out),
        }
    }
    /// Bytes a block of `psize` occupies on this vdev.
    pub fn asize(&self, psize: u64) -> u64 {
        let unit = 1u64 << self.ashift;
        match self.kind {
            VdevType::Disk | VdevType::Mirror => psize.div_ceil(unit) * unit,
            _ if self.draid.is_some() => self.draid.as_ref().unwrap().asize(psize),
            k => raidz_asize(psize, self.ashift, self.leaves.len() as u32, k.nparity()),
        }
    }
    /// Data bytes per raw byte (1 for disk/mirror-as-counted, D/dcols for raidz, D/(D+P)
    /// for dRAID).
    pub fn data_fraction(&self) -> f64 {
        if let Some(d) = &self.draid {
            return d.ndata as f64 / d.groupwidth as f64;
        }
        match self.kind {
            k if k.is_raidz() => {
                let n = self.leaves.len() as f64;
                (n - k.nparity() as f64) / n
            }
            _ => 1.0,
        }
    }
}

/// Mirror child selection (`vdev_mirror_child_select`, §2.8): the child with the lowest
/// load, where load = active I/Os + a seek penalty; ties broken by `tiebreak`.
///
/// `active[i]`, `last_offset[i]`, `rotational[i]` describe candidate child `i`.
pub struct MirrorPenalty {
    pub rotating_inc: i64,
    pub rotating_seek_inc: i64,
    pub rotating_seek_offset: i64,
    pub non_rotating_inc: i64,
    pub non_rotating_seek_inc: i64,
}

impl MirrorPenalty {
    /// The `zfs_vdev_mirror_*` tunables now (`vdev_mirror_load` reads them per read); 0 in
    /// releases before 0.7, which choose a child otherwise (`try_pick_mirror_child`).
    pub fn from_tunables(tun: &crate::tunables::Tunables) -> MirrorPenalty {
        use crate::tunables::T;
        let g = |t| tun.try_get(t).unwrap_or(0);
        MirrorPenalty {
            rotating_inc: g(T::zfs_vdev_mirror_rotating_inc),
            rotating_seek_inc: g(T::zfs_vdev_mirror_rotating_seek_inc),
            rotating_seek_offset: g(T::zfs_vdev_mirror_rotating_seek_offset),
            non_rotating_inc: g(T::zfs_vdev_mirror_non_rotating_inc),
            non_rotating_seek_inc: g(T::zfs_vdev_mirror_non_rotating_seek_inc),
        }
    }

    /// zfs-0.7.0 … 0.7.5 (`vdev_mirror_load`, MR@zfs-0.7.0): `last` is the child's
    /// `vq_lastoffset`, the end of the last read the mirror sent it, and the distance is
    /// taken on unsigned values (`ABS` of a `uint64_t` difference is the difference), so
    /// only a read at or behind `last` can be "within" the seek offset; one just ahead of
    /// it gets the full penalty. d6c6590c5d (first in 0.7.6) made both what `load` does.
    pub fn load_070(&self, active: u32, last: u64, rotational: bool, offset: u64) -> i64 {
        let near = last.wrapping_sub(offset) < self.rotating_seek_offset.max(0) as u64;
        self.penalized(active, rotational, offset == last, near)
    }

    pub fn load(&self, active: u32, last_offset: u64, rotational: bool, offset: u64) -> i64 {
        // ZFS adds rotating_seek_inc / 2 (integer) within the seek window, strictly closer
        // than zfs_vdev_mirror_rotating_seek_offset (`ABS(offset_diff) <`, vdev_mirror_load,
        // MR@zfs-0.7.6 … MR@zfs-2.3.0).
        let near = (offset as i64 - last_offset as i64).abs() < self.rotating_seek_offset;
        self.penalized(active, rotational, offset == last_offset, near)
    }

    /// Active I/Os plus the seek penalty: the `*_inc` one right at the last offset, half
    /// the seek increment `near` it on rotating media, else the full seek increment.
    fn penalized(&self, active: u32, rotational: bool, at_last: bool, near: bool) -> i64 {
        let pen = match (rotational, at_last, near) {
            (true, true, _) => self.rotating_inc,
            (true, false, true) => self.rotating_seek_inc / 2,
            (true, false, false) => self.rotating_seek_inc,
            (false, true, _) => self.non_rotating_inc,
            (false, false, _) => self.non_rotating_seek_inc,
        };
        active as i64 + pen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_seek_window_is_strictly_closer_than_the_offset() {
        let p = MirrorPenalty {
            rotating_inc: 0,
            rotating_seek_inc: 5,
            rotating_seek_offset: 1 << 20,
            non_rotating_inc: 0,
            non_rotating_seek_inc: 1,
        };
        assert_eq!(p.load(0, 0, true, (1 << 20) - 512), 2);
        assert_eq!(p.load(0, 0, true, 1 << 20), 5, "exactly 1 MiB away is a full seek");
        assert_eq!(p.load(0, 8 << 20, true, 7 << 20), 5);
    }

    #[test]
    fn raidz2_worked_example() {
        // spec §5.5: 128 KiB, raidz2, 5 disks, ashift 12 -> asize 216 KiB;
        // columns P 44, Q 44, D0 44, D1 44, D2 40 KiB.
        assert_eq!(raidz_asize(128 << 10, 12, 5, 2), 216 << 10);
        let mut cols = vec![];
        raidz_map(0, 128 << 10, 12, 5, 2, &mut cols);
        let sizes: Vec<u64> = cols.iter().filter(|c| !c.skip).map(|c| c.size >> 10).collect();
        assert_eq!(sizes, vec![44, 44, 44, 44, 40]);
        assert_eq!(cols.iter().filter(|c| c.parity).count(), 2);
        assert!(cols.iter().all(|c| !c.skip));
        let total: u64 = cols.iter().map(|c| c.size).sum();
        assert_eq!(total, 216 << 10);
    }

    #[test]
    fn small_block_on_raidz2_is_three_sectors() {
        // s = 1: P, Q, D — 12 KiB asize with ashift 12.
        assert_eq!(raidz_asize(4096, 12, 6, 2), 12 << 10);
        let mut cols = vec![];
        raidz_map(7 * 4096, 4096, 12, 6, 2, &mut cols);
        let real: Vec<&Column> = cols.iter().filter(|c| !c.skip).collect();
        assert_eq!(real.len(), 3);
        // Starts at child 7 % 6 = 1, wraps past child 5 onto the next row.
        assert_eq!(real[0].child, 1);
        assert_eq!(real[0].offset, 4096);
        assert!(cols.iter().map(|c| c.size).sum::<u64>() == 12 << 10);
    }

    #[test]
    fn raidz1_padding_is_skip_sectors() {
        // raidz1, 4 disks, 8 KiB block, ashift 12: s=2, D=3, q=0, r=2, bc=3, tot=3,
        // asize = roundup(3, 2) = 4 sectors -> one skip sector.
        assert_eq!(raidz_asize(8192, 12, 4, 1), 16 << 10);
        let mut cols = vec![];
        raidz_map(0, 8192, 12, 4, 1, &mut cols);
        assert_eq!(cols.iter().filter(|c| c.skip).count(), 1);
        assert_eq!(cols.iter().map(|c| c.size).sum::<u64>(), 16 << 10);
        // Every (child, offset) sector is distinct.
        let mut seen: Vec<(u32, u64)> = cols.iter().map(|c| (c.child, c.offset)).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), cols.len());
    }

    #[test]
    fn consecutive_blocks_do_not_overlap_on_children() {
        for (dcols, np) in [(5u32, 2u32), (6, 2), (4, 1), (7, 3), (3, 1)] {
            let mut used: Vec<(u32, u64)> = vec![];
            let mut off = 0u64;
            let mut cols = vec![];
            for k in 0..200u64 {
                let psize = [4096u64, 8192, 12288, 65536, 131072][(k % 5) as usize];
                raidz_map(off, psize, 12, dcols, np, &mut cols);
                for c in &cols {
                    for sct in 0..c.size / 4096 {
                        used.push((c.child, c.offset + sct * 4096));
                    }
                }
                off += raidz_asize(psize, 12, dcols, np);
            }
            let n = used.len();
            used.sort();
            used.dedup();
            assert_eq!(used.len(), n, "overlap for dcols={dcols} np={np}");
            // And the sectors used equal the asize space consumed.
            assert_eq!(n as u64 * 4096, off);
        }
    }

    #[test]
    fn mirror_penalty_prefers_near_idle_child() {
        let p = MirrorPenalty {
            rotating_inc: 0,
            rotating_seek_inc: 5,
            rotating_seek_offset: 1 << 20,
            non_rotating_inc: 0,
            non_rotating_seek_inc: 1,
        };
        assert_eq!(p.load(0, 4096, true, 4096), 0);
        assert_eq!(p.load(0, 0, true, 4096), 2);
        assert_eq!(p.load(0, 0, true, 1 << 30), 5);
        assert_eq!(p.load(3, 0, false, 1 << 30), 4);
    }
}

//! spa_sync's new blocks on their way to the disks: each arrives at the allocation stage
//! (`zio_dva_throttle`, then `metaslab_alloc`, `alloc.rs`), gets its copies placed and
//! written at ASYNC_WRITE, and gives its share of the txg's dirty data back as its writes
//! land.
//!
//! * Issue: spa_sync hands each block to the write issue taskq (`ZIO_STAGE_ISSUE_ASYNC`),
//!   whose threads checksum it (one pass over its bytes, at `COPY_BYTES_PER_S` like the
//!   model's other passes over memory; compression is not modelled) before it reaches the
//!   allocation stage. The taskq is `ZTI_BATCH`: `zio_taskq_batch_pct` (75 % to 2.0, 80 %
//!   from 2.1; spa.c at zfs-0.7.13, 2.1.0, 2.2.0 and illumos bc9014e6a8) of the CPUs, 12
//!   threads on the 16 CPUs the model takes (as for `spa_num_allocators`). So a big txg's
//!   blocks reach the throttle over its first milliseconds rather than at once, and each
//!   arrival may admit a block — which is how 0.8+'s growing limits come into use.
//! * Arrival order: the data phase's data records first, then — once every one of them
//!   is allocated — its indirect, dnode and objset blocks (`zio_write_compress` holds a
//!   block until all its children are allocated; the model holds each level of metadata
//!   behind all the data rather than behind its own children); the space-map phase's MOS
//!   blocks when that phase begins. Without the throttle (before 0.7, or
//!   `zio_dva_throttle_enabled = 0`) a block is allocated as it arrives.
//! * Dirty data (`dsl_pool_undirty_space`): each data-phase block carries a share of the
//!   txg's dirty bytes in proportion to its size. To 2.1 it is given back per leaf write
//!   (`dbuf_write_physdone`: the share over the block's leaf writes, the remainder when the
//!   block is done); from 2.2 (ccec7fbe1c removed physdone) when the whole block is done
//!   (`dbuf_write_done`).

use ziosim_engine::Ctx;

use crate::alloc::Params;
use crate::release::Release;
use crate::sim::{Ev, Model_, SUBMIT_GUARD};
use crate::space::{Copies, Piece};
use crate::tunables::T;

/// Owner tag of a sync copy's leaf writes; the low bits index `SyncBlocks::copies`.
pub(crate) const OWNER_SYNC: u32 = 6 << 29;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Data record number `i` of the txg's packed records.
    Data(u32),
    /// Indirect, dnode, objset or ZAP block of the data phase.
    Meta,
    /// A MOS block of the space-map phase (no dirty share).
    Mos,
}

#[derive(Clone, Copy, Debug)]
struct Blk {
    kind: Kind,
    key: (u64, u64),
    /// Its bookmark (`bookmark`): the allocator's queue order.
    order: (u64, u64, u64, u64),
    psize: u64,
    ndvas: u8,
    alloc: u8,
    /// Metaslab class: 0 normal, 1 special (`spa_preferred_class`, at arrival).
    class: u8,
    copies_left: u8,
    /// Leaf writes of all its copies (final once every copy is submitted), completed,
    /// and completed whose share was given back.
    phys: u32,
    phys_final: bool,
    phys_done: u32,
    phys_counted: u32,
    share: u64,
    pieces: Copies,
}

#[derive(Clone, Copy, Debug, Default)]
struct SyncCopy {
    blk: u32,
    t: u16,
    pending: u32,
}

/// The syncing txg's blocks (cleared when the next sync begins).
#[derive(Default)]
pub(crate) struct SyncBlocks {
    blks: Vec<Blk>,
    copies: Vec<SyncCopy>,
    copies_free: Vec<u32>,
    /// The data phase's dirty records, packed records' pieces, bytes written, and data
    /// records not yet allocated; its metadata blocks waiting for them.
    data: Vec<((u64, u64), u64)>,
    recs: Vec<Piece>,
    written: u64,
    data_left: u32,
    meta_waiting: Vec<u32>,
    usable: Vec<bool>,
    /// asize the sync has placed on the special vdevs so far (not yet in their `vs_alloc`).
    special_bytes: u64,
    /// Shares given back per leaf write (to 2.1) or per block (2.2+).
    physdone: bool,
    /// The write issue taskq: when each thread is next free, the blocks it is working on
    /// by the time each is done, and the time of the next `Ev::SyncArrive` (MAX: none).
    issue_free_at: Vec<u64>,
    issuing: std::collections::VecDeque<(u64, u32)>,
    ev_at: u64,
}

/// Threads of the write issue taskq (see the module comment).
const ISSUE_THREADS: usize = 12;

impl Model_ {
    /// The throttle's settings for the next txg, from the release and the tunables.
    pub(crate) fn alloc_params(&self) -> Params {
        let r = self.cfg.release;
        let on = r >= Release::Zfs07 && self.tun.try_get(T::zio_dva_throttle_enabled).unwrap_or(0) != 0;
        let max_active = self.tun.try_get(T::zfs_vdev_async_write_max_active).unwrap_or(10).max(0) as u64;
        let pct = self.tun.try_get(T::zfs_vdev_queue_depth_pct).unwrap_or(1000).max(0) as u64;
        let cap = (max_active * pct / 100).min(u32::MAX as u64) as u32;
        let growing = r >= Release::Zfs08;
        let def = if growing { self.tun.try_get(T::zfs_vdev_def_queue_depth).unwrap_or(32).max(0) as u32 } else { cap };
        let allocators = if r >= Release::Zfs23 {
            self.alloc_count
        } else if growing {
            4
        } else {
            1
        };
        Params { on, cap, def, allocators, growing, rotor_per_allocator: r >= Release::Zfs21 }
    }

    /// spa_sync's data phase: `data` (dirty records, `written` bytes of them packed into
    /// `nrec` records of the record size) and the metadata blocks `meta` ((psize, copies,
    /// key) each), with `bytes` of dirty data to give back as they land.
    pub(crate) fn sync_data_blocks(&mut self, data: Vec<((u64, u64), u64)>, written: u64, nrec: u64, meta: Vec<(u64, u8, (u64, u64))>, bytes: u64, ctx: &mut Ctx<Ev>) {
        let p = self.alloc_params();
        self.alloc.begin_txg(p);
        let rs = self.recordsize;
        // Each block's share of the dirty bytes, in proportion to its size (what it was
        // charged, `dr_accounted`, is its logical size; psize stands in for it).
        let total = nrec * rs + meta.iter().map(|m| m.0).sum::<u64>();
        let mut cum = 0u64;
        let mut share = |psize: u64| {
            let a = crate::layout::mul_div(bytes, cum, total.max(1));
            cum += psize;
            crate::layout::mul_div(bytes, cum, total.max(1)) - a
        };
        let sb = &mut self.sblk;
        sb.blks.clear();
        sb.meta_waiting.clear();
        sb.recs = vec![(0, 0, 0); nrec as usize];
        sb.written = written;
        sb.data_left = nrec as u32;
        sb.special_bytes = 0;
        sb.physdone = self.cfg.release < Release::Zfs22;
        // Each packed record's bookmark is that of the dirty record its first byte is from,
        // and so is the block size its class is chosen by: a packed record stands for the
        // blocks it holds, and its first byte falls in a small block as often as the small
        // blocks' share of the bytes, so the special class gets that share of the packed
        // records. (Packing the small blocks apart would not do: which dirty records
        // `dmu_sync` already wrote is known only as a byte count, `written`, taken from the
        // end of `data`.)
        let mut keys = Vec::with_capacity(nrec as usize);
        let (mut j, mut end) = (0usize, data.first().map_or(0, |d| d.1));
        for k in 0..nrec {
            while j + 1 < data.len() && end <= k * rs {
                j += 1;
                end += data[j].1;
            }
            keys.push(data.get(j).map_or(((0, k), rs), |d| (d.0, d.1.min(rs))));
        }
        sb.data = data;
        for (k, &(key, size)) in keys.iter().enumerate() {
            let sh = share(rs);
            self.sblk_push(Kind::Data(k as u32), key, rs, size, 1, sh);
        }
        for &(psize, ndvas, key) in &meta {
            let sh = share(psize);
            let b = self.sblk_push(Kind::Meta, key, psize, psize, ndvas, sh);
            self.sblk.meta_waiting.push(b);
        }
        self.txg.data_bytes += nrec * rs;
        // (Issuing only schedules: nothing completes before this returns.)
        for b in 0..nrec as u32 {
            self.sblk_issue(b, ctx);
        }
        if nrec == 0 {
            self.sync_data_allocated(ctx);
        }
    }

    /// Block `b` goes to the write issue taskq: the first free thread checksums it, and it
    /// reaches the allocation stage when that is done. It holds the sync until then.
    fn sblk_issue(&mut self, b: u32, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        let sb = &mut self.sblk;
        if sb.issue_free_at.len() != ISSUE_THREADS {
            sb.issue_free_at = vec![0; ISSUE_THREADS];
            sb.ev_at = u64::MAX;
        }
        let (i, &free) = sb.issue_free_at.iter().enumerate().min_by_key(|&(i, &f)| (f, i)).unwrap();
        let done = free.max(now) + crate::sim::copy_ns(sb.blks[b as usize].psize);
        sb.issue_free_at[i] = done;
        let at = sb.issuing.partition_point(|&(t, _)| t <= done);
        sb.issuing.insert(at, (done, b));
        self.txg.sync_pending_ios += 1;
        if done < self.sblk.ev_at {
            self.sblk.ev_at = done;
            ctx.schedule_at(done, Ev::SyncArrive);
        }
    }

    /// `Ev::SyncArrive`: the blocks whose issue stage is done by now reach allocation.
    pub(crate) fn sync_arrivals_due(&mut self, ctx: &mut Ctx<Ev>) {
        let now = ctx.now();
        if self.sblk.ev_at <= now {
            self.sblk.ev_at = u64::MAX;
        }
        self.txg.sync_pending_ios += SUBMIT_GUARD;
        while let Some(&(t, b)) = self.sblk.issuing.front() {
            if t > now {
                break;
            }
            self.sblk.issuing.pop_front();
            self.txg.sync_pending_ios -= 1;
            self.sblk_arrive(b, ctx);
        }
        if let Some(&(t, _)) = self.sblk.issuing.front() {
            if t < self.sblk.ev_at {
                self.sblk.ev_at = t;
                ctx.schedule_at(t, Ev::SyncArrive);
            }
        }
        self.txg.sync_pending_ios -= SUBMIT_GUARD;
        self.sync_advance(ctx);
    }

    /// A MOS block of the space-map phase: `ndvas` copies of `psize` bytes, record `key`.
    /// `at_once`: it reaches the allocation stage now, not through the issue taskq — a
    /// block whose allocation the phase's space-map update must already see (in ZFS it is
    /// written in the sync pass before `metaslab_sync`).
    pub(crate) fn sync_mos_block(&mut self, psize: u64, ndvas: u8, key: (u64, u64), at_once: bool, ctx: &mut Ctx<Ev>) {
        let b = self.sblk_push(Kind::Mos, key, psize, psize, ndvas, 0);
        if at_once {
            self.sblk_arrive(b, ctx);
        } else {
            self.sblk_issue(b, ctx);
        }
    }

    /// A block of the sync: `class_size` is the size its class goes by (a packed data
    /// record's: that of the block its first byte is from).
    fn sblk_push(&mut self, kind: Kind, key: (u64, u64), psize: u64, class_size: u64, ndvas: u8, share: u64) -> u32 {
        let order = self.bookmark(key);
        let alloc = self.alloc.allocator_of(order.0, order.1, order.2, order.3) as u8;
        let class = self.preferred_class(!matches!(kind, Kind::Data(_)), key, class_size);
        let sb = &mut self.sblk;
        sb.blks.push(Blk {
            kind,
            key,
            order,
            psize,
            ndvas: ndvas.clamp(1, 3),
            alloc,
            class,
            copies_left: ndvas.clamp(1, 3),
            phys: 0,
            phys_final: false,
            phys_done: 0,
            phys_counted: 0,
            share,
            pieces: Copies::default(),
        });
        (sb.blks.len() - 1) as u32
    }

    /// `spa_preferred_class` (spa_misc.c@zfs-0.8.0 … @zfs-2.3.0) for a block of the sync:
    /// 1 (special) for metadata — a file's indirect block only with
    /// `zfs_user_indirect_is_special` — and for a data record of psize ≤ the dataset's
    /// `special_small_blocks` while the class's allocated space is under 100 −
    /// `zfs_special_class_metadata_reserve_pct` % of its size; 0 (normal) otherwise, and
    /// always on a pool without special vdevs.
    pub(crate) fn preferred_class(&self, metadata: bool, key: (u64, u64), psize: u64) -> u8 {
        if !self.alloc.has_special() {
            return 0;
        }
        if metadata {
            let user_ind = crate::dirty::is_user_indirect(key);
            return u8::from(!user_ind || self.tun.try_get(T::zfs_user_indirect_is_special).unwrap_or(1) != 0);
        }
        u8::from(self.small_block_to_special(psize))
    }

    /// A file data block of `psize` goes to the special class (see `preferred_class`).
    pub(crate) fn small_block_to_special(&self, psize: u64) -> bool {
        // Not a volume's blocks (DMU_OT_ZVOL is no `DMU_OT_IS_FILE`; `build_layout`).
        if !self.alloc.has_special() || psize > self.cfg.special_small_blocks_bytes || self.cfg.is_volume() {
            return false;
        }
        let reserve = self.tun.try_get(T::zfs_special_class_metadata_reserve_pct).unwrap_or(25).clamp(0, 100) as u64;
        let (alloc, space) = self.special_use();
        alloc < crate::layout::mul_div(space, 100 - reserve, 100)
    }

    /// The special vdevs' `vs_alloc` and size, summed.
    fn special_use(&self) -> (u64, u64) {
        let special = self.tops.iter().enumerate().filter(|(_, top)| top.special);
        special.fold((0, 0), |(a, s), (t, top)| (a + self.top_alloc_now(t), s + top.size_bytes))
    }

    /// The special vdevs can take `ndvas` copies of `psize` more: their `vs_alloc`, what
    /// this sync placed on them so far and the block stay within their size (the model's
    /// one ENOSPC: a full special class sends blocks to the normal class, as ZFS does).
    pub(crate) fn special_room(&self, psize: u64, ndvas: u8) -> bool {
        let (alloc, space) = self.special_use();
        let asize = self.tops.iter().filter(|top| top.special).map(|top| top.asize(psize)).max().unwrap_or(0);
        alloc + self.sblk.special_bytes + asize * ndvas as u64 <= space
    }

    /// (objset, object, level + 1, block id) of a record key: the dataset is objset 1 and
    /// the MOS 0; level + 1 so that an objset's root block (level −1) sorts first.
    fn bookmark(&self, key: (u64, u64)) -> (u64, u64, u64, u64) {
        let tag = key.0 >> 56;
        if let Some(b) = crate::dirty::layout_data_block(key) {
            let d = self.layout.data_place(b % self.layout.data_blocks().max(1));
            return (1, 1 + ((d.class as u64) << 40 | d.file), 1, d.block);
        }
        if key == crate::dirty::objset_key(0) {
            return (0, 0, 0, 0);
        }
        if key == crate::dirty::objset_key(1) {
            return (0, 0, 1, 0);
        }
        if key == crate::dirty::objset_key(2) {
            return (1, 0, 0, 0);
        }
        let os = u64::from(!(9..=16).contains(&tag));
        (os, key.0 & ((1 << 48) - 1), 1 + ((key.0 >> 48) & 0xff), key.1)
    }

    /// Block `b` arrives at the allocation stage.
    fn sblk_arrive(&mut self, b: u32, ctx: &mut Ctx<Ev>) {
        if !self.alloc.params().on {
            self.sblk_allocate(b, ctx);
            return;
        }
        let blk = self.sblk.blks[b as usize];
        self.alloc.enqueue(blk.alloc as usize, blk.order, b);
        self.txg.sync_pending_ios += 1;
        self.sblk_admit(blk.alloc as usize, ctx);
    }

    /// `zio_allocate_dispatch`: at most one block of allocator `a` goes on to allocation.
    fn sblk_admit(&mut self, a: usize, ctx: &mut Ctx<Ev>) {
        let blks = &self.sblk.blks;
        if let Some(b) = self.alloc.admit(a, |b| (blks[b as usize].ndvas as u32, blks[b as usize].class as usize)) {
            self.txg.sync_pending_ios -= 1;
            self.sblk_allocate(b, ctx);
        }
    }

    /// `metaslab_alloc` of every copy of block `b`, and their writes.
    fn sblk_allocate(&mut self, b: u32, ctx: &mut Ctx<Ev>) {
        let mut usable = std::mem::take(&mut self.sblk.usable);
        usable.clear();
        usable.extend((0..self.tops.len()).map(|t| self.top_writeable(t)));
        let blk = self.sblk.blks[b as usize];
        let txg = self.txg.sync_txg;
        self.txg.sync_pending_ios += SUBMIT_GUARD;
        let mut prev = None;
        // Copies whose writes all completed while being submitted (dropped optional
        // writes): their slots admit blocks once this one is placed.
        let mut freed = 0;
        // A special class without room for the block's copies fails its allocation with
        // ENOSPC and `zio_dva_allocate` retries it in the normal class (zio.c@zfs-2.2.0);
        // the block keeps the slots it reserved in the special class.
        let mut class = blk.class as usize;
        if class == 1 && !self.special_room(blk.psize, blk.ndvas) {
            class = 0;
        }
        for d in 0..blk.ndvas as usize {
            let tops = &self.tops;
            let a = blk.alloc as usize;
            // A special class with no writable vdev left: the normal class takes the block
            // (`zio_dva_allocate` retries there on ENOSPC).
            let picked = self.alloc.pick(a, class, d, prev, &usable, |t| tops[t].asize(blk.psize));
            let picked = picked.or_else(|| if class == 1 { self.alloc.pick(a, 0, d, prev, &usable, |t| tops[t].asize(blk.psize)) } else { None });
            let Some(t) = picked else {
                // No vdev can take it: the pool suspends and the sync waits for ever.
                self.sblk.usable = usable;
                self.suspend(crate::suspend::SuspendCause::Write, ctx);
                return;
            };
            prev = Some(t);
            if self.tops[t].special {
                self.sblk.special_bytes += self.tops[t].asize(blk.psize);
            }
            let c = match self.sblk.copies_free.pop() {
                Some(c) => c,
                None => {
                    self.sblk.copies.push(SyncCopy::default());
                    (self.sblk.copies.len() - 1) as u32
                }
            };
            self.sblk.copies[c as usize] = SyncCopy { blk: b, t: t as u16, pending: SUBMIT_GUARD as u32 };
            let (n, piece) = self.sync_write(t, blk.psize, txg, OWNER_SYNC | c, ctx);
            self.sblk.blks[b as usize].pieces.push(piece);
            self.sblk.blks[b as usize].phys += n as u32;
            self.txg.sync_pending_ios += n;
            let cp = &mut self.sblk.copies[c as usize];
            cp.pending = cp.pending + n as u32 - SUBMIT_GUARD as u32;
            if cp.pending == 0 {
                self.sblk_copy_done(c, false, ctx);
                freed += 1;
            }
        }
        self.sblk.usable = usable;
        let blk = &mut self.sblk.blks[b as usize];
        blk.phys_final = true;
        let blk = *blk;
        self.sblk_give_back(b, ctx);
        match blk.kind {
            Kind::Data(k) => {
                self.sblk.recs[k as usize] = blk.pieces.pieces().first().copied().unwrap_or((0, 0, 0));
                self.sblk.data_left -= 1;
                if self.sblk.data_left == 0 {
                    self.sync_data_allocated(ctx);
                }
            }
            Kind::Meta | Kind::Mos => {
                self.txg.meta_blocks += blk.ndvas as u64;
                self.txg.meta_bytes += blk.ndvas as u64 * blk.psize;
                self.space.rewrite(blk.key, blk.pieces, txg);
            }
        }
        for _ in 0..freed {
            self.sblk_admit(blk.alloc as usize, ctx);
        }
        self.txg.sync_pending_ios -= SUBMIT_GUARD;
    }

    /// Every data record of the data phase is placed: note where they went, and send the
    /// phase's metadata blocks to allocation.
    fn sync_data_allocated(&mut self, ctx: &mut Ctx<Ev>) {
        let data = std::mem::take(&mut self.sblk.data);
        let recs = std::mem::take(&mut self.sblk.recs);
        let txg = self.txg.sync_txg;
        self.space_note_data(&data, &recs, self.sblk.written, txg);
        for b in std::mem::take(&mut self.sblk.meta_waiting) {
            self.sblk_issue(b, ctx);
        }
    }

    /// One leaf write of sync copy `c` completed.
    pub(crate) fn sync_leaf_done(&mut self, c: u32, ctx: &mut Ctx<Ev>) {
        self.txg.sync_pending_ios -= 1;
        let cp = &mut self.sblk.copies[c as usize];
        cp.pending -= 1;
        let (b, left) = (cp.blk, cp.pending);
        self.sblk.blks[b as usize].phys_done += 1;
        self.sblk_give_back(b, ctx);
        if left == 0 {
            self.sblk_copy_done(c, true, ctx);
        }
        self.sync_advance(ctx);
    }

    /// All of copy `c`'s leaf writes are done (`zio_dva_throttle_done`): release its
    /// depth and slot and admit one waiting block of its allocator.
    fn sblk_copy_done(&mut self, c: u32, admit: bool, ctx: &mut Ctx<Ev>) {
        let SyncCopy { blk: b, t, .. } = self.sblk.copies[c as usize];
        self.sblk.copies_free.push(c);
        let blk = &mut self.sblk.blks[b as usize];
        blk.copies_left -= 1;
        let a = blk.alloc as usize;
        self.alloc.done(a, blk.class as usize, t as usize);
        self.sblk_give_back(b, ctx);
        if admit {
            self.sblk_admit(a, ctx);
        }
    }

    /// Give back what block `b` owes of its dirty share so far.
    fn sblk_give_back(&mut self, b: u32, ctx: &mut Ctx<Ev>) {
        let physdone = self.sblk.physdone;
        let blk = &mut self.sblk.blks[b as usize];
        if blk.share == 0 || !blk.phys_final {
            return;
        }
        let delta = if blk.copies_left == 0 {
            // Done: all of what is left (2.2+, and the remainder before).
            let given = if physdone { crate::layout::mul_div(blk.share, blk.phys_counted as u64, blk.phys.max(1) as u64) } else { 0 };
            blk.phys_counted = blk.phys;
            let d = blk.share - given;
            blk.share = 0;
            d
        } else if physdone && blk.phys_done > blk.phys_counted {
            let ph = blk.phys.max(1) as u64;
            let d = crate::layout::mul_div(blk.share, blk.phys_done as u64, ph) - crate::layout::mul_div(blk.share, blk.phys_counted as u64, ph);
            blk.phys_counted = blk.phys_done;
            d
        } else {
            0
        };
        if delta > 0 && self.txg.phase == crate::sim::SyncPhase::Data {
            let mut out = Vec::new();
            self.txg.eng.on_sync_progress(ctx.now(), delta, &mut out);
            self.txg_actions(out, ctx);
        }
    }
}

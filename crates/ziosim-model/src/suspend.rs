//! A pool that cannot do the I/O it must: allocation around dead top-level vdevs, and the
//! suspension the `failmode` property governs.
//!
//! Theory of operation (ZIO/MS/DMU/SPA@zfs-0.6.2 and @zfs-2.2.0, the same in both)
//! -------------------------------------------------------------------------------
//! * `metaslab_alloc_dva` skips a top-level vdev that is not `vdev_allocatable` (dead:
//!   a disk gone, every mirror child gone, more raidz children gone than parity), so
//!   txg writes and log blocks go to the top-level vdevs that can take them. With none
//!   left the allocation fails (ENOSPC); `zio_done` marks an allocating write that is not
//!   `ZIO_FLAG_CANFAIL` `ZIO_REEXECUTE_SUSPEND`, and the root zio of the txg's sync calls
//!   `zio_suspend`: the pool is suspended and `spa_sync` waits in `zio_wait` until
//!   `zpool clear` resumes it — in every failmode, since a txg must be written whole.
//! * A read that is not a scan's and fails with ENXIO (its top-level vdev is dead) is
//!   `ZIO_REEXECUTE_SUSPEND` too unless `failmode=continue`: it suspends the pool and
//!   waits for the resume. With `continue` it returns EIO (the application sees the
//!   error; the model's `read_errors`). A block on a live top-level vdev whose children
//!   lack it (a disk being resilvered, a stretch a rebuild could not reconstruct) fails
//!   with the skipped child's ESTALE or with ECKSUM, which `zio_worst_error` ranks above
//!   ENXIO: EIO in every mode. (2.x's `vdev_mirror_worst_error` puts a DTL-skipped child's
//!   error second, so a mirror whose one source died mid-resilver returns ENXIO there and
//!   would suspend; the model returns EIO.)
//! * `zio_suspend` with `failmode=panic` panics the host ("Pool '%s' has encountered an
//!   uncorrectable I/O failure and the failure mode property for this pool is set to
//!   panic.").
//! * While suspended, `dmu_tx_try_assign` refuses every tx with ERESTART and
//!   `dmu_tx_wait` waits for a sync past the last one: writes, creates and setattrs
//!   block. (It returns EIO instead for `failmode=continue` and a tx assigned with
//!   `TXG_NOWAIT`; ZoL's `zfs_write` and the NFS server's ops assign with `TXG_WAIT`, so
//!   they block too. The Solaris-era ZPL assigned with `zfsvfs->z_assign`, TXG_NOWAIT,
//!   and got EIO in `continue` mode: not modelled, those releases block as well.)
//! * A ZIL commit whose log block cannot be allocated (no usable log vdev, no
//!   allocatable top-level vdev) falls back to `txg_wait_synced`, which the suspension
//!   holds: the fsync blocks.
//! * Reads of top-level vdevs that are alive go on; scans and rebuilds stop where they
//!   wait for a txg sync.
//!
//! * `zpool` commands that modify the pool are refused ("pool I/O is currently suspended";
//!   `refused_while_suspended`); 2.2's `zpool scrub` goes through an ioctl with no such
//!   check, and its sync task waits for a txg that never syncs: the command does not
//!   return and does nothing.
//!
//! Not modelled: `zpool clear` (a suspended pool stays so for the rest of the run; the
//! devices never come back anyway), and the dead-man timer (`zfs_deadman_*`) that
//! complains about the hung I/O.

use crate::config::Failmode;
use crate::pool::VdevType;
use crate::sim::{Ev, Model_};
use serde_json::{json, Value};
use ziosim_engine::Ctx;

/// What suspended the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuspendCause {
    /// A txg's sync had blocks to write and no top-level vdev could take them.
    Write,
    /// A read of a block on a dead top-level vdev (failmode wait or panic).
    Read { top: u16 },
}

/// The pool's suspension (`spa_suspended`), once it happened.
#[derive(Clone, Debug)]
pub struct Suspension {
    pub at_ns: u64,
    pub cause: SuspendCause,
    pub failmode: Failmode,
    /// Operations that blocked on it: writes (txs) and reads of the dead vdev. (Log
    /// blocks no vdev could take are `Model_::log_blocks_stalled`, before it or after.)
    pub writes: u64,
    pub reads: u64,
}

impl Model_ {
    /// `vdev_allocatable` of top-level vdev `t`: enough of its children can be written.
    pub(crate) fn top_writeable(&self, t: usize) -> bool {
        let top = &self.tops[t];
        let dead = (0..top.leaves.len()).filter(|&c| self.child_write_leaves(t, c).iter().all(Option::is_none)).count();
        match top.kind {
            VdevType::Disk => dead == 0,
            VdevType::Mirror => dead < top.leaves.len(),
            k => dead <= k.nparity() as usize,
        }
    }

    /// The top-level vdevs the allocator can use, in order (all of them on a healthy pool).
    pub(crate) fn writeable_tops(&self) -> Vec<usize> {
        (0..self.tops.len()).filter(|&t| self.top_writeable(t)).collect()
    }

    pub(crate) fn suspended(&self) -> bool {
        self.suspension.is_some()
    }

    /// A `zpool` command the kernel refuses on a suspended pool: the ioctl's pool check
    /// (`pool_status_check` → EAGAIN, which libzfs prints "pool I/O is currently
    /// suspended"; zfs_ioctl.c 2010 and 0.6.2's `POOL_CHECK_SUSPENDED`, 2.2's
    /// `zfs_ioctl_register_pool_modify`). `set_state` (online, offline) was unchecked in
    /// the 2010 table (freebsd-9, illumos-2012) and checked once the ioctls were
    /// registered as pool-modifying (illumos 2013, illumos-2014 and ZoL). solaris-2009's
    /// table is not read: nothing refused there.
    pub(crate) fn refused_while_suspended(&self, set_state: bool) -> bool {
        use crate::release::Release;
        let rel = self.cfg.release;
        self.suspended() && rel >= Release::Freebsd9 && (!set_state || rel >= Release::Illumos2014)
    }

    /// `zio_suspend`: the pool stops; with `failmode=panic` the host panics and the run
    /// ends here. A run that was to stop when the finite workloads are done ends too (the
    /// one that suspended it waits for ever), and one that was to stop when the scans are
    /// done ends once a sync is stuck. Called again for a later stuck sync.
    pub(crate) fn suspend(&mut self, cause: SuspendCause, ctx: &mut Ctx<Ev>) {
        let failmode = self.cfg.pool.failmode;
        if self.suspension.is_none() {
            self.suspension = Some(Suspension { at_ns: ctx.now(), cause, failmode, writes: 0, reads: 0 });
        }
        // A stuck sync ends a scan-done run: no scan can finish. After a read's suspension
        // syncs go on (dmu_tx_wait waits in txg_wait_synced, empty txgs sync) and so do
        // the scans, until a sync finds nowhere to write.
        let sync_stuck = cause == SuspendCause::Write && self.cfg.stop_on_scan_done;
        if self.suspend_stop_ns.is_none() && (failmode == Failmode::Panic || sync_stuck || self.cfg.stop_on_workloads_done) {
            self.suspend_stop_ns = Some(ctx.now());
            ctx.schedule_in(0, Ev::Stop);
        }
    }

    /// A read found no readable copy of a block on top-level vdev `t`, for the op `id`.
    /// Returns true when the op now waits on the suspended pool (ENXIO under
    /// failmode wait or panic) rather than failing with EIO.
    pub(crate) fn read_suspends(&mut self, t: usize, id: u32, ctx: &mut Ctx<Ev>) -> bool {
        if !self.enxio_suspends(t) {
            return false;
        }
        self.suspend(SuspendCause::Read { top: t as u16 }, ctx);
        self.suspension.as_mut().unwrap().reads += 1;
        // The op stays pending for ever (`zio_wait` on a suspended zio).
        self.ops[id as usize].pending += 1;
        true
    }

    /// A foreground read that found no copy on `t` suspends the pool rather than failing:
    /// only a dead top-level vdev fails it with ENXIO, and only failmode wait and panic
    /// suspend on that. A live one whose children lack the block (a new disk's DTL, a
    /// range a rebuild could not reconstruct) fails it with the skipped child's ESTALE or
    /// ECKSUM, which zio_worst_error ranks above ENXIO: EIO to the reader.
    fn enxio_suspends(&self, t: usize) -> bool {
        self.cfg.pool.failmode != Failmode::Continue && !self.top_writeable(t)
    }

    /// A foreground read found no copy of the block at `voff` on `t`: the error log
    /// (`spa_log_error`) keeps it — unless the read suspends the pool instead (ENXIO from
    /// a dead top-level vdev under failmode wait or panic), whose zio waits to be
    /// re-executed and logs nothing.
    pub(crate) fn log_lost_read(&mut self, t: usize, voff: u64) {
        if !self.enxio_suspends(t) {
            self.lost_blocks.insert((t as u16, voff));
        }
    }

    /// A tx asked for while the pool is suspended: it waits for a sync that never comes.
    pub(crate) fn park_write(&mut self) {
        self.suspension.as_mut().unwrap().writes += 1;
    }

    /// A log block that no vdev can take: its commit falls back to `txg_wait_synced`.
    pub(crate) fn park_commit(&mut self) {
        self.log_blocks_stalled += 1;
    }

    /// `pool.failmode` and `pool.suspended` of the results.
    pub(crate) fn suspension_json(&self) -> Value {
        let Some(s) = &self.suspension else { return Value::Null };
        let (cause, vdev) = match s.cause {
            SuspendCause::Write => ("write", Value::Null),
            SuspendCause::Read { top } => ("read", json!(self.tops[top as usize].name)),
        };
        json!({
            "at_ns": s.at_ns, "cause": cause, "vdev": vdev, "failmode": s.failmode.name(),
            "blocked_writes": s.writes, "blocked_reads": s.reads,
            "stalled_log_blocks": self.log_blocks_stalled,
        })
    }
}

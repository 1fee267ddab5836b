//! Leaf I/Os: the unit every queue policy and device works on.
//!
//! An I/O lives in an [`IoSlab`] (a `Vec` plus free list) and is named by a `u32` [`IoId`];
//! there is no allocation per I/O on the hot path. Priority classes follow ZFS's
//! `zio_priority_t` enum order, which is also strict priority order (`zfs-model.md` §1.1).

use serde::{Deserialize, Serialize};

pub type IoId = u32;
/// "No I/O": ends aggregate chains, marks "no owner".
pub const NO_IO: IoId = u32::MAX;

/// ZFS I/O priority classes, in `zio_priority_t` order (= strict priority order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum IoClass {
    SyncRead = 0,
    SyncWrite = 1,
    AsyncRead = 2,
    AsyncWrite = 3,
    Scrub = 4,
    Removal = 5,
    Initializing = 6,
    Trim = 7,
    Rebuild = 8,
}

pub const NUM_CLASSES: usize = 9;

impl IoClass {
    pub const ALL: [IoClass; NUM_CLASSES] = [
        IoClass::SyncRead,
        IoClass::SyncWrite,
        IoClass::AsyncRead,
        IoClass::AsyncWrite,
        IoClass::Scrub,
        IoClass::Removal,
        IoClass::Initializing,
        IoClass::Trim,
        IoClass::Rebuild,
    ];
    #[inline]
    pub fn idx(self) -> usize {
        self as usize
    }
    pub fn from_idx(i: usize) -> IoClass {
        IoClass::ALL[i]
    }
    /// Snake-case key used in JSON output.
    pub fn key(self) -> &'static str {
        match self {
            IoClass::SyncRead => "sync_read",
            IoClass::SyncWrite => "sync_write",
            IoClass::AsyncRead => "async_read",
            IoClass::AsyncWrite => "async_write",
            IoClass::Scrub => "scrub",
            IoClass::Removal => "removal",
            IoClass::Initializing => "initializing",
            IoClass::Trim => "trim",
            IoClass::Rebuild => "rebuild",
        }
    }
    /// Interactive classes for the 2.1 NIA throttle (§2.3): everything but scrub, removal,
    /// initializing and rebuild.
    #[inline]
    pub fn interactive(self) -> bool {
        !matches!(self, IoClass::Scrub | IoClass::Removal | IoClass::Initializing | IoClass::Rebuild)
    }
    /// Classes queued in arrival order rather than by offset (§2.6; TRIM is FIFO from 0.8).
    #[inline]
    pub fn fifo(self) -> bool {
        matches!(self, IoClass::SyncRead | IoClass::SyncWrite | IoClass::Trim)
    }
}

/// What a command does to the medium.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Op {
    Read = 0,
    Write = 1,
    /// Cache flush (FLUSH CACHE / SYNCHRONIZE CACHE). Bypasses the vdev queue.
    Flush = 2,
}

/// Aggregation-relevant zio flags (`ZIO_FLAG_AGG_INHERIT` subset): only I/Os with
/// identical bits merge (§2.7).
pub mod flags {
    pub const SCRUB: u8 = 1 << 0;
    pub const RESILVER: u8 = 1 << 1;
    pub const REPAIR: u8 = 1 << 2;
    pub const DONT_AGGREGATE: u8 = 1 << 3;
    /// Optional padding I/O (raidz skip sectors): may be dropped or merged (writes only).
    pub const OPTIONAL: u8 = 1 << 4;
    /// Carries no data (ZIO_FLAG_NODATA). The queue sets it when the aggregation "stretch"
    /// rule clears OPTIONAL on a padding I/O; a lone OPTIONAL or NODATA I/O is completed by
    /// the queue without reaching the device (`QueuePolicy::take_discarded`).
    pub const NODATA: u8 = 1 << 5;
    /// ZIO_FLAG_SCAN_THREAD: the scan's metadata reads (traversal and prefetch) from the
    /// 2010 dsl_scan.c on. One of the AGG_INHERIT bits (`ZIO_FLAG_CANFAIL - 1`, zio.h at
    /// il:4445fffbbb … zfs-2.2.0), so they never aggregate with user reads.
    pub const SCAN_THREAD: u8 = 1 << 6;
    /// Bits that must match for two I/Os to aggregate (OPTIONAL is not one of them).
    pub const AGG_INHERIT: u8 = SCRUB | RESILVER | REPAIR | DONT_AGGREGATE | SCAN_THREAD;
}

/// One leaf (physical disk) I/O.
#[derive(Clone, Copy, Debug)]
pub struct LeafIo {
    /// Byte offset on the leaf device.
    pub offset: u64,
    pub size: u32,
    pub op: Op,
    pub class: IoClass,
    pub flags: u8,
    /// Index of the leaf (disk) in the pool.
    pub leaf: u16,
    /// When it entered the vdev queue, ns.
    pub enqueue_ns: u64,
    /// When it was issued to the device (or 0 while queued), ns.
    pub issue_ns: u64,
    /// The logical I/O this serves (NO_IO if none).
    pub owner: u32,
    /// Next member of the aggregate this I/O was issued in (NO_IO ends the chain).
    /// Owned by the queue policy while the I/O is queued or active.
    pub agg_next: IoId,
    /// Place in its leaf's arrival order (set by the queue policy at enqueue, and again
    /// when 2.2+ moves a queued I/O to the tail of another class's list): the order of a
    /// FIFO class — ZFS's `io_timestamp` order (2013 … 2.1), which also separates I/Os
    /// queued in the same simulated nanosecond, or list order (2.2+).
    pub seq: u64,
    /// The dRAID distributed spare this I/O was addressed to before it was sent to the
    /// disk holding the spare's share (`NO_LEAF`: none); `zpool iostat` counts it there too.
    pub via: u16,
}

/// No leaf (`LeafIo::via` of an I/O addressed to its own disk).
pub const NO_LEAF: u16 = u16::MAX;

impl LeafIo {
    pub fn new(leaf: u16, op: Op, class: IoClass, offset: u64, size: u32) -> LeafIo {
        LeafIo {
            offset,
            size,
            op,
            class,
            flags: 0,
            leaf,
            enqueue_ns: 0,
            issue_ns: 0,
            owner: NO_IO,
            agg_next: NO_IO,
            seq: 0,
            via: NO_LEAF,
        }
    }
    #[inline]
    pub fn end(&self) -> u64 {
        self.offset + self.size as u64
    }
}

/// Slab of leaf I/Os.
#[derive(Default)]
pub struct IoSlab {
    ios: Vec<LeafIo>,
    free: Vec<IoId>,
    live: u32,
    live_max: u32,
}

impl IoSlab {
    pub fn new() -> IoSlab {
        IoSlab::default()
    }
    #[inline]
    pub fn alloc(&mut self, io: LeafIo) -> IoId {
        self.live += 1;
        self.live_max = self.live_max.max(self.live);
        if let Some(id) = self.free.pop() {
            self.ios[id as usize] = io;
            id
        } else {
            self.ios.push(io);
            (self.ios.len() - 1) as IoId
        }
    }
    #[inline]
    pub fn free(&mut self, id: IoId) {
        self.live -= 1;
        self.free.push(id);
    }
    #[inline]
    pub fn get(&self, id: IoId) -> &LeafIo {
        &self.ios[id as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, id: IoId) -> &mut LeafIo {
        &mut self.ios[id as usize]
    }
    /// I/Os currently allocated.
    pub fn live(&self) -> u32 {
        self.live
    }
    /// Most I/Os ever allocated at once (memory high-water mark).
    pub fn live_max(&self) -> u32 {
        self.live_max
    }
}

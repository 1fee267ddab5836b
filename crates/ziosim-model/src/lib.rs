//! ziosim-model: the ZFS I/O pipeline model.
//!
//! Layers, top to bottom: workloads make logical I/Os; the ARC absorbs hits; the pool
//! turns logical I/Os into leaf I/Os (mirror, raidz geometry); each leaf has ZFS's
//! vdev_queue policy of the scenario's release; devices serve commands. Statistics are
//! fixed-size histograms and sampled counters. See `../shared/design.md` §2.

pub mod admin;
mod alloc;
mod aux_fail;
pub mod config;
pub mod device;
mod dirty;
pub(crate) mod indirect;
pub mod draid;
pub mod io;
mod l2feed;
pub mod layout;
pub mod pool;
pub mod queue;
pub mod rebuild;
pub mod redundancy;
pub mod release;
pub mod scan;
pub mod scan_prefetch;
pub mod scan_queue;
pub mod series;
pub mod sim;
pub(crate) mod space;
pub(crate) mod spacemap;
pub mod stats;
pub(crate) mod status_log;
pub mod suspend;
mod sync_alloc;
pub mod trace;
pub mod tunables;
pub mod txg;
pub mod zil;
pub(crate) mod zfetch;

//! Devices: how long a command takes (mechanism), never which command goes next in ZFS
//! (that is the queue policy's job).
//!
//! A device is a state machine driven by three calls: `submit` a command when
//! `can_accept` says a tag is free, `advance(now)` to collect the commands that finished
//! by `now`, and `next_event_ns` to learn when it next needs the clock. The model keeps
//! one wake-up event per device scheduled at `next_event_ns` (stale wake-ups are ignored by
//! generation number). Devices draw randomness only from their own [`Rng`] stream.

pub mod hdd;
pub mod link;
pub mod presets;
pub mod simple;
pub mod ssd;

use crate::io::Op;
use serde::{Deserialize, Serialize};

/// A command as the device sees it. `tag` is opaque to the device and returned on completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cmd {
    pub tag: u32,
    pub op: Op,
    pub offset_bytes: u64,
    pub size_bytes: u64,
}

/// The mechanism interface every device model implements.
pub trait Device {
    fn capacity_bytes(&self) -> u64;
    /// Rotational media (affects ZFS's aggregation limit and mirror seek penalty).
    fn rotational(&self) -> bool;
    /// Most commands the device holds at once (NCQ/TCQ tags).
    fn queue_depth(&self) -> u32;
    /// Commands submitted and not yet completed.
    fn outstanding(&self) -> u32;
    /// True if a command of kind `op` may be submitted now (a free tag, and no
    /// non-queued command such as a SATA FLUSH draining the queue).
    fn can_accept(&self, op: Op) -> bool;
    /// Hand a command to the device at `now_ns`. Callers check `can_accept` first.
    fn submit(&mut self, now_ns: u64, cmd: Cmd);
    /// Advance internal state to `now_ns`; push the tags of commands completed at or
    /// before `now_ns` into `done`, in completion order.
    fn advance(&mut self, now_ns: u64, done: &mut Vec<u32>);
    /// The next instant the device needs `advance` called (a completion or an internal
    /// step such as a destage), or `None` when idle.
    fn next_event_ns(&self) -> Option<u64>;
}

/// A device specification as scenarios give it (after preset resolution in Python).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum DeviceSpec {
    Hdd(hdd::HddParams),
    Ssd(ssd::SsdParams),
    Simple(simple::SimpleParams),
}

/// Every device and link error is one line, `field: value — what is wrong; allowed: …`
/// (docs/scenario.md, "Errors"); the caller puts `devices.<name>.` or `links.<name>.` in
/// front, and Python's pre-checks of the same fields use the same words, so a value just
/// outside a range reads the same whichever side rejects it.
pub(crate) fn check_range<T: PartialOrd + std::fmt::Display>(field: &str, v: T, lo: T, hi: T) -> Result<(), String> {
    let allowed = format!("{lo}..{hi}");
    check_range_as(field, v, lo, hi, &allowed)
}

/// As [`check_range`], with `allowed` in words: a bound that is another field's value is
/// named (`1000000..rate_od_bytes_per_s (52428800)`), an open one said (`at least 1`).
pub(crate) fn check_range_as<T: PartialOrd + std::fmt::Display>(
    field: &str,
    v: T,
    lo: T,
    hi: T,
    allowed: &str,
) -> Result<(), String> {
    // Written so that a NaN is out of range too.
    if v >= lo && v <= hi {
        Ok(())
    } else {
        Err(format!("{field}: {v} — out of range; allowed: {allowed}"))
    }
}

/// The reliability figures a device's datasheet gives: `afr_percent` in [0, 100],
/// `nonrecoverable_read_error_bits` 0 (not published) or in [1e10, 1e20].
pub(crate) fn check_reliability(afr: f64, bits: f64) -> Result<(), String> {
    check_range_as("afr_percent", afr, 0.0, 100.0, "0 (not published)..100")?;
    if bits != 0.0 {
        check_range_as("nonrecoverable_read_error_bits", bits, 1e10, 1e20, "0 (not published), or 1e10..1e20")?;
    }
    Ok(())
}

impl DeviceSpec {
    /// (annualized failure rate %, bits read per non-recoverable read error); 0 = unknown.
    pub fn reliability(&self) -> (f64, f64) {
        match self {
            DeviceSpec::Hdd(p) => (p.afr_percent, p.nonrecoverable_read_error_bits),
            DeviceSpec::Ssd(p) => (p.afr_percent, p.nonrecoverable_read_error_bits),
            DeviceSpec::Simple(p) => (p.afr_percent, p.nonrecoverable_read_error_bits),
        }
    }
    pub fn capacity_bytes(&self) -> u64 {
        match self {
            DeviceSpec::Hdd(p) => p.capacity_bytes,
            DeviceSpec::Ssd(p) => p.capacity_bytes,
            DeviceSpec::Simple(p) => p.capacity_bytes,
        }
    }
    /// Check every parameter; one line naming the field, value and allowed range.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            DeviceSpec::Hdd(p) => p.validate(),
            DeviceSpec::Ssd(p) => p.validate(),
            DeviceSpec::Simple(p) => p.validate(),
        }
    }
    /// Build the device; `rng_seed` is the device's own stream seed.
    pub fn build(&self, rng_seed: u64) -> AnyDevice {
        match self {
            DeviceSpec::Hdd(p) => AnyDevice::Hdd(Box::new(hdd::Hdd::new(p.clone(), rng_seed))),
            DeviceSpec::Ssd(p) => AnyDevice::Ssd(Box::new(ssd::Ssd::new(p.clone(), rng_seed))),
            DeviceSpec::Simple(p) => AnyDevice::Simple(simple::SimpleDevice::new(p.clone(), rng_seed)),
        }
    }
}

/// Static dispatch over the device models.
pub enum AnyDevice {
    Hdd(Box<hdd::Hdd>),
    Ssd(Box<ssd::Ssd>),
    Simple(simple::SimpleDevice),
}

macro_rules! dispatch {
    ($self:ident, $d:ident => $e:expr) => {
        match $self {
            AnyDevice::Hdd($d) => $e,
            AnyDevice::Ssd($d) => $e,
            AnyDevice::Simple($d) => $e,
        }
    };
}

impl Device for AnyDevice {
    fn capacity_bytes(&self) -> u64 {
        dispatch!(self, d => d.capacity_bytes())
    }
    fn rotational(&self) -> bool {
        dispatch!(self, d => d.rotational())
    }
    fn queue_depth(&self) -> u32 {
        dispatch!(self, d => d.queue_depth())
    }
    fn outstanding(&self) -> u32 {
        dispatch!(self, d => d.outstanding())
    }
    #[inline]
    fn can_accept(&self, op: Op) -> bool {
        dispatch!(self, d => d.can_accept(op))
    }
    #[inline]
    fn submit(&mut self, now_ns: u64, cmd: Cmd) {
        dispatch!(self, d => d.submit(now_ns, cmd))
    }
    #[inline]
    fn advance(&mut self, now_ns: u64, done: &mut Vec<u32>) {
        dispatch!(self, d => d.advance(now_ns, done))
    }
    #[inline]
    fn next_event_ns(&self) -> Option<u64> {
        dispatch!(self, d => d.next_event_ns())
    }
}

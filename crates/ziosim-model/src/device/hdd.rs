//! HDD model — placeholder until the position-aware model lands (seek, rotation, zones,
//! NCQ/SATF, caches). See `spec/devices.md` §2.
use super::{simple, Cmd, Device};
use crate::io::Op;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HddParams {
    pub capacity_bytes: u64,
}

impl HddParams {
    pub fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

pub struct Hdd {
    inner: simple::SimpleDevice,
}

impl Hdd {
    pub fn new(p: HddParams, rng_seed: u64) -> Hdd {
        let sp = simple::SimpleParams {
            capacity_bytes: p.capacity_bytes,
            service_ns_mean: 12_000_000,
            distribution: simple::ServiceDist::Exponential,
            bandwidth_bytes_per_s: 150_000_000,
            queue_depth: 32,
            rotational: true,
        };
        Hdd { inner: simple::SimpleDevice::new(sp, rng_seed) }
    }
}

impl Device for Hdd {
    fn capacity_bytes(&self) -> u64 { self.inner.capacity_bytes() }
    fn rotational(&self) -> bool { true }
    fn queue_depth(&self) -> u32 { self.inner.queue_depth() }
    fn outstanding(&self) -> u32 { self.inner.outstanding() }
    fn can_accept(&self, op: Op) -> bool { self.inner.can_accept(op) }
    fn submit(&mut self, now_ns: u64, cmd: Cmd) { self.inner.submit(now_ns, cmd) }
    fn advance(&mut self, now_ns: u64, done: &mut Vec<u32>) { self.inner.advance(now_ns, done) }
    fn next_event_ns(&self) -> Option<u64> { self.inner.next_event_ns() }
}

/// Bundled HDD presets: (name, description, parameters).
pub fn presets() -> Vec<(&'static str, &'static str, HddParams)> {
    vec![("hdd-7200-sata-2014", "placeholder 1 TB 7200 rpm", HddParams { capacity_bytes: 1_000_000_000_000 })]
}

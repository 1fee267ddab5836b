//! SSD model — placeholder until the parallel back-end model lands (channels, dies,
//! write buffer, flush, PLP). See `spec/devices.md` §5.
use super::{simple, Cmd, Device};
use crate::io::Op;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SsdParams {
    pub capacity_bytes: u64,
}

impl SsdParams {
    pub fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

pub struct Ssd {
    inner: simple::SimpleDevice,
}

impl Ssd {
    pub fn new(p: SsdParams, rng_seed: u64) -> Ssd {
        let sp = simple::SimpleParams {
            capacity_bytes: p.capacity_bytes,
            service_ns_mean: 100_000,
            distribution: simple::ServiceDist::Exponential,
            bandwidth_bytes_per_s: 500_000_000,
            queue_depth: 32,
            rotational: false,
        };
        Ssd { inner: simple::SimpleDevice::new(sp, rng_seed) }
    }
}

impl Device for Ssd {
    fn capacity_bytes(&self) -> u64 { self.inner.capacity_bytes() }
    fn rotational(&self) -> bool { false }
    fn queue_depth(&self) -> u32 { self.inner.queue_depth() }
    fn outstanding(&self) -> u32 { self.inner.outstanding() }
    fn can_accept(&self, op: Op) -> bool { self.inner.can_accept(op) }
    fn submit(&mut self, now_ns: u64, cmd: Cmd) { self.inner.submit(now_ns, cmd) }
    fn advance(&mut self, now_ns: u64, done: &mut Vec<u32>) { self.inner.advance(now_ns, done) }
    fn next_event_ns(&self) -> Option<u64> { self.inner.next_event_ns() }
}

/// Bundled SSD presets: (name, description, parameters).
pub fn presets() -> Vec<(&'static str, &'static str, SsdParams)> {
    vec![]
}

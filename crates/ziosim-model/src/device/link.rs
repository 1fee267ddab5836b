//! Links — placeholder with the final API until the shared-link model lands (bandwidth
//! caps, SATA port multipliers with command- and FIS-based switching; `spec/devices.md` §4).
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    pub kind: String,
    pub rate_bytes_per_s: u64,
    #[serde(default)]
    pub per_command_overhead_ns: u64,
    #[serde(default)]
    pub host_slots: u32,
}

impl LinkParams {
    pub fn validate(&self) -> Result<(), String> {
        if self.rate_bytes_per_s == 0 {
            return Err("rate_bytes_per_s: 0 — allowed: > 0".into());
        }
        Ok(())
    }
}

pub struct Link {
    p: LinkParams,
    free_at_ns: u64,
}

impl Link {
    pub fn new(p: LinkParams, _ports: usize) -> Link {
        Link { p, free_at_ns: 0 }
    }
    pub fn may_issue(&mut self, _port: usize) -> bool {
        true
    }
    pub fn on_issue(&mut self, _port: usize) {}
    pub fn on_device_done(&mut self, _port: usize) {}
    pub fn transfer(&mut self, now_ns: u64, bytes: u64) -> u64 {
        let start = now_ns.max(self.free_at_ns);
        let dur = self.p.per_command_overhead_ns + (bytes as u128 * 1_000_000_000 / self.p.rate_bytes_per_s as u128) as u64;
        self.free_at_ns = start + dur;
        self.free_at_ns
    }
    pub fn waiting_ports(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::empty()
    }
}

//! The run config: the scenario after Python has validated and normalised it (every size in
//! bytes, every time in ns). Shape documented in `docs/internals.md`. Python reports user
//! mistakes; what reaches here is checked again and any remaining problem is reported as a
//! one-line error naming the field.

use crate::device::link::LinkParams;
use crate::device::DeviceSpec;
use crate::pool::VdevType;
use crate::release::Release;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    pub name: String,
    pub seed: u64,
    pub release: Release,
    /// Platform clock ticks per second (legacy scan delays are in ticks).
    pub hz: u32,
    pub ram_bytes: u64,
    pub stop_ns: u64,
    pub report_interval_ns: u64,
    #[serde(default)]
    pub tunables: BTreeMap<String, i64>,
    pub devices: BTreeMap<String, DeviceSpec>,
    #[serde(default)]
    pub links: BTreeMap<String, LinkParams>,
    pub pool: PoolConfig,
    #[serde(default)]
    pub workloads: Vec<WorkloadConfig>,
    #[serde(default)]
    pub limits: Option<LimitsConfig>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    pub events_max: u64,
    pub time_ns_max: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolConfig {
    pub name: String,
    pub ashift: u32,
    pub recordsize_bytes: u64,
    /// Logical (pre-parity) data bytes stored in the pool.
    pub allocated_bytes: u64,
    pub vdevs: Vec<VdevConfig>,
    #[serde(default)]
    pub cache: Vec<DiskConfig>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VdevConfig {
    #[serde(rename = "type")]
    pub kind: VdevType,
    pub disks: Vec<DiskConfig>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskConfig {
    pub name: String,
    pub device: String,
    #[serde(default)]
    pub link: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadKind {
    RandomRead,
    RandomWrite,
    SeqRead,
    SeqWrite,
}

impl WorkloadKind {
    pub fn key(self) -> &'static str {
        match self {
            WorkloadKind::RandomRead => "random-read",
            WorkloadKind::RandomWrite => "random-write",
            WorkloadKind::SeqRead => "seq-read",
            WorkloadKind::SeqWrite => "seq-write",
        }
    }
    pub fn is_read(self) -> bool {
        matches!(self, WorkloadKind::RandomRead | WorkloadKind::SeqRead)
    }
    pub fn is_seq(self) -> bool {
        matches!(self, WorkloadKind::SeqRead | WorkloadKind::SeqWrite)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadConfig {
    pub name: String,
    pub kind: WorkloadKind,
    /// (size in bytes, weight) pairs.
    pub sizes: Vec<(u64, f64)>,
    #[serde(default)]
    pub rate_per_s: Option<f64>,
    #[serde(default)]
    pub threads: Option<u32>,
    #[serde(default)]
    pub think_ns: u64,
    #[serde(default)]
    pub region_offset_bytes: u64,
    /// 0 = the whole allocated space.
    #[serde(default)]
    pub region_length_bytes: u64,
    #[serde(default)]
    pub arc_hit_ratio: f64,
    /// Latency of an ARC hit (a memory copy), ns.
    #[serde(default = "default_arc_hit_ns")]
    pub arc_hit_ns: u64,
    #[serde(default)]
    pub l2arc_hit_ratio: f64,
    #[serde(default)]
    pub start_ns: u64,
    #[serde(default)]
    pub stop_ns: Option<u64>,
}

fn default_arc_hit_ns() -> u64 {
    2_000
}

/// A config problem: one line naming the field, the value and what is allowed.
pub fn field_err(field: &str, value: impl std::fmt::Display, allowed: &str) -> String {
    format!("{field}: {value} — {allowed}")
}

impl RunConfig {
    pub fn from_json(s: &str) -> Result<RunConfig, String> {
        let c: RunConfig = serde_json::from_str(s).map_err(|e| format!("run config: {e}"))?;
        c.check()?;
        Ok(c)
    }

    /// Checks the Python side cannot do alone (it does the user-facing ones first).
    pub fn check(&self) -> Result<(), String> {
        if self.report_interval_ns == 0 {
            return Err(field_err("scenario.report_interval", 0, "allowed: a positive duration"));
        }
        for (name, d) in &self.devices {
            d.validate().map_err(|e| format!("devices.{name}.{e}"))?;
        }
        for (name, l) in &self.links {
            l.validate().map_err(|e| format!("links.{name}.{e}"))?;
        }
        if self.pool.vdevs.is_empty() {
            return Err(field_err("pool.vdevs", "[]", "allowed: at least one vdev"));
        }
        if !(9..=16).contains(&self.pool.ashift) {
            return Err(field_err("pool.ashift", self.pool.ashift, "allowed: 9..=16"));
        }
        let rs = self.pool.recordsize_bytes;
        if !rs.is_power_of_two() || !(512..=16 << 20).contains(&rs) {
            return Err(field_err("pool.recordsize", rs, "allowed: a power of two from 512 to 16M"));
        }
        for (i, v) in self.pool.vdevs.iter().enumerate() {
            if v.disks.len() < v.kind.min_children() {
                return Err(field_err(
                    &format!("pool.vdevs[{i}].disks"),
                    v.disks.len(),
                    &format!("too few for {}; allowed: at least {}", v.kind.label(), v.kind.min_children()),
                ));
            }
            if v.kind == VdevType::Disk && v.disks.len() != 1 {
                return Err(field_err(&format!("pool.vdevs[{i}].disks"), v.disks.len(), "allowed: exactly 1 for type disk"));
            }
            for (j, d) in v.disks.iter().enumerate() {
                self.check_disk(&format!("pool.vdevs[{i}].disks[{j}]"), d)?;
            }
        }
        for (j, d) in self.pool.cache.iter().enumerate() {
            self.check_disk(&format!("pool.cache[{j}]"), d)?;
        }
        for (i, w) in self.workloads.iter().enumerate() {
            let f = |k: &str| format!("workload[{i}].{k}");
            if w.sizes.is_empty() || w.sizes.iter().any(|(s, wt)| *s == 0 || !(*wt > 0.0)) {
                return Err(field_err(&f("sizes"), format!("{:?}", w.sizes), "allowed: sizes > 0 with weights > 0"));
            }
            match (w.rate_per_s, w.threads) {
                (Some(r), None) if r > 0.0 && r.is_finite() => {}
                (None, Some(t)) if t > 0 => {}
                _ => return Err(field_err(&f("rate"), format!("{:?}/{:?}", w.rate_per_s, w.threads), "allowed: exactly one of rate > 0 or threads > 0")),
            }
            for (k, v) in [("arc_hit", w.arc_hit_ratio), ("l2arc_hit", w.l2arc_hit_ratio)] {
                if !(0.0..=1.0).contains(&v) {
                    return Err(field_err(&f(k), v, "allowed: 0..=1"));
                }
            }
            if w.l2arc_hit_ratio > 0.0 && self.pool.cache.is_empty() {
                return Err(field_err(&f("l2arc_hit"), w.l2arc_hit_ratio, "allowed: 0 unless pool.cache has a device"));
            }
        }
        Ok(())
    }

    fn check_disk(&self, field: &str, d: &DiskConfig) -> Result<(), String> {
        if !self.devices.contains_key(&d.device) {
            let have: Vec<&str> = self.devices.keys().map(|s| s.as_str()).collect();
            return Err(field_err(&format!("{field}.device"), &d.device, &format!("allowed: one of [{}]", have.join(", "))));
        }
        if let Some(l) = &d.link {
            if !self.links.contains_key(l) {
                let have: Vec<&str> = self.links.keys().map(|s| s.as_str()).collect();
                return Err(field_err(&format!("{field}.link"), l, &format!("allowed: one of [{}]", have.join(", "))));
            }
        }
        Ok(())
    }
}

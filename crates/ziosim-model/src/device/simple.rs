//! The simplest device (FoundationDB sim2's baseline): one FIFO server whose service time
//! is a fixed or exponentially distributed per-command time plus size / bandwidth. Richer
//! models are tested against it, and queueing-theory checks (M/M/1, M/D/1) run on it.

use super::{Cmd, Device};
use crate::io::Op;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use ziosim_engine::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServiceDist {
    Deterministic,
    Exponential,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimpleParams {
    pub capacity_bytes: u64,
    /// Mean per-command service time, ns.
    pub service_ns_mean: u64,
    pub distribution: ServiceDist,
    /// Added transfer time size/bandwidth; 0 = none.
    #[serde(default)]
    pub bandwidth_bytes_per_s: u64,
    /// Commands the device holds at once.
    pub queue_depth: u32,
    #[serde(default)]
    pub rotational: bool,
    /// Datasheet annualized failure rate, percent (reliability arithmetic only, never the
    /// simulation); 0 = not published. `docs/scenario.md`, "Redundancy".
    #[serde(default)]
    pub afr_percent: f64,
    /// Datasheet non-recoverable read error rate: one error per this many bits read;
    /// 0 = not published.
    #[serde(default)]
    pub nonrecoverable_read_error_bits: f64,
}

impl SimpleParams {
    pub fn validate(&self) -> Result<(), String> {
        super::check_range_as("capacity_bytes", self.capacity_bytes, 1, u64::MAX, "at least 1")?;
        super::check_range_as("queue_depth", self.queue_depth, 1, u32::MAX, "at least 1")?;
        super::check_reliability(self.afr_percent, self.nonrecoverable_read_error_bits)
    }
}

pub struct SimpleDevice {
    p: SimpleParams,
    rng: Rng,
    waiting: VecDeque<Cmd>,
    /// The command in service and its finish time.
    busy: Option<(Cmd, u64)>,
}

impl SimpleDevice {
    pub fn new(p: SimpleParams, rng_seed: u64) -> SimpleDevice {
        SimpleDevice { p, rng: Rng::from_u64(rng_seed), waiting: VecDeque::new(), busy: None }
    }
    fn service_ns(&mut self, cmd: &Cmd) -> u64 {
        let base = match self.p.distribution {
            ServiceDist::Deterministic => self.p.service_ns_mean as f64,
            ServiceDist::Exponential => self.rng.exp(self.p.service_ns_mean as f64),
        };
        let xfer = if self.p.bandwidth_bytes_per_s > 0 && cmd.op != Op::Flush {
            cmd.size_bytes as f64 * 1e9 / self.p.bandwidth_bytes_per_s as f64
        } else {
            0.0
        };
        (base + xfer).round().max(1.0) as u64
    }
    fn start_next(&mut self, now_ns: u64) {
        if self.busy.is_none() {
            if let Some(c) = self.waiting.pop_front() {
                let s = self.service_ns(&c);
                self.busy = Some((c, now_ns + s));
            }
        }
    }
}

impl Device for SimpleDevice {
    fn capacity_bytes(&self) -> u64 {
        self.p.capacity_bytes
    }
    fn rotational(&self) -> bool {
        self.p.rotational
    }
    fn queue_depth(&self) -> u32 {
        self.p.queue_depth
    }
    fn outstanding(&self) -> u32 {
        self.waiting.len() as u32 + self.busy.is_some() as u32
    }
    fn can_accept(&self, _op: Op) -> bool {
        self.outstanding() < self.p.queue_depth
    }
    fn submit(&mut self, now_ns: u64, cmd: Cmd) {
        self.waiting.push_back(cmd);
        self.start_next(now_ns);
    }
    fn advance(&mut self, now_ns: u64, done: &mut Vec<u32>) {
        while let Some((c, t)) = self.busy {
            if t > now_ns {
                break;
            }
            done.push(c.tag);
            self.busy = None;
            // The next command starts when the previous one finished, not at `now`.
            self.start_next(t);
        }
    }
    fn next_event_ns(&self) -> Option<u64> {
        self.busy.map(|(_, t)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_names_field_value_and_range() {
        let p = SimpleParams {
            capacity_bytes: 1 << 30,
            service_ns_mean: 1_000,
            distribution: ServiceDist::Deterministic,
            bandwidth_bytes_per_s: 0,
            queue_depth: 0,
            rotational: false,
            afr_percent: 0.0,
            nonrecoverable_read_error_bits: 0.0,
        };
        assert_eq!(p.validate().unwrap_err(), "queue_depth: 0 — out of range; allowed: at least 1");
        let p = SimpleParams { queue_depth: 1, capacity_bytes: 0, ..p };
        assert_eq!(p.validate().unwrap_err(), "capacity_bytes: 0 — out of range; allowed: at least 1");
        assert_eq!(SimpleParams { capacity_bytes: 1, ..p }.validate(), Ok(()));
    }
}

//! Shared links: the path between the host and several devices (spec/devices.md §4, §9.7).
//!
//! Theory of operation
//! -------------------
//! What it decides: whether a command may be sent to a device behind the link now
//! (`may_issue`), and when data carried over the link arrives (`transfer`). The devices decide
//! how long the commands take; ZFS's queue policy decides which command goes next.
//!
//! Kinds:
//! - `shared`: a plain bandwidth cap shared by its devices (an iSCSI path over 1 GbE carries
//!   ≈ 100–117 MB/s; a PCIe 2.0 ×1 HBA lane ≈ 400 MB/s [E §4]). Never refuses a command.
//!   `latency_ns` adds a fixed delay to each transfer without occupying the link (a network
//!   round trip); `per_command_overhead_ns` occupies it (protocol exchange per command).
//! - `pm-cbs`: a SATA port multiplier with command-based switching. "The controller can issue
//!   commands to only one disk at a time … until the command queue has been completed"
//!   (Wikipedia, Port multiplier, oldid=486074033) [S]. As Linux does it
//!   (`drivers/ata/libata-pmp.c`, `sata_pmp_qc_defer_cmd_switch`, "implicit round robin") [S]:
//!   a port token. The owner may fill its queue once when it gets the token (its burst). From
//!   its first completion on, if any other device waits, it gets no new commands. When its
//!   outstanding count reaches 0, the token passes to the next waiting port after it, round
//!   robin. An owner holding nothing yields the token as soon as another port asks.
//! - `pm-fbs`: FIS-based switching. All devices are active at once; the host port's
//!   `host_slots` command slots (AHCI: 32) are shared by every device behind it [R §4]. Data
//!   FISes share the link; as one FIFO byte server here (FIS interleaving at ≤ 8 KiB
//!   granularity is finer than the transfers we carry, so FIFO whole transfers give the same
//!   throughput, with slightly lumpier per-transfer latency).
//!
//! Invariants: bytes carried over any interval ≤ rate × interval (+ one transfer);
//! `pm-cbs`: at most one port has outstanding commands; `pm-fbs`: the sum of outstanding
//! commands ≤ `host_slots`. Fairness: refused ports are listed by `waiting_ports()` round
//! robin; the caller retries them in that order before issuing anew.

use serde::{Deserialize, Serialize};

/// How the link shares itself among the devices behind it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkKind {
    /// A bandwidth cap only.
    Shared,
    /// Port multiplier, command-based switching: one device at a time, drain then switch.
    PmCbs,
    /// Port multiplier, FIS-based switching: all devices, shared host command slots.
    PmFbs,
}

fn default_host_slots() -> u32 {
    32
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    /// shared | pm-cbs | pm-fbs.
    pub kind: LinkKind,
    /// Payload rate of the link, bytes/s (1e5–1e11; SATA 3G ≈ 280e6, 1 GbE ≈ 117e6).
    pub rate_bytes_per_s: u64,
    /// Link time each command occupies besides its data (protocol exchange), ns (0–1e7).
    #[serde(default)]
    pub per_command_overhead_ns: u64,
    /// Delay added to every transfer without occupying the link (network round trip), ns (0–1e9).
    #[serde(default)]
    pub latency_ns: u64,
    /// Command slots shared by all devices behind the port (pm-fbs only; AHCI 32), 1–1024.
    #[serde(default = "default_host_slots")]
    pub host_slots: u32,
}

impl LinkParams {
    /// Check every field; the error is one line naming the field, its value and the range
    /// (`host_slots: 0 — out of range; allowed: 1..1024`); the caller adds `links.<name>.`.
    pub fn validate(&self) -> Result<(), String> {
        use super::check_range;
        check_range("rate_bytes_per_s", self.rate_bytes_per_s, 100_000, 100_000_000_000)?;
        check_range("per_command_overhead_ns", self.per_command_overhead_ns, 0, 10_000_000)?;
        check_range("latency_ns", self.latency_ns, 0, 1_000_000_000)?;
        check_range("host_slots", self.host_slots as u64, 1, 1024)?;
        Ok(())
    }
}

/// Bundled link presets (spec §9.7, §4): (name, description, parameters).
pub fn presets() -> Vec<(&'static str, &'static str, LinkParams)> {
    let l = |kind, rate, overhead_ns, latency_ns| LinkParams {
        kind,
        rate_bytes_per_s: rate,
        per_command_overhead_ns: overhead_ns,
        latency_ns,
        host_slots: 32,
    };
    vec![
        // 1 GbE ≈ 117 MB/s payload [E]; busy-scrub case path ≈ 100 MB/s (design.md §7) [S].
        (
            "iscsi-1gbe",
            "iSCSI over 1 GbE: ~110 MB/s shared, ~0.2 ms round trip",
            l(LinkKind::Shared, 110_000_000, 0, 200_000),
        ),
        // §9.7: 3G payload 280 MB/s [E], per-command host overhead 5–10 µs [E].
        (
            "pm-cbs-3g",
            "SATA 3G port multiplier, command-based switching",
            l(LinkKind::PmCbs, 280_000_000, 5_000, 0),
        ),
        (
            "pm-fbs-3g",
            "SATA 3G port multiplier, FIS-based switching (32 shared slots)",
            l(LinkKind::PmFbs, 280_000_000, 5_000, 0),
        ),
        // §4: Marvell 88SE912x/9215 PCIe 2.0 ×1 ≈ 380–420 MB/s practical [E].
        (
            "pcie2-x1-hba",
            "PCIe 2.0 x1 SATA HBA lane (Marvell 88SE912x class)",
            l(LinkKind::Shared, 400_000_000, 0, 0),
        ),
    ]
}

/// A link and the state of the devices behind it (ports 0..ports).
pub struct Link {
    p: LinkParams,
    /// When the link finishes the last transfer it accepted.
    free_ns: u64,
    outstanding: Vec<u32>,
    outstanding_total: u32,
    /// Refused by `may_issue` and not yet granted.
    waiting: Vec<bool>,
    /// pm-cbs: the port holding the token.
    owner: Option<usize>,
    /// pm-cbs: the owner may still fill its queue although others wait (until its first completion).
    burst_open: bool,
    bytes_carried: u64,
    /// Where `waiting_ports` starts: after the last waiting port that was granted (round robin).
    rr_next: usize,
}

impl Link {
    pub fn new(p: LinkParams, ports: usize) -> Link {
        if let Err(e) = p.validate() {
            panic!("invalid link parameters (validate before building): {e}");
        }
        // `ports` may be 0: a link the scenario declares but no disk uses carries nothing.
        Link {
            p,
            free_ns: 0,
            outstanding: vec![0; ports],
            outstanding_total: 0,
            waiting: vec![false; ports],
            owner: None,
            burst_open: false,
            bytes_carried: 0,
            rr_next: 0,
        }
    }

    /// May a new command be sent to the device on `port` now? A `false` answer registers
    /// the port as waiting (for CBS it also claims the next turn of the token).
    pub fn may_issue(&mut self, port: usize) -> bool {
        let ok = match self.p.kind {
            LinkKind::Shared => true,
            LinkKind::PmFbs => self.outstanding_total < self.p.host_slots,
            LinkKind::PmCbs => self.cbs_may_issue(port),
        };
        if ok && self.waiting[port] {
            self.rr_next = (port + 1) % self.waiting.len();
        }
        self.waiting[port] = !ok;
        ok
    }

    fn cbs_may_issue(&mut self, port: usize) -> bool {
        if let Some(o) = self.owner {
            if o != port && self.outstanding[o] == 0 {
                // The owner holds nothing: it yields to whoever is next in round-robin order.
                self.waiting[port] = true;
                self.pass_token(o);
            }
        }
        match self.owner {
            None => {
                self.owner = Some(port);
                self.burst_open = true;
                true
            }
            Some(o) if o == port => {
                if self.burst_open || !self.others_waiting(port) {
                    return true;
                }
                if self.outstanding[port] == 0 {
                    // Drained and others wait: the token moves on now.
                    self.waiting[port] = true;
                    self.pass_token(port);
                }
                false
            }
            Some(_) => false,
        }
    }

    fn others_waiting(&self, port: usize) -> bool {
        self.waiting.iter().enumerate().any(|(q, &w)| w && q != port)
    }

    /// Hand the token to the first waiting port after `from` (ending with `from` itself).
    fn pass_token(&mut self, from: usize) {
        let n = self.waiting.len();
        self.owner = (1..=n).map(|i| (from + i) % n).find(|&q| self.waiting[q]);
        self.burst_open = self.owner.is_some();
    }

    /// A command was sent to the device on `port`.
    pub fn on_issue(&mut self, port: usize) {
        debug_assert!(
            self.p.kind != LinkKind::PmCbs || self.owner == Some(port),
            "CBS issue without the token"
        );
        self.outstanding[port] += 1;
        self.outstanding_total += 1;
        debug_assert!(self.p.kind != LinkKind::PmFbs || self.outstanding_total <= self.p.host_slots);
    }

    /// The device on `port` completed a command: frees its slot, may pass the CBS token.
    pub fn on_device_done(&mut self, port: usize) {
        assert!(self.outstanding[port] > 0, "completion on port {port} with nothing outstanding");
        self.outstanding[port] -= 1;
        self.outstanding_total -= 1;
        if self.p.kind == LinkKind::PmCbs && self.owner == Some(port) {
            self.burst_open = false;
            if self.outstanding[port] == 0 {
                if self.others_waiting(port) {
                    self.pass_token(port);
                } else {
                    self.owner = None;
                }
            }
        }
    }

    /// Carry `bytes` starting no earlier than `now_ns`, after every transfer accepted before
    /// (FIFO), occupying the link for the per-command overhead plus bytes / rate. Returns
    /// when the data has arrived (including `latency_ns`).
    pub fn transfer(&mut self, now_ns: u64, bytes: u64) -> u64 {
        let start = now_ns.max(self.free_ns);
        let data_ns = (bytes as u128 * 1_000_000_000).div_ceil(self.p.rate_bytes_per_s as u128) as u64;
        self.free_ns = start + self.p.per_command_overhead_ns + data_ns;
        self.bytes_carried += bytes;
        self.free_ns + self.p.latency_ns
    }

    /// Ports refused earlier that may issue now, in round-robin order starting after the
    /// last waiting port that was granted (retry them after `on_device_done`, in this order,
    /// before issuing anew, and FBS slots go round the waiters).
    pub fn waiting_ports(&self) -> impl Iterator<Item = usize> + '_ {
        let n = self.waiting.len();
        (0..n).map(move |i| (self.rr_next + i) % n).filter(move |&q| self.waiting[q] && self.could_issue(q))
    }

    /// Whether any port is refused and not yet granted (`waiting_ports` may list one).
    #[inline]
    pub fn any_waiting(&self) -> bool {
        // A shared link refuses nobody, so its ports are never waiting.
        debug_assert!(self.p.kind != LinkKind::Shared || !self.waiting.contains(&true));
        self.p.kind != LinkKind::Shared && self.waiting.contains(&true)
    }

    /// `may_issue` without side effects.
    fn could_issue(&self, port: usize) -> bool {
        match self.p.kind {
            LinkKind::Shared => true,
            LinkKind::PmFbs => self.outstanding_total < self.p.host_slots,
            LinkKind::PmCbs => match self.owner {
                None => true,
                Some(o) => o == port && (self.burst_open || !self.others_waiting(port)),
            },
        }
    }

    /// Commands outstanding on `port`.
    pub fn outstanding(&self, port: usize) -> u32 {
        self.outstanding[port]
    }
    /// pm-cbs: the port holding the token.
    pub fn owner(&self) -> Option<usize> {
        self.owner
    }
    /// Bytes carried so far.
    pub fn bytes_carried(&self) -> u64 {
        self.bytes_carried
    }
    pub fn params(&self) -> &LinkParams {
        &self.p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::simple::{ServiceDist, SimpleDevice, SimpleParams};
    use crate::device::{Cmd, Device};
    use crate::io::Op;

    fn params(kind: LinkKind, rate: u64) -> LinkParams {
        LinkParams { kind, rate_bytes_per_s: rate, per_command_overhead_ns: 0, latency_ns: 0, host_slots: 32 }
    }

    /// What a run of devices behind a link did.
    struct Run {
        /// (start, end) of every link transfer, in call order.
        transfers: Vec<(u64, u64)>,
        /// Ports in the order they became the only active port (CBS token order).
        activations: Vec<usize>,
        completions: Vec<u64>,
        outstanding_total_max: u32,
        active_ports_max: usize,
    }

    /// `ports` devices, each always wanting more reads of `size` bytes; completions travel
    /// over the link. The simulator's side of the `Link` contract, in miniature.
    fn run(lp: LinkParams, ports: usize, dev_qd: u32, service_ns: u64, size: u64, ios: u64) -> Run {
        let mut link = Link::new(lp, ports);
        let mut devs: Vec<SimpleDevice> = (0..ports)
            .map(|i| {
                let sp = SimpleParams {
                    capacity_bytes: 1 << 40,
                    service_ns_mean: service_ns,
                    distribution: ServiceDist::Exponential,
                    bandwidth_bytes_per_s: 0,
                    queue_depth: dev_qd,
                    rotational: false,
                    afr_percent: 0.0,
                    nonrecoverable_read_error_bits: 0.0,
                };
                SimpleDevice::new(sp, 1000 + i as u64)
            })
            .collect();
        let mut r = Run {
            transfers: Vec::new(),
            activations: Vec::new(),
            completions: vec![0; ports],
            outstanding_total_max: 0,
            active_ports_max: 0,
        };
        let mut tag = 0u32;
        let mut done = Vec::new();
        let mut t = 0u64;
        let mut issued = 0u64;
        loop {
            // Issue: refused ports first (fairness), then every port in order.
            let retry: Vec<usize> = link.waiting_ports().collect();
            for port in retry.into_iter().chain(0..ports) {
                while issued < ios && devs[port].can_accept(Op::Read) && link.may_issue(port) {
                    let was_idle = (0..ports).all(|q| link.outstanding(q) == 0);
                    link.on_issue(port);
                    if was_idle {
                        r.activations.push(port);
                    }
                    devs[port].submit(t, Cmd { tag, op: Op::Read, offset_bytes: 0, size_bytes: size });
                    tag += 1;
                    issued += 1;
                }
            }
            let total: u32 = (0..ports).map(|q| link.outstanding(q)).sum();
            r.outstanding_total_max = r.outstanding_total_max.max(total);
            r.active_ports_max =
                r.active_ports_max.max((0..ports).filter(|&q| link.outstanding(q) > 0).count());
            let Some(next) = devs.iter().filter_map(|d| d.next_event_ns()).min() else { break };
            t = next;
            for (port, d) in devs.iter_mut().enumerate() {
                done.clear();
                d.advance(t, &mut done);
                for _ in &done {
                    link.on_device_done(port);
                    let before = link.free_ns.max(t);
                    let end = link.transfer(t, size);
                    r.transfers.push((before, end));
                    r.completions[port] += 1;
                }
            }
        }
        r
    }

    fn assert_rate_cap(r: &Run, rate: u64, size: u64) {
        for w in r.transfers.windows(2) {
            assert!(w[1].0 >= w[0].1, "transfers overlap: {:?}", w);
        }
        let first = r.transfers.first().unwrap().0;
        let last = r.transfers.last().unwrap().1;
        let bytes = r.transfers.len() as u64 * size;
        let cap = rate as u128 * (last - first) as u128 / 1_000_000_000 + size as u128;
        assert!((bytes as u128) <= cap, "{bytes} bytes in {} ns exceed {rate} B/s", last - first);
    }

    #[test]
    fn shared_link_caps_aggregate_throughput() {
        // Four fast devices (20 µs per 128 KiB read) behind a 1 GbE-class path.
        let rate = 110_000_000;
        let r = run(params(LinkKind::Shared, rate), 4, 8, 20_000, 128 << 10, 4000);
        assert_rate_cap(&r, rate, 128 << 10);
        let (first, last) = (r.transfers[0].0, r.transfers.last().unwrap().1);
        let achieved = (r.transfers.len() as f64 * (128 << 10) as f64) * 1e9 / (last - first) as f64;
        assert!(achieved > 0.99 * rate as f64, "a saturated link runs at its rate: {achieved:.0}");
        assert_eq!(r.active_ports_max, 4, "a shared link lets every device work");
    }

    #[test]
    fn latency_delays_but_does_not_occupy() {
        let mut lp = params(LinkKind::Shared, 100_000_000);
        lp.latency_ns = 200_000;
        let mut l = Link::new(lp, 1);
        assert_eq!(l.transfer(0, 100_000), 1_000_000 + 200_000);
        assert_eq!(l.transfer(0, 100_000), 2_000_000 + 200_000, "the second waits only for the data");
        let mut lp = params(LinkKind::Shared, 100_000_000);
        lp.per_command_overhead_ns = 10_000;
        let mut l = Link::new(lp, 1);
        assert_eq!(l.transfer(0, 0), 10_000);
        assert_eq!(l.transfer(0, 0), 20_000, "overhead occupies the link");
    }

    #[test]
    fn cbs_serves_one_device_at_a_time_round_robin() {
        let rate = 280_000_000;
        let r = run(params(LinkKind::PmCbs, rate), 3, 8, 2_000_000, 64 << 10, 3000);
        eprintln!("cbs: {} token turns, completions {:?}", r.activations.len(), r.completions);
        assert_eq!(r.active_ports_max, 1, "CBS let two devices hold commands at once");
        assert!(r.activations.len() > 20, "the token must move: {:?}", r.activations);
        for (i, &p) in r.activations.iter().enumerate() {
            assert_eq!(p, i % 3, "token order {:?} is not round robin", &r.activations[..i + 1]);
        }
        assert!(r.completions.iter().all(|&c| c > 900), "unfair service: {:?}", r.completions);
        assert_rate_cap(&r, rate, 64 << 10);
    }

    #[test]
    fn cbs_owner_keeps_streaming_while_nobody_waits() {
        let mut l = Link::new(params(LinkKind::PmCbs, 280_000_000), 2);
        for _ in 0..4 {
            assert!(l.may_issue(0));
            l.on_issue(0);
        }
        l.on_device_done(0);
        assert!(l.may_issue(0), "no one waits: the owner continues");
        l.on_issue(0);
        assert!(!l.may_issue(1), "port 1 must wait for the owner to drain");
        assert!(!l.may_issue(0), "once another waits the owner gets no new commands");
        assert_eq!(l.waiting_ports().count(), 0);
        for _ in 0..4 {
            l.on_device_done(0);
        }
        assert_eq!(l.owner(), Some(1));
        assert_eq!(l.waiting_ports().collect::<Vec<_>>(), vec![1]);
        assert!(l.may_issue(1));
        l.on_issue(1);
        // An owner that got the token but holds nothing yields it to an asker.
        let mut l = Link::new(params(LinkKind::PmCbs, 280_000_000), 2);
        assert!(l.may_issue(0));
        assert!(l.may_issue(1), "idle owner 0 yields the token");
        assert_eq!(l.owner(), Some(1));
    }

    #[test]
    fn fbs_shares_host_slots() {
        let rate = 280_000_000;
        let r = run(params(LinkKind::PmFbs, rate), 5, 32, 500_000, 32 << 10, 5000);
        eprintln!("fbs: completions {:?}, active ports max {}", r.completions, r.active_ports_max);
        assert!(r.outstanding_total_max <= 32, "FBS used {} slots", r.outstanding_total_max);
        assert_eq!(r.outstanding_total_max, 32, "all slots should be in use");
        assert!(r.active_ports_max >= 4, "FBS serves devices concurrently");
        assert!(r.completions.iter().all(|&c| c > 500), "every device is served: {:?}", r.completions);
        assert_rate_cap(&r, rate, 32 << 10);
        let mut l = Link::new(LinkParams { host_slots: 2, ..params(LinkKind::PmFbs, rate) }, 3);
        assert!(l.may_issue(0));
        l.on_issue(0);
        assert!(l.may_issue(1));
        l.on_issue(1);
        assert!(!l.may_issue(2));
        assert_eq!(l.waiting_ports().count(), 0);
        l.on_device_done(0);
        assert_eq!(l.waiting_ports().collect::<Vec<_>>(), vec![2]);
    }

    #[test]
    fn transfer_is_fifo_and_deterministic() {
        let go = || {
            let mut l = Link::new(params(LinkKind::Shared, 300_000_000), 2);
            let mut out = Vec::new();
            let mut now = 0u64;
            for i in 0..1000u64 {
                now += (i * 7919) % 13_000;
                out.push(l.transfer(now, 4096 + (i * 104_729) % 131_072));
            }
            out
        };
        let a = go();
        assert_eq!(a, go());
        assert!(a.windows(2).all(|w| w[1] > w[0]), "FIFO: later calls finish later");
        let mut l = Link::new(params(LinkKind::Shared, 1_000_000_000), 1);
        assert_eq!(l.transfer(100, 1000), 1_100);
        assert_eq!(l.transfer(50, 1000), 2_100, "never before the previous transfer ends");
        assert_eq!(l.transfer(5_000, 1), 5_001, "an idle link starts at now");
    }

    #[test]
    fn params_validate_and_parse() {
        let p: LinkParams =
            serde_json::from_str(r#"{"kind":"pm-cbs","rate_bytes_per_s":280000000}"#).unwrap();
        assert_eq!(p.kind, LinkKind::PmCbs);
        assert_eq!(p.host_slots, 32);
        p.validate().unwrap();
        let e = serde_json::from_str::<LinkParams>(r#"{"kind":"shared","rate_bytes_per_s":1,"rate":2}"#);
        assert!(e.unwrap_err().to_string().contains("rate"));
        let bad = LinkParams { rate_bytes_per_s: 0, ..p.clone() };
        assert_eq!(
            bad.validate().unwrap_err(),
            "rate_bytes_per_s: 0 — out of range; allowed: 100000..100000000000"
        );
        let bad = LinkParams { host_slots: 0, ..p };
        assert_eq!(bad.validate().unwrap_err(), "host_slots: 0 — out of range; allowed: 1..1024");
        for (n, _, lp) in presets() {
            lp.validate().unwrap_or_else(|e| panic!("{n}: {e}"));
        }
    }
}

//! How much redundancy each top-level vdev has left while the model runs, and what running
//! short means with the disks' datasheet reliability figures — "is it safe?" for a resilver:
//! the redundancy-restoration time of spec/users.md §6 item 8 and the rebuild-risk numbers
//! tied to the modelled rebuild time of item 10, instead of a guessed rebuild time.
//!
//! Theory of operation
//! -------------------
//! * **Margin.** A top-level vdev survives `tolerance` missing children: a mirror its
//!   children − 1, raidzP P, a lone disk 0. A mirror child counts once it has been whole:
//!   a disk `attach` adds is an extra copy being made, not a missing one, so the vdev is
//!   not short while it resilvers (its tolerance grows when the copy is complete); a
//!   `replace` keeps its child, which was whole before. A child is *whole* when one of its leaves (the
//!   disk, or the new disk of its `replacing` vdev) can be written and has no DTL, i.e. holds
//!   every block. `margin = tolerance − children not whole`. ZFS's DEGRADED is the same test
//!   without the DTL part: a disk being resilvered is ONLINE in `zpool status`, yet it lacks
//!   the blocks its DTL names, so here it counts as missing until the resilver or rebuild
//!   excises its DTL (`admin.rs`). The margin changes only with an administrative action and
//!   when a scan or rebuild completes; it is re-evaluated at each (`redundancy_update`).
//! * **Lost blocks stay lost.** A block with no copy left (in the pool's error log,
//!   `lost_blocks`, where reads and scans put it; or a chunk a sequential rebuild could not
//!   read, `vrp_errors`) has no copy on any disk from then on. A vdev holding one has a
//!   margin below 0 whatever its children look like: a resilver that completed "with N
//!   errors" excises the new disk's DTL as ZFS does, but the blocks it could not rebuild
//!   are not on that disk, so it does not restore the copies they lack.
//! * **Windows.** Per top-level vdev: time with the margin below the tolerance (*short*), at
//!   or below 0 (*exposed*: one more failed disk loses data) and below 0 (blocks already have
//!   no copy, which the read path reports as errors), the least margin, and when it first
//!   ran short and was last restored.
//! * **Non-recoverable read errors.** While exposed, a read error the drive cannot recover
//!   loses the block it hit (ZFS lists its file as a permanent error; the pool stays up, and
//!   metadata survives on its ditto copies). The bytes each leaf of the vdev returned in
//!   that time (`zpool iostat` read bytes: users' reads and the resilver's alike) give the
//!   expected count, Σ bytes · 8 / the datasheet's bits per error, and the chance of at
//!   least one, 1 − e^(−count) (errors independent, the datasheet's own model).
//! * **Further disk failures.** Each whole child fails at a constant rate,
//!   λ = −ln(1 − AFR) per year (the datasheet's assumption: no infant mortality, no wear-out,
//!   no shared cause). The number k of extra failures is carried across the short intervals
//!   as a distribution — in each, binomial over the whole children not yet failed, with the
//!   chance 1 − e^(−λ·Δt) — and data is lost as soon as k exceeds the interval's margin.
//!   A failure is not taken to lengthen the window (it would: another resilver), so the
//!   figure is a lower bound for the simulated windows; field failure rates are often well
//!   above datasheets' (the AFR can be set per device).

use crate::pool::VdevType;
use crate::sim::Model_;
use serde_json::{json, Value};

const NS_PER_YEAR: f64 = 365.25 * 86_400.0 * 1e9;

/// One top-level vdev's redundancy record.
#[derive(Clone, Debug, Default)]
pub struct RedTrack {
    tolerance: i32,
    margin: i32,
    since_ns: u64,
    min_margin: i32,
    /// The tolerance when the margin was at `min_margin` (a detach may lower it later).
    worst_tolerance: i32,
    short_ns: u64,
    exposed_ns: u64,
    lost_ns: u64,
    first_short_ns: Option<u64>,
    restored_ns: Option<u64>,
    /// Whole children's failure rates per ns (None when a datasheet gives no AFR), taken
    /// when the current interval began.
    rates: Option<Vec<f64>>,
    /// While exposed: each leaf's read bytes when the interval began.
    marks: Vec<(u16, u64)>,
    exposed_read_bytes: u64,
    expected_errors: f64,
    errors_known: bool,
    /// Chance of k extra failures so far (k < len), without loss; `p_lost` the rest.
    dist: Vec<f64>,
    /// Leaves of this vdev that have been whole at some evaluation: a child with one of
    /// them counts towards the tolerance (see module doc).
    seen: Vec<u16>,
    p_lost: f64,
    rates_known: bool,
}

/// P(X = i) for X ~ Binomial(n, p).
fn binom(n: usize, i: usize, p: f64) -> f64 {
    let mut c = 1.0;
    for j in 0..i {
        c = c * (n - j) as f64 / (j + 1) as f64;
    }
    c * p.powi(i as i32) * (1.0 - p).powi((n - i) as i32)
}

impl Model_ {
    /// The tolerance and the margin of top-level vdev `t`, and the leaves that hold its
    /// whole children (one per whole child: the old disk if it is whole, else the new one).
    /// `seen` gains the whole leaves found.
    fn red_state(&self, t: usize, seen: &mut Vec<u16>) -> (i32, i32, Vec<u16>) {
        let top = &self.tops[t];
        let whole: Vec<u16> = (0..top.leaves.len())
            .filter_map(|c| {
                self.child_leaves(t, c).find(|&l| {
                    let leaf = &self.leaves[l as usize];
                    leaf.writeable() && leaf.dtl.is_none()
                })
            })
            .collect();
        for &l in &whole {
            if !seen.contains(&l) {
                seen.push(l);
            }
        }
        // Every whole child is counted (its whole leaf is in `seen`).
        let n = (0..top.leaves.len()).filter(|&c| self.child_leaves(t, c).any(|l| seen.contains(&l))).count();
        let tolerance = match top.kind {
            VdevType::Disk => 0,
            VdevType::Mirror => (n as i32 - 1).max(0),
            k => k.nparity() as i32,
        };
        let margin = tolerance - (n - whole.len()) as i32;
        (tolerance, if self.red_has_lost_blocks(t) { margin.min(-1) } else { margin }, whole)
    }

    /// Does top-level vdev `t` hold blocks of which no copy survives (see module doc)?
    fn red_has_lost_blocks(&self, t: usize) -> bool {
        let t16 = t as u16;
        let logged = self.lost_blocks.range((t16, 0)..=(t16, u64::MAX)).next().is_some();
        let rebuilt_with_errors = self.admin.rebuilds.get(t).and_then(|r| r.as_ref()).is_some_and(|r| {
            r.state == crate::rebuild::RebuildState::Complete && r.errors > 0
        });
        logged || rebuilt_with_errors
    }

    fn red_rates(&self, whole: &[u16]) -> Option<Vec<f64>> {
        whole
            .iter()
            .map(|&l| {
                let afr = self.leaves[l as usize].reliability.0;
                (afr > 0.0).then(|| -(1.0 - (afr / 100.0).min(0.999_999)).ln() / NS_PER_YEAR)
            })
            .collect()
    }

    /// Begin tracking at `now` (after the pool is built).
    pub(crate) fn redundancy_init(&mut self, now: u64) {
        self.red = (0..self.tops.len())
            .map(|t| {
                let mut seen = Vec::new();
                let (tolerance, margin, whole) = self.red_state(t, &mut seen);
                let mut r = RedTrack {
                    tolerance,
                    margin,
                    since_ns: now,
                    min_margin: margin,
                    worst_tolerance: tolerance,
                    errors_known: true,
                    dist: vec![1.0],
                    rates_known: true,
                    seen,
                    ..Default::default()
                };
                self.red_begin(&mut r, t, &whole, now);
                r
            })
            .collect();
    }

    /// The state of the interval that starts now: rates, read marks, and the first/last
    /// transition times.
    fn red_begin(&self, r: &mut RedTrack, t: usize, whole: &[u16], now: u64) {
        r.since_ns = now;
        r.rates = self.red_rates(whole);
        r.marks = if r.margin <= 0 {
            self.top_leaves_iter(t).map(|l| (l, self.leaves[l as usize].cnt.read_bytes())).collect()
        } else {
            Vec::new()
        };
    }

    /// Account the interval that ends at `now` into `r` (its margin is `r.margin`).
    fn red_close(&self, r: &mut RedTrack, now: u64) {
        let dt = now.saturating_sub(r.since_ns);
        if dt == 0 {
            return;
        }
        if r.margin < r.tolerance {
            r.short_ns += dt;
            match &r.rates {
                Some(rates) if !rates.is_empty() && r.margin >= 0 => {
                    let lam = rates.iter().sum::<f64>() / rates.len() as f64;
                    let p = 1.0 - (-lam * dt as f64).exp();
                    let n = rates.len();
                    let cap = r.margin as usize + 1;
                    let mut next = vec![0.0; cap];
                    for (k, &pk) in r.dist.iter().enumerate() {
                        if pk == 0.0 {
                            continue;
                        }
                        let alive = n.saturating_sub(k);
                        for i in 0..=alive {
                            let q = pk * binom(alive, i, p);
                            if k + i < cap {
                                next[k + i] += q;
                            } else {
                                r.p_lost += q;
                            }
                        }
                    }
                    r.dist = next;
                }
                Some(_) => {
                    // No whole child left, or already short of a copy: data is lost.
                    r.p_lost = 1.0;
                    r.dist = vec![0.0];
                }
                None => r.rates_known = false,
            }
        }
        if r.margin <= 0 {
            r.exposed_ns += dt;
            for &(l, mark) in &r.marks {
                let leaf = &self.leaves[l as usize];
                let b = leaf.cnt.read_bytes() - mark;
                r.exposed_read_bytes += b;
                if b > 0 {
                    match leaf.reliability.1 {
                        bits if bits > 0.0 => r.expected_errors += b as f64 * 8.0 / bits,
                        _ => r.errors_known = false,
                    }
                }
            }
        }
        if r.margin < 0 {
            r.lost_ns += dt;
        }
    }

    /// Re-evaluate every top-level vdev's margin at `now` (after an action, or when a scan
    /// or rebuild completed).
    pub(crate) fn redundancy_update(&mut self, now: u64) {
        let mut red = std::mem::take(&mut self.red);
        for (t, r) in red.iter_mut().enumerate() {
            // Every update starts a new interval (the leaves and their rates may have
            // changed even where the margin did not); splitting an interval changes nothing,
            // since the failure model is memoryless.
            let (tolerance, margin, whole) = self.red_state(t, &mut r.seen);
            self.red_close(r, now);
            let was_short = r.margin < r.tolerance;
            r.tolerance = tolerance;
            r.margin = margin;
            if margin < r.min_margin || (margin == r.min_margin && tolerance > r.worst_tolerance) {
                r.worst_tolerance = tolerance;
            }
            r.min_margin = r.min_margin.min(margin);
            let short = margin < tolerance;
            if short && !was_short && r.first_short_ns.is_none() {
                r.first_short_ns = Some(now);
            }
            if !short && was_short {
                r.restored_ns = Some(now);
            }
            self.red_begin(r, t, &whole, now);
        }
        self.red = red;
    }

    /// `results.pool.redundancy`: one record per data top-level vdev, the open interval
    /// accounted up to `now`.
    pub(crate) fn redundancy_json(&self, now: u64) -> Value {
        let recs: Vec<Value> = self
            .red
            .iter()
            .enumerate()
            .map(|(t, r0)| {
                let mut r = r0.clone();
                self.red_close(&mut r, now);
                let ever_short = r.short_ns > 0 || r.margin < r.tolerance;
                let p_fail = (ever_short && r.rates_known).then_some(r.p_lost);
                let errors = (r.exposed_ns > 0 && r.errors_known).then_some(r.expected_errors);
                json!({
                    "vdev": self.tops[t].name, "tolerance": r.tolerance, "margin": r.margin,
                    "min_margin": r.min_margin, "tolerance_at_worst": r.worst_tolerance, "short_ns": r.short_ns, "exposed_ns": r.exposed_ns,
                    "lost_ns": r.lost_ns, "first_short_ns": r.first_short_ns, "restored_ns": r.restored_ns,
                    "exposed_read_bytes": r.exposed_read_bytes,
                    "expected_read_errors": errors,
                    "p_read_error": errors.map(|e| 1.0 - (-e).exp()),
                    "p_loss_by_failure": p_fail,
                })
            })
            .collect();
        Value::Array(recs)
    }
}

#[cfg(test)]
mod tests {
    use super::binom;

    #[test]
    fn binomial_terms_sum_to_one() {
        for n in [1usize, 5, 11] {
            let s: f64 = (0..=n).map(|i| binom(n, i, 0.3)).sum();
            assert!((s - 1.0).abs() < 1e-12, "{n}: {s}");
        }
        assert!((binom(4, 2, 0.5) - 6.0 / 16.0).abs() < 1e-15);
    }
}

//! Statistics: fixed-size histograms, produced into text and percentiles once, at the end.
//!
//! * [`Log2Hist`]: ZFS's `zpool iostat -w` buckets — bucket `i` holds `[2^i, 2^(i+1))` ns
//!   (bucket 0 also holds 0), 37 buckets for leaf latencies (`VDEV_L_HISTO_BUCKETS`), 64 for
//!   workload latencies, 25 for request sizes (`VDEV_RQ_HISTO_BUCKETS`).
//! * [`FineHist`]: log-linear (16 sub-buckets per power of two, relative error ≤ 1/32 at
//!   the bucket midpoint) for percentiles; its 976 buckets are allocated at the first sample
//!   (a leaf keeps 27 of these, most for classes it never sees), never per sample.
//!   Every fine bucket lies inside one power of two, so a `FineHist` also yields the exact
//!   [`Log2Hist`] of its samples ([`FineHist::log2`]): a latency recorded in both costs
//!   one sample, not two.

use serde::Serialize;

/// Index of the log2 bucket holding `v` (0 for 0 and 1).
#[inline]
pub fn log2_bucket(v: u64) -> usize {
    63 - (v | 1).leading_zeros() as usize
}

/// Mean rate of `amount` over a window of `window_ns`: None for an empty window, where a
/// rate means nothing (a window floored at 1 ns would report exabytes per second).
pub fn rate_per_s(amount: u64, window_ns: u64) -> Option<f64> {
    (window_ns > 0).then(|| amount as f64 / (window_ns as f64 / 1e9))
}

#[derive(Clone, Debug)]
pub struct Log2Hist<const N: usize> {
    pub counts: [u64; N],
}

impl<const N: usize> Default for Log2Hist<N> {
    fn default() -> Self {
        Log2Hist { counts: [0; N] }
    }
}

impl<const N: usize> Log2Hist<N> {
    #[inline]
    pub fn add(&mut self, v: u64) {
        self.counts[log2_bucket(v).min(N - 1)] += 1;
    }
    pub fn merge(&mut self, o: &Self) {
        for i in 0..N {
            self.counts[i] += o.counts[i];
        }
    }
}

const SUB_BITS: u32 = 4;
const SUB: usize = 1 << SUB_BITS;
const FINE_LEN: usize = (64 - SUB_BITS as usize + 1) * SUB;

/// Log-linear histogram with exact count, sum, min and max.
#[derive(Clone, Debug)]
pub struct FineHist {
    /// `FINE_LEN` buckets, or empty while nothing was recorded.
    counts: Vec<u64>,
    pub n: u64,
    pub sum: u128,
    pub min: u64,
    pub max: u64,
}

impl Default for FineHist {
    fn default() -> Self {
        FineHist { counts: Vec::new(), n: 0, sum: 0, min: u64::MAX, max: 0 }
    }
}

/// Bucket of `v`: `(e − SUB_BITS + 1)·SUB + sub` for octave `e = ⌊log2 v⌋ ≥ SUB_BITS`, `sub`
/// the SUB_BITS bits below the leading one; `v` itself below `SUB`. With `sh = e − SUB_BITS`,
/// `v >> sh` is `SUB + sub`, so the index is `sh·SUB + (v >> sh)`, and `sh = 0` (clamped)
/// gives `v` for small values: no branch.
#[inline]
fn fine_index(v: u64) -> usize {
    let sh = (63 - (v | 1).leading_zeros()).saturating_sub(SUB_BITS);
    ((sh as usize) << SUB_BITS) + (v >> sh) as usize
}

/// Lower bound and width of fine bucket `i`.
fn fine_bounds(i: usize) -> (u64, u64) {
    if i < SUB {
        (i as u64, 1)
    } else {
        let e = (i / SUB) as u32 + SUB_BITS - 1;
        let sub = (i % SUB) as u64;
        let width = 1u64 << (e - SUB_BITS);
        ((1u64 << e) + sub * width, width)
    }
}

/// Summary of a distribution, ns (or whatever unit was recorded).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Pcts {
    pub min: u64,
    pub mean: f64,
    pub max: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
}

impl FineHist {
    #[inline]
    pub fn add(&mut self, v: u64) {
        self.add_n(v, 1);
    }
    /// `n` samples of the same value `v`: exactly `n` calls of `add(v)`.
    #[inline]
    pub fn add_n(&mut self, v: u64, n: u64) {
        // One bounds check also finds the unallocated (empty) histogram.
        match self.counts.get_mut(fine_index(v)) {
            Some(c) => *c += n,
            None => self.first_add(v, n),
        }
        self.n += n;
        self.sum += v as u128 * n as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }
    #[cold]
    fn first_add(&mut self, v: u64, n: u64) {
        self.counts = vec![0; FINE_LEN];
        self.counts[fine_index(v)] += n;
    }
    /// The log2 histogram of the same samples (bucket `N − 1` also holds everything above),
    /// as `Log2Hist::add` of each would have made it.
    pub fn log2<const N: usize>(&self) -> Log2Hist<N> {
        let mut h = Log2Hist::default();
        for (i, &c) in self.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
            h.counts[log2_bucket(fine_bounds(i).0).min(N - 1)] += c;
        }
        h
    }
    pub fn merge(&mut self, o: &FineHist) {
        if self.counts.is_empty() && !o.counts.is_empty() {
            self.counts = vec![0; FINE_LEN];
        }
        for (a, b) in self.counts.iter_mut().zip(o.counts.iter()) {
            *a += *b;
        }
        self.n += o.n;
        self.sum += o.sum;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }
    /// The q-quantile (0..=1): the midpoint of the bucket holding the rank, clamped to
    /// [min, max].
    pub fn quantile(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut acc = 0;
        for (i, c) in self.counts.iter().enumerate() {
            acc += c;
            if acc >= rank {
                let (lo, w) = fine_bounds(i);
                return (lo + w / 2).clamp(self.min, self.max);
            }
        }
        self.max
    }
    pub fn pcts(&self) -> Pcts {
        if self.n == 0 {
            return Pcts::default();
        }
        Pcts {
            min: self.min,
            mean: self.mean(),
            max: self.max,
            p50: self.quantile(0.5),
            p90: self.quantile(0.9),
            p99: self.quantile(0.99),
            p999: self.quantile(0.999),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_buckets_are_half_open() {
        assert_eq!(log2_bucket(0), 0);
        assert_eq!(log2_bucket(1), 0);
        assert_eq!(log2_bucket(2), 1);
        assert_eq!(log2_bucket(3), 1);
        assert_eq!(log2_bucket(4), 2);
        assert_eq!(log2_bucket(1 << 20), 20);
        assert_eq!(log2_bucket((1 << 21) - 1), 20);
    }

    #[test]
    fn fine_index_is_monotone_and_bounds_contain_value() {
        let mut vals: Vec<u64> = (0..100_000u64).chain((1..63).map(|e| (1u64 << e) + 12345)).collect();
        vals.sort();
        let mut last = 0;
        for v in vals {
            let i = fine_index(v);
            assert!(i >= last, "index not monotone at {v}");
            last = i;
            let (lo, w) = fine_bounds(i);
            assert!(lo <= v && v - lo < w, "v={v} i={i} lo={lo} w={w}");
        }
    }

    /// The branch-free forms give what the definitions give.
    #[test]
    fn bucket_indices_match_their_definitions() {
        let by_def = |v: u64| {
            if v < SUB as u64 {
                v as usize
            } else {
                let e = 63 - v.leading_zeros();
                ((e - SUB_BITS + 1) as usize) * SUB + ((v >> (e - SUB_BITS)) as usize & (SUB - 1))
            }
        };
        let mut vals: Vec<u64> = (0..5_000u64).collect();
        for e in 1..64 {
            for d in [0u64, 1, 2, 3, 7, 12345] {
                vals.extend([(1u64 << e).wrapping_add(d), (1u64 << e).wrapping_sub(1 + d)]);
            }
        }
        vals.push(u64::MAX);
        for v in vals {
            assert_eq!(fine_index(v), by_def(v), "fine_index({v})");
            assert_eq!(log2_bucket(v), if v <= 1 { 0 } else { 63 - v.leading_zeros() as usize }, "log2_bucket({v})");
        }
    }

    /// `add_n` is `n` adds, and `log2` is the log2 histogram of the samples themselves.
    #[test]
    fn add_n_and_log2_match_per_sample_adds() {
        let mut rng = ziosim_engine::Rng::stream(3, "stats-log2");
        let (mut one, mut many) = (FineHist::default(), FineHist::default());
        let (mut l37, mut l64) = (Log2Hist::<37>::default(), Log2Hist::<64>::default());
        for _ in 0..20_000 {
            let v = match rng.below(4) {
                0 => rng.below(64),
                1 => rng.below(1 << 24),
                2 => rng.below(1 << 40) << rng.below(24),
                _ => u64::MAX - rng.below(1 << 20),
            };
            let n = 1 + rng.below(5);
            for _ in 0..n {
                one.add(v);
                l37.add(v);
                l64.add(v);
            }
            many.add_n(v, n);
        }
        assert_eq!(many.counts, one.counts);
        assert_eq!((many.n, many.sum, many.min, many.max), (one.n, one.sum, one.min, one.max));
        assert_eq!(one.log2::<37>().counts, l37.counts);
        assert_eq!(one.log2::<64>().counts, l64.counts);
        assert_eq!(FineHist::default().log2::<37>().counts, [0; 37]);
    }

    #[test]
    fn quantiles_within_resolution() {
        let mut h = FineHist::default();
        for v in 1..=100_000u64 {
            h.add(v * 1000);
        }
        let p50 = h.quantile(0.5) as f64;
        assert!((p50 / 50_000_000.0 - 1.0).abs() < 0.04, "{p50}");
        let p99 = h.quantile(0.99) as f64;
        assert!((p99 / 99_000_000.0 - 1.0).abs() < 0.04, "{p99}");
        assert_eq!(h.pcts().max, 100_000_000);
        assert_eq!(h.pcts().min, 1000);
        assert!((h.mean() - 50_000_500.0).abs() < 1.0);
    }

    #[test]
    fn empty_hist_allocates_nothing_and_merges_both_ways() {
        let mut a = FineHist::default();
        assert!(a.counts.is_empty());
        assert_eq!(a.pcts(), Pcts::default());
        let mut b = FineHist::default();
        for v in [5u64, 7_000, 9_000_000] {
            b.add(v);
        }
        a.merge(&FineHist::default());
        assert!(a.counts.is_empty());
        a.merge(&b);
        assert_eq!(a.counts.len(), FINE_LEN);
        assert_eq!(a.pcts(), b.pcts());
        b.merge(&FineHist::default());
        assert_eq!(a.pcts(), b.pcts());
    }
}

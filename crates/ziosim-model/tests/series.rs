//! The per-interval workload series: the latency histogram of each report interval
//! (`series.workloads[].latency_log2`, stored from its first non-empty bucket
//! `latency_log2_lo`) agrees with the interval's own counters.
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_model::stats::log2_bucket;

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect()
}

/// Two workloads (closed and open loop) on a 3-way mirror, a scrub from 2 s: the latency
/// mix changes between intervals, so the histograms are not all alike.
fn cfg() -> Value {
    let disks = json!([{"name": "a", "device": "d", "link": null}, {"name": "b", "device": "d", "link": null},
                       {"name": "c", "device": "d", "link": null}]);
    let mut c = config(
        "zfs-2.2",
        simple_device(2_000_000, "exponential", 4),
        json!([{"type": "mirror", "disks": disks}]),
        json!([{"name": "r", "kind": "random-read", "sizes": [[4096, 1.0]], "threads": 4},
               {"name": "p", "kind": "random-read", "sizes": [[4096, 1.0]], "rate_per_s": 200.0}]),
        6,
    );
    c["pool"]["allocated_bytes"] = json!(1u64 << 30);
    c["actions"] = json!([{"at_ns": 2_000_000_000u64, "do": "scrub"}]);
    c
}

#[test]
fn per_interval_histogram_sums_to_the_interval_op_count() {
    let res = run(&cfg());
    let t_ns = res["series"]["t_ns"].as_array().unwrap().len();
    assert_eq!(t_ns, 6);
    let whole: Vec<Vec<u64>> = res["workloads"].as_array().unwrap().iter().map(|w| u64s(&w["latency_log2"])).collect();
    for (j, s) in res["series"]["workloads"].as_array().unwrap().iter().enumerate() {
        let ops = u64s(&s["ops"]);
        let los = u64s(&s["latency_log2_lo"]);
        let maxes = u64s(&s["latency_ns_max"]);
        let sums = u64s(&s["latency_ns_sum"]);
        let hists = s["latency_log2"].as_array().unwrap();
        assert_eq!((ops.len(), los.len(), hists.len()), (t_ns, t_ns, t_ns));
        let mut acc = [0u64; 64];
        for k in 0..t_ns {
            let h = u64s(&hists[k]);
            assert_eq!(h.iter().sum::<u64>(), ops[k], "workload {j} interval {k}");
            assert!(ops[k] > 0, "workload {j} interval {k} completed nothing");
            // Stored compactly: first and last stored buckets are non-empty.
            assert!(h[0] > 0 && *h.last().unwrap() > 0, "{h:?}");
            let lo = los[k] as usize;
            assert!(lo + h.len() <= 64);
            // The slowest operation of the interval sits in the last non-empty bucket.
            assert_eq!(log2_bucket(maxes[k]), lo + h.len() - 1, "interval {k}");
            // The latency sum lies within the buckets' bounds.
            let (mut lo_sum, mut hi_sum) = (0u128, 0u128);
            for (i, &n) in h.iter().enumerate() {
                let b = lo + i;
                lo_sum += n as u128 * if b == 0 { 0 } else { 1u128 << b };
                hi_sum += n as u128 * (1u128 << (b + 1));
                acc[b] += n;
            }
            assert!(lo_sum <= sums[k] as u128 && (sums[k] as u128) < hi_sum, "interval {k}");
        }
        // The intervals together are the whole run's histogram, up to operations that
        // ended after the last sample.
        for b in 0..64 {
            assert!(acc[b] <= whole[j][b], "bucket {b}: {} > {}", acc[b], whole[j][b]);
        }
        let late: u64 = whole[j].iter().sum::<u64>() - acc.iter().sum::<u64>();
        assert!(late <= 8, "{late} operations after the last sample");
    }
    // The scrub slows the closed-loop reads: later intervals reach higher buckets.
    let r = &res["series"]["workloads"][0];
    let top = |k: usize| r["latency_log2_lo"][k].as_u64().unwrap() as usize + r["latency_log2"][k].as_array().unwrap().len();
    assert!(top(4) >= top(0), "{} < {}", top(4), top(0));
}

#[test]
fn interval_without_operations_is_empty() {
    let mut c = cfg();
    // The open-loop workload starts only after 3 s: its first intervals are empty.
    c["workloads"][1]["start_ns"] = json!(3_500_000_000u64);
    let res = run(&c);
    let s = &res["series"]["workloads"][1];
    for k in 0..3 {
        assert_eq!(s["ops"][k], json!(0));
        assert_eq!(s["latency_log2_lo"][k], json!(0));
        assert_eq!(s["latency_log2"][k], json!([]));
    }
    assert!(s["ops"][4].as_u64().unwrap() > 0);
    assert_eq!(u64s(&s["latency_log2"][4]).iter().sum::<u64>(), s["ops"][4].as_u64().unwrap());
}

/// A database workload counts a transaction when its WAL commit returns; the interval's
/// histogram and the scan-phase split must count it there too (QA pass 2, F3: the
/// database kind left every interval's histogram empty and `by_scan_phase` at zero).
#[test]
fn database_intervals_and_phases_count_every_transaction() {
    let mut c = cfg();
    c["workloads"] = json!([{"name": "pg", "kind": "database", "sizes": [[8192, 1.0]], "threads": 4,
                             "arc_hit_ratio": 0.9, "checkpoint_ns": 2_000_000_000u64, "checkpoint_spread": 0.5}]);
    c["pool"]["recordsize_bytes"] = json!(8192);
    let res = run(&c);
    let w = &res["workloads"][0];
    let s = &res["series"]["workloads"][0];
    let ops = u64s(&s["ops"]);
    assert!(ops.iter().all(|&n| n > 0), "{ops:?}");
    for (k, h) in s["latency_log2"].as_array().unwrap().iter().enumerate() {
        assert_eq!(u64s(h).iter().sum::<u64>(), ops[k], "interval {k}");
    }
    let phases: u64 = w["by_scan_phase"].as_object().unwrap().values().map(|p| p["ops"].as_u64().unwrap()).sum();
    assert_eq!(phases, w["ops"].as_u64().unwrap(), "{}", w["by_scan_phase"]);
}

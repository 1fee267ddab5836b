//! Queueing-theory conformance on the simplest device (design.md §7): a single FIFO server
//! fed by Poisson arrivals through a one-disk pool. M/M/1: mean sojourn 1/(μ−λ);
//! M/D/1: mean wait ρ/(2μ(1−ρ)) + service (Pollaczek–Khinchine). Within 2 %.
mod common;
use common::*;
use serde_json::json;

fn mean_latency(dist: &str, service_ns: u64, rate: f64, stop_s: u64) -> (f64, serde_json::Value) {
    let cfg = config(
        "zfs-2.2",
        simple_device(service_ns, dist, 1),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "w", "kind": "random-read", "sizes": [[4096, 1.0]], "rate_per_s": rate}]),
        stop_s,
    );
    let res = run(&cfg);
    (res["workloads"][0]["latency_ns"]["mean"].as_f64().unwrap(), res)
}

#[test]
fn mm1_mean_sojourn_within_2_percent() {
    // μ = 1000/s (1 ms), λ = 700/s, ρ = 0.7: W = 1/(μ−λ) = 3.333 ms.
    let (w, res) = mean_latency("exponential", 1_000_000, 700.0, 2000);
    let expect = 1e9 / (1000.0 - 700.0);
    assert!((w / expect - 1.0).abs() < 0.02, "M/M/1 W={w} expected {expect}");
    assert_littles_law(&res, 0.01);
}

#[test]
fn md1_mean_sojourn_within_2_percent() {
    // Deterministic 1 ms service, ρ = 0.8: Wq = ρ/(2μ(1−ρ)) = 2 ms; W = 3 ms.
    let (w, res) = mean_latency("deterministic", 1_000_000, 800.0, 2000);
    let rho: f64 = 0.8;
    let expect = 1e6 * (rho / (2.0 * (1.0 - rho)) + 1.0);
    assert!((w / expect - 1.0).abs() < 0.02, "M/D/1 W={w} expected {expect}");
    assert_littles_law(&res, 0.01);
}

#[test]
fn same_seed_same_digest_different_seed_differs() {
    let cfg = config(
        "zfs-2.2",
        simple_device(1_000_000, "exponential", 1),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "w", "kind": "random-read", "sizes": [[4096, 1.0]], "rate_per_s": 500.0}]),
        20,
    );
    let a = run(&cfg);
    let b = run(&cfg);
    assert_eq!(a.to_string(), b.to_string());
    let mut cfg2 = cfg.clone();
    cfg2["seed"] = json!(8);
    let c = run(&cfg2);
    assert_ne!(a["digest"], c["digest"]);
}

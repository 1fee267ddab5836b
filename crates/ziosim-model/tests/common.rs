//! Shared helpers for the model's integration tests: build run configs from JSON.
#![allow(dead_code)]
use serde_json::{json, Value};
use ziosim_model::config::RunConfig;
use ziosim_model::sim::Run;

pub fn simple_device(service_ns: u64, dist: &str, qd: u32) -> Value {
    json!({"kind": "simple", "capacity_bytes": 1u64 << 40, "service_ns_mean": service_ns,
           "distribution": dist, "queue_depth": qd})
}

pub fn config(release: &str, device: Value, vdevs: Value, workloads: Value, stop_s: u64) -> Value {
    json!({
        "name": "t", "seed": 7, "release": release, "hz": 100, "ram_bytes": 16u64 << 30,
        "stop_ns": stop_s * 1_000_000_000, "report_interval_ns": 1_000_000_000,
        "devices": {"d": device}, "pool": {"name": "tank", "ashift": 12, "recordsize_bytes": 4096,
        "allocated_bytes": 100u64 << 30, "vdevs": vdevs}, "workloads": workloads
    })
}

pub fn run(cfg: &Value) -> Value {
    let c = RunConfig::from_json(&cfg.to_string()).expect("config");
    let mut r = Run::new(c).expect("run");
    r.run_to_end();
    r.results()
}

/// Little's law on a workload: mean in flight = throughput × mean latency, within `tol`.
pub fn assert_littles_law(res: &Value, tol: f64) {
    let t = res["sim_time_ns"].as_f64().unwrap() / 1e9;
    for w in res["workloads"].as_array().unwrap() {
        let l = w["mean_inflight"].as_f64().unwrap();
        let lam = w["ops"].as_f64().unwrap() / t;
        let wlat = w["latency_ns"]["mean"].as_f64().unwrap() / 1e9;
        if w["ops"].as_u64().unwrap() < 1000 {
            continue;
        }
        let rel = (l - lam * wlat).abs() / l.max(1e-9);
        assert!(rel < tol, "Little's law: L={l} λW={} (rel {rel}) for {}", lam * wlat, w["name"]);
    }
}

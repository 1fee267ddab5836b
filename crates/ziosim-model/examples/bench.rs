//! Benchmark: simulated leaf I/Os per second of wall time on a mixed HDD scenario, with full
//! HDD mechanics. `cargo run --release -p ziosim-model --example bench [-- SIM_SECONDS]`.
//! Prints numbers; asserts nothing (speed is measured here, never in tests).

use serde_json::json;
use std::time::Instant;
use ziosim_model::config::RunConfig;
use ziosim_model::device::presets;
use ziosim_model::sim::Run;

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap()))
        .unwrap_or(0)
}

fn scenario(name: &str, release: &str, sim_s: u64) -> serde_json::Value {
    let spec = presets::get("hdd-7200-sata-2014").expect("preset");
    let disks: Vec<_> = (0..6).map(|i| json!({"name": format!("sd{}", (b'a' + i) as char), "device": "hdd"})).collect();
    json!({
        "name": name, "seed": 1, "release": release, "hz": 100, "ram_bytes": 16u64 << 30,
        "stop_ns": sim_s * 1_000_000_000, "report_interval_ns": 10_000_000_000u64,
        "devices": {"hdd": spec},
        "pool": {"name": "tank", "ashift": 12, "recordsize_bytes": 131072, "allocated_bytes": 2u64 << 40,
                 "vdevs": [{"type": "raidz2", "disks": disks}]},
        "workloads": [
            {"name": "oltp", "kind": "random-read", "sizes": [[4096, 0.5], [16384, 0.3], [131072, 0.2]], "threads": 32},
            {"name": "backup", "kind": "seq-read", "sizes": [[1048576, 1.0]], "threads": 2},
            {"name": "ingest", "kind": "random-write", "sizes": [[131072, 1.0]], "rate_per_s": 200.0}
        ]
    })
}

fn main() {
    let sim_s: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(600);
    println!("{:<28} {:>12} {:>12} {:>14} {:>14} {:>10}", "scenario", "leaf_ios", "events", "leaf_ios/s", "events/s", "wall_s");
    for (name, rel) in [("mixed-hdd-raidz2 zfs-2.2", "zfs-2.2"), ("mixed-hdd-raidz2 zfs-0.7", "zfs-0.7"), ("mixed-hdd-raidz2 illumos-2012", "illumos-2012")] {
        let cfg = RunConfig::from_json(&scenario(name, rel, sim_s).to_string()).unwrap();
        let t0 = Instant::now();
        let mut run = Run::new(cfg).unwrap();
        run.run_to_end();
        let wall = t0.elapsed().as_secs_f64();
        let leaf = run.sim.model().leaf_ios();
        let ev = run.sim.events_handled();
        println!("{:<28} {:>12} {:>12} {:>14.0} {:>14.0} {:>10.2}", name, leaf, ev, leaf as f64 / wall, ev as f64 / wall, wall);
    }
    println!("peak RSS: {} MiB (target: >= 2 M leaf I/Os/s on one core; design.md §8)", peak_rss_kib() / 1024);
}

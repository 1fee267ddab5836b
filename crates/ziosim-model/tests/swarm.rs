//! Swarm: derive random small scenarios from a seed, run each, check invariants. On a
//! failure the message carries the seed and the command that reproduces it.
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_engine::Rng;
use ziosim_model::device::presets;

fn pick<'a, T>(r: &mut Rng, v: &'a [T]) -> &'a T {
    &v[r.below(v.len() as u64) as usize]
}

fn derive(seed: u64) -> Value {
    let mut r = Rng::stream(seed, "swarm");
    let releases = ["solaris-2009", "illumos-2012", "illumos-2014", "zfs-0.7", "zfs-0.8", "zfs-2.0", "zfs-2.1", "zfs-2.2", "zfs-2.3"];
    let release = *pick(&mut r, &releases);
    let mut device_names: Vec<String> = presets::all().into_iter().map(|(n, _, _)| n.to_string()).collect();
    device_names.push("simple".into());
    let dev_name = pick(&mut r, &device_names).clone();
    let device = if dev_name == "simple" {
        simple_device(200_000 + r.below(5_000_000), "exponential", 1 + r.below(32) as u32)
    } else {
        serde_json::to_value(presets::get(&dev_name).unwrap()).unwrap()
    };
    let (kind, n) = *pick(&mut r, &[("disk", 1), ("mirror", 2), ("mirror", 3), ("raidz1", 3), ("raidz2", 6), ("raidz3", 7)]);
    let ntops = 1 + r.below(3);
    let mut vdevs = vec![];
    let mut k = 0;
    for _ in 0..ntops {
        let disks: Vec<Value> = (0..n).map(|_| { k += 1; json!({"name": format!("d{k}"), "device": "d"}) }).collect();
        vdevs.push(json!({"type": kind, "disks": disks}));
    }
    let kinds = ["random-read", "random-write", "seq-read", "seq-write", "fsync-write", "nfs-copy"];
    let nw = 1 + r.below(3);
    let mut wls = vec![];
    for i in 0..nw {
        let size = 512u64 << r.below(12);
        let mut w = json!({"name": format!("w{i}"), "kind": *pick(&mut r, &kinds), "sizes": [[size, 1.0]],
                           "arc_hit_ratio": r.f64() * 0.5});
        if r.chance(0.5) || w["kind"] == "nfs-copy" {
            w["threads"] = json!(1 + r.below(16));
        } else {
            w["rate_per_s"] = json!(10.0 + r.f64() * 300.0);
        }
        wls.push(w);
    }
    let mut cfg = config(release, device, json!(vdevs), json!(wls), 4);
    let rs = 4096u64 << r.below(6);
    cfg["pool"]["recordsize_bytes"] = json!(rs);
    cfg["pool"]["allocated_bytes"] = json!(8u64 << 30);
    cfg["seed"] = json!(seed);
    // Pool contents: half fresh, half aged with a random file mix and compression (drawn
    // last, so the draws above stay what they were).
    if r.chance(0.5) {
        let files: Vec<Value> = (0..1 + r.below(3)).map(|_| json!([512u64 << r.below(22), 0.1 + r.f64()])).collect();
        cfg["pool"]["layout"] = json!({"fragmentation": r.f64(), "files": files, "compression_ratio": 1.0 + 2.0 * r.f64()});
    }
    cfg["sync"] = json!(*pick(&mut r, &["standard", "standard", "always", "disabled"]));
    if r.chance(0.3) {
        let slog = *pick(&mut r, &["intel-s3700", "samsung-850pro"]);
        cfg["devices"]["slog"] = serde_json::to_value(presets::get(slog).unwrap()).unwrap();
        cfg["pool"]["log"] = json!([{"type": "disk", "disks": [{"name": "log0", "device": "slog"}]}]);
    }
    // Failures (drawn after the above): one disk of the first top-level vdev at 1 s, or all
    // of them — a dead vdev, whose blocks' reads then fail with EIO.
    if r.chance(0.3) {
        let all = r.chance(0.5);
        let dead: Vec<Value> = (1..=if all { n } else { 1 }).map(|k| json!({"at_ns": 1_000_000_000u64, "do": "fail", "disk": format!("d{k}")})).collect();
        cfg["actions"] = json!(dead);
    }
    // A volume: the first random or sequential writer becomes a zvol user when no workload
    // needs a filesystem.
    let kinds: Vec<String> = cfg["workloads"].as_array().unwrap().iter().map(|w| w["kind"].as_str().unwrap().to_string()).collect();
    let files = kinds.iter().any(|k| k == "fsync-write" || k == "nfs-copy");
    if release != "solaris-2009" && !files && r.chance(0.3) {
        if let Some(i) = kinds.iter().position(|k| k == "random-write" || k == "seq-write") {
            let w = &mut cfg["workloads"][i];
            w["kind"] = json!("zvol");
            w["fua"] = json!(r.chance(0.5));
            w["flush_every"] = json!(r.below(8));
        }
    }
    cfg
}

#[test]
fn swarm_invariants_hold() {
    let base: u64 = std::env::var("ZIOSIM_SWARM_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let count: u64 = std::env::var("ZIOSIM_SWARM_COUNT").ok().and_then(|s| s.parse().ok()).unwrap_or(24);
    for seed in base..base + count {
        let cfg = derive(seed);
        let repro = format!("reproduce: ZIOSIM_SWARM_SEED={seed} ZIOSIM_SWARM_COUNT=1 cargo test --release -p ziosim-model --test swarm");
        let res = std::panic::catch_unwind(|| run(&cfg)).unwrap_or_else(|_| panic!("panic in scenario {cfg}\n{repro}"));
        // Little's law over the window: ∫N dt = Σ completed sojourns + ages of the
        // operations still in flight at the end (exact bookkeeping identity, L = λW).
        let t_ns = res["sim_time_ns"].as_f64().unwrap();
        for w in res["workloads"].as_array().unwrap() {
            let area = w["mean_inflight"].as_f64().unwrap() * t_ns;
            let lat = w["latency_ns"]["mean"].as_f64().unwrap() * w["ops"].as_f64().unwrap() + w["inflight_age_ns_at_end"].as_f64().unwrap();
            assert!((area - lat).abs() <= 1e-6 * area.max(1.0) + 1e3, "Little's law: ∫N dt={area} Σ sojourn={lat} in {cfg}\n{repro}");
        }
        // Per-leaf accounting: the series count device commands (vdev_stat_update's ops),
        // at most the class commands; a class never has more commands than zios, and its
        // zpool-iostat histograms count its commands.
        for (i, leaf) in res["leaves"].as_array().unwrap().iter().enumerate() {
            let cmds: u64 = leaf["classes"].as_object().unwrap().values().map(|c| c["commands"].as_u64().unwrap()).sum();
            let s = &res["series"]["leaves"][i];
            let sum = |k: &str| s[k].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum::<u64>();
            assert!(sum("read_ops") + sum("write_ops") <= cmds, "series exceeds totals {cfg}\n{repro}");
            assert!(leaf["busy_ns"].as_u64().unwrap() <= res["sim_time_ns"].as_u64().unwrap(), "busy > time\n{repro}");
            for c in leaf["classes"].as_object().unwrap().values() {
                let n = c["commands"].as_u64().unwrap();
                assert!(n <= c["ops"].as_u64().unwrap(), "more commands than zios\n{repro}");
                for k in ["total_wait_log2", "disk_wait_log2", "queue_wait_log2"] {
                    let h: u64 = c[k].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum();
                    assert_eq!(h, n, "{k} count != commands\n{repro}");
                }
                let sizes: u64 = ["size_ind_log2", "size_agg_log2"].iter()
                    .map(|k| c[*k].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum::<u64>()).sum();
                assert_eq!(sizes, n, "size histograms != commands\n{repro}");
                assert!(c["total_wait_ns"]["min"].as_u64() >= c["disk_wait_ns"]["min"].as_u64());
            }
        }
    }
}

//! Where spa_sync's writes go: the metaslab rotor and the 0.7–2.3 allocation throttle
//! (`alloc.rs`, `sync_alloc.rs`).
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_model::device::presets;

fn preset(name: &str) -> Value {
    serde_json::to_value(presets::get(name).unwrap()).unwrap()
}

/// Three 2-way mirrors, the last of slower disks (2009 desktop drives: ~113 MB/s at the
/// pool's start against the 2014 drives' ~155 MB/s), and a streaming writer that keeps
/// every txg full.
fn mixed_pool(release: &str, tunables: Value) -> Value {
    let m = |a: &str, b: &str, dev: &str| json!({"type": "mirror", "disks": [{"name": a, "device": dev}, {"name": b, "device": dev}]});
    let mut cfg = config(
        release,
        preset("hdd-7200-sata-2014"),
        json!([m("sda", "sdb", "d"), m("sdc", "sdd", "d"), m("sde", "sdf", "slow")]),
        json!([{"name": "w", "kind": "seq-write", "sizes": [[1 << 20, 1.0]], "threads": 4}]),
        30,
    );
    cfg["devices"]["slow"] = preset("hdd-7200-desktop-2009");
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["tunables"] = tunables;
    cfg
}

fn written(res: &Value, leaf: &str) -> f64 {
    let l = res["leaves"].as_array().unwrap().iter().find(|l| l["name"] == leaf).unwrap();
    l["classes"]["async_write"]["bytes"].as_f64().unwrap()
}

fn mb_s(res: &Value) -> f64 {
    res["workloads"][0]["bytes_per_s"].as_f64().unwrap() / 1e6
}

#[test]
fn from_0_7_a_slower_vdev_gets_fewer_of_the_syncs_writes_and_the_pool_runs_faster() {
    let old = run(&mixed_pool("zfs-0.6.5", json!({})));
    let new = run(&mixed_pool("zfs-0.7", json!({})));
    let off = run(&mixed_pool("zfs-0.7", json!({"zio_dva_throttle_enabled": 0})));
    let g22 = run(&mixed_pool("zfs-2.2", json!({})));
    let g22_off = run(&mixed_pool("zfs-2.2", json!({"zio_dva_throttle_enabled": 0})));
    let share = |r: &Value| written(r, "sde") / written(r, "sda");
    eprintln!("2.2 {:.0} MB/s slow/fast {:.2}; throttle off {:.0} MB/s {:.2}; peak {} / {}", mb_s(&g22), share(&g22), mb_s(&g22_off), share(&g22_off), g22["peak_live_ios"], g22_off["peak_live_ios"]);
    eprintln!(
        "0.6.5 {:.0} MB/s slow/fast {:.2}; 0.7 {:.0} MB/s {:.2}; 0.7 throttle off {:.0} MB/s {:.2}; peak leaf I/Os {} / {} / {}",
        mb_s(&old), share(&old), mb_s(&new), share(&new), mb_s(&off), share(&off),
        old["peak_live_ios"], new["peak_live_ios"], off["peak_live_ios"]
    );
    // The rotor alone gives every mirror its aliquot in turn: the slow one paces the txg.
    assert!((share(&old) - 1.0).abs() < 0.05, "0.6.5 slow/fast {}", share(&old));
    assert!((share(&off) - 1.0).abs() < 0.05, "throttle off slow/fast {}", share(&off));
    // With the throttle the slow mirror, at its 100 writes in flight, is passed over.
    assert!(share(&new) < 0.85, "0.7 slow/fast {}", share(&new));
    assert!(mb_s(&new) > 1.1 * mb_s(&off), "0.7 {} vs throttle off {}", mb_s(&new), mb_s(&off));
    // 0.8+: the limits start lower (32) but grow with every completed copy while the
    // txg's blocks keep arriving from the issue taskq, so the slow mirror is passed over
    // once it holds more than it finishes.
    assert!(share(&g22) < 0.85, "2.2 slow/fast {}", share(&g22));
    assert!((share(&g22_off) - 1.0).abs() < 0.05, "2.2 throttle off slow/fast {}", share(&g22_off));
    assert!(mb_s(&g22) > 1.1 * mb_s(&g22_off), "2.2 {} vs throttle off {}", mb_s(&g22), mb_s(&g22_off));
}

#[test]
fn the_throttle_bounds_what_a_sync_queues_at_the_disks() {
    let on = run(&mixed_pool("zfs-0.7", json!({})));
    let off = run(&mixed_pool("zfs-0.7", json!({"zio_dva_throttle_enabled": 0})));
    let pct = run(&mixed_pool("zfs-0.7", json!({"zfs_vdev_queue_depth_pct": 300})));
    let g22 = run(&mixed_pool("zfs-2.2", json!({})));
    let g22_deep = run(&mixed_pool("zfs-2.2", json!({"zfs_vdev_def_queue_depth": 100})));
    let peak = |r: &Value| r["peak_live_ios"].as_u64().unwrap();
    eprintln!("peak leaf I/Os: 0.7 {} (pct 300: {}), off {}, 2.2 {} (def 100: {})", peak(&on), peak(&pct), peak(&off), peak(&g22), peak(&g22_deep));
    // 0.7: at most 100 copies per mirror in flight (two leaf writes each), a few more for
    // the uberblocks and flushes; without the throttle a whole txg is queued at once.
    assert!(peak(&on) <= 3 * 100 * 2 + 32, "0.7 {}", peak(&on));
    assert!(peak(&pct) <= 3 * 30 * 2 + 32, "0.7 pct 300 {}", peak(&pct));
    assert!(peak(&off) > 3 * peak(&on), "off {} on {}", peak(&off), peak(&on));
    // 0.8+: per allocator (four at most) a vdev's limit starts at 32 each txg and grows
    // to 100; starting it at 100 fills the queues sooner.
    assert!(peak(&g22) <= 4 * 3 * 100 * 2 + 32, "2.2 {}", peak(&g22));
    assert!(peak(&off) > 10 * peak(&g22), "off {} 2.2 {}", peak(&off), peak(&g22));
    assert!(peak(&g22_deep) > peak(&g22) + 100, "2.2 def 100 {} vs {}", peak(&g22_deep), peak(&g22));
}

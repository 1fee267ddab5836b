//! The txg engine and the scan together: who counts as a txg waiter in the pause test.
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_model::device::presets;

/// Two HDD mirrors, four sequential 128K writers, a scrub from 5 s (audit 2's w2012o:
/// `zfs_write_limit_override` fixes the per-txg limit so only the pause rule differs).
fn writers_and_scrub(release: &str, tunables: Value) -> Value {
    let hdd = serde_json::to_value(presets::get("hdd-7200-sata-2014").unwrap()).unwrap();
    let mirror = |a: &str, b: &str| json!({"type": "mirror", "disks": [{"name": a, "device": "d"}, {"name": b, "device": "d"}]});
    let mut cfg = config(
        release,
        hdd,
        json!([mirror("a0", "a1"), mirror("b0", "b1")]),
        json!([{"name": "writer", "kind": "seq-write", "sizes": [[131072, 1.0]], "threads": 4}]),
        60,
    );
    cfg["ram_bytes"] = json!(8u64 << 30);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(200u64 << 30);
    cfg["tunables"] = tunables;
    cfg["actions"] = json!([{"at_ns": 5_000_000_000u64, "do": "scrub"}]);
    cfg
}

/// Audit 2 F1: pre-2013, a writer blocked at the write limit quiesces the open txg
/// (`txg_wait_open`), so `txg_sync_waiting()` holds and the scan yields its txg once past
/// its min time (1 s scrub) instead of keeping it to the timeout (5 s; 30 s on solaris-2009)
/// with the writers blocked throughout (il:4445fffbbb dsl_scan_check_pause, il:379c004d1f
/// scrub_pause, txg.c txg_sync_waiting).
#[test]
fn legacy_scan_yields_to_writers_blocked_at_the_write_limit() {
    for (rel, tun) in [("illumos-2012", json!({"zfs_write_limit_override": 1u64 << 30})), ("solaris-2009", json!({}))] {
        let res = run(&writers_and_scrub(rel, tun));
        assert!(res["scan"]["issued_bytes"].as_u64().unwrap() > 0, "{rel}: the scrub ran");
        let w = &res["workloads"][0];
        let max_s = w["latency_ns"]["max"].as_f64().unwrap() / 1e9;
        // Blocked for the rest of a scan share past its 1 s min time plus the txg's data
        // writes; the whole share (≥ 5 s / 30 s) before the fix.
        assert!(max_s < 3.0, "{rel}: writer max latency {max_s:.2} s");
    }
}

/// Audit 2's note on 2.2+: the per-txg dirty kick sets `tx_sync_txg_waiting` to the open txg
/// once its own dirty passes `zfs_dirty_data_sync_percent` (20 %, txg.c@zfs-2.2.0
/// txg_kick), and `dsl_scan_check_suspend` counts `txg_sync_waiting()`: the sorted scan
/// yields at its min time, before pool dirty reaches 30 %. 2.1's kick only quiesces an idle
/// pipeline, so the same load gives it fewer, longer scan txgs.
#[test]
fn sorted_scan_yields_to_the_2_2_per_txg_kick() {
    let syncs = |rel: &str| {
        let mut cfg = writers_and_scrub(rel, json!({}));
        // One writer at ~100 MB/s: the open txg passes 20 % of dirty_max (819 MiB) in ~1.7 s
        // of a scan share, 30 % only after ~2.5 s; no throttle.
        cfg["workloads"][0]["threads"] = json!(1);
        cfg["workloads"][0]["think_ns"] = json!(1_200_000u64);
        let res = run(&cfg);
        assert_eq!(res["txg"]["delayed_writes"], 0, "{rel}");
        res["txg"]["syncs"].as_u64().unwrap()
    };
    let (s21, s22) = (syncs("zfs-2.1"), syncs("zfs-2.2"));
    assert!(s22 * 4 >= s21 * 5, "2.2 {s22} syncs vs 2.1 {s21}");
}

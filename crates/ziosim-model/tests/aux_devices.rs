//! Log (SLOG) and cache (L2ARC) devices that fail or go offline (`aux_fail.rs`).
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_model::device::presets;

fn preset(name: &str) -> Value {
    serde_json::to_value(presets::get(name).unwrap()).unwrap()
}

const S: u64 = 1_000_000_000;

/// A 7200 rpm disk under a 4 KiB fsync loop of `threads` writers, with the log on
/// `slogs` S3700s (one log vdev each, or one mirror), for 20 s.
fn fsync_pool(release: &str, threads: u32, slogs: usize, mirror: bool) -> Value {
    let mut cfg = config(
        release,
        preset("hdd-7200-sata-2014"),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "db", "kind": "fsync-write", "sizes": [[4096, 1.0]], "threads": threads, "arc_hit_ratio": 1.0}]),
        20,
    );
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    if slogs > 0 {
        cfg["devices"]["slog"] = preset("intel-s3700");
        let disks: Vec<Value> = (0..slogs).map(|i| json!({"name": format!("log{i}"), "device": "slog"})).collect();
        cfg["pool"]["log"] = if mirror {
            json!([{"type": "mirror", "disks": disks}])
        } else {
            Value::Array(disks.into_iter().map(|d| json!({"type": "disk", "disks": [d]})).collect())
        };
    }
    cfg
}

fn act(cfg: &mut Value, at_s: u64, what: &str, disk: &str) {
    let a = cfg["actions"].as_array().cloned().unwrap_or_default();
    let mut a = a;
    a.push(json!({"at_ns": at_s * S, "do": what, "disk": disk}));
    cfg["actions"] = Value::Array(a);
}

fn p50(v: &Value) -> f64 {
    v["p50"].as_f64().unwrap()
}

fn last_snapshot(res: &Value) -> &Value {
    res["status"]["snapshots"].as_array().unwrap().last().unwrap()
}

#[test]
fn lone_slog_failure_sends_commits_to_the_pool() {
    let mut cfg = fsync_pool("zfs-2.2", 1, 1, false);
    act(&mut cfg, 10, "fail", "log0");
    let res = run(&cfg);
    let d = &res["zil"]["log_devices"];
    let (before, after) = (p50(&d["commit_latency_ns_before"]), p50(&d["commit_latency_ns_after"]));
    // Without a SLOG at all: the in-pool commit latency the failed pool falls back to.
    let base = run(&fsync_pool("zfs-2.2", 1, 0, false));
    let pool = p50(&base["zil"]["commit_latency_ns"]);
    eprintln!("before {before} after {after} in-pool {pool}; {d}");
    assert!(after > 10.0 * before, "after {after} vs before {before}");
    // At least the in-pool figure: the disk also drains the dirty data the fast log let in.
    assert!(after > 0.5 * pool, "after {after} vs in-pool {pool}");
    assert!(d["lwb_pool_writes"].as_u64().unwrap() > 0);
    assert_eq!(d["event_ns"].as_u64(), Some(10 * S));
    // A dead log vdev degrades the pool; the log disk shows UNAVAIL.
    let snap = last_snapshot(&res);
    assert_eq!(snap["state"], "DEGRADED");
    assert_eq!(snap["logs"][0]["name"], "log0");
    assert_eq!(snap["logs"][0]["state"], "UNAVAIL");
    assert_eq!(snap["logs"][0]["note"], "cannot open");
}

#[test]
fn mirrored_slog_losing_one_child_keeps_commits_fast() {
    let mut cfg = fsync_pool("zfs-2.2", 1, 2, true);
    act(&mut cfg, 10, "fail", "log0");
    let res = run(&cfg);
    let d = &res["zil"]["log_devices"];
    let (before, after) = (p50(&d["commit_latency_ns_before"]), p50(&d["commit_latency_ns_after"]));
    eprintln!("before {before} after {after}; {d}");
    assert!(after < 2.0 * before, "after {after} vs before {before}");
    assert_eq!(d["lwb_pool_writes"].as_u64(), Some(0));
    assert_eq!(d["commits_txg_fallback"].as_u64(), Some(0));
    let snap = last_snapshot(&res);
    assert_eq!(snap["state"], "DEGRADED");
    let rows: Vec<(&str, &str)> =
        snap["logs"].as_array().unwrap().iter().map(|r| (r["name"].as_str().unwrap(), r["state"].as_str().unwrap())).collect();
    assert_eq!(rows, [("mirror-1", "DEGRADED"), ("log0", "UNAVAIL"), ("log1", "ONLINE")]);
}

#[test]
fn lwbs_in_flight_on_a_dying_slog_fall_back_or_go_unlogged_per_release() {
    // Eight writers keep the SLOG busy (an SSD pool with 4K records in a 64 MiB region,
    // whose few indirect blocks stay dirty, so that the write throttle does not hold them
    // back instead); whether an lwb write rather than a flush
    // is in flight at the instant the SLOG dies depends on timing, so the failure comes
    // at several instants and the counts are summed.
    let dying = |release: &str| {
        let (mut errors, mut fallback, mut unlogged, mut risk) = (0, 0, 0, 0);
        for k in 0..8u64 {
            let mut cfg = fsync_pool(release, 8, 1, false);
            cfg["devices"]["d"] = preset("intel-s3700");
            cfg["pool"]["recordsize_bytes"] = json!(4096);
            cfg["workloads"][0]["region_length_bytes"] = json!(64u64 << 20);
            cfg["stop_ns"] = json!(12 * S);
            cfg["actions"] = json!([{"at_ns": 10 * S + k * 23_000, "do": "fail", "disk": "log0"}]);
            let res = run(&cfg);
            let d = &res["zil"]["log_devices"];
            errors += d["lwb_write_errors"].as_u64().unwrap();
            fallback += d["commits_txg_fallback"].as_u64().unwrap();
            unlogged += d["commits_unlogged"].as_u64().unwrap();
            risk = risk.max(res["zil"]["at_risk"]["bytes_max"].as_u64().unwrap());
        }
        eprintln!("{release}: lwb errors {errors}, txg fallbacks {fallback}, unlogged {unlogged}, at risk max {risk}");
        (errors, fallback, unlogged, risk)
    };
    // zfs-2.2: the waiters see the error and wait for their txg; nothing is at risk.
    let (e, f, u, r) = dying("zfs-2.2");
    assert!(e >= 1 && f >= 1 && u == 0 && r == 0, "{e} {f} {u} {r}");
    // zfs-2.1: the error never reaches zil_commit; acknowledged bytes are at risk.
    let (e, f, u, r) = dying("zfs-2.1");
    assert!(e >= 1 && f == 0 && u >= 1 && r >= 4096, "{e} {f} {u} {r}");
    // solaris-2009: the writer waits for the txg (zl_log_error).
    let (e, f, u, r) = dying("solaris-2009");
    assert!(e >= 1 && f >= 1 && u == 0 && r == 0, "{e} {f} {u} {r}");
}

#[test]
fn offline_of_a_lone_log_device_is_refused_only_in_2009() {
    let offline = |release: &str| {
        let mut cfg = fsync_pool(release, 1, 1, false);
        act(&mut cfg, 5, "offline", "log0");
        run(&cfg)
    };
    let sol = offline("solaris-2009");
    assert_eq!(sol["actions"][0]["error"], "cannot offline log0: no valid replicas");
    assert_eq!(sol["zil"]["log_devices"]["lwb_pool_writes"].as_u64(), Some(0));
    let new = offline("zfs-2.2");
    assert!(new["actions"][0]["error"].is_null(), "{}", new["actions"]);
    assert!(new["zil"]["log_devices"]["lwb_pool_writes"].as_u64().unwrap() > 0);
    let snap = last_snapshot(&new);
    assert_eq!((snap["state"].as_str(), snap["logs"][0]["state"].as_str()), (Some("DEGRADED"), Some("OFFLINE")));
    // And back: online puts the log device back in the rotor.
    let mut cfg = fsync_pool("zfs-2.2", 1, 1, false);
    act(&mut cfg, 5, "offline", "log0");
    act(&mut cfg, 10, "online", "log0");
    let res = run(&cfg);
    let snap = last_snapshot(&res);
    assert_eq!((snap["state"].as_str(), snap["logs"][0]["state"].as_str()), (Some("ONLINE"), Some("ONLINE")));
}

/// 8 KiB random reads the L2ARC always serves (cache: one S3700) over one 7200 rpm disk.
fn l2arc_pool(fail_at_s: Option<u64>) -> Value {
    let mut cfg = config(
        "zfs-2.2",
        preset("hdd-7200-sata-2014"),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "r", "kind": "random-read", "sizes": [[8192, 1.0]], "threads": 4, "l2arc_hit_ratio": 1.0}]),
        20,
    );
    cfg["devices"]["ssd"] = preset("intel-s3700");
    cfg["pool"]["cache"] = json!([{"name": "c0", "device": "ssd"}]);
    if let Some(t) = fail_at_s {
        act(&mut cfg, t, "fail", "c0");
    }
    cfg
}

#[test]
fn reads_move_to_the_pool_when_the_cache_device_fails() {
    let healthy = run(&l2arc_pool(None));
    let hdd_reads = |res: &Value| res["leaves"][0]["classes"]["sync_read"]["ops"].as_u64().unwrap_or(0);
    assert_eq!(hdd_reads(&healthy), 0, "every read is an L2ARC hit");
    assert!(healthy["workloads"][0].get("l2arc_redirected").is_none(), "no new keys without a cache action");
    let res = run(&l2arc_pool(Some(10)));
    let w = &res["workloads"][0];
    let (hits, moved) = (w["l2arc_hits"].as_u64().unwrap(), w["l2arc_redirected"].as_u64().unwrap());
    eprintln!("hits {hits} redirected {moved} read errors {}; hdd reads {}", w["l2arc_read_errors"], hdd_reads(&res));
    assert!(moved > 0 && hits > 0);
    assert!(hdd_reads(&res) >= moved, "redirected reads land on the disk");
    // The disk is far slower than the SSD: the second half does far fewer reads.
    assert!(moved * 10 < hits, "hits {hits} moved {moved}");
    // A cache device does not degrade the pool.
    let snap = last_snapshot(&res);
    assert_eq!(snap["state"], "ONLINE");
    assert_eq!((snap["cache"][0]["name"].as_str(), snap["cache"][0]["state"].as_str()), (Some("c0"), Some("UNAVAIL")));
}

#[test]
fn same_seed_same_digest_with_failing_aux_devices() {
    let mut cfg = fsync_pool("zfs-2.3", 8, 2, true);
    act(&mut cfg, 5, "fail", "log0");
    act(&mut cfg, 8, "fail", "log1");
    let a = run(&cfg);
    let b = run(&cfg);
    assert_eq!(a["digest"], b["digest"]);
    assert_eq!(a["zil"], b["zil"]);
}

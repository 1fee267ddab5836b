//! A pool that loses what it cannot do without: allocation around dead top-level vdevs and
//! the suspension `failmode` governs (`suspend.rs`).
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_model::device::presets;

const S: u64 = 1_000_000_000;

fn hdd() -> Value {
    serde_json::to_value(presets::get("hdd-7200-sata-2014").unwrap()).unwrap()
}

fn disk(n: &str) -> Value {
    json!({"name": n, "device": "d"})
}

fn cfg(release: &str, vdevs: Value, workloads: Value, failmode: &str, fail: &[&str], stop_s: u64) -> Value {
    let mut c = config(release, hdd(), vdevs, workloads, stop_s);
    c["pool"]["recordsize_bytes"] = json!(131072);
    c["pool"]["allocated_bytes"] = json!(8u64 << 30);
    c["pool"]["failmode"] = json!(failmode);
    c["actions"] = fail.iter().map(|d| json!({"at_ns": 5 * S, "do": "fail", "disk": d})).collect();
    c
}

fn writer(kind: &str) -> Value {
    json!([{"name": "w", "kind": kind, "sizes": [[131072, 1.0]], "threads": 4, "arc_hit_ratio": 1.0}])
}

fn one_disk() -> Value {
    json!([{"type": "disk", "disks": [disk("sda")]}])
}

fn two_mirrors() -> Value {
    json!([{"type": "mirror", "disks": [disk("sda"), disk("sdb")]},
           {"type": "mirror", "disks": [disk("sdc"), disk("sdd")]}])
}

fn ops(res: &Value, wl: usize) -> u64 {
    res["workloads"][wl]["ops"].as_u64().unwrap()
}

fn last_snapshot(res: &Value) -> Value {
    res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone()
}

/// The only disk dies under a writer: the next txg's sync has nowhere to write, the pool
/// suspends (failmode=wait, the default), and nothing written after that completes.
#[test]
fn a_pool_whose_only_disk_dies_suspends_at_the_next_sync_and_blocks_writers() {
    for release in ["zfs-0.6.5", "zfs-2.2"] {
        let short = run(&cfg(release, one_disk(), writer("random-write"), "wait", &["sda"], 20));
        let long = run(&cfg(release, one_disk(), writer("random-write"), "wait", &["sda"], 40));
        let sp = &long["pool"]["suspended"];
        assert_eq!(sp["cause"], "write", "{release}: {sp}");
        assert_eq!(sp["failmode"], "wait");
        let at = sp["at_ns"].as_u64().unwrap();
        // The first sync after the failure: within a txg timeout (5 s) and its sync.
        assert!(at > 5 * S && at < 15 * S, "{release}: suspended at {at}");
        assert!(sp["blocked_writes"].as_u64().unwrap() >= 4, "{release}: {sp}");
        assert_eq!(ops(&short, 0), ops(&long, 0), "{release}: writes completed after the suspension");
        assert_eq!(last_snapshot(&long)["suspended"], "wait");
        assert_eq!(long["end"], "stop-time");
    }
}

/// fsync waits for a log block no vdev can take, then for a txg sync the suspension holds.
#[test]
fn fsyncs_on_a_dead_pool_block() {
    // The disk dies between syncs (one starts at 5 s): dying while a sync's blocks wait to
    // be allocated would suspend the pool on them first (docs/sync-writes.md).
    let between = |stop_s| {
        let mut c = cfg("zfs-2.2", one_disk(), writer("fsync-write"), "wait", &["sda"], stop_s);
        c["actions"][0]["at_ns"] = json!(6 * S + S / 2);
        c
    };
    let short = run(&between(20));
    let long = run(&between(40));
    let sp = &long["pool"]["suspended"];
    assert_eq!(sp["cause"], "write", "{sp}");
    assert!(sp["stalled_log_blocks"].as_u64().unwrap() > 0, "{sp}");
    assert_eq!(ops(&short, 0), ops(&long, 0));
    assert_eq!(long["zil"]["at_risk"]["bytes_max"].as_u64().unwrap(), 0, "an fsync never returned unsafely");
}

/// A dead mirror among two: txg writes go to the live one (metaslab_alloc skips the dead);
/// a read of a block on the dead one suspends the pool under failmode=wait and fails with
/// EIO under failmode=continue.
#[test]
fn a_dead_top_level_vdev_takes_no_writes_and_its_reads_suspend_or_fail_by_failmode() {
    let wl = json!([{"name": "w", "kind": "random-write", "sizes": [[131072, 1.0]], "threads": 1, "think_ns": 20_000_000u64, "arc_hit_ratio": 1.0},
                    {"name": "r", "kind": "random-read", "sizes": [[131072, 1.0]], "threads": 1, "think_ns": 20_000_000u64}]);
    let cont = run(&cfg("zfs-2.2", two_mirrors(), wl.clone(), "continue", &["sda", "sdb"], 30));
    assert!(cont["pool"]["suspended"].is_null(), "{}", cont["pool"]["suspended"]);
    assert!(cont["workloads"][1]["read_errors"].as_u64().unwrap() > 0);
    assert!(ops(&cont, 0) > 500, "writes went on: {}", ops(&cont, 0));
    // The live mirror took every txg write after the failure; the dead one's disks none.
    let leaf = |res: &Value, n: &str| res["leaves"].as_array().unwrap().iter().find(|l| l["name"] == n).unwrap().clone();
    let aw = |l: &Value| l["classes"].get("async_write").map_or(0, |c| c["bytes"].as_u64().unwrap());
    assert!(aw(&leaf(&cont, "sdc")) > 2 * aw(&leaf(&cont, "sda")), "{} vs {}", aw(&leaf(&cont, "sdc")), aw(&leaf(&cont, "sda")));

    let wait = run(&cfg("zfs-2.2", two_mirrors(), wl, "wait", &["sda", "sdb"], 30));
    let sp = &wait["pool"]["suspended"];
    assert_eq!(sp["cause"], "read", "{sp}");
    assert_eq!(sp["vdev"], "mirror-0");
    assert_eq!(sp["blocked_reads"], 1, "the reader's one thread waits");
    assert_eq!(wait["workloads"][1]["read_errors"], 0);
    assert!(sp["at_ns"].as_u64().unwrap() < 6 * S, "{sp}");
    // Writers block too from then on.
    assert!(ops(&wait, 0) < ops(&cont, 0) / 2, "{} vs {}", ops(&wait, 0), ops(&cont, 0));
    assert_eq!(last_snapshot(&wait)["errors"], 0, "a suspended read is not an error the pool logs");
}

/// failmode=panic ends the run at the suspension.
#[test]
fn failmode_panic_ends_the_run() {
    let res = run(&cfg("zfs-2.2", one_disk(), writer("random-write"), "panic", &["sda"], 60));
    assert_eq!(res["end"], "panic");
    let at = res["pool"]["suspended"]["at_ns"].as_u64().unwrap();
    assert_eq!(res["sim_time_ns"].as_u64().unwrap(), at);
}

/// A scrub that loses its pool can never finish: a run that stops when the scans are done
/// ends at the suspension. The scrub's own txg state write is what suspends it.
#[test]
fn a_scan_done_run_ends_when_the_pool_suspends() {
    let mut c = cfg("zfs-2.2", json!([{"type": "raidz1", "disks": [disk("sda"), disk("sdb"), disk("sdc")]}]), json!([]), "wait", &["sda", "sdb"], 3600);
    c["actions"].as_array_mut().unwrap().insert(0, json!({"at_ns": S, "do": "scrub"}));
    c["stop_on_scan_done"] = json!(true);
    let res = run(&c);
    assert_eq!(res["end"], "suspended", "{}", res["pool"]["suspended"]);
    assert_eq!(res["pool"]["suspended"]["cause"], "write");
    assert!(res["sim_time_ns"].as_u64().unwrap() < 20 * S);
}

/// A healthy pool never suspends, and its results say so.
#[test]
fn a_healthy_pool_is_not_suspended() {
    let res = run(&cfg("zfs-2.2", one_disk(), writer("random-write"), "wait", &[], 10));
    assert!(res["pool"]["suspended"].is_null());
    assert_eq!(res["pool"]["failmode"], "wait");
    assert!(res["status"]["snapshots"].as_array().into_iter().flatten().all(|s| s.get("suspended").is_none()));
    assert!(ops(&res, 0) > 1000, "{}", ops(&res, 0));
}

/// A write covering part of a record not in memory reads it first (`dmu_tx_check_ioerr`,
/// `dmu_buf_will_dirty`): on a dead vdev that read waits with the suspended pool and logs
/// no error; under failmode=continue it fails with EIO and so does the write — each
/// closed-loop thread stops at its first one, and the block is in the error log.
#[test]
fn partial_writes_that_must_read_a_dead_record_wait_with_the_pool_or_fail() {
    let wl = json!([{"name": "w", "kind": "random-write", "sizes": [[8192, 1.0]], "threads": 4}]);
    // The disk dies between syncs (the first starts at 5 s): a sync whose blocks the
    // allocation throttle still holds when it dies suspends the pool on them before any
    // read (docs/sync-writes.md, "A disk that dies mid-sync").
    let mut c = cfg("zfs-2.2", one_disk(), wl.clone(), "wait", &["sda"], 20);
    c["actions"][0]["at_ns"] = json!(6 * S + S / 2);
    let wait = run(&c);
    let sp = &wait["pool"]["suspended"];
    assert!(sp["blocked_reads"].as_u64().unwrap() >= 1, "{sp}");
    assert_eq!(last_snapshot(&wait)["errors"], 0);
    assert_eq!(wait["workloads"][0]["read_errors"], 0);
    let cont = run(&cfg("zfs-2.2", two_mirrors_as_disks(), wl, "continue", &["sda"], 20));
    assert_eq!(cont["workloads"][0]["read_errors"], 4, "every thread stops at its first EIO");
    assert!(last_snapshot(&cont)["errors"].as_u64().unwrap() > 0);
}

fn two_mirrors_as_disks() -> Value {
    json!([{"type": "disk", "disks": [disk("sda")]}, {"type": "disk", "disks": [disk("sdb")]}])
}

/// A read's suspension leaves the syncs running on the live top-level vdevs, so a scrub
/// still finishes and a `scan-done` run ends as one; a stuck sync ends it at once
/// (`a_scan_done_run_ends_when_the_pool_suspends`).
#[test]
fn a_read_suspension_lets_a_scrub_finish() {
    let wl = json!([{"name": "r", "kind": "random-read", "sizes": [[131072, 1.0]], "threads": 1, "think_ns": 20_000_000u64}]);
    let mut c = cfg("zfs-2.2", two_mirrors(), wl, "wait", &["sda", "sdb"], 3600);
    c["actions"].as_array_mut().unwrap().insert(0, json!({"at_ns": S, "do": "scrub"}));
    c["stop_on_scan_done"] = json!(true);
    let res = run(&c);
    assert_eq!(res["pool"]["suspended"]["cause"], "read");
    assert_eq!(res["end"], "scan-done");
    assert_eq!(res["scans"][0]["state"], "finished");
}

/// The error log keeps what a scrub found on the dead vdev when a later read suspends the
/// pool: that read's own zio waits to be re-executed and logs nothing.
#[test]
fn a_suspending_read_leaves_the_scrubs_errors_in_the_log() {
    let wl = json!([{"name": "r", "kind": "random-read", "sizes": [[131072, 1.0]], "threads": 1, "start_ns": 600 * S}]);
    let mut c = cfg("zfs-2.2", two_mirrors(), wl, "wait", &["sda", "sdb"], 900);
    c["actions"].as_array_mut().unwrap().push(json!({"at_ns": 6 * S, "do": "scrub"}));
    let res = run(&c);
    let scrub = &res["scans"][0];
    assert_eq!(scrub["state"], "finished", "{scrub}");
    assert!(scrub["errors"].as_u64().unwrap() > 0);
    let sp = &res["pool"]["suspended"];
    assert_eq!(sp["cause"], "read", "{sp}");
    assert!(sp["at_ns"].as_u64().unwrap() >= 600 * S);
    // The same run without the reader logs the same blocks.
    c["workloads"] = json!([]);
    let quiet = run(&c);
    assert!(quiet["pool"]["suspended"].is_null());
    let logged = last_snapshot(&quiet)["errors"].as_u64().unwrap();
    assert!(logged > 0);
    assert_eq!(last_snapshot(&res)["errors"].as_u64().unwrap(), logged, "the scrub's errors stay logged");
}

/// `zpool` commands on a suspended pool: the pool-modifying ioctls refuse with EAGAIN, which
/// zpool prints "pool I/O is currently suspended" (online and offline only from the 2013
/// ioctl registration: the 2010 table did not check `set_state`); 2.2's `zpool scrub` has no
/// such check and hangs in its sync task. None of them changes anything.
#[test]
fn zpool_commands_on_a_suspended_pool_are_refused_or_hang() {
    let at = |s: u64, v: Value| -> Value {
        let mut v = v;
        v["at_ns"] = json!(s * S);
        v
    };
    let actions = |c: &mut Value, pause: bool| {
        let a = c["actions"].as_array_mut().unwrap();
        a.push(at(30, json!({"do": "scrub"})));
        if pause {
            a.push(at(31, json!({"do": "pause-scrub"})));
        }
        a.push(at(32, json!({"do": "cancel"})));
        a.push(at(33, json!({"do": "replace", "old": "sda", "new": "sdz"})));
        a.push(at(34, json!({"do": "offline", "disk": "sda"})));
    };
    let suspended = "cannot offline sda: pool I/O is currently suspended";
    for (release, scrub, offline_refused) in [
        ("zfs-2.1", Some("cannot scrub tank: pool I/O is currently suspended"), true),
        ("illumos-2012", Some("cannot scrub tank: pool I/O is currently suspended"), false),
        ("zfs-2.2", None, true),
    ] {
        // The only disk dies under a writer: the next sync suspends the pool.
        let mut c = cfg(release, one_disk(), writer("random-write"), "wait", &["sda"], 40);
        actions(&mut c, release != "illumos-2012");
        let res = run(&c);
        assert!(!res["pool"]["suspended"].is_null(), "{release}: not suspended");
        let log = res["actions"].as_array().unwrap();
        let by = |cmd: &str| log.iter().find(|e| e["command"].as_str().unwrap().starts_with(cmd)).unwrap().clone();
        let s = by("zpool scrub tank");
        assert_eq!(s["error"].as_str(), scrub, "{release}: {s}");
        if scrub.is_none() {
            assert!(s["warning"].as_str().unwrap().contains("does not return"), "{release}: {s}");
        }
        assert_eq!(by("zpool replace tank sda sdz")["error"], "cannot replace sda with sdz: pool I/O is currently suspended", "{release}");
        let off = by("zpool offline tank sda");
        assert_eq!(off["error"] == suspended, offline_refused, "{release}: {off}");
        // Nothing started: no scan, and no new disk.
        assert!(res["scan"].is_null(), "{release}: {}", res["scan"]);
        assert!(!res["leaves"].as_array().unwrap().iter().any(|l| l["name"] == "sdz"), "{release}");
    }
}

/// Readers (open loop) with a modelled ARC too small to keep their level-1 blocks: after the
/// only disk dies, each new read first needs an indirect block with no copy left. Under
/// failmode=wait such a read waits on the suspended pool, as a record's read does; under
/// continue it is EIO.
#[test]
fn an_indirect_block_on_a_dead_vdev_suspends_or_fails_the_read_by_failmode() {
    let wl = json!([{"name": "r", "kind": "random-read", "sizes": [[4096, 1.0]], "rate_per_s": 20.0, "arc_bytes": 131072}]);
    let wait = run(&cfg("zfs-2.2", one_disk(), wl.clone(), "wait", &["sda"], 10));
    assert!(wait["workloads"][0]["arc"]["indirect"]["reads"].as_u64().unwrap() > 10, "{}", wait["workloads"][0]);
    let sp = &wait["pool"]["suspended"];
    assert_eq!(sp["cause"], "read", "{sp}");
    // The reads after it wait too: on the pool (those that tried a dead block) or on an
    // indirect block a waiting read was to read.
    assert!(sp["blocked_reads"].as_u64().unwrap() > 1, "{sp}");
    assert!(wait["workloads"][0]["inflight_at_end"].as_u64().unwrap() > 50, "{}", wait["workloads"][0]);
    assert_eq!(wait["workloads"][0]["read_errors"], 0);
    let cont = run(&cfg("zfs-2.2", one_disk(), wl, "continue", &["sda"], 10));
    assert!(cont["pool"]["suspended"].is_null(), "{}", cont["pool"]["suspended"]);
    assert!(cont["workloads"][0]["read_errors"].as_u64().unwrap() > 0);
}

/// failmode=continue, the only disk dead, readers of two records through a one-record
/// modelled ARC: a read of the record the ARC lacks fails with EIO at once, leaves no
/// buffer behind, and a later read of it fails too instead of waiting on the failed read.
#[test]
fn a_failed_read_leaves_nothing_in_the_modelled_arc_for_others_to_wait_on() {
    let wl = json!([{"name": "r", "kind": "random-read", "sizes": [[131072, 1.0]], "rate_per_s": 50.0,
                     "region_length_bytes": 262144, "arc_bytes": 131072}]);
    let res = run(&cfg("zfs-2.2", one_disk(), wl, "continue", &["sda"], 10));
    let w = &res["workloads"][0];
    assert!(w["read_errors"].as_u64().unwrap() > 100, "{w}");
    assert!(w["inflight_at_end"].as_u64().unwrap() <= 1, "no read waits for ever: {w}");
}

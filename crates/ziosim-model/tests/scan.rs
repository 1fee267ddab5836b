//! Scrub and resilver through the whole model.
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_model::device::presets;

fn hdd() -> Value {
    serde_json::to_value(presets::get("hdd-7200-sata-2014").unwrap()).unwrap()
}

/// The busy-scrub field case's shape (design.md §7): mirrors behind a ~100 MB/s iSCSI
/// path, a user doing one I/O every 0.4 s (so the pool never looks idle for zfs_scan_idle
/// = 50 ticks), illumos HZ = 100.
fn busy_scrub(delay: i64, stop_s: u64) -> Value {
    let disks = |a: &str, b: &str| json!([{"name": a, "device": "d", "link": "net"}, {"name": b, "device": "d", "link": "net"}]);
    let mut cfg = config(
        "illumos-2014",
        hdd(),
        json!([{"type": "mirror", "disks": disks("c1t0d0", "c1t1d0")}, {"type": "mirror", "disks": disks("c1t2d0", "c1t3d0")}]),
        json!([{"name": "users", "kind": "random-read", "sizes": [[131072, 1.0]], "threads": 1, "think_ns": 400_000_000u64}]),
        stop_s,
    );
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(200u64 << 30);
    cfg["links"] = json!({"net": {"kind": "shared", "rate_bytes_per_s": 100_000_000u64}});
    cfg["tunables"] = json!({"zfs_scrub_delay": delay});
    cfg["actions"] = json!([{"at_ns": 1_000_000_000u64, "do": "scrub"}]);
    cfg
}

fn scan_rate(res: &Value) -> f64 {
    res["scan"]["issued_bytes_per_s"].as_f64().unwrap()
}

#[test]
fn busy_pool_default_delay_caps_scrub_near_25_blocks_per_second() {
    let res = run(&busy_scrub(4, 120));
    let rate = scan_rate(&res);
    // 100 ticks/s ÷ 4 ticks = at most 25 blocks/s; a mirror block's asize is its psize, so
    // issued bytes / 128 KiB counts blocks: the author's bound 25 × 128 KiB ≈ 3.2 MB/s.
    let blocks_per_s = res["scan"]["issued_bytes"].as_f64().unwrap() / 131072.0 / (res["scan"]["duration_ns"].as_f64().unwrap() / 1e9);
    assert!(blocks_per_s <= 25.0, "blocks/s {blocks_per_s} rate {rate}");
    assert!(blocks_per_s > 20.0, "blocks/s {blocks_per_s}");
    assert!(rate <= 3.3e6, "rate {rate}");
}

#[test]
fn busy_pool_without_delay_scrubs_at_the_path_limit() {
    let res = run(&busy_scrub(0, 60));
    // Every block is read from both mirror children: leaf bytes = issued bytes.
    let leaf_read: f64 = res["leaves"].as_array().unwrap().iter().map(|l| l["classes"]["scrub"]["bytes"].as_f64().unwrap_or(0.0)).sum();
    let t = res["scan"]["duration_ns"].as_f64().unwrap() / 1e9;
    let path = leaf_read / t;
    assert!(path > 80e6 && path <= 100.5e6, "path rate {path}");
}

#[test]
fn scrub_finishes_and_stops_the_run() {
    let mut cfg = busy_scrub(0, 3600);
    cfg["pool"]["allocated_bytes"] = json!(4u64 << 30);
    cfg["stop_on_scan_done"] = json!(true);
    let res = run(&cfg);
    assert_eq!(res["scan"]["state"], "finished");
    assert_eq!(res["scan"]["examined_bytes"], res["scan"]["to_examine_bytes"]);
    assert!(res["sim_time_ns"].as_u64().unwrap() < 600_000_000_000);
    let snaps = res["status"]["snapshots"].as_array().unwrap();
    assert_eq!(snaps.last().unwrap()["scan"]["state"], "finished");
}

#[test]
fn raidz_resilver_reads_survivors_and_writes_only_the_new_disk() {
    let disks: Vec<Value> = (0..5).map(|i| json!({"name": format!("sd{}", (b'a' + i) as char), "device": "d"})).collect();
    let mut cfg = config("zfs-0.7", hdd(), json!([{"type": "raidz2", "disks": disks}]), json!([]), 3600);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(2u64 << 30);
    cfg["stop_on_scan_done"] = json!(true);
    cfg["actions"] = json!([{"at_ns": 0, "do": "fail", "disk": "sdb"}, {"at_ns": 1_000_000_000u64, "do": "replace", "old": "sdb", "new": "sdf"}]);
    let res = run(&cfg);
    assert_eq!(res["scan"]["func"], "resilver");
    assert_eq!(res["scan"]["state"], "finished");
    let leaves = res["leaves"].as_array().unwrap();
    let by = |n: &str| leaves.iter().find(|l| l["name"] == n).unwrap().clone();
    let sdf = by("sdf");
    // The new disk is only written (repair writes ride ASYNC_WRITE), the failed one untouched.
    assert!(sdf["classes"].get("scrub").is_none());
    let written = sdf["classes"]["async_write"]["bytes"].as_u64().unwrap();
    // Besides the repairs, its columns of the txgs' MOS blocks (the scan's state and the
    // space maps): at most one sector of each copy's three (one data, two parity).
    let repaired = res["scan"]["processed_bytes"].as_u64().unwrap();
    let meta = res["txg"]["metadata_bytes"].as_u64().unwrap();
    assert!(written >= repaired && written - repaired <= meta, "{written} {repaired} {meta}");
    // One fifth of a 5-wide raidz2's allocation lands on each child.
    let alloc = res["pool"]["layout_alloc_bytes"].as_f64().unwrap();
    assert!((written as f64 / (alloc / 5.0) - 1.0).abs() < 0.05, "written {written} of {alloc}");
    assert!(by("sdb")["classes"].as_object().unwrap().is_empty());
    let last = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    let names: Vec<&str> = last["tree"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"sdf") && !names.contains(&"replacing-1"), "{names:?}");
}

fn raidz2_scrub(release: &str, ram: u64, alloc: u64) -> Value {
    let disks: Vec<Value> = (0..6).map(|i| json!({"name": format!("sd{}", (b'a' + i) as char), "device": "d"})).collect();
    let mut cfg = config(release, hdd(), json!([{"type": "raidz2", "disks": disks}]), json!([]), 7200);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(alloc);
    cfg["ram_bytes"] = json!(ram);
    cfg["stop_on_scan_done"] = json!(true);
    cfg["actions"] = json!([{"at_ns": 0, "do": "scrub"}]);
    cfg
}

#[test]
fn sorted_scrub_reads_everything_once_and_streams() {
    let res = run(&raidz2_scrub("zfs-2.2", 16 << 30, 20 << 30));
    let sc = &res["scan"];
    assert_eq!(sc["state"], "finished");
    assert_eq!(sc["issued_bytes"], sc["to_examine_bytes"]);
    assert_eq!(sc["examined_bytes"], sc["to_examine_bytes"]);
    // A fresh fill scanned in LBA order streams: each disk near its sequential rate
    // (175 MB/s outer zone) — far above what 128 KiB random reads would give (~15 MB/s).
    let per_disk = sc["issued_bytes_per_s"].as_f64().unwrap() / 6.0;
    assert!(per_disk > 90e6, "per-disk scan rate {per_disk}");
}

#[test]
fn sorted_scrub_with_little_ram_alternates_phases_within_the_memory_limit() {
    // 1 GiB RAM: hard limit max(1 GiB/20, 16 MiB) = 51 MiB; 80 GiB of 128 KiB blocks need
    // ≈ 89 MiB of sios. The pool is fully aged so that its indirect blocks are scattered, and
    // the metadata prefetch is off: a txg of traversal, reading each indirect block and
    // waiting for it, then covers part of the pool (prefetched, or on a fresh pool, the
    // whole tree is walked in one txg), and the queues must be cleared while traversing.
    let mut cfg = raidz2_scrub("zfs-2.2", 1 << 30, 80 << 30);
    cfg["pool"]["layout"] = json!({"fragmentation": 1.0});
    cfg["tunables"] = json!({"zfs_no_scrub_prefetch": 1});
    let res = run(&cfg);
    let sc = &res["scan"];
    assert_eq!(sc["state"], "finished");
    assert_eq!(sc["issued_bytes"], sc["to_examine_bytes"]);
    let hard = sc["sort_mem_hard_bytes"].as_f64().unwrap();
    assert_eq!(hard, ((1u64 << 30) / 20) as f64);
    // Checked once per txg (zfs_scan_strict_mem_lim = 0): one txg's traversal may overshoot.
    let peak = sc["sort_mem_peak_bytes"].as_f64().unwrap();
    assert!(peak >= hard && peak < 2.0 * hard, "peak {peak} hard {hard}");
    assert!(sc["issue_phases"].as_u64().unwrap() >= 2, "{sc}");
}

/// Audit 1 F7: with `zfs_scan_strict_mem_lim = 1` the walk suspends at the next level-0
/// block once the sort memory reaches the hard limit (`dsl_scan_check_suspend`), so it
/// overshoots by a few sios at most; with 0 (above) one txg's walk may overshoot far.
#[test]
fn strict_mem_lim_holds_the_sort_memory_at_the_hard_limit() {
    let mut cfg = raidz2_scrub("zfs-2.2", 1 << 30, 80 << 30);
    cfg["pool"]["layout"] = json!({"fragmentation": 1.0});
    cfg["tunables"] = json!({"zfs_no_scrub_prefetch": 1, "zfs_scan_strict_mem_lim": 1});
    let sc = run(&cfg)["scan"].clone();
    assert_eq!(sc["state"], "finished");
    assert_eq!(sc["issued_bytes"], sc["to_examine_bytes"]);
    let (peak, hard) = (sc["sort_mem_peak_bytes"].as_u64().unwrap(), sc["sort_mem_hard_bytes"].as_u64().unwrap());
    assert!(peak >= hard && peak <= hard + 4096, "peak {peak} hard {hard}");
    assert!(sc["issue_phases"].as_u64().unwrap() >= 2, "{sc}");
}

fn raidz2_layout_scrub(release: &str, fragmentation: f64) -> Value {
    let mut cfg = raidz2_scrub(release, 16 << 30, 20 << 30);
    cfg["pool"]["layout"] = json!({"fragmentation": fragmentation});
    cfg
}

fn class_bytes(res: &Value, class: &str) -> u64 {
    res["classes"][class]["bytes"].as_u64().unwrap_or(0)
}

#[test]
fn legacy_and_sorted_scrub_of_one_aged_pool_examine_the_same_bytes_and_sorted_is_faster() {
    let legacy = run(&raidz2_layout_scrub("zfs-0.7", 0.8));
    let sorted = run(&raidz2_layout_scrub("zfs-2.2", 0.8));
    let (l, s) = (&legacy["scan"], &sorted["scan"]);
    assert_eq!((l["engine"].as_str(), s["engine"].as_str()), (Some("legacy"), Some("sorted")));
    for sc in [l, s] {
        assert_eq!(sc["state"], "finished");
        assert_eq!(sc["examined_bytes"], sc["to_examine_bytes"]);
        assert_eq!(sc["issued_bytes"], sc["to_examine_bytes"]);
    }
    assert_eq!(l["examined_bytes"], s["examined_bytes"]);
    // Legacy issues in logical order — on an aged pool, a seek per shuffled chunk; the
    // sorted scan issues each vdev's queue in LBA order.
    let (ld, sd) = (l["duration_ns"].as_f64().unwrap(), s["duration_ns"].as_f64().unwrap());
    eprintln!("aged raidz2 scrub: legacy {:.1} s, sorted {:.1} s", ld / 1e9, sd / 1e9);
    assert!(sd < 0.8 * ld, "sorted {sd} ns vs legacy {ld} ns");
}

#[test]
fn on_a_fresh_pool_both_engines_scrub_near_sequential_speed() {
    for release in ["zfs-0.7", "zfs-2.2"] {
        let res = run(&raidz2_layout_scrub(release, 0.0));
        let sc = &res["scan"];
        assert_eq!(sc["state"], "finished");
        let per_disk = sc["issued_bytes_per_s"].as_f64().unwrap() / 6.0;
        eprintln!("fresh raidz2 scrub, {release}: {:.0} MB/s per disk", per_disk / 1e6);
        assert!(per_disk > 90e6, "{release}: per-disk scan rate {per_disk}");
    }
}

#[test]
fn the_traversal_reads_metadata_at_the_eras_priority() {
    // No workload: async reads can only be the legacy traversal's metadata reads.
    let legacy = run(&raidz2_layout_scrub("zfs-0.7", 0.0));
    let sorted = run(&raidz2_layout_scrub("zfs-2.2", 0.0));
    // 20 GiB of 128 KiB records: ≥ 160 indirect blocks of 64 KiB (lz4 on pointers, ×2
    // ditto copies exist but the traversal reads one).
    assert!(class_bytes(&legacy, "async_read") >= 160 * (64 << 10), "{}", legacy["classes"]);
    assert_eq!(class_bytes(&sorted, "async_read"), 0);
    // Sorted: SCRUB-class leaf bytes exceed the block reads by the metadata reads.
    let issued = sorted["scan"]["issued_bytes"].as_u64().unwrap();
    assert!(class_bytes(&sorted, "scrub") >= issued + 160 * (64 << 10) * 4 / 6, "{}", sorted["classes"]);
}

/// Two mirrors, aged contents; one disk of mirror-0 is replaced. Ditto metadata has a copy
/// on each vdev. ZFS decides `needs_io` per block (`dsl_scan_scrub_cb`), so a block with a
/// copy on mirror-0 is read whole (audit 1 F5, audit 5 F6):
/// - sorted (2.2): `dsl_scan_enqueue` queues a sio for every DVA; each is a resilver read of
///   the whole bp that reads one copy at random and repairs the mirror-0 copy, so mirror-1
///   is read too, issued counts both copies and each ditto copy is written once per sio;
/// - legacy (0.7): one read of one copy per block, the other copies repaired from it, so
///   the new disk gets each of mirror-0's copies once.
#[test]
fn resilver_reads_the_whole_block_when_any_copy_needs_it() {
    for release in ["zfs-0.7", "zfs-2.2"] {
        let res = run(&two_mirrors(release, 2 << 30, json!([{"at_ns": 0, "do": "replace", "old": "sdb", "new": "sde"}])));
        let sc = &res["scan"];
        assert_eq!((sc["func"].as_str(), sc["state"].as_str()), (Some("resilver"), Some("finished")), "{release}");
        let (total, exam, issued, skipped) = scan_bytes(sc);
        assert_eq!(exam, total, "{release}");
        assert_eq!(issued + skipped, exam, "{release}");
        let top0 = res["pool"]["vdevs"][0]["layout_alloc_bytes"].as_u64().unwrap();
        assert!(issued > top0, "{release}: issued {issued} = mirror-0's {top0} and the ditto copies on mirror-1");
        let leaves = res["leaves"].as_array().unwrap();
        let scrub_read = |n: &str| leaves.iter().find(|l| l["name"] == n).unwrap()["classes"]["scrub"]["bytes"].as_u64().unwrap_or(0);
        assert!(scrub_read("sdc") + scrub_read("sdd") > 0, "{release}: mirror-1 read for the ditto blocks");
        let processed = sc["processed_bytes"].as_u64().unwrap();
        if release == "zfs-0.7" {
            // Each of mirror-0's copies is written to the new disk once.
            assert_eq!(processed, top0, "{release}");
        } else {
            // Each sio repairs the mirror-0 copies of its block: a ditto block's twice, a
            // 3-copy MOS block's two mirror-0 copies three times.
            assert!(processed >= issued && processed - issued <= 1 << 20, "{release}: processed {processed} issued {issued}");
        }
    }
}

/// Users' latency split by scan window: every operation lands in exactly one window, the
/// windows tile the run, the scrub (delay 0, disks saturated) slows the users while it
/// runs, and `stop = "scan-done + D"` keeps an "after" window of D.
#[test]
fn workload_latency_is_split_before_during_and_after_the_scan() {
    let mut cfg = busy_scrub(0, 3600);
    cfg["pool"]["allocated_bytes"] = json!(4u64 << 30);
    cfg["workloads"][0]["threads"] = json!(2);
    cfg["workloads"][0]["think_ns"] = json!(20_000_000u64);
    cfg["actions"] = json!([{"at_ns": 20_000_000_000u64, "do": "scrub"}]);
    cfg["stop_on_scan_done"] = json!(true);
    cfg["stop_after_scan_done_ns"] = json!(20_000_000_000u64);
    let res = run(&cfg);
    assert_eq!(res["scan"]["state"], "finished");
    let w = &res["workloads"][0];
    let ph = &w["by_scan_phase"];
    let get = |k: &str, f: &str| ph[k][f].as_u64().unwrap();
    assert_eq!(get("before", "ops") + get("during", "ops") + get("after", "ops"), w["ops"].as_u64().unwrap());
    let sim = res["sim_time_ns"].as_u64().unwrap();
    assert_eq!(get("before", "window_ns") + get("during", "window_ns") + get("after", "window_ns"), sim);
    // The scan starts at the first txg boundary after the action, ends at end_ns; the run
    // stops 20 s later.
    let (start, end) = (res["scan"]["start_ns"].as_u64().unwrap(), res["scan"]["end_ns"].as_u64().unwrap());
    assert_eq!(get("before", "window_ns"), start);
    assert_eq!(get("during", "window_ns"), end - start);
    assert_eq!(sim - end, 20_000_000_000);
    for k in ["before", "during", "after"] {
        assert!(get(k, "ops") > 50, "{k}: {}", ph[k]);
    }
    let mean = |k: &str| ph[k]["latency_ns"]["mean"].as_f64().unwrap();
    assert!(mean("during") > 1.5 * mean("before"), "during {} before {}", mean("during"), mean("before"));
    assert!(mean("after") < 1.2 * mean("before"), "after {} before {}", mean("after"), mean("before"));
    let log2: u64 = ph["during"]["latency_log2"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(log2, get("during", "ops"));
}

#[test]
fn a_run_without_a_scan_has_no_phase_split() {
    let mut cfg = busy_scrub(0, 5);
    cfg["actions"] = json!([]);
    let res = run(&cfg);
    assert!(res["workloads"][0]["by_scan_phase"].is_null());
}

/// The legacy scan prefetches the metadata below each indirect and dnode block it reads
/// (`dsl_scan_prefetch`), so its synchronous metadata reads mostly find the block already
/// read; `zfs_no_scrub_prefetch = 1` makes it wait on every one. Either way every block is
/// examined once.
#[test]
fn legacy_scan_prefetches_metadata_unless_told_not_to() {
    let run_with = |no_pf: i64| {
        let disks: Vec<Value> = (0..6).map(|i| json!({"name": format!("sd{}", (b'a' + i) as char), "device": "d"})).collect();
        let mut cfg = config("zfs-0.7", hdd(), json!([{"type": "raidz2", "disks": disks}]), json!([]), 7200);
        cfg["pool"]["recordsize_bytes"] = json!(131072);
        cfg["pool"]["allocated_bytes"] = json!(8u64 << 30);
        cfg["pool"]["layout"] = json!({"files": [[65536, 0.2], [1u64 << 30, 0.8]]});
        cfg["tunables"] = json!({"zfs_no_scrub_prefetch": no_pf});
        cfg["stop_on_scan_done"] = json!(true);
        cfg["actions"] = json!([{"at_ns": 0, "do": "scrub"}]);
        run(&cfg)["scan"].clone()
    };
    let on = run_with(0);
    let off = run_with(1);
    eprintln!("prefetch on: {on}\nprefetch off: {off}");
    for s in [&on, &off] {
        assert_eq!(s["state"], "finished");
        assert_eq!(s["examined_bytes"], s["to_examine_bytes"]);
    }
    assert_eq!(off["prefetch_reads"], 0);
    let (pf_reads, hits) = (on["prefetch_reads"].as_u64().unwrap(), on["prefetch_hits"].as_u64().unwrap());
    assert!(pf_reads > 100, "{on}");
    // Nearly every prefetched block is later met by the traversal; what it still reads
    // itself and waits for is the rest (tree tops and files' first indirects it visits).
    assert!(hits * 100 >= pf_reads * 95, "{on}");
    let sync_on = on["meta_reads"].as_u64().unwrap();
    let sync_off = off["meta_reads"].as_u64().unwrap();
    assert_eq!(sync_on + hits, sync_off, "on {on} off {off}");
    assert!(sync_on * 4 < sync_off, "on {sync_on} off {sync_off}");
    // The traversal no longer stops for each indirect block: the scrub ends sooner.
    assert!(on["duration_ns"].as_u64().unwrap() < off["duration_ns"].as_u64().unwrap(), "on {on} off {off}");
}

/// From 0.8 a thread prefetches the metadata ahead of the traversal (`dsl_scan_prefetch_thread`),
/// for the sorted scan and for `zfs_scan_legacy` alike: the traversal's own synchronous reads
/// become ARC hits or waits for the prefetch, and the metadata walk ends sooner.
/// `zfs_no_scrub_prefetch = 1` stops it.
#[test]
fn prefetch_thread_runs_ahead_of_the_traversal() {
    let run_with = |rel: &str, no_pf: i64, legacy: i64| {
        let disks: Vec<Value> = (0..6).map(|i| json!({"name": format!("sd{}", (b'a' + i) as char), "device": "d"})).collect();
        let mut cfg = config(rel, hdd(), json!([{"type": "raidz2", "disks": disks}]), json!([]), 7200);
        cfg["pool"]["recordsize_bytes"] = json!(131072);
        cfg["pool"]["allocated_bytes"] = json!(8u64 << 30);
        cfg["pool"]["layout"] = json!({"files": [[65536, 0.2], [1u64 << 30, 0.8]], "fragmentation": 0.5});
        cfg["tunables"] = json!({"zfs_no_scrub_prefetch": no_pf, "zfs_scan_legacy": legacy});
        cfg["stop_on_scan_done"] = json!(true);
        cfg["actions"] = json!([{"at_ns": 0, "do": "scrub"}]);
        run(&cfg)["scan"].clone()
    };
    for (rel, legacy) in [("zfs-2.2", 0), ("zfs-0.8", 0), ("zfs-2.2", 1)] {
        let on = run_with(rel, 0, legacy);
        let off = run_with(rel, 1, legacy);
        for s in [&on, &off] {
            assert_eq!(s["state"], "finished", "{rel} {s}");
            assert_eq!(s["examined_bytes"], s["to_examine_bytes"], "{rel} {s}");
        }
        assert_eq!(on["engine"], if legacy == 1 { "legacy" } else { "sorted" });
        assert_eq!(off["prefetch_reads"], 0);
        let (pf_reads, hits) = (on["prefetch_reads"].as_u64().unwrap(), on["prefetch_hits"].as_u64().unwrap());
        let (sync_on, sync_off) = (on["meta_reads"].as_u64().unwrap(), off["meta_reads"].as_u64().unwrap());
        // Every metadata block is read once, by the thread or by the traversal.
        assert_eq!(sync_on + hits, sync_off, "{rel}: on {on} off {off}");
        assert!(hits <= pf_reads && pf_reads > 100, "{rel}: {on}");
        assert!(sync_on * 10 < sync_off, "{rel}: on {sync_on} off {sync_off}");
        assert!(on["duration_ns"].as_u64().unwrap() < off["duration_ns"].as_u64().unwrap(), "{rel}: on {on} off {off}");
        // Per phase: the walk ends before the scan, sooner with the prefetch.
        let walk = |s: &Value| s["walk_ns"].as_u64().unwrap();
        assert!(walk(&on) < walk(&off) && walk(&off) <= off["duration_ns"].as_u64().unwrap(), "{rel}: on {on} off {off}");
        if legacy == 0 {
            // A sorted scan walks far faster than it issues: "scanned" runs ahead of "issued".
            let (w, i) = (on["walk_examined_bytes_per_s"].as_f64().unwrap(), on["after_walk_issued_bytes_per_s"].as_f64().unwrap());
            assert!(w > 2.0 * i, "{rel}: walk {w} B/s, issue after it {i} B/s");
        } else {
            assert!(on["after_walk_issued_bytes_per_s"].is_null());
        }
    }
}

/// A small-file raidz2 pool whose metadata walk outlasts a second, with users reading.
fn small_file_pool(rel: &str, fragmentation: f64, stop_s: u64) -> Value {
    let disks: Vec<Value> = (0..6).map(|i| json!({"name": format!("sd{}", (b'a' + i) as char), "device": "d"})).collect();
    let users = json!([{"name": "users", "kind": "random-read", "sizes": [[16384, 1.0]], "threads": 2, "think_ns": 20_000_000u64}]);
    let mut cfg = config(rel, hdd(), json!([{"type": "raidz2", "disks": disks}]), users, stop_s);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(16u64 << 30);
    cfg["pool"]["layout"] = json!({"fragmentation": fragmentation, "files": [[16384, 1.0], [1u64 << 20, 1.0]]});
    cfg
}

/// 2.2 restarts the pass when the metadata walk ends (`spa_scan_stat_init`), the time spent
/// paused included: a scrub paused during its walk must not carry that pause into the
/// issue pass, whose rate `zpool status` divides by (now − pass start − paused).
#[test]
fn pause_during_the_walk_does_not_leak_into_the_issue_pass() {
    let mut cfg = small_file_pool("zfs-2.2", 0.5, 120);
    cfg["actions"] = json!([{"at_ns": 5_000_000_000u64, "do": "scrub"},
                            {"at_ns": 5_200_000_000u64, "do": "pause-scrub"},
                            {"at_ns": 30_000_000_000u64, "do": "resume-scrub"}]);
    let res = run(&cfg);
    let snaps = res["status"]["snapshots"].as_array().unwrap();
    // Every snapshot after the walk ended: the pass began after the resume, no pause in it.
    let issuing: Vec<&Value> = snaps.iter().filter(|s| s["scan"]["phase"] == "issue").collect();
    assert!(!issuing.is_empty(), "no snapshot in the issue phase");
    for s in issuing {
        let sc = &s["scan"];
        assert_eq!(sc["pass_scrub_spent_paused_s"], 0, "{sc}");
        assert!(sc["pass_start_s"].as_u64().unwrap() >= sc["start_s"].as_u64().unwrap() + 25, "{sc}");
    }
}

/// `spa_scan_pass_scrub_spent_paused` grows only at a resume, by whole seconds
/// (`dsl_scrub_pause_resume_sync`): a pause still under way is not in it (audit 4 F4: the
/// snapshots counted it, so `zpool status -j` printed 40 s paused where ZFS prints 0).
#[test]
fn spent_paused_counts_a_pause_at_its_resume_in_whole_seconds() {
    let mut cfg = small_file_pool("zfs-2.3", 0.5, 60);
    cfg["report_interval_ns"] = json!(1_000_000_000u64);
    cfg["actions"] = json!([{"at_ns": 2_000_000_000u64, "do": "scrub"},
                            {"at_ns": 3_700_000_000u64, "do": "pause-scrub"},
                            {"at_ns": 10_200_000_000u64, "do": "resume-scrub"},
                            {"at_ns": 12_900_000_000u64, "do": "pause-scrub"}]);
    let res = run(&cfg);
    let snaps = res["status"]["snapshots"].as_array().unwrap();
    let at = |t: u64| &snaps.iter().find(|s| s["t_ns"] == t * 1_000_000_000).unwrap()["scan"];
    assert_eq!(at(8)["state"], "scanning");
    assert_eq!(at(8)["pass_scrub_spent_paused_s"], 0, "{}", at(8));
    // floor(10.2) − floor(3.7) = 7, not 6.5 s rounded.
    assert_eq!(at(11)["pass_scrub_spent_paused_s"], 7, "{}", at(11));
    assert_eq!(at(40)["pass_scrub_spent_paused_s"], 7, "{}", at(40));
    assert!(at(40)["pass_scrub_pause_s"].as_u64().unwrap() > 0);
}

/// With `zfs_scan_legacy` on 0.8+ the scan's reads and the prefetch thread share
/// `scn_maxinflight_bytes`. Freed bytes must reach the waiting scan too: when the thread
/// took them all, the sync thread never reached its pause check and the resilver examined
/// 159 KB in 9 s against 44 MB without the prefetch.
#[test]
fn legacy_scan_on_0_8_is_not_starved_by_its_prefetch() {
    let examined = |no_pf: i64| {
        let mut cfg = small_file_pool("zfs-0.8", 1.0, 15);
        cfg["tunables"] = json!({"zfs_scan_legacy": 1, "zfs_no_scrub_prefetch": no_pf});
        cfg["actions"] = json!([{"at_ns": 5_000_000_000u64, "do": "fail", "disk": "sda"},
                                {"at_ns": 6_000_000_000u64, "do": "replace", "old": "sda", "new": "sdz"}]);
        let res = run(&cfg);
        (res["scan"]["examined_bytes"].as_f64().unwrap(), res["scan"]["txgs"].as_u64().unwrap())
    };
    let (on, txgs_on) = examined(0);
    let (off, _) = examined(1);
    assert!(on > 0.25 * off, "examined with prefetch {on}, without {off}");
    assert!(txgs_on >= 2, "txgs {txgs_on}");
}

/// `dsl_scan_prefetch` reads `zfs_no_scrub_prefetch` at every call: a `set` just after the
/// scrub starts stops the queueing at once, within the first txg's walk.
#[test]
fn setting_no_scrub_prefetch_mid_scan_stops_the_prefetch() {
    let prefetched = |set: bool| {
        let mut cfg = small_file_pool("zfs-2.2", 1.0, 600);
        cfg["stop_on_scan_done"] = json!(true);
        let mut actions = vec![json!({"at_ns": 2_000_000_000u64, "do": "scrub"})];
        if set {
            actions.push(json!({"at_ns": 2_100_000_000u64, "do": "set", "tunable": "zfs_no_scrub_prefetch", "value": 1}));
        }
        cfg["actions"] = json!(actions);
        let sc = run(&cfg)["scan"].clone();
        assert_eq!(sc["state"], "finished");
        (sc["prefetch_reads"].as_u64().unwrap(), sc["meta_reads"].as_u64().unwrap())
    };
    let (pf_all, sync_all) = prefetched(false);
    let (pf_set, sync_set) = prefetched(true);
    // What was queued before the set still goes (a parent's children are queued together
    // when it arrives); read only at the next txg, the set cut a few per cent, not a quarter.
    assert!(pf_set * 4 < pf_all * 3, "prefetch reads {pf_set} after the set, {pf_all} without");
    assert!(sync_set > sync_all, "synchronous reads {sync_set} vs {sync_all}");
}

/// A scrub of two mirrors under an fsync writer whose records are in the ARC (no reads): the
/// only user I/O that reaches the pool is the ZIL's.
fn zil_scrub(release: &str, delay: i64, slog: bool) -> Value {
    let disks = |a: &str, b: &str| json!([{"name": a, "device": "d"}, {"name": b, "device": "d"}]);
    let mut cfg = config(
        release,
        hdd(),
        json!([{"type": "mirror", "disks": disks("sda", "sdb")}, {"type": "mirror", "disks": disks("sdc", "sdd")}]),
        json!([{"name": "db", "kind": "fsync-write", "sizes": [[8192, 1.0]], "threads": 2, "arc_hit_ratio": 1.0}]),
        40,
    );
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(200u64 << 30);
    if slog {
        cfg["devices"]["slog"] = serde_json::to_value(presets::get("intel-s3700").unwrap()).unwrap();
        cfg["pool"]["log"] = json!([{"type": "disk", "disks": [{"name": "sdz", "device": "slog"}]}]);
    }
    cfg["tunables"] = json!({"zfs_scrub_delay": delay});
    cfg["actions"] = json!([{"at_ns": 5_000_000_000u64, "do": "scrub"}]);
    cfg
}

/// Audit 2 F4: `zio_vdev_io_start` stamps `spa_last_io` for every zio with a block pointer
/// that reaches a non-log top-level vdev outside the syncing txg (il:44ecc5327a … zfs-0.7.0)
/// — ZIL blocks written to the main pool (txg 0) and `dmu_sync` writes (the open txg)
/// included. So a scrub under a sync writer with no SLOG is delayed (≤ 25 blocks/s at 4
/// ticks of hz 100); with a SLOG the lwbs go to a log vdev and stamp nothing.
#[test]
fn zil_writes_to_the_main_pool_make_the_legacy_scrub_delay() {
    for rel in ["illumos-2014", "zfs-0.7"] {
        let blocks_per_s = |res: &Value| {
            res["scan"]["issued_bytes"].as_f64().unwrap() / 131072.0 / (res["scan"]["duration_ns"].as_f64().unwrap() / 1e9)
        };
        let delayed = run(&zil_scrub(rel, 4, false));
        let free = run(&zil_scrub(rel, 0, false));
        let (d, f) = (blocks_per_s(&delayed), blocks_per_s(&free));
        eprintln!("{rel}: delay 4 {d:.1} blocks/s, delay 0 {f:.1} blocks/s");
        assert!(d <= 25.0, "{rel}: {d} blocks/s with the delay");
        assert!(f > 4.0 * d, "{rel}: {f} blocks/s without the delay, {d} with it");
        // The writer's commits still ran during the scrub.
        assert!(delayed["workloads"][0]["ops"].as_u64().unwrap() > 100);
        let with_slog = |delay| run(&zil_scrub(rel, delay, true))["scan"]["issued_bytes"].clone();
        assert_eq!(with_slog(4), with_slog(0), "{rel}: lwbs on a SLOG do not stamp spa_last_io");
    }
}

fn raidz2_scrub_with(release: &str, tunables: Value) -> Value {
    let disks: Vec<Value> = (0..6).map(|i| json!({"name": format!("sd{}", (b'a' + i) as char), "device": "d"})).collect();
    let mut cfg = config(release, hdd(), json!([{"type": "raidz2", "disks": disks}]), json!([]), 7200);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(4u64 << 30);
    cfg["pool"]["layout"] = json!({"files": [[65536, 0.2], [1u64 << 30, 0.8]]});
    cfg["tunables"] = tunables;
    cfg["stop_on_scan_done"] = json!(true);
    cfg["actions"] = json!([{"at_ns": 0, "do": "scrub"}]);
    run(&cfg)["scan"].clone()
}

/// Audit 2 F7: solaris-2009's `scrub_visitbp` reads each indirect, dnode and objset block
/// with ARC_WAIT and prefetches nothing (il:379c004d1f dsl_scrub.c; `dsl_scan_prefetch`
/// arrives with the 2010 dsl_scan.c): every metadata block is a synchronous read, as with
/// `zfs_no_scrub_prefetch = 1` on freebsd-9.
#[test]
fn solaris_2009_scrub_does_not_prefetch() {
    let s2009 = raidz2_scrub_with("solaris-2009", json!({}));
    let bsd_off = raidz2_scrub_with("freebsd-9", json!({"zfs_no_scrub_prefetch": 1}));
    for s in [&s2009, &bsd_off] {
        assert_eq!(s["state"], "finished", "{s}");
        assert_eq!(s["examined_bytes"], s["to_examine_bytes"], "{s}");
        assert_eq!(s["prefetch_reads"], 0, "{s}");
        assert_eq!(s["prefetch_hits"], 0, "{s}");
    }
    assert_eq!(s2009["meta_reads"], bsd_off["meta_reads"]);
    assert!(s2009["meta_reads"].as_u64().unwrap() > 100, "{s2009}");
}

/// solaris-2009 has `zfs_no_scrub_io` (il:379c004d1f dsl_scrub.c:51, tested before the zio
/// limit in `dsl_pool_scrub_clean_cb`): the scrub traverses and reads no data.
#[test]
fn solaris_2009_has_zfs_no_scrub_io() {
    let s = raidz2_scrub_with("solaris-2009", json!({"zfs_no_scrub_io": 1}));
    assert_eq!(s["state"], "finished", "{s}");
    assert_eq!(s["examined_bytes"], s["to_examine_bytes"], "{s}");
    assert_eq!(s["issued_bytes"], 0, "{s}");
}

/// Two HDD mirrors with aged contents; `actions` run on them.
fn two_mirrors(release: &str, alloc: u64, actions: Value) -> Value {
    let m = |a: &str, b: &str| json!({"type": "mirror", "disks": [{"name": a, "device": "d"}, {"name": b, "device": "d"}]});
    let mut cfg = config(release, hdd(), json!([m("sda", "sdb"), m("sdc", "sdd")]), json!([]), 3600);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(alloc);
    cfg["pool"]["layout"] = json!({"fragmentation": 0.6});
    cfg["stop_on_scan_done"] = json!(true);
    cfg["actions"] = actions;
    cfg
}

fn scan_bytes(sc: &Value) -> (u64, u64, u64, u64) {
    let g = |k: &str| sc[k].as_u64().unwrap();
    (g("to_examine_bytes"), g("examined_bytes"), g("issued_bytes"), g("skipped_bytes"))
}

/// Audit 1 F1: 0.8.0–2.1 count a block the scan does not read as issued (`count_block`, its
/// first DVA when sorted), so a resilver of one vdev of two ends near the whole pool issued;
/// 2.2.0+ count it skipped (fa7b2390d4), a `zfs_no_scrub_io` scrub's blocks included.
#[test]
fn blocks_the_scan_does_not_read_count_issued_before_2_2_and_skipped_from_it() {
    let replace = json!([{"at_ns": 0, "do": "replace", "old": "sdb", "new": "sde"}]);
    let scrub = json!([{"at_ns": 0, "do": "scrub"}]);
    for release in ["zfs-0.8", "zfs-2.1"] {
        let sc = run(&two_mirrors(release, 2 << 30, replace.clone()))["scan"].clone();
        assert_eq!((sc["func"].as_str(), sc["state"].as_str()), (Some("resilver"), Some("finished")), "{release}");
        let (total, exam, issued, _) = scan_bytes(&sc);
        assert_eq!(exam, total, "{release}");
        assert!(issued as f64 >= 0.95 * total as f64 && issued <= total, "{release}: issued {issued} of {total}");
        let mut cfg = two_mirrors(release, 1 << 30, scrub.clone());
        cfg["tunables"] = json!({"zfs_no_scrub_io": 1});
        let sc = run(&cfg)["scan"].clone();
        let (total, exam, issued, skipped) = scan_bytes(&sc);
        assert_eq!((exam, skipped), (total, 0), "{release}");
        assert!(issued as f64 >= 0.95 * total as f64 && issued <= total, "{release}: no_scrub_io issued {issued} of {total}");
    }
    let sc = run(&two_mirrors("zfs-2.2", 2 << 30, replace))["scan"].clone();
    let (total, exam, issued, skipped) = scan_bytes(&sc);
    assert_eq!((exam, issued + skipped), (total, total));
    assert!(issued < total * 3 / 5, "zfs-2.2: issued {issued} of {total}");
    let mut cfg = two_mirrors("zfs-2.2", 1 << 30, scrub);
    cfg["tunables"] = json!({"zfs_no_scrub_io": 1});
    let sc = run(&cfg)["scan"].clone();
    let (total, exam, issued, skipped) = scan_bytes(&sc);
    assert_eq!((exam, issued, skipped), (total, 0, total), "zfs-2.2 no_scrub_io scrub");
}

/// QA 2026-11-28: solaris-2009's `zpool scrub` during a scrub sets up the restart in a
/// sync task of the open txg and waits for it (`dsl_pool_scrub_clean` →
/// `dsl_sync_task_do`): a txg waiter, so the running scrub's txg ends once it has run
/// `zfs_scrub_min_time` (1 s), and the new scrub starts about then, not when 2009's 30 s
/// `zfs_txg_timeout` ends the txg.
#[test]
fn solaris_2009_scrub_restart_waits_for_the_min_time_not_the_txg_timeout() {
    const S: u64 = 1_000_000_000;
    let disks: Vec<Value> = (0..6).map(|i| json!({"name": format!("sd{}", (b'a' + i) as char), "device": "d"})).collect();
    let mut cfg = config("solaris-2009", hdd(), json!([{"type": "raidz2", "disks": disks}]), json!([]), 7200);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(40u64 << 30);
    cfg["stop_on_scan_done"] = json!(true);
    cfg["actions"] = json!([{"at_ns": 5 * S, "do": "scrub"}, {"at_ns": 15 * S, "do": "scrub"}]);
    let res = run(&cfg);
    let scans = res["scans"].as_array().unwrap();
    assert_eq!(scans.len(), 2, "{scans:?}");
    let second = scans[1]["start_ns"].as_u64().unwrap();
    assert!((15 * S..18 * S).contains(&second), "restarted at {} s", second as f64 / 1e9);
}

/// QA 2026-11-28: a metadata block no copy of which can be read ends the walk below it
/// (`dsl_scan_recurse` counts the error and returns): what it points to is neither
/// examined nor an error of its own. A single-disk pool whose disk died and is replaced
/// (nothing left to read) reported 41 112 errors, one per data block, and "100 %" examined.
#[test]
fn a_scan_skips_what_lies_below_metadata_it_cannot_read() {
    const S: u64 = 1_000_000_000;
    let go = |release: &str, vdevs: Value, gib: u64, actions: Value| {
        let mut cfg = config(release, hdd(), vdevs, json!([]), 7200);
        cfg["pool"]["recordsize_bytes"] = json!(131072);
        cfg["pool"]["allocated_bytes"] = json!(gib << 30);
        cfg["stop_on_scan_done"] = json!(true);
        cfg["actions"] = actions;
        run(&cfg)["scan"].clone()
    };
    let disk = |n: &str| json!({"name": n, "device": "d"});
    let lone = go("zfs-2.2", json!([{"type": "disk", "disks": [disk("sda")]}]), 5, json!([
        {"at_ns": 5 * S, "do": "fail", "disk": "sda"},
        {"at_ns": 6 * S, "do": "replace", "old": "sda", "new": "sdz"}
    ]));
    let (errors, examined, total) = (lone["errors"].as_u64().unwrap(), lone["examined_bytes"].as_u64().unwrap(), lone["to_examine_bytes"].as_u64().unwrap());
    assert!(errors > 0 && errors < 100, "{lone}");
    assert!(examined * 100 < total, "{lone}");
    // A raidz1 losing a second disk mid-resilver, legacy scan with its metadata prefetch:
    // a prefetch that finds no copy fails too, and the traversal's own read then skips.
    let disks: Vec<Value> = ["sda", "sdb", "sdc", "sdd"].iter().map(|n| disk(n)).collect();
    let rz = go("zfs-0.7", json!([{"type": "raidz1", "disks": disks}]), 20, json!([
        {"at_ns": 0, "do": "fail", "disk": "sdb"},
        {"at_ns": S, "do": "replace", "old": "sdb", "new": "sdz"},
        {"at_ns": 12 * S, "do": "fail", "disk": "sdc"}
    ]));
    let blocks = (20u64 << 30) / 131072;
    assert!(rz["errors"].as_u64().unwrap() * 10 < blocks, "{rz}");
}

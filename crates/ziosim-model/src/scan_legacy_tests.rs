//! Unit tests of the legacy (pre-0.8) scan's limits and prefetch, on a model built from a
//! run config (the integration tests in `tests/scan.rs` see only the results document).

use crate::config::RunConfig;
use crate::scan::Wait;
use crate::sim::{Model_, Run};
use serde_json::{json, Value};

fn disks(prefix: &str, n: usize) -> Value {
    json!((0..n).map(|i| json!({"name": format!("{prefix}{i}"), "device": "d"})).collect::<Vec<_>>())
}

/// A pool of `vdevs` (and `log` vdevs) of simple 1 TiB disks.
fn config(release: &str, vdevs: Value, log: Value) -> Value {
    json!({
        "name": "t", "seed": 7, "release": release, "hz": 100, "ram_bytes": 16u64 << 30,
        "stop_ns": 600_000_000_000u64, "report_interval_ns": 1_000_000_000u64,
        "devices": {"d": {"kind": "simple", "capacity_bytes": 1u64 << 40, "service_ns_mean": 5_000_000u64,
                          "distribution": "exponential", "queue_depth": 1}},
        "pool": {"name": "tank", "ashift": 12, "recordsize_bytes": 131072, "allocated_bytes": 8u64 << 30,
                 "vdevs": vdevs, "log": log},
        "workloads": []
    })
}

fn build(cfg: &Value) -> Run {
    Run::new(RunConfig::from_json(&cfg.to_string()).expect("config")).expect("run")
}

fn model(r: &Run) -> &Model_ {
    r.sim.model()
}

fn mirrors(n: usize, width: usize) -> Value {
    json!((0..n).map(|i| json!({"type": "mirror", "disks": disks(&format!("m{i}d"), width)})).collect::<Vec<_>>())
}

/// Audit 2 F6: solaris-2009's scrub waits while `spa_scrub_inflight >= spa_scrub_maxinflight`,
/// which `vdev_add_child` raises by `zfs_scrub_limit` (10) for every leaf put in the tree
/// (il:379c004d1f vdev.c, dsl_scrub.c) — not `zfs_top_maxinflight` × top-level vdevs.
#[test]
fn solaris_2009_inflight_limit_is_zfs_scrub_limit_per_leaf() {
    let r = build(&config("solaris-2009", mirrors(2, 2), json!([])));
    assert_eq!(model(&r).scan_max_inflight(), 40);
    let raidz = json!([{"type": "raidz2", "disks": disks("a", 8)}, {"type": "raidz2", "disks": disks("b", 8)}]);
    let r = build(&config("solaris-2009", raidz, json!([])));
    assert_eq!(model(&r).scan_max_inflight(), 160);
    // Log leaves are in the tree too (audit 2 F8).
    let r = build(&config("solaris-2009", mirrors(2, 2), json!([{"type": "mirror", "disks": disks("log", 2)}])));
    assert_eq!(model(&r).scan_max_inflight(), 60);
    let mut cfg = config("solaris-2009", mirrors(2, 2), json!([]));
    cfg["tunables"] = json!({"zfs_scrub_limit": 3});
    assert_eq!(model(&build(&cfg)).scan_max_inflight(), 12);
}

/// Audit 2 F8: from 2010 `dsl_scan_scrub_cb` allows `rvd->vdev_children ×
/// zfs_top_maxinflight`; the root's children include the log top-level vdevs.
#[test]
fn top_maxinflight_counts_log_top_level_vdevs() {
    for rel in ["freebsd-9", "illumos-2012", "illumos-2014", "zfs-0.6.5", "zfs-0.7"] {
        let raidz = json!([{"type": "raidz2", "disks": disks("a", 6)}]);
        let r = build(&config(rel, raidz.clone(), json!([])));
        assert_eq!(model(&r).scan_max_inflight(), 32, "{rel}");
        let r = build(&config(rel, raidz, json!([{"type": "mirror", "disks": disks("log", 2)}])));
        assert_eq!(model(&r).scan_max_inflight(), 64, "{rel}");
    }
}

/// Audit 2 F5: the legacy prefetch is `arc_read(scn->scn_zio_root, …, ARC_NOWAIT |
/// ARC_PREFETCH)`, a child of the txg's scan root zio, and `dsl_scan_sync` does
/// `zio_wait(scn_zio_root)` after `dsl_scan_visit` (il:4445fffbbb, il:7adb730b58, zfs-0.6.5,
/// zfs-0.7.0): no prefetch read of a scan txg is still in flight when its share ends.
#[test]
fn legacy_prefetch_reads_are_waited_for_at_the_txg_end() {
    for rel in ["illumos-2014", "zfs-0.7"] {
        let mut cfg = config(rel, json!([{"type": "raidz2", "disks": disks("sd", 6)}]), json!([]));
        cfg["pool"]["allocated_bytes"] = json!(16u64 << 30);
        cfg["pool"]["layout"] = json!({"fragmentation": 1.0, "files": [[16384, 1.0], [1u64 << 20, 1.0], [1u64 << 30, 1.0]]});
        // A writer: the txg's dirty data ends scan shares after mintime, at any point.
        cfg["workloads"] = json!([{"name": "users", "kind": "random-read", "sizes": [[16384, 1.0]], "threads": 4, "think_ns": 0},
                                  {"name": "w", "kind": "seq-write", "sizes": [[131072, 1.0]], "threads": 2, "think_ns": 0}]);
        cfg["tunables"] = json!({"zfs_scrub_delay": 0});
        cfg["stop_ns"] = json!(120_000_000_000u64);
        cfg["actions"] = json!([{"at_ns": 1_000_000_000u64, "do": "scrub"}]);
        let mut r = build(&cfg);
        let (mut ends, mut pending_at_end, mut was_busy) = (0, 0, false);
        while !r.step_events(1) {
            let m = model(&r);
            let Some(s) = m.scan.as_ref() else { continue };
            let busy = s.wait != Wait::Outside;
            if was_busy && !busy {
                ends += 1;
                if m.scan_pf.blocks.values().any(|v| v.is_some()) {
                    pending_at_end += 1;
                }
            }
            was_busy = busy;
        }
        let s = model(&r).scan.as_ref().unwrap();
        assert!(s.prefetch_reads > 100 && ends >= 3, "{rel}: {} prefetch reads, {ends} txg ends", s.prefetch_reads);
        assert_eq!(pending_at_end, 0, "{rel}: {pending_at_end} of {ends} scan txgs ended with prefetch reads in flight");
    }
}

/// Audit 2 F11: solaris-2009's `scrub_pause` counts ticks, `lbolt64 - dp_scrub_start_time >
/// hz * zfs_txg_timeout` (il:379c004d1f dsl_scrub.c), so with no one waiting a scan share
/// ends one tick past 30 s — not past 31 s, as 2010's whole-second `elapsed / NANOSEC >
/// zfs_txg_timeout` would have it.
#[test]
fn solaris_2009_scan_share_times_out_in_ticks() {
    let mut cfg = config("solaris-2009", json!([{"type": "raidz2", "disks": disks("sd", 6)}]), json!([]));
    cfg["pool"]["allocated_bytes"] = json!(64u64 << 30);
    cfg["stop_ns"] = json!(200_000_000_000u64);
    cfg["actions"] = json!([{"at_ns": 1_000_000_000u64, "do": "scrub"}]);
    let mut r = build(&cfg);
    let (mut start, mut shares, mut prev) = (0, Vec::new(), Wait::Outside);
    while !r.step_events(1) && shares.len() < 3 {
        let m = model(&r);
        let Some(s) = m.scan.as_ref() else { continue };
        if prev == Wait::Outside && s.wait != Wait::Outside {
            start = r.sim.now();
        }
        if prev != Wait::Drain && s.wait == Wait::Drain && s.examined < s.to_examine {
            shares.push(r.sim.now() - start);
        }
        prev = s.wait;
    }
    assert_eq!(shares.len(), 3, "{shares:?}");
    for d in shares {
        // The first level-0 block visited after 3000 ticks: 30.01 s, or later by the
        // traversal's wait for an indirect block read between (16 KiB indirects in 2009, one
        // per 128 blocks, each a read queued behind the scrub's) — well short of the 31 s
        // whole seconds would give.
        assert!(d > 30_000_000_000 && d <= 30_250_000_000, "scan share {d} ns");
    }
}

/// Audit 5 F7: from the 2010 dsl_scan.c the traversal's metadata reads and the prefetch's
/// are `ZIO_FLAG_CANFAIL | ZIO_FLAG_SCAN_THREAD` (`dsl_scan_recurse`, `dsl_scan_prefetch`,
/// il:4445fffbbb … DS@zfs-2.2.0), and SCAN_THREAD is in `ZIO_FLAG_AGG_INHERIT`: they never
/// aggregate with user reads. solaris-2009's `scrub_visitbp` read with ZIO_FLAG_CANFAIL only.
#[test]
fn scan_metadata_reads_carry_an_aggregation_flag_from_2010() {
    use crate::io::{flags, IoClass, Op};
    use crate::scan::OWNER_SCAN;
    for rel in ["solaris-2009", "illumos-2012", "zfs-0.7", "zfs-2.2"] {
        let mut cfg = config(rel, json!([{"type": "raidz2", "disks": disks("sd", 6)}]), json!([]));
        cfg["pool"]["layout"] = json!({"files": [[16384, 1.0], [1u64 << 30, 1.0]]});
        cfg["stop_ns"] = json!(20_000_000_000u64);
        cfg["actions"] = json!([{"at_ns": 0, "do": "scrub"}]);
        let mut r = build(&cfg);
        let (mut meta, mut bad) = (0u64, 0u64);
        while !r.step_events(64) {
            let ios = &model(&r).ios;
            for id in 0..ios.live_max() {
                let io = ios.get(id);
                // A scan read of metadata: ASYNC_READ before 0.8, SCRUB class without the
                // SCRUB flag from 0.8 (the block scrub reads carry ZIO_FLAG_SCRUB).
                let is_meta = io.owner & OWNER_SCAN != 0
                    && io.op == Op::Read
                    && (io.class == IoClass::AsyncRead || (io.class == IoClass::Scrub && io.flags & flags::SCRUB == 0));
                if is_meta {
                    meta += 1;
                    let inherit = io.flags & flags::AGG_INHERIT != 0;
                    bad += u64::from(inherit == (rel == "solaris-2009"));
                }
            }
        }
        assert!(meta > 0, "{rel}: no metadata read seen");
        assert_eq!(bad, 0, "{rel}: {bad} of {meta} metadata read sightings with the wrong aggregation flags");
    }
}

//! The scan's txg scope (spec §5.0): which blocks a healing resilver examines after a disk
//! was offline for a while, per release.
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_model::device::presets;

const S: u64 = 1_000_000_000;

/// A 2-way HDD mirror holding 4 GiB of aged 128 KiB records; a sequential writer runs for
/// 90 s at 100 records/s; sdb is offline from 30 s to 60 s.
fn outage(release: &str) -> Value {
    let hdd = serde_json::to_value(presets::get("hdd-7200-sata-2014").unwrap()).unwrap();
    let disks = json!([{"name": "sda", "device": "d"}, {"name": "sdb", "device": "d"}]);
    let mut cfg = config(release, hdd, json!([{"type": "mirror", "disks": disks}]), json!([]), 24 * 3600);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(4u64 << 30);
    cfg["pool"]["layout"] = json!({"fragmentation": 0.6});
    cfg["stop_on_scan_done"] = json!(true);
    cfg["report_interval_ns"] = json!(5 * S);
    cfg["actions"] = json!([{"at_ns": 30 * S, "do": "offline", "disk": "sdb"}, {"at_ns": 60 * S, "do": "online", "disk": "sdb"}]);
    cfg["workloads"] = json!([{"name": "w", "kind": "seq-write", "sizes": [[131072, 1.0]], "rate_per_s": 100.0, "stop_ns": 90 * S}]);
    cfg
}

/// Audit 1 F11, audit 2 F13: `dsl_scan_visitbp` drops a block born at or before the scan's
/// min txg before any callback, and `dsl_scan_scrub_cb` returns before its examined loop
/// for a birth outside (min, max) (DS@zfs-0.7.0, DS@zfs-2.2.0). So the resilver after the
/// outage examines only the records born while sdb was offline — every one of which it
/// copies to sdb — not those written before the offline (nor after the online).
#[test]
fn a_resilver_examines_only_the_blocks_born_in_its_range() {
    for rel in ["illumos-2012", "zfs-0.7", "zfs-2.1", "zfs-2.2"] {
        let res = run(&outage(rel));
        let sc = &res["scan"];
        assert_eq!((sc["func"].as_str(), sc["state"].as_str()), (Some("resilver"), Some("finished")), "{rel}");
        let g = |k: &str| sc[k].as_u64().unwrap();
        let (examined, processed) = (g("examined_bytes"), g("processed_bytes"));
        // About 30 s × 100 × 128 KiB were written while sdb was out.
        let wrote = 30 * 100 * 131072;
        assert!(processed > wrote * 8 / 10 && processed < wrote * 12 / 10, "{rel}: processed {processed}, ≈ {wrote}");
        // A mirror record's asize is its psize here (ashift 12): examined = copied.
        assert_eq!(examined, processed, "{rel}: {sc}");
        assert!(examined < g("to_examine_bytes"), "{rel}");
        match rel {
            // Legacy: neither examined nor issued nor skipped.
            "illumos-2012" | "zfs-0.7" => {
                assert_eq!(g("issued_bytes"), examined, "{rel}");
                assert_eq!(g("skipped_bytes"), 0, "{rel}");
            }
            // The blocks of the setup txg (born at max + 1) reach `dsl_scan_scrub_cb`:
            // 0.8–2.1 `count_block` counts them issued, 2.2 `count_block_skipped` skipped;
            // those born earlier than min or later than max + 1 reach no counter. That txg
            // holds at most zfs_txg_timeout (5 s) of the writer's records.
            "zfs-2.1" => {
                let issued = g("issued_bytes");
                assert!(issued > examined && issued - examined <= 6 * 100 * 131072, "{rel}: issued {issued}, examined {examined}");
            }
            _ => {
                assert_eq!(g("issued_bytes"), examined, "{rel}");
                let skipped = g("skipped_bytes");
                assert!(skipped > 0 && skipped <= 6 * 100 * 131072, "{rel}: {sc}");
            }
        }
    }
}

/// `spa_vdev_attach` gives the new disk the DTL [TXG_INITIAL, dtl_max_txg), end excluded
/// (`vdev_dtl_dirty(newvd, DTL_MISSING, TXG_INITIAL, dtl_max_txg - TXG_INITIAL)`,
/// spa.c@zfs-0.7.0, @zfs-2.2.0), and the resilver is set up in `dtl_max_txg`. So its scope
/// ends before its setup txg, like a scrub's, and it examines exactly what was allocated
/// when it was set up: the writer's records of the setup txg are not in it. Less the
/// blocks the writer's later txgs freed before the traversal reached them (the objsets and
/// indirect blocks every txg rewrites: `space.rs`), which are in no tree by then.
#[test]
fn a_replace_resilver_under_a_writer_examines_its_total() {
    for rel in ["solaris-2009", "illumos-2012", "zfs-0.7", "zfs-2.1", "zfs-2.2"] {
        let mut cfg = outage(rel);
        cfg["actions"] = json!([{"at_ns": 30 * S, "do": "replace", "old": "sdb", "new": "sdc"}]);
        let res = run(&cfg);
        let sc = &res["scan"];
        assert_eq!((sc["func"].as_str(), sc["state"].as_str()), (Some("resilver"), Some("finished")), "{rel}");
        let g = |k: &str| sc[k].as_u64().unwrap();
        let (ex, total) = (g("examined_bytes"), g("to_examine_bytes"));
        assert!(ex <= total && total - ex < total / 1000, "{rel}: {sc}");
    }
}

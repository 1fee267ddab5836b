//! Frees of overwritten blocks (`space.rs`): a rewritten record's old copy leaves the space
//! maps at its txg's sync, so what the run's writes keep allocated follows what is live,
//! not everything ever written; a sequential rebuild and a scrub copy and read only that.
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_model::device::presets;

const S: u64 = 1_000_000_000;
const MIB: u64 = 1 << 20;

/// A 2-way HDD mirror holding 1 GiB of 128 KiB records, with a writer rewriting the first
/// 64 MiB of it (512 records) in random 128 KiB writes, 200 a second for 60 s: 1.5 GiB
/// written to 64 MiB of records. Then `actions` at 70 s.
fn rewriter(release: &str, actions: Value) -> Value {
    let hdd = serde_json::to_value(presets::get("hdd-7200-sata-2014").unwrap()).unwrap();
    let disks = json!([{"name": "sda", "device": "d"}, {"name": "sdb", "device": "d"}]);
    let mut cfg = config(release, hdd, json!([{"type": "mirror", "disks": disks}]), json!([]), 4 * 3600);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(1u64 << 30);
    cfg["stop_on_scan_done"] = json!(true);
    cfg["workloads"] = json!([{"name": "w", "kind": "random-write", "sizes": [[131072, 1.0]], "rate_per_s": 200.0,
                              "region_length_bytes": 64 * MIB, "stop_ns": 60 * S}]);
    cfg["actions"] = actions;
    cfg
}

fn written(res: &Value, k: &str) -> u64 {
    res["pool"]["written"][k].as_u64().unwrap()
}

/// What the run keeps allocated is the region's records (one live copy each) and their
/// metadata, while more than 20 times that was written and freed.
#[test]
fn rewrites_free_their_old_copies() {
    let mut cfg = rewriter("zfs-2.2", json!([]));
    cfg["stop_on_scan_done"] = json!(false);
    cfg["stop_ns"] = json!(80 * S);
    let res = run(&cfg);
    // A record written more than once in a txg is written once by its sync: what the
    // syncs wrote, data and metadata.
    let t = &res["txg"];
    let synced = t["data_bytes"].as_u64().unwrap() + t["metadata_bytes"].as_u64().unwrap();
    assert!(synced > 600 * MIB, "{t}");
    let (live, freed) = (written(&res, "live_bytes"), written(&res, "freed_bytes"));
    // Each of the 512 records has one copy; their L1 and the dnode and objset blocks, a
    // few more: well under twice the region.
    assert!((60 * MIB..128 * MIB).contains(&live), "live {live}");
    // All the rest was freed, but for the first rewrite of each record (its old copy is the
    // layout's, counted apart: `layout_freed_bytes`, the 512 records' 64 MiB).
    assert!(freed > synced - 64 * MIB - live && freed <= synced - live, "freed {freed} of {synced}");
    assert_eq!(written(&res, "layout_freed_bytes"), 64 * MIB);
    assert_eq!(written(&res, "unfollowed_bytes"), 0);
    assert!(written(&res, "records_followed") >= 512);
}

/// `vs_alloc` (what `zpool iostat` prints) follows the run's writes: while the writer runs
/// the pool holds its txgs in flight and their frees still deferred above what is live;
/// three txgs after it stops, exactly the layout less the copies the first rewrites freed
/// plus what is live (`metaslab_sync_done` returns a free two syncs after its own).
#[test]
fn the_pools_allocation_follows_writes_and_frees() {
    let mut cfg = rewriter("zfs-2.2", json!([]));
    cfg["stop_on_scan_done"] = json!(false);
    cfg["stop_ns"] = json!(100 * S);
    cfg["report_interval_ns"] = json!(10 * S);
    let res = run(&cfg);
    let layout = res["pool"]["layout_alloc_bytes"].as_u64().unwrap();
    let alloc = res["pool"]["alloc_bytes"].as_u64().unwrap();
    let top0 = res["pool"]["vdevs"][0]["alloc_bytes"].as_u64().unwrap();
    assert_eq!(alloc, top0);
    assert_eq!(alloc, layout - written(&res, "layout_freed_bytes") + written(&res, "live_bytes"));
    let series: Vec<u64> =
        res["series"]["tops"][0]["alloc_bytes"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(series.len(), 10);
    assert_eq!(*series.last().unwrap(), alloc);
    // While the writer runs (200 × 128 KiB a second, a txg every 5 s: ≈ 125 MiB each) the
    // pool holds more than at rest: its last txgs' blocks whose frees are still deferred.
    let busy = series[..6].iter().max().unwrap();
    assert!(*busy > alloc + 64 * MIB && *busy < alloc + 600 * MIB, "{series:?} at rest {alloc}");
}

/// `zpool replace -s` after the writer: the rebuild copies the layout and the live copies,
/// not the 1.5 GiB the writer wrote (which it did before frees were modelled).
#[test]
fn a_sequential_rebuild_after_rewrites_copies_only_live_space() {
    let res = run(&rewriter("zfs-2.2", json!([{"at_ns": 70 * S, "do": "replace", "old": "sdb", "new": "sdc", "sequential": true}])));
    let rb = &res["rebuilds"][0];
    assert_eq!(rb["state"], "complete", "{rb}");
    let rebuilt = rb["rebuilt_bytes"].as_u64().unwrap();
    let layout = res["pool"]["layout_alloc_bytes"].as_u64().unwrap();
    // The layout (a sequential rebuild copies the layout's ranges whole, the copies the
    // writer's first rewrites freed included: docs/validation.md) plus what is live above
    // it, up to a txg or two of writes.
    assert!(rebuilt >= layout && rebuilt < layout + 160 * MIB, "rebuilt {rebuilt}, layout {layout}");
}

/// A scrub after the writer reads what is live, and examines its total but for the MOS
/// blocks the scan's own txgs rewrite before the traversal reaches their old copies (the
/// objsets and the directory ZAP, `dsl_scan_sync_state`: counted in `vs_alloc` at the
/// setup, freed by COW before they are visited, as in ZFS).
#[test]
fn a_scrub_after_rewrites_reads_only_live_blocks() {
    for rel in ["zfs-0.7", "zfs-2.2"] {
        let res = run(&rewriter(rel, json!([{"at_ns": 70 * S, "do": "scrub"}])));
        let sc = &res["scan"];
        assert_eq!(sc["state"], "finished", "{rel}: {sc}");
        let g = |k: &str| sc[k].as_u64().unwrap();
        let layout = res["pool"]["layout_alloc_bytes"].as_u64().unwrap();
        let (ex, total) = (g("examined_bytes"), g("to_examine_bytes"));
        assert!(ex <= total && total - ex <= 9 * 16384, "{rel}: {ex} of {total}");
        // The layout less the 64 MiB of records the writer rewrote (their layout copies were
        // freed by their first rewrite: no tree holds them), plus their live copies and
        // metadata: never the layout and the live copies both.
        let live = written(&res, "live_bytes");
        assert_eq!(written(&res, "layout_freed_bytes"), 64 * MIB, "{rel}");
        assert!(total <= layout - 64 * MIB + live && total + 64 * MIB > layout, "{rel}: {total} of layout {layout} + live {live}");
        // A scrub reads both sides of the mirror: twice what it issued, nothing more.
        assert!(g("leaf_read_bytes") <= 2 * g("issued_bytes") + 2 * MIB, "{rel}: {sc}");
    }
}

/// A writer that goes round a small SSD many times: the allocator gives freed space to
/// later blocks (past the frees still deferred), so a block the scan meets in an old
/// txg's extent is read only if that txg's block still holds the space, and the scrub
/// examines exactly its total — the run's live blocks and the layout, not every extent.
#[test]
fn a_scrub_after_the_allocator_wrapped_reads_each_live_block_once() {
    let mut ssd = serde_json::to_value(presets::get("intel-s3700").unwrap()).unwrap();
    ssd["capacity_bytes"] = json!(12u64 << 30);
    let mut cfg = config("zfs-2.2", ssd, json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]), json!([]), 3600);
    cfg["pool"]["recordsize_bytes"] = json!(16384);
    cfg["pool"]["allocated_bytes"] = json!(4u64 << 30);
    cfg["stop_on_scan_done"] = json!(true);
    cfg["workloads"] = json!([{"name": "w", "kind": "random-write", "sizes": [[16384, 1.0]], "threads": 16, "stop_ns": 150 * S}]);
    cfg["actions"] = json!([{"at_ns": 160 * S, "do": "scrub"}]);
    let res = run(&cfg);
    let t = &res["txg"];
    let synced = t["data_bytes"].as_u64().unwrap() + t["metadata_bytes"].as_u64().unwrap();
    // More than the free space (8 GiB) written: the allocator went round.
    assert!(synced > 16 << 30, "{t}");
    let live = written(&res, "live_bytes");
    assert!(live < 8 << 30, "live {live}");
    let sc = &res["scan"];
    let g = |k: &str| sc[k].as_u64().unwrap();
    assert_eq!(sc["state"], "finished", "{sc}");
    assert_eq!(g("examined_bytes"), g("to_examine_bytes"), "{sc}");
    let layout = res["pool"]["layout_alloc_bytes"].as_u64().unwrap();
    // Live at the end: since the scrub started, its txgs have flushed space maps and
    // destroyed the log space maps every metaslab had flushed past (at most what the
    // space maps ever took). The layout's records the writer rewrote are gone from it.
    let sm = t["space_map_bytes"].as_u64().unwrap();
    let kept = layout - written(&res, "layout_freed_bytes");
    assert!(g("to_examine_bytes") <= kept + live + sm, "{sc} live {live} space maps {sm}");
    assert!(g("to_examine_bytes") > kept + live / 2, "{sc} live {live}");
}

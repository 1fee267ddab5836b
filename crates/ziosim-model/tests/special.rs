//! The special allocation class (0.8+): metadata, and file blocks of at most
//! `special_small_blocks`, on the special vdevs (`spa_preferred_class`), in the layout a
//! scan reads and in what spa_sync writes.
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_model::config::RunConfig;
use ziosim_model::device::presets;

const S: u64 = 1_000_000_000;

fn preset(name: &str) -> Value {
    serde_json::to_value(presets::get(name).unwrap()).unwrap()
}

/// A 6-disk HDD raidz2 holding 8 GiB of 16 KiB and 1 MiB files, with `special` (a mirror
/// of two S3700s) or not, and a scrub at 1 s.
fn pool(release: &str, special: bool) -> Value {
    let disks: Vec<Value> = (0..6).map(|i| json!({"name": format!("hd{i}"), "device": "d"})).collect();
    let mut cfg = config(release, preset("hdd-7200-sata-2014"), json!([{"type": "raidz2", "disks": disks}]), json!([]), 3600);
    cfg["devices"]["ssd"] = preset("intel-s3700");
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(8u64 << 30);
    cfg["pool"]["layout"] = json!({"fragmentation": 0.0, "files": [[16384, 0.2], [1048576, 0.8]], "compression_ratio": 1.0});
    if special {
        cfg["pool"]["special"] = json!([{"type": "mirror", "disks": [{"name": "ssd0", "device": "ssd"}, {"name": "ssd1", "device": "ssd"}]}]);
    }
    cfg["stop_on_scan_done"] = json!(true);
    cfg["actions"] = json!([{"at_ns": S, "do": "scrub"}]);
    cfg
}

fn leaf<'a>(res: &'a Value, name: &str) -> &'a Value {
    res["leaves"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap()
}

fn class_bytes(l: &Value, class: &str) -> u64 {
    l["classes"][class]["bytes"].as_u64().unwrap_or(0)
}

/// A scrub reads the metadata from the special mirror and the data from the raidz2: the
/// SSDs carry scrub reads of both copies' worth, the vdev tree and the results name the
/// class, and the 0.8+ scan's metadata walk — now on SSDs — no longer competes with the
/// issue phase for the HDDs, so the scrub ends sooner than on the same pool without it.
#[test]
fn a_scrub_reads_metadata_from_the_special_vdevs() {
    for release in ["zfs-0.8", "zfs-2.2"] {
        let with = run(&pool(release, true));
        let without = run(&pool(release, false));
        for res in [&with, &without] {
            assert_eq!(res["scan"]["state"], "finished", "{release}");
        }
        let vdevs = with["pool"]["vdevs"].as_array().unwrap();
        assert_eq!(vdevs.iter().map(|v| (v["name"].as_str().unwrap(), v["class"].as_str().unwrap())).collect::<Vec<_>>(),
                   [("raidz2-0", "normal"), ("mirror-1", "special")]);
        // Each SSD holds one copy of every metadata block (ditto copies on the mirror's
        // one vdev go to two places of it, each mirrored): what the scrub reads from the
        // pair is the metadata's two copies, i.e. the class's allocation.
        let special_alloc = vdevs[1]["layout_alloc_bytes"].as_u64().unwrap();
        let ssd_read = class_bytes(leaf(&with, "ssd0"), "scrub") + class_bytes(leaf(&with, "ssd1"), "scrub");
        assert!(special_alloc > 20 << 20 && ssd_read >= special_alloc, "{release}: {ssd_read} of {special_alloc}");
        // The HDDs read only data (and parity) with the special class, so less than without.
        let hdd = |res: &Value| (0..6).map(|i| class_bytes(leaf(res, &format!("hd{i}")), "scrub")).sum::<u64>();
        assert!(hdd(&with) < hdd(&without), "{release}: {} vs {}", hdd(&with), hdd(&without));
        let d = |res: &Value| res["scan"]["duration_ns"].as_f64().unwrap();
        assert!(d(&with) < d(&without), "{release}: scrub {} s with special vs {} s without", d(&with) / 1e9, d(&without) / 1e9);
    }
}

/// spa_sync's metadata goes to the special class; data records go there only when their
/// psize is at most `special_small_blocks` (and not a volume's), and files' indirect
/// blocks stay on the data vdevs with `zfs_user_indirect_is_special = 0`.
#[test]
fn sync_writes_follow_the_preferred_class() {
    let writer = |small: u64, user_ind: Option<i64>, volume: bool| {
        let mut cfg = pool("zfs-2.2", true);
        cfg["actions"] = json!([]);
        cfg["stop_on_scan_done"] = json!(false);
        cfg["stop_ns"] = json!(21 * S);
        cfg["pool"]["recordsize_bytes"] = json!(16384);
        cfg["pool"]["layout"] = json!(null);
        cfg["special_small_blocks_bytes"] = json!(small);
        if let Some(v) = user_ind {
            cfg["tunables"] = json!({"zfs_user_indirect_is_special": v});
        }
        let kind = if volume { "zvol" } else { "random-write" };
        cfg["workloads"] = json!([{"name": "w", "kind": kind, "sizes": [[16384, 1.0]], "rate_per_s": 300.0,
                                   "region_length_bytes": 1u64 << 30}]);
        let res = run(&cfg);
        let ssd = class_bytes(leaf(&res, "ssd0"), "async_write");
        let hdd = class_bytes(leaf(&res, "hd0"), "async_write");
        (ssd, hdd)
    };
    // Metadata only: the SSDs take the indirect, dnode and objset blocks, the HDDs the data.
    let (ssd, hdd) = writer(0, None, false);
    assert!(ssd > 0 && hdd > 0, "{ssd} {hdd}");
    // 16 KiB records ≤ special_small_blocks: the data goes to the SSDs too (≈ 6000 × 16
    // KiB, three times the metadata), and nothing of the run to the HDDs.
    let (ssd_all, hdd_none) = writer(16384, None, false);
    assert!(ssd_all > 3 * ssd && hdd_none == 0, "{ssd_all} {ssd} {hdd_none}");
    // Files' L1s back on the HDDs: the SSDs take less.
    let (ssd_no_ind, _) = writer(0, Some(0), false);
    assert!(ssd_no_ind < ssd, "{ssd_no_ind} vs {ssd}");
    // A volume's blocks are no DMU_OT_IS_FILE: special_small_blocks does not apply.
    let (ssd_vol, hdd_vol) = writer(16384, None, true);
    assert!(hdd_vol > 0 && ssd_vol < ssd_all / 2, "{ssd_vol} {hdd_vol}");
}

/// The special class is 0.8+ and not dRAID; `special_small_blocks` is 0 or a power of two
/// up to 128K on 0.8, 1M from 2.0 — one-line errors naming the field.
#[test]
fn special_vdevs_are_checked() {
    let err = |cfg: &Value| RunConfig::from_json(&cfg.to_string()).err().unwrap_or_default();
    assert!(err(&pool("zfs-0.7", true)).starts_with("pool.special[0].type: mirror — allowed: from release zfs-0.8"), "{}", err(&pool("zfs-0.7", true)));
    let mut cfg = pool("zfs-0.8", true);
    cfg["special_small_blocks_bytes"] = json!(256 << 10);
    assert!(err(&cfg).starts_with("zfs.special_small_blocks: 262144 — allowed: 0, or a power of two from 512 to 131072"), "{}", err(&cfg));
    let mut cfg = pool("zfs-2.1", true);
    cfg["special_small_blocks_bytes"] = json!(3000);
    assert!(err(&cfg).starts_with("zfs.special_small_blocks: 3000"), "{}", err(&cfg));
    cfg["special_small_blocks_bytes"] = json!(1 << 20);
    assert_eq!(err(&cfg), "");
    cfg["pool"]["special"][0]["type"] = json!("draid1");
    assert!(err(&cfg).starts_with("pool.special[0].type: draid1"), "{}", err(&cfg));
}

/// An NFS copy of small files (4 KiB and 64 KiB, 300 of them) onto a pool with a special
/// mirror: each new file is one block of its own size, so with `special_small_blocks` =
/// 32K its 4 KiB files' data goes to the SSDs and the 64 KiB files' to the HDD mirror —
/// the sync packs the small blocks apart.
#[test]
fn small_files_written_during_the_run_go_to_the_special_class() {
    let copy = |small: u64| {
        let hdd = preset("hdd-7200-sata-2014");
        let mut cfg = config("zfs-2.2", hdd, json!([{"type": "mirror", "disks": [{"name": "hd0", "device": "d"}, {"name": "hd1", "device": "d"}]}]),
                             json!([{"name": "cp", "kind": "nfs-copy", "sizes": [[4096, 0.5], [65536, 0.5]], "threads": 1, "files": 300}]), 600);
        cfg["devices"]["ssd"] = preset("intel-s3700");
        cfg["pool"]["recordsize_bytes"] = json!(131072);
        cfg["pool"]["allocated_bytes"] = json!(1u64 << 30);
        cfg["pool"]["special"] = json!([{"type": "mirror", "disks": [{"name": "ssd0", "device": "ssd"}, {"name": "ssd1", "device": "ssd"}]}]);
        cfg["sync"] = json!("disabled");
        // Long enough for the copy and the txg syncs after it.
        cfg["stop_ns"] = json!(60 * S);
        cfg["special_small_blocks_bytes"] = json!(small);
        let res = run(&cfg);
        assert_eq!(res["workloads"][0]["files_done"], json!(300));
        (class_bytes(leaf(&res, "ssd0"), "async_write"), class_bytes(leaf(&res, "hd0"), "async_write"))
    };
    let (ssd_meta, hdd_all) = copy(0);
    let (ssd_small, hdd_large) = copy(32768);
    // About 150 × 4 KiB moved from the HDDs to the SSDs (each side of a mirror writes it all).
    let moved = ssd_small.saturating_sub(ssd_meta);
    assert!(moved >= 150 * 4096 * 8 / 10, "{ssd_meta} → {ssd_small}");
    assert!(hdd_large < hdd_all && hdd_all - hdd_large >= moved * 8 / 10, "{hdd_all} → {hdd_large}, moved {moved}");
}

/// A full special class: with no reserve (`zfs_special_class_metadata_reserve_pct` = 0) a
/// writer of 16 KiB records (`special_small_blocks` = 16K) fills a 1 GiB special mirror;
/// from then on its blocks fail to allocate there (ENOSPC) and go to the data vdevs
/// (`zio_dva_allocate`), so the class never holds more than its size.
#[test]
fn a_full_special_class_sends_blocks_to_the_data_vdevs() {
    let mut cfg = pool("zfs-2.2", true);
    cfg["actions"] = json!([]);
    cfg["stop_on_scan_done"] = json!(false);
    cfg["stop_ns"] = json!(60 * S);
    cfg["report_interval_ns"] = json!(5 * S);
    cfg["devices"]["ssd"]["capacity_bytes"] = json!(1u64 << 30);
    cfg["pool"]["recordsize_bytes"] = json!(16384);
    cfg["pool"]["allocated_bytes"] = json!(2u64 << 30);
    cfg["pool"]["layout"] = json!(null);
    cfg["special_small_blocks_bytes"] = json!(16384);
    cfg["tunables"] = json!({"zfs_special_class_metadata_reserve_pct": 0});
    cfg["workloads"] = json!([{"name": "w", "kind": "random-write", "sizes": [[16384, 1.0]], "threads": 16,
                               "region_length_bytes": 1u64 << 30}]);
    let res = run(&cfg);
    let size = res["pool"]["vdevs"][1]["size_bytes"].as_u64().unwrap();
    let series: Vec<u64> = res["series"]["tops"][1]["alloc_bytes"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert!(series.iter().all(|&a| a <= size), "{series:?} of {size}");
    // The class took what it could (a big sync's worth: the SSDs' writes) and the rest went
    // to the HDDs — which, with no reserve, only a full class sends there.
    let (ssd, hdd) = (class_bytes(leaf(&res, "ssd0"), "async_write"), class_bytes(leaf(&res, "hd0"), "async_write"));
    assert!(ssd > size / 4 && hdd > 100 << 20, "ssd {ssd} hdd {hdd}");
}

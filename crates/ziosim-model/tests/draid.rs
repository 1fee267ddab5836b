//! dRAID top-level vdevs (`draid.rs`): scrub, resilver onto a new disk, lost blocks.
mod common;
use common::*;
use serde_json::{json, Value};

fn hdd() -> Value {
    json!({"kind": "simple", "capacity_bytes": 200u64 << 30, "service_ns_mean": 2_000_000u64,
           "distribution": "exponential", "queue_depth": 4})
}

fn disks(n: u8) -> Vec<Value> {
    (0..n).map(|i| json!({"name": format!("d{i}"), "device": "d"})).collect()
}

/// A draid2 of 11 children (4 data + 2 parity per group), 4 GiB of 128K records.
fn draid_pool(actions: Value) -> Value {
    let mut cfg = config("zfs-2.2", hdd(), json!([{"type": "draid2", "disks": disks(11), "data": 4}]), json!([]), 3600);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(4u64 << 30);
    cfg["stop_on_scan_done"] = json!(true);
    cfg["actions"] = actions;
    cfg
}

fn leaf(res: &Value, name: &str) -> Value {
    res["leaves"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap().clone()
}

/// Blocks the scan could not read or reconstruct ("with N errors").
fn scan_errors(res: &Value) -> u64 {
    res["status"]["snapshots"].as_array().unwrap().last().unwrap()["scan"]["errors"].as_u64().unwrap()
}

fn class_bytes(l: &Value, class: &str) -> u64 {
    l["classes"].get(class).map_or(0, |c| c["bytes"].as_u64().unwrap())
}

#[test]
fn scrub_reads_whole_stripes_spread_over_every_child() {
    let res = run(&draid_pool(json!([{"at_ns": 0, "do": "scrub"}])));
    assert_eq!(res["scan"]["state"], "finished");
    assert_eq!(res["scan"]["examined_bytes"], res["scan"]["to_examine_bytes"]);
    let per: Vec<u64> = (0..11).map(|i| class_bytes(&leaf(&res, &format!("d{i}")), "scrub")).collect();
    let total: u64 = per.iter().sum();
    // Every 128K record is 32 data sectors in 8 stripes of 4 + 2: 48 sectors, 1.5 × psize;
    // the scrub reads all of it (and the traversal's few metadata blocks again).
    let alloc = res["pool"]["layout_alloc_bytes"].as_u64().unwrap();
    assert!(total >= alloc && total <= alloc + alloc / 1000, "scrub read {total} of {alloc} allocated");
    // The permutations spread the groups: every child within 10 % of the mean.
    let mean = total as f64 / 11.0;
    for (i, &b) in per.iter().enumerate() {
        assert!((b as f64 / mean - 1.0).abs() < 0.10, "d{i} read {b}, mean {mean}: {per:?}");
    }
    // The vdev is named as zpool status names it.
    let snap = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(snap["tree"][1]["name"], "draid2:4d:11c:0s-0");
}

#[test]
fn resilver_writes_the_new_disk_its_share_and_reads_every_survivor() {
    let res = run(&draid_pool(json!([
        {"at_ns": 0, "do": "fail", "disk": "d3"},
        {"at_ns": 1_000_000_000u64, "do": "replace", "old": "d3", "new": "d11"}
    ])));
    assert_eq!(res["scan"]["func"], "resilver");
    assert_eq!(res["scan"]["state"], "finished");
    assert_eq!(scan_errors(&res), 0);
    let new = leaf(&res, "d11");
    let written = class_bytes(&new, "async_write");
    assert_eq!(written, res["scan"]["processed_bytes"].as_u64().unwrap());
    let alloc = res["pool"]["layout_alloc_bytes"].as_f64().unwrap();
    assert!((written as f64 / (alloc / 11.0) - 1.0).abs() < 0.05, "written {written} of {alloc}");
    assert!(leaf(&res, "d3")["classes"].as_object().unwrap().is_empty());
    // Every survivor takes part in the reconstruction.
    for i in (0..11).filter(|&i| i != 3) {
        assert!(class_bytes(&leaf(&res, &format!("d{i}")), "scrub") > 0, "d{i} read nothing");
    }
}

#[test]
fn three_failures_in_a_draid2_lose_blocks_two_do_not() {
    let scrub_after = |failed: &[&str]| {
        let mut a: Vec<Value> = failed.iter().map(|d| json!({"at_ns": 0, "do": "fail", "disk": d})).collect();
        a.push(json!({"at_ns": 1_000_000_000u64, "do": "scrub"}));
        run(&draid_pool(Value::Array(a)))
    };
    let two = scrub_after(&["d1", "d7"]);
    assert_eq!(scan_errors(&two), 0);
    // Three are more than the parity: the vdev is dead, and the scrub's first txg sync,
    // which has its state to write, suspends the pool before the scrub issues a read (the
    // metadata walk finds a readable ditto copy of what it reads). Reads show the loss:
    // with failmode=continue each read of a lost block returns EIO.
    let reads_after = |failed: &[&str]| {
        let a: Vec<Value> = failed.iter().map(|d| json!({"at_ns": 0, "do": "fail", "disk": d})).collect();
        let mut cfg = draid_pool(Value::Array(a));
        cfg["pool"]["failmode"] = json!("continue");
        cfg["stop_on_scan_done"] = json!(false);
        cfg["stop_ns"] = json!(10_000_000_000u64);
        cfg["workloads"] = json!([{"name": "r", "kind": "random-read", "sizes": [[131072, 1.0]], "threads": 4}]);
        run(&cfg)["workloads"][0]["read_errors"].as_u64().unwrap()
    };
    assert_eq!(reads_after(&["d1", "d7"]), 0);
    assert!(reads_after(&["d1", "d7", "d9"]) > 0);
    let three = scrub_after(&["d1", "d7", "d9"]);
    assert!(three["pool"]["suspended"]["cause"] == "write", "{}", three["pool"]["suspended"]);
}

#[test]
fn same_draid_run_twice_is_identical() {
    let cfg = draid_pool(json!([{"at_ns": 0, "do": "scrub"}]));
    assert_eq!(run(&cfg)["digest"], run(&cfg)["digest"]);
}

#[test]
fn draid_before_zfs_2_1_and_bad_geometry_are_refused() {
    use ziosim_model::config::RunConfig;
    let mut cfg = draid_pool(json!([]));
    cfg["release"] = json!("zfs-2.0");
    let e = RunConfig::from_json(&cfg.to_string()).unwrap_err();
    assert!(e.contains("pool.vdevs[0].type") && e.contains("zfs-2.1"), "{e}");
    let mut cfg = draid_pool(json!([]));
    cfg["pool"]["vdevs"][0]["data"] = json!(10);
    let e = RunConfig::from_json(&cfg.to_string()).unwrap_err();
    assert!(e.starts_with("pool.vdevs[0]:"), "{e}");
}

/// A draid2 of `children` disks, 4 data + 2 parity per group, `spares` distributed spares.
fn spare_pool(children: u8, spares: u64, actions: Value) -> Value {
    let mut cfg = config("zfs-2.2", hdd(), json!([{"type": "draid2", "disks": disks(children), "data": 4, "spares": spares}]), json!([]), 7200);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(4u64 << 30);
    cfg["stop_on_scan_done"] = json!(true);
    cfg["actions"] = actions;
    cfg
}

fn rebuild_of(res: &Value) -> Value {
    res["rebuilds"].as_array().and_then(|a| a.first()).cloned().unwrap_or(Value::Null)
}

#[test]
fn a_failed_disk_gets_a_distributed_spare_rebuilt_sequentially_then_a_scrub() {
    let res = run(&spare_pool(11, 1, json!([{"at_ns": 0, "do": "fail", "disk": "d3"}])));
    // zed's retire agent: `zpool replace -s` with the distributed spare.
    let log = res["actions"].as_array().cloned().unwrap_or_default();
    let auto = log.iter().find(|e| e["by"] == "retire agent").expect("retire agent entry");
    assert_eq!(auto["command"], "zpool replace -s tank d3 draid2-0-0", "{log:?}");
    let rb = rebuild_of(&res);
    assert_eq!(rb["state"], "complete", "{res}");
    assert_eq!(rb["errors"], 0);
    // Then the automatic scrub (zfs_rebuild_scrub_enabled), which finds nothing to repair.
    assert_eq!(res["scan"]["func"], "scrub");
    assert_eq!(res["scan"]["state"], "finished");
    // The spare's sectors live on the surviving children: the virtual spare queues no I/O
    // of its own (its iostat row counts what it passed on), and every survivor both read
    // and took rebuild writes.
    let spare = leaf(&res, "draid2-0-0");
    assert!(spare["classes"].as_object().unwrap().is_empty(), "{spare}");
    let per: Vec<u64> = (0..11).filter(|&i| i != 3).map(|i| class_bytes(&leaf(&res, &format!("d{i}")), "rebuild")).collect();
    let mean = per.iter().sum::<u64>() as f64 / per.len() as f64;
    assert!(per.iter().all(|&b| (b as f64 / mean - 1.0).abs() < 0.25), "rebuild bytes per survivor {per:?}");
    // Rebuilt: the failed child's share, 1/11 of the allocation.
    let alloc = res["pool"]["layout_alloc_bytes"].as_f64().unwrap();
    let rebuilt = rb["rebuilt_bytes"].as_f64().unwrap();
    assert!((rebuilt / (alloc / 11.0) - 1.0).abs() < 0.05, "rebuilt {rebuilt} of {alloc}");
    let snap = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(snap["spares"][0]["name"], "draid2-0-0");
    assert_eq!(snap["spares"][0]["state"], "INUSE");
}

#[test]
fn only_groups_holding_the_failed_child_are_read() {
    // 22 children, groups of 6: a group holds a given child about 6/21 of the time, so the
    // rebuild reads about that share of the pool, not all of it as a healing resilver does.
    let res = run(&spare_pool(22, 1, json!([{"at_ns": 0, "do": "fail", "disk": "d5"}])));
    let rb = rebuild_of(&res);
    let scanned = rb["scanned_bytes"].as_f64().unwrap();
    let issued = rb["issued_bytes"].as_f64().unwrap();
    let share = issued / scanned;
    assert!((share - 6.0 / 21.0).abs() < 0.05, "issued {issued} of {scanned} scanned: {share}");
}

#[test]
fn rebuild_onto_a_distributed_spare_beats_a_resilver_onto_one_new_disk() {
    // The same 22-wide draid2: a sequential rebuild spreads its writes over every child;
    // a new disk takes them all.
    let spare = run(&spare_pool(22, 1, json!([{"at_ns": 0, "do": "fail", "disk": "d5"}])));
    let disk = run(&spare_pool(22, 0, json!([
        {"at_ns": 0, "do": "fail", "disk": "d5"},
        {"at_ns": 0, "do": "replace", "old": "d5", "new": "d22"}
    ])));
    let t_spare = rebuild_of(&spare)["end_ns"].as_f64().unwrap() - rebuild_of(&spare)["start_ns"].as_f64().unwrap();
    let t_disk = disk["scan"]["duration_ns"].as_f64().unwrap();
    assert!(t_spare * 2.0 < t_disk, "spare {t_spare} vs new disk {t_disk}");
}

#[test]
fn a_new_disk_takes_over_and_the_spare_goes_back() {
    let res = run(&spare_pool(11, 1, json!([
        {"at_ns": 0, "do": "fail", "disk": "d3"},
        {"at_ns": 1800_000_000_000u64, "do": "replace", "old": "d3", "new": "d11"}
    ])));
    let snap = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(snap["spares"][0]["state"], "AVAIL", "{}", snap["spares"]);
    let names: Vec<&str> = snap["tree"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"d11") && !names.contains(&"d3") && !names.iter().any(|n| n.starts_with("spare-")), "{names:?}");
    assert_eq!(snap["state"], "ONLINE");
}

#[test]
fn a_distributed_spare_stays_in_its_own_vdev() {
    use ziosim_model::config::RunConfig;
    let mut cfg = spare_pool(11, 1, json!([
        {"at_ns": 0, "do": "fail", "disk": "m0"},
        {"at_ns": 1, "do": "replace", "old": "m0", "new": "draid2-0-0"}
    ]));
    cfg["pool"]["vdevs"].as_array_mut().unwrap().push(json!({"type": "mirror", "disks": [{"name": "m0", "device": "d"}, {"name": "m1", "device": "d"}]}));
    let e = RunConfig::from_json(&cfg.to_string()).unwrap_err();
    assert!(e.starts_with("action[1].new: draid2-0-0") && e.contains("their parent's dRAID vdev"), "{e}");
}

#[test]
fn a_degraded_read_reads_whole_stripes_and_parity() {
    let users = json!([{"name": "u", "kind": "random-read", "sizes": [[131072, 1.0]], "threads": 4}]);
    let read_bytes_per_op = |actions: Value| {
        let mut cfg = draid_pool(actions);
        cfg["workloads"] = users.clone();
        cfg["stop_on_scan_done"] = json!(false);
        cfg["stop_ns"] = json!(20_000_000_000u64);
        let res = run(&cfg);
        let w = &res["workloads"][0];
        let bytes: u64 = (0..11).map(|i| class_bytes(&leaf(&res, &format!("d{i}")), "sync_read")).sum();
        assert!(w["ops"].as_u64().unwrap() > 100);
        assert_eq!(w["eio"].as_u64().unwrap_or(0), 0, "{w}");
        bytes as f64 / w["ops"].as_f64().unwrap()
    };
    let healthy = read_bytes_per_op(json!([]));
    let degraded = read_bytes_per_op(json!([{"at_ns": 0, "do": "fail", "disk": "d3"}]));
    // Healthy: the 32 data sectors. Degraded: the 4/11 of blocks with a data column on d3
    // read the other five columns, parity included (40 sectors): 1 + 4/11 × 1/4 = 1.09.
    assert!((healthy / 131072.0 - 1.0).abs() < 0.02, "healthy {healthy}");
    let ratio = degraded / healthy;
    assert!((ratio - 1.0 - 1.0 / 11.0).abs() < 0.03, "degraded {degraded} vs healthy {healthy}: {ratio}");
}

/// Sum of a leaf's iostat series `key` (`write_ops`, `read_bytes`, …) over the run.
fn series_sum(res: &Value, name: &str, key: &str) -> u64 {
    let i = res["leaves"].as_array().unwrap().iter().position(|l| l["name"] == name).unwrap();
    res["series"]["leaves"][i][key].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum()
}

/// The child on which the first distributed spare of the 22-wide test pool keeps its share
/// of the slice at child offset 64 MiB — inside the allocated part of every disk — chosen
/// where d5 holds data (neither spare's column is d5's there).
fn under_first_spare() -> String {
    let d = ziosim_model::draid::Draid::new(2, 4, 22, 2, 12).unwrap();
    let off = 64 << 20;
    assert!(d.spare_child(0, off) != 5 && d.spare_child(1, off) != 5);
    format!("d{}", d.spare_child(0, off))
}

/// The 22-wide pool with two spares: `first` fails at 0 s (zed rebuilds it onto
/// draid2-0-0), then `second`, if any, at 30 min (onto draid2-0-1); no scrub after a
/// rebuild; `more` actions after those.
fn failures(first: &str, second: Option<&str>, more: Value) -> Value {
    let mut actions = vec![json!({"at_ns": 0, "do": "fail", "disk": first})];
    actions.extend(second.map(|d| json!({"at_ns": 1800_000_000_000u64, "do": "fail", "disk": d})));
    actions.extend(more.as_array().unwrap().iter().cloned());
    let mut cfg = spare_pool(22, 2, Value::Array(actions));
    cfg["tunables"]["zfs_rebuild_scrub_enabled"] = json!(0);
    cfg["stop_on_scan_done"] = json!(false);
    cfg["stop_ns"] = json!(3600_000_000_000u64);
    cfg
}

fn rebuilt(rb: &Value) -> f64 {
    assert!(rb["state"] == "complete" && rb["errors"] == 0, "{rb}");
    rb["rebuilt_bytes"].as_f64().unwrap()
}

#[test]
fn a_disk_holding_part_of_a_spare_in_use_fails_and_that_part_is_rebuilt_too() {
    // d5 is rebuilt onto draid2-0-0, whose share of each slice lies on another child. When
    // that child fails, the second rebuild (onto draid2-0-1) copies its own columns and
    // also the part of draid2-0-0 that lay on it: `vdev_draid_missing` follows the spare
    // down to the failed disk, and `rc_force_repair` writes the column to the disk's spare.
    let x = under_first_spare();
    let res = run(&failures("d5", Some(&x), json!([])));
    let rbs = res["rebuilds"].as_array().unwrap().clone();
    assert_eq!(rbs.len(), 2, "{rbs:?}");
    let (first, second) = (rebuilt(&rbs[0]), rebuilt(&rbs[1]));
    // The same child failing alone: only its own columns.
    let alone = rebuilt(&rebuild_of(&run(&failures(&x, None, json!([])))));
    let extra = second - alone;
    assert!(extra > 0.0 && extra < first, "{x} after d5: {second}, alone: {alone}, d5: {first}");
    // Both spares are written through the survivors, and their own iostat rows count the
    // zios they passed on (`vdev_stat_update` on the spare, a leaf vdev), though they queue
    // nothing themselves.
    for sp in ["draid2-0-0", "draid2-0-1"] {
        let w = series_sum(&res, sp, "write_bytes");
        assert!(w as f64 > first / 2.0, "{sp} wrote {w}");
        assert!(leaf(&res, sp)["classes"].as_object().unwrap().is_empty(), "{sp} queued I/O of its own");
    }
    // A failed disk takes no I/O once it has failed.
    assert_eq!(series_sum(&res, "d5", "read_ops") + series_sum(&res, "d5", "write_ops"), 0);
}

#[test]
fn after_both_rebuilds_a_scrub_finds_every_block_whole() {
    // Reads of d5's data whose spare share lay on the second failed disk come from the
    // second spare once its rebuild is done; a scrub then reads every column once.
    let x = under_first_spare();
    let mut cfg = failures("d5", Some(&x), json!([{"at_ns": 3000_000_000_000u64, "do": "scrub"}]));
    cfg["stop_on_scan_done"] = json!(true);
    cfg["stop_ns"] = json!(7200_000_000_000u64);
    let res = run(&cfg);
    assert_eq!(res["scan"]["func"], "scrub");
    assert_eq!(res["scan"]["state"], "finished", "{}", res["scan"]);
    assert_eq!(scan_errors(&res), 0);
    let scrub: u64 = (0..22).map(|i| class_bytes(&leaf(&res, &format!("d{i}")), "scrub")).sum();
    let alloc = res["pool"]["layout_alloc_bytes"].as_u64().unwrap();
    assert!(scrub >= alloc && scrub <= alloc + alloc / 500, "scrub read {scrub} of {alloc}");
    assert_eq!(class_bytes(&leaf(&res, &x), "scrub") + class_bytes(&leaf(&res, "d5"), "scrub"), 0);
}

#[test]
fn a_second_failure_during_a_draid1_rebuild_loses_blocks_the_scrub_then_finds() {
    // draid1: d3 fails and zed rebuilds it onto the distributed spare; d7 fails while that
    // runs, so the groups holding both lose two columns of one parity — those chunks
    // cannot be rebuilt (vrp_errors). The spare is taken as whole at the end, but the
    // blocks in those chunks are gone, and the scrub the rebuild starts lists them.
    let mut cfg = config("zfs-2.2", hdd(), json!([{"type": "draid1", "disks": disks(11), "data": 4, "spares": 1}]), json!([]), 7200);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(4u64 << 30);
    cfg["stop_on_scan_done"] = json!(true);
    cfg["actions"] = json!([{"at_ns": 0, "do": "fail", "disk": "d3"}, {"at_ns": 200_000_000u64, "do": "fail", "disk": "d7"}]);
    let res = run(&cfg);
    let rb = rebuild_of(&res);
    assert_eq!(rb["state"], "complete", "{rb}");
    let errors = rb["errors"].as_u64().unwrap();
    assert!(errors > 0, "{rb}");
    assert_eq!(res["scan"]["func"], "scrub");
    assert_eq!(res["scan"]["state"], "finished");
    let lost = scan_errors(&res);
    assert!(lost > 0, "the scrub after the rebuild found no lost block ({errors} chunks failed)");
    let snap = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    assert!(snap["errors"].as_u64().unwrap() > 0, "{}", snap["errors"]);
}

#[test]
fn a_healing_resilver_also_restores_a_spare_share_that_lay_on_the_replaced_disk() {
    // One distributed spare: d5 is rebuilt onto it. Then the child holding part of that
    // spare fails, no spare is left, and a new disk replaces it with a healing resilver.
    // The resilver finds the blocks of d5 whose spare share lay there missing too
    // (`vdev_draid_group_missing` through the spare) and writes them to the new disk,
    // besides the failed child's own columns.
    let x = {
        let d = ziosim_model::draid::Draid::new(2, 4, 22, 1, 12).unwrap();
        assert_ne!(d.spare_child(0, 64 << 20), 5);
        format!("d{}", d.spare_child(0, 64 << 20))
    };
    let replaced = |first: Option<&str>| {
        let mut actions: Vec<Value> = first.map(|d| json!({"at_ns": 0, "do": "fail", "disk": d})).into_iter().collect();
        actions.push(json!({"at_ns": 1800_000_000_000u64, "do": "fail", "disk": x}));
        actions.push(json!({"at_ns": 1801_000_000_000u64, "do": "replace", "old": x, "new": "d22"}));
        let mut cfg = spare_pool(22, 1, Value::Array(actions));
        cfg["tunables"]["zfs_rebuild_scrub_enabled"] = json!(0);
        let res = run(&cfg);
        assert_eq!(res["scan"]["func"], "resilver");
        assert_eq!(res["scan"]["state"], "finished", "{}", res["scan"]);
        assert_eq!(scan_errors(&res), 0);
        series_sum(&res, "d22", "write_bytes")
    };
    let alone = replaced(None);
    let after = replaced(Some("d5"));
    assert!(after > alone + alone / 20, "new disk wrote {after} after d5's rebuild, {alone} alone");
}

/// The rows of the status snapshot `snap`: name → (note, `vs_scan_processed`).
fn rows(snap: &Value) -> std::collections::BTreeMap<String, (String, u64)> {
    snap["tree"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_string(), (r["note"].as_str().unwrap().to_string(), r["scan_processed"].as_u64().unwrap_or(0))))
        .collect()
}

#[test]
fn a_rebuild_onto_a_distributed_spare_shows_every_disk_it_writes_as_resilvering() {
    // The spare's share of each slice lies on a surviving child, which takes the rebuild's
    // write and counts it (`vs_rebuild_processed` of a leaf): `zpool status` marks every
    // survivor "(resilvering)" while the rebuild runs, the spare too — as a 2.1.5 pool
    // rebuilding onto draid3-0-0 printed it (rouben/zfswatcher#24). The rebuilt total
    // counts the physical writes only: the spare is left out of it (`vdev_stat_update`).
    let mut cfg = spare_pool(11, 1, json!([{"at_ns": 0, "do": "fail", "disk": "d3"}]));
    cfg["report_interval_ns"] = json!(200_000_000u64);
    let res = run(&cfg);
    let snaps = res["status"]["snapshots"].as_array().unwrap();
    // The last snapshot before it ends: the share moves from child to child with the slice.
    let during = snaps.iter().rfind(|s| s["rebuild"][0]["state"] == "active").expect("a snapshot during the rebuild");
    let r = rows(during);
    for i in (0..11).filter(|&i| i != 3) {
        assert_eq!(r[&format!("d{i}")].0, "(resilvering)", "d{i}: {r:?}");
    }
    assert_eq!(r["draid2-0-0"].0, "(resilvering)", "{r:?}");
    assert_eq!(r["d3"].0, "cannot open", "{r:?}");
    let rb = rebuild_of(&res);
    assert_eq!(rb["rebuilt_bytes"].as_u64().unwrap(), series_sum(&res, "draid2-0-0", "write_bytes"), "{rb}");
}

#[test]
fn a_healing_resilver_through_a_distributed_spare_counts_the_spare_and_the_disk() {
    // `zpool replace tank d3 draid2-0-0` without -s: a healing resilver. Each repair write
    // to the spare is a leaf zio, and so is the one it passes to the disk holding the
    // share: `vdev_stat_update` adds both to `scn_processed` ("resilvered") and to each
    // vdev's `vs_scan_processed`, so every survivor shows "(resilvering)" too.
    let mut cfg = spare_pool(11, 1, json!([
        {"at_ns": 0, "do": "fail", "disk": "d3"},
        {"at_ns": 1, "do": "replace", "old": "d3", "new": "draid2-0-0"}
    ]));
    cfg["pool"]["spares_auto"] = json!(false);
    let res = run(&cfg);
    assert_eq!(res["scan"]["func"], "resilver", "{}", res["scan"]);
    assert_eq!(res["scan"]["state"], "finished", "{}", res["scan"]);
    let last = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    let r = rows(&last);
    let spare = r["draid2-0-0"].1;
    let disks: u64 = (0..11).filter(|&i| i != 3).map(|i| r[&format!("d{i}")].1).sum();
    assert!(spare > 0 && (0..11).filter(|&i| i != 3).all(|i| r[&format!("d{i}")].1 > 0), "{r:?}");
    assert_eq!(disks, spare, "{r:?}");
    assert_eq!(res["scan"]["processed_bytes"].as_u64().unwrap(), 2 * spare, "{}", res["scan"]);
    assert_eq!(series_sum(&res, "draid2-0-0", "write_bytes"), spare);
}

#[test]
fn a_column_owed_through_a_spare_and_by_a_new_disk_is_written_once() {
    // d5 and the child holding the spare's share at 64 MiB fail together; d5 is replaced
    // by the distributed spare and that child by a new disk, both healing, in one
    // resilver. A column of d5 whose spare share lies on the failed child is owed by both
    // the spare and the new disk, and both lead to the new disk: one write, not two.
    let x = {
        let d = ziosim_model::draid::Draid::new(2, 4, 22, 1, 12).unwrap();
        assert_ne!(d.spare_child(0, 64 << 20), 5);
        format!("d{}", d.spare_child(0, 64 << 20))
    };
    let mut cfg = spare_pool(22, 1, json!([
        {"at_ns": 0, "do": "fail", "disk": "d5"},
        {"at_ns": 0, "do": "fail", "disk": x},
        {"at_ns": 1, "do": "replace", "old": "d5", "new": "draid2-0-0"},
        {"at_ns": 1, "do": "replace", "old": x, "new": "d22"}
    ]));
    cfg["pool"]["spares_auto"] = json!(false);
    let res = run(&cfg);
    assert_eq!(res["scan"]["func"], "resilver", "{}", res["scan"]);
    assert_eq!(res["scan"]["state"], "finished", "{}", res["scan"]);
    assert_eq!(scan_errors(&res), 0);
    let last = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    let counted = rows(&last)["d22"].1;
    let written = class_bytes(&leaf(&res, "d22"), "async_write");
    assert!(counted > 0 && written == counted, "d22 wrote {written}, counted {counted}");
}

#[test]
fn a_rebuild_through_a_spare_writes_only_the_side_being_rebuilt() {
    // d5 fails and zed rebuilds it onto draid2-0-0 while the child holding that spare's
    // share at 64 MiB is being replaced (`zpool replace -s`, still live). The rebuild's
    // writes of the spare's columns there go through that child's `replacing` vdev, and
    // at REBUILD priority a mirror writes only the side being rebuilt
    // (`vdev_mirror_io_start`, `mm_rebuilding`): the new disk, not the old one.
    let x = under_first_spare();
    let mut cfg = failures("d5", None, json!([{"at_ns": 1, "do": "replace", "old": x, "new": "d22", "sequential": true}]));
    cfg["stop_on_scan_done"] = json!(true);
    let res = run(&cfg);
    let rbs = res["rebuilds"].as_array().unwrap();
    assert!(rbs.iter().all(|r| r["state"] == "complete" && r["errors"] == 0), "{rbs:?}");
    let old = series_sum(&res, &x, "write_bytes");
    let spare = series_sum(&res, "draid2-0-0", "write_bytes");
    assert!(spare > 0, "{rbs:?}");
    // The old disk takes only the pool's own small writes (labels, uberblocks).
    assert!(old < spare / 50, "{x} wrote {old} while the spare passed on {spare}");
}

#[test]
fn a_distributed_spare_being_replaced_writes_through_to_its_shares() {
    // d3 fails, zed rebuilds the distributed spare, then d3 is replaced by d11: the spare
    // is now the old side of `replacing-3`. The resilver's repair writes (and any other
    // write) to that column reach the spare, which has no queue or disk of its own: they
    // go on to the disks holding its shares (`vdev_draid_spare_io_start`), as before the
    // replace. (QA 2026-11-28: the spare was simulated as a twelfth disk.)
    let res = run(&spare_pool(11, 1, json!([
        {"at_ns": 0, "do": "fail", "disk": "d3"},
        {"at_ns": 1800_000_000_000u64, "do": "replace", "old": "d3", "new": "d11"}
    ])));
    let spare = leaf(&res, "draid2-0-0");
    assert!(spare["busy_ns"].as_u64().unwrap_or(0) == 0, "the spare ran as a disk: {spare}");
    assert!(spare["classes"].as_object().is_none_or(|c| c.is_empty()), "{}", spare["classes"]);
    let new = class_bytes(&leaf(&res, "d11"), "async_write");
    let shares: u64 = (0..11).filter(|&i| i != 3).map(|i| class_bytes(&leaf(&res, &format!("d{i}")), "async_write")).sum();
    assert!(new > 0, "d11 was resilvered");
    // What the resilver wrote to the spare's column lands on the survivors holding its
    // shares: as much as on the new disk (less the stretches the scan skipped).
    assert!(shares * 10 >= new * 9, "shares {shares} vs new disk {new}");
}

#[test]
fn a_draid_rebuild_counts_the_groups_it_skips_from_2_2() {
    // vdev_rebuild_range: a range whose group holds no child being rebuilt is skipped;
    // 2.2 adds it to vr_pass_bytes_skipped (fa7b2390d4), which `zpool status` takes off
    // the bytes to issue; 2.1 skips it uncounted.
    let skipped = |release: &str| {
        let mut cfg = spare_pool(22, 1, json!([{"at_ns": 0, "do": "fail", "disk": "d5"}]));
        cfg["release"] = json!(release);
        cfg["tunables"] = json!({"zfs_rebuild_scrub_enabled": 0});
        let res = run(&cfg);
        let snaps = res["status"]["snapshots"].as_array().unwrap();
        let vrs = snaps.iter().rev().find_map(|s| s["rebuild"].as_array().and_then(|a| a.first()).cloned()).unwrap();
        (vrs["pass_scanned"].as_u64().unwrap(), vrs["pass_issued"].as_u64().unwrap(), vrs["pass_skipped"].as_u64().unwrap())
    };
    let (scanned, issued, skip) = skipped("zfs-2.2");
    assert!(skip > 0 && issued > 0, "{scanned} {issued} {skip}");
    assert_eq!(issued + skip, scanned, "every scanned range issued or skipped");
    assert_eq!(skipped("zfs-2.1").2, 0);
}

//! Sequential rebuild, attach/detach, DTL-scoped resilvers, deferral and restart
//! (spec §5.0, §5.4, §5.6) through the whole model.
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

/// One HDD mirror (or a single disk) holding `gib` GiB of 128 KiB records, aged.
fn pool(release: &str, vdevs: Value, gib: u64, actions: Value) -> Value {
    let mut cfg = config(release, hdd(), vdevs, json!([]), 24 * 3600);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(gib << 30);
    cfg["pool"]["layout"] = json!({"fragmentation": 0.6});
    cfg["stop_on_scan_done"] = json!(true);
    cfg["report_interval_ns"] = json!(5 * S);
    cfg["actions"] = actions;
    cfg
}

fn mirror(a: &str, b: &str) -> Value {
    json!([{"type": "mirror", "disks": [disk(a), disk(b)]}])
}

fn leaf(res: &Value, name: &str) -> Value {
    res["leaves"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap().clone()
}

fn class_ops(l: &Value, class: &str) -> u64 {
    l["classes"].get(class).map_or(0, |c| c["ops"].as_u64().unwrap())
}

fn class_bytes(l: &Value, class: &str) -> u64 {
    l["classes"].get(class).map_or(0, |c| c["bytes"].as_u64().unwrap())
}

fn tree_names(snap: &Value) -> Vec<(u64, String, String, String)> {
    snap["tree"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (r["depth"].as_u64().unwrap(), r["name"].as_str().unwrap().into(), r["state"].as_str().unwrap().into(), r["note"].as_str().unwrap().into())
        })
        .collect()
}

fn replace_failed(seq: bool) -> Value {
    json!([{"at_ns": 0, "do": "fail", "disk": "sdb"},
           {"at_ns": S, "do": "replace", "old": "sdb", "new": "sdc", "sequential": seq}])
}

#[test]
fn sequential_rebuild_copies_the_allocated_space_in_1m_chunks_then_scrubs() {
    let res = run(&pool("zfs-2.1", mirror("sda", "sdb"), 4, replace_failed(true)));
    let rb = &res["rebuilds"].as_array().unwrap()[0];
    assert_eq!(rb["state"], "complete");
    assert_eq!(rb["vdev"], "mirror-0");
    let alloc = res["pool"]["vdevs"][0]["layout_alloc_bytes"].as_u64().unwrap();
    // Every allocated byte is scanned and copied once, to the new disk only.
    assert_eq!(rb["scanned_bytes"].as_u64().unwrap(), alloc);
    assert_eq!(rb["rebuilt_bytes"].as_u64().unwrap(), alloc);
    let sdc = leaf(&res, "sdc");
    assert_eq!(class_bytes(&sdc, "rebuild"), alloc);
    // No healing repair writes: the new disk's only other writes are the txgs' MOS blocks
    // (the rebuild's and the scrub's state, the space maps and the MOS root above them).
    assert!(class_bytes(&sdc, "async_write") <= res["txg"]["metadata_bytes"].as_u64().unwrap(), "{}", res["txg"]);
    let sda = leaf(&res, "sda");
    let rd = &sda["classes"]["rebuild"];
    assert_eq!(rd["bytes"].as_u64().unwrap(), alloc, "one healthy child reads each chunk");
    // Chunks of zfs_rebuild_max_segment = 1 MiB (ranges end in smaller ones).
    let mean = rd["bytes"].as_f64().unwrap() / rd["ops"].as_f64().unwrap();
    assert!(mean > 900_000.0 && mean <= 1_048_576.0, "mean chunk {mean}");
    // Then the automatic scrub (2.1: zfs_rebuild_scrub_enabled = 1), which reads both disks.
    let scans = res["scans"].as_array().unwrap();
    assert_eq!(scans.len(), 1, "{scans:?}");
    assert_eq!(scans[0]["func"], "scrub");
    assert_eq!(scans[0]["state"], "finished");
    assert!(scans[0]["start_ns"].as_u64().unwrap() >= rb["end_ns"].as_u64().unwrap());
    assert!(class_bytes(&leaf(&res, "sdc"), "scrub") > alloc / 2);
    // The replaced disk is gone from the tree; the last snapshot shows both lines' sources.
    let last = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    let names: Vec<String> = tree_names(&last).into_iter().map(|r| r.1).collect();
    assert_eq!(names, vec!["tank", "mirror-0", "sda", "sdc"]);
    assert_eq!(last["rebuild"][0]["state"], "complete");
    assert_eq!(last["scan"]["func"], "scrub");
}

#[test]
fn rebuild_marks_the_new_disk_resilvering_inside_replacing() {
    let mut cfg = pool("zfs-2.2", mirror("sda", "sdb"), 4, replace_failed(true));
    cfg["stop_on_scan_done"] = json!(false);
    cfg["stop_ns"] = json!(6 * S);
    cfg["report_interval_ns"] = json!(3 * S);
    let res = run(&cfg);
    let snap = res["status"]["snapshots"].as_array().unwrap()[1].clone();
    let rows = tree_names(&snap);
    // A replacing vdev with one side dead degrades its parent too (vdev_propagate_state).
    assert_eq!(rows[1], (1, "mirror-0".into(), "DEGRADED".into(), "".into()), "{rows:?}");
    assert_eq!(rows[3], (2, "replacing-1".into(), "DEGRADED".into(), "".into()), "{rows:?}");
    assert_eq!(rows[4], (3, "sdb".into(), "UNAVAIL".into(), "cannot open".into()));
    assert_eq!(rows[5], (3, "sdc".into(), "ONLINE".into(), "(resilvering)".into()));
    let vrs = &snap["rebuild"][0];
    assert_eq!(vrs["state"], "active");
    assert!(vrs["scanned"].as_u64().unwrap() > 0 && vrs["scanned"].as_u64().unwrap() < vrs["estimate"].as_u64().unwrap());
    assert_eq!(snap["scan"]["func"], "none");
}

#[test]
fn sequential_rebuild_beats_a_healing_resilver_on_an_aged_hdd_mirror() {
    // Small files on a fully aged pool, 256 MiB of RAM (a 16 MiB sort limit): the healing
    // resilver issues in several phases whose sorted extents stay short; the rebuild still
    // streams the allocated space. (With RAM for the whole sort, the issue is nearly
    // sequential and — the metadata prefetched — the two come within 30 %.)
    let mk = |seq: bool| {
        let mut c = pool("zfs-2.1", mirror("sda", "sdb"), 4, replace_failed(seq));
        c["pool"]["layout"] = json!({"fragmentation": 1.0, "files": [[16384, 1.0]]});
        c["ram_bytes"] = json!(256u64 << 20);
        c
    };
    let seq = run(&mk(true));
    let heal = run(&mk(false));
    let t_seq = seq["rebuilds"][0]["duration_ns"].as_f64().unwrap();
    let t_heal = heal["scan"]["duration_ns"].as_f64().unwrap();
    assert_eq!(heal["scan"]["func"], "resilver");
    assert!(t_seq * 1.5 < t_heal, "rebuild {t_seq} vs healing {t_heal}");
    // Both restore the same data onto the new disk.
    let a = seq["rebuilds"][0]["rebuilt_bytes"].as_f64().unwrap();
    let b = heal["scan"]["processed_bytes"].as_f64().unwrap();
    assert!((a / b - 1.0).abs() < 0.05, "{a} vs {b}");
}

#[test]
fn scrub_after_rebuild_follows_the_release() {
    // 2.0 scrubs unconditionally (spa_async_thread); 2.1 obeys zfs_rebuild_scrub_enabled.
    let r20 = run(&pool("zfs-2.0", mirror("sda", "sdb"), 1, replace_failed(true)));
    assert_eq!(r20["scans"][0]["func"], "scrub");
    let mut cfg = pool("zfs-2.1", mirror("sda", "sdb"), 1, replace_failed(true));
    cfg["tunables"] = json!({"zfs_rebuild_scrub_enabled": 0});
    let r21 = run(&cfg);
    assert_eq!(r21["scans"].as_array().unwrap().len(), 0);
    assert_eq!(r21["rebuilds"][0]["state"], "complete");
    assert_eq!(r21["sim_time_ns"], r21["rebuilds"][0]["end_ns"], "stop = scan-done stops at the rebuild's end");
}

#[test]
fn attach_turns_a_disk_into_a_mirror_and_detach_undoes_it() {
    let actions = json!([{"at_ns": S, "do": "attach", "disk": "sda", "new": "sdb"}]);
    let res = run(&pool("zfs-2.2", json!([{"type": "disk", "disks": [disk("sda")]}]), 2, actions));
    assert_eq!(res["scan"]["func"], "resilver");
    assert_eq!(res["scan"]["state"], "finished");
    let alloc = res["pool"]["vdevs"][0]["layout_alloc_bytes"].as_u64().unwrap();
    // Every block once, and the ditto metadata (both copies on this one vdev) once more: a
    // sio is queued for each copy and each repairs both (`dsl_scan_enqueue`,
    // `vdev_mirror_io_done` at the root; audit 1 F5).
    let written = class_bytes(&leaf(&res, "sdb"), "async_write");
    assert!(written > alloc && written - alloc < alloc / 200, "written {written} of {alloc}");
    assert_eq!(res["pool"]["vdevs"][0]["name"], "mirror-0");
    let snaps = res["status"]["snapshots"].as_array().unwrap();
    let first = tree_names(&snaps[0]);
    assert_eq!(first[1], (1, "mirror-0".into(), "ONLINE".into(), "".into()), "{first:?}");
    assert_eq!(first[3].1, "sdb");
    assert_eq!(first[3].3, "(resilvering)");
    assert!(tree_names(snaps.last().unwrap())[3].3.is_empty());

    // Detach the original after the resilver: back to a single disk, sdb.
    let actions = json!([{"at_ns": S, "do": "attach", "disk": "sda", "new": "sdb"},
                         {"at_ns": 3600 * S, "do": "detach", "disk": "sda"},
                         {"at_ns": 3601 * S, "do": "detach", "disk": "sdb"}]);
    let mut cfg = pool("zfs-2.2", json!([{"type": "disk", "disks": [disk("sda")]}]), 2, actions);
    cfg["stop_on_scan_done"] = json!(false);
    cfg["stop_ns"] = json!(3605 * S);
    cfg["report_interval_ns"] = json!(3602 * S);
    let res = run(&cfg);
    let log = res["actions"].as_array().unwrap();
    assert_eq!(log[1]["command"], "zpool detach tank sda");
    assert!(log[1]["error"].is_null(), "{log:?}");
    assert_eq!(log[2]["error"], "cannot detach sdb: only applicable to mirror and replacing vdevs");
    let rows = tree_names(&res["status"]["snapshots"][0]);
    assert_eq!(rows, vec![(0, "tank".into(), "ONLINE".into(), "".into()), (1, "sdb".into(), "ONLINE".into(), "".into())]);
}

#[test]
fn detaching_the_only_good_copy_is_refused() {
    let actions = json!([{"at_ns": S, "do": "attach", "disk": "sda", "new": "sdb"},
                         {"at_ns": 2 * S, "do": "detach", "disk": "sda"},
                         {"at_ns": 2 * S, "do": "offline", "disk": "sda"}]);
    let res = run(&pool("zfs-2.2", json!([{"type": "disk", "disks": [disk("sda")]}]), 2, actions));
    let log = res["actions"].as_array().unwrap();
    assert_eq!(log[1]["error"], "cannot detach sda: no valid replicas");
    assert_eq!(log[2]["error"], "cannot offline sda: no valid replicas");
    assert_eq!(res["scan"]["state"], "finished");
}

/// A random writer on a 2-way mirror; sdb goes offline for `secs` seconds.
fn outage(release: &str, secs: u64) -> Value {
    let mut cfg = pool(
        release,
        mirror("sda", "sdb"),
        4,
        json!([{"at_ns": S, "do": "offline", "disk": "sdb"}, {"at_ns": (1 + secs) * S, "do": "online", "disk": "sdb"}]),
    );
    cfg["workloads"] = json!([{"name": "w", "kind": "random-write", "sizes": [[131072, 1.0]], "rate_per_s": 50.0, "stop_ns": (2 + secs) * S}]);
    cfg
}

#[test]
fn a_short_outage_resilvers_only_what_was_written_meanwhile() {
    let res = run(&outage("zfs-2.2", 20));
    let sc = &res["scan"];
    assert_eq!(sc["func"], "resilver");
    assert_eq!(sc["state"], "finished");
    // The layout (born before the run) is pruned: only the txgs synced while sdb was
    // offline are visited, and what they wrote is copied to sdb.
    let processed = sc["processed_bytes"].as_f64().unwrap();
    let wrote = 50.0 * 20.0 * 131072.0;
    assert!(processed > 0.6 * wrote && processed < 1.4 * wrote, "processed {processed}, written meanwhile ≈ {wrote}");
    let examined = sc["examined_bytes"].as_u64().unwrap();
    assert!(examined < sc["to_examine_bytes"].as_u64().unwrap() / 20, "examined {examined}");
    assert!(sc["min_txg"].as_u64().unwrap() > 0);
    let sdb = leaf(&res, "sdb");
    assert_eq!(class_bytes(&sdb, "scrub"), 0, "the stale disk is not read");
    // A longer outage resilvers more.
    let longer = run(&outage("zfs-2.2", 40));
    assert!(longer["scan"]["processed_bytes"].as_f64().unwrap() > 1.5 * processed);
    // The offline disk shows OFFLINE while out.
    let mut cfg = outage("zfs-2.2", 20);
    cfg["stop_on_scan_done"] = json!(false);
    cfg["stop_ns"] = json!(10 * S);
    let mid = run(&cfg);
    let rows = tree_names(&mid["status"]["snapshots"][0]);
    assert_eq!(rows[0].2, "DEGRADED");
    assert_eq!(rows[3], (2, "sdb".into(), "OFFLINE".into(), "".into()));
}

/// sdb is replaced at 1 s; sdc is attached to sda just before `at_s`.
fn two_needs(release: &str, at_s: u64, tunables: Value) -> Value {
    two_needs_of(8, release, at_s, tunables)
}

/// `two_needs` on a pool of `gib` GiB.
fn two_needs_of(gib: u64, release: &str, at_s: u64, tunables: Value) -> Value {
    let mut cfg = pool(
        release,
        mirror("sda", "sdb"),
        gib,
        json!([{"at_ns": S, "do": "replace", "old": "sdb", "new": "sdd"},
               {"at_ns": at_s * S - 1, "do": "attach", "disk": "sda", "new": "sdc"}]),
    );
    cfg["tunables"] = tunables;
    cfg
}

fn funcs_states(res: &Value) -> Vec<(String, String)> {
    res["scans"].as_array().unwrap().iter().map(|s| (s["func"].as_str().unwrap().into(), s["state"].as_str().unwrap().into())).collect()
}

#[test]
fn a_second_resilver_need_restarts_before_0_8_and_is_deferred_after() {
    let r = |s: &str| (String::from("resilver"), String::from(s));
    // zfs-0.7: the running resilver restarts from the beginning.
    let old = run(&two_needs("zfs-0.7", 10, json!({})));
    assert_eq!(funcs_states(&old), vec![r("canceled"), r("finished")]);
    // zfs-0.8+: the new disk waits; a second resilver follows the first.
    let mut cfg = two_needs("zfs-2.2", 10, json!({}));
    cfg["report_interval_ns"] = json!(10 * S);
    let new = run(&cfg);
    assert_eq!(funcs_states(&new), vec![r("finished"), r("finished")]);
    // Just after the attach, before the running resilver wrote to it.
    let snap = &new["status"]["snapshots"][0];
    let rows = tree_names(snap);
    let sdc = rows.iter().find(|x| x.1 == "sdc").unwrap();
    assert_eq!(sdc.3, "(awaiting resilver)", "{rows:?}");
    // The first resilver wrote its blocks to the waiting disk too, so both new disks end
    // up holding the vdev's data, and the second pass is not shorter for it.
    let alloc = new["pool"]["vdevs"][0]["layout_alloc_bytes"].as_u64().unwrap();
    assert!(class_bytes(&leaf(&new, "sdc"), "async_write") >= alloc);
    // zfs_resilver_disable_defer = 1 restarts instead.
    let dis = run(&two_needs("zfs-2.2", 10, json!({"zfs_resilver_disable_defer": 1})));
    assert_eq!(funcs_states(&dis), vec![r("canceled"), r("finished")]);
}

#[test]
fn zfs_2_3_restarts_a_resilver_that_has_barely_begun() {
    let r = |s: &str| (String::from("resilver"), String::from(s));
    // Right after the start (< 10 % issued at the next txg sync): restart. Far along: defer.
    // (16 GiB: the new disk destages the resilver's sorted writes at media rate, so an
    // 8 GiB pool is already past 10 % at the first sync after the need.)
    let early = run(&two_needs_of(16, "zfs-2.3", 2, json!({})));
    assert_eq!(funcs_states(&early), vec![r("canceled"), r("finished")]);
    let first_end = run(&two_needs("zfs-2.3", 10_000, json!({})))["scans"][0]["end_ns"].as_u64().unwrap();
    let late = run(&two_needs("zfs-2.3", first_end / S * 3 / 4, json!({})));
    assert_eq!(funcs_states(&late), vec![r("finished"), r("finished")]);
    // The same late need in 2.2 is deferred too, and early it is also deferred.
    let early22 = run(&two_needs("zfs-2.2", 2, json!({})));
    assert_eq!(funcs_states(&early22), vec![r("finished"), r("finished")]);
}

/// A 6-disk HDD raidz2 holding 8 GiB of 128 KiB records; `actions` as given.
fn raidz2_pool(release: &str, actions: Value) -> Value {
    let disks: Vec<Value> = ["sda", "sdb", "sdc", "sdd", "sde", "sdf"].iter().map(|n| disk(n)).collect();
    let mut cfg = config(release, hdd(), json!([{"type": "raidz2", "disks": disks}]), json!([]), 3600);
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(8u64 << 30);
    cfg["stop_on_scan_done"] = json!(true);
    cfg["report_interval_ns"] = json!(5 * S);
    cfg["actions"] = actions;
    cfg
}

/// sdb fails and is replaced by sdg; sdc fails and is replaced by sdh at `late_ns`.
fn late_replace(release: &str, late_ns: u64) -> Value {
    raidz2_pool(
        release,
        json!([{"at_ns": 0, "do": "fail", "disk": "sdb"},
               {"at_ns": S, "do": "replace", "old": "sdb", "new": "sdg"},
               {"at_ns": late_ns - S, "do": "fail", "disk": "sdc"},
               {"at_ns": late_ns, "do": "replace", "old": "sdc", "new": "sdh"}]),
    )
}

/// A disk replaced two seconds before the running resilver ends, so that the resilver ends
/// before the restart the replace scheduled (three txgs on): illumos 3958 (illumos-2014,
/// zfs-0.6.5 on) keeps the late disk's whole DTL and the restart copies its full share;
/// illumos-2012 cuts the DTL at the first scan's max txg and leaves the disk partly
/// resilvered (the bug 3958 fixed).
#[test]
fn a_disk_replaced_as_a_resilver_ends_is_resilvered_whole_from_illumos_3958() {
    for (rel, whole) in [("zfs-0.7", true), ("zfs-0.6.5", true), ("illumos-2014", true), ("zfs-2.2", true), ("illumos-2012", false)] {
        let first_end = run(&raidz2_pool(rel, json!([{"at_ns": 0, "do": "fail", "disk": "sdb"},
                                                    {"at_ns": S, "do": "replace", "old": "sdb", "new": "sdg"}])))["scan"]["end_ns"]
            .as_u64()
            .unwrap();
        let res = run(&late_replace(rel, first_end - 2 * S));
        let scans = funcs_states(&res);
        assert_eq!(scans[0], ("resilver".into(), "finished".into()), "{rel}: {scans:?}");
        // A raidz2 child holds a sixth of the vdev's allocated bytes.
        let share = res["pool"]["vdevs"][0]["layout_alloc_bytes"].as_u64().unwrap() / 6;
        let sdh = class_bytes(&leaf(&res, "sdh"), "async_write");
        if whole {
            assert!(sdh >= share * 9 / 10, "{rel}: sdh got {sdh} of {share}");
        } else {
            assert!(sdh < share / 2, "{rel}: sdh got {sdh} of {share}");
        }
        // The pool is whole again only once sdh holds its data.
        let last = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["state"], "ONLINE", "{rel}");
    }
}

/// Two disks replaced at one instant: the resilver starts in the sync of the attach's
/// `dtl_max_txg`, three txgs on, so the second replace moves that start and joins it
/// (spa.c@zfs-2.2.0 defers only while a resilver scan runs) — one resilver copies both.
#[test]
fn two_replaces_at_one_instant_share_one_resilver() {
    for rel in ["zfs-0.7", "zfs-2.2", "solaris-2009"] {
        let res = run(&raidz2_pool(
            rel,
            json!([{"at_ns": 0, "do": "fail", "disk": "sdb"}, {"at_ns": 0, "do": "fail", "disk": "sdc"},
                   {"at_ns": S, "do": "replace", "old": "sdb", "new": "sdg"},
                   {"at_ns": S, "do": "replace", "old": "sdc", "new": "sdh"}]),
        ));
        assert_eq!(funcs_states(&res), vec![("resilver".into(), "finished".into())], "{rel}");
        let share = res["pool"]["vdevs"][0]["layout_alloc_bytes"].as_u64().unwrap() / 6;
        for d in ["sdg", "sdh"] {
            assert!(class_bytes(&leaf(&res, d), "async_write") >= share * 9 / 10, "{rel}: {d}");
        }
        // It starts a few (short) txgs after the command, not at its instant.
        let start = res["scans"][0]["start_ns"].as_u64().unwrap();
        assert!(start > S && start < 2 * S, "{rel}: start {start}");
    }
}

/// solaris-2009: a replace runs `spa_scrub(spa, POOL_SCRUB_RESILVER)`, whose sync task
/// cancels the running scrub or resilver and starts a resilver over the recomputed DTLs.
/// The command waits for its txgs, so the running scan yields each txg after its min time
/// (1 s scrub, 3 s resilver) and the restart comes within a few seconds, not at the end of
/// a 30 s txg.
#[test]
fn solaris_2009_replace_cancels_the_running_scan_and_restarts() {
    let scrub = run(&raidz2_pool(
        "solaris-2009",
        json!([{"at_ns": S, "do": "scrub"}, {"at_ns": 2 * S, "do": "fail", "disk": "sdb"},
               {"at_ns": 4 * S, "do": "replace", "old": "sdb", "new": "sdg"}]),
    ));
    assert_eq!(funcs_states(&scrub), vec![("scrub".into(), "canceled".into()), ("resilver".into(), "finished".into())]);
    assert!(scrub["scans"][0]["end_ns"].as_u64().unwrap() < 10 * S);
    let one = json!([{"at_ns": 0, "do": "fail", "disk": "sdb"}, {"at_ns": S, "do": "replace", "old": "sdb", "new": "sdg"}]);
    let first_end = run(&raidz2_pool("solaris-2009", one))["scan"]["end_ns"].as_u64().unwrap();
    let res = run(&late_replace("solaris-2009", first_end / 3));
    assert_eq!(funcs_states(&res), vec![("resilver".into(), "canceled".into()), ("resilver".into(), "finished".into())]);
    let share = res["pool"]["vdevs"][0]["layout_alloc_bytes"].as_u64().unwrap() / 6;
    // The restart copies both new disks in full.
    assert!(res["scans"][1]["processed_bytes"].as_u64().unwrap() >= 2 * share * 9 / 10);
}

#[test]
fn rebuild_refuses_raidz_and_healing_refuses_a_running_rebuild() {
    let disks: Vec<Value> = ["sda", "sdb", "sdc", "sdd"].iter().map(|n| disk(n)).collect();
    let cfg = pool("zfs-2.2", json!([{"type": "raidz1", "disks": disks}]), 1, json!([{"at_ns": 0, "do": "replace", "old": "sdb", "new": "sde", "sequential": true}]));
    let e = ziosim_model::config::RunConfig::from_json(&cfg.to_string()).err().unwrap();
    assert!(e.starts_with("action[0].sequential: true"), "{e}");
    assert!(e.contains("only mirror and dRAID vdevs support sequential reconstruction"), "{e}");
    let actions = json!([{"at_ns": 0, "do": "replace", "old": "sdb", "new": "sdc", "sequential": true},
                         {"at_ns": S, "do": "attach", "disk": "sda", "new": "sdd"},
                         {"at_ns": S, "do": "scrub"}]);
    let res = run(&pool("zfs-2.2", mirror("sda", "sdb"), 1, actions));
    assert_eq!(res["actions"][1]["error"], "cannot attach sdd to sda: currently sequentially resilvering");
    // A scrub gets dsl_scan_setup_check's plain EBUSY, which libzfs prints as a resilver.
    assert_eq!(res["actions"][2]["error"], "cannot scrub tank: currently resilvering");
}

#[test]
fn same_scenario_same_bytes() {
    let a = run(&outage("zfs-2.1", 10));
    let b = run(&outage("zfs-2.1", 10));
    assert_eq!(a.to_string(), b.to_string());
}


#[test]
fn rebuilding_a_failed_single_disk_counts_every_chunk_as_an_error_without_deep_recursion() {
    // `zpool replace -s` of the only disk of a top-level vdev after it failed: no child can
    // read, so every chunk fails (vrp_errors) and nothing is written. 64 GiB of 1 MiB chunks
    // is ~65 K chunks, far deeper than a test thread's stack if each failed chunk recursed.
    let actions = json!([{"at_ns": 0, "do": "fail", "disk": "sda"},
                         {"at_ns": S, "do": "replace", "old": "sda", "new": "sdb", "sequential": true}]);
    let res = run(&pool("zfs-2.2", json!([{"type": "disk", "disks": [disk("sda")]}]), 64, actions));
    assert_eq!(res["actions"][1]["error"], Value::Null, "{}", res["actions"]);
    let rb = &res["rebuilds"].as_array().unwrap()[0];
    assert_eq!(rb["state"], "complete");
    let chunks = rb["chunks"].as_u64().unwrap();
    assert!(chunks > 60_000, "{chunks} chunks");
    assert_eq!(rb["errors"].as_u64().unwrap(), chunks, "every chunk is unreadable");
    assert_eq!(rb["rebuilt_bytes"].as_u64().unwrap(), 0);
    assert_eq!(class_bytes(&leaf(&res, "sdb"), "rebuild"), 0, "nothing reaches the new disk");
}

/// Random readers on `vdevs` whose disks `dead` fail at 1 s, 4 s run: 4 threads (closed
/// loop) and 100 reads/s (open loop). `failmode=continue`: a read of a dead vdev returns
/// EIO (under the default `wait` it suspends the pool: `tests/suspend.rs`).
fn reads_after_failing(kind: &str, names: &[&str], dead: &[&str]) -> Value {
    let disks: Vec<Value> = names.iter().map(|n| disk(n)).collect();
    let mut cfg = pool("zfs-2.2", json!([{"type": kind, "disks": disks}]), 2, json!([]));
    cfg["pool"]["failmode"] = json!("continue");
    cfg["stop_on_scan_done"] = json!(false);
    cfg["stop_ns"] = json!(4 * S);
    cfg["workloads"] = json!([{"name": "r", "kind": "random-read", "sizes": [[131072, 1.0]], "threads": 4},
                              {"name": "o", "kind": "random-read", "sizes": [[131072, 1.0]], "rate_per_s": 100.0}]);
    cfg["actions"] = Value::Array(dead.iter().map(|d| json!({"at_ns": S, "do": "fail", "disk": d})).collect());
    run(&cfg)
}

#[test]
fn reads_of_a_vdev_beyond_its_redundancy_fail_and_are_logged() {
    // Within redundancy: every read is served, nothing is logged.
    let ok = reads_after_failing("raidz1", &["sda", "sdb", "sdc"], &["sda"]);
    assert_eq!(ok["workloads"][0]["read_errors"], 0);
    assert_eq!(ok["workloads"][1]["read_errors"], 0);
    let last = ok["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["state"], "DEGRADED");
    assert_eq!(last["errors"], 0);
    for (kind, names, dead) in [
        ("raidz1", &["sda", "sdb", "sdc"][..], &["sda", "sdb"][..]),
        ("mirror", &["sda", "sdb"][..], &["sda", "sdb"][..]),
        ("disk", &["sda"][..], &["sda"][..]),
    ] {
        let res = reads_after_failing(kind, names, dead);
        // Reads before the failure were served; after it every read returns EIO. Each
        // closed-loop thread stops at its error (as fio does); open-loop reads go on failing
        // and count in neither ops nor latency.
        let (w, o) = (&res["workloads"][0], &res["workloads"][1]);
        assert_eq!(w["read_errors"], 4, "{kind}");
        let errors = o["read_errors"].as_u64().unwrap();
        assert!((250..=350).contains(&errors), "{kind}: {errors} open-loop read errors in 3 s at 100/s");
        let served = o["ops"].as_u64().unwrap();
        assert!((70..=130).contains(&served), "{kind}: {served} reads served in the first second");
        assert!(o["latency_ns"]["min"].as_u64().unwrap() > 100_000, "{kind}: failed reads kept out of the latency");
        // The failed disks serve nothing after 1 s: their ops are those of the first
        // second, a quarter of what they serve in 4 s healthy.
        let healthy = reads_after_failing(kind, names, &[]);
        for d in dead {
            let (ops, all) = (class_ops(&leaf(&res, d), "sync_read"), class_ops(&leaf(&healthy, d), "sync_read"));
            assert!(ops * 2 < all, "{kind}: {d} served {ops} ops, {all} in a healthy run");
        }
        let last = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["state"], "UNAVAIL", "{kind}");
        assert_eq!(last["tree"][0]["note"], "insufficient replicas", "{kind}");
        let nerr = last["errors"].as_u64().unwrap();
        assert!(nerr > 100 && nerr <= errors + 4, "{kind}: {nerr} distinct lost blocks for {} failed reads", errors + 4);
    }
}

/// The results' `end` says why the run stopped: `scan-done` when `stop = "scan-done"` ended
/// it, `stop-time` when the time limit came first.
#[test]
fn end_names_the_scan_done_stop() {
    let done = run(&pool("zfs-2.2", mirror("sda", "sdb"), 1, json!([{"at_ns": 0, "do": "scrub"}])));
    assert_eq!(done["scan"]["state"], "finished");
    assert_eq!(done["end"], "scan-done");
    let mut cfg = pool("zfs-2.2", mirror("sda", "sdb"), 1, json!([{"at_ns": 0, "do": "scrub"}]));
    cfg["stop_ns"] = json!(2 * S);
    let cut = run(&cfg);
    assert_eq!(cut["scan"]["state"], "scanning");
    assert_eq!(cut["end"], "stop-time");
}

/// solaris-2009 predates dsl_scan.c and most scan tunables: its scrub and its resilver run
/// to the end (both used to read a tunable the release lacks and panicked).
#[test]
fn solaris_2009_scrubs_and_resilvers() {
    let mut cfg = pool("solaris-2009", mirror("sda", "sdb"), 1, json!([{"at_ns": 0, "do": "scrub"}]));
    cfg["devices"]["d"] = serde_json::to_value(presets::get("hdd-7200-desktop-2009").unwrap()).unwrap();
    let scrub = run(&cfg);
    assert_eq!(scrub["scan"]["func"], "scrub");
    assert_eq!(scrub["scan"]["state"], "finished");
    cfg["actions"] = replace_failed(false);
    let resilver = run(&cfg);
    assert_eq!(resilver["scan"]["func"], "resilver");
    assert_eq!(resilver["scan"]["state"], "finished");
    assert!(resilver["scan"]["processed_bytes"].as_u64().unwrap() > 0);
}

/// Every release scrubs and resilvers a small pool to the end: no scan path reads a tunable
/// its release lacks.
#[test]
fn every_release_scrubs_and_resilvers() {
    for rel in ziosim_model::release::Release::ALL {
        for actions in [json!([{"at_ns": 0, "do": "scrub"}]), replace_failed(false)] {
            let res = run(&pool(rel.key(), mirror("sda", "sdb"), 1, actions));
            assert_eq!(res["scan"]["state"], "finished", "{}", rel.key());
        }
    }
}

/// zpool iostat counts what `vdev_stat_update` counts: an aggregated command once, at its
/// own size (gaps included), its member zios not at all. A scrub of a fresh mirror
/// aggregates its reads, so the series (ops, bytes) and the class histograms count fewer,
/// larger commands than the zios.
#[test]
fn iostat_counts_commands_not_member_zios() {
    let mut cfg = pool("zfs-2.2", mirror("sda", "sdb"), 1, json!([{"at_ns": 0, "do": "scrub"}]));
    cfg["pool"]["layout"] = json!({"fragmentation": 0.0});
    cfg["pool"]["recordsize_bytes"] = json!(16384);
    let res = run(&cfg);
    let l = leaf(&res, "sda");
    let c = &l["classes"]["scrub"];
    let (zios, cmds) = (c["ops"].as_u64().unwrap(), c["commands"].as_u64().unwrap());
    eprintln!("scrub on sda: {zios} zios in {cmds} commands");
    assert!(cmds * 2 < zios, "16K records of a fresh fill should aggregate: {zios} zios, {cmds} commands");
    let i = res["leaves"].as_array().unwrap().iter().position(|x| x["name"] == "sda").unwrap();
    let sum = |k: &str| res["series"]["leaves"][i][k].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum::<u64>();
    assert!(sum("read_ops") <= cmds + l["classes"].as_object().unwrap().values().filter(|x| x != &c).map(|x| x["commands"].as_u64().unwrap()).sum::<u64>());
    assert!(sum("read_bytes") >= c["bytes"].as_u64().unwrap(), "command bytes cover the member bytes");
    let agg: u64 = c["size_agg_log2"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum();
    assert!(agg > 0);
}

/// Before 0.7 a top-level vdev's own `vdev_stat` counted its logical I/O: a scrub of a
/// mirror reads each block once at the mirror and once per child. The results carry that
/// per top-level vdev (`series.tops`), next to the leaves' commands.
#[test]
fn top_level_series_count_logical_io() {
    let res = run(&pool("illumos-2014", mirror("sda", "sdb"), 1, json!([{"at_ns": 0, "do": "scrub"}])));
    let sum = |v: &Value, k: &str| v[k].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).sum::<u64>();
    let top = &res["series"]["tops"][0];
    let top_bytes = sum(top, "read_bytes");
    let leaf_bytes: u64 = (0..2).map(|i| sum(&res["series"]["leaves"][i], "read_bytes")).sum();
    let examined = res["scan"]["examined_bytes"].as_u64().unwrap();
    eprintln!("top {} reads, {top_bytes} B; leaves {leaf_bytes} B; examined {examined}", sum(top, "read_ops"));
    assert!(sum(top, "read_ops") > 0);
    // Every block read once at the top (metadata reads of the walk included), twice below.
    assert!(top_bytes as f64 >= 0.95 * examined as f64 && top_bytes as f64 <= 1.1 * examined as f64);
    assert!(leaf_bytes as f64 >= 1.95 * top_bytes as f64 * 0.98, "a scrub reads both children");
}

/// Detaching the disk a 2.0 rebuild is copying to cancels the rebuild (nothing left
/// needs it, `vdev_rebuild_should_cancel`), and a cancelled rebuild starts no scrub: only
/// `vdev_rebuild_complete_sync` asks for one (QA pass 3).
#[test]
fn a_cancelled_rebuild_starts_no_scrub() {
    for release in ["zfs-2.0", "zfs-2.2"] {
        let actions = json!([{"at_ns": 0, "do": "fail", "disk": "sdb"},
                             {"at_ns": S, "do": "replace", "old": "sdb", "new": "sdc", "sequential": true},
                             {"at_ns": 2 * S, "do": "detach", "disk": "sdc"}]);
        let res = run(&pool(release, mirror("sda", "sdb"), 4, actions));
        assert_eq!(res["rebuilds"][0]["state"], "canceled", "{release}");
        assert_eq!(res["scans"].as_array().unwrap().len(), 0, "{release}: {}", res["scans"]);
    }
}

/// OpenSolaris 2009's scrub commands (il:379c004d1f, QA pass 3): a scrub asked for during
/// a scrub restarts it, `scrub -s` with nothing running succeeds quietly, and `scrub -s`
/// stops a resilver, which nothing restarts.
#[test]
fn solaris_2009_scrub_commands_restart_and_cancel_as_2009_did() {
    let actions = json!([{"at_ns": 0, "do": "cancel"},
                         {"at_ns": S, "do": "scrub"},
                         {"at_ns": 3 * S, "do": "scrub"}]);
    let res = run(&pool("solaris-2009", mirror("sda", "sdb"), 16, actions));
    let log = res["actions"].as_array().unwrap();
    assert!(log.iter().all(|a| a["error"].is_null() && a["warning"].is_null()), "{log:?}");
    let s = |f: &str, st: &str| (String::from(f), String::from(st));
    assert_eq!(funcs_states(&res), vec![s("scrub", "canceled"), s("scrub", "finished")]);
    let scans = res["scans"].as_array().unwrap();
    assert!(scans[1]["start_ns"].as_u64().unwrap() >= 3 * S, "the second scrub starts over: {}", scans[1]);

    let actions = json!([{"at_ns": 0, "do": "fail", "disk": "sdb"},
                         {"at_ns": S, "do": "replace", "old": "sdb", "new": "sdc"},
                         {"at_ns": 4 * S, "do": "cancel"}]);
    let mut cfg = pool("solaris-2009", mirror("sda", "sdb"), 2, actions);
    cfg["stop_on_scan_done"] = json!(false);
    cfg["stop_ns"] = json!(60 * S);
    let res = run(&cfg);
    assert_eq!(funcs_states(&res), vec![s("resilver", "canceled")]);
    assert!(res["actions"].as_array().unwrap().iter().all(|a| a["warning"].is_null()));
    // The new disk got part of the data and stays in its replacing vdev.
    let sdc = leaf(&res, "sdc");
    let alloc = res["pool"]["vdevs"][0]["layout_alloc_bytes"].as_u64().unwrap();
    assert!(class_bytes(&sdc, "async_write") + class_bytes(&sdc, "scrub") < alloc, "{sdc}");
}

/// A resilver restart that finds nothing left to repair sets up a scrub (`dsl_scan_sync`:
/// func = SCRUB unless `vdev_resilver_needed`): the new disk detached before the txg its
/// `replace` scheduled the resilver for leaves only the failed, unwritable one.
#[test]
fn a_resilver_restart_with_nothing_to_repair_scrubs() {
    for release in ["zfs-0.7", "zfs-2.2"] {
        let actions = json!([{"at_ns": 0, "do": "fail", "disk": "sdb"},
                             {"at_ns": S, "do": "replace", "old": "sdb", "new": "sdc"},
                             {"at_ns": S + 10_000_000, "do": "detach", "disk": "sdc"}]);
        let res = run(&pool(release, mirror("sda", "sdb"), 1, actions));
        let s = |f: &str, st: &str| (String::from(f), String::from(st));
        assert_eq!(funcs_states(&res), vec![s("scrub", "finished")], "{release}");
    }
}

/// zfs-2.0's rebuild thread waits for three txg syncs (`txg_wait_synced(dsl, 0)`: open +
/// TXG_DEFER_SIZE, pushed at once) at every metaslab, issuing nothing new meanwhile; 2.1+
/// only at a metaslab the unsynced txgs allocated in (`vdev_rebuild_thread`; audit 5 F4).
/// 4 GiB on a 1 TB mirror: asize = 1 TB − 4.5 MiB of labels, 8 GiB metaslabs
/// (`vdev_metaslab_set_size`: highbit(asize / 200) = 33), 116 of them.
#[test]
fn zfs_2_0_rebuild_waits_three_txg_syncs_at_every_metaslab() {
    let mk = |release: &str, writes: bool| {
        let mut c = pool(release, mirror("sda", "sdb"), 4, replace_failed(true));
        c["pool"]["layout"] = json!({});
        if writes {
            c["workloads"] = json!([{"name": "w", "kind": "random-write", "sizes": [[131072, 1.0]], "rate_per_s": 20.0}]);
        }
        run(&c)
    };
    let (r20, r20w, r21, r21w) = (mk("zfs-2.0", false), mk("zfs-2.0", true), mk("zfs-2.1", false), mk("zfs-2.1", true));
    let f = |r: &Value, k: &str| r["rebuilds"][0][k].as_f64().unwrap();
    for r in [&r20, &r20w, &r21, &r21w] {
        assert_eq!(r["rebuilds"][0]["state"], "complete");
    }
    // 2.0: once per metaslab, empty ones included; each wait spans (at least) three syncs.
    for r in [&r20, &r20w] {
        assert_eq!(r["rebuilds"][0]["metaslab_waits"], 116);
        assert!(r["txg"]["syncs"].as_u64().unwrap() >= 3 * 116, "{}", r["txg"]);
        let per_wait = f(r, "metaslab_wait_ns") / 116.0;
        // The typical sync (the scrub's long ones after the rebuild aside).
        let sync = r["txg"]["sync_ns"]["p50"].as_f64().unwrap();
        assert!(per_wait > 2.5 * sync && per_wait < 4.0 * sync, "wait {per_wait} vs sync {sync}");
    }
    // 2.1 without writes: no unsynced allocation anywhere, no wait, few syncs.
    assert_eq!(r21["rebuilds"][0]["metaslab_waits"], 0);
    assert!(r21["txg"]["syncs"].as_u64().unwrap() < 20);
    // The idle 2.0 rebuild is longer than 2.1's by about its waits (2.0 keeps ≤ 20 chunks
    // in flight, 2.1 ≤ 64 MiB: both keep the disks busy).
    let extra = f(&r20, "duration_ns") - f(&r21, "duration_ns");
    assert!(extra > 0.7 * f(&r20, "metaslab_wait_ns") && extra < 1.3 * f(&r20, "metaslab_wait_ns"), "{extra}");
    // Under writes each sync carries their data: the waits grow, and the rebuild by as much
    // (beyond what the writes' own I/O costs 2.1, which does not wait).
    assert!(f(&r20w, "metaslab_wait_ns") > 1.2 * f(&r20, "metaslab_wait_ns"));
    let slower = (f(&r20w, "duration_ns") - f(&r20, "duration_ns")) - (f(&r21w, "duration_ns") - f(&r21, "duration_ns"));
    let waited = f(&r20w, "metaslab_wait_ns") - f(&r20, "metaslab_wait_ns");
    assert!(slower > 0.7 * waited && slower < 1.3 * waited, "slower by {slower}, waited {waited} more");
}

#[test]
fn chunks_a_rebuild_could_not_read_are_lost_and_the_scrub_after_it_finds_them() {
    // The mirror's other disk dies while the rebuild onto sdc runs: the chunks not yet
    // copied have no copy left (vrp_errors). sdc is still taken as whole when the rebuild
    // ends, but its copies there are garbage, so the scrub the rebuild starts reads them,
    // fails their checksums and lists them in the error log; a disk only offline would
    // still hold them.
    let mut actions = replace_failed(true);
    actions.as_array_mut().unwrap().push(json!({"at_ns": 20 * S, "do": "fail", "disk": "sda"}));
    let mut cfg = pool("zfs-2.2", mirror("sda", "sdb"), 8, actions);
    cfg["pool"]["layout"] = json!({"fragmentation": 0.0});
    let res = run(&cfg);
    let rb = &res["rebuilds"].as_array().unwrap()[0];
    assert_eq!(rb["state"], "complete");
    let (errors, chunks) = (rb["errors"].as_u64().unwrap(), rb["chunks"].as_u64().unwrap());
    assert!(errors > 0 && errors < chunks, "{errors} of {chunks} chunks unreadable");
    let last = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["scan"]["func"], "scrub");
    let scrub_errors = last["scan"]["errors"].as_u64().unwrap();
    // At most about 8 records of 128 KiB per failed 1 MiB chunk; fewer, since a lost
    // indirect block hides the blocks below it (`dsl_scan_recurse` counts one error and
    // skips its subtree).
    assert!(scrub_errors > 0 && scrub_errors <= 9 * errors, "scrub: {scrub_errors} blocks for {errors} chunks");
    // The error log lists each lost block once; the scrub's count is per block it met.
    let logged = last["errors"].as_u64().unwrap();
    assert!(logged <= scrub_errors && logged * 100 >= scrub_errors * 99, "{logged} logged, {scrub_errors} scrub errors");
    // The same with sda taken offline instead: nothing is lost.
    let mut actions = replace_failed(true);
    actions.as_array_mut().unwrap().push(json!({"at_ns": 20 * S, "do": "offline", "disk": "sda"}));
    actions.as_array_mut().unwrap().push(json!({"at_ns": 40 * S, "do": "online", "disk": "sda"}));
    let mut cfg = pool("zfs-2.2", mirror("sda", "sdb"), 8, actions);
    cfg["pool"]["layout"] = json!({"fragmentation": 0.0});
    let res = run(&cfg);
    let last = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["errors"].as_u64().unwrap_or(0), 0, "{}", last["errors"]);
}

/// QA 2026-11-28: a resilver asks of each block the top-level vdev's DTL_PARTIAL, the union
/// of its children's whether or not they can still be written (`dsl_scan_need_resilver`
/// DS@zfs-0.7.13, `vdev_default_need_resilver` VD@zfs-2.2.0). So when the new disk dies
/// mid-resilver the resilver goes on reading every block at disk speed (its writes fail);
/// it used to stop reading and "finish" within a second.
#[test]
fn a_new_disk_dying_mid_resilver_does_not_stop_the_reads() {
    for rel in ["zfs-0.7", "zfs-2.2"] {
        let three = json!([{"type": "mirror", "disks": [disk("sda"), disk("sdb"), disk("sdc")]}]);
        let base = json!([{"at_ns": 0, "do": "fail", "disk": "sdc"}, {"at_ns": S, "do": "replace", "old": "sdc", "new": "sdd"}]);
        let whole = run(&pool(rel, three.clone(), 8, base.clone()));
        let mut dies = base.as_array().unwrap().clone();
        dies.push(json!({"at_ns": 5 * S, "do": "fail", "disk": "sdd"}));
        let res = run(&pool(rel, three, 8, json!(dies)));
        let (w, d) = (&whole["scan"], &res["scan"]);
        let bytes = |r: &Value, n: &str| leaf(r, n)["classes"].as_object().unwrap().values().map(|c| c["bytes"].as_u64().unwrap()).sum::<u64>();
        let read = |r: &Value| bytes(r, "sda") + bytes(r, "sdb");
        eprintln!("{rel}: whole {} s read {}; dies {} s read {}", w["end_ns"].as_u64().unwrap() / S, read(&whole), d["end_ns"].as_u64().unwrap() / S, read(&res));
        // The same blocks are read from the two survivors, taking about as long.
        assert!(read(&res) * 10 >= read(&whole) * 9, "{rel}: {} vs {}", read(&res), read(&whole));
        assert!(d["end_ns"].as_u64().unwrap() * 10 >= w["end_ns"].as_u64().unwrap() * 8, "{rel}");
        // and nothing reaches the dead disk after it died.
        assert!(bytes(&res, "sdd") < bytes(&whole, "sdd") / 2, "{rel}");
    }
}

/// Every txg of a running scan rewrites the scan's state in the MOS directory's ZAP leaf
/// (`dsl_scan_sync_state` → `zap_update`, DS@zfs-0.7.13 and @zfs-2.2.0), and so the MOS
/// dnode block and the MOS objset above it: three blocks, three copies each, in a scrub of
/// an idle pool that writes nothing else. Their allocations and the frees of their previous
/// copies reach the space maps (0.7: the metaslabs' own; 2.2: the log space map).
#[test]
fn a_scanning_txg_writes_the_scan_state_and_the_mos_root() {
    for rel in ["zfs-0.7", "zfs-2.2"] {
        let res = run(&pool(rel, mirror("sda", "sdb"), 2, json!([{"at_ns": S, "do": "scrub"}])));
        let t = &res["txg"];
        let g = |k: &str| t[k].as_u64().unwrap();
        let (syncs, sm, blocks) = (g("syncs"), g("space_map_blocks"), g("metadata_blocks"));
        let mos = blocks - sm;
        assert_eq!(mos % 9, 0, "{rel}: {t}");
        // Every sync but the scan's setup txg and the last, which may not be scanning.
        assert!(syncs >= 3 && mos >= 9 * (syncs - 2) && mos <= 9 * syncs, "{rel}: {t}");
        assert!(sm > 0 && sm % 3 == 0, "{rel}: {t}");
    }
}

/// A sequential rebuild rewrites its state in the top-level vdev's ZAP in every txg that
/// issued a range (`vdev_rebuild_range` → `vdev_rebuild_update_sync`, VR@zfs-2.1.0 and
/// @zfs-2.2.0): without the scrub after it, the txgs of a rebuild of an idle pool write
/// that leaf and the MOS root above it, nothing in a txg that issued nothing.
#[test]
fn a_rebuilding_txg_writes_the_rebuild_state() {
    for rel in ["zfs-2.1", "zfs-2.2"] {
        let mut cfg = pool(rel, mirror("sda", "sdb"), 2, replace_failed(true));
        cfg["tunables"] = json!({"zfs_rebuild_scrub_enabled": 0});
        let res = run(&cfg);
        assert_eq!(res["rebuilds"][0]["state"], "complete", "{rel}");
        assert!(res["scans"].as_array().is_none_or(|a| a.is_empty()), "{rel}: {}", res["scans"]);
        let t = &res["txg"];
        let g = |k: &str| t[k].as_u64().unwrap();
        let mos = g("metadata_blocks") - g("space_map_blocks");
        assert!(mos >= 9 && mos % 9 == 0 && mos <= 9 * g("syncs"), "{rel}: {t}");
        // The new disk gets copies of them besides its rebuild writes.
        assert!(class_bytes(&leaf(&res, "sdc"), "async_write") > 0, "{rel}");
    }
}

#[test]
fn a_replacing_vdev_with_every_child_gone_says_insufficient_replicas() {
    // sdb fails, sdc replaces it and fails too: replacing-1 has no child left
    // (vdev_mirror_state_change: CANT_OPEN, VDEV_AUX_NO_REPLICAS), as a mirror would.
    let res = run(&pool("zfs-2.2", json!([{"type": "raidz2", "disks": [disk("sda"), disk("sdb"), disk("sdx"), disk("sdy")]}]), 1, json!([
        {"at_ns": 0, "do": "fail", "disk": "sdb"},
        {"at_ns": S, "do": "replace", "old": "sdb", "new": "sdc"},
        {"at_ns": 2 * S, "do": "fail", "disk": "sdc"}
    ])));
    let last = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    let row = tree_names(&last).into_iter().find(|r| r.1 == "replacing-1").expect("replacing-1");
    assert_eq!((row.2.as_str(), row.3.as_str()), ("UNAVAIL", "insufficient replicas"));
}

#[test]
fn a_replacement_that_fails_mid_resilver_can_itself_be_replaced() {
    // sdb fails; sdc replaces it and dies mid-resilver; `zpool replace tank sdc sdd`.
    // From pool version 26 (SPA_VERSION_MULTI_REPLACE) spa_vdev_attach takes it into
    // replacing-1; once sdd is resilvered the others are detached. solaris-2009 refuses.
    let actions = |at_fail: u64| json!([
        {"at_ns": 0, "do": "fail", "disk": "sdb"},
        {"at_ns": S, "do": "replace", "old": "sdb", "new": "sdc"},
        {"at_ns": at_fail, "do": "fail", "disk": "sdc"},
        {"at_ns": at_fail + S, "do": "replace", "old": "sdc", "new": "sdd"}
    ]);
    let raidz = || json!([{"type": "raidz2", "disks": [disk("sda"), disk("sdb"), disk("sdx"), disk("sdy")]}]);
    let res = run(&pool("zfs-2.2", raidz(), 4, actions(3 * S)));
    let log = res["actions"].as_array().unwrap();
    assert!(log.iter().all(|a| a["error"].is_null()), "{log:?}");
    assert_eq!(res["scan"]["state"], "finished", "{}", res["scan"]);
    let last = res["status"]["snapshots"].as_array().unwrap().last().unwrap().clone();
    let names: Vec<String> = tree_names(&last).into_iter().map(|r| r.1).collect();
    assert!(names.contains(&"sdd".to_string()) && !names.iter().any(|n| n == "sdb" || n == "sdc" || n.starts_with("replacing")), "{names:?}");
    assert_eq!(last["state"], "ONLINE");
    assert!(class_bytes(&leaf(&res, "sdd"), "async_write") > 1 << 30, "sdd was resilvered");
    let old = run(&pool("solaris-2009", raidz(), 1, actions(3 * S)));
    let log = old["actions"].as_array().unwrap();
    assert_eq!(log[3]["error"], "cannot replace sdc with sdd: cannot replace a replacing device", "{log:?}");
}

//! Sync writes through the whole model: txg engine, ZIL, cache flushes (issue "Sync writes").
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_model::device::presets;

fn preset(name: &str) -> Value {
    serde_json::to_value(presets::get(name).unwrap()).unwrap()
}

/// One 7200 rpm disk, a 4 KiB fsync loop with `threads` writers.
fn fsync_loop(release: &str, threads: u32, stop_s: u64) -> Value {
    let mut cfg = config(
        release,
        preset("hdd-7200-sata-2014"),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        // The file's records are in the ARC: no read before each 4K overwrite (these tests
        // are about the log, not dmu_buf_will_dirty).
        json!([{"name": "db", "kind": "fsync-write", "sizes": [[4096, 1.0]], "threads": threads, "arc_hit_ratio": 1.0}]),
        stop_s,
    );
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg
}

fn wl(res: &Value) -> &Value {
    &res["workloads"][0]
}

#[test]
fn single_thread_fsync_loop_is_one_write_and_one_flush_per_commit() {
    let res = run(&fsync_loop("zfs-2.2", 1, 20));
    let ops_per_s = wl(&res)["ops_per_s"].as_f64().unwrap();
    let z = &res["zil"];
    let commits = z["commits"].as_u64().unwrap();
    let lwbs = z["lwb_writes"].as_u64().unwrap();
    let flushes = z["leaf_flushes"].as_u64().unwrap();
    eprintln!("1 thread: {ops_per_s:.1} ops/s, commits {commits}, lwbs {lwbs}, flushes {flushes}; zil {z}");
    // Bounded by one write plus one flush per commit on a 7200 rpm disk: tens to low hundreds.
    assert!((20.0..=300.0).contains(&ops_per_s), "{ops_per_s} ops/s");
    // One lwb write and one flush per commit (within the run's edges).
    let c = commits as f64;
    assert!((lwbs as f64 - c).abs() <= 0.05 * c + 2.0, "lwbs {lwbs} vs commits {commits}");
    assert!((flushes as f64 - c).abs() <= 0.05 * c + 2.0, "flushes {flushes} vs commits {commits}");
    assert_eq!(z["at_risk"]["bytes_max"].as_u64().unwrap(), 0);
}

#[test]
fn sixteen_threads_group_commit() {
    let one = run(&fsync_loop("zfs-2.2", 1, 20));
    let many = run(&fsync_loop("zfs-2.2", 16, 20));
    let r1 = wl(&one)["ops_per_s"].as_f64().unwrap();
    let r16 = wl(&many)["ops_per_s"].as_f64().unwrap();
    let z = &many["zil"];
    let commits = z["commits"].as_u64().unwrap() as f64;
    let flushes = z["leaf_flushes"].as_u64().unwrap() as f64;
    eprintln!("16 threads: {r16:.1} ops/s vs {r1:.1}; commits {commits}, flushes {flushes}");
    // Many commits share one lwb write and one flush.
    assert!(r16 > 3.0 * r1, "16 threads {r16} vs 1 thread {r1}");
    assert!(flushes < commits / 3.0, "flushes {flushes} commits {commits}");
}

/// zfs-2.3.0: 16 fsync threads on one disk share lwbs through the parallel detection of
/// `zil_process_commit_list` (a commit behind an unflushed lwb leaves its lwb open for
/// 10 % of the lwb latency), as in 2.2, so commits outnumber flushes severalfold.
#[test]
fn zfs23_sixteen_threads_share_lwbs() {
    let one = run(&fsync_loop("zfs-2.3", 1, 20));
    let many = run(&fsync_loop("zfs-2.3", 16, 20));
    let r1 = wl(&one)["ops_per_s"].as_f64().unwrap();
    let r16 = wl(&many)["ops_per_s"].as_f64().unwrap();
    let z = &many["zil"];
    let commits = z["commits"].as_u64().unwrap() as f64;
    let lwbs = z["lwb_writes"].as_u64().unwrap() as f64;
    let flushes = z["leaf_flushes"].as_u64().unwrap() as f64;
    eprintln!("zfs-2.3 16 threads: {r16:.1} ops/s vs {r1:.1}; commits {commits}, lwbs {lwbs}, flushes {flushes}");
    assert!(r16 > 3.0 * r1, "16 threads {r16} vs 1 thread {r1}");
    assert!(lwbs < commits / 3.0, "lwbs {lwbs} commits {commits}");
    assert!(flushes < commits / 3.0, "flushes {flushes} commits {commits}");
    // A lone thread is never parallel: one lwb and one flush per commit, no waiting.
    let z1 = &one["zil"];
    let c1 = z1["commits"].as_u64().unwrap() as f64;
    assert!((z1["leaf_flushes"].as_u64().unwrap() as f64 - c1).abs() <= 0.05 * c1 + 2.0, "{z1}");
}

#[test]
fn sync_disabled_puts_acknowledged_bytes_at_risk() {
    let mut cfg = fsync_loop("zfs-2.2", 1, 20);
    cfg["sync"] = json!("disabled");
    // 100 writes/s: the txg timeout, not dirty data, decides when a txg syncs.
    cfg["workloads"][0]["think_ns"] = json!(10_000_000u64);
    let res = run(&cfg);
    let z = &res["zil"];
    assert_eq!(z["lwb_writes"].as_u64().unwrap(), 0);
    assert!(z["at_risk"]["bytes_max"].as_u64().unwrap() > 0, "{z}");
    // At most zfs_txg_timeout (5 s) plus one sync of exposure.
    let w = z["at_risk"]["window_ns_max"].as_u64().unwrap();
    assert!(w > 1_000_000_000 && w < 8_000_000_000, "{w}");
    assert!(z["at_risk"]["bytes_mean"].as_f64().unwrap() > 0.0);
}

#[test]
fn plp_slog_makes_commits_fast() {
    let mut cfg = fsync_loop("zfs-2.2", 1, 10);
    cfg["devices"]["slog"] = preset("intel-s3700");
    cfg["pool"]["log"] = json!([{"type": "disk", "disks": [{"name": "sdb", "device": "slog"}]}]);
    let res = run(&cfg);
    let r = wl(&res)["ops_per_s"].as_f64().unwrap();
    eprintln!("S3700 SLOG: {r:.0} ops/s; zil {}", res["zil"]);
    assert!(r > 1000.0, "{r}");
}

/// Eight fsync writers rewriting a 32 MiB hot region in 128K records with a PLP SLOG, 4 GiB
/// of RAM: dirty data stays small (a record is charged once a txg), but every write is
/// logged (NEED_COPY). From 2.2 `dsl_pool_wrlog_count` kicks a txg's sync once its logged
/// bytes pass zfs_wrlog_data_max × (zfs_dirty_data_sync_percent + 10) / 200 ≈ 123 MiB, so
/// syncs follow the log and the logged bytes never reach the wrlog delay.
fn wrlog_writer(release: &str) -> Value {
    let mut cfg = fsync_loop(release, 8, 30);
    cfg["ram_bytes"] = json!(4u64 << 30);
    cfg["workloads"][0]["sizes"] = json!([[131072, 1.0]]);
    cfg["workloads"][0]["region_length_bytes"] = json!(32u64 << 20);
    cfg["devices"]["slog"] = preset("intel-s3700");
    cfg["pool"]["log"] = json!([{"type": "disk", "disks": [{"name": "sdb", "device": "slog"}]}]);
    cfg
}

#[test]
fn from_2_2_logged_bytes_kick_the_txg_sync() {
    let new = run(&wrlog_writer("zfs-2.2"));
    let old = run(&wrlog_writer("zfs-2.1"));
    let (tn, to) = (&new["txg"], &old["txg"]);
    eprintln!("2.2 {} ops/s {tn}\n2.1 {} ops/s {to}", wl(&new)["ops_per_s"], wl(&old)["ops_per_s"]);
    // 2.1: only the 5 s timeout syncs (dirty data never reaches its threshold).
    assert!(to["syncs"].as_u64().unwrap() <= 7, "{to}");
    // 2.2: a sync every ~123 MiB logged — tens in 30 s — and no wrlog delay.
    assert!(tn["syncs"].as_u64().unwrap() >= 20, "{tn}");
    assert_eq!(tn["delayed_writes"].as_u64().unwrap(), 0, "{tn}");
    let (rn, ro) = (wl(&new)["ops_per_s"].as_f64().unwrap(), wl(&old)["ops_per_s"].as_f64().unwrap());
    assert!(rn > 0.8 * ro, "{rn} vs {ro}");
}

/// An NFS small-file copy on solaris-2009: every file waits for ZIL commits (CREATE,
/// COMMIT, SETATTR); with zil_disable none, and the copied bytes are at risk instead.
fn nfs_copy(zil_disable: bool) -> Value {
    let mut cfg = config(
        "solaris-2009",
        preset("hdd-7200-desktop-2009"),
        json!([{"type": "mirror", "disks": [{"name": "c0d0", "device": "d"}, {"name": "c0d1", "device": "d"}]}]),
        json!([{"name": "cp", "kind": "nfs-copy", "sizes": [[4096, 0.5], [65536, 0.5]], "threads": 1, "files": 300}]),
        120,
    );
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    if zil_disable {
        cfg["tunables"] = json!({"zil_disable": 1});
    }
    cfg
}

#[test]
fn nfs_copy_waits_for_the_zil_and_zil_disable_trades_it_for_risk() {
    let on = run(&nfs_copy(false));
    let off = run(&nfs_copy(true));
    let t = |r: &Value| r["workloads"][0]["finished_ns"].as_f64().unwrap();
    assert_eq!(on["workloads"][0]["finished"], json!(true));
    assert_eq!(off["workloads"][0]["files_done"], json!(300));
    // Three commits per file, each a log write plus flushes on a 7200 rpm mirror.
    assert!(t(&on) > 5.0 * t(&off), "ZIL {} s vs zil_disable {} s", t(&on) / 1e9, t(&off) / 1e9);
    assert_eq!(on["zil"]["at_risk"]["bytes_max"].as_u64().unwrap(), 0);
    assert!(off["zil"]["at_risk"]["bytes_max"].as_u64().unwrap() > 0);
    assert_eq!(off["zil"]["lwb_writes"].as_u64().unwrap(), 0);
}

/// The client's own source disk (`source`): every file's data (plus a directory block and
/// one inode-table block per 32 files) is read cold from a 2009 desktop disk before its
/// WRITEs. The copy grows by those reads, which stay off the pool.
#[test]
fn nfs_copy_source_disk_adds_one_cold_read_per_file_and_stays_off_the_pool() {
    let base = nfs_copy(true);
    let mut with = base.clone();
    with["devices"]["client"] = preset("hdd-7200-desktop-2009");
    with["workloads"][0]["source"] = json!("client");
    let (a, b) = (run(&base), run(&with));
    let t = |r: &Value| r["workloads"][0]["finished_ns"].as_f64().unwrap();
    assert_eq!(b["workloads"][0]["finished"], json!(true));
    assert_eq!(b["workloads"][0]["files_done"], json!(300));
    assert!(a["workloads"][0]["source"].is_null());
    let s = &b["workloads"][0]["source"];
    eprintln!("no source {:.2} s, with source {:.2} s; source {s}", t(&a) / 1e9, t(&b) / 1e9);
    // 300 data reads; one directory: its entry block and ceil(300/32) = 10 inode blocks.
    assert_eq!(s["data_reads"], json!(300));
    assert_eq!(s["meta_reads"], json!(11));
    assert_eq!(s["device"], json!("client"));
    // A random read on a 7200 rpm desktop disk: a seek plus half a turn (~4 ms), ~8–20 ms.
    let mean = s["latency_ns"]["mean"].as_f64().unwrap();
    assert!((6e6..=25e6).contains(&mean), "mean source read {mean} ns");
    // One thread: the copy is longer by the sum of its source reads (±15%: the shift moves
    // txg syncs against the RPCs).
    let added = t(&b) - t(&a);
    let reads = s["reads"].as_f64().unwrap() * mean;
    assert!((added - reads).abs() < 0.15 * reads, "copy grew {added} ns, source reads took {reads} ns");
    // Not pool I/O: same leaves, and the pool reads nothing more.
    let leaves = |r: &Value| r["leaves"].as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    assert_eq!(leaves(&a), leaves(&b));
    let reads_of = |r: &Value| -> u64 {
        r["leaves"].as_array().unwrap().iter()
            .flat_map(|l| l["classes"].as_object().unwrap().iter().filter(|(k, _)| k.contains("read")).map(|(_, c)| c["ops"].as_u64().unwrap()).collect::<Vec<_>>())
            .sum()
    };
    assert_eq!(reads_of(&a), reads_of(&b));
    // Deterministic: the same scenario gives the same source figures.
    assert_eq!(run(&with)["workloads"][0]["source"], *s);
}

/// Writers faster than one disk: the 2013+ delay curve delays them (dmu_tx_delay) and the
/// pre-2013 write limit makes them wait for the next txg.
fn flood(release: &str) -> Value {
    let mut cfg = config(
        release,
        preset("hdd-7200-sata-2014"),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "w", "kind": "seq-write", "sizes": [[131072, 1.0]], "threads": 4}]),
        30,
    );
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["ram_bytes"] = json!(2u64 << 30);
    cfg
}

#[test]
fn write_throttle_delays_writers_to_the_disks_pace() {
    let res = run(&flood("zfs-2.2"));
    let t = &res["txg"];
    assert!(t["delayed_writes"].as_u64().unwrap() > 100, "{t}");
    // Throughput settles at what the disk takes, not memory speed.
    let bps = res["workloads"][0]["bytes_per_s"].as_f64().unwrap();
    eprintln!("zfs-2.2 flood: {bps:.0} B/s, txg {t}");
    assert!(bps < 400e6, "{bps}");
    let old = run(&flood("solaris-2009"));
    assert!(old["txg"]["blocked_writes"].as_u64().unwrap() > 0, "{}", old["txg"]);
}

/// spa_sync's `vdev_config_sync`: after a txg's data, a cache flush of every leaf written,
/// the uberblock into 4 labels per leaf, then a flush of those leaves. On a disk with a
/// write-back cache the first flush destages what the txg left in the cache (ms), on a
/// PLP SSD it is an acknowledgement (µs); `zfs_nocacheflush` drops both.
fn txg_writer(device: &str, nocacheflush: bool) -> Value {
    let mut cfg = config(
        "zfs-2.2",
        preset(device),
        json!([{"type": "mirror", "disks": [{"name": "a", "device": "d"}, {"name": "b", "device": "d"}]}]),
        json!([{"name": "w", "kind": "random-write", "sizes": [[131072, 1.0]], "rate_per_s": 50.0}]),
        30,
    );
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    if nocacheflush {
        cfg["tunables"] = json!({"zfs_nocacheflush": 1});
    }
    cfg
}

#[test]
fn txg_sync_flushes_written_leaves_around_the_uberblock() {
    let hdd = run(&txg_writer("hdd-7200-sata-2014", false));
    let t = &hdd["txg"];
    let syncs = t["syncs"].as_u64().unwrap();
    let flushes = t["leaf_flushes"].as_u64().unwrap();
    eprintln!("hdd txg: {t}");
    assert!(syncs >= 4, "{t}");
    // Two leaves, two flushes each per sync (data, then uberblock).
    assert_eq!(flushes, 4 * syncs, "{t}");
    // No ZIL activity: the ZIL's own flush count stays zero.
    assert_eq!(hdd["zil"]["leaf_flushes"].as_u64().unwrap(), 0);
    let hdd_flush_ns = t["flush_ns_sum"].as_u64().unwrap() / syncs;
    assert!(hdd_flush_ns > 1_000_000, "HDD flush phases {hdd_flush_ns} ns per sync");
    let off = run(&txg_writer("hdd-7200-sata-2014", true));
    assert_eq!(off["txg"]["leaf_flushes"].as_u64().unwrap(), 0);
    assert_eq!(off["txg"]["flush_ns_sum"].as_u64().unwrap(), 0);
    let mean = |r: &Value| r["txg"]["sync_ns"]["mean"].as_f64().unwrap();
    assert!(mean(&off) < mean(&hdd), "nocacheflush {} vs {}", mean(&off), mean(&hdd));
    let ssd = run(&txg_writer("intel-s3700", false));
    let s = &ssd["txg"];
    let ssd_flush_ns = s["flush_ns_sum"].as_u64().unwrap() / s["syncs"].as_u64().unwrap();
    eprintln!("ssd txg: {s}");
    assert!(ssd_flush_ns < hdd_flush_ns / 10, "PLP {ssd_flush_ns} vs HDD {hdd_flush_ns}");
}

/// A database on a 7200 rpm mirror: every transaction's commit is a ZIL commit (WAL
/// fdatasync), page reads hit the ARC at the given ratio, and checkpoints write back the
/// dirtied pages and fsync them. A PLP SLOG takes the commits off the disks.
fn database(slog: bool) -> Value {
    let mut cfg = config(
        "zfs-2.2",
        preset("hdd-7200-sata-2014"),
        json!([{"type": "mirror", "disks": [{"name": "a", "device": "d"}, {"name": "b", "device": "d"}]}]),
        json!([{"name": "pg", "kind": "database", "sizes": [[8192, 1.0]], "threads": 8, "arc_hit_ratio": 0.9,
                "checkpoint_ns": 10_000_000_000u64, "checkpoint_spread": 0.5}]),
        40,
    );
    cfg["pool"]["recordsize_bytes"] = json!(8192);
    if slog {
        cfg["devices"]["slog"] = preset("intel-s3700");
        cfg["pool"]["log"] = json!([{"type": "disk", "disks": [{"name": "s", "device": "slog"}]}]);
    }
    cfg
}

#[test]
fn database_commits_through_the_zil_and_checkpoints_write_back() {
    let res = run(&database(false));
    let w = wl(&res);
    let db = &w["db"];
    eprintln!("database: {} txn/s, db {}", w["ops_per_s"], db);
    let txns = w["ops"].as_u64().unwrap();
    assert!(txns > 100, "{w}");
    // One commit per transaction (plus one per checkpoint), 4 page reads each.
    assert_eq!(db["commits"]["ops"].as_u64().unwrap(), txns);
    let commits = res["zil"]["commits"].as_u64().unwrap();
    let ckpts = db["checkpoints"]["done"].as_u64().unwrap();
    assert!(ckpts >= 2, "{db}");
    assert!(commits >= txns + ckpts && commits <= txns + ckpts + 8, "{commits} vs {txns} + {ckpts}");
    let reads = db["reads"]["ops"].as_u64().unwrap();
    assert!(reads >= 4 * txns && reads <= 4 * txns + 32, "{reads}");
    let hit = w["arc_hits"].as_f64().unwrap() / reads as f64;
    assert!((hit - 0.9).abs() < 0.03, "ARC hit share {hit}");
    // Checkpoints write what the transactions dirtied: 3 pages each.
    let pages = db["checkpoints"]["pages"].as_u64().unwrap() + db["dirty_pages_at_end"].as_u64().unwrap();
    assert!(pages >= 3 * txns && pages <= 3 * txns + 24, "{pages} vs {txns}");
    // A checkpoint spread over 5 s takes at least that long.
    assert!(db["checkpoints"]["duration_ns"]["min"].as_u64().unwrap() >= 4_900_000_000);
    // Commits on the disks cost milliseconds; on a PLP SLOG a fraction of that.
    let p50 = |r: &Value| wl(r)["db"]["commits"]["latency_ns"]["p50"].as_f64().unwrap();
    let fast = run(&database(true));
    assert!(p50(&fast) * 5.0 < p50(&res), "SLOG {} vs disks {}", p50(&fast), p50(&res));
    assert!(wl(&fast)["ops_per_s"].as_f64().unwrap() > 2.0 * w["ops_per_s"].as_f64().unwrap());
}

/// The checkpointer is one process writing one page at a time: its writes never pile up
/// in the write throttle ahead of the sessions' WAL writes. With sync=disabled a commit
/// is a WAL write that can only wait for the throttle: behind one checkpoint write and
/// the other sessions' at most, ~17 × zfs_delay_max_ns. (QA 2026-11-28: all pages due in
/// a 100 ms tick went out at once, and commits waited up to 4.4 s.)
#[test]
fn checkpoint_writes_go_one_at_a_time() {
    let mut cfg = database(false);
    cfg["workloads"][0]["threads"] = json!(16);
    cfg["workloads"][0]["checkpoint_spread"] = json!(0.9);
    cfg["sync"] = json!("disabled");
    cfg["stop_ns"] = json!(30_000_000_000u64);
    let res = run(&cfg);
    let db = &wl(&res)["db"];
    eprintln!("{db}");
    assert!(db["checkpoints"]["done"].as_u64().unwrap() >= 1, "{db}");
    let max = db["commits"]["latency_ns"]["max"].as_u64().unwrap();
    assert!(max < 1_700_000_000, "a commit waited {max} ns");
}

/// A data disk may be named `log` or `cache`: what a leaf is comes from where the scenario
/// put it, not from its name, so the ZIL still flushes it after every commit.
#[test]
fn a_data_disk_named_log_is_flushed_like_any_data_disk() {
    for name in ["log", "cache"] {
        let mut cfg = fsync_loop("zfs-2.2", 1, 5);
        cfg["pool"]["vdevs"][0]["disks"][0]["name"] = json!(name);
        let res = run(&cfg);
        let z = &res["zil"];
        let (commits, flushes) = (z["commits"].as_u64().unwrap(), z["leaf_flushes"].as_u64().unwrap());
        // (The name seeds the disk's own random stream, so the counts differ a little from
        // a disk named sda; one flush per commit is the invariant.)
        assert!(commits > 20, "{name}: {z}");
        assert!(flushes + 2 >= commits && flushes <= commits + 2, "{name}: {flushes} flushes, {commits} commits");
    }
}

/// A VM writing 4 KiB blocks to a zvol (16K volblocksize) on one 7200 rpm disk, zfs-2.2.
fn zvol(fua: bool, flush_every: u32, sync: &str) -> Value {
    let mut cfg = config(
        "zfs-2.2",
        preset("hdd-7200-sata-2014"),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "vm", "kind": "zvol", "sizes": [[4096, 1.0]], "threads": 1, "fua": fua, "flush_every": flush_every, "arc_hit_ratio": 1.0}]),
        20,
    );
    cfg["pool"]["recordsize_bytes"] = json!(16384);
    cfg["sync"] = json!(sync);
    cfg
}

#[test]
fn zvol_fua_writes_commit_each_and_flushes_commit_every_nth() {
    let fua = run(&zvol(true, 0, "standard"));
    let (ops, z) = (wl(&fua)["ops"].as_u64().unwrap(), &fua["zil"]);
    let commits = z["commits"].as_u64().unwrap();
    eprintln!("fua: {ops} ops, zil {z}");
    // Every FUA write is one commit: one log block and one flush, like an O_DSYNC file.
    assert!(commits.abs_diff(ops) <= 2, "commits {commits} vs ops {ops}");
    let ops_per_s = wl(&fua)["ops_per_s"].as_f64().unwrap();
    assert!((20.0..=300.0).contains(&ops_per_s), "{ops_per_s} ops/s");
    assert_eq!(z["indirect_writes"], 0, "4K writes into 16K blocks are copied into the log");
    // A flush after every 8th buffered write: one commit per 8 writes, much faster.
    let fl = run(&zvol(false, 8, "standard"));
    let (ops8, c8) = (wl(&fl)["ops"].as_u64().unwrap(), fl["zil"]["commits"].as_u64().unwrap());
    assert!(c8.abs_diff(ops8 / 8) <= 2, "commits {c8} vs ops {ops8} / 8");
    assert!(ops8 > 4 * ops, "flush every 8: {ops8} ops vs FUA {ops}");
    // Buffered writes and no flushes never touch the log.
    let none = run(&zvol(false, 0, "standard"));
    assert_eq!(none["zil"]["commits"], 0);
    assert_eq!(none["zil"]["at_risk"]["bytes_max"], 0);
    // sync=always commits every write even without FUA; sync=disabled acknowledges FUA
    // writes at once and puts their bytes at risk.
    let always = run(&zvol(false, 0, "always"));
    let (ops_a, c_a) = (wl(&always)["ops"].as_u64().unwrap(), always["zil"]["commits"].as_u64().unwrap());
    assert!(c_a.abs_diff(ops_a) <= 2, "sync=always: commits {c_a} vs ops {ops_a}");
    let off = run(&zvol(true, 0, "disabled"));
    assert!(off["zil"]["at_risk"]["bytes_max"].as_u64().unwrap() > 0);
    assert!(wl(&off)["ops"].as_u64().unwrap() > 10 * ops);
}

#[test]
fn zvol_is_refused_with_a_filesystem_workload_and_before_freebsd_9() {
    let mut cfg = zvol(true, 0, "standard");
    cfg["workloads"].as_array_mut().unwrap().push(json!({"name": "db", "kind": "fsync-write", "sizes": [[4096, 1.0]], "threads": 1}));
    let e = ziosim_model::config::RunConfig::from_json(&cfg.to_string()).err().unwrap();
    assert!(e.starts_with("workload[0].kind: zvol — the dataset is then a volume, which db (fsync-write) cannot use"), "{e}");
    let mut cfg = zvol(true, 0, "standard");
    cfg["release"] = json!("solaris-2009");
    let e = ziosim_model::config::RunConfig::from_json(&cfg.to_string()).err().unwrap();
    assert!(e.starts_with("workload[0].kind: zvol — allowed: from release freebsd-9"), "{e}");
    let mut cfg = fsync_loop("zfs-2.2", 1, 1);
    cfg["workloads"][0]["fua"] = json!(true);
    let e = ziosim_model::config::RunConfig::from_json(&cfg.to_string()).err().unwrap();
    assert!(e.starts_with("workload[0].fua: true — applies to zvol only"), "{e}");
}

/// PostgreSQL's 8 KiB pages in 128 KiB records: every checkpoint write the ARC does not
/// cover reads its record first (`dmu_buf_will_dirty`); with 8 KiB records none does.
#[test]
fn database_checkpoint_pages_in_larger_records_are_read_first() {
    let mut big = database(false);
    big["pool"]["recordsize_bytes"] = json!(131072);
    let res = run(&big);
    let w = wl(&res);
    let pages = w["db"]["checkpoints"]["pages"].as_u64().unwrap();
    let rmw = w["rmw_reads"].as_u64().unwrap();
    // arc_hit 0.9: about a tenth of the pages' records are read (a page's record can also
    // be the previous write's).
    let share = rmw as f64 / pages as f64;
    assert!((0.05..0.15).contains(&share), "{rmw} reads for {pages} checkpoint pages");
    assert_eq!(wl(&run(&database(false)))["rmw_reads"], 0, "8K pages in 8K records");
}

/// What a SLOG must hold: log blocks stay allocated until the txg of their records has
/// synced (`zil_sync`) and their space is reusable only `TXG_DEFER_SIZE` (2) txgs later.
/// So the peak grows with the txg interval, is zero without a log, and fits between one
/// interval's worth of log writes and the whole run's.
#[test]
fn log_space_peak_follows_the_txg_interval() {
    let slog_loop = |timeout_s: u64, sync: &str| {
        let mut cfg = fsync_loop("zfs-2.2", 1, 60);
        cfg["devices"]["slog"] = preset("intel-s3700");
        cfg["pool"]["log"] = json!([{"type": "disk", "disks": [{"name": "sdb", "device": "slog"}]}]);
        cfg["tunables"] = json!({"zfs_txg_timeout": timeout_s});
        cfg["sync"] = json!(sync);
        // 4 KiB records in a 64 MiB file (16 indirect blocks, soon all dirty): 2 MB/s of
        // dirty data, so the timeout, not the dirty threshold, ends each txg.
        cfg["pool"]["recordsize_bytes"] = json!(4096);
        cfg["workloads"][0]["region_length_bytes"] = json!(64u64 << 20);
        // A steady 500 commits/s, well under what the S3700 takes.
        cfg["workloads"][0]["think_ns"] = json!(2_000_000u64);
        run(&cfg)
    };
    let r5 = slog_loop(5, "standard");
    let r10 = slog_loop(10, "standard");
    let z5 = &r5["zil"];
    let peak5 = z5["log_space_bytes_max"].as_u64().unwrap() as f64;
    let peak10 = r10["zil"]["log_space_bytes_max"].as_u64().unwrap() as f64;
    let lwbs = z5["lwb_writes"].as_u64().unwrap() as f64;
    eprintln!("log space: timeout 5 s {peak5}, 10 s {peak10}; lwbs {lwbs}; zil {z5}");
    // Every lwb allocates at least ZIL_MIN_BLKSZ (4 KiB); 60 s of them at ~500/s.
    let per_s = lwbs / 60.0;
    assert!(peak5 >= per_s * 5.0 * 4096.0, "peak {peak5} under one txg interval of lwbs");
    assert!(peak5 < lwbs * 128.0 * 1024.0, "peak {peak5} over every lwb ever written");
    assert!(peak10 > 1.5 * peak5, "10 s txgs {peak10} vs 5 s {peak5}");
    let off = slog_loop(5, "disabled");
    assert_eq!(off["zil"]["log_space_bytes_max"].as_u64().unwrap(), 0);
}

/// A log vdev's `vs_alloc` (`zpool iostat -v`'s `alloc` of its row) is the space its log
/// blocks hold: over the run its interval samples stay at or under the peak, reach a few
/// txgs' worth of log writes while the writer runs, and fall to 0 once the writer has
/// stopped and three txgs have synced. Two log vdevs take turns and hold alike.
#[test]
fn a_log_vdevs_allocation_is_what_its_log_blocks_hold() {
    let mut cfg = fsync_loop("zfs-2.2", 1, 60);
    cfg["devices"]["slog"] = preset("intel-s3700");
    cfg["pool"]["log"] = json!([{"type": "disk", "disks": [{"name": "sdb", "device": "slog"}]},
                                {"type": "disk", "disks": [{"name": "sdc", "device": "slog"}]}]);
    cfg["pool"]["recordsize_bytes"] = json!(4096);
    cfg["workloads"][0]["region_length_bytes"] = json!(64u64 << 20);
    cfg["workloads"][0]["think_ns"] = json!(2_000_000u64);
    cfg["workloads"][0]["stop_ns"] = json!(40_000_000_000u64);
    cfg["report_interval_ns"] = json!(5_000_000_000u64);
    let res = run(&cfg);
    let peak = res["zil"]["log_space_bytes_max"].as_u64().unwrap();
    let ntops = res["pool"]["vdevs"].as_array().unwrap().len();
    let tops = res["series"]["tops"].as_array().unwrap();
    assert_eq!(tops.len(), ntops + 2);
    let held = |t: usize| -> Vec<u64> { tops[t]["alloc_bytes"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect() };
    let (a, b) = (held(ntops), held(ntops + 1));
    eprintln!("log vdevs hold {a:?} and {b:?}; peak {peak}");
    assert_eq!(a.len(), 12);
    for k in 0..a.len() {
        assert!(a[k] + b[k] <= peak, "interval {k}: {} + {} over the peak {peak}", a[k], b[k]);
    }
    // While the writer runs (5 to 40 s) each holds something, the two within a factor of 2.
    for k in 1..7 {
        assert!(a[k] > 0 && b[k] > 0 && a[k] < 2 * b[k] && b[k] < 2 * a[k], "interval {k}: {a:?} {b:?}");
    }
    assert!(a[3] + b[3] > peak / 3, "mid-run {} + {} vs peak {peak}", a[3], b[3]);
    // 20 s after the last commit: every log block freed and out of the defer tree.
    assert_eq!((a[11], b[11]), (0, 0));
    for log in res["pool"]["log"].as_array().unwrap() {
        assert_eq!(log["alloc_bytes"], 0, "{log}");
    }
}

/// A SLOG too small for the log's space: the rotor passes a log vdev with no room for a
/// block and, with none, `zio_alloc_zil` takes the main pool. The log vdev's allocation
/// never passes its size, and the blocks sent to the pool are counted.
#[test]
fn a_full_slog_sends_log_blocks_to_the_pool() {
    let mut cfg = fsync_loop("zfs-2.2", 8, 30);
    let mut small = preset("intel-s3700");
    small["capacity_bytes"] = json!(64u64 << 20);
    cfg["devices"]["slog"] = small;
    cfg["pool"]["log"] = json!([{"type": "disk", "disks": [{"name": "sdb", "device": "slog"}]}]);
    cfg["workloads"][0]["sizes"] = json!([[131072, 1.0]]);
    cfg["report_interval_ns"] = json!(1_000_000_000u64);
    let res = run(&cfg);
    let z = &res["zil"];
    let ntops = res["pool"]["vdevs"].as_array().unwrap().len();
    let held: Vec<u64> = res["series"]["tops"][ntops]["alloc_bytes"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    eprintln!("log vdev holds {held:?}; zil {z}");
    let pool_lwbs = z["lwb_pool_writes"].as_u64().unwrap();
    assert!(pool_lwbs > 0 && pool_lwbs < z["lwb_writes"].as_u64().unwrap(), "{z}");
    assert!(held.iter().all(|&b| b <= 64 << 20), "{held:?}");
    assert!(*held.iter().max().unwrap() > 32 << 20, "the SLOG is used up to near its size: {held:?}");
    let big = run(&{
        let mut c = cfg.clone();
        c["devices"]["slog"] = preset("intel-s3700");
        c
    });
    assert_eq!(big["zil"]["lwb_pool_writes"], 0);
}

/// A sync write logged INDIRECT writes its whole block with `dmu_sync`, which overrides
/// the block's dirty record: the txg's sync must not write that record again, however
/// little of the block the write covered (`zfs_get_data` syncs `zp->z_blksz`).
#[test]
fn partial_record_indirect_writes_are_not_written_again_by_the_txg() {
    let mut cfg = fsync_loop("zfs-2.2", 1, 20);
    cfg["workloads"][0]["sizes"] = json!([[32768, 1.0]]);
    let res = run(&cfg);
    let z = &res["zil"];
    let (n, bytes) = (z["indirect_writes"].as_u64().unwrap(), z["indirect_bytes"].as_u64().unwrap());
    assert!(n > 100, "{z}");
    assert_eq!(bytes, n * 131072, "each dmu_sync writes the whole 128K record");
    // The txgs still write each record's indirect block (its pointer changed), not the data.
    let txg_writes = res["txg"]["data_bytes"].as_u64().unwrap();
    eprintln!("indirect {n} writes {bytes} B; txg data writes {txg_writes} B; {}", res["txg"]);
    assert!(res["txg"]["metadata_blocks"].as_u64().unwrap() > 0);
    // Before: the txg rewrote the 96K of each record the write did not cover (~0.75 × bytes).
    assert!(txg_writes < bytes / 20, "txg wrote {txg_writes} B after {bytes} B of dmu_sync");
}

/// An nfs-copy file fits in one block of its own size; its COMMIT finds one INDIRECT
/// record per 32K WRITE, all of that one block: the first dmu_sync writes it, the others
/// find it synced (`EALREADY`).
#[test]
fn indirect_records_of_one_block_write_it_once() {
    let mut cfg = nfs_copy(false);
    cfg["release"] = json!("zfs-2.2");
    cfg["workloads"][0]["sizes"] = json!([[100_000, 1.0]]);
    cfg["workloads"][0]["files"] = json!(50);
    let res = run(&cfg);
    assert_eq!(res["workloads"][0]["files_done"], json!(50));
    let z = &res["zil"];
    assert_eq!(z["indirect_writes"].as_u64().unwrap(), 50, "{z}");
    // 100 000 B rounded up to 512: the file's block (zfs_grow_blocksize).
    assert_eq!(z["indirect_bytes"].as_u64().unwrap(), 50 * 100_352, "{z}");
}

/// Audit 3 F6: ZL@zfs-2.2.0 `zfs_log_write` (and `zvol_log_write`) counts logged-write
/// bytes (`dsl_pool_wrlog_count`) only for WR_COPIED / WR_NEED_COPY records, and returns
/// before logging anything when `zil_replaying` — which includes `sync=disabled`. Without
/// a SLOG, 128 KiB writes are INDIRECT: the wrlog throttle never sees them, so disabling
/// it (`zfs_wrlog_data_max` = 1 PiB) changes nothing. 8 KiB writes are NEED_COPY and a
/// 1 MiB `zfs_wrlog_data_max` delays them, unless `sync=disabled`.
#[test]
fn wrlog_counts_only_copied_and_need_copy_records() {
    let base = run(&flood("zfs-2.2"));
    let mut off = flood("zfs-2.2");
    off["tunables"] = json!({"zfs_wrlog_data_max": 1u64 << 50});
    assert_eq!(run(&off)["txg"], base["txg"]);
    let small = |sync: &str, wrlog_max: u64| {
        let mut c = flood("zfs-2.2");
        c["workloads"][0]["sizes"] = json!([[8192, 1.0]]);
        c["stop_ns"] = json!(5_000_000_000u64);
        c["sync"] = json!(sync);
        c["tunables"] = json!({"zfs_wrlog_data_max": wrlog_max});
        run(&c)["txg"].clone()
    };
    let logged = small("standard", 1 << 20);
    assert!(logged["delayed_writes"].as_u64().unwrap() > 0, "{logged}");
    assert_eq!(small("disabled", 1 << 20), small("disabled", 1 << 50));
}

/// Eight threads of random 4 KiB writes, 4 KiB records, one 7200 rpm disk, 30 s, over
/// `region` bytes of the allocated data (0: all of it).
fn random_writes(region: u64) -> Value {
    let mut cfg = config(
        "zfs-2.2",
        preset("hdd-7200-sata-2014"),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "w", "kind": "random-write", "sizes": [[4096, 1.0]], "threads": 8, "arc_hit_ratio": 1.0,
                "region_length_bytes": region}]),
        30,
    );
    cfg["pool"]["recordsize_bytes"] = json!(4096);
    cfg
}

/// ZFS dirties a buffer once per txg (`dbuf_dirty`): writes that keep rewriting a 64 MiB
/// region charge and write at most that region per txg, however many there are.
#[test]
fn rewrites_within_a_txg_are_written_once() {
    let res = run(&random_writes(64 << 20));
    let user = wl(&res)["bytes"].as_u64().unwrap();
    let t = &res["txg"];
    let (data, syncs) = (t["data_bytes"].as_u64().unwrap(), t["syncs"].as_u64().unwrap());
    eprintln!("user {user} B, txg data {data} B over {syncs} syncs; {t}");
    assert!(data <= syncs * (64 << 20), "{data} B in {syncs} syncs");
    assert!(user > 10 * data, "user {user} vs written {data}");
}

/// Random small writes across a large file dirty a different level-1 indirect block
/// almost every time: 128 KiB of dirty data each (`dbuf_dirty` of the parent), and its
/// two copies written at sync. Metadata then dominates what the syncs write and the
/// write throttle holds the writers to what the disk takes of it.
#[test]
fn random_small_writes_write_their_indirect_blocks() {
    let wide = run(&random_writes(0));
    let narrow = run(&random_writes(64 << 20));
    let t = &wide["txg"];
    let (data, meta) = (t["data_bytes"].as_u64().unwrap(), t["metadata_bytes"].as_u64().unwrap());
    let (ops_w, ops_n) = (wl(&wide)["ops_per_s"].as_f64().unwrap(), wl(&narrow)["ops_per_s"].as_f64().unwrap());
    eprintln!("wide {ops_w:.0} ops/s, data {data} B, metadata {meta} B; narrow {ops_n:.0} ops/s; {t}");
    assert!(meta > 5 * data, "metadata {meta} vs data {data}");
    assert!(t["delayed_writes"].as_u64().unwrap() + t["blocked_writes"].as_u64().unwrap() > 0);
    // Bounded by the disk's sequential write rate over ~32x amplification: ~10^3 ops/s.
    assert!((200.0..5000.0).contains(&ops_w), "{ops_w} ops/s");
    assert!(ops_n > 10.0 * ops_w, "narrow {ops_n} vs wide {ops_w}");
}

/// Before 0.7 indirect blocks were 16 KiB (`DN_MAX_INDBLKSHIFT` 14): the same random small
/// writes over a pool those releases wrote dirty 16 KiB L1s, so a txg holds several times as
/// many writes and the throttle lets the writers go faster (a pool upgraded from 0.6.5 keeps
/// its files' small indirects: `pool.layout.written_by`).
#[test]
fn random_small_writes_over_a_pre_0_7_pool_dirty_16k_indirects() {
    let new = run(&random_writes(0));
    let mut cfg = random_writes(0);
    cfg["pool"]["layout"] = json!({"written_by": "zfs-0.6.5"});
    let old = run(&cfg);
    let per_op = |r: &Value| {
        let t = &r["txg"];
        let ops = wl(r)["ops"].as_u64().unwrap() as f64;
        (wl(r)["ops_per_s"].as_f64().unwrap(), t["metadata_bytes"].as_u64().unwrap() as f64 / ops)
    };
    let ((ops_new, meta_new), (ops_old, meta_old)) = (per_op(&new), per_op(&old));
    eprintln!("128K indirects: {ops_new:.0} ops/s, {meta_new:.0} B of metadata per write; 16K: {ops_old:.0} ops/s, {meta_old:.0} B");
    // Two copies of a 64 KiB (compressed) L1 per write against two of an 8 KiB one, nearly.
    assert!(meta_old * 4.0 < meta_new, "metadata per write: {meta_old} (16K) vs {meta_new} (128K)");
    assert!(ops_old > 3.0 * ops_new, "{ops_old} ops/s (16K) vs {ops_new} (128K)");
}

/// Each sync appends its allocations and frees to the space maps (`spacemap.rs`): before
/// 2.0 every metaslab it touched rewrites its own space map's last blocks and dnode block,
/// so random rewrites over the 100 GiB of files (frees in each of the 7 metaslabs of 16 GiB
/// it spans, ~2 000 entries each a sync) write several blocks per metaslab and sync, where
/// rewrites confined to 64 MiB touch one or two; from 2.0 one log space map per txg takes
/// every metaslab's entries in 128 KiB blocks, and one metaslab a txg is flushed.
#[test]
fn syncs_write_the_space_maps_their_allocations_and_frees_dirty() {
    let sm = |rel: &str, region: u64| {
        let mut cfg = random_writes(region);
        cfg["release"] = json!(rel);
        let r = run(&cfg);
        let t = &r["txg"];
        let syncs = t["syncs"].as_u64().unwrap() as f64;
        eprintln!("{rel} region {region}: {t}");
        (t["space_map_blocks"].as_u64().unwrap() as f64 / syncs, t["space_map_bytes"].as_u64().unwrap() as f64 / syncs)
    };
    let (old_wide, _) = sm("zfs-0.7", 0);
    let (old_narrow, _) = sm("zfs-0.7", 64 << 20);
    let (new_wide, _) = sm("zfs-2.2", 0);
    // Three copies of at least a block per metaslab, plus indirects and dnode blocks.
    assert!(old_wide > 3.0 * 7.0 * 2.0, "{old_wide} space-map blocks per sync");
    assert!(old_narrow < old_wide / 5.0, "{old_narrow} vs {old_wide}");
    // The log: a few blocks per sync, whatever the spread.
    assert!(new_wide < old_wide / 3.0, "{new_wide} vs {old_wide}");
}

/// A CREATE dirties its directory's ZAP block and the file's dnode block (`zfs_create`
/// assigns a tx; so do MKDIR and SETATTR): copying the same 300 files into 30 directories
/// rather than one has the syncs write 29 more ZAP blocks, two copies each.
#[test]
fn creates_dirty_their_directory_blocks() {
    let copy = |dirs: u64| {
        let mut cfg = nfs_copy(true);
        cfg["workloads"][0]["dirs"] = json!(dirs);
        let res = run(&cfg);
        assert_eq!(res["workloads"][0]["files_done"], json!(300));
        eprintln!("{dirs} dirs: {}", res["txg"]);
        (res["txg"]["metadata_blocks"].as_u64().unwrap(), res["txg"]["syncs"].as_u64().unwrap())
    };
    let (one, s1) = copy(1);
    let (many, s30) = copy(30);
    assert_eq!(s1, s30);
    assert!(many >= one + 2 * 29, "30 directories: {many} metadata blocks; one: {one}");
}

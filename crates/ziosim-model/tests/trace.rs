//! Trace replay (`workload.kind = "trace"`) through the whole model: open-loop timing,
//! closed-loop replay, sync writes and flushes through the ZIL, and the
//! `workloads-done` stop.
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_model::device::presets;

fn preset(name: &str) -> Value {
    serde_json::to_value(presets::get(name).unwrap()).unwrap()
}

/// One 7200 rpm disk with 128 KiB records and one trace workload.
fn one_disk(trace: Value, threads: Option<u32>, stop_s: u64) -> Value {
    let mut w = json!({"name": "app", "kind": "trace", "sizes": [], "trace": trace});
    if let Some(t) = threads {
        w["threads"] = json!(t);
    }
    let mut cfg = config(
        "zfs-2.2",
        preset("hdd-7200-sata-2014"),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([w]),
        stop_s,
    );
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg
}

/// `n` records of `op` of `size` bytes at pseudo-random offsets of a 100 GiB file,
/// every `gap_ns` (no times if `gap_ns` is 0).
fn records(n: usize, op: char, size: u64, gap_ns: u64) -> Value {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let offsets: Vec<u64> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % ((100u64 << 30) / size)) * size
        })
        .collect();
    let t: Vec<u64> = if gap_ns == 0 { vec![] } else { (0..n as u64).map(|i| i * gap_ns).collect() };
    json!({"t_ns": t, "ops": std::iter::repeat(op).take(n).collect::<String>(), "offset": offsets, "size": vec![size; n]})
}

fn tr(res: &Value) -> &Value {
    &res["workloads"][0]["trace"]
}

#[test]
fn an_open_loop_trace_issues_at_its_recorded_times() {
    // 1000 random 4 KiB reads, one every 50 ms: 20/s, well under one disk's ~80 IOPS.
    let res = run(&one_disk(records(1000, 'R', 4096, 50_000_000), None, 120));
    let w = &res["workloads"][0];
    assert_eq!(tr(&res)["completed"], 1000);
    assert_eq!(tr(&res)["by_op"]["read"]["ops"], 1000);
    assert_eq!(w["ops"], 1000);
    assert_eq!(w["finished"], true);
    // The last record goes out at 49.95 s and takes one disk read.
    let fin = w["finished_ns"].as_f64().unwrap() / 1e9;
    assert!((49.95..50.2).contains(&fin), "finished at {fin} s");
    // Each read is a disk read of about one seek and half a turn, not queued behind others.
    let mean_ms = w["latency_ns"]["mean"].as_f64().unwrap() / 1e6;
    assert!((6.0..20.0).contains(&mean_ms), "mean {mean_ms} ms");
    // Twice as fast a trace (gaps halved) keeps the count and halves the span.
    let res2 = run(&one_disk(records(1000, 'R', 4096, 25_000_000), None, 120));
    let fin2 = res2["workloads"][0]["finished_ns"].as_f64().unwrap() / 1e9;
    assert!((24.9..25.2).contains(&fin2), "finished at {fin2} s");
}

#[test]
fn an_open_loop_trace_faster_than_the_disk_queues_instead_of_stretching() {
    // 400 random reads at 500/s: six times what one disk serves. The replay still issues
    // them all within 0.8 s; the latency grows, not the issue span.
    let res = run(&one_disk(records(400, 'R', 4096, 2_000_000), None, 60));
    let w = &res["workloads"][0];
    assert_eq!(w["ops"], 400);
    let fin = w["finished_ns"].as_f64().unwrap() / 1e9;
    let max_ms = w["latency_ns"]["max"].as_f64().unwrap() / 1e6;
    eprintln!("open loop at 500/s: finished {fin} s, max latency {max_ms} ms");
    assert!(fin > 2.0, "one disk cannot serve 400 random reads in {fin} s");
    assert!(max_ms > 1000.0, "the backlog shows as latency: max {max_ms} ms");
    assert_littles_law(&res, 0.02);
}

#[test]
fn a_closed_loop_replay_takes_as_long_as_the_pool_needs() {
    // The same 600 records without times: one caller waits for each before the next.
    let one = run(&one_disk(records(600, 'R', 4096, 0), Some(1), 120));
    let f1 = one["workloads"][0]["finished_ns"].as_f64().unwrap() / 1e9;
    let rate1 = 600.0 / f1;
    // One 7200 rpm disk at queue depth 1, the reads within 100 GiB of it (short seeks plus
    // half a turn, ~8 ms): about a hundred random reads per second.
    assert!((60.0..160.0).contains(&rate1), "QD1: {rate1} reads/s");
    // Eight callers: the drive reorders its queue and the replay ends sooner.
    let eight = run(&one_disk(records(600, 'R', 4096, 0), Some(8), 120));
    let f8 = eight["workloads"][0]["finished_ns"].as_f64().unwrap() / 1e9;
    eprintln!("closed loop: 1 caller {f1:.2} s, 8 callers {f8:.2} s");
    assert!(f8 < 0.75 * f1, "8 callers {f8} s vs 1 caller {f1} s");
    assert_eq!(tr(&eight)["open_loop"], false);
}

#[test]
fn sync_writes_and_flushes_go_through_the_zil() {
    // 4 KiB writes; every 4th record a flush: one commit per flush, plain writes buffered.
    let n = 400;
    let mut t = records(n, 'W', 4096, 0);
    let ops: String = (0..n).map(|i| if i % 4 == 3 { 'F' } else { 'W' }).collect();
    let sizes: Vec<u64> = (0..n).map(|i| if i % 4 == 3 { 0 } else { 4096 }).collect();
    t["ops"] = json!(ops);
    t["size"] = json!(sizes);
    let mut cfg = one_disk(t, Some(1), 120);
    cfg["workloads"][0]["arc_hit_ratio"] = json!(1.0);
    let res = run(&cfg);
    let z = &res["zil"];
    assert_eq!(tr(&res)["by_op"]["flush"]["ops"], 100);
    assert_eq!(tr(&res)["by_op"]["write"]["ops"], 300);
    assert_eq!(z["commits"], 100, "one commit per flush: {z}");
    // A buffered write is a memory copy; a flush waits for a log write and a cache flush.
    let w_ms = tr(&res)["by_op"]["write"]["latency_ns"]["mean"].as_f64().unwrap() / 1e6;
    let f_ms = tr(&res)["by_op"]["flush"]["latency_ns"]["mean"].as_f64().unwrap() / 1e6;
    assert!(w_ms < 0.1 && f_ms > 3.0, "write {w_ms} ms, flush {f_ms} ms");
    assert_eq!(z["at_risk"]["bytes_max"], 0);

    // `S` records (O_DSYNC) each commit, like an fsync loop: tens to low hundreds per second.
    let mut cfg = one_disk(records(300, 'S', 4096, 0), Some(1), 120);
    cfg["workloads"][0]["arc_hit_ratio"] = json!(1.0);
    let res = run(&cfg);
    let w = &res["workloads"][0];
    let rate = 300.0 / (w["finished_ns"].as_f64().unwrap() / 1e9);
    assert!((20.0..=300.0).contains(&rate), "{rate} sync writes/s");
    assert!(res["zil"]["commits"].as_u64().unwrap() >= 299);
    // With sync=disabled the same writes are acknowledged at once and their bytes at risk.
    cfg["sync"] = json!("disabled");
    let off = run(&cfg);
    assert!(off["zil"]["at_risk"]["bytes_max"].as_u64().unwrap() > 0);
    assert!(off["workloads"][0]["finished_ns"].as_u64().unwrap() < w["finished_ns"].as_u64().unwrap() / 10);
}

#[test]
fn workloads_done_stops_the_run_when_the_trace_has_been_replayed() {
    let mut cfg = one_disk(records(200, 'R', 4096, 10_000_000), None, 3600);
    cfg["stop_on_workloads_done"] = json!(true);
    let res = run(&cfg);
    assert_eq!(res["end"], "workloads-done");
    let fin = res["workloads"][0]["finished_ns"].as_u64().unwrap();
    assert_eq!(res["sim_time_ns"].as_u64().unwrap(), fin);
    // A repeating trace never finishes: it runs to the stop time, lap after lap.
    let mut cfg = one_disk(records(200, 'R', 4096, 10_000_000), None, 10);
    cfg["workloads"][0]["trace"]["repeat"] = json!(true);
    let res = run(&cfg);
    assert_eq!(res["end"], "stop-time");
    let laps = tr(&res)["laps"].as_u64().unwrap();
    assert_eq!(laps, 5, "10 s of a 2 s trace");
    assert!(res["workloads"][0]["finished_ns"].is_null());
}

#[test]
fn a_replay_is_deterministic_and_bad_records_are_named() {
    let cfg = one_disk(records(300, 'R', 16384, 5_000_000), None, 10);
    assert_eq!(run(&cfg)["digest"], run(&cfg)["digest"]);
    let mut bad = cfg.clone();
    bad["workloads"][0]["trace"]["ops"] = json!(format!("{}Q", "R".repeat(299)));
    let e = ziosim_model::config::RunConfig::from_json(&bad.to_string()).err().unwrap();
    assert!(e.starts_with("workload[0].trace.ops[299]: 'Q'"), "{e}");
    let mut untimed = cfg.clone();
    untimed["workloads"][0]["trace"]["t_ns"] = json!([]);
    let e = ziosim_model::config::RunConfig::from_json(&untimed.to_string()).err().unwrap();
    assert!(e.starts_with("workload[0].trace: the records have no times"), "{e}");
    let mut rate = cfg.clone();
    rate["workloads"][0]["rate_per_s"] = json!(10.0);
    let e = ziosim_model::config::RunConfig::from_json(&rate.to_string()).err().unwrap();
    assert!(e.starts_with("workload[0].rate: 10 — not for trace"), "{e}");
}

#[test]
fn the_arc_serves_rereads_of_a_working_set_that_fits() {
    // 50 distinct 128 KiB records read round-robin, 20 times over: 1000 reads.
    let n = 1000;
    let offsets: Vec<u64> = (0..n).map(|i| (i % 50) * 131072 * 7).collect();
    let t = json!({"t_ns": [], "ops": "R".repeat(n as usize), "offset": offsets, "size": vec![131072; n as usize]});
    let with = |arc_bytes: u64| {
        let mut cfg = one_disk(t.clone(), Some(1), 600);
        cfg["workloads"][0]["arc_bytes"] = json!(arc_bytes);
        run(&cfg)
    };
    // 64 records of room: only the first pass misses.
    let fits = with(64 * 131072);
    let l = &tr(&fits)["arc"];
    assert_eq!((l["records"].as_u64(), l["hits"].as_u64(), l["misses"].as_u64()), (Some(64), Some(950), Some(50)));
    assert_eq!(fits["workloads"][0]["arc_hits"], 950);
    // 40 records: round-robin over 50 always finds the record just evicted — every read misses,
    // as the ARC does on a loop larger than itself when nothing is read twice between laps
    // (the MRU and its ghost list together hold at most arc_c, so no ghost is left to hit).
    let small = with(40 * 131072);
    assert_eq!(tr(&small)["arc"]["hits"], 0);
    let f_fits = fits["workloads"][0]["finished_ns"].as_u64().unwrap();
    let f_small = small["workloads"][0]["finished_ns"].as_u64().unwrap();
    assert!(f_small > 3 * f_fits, "fits {f_fits} small {f_small}");
    // Writes go into it: a record written, then read, hits.
    let t = json!({"t_ns": [], "ops": "WR", "offset": [0, 0], "size": [131072, 131072]});
    let mut cfg = one_disk(t, Some(1), 60);
    cfg["workloads"][0]["arc_bytes"] = json!(1u64 << 20);
    let r = run(&cfg);
    assert_eq!(r["workloads"][0]["arc_hits"], 1);
    // Only for the plain readers and writers and traces.
    let mut bad = one_disk(records(10, 'R', 4096, 1000), None, 1);
    bad["workloads"][0]["kind"] = json!("fsync-write");
    bad["workloads"][0]["rate_per_s"] = json!(1.0);
    bad["workloads"][0]["sizes"] = json!([[4096, 1.0]]);
    bad["workloads"][0]["trace"] = json!(null);
    bad["workloads"][0]["arc_bytes"] = json!(1u64 << 20);
    let e = ziosim_model::config::RunConfig::from_json(&bad.to_string()).err().unwrap();
    assert!(e.starts_with("workload[0].arc_size: 1048576 — applies to trace, random-read, seq-read, random-write, seq-write only"), "{e}");
}

#[test]
fn the_arc_keeps_a_reread_hot_set_through_a_scan_larger_than_itself() {
    // 20 records read twice (the second pass more than ARC_MINTIME after the first: MFU),
    // then a one-pass scan of 200 other records, then the 20 again, through a 64-record ARC.
    // An LRU would have lost them to the scan; the ARC evicts the scan from its MRU.
    // Timed: the passes at 0, 1 and 20 s, 40 ms apart within a pass; the scan from 2 s.
    let rec = |r: u64| r * 131072 * 7;
    let offs: Vec<u64> = (0..20).chain(0..20).chain(100..300).chain(0..20).map(rec).collect();
    let ms = 1_000_000u64;
    let times: Vec<u64> = (0..20).map(|i| i * 40 * ms)
        .chain((0..20).map(|i| 1000 * ms + i * 40 * ms))
        .chain((0..200).map(|i| 2000 * ms + i * 40 * ms))
        .chain((0..20).map(|i| 20_000 * ms + i * 40 * ms))
        .collect();
    let n = offs.len();
    let t = json!({"t_ns": times, "ops": "R".repeat(n), "offset": offs, "size": vec![131072; n]});
    for release in ["zfs-2.1", "zfs-2.2", "solaris-2009"] {
        let mut cfg = one_disk(t.clone(), None, 600);
        cfg["release"] = json!(release);
        cfg["workloads"][0]["arc_bytes"] = json!(64 * 131072);
        let res = run(&cfg);
        let a = &tr(&res)["arc"];
        assert_eq!(a["hits"], 40, "{release}: {a}");
        assert_eq!(a["mfu_hits"], 20, "{release}: the last pass found them in the MFU: {a}");
        assert!(a["mru_records"].as_u64().unwrap() + a["mfu_records"].as_u64().unwrap() <= 64, "{a}");
    }
}

#[test]
fn a_block_trace_replays_on_a_volume() {
    // A VM disk's trace: 4 KiB writes, every 8th FUA, a flush every 16 records.
    let n = 320;
    let ops: String = (0..n).map(|i| if i % 16 == 15 { 'F' } else if i % 8 == 0 { 'S' } else { 'W' }).collect();
    let mut t = records(n, 'W', 4096, 0);
    t["ops"] = json!(ops);
    t["size"] = json!((0..n).map(|i| if i % 16 == 15 { 0 } else { 4096 }).collect::<Vec<u64>>());
    let mut cfg = one_disk(t, Some(1), 120);
    cfg["pool"]["recordsize_bytes"] = json!(16384);
    cfg["workloads"][0]["volume"] = json!(true);
    cfg["workloads"][0]["arc_hit_ratio"] = json!(1.0);
    let res = run(&cfg);
    let z = &res["zil"];
    // Each FUA write and each flush is one zil_commit(ZVOL_OBJ): 40 + 20.
    assert_eq!(z["commits"], 60, "{z}");
    assert_eq!(z["indirect_writes"], 0, "4K writes into 16K blocks are copied into the log");
    assert_eq!(tr(&res)["by_op"]["sync_write"]["ops"], 40);
    // A volume is not a filesystem: no fsync-write beside it, and not on solaris-2009.
    let mut mixed = cfg.clone();
    mixed["workloads"].as_array_mut().unwrap().push(json!({"name": "db", "kind": "fsync-write", "sizes": [[4096, 1.0]], "threads": 1}));
    let e = ziosim_model::config::RunConfig::from_json(&mixed.to_string()).err().unwrap();
    assert!(e.starts_with("workload[0].volume: true — the dataset is then a volume, which db (fsync-write)"), "{e}");
    let mut old = cfg.clone();
    old["release"] = json!("solaris-2009");
    let e = ziosim_model::config::RunConfig::from_json(&old.to_string()).err().unwrap();
    assert!(e.starts_with("workload[0].volume: true — allowed: from release freebsd-9"), "{e}");
}

#[test]
fn a_read_the_arc_misses_first_reads_the_indirect_blocks_it_lacks() {
    // 2000 random 4 KiB reads, one at a time, over a 100 GiB file of 128 KiB records: with a
    // 1 MiB ARC every record misses. Its metadata share (3/4 on 2.1) holds a few of the
    // ~800 level-1 blocks above them, so nearly every read first reads its level-1 block
    // (`dbuf_findbp`), then the record: two dependent disk reads where the `arc_hit` draw
    // (every indirect block cached) makes one.
    let n = 2000;
    let t = records(n, 'R', 4096, 0);
    let with = |arc: Option<u64>| {
        let mut cfg = one_disk(t.clone(), Some(1), 3600);
        cfg["release"] = json!("zfs-2.1");
        match arc {
            Some(b) => cfg["workloads"][0]["arc_bytes"] = json!(b),
            None => cfg["workloads"][0]["arc_hit_ratio"] = json!(0.0),
        }
        run(&cfg)
    };
    let cold = with(Some(1 << 20));
    let ind = &tr(&cold)["arc"]["indirect"];
    assert_eq!(ind["cache_bytes"], (1u64 << 20) / 4 * 3, "{ind}");
    let reads = ind["reads"].as_u64().unwrap();
    assert!(reads > n as u64 * 9 / 10, "{ind}");
    assert_eq!(ind["misses"].as_u64().unwrap(), reads, "each missing block read once: {ind}");
    let drawn = with(None);
    let disk_ops = |r: &Value| r["leaves"][0]["classes"]["sync_read"]["ops"].as_u64().unwrap();
    assert_eq!(disk_ops(&drawn), n as u64);
    assert_eq!(disk_ops(&cold), n as u64 + reads);
    let mean = |r: &Value| r["workloads"][0]["latency_ns"]["mean"].as_f64().unwrap();
    assert!(mean(&cold) > 1.6 * mean(&drawn), "cold {} drawn {}", mean(&cold), mean(&drawn));
    // With 1 GiB the indirect blocks stay: each is read once, the first time a record
    // under it misses, so later reads under it find it (and climb no further).
    let warm = with(Some(1 << 30));
    let ind = &tr(&warm)["arc"]["indirect"];
    let (reads, hits, misses) = (ind["reads"].as_u64().unwrap(), ind["hits"].as_u64().unwrap(), ind["misses"].as_u64().unwrap());
    assert_eq!(misses, reads, "{ind}");
    assert!(reads > 0 && reads < n as u64 / 2 && hits >= n as u64 - reads, "{ind}");
    let held = ind["held_bytes"].as_u64().unwrap();
    assert!(held < 1 << 30 && held >= reads * 4096, "nothing evicted: {ind}");
    let data_misses = n as u64 - warm["workloads"][0]["arc_hits"].as_u64().unwrap();
    assert_eq!(disk_ops(&warm), data_misses + reads);
}

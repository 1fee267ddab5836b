//! Workload and pool-path behaviour on the simple device.
mod common;
use common::*;
use serde_json::json;

fn seq_cfg(prefetch_disable: i64) -> serde_json::Value {
    let mut cfg = config(
        "zfs-2.2",
        simple_device(1_000_000, "deterministic", 4),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "seq", "kind": "seq-read", "sizes": [[131072, 1.0]], "threads": 1, "think_ns": 2_000_000}]),
        20,
    );
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["tunables"] = json!({"zfs_prefetch_disable": prefetch_disable});
    cfg
}

#[test]
fn prefetch_overlaps_device_time_with_think_time() {
    let off = run(&seq_cfg(1));
    let on = run(&seq_cfg(0));
    let ops = |r: &serde_json::Value| r["workloads"][0]["ops_per_s"].as_f64().unwrap();
    // Without prefetch: 1 ms service + 2 ms think per record = 333/s.
    assert!((ops(&off) / 333.3 - 1.0).abs() < 0.02, "no prefetch: {}", ops(&off));
    // With prefetch the disk reads ahead while the reader thinks: ~500/s (think-bound),
    // and nearly every record is already in memory when asked for.
    assert!(ops(&on) > 490.0, "prefetch: {}", ops(&on));
    assert!(on["workloads"][0]["prefetch_hits"].as_u64().unwrap() > 9_000);
    assert!(on["leaves"][0]["classes"]["async_read"]["ops"].as_u64().unwrap() > 9_000);
    assert!(off["leaves"][0]["classes"].get("async_read").is_none());
}

#[test]
fn raidz_read_touches_data_columns_only_and_mirror_one_child() {
    let mk = |vdevs: serde_json::Value| {
        let mut c = config(
            "zfs-2.2",
            simple_device(100_000, "deterministic", 32),
            vdevs,
            json!([{"name": "r", "kind": "random-read", "sizes": [[131072, 1.0]], "threads": 1}]),
            5,
        );
        c["pool"]["recordsize_bytes"] = json!(131072);
        c
    };
    let disks = |n: usize| -> serde_json::Value { (0..n).map(|i| json!({"name": format!("d{i}"), "device": "d"})).collect() };
    let rz = run(&mk(json!([{"type": "raidz2", "disks": disks(5)}])));
    let ops = rz["workloads"][0]["ops"].as_u64().unwrap();
    let leaf_bytes: u64 = rz["leaves"].as_array().unwrap().iter().map(|l| l["classes"]["sync_read"]["bytes"].as_u64().unwrap()).sum();
    // 128 KiB on 5-wide raidz2, ashift 12: data columns 44+44+40 = 128 KiB (parity not read);
    // the one thread's last read may be read and still copying to it at the stop.
    assert!(leaf_bytes == ops * 131072 || leaf_bytes == (ops + 1) * 131072, "{leaf_bytes} for {ops} reads");
    let m = run(&mk(json!([{"type": "mirror", "disks": disks(2)}])));
    let ops = m["workloads"][0]["ops"].as_u64().unwrap();
    let leaf_ops: u64 = m["leaves"].as_array().unwrap().iter().map(|l| l["classes"]["sync_read"]["ops"].as_u64().unwrap()).sum();
    assert!(leaf_ops == ops || leaf_ops == ops + 1, "{leaf_ops} for {ops} reads");
    // Both children serve reads (load balancing), neither all of them.
    for l in m["leaves"].as_array().unwrap() {
        assert!(l["classes"]["sync_read"]["ops"].as_u64().unwrap() > ops / 5);
    }
}

#[test]
fn arc_hits_cost_a_memory_copy_and_no_io() {
    let cfg = config(
        "zfs-2.2",
        simple_device(1_000_000, "deterministic", 4),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "r", "kind": "random-read", "sizes": [[4096, 1.0]], "threads": 1, "arc_hit_ratio": 1.0, "arc_hit_ns": 5000}]),
        1,
    );
    let r = run(&cfg);
    // arc_hit_ns and the copy of 4 KiB to the caller at 5.6 GB/s (731 ns).
    assert_eq!(r["workloads"][0]["latency_ns"]["max"].as_u64().unwrap(), 5731);
    assert!(r["leaves"][0]["classes"].as_object().unwrap().is_empty());
}

#[test]
fn writes_are_synced_by_txgs_as_async_writes() {
    let cfg = config(
        "zfs-2.2",
        simple_device(200_000, "deterministic", 32),
        json!([{"type": "raidz1", "disks": [{"name": "a", "device": "d"}, {"name": "b", "device": "d"}, {"name": "c", "device": "d"}]}]),
        json!([{"name": "w", "kind": "random-write", "sizes": [[4096, 1.0]], "rate_per_s": 100.0}]),
        30,
    );
    let r = run(&cfg);
    // zfs_txg_timeout = 5 s: about 6 syncs in 30 s.
    let syncs = r["txg"]["syncs"].as_u64().unwrap();
    assert!((5..=7).contains(&syncs), "syncs {syncs}");
    let w: u64 = r["leaves"].as_array().unwrap().iter().map(|l| l["classes"]["async_write"]["ops"].as_u64().unwrap_or(0)).sum();
    assert!(w > 0);
    assert!(r["workloads"][0]["latency_ns"]["max"].as_u64().unwrap() < 100_000);
}

fn hdd_seq(layout: serde_json::Value) -> serde_json::Value {
    let hdd = serde_json::to_value(ziosim_model::device::presets::get("hdd-7200-sata-2014").unwrap()).unwrap();
    let mut cfg = config(
        "zfs-2.2",
        hdd,
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "seq", "kind": "seq-read", "sizes": [[131072, 1.0]], "threads": 1, "think_ns": 0}]),
        10,
    );
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["pool"]["allocated_bytes"] = json!(100u64 << 30);
    cfg["pool"]["layout"] = layout;
    cfg["tunables"] = json!({"zfs_prefetch_disable": 1});
    cfg
}

#[test]
fn a_sequential_stream_follows_the_layout_fresh_streams_aged_seeks() {
    // Records are the layout's data blocks in logical order: on a fresh fill they are
    // contiguous on disk; fully aged, each sits somewhere else.
    let fresh = run(&hdd_seq(json!({"fragmentation": 0.0})));
    let aged = run(&hdd_seq(json!({"fragmentation": 1.0})));
    let ops = |r: &serde_json::Value| r["workloads"][0]["ops_per_s"].as_f64().unwrap();
    assert!(ops(&fresh) > 4.0 * ops(&aged), "fresh {} ops/s, aged {} ops/s", ops(&fresh), ops(&aged));
    // A 7200 rpm disk: fully random 128 KiB reads stay near 100/s.
    assert!(ops(&aged) < 150.0, "aged {}", ops(&aged));
}

#[test]
fn compressed_records_are_read_at_their_physical_size() {
    let r = run(&hdd_seq(json!({"compression_ratio": 2.0})));
    let c = &r["leaves"][0]["classes"]["sync_read"];
    let per_op = c["bytes"].as_f64().unwrap() / c["ops"].as_f64().unwrap();
    assert_eq!(per_op, 65536.0, "{c}");
}

/// One writer of `size`-byte writes (`kind`) into 128 KiB records on the simple device.
fn writer(kind: &str, size: u64, arc_hit: f64) -> serde_json::Value {
    let mut cfg = config(
        "zfs-2.2",
        simple_device(1_000_000, "deterministic", 4),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "w", "kind": kind, "sizes": [[size, 1.0]], "threads": 1, "think_ns": 1_000_000, "arc_hit_ratio": arc_hit}]),
        10,
    );
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg
}

#[test]
fn partial_record_writes_read_the_record_first_unless_cached() {
    let reads = |r: &serde_json::Value| r["leaves"][0]["classes"].get("sync_read").map_or(0, |c| c["ops"].as_u64().unwrap());
    let ops = |r: &serde_json::Value| r["workloads"][0]["ops"].as_u64().unwrap();
    // 4 KiB random overwrites of 128 KiB records: one read per write (dmu_buf_will_dirty),
    // which the write waits for: 1 ms read + 1 ms think per write.
    let rnd = run(&writer("random-write", 4096, 0.0));
    assert!(reads(&rnd).abs_diff(ops(&rnd)) <= 1, "reads {} vs writes {}", reads(&rnd), ops(&rnd));
    let counted = rnd["workloads"][0]["rmw_reads"].as_u64().unwrap();
    assert!(counted.abs_diff(reads(&rnd)) <= 1, "rmw_reads {counted} vs reads {} (one may be in flight at the end)", reads(&rnd));
    let lat = rnd["workloads"][0]["latency_ns"]["p50"].as_f64().unwrap();
    assert!(lat > 1_000_000.0, "a write waits for its read: p50 {lat}");
    // Half of the records in the ARC: about half the reads.
    let half = run(&writer("random-write", 4096, 0.5));
    let share = reads(&half) as f64 / ops(&half) as f64;
    assert!((0.4..0.6).contains(&share), "arc_hit 0.5: {share} reads per write");
    // A sequential writer reads each record once: the next write into it finds it dirty.
    let seq = run(&writer("seq-write", 4096, 0.0));
    let per_rec = ops(&seq) as f64 / reads(&seq) as f64;
    assert!((31.0..=33.0).contains(&per_rec), "seq 4K: {per_rec} writes per read");
    // Whole records need no read.
    let full = run(&writer("random-write", 131072, 0.0));
    assert_eq!(reads(&full), 0);
    // 192 KiB writes at multiples of 192 KiB cover one and a half records: the half
    // record is read (at the start or at the end), the whole one is not.
    let odd = run(&writer("random-write", 3 * 65536, 0.0));
    assert!(reads(&odd).abs_diff(ops(&odd)) <= 1, "reads {} vs writes {}", reads(&odd), ops(&odd));
}

#[test]
fn raidz_padding_is_written_from_6854621_and_not_by_snv_117() {
    // A 128K record on a 4-wide raidz1 with 4K sectors is 32 data + 11 parity sectors,
    // padded to 44: one skip sector per block. From il:f94275ce20 (6854621, 2009-07-16)
    // the skip sector is written as an OPTIONAL I/O so writes merge through it; snv_117
    // (solaris-2009) wrote the four real columns only.
    let per_block = |release: &str| {
        let mut cfg = config(
            release,
            simple_device(200_000, "deterministic", 32),
            json!([{"type": "raidz1", "disks": [{"name": "a", "device": "d"}, {"name": "b", "device": "d"},
                                                {"name": "c", "device": "d"}, {"name": "e", "device": "d"}]}]),
            json!([{"name": "w", "kind": "seq-write", "sizes": [[131072, 1.0]], "rate_per_s": 400.0}]),
            70,
        );
        cfg["pool"]["recordsize_bytes"] = json!(131072);
        let r = run(&cfg);
        let zios: u64 = r["leaves"].as_array().unwrap().iter()
            .map(|l| l["classes"]["async_write"]["ops"].as_u64().unwrap_or(0)).sum();
        let blocks = r["txg"]["data_bytes"].as_u64().unwrap() / 131072;
        assert!(blocks > 2000, "{release}: {blocks} blocks");
        zios as f64 / blocks as f64
    };
    let old = per_block("solaris-2009");
    let new = per_block("freebsd-9");
    assert!((4.0..4.1).contains(&old), "solaris-2009: {old} zios per block");
    assert!((4.9..5.1).contains(&new), "freebsd-9: {new} zios per block");
}

#[test]
fn reads_pay_for_the_copy_to_the_caller() {
    // A cached 1 MiB read costs arc_hit_ns and the copy of its bytes (5.6 GB/s), as a
    // buffered write does the other way; it was arc_hit_ns alone (488 GB/s).
    let cfg = config(
        "zfs-2.2",
        simple_device(100_000, "deterministic", 4),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "r", "kind": "random-read", "sizes": [[1048576, 1.0]], "threads": 1,
                "arc_hit_ratio": 1.0, "arc_hit_ns": 2000}]),
        1,
    );
    let r = run(&cfg);
    let mean = r["workloads"][0]["latency_ns"]["mean"].as_f64().unwrap();
    let want = 2000.0 + 1048576.0 / 5.6e9 * 1e9;
    assert!((mean / want - 1.0).abs() < 0.01, "mean {mean} ns vs {want}");
}

#[test]
fn prefetch_stops_at_the_end_of_the_file() {
    // The reader wraps over a 64 MiB region (its file); dmu_zfetch never reads past the
    // file's last block, so every prefetched record is one the reader then asks for.
    let mut cfg = seq_cfg(0);
    cfg["workloads"][0]["region_length_bytes"] = json!(64u64 << 20);
    let r = run(&cfg);
    let ops = r["workloads"][0]["ops"].as_u64().unwrap();
    let pf = r["leaves"][0]["classes"]["async_read"]["ops"].as_u64().unwrap();
    assert!(ops > 8_000, "{ops}");
    // (Past the end it read twice what the reader used: 19 713 for 9 865.)
    assert!(pf as f64 <= ops as f64 * 1.02 + 64.0, "prefetched {pf} records for {ops} reads");
}

/// A sequential reader beside a busy random reader: its demand read of a record the
/// prefetcher still has queued (ASYNC_READ) waits behind the random reader's sync reads
/// until 0.8.0, which raises that prefetch to SYNC_READ (`zio_change_priority` from
/// `arc_read`, a8b2e30685) so it goes in its turn among them.
#[test]
fn from_0_8_a_demand_read_raises_the_prefetch_it_waits_for() {
    let mk = |release: &str| {
        let mut c = config(
            release,
            simple_device(1_000_000, "deterministic", 4),
            json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
            json!([
                {"name": "seq", "kind": "seq-read", "sizes": [[131072, 1.0]], "threads": 1, "think_ns": 0},
                {"name": "rand", "kind": "random-read", "sizes": [[4096, 1.0]], "threads": 32, "think_ns": 0}
            ]),
            20,
        );
        c["pool"]["recordsize_bytes"] = json!(131072);
        c["pool"]["layout"] = json!({"fragmentation": 1.0});
        c
    };
    let (old, new) = (run(&mk("zfs-0.7")), run(&mk("zfs-0.8")));
    let seq = |r: &serde_json::Value, k: &str| r["workloads"][0][k].as_f64().unwrap();
    let sync_cmds = |r: &serde_json::Value| r["leaves"][0]["classes"]["sync_read"]["commands"].as_u64().unwrap();
    let rand_ops = |r: &serde_json::Value| r["workloads"][1]["ops"].as_u64().unwrap();
    assert_eq!(seq(&old, "prefetch_promoted"), 0.0);
    // 0.7: the disk's sync reads are the random reader's and the stream's first three
    // records' (0.7 ignores block 0, block 1 starts the stream, block 2 is its first hit).
    assert!(sync_cmds(&old) <= rand_ops(&old) + 3, "{} {}", sync_cmds(&old), rand_ops(&old));
    // 0.8: over a thousand raised prefetches reached the disk as sync reads, and the
    // stream, no longer waiting behind 32 sync readers, reads ~30 % more (229.8 → 295.3/s).
    assert!(seq(&new, "prefetch_promoted") > 1000.0, "{}", seq(&new, "prefetch_promoted"));
    assert!(sync_cmds(&new) > rand_ops(&new) + 1000, "{} {}", sync_cmds(&new), rand_ops(&new));
    assert!(seq(&new, "ops_per_s") > 1.15 * seq(&old, "ops_per_s"), "{} {}", seq(&new, "ops_per_s"), seq(&old, "ops_per_s"));
}

/// Sequential reads smaller than a record, and larger than `zfs_read`'s 1 MiB piece, on
/// every prefetcher era: each record is read from the disk once (the stream keeps the
/// record the reader is still inside; the old prefetcher sees the blocks an earlier piece
/// of the same read prefetched as in flight, so it does not restart), and the reader runs
/// at the disk's pace.
#[test]
fn sequential_readers_read_each_record_once_in_every_prefetcher_era() {
    for (rs, size) in [(1u64 << 20, 128u64 << 10), (1 << 20, 4 << 20), (4 << 20, 1 << 20)] {
        for release in ["zfs-0.6.5", "zfs-0.7", "zfs-0.8", "zfs-2.1", "zfs-2.2"] {
            let mut cfg = config(
                release,
                simple_device(1_000_000, "deterministic", 4),
                json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
                json!([{"name": "seq", "kind": "seq-read", "sizes": [[size, 1.0]], "threads": 1, "think_ns": 0}]),
                10,
            );
            cfg["pool"]["recordsize_bytes"] = json!(rs);
            let r = run(&cfg);
            let bytes = r["workloads"][0]["bytes"].as_u64().unwrap();
            let records = bytes / rs;
            let reads: u64 = ["sync_read", "async_read"].iter().map(|c| r["leaves"][0]["classes"][c]["ops"].as_u64().unwrap_or(0)).sum();
            // Read ahead but not yet asked for at the stop: at most the window (64 MiB).
            assert!(reads <= records + (64 << 20) / rs + 2, "{release} rs {rs} size {size}: {reads} disk reads for {records} records");
            // The reader kept up with the disk (a restarting stream would leave it waiting
            // on one record at a time).
            assert!(records >= 5_000, "{release} rs {rs} size {size}: {records} records in 10 s");
        }
    }
}

#[test]
fn a_random_reader_with_a_modelled_arc_reads_the_indirect_blocks_it_lacks() {
    // One reader of 4 KiB over 100 GiB of 16 KiB records (a database's recordsize): each
    // level-1 block maps 16 MiB, ~6400 of them. A 64 MiB ARC serves almost no record, and
    // its metadata share — 3/4 on zfs-2.1, 48 MiB — holds a fraction of the level-1
    // blocks, so most reads first read one. On zfs-2.2 the whole 64 MiB may hold metadata.
    let mk = |release: &str| {
        let mut c = config(
            release,
            simple_device(5_000_000, "deterministic", 4),
            json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
            json!([{"name": "db", "kind": "random-read", "sizes": [[4096, 1.0]], "threads": 1, "arc_bytes": 64u64 << 20}]),
            60,
        );
        c["pool"]["recordsize_bytes"] = json!(16384);
        run(&c)
    };
    for release in ["zfs-2.1", "zfs-2.2"] {
        let r = mk(release);
        let w = &r["workloads"][0];
        let (arc, ind) = (&w["arc"], &w["arc"]["indirect"]);
        assert_eq!(arc["records"], 4096, "{arc}");
        let ops = w["ops"].as_u64().unwrap();
        let reads = ind["reads"].as_u64().unwrap();
        let data_misses = ops - w["arc_hits"].as_u64().unwrap();
        assert!(data_misses > ops * 95 / 100, "{release}: {arc}");
        assert_eq!(ind["cache_bytes"].as_u64().unwrap(), if release == "zfs-2.1" { 48 << 20 } else { 64 << 20 });
        // Every disk read is a record's or an indirect block's (5 ms each, one at a time;
        // the run may stop with one in flight).
        let disk = r["leaves"][0]["classes"]["sync_read"]["ops"].as_u64().unwrap();
        assert!((data_misses + reads).abs_diff(disk) <= 1, "{release}: {disk} {data_misses} {reads}");
        assert!(reads > data_misses / 2, "{release}: most reads climb: {ind}");
        let mean_ms = w["latency_ns"]["mean"].as_f64().unwrap() / 1e6;
        assert!(mean_ms > 5.0 * (1.0 + reads as f64 / ops as f64) * 0.95, "{release}: {mean_ms} ms");
    }
}

#[test]
fn a_random_writer_with_a_modelled_arc_reads_the_level_1_blocks_it_lacks_before_its_tx() {
    // 4 KiB writes into 16 KiB records over 100 GiB, one at a time: `dmu_tx_hold_write`
    // reads the level-1 block above the record (`dmu_tx_check_ioerr`) and the partly
    // covered record itself before the write is assigned. A 64 MiB ARC on zfs-2.1 holds
    // few of either, so most writes wait for two dependent reads.
    let mut c = config(
        "zfs-2.1",
        simple_device(5_000_000, "deterministic", 4),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "w", "kind": "random-write", "sizes": [[4096, 1.0]], "threads": 1, "arc_bytes": 64u64 << 20}]),
        30,
    );
    c["pool"]["recordsize_bytes"] = json!(16384);
    let r = run(&c);
    let w = &r["workloads"][0];
    let ind = &w["arc"]["indirect"];
    let (ops, reads, rmw) = (w["ops"].as_u64().unwrap(), ind["reads"].as_u64().unwrap(), w["rmw_reads"].as_u64().unwrap());
    assert!(ops > 100 && reads > ops * 8 / 10 && rmw > ops * 9 / 10, "{w}");
    let disk = r["leaves"][0]["classes"]["sync_read"]["ops"].as_u64().unwrap();
    assert!((rmw + reads).abs_diff(disk) <= 2, "{disk} {rmw} {reads}");
    // Each write: a level-1 read and then the record's read, 5 ms each.
    let mean_ms = w["latency_ns"]["mean"].as_f64().unwrap() / 1e6;
    assert!(mean_ms > 9.0, "{mean_ms}");
}

/// Readers of a modelled ARC over a small region of 16 KiB records on one 100 µs disk.
fn arc_readers(threads: u32, region: u64, stop_ns: u64) -> serde_json::Value {
    let mut c = config(
        "zfs-2.2",
        simple_device(100_000, "deterministic", 32),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "r", "kind": "random-read", "sizes": [[16384, 1.0]], "threads": threads,
                "region_length_bytes": region, "arc_bytes": 1u64 << 30}]),
        1,
    );
    c["pool"]["recordsize_bytes"] = json!(16384);
    c["stop_ns"] = json!(stop_ns);
    c["report_interval_ns"] = json!(stop_ns);
    run(&c)
}

#[test]
fn readers_wait_for_an_indirect_block_another_reader_is_reading() {
    // 16 readers start together under one level-1 block (16 MiB of 16 KiB records): the
    // first reads the chain, the others wait for those reads (`dbuf_read` of a dbuf in
    // DB_READ), so no read can end before chain + record, and each block is read once.
    let early = arc_readers(16, 16 << 20, 190_000);
    assert_eq!(early["workloads"][0]["ops"], 0, "no read ends before its chain is in");
    let r = arc_readers(16, 16 << 20, 2_000_000);
    let ind = &r["workloads"][0]["arc"]["indirect"];
    assert!(r["workloads"][0]["ops"].as_u64().unwrap() > 16, "{}", r["workloads"][0]);
    assert_eq!(ind["reads"], ind["misses"], "{ind}");
    assert!(ind["reads"].as_u64().unwrap() <= 3, "one read per block of the chain: {ind}");
}

#[test]
fn a_reader_waits_for_a_record_another_reader_is_reading() {
    // Two readers of one record at once: the second finds it being read and waits (an
    // `arc_read` of a buffer in IO_IN_PROGRESS); it is no ARC hit. Later reads hit.
    let r = arc_readers(2, 16384, 1_000_000);
    let w = &r["workloads"][0];
    let (ops, hits) = (w["ops"].as_u64().unwrap(), w["arc_hits"].as_u64().unwrap());
    let open = w["inflight_at_end"].as_u64().unwrap(); // hits counted as they start
    assert!(ops > 10, "{w}");
    assert_eq!(hits, ops - 2 + open, "the reader and the one that waited are not hits: {w}");
    let slow = w["latency_log2"].as_array().unwrap().iter().enumerate()
        .filter(|&(i, _)| i >= 16).map(|(_, c)| c.as_u64().unwrap()).sum::<u64>();
    assert_eq!(slow, 2, "both took the read's time (≥ 65 µs): {w}");
}

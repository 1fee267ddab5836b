//! The L2ARC feed thread (`l2feed.rs`): what it writes to the cache device, how fast,
//! and the L2ARC hits `l2arc_norw` sends to the disks.
mod common;
use common::*;
use serde_json::{json, Value};
use ziosim_model::device::presets;

fn preset(name: &str) -> Value {
    serde_json::to_value(presets::get(name).unwrap()).unwrap()
}

/// 128 KiB random reads by `threads` over one 7200 rpm disk with one S3700 as L2ARC,
/// `l2_hit` of the misses served by it, for `secs`.
fn pool(release: &str, threads: u32, l2_hit: f64, secs: u64) -> Value {
    let mut cfg = config(
        release,
        preset("hdd-7200-sata-2014"),
        json!([{"type": "disk", "disks": [{"name": "sda", "device": "d"}]}]),
        json!([{"name": "r", "kind": "random-read", "sizes": [[131072, 1.0]], "threads": threads, "l2arc_hit_ratio": l2_hit}]),
        secs,
    );
    cfg["pool"]["recordsize_bytes"] = json!(131072);
    cfg["devices"]["ssd"] = preset("intel-s3700");
    cfg["pool"]["cache"] = json!([{"name": "c0", "device": "ssd"}]);
    cfg
}

fn class<'a>(res: &'a Value, leaf: usize, class: &str) -> &'a Value {
    &res["leaves"][leaf]["classes"][class]
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// Everything the disk served is fed, and nothing else: the cache device's writes are
/// the disk's reads (below the feed's rate), and only ASYNC_WRITE.
#[test]
fn the_feed_writes_what_the_pool_served() {
    let res = run(&pool("zfs-0.7", 1, 0.0, 30));
    let l2 = &res["l2arc"];
    eprintln!("{l2}");
    let hdd_read = u(&class(&res, 0, "sync_read")["bytes"]);
    let (wrote, left, lost) = (u(&l2["write_bytes"]), u(&l2["backlog_bytes"]), u(&l2["evicted_unfed_bytes"]));
    assert!(hdd_read > 100 << 20, "the disk served {hdd_read} B");
    // A record counts when its read is issued: the one in flight at the end is not read yet.
    let eligible = wrote + left + lost;
    assert!(eligible >= hdd_read && eligible - hdd_read <= 131072, "fed + waiting + evicted {eligible} vs read from the pool {hdd_read}");
    assert_eq!(lost, 0, "≈ 10 MB/s stays below the feed's 40 MiB/s with l2arc_feed_again");
    assert_eq!(u(&class(&res, 1, "async_write")["bytes"]), wrote);
    assert_eq!(u(&l2["log_blocks"]), 0, "no persistent L2ARC before 2.0");
    assert_eq!(u(&class(&res, 1, "sync_read")["ops"]), 0, "no L2ARC hits drawn");
    // A pool without a cache device has no feed and no `l2arc` results.
    let mut cfg = pool("zfs-0.7", 1, 0.0, 5);
    cfg["pool"]["cache"] = json!([]);
    assert!(run(&cfg).get("l2arc").is_none());
}

/// `l2arc_write_max` bytes per feed at most; a feed that wrote more than half its target
/// comes back after `l2arc_feed_min_ms` (200 ms), else after `l2arc_feed_secs` (1 s).
#[test]
fn the_feed_rate_is_capped_per_interval() {
    let capped = |again: i64| {
        let mut cfg = pool("zfs-0.7", 4, 0.0, 20);
        cfg["tunables"] = json!({"l2arc_write_max": 1 << 20, "l2arc_feed_again": again});
        run(&cfg)
    };
    let (slow, fast) = (capped(0), capped(1));
    for r in [&slow, &fast] {
        let l2 = &r["l2arc"];
        assert!(u(&l2["write_bytes"]) <= u(&l2["feeds"]) << 20, "{l2}");
        assert!(u(&l2["evicted_unfed_bytes"]) > 0, "the disk reads faster than 1 MiB/s: {l2}");
    }
    let (a, b) = (u(&slow["l2arc"]["write_bytes"]) as f64, u(&fast["l2arc"]["write_bytes"]) as f64);
    eprintln!("1 s feeds {a} B, 200 ms feeds {b} B");
    // 20 feeds of 1 MiB (the first at 0 finds nothing) vs ≈ 100.
    assert!((19.0..=21.0).contains(&(a / (1 << 20) as f64)), "{a}");
    assert!((4.0..=5.5).contains(&(b / a)), "{}", b / a);
}

/// 2.0+: each feed that wrote rewrites the device header, every 1022 buffers add a log
/// block, and the target carries the log blocks' worst case (8 MiB + 17 × 64 KiB).
#[test]
fn persistent_l2arc_writes_headers_and_log_blocks() {
    let res = run(&pool("zfs-2.2", 4, 0.0, 60));
    let l2 = &res["l2arc"];
    eprintln!("{l2}");
    let (bufs, lbs, sent) = (u(&l2["buffers"]), u(&l2["log_blocks"]), u(&l2["writes_sent"]));
    assert!(bufs >= 1022 && lbs == bufs / 1022, "{l2}");
    assert_eq!(u(&class(&res, 1, "async_write")["commands"]), bufs + lbs + sent, "buffers, log blocks, one header per feed");
    let target = (8u64 << 20) + 17 * (64 << 10);
    assert!(u(&l2["write_bytes"]) <= u(&l2["feeds"]) * target);
}

/// `l2arc_norw` (illumos, FreeBSD; off in ZoL from 0.6.2): an L2ARC hit on a device the
/// feed is writing is read from the pool.
#[test]
fn norw_sends_hits_to_the_pool_while_feeding() {
    let go = |norw: Option<i64>| {
        let mut cfg = pool("illumos-2012", 4, 0.5, 30);
        if let Some(n) = norw {
            cfg["tunables"] = json!({"l2arc_norw": n});
        }
        run(&cfg)
    };
    let (on, off) = (go(None), go(Some(0)));
    let clash = u(&on["l2arc"]["rw_clash"]);
    eprintln!("rw_clash {clash}; hits {} vs {}", on["workloads"][0]["l2arc_hits"], off["workloads"][0]["l2arc_hits"]);
    assert!(clash > 0, "{}", on["l2arc"]);
    assert_eq!(u(&off["l2arc"]["rw_clash"]), 0);
    // A clash is a drawn hit the pool serves: hits + clashes = what the draw gave.
    let hits = u(&on["workloads"][0]["l2arc_hits"]);
    assert_eq!(u(&class(&on, 1, "sync_read")["ops"]), hits);
    // ZoL 0.6.5+ defaults to 0.
    assert_eq!(u(&run(&pool("zfs-0.6.5", 4, 0.5, 10))["l2arc"]["rw_clash"]), 0);
}

#[test]
fn same_seed_same_feed() {
    let cfg = pool("zfs-2.2", 2, 0.3, 10);
    let (a, b) = (run(&cfg), run(&cfg));
    assert_eq!(a["digest"], b["digest"]);
    assert_eq!(a["l2arc"], b["l2arc"]);
}

/// Bytes of buffers (not log blocks) a run's feeds wrote, per feed that wrote.
fn buffer_bytes_per_feed(res: &Value) -> f64 {
    let l2 = &res["l2arc"];
    let lb = u(&l2["log_blocks"]) * (64 << 10);
    (u(&l2["write_bytes"]) - lb) as f64 / u(&l2["writes_sent"]).max(1) as f64
}

/// One 1 s feed after another (`l2arc_feed_again` off) under ≈ 13 MB/s of pool reads.
fn busy(release: &str) -> Value {
    let mut cfg = pool(release, 4, 0.0, 30);
    cfg["tunables"] = json!({"l2arc_feed_again": 0});
    run(&cfg)
}

/// zfs-2.3 (887a3c533b): `l2arc_write_max` 32 MiB and `l2arc_headroom` 8, where every
/// earlier release had 8 MiB and 2.
#[test]
fn zfs_2_3_feeds_32_mib_at_a_time() {
    let (old, new) = (busy("zfs-2.2"), busy("zfs-2.3"));
    eprintln!("2.2 {} / 2.3 {}", old["l2arc"], new["l2arc"]);
    assert!(u(&old["l2arc"]["evicted_unfed_bytes"]) > 0, "the disk reads faster than 8 MiB/s");
    assert!(buffer_bytes_per_feed(&old) <= (9u64 << 20) as f64);
    assert_eq!(u(&new["l2arc"]["evicted_unfed_bytes"]), 0, "32 MiB a second keeps up");
    assert!(buffer_bytes_per_feed(&new) > (10u64 << 20) as f64, "{}", buffer_bytes_per_feed(&new));
}

/// 2.0 and 2.1 fill a feed up to `l2arc_write_max` and write their log blocks besides;
/// 2.2 (feff9dfed3) makes room for the log blocks' worst case in the target, less a
/// 64 KiB reserve: ≈ 9 MiB of buffers per full feed.
#[test]
fn the_log_block_allowance_came_with_2_2() {
    let (v21, v22) = (busy("zfs-2.1"), busy("zfs-2.2"));
    let (a, b) = (buffer_bytes_per_feed(&v21), buffer_bytes_per_feed(&v22));
    eprintln!("2.1 {a} B per feed, 2.2 {b}");
    assert!(a <= (8u64 << 20) as f64 && a > (7u64 << 20) as f64, "2.1: {a}");
    assert!(b > (8u64 << 20) as f64, "2.2: {b}");
    assert!(u(&v21["l2arc"]["log_blocks"]) > 0, "2.1 writes log blocks too");
}

/// Before 2.0, `l2arc_headroom` = 0 stops the feed's walk at its first buffer: nothing is
/// fed. From 2.0 it means no limit.
#[test]
fn headroom_0_feeds_nothing_before_2_0() {
    let go = |release: &str| {
        let mut cfg = pool(release, 1, 0.0, 10);
        cfg["tunables"] = json!({"l2arc_headroom": 0});
        run(&cfg)
    };
    let old = go("zfs-0.7");
    assert_eq!(u(&old["l2arc"]["buffers"]), 0, "{}", old["l2arc"]);
    assert_eq!(u(&class(&old, 1, "async_write")["ops"]), 0);
    let new = go("zfs-2.0");
    assert!(u(&new["l2arc"]["buffers"]) > 0, "{}", new["l2arc"]);
    assert_eq!(u(&new["l2arc"]["evicted_unfed_bytes"]), 0);
}

/// `l2arc_rebuild_dev`: no log blocks on a cache device smaller than 1 GiB, and one per
/// 16 MiB of a device under 16 GiB (up to 1022 buffers each).
#[test]
fn log_blocks_follow_the_cache_device_size() {
    let go = |capacity: u64| {
        let mut cfg = pool("zfs-2.2", 4, 0.0, 30);
        cfg["devices"]["ssd"]["capacity_bytes"] = json!(capacity);
        run(&cfg)
    };
    let small = go(512 << 20);
    assert_eq!(u(&small["l2arc"]["log_blocks"]), 0, "{}", small["l2arc"]);
    let mid = go(4 << 30);
    let l2 = &mid["l2arc"];
    let per = ((4u64 << 30) - (4 << 20) - 4096 - (512 << 10)) >> 24;
    assert_eq!(u(&l2["log_blocks"]), u(&l2["buffers"]) / per, "{l2}, {per} entries per log block");
}

/// A sequential reader's records come in by prefetch (which, with `l2arc_noprefetch`,
/// reads the pool), so its demand reads find them in the ARC: it draws L2ARC hits only
/// for what the prefetch does not hold.
#[test]
fn prefetched_records_are_not_l2arc_hits() {
    let mut cfg = pool("zfs-2.2", 1, 0.5, 10);
    cfg["workloads"] = json!([{"name": "s", "kind": "seq-read", "sizes": [[131072, 1.0]], "threads": 1, "l2arc_hit_ratio": 0.5}]);
    let res = run(&cfg);
    let pool_read = u(&class(&res, 0, "async_read")["bytes"]) + u(&class(&res, 0, "sync_read")["bytes"]);
    let l2_read = u(&class(&res, 1, "sync_read")["bytes"]);
    eprintln!("pool {pool_read} B, cache {l2_read} B");
    assert!(pool_read > 200 << 20, "{pool_read}");
    assert!(l2_read * 100 < pool_read, "the cache device read {l2_read} B beside the pool's {pool_read}");
}

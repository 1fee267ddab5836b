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

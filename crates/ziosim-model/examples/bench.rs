//! Benchmark: fixed scenarios in release mode, printing simulated leaf I/Os per second of wall
//! time, events per second and peak memory (design.md §8–§9). `bench/run` (and `make bench`)
//! runs the whole set; compare against the previous result *in the same run* (or a run of
//! the previous commit made minutes before), never against a number from another day.
//!
//! ```text
//! cargo run --release -p ziosim-model --example bench -- [--list] [--quick] [NAME_PREFIX ...]
//! ```
//!
//! Every scenario runs in a child process of its own (this binary, re-executed with
//! `--child NAME`), so the peak RSS reported is that scenario's alone. Prints numbers;
//! asserts nothing (speed is measured here, never in tests).

use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;
use ziosim_model::config::RunConfig;
use ziosim_model::device::presets;
use ziosim_model::sim::Run;

const GIB: u64 = 1 << 30;
const TIB: u64 = 1 << 40;
const NS_PER_S: u64 = 1_000_000_000;

/// The system allocator, counting the bytes it holds for the program (the live heap), so
/// the bench can tell memory in use from memory the allocator keeps after it is freed.
struct Counting;

static LIVE_BYTES: AtomicU64 = AtomicU64::new(0);
static LIVE_PEAK_BYTES: AtomicU64 = AtomicU64::new(0);
/// Live allocations by size: to 4 KiB in 8-byte steps, then by power of two. A size names
/// its owner (a `BTreeMap` node of the sorted-scan store, a vdev queue block, a slab).
static LIVE_BY_SIZE: [AtomicU64; SIZE_CLASSES] = [const { AtomicU64::new(0) }; SIZE_CLASSES];
const SIZE_CLASSES: usize = 4096 / 8 + 1 + 64;

fn size_class(n: usize) -> usize {
    if n <= 4096 {
        n.div_ceil(8)
    } else {
        4096 / 8 + 1 + (usize::BITS - (n - 1).leading_zeros()) as usize // ceil(log2 n)
    }
}

/// The largest owners of the live heap by allocation size: "SIZE × COUNT = KiB".
fn live_by_size() -> String {
    let bytes = |c: usize, n: u64| if c <= 4096 / 8 { n * 8 * c as u64 } else { n << (c - 4096 / 8 - 1) };
    let mut v: Vec<(u64, usize, u64)> = (0..SIZE_CLASSES)
        .map(|c| (LIVE_BY_SIZE[c].load(Relaxed), c))
        .filter(|&(n, _)| n > 0)
        .map(|(n, c)| (bytes(c, n), c, n))
        .collect();
    v.sort_by(|a, b| b.0.cmp(&a.0));
    let size = |c: usize| if c <= 4096 / 8 { format!("{}", 8 * c) } else { format!("≤2^{}", c - 4096 / 8 - 1) };
    v.iter().take(12).map(|&(b, c, n)| format!("{} × {} = {} KiB", size(c), n, b >> 10)).collect::<Vec<_>>().join(", ")
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        shrank(l.size());
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            shrank(l.size());
            grew(new);
        }
        q
    }
}

fn grew(n: usize) {
    let live = LIVE_BYTES.fetch_add(n as u64, Relaxed) + n as u64;
    LIVE_PEAK_BYTES.fetch_max(live, Relaxed);
    LIVE_BY_SIZE[size_class(n)].fetch_add(1, Relaxed);
}

fn shrank(n: usize) {
    LIVE_BYTES.fetch_sub(n as u64, Relaxed);
    LIVE_BY_SIZE[size_class(n)].fetch_sub(1, Relaxed);
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Live heap now, KiB (bytes allocated and not yet freed).
fn live_kib() -> u64 {
    LIVE_BYTES.load(Relaxed) >> 10
}

/// (current RSS, peak RSS) of this process, KiB (`/proc/self/status`).
fn rss_kib() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |k: &str| {
        s.lines()
            .find(|l| l.starts_with(k))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// glibc's view of its heap (`mallinfo2`): arena bytes, free bytes in it, mmapped bytes,
/// releasable top, KiB.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn mallinfo() -> String {
    #[repr(C)]
    struct Mallinfo2 {
        arena: usize,
        ordblks: usize,
        smblks: usize,
        hblks: usize,
        hblkhd: usize,
        usmblks: usize,
        fsmblks: usize,
        uordblks: usize,
        fordblks: usize,
        keepcost: usize,
    }
    extern "C" {
        fn mallinfo2() -> Mallinfo2;
    }
    let m = unsafe { mallinfo2() };
    format!(
        "arena_kib {} free_kib {} free_chunks {} mmap_kib {} top_kib {}",
        m.arena >> 10, m.fordblks >> 10, m.ordblks, m.hblkhd >> 10, m.keepcost >> 10
    )
}
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn mallinfo() -> String {
    String::new()
}

fn hdd(preset: &str, capacity: Option<u64>) -> Value {
    let mut spec = serde_json::to_value(presets::get(preset).expect("preset")).unwrap();
    if let Some(c) = capacity {
        spec["capacity_bytes"] = json!(c);
    }
    spec
}

fn disks(prefix: &str, first: usize, n: usize) -> Vec<Value> {
    (first..first + n).map(|i| json!({"name": format!("{prefix}{i}"), "device": "hdd"})).collect()
}

/// The mixed 6-disk raidz2 HDD scenario: OLTP-ish random reads, a backup stream, an ingest.
fn mixed(release: &str, sim_s: u64) -> Value {
    json!({
        "name": format!("mixed {release}"), "seed": 1, "release": release, "hz": 100, "ram_bytes": 16 * GIB,
        "stop_ns": sim_s * NS_PER_S, "report_interval_ns": 10 * NS_PER_S,
        "devices": {"hdd": hdd("hdd-7200-sata-2014", None)},
        "pool": {"name": "tank", "ashift": 12, "recordsize_bytes": 131072, "allocated_bytes": 2 * TIB,
                 "vdevs": [{"type": "raidz2", "disks": disks("sd", 0, 6)}]},
        "workloads": [
            {"name": "oltp", "kind": "random-read", "sizes": [[4096, 0.5], [16384, 0.3], [131072, 0.2]], "threads": 32},
            {"name": "backup", "kind": "seq-read", "sizes": [[1048576, 1.0]], "threads": 2},
            {"name": "ingest", "kind": "random-write", "sizes": [[131072, 1.0]], "rate_per_s": 200.0}
        ]
    })
}

/// The busy-scrub pool (cases/busy-scrub): 3 TB of 128K records on four mirrors of 1 TB disks
/// behind one ~100 MB/s iSCSI path, a user reading every ~0.4 s, illumos-2014 legacy scrub
/// with `zfs_scrub_delay` = 0 (the "fixed" setting of the case) run to the end.
fn scrub_3t(quick: bool) -> Value {
    let mut link = serde_json::to_value(
        ziosim_model::device::link::presets().into_iter().find(|p| p.0 == "iscsi-1gbe").expect("link preset").2,
    )
    .unwrap();
    link["rate_bytes_per_s"] = json!(100_000_000u64);
    let mirror = |i: usize| {
        json!({"type": "mirror", "disks": (0..2).map(|j| json!({"name": format!("c{i}t{j}d0"), "device": "hdd", "link": "iscsi"})).collect::<Vec<_>>()})
    };
    let alloc: u64 = if quick { 3 * TIB / 10 } else { 3 * TIB * 91 / 100 }; // 2.73 TiB = 3 TB
    json!({
        "name": "scrub-3t-legacy", "seed": 1, "release": "illumos-2014", "hz": 100, "ram_bytes": 16 * GIB,
        "stop_ns": 30 * 86400 * NS_PER_S, "report_interval_ns": 3600 * NS_PER_S, "stop_on_scan_done": true,
        "tunables": {"zfs_scrub_delay": 0, "zfs_scan_idle": 50},
        "devices": {"hdd": hdd("hdd-7200-sata-2014", None)}, "links": {"iscsi": link},
        "pool": {"name": "tank", "ashift": 12, "recordsize_bytes": 131072, "allocated_bytes": alloc,
                 "vdevs": (0..4).map(mirror).collect::<Vec<_>>()},
        "workloads": [{"name": "users", "kind": "random-read", "sizes": [[131072, 1.0]], "threads": 1, "think_ns": 400_000_000u64}],
        "actions": [{"at_ns": 10 * NS_PER_S, "do": "scrub"}]
    })
}

/// A 100-disk, 1 PB-class pool: 10 × raidz2 of 10 × 14 TB nearline HDDs (Exos X14 preset),
/// 1 MiB records filling `fill` of the space, zfs-2.2 (sorted scan). One disk fails at 1 s and
/// is replaced at 2 s; the resilver runs to scan-done with no foreground load.
/// `disk_bytes` scales the disks (the 1/10-size pool compares memory).
fn resilver(disk_bytes: u64, fill: f64) -> Value {
    resilver_layout(disk_bytes, fill, 0.0)
}

/// `resilver` on a pool aged to `fragmentation` (`pool.layout`; "aged" is 0.6).
fn resilver_layout(disk_bytes: u64, fill: f64, fragmentation: f64) -> Value {
    let usable = 10.0 * 8.0 * disk_bytes as f64; // raidz2 of 10: 8 data columns
    let alloc = (usable * fill) as u64 >> 20 << 20;
    let vdevs: Vec<Value> = (0..10).map(|v| json!({"type": "raidz2", "disks": disks(&format!("d{v}."), 0, 10)})).collect();
    json!({
        "name": "resilver", "seed": 1, "release": "zfs-2.2", "hz": 250, "ram_bytes": 256 * GIB,
        "stop_ns": 60 * 86400 * NS_PER_S, "report_interval_ns": 3600 * NS_PER_S, "stop_on_scan_done": true,
        "devices": {"hdd": hdd("st14000nm0048", Some(disk_bytes))},
        "pool": {"name": "tank", "ashift": 12, "recordsize_bytes": 1 << 20, "allocated_bytes": alloc, "vdevs": vdevs,
                 "layout": {"fragmentation": fragmentation}},
        "actions": [{"at_ns": NS_PER_S, "do": "fail", "disk": "d3.4"},
                    {"at_ns": 2 * NS_PER_S, "do": "replace", "old": "d3.4", "new": "d3.new"}]
    })
}

/// The same 100 disks as one dRAID, `draid2:8d:100c:4s`, 70 % full: `d.4` fails at 1 s and
/// zed rebuilds the first distributed spare sequentially (`zpool replace -s`); the scrub the
/// rebuild would start is off (`zfs_rebuild_scrub_enabled = 0`) so the run ends with the
/// rebuild, when redundancy is back.
fn rebuild_draid(disk_bytes: u64, fill: f64) -> Value {
    let usable = 96.0 * 8.0 / 10.0 * disk_bytes as f64; // 100 children less 4 spares, 8 of 10 columns data
    let alloc = (usable * fill) as u64 >> 20 << 20;
    json!({
        "name": "rebuild-draid", "seed": 1, "release": "zfs-2.2", "hz": 250, "ram_bytes": 256 * GIB,
        "stop_ns": 60 * 86400 * NS_PER_S, "report_interval_ns": 3600 * NS_PER_S, "stop_on_scan_done": true,
        "tunables": {"zfs_rebuild_scrub_enabled": 0},
        "devices": {"hdd": hdd("st14000nm0048", Some(disk_bytes))},
        "pool": {"name": "tank", "ashift": 12, "recordsize_bytes": 1 << 20, "allocated_bytes": alloc,
                 "vdevs": [{"type": "draid2", "disks": disks("d.", 0, 100), "data": 8, "spares": 4}]},
        "actions": [{"at_ns": NS_PER_S, "do": "fail", "disk": "d.4"}]
    })
}

struct Scenario {
    name: &'static str,
    about: &'static str,
    /// Config for full (`quick` = false) or quick runs.
    cfg: fn(quick: bool) -> Value,
    /// Sample RSS at these fractions of scan progress (examined / to_examine).
    scan: bool,
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario { name: "mixed-zfs-2.2", about: "6x1T raidz2, 32 random readers + 2 streams + ingest, 600 s",
                   cfg: |q| mixed("zfs-2.2", if q { 60 } else { 600 }), scan: false },
        Scenario { name: "mixed-zfs-0.7", about: "same, 2013 class queue",
                   cfg: |q| mixed("zfs-0.7", if q { 60 } else { 600 }), scan: false },
        Scenario { name: "mixed-illumos-2012", about: "same, pre-2013 deadline queue",
                   cfg: |q| mixed("illumos-2012", if q { 60 } else { 600 }), scan: false },
        Scenario { name: "scrub-3t-legacy", about: "busy-scrub pool: 3 TB on 4 iSCSI mirrors, illumos-2014 scrub (delay 0) to the end",
                   cfg: scrub_3t, scan: true },
        Scenario { name: "resilver-1pb", about: "10 x raidz2 of 10 x 14 TB, 1M records, 70 % full, zfs-2.2 resilver to the end",
                   cfg: |q| resilver(if q { 1_400_000_000_000 } else { 14_000_000_000_000 }, 0.7), scan: true },
        Scenario { name: "resilver-1pb-tenth", about: "the same pool with 1.4 TB disks (memory must not grow with size)",
                   cfg: |q| resilver(if q { 140_000_000_000 } else { 1_400_000_000_000 }, 0.7), scan: true },
        Scenario { name: "resilver-frag-tenth", about: "resilver-1pb-tenth with every block placed independently (fragmentation 1)",
                   cfg: |q| resilver_layout(if q { 140_000_000_000 } else { 1_400_000_000_000 }, 0.7, 1.0), scan: true },
        Scenario { name: "rebuild-draid-1pb", about: "the same 100 disks as draid2:8d:100c:4s, 70 % full: rebuild onto a distributed spare",
                   cfg: |q| rebuild_draid(if q { 1_400_000_000_000 } else { 14_000_000_000_000 }, 0.7), scan: false },
    ]
}

/// Run one scenario in this process and print one JSON line of results.
fn child(name: &str, quick: bool) {
    let sc = scenarios().into_iter().find(|s| s.name == name).expect("scenario");
    let cfg = RunConfig::from_json(&(sc.cfg)(quick).to_string()).unwrap();
    let t0 = Instant::now();
    let mut run = Run::new(cfg).unwrap();
    let setup_s = t0.elapsed().as_secs_f64();
    // Memory probes along a scan: (what, RSS KiB, live heap KiB, wall s, simulated s).
    // The sorted scan's metadata walk queues the whole vdev within its first minute of
    // simulated time and the issue phase drains it for hours, so the probes follow both:
    // examined 10 / 50 / 100 % (the walk), half the walk's queue issued, the end.
    let mut probes: Vec<(String, u64, u64, f64, f64)> = Vec::new();
    let probe = |what: &str, run: &Run| {
        (what.to_string(), rss_kib().0, live_kib(), t0.elapsed().as_secs_f64(), run.sim.now() as f64 / 1e9)
    };
    let marks = [0.1, 0.5, 1.0];
    let mut marks_done = 0;
    let mut queue_at: Vec<Option<(u64, u64, u64)>> = Vec::new();
    let mut queue_peak: Option<(u64, u64, u64)> = None;
    // Sios queued when the walk ended; the probe when half of them are issued.
    let mut walk_end_sios: Option<u64> = None;
    let mut half_issued = false;
    // BENCH_MEM_TRACE=1 (with `--child NAME`): a line of memory figures on stderr every
    // 64 steps, and the live heap by allocation size at the walk's end.
    let trace = std::env::var_os("BENCH_MEM_TRACE").is_some();
    let mut steps = 0u64;
    while !run.step_events(1 << 16) {
        steps += 1;
        let m = run.sim.model();
        if trace && steps % 64 == 0 {
            let f = m.scan_progress().map_or(0.0, |(d, t, ..)| d as f64 / t.max(1) as f64);
            eprintln!(
                "mem wall_s {:.1} sim_s {:.0} examined {:.3} rss_kib {} live_kib {} store {:?} {}",
                t0.elapsed().as_secs_f64(), run.sim.now() as f64 / 1e9, f, rss_kib().0, live_kib(),
                m.scan_store_counts(), mallinfo()
            );
        }
        if !sc.scan {
            continue;
        }
        let Some((done, total, ..)) = m.scan_progress() else { continue };
        let f = done as f64 / total.max(1) as f64;
        let store = m.scan_store_counts();
        while marks_done < marks.len() && f >= marks[marks_done] {
            probes.push(probe(&format!("examined {:.0}%", marks[marks_done] * 100.0), &run));
            queue_at.push(store);
            marks_done += 1;
            if f >= 1.0 {
                walk_end_sios = store.map(|c| c.0);
                if trace {
                    eprintln!("live heap by allocation size at the walk's end: {}", live_by_size());
                }
            }
        }
        if let (Some(w), Some(c), false) = (walk_end_sios, store, half_issued) {
            if w > 0 && c.0 <= w / 2 {
                probes.push(probe("queue half issued", &run));
                queue_at.push(store);
                half_issued = true;
            }
        }
        // The largest stored queue (sios, runs, extents), by runs.
        if let Some(c) = store {
            if queue_peak.is_none_or(|p: (u64, u64, u64)| c.1 > p.1) {
                queue_peak = Some(c);
            }
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    let hwm = rss_kib().1;
    if sc.scan {
        probes.push(probe("end", &run));
    }
    let m = run.sim.model();
    let res = run.results();
    let out = json!({
        "name": name, "leaf_ios": m.leaf_ios(), "events": run.sim.events_handled(), "wall_s": wall, "setup_s": setup_s,
        "sim_s": run.sim.now() as f64 / 1e9, "peak_rss_kib": hwm,
        "peak_live_kib": LIVE_PEAK_BYTES.load(Relaxed) >> 10, "end": run.end(),
        "probes": probes, "queue_at": queue_at, "queue_peak": queue_peak, "scan": res["scan"], "digest": res["digest"],
        "rebuilds": res["rebuilds"],
    });
    println!("{out}");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    if let Some(i) = args.iter().position(|a| a == "--child") {
        return child(&args[i + 1], quick);
    }
    let all = scenarios();
    if args.iter().any(|a| a == "--list") {
        for s in &all {
            println!("{:<24} {}", s.name, s.about);
        }
        return;
    }
    let wanted: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let exe = std::env::current_exe().unwrap();
    println!(
        "{:<22} {:>11} {:>11} {:>11} {:>11} {:>8} {:>9} {:>10}  {}",
        "scenario", "leaf_ios", "events", "leaf_ios/s", "events/s", "wall_s", "sim_s", "peak_MiB", "digest"
    );
    for s in all.iter().filter(|s| wanted.is_empty() || wanted.iter().any(|w| s.name.starts_with(w.as_str()))) {
        let mut cmd = std::process::Command::new(&exe);
        cmd.arg("--child").arg(s.name);
        if quick {
            cmd.arg("--quick");
        }
        let out = cmd.output().expect("run child");
        if !out.status.success() {
            println!("{:<22} failed: {}", s.name, String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or(""));
            continue;
        }
        let v: Value = serde_json::from_slice(&out.stdout).expect("child output");
        let (leaf, ev, wall) = (v["leaf_ios"].as_u64().unwrap(), v["events"].as_u64().unwrap(), v["wall_s"].as_f64().unwrap());
        println!(
            "{:<22} {:>11} {:>11} {:>11.0} {:>11.0} {:>8.2} {:>9.0} {:>10.1}  {}",
            s.name, leaf, ev, leaf as f64 / wall, ev as f64 / wall, wall, v["sim_s"].as_f64().unwrap(),
            v["peak_rss_kib"].as_u64().unwrap() as f64 / 1024.0, v["digest"].as_str().unwrap_or("-")
        );
        if let Some(rb) = v["rebuilds"].as_array().and_then(|r| r.first()) {
            println!(
                "{:<22} rebuild {} {}: simulated {:.1} h, scanned {:.1} TiB, issued {:.1} TiB, rebuilt {:.1} TiB, live heap at its largest {:.1} MiB",
                "", rb["vdev"].as_str().unwrap_or("-"), rb["state"].as_str().unwrap_or("-"),
                rb["duration_ns"].as_f64().unwrap_or(0.0) / 3.6e12, rb["scanned_bytes"].as_f64().unwrap_or(0.0) / TIB as f64,
                rb["issued_bytes"].as_f64().unwrap_or(0.0) / TIB as f64, rb["rebuilt_bytes"].as_f64().unwrap_or(0.0) / TIB as f64,
                v["peak_live_kib"].as_f64().unwrap_or(0.0) / 1024.0
            );
        }
        if s.scan {
            let sc = &v["scan"];
            println!(
                "{:<22} {} {}: simulated {:.1} h, examined {:.1} TiB, issued {:.1} TiB, end {}",
                "", sc["func"].as_str().unwrap_or("-"), sc["state"].as_str().unwrap_or("-"),
                sc["duration_ns"].as_f64().unwrap_or(0.0) / 3.6e12,
                sc["examined_bytes"].as_f64().unwrap_or(0.0) / TIB as f64,
                sc["issued_bytes"].as_f64().unwrap_or(0.0) / TIB as f64, v["end"].as_str().unwrap_or("-")
            );
            let mib = |x: &Value| x.as_f64().unwrap() / 1024.0;
            let probes: Vec<String> = v["probes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| format!("{} {:.1} / {:.1} ({:.0} s)", p[0].as_str().unwrap(), mib(&p[1]), mib(&p[2]), p[4].as_f64().unwrap()))
                .collect();
            println!("{:<22} RSS / live heap, MiB (simulated time): {}", "", probes.join(", "));
            println!("{:<22} live heap at its largest: {:.1} MiB", "", mib(&v["peak_live_kib"]));
            if let Some(q) = v["queue_peak"].as_array() {
                println!(
                    "{:<22} sorted-scan store at its largest: {} sios in {} runs, {} extents",
                    "", q[0], q[1], q[2]
                );
            }
        }
    }
}

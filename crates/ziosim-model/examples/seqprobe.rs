//! Sequential-read throughput of every HDD preset: closed-loop LBA-ordered reads of 64 KiB to
//! 16 MiB at queue depths 1–8 (the pattern ZFS prefetch sends: several outstanding reads,
//! aggregated up to `zfs_vdev_aggregation_limit`, in LBA order), then two interleaved streams.
//! A drive streams at its outer-zone media rate at any depth; `ratio` is MB/s over that rate.
//!
//! `cargo run -p ziosim-model --release --example seqprobe [preset]`
//!
//! stdout is a table (MB/s, base-10 as datasheets quote media rates).

use ziosim_model::device::hdd::{presets, Hdd, HddParams};
use ziosim_model::device::{Cmd, Device};
use ziosim_model::io::Op;

/// Closed-loop sequential streams, `qd` outstanding reads each, starting at `starts`;
/// returns the aggregate MB/s over `n` completions and the fewest completions of a stream.
fn streams(p: &HddParams, starts: &[u64], qd: u32, size: u64, n: u64) -> (f64, u64) {
    let mut d = Hdd::new(p.clone(), 1);
    let mut next: Vec<u64> = starts.to_vec();
    let mut owner: Vec<usize> = Vec::new(); // tag -> stream
    let submit = |d: &mut Hdd, owner: &mut Vec<usize>, next: &mut [u64], now: u64, s: usize| {
        let cmd = Cmd {
            tag: owner.len() as u32,
            op: Op::Read,
            offset_bytes: next[s],
            size_bytes: size,
        };
        owner.push(s);
        next[s] += size;
        d.submit(now, cmd);
    };
    let mut now = 0;
    for _ in 0..qd {
        for s in 0..starts.len() {
            submit(&mut d, &mut owner, &mut next, now, s);
        }
    }
    let mut done = Vec::new();
    let mut per_stream = vec![0u64; starts.len()];
    let mut completed = 0;
    while completed < n {
        now = d.next_event_ns().expect("idle with reads outstanding");
        done.clear();
        d.advance(now, &mut done);
        // Each stream resubmits when one of its reads finishes, as a closed-loop reader does.
        for &tag in &done {
            let s = owner[tag as usize];
            per_stream[s] += 1;
            completed += 1;
            submit(&mut d, &mut owner, &mut next, now, s);
        }
    }
    let mb_s = (completed * size) as f64 / (now as f64 * 1e-9) / 1e6;
    (mb_s, per_stream.into_iter().min().unwrap_or(0))
}

fn main() {
    let only = std::env::args().nth(1);
    let sizes_kib = [64u64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384];
    for (name, _, p) in presets() {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let od = p.rate_od_bytes_per_s as f64 / 1e6;
        println!("{name}: outer-zone rate {od:.0} MB/s; MB/s at QD 1..8");
        println!(
            "{:>9} {}",
            "size",
            (1..=8).map(|q| format!("{:>6}", format!("QD{q}"))).collect::<String>()
        );
        let mut worst = f64::MAX;
        for kib in sizes_kib {
            let size = kib << 10;
            // About 1 GB per point, at least 200 reads.
            let n = (1_000_000_000 / size).max(200);
            let row: Vec<f64> = (1..=8).map(|qd| streams(&p, &[0], qd, size, n).0).collect();
            worst = row.iter().fold(worst, |w, &r| w.min(r / od));
            println!(
                "{:>6}KiB {}",
                kib,
                row.iter().map(|r| format!("{r:>6.1}")).collect::<String>()
            );
        }
        println!("  worst ratio {worst:.3}");
        // Two streams 10 GB apart: the drive alternates between them, so the aggregate is
        // below the media rate, but neither stream may starve or collapse.
        println!("  two streams 10 GB apart: aggregate MB/s (slower stream's share of reads)");
        for kib in [128u64, 1024, 4096] {
            let size = kib << 10;
            let n = (2_000_000_000 / size).max(400);
            let cells: String = [1u32, 2, 3, 4, 8]
                .iter()
                .map(|&qd| {
                    let (r, min) = streams(&p, &[0, 10_000_000_000], qd, size, n);
                    format!("  QD{qd} {r:>5.1} ({:.2})", min as f64 / n as f64)
                })
                .collect();
            println!("{:>6}KiB{cells}", kib);
        }
    }
}

//! Micro-benchmark of the HDD model alone: submit+advance cycles per second of wall time at a
//! fixed queue depth. Not a test (no assertion on time); compare runs made on the same machine.
//!
//! `cargo run -p ziosim-model --release --example hdd_bench [preset] [qd] [completions]`
#![allow(clippy::disallowed_methods)] // wall-clock timing is the point of a benchmark

use std::time::Instant;
use ziosim_engine::Rng;
use ziosim_model::device::hdd::{preset, Hdd};
use ziosim_model::device::{Cmd, Device};
use ziosim_model::io::Op;

fn bench(name: &str, qd: u32, n: u64, seq: bool) {
    let p = preset(name).unwrap_or_else(|| panic!("no preset {name}"));
    let cap = p.capacity_bytes;
    let mut dev = Hdd::new(p, 1);
    let mut rng = Rng::from_u64(2);
    let mut next_seq = 0u64;
    let mut gen = |rng: &mut Rng| {
        if seq {
            next_seq += 131072;
            (next_seq - 131072) % cap
        } else {
            rng.below(cap / 4096) * 4096
        }
    };
    let size = if seq { 131072 } else { 4096 };
    let mut done = Vec::with_capacity(qd as usize);
    let mut tag = 0u32;
    for _ in 0..qd {
        dev.submit(
            0,
            Cmd {
                tag,
                op: Op::Read,
                offset_bytes: gen(&mut rng),
                size_bytes: size,
            },
        );
        tag = tag.wrapping_add(1);
    }
    let (mut completed, mut calls, mut t) = (0u64, 0u64, 0u64);
    let wall = Instant::now();
    while completed < n {
        t = dev.next_event_ns().expect("busy device has a next event");
        done.clear();
        dev.advance(t, &mut done);
        calls += 1;
        for _ in 0..done.len() {
            dev.submit(
                t,
                Cmd {
                    tag,
                    op: Op::Read,
                    offset_bytes: gen(&mut rng),
                    size_bytes: size,
                },
            );
            tag = tag.wrapping_add(1);
        }
        completed += done.len() as u64;
    }
    let s = wall.elapsed().as_secs_f64();
    println!(
        "{name} {} QD{qd}: {completed} commands in {s:.3} s wall = {:.0} commands/s ({:.0} advance calls/s); simulated {:.1} s, {:.0} IOPS",
        if seq { "seq 128K" } else { "rand 4K" },
        completed as f64 / s,
        calls as f64 / s,
        t as f64 * 1e-9,
        completed as f64 / (t as f64 * 1e-9),
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("hdd-7200-sata-2014", |s| s.as_str());
    let qd = args.get(2).map_or(32, |s| s.parse().unwrap());
    let n = args.get(3).map_or(1_000_000, |s| s.parse().unwrap());
    bench(name, qd, n, false);
    bench(name, 1, n / 4, false);
    bench(name, 4, n, true);
}

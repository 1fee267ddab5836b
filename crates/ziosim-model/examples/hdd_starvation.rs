//! §2.9 calibration run: QD1 4 KiB random reads against a duty-cycled, nearly sequential
//! reader (QD up to 3, 128 KiB–1 MiB, small gaps), as a pre-2.1 scrub would issue. Prints the
//! random reads' latency histogram in the log2-ms buckets of spec/devices.md §2.9 (bucket i
//! counts latencies up to 2^i ms) for each preset, with seq affinity as shipped and turned off.
//!
//! `cargo run -p ziosim-model --release --example hdd_starvation [seconds]`

use ziosim_engine::Rng;
use ziosim_model::device::hdd::{presets, Hdd, HddParams};
use ziosim_model::device::{Cmd, Device};
use ziosim_model::io::Op;

fn histogram(p: &HddParams, seconds: u64, seed: u64) -> (Vec<u64>, f64) {
    let mut dev = Hdd::new(p.clone(), seed);
    let mut rng = Rng::from_u64(seed);
    let end_ns = seconds * 1_000_000_000;
    let cap = p.capacity_bytes;
    let mut sub: Vec<(bool, u64)> = Vec::new(); // tag -> (random?, submit time)
    let mut hist = vec![0u64; 14];
    let (mut rand_busy, mut seq_busy) = (false, 0u32);
    let mut seq_off = rng.below(cap / 2) & !4095;
    let mut seq_bytes = 0u64;
    let mut on_until = 0u64;
    let mut off_until = 0u64;
    let mut t = 0u64;
    let mut done = Vec::new();
    while t < end_ns {
        // Duty cycle of the stream: on 0.2–2 s, off 20–300 ms.
        if t >= off_until && t >= on_until {
            on_until = t + 200_000_000 + rng.below(1_800_000_000);
            off_until = on_until + 20_000_000 + rng.below(280_000_000);
        }
        let stream_on = t < on_until;
        if !rand_busy && dev.can_accept(Op::Read) {
            let off = rng.below(cap / 4096) * 4096;
            sub.push((true, t));
            dev.submit(
                t,
                Cmd {
                    tag: sub.len() as u32 - 1,
                    op: Op::Read,
                    offset_bytes: off,
                    size_bytes: 4096,
                },
            );
            rand_busy = true;
        }
        while stream_on && seq_busy < 3 && dev.can_accept(Op::Read) {
            let size = 131072 << rng.below(4);
            seq_off += rng.below(16) * 4096; // small gaps, as a sorted scan leaves
            sub.push((false, t));
            dev.submit(
                t,
                Cmd {
                    tag: sub.len() as u32 - 1,
                    op: Op::Read,
                    offset_bytes: seq_off % cap,
                    size_bytes: size,
                },
            );
            seq_off += size;
            seq_busy += 1;
        }
        let next = dev
            .next_event_ns()
            .unwrap_or(off_until)
            .min(if stream_on { NONE } else { off_until });
        t = next.max(t + 1);
        done.clear();
        dev.advance(t, &mut done);
        for &tag in &done {
            let (random, st) = sub[tag as usize];
            if random {
                let ms = (t - st) as f64 / 1e6;
                let mut b = 0;
                while b < 13 && ms > (1u64 << b) as f64 {
                    b += 1;
                }
                hist[b] += 1;
                rand_busy = false;
            } else {
                seq_busy -= 1;
                seq_bytes += 131072;
            }
        }
    }
    (hist, seq_bytes as f64 / seconds as f64 / 1e6)
}

const NONE: u64 = u64::MAX;

fn main() {
    let seconds: u64 = std::env::args().nth(1).map_or(300, |s| s.parse().unwrap());
    println!("random 4K QD1 latency, counts per bucket ≤1,2,4,…,4096,>4096 ms ({seconds} s simulated)");
    for (name, _, p) in presets() {
        let (h, _) = histogram(&p, seconds, 1);
        let mut off = p.clone();
        off.seq_strict = false;
        off.seq_cost_bias_ms = 0.0;
        off.readahead_unpreemptible = false;
        let (h_off, _) = histogram(&off, seconds, 1);
        let fmt = |h: &Vec<u64>| h.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",");
        println!("{name:>22} as shipped : {}", fmt(&h));
        println!("{name:>22} affinity off: {}", fmt(&h_off));
    }
}

//! Mirror child selection (`Model_::try_pick_mirror_child`) against `vdev_mirror.c` of
//! each release: how ties are broken.

use super::*;
use serde_json::json;

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

/// A two-way mirror (sda, sdb) of `preset` disks, idle, with `actions`.
fn run_of(release: &str, preset: &str, seed: u64, actions: Value) -> Run {
    let dev = serde_json::to_value(crate::device::presets::get(preset).unwrap()).unwrap();
    let cfg = json!({
        "name": "t", "seed": seed, "release": release, "hz": 100, "ram_bytes": 16u64 << 30,
        "stop_ns": 3600u64 * NS_PER_S, "report_interval_ns": NS_PER_S,
        "devices": {"d": dev},
        "pool": {"name": "tank", "ashift": 12, "recordsize_bytes": 131072, "allocated_bytes": GIB,
                 "vdevs": [{"type": "mirror", "disks": [{"name": "sda", "device": "d"}, {"name": "sdb", "device": "d"}]}]},
        "workloads": [], "actions": actions
    });
    Run::new(RunConfig::from_json(&cfg.to_string()).expect("config")).expect("run")
}

fn leaf_named(m: &Model_, name: &str) -> u16 {
    m.leaves.iter().position(|l| l.name == name).unwrap() as u16
}

/// Idle leaves: nothing active, last offset 0.
fn quiet(m: &mut Model_) {
    for l in &mut m.leaves {
        l.active = 0;
        l.last_offset = 0;
    }
}

/// zfs-0.7 … 2.3: equally loaded children below the root are chosen by the read's 2 MiB
/// stripe, `(io_offset >> 21) % count` (`vdev_mirror_preferred_child_randomize`), the same
/// for every seed.
#[test]
fn tied_mirror_children_follow_the_2m_stripe_for_every_seed() {
    for release in ["zfs-0.7", "zfs-2.0", "zfs-2.2", "zfs-2.3"] {
        for seed in 1..=6 {
            let mut run = run_of(release, "intel-s3700", seed, json!([]));
            let m = run.sim.model_mut();
            quiet(m);
            let (a, b) = (leaf_named(m, "sda"), leaf_named(m, "sdb"));
            // Offset 0 = both last offsets (load 0 each); elsewhere a seek (load 1 each).
            let picks: Vec<u16> =
                [0, 2 * MIB, 0, 4 * MIB, 6 * MIB + 4096].iter().map(|&off| m.try_pick_mirror_child(0, off, 0, 0).unwrap()).collect();
            assert_eq!(picks, vec![a, b, a, a, b], "{release} seed {seed}");
        }
    }
}

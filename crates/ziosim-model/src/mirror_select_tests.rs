//! Mirror child selection (`Model_::try_pick_mirror_child`) against `vdev_mirror.c` of
//! each release: the load of a `replacing-N` child, and how ties are broken.

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
        l.mirror_last = 0;
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
                [0, 2 * MIB, 0, 4 * MIB, 6 * MIB + 4096].iter().map(|&off| m.try_pick_mirror_child(0, off, 0, 0, 0).unwrap()).collect();
            assert_eq!(picks, vec![a, b, a, a, b], "{release} seed {seed}");
        }
    }
}

/// zfs-0.6.5 … 2.3: a `replacing-1` child is an interior vdev whose queue is empty, so its
/// load is the seek penalty alone (0.6.5: 0 pending), not the load of the disk under it.
#[test]
fn a_replacing_child_weighs_as_an_empty_queue() {
    for release in ["zfs-0.6.5", "zfs-0.7", "zfs-2.1", "zfs-2.2", "zfs-2.3"] {
        let mut run = run_of(release, "hdd-7200-sata-2014", 1, json!([{"at_ns": 0, "do": "replace", "old": "sdb", "new": "sdc"}]));
        while run.sim.model().replacing[0][1].is_none() {
            assert!(!run.step_events(1), "{release}: the replace never happened");
        }
        let m = run.sim.model_mut();
        quiet(m);
        let (a, b) = (leaf_named(m, "sda"), leaf_named(m, "sdb"));
        m.leaves[a as usize].active = 1;
        m.leaves[b as usize].active = 4;
        // Far from every last offset: sda 1 + 5 = 6, replacing-1 0 + 5 = 5 (sdb's 4 + 5 = 9
        // does not count); 0.6.5: sda 1 pending, replacing-1 0.
        assert_eq!(m.try_pick_mirror_child(0, 100 * GIB, 0, 0, 0), Some(b), "{release}: the replacing child's disk");
        // sda idle and reading on from its last I/O (load 0): it wins again.
        m.leaves[a as usize].active = 0;
        m.leaves[a as usize].last_offset = 100 * GIB;
        m.leaves[a as usize].mirror_last = 100 * GIB;
        if release != "zfs-0.6.5" {
            assert_eq!(m.try_pick_mirror_child(0, 100 * GIB, 0, 0, 0), Some(a), "{release}");
        }
    }
}

/// zfs-0.7 (0.7.0 … 0.7.5, MR@zfs-0.7.0): the seek window is measured from the end of the
/// last read the mirror sent a child, unsigned, so a read just behind it counts as near and
/// one just ahead of it as a full seek; writes and other I/O (`last_offset`) do not count.
/// From 0.7.6 (d6c6590c5d; zfs-0.8 here) the leaf's last issued I/O, either side.
#[test]
fn zfs_0_7_0_measures_the_seek_from_the_last_mirror_read_and_only_backwards() {
    for release in ["zfs-0.7", "zfs-0.8"] {
        let mut run = run_of(release, "hdd-7200-sata-2014", 1, json!([]));
        let m = run.sim.model_mut();
        quiet(m);
        let (a, b) = (leaf_named(m, "sda"), leaf_named(m, "sdb"));
        // A read of 128K at 64 MiB: both far (load 5 each), the 2 MiB stripe picks sda
        // ((64M >> 21) % 2 = 0), which in 0.7.0 remembers 64M + 128K.
        assert_eq!(m.try_pick_mirror_child(0, 64 * MIB, 128 << 10, 0, 0), Some(a), "{release}");
        m.leaves[a as usize].last_offset = 64 * MIB + (128 << 10);
        let behind = 64 * MIB + (64 << 10);
        let ahead = 64 * MIB + (192 << 10);
        // sdb is far from both offsets (load 5); sda's load tells the two rules apart.
        let load_a = |m: &Model_, off: u64| m.mirror_child_load(0, 0, a, off);
        assert_eq!(m.mirror_child_load(0, 1, b, behind), 5);
        if release == "zfs-0.7" {
            assert_eq!(m.leaves[a as usize].mirror_last, 64 * MIB + (128 << 10));
            assert_eq!(load_a(m, behind), 2, "behind the last read, within 1 MiB: half the penalty");
            assert_eq!(load_a(m, ahead), 5, "just ahead: the unsigned distance wraps, a full seek");
            // A write there moves the queue's last offset, not vq_lastoffset.
            m.leaves[a as usize].last_offset = 10 * GIB;
            assert_eq!(load_a(m, behind), 2);
        } else {
            assert_eq!(m.leaves[a as usize].mirror_last, 0, "0.7.6+ keeps no vq_lastoffset");
            assert_eq!(load_a(m, behind), 2);
            assert_eq!(load_a(m, ahead), 2, "either side within 1 MiB");
            m.leaves[a as usize].last_offset = 10 * GIB;
            assert_eq!(load_a(m, behind), 5, "the last issued I/O of any class counts");
        }
    }
}

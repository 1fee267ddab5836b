//! The host's interrupt poll (`Run::set_interrupt_poll`): a pending Ctrl-C stops a run
//! within a few thousand steps, even inside one long event (the sorted scan's metadata
//! walk), and a poll that never says stop changes nothing.
mod common;
use common::*;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use ziosim_model::config::RunConfig;
use ziosim_model::sim::Run;

/// A scrub of `gib` GiB of 4K records on a mirror, for `stop_s` seconds.
fn scrub_cfg(gib: u64, stop_s: u64) -> Value {
    let mut cfg = config("zfs-2.2", simple_device(100_000, "deterministic", 32), json!([{"type": "mirror", "disks": [{"name": "a", "device": "d"}, {"name": "b", "device": "d"}]}]), json!([]), stop_s);
    cfg["pool"]["allocated_bytes"] = json!(gib << 30);
    cfg["actions"] = json!([{"at_ns": 0, "do": "scrub"}]);
    cfg
}

fn new_run(cfg: &Value) -> Run {
    Run::new(RunConfig::from_json(&cfg.to_string()).unwrap()).unwrap()
}

static CALLS: AtomicU64 = AtomicU64::new(0);

fn never() -> bool {
    CALLS.fetch_add(1, Ordering::Relaxed);
    false
}

static ASKED: AtomicU64 = AtomicU64::new(0);

/// Says stop from its 20th call on.
fn after_twenty() -> bool {
    ASKED.fetch_add(1, Ordering::Relaxed) >= 20
}

#[test]
fn a_poll_that_never_says_stop_changes_nothing() {
    let cfg = scrub_cfg(1, 60);
    let plain = run(&cfg);
    let mut r = new_run(&cfg);
    r.set_interrupt_poll(never);
    while !r.step_events(1 << 20) {}
    assert!(!r.interrupted());
    assert!(CALLS.load(Ordering::Relaxed) > 0, "the poll was never asked");
    assert_eq!(r.results()["digest"], plain["digest"]);
}

#[test]
fn a_poll_that_says_stop_ends_the_step_early_inside_the_walk() {
    // 16 GiB of 4K records: the metadata walk meets 4 M blocks in a few events.
    let mut r = new_run(&scrub_cfg(16, 600));
    r.set_interrupt_poll(after_twenty);
    // One call asked for every event of the run: it comes back long before, interrupted.
    let done = r.step_events(u64::MAX / 2);
    assert!(!done && r.interrupted());
    let asked = ASKED.load(Ordering::Relaxed);
    assert!((21..25).contains(&asked), "asked {asked} times");
    // Between events it is asked every 4096: 21 asks there would be 80 K events. Fewer
    // handled means it was asked inside an event, by the walk.
    let events = r.sim.events_handled();
    assert!(events < 20 * 4096, "{events} events handled before the stop");
    // It stays stopped.
    assert!(!r.step_events(1000) && r.interrupted());
}

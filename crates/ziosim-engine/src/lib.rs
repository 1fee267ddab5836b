//! ziosim-engine: the discrete-event core of ziosim.
//!
//! Theory of operation
//! -------------------
//! Simulated time is an integer number of nanoseconds (`u64`). Every event is keyed
//! `(time_ns, seq)`, where `seq` is a counter incremented at each `schedule`: two events
//! at the same instant are handled in the order they were scheduled, never in heap order.
//! The model owns all state; the engine only owns the clock, the heap and the digest.
//! A model sees the engine through [`Ctx`] (`now`, `schedule_in`, `schedule_at`) and never
//! touches the heap. Randomness comes from [`Rng`] streams split by a stable name
//! (`Rng::stream(seed, "disk/sda")`), so adding a workload does not shift a disk's draws.
//! Every handled event is folded into a 64-bit run digest: same scenario and seed, same
//! digest, on any machine.
//!
//! ```
//! use ziosim_engine::{Ctx, Model, Sim, Limits};
//! #[derive(Clone, Copy, Debug)]
//! enum Ev { Tick(u32) }
//! struct Counter { n: u32 }
//! impl Model for Counter {
//!     type Event = Ev;
//!     fn handle(&mut self, ev: Ev, ctx: &mut Ctx<Ev>) {
//!         let Ev::Tick(k) = ev;
//!         self.n += 1;
//!         if k < 9 { ctx.schedule_in(1_000, Ev::Tick(k + 1)); }
//!     }
//!     fn digest_word(ev: &Ev) -> u64 { let Ev::Tick(k) = ev; *k as u64 }
//! }
//! let mut sim = Sim::new(Counter { n: 0 }, Limits::default());
//! sim.schedule_at(0, Ev::Tick(0));
//! let end = sim.run();
//! assert_eq!(sim.model().n, 10);
//! assert_eq!(sim.now(), 9_000);
//! assert!(end.is_ok());
//! ```

mod rng;
pub use rng::{Rng, stream_seed};

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// Nanoseconds of simulated time.
pub type TimeNs = u64;

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

/// A model: state plus an event handler. The engine calls `handle` once per event, in
/// `(time_ns, seq)` order.
pub trait Model {
    type Event: Copy + std::fmt::Debug;
    fn handle(&mut self, ev: Self::Event, ctx: &mut Ctx<Self::Event>);
    /// A word describing the event for the run digest (kind and identity, not pointers).
    fn digest_word(ev: &Self::Event) -> u64;
}

/// A scheduled event. Ordered by `key()` = `time_ns · 2⁶⁴ + seq`, whose integer order is
/// `(time, seq)` order (one wide compare instead of a tuple's two); keys are unique. Kept as
/// two `u64`s so an entry stays 24 bytes (a `u128` field would align it to 32).
struct Entry<E> {
    time_ns: TimeNs,
    seq: u64,
    ev: E,
}

impl<E> Entry<E> {
    #[inline]
    fn key(&self) -> u128 {
        (self.time_ns as u128) << 64 | self.seq as u128
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // BinaryHeap is a max-heap: reverse so the smallest (time, seq) pops first.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key().cmp(&self.key())
    }
}

/// What a model may do to the engine while handling an event.
///
/// The pending events live here, so `schedule_at` files an event at once instead of
/// staging it for the engine to copy, in one of three places:
/// * `now_q`: events at the current time, in scheduling order. Every other pending event
///   at the current time was scheduled before the clock got here, so it comes first, and
///   these need no ordering beyond their queue (a burst of same-time events, such as
///   throttled writers released together, never enters the heap).
/// * `front`: the earliest of the rest, when set: a handler very often schedules exactly
///   the event that runs next (a device's wake-up, a completion), and that one then never
///   enters the heap at all.
/// * `heap`: the others.
///
/// Invariants: `front`, when set, has a smaller key than every heap entry; every `now_q`
/// entry is at `now_ns` with a larger `seq` than any `front` or heap entry at `now_ns`.
pub struct Ctx<E> {
    now_ns: TimeNs,
    next_seq: u64,
    now_q: VecDeque<Entry<E>>,
    front: Option<Entry<E>>,
    heap: BinaryHeap<Entry<E>>,
    stop_requested: bool,
}

impl<E: Copy> Ctx<E> {
    fn new() -> Ctx<E> {
        Ctx {
            now_ns: 0,
            next_seq: 0,
            now_q: VecDeque::with_capacity(64),
            front: None,
            heap: BinaryHeap::with_capacity(1024),
            stop_requested: false,
        }
    }
    #[inline]
    pub fn now(&self) -> TimeNs {
        self.now_ns
    }
    /// Schedule `ev` at `now + delay_ns`.
    #[inline]
    pub fn schedule_in(&mut self, delay_ns: TimeNs, ev: E) {
        let t = self.now_ns.saturating_add(delay_ns);
        self.schedule_at(t, ev);
    }
    /// Schedule `ev` at absolute time `t` (clamped to now: the past cannot be changed).
    #[inline]
    pub fn schedule_at(&mut self, t: TimeNs, ev: E) {
        let t = t.max(self.now_ns);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.insert(Entry { time_ns: t, seq, ev });
    }
    /// Ask the engine to stop after this event.
    pub fn stop(&mut self) {
        self.stop_requested = true;
    }

    /// File `e` (its `seq` is the largest yet). Later than now: it goes in front only if
    /// its time is strictly earlier than every other pending event's. Always inlined: it
    /// sits under every `schedule_*` call, and left to itself the compiler outlines it.
    #[inline(always)]
    fn insert(&mut self, e: Entry<E>) {
        if e.time_ns == self.now_ns {
            self.now_q.push_back(e);
            return;
        }
        match &self.front {
            Some(f) if e.time_ns < f.time_ns => {
                let old = self.front.replace(e);
                self.heap.push(old.unwrap());
            }
            Some(_) => self.heap.push(e),
            None if self.heap.peek().is_none_or(|h| e.time_ns < h.time_ns) => self.front = Some(e),
            None => self.heap.push(e),
        }
    }
    /// Time of the earliest event in `front` or the heap.
    #[inline]
    fn later_time(&self) -> Option<TimeNs> {
        match &self.front {
            Some(f) => Some(f.time_ns),
            None => self.heap.peek().map(|e| e.time_ns),
        }
    }
    /// The earliest pending event, removed.
    #[inline]
    fn pop(&mut self) -> Option<Entry<E>> {
        if !self.now_q.is_empty() && self.later_time() != Some(self.now_ns) {
            return self.now_q.pop_front();
        }
        self.front.take().or_else(|| self.heap.pop())
    }
    #[inline]
    fn peek_time(&self) -> Option<TimeNs> {
        if self.now_q.is_empty() {
            self.later_time()
        } else {
            Some(self.now_ns)
        }
    }
    fn len(&self) -> usize {
        self.now_q.len() + usize::from(self.front.is_some()) + self.heap.len()
    }
}

/// Hard bounds on a run; hitting one ends the run with a diagnostic.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Maximum number of events handled (a runaway-loop guard).
    pub events_max: u64,
    /// Maximum simulated time, ns.
    pub time_ns_max: TimeNs,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { events_max: 2_000_000_000, time_ns_max: 400 * 24 * 3600 * NS_PER_S }
    }
}

/// Why a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// No events left.
    Drained,
    /// `run_until(t)` reached `t`.
    Reached(TimeNs),
    /// The model called `ctx.stop()`.
    Stopped,
    /// A hard limit was hit; the string says which and where.
    Limit(String),
}

/// The simulation: a model, a clock, a heap of events and a digest.
pub struct Sim<M: Model> {
    model: M,
    ctx: Ctx<M::Event>,
    limits: Limits,
    events: u64,
    digest: u64,
}

const DIGEST_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline]
fn mix(mut h: u64, w: u64) -> u64 {
    // One round of a multiply-xorshift mixer (splitmix64 finaliser over the running state).
    h ^= w.wrapping_add(0x9E37_79B9_7F4A_7C15).wrapping_add(h << 6).wrapping_add(h >> 2);
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

impl<M: Model> Sim<M> {
    pub fn new(model: M, limits: Limits) -> Self {
        Sim {
            model,
            ctx: Ctx::new(),
            limits,
            events: 0,
            digest: DIGEST_SEED,
        }
    }

    pub fn now(&self) -> TimeNs {
        self.ctx.now_ns
    }
    pub fn events_handled(&self) -> u64 {
        self.events
    }
    pub fn digest(&self) -> u64 {
        self.digest
    }
    pub fn model(&self) -> &M {
        &self.model
    }
    pub fn model_mut(&mut self) -> &mut M {
        &mut self.model
    }
    pub fn into_model(self) -> M {
        self.model
    }
    /// Number of events waiting.
    pub fn pending(&self) -> usize {
        self.ctx.len()
    }

    /// Schedule from outside a handler (initial events).
    pub fn schedule_at(&mut self, t: TimeNs, ev: M::Event) {
        self.ctx.schedule_at(t, ev);
    }

    /// Lets setup code act on the model with a context (e.g. to start workloads).
    pub fn with_ctx<R>(&mut self, f: impl FnOnce(&mut M, &mut Ctx<M::Event>) -> R) -> R {
        f(&mut self.model, &mut self.ctx)
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<TimeNs> {
        self.ctx.peek_time()
    }

    /// Handle exactly one event. Returns false if there was none.
    pub fn step(&mut self) -> bool {
        let Some(e) = self.ctx.pop() else { return false };
        let time_ns = e.time_ns;
        debug_assert!(time_ns >= self.ctx.now_ns, "time went backwards");
        self.ctx.now_ns = time_ns;
        self.events += 1;
        self.digest = mix(mix(self.digest, time_ns), M::digest_word(&e.ev));
        self.model.handle(e.ev, &mut self.ctx);
        true
    }

    /// Run until the heap is empty, the model stops, or `t` is reached (events at `t`
    /// are handled; the clock is left at `t`).
    pub fn run_until(&mut self, t: TimeNs) -> End {
        loop {
            if self.ctx.stop_requested {
                return End::Stopped;
            }
            match self.peek_time() {
                None => return End::Drained,
                Some(nt) if nt > t => {
                    self.ctx.now_ns = self.ctx.now_ns.max(t);
                    return End::Reached(t);
                }
                Some(_) => {}
            }
            if let Some(e) = self.limit_hit() {
                return e;
            }
            self.step();
        }
    }

    /// The limit the next event would break, if any, as the run's end with a diagnostic.
    fn limit_hit(&self) -> Option<End> {
        if self.events >= self.limits.events_max {
            return Some(End::Limit(format!(
                "event limit reached: {} events handled at t={} ns (limits.events_max)",
                self.events, self.ctx.now_ns
            )));
        }
        match self.peek_time() {
            Some(nt) if nt > self.limits.time_ns_max => Some(End::Limit(format!(
                "simulated-time limit reached: next event at {} ns > limits.time_ns_max {} ns",
                nt, self.limits.time_ns_max
            ))),
            _ => None,
        }
    }

    /// Run until `events_handled()` reaches `target` (then `Reached(now)`), or the run
    /// drains, stops or hits a limit. Lets a caller step a long run in chunks.
    pub fn run_until_events(&mut self, target: u64) -> End {
        while self.events < target {
            if self.ctx.stop_requested {
                return End::Stopped;
            }
            if let Some(e) = self.limit_hit() {
                return e;
            }
            if !self.step() {
                return End::Drained;
            }
        }
        if self.ctx.stop_requested {
            return End::Stopped;
        }
        End::Reached(self.ctx.now_ns)
    }

    /// Run until drained, stopped or a limit is hit. `Ok` unless a limit was hit.
    pub fn run(&mut self) -> Result<End, String> {
        match self.run_until(TimeNs::MAX) {
            End::Limit(s) => Err(s),
            e => Ok(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug)]
    enum Ev {
        A(u32),
    }
    struct Rec {
        seen: Vec<(u64, u32)>,
    }
    impl Model for Rec {
        type Event = Ev;
        fn handle(&mut self, ev: Ev, ctx: &mut Ctx<Ev>) {
            let Ev::A(k) = ev;
            self.seen.push((ctx.now(), k));
        }
        fn digest_word(ev: &Ev) -> u64 {
            let Ev::A(k) = ev;
            *k as u64
        }
    }

    #[test]
    fn same_time_events_run_in_schedule_order() {
        let mut sim = Sim::new(Rec { seen: vec![] }, Limits::default());
        for k in 0..100 {
            sim.schedule_at(5, Ev::A(k));
        }
        sim.schedule_at(1, Ev::A(1000));
        sim.run().unwrap();
        let seen = &sim.model().seen;
        assert_eq!(seen[0], (1, 1000));
        for k in 0..100u32 {
            assert_eq!(seen[k as usize + 1], (5, k));
        }
    }

    #[test]
    fn digest_depends_on_order_and_time() {
        let run = |order: &[u32]| {
            let mut sim = Sim::new(Rec { seen: vec![] }, Limits::default());
            for (i, k) in order.iter().enumerate() {
                sim.schedule_at(i as u64, Ev::A(*k));
            }
            sim.run().unwrap();
            sim.digest()
        };
        assert_eq!(run(&[1, 2, 3]), run(&[1, 2, 3]));
        assert_ne!(run(&[1, 2, 3]), run(&[1, 3, 2]));
    }

    #[test]
    fn limits_are_reported() {
        struct Loop;
        impl Model for Loop {
            type Event = Ev;
            fn handle(&mut self, ev: Ev, ctx: &mut Ctx<Ev>) {
                ctx.schedule_in(10, ev);
            }
            fn digest_word(_: &Ev) -> u64 {
                0
            }
        }
        let mut sim = Sim::new(Loop, Limits { events_max: 50, time_ns_max: u64::MAX });
        sim.schedule_at(0, Ev::A(0));
        let e = sim.run().unwrap_err();
        assert!(e.contains("event limit"), "{e}");
        let mut sim = Sim::new(Loop, Limits { events_max: u64::MAX, time_ns_max: 1000 });
        sim.schedule_at(0, Ev::A(0));
        let e = sim.run().unwrap_err();
        assert!(e.contains("simulated-time limit"), "{e}");
    }

    #[test]
    fn run_until_stops_at_t() {
        let mut sim = Sim::new(Rec { seen: vec![] }, Limits::default());
        for k in 0..10 {
            sim.schedule_at(k * 100, Ev::A(k as u32));
        }
        assert_eq!(sim.run_until(450), End::Reached(450));
        assert_eq!(sim.model().seen.len(), 5);
        assert_eq!(sim.now(), 450);
        assert_eq!(sim.run().unwrap(), End::Drained);
        assert_eq!(sim.model().seen.len(), 10);
    }

    /// The heap pops in `(time, seq)` order under interleaved pushes and pops,
    /// including many equal times and times beyond 2⁶³.
    #[test]
    fn heap_pops_in_key_order() {
        let mut rng = Rng::stream(7, "engine-heap");
        let mut h = BinaryHeap::<Entry<u32>>::with_capacity(4);
        let mut want = std::collections::BTreeSet::new();
        let mut seq = 0u64;
        for step in 0..50_000u32 {
            if rng.below(100) < 55 || want.is_empty() {
                let t = match rng.below(3) {
                    0 => rng.below(8),
                    1 => rng.below(1 << 40),
                    _ => u64::MAX - rng.below(4),
                };
                h.push(Entry { time_ns: t, seq, ev: step });
                want.insert((t, seq, step));
                seq += 1;
            } else {
                let (t, q, ev) = want.pop_first().unwrap();
                let e = h.pop().unwrap();
                assert_eq!((e.time_ns, e.seq, e.ev), (t, q, ev));
            }
            assert_eq!(h.len(), want.len());
            assert_eq!(h.peek().map(|e| e.time_ns), want.first().map(|w| w.0));
        }
        while let Some((t, q, ev)) = want.pop_first() {
            let e = h.pop().unwrap();
            assert_eq!((e.time_ns, e.seq, e.ev), (t, q, ev));
        }
        assert!(h.pop().is_none());
    }

    /// The context's same-time queue, front slot and heap pop in `(time, seq)` order too:
    /// events scheduled before, at and after the pending minimum, at the current time and
    /// later, with the clock following the pops as the engine moves it.
    #[test]
    fn ctx_pops_in_key_order() {
        let mut rng = Rng::stream(9, "engine-front");
        let mut ctx = Ctx::<u32>::new();
        let mut want = std::collections::BTreeSet::new();
        for step in 0..50_000u32 {
            if rng.below(100) < 52 || want.is_empty() {
                let delay = match rng.below(4) {
                    0 => 0,
                    1 => rng.below(4),
                    2 => rng.below(1 << 20),
                    _ => u64::MAX - rng.below(4),
                };
                let seq = ctx.next_seq;
                ctx.schedule_in(delay, step);
                want.insert((ctx.now_ns.saturating_add(delay), seq, step));
            } else {
                let (t, q, ev) = want.pop_first().unwrap();
                let e = ctx.pop().unwrap();
                assert_eq!((e.time_ns, e.seq, e.ev), (t, q, ev));
                ctx.now_ns = t;
            }
            assert_eq!(ctx.len(), want.len());
            assert_eq!(ctx.peek_time(), want.first().map(|w| w.0));
        }
        while let Some((t, q, ev)) = want.pop_first() {
            let e = ctx.pop().unwrap();
            assert_eq!((e.time_ns, e.seq, e.ev), (t, q, ev));
        }
        assert!(ctx.pop().is_none());
    }
}

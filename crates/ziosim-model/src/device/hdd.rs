//! HDD model: a position-aware disk mechanism (`spec/devices.md` §2, §7, §9).
//!
//! # Theory of operation
//!
//! The drive is one arm over a spinning platter stack. Its state is the byte offset the head
//! last read or wrote (which gives radius `x` ∈ [0,1], 0 = outer diameter, the track, the
//! cylinder and the head) and the spindle angle θ(t) = θ0 + t/T_rev mod 1, a pure function of
//! simulated time that is never reset per request.
//!
//! **Geometry (§2.4).** Zoned bit recording as a continuous map: the sustained rate falls
//! linearly with radius, R(x) = R_OD·(1 − k·x), k = 1 − R_ID/R_OD. The capacity fraction below x
//! is F(x) = (x − k·x²/2)/(1 − k/2), inverted per command. A full sequential pass takes
//! C / ((R_OD+R_ID)/2), so the drive has N_t = C / (R_avg·T_rev) "revolutions of data" and the
//! data at radius x sits at angle frac(x·N_t): the track is a spiral. Reading L bytes from x_o
//! to x_e takes (x_e − x_o)·N_t revolutions, so after a transfer the head angle equals the data
//! angle of the next byte (track and cylinder switches are hidden by skew, §2.5, and already
//! folded into the sustained rates). Track n belongs to cylinder n / surfaces, head n % surfaces.
//!
//! **One media access (§2.1).** command overhead → seek → rotational wait → media transfer →
//! bus tail (the data crosses the host link, below). Seek (§2.2): a + b·√x below the knee
//! x0, c + e·x above, separate read and write curves fitted at construction to
//! (single-track, datasheet average, full-stroke) with the datasheet's triangular distance
//! weighting; a head change costs at least `head_switch_ms`, a one-cylinder move at least
//! `cyl_switch_ms`. The executed seek gets Gaussian jitter and, with
//! `missed_rev_probability`, one extra revolution; the scheduler's estimate has neither. With
//! `read_recovery_probability` a media read meets a sector it must recover (a marginal drive, the
//! straggler of a vdev): the drive re-reads it once per revolution until it reads — a geometric
//! count with mean `read_recovery_revolutions_mean`, the first step of every drive's error
//! recovery (Seagate SAS manuals: "a step … a single re-read") — cut at
//! `recovery_time_limit_ms` (ERC/TLER). Healthy presets have probability 0 and draw nothing.
//! On an Advanced Format drive (`physical_sector_bytes` 4096, 512-byte logical sectors) a
//! media write that starts or ends inside a physical sector is a read-modify-write: the
//! drive reads that sector as it passes and writes it merged one revolution later (an
//! `ashift=9` pool on a 512e disk pays it on most writes; ZFS's ashift=12 never does).
//!
//! **Which command next (§2.8, §2.9), decided each time the arm is free:**
//! 1. a SATA FLUSH that has drained the queue destages first;
//! 2. with host commands queued, the arm spends the common command overhead first and picks
//!    when it ends (just-in-time RPO), so the host's replacement for the command that just
//!    completed is a candidate too — as in the §2.8 Monte Carlo. Except write streaming
//!    (§2.7, DiskSim's "combine sequential writes"): when a host write has just ended on
//!    the media and a queued write starts at the very next byte, having arrived at least
//!    `overhead_write_miss_ms` earlier (the drive processed it during the transfer), it
//!    goes on at once with no overhead, seek or rotational wait — unless rules 3–4, with
//!    its zero positioning against the others' overhead still to pay, choose another;
//! 3. any queued command older than `age_limit_ms` goes next, oldest first;
//! 4. otherwise SATF: minimise positioning (rest of overhead + seek + rotation) −
//!    age_weight·age. The estimate plans for a seek 2σ longer than the curve (firmware RPO's
//!    safety margin against jitter). A "sequential" candidate (starting within
//!    `seq_window_bytes` after the head) gets `seq_cost_bias_ms` off, or absolute priority
//!    when `seq_strict`. A read that starts inside another queued read or less than
//!    `readahead_max_bytes` after it is no candidate of its own: the drive serves such a run
//!    from its lowest LBA, the rest riding the read-ahead (taking a later one first would
//!    strand the earlier ones behind the head). Likewise a write that starts right at the
//!    end of another queued write: the run is written from its lowest LBA, the rest
//!    streaming on (rule 2). When read-ahead is pre-emptible, continuing
//!    a stream counts as read-ahead and never overtakes a run head that was waiting before
//!    it. Above the high watermark the cheapest dirty extent competes too, and so does
//!    the cheapest extent a SAS SYNCHRONIZE CACHE waits for (a tagged command, §2.7: aged
//!    from the flush's arrival, and first once that is older than `age_limit_ms` and than
//!    every queued command);
//! 5. with nothing queued, destage dirty data once the drive has had no new command for
//!    `destage_idle_delay_ms`; else idle.
//!
//! **Read-ahead (§2.7).** After a read miss the head keeps reading forward into a cache
//! segment, up to `readahead_max_bytes` past what the host consumed. A read that falls in the
//! segment completes from the cache (hit overhead + link); one starting before the limit is
//! attached, whatever its size (its data streams to the host as it is read), moves the limit
//! to `readahead_max_bytes` past its end, and completes when the frontier passes its end
//! ("buffer continuous read"), which is how a stream reaches media rate at any queue depth:
//! reads already queued when read-ahead starts attach in turn, each extending the reach for
//! the next. The drive coalesces those with the miss into one media access, which a waiting
//! command does not interrupt. A miss arriving during read-ahead pre-empts it as soon as
//! that access is done, demoting attached reads to ordinary misses that yield to it —
//! unless `readahead_unpreemptible` and the host is consuming the segment: then read-ahead
//! runs on until its limit or until a waiting command reaches `age_limit_ms`. That is the
//! firmware behaviour behind the multi-second QD1 random reads of OpenZFS 2080c4f27e.
//!
//! **Write-back cache.** With WCE a write completes after hit overhead + its data over the
//! link while dirty data is under both limits, else it waits for destage and receives its
//! data once admitted. Destage takes dirty extents in SATF order; a transfer's end is
//! rounded down to whole ns, so the head always ends just before the next byte and the
//! estimate sees the contiguous extent as under the head, not a revolution away: a
//! contiguous dirty run is destaged in order at the media rate. SATA FLUSH is non-queued:
//! while it is pending `can_accept` refuses everything; it waits for the queue to drain,
//! destages every dirty extent in SATF order, then completes after `overhead_flush_ms`. SAS
//! SYNCHRONIZE CACHE is a tagged command that waits only for the data dirty at its arrival.
//!
//! **Host link (§2.6; §0.5 "links are shared resources").** The interface is one server at
//! `link_rate_bytes_per_s`: each command's data takes it for its bytes' worth of time, one
//! transfer after another in the order their data becomes ready — a read's from its first
//! byte off the media or out of the buffer, a buffered write's once the drive has room for
//! it, a write-through's once its command is processed (overlapping the positioning) — and
//! a command completes no sooner than its transfer ends. So the bytes completed by all
//! commands together never outrun the link: a stream faster than the link is read ahead
//! into the buffer and delivered at the link rate, a write-cache burst fills at the link
//! rate, a write-through waits for its data. With the link faster than the media (SATA 6G
//! or SAS 12G against any preset) a read still streams at the media rate with its last FIS
//! trailing, so only bursts from or into the cache meet the cap. The SSD interleaves
//! page-sized chunks round robin; here a transfer is not split, so a short one may wait
//! behind a long one whose data was ready first (≤ 1.9 ms for 1 MiB on SATA 6G).
//!
//! **Calibration (pinned by the tests below).** With jitter and missed revolutions off, the
//! mechanism reproduces the §2.8 SATF Monte Carlo table (QD1…QD32) within 5 %; the presets
//! as shipped land ≈ 8 % under it at QD32 (the RPO margin and the extra revolutions cost
//! that) and within 3 % at QD1. Streams reach the outer-zone rate with read-ahead (any queue
//! depth, 128 KiB–4 MiB reads; `examples/seqprobe.rs` prints 64 KiB–16 MiB) and lose a
//! revolution per command without it; a full pass takes C/((R_OD+R_ID)/2). Contiguous
//! writes reach the same rate from QD2 without the write cache (to 0.3 %; at QD1 each
//! command loses a revolution) and at any depth with it, counting the destage of all they
//! wrote (1–5 % under, more with a larger cache: the arm idles until the high watermark
//! first fills).
//! `examples/hdd_starvation.rs` prints the §2.9 histograms; `examples/hdd_bench.rs` the speed.
//!
//! Invariants: every submitted tag completes exactly once; completions are reported in
//! (time, order) order; a media access never completes sooner than its miss overhead after
//! the command's arrival; the bytes completed by any instant never exceed what the link
//! carries up to then; work per event is O(queue depth + cache segments + dirty extents)
//! as a rule — the follower tests of a SATF choice scan the queue for the few candidates
//! that would win, so O(queue depth²) at worst — with no allocation after construction. Not modelled: unrecovered media errors (a
//! recovery always ends in a good read, at `recovery_time_limit_ms` at the latest), NCQ
//! priority, CDL. Drive-managed SMR (media cache, band cleaning) is `smr.rs`, opt-in.
//!
//! ZFS side: this is the leaf device below `vdev_queue.c`'s `vdev_queue_io_to_issue`; the
//! behaviour of §2.9 is what the 2.1 NIA throttle (commit 2080c4f27e) works around.

use super::{Cmd, Device};
use crate::io::Op;

#[path = "smr.rs"]
mod smr;
pub use smr::SmrCounters;
use serde::{Deserialize, Serialize};
use ziosim_engine::Rng;

/// How FLUSH behaves on the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkKind {
    /// FLUSH CACHE EXT is non-queued: it drains NCQ and blocks new commands.
    Sata,
    /// SYNCHRONIZE CACHE is an ordinary tagged command.
    Sas,
}

/// Parameters of the HDD model. Times in milliseconds are converted to integer-ns results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HddParams {
    /// Usable capacity, bytes; ≥ 1 GiB and a multiple of 512.
    pub capacity_bytes: u64,
    /// Spindle speed, revolutions per minute; 3600..=15000.
    pub rpm: u32,
    /// Each drive's spindle speed deviates by a uniform draw in ±this, percent; 0..=5.
    pub rpm_tolerance_percent: f64,
    /// Recording surfaces (heads); 1..=32.
    pub surfaces: u32,
    /// Sustained media rate at the outer diameter (LBA 0), bytes/s; > rate_id, ≤ 1e10.
    pub rate_od_bytes_per_s: u64,
    /// Sustained media rate at the inner diameter (last LBA), bytes/s; ≥ 1e6 and ≤ rate_od.
    pub rate_id_bytes_per_s: u64,
    /// Read seek over one cylinder, ms; > 0 and < seek_read_avg_ms.
    pub seek_read_track_ms: f64,
    /// Datasheet average read seek (uniformly random start and end cylinder), ms; < full.
    pub seek_read_avg_ms: f64,
    /// Full-stroke read seek, ms; > seek_read_avg_ms and ≤ 100.
    pub seek_read_full_ms: f64,
    /// Write seek (settle included) over one cylinder, ms; > 0 and < seek_write_avg_ms.
    pub seek_write_track_ms: f64,
    /// Datasheet average write seek, ms; < seek_write_full_ms.
    pub seek_write_avg_ms: f64,
    /// Full-stroke write seek, ms; > seek_write_avg_ms and ≤ 100.
    pub seek_write_full_ms: f64,
    /// Stroke fraction where seek time turns from ∝√x to linear; 0.05..=0.8.
    pub seek_knee_fraction: f64,
    /// Least time to change heads, ms; 0..=10.
    pub head_switch_ms: f64,
    /// Least time to move one cylinder, ms; 0..=10.
    pub cyl_switch_ms: f64,
    /// Standard deviation of the executed seek around the curve, percent of the seek; 0..=50.
    pub seek_jitter_percent: f64,
    /// Chance that a seek overruns and costs one extra revolution; 0..=0.5.
    pub missed_rev_probability: f64,
    /// Command overhead of a read that needs the media, ms; 0..=10.
    pub overhead_read_miss_ms: f64,
    /// Command overhead of a write that needs the media (write cache off), ms; 0..=10.
    pub overhead_write_miss_ms: f64,
    /// Command overhead of a cache hit or a buffered write, ms; 0..=10.
    pub overhead_hit_ms: f64,
    /// FLUSH overhead added after the last destage, ms; 0..=100.
    pub overhead_flush_ms: f64,
    /// SATA (non-queued FLUSH) or SAS (tagged SYNCHRONIZE CACHE).
    pub link_kind: LinkKind,
    /// Host link payload rate, bytes/s, shared by the data of all commands; 1e6..=1e11.
    pub link_rate_bytes_per_s: u64,
    /// Commands the drive holds at once (NCQ/TCQ tags); 1..=256.
    pub queue_depth: u32,
    /// SATF aging: ms of positioning credit per ms a command has waited; 0..=1.
    pub age_weight_ms_per_ms: f64,
    /// A command older than this goes next, ms; 1..=60000.
    pub age_limit_ms: f64,
    /// A queued command starting within this distance after the head is "sequential", bytes; ≤ 1 GiB.
    pub seq_window_bytes: u64,
    /// Cost subtracted from a sequential candidate, ms; 0..=1000 (see `seq_strict`).
    pub seq_cost_bias_ms: f64,
    /// Sequential candidates always go before others (an infinite bias).
    pub seq_strict: bool,
    /// Read-ahead beyond what the host consumed, bytes; 0 disables read-ahead; ≤ cache_bytes / cache_segments.
    pub readahead_max_bytes: u64,
    /// Read-ahead that the host is consuming is not pre-empted by queued commands.
    pub readahead_unpreemptible: bool,
    /// Drive buffer, bytes; ≥ 1 MiB.
    pub cache_bytes: u64,
    /// Read cache segments (each cache_bytes / segments); 1..=256.
    pub cache_segments: u32,
    /// Write-back caching (WCE=1).
    pub write_cache_enabled: bool,
    /// Most dirty data held, bytes; ≥ 64 KiB and ≤ cache_bytes.
    pub write_cache_max_dirty_bytes: u64,
    /// Most dirty extents held; 1..=4096.
    pub write_cache_max_dirty_extents: u32,
    /// Idle time before dirty data is destaged, ms; 0..=10000.
    pub destage_idle_delay_ms: f64,
    /// Dirty fill at which destage competes with host commands, percent; low..=100.
    pub destage_high_water_percent: f64,
    /// Dirty fill at which watermark destage stops, percent; 0..high.
    pub destage_low_water_percent: f64,
    /// Chance that a media read needs error recovery (a weak or marginal sector); 0..=1.
    /// 0 for every preset: a healthy drive. A straggler disk is described with it.
    #[serde(default)]
    pub read_recovery_probability: f64,
    /// Mean revolutions a recovery takes: the sector is re-read once per revolution until it
    /// reads, a geometric count with this mean; 1..=10000.
    #[serde(default = "one")]
    pub read_recovery_revolutions_mean: f64,
    /// Error recovery time limit (SCT ERC / TLER / CCTL, SCSI recovery time limit), ms;
    /// 1..=60000. A recovery stops there.
    #[serde(default = "erc_default_ms")]
    pub recovery_time_limit_ms: f64,
    /// Physical sector, bytes (512, or 4096 for Advanced Format 512e drives); a power of two
    /// 512..=65536. The host addresses 512-byte logical sectors; a media write that starts or
    /// ends inside a physical sector is a read-modify-write.
    #[serde(default = "sector_512")]
    pub physical_sector_bytes: u32,
    /// Datasheet annualized failure rate, percent (reliability arithmetic only, never the
    /// simulation); 0 = not published. `docs/scenario.md`, "Redundancy".
    #[serde(default)]
    pub afr_percent: f64,
    /// Datasheet non-recoverable read error rate: one error per this many bits read;
    /// 0 = not published.
    #[serde(default)]
    pub nonrecoverable_read_error_bits: f64,
    /// Drive-managed SMR (`device/smr.rs`): persistent media cache, bytes; 0 = a CMR drive
    /// (the default, and every field below is then unused); else smr_band_bytes..capacity/10.
    #[serde(default, skip_serializing_if = "smr::is_zero_u64")]
    pub smr_media_cache_bytes: u64,
    /// SMR band (the unit a shingled region is rewritten in), bytes; 1 MiB..=1 GiB, a
    /// multiple of 512.
    #[serde(default, skip_serializing_if = "smr::is_zero_u64")]
    pub smr_band_bytes: u64,
    /// Idle time after the last host command before the drive cleans dirty bands, ms;
    /// 0..=600000.
    #[serde(default, skip_serializing_if = "smr::is_zero_f64")]
    pub smr_clean_idle_delay_ms: f64,
    /// Whole-band sequential writes go straight to the band instead of the media cache.
    #[serde(default, skip_serializing_if = "smr::is_false")]
    pub smr_band_bypass: bool,
}

fn sector_512() -> u32 {
    512
}

fn one() -> f64 {
    1.0
}

/// WD's TLER default for RAID/NAS drives, 7 s (spec/devices.md §2.9, [R]).
fn erc_default_ms() -> f64 {
    7000.0
}

use super::{check_range, check_range_as};

fn check_seek(kind: &str, track: f64, avg: f64, full: f64) -> Result<(), String> {
    check_range(&format!("seek_{kind}_full_ms"), full, 0.1, 100.0)?;
    let allowed = format!("0.01..seek_{kind}_full_ms ({full})");
    check_range_as(&format!("seek_{kind}_track_ms"), track, 0.01, full, &allowed)?;
    if !(avg.is_finite() && avg > track && avg < full) {
        return Err(format!(
            "seek_{kind}_avg_ms: {avg} — out of range; allowed: more than seek_{kind}_track_ms ({track}), \
             less than seek_{kind}_full_ms ({full})"
        ));
    }
    Ok(())
}

impl HddParams {
    /// Check every field; the error is one line naming the field, the bad value and the
    /// allowed range (`queue_depth: 0 — out of range; allowed: 1..256`), a bound that is
    /// another field named with its value; the caller adds `devices.<name>.`.
    pub fn validate(&self) -> Result<(), String> {
        let p = self;
        check_range("capacity_bytes", p.capacity_bytes, 1 << 30, 1 << 60)?;
        if p.capacity_bytes & 511 != 0 {
            return Err(format!(
                "capacity_bytes: {} — not a multiple of 512; allowed: a multiple of 512 in {}..{}",
                p.capacity_bytes,
                1u64 << 30,
                1u64 << 60
            ));
        }
        check_range("rpm", p.rpm as u64, 3600, 15000)?;
        check_range("rpm_tolerance_percent", p.rpm_tolerance_percent, 0.0, 5.0)?;
        check_range("surfaces", p.surfaces as u64, 1, 32)?;
        check_range("rate_od_bytes_per_s", p.rate_od_bytes_per_s, 1_000_000, 10_000_000_000)?;
        let od = p.rate_od_bytes_per_s;
        check_range_as(
            "rate_id_bytes_per_s",
            p.rate_id_bytes_per_s,
            1_000_000,
            od,
            &format!("1000000..rate_od_bytes_per_s ({od})"),
        )?;
        check_range("seek_knee_fraction", p.seek_knee_fraction, 0.05, 0.8)?;
        check_seek("read", p.seek_read_track_ms, p.seek_read_avg_ms, p.seek_read_full_ms)?;
        check_seek(
            "write",
            p.seek_write_track_ms,
            p.seek_write_avg_ms,
            p.seek_write_full_ms,
        )?;
        for (k, tr, av, fu) in [
            ("read", p.seek_read_track_ms, p.seek_read_avg_ms, p.seek_read_full_ms),
            (
                "write",
                p.seek_write_track_ms,
                p.seek_write_avg_ms,
                p.seek_write_full_ms,
            ),
        ] {
            let c = SeekCurve::fit(tr, av, fu, p.seek_knee_fraction, 1.0 / 300_000.0);
            if !(c.b > 0.0 && c.e > 0.0 && c.a >= 0.0 && c.c >= 0.0) {
                return Err(format!(
                    "seek_{k}_avg_ms: {av} — no monotone seek curve through seek_{k}_track_ms ({tr}) and \
                     seek_{k}_full_ms ({fu}); allowed: an average near 40–60 % of seek_{k}_full_ms"
                ));
            }
        }
        check_range("head_switch_ms", p.head_switch_ms, 0.0, 10.0)?;
        check_range("cyl_switch_ms", p.cyl_switch_ms, 0.0, 10.0)?;
        check_range("seek_jitter_percent", p.seek_jitter_percent, 0.0, 50.0)?;
        check_range("missed_rev_probability", p.missed_rev_probability, 0.0, 0.5)?;
        check_range("overhead_read_miss_ms", p.overhead_read_miss_ms, 0.0, 10.0)?;
        check_range("overhead_write_miss_ms", p.overhead_write_miss_ms, 0.0, 10.0)?;
        check_range("overhead_hit_ms", p.overhead_hit_ms, 0.0, 10.0)?;
        check_range("overhead_flush_ms", p.overhead_flush_ms, 0.0, 100.0)?;
        check_range(
            "link_rate_bytes_per_s",
            p.link_rate_bytes_per_s,
            1_000_000,
            100_000_000_000,
        )?;
        check_range("queue_depth", p.queue_depth as u64, 1, 256)?;
        check_range("age_weight_ms_per_ms", p.age_weight_ms_per_ms, 0.0, 1.0)?;
        check_range("age_limit_ms", p.age_limit_ms, 1.0, 60_000.0)?;
        check_range("seq_window_bytes", p.seq_window_bytes, 0, 1 << 30)?;
        check_range("seq_cost_bias_ms", p.seq_cost_bias_ms, 0.0, 1000.0)?;
        check_range("cache_bytes", p.cache_bytes, 1 << 20, 1 << 40)?;
        check_range("cache_segments", p.cache_segments as u64, 1, 256)?;
        let seg = p.cache_bytes / p.cache_segments as u64;
        let allowed = format!("0..cache_bytes / cache_segments ({seg})");
        check_range_as("readahead_max_bytes", p.readahead_max_bytes, 0, seg, &allowed)?;
        let allowed = format!("65536..cache_bytes ({})", p.cache_bytes);
        check_range_as(
            "write_cache_max_dirty_bytes",
            p.write_cache_max_dirty_bytes,
            65536,
            p.cache_bytes,
            &allowed,
        )?;
        check_range(
            "write_cache_max_dirty_extents",
            p.write_cache_max_dirty_extents as u64,
            1,
            4096,
        )?;
        check_range("destage_idle_delay_ms", p.destage_idle_delay_ms, 0.0, 10_000.0)?;
        check_range("destage_low_water_percent", p.destage_low_water_percent, 0.0, 99.0)?;
        let lo = p.destage_low_water_percent + 1.0;
        check_range_as(
            "destage_high_water_percent",
            p.destage_high_water_percent,
            lo,
            100.0,
            &format!("destage_low_water_percent + 1 ({lo})..100"),
        )?;
        check_range("read_recovery_probability", p.read_recovery_probability, 0.0, 1.0)?;
        check_range("read_recovery_revolutions_mean", p.read_recovery_revolutions_mean, 1.0, 10_000.0)?;
        check_range("recovery_time_limit_ms", p.recovery_time_limit_ms, 1.0, 60_000.0)?;
        let ps = p.physical_sector_bytes;
        if !(512..=65536).contains(&ps) || !ps.is_power_of_two() {
            return Err(format!(
                "physical_sector_bytes: {ps} — out of range; allowed: a power of two in 512..65536 (512, 4096, …)"
            ));
        }
        smr::validate(p)?;
        super::check_reliability(p.afr_percent, p.nonrecoverable_read_error_bits)
    }
}

/// t(x) = a + b·√x for x < x0, c + e·x above (ms, x = stroke fraction), §2.2.
#[derive(Clone, Copy, Debug)]
struct SeekCurve {
    a: f64,
    b: f64,
    c: f64,
    e: f64,
    x0: f64,
}

impl SeekCurve {
    /// Fit through the single-track time at x1 (one cylinder), the full-stroke time, continuity at
    /// x0, and the datasheet average: the mean over the triangular distance pdf 2(1−x) that
    /// uniformly random start and end cylinders give (HGST/IBM definition, §2.2).
    fn fit(track: f64, avg: f64, full: f64, x0: f64, x1: f64) -> SeekCurve {
        let s1 = x1.sqrt();
        // ∫ 2(1−x) and ∫ 2√x(1−x) over [0,x0]; ∫ 2(1−x) and ∫ 2x(1−x) over [x0,1].
        let a1 = 2.0 * (x0 - x0 * x0 / 2.0);
        let b1 = 2.0 * (2.0 / 3.0 * x0.powf(1.5) - 2.0 / 5.0 * x0.powf(2.5));
        let c1 = 1.0 - a1;
        let e1 = 2.0 * ((0.5 - 1.0 / 3.0) - (x0 * x0 / 2.0 - x0 * x0 * x0 / 3.0));
        // Substitute a = track − b·s1 and c = full − e, leaving two equations in b and e.
        let (m11, m12, r1) = (x0.sqrt() - s1, 1.0 - x0, full - track);
        let (m21, m22, r2) = (b1 - a1 * s1, e1 - c1, avg - a1 * track - c1 * full);
        let det = m11 * m22 - m12 * m21;
        let b = (r1 * m22 - m12 * r2) / det;
        let e = (m11 * r2 - m21 * r1) / det;
        SeekCurve {
            a: track - b * s1,
            b,
            c: full - e,
            e,
            x0,
        }
    }
    /// Whether `ms` never decreases with the distance, up to a relative `1e-9` at the knee
    /// (the fit is continuous there in exact arithmetic): what `Geom::destage_floor` needs.
    fn monotone(&self) -> bool {
        let (short, long) = (self.a + self.b * self.x0.sqrt(), self.c + self.e * self.x0);
        self.b >= 0.0 && self.e >= 0.0 && short.is_finite() && long.is_finite() && short - long <= 1e-9 * long.abs()
    }
    #[inline]
    fn ms(&self, x: f64) -> f64 {
        // Both branches, then a select: SATF calls this for every queued command and the
        // branch on x is unpredictable.
        let short = self.a + self.b * x.sqrt();
        let long = self.c + self.e * x;
        if x < self.x0 {
            short
        } else {
            long
        }
    }
}

const NS_PER_MS: f64 = 1e6;
const NONE: u64 = u64::MAX;

/// Constants derived once from the parameters.
#[derive(Clone, Debug)]
struct Geom {
    cap: f64,
    k: f64,
    /// Revolutions of data on the whole drive (N_t).
    n_tracks: f64,
    surfaces: u64,
    t_rev_ns: f64,
    rev_per_ns: f64,
    t_rev_ps: u64,
    theta0_ps: u64,
    seek_r: SeekCurve,
    seek_w: SeekCurve,
    /// Seek curves in ns.
    head_switch_ns: f64,
    cyl_switch_ns: f64,
    ovh_read_ns: f64,
    ovh_write_ns: f64,
    ovh_hit_ns: u64,
    ovh_flush_ns: u64,
    link_bytes_per_ns: f64,
    age_limit_ns: u64,
    seq_bias_ns: f64,
    seg_bytes: u64,
    idle_delay_ns: u64,
    high_water_bytes: u64,
    low_water_bytes: u64,
    high_water_extents: usize,
    low_water_extents: usize,
    /// Overhead every media command pays before the arm commits (the smaller miss overhead).
    ovh_common_ns: f64,
    /// RPO safety margin: the estimate plans for a seek this much longer (2σ of the jitter).
    seek_margin: f64,
    /// Media time of one byte at the outer diameter, ns (the fastest zone).
    od_ns_per_byte: f64,
    /// The write seek curve never falls with the distance (`SeekCurve::monotone`), so
    /// `best_extent` may stop where the seek alone exceeds the best cost.
    destage_prune: bool,
}

/// A position on the platter: radius fraction, track number (and its cylinder and head),
/// data angle (revolutions).
#[derive(Clone, Copy, Debug, Default)]
struct Pos {
    x: f64,
    track: u64,
    cyl: u64,
    head: u32,
    ang: f64,
}

/// Fractional part of a finite value in (−2^63, 2^63), without a libm call.
#[inline]
fn frac(v: f64) -> f64 {
    let f = v - (v as i64) as f64;
    if f < 0.0 {
        f + 1.0
    } else {
        f
    }
}

/// Round a non-negative duration to integer ns, without a libm call.
#[inline]
fn ns(v: f64) -> u64 {
    (v + 0.5) as u64
}

/// A non-negative duration in whole ns at least half a ns short of `v` (0 at least).
#[inline]
fn ns_before(v: f64) -> u64 {
    (v - 0.5).max(0.0) as u64
}

/// The larger of two durations (`f64::max` for the values SATF sees: `b` is never NaN, and
/// both are non-negative). One compare instead of `max`'s NaN handling, which SATF paid for
/// every queued command.
#[inline]
fn max_ns(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// A span of simulated ns as `f64`, exactly as `v as f64` (times stay far below 2⁶³ ns):
/// the signed conversion is one instruction where the unsigned one costs eight, once per
/// queued command in SATF.
#[inline]
fn span_f64(v: u64) -> f64 {
    debug_assert!(v < 1 << 63);
    v as i64 as f64
}

impl Geom {
    #[inline]
    fn x_of(&self, off: u64) -> f64 {
        let f = (off as f64 / self.cap).min(1.0);
        if self.k < 1e-9 {
            return f;
        }
        let d = 1.0 - 2.0 * self.k * f * (1.0 - self.k / 2.0);
        (1.0 - d.max(0.0).sqrt()) / self.k
    }
    #[inline]
    fn pos(&self, off: u64) -> Pos {
        let x = self.x_of(off);
        let u = x * self.n_tracks;
        let track = u as u64;
        Pos {
            x,
            track,
            cyl: track / self.surfaces,
            head: (track % self.surfaces) as u32,
            ang: u - track as f64,
        }
    }
    /// Spindle angle at time t, in revolutions [0, 1); exact integer phase in picoseconds.
    #[inline]
    fn theta(&self, t_ns: u64) -> f64 {
        let r = ((t_ns % self.t_rev_ps) * 1000 + self.theta0_ps) % self.t_rev_ps;
        r as f64 / self.t_rev_ps as f64
    }
    /// Capacity fraction below radius x: F(x) = (x − k·x²/2)/(1 − k/2), §2.4.
    #[inline]
    fn f_of(&self, x: f64) -> f64 {
        (x - self.k * x * x / 2.0) / (1.0 - self.k / 2.0)
    }
    #[inline]
    fn bus_ns(&self, bytes: u64) -> u64 {
        ns(bytes as f64 / self.link_bytes_per_ns)
    }
    /// Mechanical move time (no overhead, no rotation), ns, before jitter.
    #[inline]
    fn seek_ns(&self, from: &Pos, to: &Pos, write: bool) -> f64 {
        self.seek_and_curve_ns(from, to, write).0
    }
    /// `seek_ns`, and the seek curve's part of it (0 on the same cylinder): the curve at the
    /// radius difference, before the cylinder and head switch minima.
    #[inline]
    fn seek_and_curve_ns(&self, from: &Pos, to: &Pos, write: bool) -> (f64, f64) {
        if from.track == to.track {
            return (0.0, 0.0);
        }
        let (c0, c1) = (from.cyl, to.cyl);
        let hs = if from.head != to.head { self.head_switch_ns } else { 0.0 };
        if c0 == c1 {
            return (hs, 0.0);
        }
        let curve = if write { &self.seek_w } else { &self.seek_r };
        let mut s = curve.ms((to.x - from.x).abs()) * NS_PER_MS;
        let on_curve = s;
        if c0.abs_diff(c1) == 1 {
            s = max_ns(s, self.cyl_switch_ns);
        }
        (max_ns(s, hs), on_curve)
    }
    /// A lower bound on the destage cost (`positioning_ns` of a write with no overhead) of
    /// every position beyond `to` seen from the head — farther in radius on the same side —
    /// given `on_curve`, the write curve's part of the seek to `to` (`seek_and_curve_ns`; 0
    /// on the head's cylinder, where seeks are 0 or a head switch: no bound). Off the head's
    /// cylinder a seek is at least the curve at the radius difference, which grows with it
    /// (`destage_prune`), and the rest of the cost (rotational wait) is never negative; a
    /// millionth is shaved off for rounding and for the knee of the curve.
    #[inline]
    fn destage_floor(&self, on_curve: f64) -> f64 {
        if !self.destage_prune {
            return 0.0;
        }
        on_curve * self.seek_margin * (1.0 - 1e-6)
    }
}

/// A command slot (one per tag the drive holds).
#[derive(Clone, Copy, Debug)]
struct Slot {
    tag: u32,
    op: Op,
    off: u64,
    end: u64,
    arrival_ns: u64,
    pos: Pos,
    /// Attached to read-ahead: when the frontier passes `end`.
    data_ns: u64,
    /// Was attached to read-ahead that got pre-empted: yields to other misses.
    seq_cont: bool,
    /// Attached from the queue when read-ahead began: part of the miss's media access.
    in_run: bool,
}

/// A dirty write-cache extent.
#[derive(Clone, Copy, Debug)]
struct Extent {
    off: u64,
    end: u64,
    pos: Pos,
    seq: u64,
}

#[derive(Clone, Copy, Debug)]
enum Job {
    /// Command overhead before the scheduler commits to a command (just-in-time RPO).
    Overhead,
    Cmd(u16),
    Destage(Extent),
    /// A DM-SMR band cleaning (`smr.rs`, rule 4).
    SmrClean,
}

/// Read cache segment: bytes [start, end) are in the buffer.
#[derive(Clone, Copy, Debug, Default)]
struct Seg {
    start: u64,
    end: u64,
    stamp: u64,
}

/// Read-ahead in progress (the arm is reading speculatively into segment `seg`).
#[derive(Clone, Copy, Debug)]
struct ReadAhead {
    seg: usize,
    start_ns: u64,
    start_off: u64,
    /// Radius at `start_off`; the frontier moves along the spiral, so its byte rate follows
    /// the zone (a long stream slows towards the inner diameter).
    start_x: f64,
    limit_off: u64,
    /// The host has read from this segment since read-ahead began (a stream is running).
    consumed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flush {
    None,
    /// SATA FLUSH waiting for the other commands to finish.
    Draining(u16),
    /// SATA FLUSH destaging; started at the given time.
    Destaging(u16, u64),
}

/// Up to this many dirty extents `best_extent` scans them all rather than walk outwards
/// from the head.
const DESTAGE_SCAN_MAX: usize = 32;

/// Counting filter of the start and end offsets of the writes in `queued`: whether some
/// queued write starts (ends) at an offset, answered without a scan of the queue in the
/// usual case that none does (random writes), and by a scan only on a hit. Write streaming
/// asks this after every media write and for every write SATF picks (`continue_write_stream`,
/// `follows_queued`); scanning the queue each time made a QD32 random write-through run
/// about a tenth slower.
#[derive(Debug)]
struct WriteEdges {
    starts: [u16; 256],
    ends: [u16; 256],
}

impl WriteEdges {
    #[inline]
    fn bucket(off: u64) -> usize {
        // Fibonacci hashing: the top 8 bits of off·2^64/φ spread 512-aligned offsets.
        (off.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize
    }
    fn add(&mut self, off: u64, end: u64) {
        self.starts[Self::bucket(off)] += 1;
        self.ends[Self::bucket(end)] += 1;
    }
    fn remove(&mut self, off: u64, end: u64) {
        self.starts[Self::bucket(off)] -= 1;
        self.ends[Self::bucket(end)] -= 1;
    }
    /// False: no queued write starts at `off`. True: one may.
    #[inline]
    fn may_start_at(&self, off: u64) -> bool {
        self.starts[Self::bucket(off)] > 0
    }
    /// False: no queued write ends at `off`. True: one may.
    #[inline]
    fn may_end_at(&self, off: u64) -> bool {
        self.ends[Self::bucket(off)] > 0
    }
}

/// A completion waiting to be reported by `advance`.
#[derive(Clone, Copy, Debug)]
struct Done {
    t: u64,
    tag: u32,
}

/// Event counts since the drive was built (for reports and tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HddCounters {
    /// Reads served from the buffer at arrival.
    pub read_hits: u64,
    /// Reads served by read-ahead in progress.
    pub readahead_attached: u64,
    /// Commands that went to the arm (media accesses for host commands).
    pub media_accesses: u64,
    /// Dirty extents written back.
    pub destages: u64,
    /// Commands dispatched because they reached `age_limit_ms`.
    pub aged_dispatches: u64,
    /// Media reads that needed error recovery (`read_recovery_probability`).
    pub read_recoveries: u64,
    /// Media writes that were read-modify-writes of partial physical sectors.
    pub rmw_writes: u64,
    /// Queued writes that continued the media write before them without a break
    /// (`continue_write_stream`).
    pub write_continuations: u64,
}

/// The position-aware HDD.
pub struct Hdd {
    counters: HddCounters,
    p: HddParams,
    g: Geom,
    rng: Rng,
    slots: Vec<Slot>,
    free: Vec<u16>,
    /// Misses waiting for the arm, in arrival order.
    queued: Vec<u16>,
    /// Reads attached to the running read-ahead.
    pending: Vec<u16>,
    /// Writes waiting for write-cache space, in arrival order.
    bufwait: Vec<u16>,
    done_q: Vec<Done>,
    outstanding: u32,
    /// The arm: the job in progress and when it ends.
    job: Option<(Job, u64)>,
    head: Pos,
    head_off: u64,
    ra: Option<ReadAhead>,
    segs: Vec<Seg>,
    seg_stamp: u64,
    dirty: Vec<Extent>,
    /// `dirty` by offset: (offset, index in `dirty`), sorted by offset (so by radius), for
    /// `best_extent` to walk outwards from the head.
    dirty_by_off: Vec<(u64, u32)>,
    dirty_bytes: u64,
    dirty_seq: u64,
    destage_hw: bool,
    flush: Flush,
    /// Tag of a SATA FLUSH the host has not yet seen complete: nothing else may be issued.
    sata_flush_tag: Option<u32>,
    /// SAS SYNCHRONIZE CACHE commands: (slot, dirty sequence barrier).
    sas_flushes: Vec<(u16, u64)>,
    last_arrival_ns: u64,
    /// Latest completion time handed out (a SATA flush starts after it).
    last_done_ns: u64,
    next_wake: u64,
    /// Latest instant processed (debug check that time never runs backwards).
    clock_ns: u64,
    /// Start and end offsets of the writes in `queued`.
    write_edges: WriteEdges,
    /// The host link's work is done up to here: every transfer reserved so far has had its
    /// bytes' worth of link time, one after the other (`link_xfer`).
    link_free_ns: u64,
    /// When the media transfer of the last `access` began (its first byte under the head).
    media_from_ns: u64,
    /// When the last host write to the media ended (its end is `head_off` until another
    /// access moves the head); NONE before the first.
    write_end_ns: u64,
    /// Drive-managed SMR state (`smr.rs`); None for a CMR drive.
    smr: Option<Box<smr::Smr>>,
}

impl Hdd {
    /// Build a drive; `rng_seed` seeds the drive's own stream (spindle phase, rpm deviation,
    /// seek jitter, missed revolutions). Parameters are assumed validated.
    pub fn new(p: HddParams, rng_seed: u64) -> Hdd {
        debug_assert!(p.validate().is_ok(), "{:?}", p.validate());
        let mut rng = Rng::from_u64(rng_seed);
        let dev = 1.0 + p.rpm_tolerance_percent / 100.0 * (2.0 * rng.f64() - 1.0);
        let t_rev_ns = 60e9 / (p.rpm as f64 * dev);
        let t_rev_ps = (t_rev_ns * 1000.0).round() as u64;
        let theta0_ps = rng.below(t_rev_ps);
        let k = 1.0 - p.rate_id_bytes_per_s as f64 / p.rate_od_bytes_per_s as f64;
        let r_avg = (p.rate_od_bytes_per_s + p.rate_id_bytes_per_s) as f64 / 2.0;
        let cap = p.capacity_bytes as f64;
        let n_tracks = cap / (r_avg * t_rev_ns * 1e-9);
        let n_cyl = (n_tracks / p.surfaces as f64).max(1.0);
        let x1 = 1.0 / n_cyl;
        let x0 = p.seek_knee_fraction;
        let seek_r = SeekCurve::fit(p.seek_read_track_ms, p.seek_read_avg_ms, p.seek_read_full_ms, x0, x1);
        let seek_w = SeekCurve::fit(p.seek_write_track_ms, p.seek_write_avg_ms, p.seek_write_full_ms, x0, x1);
        let ms = |v: f64| v * NS_PER_MS;
        let g = Geom {
            cap,
            k,
            n_tracks,
            surfaces: p.surfaces as u64,
            t_rev_ns,
            rev_per_ns: 1.0 / t_rev_ns,
            t_rev_ps,
            theta0_ps,
            seek_r,
            seek_w,
            head_switch_ns: ms(p.head_switch_ms),
            cyl_switch_ns: ms(p.cyl_switch_ms),
            ovh_read_ns: ms(p.overhead_read_miss_ms),
            ovh_write_ns: ms(p.overhead_write_miss_ms),
            ovh_hit_ns: ms(p.overhead_hit_ms).round() as u64,
            ovh_flush_ns: ms(p.overhead_flush_ms).round() as u64,
            link_bytes_per_ns: p.link_rate_bytes_per_s as f64 * 1e-9,
            age_limit_ns: ms(p.age_limit_ms).round() as u64,
            seq_bias_ns: ms(p.seq_cost_bias_ms),
            seg_bytes: p.cache_bytes / p.cache_segments as u64,
            idle_delay_ns: ms(p.destage_idle_delay_ms).round() as u64,
            high_water_bytes: (p.write_cache_max_dirty_bytes as f64 * p.destage_high_water_percent / 100.0) as u64,
            low_water_bytes: (p.write_cache_max_dirty_bytes as f64 * p.destage_low_water_percent / 100.0) as u64,
            high_water_extents: ((p.write_cache_max_dirty_extents as f64 * p.destage_high_water_percent / 100.0)
                as usize)
                .max(1),
            low_water_extents: (p.write_cache_max_dirty_extents as f64 * p.destage_low_water_percent / 100.0) as usize,
            ovh_common_ns: ms(p.overhead_read_miss_ms.min(p.overhead_write_miss_ms)),
            seek_margin: 1.0 + 2.0 * p.seek_jitter_percent / 100.0,
            // This drive's (rpm deviation included): a revolution of data at x = 0 holds
            // C·F'(0)/N_t = C / (N_t·(1 − k/2)) bytes.
            od_ns_per_byte: t_rev_ns * n_tracks * (1.0 - k / 2.0) / cap,
            destage_prune: seek_w.monotone(),
        };
        let qd = p.queue_depth as usize;
        let empty = Slot {
            tag: 0,
            op: Op::Read,
            off: 0,
            end: 0,
            arrival_ns: 0,
            pos: Pos::default(),
            data_ns: NONE,
            seq_cont: false,
            in_run: false,
        };
        Hdd {
            counters: HddCounters::default(),
            slots: vec![empty; qd],
            free: (0..qd as u16).rev().collect(),
            queued: Vec::with_capacity(qd),
            pending: Vec::with_capacity(qd),
            bufwait: Vec::with_capacity(qd),
            done_q: Vec::with_capacity(qd + 1),
            outstanding: 0,
            job: None,
            head: g.pos(0),
            head_off: 0,
            ra: None,
            segs: vec![Seg::default(); p.cache_segments as usize],
            seg_stamp: 0,
            dirty: Vec::with_capacity(p.write_cache_max_dirty_extents as usize),
            dirty_by_off: Vec::with_capacity(p.write_cache_max_dirty_extents as usize),
            dirty_bytes: 0,
            dirty_seq: 0,
            destage_hw: false,
            flush: Flush::None,
            sata_flush_tag: None,
            sas_flushes: Vec::with_capacity(qd),
            last_arrival_ns: 0,
            last_done_ns: 0,
            next_wake: NONE,
            clock_ns: 0,
            write_edges: WriteEdges { starts: [0; 256], ends: [0; 256] },
            link_free_ns: 0,
            media_from_ns: 0,
            write_end_ns: NONE,
            smr: smr::Smr::new(&p),
            p,
            g,
            rng,
        }
    }

    /// Seconds per revolution actually used by this drive (after the rpm deviation), ns.
    pub fn revolution_ns(&self) -> f64 {
        self.g.t_rev_ns
    }

    pub fn counters(&self) -> HddCounters {
        self.counters
    }

    // ---------------------------------------------------------------- completions

    fn complete(&mut self, slot: u16, t: u64) {
        let tag = self.slots[slot as usize].tag;
        let d = Done { t, tag };
        // Keep (time, decision order): equal times stay in the order they were decided.
        // Completions mostly arrive in time order, so scan from the back.
        let mut i = self.done_q.len();
        while i > 0 && self.done_q[i - 1].t > t {
            i -= 1;
        }
        self.done_q.insert(i, d);
        self.last_done_ns = self.last_done_ns.max(t);
        self.free.push(slot);
    }

    fn read_bus_tail_ns(&self, bytes: u64) -> u64 {
        // Data streams to the host during the media transfer; the last FIS (8 KiB) trails.
        self.g.bus_ns(bytes.min(8192))
    }

    /// Move `bytes` of one command over the host link (§2.6, §0.5: the interface is one
    /// shared server). The data can cross from `ready_ns` on (a read's first byte off the
    /// media or out of the buffer; a write's data once the drive asks for it) and would all
    /// be across by `natural_ns` on an idle link (the media-bound or overhead-bound end, the
    /// per-command T_bus included). Transfers take the link one after another in the order
    /// their data becomes ready, each for its bytes at `link_rate_bytes_per_s`, so the
    /// completed bytes of all commands together never outrun the link. Returns when the last
    /// byte is across.
    ///
    /// The link's own work is what is reserved, not the whole span a slower media transfer
    /// keeps a read open: with the link faster than the media (SATA 6G 560 MB/s against a
    /// 125–261 MB/s drive) a read streams at the media rate and the link still has room for
    /// other commands' data in between, so realistic configurations are unchanged except
    /// where the link truly binds. Unlike the SSD, which interleaves page-sized chunks round
    /// robin, one command's transfer is not split: a short one may wait behind a long one
    /// whose data was ready first (≤ 1.9 ms for 1 MiB on SATA 6G).
    fn link_xfer(&mut self, ready_ns: u64, natural_ns: u64, bytes: u64) -> u64 {
        let start = ready_ns.max(self.link_free_ns);
        self.link_free_ns = start + self.g.bus_ns(bytes);
        natural_ns.max(self.link_free_ns)
    }

    /// A read's first byte came off the media no later than this, given that its last came
    /// off at `data_ns`: no zone is faster than the outer one. (Exact would be the
    /// read-ahead frontier's time at the read's start, a square root and two divisions on
    /// every streamed read; the bound only lets the link start a streamed read's data a
    /// little later than it could, never before the data exists.)
    #[inline]
    fn first_byte_bound_ns(&self, data_ns: u64, bytes: u64) -> u64 {
        data_ns.saturating_sub((bytes as f64 * self.g.od_ns_per_byte) as u64)
    }

    /// A read served from the buffer (a hit at arrival, or data read ahead): the command
    /// overhead, then its data over the link once it is in (`data_from_ns`: when its first
    /// byte was); `natural_ns` is when it ends on an idle link.
    fn complete_buffered_read(&mut self, slot: u16, data_from_ns: u64, natural_ns: u64) {
        let s = self.slots[slot as usize];
        let ready = (s.arrival_ns + self.g.ovh_hit_ns).max(data_from_ns);
        let done = self.link_xfer(ready, natural_ns, s.end - s.off);
        self.complete(slot, done);
    }

    // ---------------------------------------------------------------- read cache

    fn cache_lookup(&mut self, off: u64, end: u64) -> bool {
        for s in self.segs.iter_mut() {
            if off >= s.start && end <= s.end && s.end > s.start {
                self.seg_stamp += 1;
                s.stamp = self.seg_stamp;
                return true;
            }
        }
        self.dirty.iter().any(|d| off >= d.off && end <= d.end)
    }

    fn frontier(&self, ra: &ReadAhead, t: u64) -> u64 {
        let revs = t.saturating_sub(ra.start_ns) as f64 * self.g.rev_per_ns;
        let x = (ra.start_x + revs / self.g.n_tracks).min(1.0);
        let off = (self.g.f_of(x) * self.g.cap) as u64;
        off.clamp(ra.start_off, ra.limit_off)
    }

    fn ra_time_at(&self, ra: &ReadAhead, off: u64) -> u64 {
        let dx = (self.g.x_of(off) - ra.start_x).max(0.0);
        // Round up: the data is in once the frontier has passed it.
        ra.start_ns + (dx * self.g.n_tracks * self.g.t_rev_ns) as u64 + 1
    }

    /// Whether a waiting command may stop the read-ahead now. Never while it still owes a
    /// read that was queued when it began: the drive coalesced those with the miss into one
    /// media access, which a waiting command does not interrupt.
    fn ra_preemptible(&self) -> bool {
        match &self.ra {
            Some(ra) => {
                let stream_held = self.p.readahead_unpreemptible && ra.consumed;
                let run_owed = self.pending.iter().any(|&q| self.slots[q as usize].in_run);
                !stream_held && !run_owed
            }
            None => true,
        }
    }

    /// Attach a read to the running read-ahead if it falls in its segment. Returns true if it
    /// was attached or completed as a hit.
    fn try_attach(&mut self, slot: u16, now: u64) -> bool {
        let Some(mut ra) = self.ra else { return false };
        let s = self.slots[slot as usize];
        let seg_start = self.segs[ra.seg]
            .start
            .max(self.frontier(&ra, now).saturating_sub(self.g.seg_bytes));
        let len = s.end - s.off;
        if s.op != Op::Read || s.off < seg_start || s.off >= ra.limit_off.max(self.frontier(&ra, now) + 1) {
            return false;
        }
        ra.consumed = true;
        self.counters.readahead_attached += 1;
        ra.limit_off = ra.limit_off.max((s.end + self.p.readahead_max_bytes).min(self.p.capacity_bytes));
        let hit_done = s.arrival_ns + self.g.ovh_hit_ns + self.g.bus_ns(len);
        let mut data = self.ra_time_at(&ra, s.end);
        if data > now && self.rng.chance(self.p.read_recovery_probability) {
            // The stream meets a sector it must recover before this read's data is in: it
            // stalls for the recovery, and everything it has yet to deliver comes that much
            // later (the frontier's time base moves; reads already in are untouched).
            let d = self.recovery_ns() as u64;
            ra.start_ns += d;
            data += d;
            for &q in &self.pending {
                self.slots[q as usize].data_ns += d;
            }
        }
        self.ra = Some(ra);
        if data <= now {
            let from = self.first_byte_bound_ns(data, len);
            self.complete_buffered_read(slot, from, hit_done.max(now));
        } else {
            self.slots[slot as usize].data_ns = data;
            self.pending.push(slot);
        }
        true
    }

    /// Stop read-ahead at `t`: the segment keeps what was read; attached reads whose data is
    /// not in yet become ordinary misses that yield to the commands that pre-empted them.
    fn stop_ra(&mut self, t: u64) {
        let Some(ra) = self.ra.take() else { return };
        let f = self.frontier(&ra, t);
        let seg = &mut self.segs[ra.seg];
        seg.end = f;
        seg.start = seg.start.max(f.saturating_sub(self.g.seg_bytes));
        self.head_off = f;
        self.head = self.g.pos(f);
        while let Some(slot) = self.pending.pop() {
            let s = &mut self.slots[slot as usize];
            s.data_ns = NONE;
            s.seq_cont = true;
            s.in_run = false;
            // Keep arrival order in `queued` (ages and FIFO ties rely on it).
            let arr = s.arrival_ns;
            let i = self
                .queued
                .iter()
                .position(|&q| self.slots[q as usize].arrival_ns > arr)
                .unwrap_or(self.queued.len());
            self.queued.insert(i, slot);
        }
    }

    fn start_ra(&mut self, t: u64, off: u64, end: u64) {
        if self.p.readahead_max_bytes == 0 {
            return;
        }
        // Least recently used segment (the first of equals), its stamp kept in a register.
        let (mut best, mut best_stamp) = (0, self.segs[0].stamp);
        for (i, s) in self.segs.iter().enumerate().skip(1) {
            if s.stamp < best_stamp {
                (best, best_stamp) = (i, s.stamp);
            }
        }
        self.seg_stamp += 1;
        // A read longer than a segment streamed through it; only its tail stays.
        self.segs[best] = Seg {
            start: off.max(end.saturating_sub(self.g.seg_bytes)),
            end,
            stamp: self.seg_stamp,
        };
        let lim = (end + self.p.readahead_max_bytes).min(self.p.capacity_bytes);
        if lim <= end {
            return;
        }
        self.ra = Some(ReadAhead {
            seg: best,
            start_ns: t,
            start_off: end,
            start_x: self.head.x,
            limit_off: lim,
            consumed: false,
        });
        // Queued reads the stream already sent are served by the read-ahead. Each one attached
        // extends the limit, so the reach is re-read every time, and a pass that attached
        // anything is repeated: the queue is in arrival order, which need not be LBA order.
        let mut attached = true;
        while attached {
            attached = false;
            let mut i = 0;
            while i < self.queued.len() {
                let q = self.queued[i];
                let s = &self.slots[q as usize];
                let lim = self.ra.map_or(0, |ra| ra.limit_off);
                // Cheap range test first: with random I/O almost nothing is near the segment.
                if s.op == Op::Read && s.off >= off && s.off < lim && self.try_attach(q, t) {
                    self.queued.remove(i);
                    self.slots[q as usize].in_run = true;
                    attached = true;
                } else {
                    i += 1;
                }
            }
        }
    }

    // ---------------------------------------------------------------- write cache

    fn cache_has_room(&self, bytes: u64, merge: bool) -> bool {
        // An empty cache takes any write, so an oversize write cannot wait forever.
        self.dirty.is_empty()
            || self.dirty_bytes + bytes <= self.p.write_cache_max_dirty_bytes
                && (merge || self.dirty.len() < self.p.write_cache_max_dirty_extents as usize)
    }

    fn can_merge(&self, off: u64, end: u64) -> bool {
        self.dirty
            .last()
            .is_some_and(|d| d.end == off && end - d.off <= 1 << 20)
    }

    fn buffer_write(&mut self, slot: u16, t: u64) {
        let s = self.slots[slot as usize];
        if self.can_merge(s.off, s.end) {
            self.dirty.last_mut().unwrap().end = s.end;
        } else {
            let at = self.dirty_by_off.partition_point(|&(o, _)| o <= s.off);
            self.dirty_by_off.insert(at, (s.off, self.dirty.len() as u32));
            self.dirty.push(Extent {
                off: s.off,
                end: s.end,
                pos: s.pos,
                seq: self.dirty_seq,
            });
        }
        self.dirty_seq += 1;
        self.dirty_bytes += s.end - s.off;
        self.update_hw();
        // The drive asks for the data once the command is processed and the buffer has room
        // (a write admitted from `bufwait` receives it only then); the data enters the cache
        // over the link.
        let ready = t.max(s.arrival_ns + self.g.ovh_hit_ns);
        let done = self.link_xfer(ready, ready + self.g.bus_ns(s.end - s.off), s.end - s.off);
        self.complete(slot, done);
    }

    fn update_hw(&mut self) {
        if self.dirty_bytes >= self.g.high_water_bytes
            || self.dirty.len() >= self.g.high_water_extents
            || !self.bufwait.is_empty()
        {
            self.destage_hw = true;
        } else if self.dirty_bytes <= self.g.low_water_bytes && self.dirty.len() <= self.g.low_water_extents {
            self.destage_hw = false;
        }
    }

    fn admit_waiting_writes(&mut self, t: u64) {
        while let Some(&slot) = self.bufwait.first() {
            let s = self.slots[slot as usize];
            if !self.cache_has_room(s.end - s.off, self.can_merge(s.off, s.end)) {
                break;
            }
            self.bufwait.remove(0);
            self.buffer_write(slot, t);
        }
        self.update_hw();
    }

    /// SATF choice among dirty extents (only those older than `barrier` if given): the
    /// cheapest, the first in `dirty` of equals.
    ///
    /// The extents are walked outwards from the head in radius order (`dirty_by_off`), each
    /// side until the seek alone to the next exceeds the best cost so far
    /// (`Geom::destage_floor`): every extent left out costs more than the choice, so the
    /// answer is that of scanning them all. A sequential destage finds a cost near zero
    /// next to the head and stops at once; the scan of up to 256 extents per decision was
    /// ≈ 5 % of a resilver.
    fn best_extent(&self, t: u64, barrier: u64) -> Option<(usize, f64)> {
        if self.dirty.len() <= DESTAGE_SCAN_MAX {
            return self.best_extent_scan(t, barrier);
        }
        let th = self.g.theta(t);
        let mut best: Option<(usize, f64)> = None;
        let hx = self.head.x;
        let by = &self.dirty_by_off;
        let split = by.partition_point(|&(_, i)| self.dirty[i as usize].pos.x < hx);
        let (below, above) = by.split_at(split);
        // The nearest extent on each side first, so that both walks start with a good best.
        let (mut up, mut down) = (above.iter(), below.iter().rev());
        let up_on = up.next().is_some_and(|&(_, i)| self.destage_visit(th, barrier, i as usize, &mut best));
        let down_on = down.next().is_some_and(|&(_, i)| self.destage_visit(th, barrier, i as usize, &mut best));
        if up_on {
            for &(_, i) in up {
                if !self.destage_visit(th, barrier, i as usize, &mut best) {
                    break;
                }
            }
        }
        if down_on {
            for &(_, i) in down {
                if !self.destage_visit(th, barrier, i as usize, &mut best) {
                    break;
                }
            }
        }
        #[cfg(debug_assertions)]
        assert_eq!(best, self.best_extent_scan(t, barrier), "hdd: pruned destage choice differs");
        best
    }

    /// One extent of `best_extent`'s walk: false if it, and so every extent beyond it,
    /// costs more than `best`.
    #[inline(always)]
    fn destage_visit(&self, th: f64, barrier: u64, i: usize, best: &mut Option<(usize, f64)>) -> bool {
        let d = &self.dirty[i];
        let (seek, on_curve) = self.g.seek_and_curve_ns(&self.head, &d.pos, true);
        if best.is_some_and(|(_, b)| self.g.destage_floor(on_curve) > b) {
            return false;
        }
        if d.seq < barrier {
            let c = self.positioning_after_ns(th, &d.pos, seek, 0.0);
            if best.is_none_or(|(bi, b)| c < b || c == b && i < bi) {
                *best = Some((i, c));
            }
        }
        true
    }

    /// `best_extent` by scanning every extent: cheaper than the walk for a few (random
    /// writes leave them spread, so the walk prunes little), and debug builds check the
    /// walk against it.
    fn best_extent_scan(&self, t: u64, barrier: u64) -> Option<(usize, f64)> {
        let th = self.g.theta(t);
        let mut best: Option<(usize, f64)> = None;
        for (i, d) in self.dirty.iter().enumerate() {
            if d.seq >= barrier {
                continue;
            }
            let c = self.positioning_ns(th, &d.pos, true, 0.0);
            if !best.is_some_and(|(_, b)| c >= b) {
                best = Some((i, c));
            }
        }
        best
    }

    /// `dirty.swap_remove(i)`, keeping `dirty_by_off` in step.
    fn take_dirty(&mut self, i: usize) -> Extent {
        let last = self.dirty.len() - 1;
        let find = |by: &[(u64, u32)], off: u64, idx: usize| -> usize {
            let from = by.partition_point(|&(o, _)| o < off);
            from + by[from..].iter().position(|&(_, j)| j as usize == idx).expect("hdd: dirty extent not indexed")
        };
        let k = find(&self.dirty_by_off, self.dirty[i].off, i);
        self.dirty_by_off.remove(k);
        if i != last {
            let k = find(&self.dirty_by_off, self.dirty[last].off, last);
            self.dirty_by_off[k].1 = i as u32;
        }
        self.dirty.swap_remove(i)
    }

    // ---------------------------------------------------------------- the arm

    /// Estimated overhead + seek + rotational wait from the current head, ns.
    #[inline]
    fn positioning_ns(&self, theta_now: f64, to: &Pos, write: bool, ovh_ns: f64) -> f64 {
        self.positioning_after_ns(theta_now, to, self.g.seek_ns(&self.head, to, write), ovh_ns)
    }

    /// `positioning_ns` given the seek (`Geom::seek_ns`) to `to`.
    #[inline]
    fn positioning_after_ns(&self, theta_now: f64, to: &Pos, seek_ns: f64, ovh_ns: f64) -> f64 {
        // Plan with a safety margin so that seek jitter rarely costs a revolution.
        let seek = seek_ns * self.g.seek_margin;
        let arrive = theta_now + (ovh_ns + seek) * self.g.rev_per_ns;
        ovh_ns + seek + frac(to.ang - arrive) * self.g.t_rev_ns
    }

    /// The part of a command's overhead left after the common overhead phase.
    fn ovh_rest_ns(&self, op: Op) -> f64 {
        let o = if op == Op::Write {
            self.g.ovh_write_ns
        } else {
            self.g.ovh_read_ns
        };
        o - self.g.ovh_common_ns
    }

    /// Execute one media access starting at `t`; returns when the media transfer ends.
    fn access(&mut self, t: u64, start_off: u64, from_off_pos: Pos, end_off: u64, write: bool, ovh_ns: f64) -> u64 {
        let to = from_off_pos;
        let mut seek = self.g.seek_ns(&self.head, &to, write);
        let mut extra_rev = 0.0;
        if seek > 0.0 {
            if self.p.seek_jitter_percent > 0.0 {
                let j = 1.0 + self.p.seek_jitter_percent / 100.0 * self.rng.normal();
                seek *= j.clamp(0.5, 1.5);
            }
            if self.rng.chance(self.p.missed_rev_probability) {
                extra_rev = self.g.t_rev_ns;
            }
        }
        let t_arr = t + ns(ovh_ns + seek);
        let mut w = frac(to.ang - self.g.theta(t_arr));
        // Within a microsecond of the data: the sector is under the head now, not a revolution away.
        if (1.0 - w) * self.g.t_rev_ns < 1000.0 {
            w = 0.0;
        }
        if !write && self.rng.chance(self.p.read_recovery_probability) {
            extra_rev += self.recovery_ns();
        }
        // A write that starts or ends inside a physical sector: the drive reads that sector
        // as it passes under the head and writes it merged on the next revolution.
        let phys = self.p.physical_sector_bytes as u64;
        if write && phys > 512 && (!start_off.is_multiple_of(phys) || !end_off.is_multiple_of(phys)) {
            self.counters.rmw_writes += 1;
            extra_rev += self.g.t_rev_ns;
        }
        let end_pos = self.g.pos(end_off);
        let media = ((end_pos.x - to.x) * self.g.n_tracks * self.g.t_rev_ns).max(0.0);
        // Rounded down, with half a ns to spare: the head ends just before the next byte's
        // angle, never a fraction of a ns past it. Nearest-ns rounding put it past about
        // half the time; the SATF estimate (no tolerance, so that it stays cheap over up to
        // 4096 candidates) then saw the contiguous dirty extent or queued write a whole
        // revolution away and took a later one first, and a destaged sequential stream ran
        // 10–25 % under the media rate (QA finding 3).
        let t_end = t_arr + ns_before(w * self.g.t_rev_ns + extra_rev + media);
        self.media_from_ns = t_end.saturating_sub(ns(media));
        self.head = end_pos;
        self.head_off = end_off;
        t_end.max(t + 1)
    }

    /// Time of one read error recovery: whole revolutions of re-reads, a geometric count with
    /// mean `read_recovery_revolutions_mean` (each re-read succeeds with chance 1/mean), cut at
    /// `recovery_time_limit_ms`. At the limit a real drive returns a medium error and ZFS
    /// reconstructs the block; here the read completes then (the error path is not modelled).
    fn recovery_ns(&mut self) -> f64 {
        self.counters.read_recoveries += 1;
        let m = self.p.read_recovery_revolutions_mean;
        let revs = if m <= 1.0 {
            1.0
        } else {
            // Inverse CDF of the geometric law on {1, 2, …} with success chance q = 1/m.
            let u = 1.0 - self.rng.f64(); // (0, 1]
            (u.ln() / (1.0 - 1.0 / m).ln()).floor() + 1.0
        };
        let cap = self.p.recovery_time_limit_ms * 1e6;
        (revs * self.g.t_rev_ns).min(cap)
    }

    /// Start a host command's media access at `t`, with `ovh_ns` of its command overhead
    /// still to pay on the arm.
    fn start_cmd(&mut self, t: u64, slot: u16, ovh_ns: f64) {
        let s = self.slots[slot as usize];
        self.slots[slot as usize].seq_cont = false;
        self.counters.media_accesses += 1;
        let write = s.op == Op::Write;
        if write {
            // Writes leave `queued` only here.
            self.write_edges.remove(s.off, s.end);
        }
        let mut end = self.media(t, s.off, s.pos, s.end, write, ovh_ns);
        if write {
            // The data crosses the link once the command is processed, overlapping the
            // positioning (§2.1 T_bus); the last byte is written after it arrived, so a
            // link slower than the media stretches the write.
            let ready = t + ns(ovh_ns);
            end = self.link_xfer(ready, end, s.end - s.off);
        }
        self.job = Some((Job::Cmd(slot), end));
    }

    fn start_destage(&mut self, t: u64, i: usize) {
        let d = self.take_dirty(i);
        self.counters.destages += 1;
        // An internal operation: no host command overhead.
        let end = self.media(t, d.off, d.pos, d.end, true, 0.0);
        self.job = Some((Job::Destage(d), end));
    }

    /// The arm finished its job at `t`.
    fn finish_job(&mut self, t: u64) {
        let Some((job, _)) = self.job.take() else { return };
        match job {
            Job::Overhead => return self.select(t),
            Job::Cmd(slot) => {
                let s = self.slots[slot as usize];
                if s.op == Op::Read {
                    let tail = self.read_bus_tail_ns(s.end - s.off);
                    let done = self.link_xfer(self.media_from_ns, t + tail, s.end - s.off);
                    self.complete(slot, done);
                    if !self.smr_read_was_cached() {
                        self.start_ra(t, s.off, s.end);
                    }
                } else {
                    self.complete(slot, t);
                    self.write_end_ns = t;
                }
            }
            Job::Destage(d) => {
                self.dirty_bytes -= d.end - d.off;
                self.check_sas_flushes(t);
                self.admit_waiting_writes(t);
                self.update_hw();
            }
            Job::SmrClean => {}
        }
        self.check_drain(t);
        if self.ra.is_some() {
            if self.needs_arm() && self.ra_preemptible() {
                self.stop_ra(t);
                self.decide(t);
            }
        } else {
            self.decide(t);
        }
    }

    /// Work other than read-ahead is waiting for the arm.
    fn needs_arm(&self) -> bool {
        !self.queued.is_empty()
            || !self.bufwait.is_empty()
            || self.destage_hw && !self.dirty.is_empty()
            || matches!(self.flush, Flush::Destaging(..))
            || !self.sas_flushes.is_empty()
    }

    fn oldest_waiting_ns(&self) -> u64 {
        let a = self
            .queued
            .iter()
            .map(|&q| self.slots[q as usize].arrival_ns)
            .min()
            .unwrap_or(NONE);
        let b = self
            .bufwait
            .first()
            .map_or(NONE, |&q| self.slots[q as usize].arrival_ns);
        a.min(b)
    }

    /// Choose and start the arm's next job at `t` (the arm is free, read-ahead stopped).
    fn decide(&mut self, t: u64) {
        debug_assert!(self.job.is_none() && self.ra.is_none());
        // 1. Flushes destage first (a SATA flush once the queue has drained).
        if let Flush::Destaging(slot, start) = self.flush {
            if start > t {
                return;
            }
            match self.best_extent(t, NONE) {
                Some((i, _)) => return self.start_destage(t, i),
                None => {
                    self.flush = Flush::None;
                    self.complete(slot, t + self.g.ovh_flush_ns);
                }
            }
        }
        // A SAS SYNCHRONIZE CACHE is a tagged command like the others (§2.7): its destage
        // competes with them in `select`, which runs at once when nothing else is queued.
        // 2. Host commands: the overhead phase first; the choice is made when it ends, so a
        //    command the host sends meanwhile (the replacement of the one that just
        //    completed) is a candidate too. A queued write that continues the media write
        //    just finished is the exception: it goes on without a break.
        if !self.queued.is_empty() {
            if self.continue_write_stream(t) {
                return;
            }
            let end = t + ns(self.g.ovh_common_ns).max(1);
            self.job = Some((Job::Overhead, end));
            return;
        }
        self.select(t);
    }

    /// Rule 2's exception, write streaming with the write cache off (WCE=0, or any write
    /// that reaches the queue). The arm has just finished a host write at `t` and a queued
    /// write starts at the very next byte: an NCQ drive holds that command already, so its
    /// command processing (`overhead_write_miss_ms`) ran while the previous data was being
    /// written, and it writes on with no overhead phase, no seek and no rotational wait, as
    /// the read-ahead does for queued reads (§2.7, DiskSim's "combine sequential writes";
    /// §2.1: T_ovh is command processing, which needs no arm). Without this the arm spent
    /// the overhead phase after each write, the next sector had passed, and the stream lost
    /// nearly a revolution per command, or SATF took the next-but-one command first and
    /// zig-zagged (QA finding 3: 100–125 MB/s at QD2–10 against 175). A command that
    /// arrived less than its overhead before `t` (the host's replacement at QD1, a 4 KiB
    /// stream at QD2) is not ready: it takes the ordinary path and loses the revolution,
    /// which is what a drive without a write cache does at QD1.
    ///
    /// The continuation still has to win the ordinary choice: a command past
    /// `age_limit_ms`, or one SATF with aging prefers even at the continuation's zero
    /// positioning against its own overhead still to pay, goes first (through the overhead
    /// phase). Returns whether the continuation started.
    fn continue_write_stream(&mut self, t: u64) -> bool {
        let (head, ovh) = (self.head_off, self.g.ovh_write_ns);
        if self.write_end_ns != t || !self.write_edges.may_start_at(head) {
            return false;
        }
        let Some(slot) = self.queued.iter().copied().find(|&q| {
            let s = &self.slots[q as usize];
            s.off == head && s.op == Op::Write && s.arrival_ns as f64 + ovh <= t as f64
        }) else {
            return false;
        };
        let oldest = self.oldest_waiting_ns();
        let destage_now = (self.destage_hw || !self.bufwait.is_empty()) && !self.dirty.is_empty();
        if (oldest != NONE && t.saturating_sub(oldest) >= self.g.age_limit_ns) || destage_now {
            return false;
        }
        match self.satf_choice(t, Some(slot)) {
            Some((i, _, _)) if self.queued[i] == slot => {
                self.queued.remove(i);
                self.counters.write_continuations += 1;
                self.start_cmd(t, slot, 0.0);
                true
            }
            _ => false,
        }
    }

    /// SATF with aging and sequential affinity over the queued commands at `t` (see
    /// `satf_pick`; `cont` is a write continuing the stream). Commands riding on another
    /// queued command (`follows_queued`) are no candidates; checking that costs a scan of
    /// the queue per command, so the first pass ignores it and a second pass runs only when
    /// the winner rides. The second pass asks it only of the candidates that beat the best
    /// so far (≈ ln n of n in a random queue; n² compares at worst, n ≤ 256): sorting the
    /// queue by offset to answer it for every command at once cost ≈ 3 800 instructions a
    /// pass at n ≈ 20.
    fn satf_choice(&self, t: u64, cont: Option<u16>) -> Option<(usize, f64, bool)> {
        let best = self.satf_pick(t, false, cont);
        if best.is_some_and(|(i, _, _)| self.follows_queued(&self.slots[self.queued[i] as usize])) {
            return self.satf_pick(t, true, cont);
        }
        best
    }

    /// Commit the arm to a job at `t`: aged command, else SATF over commands and (above the
    /// high watermark) dirty extents, else idle destage.
    fn select(&mut self, t: u64) {
        // Aged commands go first. Buffer-starved writes count as waiting on a destage.
        let oldest_q = self.queued.first().map(|&q| self.slots[q as usize].arrival_ns);
        let oldest_w = self.bufwait.first().map(|&q| self.slots[q as usize].arrival_ns);
        if let Some(a) = oldest_q {
            let before_writes = match oldest_w {
                Some(w) => a <= w,
                None => true,
            };
            if t.saturating_sub(a) >= self.g.age_limit_ns && before_writes {
                let slot = self.queued.remove(0);
                self.counters.aged_dispatches += 1;
                let ovh = self.ovh_rest_ns(self.slots[slot as usize].op);
                return self.start_cmd(t, slot, ovh);
            }
        }
        if let Some(w) = oldest_w {
            if t.saturating_sub(w) >= self.g.age_limit_ns {
                if let Some((i, _)) = self.best_extent(t, NONE) {
                    return self.start_destage(t, i);
                }
            }
        }
        // SAS flushes: the cheapest extent dirtied before the latest one, aged from the
        // oldest flush's arrival (a tagged command, §2.7; the age limit as for any other, §2.9).
        let sas = self.sas_flushes.iter().fold(None, |acc: Option<(u64, u64)>, &(slot, barrier)| {
            let a = self.slots[slot as usize].arrival_ns;
            Some(acc.map_or((a, barrier), |(a0, b0)| (a0.min(a), b0.max(barrier))))
        });
        let sas = sas.and_then(|(a, barrier)| self.best_extent(t, barrier).map(|(i, c)| (a, i, c)));
        if let Some((a, i, _)) = sas {
            if t.saturating_sub(a) >= self.g.age_limit_ns && oldest_q.is_none_or(|q| a <= q) {
                return self.start_destage(t, i);
            }
        }
        let best = self.satf_choice(t, None);
        // A destage of cost `c` waiting since `since` beats the SATF choice.
        let w = self.p.age_weight_ms_per_ms;
        let beats = |c: f64, since: u64| !best.is_some_and(|(_, bc, bs)| bs || c - (t - since.min(t)) as f64 * w >= bc);
        if let Some((a, i, c)) = sas {
            if beats(c, a) {
                return self.start_destage(t, i);
            }
        }
        let destage_now = (self.destage_hw || !self.bufwait.is_empty()) && !self.dirty.is_empty();
        if destage_now {
            if let Some((i, c)) = self.best_extent(t, NONE) {
                // Waiting for buffer space ages a destage like the write it unblocks.
                if beats(c, oldest_w.unwrap_or(t)) {
                    return self.start_destage(t, i);
                }
            }
        }
        if let Some((i, _, _)) = best {
            let slot = self.queued.remove(i);
            let ovh = self.ovh_rest_ns(self.slots[slot as usize].op);
            return self.start_cmd(t, slot, ovh);
        }
        debug_assert!(self.queued.is_empty(), "hdd: queued commands but nothing chosen");
        // Idle destage.
        if !self.dirty.is_empty() && t >= self.last_arrival_ns + self.g.idle_delay_ns {
            if let Some((i, _)) = self.best_extent(t, NONE) {
                self.start_destage(t, i);
            }
        }
        if self.job.is_none() && self.smr.is_some() {
            self.smr_idle_clean(t);
        }
    }

    /// The SATF choice among queued commands at `t` (without runs' followers if
    /// `skip_followers`): (index in `queued`, cost, strict sequential). Costs are from the
    /// end of the overhead phase; with `cont` (a write continuing the stream, its overhead
    /// already paid) they are from `t`, every other command still owing the phase.
    fn satf_pick(
        &self,
        t: u64,
        skip_followers: bool,
        cont: Option<u16>,
    ) -> Option<(usize, f64, bool)> {
        let th = self.g.theta(t);
        let phase_ns = if cont.is_some() { self.g.ovh_common_ns } else { 0.0 };
        // The continuation, if any, costs its rotational wait only (normally none); worked
        // out once, so the loop does one integer compare more.
        let cont_q = cont.unwrap_or(u16::MAX);
        let cont_ns = cont.map_or(0.0, |q| self.positioning_ns(th, &self.slots[q as usize].pos, true, 0.0));
        // The overhead each op still owes, indexed by "is a write" (same sums as per command).
        let ovh_ns = [phase_ns + self.ovh_rest_ns(Op::Read), phase_ns + self.ovh_rest_ns(Op::Write)];
        let head_off = self.head_off;
        let window = self.p.seq_window_bytes;
        let is_seq = |s: &Slot| s.off >= head_off && s.off - head_off <= window;
        // A drive whose read-ahead yields treats continuing a stream as read-ahead: it never
        // overtakes a command that was waiting before it. A read that rides on another
        // queued read belongs to that read's run, so only run heads count as waiting; found
        // on first need, since random I/O seldom has a sequential candidate.
        let mut oldest_other: Option<u64> = self.p.readahead_unpreemptible.then_some(NONE);
        let mut best: Option<(usize, f64, bool)> = None;
        for (i, &q) in self.queued.iter().enumerate() {
            let s = &self.slots[q as usize];
            let seq = is_seq(s);
            if seq || s.seq_cont {
                // `queued` is in arrival order, so the oldest such command is the first one
                // found; its follower test is O(n), the usual search O(n) in all.
                let other = *oldest_other.get_or_insert_with(|| {
                    debug_assert!(self.queued.windows(2).all(|w| self.slots[w[0] as usize].arrival_ns <= self.slots[w[1] as usize].arrival_ns));
                    self.queued
                        .iter()
                        .map(|&o| &self.slots[o as usize])
                        .find(|o| !o.seq_cont && !is_seq(o) && !self.follows_queued(o))
                        .map_or(NONE, |o| o.arrival_ns)
                });
                if s.arrival_ns >= other {
                    continue;
                }
            }
            let mut c = if q == cont_q {
                cont_ns
            } else {
                let write = s.op == Op::Write;
                self.positioning_ns(th, &s.pos, write, ovh_ns[write as usize])
            };
            c -= self.p.age_weight_ms_per_ms * span_f64(t - s.arrival_ns);
            if seq {
                c -= self.g.seq_bias_ns;
            }
            let strict = seq && self.p.seq_strict;
            let better = match best {
                None => true,
                Some((_, bc, bs)) => (strict && !bs) || (strict == bs && c < bc),
            };
            // The write continuing the stream is at the head: it rides on nothing. The
            // follower test scans the queue, so it is asked only of a candidate that would
            // win so far — a few per pass (the record lows of the costs), not all of them.
            if better && !(skip_followers && q != cont_q && self.follows_queued(s)) {
                best = Some((i, c, strict));
            }
        }
        best
    }

    /// `s` rides on another queued command of its kind and is no SATF candidate of its own.
    ///
    /// A read rides when the read-ahead after another queued read would serve it: it starts
    /// inside that read or less than `readahead_max_bytes` after its end. The drive serves a
    /// run of nearby queued reads from its lowest LBA, as one media access and its
    /// read-ahead. Taking a later one first (its sector may come round sooner) would strand
    /// the earlier ones behind the head at a revolution or a seek each, and the stream would
    /// then keep arriving out of order.
    ///
    /// A write rides when it starts right at the end of another queued write: the drive
    /// writes the run from its lowest LBA and streams on through the rest
    /// (`continue_write_stream`). Pure SATF does otherwise at the start of a stream — two
    /// contiguous 1 MiB writes queued together, the second's start comes round first — and
    /// then stays out of phase: the command that would continue the head has always been
    /// written already, each replacement the host sends is again a revolution cheaper than
    /// the one left behind, and the stream runs at QD1 speed at any depth (QA finding 3:
    /// 65 of 135 MB/s on hgst-7k2000 at QD2).
    fn follows_queued(&self, s: &Slot) -> bool {
        let reach = self.p.readahead_max_bytes;
        match s.op {
            Op::Read if reach > 0 => self.queued.iter().any(|&q| {
                let o = &self.slots[q as usize];
                o.op == Op::Read && o.off < s.off && s.off < o.end.saturating_add(reach)
            }),
            Op::Write if self.write_edges.may_end_at(s.off) => self.queued.iter().any(|&q| {
                let o = &self.slots[q as usize];
                o.op == Op::Write && o.end == s.off && o.off < s.off
            }),
            _ => false,
        }
    }

    fn check_sas_flushes(&mut self, t: u64) {
        if self.sas_flushes.is_empty() {
            return;
        }
        let min_seq = self.dirty.iter().map(|d| d.seq).min().unwrap_or(NONE);
        let in_flight = match self.job {
            Some((Job::Destage(d), _)) => d.seq,
            _ => NONE,
        };
        let min_seq = min_seq.min(in_flight);
        let mut i = 0;
        while i < self.sas_flushes.len() {
            let (slot, barrier) = self.sas_flushes[i];
            if min_seq >= barrier {
                self.sas_flushes.remove(i);
                self.complete(slot, t + self.g.ovh_flush_ns);
            } else {
                i += 1;
            }
        }
    }

    /// A SATA FLUSH starts once it is the only command left.
    fn check_drain(&mut self, t: u64) {
        if let Flush::Draining(slot) = self.flush {
            let held = self.slots.len() - self.free.len();
            if held == 1 {
                self.flush = Flush::Destaging(slot, self.last_done_ns.max(t));
            }
        }
    }

    // ---------------------------------------------------------------- internal clock

    fn compute_wake(&self) -> u64 {
        let mut w = NONE;
        if let Some((_, end)) = self.job {
            w = w.min(end);
        }
        if let Flush::Destaging(_, start) = self.flush {
            if self.job.is_none() {
                w = w.min(start);
            }
        }
        if let Some(ra) = &self.ra {
            for &q in &self.pending {
                w = w.min(self.slots[q as usize].data_ns);
            }
            w = w.min(self.ra_time_at(ra, ra.limit_off));
            if !self.ra_preemptible() {
                let o = self.oldest_waiting_ns();
                if o != NONE {
                    w = w.min(o + self.g.age_limit_ns);
                }
            }
        }
        let idle_arm = self.job.is_none() && (self.ra.is_none() || self.pending.is_empty() && self.ra_preemptible());
        // A flush waiting for its start time owns the next destage; no idle timer then.
        let flush_waiting = matches!(self.flush, Flush::Destaging(..));
        if idle_arm && !flush_waiting && !self.dirty.is_empty() && self.queued.is_empty() {
            w = w.min(self.last_arrival_ns + self.g.idle_delay_ns);
        }
        w = w.min(self.smr_wake());
        // A timer whose condition only just became true (the idle or age deadline passed while
        // the arm was busy) fires now, not in the past.
        if w == NONE {
            w
        } else {
            w.max(self.clock_ns)
        }
    }

    /// Process internal events up to and including `now`, in time order.
    fn run(&mut self, now: u64) {
        let t = self.compute_wake();
        self.run_from(now, t);
    }

    /// `run` on entry to `submit` or `advance`: nothing changed since the last `run` ended,
    /// which left `next_wake` = `compute_wake()`, so the first wake-up is known.
    fn resume(&mut self, now: u64) {
        debug_assert_eq!(self.next_wake, self.compute_wake(), "hdd: state changed outside submit/advance");
        self.run_from(now, self.next_wake);
    }

    /// The loop of `run`, given its first wake-up `t`. Inlined up to the first test: most
    /// calls (3 in 5 on the mixed benches: every submit, and completion reports between two
    /// internal events) find nothing due and return at once.
    #[inline]
    fn run_from(&mut self, now: u64, t: u64) {
        if t > now {
            self.next_wake = t;
            return;
        }
        self.run_due(now, t);
    }

    #[inline(never)]
    fn run_due(&mut self, now: u64, mut t: u64) {
        loop {
            if t > now {
                self.next_wake = t;
                return;
            }
            self.step(t);
            t = self.compute_wake();
        }
    }

    fn step(&mut self, t: u64) {
        debug_assert!(
            t >= self.clock_ns,
            "hdd: internal event at {t} before {}",
            self.clock_ns
        );
        self.clock_ns = t;
        // Reads riding on read-ahead whose data is in.
        if self.ra.is_some() {
            let mut i = 0;
            while i < self.pending.len() {
                let q = self.pending[i];
                let s = self.slots[q as usize];
                if s.data_ns <= t {
                    self.pending.swap_remove(i);
                    let natural = (s.data_ns + self.read_bus_tail_ns(s.end - s.off))
                        .max(s.arrival_ns + self.g.ovh_hit_ns + self.g.bus_ns(s.end - s.off));
                    let from = self.first_byte_bound_ns(s.data_ns, s.end - s.off);
                    self.slots[q as usize].data_ns = NONE;
                    self.slots[q as usize].in_run = false;
                    self.complete_buffered_read(q, from, natural);
                    self.check_drain(t);
                } else {
                    i += 1;
                }
            }
        }
        if let Some((_, end)) = self.job {
            if end <= t {
                return self.finish_job(end);
            }
        }
        if let Some(ra) = self.ra {
            let lim_t = self.ra_time_at(&ra, ra.limit_off);
            let aged = !self.ra_preemptible() && {
                let o = self.oldest_waiting_ns();
                o != NONE && o + self.g.age_limit_ns <= t
            };
            let flush_now = matches!(self.flush, Flush::Destaging(_, s) if s <= t);
            let idle_destage = self.pending.is_empty()
                && self.ra_preemptible()
                && !self.dirty.is_empty()
                && self.queued.is_empty()
                && self.last_arrival_ns + self.g.idle_delay_ns <= t;
            // The last read of a coalesced run is in: a command that waited meanwhile pre-empts.
            let preempt = self.needs_arm() && self.ra_preemptible();
            if lim_t <= t || aged || (flush_now && self.pending.is_empty()) || idle_destage || preempt {
                self.stop_ra(t.min(lim_t.max(ra.start_ns)));
                return self.decide(t);
            }
            return;
        }
        if self.job.is_none() {
            self.decide(t);
            if self.job.is_none() && self.compute_wake() <= t {
                // A wake-up that nothing can act on would spin; it is a bug, but never hang.
                debug_assert!(false, "hdd: idle wake-up at {t} with nothing to do");
                self.last_arrival_ns = self.last_arrival_ns.max(t);
            }
        }
    }
}

impl Device for Hdd {
    fn capacity_bytes(&self) -> u64 {
        self.p.capacity_bytes
    }
    fn rotational(&self) -> bool {
        true
    }
    fn queue_depth(&self) -> u32 {
        self.p.queue_depth
    }
    fn outstanding(&self) -> u32 {
        self.outstanding
    }
    fn can_accept(&self, _op: Op) -> bool {
        if self.sata_flush_tag.is_some() {
            return false;
        }
        self.outstanding < self.p.queue_depth && !self.free.is_empty()
    }

    fn submit(&mut self, now: u64, cmd: Cmd) {
        self.resume(now);
        debug_assert!(now >= self.clock_ns, "hdd: submit at {now} before {}", self.clock_ns);
        self.clock_ns = now;
        let slot = self
            .free
            .pop()
            .expect("hdd: submit without a free tag (check can_accept)");
        self.outstanding += 1;
        self.last_arrival_ns = self.last_arrival_ns.max(now);
        let off = cmd.offset_bytes.min(self.p.capacity_bytes);
        let end = (off + cmd.size_bytes).min(self.p.capacity_bytes).max(off);
        self.slots[slot as usize] = Slot {
            tag: cmd.tag,
            op: cmd.op,
            off,
            end,
            arrival_ns: now,
            pos: if cmd.op == Op::Flush {
                Pos::default()
            } else {
                self.g.pos(off)
            },
            data_ns: NONE,
            seq_cont: false,
            in_run: false,
        };
        let mut wants_arm = false;
        match cmd.op {
            Op::Read => {
                if self.cache_lookup(off, end) {
                    self.counters.read_hits += 1;
                    let natural = now + self.g.ovh_hit_ns + self.g.bus_ns(end - off);
                    self.complete_buffered_read(slot, now, natural);
                } else if !self.try_attach(slot, now) {
                    self.queued.push(slot);
                    wants_arm = true;
                }
            }
            Op::Write if self.p.write_cache_enabled => {
                if self.bufwait.is_empty() && self.cache_has_room(end - off, self.can_merge(off, end)) {
                    self.buffer_write(slot, now);
                } else {
                    self.bufwait.push(slot);
                    self.update_hw();
                    wants_arm = true;
                }
                wants_arm |= self.destage_hw;
            }
            Op::Write => {
                self.queued.push(slot);
                self.write_edges.add(off, end);
                wants_arm = true;
            }
            Op::Flush => {
                let clean = !self.p.write_cache_enabled
                    || self.dirty.is_empty() && !matches!(self.job, Some((Job::Destage(_), _)));
                match self.p.link_kind {
                    LinkKind::Sata => {
                        self.sata_flush_tag = Some(cmd.tag);
                        self.flush = Flush::Draining(slot);
                        self.check_drain(now);
                        wants_arm = true;
                    }
                    LinkKind::Sas if clean => self.complete(slot, now + self.g.ovh_flush_ns),
                    LinkKind::Sas => {
                        self.sas_flushes.push((slot, self.dirty_seq));
                        wants_arm = true;
                    }
                }
            }
        }
        if wants_arm && self.job.is_none() {
            if self.ra.is_some() {
                if self.ra_preemptible() && self.needs_arm() {
                    self.stop_ra(now);
                    self.decide(now);
                }
            } else {
                self.decide(now);
            }
        }
        self.run(now);
    }

    fn advance(&mut self, now: u64, done: &mut Vec<u32>) {
        self.resume(now);
        let n = self.done_q.iter().take_while(|d| d.t <= now).count();
        for d in self.done_q.drain(..n) {
            if self.sata_flush_tag == Some(d.tag) {
                self.sata_flush_tag = None;
            }
            done.push(d.tag);
        }
        self.outstanding -= n as u32;
    }

    fn next_event_ns(&self) -> Option<u64> {
        let w = self.done_q.first().map_or(self.next_wake, |d| d.t.min(self.next_wake));
        (w != NONE).then_some(w)
    }
}

// -------------------------------------------------------------------- presets

const MB: u64 = 1_000_000;
const MIB: u64 = 1 << 20;

/// WD Red 2 TB (WD20EFRX-68EUZN0): 5400 rpm CMR NAS, the §9.1 class A drive.
fn wd20efrx() -> HddParams {
    HddParams {
        capacity_bytes: 2_000_398_934_016,    // [S] smartctl, https://pastebin.com/reYnEaqk
        rpm: 5400,                            // [S] smartctl reports 5400 rpm
        rpm_tolerance_percent: 0.2,           // [E] §9.1
        surfaces: 4,                          // [R/E] §9.1
        rate_od_bytes_per_s: 147 * MB,        // [R] WD datasheet max sustained, §3.1
        rate_id_bytes_per_s: 70 * MB,         // [E] OD/ID ≈ 2.1, §3.1
        seek_read_track_ms: 1.0,              // [E] §2.2 5400 NAS read profile
        seek_read_avg_ms: 10.0,               // [S+E] inferred from PCPer QD1 offset, §2.2
        seek_read_full_ms: 19.0,              // [E] §2.2
        seek_write_track_ms: 1.2,             // [E] §2.2 5400 NAS write profile
        seek_write_avg_ms: 11.0,              // [E] §2.2
        seek_write_full_ms: 20.5,             // [E] §2.2
        seek_knee_fraction: 0.3,              // [C] §2.2 fit form
        head_switch_ms: 0.8,                  // [E] §9.1
        cyl_switch_ms: 1.0,                   // [E] §9.1
        seek_jitter_percent: 4.0,             // [E] §9.1
        missed_rev_probability: 0.02,         // [E] §9.1
        overhead_read_miss_ms: 0.15,          // [E] §9.1
        overhead_write_miss_ms: 0.20,         // [E] §9.1
        overhead_hit_ms: 0.10,                // [E] §9.1
        overhead_flush_ms: 0.3,               // [E] §9.1
        link_kind: LinkKind::Sata,            // [S] SATA 6 Gb/s, smartctl
        link_rate_bytes_per_s: 560 * MB,      // [E] §2.6 practical SATA 6G payload
        queue_depth: 32,                      // [S] hdparm "Queue depth: 32", §2.8
        age_weight_ms_per_ms: 0.0,            // [E] §2.9 table
        age_limit_ms: 2000.0,                 // [C/E] §2.9 table
        seq_window_bytes: MIB,                // [E] §2.9 table
        seq_cost_bias_ms: 0.0,                // strict below stands for the ∞ bias, [E] §2.9
        seq_strict: true,                     // [E] §2.9 table
        readahead_max_bytes: 2 * MIB,         // [E] §9.1
        readahead_unpreemptible: true,        // [E] §2.9 table
        cache_bytes: 64 * MB,                 // [R] WD datasheet, §3.1
        cache_segments: 16,                   // [E] §9.1
        write_cache_enabled: true,            // [S] smartctl "Write cache: Enabled"
        write_cache_max_dirty_bytes: 16 * MB, // [E] §9.1
        write_cache_max_dirty_extents: 256,   // [E] §9.1
        destage_idle_delay_ms: 20.0,          // [E] §9.1
        destage_high_water_percent: 75.0,     // [E] §9.1
        destage_low_water_percent: 25.0,      // [E] §9.1
        read_recovery_probability: 0.0,       // a healthy drive
        read_recovery_revolutions_mean: 1.0,  // unused at probability 0
        recovery_time_limit_ms: 7000.0,       // [R] TLER 7 s, §2.9
        physical_sector_bytes: 4096,          // [S] smartctl "512 bytes logical, 4096 bytes physical", §9.1
        // Reliability figures: none taken from a datasheet read for this preset, so unset
        // (a scenario can give them; docs/output.md, "Redundancy").
        afr_percent: 0.0,
        nonrecoverable_read_error_bits: 0.0,
        // A CMR drive: no shingled bands, no media cache (`smr.rs`).
        smr_media_cache_bytes: 0,
        smr_band_bytes: 0,
        smr_clean_idle_delay_ms: 0.0,
        smr_band_bypass: false,
    }
}

/// WD Red 8 TB (WD80EFZX-68UW8N0): 5400-class helium CMR NAS, §9.1 class B.
fn wd80efzx() -> HddParams {
    HddParams {
        capacity_bytes: 8_001_563_222_016,    // [S] 15,628,053,168 × 512 B, §3.2
        surfaces: 14,                         // [R/E] §9.1
        rate_od_bytes_per_s: 178 * MB,        // [R] WD datasheet, §3.2
        rate_id_bytes_per_s: 85 * MB,         // [E] §3.2
        age_limit_ms: 4000.0,                 // [C/E] §2.9 table (up to 4 s in 2080c4f27e)
        cache_bytes: 128 * MB,                // [R] WD datasheet, §3.2
        write_cache_max_dirty_bytes: 32 * MB, // [E] §9.1
        // Seek, rotation, overheads, link, queue and the §2.9 affinity as class A ([E]/[C], §9.1 "same").
        ..wd20efrx()
    }
}

/// Seagate Exos X14 14 TB SAS (ST14000NM0048), §9.2 class C.
fn st14000nm0048() -> HddParams {
    HddParams {
        capacity_bytes: 14_000_000_000_000,   // [D] §9.2
        rpm: 7200,                            // [D] §9.2
        rpm_tolerance_percent: 0.2,           // [E] as §9.1
        surfaces: 16,                         // [R] §9.2
        rate_od_bytes_per_s: 261 * MB,        // [R] X14 datasheet, §3.3
        rate_id_bytes_per_s: 125 * MB,        // [E] §3.3
        seek_read_track_ms: 0.8,              // [E] §2.2 7200 nearline read
        seek_read_avg_ms: 8.5,                // [R] Seagate enterprise norm, §3.3
        seek_read_full_ms: 16.0,              // [E] §2.2
        seek_write_track_ms: 1.0,             // [E] §2.2 7200 nearline write
        seek_write_avg_ms: 9.5,               // [R] §3.3
        seek_write_full_ms: 17.5,             // [E] §2.2
        seek_knee_fraction: 0.3,              // [C] §2.2
        head_switch_ms: 0.6,                  // [E] §9.2
        cyl_switch_ms: 0.8,                   // [E] §9.2
        seek_jitter_percent: 4.0,             // [E] §2.1 (σ 3–5%)
        missed_rev_probability: 0.02,         // [E] §2.1 (1–3%)
        overhead_read_miss_ms: 0.12,          // [E] §9.2
        overhead_write_miss_ms: 0.12,         // [E] §9.2
        overhead_hit_ms: 0.08,                // [E] §9.2
        overhead_flush_ms: 0.3,               // [E] §2.7 (0.1–0.5)
        link_kind: LinkKind::Sas,             // [D] SAS 12 Gb/s
        link_rate_bytes_per_s: 1_100 * MB,    // [E] §2.6 practical SAS 12G lane
        queue_depth: 64,                      // [R/E] §9.2
        age_weight_ms_per_ms: 0.005,          // [E] §2.9 table
        age_limit_ms: 3000.0,                 // [C/E] §2.9 table (bimodal 2–4 s cluster)
        seq_window_bytes: MIB,                // [E] §2.9 table
        seq_cost_bias_ms: 0.0,                // strict below, [E] §2.9
        seq_strict: true,                     // [E] §2.9 table
        readahead_max_bytes: 4 * MIB,         // [E] §9.2
        readahead_unpreemptible: true,        // [E] §2.9 table
        cache_bytes: 256 * MB,                // [S] Exos 2X14 spec / [R] X14 datasheet, §3.3
        cache_segments: 32,                   // [E] §9.2
        write_cache_enabled: true,            // [E] §9.2 (check WCE in mode page 08h)
        write_cache_max_dirty_bytes: 64 * MB, // [E] §9.2
        write_cache_max_dirty_extents: 256,   // [E] as §9.1
        destage_idle_delay_ms: 20.0,          // [E] as §9.1
        destage_high_water_percent: 75.0,     // [E] as §9.1
        destage_low_water_percent: 25.0,      // [E] as §9.1
        read_recovery_probability: 0.0,       // a healthy drive
        read_recovery_revolutions_mean: 1.0,  // unused at probability 0
        recovery_time_limit_ms: 7000.0,       // [R] ERC 7 s as TLER, §2.9
        // [R] 512e: Seagate's helium Exos SAS drives ship 512E ("Default configuration is 512E
        // for 512E / 4KN drives", X16/X18 SAS product manuals; the X14 manual not retrieved).
        physical_sector_bytes: 4096,
        // Reliability figures: none taken from a datasheet read for this preset, so unset
        // (a scenario can give them; docs/output.md, "Redundancy").
        afr_percent: 0.0,
        nonrecoverable_read_error_bits: 0.0,
        // A CMR drive: no shingled bands, no media cache (`smr.rs`).
        smr_media_cache_bytes: 0,
        smr_band_bytes: 0,
        smr_clean_idle_delay_ms: 0.0,
        smr_band_bypass: false,
    }
}

/// 2014-era 1 TB 7200 rpm SATA, anchored on Seagate Constellation ES.3 ST1000NM0033, §9.3 E.
fn hdd_7200_sata_2014() -> HddParams {
    HddParams {
        capacity_bytes: 1_000_000_000_000,    // [D] §9.3
        surfaces: 3,                          // [D] ES.3 manual family table, §3.5
        rate_od_bytes_per_s: 175 * MB,        // [D] ES.3 manual 83–175 MB/s
        rate_id_bytes_per_s: 83 * MB,         // [D] same
        head_switch_ms: 0.8,                  // [E] §9.3
        cyl_switch_ms: 1.0,                   // [E] §9.3
        overhead_read_miss_ms: 0.15,          // [E] §2.1/§2.8 Monte Carlo
        overhead_write_miss_ms: 0.20,         // [E] as §9.1
        overhead_hit_ms: 0.10,                // [E] §2.7
        link_kind: LinkKind::Sata,            // [R] SATA 6 Gb/s, §9.3
        link_rate_bytes_per_s: 560 * MB,      // [E] §2.6
        queue_depth: 32,                      // [E] §9.3
        age_weight_ms_per_ms: 0.01,           // [E] §9.3 / §2.8 default w
        age_limit_ms: 1000.0,                 // [E] §2.9 benign default 500–1000
        seq_strict: false,                    // [E] §9.3 seq_affinity off
        readahead_max_bytes: 2 * MIB,         // [E] as §9.1
        readahead_unpreemptible: false,       // [E] §2.9 benign default
        cache_bytes: 128 * MB,                // [R] §3.5
        cache_segments: 16,                   // [E]
        // [S] ES.3 SATA product manual 100671511 Rev. E (2014) §2.11.1: "annualized
        // failure-rate of 0.44% (MTBF of 2,000,000 hours)"; its read error rate was not read.
        afr_percent: 0.44,
        nonrecoverable_read_error_bits: 0.0,
        write_cache_max_dirty_bytes: 16 * MB, // [E] §9.3
        physical_sector_bytes: 512,           // [R] ST1000NM0033 is the 512-native ES.3 model
        // Seek curves: 7200 nearline profile (track 0.8/1.0, avg 8.5/9.5 [R], full 16/17.5 [E]), §9.3.
        ..st14000nm0048()
    }
}

/// HGST Deskstar/Ultrastar 7K2000, 2 TB 7200 rpm SATA 3 Gb/s (2009), §9.3 D.
fn hgst_7k2000() -> HddParams {
    HddParams {
        capacity_bytes: 2_000_000_000_000,   // [D] §9.3
        surfaces: 10,                        // [S/R] 5 × 400 GB platters (X-bit review), §3.6
        rate_od_bytes_per_s: 135 * MB,       // [E] §3.6
        rate_id_bytes_per_s: 65 * MB,        // [E] §3.6
        seek_read_track_ms: 0.8,             // [E] §2.2 HGST profile
        seek_read_avg_ms: 8.2,               // [D] HGST 7K-series norm (7K4000 spec), §3.6
        seek_read_full_ms: 15.5,             // [E] §2.2
        seek_write_track_ms: 0.8,            // [D] HGST lists write = read, §9.3
        seek_write_avg_ms: 8.2,              // [D] same
        seek_write_full_ms: 15.5,            // [E] same
        head_switch_ms: 1.0,                 // [E] §9.3
        cyl_switch_ms: 1.2,                  // [E] §9.3
        link_rate_bytes_per_s: 280 * MB,     // [R] SATA 3 Gb/s (7K2000), [E] payload §2.6
        cache_bytes: 32 * MB,                // [R] §3.6
        cache_segments: 8,                   // [E] 4 MB segments hold the 2 MiB read-ahead
        write_cache_max_dirty_bytes: 8 * MB, // [E] §9.3
        ..hdd_7200_sata_2014()
    }
}

/// 2009-era 7200 rpm desktop SATA (Hitachi 7K1000.C / Deskstar lineage), §9.3 F.
fn hdd_7200_desktop_2009() -> HddParams {
    HddParams {
        capacity_bytes: 1_000_000_000_000,   // [D] 0.5–1.0e12, §9.3 (upper end)
        surfaces: 4,                         // [S/R] 2–6, §9.3 (two platters)
        rate_od_bytes_per_s: 125 * MB,       // [E] §3.7
        rate_id_bytes_per_s: 60 * MB,        // [E] §3.7
        seek_read_track_ms: 1.0,             // [E] §2.2 2009 desktop read
        seek_read_avg_ms: 8.5,               // [D] 7K1000.C 2-disk model, §3.7
        seek_read_full_ms: 17.0,             // [E] §2.2
        seek_write_track_ms: 1.1,            // [E] §2.2 2009 desktop write
        seek_write_avg_ms: 9.5,              // [D] 7K1000.C, §3.7
        seek_write_full_ms: 18.0,            // [E] §2.2
        head_switch_ms: 1.2,                 // [E] §9.3 (IBM era 1.2–1.8 [S])
        cyl_switch_ms: 1.5,                  // [E] §9.3
        link_rate_bytes_per_s: 280 * MB,     // [R] SATA 3 Gb/s, §9.3
        cache_bytes: 32 * MB,                // [R] 16–32 MB, §9.3
        cache_segments: 8,                   // [E] 4 MB segments hold the 2 MiB read-ahead
        write_cache_max_dirty_bytes: 4 * MB, // [E] §9.3
        // [R] desktop drives have no ERC and retry longer; the Linux SCSI command timeout
        // (30 s) ends a recovery, §2.9.
        recovery_time_limit_ms: 30_000.0,
        ..hdd_7200_sata_2014()
    }
}

/// Bundled HDD presets: (name, description, parameters).
pub fn presets() -> Vec<(&'static str, &'static str, HddParams)> {
    vec![
        (
            "wd20efrx",
            "WD Red 2 TB, 5400 rpm CMR NAS, SATA, NCQ 32, strong sequential affinity",
            wd20efrx(),
        ),
        (
            "wd80efzx",
            "WD Red 8 TB helium, 5400-class CMR NAS, SATA, NCQ 32, strong sequential affinity",
            wd80efzx(),
        ),
        (
            "st14000nm0048",
            "Seagate Exos X14 14 TB, 7200 rpm, SAS 12 Gb/s, TCQ 64, sequential affinity with a 3 s age limit",
            st14000nm0048(),
        ),
        (
            "hdd-7200-sata-2014",
            "1 TB 7200 rpm SATA 6 Gb/s nearline (Constellation ES.3 anchor), 2014",
            hdd_7200_sata_2014(),
        ),
        (
            "hgst-7k2000",
            "HGST 7K2000 2 TB 7200 rpm SATA 3 Gb/s, 2009",
            hgst_7k2000(),
        ),
        (
            "hdd-7200-desktop-2009",
            "2009 desktop 1 TB 7200 rpm SATA 3 Gb/s (Hitachi 7K1000.C lineage)",
            hdd_7200_desktop_2009(),
        ),
        (
            "wd40efax",
            "WD Red 4 TB EFAX, 5400-class drive-managed SMR NAS (media cache and band sizes borrowed from Seagate DM-SMR measurements)",
            smr::wd40efax(),
        ),
    ]
}

/// The preset named `name`.
pub fn preset(name: &str) -> Option<HddParams> {
    presets().into_iter().find(|(n, _, _)| *n == name).map(|(_, _, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIB: u64 = 1024;

    /// Makes the next command of a client: (op, offset, size).
    type Gen = Box<dyn FnMut(&mut Rng) -> (Op, u64, u64)>;

    /// One closed-loop client: keeps `qd` commands outstanding, each made by `gen`.
    struct Client {
        qd: u32,
        gen: Gen,
        in_flight: u32,
        lat_ns: Vec<u64>,
    }

    fn random_reads(cap: u64, size: u64) -> Gen {
        Box::new(move |r: &mut Rng| (Op::Read, r.below(cap / size) * size, size))
    }

    fn random_writes(cap: u64, size: u64) -> Gen {
        Box::new(move |r: &mut Rng| (Op::Write, r.below(cap / size) * size, size))
    }

    fn seq_writes(start: u64, size: u64) -> Gen {
        let mut next = start;
        Box::new(move |_: &mut Rng| {
            let o = next;
            next += size;
            (Op::Write, o, size)
        })
    }

    fn seq_reads(start: u64, size: u64) -> Gen {
        let mut next = start;
        Box::new(move |_: &mut Rng| {
            let o = next;
            next += size;
            (Op::Read, o, size)
        })
    }

    fn client(qd: u32, gen: Gen) -> Client {
        Client {
            qd,
            gen,
            in_flight: 0,
            lat_ns: Vec::new(),
        }
    }

    /// Drive the device with closed-loop clients until `until_done` completions of client 0
    /// (or simulated `until_ns`). Returns the time of the last completion and the completion log.
    struct Run {
        end_ns: u64,
        log: Vec<(u32, u64)>,
        /// (completion time, bytes) of every command, in completion order.
        done_bytes: Vec<(u64, u64)>,
    }

    fn run(dev: &mut Hdd, clients: &mut [Client], until_done: usize, until_ns: u64, seed: u64) -> Run {
        let mut rng = Rng::from_u64(seed ^ 0xC11E);
        let mut tags: Vec<(usize, u64, u64)> = Vec::new(); // tag -> (client, submit time, bytes)
        let mut done = Vec::new();
        let mut log = Vec::new();
        let mut done_bytes = Vec::new();
        let mut t = 0u64;
        let mut end = 0;
        let fill = |dev: &mut Hdd, clients: &mut [Client], tags: &mut Vec<(usize, u64, u64)>, rng: &mut Rng, t: u64| {
            for (ci, c) in clients.iter_mut().enumerate() {
                while c.in_flight < c.qd {
                    let (op, off, size) = (c.gen)(rng);
                    if !dev.can_accept(op) {
                        break;
                    }
                    let tag = tags.len() as u32;
                    tags.push((ci, t, size));
                    dev.submit(
                        t,
                        Cmd {
                            tag,
                            op,
                            offset_bytes: off % dev.capacity_bytes(),
                            size_bytes: size,
                        },
                    );
                    c.in_flight += 1;
                }
            }
        };
        fill(dev, clients, &mut tags, &mut rng, t);
        while clients[0].lat_ns.len() < until_done && t < until_ns {
            t = dev.next_event_ns().expect("device idle with commands outstanding");
            done.clear();
            dev.advance(t, &mut done);
            for &tag in &done {
                let (ci, st, size) = tags[tag as usize];
                clients[ci].lat_ns.push(t - st);
                clients[ci].in_flight -= 1;
                log.push((tag, t));
                done_bytes.push((t, size));
                end = t;
            }
            fill(dev, clients, &mut tags, &mut rng, t);
        }
        Run { end_ns: end, log, done_bytes }
    }

    fn iops(p: &HddParams, qd: u32, n: usize, seed: u64) -> f64 {
        let mut dev = Hdd::new(p.clone(), seed);
        let mut cl = [client(qd, random_reads(p.capacity_bytes, 4 * KIB))];
        let r = run(&mut dev, &mut cl, n, u64::MAX, seed);
        n as f64 / (r.end_ns as f64 * 1e-9)
    }

    fn p(name: &str) -> HddParams {
        preset(name).unwrap()
    }

    /// Expected 4 KiB full-span random-read IOPS at QD1 and QD32 ([C], §2.8, §9).
    fn expected(name: &str) -> (f64, f64) {
        match name {
            // The EFAX shares the class A mechanics; random reads of never-written data
            // never meet its media cache.
            "wd20efrx" | "wd80efzx" | "wd40efax" => (64.0, 156.0),
            "hgst-7k2000" => (80.0, 192.0),
            "hdd-7200-desktop-2009" => (79.0, 186.0),
            _ => (79.0, 188.0),
        }
    }

    #[test]
    fn seek_fit_matches_spec_table() {
        // §2.2 fitted constants, single-track taken at x = 1/300,000.
        let rows = [
            (0.8, 8.5, 16.0, [0.773, 14.61, 5.68, 10.32]),
            (1.0, 9.5, 17.5, [0.970, 16.26, 6.61, 10.89]),
            (0.8, 8.2, 15.5, [0.774, 14.00, 5.42, 10.08]),
            (1.0, 8.5, 17.0, [0.975, 13.69, 4.82, 12.18]),
            (1.0, 10.0, 19.0, [0.969, 16.97, 6.52, 12.48]),
            (1.2, 11.0, 20.5, [1.166, 18.62, 7.45, 13.05]),
        ];
        for (tr, av, fu, want) in rows {
            let c = SeekCurve::fit(tr, av, fu, 0.3, 1.0 / 300_000.0);
            let got = [c.a, c.b, c.c, c.e];
            for i in 0..4 {
                assert!(
                    (got[i] - want[i]).abs() < 0.011,
                    "{tr}/{av}/{fu}: got {got:?}, want {want:?}"
                );
            }
            assert!((c.ms(1.0) - fu).abs() < 1e-9 && (c.ms(0.3 - 1e-12) - c.ms(0.3)).abs() < 1e-6);
        }
    }

    #[test]
    fn presets_are_named_valid_and_round_trip() {
        let names: Vec<&str> = presets().iter().map(|(n, _, _)| *n).collect();
        assert_eq!(
            names,
            [
                "wd20efrx",
                "wd80efzx",
                "st14000nm0048",
                "hdd-7200-sata-2014",
                "hgst-7k2000",
                "hdd-7200-desktop-2009",
                "wd40efax"
            ]
        );
        for (n, _, p) in presets() {
            p.validate().unwrap_or_else(|e| panic!("{n}: {e}"));
            let j = serde_json::to_string(&p).unwrap();
            let back: HddParams = serde_json::from_str(&j).unwrap();
            assert_eq!(back, p, "{n}");
        }
        let mut v = serde_json::to_value(p("wd20efrx")).unwrap();
        v["seek_avg_ms"] = serde_json::json!(3.0);
        let e = serde_json::from_value::<HddParams>(v).unwrap_err().to_string();
        assert!(e.contains("seek_avg_ms"), "{e}");
    }

    #[test]
    fn validate_names_field_value_and_range() {
        let mut q = p("wd20efrx");
        q.seek_read_avg_ms = 25.0;
        let e = q.validate().unwrap_err();
        assert_eq!(
            e,
            "seek_read_avg_ms: 25 — out of range; allowed: more than seek_read_track_ms (1), \
             less than seek_read_full_ms (19)"
        );
        // A bound that is another field is named, with its value.
        let mut q = p("wd20efrx");
        q.rate_id_bytes_per_s = q.rate_od_bytes_per_s + 1;
        assert_eq!(
            q.validate().unwrap_err(),
            "rate_id_bytes_per_s: 147000001 — out of range; allowed: 1000000..rate_od_bytes_per_s (147000000)"
        );
        let mut q = p("hgst-7k2000");
        q.queue_depth = 0;
        assert_eq!(q.validate().unwrap_err(), "queue_depth: 0 — out of range; allowed: 1..256");
        let mut q = p("hgst-7k2000");
        q.destage_high_water_percent = 10.0;
        assert_eq!(
            q.validate().unwrap_err(),
            "destage_high_water_percent: 10 — out of range; allowed: destage_low_water_percent + 1 (26)..100"
        );
        let mut q = p("hgst-7k2000");
        q.capacity_bytes += 1;
        assert!(q.validate().unwrap_err().starts_with("capacity_bytes: 2000000000001 — not a multiple of 512; allowed: "));
        // Every message has the one shape `field: value — why; allowed: …`, on one line.
        for e in [q.validate().unwrap_err(), e] {
            assert!(!e.contains('\n') && e.contains(" — ") && e.contains("; allowed: "), "{e}");
        }
    }

    #[test]
    fn random_read_iops_qd1_and_qd32_match_spec() {
        for (name, _, prm) in presets() {
            let (e1, e32) = expected(name);
            let q1 = iops(&prm, 1, 2000, 11);
            let q32 = iops(&prm, 32, 5000, 12);
            eprintln!("{name}: QD1 {q1:.1} IOPS (expect {e1}), QD32 {q32:.1} IOPS (expect {e32})");
            assert!((q1 / e1 - 1.0).abs() < 0.15, "{name}: QD1 {q1:.1} vs {e1}");
            assert!((q32 / e32 - 1.0).abs() < 0.15, "{name}: QD32 {q32:.1} vs {e32}");
        }
    }

    #[test]
    fn iops_non_decreasing_with_queue_depth_without_aging() {
        for name in ["wd20efrx", "hdd-7200-sata-2014"] {
            let mut prm = p(name);
            prm.age_weight_ms_per_ms = 0.0;
            prm.age_limit_ms = 60_000.0;
            let mut last = 0.0;
            for qd in [1, 2, 4, 8, 16, 32] {
                let v = iops(&prm, qd, 3000, 21 + qd as u64);
                eprintln!("{name}: QD{qd} {v:.1} IOPS");
                assert!(v >= last, "{name}: QD{qd} {v:.1} < {last:.1}");
                last = v;
            }
        }
    }

    fn seq_rate(prm: &HddParams, qd: u32) -> (f64, u64) {
        let mut dev = Hdd::new(prm.clone(), 5);
        let mut cl = [client(qd, seq_reads(0, 128 * KIB))];
        let n = 3000;
        let r = run(&mut dev, &mut cl, n, u64::MAX, 5);
        let mb_s = n as f64 * 128.0 * KIB as f64 / (r.end_ns as f64 * 1e-9) / 1e6;
        (mb_s, r.end_ns)
    }

    #[test]
    fn sequential_reads_reach_outer_zone_rate_with_readahead() {
        for (name, _, prm) in presets() {
            let od = prm.rate_od_bytes_per_s as f64 / 1e6;
            for qd in 1..=4 {
                let (r, _) = seq_rate(&prm, qd);
                eprintln!("{name}: seq 128 KiB QD{qd}: {r:.1} MB/s (OD {od})");
                assert!((r / od - 1.0).abs() < 0.15, "{name} QD{qd}: {r:.1} MB/s vs {od}");
            }
        }
    }

    #[test]
    fn sequential_reads_stream_at_media_rate_at_any_depth_and_size() {
        // ZFS prefetch keeps several aggregated reads of up to 1 MiB (more with larger
        // zfs_vdev_aggregation_limit) outstanding in LBA order; a drive streams them at media
        // rate. Regression: 1 MiB reads at QD3 ran at 110 of 175 MB/s on hdd-7200-sata-2014.
        for (name, _, prm) in presets() {
            let od = prm.rate_od_bytes_per_s as f64 / 1e6;
            for size in [128 * KIB, MIB, 4 * MIB] {
                for qd in [1, 3, 8] {
                    let mut dev = Hdd::new(prm.clone(), 5);
                    let n = (512 * MIB / size) as usize;
                    let mut cl = [client(qd, seq_reads(0, size))];
                    let r = run(&mut dev, &mut cl, n, u64::MAX, 5);
                    let mb_s = (n as u64 * size) as f64 / (r.end_ns as f64 * 1e-9) / 1e6;
                    let c = dev.counters();
                    eprintln!(
                        "{name}: seq {} KiB QD{qd}: {mb_s:.1} MB/s (OD {od}), {} media accesses",
                        size / KIB,
                        c.media_accesses
                    );
                    assert!(
                        (mb_s / od - 1.0).abs() < 0.10,
                        "{name} {} KiB QD{qd}: {mb_s:.1} MB/s vs {od}",
                        size / KIB
                    );
                    // One miss, then the whole stream rides the read-ahead.
                    assert!(c.media_accesses <= 2, "{name} {} KiB QD{qd}: {c:?}", size / KIB);
                }
            }
        }
    }

    #[test]
    fn two_streams_share_the_drive_in_runs() {
        // Two 1 MiB QD8 readers 10 GB apart: a pre-emptible drive serves each stream's queued
        // run as one access before seeking to the other (one seek per 8 MiB); an
        // unpreemptible one reads ahead until `age_limit_ms` (up to 4 s, §2.9), so the
        // run lasts well past that for neither stream to starve.
        for (name, _, prm) in presets() {
            let od = prm.rate_od_bytes_per_s as f64 / 1e6;
            let mut dev = Hdd::new(prm.clone(), 7);
            let mut cl = [client(8, seq_reads(0, MIB)), client(8, seq_reads(10_000_000_000, MIB))];
            let r = run(&mut dev, &mut cl, 2000, u64::MAX, 7);
            let (a, b) = (cl[0].lat_ns.len() as f64, cl[1].lat_ns.len() as f64);
            let mb_s = (a + b) * MIB as f64 / (r.end_ns as f64 * 1e-9) / 1e6;
            eprintln!("{name}: two 1 MiB QD8 streams {mb_s:.1} MB/s (OD {od}), reads {a}/{b}");
            assert!(mb_s > 0.8 * od, "{name}: {mb_s:.1} MB/s vs {od}");
            assert!(b / (a + b) > 0.25, "{name}: reads {a}/{b}");
        }
    }

    #[test]
    fn sequential_reads_without_readahead_lose_a_revolution_each() {
        for name in ["wd20efrx", "hdd-7200-sata-2014"] {
            let mut prm = p(name);
            prm.readahead_max_bytes = 0;
            let t_rev_s = 60.0 / prm.rpm as f64;
            let per_rev = 128.0 * KIB as f64 / t_rev_s / 1e6;
            let (r, _) = seq_rate(&prm, 1);
            eprintln!("{name}: seq 128 KiB QD1 without read-ahead: {r:.1} MB/s (one per revolution {per_rev:.1})");
            assert!(
                r > 0.8 * per_rev && r < 1.2 * per_rev,
                "{name} QD1: {r:.1} vs {per_rev:.1}"
            );
            // Deeper queues let SATF take the next-but-one command in the same revolution, so
            // they do better than one per revolution but stay far below the media rate.
            let od = prm.rate_od_bytes_per_s as f64 / 1e6;
            for qd in 2..=4 {
                let (r, _) = seq_rate(&prm, qd);
                eprintln!("{name}: seq 128 KiB QD{qd} without read-ahead: {r:.1} MB/s");
                assert!(r > 0.8 * per_rev && r < 0.6 * od, "{name} QD{qd}: {r:.1}");
            }
        }
    }

    #[test]
    fn random_read_never_faster_than_miss_overhead() {
        for (name, _, prm) in presets() {
            let mut dev = Hdd::new(prm.clone(), 3);
            let mut cl = [client(4, random_reads(prm.capacity_bytes, 4 * KIB))];
            run(&mut dev, &mut cl, 2000, u64::MAX, 3);
            let min = *cl[0].lat_ns.iter().min().unwrap();
            let c = dev.counters();
            assert_eq!(c.read_hits + c.readahead_attached, 0, "{name}: {c:?}");
            assert!(min as f64 >= prm.overhead_read_miss_ms * 1e6, "{name}: {min} ns");
        }
    }

    /// QD1 4 KiB random reads against a QD2 128 KiB sequential stream (§2.9 calibration).
    fn starvation(prm: &HddParams) -> (u64, f64, usize) {
        let mut dev = Hdd::new(prm.clone(), 9);
        let mut cl = [
            client(1, random_reads(prm.capacity_bytes, 4 * KIB)),
            client(2, seq_reads(0, 128 * KIB)),
        ];
        run(&mut dev, &mut cl, 100_000, 30_000_000_000, 9);
        let max = *cl[0].lat_ns.iter().max().unwrap();
        let mb_s = cl[1].lat_ns.len() as f64 * 0.131072 / 30.0;
        (max, mb_s, cl[0].lat_ns.len())
    }

    #[test]
    fn sequential_affinity_starves_qd1_random_reads() {
        let prm = p("wd20efrx");
        let (max, mb_s, n) = starvation(&prm);
        eprintln!(
            "wd20efrx affinity on: random max {:.0} ms over {n} reads, stream {mb_s:.0} MB/s",
            max as f64 / 1e6
        );
        assert!(max >= 300_000_000, "max {max}");
        assert!(max <= (prm.age_limit_ms * 1e6) as u64 + 100_000_000, "max {max}");
        let mut off = prm.clone();
        off.seq_strict = false;
        off.seq_cost_bias_ms = 0.0;
        off.readahead_unpreemptible = false;
        let (max, mb_s, n) = starvation(&off);
        eprintln!(
            "wd20efrx affinity off: random max {:.0} ms over {n} reads, stream {mb_s:.0} MB/s",
            max as f64 / 1e6
        );
        assert!(max < 150_000_000, "max {max}");
        assert!(n > 500, "random reads completed: {n}");
    }

    #[test]
    fn buffered_writes_are_fast_until_the_dirty_limit() {
        let prm = p("wd20efrx");
        let mut dev = Hdd::new(prm.clone(), 4);
        let mut cl = [client(1, random_writes(prm.capacity_bytes, 4 * KIB))];
        run(&mut dev, &mut cl, 600, u64::MAX, 4);
        let lim = prm.write_cache_max_dirty_extents as usize;
        let before = &cl[0].lat_ns[..lim - 1];
        assert!(before.iter().all(|&l| l < 500_000), "max {:?}", before.iter().max());
        // Past the limit, each write waits for a destage (an SATF pick among ~256 extents).
        let mut after = cl[0].lat_ns[lim + 10..].to_vec();
        after.sort_unstable();
        let median = after[after.len() / 2];
        eprintln!(
            "wd20efrx: buffered write max {:?} ns; past the limit median {median} ns",
            before.iter().max()
        );
        assert!(median > 1_000_000, "median {median}");
    }

    /// Submit `n` random 4 KiB writes back to back, then a flush; returns the flush latency.
    fn flush_after_writes(prm: &HddParams, n: u32) -> (u64, Hdd) {
        let mut dev = Hdd::new(prm.clone(), 8);
        let mut rng = Rng::from_u64(8);
        let mut t = 0;
        let mut done = Vec::new();
        for tag in 0..n {
            let off = rng.below(prm.capacity_bytes / 4096) * 4096;
            dev.submit(
                t,
                Cmd {
                    tag,
                    op: Op::Write,
                    offset_bytes: off,
                    size_bytes: 4096,
                },
            );
            t = dev.next_event_ns().unwrap();
            dev.advance(t, &mut done);
        }
        assert_eq!(done.len(), n as usize);
        assert!(t <= n as u64 * 1_000_000, "writes took {t} ns");
        let t0 = t;
        dev.submit(
            t0,
            Cmd {
                tag: 999,
                op: Op::Flush,
                offset_bytes: 0,
                size_bytes: 0,
            },
        );
        if prm.link_kind == LinkKind::Sata {
            assert!(!dev.can_accept(Op::Read) && !dev.can_accept(Op::Flush));
        }
        done.clear();
        while done.is_empty() {
            t = dev.next_event_ns().unwrap();
            dev.advance(t, &mut done);
        }
        assert_eq!(done, [999]);
        assert!(dev.can_accept(Op::Read));
        (t - t0, dev)
    }

    #[test]
    fn flush_pays_for_destaging_dirty_data() {
        for name in ["wd20efrx", "st14000nm0048"] {
            let prm = p(name);
            let (clean, _) = flush_after_writes(&prm, 0);
            assert_eq!(clean, (prm.overhead_flush_ms * 1e6).round() as u64, "{name}");
            let n = 64;
            let (dirty, dev) = flush_after_writes(&prm, n);
            eprintln!("{name}: flush after {n} random writes: {:.1} ms", dirty as f64 / 1e6);
            assert_eq!(dev.counters().destages, n as u64);
            // SATF over 64 extents: a few ms each, far from zero and from FCFS (≈15 ms each).
            assert!(
                dirty > n as u64 * 2_000_000 && dirty < n as u64 * 12_000_000,
                "{name}: {dirty}"
            );
        }
    }

    #[test]
    fn sas_flush_is_a_tagged_command() {
        let prm = p("st14000nm0048");
        let mut dev = Hdd::new(prm, 1);
        dev.submit(
            0,
            Cmd {
                tag: 1,
                op: Op::Write,
                offset_bytes: 1 << 30,
                size_bytes: 4096,
            },
        );
        dev.submit(
            0,
            Cmd {
                tag: 2,
                op: Op::Flush,
                offset_bytes: 0,
                size_bytes: 0,
            },
        );
        assert!(dev.can_accept(Op::Read));
        dev.submit(
            0,
            Cmd {
                tag: 3,
                op: Op::Read,
                offset_bytes: 5 << 40,
                size_bytes: 4096,
            },
        );
        let mut done = Vec::new();
        while done.len() < 3 {
            let t = dev.next_event_ns().unwrap();
            dev.advance(t, &mut done);
        }
        assert_eq!(done[0], 1);
    }

    /// A SAS SYNCHRONIZE CACHE does not drain the queue, and its destage competes with the
    /// queued reads like any tagged command (§2.7, §2.9): under 31 random readers and a
    /// write-then-flush loop, a SAS drive serves at least as many reads as the same drive
    /// on SATA, where every flush drains the queue. QA (2026-11-28): the destage went before
    /// every queued read, even one past the age limit, and the reads fell to a quarter of
    /// SATA's.
    #[test]
    fn sas_flush_destage_competes_with_queued_reads() {
        let sas = p("st14000nm0048");
        let sata = HddParams { link_kind: LinkKind::Sata, ..sas.clone() };
        let reads = |prm: &HddParams| {
            let mut dev = Hdd::new(prm.clone(), 7);
            let mut flush = false;
            let cap = prm.capacity_bytes;
            let wf: Gen = Box::new(move |r: &mut Rng| {
                flush = !flush;
                if flush { (Op::Write, r.below(cap / 4096) * 4096, 4096) } else { (Op::Flush, 0, 0) }
            });
            let mut cl = [client(31, random_reads(cap, 4 * KIB)), client(1, wf)];
            let r = run(&mut dev, &mut cl, 3000, u64::MAX, 7);
            let max = cl[0].lat_ns.iter().copied().max().unwrap();
            (3000.0 / (r.end_ns as f64 * 1e-9), max, cl[1].lat_ns.len())
        };
        let (s, smax, sflush) = reads(&sas);
        let (a, _, aflush) = reads(&sata);
        eprintln!("reads/s SAS {s:.0} (max {} ms, {sflush} writes+flushes), SATA {a:.0} ({aflush})", smax / 1_000_000);
        assert!(s >= a, "SAS {s} SATA {a}");
        assert!(smax <= sas.age_limit_ms as u64 * 1_000_000 + 200_000_000, "{smax}");
        assert!(sflush > 10, "{sflush}");
    }

    #[test]
    fn deterministic_per_seed_and_lazy_advance_agrees() {
        let prm = p("wd20efrx");
        let go = |seed: u64| {
            let mut dev = Hdd::new(prm.clone(), seed);
            let mut cl = [
                client(8, random_reads(prm.capacity_bytes, 4 * KIB)),
                client(1, random_writes(1 << 40, 8192)),
            ];
            run(&mut dev, &mut cl, 1500, u64::MAX, 1).log
        };
        assert_eq!(go(1), go(1));
        assert_ne!(go(1), go(2));
        // Calling advance late gives the same completion order: the arm starts each job when
        // the previous one ended, not when the host looks.
        let mut a = Hdd::new(prm.clone(), 3);
        let mut b = Hdd::new(prm.clone(), 3);
        let mut rng = Rng::from_u64(3);
        for tag in 0..32 {
            let c = Cmd {
                tag,
                op: Op::Read,
                offset_bytes: rng.below(1 << 40) & !4095,
                size_bytes: 4096,
            };
            a.submit(0, c);
            b.submit(0, c);
        }
        let (mut da, mut db) = (Vec::new(), Vec::new());
        while let Some(t) = a.next_event_ns() {
            a.advance(t, &mut da);
        }
        b.advance(u64::MAX / 4, &mut db);
        assert_eq!(da.len(), 32);
        assert_eq!(da, db);
        assert_eq!(b.next_event_ns(), None);
    }

    #[test]
    fn angle_is_continuous_in_time() {
        let dev = Hdd::new(p("hdd-7200-sata-2014"), 7);
        let rev = dev.revolution_ns();
        let a = dev.g.theta(1_000_000_000);
        let b = dev.g.theta(1_000_000_000 + (rev / 4.0).round() as u64);
        let d = (b - a).rem_euclid(1.0);
        assert!((d - 0.25).abs() < 1e-6, "{d}");
    }

    #[test]
    fn ideal_mechanism_reproduces_spec_satf_table() {
        // §2.8 Monte Carlo: pure SATF, no jitter or missed revolutions, T_ovh 0.15 ms.
        let table = [
            ("wd20efrx", [64.0, 76.0, 91.0, 108.0, 129.0, 156.0]),
            ("hdd-7200-sata-2014", [78.5, 94.0, 111.0, 131.0, 156.0, 189.0]),
        ];
        for (name, want) in table {
            let mut prm = p(name);
            prm.seek_jitter_percent = 0.0;
            prm.missed_rev_probability = 0.0;
            prm.age_weight_ms_per_ms = 0.0;
            prm.age_limit_ms = 60_000.0;
            for (i, qd) in [1, 2, 4, 8, 16, 32].into_iter().enumerate() {
                let v = iops(&prm, qd, 6000, 40 + qd as u64);
                eprintln!("{name} ideal QD{qd}: {v:.1} IOPS (§2.8: {})", want[i]);
                assert!((v / want[i] - 1.0).abs() < 0.05, "{name} QD{qd}: {v:.1} vs {}", want[i]);
            }
        }
    }

    #[test]
    fn aging_bounds_the_satf_tail() {
        // §2.8: pure SATF at QD32 has multi-second maxima; aging plus the hard limit cap them.
        let max_lat = |prm: &HddParams| {
            let mut dev = Hdd::new(prm.clone(), 6);
            let mut cl = [client(32, random_reads(prm.capacity_bytes, 4 * KIB))];
            run(&mut dev, &mut cl, 8000, u64::MAX, 6);
            *cl[0].lat_ns.iter().max().unwrap()
        };
        let aged = p("hdd-7200-sata-2014");
        let mut pure = aged.clone();
        pure.age_weight_ms_per_ms = 0.0;
        pure.age_limit_ms = 60_000.0;
        let (a, b) = (max_lat(&aged), max_lat(&pure));
        eprintln!(
            "QD32 max latency: aged {:.0} ms, pure SATF {:.0} ms",
            a as f64 / 1e6,
            b as f64 / 1e6
        );
        assert!(b > 1_500_000_000, "pure {b}");
        assert!(a < 1_100_000_000 && a < b / 2, "aged {a}");
    }

    #[test]
    fn short_stroke_qd1_matches_zvol_measurement() {
        // openzfs/zfs PR #11166: 16 KiB QD1 reads in a 100 GB ZVOL on an ST14000NM0048 gave
        // 166 IOPS idle [S]; §2.8 gives 160–175 for a 0.5–2 % stroke [C].
        let prm = p("st14000nm0048");
        let mut dev = Hdd::new(prm, 2);
        let span = 100_000_000_000u64;
        let mut cl = [client(1, random_reads(span, 16 * KIB))];
        let r = run(&mut dev, &mut cl, 3000, u64::MAX, 2);
        let v = 3000.0 / (r.end_ns as f64 * 1e-9);
        eprintln!("st14000nm0048 QD1 16 KiB in 100 GB: {v:.1} IOPS (measured 166)");
        assert!((v / 166.0 - 1.0).abs() < 0.12, "{v:.1}");
    }

    #[test]
    fn full_surface_pass_takes_capacity_over_mean_rate() {
        // §2.4/§7: a full sequential pass takes C / ((R_OD + R_ID) / 2).
        let prm = p("hdd-7200-sata-2014");
        let mut dev = Hdd::new(prm.clone(), 1);
        let n = (prm.capacity_bytes / MIB) as usize;
        let mut cl = [client(2, seq_reads(0, MIB))];
        let r = run(&mut dev, &mut cl, n, u64::MAX, 1);
        let want = prm.capacity_bytes as f64 / ((prm.rate_od_bytes_per_s + prm.rate_id_bytes_per_s) as f64 / 2.0);
        let got = r.end_ns as f64 * 1e-9;
        eprintln!("hdd-7200-sata-2014 full pass: {got:.0} s (C / mean rate {want:.0} s)");
        assert!((got / want - 1.0).abs() < 0.03, "{got} vs {want}");
    }

    #[test]
    fn sata_flush_drains_the_queue_and_blocks_new_commands() {
        let prm = p("hdd-7200-sata-2014");
        let mut dev = Hdd::new(prm.clone(), 1);
        let mut rng = Rng::from_u64(1);
        for tag in 0..8 {
            let off = rng.below(prm.capacity_bytes / 4096) * 4096;
            dev.submit(
                0,
                Cmd {
                    tag,
                    op: Op::Read,
                    offset_bytes: off,
                    size_bytes: 4096,
                },
            );
        }
        dev.submit(
            0,
            Cmd {
                tag: 8,
                op: Op::Write,
                offset_bytes: 1 << 30,
                size_bytes: 4096,
            },
        );
        dev.submit(
            0,
            Cmd {
                tag: 9,
                op: Op::Flush,
                offset_bytes: 0,
                size_bytes: 0,
            },
        );
        let mut done = Vec::new();
        while done.last() != Some(&9) {
            assert!(!dev.can_accept(Op::Read) && !dev.can_accept(Op::Write));
            let t = dev.next_event_ns().unwrap();
            dev.advance(t, &mut done);
        }
        // The flush is last: it waited for every outstanding read and destaged the write.
        assert_eq!(done.len(), 10);
        assert_eq!(dev.counters().destages, 1);
        assert!(dev.can_accept(Op::Read));
        assert_eq!(dev.outstanding(), 0);
    }

    #[test]
    fn writes_without_write_cache_wait_for_the_media() {
        let mut prm = p("wd20efrx");
        prm.write_cache_enabled = false;
        let mut dev = Hdd::new(prm.clone(), 2);
        let mut cl = [client(1, random_writes(prm.capacity_bytes, 4 * KIB))];
        let r = run(&mut dev, &mut cl, 1000, u64::MAX, 2);
        let min = *cl[0].lat_ns.iter().min().unwrap();
        let v = 1000.0 / (r.end_ns as f64 * 1e-9);
        eprintln!("wd20efrx WCE off: QD1 4 KiB random write {v:.1} IOPS, min {min} ns");
        assert!(min as f64 >= prm.overhead_write_miss_ms * 1e6);
        // The write seek curve (settle included) is slower than the read curve.
        let reads = iops(&prm, 1, 1000, 2);
        assert!(v < reads && v > 0.8 * reads, "writes {v:.1} reads {reads:.1}");
        assert_eq!(dev.counters().destages, 0);
    }

    /// `n` contiguous writes of `size` from offset 0, `qd` outstanding, then a FLUSH once
    /// they all completed. Returns (MB/s to the flush's completion — every byte on the
    /// media —, tags in completion order, counters).
    fn write_stream(prm: &HddParams, qd: u32, size: u64, n: u32) -> (f64, Vec<u32>, HddCounters) {
        let mut dev = Hdd::new(prm.clone(), 5);
        let (mut t, mut next, mut inflight) = (0u64, 0u32, 0u32);
        let (mut done, mut order) = (Vec::new(), Vec::new());
        let flush_tag = n;
        loop {
            while inflight < qd && next < n && dev.can_accept(Op::Write) {
                let c = Cmd { tag: next, op: Op::Write, offset_bytes: next as u64 * size, size_bytes: size };
                dev.submit(t, c);
                next += 1;
                inflight += 1;
            }
            if next == n && inflight == 0 {
                dev.submit(t, Cmd { tag: flush_tag, op: Op::Flush, offset_bytes: 0, size_bytes: 0 });
                inflight = 1;
                next += 1;
            }
            t = dev.next_event_ns().expect("writes outstanding");
            done.clear();
            dev.advance(t, &mut done);
            for &tag in &done {
                inflight -= 1;
                if tag == flush_tag {
                    let mb_s = (n as u64 * size) as f64 / (t as f64 * 1e-9) / 1e6;
                    return (mb_s, order, dev.counters());
                }
                order.push(tag);
            }
        }
    }

    #[test]
    fn sequential_writes_reach_the_zone_rate_at_queue_depth() {
        // QA finding 3: 300 contiguous 1 MiB writes from offset 0 on hdd-7200-sata-2014 ran
        // at 103/125 MB/s (QD2/QD10, write cache off) and 154–159 MB/s (write cache on)
        // against the 175 MB/s outer-zone rate that reads reach. Datasheet sustained rates
        // hold for writes too (§2.4); a drive writes queued contiguous commands back to back
        // and destages a contiguous dirty run in order (§2.7). Without a write cache, QD1
        // loses one revolution per command: the next command arrives only at completion.
        let mut diag = p("hdd-7200-sata-2014");
        diag.seek_jitter_percent = 0.0;
        diag.missed_rev_probability = 0.0;
        let mut cases: Vec<(String, HddParams)> = presets().into_iter().map(|(n, _, q)| (n.to_string(), q)).collect();
        cases.push(("hdd-7200-sata-2014 (no jitter, no missed revolutions)".into(), diag));
        let n = 300;
        for (name, prm) in cases {
            let od = prm.rate_od_bytes_per_s as f64 / 1e6;
            let t_rev_s = 60.0 / prm.rpm as f64;
            let one_rev_lost = MIB as f64 / (t_rev_s + MIB as f64 / (od * 1e6)) / 1e6;
            for wc in [false, true] {
                let q = HddParams { write_cache_enabled: wc, ..prm.clone() };
                for qd in [1, 2, 10] {
                    let (mb_s, order, c) = write_stream(&q, qd, MIB, n);
                    eprintln!("{name}: 1 MiB seq write, cache {wc}, QD{qd}: {mb_s:.1} MB/s (zone {od}) {c:?}");
                    if !wc && qd == 1 {
                        assert!((mb_s / one_rev_lost - 1.0).abs() < 0.05, "{name} QD1: {mb_s:.1} vs {one_rev_lost:.1}");
                        assert_eq!(c.write_continuations, 0, "{name}: a command sent at completion cannot continue");
                        continue;
                    }
                    // Every byte on the media; the cache's only loss is the idle arm until the
                    // high watermark first fills, a few percent of 300 MiB.
                    let lo = if wc { 0.93 } else { 0.97 };
                    assert!(mb_s > lo * od && mb_s < 1.01 * od, "{name} cache {wc} QD{qd}: {mb_s:.1} MB/s vs {od}");
                    if !wc {
                        // Written in LBA order, one media access each, all but the first
                        // continuing the one before.
                        assert!(order.windows(2).all(|w| w[0] < w[1]), "{name} QD{qd}: out of order");
                        assert_eq!((c.media_accesses, c.write_continuations), (n as u64, n as u64 - 1), "{name} QD{qd}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_write_stream_continues_only_when_its_command_overhead_has_passed() {
        // 4 KiB writes at QD2. A write that waited a revolution for its sector leaves the
        // next one, sent when the write before it completed, a revolution to be processed:
        // that one continues. The one after arrived only 23 µs of media ago, less than its
        // overhead, and waits a revolution in turn: two writes per revolution. 128 KiB
        // (0.75 ms of media) leaves every command time enough, and the stream runs at the
        // media rate.
        let prm = HddParams { write_cache_enabled: false, ..p("hdd-7200-sata-2014") };
        let t_rev_s = 60.0 / prm.rpm as f64;
        let (small, _, c) = write_stream(&prm, 2, 4 * KIB, 300);
        let two_per_rev = 2.0 * 4.0 * KIB as f64 / t_rev_s / 1e6;
        eprintln!("4 KiB QD2: {small:.3} MB/s (two per revolution {two_per_rev:.3}), {c:?}");
        assert!((149..=150).contains(&c.write_continuations), "{c:?}");
        assert!((small / two_per_rev - 1.0).abs() < 0.1, "4 KiB QD2: {small:.3} MB/s");
        let (big, _, c) = write_stream(&prm, 2, 128 * KIB, 1000);
        assert_eq!(c.write_continuations, 999, "{c:?}");
        assert!(big > 0.97 * prm.rate_od_bytes_per_s as f64 / 1e6, "128 KiB QD2: {big:.1} MB/s");
    }

    #[test]
    fn random_writes_are_untouched_by_write_streaming() {
        // Write streaming needs exact contiguity: random 4 KiB writes without a write cache
        // never continue one another, and run a little under random reads (the write seek
        // curve includes the settle, §2.1) at QD1 and QD32 alike.
        for name in ["wd20efrx", "hdd-7200-sata-2014", "hgst-7k2000"] {
            let prm = HddParams { write_cache_enabled: false, ..p(name) };
            for (qd, n) in [(1, 2000), (32, 5000)] {
                let mut dev = Hdd::new(prm.clone(), 12);
                let mut cl = [client(qd, random_writes(prm.capacity_bytes, 4 * KIB))];
                let r = run(&mut dev, &mut cl, n, u64::MAX, 12);
                let w = n as f64 / (r.end_ns as f64 * 1e-9);
                let rd = iops(&prm, qd, n, 12);
                eprintln!("{name} QD{qd}: random write {w:.1} IOPS, read {rd:.1}");
                assert_eq!(dev.counters().write_continuations, 0, "{name}");
                assert!(w > 0.85 * rd && w < 1.02 * rd, "{name} QD{qd}: writes {w:.1} reads {rd:.1}");
            }
        }
    }

    /// Run `clients` until `n` completions of client 0: (completed bytes per second, and the
    /// largest ratio of the bytes completed by an instant to what the link carries from
    /// t = 0 to that instant). The clients all start at 0, so a ratio above 1 is bytes the
    /// link could not have carried.
    fn link_use(dev: &mut Hdd, clients: &mut [Client], n: usize, rate: f64) -> (f64, f64) {
        let r = run(dev, clients, n, u64::MAX, 3);
        let (mut acc, mut worst) = (0u64, 0f64);
        for &(t, b) in &r.done_bytes {
            acc += b;
            worst = worst.max(acc as f64 / (rate * t as f64 * 1e-9));
        }
        (acc as f64 / (r.end_ns as f64 * 1e-9), worst)
    }

    #[test]
    fn the_link_caps_the_bytes_of_all_commands_together() {
        // QA finding 2: with link_rate_bytes_per_s 100 MiB/s a read stream ran at the media
        // rate (174 MB/s) and write-cache bursts at many times the link. The interface is
        // one shared server (§2.6, §0.5); every command's data crosses it.
        let base = p("hdd-7200-sata-2014");
        let link = 100e6;
        let slow = HddParams {
            link_rate_bytes_per_s: link as u64,
            write_cache_max_dirty_bytes: 120 * MB,
            write_cache_max_dirty_extents: 4096,
            ..base.clone()
        };
        let cached = |q: &HddParams| HddParams { write_cache_enabled: true, ..q.clone() };
        let uncached = HddParams { write_cache_enabled: false, ..slow.clone() };
        let cases: Vec<(&str, HddParams, Vec<Client>, f64)> = vec![
            // Read-ahead reads the media at 175 MB/s; the host gets the data at the link rate.
            ("1 MiB reads QD4", slow.clone(), vec![client(4, seq_reads(0, MIB))], 0.95),
            // A burst into a 120 MB cache: the data enters over the link.
            ("1 MiB cached writes QD32", cached(&slow), vec![client(32, seq_writes(0, MIB))], 0.95),
            // Written through to the media: the data still crosses the link first.
            // (A link slower than the media makes the drive wait for data, and the next write
            // then waits for its sector: some revolution is lost.)
            ("1 MiB uncached writes QD4", uncached, vec![client(4, seq_writes(0, MIB))], 0.85),
            // Everything at once: a stream, a cached writer and random reads share the link.
            (
                "mixed",
                cached(&slow),
                vec![
                    client(4, seq_reads(0, MIB)),
                    client(8, seq_writes(100_000_000_000, MIB)),
                    client(4, random_reads(base.capacity_bytes, 4 * KIB)),
                ],
                0.5,
            ),
        ];
        for (what, prm, mut cl, lo) in cases {
            let mut dev = Hdd::new(prm.clone(), 3);
            let (bps, worst) = link_use(&mut dev, &mut cl, 100, link);
            eprintln!("link 100 MB/s, {what}: {:.1} MB/s, worst prefix {worst:.4} of the link", bps / 1e6);
            assert!(worst <= 1.0001, "{what}: {worst} of the link by some instant");
            assert!(bps > lo * link, "{what}: {:.1} MB/s", bps / 1e6);
        }
        // The preset's own SATA 6G link binds only a burst into the cache: 100 MiB in 1 MiB
        // writes at QD32 take the link's time (it was 17 GB/s), a read stream still runs at
        // the media rate (`sequential_reads_stream_at_media_rate_at_any_depth_and_size`).
        let own = cached(&HddParams { link_rate_bytes_per_s: base.link_rate_bytes_per_s, ..slow });
        let rate = own.link_rate_bytes_per_s as f64;
        let mut dev = Hdd::new(own, 3);
        let (bps, worst) = link_use(&mut dev, &mut [client(32, seq_writes(0, MIB))], 100, rate);
        eprintln!("SATA 6G, 1 MiB cached writes QD32: {:.1} MB/s, worst prefix {worst:.4}", bps / 1e6);
        assert!(worst <= 1.0001 && bps > 0.95 * rate, "{:.1} MB/s, {worst}", bps / 1e6);
    }

    /// QD1 4 KiB random reads: (mean latency ns, max latency ns, recoveries).
    fn qd1_reads(p: &HddParams, n: usize, seed: u64) -> (f64, u64, u64) {
        let mut dev = Hdd::new(p.clone(), seed);
        let mut cl = [client(1, random_reads(p.capacity_bytes, 4 * KIB))];
        run(&mut dev, &mut cl, n, u64::MAX, seed);
        let lat = &cl[0].lat_ns;
        let mean = lat.iter().sum::<u64>() as f64 / lat.len() as f64;
        (mean, *lat.iter().max().unwrap(), dev.counters().read_recoveries)
    }

    #[test]
    fn read_recovery_adds_its_mean_revolutions_to_every_recovered_read() {
        let healthy = p("hdd-7200-sata-2014");
        let t_rev_ns = 60e9 / healthy.rpm as f64;
        let n = 4000;
        let (base, _, r0) = qd1_reads(&healthy, n, 7);
        assert_eq!(r0, 0, "a healthy preset never recovers");
        // Every read recovers, 10 revolutions on average: + ≈ 10 revolutions per read.
        let sick = HddParams { read_recovery_probability: 1.0, read_recovery_revolutions_mean: 10.0, ..healthy.clone() };
        let (mean, _, r1) = qd1_reads(&sick, n, 7);
        assert!(r1 >= n as u64, "every media read recovered: {r1}");
        let added = (mean - base) / t_rev_ns;
        assert!((9.0..11.0).contains(&added), "added {added:.2} revolutions per read, expected ≈ 10");
        // One read in ten recovers, one revolution each: + ≈ 0.1 revolution per read.
        let rare = HddParams { read_recovery_probability: 0.1, read_recovery_revolutions_mean: 1.0, ..healthy.clone() };
        let (mean, _, r2) = qd1_reads(&rare, n, 7);
        let share = r2 as f64 / n as f64;
        assert!((0.08..0.12).contains(&share), "recovered share {share}");
        let added = (mean - base) / t_rev_ns;
        assert!((0.05..0.15).contains(&added), "added {added:.3} revolutions per read, expected ≈ 0.1");
    }

    #[test]
    fn read_recovery_slows_a_stream_served_by_read_ahead() {
        let healthy = p("hdd-7200-sata-2014");
        let sick = HddParams { read_recovery_probability: 1.0, read_recovery_revolutions_mean: 2.0, ..healthy.clone() };
        let t_rev_ns = 60e9 / healthy.rpm as f64;
        let stream = |prm: &HddParams| {
            let mut dev = Hdd::new(prm.clone(), 9);
            let mut cl = [client(2, seq_reads(0, 128 * KIB))];
            let r = run(&mut dev, &mut cl, 2000, u64::MAX, 9);
            (r.end_ns as f64 / 2000.0, dev.counters())
        };
        let (base, c0) = stream(&healthy);
        let (slow, c1) = stream(&sick);
        assert!(c0.readahead_attached > 1000, "the healthy stream rides read-ahead: {c0:?}");
        // Every read recovers, 2 revolutions on average: ≈ 2 revolutions more per read.
        let added = (slow - base) / t_rev_ns;
        assert!(c1.read_recoveries > 1500, "{c1:?}");
        assert!((1.5..2.6).contains(&added), "added {added:.2} revolutions per streamed read, expected ≈ 2");
    }

    #[test]
    fn read_recovery_stops_at_the_time_limit_and_spares_writes() {
        let healthy = p("hdd-7200-sata-2014");
        // Mean 10 000 revolutions (≈ 83 s) against a 50 ms limit: every recovery is cut.
        let sick = HddParams {
            read_recovery_probability: 1.0,
            read_recovery_revolutions_mean: 10_000.0,
            recovery_time_limit_ms: 50.0,
            ..healthy.clone()
        };
        let (mean, max, _) = qd1_reads(&sick, 500, 3);
        let (base, base_max, _) = qd1_reads(&healthy, 500, 3);
        assert!(max <= base_max + 50_000_000 + 20_000_000, "max {max} ns exceeds the limit");
        assert!(mean > base + 45e6, "mean {mean} ns: the limit was not reached");
        // Writes never recover (write cache off so that they reach the media).
        let wp = HddParams { write_cache_enabled: false, ..sick.clone() };
        let mut dev = Hdd::new(wp.clone(), 5);
        let mut cl = [client(1, random_writes(wp.capacity_bytes, 4 * KIB))];
        run(&mut dev, &mut cl, 200, u64::MAX, 5);
        assert_eq!(dev.counters().read_recoveries, 0);
        assert!(cl[0].lat_ns.iter().all(|&l| l < 40_000_000), "a write paid for a read recovery");
    }

    #[test]
    fn read_recovery_fields_are_validated_and_default_when_absent() {
        let mut q = p("wd20efrx");
        q.read_recovery_probability = 1.5;
        assert!(q.validate().unwrap_err().starts_with("read_recovery_probability: 1.5 — out of range; allowed: 0..1"));
        q.read_recovery_probability = 0.5;
        q.read_recovery_revolutions_mean = 0.5;
        assert!(q.validate().unwrap_err().starts_with("read_recovery_revolutions_mean: 0.5 — out of range"));
        q.read_recovery_revolutions_mean = 2.0;
        q.recovery_time_limit_ms = 0.0;
        assert!(q.validate().unwrap_err().starts_with("recovery_time_limit_ms: 0 — out of range"));
        // A specification written before the fields existed still reads, as a healthy drive.
        let mut v = serde_json::to_value(p("wd20efrx")).unwrap();
        for k in ["read_recovery_probability", "read_recovery_revolutions_mean", "recovery_time_limit_ms"] {
            v.as_object_mut().unwrap().remove(k);
        }
        let back: HddParams = serde_json::from_value(v).unwrap();
        assert_eq!(back, p("wd20efrx"));
    }

    /// Writes through to the media (write cache off) at QD1: (mean latency ns, RMW count).
    fn qd1_writes(p: &HddParams, align: u64, n: usize, seed: u64) -> (f64, u64) {
        let wp = HddParams { write_cache_enabled: false, ..p.clone() };
        let mut dev = Hdd::new(wp.clone(), seed);
        let gen: Gen = Box::new(move |r: &mut Rng| (Op::Write, r.below(wp.capacity_bytes / align - 8) * align, 4 * KIB));
        let mut cl = [client(1, gen)];
        run(&mut dev, &mut cl, n, u64::MAX, seed);
        let lat = &cl[0].lat_ns;
        (lat.iter().sum::<u64>() as f64 / lat.len() as f64, dev.counters().rmw_writes)
    }

    #[test]
    fn misaligned_writes_on_a_512e_drive_cost_a_revolution() {
        let red = p("wd20efrx");
        assert_eq!(red.physical_sector_bytes, 4096);
        let t_rev_ns = 60e9 / red.rpm as f64;
        // ashift=12: every write covers whole physical sectors.
        let (aligned, rmw0) = qd1_writes(&red, 4096, 2000, 11);
        assert_eq!(rmw0, 0);
        // ashift=9: 4 KiB at 512-byte offsets, 7 in 8 of them straddle physical sectors.
        let (odd, rmw) = qd1_writes(&red, 512, 2000, 11);
        let share = rmw as f64 / 2000.0;
        assert!((0.83..0.92).contains(&share), "RMW share {share}");
        let added = (odd - aligned) / t_rev_ns;
        assert!((0.7..1.05).contains(&added), "added {added:.2} revolutions per write, expected ≈ 7/8");
        // A 512-native drive takes the same writes without it.
        let native = HddParams { physical_sector_bytes: 512, ..red.clone() };
        assert_eq!(qd1_writes(&native, 512, 500, 11).1, 0);
        // Validation.
        let bad = HddParams { physical_sector_bytes: 3000, ..red };
        assert!(bad.validate().unwrap_err().starts_with("physical_sector_bytes: 3000 — out of range"));
    }

    #[test]
    fn swarm_mixed_commands_keep_the_contract() {
        // Random presets, queue depths, op mixes and cache settings, derived from one seed per
        // case; every tag completes exactly once, never before it was submitted, and the
        // drive ends idle. Reproduce a failure with the printed case seed.
        let names: Vec<&str> = presets().iter().map(|(n, _, _)| *n).collect();
        for case in 0..64u64 {
            let mut r = Rng::from_u64(0x5EED ^ case);
            let name = names[r.below(names.len() as u64) as usize];
            let mut prm = p(name);
            prm.write_cache_enabled = r.chance(0.7);
            prm.readahead_unpreemptible = r.chance(0.5);
            prm.seq_strict = r.chance(0.5);
            prm.age_limit_ms = [50.0, 500.0, 3000.0][r.below(3) as usize];
            if r.chance(0.3) {
                prm.readahead_max_bytes = 0;
            }
            prm.validate().unwrap();
            let qd = 1 + r.below(prm.queue_depth as u64) as u32;
            let mut dev = Hdd::new(prm.clone(), case);
            let cap = prm.capacity_bytes;
            let mut submitted: Vec<u64> = Vec::new();
            let mut completed = vec![false; 0];
            let mut done = Vec::new();
            let mut t = 0u64;
            let mut seq = r.below(cap / 2);
            for _step in 0..4000 {
                // Submit a few commands when the drive takes them.
                for _ in 0..r.below(3) {
                    let op = match r.below(20) {
                        0 => Op::Flush,
                        1..=6 => Op::Write,
                        _ => Op::Read,
                    };
                    if !dev.can_accept(op) || dev.outstanding() >= qd {
                        break;
                    }
                    let size = 512 << r.below(12);
                    let off = if r.chance(0.5) {
                        seq += size;
                        seq - size
                    } else {
                        r.below(cap / 512) * 512
                    };
                    let tag = submitted.len() as u32;
                    submitted.push(t);
                    completed.push(false);
                    dev.submit(
                        t,
                        Cmd {
                            tag,
                            op,
                            offset_bytes: off,
                            size_bytes: size,
                        },
                    );
                }
                // Advance either to the next event or to a random later instant.
                let next = dev.next_event_ns();
                t = match next {
                    Some(n) if r.chance(0.7) => n.max(t),
                    _ => t + r.below(30_000_000),
                };
                done.clear();
                dev.advance(t, &mut done);
                for &tag in &done {
                    assert!(!completed[tag as usize], "case {case}: tag {tag} completed twice");
                    assert!(submitted[tag as usize] <= t, "case {case}: early completion");
                    completed[tag as usize] = true;
                }
            }
            while let Some(n) = dev.next_event_ns() {
                t = n;
                dev.advance(t, &mut done);
                for &tag in &done {
                    completed[tag as usize] = true;
                }
                done.clear();
            }
            assert!(completed.iter().all(|&c| c), "case {case} ({name}): lost commands");
            if case < 3 {
                eprintln!(
                    "swarm case {case} {name} qd {qd}: {} commands, {:?}",
                    submitted.len(),
                    dev.counters()
                );
            }
            assert_eq!(dev.outstanding(), 0, "case {case}");
            assert!(dev.can_accept(Op::Read), "case {case}");
        }
    }
}

"""`ziosim advise`: the setting that best meets a stated goal, what it is predicted to
change, and the commands that apply and revert it on each platform (design.md §6).

Theory of operation. A goal is one measure to minimise or maximise (``scan-time``, a
workload's ``p99`` …) and any number of limits on measures (``users.p99<=50ms``). The
candidates are a grid of tunable values — by default two knobs the scenario's release
has for the scan it runs (``DEFAULT_KNOBS``), each over a ladder around the value the
scenario runs with (``LADDERS``); ``--set`` gives the grid instead. Every candidate is a
sweep point (``ziosim.sweep``), so runs go in parallel, resume after an interruption and
leave the usual ``sweep.parquet``. The *baseline* is the point whose values are the
scenario's own (what the pool runs today); the recommendation is the feasible point
(every limit met, no more data at risk than the baseline, no unsafe setting unless
allowed) with the best goal value; ties go to the point that changes fewer settings,
then to grid order, so the answer is deterministic. A goal or limit that no point of the grid
can measure (``elapsed`` without a finite workload, ``commit-p99`` without a zil_commit) is
refused before anything runs (``check_measurable``). Axis values on tunables are read in the
tunable's unit as the scenario reads them (``setting_value``: ``64M`` is 67108864).

Workload measures are taken while the scan was issuing (the ``during the scan`` window
of ``ziosim run``) when the scenario runs a scan, else over the whole run. ``scan-time``
is the scan's duration when it finished, else the time so far plus the time to go that
the release's own ``zpool status`` printed when the run stopped (or, where it prints no
estimate, the time so far scaled by the fraction issued; where it prints whole minutes,
≤0.7, the same estimate unrounded), and the view marks it ``~``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import _native
from .errors import ScenarioError
from .fields import show, value_label
from .report.compare import fmt_duration, fmt_ops
from .report.nicenum import zfs_nicebytes, nicerate
from .report.summary import human_ns
from .units import parse_duration, parse_rate, parse_size

__all__ = [
    "MEASURES",
    "UNSAFE",
    "Goal",
    "Limit",
    "Advice",
    "parse_goal",
    "parse_limit",
    "with_workload",
    "scan_kinds",
    "check_measurable",
    "setting_value",
    "default_knobs",
    "ladder",
    "choose",
    "render",
    "to_json",
    "tradeoff_svg",
]

MiB = 1 << 20

#: Goal values within this fraction of the best count as equally good (fewest changes wins).
TOLERANCE = 0.02


@dataclass(frozen=True)
class Measure:
    name: str
    header: str
    scope: str  # "point" or "workload"
    better: str  # "min" or "max"
    kind: str  # how a limit's value is written: duration, rate, size, count
    doc: str


MEASURES: dict[str, Measure] = {m.name: m for m in (
    Measure("scan-time", "scan time", "point", "min", "duration",
            "how long the scrub or resilver takes (projected from its progress if the run stops first)"),
    Measure("scan-rate", "issued/s", "point", "max", "rate", "the scan's mean issue rate"),
    Measure("mean", "mean", "workload", "min", "duration", "mean latency"),
    Measure("p50", "p50", "workload", "min", "duration", "median latency"),
    Measure("p90", "p90", "workload", "min", "duration", "90th percentile latency"),
    Measure("p99", "p99", "workload", "min", "duration", "99th percentile latency"),
    Measure("p99.9", "p99.9", "workload", "min", "duration", "99.9th percentile latency"),
    Measure("max", "max", "workload", "min", "duration", "largest latency"),
    Measure("ops/s", "ops/s", "workload", "max", "count", "operations per second"),
    Measure("elapsed", "elapsed", "workload", "min", "duration", "time a finite workload (nfs-copy, trace) takes"),
    Measure("at-risk", "at risk", "point", "min", "size",
            "most acknowledged bytes not yet on stable storage (lost on a crash)"),
    Measure("commit-p99", "commit p99", "point", "min", "duration", "99th percentile zil_commit latency"),
)}

_LAT_KEY = {"mean": "mean", "p50": "p50", "p90": "p90", "p99": "p99", "p99.9": "p999", "max": "max"}

# Knobs whose non-default value trades safety for speed: never recommended unless
# --allow-unsafe; the view says why next to them.
UNSAFE: dict[str, str] = {
    "zil_disable": "acknowledged synchronous writes are lost on a crash",
    "zfs_nocacheflush": "safe only when every device has power-loss protection; else a crash can lose "
                        "synced transaction groups",
    "zil_nocacheflush": "safe only when every log device has power-loss protection",
    "zfs_no_scrub_io": "the scrub then reads nothing and verifies nothing",
    "zfs_no_write_throttle": "writers are never held back; memory for dirty data is unbounded",
}

# Ladders: values tried for a knob, around ZFS's defaults (the scenario's own value is
# always added). Units are the tunable's own (ticks, bytes, count, ms).
LADDERS: dict[str, tuple[int, ...]] = {
    "zfs_scrub_delay": (0, 1, 2, 4),
    "zfs_resilver_delay": (0, 1, 2),
    "zfs_scan_idle": (10, 50, 100),
    "zfs_top_maxinflight": (16, 32, 64, 128),
    "zfs_scan_vdev_limit": (1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB),
    "zfs_vdev_scrub_max_active": (1, 2, 3, 8),
    "zfs_vdev_nia_delay": (2, 5, 10),
    "zfs_vdev_nia_credit": (1, 5, 10),
    "zfs_scrub_min_time_ms": (1000, 3000, 5000),
    "zfs_scan_min_time_ms": (1000, 3000, 5000),
    "zfs_resilver_min_time_ms": (1500, 3000, 5000),
    "zfs_vdev_max_pending": (4, 10, 35),
    "zfs_rebuild_vdev_limit": (8 * MiB, 32 * MiB, 64 * MiB),
}

# Per scan kind, knobs in order of preference; the first two (--knobs) the release has are
# swept. Legacy scans (≤0.7) are throttled by the delay and bounded by top_maxinflight
# (§5.1); sorted scans (0.8+) by the per-leaf byte limit and the scrub class's queue depth
# (§5.2); from 2.1 the NIA throttle decides how much scan I/O waits behind a user's (§2.3).
DEFAULT_KNOBS: dict[str, tuple[str, ...]] = {
    "scrub": ("zfs_scrub_delay", "zfs_scan_vdev_limit", "zfs_top_maxinflight", "zfs_vdev_scrub_max_active",
              "zfs_vdev_nia_delay", "zfs_vdev_max_pending"),
    "resilver": ("zfs_resilver_delay", "zfs_scan_vdev_limit", "zfs_resilver_min_time_ms", "zfs_top_maxinflight",
                 "zfs_vdev_scrub_max_active", "zfs_vdev_nia_delay", "zfs_vdev_max_pending"),
    "rebuild": ("zfs_rebuild_vdev_limit", "zfs_vdev_rebuild_max_active"),
}


# ----------------------------------------------------------------------------- goals and limits


@dataclass(frozen=True)
class Goal:
    measure: Measure
    workload: str | None  # workload measures: which workload


@dataclass(frozen=True)
class Limit:
    measure: Measure
    workload: str | None
    op: str  # "<=" or ">="
    value: float
    text: str

    def met(self, v: float | None) -> bool:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return False
        return v <= self.value if self.op == "<=" else v >= self.value


_MEASURE_RE = re.compile(r"^(?:(?P<wl>[^.<>=\s][^<>=\s]*?)\.)?(?P<m>scan-time|scan-rate|commit-p99|at-risk|p99\.9|"
                         r"p50|p90|p99|mean|max|ops/s|elapsed)$")


def _split_measure(text: str, where: str) -> tuple[Measure, str | None]:
    t = text.strip()
    m = _MEASURE_RE.match(t)
    if not m:
        raise ScenarioError(
            f"{where}: {show(text)} — allowed: [WORKLOAD.]MEASURE with MEASURE one of {', '.join(MEASURES)}"
        )
    meas = MEASURES[m.group("m")]
    wl = m.group("wl")
    if wl is not None and meas.scope == "point":
        raise ScenarioError(f"{where}: {show(text)} — {meas.name} is a pool measure; allowed: no workload prefix")
    return meas, wl


def with_workload(m: Any, names: Sequence[str], where: str) -> Any:
    """A goal or limit on a workload measure with its workload named (default: the first)."""
    if m.measure.scope != "workload":
        return m
    wl = m.workload or (names[0] if names else None)
    if wl is None:
        raise ScenarioError(f"{where}: {m.measure.name} — the scenario has no workload; allowed: a pool measure "
                            "(scan-time, scan-rate, at-risk, commit-p99)")
    if wl not in names:
        raise ScenarioError(f"{where}: workload {wl!r} — allowed: one of {', '.join(names)}")
    return dataclasses.replace(m, workload=wl)


def parse_goal(text: str) -> Goal:
    """``scan-time`` or ``[WORKLOAD.]MEASURE``; the direction is the measure's own."""
    meas, wl = _split_measure(text, "--goal")
    return Goal(meas, wl)


def _limit_value(meas: Measure, raw: str, where: str) -> float:
    raw = raw.strip()
    if meas.kind == "duration":
        return float(parse_duration(raw, where))
    if meas.kind == "rate":
        return float(parse_rate(raw, where))
    if meas.kind == "size":
        return float(parse_size(int(raw) if raw.isdigit() else raw, where))
    try:
        v = float(raw)
    except ValueError:
        raise ScenarioError(f"{where}: {show(raw)} — allowed: a number") from None
    if not math.isfinite(v) or v < 0:
        raise ScenarioError(f"{where}: {show(raw)} — allowed: a finite number >= 0")
    return v


def parse_limit(text: str) -> Limit:
    """``[WORKLOAD.]MEASURE<=VALUE`` or ``>=``, e.g. ``users.p99<=50ms``, ``scan-time<=8h``."""
    where = f"--limit {text}"
    m = re.match(r"^\s*([^<>=]+?)\s*(<=|>=)\s*(.+?)\s*$", text)
    if not m:
        raise ScenarioError(f"--limit: {show(text)} — allowed: [WORKLOAD.]MEASURE<=VALUE or >=VALUE, "
                            "e.g. users.p99<=50ms")
    meas, wl = _split_measure(m.group(1), where)
    return Limit(meas, wl, m.group(2), _limit_value(meas, m.group(3), where), text.strip())


# ----------------------------------------------------------------------------- measurable at all?

#: Workload kinds that call zil_commit by themselves: the fsync after each write, NFS COMMIT
#: and the stable MKDIR/CREATE/SETATTR, the WAL's fdatasync and the checkpoint's fsync.
COMMITTING_KINDS = ("fsync-write", "nfs-copy", "database")
#: Kinds whose every write commits under sync=always (zfs_write, zvol_write: zil_commit).
WRITING_KINDS = ("random-write", "seq-write", "zvol")

_COMMITS_ALLOWED = ("a workload that calls zil_commit (fsync-write, nfs-copy, database, zvol with fua or flush_every, "
                    "a trace with sync writes or flushes, or random-write, seq-write, zvol or a trace with writes "
                    "under zfs.sync=always) and zfs.sync other than disabled")


def _trace_ops(w: Mapping[str, Any]) -> str:
    """A trace workload's record letters (R, W, S, F), or "" for any other workload."""
    return str(((w.get("trace") or {}).get("ops")) or "") if w.get("kind") == "trace" else ""


def _no_commits(config: Mapping[str, Any]) -> str | None:
    """Why a run of ``config`` never waits for a zil_commit (so has no commit-p99), or None.
    The rules are the core's: ``zil.rs`` ``commit`` returns at once without counting under
    sync=disabled or solaris-2009's zil_disable; ``sim.rs`` ``admit_write`` commits for an
    fsync-write, the WAL, a FUA or flushed zvol write, and any write under sync=always."""
    if config.get("sync") == "disabled":
        return "zfs.sync = disabled, so zil_commit returns at once"
    if config.get("release") == "solaris-2009" and (config.get("tunables") or {}).get("zil_disable"):
        return "zil_disable = 1, so zil_commit returns at once"
    always = config.get("sync") == "always"
    for w in config.get("workloads", []):
        kind = w.get("kind")
        if kind in COMMITTING_KINDS or (kind == "zvol" and (w.get("fua") or w.get("flush_every"))):
            return None
        # A trace's durable writes (S) and flushes (F) commit (trace.rs).
        ops = _trace_ops(w)
        if "S" in ops or "F" in ops:
            return None
        if always and (kind in WRITING_KINDS or "W" in ops):
            return None
    kinds = ", ".join(sorted({str(w.get("kind")) for w in config.get("workloads", [])})) or "none"
    return f"no workload calls zil_commit (workload kinds: {kinds}; zfs.sync = {config.get('sync', 'standard')})"


def _unmeasurable(meas: Measure, workload: str | None, config: Mapping[str, Any]) -> tuple[str, str] | None:
    """(why, what is allowed) when a run of ``config`` can never give ``meas``; None when it can."""
    if meas.name in ("scan-time", "scan-rate") and not scan_kinds(config):
        if scan_kinds(config, past_stop=True):
            from .report.summary import human_ns

            at = min(a.get("at_ns", 0) for a in config.get("actions", []) if a.get("at_ns", 0) >= config["stop_ns"])
            return (f"the runs stop at {human_ns(config['stop_ns'])}, before the actions that would start a scan "
                    f"(the first at {human_ns(at)})", "a --stop after them, or a workload measure such as p99")
        return ("the scenario starts no scrub, resilver or rebuild",
                "a scenario with a scrub, replace, attach or online action, or a workload measure such as p99")
    if meas.name == "elapsed":
        w = next((w for w in config.get("workloads", []) if w.get("name") == workload), None)
        finite = ((w or {}).get("kind") == "nfs-copy" and ((w or {}).get("files") or 0) > 0) or (
            (w or {}).get("kind") == "trace" and not ((w or {}).get("trace") or {}).get("repeat"))
        if w is not None and not finite:
            why = ("an nfs-copy with files = 0 copies until the run stops" if w.get("kind") == "nfs-copy"
                   else "a repeating trace never finishes" if w.get("kind") == "trace"
                   else f"a {w.get('kind')} workload never finishes by itself")
            return (f"workload {workload!r}: {why}",
                    "elapsed of an nfs-copy workload with files > 0 or of a trace played once (the kinds "
                    "that end by themselves), or another measure")
    if meas.name == "commit-p99":
        why = _no_commits(config)
        if why is not None:
            return why, _COMMITS_ALLOWED
    return None


def check_measurable(goal: Goal, limits: Sequence[Limit], configs: Sequence[Mapping[str, Any]]) -> None:
    """Refuse a goal or limit no setting tried can measure (``configs``: every point's run
    config), before anything runs: otherwise every point would come out "no elapsed" and the
    advice would blame the limits. A measure that some point can give is accepted."""
    asked = [("--goal", goal.measure, goal.workload, goal.measure.name)]
    asked += [(f"--limit {lim.text}", lim.measure, lim.workload, lim.measure.name) for lim in limits]
    for where, meas, workload, text in asked:
        why = [_unmeasurable(meas, workload, c) for c in configs]
        if configs and all(w is not None for w in why):
            reason, allowed = why[0]  # type: ignore[misc]
            every = f", in all {len(configs)} settings tried" if len(configs) > 1 else ""
            raise ScenarioError(f"{where}: {text} — {reason}{every}; allowed: {allowed}")


# ----------------------------------------------------------------------------- candidates


def tunable_decls() -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in _native.tunables()}


def scan_kinds(config: Mapping[str, Any], *, past_stop: bool = False) -> list[str]:
    """The scans a scenario's actions start: scrub, resilver (replace/attach/online), rebuild;
    and a ``fail`` when a retire agent puts a spare in — a hot spare is resilvered, a dRAID's
    distributed spare rebuilt (zed tries the hot spares first, ``admin.rs``). Actions at or
    after the run's stop (a ``--stop`` cut short) never happen and count only with
    ``past_stop``."""
    from .scenario import draid_spare_names, retire_agent_on

    pool = config.get("pool") or {}
    agent = retire_agent_on(pool, str(config.get("release")))
    hot = bool(pool.get("spares"))
    owners = {d["name"]: t for t, v in enumerate(pool.get("vdevs") or []) for d in v["disks"]}
    dspare_vdevs = set(draid_spare_names(pool).values()) if pool.get("vdevs") else set()
    kinds: list[str] = []
    stop = config.get("stop_ns")
    for a in config.get("actions", []):
        if not past_stop and stop is not None and a.get("at_ns", 0) >= stop:
            continue
        do = a.get("do")
        k = None
        if do == "scrub":
            k = "scrub"
        elif do in ("replace", "attach", "online"):
            k = "rebuild" if a.get("sequential") else "resilver"
        elif do == "fail" and agent:
            k = "resilver" if hot else "rebuild" if owners.get(a.get("disk")) in dspare_vdevs else None
        if k and k not in kinds:
            kinds.append(k)
    return kinds


def setting_value(fld: str, v: Any, decls: Mapping[str, Mapping[str, Any]] | None = None) -> Any:
    """An axis value as the run used it. A tunable's is read as the scenario reads it, in
    the tunable's unit (``--set …zfs_scan_vdev_limit=64M`` ran with 67108864); other fields
    stay as written. The sweep validated every value before it ran, so this cannot fail."""
    if not fld.startswith("zfs.tunables.") or (isinstance(v, int) and not isinstance(v, bool)):
        return v
    d = (decls if decls is not None else tunable_decls()).get(fld[len("zfs.tunables."):])
    if d is None:
        return v
    from .scenario import _Normaliser

    return _Normaliser.tunable_value(v, fld, d)


def run_tunables(config: Mapping[str, Any]) -> dict[str, int]:
    """Every tunable as the scenario's run starts with it: its own settings, the release's
    defaults and those derived from its RAM (``zfs_dirty_data_max`` is 10 % of ``zfs.ram``,
    not the 4 GiB cap; arc.c ``arc_init``) — computed by the core's own code."""
    return _native.tunables_at_load(config["release"], int(config["ram_bytes"]), dict(config.get("tunables") or {}))


def release_defaults(release: str, ram_bytes: int | None) -> dict[str, int]:
    """The defaults a machine with ``ram_bytes`` of RAM (None: ``zfs.ram``'s default) boots
    ``release`` with."""
    if ram_bytes is None:
        from .scenario import DEFAULTS

        ram_bytes = parse_size(DEFAULTS["ram"], "zfs.ram")
    return _native.tunables_at_load(release, int(ram_bytes), {})


def current_value(config: Mapping[str, Any], name: str) -> int | None:
    """What the scenario runs a tunable at: its own setting, else the release's default (for
    its RAM, where the default is derived from it). None if the release lacks it."""
    return run_tunables(config).get(name)


def ladder(name: str, current: int, decl: Mapping[str, Any]) -> list[int]:
    """Values tried for a knob: its ladder within the declared range, plus the current value."""
    lo, hi = int(decl["min"]), int(decl["max"])
    vals = {v for v in LADDERS.get(name, ()) if lo <= v <= hi}
    vals.add(current)
    return sorted(vals)


def default_knobs(config: Mapping[str, Any], count: int = 2) -> list[tuple[str, list[int]]]:
    """(tunable, values) for the scan the scenario runs: the first ``count`` preferred knobs
    its release has. Empty when the scenario runs no scan."""
    decls = tunable_decls()
    release = config["release"]
    out: list[tuple[str, list[int]]] = []
    for kind in scan_kinds(config):
        for name in DEFAULT_KNOBS[kind]:
            if len(out) >= count:
                return out
            d = decls.get(name)
            if d is None or d["defaults"].get(release) is None or any(n == name for n, _ in out):
                continue
            cur = current_value(config, name)
            assert cur is not None
            vals = ladder(name, cur, d)
            if len(vals) > 1:
                out.append((name, vals))
    return out


def set_options(knobs: Sequence[tuple[str, Sequence[int]]]) -> list[str]:
    """The ``--set`` strings (sweep axes) for knobs."""
    return [f"zfs.tunables.{n}=" + ",".join(str(v) for v in vals) for n, vals in knobs]


# ----------------------------------------------------------------------------- measuring


#: A goal value the run cannot give: a scan that issued nothing before the run stopped.
UNKNOWN = math.nan


def is_unknown(v: float | None) -> bool:
    return isinstance(v, float) and math.isnan(v)


def eta_in_minutes(release: str | None) -> bool:
    """Whether ``release``'s ``zpool status`` prints a scan's time to go in whole minutes,
    the seconds dropped (``%lluh%um``, and solaris-2009's ``XhYm``: every release before
    zfs-0.8, whose ``print_scan_status`` prints seconds)."""
    releases = _native.releases()
    return release in releases and releases.index(release) < releases.index("zfs-0.8")


def _projected_scan_ns(row: Mapping[str, Any]) -> tuple[float | None, bool]:
    """(scan time in ns, projected?) from a row's scan columns: the duration if the scan
    finished; else the time so far plus the time to go the release's `zpool status`
    printed at the end of the run; else (no estimate printed) the time so far scaled by
    the fraction issued. Where the release prints whole minutes (``eta_in_minutes``: 13 s
    to go prints ``0h0m``), the same straight line as its estimate — the bytes left at the
    rate examined so far — is taken unrounded: the time so far scaled by the fraction
    examined. A sequential rebuild counts before the scrub that follows it: it
    is what restores redundancy. ``UNKNOWN`` when there is nothing to project from: the
    scan had issued no data yet (a sorted scan still walking metadata) or the rebuild
    printed no time to go — not "never", only "not seen yet"."""
    if row.get("rebuild_duration_ns") is not None:
        dur = float(row["rebuild_duration_ns"])
        if row.get("rebuild_state") != "active":
            return dur, False
        eta = row.get("rebuild_eta_ns")
        return (dur + float(eta), True) if eta is not None else (UNKNOWN, False)
    dur = row.get("scan_duration_ns")
    if dur is None:
        return None, False
    if row.get("scan_state") == "finished":
        return float(dur), False
    if row.get("scan_eta_ns") is not None:
        total, seen = row.get("scan_to_examine_bytes") or 0, row.get("scan_examined_bytes") or 0
        if eta_in_minutes(row.get("release")) and total > 0 and seen > 0:
            return float(dur) * max(total, seen) / seen, True
        return float(dur) + float(row["scan_eta_ns"]), True
    total = row.get("scan_to_examine_bytes") or 0
    issued = row.get("scan_issued_bytes") or 0
    if total <= 0 or issued <= 0:
        return UNKNOWN, False
    return float(dur) * total / min(issued, total), True


def _unknown_why(rows: Sequence[Mapping[str, Any]]) -> str:
    """Why a scan's time could not be projected, in the legend's words."""
    if any(r.get("rebuild_state") == "active" for r in rows):
        return "the rebuild printed no time to go"
    if any(r.get("scan_engine") == "sorted" and (r.get("scan_examined_bytes") or 0) > 0 for r in rows):
        return "it was still walking the metadata, which a sorted scan does before it issues"
    return "it had only just started"


def _stop_hint(rows: Sequence[Mapping[str, Any]]) -> str:
    """A --stop long enough to see a scan issue: twice the time its metadata walk would
    end at the pace it examined (the whole run four times over where it examined nothing),
    rounded up to minutes or hours, as a scenario writes durations."""
    end = 0.0
    for r in rows:
        run = float(r.get("sim_time_ns") or 0)
        dur = float(r.get("scan_duration_ns") or 0)
        total, seen = r.get("scan_to_examine_bytes") or 0, r.get("scan_examined_bytes") or 0
        walk_end = run - dur + dur * total / seen if seen > 0 and total > 0 and dur > 0 else 2 * run
        end = max(end, 2 * walk_end)
    minutes = max(1, math.ceil(end / 60e9))
    return f"{minutes}m" if minutes < 120 else f"{math.ceil(minutes / 60)}h"


def measure_value(meas: Measure, rows: Sequence[Mapping[str, Any]], workload: str | None,
                  scan_window: bool) -> tuple[float | None, bool]:
    """(value, projected?) of a measure on one point's rows."""
    r0 = rows[0]
    if meas.name == "scan-time":
        return _projected_scan_ns(r0)
    if meas.name == "scan-rate":
        return r0.get("scan_issued_bytes_per_s"), False
    if meas.name == "at-risk":
        v = r0.get("at_risk_bytes_max")
        return (0.0 if v is None else float(v)), False
    if meas.name == "commit-p99":
        v = r0.get("zil_commit_latency_ns_p99")
        return (None if v is None else float(v)), False
    row = next((r for r in rows if r.get("workload") == workload), None)
    if row is None:
        return None, False
    if meas.name == "ops/s":
        col = "scan_window_ops_per_s" if scan_window else "ops_per_s"
    elif meas.name == "elapsed":
        col = "elapsed_ns"
    else:
        col = ("scan_window_latency_ns_" if scan_window else "latency_ns_") + _LAT_KEY[meas.name]
    v = row.get(col)
    return (None if v is None else float(v)), False


def fmt_measure(meas: Measure, v: float | None, release: str, projected: bool = False) -> str:
    if v is None:
        return "-"
    if is_unknown(v):
        return "unknown"
    if math.isinf(v):
        return "never"
    if meas.kind == "duration":
        text = fmt_duration(v) if meas.name in ("scan-time", "elapsed") and v >= 60e9 else human_ns(v)
    elif meas.kind == "rate":
        text = nicerate(v, release)
    elif meas.kind == "size":
        text = zfs_nicebytes(v) if v else "0"
    else:
        text = fmt_ops(v)
    return ("~" + text) if projected else text


# ----------------------------------------------------------------------------- choosing


@dataclass
class Candidate:
    index: int
    settings: dict[str, Any]  # axis field -> value
    labels: dict[str, str]
    goal: float | None
    goal_projected: bool
    limits: list[tuple[Limit, float | None]]
    at_risk: float
    unsafe: list[str]
    changed: int = 0
    feasible: bool = False
    why_not: str = ""
    extra_p99: float | None = None  # the first workload's p99, for the trade-off plot


@dataclass
class Advice:
    goal: Goal
    limits: list[Limit]
    release: str
    pool: str
    scan_window: bool
    axes: list[dict[str, Any]]
    candidates: list[Candidate]
    baseline: Candidate | None
    best: Candidate | None
    allow_unsafe: bool
    workloads: list[str] = field(default_factory=list)
    # The scenario's RAM (None: zfs.ram's default): the defaults derived from it are what
    # "revert" restores.
    ram_bytes: int | None = None
    scan_func: str | None = None
    stop_hint: str | None = None  # a longer --stop, when a goal value was unknown
    unknown_why: str = ""  # why it was unknown, for the legend
    # Per axis field, the value the scenario runs (None: left at its default). Without a
    # baseline point it is what `*` and the fewest-changes rule compare against.
    current: dict[str, Any] = field(default_factory=dict)
    # The scenario's data vdevs, (type, disks) each: whether `zpool add` takes a special
    # vdev without -f, and whether it could be removed again.
    vdevs: list[tuple[str, int]] = field(default_factory=list)

    @property
    def too_short(self) -> bool:
        """No candidate has a goal value to rank by: the runs stopped too early for it."""
        return bool(self.candidates) and all(is_unknown(c.goal) for c in self.candidates)


def _unsafe(settings: Mapping[str, Any], baseline: Mapping[str, Any] | None) -> list[str]:
    out = []
    for fld, v in settings.items():
        before = (baseline or {}).get(fld)
        name = fld.rsplit(".", 1)[-1]
        if fld.startswith("zfs.tunables.") and name in UNSAFE and v and v != before:
            out.append(f"{name}={value_label(v)}: {UNSAFE[name]}")
        if fld == "zfs.sync" and v == "disabled" and before != "disabled":
            out.append("sync=disabled: acknowledged synchronous writes are lost on a crash")
    return out


def _settings(axes: Sequence[Mapping[str, Any]], values: Sequence[Any]) -> dict[str, Any]:
    """A point's axis values by field, tunables in their unit (``setting_value``)."""
    return {a["field"]: setting_value(a["field"], v) for a, v in zip(axes, values)}


def choose(goal: Goal, limits: Sequence[Limit], manifest: Mapping[str, Any], rows: Sequence[Mapping[str, Any]],
           baseline_id: str | None, *, scan_window: bool, allow_unsafe: bool, pool: str,
           tolerance: float = TOLERANCE, ram_bytes: int | None = None, release: str | None = None,
           current: Mapping[str, Any] | None = None, vdevs: Sequence[tuple[str, int]] = ()) -> Advice:
    """Measure every point, mark what is feasible and pick the best (deterministically).

    ``baseline_id`` is the point that is the same run as the scenario as written
    (``baseline_point``), or None: then a setting counts as changed where it differs from
    ``current`` (the scenario's value per axis field, ``current_values``). ``release`` is
    the scenario's (default: the first run's)."""
    axes = manifest["axes"]
    by_point: dict[int, list[Mapping[str, Any]]] = {}
    for r in rows:
        by_point.setdefault(int(r["point"]), []).append(r)
    workloads = [r.get("workload") for r in by_point[min(by_point)] if r.get("workload")]
    release = release or rows[0].get("release") or ""
    base_point = next((p for p in manifest["points"] if p["id"] == baseline_id), None)
    current = dict(current or {})
    base_settings = _settings(axes, base_point["values"]) if base_point else current
    cands: list[Candidate] = []
    baseline: Candidate | None = None
    for p in manifest["points"]:
        prow = by_point[int(p["index"])]
        settings = _settings(axes, p["values"])
        labels = {a["field"]: lab for a, lab in zip(axes, p["labels"])}
        g, proj = measure_value(goal.measure, prow, goal.workload, scan_window)
        lims = [(lim, measure_value(lim.measure, prow, lim.workload, scan_window)[0]) for lim in limits]
        risk, _ = measure_value(MEASURES["at-risk"], prow, None, scan_window)
        c = Candidate(index=int(p["index"]), settings=settings, labels=labels, goal=g, goal_projected=proj,
                      limits=lims, at_risk=risk or 0.0, unsafe=_unsafe(settings, base_settings))
        if workloads:
            c.extra_p99 = measure_value(MEASURES["p99"], prow, workloads[0], scan_window)[0]
        c.changed = sum(1 for f, v in settings.items() if f not in base_settings or v != base_settings[f])
        if base_point is p:
            baseline = c
        cands.append(c)
    risk_cap = baseline.at_risk if baseline else 0.0
    risk_limited = any(lim.measure.name == "at-risk" for lim in limits)
    for c in cands:
        missed = [lim.text for lim, v in c.limits if not lim.met(v)]
        if c.goal is None:
            c.why_not = f"no {goal.measure.name}"
        elif is_unknown(c.goal):
            c.why_not = f"{goal.measure.name} unknown (run too short)"  # nothing to rank it by
        elif missed:
            c.why_not = "misses " + ", ".join(missed)
        elif c.unsafe and not allow_unsafe:
            # An at-risk limit does not admit these: it bounds the bytes at risk, while an
            # unsafe knob loses acknowledged writes by design (docs/advise.md, "The choice").
            c.why_not = "unsafe"
        elif not risk_limited and not allow_unsafe and c.at_risk > risk_cap:
            c.why_not = "more data at risk"
        else:
            c.feasible = True
    sign = 1.0 if goal.measure.better == "min" else -1.0
    feasible = [c for c in cands if c.feasible]
    best = None
    if feasible:
        # Goal values within `tolerance` of the best are as good: a simulated difference of
        # a percent is no reason to change one more setting. Among them, fewest changes.
        top = min(sign * c.goal for c in feasible)
        slack = tolerance * abs(top) if math.isfinite(top) else 0.0
        as_good = [c for c in feasible if sign * c.goal <= top + slack]
        best = min(as_good, key=lambda c: (c.changed, sign * c.goal, c.index))
    unknown = [r for c in cands if is_unknown(c.goal) for r in by_point[c.index]]
    return Advice(goal=goal, limits=list(limits), release=release, pool=pool, scan_window=scan_window,
                  axes=list(axes), candidates=cands, baseline=baseline, best=best, allow_unsafe=allow_unsafe,
                  workloads=workloads, ram_bytes=ram_bytes,
                  scan_func="rebuild" if rows[0].get("rebuild_state") else rows[0].get("scan_func"),
                  stop_hint=_stop_hint(unknown) if unknown else None, unknown_why=_unknown_why(unknown),
                  current=current, vdevs=list(vdevs))


# ----------------------------------------------------------------------------- commands


def _changes(a: Advice) -> tuple[list[tuple[str, int, int]], list[str]]:
    """(tunable changes for the platform commands: (name, value, release default); other
    lines: dataset properties, scenario changes, and what to restore where the scenario did
    not run a tunable at its default)."""
    assert a.best is not None
    defaults = release_defaults(a.release, a.ram_bytes)
    tun: list[tuple[str, int, int]] = []
    other: list[str] = []
    base = a.baseline.settings if a.baseline else a.current
    for fld, v in a.best.settings.items():
        before = base.get(fld)
        if v == before or (fld == "zfs.special_small_blocks" and not v and not before):
            # (special_small_blocks 0 is its default: left out, it is the same setting.)
            continue
        if fld.startswith("zfs.tunables."):
            name = fld[len("zfs.tunables."):]
            default = defaults.get(name)
            tun.append((name, v, int(default) if default is not None else v))
            if before is not None and default is not None and before != default:
                other.append(f"# the pool ran {name}={before} before (not the default {default}): "
                             f"to go back, restore {before} rather than the default")
        elif fld in ("zfs.sync", "zfs.logbias"):
            prop = fld.split(".")[1]
            # At its default the property was inherited (source default): `zfs inherit` puts
            # it back so, where `zfs set` would leave a local value behind.
            revert = (f"zfs inherit {prop} {a.pool}" if before in (None, _PROPERTY_DEFAULTS[prop])
                      else f"zfs set {prop}={before} {a.pool}")
            other.append(f"zfs set {prop}={v} {a.pool}        # revert: {revert}")
        elif fld == "pool.recordsize":
            other.append(f"zfs set recordsize={value_label(v)} {a.pool}        # applies to blocks written from now on")
        elif fld == "zfs.special_small_blocks":
            # A size as zfs set takes it (32K), whether the axis wrote "32K" or 32768.
            from .units import size_label

            def size(x: Any) -> str:
                return size_label(x) if isinstance(x, int) and not isinstance(x, bool) else value_label(x)
            revert = (f"zfs inherit special_small_blocks {a.pool}" if not before
                      else f"zfs set special_small_blocks={size(before)} {a.pool}")
            other.append(f"zfs set special_small_blocks={size(v)} {a.pool}        # revert: {revert}")
            other.append("# applies to blocks written from now on: existing files keep their place until "
                         "rewritten (the runs placed the pool's contents as if it had always been set)")
        elif fld == "pool.special" and v:
            other.extend(_special_lines(a, v))
        elif fld in ("pool.log", "pool.cache") and v:
            kind = fld.split(".")[1]
            other.append(f"# hardware: add a {kind} device like the one modelled ({value_label(v)}):")
            other.append(f"zpool add {a.pool} {kind} <device>" + ("   # two devices: zpool add ... log mirror <dev1> <dev2>"
                                                                  if kind == "log" else ""))
            if kind == "log" and a.release == "solaris-2009":
                # Pool version 19 (log device removal) came with snv_125, after this release.
                other.append("# revert: none on this release — a log device cannot be removed before pool "
                             "version 19 (snv_125)")
            else:
                other.append(f"# revert: zpool remove {a.pool} <device>" + ("   # a mirror: zpool remove "
                                                                          f"{a.pool} mirror-N" if kind == "log" else ""))
        else:
            was = f"{value_label(before)} -> " if before is not None else ""
            other.append(f"# not a setting: {fld} {was}{value_label(v)} is a change to the pool's hardware, "
                         "layout, contents or workload, not a tunable to apply")
    return tun, other


def _replication(vtype: str, disks: int) -> tuple[str, int, int]:
    """`get_replication`'s (type, parity, children) of a vdev (zpool_vdev.c@zfs-2.2.0): raidzN
    and draidN by family and parity, a mirror by its children, a lone disk as "disk"."""
    m = re.match(r"(raidz|draid)(\d)?$", vtype)
    if m:
        return m.group(1), int(m.group(2) or 1), disks
    return vtype, 0, disks


def _add_refusal(pool: Sequence[tuple[str, int]], new: tuple[str, int]) -> str | None:
    """Why `zpool add` (without -f) refuses a vdev of `new` beside the pool's data vdevs
    (`check_replication`, zpool_vdev.c@zfs-2.2.0; it counts special vdevs as it counts data
    ones, only logs are left out), and what would match; None when it takes it."""
    if not pool:
        return None
    cur, nw = _replication(*pool[0]), _replication(*new)
    raid = {"raidz", "draid"}
    if cur[0] in raid and nw[0] == "mirror" or nw[0] in raid and cur[0] == "mirror":
        r, m = (cur, nw) if cur[0] in raid else (nw, cur)
        if r[1] == m[2] - 1:
            return None
        return (f"{r[0]}{r[1]} and a {m[2]}-way mirror differ in redundancy; a {r[1] + 1}-way mirror matches "
                f"{r[0]}{r[1]}" if r is cur else f"a {m[2]}-way mirror pool and {r[0]}{r[1]} differ in redundancy")
    if cur[0] != nw[0]:
        return f"the pool uses {cur[0]} and the new vdev is {nw[0]}"
    if cur[1] != nw[1]:
        return f"the pool uses {cur[1]}-parity {cur[0]} and the new vdev {nw[1]}"
    if cur[2] != nw[2]:
        return f"the pool uses {cur[2]}-way {cur[0]} and the new vdev {nw[2]}-way"
    return None


def _special_lines(a: Advice, v: Any) -> list[str]:
    """`zpool add POOL special …` for a special class as the one modelled, what it changes,
    and whether it can be taken back: device removal (0.8+) refuses a pool with any top-level
    vdev with parity, and a special vdev whose ashift is not the data vdevs'
    (`spa_vdev_remove_top_check`, vdev_removal.c@zfs-2.2.0)."""
    vdevs = [sv for sv in (v if isinstance(v, list) else [v]) if isinstance(sv, Mapping)]
    lines = [f"# hardware: add a special class like the one modelled ({value_label(v)}):"]
    for sv in vdevs:
        kind = str(sv.get("type", "mirror"))
        kind = "raidz1" if kind == "raidz" else kind
        n = 1 if kind == "disk" else int(sv.get("disks", 2))
        devs = " ".join(f"<dev{i + 1}>" for i in range(n))
        why = _add_refusal(a.vdevs, (kind, n))
        force = "-f " if why else ""
        lines.append(f"zpool add {force}{a.pool} special {'' if kind == 'disk' else kind + ' '}{devs}")
        if why:
            lines.append(f"# -f: without it zpool add refuses (\"mismatched replication level\": {why})")
    lines.append("# only metadata (and small blocks) written from now on go there: the runs placed the pool's "
                 "existing contents as if the special vdevs had been there from the start")
    lines.append("# the pool cannot live without its special vdevs: give them the data vdevs' redundancy")
    types = [t for t, _ in a.vdevs] + [str(sv.get("type", "mirror")) for sv in vdevs]
    if any(t.startswith(("raidz", "draid")) for t in types):
        lines.append("# revert: none — zpool remove refuses a pool with a raidz or dRAID vdev "
                     "(device removal, OpenZFS 0.8+)")
    else:
        lines.append(f"# revert: zpool remove {a.pool} <the special vdev, e.g. mirror-N>   # device removal "
                     "(OpenZFS 0.8+) copies its blocks back to the data vdevs; it needs the special vdev's "
                     "ashift to be the data vdevs'")
    return lines


def commands(a: Advice) -> dict[str, list[str]]:
    """Per platform, the lines that apply and revert the recommendation."""
    from . import platforms

    tun, other = _changes(a)
    out: dict[str, list[str]] = {}
    for plat in platforms.platforms_for(a.release):
        lines = platforms.render(plat, a.release, tun, ram_bytes=a.ram_bytes) if tun or not other else []
        out[plat] = lines + other
    return out


# ----------------------------------------------------------------------------- the view


def _goal_header(a: Advice) -> str:
    m = a.goal.measure
    verb = "minimise" if m.better == "min" else "maximise"
    if m.name == "scan-time":
        return f"{verb} the {a.scan_func or 'scan'}'s duration"
    if m.name == "scan-rate":
        return f"{verb} the {a.scan_func or 'scan'}'s issue rate"
    what = {"elapsed": "time to finish", "ops/s": "operations per second", "mean": "mean latency",
            "max": "largest latency", "at-risk": "data at risk", "commit-p99": "zil_commit p99 latency"}
    phrase = what.get(m.name, f"{m.name} latency")
    who = f" of {a.goal.workload}" if a.goal.workload else ""
    win = " during the scan" if (a.scan_window and m.scope == "workload") else ""
    return f"{verb} the {phrase}{who}{win}"


def label_of(fld: str, value: Any, label: str) -> str:
    """How the view prints an axis value: sizes of byte tunables as ZFS prints them."""
    if fld.startswith("zfs.tunables.") and isinstance(value, int) and not isinstance(value, bool):
        d = tunable_decls().get(fld[len("zfs.tunables."):])
        if d is not None and d["unit"] == "bytes":
            return zfs_nicebytes(value)
    return label


def _settings_text(c: Candidate, axes: Sequence[Mapping[str, Any]], base: Candidate | None,
                   current: Mapping[str, Any] | None = None) -> str:
    """A point's settings, ``*`` on each that differs from the baseline point, or without
    one from the scenario's own value (``current``) where it is known."""
    now = base.settings if base is not None else (current or {})
    parts = []
    for ax in axes:
        f = ax["field"]
        name = ax["name"].rsplit(".", 1)[-1]
        mark = "*" if f in now and c.settings.get(f) != now[f] else ""
        parts.append(f"{name}={label_of(f, c.settings.get(f), c.labels[f])}{mark}")
    return " ".join(parts) or "(scenario)"


def _untried(a: Advice) -> str:
    """The axes whose scenario value no point ran (why there is no baseline), as
    ``field=value`` (``(default)`` where the scenario leaves the field out)."""
    out = []
    for ax in a.axes:
        f = ax["field"]
        if f in a.current and any(c.settings.get(f) == a.current[f] for c in a.candidates):
            continue
        out.append(f"{f}={value_label(a.current[f]) if f in a.current else '(default)'}")
    if not out:  # each value was tried, but never all together
        return "combination of " + ", ".join(f"{f}={value_label(v)}" for f, v in a.current.items()) + " was"
    return ", ".join(out) + (" was" if len(out) == 1 else " were")


def render(a: Advice, out_dir: str, show_all: bool = False) -> str:
    lines = [f"advise: {_goal_header(a)}"]
    for lim in a.limits:
        lines.append(f"  limit: {lim.text}" + (" (during the scan)" if a.scan_window and lim.measure.scope == "workload"
                                              else ""))
    names = ", ".join(ax["name"].rsplit(".", 1)[-1] for ax in a.axes) or "nothing"
    lines.append(f"  {len(a.candidates)} settings of {names} on {a.release}; runs in {out_dir}")
    if a.baseline is None:
        lines.append(f"  no baseline: the scenario's own {_untried(a)} not among the settings tried, "
                     "so there is no before -> after")
    lines.append("")
    # Table: baseline, best, then the rest by goal (all feasible ones, or every point with --all).
    cols = [("setting (* = changed)", lambda c: _settings_text(c, a.axes, a.baseline, a.current))]
    g = a.goal.measure
    cols.append((g.header + (f" ({a.goal.workload})" if a.goal.workload else ""),
                 lambda c: fmt_measure(g, c.goal, a.release, c.goal_projected)))
    for i, lim in enumerate(a.limits):
        cols.append((lim.measure.header + (f" ({lim.workload})" if lim.workload else ""),
                     lambda c, i=i: fmt_measure(a.limits[i].measure, c.limits[i][1], a.release)))
    if g.name != "at-risk" and not any(lim.measure.name == "at-risk" for lim in a.limits):
        # Shown once: the goal's or the limit's column already is this one.
        cols.append(("at risk", lambda c: fmt_measure(MEASURES["at-risk"], c.at_risk, a.release)))

    def note(c: Candidate) -> str:
        words = ["RECOMMENDED"] if c is a.best else []
        if c is a.baseline:
            words.append("baseline")
        if not c.feasible:
            words.append(c.why_not)
        return ", ".join(words)

    cols.append(("", note))
    sign = 1.0 if g.better == "min" else -1.0

    def order(c: Candidate) -> tuple:
        # An unknown goal value sorts last: it has no place in the ranking.
        v = c.goal if c.goal is not None and not is_unknown(c.goal) else math.inf * sign
        return (c is not a.baseline, c is not a.best, not c.feasible, sign * v, c.index)

    show_all = show_all or a.best is None  # nothing feasible: the whole grid is the answer
    shown = [c for c in sorted(a.candidates, key=order)
             if show_all or c.feasible or c is a.baseline or c is a.best]
    table = [[h for h, _ in cols]] + [[f(c) for _, f in cols] for c in shown]
    widths = [max(len(r[j]) for r in table) for j in range(len(cols))]
    for r in table:
        lines.append("  ".join(cell.ljust(w) if j == 0 or j == len(cols) - 1 else cell.rjust(w)
                               for j, (cell, w) in enumerate(zip(r, widths))).rstrip())
    hidden = len(a.candidates) - len(shown)
    if hidden:
        lines.append(f"({hidden} setting{'s' if hidden != 1 else ''} not shown: missing a limit, unsafe or putting "
                     "more data at risk; --all shows them)")
    if any(lim.measure.name == "at-risk" for lim in a.limits) and any(c.why_not == "unsafe" for c in a.candidates):
        lines.append("unsafe: a limit on at-risk admits more data at risk than the baseline, not an unsafe setting; "
                     "--allow-unsafe does")
    if any(c.goal_projected for c in a.candidates):
        to_go = ("the time to go at its rate so far (zpool status's estimate before it drops the seconds)"
                 if eta_in_minutes(a.release) else "what zpool status gave as time to go")
        lines.append(f"~ projected: the scan had not finished when the run stopped; time so far plus {to_go}")
    if a.stop_hint is not None:
        lines.append(f"unknown: the {a.scan_func or 'scan'} had issued no data when the run stopped "
                     f"({a.unknown_why}), so there is nothing to project its time from")
    lines.append("")
    if a.too_short:
        lines.append(f"no recommendation: the runs were too short for {g.name}; run longer, e.g. "
                     f"--stop {a.stop_hint}")
        return "\n".join(lines) + "\n"
    if a.best is None and all(c.goal is None for c in a.candidates):
        # The goal can be measured (check_measurable) but no run got that far.
        what = (f"{a.goal.workload} finished in no run" if g.name == "elapsed"
                else f"no run gave a {g.name} value")
        lines.append(f"no recommendation: {what}, so there is nothing to rank by; run longer (--stop)")
        return "\n".join(lines) + "\n"
    if a.best is None:
        lines.append("no setting tried meets every limit; widen the grid (--set) or relax a limit")
        return "\n".join(lines) + "\n"
    if a.baseline is not None and a.best is a.baseline:
        lines.append("recommended: keep the current settings (no setting tried does better within the limits)")
        return "\n".join(lines) + "\n"
    lines.append("recommended: " + _settings_text(a.best, a.axes, a.baseline, a.current))
    if a.baseline is not None:
        before = fmt_measure(g, a.baseline.goal, a.release, a.baseline.goal_projected)
        after = fmt_measure(g, a.best.goal, a.release, a.best.goal_projected)
        lines.append(f"  {g.header}: {before} -> {after}")
        for i, lim in enumerate(a.limits):
            lines.append(f"  {lim.measure.header}{f' ({lim.workload})' if lim.workload else ''}: "
                         f"{fmt_measure(lim.measure, a.baseline.limits[i][1], a.release)} -> "
                         f"{fmt_measure(lim.measure, a.best.limits[i][1], a.release)}  (limit {lim.text})")
    for u in a.best.unsafe:
        lines.append(f"  WARNING {u}")
    if a.best.at_risk:
        lines.append(f"  WARNING up to {zfs_nicebytes(a.best.at_risk)} of acknowledged writes are lost on a crash")
    for plat, cmds in commands(a).items():
        lines.append("")
        lines.append(f"{_PLATFORM_TITLE.get(plat, plat)}:")
        lines.extend("  " + c if c else "" for c in cmds)
    return "\n".join(lines) + "\n"


_PLATFORM_TITLE = {"linux": "Linux", "freebsd": "FreeBSD", "illumos": "illumos / Solaris"}


def to_json(a: Advice) -> dict[str, Any]:
    """The advice as a JSON document (``advice.json``, ``--json``)."""
    def cand(c: Candidate | None) -> dict[str, Any] | None:
        if c is None:
            return None
        return {
            "point": c.index, "settings": {k: v for k, v in c.settings.items()},
            "goal": None if c.goal is None or not math.isfinite(c.goal) else c.goal, "goal_projected": c.goal_projected,
            "limits": [{"limit": lim.text, "value": v, "met": lim.met(v)} for lim, v in c.limits],
            "at_risk_bytes_max": c.at_risk, "unsafe": c.unsafe, "feasible": c.feasible,
            "why_not": c.why_not or None, "changed": c.changed,
        }

    return {
        "schema_version": 1,
        "goal": {"measure": a.goal.measure.name, "workload": a.goal.workload, "better": a.goal.measure.better,
                 "during_scan": a.scan_window and a.goal.measure.scope == "workload"},
        "limits": [{"measure": lim.measure.name, "workload": lim.workload, "op": lim.op, "value": lim.value,
                    "text": lim.text} for lim in a.limits],
        "release": a.release,
        "allow_unsafe": a.allow_unsafe,
        "axes": [{"field": ax["field"], "values": [setting_value(ax["field"], v) for v in ax["values"]]}
                 for ax in a.axes],
        "baseline": cand(a.baseline),
        "recommended": cand(a.best),
        "candidates": [cand(c) for c in a.candidates],
        "commands": commands(a) if a.best is not None and a.best is not a.baseline else {},
    }


# Dataset properties a config leaves out when the scenario does not set them: ZFS's defaults.
_PROPERTY_DEFAULTS = {"sync": "standard", "logbias": "latency"}


def _normalised(config: Mapping[str, Any]) -> dict[str, Any]:
    """A run config with its properties at their default dropped and its tunables as the run
    starts with them (``run_tunables``): two configs that differ only in spelling out a
    default are the same run."""
    out = {k: v for k, v in config.items() if _PROPERTY_DEFAULTS.get(k, object()) != v}
    out["tunables"] = run_tunables(config)
    return out


def baseline_point(base_config: Mapping[str, Any], points: Sequence[Any]) -> str | None:
    """The id of the point that is the same run as the scenario as written, if any: equal
    configs once tunables are resolved as the run resolves them (an axis that sets
    ``zfs_top_maxinflight = 32`` on a release whose default is 32 changes nothing, nor one
    that sets ``zfs_dirty_data_max`` to 10 % of the scenario's RAM)."""
    want = _normalised(base_config)
    for p in points:
        if _normalised(p.scenario.config) == want:
            return p.id
    return None


def current_values(config: Mapping[str, Any], doc: Mapping[str, Any], fields: Sequence[str]) -> dict[str, Any]:
    """For each axis field, the value the scenario runs: a tunable as the run resolves it
    (``current_tunables``), another field as the scenario document writes it; a field the
    document leaves out (at its default) is left out."""
    from .fields import get_path

    out: dict[str, Any] = {f: v for f in fields if not f.startswith("zfs.tunables.")
                           and (v := get_path(doc, f)) is not None}
    out.update(current_tunables(config, fields))
    return out


def current_tunables(config: Mapping[str, Any], fields: Sequence[str]) -> dict[str, int]:
    """For each axis field on a tunable, the value the scenario runs it at."""
    now = run_tunables(config)
    return {f: now[f[len("zfs.tunables."):]] for f in fields
            if f.startswith("zfs.tunables.") and f[len("zfs.tunables."):] in now}


# ----------------------------------------------------------------------------- the trade-off plot


def _axis_ticks(meas: Measure, hi: float, release: str) -> list[tuple[float, str]]:
    from .report.svg import linear_ticks, time_ticks

    if meas.kind == "duration":
        return [(float(t), fmt_measure(meas, float(t), release)) for t in time_ticks(int(hi), target=6)]
    return [(t, fmt_measure(meas, t, release) if t else "0") for t in linear_ticks(hi, 5)]


def tradeoff_svg(a: Advice, identity: str) -> str | None:
    """The goal against the first limited measure (else the first workload's p99): one mark
    per setting tried, the settings no other beats on both drawn as a line (the trade-off
    curve users.md §4.5 asks for), the limit as a dashed line, baseline and recommendation
    labelled. None when there is no second measure or fewer than two finite points."""
    from .report.svg import SERIES_STYLES, Figure, esc

    if a.limits:
        other, wl, idx = a.limits[0].measure, a.limits[0].workload, 0
    elif a.workloads and a.goal.measure.scope == "point":
        other, wl, idx = MEASURES["p99"], a.workloads[0], None
    else:
        return None
    pts = []
    for c in a.candidates:
        y = c.limits[idx][1] if idx is not None else c.extra_p99
        if c.goal is None or y is None or not math.isfinite(c.goal) or not math.isfinite(y):
            continue
        pts.append((c.goal, y, c))
    if len(pts) < 2:
        return None
    g = a.goal.measure
    title = f"{g.header} vs {other.header}" + (f" ({wl})" if wl else "")
    fig = Figure("tradeoff", f"Trade-off: {title}, one mark per setting", identity, height=360, right=190)
    xhi = max(p[0] for p in pts) * 1.08
    yhi = max([p[1] for p in pts] + ([a.limits[0].value] if a.limits else [])) * 1.12
    fig.set_x(0, xhi)
    fig.set_y(0, yhi)
    fig.x_axis(_axis_ticks(g, xhi, a.release), g.header + (" (~ projected)" if any(c.goal_projected for *_, c in pts)
                                                            else ""))
    win = " during the scan" if a.scan_window and other.scope == "workload" else ""
    fig.y_axis(_axis_ticks(other, yhi, a.release), f"{other.header}{f' ({wl})' if wl else ''}{win}")
    # Pareto front: no other point is at least as good on both and better on one.
    sx = 1.0 if g.better == "min" else -1.0
    sy = 1.0 if other.better == "min" else -1.0
    front = [p for p in pts if not any(sx * q[0] <= sx * p[0] and sy * q[1] <= sy * p[1]
                                       and (q[0], q[1]) != (p[0], p[1]) for q in pts)]
    front.sort(key=lambda p: (p[0], p[1]))
    fig.line("best trade-offs", SERIES_STYLES[0], [(p[0], p[1]) for p in front])
    if a.limits:
        ly = fig.y(a.limits[0].value)
        fig.add(f'<line x1="{fig.x0:.1f}" y1="{ly:.1f}" x2="{fig.x1:.1f}" y2="{ly:.1f}" stroke="#D55E00" '
                f'stroke-dasharray="6 3"/>')
        fig.text(fig.x0 + 4, ly - 4, f"limit {a.limits[0].text}", size=10)
    for x, y, c in sorted(pts, key=lambda p: p[2].index):
        style = SERIES_STYLES[1] if c.feasible else SERIES_STYLES[2]
        tip = esc(f"{_settings_text(c, a.axes, a.baseline, a.current)}: "
                  f"{fmt_measure(g, x, a.release, c.goal_projected)}, "
                  f"{fmt_measure(other, y, a.release)}" + ("" if c.feasible else f" ({c.why_not})"))
        fig.add(f'<g class="setting">{fig.marker(style, fig.x(x), fig.y(y), r=4.0)}<title>{tip}</title></g>')
        label = "recommended" if c is a.best else ("today" if c is a.baseline else "")
        if label:
            fig.text(fig.x(x) + 7, fig.y(y) - 7, label, size=10, bold=c is a.best)
    fig.legend([(fig.line_swatch(SERIES_STYLES[0]), "best trade-offs"),
                (fig.marker(SERIES_STYLES[1], 8, 5, r=4.0), "meets the limits"),
                (fig.marker(SERIES_STYLES[2], 8, 5, r=4.0), "does not")])
    return fig.render()

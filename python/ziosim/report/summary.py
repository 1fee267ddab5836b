"""``summary.json`` and the fio-style text summary.

The JSON is the stable, machine-readable result of a run: ``schema_version`` first among
equals, units in every key name, keys sorted, floats rounded to ``FLOAT_DECIMALS`` so the
same scenario and seed give byte-identical files on any machine (the Rust core is
deterministic; Python's float repr of a rounded value is too).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from ..units import sim_seconds
from .nicenum import nicerate, zfs_nicebytes

__all__ = [
    "SCHEMA_VERSION", "build_summary", "summary_json", "summary_text", "canonical_json",
    "human_ns", "elapsed_ns", "sync_finished", "unflushed_volatile_caches", "WRITE_KINDS",
    "scan_summary_lines",
]

SCHEMA_VERSION = 1
FLOAT_DECIMALS = 3
STAT_KEYS = ("min", "mean", "max", "p50", "p90", "p99", "p999")
STAGES = ("total_wait_ns", "disk_wait_ns", "queue_wait_ns")
# Workload kinds that write: they dirty data, meet the write throttle and fill txg syncs.
# A trace workload's operations as its summary lists them (trace.rs TraceOp::KEYS).
TRACE_OPS = (("read", "reads"), ("write", "writes"), ("sync_write", "sync writes"), ("flush", "flushes"))
WRITE_KINDS = ("random-write", "seq-write", "fsync-write", "nfs-copy", "database", "zvol")


class Sig(float):
    """A float kept to 6 significant digits in the JSON rather than to fixed decimals (a
    probability of 1e-8 must not print as 0)."""


def _num(value):
    """Deterministic JSON number: ints stay ints, floats are rounded (NaN/inf -> None)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        if isinstance(value, Sig):
            return float(f"{value:.6g}")
        rounded = round(value, FLOAT_DECIMALS)
        return 0.0 if rounded == 0 else rounded
    return value


def _clean(obj):
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return _num(obj)


def canonical_json(obj) -> str:
    """Sorted keys, two-space indent, rounded floats, trailing newline."""
    return json.dumps(_clean(obj), sort_keys=True, indent=2, ensure_ascii=False,
                      allow_nan=False) + "\n"


def _stats(d: dict | None) -> dict:
    d = d or {}
    return {k: d.get(k, 0) for k in STAT_KEYS}


def finished_stats(d: dict | None) -> dict | None:
    """Latency statistics of what finished, or None when nothing did: the results document
    gives all zeros then, and a 0 ns p99 would read as a measurement. The core records every
    commit and flush latency as at least 1 ns, so a largest of 0 means none finished."""
    return _stats(d) if int((d or {}).get("max") or 0) > 0 else None


def elapsed_ns(w: Mapping[str, Any], cfg: Mapping[str, Any] | None) -> int | None:
    """How long a workload with an end of its own took: from its ``start`` to its end
    (nfs-copy with ``files``: the reply to its last file's COMMIT; a trace played once: its
    last record's completion). None for a workload that has no end of its own (every other
    kind, nfs-copy with ``files = 0``, a repeating trace) or had not ended when the run
    stopped. ``cfg`` is the workload's run config (for its start)."""
    if not w.get("finished") or w.get("finished_ns") is None:
        return None
    return max(int(w["finished_ns"]) - int((cfg or {}).get("start_ns") or 0), 0)


def _workload_configs(meta: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {c.get("name"): c for c in ((meta.get("config") or {}).get("workloads") or [])}


def _workloads(results: dict, meta: Mapping[str, Any]) -> dict:
    out = {}
    cfgs = _workload_configs(meta)
    for w in results.get("workloads", []):
        out[w["name"]] = {
            "kind": w.get("kind"),
            "ops": w.get("ops", 0),
            "bytes": w.get("bytes", 0),
            "ops_per_s": float(w.get("ops_per_s", 0.0)),
            "bytes_per_s": float(w.get("bytes_per_s", 0.0)),
            "arc_hits": w.get("arc_hits", 0),
            "l2arc_hits": w.get("l2arc_hits", 0),
            # Records a demand read found already prefetched (dmu_zfetch), read or in flight.
            "prefetch_hits": w.get("prefetch_hits", 0),
            # Of those in flight, the ones whose reads a demand read raised to SYNC_READ
            # (0.8+, arcstat_async_upgrade_sync).
            "prefetch_promoted": w.get("prefetch_promoted", 0),
            "read_errors": w.get("read_errors", 0),
            "rmw_reads": w.get("rmw_reads", 0),
            # ops counts the operations finished, each with a latency: none, no statistics.
            "latency_ns": _stats(w.get("latency_ns")) if w.get("ops") else None,
            "latency_log2": list(w.get("latency_log2", [])),
            "by_scan_phase": _by_scan_phase(w.get("by_scan_phase")),
            "elapsed_ns": elapsed_ns(w, cfgs.get(w["name"])),
        }
        if "l2arc_redirected" in w:
            # A cache device failed or went offline (an action named one): its L2ARC hits
            # read from the pool, and its in-flight reads read again there.
            out[w["name"]]["l2arc_redirected"] = w["l2arc_redirected"]
            out[w["name"]]["l2arc_read_errors"] = w.get("l2arc_read_errors", 0)
        if w.get("arc"):
            # random-read / seq-read with arc_size: the modelled ARC (a trace's is in `trace`).
            out[w["name"]]["arc"] = dict(w["arc"])
        src = w.get("source")
        if src:
            out[w["name"]]["source"] = {
                "device": src.get("device"),
                "reads": src.get("reads", 0),
                "data_reads": src.get("data_reads", 0),
                "bytes": src.get("bytes", 0),
                "latency_ns": _stats(src.get("latency_ns")),
            }
        tr = w.get("trace")
        if tr:
            out[w["name"]]["trace"] = {
                "records": tr.get("records", 0),
                "completed": tr.get("completed", 0),
                "laps": tr.get("laps", 0),
                "open_loop": bool(tr.get("open_loop")),
                "arc": dict(tr["arc"]) if tr.get("arc") else None,
                "by_op": {k: {"ops": v.get("ops", 0), "bytes": v.get("bytes", 0),
                              "latency_ns": _stats(v.get("latency_ns")) if v.get("ops") else None,
                              # Per scan window (before, during, after) when a scan ran.
                              "by_scan_phase": {ph: {"ops": p.get("ops", 0), "bytes": p.get("bytes", 0),
                                                     "latency_ns": _stats(p.get("latency_ns")) if p.get("ops") else None}
                                                for ph, p in v["by_scan_phase"].items()}
                              if v.get("by_scan_phase") else None}
                          for k, v in (tr.get("by_op") or {}).items()},
            }
        db = w.get("db")
        if db:
            ck = db.get("checkpoints", {})
            out[w["name"]]["db"] = {
                "reads": {"ops": db["reads"]["ops"], "latency_ns": _stats(db["reads"].get("latency_ns"))},
                "commits": {"ops": db["commits"]["ops"], "latency_ns": _stats(db["commits"].get("latency_ns"))},
                "checkpoints": ck.get("done", 0),
                "checkpoint_pages": ck.get("pages", 0),
                "checkpoint_ns": _stats(ck.get("duration_ns")),
            }
    return out


SCAN_PHASES = ("before", "during", "after")


def _by_scan_phase(phases: dict | None) -> dict | None:
    """The workload's operations split by when they ended: before the first scan, while a
    scan was issuing, after it. ``window_ns`` is the pool's time in that window (rates
    divide by it); ``None`` when no scan ran."""
    if not phases:
        return None
    out = {}
    for key in SCAN_PHASES:
        p = phases.get(key) or {}
        window_ns = int(p.get("window_ns", 0))
        secs = window_ns / 1e9
        out[key] = {
            "ops": p.get("ops", 0),
            "bytes": p.get("bytes", 0),
            "window_ns": window_ns,
            "ops_per_s": float(p.get("ops", 0)) / secs if secs > 0 else 0.0,
            "bytes_per_s": float(p.get("bytes", 0)) / secs if secs > 0 else 0.0,
            # null with no operation in the window, as the workload's own latency_ns
            "latency_ns": _stats(p.get("latency_ns")) if p.get("ops", 0) else None,
            "latency_log2": list(p.get("latency_log2", [])),
        }
    return out


def _class_summary(c: dict) -> dict:
    out = {"ops": c.get("ops", 0), "bytes": c.get("bytes", 0)}
    if "agg_ops" in c:
        out["agg_ops"] = c["agg_ops"]
    if "commands" in c:  # a leaf's: the device commands, as zpool iostat counts them
        out["commands"] = c["commands"]
    for stage in STAGES:
        out[stage] = _stats(c.get(stage))
    return out


def _leaves(results: dict) -> dict:
    sim_ns = int(results.get("sim_time_ns", 0)) or 1
    out = {}
    for leaf in results.get("leaves", []):
        classes = {name: _class_summary(c) for name, c in leaf.get("classes", {}).items()}
        # A distributed spare serves nothing itself: its ops and bytes are what it passed on
        # (its `zpool iostat -v` row); it has no classes or busy time of its own.
        via = leaf.get("passed_on")
        out[leaf["name"]] = {
            "vdev": leaf.get("vdev"),
            "device": leaf.get("device"),
            "rotational": leaf.get("rotational"),
            "size_bytes": leaf.get("size_bytes", 0),
            "ops": via["read_ops"] + via["write_ops"] if via else sum(c["ops"] for c in classes.values()),
            "bytes": via["read_bytes"] + via["write_bytes"] if via else sum(c["bytes"] for c in classes.values()),
            # `ops` counts zios; `zpool iostat` and series.parquet count device commands, an
            # aggregate of queued zios once (null for results without the per-class count).
            "commands": (sum(c["commands"] for c in classes.values())
                         if all("commands" in c for c in classes.values()) else None),
            "busy_ns": leaf.get("busy_ns", 0),
            "busy_fraction": float(leaf.get("busy_ns", 0)) / sim_ns,
            "classes": classes,
        }
    return out


def sync_finished(txg: Mapping[str, Any] | None) -> bool:
    """Did any txg sync finish by the end of the run?

    The results document counts the syncs *started* (``txg.syncs``: the last one may still
    be running at the stop) and gives the duration statistics of the finished ones
    without their count; with none finished they are all 0. Every finished sync wrote at
    least its uberblocks, which takes device time, so a longest sync of 0 ns means none
    finished (a pool with no writeable leaf could end one in 0 ns; it has nothing to time)."""
    return int(((txg or {}).get("sync_ns") or {}).get("max") or 0) > 0


def _txg(results: dict) -> dict:
    t = results.get("txg") or {}
    return {
        "syncs": t.get("syncs", 0),
        "sync_ns": _stats(t.get("sync_ns")) if sync_finished(t) else None,
        # zfs_dirty_data_max from 2013; before it the per-txg write limit at the end of the
        # run (the other is null).
        "dirty_max_bytes": t.get("dirty_max_bytes"),
        "write_limit_bytes": t.get("write_limit_bytes"),
        "delayed_writes": t.get("delayed_writes", 0),
        "blocked_writes": t.get("blocked_writes", 0),
        # spa_sync's own cache flushes (zil.leaf_flushes has only the ZIL's) and its wait on them.
        "leaf_flushes": t.get("leaf_flushes", 0),
        "flush_ns_sum": t.get("flush_ns_sum", 0),
        # What the syncs wrote: data records, and the indirect, dnode and objset blocks
        # above them (every copy).
        "data_bytes": t.get("data_bytes", 0),
        "metadata_blocks": t.get("metadata_blocks", 0),
        "metadata_bytes": t.get("metadata_bytes", 0),
        # Of those, the space maps' (metaslab_sync: the MOS blocks the allocations and
        # frees dirty).
        "space_map_blocks": t.get("space_map_blocks", 0),
        "space_map_bytes": t.get("space_map_bytes", 0),
    }


def at_risk(zil: Mapping[str, Any]) -> dict:
    """The data-at-risk figures of a results `zil` section, as summary.json and the sweep
    table name them."""
    risk = zil.get("at_risk") or {}
    return {
        "at_risk_bytes_max": risk.get("bytes_max", 0),
        "at_risk_bytes_mean": float(risk.get("bytes_mean", 0.0)),
        "at_risk_window_ns_max": risk.get("window_ns_max", 0),
    }


def _volatile(spec: Mapping[str, Any] | None) -> bool:
    """Does a device acknowledge writes from a cache it loses on power loss? An HDD with
    its write cache on; an SSD without power-loss protection (its buffer is DRAM)."""
    spec = spec or {}
    if spec.get("kind") == "hdd":
        return bool(spec.get("write_cache_enabled"))
    if spec.get("kind") == "ssd":
        return not spec.get("plp", False)
    return False  # simple: no cache


def _nocacheflush(config: Mapping[str, Any], name: str) -> bool:
    """Is tunable `name` set (its default is 0 in every release), in [zfs.tunables] or by
    a `set` action during the run?"""
    if (config.get("tunables") or {}).get(name):
        return True
    return any(a.get("do") == "set" and a.get("tunable") == name and a.get("value")
               for a in config.get("actions") or [])


def unflushed_volatile_caches(config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Writes acknowledged as stable that may be only in a drive's volatile cache: flushes
    are off (``zfs_nocacheflush``: every flush; ``zil_nocacheflush``: the ZIL's) and a disk
    they would have reached has a volatile write cache. Returns {"tunables": [names],
    "leaves": {device: [leaf names]}}, or None. The simulation itself is unchanged: this
    only says that the at-risk figures (acknowledged, not yet synced) understate the risk."""
    config = config or {}
    pool = config.get("pool") or {}
    devices = config.get("devices") or {}
    data = [d for v in pool.get("vdevs") or [] for d in v.get("disks") or []]
    data += [d for d in pool.get("spares") or []]
    data += [{"name": a.get("new"), "device": a["device"]}
             for a in config.get("actions") or [] if a.get("device")]
    log = [d for v in pool.get("log") or [] for d in v.get("disks") or []]
    special = [d for v in pool.get("special") or [] for d in v.get("disks") or []]
    tunables, leaves = [], []
    if _nocacheflush(config, "zfs_nocacheflush"):
        tunables.append("zfs_nocacheflush")
        leaves = data + special + log
    if _nocacheflush(config, "zil_nocacheflush"):
        tunables.append("zil_nocacheflush")
        # The ZIL writes to the SLOG; to the pool without one, and INDIRECT data to the
        # pool with logbias=throughput. Log blocks never go to the special class
        # (zio_alloc_zil: log, embedded log, then normal, module/zfs/zio.c@zfs-2.2.0), but an
        # INDIRECT write's data block does when it is small enough (special_small_blocks).
        pooled = data + (special if config.get("special_small_blocks_bytes") else [])
        zil = (log + (pooled if config.get("logbias") == "throughput" else [])) if log else pooled
        leaves += [d for d in zil if d not in leaves]
    hit: dict[str, list[str]] = {}
    for d in leaves:
        if _volatile(devices.get(d.get("device"))):
            hit.setdefault(d["device"], []).append(str(d.get("name")))
    return {"tunables": tunables, "leaves": hit} if hit else None


def _zil(results: dict) -> dict:
    z = results.get("zil") or {}
    return {
        "commits": z.get("commits", 0),
        "lwb_writes": z.get("lwb_writes", 0),
        "lwb_bytes": z.get("lwb_bytes", 0),
        "indirect_writes": z.get("indirect_writes", 0),
        "leaf_flushes": z.get("leaf_flushes", 0),
        "log_space_bytes_max": z.get("log_space_bytes_max", 0),
        "slog": bool(z.get("slog", False)),
        "lwb_pool_writes": z.get("lwb_pool_writes", 0),
        "disabled": bool(z.get("disabled", False)),
        "commit_latency_ns": finished_stats(z.get("commit_latency_ns")),
        "flush_latency_ns": finished_stats(z.get("flush_latency_ns")),
        **at_risk(z),
        **_log_devices(z),
    }


def _log_devices(z: Mapping[str, Any]) -> dict:
    """`zil.log_devices` (only when an action failed or offlined a log device): when the
    first one went, the lwb writes that failed, the commits that waited for a txg sync or
    were acknowledged unlogged, the lwbs sent to the main pool, commit latency before and
    after."""
    d = z.get("log_devices")
    if not d:
        return {}
    return {"log_devices": {
        "event_ns": d.get("event_ns"),
        "lwb_write_errors": d.get("lwb_write_errors", 0),
        "commits_txg_fallback": d.get("commits_txg_fallback", 0),
        "commits_unlogged": d.get("commits_unlogged", 0),
        "lwb_pool_writes": d.get("lwb_pool_writes", 0),
        "commit_latency_ns_before": finished_stats(d.get("commit_latency_ns_before")),
        "commit_latency_ns_after": finished_stats(d.get("commit_latency_ns_after")),
    }}


_SCAN_KEYS = (
    "func", "state", "engine", "start_ns", "end_ns", "duration_ns", "paused_ns", "txgs",
    "to_examine_bytes", "examined_bytes", "issued_bytes", "skipped_bytes", "processed_bytes", "errors",
    "leaf_read_bytes", "examined_bytes_per_s", "issued_bytes_per_s", "processed_bytes_per_s",
    "leaf_read_bytes_per_s", "sort_mem_peak_bytes", "sort_mem_hard_bytes", "issue_phases",
    "meta_reads", "prefetch_reads", "prefetch_hits", "walk_ns", "walk_examined_bytes_per_s",
    "after_walk_issued_bytes_per_s",
)
_REBUILD_KEYS = (
    "vdev", "state", "start_ns", "end_ns", "duration_ns", "estimate_bytes", "scanned_bytes",
    "issued_bytes", "rebuilt_bytes", "scanned_bytes_per_s", "rebuilt_bytes_per_s", "chunks", "errors",
    "metaslab_waits", "metaslab_wait_ns",
)


def _pick(obj: Mapping[str, Any], keys: tuple[str, ...]) -> dict:
    return {k: (round(obj[k], 3) if isinstance(obj.get(k), float) else obj.get(k)) for k in keys if k in obj}


def _scan_one(sc: Mapping[str, Any] | None) -> dict | None:
    """One scan (scrub/resilver): duration, mean rates, bytes examined/issued/repaired."""
    return _pick(sc, _SCAN_KEYS) if sc else None


def _scan(results: dict) -> dict | None:
    """The latest scan; ``leaf_read_bytes`` (every scrub-class byte the disks read in the
    run) is in the results' latest scan only."""
    return _scan_one(results.get("scan"))


def _scans(results: dict) -> list:
    """Every scan of the run, ended or running, in the order they started."""
    return [_scan_one(sc) for sc in results.get("scans") or []]


def _rebuilds(results: dict) -> list:
    """Every sequential rebuild (2.0+ ``zpool replace -s``/``attach -s``), in order."""
    return [_pick(rb, _REBUILD_KEYS) for rb in results.get("rebuilds") or []]


_RED_KEYS = ("vdev", "tolerance", "margin", "min_margin", "tolerance_at_worst", "short_ns", "exposed_ns", "lost_ns",
             "first_short_ns", "restored_ns", "exposed_read_bytes", "expected_read_errors",
             "p_read_error", "p_loss_by_failure")


def _redundancy(results: dict) -> list:
    """Top-level vdevs that ran short of their redundancy (``redundancy.rs``), in pool order:
    a vdev with none to lose (a lone disk) only once it lost blocks."""
    out = []
    for r in (results.get("pool") or {}).get("redundancy") or []:
        if r["short_ns"] > 0 or r["margin"] < r["tolerance"]:
            out.append({k: (Sig(r[k]) if isinstance(r.get(k), float) else r.get(k)) for k in _RED_KEYS})
    return out


def _non_redundant(results: dict) -> list[str]:
    """Data vdevs with no redundancy at the end of the run (a lone disk), in pool order."""
    return [r["vdev"] for r in (results.get("pool") or {}).get("redundancy") or [] if r["tolerance"] == 0]


def identity(meta: dict) -> dict:
    """What every output file carries: schema version, ziosim version, release, seed, scenario."""
    return {
        "schema_version": SCHEMA_VERSION,
        "ziosim_version": meta.get("version"),
        "release": meta.get("release"),
        "seed": meta.get("seed"),
        "scenario_hash": meta.get("scenario_hash"),
        "scenario_name": meta.get("name"),
    }


def build_summary(results: dict, meta: dict) -> dict:
    """The ``summary.json`` document (a plain dict; see :func:`summary_json`)."""
    pool = results.get("pool", {})
    return {
        **identity(meta),
        "digest": results.get("digest"),
        "end": results.get("end"),
        "sim_time_ns": results.get("sim_time_ns", 0),
        "events": results.get("events", 0),
        "leaf_ios": results.get("leaf_ios", 0),
        "peak_live_ios": results.get("peak_live_ios", 0),
        "pool": {
            "name": pool.get("name"),
            "alloc_bytes": pool.get("alloc_bytes", 0),
            "layout_alloc_bytes": pool.get("layout_alloc_bytes", pool.get("alloc_bytes", 0)),
            "size_bytes": pool.get("size_bytes", 0),
            "redundancy": _redundancy(results),
            "data_vdevs": len((results.get("pool") or {}).get("redundancy") or []),
            "non_redundant_vdevs": _non_redundant(results),
            "failmode": pool.get("failmode", "wait"),
            "suspended": pool.get("suspended"),
            "written": pool.get("written"),
        },
        "workloads": _workloads(results, meta),
        "classes": {name: _class_summary(c) for name, c in results.get("classes", {}).items()},
        "leaves": _leaves(results),
        "txg": _txg(results),
        "zil": {**_zil(results),
                "volatile_cache_unflushed": unflushed_volatile_caches(meta.get("config")) is not None},
        "scan": _scan(results),
        "scans": _scans(results),
        "rebuilds": _rebuilds(results),
        **({"l2arc": dict(results["l2arc"])} if results.get("l2arc") else {}),
    }


def summary_json(results: dict, meta: dict) -> str:
    """``summary.json`` text: deterministic bytes for the same results and meta."""
    return canonical_json(build_summary(results, meta))


# ----------------------------------------------------------------------------- text


def human_ns(ns: float) -> str:
    """A duration with its own unit and three significant digits: ``40.1us``, ``2.98ms``."""
    ns = float(ns)
    unit, div = next(((u, d) for u, d in (("s", 1e9), ("ms", 1e6), ("us", 1e3)) if ns >= d),
                     ("ns", 1.0))
    value = ns / div
    if value >= 100 or unit == "ns":
        return f"{value:.0f}{unit}"
    return f"{value:.{2 if value < 10 else 1}f}{unit}"


def _fmt(value: float) -> str:
    text = f"{value:.2f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _lat_line(label: str, stats: dict | None) -> str:
    if stats is None:
        return f"  {label}: none finished"  # not a row of 0 ns (summary.json: null)
    keys = [("min", "min"), ("mean", "mean"), ("p50", "p50"), ("p90", "p90"), ("p99", "p99"),
            ("p99.9", "p999"), ("max", "max")]
    cells = " ".join(f"{name}={human_ns(stats.get(k, 0))}" for name, k in keys)
    return f"  {label}: {cells}"


def span(ns: float) -> str:
    """A long duration as ``2h05m03s`` / ``1d 03h02m``; under a minute as :func:`human_ns`."""
    if ns < 60e9:
        return human_ns(ns)
    s = int(ns // 1e9)
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    if d:
        return f"{d}d {h:02d}h{m:02d}m"
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s"


def _chance(p: float) -> str:
    """A probability for people: ``1 in 3,400`` below 1 %, a percentage above."""
    if p <= 0:
        return "0"
    if p < 0.01:
        return f"1 in {1 / p:,.0f}" if p > 1e-9 else "< 1 in 1,000,000,000"
    return f"{p * 100:.1f} %"


def suspension_lines(summary: dict) -> list[str]:
    """What a suspended pool did to the run (empty when it never suspended): when and why,
    and what was left waiting — or the panic message (`zio_suspend`)."""
    pool = summary.get("pool") or {}
    sp = pool.get("suspended")
    if not sp:
        return []
    if sp["failmode"] == "panic":
        return [f"panic at {span(sp['at_ns'])}: Pool '{pool.get('name')}' has encountered an uncorrectable I/O "
                "failure and the failure mode property for this pool is set to panic."]
    why = ("a txg sync had blocks to write and no top-level vdev could take them" if sp["cause"] == "write"
           else f"a read of {sp['vdev']}, which has no copy left")
    waits = [f"{sp['blocked_writes']} write{'s' if sp['blocked_writes'] != 1 else ''}",
             f"{sp['blocked_reads']} read{'s' if sp['blocked_reads'] != 1 else ''}",
             f"{sp['stalled_log_blocks']} log block{'s' if sp['stalled_log_blocks'] != 1 else ''} no vdev could take"]
    return [f"pool: suspended at {span(sp['at_ns'])} (failmode={sp['failmode']}): {why}",
            f"  waiting at the end, until a 'zpool clear' that never comes: {', '.join(waits)}"]


def redundancy_lines(summary: dict) -> list[str]:
    """What running short of redundancy exposed, per top-level vdev (empty when none did)."""
    lines = []
    pool = summary["pool"]
    # Under failmode wait or panic a read with no copy left suspends the pool instead of
    # failing, so nothing reaches the error log `zpool status -v` shows.
    sp = pool.get("suspended")
    if sp and sp["failmode"] != "continue":
        stop = "the system panicked" if sp["failmode"] == "panic" else "the pool suspended"
        lost = f"its blocks could not be read: {stop} (see above)"
    else:
        lost = "blocks were lost (see zpool status)"
    for r in pool.get("redundancy") or []:
        if r["tolerance"] == 0:
            # A lone disk has nothing to run short of: only its lost blocks are news.
            lines.append(f"redundancy: {r['vdev']} has no redundancy; no copy left for {span(r['lost_ns'])} "
                         f"(from {span(r['first_short_ns'] or 0)}): {lost}")
            continue
        tol, least = r["tolerance"], max(r["min_margin"], 0)
        when = f"from {span(r['first_short_ns'])}" if r["first_short_ns"] is not None else "from the start"
        if r["margin"] == tol and r["restored_ns"] is not None:
            when += f", restored at {span(r['restored_ns'])}"
        else:
            when += f", still short at the end: {max(r['margin'], 0)} of {tol} left"
        worst = "no more disks" if least == 0 else f"{least} more disk{'s' if least > 1 else ''}"
        # Against the tolerance it had then: a detach may have narrowed the vdev since.
        lines.append(f"redundancy: {r['vdev']} ran short for {span(r['short_ns'])} ({when}); "
                     f"at worst it could lose {worst}, not {r['tolerance_at_worst']}")
        if r["lost_ns"]:
            lines.append(f"  no copy left for {span(r['lost_ns'])}: {lost}")
        elif r["exposed_ns"]:
            lines.append(f"  no margin for {span(r['exposed_ns'])}: one more failed disk loses data")
        risk = []
        if r["p_loss_by_failure"] is not None and not r["lost_ns"]:
            risk.append(f"data loss from further disk failures {_chance(r['p_loss_by_failure'])} "
                        "(datasheet AFR, constant rate)")
        if r["exposed_ns"] and not r["lost_ns"]:
            read = zfs_nicebytes(r["exposed_read_bytes"])
            if r["expected_read_errors"] is not None:
                risk.append(f"{read} read with no margin: a block lost to a non-recoverable read error "
                            f"{_chance(r['p_read_error'])} (datasheet rate)")
            else:
                risk.append(f"{read} read with no margin (no datasheet read error rate for a disk)")
        if risk:
            lines.append("  risk: " + "; ".join(risk))
    # Said once, where redundancy is the topic: some vdev ran short, or the pool mixes
    # redundant and lone-disk vdevs (zpool warns "mismatched replication level" at create).
    # A pool of plain disks, as a benchmark uses, is left alone.
    lone = [v for v in pool.get("non_redundant_vdevs") or []
            if not any(r["vdev"] == v for r in pool.get("redundancy") or [])]
    mixed = 0 < len(pool.get("non_redundant_vdevs") or []) < (pool.get("data_vdevs") or 0)
    if lone and (lines or mixed):
        lines.append(f"redundancy: none on {', '.join(lone)} (a single-disk vdev"
                     f"{'s' if len(lone) > 1 else ''}): one failed disk or unreadable block there loses data")
    return lines


_SCAN_END = {"finished": "finished in", "complete": "finished in", "canceled": "canceled after",
             "scanning": "still running after", "active": "still running after"}


def scan_summary_lines(summary: dict, release: str = "zfs-2.2") -> list[str]:
    """One line per scan and sequential rebuild of the run, in the order they started: what
    it was, how it ended, how long it took, and the bytes it moved — the comparison
    ``zpool status`` spreads over many snapshots (empty when none ran)."""
    runs = [(sc.get("start_ns") or 0, "scan", sc) for sc in summary.get("scans") or []]
    runs += [(rb.get("start_ns") or 0, "rebuild", rb) for rb in summary.get("rebuilds") or []]
    lines = []

    def at(rate: float | None) -> str:
        # A rate over no time at all is null (summary.json), not a number to print.
        return "" if rate is None else f" at {nicerate(rate, release)}"

    for start_ns, kind, r in sorted(runs, key=lambda x: x[0]):
        ended = _SCAN_END.get(r.get("state"), r.get("state"))
        paused = f", {span(r['paused_ns'])} of it paused" if r.get("paused_ns") else ""
        when = f"{ended} {span(r.get('duration_ns') or 0)} (from {span(start_ns)}{paused})"
        if kind == "rebuild":
            what = (f"rebuild {r.get('vdev')}",
                    f"{zfs_nicebytes(r.get('rebuilt_bytes', 0))} rebuilt{at(r.get('rebuilt_bytes_per_s'))}, "
                    f"{r.get('errors', 0)} errors")
        elif r.get("engine") == "sorted":
            # A sorted scan (0.8+) walks ("scanned") the metadata early and reads and verifies
            # ("issued") after, as zpool status's two figures say: both, the rate the issue's —
            # running, paused, canceled or finished alike (the walk's rate is no disk's).
            done = "repaired" if r.get("func") == "scrub" else "resilvered"
            what = (str(r.get("func")), f"{zfs_nicebytes(r.get('examined_bytes', 0))} scanned, "
                                        f"{zfs_nicebytes(r.get('issued_bytes', 0))} issued"
                                        f"{at(r.get('issued_bytes_per_s'))}, "
                                        f"{zfs_nicebytes(r.get('processed_bytes', 0))} {done}")
        elif r.get("func") == "scrub":
            what = ("scrub", f"{zfs_nicebytes(r.get('examined_bytes', 0))} examined"
                             f"{at(r.get('examined_bytes_per_s'))}, "
                             f"{zfs_nicebytes(r.get('processed_bytes', 0))} repaired")
        else:
            what = (str(r.get("func")), f"{zfs_nicebytes(r.get('examined_bytes', 0))} examined, "
                                        f"{zfs_nicebytes(r.get('processed_bytes', 0))} resilvered"
                                        f"{at(r.get('processed_bytes_per_s'))}")
        if kind != "rebuild" and r.get("errors"):
            # Blocks the scan could not read or reconstruct ("with N errors").
            what = (what[0], f"{what[1]}, {r['errors']} errors")
        lines.append(f"scan: {what[0]} {when}: {what[1]}")
    return lines


def _elapsed_cell(w: Mapping[str, Any], raw: Mapping[str, Any], cfg: Mapping[str, Any], sim_ns: int) -> str:
    """``, elapsed=11.1s`` for a workload that ended by itself; ``, elapsed>60.0s (312 of
    400 files)`` for an nfs-copy of `files` files still copying at the stop; else nothing."""
    if w.get("elapsed_ns") is not None:
        return f", elapsed={span(w['elapsed_ns'])}"
    files = int(cfg.get("files") or 0)
    tr = raw.get("trace") or {}
    if w.get("kind") == "trace" and raw.get("finished") is False:
        so_far = max(int(sim_ns) - int(cfg.get("start_ns") or 0), 0)
        return f", elapsed>{span(so_far)} ({tr.get('completed', 0)} of {tr.get('records', 0)} records)"
    if w.get("kind") == "nfs-copy" and files and raw.get("finished") is False:
        so_far = max(int(sim_ns) - int(cfg.get("start_ns") or 0), 0)
        done = raw.get("files_done")
        return f", elapsed>{span(so_far)}" + (f" ({done} of {files} files)" if done is not None else "")
    return ""


def _cache_warning(caches: Mapping[str, Any]) -> str:
    """The one line under ``at risk`` when flushes are off and a disk caches writes."""
    disks = "; ".join(f"{dev}: {', '.join(names) if len(names) <= 3 else f'{len(names)} disks'}"
                      for dev, names in caches["leaves"].items())
    return (f"  warning: {' and '.join(f'{n}=1' for n in caches['tunables'])} with volatile write caches "
            f"({disks}): acknowledged writes may be only in a drive's cache, which the at-risk figures do not count")


def summary_text(results: dict, meta: dict, summary: dict | None = None) -> str:
    """fio-style summary: per workload throughput and latency, per class waits."""
    release = meta.get("release") or "zfs-2.2"
    if summary is None:
        summary = build_summary(results, meta)
    lines = []
    lines.append(f"summary: {sim_seconds(summary['sim_time_ns'])} simulated, {summary['events']} events, "
                 f"{summary['leaf_ios']} leaf I/Os")
    cfgs = _workload_configs(meta)
    raw = {w["name"]: w for w in results.get("workloads", [])}
    for name, w in summary["workloads"].items():
        lines.append(
            f"{name}: ({w['kind']}) ops={w['ops']}, {_fmt(w['ops_per_s'])} ops/s, "
            f"bytes={zfs_nicebytes(w['bytes'])}, {nicerate(w['bytes_per_s'], release)}, "
            f"arc_hits={w['arc_hits']}, l2arc_hits={w['l2arc_hits']}"
            + (f", read_errors={w['read_errors']}" if w["read_errors"] else "")
            + (f", rmw_reads={w['rmw_reads']}" if w["rmw_reads"] else "")
            + (f", l2arc_redirected={w['l2arc_redirected']}, l2arc_read_errors={w['l2arc_read_errors']}"
               if "l2arc_redirected" in w else "")
            + _elapsed_cell(w, raw.get(name) or {}, cfgs.get(name) or {}, summary["sim_time_ns"]))
        lines.append(_lat_line("lat", w["latency_ns"]))
        for phase, p in (w.get("by_scan_phase") or {}).items():
            if p["ops"]:
                lines.append(_lat_line(f"lat {phase} scan ({p['ops']} ops, {_fmt(p['ops_per_s'])} ops/s)",
                                       p["latency_ns"]))
        if "source" in w:
            src = w["source"]
            lines.append(_lat_line(f"source reads ({src['reads']} on {src['device']}, "
                                   f"{src['data_reads']} file data, {zfs_nicebytes(src['bytes'])})",
                                   src["latency_ns"]))
        arc = w.get("arc") or (w.get("trace") or {}).get("arc")
        if arc:
            # As arc_summary splits them: hits by list, misses that were ghost hits.
            lines.append(f"  arc ({arc['records']} records): hits={arc['hits']} (mru={arc['mru_hits']}, "
                         f"mfu={arc['mfu_hits']}), misses={arc['misses']} (ghost: mru={arc['mru_ghost_hits']}, "
                         f"mfu={arc['mfu_ghost_hits']}); at the end mru={arc['mru_records']}, "
                         f"mfu={arc['mfu_records']}, mru target={arc['mru_target_records']}")
            ind = arc.get("indirect")
            if ind:
                lines.append(f"  indirect blocks ({zfs_nicebytes(ind['held_bytes'])} of "
                             f"{zfs_nicebytes(ind['cache_bytes'])} held): hits={ind['hits']}, "
                             f"misses={ind['misses']}, reads before their records={ind['reads']}")
        if "trace" in w:
            by_op = w["trace"]["by_op"]
            for k, label in TRACE_OPS:
                v = by_op.get(k)
                if v and v["ops"]:
                    lines.append(_lat_line(f"{label} ({v['ops']}, {zfs_nicebytes(v['bytes'])})", v["latency_ns"]))
                    for phase in SCAN_PHASES:
                        p = (v.get("by_scan_phase") or {}).get(phase)
                        if p and p["ops"]:
                            lines.append(_lat_line(f"{label} {phase} scan ({p['ops']})", p["latency_ns"]))
        if "db" in w:
            db = w["db"]
            lines.append(_lat_line(f"page reads ({db['reads']['ops']})", db["reads"]["latency_ns"]))
            lines.append(_lat_line(f"commits ({db['commits']['ops']})", db["commits"]["latency_ns"]))
            if db["checkpoints"]:
                lines.append(_lat_line(f"checkpoints ({db['checkpoints']}, {db['checkpoint_pages']} pages)",
                                       db["checkpoint_ns"]))
    for name, c in summary["classes"].items():
        if not c["ops"]:
            continue
        lines.append(f"{name}: ops={c['ops']}, bytes={zfs_nicebytes(c['bytes'])}")
        lines.append(_lat_line("total_wait", c["total_wait_ns"]))
        lines.append(_lat_line("disk_wait", c["disk_wait_ns"]))
        lines.append(_lat_line("queue_wait", c["queue_wait_ns"]))
    z, t = summary["zil"], summary["txg"]
    syncy = bool(z["commits"] or z["at_risk_bytes_max"])
    writes = any(w["kind"] in WRITE_KINDS
                 or any(w.get("trace", {}).get("by_op", {}).get(k, {}).get("ops") for k in ("write", "sync_write"))
                 for w in summary["workloads"].values())
    # The write throttle and txg syncs belong to every run that writes; a read-only run's
    # syncs (a scan's) carry no data and stay out of its summary.
    if syncy or writes or t["delayed_writes"] or t["blocked_writes"]:
        lines.append(f"txg: syncs={t['syncs']}, delayed_writes={t['delayed_writes']}, blocked_writes={t['blocked_writes']}")
        lines.append(_lat_line("sync", t["sync_ns"]))
        if t["data_bytes"] or t["metadata_blocks"]:
            lines.append(f"  wrote: data={zfs_nicebytes(t['data_bytes'])}, "
                         f"metadata={zfs_nicebytes(t['metadata_bytes'])} in {t['metadata_blocks']} blocks"
                         + (f" (space maps {zfs_nicebytes(t['space_map_bytes'])} in {t['space_map_blocks']})"
                            if t["space_map_blocks"] else ""))
    if syncy:
        lines.append(
            f"zil: commits={z['commits']}, lwb_writes={z['lwb_writes']}, flushes={z['leaf_flushes']}, "
            f"slog={'yes' if z['slog'] else 'no'}, log space max={zfs_nicebytes(z['log_space_bytes_max'])}"
            + (f", lwbs in the pool={z['lwb_pool_writes']}" if z["slog"] and z["lwb_pool_writes"] else ""))
        lines.append(_lat_line("commit", z["commit_latency_ns"]))
        if "log_devices" in z:
            d = z["log_devices"]
            when = "never" if d["event_ns"] is None else human_ns(d["event_ns"])
            lines.append(
                f"log device lost at {when}: lwb_write_errors={d['lwb_write_errors']}, "
                f"txg_fallback_commits={d['commits_txg_fallback']}, unlogged_commits={d['commits_unlogged']}, "
                f"lwbs_to_pool={d['lwb_pool_writes']}")
            lines.append(_lat_line("commit before", d["commit_latency_ns_before"]))
            lines.append(_lat_line("commit after", d["commit_latency_ns_after"]))
        lines.append(
            f"at risk: max={zfs_nicebytes(z['at_risk_bytes_max'])}, mean={zfs_nicebytes(int(z['at_risk_bytes_mean']))}, "
            f"window max={human_ns(z['at_risk_window_ns_max'])}")
        caches = unflushed_volatile_caches(meta.get("config"))
        if caches:
            lines.append(_cache_warning(caches))
    if "l2arc" in summary:
        f = summary["l2arc"]
        lines.append(
            f"l2arc feed: feeds={f['feeds']}, wrote={zfs_nicebytes(f['write_bytes'])} in {f['buffers']} buffers"
            + (f" + {f['log_blocks']} log blocks" if f["log_blocks"] else "")
            + f", evicted unfed={zfs_nicebytes(f['evicted_unfed_bytes'])}, rw_clash={f['rw_clash']}")
    lines.extend(scan_summary_lines(summary, release))
    lines.extend(suspension_lines(summary))
    lines.extend(redundancy_lines(summary))
    return "\n".join(lines) + "\n"

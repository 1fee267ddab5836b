"""The sweep's result table: one row per point × workload, the axis values as columns.

``point_metrics(results, meta)`` reduces one run's results document to what the table
keeps (written as ``points/<id>/metrics.json`` next to the run's own outputs, so a
finished point never has to be re-read from its Parquet files); ``build_table`` joins the
points' metrics with the sweep's axes into ``sweep.parquet``.

Rows: one per (point, workload) in grid order and then the scenario's workload order; a
point without workloads (a scrub of an idle pool) has one row with ``workload`` null.
Point-level metrics (scan, txg, ZIL, data at risk) repeat on each of a point's rows, so
that any row pairs a workload's latency with the scan time it was measured against
(a Pareto plot of scan time vs tail latency is one ``select``).

Units are in column names (ns, bytes, per_s). A metric that does not apply is null
(no scan: every ``scan_*`` null). The bytes are deterministic: same points, same table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..report.summary import at_risk, elapsed_ns, finished_stats, sync_finished

__all__ = [
    "METRICS_SCHEMA",
    "point_metrics",
    "build_table",
    "table_rows",
    "RESERVED_COLUMNS",
    "WORKLOAD_COLUMNS",
    "POINT_COLUMNS",
]

#: Bump when point_metrics changes shape: finished points of another schema are re-run.
#: 2: the workload's figures while a scan was issuing (``scan_window_*``), ``scan_eta_ns``,
#: the sequential rebuild's ``rebuild_*``. 3: ``zil_log_space_bytes_max``. 4: ``txg_sync_ns_*``
#: null when no txg sync finished (they were 0). 5: ``txg_data_bytes``, ``txg_metadata_bytes``.
#: 6: ``read_errors`` per workload, ``suspended_ns``.
METRICS_SCHEMA = 6

LAT = ("mean", "p50", "p90", "p99", "p999", "max")

# (column, arrow type) — in table order.
ID_COLUMNS = (
    ("point", "int64"), ("point_id", "string"),
)
RUN_COLUMNS = (
    ("seed", "uint64"), ("release", "string"), ("digest", "string"), ("end", "string"),
    ("sim_time_ns", "int64"), ("events", "int64"),
)
WORKLOAD_COLUMNS = (
    ("workload", "string"), ("kind", "string"), ("ops", "int64"), ("bytes", "int64"), ("read_errors", "int64"),
    ("ops_per_s", "float64"), ("bytes_per_s", "float64"),
    *((f"latency_ns_{k}", "float64" if k == "mean" else "int64") for k in LAT),
    ("active_ns", "int64"), ("elapsed_ns", "int64"),
    # The same workload while a scan (scrub, resilver, rebuild) was issuing: the window
    # `ziosim run` prints as "during the scan"; null when no scan ran or none of its
    # operations ended in that window.
    ("scan_window_ops", "int64"), ("scan_window_ops_per_s", "float64"),
    *((f"scan_window_latency_ns_{k}", "float64" if k == "mean" else "int64") for k in LAT),
)
POINT_COLUMNS = (
    ("scan_func", "string"), ("scan_state", "string"), ("scan_engine", "string"),
    ("scan_duration_ns", "int64"), ("scan_to_examine_bytes", "int64"),
    ("scan_examined_bytes", "int64"), ("scan_issued_bytes", "int64"), ("scan_processed_bytes", "int64"),
    ("scan_examined_bytes_per_s", "float64"), ("scan_issued_bytes_per_s", "float64"),
    ("scan_processed_bytes_per_s", "float64"), ("scan_leaf_read_bytes_per_s", "float64"),
    # A scan still running when the run stopped: the time to go that the release's own
    # `zpool status` prints at that moment (null if it prints no estimate).
    ("scan_eta_ns", "int64"),
    # Sequential rebuilds (`zpool replace -s`, 2.0+), the longest of them: its state (active,
    # complete, canceled), duration so far, bytes rebuilt, and the time to go the release's
    # `zpool status` printed at the end of the run (null when it prints none).
    ("rebuild_state", "string"), ("rebuild_duration_ns", "int64"), ("rebuild_bytes", "int64"),
    ("rebuild_eta_ns", "int64"),
    ("txg_syncs", "int64"), ("txg_sync_ns_mean", "float64"), ("txg_sync_ns_p99", "int64"),
    ("txg_sync_ns_max", "int64"), ("txg_data_bytes", "int64"), ("txg_metadata_bytes", "int64"),
    ("zil_commits", "int64"), ("zil_slog", "bool"),
    ("zil_commit_latency_ns_mean", "float64"), ("zil_commit_latency_ns_p99", "int64"),
    ("zil_commit_latency_ns_max", "int64"), ("zil_log_space_bytes_max", "int64"),
    ("at_risk_bytes_max", "int64"), ("at_risk_bytes_mean", "float64"), ("at_risk_window_ns_max", "int64"),
    # When the pool suspended (failmode; docs/scenario.md "A pool that suspends"), null if never.
    ("suspended_ns", "int64"),
)
RESERVED_COLUMNS = frozenset(c for c, _ in ID_COLUMNS + RUN_COLUMNS + WORKLOAD_COLUMNS + POINT_COLUMNS)


def _stat(d: Mapping[str, Any] | None, k: str) -> Any:
    return None if not d else d.get(k)


def _active_ns(w: Mapping[str, Any], cfg: Mapping[str, Any] | None, sim_ns: int) -> tuple[int, int | None]:
    """(time the workload was running, time it took if it finished by itself)."""
    start = int((cfg or {}).get("start_ns") or 0)
    end = sim_ns
    if (cfg or {}).get("stop_ns") is not None:
        end = min(end, int(cfg["stop_ns"]))
    elapsed = elapsed_ns(w, cfg)
    if elapsed is not None:
        end = min(end, int(w["finished_ns"]))
    return max(end - start, 0), elapsed


def _lat_columns(prefix: str, lat: Mapping[str, Any] | None) -> dict[str, Any]:
    """``<prefix>mean``, ``_p50`` … ``_max`` from a latency summary (the mean as a float)."""
    out = {}
    for k in LAT:
        v = _stat(lat, k)
        out[prefix + k] = float(v) if (k == "mean" and v is not None) else v
    return out


def _scan_eta_ns(results: Mapping[str, Any], release: str) -> int | None:
    """What the last ``zpool status`` of the run gives as time to go, in ns."""
    from ..report.status import scan_progress

    snaps = (results.get("status") or {}).get("snapshots") or []
    if not snaps or not release:
        return None
    snap = snaps[-1]
    ps = snap.get("scan") or {}
    if ps.get("state") != "scanning":
        return None
    now_s = int((results.get("status") or {}).get("epoch_s", 0)) + int(snap.get("t_ns", 0)) // 1_000_000_000
    secs = scan_progress(ps, release, now_s).secs_left
    return None if secs is None else int(secs) * 1_000_000_000


def _rebuild(results: Mapping[str, Any], release: str) -> dict[str, Any]:
    """The ``rebuild_*`` columns: the rebuild that ran longest (null without one)."""
    from ..report.status import rebuild_progress

    rebuilds = results.get("rebuilds") or []
    if not rebuilds:
        return {}
    r = max(rebuilds, key=lambda r: (int(r.get("duration_ns", 0)), r.get("vdev", "")))
    eta = None
    snaps = (results.get("status") or {}).get("snapshots") or []
    if r.get("state") == "active" and snaps:
        live = [v for v in snaps[-1].get("rebuild") or [] if v.get("vdev") == r.get("vdev")]
        if live:
            secs = rebuild_progress(live[0], release)[3]
            eta = None if secs is None else int(secs) * 1_000_000_000
    return {"rebuild_state": r.get("state"), "rebuild_duration_ns": r.get("duration_ns"),
            "rebuild_bytes": r.get("rebuilt_bytes"), "rebuild_eta_ns": eta}


def _scan_window(w: Mapping[str, Any]) -> dict[str, Any]:
    """A workload's ``scan_window_*`` columns from its ``by_scan_phase.during``."""
    during = (w.get("by_scan_phase") or {}).get("during") or {}
    ops = int(during.get("ops") or 0)
    window_s = int(during.get("window_ns") or 0) / 1e9
    lat = during.get("latency_ns") if ops else None
    out: dict[str, Any] = {
        "scan_window_ops": ops if during else None,
        "scan_window_ops_per_s": ops / window_s if window_s > 0 else None,
    }
    out.update(_lat_columns("scan_window_latency_ns_", lat))
    return out


def point_metrics(results: Mapping[str, Any], config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What the sweep table keeps of one run (plain JSON: ints, floats, strings, null).

    ``config`` is the run config (for each workload's start and stop). Workload rates are
    over the time the workload ran — from its start to its stop, its own end (nfs-copy's
    last file) or the end of the run — where summary.json divides by the whole run."""
    run = {
        "digest": results.get("digest"),
        "end": results.get("end"),
        "sim_time_ns": int(results.get("sim_time_ns", 0)),
        "events": int(results.get("events", 0)),
    }
    point: dict[str, Any] = {c: None for c, _ in POINT_COLUMNS}
    sc = results.get("scan")
    if sc:
        # Every scan_<k> column is the results' scan.<k>.
        point.update({c: sc.get(c[len("scan_"):]) for c, _ in POINT_COLUMNS if c.startswith("scan_")})
        point["scan_eta_ns"] = _scan_eta_ns(results, (config or {}).get("release") or "")
    point.update(_rebuild(results, (config or {}).get("release") or ""))
    point["suspended_ns"] = ((results.get("pool") or {}).get("suspended") or {}).get("at_ns")
    txg = results.get("txg")
    if txg:
        # Durations of the syncs that finished: null when none had (not 0 ns).
        done = txg.get("sync_ns") if sync_finished(txg) else None
        point.update({
            "txg_syncs": txg.get("syncs"), "txg_sync_ns_mean": _stat(done, "mean"),
            "txg_sync_ns_p99": _stat(done, "p99"), "txg_sync_ns_max": _stat(done, "max"),
            "txg_data_bytes": txg.get("data_bytes", 0), "txg_metadata_bytes": txg.get("metadata_bytes", 0),
        })
    zil = results.get("zil")
    if zil:
        commits = int(zil.get("commits", 0))
        # Latencies of the commits that finished: null when none had (a commit started at the
        # stop counts in `commits` but has no latency), as summary.json.
        lat = finished_stats(zil.get("commit_latency_ns"))
        point.update({
            "zil_commits": commits, "zil_slog": bool(zil.get("slog", False)),
            "zil_commit_latency_ns_mean": _stat(lat, "mean"), "zil_commit_latency_ns_p99": _stat(lat, "p99"),
            "zil_commit_latency_ns_max": _stat(lat, "max"),
            "zil_log_space_bytes_max": int(zil.get("log_space_bytes_max", 0)),
            **at_risk(zil),
        })
    workloads = []
    wcfg = (config or {}).get("workloads") or []
    for i, w in enumerate(results.get("workloads", [])):
        lat = w.get("latency_ns") if w.get("ops") else None
        active, elapsed = _active_ns(w, wcfg[i] if i < len(wcfg) else None, run["sim_time_ns"])
        secs = active / 1e9
        ops, nbytes = int(w.get("ops", 0)), int(w.get("bytes", 0))
        row = {
            "workload": w.get("name"), "kind": w.get("kind"), "ops": ops, "bytes": nbytes,
            "read_errors": int(w.get("read_errors", 0)),
            "ops_per_s": ops / secs if secs > 0 else None, "bytes_per_s": nbytes / secs if secs > 0 else None,
            "active_ns": active,
            # A workload with an end of its own (nfs-copy's last file): the time it took.
            "elapsed_ns": elapsed,
        }
        row.update(_lat_columns("latency_ns_", lat))
        row.update(_scan_window(w))
        workloads.append(row)
    return {"run": run, "point": point, "workloads": workloads}


def _axis_type(values: Sequence[Any]) -> str:
    if all(isinstance(v, bool) for v in values):
        return "bool"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "uint64" if any(v >= 1 << 63 for v in values) else "int64"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "float64"
    if all(isinstance(v, str) for v in values):
        return "string"
    return "label"  # tables, arrays, mixed types: the label string


def table_rows(manifest: Mapping[str, Any], metrics: Mapping[str, Mapping[str, Any]]) -> tuple[list[dict], list[tuple[str, str]]]:
    """Rows (dicts) and the column schema [(name, type)] from the manifest and each
    point's metrics (keyed by point id)."""
    axes = manifest["axes"]
    axis_cols = []
    for a in axes:
        t = _axis_type(a["values"])
        axis_cols.append((a["name"], "string" if t == "label" else t, t == "label"))
    schema = list(ID_COLUMNS) + [(n, t) for n, t, _ in axis_cols] + list(RUN_COLUMNS)
    schema += list(WORKLOAD_COLUMNS) + list(POINT_COLUMNS)
    rows = []
    for p in manifest["points"]:
        m = metrics[p["id"]]
        base: dict[str, Any] = {"point": p["index"], "point_id": p["id"]}
        for (name, typ, is_label), v, lab in zip(axis_cols, p["values"], p["labels"]):
            base[name] = lab if is_label else (float(v) if typ == "float64" else v)
        base.update({"seed": p["seed"], "release": p["release"], **m["run"]})
        wl = m["workloads"] or [{c: None for c, _ in WORKLOAD_COLUMNS}]
        for w in wl:
            rows.append({**base, **w, **m["point"]})
    return rows, schema


def build_table(manifest: Mapping[str, Any], metrics: Mapping[str, Mapping[str, Any]]):
    """``sweep.parquet`` as a ``pyarrow.Table`` (schema metadata: ziosim version, sweep name)."""
    import pyarrow as pa

    rows, schema = table_rows(manifest, metrics)
    types = {"int64": pa.int64(), "uint64": pa.uint64(), "float64": pa.float64(), "string": pa.string(),
             "bool": pa.bool_()}
    fields = [pa.field(n, types[t]) for n, t in schema]
    arrays = [pa.array([r.get(n) for r in rows], types[t]) for n, t in schema]
    meta = {
        b"ziosim.schema_version": b"1",
        b"ziosim.ziosim_version": str(manifest.get("ziosim_version")).encode(),
        b"ziosim.sweep_name": str(manifest.get("name")).encode(),
        b"ziosim.axes": ",".join(a["name"] for a in manifest["axes"]).encode(),
    }
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=meta))

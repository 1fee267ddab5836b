"""The comparison view of a sweep: one row per point, its axis values, chosen metrics, and
each metric's ratio to a baseline point.

``render(manifest, rows, baseline=None, metrics=None)`` prints what ``ziosim sweep`` shows at
the end and ``ziosim compare OUT`` shows again; ``rows`` are the rows of ``sweep.parquet``
(``ziosim.sweep.table``) and ``manifest`` is ``sweep.json``. It reads nothing else, so the
two commands print the same bytes.

Baseline: with none given, every point is compared with the first point (every axis at its
first value). ``baseline`` names values for some axes, e.g. ``{"zfs.sync": "standard"}``:
each point is then compared with the point that has those values and *its own* values on
every other axis — the same seed, the same SLOG — so a seed axis compares settings run for
run. Ratios are point ÷ baseline; ``—`` when the baseline's value is zero or missing.

Units follow ZFS and fio: ops/s with fio's ``k``/``M`` (``12.3k``), throughput as
``zpool status`` prints rates (``46.2M/s``, base 1024), latencies and durations with their
own unit and three significant digits (``16.0ms``, ``3m37s``), bytes as ``zfs_nicebytes``
(``43.5M``). A scan still running at the end shows its duration as ``>`` the time simulated,
likewise a workload that had not finished.

A run with several workloads prints one table per workload; the pool-wide metrics (scan,
txg, ZIL, data at risk) appear in each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import ScenarioError
from ..units import show
from .nicenum import nicerate, zfs_nicebytes
from .summary import human_ns

__all__ = ["METRICS", "check_metrics", "default_metrics", "resolve_baseline", "baselines", "render",
           "fmt_ops", "fmt_duration"]


def fmt_ops(v: float) -> str:
    """fio's IOPS style: 3–4 significant digits, then ``k``/``M``: ``9.58``, ``121``, ``1234``, ``12.3k``."""
    v = float(v)
    for div, unit in ((1e6, "M"), (1e3, "k")):
        if v >= 10 * div:
            x = v / div
            return f"{x:.{1 if x < 100 else 0}f}{unit}"
    if v >= 100:
        return f"{v:.0f}"
    return f"{v:.{1 if v >= 10 else 2}f}"


def fmt_duration(ns: float) -> str:
    """A duration: ``human_ns`` below 100 s, then ``3m37s``, ``2h05m``, ``1d04h``."""
    s = float(ns) / 1e9
    if s < 100:
        return human_ns(ns)
    s = int(s)
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    return f"{s // 86400}d{(s % 86400) // 3600:02d}h"


@dataclass(frozen=True)
class Metric:
    header: str
    column: str
    fmt: Callable[[Any, Mapping[str, Any]], str]
    scope: str  # "workload" or "point"
    doc: str


def _rate(v: Any, row: Mapping[str, Any]) -> str:
    return nicerate(v, row.get("release") or "zfs-2.2")


def _done(v: Any, row: Mapping[str, Any]) -> str:
    return fmt_duration(v)


def _ns(v: Any, row: Mapping[str, Any]) -> str:
    return human_ns(v)


def _bytes(v: Any, row: Mapping[str, Any]) -> str:
    return zfs_nicebytes(v)


METRICS: dict[str, Metric] = {
    "ops_per_s": Metric("OPS/S", "ops_per_s", lambda v, r: fmt_ops(v), "workload", "operations per second"),
    "bw": Metric("BW", "bytes_per_s", _rate, "workload", "throughput, bytes per second"),
    "mean": Metric("MEAN", "latency_ns_mean", _ns, "workload", "mean latency"),
    "p50": Metric("P50", "latency_ns_p50", _ns, "workload", "median latency"),
    "p90": Metric("P90", "latency_ns_p90", _ns, "workload", "90th percentile latency"),
    "p99": Metric("P99", "latency_ns_p99", _ns, "workload",
                  "99th percentile latency (over the whole run)"),
    "p99.9": Metric("P99.9", "latency_ns_p999", _ns, "workload", "99.9th percentile latency"),
    "max": Metric("MAX", "latency_ns_max", _ns, "workload", "maximum latency"),
    # The same while the scan was issuing (summary.json by_scan_phase.during): the window
    # advise takes workload measures in, which the whole run dilutes with the time before.
    **{f"scan_{k}": Metric(f"{k.upper()} IN SCAN", f"scan_window_latency_ns_{k}", _ns, "workload",
                           f"{what} latency while the scan was issuing")
       for k, what in (("p50", "median"), ("p99", "99th percentile"), ("max", "maximum"))},
    "elapsed": Metric("ELAPSED", "elapsed_ns", _done, "workload", "time a finite workload (nfs-copy, trace) took"),
    "eio": Metric("EIO", "read_errors", lambda v, r: "-" if v is None else str(v), "workload",
                  "operations that returned EIO (a record with no readable copy)"),
    "scan": Metric("SCAN", "scan_duration_ns", _done, "point", "scrub/resilver duration"),
    "rebuild": Metric("REBUILD", "rebuild_duration_ns", _done, "point",
                      "sequential rebuild duration (replace -s, a dRAID spare): redundancy back before its scrub"),
    "scan_rate": Metric("ISSUED/S", "scan_issued_bytes_per_s", _rate, "point", "scan issue rate (mean)"),
    "scan_examined_rate": Metric("SCANNED/S", "scan_examined_bytes_per_s", _rate, "point",
                                 "scan examine rate (mean)"),
    "txg_sync": Metric("TXG SYNC", "txg_sync_ns_mean", _ns, "point", "mean txg sync time"),
    "txg_sync_max": Metric("TXG MAX", "txg_sync_ns_max", _ns, "point", "longest txg sync"),
    "txg_data": Metric("TXG DATA", "txg_data_bytes", _bytes, "point",
                       "data records the txg syncs wrote"),
    "txg_meta": Metric("TXG META", "txg_metadata_bytes", _bytes, "point",
                       "indirect, dnode and objset blocks the txg syncs wrote (every copy)"),
    "zil_commit": Metric("ZIL COMMIT", "zil_commit_latency_ns_mean", _ns, "point",
                         "mean zil_commit latency"),
    "zil_commit_p99": Metric("COMMIT P99", "zil_commit_latency_ns_p99", _ns, "point",
                             "99th percentile zil_commit latency"),
    "log_space": Metric("LOG SPACE", "zil_log_space_bytes_max", _bytes, "point",
                        "most log-block space in use at once: what a SLOG must hold"),
    "at_risk_max": Metric("AT RISK MAX", "at_risk_bytes_max", _bytes, "point",
                          "most acknowledged bytes not yet stable"),
    "at_risk_mean": Metric("AT RISK MEAN", "at_risk_bytes_mean", _bytes, "point",
                           "time-mean of acknowledged bytes not yet stable"),
    "at_risk_window": Metric("RISK WINDOW", "at_risk_window_ns_max", _ns, "point",
                             "longest time an acknowledged write was not stable"),
}
_SYNC_FIELDS = ("zfs.sync", "zfs.logbias", "pool.log", "zil_disable", "zil_", "zfs_txg_timeout", "o_dsync")


def check_metrics(names: Sequence[str], where: str) -> list[str]:
    """Validate metric names (``all`` expands to every metric)."""
    out: list[str] = []
    for n in names:
        n = n.strip()
        if n == "all":
            out.extend(m for m in METRICS if m not in out)
            continue
        if n not in METRICS:
            from ..scenario import nearest

            hint = nearest(n, METRICS)
            raise ScenarioError(f"{where}: {show(n)} — unknown metric; allowed: all, {', '.join(METRICS)}",
                                hint=f"did you mean {hint}?" if hint else None)
        if n not in out:
            out.append(n)
    if not out:
        raise ScenarioError(f"{where}: no metrics — allowed: all, {', '.join(METRICS)}")
    return out


def default_metrics(rows: Sequence[Mapping[str, Any]], axes: Sequence[Any]) -> list[str]:
    """Workload throughput and latency; the rebuild and the scan when there are; txg, ZIL and data at
    risk when the sweep is about sync writes (an axis on sync/SLOG/ZIL, or any ZIL commit
    or data at risk), and the log space when an axis is the SLOG."""
    out: list[str] = []
    if any(r.get("workload") is not None for r in rows):
        out += ["ops_per_s", "bw", "p50", "p99", "p99.9", "max"]
        if any(r.get("kind") == "nfs-copy" or (r.get("kind") == "trace" and r.get("elapsed_ns") is not None)
               for r in rows):
            out.append("elapsed")
        if any((r.get("read_errors") or 0) > 0 for r in rows):
            out.append("eio")
    if any(r.get("rebuild_state") for r in rows):
        out.append("rebuild")
    if any(r.get("scan_func") for r in rows):
        if any(r.get("scan_window_ops") for r in rows):
            out.append("scan_p99")  # what the users see while the scan runs
        out += ["scan", "scan_rate"]
    fields = [_axis(a)[1] for a in axes]
    syncy = any(any(s in f for s in _SYNC_FIELDS) for f in fields)
    if syncy or any((r.get("zil_commits") or 0) > 0 or (r.get("at_risk_bytes_max") or 0) > 0 for r in rows):
        out += ["txg_sync", "zil_commit", "at_risk_max", "at_risk_mean"]
        if any(f.startswith("pool.log") for f in fields):
            out.append("log_space")  # a SLOG axis: how big each one must be
    return out or ["txg_sync"]


# ----------------------------------------------------------------------------- baseline


def _axis(a: Any) -> tuple[str, str, list[Any], list[str]]:
    if isinstance(a, Mapping):
        return a["name"], a["field"], list(a["values"]), list(a["labels"])
    return a.name, a.field, list(a.values), list(a.labels)


def _same_value(given: Any, value: Any, label: str) -> bool:
    if isinstance(given, str) and given == label:
        return True
    if isinstance(given, bool) or isinstance(value, bool):
        return type(given) is type(value) and given == value
    return given == value


def resolve_baseline(spec: Mapping[str, Any], axes: Sequence[Any], where: str) -> dict[int, str]:
    """``{"zfs.sync": "standard"}`` → {axis index: label}; an error names what is allowed."""
    out: dict[int, str] = {}
    names = [_axis(a) for a in axes]
    for key, given in spec.items():
        idx = next((i for i, (n, f, _, _) in enumerate(names) if key in (n, f)), None)
        if idx is None:
            allowed = ", ".join(n for n, *_ in names) or "none (the sweep has no axes)"
            raise ScenarioError(f"{where}: {key} — not an axis of this sweep; allowed: {allowed}")
        _, _, values, labels = names[idx]
        hit = next((lab for v, lab in zip(values, labels) if _same_value(given, v, lab)), None)
        if hit is None:
            raise ScenarioError(
                f"{where}: {key}={show(given)} — not a value of that axis; allowed: {', '.join(labels)}"
            )
        out[idx] = hit
    return out


def parse_baseline_options(opts: Sequence[str]) -> dict[str, Any]:
    """``--baseline field=value`` (repeatable) → a baseline table."""
    from ..fields import parse_value

    spec: dict[str, Any] = {}
    for o in opts:
        if "=" not in o:
            raise ScenarioError(f"--baseline: {show(o)} — allowed: axis=value, e.g. zfs.sync=standard")
        k, _, v = o.partition("=")
        spec[k.strip()] = v.strip() if v.strip() and not v.strip()[0] in "[{\"'" else parse_value(v.strip())
    return spec


def baselines(manifest: Mapping[str, Any], spec: Mapping[str, Any] | None, where: str) -> dict[int, int]:
    """Point index → the index of its baseline point."""
    axes = manifest["axes"]
    points = manifest["points"]
    fixed = resolve_baseline(spec, axes, where) if spec else {i: _axis(a)[3][0] for i, a in enumerate(axes)}
    by_labels = {tuple(p["labels"]): p["index"] for p in points}
    out = {}
    for p in points:
        want = tuple(fixed.get(i, lab) for i, lab in enumerate(p["labels"]))
        if want not in by_labels:  # cannot happen for a full grid
            raise ScenarioError(f"{where}: no point has {' '.join(want)}")
        out[p["index"]] = by_labels[want]
    return out


# ----------------------------------------------------------------------------- render


def _ratio(v: Any, b: Any) -> str:
    if v is None or b is None or not b:
        return "—"
    r = float(v) / float(b)
    if r >= 100:
        return f"×{r:.0f}"
    if r >= 0.1 or r == 0:
        return f"×{r:.{1 if r >= 10 else 2}f}"
    # Large improvements keep two significant digits (×0.029, ×0.0036), or below a
    # thousandth become a divisor (÷3440): never a "×0.00" that reads as zero.
    return f"×{r:.2g}" if r >= 0.001 else f"÷{1 / r:.0f}"


def _bound(m: Metric, row: Mapping[str, Any]) -> bool:
    """Is the row's value for `m` only a lower bound (still running when the run stopped)?"""
    v = row.get(m.column)
    if m.column == "scan_duration_ns":
        return v is not None and row.get("scan_state") == "scanning"
    return m.column == "elapsed_ns" and v is None and row.get("kind") == "nfs-copy"


def _cell(m: Metric, row: Mapping[str, Any]) -> str:
    v = row.get(m.column)
    if _bound(m, row):
        return ">" + (m.fmt(v, row) if v is not None else fmt_duration(row.get("active_ns") or 0))
    if v is None:
        return "-"
    return m.fmt(v, row)


def _table(header: list[str], body: list[list[str]], right: list[bool]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(header)]
    lines = []
    for cells in [header] + body:
        parts = [c.rjust(w) if rt else c.ljust(w) for c, w, rt in zip(cells, widths, right)]
        lines.append("  ".join(parts).rstrip())
    return lines


def render(
    manifest: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    baseline: Mapping[str, Any] | None = None,
    metrics: Sequence[str] | None = None,
    where: str = "--baseline",
) -> str:
    axes = manifest["axes"]
    points = manifest["points"]
    spec = baseline if baseline is not None else manifest.get("baseline")
    base_of = baselines(manifest, spec, where)
    chosen = list(metrics) if metrics else list(manifest.get("metrics") or default_metrics(rows, axes))
    ms = [METRICS[m] for m in chosen]
    by_point: dict[int, list[Mapping[str, Any]]] = {}
    for r in rows:
        by_point.setdefault(int(r["point"]), []).append(r)
    workloads: list[tuple[str | None, str | None]] = []
    for r in rows:
        key = (r.get("workload"), r.get("kind"))
        if key not in workloads:
            workloads.append(key)
    if any(w is not None for w, _ in workloads):
        workloads = [w for w in workloads if w[0] is not None]
    else:
        ms = [m for m in ms if m.scope == "point"] or [METRICS["txg_sync"]]
    matched = bool(spec) and len(spec) < len(axes)
    seeds = sorted({p["seed"] for p in points})
    releases = sorted({p["release"] for p in points})
    lines = [
        f"sweep {manifest['name']}: {len(points)} point{'s' if len(points) != 1 else ''}, "
        f"scenario {points[0]['name'] if points else '?'} ({manifest.get('scenario_path')})"
        + (f", release {releases[0]}" if len(releases) == 1 else "")
        + (f", seed {seeds[0]}" if len(seeds) == 1 else ""),
    ]
    if matched:
        fixed = resolve_baseline(spec or {}, axes, where)
        shown = ", ".join(f"{_axis(axes[i])[0]}={lab}" for i, lab in sorted(fixed.items()))
        lines.append(f"baseline: {shown}, other axes as the point (column VS); ratios are point ÷ baseline")
    else:
        b = base_of[points[0]["index"]] if points else 1
        bp = next((p for p in points if p["index"] == b), None)
        desc = " ".join(f"{_axis(a)[0]}={lab}" for a, lab in zip(axes, bp["labels"])) if bp else ""
        lines.append(f"baseline: point {b}" + (f" ({desc})" if desc else "") + "; ratios are point ÷ baseline")
    for wname, wkind in workloads:
        lines.append("")
        if wname is not None:
            lines.append(f"workload {wname} ({wkind})")
        header = ["#"] + [_axis(a)[0] for a in axes] + (["VS"] if matched else []) + [m.header for m in ms]
        right = [True] + [False] * len(axes) + ([True] if matched else []) + [True] * len(ms)
        body = []
        cells_v: list[list[str]] = []
        cells_r: list[list[str]] = []
        for p in points:
            prow = next((r for r in by_point.get(p["index"], []) if r.get("workload") == wname), None)
            brow = next((r for r in by_point.get(base_of[p["index"]], []) if r.get("workload") == wname), None)
            vals, rats = [], []
            for m in ms:
                vals.append(_cell(m, prow) if prow else "-")
                # A lower bound (">90.0s": still running) has no meaningful ratio.
                bound = any(r is not None and _bound(m, r) for r in (prow, brow))
                rats.append("—" if bound else _ratio(prow.get(m.column) if prow else None,
                                                       brow.get(m.column) if brow else None))
            cells_v.append(vals)
            cells_r.append(rats)
            body.append([str(p["index"])] + list(p["labels"]) + ([str(base_of[p["index"]])] if matched else []))
        # value and ratio share a column: values right-aligned, then the ratio right-aligned
        for j in range(len(ms)):
            wv = max(len(v[j]) for v in cells_v) if cells_v else 0
            wr = max(len(r[j]) for r in cells_r) if cells_r else 0
            for i, row in enumerate(body):
                row.append(f"{cells_v[i][j]:>{wv}} {cells_r[i][j]:>{wr}}")
        lines.extend("  " + ln for ln in _table(header, body, right))
    # A suspended pool stops its workloads (or, failmode=panic, the run): say so, since the
    # rates above would hide it.
    notes = []
    for p in points:
        r = next(iter(by_point.get(p["index"], [])), None)
        if r is not None and r.get("suspended_ns") is not None:
            notes.append(f"point {p['index']}: the pool suspended at {human_ns(r['suspended_ns'])}"
                         + ("; the host panicked and the run ended there" if r.get("end") == "panic" else
                            "; what needed it waited from then on"))
    if notes:
        lines += [""] + notes
    return "\n".join(lines) + "\n"

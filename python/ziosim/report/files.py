"""Result files of a run, written atomically.

``write_outputs`` writes every file into a fresh temporary directory next to ``outdir``
and renames it into place only when all files are complete, so an interrupted or failed
run leaves either the previous ``outdir`` or nothing, never half-written files.

Files:

* ``summary.json`` — :func:`ziosim.report.summary.build_summary`, deterministic bytes.
* ``run.json`` — the normalised run config and the run's identity (version, release,
  seed, scenario hash, scenario path).
* ``series.parquet`` — one row per (``t_ns``, ``leaf``) and per (``t_ns``, ``workload``),
  one column per metric (units in the column names; per-class series become
  ``class_ops_<class>``, ``queued_<class>``, ``active_<class>``). A row has ``leaf`` or
  ``workload`` set, never both; columns that do not apply are null.
* ``histograms.parquet`` — one row per (``leaf``, ``class``, ``stage``, ``bucket``) with
  ``stage`` in total/disk/queue, ``lo_ns`` inclusive and ``hi_ns`` exclusive
  (bucket 0 is ``[0, 2)`` because it also holds 0), ``count``.

* ``*.svg`` — the plots (:mod:`ziosim.report.plots`), one file each; not with ``plots=False``.
* ``report.html`` — one self-contained page: identity, text views, the plots inline,
  summary tables (:mod:`ziosim.report.html`).

Every Parquet file carries the run identity as schema metadata (``ziosim.*`` keys); every
SVG names it in ``<desc>`` and a footer line, report.html in its header.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from .summary import canonical_json, identity, summary_json

__all__ = ["write_outputs", "write_report", "series_table", "histograms_table", "run_document"]

STAGES = (("total", "total_wait_log2"), ("disk", "disk_wait_log2"), ("queue", "queue_wait_log2"))
LEAF_METRICS = (
    "read_ops", "write_ops", "read_bytes", "write_bytes", "busy_ns",
    "read_total_wait_ns_sum", "write_total_wait_ns_sum",
    "read_disk_wait_ns_sum", "write_disk_wait_ns_sum",
    "syncq_read_wait_ns_sum", "syncq_write_wait_ns_sum",
    "asyncq_read_wait_ns_sum", "asyncq_write_wait_ns_sum",
    "scrub_wait_ns_sum", "trim_wait_ns_sum", "rebuild_wait_ns_sum",
    "inflight_ns_integral",
)
CLASS_GROUPS = ("class_ops", "queued", "active")
WORKLOAD_METRICS = ("ops", "bytes", "latency_ns_sum", "latency_ns_max", "latency_log2_lo")


def run_document(meta: dict) -> dict:
    doc = identity(meta)
    doc["scenario_path"] = str(meta["scenario_path"]) if meta.get("scenario_path") else None
    doc["platform"] = meta.get("platform")
    doc["config"] = meta.get("config")
    return doc


def _parquet_metadata(meta: dict) -> dict[bytes, bytes]:
    return {f"ziosim.{k}".encode(): str(v).encode() for k, v in identity(meta).items()}


def series_table(results: dict, meta: dict):
    """The tidy time-series table as a ``pyarrow.Table``."""
    import pyarrow as pa

    series = results["series"]
    t_ns = [int(t) for t in series["t_ns"]]
    leaves = results.get("leaves", [])
    leaf_series = series.get("leaves", [])
    classes = sorted({cls for s in leaf_series for g in CLASS_GROUPS for cls in s.get(g, {})})
    class_cols = [f"{g}_{cls}" for g in CLASS_GROUPS for cls in classes]
    columns: dict[str, list] = {"t_ns": [], "leaf": [], "workload": []}
    for name in LEAF_METRICS + tuple(class_cols) + WORKLOAD_METRICS:
        columns.setdefault(name, [])
    # The per-interval latency histogram: a list column, buckets from latency_log2_lo on.
    has_hist = any("latency_log2" in s for s in series.get("workloads", []))
    if has_hist:
        columns["latency_log2"] = []

    def add_row(t, leaf, workload, values: dict):
        columns["t_ns"].append(t)
        columns["leaf"].append(leaf)
        columns["workload"].append(workload)
        for name in columns:
            if name not in ("t_ns", "leaf", "workload"):
                columns[name].append(values.get(name))

    for k, t in enumerate(t_ns):
        for i, s in enumerate(leaf_series):
            values = {m: s[m][k] for m in LEAF_METRICS if s.get(m)}
            for g in CLASS_GROUPS:
                for cls, arr in s.get(g, {}).items():
                    values[f"{g}_{cls}"] = arr[k]
            add_row(t, leaves[i]["name"], None, values)
        for j, s in enumerate(series.get("workloads", [])):
            values = {m: s[m][k] for m in WORKLOAD_METRICS if s.get(m)}
            if has_hist and s.get("latency_log2"):
                values["latency_log2"] = [int(c) for c in s["latency_log2"][k]]
            add_row(t, None, results["workloads"][j]["name"], values)

    fields = [pa.field("t_ns", pa.int64()), pa.field("leaf", pa.string()),
              pa.field("workload", pa.string())]
    arrays = [pa.array(columns["t_ns"], pa.int64()), pa.array(columns["leaf"], pa.string()),
              pa.array(columns["workload"], pa.string())]
    for name, values in columns.items():
        if name in ("t_ns", "leaf", "workload"):
            continue
        if name == "latency_log2":
            fields.append(pa.field(name, pa.list_(pa.int64())))
            arrays.append(pa.array(values, pa.list_(pa.int64())))
            continue
        is_float = any(isinstance(v, float) for v in values)
        typ = pa.float64() if is_float else pa.int64()
        fields.append(pa.field(name, typ))
        arrays.append(pa.array(values, typ))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=_parquet_metadata(meta)))


def histograms_table(results: dict, meta: dict):
    """Per-leaf, per-class latency histograms (long form) as a ``pyarrow.Table``."""
    import pyarrow as pa

    cols: dict[str, list] = {k: [] for k in
                             ("leaf", "class", "stage", "bucket", "lo_ns", "hi_ns", "count")}
    for leaf in results.get("leaves", []):
        for cls in sorted(leaf.get("classes", {})):
            data = leaf["classes"][cls]
            for stage, key in STAGES:
                for j, count in enumerate(data.get(key, [])):
                    cols["leaf"].append(leaf["name"])
                    cols["class"].append(cls)
                    cols["stage"].append(stage)
                    cols["bucket"].append(j)
                    cols["lo_ns"].append(0 if j == 0 else 1 << j)
                    cols["hi_ns"].append(1 << (j + 1))
                    cols["count"].append(int(count))
    schema = pa.schema([
        pa.field("leaf", pa.string()), pa.field("class", pa.string()),
        pa.field("stage", pa.string()), pa.field("bucket", pa.int32()),
        pa.field("lo_ns", pa.int64()), pa.field("hi_ns", pa.int64()),
        pa.field("count", pa.int64()),
    ], metadata=_parquet_metadata(meta))
    return pa.Table.from_pydict(cols, schema=schema)


def _write_text(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def _write_parquet(path: Path, table) -> None:
    import pyarrow.parquet as pq

    pq.write_table(table, path)


def write_report(directory: Path, results: dict, meta: dict, plots: bool = True) -> None:
    """The plots (one ``.svg`` each) and ``report.html`` into ``directory``."""
    from .html import report_html
    from .plots import build_plots

    figures = build_plots(results, meta) if plots else None
    for fig in figures or ():
        _write_text(directory / fig.file, fig.svg)
    _write_text(directory / "report.html", report_html(results, meta, figures))


def write_outputs(outdir: str | os.PathLike, results: dict, meta: dict, plots: bool = True) -> list[Path]:
    """Write summary.json, run.json, series.parquet, histograms.parquet, the plots and
    report.html into ``outdir`` (``plots=False``: no SVG files, report.html without plots).

    Atomic: files go to a temporary sibling directory that replaces ``outdir`` only once
    all are written; on any error the temporary directory is removed and ``outdir`` is
    left as it was. Returns the final paths, sorted by name.
    """
    outdir = Path(outdir)
    parent = outdir.parent if str(outdir.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{outdir.name}.tmp-", dir=parent))
    old: Path | None = None
    try:
        _write_text(tmp / "summary.json", summary_json(results, meta))
        _write_text(tmp / "run.json", canonical_json(run_document(meta)))
        _write_parquet(tmp / "series.parquet", series_table(results, meta))
        _write_parquet(tmp / "histograms.parquet", histograms_table(results, meta))
        write_report(tmp, results, meta, plots)
        if outdir.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{outdir.name}.old-", dir=parent))
            os.rename(outdir, old / outdir.name)
        os.rename(tmp, outdir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and (old / outdir.name).exists() and not outdir.exists():
            os.rename(old / outdir.name, outdir)  # put the previous results back
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return sorted(outdir.iterdir())

"""Result files of a run, written atomically.

``write_outputs`` writes every file into a fresh temporary directory next to ``outdir``
and renames it into place only when all files are complete, so an interrupted or failed
run leaves either the previous ``outdir`` or nothing, never half-written files.

It never deletes what ziosim did not write (``check_outdir``): an existing ``outdir`` is
replaced only when it is empty or is a previous run's output — it holds a ``run.json``
carrying ziosim's identity (``ziosim_version``, ``scenario_hash``) and nothing but the
files a run writes (``OWN_FILE``). Any other directory, a file, the current directory or
one above it, and a place ziosim cannot write (``check_writable``, before the run) are
refused with a one-line ``ScenarioError`` naming ``--out``; so is a write that fails at the
end (a full disk). Files and directories get the modes the umask gives (``follow_umask``),
not ``mkdtemp``'s 0700.

Files:

* ``summary.json`` — :func:`ziosim.report.summary.build_summary`, deterministic bytes.
* ``run.json`` — the normalised run config and the run's identity (version, release,
  seed, scenario hash, scenario path).
* ``series.parquet`` — one row per (``t_ns``, ``leaf``) and per (``t_ns``, ``workload``),
  one column per metric (units in the column names; per-class series become
  ``class_ops_<class>``, ``queued_<class>``, ``active_<class>``). A row has ``leaf`` or
  ``workload`` set, never both; columns that do not apply are null.
* ``vdevs.parquet`` — one row per (``t_ns``, top-level vdev), data vdevs, then special, then
  log vdevs: ``class`` (``normal``, ``special`` or ``log``, the allocation class),
  ``alloc_bytes`` (``vs_alloc`` at ``t_ns``), ``size_bytes``, and the vdev's own zios (one
  per block) ``read_ops``/``write_ops``/``read_bytes``/``write_bytes`` in the interval
  ending there — the capacity columns of its ``zpool iostat -v`` row, and its operations
  as releases before 0.7 print them (later ones sum the disks' commands: the leaf rows of
  ``series.parquet``).
* ``histograms.parquet`` — one row per (``leaf``, ``class``, ``stage``, ``bucket``) with
  ``stage`` in total/disk/queue, ``lo_ns`` inclusive and ``hi_ns`` exclusive
  (bucket 0 is ``[0, 2)`` because it also holds 0), ``count``.
* ``scan.parquet`` — only for a run with actions (it has ``zpool status`` snapshots): one
  row per snapshot for the scan, and one per snapshot and top-level vdev for a sequential
  rebuild; the counters of ``pool_scan_stat_t`` and the rates, % done and ETA that the
  release's ``zpool status`` computes from them (``status.scan_progress``).

* ``*.svg`` — the plots (:mod:`ziosim.report.plots`), one file each; not with ``plots=False``.
* ``report.html`` — one self-contained page: identity, text views, the plots inline,
  summary tables (:mod:`ziosim.report.html`).

Every Parquet file carries the run identity as schema metadata (``ziosim.*`` keys); every
SVG names it in ``<desc>`` and a footer line, report.html in its header.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import shutil
import tempfile
from pathlib import Path

from ..errors import ScenarioError
from .summary import canonical_json, identity, summary_json

__all__ = ["write_outputs", "write_report", "series_table", "histograms_table", "scan_table", "vdevs_table",
           "run_document",
           "check_outdir", "check_writable", "follow_umask", "OWN_FILE"]

#: The names of the files ``write_outputs`` writes (the plots' names are plots.py's).
OWN_FILE = re.compile(r"(summary|run)\.json|(series|histograms|scan|vdevs)\.parquet|report\.html"
                      r"|latency-(heatmap|phases)-.+\.svg|(scan-progress|disk-busy|throughput)\.svg")

STAGES = (("total", "total_wait_log2"), ("disk", "disk_wait_log2"), ("queue", "queue_wait_log2"))
LEAF_METRICS = (
    "read_ops", "write_ops", "read_bytes", "write_bytes", "busy_ns",
    "read_total_wait_ns_sum", "write_total_wait_ns_sum",
    "read_disk_wait_ns_sum", "write_disk_wait_ns_sum",
    "syncq_read_wait_ns_sum", "syncq_write_wait_ns_sum",
    "asyncq_read_wait_ns_sum", "asyncq_write_wait_ns_sum",
    "scrub_wait_ns_sum", "trim_wait_ns_sum", "rebuild_wait_ns_sum",
    # The same waits summed at their log2 buckets' midpoints, which is how `zpool iostat -l`
    # averages (docs/internals.md): with them the -l view can be rebuilt from the file.
    "read_total_wait_mid_ns_sum", "write_total_wait_mid_ns_sum",
    "read_disk_wait_mid_ns_sum", "write_disk_wait_mid_ns_sum",
    "syncq_read_wait_mid_ns_sum", "syncq_write_wait_mid_ns_sum",
    "asyncq_read_wait_mid_ns_sum", "asyncq_write_wait_mid_ns_sum",
    "scrub_wait_mid_ns_sum", "trim_wait_mid_ns_sum", "rebuild_wait_mid_ns_sum",
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
    """The tidy time-series table as a ``pyarrow.Table``.

    Built a column at a time: rows are interval-major, each interval's leaves then its
    workloads. A leaf column the core handed over as one buffer in that very row order
    (``ziosim.results.LeafSeries``) becomes an Arrow array over that buffer, not a copy.
    """
    import pyarrow as pa

    series = results["series"]
    t_ns = [int(t) for t in series["t_ns"]]
    leaves = results.get("leaves", [])
    leaf_series = series.get("leaves", [])
    wl_series = series.get("workloads", [])
    classes = sorted({cls for s in leaf_series for g in CLASS_GROUPS for cls in s.get(g, {})})
    class_cols = [(f"{g}_{cls}", g, cls) for g in CLASS_GROUPS for cls in classes]
    # The per-interval latency histogram: a list column, buckets from latency_log2_lo on.
    has_hist = any("latency_log2" in s for s in wl_series)
    n_leaf, n_wl, n = len(leaf_series), len(wl_series), len(t_ns)
    stride = n_leaf + n_wl
    rows = n * stride

    def by_row(leaf_value, wl_value) -> list:
        """A column's values in row order from ``leaf_value(i, k)`` and ``wl_value(j, k)``."""
        out = []
        for k in range(n):
            out.extend(leaf_value(i, k) for i in range(n_leaf))
            out.extend(wl_value(j, k) for j in range(n_wl))
        return out

    def none(_i: int, _k: int) -> None:
        return None

    def typed(values: list):
        is_float = any(isinstance(v, float) for v in values)
        return pa.array(values, pa.float64() if is_float else pa.int64())

    shared = getattr(leaf_series, "columns", None) if getattr(leaf_series, "stride", None) == stride else None
    leaf_valid = None  # validity bitmap of the leaf rows, made once for every shared column

    def leaf_column(get, core_name: str):
        nonlocal leaf_valid
        buf = shared.get(core_name) if shared is not None else None
        if buf is not None and buf.nbytes == rows * 8 and all(get(s) is not None for s in leaf_series):
            if n_wl and leaf_valid is None:
                bits = bytearray((rows + 7) // 8)
                for r in range(rows):
                    if r % stride < n_leaf:
                        bits[r >> 3] |= 1 << (r & 7)
                leaf_valid = pa.py_buffer(bytes(bits))
            return pa.Array.from_buffers(pa.int64(), rows, [leaf_valid, pa.py_buffer(buf)],
                                         null_count=n * n_wl)
        per_leaf = [get(s) for s in leaf_series]
        return typed(by_row(lambda i, k: per_leaf[i][k] if per_leaf[i] else None, none))

    leaf_names = [leaves[i]["name"] for i in range(n_leaf)]
    wl_names = [results["workloads"][j]["name"] for j in range(n_wl)]
    fields = [pa.field("t_ns", pa.int64()), pa.field("leaf", pa.string()),
              pa.field("workload", pa.string())]
    arrays = [pa.array(by_row(lambda i, k: t_ns[k], lambda j, k: t_ns[k]), pa.int64()),
              pa.array(by_row(lambda i, k: leaf_names[i], none), pa.string()),
              pa.array(by_row(none, lambda j, k: wl_names[j]), pa.string())]
    for name in LEAF_METRICS:
        arrays.append(leaf_column(lambda s, m=name: s.get(m) or None, name))
        fields.append(pa.field(name, arrays[-1].type))
    for name, g, cls in class_cols:
        arrays.append(leaf_column(lambda s, g=g, cls=cls: s.get(g, {}).get(cls), f"{g}/{cls}"))
        fields.append(pa.field(name, arrays[-1].type))
    for name in WORKLOAD_METRICS:
        per_wl = [s.get(name) or None for s in wl_series]
        arrays.append(typed(by_row(none, lambda j, k: per_wl[j][k] if per_wl[j] else None)))
        fields.append(pa.field(name, arrays[-1].type))
    # Always the column, null where no histogram was kept (no workload at all, say), so that
    # every run's file has one schema and runs can be read together.
    def hist(j: int, k: int):
        h = wl_series[j].get("latency_log2") if has_hist else None
        return [int(c) for c in h[k]] if h else None
    arrays.append(pa.array(by_row(none, hist), pa.list_(pa.int64())))
    fields.append(pa.field("latency_log2", pa.list_(pa.int64())))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=_parquet_metadata(meta)))


def vdevs_table(results: dict, meta: dict):
    """Per report interval and top-level vdev (data vdevs, then special, then log vdevs, as
    ``series.tops`` has them; ``class`` normal, special or log): its capacity
    (``vs_alloc`` at the end of the interval, and its size) and its own zios and bytes in
    the interval, as a ``pyarrow.Table``; None for results without the per-vdev series."""
    import pyarrow as pa

    series = results.get("series") or {}
    tops = series.get("tops") or []
    if not tops:
        return None
    pool = results["pool"]
    leaves = results.get("leaves", [])
    t_ns = [int(t) for t in series["t_ns"]]
    vdevs = [(str(v["name"]), "special" if v.get("class") == "special" else "normal", int(v.get("size_bytes", 0)))
             for v in pool.get("vdevs") or []]
    # A log vdev is as large as its smallest disk (iostat.py's rows).
    vdevs += [(str(v["name"]), "log", min(int(leaves[i]["size_bytes"]) for i in v["leaves"]))
              for v in pool.get("log") or []]
    cols: dict[str, list] = {k: [] for k in ("t_ns", "vdev", "class", "alloc_bytes", "size_bytes", "read_ops",
                                             "write_ops", "read_bytes", "write_bytes")}
    for k, t in enumerate(t_ns):
        for i, (name, cls, size) in enumerate(vdevs[:len(tops)]):
            s = tops[i]
            cols["t_ns"].append(t)
            cols["vdev"].append(name)
            cols["class"].append(cls)
            cols["alloc_bytes"].append(int(s["alloc_bytes"][k]) if "alloc_bytes" in s else None)
            cols["size_bytes"].append(size)
            for c in ("read_ops", "write_ops", "read_bytes", "write_bytes"):
                cols[c].append(int(s[c][k]))
    types = {"vdev": pa.string(), "class": pa.string()}
    fields = [pa.field(k, types.get(k, pa.int64())) for k in cols]
    return pa.Table.from_arrays([pa.array(v, f.type) for v, f in zip(cols.values(), fields)],
                                schema=pa.schema(fields, metadata=_parquet_metadata(meta)))


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


SCAN_COLUMNS = (
    ("t_ns", "int64"), ("time_s", "int64"), ("kind", "string"), ("vdev", "string"),
    ("func", "string"), ("state", "string"), ("phase", "string"), ("paused", "bool"),
    ("start_s", "int64"), ("end_s", "int64"),
    ("to_examine_bytes", "int64"), ("examined_bytes", "int64"), ("issued_bytes", "int64"),
    ("skipped_bytes", "int64"), ("processed_bytes", "int64"), ("errors", "int64"),
    ("pass_examined_bytes", "int64"), ("pass_issued_bytes", "int64"),
    ("scan_rate_bytes_per_s", "int64"), ("issue_rate_bytes_per_s", "int64"),
    ("fraction_done", "float64"), ("eta_s", "int64"), ("eta", "string"),
)


def _scan_row(ps: dict, release: str, now_s: int) -> dict:
    """One scan row: the snapshot's counters, and what ``zpool status`` computes from them."""
    from .status import scan_era, scan_progress

    func, state = ps.get("func", "none"), ps.get("state", "none")
    paused = bool(int(ps.get("pass_scrub_pause_s", 0) or 0))
    row = {
        "kind": "scan", "vdev": None, "func": func, "state": state, "paused": paused,
        "phase": ("paused" if paused else ps.get("phase")) if state == "scanning" else None,
        "start_s": ps.get("start_s"), "end_s": ps.get("end_s"),
        "to_examine_bytes": ps.get("to_examine"), "examined_bytes": ps.get("examined"),
        "issued_bytes": ps.get("issued"), "skipped_bytes": ps.get("skipped"),
        "processed_bytes": ps.get("processed"), "errors": ps.get("errors"),
        "pass_examined_bytes": ps.get("pass_exam"), "pass_issued_bytes": ps.get("pass_issued"),
    }
    if state == "finished":
        row["fraction_done"] = 1.0
    if state == "scanning" and func in ("scrub", "resilver"):
        era = scan_era(release)
        p = scan_progress(ps, release, now_s)
        row["scan_rate_bytes_per_s"] = p.scan_rate if era != "2009" else None
        row["issue_rate_bytes_per_s"] = p.issue_rate if era not in ("2009", "legacy", "0.7") else None
        row["fraction_done"] = p.fraction_done if math.isfinite(p.fraction_done) else None
        # A paused scrub prints no estimate.
        row["eta_s"] = None if paused else p.secs_left
        row["eta"] = None if paused else p.eta
    return row


def _rebuild_row(vrs: dict, release: str) -> dict:
    """A sequential rebuild's row, with the arithmetic of ``print_rebuild_status_impl``
    (as ``status._rebuild_status`` prints it)."""
    from .status import rebuild_progress, secs_to_dhms

    state = vrs.get("state")
    scanned, issued = int(vrs.get("scanned", 0)), int(vrs.get("issued", 0))
    est = int(vrs.get("estimate", 0))
    row = {
        "kind": "rebuild", "vdev": vrs.get("vdev"), "func": "rebuild", "state": state, "paused": False,
        "phase": "rebuild" if state == "active" else None,
        "start_s": vrs.get("start_s"), "end_s": vrs.get("end_s"),
        "to_examine_bytes": est, "examined_bytes": scanned, "issued_bytes": issued,
        "skipped_bytes": vrs.get("pass_skipped"), "processed_bytes": vrs.get("rebuilt"),
        "errors": vrs.get("errors"), "pass_examined_bytes": vrs.get("pass_scanned"),
        "pass_issued_bytes": vrs.get("pass_issued"),
    }
    if state == "complete":
        row["fraction_done"] = 1.0
    if state == "active":
        scan_rate, issue_rate, fraction, secs = rebuild_progress(vrs, release)
        row["scan_rate_bytes_per_s"] = scan_rate
        row["issue_rate_bytes_per_s"] = issue_rate
        row["fraction_done"] = fraction
        row["eta_s"] = secs
        row["eta"] = "no estimated completion time" if secs is None else secs_to_dhms(secs)
    return row


def scan_table(results: dict, meta: dict):
    """Scan progress per ``zpool status`` snapshot as a ``pyarrow.Table``, or None when the
    results have no snapshots (a run without actions)."""
    import pyarrow as pa

    status = results.get("status") or {}
    snaps = status.get("snapshots") or []
    if not snaps:
        return None
    release = meta["release"]
    epoch_s = int(status.get("epoch_s", 0))
    rows = []
    for snap in snaps:
        t_ns = int(snap["t_ns"])
        now_s = epoch_s + t_ns // 1_000_000_000
        base = {"t_ns": t_ns, "time_s": now_s}
        rows.append({**base, **_scan_row(snap.get("scan") or {}, release, now_s)})
        for vrs in snap.get("rebuild") or []:
            rows.append({**base, **_rebuild_row(vrs, release)})
    types = {"int64": pa.int64(), "float64": pa.float64(), "string": pa.string(), "bool": pa.bool_()}
    fields = [pa.field(n, types[t]) for n, t in SCAN_COLUMNS]
    arrays = [pa.array([r.get(n) for r in rows], types[t]) for n, t in SCAN_COLUMNS]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=_parquet_metadata(meta)))


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


@functools.lru_cache(maxsize=1)
def _umask() -> int:
    """The process's umask, read once. Linux shows it in /proc without changing it; else
    it is set and put back at once (the only way POSIX offers to read it)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def follow_umask(path: str | os.PathLike, directory: bool = False) -> None:
    """Give ``path`` the mode an ordinary ``open``/``mkdir`` would have: ``mkstemp`` and
    ``mkdtemp`` make 0600/0700 whatever the umask, and results are meant to be shared."""
    os.chmod(path, (0o777 if directory else 0o666) & ~_umask())


def _is_previous_run(outdir: Path, names: list[str]) -> bool:
    """A directory ``write_outputs`` wrote: its run.json carries ziosim's identity, and it
    holds nothing else but the files a run writes."""
    try:
        doc = json.loads((outdir / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    ours = isinstance(doc, dict) and doc.get("ziosim_version") is not None and "scenario_hash" in doc
    return ours and all(OWN_FILE.fullmatch(n) and (outdir / n).is_file() for n in names)


def _reason(e: OSError) -> str:
    """An OSError in words, without Python's ``[Errno N]`` and repeated path (pyarrow's
    have no strerror: the first line of their text)."""
    return e.strerror or str(e).splitlines()[0] or type(e).__name__


def check_writable(outdir: str | os.PathLike, where: str = "--out") -> None:
    """Refuse, before a run, an ``outdir`` the run could not write at its end: the nearest
    existing directory at or above its parent must take a new entry. Probed by making and
    removing one, as ``write_outputs`` will — mode bits do not tell for root, a read-only
    mount or /proc."""
    outdir = Path(outdir)
    allowed = "allowed: a directory under one you can write"
    base = outdir.parent
    while not os.path.lexists(base) and base != base.parent:
        base = base.parent
    if not base.is_dir():
        raise ScenarioError(f"{where}: {outdir} — {base} is not a directory; {allowed}")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=f".{outdir.name}.tmp-", dir=base))
    except OSError as e:
        raise ScenarioError(f"{where}: {outdir} — cannot write in {base} ({_reason(e)}); {allowed}") from None


def check_outdir(outdir: str | os.PathLike, where: str = "--out", writable: bool = True) -> None:
    """Refuse an output directory whose replacement would destroy what ziosim did not
    write, or (``writable``) that ziosim could not write (``check_writable``); one line
    naming ``where``, the directory and what is allowed."""
    outdir = Path(outdir)
    allowed = "allowed: a new or empty directory, or one a previous `ziosim run` wrote (run.json and its files only)"
    try:
        here = Path.cwd().resolve()
    except OSError:
        here = None
    target = outdir.resolve()
    if here is not None and (target == here or target in here.parents):
        raise ScenarioError(f"{where}: {outdir} — is the current directory or contains it, which a run would "
                            "replace; allowed: a directory that neither is nor contains the current one, e.g. out/NAME")
    if outdir.exists():
        if not outdir.is_dir():
            raise ScenarioError(f"{where}: {outdir} — is a file; {allowed}")
        try:
            names = sorted(os.listdir(outdir))
        except OSError as e:
            raise ScenarioError(f"{where}: {outdir} — cannot list it ({_reason(e)}); {allowed}") from None
        if names and not _is_previous_run(outdir, names):
            foreign = next((n for n in names if not OWN_FILE.fullmatch(n)), None)
            what = f"holds {foreign}, which ziosim did not write" if foreign else "holds no run.json of a ziosim run"
            raise ScenarioError(f"{where}: {outdir} — {what}; {allowed}")
    if writable:
        check_writable(outdir, where)


def _remove_empty(dirs: list[Path]) -> None:
    """Remove ``dirs`` (deepest first) while they are empty: the parents a failed write made."""
    for d in dirs:
        try:
            os.rmdir(d)
        except OSError:
            return


def write_outputs(outdir: str | os.PathLike, results: dict, meta: dict, plots: bool = True) -> list[Path]:
    """Write summary.json, run.json, series.parquet, vdevs.parquet, histograms.parquet (and scan.parquet
    for a run with status snapshots), the plots and report.html into ``outdir``
    (``plots=False``: no SVG files, report.html without plots).

    Atomic: files go to a temporary sibling directory that replaces ``outdir`` only once
    all are written; on any error the temporary directory is removed and ``outdir`` is
    left as it was. An ``outdir`` that is neither new, empty nor a previous run's output
    is refused (``check_outdir``, ScenarioError) and left alone; so is a failure to write
    (a full disk, a directory made read-only meanwhile): one line naming ``--out`` and the
    file, never an OSError. Returns the final paths, sorted by name.
    """
    outdir = Path(outdir)
    check_outdir(outdir, writable=False)  # the temporary directory below is the test
    parent = outdir.parent if str(outdir.parent) else Path(".")
    allowed = "allowed: a directory under one you can write"
    made: list[Path] = []  # the parents this call creates, deepest first: removed again if it fails
    p = parent
    while not os.path.lexists(p) and p != p.parent:
        made.append(p)
        p = p.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        _remove_empty(made)
        raise ScenarioError(f"--out: {outdir} — cannot create {parent} ({_reason(e)}); {allowed}") from None
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{outdir.name}.tmp-", dir=parent))
    except OSError as e:
        _remove_empty(made)
        raise ScenarioError(f"--out: {outdir} — cannot write in {parent} ({_reason(e)}); {allowed}") from None
    old: Path | None = None
    doing = "write"
    try:
        follow_umask(tmp, directory=True)
        doing = "write summary.json"
        _write_text(tmp / "summary.json", summary_json(results, meta))
        doing = "write run.json"
        _write_text(tmp / "run.json", canonical_json(run_document(meta)))
        doing = "write series.parquet"
        _write_parquet(tmp / "series.parquet", series_table(results, meta))
        doing = "write histograms.parquet"
        _write_parquet(tmp / "histograms.parquet", histograms_table(results, meta))
        vdevs = vdevs_table(results, meta)
        if vdevs is not None:
            doing = "write vdevs.parquet"
            _write_parquet(tmp / "vdevs.parquet", vdevs)
        scan = scan_table(results, meta)
        if scan is not None:
            doing = "write scan.parquet"
            _write_parquet(tmp / "scan.parquet", scan)
        doing = "write the plots and report.html"
        write_report(tmp, results, meta, plots)
        check_outdir(outdir, writable=False)  # again: the run may have taken hours
        if outdir.exists():
            doing = f"move the previous {outdir.name} aside"
            old = Path(tempfile.mkdtemp(prefix=f".{outdir.name}.old-", dir=parent))
            try:
                os.rename(outdir, old / outdir.name)
            except OSError as e:  # a mount point, a directory we may not move
                raise ScenarioError(f"--out: {outdir} — cannot be replaced ({_reason(e)}); allowed: a new "
                                    "directory, or one ziosim can rename") from None
        doing = f"rename {tmp.name} to {outdir.name}"
        os.rename(tmp, outdir)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and (old / outdir.name).exists() and not outdir.exists():
            os.rename(old / outdir.name, outdir)  # put the previous results back
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        _remove_empty(made)
        if isinstance(e, OSError):
            kept = "the previous results kept" if outdir.exists() else "nothing written"
            raise ScenarioError(f"--out: {outdir} — cannot {doing} ({_reason(e)}), {kept}; allowed: a directory "
                                "you can write, with room for the results") from None
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return sorted(outdir.iterdir())

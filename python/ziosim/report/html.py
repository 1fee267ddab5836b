"""``report.html``: one self-contained page per run.

The page has no external resources and no script: the plots are inline SVG (tooltips are
SVG ``<title>`` elements), the style sheet is inline. It is also well-formed XML (every
element closed, only XML's own entities), so it can be parsed with any XML parser.
Deterministic like every other output: the same results and meta give the same bytes —
no timestamps, no paths, nothing from the machine.

Sections: the run's identity (ziosim version, release, seed, scenario name and hash,
digest); the text views ``ziosim run`` prints at the end of a run (``zpool status`` as at
the end, the ``ziosim summary`` table); the plots (``plots.py``); tables from
``summary.json`` per workload, per scan phase, per I/O class, per disk, and the scan.
"""

from __future__ import annotations

from .nicenum import nicerate, zfs_nicebytes
from .plots import Plot
from .status import zpool_status, zpool_status_config
from .summary import build_summary, human_ns, summary_text
from .svg import esc, fmt_pct, fmt_time

__all__ = ["report_html"]

_CSS = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 1.5em auto; max-width: 64em;
       padding: 0 1em; color: #111111; background: #ffffff; }
h1 { font-size: 1.5em; margin-bottom: 0.3em; }
h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #999999; }
h3 { font-size: 1em; margin-top: 1.2em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #bbbbbb; padding: 0.15em 0.5em; }
th { background: #eeeeee; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.id th { background: none; border: none; padding-right: 1em; }
table.id td { border: none; font-family: monospace; }
pre { background: #f6f6f6; border: 1px solid #dddddd; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
figure { margin: 1em 0; }
figure svg { max-width: 100%; height: auto; border: 1px solid #eeeeee; }
figcaption { font-size: 0.9em; color: #333333; }
p.note { font-style: italic; }
nav ul { columns: 2; }
"""


def _table(head: list[str], rows: list[list[object]], numeric_from: int = 1, cls: str = "") -> str:
    c = f' class="{cls}"' if cls else ""
    out = [f"<table{c}><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr></thead><tbody>"]
    for row in rows:
        cells = []
        for k, v in enumerate(row):
            attr = ' class="n"' if k >= numeric_from else ""
            cells.append(f"<td{attr}>{esc(v)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _rate_ops(v: float) -> str:
    text = f"{v:.2f}"
    return text.rstrip("0").rstrip(".")


def _identity(results: dict, meta: dict) -> str:
    sim_s = int(results.get("sim_time_ns") or 0)
    rows = [
        ("ziosim", meta.get("version")), ("release", meta.get("release")), ("seed", meta.get("seed")),
        ("scenario", meta.get("name")), ("scenario hash", meta.get("scenario_hash")),
        ("digest", results.get("digest")), ("simulated", fmt_time(sim_s)), ("end", results.get("end")),
        ("events", results.get("events", 0)), ("leaf I/Os", results.get("leaf_ios", 0)),
    ]
    return ('<table class="id"><tbody>'
            + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows)
            + "</tbody></table>")


def _final_status(results: dict, meta: dict) -> str:
    release = meta["release"]
    pool = results["pool"]["name"]
    status = results.get("status") or {}
    snaps = status.get("snapshots") or []
    body = (zpool_status(snaps[-1], release, pool, int(status.get("epoch_s", 0)), results) if snaps
            else zpool_status_config(results, release))
    return f"$ zpool status {pool}\n{body}"


def _workload_tables(summary: dict, release: str) -> str:
    rows, phase_rows = [], []
    for name, w in summary["workloads"].items():
        lat = w["latency_ns"]  # None when no operation finished
        rows.append([name, w["kind"], w["ops"], _rate_ops(w["ops_per_s"]), nicerate(w["bytes_per_s"], release),
                     *(human_ns(lat[k]) if lat else "-" for k in ("min", "mean", "p50", "p90", "p99", "p999", "max"))])
        for phase, p in (w.get("by_scan_phase") or {}).items():
            pl = p["latency_ns"]
            phase_rows.append([name, phase, fmt_time(p["window_ns"]), p["ops"], _rate_ops(p["ops_per_s"]),
                               nicerate(p["bytes_per_s"], release),
                               *(human_ns(pl[k]) if p["ops"] else "-" for k in ("mean", "p50", "p99", "max"))])
    out = ['<h3 id="t-workloads">Workloads</h3>',
           _table(["workload", "kind", "ops", "ops/s", "bandwidth", "min", "mean", "p50", "p90", "p99",
                   "p99.9", "max"], rows, numeric_from=2)]
    if phase_rows:
        out += ['<h3 id="t-phases">Workloads before, during and after the scan</h3>',
                _table(["workload", "phase", "window", "ops", "ops/s", "bandwidth", "mean", "p50", "p99", "max"],
                       phase_rows, numeric_from=2)]
    return "\n".join(out)


def _class_table(summary: dict) -> str:
    rows = []
    for name, c in summary["classes"].items():
        if not c["ops"]:
            continue
        rows.append([name, c["ops"], zfs_nicebytes(c["bytes"]),
                     *(human_ns(c[stage][k]) for stage in ("total_wait_ns", "disk_wait_ns", "queue_wait_ns")
                       for k in ("p50", "p99", "max"))])
    if not rows:
        return '<h3 id="t-classes">I/O classes</h3>\n<p class="note">No leaf I/O completed.</p>'
    head = ["class", "ops", "bytes"] + [f"{s} {k}" for s in ("total", "disk", "queue") for k in ("p50", "p99", "max")]
    return '<h3 id="t-classes">I/O classes (leaf waits, all disks)</h3>\n' + _table(head, rows)


def _leaf_table(summary: dict) -> str:
    rows = [[name, l["vdev"], l["device"], l["ops"], zfs_nicebytes(l["bytes"]), fmt_pct(l["busy_fraction"])]
            for name, l in summary["leaves"].items()]
    return ('<h3 id="t-disks">Disks</h3>\n'
            + _table(["disk", "vdev", "device", "ops", "bytes", "busy"], rows, numeric_from=3))


def _scan_table(summary: dict, release: str) -> str:
    sc = summary.get("scan")
    if not sc:
        return ""
    done = "repaired" if sc.get("func") == "scrub" else "resilvered"
    rows = [
        ("function", sc.get("func")), ("state at end", sc.get("state")), ("engine", sc.get("engine")),
        ("started", fmt_time(sc.get("start_ns", 0))),
        ("still running at the end, at" if sc.get("state") == "scanning" else "ended", fmt_time(sc.get("end_ns", 0))),
        ("duration", fmt_time(sc.get("duration_ns", 0))),
        ("of it paused", fmt_time(sc["paused_ns"]) if sc.get("paused_ns") else None),
        ("to examine", zfs_nicebytes(sc.get("to_examine_bytes", 0))),
        ("examined", zfs_nicebytes(sc.get("examined_bytes", 0))),
        ("issued", zfs_nicebytes(sc.get("issued_bytes", 0))),
        (done, zfs_nicebytes(sc.get("processed_bytes", 0))),
        # Mean rates over the time not paused; null (no row) when that time is zero.
        *((label, nicerate(sc[k], release) if sc.get(k) is not None else None)
          for label, k in (("examined rate", "examined_bytes_per_s"), ("issued rate", "issued_bytes_per_s"),
                           ("disk read rate", "leaf_read_bytes_per_s"))),
    ]
    return ('<h3 id="t-scan">Scan</h3>\n'
            + _table(["scan", "value"], [[k, v] for k, v in rows if v is not None]))


def report_html(results: dict, meta: dict, plots: list[Plot] | None) -> str:
    """The whole page. ``plots`` are the figures to inline (``None``: drawn with
    ``--no-plots``, the page says so)."""
    release = meta["release"]
    summary = build_summary(results, meta)
    name = meta.get("name")
    series = results.get("series") or {}
    no_samples = not series.get("t_ns")
    notes = []
    if no_samples:
        interval = fmt_time(int(series.get("interval_ns") or 0))
        notes.append(f"The run ended before the first {interval} report interval: there are no "
                     f"time series, so no heat maps, utilisation or throughput plots.")
    if not results.get("scan"):
        notes.append("No scan ran: no scan progress and no before/during/after latency histograms.")
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8"/>',
        '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
        f'<meta name="generator" content="ziosim {esc(meta.get("version"))}"/>',
        f"<title>ziosim report: {esc(name)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        f"<h1>ziosim report: {esc(name)}</h1>",
        _identity(results, meta),
        '<nav><ul><li><a href="#text">Text report</a></li><li><a href="#plots">Plots</a></li>'
        '<li><a href="#tables">Tables</a></li></ul></nav>',
    ]
    out += [f'<p class="note">{esc(n)}</p>' for n in notes]
    out += ['<h2 id="text">Text report</h2>',
            "<p>What <code>ziosim run</code> prints: <code>zpool status</code> at the end of the run, "
            "and the summary.</p>",
            f'<pre class="status">{esc(_final_status(results, meta))}</pre>',
            f'<pre class="summary">$ ziosim summary\n{esc(summary_text(results, meta, summary))}</pre>',
            '<h2 id="plots">Plots</h2>']
    if plots is None:
        out.append('<p class="note">Plots were not drawn (<code>ziosim run --no-plots</code>).</p>')
    elif not plots:
        out.append('<p class="note">No data to plot.</p>')
    else:
        out.append("<ul>" + "".join(f'<li><a href="#{esc(p.file[:-4])}">{esc(p.title)}</a></li>' for p in plots)
                   + "</ul>")
        for p in plots:
            out.append(f'<figure id="{esc(p.file[:-4])}">')
            out.append(p.svg.rstrip("\n"))
            out.append(f'<figcaption>{esc(p.caption)} (<a href="{esc(p.file)}">{esc(p.file)}</a>)</figcaption>')
            out.append("</figure>")
    out += ['<h2 id="tables">Tables</h2>',
            "<p>From <code>summary.json</code>; latencies from the run's fine histograms.</p>",
            _workload_tables(summary, release), _class_table(summary), _leaf_table(summary),
            _scan_table(summary, release),
            "</body>", "</html>"]
    return "\n".join(s for s in out if s) + "\n"

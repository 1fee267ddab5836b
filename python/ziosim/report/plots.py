"""The report's figures, drawn from the results document as SVG (``svg.py``).

``build_plots(results, meta)`` returns every figure the run has data for, in report order:

* ``latency-heatmap-<workload>.svg`` — per workload, x = report interval, y = log2 latency
  bucket, shade = operations completed in that interval with a latency in that bucket
  (``series.workloads[].latency_log2``), with the interval's mean latency drawn on top;
* ``latency-phases-<workload>.svg`` — per workload, when a scan ran: the latency
  histogram before, during and after the scan (``workloads[].by_scan_phase``) as side by
  side bars, each phase normalised to its own operation count;
* ``scan-progress.svg`` — when a scan ran: bytes examined, issued and repaired/resilvered
  from the ``zpool status`` snapshots, the total to examine, the scan's start and end;
* ``disk-busy.svg`` — one heat row per disk: %busy per interval (``busy_ns`` ÷ interval,
  ``iostat -x`` ``%util``), the run's mean at the row's end;
* ``throughput.svg`` — disk-level read and write bytes per second, all disks stacked.

A series value at ``t_ns[k]`` covers ``(t_ns[k] − interval_ns, t_ns[k]]``: columns and steps
span exactly that. Runs with more than ``MAX_COLUMNS`` intervals merge neighbouring
intervals into one column (counts add; %busy and rates are means over the merged time).
Time-series figures need at least one sample: a run that ended before its first report
interval has only the phase histograms (if a scan ran).
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from .summary import SCAN_PHASES
from .svg import (
    SERIES_STYLES,
    SHADES,
    Figure,
    bucket_label,
    byte_ticks,
    esc,
    fmt_bytes,
    fmt_duration,
    fmt_pct,
    fmt_rate,
    fmt_time,
    linear_ticks,
    shade_bounds,
    shade_level,
    size_tick_label,
    time_ticks,
)

__all__ = ["Plot", "build_plots", "identity_line", "MAX_COLUMNS"]

#: At most this many columns per time-series figure; longer runs merge intervals.
MAX_COLUMNS = 480
BUCKETS = 64


class Plot(NamedTuple):
    file: str      # file name in the output directory
    title: str
    caption: str   # one or two sentences for report.html
    svg: str


def identity_line(results: dict, meta: dict) -> str:
    return (f"ziosim {meta.get('version')}, {meta.get('release')}, seed {meta.get('seed')}, "
            f"scenario {meta.get('name')} ({meta.get('scenario_hash')}), digest {results.get('digest')}")


def _slug(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_-]+", "-", str(name)).strip("-") or "workload"
    slug, k = base, 2
    while slug in taken:
        slug, k = f"{base}-{k}", k + 1
    taken.add(slug)
    return slug


# ----------------------------------------------------------------------------- columns


class _Col(NamedTuple):
    start_ns: int
    end_ns: int
    first: int   # first interval index
    last: int    # last interval index (inclusive)


def _columns(results: dict) -> list[_Col]:
    series = results.get("series") or {}
    t = [int(v) for v in series.get("t_ns", [])]
    if not t:
        return []
    interval = int(series.get("interval_ns") or t[0])
    per = max(1, math.ceil(len(t) / MAX_COLUMNS))
    cols = []
    for first in range(0, len(t), per):
        last = min(first + per, len(t)) - 1
        start = t[first] - interval if first == 0 else t[first - 1]
        cols.append(_Col(max(0, start), t[last], first, last))
    return cols


def _col_sum(values: list, col: _Col) -> float:
    return sum(values[col.first:col.last + 1]) if values else 0


def _span(col: _Col) -> str:
    return f"{fmt_time(col.start_ns)}-{fmt_time(col.end_ns)}"


def _time_axis(fig: Figure, end_ns: int) -> None:
    fig.set_x(0, end_ns)
    fig.x_axis([(v, fmt_time(v)) for v in time_ticks(end_ns)], "simulated time")


def _end_ns(results: dict, cols: list[_Col]) -> int:
    return max(int(results.get("sim_time_ns") or 0), cols[-1].end_ns if cols else 1, 1)


def _scan_marks(fig: Figure, results: dict) -> None:
    """Dashed vertical lines where the scan started and (if it did) ended."""
    sc = results.get("scan")
    if not sc:
        return
    func = sc.get("func", "scan")
    start = int(sc.get("start_ns", 0))
    fig.vline(start, f"{func} start {fmt_time(start)}")
    state = sc.get("state")
    if state in ("finished", "canceled"):
        end = int(sc.get("end_ns", 0))
        word = "end" if state == "finished" else "canceled"
        fig.vline(end, f"{func} {word} {fmt_time(end)}", dash="1 2", right=False)


# ----------------------------------------------------------------------------- heat map


def _interval_hists(ws: dict) -> list[list[int]] | None:
    """Full 64-bucket histograms per interval from the compact series form."""
    if "latency_log2" not in ws:
        return None
    los = ws.get("latency_log2_lo") or [0] * len(ws["latency_log2"])
    out = []
    for lo, counts in zip(los, ws["latency_log2"]):
        h = [0] * BUCKETS
        for i, c in enumerate(counts):
            if 0 <= lo + i < BUCKETS:
                h[lo + i] += int(c)
        out.append(h)
    return out


def _heatmap(results: dict, meta: dict, j: int, slug: str) -> Plot | None:
    cols = _columns(results)
    wl = results["workloads"][j]
    ws = (results.get("series") or {}).get("workloads", [])
    if not cols or j >= len(ws):
        return None
    hists = _interval_hists(ws[j])
    if hists is None:
        return None
    name = wl["name"]
    grid = [[sum(h[b] for h in hists[c.first:c.last + 1]) for b in range(BUCKETS)] for c in cols]
    used = [b for b in range(BUCKETS) if any(g[b] for g in grid)]
    title = f"Latency heat map: {name}"
    ident = identity_line(results, meta)
    end_ns = _end_ns(results, cols)
    if not used:
        fig = Figure(f"heatmap-{slug}", title, ident, height=220, left=110)
        _time_axis(fig, end_ns)
        fig.message("no operations completed")
        return Plot(f"latency-heatmap-{slug}.svg", title, f"{name} completed no operations.", fig.render())
    bmin, bmax = used[0], used[-1]
    nrows = bmax - bmin + 1
    row_h = 16 if nrows <= 16 else 12 if nrows <= 30 else 8
    row_h = max(row_h, math.ceil(Figure.legend_height(len(SHADES) + 2) / nrows))
    fig = Figure(f"heatmap-{slug}", title, ident, height=40 + nrows * row_h + 56, left=110, right=170)
    _time_axis(fig, end_ns)
    fig.set_y(bmin, bmax + 1)
    vmax = max(max(g) for g in grid)
    cells = ['<g class="heatmap">']
    # Thin white edges keep neighbouring cells of one shade apart, where columns are wide
    # enough for them.
    edge = "#ffffff" if fig.x(cols[0].end_ns) - fig.x(cols[0].start_ns) >= 6 else None
    for c, g in zip(cols, grid):
        total = sum(g)
        x0, x1 = fig.x(c.start_ns), fig.x(c.end_ns)
        cells.append(f'<g class="col" data-t-ns="{c.end_ns}">')
        for b in range(bmin, bmax + 1):
            if not g[b]:
                continue
            shade = SHADES[shade_level(g[b], vmax)]
            tip = f"{_span(c)} {bucket_label(b)}: {g[b]} ops ({fmt_pct(g[b] / total)})"
            cells.append(fig.rect(x0, fig.y(b + 1), x1 - x0, fig.y(b) - fig.y(b + 1), shade, tip,
                                  stroke=edge, cls="cell"))
        cells.append("</g>")
    cells.append("</g>")
    fig.add("".join(cells))
    fig.baseline()
    step = 1 if nrows <= 24 else 2
    fig.add('<g class="axis y-axis">' + "".join(
        f'<text x="{fig.x0 - 6:.1f}" y="{(fig.y(b) + fig.y(b + 1)) / 2 + 4:.1f}" text-anchor="end" '
        f'font-size="10">{esc(bucket_label(b))}</text>'
        for b in range(bmin, bmax + 1) if (b - bmin) % step == 0) + "</g>")
    fig.add(f'<text x="14" y="{(fig.y0 + fig.y1) / 2:.1f}" text-anchor="middle" '
            f'transform="rotate(-90 14 {(fig.y0 + fig.y1) / 2:.1f})">latency (log2 bucket)</text>')
    # The mean latency of each interval, on the same log2 scale.
    sums = ws[j].get("latency_ns_sum") or []
    ops = ws[j].get("ops") or []
    mean_pts, tips = [], []
    for c in cols:
        n = _col_sum(ops, c)
        if n and sums:
            mean = _col_sum(sums, c) / n
            mean_pts.append(((c.start_ns + c.end_ns) / 2, min(max(math.log2(max(mean, 1)), bmin), bmax + 1)))
            tips.append(f"{_span(c)} mean {fmt_duration(mean)} over {n} ops")
    style = SERIES_STYLES[1]
    if mean_pts:
        fig.line("mean", style, mean_pts, tips)
    _scan_marks(fig, results)
    legend = [(fig.line_swatch(style), "interval mean")] if mean_pts else []
    legend.append(("", "ops per cell:"))
    for k, (lo, hi) in enumerate(shade_bounds(vmax)):
        a, b = math.floor(lo) + 1, math.floor(hi)
        if b < a:
            continue
        legend.append((f'<rect width="16" height="10" fill="{SHADES[k]}" stroke="#999999"/>',
                       f"{a}" if a == b else f"{a}-{b}"))
    fig.legend(legend)
    interval = fmt_time(int(results["series"]["interval_ns"]) * (cols[0].last - cols[0].first + 1))
    caption = (f"Operations of {name} completed in each {interval} column, by latency bucket "
               f"(darker = more, log scale); the dashed line is the column's mean latency.")
    return Plot(f"latency-heatmap-{slug}.svg", title, caption, fig.render())


# ----------------------------------------------------------------------------- phases


def _phase_histogram(results: dict, meta: dict, j: int, slug: str) -> Plot | None:
    wl = results["workloads"][j]
    phases = wl.get("by_scan_phase")
    if not phases:
        return None
    name = wl["name"]
    hists = {p: [int(v) for v in (phases.get(p) or {}).get("latency_log2", [])] for p in SCAN_PHASES}
    used = sorted({b for h in hists.values() for b, v in enumerate(h) if v})
    title = f"Latency before, during and after the scan: {name}"
    ident = identity_line(results, meta)
    fig = Figure(f"phases-{slug}", title, ident, height=340, bottom=96, right=210)
    if not used:
        fig.message("no operations completed")
        return Plot(f"latency-phases-{slug}.svg", title, f"{name} completed no operations.", fig.render())
    bmin, bmax = used[0], used[-1]
    ngroups = bmax - bmin + 1
    fig.set_x(0, ngroups)
    fracs = {p: [v / sum(h) if sum(h) else 0.0 for v in h] for p, h in hists.items()}
    top = max(max(f[bmin:bmax + 1]) for f in fracs.values())
    ticks = linear_ticks(top)
    fig.set_y(0, ticks[-1])
    fig.y_axis([(v, fmt_pct(v)) for v in ticks], "share of the phase's operations")
    fig.x_axis([(k + 0.5, bucket_label(bmin + k)) for k in range(ngroups)], "latency (log2 bucket)",
               grid=False, rotate=True)
    bar_w = (fig.x(1) - fig.x(0)) * 0.8 / 3
    legend = []
    for s, p in enumerate(SCAN_PHASES):
        style = SERIES_STYLES[s]
        fill = fig.pattern(style)
        ph = phases.get(p) or {}
        n = int(ph.get("ops", 0))
        parts = [f'<g class="series" data-series="{p}">']
        for k in range(ngroups):
            b = bmin + k
            v = hists[p][b] if b < len(hists[p]) else 0
            if not v:
                continue
            x = fig.x(k) + (fig.x(1) - fig.x(0)) * 0.1 + s * bar_w
            y = fig.y(fracs[p][b])
            tip = f"{p} the scan {bucket_label(b)}: {v} ops ({fmt_pct(fracs[p][b])})"
            parts.append(fig.rect(x, y, bar_w, fig.y0 - y, fill, tip, stroke=style.color, cls="bar"))
        parts.append("</g>")
        fig.add("".join(parts))
        p99 = (ph.get("latency_ns") or {}).get("p99", 0)
        label = f"{p}: {n} ops, p99 {fmt_duration(p99)}" if n else f"{p}: no operations"
        legend.append((fig.fill_swatch(style), label))
    fig.legend(legend)
    caption = (f"Latency histogram of {name} for operations that ended before, during and after "
               f"the scan; each phase's bars add up to 100 % of that phase's operations.")
    return Plot(f"latency-phases-{slug}.svg", title, caption, fig.render())


# ----------------------------------------------------------------------------- scan


def _scan_progress(results: dict, meta: dict) -> Plot | None:
    sc = results.get("scan")
    snaps = (results.get("status") or {}).get("snapshots") or []
    if not sc or not snaps:
        return None
    func = sc.get("func", "scan")
    done_word = "repaired" if func == "scrub" else "resilvered"
    keys = (("examined", "examined (scanned)"), ("issued", "issued"), ("processed", done_word))
    start = int(sc.get("start_ns", 0))
    pts: dict[str, list[tuple[float, float]]] = {k: [] for k, _ in keys}
    to_examine = 0
    for snap in snaps:
        s = snap.get("scan") or {}
        if s.get("func", "none") == "none":
            continue
        t = int(snap.get("t_ns", 0))
        to_examine = max(to_examine, int(s.get("to_examine", 0)))
        for k, _ in keys:
            if not pts[k] and t > start:
                pts[k].append((start, 0))
            pts[k].append((t, int(s.get(k, 0))))
    title = f"{func.capitalize()} progress"
    fig = Figure("scan-progress", title, identity_line(results, meta), right=190)
    end_ns = max(int(results.get("sim_time_ns") or 0), 1)
    _time_axis(fig, end_ns)
    hi = max([to_examine] + [v for p in pts.values() for _, v in p] + [1])
    ticks = byte_ticks(hi)
    fig.set_y(0, ticks[-1])
    fig.y_axis([(v, size_tick_label(v)) for v in ticks], "bytes")
    legend = []
    if to_examine:
        y = fig.y(to_examine)
        fig.add(f'<g class="series" data-series="to_examine"><line x1="{fig.x0:.1f}" y1="{y:.1f}" '
                f'x2="{fig.x1:.1f}" y2="{y:.1f}" stroke="#555555" stroke-width="1.5" stroke-dasharray="8 2 2 2"/>'
                f"<title>to examine {esc(fmt_bytes(to_examine))}</title></g>")
        legend.append(('<line x1="0" y1="5" x2="16" y2="5" stroke="#555555" stroke-width="1.5" '
                       'stroke-dasharray="8 2 2 2"/>', f"to examine {fmt_bytes(to_examine)}"))
    for s, (k, label) in enumerate(keys):
        style = SERIES_STYLES[s]
        tips = [f"{fmt_time(int(t))}: {label} {fmt_bytes(v)}" for t, v in pts[k]]
        fig.line(k, style, pts[k], tips)
        last = pts[k][-1][1] if pts[k] else 0
        legend.append((fig.line_swatch(style), f"{label} {fmt_bytes(last)}"))
    if not any(pts.values()):
        fig.message("no status snapshot while the scan ran")
    _scan_marks(fig, results)
    fig.legend(legend)
    state = sc.get("state")
    mean = sc.get("issued_bytes_per_s")  # null for a scan that ran no time at all
    rate = "" if mean is None else f", issued at {fmt_rate(float(mean))} on average"
    caption = (f"Bytes the {func} examined, issued and {done_word}, from the `zpool status` snapshot of "
               f"each report interval; {state} at the end of the run{rate}.")
    return Plot("scan-progress.svg", title, caption, fig.render())


# ----------------------------------------------------------------------------- disks


def _disk_busy(results: dict, meta: dict) -> Plot | None:
    cols = _columns(results)
    leaves = results.get("leaves") or []
    ls = (results.get("series") or {}).get("leaves") or []
    if not cols or not leaves or not ls:
        return None
    n = min(len(leaves), len(ls))
    row_h = 18 if n <= 16 else 12
    row_h = max(row_h, math.ceil(Figure.legend_height(len(SHADES) + 1) / n))
    title = "Disk utilisation (%busy)"
    fig = Figure("disk-busy", title, identity_line(results, meta), height=40 + n * row_h + 56,
                 left=90, right=190)
    end_ns = _end_ns(results, cols)
    _time_axis(fig, end_ns)
    fig.set_y(0, n)
    parts = ['<g class="heatmap">']
    labels = ['<g class="axis y-axis">']
    edge = "#ffffff" if fig.x(cols[0].end_ns) - fig.x(cols[0].start_ns) >= 6 else None
    for i in range(n):
        busy = ls[i].get("busy_ns") or []
        y_top, y_bot = fig.y(n - i), fig.y(n - i - 1)
        name = leaves[i]["name"]
        parts.append(f'<g class="row" data-leaf="{esc(name)}">')
        for c in cols:
            span = c.end_ns - c.start_ns
            frac = min(1.0, _col_sum(busy, c) / span) if span > 0 else 0.0
            x0, x1 = fig.x(c.start_ns), fig.x(c.end_ns)
            if frac > 0:
                level = shade_level(frac, 1.0, log=False)
                parts.append(fig.rect(x0, y_top, x1 - x0, y_bot - y_top, SHADES[level],
                                      f"{name} {_span(c)}: {fmt_pct(frac)} busy", stroke=edge, cls="cell"))
            if x1 - x0 >= 30:
                color = "#ffffff" if frac > 0 and shade_level(frac, 1.0, log=False) >= 4 else "#000000"
                parts.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{(y_top + y_bot) / 2 + 3.5:.1f}" '
                             f'text-anchor="middle" font-size="9" fill="{color}">{frac * 100:.0f}</text>')
        parts.append("</g>")
        labels.append(f'<text x="{fig.x0 - 6:.1f}" y="{(y_top + y_bot) / 2 + 4:.1f}" text-anchor="end">'
                      f"{esc(name)}</text>")
        total_busy = sum(busy)
        total_ns = sum(c.end_ns - c.start_ns for c in cols)
        mean = total_busy / total_ns if total_ns else 0.0
        labels.append(f'<text x="{fig.x1 + 6:.1f}" y="{(y_top + y_bot) / 2 + 4:.1f}" font-size="10">'
                      f"avg {esc(fmt_pct(mean))}</text>")
    parts.append("</g>")
    labels.append("</g>")
    fig.add(f'<rect x="{fig.x0:.1f}" y="{fig.y1:.1f}" width="{fig.x1 - fig.x0:.1f}" height="{fig.y0 - fig.y1:.1f}" '
            f'fill="none" stroke="#999999"/>')
    fig.add("".join(parts))
    fig.add("".join(labels))
    fig.baseline()
    _scan_marks(fig, results)
    legend = [("", "%busy per cell:")]
    for k in range(len(SHADES)):
        lo, hi = 100 * k / len(SHADES), 100 * (k + 1) / len(SHADES)
        legend.append((f'<rect width="16" height="10" fill="{SHADES[k]}" stroke="#999999"/>',
                       f"{lo:g}-{hi:g}%"))
    fig.legend(legend, x=fig.x1 + 62)
    caption = ("Share of each interval in which the disk had at least one command outstanding "
               "(`iostat -x` %util), one row per disk; numbers in the cells are percent.")
    return Plot("disk-busy.svg", title, caption, fig.render())


def _step_points(cols: list[_Col], values: list[float]) -> list[tuple[float, float]]:
    pts = []
    for c, v in zip(cols, values):
        pts.append((c.start_ns, v))
        pts.append((c.end_ns, v))
    return pts


def _throughput(results: dict, meta: dict) -> Plot | None:
    cols = _columns(results)
    ls = (results.get("series") or {}).get("leaves") or []
    if not cols or not ls:
        return None
    reads, writes = [], []
    for c in cols:
        secs = (c.end_ns - c.start_ns) / 1e9 or 1.0
        reads.append(sum(_col_sum(s.get("read_bytes") or [], c) for s in ls) / secs)
        writes.append(sum(_col_sum(s.get("write_bytes") or [], c) for s in ls) / secs)
    title = "Disk throughput, all disks"
    fig = Figure("throughput", title, identity_line(results, meta), right=170)
    _time_axis(fig, _end_ns(results, cols))
    hi = max([r + w for r, w in zip(reads, writes)] + [1])
    ticks = byte_ticks(hi)
    fig.set_y(0, ticks[-1])
    fig.y_axis([(v, size_tick_label(v) + "/s") for v in ticks], "bytes per second")
    stacks = (("read", reads, [0.0] * len(cols)), ("write", [r + w for r, w in zip(reads, writes)], reads))
    legend = []
    for s, (label, upper, lower) in enumerate(stacks):
        style = SERIES_STYLES[s]
        top = _step_points(cols, upper)
        bottom = list(reversed(_step_points(cols, lower)))
        poly = " ".join(f"{fig.x(a):.1f},{fig.y(b):.1f}" for a, b in top + bottom)
        dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        fig.add(f'<g class="series" data-series="{label}"><polygon points="{poly}" fill="{fig.pattern(style)}" '
                f'fill-opacity="0.85"/><polyline points="{" ".join(f"{fig.x(a):.1f},{fig.y(b):.1f}" for a, b in top)}" '
                f'fill="none" stroke="{style.color}" stroke-width="1.5"{dash}/></g>')
        mean = sum(v - lw for v, lw in zip(upper, lower)) / len(cols)
        legend.append((fig.fill_swatch(style), f"{label}, mean {fmt_rate(mean)}"))
    tips = ['<g class="tips">']
    for c, r, w in zip(cols, reads, writes):
        x0, x1 = fig.x(c.start_ns), fig.x(c.end_ns)
        tips.append(f'<rect x="{x0:.1f}" y="{fig.y1:.1f}" width="{x1 - x0:.1f}" height="{fig.y0 - fig.y1:.1f}" '
                    f'fill="#ffffff" fill-opacity="0"><title>{esc(_span(c))}: read {esc(fmt_rate(r))}, '
                    f"write {esc(fmt_rate(w))}</title></rect>")
    tips.append("</g>")
    fig.add("".join(tips))
    _scan_marks(fig, results)
    fig.legend(legend)
    caption = ("Bytes read and written by the disks per second, summed over every disk and stacked "
               "(read below, write on top); scan and parity I/O included.")
    return Plot("throughput.svg", title, caption, fig.render())


# ----------------------------------------------------------------------------- all


def build_plots(results: dict, meta: dict) -> list[Plot]:
    """Every figure the results have data for, in report order."""
    out: list[Plot | None] = []
    taken: set[str] = set()
    slugs = [_slug(w["name"], taken) for w in results.get("workloads", [])]
    for j, slug in enumerate(slugs):
        out.append(_heatmap(results, meta, j, slug))
        out.append(_phase_histogram(results, meta, j, slug))
    out.append(_scan_progress(results, meta))
    out.append(_disk_busy(results, meta))
    out.append(_throughput(results, meta))
    return [p for p in out if p is not None]

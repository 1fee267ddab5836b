"""A small, dependency-free SVG plotter for the report's figures.

Everything here is deterministic: coordinates are printed with one decimal (``_n``), ids
are derived from the figure's slug (so several figures can sit inline in one HTML page
without clashing), and nothing depends on time, randomness or dict order.

Readable without colour: series differ by dash pattern, marker and fill pattern as well
as by hue (the Okabe–Ito colour-blind-safe palette); shades of a heat map run through one
hue from light to dark, so they order correctly in grey; labels name what lines show.
Every data mark carries a ``<title>`` (a browser tooltip, no script needed).

Units follow the tools ziosim imitates:

* sizes and rates base 1024 as ZFS prints them (``zfs_nicebytes``: ``43.5M``, ``43.5M/s``);
* durations with three significant digits (``2.98ms``, as fio and ``ziosim summary``);
* log2 latency buckets as half-open ranges of ``zfs_nicetime`` bounds (``[262us, 524us)``),
  the row labels of ``zpool iostat -w``; bucket 0 is ``[0, 2ns)`` because it also holds 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from .nicenum import zfs_nicebytes, zfs_nicenum, zfs_nicetime
from .summary import human_ns

__all__ = [
    "Figure", "Style", "SERIES_STYLES", "SHADES", "esc", "bucket_label", "bucket_lo_label",
    "fmt_bytes", "fmt_rate", "fmt_duration", "fmt_time", "fmt_pct", "linear_ticks",
    "byte_ticks", "time_ticks", "shade_level",
]

# ----------------------------------------------------------------------------- text


def esc(text: object) -> str:
    """XML-escape text and attribute values (both quotes, so either quoting is safe)."""
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def _n(x: float) -> str:
    """A coordinate: one decimal, no ``-0``, no trailing ``.0``."""
    text = f"{round(float(x), 1):.1f}"
    if text == "-0.0":
        text = "0.0"
    return text[:-2] if text.endswith(".0") else text


# ----------------------------------------------------------------------------- units


def fmt_bytes(n: float) -> str:
    """Base-1024 bytes as ``zpool status`` prints them: ``0B``, ``512B``, ``43.5M``."""
    return zfs_nicebytes(n)


def fmt_rate(bytes_per_s: float) -> str:
    """A byte rate: ``43.5M/s``."""
    return zfs_nicebytes(bytes_per_s) + "/s"


def fmt_duration(ns: float) -> str:
    """A latency with three significant digits: ``40.1us``, ``2.98ms``."""
    return human_ns(ns)


def fmt_time(ns: int) -> str:
    """A point in simulated time: ``0s``, ``45s``, ``1.50s``, ``1m30s``, ``2h05m``; from a
    minute on, to the nearest second."""
    ns = int(ns)
    if ns % 1_000_000_000 and ns < 60_000_000_000:
        return human_ns(ns)
    s = (ns + 500_000_000) // 1_000_000_000
    if s < 60:
        return f"{s}s"
    if s < 3600:
        m, sec = divmod(s, 60)
        return f"{m}m" if sec == 0 else f"{m}m{sec:02d}s"
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}h" + (f"{m:02d}m" if m or sec else "") + (f"{sec:02d}s" if sec else "")


def fmt_pct(fraction: float) -> str:
    """A fraction as a percentage with at most one decimal: ``12.5%``, ``100%``."""
    text = f"{fraction * 100:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


def bucket_lo_label(i: int) -> str:
    """The lower bound of log2 latency bucket ``i`` as ``zpool iostat -w`` prints it."""
    return "0" if i == 0 else zfs_nicetime(1 << i)


def bucket_label(i: int) -> str:
    """Log2 latency bucket ``i`` as a half-open range: ``[262us, 524us)``, ``[0, 2ns)``."""
    return f"[{bucket_lo_label(i)}, {zfs_nicetime(1 << (i + 1))})"


# ----------------------------------------------------------------------------- ticks


def linear_ticks(hi: float, target: int = 5) -> list[float]:
    """0 and multiples of a 1-2-5 step up to the first one ≥ ``hi`` (``hi`` > 0)."""
    if hi <= 0:
        return [0.0, 1.0]
    raw = hi / target
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    count = math.ceil(hi / step - 1e-9)
    return [round(k * step, 10) for k in range(count + 1)]


def byte_ticks(hi: float, target: int = 5) -> list[float]:
    """Ticks for a byte axis: a 1-2-5 series in the base-1024 unit of ``hi`` (K, M, G…),
    so that every label is a round ZFS number (``20M``, ``1.5G``)."""
    if hi <= 0:
        return [0.0, 1024.0]
    unit = 1024 ** max(0, min(6, int(math.log(hi, 1024)) if hi >= 1 else 0))
    ticks = linear_ticks(hi / unit, target)
    if hi / unit >= 2 and ticks[1] < 1:
        # Whole units where they give enough ticks: 0, 1T, 2T, 3T rather than 0, 512G, 1T, 1.50T.
        ticks = [float(k) for k in range(math.ceil(hi / unit - 1e-9) + 1)]
    return [t * unit for t in ticks]


_TIME_STEPS_NS = tuple(m * 10**e for e in range(9) for m in (1, 2, 5)) + tuple(
    s * 1_000_000_000 for s in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200,
                                10800, 21600, 43200, 86400))


def time_ticks(hi_ns: int, target: int = 8) -> list[int]:
    """Ticks for a simulated-time axis from 0 to ``hi_ns``: a 1-2-5 series below a second,
    then whole seconds, minutes and hours; at most about ``target`` of them."""
    hi_ns = max(int(hi_ns), 1)
    step = next((s for s in _TIME_STEPS_NS if hi_ns / s <= target), None)
    if step is None:
        step = 86400 * 1_000_000_000 * math.ceil(hi_ns / (86400e9 * target))
    return [k * step for k in range(hi_ns // step + 1)]


# ----------------------------------------------------------------------------- styles


class Style:
    """How a series looks: stroke colour, dash array, marker shape and fill pattern."""

    __slots__ = ("name", "color", "dash", "marker", "fill")

    def __init__(self, name: str, color: str, dash: str, marker: str, fill: str) -> None:
        self.name, self.color, self.dash, self.marker, self.fill = name, color, dash, marker, fill


#: Series styles in order of use; each differs from the others without its colour too.
SERIES_STYLES: tuple[Style, ...] = (
    Style("s0", "#0072B2", "", "circle", "solid"),
    Style("s1", "#D55E00", "6 3", "square", "hatch"),
    Style("s2", "#009E73", "2 2", "triangle", "dots"),
    Style("s3", "#CC79A7", "8 3 2 3", "diamond", "cross"),
    Style("s4", "#E69F00", "1 3", "circle", "vlines"),
    Style("s5", "#56B4E9", "10 4", "square", "hlines"),
)

#: Heat-map shades, light to dark in one hue (ColorBrewer "Blues"): monotone in lightness.
SHADES: tuple[str, ...] = ("#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6",
                           "#2171b5", "#08519c", "#08306b")


def shade_level(value: float, vmax: float, levels: int = len(SHADES), log: bool = True) -> int:
    """Shade index 0..levels-1 for ``value`` in (0, vmax]; log scale by default, since
    latency counts span orders of magnitude."""
    if vmax <= 0 or value <= 0:
        return 0
    frac = math.log1p(value) / math.log1p(vmax) if log else value / vmax
    return min(levels - 1, max(0, math.ceil(frac * levels) - 1))


def shade_bounds(vmax: float, levels: int = len(SHADES), log: bool = True) -> list[tuple[float, float]]:
    """The value range (lo, hi] each shade stands for, for the legend."""
    out = []
    for k in range(levels):
        if log:
            lo = math.expm1(math.log1p(vmax) * k / levels)
            hi = math.expm1(math.log1p(vmax) * (k + 1) / levels)
        else:
            lo, hi = vmax * k / levels, vmax * (k + 1) / levels
        out.append((lo, hi))
    return out


# ----------------------------------------------------------------------------- figure


class Figure:
    """One SVG figure: a plot area with linear x and y scales, axes, marks and a legend.

    ``slug`` names the figure (file name stem and id prefix); ``identity`` is the line
    naming ziosim version, release, seed and scenario, printed small at the bottom and
    kept in ``<desc>`` so a saved SVG says where it came from.
    """

    FONT = 11

    def __init__(self, slug: str, title: str, identity: str, width: int = 760, height: int = 320,
                 left: int = 72, right: int = 150, top: int = 40, bottom: int = 56) -> None:
        self.slug, self.title, self.identity = slug, title, identity
        self.width, self.height = width, height
        self.left, self.right, self.top, self.bottom = left, right, top, bottom
        self.x0, self.x1 = float(left), float(width - right)
        self.y0, self.y1 = float(height - bottom), float(top)  # y0 is the bottom
        self.xlo, self.xhi, self.ylo, self.yhi = 0.0, 1.0, 0.0, 1.0
        self.defs: list[str] = []
        self._patterns: set[str] = set()
        self.body: list[str] = []
        self.legend_items: list[tuple[str, str]] = []

    # -- scales

    def set_x(self, lo: float, hi: float) -> None:
        self.xlo, self.xhi = float(lo), float(hi if hi > lo else lo + 1)

    def set_y(self, lo: float, hi: float) -> None:
        self.ylo, self.yhi = float(lo), float(hi if hi > lo else lo + 1)

    def x(self, v: float) -> float:
        return self.x0 + (float(v) - self.xlo) / (self.xhi - self.xlo) * (self.x1 - self.x0)

    def y(self, v: float) -> float:
        return self.y0 - (float(v) - self.ylo) / (self.yhi - self.ylo) * (self.y0 - self.y1)

    # -- building blocks

    def add(self, element: str) -> None:
        self.body.append(element)

    def pattern(self, style: Style) -> str:
        """The fill for ``style``: a solid colour or a pattern id of this figure."""
        if style.fill == "solid":
            return style.color
        pid = f"{self.slug}-{style.name}-{style.fill}"
        if pid not in self._patterns:
            self._patterns.add(pid)
            c = style.color
            inner = {
                "hatch": f'<path d="M0,6 L6,0 M-1,1 L1,-1 M5,7 L7,5" stroke="{c}" stroke-width="1.5"/>',
                "dots": f'<circle cx="3" cy="3" r="1.4" fill="{c}"/>',
                "cross": f'<path d="M0,0 L6,6 M6,0 L0,6" stroke="{c}" stroke-width="1"/>',
                "vlines": f'<path d="M3,0 L3,6" stroke="{c}" stroke-width="1.5"/>',
                "hlines": f'<path d="M0,3 L6,3" stroke="{c}" stroke-width="1.5"/>',
            }[style.fill]
            self.defs.append(
                f'<pattern id="{pid}" width="6" height="6" patternUnits="userSpaceOnUse">'
                f'<rect width="6" height="6" fill="#ffffff"/>{inner}</pattern>')
        return f"url(#{pid})"

    def text(self, x: float, y: float, text: str, anchor: str = "start", size: int | None = None,
             cls: str = "", rotate: float | None = None, bold: bool = False) -> None:
        attrs = f'x="{_n(x)}" y="{_n(y)}"'
        if anchor != "start":
            attrs += f' text-anchor="{anchor}"'
        if size:
            attrs += f' font-size="{size}"'
        if bold:
            attrs += ' font-weight="bold"'
        if cls:
            attrs += f' class="{cls}"'
        if rotate is not None:
            attrs += f' transform="rotate({_n(rotate)} {_n(x)} {_n(y)})"'
        self.add(f"<text {attrs}>{esc(text)}</text>")

    def x_axis(self, ticks: Iterable[tuple[float, str]], label: str, grid: bool = True,
               rotate: bool = False) -> None:
        parts = ['<g class="axis x-axis">',
                 f'<line x1="{_n(self.x0)}" y1="{_n(self.y0)}" x2="{_n(self.x1)}" y2="{_n(self.y0)}" stroke="#000000"/>']
        for v, text in ticks:
            px = self.x(v)
            if grid:
                parts.append(f'<line x1="{_n(px)}" y1="{_n(self.y1)}" x2="{_n(px)}" y2="{_n(self.y0)}" '
                             'stroke="#dddddd"/>')
            parts.append(f'<line x1="{_n(px)}" y1="{_n(self.y0)}" x2="{_n(px)}" y2="{_n(self.y0 + 4)}" stroke="#000000"/>')
            if rotate:
                ty = self.y0 + 10
                parts.append(f'<text x="{_n(px)}" y="{_n(ty)}" text-anchor="end" font-size="9" '
                             f'transform="rotate(-40 {_n(px)} {_n(ty)})">{esc(text)}</text>')
            else:
                parts.append(f'<text x="{_n(px)}" y="{_n(self.y0 + 16)}" text-anchor="middle">{esc(text)}</text>')
        parts.append(f'<text x="{_n((self.x0 + self.x1) / 2)}" y="{_n(self.height - 20)}" '
                     f'text-anchor="middle">{esc(label)}</text>')
        parts.append("</g>")
        self.add("".join(parts))

    def baseline(self) -> None:
        """The x axis line again, over marks drawn after the axes (heat-map cells)."""
        self.add(f'<line x1="{_n(self.x0)}" y1="{_n(self.y0)}" x2="{_n(self.x1)}" y2="{_n(self.y0)}" '
                 'stroke="#000000"/>')

    def y_axis(self, ticks: Iterable[tuple[float, str]], label: str, grid: bool = True) -> None:
        parts = ['<g class="axis y-axis">',
                 f'<line x1="{_n(self.x0)}" y1="{_n(self.y0)}" x2="{_n(self.x0)}" y2="{_n(self.y1)}" stroke="#000000"/>']
        for v, text in ticks:
            py = self.y(v)
            if grid:
                parts.append(f'<line x1="{_n(self.x0)}" y1="{_n(py)}" x2="{_n(self.x1)}" y2="{_n(py)}" '
                             'stroke="#dddddd"/>')
            parts.append(f'<line x1="{_n(self.x0 - 4)}" y1="{_n(py)}" x2="{_n(self.x0)}" y2="{_n(py)}" stroke="#000000"/>')
            parts.append(f'<text x="{_n(self.x0 - 6)}" y="{_n(py + 4)}" text-anchor="end">{esc(text)}</text>')
        cy = (self.y0 + self.y1) / 2
        parts.append(f'<text x="14" y="{_n(cy)}" text-anchor="middle" '
                     f'transform="rotate(-90 14 {_n(cy)})">{esc(label)}</text>')
        parts.append("</g>")
        self.add("".join(parts))

    def marker(self, style: Style, px: float, py: float, r: float = 3.0) -> str:
        c = style.color
        if style.marker == "square":
            return (f'<rect x="{_n(px - r)}" y="{_n(py - r)}" width="{_n(2 * r)}" height="{_n(2 * r)}" '
                    f'fill="#ffffff" stroke="{c}"/>')
        if style.marker == "triangle":
            return (f'<path d="M{_n(px)},{_n(py - r - 1)} L{_n(px + r + 1)},{_n(py + r)} '
                    f'L{_n(px - r - 1)},{_n(py + r)} Z" fill="#ffffff" stroke="{c}"/>')
        if style.marker == "diamond":
            return (f'<path d="M{_n(px)},{_n(py - r - 1)} L{_n(px + r + 1)},{_n(py)} L{_n(px)},{_n(py + r + 1)} '
                    f'L{_n(px - r - 1)},{_n(py)} Z" fill="#ffffff" stroke="{c}"/>')
        return f'<circle cx="{_n(px)}" cy="{_n(py)}" r="{_n(r)}" fill="#ffffff" stroke="{c}"/>'

    def line(self, name: str, style: Style, points: Sequence[tuple[float, float]],
             tips: Sequence[str] | None = None, max_markers: int = 60) -> None:
        """A polyline with markers (every point when there are few, else spread out) and
        the series name written at its last point."""
        if not points:
            return
        pts = " ".join(f"{_n(self.x(a))},{_n(self.y(b))}" for a, b in points)
        dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        parts = [f'<g class="series" data-series="{esc(name)}">',
                 f'<polyline points="{pts}" fill="none" stroke="{style.color}" stroke-width="2"{dash}/>']
        every = max(1, math.ceil(len(points) / max_markers))
        for k, (a, b) in enumerate(points):
            if k % every and k != len(points) - 1:
                continue
            m = self.marker(style, self.x(a), self.y(b))
            if tips:
                m = f"<g>{m}<title>{esc(tips[k])}</title></g>"
            parts.append(m)
        parts.append("</g>")
        self.add("".join(parts))

    def vline(self, v: float, label: str, dash: str = "4 3", right: bool = True) -> None:
        """A vertical marker line across the plot area, labelled just above the plot area
        on its right (or, with ``right=False``, its left) side."""
        px = self.x(v)
        tx, anchor = (px + 3, "start") if right else (px - 3, "end")
        self.add(f'<g class="marker"><line x1="{_n(px)}" y1="{_n(self.y1 - 12)}" x2="{_n(px)}" y2="{_n(self.y0)}" '
                 f'stroke="#000000" stroke-width="1.5" stroke-dasharray="{dash}"/>'
                 f'<text x="{_n(tx)}" y="{_n(self.y1 - 4)}" text-anchor="{anchor}" font-size="10">'
                 f'{esc(label)}</text></g>')

    def rect(self, x: float, y: float, w: float, h: float, fill: str, tip: str | None = None,
             stroke: str | None = None, cls: str = "") -> str:
        s = f' stroke="{stroke}" stroke-width="0.8"' if stroke else ""
        c = f' class="{cls}"' if cls else ""
        r = (f'<rect{c} x="{_n(x)}" y="{_n(y)}" width="{_n(max(w, 0))}" height="{_n(max(h, 0))}" '
             f'fill="{fill}"{s}')
        return f"{r}><title>{esc(tip)}</title></rect>" if tip else r + "/>"

    @staticmethod
    def legend_height(n_items: int) -> int:
        """Height a legend of ``n_items`` entries needs (for sizing the plot area)."""
        return 8 + 16 * n_items

    def legend(self, items: Sequence[tuple[str, str]], x: float | None = None) -> None:
        """Legend at the right: ``items`` are (swatch SVG drawn in a 16×10 box at 0,0, label)."""
        x = self.x1 + 12 if x is None else x
        parts = ['<g class="legend">']
        for k, (swatch, label) in enumerate(items):
            y = self.y1 + 4 + 16 * k
            parts.append(f'<g transform="translate({_n(x)} {_n(y)})">{swatch}'
                         f'<text x="21" y="9" font-size="10">{esc(label)}</text></g>')
        parts.append("</g>")
        self.add("".join(parts))

    def line_swatch(self, style: Style) -> str:
        dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        return (f'<line x1="0" y1="5" x2="16" y2="5" stroke="{style.color}" stroke-width="2"{dash}/>'
                + self.marker(style, 8, 5, 2.5))

    def fill_swatch(self, style: Style) -> str:
        return f'<rect width="16" height="10" fill="{self.pattern(style)}" stroke="{style.color}"/>'

    def message(self, text: str) -> None:
        """A line of text in the middle of the plot area (e.g. "no operations")."""
        self.text((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2, text, anchor="middle")

    # -- output

    def render(self) -> str:
        """The whole figure as an SVG document (no XML declaration, so it can be inlined)."""
        w, h = self.width, self.height
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
                f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="{self.FONT}" '
                f'role="img" aria-labelledby="{self.slug}-title {self.slug}-desc" class="ziosim-plot" '
                f'data-plot="{esc(self.slug)}">')
        parts = [head,
                 f'<title id="{self.slug}-title">{esc(self.title)}</title>',
                 f'<desc id="{self.slug}-desc">{esc(self.identity)}</desc>']
        if self.defs:
            parts.append("<defs>" + "".join(self.defs) + "</defs>")
        parts.append(f'<rect width="{w}" height="{h}" fill="#ffffff"/>')
        parts.append(f'<text x="{_n(self.x0)}" y="20" font-size="13" font-weight="bold">{esc(self.title)}</text>')
        parts.extend(self.body)
        parts.append(f'<text x="{w - 6}" y="{h - 5}" text-anchor="end" font-size="9" fill="#555555">'
                     f'{esc(self.identity)}</text>')
        parts.append("</svg>")
        return "\n".join(parts) + "\n"


def size_tick_label(v: float) -> str:
    """A byte tick: ``0``, ``512``, ``20M`` (zfs_nicenum: no B suffix, so labels stay short)."""
    return zfs_nicenum(v)

"""``zpool iostat -v [-l] [-q] [-p]`` text → ``IostatSample``: observed load and waits per
pool, vdev and disk.

Theory of operation
-------------------
Every era prints the same block (spec/zfs-model.md §8.2): two header lines (``capacity
operations bandwidth`` and ``pool alloc free read write read write``), a dashed rule, one
row per pool/vdev/disk with its name indented two spaces per level, and a closing rule.
Values are ``zfs_nicenum`` without a byte suffix (``-p``: exact integers); disks print
``-`` for capacity (``0`` with ``-p``). With an interval the block repeats: the first
sample is the average since the pool was imported, later ones cover one interval each —
the last sample is used, as the freshest picture of the load. Class labels (``logs``,
``cache``, …) sit at the pool's level with ``-`` in every column.

From 0.7, ``-l`` and ``-q`` append column groups, always in that order whatever the
order of the flags (``print_iostat_labels`` walks the flag bits, ZM@zfs-2.2.0); the
group labels of the first header line say which are there, and each release's set
(spec/zfs-model.md §8.3–8.4):

=========  ==============================================  ===========================
release    ``-l`` groups (one column each after the 4th)    ``-q`` groups (pend, activ)
=========  ==============================================  ===========================
0.7        total_wait disk_wait syncq_wait asyncq_wait      syncq_read … scrubq_read
           (read, write each), scrub
0.8–2.1    … scrub trim                                     … scrubq_read trimq_write
2.2+       … scrub trim rebuild                             … trimq_write rebuildq_write
=========  ==============================================  ===========================

A ``-l`` cell is ``single_histo_average`` of the interval's log2 histogram (each I/O
counted at its bucket's midpoint, 1.5 × 2^i ns), printed by ``zfs_nicetime``: a whole
number of ``ns us ms s`` (floored: ``63ms`` is 63 to 64 ms) and ``-`` when no I/O of
that kind was done; with ``-p`` (``ZFS_NICENUM_RAWTIME``) the exact ns, ``-`` again for
none. A figure is read as printed; one table mixing the two forms is refused. ``-q``
cells are instantaneous queue depths (not averages) and are checked, then read past, as
are columns after the known groups (``-c`` script output). ``-w`` and ``-r`` print
histograms instead of this table and are refused, as is an unknown group label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..report.nicenum import zfs_nicetime
from . import STAMP, ImportTextError, Section, parse_number
from .iostat_x import DiskStat
from .zpool_status import CLASS_LABELS

__all__ = ["IostatRow", "IostatSample", "Waits", "parse", "disk_stat", "LATENCY_COLUMNS", "wait_text"]

_GROUPS = re.compile(r"^\s*capacity\s+operations\s+bandwidth\b")
_COLS = re.compile(r"^\s*pool\s+alloc\s+free\s+read\s+write\s+read\s+write\b")
_RULE = re.compile(r"^[\s-]+$")
_HISTO = re.compile(r"^\s*(?:latency|req_size)\s+(?:read|ind)\s+(?:write|agg)\b")
_FLAGS = re.compile(r"\s-([A-Za-z]+)")
_TIME = re.compile(r"(\d+)(ns|us|ms|s)")
_NS_PER = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}

# (header group, bottom labels) of -l and -q, each release's groups a prefix of the next's
_LATENCY_GROUPS = (("total_wait", ("read", "write")), ("disk_wait", ("read", "write")),
                   ("syncq_wait", ("read", "write")), ("asyncq_wait", ("read", "write")),
                   ("scrub", ("wait",)), ("trim", ("wait",)), ("rebuild", ("wait",)))
_QUEUE_GROUPS = tuple((g, ("pend", "activ")) for g in ("syncq_read", "syncq_write", "asyncq_read", "asyncq_write",
                                                       "scrubq_read", "trimq_write", "rebuildq_write"))
_LATENCY_MIN, _QUEUE_MIN = 5, 5  # the groups 0.7 prints; trim and rebuild follow in later releases

# -l columns in print order: (header group, bottom label, Waits field)
LATENCY_COLUMNS = (
    ("total_wait", "read", "total_wait_read_ns"), ("total_wait", "write", "total_wait_write_ns"),
    ("disk_wait", "read", "disk_wait_read_ns"), ("disk_wait", "write", "disk_wait_write_ns"),
    ("syncq_wait", "read", "syncq_wait_read_ns"), ("syncq_wait", "write", "syncq_wait_write_ns"),
    ("asyncq_wait", "read", "asyncq_wait_read_ns"), ("asyncq_wait", "write", "asyncq_wait_write_ns"),
    ("scrub", "wait", "scrub_wait_ns"), ("trim", "wait", "trim_wait_ns"), ("rebuild", "wait", "rebuild_wait_ns"),
)
_DEFAULT_NAMES = ("alloc", "free", "read ops", "write ops", "read bandwidth", "write bandwidth")


@dataclass(frozen=True)
class Waits:
    """A row's ``-l`` columns: mean wait per I/O over the sample, in ns; None where zpool
    printed ``-`` (no such I/O) or the release prints no such column."""

    total_wait_read_ns: int | None = None  # vdev_queue entry → completion
    total_wait_write_ns: int | None = None
    disk_wait_read_ns: int | None = None  # issue to the disk → completion (the drive's own queue included)
    disk_wait_write_ns: int | None = None
    syncq_wait_read_ns: int | None = None  # time queued in vdev_queue, by class
    syncq_wait_write_ns: int | None = None
    asyncq_wait_read_ns: int | None = None
    asyncq_wait_write_ns: int | None = None
    scrub_wait_ns: int | None = None
    trim_wait_ns: int | None = None  # 0.8+
    rebuild_wait_ns: int | None = None  # 2.2+


@dataclass(frozen=True)
class IostatRow:
    name: str
    depth: int
    alloc_bytes: int | None
    free_bytes: int | None
    read_ops_per_s: int
    write_ops_per_s: int
    read_bytes_per_s: int
    write_bytes_per_s: int
    line: int
    is_label: bool = False
    waits: Waits | None = None  # the -l columns; None without -l


@dataclass(frozen=True)
class IostatSample:
    """The last sample of one pool: its own row, then the rows under it."""

    pool: IostatRow
    rows: tuple[IostatRow, ...]
    file: str
    samples: int
    latency_groups: tuple[str, ...] = ()  # the -l groups of the header: ("total_wait", …, "scrub"[, "trim"[, …]])
    queues: bool = False  # -q columns were there (read past)
    parsable: bool = False  # -l figures were raw ns (-p)
    header_line: int = 0  # the first header line of the sample used
    first_line: int = 0  # the section's
    last_line: int = 0

    @property
    def name(self) -> str:
        return self.pool.name

    @property
    def has_latency(self) -> bool:
        return bool(self.latency_groups)

    @property
    def flags(self) -> str:
        """``-v``, ``-vl``, ``-vq``, ``-vlq`` (and ``p``), as the columns show."""
        shown = (("l", self.latency_groups), ("q", self.queues), ("p", self.parsable))
        return "-v" + "".join(f for f, on in shown if on)

    @property
    def layout(self) -> str:
        """The releases that print this -l layout (spec/zfs-model.md §8.3)."""
        return {5: "0.7", 6: "0.8 to 2.1", 7: "2.2 and later"}.get(len(self.latency_groups), "")

    def data_leaves(self) -> list[IostatRow]:
        """The disks of the data vdevs: rows with nothing under them, before any class label."""
        out = []
        for i, r in enumerate(self.rows):
            if r.is_label:
                break
            nxt = self.rows[i + 1] if i + 1 < len(self.rows) else None
            if nxt is None or nxt.is_label or nxt.depth <= r.depth:
                out.append(r)
        return out


def wait_text(ns: int | None) -> str:
    """A wait as ``zfs_nicetime`` prints it (``63ms``, ``-``), whatever form it was read in."""
    return zfs_nicetime(ns or 0)


def disk_stat(row: IostatRow) -> DiskStat:
    """A disk's row as ``iostat_x``'s straggler rule reads one: read ``disk_wait`` is the
    time compared, at the row's read ops/s; no %busy and no queue length, so only the
    rule's *slow* test applies and no queueing is taken out (``iostat_x.device_service_ms``
    keeps the figure as printed)."""
    w = row.waits or Waits()

    def ms(ns: int | None) -> float | None:
        return None if ns is None else ns / 1e6

    read_ms = ms(w.disk_wait_read_ns)
    return DiskStat(row.name, float(row.read_ops_per_s), float(row.write_ops_per_s), float(row.read_bytes_per_s),
                    float(row.write_bytes_per_s), read_ms, ms(w.disk_wait_write_ns), None, None, None, read_ms,
                    float(row.read_ops_per_s), row.line)


# ----------------------------------------------------------------------------- the header


@dataclass
class _Layout:
    latency: tuple[str, ...] = ()
    queues: int = 0  # -q groups
    line: int = 0

    @property
    def columns(self) -> int:
        return 6 + sum(len(b) for g, b in _LATENCY_GROUPS if g in self.latency) + 2 * self.queues

    def bottom(self) -> list[str]:
        return (["alloc", "free", "read", "write", "read", "write"]
                + [b for g, bs in _LATENCY_GROUPS if g in self.latency for b in bs]
                + ["pend", "activ"] * self.queues)


_GROUPS_ALLOWED = ("the groups capacity operations bandwidth, then -l's total_wait disk_wait syncq_wait asyncq_wait "
                   "scrub [trim [rebuild]] and/or -q's syncq_read syncq_write asyncq_read asyncq_write scrubq_read "
                   "[trimq_write [rebuildq_write]], in that order (zpool iostat -v, -vl, -vq, -vlq; -p allowed)")


def _prefix(toks: list[str], groups: tuple[tuple[str, tuple[str, ...]], ...], least: int) -> int:
    """How many of ``groups`` ``toks`` starts with: 0, or at least ``least`` in order."""
    n = 0
    while n < len(groups) and n < len(toks) and toks[n] == groups[n][0]:
        n += 1
    return n if n >= least else 0


def _layout(ln) -> _Layout:
    toks = ln.text.split()[3:]
    nl = _prefix(toks, _LATENCY_GROUPS, _LATENCY_MIN)
    nq = _prefix(toks[nl:], _QUEUE_GROUPS, _QUEUE_MIN)
    if nl + nq != len(toks):
        raise ImportTextError(ln.file, ln.number, ln.text, _GROUPS_ALLOWED + "; -w and -r histograms are not read")
    return _Layout(tuple(g for g, _ in _LATENCY_GROUPS[:nl]), nq, ln.number)


def _check_bottom(ln, lay: _Layout) -> None:
    want = lay.bottom()
    if ln.text.split()[1:1 + len(want)] != want:
        raise ImportTextError(ln.file, ln.number, ln.text, f"the column labels under the groups of line {lay.line}: "
                              f"pool {' '.join(want)}")


def _refuse_flags(section: Section) -> None:
    """The prompt's flags, where they say the table is not one this reads."""
    flags = "".join(_FLAGS.findall(" " + (section.command or "").split("iostat", 1)[-1]))
    why = ("the -w and -r histograms are not read" if "w" in flags or "r" in flags
           else "-H (no header, TABs) is not read" if "H" in flags else None)
    if why is not None:  # the prompt is the line before the section's first
        raise ImportTextError(section.file, section.first_line - 1, section.command,
                              f"zpool iostat -v with -l and/or -q columns (-p allowed); {why}")


# ----------------------------------------------------------------------------- cells


def _num(tok: str, ln, what: str) -> int | None:
    if tok == "-":
        return None
    try:
        return parse_number(tok)
    except ValueError:
        raise ImportTextError(ln.file, ln.number, ln.text, f"{what} as a zfs number (312, 38.9M) or -") from None


class _Times:
    """Reads -l cells, holding a section to one form: units (``12ms``) or raw ns (``-p``)."""

    def __init__(self) -> None:
        self.raw: bool | None = None

    def read(self, tok: str, ln, what: str) -> int | None:
        if tok == "-":
            return None
        m = _TIME.fullmatch(tok)
        raw = m is None and tok.isdigit()
        if m is None and not raw:
            raise ImportTextError(ln.file, ln.number, ln.text, f"{what} as zpool iostat -l prints a time (12ms, "
                                  "512us, 3s; whole ns with -p) or -")
        if self.raw is not None and raw != self.raw:
            form = "whole ns (-p)" if self.raw else "times with units (12ms)"
            raise ImportTextError(ln.file, ln.number, ln.text, f"{what} as the table's other -l figures, {form}: one "
                                  "zpool iostat run per section")
        self.raw = raw
        return int(tok) if raw else int(m.group(1)) * _NS_PER[m.group(2)]  # type: ignore[union-attr]


def _row(ln, lay: _Layout, times: _Times) -> IostatRow:
    t = ln.text
    exp = t.expandtabs(8).rstrip()
    depth = (len(exp) - len(exp.lstrip())) // 2
    toks = exp.split()
    if len(toks) < 1 + lay.columns:
        what = (f"name and the {lay.columns} columns of the header of line {lay.line}" if lay.line
                else "name alloc free read write read write")
        raise ImportTextError(ln.file, ln.number, t, f"a zpool iostat row: {what}")
    vals = [_num(tok, ln, col) for tok, col in zip(toks[1:7], _DEFAULT_NAMES)]
    label = depth == 0 and toks[0] in CLASS_LABELS and all(v is None for v in vals)
    cols = [c for c in LATENCY_COLUMNS if c[0] in lay.latency]
    waits = Waits(**{f: times.read(tok, ln, f"{g} {b}") for tok, (g, b, f) in zip(toks[7:], cols)}) if cols else None
    for tok in toks[7 + len(cols):7 + len(cols) + 2 * lay.queues]:
        _num(tok, ln, "a -q queue depth")
    return IostatRow(toks[0], depth, vals[0], vals[1], vals[2] or 0, vals[3] or 0, vals[4] or 0, vals[5] or 0,
                     ln.number, label, waits)


def parse(section: Section) -> list[IostatSample]:
    """The last sample of each pool in a ``zpool iostat -v [-l] [-q] [-p]`` section."""
    _refuse_flags(section)
    pools: dict[str, IostatSample] = {}
    counts: dict[str, int] = {}
    cur: IostatRow | None = None
    rows: list[IostatRow] = []
    in_table = False
    lay = _Layout()
    times = _Times()
    last = section.lines[-1].number if section.lines else 0

    def flush() -> None:
        if cur is not None:
            counts[cur.name] = counts.get(cur.name, 0) + 1
            pools[cur.name] = IostatSample(cur, tuple(rows), section.file, counts[cur.name], lay.latency,
                                           lay.queues > 0, bool(times.raw), lay.line, section.first_line, last)

    for ln in section.lines:
        t = ln.text
        if not t.strip() or STAMP.match(t):
            continue  # -T u / -T d time stamps
        if _GROUPS.match(t):
            lay = _layout(ln)
            continue
        if _COLS.match(t):
            _check_bottom(ln, lay)
            continue
        if _RULE.match(t):
            flush()
            cur, rows, in_table = None, [], True
            continue
        if _HISTO.match(t):
            raise ImportTextError(ln.file, ln.number, t, "zpool iostat -v with -l and/or -q columns; the -w and -r "
                                  "histograms are not read")
        if not in_table:
            raise ImportTextError(ln.file, ln.number, t, "the zpool iostat header and its ----- rule first")
        row = _row(ln, lay, times)
        if row.depth == 0 and not row.is_label:
            flush()
            cur, rows = row, []
            continue
        if cur is None:
            raise ImportTextError(ln.file, ln.number, t, "a pool row (at the left margin) first")
        rows.append(row)
    flush()
    if not pools:
        raise ImportTextError(section.file, section.first_line, None, "a zpool iostat -v sample with a pool row")
    return list(pools.values())

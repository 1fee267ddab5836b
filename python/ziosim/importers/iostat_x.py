"""Operating-system ``iostat -x`` text → ``IostatX``: per-disk load, service time and %busy.

Theory of operation
-------------------
Three families print extended disk statistics (spec/users.md §4.4), each as a column
header followed by one row per device, the block repeated once per report:

* Linux sysstat ``iostat -x [-k|-m] [-t] [-p]``: header ``Device:`` (sysstat < 9.1.3 to
  11) or ``Device`` (12+), device first. Old columns ``rrqm/s wrqm/s r/s w/s rkB/s wkB/s
  avgrq-sz avgqu-sz await r_await w_await svctm %util``; new ones ``r/s rkB/s rrqm/s %rrqm
  r_await rareq-sz w/s … aqu-sz %util``. ``-m`` prints ``rMB/s``, sysstat without ``-k``
  on old kernels ``rsec/s`` (512-byte sectors). A banner (``Linux 5.15.0 (host) …``),
  ``avg-cpu:`` blocks and ``-t`` time stamps are read past.
* FreeBSD ``iostat -x``: ``device r/s w/s kr/s kw/s ms/r ms/w ms/o ms/t qlen %b`` (FreeBSD
  12+), or the older ``device r/s w/s kr/s kw/s qlen svc_t %b``, under ``extended device
  statistics``.
* illumos ``iostat -xn``: ``r/s w/s kr/s kw/s wait actv wsvc_t asvc_t %w %b device``
  (device last; ``-e`` adds error columns before it, ``-M`` prints ``Mr/s Mw/s``), and
  ``iostat -x`` without ``-n``: ``device r/s w/s kr/s kw/s wait actv svc_t %w %b`` with
  ``sdN`` instance names.

**Matching devices to the pool's disks** (``match_devices``) never guesses: a device is
a pool disk when its name is the leaf's as ``zpool status`` prints it (``/dev/``,
``/dev/dsk/`` dropped), or when the leaf is a partition or slice of it, read from the
kernel's own naming (Linux ``sda1``, ``nvme0n1p1`` → ``sda``, ``nvme0n1``; FreeBSD
``ada0p2``, ``da3s1a``, ``ada0p2.eli`` → ``ada0``, ``da3``; illumos ``c0t0d0s0`` →
``c0t0d0``). ``/dev/disk/by-id`` names, ``gptid/…`` and other labels, and illumos ``sdN``
instance names (``iostat -x`` without ``-n``) name no kernel disk: such leaves stay
unmatched, and so does a disk two leaves are partitions of (its figures are theirs
together). Every match and miss is listed in the scenario's header.

**Stragglers** (``stragglers``; spec/users.md §6 item 7, "the one slow disk (140 ms vs
4–8 ms)"), within a group of data disks that should see the same load (one vdev, or all
the data disks of a pool whose vdevs are all of one type). A disk is flagged when either
holds:

* *slow*: its ``service_ms`` is more than ``SLOW_FACTOR`` (3) times the median of its
  peers' and at least ``SLOW_MS_MIN`` (20 ms), and it did at least ``OPS_MIN_PER_S`` (5)
  of the I/Os that figure averages per second — so one slow I/O on an idle disk does not
  count; the peers' median is over the peers that did as many;
* *busy*: its %busy is at least ``BUSY_PERCENT_MIN`` (90 %) and its peers' median %busy
  at most ``BUSY_PEER_SHARE_MAX`` (half) of its own.

Peers are the other disks of the group; at least one is needed. Two slow disks of three
raise each other's median: the rule finds one (or a few) slow disks among many.
The same rule reads ``zpool iostat -l``'s read ``disk_wait`` (``zpool_iostat.disk_stat``
makes a ``DiskStat`` of a row, with no %busy: only the *slow* test applies).

**Service time without queueing** (``device_service_ms``, what a straggler's device model
is calibrated from): every figure above is a response time that includes waiting behind
the disk's other commands — ``r_await`` the block layer's and the drive's NCQ queue,
``ms/r`` and ``asvc_t`` the drive's. The row itself says how much: the disk held
N = Σ rate × time commands on average (Little's law; ``aqu-sz`` for Linux, but FreeBSD's
``qlen`` is an instantaneous count) and was busy a share U of the time (``%busy``), so its
mean service time is the response time × U ÷ N (S = U/X and R = N/X). When N ≤ U nothing
waited and the figure is kept as printed. Reads are assumed to wait as long as writes.

Columns are matched by header name, never by position; unknown columns are read past.
Every flavour's first report is the average since boot, not an interval, so the last
complete report is used: the last one, unless its rows stop short of the report before
(a paste cut off), then the one before it. Kilobytes are 1024 bytes in all three tools.

The **service time** compared between disks (``DiskStat.service_ms``) is the read time
where the tool prints one (Linux ``r_await``, FreeBSD ``ms/r``), as a scan and most of
what users time are reads and ZFS writes arrive in bursts at each txg; otherwise the
combined figure (Linux ``await``, FreeBSD ``svc_t``, illumos ``asvc_t`` or, without
``-n``, ``svc_t``). ``service_ops_per_s`` is the rate of the I/Os that figure averages.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from . import ImportTextError, Section

__all__ = ["DiskStat", "IostatX", "parse", "START", "PROMPT", "FLAVOUR_LABELS", "Matching", "match_devices",
           "kernel_disk", "Straggler", "stragglers", "in_flight", "device_service_ms",
           "SLOW_FACTOR", "SLOW_MS_MIN", "OPS_MIN_PER_S",
           "BUSY_PERCENT_MIN", "BUSY_PEER_SHARE_MAX"]

KIB = 1024
SECTOR = 512

FLAVOUR_LABELS = {"linux": "Linux sysstat iostat -x", "freebsd": "FreeBSD iostat -x",
                  "illumos": "illumos iostat -xn", "illumos-x": "illumos iostat -x (no -n)"}

# A prompt running the OS iostat (not `zpool iostat`): "$ iostat -x 10 2", "# iostat -xn 5 2".
PROMPT = re.compile(r"^\s*(?:[^#$%>]*[#$%>]\s*)?(?:sudo\s+)?(?:/\S*/)?iostat(?:\s.*)?$")
_DEVICE_FIRST = re.compile(r"^\s*(?:Device:?|device)\s+(?:\S+\s+)*r/s\b")
_DEVICE_LAST = re.compile(r"^\s*r/s\s+w/s\s+.*\bdevice\s*$")
_BANNER = re.compile(r"^\s*(?:Linux|SunOS|FreeBSD)\s+\d\S*\s+\(.*\)")
_EXTENDED = re.compile(r"^\s*extended device statistics\s*$")
_AVG_CPU = re.compile(r"^\s*avg-cpu:")
START = (_DEVICE_FIRST, _DEVICE_LAST, _BANNER, _EXTENDED, _AVG_CPU)

# sysstat -t: "01/15/2024 10:00:01 AM", "2024-01-15T10:00:01+0100"; illumos -T d / -T u.
_STAMP = re.compile(r"^\s*(?:\d\d/\d\d/\d\d(?:\d\d)?\s+\d\d:\d\d:\d\d(?:\s*[AP]M)?|\d{4}-\d\d-\d\dT\S+|\d{9,11}"
                    r"|\w{3}\s+\w{3}\s+\d+\s+\d\d:\d\d:\d\d\s+(?:\w+\s+)?\d{4})\s*$")
_NUM = re.compile(r"^\d+(?:[.,]\d+)?$")

# header name -> (field, scale to bytes or 1)
_OPS = {"r/s": "read_ops", "w/s": "write_ops"}
_BW = {"rkB/s": ("read_bw", KIB), "wkB/s": ("write_bw", KIB), "rMB/s": ("read_bw", KIB * KIB),
       "wMB/s": ("write_bw", KIB * KIB), "rsec/s": ("read_bw", SECTOR), "wsec/s": ("write_bw", SECTOR),
       "kr/s": ("read_bw", KIB), "kw/s": ("write_bw", KIB), "Mr/s": ("read_bw", KIB * KIB),
       "Mw/s": ("write_bw", KIB * KIB)}
# per flavour: (read time, write time, combined time, busy, queue) column names, first found wins
_TIMES = {
    "linux": (("r_await",), ("w_await",), ("await",), ("%util",), ("aqu-sz", "avgqu-sz")),
    "freebsd": (("ms/r",), ("ms/w",), ("ms/t", "svc_t"), ("%b",), ("qlen",)),
    "illumos": ((), (), ("asvc_t",), ("%b",), ("actv",)),
    "illumos-x": ((), (), ("svc_t",), ("%b",), ("actv",)),
}


@dataclass(frozen=True)
class DiskStat:
    """One device row of the report used; rates per second, times in milliseconds."""

    name: str
    read_ops_per_s: float
    write_ops_per_s: float
    read_bytes_per_s: float
    write_bytes_per_s: float
    read_ms: float | None  # mean time of a read (r_await, ms/r); None when not printed
    write_ms: float | None
    all_ms: float | None  # mean time of any I/O (await, ms/t, svc_t, asvc_t)
    busy_percent: float | None  # %util, %b
    queue: float | None  # mean commands outstanding (aqu-sz, qlen, actv)
    service_ms: float | None  # the figure disks are compared by (module docstring)
    service_ops_per_s: float  # the rate of the I/Os service_ms averages
    line: int


@dataclass(frozen=True)
class IostatX:
    """The report used of one ``iostat -x`` section."""

    flavour: str  # linux | freebsd | illumos | illumos-x
    file: str
    disks: tuple[DiskStat, ...]
    reports: int  # complete reports in the section
    used: int  # 1-based index of the report used
    header_line: int  # line of the used report's column header
    service_column: str  # r_await, await, ms/r, svc_t, asvc_t
    first_line: int
    last_line: int

    @property
    def label(self) -> str:
        return FLAVOUR_LABELS[self.flavour]

    @property
    def since_boot(self) -> bool:
        """Only one report: the averages since boot, not an interval."""
        return self.used == 1


def _flavour(cols: list[str]) -> str | None:
    if cols[-1] == "device" and cols[0] == "r/s":
        return "illumos"
    if cols[0] in ("Device:", "Device"):
        return "linux"
    if cols[0] == "device":
        return "illumos-x" if "actv" in cols else "freebsd"
    return None


def _float(tok: str) -> float | None:
    return float(tok.replace(",", ".")) if _NUM.match(tok) else None


@dataclass
class _Report:
    cols: list[str]
    flavour: str
    header_line: int
    rows: list[tuple[str, dict[str, float], int]]
    cut: bool = False


def _header_error(ln, flavour: str) -> ImportTextError:
    want = {"linux": "r/s, w/s, rkB/s (or rMB/s, rsec/s), wkB/s, r_await or await, and %util",
            "freebsd": "r/s, w/s, kr/s, kw/s, ms/r or svc_t, and %b",
            "illumos": "r/s, w/s, kr/s (or Mr/s), kw/s, asvc_t and %b",
            "illumos-x": "r/s, w/s, kr/s (or Mr/s), kw/s, svc_t and %b"}[flavour]
    return ImportTextError(ln.file, ln.number, ln.text, f"an iostat -x column header with {want}")


def _check_header(cols: list[str], flavour: str, ln) -> None:
    have = set(cols)
    rt, _, at, busy, _ = _TIMES[flavour]
    ok = ({"r/s", "w/s"} <= have and any(_BW.get(c, ("",))[0] == "read_bw" for c in cols)
          and any(_BW.get(c, ("",))[0] == "write_bw" for c in cols)
          and any(c in have for c in rt + at) and any(c in have for c in busy))
    if not ok:
        raise _header_error(ln, flavour)


def _reports(section: Section) -> list[_Report]:
    reports: list[_Report] = []
    cur: _Report | None = None
    skip_cpu = False
    body = [ln for ln in section.lines if ln.text.strip()]
    last = body[-1].number if body else 0
    for ln in section.lines:
        t = ln.text.strip()
        if not t:
            skip_cpu = False
            continue
        if _AVG_CPU.match(t):
            cur, skip_cpu = None, True
            continue
        if skip_cpu and all(_float(x) is not None for x in t.split()):
            continue
        if _BANNER.match(t) or _EXTENDED.match(t) or _STAMP.match(t) or PROMPT.match(t):
            continue
        toks = t.split()
        fl = _flavour(toks) if ("r/s" in toks and "w/s" in toks) else None
        if fl is not None:
            _check_header(toks, fl, ln)
            cur = _Report(toks, fl, ln.number, [])
            reports.append(cur)
            continue
        if cur is None:
            raise ImportTextError(ln.file, ln.number, ln.text, "an iostat -x column header (Device r/s w/s …, "
                                  "device r/s w/s …, or r/s w/s … device) before the device rows")
        dev_i = len(cur.cols) - 1 if cur.flavour == "illumos" else 0
        vals = [_float(x) for i, x in enumerate(toks) if i != dev_i]
        if len(toks) != len(cur.cols) or any(v is None for v in vals):
            if ln.number == last and reports.index(cur) > 0:
                cur.cut = True  # the paste stops inside this row; the report before is used
                continue
            raise ImportTextError(ln.file, ln.number, ln.text, f"a device row of {len(cur.cols)} fields under the "
                                  f"header of line {cur.header_line} (a name and plain numbers; iostat without -h)")
        names = [c for i, c in enumerate(cur.cols) if i != dev_i]
        cur.rows.append((toks[dev_i], dict(zip(names, vals)), ln.number))  # type: ignore[arg-type]
    return reports


def _disk(name: str, v: dict[str, float], line: int, flavour: str) -> DiskStat:
    bw = {"read_bw": 0.0, "write_bw": 0.0}
    for c, (fieldname, scale) in _BW.items():
        if c in v:
            bw[fieldname] = v[c] * scale

    def first(names: tuple[str, ...]) -> float | None:
        return next((v[c] for c in names if c in v), None)

    rt, wt, at, busy, queue = _TIMES[flavour]
    r, w = v["r/s"], v["w/s"]
    read_ms, all_ms = first(rt), first(at)
    service, ops = (read_ms, r) if read_ms is not None else (all_ms, r + w)
    return DiskStat(name, r, w, bw["read_bw"], bw["write_bw"], read_ms, first(wt), all_ms, first(busy),
                    first(queue), service, ops, line)


def parse(section: Section) -> IostatX:
    """The last complete report of an ``iostat -x`` section (module docstring)."""
    reports = [r for r in _reports(section) if r.rows]
    if not reports:
        raise ImportTextError(section.file, section.first_line, None,
                              "an iostat -x report: a column header and at least one device row")
    flavours = {r.flavour for r in reports}
    if len(flavours) > 1:
        r2 = next(r for r in reports if r.flavour != reports[0].flavour)
        raise ImportTextError(section.file, r2.header_line, None,
                              f"the same iostat as the header of line {reports[0].header_line} "
                              f"({FLAVOUR_LABELS[reports[0].flavour]}): one machine's iostat per section")
    use = len(reports) - 1
    last = reports[use]
    if use > 0 and (last.cut or {n for n, _, _ in reports[use - 1].rows} > {n for n, _, _ in last.rows}):
        use -= 1
    rep = reports[use]
    rt, _, at, _, _ = _TIMES[rep.flavour]
    service_col = next(c for c in rt + at if c in rep.cols)
    disks = tuple(_disk(n, v, line, rep.flavour) for n, v, line in rep.rows)
    seen: set[str] = set()
    for d in disks:
        if d.name in seen:
            raise ImportTextError(section.file, d.line, None, f"one row per device in a report ({d.name} twice)")
        seen.add(d.name)
    complete = len(reports) - (1 if reports[-1].cut or use < len(reports) - 1 else 0)
    return IostatX(rep.flavour, section.file, disks, complete, use + 1, rep.header_line, service_col,
                   section.first_line, section.lines[-1].number)


# ----------------------------------------------------------------------------- matching

_PARTITION = (
    re.compile(r"^((?:sd|hd|vd|xvd)[a-z]+)\d+$"),  # Linux sda1 -> sda
    re.compile(r"^((?:nvme\d+n\d+|mmcblk\d+|nbd\d+|loop\d+|md\d+))p\d+$"),  # nvme0n1p1 -> nvme0n1
    re.compile(r"^((?:ada|ad|da|nvd|nda|vtbd|mfid|mfisyspd|mmcsd)\d+)(?:p\d+|s\d+[a-h]?)(?:\.eli|\.nop)?$"),
    re.compile(r"^((?:ada|ad|da|nvd|nda|vtbd|mfid)\d+)(?:\.eli|\.nop)$"),  # FreeBSD ada0.eli -> ada0
    re.compile(r"^(c\d+(?:t[0-9A-Fa-f]+)?d\d+)(?:s\d+|p\d+)$"),  # illumos c0t0d0s0 -> c0t0d0
)
_DEV_PREFIX = re.compile(r"^/dev/(?:r?dsk/)?")


def kernel_disk(leaf: str) -> str | None:
    """The kernel disk a partition or slice leaf lives on (``sda1`` → ``sda``), or None."""
    name = _DEV_PREFIX.sub("", leaf)
    for p in _PARTITION:
        m = p.match(name)
        if m:
            return m.group(1)
    return None


@dataclass(frozen=True)
class Matching:
    """Which iostat -x row stands for which pool disk, and what could not be matched."""

    disks: dict[str, DiskStat]  # leaf name -> its row
    how: dict[str, str]  # leaf name -> "sda1 → sda (the disk of partition sda1)" or "sda"
    not_in_pool: tuple[str, ...]  # devices no leaf matched, in the report's order
    no_row: tuple[str, ...]  # leaves no device matched
    shared: tuple[tuple[str, tuple[str, ...]], ...]  # (device, leaves that are all partitions of it)


def match_devices(leaves: Sequence[str], x: IostatX) -> Matching:
    """Match ``zpool status`` leaf names to ``x``'s devices (module docstring); never a guess."""
    by_name = {d.name: d for d in x.disks}
    disks: dict[str, DiskStat] = {}
    how: dict[str, str] = {}
    via: dict[str, list[str]] = {}
    for leaf in leaves:
        name = _DEV_PREFIX.sub("", leaf)
        if name in by_name:
            disks[leaf], how[leaf] = by_name[name], leaf
            continue
        k = kernel_disk(leaf)
        if k is not None and k in by_name:
            via.setdefault(k, []).append(leaf)
    shared = []
    for dev, ls in via.items():
        if len(ls) > 1 or any(d.name == dev for d in disks.values()):
            shared.append((dev, tuple(ls)))
            continue
        disks[ls[0]], how[ls[0]] = by_name[dev], f"{ls[0]} → {dev} (the disk of {ls[0]})"
    used = {d.name for d in disks.values()} | {dev for dev, _ in shared}
    return Matching(disks, how, tuple(d.name for d in x.disks if d.name not in used),
                    tuple(leaf for leaf in leaves if leaf not in disks), tuple(shared))


# ----------------------------------------------------------------------------- stragglers

SLOW_FACTOR = 3.0
SLOW_MS_MIN = 20.0
OPS_MIN_PER_S = 5.0
BUSY_PERCENT_MIN = 90.0
BUSY_PEER_SHARE_MAX = 0.5


def in_flight(d: DiskStat) -> float | None:
    """Mean commands the disk held, by Little's law over the times its row prints."""
    if d.read_ms is not None:
        return (d.read_ops_per_s * d.read_ms + d.write_ops_per_s * (d.write_ms or 0.0)) / 1000
    if d.all_ms is not None:
        return (d.read_ops_per_s + d.write_ops_per_s) * d.all_ms / 1000
    return None


def device_service_ms(d: DiskStat) -> float | None:
    """``service_ms`` without the wait behind the disk's other commands (module docstring).
    Without %busy (``zpool iostat -l``) the queueing cannot be taken out, but the utilisation
    law still bounds it: a disk busy at most all the time serves each command in at most
    1000 ÷ (commands/s) ms."""
    if d.service_ms is None:
        return None
    if d.busy_percent is None:
        ops = d.read_ops_per_s + d.write_ops_per_s
        return min(d.service_ms, 1000.0 / ops) if ops > 0 else d.service_ms
    n = in_flight(d)
    if n is None or n <= d.busy_percent / 100:
        return d.service_ms
    return d.service_ms * (d.busy_percent / 100) / n


@dataclass(frozen=True)
class Straggler:
    leaf: str
    disk: DiskStat
    group: str  # "raidz2-0", or "the 4 data disks of the pool's mirror vdevs"
    peers: int
    peer_service_ms: float | None  # median over the peers that did OPS_MIN_PER_S
    peer_busy_percent: float | None
    slow: bool
    busy: bool
    peer_device_ms: float | None = None  # median device_service_ms over the same peers


def stragglers(groups: Sequence[tuple[str, Sequence[tuple[str, DiskStat]]]]) -> list[Straggler]:
    """The disks the rule of the module docstring flags, group by group, in order."""
    out = []
    for label, members in groups:
        for i, (leaf, d) in enumerate(members):
            peers = [p for j, (_, p) in enumerate(members) if j != i]
            if not peers:
                continue
            timed_peers = [p for p in peers if p.service_ms is not None and p.service_ops_per_s >= OPS_MIN_PER_S]
            timed = [p.service_ms for p in timed_peers]
            busy_peers = [p.busy_percent for p in peers if p.busy_percent is not None]
            med_ms = statistics.median(timed) if timed else None
            med_dev = statistics.median(device_service_ms(p) for p in timed_peers) if timed_peers else None
            med_busy = statistics.median(busy_peers) if busy_peers else None
            slow = (med_ms is not None and d.service_ms is not None and d.service_ops_per_s >= OPS_MIN_PER_S
                    and d.service_ms >= SLOW_MS_MIN and d.service_ms > SLOW_FACTOR * med_ms)
            busy = (med_busy is not None and d.busy_percent is not None and d.busy_percent >= BUSY_PERCENT_MIN
                    and med_busy <= BUSY_PEER_SHARE_MAX * d.busy_percent)
            if slow or busy:
                out.append(Straggler(leaf, d, label, len(peers), med_ms, med_busy, slow, busy, med_dev))
    return out

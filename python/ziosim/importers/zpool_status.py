"""``zpool status`` text → ``PoolStatus``: the pool, its vdev tree, and the scan line(s).

Theory of operation
-------------------
A ``zpool status`` is read line by line (``parse``):

* **Header keys** — ``pool:``, ``state:``, ``status:``, ``action:``, ``see:``, ``scan:``
  (`` scrub:`` in OpenSolaris ≤ 2010), ``remove:``, ``checkpoint:``, ``config:``,
  ``errors:``. A key's continuation lines start with white space. ``status:``/``action:``
  prose, ``remove:``/``checkpoint:`` lines and everything after ``errors:`` (the ``-v``
  file list) are read past on purpose; so are ``-T u``/``-T d`` time stamps before a pool.
* **Scan lines** (spec/zfs-model.md §8.1, spec/users.md §4.2) — every era's wording is
  matched whole: (a) 2009 `` scrub: … in progress for 1h12m, 23.45% done, 3h55m to go``;
  (b, c) 2010–2017 ``X scanned out of T at R/s, XhYm to go`` + ``Z resilvered, P% done``
  (illumos/ZoL 0.6 indent 4 spaces, FreeBSD 8, ZoL 0.7 a TAB) and the 0.7 paused scrub;
  (d) 0.8–2.1 ``X scanned at R/s, Y issued at R/s, T total`` and ``… P% done, [N days
  ]HH:MM:SS to go``; (f) the 2.0/2.1 sequential rebuild (``resilver (mirror-0) in
  progress``, ``Y issued R/s`` without "at"); (e) 2.2+ ``X / T scanned at R/s, Y / T2
  issued at R/s``; and the paused, canceled and finished lines of each. A decimal comma
  (``4,43G``, ``51,37%``) reads as a decimal point (users.md §4.1).
* **Config tree** — after the ``NAME STATE READ WRITE CKSUM`` header each row is
  ``NAME STATE READ WRITE CKSUM [note]`` (spares: ``NAME AVAIL|INUSE [note]``), its depth
  the indent beyond the header's ``NAME`` in steps of two (TABs count 8, so a paste that
  turned the leading TAB into spaces still reads). Rows at depth 0 after the pool are the
  class labels ``logs``, ``cache``, ``spares``, ``special``, ``dedup`` (0.8+ prints
  ``logs`` with a trailing TAB; OpenSolaris 2009.06 prints ``logs`` as a whole row with the
  root vdev's state and counters, il:379c004d1f — read as the label). A row with rows
  under it is an interior vdev named by type: ``mirror-0``, ``raidz2-0``, old unnumbered
  ``mirror``/``raidz2``, ``replacing-N``, ``spare-N``, ``draid2:8d:24c:2s-0``.
* **dRAID** (2.1+): a top-level vdev is named ``draid<parity>:<data>d:<children>c:<spares>s``
  and ``-<id>``, its top-level vdev id (``zpool_draid_name``, ``zpool_vdev_name`` with
  ``VDEV_NAME_TYPE_ID``, lib/libzfs/libzfs_pool.c@zfs-2.1.0); its kind is ``draid1``/``2``/``3``
  and ``draid_name`` reads the rest. It must hold exactly ``<children>`` rows (a row is a
  disk, a ``spare-N`` or a ``replacing-N``), and the numbers must be ones ``zpool create``
  accepts (``draid_config_by_type``, cmd/zpool/zpool_vdev.c@zfs-2.1.0). Its distributed
  spares are leaves named ``draid<parity>-<top vdev id>-<spare id>``
  (``vdev_draid_spare_create``, module/zfs/vdev_draid.c@zfs-2.1.0; libzfs tells them by that
  name alone, ``zpool_is_draid_spare``): in the ``spares`` section after or among the hot
  spares, and under a ``spare-N`` of their own dRAID when in use (``Vdev.dspare``).

Truncation is an error, not a guess: a pool must end with its ``errors:`` line, and a
mirror, raidz, replacing or spare vdev must hold as many disks as it can have at least.

``guess_release`` maps what the text shows to the releases that print exactly that
(``candidate_releases``), narrowed by platform hints (device names, the ``see:`` URL), then
picks one by a fixed preference (docs/import.md has the table).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..report.releases import RELEASES, at_least
from . import NUMBER, STAMP, ImportTextError, Line, Section, has_byte_suffix, parse_number, parse_percent

__all__ = [
    "Row",
    "Vdev",
    "Scan",
    "PoolStatus",
    "parse",
    "candidate_releases",
    "platform_hint",
    "guess_release",
    "ReleaseGuess",
    "STATES",
    "CLASS_LABELS",
    "DraidName",
    "draid_name",
    "draid_name_problem",
    "dspare_name",
]

STATES = ("ONLINE", "DEGRADED", "FAULTED", "OFFLINE", "UNAVAIL", "REMOVED", "AVAIL", "INUSE", "SUSPENDED")
CLASS_LABELS = ("logs", "cache", "spares", "special", "dedup")
_MIN_CHILDREN = {"mirror": 2, "raidz1": 2, "raidz2": 3, "raidz3": 4, "replacing": 2, "spare": 2, "draid1": 2,
                 "draid2": 3, "draid3": 4}
DRAID_SPARES_MAX = 100  # draid_config_by_type (cmd/zpool/zpool_vdev.c@zfs-2.1.0)
DRAID_CHILDREN_MAX = 255  # VDEV_DRAID_MAX_CHILDREN = UINT8_MAX (include/sys/fs/zfs.h@zfs-2.1.0)
_DRAID = re.compile(r"draid(?P<p>[123]):(?P<d>\d+)d:(?P<c>\d+)c:(?P<s>\d+)s(?:-(?P<id>\d+))?")
# zpool_is_draid_spare (lib/libzfs/libzfs_pool.c@zfs-2.1.0) reads "draid%llu-%llu-%llu".
_DSPARE = re.compile(r"draid(?P<p>\d+)-(?P<top>\d+)-(?P<id>\d+)")


@dataclass(frozen=True)
class DraidName:
    """What a dRAID vdev's name says: ``draid2:8d:24c:2s-0``."""

    parity: int
    data: int
    children: int
    spares: int
    vdev_id: int | None  # the "-0": its top-level vdev id (None if the name has none)


def draid_name(name: str) -> DraidName | None:
    """The dRAID geometry in a vdev name as ``zpool_draid_name`` prints it, else None."""
    m = _DRAID.fullmatch(name)
    if m is None:
        return None
    return DraidName(int(m.group("p")), int(m.group("d")), int(m.group("c")), int(m.group("s")),
                     int(m.group("id")) if m.group("id") is not None else None)


def draid_name_problem(dn: DraidName) -> str | None:
    """Why ``zpool create`` would refuse this geometry (draid_config_by_type,
    cmd/zpool/zpool_vdev.c@zfs-2.1.0), or None."""
    if dn.children > DRAID_CHILDREN_MAX:
        return f"at most {DRAID_CHILDREN_MAX} children, not {dn.children}"
    if dn.spares > DRAID_SPARES_MAX:
        return f"at most {DRAID_SPARES_MAX} distributed spares, not {dn.spares}"
    if dn.data == 0 or dn.data + dn.parity > dn.children - dn.spares:
        return (f"1 ≤ data and data + parity ≤ children − spares, not {dn.data} + {dn.parity} and "
                f"{dn.children} − {dn.spares}")
    return None


def dspare_name(name: str) -> tuple[int, int, int] | None:
    """(parity, top-level vdev id, spare id) of a distributed spare's name, else None."""
    m = _DSPARE.fullmatch(name)
    return (int(m.group("p")), int(m.group("top")), int(m.group("id"))) if m else None


# ----------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Row:
    """One config row as printed: depth 0 is the pool (or a class label, ``state`` None)."""

    depth: int
    name: str
    state: str | None
    read: int | None
    write: int | None
    cksum: int | None
    note: str
    line: int


@dataclass(frozen=True)
class Vdev:
    """A node of the config tree. ``kind``: ``root``, ``disk`` (a leaf), ``mirror``,
    ``raidz1``/``2``/``3``, ``replacing``, ``spare``, ``draid1``/``2``/``3``."""

    name: str
    kind: str
    state: str | None
    note: str
    read: int | None
    write: int | None
    cksum: int | None
    line: int
    children: tuple[Vdev, ...] = ()
    #: `zpool status -j` only: an interior vdev's ``alloc_space`` (raid-z parity included,
    #: as ``vs_alloc``) and a leaf's ``phys_space`` (the disk's size); text has neither.
    alloc_bytes: int | None = None
    size_bytes: int | None = None

    def leaves(self) -> list[Vdev]:
        if not self.children:
            return [self]
        return [leaf for c in self.children for leaf in c.leaves()]

    @property
    def resilvering(self) -> bool:
        return "(resilvering)" in self.note

    @property
    def dspare(self) -> bool:
        """A dRAID's distributed spare: no device, space on the dRAID's own disks."""
        return self.kind == "disk" and dspare_name(self.name) is not None

    @property
    def draid(self) -> DraidName | None:
        return draid_name(self.name) if self.kind.startswith("draid") else None


@dataclass(frozen=True)
class Scan:
    """One scan block (a ``scan:`` line and its continuation lines), numbers in bytes.

    ``state``: ``none``, ``scanning``, ``paused``, ``finished``, ``canceled``.
    ``rebuild_vdev`` names the top-level vdev of a sequential rebuild (2.0+). ``shape``
    says which printed form was read: ``2009``, ``legacy`` ("scanned out of"), ``issued``
    (0.8–2.1 "scanned at …, issued at …, total"), ``rebuild`` (2.0/2.1, "issued R/s"),
    ``slash`` (2.2+ "X / T scanned"), ``finished``, ``canceled``, ``none``.
    Evidence for the release guess: ``indent`` (the continuation prefix), ``nicebytes``
    (a "B" on a small byte count: True; a bare one: False; unknown: None), ``days``
    (the day count of a ``N days HH:MM:SS``, or None), ``hms`` (an ``HH:MM:SS`` with no
    day count), ``took_hm`` (a legacy ``XhYm`` duration).
    """

    key: str
    func: str
    state: str
    shape: str
    rebuild_vdev: str | None = None
    since: str | None = None
    started: str | None = None
    ended: str | None = None
    scanned_bytes: int | None = None
    issued_bytes: int | None = None
    total_bytes: int | None = None
    issue_total_bytes: int | None = None
    scan_rate_bytes_per_s: int | None = None
    issue_rate_bytes_per_s: int | None = None
    processed_bytes: int | None = None
    done_percent: float | None = None
    eta: str | None = None
    eta_s: int | None = None
    elapsed_s: int | None = None
    took: str | None = None
    took_s: int | None = None
    errors: int | None = None
    indent: str | None = None
    nicebytes: bool | None = None
    days: int | None = None
    hms: bool = False
    took_hm: bool = False
    lines: tuple[Line, ...] = ()

    @property
    def active(self) -> bool:
        return self.state in ("scanning", "paused")

    @property
    def sequential(self) -> bool:
        return self.rebuild_vdev is not None

    def inconsistency(self) -> str | None:
        """Why a progress line cannot have been printed as it reads (an edited paste), or
        None. ``% done`` is what print_scan_status divides: before 0.8 examined ÷ to_examine
        (the line's scanned and total), 0.8–2.1 issued ÷ to_examine (issued and total),
        2.2+ issued ÷ (to_examine − skipped) (the issued pair); so they must agree within
        the rounding of the printed sizes; a scan with bytes examined has a total above 0
        (ZM@zfs-0.7.13, @zfs-0.8.0, @zfs-2.1.0, @zfs-2.2.0)."""
        num, den, what = {
            "legacy": (self.scanned_bytes, self.total_bytes, "scanned out of"),
            "issued": (self.issued_bytes, self.total_bytes, "issued out of"),
            "slash": (self.issued_bytes, self.issue_total_bytes, "issued out of"),
        }.get(self.shape, (None, None, ""))
        if num is None or den is None:
            return None
        from ..report.nicenum import zfs_nicenum

        n, d = zfs_nicenum(num), zfs_nicenum(den)
        if den == 0:
            used = ", so the total is not used" if self.shape != "slash" else ""
            return (f"{n} {what} a total of 0B: no release prints that for a scan with bytes done{used}"
                    if num or self.scanned_bytes else None)
        if self.done_percent is None:
            return None
        want = 100.0 * num / den
        if abs(self.done_percent - want) <= max(1.0, 0.05 * want):
            return None
        rule = {"legacy": "before 0.8 % done is scanned ÷ total", "issued": "from 0.8 % done is issued ÷ total",
                "slash": "from 2.2 % done is issued ÷ the issue total"}[self.shape]
        return (f"{self.done_percent:.2f}% done disagrees with {n} {what} {d} ({want:.2f}%), and {rule}: the line "
                "looks edited; the scenario follows the byte counts")

    def elapsed_estimate_s(self) -> int | None:
        """Time the scan has run: the 2009 line says it; later eras print pass-average
        rates, so elapsed ≈ bytes so far ÷ rate (exact for a scan of one pass)."""
        if self.elapsed_s is not None:
            return self.elapsed_s
        if self.scanned_bytes and self.scan_rate_bytes_per_s:
            return self.scanned_bytes // self.scan_rate_bytes_per_s
        if self.issued_bytes and self.issue_rate_bytes_per_s:
            return self.issued_bytes // self.issue_rate_bytes_per_s
        return None


@dataclass(frozen=True)
class PoolStatus:
    """One pool of a ``zpool status``; ``source`` is ``text`` or ``json`` (``zpool status
    -j``, read by ``zpool_status_json`` into the same fields)."""

    name: str
    state: str
    file: str
    first_line: int
    last_line: int
    see: str | None
    scans: tuple[Scan, ...]
    rows: tuple[Row, ...]
    root: Vdev
    classes: tuple[tuple[str, tuple[Vdev, ...]], ...]
    errors: str
    source: str = "text"

    def vdevs_of(self, label: str) -> tuple[Vdev, ...]:
        """Top-level vdevs of a class section (``logs``, ``cache``, ``spares``, …)."""
        return next((vs for lab, vs in self.classes if lab == label), ())

    @property
    def vdevs(self) -> tuple[Vdev, ...]:
        return self.root.children

    def all_leaves(self) -> list[Vdev]:
        out = self.root.leaves() if self.root.children else []
        for _, vs in self.classes:
            out += [leaf for v in vs for leaf in v.leaves()]
        return out


# ----------------------------------------------------------------------------- numbers and times

_N = NUMBER
_PCT = r"\d+(?:[.,]\d+)?"
_HM = r"\d+h\d+m"
_DHMS = r"(?:\d+ days )?\d+:\d\d:\d\d"


def _hm_s(text: str) -> int:
    h, m = re.fullmatch(r"(\d+)h(\d+)m", text).groups()  # type: ignore[union-attr]
    return int(h) * 3600 + int(m) * 60


def _dhms_s(text: str) -> tuple[int, int | None]:
    """(seconds, day count or None) of ``[N days ]HH:MM:SS``."""
    d, h, m, s = re.fullmatch(r"(?:(\d+) days )?(\d+):(\d\d):(\d\d)", text).groups()  # type: ignore[union-attr]
    days = int(d) if d is not None else None
    return (days or 0) * 86400 + int(h) * 3600 + int(m) * 60 + int(s), days


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def parse_ctime(text: str | None) -> _dt.datetime | None:
    """``Tue Mar  7 10:02:11 2017`` (ctime(3), C locale) → a naive datetime, else None."""
    if not text:
        return None
    m = re.fullmatch(r"\w{3} (\w{3})\s+(\d{1,2}) (\d\d):(\d\d):(\d\d) (\d{4})", text.strip())
    if not m or m.group(1) not in _MONTHS:
        return None
    mon, day, hh, mm, ss, year = m.groups()
    try:
        return _dt.datetime(int(year), _MONTHS.index(mon) + 1, int(day), int(hh), int(mm), int(ss))
    except ValueError:
        return None


# ----------------------------------------------------------------------------- scan lines

_FIRST_2009 = [
    ("none", re.compile(r"none requested")),
    ("progress", re.compile(
        rf"(?P<func>scrub|resilver) in progress for (?P<el>{_HM}), (?P<pct>{_PCT})% done, (?P<eta>{_HM}) to go")),
    ("done", re.compile(
        rf"(?P<func>scrub|resilver) (?P<how>completed|stopped) after (?P<took>{_HM}) with (?P<err>\d+) errors"
        r" on (?P<end>.+)")),
]
_FIRST = [
    ("none", re.compile(r"none requested")),
    ("progress", re.compile(r"(?P<func>scrub|resilver) in progress since (?P<since>.+)")),
    ("rebuild-progress", re.compile(r"resilver \((?P<vdev>[^)]+)\) in progress since (?P<since>.+)")),
    ("paused", re.compile(r"(?P<func>scrub) paused since (?P<paused>.+)")),
    ("canceled", re.compile(r"(?P<func>scrub|resilver) canceled on (?P<end>.+)")),
    ("rebuild-canceled", re.compile(r"resilver \((?P<vdev>[^)]+)\) canceled on (?P<end>.+)")),
    ("done", re.compile(
        rf"(?:(?P<scrub>scrub repaired)|resilvered) (?P<proc>{_N}) in (?P<took>{_HM}|{_DHMS}) with (?P<err>\d+)"
        r" errors on (?P<end>.+)")),
    ("rebuild-done", re.compile(
        rf"resilvered \((?P<vdev>[^)]+)\) (?P<proc>{_N}) in (?P<took>{_DHMS}) with (?P<err>\d+) errors"
        r" on (?P<end>.+)")),
]
_CONT = [
    ("started", re.compile(r"scrub started on\s+(?P<since>.+)")),
    ("legacy", re.compile(
        rf"(?P<sc>{_N}) scanned out of (?P<tot>{_N})(?: at (?P<srate>{_N})/s, (?:(?P<eta>{_HM}) to go|"
        r"(?P<slow>\(scan is slow, no estimated time\))))?")),
    ("issued", re.compile(
        rf"(?P<sc>{_N}) scanned at (?P<srate>{_N})/s, (?P<is>{_N}) issued (?P<at>at )?(?P<irate>{_N})/s,"
        rf" (?P<tot>{_N}) total")),
    ("issued-paused", re.compile(rf"(?P<sc>{_N}) scanned, (?P<is>{_N}) issued, (?P<tot>{_N}) total")),
    ("slash", re.compile(
        rf"(?P<sc>{_N}) / (?P<tot>{_N}) scanned(?: at (?P<srate>{_N})/s)?, (?P<is>{_N}) / (?P<itot>{_N}) issued"
        rf"(?: at (?P<irate>{_N})/s)?")),
    ("done", re.compile(
        rf"(?P<proc>{_N}) (?P<what>repaired|resilvered), (?P<pct>{_PCT})% done(?:, (?:(?P<eta>{_DHMS}) to go|"
        r"(?P<noeta>no estimated completion time)))?")),
]
_EXPECT_CONT = ('a scan progress line such as "1.21T scanned out of 3.56T at 85.3M/s, 8h1m to go", '
                '"5.12T scanned at 1.02G/s, 1.87T issued at 381M/s, 10.4T total", '
                '"6.02T / 10.4T scanned at 1.20G/s, 2.11T / 10.4T issued at 431M/s" or "301G resilvered, 33.99% done"')
_EXPECT_FIRST = ('a scan line such as "scrub in progress since <date>", "resilver (mirror-0) in progress since '
                 '<date>", "scrub repaired 0B in 07:12:44 with 0 errors on <date>", "scrub canceled on <date>" '
                 'or "none requested"')


class _Evidence:
    """Byte-suffix evidence collected over a block's numbers."""

    def __init__(self) -> None:
        self.nicebytes: bool | None = None

    def num(self, text: str | None) -> int | None:
        if text is None:
            return None
        b = has_byte_suffix(text)
        if b is not None and (self.nicebytes is None or b):
            self.nicebytes = b
        return parse_number(text)


def _parse_scan_block(key: str, first: Line, value: str, cont: list[Line]) -> Scan:
    ev = _Evidence()
    kw: dict = {"key": key, "lines": (first, *cont)}
    text = value.strip()
    table = _FIRST_2009 if key == "scrub" else _FIRST
    kind, m = next(((k, rx.fullmatch(text)) for k, rx in table if rx.fullmatch(text)), (None, None))
    if m is None:
        raise ImportTextError(first.file, first.number, first.text, _EXPECT_FIRST)
    g = m.groupdict()
    if key == "scrub":  # OpenSolaris 2009: everything on the one line
        if kind == "none":
            return Scan(func="none", state="none", shape="none", **kw)
        if kind == "progress":
            eta_s = _hm_s(g["eta"])
            return Scan(func=g["func"], state="scanning", shape="2009", elapsed_s=_hm_s(g["el"]),
                        done_percent=parse_percent(g["pct"]), eta=g["eta"], eta_s=eta_s, took_hm=True, **kw)
        return Scan(func=g["func"], state="finished" if g["how"] == "completed" else "canceled", shape="2009",
                    took=g["took"], took_s=_hm_s(g["took"]), errors=int(g["err"]), ended=g["end"],
                    took_hm=True, **kw)
    if kind == "none":
        return Scan(func="none", state="none", shape="none", **kw)
    if kind in ("canceled", "rebuild-canceled"):
        return Scan(func=g.get("func") or "resilver", state="canceled", shape="canceled",
                    rebuild_vdev=g.get("vdev"), ended=g["end"], **kw)
    if kind in ("done", "rebuild-done"):
        took = g["took"]
        hm = re.fullmatch(_HM, took) is not None
        took_s, days = (_hm_s(took), None) if hm else _dhms_s(took)
        return Scan(func="scrub" if g.get("scrub") else "resilver", state="finished", shape="finished",
                    rebuild_vdev=g.get("vdev"), processed_bytes=ev.num(g["proc"]), took=took, took_s=took_s,
                    errors=int(g["err"]), ended=g["end"], took_hm=hm, days=days, hms=not hm and days is None,
                    nicebytes=ev.nicebytes, **kw)
    # In progress or paused: the numbers are on the continuation lines.
    kw.update(func=g.get("func") or "resilver", rebuild_vdev=g.get("vdev"))
    kw["state"] = "paused" if kind == "paused" else "scanning"
    kw["since"] = g.get("since")
    shape = None
    seen_done = False
    for ln in cont:
        body = ln.text.strip()
        ckind, cm = next(((k, rx.fullmatch(body)) for k, rx in _CONT if rx.fullmatch(body)), (None, None))
        if cm is None:
            raise ImportTextError(ln.file, ln.number, ln.text, _EXPECT_CONT)
        c = cm.groupdict()
        if kw.get("indent") is None:
            kw["indent"] = ln.text[: len(ln.text) - len(ln.text.lstrip())]
        if ckind == "started":
            kw["started"] = c["since"]
            continue
        if ckind == "done":
            seen_done = True
            kw["processed_bytes"] = ev.num(c["proc"])
            kw["done_percent"] = parse_percent(c["pct"])
            if c.get("eta"):
                kw["eta"] = c["eta"]
                kw["eta_s"], kw["days"] = _dhms_s(c["eta"])
                kw["hms"] = kw["days"] is None
            elif c.get("noeta"):
                kw["eta"] = c["noeta"]
            continue
        if ckind == "legacy":
            shape = "legacy"
            kw["scanned_bytes"], kw["total_bytes"] = ev.num(c["sc"]), ev.num(c["tot"])
            kw["scan_rate_bytes_per_s"] = ev.num(c["srate"])
            if c["eta"]:
                kw["eta"], kw["eta_s"] = c["eta"], _hm_s(c["eta"])
            elif c["slow"]:
                kw["eta"] = c["slow"]
            continue
        shape = {"issued": "rebuild" if not c.get("at") else "issued", "issued-paused": "issued",
                 "slash": "slash"}[ckind]
        kw["scanned_bytes"], kw["issued_bytes"] = ev.num(c["sc"]), ev.num(c["is"])
        kw["total_bytes"] = ev.num(c["tot"])
        kw["issue_total_bytes"] = ev.num(c.get("itot"))
        kw["scan_rate_bytes_per_s"] = ev.num(c.get("srate"))
        kw["issue_rate_bytes_per_s"] = ev.num(c.get("irate"))
    if shape is None or not seen_done:
        last = (cont or [first])[-1]
        raise ImportTextError(last.file, last.number + 1, None,
                              f"{'the' if shape is None else 'the second'} progress line of the scan that starts at "
                              f"line {first.number} ({_EXPECT_CONT}); is the paste cut off?")
    if shape == "issued" and kw["rebuild_vdev"] is not None:
        shape = "rebuild"
    return Scan(shape=shape, nicebytes=ev.nicebytes, **kw)


# ----------------------------------------------------------------------------- config tree

_HEADER = re.compile(r"^(?P<ind>\s*)NAME\s+STATE\s+READ\s+WRITE\s+CKSUM\b")
_TYPE = re.compile(r"(?P<t>mirror|raidz[123]?|replacing|spare|draid[123]?(?::[0-9a-z:]*)?)(?:-\d+)?")


def _row(ln: Line, base: int) -> Row:
    exp = ln.text.expandtabs(8).rstrip()
    ind = len(exp) - len(exp.lstrip())
    toks = list(re.finditer(r"\S+", exp))
    if ind < base:
        raise ImportTextError(ln.file, ln.number, ln.text,
                              "a config row indented at least as far as the NAME header (is this line part of "
                              "the tree?)")
    depth = (ind - base) // 2
    name = toks[0].group()
    if len(toks) == 1:
        return Row(depth, name, None, None, None, None, "", ln.number)
    state = toks[1].group()
    if state not in STATES:
        raise ImportTextError(ln.file, ln.number, ln.text,
                              f"a config row NAME STATE READ WRITE CKSUM, STATE one of {', '.join(STATES)}")
    counters: list[int] | None = None
    if len(toks) >= 5:
        try:
            counters = [parse_number(t.group()) for t in toks[2:5]]
        except ValueError:
            counters = None
    if counters is None:
        return Row(depth, name, state, None, None, None, exp[toks[1].end():].strip(), ln.number)
    return Row(depth, name, state, *counters, exp[toks[4].end():].strip(), ln.number)


def _vdev_kind(name: str) -> str | None:
    m = _TYPE.fullmatch(name)
    if not m:
        return None
    t = m.group("t")
    if t.startswith("draid"):
        return "draid" + (t[5] if t[5:6].isdigit() else "1")
    return "raidz1" if t == "raidz" else t


def _build(rows: list[Row], at: int, file: str, in_spares: bool) -> tuple[Vdev, int]:
    """The vdev at rows[at] with its subtree; returns it and the index after it."""
    r = rows[at]
    nxt = at + 1
    kids: list[Vdev] = []
    while nxt < len(rows) and rows[nxt].depth > r.depth:
        if rows[nxt].depth != r.depth + 1:
            raise ImportTextError(file, rows[nxt].line, rows[nxt].name,
                                  f"a row indented one level (2 spaces) below {r.name}")
        child, nxt = _build(rows, nxt, file, in_spares)
        kids.append(child)
    if r.state is None:
        raise ImportTextError(file, r.line, r.name, "a config row NAME STATE READ WRITE CKSUM")
    if r.read is None and not in_spares:
        raise ImportTextError(file, r.line, r.name,
                              f"READ WRITE CKSUM counters after the state {r.state} (only spares print none)")
    if r.depth == 0:
        kind = "root"
    elif kids:
        kind = _vdev_kind(r.name)
        if kind is None:
            raise ImportTextError(file, r.line, r.name,
                                  "a vdev type (mirror, raidz1/2/3, replacing, spare, draid) for a row with "
                                  "disks under it")
        if kind.startswith("draid"):
            _check_draid(r, kids, file)
        need = _MIN_CHILDREN.get(kind, 1)
        if len(kids) < need:
            raise ImportTextError(file, kids[-1].line + 1, None,
                                  f"at least {need} disks under {r.name} (line {r.line}), found {len(kids)}; "
                                  "is the paste cut off?")
    elif _vdev_kind(r.name) is not None:
        raise ImportTextError(file, r.line + 1, None,
                              f"the disks of {r.name} (line {r.line}) on the next lines; is the paste cut off?")
    else:
        kind = "disk"
    return Vdev(r.name, kind, r.state, r.note, r.read, r.write, r.cksum, r.line, tuple(kids)), nxt


def _check_draid(r: Row, kids: list[Vdev], file: str) -> None:
    """A dRAID row: a name zpool prints, and as many rows under it as the name's children."""
    dn = draid_name(r.name)
    if dn is None:
        raise ImportTextError(file, r.line, r.name, "a dRAID vdev named as zpool status prints it, "
                                                    "draid<parity>:<data>d:<children>c:<spares>s-<id> "
                                                    '("draid2:8d:24c:2s-0")')
    problem = draid_name_problem(dn)
    if problem is not None:
        raise ImportTextError(file, r.line, r.name, f"a dRAID geometry zpool create accepts: {problem}")
    if len(kids) != dn.children:
        at = kids[-1].line + 1 if len(kids) < dn.children else kids[dn.children].line
        raise ImportTextError(file, at, None,
                              f"{dn.children} rows under {r.name} (line {r.line}), as its name's {dn.children}c says; "
                              f"found {len(kids)} — is the paste cut off or edited? (zpool status -e leaves healthy "
                              "disks out: paste it without -e)")


def _tree(rows: list[Row], pool: str, file: str) -> tuple[Vdev, tuple[tuple[str, tuple[Vdev, ...]], ...]]:
    first = rows[0]
    if first.depth != 0 or first.name != pool:
        raise ImportTextError(file, first.line, first.name, f"the pool's own row ({pool}) first in the tree")
    root, i = _build(rows, 0, file, False)
    if not root.children:
        raise ImportTextError(file, first.line + 1, None,
                              f"the vdevs of {pool} under line {first.line}; is the paste cut off?")
    classes: list[tuple[str, tuple[Vdev, ...]]] = []
    while i < len(rows):
        r = rows[i]
        old_logs = r.depth == 0 and r.name == "logs" and r.read is not None  # OpenSolaris 2009.06
        if r.depth != 0 or (r.state is not None and not old_logs) or r.name not in CLASS_LABELS:
            raise ImportTextError(file, r.line, r.name,
                                  f"a class label ({', '.join(CLASS_LABELS)}) or a row under {pool}")
        i += 1
        members: list[Vdev] = []
        while i < len(rows) and rows[i].depth > 0:
            if rows[i].depth != 1:
                raise ImportTextError(file, rows[i].line, rows[i].name, f"a row indented one level under {r.name}")
            v, i = _build(rows, i, file, r.name == "spares")
            members.append(v)
        if not members:
            raise ImportTextError(file, r.line + 1, None, f"the devices of {r.name} (line {r.line})")
        classes.append((r.name, tuple(members)))
    return root, tuple(classes)


# ----------------------------------------------------------------------------- the whole text

_KEY = re.compile(
    r"^\s*(?P<key>pool|state|status|action|see|scan|scrub|remove|checkpoint|config|errors|comment|"
    r"scan warning)\s*:(?:\s(?P<val>.*))?$")
_IGNORED = ("status", "action", "see", "remove", "checkpoint", "comment", "scan warning")


class _Pool:
    def __init__(self, file: str, line: Line, name: str) -> None:
        self.file, self.line, self.name = file, line, name
        self.state: str | None = None
        self.see: str | None = None
        self.scan_blocks: list[tuple[str, Line, str, list[Line]]] = []
        self.base: int | None = None
        self.rows: list[Row] = []
        self.errors: str | None = None
        self.last = line.number

    def finish(self) -> PoolStatus:
        end = self.last
        if self.state is None:
            raise ImportTextError(self.file, self.line.number + 1, None, f'" state: ONLINE" after "pool: {self.name}"')
        if not self.rows:
            raise ImportTextError(self.file, end + 1, None,
                                  f"the config tree of {self.name} (config:, then NAME STATE READ WRITE CKSUM and "
                                  "one row per vdev); is the paste cut off?")
        if self.errors is None:
            raise ImportTextError(self.file, end + 1, None,
                                  f'the "errors:" line that ends the status of {self.name}; is the paste cut off?')
        root, classes = _tree(self.rows, self.name, self.file)
        scans = tuple(_parse_scan_block(k, ln, v, c) for k, ln, v, c in self.scan_blocks)
        return PoolStatus(self.name, self.state, self.file, self.line.number, end, self.see, scans,
                          tuple(self.rows), root, classes, self.errors)


def parse(section: Section) -> list[PoolStatus]:
    """Every pool of a ``zpool status`` section, in order."""
    pools: list[PoolStatus] = []
    cur: _Pool | None = None
    mode = "head"
    for ln in section.lines:
        t = ln.text
        if not t.strip():
            continue
        m = _KEY.match(t)
        if m and mode == "config" and m.group("key") not in ("errors", "pool"):
            m = None  # inside the tree only these end it
        if m and (cur is not None or m.group("key") == "pool"):
            key, val = m.group("key"), (m.group("val") or "").strip()
            if key == "pool":
                if cur is not None:
                    pools.append(cur.finish())
                cur, mode = _Pool(section.file, ln, val), "head"
            elif key == "state":
                cur.state, mode = val, "head"  # type: ignore[union-attr]
            elif key in ("scan", "scrub"):
                cur.scan_blocks.append((key, ln, val, []))  # type: ignore[union-attr]
                mode = "scan"
            elif key == "config":
                mode = "config-head"
            elif key == "errors":
                cur.errors, mode = val, "errors"  # type: ignore[union-attr]
            else:
                if key == "see":
                    cur.see = val  # type: ignore[union-attr]
                mode = "ignore"
            cur.last = ln.number  # type: ignore[union-attr]
            continue
        if cur is None:
            if STAMP.match(t):
                continue
            raise ImportTextError(ln.file, ln.number, t, '"  pool: NAME", the first line of zpool status')
        cur.last = ln.number
        indented = t[:1] in (" ", "\t")
        if mode == "errors" or (mode == "ignore" and indented):
            continue  # the -v error list; status/action prose
        if mode == "scan" and indented:
            cur.scan_blocks[-1][3].append(ln)
            continue
        if mode == "config-head":
            h = _HEADER.match(t)
            if not h:
                raise ImportTextError(ln.file, ln.number, t, "the NAME STATE READ WRITE CKSUM header after config:")
            cur.base = len(h.group("ind").expandtabs(8))
            mode = "config"
            continue
        if mode == "config":
            cur.rows.append(_row(ln, cur.base or 0))
            continue
        raise ImportTextError(ln.file, ln.number, t,
                              "a zpool status line (pool:, state:, status:, action:, see:, scan:, config:, "
                              "errors:) or its indented continuation")
    if cur is None:
        raise ImportTextError(section.file, section.first_line, None, '"  pool: NAME", the first line of zpool status')
    pools.append(cur.finish())
    return pools


# ----------------------------------------------------------------------------- which release printed it

_LEGACY_SPACES = ("freebsd-9", "illumos-2012", "illumos-2014", "zfs-0.6.5")
_ISSUED = ("zfs-0.8", "zfs-2.0", "zfs-2.1")
_NEW = ("zfs-2.0", "zfs-2.1", "zfs-2.2", "zfs-2.3")
# When several releases print the same text: the first of these that remains.
PREFERENCE = ("zfs-2.2", "zfs-2.1", "zfs-0.8", "zfs-0.7", "illumos-2014", "zfs-0.6.5", "freebsd-9",
              "illumos-2012", "zfs-2.3", "zfs-2.0", "solaris-2009")


def _ordered(rs: Iterable[str]) -> tuple[str, ...]:
    s = set(rs)
    return tuple(r for r in RELEASES if r in s)


def candidate_releases(scan: Scan) -> tuple[tuple[str, ...], str]:
    """The releases whose ``zpool status`` prints this scan block exactly, and why."""
    if scan.key == "scrub":
        return ("solaris-2009",), 'the " scrub:" line of OpenSolaris until 2010 (print_scrub_status)'
    ind = {"\t": "a TAB", "    ": "4 spaces", " " * 8: "8 spaces"}.get(scan.indent or "", None)
    if scan.shape == "legacy":
        if scan.state == "paused":
            return ("zfs-0.7",), 'a paused scrub in the "scanned out of" wording (ZoL 0.7 only)'
        if scan.nicebytes or scan.indent == "\t":
            why = "a TAB" if scan.indent == "\t" else "a B on byte counts (zfs_nicebytes)"
            return ("zfs-0.7",), f'"scanned out of" lines with {why}: ZoL 0.7'
        if scan.indent == " " * 8:
            return ("freebsd-9",), ('"scanned out of" lines indented by 8 spaces: FreeBSD (a ZoL 0.7 TAB turned into '
                                    "spaces by the paste would read the same; then pass --release zfs-0.7)")
        rs = _LEGACY_SPACES + (("zfs-0.7",) if scan.nicebytes is None and ind is None else ())
        return _ordered(rs), f'"scanned out of" lines indented by {ind or repr(scan.indent)} (2010-2017 format)'
    if scan.shape == "issued":
        if scan.days == 0:
            return ("zfs-0.8",), 'the "scanned at, issued at, total" lines with a "0 days" ETA: 0.8 always prints days'
        if scan.hms:
            return ("zfs-2.0", "zfs-2.1"), ('the "scanned at, issued at, total" lines with an ETA without days: '
                                            "2.0 and 2.1")
        return _ISSUED, 'the "scanned at, issued at, total" lines (0.8 to 2.1)'
    if scan.shape == "rebuild":
        return ("zfs-2.0", "zfs-2.1"), 'a sequential rebuild whose issue rate lacks "at" (2.0 and 2.1)'
    if scan.shape == "slash":
        return ("zfs-2.2", "zfs-2.3"), 'the "X / T scanned, Y / T issued" lines (2.2 and later)'
    if scan.shape == "finished":
        if scan.took_hm:
            rs = [r for r in (*_LEGACY_SPACES, "zfs-0.7")
                  if scan.nicebytes is None or (r == "zfs-0.7") == scan.nicebytes]
            return _ordered(rs), f'a finished {scan.func} timed "{scan.took}" (2010-2017 format)'
        if scan.days == 0:
            return ("zfs-0.8",), f'a finished {scan.func} timed "{scan.took}": 0.8 always prints days'
        if scan.rebuild_vdev is not None or scan.hms:
            return _NEW, f'a finished {scan.func} timed "{scan.took}" (2.0 and later)'
        return _ordered(("zfs-0.8", *_NEW)), f'a finished {scan.func} timed "{scan.took}" (0.8 and later)'
    if scan.shape == "canceled":
        if scan.rebuild_vdev is not None:
            return _NEW, "a canceled sequential rebuild (2.0 and later)"
        return tuple(r for r in RELEASES if r != "solaris-2009"), f"a canceled {scan.func} (printed alike since 2010)"
    # "none requested" under "scan:": every release from 2010 to 0.8; 2.0+ prints no scan line
    return _ordered((*_LEGACY_SPACES, "zfs-0.7", "zfs-0.8")), '"scan: none requested" (2010 to 0.8; 2.0+ prints none)'


_FREEBSD = re.compile(r"^(?:(?:ada|da|nvd|nda|mfid|mfisyspd|vtbd|ad|aacd|twed|ipsd|amrd|mmcsd)\d+(?:p\d+|s\d+[a-h]?)?"
                      r"|(?:gptid|gpt|diskid|label|ufsid)/.+)(?:\.eli|\.nop)?$")
_ILLUMOS = re.compile(r"^c\d+(?:t[0-9A-Fa-f]+)?d\d+(?:s\d+|p\d+)?$")
_LINUX = re.compile(r"^(?:(?:sd[a-z]+|hd[a-z]+|vd[a-z]+|xvd[a-z]+)\d*|nvme\d+n\d+(?:p\d+)?|dm-\d+|"
                    r"/dev/.+|(?:ata|scsi|wwn|nvme|usb|virtio|dm-uuid|dm-name)-.+)$")


def platform_hint(status: PoolStatus) -> tuple[str | None, str]:
    """``linux``, ``freebsd``, ``illumos`` or None, from the ``see:`` URL and the device
    names, with the reason in words."""
    see = status.see or ""
    if "zfsonlinux.org" in see:
        return "linux", f"the see: URL {see}"
    if "illumos.org/msg" in see or "sun.com/msg" in see:
        # FreeBSD's zpool printed illumos's URL (http://www.sun.com/msg/ until FreeBSD took
        # illumos 763 in 2012, http://illumos.org/msg/ after it): the device names decide.
        names, why = _names_hint(status)
        if names == "freebsd":
            return "freebsd", f"{why} (the see: URL {see} is illumos's, which FreeBSD prints too)"
        return "illumos", f"the see: URL {see}"
    return _names_hint(status)


def _names_hint(status: PoolStatus) -> tuple[str | None, str]:
    """The platform the device names point at, or None when they do not say."""
    votes = {"linux": 0, "freebsd": 0, "illumos": 0}
    for leaf in status.all_leaves():
        n = leaf.name.split("/old")[0]
        for plat, rx in (("freebsd", _FREEBSD), ("illumos", _ILLUMOS), ("linux", _LINUX)):
            if rx.match(n):
                votes[plat] += 1
                break
    best = max(votes, key=lambda k: votes[k])
    if votes[best] == 0 or list(votes.values()).count(votes[best]) > 1:
        return None, "the device names do not say"
    example = next(v.name for v in status.all_leaves() if {"freebsd": _FREEBSD, "illumos": _ILLUMOS,
                                                           "linux": _LINUX}[best].match(v.name.split("/old")[0]))
    return best, f"device names such as {example}"


_PLATFORM_RELEASES = {
    "linux": lambda r: r.startswith("zfs-"),
    "freebsd": lambda r: r == "freebsd-9" or r.startswith("zfs-2."),
    "illumos": lambda r: r.startswith(("illumos", "solaris")),
}


@dataclass(frozen=True)
class ReleaseGuess:
    release: str
    candidates: tuple[str, ...]
    reasons: tuple[str, ...] = field(default=())
    platform: str | None = None
    no_scan_line: bool = False
    #: the text's format is printed only by releases older than dRAID (zfs-2.1), yet it
    #: shows a dRAID vdev: why, in words (``choose_release`` refuses it without --release)
    draid_conflict: str | None = None


DRAID_FIRST_RELEASE = "zfs-2.1"  # OpenZFS 2.1.0 added dRAID
SPECIAL_FIRST_RELEASE = "zfs-0.8"  # OpenZFS 0.8.0 added allocation classes (special, dedup)


def draid_vdevs(status: PoolStatus) -> list[Vdev]:
    return [v for v in status.vdevs if v.kind.startswith("draid")]


def guess_release(status: PoolStatus) -> ReleaseGuess:
    """The release that prints this status's scan line(s); see the module docstring.
    JSON (``zpool status -j``) names its release by existing: OpenZFS 2.3.0 added it."""
    if status.source == "json":
        plat, _ = platform_hint(status)
        return ReleaseGuess("zfs-2.3", ("zfs-2.3",), ("zpool status -j (JSON output, OpenZFS 2.3.0 and later)",),
                            plat)
    reasons: list[str] = []
    if not status.scans:
        cands: tuple[str, ...] = _NEW
        reasons.append("no scan line: zfs-2.0 and later print none for a pool never scanned")
    else:
        cands = tuple(RELEASES)
        for s in status.scans:
            rs, why = candidate_releases(s)
            reasons.append(why)
            narrowed = tuple(r for r in cands if r in rs)
            cands = narrowed or cands
    conflict = None
    draids = draid_vdevs(status)
    if draids:
        d = draids[0]
        narrowed = tuple(r for r in cands if at_least(r, DRAID_FIRST_RELEASE))
        if narrowed:
            if narrowed != cands:
                reasons.append(f"a dRAID vdev ({d.name}, line {d.line}): {DRAID_FIRST_RELEASE} and later")
            cands = narrowed
        else:
            conflict = (f"the scan line's format is printed only by {', '.join(cands)}, older than dRAID, yet line "
                        f"{d.line} shows the dRAID vdev {d.name} ({DRAID_FIRST_RELEASE} and later)")
    special = status.vdevs_of("special")
    if special:
        # Allocation classes came with OpenZFS 0.8.0; a text whose scan line only older
        # releases print is refused by the importer (check_special_release), not here.
        narrowed = tuple(r for r in cands if at_least(r, SPECIAL_FIRST_RELEASE))
        if narrowed and narrowed != cands:
            reasons.append(f"a special vdev ({special[0].name}, line {special[0].line}): {SPECIAL_FIRST_RELEASE} "
                           "and later")
        cands = narrowed or cands
    plat, why = platform_hint(status)
    odd = [s for s in status.scans if s.inconsistency() is not None]
    if plat is not None and odd and not any(_PLATFORM_RELEASES[plat](r) for r in cands):
        # A line no release printed as it reads (an edited paste) is no evidence against
        # the device names: its byte suffixes (a lone "0B") do not rule the platform out.
        plain = [candidate_releases(dataclasses.replace(s, nicebytes=None)) if s in odd else candidate_releases(s)
                 for s in status.scans]
        cands = tuple(r for r in RELEASES if all(r in rs for rs, _ in plain)) or cands
        reasons = [why for _, why in plain] + [f"the byte suffixes of the inconsistent scan line ({odd[0].lines[0].file} "
                                               f"line {odd[0].lines[0].number}) not taken as evidence"]
    if plat is not None:
        narrowed = tuple(r for r in cands if _PLATFORM_RELEASES[plat](r))
        if narrowed and narrowed != cands:
            reasons.append(f"{plat} ({why})")
        cands = narrowed or cands
    pick = next(r for r in PREFERENCE if r in cands)
    return ReleaseGuess(pick, cands, tuple(reasons), plat, not status.scans, conflict)

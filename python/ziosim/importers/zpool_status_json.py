"""``zpool status -j`` (OpenZFS 2.3+) → ``PoolStatus``: the objects the text parser makes.

Theory of operation
-------------------
OpenZFS 2.3.0 prints ``zpool status`` as JSON with ``-j`` (``status_callback_json`` in
cmd/zpool/zpool_main.c, the same in every 2.3.x tag read, zfs-2.3.0 … zfs-2.3.5): one line
(``nvlist_print_json``), or many when piped through ``jq``. ``split_sections`` starts a
section at a line beginning with ``{`` and ends it where the JSON document ends
(``document_end``); ``parse`` turns each pool of it into the ``PoolStatus`` the text of the
same moment gives (``zpool_status.parse``), so the scenario builder, the release guess,
``--predict`` and the iostat -x matching read it unchanged. What differs is said here:

* **Forms.** Numbers as strings (``"1.21T"``, ``"0B"``, ``-p``'s exact ``"1331439861760"``)
  or, with ``--json-int``, integers — then every byte count, rate and ETA is exact where the
  text's are rounded to three digits. Vdevs nested (``vdevs`` inside ``vdevs``) or
  ``--json-flat-vdevs``: every vdev a key of the pool's ``vdevs`` naming its ``parent``. The
  flat form is flat only in part — ``vdev_stats_nvlist`` still nests each interior vdev's
  children, and a child recursion adds its leaves to the level above too — so the tree is
  rebuilt from the ``parent`` names: a vdev's children are the entries of its ``vdevs``
  whose ``parent`` is the vdev. Pools keyed by name or, with ``--json-pool-key-guid``, by
  guid (the pool's ``name`` is used either way).
* **The tree.** ``name``; the kind from ``vdev_type`` (raidz parity from the name,
  ``raidz2-0``; a ``draid`` vdev's parity, data, children and distributed spares from its
  name, ``draid2:8d:24c:2s-0``, which must hold that many children; a ``dspare``, a dRAID's
  distributed spare, must be named ``draid2-0-1`` as the text names it); the text's state
  from ``state`` and ``aux`` as ``zpool_state_to_name`` maps them (``CANT_OPEN`` →
  ``UNAVAIL``, or ``FAULTED`` for corrupt data); the note the text prints after the
  counters, from ``not_present``/``was``, ``aux`` (``OPEN_FAILED`` → "cannot open", … as
  ``print_status_config``), ``configured_ashift`` ("block size: 512B configured, 4096B
  native"), ``removing``/``noalloc``, and while a scan runs
  ``scan_processed`` → "(resilvering)"/"(repairing)" or ``resilver_deferred`` →
  "(awaiting resilver)" on ONLINE disks. The 2.x "(resilvering)" of a sequential rebuild
  comes from ``vs_rebuild_processed``, which the JSON lacks: it is inferred for the ONLINE
  last disk of each ``replacing-N``/``spare-N`` under a top-level vdev whose rebuild is
  ACTIVE with bytes rebuilt — the disk a rebuild writes. Class sections: ``dedup``,
  ``special``, ``logs``, ``l2cache`` (the text's ``cache``), ``spares`` (nested form), or
  each top-level entry's ``class`` (flat form).
* **The scans.** ``scan_stats`` holds pool_scan_stat_t and ``rebuild_stats`` every
  top-level vdev's vdev_rebuild_stat_t; the scan blocks are the ones 2.3's text prints
  (``report.status.printed_scans``), with the numbers its ``print_scan_status`` computes
  (``scan_progress``, ``rebuild_progress`` at release zfs-2.3): % done, and — a rate
  divides by ``time(NULL) - pass_start`` — the rates and the ETA only when the JSON has a
  clock: ``time`` from ``-T u`` (or ``-T d``, then the elapsed time is ``time - start_time``,
  exact for a scan of one pass). Without ``-T`` the scan reads with no rate and no ETA,
  as a paused one does. A rebuild's rates need no clock (``pass_time``).
* **Dates** read as ``format_timestamp`` prints them in the C locale, ``Sat Oct 14 00:00:01
  UTC 2023`` (glibc; FreeBSD has no zone name), local time; ``-`` is 0; with
  ``--json-int`` (or ``-p``) seconds since the epoch, shown in UTC. The scan's start, end
  and pause are kept in ``ctime`` form as the text prints them.
* **Line numbers** are where a key stands in the file (the first line of a one-line
  document); the scan block's lines quote the JSON members read, as the text quotes its
  scan lines.

Errors are ``ImportTextError``\\ s naming the file, the line and the JSON path in jq's
syntax (``.pools.tank.scan_stats.examined``) and what is allowed.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass

from ..report.status import ctime_utc, printed_scans, rebuild_progress, scan_progress, secs_to_dhms
from . import ImportTextError, Line, Section, parse_number
from .zpool_status import STATES, PoolStatus, Row, Scan, Vdev, draid_name, draid_name_problem, dspare_name

__all__ = ["KIND", "starts", "document_end", "parse"]

KIND = "statusjson"
_RELEASE = "zfs-2.3"  # the arithmetic of every 2.3.x print_scan_status
_MASK64 = (1 << 64) - 1
_MIN_CHILDREN = {"mirror": 2, "raidz1": 2, "raidz2": 3, "raidz3": 4, "replacing": 2, "spare": 2, "draid1": 2,
                 "draid2": 3, "draid3": 4}
_CLASS_KEYS = (("dedup", "dedup"), ("special", "special"), ("logs", "logs"), ("l2cache", "cache"),
               ("spares", "spares"))  # status_callback_json's order; the text's labels
_FLAT_CLASS = {"dedup": "dedup", "special": "special", "log": "logs", "l2cache": "cache", "spare": "spares"}
_FUNCS = {"NONE": "none", "SCRUB": "scrub", "RESILVER": "resilver"}  # pool_scan_func_str
_SCAN_STATES = {"NONE": "none", "SCANNING": "scanning", "FINISHED": "finished", "CANCELED": "canceled"}
_REBUILD_STATES = {"ACTIVE": "active", "CANCELED": "canceled", "COMPLETE": "complete"}  # vdev_rebuild_state_str
# vdev_state_str → zpool_state_to_name (lib/libzfs/libzfs_pool.c@zfs-2.3.0), CANT_OPEN apart.
_VDEV_STATES = {"ONLINE": "ONLINE", "DEGRADED": "DEGRADED", "FAULTED": "FAULTED", "OFFLINE": "OFFLINE",
                "CLOSED": "OFFLINE", "REMOVED": "REMOVED", "CANT_OPEN": "UNAVAIL", "AVAIL": "AVAIL",
                "INUSE": "INUSE"}
# print_status_config's words for vs_aux (ZM@zfs-2.3.0); any other aux prints "corrupted data".
_AUX_NOTE = {"OPEN_FAILED": "cannot open", "BAD_GUID_SUM": "missing device", "NO_REPLICAS": "insufficient replicas",
             "VERSION_NEWER": "newer version", "UNSUP_FEAT": "unsupported feature(s)",
             "ASHIFT_TOO_BIG": "unsupported minimum blocksize", "IO_FAILURE": "experienced I/O failures",
             "BAD_LOG": "bad intent log", "EXTERNAL": "external device fault", "SPLIT_POOL": "split into new pool",
             "ACTIVE": "currently in use", "CHILDREN_OFFLINE": "all children offline", "BAD_LABEL": "invalid label"}
_INTERIOR = ("mirror", "raidz", "replacing", "spare", "draid")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
# format_timestamp in the C locale: glibc's _DATE_FMT "%a %b %e %H:%M:%S %Z %Y", or D_T_FMT
# without the zone (FreeBSD).
_DATE = re.compile(r"(\w{3}) (\w{3})\s+(\d{1,2}) (\d\d):(\d\d):(\d\d)(?: [A-Za-z][\w+-]*| [+-]\d{4})? (\d{4})")
_TIME_UNITS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9, "?": 10**12}
_EXPECT_BYTES = 'a byte count as zpool prints it ("1.21T", "0B", "512") or, with --json-int, an integer'
_EXPECT_DATE = ('a date as zpool status -j prints it in the C locale ("Sat Oct 14 00:00:01 UTC 2023", "-") or, '
                "with --json-int, seconds since 1970 (run LC_ALL=C zpool status -j, or add --json-int)")


# ----------------------------------------------------------------------------- recognising


def starts(raw: str) -> bool:
    """A line that begins a JSON document (``zpool status -j`` prints one line; ``| jq``
    puts the brace alone on the first)."""
    return raw.lstrip().startswith("{")


def document_end(file: str, lines: list[str], start: int) -> int:
    """The 1-based number of the last line of the JSON document that begins on line
    ``start``; an ImportTextError where it does not parse."""
    rest = "\n".join(lines[start - 1:])
    first = len(rest) - len(rest.lstrip())
    try:
        _, end = json.JSONDecoder().raw_decode(rest, first)
    except json.JSONDecodeError as e:
        n = start + e.lineno - 1
        raise ImportTextError(file, n, lines[n - 1] if n <= len(lines) and lines[n - 1].strip() else None,
                              f"JSON as zpool status -j prints it ({e.msg} at column {e.colno}); "
                              "is the paste cut off?") from None
    last = start + rest.count("\n", 0, end)
    if rest[end:].split("\n", 1)[0].strip():
        raise ImportTextError(file, last, lines[last - 1], "nothing after the JSON document on its last line")
    return last


# ----------------------------------------------------------------------------- values


def _jq(path: tuple[str, ...]) -> str:
    """A JSON path in jq's syntax: ``.pools.tank.vdevs["raidz2-0"]``."""
    return "".join(f".{k}" if re.fullmatch(r"[A-Za-z_]\w*", k) else f"[{json.dumps(k)}]" for k in path) or "."


@dataclass(frozen=True)
class _Stamp:
    """A date: seconds (since the epoch, or of local time read as if UTC when ``local``)
    and the ``ctime`` text the text form prints (None for 0)."""

    s: int
    local: bool
    ctime: str | None


class _Doc:
    """One JSON document: where its keys are, and typed reads that fail with a path."""

    def __init__(self, section: Section) -> None:
        self.file = section.file
        self.first = section.first_line
        self.text = "\n".join(ln.text for ln in section.lines)
        self.starts = [0]
        for ln in section.lines[:-1]:
            self.starts.append(self.starts[-1] + len(ln.text) + 1)

    def line_at(self, offset: int) -> int:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return self.first + lo

    def find(self, pattern: str, offset: int = 0) -> int:
        """Offset of the first match at or after ``offset`` (``offset`` itself if none)."""
        m = re.compile(pattern).search(self.text, offset)
        return m.start() if m else offset

    def key_line(self, key: str, offset: int = 0) -> int:
        return self.line_at(self.find(re.escape(json.dumps(key)) + r"\s*:", offset))

    def path_line(self, path: tuple[str, ...]) -> int:
        """The line of a member: each key of the path looked for after the one before (a
        missing last key gives its object's line)."""
        offset = 0
        for key in path:
            offset = self.find(re.escape(json.dumps(key)) + r"\s*:", offset)
        return self.line_at(offset)

    def error(self, path: tuple[str, ...], value: object, expected: str, missing: bool = False) -> ImportTextError:
        """``FILE:LINE: PATH: "value" — expected …`` at the member's line (its object's, if
        the member is missing)."""
        line = self.path_line(path[:-1] if missing else path)
        shown = None if value is None else (value if isinstance(value, str) else json.dumps(value))
        return ImportTextError(self.file, line, shown, expected, path=_jq(path))

    def obj(self, parent: dict, key: str, path: tuple[str, ...], required: bool = True) -> dict:
        v = parent.get(key)
        if v is None and not required:
            return {}
        if not isinstance(v, dict):
            raise self.error((*path, key), v, "an object" + ("" if v is not None else " (the key is missing)"),
                             missing=key not in parent)
        return v

    def string(self, parent: dict, key: str, path: tuple[str, ...], allowed=None) -> str:
        v = parent.get(key)
        if not isinstance(v, str) or (allowed is not None and v not in allowed):
            want = f"one of {', '.join(allowed)}" if allowed is not None else "a string"
            raise self.error((*path, key), v, want + ("" if v is not None else " (the key is missing)"),
                             missing=key not in parent)
        return v

    def number(self, parent: dict, key: str, path: tuple[str, ...], default: int | None = None) -> int:
        """A byte count or a count: a nicenum string, an exact one (-p), or an integer."""
        v = parent.get(key)
        if v is None and default is not None:
            return default
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            return v
        if isinstance(v, str):
            try:
                return parse_number(v)
            except ValueError:
                pass
        raise self.error((*path, key), v, _EXPECT_BYTES + ("" if key in parent else " (the key is missing)"),
                         missing=key not in parent)

    def stamp(self, parent: dict, key: str, path: tuple[str, ...]) -> _Stamp:
        v = parent.get(key, 0)
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            return _epoch_stamp(v)
        if isinstance(v, str):
            t = v.strip()
            if t == "-":
                return _Stamp(0, False, None)
            if t.isdigit():
                return _epoch_stamp(int(t))
            m = _DATE.fullmatch(t)
            if m and m.group(2) in _MONTHS:
                wd, mon, day, hh, mm, ss, year = m.groups()
                try:
                    d = _dt.datetime(int(year), _MONTHS.index(mon) + 1, int(day), int(hh), int(mm), int(ss))
                except ValueError:
                    d = None
                if d is not None:
                    s = int(d.replace(tzinfo=_dt.timezone.utc).timestamp())
                    return _Stamp(s, True, f"{wd} {mon} {int(day):2d} {hh}:{mm}:{ss} {year}")
        raise self.error((*path, key), v, _EXPECT_DATE)

    def time_ns(self, parent: dict, key: str, path: tuple[str, ...]) -> tuple[int, bool]:
        """A ZFS_NICENUM_TIME duration in ns (floored, as printed), and whether its whole
        seconds are exact: all but zpool's ``N?``, its unit from a thousand seconds up."""
        v = parent.get(key, 0)
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            return v, True
        if isinstance(v, str):
            t = v.strip()
            if t == "-":
                return 0, True
            m = re.fullmatch(r"(\d+)(ns|us|ms|s|\?)", t)
            if m:
                return int(m.group(1)) * _TIME_UNITS[m.group(2)], m.group(2) != "?"
            if t.isdigit():
                return int(t), True
        raise self.error((*path, key), v, 'a duration as zpool prints it ("373s", "12ms", "-") or, with '
                                          "--json-int, nanoseconds")


def _epoch_stamp(t: int) -> _Stamp:
    """Seconds since the epoch, shown in UTC as ziosim's own ``zpool status`` shows them."""
    return _Stamp(t, False, ctime_utc(t).rstrip("\n") if t else None)


def _quote(v: object) -> str:
    return v if isinstance(v, str) else json.dumps(v)


# ----------------------------------------------------------------------------- the tree


class _Tree:
    """Builds ``Vdev``s and ``Row``s from one pool's vdev objects."""

    def __init__(self, doc: _Doc, path: tuple[str, ...], offset: int, flat: bool, scan: dict,
                 rebuilding: set[str]) -> None:
        self.doc, self.path, self.offset, self.flat = doc, path, offset, flat
        self.scan = scan              # {"func": …, "state": …} of pool_scan_stat_t
        self.rebuilding = rebuilding  # top-level vdevs with an ACTIVE rebuild that has rebuilt bytes
        self.rows: list[Row] = []

    def children(self, obj: dict, name: str, path: tuple[str, ...]) -> list[tuple[str, dict]]:
        kids = self.doc.obj(obj, "vdevs", path, required=False)
        out = []
        for key, c in kids.items():
            if not isinstance(c, dict):
                raise self.doc.error((*path, "vdevs", key), c, "an object (a vdev)")
            if not self.flat or c.get("parent") == name:
                out.append((key, c))
        return out

    def vdev(self, key: str, obj: dict, path: tuple[str, ...], depth: int, top: str | None,
             spare: bool = False, parent_kind: str | None = None, last: bool = False) -> Vdev:
        doc = self.doc
        name = obj.get("name", key)
        if not isinstance(name, str):
            raise doc.error((*path, "name"), name, "a string (the vdev's name)")
        line = doc.line_at(doc.find(r'"name"\s*:\s*' + re.escape(json.dumps(name)), self.offset))
        kids = self.children(obj, name, path)
        vtype = obj.get("vdev_type")
        kind = "root" if depth == 0 else self.kind(name, vtype, bool(kids), path)
        state = self.state(obj, path, spare)
        counters: list[int | None] = [None, None, None]
        if not spare or "read_errors" in obj:
            counters = [doc.number(obj, k, path)
                        for k in ("read_errors", "write_errors", "checksum_errors")]
        top = name if depth == 1 else top  # the top-level vdev this one belongs to
        note = self.note(obj, path, kind, state, counters, top, parent_kind, last)
        self.rows.append(Row(depth, name, state, *counters, note, line))
        built = [self.vdev(k, c, (*path, "vdevs", k), depth + 1, top, spare, kind, i == len(kids) - 1)
                 for i, (k, c) in enumerate(kids)]
        need = _MIN_CHILDREN.get(kind, 1) if kids else 0
        if len(built) < need:
            raise doc.error((*path, "vdevs"), None, f"at least {need} vdevs under {name} (found {len(built)})")
        dn = draid_name(name) if kind.startswith("draid") else None
        if dn is not None and len(built) != dn.children:
            raise doc.error((*path, "vdevs"), None, f"{dn.children} vdevs under {name}, as its name's {dn.children}c "
                                                    f"says (found {len(built)}); is the JSON cut down? (zpool status "
                                                    "-e leaves healthy disks out: run it without -e)")
        if vtype == "dspare" and dspare_name(name) is None:
            raise doc.error((*path, "name"), name, "a distributed spare named draid<parity>-<top vdev id>-<spare id> "
                                                   '("draid2-0-1"), which says whose it is (zpool status -j -g names '
                                                   "vdevs by guid; run it without -g)")
        # Space: an interior vdev's alloc_space, a leaf's phys_space (both omitted when 0).
        alloc = doc.number(obj, "alloc_space", path) if kids and "alloc_space" in obj else None
        size = doc.number(obj, "phys_space", path) if not kids and "phys_space" in obj else None
        return Vdev(name, kind, state, note, *counters, line, tuple(built), alloc_bytes=alloc, size_bytes=size or None)

    def kind(self, name: str, vtype: object, has_kids: bool, path: tuple[str, ...]) -> str:
        t = vtype if isinstance(vtype, str) else next((p for p in _INTERIOR if name.startswith(p)), "disk")
        if t not in _INTERIOR:
            if has_kids:
                raise self.doc.error((*path, "vdev_type"), vtype, f"an interior vdev type ({', '.join(_INTERIOR)}) "
                                                                  "for a vdev with vdevs under it")
            return "disk"
        if not has_kids:
            raise self.doc.error((*path, "vdevs"), None, f"the vdevs of {name} (a {t}); is the JSON cut down?")
        if t == "raidz":
            m = re.match(r"raidz([123])?(?:-\d+)?$", name)
            if m is None:
                raise self.doc.error((*path, "name"), name, 'a raidz vdev named raidzP-N ("raidz2-0"), which gives '
                                                            "its parity (zpool status -j -g names vdevs by guid; "
                                                            "run it without -g)")
            return f"raidz{m.group(1) or 1}"
        if t == "draid":
            dn = draid_name(name)
            if dn is None:
                raise self.doc.error((*path, "name"), name, "a dRAID vdev named draid<parity>:<data>d:<children>c:"
                                                            '<spares>s-<id> ("draid2:8d:24c:2s-0"), which gives its '
                                                            "geometry (zpool status -j -g names vdevs by guid; run it "
                                                            "without -g)")
            problem = draid_name_problem(dn)
            if problem is not None:
                raise self.doc.error((*path, "name"), name, f"a dRAID geometry zpool create accepts: {problem}")
            return f"draid{dn.parity}"
        return t

    def state(self, obj: dict, path: tuple[str, ...], spare: bool) -> str:
        raw = self.doc.string(obj, "state", path, tuple(_VDEV_STATES))
        if raw == "CANT_OPEN" and obj.get("aux") in ("CORRUPT_DATA", "BAD_LOG"):
            return "FAULTED"
        return _VDEV_STATES[raw]

    def note(self, obj: dict, path: tuple[str, ...], kind: str, state: str, counters: list[int | None],
             top: str | None, parent_kind: str | None, last: bool) -> str:
        """What ``print_status_config`` prints after the counters, from the same fields."""
        parts = []
        aux = obj.get("aux")
        if "not_present" in obj:
            parts.append(f"was {obj.get('was', '')}")
        elif isinstance(aux, str) and aux != "NONE":
            if aux == "SPARED":
                used = obj.get("used_by")
                parts.append(f"in use by pool '{used}'" if isinstance(used, str) else "currently in use")
            elif aux == "ERR_EXCEEDED":
                slow = self.doc.number(obj, "slow_ios", path, default=0)
                quiet = kind == "disk" and not any(counters) and slow > 0
                parts.append("too many slow I/Os" if quiet else "too many errors")
            else:
                parts.append(_AUX_NOTE.get(aux, "corrupted data"))
        elif "configured_ashift" in obj and "physical_ashift" in obj:
            c = self.doc.number(obj, "configured_ashift", path)
            p = self.doc.number(obj, "physical_ashift", path)
            parts.append(f"block size: {1 << c}B configured, {1 << p}B native")
        if self.doc.number(obj, "removing", path, default=0):
            parts.append("(removing)")
        elif self.doc.number(obj, "noalloc", path, default=0):
            parts.append("(non-allocating)")
        if kind == "disk" and state == "ONLINE" and self.scan.get("state") == "scanning":
            if self.doc.number(obj, "scan_processed", path, default=0):
                parts.append("(resilvering)" if self.scan.get("func") == "resilver" else "(repairing)")
            elif self.doc.number(obj, "resilver_deferred", path, default=0):
                parts.append("(awaiting resilver)")
        if (kind == "disk" and state == "ONLINE" and top in self.rebuilding and last
                and parent_kind in ("replacing", "spare")):
            parts.append("(resilvering)")
        return "  ".join(parts)


# ----------------------------------------------------------------------------- scans


class _Scans:
    """``scan_stats`` → the ``Scan`` blocks 2.3's text prints."""

    def __init__(self, doc: _Doc, path: tuple[str, ...], offset: int, stats: dict, clock: object) -> None:
        self.doc, self.path, self.offset, self.stats = doc, path, offset, stats
        self.clock = clock  # the "time" member: None, or its value
        self.ps: dict = {"func": "none", "state": "none"}
        self.start: _Stamp | None = None
        self.end: _Stamp | None = None
        self.pause: _Stamp | None = None
        self.rebuilds: list[dict] = []
        self.stamps: dict[str, tuple[_Stamp, _Stamp]] = {}
        self.scan_time_exact: dict[str, bool] = {}
        if "function" in stats or "state" in stats:
            self.read_scan()
        self.read_rebuilds()

    def read_scan(self) -> None:
        d, s, p = self.doc, self.stats, self.path
        func = d.string(s, "function", p, tuple(_FUNCS))
        state = d.string(s, "state", p, tuple(_SCAN_STATES))
        if func == "NONE":
            return
        self.start, self.end = d.stamp(s, "start_time", p), d.stamp(s, "end_time", p)
        self.pause = d.stamp(s, "scrub_pause", p)
        num = lambda k: d.number(s, k, p)  # noqa: E731
        self.ps = {"func": _FUNCS[func], "state": _SCAN_STATES[state], "start_s": self.start.s,
                   "end_s": self.end.s, "to_examine": num("to_examine"), "examined": num("examined"),
                   "skipped": num("skipped"), "processed": num("processed"), "errors": num("errors"),
                   "pass_exam": num("bytes_per_scan"), "pass_start_s": num("pass_start"),
                   "pass_scrub_pause_s": self.pause.s, "pass_scrub_spent_paused_s": num("scrub_spent_paused"),
                   "pass_issued": num("issued_bytes_per_scan"), "issued": num("issued")}

    def read_rebuilds(self) -> None:
        d = self.doc
        p = (*self.path, "rebuild_stats")
        for key, v in d.obj(self.stats, "rebuild_stats", self.path, required=False).items():
            q = (*p, key)
            if not isinstance(v, dict):
                raise d.error(q, v, "an object (a top-level vdev's rebuild)")
            state = d.string(v, "state", q, tuple(_REBUILD_STATES) + ("NONE",))
            if state == "NONE":
                continue
            name = v.get("name", key)
            start, end = d.stamp(v, "start_time", q), d.stamp(v, "end_time", q)
            scan_ns, exact = d.time_ns(v, "scan_time", q)
            num = lambda k: d.number(v, k, q)  # noqa: E731
            pass_ns, _ = d.time_ns(v, "pass_time", q)
            self.rebuilds.append({
                "vdev": name, "state": _REBUILD_STATES[state], "start_s": start.s, "end_s": end.s,
                "scan_time_ms": scan_ns // 10**6, "scanned": num("scanned"), "issued": num("issued"),
                "rebuilt": num("rebuilt"), "estimate": num("to_scan"), "errors": num("errors"),
                "pass_time_ms": pass_ns // 10**6, "pass_scanned": num("pass_scanned"),
                "pass_issued": num("pass_issued"), "pass_skipped": num("pass_skipped"),
                "_key": key})
            self.stamps[name] = (start, end)
            self.scan_time_exact[name] = exact

    def snapshot(self) -> dict:
        return {"scan": self.ps, "rebuild": self.rebuilds or None}

    def now_s(self) -> int | None:
        """``time(NULL)`` of the moment printed, in seconds since the epoch, if the JSON says."""
        t = self.clock
        if t is None:
            return None
        if isinstance(t, int) and not isinstance(t, bool):
            return t
        if isinstance(t, str) and t.strip().isdigit():
            return int(t.strip())
        stamp = self.doc.stamp({"time": t}, "time", ())
        if stamp.local and self.start is not None and self.start.local:
            return int(self.ps["pass_start_s"]) + (stamp.s - self.start.s)  # -T d: one pass assumed
        return None

    def blocks(self) -> tuple[Scan, ...]:
        out = []
        for what, obj in printed_scans(self.snapshot()):
            out.append(self.scan(obj) if what == "scan" else self.rebuild(obj))
        return tuple(out)

    def lines_for(self, keys: list[list[str]], obj: dict, label: str, offset: int) -> tuple[Line, ...]:
        """The JSON members read, quoted ``key value, …``: one Line per group, at the line
        of its first key (one Line if the document keeps them on one line)."""
        out = []
        for i, group in enumerate(keys):
            text = ", ".join(f"{k} {_quote(obj[k])}" for k in group if k in obj)
            if i == 0:
                text = f"{label}: {text}"
                if self.clock is not None:
                    text += f", time {_quote(self.clock)}"
            out.append(Line(self.doc.file, self.doc.key_line(group[0], offset), text))
        if len({ln.number for ln in out}) == 1:
            return (Line(self.doc.file, out[0].number, "; ".join(ln.text for ln in out)),)
        return tuple(out)

    def scan(self, ps: dict) -> Scan:
        s = self.stats
        offset = self.doc.find(r'"scan_stats"\s*:', self.offset)
        lines = self.lines_for([["function", "state", "start_time", "end_time"],
                                        ["to_examine", "examined", "skipped", "issued", "processed", "errors"],
                                        ["bytes_per_scan", "issued_bytes_per_scan", "pass_start", "scrub_pause",
                                         "scrub_spent_paused"]], s, "scan_stats", offset)
        kw: dict = {"key": "scan", "func": ps["func"], "lines": lines}
        assert self.start is not None and self.end is not None and self.pause is not None
        if ps["state"] == "finished":
            took_s = (self.end.s - self.start.s) & _MASK64
            return Scan(state="finished", shape="finished", processed_bytes=ps["processed"],
                        errors=ps["errors"], ended=self.end.ctime, **_took(took_s),
                        nicebytes=_nicebytes(ps["processed"]), **kw)
        if ps["state"] == "canceled":
            return Scan(state="canceled", shape="canceled", ended=self.end.ctime, **kw)
        paused = ps["func"] == "scrub" and ps["pass_scrub_pause_s"] != 0
        total_i = (ps["to_examine"] - ps["skipped"]) & _MASK64
        kw.update(state="paused" if paused else "scanning", shape="slash", indent="\t",
                  since=None if paused else self.start.ctime, started=self.start.ctime if paused else None,
                  scanned_bytes=ps["examined"], issued_bytes=ps["issued"], total_bytes=ps["to_examine"],
                  issue_total_bytes=total_i, processed_bytes=ps["processed"],
                  done_percent=100 * ps["issued"] / total_i if total_i else None)
        shown = [ps["examined"], ps["to_examine"], ps["issued"], total_i, ps["processed"]]
        now = self.now_s()
        if now is not None:
            p = scan_progress(ps, _RELEASE, now)
            if not paused:
                kw["scan_rate_bytes_per_s"] = p.scan_rate or None
                kw["issue_rate_bytes_per_s"] = p.issue_rate or None
                shown += [r for r in (p.scan_rate, p.issue_rate) if r]
                kw.update(_eta(p.secs_left, p.eta))
        return Scan(nicebytes=_nicebytes(*shown), **kw)

    def rebuild(self, vrs: dict) -> Scan:
        name = vrs["vdev"]
        offset = self.doc.find(r'"rebuild_stats"\s*:', self.offset)
        offset = self.doc.find(re.escape(json.dumps(vrs["_key"])) + r"\s*:", offset)
        obj = self.stats["rebuild_stats"][vrs["_key"]]
        lines = self.lines_for([["state", "start_time", "end_time", "scan_time", "pass_time"],
                                           ["to_scan", "scanned", "issued", "rebuilt", "pass_scanned",
                                            "pass_issued", "pass_skipped", "errors"]],
                               obj, f"scan_stats.rebuild_stats.{name}", offset)
        start, end = self.stamps[name]
        kw: dict = {"key": "scan", "func": "resilver", "rebuild_vdev": name, "lines": lines}
        if vrs["state"] == "complete":
            took_s = vrs["scan_time_ms"] // 1000 if self.scan_time_exact[name] else (end.s - start.s) & _MASK64
            return Scan(state="finished", shape="finished", processed_bytes=vrs["rebuilt"], errors=vrs["errors"],
                        ended=end.ctime, nicebytes=_nicebytes(vrs["rebuilt"]), **_took(took_s), **kw)
        if vrs["state"] == "canceled":
            return Scan(state="canceled", shape="canceled", ended=end.ctime, **kw)
        scan_rate, issue_rate, _, secs = rebuild_progress(vrs, _RELEASE)
        est, scanned = vrs["estimate"], vrs["scanned"]
        est_i = est - vrs["pass_skipped"]
        shown = [scanned, est, vrs["issued"], est_i, vrs["rebuilt"]] + [r for r in (scan_rate, issue_rate) if r]
        return Scan(state="scanning", shape="slash", indent="\t", since=start.ctime, scanned_bytes=scanned,
                    issued_bytes=vrs["issued"], total_bytes=est, issue_total_bytes=est_i,
                    processed_bytes=vrs["rebuilt"], scan_rate_bytes_per_s=scan_rate or None,
                    issue_rate_bytes_per_s=issue_rate or None, done_percent=min(scanned * 100 / (est + 1), 100),
                    nicebytes=_nicebytes(*shown),
                    **_eta(secs, secs_to_dhms(secs) if secs is not None else "no estimated completion time"), **kw)


def _took(took_s: int) -> dict:
    """``took``, its seconds and the evidence fields the text parser sets for ``HH:MM:SS``
    or ``N days HH:MM:SS`` (secs_to_dhms)."""
    days = took_s // 86400 or None
    return {"took": secs_to_dhms(took_s), "took_s": took_s, "days": days, "hms": days is None}


def _eta(secs: int | None, text: str) -> dict:
    if secs is None:
        return {"eta": text}
    days = secs // 86400 or None
    return {"eta": text, "eta_s": secs, "days": days, "hms": days is None}


def _nicebytes(*shown: int) -> bool | None:
    """The text parser's evidence: a byte count below 1024 prints with 2.3's ``B``."""
    return True if any(n < 1024 for n in shown) else None


# ----------------------------------------------------------------------------- pools


def _errors_text(n: int) -> str:
    """The text's ``errors:`` line for ``error_count`` (status_callback)."""
    return "No known data errors" if n == 0 else f"{n} data errors, use '-v' for a list"


def _pool(doc: _Doc, key: str, item: dict, path: tuple[str, ...], offset: int, clock: object) -> PoolStatus:
    name = doc.string(item, "name", path)
    state = doc.string(item, "state", path, STATES)
    see = item.get("moreinfo") if isinstance(item.get("moreinfo"), str) else None
    stats = doc.obj(item, "scan_stats", path, required=False)
    scans = _Scans(doc, (*path, "scan_stats"), offset, stats, clock)
    rebuilding = {v["vdev"] for v in scans.rebuilds if v["state"] == "active" and v["rebuilt"] > 0}
    vdevs = doc.obj(item, "vdevs", path)
    flat = len(vdevs) > 1 or any(isinstance(v, dict) and "parent" in v for v in vdevs.values())
    tree = _Tree(doc, path, offset, flat, scans.ps, rebuilding)
    if name not in vdevs:
        raise doc.error((*path, "vdevs"), None, f"the root vdev {json.dumps(name)} (the pool's name) as a key")
    root_obj = vdevs[name]
    if not isinstance(root_obj, dict):
        raise doc.error((*path, "vdevs", name), root_obj, "an object (the root vdev)")
    root = tree.vdev(name, root_obj, (*path, "vdevs", name), 0, None)
    if not root.children:
        raise doc.error((*path, "vdevs", name, "vdevs"), None, f"the vdevs of {name}")
    groups: list[tuple[str, list[tuple[str, dict, tuple[str, ...]]]]] = []
    if flat:
        by_label: dict[str, list[tuple[str, dict, tuple[str, ...]]]] = {}
        for k, v in vdevs.items():
            if k == name or not isinstance(v, dict) or "parent" in v:
                continue
            cls = v.get("class")
            if cls not in _FLAT_CLASS:
                raise doc.error((*path, "vdevs", k, "class"), cls,
                                f"one of {', '.join(_FLAT_CLASS)} for a vdev without a parent")
            by_label.setdefault(_FLAT_CLASS[cls], []).append((k, v, (*path, "vdevs", k)))
        groups = [(label, by_label[label]) for _, label in _CLASS_KEYS if label in by_label]
    else:
        for k, label in _CLASS_KEYS:
            members = doc.obj(item, k, path, required=False)
            if members:
                groups.append((label, [(mk, mv, (*path, k, mk)) for mk, mv in members.items()]))
    classes = []
    for label, members in groups:
        tree.rows.append(Row(0, label, None, None, None, None, "", doc.key_line(members[0][0], offset)))
        vs = []
        for mk, mv, mpath in members:
            if not isinstance(mv, dict):
                raise doc.error(mpath, mv, "an object (a vdev)")
            vs.append(tree.vdev(mk, mv, mpath, 1, None, spare=label == "spares"))
        classes.append((label, tuple(vs)))
    errors = doc.number(item, "error_count", path, default=0)
    first = doc.line_at(offset)
    last = doc.key_line("error_count", offset) if "error_count" in item else doc.line_at(len(doc.text))
    return PoolStatus(name, state, doc.file, first, max(first, last), see, scans.blocks(), tuple(tree.rows), root,
                      tuple(classes), _errors_text(errors), source="json")


def parse(section: Section) -> list[PoolStatus]:
    """Every pool of one ``zpool status -j`` document, in order."""
    doc = _Doc(section)
    data = json.loads(doc.text)
    if not isinstance(data, dict):
        raise doc.error((), None, "a JSON object, as zpool status -j prints")
    ver = data.get("output_version")
    command = ver.get("command") if isinstance(ver, dict) else None
    if command != "zpool status":
        shown = f"{command} -j output" if isinstance(command, str) else "JSON without output_version.command"
        raise doc.error(("output_version", "command"), command,
                        f"zpool status -j output (this is {shown}; zpool list and zpool iostat are read as text)")
    if ver.get("vers_major") != 0:
        raise doc.error(("output_version", "vers_major"), ver.get("vers_major"),
                        "0 (output_version 0.1, OpenZFS 2.3's; a later major version is not known yet)")
    pools = doc.obj(data, "pools", ())
    if not pools:
        raise doc.error(("pools",), None, "a pool's zpool status -j (the JSON lists none: zpool status -x -j "
                                          "leaves healthy pools out; run zpool status -j POOL)")
    clock = data.get("time")
    out = []
    for key, item in pools.items():
        offset = doc.find(re.escape(json.dumps(key)) + r"\s*:\s*\{", doc.find(r'"pools"\s*:'))
        if not isinstance(item, dict):
            raise doc.error(("pools", key), item, "an object (a pool)")
        out.append(_pool(doc, key, item, ("pools", key), offset, clock))
    return out

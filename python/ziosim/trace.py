"""Trace files for ``kind = "trace"`` workloads: read one, check every line, and turn it
into the columns the core replays (``crates/ziosim-model/src/trace.rs``).

Formats (``trace_format``; ``"auto"`` tells them apart from the first lines):

``csv``
    ziosim's own: lines starting with ``#`` are comments; a header names the columns ``time`` (seconds; optional — without it
    the trace has no times), ``op``, ``offset`` and ``size`` (bytes), and ``file``
    (optional, any text). ``op`` is ``R``/``read``, ``W``/``write``, ``S``/``sync-write``
    (O_DSYNC or FUA: durable before it completes), ``F``/``flush``/``fsync``/``fdatasync``,
    or ``T``/``trim``/``discard`` (skipped: not replayed).
``fio``
    fio's iolog, version 2 or 3 (first line ``fio version 2 iolog`` or ``… 3 iolog``; fio's
    ``iolog.c``). Version 3 lines carry a time in microseconds since the start (what fio's
    ``write_iolog`` writes: ``utime_since_now``); version 2 has none, except ``wait`` lines
    (absolute milliseconds since the start), which time the records after them. Actions
    ``read``, ``write``, ``sync`` and ``datasync`` (a flush), ``trim`` (skipped); ``add``,
    ``open`` and ``close`` name the files.
``blkparse``
    ``blkparse``'s default text output (blktrace on Linux): the ``Q`` events (what was
    asked of the device), or the ``D`` events (what was issued) if there are no ``Q``.
    From the RWBS field: ``R`` a read; ``W`` a write, made durable (``S``) if FUA (an ``F``
    after the ``W``); a leading ``F`` (PREFLUSH) adds a flush before it; ``N`` with ``F``
    a flush; ``D`` (discard) skipped. Sectors are 512 bytes. Each device (``maj,min``) is
    a file.
``msr``
    The SNIA IOTTA MSR Cambridge traces: ``Timestamp,Hostname,DiskNumber,Type,Offset,Size,
    ResponseTime`` with the time in Windows FILETIME units (100 ns), offsets and sizes in
    bytes. Each host and disk is a file.
``spc``
    The UMass/SPC traces (Financial, WebSearch): ``ASU,LBA,Size,Opcode,Timestamp`` with
    512-byte blocks, bytes and seconds. Each ASU is a file.

Times become ns after the first record, divided by the workload's ``speed``, at most
``TIME_NS_MAX`` (400 days, the longest run); records are put in time order (stable). Several files are laid end to end in the workload's region
(each from its own lowest offset, rounded to 1 MiB), so they do not overlap. A ``.gz``
file is read through gzip. Every problem is one line naming the file, the line and what is
allowed.
"""

from __future__ import annotations

import gzip
import io
import math
import re
from array import array
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import IO, Iterator

from .errors import ScenarioError
from .scenario import TIME_NS_MAX

__all__ = ["FORMATS", "RECORDS_MAX", "Trace", "load", "parse"]

FORMATS = ("auto", "csv", "fio", "blkparse", "msr", "spc")
# Most records a trace may hold (a config carries them all: ≈ 155 bytes each at the
# run's peak memory, docs/traces.md "Limits").
RECORDS_MAX = 5_000_000
_ALIGN = 1 << 20
# A record's time as written, in ns of the trace's clock, is kept as a u64.
_CLOCK_NS_MAX = (1 << 64) - 1
_OPS = {
    "r": "R", "read": "R",
    "w": "W", "write": "W",
    "s": "S", "sync-write": "S", "dsync-write": "S", "fua-write": "S",
    "f": "F", "flush": "F", "fsync": "F", "fdatasync": "F",
    "t": "T", "trim": "T", "discard": "T",
}
_BLK = re.compile(
    r"\s*(\d+,\d+)\s+\d+\s+\d+\s+(\d+)\.(\d+)\s+\d+\s+([A-Za-z]{1,2})\s+([A-Z]+)(?:\s+(\d+)\s*\+\s*(\d+))?"
)
_BLK_HEAD = re.compile(r"\s*\d+,\d+\s")


@dataclass
class Trace:
    """A parsed trace: one entry per record in each column, in replay order."""

    fmt: str
    t_ns: array | None  # None: the trace has no times
    ops: list[str] = field(default_factory=list)
    offset: array = field(default_factory=lambda: array("Q"))
    size: array = field(default_factory=lambda: array("Q"))
    file: array = field(default_factory=lambda: array("I"))
    files: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ops)

    def config(self, repeat: bool) -> dict:
        """The run config's ``trace`` table (``config.rs`` ``TraceConfig``)."""
        out: dict = {
            "ops": "".join(self.ops),
            "offset": self.offset,
            "size": self.size,
            "repeat": repeat,
        }
        if self.t_ns is not None:
            out["t_ns"] = self.t_ns
        if len(self.files) > 1:
            out["file"] = self.file
        return out


def _s(ns: int) -> str:
    """ns as seconds: exact (to the ns) up to 10^9 s, so that a time just past a bound
    does not print as the bound; beyond, as the float it is divided as."""
    if ns < 10**18:
        return f"{ns // 10**9}.{ns % 10**9:09d}".rstrip("0").rstrip(".") + " s"
    if ns.bit_length() < 1000:
        return f"{ns / 1e9:.12g} s"
    return f"{Decimal(ns) / 10**9:.3e} s"  # more than a float holds


class _Builder:
    def __init__(self, where: str, fmt: str, speed: float = 1.0) -> None:
        self.where = where
        self.fmt = fmt
        self.speed = speed
        # The earliest and latest time of the records kept so far, each with its line.
        self.lo: tuple[int, int] | None = None
        self.hi: tuple[int, int] | None = None
        self.span_near = int(TIME_NS_MAX * speed * 0.999)  # below it, well within the bound
        # The records as columns (8 bytes a number, not a tuple of objects per record).
        self.t = array("Q")
        self.op = bytearray()
        self.off = array("Q")
        self.size = array("Q")
        self.fid = array("I")
        self.files: dict[str, int] = {}
        self.skipped: dict[str, int] = {}
        self.timed = True

    def err(self, line: int, what: str) -> ScenarioError:
        return ScenarioError(f"{self.where}:{line}: {what}")

    def file_id(self, name: str) -> int:
        if name not in self.files:
            self.files[name] = len(self.files)
        return self.files[name]

    def skip(self, why: str) -> None:
        self.skipped[why] = self.skipped.get(why, 0) + 1

    def add(self, line: int, t: int, op: str, off: int, size: int, fname: str) -> None:
        if op == "T":
            self.skip("trim")
            return
        if off < 0 or size < 0 or t < 0:
            raise self.err(line, f"{min(off, size, t)} — negative; allowed: offsets, sizes and times ≥ 0")
        if op != "F" and size == 0:
            self.skip("empty")
            return
        if size > 1 << 30:
            raise self.err(line, f"size {size} — allowed: at most 1G per record")
        if off > 1 << 60:
            raise self.err(line, f"offset {off} — allowed: below 2^60 bytes")
        if len(self.op) >= RECORDS_MAX:
            raise self.err(line, f"more than {RECORDS_MAX} records — allowed: at most {RECORDS_MAX}; cut the trace")
        self.check_time(line, t)
        self.t.append(t)
        self.op.append(ord(op))
        self.off.append(off)
        self.size.append(0 if op == "F" else size)
        self.fid.append(self.file_id(fname))

    def after_ns(self, d: int) -> int:
        """``d`` ns of the trace's clock as simulated ns: divided by ``speed`` and rounded,
        as ``build`` does (exactly, for a ``d`` no float holds)."""
        if d.bit_length() < 1000:
            return int(round(d / self.speed))
        return round(Fraction(d) / Fraction(self.speed))

    def check_time(self, line: int, t: int) -> None:
        """The replay must fit in the longest run: every record at most ``TIME_NS_MAX``
        after the earliest once divided by ``speed`` (the core's times are u64 ns, and a
        run ends by then); and a time as written must fit the trace's u64 clock."""
        lo, hi = self.lo, self.hi
        if lo is None or hi is None:
            self.lo = self.hi = lo = hi = (t, line)
        elif t > hi[0]:
            self.hi = hi = (t, line)
        elif t < lo[0]:
            self.lo = lo = (t, line)
        else:
            return  # within the times already checked
        # Exactly (as build divides) only near the bound: an int comparison per record.
        after = self.after_ns(hi[0] - lo[0]) if hi[0] - lo[0] > self.span_near else 0
        if after > TIME_NS_MAX:
            speed = "" if self.speed == 1 else f", after dividing by speed {self.speed:g}"
            if hi[1] == line:
                what = f"{_s(after)} after the first record (line {lo[1]}){speed}"
            else:
                what = f"{_s(after)} before the record at line {hi[1]}{speed}"
            raise self.err(line, f"time {_s(t)} — {what}; allowed: at most {_s(TIME_NS_MAX)} (400d, the longest "
                                 "run) after the first record, after dividing by speed")
        if t > _CLOCK_NS_MAX:
            raise self.err(line, f"time {_s(t)} — allowed: at most {_s(_CLOCK_NS_MAX)} (2^64 ns) as written")

    def build(self, speed: float) -> Trace:
        n = len(self.op)
        if not n:
            raise ScenarioError(f"{self.where}: no records — allowed: a trace with reads, writes or flushes")
        order: range | list[int] = range(n)
        if self.timed:
            t = self.t
            if any(t[i] > t[i + 1] for i in range(n - 1)):
                order = sorted(range(n), key=t.__getitem__)  # stable: same-time records keep their order
            t0 = t[order[0]]
        # Each file from its own lowest offset, rounded down to 1 MiB, end to end.
        # (A flush has no place: it does not count.)
        lo: dict[int, int] = {}
        hi: dict[int, int] = {}
        flush = ord("F")
        for i in range(n):
            if self.op[i] != flush:
                f, off = self.fid[i], self.off[i]
                lo[f] = min(lo.get(f, off), off)
                hi[f] = max(hi.get(f, 0), off + self.size[i])
        base: dict[int, int] = {}
        at = 0
        for f in range(len(self.files)):
            if f not in lo:
                base[f] = at  # only flushes, or named (fio add) and never used
                continue
            start = lo[f] // _ALIGN * _ALIGN
            base[f] = at - start
            at += -(-(hi[f] - start) // _ALIGN) * _ALIGN
        tr = Trace(fmt=self.fmt, t_ns=array("Q") if self.timed else None, files=list(self.files),
                   skipped=dict(sorted(self.skipped.items())))
        for i in order:
            op, f = chr(self.op[i]), self.fid[i]
            if tr.t_ns is not None:
                tr.t_ns.append(int(round((self.t[i] - t0) / speed)))
            tr.ops.append(op)
            tr.offset.append(0 if op == "F" else self.off[i] + base[f])
            tr.size.append(self.size[i])
            tr.file.append(f)
        return tr


def _int(v: str, b: _Builder, line: int, what: str) -> int:
    try:
        n = int(v, 0) if v.lower().startswith("0x") else int(v)
    except ValueError:
        raise b.err(line, f"{what} {v!r} — allowed: a whole number") from None
    return n


def _secs_ns(v: str, b: _Builder, line: int, what: str) -> int:
    try:
        x = float(v)
    except ValueError:
        raise b.err(line, f"{what} {v!r} — allowed: a number of seconds") from None
    if not 0 <= x < math.inf:
        raise b.err(line, f"{what} {v!r} — allowed: 0 or more seconds, finite")
    ns = x * 1e9
    # A time too large for the replay is refused with its real bound (Builder.check_time).
    return int(round(ns)) if ns < math.inf else int(x) * 1_000_000_000


def _lines(f: IO[str]) -> Iterator[tuple[int, str]]:
    for n, raw in enumerate(f, 1):
        s = raw.strip()
        if s:
            yield n, s


def _csv(f: IO[str], b: _Builder) -> None:
    it = (x for x in _lines(f) if not x[1].startswith("#"))
    head = next(it, None)
    if head is None:
        return
    cols = [c.strip().lower() for c in head[1].split(",")]
    need = ("op", "offset", "size")
    for c in need:
        if c not in cols:
            raise b.err(head[0], f"header {head[1]!r} has no {c} column — allowed: columns time, op, offset, size, file")
    idx = {c: cols.index(c) for c in cols}
    b.timed = "time" in idx
    for n, s in it:
        parts = [p.strip() for p in s.split(",")]
        if len(parts) < len(cols):
            raise b.err(n, f"{len(parts)} fields — allowed: {len(cols)} (time, op, offset, size as the header)")
        op = _OPS.get(parts[idx["op"]].lower())
        if op is None:
            raise b.err(n, f"op {parts[idx['op']]!r} — allowed: R, W, S, F or T (read, write, sync-write, flush, trim)")
        t = _secs_ns(parts[idx["time"]], b, n, "time") if b.timed else 0
        fname = parts[idx["file"]] if "file" in idx else ""
        b.add(n, t, op, _int(parts[idx["offset"]], b, n, "offset"), _int(parts[idx["size"]], b, n, "size"), fname)


def _fio(f: IO[str], b: _Builder) -> None:
    it = _lines(f)
    head = next(it, None)
    if head is None:
        return
    m = re.fullmatch(r"fio version ([23]) iolog", head[1])
    if not m:
        raise b.err(head[0], f"{head[1][:40]!r} — allowed: a first line 'fio version 2 iolog' or 'fio version 3 iolog'")
    v3 = m.group(1) == "3"
    b.timed = v3
    now_ns = 0
    for n, s in it:
        p = s.split()
        if v3:
            if len(p) not in (3, 5):
                raise b.err(n, f"{len(p)} fields — allowed: 'time file action' or 'time file action offset length'")
            now_ns = _int(p[0], b, n, "time") * 1000
            p = p[1:]
        elif len(p) not in (2, 3, 4):
            raise b.err(n, f"{len(p)} fields — allowed: 'file action' or 'file action offset length'")
        fname, act = p[0], p[1].lower()
        if act in ("add", "open", "close") and len(p) == 2:
            b.file_id(fname)
            continue
        if act == "wait" and not v3 and len(p) >= 3:
            # fio's read_iolog_get: a wait holds until its offset in ms since the start.
            b.timed = True
            now_ns = max(now_ns, _int(p[2], b, n, "wait") * 1_000_000)
            continue
        op = {"read": "R", "write": "W", "sync": "F", "datasync": "F", "trim": "T"}.get(act)
        if op is None or len(p) != 4:
            raise b.err(n, f"action {p[1]!r} with {len(p) - 2} values — allowed: read, write, sync, datasync or trim "
                           "with an offset and a length; add, open or close alone")
        b.add(n, now_ns, op, _int(p[2], b, n, "offset"), _int(p[3], b, n, "length"), fname)


def _blkparse(f: IO[str], b: _Builder) -> None:
    queued: list[tuple[int, int, str, int, int, str]] = []
    issued: list[tuple[int, int, str, int, int, str]] = []
    for n, s in _lines(f):
        m = _BLK.match(s)
        if not m:
            if _BLK_HEAD.match(s):
                raise b.err(n, f"{s[:60]!r} — allowed: blkparse's default event lines "
                               "(dev cpu seq time pid action rwbs [sector + count])")
            continue  # blkparse's per-CPU and total summaries, blank lines
        dev, sec, frac, action, rwbs, sector, count = m.groups()
        if action not in ("Q", "D"):
            continue
        if sector is None and rwbs.lstrip("F")[:1] in ("R", "W"):
            raise b.err(n, f"{s[:60]!r} — a read or write with no 'sector + count'; allowed: blkparse's "
                           "default event lines")
        t = int(sec) * 1_000_000_000 + int((frac + "000000000")[:9])
        (queued if action == "Q" else issued).append(
            (n, t, rwbs, int(sector or 0), int(count or 0), dev))
    events = queued or issued
    for n, t, rwbs, sector, count, dev in events:
        # blkparse's fill_rwbs: F (PREFLUSH), then R/W/D/N, then F (FUA), A, S, M.
        preflush = rwbs.startswith("F") and len(rwbs) > 1
        body = rwbs[1:] if preflush else rwbs
        kind = body[:1]
        fua = "F" in body[1:]
        off, size = sector * 512, count * 512
        if kind == "D" or kind == "E":
            b.skip("discard")
            continue
        if preflush or (kind == "N" and "F" in rwbs):
            b.add(n, t, "F", off, 0, dev)
        if kind == "R":
            b.add(n, t, "R", off, size, dev)
        elif kind == "W":
            b.add(n, t, "S" if fua else "W", off, size, dev)
        elif kind != "N":
            b.skip(f"rwbs {rwbs}")


def _msr(f: IO[str], b: _Builder) -> None:
    for n, s in _lines(f):
        p = [x.strip() for x in s.split(",")]
        if len(p) < 6:
            raise b.err(n, f"{len(p)} fields — allowed: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime")
        if n == 1 and p[0].lower() == "timestamp":
            continue
        op = {"read": "R", "write": "W"}.get(p[3].lower())
        if op is None:
            raise b.err(n, f"type {p[3]!r} — allowed: Read or Write")
        # Windows FILETIME: 100 ns units.
        t = _int(p[0], b, n, "timestamp") * 100
        b.add(n, t, op, _int(p[4], b, n, "offset"), _int(p[5], b, n, "size"), f"{p[1]}/{p[2]}")


def _spc(f: IO[str], b: _Builder) -> None:
    for n, s in _lines(f):
        p = [x.strip() for x in s.split(",")]
        if len(p) < 5:
            raise b.err(n, f"{len(p)} fields — allowed: ASU,LBA,Size,Opcode,Timestamp")
        op = {"r": "R", "w": "W"}.get(p[3].lower())
        if op is None:
            raise b.err(n, f"opcode {p[3]!r} — allowed: r or w")
        b.add(n, _secs_ns(p[4], b, n, "timestamp"), op, _int(p[1], b, n, "LBA") * 512,
              _int(p[2], b, n, "size"), p[0])


_PARSERS = {"csv": _csv, "fio": _fio, "blkparse": _blkparse, "msr": _msr, "spc": _spc}


def detect(first: str) -> str | None:
    """The format a trace's first non-blank line says it is in, or None."""
    s = first.strip()
    if s.startswith("fio version"):
        return "fio"
    if _BLK.match(s):
        return "blkparse"
    p = [x.strip() for x in s.split(",")]
    low = [x.lower() for x in p]
    if "op" in low and "offset" in low:
        return "csv"
    if len(p) >= 6 and low[3] in ("read", "write", "type"):
        return "msr"
    if len(p) >= 5 and low[3] in ("r", "w"):
        return "spc"
    return None


def parse(text: str, fmt: str = "auto", *, where: str = "trace", speed: float = 1.0) -> Trace:
    """Parse trace text (see the module doc); errors name ``where`` and the line."""
    return _parse_stream(io.StringIO(text), fmt, where, speed)


def _parse_stream(f: IO[str], fmt: str, where: str, speed: float) -> Trace:
    """Parse a seekable text stream, line by line (a large trace is never held as lines)."""
    if fmt == "auto":
        first = next((ln for ln in f if ln.strip() and not ln.lstrip().startswith("#")), "")
        f.seek(0)
        found = detect(first)
        if found is None:
            raise ScenarioError(f"{where}:1: {first.strip()[:60]!r} — cannot tell the format; "
                                f"allowed: set trace_format to one of {', '.join(FORMATS[1:])}")
        fmt = found
    b = _Builder(where, fmt, speed)
    _PARSERS[fmt](f, b)
    return b.build(speed)


def load(path: Path, fmt: str = "auto", *, where: str | None = None, speed: float = 1.0) -> Trace:
    """Read and parse a trace file (``.gz`` through gzip)."""
    where = where or str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ScenarioError(f"{where}: no such file — allowed: a path to a trace file") from None
    except OSError as e:
        if path.is_dir():
            raise ScenarioError(f"{where}: is a directory — allowed: a path to a trace file") from None
        raise ScenarioError(f"{where}: cannot read ({e.strerror or type(e).__name__}) — allowed: a path to a trace "
                            "file you can read") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:
            raise ScenarioError(f"{where}: not a readable gzip file — {e}") from None
    # Decoded a chunk at a time as the parser reads lines: no copy of the whole text.
    f = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    try:
        return _parse_stream(f, fmt, where, speed)
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{where}: not text (byte {e.start} of a chunk) — allowed: a text trace; "
                            "binary blktrace files go through blkparse first") from None

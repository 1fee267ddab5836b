"""``zpool iostat -v`` text → ``IostatSample``: observed load per pool, vdev and disk.

Theory of operation
-------------------
Every era prints the same block (spec/zfs-model.md §8.2): two header lines (``capacity
operations bandwidth`` and ``pool alloc free read write read write``), a dashed rule, one
row per pool/vdev/disk with its name indented two spaces per level, and a closing rule.
Values are ``zfs_nicenum`` without a byte suffix (``-p``: exact integers); disks print
``-`` for capacity. With an interval the block repeats: the first sample is the average
since the pool was imported, later ones cover one interval each — the last sample is
used, as the freshest picture of the load. Columns after the first six (``-l``, ``-q``)
are read past. Class labels (``logs``, ``cache``, …) sit at the pool's level with ``-``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import ImportTextError, Section, parse_number
from .zpool_status import CLASS_LABELS

__all__ = ["IostatRow", "IostatSample", "parse"]

_GROUPS = re.compile(r"^\s*capacity\s+operations\s+bandwidth\b")
_COLS = re.compile(r"^\s*pool\s+alloc\s+free\s+read\s+write\s+read\s+write\b")
_RULE = re.compile(r"^[\s-]+$")


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


@dataclass(frozen=True)
class IostatSample:
    """The last sample of one pool: its own row, then the rows under it."""

    pool: IostatRow
    rows: tuple[IostatRow, ...]
    file: str
    samples: int

    @property
    def name(self) -> str:
        return self.pool.name

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


def _num(tok: str, ln, what: str) -> int | None:
    if tok == "-":
        return None
    try:
        return parse_number(tok)
    except ValueError:
        raise ImportTextError(ln.file, ln.number, ln.text, f"{what} as a zfs number (312, 38.9M) or -") from None


def parse(section: Section) -> list[IostatSample]:
    """The last sample of each pool in a ``zpool iostat -v`` section."""
    pools: dict[str, IostatSample] = {}
    counts: dict[str, int] = {}
    cur: IostatRow | None = None
    rows: list[IostatRow] = []
    in_table = False

    def flush() -> None:
        if cur is not None:
            counts[cur.name] = counts.get(cur.name, 0) + 1
            pools[cur.name] = IostatSample(cur, tuple(rows), section.file, counts[cur.name])

    for ln in section.lines:
        t = ln.text
        if not t.strip() or _GROUPS.match(t) or _COLS.match(t):
            continue
        if _RULE.match(t):
            flush()
            cur, rows, in_table = None, [], True
            continue
        if not in_table:
            raise ImportTextError(ln.file, ln.number, t, "the zpool iostat header and its ----- rule first")
        exp = t.expandtabs(8).rstrip()
        depth = (len(exp) - len(exp.lstrip())) // 2
        toks = exp.split()
        if len(toks) < 7:
            raise ImportTextError(ln.file, ln.number, t, "a zpool iostat row: name alloc free read write read write")
        name = toks[0]
        vals = [_num(tok, ln, col) for tok, col in zip(toks[1:7], ("alloc", "free", "read ops", "write ops",
                                                                    "read bandwidth", "write bandwidth"))]
        label = depth == 0 and name in CLASS_LABELS and all(v is None for v in vals)
        row = IostatRow(name, depth, vals[0], vals[1], vals[2] or 0, vals[3] or 0, vals[4] or 0, vals[5] or 0,
                        ln.number, label)
        if depth == 0 and not label:
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

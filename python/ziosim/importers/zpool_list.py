"""``zpool list`` / ``zpool list -v`` (with or without ``-p``) text → ``PoolList``.

Theory of operation
-------------------
The header names the columns, and it changed over the years (spec/users.md §4.4, §6 item 6):
``NAME SIZE USED AVAIL CAP HEALTH ALTROOT`` (OpenSolaris 2009), then ``ALLOC FREE`` and
``DEDUP`` (2009–2012), ``EXPANDSZ`` and ``FRAG`` (illumos 2014, ZoL 0.6.4), ``CKPOINT``
(0.8). So every row is split on white space and its fields are matched to the header's
names from the left: pool rows print every column, ``-v`` vdev rows stop before
``ALTROOT`` (older releases earlier still), and a field printed as ``-`` is unknown.
``USED``/``AVAIL`` read as ``ALLOC``/``FREE``.

Under ``-v`` the rows below a pool are indented two spaces per level (``raidz2-0``, then
its disks; 2.x prints each disk's SIZE, older releases ``-``), and the class labels
``logs``, ``cache``, ``spare``, ``special``, ``dedup`` sit at the pool's level with ``-``
in every column (0.7 prints ``log``; zpool list has always said ``spare`` where zpool
status says ``spares``: ``print_list_stats``' dashes rows, zpool_main.c 0.7.0–2.3.0). Each
label is kept under zpool status's name for it. ``-p`` prints exact integers and FRAG/CAP without ``%``; without it sizes
are ``zfs_nicenum`` strings (three significant digits, decimal comma accepted).
``-H`` (no header) is not read: the columns would have to be guessed.

SIZE and ALLOC count raw space: for raidz they include parity (a 6-wide raidz2 of 1.82T
disks has SIZE 10.9T), as ``vs_alloc``/``vs_space`` do; ``importers.scenario`` converts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import ImportTextError, Line, Section, parse_number, parse_percent
from .zpool_status import CLASS_LABELS

__all__ = ["ListRow", "PoolList", "parse"]

_ALIASES = {"USED": "ALLOC", "AVAIL": "FREE"}
# zpool list's class labels → zpool status's (CLASS_LABELS).
_LABELS = {**{c: c for c in CLASS_LABELS}, "log": "logs", "spare": "spares"}
_HEADER = re.compile(r"^\s*NAME\s+SIZE\s+(?:ALLOC|USED)\b")


@dataclass(frozen=True)
class ListRow:
    """One row: ``depth`` 0 is a pool or a class label (``is_label``), 1 a top-level vdev."""

    name: str
    depth: int
    size_bytes: int | None
    alloc_bytes: int | None
    free_bytes: int | None
    frag_percent: float | None
    cap_percent: float | None
    health: str | None
    line: int
    is_label: bool = False


@dataclass(frozen=True)
class PoolList:
    """One pool of a ``zpool list``: its own row and (``-v``) the rows under it in order."""

    pool: ListRow
    rows: tuple[ListRow, ...]
    file: str
    parsable: bool

    @property
    def name(self) -> str:
        return self.pool.name

    @property
    def verbose(self) -> bool:
        return bool(self.rows)

    def section_rows(self, label: str | None = None) -> list[ListRow]:
        """Rows of the data vdevs (``label`` None) or of a class section, in order."""
        out, cur = [], None
        for r in self.rows:
            if r.is_label:
                cur = r.name
                continue
            if cur == label:
                out.append(r)
        return out


def _value(text: str, col: str, ln: Line) -> int | float | None:
    if text == "-":
        return None
    try:
        if col in ("FRAG", "CAP"):
            return parse_percent(text)
        return parse_number(text)
    except ValueError:
        what = "a percentage (12%) or -" if col in ("FRAG", "CAP") else "a size (1.21T, 8001020755968) or -"
        raise ImportTextError(ln.file, ln.number, ln.text, f"{col} as {what}; found {text!r}") from None


def _row(ln: Line, cols: list[str]) -> ListRow:
    exp = ln.text.expandtabs(8).rstrip()
    depth = (len(exp) - len(exp.lstrip())) // 2
    toks = exp.split()
    if len(toks) < 2:
        raise ImportTextError(ln.file, ln.number, ln.text, f"a zpool list row: {' '.join(cols)}")
    name = toks[0]
    label = depth == 0 and name in _LABELS and all(t == "-" for t in toks[1:4])
    if label:
        name = _LABELS[name]
    vals: dict[str, int | float | None] = {}
    health = None
    for col, tok in zip(cols[1:], toks[1:]):
        if col in ("SIZE", "ALLOC", "FREE", "FRAG", "CAP"):
            vals[col] = _value(tok, col, ln)
        elif col == "HEALTH" and tok != "-":
            health = tok
    size, alloc, free = vals.get("SIZE"), vals.get("ALLOC"), vals.get("FREE")
    return ListRow(name, depth, size, alloc, free,  # type: ignore[arg-type]
                   vals.get("FRAG"), vals.get("CAP"), health, ln.number, label)


def parse(section: Section) -> list[PoolList]:
    """Every pool of a ``zpool list`` section (several headers may repeat: ``-v`` with an
    interval); the last listing of each pool wins."""
    cols: list[str] | None = None
    pools: dict[str, PoolList] = {}
    cur: ListRow | None = None
    rows: list[ListRow] = []
    parsable = False

    def flush() -> None:
        if cur is not None:
            pools[cur.name] = PoolList(cur, tuple(rows), section.file, parsable)

    for ln in section.lines:
        if not ln.text.strip():
            continue
        if _HEADER.match(ln.text):
            flush()
            cur, rows = None, []
            cols = [_ALIASES.get(c, c) for c in ln.text.split()]
            continue
        if cols is None:
            raise ImportTextError(ln.file, ln.number, ln.text, "the zpool list header NAME SIZE ALLOC FREE …")
        r = _row(ln, cols)
        if r.depth == 0 and not r.is_label:
            flush()
            cur, rows = r, []
            if r.size_bytes is None:
                raise ImportTextError(ln.file, ln.number, ln.text, "a pool row with its SIZE")
            parsable = parsable or bool(re.fullmatch(r"\d+", ln.text.split()[1]))
            continue
        if cur is None:
            raise ImportTextError(ln.file, ln.number, ln.text, "a pool row (at the left margin) first")
        rows.append(r)
    flush()
    if not pools:
        raise ImportTextError(section.file, section.first_line, None,
                              "at least one pool row under the zpool list header")
    return list(pools.values())

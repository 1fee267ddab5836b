"""Read pasted ``zpool`` output back into plain data: the parsers behind ``ziosim import``.

Theory of operation
-------------------
Users bring what they already have (spec/users.md §6 item 6): ``zpool status`` (any era,
any locale), ``zpool list [-v] [-p]`` and ``zpool iostat -v``, pasted into files, sometimes
several outputs in one file with the shell prompts still in front. ``ziosim import`` turns
them into a scenario (``importers.scenario``). The work is split in three steps, each pure
and free of TOML:

1. ``split_sections(file, text)`` cuts a file into sections by content, never by file
   name: a prompt line (``$ zpool list -v``, ``root@nas:~# zpool status tank``) starts a
   section of that command; without prompts a ``pool:`` line starts a ``zpool status``,
   a ``NAME  SIZE  ALLOC …`` header a ``zpool list`` and a ``capacity  operations
   bandwidth`` header a ``zpool iostat``. Tunables files make a ``conf`` section: a
   prompt such as ``$ cat /etc/modprobe.d/zfs.conf`` or a ZFS setting line (``options
   zfs``, ``vfs.zfs.``, ``set zfs:``, ``/sys/module/zfs/parameters/``) starts one
   anywhere, any setting line where nothing else has started, and the comment lines just
   before it belong to it. The operating system's ``iostat -x`` makes an ``iostatx``
   section: a prompt running ``iostat``, a column header (``Device r/s w/s …``, ``device
   r/s w/s …``, ``r/s w/s … device``), ``extended device statistics``, sysstat's ``Linux
   5.15.0 (host) …`` banner or an ``avg-cpu:`` line starts one (``iostat_x``). A line
   that begins with ``{`` starts a ``zpool status -j`` document (``statusjson``), which
   ends where the JSON does — on the same line as ``zpool`` prints it, or many lines on
   (``| jq``). A non-blank line outside every section is an error naming the file and
   line.
2. One parser per command (``zpool_status``, ``zpool_status_json``, ``zpool_list``,
   ``zpool_iostat``, ``iostat_x``, and
   ``tunables_conf`` for settings) reads a section into frozen dataclasses and keeps the
   line numbers.
3. ``importers.scenario.build`` decides what the pieces mean for a simulation.

Numbers are read as ZFS prints them (spec/users.md §4.1): base 1024 with ``K M G T P E``,
an optional ``B`` (``zfs_nicebytes``, 0.7+), a decimal point or — under a ``LC_NUMERIC``
that says so — a decimal comma (``4,43G``, ``11,4T``). A printed number carries three
significant digits, so a parsed byte count is within half a unit of its last digit of
the true value, never better.

Every mistake is an ``ImportTextError``: one line, ``FILE:LINE: "text" — expected …``,
which the command line prints as ``error: …`` and exits 2 on (a ``ScenarioError``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..errors import ScenarioError
from ..units import parse_size

__all__ = [
    "ImportTextError",
    "Line",
    "Section",
    "split_sections",
    "kind_label",
    "parse_number",
    "parse_percent",
    "has_byte_suffix",
    "NUMBER",
    "STAMP",
]


class ImportTextError(ScenarioError):
    """A line the importer cannot read: ``FILE:LINE: "text" — expected …`` (one line);
    in JSON, ``FILE:LINE: PATH: "value" — expected …`` with the member's jq path."""

    def __init__(self, file: str, line: int, text: str | None, expected: str, hint: str | None = None,
                 path: str | None = None) -> None:
        shown = "" if text is None else f" {json.dumps(_clip(text), ensure_ascii=False)}"
        sep = " —" if text is not None else ""
        where = f" {path}:" if path is not None else ""
        super().__init__(f"{file}:{line}:{where}{shown}{sep} expected {expected}", hint=hint)


def _clip(text: str, n: int = 72) -> str:
    t = text.strip().replace("\t", " ")
    return t if len(t) <= n else t[: n - 1] + "…"


@dataclass(frozen=True)
class Line:
    """One input line and where it came from (1-based line number)."""

    file: str
    number: int
    text: str


@dataclass(frozen=True)
class Section:
    """A run of lines holding one command's output: ``kind`` is status, statusjson, list,
    iostat, iostatx or conf."""

    kind: str
    file: str
    lines: tuple[Line, ...]
    command: str | None = None  # the prompt line's command, when there was one

    @property
    def first_line(self) -> int:
        return self.lines[0].number if self.lines else 0


# A number as zpool prints it: 1.21T, 0B, 512, 11,4T, 43.5M (the caller adds "/s", "%").
NUMBER = r"\d+(?:[.,]\d+)?[KMGTPE]?B?"
_NUMBER_RE = re.compile(r"(\d+(?:[.,]\d+)?)([KMGTPE]?)(B?)")


def parse_number(text: str) -> int:
    """Bytes (or a count) from a ``zfs_nicenum``/``zfs_nicebytes`` string, nearest integer.

    Only zpool's own shapes are accepted (``_NUMBER_RE``, stricter than a scenario's
    sizes); the value is read as scenario sizes are (``units.parse_size``: base 1024,
    decimal point or comma). Raises ValueError for anything else; callers turn that into
    an ``ImportTextError``.
    """
    t = text.strip()
    if not _NUMBER_RE.fullmatch(t):
        raise ValueError(text)
    return parse_size(t, "number")


def has_byte_suffix(text: str) -> bool | None:
    """Whether a byte count shows ``zfs_nicebytes``'s ``B`` (True), is a bare count below
    1024 that ``zfs_nicebytes`` would have suffixed (False), or cannot tell (None)."""
    m = _NUMBER_RE.fullmatch(text.strip())
    if not m or m.group(2):
        return None
    return bool(m.group(3))


def parse_percent(text: str) -> float:
    """``51.37`` from ``51.37%`` or ``51,37%`` (``%`` optional)."""
    t = text.strip().rstrip("%")
    if not re.fullmatch(r"\d+(?:[.,]\d+)?", t):
        raise ValueError(text)
    return float(t.replace(",", "."))


# ----------------------------------------------------------------------------- sections

# "$ zpool status -v tank", "root@nas:~# zpool list -v", "% sudo zpool iostat -v 10 2"
_PROMPT = re.compile(
    r"^\s*(?:[^#$%>]*[#$%>]\s*)?(?:sudo\s+)?(?:/\S*/)?zpool\s+(?P<cmd>status|list|iostat)\b(?P<args>.*)$"
)
_STATUS_START = re.compile(r"^\s*pool:\s*\S")
_LIST_HEADER = re.compile(r"^\s*NAME\s+SIZE\s+(?:ALLOC|USED)\b")
_IOSTAT_HEADER = re.compile(r"^\s*capacity\s+operations\s+bandwidth\b")
# `zpool status -T u` / `-T d` print a time stamp before the pools.
STAMP = re.compile(r"^\s*(\d{9,11}|.*\b\d{1,2}:\d\d:\d\d\b.*\b\d{4})\s*$")
_HEALTHY = re.compile(r"^\s*(all pools are healthy|no pools available|pool '[^']*' is healthy)\s*$")
_KINDS = {"status": "zpool status", "statusjson": "zpool status -j", "list": "zpool list",
          "iostat": "zpool iostat -v", "iostatx": "iostat -x", "conf": "tunables"}


def split_sections(file: str, text: str) -> list[Section]:
    """Cut one file's text into command sections (see the module docstring)."""
    from . import iostat_x  # here, as they import this package
    from . import tunables_conf as conf
    from . import zpool_status_json as sj

    sections: list[Section] = []
    kind: str | None = None
    command: str | None = None
    buf: list[Line] = []
    comments: list[Line] = []  # comment lines before any section: a tunables file's, or an error

    def flush() -> None:
        if kind is not None and any(ln.text.strip() for ln in buf):
            sections.append(Section(kind, file, tuple(buf), command))

    def not_read(ln: Line) -> ImportTextError:
        return ImportTextError(file, ln.number, ln.text,
                               "the output of zpool status, zpool list, zpool iostat -v or iostat -x, or a tunables file (docs/import.md)")

    # A byte order mark (Windows Notepad saves UTF-8 with one) is no part of the output;
    # files pasted together may carry one at the start of any of them.
    lines = [ln.removeprefix("\ufeff") for ln in text.splitlines()]
    json_end = 0  # the last line of the JSON document being skipped over
    for i, raw in enumerate(lines, start=1):
        if i <= json_end:
            continue
        line = Line(file, i, raw.rstrip("\r\n"))
        comment_in_conf = kind == "conf" and conf.is_comment(raw)
        m = None if comment_in_conf else _PROMPT.match(raw)
        if m:
            if comments:
                raise not_read(comments[0])
            flush()
            kind, command, buf = m.group("cmd"), raw.strip(), []
            continue
        if not comment_in_conf and sj.starts(raw):
            if comments:
                raise not_read(comments[0])
            # The prompt of `zpool status -j` (nothing printed under it yet) names the document.
            doc_command = command if kind == "status" and not any(ln.text.strip() for ln in buf) else None
            flush()
            json_end = sj.document_end(file, lines, i)
            sections.append(Section(sj.KIND, file, tuple(Line(file, n, lines[n - 1].rstrip("\r\n"))
                                                         for n in range(i, json_end + 1)), doc_command))
            kind, command, buf = None, None, []
            continue
        if not comment_in_conf and kind != "iostatx" and iostat_x.PROMPT.match(raw):
            if comments:
                raise not_read(comments[0])
            flush()
            kind, command, buf = "iostatx", raw.strip(), []
            continue
        if not comment_in_conf and conf.PROMPT.match(raw):
            flush()
            kind, command, buf, comments = "conf", raw.strip(), comments, []
            continue
        start = None
        if _LIST_HEADER.match(raw) and kind != "list":
            start = "list"
        elif _IOSTAT_HEADER.match(raw) and kind != "iostat":
            start = "iostat"
        elif _STATUS_START.match(raw) and kind != "status":
            start = "status"
        elif kind != "iostatx" and any(p.match(raw) for p in iostat_x.START):
            start = "iostatx"
        elif kind != "conf" and conf.starts_section(raw, outside=kind is None):
            start = "conf"
        if start is not None:
            if comments and start != "conf":
                raise not_read(comments[0])
            flush()
            kind, command, buf, comments = start, None, comments, []
        if _HEALTHY.match(raw):
            raise ImportTextError(
                file, i, raw, "a pool's full `zpool status` (zpool status -x printed no pool; run zpool status POOL)")
        if kind is None:
            if raw.strip() and conf.is_comment(raw):
                comments.append(line)
            elif raw.strip() and not STAMP.match(raw):
                raise not_read(comments[0] if comments else line)
            continue
        buf.append(line)
    flush()
    if comments:
        raise not_read(comments[0])
    if not sections:
        raise ImportTextError(file, 1, None, "the output of zpool status, zpool list or zpool iostat -v; "
                              "the file is empty")
    return sections


def kind_label(kind: str) -> str:
    return _KINDS[kind]

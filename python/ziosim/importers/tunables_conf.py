"""Tunable configuration files → the settings they make, and an audit of every line.

Theory of operation
-------------------
Users keep their tunables in the files their platform reads (spec/users.md §4.6, §4.7),
and those files outlive the releases they were written for (openzfs#13706: a 2012
``zfs.conf`` broke scrubs ten years later). ``ziosim import`` reads them beside ``zpool
status``, or alone with ``--release``, recognised by content like the other inputs
(``importers.split_sections`` cuts a ``conf`` section where such lines start):

* Linux: ``options zfs NAME=VALUE [NAME=VALUE …]`` (``/etc/modprobe.d/zfs.conf``) and
  ``/sys/module/zfs/parameters/NAME:VALUE`` (``grep . /sys/module/zfs/parameters/*``);
* FreeBSD: ``vfs.zfs.NAME="VALUE"`` (``/boot/loader.conf``), ``vfs.zfs.NAME=VALUE``
  (``/etc/sysctl.conf``) and ``vfs.zfs.NAME: VALUE`` (``sysctl vfs.zfs``);
* illumos: ``set zfs:NAME = VALUE`` (``/etc/system``, system(4)).

Comments are whole lines starting with ``#`` (``*`` too, as in ``/etc/system``);
loader.conf and sysctl.conf also allow one after the value. Other lines those files
hold (``install``/``blacklist``, ``forceload:``, ``kern.maxfiles=…``) are read and
reported as OTHER. Anything else in a section is an ``ImportTextError``.

Two pure steps:

1. ``parse(section)`` → ``Config``: one ``Setting`` per assignment (an ``options`` line
   makes several), each with its line number, the name and value as written.
2. ``audit(configs, release)`` → one ``Row`` per setting. The platform is the one whose
   syntax the file uses; a release that never ran there is an error (exit 2). Each
   setting then gets the first verdict that applies, in this order:

   WRONG PLATFORM SYNTAX  another platform's form: a ``vfs.zfs.`` name in modprobe.d, a
                          bare ``NAME=VALUE`` where ``options zfs`` or ``vfs.zfs.`` is
                          needed, ``set NAME`` without ``zfs:`` (system(4) then looks in
                          the core kernel, not the zfs module), any line of another
                          platform's files;
   OTHER                  not a ZFS setting (another module or subsystem, a directive);
   NOT IN THIS RELEASE    the name is this platform's name for a ziosim tunable in
                          other releases only (which, and what the spec says became of it);
   UNKNOWN                no release of this platform has such a knob: a misspelling
                          (suggested), a ziosim tunable the platform never exported, or a
                          name that does not look like ZFS's;
   NOT MODELLED           looks like a ZFS parameter (``zfs_``, ``zil_``, ``l2arc_``,
                          ``zfetch_`` … or any ``vfs.zfs.`` name; every name of a
                          ``/sys/module`` or ``sysctl`` dump) but ziosim has no such
                          tunable — ``zfs_arc_max`` among them: ziosim has no ARC size;
   OUT OF RANGE           not an integer, or outside the declaration's min..max;
   UNSAFE                 a knob of ``advise.UNSAFE`` away from its default;
   REDUNDANT              equal to the release's default (not for defaults derived from
                          RAM: the real machine's differs);
   OK                     a value ziosim applies.

   The values of the OK, REDUNDANT and UNSAFE rows are what the scenario sets; when one
   tunable is set twice the later line wins, as the kernel applies them in order, and the
   earlier row says so.

Values are read as the platform's kernel reads them: a C integer of base 0 (``0x`` hex,
a leading ``0`` octal, else decimal — Linux ``kstrtoint(val, 0, …)`` in kernel/params.c,
FreeBSD ``strtoq(value, &end, 0)``, illumos system(4) "hexadecimal (0x10), Octal (046),
or Decimal (5)"), a loader.conf value with one ``k m g t`` suffix (×1024 each,
FreeBSD ``getenv_quad``), and ``/etc/system``'s ``|``, ``&``, ``~`` and ``-`` applied to
the value so far. Booleans are 0 and 1.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from .. import _native, platforms
from ..advise import UNSAFE
from ..errors import ScenarioError
from ..report.releases import at_least
from ..scenario import nearest
from . import ImportTextError, Line, Section

__all__ = ["Setting", "Config", "Row", "VERDICTS", "FAILING", "APPLIED", "parse", "read_value", "audit",
           "platform_of", "applied", "is_comment", "starts_section", "PROMPT"]

VERDICTS = ("OK", "REDUNDANT", "UNSAFE", "OUT OF RANGE", "NOT IN THIS RELEASE", "NOT MODELLED",
            "WRONG PLATFORM SYNTAX", "UNKNOWN", "OTHER")
#: Verdicts that make ``ziosim import`` of config files alone exit 1.
FAILING = frozenset({"UNKNOWN", "OUT OF RANGE", "WRONG PLATFORM SYNTAX", "UNSAFE"})
#: Verdicts whose value goes into the scenario.
APPLIED = frozenset({"OK", "REDUNDANT", "UNSAFE"})

# A name "looks like ZFS's" with one of these prefixes (ZFS's own source prefixes).
_ZFS_PREFIXES = ("zfs_", "zil_", "l2arc_", "zfetch_", "zio_", "zvol_", "spa_", "metaslab_", "dbuf_", "dmu_",
                 "vdev_")
# A name within this many edits of a knob's is taken for a misspelling of it.
_TYPO_EDITS = 2
# The ARC's size: ziosim has no field for it (zfs.ram is the host's RAM).
_ARC_SIZE = {("linux", "zfs_arc_max"), ("freebsd", "vfs.zfs.arc_max"), ("freebsd", "vfs.zfs.arc.max"),
             ("illumos", "zfs_arc_max")}
_ARC_NOTE = ("the ARC's maximum size, which ziosim does not model: a scenario's zfs.ram is the host's RAM and each "
             "workload's arc_hit its ARC hit share (docs/scenario.md); kept out of the scenario")

# How a value shows its unit: "8", "20%", "10 s", "16777216 bytes".
_UNIT = {"count": "", "bool": "", "percent": "%"}

_PLATFORM_LABEL = {"linux": "Linux", "freebsd": "FreeBSD", "illumos": "illumos"}
_ALLOWED = {
    "linux": "options zfs NAME=VALUE (/etc/modprobe.d) or /sys/module/zfs/parameters/NAME:VALUE lines",
    "freebsd": 'vfs.zfs.NAME=VALUE (/etc/sysctl.conf), vfs.zfs.NAME="VALUE" (/boot/loader.conf) or '
               "vfs.zfs.NAME: VALUE (sysctl vfs.zfs) lines",
    "illumos": "set zfs:NAME = VALUE lines (/etc/system)",
}


# ----------------------------------------------------------------------------- parsing


@dataclass(frozen=True)
class Setting:
    """One assignment as written, or one other line of a tunables file."""

    file: str
    line: int
    text: str  # the whole line
    syntax: str  # modprobe, sysfs, loader.conf, sysctl.conf, sysctl, system, or other
    platform: str | None  # whose syntax this is; None for a bare NAME=VALUE
    name: str  # as the platform names it: zfs_scrub_delay, vfs.zfs.scrub_delay
    value: str  # as written, quotes removed
    module: str | None = None  # options/sysfs module; /etc/system "module:" prefix
    op: str = "="  # /etc/system also has | and &
    other: str | None = None  # for syntax "other": what the line is

    @property
    def dump(self) -> bool:
        """Printed by a running system, so the name is real (never a misspelling)."""
        return self.syntax in ("sysfs", "sysctl")


@dataclass(frozen=True)
class Config:
    """The settings of one tunables section of a file."""

    file: str
    first_line: int
    last_line: int
    label: str  # "modprobe.d options", "/etc/system" …
    platform: str | None
    settings: tuple[Setting, ...]


_COMMENT = re.compile(r"^\s*(?:[#*]|$)")
_OPTIONS = re.compile(r"^\s*options\s+(?P<module>\S+)(?:\s+(?P<rest>.*?))?\s*$")
_MODPROBE_OTHER = re.compile(r"^\s*(?P<cmd>install|remove|alias|blacklist|softdep)\s+(?P<rest>.*?)\s*$")
_SYSFS = re.compile(r"^\s*/sys/module/(?P<module>[^/\s]+)/parameters/(?P<name>[^:\s]+):(?P<value>.*?)\s*$")
_SET = re.compile(r"^\s*set\s+(?:(?P<module>\w+)\s*:\s*)?(?P<name>[A-Za-z_]\w*)\s*(?P<op>[=|&])\s*(?P<value>.*?)\s*$",
                  re.I)
_SYSTEM_OTHER = re.compile(r"^\s*(?P<cmd>exclude|include|forceload|rootdev|rootfs|moddir)\s*[:=]\s*(?P<rest>.*?)\s*$",
                           re.I)
_QUOTED = re.compile(r'^\s*(?P<name>[A-Za-z_][\w.-]*)\s*=\s*"(?P<value>[^"]*)"\s*(?:#.*)?$')
_PLAIN = re.compile(r"^\s*(?P<name>[A-Za-z_][\w.-]*)\s*=\s*(?P<value>[^\s#\"]*)\s*(?:#.*)?$")
_SYSCTL_OUT = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*(?:\.[\w%-]+)+):\s*(?P<value>.*?)\s*$")
_TOKEN = re.compile(r'(?:[^\s"]|"[^"]*")+')

# `$ cat /etc/modprobe.d/zfs.conf`, `root@nas:~ # sysctl vfs.zfs`, `$ grep . /sys/module/zfs/parameters/*`
PROMPT = re.compile(r"^\s*(?:\[?[\w.@:~/-]*(?:\s[\w.@:~/-]*)?\]?\s?[#$%>]\s*)?"  # user@host:~ #
                    r"(?:sudo\s+)?(?:cat|grep|egrep|sysctl)\s+\S.*"
                    r"(?:zfs|/etc/system|loader\.conf|sysctl\.conf|modprobe)")
# Lines no zpool output holds: they start a tunables section wherever they are.
_ANYWHERE = re.compile(r"^\s*(?:options\s+(?:zfs|spl)\b|set\s+zfs\s*:|vfs\.zfs\.|/sys/module/(?:zfs|spl)/parameters/)",
                       re.I)


def is_comment(raw: str) -> bool:
    """A blank line or a whole-line comment (``#``, or ``*`` as /etc/system writes them)."""
    return bool(_COMMENT.match(raw))


def starts_section(raw: str, outside: bool) -> bool:
    """Whether this line starts a tunables section: a ZFS setting line anywhere, and any
    line of a tunables file where no other section is open (``outside``)."""
    if _ANYWHERE.match(raw):
        return True
    if not outside or is_comment(raw):
        return False
    return any(p.match(raw) for p in (_OPTIONS, _MODPROBE_OTHER, _SYSFS, _SET, _SYSTEM_OTHER, _QUOTED, _PLAIN,
                                      _SYSCTL_OUT))


_LABELS = {"modprobe": "modprobe.d options", "sysfs": "/sys/module/zfs/parameters", "loader.conf": "loader.conf",
           "sysctl.conf": "sysctl.conf", "sysctl": "sysctl vfs.zfs", "system": "/etc/system",
           "other": "tunables file"}


_EXPECTED = ("a tunable setting: options zfs NAME=VALUE (modprobe.d), NAME=VALUE or NAME=\"VALUE\" (sysctl.conf, "
             "loader.conf), NAME: VALUE (sysctl), /sys/module/zfs/parameters/NAME:VALUE, set zfs:NAME = VALUE "
             "(/etc/system), or a comment")


def parse(sec: Section) -> Config:
    """The settings of a ``conf`` section (see the module docstring)."""
    out: list[Setting] = []
    lines = list(sec.lines)
    i = 0
    while i < len(lines):
        ln = lines[i]
        i += 1
        if is_comment(ln.text):
            continue
        text = ln.text
        while text.endswith("\\") and _OPTIONS.match(text) and i < len(lines):  # kmod joins these
            text = text[:-1] + " " + lines[i].text.strip()
            i += 1
        out += _parse_line(Line(ln.file, ln.number, text))
    first = next((s for s in out if s.syntax != "other"), out[0] if out else None)
    label = _LABELS[first.syntax] if first is not None else "comments only"
    platform = next((s.platform for s in out if s.platform is not None), None)
    return Config(sec.file, sec.first_line, sec.lines[-1].number, label, platform, tuple(out))


def _parse_line(ln: Line) -> list[Setting]:
    t = ln.text

    def mk(syntax: str, platform: str | None, name: str, value: str = "", **kw: str | None) -> Setting:
        return Setting(ln.file, ln.number, t, syntax, platform, name, value, **kw)  # type: ignore[arg-type]

    m = _OPTIONS.match(t)
    if m:
        if not m.group("rest"):
            raise ImportTextError(ln.file, ln.number, t, "NAME=VALUE after options " + m.group("module"))
        return _options(m.group("module"), m.group("rest"), mk)
    m = _MODPROBE_OTHER.match(t)
    if m:
        return [mk("other", "linux", f"{m.group('cmd')} {m.group('rest')}".strip(),
                   other=f"a modprobe.d {m.group('cmd')} command")]
    m = _SYSFS.match(t)
    if m:
        return [mk("sysfs", "linux", m.group("name"), m.group("value"), module=m.group("module"))]
    m = _SET.match(t)
    if m:
        return [mk("system", "illumos", m.group("name"), m.group("value"), module=m.group("module"), op=m.group("op"))]
    m = _SYSTEM_OTHER.match(t)
    if m:
        return [mk("other", "illumos", f"{m.group('cmd').lower()}: {m.group('rest')}",
                   other=f"an /etc/system {m.group('cmd').lower()} directive")]
    m = _QUOTED.match(t)
    if m:
        return [mk("loader.conf", "freebsd", m.group("name"), m.group("value"))]
    m = _PLAIN.match(t)
    if m:
        name = m.group("name")
        return [mk("sysctl.conf", "freebsd" if "." in name else None, name, m.group("value"))]
    m = _SYSCTL_OUT.match(t)
    if m:
        return [mk("sysctl", "freebsd", m.group("name"), m.group("value"))]
    raise ImportTextError(ln.file, ln.number, t, _EXPECTED)


def _options(module: str, rest: str, mk: Callable[..., Setting]) -> list[Setting]:
    """``options MODULE a=1 b="2"``: one setting per parameter. kmod treats only a line that
    starts with ``#`` as a comment, so a ``#`` later on is handed to the module as a word."""
    out = []
    tokens = _TOKEN.findall(rest)
    j = 0
    while j < len(tokens):
        tok = tokens[j]
        if tok.startswith("#"):
            out.append(mk("modprobe", "linux", " ".join(tokens[j:]), "", module=module, other="comment"))
            break
        # `NAME = VALUE`, `NAME =VALUE`, `NAME= VALUE`: spaces around the `=` (one row, not
        # a row per word: the mistake is the spacing).
        nxt = tokens[j + 1] if j + 1 < len(tokens) else ""
        if "=" not in tok and nxt.startswith("=") and not nxt.startswith("#"):
            value = nxt[1:] or (tokens[j + 2] if j + 2 < len(tokens) and "=" not in tokens[j + 2] else "")
            out.append(mk("modprobe", "linux", tok, value.strip('"'), module=module, other="spaced"))
            j += 2 if nxt[1:] or not value else 3
            continue
        if tok.endswith("=") and tok.count("=") == 1 and nxt and "=" not in nxt and not nxt.startswith("#"):
            out.append(mk("modprobe", "linux", tok[:-1], nxt.strip('"'), module=module, other="spaced"))
            j += 2
            continue
        name, _, value = tok.partition("=")
        out.append(mk("modprobe", "linux", name, value.strip('"'), module=module))
        j += 1
    return out


# ----------------------------------------------------------------------------- values


_C_INT = re.compile(r"(?P<sign>[+-]?)(?P<digits>0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")


def read_value(s: Setting, width_bits: int, so_far: int) -> tuple[int, str]:
    """The integer a setting gives, and how it was read ("" when plain decimal).

    Raises ValueError when the kernel would not read an integer from it."""
    text, notes = s.value.strip(), []
    complement = False
    if s.syntax == "system":
        if text.startswith("~"):
            complement, text = True, text[1:].strip()
    scale = 1
    if s.syntax == "loader.conf" and text[-1:].lower() in ("k", "m", "g", "t"):
        scale = 1 << (10 * "kmgt".index(text[-1].lower()) + 10)
        text = text[:-1]
    m = _C_INT.fullmatch(text)
    if not m:
        raise ValueError(s.value)
    digits = m.group("digits")
    base = 16 if digits[:2].lower() == "0x" else 8 if len(digits) > 1 and digits[0] == "0" else 10
    v = int(digits, base)
    if base == 16:
        notes.append("read as hex")
    elif base == 8:
        notes.append("read as octal, as the kernel reads a leading 0")
    if scale > 1:
        notes.append(f"{s.value.strip()[-1]} is ×{scale}")
    v *= scale * (-1 if m.group("sign") == "-" else 1)
    if complement:
        v = ~v & ((1 << (width_bits or 64)) - 1)
        notes.append(f"~ is the one's complement in {width_bits or 64} bits")
    if s.op == "|":
        v, notes = so_far | v, notes + [f"ORed into {so_far}"]
    elif s.op == "&":
        v, notes = so_far & v, notes + [f"ANDed with {so_far}"]
    return v, ", ".join(notes)


# ----------------------------------------------------------------------------- the audit


@dataclass(frozen=True)
class Row:
    """The verdict on one setting."""

    file: str
    line: int
    name: str  # as written
    value: str  # as written
    verdict: str
    why: str
    tunable: str | None = None  # the ziosim tunable it sets (verdicts in APPLIED, and OUT OF RANGE)
    number: int | None = None  # the value read, if it is an integer

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def describe(self) -> str:
        """One line: ``zfs.conf:3 zfs_scrub_delay=0: NOT IN THIS RELEASE — …``."""
        setting = f"{self.name}={self.value}" if self.value else self.name
        return f"{self.where} {setting}: {self.verdict} — {self.why}"


class _Names:
    """Every name one platform gives ziosim's tunables, per release."""

    def __init__(self, platform: str) -> None:
        self.platform = platform
        self.declared = {t["name"]: t for t in _native.tunables()}
        self.family = [r for r in _native.releases() if platform in platforms.platforms_for(r)]
        self.by_name: dict[str, dict[str, str]] = {}  # name → {release: tunable}
        self.knobs: dict[tuple[str, str], platforms.Knob] = {}  # (release, tunable) → knob
        for r in self.family:
            for t in self.declared:
                k = platforms.knob(platform, r, t)
                if k is not None:
                    self.by_name.setdefault(k.name, {})[r] = t
                    self.knobs[(r, t)] = k

    def names_in(self, release: str) -> list[str]:
        return [n for n, rs in self.by_name.items() if release in rs]

    def name_of(self, tunable: str, release: str) -> str | None:
        k = self.knobs.get((release, tunable))
        return None if k is None else k.name

    def tunable_of(self, name: str, release: str) -> str | None:
        """The tunable ``name`` sets in ``release``, else in the newest release that has it."""
        rs = self.by_name.get(name, {})
        return rs.get(release) or (rs[max(rs, key=self.family.index)] if rs else None)

    def runs(self, releases: Sequence[str]) -> str:
        return _runs(self.family, list(releases))


_names_cache: dict[str, tuple[object, _Names]] = {}


def _names(platform: str) -> _Names:
    """``_Names`` of a platform, rebuilt when the core module changes (tests swap it)."""
    core = _native.core()
    hit = _names_cache.get(platform)
    if hit is None or hit[0] is not core:
        hit = _names_cache[platform] = (core, _Names(platform))
    return hit[1]


def _runs(family: Sequence[str], members: list[str]) -> str:
    """Releases as runs of neighbours in ``family``: "zfs-0.6.5 … zfs-0.7, illumos-2014"."""
    runs: list[list[str]] = []
    for r in sorted(members, key=family.index):
        if runs and family.index(r) == family.index(runs[-1][-1]) + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]} … {run[-1]}" for run in runs)


def platform_of(configs: Sequence[Config], release: str) -> str:
    """The one platform the files are written for; a ``ScenarioError`` (exit 2) when it is
    not where ``release`` ran, or when the files are from two platforms."""
    shipped = platforms.platforms_for(release)
    chosen: tuple[str, Config] | None = None
    for c in configs:
        if c.platform is None:
            continue
        mine = [x for x in c.settings if x.platform == c.platform]
        s = next((x for x in mine if x.syntax != "other"), mine[0])
        if c.platform not in shipped:
            ran = ", ".join(_PLATFORM_LABEL[p] for p in shipped)
            raise ImportTextError(s.file, s.line, s.text,
                                  f"{'; or '.join(_ALLOWED[p] for p in shipped)}: {release} ran on {ran} only, and "
                                  f"this is {_a(_PLATFORM_LABEL[c.platform])} {_LABELS[s.syntax]} line")
        if chosen is not None and chosen[0] != c.platform:
            raise ScenarioError(
                f"{s.file}:{s.line}: {_PLATFORM_LABEL[c.platform]} settings beside {chosen[1].file}'s "
                f"{_PLATFORM_LABEL[chosen[0]]} ones — allowed: the files of one machine")
        chosen = (c.platform, c)
    return chosen[0] if chosen is not None else shipped[0]


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def audit(configs: Sequence[Config], release: str) -> list[Row]:
    """One verdict row per setting, in file order (see the module docstring)."""
    platform = platform_of(configs, release)
    names = _names(platform)
    rows: list[Row] = []
    so_far: dict[str, int] = {}
    for c in configs:
        for s in c.settings:
            row = _judge(s, platform, release, names, so_far)
            if row.verdict in APPLIED and row.tunable is not None and row.number is not None:
                so_far[row.tunable] = row.number
            rows.append(row)
    return _mark_overridden(rows)


def applied(rows: Sequence[Row]) -> dict[str, Row]:
    """Tunable → the row whose value the scenario takes (the last that sets it)."""
    out: dict[str, Row] = {}
    for r in rows:
        if r.verdict in APPLIED and r.tunable is not None:
            out[r.tunable] = r
    return dict(sorted(out.items()))


def _mark_overridden(rows: list[Row]) -> list[Row]:
    last = applied(rows)
    return [replace(r, why=f"{r.why}; overridden by {last[r.tunable].where}")
            if r.verdict in APPLIED and r.tunable is not None and last[r.tunable] is not r else r for r in rows]


def _judge(s: Setting, platform: str, release: str, names: _Names, so_far: dict[str, int]) -> Row:
    def row(verdict: str, why: str, tunable: str | None = None, number: int | None = None) -> Row:
        return Row(s.file, s.line, s.name, s.value, verdict, why, tunable, number)

    if s.other == "spaced":
        return row("OUT OF RANGE", f"spaces around =: kmod hands the module {s.name} with no value and the rest as "
                                   "words of their own; the kernel refuses an integer parameter without a value, so "
                                   "the module does not load (Invalid parameters); write options "
                                   f"{s.module or 'zfs'} {s.name}={s.value}")
    if s.other == "comment":
        return row("UNKNOWN", "kmod reads a comment only at the start of a line: these words reach the module as "
                              "parameters, which it ignores as unknown")
    wrong = _wrong_syntax(s, platform, release)
    if wrong is not None:
        return row("WRONG PLATFORM SYNTAX", wrong)
    if s.syntax == "other":
        return row("OTHER", f"{s.other}; it sets no tunable")
    other = _not_zfs(s, platform)
    if other is not None:
        return row("OTHER", other)
    by_release = names.by_name.get(s.name)
    if by_release is not None and release in by_release:
        return row(*_value_verdict(s, release, by_release[release], names, so_far))
    if by_release is not None:
        return row("NOT IN THIS RELEASE", _not_in_release(s, platform, release, by_release, names))
    return row(*_unknown_or_unmodelled(s, platform, release, names))


def _zfs_like(name: str) -> bool:
    return name.startswith(_ZFS_PREFIXES)


def _bare(s: Setting) -> bool:
    """A loader.conf or sysctl.conf line whose name is a C-style ZFS name, not an OID."""
    return (s.syntax in ("loader.conf", "sysctl.conf") and "." not in s.name and _zfs_like(s.name)
            and not (s.syntax == "loader.conf" and s.name.endswith("_load")))


def _wrong_syntax(s: Setting, platform: str, release: str) -> str | None:
    """Why a setting is written in another platform's form, or None."""
    on = f"{release} on {_PLATFORM_LABEL[platform]}"
    if _bare(s):
        return f"a bare NAME=VALUE with a C name; {on} reads {_ALLOWED[platform]}" + _translation(s, platform, release)
    if s.platform is not None and s.platform != platform:
        return (f"{_a(_PLATFORM_LABEL[s.platform])} {_LABELS[s.syntax]} line in {_a(_PLATFORM_LABEL[platform])} "
                f"file; {on} reads {_ALLOWED[platform]}" + _translation(s, platform, release))
    if platform == "linux" and s.module == "zfs" and s.name.startswith("vfs."):
        return "a FreeBSD sysctl name; Linux module parameters are C names" + _translation(s, platform, release)
    if platform == "illumos" and s.syntax == "system" and s.module is None and _zfs_like(s.name):
        return (f"without the zfs: prefix system(4) looks for {s.name} in the core kernel, not in the zfs module; "
                f"write set zfs:{s.name} = {s.value}")
    return None


def _not_zfs(s: Setting, platform: str) -> str | None:
    """What a line that is not a ZFS setting is, or None."""
    if s.syntax in ("modprobe", "sysfs", "system") and s.module != "zfs":
        if s.module is None:
            return "a core-kernel variable (set without a module: prefix), not ZFS's"
        if s.module == "spl":
            return "a parameter of the spl module (the Solaris Porting Layer), which ziosim does not model"
        return f"a setting of the {s.module} module, not ZFS's"
    if s.syntax in ("loader.conf", "sysctl.conf", "sysctl") and not s.name.startswith("vfs.zfs."):
        if s.syntax == "loader.conf" and s.name.endswith("_load"):
            return f"loads the {s.name[:-5]} kernel module at boot; it sets no tunable"
        return "not a ZFS setting" + ("; ziosim reads only vfs.zfs.*" if platform == "freebsd" else "")
    return None


def _translation(s: Setting, platform: str, release: str) -> str:
    """"; write …": this platform's line for the knob the setting meant, when that is known."""
    tunable = next((t for t in (_names(p).tunable_of(s.name, release) for p in platforms.PLATFORMS
                                if p != platform) if t is not None), None)
    if tunable is None and s.name in _names(platform).declared:  # a C name: Linux's and illumos's
        tunable = s.name
    if tunable is None:
        return ""
    k = platforms.knob(platform, release, tunable)
    if k is None:
        return f" ({s.name} is {tunable}, which {release} on {_PLATFORM_LABEL[platform]} does not have)"
    return "; write " + {"linux": f"options zfs {k.name}={s.value}", "freebsd": f"{k.name}={s.value}",
                         "illumos": f"set zfs:{k.name} = {s.value}"}[platform]


def _value_verdict(s: Setting, release: str, tunable: str, names: _Names,
                   so_far: dict[str, int]) -> tuple[str, str, str, int | None]:
    """(verdict, why, tunable, value) for a setting of a knob this release has."""
    d = names.declared[tunable]
    default = d["defaults"][release]
    lo, hi, unit = d["min"], d["max"], d["unit"]
    try:
        v, how = read_value(s, names.knobs[(release, tunable)].width_bits, so_far.get(tunable, default))
    except ValueError:
        return ("OUT OF RANGE", f"{s.value or 'no value'} is not an integer the kernel reads (decimal, 0x hex, "
                                f"0-prefixed octal); allowed: {lo}..{hi} {unit}", tunable, None)
    read = f" ({s.value}: {how})" if how else ""
    shown = f"{v}{_UNIT.get(unit, ' ' + unit)}"
    if not lo <= v <= hi:
        return ("OUT OF RANGE", f"{shown}{read} is outside {lo}..{hi}{_UNIT.get(unit, ' ' + unit)}, the range "
                                f"ziosim allows for {tunable}",
                tunable, v)
    sets = "sets " + (tunable if tunable == s.name else f"{tunable} ({s.name})")
    if tunable in UNSAFE and v != default:
        return ("UNSAFE", f"{sets} to {shown}{read}, away from the default {default}: {UNSAFE[tunable]}", tunable, v)
    if d.get("derived"):
        return ("OK", f"{sets} to {shown}{read}; its default depends on the machine ({d['derived']}; ziosim "
                      f"assumes {default})", tunable, v)
    if v == default:
        return ("REDUNDANT", f"equal to the {release} default{read}; written to the scenario all the same",
                tunable, v)
    return ("OK", f"{sets} to {shown}{read}; the {release} default is {default}", tunable, v)


# What the spec says became of a knob some releases lack: (when it applies, the fact, a counterpart)
# users.md §1.5; zfs-model.md §5.1 (the rename), §6.6 (zil_disable), §9.2-9.3.
_AFTER_08 = "removed with the sorted scan in 0.8"
_FATE: dict[str, tuple[str, str | None]] = {
    "zfs_scrub_delay": (_AFTER_08, None),
    "zfs_resilver_delay": (_AFTER_08, None),
    "zfs_scan_idle": (_AFTER_08, None),
    "zfs_top_maxinflight": (_AFTER_08, "zfs_scan_vdev_limit"),
    "zfs_scan_min_time_ms": ("renamed zfs_scrub_min_time_ms in 0.8.0", "zfs_scrub_min_time_ms"),
    "zfs_scrub_min_time_ms": ("called zfs_scan_min_time_ms before 0.8.0", "zfs_scan_min_time_ms"),
}


def _not_in_release(s: Setting, platform: str, release: str, by_release: dict[str, str], names: _Names) -> str:
    tunable = next(iter(by_release.values()))
    have = names.runs(list(by_release))
    if platform == "freebsd" and s.name == "vfs.zfs.top_maxinflight" and at_least(release, "zfs-2.0"):
        return (f"in {have} it sets zfs_top_maxinflight; FreeBSD 13+ keeps it as a legacy alias that sets "
                "zfs_vdev_max_active instead (spec zfs-model.md §9.2), which ziosim does not map — write "
                "vfs.zfs.vdev.max_active if that is what is meant")
    head = f"{s.name} is in {have} only" if not s.dump else f"ziosim's {release} has no {s.name} ({have} have it)"
    parts = [(f"ignored by {release}: " if not s.dump else "") + head]
    same = names.name_of(tunable, release)
    if same is not None:
        parts.append(f"{release} names it {same}")
    fate = _FATE.get(tunable)
    if fate is not None:
        fact, counterpart = fate
        if fact != _AFTER_08 or (release.startswith("zfs-") and at_least(release, "zfs-0.8")):
            parts.append(fact)
        there = names.name_of(counterpart, release) if counterpart else None
        if there is not None:
            parts.append(f"its nearest counterpart is {there} ({names.declared[counterpart]['unit']})")
    if tunable == "zil_disable":
        parts.append("replaced by the dataset property sync=disabled (zfs.sync in a scenario)")
    if s.dump:
        parts.append("point releases differ (docs/platforms.md)")
    return "; ".join(parts)


# FreeBSD 12's (and FreeNAS 11.1+'s) legacy-ZFS sysctls for knobs ziosim models under other
# names (spec/zfs-model.md §9.3 name table; users.md §4.6). FreeBSD 12 took the sorted scan
# before OpenZFS came to FreeBSD 13, but ziosim's freebsd-9 key is FreeBSD 9's ZFS, which had
# neither: real names of a release ziosim does not model, not misspellings.
_FREEBSD12_NAMES = {
    "vfs.zfs.zfs_scan_legacy": "zfs_scan_legacy",
    "vfs.zfs.zfs_scan_checkpoint_interval": "zfs_scan_checkpoint_intval",
}


def _unknown_or_unmodelled(s: Setting, platform: str, release: str, names: _Names) -> tuple[str, str]:
    where = f"no {_PLATFORM_LABEL[platform]} release ziosim knows ({names.runs(names.family)})"
    if platform == "freebsd" and s.name in _FREEBSD12_NAMES:
        tunable = _FREEBSD12_NAMES[s.name]
        have = [r for r in names.family if names.name_of(tunable, r) is not None]
        modern = f"; OpenZFS ({names.runs(have)}) names it {names.name_of(tunable, have[-1])}" if have else ""
        return ("NOT IN THIS RELEASE",
                f"FreeBSD 12's (and FreeNAS's) legacy-ZFS name for {tunable}, a release ziosim does not model: "
                f"its freebsd-9 is FreeBSD 9's ZFS, which has no sorted scan{modern}; kept out of the scenario")
    if (platform, s.name) in _ARC_SIZE:
        return ("NOT MODELLED", _ARC_NOTE)
    if s.name in names.declared:  # Linux and illumos name knobs as the C variable
        have = [r for r, d in names.declared[s.name]["defaults"].items() if d is not None]
        on = [r for r in have if platform in platforms.platforms_for(r)]
        if on:
            return ("UNKNOWN", f"ziosim models {s.name} ({names.runs(on)}), but {_PLATFORM_LABEL[platform]} never "
                               "made it a setting (docs/platforms.md), so the kernel ignores the line")
        elsewhere = [_PLATFORM_LABEL[p] for p in platforms.PLATFORMS
                     if any(p in platforms.platforms_for(r) for r in have)]
        return ("UNKNOWN", f"{where} has {s.name}; ziosim has it for {_runs(_native.releases(), have)} on "
                           f"{', '.join(elsewhere)}")
    guess = None if s.dump else _misspelt(s, platform, release, names)
    if guess is not None:
        return ("UNKNOWN", f"{where} has {s.name}; did you mean {guess}?")
    zfs_like = s.dump or (s.name.startswith("vfs.zfs.") if platform == "freebsd" else _zfs_like(s.name))
    if zfs_like:
        return ("NOT MODELLED", "a ZFS parameter ziosim does not model; kept out of the scenario")
    near = nearest(s.name, names.names_in(release)) or nearest(s.name, names.by_name)
    return ("UNKNOWN", f"{where} has {s.name}, and it does not look like a ZFS name"
                       + (f"; did you mean {near}?" if near else ""))


def _misspelt(s: Setting, platform: str, release: str, names: _Names) -> str | None:
    """The knob name a misspelt one most likely meant, or None."""
    if platform == "freebsd":
        tail = s.name[len("vfs.zfs."):]
        for c in (tail, "zfs_" + tail):  # a C name under vfs.zfs. (FreeNAS's vfs.zfs.zfs_scan_legacy)
            if c in names.declared:
                meant = names.name_of(c, release) or next((n for n, rs in names.by_name.items() if c in rs.values()),
                                                          None)
                if meant is not None:
                    return meant
    here = set(names.names_in(release))
    edits, _, near = min((_edits(s.name, n), n not in here, n) for n in names.by_name)
    return near if edits <= _TYPO_EDITS else None


def _edits(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]

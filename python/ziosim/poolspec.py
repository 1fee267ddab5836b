"""`ziosim run --pool SPEC --fill F`: a pool given on the command line (design.md §4).

SPEC reads like the vdev list of `zpool create`, with "N×" standing for N disks of one
device (a `[devices]` name of the scenario or a bundled preset) instead of N disk names:

    raidz2 6x hdd-7200-sata-2014
    3x mirror 2x hdd-7200-sata-2014 log mirror 2x intel-s3700 cache samsung-850pro
    raidz2 6x hdd-7200-sata-2014 special mirror 2x intel-s3700
    draid2:8d:2s 24x exos-x14 spare 2x exos-x14
    4x hdd                      (four single-disk vdevs: a stripe)

A group is `[Kx] TYPE Nx DEVICE` (K top-level vdevs of N disks each; TYPE one of mirror,
raidz, raidz1-3, draid1-3 with zpool's `:<data>d:<children>c:<spares>s` suffixes) or
`[Nx] DEVICE` (single-disk vdevs). After `special`, groups are special vdevs, written as
data groups (any type but dRAID; zfs-0.8+); after `log`, log vdevs (`mirror Nx DEV`, or
`[Nx] DEV` for separate ones); after `cache` and `spare`, `[Nx] DEV`. Commas may separate
groups. The spec is the whole pool, as `zpool create` makes it: it replaces the
scenario's `pool.vdevs`, `pool.special`, `pool.log`, `pool.cache` and `pool.spares`; the rest of `[pool]`
(name, ashift, recordsize, layout, failmode, allocated or fill) stays unless `--fill`
changes how full it is.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from .errors import ScenarioError

__all__ = ["parse_pool", "parse_fill", "apply", "POOL_FIELDS"]

# What a --pool spec replaces in the scenario's [pool] table.
POOL_FIELDS = ("vdevs", "special", "log", "cache", "spares")

_SECTIONS = {"special": "special", "log": "log", "logs": "log", "cache": "cache", "spare": "spares",
             "spares": "spares"}
_REFUSED_SECTIONS = ("dedup",)
_TYPES = ("mirror", "raidz", "raidz1", "raidz2", "raidz3")
_DRAID = re.compile(r"^draid([1-3]?)((?::\d+[dcs])*)$")
_COUNT = re.compile(r"^(\d+)[x×]$")
_DEVICE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

ALLOWED = ('allowed: vdev groups as zpool create lists them, with Nx for N disks of a device, e.g. '
           '"raidz2 6x hdd-7200-sata-2014" or "3x mirror 2x hdd log mirror 2x intel-s3700 cache samsung-850pro '
           'spare hdd" (docs/scenario.md, "A pool on the command line")')


def _err(spec: str, why: str, allowed: str = ALLOWED) -> ScenarioError:
    return ScenarioError(f"--pool: {json.dumps(spec)} — {why}; {allowed}")


def _count(tok: Optional[str]) -> Optional[int]:
    m = _COUNT.match(tok or "")
    return int(m.group(1)) if m else None


def _is_type(tok: Optional[str]) -> bool:
    return tok is not None and (tok in _TYPES or _DRAID.match(tok) is not None)


# A token that starts like a vdev type but is none (raidz4, mirrors, draid2:8x).
_TYPE_LIKE = re.compile(r"^(mirror|raidz|draid)", re.IGNORECASE)
TYPES_ALLOWED = ("allowed: mirror, raidz (raidz1), raidz2, raidz3, draid (draid1), draid2, draid3, a dRAID with "
                 "zpool's suffixes such as draid2:8d:2s")


class _Tokens:
    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.toks = spec.replace(",", " ").split()
        self.i = 0

    def peek(self, k: int = 0) -> Optional[str]:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def take(self) -> str:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def device(self, after: str) -> str:
        tok = self.peek()
        if tok is None or tok in _SECTIONS or tok in _REFUSED_SECTIONS:
            raise _err(self.spec, f"a device name must follow {json.dumps(after)}")
        if _count(tok) is not None or _is_type(tok):
            raise _err(self.spec, f"{json.dumps(tok)} after {json.dumps(after)} — a device name must follow it")
        if _TYPE_LIKE.match(tok):
            raise _err(self.spec, f"{json.dumps(tok)} is not a vdev type", TYPES_ALLOWED)
        if not _DEVICE.match(tok):
            raise _err(self.spec, f"{json.dumps(tok)} is not a device name (a [devices] name or a preset, see "
                       "`ziosim presets`)")
        return self.take()

    def positive(self, tok: str) -> int:
        n = _count(tok)
        assert n is not None
        if n < 1:
            raise _err(self.spec, f"{json.dumps(tok)} — a count is at least 1")
        return n


def _draid(spec: str, tok: str, disks: int) -> dict[str, Any]:
    m = _DRAID.match(tok)
    assert m is not None
    v: dict[str, Any] = {"type": f"draid{m.group(1) or '1'}", "disks": disks}
    seen: set[str] = set()
    for part in m.group(2).split(":")[1:]:
        n, kind = int(part[:-1]), part[-1]
        if kind in seen:
            raise _err(spec, f"{json.dumps(tok)} gives :{kind} twice")
        seen.add(kind)
        if kind == "d":
            v["data"] = n
        elif kind == "s":
            v["spares"] = n
        elif n != disks:
            raise _err(spec, f"{json.dumps(tok)} says {n} children but {disks} disks follow it")
    return v


def _data_group(t: _Tokens) -> list[dict[str, Any]]:
    first = t.take()
    reps = 1
    if _count(first) is not None and _is_type(t.peek()):
        reps = t.positive(first)
        first = t.take()
    if _is_type(first):
        n_tok = t.peek()
        if _count(n_tok) is None:
            raise _err(t.spec, f"{json.dumps(first)} needs its disk count before the device, e.g. "
                       f"{json.dumps(first + ' 2x hdd' if first == 'mirror' else first + ' 6x hdd')}")
        n = t.positive(t.take())
        dev = t.device(f"{first} {n_tok}")
        v = _draid(t.spec, first, n) if first.startswith("draid") else {"type": first, "disks": n}
        v["device"] = dev
        return [dict(v) for _ in range(reps)]
    n = _count(first)
    if n is not None:
        n = t.positive(first)
        return [{"type": "disk", "device": dev} for dev in [t.device(first)] * n]
    t.i -= 1
    return [{"type": "disk", "device": t.device("the start")}]


def _log_group(t: _Tokens) -> list[dict[str, Any]]:
    first = t.take()
    reps = 1
    if _count(first) is not None and t.peek() == "mirror":
        reps = t.positive(first)
        first = t.take()
    if first == "mirror":
        n_tok = t.peek()
        if _count(n_tok) is None:
            raise _err(t.spec, 'a log mirror needs its disk count, e.g. "log mirror 2x intel-s3700"')
        n = t.positive(t.take())
        if n < 2:
            raise _err(t.spec, f"a log mirror of {n} disk — a mirror has at least 2")
        dev = t.device(f"mirror {n_tok}")
        return [{"device": dev, "count": n, "mirror": True} for _ in range(reps)]
    if _is_type(first):
        raise _err(t.spec, f"a {first} log vdev — ZFS logs are single devices or mirrors")
    n = _count(first)
    if n is not None:
        n = t.positive(first)
        return [{"device": t.device(first), "count": n}]
    t.i -= 1
    return [{"device": t.device("log")}]


def _aux_group(t: _Tokens, section: str) -> dict[str, Any]:
    first = t.peek()
    if _is_type(first):
        raise _err(t.spec, f"{json.dumps(first)} in the {section} section — {section} devices stand alone")
    n = _count(first)
    if n is not None:
        t.take()
        n = t.positive(first)  # type: ignore[arg-type]
        return {"device": t.device(first), "count": n}  # type: ignore[arg-type]
    return {"device": t.device(section)}


def parse_pool(spec: str) -> dict[str, Any]:
    """The `[pool]` fields a --pool SPEC gives: `vdevs`, and `special`, `log`, `cache`,
    `spares` when it names them."""
    t = _Tokens(spec)
    if not t.toks:
        raise _err(spec, "empty")
    out: dict[str, Any] = {"vdevs": []}
    section = "vdevs"
    while t.peek() is not None:
        tok = t.peek()
        assert tok is not None
        if tok in _REFUSED_SECTIONS:
            raise _err(spec, f"{tok} vdevs are not modelled", "allowed: data vdevs, special, log, cache and spare")
        if tok in _SECTIONS:
            t.take()
            section = _SECTIONS[tok]
            if section in out:
                raise _err(spec, f"a second {json.dumps(tok)} section — give all its devices in one")
            out[section] = [] if section in ("log", "special") else None
            if t.peek() is None or t.peek() in _SECTIONS:
                raise _err(spec, f"{json.dumps(tok)} with no device after it")
            continue
        if section == "vdevs":
            out["vdevs"] += _data_group(t)
        elif section == "special":
            group = _data_group(t)
            if group[0]["type"].startswith("draid"):
                raise _err(spec, f"{json.dumps(group[0]['type'])} in the special section — ziosim models no dRAID "
                           "special vdev", "allowed: special followed by disk, mirror or raidz groups")
            out["special"] += group
        elif section == "log":
            out["log"] += _log_group(t)
        else:
            if out[section] is not None:
                raise _err(spec, f"two groups of {section} devices — one device (with Nx) per section")
            out[section] = _aux_group(t, "spare" if section == "spares" else section)
    if not out["vdevs"]:
        raise _err(spec, "no data vdev before the special, log, cache or spare section")
    return out


def parse_fill(text: str) -> float:
    """`--fill 62%` or `--fill 0.62`: the share of usable capacity allocated."""
    s = text.strip()
    try:
        f = float(s[:-1]) / 100 if s.endswith("%") else float(s)
    except ValueError:
        raise ScenarioError(f"--fill: {json.dumps(text)} — not a number; allowed: a ratio 0 < fill <= 1 "
                            'or a percentage, e.g. "0.62" or "62%"') from None
    f = round(f, 12)  # "99.9%" is 0.999, not 0.9990000000000001
    if not 0 < f <= 1:
        raise ScenarioError(f"--fill: {json.dumps(text)} — out of range; allowed: 0 < fill <= 1 (0 % < fill <= 100 %)")
    return f


def apply(doc: dict[str, Any], pool: Optional[dict[str, Any]], fill: Optional[float]) -> None:
    """Put a parsed --pool and --fill into a scenario document (before validation)."""
    t = doc.get("pool")
    if not isinstance(t, dict):
        t = doc["pool"] = {}
    if pool is not None:
        for k in POOL_FIELDS:
            t.pop(k, None)
        t.update({k: v for k, v in pool.items() if v is not None})
    if fill is not None:
        t.pop("allocated", None)
        t["fill"] = fill

"""Scenario field paths and command-line values, shared by ``ziosim run --set`` and sweeps.

A path uses dots for tables and ``[i]`` for array elements; ``workload[users]`` selects the
array element whose ``name`` is ``users`` (docs/sweep.md). A value on the command line is
TOML (``4``, ``1.5``, ``true``, ``"x"``, ``[]``, ``[{device="s3700"}]``), else the bare text
as a string. Errors are one line naming the option or key they came from.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import ScenarioError
from .scenario import tomllib
from .units import show as _unit_show

__all__ = [
    "show",
    "parse_path",
    "set_path",
    "merge_settings",
    "get_path",
    "value_label",
    "parse_value",
    "parse_set_option",
]

_PATH_TOKEN = re.compile(r"([^.\[\]]+)|\[([^\[\]]+)\]")
_PATH_FULL = re.compile(r"[^.\[\]\s][^.\[\]]*(?:\.[^.\[\]]+|\[[^\[\]]*[^\[\]\s][^\[\]]*\])*")


def show(v: Any) -> str:
    """A value as an error line quotes it: short arrays and tables in full."""
    if isinstance(v, (list, dict)):
        import json

        text = json.dumps(v, ensure_ascii=False, default=str)
        if len(text) <= 60:
            return text
    return _unit_show(v)


# ----------------------------------------------------------------------------- paths


def parse_path(path: str, where: str) -> list[str | int]:
    """``workload[0].threads`` → ``["workload", 0, "threads"]``; a bracketed name stays a str
    marked by a leading ``=`` (``workload[users]`` → ``["workload", "=users"]``)."""
    if not isinstance(path, str) or not _PATH_FULL.fullmatch(path.strip()):
        raise ScenarioError(
            f"{where}: {show(path)} — not a path; allowed: keys joined by dots, [i] or [name] for array elements "
            "(e.g. zfs.tunables.zfs_scrub_delay, workload[0].threads)"
        )
    parts: list[str | int] = []
    for key, inner in _PATH_TOKEN.findall(path.strip()):
        if key:
            parts.append(key.strip())
        else:
            inner = inner.strip().strip("\"'")
            parts.append(int(inner) if inner.isdigit() else "=" + inner)
    return parts


def _show_path(parts: Sequence[str | int]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif p.startswith("="):
            out += f"[{p[1:]}]"
        else:
            out += ("." if out else "") + p
    return out


def set_path(doc: dict[str, Any], path: str, value: Any, where: str) -> None:
    """Put ``value`` at ``path`` in ``doc``, creating missing tables on the way."""
    parts = parse_path(path, where)
    cur: Any = doc
    for i, key in enumerate(parts):
        last = i == len(parts) - 1
        here = _show_path(parts[:i]) or "the scenario"
        if isinstance(key, str) and not key.startswith("="):
            if not isinstance(cur, dict):
                raise ScenarioError(f"{where}: {path} — {here} is {show(cur)}, not a table; allowed: a path to a table key")
            if last:
                cur[key] = copy.deepcopy(value)
                return
            nxt = parts[i + 1]
            if key not in cur:
                if not (isinstance(nxt, str) and not nxt.startswith("=")):
                    raise ScenarioError(f"{where}: {path} — the base scenario has no {_show_path(parts[: i + 1])} array")
                cur[key] = {}
            cur = cur[key]
            continue
        if not isinstance(cur, list):
            raise ScenarioError(f"{where}: {path} — {here} is not an array; allowed: [i] only after an array")
        if isinstance(key, int):
            if key >= len(cur):
                raise ScenarioError(
                    f"{where}: {path} — {here} has {len(cur)} element(s); allowed: index 0..{max(len(cur) - 1, 0)}"
                )
            idx = key
        else:
            names = [e.get("name") if isinstance(e, dict) else None for e in cur]
            if key[1:] not in names:
                have = ", ".join(str(n) for n in names if n is not None) or "none named"
                raise ScenarioError(f"{where}: {path} — no element of {here} is named {key[1:]}; allowed: {have}")
            idx = names.index(key[1:])
        if last:
            cur[idx] = copy.deepcopy(value)
            return
        cur = cur[idx]


def merge_settings(doc: dict[str, Any], settings: Mapping[str, Any], where: str, prefix: str = "") -> None:
    """Apply ``[sweep.set]``: nested tables merge key by key; other values replace; a key
    with a dot or bracket is a path."""
    for k, v in settings.items():
        path = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict) and v and not re.search(r"[.\[]", k):
            target = get_path(doc, path)
            if isinstance(target, dict) or target is None:
                merge_settings(doc, v, where, path)
                continue
        set_path(doc, path, v, f"{where}.{k}" if not prefix else f"{where}.{path}")


def get_path(doc: Any, path: str) -> Any:
    cur = doc
    for key in parse_path(path, "path"):
        if isinstance(key, str) and not key.startswith("=") and isinstance(cur, dict):
            cur = cur.get(key)
        elif isinstance(key, int) and isinstance(cur, list) and key < len(cur):
            cur = cur[key]
        else:
            return None
    return cur


# ----------------------------------------------------------------------------- values


def value_label(v: Any) -> str:
    """How the comparison view prints an axis value: scalars as written, ``[]``/``{}`` as
    ``none``, a one-element array as its element, a table as ``k=v,k=v``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (int, str)):
        return str(v)
    if isinstance(v, (list, tuple)):
        if not v:
            return "none"
        if len(v) == 1:
            return value_label(v[0])
        return "[" + ",".join(value_label(e) for e in v) + "]"
    if isinstance(v, dict):
        if not v:
            return "none"
        return ",".join(f"{k}={value_label(x)}" for k, x in v.items())
    return str(v)


def _split_top_level(text: str) -> list[str]:
    """Split ``a,"b,c",[1,2],{x=1}`` on commas outside quotes and brackets."""
    items, depth, quote, cur = [], 0, "", ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        cur += ch
    items.append(cur)
    return [i.strip() for i in items]


def parse_value(text: str) -> Any:
    """A command-line value: TOML (``4``, ``1.5``, ``true``, ``"x"``, ``[]``,
    ``[{device="s3700"}]``), else the bare text as a string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_set_option(opt: str, one_value: bool = False) -> tuple[str, list[Any]]:
    """``--set field=v1,v2`` → (field, [v1, v2]). ``one_value``: the option as `run` takes
    it, so its errors show ``field=value`` (the comma list is a sweep's)."""
    form = "field=value" if one_value else "field=value[,value…]"
    if "=" not in opt:
        example = "zfs.sync=disabled" if one_value else "zfs.sync=standard,disabled"
        raise ScenarioError(f"--set: {show(opt)} — allowed: {form}, e.g. {example}")
    path, _, rest = opt.partition("=")
    path = path.strip()
    parse_path(path, "--set")
    if not rest.strip():
        raise ScenarioError(f"--set {path}: no value — allowed: {form}" if one_value
                            else f"--set {path}: no values — allowed: {form}")
    items = _split_top_level(rest)
    if one_value and len(items) != 1:
        raise ScenarioError(f"--set {path}: {len(items)} values — allowed: one value per field here; "
                            "`ziosim sweep` runs one point per value")
    if any(not i for i in items):
        raise ScenarioError(f"--set {path}: {show(rest)} — an empty value; allowed: values separated by single commas")
    return path, [parse_value(i) for i in items]

"""Parsing of the quantities users write in scenarios: sizes, durations, rates.

Sizes are base 1024, as ZFS prints them (`zutil_nicenum`): ``"4K"`` is 4096 bytes,
``"2.84T"`` is 2.84 × 2^40 rounded to the nearest byte. A trailing ``B`` or ``iB`` is
accepted (``"4KiB"``, ``"128KB"``), as is a decimal comma (``"11,4T"``, as ZFS prints
under some locales). Plain integers are bytes.

Durations need a unit — ``ns``, ``us`` (or ``µs``), ``ms``, ``s``, ``m``/``min``, ``h``,
``d`` — and may be compound like ZFS's own ``"2h40m"``. They become integer nanoseconds.

Rates are bytes per second: ``"100M"``, ``"100M/s"``, ``"117MB/s"``, or a plain integer.

Every parser raises `ScenarioError` naming the field path it was given. Formatting for
humans (nicenum) lives with the report code, not here.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from typing import Any

from .errors import ScenarioError

__all__ = ["parse_size", "parse_duration", "parse_rate", "show", "size_label", "sim_seconds", "SIZE_ALLOWED",
           "DURATION_ALLOWED"]

SIZE_ALLOWED = 'allowed: a byte count (4096) or a number with K, M, G, T, P or E (base 1024), e.g. "128K", "2.84T"'
DURATION_ALLOWED = 'allowed: a duration with a unit (ns, us, ms, s, m, h, d), e.g. "500ms", "60s", "2h40m"'
RATE_ALLOWED = 'allowed: bytes per second (117000000) or a size per second, e.g. "100M", "117M/s"'

_SHIFT = {"": 0, "K": 10, "M": 20, "G": 30, "T": 40, "P": 50, "E": 60}
_SIZE_RE = re.compile(r"^(?P<num>\d+(?:[.,]\d+)?|[.,]\d+)\s*(?P<suf>[KMGTPE]?)(?:I?B)?$", re.IGNORECASE)

_NS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "min": 60_000_000_000,
    "h": 3_600_000_000_000,
    "d": 86_400_000_000_000,
}
_DUR_PART = re.compile(r"(\d+(?:\.\d+)?|\.\d+)\s*(ns|us|µs|μs|ms|min|s|m|h|d)", re.IGNORECASE)


def show(value: Any) -> str:
    """A value as it appears in an error message: strings quoted as TOML writes them."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "{table}"
    if isinstance(value, list):
        return "[array]"
    return repr(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _negative(value: Any) -> bool:
    if _is_number(value):
        return value < 0
    return isinstance(value, str) and value.strip().startswith("-")


def parse_size(value: Any, path: str) -> int:
    """Bytes from ``4096``, ``"4K"``, ``"1.5T"``, ``"128KiB"``; never negative."""
    if _negative(value):
        raise ScenarioError(f"{path}: {show(value)} — a size cannot be negative; {SIZE_ALLOWED}")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        m = _SIZE_RE.match(value.strip())
        if m:
            num = Fraction(m.group("num").replace(",", "."))
            return round(num * (1 << _SHIFT[m.group("suf").upper()]))
    raise ScenarioError(f"{path}: {show(value)} — {SIZE_ALLOWED}")


def size_label(n: int) -> str:
    """Bytes as a scenario writes them, exactly: the largest unit that divides it (``16G``,
    ``1536M``), so the label reads back through ``parse_size`` to the same value."""
    for suf in ("E", "P", "T", "G", "M", "K"):
        if n and n % (1 << _SHIFT[suf]) == 0:
            return f"{n >> _SHIFT[suf]}{suf}"
    return str(n)


def sim_seconds(ns: int) -> str:
    """Simulated time as the summary's first line gives it: seconds to six significant
    digits, never in exponent form (``0.001s``, ``120s``, ``3427.72s``), so a 1 ms run does
    not read as ``0.0s`` nor a long one as ``1e+06s``."""
    s = int(ns) / 1e9
    if s <= 0:
        return "0s"
    decimals = max(0, 5 - math.floor(math.log10(s)))
    return f"{s:.{decimals}f}".rstrip("0").rstrip(".") + "s" if decimals else f"{s:.0f}s"


def parse_duration(value: Any, path: str) -> int:
    """Nanoseconds from ``"30us"``, ``"500ms"``, ``"10s"``, ``"2h40m"``, ``"1d"``."""
    if _negative(value):
        raise ScenarioError(f"{path}: {show(value)} — a duration cannot be negative; {DURATION_ALLOWED}")
    if isinstance(value, str):
        text = value.strip().replace(" ", "")
        pos, total = 0, Fraction(0)
        for m in _DUR_PART.finditer(text):
            if m.start() != pos:
                break
            total += Fraction(m.group(1)) * _NS[m.group(2).lower()]
            pos = m.end()
        if pos == len(text) and pos > 0:
            return round(total)
    if _is_number(value):
        raise ScenarioError(f"{path}: {show(value)} — a duration needs a unit; {DURATION_ALLOWED}")
    raise ScenarioError(f"{path}: {show(value)} — {DURATION_ALLOWED}")


def parse_rate(value: Any, path: str) -> int:
    """Bytes per second from ``117000000``, ``"100M"``, ``"100M/s"``, ``"117MB/s"``."""
    if _negative(value):
        raise ScenarioError(f"{path}: {show(value)} — a rate cannot be negative; {RATE_ALLOWED}")
    if isinstance(value, str):
        text = value.strip()
        if text.lower().endswith("/s"):
            text = text[:-2]
        try:
            return parse_size(text, path)
        except ScenarioError:
            pass
    elif _is_number(value) and float(value).is_integer():
        return int(value)
    raise ScenarioError(f"{path}: {show(value)} — {RATE_ALLOWED}")

"""ZFS number formatting, by release.

Re-implements ``zfs_nicenum_format`` (lib/libzutil/zutil_nicenum.c@zfs-2.2.0) and its
predecessor ``zfs_nicenum`` (lib/libzfs/libzfs_util.c@zfs-0.6.5), so that every number
ziosim prints looks exactly like the one the chosen release's ``zpool`` would print:

* sizes and counts: base 1024, suffixes ``K M G T P E``, at most five characters, trying
  2, then 1, then 0 decimals (``1.21T``, ``43.5M``, ``10.0K``, ``565G``); an exact multiple
  of the unit prints with no decimals (``4M``); values below 1024 print as integers.
* ``zfs_nicenum`` (every era, and all ``zpool iostat`` columns): no suffix below 1024,
  zero prints ``0``.
* ``zfs_nicebytes`` (0.7.0+ ``zpool status``): a ``B`` suffix below 1024, zero is ``0B``.
* times (``zpool iostat -l`` / ``-w``): base 1000, ``ns us ms s``, integer (floor), zero
  prints ``-`` because ZFS treats a zero latency as "no data".

All functions take non-negative integers (ZFS formats ``uint64_t``); floats are floored
first, as the C cast does.
"""

from __future__ import annotations

import math

__all__ = [
    "zfs_nicenum_format",
    "zfs_nicenum",
    "zfs_nicebytes",
    "zfs_nicetime",
    "nicebytes_for_release",
    "nicerate",
]

_UNITS = {
    "1024": ("", "K", "M", "G", "T", "P", "E"),
    "bytes": ("B", "K", "M", "G", "T", "P", "E"),
    "time": ("ns", "us", "ms", "s", "?", "?", "?"),
}
_UNITS_LEN = {"1024": 6, "bytes": 6, "time": 4}
_K_UNIT = {"1024": 1024, "bytes": 1024, "time": 1000}


def _as_u64(num: float | int) -> int:
    if isinstance(num, float):
        if math.isnan(num) or num < 0:
            return 0
        return int(math.floor(num))
    return max(int(num), 0)


def zfs_nicenum_format(num: float | int, fmt: str = "1024") -> str:
    """Format ``num`` as ZFS does for ``fmt`` in {"1024", "bytes", "time", "raw"}."""
    num = _as_u64(num)
    if fmt == "raw":
        return str(num)
    k = _K_UNIT[fmt]
    n, index = num, 0
    while n >= k and index < _UNITS_LEN[fmt]:
        n //= k
        index += 1
    unit = _UNITS[fmt][index]
    if fmt == "time" and num == 0:
        return "-"
    divisor = k**index
    if index == 0 or num % divisor == 0:
        return f"{n}{unit}"
    val = num / divisor
    text = ""
    for decimals in (2, 1, 0):
        if fmt == "time":
            # ZFS floors times rather than rounding: 999999 ns is "999us", never "1000us".
            text = f"{int(math.floor(val))}{unit}"
        else:
            text = f"{val:.{decimals}f}{unit}"
        if len(text) <= 5:
            break
    return text


def zfs_nicenum(num: float | int) -> str:
    """Base-1024 count/size without a byte suffix: ``0``, ``512``, ``4M``, ``1.21T``."""
    return zfs_nicenum_format(num, "1024")


def zfs_nicebytes(num: float | int) -> str:
    """Base-1024 size with ``B`` below 1 KiB (0.7.0+ ``zpool status``): ``0B``, ``43.5M``."""
    return zfs_nicenum_format(num, "bytes")


def zfs_nicetime(ns: float | int) -> str:
    """Base-1000 time from ns, integer floor, ``-`` for 0: ``512us``, ``12ms``, ``2s``."""
    return zfs_nicenum_format(ns, "time")


def nicebytes_for_release(num: float | int, release: str) -> str:
    """Byte amounts as the release's ``zpool status`` prints them (0 vs 0B)."""
    from .releases import at_least

    return zfs_nicebytes(num) if at_least(release, "zfs-0.7") else zfs_nicenum(num)


def nicerate(bytes_per_s: float | int, release: str = "zfs-2.2") -> str:
    """A rate as ``zpool status`` prints it: ``43.5M/s``."""
    return nicebytes_for_release(bytes_per_s, release) + "/s"

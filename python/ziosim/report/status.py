"""``zpool status`` configuration block (``print_status_config``, ZM@zfs-2.2.0).

The results document carries no scan progress yet, so there is no ``scan:`` line; every
device is ONLINE with zero error counters because ziosim does not model faults here.
"""

from __future__ import annotations

import re

from .nicenum import zfs_nicenum

__all__ = ["zpool_status_config"]


def _top_name(name: str, release: str) -> str:
    # `zpool status` names top-level vdevs type-id (mirror-0) since OpenSolaris
    # introduced the naming; the 2009 release key predates it.
    return re.sub(r"-\d+$", "", name) if release == "solaris-2009" else name


def zpool_status_config(results: dict, release: str) -> str:
    pool = results["pool"]
    leaves = results["leaves"]
    rows: list[tuple[int, str]] = [(0, pool["name"])]
    for vdev in pool["vdevs"]:
        idx = vdev["leaves"]
        if vdev.get("type") == "disk" and len(idx) == 1:
            rows.append((2, leaves[idx[0]]["name"]))
            continue
        rows.append((2, _top_name(vdev["name"], release)))
        rows.extend((4, leaves[i]["name"]) for i in idx)
    cache = [(2, leaves[i]["name"]) for i in pool.get("cache", [])]
    width = max([10] + [d + len(n) for d, n in rows + cache])
    zero = zfs_nicenum(0)

    def line(depth: int, name: str) -> str:
        return (f"\t{'':{depth}}{name:<{width - depth}}  {'ONLINE':<8}"
                f" {zero:>5} {zero:>5} {zero:>5}")

    out = [f"  pool: {pool['name']}", " state: ONLINE", "config:", "",
           f"\t{'NAME':<{width}}  {'STATE':<8} {'READ':>5} {'WRITE':>5} {'CKSUM':>5}"]
    out.extend(line(d, n) for d, n in rows)
    if cache:
        out.append("\tcache")
        out.extend(line(d, n) for d, n in cache)
    out += ["", "errors: No known data errors"]
    return "\n".join(out) + "\n"

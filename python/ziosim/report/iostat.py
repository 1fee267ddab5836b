"""``zpool iostat`` (default, -v, -l, -q, -w, -r) and OS ``iostat -x`` text from results.

Theory of operation
-------------------
The layout re-implements ``print_iostat_header_impl``, ``print_iostat_labels``,
``print_iostat_dashes``, ``print_vdev_stats``, ``print_iostat_histo(s)`` and
``single_histo_average``'s caller from ``cmd/zpool/zpool_main.c`` at the tags named below,
and the fixed-string header of releases before ZoL 0.7.0 (ZM@zfs-0.6.5, illumos):

* name column (``get_namewidth``, ``max_width``): ``max(len(name) + 2 * depth)`` over the
  vdev tree, hot spares included although -v prints none, at least 10; the pool's name
  counts from 0.7. Before 0.7 (not solaris-2009) the tree's names carry their id
  (``replacing-1``, ``raidz2-0``) there but not in the rows; OpenSolaris, illumos and
  FreeBSD cap the column at 38 characters and print a longer name unpadded.
  Each stat column is two spaces and a right-aligned 5-character ``zfs_nicenum``.
* group labels are centred over their columns with C integer arithmetic
  (``text_start = width / columns - len / columns``); labels longer than their
  column (``rebuild``, ``rebuildq_write``) overflow it, as in ZFS.
* interior vdevs and the pool add up their leaves (0.7.0+ ``vdev_get_stats_ex``); leaves
  print ``-`` for capacity. Before 0.7 an interior top-level vdev's row is its own logical
  I/O — one read or write per block, as its ``vdev_stat`` counted it (the results'
  ``series.tops``) — and the pool's the sum of its top-level rows. Rates are per second over the interval, floored. The pool row
  counts the log vdevs' I/O too — the root vdev sums every top-level vdev, logs included
  (module/zfs/vdev.c: ``vdev_get_stats`` @zfs-0.6.5, ``vdev_get_stats_ex_impl``
  @zfs-0.7.0) — but not the L2ARC devices, which are not its children.
* the pool's classes follow the data vdevs (``print_vdev_stats``): from illumos 952
  (il:9d439f9073, 2011; every release here but solaris-2009) the log vdevs under a
  ``logs`` label, then the L2ARC devices under ``cache``; from 0.8 the special vdevs come
  first, under ``special`` (ZM@zfs-0.8.0 … @zfs-2.3.0: ``print_vdev_stats`` walks
  ``class_name[] = {dedup, special, logs}`` after the normal top-level vdevs, each class
  labelled as the logs are, then the L2ARC devices). Before 0.7 a label is the fixed
  string ``"%-*s      -      -      -      -      -      -\\n"``; from ZM@zfs-0.7.0 it is
  ``print_iostat_dashes(cb, 0, "logs")`` — a ``-`` per column of every group shown —
  and in the ``-w``/``-r`` histograms a blank line. solaris-2009 (il:379c004d1f) has no
  ``logs`` label: ``print_vdev_stats`` walks every child of the root, so a log vdev prints
  among the data vdevs, after them.
* capacity is the vdev's ``vs_alloc`` at the end of each interval (``series.tops[t]
  .alloc_bytes``; the end of the run for a single report): the pool's contents as the
  scenario set them up, plus the run's blocks of every synced txg, less the frees out of
  the defer tree (``space.rs``; ``vs_alloc`` moves only in ``metaslab_sync_done``). The
  pool row sums the data vdevs (``vdev_space_update`` leaves the log class out of the
  root's).
* a log vdev is a top-level vdev with its own capacity columns: ``free`` is its size (the
  smallest of its disks, as ZFS sizes a mirror) less ``alloc``, the space of its ZIL blocks
  whose allocation txg has synced, until it is reusable (``zil.rs`` ``LogSpace``). A lone
  log disk goes by its own name, a log mirror as the data vdevs do (``mirror`` /
  ``mirror-1``). An L2ARC device has capacity columns in ZFS too (``vdev_space_update``
  from arc.c; ``spa_l2cache_space_update`` in 2009), but how full the L2ARC is is not in
  the results: ziosim prints ``-`` there.
* a special vdev is a top-level vdev as a data vdev is: its capacity (``vs_alloc`` of its
  metadata and small blocks), its rows and its disks'; the pool row's capacity counts it
  (``vdev_space_update``: "every class but log contributes to root space stats",
  module/zfs/vdev.c@zfs-0.8.0).
* ``-l`` cells are ZFS's ``single_histo_average`` of the interval: the core sums each
  command's log2-bucket midpoint (``*_mid_ns_sum``), divided (floor) by the commands and
  printed with ``zfs_nicetime``; a results document without those sums gets exact means.
* ``-q`` cells are instantaneous at the end of the interval (ZFS does not average them).
* ``-w`` / ``-r`` print whole-run counts, as ``zpool iostat -w`` with no interval does.

Per release: ``-l/-q/-w/-r`` from 0.7; trim columns from 0.8; rebuild columns from 2.2
(before, a 2.0/2.1 rebuild read counts as a scrub and a rebuild write as an async write);
0.7's ``-w`` says ``sync_queue``/``async_queue``; top-level vdevs are ``raidz2`` before
2.2 and ``raidz2-0`` from 2.2; before 0.7 the header is three fixed strings (with
``used avail`` instead of ``alloc free`` on solaris-2009) and a blank line follows
each ``-v`` block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import releases as rel
from .nicenum import zfs_nicenum, zfs_nicetime

__all__ = [
    "Row",
    "pool_rows",
    "zpool_iostat",
    "zpool_iostat_w",
    "zpool_iostat_r",
    "os_iostat_x",
    "unsupported_note",
    "LATENCY_BUCKET_LABELS",
]

COLUMN_WIDTH = 5
NS_PER_S = 1_000_000_000
LATENCY_BUCKETS = 37
SIZE_BUCKETS = 25
SIZE_FIRST_ROW = 9  # ZFS starts -r at 512 bytes

LATENCY_BUCKET_LABELS = tuple(zfs_nicetime((1 << (j + 1)) - 1) for j in range(LATENCY_BUCKETS))

READ_CLASSES = ("sync_read", "async_read", "scrub")
WRITE_CLASSES = ("sync_write", "async_write")
# A sequential rebuild's commands (2.0+) have a class of their own in the results, reads and
# writes together. `vdev_stat_update` files them by zio type in the total and disk
# histograms (the -w read/write columns) in every release, and by priority elsewhere: before
# 2.2 a rebuild read as a scrub and a rebuild write as an async write
# (ZM@zfs-2.1.0:module/zfs/vdev.c:4588), from 2.2 under rebuild columns of their own.
REBUILD = "rebuild"


# ----------------------------------------------------------------------------- the tree


@dataclass
class Row:
    """One printed line of ``zpool iostat -v``: the pool, a vdev or a leaf."""

    name: str
    depth: int
    leaves: list[int]
    alloc_bytes: int | None = None  # None: print "-" (leaves)
    size_bytes: int | None = None
    section: str = ""  # "" for the main tree, "special", "logs" for log vdevs, "cache" for L2ARC devices
    children: list[Row] = field(default_factory=list)
    # Before 0.7: a top-level vdev's row is its own logical I/O (``series.tops[i]``), and the
    # pool's the sum of its top-level rows (``sums``).
    logical: int | None = None
    sums: list[Row] | None = None
    # An interior vdev's name with its id (``replacing-1``), which sizes the name column
    # before 0.7 although the row prints ``replacing``; "" when it is ``name``.
    id_name: str = ""


def _vdev_display_name(name: str, release: str) -> str:
    if rel.names_top_level_with_id(release):
        return name
    return re.sub(r"-\d+$", "", name)


def _top_row(vdev: dict, leaves: list[dict], release: str, alloc: int, size: int,
             section: str = "") -> Row:
    idx = list(vdev["leaves"])
    if vdev.get("type") == "disk" and len(idx) == 1:
        return Row(leaves[idx[0]]["name"], 2, idx, alloc, size, section)
    row = Row(_vdev_display_name(vdev["name"], release), 2, idx, alloc, size, section, id_name=vdev["name"])
    row.children = [Row(leaves[i]["name"], 4, [i], section=section) for i in idx]
    return row


def pool_rows(results: dict, release: str, k: int | None = None) -> list[Row]:
    """Rows in the order ``print_vdev_stats`` visits them (pool, vdevs, leaves, special,
    logs, cache), for the pool as it was at report interval ``k`` (None: at the end of the run).

    A run with actions carries the vdev tree of each interval (the ``zpool status``
    snapshots): a disk being replaced is then a ``replacing`` vdev with the old and the new
    disk under it, as ``zpool iostat -v`` prints it, and the new disk's writes count in its
    vdev's and the pool's rows. A run without actions keeps the configured tree."""
    pool = results["pool"]
    leaves = results["leaves"]
    snap = _snapshot_at(results, k)
    # Every top-level vdev but the logs: the normal ones, then the special ones.
    ndata = len(pool["vdevs"])
    alloc = [_alloc_at(results, t, k, v) for t, v in enumerate(pool["vdevs"])]
    if snap is not None:
        top = _tree_top_rows(results, release, snap["tree"], alloc, snap.get("special_from"))
    else:
        top = [_top_row(v, leaves, release, alloc[t], v.get("size_bytes", 0),
                        "special" if v.get("class") == "special" else "")
               for t, v in enumerate(pool["vdevs"])]
        top.sort(key=lambda row: row.section == "special")  # stable: the normal vdevs first
    # Log vdevs: size that of the smallest disk.
    section = "" if release == "solaris-2009" else "logs"
    top += [_top_row(v, leaves, release, _alloc_at(results, ndata + j, k, v),
                     min(int(leaves[i]["size_bytes"]) for i in v["leaves"]), section)
            for j, v in enumerate(pool.get("log") or [])]
    pool_alloc = sum(alloc) if k is not None else pool.get("alloc_bytes", 0)
    rows = [Row(pool["name"], 0, [i for row in top for i in row.leaves], pool_alloc,
                pool.get("size_bytes", 0))]
    if not rel.has_extended_iostat(release) and results["series"].get("tops"):
        # vdev_get_stats before 0.7 (ZM, VD@zfs-0.6.5): an interior vdev's stats are its own
        # zios — one per block — and the root's the sum of its top-level children's; a disk
        # that is a top-level vdev is its own leaf.
        for i, row in enumerate(top):
            if row.children and row.logical is None:
                row.logical = i
        rows[0].sums = top
    for row in top:
        rows.append(row)
        rows.extend(row.children)
    for i in pool.get("cache", []):
        rows.append(Row(leaves[i]["name"], 2, [i], section="cache"))
    return rows


def _alloc_at(results: dict, t: int, k: int | None, vdev: dict) -> int:
    """Top-level vdev ``t``'s (data vdevs, then log vdevs) allocated bytes at the end of
    report interval ``k`` (None: at the end of the run, ``vdev["alloc_bytes"]``)."""
    if k is not None:
        tops = results["series"].get("tops") or []
        if t < len(tops) and "alloc_bytes" in tops[t]:
            return int(tops[t]["alloc_bytes"][k])
    return int(vdev.get("alloc_bytes", 0))


def overfull_vdevs(results: dict) -> list[tuple[str, int, int]]:
    """(name, most bytes allocated, size) of each data vdev whose allocation went past its
    size at some interval or at the end: the model has no ENOSPC (``alloc_free``), so a
    run whose writes outgrow a vdev places them as if there were room, which ZFS never does
    (``vs_alloc`` ≤ ``vs_space``)."""
    tops = (results.get("series") or {}).get("tops") or []
    out = []
    for t, v in enumerate((results.get("pool") or {}).get("vdevs") or []):
        size = int(v.get("size_bytes", 0))
        series = (tops[t].get("alloc_bytes") or []) if t < len(tops) else []
        seen = [int(v.get("alloc_bytes", 0)), *(int(b) for b in series)]
        if size and max(seen) > size:
            out.append((str(v["name"]), max(seen), size))
    return out


def _snapshot_at(results: dict, k: int | None) -> dict | None:
    """The status snapshot at report interval ``k`` (the last one for None)."""
    snaps = (results.get("status") or {}).get("snapshots") or []
    if not snaps:
        return None
    if k is None:
        return snaps[-1]
    t = results["series"]["t_ns"][k]
    return next((sn for sn in snaps if sn["t_ns"] == t), None)


def _spare_names(results: dict, k: int | None) -> list[str]:
    """The pool's hot spares (dRAID distributed spares too) at report interval ``k``."""
    snap = _snapshot_at(results, k)
    if snap is not None and "spares" in snap:
        return [sp["name"] for sp in snap.get("spares") or []]
    return list(results["pool"].get("spares") or [])


def _tree_top_rows(results: dict, release: str, tree: list[dict], alloc: list[int],
                   special_from: int | None = None) -> list[Row]:
    """Top-level rows (with their children) from a snapshot's tree, the data vdevs with the
    ``alloc`` of that interval: interior rows below the top (``replacing-N``, ``spare-N``)
    add up their disks and print no capacity. The tree's rows from ``special_from`` on are
    the special vdevs': their rows go in the ``special`` section."""
    pool, leaves = results["pool"], results["leaves"]
    by_name = {leaf["name"]: i for i, leaf in enumerate(leaves)}
    vdevs = {v["name"]: (i, v) for i, v in enumerate(pool["vdevs"])}
    tops: list[Row] = []
    stack: list[tuple[int, Row]] = []
    for n, r in enumerate(tree[1:], start=1):
        d, name = int(r["depth"]), r["name"]
        idx = by_name.get(name)
        section = "special" if special_from is not None and n >= int(special_from) else ""
        if d == 1:
            if name in vdevs:
                t, v = vdevs[name]
                row = Row(_vdev_display_name(name, release), 2, [], alloc[t], v.get("size_bytes", 0),
                          section, id_name=name)
                tops.append(row)
            else:  # a disk that is a top-level vdev, or the replacing/spare vdev standing for it
                row = Row(name if idx is not None else _vdev_display_name(name, release), 2, [], section=section,
                          id_name=name)
                tops.append(row)
            stack = [(1, row)]
        else:
            while stack and stack[-1][0] >= d:
                stack.pop()
            row = Row(name if idx is not None else _vdev_display_name(name, release), 2 * d, [], section=section,
                      id_name=name)
            tops[-1].children.append(row)
            stack.append((d, row))
        if idx is not None:
            for _, anc in stack:
                anc.leaves.append(idx)
    # A disk top-level vdev (or its replacing vdev) takes the capacity of the vdev it is.
    for row in tops:
        if row.alloc_bytes is None:
            t = next((t for t, v in enumerate(pool["vdevs"])
                      if v.get("type") == "disk" and set(v["leaves"]) & set(row.leaves)), None)
            if t is not None:
                row.alloc_bytes, row.size_bytes = alloc[t], pool["vdevs"][t].get("size_bytes", 0)
    return tops


def _namewidth(results: dict, rows: list[Row], release: str, verbose: bool, k: int | None = None) -> int:
    """``get_namewidth``: the pool's name alone without -v; with -v ``max_width`` over the
    vdev tree at two columns a level — the hot spares too, which -v does not print — and
    from 0.7 the pool's name. At least 10; at most 38 where the release caps it."""
    if not verbose:
        width = len(rows[0].name)
    else:
        ids = rel.sizes_names_with_ids(release)
        width = max((len(r.id_name if ids and r.id_name else r.name) + r.depth for r in rows[1:]), default=0)
        width = max([width] + [len(name) + 2 for name in _spare_names(results, k)])
        if rel.has_extended_iostat(release):
            width = max(width, len(rows[0].name))
    width = max(width, 10)
    cap = rel.name_column_max(release)
    return min(width, cap) if cap is not None else width


# ----------------------------------------------------------------------------- labels


def _top_labels(kind: str, release: str) -> list[tuple[str, int]]:
    trim, rebuild = rel.has_trim(release), rel.has_rebuild_columns(release)
    if kind == "default":
        return [("capacity", 2), ("operations", 2), ("bandwidth", 2)]
    if kind == "latency":
        labels = [("total_wait", 2), ("disk_wait", 2), ("syncq_wait", 2), ("asyncq_wait", 2),
                  ("scrub", 1)]
        labels += [("trim", 1)] if trim else []
        labels += [("rebuild", 1)] if rebuild else []
        return labels
    if kind == "queues":
        labels = [("syncq_read", 2), ("syncq_write", 2), ("asyncq_read", 2),
                  ("asyncq_write", 2), ("scrubq_read", 2)]
        labels += [("trimq_write", 2)] if trim else []
        labels += [("rebuildq_write", 2)] if rebuild else []
        return labels
    if kind == "latency_histo":
        if rel.at_least(release, "zfs-0.8"):
            return [("total_wait", 2), ("disk_wait", 2), ("syncq_wait", 2), ("asyncq_wait", 2)]
        return [("total_wait", 2), ("disk_wait", 2), ("sync_queue", 2), ("async_queue", 2)]
    if kind == "size_histo":
        labels = [("sync_read", 2), ("sync_write", 2), ("async_read", 2), ("async_write", 2),
                  ("scrub", 2)]
        labels += [("trim", 2)] if trim else []
        labels += [("rebuild", 2)] if rebuild else []
        return labels
    raise ValueError(kind)


def _bottom_labels(kind: str, release: str) -> list[str]:
    trim, rebuild = rel.has_trim(release), rel.has_rebuild_columns(release)
    extra = (1 if trim else 0) + (1 if rebuild else 0)
    if kind == "default":
        return ["alloc", "free", "read", "write", "read", "write"]
    if kind == "latency":
        return ["read", "write"] * 4 + ["wait"] * (1 + extra)
    if kind == "queues":
        return ["pend", "activ"] * (5 + extra)
    if kind == "latency_histo":
        return (["read", "write"] * 4 + ["scrub"] + (["trim"] if trim else [])
                + (["rebuild"] if rebuild else []))
    if kind == "size_histo":
        return ["ind", "agg"] * (5 + extra)
    raise ValueError(kind)


def _label_cells(labels: list[tuple[str, int]] | list[str]) -> str:
    out = []
    for item in labels:
        name, columns = (item, 1) if isinstance(item, str) else item
        columns = max(1, columns)
        rw = COLUMN_WIDTH * columns + 2 * (columns - 1)
        text_start = max(rw // columns - len(name) // columns, 0)
        spaces_to_end = max(rw - text_start - len(name), 0)
        out.append("  " + " " * text_start + name + " " * spaces_to_end)
    return "".join(out)


def _header(kinds: list[str], release: str, namewidth: int, title: str,
            name: str | None = None) -> list[str]:
    width = max(len(title), namewidth, len(name) if name else 0)
    first = (name.ljust(width) if name else " " * width)
    first += "".join(_label_cells(_top_labels(k, release)) for k in kinds)
    second = title.ljust(width) + "".join(_label_cells(_bottom_labels(k, release)) for k in kinds)
    return [first, second, _dashes(kinds, release, width)]


def _dashes(kinds: list[str], release: str, width: int) -> str:
    ncols = sum(len(_bottom_labels(k, release)) for k in kinds)
    return "-" * width + "  -----" * ncols


def _legacy_header(release: str, namewidth: int) -> list[str]:
    # Fixed strings of print_iostat_header (ZM@zfs-0.6.5, illumos usr/src/cmd/zpool).
    if release == "solaris-2009":
        second = "pool".ljust(namewidth) + "   used  avail   read  write   read  write"
    else:
        second = "pool".ljust(namewidth) + "  alloc   free   read  write   read  write"
    return [
        " " * namewidth + "     capacity     operations    bandwidth",
        second,
        "-" * namewidth + "  -----  -----  -----  -----  -----  -----",
    ]


def _stat(value: float | int) -> str:
    return "  " + zfs_nicenum(value).rjust(COLUMN_WIDTH)


def _time_stat(value_ns: int) -> str:
    return "  " + zfs_nicetime(value_ns).rjust(COLUMN_WIDTH)


# ----------------------------------------------------------------------------- series access


def _leaf_series(results: dict, leaf: int) -> dict:
    return results["series"]["leaves"][leaf]


def _sum(results: dict, leaves: list[int], key: str, k: int) -> int:
    total = 0
    for i in leaves:
        values = _leaf_series(results, i).get(key)
        if values:
            total += int(values[k])
    return total


def _sum_class(results: dict, leaves: list[int], group: str, cls: str, k: int) -> int:
    total = 0
    for i in leaves:
        values = _leaf_series(results, i).get(group, {}).get(cls)
        if values:
            total += int(values[k])
    return total


def whole_samples(results: dict) -> list[int]:
    """The samples an interval view prints: those that cover a whole report interval. A run
    that stops between two report times ends its series with a shorter sample; ``zpool
    iostat N`` sleeps a whole interval before each report and is stopped, not flushed, so
    it never prints one — nor does ``iostat -x N``."""
    series = results["series"]
    interval_ns = int(series["interval_ns"])
    t = series["t_ns"]
    return [k for k in range(len(t)) if int(t[k]) - (int(t[k - 1]) if k > 0 else 0) >= interval_ns]


def sample_span_ns(results: dict, k: int) -> int:
    """Length of the time sample ``k`` covers: the report interval, or less for a last
    sample that ends the run early (t_ns[k] - t_ns[k-1] < interval_ns)."""
    series = results["series"]
    interval_ns = int(series["interval_ns"])
    t = series["t_ns"]  # indexed, not copied: called once per sample
    prev = int(t[k - 1]) if k > 0 else 0
    span = int(t[k]) - prev
    return min(interval_ns, span) if span > 0 else interval_ns


def _per_s(count: int, interval_ns: int) -> int:
    return count * NS_PER_S // interval_ns if interval_ns > 0 else count


def _default_cells(results: dict, row: Row, k: int, interval_ns: int) -> str:
    if row.alloc_bytes is None or not row.size_bytes:
        cells = "  " + "-".rjust(COLUMN_WIDTH) + "  " + "-".rjust(COLUMN_WIDTH)
    else:
        cells = _stat(row.alloc_bytes) + _stat(row.size_bytes - row.alloc_bytes)
    for key in ("read_ops", "write_ops", "read_bytes", "write_bytes"):
        cells += _stat(_per_s(_row_sum(results, row, key, k), interval_ns))
    return cells


def _row_sum(results: dict, row: Row, key: str, k: int) -> int:
    """A default column's count for a row: its leaves' — or, before 0.7, the top-level vdev's
    own logical I/O and the pool's sum of its top-level rows."""
    if row.sums is not None:
        return sum(_row_sum(results, r, key, k) for r in row.sums)
    if row.logical is not None:
        return int(results["series"]["tops"][row.logical][key][k])
    return _sum(results, row.leaves, key, k)


def _mean(total_ns: int, ops: int) -> int:
    return total_ns // ops if ops > 0 else 0


def _latency_cells(results: dict, row: Row, k: int, release: str) -> str:
    # zpool averages each interval's histogram at its bucket midpoints
    # (single_histo_average): the core sums those midpoints per command (`*_mid_ns_sum`).
    # Results without them (older documents) give the exact means instead.
    first = _leaf_series(results, row.leaves[0]) if row.leaves else {}
    mid = "_mid" if "read_total_wait_mid_ns_sum" in first else ""
    s = lambda key: _sum(results, row.leaves, key.replace("_ns_sum", f"{mid}_ns_sum"), k)  # noqa: E731
    c = lambda cls: _sum_class(results, row.leaves, "class_ops", cls, k)  # noqa: E731
    read_ops, write_ops = _sum(results, row.leaves, "read_ops", k), _sum(results, row.leaves, "write_ops", k)
    values = [
        _mean(s("read_total_wait_ns_sum"), read_ops),
        _mean(s("write_total_wait_ns_sum"), write_ops),
        _mean(s("read_disk_wait_ns_sum"), read_ops),
        _mean(s("write_disk_wait_ns_sum"), write_ops),
        _mean(s("syncq_read_wait_ns_sum"), c("sync_read")),
        _mean(s("syncq_write_wait_ns_sum"), c("sync_write")),
        _mean(s("asyncq_read_wait_ns_sum"), c("async_read")),
        _mean(s("asyncq_write_wait_ns_sum"), c("async_write")),
        _mean(s("scrub_wait_ns_sum"), c("scrub")),
    ]
    if rel.has_trim(release):
        values.append(_mean(s("trim_wait_ns_sum"), c("trim")))
    if rel.has_rebuild_columns(release):
        values.append(_mean(s("rebuild_wait_ns_sum"), c(REBUILD)))
    else:
        # Before 2.2 the rebuild's reads wait as scrubs, its writes as async writes.
        r_ops, r_wait, w_ops, w_wait = _rebuild_waits(results, row.leaves, k, mid)
        values[7] = _mean(s("asyncq_write_wait_ns_sum") + w_wait, c("async_write") + w_ops)
        values[8] = _mean(s("scrub_wait_ns_sum") + r_wait, c("scrub") + r_ops)
    return "".join(_time_stat(v) for v in values)


def _rebuild_split(results: dict, leaf: int, k: int) -> tuple[int, int]:
    """(reads, writes) among a leaf's rebuild commands of interval ``k``. The results count
    them together; the reads are the leaf's read commands that no read class took."""
    s = _leaf_series(results, leaf)
    by_class = s.get("class_ops", {})
    n = int(by_class[REBUILD][k]) if by_class.get(REBUILD) else 0
    if n == 0:
        return 0, 0
    others = sum(int(by_class[c][k]) for c in READ_CLASSES if by_class.get(c))
    reads = min(max(int(s["read_ops"][k]) - others, 0), n)
    return reads, n - reads


def _rebuild_waits(results: dict, leaves: list[int], k: int, mid: str) -> tuple[int, int, int, int]:
    """The rebuild's reads and writes of interval ``k`` and their queue-wait sums. A disk
    both read and written by one rebuild (a dRAID's, whose distributed spare has shares on
    every disk) has a single wait sum in the results: it is shared in proportion to the
    commands."""
    r_ops = r_wait = w_ops = w_wait = 0
    for i in leaves:
        reads, writes = _rebuild_split(results, i, k)
        if reads + writes == 0:
            continue
        wait = int(_leaf_series(results, i)[f"rebuild_wait{mid}_ns_sum"][k])
        part = wait * reads // (reads + writes)
        r_ops, r_wait, w_ops, w_wait = r_ops + reads, r_wait + part, w_ops + writes, w_wait + wait - part
    return r_ops, r_wait, w_ops, w_wait


def _queue_classes(release: str) -> list[str]:
    classes = ["sync_read", "sync_write", "async_read", "async_write", "scrub"]
    classes += ["trim"] if rel.has_trim(release) else []
    classes += ["rebuild"] if rel.has_rebuild_columns(release) else []
    return classes


def _queue_cells(results: dict, row: Row, k: int, release: str) -> str:
    cells = ""
    for cls in _queue_classes(release):
        cells += _stat(_sum_class(results, row.leaves, "queued", cls, k))
        cells += _stat(_sum_class(results, row.leaves, "active", cls, k))
    return cells


# ----------------------------------------------------------------------------- zpool iostat


def unsupported_note(release: str, flag: str) -> str | None:
    """The one-line note printed instead of a view the release's zpool did not have."""
    if flag in ("-l", "-q", "-w", "-r") and not rel.has_extended_iostat(release):
        return (f"note: zpool in {release} has no `zpool iostat {flag}` view "
                "(added in ZFS on Linux 0.7.0); showing the default view only")
    return None


def zpool_iostat(results: dict, release: str, flags: tuple[str, ...] = (),
                 verbose: bool = True, samples: list[int] | None = None) -> str:
    """``zpool iostat [-v] [-l] [-q] <interval>``: one block per report interval.

    ``flags`` is a subset of ``("-l", "-q")``; a release before 0.7 gets the default
    columns only (the caller prints :func:`unsupported_note`). ``samples`` None: every
    whole interval (:func:`whole_samples`); a short last sample asked for by index is
    scaled by its own length.
    """
    legacy = not rel.has_extended_iostat(release)
    kinds = ["default"]
    if not legacy:
        kinds += [kind for flag, kind in (("-l", "latency"), ("-q", "queues")) if flag in flags]
    if samples is None:
        samples = whole_samples(results)
    lines: list[str] = []
    for n, k in enumerate(samples):
        interval_ns = sample_span_ns(results, k)
        # The tree and the name column as at this interval (zpool iostat re-reads the
        # config, and its width, every interval).
        rows = pool_rows(results, release, k)
        if not verbose:
            rows = rows[:1]
        namewidth = _namewidth(results, rows, release, verbose, k)
        if n == 0 or verbose:
            header = (_legacy_header(release, namewidth) if legacy
                      else _header(kinds, release, namewidth, "pool"))
            lines.extend(header)
        section = ""
        for row in rows:
            if row.section != section:
                section = row.section
                lines.append(section.ljust(namewidth) + ("  " + "-".rjust(COLUMN_WIDTH)) * (
                    6 if legacy else sum(len(_bottom_labels(kd, release)) for kd in kinds)))
            line = _row_name(row, namewidth)
            line += _default_cells(results, row, k, interval_ns)
            if "latency" in kinds:
                line += _latency_cells(results, row, k, release)
            if "queues" in kinds:
                line += _queue_cells(results, row, k, release)
            lines.append(line)
        if verbose:
            lines.append(_legacy_header(release, namewidth)[2] if legacy
                         else _dashes(kinds, release, namewidth))
            if legacy:
                lines.append("")
    return "\n".join(lines) + "\n" if lines else ""


def _row_name(row: Row, namewidth: int) -> str:
    text = " " * row.depth + row.name
    return text if len(text) > namewidth else text.ljust(namewidth)


def _histo_totals(results: dict, leaves: list[int], cls: str, key: str, buckets: int,
                  op: str | None = None) -> list[int]:
    """A class's whole-run histogram summed over ``leaves``; for the rebuild class, ``op``
    ("read" or "write") keeps that type's part of it (None: both)."""
    total = [0] * buckets
    for i in leaves:
        data = results["leaves"][i].get("classes", {}).get(cls, {}).get(key)
        if not data:
            continue
        data = [int(x) for x in data[:buckets]]
        if op is not None:
            data = _split_histo(data, *_rebuild_split_run(results, i))[op == "write"]
        for j, x in enumerate(data):
            total[j] += x
    return total


def _rebuild_split_run(results: dict, leaf: int) -> tuple[int, int]:
    """(reads, writes) among a leaf's rebuild commands over the whole run."""
    reads = writes = 0
    for k in range(len(results["series"]["t_ns"])):
        r, w = _rebuild_split(results, leaf, k)
        reads, writes = reads + r, writes + w
    return reads, writes


def _split_histo(h: list[int], reads: int, writes: int) -> tuple[list[int], list[int]]:
    """A rebuild histogram cut into its reads and writes. A leaf the rebuild only read or
    only wrote (every mirror's) is exact; one it did both on (a dRAID's) has one histogram
    in the results, so each bucket is shared in proportion (largest remainders, so that the
    read part adds up to ``reads``)."""
    if writes == 0 or reads == 0:
        zero = [0] * len(h)
        return (h, zero) if writes == 0 else (zero, h)
    n = sum(h)
    if n == 0:
        return h, h
    want = n * reads // (reads + writes)
    part = [x * want // n for x in h]
    by_remainder = sorted(range(len(h)), key=lambda j: (-(h[j] * want % n), j))
    for j in by_remainder[:want - sum(part)]:
        part[j] += 1
    return part, [x - p for x, p in zip(h, part, strict=True)]


def _add(*arrays: list[int]) -> list[int]:
    return [sum(col) for col in zip(*arrays, strict=True)]


def _latency_columns(results: dict, leaves: list[int], release: str) -> list[list[int]]:
    h = lambda cls, key, op=None: _histo_totals(results, leaves, cls, key, LATENCY_BUCKETS, op)  # noqa: E731
    # The total and disk histograms go by zio type, the rebuild's included, in every release.
    cols = [
        _add(*[h(c, "total_wait_log2") for c in READ_CLASSES], h(REBUILD, "total_wait_log2", "read")),
        _add(*[h(c, "total_wait_log2") for c in WRITE_CLASSES], h(REBUILD, "total_wait_log2", "write")),
        _add(*[h(c, "disk_wait_log2") for c in READ_CLASSES], h(REBUILD, "disk_wait_log2", "read")),
        _add(*[h(c, "disk_wait_log2") for c in WRITE_CLASSES], h(REBUILD, "disk_wait_log2", "write")),
        h("sync_read", "queue_wait_log2"),
        h("sync_write", "queue_wait_log2"),
        h("async_read", "queue_wait_log2"),
        h("async_write", "queue_wait_log2"),
        h("scrub", "queue_wait_log2"),
    ]
    if rel.has_trim(release):
        cols.append(h("trim", "queue_wait_log2"))
    if rel.has_rebuild_columns(release):
        cols.append(h(REBUILD, "queue_wait_log2"))
    else:
        cols[7] = _add(cols[7], h(REBUILD, "queue_wait_log2", "write"))
        cols[8] = _add(cols[8], h(REBUILD, "queue_wait_log2", "read"))
    return cols


def _size_columns(results: dict, leaves: list[int], release: str) -> list[list[int]]:
    cols = []
    for cls in _queue_classes(release):
        for key in ("size_ind_log2", "size_agg_log2"):
            col = _histo_totals(results, leaves, cls, key, SIZE_BUCKETS)
            if cls in ("async_write", "scrub") and not rel.has_rebuild_columns(release):
                op = "write" if cls == "async_write" else "read"
                col = _add(col, _histo_totals(results, leaves, REBUILD, key, SIZE_BUCKETS, op))
            cols.append(col)
    return cols


def _histogram_blocks(results: dict, release: str, verbose: bool, kind: str) -> str:
    rows = pool_rows(results, release)
    if not verbose:
        rows = rows[:1]
    title = "latency" if kind == "latency_histo" else "req_size"
    cb_namewidth = _namewidth(results, rows, release, verbose)
    namewidth = max(cb_namewidth, len(title))
    ncols = len(_bottom_labels(kind, release))
    lines: list[str] = []
    section = ""
    for row in rows:
        if row.section != section:  # a class: print_vdev_stats prints "\n" alone
            section = row.section
            lines.append("")
        lines.append("")
        lines.extend(_header([kind], release, cb_namewidth, title, row.name))
        if kind == "latency_histo":
            cols = _latency_columns(results, row.leaves, release)
            labels = [(j, LATENCY_BUCKET_LABELS[j]) for j in range(LATENCY_BUCKETS)]
        else:
            cols = _size_columns(results, row.leaves, release)
            labels = [(j, zfs_nicenum(1 << j)) for j in range(SIZE_FIRST_ROW, SIZE_BUCKETS)]
        for j, label in labels:
            lines.append(label.ljust(namewidth) + "".join(_stat(col[j]) for col in cols))
        lines.append("-" * (namewidth + (COLUMN_WIDTH + 2) * ncols))
    return "\n".join(lines) + "\n"


def zpool_iostat_w(results: dict, release: str, verbose: bool = False) -> str:
    """``zpool iostat -w [-v]``: whole-run latency histograms (pool, then each vdev)."""
    if not rel.has_extended_iostat(release):
        return unsupported_note(release, "-w") + "\n"
    return _histogram_blocks(results, release, verbose, "latency_histo")


def zpool_iostat_r(results: dict, release: str, verbose: bool = False) -> str:
    """``zpool iostat -r [-v]``: whole-run request-size histograms, ind/agg per class."""
    if not rel.has_extended_iostat(release):
        return unsupported_note(release, "-r") + "\n"
    return _histogram_blocks(results, release, verbose, "size_histo")


# ----------------------------------------------------------------------------- iostat -x


@dataclass
class DiskSample:
    name: str
    r_s: float
    w_s: float
    rkb_s: float
    wkb_s: float
    r_await_ms: float
    w_await_ms: float
    queue_len: float  # mean commands outstanding at the device (aqu-sz, actv, qlen)
    util_pct: float


def _disk_samples(results: dict, k: int) -> list[DiskSample]:
    interval_ns = sample_span_ns(results, k)
    secs = interval_ns / NS_PER_S
    out = []
    for i, leaf in enumerate(results["leaves"]):
        s = _leaf_series(results, i)

        def val(key: str, s: dict = s) -> float:
            return float(s[key][k]) if s.get(key) else 0.0

        r, w = val("read_ops"), val("write_ops")
        out.append(DiskSample(
            name=leaf["name"],
            r_s=r / secs, w_s=w / secs,
            rkb_s=val("read_bytes") / 1024 / secs, wkb_s=val("write_bytes") / 1024 / secs,
            r_await_ms=(val("read_disk_wait_ns_sum") / r / 1e6) if r else 0.0,
            w_await_ms=(val("write_disk_wait_ns_sum") / w / 1e6) if w else 0.0,
            queue_len=val("inflight_ns_integral") / interval_ns,
            util_pct=min(100.0, 100.0 * val("busy_ns") / interval_ns),
        ))
    return out


def _all_ms(d: DiskSample) -> float:
    """The mean time of the interval's commands, reads and writes together (FreeBSD ms/t
    and svc_t, illumos asvc_t)."""
    ops = d.r_s + d.w_s
    return (d.r_await_ms * d.r_s + d.w_await_ms * d.w_s) / ops if ops else 0.0


def _linux_block(disks: list[DiskSample]) -> list[str]:
    # sysstat >= 12 `iostat -dx`; ZFS aggregates before the block layer, so the
    # block-layer merge columns are 0.
    lines = ["Device            r/s     w/s     rkB/s     wkB/s   rrqm/s   wrqm/s  %rrqm  %wrqm"
             " r_await w_await aqu-sz rareq-sz wareq-sz  svctm  %util"]
    for d in disks:
        ops = d.r_s + d.w_s
        rareq = d.rkb_s / d.r_s if d.r_s else 0.0
        wareq = d.wkb_s / d.w_s if d.w_s else 0.0
        svctm = (d.util_pct * 10.0 / ops) if ops else 0.0  # ms per op while busy
        # sysstat prints every field as " %*.2f": a value wider than its column shifts the
        # row but stays a separate field (1341440.00 kB/s must not run into rkB/s).
        lines.append(f"{d.name:<13}{d.r_s:8.2f} {d.w_s:7.2f} {d.rkb_s:9.2f} {d.wkb_s:9.2f}"
                     f" {0.0:8.2f} {0.0:8.2f} {0.0:6.2f} {0.0:6.2f} {d.r_await_ms:7.2f}"
                     f" {d.w_await_ms:7.2f} {d.queue_len:6.2f} {rareq:8.2f} {wareq:8.2f}"
                     f" {svctm:6.2f} {d.util_pct:6.2f}")
    return lines


def _freebsd_block(disks: list[DiskSample]) -> list[str]:
    lines = ["                        extended device statistics  ",
             f"{'device':<8} {'r/s':>7} {'w/s':>7} {'kr/s':>8} {'kw/s':>8} {'ms/r':>5} "
             f"{'ms/w':>5} {'ms/o':>5} {'ms/t':>5} {'qlen':>4} {'%b':>3} "]
    for d in disks:
        lines.append(f"{d.name[:8]:<8} {d.r_s:7.0f} {d.w_s:7.0f} {d.rkb_s:8.1f} {d.wkb_s:8.1f} "
                     f"{d.r_await_ms:5.0f} {d.w_await_ms:5.0f} {0.0:5.0f} {_all_ms(d):5.0f} "
                     f"{d.queue_len:4.0f} {d.util_pct:3.0f} ")
    return lines


def _freebsd_old_block(disks: list[DiskSample]) -> list[str]:
    # FreeBSD before 12 (`iostat -x` of 9–11): one service time, svc_t, the mean duration of
    # the interval's transactions (devstat DSM_MS_PER_TRANSACTION); 12 split it into ms/r,
    # ms/w, ms/o and ms/t. Each field is a space then its width ("%-8.8s %5.1f %5.1f %7.1f
    # %7.1f %4d %5.1f %3.0f "), so a wide value shifts the row but stays its own field.
    lines = ["                        extended device statistics  ",
             "device     r/s   w/s    kr/s    kw/s qlen svc_t  %b  "]
    for d in disks:
        lines.append(f"{d.name[:8]:<8} {d.r_s:5.1f} {d.w_s:5.1f} {d.rkb_s:7.1f} {d.wkb_s:7.1f} "
                     f"{round(d.queue_len):4d} {_all_ms(d):5.1f} {d.util_pct:3.0f} ")
    return lines


def _illumos_block(disks: list[DiskSample]) -> list[str]:
    lines = ["                    extended device statistics              ",
             "    r/s    w/s   kr/s   kw/s wait actv wsvc_t asvc_t  %w  %b device"]
    for d in disks:
        asvc = _all_ms(d)
        # ZFS holds its queue above sd(4D), so the driver wait queue is empty. Each field is
        # a space then its width (" %6.1f"), so a value wider than its column (kw/s of
        # 10000.0 and up) shifts the row but stays a separate field, as iostat's does.
        lines.append(f" {d.r_s:6.1f} {d.w_s:6.1f} {d.rkb_s:6.1f} {d.wkb_s:6.1f} {0.0:4.1f}"
                     f" {d.queue_len:4.1f} {0.0:6.1f} {asvc:6.1f} {0.0:3.0f} {d.util_pct:3.0f}"
                     f" {d.name}")
    return lines


def os_iostat_x(results: dict, platform: str = "linux", samples: list[int] | None = None) -> str:
    """Per-disk ``iostat -x`` for ``platform`` in linux|freebsd|illumos, one block per interval.

    linux: sysstat ``iostat -dx``; freebsd: ``iostat -x`` of FreeBSD 12 and later;
    freebsd-old: ``iostat -x`` before 12 (``qlen svc_t %b``); illumos: ``iostat -xn``.
    Service times are the device (disk_wait) times; queue length is the mean number of
    commands outstanding at the device.
    """
    block = {"linux": _linux_block, "freebsd": _freebsd_block, "freebsd-old": _freebsd_old_block,
             "illumos": _illumos_block}.get(platform)
    if block is None:
        raise ValueError(f"platform: unknown platform {platform!r}; expected linux, freebsd, "
                         "freebsd-old or illumos")
    if samples is None:
        samples = whole_samples(results)
    lines: list[str] = []
    for k in samples:
        lines.extend(block(_disk_samples(results, k)))
        lines.append("")
    return "\n".join(lines)

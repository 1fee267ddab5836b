"""``zpool status -j`` (OpenZFS 2.3+) from a status snapshot: the ``status-json`` views.

Theory of operation
-------------------
OpenZFS 2.3.0 added JSON output to ``zpool status`` (commit 959e963, output_version 0.1).
``status_callback_json`` in cmd/zpool/zpool_main.c (the same in every 2.3.x tag read,
zfs-2.3.0 … zfs-2.3.5) builds an nvlist and ``nvlist_print_json``
(lib/libnvpair/libnvpair_json.c) prints it on one line with no white space, then a
newline. This module builds the same document from one snapshot of the results
(docs/internals.md, "Scan results … and `zpool status` snapshots") — the moment the
``status`` view prints as text — so the JSON and the text always agree:

* ``{"output_version": {"command": "zpool status", "vers_major": 0, "vers_minor": 1},
  "pools": {POOL: …}, "time": …}`` — ``zpool_json_schema(0, 1)``; ``time`` because ziosim
  prints ``zpool status -j -T u``: without a clock the JSON cannot give a scan's rates or
  ETA (``print_scan_status`` divides by ``time(NULL) - pass_start``), and ``ziosim import``
  reads them back from it.
* the pool: ``fill_pool_info`` (name, state, ``spa_version`` "5000", ``zpl_version`` "5"),
  ``print_status_reason``'s ``status``/``action`` text (the text view's words, with their
  ``\\n\\t`` continuations), ``msgid``/``moreinfo``, ``scan_stats`` (``scan_status_nvlist``:
  the pool_scan_stat_t fields, then ``rebuild_stats`` per top-level vdev), ``vdevs`` (the
  root vdev, children nested under ``vdevs``: ``vdev_stats_nvlist``, which skips the
  children with an allocation bias), ``special`` (``class_vdevs_nvlist(…, "special", item)``,
  after ``dedup``, which ziosim lacks: each special vdev as a top-level vdev keyed by its
  name, the snapshot tree's rows from ``special_from`` on), ``logs``
  (``class_vdevs_nvlist(…, "logs", item)``: each log vdev as ``vdev_stats_nvlist`` prints a
  top-level vdev, keyed by its name — ``mirror-1`` or a lone disk's), ``l2cache``
  (``l2cache_nvlist``), ``spares`` (``spares_nvlist``) and ``error_count``
  (``errors_nvlist``), in that order. A class key
  is left out when the pool has no such device (``nvlist_empty``).
* a vdev: ``fill_vdev_info`` (``name``, ``vdev_type``, ``class``, ``state`` from
  ``vdev_state_str`` — ``CANT_OPEN`` where the text says ``UNAVAIL``; ``class`` is
  ``log`` for a log vdev and the disks of a log mirror, whose parent carries the ``log``
  allocation bias that ``vdev_config_generate`` adds to every log vdev, ``special`` for a
  special vdev and its children — only a top-level vdev has a bias (``vdev_alloc``: ``if
  (top_level && alloc_bias != VDEV_BIAS_NONE)``, module/zfs/vdev.c@zfs-2.3.0), so
  ``fill_vdev_info`` gives a vdev its own bias or its parent's, and ``normal`` to a disk
  deeper down (under a ``replacing-N`` of a special mirror) — ``l2cache``
  for a cache device, and ``spare`` for a hot spare, in the tree under ``spare-N`` as in
  the ``spares`` section: ``ZPOOL_CONFIG_IS_SPARE``), then
  ``alloc_space``/``total_space`` (root and top-level vdevs) and ``phys_space`` (disks),
  each only when non-zero, the three error counters, ``scan_processed`` (non-zero only),
  ``resilver_deferred``, ``slow_ios`` (disks only), ``aux`` (``OPEN_FAILED`` for the
  text's "cannot open", ``NO_REPLICAS`` for "insufficient replicas").

Numbers (``nice_num_str_nvlist``): by default strings — bytes as ``zfs_nicebytes``, counts
as ``zfs_nicenum``, durations as ``ZFS_NICENUM_TIME`` (``ns us ms s``; a thousand seconds
or more prints as ``N?``, as zpool does), dates as ``format_timestamp`` (strftime of
``nl_langinfo(_DATE_FMT)``: ``Sat Oct 14 00:00:01 UTC 2023``, glibc's C locale; ziosim's
clock is UTC), ``-`` for a zero date; ``pass_start``, ``scrub_spent_paused`` and
``resilver_deferred`` are always plain integers in a string. With ``--json-int``
(``status-json-int``) every one of them is a JSON integer (dates as seconds since the
epoch, durations in ns), and ``time`` too. Key order is insertion order, as the nvlist's:
a key added twice (``state`` of a rebuild entry) keeps its first place only because it was
the last one added.

The space figures are the run's end (``alloc_bytes`` of the pool and of each top-level
vdev: the scenario's contents plus what the run's writes hold). A log vdev's
``alloc_space`` is the space its ZIL blocks hold then (left out when 0, as
``vdev_stats_nvlist`` leaves out a zero); its ``total_space`` is its smallest disk. Not
modelled, so left out — exactly as ``fill_pool_info``/``fill_vdev_info`` leave them out when
the configuration lacks them or they are zero: ``pool_guid``, ``txg``, vdev ``guid``,
``path``, ``phys_path``, ``devid``, and the space figures ziosim does not keep
(``def_space``, ``rep_dev_size``). A disk's ``scan_processed`` (its repair bytes in the last
scan, kept after it ends) and ``resilver_deferred`` come from the snapshot's row, as
``vdev_stats_nvlist`` prints them whatever the text's notes show (2.2+ prints no scan note
for a disk that is not healthy). The 2.x ``(resilvering)`` of a sequential rebuild comes
from ``vs_rebuild_processed``, which ``zpool status -j`` does not print.
"""

from __future__ import annotations

import re

from .nicenum import zfs_nicebytes, zfs_nicenum, zfs_nicetime
from .releases import has_json_status
from .status import _REASONS, _state_word, _status_reason, _strftime_utc, config_tree

__all__ = ["zpool_status_json", "status_json", "json_command"]

_SCAN_FUNC = {"none": "NONE", "scrub": "SCRUB", "resilver": "RESILVER"}          # pool_scan_func_str
_SCAN_STATE = {"none": "NONE", "scanning": "SCANNING", "finished": "FINISHED",   # pool_scan_state_str
               "canceled": "CANCELED"}
_REBUILD_STATE = {"active": "ACTIVE", "canceled": "CANCELED", "complete": "COMPLETE"}  # vdev_rebuild_state_str
# vdev_state_str (ZM@zfs-2.3.0): the vdev_state_t names, not zpool_state_to_name's words.
_VDEV_STATE = {"ONLINE": "ONLINE", "DEGRADED": "DEGRADED", "UNAVAIL": "CANT_OPEN", "OFFLINE": "OFFLINE",
               "FAULTED": "FAULTED", "REMOVED": "REMOVED"}
# vdev_aux_str for the notes print_status_config prints from vs_aux.
_AUX = {"cannot open": "OPEN_FAILED", "insufficient replicas": "NO_REPLICAS"}
_INTERIOR = re.compile(r"(?P<t>mirror|raidz|replacing|spare|draid)")


def json_command(pool: str, as_int: bool) -> str:
    """The command line a view's section is headed by."""
    return f"zpool status -j{' --json-int' if as_int else ''} -T u {pool}"


# ----------------------------------------------------------------------------- printing


def _string(s: str) -> str:
    """``nvlist_print_json_string``: the escapes it writes, every other control character
    and BMP character as ``\\u%04x``, characters beyond the BMP dropped."""
    esc = {'"': '\\"', "\n": "\\n", "\r": "\\r", "\\": "\\\\", "\f": "\\f", "\t": "\\t", "\b": "\\b"}
    out = []
    for ch in s:
        c = ord(ch)
        if ch in esc:
            out.append(esc[ch])
        elif c <= 0x1F or 0x7F < c <= 0xFFFF:
            out.append(f"\\u{c:04x}")
        elif c <= 0x7F:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _dump(v: object) -> str:
    """``nvlist_print_json``: no white space, keys in insertion order."""
    if isinstance(v, dict):
        return "{" + ",".join(f"{_string(k)}:{_dump(x)}" for k, x in v.items()) + "}"
    if isinstance(v, bool):
        raise TypeError("no boolean in zpool status -j")
    if isinstance(v, int):
        return str(v)
    return _string(str(v))


class _Nice:
    """``nice_num_str_nvlist`` for one output: strings (default) or integers (--json-int)."""

    def __init__(self, as_int: bool) -> None:
        self.as_int = as_int

    def bytes(self, n: int) -> object:
        return int(n) if self.as_int else zfs_nicebytes(int(n))

    def count(self, n: int) -> object:
        return int(n) if self.as_int else zfs_nicenum(int(n))

    def literal(self, n: int) -> object:
        return int(n) if self.as_int else str(int(n))

    def time_ns(self, ns: int) -> object:
        return int(ns) if self.as_int else zfs_nicetime(int(ns))

    def stamp(self, t: int) -> object:
        """``format_timestamp`` (lib/libspl/timestamp.c): ``-`` for 0."""
        if self.as_int:
            return int(t)
        if not t:
            return "-"
        head, year = _strftime_utc(int(t)).rsplit(" ", 1)
        return f"{head} UTC {year}"


# ----------------------------------------------------------------------------- pieces


def _reason(snapshot: dict, release: str) -> dict:
    """``print_status_reason`` then the msgid lines of ``status_callback_json``."""
    reason = _status_reason(snapshot, release)
    if reason is None:
        return {}
    text, msgid = _REASONS[reason]
    status, action = re.fullmatch(r"status: (.*)action: (.*)", text, re.S).groups()  # type: ignore[union-attr]
    out = {"status": status, "action": action}
    if msgid:
        out.update(msgid=msgid, moreinfo=f"https://openzfs.github.io/openzfs-docs/msg/{msgid}")
    return out


# A dRAID distributed spare, `draid<parity>-<vdev>-<id>` (VDEV_TYPE_DRAID_SPARE "dspare").
_DSPARE = re.compile(r"draid[123]-\d+-\d+$")


def _vdev_type(name: str, interior: bool, depth: int) -> str:
    if depth == 0:
        return "root"
    if not interior:
        return "dspare" if _DSPARE.match(name) else "disk"
    m = _INTERIOR.match(name)
    return m.group("t") if m else "mirror"


def _scan_stats(snapshot: dict, nice: _Nice, tops: dict[str, str], classes: dict[str, str]) -> dict:
    """``scan_status_nvlist``: pool_scan_stat_t (absent for a pool never scanned, as
    ``spa_scan_get_stats`` then fails) and ``rebuild_stats``."""
    out: dict = {}
    ps = snapshot.get("scan") or {}
    if ps.get("func", "none") != "none":
        g = lambda k: int(ps.get(k, 0))  # noqa: E731
        out.update({
            "function": _SCAN_FUNC[ps["func"]],
            "state": _SCAN_STATE[ps["state"]],
            "start_time": nice.stamp(g("start_s")),
            "end_time": nice.stamp(g("end_s")),
            "to_examine": nice.bytes(g("to_examine")),
            "examined": nice.bytes(g("examined")),
            "skipped": nice.bytes(g("skipped")),
            "processed": nice.bytes(g("processed")),
            "errors": nice.count(g("errors")),
            "bytes_per_scan": nice.bytes(g("pass_exam")),
            "pass_start": nice.literal(g("pass_start_s")),
            "scrub_pause": nice.stamp(g("pass_scrub_pause_s")),
            "scrub_spent_paused": nice.literal(g("pass_scrub_spent_paused_s")),
            "issued_bytes_per_scan": nice.bytes(g("pass_issued")),
            "issued": nice.bytes(g("issued")),
        })
    rebuild = {}
    for vrs in snapshot.get("rebuild") or []:
        if vrs.get("state") not in _REBUILD_STATE:
            continue
        g = lambda k: int(vrs.get(k, 0))  # noqa: E731
        end, start = g("end_s"), g("start_s")
        scan_ms = int(vrs["scan_time_ms"]) if "scan_time_ms" in vrs else (
            (end - start) * 1000 if end else g("pass_time_ms"))
        name = vrs["vdev"]
        rebuild[name] = {
            "name": name, "vdev_type": tops.get(name, "mirror"), "class": classes.get(name, "normal"),
            "state": _REBUILD_STATE[vrs["state"]],
            "start_time": nice.stamp(start), "end_time": nice.stamp(end),
            "scan_time": nice.time_ns(scan_ms * 1_000_000),
            "scanned": nice.bytes(g("scanned")), "issued": nice.bytes(g("issued")),
            "rebuilt": nice.bytes(g("rebuilt")), "to_scan": nice.bytes(g("estimate")),
            "errors": nice.count(g("errors")),
            "pass_time": nice.time_ns(g("pass_time_ms") * 1_000_000),
            "pass_scanned": nice.bytes(g("pass_scanned")), "pass_issued": nice.bytes(g("pass_issued")),
            "pass_skipped": nice.bytes(g("pass_skipped")),
        }
    if rebuild:
        out["rebuild_stats"] = rebuild
    return out


def _vdev(row: dict, depth: int, interior: bool, nice: _Nice, extra: dict) -> dict:
    """``vdev_stats_nvlist`` for one non-spare vdev, without its children."""
    note = row.get("note") or ""
    d: dict = {"name": row["name"], "vdev_type": _vdev_type(row["name"], interior, depth),
               "class": extra.get("class", "normal"), "state": _VDEV_STATE.get(row["state"], row["state"])}
    for key in ("alloc_space", "total_space", "phys_space"):
        if extra.get(key):
            d[key] = nice.bytes(extra[key])
    d["read_errors"] = nice.count(int(row.get("read", 0)))
    d["write_errors"] = nice.count(int(row.get("write", 0)))
    d["checksum_errors"] = nice.count(int(row.get("cksum", 0)))
    if extra.get("scan_processed"):
        d["scan_processed"] = nice.bytes(extra["scan_processed"])
    if row.get("resilver_deferred"):
        d["resilver_deferred"] = nice.literal(1)
    if not interior:
        d["slow_ios"] = nice.count(0)
    aux = next((a for text, a in _AUX.items() if note.startswith(text)), None)
    if aux:
        d["aux"] = aux
    return d


def _class_items(pool: dict, leaves: list[dict], nice: _Nice, snapshot: dict | None = None) -> dict:
    """``class_vdevs_nvlist(…, VDEV_ALLOC_CLASS_LOGS)`` then ``l2cache_nvlist`` (ZM@zfs-2.3.0,
    ``status_callback_json``): no errors; each device ONLINE unless the snapshot's
    ``logs``/``cache`` rows (a failed or offline log or cache device) say otherwise."""
    given = {r["name"]: r for r in ((snapshot or {}).get("logs") or []) + ((snapshot or {}).get("cache") or [])}

    def st(name: str) -> dict:
        return given.get(name) or {"name": name, "state": "ONLINE"}

    out: dict = {}
    logs: dict = {}
    for v in pool.get("log") or []:
        idx = v["leaves"]
        total = min(int(leaves[i].get("size_bytes", 0)) for i in idx)
        alloc = int(v.get("alloc_bytes", 0))
        if v.get("type") == "disk" and len(idx) == 1:
            name = leaves[idx[0]]["name"]
            logs[name] = _vdev(st(name), 2, False, nice,
                               {"class": "log", "alloc_space": alloc, "total_space": total,
                                "phys_space": int(leaves[idx[0]].get("size_bytes", 0))})
            continue
        d = _vdev(st(v["name"]), 2, True, nice, {"class": "log", "alloc_space": alloc, "total_space": total})
        d["vdevs"] = {leaves[i]["name"]: _vdev(st(leaves[i]["name"]), 4, False, nice,
                                               {"class": "log", "phys_space": int(leaves[i].get("size_bytes", 0))})
                      for i in idx}
        logs[v["name"]] = d
    if logs:
        out["logs"] = logs
    if pool.get("cache"):
        out["l2cache"] = {leaves[i]["name"]: _vdev(st(leaves[i]["name"]), 2, False, nice,
                                                   {"class": "l2cache",
                                                    "phys_space": int(leaves[i].get("size_bytes", 0))})
                          for i in pool["cache"]}
    return out


def zpool_status_json(snapshot: dict, release: str, pool_name: str, epoch_s: int, *, as_int: bool = False,
                      layout: dict | None = None) -> str:
    """``zpool status -j [--json-int] -T u <pool>`` as ``release`` (2.3+) prints it for one
    status snapshot, newline included.

    ``layout`` is the results' ``pool``/``leaves`` (``{"pool": …, "leaves": …}``) for the
    space figures and the log and L2ARC devices, which the snapshot tree does not hold.
    """
    if not has_json_status(release):
        raise ValueError(f"release {release} has no zpool status -j (OpenZFS 2.3.0 added it)")
    nice = _Nice(as_int)
    now_s = int(epoch_s) + int(snapshot.get("t_ns", 0)) // 1_000_000_000
    rows = snapshot.get("tree") or [{"depth": 0, "name": pool_name, "state": snapshot.get("state", "ONLINE")}]
    pool = (layout or {}).get("pool") or {}
    leaves = (layout or {}).get("leaves") or []
    size_of = {leaf["name"]: int(leaf.get("size_bytes", 0)) for leaf in leaves}
    # The tree's data tops take the space of pool.vdevs' normal vdevs in order, its special
    # tops (from special_from on) the special vdevs'.
    space = {cls: [(int(v.get("alloc_bytes", 0)), int(v.get("size_bytes", 0))) for v in pool.get("vdevs", [])
                   if (v.get("class") == "special") == (cls == "special")] for cls in ("normal", "special")}
    special_from = snapshot.get("special_from")
    special_from = len(rows) if special_from is None else int(special_from)

    # Children of each row by index; vdev types of the top-level vdevs for rebuild_stats.
    kids: dict[int, list[int]] = {i: [] for i in range(len(rows))}
    stack: list[int] = []
    for i, r in enumerate(rows):
        while stack and int(rows[stack[-1]]["depth"]) >= int(r["depth"]):
            stack.pop()
        if stack:
            kids[stack[-1]].append(i)
        stack.append(i)
    every_top = kids[0] if rows else []
    tops = {rows[i]["name"]: _vdev_type(rows[i]["name"], bool(kids[i]), 1) for i in every_top}
    # vdev_stats_nvlist of the root skips the special tops: class_vdevs_nvlist prints them.
    tops_in_order = [i for i in every_top if i < special_from]
    special_tops = [i for i in every_top if i >= special_from]
    classes = {rows[i]["name"]: "special" for i in special_tops}
    if rows:
        kids[0] = tops_in_order
    spares = snapshot.get("spares")
    if spares is None:
        spares = [{"name": n, "state": "AVAIL"} for n in pool.get("spares") or []]
    # A hot spare keeps vdev_isspare while it stands in for a disk (spa_spare_add /
    # spa_spare_activate, module/zfs/spa.c@zfs-2.3.0), so vdev_config_generate gives its
    # in-tree config ZPOOL_CONFIG_IS_SPARE (vdev_label.c@zfs-2.3.0) and fill_vdev_info
    # prints "class": "spare" for it, inside spare-N as in the spares section. A spare made
    # permanent (the failed disk detached) leaves the snapshot's spares list and is normal.
    spare_names = {sp["name"] for sp in spares}

    def build(i: int, cls: str = "normal") -> dict:
        r, depth = rows[i], int(rows[i]["depth"])
        extra: dict = {}
        # The bias of the vdev or of its parent, if either is a top-level vdev (fill_vdev_info).
        if depth <= 2:
            extra["class"] = cls
        if depth == 0:
            extra.update(alloc_space=int(pool.get("alloc_bytes", 0)), total_space=int(pool.get("size_bytes", 0)))
        elif depth == 1:
            order, sp = (special_tops, space["special"]) if cls == "special" else (tops_in_order, space["normal"])
            if i in order and order.index(i) < len(sp):
                extra["alloc_space"], extra["total_space"] = sp[order.index(i)]
        if not kids[i]:
            extra["phys_space"] = size_of.get(r["name"], 0)
            extra["scan_processed"] = int(r.get("scan_processed", 0))
            if r["name"] in spare_names:
                extra["class"] = "spare"
        d = _vdev(r, depth, bool(kids[i]), nice, extra)
        if kids[i]:
            d["vdevs"] = {rows[c]["name"]: build(c, cls) for c in kids[i]}
        return d

    # fill_pool_info: zpool_get_state_str, as the text view's `state:` word.
    state = _state_word(snapshot, release, _status_reason(snapshot, release))
    item: dict = {"name": pool_name, "state": state,
                  "spa_version": nice.literal(5000), "zpl_version": nice.literal(5)}
    item.update(_reason(snapshot, release))
    scan = _scan_stats(snapshot, nice, tops, classes)
    if scan:
        item["scan_stats"] = scan
    item["vdevs"] = {pool_name: build(0)}
    if special_tops:
        item["special"] = {rows[i]["name"]: build(i, "special") for i in special_tops}
    item.update(_class_items(pool, leaves, nice, snapshot))
    # spares_nvlist: vdev_stats_nvlist(…, isspare = B_TRUE) — name, type and class
    # ("spare": ZPOOL_CONFIG_IS_SPARE) from fill_vdev_info, then only the spare state:
    # AVAIL, or INUSE with aux SPARED — spa_add_spares sets vs_aux = VDEV_AUX_SPARED on a
    # spare in use and vdev_aux_str prints it in capitals (ZM@zfs-2.3.0, spa.c@zfs-2.3.0).
    if spares:
        item["spares"] = {sp["name"]: {"name": sp["name"], "vdev_type": _vdev_type(sp["name"], False, 1), "class": "spare",
                                       "state": sp["state"], **({"aux": "SPARED"} if sp["state"] == "INUSE" else {})}
                          for sp in spares}
    item["error_count"] = nice.count(int(snapshot.get("errors") or 0))
    doc = {"output_version": {"command": "zpool status", "vers_major": 0, "vers_minor": 1},
           "pools": {pool_name: item}, "time": nice.literal(now_s)}
    return _dump(doc) + "\n"


def status_json(results: dict, meta: dict, as_int: bool = False) -> str:
    """The ``status-json`` view: the run's last status snapshot, or — for a run without
    scan actions — its configuration (every device ONLINE), at the end of the run; the log
    vdevs under ``logs`` and the L2ARC devices under ``l2cache`` in both."""
    release = meta["release"]
    pool = results["pool"]
    layout = {"pool": pool, "leaves": results.get("leaves") or []}
    status = results.get("status") or {}
    if status.get("snapshots"):
        return zpool_status_json(status["snapshots"][-1], release, pool["name"], int(status.get("epoch_s", 0)),
                                 as_int=as_int, layout=layout)
    rows, special_from = config_tree(pool, results["leaves"])
    epoch = (meta.get("config") or {}).get("epoch_s")
    if epoch is None:
        from ..scenario import DEFAULT_EPOCH_S

        epoch = DEFAULT_EPOCH_S
    snap = {"t_ns": int(results.get("sim_time_ns", 0)), "state": "ONLINE", "tree": rows,
            "scan": {"func": "none", "state": "none"}, "rebuild": None, "errors": 0}
    if special_from is not None:
        snap["special_from"] = special_from
    return zpool_status_json(snap, release, pool["name"], int(epoch), as_int=as_int, layout=layout)

"""``zpool status`` as each release prints it.

Two entry points:

* ``zpool_status_config(results, release)`` — the configuration block of a run without scan
  actions (every device ONLINE, zero error counters), as before.
* ``zpool_status(snapshot, release, pool_name, epoch_s, layout=results)`` — the whole
  ``zpool status`` text from one status snapshot (docs/internals.md, "Scan results ... and
  `zpool status` snapshots"): pool and state lines, the status/action lines of the reason
  the release's ``zpool_get_status`` would pick, the scan line(s) of the release's era, the
  vdev tree and the error summary.

Both print the pool's classes after the data vdevs as each release does: the special vdevs
under ``special`` (0.8+, ``_special_rows``), then (``_class_rows``) the separate log vdevs
under ``logs`` and the L2ARC devices under ``cache``. The snapshot tree holds the data vdevs
and, from its ``special_from`` row on, the special ones; a run whose actions may fail or
offline a log or cache device carries their rows in each snapshot (``logs``, ``cache``: the
states the core gave them), otherwise they are printed ONLINE with zero error counters from
the pool layout.

Eras of the scan line (spec/zfs-model.md §8.1; read from cmd/zpool/zpool_main.c):

=============  ===========================================================================
era            releases and source
=============  ===========================================================================
``2009``       solaris-2009 — ``print_scrub_status`` (il:0a586cea3c), prefix `` scrub: ``
``legacy``     freebsd-9, illumos-2012, illumos-2014, zfs-0.6.5 — ``print_scan_status``
               (il:31d7e8fa33, il:7a09f97bc0, ZM@zfs-0.6.5; FreeBSD indents by 8 spaces)
``0.7``        zfs-0.7 — ZM@zfs-0.7.13: TAB continuation, ``zfs_nicebytes``, paused scrub
``0.8``        zfs-0.8 — ZM@zfs-0.8.0 = @zfs-0.8.6: scanned/issued, "N days HH:MM:SS"
``2.0``        zfs-2.0, zfs-2.1 — ``print_scan_scrub_resilver_status``, ``secs_to_dhms``,
               sequential rebuild lines (ZM@zfs-2.0.0 = @zfs-2.1.0)
``2.2``        zfs-2.2, zfs-2.3 — "X / T scanned at R/s, Y / T2 issued at R/s" (fa7b2390d4;
               ZM@zfs-2.2.0 = @zfs-2.3.0 for these functions)
=============  ===========================================================================

The arithmetic is the C code's: unsigned 64-bit integer divisions, the legacy scan rate
held in a 32-bit ``uint_t``, ``time(NULL)`` taken as the snapshot's simulated wall clock
(``epoch_s + t_ns // 1e9``), percentages from C doubles with ``%.2f``. Dates are
``ctime(3)``/``strftime`` in UTC with the C locale's English names, so output does not
depend on the host.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .nicenum import zfs_nicebytes, zfs_nicenum
from .releases import at_least, index

__all__ = [
    "zpool_status_config",
    "zpool_status",
    "scan_era",
    "scan_progress",
    "ScanProgress",
    "scan_lines",
    "printed_scans",
    "ctime_utc",
    "secs_to_dhms",
    "split_special",
    "config_tree",
    "vdev_rows",
]

_MASK64 = (1 << 64) - 1
_MASK32 = (1 << 32) - 1
_TEN_MIB = 10 * 1024 * 1024  # the ETA threshold of 0.8+ (zpool_main.c: 10 * 1024 * 1024)

# ----------------------------------------------------------------------------- config


def _top_name(name: str, release: str) -> str:
    # `zpool status` names top-level vdevs type-id (mirror-0) since OpenSolaris
    # introduced the naming; the 2009 release key predates it.
    return re.sub(r"-\d+$", "", name) if release == "solaris-2009" else name


def _online(depth: int, name: str) -> dict:
    return {"depth": depth, "name": name, "state": "ONLINE", "read": 0, "write": 0, "cksum": 0, "note": ""}


def _log_label(release: str, root: dict) -> dict:
    """The row that opens the ``logs`` section, per era.

    * solaris-2009 (OpenSolaris 2009.06 = snv_111b; il:379c004d1f, the last zpool_main.c
      before il:aa8cf21aa2 of 2009-04-17): ``status_callback`` prints it with
      ``print_status_config(zhp, "logs", nvroot, namewidth, 0, B_FALSE, B_TRUE)`` — a whole
      row carrying the root vdev's state, error counters and note.
    * il:aa8cf21aa2 … ZM@zfs-0.7.13 (freebsd-9, illumos-*, zfs-0.6.5, zfs-0.7):
      ``print_logs`` prints ``"\\tlogs\\n"``.
    * ZM@zfs-0.8.0 … @zfs-2.3.4: ``print_class_vdevs`` prints ``"\\t%s\\t\\n"`` — a TAB after
      the label.
    """
    if release == "solaris-2009":
        return {**root, "depth": 0, "name": "logs"}
    return {"depth": 0, "name": "logs", "state": None,
            "label": "logs\t" if at_least(release, "zfs-0.8") else "logs"}


def _special_rows(tops: list[dict]) -> list[dict]:
    """The special class, printed after the data vdevs and before the logs: ZM@zfs-0.8.0 …
    @zfs-2.3.0 ``status_callback`` calls ``print_class_vdevs`` for ``dedup``, ``special``
    and ``logs`` in that order, and ``print_class_vdevs`` prints ``"\t%s\t\n"`` (the
    label, a TAB) before the first vdev of the class, then each top-level vdev with
    ``print_status_config(…, depth 2)`` — the data vdevs' row format and indentation.
    ``tops`` are the special vdevs' rows (a top at depth 1, its children below); none, no
    label. ziosim has no dedup class."""
    if not tops:
        return []
    return [{"depth": 0, "name": "special", "state": None, "label": "special\t"}, *tops]


def split_special(snapshot: dict, rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """A snapshot tree cut at its ``special_from`` row: (the pool row and the data vdevs'
    rows, the special vdevs' rows); all of it and nothing for a pool without special vdevs."""
    k = snapshot.get("special_from")
    if k is None:
        return rows, []
    return rows[:int(k)], rows[int(k):]


def vdev_rows(vdev: dict, leaves: list[dict], release: str | None = None) -> list[dict]:
    """An ONLINE top-level vdev's rows, depth 1 (its disks at 2): a lone disk by its name."""
    idx = vdev["leaves"]
    if vdev.get("type") == "disk" and len(idx) == 1:
        return [_online(1, leaves[idx[0]]["name"])]
    name = _top_name(vdev["name"], release) if release else vdev["name"]
    return [_online(1, name), *(_online(2, leaves[i]["name"]) for i in idx)]


def config_tree(pool: dict, leaves: list[dict], release: str | None = None) -> tuple[list[dict], int | None]:
    """The tree of a pool whose every device is ONLINE, as a snapshot holds it: the pool
    row, the data vdevs', then the special vdevs' (``pool.vdevs`` with ``class`` special),
    and the index of the first special row (None without special vdevs)."""
    rows = [_online(0, pool["name"])]
    vdevs = pool.get("vdevs") or []
    for v in vdevs:
        if v.get("class") != "special":
            rows += vdev_rows(v, leaves, release)
    special_from = len(rows)
    for v in vdevs:
        if v.get("class") == "special":
            rows += vdev_rows(v, leaves, release)
    return rows, (special_from if special_from < len(rows) else None)


def _class_rows(pool: dict, leaves: list[dict], release: str, root: dict,
                snapshot: dict | None = None) -> list[dict]:
    """The rows ``status_callback`` prints after the data vdevs: the log vdevs, then the
    L2ARC devices (every era: il:379c004d1f ``print_status_config`` then ``print_l2cache``;
    ZM@zfs-0.6.5 ``print_logs`` then ``print_l2cache``; ZM@zfs-0.8.0 … @zfs-2.3.4
    ``print_class_vdevs(…, "logs")`` then ``print_l2cache``).

    A log vdev is a top-level vdev printed at depth 2 under its label, named as the data
    vdevs are (``zpool_vdev_name`` with the type-id: ``mirror-1``; solaris-2009 ``mirror``);
    a lone log disk goes by its own name. ``print_l2cache`` prints ``"\\tcache\\n"`` and each
    device at depth 2 in every era read (il:379c004d1f, ZM@zfs-0.6.5, @zfs-2.3.0).

    With a ``snapshot`` that carries ``logs``/``cache`` rows (a failed or offline log or
    cache device), those rows give the states.
    """
    rows: list[dict] = []
    logs = pool.get("log") or []
    snap_logs = (snapshot or {}).get("logs")
    snap_cache = (snapshot or {}).get("cache")
    if logs and snap_logs is not None:
        rows.append(_log_label(release, root))
        for r in snap_logs:
            r = dict(r)
            if int(r["depth"]) == 1 and any(int(x["depth"]) == 2 for x in snap_logs):
                r["name"] = _top_name(r["name"], release)
            rows.append(r)
        logs = []
    if logs:
        rows.append(_log_label(release, root))
        for v in logs:
            rows += vdev_rows(v, leaves, release)
    if pool.get("cache"):
        rows.append({"depth": 0, "name": "cache", "state": None})
        if snap_cache is not None:
            rows.extend(dict(r) for r in snap_cache)
        else:
            rows.extend(_online(1, leaves[i]["name"]) for i in pool["cache"])
    return rows


def _spare_rows(spares: list[dict]) -> list[dict]:
    """``print_spares`` (every era read: il:379c004d1f, ZM@zfs-0.6.5, @zfs-2.2.0), after the
    cache devices: ``"\tspares\n"``, then each spare at depth 2 through
    ``print_status_config(…, isspare = B_TRUE)``: the name, ``AVAIL`` (a healthy spare) or
    ``INUSE`` padded by ``%-8s``, no error counts, and ``currently in use`` for one in use."""
    if not spares:
        return []
    rows: list[dict] = [{"depth": 0, "name": "spares", "state": None}]
    for sp in spares:
        rows.append({"depth": 1, "name": sp["name"], "state": sp["state"], "spare": True,
                     "note": "currently in use" if sp["state"] == "INUSE" else ""})
    return rows


def _config_rows(width: int, rows: list[dict]) -> list[str]:
    """``print_status_config``: ``\\t%*s%-*s  %-8s %5s %5s %5s`` then ``  <note>``."""
    out = []
    for r in rows:
        ind = 2 * int(r["depth"])
        if r.get("state") is None:  # a class label row: "logs", "cache", "spares"
            out.append(f"\t{r.get('label', r['name'])}")
            continue
        if r.get("spare"):
            line = f"\t{'':{ind}}{r['name']:<{width - ind}}  {r['state']:<8}"
            out.append(line + (f"  {r['note']}" if r.get("note") else ""))
            continue
        line = (f"\t{'':{ind}}{r['name']:<{width - ind}}  {r['state']:<8}"
                f" {zfs_nicenum(r.get('read', 0)):>5} {zfs_nicenum(r.get('write', 0)):>5}"
                f" {zfs_nicenum(r.get('cksum', 0)):>5}")
        if r.get("note"):
            line += "  " + r["note"]
        out.append(line)
    return out


def _errors_line(nerr: int) -> str:
    """The last line of ``status_callback`` (the same in every era read, il:0a586cea3c to
    zfs-2.3): the persistent error log's entry count, or that it is empty."""
    if nerr == 0:
        return "errors: No known data errors"
    return f"errors: {nerr} data errors, use '-v' for a list"


def _config_block(rows: list[dict], nerr: int = 0) -> str:
    # max_width(): longest name + 2 per level, at least 10 (ZM, every era).
    width = max([10] + [2 * int(r["depth"]) + len(r["name"]) for r in rows
                        if r.get("state") is not None])
    out = ["config:", "",
           f"\t{'NAME':<{width}}  {'STATE':<8} {'READ':>5} {'WRITE':>5} {'CKSUM':>5}"]
    out += _config_rows(width, rows)
    out += ["", _errors_line(nerr)]
    return "\n".join(out) + "\n"


def zpool_status_config(results: dict, release: str) -> str:
    """``zpool status`` of a run without scan actions: every device ONLINE, no scan line."""
    pool = results["pool"]
    leaves = results["leaves"]
    tree, special_from = config_tree(pool, leaves, release)
    rows, special = split_special({"special_from": special_from}, tree)
    rows += _special_rows(special)
    rows += _class_rows(pool, leaves, release, rows[0])
    rows += _spare_rows([{"name": n, "state": "AVAIL"} for n in pool.get("spares") or []])
    return "  pool: " + pool["name"] + "\n state: ONLINE\n" + _config_block(rows)


# ----------------------------------------------------------------------------- time

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _strftime_utc(t: int) -> str:
    """``strftime("%a %b %e %T %Y")`` in UTC, C locale (no trailing newline)."""
    import datetime as _dt

    d = _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=int(t))
    return (f"{_DAYS[d.weekday()]} {_MONTHS[d.month - 1]} {d.day:2d} "
            f"{d.hour:02d}:{d.minute:02d}:{d.second:02d} {d.year}")


def ctime_utc(t: int) -> str:
    """``ctime(3)`` in UTC: ``"Sat Oct 14 00:00:01 2023\\n"`` — the newline is ctime's."""
    return _strftime_utc(t) + "\n"


def secs_to_dhms(total: int) -> str:
    """``secs_to_dhms`` (ZM@zfs-2.0.0): ``HH:MM:SS``, or ``N days HH:MM:SS`` from one day."""
    days, hours = total // 86400, (total // 3600) % 24
    mins, secs = (total // 60) % 60, total % 60
    if days > 0:
        return f"{days} days {hours:02d}:{mins:02d}:{secs:02d}"
    return f"{hours:02d}:{mins:02d}:{secs:02d}"


def _days_hms(total: int) -> str:
    """0.8.x always prints the day count: ``%llu days %02llu:%02llu:%02llu``."""
    return (f"{total // 86400} days {(total // 3600) % 24:02d}:"
            f"{(total // 60) % 60:02d}:{total % 60:02d}")


def _hm(minutes: int) -> str:
    """``%lluh%um`` of a minute count (minutes not padded)."""
    return f"{minutes // 60}h{minutes % 60}m"


def _pct(fraction: float) -> str:
    return f"{100 * fraction:.2f}"


def _div(a: int, b: int) -> float:
    """C ``(double)a / b`` with IEEE results for b == 0 (``inf``, or ``nan`` for 0/0)."""
    if b == 0:
        return math.nan if a == 0 else math.inf
    return a / b


# ----------------------------------------------------------------------------- eras


def scan_era(release: str) -> str:
    """The scan-line era of a release key: 2009, legacy, 0.7, 0.8, 2.0, 2.2."""
    index(release)  # validates the key
    if release == "solaris-2009":
        return "2009"
    if not at_least(release, "zfs-0.7"):
        return "legacy"
    if release == "zfs-0.7":
        return "0.7"
    if release == "zfs-0.8":
        return "0.8"
    return "2.0" if not at_least(release, "zfs-2.2") else "2.2"


def _see_url(release: str) -> str:
    """The ``   see:`` message URL prefix each release's zpool prints."""
    if release == "solaris-2009":
        return "http://www.sun.com/msg/"
    if release == "freebsd-9" or release.startswith("illumos"):
        # illumos 763 (il:654b400c38, 2012) changed www.sun.com to illumos.org; FreeBSD's
        # cddl/contrib zpool_main.c carries the same string from 9.1 on (9.0 still had sun.com).
        return "http://illumos.org/msg/"
    if not at_least(release, "zfs-2.0"):
        return "http://zfsonlinux.org/msg/"
    return "https://openzfs.github.io/openzfs-docs/msg/"


@dataclass(frozen=True)
class ScanProgress:
    """The numbers a release computes for an in-progress scrub/resilver.

    ``scan_rate``/``issue_rate`` are bytes/s as the C code holds them (integer);
    ``fraction_done`` the double behind ``% done``; ``secs_left`` the ETA in seconds the
    release would format (``None`` when it prints no estimate); ``eta`` the printed ETA text
    or the release's "no estimate" wording.
    """

    scanned: int
    issued: int
    total_s: int
    total_i: int
    scan_rate: int
    issue_rate: int
    fraction_done: float
    secs_left: int | None
    eta: str


def _elapsed(ps: dict, now_s: int, subtract_paused: bool) -> int:
    elapsed = (now_s - int(ps["pass_start_s"])) & _MASK64
    if subtract_paused:
        elapsed = (elapsed - int(ps.get("pass_scrub_spent_paused_s", 0))) & _MASK64
    return elapsed or 1


def scan_progress(ps: dict, release: str, now_s: int) -> ScanProgress:
    """Progress of an in-progress scan as ``release``'s ``zpool status`` computes it."""
    era = scan_era(release)
    if era == "2009":
        # print_scrub_status (il:379c004d1f): total = the root's vs_alloc at this moment,
        # raised to what was examined when that is more.
        examined = int(ps["examined"]) or 1
        total = max(int(ps.get("pool_alloc", ps["to_examine"])), examined)
        fraction = examined / total
        ran = now_s - int(ps["start_s"])
        mins_left = int(ran * (1 - fraction) / fraction / 60)
        return ScanProgress(examined, 0, total, total, 0, 0, fraction, mins_left * 60,
                            _hm(mins_left))
    if era in ("legacy", "0.7"):
        examined = int(ps["examined"]) or 1
        total = int(ps["to_examine"])
        elapsed = _elapsed(ps, now_s, subtract_paused=era == "0.7")
        rate = ((int(ps["pass_exam"]) or 1) // elapsed) & _MASK32 or 1  # uint_t rate
        mins_left = (((total - examined) & _MASK64) // rate) // 60
        hours_left = mins_left // 60
        slow = hours_left >= 30 * 24
        eta = "(scan is slow, no estimated time)" if slow else f"{hours_left}h{mins_left % 60}m"
        return ScanProgress(examined, 0, total, total, rate, 0, _div(examined, total),
                            None if slow else mins_left * 60, eta)
    scanned, issued = int(ps["examined"]), int(ps["issued"])
    total_s = int(ps["to_examine"])
    total_i = (total_s - int(ps.get("skipped", 0))) & _MASK64 if era == "2.2" else total_s
    elapsed = _elapsed(ps, now_s, subtract_paused=True)
    scan_rate = int(ps["pass_exam"]) // elapsed
    issue_rate = int(ps["pass_issued"]) // elapsed
    if era == "2.2":
        # fa7b2390d4: only once issuing is under way (a resilver that has repaired, a
        # scrub that has issued) and never past the expected total.
        func = ps["func"]
        ok = (total_i >= issued and issue_rate >= _TEN_MIB
              and ((func == "resilver" and int(ps["processed"]) > 0)
                   or (func == "scrub" and issued > 0)))
        secs = (total_i - issued) // issue_rate if ok else None
    else:
        # ZM@zfs-2.1.0. From zfs-2.1.12 the 2.2 condition (processed/issued > 0) was
        # backported into this format; the "zfs-2.1" key follows 2.1.0 as the spec does.
        secs = (total_s - issued) // issue_rate if issue_rate and total_s >= issued else None
        if secs is not None and issue_rate < _TEN_MIB:
            secs = None
    if secs is None:
        eta = "no estimated completion time"
    else:
        eta = _days_hms(secs) if era == "0.8" else secs_to_dhms(secs)
    return ScanProgress(scanned, issued, total_s, total_i, scan_rate, issue_rate,
                        _div(issued, total_i), secs, eta)


# ----------------------------------------------------------------------------- scan lines


def _scrub_status_2009(ps: dict, now_s: int) -> str:
    out = " scrub: "
    func, state = ps["func"], ps["state"]
    if func not in ("scrub", "resilver") or state == "none":
        return out + "none requested\n"
    start, end = int(ps["start_s"]), int(ps["end_s"])
    if state in ("finished", "canceled"):
        taken = (end - start) // 60
        how = "completed" if state == "finished" else "stopped"
        return (out + f"{func} {how} after {_hm(taken)} with {int(ps['errors'])} errors "
                f"on {ctime_utc(end)}")
    p = scan_progress(ps, "solaris-2009", now_s)
    taken = (now_s - start) // 60
    return (out + f"{func} in progress for {_hm(taken)}, {_pct(p.fraction_done)}% done, "
            f"{p.eta} to go\n")


def _finished_or_canceled(ps: dict, era: str, nb) -> str | None:
    func, state = ps["func"], ps["state"]
    start, end = int(ps["start_s"]), int(ps["end_s"])
    if state == "finished":
        secs = (end - start) & _MASK64
        took = {"legacy": None, "0.7": None, "0.8": _days_hms(secs)}.get(era, secs_to_dhms(secs))
        if took is None:
            took = _hm(secs // 60)
        what = "scrub repaired" if func == "scrub" else "resilvered"
        return (f"{what} {nb(int(ps['processed']))} in {took} with {int(ps['errors'])} "
                f"errors on {ctime_utc(end)}")
    if state == "canceled":
        return f"{func} canceled on {ctime_utc(end)}"
    return None


def _scan_status_legacy(ps: dict, release: str, now_s: int) -> str:
    """``print_scan_status`` 2010 → ZoL 0.7.13: "scanned out of", "XhYm to go"."""
    era = scan_era(release)
    nb = zfs_nicebytes if era == "0.7" else zfs_nicenum
    ind = "\t" if era == "0.7" else (" " * 8 if release == "freebsd-9" else " " * 4)
    out = "  scan: "
    func = ps["func"]
    if func not in ("scrub", "resilver"):
        return out + "none requested\n"
    done = _finished_or_canceled(ps, era, nb)
    if done is not None:
        return out + done
    start = int(ps["start_s"])
    pause = int(ps.get("pass_scrub_pause_s", 0)) if era == "0.7" else 0
    if func == "scrub" and pause:
        out += (f"scrub paused since {_strftime_utc(pause)}\n"
                f"\tscrub started on   {ctime_utc(start)}")
    else:
        out += f"{func} in progress since {ctime_utc(start)}"
    p = scan_progress(ps, release, now_s)
    if pause:
        out += f"{ind}{nb(p.scanned)} scanned out of {nb(p.total_s)}\n"
    else:
        out += f"{ind}{nb(p.scanned)} scanned out of {nb(p.total_s)} at {nb(p.scan_rate)}/s"
        out += f", {p.eta} to go\n" if p.secs_left is not None else f", {p.eta}\n"
    what = "resilvered" if func == "resilver" else "repaired"
    return out + f"{ind}{nb(int(ps['processed']))} {what}, {_pct(p.fraction_done)}% done\n"


def _scan_status_issued(ps: dict, release: str, now_s: int) -> str:
    """0.8+ ``print_scan_status`` / ``print_scan_scrub_resilver_status``."""
    era = scan_era(release)
    nb = zfs_nicebytes
    out = "  scan: "
    func = ps["func"]
    if func not in ("scrub", "resilver"):
        return out + "none requested\n"
    done = _finished_or_canceled(ps, era, nb)
    if done is not None:
        return out + done
    start = int(ps["start_s"])
    pause = int(ps.get("pass_scrub_pause_s", 0))
    if func == "scrub" and pause:
        out += f"scrub paused since {ctime_utc(pause)}\tscrub started on {ctime_utc(start)}"
    else:
        out += f"{func} in progress since {ctime_utc(start)}"
    p = scan_progress(ps, release, now_s)
    if era == "2.2":
        out += f"\t{nb(p.scanned)} / {nb(p.total_s)} scanned"
        if not pause and p.scan_rate > 0:
            out += f" at {nb(p.scan_rate)}/s"
        out += f", {nb(p.issued)} / {nb(p.total_i)} issued"
        if not pause and p.issue_rate > 0:
            out += f" at {nb(p.issue_rate)}/s"
        out += "\n"
    elif pause:
        out += f"\t{nb(p.scanned)} scanned, {nb(p.issued)} issued, {nb(p.total_s)} total\n"
    else:
        out += (f"\t{nb(p.scanned)} scanned at {nb(p.scan_rate)}/s, {nb(p.issued)} issued at "
                f"{nb(p.issue_rate)}/s, {nb(p.total_s)} total\n")
    what = "resilvered" if func == "resilver" else "repaired"
    out += f"\t{nb(int(ps['processed']))} {what}, {_pct(p.fraction_done)}% done"
    if pause:
        return out + "\n"
    return out + (f", {p.eta} to go\n" if p.secs_left is not None else f", {p.eta}\n")


def rebuild_progress(vrs: dict, release: str) -> tuple[int, int, float, int | None]:
    """The arithmetic of ``print_rebuild_status_impl`` (ZM@zfs-2.0.0, @zfs-2.2.0) for an
    active rebuild: (scan rate, issue rate, fraction done, seconds to go or None)."""
    scanned, est = int(vrs.get("scanned", 0)), int(vrs.get("estimate", 0))
    pass_ms = int(vrs.get("pass_time_ms", 0))
    scan_rate = (int(vrs.get("pass_scanned", 0)) // (pass_ms + 1)) * 1000
    issue_rate = (int(vrs.get("pass_issued", 0)) // (pass_ms + 1)) * 1000
    if at_least(release, "zfs-2.2"):
        secs = (est - scanned) // scan_rate if est >= scanned and scan_rate >= _TEN_MIB else None
    else:
        secs = max(est - scanned, 0) // max(scan_rate, 1) if scan_rate >= _TEN_MIB else None
    return scan_rate, issue_rate, min(scanned / (est + 1), 1.0), secs


def _rebuild_status(vrs: dict, release: str) -> str:
    """``print_rebuild_status_impl`` (ZM@zfs-2.0.0, @zfs-2.2.0): one top-level vdev."""
    state = vrs["state"]
    if state not in ("active", "complete", "canceled"):
        return ""
    nb = zfs_nicebytes
    name = vrs["vdev"]
    scanned, issued = int(vrs["scanned"]), int(vrs["issued"])
    est_s = int(vrs["estimate"])
    est_i = est_s - int(vrs.get("pass_skipped", 0)) if at_least(release, "zfs-2.2") else est_s
    scan_rate, issue_rate, _, secs = rebuild_progress(vrs, release)
    pct = min(scanned * 100 / (est_s + 1), 100)
    out = "  scan: "
    if state == "complete":
        # vrs_scan_time_ms: the snapshot may carry it; else the wall-clock span.
        ms = int(vrs.get("scan_time_ms", (int(vrs["end_s"]) - int(vrs["start_s"])) * 1000))
        return (out + f"resilvered ({name}) {nb(int(vrs['rebuilt']))} in "
                f"{secs_to_dhms(ms // 1000)} with {int(vrs['errors'])} errors on "
                f"{ctime_utc(int(vrs['end_s']))}")
    if state == "canceled":
        return out + f"resilver ({name}) canceled on {ctime_utc(int(vrs['end_s']))}"
    out += f"resilver ({name}) in progress since {ctime_utc(int(vrs['start_s']))}"
    if at_least(release, "zfs-2.2"):
        out += f"\t{nb(scanned)} / {nb(est_s)} scanned"
        if scan_rate > 0:
            out += f" at {nb(scan_rate)}/s"
        out += f", {nb(issued)} / {nb(est_i)} issued"
        if issue_rate > 0:
            out += f" at {nb(issue_rate)}/s"
        out += "\n"
    else:
        # 2.0/2.1: the issue rate is printed without "at" (format string as released).
        out += (f"\t{nb(scanned)} scanned at {nb(scan_rate)}/s, {nb(issued)} issued "
                f"{nb(issue_rate)}/s, {nb(est_s)} total\n")
    out += f"\t{nb(int(vrs['rebuilt']))} resilvered, {pct:.2f}% done"  # already x100
    if secs is None:
        return out + ", no estimated completion time\n"
    return out + f", {secs_to_dhms(secs)} to go\n"


def _rebuild_summary(snapshot: dict) -> tuple[bool, int]:
    """``check_rebuilding``: (any rebuild active, latest rebuild end time or 0)."""
    end = 0
    for vrs in snapshot.get("rebuild") or []:
        end = max(end, int(vrs.get("end_s", 0)))
        if vrs["state"] == "active":
            return True, 0
    return False, end


def _rebuild_completed_end(snapshot: dict) -> int:
    """``check_status``'s REBUILD_SCRUB test counts *completed* rebuilds only (a cancelled
    one wants no scrub): the latest such end time, or 0 (libzfs_status.c, ZM@zfs-2.0.0 …
    @zfs-2.3.0)."""
    return max((int(v.get("end_s", 0)) for v in snapshot.get("rebuild") or [] if v["state"] == "complete"),
               default=0)


def printed_scans(snapshot: dict) -> list[tuple[str, dict]]:
    """What 2.0+ ``print_scan_status`` shows, in order: ``("scan", ps)`` for the scrub or
    resilver, ``("rebuild", vrs)`` for each sequential rebuild. The scrub always; then the
    active (or else the latest) of the healing resilver and the rebuilds. A pool never
    scanned shows nothing (ZM@zfs-2.0.0, @zfs-2.3.0)."""
    ps = snapshot.get("scan") or {"func": "none", "state": "none"}
    func, state = ps.get("func", "none"), ps.get("state", "none")
    have_resilver = func == "resilver"
    active_resilver = have_resilver and state == "scanning"
    resilver_end = int(ps.get("end_s", 0)) if have_resilver else 0
    active_rebuild, rebuild_end = _rebuild_summary(snapshot)
    have_rebuild = active_rebuild or rebuild_end > 0
    out: list[tuple[str, dict]] = []
    if func == "scrub":
        out.append(("scan", ps))
    if active_resilver or (not active_rebuild and have_resilver and resilver_end
                           and resilver_end > rebuild_end):
        out.append(("scan", ps))
    elif active_rebuild or (not active_resilver and have_rebuild and rebuild_end
                            and rebuild_end > resilver_end):
        out += [("rebuild", v) for v in snapshot.get("rebuild") or []
                if v["state"] in ("active", "complete", "canceled")]
    return out


def scan_lines(snapshot: dict, release: str, now_s: int) -> str:
    """The scan line(s) ``release``'s ``zpool status`` prints for a snapshot ('' if none)."""
    era = scan_era(release)
    ps = snapshot.get("scan") or {"func": "none", "state": "none"}
    if era == "2009":
        return _scrub_status_2009(ps, now_s)
    if era in ("legacy", "0.7"):
        return _scan_status_legacy(ps, release, now_s)
    if era == "0.8":
        return _scan_status_issued(ps, release, now_s)
    return "".join(_scan_status_issued(obj, release, now_s) if what == "scan"
                   else _rebuild_status(obj, release) for what, obj in printed_scans(snapshot))


# ----------------------------------------------------------------------------- reasons

# ZPOOL_STATUS_IO_FAILURE_WAIT and _CONTINUE share their words (status_callback).
_IO_FAILURE = ("status: One or more devices are faulted in response to IO failures.\n"
               "action: Make sure the affected devices are connected, then run 'zpool clear'.\n")

_REASONS = {
    "resilvering": (
        "status: One or more devices is currently being resilvered.  The pool will\n"
        "\tcontinue to function, possibly in a degraded state.\n"
        "action: Wait for the resilver to complete.\n", None),
    "rebuild-scrub": (
        "status: One or more devices have been sequentially resilvered, scrubbing\n"
        "\tthe pool is recommended.\n"
        "action: Use 'zpool scrub' to verify all data checksums.\n", None),
    # ZPOOL_STATUS_OFFLINE_DEV: the same text in every release read (ZM@zfs-0.6.5 … @zfs-2.3.0).
    "offline": (
        "status: One or more devices has been taken offline by the administrator.\n"
        "\tSufficient replicas exist for the pool to continue functioning in a\n"
        "\tdegraded state.\n"
        "action: Online the device using 'zpool online' or replace the device with\n"
        "\t'zpool replace'.\n", None),
    # ZPOOL_STATUS_IO_FAILURE_WAIT / _CONTINUE: the pool is suspended
    # (ZPOOL_CONFIG_SUSPENDED holds its failmode; in the 2009 code POOL_STATE_IO_FAILURE
    # and the failmode property). The same words in every release read (the OpenSolaris
    # status_callback of the zfs-fuse import, ZM@zfs-0.6.2, @zfs-0.6.5, @zfs-2.2.0);
    # msgids ZFS-8000-HC and ZFS-8000-JQ (zfs_msgid_table, libzfs_status.c).
    "io-failure-wait": (_IO_FAILURE, "ZFS-8000-HC"),
    "io-failure-continue": (_IO_FAILURE, "ZFS-8000-JQ"),
    # ZPOOL_STATUS_MISSING_DEV_NR: a dead top-level vdev (the root CANT_OPEN); same text
    # in every release read (il:0a586cea3c, ZM@zfs-0.6.5 … @zfs-2.3.0).
    "missing-dev-nr": (
        "status: One or more devices could not be opened.  There are insufficient\n"
        "\treplicas for the pool to continue functioning.\n"
        "action: Attach the missing device and online it using 'zpool online'.\n",
        "ZFS-8000-3C"),
    "missing-dev-r": (
        "status: One or more devices could not be opened.  Sufficient replicas exist for\n"
        "\tthe pool to continue functioning in a degraded state.\n"
        "action: Attach the missing device and online it using 'zpool online'.\n",
        "ZFS-8000-2Q"),
    # ZPOOL_STATUS_CORRUPT_DATA: the pool's persistent error log is not empty
    # (ZPOOL_CONFIG_ERRCOUNT, the snapshot's `errors`). The same words in every release
    # read: il:0a586cea3c, il:31d7e8fa33, il:7a09f97bc0, ZM@zfs-0.6.5, @zfs-0.7.0,
    # @zfs-0.8.0, @zfs-2.0.0, @zfs-2.1.0, @zfs-2.2.0 (status_callback) and @zfs-2.3.0
    # (print_status_reason); msgid ZFS-8000-8A (zfs_msgid_table, libzfs_status.c, each).
    "corrupt-data": (
        "status: One or more devices has experienced an error resulting in data\n"
        "\tcorruption.  Applications may be affected.\n"
        "action: Restore the file in question if possible.  Otherwise restore the\n"
        "\tentire pool from backup.\n",
        "ZFS-8000-8A"),
}


def _leaves_outside_replacing(tree: list[dict]) -> list[dict]:
    """Leaf rows ``find_vdev_problem`` looks at: it skips whole ``replacing`` vdevs, since
    the resilver under way is repairing them (every era, il:0a586cea3c to zfs-2.3)."""
    out, skip_below = [], None
    for i, r in enumerate(tree):
        depth = int(r["depth"])
        if skip_below is not None and depth > skip_below:
            continue
        skip_below = None
        if re.fullmatch(r"replacing(-\d+)?", r["name"]):
            skip_below = depth
            continue
        if not (i + 1 < len(tree) and int(tree[i + 1]["depth"]) > depth):
            out.append(r)
    return out


def _status_reason(snapshot: dict, release: str) -> str | None:
    """The ``zpool_get_status`` reasons ziosim can produce, in ``check_status`` order.

    ``check_status`` (lib/libzfs/libzfs_status.c) returns the first that holds of:

    * solaris-2009 (il:e14bb3258d, the same order at il:0a586cea3c): a missing device
      with the pool unable to open (MISSING_DEV_NR), data errors (CORRUPT_DATA), a missing
      device (MISSING_DEV_R), an offlined device (OFFLINE_DEV), then "resilvering" last.
    * every later release (il:31d7e8fa33, il:7a09f97bc0, ZM@zfs-0.6.5, @zfs-0.7.0,
      @zfs-0.8.0, @zfs-2.0.0, @zfs-2.1.0, @zfs-2.2.0, @zfs-2.3.0): "resilvering" first, then
      (2.0+) an active rebuild and a finished rebuild that wants a scrub, then the same
      order as 2009: MISSING_DEV_NR, CORRUPT_DATA, MISSING_DEV_R, OFFLINE_DEV.

    Data errors are the pool's persistent error log (the snapshot's ``errors``, printed as
    ``errors: N data errors``): blocks no copy could serve. Devices inside a ``replacing``
    vdev never count as missing or offline (``find_vdev_problem`` skips them).
    """
    ps = snapshot.get("scan") or {}
    resilvering = ps.get("func") == "resilver" and ps.get("state") == "scanning"
    if release == "solaris-2009":
        # check_status (il:379c004d1f): `!vs_scrub_complete && vs_scrub_type == RESILVER`;
        # a stopped resilver leaves both (vdev_scrub_stat_update with POOL_SCRUB_NONE).
        resilvering = ps.get("func") == "resilver" and ps.get("state") in ("scanning", "canceled")
    leaves = _leaves_outside_replacing(snapshot.get("tree") or [])
    # Log vdevs are children of the root: find_vdev_problem walks them in every era. It
    # walks the L2ARC devices too from illumos 3818 (il:7f2416ef64, 2013: illumos-2012 on;
    # ZM@zfs-0.6.5 … @zfs-2.3.0), not in il:379c004d1f nor in freebsd-9 (il:31d7e8fa33).
    leaves += _leaves_outside_replacing([dict(r, depth=int(r["depth"]) + 1) for r in snapshot.get("logs") or []])
    if at_least(release, "illumos-2012"):
        leaves += list(snapshot.get("cache") or [])
    missing = any(r.get("state") == "UNAVAIL" for r in leaves)
    # The root vdev CANT_OPEN (a dead top-level vdev) is what makes a missing device "NR".
    no_replicas = missing and snapshot.get("state") == "UNAVAIL"
    # A suspended pool: checked just before the NR device problems in every release
    # (check_status at zfs-fuse 8f1b8655, an onnv libzfs of 2008–9, and ZM@zfs-0.6.2 …
    # @zfs-2.3.0).
    suspended = snapshot.get("suspended")
    devices = [(f"io-failure-{suspended}", suspended is not None),
               ("missing-dev-nr", no_replicas),
               ("corrupt-data", int(snapshot.get("errors") or 0) > 0),
               ("missing-dev-r", missing),
               ("offline", any(r.get("state") == "OFFLINE" for r in leaves))]
    if release == "solaris-2009":
        return next((name for name, hit in devices + [("resilvering", resilvering)] if hit), None)
    if resilvering:
        return "resilvering"
    if at_least(release, "zfs-2.0"):
        active, _ = _rebuild_summary(snapshot)
        if active:
            return "resilvering"  # ZPOOL_STATUS_REBUILDING prints the resilvering text
        end = _rebuild_completed_end(snapshot)
        if end > 0 and (ps.get("state", "none") == "none"
                        or (ps.get("func") == "scrub" and ps.get("state") == "finished"
                            and end > int(ps.get("end_s", 0)))):
            return "rebuild-scrub"
    return next((name for name, hit in devices if hit), None)


# ----------------------------------------------------------------------------- the whole


def _state_word(snapshot: dict, release: str, reason: str | None) -> str:
    """The ``state:`` word: the root vdev's state, except that from zfs-0.8
    ``zpool_get_state_str`` says ``SUSPENDED`` when the status reason is the suspension —
    ``IO_FAILURE_WAIT`` only through 2.1, ``IO_FAILURE_CONTINUE`` too from 2.2.0
    (libzfs_pool.c, ZM@zfs-0.8.0, @zfs-2.1.0, @zfs-2.2.0). A pool resilvering or rebuilding
    has that reason instead, and shows its root's state."""
    if (reason == "io-failure-wait" and at_least(release, "zfs-0.8")) or (
            reason == "io-failure-continue" and at_least(release, "zfs-2.2")):
        return "SUSPENDED"
    return str(snapshot.get("state", "ONLINE"))


def zpool_status(snapshot: dict, release: str, pool_name: str, epoch_s: int,
                 layout: dict | None = None) -> str:
    """``zpool status <pool>`` as ``release`` prints it for one status snapshot.

    ``epoch_s`` is the wall-clock time of simulated t = 0; the moment of the snapshot
    (``time(NULL)`` in the C code, which the in-progress rates divide by) is
    ``epoch_s + t_ns // 10**9``. ``layout`` is the results document (its ``pool`` and
    ``leaves``), for the log and cache devices the snapshot tree does not hold; without it
    only the snapshot's tree is printed.
    """
    index(release)
    now_s = int(epoch_s) + int(snapshot.get("t_ns", 0)) // 1_000_000_000
    reason = _status_reason(snapshot, release)
    out = f"  pool: {pool_name}\n state: {_state_word(snapshot, release, reason)}\n"
    if reason is not None:
        text, msgid = _REASONS[reason]
        out += text
        if msgid:
            out += f"   see: {_see_url(release)}{msgid}\n"
    out += scan_lines(snapshot, release, now_s)
    rows = [dict(r) for r in snapshot.get("tree") or [{"depth": 0, "name": pool_name,
                                                        "state": snapshot.get("state")}]]
    rows, special = split_special(snapshot, rows)
    if release == "solaris-2009":
        # vs_scrub_type: the last scan started (a stop leaves it), resilver or scrub.
        done = "resilvered" if (snapshot.get("scan") or {}).get("func") == "resilver" else "repaired"
        for i, r in enumerate(rows):
            parent = i + 1 < len(rows) and rows[i + 1]["depth"] > r["depth"]
            if parent and r["depth"] > 0:
                r["name"] = _top_name(r["name"], release)
            elif not parent and not r.get("note") and int(r.get("scan_processed", 0)) > 0:
                # print_status_config (il:379c004d1f): a leaf without an aux note shows its
                # vs_scrub_repaired, which only the next scan's start clears.
                r["note"] = f"{zfs_nicenum(int(r['scan_processed']))} {done}"
    rows += _special_rows(special)
    if layout is not None:
        rows += _class_rows(layout["pool"], layout["leaves"], release, rows[0], snapshot)
    rows += _spare_rows(snapshot.get("spares") or [])
    return out + _config_block(rows, int(snapshot.get("errors") or 0))

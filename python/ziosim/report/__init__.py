"""Human and file outputs of a ziosim run, in the shapes ZFS administrators know.

``render_text(results, meta)`` is what ``ziosim run`` prints on stdout; ``write_outputs``
writes the result files. ``results`` is the document ``Simulation.results_json()``
returns (docs/internals.md); ``meta`` is a dict with ``name``, ``seed``, ``release``,
``scenario_hash``, ``version``, ``config`` (the normalised run config), and optionally
``scenario_path`` and ``platform`` (linux | freebsd | illumos, for ``iostat -x``).
"""

from __future__ import annotations

from . import releases
from .files import write_outputs
from .iostat import (os_iostat_x, overfull_vdevs, unsupported_note, whole_samples, zpool_iostat, zpool_iostat_r,
                     zpool_iostat_w)
from .nicenum import nicerate, zfs_nicebytes, zfs_nicenum, zfs_nicetime
from .quantize import keyed_quantize, quantize
from .status import zpool_status, zpool_status_config
from .status_json import json_command, status_json, zpool_status_json
from .summary import SCAN_PHASES, build_summary, summary_json, summary_text

__all__ = [
    "VIEWS",
    "DEFAULT_VIEWS",
    "check_views",
    "render_text",
    "write_outputs",
    "build_summary",
    "summary_json",
    "summary_text",
    "zpool_iostat",
    "zpool_iostat_w",
    "zpool_iostat_r",
    "os_iostat_x",
    "overfull_vdevs",
    "zpool_status",
    "zpool_status_config",
    "zpool_status_json",
    "status_json",
    "quantize",
    "zfs_nicenum",
    "zfs_nicebytes",
    "zfs_nicetime",
    "nicerate",
    "releases",
]

#: Every view ``render_text`` knows, in the order it prints them.
VIEWS: tuple[str, ...] = (
    "status",     # zpool status: configuration, and scan progress per interval if scanned
    "status-json",      # zpool status -j -T u (2.3+): the last snapshot, numbers as strings
    "status-json-int",  # zpool status -j --json-int -T u (2.3+): the same, numbers as integers
    "iostat",     # zpool iostat -v <interval>: one block per report interval
    "iostat-l",   # zpool iostat -vl: average waits per interval
    "iostat-q",   # zpool iostat -vq: queue depths at the end of each interval
    "iostat-w",   # zpool iostat -w: whole-run latency histogram, pool level
    "iostat-r",   # zpool iostat -r: whole-run request-size histogram, pool level
    "iostat-x",   # OS iostat -x per disk (platform: linux | freebsd | illumos)
    "latency",    # DTrace quantize() of each workload's latency
    "summary",    # fio-style throughput and latency percentiles
)
DEFAULT_VIEWS: tuple[str, ...] = ("status", "iostat", "latency", "summary")

_IOSTAT_X_COMMAND = {"linux": "iostat -dx", "freebsd": "iostat -x", "illumos": "iostat -xn"}


def _interval_s(results: dict) -> str:
    ns = int(results["series"]["interval_ns"])
    return str(ns // 1_000_000_000) if ns % 1_000_000_000 == 0 else f"{ns / 1e9:g}"


def _header(results: dict, meta: dict) -> str:
    sim_s = int(results.get("sim_time_ns", 0)) / 1e9
    return (
        f"# ziosim {meta.get('version')}  release {meta.get('release')}  seed {meta.get('seed')}"
        f"  scenario {meta.get('name')} ({meta.get('scenario_hash')})\n"
        f"# simulated {sim_s:g}s  events {results.get('events', 0)}  "
        f"leaf I/Os {results.get('leaf_ios', 0)}  end {results.get('end')}  "
        f"digest {results.get('digest')}\n"
    )


def _section(command: str, body: str) -> str:
    return f"\n$ {command}\n{body}"


def _status_sections(results: dict, release: str, pool: str) -> list[str]:
    """``zpool status`` as if run at every report interval and once at the end: one
    section per status snapshot. A run without scan results has no snapshots; it prints
    the configuration once, as before."""
    status = results.get("status")
    if not status or not status.get("snapshots"):
        return [_section(f"zpool status {pool}", zpool_status_config(results, release))]
    epoch_s = int(status.get("epoch_s", 0))
    out = []
    # Administrative commands `zpool` refused or warned about, with its own words.
    for entry in results.get("actions") or []:
        said = entry.get("error") or entry.get("warning")
        if said:
            out.append(_section(entry["command"], said + "\n"))
    return out + [_section(f"zpool status {pool}", zpool_status(snap, release, pool, epoch_s, results))
                  for snap in status["snapshots"]]


def _phase_quantize(w: dict) -> list[str]:
    """The same DTrace aggregation taken over each scan window (before, during, after the
    scan) — the before/during/after comparison administrators make by hand — for windows
    in which the workload completed operations."""
    phases = w.get("by_scan_phase") or {}
    out = []
    for key in SCAN_PHASES:
        p = phases.get(key) or {}
        if not p.get("ops"):
            continue
        secs = int(p.get("window_ns", 0)) / 1e9
        out.append(_section(f"dtrace: @[\"{w['name']}\"] = quantize(latency_ns)   "
                            f"# {key} the scan, {secs:g}s window",
                            "\n" + keyed_quantize((w["name"],), p.get("latency_log2", []))))
    return out


def _trace_quantize(w: dict) -> list[str]:
    """A trace workload's latency per kind of record, as ``@[workload, op]`` — a two-key
    DTrace aggregation — for the whole run and for each scan window: most of a trace's
    buffered writes complete from memory and would hide, in the workload's own histogram, what a
    scan does to its reads."""
    by_op = (w.get("trace") or {}).get("by_op") or {}
    windows = w.get("by_scan_phase") or {}
    out = []
    for op in ("read", "write", "sync_write", "flush"):
        v = by_op.get(op) or {}
        if not v.get("ops"):
            continue
        agg = f"dtrace: @[\"{w['name']}\", \"{op}\"] = quantize(latency_ns)"
        out.append(_section(agg, "\n" + keyed_quantize((w["name"], op), v.get("latency_log2", []))))
        for key in SCAN_PHASES:
            p = (v.get("by_scan_phase") or {}).get(key) or {}
            if not p.get("ops"):
                continue
            secs = int((windows.get(key) or {}).get("window_ns", 0)) / 1e9
            out.append(_section(f"{agg}   # {key} the scan, {secs:g}s window",
                                "\n" + keyed_quantize((w["name"], op), p.get("latency_log2", []))))
    return out


def check_views(views, release: str) -> None:
    """ValueError unless every view is known and the release can print it (a JSON view needs
    ``zpool status -j``); ``ziosim run`` asks before it simulates."""
    unknown = [v for v in views if v not in VIEWS]
    if unknown:
        raise ValueError(f"views: unknown view {unknown[0]!r}; known: {', '.join(VIEWS)}")
    releases.index(release)  # validates the key
    json_views = [v for v in views if v.startswith("status-json")]
    if json_views and not releases.has_json_status(release):
        newer = [r for r in releases.RELEASES if releases.has_json_status(r)]
        raise ValueError(f"views: {json_views[0]} is zpool status -j, which release {release} lacks (added in "
                         f"OpenZFS 2.3.0); allowed: release {', '.join(newer)}, or the view status")


def render_text(results: dict, meta: dict, views=DEFAULT_VIEWS) -> str:
    """The text ``ziosim run`` prints: a header naming version, release, seed and scenario
    hash, then each requested view preceded by the command that would have shown it.

    A view the release's tools did not have prints a one-line note instead; a JSON view is
    refused (ValueError) for a release without ``zpool status -j``, as its output would not
    be JSON.
    """
    check_views(views, meta["release"])
    release = meta["release"]
    pool = results["pool"]["name"]
    interval = _interval_s(results)
    platform = meta.get("platform") or "linux"
    out = [_header(results, meta)]
    # A short last interval (the run stopped between two report times) is not printed, as
    # zpool iostat N and iostat N never print one.
    no_samples = not whole_samples(results)
    default_shown = False
    for view in VIEWS:
        if view not in views:
            continue
        if no_samples and view in ("iostat", "iostat-l", "iostat-q", "iostat-x"):
            out.append(f"\nnote: the run ended before the first {interval}s report interval; "
                       f"no `{view}` samples\n")
            continue
        if view == "status":
            out.extend(_status_sections(results, release, pool))
        elif view in ("status-json", "status-json-int"):
            as_int = view == "status-json-int"
            out.append(_section(json_command(pool, as_int), status_json(results, meta, as_int)))
        elif view == "iostat":
            default_shown = True
            out.append(_section(f"zpool iostat -v {pool} {interval}",
                                zpool_iostat(results, release)))
        elif view in ("iostat-l", "iostat-q", "iostat-w", "iostat-r"):
            flag = "-" + view[-1]
            command = (f"zpool iostat -v{flag[1]} {pool} {interval}" if flag in ("-l", "-q")
                       else f"zpool iostat {flag} {pool}")
            note = unsupported_note(release, flag)
            if note:
                # The release's zpool had only the default view: show it once instead.
                body = note + "\n"
                if not default_shown:
                    body += zpool_iostat(results, release)
                    default_shown = True
            elif flag == "-w":
                body = zpool_iostat_w(results, release)
            elif flag == "-r":
                body = zpool_iostat_r(results, release)
            else:
                body = zpool_iostat(results, release, flags=(flag,))
            out.append(_section(command, body))
        elif view == "iostat-x":
            # freebsd-9 is the one FreeBSD release ziosim has before 12's new columns.
            layout = "freebsd-old" if release == "freebsd-9" else platform
            out.append(_section(f"{_IOSTAT_X_COMMAND.get(platform, 'iostat -x')} {interval}",
                                os_iostat_x(results, layout)))
        elif view == "latency":
            for w in results.get("workloads", []):
                if not any(w.get("latency_log2") or []):
                    # DTrace prints no aggregation for a key that never fired (a workload that
                    # completed nothing); the -1/0/1 rows are for one emptied by clear().
                    continue
                # The blank line dtrace prints as it exits, the key, then the block.
                out.append(_section(f"dtrace: @[\"{w['name']}\"] = quantize(latency_ns)",
                                    "\n" + keyed_quantize((w["name"],), w.get("latency_log2", []))))
                out.extend(_phase_quantize(w))
                out.extend(_trace_quantize(w))
        elif view == "summary":
            out.append(_section("ziosim summary", summary_text(results, meta)))
    return "".join(out)

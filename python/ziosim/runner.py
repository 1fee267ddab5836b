"""Run a validated scenario in the core: one `Simulation`, stepped in chunks of events.

Python never sits in the event loop; it only calls `step_events(CHUNK_EVENTS)` until the
core says the run has ended, which keeps a progress bar moving and lets Ctrl-C
(KeyboardInterrupt) land between chunks. Nothing is written here: a caller that is
interrupted simply has no results.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from typing import Any, Callable

from . import _native
from . import results as results_mod
from .errors import InternalError, ScenarioError
from .scenario import EVENTS_MAX, Scenario, show

__all__ = ["CHUNK_EVENTS", "run", "meta", "platform", "reproduce_command"]

CHUNK_EVENTS = 200_000
# The core stops by itself at limits.events_max; this bounds our loop if it did not.
_STEPS_MAX = EVENTS_MAX // CHUNK_EVENTS + 2

Progress = Callable[[int, int, int], None]  # (now_ns, stop_ns, events)


def reproduce_command(sc: Scenario, verb: str = "run", extra: str = "") -> str:
    path = shlex.quote(sc.path) if sc.path else "<scenario.toml>"
    return f"ziosim {verb} {path} --seed {sc.seed}{extra}"


def meta(sc: Scenario) -> dict[str, Any]:
    """What every output carries about the run (style.md: version, release, seed, hash)."""
    from . import __version__

    return {
        "name": sc.name,
        "seed": sc.seed,
        "release": sc.release,
        "scenario_hash": sc.hash,
        "version": __version__,
        "config": _config_for_meta(sc.config),
        "scenario_path": sc.path,
        "hz": sc.hz,
        "platform": platform(sc.release),
    }


def _config_for_meta(config: dict[str, Any]) -> dict[str, Any]:
    """The run config as outputs carry it: a trace's records (megabytes, and in the
    scenario hash already) summed up as their count."""
    if not any("trace" in w for w in config.get("workloads", [])):
        return config
    out = dict(config)
    out["workloads"] = [
        {**w, "trace": {"records": len(w["trace"]["ops"]), "timed": "t_ns" in w["trace"],
                        "files": len(set(w["trace"]["file"])) if "file" in w["trace"] else 1,
                        "repeat": w["trace"]["repeat"]}} if "trace" in w else w
        for w in config["workloads"]
    ]
    return out


def _results(sim: Any) -> dict[str, Any]:
    """The ended run's results: handed over without copies where the core can
    (``take_results``, results.py), else parsed from ``results_json``."""
    take = getattr(sim, "take_results", None)
    if take is None:
        return json.loads(sim.results_json())
    doc, columns = take()
    return results_mod.assemble(doc, columns)


def platform(release: str) -> str:
    """The OS a release usually runs on, for OS-specific views (`iostat -x` flavours)."""
    if release.startswith(("solaris", "illumos")):
        return "illumos"
    if release.startswith("freebsd"):
        return "freebsd"
    return "linux"


def run(
    sc: Scenario,
    *,
    chunk: int = CHUNK_EVENTS,
    on_progress: Progress | None = None,
    reproduce: str | None = None,
    on_scan: Callable[..., None] | None = None,
    on_work: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run to the end and return the results document (docs/internals.md, "Results").

    ``on_progress(now_ns, stop_ns, events)`` is called after every chunk of events;
    before it ``on_scan(*scan_progress)`` (``examined_bytes, to_examine_bytes, issued_bytes,
    skipped_bytes, sorted``), once a scan exists, and
    ``on_work(done, total)`` with the work of the workloads that end by themselves (trace
    records, files).

    Raises ScenarioError if the core rejects the config, InternalError for anything the
    core should never do (a panic, no progress), and lets KeyboardInterrupt through.
    """
    core = _native.core()
    repro = reproduce or reproduce_command(sc)
    try:
        sim = core.Simulation(sc.config_json())
    except ValueError as e:
        raise ScenarioError(_user_field((str(e).splitlines() or ["rejected by the core"])[0], sc)) from None
    except Exception as e:
        raise InternalError(f"{type(e).__name__}: {e}", seed=sc.seed, reproduce=repro) from e
    try:
        for _ in range(_STEPS_MAX):
            before = sim.events
            done = sim.step_events(chunk)
            # The scan's and the workloads' share first, so the frame drawn by on_progress
            # shows them from the chunk a scan starts in, not the time form once before.
            if on_scan is not None:
                scan = getattr(sim, "scan_progress", None)
                if scan is not None:
                    on_scan(*scan)
            if on_work is not None:
                work = getattr(sim, "workloads_progress", None)
                if work is not None:
                    on_work(*work)
            if on_progress is not None:
                on_progress(sim.now_ns, sim.stop_ns, sim.events)
            if done:
                return _results(sim)
            if sim.events == before:
                raise InternalError("the core made no progress in a step", seed=sc.seed, reproduce=repro)
        raise InternalError(f"the run did not end within {EVENTS_MAX} events", seed=sc.seed, reproduce=repro)
    except (KeyboardInterrupt, SystemExit, InternalError):
        raise
    except BaseException as e:  # a Rust panic arrives as pyo3's PanicException (a BaseException)
        raise InternalError(f"{type(e).__name__}: {e}", seed=sc.seed, reproduce=repro) from e


_NO_FIT = re.compile(r"^pool\.layout: layout\.allocated_bytes: (\d+) — does not fit: vdev (\S+) would need (\d+) of "
                     r"its (\d+) bytes$")


def _user_field(msg: str, sc: Scenario) -> str:
    """The core's "does not fit" names its own config key; say it of the field the user
    wrote (``pool.fill`` or ``pool.allocated``), with what would fit. Parity, raid-z padding
    and metadata come on top of the data, and the room they take grows with it, so the
    largest value that fits is about the given one scaled by room ÷ need."""
    m = _NO_FIT.match(msg)
    if m is None or sc.allocation is None:
        return msg
    field, given = sc.allocation
    alloc, vdev, need, room = int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))
    why = f"does not fit: vdev {vdev} would need {need} of its {room} bytes with parity, padding and metadata"
    if field == "pool.fill":
        most = math.floor(float(given) * room / need * 1000) / 1000
        return f"{field}: {show(given)} — {why}; allowed: at most about {most:g}"
    return f"{field}: {show(given)} — {why}; allowed: at most about {alloc * room // need} bytes"

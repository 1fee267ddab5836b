"""Running a sweep: finished points are skipped, the rest run on a backend, then one table.

Layout of ``OUT``::

    OUT/sweep.json          the manifest: axes, points (index, id, values, labels), base
    OUT/sweep.parquet       the result table (table.py), written once every point is done
    OUT/points/<id>/        one run's outputs (summary.json, run.json, series.parquet,
                            histograms.parquet, scan.parquet if it scanned) + metrics.json

A point directory appears only complete: the run is written into a hidden
``points/.<id>.partial-…`` directory and renamed into place (one ``rename(2)``). A point is
*finished* when ``points/<id>/metrics.json`` exists and was written by this ziosim version
and metrics schema; re-running a sweep (the same or another one that contains the same
run: the id is the scenario hash) skips it. Partial directories left by an interrupted
sweep are removed when the next sweep in ``OUT`` starts. One sweep at a time per ``OUT``
(an advisory lock on ``OUT/.lock``).

Backends: ``local`` runs points in this process (``jobs`` = 1) or in a pool of ``jobs``
worker processes (spawned, so nothing of the parent's state leaks into a run); ``ray`` runs
each point as a Ray task (``OUT`` must then be on storage every Ray worker can write).
The results never depend on the backend or on ``jobs``: every point is its own
deterministic run and the table is assembled in grid order.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InternalError, ScenarioError
from .spec import Sweep
from .table import METRICS_SCHEMA, build_table, point_metrics

__all__ = [
    "BACKENDS",
    "SweepResult",
    "PointFailure",
    "manifest",
    "run_sweep",
    "run_point",
    "read_manifest",
    "read_table",
    "point_is_finished",
]

BACKENDS = ("local", "ray")
MANIFEST = "sweep.json"
TABLE = "sweep.parquet"
METRICS_FILE = "metrics.json"

OnPoint = Callable[[int, int, str, bool], None]  # (done, total, point description, reused)


@dataclass(frozen=True)
class PointFailure:
    index: int
    describe: str
    message: str
    reproduce: str


@dataclass(frozen=True)
class SweepResult:
    out: Path
    manifest: dict[str, Any]
    ran: int
    reused: int
    failures: tuple[PointFailure, ...]
    table_path: Path | None


def _version() -> str:
    from .. import __version__

    return __version__


def _json_default(v: Any) -> str:
    return str(v)  # TOML dates and times


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False, default=_json_default) + "\n"


def manifest(sw: Sweep) -> dict[str, Any]:
    """The sweep's plan as plain JSON (``OUT/sweep.json``)."""
    return {
        "schema_version": 1,
        "ziosim_version": _version(),
        "name": sw.name,
        "sweep_path": sw.path,
        "scenario_path": sw.scenario_path,
        "set": sw.fixed,
        "overrides": sw.overrides,
        "baseline": sw.baseline,
        "metrics": list(sw.metrics) if sw.metrics else None,
        "axes": [{"name": a.name, "field": a.field, "values": list(a.values), "labels": list(a.labels)}
                 for a in sw.axes],
        "points": [
            {"index": p.index, "id": p.id, "values": list(p.values), "labels": list(p.labels),
             "seed": p.scenario.seed, "release": p.scenario.release, "name": p.scenario.name}
            for p in sw.points
        ],
    }


def out_error(out: Path, doing: str, e: OSError) -> ScenarioError:
    """A failure to write in ``OUT`` as the one line every --out problem is."""
    from ..report.files import _reason

    return ScenarioError(f"--out: {out} — cannot {doing} ({_reason(e)}); allowed: a directory you can write, "
                         "with room for the results")


def write_atomic(path: Path, text: str | None = None, table: Any = None) -> None:
    """Write ``text`` (or a Parquet ``table``) to ``path`` through a temporary sibling
    renamed into place, with the mode the umask gives (``mkstemp`` alone makes it 0600)."""
    from ..report.files import follow_umask

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.parent)
    try:
        follow_umask(tmp)
        if table is not None:
            os.close(fd)
            import pyarrow.parquet as pq

            pq.write_table(table, tmp)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                f.write(text or "")
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextmanager
def _lock(out: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        yield
        return
    try:
        f = open(out / ".lock", "a+")
    except OSError as e:
        raise out_error(out, "write in it", e) from None
    try:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ScenarioError(f"--out: {out} — another sweep is running in it; allowed: a directory no sweep is using") from None
        yield
    finally:
        f.close()


def finished_metrics(points_dir: Path, point_id: str) -> dict[str, Any] | None:
    """The point's metrics document if it finished with this schema and version, else None."""
    try:
        m = json.loads((points_dir / point_id / METRICS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = m.get("metrics_schema") == METRICS_SCHEMA and m.get("ziosim_version") == _version() and m.get("id") == point_id
    return m if ok else None


def point_is_finished(points_dir: Path, point_id: str) -> bool:
    return finished_metrics(points_dir, point_id) is not None


def _clean_partials(points_dir: Path) -> None:
    for p in points_dir.glob(".*"):
        if ".partial-" in p.name or ".tmp-" in p.name or ".old-" in p.name:
            shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)


# ----------------------------------------------------------------------------- one point


def run_point(task: Mapping[str, Any]) -> dict[str, Any]:
    """Run one point and write ``points/<id>/`` atomically. Runs in a worker process (or a
    Ray task): it returns a plain dict — ``{"ok": id}`` or ``{"error": kind, "line", "hint",
    "reproduce"}`` — rather than raising, so nothing depends on pickling exceptions."""
    from .. import report, runner
    from .. import scenario as scenario_mod

    repro = task.get("reproduce", "")
    try:
        sc = scenario_mod.from_dict(task["doc"], default_name=task["default_name"], path=task["path"],
                                    stop=task.get("stop"))
        if sc.hash != task["id"]:
            raise InternalError(f"point {task['index']}: scenario hash {sc.hash} in the worker, {task['id']} planned")
        results = runner.run(sc, reproduce=repro)
        meta = runner.meta(sc)
        points_dir = Path(task["points_dir"])
        partial = points_dir / f".{sc.hash}.partial-{uuid.uuid4().hex[:12]}"
        try:
            report.write_outputs(partial, results, meta, plots=False)  # report.html without SVGs per point
            doc = {"id": sc.hash, "metrics_schema": METRICS_SCHEMA, "ziosim_version": _version(),
                   "settings": task.get("settings", {}), **point_metrics(results, sc.config)}
            with open(partial / METRICS_FILE, "w", encoding="utf-8", newline="\n") as f:
                f.write(_canonical(doc))
                f.flush()
                os.fsync(f.fileno())
            final = points_dir / sc.hash
            if final.exists():  # a stale point (another version) or --fresh
                old = points_dir / f".{sc.hash}.old-{uuid.uuid4().hex[:12]}"
                os.rename(final, old)
                shutil.rmtree(old, ignore_errors=True)
            os.rename(partial, final)
        finally:
            if partial.exists():
                shutil.rmtree(partial, ignore_errors=True)
        return {"ok": sc.hash}
    except ScenarioError as e:
        return {"error": "input", "line": e.line, "hint": e.hint, "reproduce": repro}
    except InternalError as e:
        return {"error": "internal", "line": str(e).splitlines()[0], "hint": None, "reproduce": repro}
    except KeyboardInterrupt:
        raise
    except Exception as e:  # a bug: report it like the run verb does
        line = f"{type(e).__name__}: {e}".splitlines()[0]
        return {"error": "internal", "line": line, "hint": None, "reproduce": repro}


# ----------------------------------------------------------------------------- backends


def _local(tasks: list[dict[str, Any]], jobs: int) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    if jobs <= 1 or len(tasks) <= 1:
        for t in tasks:
            yield t, run_point(t)
        return
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    pool = ctx.Pool(processes=min(jobs, len(tasks)))
    try:
        by_index = {t["index"]: t for t in tasks}
        for res in pool.imap_unordered(_run_indexed, [(t["index"], t) for t in tasks]):
            idx, out = res
            yield by_index[idx], out
        pool.close()
        pool.join()
    finally:
        pool.terminate()  # on an interrupt or error: stop the workers now; partials are cleaned next time


def _run_indexed(arg: tuple[int, dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    idx, task = arg
    try:
        return idx, run_point(task)
    except KeyboardInterrupt:
        return idx, {"error": "interrupted", "line": "interrupted", "hint": None, "reproduce": ""}


def _ray(tasks: list[dict[str, Any]], jobs: int | None) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    ray = ray_module()
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"ignore_reinit_error": True, "log_to_driver": False}
        if not os.environ.get("RAY_ADDRESS") and jobs:
            kwargs["num_cpus"] = jobs
        ray.init(**kwargs)
    remote = ray.remote(run_point)
    refs = {remote.remote(t): t for t in tasks}
    pending = list(refs)
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield refs[done[0]], ray.get(done[0])
    finally:
        for r in pending:
            with contextlib.suppress(OSError):
                ray.cancel(r, force=True)


def ray_module():
    """``import ray``, or the one-line error that says how to get it."""
    try:
        import ray  # type: ignore[import-not-found]
    except ImportError:
        raise ScenarioError(
            "--backend: ray — Ray is not installed; allowed: local, or ray after installing it",
            hint="pip install 'ziosim[ray]' (or pip install ray)",
        ) from None
    return ray


def check_backend(backend: str) -> None:
    """A known backend, and for ray an importable Ray; else the one-line error."""
    if backend not in BACKENDS:
        raise ScenarioError(f"--backend: {json.dumps(backend)} — allowed: {', '.join(BACKENDS)}")
    if backend == "ray":
        ray_module()


# ----------------------------------------------------------------------------- the sweep


def _reproduce(sw: Sweep, idx: int, out: Path) -> str:
    """The sweep that reruns point ``idx``: into the same ``OUT``, where only the points
    that did not finish run again."""
    import shlex

    p = sw.points[idx - 1]
    cmd = f"ziosim sweep {shlex.quote(sw.path or sw.scenario_path)}"
    cmd += "".join(f" --set {shlex.quote(s)}" for s in sw.overrides.get("set", []))
    if sw.overrides.get("stop"):
        cmd += f" --stop {shlex.quote(sw.overrides['stop'])}"
    cmd += f" --out {shlex.quote(str(out))}"
    return f"{cmd}  # point {p.index}: {p.describe(sw.axes)}"


def run_sweep(
    sw: Sweep,
    out: str | os.PathLike[str],
    *,
    jobs: int | None = None,
    backend: str = "local",
    fresh: bool = False,
    on_point: OnPoint | None = None,
) -> SweepResult:
    """Run every unfinished point of ``sw`` into ``out`` and write the table.

    Raises ScenarioError for a bad backend; KeyboardInterrupt passes through (finished
    points stay; no table is written). Points that fail are returned in ``failures``
    and the table is then not written.
    """
    check_backend(backend)  # fail before touching OUT
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ScenarioError(f"--out: {out} — is a file; allowed: a directory")
    points_dir = out / "points"
    try:  # before any point runs: an OUT that cannot be written is refused now, not after them
        out.mkdir(parents=True, exist_ok=True)
        points_dir.mkdir(exist_ok=True)
    except OSError as e:
        raise out_error(out, "create it", e) from None
    man = manifest(sw)
    total = len(sw.points)
    with _lock(out):
        _clean_partials(points_dir)
        _clean_partials(out)
        try:
            (out / TABLE).unlink(missing_ok=True)  # a table always matches the manifest beside it
            write_atomic(out / MANIFEST, _canonical(man))
            probe = tempfile.mkdtemp(prefix=".probe.partial-", dir=points_dir)
            os.rmdir(probe)
        except OSError as e:
            raise out_error(out, "write in it", e) from None
        todo, reused = [], 0
        metrics: dict[str, dict[str, Any]] = {}
        for p in sw.points:
            m = None if fresh else finished_metrics(points_dir, p.id)
            if m is not None:
                metrics[p.id] = m
                reused += 1
                if on_point:
                    on_point(reused, total, p.describe(sw.axes), True)
                continue
            todo.append({
                "index": p.index, "id": p.id, "doc": p.doc, "default_name": Path(sw.scenario_path).stem,
                "path": sw.scenario_path, "stop": sw.overrides.get("stop"), "points_dir": str(points_dir),
                "settings": {a.name: lab for a, lab in zip(sw.axes, p.labels)},
                "reproduce": _reproduce(sw, p.index, out),
            })
        n_jobs = jobs if jobs is not None else (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                                                  else (os.cpu_count() or 1))
        it = _ray(todo, jobs) if backend == "ray" else _local(todo, n_jobs)
        failures: list[PointFailure] = []
        done = reused
        for task, res in it:
            done += 1
            if "error" in res:
                if res["error"] == "interrupted":
                    raise KeyboardInterrupt
                line = res["line"] + (f" (hint: {res['hint']})" if res.get("hint") else "")
                failures.append(PointFailure(task["index"], sw.points[task["index"] - 1].describe(sw.axes),
                                             line, res.get("reproduce", "")))
            if on_point:
                on_point(done, total, sw.points[task["index"] - 1].describe(sw.axes), False)
        if failures:
            return SweepResult(out, man, len(todo) - len(failures), reused,
                               tuple(sorted(failures, key=lambda f: f.index)), None)
        for p in sw.points:
            if p.id in metrics:
                continue
            try:
                metrics[p.id] = json.loads((points_dir / p.id / METRICS_FILE).read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise InternalError(f"point {p.index}: {points_dir / p.id / METRICS_FILE} unreadable after its run: {e}") from None
        try:
            write_atomic(out / TABLE, table=build_table(man, metrics))
        except OSError as e:
            raise out_error(out, f"write {TABLE}", e) from None
        return SweepResult(out, man, len(todo), reused, (), out / TABLE)


def read_manifest(out: str | os.PathLike[str]) -> dict[str, Any]:
    path = Path(out) / MANIFEST
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError(f"{out}: no {MANIFEST} — allowed: a directory a `ziosim sweep` wrote (--out)") from None
    except (OSError, ValueError) as e:
        raise ScenarioError(f"{path}: unreadable — {e}") from None


def read_table(out: str | os.PathLike[str], man: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of ``OUT/sweep.parquet`` as dicts, in table order."""
    path = Path(out) / TABLE
    if not path.is_file():
        points_dir = Path(out) / "points"
        done = sum(point_is_finished(points_dir, p["id"]) for p in man["points"])
        raise ScenarioError(
            f"{out}: no {TABLE} — the sweep is not complete ({done} of {len(man['points'])} points); "
            "allowed: a finished sweep (re-run the same `ziosim sweep` to finish it)"
        )
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pylist()

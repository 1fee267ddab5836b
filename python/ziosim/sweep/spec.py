"""Sweep files: a base scenario, fixed settings and axes → the grid of validated points.

A sweep file is TOML with one ``[sweep]`` table (docs/sweep.md)::

    [sweep]
    name = "scrub-delay"                       # default: the file name without .toml
    scenario = "../default.toml"               # the base scenario, relative to this file
    baseline = { "zfs.tunables.zfs_scrub_delay" = 4 }   # optional (see compare.py)
    metrics = ["ops_per_s", "p99", "scan"]    # optional: the comparison view's columns

    [sweep.set]                                # optional: applied to every point
    scenario.stop = "2m"
    zfs.release = "illumos-2014"

    [[sweep.axis]]
    field = "zfs.tunables.zfs_scrub_delay"     # a path into the scenario document
    values = [0, 1, 4]
    # name = "delay"                           # column name (default: the field)
    # labels = ["0", "1", "4"]                 # how the view prints each value

A plain scenario file (no ``[sweep]`` table) is a sweep with no axes; ``--set`` adds them.

Paths use dots for tables and ``[i]`` for array elements; ``workload[users]`` selects the
array element whose ``name`` is ``users``. An axis value *replaces* what is at its path
(a table value replaces the whole table); ``[sweep.set]`` is merged into the scenario as
nested tables, and a key that contains a dot or a bracket is read as a path.

The grid is the Cartesian product of the axes, the first axis varying slowest. Each point
is the base document with the fixed settings and then its axis values applied, validated
by the normal scenario validation (``scenario.from_dict``) before anything runs; a point
that does not validate is one error line naming the point and the field. A point's id is
its scenario hash (the SHA-256 of its normalised run config), so two points cannot be the
same run and a point's outputs can be found again by any sweep that contains the same run.
"""

from __future__ import annotations

import copy
import itertools
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import scenario as scenario_mod
from ..errors import ScenarioError
from ..fields import merge_settings, parse_path, parse_set_option, set_path, show, value_label

tomllib = scenario_mod.tomllib

__all__ = [
    "Axis",
    "Point",
    "Sweep",
    "load",
    "parse_set_option",
    "parse_path",
    "set_path",
    "value_label",
    "POINTS_MAX",
    "SWEEP_KEYS",
    "AXIS_KEYS",
]

SWEEP_KEYS = ("name", "scenario", "set", "axis", "baseline", "metrics")
AXIS_KEYS = ("field", "values", "name", "labels")
POINTS_MAX = 10_000


@dataclass(frozen=True)
class Axis:
    """One dimension of the grid: a scenario path and the values it takes."""

    field: str
    values: tuple[Any, ...]
    name: str
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Point:
    """One run of the grid: its place, its axis values and its validated scenario."""

    index: int  # 1-based, grid order
    values: tuple[Any, ...]  # one per axis
    labels: tuple[str, ...]  # one per axis
    scenario: scenario_mod.Scenario
    doc: dict[str, Any]  # the scenario document the point was validated from

    @property
    def id(self) -> str:
        return self.scenario.hash

    def describe(self, axes: Sequence[Axis]) -> str:
        """``zfs.sync=disabled pool.log=none``."""
        return " ".join(f"{a.name}={lab}" for a, lab in zip(axes, self.labels)) or "(base)"


@dataclass(frozen=True)
class Sweep:
    name: str
    path: str | None  # the sweep file (None: a scenario file used as a sweep)
    scenario_path: str  # the base scenario file
    base: dict[str, Any]  # the base scenario document (parsed TOML, before settings)
    fixed: dict[str, Any]  # [sweep.set], as given (nested tables or paths)
    axes: tuple[Axis, ...]
    points: tuple[Point, ...]
    baseline: dict[str, Any] | None = None
    metrics: tuple[str, ...] | None = None
    overrides: dict[str, Any] = field(default_factory=dict)  # --stop and the like, for the manifest


# ----------------------------------------------------------------------------- loading


def _read_toml(path: Path, what: str) -> dict[str, Any]:
    return scenario_mod.parse_toml(scenario_mod.read_text(path, what), str(path))


_check_keys = scenario_mod.check_keys


def _axis(raw: Any, where: str) -> Axis:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: {show(raw)} — allowed: a table with field and values ([[sweep.axis]])")
    _check_keys(raw, where, AXIS_KEYS)
    if "field" not in raw:
        raise ScenarioError(f"{where}.field: missing — allowed: a path into the scenario, e.g. zfs.sync")
    fld = raw["field"]
    parse_path(fld, f"{where}.field")
    values = raw.get("values")
    if not isinstance(values, list) or not values:
        shown = "missing" if values is None else show(values)
        raise ScenarioError(f"{where}.values: {shown} — allowed: a non-empty array of values for {fld}")
    name = raw.get("name", fld)
    if not isinstance(name, str) or not name.strip():
        raise ScenarioError(f"{where}.name: {show(name)} — allowed: a non-empty string")
    if "labels" in raw:
        labels = raw["labels"]
        if (not isinstance(labels, list) or len(labels) != len(values)
                or not all(isinstance(x, str) and x.strip() for x in labels)):
            raise ScenarioError(
                f"{where}.labels: {show(labels)} — allowed: an array of {len(values)} non-empty strings, one per value"
            )
    else:
        labels = [value_label(v) for v in values]
    if len(set(labels)) != len(labels):
        dup = next(x for x in labels if labels.count(x) > 1)
        raise ScenarioError(f"{where}.labels: two values print as {show(dup)} — allowed: distinct labels (give labels)")
    return Axis(field=fld.strip(), values=tuple(values), name=name.strip(), labels=tuple(labels))


def _baseline(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or not raw:
        raise ScenarioError(f'{where}: {show(raw)} — allowed: a table such as {{ "zfs.sync" = "standard" }}')
    flat: dict[str, Any] = {}

    def walk(t: Mapping[str, Any], prefix: str) -> None:
        for k, v in t.items():
            p = f"{prefix}.{k}" if prefix else k
            if isinstance(v, dict):
                walk(v, p)
            else:
                flat[p] = v

    walk(raw, "")
    return flat


def load(
    path: str | Path,
    *,
    sets: Sequence[str] = (),
    stop: str | None = None,
) -> Sweep:
    """Read a sweep file (or a scenario file), add ``--set`` axes, validate every point."""
    p = Path(path)
    doc = _read_toml(p, "sweep or scenario")
    if "sweep" not in doc:
        return _build(
            name=p.stem, path=None, scenario_path=p, base=doc, fixed={}, axes=[], baseline=None,
            metrics=None, sets=sets, stop=stop,
        )
    extra = [k for k in doc if k != "sweep"]
    if extra:
        raise ScenarioError(
            f"{extra[0]}: not allowed in a sweep file — allowed: one [sweep] table; "
            "the scenario goes in its own file (sweep.scenario)"
        )
    sw = doc["sweep"]
    if not isinstance(sw, dict):
        raise ScenarioError(f"sweep: {show(sw)} — allowed: a table")
    _check_keys(sw, "sweep", SWEEP_KEYS)
    name = sw.get("name", p.stem)
    if not isinstance(name, str) or not name.strip():
        raise ScenarioError(f"sweep.name: {show(name)} — allowed: a non-empty string")
    if "scenario" not in sw:
        raise ScenarioError("sweep.scenario: missing — allowed: the base scenario's path, relative to the sweep file")
    sc_path = sw["scenario"]
    if not isinstance(sc_path, str) or not sc_path.strip():
        raise ScenarioError(f"sweep.scenario: {show(sc_path)} — allowed: a path to a scenario .toml file")
    base_path = Path(os.path.normpath(p.parent / sc_path))
    if not base_path.is_file():
        raise ScenarioError(
            f"sweep.scenario: {show(sc_path)} — no such file ({base_path}); allowed: a path relative to {p}"
        )
    base = _read_toml(base_path, "scenario")
    if "sweep" in base:
        raise ScenarioError(f"sweep.scenario: {show(sc_path)} — is itself a sweep file; allowed: a scenario file")
    fixed = sw.get("set", {})
    if not isinstance(fixed, dict):
        raise ScenarioError(f"sweep.set: {show(fixed)} — allowed: a table of scenario settings")
    raw_axes = sw.get("axis", [])
    if not isinstance(raw_axes, list):
        raise ScenarioError(f"sweep.axis: {show(raw_axes)} — allowed: [[sweep.axis]] tables")
    axes = [_axis(a, f"sweep.axis[{i}]") for i, a in enumerate(raw_axes)]
    baseline = _baseline(sw["baseline"], "sweep.baseline") if "baseline" in sw else None
    metrics = None
    if "metrics" in sw:
        m = sw["metrics"]
        if not isinstance(m, list) or not m or not all(isinstance(x, str) for x in m):
            raise ScenarioError(f"sweep.metrics: {show(m)} — allowed: a non-empty array of metric names")
        from ..report.compare import check_metrics

        metrics = tuple(check_metrics(m, "sweep.metrics"))
    return _build(
        name=name.strip(), path=str(p), scenario_path=base_path, base=base, fixed=fixed, axes=axes,
        baseline=baseline, metrics=metrics, sets=sets, stop=stop,
    )


def _build(
    *,
    name: str,
    path: str | None,
    scenario_path: Path,
    base: dict[str, Any],
    fixed: dict[str, Any],
    axes: list[Axis],
    baseline: dict[str, Any] | None,
    metrics: tuple[str, ...] | None,
    sets: Sequence[str],
    stop: str | None,
) -> Sweep:
    # --set: a new axis, or the replacement of the file's axis on the same field.
    for opt in sets:
        fld, values = parse_set_option(opt)
        labels = [value_label(v) for v in values]
        if len(set(labels)) != len(labels):
            raise ScenarioError(f"--set {fld}: {show(values)} — a value is given twice; allowed: distinct values")
        new = Axis(field=fld, values=tuple(values), name=fld, labels=tuple(labels))
        same = [i for i, a in enumerate(axes) if a.field == fld]
        if same:
            axes[same[0]] = Axis(field=fld, values=new.values, name=axes[same[0]].name, labels=new.labels)
        else:
            axes.append(new)
    seen: dict[str, int] = {}
    for i, a in enumerate(axes):
        for key in {a.field, a.name}:
            if key in seen and seen[key] != i:
                raise ScenarioError(f"sweep.axis[{i}].field: {show(a.field)} — already swept by sweep.axis[{seen[key]}]")
            seen[key] = i
    from .table import RESERVED_COLUMNS

    for i, a in enumerate(axes):
        if a.name in RESERVED_COLUMNS:
            raise ScenarioError(
                f"sweep.axis[{i}].name: {show(a.name)} — a result column has that name; allowed: another name"
            )
    n = math.prod(len(a.values) for a in axes)
    if n > POINTS_MAX:
        raise ScenarioError(f"sweep.axis: {n} points — too many; allowed: at most {POINTS_MAX}")
    overrides: dict[str, Any] = {"stop": stop} if stop is not None else {}
    if sets:
        overrides["set"] = list(sets)
    default_name = scenario_path.stem
    points: list[Point] = []
    by_id: dict[str, Point] = {}
    merged = copy.deepcopy(base)
    merge_settings(merged, fixed, "sweep.set")  # the same for every point
    for k, combo in enumerate(itertools.product(*[range(len(a.values)) for a in axes]), start=1):
        doc = copy.deepcopy(merged)
        values = tuple(a.values[j] for a, j in zip(axes, combo))
        labels = tuple(a.labels[j] for a, j in zip(axes, combo))
        where = f"sweep point {k} (" + (" ".join(f"{a.name}={lab}" for a, lab in zip(axes, labels)) or "base") + ")"
        for a, v in zip(axes, values):
            set_path(doc, a.field, v, where)
        try:
            sc = scenario_mod.from_dict(doc, default_name=default_name, path=str(scenario_path), stop=stop)
        except ScenarioError as e:
            raise ScenarioError(f"{where}: {e.line}", hint=e.hint) from None
        pt = Point(index=k, values=values, labels=labels, scenario=sc, doc=doc)
        if sc.hash in by_id:
            other = by_id[sc.hash]
            raise ScenarioError(
                f"{where}: the same run as sweep point {other.index} ({other.describe(axes)}) — "
                "allowed: axis values that change the normalised scenario"
            )
        by_id[sc.hash] = pt
        points.append(pt)
    if baseline is not None:
        from ..report.compare import resolve_baseline

        resolve_baseline(baseline, axes, "sweep.baseline")  # fail early on a bad baseline
    return Sweep(
        name=name, path=path, scenario_path=str(scenario_path), base=base, fixed=fixed, axes=tuple(axes),
        points=tuple(points), baseline=baseline, metrics=metrics, overrides=overrides,
    )

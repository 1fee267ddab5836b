"""`ziosim validate`: run the field cases in `cases/` and compare with what was reported.

A case is a folder `cases/<name>/` with a `case.toml` listing figures; each figure names a
scenario file in the folder, a metric (a dotted path into the results document), the
reported value (in `unit`) and either a relative `tolerance` or a bound (`at_most`,
`at_least`). Parameters are never fitted to a case: a miss points at a missing mechanism.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from . import runner
from . import scenario as scenario_mod
from .errors import ScenarioError

tomllib = scenario_mod.tomllib

UNITS = {"ratio": 1.0, "MiB/s": 1048576.0, "MB/s": 1e6, "GB/s": 1e9, "s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0, "min": 60e9, "IOPS": 1.0, "count": 1.0, "bytes": 1.0,
         "MB": 1e6}
METRIC_UNITS = {"MB/s": "bytes_per_s", "GB/s": "bytes_per_s", "s": "ns", "ms": "ns", "us": "ns", "ns": "ns", "min": "ns"}


def cases_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "cases"


@dataclass
class Verdict:
    case: str
    figure: str
    reported: str
    predicted: float
    allowed: str
    ok: bool
    unit: str


def _metric(results: dict[str, Any], path: str) -> float:
    cur: Any = results
    for part in path.split("."):
        if isinstance(cur, list):
            cur = cur[int(part)]
        else:
            cur = cur[part]
    return float(cur)


def available() -> list[str]:
    d = cases_dir()
    return sorted(p.parent.name for p in d.glob("*/case.toml")) if d.is_dir() else []


def run_case(name: str, on_progress: Optional[runner.Progress] = None) -> list[Verdict]:
    folder = cases_dir() / name
    if not (folder / "case.toml").is_file():
        raise ScenarioError(f"case: {name!r} — allowed: one of {', '.join(available()) or 'none'}")
    spec = tomllib.loads((folder / "case.toml").read_text(encoding="utf-8"))
    cache: dict[str, dict[str, Any]] = {}
    out = []
    for i, fig in enumerate(spec.get("figure", [])):
        path = f"{name}/case.toml figure[{i}]"
        scen = fig["scenario"]
        if scen not in cache:
            cache[scen] = runner.run(scenario_mod.load(folder / scen), on_progress=on_progress)
        unit = fig.get("unit", "count")
        if unit not in UNITS:
            raise ScenarioError(f"{path}.unit: {unit!r} — allowed: {', '.join(UNITS)}")
        predicted = _metric(cache[scen], fig["metric"]) / UNITS[unit]
        if "ratio_to" in fig:
            # A ratio between two runs of the case (e.g. before/after a release change).
            other = fig["ratio_to"]
            if other not in cache:
                cache[other] = runner.run(scenario_mod.load(folder / other), on_progress=on_progress)
            predicted = _metric(cache[scen], fig["metric"]) / _metric(cache[other], fig["metric"])
        reported = fig.get("reported")
        if "tolerance" in fig:
            tol = float(fig["tolerance"])
            ok = abs(predicted - reported) <= tol * abs(reported)
            allowed = f"±{tol * 100:.0f} %"
        elif "between" in fig:
            lo, hi = (float(x) for x in fig["between"])
            ok = lo <= predicted <= hi
            allowed = f"{lo:g}–{hi:g}"
        elif "at_most" in fig:
            ok = predicted <= float(fig["at_most"])
            allowed = f"≤ {fig['at_most']}"
        elif "at_least" in fig:
            ok = predicted >= float(fig["at_least"])
            allowed = f"≥ {fig['at_least']}"
        else:
            raise ScenarioError(f"{path}: no tolerance — allowed: tolerance, between, at_most or at_least")
        shown = reported if isinstance(reported, str) else f"{reported:g}"
        out.append(Verdict(name, fig["name"], shown, predicted, allowed, ok, unit))
    return out

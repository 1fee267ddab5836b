"""ziosim: a deterministic discrete-event simulator of the ZFS I/O pipeline.

    >>> import ziosim
    >>> results = ziosim.run_scenario("scenarios/one-disk-qd1.toml", stop="10s")  # doctest: +SKIP
    >>> results["workloads"][0]["latency_ns"]["p99"]                              # doctest: +SKIP

A scenario (TOML, `docs/scenario.md`) is validated and normalised in Python
(`ziosim.scenario`), run in one call into the compiled core (`ziosim._core`), and comes
back as one results document (`docs/internals.md`).
"""

from __future__ import annotations

import os
from typing import Any

from .errors import InternalError, ScenarioError

try:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _dist_version

    try:
        __version__ = _dist_version("ziosim")
    except PackageNotFoundError:
        __version__ = "0.1.0+source"
except ImportError:  # pragma: no cover - Python < 3.8 is not supported anyway
    __version__ = "0.1.0+source"

__all__ = ["__version__", "ScenarioError", "InternalError", "run_scenario"]


def run_scenario(
    path: str | os.PathLike[str],
    *,
    seed: int | None = None,
    stop: str | None = None,
) -> dict[str, Any]:
    """Load, validate and run a scenario file; return the results document.

    `seed` and `stop` override the scenario's own (`stop` is a duration such as "10s").
    Raises `ScenarioError` for a malformed scenario and `InternalError` for a bug.
    """
    from . import runner, scenario

    sc = scenario.load(path, seed=seed, stop=stop)
    return runner.run(sc)

"""``ziosim sweep``: run a grid of scenario variants and compare them.

* :mod:`ziosim.sweep.spec` — the sweep file (a base scenario, fixed settings, axes) and
  ``--set``; every point validated by the normal scenario validation before anything runs.
* :mod:`ziosim.sweep.execute` — resumable execution on the ``local`` (process pool) or
  ``ray`` backend, each point's outputs in ``OUT/points/<id>/``.
* :mod:`ziosim.sweep.table` — ``OUT/sweep.parquet``, one row per point × workload.
* :mod:`ziosim.report.compare` — the text comparison view.

docs/sweep.md is the user's guide.
"""

from __future__ import annotations

from .execute import BACKENDS, SweepResult, read_manifest, read_table, run_sweep
from .spec import Axis, Point, Sweep, load

__all__ = ["Axis", "Point", "Sweep", "load", "run_sweep", "SweepResult", "read_manifest", "read_table", "BACKENDS"]

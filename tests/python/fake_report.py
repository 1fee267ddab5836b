"""A stand-in for `ziosim.report` (written by the report engineer), for CLI tests.

It has the calls the CLI makes, with the signatures of the real one (branch pyreport):
`render_text(results, meta, views=DEFAULT_VIEWS)` returns the text report (and raises
ValueError for an unknown view), and `write_outputs(outdir, results,
meta)` writes summary.json atomically (a temporary directory renamed into place), so an
interrupted run leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

VIEWS = ("status", "iostat", "latency")
DEFAULT_VIEWS = ("status", "latency")
CALLS: list = []


def check_views(views, release):
    unknown = [v for v in views if v not in VIEWS]
    if unknown:
        raise ValueError(f"views: unknown view {unknown[0]!r}; known: {', '.join(VIEWS)}")


def render_text(results, meta, views=DEFAULT_VIEWS):
    CALLS.append(("render_text", views))
    unknown = [v for v in views if v not in VIEWS]
    if unknown:
        raise ValueError(f"views: unknown view {unknown[0]!r}; known: {', '.join(VIEWS)}")
    lines = [
        f"ziosim {meta['version']}  {meta['name']}  release {meta['release']}  seed {meta['seed']}  "
        f"scenario {meta['scenario_hash']}"
    ]
    for v in views:
        lines.append(f"[{v}]")
        if v == "latency":
            for w in results["workloads"]:
                lines.append(f"  {w['name']}: p99 {w['latency_ns']['p99']} ns")
    return "\n".join(lines) + "\n"


def summary(results, meta):
    return {
        "schema_version": 1,
        "ziosim_version": meta["version"],
        "release": meta["release"],
        "seed": meta["seed"],
        "scenario_hash": meta["scenario_hash"],
        "digest": results["digest"],
        "workloads": [{"name": w["name"], "latency_ns": w["latency_ns"]} for w in results["workloads"]],
    }


def overfull_vdevs(results):
    """The real one lists the data vdevs the run's writes outgrew; the fake results
    outgrow none."""
    return []


def zfs_nicebytes(n):
    return f"{n}B"


def write_outputs(outdir, results, meta, plots=True):
    CALLS.append(("write_outputs", str(outdir)) if plots else ("write_outputs", str(outdir), "no plots"))
    outdir = Path(outdir)
    outdir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=outdir.parent))
    (tmp / "summary.json").write_text(json.dumps(summary(results, meta), indent=2, sort_keys=True) + "\n")
    if outdir.exists():
        shutil.rmtree(outdir)
    os.replace(tmp, outdir)

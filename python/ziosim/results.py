"""The results document from the core's hand-over, without a second copy of its bulk.

``Simulation.take_results()`` (docs/internals.md, "Memory") gives the document as JSON
with two parts left compact — ``series.leaves`` empty, each status snapshot's ``tree`` as
indices into ``status.rows`` — and the leaf series as one buffer per column (native u64,
one row per report interval and leaf, then per interval and workload: the row order of
series.parquet). ``assemble`` makes the same document ``json.loads(results_json())``
gives, for every reader of it:

* ``series.leaves[i][key]`` (or ``[group][class]``) is a read-only ``memoryview`` of
  Python ints, a strided view into the column's buffer: it indexes, slices, iterates,
  sums and compares like the list it replaces, at 8 bytes a number instead of ~36.
  ``series.leaves`` is a ``LeafSeries`` (a list) that also keeps the column buffers, so
  series.parquet is written from them without a copy.
* each snapshot's ``tree`` is a list of row dicts shared between snapshots (a row that
  did not change is one dict): readers copy a row before they change it.

JSON writers that may meet the views (``scenario.canonical_json``, the determinism check)
turn them into lists with ``json_default``.
"""

from __future__ import annotations

import json
from array import array
from typing import Any, Iterable

__all__ = ["LeafSeries", "assemble", "json_default"]


class LeafSeries(list):
    """``series.leaves``: per leaf a dict of views; ``columns`` maps each column name of
    the core (``key`` or ``group/class``) to its whole buffer, ``stride`` rows per
    interval (leaves, then workloads)."""

    columns: dict[str, memoryview]
    stride: int


def assemble(doc: str, columns: Iterable[tuple[str, bytes]]) -> dict[str, Any]:
    """The results document from ``take_results()``'s two parts."""
    results = json.loads(doc)
    n_leaves = len(results.get("leaves") or [])
    stride = n_leaves + len(results.get("workloads") or [])
    whole = {name: memoryview(buf).cast("Q") for name, buf in columns}
    leaves = LeafSeries()
    for i in range(n_leaves):
        s: dict[str, Any] = {}
        for name, col in whole.items():
            group, _, cls = name.partition("/")
            view = col[i::stride]
            if cls:
                s.setdefault(group, {})[cls] = view
            else:
                s[name] = view
        leaves.append(s)
    leaves.columns, leaves.stride = whole, stride
    results["series"]["leaves"] = leaves
    status = results.get("status")
    if status and "rows" in status:
        rows = status.pop("rows")
        for snap in status.get("snapshots") or []:
            snap["tree"] = [rows[i] for i in snap["tree"]]
    return results


def json_default(obj: Any) -> Any:
    """``json.dumps(default=...)``: a series view as the list it stands for."""
    if isinstance(obj, (memoryview, array)):
        return obj.tolist()
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")

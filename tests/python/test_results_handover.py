"""`Simulation.take_results` + `ziosim.results.assemble` give the document `results_json` gives.

The hand-over exists for memory (docs/internals.md, "Memory of the results"); nothing a
reader sees may change: the same JSON once the series views are lists, the same
series.parquet bytes from the shared buffers as from plain lists.
"""

from __future__ import annotations

import io
import json

import pytest

from conftest import SCENARIOS

pytestmark = pytest.mark.needs_core

# default: workloads (null leaf metrics in their rows); resilver-straggler: actions (status
# snapshots), a disk added mid-run (a widened series).
CASES = [("default", "2m"), ("resilver-straggler", "scan-done or 30m")]


def _sim(sc):
    from ziosim import _native

    sim = _native.core().Simulation(sc.config_json())
    while not sim.step_events(1_000_000):
        pass
    return sim


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def both(request):
    from ziosim import results as results_mod
    from ziosim.scenario import load

    name, stop = request.param
    sc = load(SCENARIOS / f"{name}.toml", stop=stop)
    plain = json.loads(_sim(sc).results_json())
    sim = _sim(sc)
    doc, columns = sim.take_results()
    return sc, plain, results_mod.assemble(doc, columns), sim


def test_assembled_document_is_the_json_document(both):
    from ziosim.scenario import canonical_json

    _, plain, assembled, _ = both
    assert plain["series"]["t_ns"], "the case has report intervals"
    assert canonical_json(assembled) == canonical_json(plain)
    leaf = assembled["series"]["leaves"][0]
    assert isinstance(leaf["busy_ns"], memoryview)
    assert leaf["busy_ns"].tolist() == plain["series"]["leaves"][0]["busy_ns"]
    assert leaf["queued"]["scrub"].tolist() == plain["series"]["leaves"][0]["queued"]["scrub"]


def test_status_rows_are_shared_and_equal(both):
    _, plain, assembled, _ = both
    snaps = (assembled.get("status") or {}).get("snapshots") or []
    if not snaps:
        pytest.skip("no actions in this case")
    assert "rows" not in assembled["status"]
    assert [s["tree"] for s in snaps] == [s["tree"] for s in plain["status"]["snapshots"]]
    assert any(a is b for a, b in zip(snaps[0]["tree"], snaps[-1]["tree"])), "unchanged rows are one dict"


def test_results_are_taken_once(both):
    *_, sim = both
    with pytest.raises(RuntimeError, match="already taken"):
        sim.take_results()
    with pytest.raises(RuntimeError, match="already taken"):
        sim.results_json()


def test_series_parquet_from_buffers_is_byte_identical(both):
    import pyarrow.parquet as pq

    from ziosim import runner
    from ziosim.report.files import series_table

    sc, plain, assembled, _ = both
    meta = runner.meta(sc)
    fast, slow = series_table(assembled, meta), series_table(plain, meta)
    assert fast.equals(slow)

    def parquet(table) -> bytes:
        out = io.BytesIO()
        pq.write_table(table, out)
        return out.getvalue()

    assert parquet(fast) == parquet(slow)

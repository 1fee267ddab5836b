"""scan.parquet: one row per `zpool status` snapshot (and per rebuilding vdev), with the
counters the snapshot carries and the rates, % done and ETA the release's `zpool status`
computes — checked against the text `zpool status` prints for the same snapshot."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ziosim.report import write_outputs
from ziosim.report.files import SCAN_COLUMNS, scan_table
from ziosim.report.nicenum import zfs_nicebytes
from ziosim.report.status import zpool_status

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SNAPS = json.loads((FIXTURES / "status_snapshots.json").read_text())
EPOCH = SNAPS["epoch_s"]
COLUMNS = [
    "t_ns", "time_s", "kind", "vdev", "func", "state", "phase", "paused", "start_s", "end_s",
    "to_examine_bytes", "examined_bytes", "issued_bytes", "skipped_bytes", "processed_bytes", "errors",
    "pass_examined_bytes", "pass_issued_bytes", "scan_rate_bytes_per_s", "issue_rate_bytes_per_s",
    "fraction_done", "eta_s", "eta",
]


def _meta(release):
    return {"release": release, "name": "fixture", "seed": 0, "scenario_hash": "0" * 16, "version": "test"}


def _results(*snaps):
    return {"status": {"epoch_s": EPOCH, "snapshots": [copy.deepcopy(s) for s in snaps]}}


def test_columns_are_documented_and_typed():
    assert [c for c, _ in SCAN_COLUMNS] == COLUMNS
    doc = (Path(__file__).resolve().parents[2] / "docs" / "output.md").read_text(encoding="utf-8")
    for c in COLUMNS:
        assert f"`{c}`" in doc, c


def test_no_snapshots_no_table():
    assert scan_table({"status": None}, _meta("zfs-2.2")) is None
    assert scan_table({}, _meta("zfs-2.2")) is None


def test_resilver_row_matches_what_zpool_status_prints():
    snap = SNAPS["resilver"]
    t = scan_table(_results(snap), _meta("zfs-2.2"))
    assert t.column_names == COLUMNS
    (row,) = t.to_pylist()
    text = zpool_status(snap, "zfs-2.2", "tank", EPOCH)
    assert row["kind"] == "scan" and row["func"] == "resilver" and row["state"] == "scanning"
    assert row["time_s"] == EPOCH + snap["t_ns"] // 10**9
    assert row["examined_bytes"] == snap["scan"]["examined"] and row["issued_bytes"] == snap["scan"]["issued"]
    assert f"scanned at {zfs_nicebytes(row['scan_rate_bytes_per_s'])}/s" in text
    assert f"issued at {zfs_nicebytes(row['issue_rate_bytes_per_s'])}/s" in text
    assert f"{100 * row['fraction_done']:.2f}% done, {row['eta']} to go" in text
    h, m, s = (int(x) for x in row["eta"].split(":"))
    assert row["eta_s"] == 3600 * h + 60 * m + s


def test_legacy_release_has_no_issue_rate_and_its_own_eta():
    snap = SNAPS["resilver"]
    (row,) = scan_table(_results(snap), _meta("zfs-0.6.5")).to_pylist()
    text = zpool_status(snap, "zfs-0.6.5", "tank", EPOCH)
    assert row["issue_rate_bytes_per_s"] is None
    assert f"{row['eta']} to go" in text and row["eta"].endswith("m")


def test_paused_scrub_has_no_eta():
    (row,) = scan_table(_results(SNAPS["paused_scrub"]), _meta("zfs-0.7")).to_pylist()
    assert row["paused"] is True and row["phase"] == "paused"
    assert row["eta"] is None and row["eta_s"] is None


def test_rebuild_rows_per_vdev_match_zpool_status():
    snap = SNAPS["rebuild"]
    rows = scan_table(_results(snap), _meta("zfs-2.1")).to_pylist()
    rebuilds = [r for r in rows if r["kind"] == "rebuild"]
    assert [r["vdev"] for r in rebuilds] == [v["vdev"] for v in snap["rebuild"]]
    text = zpool_status(snap, "zfs-2.1", "tank", EPOCH)
    r = rebuilds[0]
    assert f"issued {zfs_nicebytes(r['issue_rate_bytes_per_s'])}/s" in text
    assert f"{r['eta']} to go" in text


def test_written_beside_the_other_files(tmp_path):
    paths = write_outputs(tmp_path / "o", _results(SNAPS["resilver"]) | _minimal_results(), _meta("zfs-2.2"))
    assert "scan.parquet" in [p.name for p in paths]
    t = pq.read_table(tmp_path / "o" / "scan.parquet")
    assert t.schema.metadata[b"ziosim.release"] == b"zfs-2.2"


def _minimal_results():
    return {"series": {"interval_ns": 10**10, "t_ns": [], "leaves": [], "workloads": []}, "leaves": [],
            "workloads": [], "classes": {}, "pool": {"name": "tank"}}


@pytest.mark.needs_core
def test_real_scrub_series(tmp_path, monkeypatch):
    """The bundled default scenario (a zfs-2.2 scrub from 60 s): one row per snapshot, the
    sorted scan's phases in order, issued bytes never decreasing, ETAs as printed."""
    monkeypatch.delitem(sys.modules, "ziosim._core", raising=False)
    from ziosim import runner
    from ziosim import scenario as scenario_mod

    sc = scenario_mod.load(Path(__file__).resolve().parents[2] / "scenarios" / "default.toml")
    results = runner.run(sc)
    write_outputs(tmp_path / "o", results, runner.meta(sc))
    rows = pq.read_table(tmp_path / "o" / "scan.parquet").to_pylist()
    snaps = results["status"]["snapshots"]
    assert len(rows) == len(snaps) and [r["t_ns"] for r in rows] == [s["t_ns"] for s in snaps]
    assert rows[0]["func"] == "none" and rows[-1]["func"] == "scrub"
    phases = [r["phase"] for r in rows if r["state"] == "scanning"]
    assert phases[0] == "traverse" and phases[-1] == "issue"
    assert phases == sorted(phases, key=["traverse", "issue"].index)  # phase A, then B
    issued = [r["issued_bytes"] for r in rows if r["issued_bytes"] is not None]
    assert issued == sorted(issued) and issued[-1] > 0
    for r, s in zip(rows, snaps):
        if r["eta_s"] is not None:
            text = zpool_status(s, "zfs-2.2", "tank", results["status"]["epoch_s"])
            assert f"{r['eta']} to go" in text

"""`ziosim sweep` / `ziosim compare`: sweep files, validation, resumable execution, the
table and the comparison view.

Validation and interruption run in-process against the fake core (`--jobs 1`); the
end-to-end, determinism and snapshot tests run the compiled core (and a spawned pool).
Snapshots: ZIOSIM_UPDATE_SNAPSHOTS=1 rewrites them; review the diff.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from ziosim.cli import app
from ziosim.errors import ScenarioError
from ziosim.report import compare
from ziosim.sweep import execute, spec
from ziosim.sweep.table import POINT_COLUMNS, WORKLOAD_COLUMNS

from conftest import ROOT, SCENARIOS

ENV = {"NO_COLOR": "1", "COLUMNS": "100"}
SNAPSHOTS = Path(__file__).parent / "snapshots"
QD1 = SCENARIOS / "one-disk-qd1.toml"


def _runner():
    try:
        return CliRunner(mix_stderr=False)
    except TypeError:
        return CliRunner()


def invoke(*args):
    return _runner().invoke(app, [str(a) for a in args], env=ENV)


def write_sweep(tmp_path: Path, body: str, scenario: Path = QD1, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(f'[sweep]\nscenario = "{scenario.as_posix()}"\n' + body, encoding="utf-8")
    return p


TWO_BY_TWO = """
[sweep.set]
scenario.stop = "2s"

[[sweep.axis]]
field = "workload[0].threads"
name = "threads"
values = [1, 4]

[[sweep.axis]]
field = "scenario.seed"
values = [1, 2]
"""


# ----------------------------------------------------------------------------- paths and values


def test_paths_parse_and_set():
    assert spec.parse_path("workload[0].threads", "x") == ["workload", 0, "threads"]
    assert spec.parse_path("workload[users].rate", "x") == ["workload", "=users", "rate"]
    doc = {"zfs": {"release": "zfs-2.2"}, "workload": [{"name": "a"}, {"name": "b"}]}
    spec.set_path(doc, "zfs.tunables.zfs_scrub_delay", 4, "x")  # creates the missing table
    spec.set_path(doc, "workload[b].threads", 8, "x")
    spec.set_path(doc, "workload[0].threads", 2, "x")
    assert doc["zfs"]["tunables"] == {"zfs_scrub_delay": 4}
    assert doc["workload"] == [{"name": "a", "threads": 2}, {"name": "b", "threads": 8}]
    for bad in ("a..b", ".a", "a[]", "[0]", "a."):
        with pytest.raises(ScenarioError, match="not a path"):
            spec.parse_path(bad, "sweep.axis[0].field")


def test_set_option_values_are_toml_or_bare_words():
    assert spec.parse_set_option("zfs.sync=standard,disabled") == ("zfs.sync", ["standard", "disabled"])
    assert spec.parse_set_option("zfs.tunables.zfs_scrub_delay=0,4") == ("zfs.tunables.zfs_scrub_delay", [0, 4])
    assert spec.parse_set_option('pool.log=[],[{device="intel-s3700", count=2}]') == (
        "pool.log", [[], [{"device": "intel-s3700", "count": 2}]])
    assert spec.parse_set_option("x=true,1.5,\"a,b\"") == ("x", [True, 1.5, "a,b"])


def test_labels():
    assert [spec.value_label(v) for v in ([], [{"device": "intel-s3700"}], 4, 0.5, True, "standard")] == [
        "none", "device=intel-s3700", "4", "0.5", "true", "standard"]


# ----------------------------------------------------------------------------- validation (fake core)

BAD_SWEEPS = {
    "no-scenario": ("[sweep]\n", "sweep.scenario: missing — allowed: the base scenario's path"),
    "unknown-key": (
        f'[sweep]\nscenario = "{QD1.as_posix()}"\naxes = []\n',
        "sweep.axes: unknown key — allowed in sweep: name, scenario, set, axis, baseline, metrics",
    ),
    "empty-values": (
        f'[sweep]\nscenario = "{QD1.as_posix()}"\n[[sweep.axis]]\nfield = "zfs.sync"\nvalues = []\n',
        "sweep.axis[0].values: [] — allowed: a non-empty array of values for zfs.sync",
    ),
    "labels-length": (
        f'[sweep]\nscenario = "{QD1.as_posix()}"\n[[sweep.axis]]\nfield = "zfs.sync"\n'
        'values = ["standard", "disabled"]\nlabels = ["std"]\n',
        'sweep.axis[0].labels: ["std"] — allowed: an array of 2 non-empty strings, one per value',
    ),
    "bad-path": (
        f'[sweep]\nscenario = "{QD1.as_posix()}"\n[[sweep.axis]]\nfield = "zfs..sync"\nvalues = [1]\n',
        'sweep.axis[0].field: "zfs..sync" — not a path',
    ),
    "same-field-twice": (
        f'[sweep]\nscenario = "{QD1.as_posix()}"\n[[sweep.axis]]\nfield = "zfs.sync"\nvalues = ["always"]\n'
        '[[sweep.axis]]\nfield = "zfs.sync"\nvalues = ["disabled"]\n',
        'sweep.axis[1].field: "zfs.sync" — already swept by sweep.axis[0]',
    ),
    "point-out-of-range": (
        f'[sweep]\nscenario = "{QD1.as_posix()}"\n[[sweep.axis]]\nfield = "zfs.tunables.zfs_vdev_max_active"\n'
        "values = [10, 0]\n",
        "sweep point 2 (zfs.tunables.zfs_vdev_max_active=0): zfs.tunables.zfs_vdev_max_active: 0 — out of range; "
        "allowed: 1..100000 count",
    ),
    "same-run-twice": (
        f'[sweep]\nscenario = "{QD1.as_posix()}"\n[[sweep.axis]]\nfield = "pool.recordsize"\n'
        'values = ["4K", 4096]\n',
        "sweep point 2 (pool.recordsize=4096): the same run as sweep point 1 (pool.recordsize=4K)",
    ),
    "no-such-element": (
        f'[sweep]\nscenario = "{QD1.as_posix()}"\n[[sweep.axis]]\nfield = "workload[2].threads"\nvalues = [1]\n',
        "sweep point 1 (workload[2].threads=1): workload[2].threads — workload has 1 element(s); allowed: index 0..0",
    ),
    "baseline-not-an-axis": (
        f'[sweep]\nscenario = "{QD1.as_posix()}"\nbaseline = {{ "zfs.sync" = "standard" }}\n'
        '[[sweep.axis]]\nfield = "scenario.seed"\nvalues = [1, 2]\n',
        "sweep.baseline: zfs.sync — not an axis of this sweep; allowed: scenario.seed",
    ),
    "missing-base": ('[sweep]\nscenario = "nope.toml"\n', 'sweep.scenario: "nope.toml" — no such file'),
    "scenario-in-sweep-file": (
        f'[sweep]\nscenario = "{QD1.as_posix()}"\n[zfs]\nrelease = "zfs-2.2"\n',
        "zfs: not allowed in a sweep file — allowed: one [sweep] table",
    ),
}


@pytest.mark.usefixtures("fake_core")
@pytest.mark.parametrize("case", sorted(BAD_SWEEPS))
def test_bad_sweep_files_exit_2_with_one_error_line(case, tmp_path):
    body, want = BAD_SWEEPS[case]
    p = tmp_path / "bad.toml"
    p.write_text(body, encoding="utf-8")
    out = tmp_path / "out"
    r = invoke("sweep", p, "--out", out, "--jobs", "1")
    assert r.exit_code == 2, r.stdout + r.stderr
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert lines[0].startswith("error: " + want), lines
    assert len(lines) == 1 or lines[1].startswith("hint: ")
    assert not out.exists()  # nothing runs before every point is valid


@pytest.mark.usefixtures("fake_core")
def test_misspelt_tunable_in_a_point_gets_a_hint(tmp_path):
    r = invoke("sweep", QD1, "--set", "zfs.tunables.zfs_vdev_max_activ=1,2", "--out", tmp_path / "o")
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [
        "error: sweep point 1 (zfs.tunables.zfs_vdev_max_activ=1): zfs.tunables.zfs_vdev_max_activ: unknown tunable "
        "— allowed: the names `ziosim tunables --release zfs-2.2` lists",
        "hint: did you mean zfs_vdev_max_active?",
    ]


@pytest.mark.usefixtures("fake_core")
@pytest.mark.parametrize(
    "args, want",
    [
        (["--set", "zfs.sync"], "error: --set: \"zfs.sync\" — allowed: field=value[,value…]"),
        (["--set", "zfs.sync=standard", "--baseline", "zfs.sync=always"],
         'error: --baseline: zfs.sync="always" — not a value of that axis; allowed: standard'),
        (["--metrics", "p99,p98"], 'error: --metrics: "p98" — unknown metric; allowed: all, '),
        (["--backend", "slurm"], 'error: --backend: "slurm" — allowed: local, ray'),
    ],
)
def test_bad_options_exit_2(args, want, tmp_path):
    r = invoke("sweep", QD1, "--out", tmp_path / "o", *args)
    assert r.exit_code == 2
    assert r.stderr.startswith(want), r.stderr


@pytest.mark.usefixtures("fake_core")
def test_ray_backend_without_ray_is_one_error_with_a_hint(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray → ImportError
    r = invoke("sweep", QD1, "--backend", "ray", "--out", tmp_path / "o")
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [
        "error: --backend: ray — Ray is not installed; allowed: local, or ray after installing it",
        "hint: pip install 'ziosim[ray]' (or pip install ray)",
    ]
    assert not (tmp_path / "o").exists()


@pytest.mark.usefixtures("fake_core")
def test_dry_run_lists_points_in_grid_order(tmp_path):
    p = write_sweep(tmp_path, TWO_BY_TWO)
    r = invoke("sweep", p, "--dry-run", "--out", tmp_path / "o")
    assert r.exit_code == 0, r.stderr
    rows = [ln.split("  ") for ln in r.stdout.splitlines()]
    assert [(x[0], x[2]) for x in rows] == [
        ("1", "threads=1 scenario.seed=1"), ("2", "threads=1 scenario.seed=2"),
        ("3", "threads=4 scenario.seed=1"), ("4", "threads=4 scenario.seed=2")]
    assert len({x[1] for x in rows}) == 4  # distinct ids
    assert not (tmp_path / "o").exists()


@pytest.mark.usefixtures("fake_core")
def test_set_replaces_the_files_axis_and_sweep_set_merges(tmp_path):
    p = write_sweep(tmp_path, TWO_BY_TWO)
    sw = spec.load(p, sets=["scenario.seed=7"])
    assert [a.name for a in sw.axes] == ["threads", "scenario.seed"]
    assert [pt.scenario.seed for pt in sw.points] == [7, 7]
    assert all(pt.scenario.config["stop_ns"] == 2_000_000_000 for pt in sw.points)
    assert sw.points[0].scenario.config["workloads"][0]["threads"] == 1


# ----------------------------------------------------------------------------- interruption (fake core)


@pytest.mark.usefixtures("fake_core")
def test_interrupt_keeps_finished_points_and_resume_skips_them(tmp_path, monkeypatch):
    p = write_sweep(tmp_path, TWO_BY_TWO)
    out = tmp_path / "o"
    real = execute.run_point
    calls = []

    def flaky(task):
        calls.append(task["index"])
        if task["index"] == 3:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(execute, "run_point", flaky)
    r = invoke("sweep", p, "--out", out, "--jobs", "1")
    assert r.exit_code == 130
    assert "interrupted; finished points are kept" in r.stderr
    points = sorted(x.name for x in (out / "points").iterdir())
    assert len(points) == 2 and not any(n.startswith(".") for n in points)  # no partial point
    assert not (out / "sweep.parquet").exists()
    r = invoke("compare", out)
    assert r.exit_code == 2 and "the sweep is not complete (2 of 4 points)" in r.stderr
    (out / "points" / ".deadbeef.partial-0123").mkdir()  # what a killed worker leaves
    monkeypatch.setattr(execute, "run_point", real)
    calls.clear()
    monkeypatch.setattr(execute, "run_point", lambda t: (calls.append(t["index"]), real(t))[1])
    r = invoke("sweep", p, "--out", out, "--jobs", "1")
    assert r.exit_code == 0, r.stderr
    assert calls == [3, 4]  # only the unfinished points ran
    assert "4 points (2 run, 2 reused)" in r.stderr
    assert not (out / "points" / ".deadbeef.partial-0123").exists()


@pytest.mark.usefixtures("fake_core")
def test_a_failed_point_is_reported_and_no_table_written(tmp_path, monkeypatch):
    import fake_core

    p = write_sweep(tmp_path, TWO_BY_TWO)
    monkeypatch.setattr(fake_core, "PANIC", True)
    r = invoke("sweep", p, "--out", tmp_path / "o", "--jobs", "1")
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    assert lines[0].startswith("error: point 1 (threads=1 scenario.seed=1): ")
    assert lines[-1].startswith("4 of 4 points failed; no sweep.parquet written (reproduce: ziosim sweep ")
    assert not (tmp_path / "o" / "sweep.parquet").exists()


# ----------------------------------------------------------------------------- the real core

needs_core = pytest.mark.needs_core


@pytest.fixture
def real_core(monkeypatch):
    monkeypatch.delitem(sys.modules, "ziosim._core", raising=False)


@needs_core
def test_two_by_two_end_to_end_and_resume(tmp_path, real_core):
    p = write_sweep(tmp_path, TWO_BY_TWO)
    out = tmp_path / "o"
    r = invoke("sweep", p, "--out", out, "--jobs", "1")
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines() == [f"wrote {out} — 4 points (4 run, 0 reused), 4 rows in sweep.parquet"]
    man = json.loads((out / "sweep.json").read_text())
    ids = [pt["id"] for pt in man["points"]]
    for i in ids:
        assert {f.name for f in (out / "points" / i).iterdir()} == {
            "summary.json", "run.json", "series.parquet", "vdevs.parquet", "histograms.parquet", "report.html",
            "metrics.json"}
        assert json.loads((out / "points" / i / "summary.json").read_text())["scenario_hash"] == i
    t = pq.read_table(out / "sweep.parquet")
    cols = t.column_names
    assert cols[:4] == ["point", "point_id", "threads", "scenario.seed"]
    for c, _ in WORKLOAD_COLUMNS + POINT_COLUMNS:
        assert c in cols
    rows = t.to_pylist()
    assert [(x["point"], x["threads"], x["scenario.seed"], x["seed"]) for x in rows] == [
        (1, 1, 1, 1), (2, 1, 2, 2), (3, 4, 1, 1), (4, 4, 2, 2)]
    assert [x["point_id"] for x in rows] == ids
    # One disk, 4K random reads: four threads queue at the disk and do more ops/s at a
    # higher latency (NCQ reorders); both runs of each setting agree within 25 %.
    one = [x for x in rows if x["threads"] == 1]
    four = [x for x in rows if x["threads"] == 4]
    assert all(f["ops_per_s"] > 1.2 * o["ops_per_s"] for o, f in zip(one, four))
    assert all(f["latency_ns_p50"] > o["latency_ns_p50"] for o, f in zip(one, four))
    assert rows[0]["digest"] != rows[1]["digest"]  # seeds differ
    assert all(x["scan_func"] is None and x["workload"] == "qd1" for x in rows)
    # The comparison view: one row per point, ratios against point 1.
    lines = r.stdout.splitlines()
    assert lines[1] == "baseline: point 1 (threads=1 scenario.seed=1); ratios are point ÷ baseline"
    body = [ln for ln in lines if ln.strip()[:1].isdigit()]
    assert [ln.split()[:3] for ln in body] == [["1", "1", "1"], ["2", "1", "2"], ["3", "4", "1"], ["4", "4", "2"]]
    assert body[0].split()[4] == "×1.00"
    # Resume: nothing runs again, the point directories are untouched, the table identical.
    before = {i: (out / "points" / i / "summary.json").stat().st_mtime_ns for i in ids}
    table = (out / "sweep.parquet").read_bytes()
    r2 = invoke("sweep", p, "--out", out, "--jobs", "1")
    assert r2.exit_code == 0
    assert "4 points (0 run, 4 reused)" in r2.stderr
    assert r2.stdout == r.stdout
    assert {i: (out / "points" / i / "summary.json").stat().st_mtime_ns for i in ids} == before
    assert (out / "sweep.parquet").read_bytes() == table
    # A point of another ziosim version is stale: it runs again.
    m = out / "points" / ids[2] / "metrics.json"
    m.write_text(m.read_text().replace('"ziosim_version": "', '"ziosim_version": "old-'))
    r3 = invoke("sweep", p, "--out", out, "--jobs", "1")
    assert "4 points (1 run, 3 reused)" in r3.stderr
    assert (out / "sweep.parquet").read_bytes() == table
    # compare re-prints the same view.
    r4 = invoke("compare", out)
    assert r4.exit_code == 0 and r4.stdout == r.stdout


@needs_core
def test_table_is_deterministic_across_jobs_and_runs(tmp_path, real_core):
    p = write_sweep(tmp_path, TWO_BY_TWO)
    a = invoke("sweep", p, "--out", tmp_path / "a", "--jobs", "1", "-q")
    b = invoke("sweep", p, "--out", tmp_path / "b", "--jobs", "2", "-q")  # a spawned process pool
    assert a.exit_code == 0 and b.exit_code == 0, a.stderr + b.stderr
    assert a.stderr == b.stderr == ""
    assert (tmp_path / "a" / "sweep.parquet").read_bytes() == (tmp_path / "b" / "sweep.parquet").read_bytes()
    assert a.stdout == b.stdout
    for pt in json.loads((tmp_path / "a" / "sweep.json").read_text())["points"]:
        sa = (tmp_path / "a" / "points" / pt["id"] / "summary.json").read_bytes()
        assert sa == (tmp_path / "b" / "points" / pt["id"] / "summary.json").read_bytes()


# ----------------------------------------------------------------------------- the view

VIEW_SNAPSHOTS = {
    "sweep-nfs-sync.txt": ["sweep", "scenarios/sweeps/nfs-sync.toml"],
    "sweep-scrub-delay.txt": ["sweep", "scenarios/sweeps/scrub-delay.toml"],
    "sweep-vm-sync.txt": ["sweep", "scenarios/sweeps/vm-sync.toml"],
    "sweep-draid-width.txt": ["sweep", "scenarios/sweeps/draid-width.toml"],
}


@needs_core
@pytest.mark.parametrize("snapshot", sorted(VIEW_SNAPSHOTS))
def test_sweep_view_snapshot(snapshot, tmp_path, monkeypatch, real_core):
    monkeypatch.chdir(ROOT)
    args = VIEW_SNAPSHOTS[snapshot]
    r = invoke(*args, "--out", tmp_path / "o", "-q")
    text = f"$ NO_COLOR=1 ziosim {' '.join(args)}\n{r.stdout}--- stderr\n{r.stderr}--- exit {r.exit_code}\n"
    path = SNAPSHOTS / snapshot
    if os.environ.get("ZIOSIM_UPDATE_SNAPSHOTS"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
    again = invoke("compare", tmp_path / "o")
    assert again.stdout == r.stdout


@needs_core
def test_sync_slog_view_shows_throughput_latency_and_data_at_risk(tmp_path, monkeypatch, real_core):
    """Issue 4: a sweep over sync × SLOG puts throughput, latency and data at risk side by
    side; with --baseline zfs.sync=standard each point is compared with its own SLOG."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "o"
    r = invoke("sweep", "scenarios/sweeps/nfs-sync.toml", "--out", out, "-q")
    assert r.exit_code == 0, r.stderr
    header = next(ln for ln in r.stdout.splitlines() if ln.lstrip().startswith("#"))
    for col in ("OPS/S", "BW", "P99", "ELAPSED", "ZIL COMMIT", "AT RISK MAX", "AT RISK MEAN"):
        assert col in header
    rows = {(x["zfs.sync"], x["slog"]): x for x in pq.read_table(out / "sweep.parquet").to_pylist()}
    assert len(rows) == 6
    for slog in ("none", "s3700", "850pro"):
        std, dis = rows[("standard", slog)], rows[("disabled", slog)]
        assert std["at_risk_bytes_max"] == 0 < dis["at_risk_bytes_max"]
        assert dis["elapsed_ns"] < std["elapsed_ns"]
    # The flush model: a PLP SLOG helps more than a consumer SSD, and both beat none.
    e = {s: rows[("standard", s)]["elapsed_ns"] for s in ("none", "s3700", "850pro")}
    assert e["s3700"] < e["850pro"] < e["none"]
    m = invoke("compare", out, "--baseline", "zfs.sync=standard", "--metrics", "elapsed,at_risk_max")
    assert m.exit_code == 0, m.stderr
    lines = m.stdout.splitlines()
    assert lines[1] == "baseline: zfs.sync=standard, other axes as the point (column VS); ratios are point ÷ baseline"
    vs = {tuple(ln.split()[1:4]) for ln in lines if ln.strip()[:1].isdigit()}
    assert vs == {("standard", "none", "1"), ("standard", "s3700", "2"), ("standard", "850pro", "3"),
                  ("disabled", "none", "1"), ("disabled", "s3700", "2"), ("disabled", "850pro", "3")}


@needs_core
def test_vm_sync_sweep_trades_commit_cost_for_data_at_risk(tmp_path, monkeypatch, real_core):
    """Issue 4 for zvols: guests' flushes commit the volume's log; sync=always commits
    every write (far slower on HDDs), a PLP SLOG absorbs the commits, sync=disabled
    commits nothing and leaves acknowledged writes at risk."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "o"
    r = invoke("sweep", "scenarios/sweeps/vm-sync.toml", "--out", out, "-q")
    assert r.exit_code == 0, r.stderr
    rows = {(x["zfs.sync"], x["slog"]): x for x in pq.read_table(out / "sweep.parquet").to_pylist()
            if x["workload"] == "guest-writes"}
    assert len(rows) == 6
    std, always, off = rows[("standard", "none")], rows[("always", "none")], rows[("disabled", "none")]
    assert always["ops_per_s"] * 4 < std["ops_per_s"] < off["ops_per_s"]
    assert always["zil_commits"] > std["zil_commits"] > 0 == off["zil_commits"]
    assert std["at_risk_bytes_max"] == always["at_risk_bytes_max"] == 0 < off["at_risk_bytes_max"]
    # A PLP SLOG brings sync=always within 2x of sync=disabled (issue 4), with nothing at
    # risk: the txg syncs' writes (data and indirect blocks) then bound both.
    slog = rows[("always", "s3700")]
    assert slog["ops_per_s"] > 4 * always["ops_per_s"] and slog["at_risk_bytes_max"] == 0
    assert slog["ops_per_s"] > 0.5 * off["ops_per_s"]
    assert slog["zil_commit_latency_ns_mean"] * 20 < always["zil_commit_latency_ns_mean"]


def test_ratios_and_units():
    assert [compare.fmt_ops(v) for v in (9.584, 17.14, 121.4, 1234.4, 12345, 123456, 12_345_678)] == [
        "9.58", "17.1", "121", "1234", "12.3k", "123k", "12.3M"]
    assert [compare.fmt_duration(v * 1e9) for v in (0.5832, 11.0, 217.1, 7322, 100000)] == [
        "583ms", "11.0s", "3m37s", "2h02m", "1d03h"]
    assert compare._ratio(5, 10) == "×0.50" and compare._ratio(250, 10) == "×25.0"
    assert compare._ratio(1, 0) == "—" and compare._ratio(None, 1) == "—"
    # A large improvement keeps its size (QA pass 15: "P50 125us ×0.00" read as zero).
    assert [compare._ratio(v, 1) for v in (0.099, 0.0146, 0.0029, 0.00029, 0)] == [
        "×0.099", "×0.015", "×0.0029", "÷3448", "×0.00"]


def test_a_scan_adds_the_workloads_latency_while_it_issued():
    # The whole-run P99 dilutes the scan's effect with the time before it; advise measures
    # in the scan's window, and the view now shows that window too (QA pass 15).
    rows = [{"workload": "u", "kind": "random-read", "scan_func": "scrub", "scan_window_ops": 10,
             "latency_ns_p99": 60e6, "scan_window_latency_ns_p99": 80e6}]
    ms = compare.default_metrics(rows, [])
    assert ms[-3:] == ["scan_p99", "scan", "scan_rate"] and "p99" in ms
    assert "scan_p99" not in compare.default_metrics([dict(rows[0], scan_window_ops=0)], [])
    assert compare.METRICS["scan_p99"].fmt(80e6, rows[0]) == "80.0ms"


def test_txg_sync_columns_are_null_and_shown_as_dash_before_any_sync_finished():
    """`txg.syncs` counts syncs started; with none finished the core's statistics are all
    0, which the table keeps as null (not "0ns") and the view prints as -."""
    from ziosim.sweep.table import point_metrics, table_rows

    zero = {k: 0 for k in ("min", "mean", "max", "p50", "p90", "p99", "p999")}
    done = dict(zero, mean=2.5e8, max=400_000_000, p99=400_000_000)
    man = {"name": "t", "axes": [{"name": "stop", "field": "scenario.stop", "values": ["5s", "20s"],
                                  "labels": ["5s", "20s"]}],
           "points": [{"index": i + 1, "id": f"p{i}", "values": [v], "labels": [v], "seed": 0,
                       "release": "zfs-2.2", "name": "t"} for i, v in enumerate(["5s", "20s"])]}
    metrics = {f"p{i}": point_metrics({"txg": {"syncs": n, "sync_ns": st}, "workloads": []})
               for i, (n, st) in enumerate([(1, zero), (4, done)])}
    rows, _ = table_rows(man, metrics)
    assert [(r["txg_syncs"], r["txg_sync_ns_mean"], r["txg_sync_ns_max"]) for r in rows] == [
        (1, None, None), (4, 2.5e8, 400_000_000)]
    view = compare.render(man, rows, metrics=["txg_sync", "txg_sync_max"]).splitlines()
    assert view[-2].split() == ["1", "5s", "-", "—", "-", "—"]
    assert view[-1].split() == ["2", "20s", "250ms", "—", "400ms", "—"]


def test_a_rebuild_gets_its_own_column_before_the_scan():
    # A dRAID spare's rebuild then its scrub: redundancy is back at the rebuild's end.
    rows = [{"workload": "u", "kind": "random-read", "scan_func": "scrub", "rebuild_state": "complete"}]
    assert compare.default_metrics(rows, [])[-3:] == ["rebuild", "scan", "scan_rate"]
    assert "rebuild" not in compare.default_metrics([{"workload": "u", "scan_func": "resilver"}], [])


def test_matched_baseline_compares_with_the_same_other_axes():
    man = {
        "axes": [{"name": "a", "field": "a", "values": [1, 2], "labels": ["1", "2"]},
                 {"name": "s", "field": "scenario.seed", "values": [7, 8], "labels": ["7", "8"]}],
        "points": [{"index": i + 1, "labels": [a, s]} for i, (a, s) in
                   enumerate([("1", "7"), ("1", "8"), ("2", "7"), ("2", "8")])],
    }
    assert compare.baselines(man, None, "x") == {1: 1, 2: 1, 3: 1, 4: 1}
    assert compare.baselines(man, {"a": 2}, "x") == {1: 3, 2: 4, 3: 3, 4: 4}
    assert compare.baselines(man, {"a": "2", "scenario.seed": 8}, "x") == {1: 4, 2: 4, 3: 4, 4: 4}


@needs_core
def test_docs_example_is_current(tmp_path, monkeypatch, real_core):
    """docs/sweep.md shows a real `ziosim sweep` output; it must be what ziosim prints."""
    monkeypatch.chdir(ROOT)
    doc = (ROOT / "docs" / "sweep.md").read_text(encoding="utf-8")
    block = doc.split("$ ziosim sweep scenarios/sweeps/nfs-sync.toml --metrics ", 1)[1]
    metrics, rest = block.split("\n", 1)
    shown = rest.split("```", 1)[0]
    r = invoke("sweep", "scenarios/sweeps/nfs-sync.toml", "--metrics", metrics, "--out", tmp_path / "o", "-q")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == shown


@needs_core
def test_recordsize_sweep_shows_what_the_indirect_blocks_cost(tmp_path, real_core):
    """Random 4K writes over a large file: with 4K records each dirties its own 128 KiB
    indirect block, so the syncs write far more metadata than data; with 128K records an
    indirect block covers 128 MiB and the metadata share collapses. The TXG DATA / TXG META
    columns show it."""
    (tmp_path / "rw.toml").write_text("""[scenario]
name = "rw"
stop = "20s"
[zfs]
release = "zfs-2.2"
[pool]
allocated = "50G"
vdevs = [{ type = "disk", device = "hdd-7200-sata-2014" }]
[[workload]]
name = "w"
kind = "random-write"
size = "4K"
threads = 8
arc_hit = 1
""")
    (tmp_path / "sw.toml").write_text("""[sweep]
name = "rs"
scenario = "rw.toml"
[[sweep.axis]]
field = "pool.recordsize"
values = ["4K", "128K"]
""")
    r = invoke("sweep", tmp_path / "sw.toml", "--out", tmp_path / "o", "--metrics", "ops_per_s,txg_data,txg_meta", "-q")
    assert r.exit_code == 0, r.stderr
    assert "TXG DATA" in r.stdout and "TXG META" in r.stdout
    rows = {x["pool.recordsize"]: x for x in pq.read_table(tmp_path / "o" / "sweep.parquet").to_pylist()}
    small, large = rows["4K"], rows["128K"]
    share = {k: v["txg_metadata_bytes"] / v["txg_data_bytes"] for k, v in (("4K", small), ("128K", large))}
    assert share["4K"] > 5, share
    assert share["4K"] > 20 * share["128K"], share


@needs_core
def test_special_sweep_puts_small_reads_on_the_ssds_and_shortens_the_scrub(tmp_path, monkeypatch, real_core):
    """scenarios/sweeps/special.toml (shortened): a special mirror with special_small_blocks
    serves the small files' reads from SSDs and leaves the scrub less to read from the HDDs;
    metadata alone shortens the scrub a little; the property without special vdevs changes
    nothing (docs/guide.md §3)."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "o"
    r = invoke("sweep", "scenarios/sweeps/special.toml", "--set", "pool.fill=0.02", "--out", out, "-q")
    assert r.exit_code == 0, r.stderr
    rows = {(x["special"], x["small"]): x for x in pq.read_table(out / "sweep.parquet").to_pylist()}
    none, prop_only = rows[("none", "0")], rows[("none", "32K")]
    meta, small = rows[("s3700-mirror", "0")], rows[("s3700-mirror", "32K")]
    assert prop_only["digest"] == none["digest"]
    assert small["scan_duration_ns"] < meta["scan_duration_ns"] < none["scan_duration_ns"]
    assert small["ops_per_s"] > 2 * none["ops_per_s"] and small["latency_ns_p50"] < 1_000_000
    assert abs(meta["ops_per_s"] / none["ops_per_s"] - 1) < 0.05

"""Result files: atomic writes, deterministic summary.json, Parquet contents."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import ziosim.report.files as files
from ziosim.report import build_summary, write_outputs
from ziosim.report.summary import canonical_json, summary_json

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# The fixture has series but no per-interval latency histograms and no scan: of the
# plots, only disk utilisation and throughput (test_report_plots.py covers the rest).
EXPECTED_FILES = ["disk-busy.svg", "histograms.parquet", "report.html", "run.json", "series.parquet",
                  "summary.json", "throughput.svg"]


@pytest.fixture(scope="module")
def results():
    return json.loads((FIXTURES / "results_raidz2.json").read_text())


@pytest.fixture(scope="module")
def meta():
    return json.loads((FIXTURES / "meta_raidz2.json").read_text())


def test_writes_every_file(tmp_path, results, meta):
    out = tmp_path / "run1"
    paths = write_outputs(out, results, meta)
    assert [p.name for p in paths] == EXPECTED_FILES
    assert all(p.parent == out for p in paths)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run1"]  # no temp dirs left


def test_summary_json_is_deterministic(tmp_path, results, meta):
    a = write_outputs(tmp_path / "a", results, meta)
    b = write_outputs(tmp_path / "b", results, meta)
    summary_a = (tmp_path / "a" / "summary.json").read_bytes()
    assert summary_a == (tmp_path / "b" / "summary.json").read_bytes()
    assert summary_a == summary_json(json.loads(json.dumps(results)), dict(meta)).encode()
    assert [p.name for p in a] == [p.name for p in b]


def test_summary_json_shape(results, meta):
    text = summary_json(results, meta)
    doc = json.loads(text)
    assert text == json.dumps(doc, sort_keys=True, indent=2) + "\n"
    for key in ("schema_version", "ziosim_version", "release", "seed", "scenario_hash"):
        assert key in doc
    assert doc["schema_version"] == 1
    assert doc["release"] == "zfs-2.2"
    users = doc["workloads"]["users"]
    assert set(users["latency_ns"]) == {"min", "mean", "max", "p50", "p90", "p99", "p999"}
    assert len(users["latency_log2"]) == 64
    assert set(doc["classes"]["scrub"]) >= {"ops", "bytes", "total_wait_ns", "disk_wait_ns",
                                            "queue_wait_ns"}
    sda = doc["leaves"]["sda"]
    assert 0.0 <= sda["busy_fraction"] <= 1.0
    assert sda["ops"] == sum(c["ops"] for c in sda["classes"].values())
    # floats carry at most 3 decimals, so the bytes do not depend on float noise
    assert not re.search(r"\d\.\d{4,}", text)


def test_float_rounding_is_canonical():
    assert canonical_json({"b": 0.1 + 0.2, "a": 1, "c": -0.0001}) == \
        '{\n  "a": 1,\n  "b": 0.3,\n  "c": 0.0\n}\n'
    assert json.loads(canonical_json({"x": float("nan")})) == {"x": None}  # never "NaN"


def test_failure_midway_leaves_no_outdir(tmp_path, results, meta, monkeypatch):
    calls = []

    def failing_parquet(path, table):
        calls.append(path.name)
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(files, "_write_parquet", failing_parquet)
    out = tmp_path / "run"
    from ziosim.errors import ScenarioError

    # One line naming --out and the file (the CLI's `error:` and exit 2), not the OSError.
    with pytest.raises(ScenarioError) as e:
        write_outputs(out, results, meta)
    assert str(e.value) == (f"--out: {out} — cannot write series.parquet (disk full (simulated)), nothing written; "
                            "allowed: a directory you can write, with room for the results")
    assert calls == ["series.parquet"]  # summary.json and run.json were already written
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_interrupt_keeps_previous_results(tmp_path, results, meta, monkeypatch):
    out = tmp_path / "run"
    write_outputs(out, results, meta)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def interrupted(path, table):
        raise KeyboardInterrupt

    monkeypatch.setattr(files, "_write_parquet", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_outputs(out, dict(results, digest="ffffffffffffffff"), meta)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_rewrite_replaces_a_previous_run_whole(tmp_path, results, meta):
    """A previous run's directory is replaced as a whole: its plots go when the new run
    writes none."""
    out = tmp_path / "run"
    write_outputs(out, results, meta)
    write_outputs(out, results, meta, plots=False)
    assert sorted(p.name for p in out.iterdir()) == [n for n in EXPECTED_FILES if not n.endswith(".svg")]
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_an_empty_directory_is_used(tmp_path, results, meta):
    out = tmp_path / "run"
    out.mkdir()
    write_outputs(out, results, meta)
    assert sorted(p.name for p in out.iterdir()) == EXPECTED_FILES


def _refused(out, results, meta, match):
    from ziosim.errors import ScenarioError

    with pytest.raises(ScenarioError, match=match) as e:
        write_outputs(out, results, meta)
    assert "\n" not in str(e.value) and str(e.value).startswith("--out: ")
    return str(e.value)


def test_a_directory_ziosim_did_not_write_is_refused_and_kept(tmp_path, results, meta):
    """`run --out ~/results` used to replace the directory whole: whatever it held was gone."""
    out = tmp_path / "important"
    out.mkdir()
    (out / "thesis.tex").write_text("data")
    line = _refused(out, results, meta, "holds thesis.tex, which ziosim did not write")
    assert "allowed: a new or empty directory, or one a previous `ziosim run` wrote" in line
    assert [p.name for p in out.iterdir()] == ["thesis.tex"] and (out / "thesis.tex").read_text() == "data"
    assert [p.name for p in tmp_path.iterdir()] == ["important"]  # no temporary directory left
    # A file of the user's among a previous run's: the run is not replaced either.
    prev = tmp_path / "prev"
    write_outputs(prev, results, meta)
    (prev / "notes.txt").write_text("mine")
    _refused(prev, results, meta, "holds notes.txt")
    assert (prev / "notes.txt").read_text() == "mine" and (prev / "summary.json").is_file()
    # ziosim's file names but no run.json of ziosim's: not a previous run.
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "run.json").write_text('{"name": "something else"}')
    (fake / "summary.json").write_text("{}")
    _refused(fake, results, meta, "holds no run.json of a ziosim run")
    assert sorted(p.name for p in fake.iterdir()) == ["run.json", "summary.json"]
    # A subdirectory, even named like a file of ours, is not ours.
    sub = tmp_path / "sub"
    write_outputs(sub, results, meta)
    (sub / "report.html").unlink()
    (sub / "report.html").mkdir()
    _refused(sub, results, meta, "holds no run.json of a ziosim run")


def test_a_file_is_refused(tmp_path, results, meta):
    f = tmp_path / "x.toml"
    f.write_text("keep")
    _refused(f, results, meta, "is a file")
    assert f.read_text() == "keep"


@pytest.mark.parametrize("rel", [".", "..", "../..", "sub/..", "/"])
def test_the_current_directory_and_those_above_it_are_refused(tmp_path, results, meta, monkeypatch, rel):
    """`--out .` and `--out ..` used to fail in rename(2) as an internal error."""
    here = tmp_path / "a" / "b"
    here.mkdir(parents=True)
    (here / "sub").mkdir()
    (here / "keep.txt").write_text("x")
    monkeypatch.chdir(here)
    _refused(Path(rel), results, meta, "is the current directory or contains it")
    assert sorted(p.name for p in here.iterdir()) == ["keep.txt", "sub"]
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["b"]


def test_every_file_a_run_writes_counts_as_ziosims(tmp_path, results, meta):
    """check_outdir knows a previous run by its files' names: every name write_outputs
    writes must match OWN_FILE (a new plot must be added there), else the next run into the
    same directory is refused."""
    for p in write_outputs(tmp_path / "r", results, meta):
        assert files.OWN_FILE.fullmatch(p.name), p.name
    for name in ("latency-heatmap-users.svg", "latency-phases-db.svg", "scan-progress.svg", "scan.parquet"):
        assert files.OWN_FILE.fullmatch(name)
    assert not files.OWN_FILE.fullmatch("thesis.svg") and not files.OWN_FILE.fullmatch("notes.json")


def test_run_json_carries_config(tmp_path, results, meta):
    write_outputs(tmp_path / "r", results, meta)
    doc = json.loads((tmp_path / "r" / "run.json").read_text())
    assert doc["config"]["pool"]["name"] == "tank"
    assert doc["scenario_hash"] == meta["scenario_hash"]
    assert doc["scenario_path"] == meta["scenario_path"]


def test_series_parquet(tmp_path, results, meta):
    write_outputs(tmp_path / "r", results, meta)
    table = pq.read_table(tmp_path / "r" / "series.parquet")
    n_t = len(results["series"]["t_ns"])
    assert table.num_rows == n_t * (len(results["leaves"]) + len(results["workloads"]))
    rows = table.to_pylist()
    sda = [r for r in rows if r["leaf"] == "sda"]
    assert [r["t_ns"] for r in sda] == results["series"]["t_ns"]
    assert [r["read_ops"] for r in sda] == results["series"]["leaves"][0]["read_ops"]
    assert [r["queued_scrub"] for r in sda] == results["series"]["leaves"][0]["queued"]["scrub"]
    users = [r for r in rows if r["workload"] == "users"]
    assert [r["ops"] for r in users] == results["series"]["workloads"][0]["ops"]
    assert all(r["leaf"] is None for r in users)
    # The midpoint sums zpool iostat -l averages are there too, and the latency histogram
    # column is, whatever the run (QA pass 2: both were missing in some files).
    assert [r["read_total_wait_mid_ns_sum"] for r in sda] == results["series"]["leaves"][0]["read_total_wait_mid_ns_sum"]
    assert "latency_log2" in table.schema.names
    md = table.schema.metadata
    assert md[b"ziosim.release"] == b"zfs-2.2"
    assert md[b"ziosim.scenario_hash"] == meta["scenario_hash"].encode()


def test_histograms_parquet(tmp_path, results, meta):
    write_outputs(tmp_path / "r", results, meta)
    rows = pq.read_table(tmp_path / "r" / "histograms.parquet").to_pylist()
    scrub_disk = [r for r in rows if r["leaf"] == "sdb" and r["class"] == "scrub"
                  and r["stage"] == "disk"]
    expected = results["leaves"][1]["classes"]["scrub"]["disk_wait_log2"]
    assert [r["count"] for r in scrub_disk] == expected
    assert (scrub_disk[0]["lo_ns"], scrub_disk[0]["hi_ns"]) == (0, 2)
    assert (scrub_disk[20]["lo_ns"], scrub_disk[20]["hi_ns"]) == (1 << 20, 1 << 21)
    assert {r["stage"] for r in rows} == {"total", "disk", "queue"}


def test_build_summary_identity(results, meta):
    doc = build_summary(results, meta)
    assert (doc["seed"], doc["scenario_name"], doc["digest"]) == (
        0, "fixture raidz2", results["digest"])


@pytest.mark.needs_core
def test_vdevs_parquet_has_each_top_level_vdevs_capacity_and_operations(tmp_path):
    # A mirror with a SLOG under an fsync writer: the log vdev's alloc rises once a txg with
    # log blocks syncs, the data vdev's with the writes; one row per interval and vdev.
    from ziosim import runner, scenario

    p = tmp_path / "s.toml"
    p.write_text('[scenario]\nstop = "12s"\nreport_interval = "2s"\n[zfs]\nrelease = "zfs-2.2"\n'
                 '[pool]\nallocated = "1G"\nvdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }]\n'
                 'log = [{ device = "intel-s3700" }]\n'
                 '[[workload]]\nkind = "fsync-write"\nthreads = 2\nsizes = [["8K", 1.0]]\n')
    sc = scenario.load(p)
    res = runner.run(sc)
    meta = {"release": "zfs-2.2", "name": "s", "seed": 0, "version": "t", "scenario_hash": "h", "config": sc.config}
    write_outputs(tmp_path / "out", res, meta, plots=False)
    rows = pq.read_table(tmp_path / "out" / "vdevs.parquet").to_pylist()
    n = len(res["series"]["t_ns"])
    assert n == 6 and len(rows) == 2 * n
    data = [r for r in rows if r["class"] == "normal"]
    log = [r for r in rows if r["class"] == "log"]
    assert {r["vdev"] for r in data} == {"mirror-0"} and len(log) == n
    tops = res["series"]["tops"]
    assert [r["alloc_bytes"] for r in data] == [int(b) for b in tops[0]["alloc_bytes"]]
    assert [r["write_ops"] for r in log] == [int(b) for b in tops[1]["write_ops"]]
    assert max(r["alloc_bytes"] for r in log) > 0 and sum(r["write_ops"] for r in log) > 0
    assert data[-1]["alloc_bytes"] >= data[0]["alloc_bytes"]
    assert data[0]["size_bytes"] == res["pool"]["vdevs"][0]["size_bytes"]
    slog = res["leaves"][res["pool"]["log"][0]["leaves"][0]]
    assert {r["size_bytes"] for r in log} == {int(slog["size_bytes"])}

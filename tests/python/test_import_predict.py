"""``ziosim import --predict``: the real scan's time left, read off a run of the imported scenario."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from conftest import ROOT

FIX = ROOT / "tests" / "python" / "fixtures" / "import"
ENV = {"NO_COLOR": "1", "COLUMNS": "100"}

pytestmark = pytest.mark.needs_core


def _invoke(*args):
    from ziosim.cli import app

    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, ["import", *[str(a) for a in args]], env=ENV)


def _secs(text: str) -> int:
    """``1m07s``, ``48s``, ``2h05m`` → seconds."""
    total = 0
    for n, unit in re.findall(r"(\d+)([dhms])", text):
        total += int(n) * {"d": 86400, "h": 3600, "m": 60, "s": 1}[unit]
    return total


def _figures(out: str) -> dict[str, int]:
    got = {}
    for key, pat in (("model", r"the model as it is\s+(\S+)"), ("paced", r"at the real pool's pace so far\s+(\S+)"),
                     ("eta", r"the release's own ETA\s+(\S+)"), ("reach", r"reaches [\d.]+% after (\S+?);"),
                     ("whole", r"with its assumptions\): (\S+) in all")):
        m = re.search(pat, out)
        assert m, f"{key} missing in:\n{out}"
        got[key] = _secs(m.group(1))
    return got


@pytest.mark.parametrize("fixture, kind, pct", [
    ("zfs-2.1-small-scrub.txt", "scrub", "29.98%"),
    ("zfs-2.1-small-resilver.txt", "resilver", "29.98%"),
    ("zfs-2.0-small-rebuild.txt", "rebuild", "38.33%"),
])
def test_predict_prints_the_time_left_three_ways(tmp_path, fixture, kind, pct):
    out = tmp_path / "pool.toml"
    r = _invoke(FIX / fixture, "--predict", "--out", out)
    assert r.exit_code == 0, r.stderr
    assert out.is_file()
    assert f"Real {kind}: {pct} done" in r.stdout
    f = _figures(r.stdout)
    # The parts add up (to rounding), and the real pool's pace scales the model's time left.
    assert abs(f["reach"] + f["model"] - f["whole"]) <= 2
    real = _secs(re.search(r"done after ≈ (\S+);", r.stdout).group(1))
    pace = float(re.search(r"pace × ([\d.]+)", r.stdout).group(1))
    assert pace == pytest.approx(real / f["reach"], rel=0.15)
    assert f["paced"] == pytest.approx(f["model"] * pace, abs=pace + 1)  # model printed to the second
    assert f["eta"] == {"scrub": 70, "resilver": 70, "rebuild": 48}[kind]


def test_predict_on_stderr_without_out():
    r = _invoke(FIX / "zfs-2.1-small-scrub.txt", "--predict", "--stop", "5s")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("#")  # the scenario
    assert "Real scrub: 29.98% done" in r.stderr
    assert "projected: the run stopped first" in r.stderr
    assert "did not reach 29.98%" in r.stderr


def test_predict_needs_a_scan_in_progress_and_writes_nothing_otherwise(tmp_path):
    out = tmp_path / "x.toml"
    r = _invoke(FIX / "zfs-2.2-faulted.txt", "--predict", "--out", out)
    assert r.exit_code == 2
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith("error: --predict: the zpool status text shows no scan in progress")
    assert not out.exists()


def test_stop_only_with_predict():
    r = _invoke(FIX / "zfs-2.1-small-scrub.txt", "--stop", "5s")
    assert r.exit_code == 2
    assert r.stderr.strip().startswith('error: --stop: "5s" — allowed: only with --predict')


def test_docs_example_is_regenerated(tmp_path):
    """docs/import.md's --predict example is this run's output (UPDATE_SNAPSHOTS=1 rewrites it)."""
    import os

    from conftest import check_doc_blocks

    rel = "tests/python/fixtures/import/zfs-2.1-small-resilver.txt"
    r = _invoke(ROOT / rel, "--predict", "--out", tmp_path / "tank.toml")
    assert r.exit_code == 0, r.stderr
    expected = {"import-predict": f"$ ziosim import {rel} --predict --out tank.toml\n{r.stdout}"}
    check_doc_blocks(ROOT / "docs" / "import.md", "predict", expected, bool(os.environ.get("UPDATE_SNAPSHOTS")))


def test_a_scrub_behind_an_unfinished_rebuild_says_to_run_longer(tmp_path):
    # A dRAID pool's scrub follows its distributed spare's rebuild; with a --stop before the
    # rebuild ends the run has no scrub, and the error says why (QA pass 16).
    r = _invoke(FIX / "zfs-2.2-draid-scrub.txt", "--predict", "--stop", "30m", "--out", tmp_path / "d.toml", "-q")
    assert r.exit_code == 2
    assert r.stderr.strip().splitlines() == [
        "error: --predict: the simulation ran no scrub by the end of the run: the sequential rebuild ahead of it "
        "had not finished; allowed: a longer --stop (the scrub starts when the rebuild ends)"]

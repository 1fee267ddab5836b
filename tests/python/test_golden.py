"""Bundled scenarios against the real core: golden digests and the issue's acceptance figures.

Golden digests pin the whole event stream of every bundled scenario: a change that moves
any event shows up here. After an intended model change, regenerate and review:

    ZIOSIM_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/python/test_golden.py
"""

from __future__ import annotations

import json
import os

import pytest

from conftest import ROOT, SCENARIOS

pytestmark = pytest.mark.needs_core

GOLDEN = ROOT / "tests" / "python" / "golden" / "digests.json"
BUNDLED = sorted(p.stem for p in SCENARIOS.glob("*.toml"))


@pytest.fixture(scope="module")
def results():
    import ziosim

    return {name: ziosim.run_scenario(SCENARIOS / f"{name}.toml") for name in BUNDLED}


def test_golden_digests(results):
    got = {name: r["digest"] for name, r in results.items()}
    if os.environ.get("ZIOSIM_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    want = json.loads(GOLDEN.read_text())
    assert got == want


def test_littles_law_holds_on_every_bundled_run(results):
    for name, r in results.items():
        t = r["sim_time_ns"]
        for w in r["workloads"]:
            area = w["mean_inflight"] * t
            sojourn = w["latency_ns"]["mean"] * w["ops"] + w["inflight_age_ns_at_end"]
            assert abs(area - sojourn) <= 1e-6 * max(area, 1.0) + 1e3, (name, w["name"])


def _iops(r):
    return r["workloads"][0]["ops_per_s"]


def test_one_disk_qd1_random_read_iops(results):
    # 7200 rpm, 4 KiB random reads over the whole disk, one thread: 70-95 IOPS.
    assert 70 <= _iops(results["one-disk-qd1"]) <= 95


def test_one_disk_qd32_random_read_iops(results):
    # 32 threads with sync_read min/max_active = 32 (NCQ SATF): 150-230 IOPS.
    assert 150 <= _iops(results["one-disk-qd32"]) <= 230


def test_one_disk_sequential_read_reaches_outer_zone_rate(results):
    from ziosim import _core

    spec = json.loads(_core.presets_json())["hdd-7200-sata-2014"]["spec"]
    rate = results["one-disk-seq"]["workloads"][0]["bytes_per_s"]
    assert abs(rate / spec["rate_od_bytes_per_s"] - 1) <= 0.15, rate


def test_one_straggler_holds_a_raidz2_resilver_back(results):
    """resilver-straggler: one disk recovering every read (2 revolutions on average) against
    the same pool healthy. A raidz2 block read waits for every data column, so the resilver
    takes far longer and the users' reads slow down before and during it."""
    from ziosim import runner, scenario

    path = SCENARIOS / "resilver-straggler.toml"
    text = path.read_text().replace("read_recovery_probability = 1.0", "read_recovery_probability = 0.0")
    healthy = runner.run(scenario.loads(text, path=str(path)))
    sick = results["resilver-straggler"]
    assert sick["scan"]["state"] == healthy["scan"]["state"] == "finished"
    ratio = sick["scan"]["duration_ns"] / healthy["scan"]["duration_ns"]
    assert ratio > 2.0, ratio
    assert sick["workloads"][0]["latency_ns"]["mean"] > 2 * healthy["workloads"][0]["latency_ns"]["mean"]


def test_default_runs_twice_byte_identical(tmp_path):
    import subprocess
    import sys

    outs = []
    for k in range(2):
        out = tmp_path / f"o{k}"
        subprocess.run(
            [sys.executable, "-m", "ziosim", "run", str(SCENARIOS / "default.toml"), "--out", str(out), "--quiet"],
            check=True,
            capture_output=True,
            env={**os.environ, "NO_COLOR": "1"},
        )
        outs.append((out / "summary.json").read_bytes())
    assert outs[0] == outs[1]


def test_an_aged_layout_with_small_files_runs_and_a_scrub_covers_every_copy():
    from ziosim import runner, scenario

    text = (
        '[scenario]\nstop = "scan-done or 1h"\n[zfs]\nrelease = "zfs-2.2"\n'
        '[pool]\nallocated = "2G"\nvdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }]\n'
        'layout = { fragmentation = 0.8, files = [["16K", 0.3], ["1G", 0.7]], compression = 1.5 }\n'
        '[[action]]\nat = "0s"\ndo = "scrub"\n'
    )
    s = runner.run(scenario.loads(text))["scan"]
    assert s["state"] == "finished"
    assert s["examined_bytes"] == s["issued_bytes"] == s["to_examine_bytes"]
    # Ditto copies of the metadata and 16K files rounded to sectors: more than the data.
    assert s["to_examine_bytes"] > 2 << 30

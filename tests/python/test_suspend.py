"""A pool that loses every copy it writes to suspends, as its `failmode` says
(crates/ziosim-model/src/suspend.rs; docs/scenario.md "A pool that suspends"): what the
text report, `zpool status` and summary.json show of it."""

from __future__ import annotations

import json

import pytest

from ziosim import runner, scenario
from ziosim.report import render_text
from ziosim.report.summary import build_summary, redundancy_lines

pytestmark = pytest.mark.needs_core

BASE = """[scenario]
name = "t"
stop = "{stop}"
report_interval = "5s"
[zfs]
release = "{release}"
[devices.hdd]
like = "hdd-7200-sata-2014"
capacity = "20G"
[pool]
allocated = "4G"
vdevs = [{{ type = "disk", disks = 1, device = "hdd" }}]
{failmode}
[[workload]]
name = "db"
kind = "fsync-write"
size = "128K"
threads = 2
[[action]]
at = "3s"
do = "fail"
disk = "sda"
"""


def _run(release="zfs-2.2", failmode="", stop="20s"):
    sc = scenario.loads(BASE.format(release=release, failmode=failmode, stop=stop), path="t.toml")
    res = runner.run(sc)
    return res, render_text(res, runner.meta(sc)), build_summary(res, runner.meta(sc))


@pytest.mark.parametrize(("release", "word"), [("zfs-0.7", "UNAVAIL"), ("zfs-2.2", "SUSPENDED")])
def test_the_default_failmode_suspends_and_the_report_says_so(release, word):
    res, text, summ = _run(release)
    sp = summ["pool"]["suspended"]
    assert summ["pool"]["failmode"] == "wait" and sp["failmode"] == "wait"
    assert 3e9 < sp["at_ns"] < 10e9
    last = text.split("$ zpool status tank\n")[-1].splitlines()
    assert last[1] == f" state: {word}"
    assert last[2] == "status: One or more devices are faulted in response to IO failures."
    assert last[4].endswith("ZFS-8000-HC")
    assert f"pool: suspended at {sp['at_ns'] / 1e9:.2f}s (failmode=wait)" in text
    assert "waiting at the end, until a 'zpool clear' that never comes" in text
    # Nothing completes after the suspension: the fsync writer's last op ended before it.
    assert res["end"] == "stop-time"
    json.dumps(summ)


def test_failmode_panic_ends_the_run_with_the_panic_message():
    res, text, summ = _run(failmode='failmode = "panic"', stop="1h")
    assert summ["end"] == "panic" and res["sim_time_ns"] == summ["pool"]["suspended"]["at_ns"]
    assert ("Pool 'tank' has encountered an uncorrectable I/O failure and the failure mode property for "
            "this pool is set to panic.") in text


def test_a_healthy_run_prints_no_suspension():
    sc = scenario.loads(BASE.format(release="zfs-2.2", failmode="", stop="6s").split("[[action]]")[0], path="t.toml")
    res = runner.run(sc)
    summ = build_summary(res, runner.meta(sc))
    assert summ["pool"]["suspended"] is None
    assert "suspended" not in render_text(res, runner.meta(sc))


def test_the_bundled_stripe_scenario_suspends_at_the_first_read_of_the_dead_disk():
    from conftest import ROOT
    sc = scenario.load(ROOT / "scenarios/faults/stripe-disk-dies.toml")
    res = runner.run(sc)
    sp = res["pool"]["suspended"]
    assert (sp["cause"], sp["vdev"], sp["failmode"]) == ("read", "sdb", "wait")
    assert 30e9 <= sp["at_ns"] < 31e9
    # Both workloads stopped there: the writers and the readers wait on the pool.
    assert sp["blocked_writes"] >= 1 and sp["blocked_reads"] >= 1
    assert res["status"]["snapshots"][-1]["suspended"] == "wait"
    # The suspending read logged nothing, so the redundancy line does not send the reader
    # to an error list that `zpool status` leaves empty.
    lines = redundancy_lines(build_summary(res, runner.meta(sc)))
    assert any(ln.endswith("its blocks could not be read: the pool suspended (see above)") for ln in lines), lines
    assert not any("blocks were lost" in ln for ln in lines)


SUSPENDED_TEXT = """  pool: tank
 state: SUSPENDED
status: One or more devices are faulted in response to IO failures.
action: Make sure the affected devices are connected, then run 'zpool clear'.
   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-{msgid}
config:

\tNAME        STATE     READ WRITE CKSUM
\ttank        UNAVAIL      0     0     0  insufficient replicas
\t  sda       ONLINE       0     0     0
\t  sdb       UNAVAIL      0     0     0  cannot open

errors: 12 data errors, use '-v' for a list
"""


@pytest.mark.parametrize(("msgid", "failmode"), [("JQ", "continue"), ("HC", "wait")])
def test_import_of_a_suspended_pool_keeps_its_failmode(msgid, failmode):
    """ZPOOL_STATUS_IO_FAILURE_CONTINUE's msgid is ZFS-8000-JQ, _WAIT's ZFS-8000-HC."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    from ziosim import _native
    from ziosim.importers import scenario as isc

    text = isc.build(isc.read_inputs([("status.txt", SUSPENDED_TEXT.format(msgid=msgid))]), isc.Options(),
                     _native.presets())
    assert tomllib.loads(text)["pool"]["failmode"] == failmode
    assert f"failmode {failmode}: the pool was suspended" in text
    # And the scenario replays the failure: sdb dies, a read of it suspends the pool again
    # (wait) or fails (continue).
    assert scenario.loads(text, path="t.toml").config["pool"].get("failmode") == (None if failmode == "wait"
                                                                                    else failmode)


def test_a_trace_whose_every_thread_stopped_at_an_error_is_done():
    """A closed-loop single-pass trace ends when its last thread stops at an EIO (as fio's
    job does): a `workloads-done` run ends there instead of running to its bound."""
    from conftest import ROOT
    text = """[scenario]
name = "t"
stop = "workloads-done"
report_interval = "10s"
[zfs]
release = "zfs-2.2"
[pool]
fill = 0.05
failmode = "continue"
vdevs = [{ type = "disk", device = "hdd-7200-sata-2014" }, { type = "disk", device = "hdd-7200-sata-2014" }]
[[workload]]
name = "t"
kind = "trace"
trace = "fileserver.csv"
threads = 4
[[action]]
at = "10s"
do = "fail"
disk = "sda"
"""
    res = runner.run(scenario.loads(text, path=str(ROOT / "scenarios/trace/t.toml")))
    assert res["end"] == "workloads-done"
    assert res["workloads"][0]["read_errors"] == 4
    assert res["sim_time_ns"] < 11e9


def test_a_failmode_sweep_shows_the_suspension_and_the_errors(tmp_path):
    """The sweep table has `suspended_ns` and per-workload `read_errors`; the comparison
    view adds the EIO column and a line per suspended point (QA: a panicked point's rates
    looked like a speed-up)."""
    import pyarrow.parquet as pq
    from typer.testing import CliRunner

    from ziosim.cli import app

    sc = tmp_path / "m2.toml"
    sc.write_text("""[scenario]
name = "m2"
stop = "30s"
report_interval = "10s"
[zfs]
release = "zfs-2.2"
[pool]
fill = 0.05
vdevs = [{ type = "disk", device = "hdd-7200-sata-2014" }, { type = "disk", device = "hdd-7200-sata-2014" }]
[[workload]]
name = "r"
kind = "random-read"
size = "16K"
threads = 2
[[action]]
at = "10s"
do = "fail"
disk = "sda"
""")
    r = CliRunner().invoke(app, ["sweep", str(sc), "--set", "pool.failmode=wait,continue,panic",
                                 "--out", str(tmp_path / "o"), "-q"])
    assert r.exit_code == 0, r.output
    rows = {row["pool.failmode"]: row for row in pq.read_table(tmp_path / "o" / "sweep.parquet").to_pylist()}
    assert rows["wait"]["suspended_ns"] is not None and rows["continue"]["suspended_ns"] is None
    assert rows["continue"]["read_errors"] == 2 and rows["wait"]["read_errors"] == 0
    assert rows["panic"]["end"] == "panic"
    assert " EIO" in r.stdout
    assert "point 3: the pool suspended at 10.0s; the host panicked and the run ended there" in r.stdout
    assert "point 2: the pool suspended" not in r.stdout

"""A scan's mean rates in summary.json and the summary line (docs/output.md, "Scans and
rebuilds"): over the time it was not paused, as `zpool status` computes its rates."""

import pytest

from ziosim import runner, scenario
from ziosim.report.summary import build_summary, scan_summary_lines

pytestmark = pytest.mark.needs_core

META = {"release": "zfs-0.7", "name": "p", "seed": 0, "version": "t", "scenario_hash": "h"}
PAUSED = """
[scenario]
name = "p"
stop = "scan-done or 30m"
report_interval = "2s"
[zfs]
release = "zfs-0.7"
[pool]
allocated = "2G"
vdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }]
[[action]]
at = "2s"
do = "scrub"
[[action]]
at = "4s"
do = "pause-scrub"
[[action]]
at = "12s"
do = "resume-scrub"
"""


def test_the_mean_rate_leaves_paused_time_out():
    """QA pass 3 #9: the summary divided by the wall time, pause included, while
    `zpool status` subtracts it (`pss_pass_scrub_spent_paused`)."""
    res = runner.run(scenario.loads(PAUSED))
    sc = build_summary(res, META)["scan"]
    assert sc["state"] == "finished" and sc["paused_ns"] == 8_000_000_000
    active_s = (sc["duration_ns"] - sc["paused_ns"]) / 1e9
    assert sc["examined_bytes_per_s"] == pytest.approx(sc["examined_bytes"] / active_s, rel=1e-3)
    assert sc["issued_bytes_per_s"] == pytest.approx(sc["issued_bytes"] / active_s, rel=1e-3)
    assert res["scan"]["leaf_read_bytes_per_s"] == pytest.approx(res["scan"]["leaf_read_bytes"] / active_s, rel=1e-6)
    (line,) = scan_summary_lines(build_summary(res, META), "zfs-0.7")
    assert "(from 2.00s, 8.00s of it paused)" in line, line


def test_a_scan_of_no_time_has_null_rates_and_prints_none():
    summ = {"scans": [{"func": "resilver", "state": "finished", "start_ns": 7_000_000_000, "duration_ns": 0,
                       "paused_ns": 0, "examined_bytes": 0, "processed_bytes": 0,
                       "processed_bytes_per_s": None}]}
    assert scan_summary_lines(summ) == ["scan: resilver finished in 0ns (from 7.00s): 0B examined, 0B resilvered"]


CANCELED = """
[scenario]
name = "c"
stop = "scan-done or 1h"
report_interval = "5s"
[zfs]
release = "{release}"
[pool]
allocated = "8G"
vdevs = [{{ type = "raidz1", disks = 4, device = "hdd-7200-sata-2014" }}]
[[action]]
at = "5s"
do = "scrub"
[[action]]
at = "9s"
do = "cancel"
[[action]]
at = "12s"
do = "scrub"
"""


def test_a_sorted_scan_says_scanned_and_issued_however_it_ended():
    """QA: a canceled 2.2 scrub said "11.0G examined at 2.75G/s" — the metadata walk, faster
    than its four disks — while summary.json had 2.76 GB issued. A sorted scan's line gives
    both figures and the issue rate in every state, as the running one did."""
    res = runner.run(scenario.loads(CANCELED.format(release="zfs-2.2")))
    summ = build_summary(res, {**META, "release": "zfs-2.2"})
    canceled, finished = summ["scans"]
    assert (canceled["engine"], canceled["state"], finished["state"]) == ("sorted", "canceled", "finished")
    assert canceled["issued_bytes"] < canceled["examined_bytes"]  # the walk ran ahead
    lines = scan_summary_lines(summ, "zfs-2.2")
    assert lines[0].startswith("scan: scrub canceled after 4.00s (from 5.00s): 11.0G scanned, 2.56G issued at ")
    assert lines[1].startswith("scan: scrub finished in ") and " scanned, 11.0G issued at " in lines[1]
    assert not [ln for ln in lines if "examined" in ln]
    # A legacy scan reads each block as it walks it: one figure, "examined", as before.
    res = runner.run(scenario.loads(CANCELED.format(release="zfs-0.7")))
    summ = build_summary(res, META)
    assert [sc["engine"] for sc in summ["scans"]] == ["legacy", "legacy"]
    lines = scan_summary_lines(summ, "zfs-0.7")
    assert lines[0].startswith("scan: scrub canceled after 4.00s (from 5.00s): ") and " examined at " in lines[0]
    assert not [ln for ln in lines if "issued" in ln]

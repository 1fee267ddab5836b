"""`zpool scrub` and friends as actions: what zpool answers when the pool refuses, when a
`scan-done` run ends, the bound on report intervals, and the scan pass of 0.8–2.1."""

import pytest

from ziosim import ScenarioError, runner, scenario
from ziosim.report.status import zpool_status


def _text(actions: str, stop: str = "scan-done", release: str = "zfs-2.1", extra: str = "") -> str:
    acts = "".join(f'[[action]]\nat = "{at}"\ndo = "{do}"\n' + (f'disk = "{d}"\n' if d else "")
                   for at, do, d in actions)
    return (f'[scenario]\nstop = "{stop}"\nreport_interval = "5s"\n{extra}'
            f'[zfs]\nrelease = "{release}"\n'
            '[pool]\nallocated = "3G"\nvdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }]\n'
            + acts)


def _log(res):
    return [(a["command"], a["error"]) for a in res["actions"]]


def test_refused_scrub_commands_say_what_zpool_says():
    acts = [("1s", "cancel", None), ("2s", "pause-scrub", None), ("10s", "scrub", None),
            ("12s", "scrub", None), ("14s", "pause-scrub", None), ("15s", "pause-scrub", None),
            ("16s", "resume-scrub", None)]
    res = runner.run(scenario.loads(_text(acts)))
    assert _log(res) == [
        ("zpool scrub -s tank", "cannot cancel scrubbing tank: there is no active scrub"),
        ("zpool scrub -p tank", "cannot pause scrubbing tank: there is no active scrub"),
        ("zpool scrub tank", None),
        ("zpool scrub tank", "cannot scrub tank: currently scrubbing; use 'zpool scrub -s' to cancel current scrub"),
        ("zpool scrub -p tank", None),
        ("zpool scrub -p tank", "cannot pause scrubbing tank: scrub is paused; use 'zpool scrub' to resume"),
        ("zpool scrub tank", None),
    ]
    # Resumed, the scrub ran to its end.
    assert res["end"] == "scan-done" and res["scan"]["state"] == "finished"


def test_2_2_pauses_nothing_quietly_and_a_resilver_refuses_a_scrub():
    acts = [("1s", "pause-scrub", None), ("2s", "fail", "sdb"), ("3s", "online", "sdb")]
    res = runner.run(scenario.loads(_text(acts, release="zfs-2.2")))
    assert ("zpool scrub -p tank", None) in _log(res)
    text = _text([], release="zfs-2.2") + ('[[action]]\nat = "2s"\ndo = "replace"\nold = "sdb"\nnew = "sdc"\n'
                                          '[[action]]\nat = "4s"\ndo = "scrub"\n')
    res = runner.run(scenario.loads(text))
    assert ("zpool scrub tank", "cannot scrub tank: currently resilvering") in _log(res)
    assert [s["func"] for s in res["scans"]] == ["resilver"]


@pytest.mark.parametrize(("release", "refused"), [("zfs-2.2", True), ("illumos-2012", True), ("solaris-2009", False)])
def test_cancel_during_a_resilver(release, refused):
    # spa_scan_stop refuses with EBUSY since the 2010 scan rewrite; before it `zpool scrub -s`
    # stopped the resilver (dsl_pool_scrub_cancel_sync, il:379c004d1f), and nothing restarts it.
    text = _text([], release=release) + ('[[action]]\nat = "2s"\ndo = "replace"\nold = "sdb"\nnew = "sdc"\n'
                                         '[[action]]\nat = "4s"\ndo = "cancel"\n')
    res = runner.run(scenario.loads(text))
    entry = next(a for a in res["actions"] if a["command"] == "zpool scrub -s tank")
    if refused:
        assert (entry["error"], entry["warning"]) == ("cannot cancel scrubbing tank: currently resilvering", None)
        assert [s["func"] for s in res["scans"]] == ["resilver"] and res["scans"][0]["state"] == "finished"
    else:
        assert (entry["error"], entry["warning"]) == (None, None)
        assert [(s["func"], s["state"]) for s in res["scans"]] == [("resilver", "canceled")]


@pytest.mark.parametrize("acts", [
    [("5s", "online", "sdb")],                            # nothing to resilver
    [("5s", "fail", "sdb"), ("6s", "online", "sdb")],     # failed for good: no resilver
    [("5s", "scrub", None), ("6s", "pause-scrub", None)],  # paused for good
])
def test_scan_done_ends_when_nothing_can_scan_any_more(acts):
    res = runner.run(scenario.loads(_text(acts)))
    assert res["end"] == "scan-done"
    assert res["sim_time_ns"] <= 60 * 10**9


def test_report_intervals_are_bounded_before_the_run():
    with pytest.raises(ScenarioError, match=r'^scenario\.report_interval: "5s" — gives 34560 reports over '
                                            r'scenario\.stop = "2d"; allowed: at most 20000 reports, so at least "9s"'):
        scenario.loads(_text([("1s", "scrub", None)], stop="2d"))
    scenario.loads(_text([("1s", "scrub", None)], stop="scan-done"))  # no bound known: the core's


def test_the_0_8_to_2_1_pass_runs_from_the_scan_start():
    """c85ac731a0 (2.2.0, 2.1.12) restarts the pass when the metadata walk ends; the
    releases before keep one pass, so "scanned at" is never 0 while issuing."""
    for rel, restarts in (("zfs-2.1", False), ("zfs-2.2", True)):
        res = runner.run(scenario.loads(_text([("1s", "scrub", None)], release=rel)))
        snaps = res["status"]["snapshots"]
        issuing = [s for s in snaps if s["scan"] and s["scan"]["state"] == "scanning" and s["scan"]["phase"] == "issue"]
        assert issuing, rel
        s = issuing[-1]["scan"]
        # The walk examined everything; a restarted pass has examined nothing since.
        assert s["examined"] == s["to_examine"] > 0, rel
        assert (s["pass_exam"] == 0) == restarts, rel
        text = zpool_status(issuing[-1], rel, "tank", res["status"]["epoch_s"], res)
        if not restarts:
            assert "scanned at 0B/s" not in text and "scanned at" in text

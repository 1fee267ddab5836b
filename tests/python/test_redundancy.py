"""Redundancy over a run (crates/ziosim-model/src/redundancy.rs, docs/output.md "Redundancy"):
how long each top-level vdev ran short, what it read with no margin left, and the
datasheet-rate risk figures, against arithmetic done here from the same run."""

import math

import pytest

from ziosim import ScenarioError, runner, scenario
from ziosim.report.summary import build_summary, redundancy_lines

META = {"release": "zfs-2.2", "name": "r", "seed": 0, "version": "t", "scenario_hash": "h"}
NS_PER_YEAR = 365.25 * 86400e9


def _run(vdev: str, actions: str, device: str = "", stop: str = "scan-done"):
    text = (
        f'[scenario]\nname = "r"\nstop = "{stop}"\nreport_interval = "5s"\n'
        '[zfs]\nrelease = "zfs-2.2"\n'
        '[devices.d]\nlike = "hdd-7200-sata-2014"\ncapacity = "200G"\n' + device +
        f'[pool]\nallocated = "2G"\nvdevs = [{{ {vdev}, device = "d" }}]\n' + actions
    )
    res = runner.run(scenario.loads(text))
    return res, build_summary(res, META)


def _act(at: str, do: str, **kw: str) -> str:
    return f'[[action]]\nat = "{at}"\ndo = "{do}"\n' + "".join(f'{k} = "{v}"\n' for k, v in kw.items())


def _rec(res, name):
    (r,) = [r for r in res["pool"]["redundancy"] if r["vdev"] == name]
    return r


@pytest.fixture(scope="module")
def mirror():
    rel = 'afr_percent = 2.0\nnonrecoverable_read_error_bits = 1e14\n'
    return _run('type = "mirror", disks = 2',
                _act("2s", "fail", disk="sdb") + _act("10s", "replace", old="sdb", new="sdc"), device=rel)


def test_a_mirror_with_one_side_gone_has_no_margin_until_the_resilver_ends(mirror):
    res, summ = mirror
    r = _rec(res, "mirror-0")
    assert (r["tolerance"], r["margin"], r["min_margin"]) == (1, 1, 0)
    assert r["first_short_ns"] == 2_000_000_000
    # Restored when the resilver finished and the old disk was detached.
    assert r["restored_ns"] == res["scan"]["end_ns"]
    assert r["short_ns"] == r["restored_ns"] - r["first_short_ns"]
    assert r["exposed_ns"] == r["short_ns"] and r["lost_ns"] == 0
    # Every byte read from the pool's disks after the failure came from sda, the one copy.
    sda = [lf for lf in res["leaves"] if lf["name"] == "sda"][0]
    assert 0 < r["exposed_read_bytes"] <= sum(c["bytes"] for k, c in sda["classes"].items() if "read" in k or k == "scrub")
    assert r["expected_read_errors"] == pytest.approx(r["exposed_read_bytes"] * 8 / 1e14)
    assert r["p_read_error"] == pytest.approx(1 - math.exp(-r["expected_read_errors"]))
    # Margin 0 with one whole child: data is lost iff that disk fails in the window.
    lam = -math.log(1 - 0.02) / NS_PER_YEAR
    assert r["p_loss_by_failure"] == pytest.approx(1 - math.exp(-lam * r["short_ns"]), rel=1e-9)
    assert summ["pool"]["redundancy"][0]["vdev"] == "mirror-0"
    text = "\n".join(redundancy_lines(summ))
    assert "mirror-0 ran short for" in text and "restored at" in text
    assert "one more failed disk loses data" in text and "non-recoverable read error" in text


def test_raidz2_with_one_disk_gone_keeps_one_disk_of_margin():
    res, summ = _run('type = "raidz2", disks = 5',
                     _act("1s", "fail", disk="sdc") + _act("3s", "replace", old="sdc", new="sdf"),
                     device='afr_percent = 5.0\n')
    r = _rec(res, "raidz2-0")
    assert (r["tolerance"], r["min_margin"], r["margin"]) == (2, 1, 2)
    assert r["exposed_ns"] == 0 and r["exposed_read_bytes"] == 0 and r["expected_read_errors"] is None
    # Loss needs both of two further failures among the four whole disks.
    p = 1 - math.exp(-(-math.log(1 - 0.05) / NS_PER_YEAR) * r["short_ns"])
    want = sum(math.comb(4, k) * p**k * (1 - p) ** (4 - k) for k in (2, 3, 4))
    assert r["p_loss_by_failure"] == pytest.approx(want, rel=1e-6)
    assert "could lose 1 more disk, not 2" in "\n".join(redundancy_lines(summ))


def test_a_healthy_pool_and_an_unknown_afr_report_nothing_made_up():
    res, summ = _run('type = "mirror", disks = 2', _act("1s", "scrub"))
    assert summ["pool"]["redundancy"] == [] and redundancy_lines(summ) == []
    res, summ = _run('type = "mirror", disks = 2', _act("1s", "offline", disk="sda"), stop="20s",
                     device='afr_percent = 0.0\n')
    (r,) = summ["pool"]["redundancy"]
    # Still short at the end: no restore time, and no probability without an AFR.
    assert r["margin"] == 0 and r["restored_ns"] is None and r["short_ns"] == 19_000_000_000
    assert r["p_loss_by_failure"] is None
    text = "\n".join(redundancy_lines(summ))
    assert "still short at the end: 0 of 1 left" in text and "data loss" not in text


def test_reliability_fields_are_checked():
    for text, msg in (("afr_percent = 150.0", "devices.d.afr_percent: 150 — out of range; allowed: 0 (not published)..100"),
                      ("nonrecoverable_read_error_bits = 5.0", "devices.d.nonrecoverable_read_error_bits: 5 — out of "
                                                               "range; allowed: 0 (not published), or 1e10..1e20")):
        with pytest.raises(ScenarioError) as e:
            _run('type = "mirror", disks = 2', "", device=text + "\n", stop="1s")
        assert str(e.value) == msg


def test_a_resilver_with_nothing_to_copy_from_restores_no_copy():
    """QA pass 3 #5: both sides of a mirror fail, one is replaced. The resilver has no
    source ("with N errors", 0 B written): the new disk holds nothing, so the blocks stay
    without a copy to the end of the run; it used to count as a good copy from the
    resilver's end ("no copy left for 1.06s", then margin 0)."""
    res, summ = _run('type = "mirror", disks = 2',
                     _act("5s", "fail", disk="sda") + _act("6s", "fail", disk="sdb")
                     + _act("7s", "replace", old="sda", new="sdc"), stop="30s")
    assert res["scan"]["state"] == "finished" and res["scan"]["processed_bytes"] == 0
    r = _rec(res, "mirror-0")
    assert (r["margin"], r["min_margin"], r["restored_ns"]) == (-1, -1, None)
    assert r["lost_ns"] == 24_000_000_000  # from the second failure to the end
    text = "\n".join(redundancy_lines(summ))
    assert "no copy left for 24.0s" in text and "still short at the end" in text, text
    # Rates over a window of no time are null, not exabytes per second.
    for sc in res["scans"]:
        if sc["walk_ns"] == 0:
            assert sc["walk_examined_bytes_per_s"] is None
        if sc["duration_ns"] == sc["paused_ns"]:
            assert sc["examined_bytes_per_s"] is None and sc["issued_bytes_per_s"] is None


def test_an_attach_adds_a_copy_and_a_lone_disk_is_named_once():
    """QA pass 3 #11: attaching sdc to the lone sdb was reported as mirror-1 "running
    short" (no margin for 11.7s) while the lone sda, with no redundancy throughout, got
    no line at all."""
    text = ('[scenario]\nname = "r"\nstop = "scan-done"\n[zfs]\nrelease = "zfs-2.2"\n'
            '[pool]\nallocated = "2G"\nvdevs = [{ type = "disk", device = "hdd-7200-sata-2014" },'
            ' { type = "disk", device = "hdd-7200-sata-2014" }]\n' + _act("2s", "attach", disk="sdb", new="sdc"))
    res = runner.run(scenario.loads(text))
    r = _rec(res, "mirror-1")
    assert (r["tolerance"], r["margin"], r["min_margin"], r["short_ns"]) == (1, 1, 0, 0)
    # It had no margin as a lone disk and until the new side held everything: that is so.
    assert r["exposed_ns"] == res["scan"]["end_ns"]
    summ = build_summary(res, META)
    assert summ["pool"]["redundancy"] == [] and summ["pool"]["non_redundant_vdevs"] == ["sda"]
    assert redundancy_lines(summ) == [
        "redundancy: none on sda (a single-disk vdev): one failed disk or unreadable block there loses data"]
    # A pool of plain disks (a benchmark) is left alone; a lone disk that fails is news.
    res, summ = _run('type = "disk"', "", stop="5s")
    assert redundancy_lines(summ) == []
    res, summ = _run('type = "disk"', _act("1s", "fail", disk="sda"), stop="5s")
    assert redundancy_lines(summ) == [
        "redundancy: sda has no redundancy; no copy left for 4.00s (from 1.00s): blocks were lost (see zpool status)"]


def test_the_worst_margin_is_told_against_the_tolerance_it_had_then():
    """QA 2026-11-28: a 3-way mirror short by one disk, then narrowed to two by detaches,
    said "could lose 1 more disk, not 1" — the tolerance after the detach, not while short."""
    acts = (_act("1s", "fail", disk="sdb") + _act("2s", "replace", old="sdb", new="sdz")
            + _act("4s", "fail", disk="sdz") + _act("6s", "detach", disk="sdz") + _act("8s", "detach", disk="sdb"))
    res, summ = _run('type = "mirror", disks = 3', acts, stop="20s")
    r = _rec(res, "mirror-0")
    assert (r["tolerance"], r["min_margin"], r["tolerance_at_worst"]) == (1, 1, 2)
    assert "could lose 1 more disk, not 2" in "\n".join(redundancy_lines(summ))

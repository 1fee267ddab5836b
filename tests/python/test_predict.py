"""Time left of a real scan, read off a simulation of the same pool (ziosim.predict)."""

import pytest

from ziosim import predict, runner, scenario

META = {"release": "zfs-2.1", "name": "p", "seed": 0, "version": "t", "scenario_hash": "h"}


def _text(stop: str) -> str:
    return (
        f'[scenario]\nname = "p"\nstop = "{stop}"\nreport_interval = "2s"\n'
        '[zfs]\nrelease = "zfs-2.1"\n'
        '[pool]\nallocated = "3G"\nvdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }]\n'
        '[[action]]\nat = "0s"\ndo = "scrub"\n'
    )


@pytest.fixture(scope="module")
def done():
    return runner.run(scenario.loads(_text("scan-done")))


def test_time_left_is_the_simulated_rest_and_scales_with_the_real_pace(done):
    whole = done["scan"]["duration_ns"] / 1e9
    r = predict.remaining(done, META, "scrub", 0.5, real_elapsed_s=None, real_eta_s=None)
    assert r.sim_finished and r.sim_total_s == pytest.approx(whole, abs=1.0)
    assert r.sim_reach_s + r.sim_left_s == pytest.approx(r.sim_total_s)
    # A scrub of one fresh mirror runs at a steady rate after its metadata: half done is
    # past the middle of its time (the walk comes first), and well before its end.
    assert 0.3 * whole < r.sim_reach_s < 0.9 * whole
    assert r.pace is None and r.paced_left_s is None
    assert any("real elapsed" in w for w in r.warnings)
    # A real pool that took three times as long to get there has three times as long to go.
    slow = predict.remaining(done, META, "scrub", 0.5, real_elapsed_s=3 * r.sim_reach_s, real_eta_s=100.0)
    assert slow.pace == pytest.approx(3.0)
    assert slow.paced_left_s == pytest.approx(3 * r.sim_left_s)
    assert not slow.warnings
    text = "\n".join(predict.lines(slow))
    assert "50.00% done" in text and "pace × 3.00" in text and "the release's own ETA" in text


def test_progress_is_monotone_in_the_fraction(done):
    reach = [predict.remaining(done, META, "scrub", f, 1.0, None).sim_reach_s for f in (0.0, 0.1, 0.5, 0.9, 1.0)]
    assert reach == sorted(reach)
    assert reach[0] >= 0 and reach[-1] <= done["scan"]["duration_ns"] / 1e9 + 2


def test_an_unfinished_run_is_completed_with_its_release_estimate():
    part = runner.run(scenario.loads(_text("8s")))
    r = predict.remaining(part, META, "scrub", 0.01, real_elapsed_s=5.0, real_eta_s=None)
    assert not r.sim_finished
    assert r.sim_total_s > 8
    assert any("stopped before" in w for w in r.warnings)
    assert any("only 1.00% done" in w for w in r.warnings)  # below PACE_MIN_FRACTION


def test_no_such_scan_is_an_error(done):
    with pytest.raises(predict.PredictError, match="no resilver"):
        predict.remaining(done, META, "resilver", 0.5, 1.0, None)
    with pytest.raises(ValueError):
        predict.remaining(done, META, "scrub", 1.5, 1.0, None)


def test_a_minutes_only_release_estimate_is_taken_unrounded():
    """zfs-0.7 prints its ETA as XhYm, the seconds dropped: 11 s to go prints 0h0m, which
    made an 8 s run of a 19 s scrub end at 8 s. The same straight line unrounded — the time
    so far scaled by the fraction examined — ends it where the whole run does."""
    text = _text("8s").replace("zfs-2.1", "zfs-0.7")
    meta = dict(META, release="zfs-0.7")
    part = runner.run(scenario.loads(text))
    whole = runner.run(scenario.loads(text.replace('stop = "8s"', 'stop = "scan-done"')))
    r = predict.remaining(part, meta, "scrub", 0.1, real_elapsed_s=5.0, real_eta_s=None)
    assert not r.sim_finished
    assert r.sim_total_s == pytest.approx(whole["scan"]["duration_ns"] / 1e9, rel=0.05)
    assert r.sim_total_s > 8 + 5  # not the time so far plus "0h0m"
    (note,) = [w for w in r.warnings if "stopped before" in w]
    assert "before it drops the seconds" in note

"""`ziosim advise`: goals and limits, the default knobs per release, the choice rules
(limits, unsafe settings, data at risk, the tolerance that prefers fewer changes), and the
whole verb end to end on the busy-scrub case (the compiled core)."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ziosim import advise
from ziosim.cli import app
from ziosim.errors import ScenarioError

from conftest import ROOT, SCENARIOS

ENV = {"NO_COLOR": "1", "COLUMNS": "100"}
BUSY = ROOT / "cases" / "busy-scrub" / "default-delay.toml"
needs_core = pytest.mark.needs_core


def invoke(*args):
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, [str(a) for a in args], env=ENV)


# ----------------------------------------------------------------------------- goals and limits


def test_goal_and_limit_parse_with_units_and_workloads():
    g = advise.parse_goal("scan-time")
    assert (g.measure.name, g.measure.better, g.workload) == ("scan-time", "min", None)
    assert advise.parse_goal("users.ops/s").measure.better == "max"
    lim = advise.parse_limit("users.p99<=50ms")
    assert (lim.workload, lim.measure.name, lim.op, lim.value) == ("users", "p99", "<=", 50e6)
    assert lim.met(50e6) and not lim.met(50e6 + 1) and not lim.met(None)
    assert advise.parse_limit("scan-rate>=100M/s").value == 100 * 2**20
    assert advise.parse_limit("at-risk<=0").value == 0
    assert advise.parse_limit("db.p99.9 <= 1s").measure.name == "p99.9"


@pytest.mark.parametrize("text, match", [
    ("p99<50ms", "MEASURE<=VALUE"),
    ("p99<=50", "duration"),
    ("users.scan-time<=1h", "pool measure"),
    ("p42<=1ms", "MEASURE one of"),
    ("ops/s>=-3", "finite number"),
])
def test_bad_limits_are_one_line_errors(text, match):
    with pytest.raises(ScenarioError, match=match):
        advise.parse_limit(text)


def test_workload_measures_get_the_first_workload_or_an_error():
    g = advise.with_workload(advise.parse_goal("p99"), ["users", "batch"], "--goal")
    assert g.workload == "users"
    with pytest.raises(ScenarioError, match="allowed: one of users"):
        advise.with_workload(advise.parse_goal("nosuch.p99"), ["users"], "--goal")
    with pytest.raises(ScenarioError, match="no workload"):
        advise.with_workload(advise.parse_goal("p99"), [], "--goal")
    assert advise.with_workload(advise.parse_goal("scan-time"), [], "--goal").workload is None


# ----------------------------------------------------------------------------- default knobs


def _config(release, actions, tunables=None):
    return {"release": release, "ram_bytes": 16 << 30, "actions": actions, "tunables": tunables or {}}


def test_default_knobs_follow_the_release_scan_engine(fake_core):
    legacy = advise.default_knobs(_config("illumos-2014", [{"do": "scrub"}], {"zfs_scrub_delay": 3}))
    assert [n for n, _ in legacy] == ["zfs_scrub_delay", "zfs_top_maxinflight"]
    assert legacy[0][1] == [0, 1, 2, 3, 4]  # the scenario's own 3 joins the ladder
    assert 32 in legacy[1][1]  # the release default is always tried
    sorted_ = advise.default_knobs(_config("zfs-2.2", [{"do": "scrub"}]))
    assert [n for n, _ in sorted_] == ["zfs_scan_vdev_limit", "zfs_vdev_scrub_max_active"]
    assert 16 << 20 in sorted_[0][1]
    resilver = advise.default_knobs(_config("zfs-0.7", [{"do": "fail"}, {"do": "replace"}]))
    assert [n for n, _ in resilver] == ["zfs_resilver_delay", "zfs_resilver_min_time_ms"]
    assert advise.default_knobs(_config("zfs-2.2", [])) == []
    three = advise.default_knobs(_config("zfs-2.1", [{"do": "scrub"}]), count=3)
    assert [n for n, _ in three] == ["zfs_scan_vdev_limit", "zfs_vdev_scrub_max_active", "zfs_vdev_nia_delay"]
    two = advise.default_knobs(_config("zfs-2.0", [{"do": "scrub"}]), count=3)
    assert [n for n, _ in two] == ["zfs_scan_vdev_limit", "zfs_vdev_scrub_max_active"]  # no NIA before 2.0.1
    for n, vals in sorted_ + legacy + resilver:
        assert vals == sorted(set(vals)) and len(vals) > 1


def test_ladders_stay_in_the_declared_range():
    decl = {"min": 1, "max": 10}
    assert advise.ladder("zfs_vdev_scrub_max_active", 3, decl) == [1, 2, 3, 8]
    assert advise.ladder("zfs_top_maxinflight", 32, {"min": 1, "max": 50}) == [16, 32]


# ----------------------------------------------------------------------------- choosing


AXES = [{"field": "zfs.tunables.zfs_scrub_delay", "name": "zfs.tunables.zfs_scrub_delay", "values": [0, 1, 4]},
        {"field": "zfs.tunables.zil_disable", "name": "zfs.tunables.zil_disable", "values": [0, 1]}]


def _grid(scan_s, p99_ms, risk=None):
    """Manifest and rows for the 3 × 2 grid; values per point in grid order."""
    points, rows = [], []
    k = 0
    for d in AXES[0]["values"]:
        for z in AXES[1]["values"]:
            k += 1
            points.append({"index": k, "id": f"p{k}", "values": [d, z], "labels": [str(d), str(z)]})
            rows.append({
                "point": k, "release": "illumos-2014", "workload": "users", "scan_func": "scrub",
                "scan_state": "finished", "scan_duration_ns": int(scan_s[k - 1] * 1e9),
                "scan_window_latency_ns_p99": int(p99_ms[k - 1] * 1e6),
                "at_risk_bytes_max": (risk or [0] * 6)[k - 1],
            })
    return {"axes": AXES, "points": points}, rows


BASE = "p5"  # the point that runs the scenario as written: delay 4, zil_disable 0


def _choose(man, rows, limits=(), **kw):
    kw.setdefault("allow_unsafe", False)
    return advise.choose(advise.parse_goal("scan-time"), [advise.parse_limit(t) for t in limits], man, rows, BASE,
                         scan_window=True, pool="tank", **kw)


def test_the_best_feasible_point_wins_and_unsafe_settings_need_permission():
    # points: (0,0) (0,1) (1,0) (1,1) (4,0) (4,1)
    man, rows = _grid([10, 5, 20, 19, 100, 99], [60, 60, 40, 40, 30, 30])
    a = _choose(man, rows)
    assert a.baseline.index == 5 and a.best.index == 1  # zil_disable=1 (point 2) is unsafe
    assert "unsafe" in next(c for c in a.candidates if c.index == 2).why_not
    assert _choose(man, rows, allow_unsafe=True).best.index == 2
    limited = _choose(man, rows, ["users.p99<=50ms"])
    assert limited.best.index == 3
    assert next(c for c in limited.candidates if c.index == 1).why_not == "misses users.p99<=50ms"
    none = _choose(man, rows, ["users.p99<=10ms"])
    assert none.best is None
    text = advise.render(none, "out/x")
    assert "no setting tried meets every limit" in text and "misses users.p99<=10ms" in text


def test_within_tolerance_the_fewest_changes_win():
    # Point 1 (delay 0) is the fastest safe setting, but the baseline (point 5) is within
    # 2 % of it: a simulated difference that small changes nothing. With no tolerance the
    # fastest wins.
    man, rows = _grid([99.0, 98.0, 99.5, 99.5, 100.0, 100.0], [1] * 6)
    assert _choose(man, rows).best.index == 5
    assert _choose(man, rows, tolerance=0.0).best.index == 1
    text = advise.render(_choose(man, rows), "out/x")
    assert "keep the current settings" in text


def test_more_data_at_risk_than_today_is_refused_unless_limited():
    man, rows = _grid([10, 5, 20, 19, 100, 99], [1] * 6, risk=[4096, 0, 0, 0, 0, 0])
    a = _choose(man, rows)
    assert next(c for c in a.candidates if c.index == 1).why_not == "more data at risk"
    assert a.best.index == 3
    assert _choose(man, rows, ["at-risk<=1M"]).best.index == 1


def test_an_at_risk_limit_admits_more_risk_but_not_an_unsafe_setting():
    """QA F6: a limit on at-risk replaces the baseline as the bound on data at risk; an unsafe
    knob (zil_disable here, sync=disabled alike) still needs --allow-unsafe (docs/advise.md)."""
    man, rows = _grid([10, 5, 20, 19, 100, 99], [1] * 6, risk=[4096, 1024, 0, 0, 0, 0])
    a = _choose(man, rows, ["at-risk<=1M"])
    assert a.best.index == 1  # more at risk than the baseline, within the limit: admitted
    assert next(c for c in a.candidates if c.index == 2).why_not == "unsafe"  # meets the limit, still out
    assert _choose(man, rows, ["at-risk<=1M"], allow_unsafe=True).best.index == 2
    text = advise.render(a, "out/x", show_all=True)
    assert "not an unsafe setting; --allow-unsafe does" in text
    assert "--allow-unsafe does" not in advise.render(_choose(man, rows), "out/x", show_all=True)


@pytest.mark.parametrize("goal, limits", [("scan-time", ["at-risk<=1M"]), ("at-risk", []),
                                          ("scan-time", [])])
def test_the_at_risk_column_is_shown_once(goal, limits):
    man, rows = _grid([10, 5, 20, 19, 100, 99], [1] * 6, risk=[4096, 1024, 0, 0, 0, 0])
    a = advise.choose(advise.parse_goal(goal), [advise.parse_limit(t) for t in limits], man, rows, BASE,
                      scan_window=True, allow_unsafe=False, pool="tank")
    header = next(line for line in advise.render(a, "out/x").splitlines() if line.startswith("setting"))
    assert len(re.findall(r"at risk", header)) == 1, header


def test_scan_time_is_projected_from_zpool_status_when_unfinished():
    row = {"scan_duration_ns": 100e9, "scan_state": "scanning", "scan_eta_ns": 50e9}
    assert advise._projected_scan_ns(row) == (150e9, True)
    row = {"scan_duration_ns": 100e9, "scan_state": "scanning", "scan_eta_ns": None,
           "scan_to_examine_bytes": 1000, "scan_issued_bytes": 250}
    assert advise._projected_scan_ns(row) == (400e9, True)
    row["scan_issued_bytes"] = 0  # nothing issued yet: nothing to project from, not "never"
    value, projected = advise._projected_scan_ns(row)
    assert advise.is_unknown(value) and not projected
    assert advise.fmt_measure(advise.MEASURES["scan-time"], value, "zfs-2.2") == "unknown"
    assert advise.fmt_measure(advise.MEASURES["scan-time"], 400e9, "zfs-2.2", True) == "~6m40s"
    # A sequential rebuild is what restores redundancy: it counts before the scrub after it.
    row = {"rebuild_duration_ns": 60e9, "rebuild_state": "active", "rebuild_eta_ns": 30e9,
           "scan_duration_ns": 5e9, "scan_state": "finished"}
    assert advise._projected_scan_ns(row) == (90e9, True)
    row["rebuild_state"] = "complete"
    assert advise._projected_scan_ns(row) == (60e9, False)


def test_a_minutes_only_eta_is_projected_unrounded():
    """≤0.7's zpool status prints the time to go as XhYm, the seconds dropped: 13 s to go
    prints 0h0m. The projection takes the same straight line (bytes left at the rate
    examined so far) before the rounding; 0.8+ prints seconds and is taken as printed."""
    row = {"scan_duration_ns": 119e9, "scan_state": "scanning", "scan_eta_ns": 0, "release": "zfs-0.7",
           "scan_to_examine_bytes": 4_299_264_000, "scan_examined_bytes": 3_864_236_032,
           "scan_issued_bytes": 3_864_236_032}
    value, projected = advise._projected_scan_ns(row)
    assert projected and value == pytest.approx(119e9 * 4_299_264_000 / 3_864_236_032)
    assert 132e9 < value < 133e9  # the run to the end: 132.4 s; the printed ETA gave 119 s
    for release in ("solaris-2009", "freebsd-9", "illumos-2014", "zfs-0.6.5"):
        assert advise._projected_scan_ns(dict(row, release=release))[0] == value
    assert advise._projected_scan_ns(dict(row, release="zfs-0.8")) == (119e9, True)
    assert advise._projected_scan_ns(dict(row, release="zfs-2.2", scan_eta_ns=13e9)) == (132e9, True)
    assert [advise.eta_in_minutes(r) for r in ("illumos-2014", "zfs-0.7", "zfs-0.8", "zfs-2.3", None)] == [
        True, True, False, False, False]


# ----------------------------------------------------------------------------- the verb


def test_errors_before_anything_runs(tmp_path):
    r = invoke("advise", SCENARIOS / "one-disk-qd1.toml", "--out", tmp_path / "o")
    assert r.exit_code == 2 and "runs no scrub or resilver" in r.stderr
    r = invoke("advise", SCENARIOS / "one-disk-qd1.toml", "--goal", "p99", "--out", tmp_path / "o")
    assert r.exit_code == 2 and "--set: missing" in r.stderr
    r = invoke("advise", BUSY, "--limit", "nosuch.p99<=1s", "--out", tmp_path / "o")
    assert r.exit_code == 2 and r.stderr.strip().count("\n") == 0 and "one of users" in r.stderr
    assert not (tmp_path / "o").exists()


@needs_core
def test_busy_scrub_advice_is_the_delay_the_admin_removed(tmp_path):
    """cases/busy-scrub: the OmniOS admin's fix was zfs_scrub_delay=0 through mdb. advise,
    asked to minimise the scrub's time with the users' p99 bounded, finds it, prints the
    illumos commands to apply and revert it, and writes advice.json; a second call reuses
    the runs and prints the same bytes."""
    out = tmp_path / "adv"
    args = ("advise", BUSY, "--stop", "2m", "--limit", "users.p99<=200ms", "--out", out, "--jobs", "2")
    r = invoke(*args)
    assert r.exit_code == 0, r.stderr
    text = r.stdout
    # docs/advise.md shows this run (made with --out out/advise-busy-scrub).
    shown = text.replace(str(out), "out/advise-busy-scrub")
    doc_path = ROOT / "docs" / "advise.md"
    page = doc_path.read_text(encoding="utf-8")
    head, rest = page.split("<!-- advise-example -->\n```\n", 1)
    example, tail = rest.split("```\n<!-- /advise-example -->", 1)
    if os.environ.get("ZIOSIM_UPDATE_SNAPSHOTS"):
        doc_path.write_text(head + "<!-- advise-example -->\n```\n" + shown + "```\n<!-- /advise-example -->" + tail,
                            encoding="utf-8")
    else:
        assert shown == example, "docs/advise.md example is stale (ZIOSIM_UPDATE_SNAPSHOTS=1 rewrites it)"
    assert "recommended: zfs_scrub_delay=0*" in text
    assert "echo 'zfs_scrub_delay/W0t0' | mdb -kw" in text
    assert "set zfs:zfs_scrub_delay = 0" in text
    assert "echo 'zfs_scrub_delay/W0t4' | mdb -kw" in text  # the way back
    doc = json.loads((out / "advice.json").read_text())
    assert doc["recommended"]["settings"]["zfs.tunables.zfs_scrub_delay"] == 0
    assert doc["baseline"]["settings"]["zfs.tunables.zfs_scrub_delay"] == 4
    assert doc["recommended"]["goal"] < doc["baseline"]["goal"] / 5  # the delay costs the scrub > 5x
    again = invoke(*args)
    assert again.stdout == text and "0 run" in again.stderr


@needs_core
def test_json_output_is_the_advice_document(tmp_path):
    r = invoke("advise", BUSY, "--stop", "1m", "--set", "zfs.tunables.zfs_scrub_delay=0", "--json", "-q",
               "--out", tmp_path / "a", "--jobs", "1")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    # The scenario's own value (4) joins an axis that lacked it, so there is a baseline.
    assert doc["axes"] == [{"field": "zfs.tunables.zfs_scrub_delay", "values": [4, 0]}]
    assert doc["baseline"]["settings"] == {"zfs.tunables.zfs_scrub_delay": 4}
    assert set(doc["commands"]) == {"illumos"}
    assert doc["schema_version"] == 1 and doc["ziosim_version"] and doc["scenario"]["seed"] == 0
    assert len(doc["scenario"]["hash"]) == 16
    assert Path(tmp_path / "a" / "sweep.parquet").is_file()


def test_the_baseline_is_the_same_run_however_the_axes_spell_it(fake_core):
    from types import SimpleNamespace

    base = {"release": "illumos-2014", "ram_bytes": 16 << 30, "tunables": {"zfs_scrub_delay": 4},
            "pool": {"name": "tank"}}

    def point(pid, **cfg):
        return SimpleNamespace(id=pid, scenario=SimpleNamespace(config={**base, **cfg}))

    # An axis spelling out a default (top_maxinflight 32) or sync=standard is still today's run.
    same = point("b", tunables={"zfs_scrub_delay": 4, "zfs_top_maxinflight": 32}, sync="standard")
    other = point("a", tunables={"zfs_scrub_delay": 0, "zfs_top_maxinflight": 32})
    assert advise.baseline_point(base, [other, same]) == "b"
    assert advise.baseline_point(base, [other, point("c", sync="disabled")]) is None
    assert advise.baseline_point(base, [point("d", pool={"name": "tank", "log": [{}]})]) is None
    # zfs_dirty_data_max's default is derived from RAM: 10 % of 16 GiB is the run as written,
    # the declaration's 4 GiB is not (QA F2: the 4 GiB point was taken for the baseline).
    tenth = (16 << 30) * 10 // 100
    dirty = {"zfs_scrub_delay": 4, "zfs_dirty_data_max": tenth}
    assert advise.baseline_point(base, [point("e", tunables={**dirty, "zfs_dirty_data_max": 4 << 30}),
                                        point("f", tunables=dirty)]) == "f"


def test_a_derived_default_is_the_scenarios_own_value_and_its_way_back(fake_core):
    """QA F2: advise took 4 GiB as zfs_dirty_data_max's default whatever zfs.ram said — for
    the value the baseline runs at, and for the revert command."""
    f = "zfs.tunables.zfs_dirty_data_max"
    cfg = {"release": "zfs-2.2", "ram_bytes": 8 << 30, "tunables": {}}
    tenth = (8 << 30) * 10 // 100
    assert advise.current_tunables(cfg, [f]) == {f: tenth}
    # A percent the scenario sets re-derives it, as arc_init does.
    assert advise.current_value({**cfg, "tunables": {"zfs_dirty_data_max_percent": 20}}, f[13:]) == 2 * tenth
    axes = [{"field": f, "name": f, "values": [tenth, 2 << 30]}]
    points = [{"index": i + 1, "id": f"p{i + 1}", "values": [v], "labels": [str(v)]}
              for i, v in enumerate(axes[0]["values"])]
    rows = [{"point": i + 1, "release": "zfs-2.2", "workload": "w", "latency_ns_p99": ms * 1_000_000,
             "at_risk_bytes_max": 0} for i, ms in enumerate([9, 5])]
    a = advise.choose(advise.parse_goal("w.p99"), [], {"axes": axes, "points": points}, rows, "p1",
                      scan_window=False, allow_unsafe=False, pool="tank", ram_bytes=8 << 30)
    assert a.best.index == 2
    text = advise.render(a, "out/x")
    assert "zfs_dirty_data_max=819M" in text  # the baseline's label: 10 % of 8 GiB
    assert f"echo {tenth} > /sys/module/zfs/parameters/zfs_dirty_data_max" in text
    assert "4294967296" not in text
    assert "revert to the zfs-2.2 defaults" in text
    assert f"# note: {tenth} is the zfs-2.2 default for zfs_dirty_data_max with 8G of RAM" in text


def test_tradeoff_plot_marks_every_setting_and_the_recommendation():
    man, rows = _grid([10, 5, 20, 19, 100, 99], [60, 60, 40, 40, 30, 30])
    a = _choose(man, rows, ["users.p99<=50ms"])
    svg = advise.tradeoff_svg(a, "ziosim test")
    assert svg.count('<g class="setting">') == 6
    assert ">recommended</text>" in svg and ">today</text>" in svg and "limit users.p99&lt;=50ms" in svg
    assert svg == advise.tradeoff_svg(a, "ziosim test")  # deterministic
    # The front: (5s, 60ms) is beaten by nothing; (10s, 60ms) is beaten by (5s, 60ms).
    assert "(unsafe)" in svg and "(misses users.p99&lt;=50ms)" in svg
    man, rows = _grid([10, 5, 20, 19, 100, 99], [1] * 6)
    for r in rows[1:]:
        r["scan_window_latency_ns_p99"] = None  # no operation ended during the scan
    assert advise.tradeoff_svg(_choose(man, rows, ["users.p99<=50ms"]), "x") is None  # one point: no trade-off


@pytest.mark.needs_core
def test_a_value_spelt_with_a_unit_is_recognised_as_the_scenarios_own():
    """--set zfs_scan_vdev_limit=1M,4M,16M on a release whose value is 16 MiB: the baseline is
    the 16M point (it used to be added again as 16777216, and the sweep refused the twin)."""
    from ziosim.cli import _with_baseline

    f = "zfs.tunables.zfs_scan_vdev_limit"
    assert _with_baseline(f"{f}=1M,4M,16M", {f: 16 << 20}) == f"{f}=1M,4M,16M"
    assert _with_baseline(f"{f}=1M,4M", {f: 16 << 20}) == f"{f}=16777216,1M,4M"
    assert _with_baseline(f"{f}=1M,bogus", {f: 16 << 20}) == f"{f}=16777216,1M,bogus"


def _unknown_rows(rows, points):
    """The rows of `points` as a sorted scan still walking metadata leaves them: nothing issued."""
    for r in rows:
        if r["point"] in points:
            r.update(scan_state="scanning", scan_eta_ns=None, scan_engine="sorted", sim_time_ns=90e9,
                     scan_duration_ns=30e9, scan_to_examine_bytes=600, scan_examined_bytes=250, scan_issued_bytes=0)
    return rows


def test_an_unknown_scan_time_is_not_ranked_and_says_the_run_was_too_short():
    """A scan that issued nothing when the run stopped used to print `never` under the
    "~ projected" legend, and every point tied on it, so the baseline came out RECOMMENDED."""
    man, rows = _grid([10, 5, 20, 19, 100, 99], [1] * 6)
    a = _choose(man, _unknown_rows(rows, range(1, 7)))
    assert a.too_short and a.best is None
    assert all(c.why_not == "scan-time unknown (run too short)" for c in a.candidates)
    text = advise.render(a, "out/x")
    assert "RECOMMENDED" not in text and "never" not in text and "~ projected" not in text
    assert len(re.findall(r" {2}unknown {2}", text)) == 6  # the scan time column
    # walk end ≈ 60 s + 30 s × 600/250 = 132 s; twice that, in whole minutes
    assert text.endswith("no recommendation: the runs were too short for scan-time; run longer, e.g. --stop 5m\n")
    assert "unknown: the scrub had issued no data when the run stopped (it was still walking the metadata" in text
    assert advise.to_json(a)["recommended"] is None
    # Points whose time is known are ranked; those without stay out of the ranking.
    man, rows = _grid([10, 5, 20, 19, 100, 99], [1] * 6)
    a = _choose(man, _unknown_rows(rows, {1, 5}))
    assert not a.too_short and a.best.index == 3
    assert "run longer" not in advise.render(a, "out/x")


@needs_core
def test_advise_on_a_run_too_short_for_the_scan_recommends_nothing(tmp_path):
    r = invoke("advise", SCENARIOS / "default.toml", "--goal", "scan-time", "--limit", "users.p99<=100ms",
               "--stop", "62s", "--knobs", "1", "--jobs", "1", "--out", tmp_path / "a")
    assert r.exit_code == 1, r.stderr
    assert "RECOMMENDED" not in r.stdout and "never" not in r.stdout
    assert "no recommendation: the runs were too short for scan-time; run longer, e.g. --stop " in r.stdout


# ----------------------------------------------------------------------------- values with units (--set …=64M)

SMALL = """\
[scenario]
name = "small"
seed = 0
stop = "20s"
report_interval = "5s"

[zfs]
release = "zfs-2.2"
{tunables}
[devices.hdd]
like = "hdd-7200-sata-2014"
capacity = "20G"

[pool]
name = "tank"
ashift = 12
recordsize = "128K"
fill = 0.2
vdevs = [{{ type = "mirror", disks = 2, device = "hdd" }}]

[[workload]]
name = "users"
kind = "random-read"
size = "8K"
threads = 2
arc_hit = 0.0
{actions}"""
SCRUB = '\n[[action]]\nat = "1s"\ndo = "scrub"\n'


def small(tmp_path, tunables="", actions=SCRUB, name="small.toml"):
    """The exploratory tester's small scenario (/tmp/qa-cli/REPORT.md): a 2-disk mirror, a
    random-read workload and a scrub at 1 s; a run takes under a second."""
    p = tmp_path / name
    p.write_text(SMALL.format(tunables=tunables, actions=actions), encoding="utf-8")
    return p


def test_a_tunable_value_is_read_in_its_unit_as_the_scenario_reads_it(fake_core):
    assert advise.setting_value("zfs.tunables.zfs_scan_vdev_limit", "64M") == 64 << 20
    assert advise.setting_value("zfs.tunables.zfs_scan_vdev_limit", 4096) == 4096
    assert advise.setting_value("zfs.tunables.zfs_scrub_min_time_ms", "2s") == 2000
    assert advise.setting_value("zfs.tunables.zfs_no_scrub_io", True) == 1
    assert advise.setting_value("zfs.sync", "always") == "always"  # not a tunable: as written
    with pytest.raises(ScenarioError, match="zfs.tunables.zfs_scrub_min_time_ms"):
        advise.setting_value("zfs.tunables.zfs_scrub_min_time_ms", "1500us")


def test_values_spelt_with_units_are_compared_labelled_and_commanded_as_integers(fake_core):
    """--set zfs_scan_vdev_limit=4M,64M: the axis values reach advise as the strings the
    command line gave. _changes did int("64M") and the whole advice was lost."""
    f = "zfs.tunables.zfs_scan_vdev_limit"
    axes = [{"field": f, "name": f, "values": [16 << 20, "4M", "64M"]}]
    points = [{"index": i + 1, "id": f"p{i + 1}", "values": [v], "labels": [str(v)]}
              for i, v in enumerate(axes[0]["values"])]
    rows = [{"point": i + 1, "release": "zfs-2.2", "workload": "users", "scan_func": "scrub", "scan_state": "finished",
             "scan_duration_ns": int(s * 1e9), "at_risk_bytes_max": 0} for i, s in enumerate([100, 120, 50])]
    a = advise.choose(advise.parse_goal("scan-time"), [], {"axes": axes, "points": points}, rows, "p1",
                      scan_window=True, allow_unsafe=False, pool="tank")
    assert a.best.index == 3 and a.best.settings == {f: 64 << 20}
    text = advise.render(a, "out/x")
    assert "recommended: zfs_scan_vdev_limit=64M*" in text
    assert "echo 67108864 > /sys/module/zfs/parameters/zfs_scan_vdev_limit" in text
    assert "echo 16777216 > /sys/module/zfs/parameters/zfs_scan_vdev_limit" in text  # the way back
    doc = advise.to_json(a)
    assert doc["axes"] == [{"field": f, "values": [16 << 20, 4 << 20, 64 << 20]}]
    assert doc["recommended"]["settings"] == {f: 67108864}
    assert "sysctl vfs.zfs.scan_vdev_limit=67108864" in doc["commands"]["freebsd"]
    json.dumps(doc)


@pytest.mark.parametrize("release, base_sync, revert_sync, revert_log", [
    # sync at its default was inherited: `zfs inherit` restores that, `zfs set` would not.
    ("zfs-2.2", "standard", "zfs inherit sync tank", "# revert: zpool remove tank <device>"),
    ("zfs-2.2", "always", "zfs set sync=always tank", "# revert: zpool remove tank <device>"),
    # b117 cannot remove a log device (pool version 19, snv_125).
    ("solaris-2009", "standard", "zfs inherit sync tank", "# revert: none on this release"),
])
def test_every_change_advise_recommends_has_its_way_back(fake_core, release, base_sync, revert_sync, revert_log):
    axes = [{"field": "zfs.sync", "name": "zfs.sync", "values": [base_sync, "disabled"]},
            {"field": "pool.log", "name": "slog", "values": [[], [{"device": "intel-s3700"}]]}]
    labels = [(base_sync, "none"), (base_sync, "s3700"), ("disabled", "none"), ("disabled", "s3700")]
    vals = [(base_sync, []), (base_sync, [{"device": "intel-s3700"}]), ("disabled", []),
            ("disabled", [{"device": "intel-s3700"}])]
    points = [{"index": i + 1, "id": f"p{i + 1}", "values": list(v), "labels": list(lab)}
              for i, (v, lab) in enumerate(zip(vals, labels))]
    rows = [{"point": i + 1, "release": release, "workload": "cp", "kind": "nfs-copy", "elapsed_ns": e,
             "at_risk_bytes_max": 0} for i, e in enumerate([10e9, 2e9, 1e9, 0.9e9])]
    a = advise.choose(advise.parse_goal("cp.elapsed"), [], {"axes": axes, "points": points}, rows, "p1",
                      scan_window=False, allow_unsafe=True, pool="tank")
    assert a.best.index == 4
    text = advise.render(a, "out/x")
    assert f"zfs set sync=disabled tank        # revert: {revert_sync}" in text, text
    assert "zpool add tank log <device>" in text and revert_log in text, text


@pytest.mark.parametrize("vdevs, add, revert", [
    # Device removal refuses a pool with a parity vdev (spa_vdev_remove_top_check), and
    # zpool add a 2-way mirror beside raidz2 without -f (check_replication: 2 vs. 1).
    ([("raidz2", 6)], "zpool add -f tank special mirror <dev1> <dev2>",
     "# revert: none — zpool remove refuses a pool with a raidz or dRAID vdev"),
    ([("mirror", 2), ("mirror", 2)], "zpool add tank special mirror <dev1> <dev2>\n",
     "# revert: zpool remove tank <the special vdev, e.g. mirror-N>"),
])
def test_a_special_class_on_advice_says_how_to_add_it_what_it_changes_and_whether_it_comes_back(
        fake_core, vdevs, add, revert):
    mirror = [{"type": "mirror", "disks": 2, "device": "intel-s3700"}]
    axes = [{"field": "pool.special", "name": "special", "values": [[], mirror]},
            {"field": "zfs.special_small_blocks", "name": "small", "values": [0, 32768]}]
    vals = [([], 0), ([], 32768), (mirror, 0), (mirror, 32768)]
    points = [{"index": i + 1, "id": f"p{i + 1}", "values": list(v), "labels": [str(x) for x in v]}
              for i, v in enumerate(vals)]
    rows = [{"point": i + 1, "release": "zfs-2.2", "scan_func": "scrub", "scan_state": "finished",
             "scan_duration_ns": d, "at_risk_bytes_max": 0} for i, d in enumerate([100e9, 100e9, 96e9, 80e9])]
    a = advise.choose(advise.parse_goal("scan-time"), [], {"axes": axes, "points": points}, rows, "p1",
                      scan_window=False, allow_unsafe=False, pool="tank", vdevs=vdevs)
    assert a.best.index == 4
    text = advise.render(a, "out/x")
    assert add in text, text
    assert ("a 3-way mirror matches raidz2" in text) == (vdevs[0][0] == "raidz2"), text
    assert "zfs set special_small_blocks=32K tank        # revert: zfs inherit special_small_blocks tank" in text
    assert "existing files keep their place until rewritten" in text and revert in text, text
    # special_small_blocks left at 0 is no change to print.
    b = advise.choose(advise.parse_goal("scan-time"), [], {"axes": axes, "points": points},
                      [dict(r, scan_duration_ns=[100e9, 100e9, 80e9, 96e9][i]) for i, r in enumerate(rows)], "p1",
                      scan_window=False, allow_unsafe=False, pool="tank", vdevs=vdevs)
    assert b.best.index == 3 and "special_small_blocks" not in "".join(advise.commands(b)["linux"])


@needs_core
def test_advise_with_a_size_in_set_prints_the_commands_in_bytes(tmp_path):
    """The tester's reproduction: `--set zfs.tunables.zfs_scan_vdev_limit=64M` was an
    internal error (int('64M')), with nothing printed and no advice.json."""
    out = tmp_path / "adv-g"
    r = invoke("advise", small(tmp_path), "--set", "zfs.tunables.zfs_scan_vdev_limit=64M", "--out", out, "-q",
               "--jobs", "1")
    assert r.exit_code == 0, r.stderr
    assert "recommended: zfs_scan_vdev_limit=64M*" in r.stdout
    assert "echo 67108864 > /sys/module/zfs/parameters/zfs_scan_vdev_limit" in r.stdout
    assert "options zfs zfs_scan_vdev_limit=67108864" in r.stdout
    assert "sysctl vfs.zfs.scan_vdev_limit=67108864" in r.stdout
    doc = json.loads((out / "advice.json").read_text())
    assert doc["recommended"]["settings"] == {"zfs.tunables.zfs_scan_vdev_limit": 67108864}
    assert doc["baseline"]["settings"] == {"zfs.tunables.zfs_scan_vdev_limit": 16777216}
    assert (out / "tradeoff.svg").is_file()
    # The scenario sets the tunable itself (1 MiB) and --set names sizes: the way back is its value.
    tuned = small(tmp_path, tunables="tunables = { zfs_scan_vdev_limit = 1048576 }\n", name="tuned.toml")
    r = invoke("advise", tuned, "--set", "zfs.tunables.zfs_scan_vdev_limit=4M,16M", "--out", tmp_path / "t", "-q",
               "--jobs", "1")
    assert r.exit_code == 0, r.stderr
    assert "zfs_scan_vdev_limit=1M " in r.stdout and "baseline" in r.stdout
    assert "# the pool ran zfs_scan_vdev_limit=1048576 before (not the default 16777216)" in r.stdout
    doc = json.loads((tmp_path / "t" / "advice.json").read_text())
    assert doc["axes"][0]["values"] == [1048576, 4 << 20, 16 << 20]


@needs_core
def test_the_docs_example_with_sizes_runs(tmp_path):
    """docs/advise.md's last example, with --stop 5m so the projection has a scan to go by
    (the tester's run; 64M is then recommended, and its commands are printed in bytes)."""
    page = (ROOT / "docs" / "advise.md").read_text(encoding="utf-8")
    example = ("ziosim advise scenarios/default.toml --goal scan-time \\\n"
               "    --set zfs.tunables.zfs_scan_vdev_limit=4M,16M,64M --set zfs.tunables.zfs_vdev_nia_delay=2,5,10\n")
    assert example in page
    args = example.replace("\\\n", " ").split()[1:]
    args[1] = str(ROOT / args[1])
    out = tmp_path / "adv-doc"
    r = invoke(*args, "--stop", "5m", "--out", out, "-q")
    assert r.exit_code == 0, r.stderr
    doc = json.loads((out / "advice.json").read_text())
    limit = doc["recommended"]["settings"]["zfs.tunables.zfs_scan_vdev_limit"]
    assert isinstance(limit, int) and limit in (4 << 20, 16 << 20, 64 << 20)
    for lines in doc["commands"].values():
        assert not any(re.search(r"\d[KMG]\b", line) for line in lines if not line.startswith("#")), lines
    if limit != 16 << 20:
        assert f"echo {limit} > /sys/module/zfs/parameters/zfs_scan_vdev_limit" in r.stdout


# ----------------------------------------------------------------------------- a goal the scenario cannot measure


def _cfg(*workloads, sync=None, release="zfs-2.2", tunables=None, actions=()):
    c = {"release": release, "workloads": list(workloads), "tunables": tunables or {}, "actions": list(actions)}
    if sync is not None:
        c["sync"] = sync
    return c


def _goal(text, names=("w",)):
    return advise.with_workload(advise.parse_goal(text), list(names), "--goal")


@pytest.mark.parametrize("goal, configs, why", [
    ("elapsed", [_cfg({"name": "w", "kind": "random-read"})], "a random-read workload never finishes by itself"),
    ("elapsed", [_cfg({"name": "w", "kind": "nfs-copy", "files": 0})], "an nfs-copy with files = 0"),
    ("elapsed", [_cfg({"name": "w", "kind": "trace", "trace": {"ops": "RW", "repeat": True}})],
     "a repeating trace never finishes"),
    ("commit-p99", [_cfg({"name": "w", "kind": "trace", "trace": {"ops": "RWW", "repeat": False}})],
     "no workload calls zil_commit"),
    ("commit-p99", [_cfg({"name": "w", "kind": "random-read"}, sync="always")], "no workload calls zil_commit"),
    ("commit-p99", [_cfg({"name": "w", "kind": "random-write"})], "no workload calls zil_commit"),
    ("commit-p99", [_cfg({"name": "w", "kind": "zvol", "fua": False, "flush_every": 0})], "no workload calls"),
    ("commit-p99", [_cfg({"name": "w", "kind": "fsync-write"}, sync="disabled")] * 2,
     "zfs.sync = disabled, so zil_commit returns at once, in all 2 settings tried"),
    ("commit-p99", [_cfg({"name": "w", "kind": "nfs-copy", "files": 9}, release="solaris-2009",
                         tunables={"zil_disable": 1})], "zil_disable = 1"),
    ("scan-time", [_cfg({"name": "w", "kind": "random-read"})], "the scenario starts no scrub, resilver or rebuild"),
    # A --stop before the scrub: the runs never start it.
    ("scan-time", [dict(_cfg({"name": "w", "kind": "random-read"}, actions=[{"at_ns": 60 * 10**9, "do": "scrub"}]),
                        stop_ns=30 * 10**9)],
     "the runs stop at 30.0s, before the actions that would start a scan (the first at 60.0s)"),
])
def test_a_goal_no_setting_can_measure_is_refused(goal, configs, why):
    with pytest.raises(ScenarioError) as e:
        advise.check_measurable(_goal(goal), [], configs)
    line = str(e.value)
    assert line.startswith(f"--goal: {goal} — ") and why in line and "\n" not in line
    assert "; allowed: " in line


@pytest.mark.parametrize("goal, configs", [
    ("elapsed", [_cfg({"name": "w", "kind": "nfs-copy", "files": 10})]),
    ("elapsed", [_cfg({"name": "w", "kind": "trace", "trace": {"ops": "RW", "repeat": False}})]),
    ("commit-p99", [_cfg({"name": "w", "kind": "trace", "trace": {"ops": "RWF", "repeat": False}})]),
    ("commit-p99", [_cfg({"name": "w", "kind": "trace", "trace": {"ops": "RS", "repeat": True}})]),
    ("commit-p99", [_cfg({"name": "w", "kind": "trace", "trace": {"ops": "RW", "repeat": True}}, sync="always")]),
    ("commit-p99", [_cfg({"name": "w", "kind": k}) for k in ("fsync-write", "nfs-copy", "database")]),
    ("commit-p99", [_cfg({"name": "w", "kind": "zvol", "fua": True})]),
    ("commit-p99", [_cfg({"name": "w", "kind": "zvol", "flush_every": 8})]),
    ("commit-p99", [_cfg({"name": "w", "kind": "random-write"}, sync="always")]),
    ("commit-p99", [_cfg({"name": "w", "kind": "nfs-copy", "files": 9}, release="zfs-2.2", tunables={"zil_disable": 1})]),
    # Measurable in one setting of the grid: sync=disabled in the other does not matter.
    ("commit-p99", [_cfg({"name": "w", "kind": "fsync-write"}, sync="disabled"), _cfg({"name": "w", "kind": "fsync-write"})]),
    ("commit-p99", [_cfg({"name": "w", "kind": "seq-write"}), _cfg({"name": "w", "kind": "seq-write"}, sync="always")]),
    ("elapsed", [_cfg({"name": "w", "kind": "nfs-copy", "files": 0}), _cfg({"name": "w", "kind": "nfs-copy", "files": 5})]),
    ("scan-time", [_cfg({"name": "w", "kind": "random-read"}, actions=[{"do": "replace"}])]),
    ("p99", [_cfg({"name": "w", "kind": "random-read"})]),
    ("at-risk", [_cfg({"name": "w", "kind": "random-read"})]),
])
def test_a_goal_some_setting_can_measure_is_accepted(goal, configs):
    advise.check_measurable(_goal(goal), [], configs)


def test_a_limit_no_setting_can_measure_is_refused_too():
    with pytest.raises(ScenarioError, match=r"^--limit commit-p99<=5ms: commit-p99 — no workload calls zil_commit"):
        advise.check_measurable(_goal("p99"), [advise.parse_limit("commit-p99<=5ms")],
                                [_cfg({"name": "w", "kind": "random-read"})])


@needs_core
@pytest.mark.parametrize("goal", ["elapsed", "commit-p99"])
def test_advise_refuses_an_unmeasurable_goal_before_running_anything(tmp_path, goal):
    """It used to run the whole grid, then say "no setting tried meets every limit; widen the
    grid (--set) or relax a limit" (exit 1) with no limit given."""
    r = invoke("advise", small(tmp_path), "--knobs", "1", "--stop", "30s", "--goal", goal, "--out", tmp_path / "adv-l")
    assert r.exit_code == 2, r.stdout
    assert r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert line.startswith(f"error: --goal: {goal} — ") and "allowed: " in line
    assert "nfs-copy" in line  # names the kinds that produce it
    assert not (tmp_path / "adv-l").exists()


@needs_core
def test_a_stop_before_the_scan_ranks_workload_measures_over_the_whole_run(tmp_path):
    """QA: --stop 10s before the scrub at 60 s gave "no run gave a p99 value" (exit 1): the
    goal still looked for the scan's window. With no scan in the runs it is the whole run,
    as docs/advise.md says; and a goal only a scan gives is refused up front (exit 2)."""
    sc = ROOT / "scenarios" / "default.toml"
    r = invoke("advise", sc, "--goal", "p99", "--set", "zfs.tunables.zfs_txg_timeout=2s,10s", "--stop", "10s",
               "--out", tmp_path / "a", "-q", "--jobs", "1")
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "advise: minimise the p99 latency of users\n" in r.stdout and "during the scan" not in r.stdout
    assert "zfs_txg_timeout=5s " in r.stdout  # the baseline spelt like the values tried
    r = invoke("advise", sc, "--goal", "scan-time", "--stop", "30s", "--out", tmp_path / "b")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith("error: --goal: scan-time — the runs stop at 30.0s, before the actions"), r.stderr
    assert not (tmp_path / "b").exists()


@needs_core
def test_measurable_goals_still_run(tmp_path):
    """The refusal leaves alone a goal a bundled case measures: the nfs-zil copy's elapsed time
    over zil_disable (docs/advise.md), and commit-p99 on a grid where one setting commits."""
    from ziosim.sweep import spec

    nfs = ROOT / "cases" / "nfs-zil" / "with-zil.toml"
    sw = spec.load(nfs, sets=["zfs.tunables.zil_disable=0,1"])
    for goal in ("elapsed", "commit-p99"):
        advise.check_measurable(_goal(goal, ["cp"]), [], [p.scenario.config for p in sw.points])
    r = invoke("advise", small(tmp_path), "--goal", "commit-p99", "--set", "zfs.sync=standard,always",
               "--set", "workload[users].kind=random-write", "--stop", "5s", "--out", tmp_path / "a", "-q",
               "--jobs", "1")
    assert r.exit_code in (0, 1), r.stderr  # it ran: a recommendation or none, not bad input
    doc = json.loads((tmp_path / "a" / "advice.json").read_text())
    assert any(c["goal"] is not None for c in doc["candidates"])


@needs_core
def test_the_reproduce_line_of_an_internal_error_is_the_whole_command(tmp_path, monkeypatch):
    """The tester's hint read `reproduce: ziosim advise small.toml`: the --set, --out and
    --stop that caused the failure were dropped."""
    import shlex

    def broken(a):
        raise ValueError("invalid literal for int() with base 10: '64M'")

    monkeypatch.setattr(advise, "to_json", broken)
    sc = small(tmp_path)
    r = invoke("advise", sc, "--set", "zfs.tunables.zfs_scan_vdev_limit=64M", "--stop", "5s", "--out",
               tmp_path / "adv g", "-q", "--jobs", "1")
    assert r.exit_code == 1
    (line,) = r.stderr.splitlines()
    assert line.startswith("internal error: ValueError: invalid literal")
    repro = line.split("(please report; reproduce: ", 1)[1][:-1]
    assert repro == (f"ziosim advise {sc} --set zfs.tunables.zfs_scan_vdev_limit=64M --out '{tmp_path / 'adv g'}' "
                     "--jobs 1 --stop 5s --quiet")
    assert shlex.split(repro)[1:] == ["advise", str(sc), "--set", "zfs.tunables.zfs_scan_vdev_limit=64M", "--out",
                                      str(tmp_path / "adv g"), "--jobs", "1", "--stop", "5s", "--quiet"]


def test_a_measurable_goal_no_run_reached_says_run_longer_not_relax_a_limit():
    man, rows = _grid([10, 5, 20, 19, 100, 99], [1] * 6)  # no elapsed_ns: the copy never finished
    a = advise.choose(_goal("elapsed", ["users"]), [], man, rows, BASE, scan_window=True, allow_unsafe=False,
                      pool="tank")
    assert a.best is None and all(c.why_not == "no elapsed" for c in a.candidates)
    text = advise.render(a, "out/x")
    assert text.endswith("no recommendation: users finished in no run, so there is nothing to rank by; "
                         "run longer (--stop)\n")
    assert "relax a limit" not in text


WRITER = """
[scenario]
name = "writer"
stop = "3s"
[zfs]
release = "zfs-2.2"
ram = "8G"
[pool]
allocated = "100G"
vdevs = [{ type = "disk", device = "hdd-7200-sata-2014" }]
[[workload]]
name = "w"
kind = "seq-write"
size = "128K"
threads = 8
"""


@needs_core
def test_advise_baseline_on_a_derived_default_is_the_scenario_as_written(tmp_path):
    """QA F2's reproduction on 8 GiB of RAM: the baseline point ran zfs_dirty_data_max = 4 GiB
    (the declaration's number) where the scenario runs 10 % of its RAM, and the revert command
    restored 4 GiB."""
    sc = tmp_path / "writer.toml"
    sc.write_text(WRITER, encoding="utf-8")
    tenth = (8 << 30) * 10 // 100
    r = invoke("run", sc, "--out", tmp_path / "plain", "-q")
    assert r.exit_code == 0, r.stderr
    plain = json.loads((tmp_path / "plain" / "summary.json").read_text())
    assert plain["txg"]["dirty_max_bytes"] == tenth
    out = tmp_path / "adv"
    r = invoke("advise", sc, "--goal", "p99", "--set", "zfs.tunables.zfs_dirty_data_max=2G", "--out", out, "-q",
               "--jobs", "1", "--all")
    assert r.exit_code == 0, r.stderr
    doc = json.loads((out / "advice.json").read_text())
    assert doc["baseline"]["settings"] == {"zfs.tunables.zfs_dirty_data_max": tenth}
    base = next(p for p in json.loads((out / "sweep.json").read_text())["points"]
                if p["values"] == [tenth] or p["values"] == [str(tenth)])
    ran = json.loads((out / "points" / base["id"] / "summary.json").read_text())
    assert ran["txg"]["dirty_max_bytes"] == tenth and ran["digest"] == plain["digest"]
    assert "zfs_dirty_data_max=819M " in r.stdout and "4294967296" not in r.stdout
    # 2G lowers p99 here, so there is a way back to print: to this RAM's default.
    assert doc["recommended"]["settings"] == {"zfs.tunables.zfs_dirty_data_max": 2 << 30}
    assert f"echo {tenth} > /sys/module/zfs/parameters/zfs_dirty_data_max" in r.stdout
    assert "# revert to the zfs-2.2 defaults" in r.stdout


def test_a_failure_a_spare_answers_is_a_scan_to_advise_on():
    """zed puts a spare in when a disk fails: a hot spare is resilvered, a dRAID's
    distributed spare rebuilt; with the agent off, or no spare, a fail starts nothing."""
    from ziosim import scenario

    def kinds(pool: str, extra: str = "") -> list[str]:
        text = ('[zfs]\nrelease = "zfs-2.2"\n[pool]\nfill = 0.1\n' + pool + extra
                + '[[action]]\nat = "1s"\ndo = "fail"\ndisk = "sdb"\n')
        return advise.scan_kinds(scenario.loads(text).config)

    draid = 'vdevs = [{ type = "draid2", disks = 8, data = 4, spares = 1, device = "wd20efrx" }]\n'
    assert kinds(draid) == ["rebuild"]
    assert kinds(draid, 'spares = { device = "wd20efrx" }\n') == ["resilver"]
    assert kinds(draid, "spares = { auto = false }\n") == []
    assert kinds('vdevs = [{ type = "raidz2", disks = 6, device = "wd20efrx" }]\n') == []


# ----------------------------------------------------------------------------- what is not a setting


@pytest.mark.parametrize("values", ["zfs-2.0,zfs-2.1,zfs-2.2", "illumos-2014"])
def test_a_release_axis_is_refused_before_anything_runs(tmp_path, values):
    """A release is not a tunable an admin sets: advise would print the commands and the
    defaults of a release the pool does not run (QA: it recommended zfs-2.0 for a 2.2 pool)."""
    r = invoke("advise", BUSY, "--set", f"zfs.release={values}", "--out", tmp_path / "o")
    assert r.exit_code == 2, r.stdout
    line = r.stderr.strip()
    assert line.count("\n") == 0
    assert f"--set zfs.release={values}" in line and "not a setting" in line and "allowed: tunables" in line
    assert not (tmp_path / "o").exists()


def _fill_grid():
    axes = [{"field": "pool.fill", "name": "pool.fill", "values": [0.1, 0.2]}]
    points = [{"index": k, "id": f"p{k}", "values": [v], "labels": [str(v)]} for k, v in enumerate([0.1, 0.2], 1)]
    rows = [{"point": k, "release": "zfs-2.0", "workload": "users", "scan_func": "scrub", "scan_state": "finished",
             "scan_duration_ns": int(s * 1e9), "scan_window_latency_ns_p99": 10_000_000, "at_risk_bytes_max": 0}
            for k, s in ((1, 100), (2, 200))]
    return {"axes": axes, "points": points}, rows


def test_a_pool_field_without_the_scenarios_value_says_there_is_no_before_and_after(fake_core):
    """pool.fill is a change to make, not a tunable: with the scenario's 0.05 not among the
    values tried there is no baseline, and the view says so, marks 0.1 as changed from
    0.05 and does not present it as a tunable to apply. The header names the scenario's
    release, not the first run's."""
    man, rows = _fill_grid()
    a = advise.choose(advise.parse_goal("scan-time"), [], man, rows, None, scan_window=True, allow_unsafe=False,
                      pool="tank", release="illumos-2014", current={"pool.fill": 0.05})
    assert a.baseline is None and a.best.index == 1 and a.best.changed == 1
    text = advise.render(a, "out/x")
    assert "2 settings of fill on illumos-2014;" in text
    assert "no baseline: the scenario's own pool.fill=0.05 was not among the settings tried" in text
    assert "recommended: fill=0.1*" in text and "  scan time:" not in text  # no before -> after
    assert "pool.fill 0.05 -> 0.1 is a change to the pool" in text and "not a tunable to apply" in text


def test_knobs_with_set_is_refused_not_ignored(tmp_path):
    """--knobs picks how many default knobs to sweep, which --set replaces: with both,
    one was silently ignored (QA). Refused like the other bad options."""
    r = invoke("advise", BUSY, "--set", "zfs.tunables.zfs_scrub_delay=0,1", "--knobs", "3", "--out", tmp_path / "o")
    assert r.exit_code == 2, r.stdout
    line = r.stderr.strip()
    assert line.count("\n") == 0 and line.startswith("error: --knobs: 3 with --set") and "allowed:" in line
    assert not (tmp_path / "o").exists()


@needs_core
def test_compare_shows_an_advise_directory_against_advises_baseline_with_sizes(tmp_path):
    """QA: compare on advise's OUT took each axis's first value as the baseline (4M here)
    and printed 4194304, where advise's baseline is the scenario's 16M and it prints 4M."""
    out = tmp_path / "adv"
    r = invoke("advise", small(tmp_path), "--set", "zfs.tunables.zfs_scan_vdev_limit=4194304,16777216", "--out", out,
               "-q", "--jobs", "1")
    assert r.exit_code == 0, r.stderr
    assert "zfs_scan_vdev_limit=4M" in r.stdout
    assert json.loads((out / "advice.json").read_text())["baseline"]["point"] == 2
    c = invoke("compare", out, "--metrics", "scan,scan_rate")
    assert c.exit_code == 0, c.stderr
    assert "baseline: point 2 (zfs.tunables.zfs_scan_vdev_limit=16M)" in c.stdout
    assert "4M" in c.stdout and "4194304" not in c.stdout and "16777216" not in c.stdout
    # --baseline still chooses.
    c = invoke("compare", out, "--baseline", "zfs.tunables.zfs_scan_vdev_limit=4M")
    assert c.exit_code == 0, c.stderr
    assert "baseline: point 1 (zfs.tunables.zfs_scan_vdev_limit=4M)" in c.stdout


def test_the_docs_prose_quotes_the_example_tables_figures():
    """docs/advise.md's sentence after the busy-scrub example quoted ~15h54m for
    zfs_top_maxinflight = 128 where its table (regenerated by the test above) prints
    ~15h59m. The prose's figures are the table's."""
    page = (ROOT / "docs" / "advise.md").read_text(encoding="utf-8")
    example, tail = page.split("<!-- advise-example -->\n```\n", 1)[1].split("```\n<!-- /advise-example -->", 1)
    row = next(ln for ln in example.splitlines() if ln.startswith("zfs_scrub_delay=0* zfs_top_maxinflight=128*"))
    shown = row.split()[2]
    quoted = re.search(r"`zfs_top_maxinflight = 128` would finish \S+ % sooner \((~[0-9dhms]+)\)", tail)
    assert quoted is not None, "the sentence after the example moved; keep this test in step"
    assert quoted.group(1) == shown

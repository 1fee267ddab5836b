"""Workload latency before, during and after a scan: the summary and the DTrace views."""

from ziosim import runner, scenario
from ziosim.report import render_text
from ziosim.report.summary import build_summary

TEXT = (
    '[scenario]\nname = "phases"\nstop = "scan-done + 10s or 1h"\nreport_interval = "5s"\n'
    '[zfs]\nrelease = "zfs-2.1"\n'
    '[pool]\nallocated = "3G"\nvdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }]\n'
    '[[workload]]\nname = "users"\nkind = "random-read"\nsize = "8K"\nthreads = 2\n'
    '[[action]]\nat = "10s"\ndo = "scrub"\n'
)


def _run():
    sc = scenario.loads(TEXT)
    return runner.run(sc), sc


def test_summary_splits_the_workload_by_scan_window():
    results, sc = _run()
    meta = {"release": "zfs-2.1", "name": "phases", "seed": 0, "version": "t", "scenario_hash": "h"}
    w = build_summary(results, meta)["workloads"]["users"]
    ph = w["by_scan_phase"]
    assert list(ph) == ["before", "during", "after"]
    assert sum(p["ops"] for p in ph.values()) == w["ops"]
    assert sum(p["window_ns"] for p in ph.values()) == results["sim_time_ns"]
    assert ph["after"]["window_ns"] == 10 * 10**9
    for p in ph.values():
        assert p["ops"] > 0
        assert abs(p["ops_per_s"] - p["ops"] / (p["window_ns"] / 1e9)) < 1e-6
        assert sum(p["latency_log2"]) == p["ops"]
    # Two QD1 readers share the disks with the scrub: slower while it runs.
    assert ph["during"]["latency_ns"]["mean"] > ph["before"]["latency_ns"]["mean"]


def test_the_latency_view_prints_one_quantize_per_window():
    results, _ = _run()
    meta = {"release": "zfs-2.1", "name": "phases", "seed": 0, "version": "t", "scenario_hash": "h"}
    text = render_text(results, meta, views=("latency",))
    heads = [line for line in text.splitlines() if line.startswith("$ dtrace")]
    assert len(heads) == 4
    assert heads[0] == '$ dtrace: @["users"] = quantize(latency_ns)'
    for head, key in zip(heads[1:], ("before", "during", "after")):
        assert head.startswith(f'$ dtrace: @["users"] = quantize(latency_ns)   # {key} the scan, ')
    assert heads[3].endswith("# after the scan, 10s window")


def test_runner_reports_scan_progress_for_the_progress_bar():
    sc = scenario.loads(TEXT)
    seen = []
    full = []
    runner.run(sc, chunk=20_000, on_scan=lambda *p: full.append(p))
    seen = [(e, t) for e, t, *_ in full]
    assert seen, "no scan progress reported"
    examined = [e for e, _ in seen]
    assert examined == sorted(examined)
    assert len({t for _, t in seen}) == 1 and seen[-1][0] == seen[-1][1] > 0
    # A sorted scan (zfs-2.1) also gives what it issued and skipped: at the end they cover
    # what it examined; issued grows, and lags examined while the walk runs ahead.
    issued = [p[2] for p in full]
    assert all(p[4] is True for p in full) and issued == sorted(issued)
    assert full[-1][2] + full[-1][3] == full[-1][0]
    assert any(p[2] + p[3] < p[0] for p in full)


def test_a_window_without_operations_has_no_latency():
    # The workload starts after the scrub has ended: nothing finished before or during it,
    # so those windows' latency is null (a row of 0 ns would read as a measurement).
    text = TEXT.replace('threads = 2\n', 'threads = 2\nstart = "2m"\n').replace(
        'stop = "scan-done + 10s or 1h"', 'stop = "3m"')
    results = runner.run(scenario.loads(text))
    meta = {"release": "zfs-2.1", "name": "phases", "seed": 0, "version": "t", "scenario_hash": "h"}
    ph = build_summary(results, meta)["workloads"]["users"]["by_scan_phase"]
    assert results["scans"] and results["scans"][-1]["state"] == "finished"
    assert ph["before"]["ops"] == 0 and ph["before"]["latency_ns"] is None
    assert ph["during"]["ops"] == 0 and ph["during"]["latency_ns"] is None
    assert ph["after"]["ops"] > 0 and ph["after"]["latency_ns"]["max"] > 0

"""Plots (SVG) and report.html: well-formed, deterministic, the expected elements.

Unit tests of the formatting helpers and of the figures drawn from the synthetic
fixture need no core; the end-to-end tests (`needs_core`) run the real simulator on a
short scrub scenario, on one without a scan, and on one that ends before its first
report interval.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from ziosim.report import write_outputs
from ziosim.report.html import report_html
from ziosim.report.plots import MAX_COLUMNS, build_plots
from ziosim.report.svg import (
    bucket_label,
    byte_ticks,
    fmt_duration,
    fmt_rate,
    fmt_time,
    shade_level,
    size_tick_label,
    time_ticks,
)

from conftest import SCENARIOS

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SVG = "{http://www.w3.org/2000/svg}"


# ----------------------------------------------------------------------------- helpers


def _svg_root(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg"
    return root


def _by_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


def _series(root: ET.Element) -> dict[str, ET.Element]:
    return {e.get("data-series"): e for e in _by_class(root, "series")}


def _tip_count(el: ET.Element) -> int:
    """The op count a heat-map cell's tooltip states: '... [262us, 524us): 12 ops (3%)'."""
    m = re.search(r": (\d+) ops", el.find(f"{SVG}title").text)
    assert m, el.find(f"{SVG}title").text
    return int(m.group(1))


class _Balance(HTMLParser):
    """Checks that every non-void HTML element is closed in order."""

    VOID = {"meta", "br", "hr", "img", "input", "link"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()


def _check_html(text: str) -> ET.Element:
    assert text.startswith("<!DOCTYPE html>\n")
    root = ET.fromstring(text)  # well-formed XML (polyglot HTML)
    p = _Balance()
    p.feed(text)
    p.close()
    assert p.stack == []
    # Self-contained: nothing fetched, no script.
    assert "script" not in p.tags
    assert not re.search(r"\b(src|href)=\"(https?:|//)", text)
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for e in root.iter():  # every internal link and pattern reference resolves
        href = e.get("href") or ""
        if href.startswith("#"):
            assert href[1:] in ids, href
        for attr in ("fill", "aria-labelledby"):
            for ref in re.findall(r"url\(#([^)]+)\)", e.get(attr) or ""):
                assert ref in ids, ref
    return root


# ----------------------------------------------------------------------------- units


def test_units_follow_zfs_and_fio_conventions():
    assert bucket_label(0) == "[0, 2ns)"
    assert bucket_label(8) == "[256ns, 512ns)"
    assert bucket_label(18) == "[262us, 524us)"   # zpool iostat -w row labels, floored
    assert bucket_label(30) == "[1s, 2s)"
    assert fmt_rate(43.5 * 2**20) == "43.5M/s"
    assert fmt_rate(0) == "0B/s"
    assert fmt_duration(2_980_000) == "2.98ms"
    assert [fmt_time(s * 10**9) for s in (0, 45, 60, 90, 3600, 3900)] == ["0s", "45s", "1m", "1m30s", "1h", "1h05m"]
    assert fmt_time(1_500_000_000) == "1.50s"
    # byte ticks are round base-1024 numbers
    assert [size_tick_label(t) for t in byte_ticks(43.5 * 2**20)] == ["0", "10M", "20M", "30M", "40M", "50M"]
    assert [size_tick_label(t) for t in byte_ticks(3.3 * 2**40)] == ["0", "1T", "2T", "3T", "4T"]
    assert time_ticks(240 * 10**9) == [k * 30 * 10**9 for k in range(9)]
    assert time_ticks(3 * 10**9)[:3] == [0, 500_000_000, 1_000_000_000]
    assert shade_level(1, 1000) == 0 and shade_level(1000, 1000) == 7
    assert shade_level(30, 1000) < shade_level(300, 1000)


# ----------------------------------------------------------------------------- fixture


@pytest.fixture(scope="module")
def fixture_run():
    """The synthetic raidz2 results with the per-interval histograms, a scrub and its
    status snapshots added, consistent with the fixture's own series."""
    results = json.loads((FIXTURES / "results_raidz2.json").read_text())
    meta = json.loads((FIXTURES / "meta_raidz2.json").read_text())
    ws = results["series"]["workloads"][0]
    los, hists = [], []
    for k, n in enumerate(ws["ops"]):
        # n ops spread over buckets 20..23 (about 1 to 16 ms), more in later intervals' tail
        counts = [n // 2, n // 4, n // 8 + k, 0]
        counts[3] = n - sum(counts[:3])
        while counts and counts[-1] == 0:
            counts.pop()
        los.append(20 if n else 0)
        hists.append(counts if n else [])
    ws["latency_log2_lo"], ws["latency_log2"] = los, hists
    wl = results["workloads"][0]
    lat = wl["latency_log2"]
    results["workloads"][0]["by_scan_phase"] = {
        p: {"ops": sum(lat) // 3, "bytes": 0, "window_ns": 10_000_000_000, "latency_ns": wl["latency_ns"],
            "latency_log2": [c // 3 for c in lat]}
        for p in ("before", "during")}
    results["workloads"][0]["by_scan_phase"]["after"] = {
        "ops": 0, "bytes": 0, "window_ns": 10_000_000_000, "latency_ns": {}, "latency_log2": [0] * 64}
    t = results["series"]["t_ns"]
    results["scan"] = {"func": "scrub", "state": "finished", "start_ns": 10_000_000_000, "end_ns": 25_000_000_000,
                       "duration_ns": 15_000_000_000, "to_examine_bytes": 600 << 30, "examined_bytes": 600 << 30,
                       "issued_bytes": 600 << 30, "processed_bytes": 0, "issued_bytes_per_s": 4.0e10,
                       "engine": "sorted"}
    snaps = []
    for k, tn in enumerate(t):
        scan = ({"func": "none", "state": "none"} if k == 0 else
                {"func": "scrub", "state": "scanning", "start_s": 10, "end_s": 0, "to_examine": 600 << 30,
                 "examined": (300 << 30) * k, "issued": (200 << 30) * k, "processed": 0, "skipped": 0,
                 "to_process": 0, "errors": 0, "pass_exam": 0, "pass_start_s": 10, "pass_scrub_pause_s": 0,
                 "pass_scrub_spent_paused_s": 0, "pass_issued": (200 << 30) * k})
        snaps.append({"t_ns": tn, "state": "ONLINE", "tree": [], "scan": scan, "rebuild": None})
    results["status"] = {"epoch_s": 0, "snapshots": snaps}
    return results, meta


def test_fixture_figures(fixture_run):
    results, meta = fixture_run
    plots = {p.file: p for p in build_plots(results, meta)}
    assert list(plots) == ["latency-heatmap-users.svg", "latency-phases-users.svg", "scan-progress.svg",
                           "disk-busy.svg", "throughput.svg"]
    n = len(results["series"]["t_ns"])
    heat = _svg_root(plots["latency-heatmap-users.svg"].svg)
    cols = _by_class(heat, "col")
    assert len(cols) == n
    assert [int(c.get("data-t-ns")) for c in cols] == results["series"]["t_ns"]
    ops = results["series"]["workloads"][0]["ops"]
    assert [sum(_tip_count(c) for c in _by_class(col, "cell")) for col in cols] == ops
    phases = _series(_svg_root(plots["latency-phases-users.svg"].svg))
    assert sorted(phases) == ["after", "before", "during"]
    assert _by_class(phases["before"], "bar") and not _by_class(phases["after"], "bar")
    progress = _series(_svg_root(plots["scan-progress.svg"].svg))
    assert {"examined", "issued", "processed", "to_examine"} <= set(progress)
    # finished scan: a start and an end marker
    assert len(_by_class(_svg_root(plots["scan-progress.svg"].svg), "marker")) == 2
    busy = _svg_root(plots["disk-busy.svg"].svg)
    assert [r.get("data-leaf") for r in _by_class(busy, "row")] == [leaf["name"] for leaf in results["leaves"]]
    assert set(_series(_svg_root(plots["throughput.svg"].svg))) == {"read", "write"}
    for p in plots.values():
        desc = _svg_root(p.svg).find(f"{SVG}desc").text
        for key in ("version", "release", "scenario_hash"):
            assert str(meta[key]) in desc
        assert f"seed {meta['seed']}" in desc


def test_fixture_report_is_deterministic_and_well_formed(tmp_path, fixture_run):
    results, meta = fixture_run
    a = write_outputs(tmp_path / "a", results, meta)
    b = write_outputs(tmp_path / "b", json.loads(json.dumps(results)), dict(meta))
    assert [p.name for p in a] == [p.name for p in b]
    for pa, pb in zip(a, b):
        assert pa.read_bytes() == pb.read_bytes(), pa.name
    html = (tmp_path / "a" / "report.html").read_text()
    root = _check_html(html)
    svgs = [e for e in root.iter() if e.tag == f"{SVG}svg"]
    assert len(svgs) == len([p for p in a if p.suffix == ".svg"]) == 5
    assert meta["scenario_hash"] in html and results["digest"] in html
    pres = [e for e in root.iter() if e.tag == "pre"]
    assert pres[0].text.startswith("$ zpool status tank")
    assert pres[1].text.startswith("$ ziosim summary")
    # The SVG files are exactly what the page inlines.
    for p in a:
        if p.suffix == ".svg":
            assert p.read_text().rstrip("\n") in html


def test_many_intervals_merge_into_at_most_max_columns(fixture_run):
    results, meta = fixture_run
    r = json.loads(json.dumps(results))
    n = MAX_COLUMNS * 2 + 1
    interval = r["series"]["interval_ns"]
    r["series"]["t_ns"] = [interval * (k + 1) for k in range(n)]
    r["sim_time_ns"] = interval * n
    for s in r["series"]["leaves"]:
        for key in ("busy_ns", "read_bytes", "write_bytes"):
            s[key] = [s[key][0]] * n
    ws = r["series"]["workloads"][0]
    for key in ("ops", "latency_ns_sum", "latency_ns_max", "latency_log2_lo", "latency_log2"):
        ws[key] = [ws[key][1]] * n
    plots = {p.file: p for p in build_plots(r, meta)}
    cols = _by_class(_svg_root(plots["latency-heatmap-users.svg"].svg), "col")
    per = -(-n // MAX_COLUMNS)  # intervals per column
    assert len(cols) == -(-n // per) <= MAX_COLUMNS
    assert sum(sum(_tip_count(c) for c in _by_class(col, "cell")) for col in cols) == sum(ws["ops"])


def test_no_plots_report_has_text_and_tables(tmp_path, fixture_run):
    results, meta = fixture_run
    paths = write_outputs(tmp_path / "o", results, meta, plots=False)
    assert not [p for p in paths if p.suffix == ".svg"]
    html = (tmp_path / "o" / "report.html").read_text()
    root = _check_html(html)
    assert not [e for e in root.iter() if e.tag == f"{SVG}svg"]
    assert "--no-plots" in html and 'id="t-workloads"' in html


def test_no_samples_and_no_scan_still_make_a_report(fixture_run):
    results, meta = fixture_run
    r = json.loads(json.dumps(results))
    r["series"] = {"interval_ns": r["series"]["interval_ns"], "t_ns": [], "leaves": [
        {k: [] for k in s} for s in r["series"]["leaves"]], "workloads": [{"ops": []}]}
    for key in ("scan", "status"):
        r.pop(key)
    r["workloads"][0]["by_scan_phase"] = None
    assert build_plots(r, meta) == []
    html = report_html(r, meta, build_plots(r, meta))
    _check_html(html)
    assert "ended before the first 10s report interval" in html
    assert "No scan ran" in html and "No data to plot" in html


# ----------------------------------------------------------------------------- real core


def _run(tmp_path: Path, name: str, scenario: str, *args: str):
    from typer.testing import CliRunner
    from ziosim.cli import app

    out = tmp_path / name
    r = CliRunner().invoke(app, ["run", str(SCENARIOS / scenario), "--out", str(out), "-q", *args],
                           env={"NO_COLOR": "1"})
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture(scope="module")
def scrub_runs(tmp_path_factory):
    """The default scenario cut to 90 s: three 30 s intervals, the scrub from 60 s. Twice."""
    tmp = tmp_path_factory.mktemp("scrub")
    return _run(tmp, "a", "default.toml", "--stop", "90s"), _run(tmp, "b", "default.toml", "--stop", "90s")


@pytest.mark.needs_core
def test_scrub_run_outputs_are_byte_identical(scrub_runs):
    a, b = scrub_runs
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    assert {"report.html", "latency-heatmap-users.svg", "latency-phases-users.svg", "scan-progress.svg",
            "disk-busy.svg", "throughput.svg"} <= set(names)
    for n in names:
        if n.endswith((".svg", ".html", ".json")):
            assert (a / n).read_bytes() == (b / n).read_bytes(), n


@pytest.mark.needs_core
def test_scrub_run_plots(scrub_runs):
    import pyarrow.parquet as pq

    out = scrub_runs[0]
    summary = json.loads((out / "summary.json").read_text())
    table = pq.read_table(out / "series.parquet").to_pylist()
    rows = [r for r in table if r["workload"] == "users"]
    assert len(rows) == 3
    for r in rows:  # the per-interval histogram in Parquet adds up to the interval's ops
        assert sum(r["latency_log2"]) == r["ops"] > 0
    heat = _svg_root((out / "latency-heatmap-users.svg").read_text())
    cols = _by_class(heat, "col")
    assert len(cols) == 3
    assert [sum(_tip_count(c) for c in _by_class(col, "cell")) for col in cols] == [r["ops"] for r in rows]
    assert "mean" in _series(heat)
    phases = _series(_svg_root((out / "latency-phases-users.svg").read_text()))
    assert sorted(phases) == ["after", "before", "during"]
    by_phase = summary["workloads"]["users"]["by_scan_phase"]
    for p in ("before", "during"):
        assert by_phase[p]["ops"] > 0 and _by_class(phases[p], "bar")
        counted = sum(int(re.search(r": (\d+) ops", e.find(f"{SVG}title").text).group(1))
                      for e in _by_class(phases[p], "bar"))
        assert counted == by_phase[p]["ops"]
    progress = _svg_root((out / "scan-progress.svg").read_text())
    assert {"examined", "issued", "processed"} <= set(_series(progress))
    assert len(_by_class(progress, "marker")) == 1  # started, still scanning at the end
    busy = _svg_root((out / "disk-busy.svg").read_text())
    rows_busy = _by_class(busy, "row")
    assert len(rows_busy) == len(summary["leaves"]) == 6
    assert all(len(_by_class(r, "cell")) <= 3 for r in rows_busy)
    html = (out / "report.html").read_text()
    root = _check_html(html)
    for value in (summary["ziosim_version"], summary["release"], summary["scenario_hash"], summary["digest"]):
        assert str(value) in html
    assert "scrub in progress since" in html
    assert len([e for e in root.iter() if e.tag == f"{SVG}svg"]) == 5


@pytest.mark.needs_core
def test_run_without_scan_or_samples(tmp_path):
    out = _run(tmp_path, "noscan", "one-disk-qd1.toml", "--stop", "20s")
    names = {p.name for p in out.iterdir()}
    assert {"latency-heatmap-qd1.svg", "disk-busy.svg", "throughput.svg", "report.html"} <= names
    assert not {"scan-progress.svg", "latency-phases-qd1.svg"} & names
    html = (out / "report.html").read_text()
    _check_html(html)
    assert "No scan ran" in html
    # A run cut short by the event limit before its first 30 s sample (the scrub's action
    # at 60 s never came): no series, no scan, no status snapshots.
    from ziosim import runner, scenario

    sc = scenario.load(SCENARIOS / "default.toml")
    sc.config["limits"]["events_max"] = 3000
    results = runner.run(sc)
    assert results["series"]["t_ns"] == [] and results["end"].startswith("limit")
    paths = write_outputs(tmp_path / "nosamples", results, runner.meta(sc))
    assert not [p for p in paths if p.suffix == ".svg"]
    html = (tmp_path / "nosamples" / "report.html").read_text()
    _check_html(html)
    assert "ended before the first 30s report interval" in html and "No data to plot" in html
    # A run shorter than one interval samples its partial interval at the end.
    out = _run(tmp_path, "short", "default.toml", "--stop", "10s")
    heat = _svg_root((out / "latency-heatmap-users.svg").read_text())
    (col,) = _by_class(heat, "col")
    assert col.get("data-t-ns") == "10000000000"


@pytest.mark.needs_core
def test_no_plots_flag(tmp_path):
    out = _run(tmp_path, "np", "one-disk-qd1.toml", "--stop", "20s", "--no-plots")
    names = {p.name for p in out.iterdir()}
    assert "report.html" in names and not [n for n in names if n.endswith(".svg")]
